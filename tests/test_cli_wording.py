"""What the command line says is true and reads well: the help's claims about the
shipped books, and counts that agree with their nouns."""

from __future__ import annotations

from click.testing import CliRunner

from openingbook.cli import main
from openingbook.registry import shipped_books


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_book_of_one_position_says_one_position() -> None:
    [one] = [b for b in shipped_books() if b.positions == 1]  # the empty board: 0-dist
    [line] = [x for x in _run("books").splitlines() if x.startswith(f"{one.name} ")]
    assert line.endswith(", 1 position")


def test_an_export_of_one_position_says_one_position(tmp_path) -> None:
    out = tmp_path / "empty.csv"
    assert _run("export", "0-dist", "-f", "csv", "-o", str(out)).startswith(
        f"wrote 1 position to {out} (csv)"
    )
