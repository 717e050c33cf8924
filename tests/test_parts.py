"""Parts of a ply: the partition, its enumeration, its compact books and its builds.

Independent sources: the pure-Python breadth-first walk of ``test_enumerate``
(brute force on small boards), the whole enumeration (parts must be disjoint and
cover it, in its order), Tromp's published position counts, the hash written out
in plain Python, mirror symmetry, and whole books built without parts.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.checks.published import POSITIONS_PER_PLY
from openingbook.errors import BookFileError
from openingbook.formats.compact import CompactBook, CompactFileError, write_compact
from openingbook.solver import (
    AUTO_PARTS,
    DEFAULT_BOARD,
    DEFAULT_HEIGHT,
    DEFAULT_WIDTH,
    BoardSize,
    LayerTooLarge,
    Position,
    canonical_bits,
    canonical_keys,
    check_part,
    count_positions,
    enumerate_positions,
    finished_games,
    iter_parts,
    mirror_bits,
    part_of,
    position_keys,
    positions_with_moves,
)
from tests.helpers import BOOKS, SMALL, TABLE, as_pairs, book_set, brute_reachable, replay


def plain_part(key: int, parts: int) -> int:
    """The documented hash in plain Python integers."""
    high = ((key * 0x9E3779B97F4A7C15) % 2**64) >> 32
    return ((high * parts) >> 32) + 1


# ------------------------------------------------------------------ the partition
def test_part_of_is_the_documented_hash_and_ignores_the_mirror():
    first, mask = enumerate_positions(
        6, None, *DEFAULT_BOARD, merge_mirrors=False, drop_immediate_wins=False
    )
    keys = canonical_keys(first, mask, *DEFAULT_BOARD)
    for parts in (1, 2, 7, 32, 65536):
        got = part_of(first, mask, parts, *DEFAULT_BOARD)
        assert got.tolist() == [plain_part(int(k), parts) for k in keys]
        assert np.array_equal(
            got,
            part_of(
                mirror_bits(first, *DEFAULT_BOARD),
                mirror_bits(mask, *DEFAULT_BOARD),
                parts,
                *DEFAULT_BOARD,
            ),
        )
        assert got.min() >= 1 and got.max() <= parts


def test_parts_are_balanced():
    first, mask = enumerate_positions(9, None, *DEFAULT_BOARD)
    sizes = np.bincount(part_of(first, mask, 16, *DEFAULT_BOARD), minlength=17)[1:]
    assert abs(sizes / sizes.mean() - 1).max() < 0.02


@pytest.mark.parametrize("bad", [(0, 4), (5, 4), (1, 0), (1, 65537), ("a", 2), (1,)])
def test_bad_parts_are_refused(bad):
    with pytest.raises(ValueError, match="part"):
        check_part(bad)
    with pytest.raises(ValueError, match="part"):
        enumerate_positions(3, None, *DEFAULT_BOARD, part=bad)


def test_a_part_and_a_line_are_refused_together():
    with pytest.raises(ValueError, match="not both"):
        enumerate_positions(5, under="4", part=(1, 2), width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)


# ------------------------------------------------------------------ enumeration
@pytest.mark.parametrize(("width", "height", "plies"), [(4, 4, 7), (5, 4, 8), (7, 6, 5)])
def test_parts_match_brute_force(width, height, plies):
    reachable = brute_reachable(plies, width=width, height=height)
    for merge, drop in itertools.product([True, False], repeat=2):
        expected = book_set(reachable, width, height, merge=merge, drop=drop)
        union: list = []
        for i in range(1, 4):
            got = as_pairs(
                *enumerate_positions(
                    plies,
                    None,
                    width=width,
                    height=height,
                    merge_mirrors=merge,
                    drop_immediate_wins=drop,
                    part=(i, 3),
                )
            )
            keys = [Position.from_bitboards(f, m, width, height).canonical().key() for f, m in got]
            assert {plain_part(k, 3) for k in keys} <= {i}
            union += got
        assert len(union) == len(set(union)) and set(union) == expected


@pytest.mark.parametrize("plies", [0, 1, 2, 7, 10])
def test_parts_are_the_whole_enumeration_filtered_in_order(plies):
    first, mask = enumerate_positions(plies, None, *DEFAULT_BOARD)
    which = part_of(first, mask, 5, *DEFAULT_BOARD)
    streamed = dict((i, (f, m)) for i, f, m in iter_parts(plies, 5, *DEFAULT_BOARD))
    for i in range(1, 6):
        f, m = enumerate_positions(plies, None, *DEFAULT_BOARD, part=(i, 5))
        assert np.array_equal(f, first[which == i]) and np.array_equal(m, mask[which == i])
        assert np.array_equal(streamed[i][0], f) and np.array_equal(streamed[i][1], m)
        assert count_positions(plies, None, *DEFAULT_BOARD, part=(i, 5)) == len(f)


def test_iter_parts_takes_a_selection_of_parts():
    got = [(i, len(f)) for i, f, _ in iter_parts(6, 8, *DEFAULT_BOARD, which=[8, 3])]
    assert got == [
        (8, count_positions(6, None, *DEFAULT_BOARD, part=(8, 8))),
        (3, count_positions(6, None, *DEFAULT_BOARD, part=(3, 8))),
    ]


def test_move_strings_of_a_part_reach_its_positions():
    first, mask, moves = positions_with_moves(8, None, *DEFAULT_BOARD, part=(2, 3))
    assert np.array_equal(first, enumerate_positions(8, None, *DEFAULT_BOARD, part=(2, 3))[0])
    f, m = replay(moves)
    assert np.array_equal(canonical_bits(f, m, *DEFAULT_BOARD)[0], first)
    assert np.array_equal(canonical_bits(f, m, *DEFAULT_BOARD)[1], mask)


@pytest.mark.parametrize("plies", range(0, 10))
def test_parts_add_up_to_tromps_counts(plies):
    """Every position after ``plies`` plies, both variants, immediate wins and finished
    games, counted part by part: Tromp's published count."""
    total = 0
    for i in (1, 2, 3):
        total += count_positions(
            plies, None, *DEFAULT_BOARD, merge_mirrors=False, drop_immediate_wins=False, part=(i, 3)
        )
        f, m = finished_games(plies, *DEFAULT_BOARD, part=(i, 3))
        keys = position_keys(f, m, *DEFAULT_BOARD)
        total += 2 * len(f) - int((mirror_bits(keys, *DEFAULT_BOARD) == keys).sum())
    assert total == POSITIONS_PER_PLY[plies]


