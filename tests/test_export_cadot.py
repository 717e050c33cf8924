"""Cadot export and reader: the 111-column table against the seed, keys, outcomes, round trips."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.errors import PositionNotInBook
from openingbook.formats.cadot import (
    BASE,
    CadotBook,
    _key_of,
    cadot_columns,
    cadot_key,
    cadot_keys,
    decode_cadot_keys,
    decode_outcomes,
    encode_outcomes,
    write_cadot,
)
from openingbook.formats.thill import Book
from openingbook.pipeline.export import export_book
from openingbook.solver import Position, Winner
from tests.helpers import DATA, REFERENCE_BOOK8, built_book, positions

#: Cadot's table of the 111 columns (tests/data/README.md says where it comes from)
SEED = DATA / "cadot-columns.txt"


def _arrays(ps: list[Position]) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.array([p.first_stones for p in ps], np.uint64),
        np.array([p.mask for p in ps], np.uint64),
    )


def test_column_table_matches_the_seed() -> None:
    rows = re.findall(
        r"\|\s+(\d+)\s+\|\s+(\d+)\s+\|\s+([012]{6})\s+\|\s+([.AB]{6})\s+\|", SEED.read_text()
    )
    columns = cadot_columns()
    assert len(rows) == len(columns) == 111
    for index, (encoded, value, ternary, picture) in enumerate(rows):
        assert int(encoded) == index
        assert int(value) == int(ternary, 3) == columns[index]
        ours = "".join(".AB"[(columns[index] // 3**row) % 3] for row in reversed(range(6)))
        assert ours == picture


def test_seed_example_column_and_known_keys() -> None:
    # the seed's example: A at the bottom, B on top is ternary 000021 = 7, column index 5
    assert cadot_columns().index(7) == 5
    p = Position.from_moves("44")  # column d holds that column, the others are empty
    assert cadot_key(p) == 5 * BASE**3
    # one A stone in column a: v1 = 1 (digit 1 at 111^0), v2 = 111^6; the key is the smaller
    assert cadot_key(Position.from_moves("1")) == 1
    assert cadot_key(Position.from_moves("7")) == 1
    # "4453": c = B (digit 2), d = A,B (5), e = A (1): v1 = 2*111^2 + 5*111^3 + 1*111^4
    assert cadot_key(Position.from_moves("4453")) == 2 * BASE**2 + 5 * BASE**3 + BASE**4


@settings(max_examples=200, deadline=None)
@given(positions())
def test_vectorized_keys_follow_the_definition(pos: Position) -> None:
    f, m = _arrays([pos, pos.mirror()])
    keys = cadot_keys(f, m)
    assert int(keys[0]) == int(keys[1]) == cadot_key(pos) == _key_of(pos) == _key_of(pos.mirror())
    first, mask = decode_cadot_keys(keys[:1])
    decoded = Position.from_bitboards(int(first[0]), int(mask[0]))
    assert decoded in (pos, pos.mirror())


def test_impossible_columns_are_refused() -> None:
    # column a, bottom up: A A A A B (four below the top stone), and a floating stone
    four_below_top = (np.array([0b01111], np.uint64), np.array([0b11111], np.uint64))
    floating = (np.array([0b10], np.uint64), np.array([0b10], np.uint64))
    for first, mask in (four_below_top, floating):
        with pytest.raises(ValueError, match="cannot occur"):
            cadot_keys(first, mask)
    # four with the top stone is the end of a game: a valid column
    assert cadot_keys(np.array([0b1111], np.uint64), np.array([0b1111], np.uint64)).size == 1


@given(st.lists(st.tuples(st.sampled_from([-1, 0, 1]), st.integers(0, 42)), min_size=1))
def test_outcome_bytes_round_trip(pairs: list[tuple[int, int]]) -> None:
    winner = np.array([w for w, _ in pairs])
    half = np.array([h for _, h in pairs])
    o = encode_outcomes(winner, half)
    assert ((o & 0xC0) == np.where(winner > 0, 0x40, np.where(winner < 0, 0x80, 0))).all()
    back = decode_outcomes(o)
    assert (back[0] == winner).all() and (back[1] == half).all()


def test_outcome_byte_with_both_bits_is_an_error() -> None:
    with pytest.raises(ValueError, match="both winner bits"):
        decode_outcomes(np.array([0xC3], np.uint8))


def test_distance_book_round_trip(tmp_path: Path) -> None:
    book = built_book()
    out = tmp_path / "book.cadot"
    summary = export_book(book, "cadot", out)
    raw = out.read_bytes()
    assert len(raw) == 7 * summary.positions
    keys = [int.from_bytes(raw[i : i + 6], "big") for i in range(0, len(raw), 7)]
    assert keys == sorted(set(keys))
    with Book(book) as source, CadotBook(out) as cadot:
        assert len(cadot) == len(source) == summary.positions
        assert cadot.kind == "distance"
        for pos, value in source:
            assert cadot.get(pos) == value
            assert cadot.get(pos.mirror()) == value
            assert pos in cadot
        for pos, value in cadot:  # every record decodes to a book position with its value
            assert source.get(pos) == value
        f, m = _arrays([p for p, _ in source])
        mine, theirs = cadot.lookup_many(f, m), source.lookup_many(f, m)
        for field in ("winner", "plies", "score"):
            assert (getattr(mine, field) == getattr(theirs, field)).all()


def test_pruned_book_needs_no_distance(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--no-distance"):
        export_book(built_book(distances=False), "cadot", tmp_path / "x.cadot")
    assert not (tmp_path / "x.cadot").exists()


def test_pruned_book_under_a_line_is_completed_from_its_manifest(tmp_path: Path) -> None:
    out = tmp_path / "pruned.cadot"
    summary = export_book(built_book(distances=False), "cadot", out, no_distance=True)
    with Book(built_book()) as full, CadotBook(out) as cadot:
        assert summary.positions == len(full) == len(cadot)
        assert cadot.kind == "wdl"  # no half-move counts: what the file holds
        assert summary.recovered_first_wins == sum(v.winner is Winner.FIRST for _, v in full)
        for pos, value in full:
            score = 0 if value.winner is Winner.DRAW else None  # a draw's score is 0
            assert cadot.get(pos) == (value.winner, None, score)


def test_pruned_reference_book_exports_complete_with_unknown_distances(tmp_path: Path) -> None:
    out = tmp_path / "book8.cadot"
    summary = export_book(REFERENCE_BOOK8, "cadot", out, no_distance=True)
    assert summary.positions == 77715  # every 8-ply book position, wins included
    with Book(REFERENCE_BOOK8) as source, CadotBook(out) as cadot:
        keys, outcomes = next(cadot.iter_records(chunk=10**6))
        first, mask = decode_cadot_keys(keys)
        expected = source.lookup_many(first, mask).winner
        winner, half = decode_outcomes(outcomes)
        assert (winner == expected).all() and (half == 0).all()
        pos = Position.from_bitboards(int(first[0]), int(mask[0]))
        answer = cadot.get(pos)
        assert answer.plies is None
        assert answer.score == (0 if answer.winner is Winner.DRAW else None)


def test_missing_positions_follow_the_reader_rules(tmp_path: Path) -> None:
    p = Position.from_moves("4444")
    out = tmp_path / "one.cadot"
    write_cadot(out, *_arrays([p]), np.array([0]), np.array([38]))
    with CadotBook(out) as book:
        assert book.get(p).winner is Winner.DRAW and book.get(p).plies == 38
        with pytest.raises(PositionNotInBook):
            book.get(Position.from_moves("44"))
        # A completes four next, but the table holds 4-stone positions: not in the book
        wins_now = Position.from_moves("112233")
        with pytest.raises(PositionNotInBook, match="holds 4-stone positions"):
            book.get(wins_now)
        assert wins_now not in book
        bulk = book.lookup_many(*_arrays([p, Position.from_moves("44")]), strict=False)
        assert bulk.index.tolist() == [0, -1]


def test_two_variants_with_different_values_are_refused(tmp_path: Path) -> None:
    p = Position.from_moves("1")
    with pytest.raises(ValueError, match="two different values"):
        write_cadot(tmp_path / "x", *_arrays([p, p.mirror()]), np.array([1, 0]), np.array([0, 0]))


def test_bad_file_size_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.cadot"
    bad.write_bytes(b"\0" * 8)
    with pytest.raises(ValueError, match="7-byte Cadot records"):
        CadotBook(bad)


def test_lookup_in_a_file_far_larger_than_memory(tmp_path: Path) -> None:
    """A sparse 1.9 TB file: zero records (the empty board) then a few real ones at the end.

    The binary search reads about 40 records per lookup, so only a handful of
    pages are ever touched.
    """
    records = 1 << 38
    tail = [Position.from_moves(m) for m in ("4", "44", "444", "4444")]
    f, m = _arrays(tail)
    keys = cadot_keys(f, m)
    order = np.argsort(keys)
    # the first player wins with the last stone of the board (the 41st, A's 21st)
    half = [41 - tail[i].stone_count for i in order.tolist()]
    path = tmp_path / "huge.cadot"
    try:
        with open(path, "wb") as fh:
            fh.truncate(7 * (records - len(tail)))
            fh.seek(7 * (records - len(tail)))
            for key, plies in zip(keys[order].tolist(), half, strict=True):
                fh.write(int(key).to_bytes(6, "big") + bytes([0x40 | plies]))
    except OSError:
        pytest.skip("the file system cannot hold a sparse file this large")
    if os.stat(path).st_blocks * 512 > 1 << 30:
        pytest.skip("the file system does not keep files sparse")
    with CadotBook(path) as book:
        assert len(book) == records
        for pos in tail:
            n = pos.stone_count  # score of the side to move: +1 for A, -1 for B
            assert book.get(pos) == (Winner.FIRST, 41 - n, 1 if n % 2 == 0 else -1)
        assert Position.from_moves("45") not in book


@pytest.mark.parametrize(
    ("book", "options"),
    [("10-dist", {}), ("book12-dist-under44444.c4b", {}), ("book10.c4b", {"no_distance": True})],
)
def test_a_compact_book_is_exported_by_pieces_as_from_its_model(tmp_path, book, options):
    """A compact book (its ply's enumeration) is exported piece by piece, never loaded:
    the file is the one the whole model writes, byte for byte."""
    from openingbook.formats import FORMATS, open_book, read_model

    path = book if "." not in book else str(Path(__file__).resolve().parents[1] / "books" / book)
    with open_book(path) as reader:
        assert reader.enumerated
        model = read_model(reader)
    summary = export_book(path, "cadot", tmp_path / "pieces.cadot", **options)
    FORMATS["cadot"].write(model, tmp_path / "model.cadot", **options)
    assert summary.positions == len(model) > 0
    assert (tmp_path / "pieces.cadot").read_bytes() == (tmp_path / "model.cadot").read_bytes()
