"""The exact solver against independent sources.

* the 180 exact scores of ``reference/solver-scores.txt`` (another solver);
* a brute-force minimax written here from the score definition alone (no
  pruning, no bounds), on nearly full 7x6 boards and on small boards;
* Thill's published 8-ply book (stored records: draws and second-player wins);
* mirror symmetry and consistency (score = max over moves of minus the child's).
"""

from __future__ import annotations

import functools
import json
import random
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from openingbook.cli import main
from openingbook.solver import (
    DEFAULT_BOARD,
    Position,
    Solver,
    analyze,
    plies_from_score,
    solve,
    solve_wdl,
)
from openingbook.solver.position import has_four
from tests.helpers import positions, random_game

#: the reference file's 37-stone example (score -1)
DEEP_MOVES = "2252576253462244111563365343671351441"
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="session")
def reference_lines(reference_dir: Path) -> list[tuple[str, int]]:
    """(move string, score) of every line of the reference solver-scores file."""
    scores_file = reference_dir / "solver-scores.txt"
    if not scores_file.exists():
        pytest.fail(f"reference file missing: {scores_file}")
    out = []
    for line in scores_file.read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            out.append((moves, int(score)))
    return out


@pytest.fixture(scope="module")
def solver() -> Solver:
    s = Solver(table_log2=22)
    s.warm_up()
    return s


# ------------------------------------------------------------ brute force
def brute_force_score(pos: Position) -> int:
    """Pons score by plain minimax over every legal move, from the definition.

    A win with the mover's k-th stone is worth cells/2 + 1 - k, a full board
    0, and a position is worth the best of its moves for the side to move.
    """
    cells = pos.width * pos.height
    h = pos.height

    @functools.cache
    def value(current: int, mask: int) -> int:
        n = mask.bit_count()
        best = None
        for col in range(pos.width):
            top = 1 << (col * (h + 1) + h - 1)
            if mask & top:
                continue
            new_mask = mask | (mask + (1 << (col * (h + 1))))
            mine = current | (new_mask ^ mask)
            if has_four(mine, h):
                v = cells // 2 + 1 - (n // 2 + 1)
            elif n + 1 == cells:
                v = 0
            else:
                v = -value(mine ^ new_mask, new_mask)
            best = v if best is None else max(best, v)
        assert best is not None
        return best

    return value(pos.current, pos.mask)


@st.composite
def small_board_positions(draw, width: int, height: int, max_empty: int) -> Position:
    """Random legal non-terminal positions of a width x height board."""
    cells = width * height
    target = draw(st.integers(max(0, cells - max_empty), cells - 1))
    rng = random.Random(draw(st.integers(0, 2**32)))
    while (pos := random_game(rng, width, height, target)) is None:
        pass
    return pos


# --------------------------------------------------------- reference file
def test_reference_deep_lines(solver, reference_lines):
    """The reference lines with 20+ stones: fast, always run."""
    lines = [(m, s) for m, s in reference_lines if len(m) >= 20]
    assert len(lines) >= 40
    got = [solver.solve(Position.from_moves(m)) for m, _ in lines]
    assert got == [s for _, s in lines]


@pytest.mark.slow
def test_reference_all_180_lines(solver, reference_lines):
    lines = reference_lines
    assert len(lines) == 180
    wrong = [(m, s, solver.solve(m)) for m, s in lines]
    wrong = [w for w in wrong if w[1] != w[2]]
    assert wrong == []


@pytest.mark.slow
def test_reference_wdl_and_solve_many(reference_lines):
    lines = reference_lines[:60]
    solver = Solver(table_log2=22)
    pos = [Position.from_moves(m) for m, _ in lines]
    first = np.array([p.first_stones for p in pos], np.uint64)
    mask = np.array([p.mask for p in pos], np.uint64)
    expected = np.array([s for _, s in lines])
    assert solver.solve_many(first, mask).tolist() == expected.tolist()
    assert solver.solve_many(first, mask, wdl=True).tolist() == np.sign(expected).tolist()
    solver.reset()
    assert [solver.solve_wdl(p) for p in pos[:20]] == np.sign(expected[:20]).tolist()


