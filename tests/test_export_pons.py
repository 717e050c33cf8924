"""Pons book export and reader: key3, table layout, slot clashes, round trips."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.errors import PositionNotInBook
from openingbook.formats.pons import (
    HEADER_BYTES,
    PonsBook,
    _crt,
    _key3_one,
    key3,
    key3_many,
    next_prime,
    partial_key_bytes,
    write_pons,
)
from openingbook.formats.thill import Book
from openingbook.pipeline.export import export_book
from openingbook.solver import (
    DEFAULT_BOARD,
    DEFAULT_HEIGHT,
    DEFAULT_WIDTH,
    Position,
    Winner,
    enumerate_positions,
)
from tests.helpers import built_book, positions


def _arrays(ps: list[Position]) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.array([p.first_stones for p in ps], np.uint64),
        np.array([p.mask for p in ps], np.uint64),
    )


def _base3(digits: str) -> int:
    return int(digits, 3)


def test_key3_of_known_boards() -> None:
    # "45": A on column 4, B on column 5, A to move: forward walk 0 0 0 1 0 2 0 0 (0),
    # backward walk 0 0 2 0 1 0 0 0 (0); the smaller, without its final 0
    assert key3(Position.from_moves("45")) == _base3("00010200") == 99
    # "4453": c = B, d = A B, e = A, A to move; backward 0 0 1 0 1 2 0 2 0 0 is smaller
    assert key3(Position.from_moves("4453")) == _base3("0010120200")
    assert key3(Position()) == 0


@settings(max_examples=200, deadline=None)
@given(positions(max_stones=30))
def test_vectorized_key3_follows_the_definition(pos: Position) -> None:
    keys = key3_many(*_arrays([pos, pos.mirror()]), pos.width, pos.height)
    assert int(keys[0]) == int(keys[1]) == key3(pos) == _key3_one(pos)


@given(st.integers(2, 5000))
def test_next_prime(n: int) -> None:
    p = next_prime(n)
    assert p >= n and all(p % d for d in range(2, p))
    assert all(any(q % d == 0 for d in range(2, q)) for q in range(n, p))


@given(st.integers(0, 3**18 - 1))
def test_slot_and_partial_key_give_the_key_back(key: int) -> None:
    size = next_prime(1 << 21)
    assert partial_key_bytes(12, size, DEFAULT_WIDTH) == 1
    slot = np.array([key % size], np.uint64)
    partial = np.array([key & 0xFF], np.uint64)
    assert int(_crt(slot, partial, size, 8)[0]) == key


def test_distance_book_round_trip(tmp_path: Path) -> None:
    book = built_book()
    out = tmp_path / "7x6.book"
    summary = export_book(book, "pons", out)
    raw = out.read_bytes()
    size = next_prime(1 << 21)
    assert list(raw[:HEADER_BYTES]) == [7, 6, 12, 1, 1, 21]
    assert len(raw) == HEADER_BYTES + 2 * size
    assert summary.details["lost_to_slot_clashes"] == 0
    with Book(book) as source, PonsBook(out) as pons:
        assert len(pons) == len(source) == summary.positions
        for pos, value in source:
            assert pons.get(pos) == value
            assert pons.get(pos.mirror()) == value
            # the stored byte is score - MIN_SCORE + 1 = score + 19, at slot key3 % size
            assert raw[HEADER_BYTES + size + key3(pos) % size] == value.score + 19
        listed = {p.canonical(): v for p, v in pons}
        assert listed == {p.canonical(): v for p, v in source}


def test_pruned_book_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="exact scores"):
        export_book(built_book(distances=False), "pons", tmp_path / "x.book")
    assert not (tmp_path / "x.book").exists()


def test_slot_clashes_keep_the_first_position_and_are_counted(tmp_path: Path) -> None:
    first, mask = enumerate_positions(10, None, *DEFAULT_BOARD)  # 634,338 keys in 2,097,169 slots
    scores = (np.arange(first.size) % 33 - 16).astype(np.int8)  # all possible at 10 stones
    out = tmp_path / "ten.book"
    result = write_pons(
        out, first, mask, scores, log_size=21, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
    )
    keys = key3_many(first, mask, *DEFAULT_BOARD)
    slots = keys % np.uint64(result.size)
    assert result.lost == first.size - np.unique(slots).size > 0
    with PonsBook(out) as pons:
        bulk = pons.lookup_many(first, mask, strict=False)
        stored = bulk.index >= 0
        assert stored.sum() == result.stored == len(pons)
        assert (bulk.score[stored] == scores[stored]).all()
        # a lost position lost its slot to an earlier one: first occurrence wins
        _, first_of_slot = np.unique(slots, return_index=True)
        assert set(np.flatnonzero(stored).tolist()) == set(first_of_slot.tolist())
        listed_first, listed_mask, listed_scores = pons.arrays()
        assert sorted(listed_scores.tolist()) == sorted(scores[stored].tolist())
        assert listed_first.size == result.stored
        assert (
            np.sort(key3_many(listed_first, listed_mask, *DEFAULT_BOARD)) == np.sort(keys[stored])
        ).all()


def test_reader_answers_like_pons_solver_for_missing_and_deeper_positions(tmp_path: Path) -> None:
    p = Position.from_moves("4444")
    out = tmp_path / "t.book"
    write_pons(out, *_arrays([p]), np.array([0]), width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    with PonsBook(out) as pons:
        assert pons.get(p) == (Winner.DRAW, 38, 0)
        assert pons.depth == 4
        deeper = Position.from_moves("44444")
        with pytest.raises(PositionNotInBook):
            pons.get(deeper)
        assert deeper not in pons
        # the side to move wins at once, but with 6 stones: another ply, not in the book
        assert Position.from_moves("112233") not in pons
        with pytest.raises(PositionNotInBook):
            pons.get(Position.from_moves("112233"))


def test_a_book_of_one_ply_never_answers_a_shallower_position(tmp_path: Path) -> None:
    """Pons' solver probes every position of at most the book's depth stones, so the
    8-ply book's file is also asked for every position of 0..7 stones: all must miss
    (slot and partial key identify any key3 up to the depth, not only the ply's)."""
    first, mask = enumerate_positions(8, None, *DEFAULT_BOARD)
    out = tmp_path / "eight.book"
    scores = np.zeros(first.size, np.int8)
    write_pons(out, first, mask, scores, log_size=21, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    with PonsBook(out) as pons:
        assert (pons.depth, pons.key_bytes) == (8, 1)
        assert (pons.lookup_many(first, mask, strict=False).index >= 0).sum() == len(pons)
        for plies in range(8):
            shallower = enumerate_positions(plies, None, *DEFAULT_BOARD)
            assert (pons.lookup_many(*shallower, strict=False).index == -1).all(), plies


def test_bad_files_are_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.book"
    bad.write_bytes(bytes([7, 6, 12, 1, 1, 21]) + b"\0" * 10)
    with pytest.raises(ValueError, match="a Pons book with log size 21"):
        PonsBook(bad)
    bad.write_bytes(bytes([7, 6, 12, 3, 1, 21]))
    with pytest.raises(ValueError, match="not a Pons book"):
        PonsBook(bad)
    with pytest.raises(ValueError, match="cannot be loaded by Pons"):
        write_pons(
            bad,
            *_arrays([Position()]),
            np.array([0]),
            log_size=20,
            width=DEFAULT_WIDTH,
            height=DEFAULT_HEIGHT,
        )


@pytest.mark.parametrize(("offset", "byte"), [(0, 6), (0, 5), (1, 4)])
def test_a_header_that_does_not_fit_its_table_is_refused(
    tmp_path: Path, offset: int, byte: int
) -> None:
    """A smaller width, or a height lower than a stored column, in the header reads the
    stored keys as walks of another board: detection and the reader both refuse the file,
    with one line."""
    from openingbook.errors import BookFileError
    from openingbook.formats import detect

    good = tmp_path / "7x6.book"
    export_book(built_book(), "pons", good)
    raw = bytearray(good.read_bytes())
    raw[offset] = byte
    bad = tmp_path / "changed.book"
    bad.write_bytes(bytes(raw))
    with pytest.raises(BookFileError, match="header") as refused:
        PonsBook(bad)
    assert "\n" not in str(refused.value)
    with pytest.raises(BookFileError, match="not a book in a known format"):
        detect(bad)
    assert detect(good).name == "pons"


@pytest.mark.parametrize("book", ["10-dist", "book12-dist-under44444.c4b"])
def test_a_compact_book_is_exported_by_pieces_as_from_its_model(tmp_path, book):
    """A compact book's Pons export fills the table a piece at a time, never loading the
    book: the file is the one its whole model writes (the same first-come slots)."""
    from openingbook.formats import FORMATS, open_book, read_model

    path = book if "." not in book else str(Path(__file__).resolve().parents[1] / "books" / book)
    with open_book(path) as reader:
        assert reader.enumerated
        model = read_model(reader)
    summary = export_book(path, "pons", tmp_path / "pieces.book")
    stored, _ = FORMATS["pons"].export(model, tmp_path / "model.book")
    assert summary.positions == stored > 0
    assert (tmp_path / "pieces.book").read_bytes() == (tmp_path / "model.book").read_bytes()
