"""Reader: dual binary search, values, missing positions, bulk lookups.

Independent sources: the original 8-ply file's own bytes (keys and 2-bit
values read here byte by byte), mirror symmetry, the exact scores in
solver-scores.txt (turned into distance books here with the score definition
written out independently), and the solver for a few 8-ply records.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from openingbook.codec import encode_keys, key_position, position_key
from openingbook.errors import InvalidArgument, PositionNotInBook
from openingbook.formats.thill import BOOK8, Book, BookFormat, Records, write_book
from openingbook.formats.thill.book import search_steps
from openingbook.solver import DEFAULT_BOARD, DEFAULT_HEIGHT, DEFAULT_WIDTH, Position, Winner
from openingbook.values import UNKNOWN, BookValue
from tests.helpers import REFERENCE, random_positions

BOOK8_FILE = REFERENCE / "thill-original-book8.dat"
SCORES_FILE = REFERENCE / "solver-scores.txt"


def raw_records() -> list[tuple[int, int]]:
    """(key, value) of every record, straight from the file's bytes."""
    data = BOOK8_FILE.read_bytes()
    out = []
    for i in range(0, len(data), 3):
        field = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2]
        out.append((field & 0xFFFFFC, field & 3))
    return out


def arrays(positions: list[Position]) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.array([p.first_stones for p in positions], dtype=np.uint64),
        np.array([p.mask for p in positions], dtype=np.uint64),
    )


def pruned_answer(value: int) -> Winner:
    return {0: Winner.DRAW, 1: Winner.SECOND, 2: Winner.FIRST}[value]


# ------------------------------------------------------------ the real file
@pytest.fixture(scope="module")
def book8():
    with Book(BOOK8_FILE) as book:
        yield book


def test_records_0_1000_3000(book8):
    records = raw_records()
    # record 0 (FORMATS.md): columns 6 = A,A,A,B,A and 7 = B,B,B, a draw
    pos0 = Position.from_moves("67676667")
    assert [list(map(int, c)) for c in pos0.to_array()[5:]] == [
        [1, 1, 1, 2, 1, 0],
        [2, 2, 2, 0, 0, 0],
    ]
    assert book8.lookup(pos0) == (BookValue(Winner.DRAW, None, 0), 0)
    assert book8.get(pos0.mirror()) == BookValue(Winner.DRAW, None, 0)
    for i in (1000, 3000):
        key, value = records[i]
        pos = key_position(key, 24, 8, *DEFAULT_BOARD)
        assert book8.find(pos) == i
        # either variant may answer: 5,593 positions are stored in both variants
        j = book8.find(pos.mirror())
        assert records[j][0] in (key, position_key(pos.mirror(), 24))
        assert book8.get(pos).winner is pruned_answer(value)
        assert book8.get(pos.mirror()).winner is pruned_answer(value)
    assert records[1000][1] == 0 and records[3000][1] == 1


def test_every_record_and_its_mirror(book8):
    records = raw_records()
    assert book8.records == len(records)
    assert len(book8) == 77_715  # the positions it answers: every 8-ply book position
    keys = np.array([k for k, _ in records], dtype=np.uint64)
    positions = [key_position(k, 24, 8, *DEFAULT_BOARD) for k, _ in records]
    assert len(positions) == len(records)
    first, mask = arrays(positions)
    assert np.array_equal(encode_keys(first, mask, 24, *DEFAULT_BOARD), keys)
    bulk = book8.lookup_many(first, mask)
    assert np.array_equal(bulk.index, np.arange(len(records)))
    want = np.array([{0: 0, 1: -1, 2: 1}[v] for _, v in records])
    assert np.array_equal(bulk.winner, want)
    assert (bulk.plies == UNKNOWN).all()
    assert np.array_equal(bulk.score == 0, want == 0)  # draws score 0, the rest unknown
    mirrored = [p.mirror() for p in positions]
    mf, mm = arrays(mirrored)
    mbulk = book8.lookup_many(mf, mm)
    assert np.array_equal(mbulk.winner, want)  # mirror images have the same value
    for i in range(0, len(records), 97):  # single lookups agree with the bulk path
        assert book8.get(mirrored[i]).winner is pruned_answer(records[i][1])
        v = records[i][1]
        assert book8.get(positions[i]) == BookValue(pruned_answer(v), None, 0 if v == 0 else None)