# ------------------------------------------------------- brute force checks
@FAST
@given(positions(min_stones=31, max_stones=41))
def test_matches_brute_force_near_the_end(p):
    s = Solver(table_log2=14)
    assert s.solve(p) == brute_force_score(p)
    assert s.solve_wdl(p) == np.sign(brute_force_score(p))


@pytest.mark.parametrize(("width", "height"), [(4, 4), (5, 4), (4, 5), (6, 5)])
def test_other_board_sizes_match_brute_force(width, height):
    s = Solver(table_log2=14, width=width, height=height)

    @FAST
    @given(small_board_positions(width, height, max_empty=11))
    def check(p):
        assert s.solve(p) == brute_force_score(p)

    check()


ZUGZWANG_KINDS = ("claimeven", "baseinverse", "one move ahead")


@st.composite
def zugzwang_positions(draw, width: int, height: int, max_empty: int, kind: str) -> Position:
    """Random positions where the search's claimeven/baseinverse bound applies at the root.

    ``claimeven``: an even number of empty cells in every column (the opponent
    answers each move on top of it); ``baseinverse``: an even number of empty
    cells in all, at least two columns with an odd number (the opponent also
    pairs up their lowest cells); ``one move ahead``: an odd number of empty
    cells, where the bound is tried after each move.
    """
    rng = random.Random(draw(st.integers(0, 2**32)))
    while True:
        target = draw(st.integers(max(0, width * height - max_empty), width * height - 2))
        stones = target - target % 2 + (kind == "one move ahead")
        pos = random_game(rng, width, height, stones)
        if pos is None or any(pos.is_winning_move(c) for c in pos.legal_moves()):
            continue
        odd = sum((height - pos.column_height(c)) % 2 for c in range(width))
        if kind == "one move ahead" or (odd >= 2) == (kind == "baseinverse"):
            return pos


@pytest.mark.parametrize("kind", ZUGZWANG_KINDS)
@pytest.mark.parametrize(("width", "height"), [(7, 6), (5, 4), (4, 5), (6, 5)])
def test_zugzwang_positions_match_brute_force(width, height, kind):
    s = Solver(table_log2=14, width=width, height=height)

    @FAST
    @given(zugzwang_positions(width, height, max_empty=11, kind=kind))
    def check(p):
        assert s.solve(p) == brute_force_score(p)
        assert s.solve_wdl(p) == np.sign(brute_force_score(p))

    check()


@st.composite
def symmetric_positions(draw, width: int, height: int, min_stones: int) -> Position:
    """Legal positions with at least ``min_stones`` stones whose occupied cells
    are their own mirror image, not won, no win for the side to move: built from
    blocks of four moves, a stone of each player and then their mirror images
    (each player's own: the position is its own mirror image) or each other's
    (most often not: only the shape is)."""
    pos = Position(width=width, height=height)
    for _ in range(20):
        if pos.stone_count >= min_stones:
            break
        a = draw(st.integers(0, width - 1))
        b = draw(st.integers(0, width - 1))
        block = [a, b, width - 1 - a, width - 1 - b]
        if draw(st.booleans()):
            block = [a, b, width - 1 - b, width - 1 - a]
        if a == width - 1 - a and b == width - 1 - b:
            block = [a, b]  # centre stones are their own mirror image
        nxt = pos
        for col in block:
            if not nxt.can_play(col) or nxt.is_winning_move(col):
                break
            nxt = nxt.play(col)
        else:
            if nxt.mirror().mask == nxt.mask and not nxt.can_win_next():
                pos = nxt
    assume(pos.stone_count >= min_stones)
    return pos


@pytest.mark.parametrize(("width", "height", "min_stones"), [(4, 4, 0), (5, 4, 8), (6, 4, 10)])
def test_symmetric_positions_match_brute_force(width, height, min_stones):
    """At a position that is its own mirror image (near the empty board) the
    search leaves out one move of each mirror pair: the scores stay exact, and
    nothing changes where only the shape is symmetric."""
    s = Solver(table_log2=14, width=width, height=height)

    @FAST
    @given(symmetric_positions(width, height, min_stones))
    def check(p):
        assert s.solve(p) == brute_force_score(p)

    check()


def test_whole_4x4_game_matches_brute_force():
    p = Position(width=4, height=4)
    assert Solver(table_log2=14, width=4, height=4).solve(p) == brute_force_score(p)


