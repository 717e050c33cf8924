"""Books too big to hold whole: read piece by piece, refused before any read.

The 14-ply book (23M positions) is read part by part; these tests make the small
shipped books take the same paths (a lower :data:`openingbook.answers.PIECEWISE_POSITIONS`)
and count what a reader was asked. Memory and time goals are in
``benchmarks/bench_book14_usable.py``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import openingbook.answers as answers
import openingbook.formats.cadot as cadot
import openingbook.formats.compact.book as compact  # imported before any fixture lowers the bound
import openingbook.formats.registry as formats
import openingbook.formats.tabular as tabular
import openingbook.pipeline.negamax as negamax
from openingbook.answers import BookReader
from openingbook.booknames import resolve_book
from openingbook.checks.validate import validate_books
from openingbook.cli import main
from openingbook.errors import BookFileError, InvalidArgument
from openingbook.formats import describe, load_book, open_book
from openingbook.pipeline.derive import derive_book
from openingbook.pipeline.export import export_book
from openingbook.solver import AUTO_PARTS, canonical_keys, enumerate_positions, iter_parts


class Counted:
    """Counts the positions every reader is asked for (bulk lookups and whole reads)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.looked_up = 0
        self.whole_reads = 0
        lookup_many, positions = BookReader.lookup_many, BookReader.positions
        counter = self

        def counted_lookup(self, first, mask, strict=True):  # type: ignore[no-untyped-def]
            counter.looked_up += int(np.size(first))
            return lookup_many(self, first, mask, strict)

        def counted_positions(self):  # type: ignore[no-untyped-def]
            counter.whole_reads += 1
            return positions(self)

        monkeypatch.setattr(BookReader, "lookup_many", counted_lookup)
        monkeypatch.setattr(BookReader, "positions", counted_positions)


