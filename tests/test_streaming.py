"""validate, diff, derive and export -f npz stream big books by pieces: forced into many
tiny pieces, small books give exactly what the whole-book path gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from openingbook.checks import booksizes
from openingbook.checks import diff as diff_module
from openingbook.checks.diff import diff_books
from openingbook.checks.validate import validate_books
from openingbook.formats import load_book, open_book, read_model
from openingbook.formats.compact import write_compact
from openingbook.formats.dataset import labelled_rows
from openingbook.pipeline import negamax
from openingbook.pipeline.negamax import derive_pieces, derive_values
from openingbook.solver import DEFAULT_BOARD, Position, canonical_keys, positions_with_moves
from openingbook.values import distance_bytes_from_scores
from tests.helpers import BOOKS

BOOK7 = BOOKS / "book7-dist.c4b"
BOOK8 = BOOKS / "book8-dist.c4b"


@pytest.fixture
def tiny_pieces(monkeypatch):
    """Whole plies split into parts of at most 2,000 roots (7 plies: 10 parts)."""
    monkeypatch.setattr(negamax, "DERIVE_PIECE_ROOTS", 2000)


def _by_key(first: np.ndarray, mask: np.ndarray, *columns: np.ndarray) -> list[np.ndarray]:
    order = np.argsort(canonical_keys(first, mask, *DEFAULT_BOARD))
    return [c[order] for c in (first, mask, *columns)]


def test_a_derivation_in_parts_is_the_whole_one(monkeypatch):
    with open_book(BOOK8) as deep:
        whole = derive_values(deep, 7)
        assert whole.parts == [] and whole.moves is not None
        monkeypatch.setattr(negamax, "DERIVE_PIECE_ROOTS", 2000)
        done = []
        pieces = list(derive_pieces(deep, 7, progress=lambda d, t: done.append((d, t))))
        joined = derive_values(deep, 7)
    assert len(pieces) > 5 and all(p.parts for p in pieces)
    assert done[-1] == (len(whole), len(whole)) and done == sorted(done)
    assert sum(len(p) for p in pieces) == len(joined) == len(whole)
    a = _by_key(whole.first, whole.mask, whole.result.values, whole.covered)
    b = _by_key(joined.first, joined.mask, joined.result.values, joined.covered)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)
    # each part's move strings, enumerated again, reach its positions
    for row in (0, len(joined) // 2, len(joined) - 1):
        pos = Position.from_moves(joined.move_string(row))
        f, m = np.array([pos.first_stones], np.uint64), np.array([pos.mask], np.uint64)
        same = (
            canonical_keys(f, m, *DEFAULT_BOARD)[0]
            == canonical_keys(
                joined.first[row : row + 1], joined.mask[row : row + 1], *DEFAULT_BOARD
            )[0]
        )
        assert same


def _damaged_book7(tmp_path: Path, rows: list[int]) -> tuple[Path, set[str]]:
    """The 7-ply distance book with the distances of ``rows`` (enumeration order) changed:
    the book and the canonical keys of the changed positions."""
    model = load_book(BOOK7)
    first, mask, moves = positions_with_moves(7, None, *DEFAULT_BOARD)
    index = model.find(first, mask)
    values = distance_bytes_from_scores(model.score[index].astype(np.int8), 7, DEFAULT_BOARD)
    changed = set()
    for row in rows:
        values[row] = 0 if values[row] != 0 else 100 - 34  # a draw, or a first-player win
        changed.add(str(moves[row].decode()))
    out = tmp_path / "damaged7.c4b"
    write_compact(out, 7, "distance", first, mask, values, board=DEFAULT_BOARD)
    return out, changed


def _without_seconds(report) -> dict:
    d = report.as_dict()
    d.pop("seconds", None)
    return d


def test_validation_in_parts_reports_what_the_whole_one_does(tmp_path, monkeypatch):
    damaged, changed = _damaged_book7(tmp_path, [5, 9000, 18000])
    whole = validate_books(damaged, BOOK8)
    monkeypatch.setattr(negamax, "DERIVE_PIECE_ROOTS", 2000)
    parts = validate_books(damaged, BOOK8)
    assert not whole.ok and {d.moves for d in whole.disagreements} == changed
    key = lambda d: d.moves  # noqa: E731 - the order of the pieces is another
    assert sorted(whole.disagreements, key=key) == sorted(parts.disagreements, key=key)
    a, b = _without_seconds(whole), _without_seconds(parts)
    a.pop("disagreements"), b.pop("disagreements")
    assert a == b
    assert validate_books(BOOK7, BOOK8).ok


def test_a_small_book_is_validated_under_its_own_line():
    book = BOOKS / "book8-under44444.dat"
    report = validate_books(book, BOOKS / "book12-dist-under44444.c4b")
    assert report.ok and report.positions == report.compared == 111
    assert report.scope == "under 44444"


def test_diff_in_pieces_is_the_loaded_diff(tmp_path, monkeypatch):
    damaged, changed = _damaged_book7(tmp_path, [3, 4000, 17000])
    monkeypatch.setattr("openingbook.answers.PIECE_POSITIONS", 1000)
    done = []
    streamed = diff_books(BOOK7, damaged, progress=lambda d, t: done.append(d))
    assert len(done) > 10 and done[-1] == streamed.positions_a
    monkeypatch.setattr(diff_module, "_same_enumeration", lambda a, b: False)
    loaded = diff_books(BOOK7, damaged)
    assert streamed.as_dict() == loaded.as_dict()
    assert len(streamed.value_differences) == len(changed) and not streamed.ok


def test_a_data_set_from_the_open_book_is_the_loaded_one():
    with open_book(BOOKS / "book6-dist.c4b") as book:
        looked_up = labelled_rows(book)
        loaded = labelled_rows(read_model(book))
    for name in ("first", "mask", "scores", "value", "winner", "plies"):
        assert np.array_equal(getattr(looked_up, name), getattr(loaded, name))


def test_a_ply_past_the_table_of_sizes_is_derived_in_parts_too(monkeypatch):
    """Past the table of complete book sizes (7x6: 13 plies and deeper) the count of the
    roots is estimated; the parts and the progress end exact."""
    with open_book(BOOK8) as deep:
        whole = derive_values(deep, 7)
        sizes = booksizes.complete_positions
        table = lambda b, p: None if p >= 7 else sizes(b, p)  # noqa: E731
        monkeypatch.setattr(negamax, "complete_positions", table)
        monkeypatch.setattr(booksizes, "complete_positions", table)
        monkeypatch.setattr(negamax, "DERIVE_PIECE_ROOTS", 2000)
        done = []
        joined = derive_values(deep, 7, progress=lambda d, t: done.append((d, t)))
    assert len(joined.parts) > 5 and done[-1] == (len(whole), len(whole))
    assert [d for d, _ in done] == sorted(d for d, _ in done)
    a = _by_key(whole.first, whole.mask, whole.result.values, whole.covered)
    b = _by_key(joined.first, joined.mask, joined.result.values, joined.covered)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)