def test_missing_position_is_a_first_player_win(book8):
    keys = {k for k, _ in raw_records()}
    pos = Position.from_moves("44444455")
    assert pos.stone_count == 8 and not pos.can_win_next()
    assert position_key(pos, 24) not in keys and position_key(pos.mirror(), 24) not in keys
    assert book8.lookup(pos) == (BookValue(Winner.FIRST, None, None), None)
    assert pos in book8 and not book8.stores(pos)  # answered, not stored
    assert book8.stores(Position.from_moves("67676667"))
    bulk = book8.lookup_many(*arrays([pos]))
    assert bulk.index.tolist() == [-1] and bulk.winner.tolist() == [1]


def test_probe_counts(book8):
    n = book8.records
    steps = search_steps(n)
    assert steps[-1] == 0 and all(a >= b for a, b in itertools.pairwise(steps))
    assert len(steps) <= math.ceil(math.log2(n)) + 1
    records = raw_records()
    worst_found = max(book8.dual_search(k, 0)[1] for k, _ in records[::7])
    worst_missing = max(
        book8.dual_search(k + 1, k + 1)[1] for k, _ in records[::101]
    )  # +1: value bits set, never a key
    assert worst_found <= 2 * len(steps) + 1
    assert worst_missing == 2 * len(steps)  # both searches run to the end: about 2 x 15
    assert 2 * 15 <= worst_missing <= 2 * 17


def test_wrong_stone_count(book8):
    with pytest.raises(PositionNotInBook, match=r"has 9 stones; .* holds 8-stone positions"):
        book8.get(Position.from_moves("444444555"))
    with pytest.raises(PositionNotInBook, match="position 1 has 4 stones"):
        book8.lookup_many(*arrays([Position.from_moves("67676667"), Position.from_moves("4444")]))
    assert Position.from_moves("4444") not in book8


@pytest.mark.slow
def test_records_against_solver(book8):
    from openingbook.solver.search import solve_wdl

    records = raw_records()
    for i in (0, 1000, 3000):
        key, value = records[i]
        pos = key_position(key, 24, 8, *DEFAULT_BOARD)
        wdl = solve_wdl(pos)  # side to move = first player at 8 stones
        assert pruned_answer(value) is {1: Winner.FIRST, 0: Winner.DRAW, -1: Winner.SECOND}[wdl]


# --------------------------------------------------------- search at any size
@pytest.mark.parametrize("size", [*range(1, 20), 33, 64, 65, 129, 200])
def test_dual_search_finds_every_record(tmp_path, size):
    # positions the rule answers as a win at once are never stored: not searched here
    picked = random_positions(8, size * 3, seed=size)
    canon = {p.canonical() for p in picked if not p.can_win_next()}
    positions = sorted(canon, key=lambda p: p.key())[:size]
    assert len(positions) == size
    first, mask = arrays(positions)
    path = tmp_path / "b.dat"
    write_book(
        path, BOOK8, Records(encode_keys(first, mask, 24, *DEFAULT_BOARD), np.ones(size, np.int8))
    )
    with Book(path) as book:
        found = {book.find(p) for p in positions} | {book.find(p.mirror()) for p in positions}
        assert found == set(range(size))
        assert all(book.get(p).winner is Winner.SECOND for p in positions)