def test_finished_games_parts_cover_the_whole():
    f, m = finished_games(9, *DEFAULT_BOARD)
    assert len(f) == len(set(as_pairs(f, m)))
    pieces = [as_pairs(*finished_games(9, *DEFAULT_BOARD, part=(i, 4))) for i in range(1, 5)]
    assert sorted(itertools.chain(*pieces)) == sorted(as_pairs(f, m))


def test_a_whole_ply_too_large_for_memory_comes_part_by_part():
    small = {"max_candidates": 250_000}
    with pytest.raises(LayerTooLarge, match="more than the"):
        enumerate_positions(9, None, *DEFAULT_BOARD, **small, by_parts=False)
    first, mask = enumerate_positions(9, None, *DEFAULT_BOARD, **small)
    # with their move strings (deriving the 14-ply book walks its positions so), each
    # reaching its position from the empty board
    first_m, mask_m, moves = positions_with_moves(9, None, *DEFAULT_BOARD, **small)
    assert np.array_equal(first_m, first) and np.array_equal(mask_m, mask)
    f, m = replay(moves)
    assert np.array_equal(canonical_bits(f, m, *DEFAULT_BOARD)[0], first)
    assert np.array_equal(canonical_bits(f, m, *DEFAULT_BOARD)[1], mask)
    pieces = [
        enumerate_positions(9, None, *DEFAULT_BOARD, part=(i, AUTO_PARTS))
        for i in range(1, AUTO_PARTS + 1)
    ]
    assert np.array_equal(first, np.concatenate([f for f, _ in pieces]))
    assert np.array_equal(mask, np.concatenate([m for _, m in pieces]))
    assert sorted(as_pairs(first, mask)) == sorted(
        as_pairs(*enumerate_positions(9, None, *DEFAULT_BOARD))
    )
    assert count_positions(9, None, *DEFAULT_BOARD, **small) == len(first)
    with pytest.raises(LayerTooLarge):  # a line is never split into parts
        enumerate_positions(
            9, under="4", max_candidates=10_000, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
        )


