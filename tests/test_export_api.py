"""open_book and the export command: every format behind one interface, clean errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import openingbook
from openingbook.api import BookReader, detect_kind
from openingbook.cli import main
from openingbook.errors import PositionNotInBook
from openingbook.formats.cadot import CadotBook
from openingbook.formats.pons import PonsBook
from openingbook.formats.thill import Book, BookFormat
from openingbook.pipeline.export import export_book
from openingbook.solver import DEFAULT_BOARD, Position
from tests.helpers import REFERENCE_BOOK8, built_book, write_manifest


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The distance book and its Cadot (named like a Thill file) and Pons exports."""
    d = tmp_path_factory.mktemp("api")
    book = d / "book12.dat"
    shutil.copy(built_book(), book)
    shutil.copy(str(built_book()) + ".json", str(book) + ".json")
    export_book(book, "cadot", d / "connect4_7x6.dat")
    export_book(book, "pons", d / "7x6.book")
    return {"thill": book, "cadot": d / "connect4_7x6.dat", "pons": d / "7x6.book"}


def test_kinds_are_detected(exports: dict[str, Path]) -> None:
    for kind, path in exports.items():
        assert detect_kind(path) == kind
    assert detect_kind(REFERENCE_BOOK8) == "thill"


def test_every_reader_answers_alike(exports: dict[str, Path]) -> None:
    readers = {kind: openingbook.open_book(path) for kind, path in exports.items()}
    assert isinstance(readers["thill"], Book)
    assert isinstance(readers["cadot"], CadotBook)
    assert isinstance(readers["pons"], PonsBook)
    try:
        stored = list(readers["thill"])
        first = np.array([p.first_stones for p, _ in stored], np.uint64)
        mask = np.array([p.mask for p, _ in stored], np.uint64)
        expected = readers["thill"].lookup_many(first, mask)
        for reader in readers.values():
            assert isinstance(reader, BookReader)
            assert len(reader) == len(stored)
            assert {p.canonical(): v for p, v in reader} == {p.canonical(): v for p, v in stored}
            for pos, value in stored:
                assert pos in reader and pos.mirror() in reader
                assert reader.get(pos.mirror()) == value
            bulk = reader.lookup_many(first, mask)
            for name in ("winner", "plies", "score"):
                assert (getattr(bulk, name) == getattr(expected, name)).all()
            outside = Position.from_moves("444444123321")  # a 12-ply position off the line
            assert outside not in reader
            with pytest.raises(PositionNotInBook):
                reader.get(outside)
    finally:
        for reader in readers.values():
            reader.close()


def test_context_manager_and_forced_kind(exports: dict[str, Path]) -> None:
    with openingbook.open_book(exports["cadot"], format="cadot") as book:
        assert len(book) > 0
    with pytest.raises(openingbook.BookClosed):
        len(book)
    with pytest.raises(ValueError, match="format tromp: choose one of"):
        openingbook.open_book(exports["cadot"], format="tromp")


def test_unknown_files_are_one_line_errors(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 3 + b"x")
    with pytest.raises(ValueError, match="not a book in a known format") as info:
        openingbook.open_book(junk)
    assert "\n" not in str(info.value)
    with pytest.raises(FileNotFoundError):
        openingbook.open_book(tmp_path / "missing.dat")


def test_cli_exports_and_reports(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "tromp.csv"
    result = runner.invoke(
        main, ["export", str(REFERENCE_BOOK8), "-f", "uci", "-o", str(out), "--tromp-subset"]
    )
    assert result.exit_code == 0, result.output
    assert "67,557 positions" in result.output and "win 44,473, loss 16,635, draw 6,449" in (
        result.output
    )
    result = runner.invoke(
        main,
        ["export", str(REFERENCE_BOOK8), "-f", "jsonl", "-o", str(tmp_path / "b.jsonl"), "--json"],
    )
    assert result.exit_code == 0 and '"positions": 77715' in result.output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["-f", "pons"], 1, "has no distances"),
        (["-f", "cadot"], 1, "--no-distance"),
        (["-f", "csv", "--log-size", "22"], 2, "--log-size applies to the pons format only"),
        (["-f", "jsonl", "--tromp-subset"], 2, "--tromp-subset applies to the uci format only"),
    ],
)
def test_cli_errors_are_one_line(tmp_path: Path, args: list[str], code: int, message: str) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["export", str(REFERENCE_BOOK8), "-o", str(out), *args])
    assert result.exit_code == code  # 2: an option that does not fit the format
    assert message in result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert not out.exists()