# ------------------------------------------------------- symmetry, consistency
@FAST
@given(positions(min_stones=16, max_stones=40))
def test_mirror_scores_the_same(solver, p):
    assert solver.solve(p) == solver.solve(p.mirror())


@FAST
@given(positions(min_stones=16, max_stones=40))
def test_score_is_best_move(solver, p):
    cols = solver.analyze(p)
    assert [c is None for c in cols] == [not p.can_play(c) for c in range(7)]
    score = solver.solve(p)
    assert score == max(c for c in cols if c is not None)
    for col, value in enumerate(cols):
        if value is not None and not p.is_winning_move(col):
            assert value == -solver.solve(p.play(col))
    assert solver.solve_wdl(p) == np.sign(score)


@FAST
@given(positions(min_stones=20, max_stones=40), st.integers(-25, 25))
def test_a_guess_never_changes_the_score(solver, p, guess):
    assert solver.solve(p, guess=guess) == solver.solve(p)


def test_immediate_win_and_full_board(solver):
    p = Position.from_moves("121212")  # A wins at once with its 4th stone
    assert solver.solve(p) == 22 - 4
    assert solver.solve_wdl(p) == 1
    deep = Position.from_moves(DEEP_MOVES)
    win_col = next(c for c in deep.legal_moves() if deep.play(c).can_win_next())
    child = deep.play(win_col)  # the side to move of the child wins at once
    n = child.stone_count
    assert solver.solve(child) == 22 - (n // 2 + 1)
    assert solver.analyze(deep)[win_col] == -(22 - (n // 2 + 1))
    full = Position.from_diagram(
        "OXOXOXO/OXOXOXO/XOXOXOX/XOXOXOX/OXOXOXO/XOXOXOX".replace("/", "\n")
    )
    assert full.is_full() and full.winner() is None
    assert solver.solve(full) == 0 and solver.analyze(full) == [None] * 7


# ------------------------------------------------------------- 8-ply book
def _decode_book8_record(record: int) -> Position:
    bits = format(record >> 2, "022b")
    cols: list[list[int]] = [[] for _ in range(7)]
    col = i = 0
    while i < len(bits) and col < 7:
        if bits[i] == "0":
            col += 1
            i += 1
        else:
            cols[col].append(1 if bits[i + 1] == "0" else 2)
            i += 2
    return Position.from_array([c + [0] * (6 - len(c)) for c in cols])


@pytest.mark.slow
def test_thill_book8_sample(reference_dir):
    data = (reference_dir / "thill-original-book8.dat").read_bytes()
    records = [int.from_bytes(data[i : i + 3], "big") for i in range(0, len(data), 3)]
    rng = random.Random(8)
    sample = rng.sample(records, 12)
    solver = Solver(table_log2=22)
    for rec in sample:
        pos = _decode_book8_record(rec)
        assert pos.stone_count == 8
        expected = {0: 0, 1: -1}[rec & 3]  # draw / second player (not to move) wins
        assert solver.solve_wdl(pos) == expected, pos.to_diagram()


# ---------------------------------------------------------- parallel search
def test_parallel_scores_agree_with_the_reference(reference_lines):
    """Threads sharing one table (lazy SMP): every reference line of 14+ stones gets its
    exact score and win/draw/loss with 2 and 3 threads (each helper in its own column
    order), and the same as one thread of the same solver after them."""
    lines = [(m, s) for m, s in reference_lines if len(m) >= 14]
    assert len(lines) >= 100
    solvers = {threads: Solver(table_log2=20, threads=threads) for threads in (2, 3)}
    for moves, expected in lines:
        for threads, s in solvers.items():
            assert s.solve(moves) == expected, (moves, threads)
            assert s.solve_wdl(moves) == np.sign(expected), (moves, threads)
            assert s.solve(moves, threads=1) == expected, (moves, threads)
    assert all(s.nodes > 0 for s in solvers.values())


def test_parallel_analyze_and_thread_counts():
    p = Position.from_moves("4444455121")
    serial = Solver(table_log2=18).analyze(p)
    assert Solver(table_log2=18, threads=2).analyze(p) == serial
    assert Solver(table_log2=18).solve(p, threads=4) == max(v for v in serial if v is not None)
    assert solve(DEEP_MOVES, threads=2) == -1
    assert Solver(table_log2=12, threads=None).threads >= 1  # one per core
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="threads"):
            Solver(table_log2=12, threads=bad)


def test_ctrl_c_while_the_helper_threads_start_is_a_keyboard_interrupt(monkeypatch):
    """Ctrl-C arriving while the helpers start (a busy machine makes that window long):
    the search stops with the KeyboardInterrupt itself, not with "cannot join thread
    before it is started" from joining a helper that never started; the solver still
    answers afterwards."""
    import threading

    from openingbook.solver import search

    starts = []

    class InterruptedOnSecondStart(threading.Thread):
        def start(self) -> None:
            starts.append(self)
            if len(starts) == 2:
                raise KeyboardInterrupt
            super().start()

    solver_3 = Solver(table_log2=18, threads=3)
    # the search leaves the calling thread for the helpers at its first node-limit check
    # (an 11-stone position stores into the big table at once)
    monkeypatch.setattr(search, "CALLING_THREAD_NODES", 1)
    monkeypatch.setattr(search.threading, "Thread", InterruptedOnSecondStart)
    with pytest.raises(KeyboardInterrupt):
        solver_3.solve("12153644613")
    assert len(starts) == 2
    monkeypatch.undo()
    assert solver_3.solve("12153644613") == 4  # tests/data/solver-scores.txt
    assert solver_3.solve(DEEP_MOVES) == -1


# ------------------------------------------------------------- the table
def test_table_kept_and_reset():
    p = Position.from_moves("4444455121")
    s = Solver(table_log2=18)
    first = s.solve(p)
    cold = s.nodes
    assert s.solve(p) == first
    warm = s.nodes - cold
    assert warm < cold  # the kept table answers most of the second search
    assert s.table.used() > 0
    s.reset()
    assert s.table.used() == 0
    assert s.solve(p) == first


def test_errors():
    s = Solver(table_log2=12)
    won = Position.from_bitboards(0b1111, 0b1111 | (1 << 7) | (1 << 14) | (1 << 21), check=False)
    with pytest.raises(ValueError, match="four"):
        s.solve(won)
    with pytest.raises(ValueError, match="4x4"):
        s.solve(Position(width=4, height=4))
    with pytest.raises(ValueError, match="does not fit the 64-bit bitboard"):
        Solver(width=9, height=7)
    with pytest.raises(ValueError, match="position 1"):
        s.solve_many(np.array([0, won.first_stones], np.uint64), np.array([0, won.mask], np.uint64))
    with pytest.raises(ValueError):
        s.solve("44x")


def test_module_level_functions():
    assert solve(DEEP_MOVES) == -1
    assert solve_wdl(DEEP_MOVES) == -1
    assert max(v for v in analyze(DEEP_MOVES) if v is not None) == -1


# ------------------------------------------------------------------- CLI
def test_cli_solve_json():
    args = ["solve", DEEP_MOVES, "--json", "--all-moves", "--table-log2", "16"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    obj = json.loads(res.output)
    # 37 stones, second player to move, score -1: the first player wins with its 21st stone
    assert obj["moves"] == DEEP_MOVES and obj["score"] == -1 and obj["winner"] == "first"
    assert obj["plies"] == plies_from_score(-1, 37, *DEFAULT_BOARD) == 4
    assert obj["columns"] == analyze(DEEP_MOVES)


def test_cli_solve_text_and_batch(reference_lines):
    res = CliRunner().invoke(main, ["solve", "4455", "--table-log2", "16"])
    assert res.exit_code == 0 and "score 18" in res.output and "first player wins" in res.output
    lines = [(m, s) for m, s in reference_lines if len(m) >= 24][:5]
    text = "\n".join(f"{m} {s}" for m, s in lines) + "\n"
    res = CliRunner().invoke(main, ["solve", "--file", "-", "--json"], input=text)
    assert res.exit_code == 0, res.output
    objs = [json.loads(line) for line in res.output.splitlines()]
    assert [(o["moves"], o["score"]) for o in objs] == lines
    assert all(o["ms"] >= 0 for o in objs)


def test_cli_solve_sizes_each_positions_table(reference_lines, monkeypatch):
    """Without --table-log2 a position of fewer than 8 stones gets the big table and a
    deeper one the small one, each solver made once; the scores are the reference's and
    the 7-ply book's (a 7-stone position's score is its value there)."""
    import openingbook.cli.solve as solve_module
    from openingbook.formats import open_book

    made = []
    real = solve_module._Solvers.of

    def of(self, pos):
        solver = real(self, pos)
        made.append((pos.stone_count, solver.table.log2))
        return solver

    monkeypatch.setattr(solve_module._Solvers, "of", of)
    shallow = ["6151472", "3344521"]
    with open_book("7-dist") as book:
        book_scores = [book.get(Position.from_moves(m)).score for m in shallow]
    deep = reference_lines[:3]
    text = "\n".join([shallow[0], *(m for m, _ in deep), shallow[1]]) + "\n"
    res = CliRunner().invoke(main, ["solve", "--file", "-", "--json"], input=text)
    assert res.exit_code == 0, res.output
    scores = [json.loads(line)["score"] for line in res.output.splitlines()]
    assert scores == [book_scores[0], *(s for _, s in deep), book_scores[1]]
    assert {(n >= 8, log2) for n, log2 in made} == {(False, 25), (True, 22)}


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["solve", "44x"], None, "not a column digit"),
        (["solve", "4444444"], None, "full"),
        (["solve", "--file", "-"], DEEP_MOVES + "\n4x\n", "line 2"),
        (["solve"], None, "either MOVES or --file"),
    ],
)
def test_cli_errors(args, stdin, message):
    res = CliRunner().invoke(main, args, input=stdin)
    assert res.exit_code != 0
    assert message in res.output
    assert "Traceback" not in res.output