def test_a_part_has_its_own_guard_for_the_layers_before_its_own(monkeypatch):
    """The layers a part builds whole (the 15-ply parts' 14-stone layer) have the part
    guard, larger than a whole ply's; a guard given explicitly is the one used."""
    import openingbook.solver.enumerate as enumeration

    whole = enumerate_positions(9, None, *DEFAULT_BOARD)
    # 9 plies: the whole ply examines 639,065 children, a part's 8-stone layer 189,763
    monkeypatch.setattr(enumeration, "DEFAULT_MAX_CANDIDATES", 100_000)
    monkeypatch.setattr(enumeration, "PART_MAX_CANDIDATES", 250_000)
    with pytest.raises(LayerTooLarge, match="100,000 allowed"):
        enumerate_positions(9, None, *DEFAULT_BOARD, by_parts=False)
    pieces = [enumerate_positions(9, None, *DEFAULT_BOARD, part=(i, 3)) for i in (1, 2, 3)]
    assert sorted(as_pairs(*whole)) == sorted(itertools.chain(*(as_pairs(f, m) for f, m in pieces)))
    got = enumerate_positions(9, None, *DEFAULT_BOARD)  # the whole ply, by parts
    assert sorted(as_pairs(*got)) == sorted(as_pairs(*whole))
    assert count_positions(9, None, *DEFAULT_BOARD, part=(2, 3)) == len(pieces[1][0])
    with pytest.raises(LayerTooLarge, match="100,000 allowed"):
        enumerate_positions(9, None, *DEFAULT_BOARD, part=(1, 3), max_candidates=100_000)
    monkeypatch.setattr(enumeration, "PART_MAX_CANDIDATES", 150_000)
    with pytest.raises(LayerTooLarge, match="150,000 allowed"):
        next(iter_parts(9, 3, *DEFAULT_BOARD))


def test_enumerate_command_counts_a_part_and_everything(tmp_path):
    from click.testing import CliRunner

    from openingbook.cli import main

    run = CliRunner().invoke(main, ["enumerate", "--plies", "8", "--part", "2/3", "--json"])
    assert run.exit_code == 0, run.output
    assert json.loads(run.output)["count"] == count_positions(8, None, *DEFAULT_BOARD, part=(2, 3))
    run = CliRunner().invoke(main, ["enumerate", "--plies", "8", "--count-all", "--parts", "3"])
    assert run.exit_code == 0, run.output
    assert run.output.splitlines()[0] == "77715"
    assert "published (Tromp): 184,275: match" in run.output
    out = tmp_path / "moves.txt"
    run = CliRunner().invoke(main, ["enumerate", "--plies", "6", "--parts", "4", "--out", str(out)])
    assert run.exit_code == 0, run.output
    lines = out.read_text().split()
    expected = [
        positions_with_moves(6, None, *DEFAULT_BOARD, part=(i, 4))[2].astype(str)
        for i in range(1, 5)
    ]
    assert lines == list(np.concatenate(expected))
    run = CliRunner().invoke(main, ["enumerate", "--plies", "6", "--part", "0/4"])
    assert run.exit_code == 2 and "--part 0/4" in run.output


# ------------------------------------------------------------------ compact parts
def _part_book(tmp_path, plies, part, width=5, height=4):
    from openingbook.solver import Solver

    first, mask = enumerate_positions(plies, None, width=width, height=height, part=part)
    solver = Solver(width=width, height=height, table_log2=16)
    from openingbook.values import book_values

    values = book_values(solver.solve_many(first, mask), plies, True, BoardSize(width, height))
    path = tmp_path / f"part{part[0]}.c4b"
    write_compact(path, plies, "distance", first, mask, values, board=(width, height), part=part)
    return path, first, mask, values


def test_a_compact_part_answers_its_part_and_nothing_else(tmp_path):
    from openingbook.errors import PositionNotInBook

    path, first, mask, values = _part_book(tmp_path, 6, (2, 3))
    with CompactBook(path) as book:
        assert book.part == (2, 3) and book.under is None and len(book) == len(first)
        assert "part 2/3" in book.describe()
        assert np.array_equal(book.values_of(first, mask), values)
        # the mirror variants give the same answers
        got = book.lookup_many(mirror_bits(first, 5, 4), mirror_bits(mask, 5, 4))
        assert np.array_equal(got.winner, book.lookup_many(first, mask).winner)
        positions = book.positions()
        assert np.array_equal(positions[0], first) and np.array_equal(positions[1], mask)
        other, other_mask = enumerate_positions(6, None, width=5, height=4, part=(1, 3))
        pos = Position.from_bitboards(int(other[0]), int(other_mask[0]), 5, 4)
        assert pos not in book
        with pytest.raises(PositionNotInBook, match="part 2/3"):
            book.get(pos)
        bulk = book.lookup_many(other, other_mask, strict=False)
        assert (bulk.index == -1).all()
        with pytest.raises(PositionNotInBook):
            book.lookup_many(other, other_mask)