# ------------------------------------------------------------ distance books
def independent_plies(score: int, stones: int) -> int:
    """Plies to the end from a Pons score, from the definition (22 - k, k = winner's stones)."""
    if score == 0:
        return 42 - stones
    if score > 0:  # the side to move (holding stones // 2 stones) wins with stone k
        return 2 * ((22 - score) - stones // 2) - 1
    return 2 * ((22 + score) - (stones + 1) // 2)  # the opponent holds (stones + 1) // 2


def distance_byte(score: int, stones: int) -> int:
    if score == 0:
        return 0
    d = independent_plies(score, stones)
    mover_first = stones % 2 == 0
    first_wins = (score > 0) == mover_first
    return 100 - d if first_wins else d - 100


def reference_scores() -> dict[int, list[tuple[Position, int]]]:
    groups: dict[int, list[tuple[Position, int]]] = {}
    for line in SCORES_FILE.read_text().split("\n"):
        if line.strip():
            moves, score = line.split()
            pos = Position.from_moves(moves)
            groups.setdefault(pos.stone_count, []).append((pos, int(score)))
    return groups


def test_distance_books_answer_reference_scores(tmp_path):
    groups = reference_scores()
    checked = 0
    for stones, entries in sorted(groups.items()):
        if stones > 28:
            continue
        fmt = BookFormat.for_plies(
            stones, distances=True, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
        )
        unique = {}
        for pos, score in entries:
            unique[pos.canonical()] = (pos, score)
        positions = [pos.canonical() for pos, _ in unique.values()]
        first, mask = arrays(positions)
        values = np.array([distance_byte(s, stones) for _, s in unique.values()], np.int8)
        path = tmp_path / f"d{stones}.dat"
        write_book(
            path, fmt, Records(encode_keys(first, mask, fmt.key_bits, *DEFAULT_BOARD), values)
        )
        with Book(path, fmt) as book:
            bulk = book.lookup_many(*arrays([pos for pos, _ in unique.values()]))
            for j, (pos, score) in enumerate(unique.values()):
                got = book.get(pos)
                assert got.score == score, (pos.to_moves(), got)
                assert got.plies == independent_plies(score, stones)
                mover = Winner.FIRST if stones % 2 == 0 else Winner.SECOND
                other = Winner.SECOND if mover is Winner.FIRST else Winner.FIRST
                assert got.winner is (Winner.DRAW if score == 0 else mover if score > 0 else other)
                assert book.get(pos.mirror()) == got
                assert bulk.score[j] == score and bulk.plies[j] == got.plies
                checked += 1
    assert checked > 100  # every reference position up to 28 stones


def test_distance_book_missing_positions(tmp_path):
    fmt = BookFormat.for_plies(12, distances=True, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    stored = [p.canonical() for p in random_positions(12, 40, seed=2) if not p.can_win_next()]
    stored = list(dict.fromkeys(stored))
    first, mask = arrays(stored)
    path = tmp_path / "d12.dat"
    write_book(
        path,
        fmt,
        Records(encode_keys(first, mask, 32, *DEFAULT_BOARD), np.zeros(len(stored), np.int8)),
    )
    wins_now = Position.from_moves("121212445566")  # A to move, column 1 completes four
    assert wins_now.can_win_next()
    elsewhere = Position.from_moves("444444333333")
    assert not elsewhere.can_win_next() and elsewhere.canonical() not in stored
    with Book(path) as book:
        # the first player wins with its 7th stone: score 22 - 7
        assert book.lookup(wins_now) == (BookValue(Winner.FIRST, 1, 15), None)
        assert book.get(stored[0]) == BookValue(Winner.DRAW, 30, 0)
        with pytest.raises(PositionNotInBook, match=r"position is not in d12\.dat"):
            book.get(elsewhere)
        with pytest.raises(PositionNotInBook, match=r"position 1 is not in d12\.dat"):
            book.lookup_many(*arrays([wins_now, elsewhere]))
        loose = book.lookup_many(*arrays([wins_now, elsewhere, stored[0]]), strict=False)
        assert loose.winner.tolist() == [1, UNKNOWN, 0]
        assert loose.plies.tolist() == [1, UNKNOWN, 30]
        assert loose.score.tolist() == [15, UNKNOWN, 0]
        assert loose.index.tolist() == [-1, -1, book.find(stored[0])]


def test_bulk_lookup_applies_the_rule_to_records_that_are_not_book_positions(tmp_path):
    """A bulk lookup answers a position found among the records without checking it only
    when the record's position is one of the book: a stored position whose side to move
    wins at once (a record no book we write holds) is answered by the rule, as ``get``
    answers it; floating stones and another ply are refused or unknown, never searched."""
    fmt = BookFormat.for_plies(12, distances=True, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    wins_now = Position.from_moves("121212445566")  # A to move, column 1 completes four
    stored = [p.canonical() for p in random_positions(12, 40, seed=2) if not p.can_win_next()]
    stored = list(dict.fromkeys([*stored, wins_now.canonical()]))
    first, mask = arrays(stored)
    path = tmp_path / "d12.dat"
    write_book(
        path,
        fmt,
        Records(encode_keys(first, mask, 32, *DEFAULT_BOARD), np.zeros(len(stored), np.int8)),
    )
    # stored[0] with the top stone of its first column lifted one cell: it floats
    top = 1 << (stored[0].mask & 0x3F).bit_length() - 1
    lift = top | top << 1
    lifted_first = np.uint64(stored[0].first_stones ^ (lift if stored[0].first_stones & top else 0))
    lifted_mask = np.uint64(stored[0].mask ^ lift)
    with Book(path) as book:
        assert book.stores(wins_now)
        assert book.get(wins_now) == BookValue(Winner.FIRST, 1, 15)
        f, m = arrays([wins_now, stored[0], wins_now.mirror()])
        bulk = book.lookup_many(f, m)
        assert bulk.winner.tolist() == [1, 0, 1]
        assert bulk.plies.tolist() == [1, 30, 1]
        assert bulk.index.tolist() == [-1, book.find(stored[0]), -1]
        loose = book.lookup_many(
            np.append(f, [lifted_first, np.uint64(0)]),
            np.append(m, [lifted_mask, np.uint64(1)]),
            strict=False,
        )
        assert loose.winner.tolist() == [1, 0, 1, UNKNOWN, UNKNOWN]
        with pytest.raises(InvalidArgument, match="position 3"):
            book.lookup_many(np.append(f, lifted_first), np.append(m, lifted_mask))


def test_pruned_odd_ply_immediate_win_is_the_movers(tmp_path):
    fmt = BookFormat.for_plies(7, False, *DEFAULT_BOARD)
    stored = list(
        dict.fromkeys(p.canonical() for p in random_positions(7, 30, 4) if not p.can_win_next())
    )
    first, mask = arrays(stored)
    path = tmp_path / "b7.dat"
    write_book(
        path,
        fmt,
        Records(encode_keys(first, mask, 24, *DEFAULT_BOARD), np.zeros(len(stored), np.int8)),
    )
    b_wins_now = Position.from_moves("1212125")  # B to move, column 2 completes four
    assert b_wins_now.can_win_next() and b_wins_now.stone_count == 7
    with Book(path) as book:
        assert book.get(b_wins_now).winner is Winner.SECOND
        assert book.lookup_many(*arrays([b_wins_now])).winner.tolist() == [-1]


def test_bulk_matches_single_on_random_positions(book8):
    rng = random.Random(7)
    positions = random_positions(8, 400, seed=11)
    positions += [p.mirror() for p in rng.sample(positions, 100)]
    bulk = book8.lookup_many(*arrays(positions))
    codes = {Winner.FIRST: 1, Winner.SECOND: -1, Winner.DRAW: 0}
    for j, pos in enumerate(positions):
        value, index = book8.lookup(pos)
        assert bulk.winner[j] == codes[value.winner]
        if index is None:
            assert bulk.index[j] == -1
        else:  # both variants of some positions are stored: either may answer
            pair = (position_key(pos, 24), position_key(pos.mirror(), 24))
            assert book8.record(int(bulk.index[j]))[0] in pair
            assert book8.record(index)[0] in pair


def test_bad_file_through_book(tmp_path):
    data = bytearray(BOOK8_FILE.read_bytes()[: 3 * 40])
    data[3 * 16 : 3 * 18] = data[3 * 17 : 3 * 18] + data[3 * 16 : 3 * 17]
    (tmp_path / "u.dat").write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"u\.dat: records not sorted \(record 17 < record 16\)"):
        Book(tmp_path / "u.dat", BOOK8, check=True)
    (tmp_path / "e.dat").write_bytes(b"")
    with pytest.raises(ValueError, match=r"e\.dat: empty file"):
        Book(tmp_path / "e.dat", BOOK8)
    (tmp_path / "s.dat").write_bytes(bytes(data[:-1]))
    with pytest.raises(ValueError, match=r"s\.dat: size 119 bytes is not a multiple"):
        Book(tmp_path / "s.dat", BOOK8)


def test_pruned_book_accepts_stored_first_player_wins(tmp_path):
    # a win at once is answered by the rule, never from a record: none stored here
    picked = [p for p in random_positions(8, 20, seed=3) if not p.can_win_next()]
    positions = list(dict.fromkeys(p.canonical() for p in picked))
    first, mask = arrays(positions)
    values = np.array([2, 1, 0] * 7, np.int8)[: len(positions)]
    path = tmp_path / "with2.dat"
    write_book(path, BOOK8, Records(encode_keys(first, mask, 24, *DEFAULT_BOARD), values))
    with Book(path, check=True) as book:
        for pos, v in zip(positions, values.tolist(), strict=True):
            value, index = book.lookup(pos)
            assert index is not None
            assert value.winner is pruned_answer(v)
        bulk = book.lookup_many(first, mask)
        assert bulk.winner.tolist() == [{0: 0, 1: -1, 2: 1}[v] for v in values.tolist()]


def test_faulty_distance_parity_is_answered_without_score(tmp_path):
    fmt = BookFormat.for_plies(12, distances=True, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    pos = Position.from_moves("444444333333")
    first, mask = arrays([pos])
    path = tmp_path / "faulty.dat"
    # "first player wins in 4 plies": stone 16 would be the second player's
    write_book(
        path, fmt, Records(encode_keys(first, mask, 32, *DEFAULT_BOARD), np.array([96], np.int8))
    )
    with Book(path) as book:
        assert book.get(pos) == BookValue(Winner.FIRST, 4, None)
        bulk = book.lookup_many(first, mask)
        assert (bulk.winner[0], bulk.plies[0], bulk.score[0]) == (1, 4, UNKNOWN)


def test_records_the_original_search_cannot_reach(book8):
    """The original loop compares an out-of-range probe with the last code it read;
    searching the code alone it never reaches records 0-3. Ours does."""
    keys = [k for k, _ in raw_records()]
    n = len(keys)

    def original(code: int) -> int | None:
        last, pos, step = 0, n - 1, n - 1
        while step > 0:
            step = (step + (step & 1)) >> 1 if step != 1 else 0
            if 0 <= pos < n:
                last = keys[pos]
            if code < last:
                pos -= step
            elif code > last:
                pos += step
            else:
                return pos
        return None

    assert [original(keys[i]) for i in range(5)] == [None, None, None, None, 4]
    assert [book8.dual_search(keys[i], keys[i])[0] for i in range(5)] == [0, 1, 2, 3, 4]


def test_empty_pruned_book_built_by_us_reads_as_all_first_player_wins(tmp_path):
    """A pruned build whose positions are all first-player wins writes a 0-byte book;
    with its manifest (0 records) every reader accepts it, without one it is refused."""
    from click.testing import CliRunner

    from openingbook.cli import main
    from openingbook.errors import BookFileError
    from openingbook.formats import read_records

    out = tmp_path / "e.dat"
    line = "444444555555"  # one 12-ply position: a first-player win
    runner = CliRunner()
    result = runner.invoke(main, ["build", "--plies", "12", "--under", line, "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert out.stat().st_size == 0
    with Book(out) as book:
        assert book.records == 0 and len(book) == 1  # its one position, answered
        assert [value.winner for _, value in book] == [Winner.FIRST]
        assert book.get(Position.from_moves(line)).winner is Winner.FIRST
    fmt, records = read_records(out)
    assert fmt.plies == 12 and len(records) == 0
    assert runner.invoke(main, ["info", str(out)]).exit_code == 0
    bare = tmp_path / "bare.dat"
    bare.write_bytes(b"")
    with pytest.raises(BookFileError, match="empty file"):
        read_records(bare, BookFormat.for_plies(12, False, *DEFAULT_BOARD))
