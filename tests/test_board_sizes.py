"""Other board sizes: the solver against an independent brute force and the published results.

* a brute-force negamax written from the rules and the score definition alone
  (``tests/helpers.py``: columns of strings, memo, no pruning, no code of the solver),
  on the empty board of every size of at most 16 cells and on random positions (every
  move's score) of boards with an even and an odd number of cells, narrow tall ones and
  wide flat ones;
* Tromp's and Steininger's tables (:data:`openingbook.checks.published.BOARD_RESULTS`): the
  winner of the empty board under perfect play and the move on which the game ends,
  for the small boards here; ``benchmarks/bench_board_sizes.py`` solves the larger ones
  and its committed results are checked against the table;
* the parallel search against the serial one, and the score <-> plies conversions.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openingbook.checks.published import BOARD_RESULTS
from openingbook.solver import (
    DEFAULT_BOARD,
    STATUS_OK,
    STATUS_WINS_AT_ONCE,
    Position,
    Solver,
    book_position_status,
    parse_board_size,
    plies_from_score,
    score_bounds,
    score_from_plies,
    winner_from_score,
)
from tests.helpers import Board, brute_force_move_scores, four_through, random_board, to_position

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "board_sizes.json"


def solver_for(width: int, height: int, **kwargs) -> Solver:
    return Solver(table_log2=16, width=width, height=height, **kwargs)


# ------------------------------------------------------- the empty board
#: every board of at most 16 cells with a four possible, and a few without (1x3, 3x3)
TINY = sorted(
    {(w, h) for w in range(1, 17) for h in range(1, 17) if w * h <= 12 and max(w, h) >= 4}
    | {(4, 4), (1, 3), (3, 3), (2, 2), (1, 1)}
)


@pytest.mark.parametrize(("width", "height"), TINY, ids=lambda v: str(v))
def test_empty_board_matches_brute_force(width, height):
    empty: Board = ("",) * width
    expected = brute_force_move_scores(empty, height)
    solver = solver_for(width, height)
    pos = Position(width=width, height=height)
    assert solver.analyze(pos) == expected
    assert solver.solve(pos) == max(s for s in expected if s is not None)


#: (width, height, empty cells at most): even and odd cell counts, odd heights,
#: narrow boards taller than 19 rows (steps of 64 bits or more between columns),
#: boards 16 or more columns wide (columns past the table's 4-bit move field), boards 6
#: high but not 7 wide (the search's vector test of a four, solver.search._has_four_lanes,
#: serves every board 6 high; 9x6 uses the bits up to 62)
RANDOM_SIZES = [
    (4, 4, 12),
    (5, 4, 12),
    (4, 5, 12),
    (5, 3, 12),
    (3, 5, 12),
    (5, 5, 12),
    (7, 5, 11),
    (5, 7, 11),
    (7, 7, 10),
    (4, 6, 12),
    (9, 6, 10),
    (9, 5, 10),
    (6, 9, 10),
    (8, 7, 10),
    (1, 63, 12),
    (2, 31, 12),
    (3, 20, 12),
    (16, 3, 10),
    (21, 2, 10),
    (32, 1, 12),
]


@pytest.mark.parametrize(("width", "height", "max_empty"), RANDOM_SIZES, ids=lambda v: str(v))
def test_random_positions_match_brute_force(width, height, max_empty):
    solver = solver_for(width, height)
    cells = width * height

    @FAST
    @given(st.integers(0, 2**32), st.integers(2, max_empty))
    def check(seed, empty):
        rng = random.Random(seed)
        while (board := random_board(rng, width, height, cells - empty)) is None:
            pass
        expected = brute_force_move_scores(board, height)
        pos = to_position(board, height)
        assert solver.analyze(pos) == expected, pos.to_diagram()
        if not pos.can_win_next():
            score = max(s for s in expected if s is not None)
            assert solver.solve(pos) == score
            assert solver.solve_wdl(pos) == (score > 0) - (score < 0)
            first = np.array([pos.first_stones], np.uint64)
            mask = np.array([pos.mask], np.uint64)
            assert solver.solve_many(first, mask).tolist() == [score]

    check()


@pytest.mark.parametrize("kind", ["claimeven", "baseinverse", "one move ahead"])
@pytest.mark.parametrize(("width", "height"), [(5, 5), (7, 5), (5, 3), (3, 7), (7, 7)])
def test_zugzwang_positions_of_odd_boards_match_brute_force(width, height, kind):
    """Positions where the search's zugzwang bound applies at the root (every column with
    an even number of empty cells; an even number in all but two or more odd columns; an
    odd number of empty cells, where it is tried after each move), on boards with an odd
    number of cells and odd heights: the rows the side to move claims depend on the
    height's parity."""
    solver = solver_for(width, height)
    cells = width * height

    @FAST
    @given(st.integers(0, 2**32), st.integers(2, 11))
    def check(seed, empty):
        rng = random.Random(seed)
        empty = empty - empty % 2 + (kind == "one move ahead")
        while True:
            board = random_board(rng, width, height, cells - empty)
            if board is None:
                continue
            odd = sum((height - len(column)) % 2 for column in board)
            if kind == "one move ahead" or (odd >= 2) == (kind == "baseinverse"):
                break
        expected = brute_force_move_scores(board, height)
        pos = to_position(board, height)
        assert solver.analyze(pos) == expected, pos.to_diagram()
        if not pos.can_win_next():
            assert solver.solve(pos) == max(s for s in expected if s is not None)

    check()