def test_write_compact_refuses_a_wrong_part(tmp_path):
    first, mask = enumerate_positions(6, None, width=5, height=4, part=(1, 3))
    values = np.zeros(len(first), np.int8)
    with pytest.raises(ValueError, match="part 1/3 of the 6-ply book has"):
        write_compact(
            tmp_path / "a.c4b", 6, "distance", first[1:], mask[1:], values[1:],
            board=(5, 4), part=(1, 3),
        )  # fmt: skip
    with pytest.raises(ValueError, match="is not in part 2/3"):
        write_compact(
            tmp_path / "b.c4b", 6, "distance", first, mask, values, board=(5, 4), part=(2, 3)
        )


def test_a_damaged_part_field_is_refused(tmp_path):
    path, *_ = _part_book(tmp_path, 4, (1, 2))
    data = bytearray(path.read_bytes())
    at = data.index(b"1/2")
    data[at : at + 3] = b"3/2"
    path.write_bytes(bytes(data))
    with pytest.raises(CompactFileError, match="bad part"):
        CompactBook(path)


def test_a_part_is_not_read_as_a_whole_book(tmp_path):
    from openingbook.formats import load_book
    from openingbook.pipeline.convert import convert_book

    path, first, *_ = _part_book(tmp_path, 4, (1, 2))
    # a 7x6 part (convert writes Thill's 7x6 layout): only its part field matters here,
    # so its values are draws, not solved (a 4-ply 7x6 position takes seconds to solve)
    seven_first, seven_mask = enumerate_positions(4, None, width=7, height=6, part=(1, 2))
    seven = tmp_path / "seven.c4b"
    write_compact(
        seven, 4, "distance", seven_first, seven_mask, np.zeros(len(seven_first), np.int8),
        board=(7, 6), part=(1, 2),
    )  # fmt: skip
    with pytest.raises(BookFileError, match="merge the parts"):
        convert_book(seven, tmp_path / "whole.dat")
    assert load_book(path).scope.partial == "part 1/2"
    loaded = load_book(path, complete=False)
    assert loaded.scope.partial == "part 1/2" and not loaded.scope.answers_absent
    assert len(loaded) == len(first)


# ------------------------------------------------------------------ builds and merges
def _build_parts(tmp_path, plies, parts, size="5x4"):
    from openingbook.pipeline.build import BuildOptions, build_book
    from openingbook.solver import parse_board_size

    board = parse_board_size(size)
    paths = []
    for i in range(1, parts + 1):
        options = BuildOptions(plies, distances=True, board=board, part=(i, parts))
        out = tmp_path / f"p{i}.c4b"
        summary = build_book(out, options, jobs=1, progress=False)
        assert summary.positions == count_positions(plies, None, *board, part=(i, parts))
        paths.append(out)
    return paths


def test_build_parts_then_merge_equals_the_whole_build(tmp_path):
    from openingbook.pipeline.build import BuildOptions, build_book
    from openingbook.pipeline.merge import merge_books
    from openingbook.solver import parse_board_size

    board = parse_board_size("5x4")
    paths = _build_parts(tmp_path, 8, 3)
    with CompactBook(paths[1]) as book:
        assert book.part == (2, 3)
        manifest = book.header.metadata["source_manifest"]
        assert manifest["selection"]["part"] == "2/3"
        assert manifest["positions"]["in_output"] == len(book)
    merged = tmp_path / "merged.c4b"
    summary = merge_books(merged, paths[::-1])
    assert summary.shards == 3 and summary.positions == count_positions(8, None, *board)
    whole = tmp_path / "whole.c4b"
    build_book(whole, BuildOptions(8, distances=True, board=board), jobs=1, progress=False)
    with CompactBook(merged) as a, CompactBook(whole) as b:
        assert a.part is None and a.header.complete
        first, mask = b.positions()
        assert np.array_equal(a.values_of(first, mask), b.values_of(first, mask))
        # the same retrieval table: only the metadata differs
        assert bytes(a._cells) == bytes(b._cells)
        assert [m["part"] for m in a.header.metadata["merged_from"]] == ["1/3", "2/3", "3/3"]


