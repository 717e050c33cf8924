"""The batched oracle (openingbook.oracle), its layouts (openingbook.layouts) and the
evaluation tools (openingbook.evaluation), against the project's engine and solver."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import openingbook
from openingbook.booknames import lookup_stones
from openingbook.engine import Engine
from openingbook.errors import InvalidArgument, SearchTimeout
from openingbook.evaluation import LEVEL_MISTAKE_RATES, LevelPlayer, PerfectPlayer, rate_moves
from openingbook.layouts import LAYOUTS, read_batch, write_boards
from openingbook.oracle import FULL_COLUMN, Oracle
from openingbook.solver import (
    STATUS_BAD_CELLS,
    STATUS_BAD_MOVES,
    STATUS_CONTRADICTED,
    STATUS_GAME_OVER,
    STATUS_NOT_A_BOARD,
    STATUS_OK,
    STATUS_STONE_COUNTS,
    STATUS_TIMEOUT,
    STATUS_UNREACHABLE,
    Position,
    Solver,
)
from openingbook.values import UNKNOWN, value_from_score
from tests.helpers import positions, random_game

ARRAY_LAYOUTS = [name for name in LAYOUTS if name not in ("moves", "actions")]
WINNER_CODES = {"first": 1, "second": -1, "draw": 0}
#: the most stones of a 7x6 position every move of which the shipped books answer
LOOKUP_STONES = lookup_stones((7, 6))


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    return Oracle()


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def lines_of(stone_counts: list[int], seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for n in stone_counts:
        pos = None
        while pos is None:
            pos = random_game(rng, 7, 6, n)
        out.append(pos.to_moves())
    return out


def expected_from_engine(engine: Engine, moves: str) -> list[int]:
    return [FULL_COLUMN if m is None else m.score for m in engine.analyze(moves).moves]


# ------------------------------------------------------------------ exact answers
def test_the_empty_board_and_a_known_position(oracle):
    answer = oracle.analyze(["", "4453"])
    assert answer.scores.tolist() == [[-2, -1, 0, 1, 0, -1, -2], [-5, -5, -2, -3, -4, -2, -2]]
    assert answer.value.tolist() == [1, -2]
    assert answer.value_winner.tolist() == [1, -1]
    assert answer.value_plies.tolist() == [41, 36]
    assert answer.optimal.tolist()[1] == [False, False, True, False, False, True, True]
    assert answer.best_columns().tolist() == [3, 2]
    assert answer.layout == "moves" and answer.answered.all()


def test_book_positions_of_every_stone_count_agree_with_the_engine(oracle, engine):
    """0 to LOOKUP_STONES stones: every child in a book, answered by the bulk lookups
    (nothing searched); the engine answers one position at a time by single lookups."""
    lines = lines_of([n for n in range(LOOKUP_STONES + 1) for _ in range(4)], seed=1)
    searched = oracle.engine.solver.stats.positions
    answer = oracle.analyze(lines)
    assert oracle.engine.solver.stats.positions == searched
    for i, moves in enumerate(lines):
        analysis = engine.analyze(moves)
        assert answer.scores[i].tolist() == expected_from_engine(engine, moves), moves
        assert answer.value[i] == analysis.value.score
        assert answer.value_plies[i] == analysis.value.plies
        assert answer.value_winner[i] == WINNER_CODES[analysis.value.winner.value]
        for c, move in enumerate(analysis.moves):
            if move is None:
                assert answer.winners[i, c] == UNKNOWN and answer.plies[i, c] == UNKNOWN
                assert not answer.playable[i, c]
            else:
                assert answer.winners[i, c] == WINNER_CODES[move.winner.value]
                assert answer.plies[i, c] == move.plies
        assert answer.optimal[i].nonzero()[0].tolist() == [c - 1 for c in analysis.best]


def test_deep_positions_agree_with_the_solver_without_books(oracle):
    """LOOKUP_STONES + 1 to 41 stones (the search beyond the books), one position of
    each, against ``Solver.analyze`` with no book at all."""
    lines = lines_of(list(range(LOOKUP_STONES + 1, 42)), seed=2)
    answer = oracle.analyze(lines)
    solver = Solver(table_log2=22)
    for i, moves in enumerate(lines):
        expected = [FULL_COLUMN if s is None else s for s in solver.analyze(moves)]
        assert answer.scores[i].tolist() == expected, moves
        assert answer.stones[i] == len(moves)


def test_more_positions_of_every_stone_count_agree_with_the_engine(oracle, engine):
    """Three of each stone count 0 to 41, one batch (about a second)."""
    lines = lines_of([n for n in range(42) for _ in range(3)], seed=3)
    answer = oracle.analyze(lines)
    for i, moves in enumerate(lines):
        assert answer.scores[i].tolist() == expected_from_engine(engine, moves), moves


def test_values_follow_the_scores(oracle):
    """winners and plies are value_from_score of each move's score (one conversion)."""
    lines = lines_of([n for n in range(0, 16, 3) for _ in range(3)], seed=4)
    answer = oracle.analyze(lines)
    board = oracle.board
    for i, moves in enumerate(lines):
        for c in np.flatnonzero(answer.playable[i]).tolist():
            value = value_from_score(int(answer.scores[i, c]), len(moves), board)
            assert answer.plies[i, c] == value.plies
            assert answer.winners[i, c] == WINNER_CODES[value.winner.value]