# ------------------------------------------------------------ worker use
def _worker_solve(args):
    first, mask = args
    s = Solver(table_log2=16)
    return s.solve_many(first, mask).tolist()


@pytest.mark.slow
def test_usable_from_worker_processes(reference_lines):
    import multiprocess

    lines = [(m, s) for m, s in reference_lines if len(m) >= 24][:6]
    pos = [Position.from_moves(m) for m, _ in lines]
    first = np.array([p.first_stones for p in pos], np.uint64)
    mask = np.array([p.mask for p in pos], np.uint64)
    with multiprocess.get_context("spawn").Pool(1) as pool:
        got = pool.map(_worker_solve, [(first[:3], mask[:3]), (first[3:], mask[3:])])
    assert got[0] + got[1] == [s for _, s in lines]


@pytest.mark.parametrize("entries", [1, 1000, 1 << 18, (1 << 18) + 3])
def test_huge_page_zeros_is_a_zeroed_writable_array(entries: int) -> None:
    from openingbook.solver.table import huge_page_zeros

    a = huge_page_zeros(entries)
    assert a.dtype == np.uint64 and a.shape == (entries,) and not a.any()
    a[:] = np.arange(entries, dtype=np.uint64)  # writable, and every element its own
    assert int(a[-1]) == entries - 1 and int(a.sum()) == entries * (entries - 1) // 2
    if a.nbytes >= 2 << 20:  # big enough for huge pages: starts on a 2 MiB boundary
        assert a.ctypes.data % (2 << 20) == 0


# ------------------------------------------------------------------ time limits
@pytest.mark.parametrize("threads", [1, 2])
def test_a_time_limit_stops_the_search_and_leaves_the_solver_exact(threads):
    from openingbook.solver import SearchTimeout

    solver = Solver(table_log2=20, threads=threads)
    solver.warm_up()  # a first compilation is not search time
    start = time.perf_counter()
    with pytest.raises(SearchTimeout, match=r"time limit of 0\.05 s"):
        solver.solve("", time_limit=0.05)  # the empty board: minutes of search
    assert time.perf_counter() - start < 5
    # the table holds only proven bounds, and the stop flag is cleared
    assert solver.solve("4455") == 18
    assert solver.solve("4455", time_limit=30) == 18
    assert solver.solve(Position.from_moves("2252576253462244111563365343671351441")) == -1
    with pytest.raises(ValueError, match="time_limit"):
        solver.solve("4455", time_limit=0)