def test_a_part_of_an_odd_ply_has_the_solvers_values(tmp_path):
    """Parts take odd plies (the 15-ply book is built in parts): the second player is to
    move, and every stored answer is the solver's score of the position, or its sign."""
    from openingbook.pipeline.build import BuildOptions, build_book
    from openingbook.solver import Solver, parse_board_size

    board = parse_board_size("5x4")
    solver = Solver(width=5, height=4, table_log2=16)
    for distances in (True, False):
        out = tmp_path / f"odd-{distances}.c4b"
        options = BuildOptions(7, distances=distances, board=board, part=(2, 3))
        build_book(out, options, jobs=1, progress=False)
        first, mask = enumerate_positions(7, None, *board, part=(2, 3))
        scores = solver.solve_many(first, mask)  # for the side to move: the second player
        with CompactBook(out) as book:
            assert (book.plies, book.part, len(book)) == (7, (2, 3), len(first))
            got = book.lookup_many(first, mask)
        assert np.array_equal(got.winner, -np.sign(scores))
        if distances:
            assert np.array_equal(got.score, scores)
    with pytest.raises(ValueError, match="even number of plies"):
        BuildOptions(7, distances=True, board=board).validate()  # not a whole book


def test_merge_refuses_gaps_overlaps_and_strangers(tmp_path):
    from openingbook.pipeline.merge import merge_books

    paths = _build_parts(tmp_path, 6, 3)
    with pytest.raises(ValueError, match="gap: part 2/3 missing"):
        merge_books(tmp_path / "m.c4b", [paths[0], paths[2]])
    with pytest.raises(ValueError, match="overlap: part 1/3 given twice"):
        merge_books(tmp_path / "m.c4b", [paths[0], paths[0], *paths[1:]])
    stranger = tmp_path / "s.c4b"
    first, mask = enumerate_positions(4, None, width=5, height=4, part=(3, 3))
    write_compact(
        stranger, 4, "distance", first, mask, np.zeros(len(first), np.int8),
        board=(5, 4), part=(3, 3),
    )  # fmt: skip
    with pytest.raises(ValueError, match="part of another book"):
        merge_books(tmp_path / "m.c4b", [*paths[:2], stranger])
    assert not (tmp_path / "m.c4b").exists()


def test_derive_13_from_14_on_a_small_board_and_under_a_line(tmp_path):
    """Exact minimax over one ply: the derived 13-ply values are the solver's."""
    from openingbook.pipeline.build import BuildOptions, build_book
    from openingbook.pipeline.derive import derive_book
    from openingbook.solver import Solver, parse_board_size
    from openingbook.values import book_values

    for board, under in ((parse_board_size("5x4"), None), (parse_board_size("7x6"), "4444443322")):
        deep, shallow = tmp_path / f"d14-{board}.c4b", tmp_path / f"d13-{board}.c4b"
        options = BuildOptions(14, distances=True, board=board, under=under)
        build_book(deep, options, jobs=1, progress=False)
        derive_book(deep, 13, shallow)
        first, mask = enumerate_positions(13, under, *board)
        pick = np.random.default_rng(3).permutation(len(first))[:300]
        solver = Solver(width=board.width, height=board.height, table_log2=18)
        expected = book_values(solver.solve_many(first[pick], mask[pick]), 13, True, board)
        with CompactBook(shallow) as book:
            assert len(book) == len(first) and book.plies == 13
            assert np.array_equal(book.values_of(first[pick], mask[pick]), expected)


# ------------------------------------------------------------------ verification of parts
@pytest.fixture(scope="module")
def book8_parts(tmp_path_factory):
    """The 8-ply distance book (books/) cut into three compact parts."""
    from openingbook.formats import load_book
    from openingbook.formats.thill import thill_values

    whole = load_book(BOOKS / "book8-dist.dat", complete=False)
    distance_bytes = thill_values(whole)[1]
    tmp = tmp_path_factory.mktemp("book8parts")
    paths = []
    for i in (1, 2, 3):
        first, mask = enumerate_positions(8, None, *DEFAULT_BOARD, part=(i, 3))
        values = distance_bytes[whole.find(first, mask)]
        path = tmp / f"book8-dist-part{i}of3.c4b"
        write_compact(path, 8, "distance", first, mask, values, part=(i, 3), board=DEFAULT_BOARD)
        paths.append(path)
    return paths