def test_every_readable_format_is_exported(exports: dict[str, Path], tmp_path: Path) -> None:
    """Export reads through the registry: a Cadot or Pons file exports the positions
    and answers of the book it was exported from."""
    whole = export_book(exports["thill"], "jsonl", tmp_path / "thill.jsonl")
    want = sorted(json.loads(line)["winner"] for line in (tmp_path / "thill.jsonl").open())
    for kind in ("cadot", "pons"):
        out = tmp_path / f"{kind}.jsonl"
        again = export_book(exports[kind], "jsonl", out)
        assert again.positions == whole.positions
        assert sorted(json.loads(line)["winner"] for line in out.open()) == want
    with pytest.raises(FileNotFoundError, match="output directory does not exist"):
        export_book(exports["thill"], "jsonl", tmp_path / "no" / "x.jsonl")


def test_cli_refuses_a_sample_book(tmp_path: Path) -> None:
    book = tmp_path / "sample.dat"
    shutil.copy(built_book(distances=False), book)
    manifest = Path(str(built_book(distances=False)) + ".json").read_text()
    Path(str(book) + ".json").write_text(manifest.replace('"sample": null', '"sample": 5'))
    result = CliRunner().invoke(
        main, ["export", str(book), "-f", "jsonl", "-o", str(tmp_path / "o")]
    )
    assert result.exit_code == 1 and "is a sample" in result.output


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_cli_unwritable_output_is_one_line_naming_it() -> None:
    # /proc accepts no new files: the error names the output, not the temporary file
    result = CliRunner().invoke(
        main, ["export", str(REFERENCE_BOOK8), "-f", "csv", "-o", "/proc/x"]
    )
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: cannot write /proc/x: No such file or directory"
    ]


def test_cli_existing_output_needs_force(tmp_path: Path) -> None:
    out = tmp_path / "x.csv"
    out.write_text("keep me\n")
    args = ["export", str(REFERENCE_BOOK8), "-f", "csv", "-o", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: {out} exists; use --force to overwrite it"
    ]
    assert out.read_text() == "keep me\n"
    result = CliRunner().invoke(main, [*args, "--force"])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("code,diagram,")


def test_cli_damaged_manifest_is_one_line(tmp_path: Path) -> None:
    book = tmp_path / "b.dat"
    shutil.copy(REFERENCE_BOOK8, book)
    manifest = json.loads(
        write_manifest(book, BookFormat.for_plies(8, False, *DEFAULT_BOARD)).read_text()
    )
    for selection, message in ((5, "'under' is 5"), ([1], "'selection' is not an object")):
        manifest["selection"] = {"under": selection} if selection == 5 else selection
        Path(str(book) + ".json").write_text(json.dumps(manifest))
        result = CliRunner().invoke(
            main, ["export", str(book), "-f", "csv", "-o", str(tmp_path / "o.csv")]
        )
        assert result.exit_code == 1, result.output
        assert message in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("fmt", ["npz", "parquet", "csv", "pons"])
def test_an_unwritable_output_is_refused_before_the_book_is_opened(fmt, tmp_path, monkeypatch):
    """A missing output directory fails at once, before any position is read (the
    data set formats used to enumerate and solve first)."""
    import openingbook.pipeline.export as export

    def never(*args, **kwargs):
        raise AssertionError("the book was opened")

    monkeypatch.setattr(export, "open_book", never)
    book = Path(openingbook.__file__).parent / "shipped" / "book8-dist.c4b"
    if not book.exists():
        book = Path(__file__).resolve().parents[1] / "books" / "book8-dist.c4b"
    with pytest.raises(openingbook.OutputError, match="output directory does not exist"):
        export_book(book, fmt, tmp_path / "missing" / f"out.{fmt}")


@pytest.mark.parametrize("fmt", ["csv", "cadot"])
def test_an_export_by_pieces_reports_its_progress(tmp_path, fmt):
    """jsonl/csv and a compact book's cadot/pons are written as the book's pieces come:
    progress(done, total) from 0 to the book's positions, never back."""
    seen: list[tuple[int, int]] = []
    summary = export_book(
        "8-dist", fmt, tmp_path / f"b8.{fmt}", progress=lambda d, t: seen.append((d, t))
    )
    assert seen[0] == (0, summary.positions) and seen[-1] == (summary.positions,) * 2
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