# ------------------------------------------------------- the position model
@pytest.mark.parametrize("width, height", [(1, 63), (2, 31), (3, 20), (4, 12), (7, 6)])
def test_position_model_on_tall_narrow_boards(width: int, height: int) -> None:
    """book_position_status of random games (nobody has won) against the brute force:
    a book position, or a win at once when some column completes four. On boards 3
    wide or less and 20 high or more a horizontal or diagonal step is 21 bits or more,
    where a shift modulo 64 would find fours that are not there."""
    rng = random.Random(width * 100 + height)
    for _ in range(150):
        board = random_board(rng, width, height, rng.randrange(width * height))
        if board is None:
            continue
        stones = sum(map(len, board))
        stone = "ab"[stones % 2]
        wins_at_once = any(
            len(board[c]) < height
            and four_through((*board[:c], board[c] + stone, *board[c + 1 :]), c, len(board[c]))
            for c in range(width)
        )
        p = to_position(board, height)
        status = book_position_status(
            np.array([p.first_stones], np.uint64),
            np.array([p.mask], np.uint64),
            stones,
            width,
            height,
        )
        assert status.tolist() == [STATUS_WINS_AT_ONCE if wins_at_once else STATUS_OK], board


# ------------------------------------------------------- published results
#: the published boards solved here in seconds, odd numbers of cells included
SMALL = [
    (4, 4),
    (5, 4),
    (4, 5),
    (6, 4),
    (4, 6),
    (5, 5),
    (7, 4),
    (6, 5),
    (5, 6),
    (4, 7),
    (4, 8),
    (5, 7),
    (7, 5),
]


@pytest.mark.parametrize(("width", "height"), SMALL, ids=lambda v: str(v))
def test_empty_board_matches_the_published_result(width, height):
    solver = Solver(table_log2=20, width=width, height=height)
    score = solver.solve(Position(width=width, height=height))
    winner = str(winner_from_score(score, 0))
    assert (winner, plies_from_score(score, 0, width, height)) == BOARD_RESULTS[(width, height)]


def test_committed_board_size_results_agree_with_the_published_table():
    """``benchmarks/results/board_sizes.json`` (``bench_board_sizes.py``): every board
    solved agrees with the published outcome and last move (recomputed here from the
    score it records), within the run's CPU budget; a complete run has tried every board
    of the table that fits 64 bits, odd numbers of cells included."""
    data = json.loads(RESULTS.read_text())
    rows = data["boards"]
    by_size = {r["size"]: r for r in rows}
    fitting = {f"{w}x{h}" for w, h in BOARD_RESULTS if w * (h + 1) <= 64}
    tried = {s for s, r in by_size.items() if not r["status"].startswith("skipped")}
    assert tried <= fitting
    if data["complete"]:
        assert tried == fitting
    solved = [r for r in rows if r["status"] == "solved"]
    assert {"4x4", "5x5", "7x5", "5x7", "7x6", "8x5"} <= {r["size"] for r in solved}
    for r in solved:
        width, height = (int(x) for x in r["size"].split("x"))
        winner = str(winner_from_score(r["score"], 0))
        last = plies_from_score(r["score"], 0, width, height)
        assert (r["winner"], r["last_move"]) == (winner, last), r["size"]
        assert (winner, last) == BOARD_RESULTS[(width, height)], r["size"]
        assert r["agrees"] is True
        assert r["seconds"] <= data["settings"]["budget_cpu_seconds"]


# ------------------------------------------------------- parallel search
@pytest.mark.parametrize(("width", "height", "moves"), [(5, 5, ""), (7, 5, "4"), (6, 5, "34")])
def test_parallel_search_equals_serial(width, height, moves):
    pos = Position.from_moves(moves, width, height)
    serial = solver_for(width, height).solve(pos)
    assert solver_for(width, height, threads=2).solve(pos) == serial
    assert solver_for(width, height).solve(pos, threads=2) == serial


# ------------------------------------------------------- scores and sizes
@given(st.integers(1, 32), st.integers(1, 63), st.data())
def test_scores_and_plies_convert_both_ways(width, height, data):
    if width * (height + 1) > 64:
        return
    cells = width * height
    stones = data.draw(st.integers(0, cells - 1))
    plies = data.draw(st.integers(1, cells - stones))
    score = score_from_plies(plies, stones, width, height)
    low, high = score_bounds(stones, width, height)
    assert low <= score <= high
    assert score != 0 and (score > 0) == (plies % 2 == 1)
    assert plies_from_score(score, stones, width, height) == plies
    # the definition: the game ends with stone p = stones + plies
    assert abs(score) == (cells - (stones + plies)) // 2 + 1