def test_per_ply_counts_of_parts_add_up_to_the_published_counts(book8_parts):
    from openingbook.checks.plycounts import add_counts
    from openingbook.checks.published import WDL_PER_PLY
    from openingbook.checks.stats import book_stats

    counts = [book_stats(p, per_ply=True).per_ply for p in book8_parts]
    assert [c.part for c in counts] == [(1, 3), (2, 3), (3, 3)]
    assert all(c.published is None and c.unknown == 0 for c in counts)
    whole = add_counts(counts[::-1])
    assert (whole.won, whole.drawn, whole.lost) == WDL_PER_PLY[8]
    assert whole.total == POSITIONS_PER_PLY[8] and whole.matches_published
    with pytest.raises(ValueError, match="every part"):
        add_counts(counts[:2])


def test_check_resolves_a_sample_of_a_part(book8_parts):
    from openingbook.checks.check import check_book

    report = check_book(book8_parts[1], sample=40, seed=2, jobs=1)
    assert report.ok and report.solved == 40 and report.scope == "part 2/3"


def test_validate_12_from_14_under_a_line(tmp_path):
    """The verification of the whole book, in small: the 12-ply values derived from a
    14-ply book equal the 12-ply book's on every position (here under a 7x6 line)."""
    from openingbook.checks.validate import validate_books
    from openingbook.pipeline.build import BuildOptions, build_book

    shallow = tmp_path / "b12.dat"
    build_book(shallow, BuildOptions(12, distances=True, under=SMALL, board=DEFAULT_BOARD), jobs=1,
               table_log2=TABLE, progress=False)  # fmt: skip
    deep = tmp_path / "b14.c4b"
    options = BuildOptions(14, distances=True, under=SMALL, board=DEFAULT_BOARD)
    build_book(deep, options, jobs=1, table_log2=TABLE, progress=False)
    report = validate_books(shallow, deep)
    assert (
        report.ok
        and report.compared == report.positions == count_positions(12, SMALL, *DEFAULT_BOARD) > 0
    )


def test_a_part_among_the_shipped_books_is_not_listed(tmp_path, monkeypatch, book8_parts):
    import shutil

    from openingbook import booknames, registry

    shutil.copy(book8_parts[0], tmp_path / "book8-dist-part1of3.c4b")
    first, mask = enumerate_positions(4, None, *DEFAULT_BOARD)
    write_compact(
        tmp_path / "book4.c4b",
        4,
        "wdl",
        first,
        mask,
        np.zeros(len(first), np.int8),
        board=DEFAULT_BOARD,
    )
    monkeypatch.setattr(booknames, "books_dir", lambda: tmp_path)
    monkeypatch.setattr(booknames, "deep_books_dir", lambda: None)  # these alone
    assert [b.name for b in registry.shipped_books()] == ["4"]


def test_derive_from_a_single_part_is_refused(tmp_path):
    """The children of a 13-ply position fall in several parts: a part alone derives
    nothing (never a guess); the complete (merged) book does."""
    from openingbook.pipeline.derive import derive_book

    path, *_ = _part_book(tmp_path, 10, (1, 3))
    with pytest.raises(ValueError, match="does not cover"):
        derive_book(path, 9, tmp_path / "d9.c4b")
    assert not (tmp_path / "d9.c4b").exists()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 40), max_size=300),
    st.integers(1, 6),
)
def test_first_flags_marks_each_distinct_nonzero_key_once(small, bucket_bits):
    """The enumeration's deduplication (scattered indices, per-bucket tables): True at
    exactly the first occurrence of each distinct nonzero key, as numpy finds it."""
    from openingbook.solver._kernels import first_flags

    # few distinct values, spread over the 64 bits (the hash takes the high bits)
    keys = np.array([k * 0x9E3779B97F4A7C15 % 2**64 for k in small], np.uint64)
    flags = first_flags(keys, bucket_bits)
    expected = np.zeros(keys.size, bool)
    values, first = np.unique(keys, return_index=True)
    expected[first[values != 0]] = True
    assert flags.tolist() == expected.tolist()


def test_more_keys_than_first_flags_numbers_are_refused():
    from openingbook.solver.enumerate import LayerTooLarge, _bucket_bits

    assert _bucket_bits(1 << 20) >= 1
    with pytest.raises(LayerTooLarge, match="at most 2\\*\\*32 - 1"):
        _bucket_bits(1 << 32)