def test_a_move_that_completes_four_is_a_win_at_once(oracle):
    answer = oracle.analyze(["121212"])  # the first player completes four in column 1
    assert answer.scores[0, 0] == 18 and answer.plies[0, 0] == 1 and answer.winners[0, 0] == 1
    assert answer.optimal[0].tolist() == [True] + [False] * 6


def test_full_columns_score_the_constant(oracle):
    answer = oracle.analyze(["444444"])
    assert answer.scores[0, 3] == FULL_COLUMN and not answer.playable[0, 3]
    assert not answer.optimal[0, 3]


def test_bitboards_in_answers_out(oracle):
    lines = lines_of([0, 5, 12, 15], seed=5)
    batch = read_batch(lines)
    by_bits = oracle.analyze_bitboards(batch.first, batch.mask)
    assert by_bits.scores.tolist() == oracle.analyze(lines).scores.tolist()
    assert by_bits.layout == "bitboards"


def test_the_package_exports_the_oracle():
    assert openingbook.Oracle is Oracle
    assert "Oracle" in openingbook.__all__


# ------------------------------------------------------------------ properties
@settings(max_examples=40)
@given(positions(max_stones=13))
def test_mirrored_positions_have_the_reversed_scores(pos):
    oracle = _shared_oracle()
    answer = oracle.analyze_bitboards(
        np.array([pos.first_stones, pos.mirror().first_stones], np.uint64),
        np.array([pos.mask, pos.mirror().mask], np.uint64),
    )
    assert answer.scores[1].tolist() == answer.scores[0, ::-1].tolist()


@settings(max_examples=60)
@given(
    positions(), st.sampled_from(ARRAY_LAYOUTS), st.booleans(), st.sampled_from(["top", "bottom"])
)
def test_every_layout_round_trips(pos, layout, relative, rows):
    first = np.array([pos.first_stones], np.uint64)
    mask = np.array([pos.mask], np.uint64)
    options = {"relative": relative, "rows": rows} if layout.startswith("cells") else {}
    arrays = write_boards(layout, first, mask, **options)
    back = read_batch(arrays, layout, **options)
    assert back.status.tolist() == [STATUS_OK]
    assert (int(back.first[0]), int(back.mask[0])) == (pos.first_stones, pos.mask)
    actions = [int(c) - 1 for c in pos.to_moves()]
    by_actions = read_batch([actions], "actions")
    assert int(by_actions.mask[0]) == pos.mask


def test_every_layout_gets_the_same_answer(oracle):
    lines = lines_of([0, 3, 8, 13, 16], seed=6)
    reference = oracle.analyze(lines)
    for layout in ARRAY_LAYOUTS:
        arrays = write_boards(layout, reference.first, reference.mask)
        answer = oracle.analyze(arrays)  # the layout told by the shape (and values)
        assert answer.scores.tolist() == reference.scores.tolist(), layout
    actions = [[int(c) - 1 for c in line] for line in lines]
    assert oracle.analyze(actions, "actions").scores.tolist() == reference.scores.tolist()