def test_pons_convention_on_7x6():
    """7x6 keeps Pons' 22 - k (a win with the winner's k-th stone)."""
    for k in range(4, 22):
        assert (
            score_from_plies(2 * k - 1, 0, *DEFAULT_BOARD) == 22 - k
        )  # first player, stone 2k - 1
        assert score_from_plies(2 * k, 0, *DEFAULT_BOARD) == -(22 - k)  # second player, stone 2k


@pytest.mark.parametrize(
    ("text", "size"), [("8x7", (8, 7)), ("7X6", (7, 6)), (" 12x4 ", (12, 4)), ("1x63", (1, 63))]
)
def test_board_size_parse(text, size):
    parsed = parse_board_size(text)
    assert (parsed.width, parsed.height) == size
    assert str(parsed) == f"{size[0]}x{size[1]}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("9x7", "need 72 bits, more than 64"),
        ("13x4", "need 65 bits, more than 64"),
        ("0x6", "at least 1"),
        ("7x0", "at least 1"),
        ("7", "WIDTHxHEIGHT"),
        ("7x6x2", "WIDTHxHEIGHT"),
        ("-7x6", "WIDTHxHEIGHT"),
        ("\uff17x6", "WIDTHxHEIGHT"),  # a fullwidth digit
        ("", "WIDTHxHEIGHT"),
    ],
)
def test_bad_board_sizes_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_board_size(text)


def test_moves_on_wide_boards():
    pos = Position.from_moves("10,1,12,12", 12, 4)
    assert pos.to_moves() == "10,1,12,12"
    assert Position.from_moves([10, 1, 12, 12], 12, 4) == pos
    assert Position.from_moves("4,4,5,3") == Position.from_moves("4453")
    for bad, message in (
        ("13", "outside 1-12"),
        ("1,,2", "not a column number"),
        ("4453", "commas"),
    ):
        with pytest.raises(ValueError, match=message):
            Position.from_moves(bad, 12, 4)


# ------------------------------------------------------------------- CLI
def _cli(args: list[str], stdin: str | None = None):
    from click.testing import CliRunner

    from openingbook.cli import main

    if "--table-log2" not in args:
        args = [*args, "--table-log2", "16"]
    return CliRunner().invoke(main, args, input=stdin)


def test_cli_solves_other_sizes():
    res = _cli(["solve", "--size", "5x5", "", "--json", "--all-moves"])
    assert res.exit_code == 0, res.output
    obj = json.loads(res.output)
    assert (obj["size"], obj["score"], obj["winner"], obj["plies"]) == ("5x5", 0, "draw", 25)
    assert obj["columns"] == solver_for(5, 5).analyze(Position(width=5, height=5))
    res = _cli(["solve", "--width", "7", "--height", "5", "4", "--all-moves"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("4: score 0, draw") and "column scores 1-7:" in res.output

    rng = random.Random(3)
    lines = []
    for width, height in ((12, 4), (8, 7)):
        while (board := random_board(rng, width, height, width * height - 9)) is None:
            pass
        pos = to_position(board, height)
        lines.append((pos.some_moves(), solver_for(width, height).solve(pos)))
        size = f"{width}x{height}"
        res = _cli(["solve", "--size", size, "--file", "-", "--json"], stdin=lines[-1][0] + "\n")
        assert res.exit_code == 0, res.output
        obj = json.loads(res.output)
        assert (obj["moves"], obj["score"], obj["size"]) == (*lines[-1], size)
    assert "," in lines[0][0]  # 12 columns: moves separated by commas


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size", "9x7", "4"], "board size '9x7': 9 columns of 7 cells need 72 bits"),
        (["--size", "0x6", "4"], "at least 1"),
        (["--size", "7by6", "4"], "expected WIDTHxHEIGHT"),
        (["--width", "13", "--height", "4", "4"], "board 13x4 does not fit"),
        (["--width", "0", "4"], "at least 1"),
        (["--size", "8x7", "--width", "8", "4"], "either --size or --width/--height"),
        (["--size", "5x5", "6"], "MOVES 6: move 1 is column 6, outside 1-5"),
        (["--size", "5x5", "111111"], "column 1, which is full"),
        (["--size", "12x4", "1,13"], "move 2 is column 13, outside 1-12"),
        (["--size", "8x7", "4", "--table-log2", "10"], "8x7 boards need at least 16"),
    ],
)
def test_cli_refuses_bad_sizes_and_moves(args, message):
    for as_json in (False, True):
        res = _cli(["solve", *args] + (["--json"] if as_json else []))
        assert res.exit_code == 2, res.output
        lines = res.stderr.splitlines()
        assert len(lines) == 1 and "Traceback" not in res.output and res.stdout == ""
        if as_json:
            assert json.loads(lines[0])["exit_code"] == 2 and message in lines[0]
        else:
            assert lines[0].startswith("Error: ") and message in lines[0]