@pytest.fixture
def piecewise(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small books read as the 14-ply one is: part by part, in small pieces."""
    monkeypatch.setattr(answers, "PIECEWISE_POSITIONS", 1000)
    monkeypatch.setattr(compact, "PIECEWISE_POSITIONS", 1000)  # info's default
    monkeypatch.setattr(answers, "PIECE_POSITIONS", 1000)


def test_a_big_book_comes_part_by_part_in_the_order_of_its_enumeration(
    piecewise: None,
) -> None:
    with open_book("8") as book:
        pieces = list(book.position_pieces())
        first = np.concatenate([f for f, _ in pieces])
        mask = np.concatenate([m for _, m in pieces])
        assert len(pieces) > AUTO_PARTS  # parts, each in pieces
        assert max(len(f) for f, _ in pieces) <= 1000
        parts = list(iter_parts(8, AUTO_PARTS, 7, 6))
        assert np.array_equal(first, np.concatenate([f for _, f, _ in parts]))
        assert np.array_equal(mask, np.concatenate([m for _, _, m in parts]))
        whole_f, whole_m = enumerate_positions(8, None, 7, 6)
        assert np.array_equal(
            np.sort(canonical_keys(first, mask, 7, 6)),
            np.sort(canonical_keys(whole_f, whole_m, 7, 6)),
        )
        assert len(first) == len(book)


def test_a_scoped_book_comes_in_slices_of_its_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answers, "PIECE_POSITIONS", 7)
    with open_book("8") as book:
        first, mask = book.positions()
        pieces = list(book.position_pieces())
    assert [len(f) for f, _ in pieces[:2]] == [7, 7]
    assert np.array_equal(np.concatenate([f for f, _ in pieces]), first)
    assert np.array_equal(np.concatenate([m for _, m in pieces]), mask)


def test_iteration_reads_piece_by_piece(piecewise: None, monkeypatch: pytest.MonkeyPatch) -> None:
    counted = Counted(monkeypatch)
    with open_book("8") as book:
        it = iter(book)
        next(it)
        assert counted.whole_reads == 0
        assert counted.looked_up < len(book)


def test_csv_export_writes_rows_before_the_book_is_read(
    piecewise: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    counted = Counted(monkeypatch)
    read_at_first_rows: list[int] = []
    lines = tabular.tabular_lines

    def first_rows(*args, **kwargs):  # type: ignore[no-untyped-def]
        read_at_first_rows.append(counted.looked_up)
        return lines(*args, **kwargs)

    monkeypatch.setattr(tabular, "tabular_lines", first_rows)
    out = tmp_path / "b.csv"
    summary = export_book("8-dist", "csv", out)
    assert counted.whole_reads == 0
    assert read_at_first_rows[0] <= 1000 < summary.positions == 77715
    # every position once, each with the book's answer
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    model = load_book("8-dist")
    assert len(rows) == len(model) == summary.positions
    by_code = {row["code"]: row for row in rows}
    assert len(by_code) == len(rows)
    counts = {w: sum(row["winner"] == w for row in rows) for w in ("first", "second", "draw")}
    assert counts == {
        "first": int((model.winner == 1).sum()),
        "second": int((model.winner == -1).sum()),
        "draw": int((model.winner == 0).sum()),
    }


@pytest.mark.parametrize(
    ("book", "fmt", "options", "error"),
    [
        ("12-dist", "uci", {}, InvalidArgument),  # more plies than UCI rows are made for
        ("8", "pons", {}, BookFileError),  # no distances
        ("8", "cadot", {}, BookFileError),  # no distances, no --no-distance
        ("12-dist-6x6", "cadot", {}, InvalidArgument),  # not 7x6
        ("12-dist-6x6", "csv", {}, InvalidArgument),
    ],
)
def test_an_export_is_refused_before_any_position_is_read(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    book: str,
    fmt: str,
    options: dict[str, object],
    error: type[Exception],
) -> None:
    def no_read(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a position was read before the refusal")

    for name in ("positions", "lookup_many", "position_pieces"):
        monkeypatch.setattr(BookReader, name, no_read)
    with pytest.raises(error):
        export_book(book, fmt, tmp_path / "out", **options)
    assert not (tmp_path / "out").exists()


def test_info_of_a_big_book_reads_its_header_and_checksum_only(
    piecewise: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = Counted(monkeypatch)
    info = describe(resolve_book("8"))
    assert counted.looked_up == counted.whole_reads == 0
    assert info["ok"] and info["checks"] == {"checksum": "ok"}
    assert info["values"] == {}
    assert set(info["not_checked"]) == {"positions", "values"}
    assert "--full" in info["not_checked"]["values"]


def test_info_full_checks_a_big_book_part_by_part_with_progress(
    piecewise: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = Counted(monkeypatch)
    seen: list[tuple[int, int]] = []
    info = describe(resolve_book("8"), full=True, progress=lambda d, t: seen.append((d, t)))
    assert counted.whole_reads == 0
    assert info["checks"] == {"checksum": "ok", "positions": "ok", "values": "ok"}
    assert info["not_checked"] == {}
    assert len(seen) > AUTO_PARTS and seen[0] == (0, 77715) and seen[-1] == (77715, 77715)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert info["values"] == describe(resolve_book("8"), full=True)["values"]
    assert info["values"] == {"draw": 7344, "first": 48793, "second": 21578}


def test_info_cli_of_a_big_book_says_what_it_did_not_check(piecewise: None) -> None:
    result = CliRunner().invoke(main, ["info", "8"])
    assert result.exit_code == 0, result.output
    assert "values check: not run (77,715 positions: --full decodes every one)" in result.output
    result = CliRunner().invoke(main, ["info", "8", "--full"])
    assert result.exit_code == 0, result.output
    assert "values check: ok" in result.output
    assert "values: draw 7344, first player wins 48793" in result.output


@pytest.fixture
def sliced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Derivations from small books walk their roots in slices, as from the 14-ply book."""
    monkeypatch.setattr(negamax, "DERIVE_SLICE_BYTES", 1 << 20)


def test_derive_from_a_compact_book_loads_none_of_it_and_goes_by_slices(
    sliced: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def no_load(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the deeper book was loaded whole")

    monkeypatch.setattr(formats, "read_model", no_load)
    seen: list[tuple[int, int]] = []
    out = tmp_path / "b6.c4b"
    summary = derive_book("8-dist", 6, out, progress=lambda d, t: seen.append((d, t)))
    assert len(seen) > 2 and seen[0] == (0, 7638) and seen[-1] == (7638, 7638)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert summary.positions == 7638
    monkeypatch.undo()
    derived, shipped = load_book(out), load_book("6-dist")
    at = shipped.find(derived.first, derived.mask)
    assert (at >= 0).all() and len(derived) == len(shipped)
    assert np.array_equal(derived.winner, shipped.winner[at])
    assert np.array_equal(derived.plies_to_end, shipped.plies_to_end[at])


def test_a_derivation_in_slices_equals_one_in_a_single_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with open_book("9-dist") as deep:
        whole = negamax.derive_values(deep, 7)
        monkeypatch.setattr(negamax, "DERIVE_SLICE_BYTES", 1 << 20)
        sliced = negamax.derive_values(deep, 7)
    assert np.array_equal(whole.result.values, sliced.result.values)
    assert np.array_equal(whole.covered, sliced.covered) and whole.covered.all()
    assert np.array_equal(whole.moves, sliced.moves)
    # each slice walks its own subtrees: a position two slices reach is counted twice
    assert sliced.result.layer_sizes[0] == whole.result.layer_sizes[0]
    assert sliced.result.layer_sizes[-1] >= whole.result.layer_sizes[-1]


def test_validate_against_a_compact_book_loads_none_of_it(
    sliced: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_model = formats.read_model
    loaded: list[str] = []

    def counted_load(book, complete=True):  # type: ignore[no-untyped-def]
        loaded.append(book.path.name)
        return read_model(book, complete)

    monkeypatch.setattr(formats, "read_model", counted_load)
    seen: list[tuple[int, int]] = []
    report = validate_books("7-dist", "9-dist", progress=lambda d, t: seen.append((d, t)))
    assert report.ok and report.compared == report.positions == 25718
    assert loaded == []  # both books are read by parts from their files
    assert len(seen) > 1 and seen[-1] == (25718, 25718)


def test_cadot_keys_come_block_by_block(monkeypatch: pytest.MonkeyPatch) -> None:
    first, mask = enumerate_positions(6, None, 7, 6)
    whole = cadot.cadot_keys(first, mask)
    monkeypatch.setattr(cadot, "_KEY_BLOCK", 7)
    assert np.array_equal(cadot.cadot_keys(first, mask), whole)
    floating = mask.copy()
    floating[100] |= np.uint64(1 << 5)  # a stone above empty cells of column 1
    with pytest.raises(InvalidArgument, match="position 100 has a column"):
        cadot.cadot_keys(first, floating)


def test_a_walk_under_a_line_is_sliced_by_what_its_first_slice_reached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under a line narrower than the deeper book's scope nothing tells beforehand what
    the roots reach: the first slice is 1/LINE_FIRST_SLICES of them, the next ones sized
    from it, and the values are those of one walk."""
    walks: list[int] = []
    walk = negamax.negamax_layers

    def counted(first, *args, **kwargs):  # type: ignore[no-untyped-def]
        walks.append(len(first))
        return walk(first, *args, **kwargs)

    with open_book("12-dist") as deep:
        monkeypatch.setattr(negamax, "DERIVE_LINE_SLICE_BYTES", 1 << 40)  # one slice's worth
        whole = negamax.derive_values(deep, 8, under="4444")
        monkeypatch.setattr(negamax, "negamax_layers", counted)
        monkeypatch.setattr(negamax, "DERIVE_LINE_SLICE_BYTES", 1 << 22)
        sliced = negamax.derive_values(deep, 8, under="4444")
    roots = len(whole.first)
    assert roots == 450
    assert walks[0] == roots // negamax.LINE_FIRST_SLICES and len(walks) > 2
    assert sum(walks) == roots
    assert np.array_equal(whole.result.values, sliced.result.values)
    assert np.array_equal(whole.covered, sliced.covered) and whole.covered.all()