def test_the_layouts_follow_their_conventions():
    pos = Position.from_moves("445")  # first player: columns 4 and 5 (bottom), second: 4
    first, mask = np.array([pos.first_stones], np.uint64), np.array([pos.mask], np.uint64)
    pz = write_boards("pettingzoo", first, mask)[0]
    assert pz[5, 3, 1] == 1 and pz[5, 4, 1] == 1 and pz[4, 3, 0] == 1  # second to move
    spiel = write_boards("openspiel", first, mask)[0]
    assert spiel[0, 0, 3] == 1 and spiel[1, 1, 3] == 1 and spiel[2].sum() == 39
    kaggle = write_boards("connectx", first, mask)[0]
    assert kaggle[35 + 3] == 1 and kaggle[28 + 3] == 2
    assert write_boards("cells101", first, mask)[0][4, 3] == -1
    assert write_boards("cells012", first, mask, rows="bottom")[0][1, 3] == 2


def test_single_observations_are_batches_of_one(oracle):
    obs = write_boards("pettingzoo", *_bits("4453"))[0]
    answer = oracle.analyze({"observation": obs, "action_mask": np.ones(7, np.int8)})
    assert answer.scores.tolist() == [[-5, -5, -2, -3, -4, -2, -2]]
    assert oracle.analyze("4453").scores.tolist() == answer.scores.tolist()
    flat = write_boards("openspiel", *_bits("4453")).reshape(126)
    assert oracle.analyze(flat).layout == "openspiel"
    board = write_boards("connectx", *_bits("4453"))[0].tolist()
    assert oracle.analyze([{"board": board, "mark": 1}]).layout == "connectx"


# ------------------------------------------------------------------ refusals
def _bits(moves: str) -> tuple[np.ndarray, np.ndarray]:
    pos = Position.from_moves(moves)
    return np.array([pos.first_stones], np.uint64), np.array([pos.mask], np.uint64)


def _grid(rows_top_first: list[str]) -> np.ndarray:
    return np.array([[int(c) for c in row] for row in rows_top_first])


EMPTY = ["0000000"] * 6

BAD_ROWS = [
    (_grid([*EMPTY[:5], "3000000"]), STATUS_BAD_CELLS, "does not use"),
    (_grid([*EMPTY[:4], "1000000", "0000000"]), STATUS_NOT_A_BOARD, "floating"),
    (_grid([*EMPTY[:5], "1100000"]), STATUS_STONE_COUNTS, "do not alternate"),
    (_grid([*EMPTY[:2], "1000000", "1200000", "1200000", "1200000"]), STATUS_GAME_OVER, "four"),
    (
        _grid([*EMPTY[:2], "2000000", "2000000", "1000000", "1000000"]),
        STATUS_UNREACHABLE,
        "no order",
    ),
]


@pytest.mark.parametrize(("grid", "status", "words"), BAD_ROWS)
def test_bad_rows_are_refused_or_reported(oracle, grid, status, words):
    good = _grid([*EMPTY[:5], "0001000"])
    batch = np.stack([good, grid])
    with pytest.raises(InvalidArgument, match=rf"^row 1: .*{words}"):
        oracle.analyze(batch, "cells012")
    answer = oracle.analyze(batch, "cells012", status=True)
    assert answer.status.tolist() == [STATUS_OK, status]
    assert words in answer.reasons[1] and answer.reasons[0] is None
    assert (answer.scores[1] == UNKNOWN).all() and answer.value[1] == UNKNOWN
    assert not answer.optimal[1].any() and not answer.playable[1].any()
    assert answer.scores[0].tolist() == oracle.analyze(["4"]).scores[0].tolist()


def test_a_full_board_is_a_game_over(oracle):
    full = Position.from_moves("562544631751167467766154327371213353254242")  # a draw
    answer = oracle.analyze_bitboards(*_bits_of(full), status=True)
    assert answer.status.tolist() == [STATUS_GAME_OVER] and "full" in answer.reasons[0]
    with pytest.raises(InvalidArgument, match="row 0: the board is full"):
        oracle.analyze_bitboards(*_bits_of(full))
    assert oracle.analyze(["56254463175116746776615432737121335325424"]).answered.all()


def _bits_of(pos: Position) -> tuple[np.ndarray, np.ndarray]:
    return np.array([pos.first_stones], np.uint64), np.array([pos.mask], np.uint64)


def test_moves_that_cannot_be_played_are_refused(oracle):
    answer = oracle.analyze(["4453", "44444444", "1212121", "8", "4x"], status=True)
    assert answer.status.tolist() == [STATUS_OK] + [STATUS_BAD_MOVES] * 4
    assert answer.reasons[1] == "move 7 plays column 4, which is full"
    assert "completes four" in answer.reasons[2]
    with pytest.raises(InvalidArgument, match=r"^row 1: move 7 .* \(3 more rows refused\)"):
        oracle.analyze(["4453", "44444444", "1212121", "8", "4x"])
    with pytest.raises(InvalidArgument, match="row 0: an action outside"):
        oracle.analyze([[7]], "actions")


def test_a_contradicting_action_mask_or_mark_is_refused(oracle):
    obs = write_boards("pettingzoo", *_bits("444444"))
    answer = oracle.analyze(obs, action_mask=np.ones((1, 7)), status=True)
    assert answer.status.tolist() == [STATUS_CONTRADICTED] and "action mask" in answer.reasons[0]
    board = write_boards("connectx", *_bits("4"))
    answer = oracle.analyze(board, marks=[1], status=True)
    assert answer.status.tolist() == [STATUS_CONTRADICTED] and "mark 1" in answer.reasons[0]
    assert oracle.analyze(board, marks=[2]).answered.all()


def test_relative_boards_with_impossible_counts_are_refused(oracle):
    obs = np.zeros((1, 6, 7, 2), np.int8)
    obs[0, 5, :2, 0] = 1  # the player to move has two stones, its opponent none
    answer = oracle.analyze(obs, status=True)
    assert answer.status.tolist() == [STATUS_STONE_COUNTS]
    assert "the player to move has 2 stones and its opponent 0" in answer.reasons[0]


@pytest.mark.parametrize(
    ("batch", "layout", "words"),
    [
        (np.zeros((2, 5, 5)), None, "cannot tell the layout of an array of shape"),
        (np.zeros((2, 6, 7)), "pettingzoo", "a pettingzoo batch has shape"),
        (["44"], "sideways", "unknown layout"),
        ([object()], None, "not an array of numbers"),
        (np.zeros((1, 6, 7)), "cells012", None),
    ],
)
def test_batches_that_fit_no_layout_are_refused(oracle, batch, layout, words):
    if words is None:
        assert oracle.analyze(batch, layout).answered.all()
        return
    with pytest.raises(InvalidArgument, match=words):
        oracle.analyze(batch, layout)


def test_a_time_limit_reports_the_rows_not_answered():
    oracle = Oracle(books=None)  # the solver alone: the empty board takes long
    answer = oracle.analyze(["", "4"], status=True, time_limit=0.05)
    assert answer.status.tolist()[0] == STATUS_TIMEOUT
    assert "time limit" in answer.reasons[0] and answer.value[0] == UNKNOWN
    with pytest.raises(SearchTimeout, match="row 0"):
        oracle.analyze([""], time_limit=0.05)
    with pytest.raises(InvalidArgument, match="time_limit"):
        oracle.analyze([""], time_limit=-1)


def test_rows_searched_past_the_books_in_one_batch_are_exact_or_refused_at_a_time_limit():
    """Past the books the children of every row are searched in one batch; a time
    limit that stops it refuses the rows not finished, and answers the others exactly."""
    lines = lines_of([16, 17, 18, 20, 22, 16, 17, 18, 20, 22], seed=5)
    oracle = Oracle()
    assert oracle.engine.searches_only(17)
    answer = oracle.analyze(lines, status=True, time_limit=0.02)
    solver = Solver(table_log2=22)
    for i, moves in enumerate(lines):
        expected = [FULL_COLUMN if s is None else s for s in solver.analyze(moves)]
        if answer.status[i] == STATUS_TIMEOUT:  # no value; the moves known are exact
            assert answer.value[i] == UNKNOWN
            known = answer.scores[i] != UNKNOWN
            assert answer.scores[i][known].tolist() == np.array(expected)[known].tolist()
            continue
        assert answer.status[i] == STATUS_OK
        assert answer.scores[i].tolist() == expected, moves
    # without a limit every row is answered, as one at a time
    again = Oracle().analyze(lines)
    singly = [Oracle().analyze([m]).scores[0].tolist() for m in lines]
    assert again.scores.tolist() == singly


# ------------------------------------------------------------------ evaluation
def test_move_rates(oracle):
    # empty board: the centre is perfect and good, column 3 draws (not good);
    # "4453": second player to move loses, every legal move is good, 3 perfect
    answer = oracle.analyze(["", "", "4453", "4453", "444444"])
    rates = rate_moves(answer, [3, 2, 2, 0, 3])
    assert rates.perfect.tolist() == [True, False, True, False, False]
    assert rates.good.tolist() == [True, False, True, True, False]
    assert rates.illegal.tolist() == [False, False, False, False, True]
    assert rates.perfect_rate == pytest.approx(0.4) and rates.good_rate == pytest.approx(0.6)
    with pytest.raises(InvalidArgument, match="5 integer columns"):
        rate_moves(answer, [1, 2])


def test_move_rates_count_only_the_answered_rows(oracle):
    answer = oracle.analyze(["", "1212121"], status=True)
    rates = rate_moves(answer, [3, 0])
    assert rates.count == 1 and rates.perfect_rate == 1.0


def test_the_perfect_player_plays_an_optimal_move(oracle):
    lines = lines_of([n for n in range(0, 14) for _ in range(3)], seed=7)
    answer = oracle.analyze(lines)
    player = PerfectPlayer(oracle, layout="moves", seed=1)
    chosen = player.act(lines)
    assert answer.optimal[np.arange(len(lines)), chosen].all()
    centre = PerfectPlayer(oracle, layout="moves", tie_break="centre")
    assert centre.act(lines).tolist() == answer.best_columns().tolist()


def test_the_perfect_player_is_reproducible_and_its_temperature_softens_it(oracle):
    obs = write_boards("pettingzoo", *_bits("4453"))[0]
    mask = np.ones(7, np.int8)
    a = [PerfectPlayer(oracle, seed=5, temperature=2.0)(obs, mask) for _ in range(1)]
    players = [PerfectPlayer(oracle, seed=5, temperature=2.0) for _ in range(2)]
    games = [[p(obs, mask) for _ in range(40)] for p in players]
    assert games[0] == games[1] and a[0] == games[0][0]
    assert set(games[0]) - {2, 5, 6}, "a temperature of 2 sometimes plays a worse move"
    exact = PerfectPlayer(oracle, seed=5)
    assert {exact(obs, mask) for _ in range(40)} == {2, 5, 6}  # ties broken at random
    with pytest.raises(InvalidArgument, match="temperature"):
        PerfectPlayer(oracle, temperature=-1)
    with pytest.raises(InvalidArgument, match="tie_break"):
        PerfectPlayer(oracle, tie_break="left")


_ORACLE: list[Oracle] = []


def _shared_oracle() -> Oracle:
    """One oracle for the property tests (hypothesis cannot take function fixtures)."""
    if not _ORACLE:
        _ORACLE.append(Oracle())
    return _ORACLE[0]


def test_a_large_batch_of_move_strings_reads_as_one_string_at_a_time():
    """From a dozen strings on they are played together: same bitboards, same refusals
    in the same words as ``Position.from_moves`` one by one."""
    lines = lines_of(list(range(0, 42, 3)), seed=8)
    lines += ["44444444", "1212121", "4x", "", " 44 ", "8", "4" * 50, "44\x00", "\x004", "4,4"]
    together = read_batch(lines)
    alone = [read_batch([line]) for line in lines]
    assert together.first.tolist() == [int(a.first[0]) for a in alone]
    assert together.mask.tolist() == [int(a.mask[0]) for a in alone]
    assert together.reasons == [a.reasons[0] for a in alone]
    assert together.status.tolist() == [int(a.status[0]) for a in alone]
    assert together.reasons[-10] == "move 7 plays column 4, which is full"
    assert together.reasons[-3] == "move 3 is '\\x00', not a column digit 1-7"


@pytest.mark.parametrize("level", [1, 3, 10])
def test_a_level_errs_at_its_rate_where_a_move_changes_the_outcome(oracle, level):
    # "": every column but the centre throws the first player's win away; "4453": the
    # side to move loses whatever it plays, so no move is a mistake there
    rows = 4000
    player = LevelPlayer(level, oracle, layout="moves", seed=level)
    won = player.act([""] * rows)
    rate = LEVEL_MISTAKE_RATES[level]
    mistakes = float(np.mean(won != 3))
    assert abs(mistakes - rate) <= 4 * (rate * (1 - rate) / rows) ** 0.5 + 1e-9
    answer = oracle.analyze(["4453"])
    lost = player.act(["4453"] * 200)
    assert answer.optimal[0, lost].all(), "a lost position is played perfectly"


def test_levels_are_checked(oracle):
    for bad in (0, 11, 2.5, True, "3"):
        with pytest.raises(InvalidArgument, match="level"):
            LevelPlayer(bad, oracle)
