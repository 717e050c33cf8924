"""Judging agents (openingbook.evaluation): regrets and blunders of moves, the reports
that sum them, matches between players, and the ``levels`` command."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from click.testing import CliRunner

from openingbook.cli import main
from openingbook.errors import InvalidArgument
from openingbook.evaluation import (
    BLUNDER_KINDS,
    LEVEL_MISTAKE_RATES,
    MOVE_COUNTS,
    AgentReport,
    LevelPlayer,
    PerfectPlayer,
    level_pairs,
    level_reports,
    play_match,
    rate_moves,
)
from openingbook.layouts import read_batch
from openingbook.oracle import Oracle
from openingbook.solver import Position
from tests.helpers import random_game


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    return Oracle()


def _outcome(score: int) -> int:
    """+1 a win, 0 a draw, -1 a loss for the side to move, by a Pons score."""
    return (score > 0) - (score < 0)


def test_regret_and_blunders_of_every_move_of_the_empty_board(oracle):
    """The first player wins with the centre only (Pons' published scores of the empty
    board, which the oracle's are checked against elsewhere): columns 3 and 5 draw,
    the others lose."""
    answer = oracle.analyze([""] * 7)
    scores = answer.scores[0].tolist()
    assert scores == [-2, -1, 0, 1, 0, -1, -2]
    rates = rate_moves(answer, list(range(7)))
    kinds = [BLUNDER_KINDS[k] for k in rates.blunder.tolist()]
    assert (
        kinds == ["win_to_loss"] * 2 + ["win_to_draw", "none", "win_to_draw"] + ["win_to_loss"] * 2
    )
    assert rates.value_regret.tolist() == [1 - s for s in scores]
    # only the centre keeps the win: the others have no distance regret
    assert np.isnan(rates.distance_regret).tolist() == [True] * 3 + [False] + [True] * 3
    assert rates.distance_regret[3] == 0
    assert rates.decisive.all() and not rates.lost.any()
    assert rates.mistake_rate == pytest.approx(6 / 7)
    report = rates.report()
    assert (report.win_to_draw, report.win_to_loss, report.draw_to_loss) == (2, 4, 0)
    assert report.value_regret == sum(1 - s for s in scores)


def test_a_lost_position_has_regrets_and_no_blunder(oracle):
    # "4453": the side to move loses whatever it plays (the solver's scores, as
    # docs/ORACLE.md shows them and tests/test_oracle.py checks the oracle's against it)
    expected = [-5, -5, -2, -3, -4, -2, -2]
    answer = oracle.analyze(["4453"] * 7)
    assert answer.scores[0].tolist() == expected
    rates = rate_moves(answer, list(range(7)))
    best = max(expected)
    assert rates.value_regret.tolist() == [best - s for s in expected]
    # a loss one score unit sooner is two plies sooner
    assert rates.distance_regret.tolist() == [2 * (best - s) for s in expected]
    assert rates.lost.all() and not rates.decisive.any() and not rates.blunder.any()
    assert rates.good.all() and np.isnan(rates.mistake_rate)


def _random_positions(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = random_game(rng, 7, 6, rng.randrange(0, 30))
        if pos is not None:
            out.append(pos.to_moves())
    return out


def test_judgements_agree_with_the_scores_move_by_move(oracle):
    """Every column of random positions: the blunder kind, the regrets and the
    decisive flag from the scores, one move at a time (a draw thrown to a loss, a
    slower win and a faster loss among them)."""
    lines = _random_positions(120, seed=3)
    answer = oracle.analyze([line for line in lines for _ in range(7)])
    rates = rate_moves(answer, [c for _ in lines for c in range(7)])
    seen = set()
    for i in range(len(answer)):
        col = i % 7
        scores = answer.scores[i].tolist()
        legal = [s for s, ok in zip(scores, answer.playable[i].tolist(), strict=True) if ok]
        if not answer.playable[i, col]:
            assert rates.illegal[i] and np.isnan(rates.value_regret[i])
            continue
        best, mine = max(legal), scores[col]
        before, after = _outcome(best), _outcome(mine)
        kind = {(1, 0): 1, (1, -1): 2, (0, -1): 3}.get((before, after), 0)
        assert rates.blunder[i] == kind, (lines[i // 7], col)
        assert rates.value_regret[i] == best - mine
        assert rates.lost[i] == (before == -1)
        assert rates.decisive[i] == (before > -1 and any(_outcome(s) != before for s in legal))
        if before == after:
            # 2 plies per score unit on 7x6, and the plies from the oracle agree
            assert rates.distance_regret[i] == 2 * (best - mine) * abs(before)
            plies = answer.plies[i, col] - answer.value_plies[i]
            assert rates.distance_regret[i] == plies * before
            if best != mine:
                seen.add("slower win" if before == 1 else "faster loss")
        else:
            assert np.isnan(rates.distance_regret[i])
            seen.add(BLUNDER_KINDS[kind])
    assert seen == {"slower win", "faster loss", "win_to_draw", "win_to_loss", "draw_to_loss"}


def test_a_report_sums_its_rows(oracle):
    lines = _random_positions(40, seed=5)
    answer = oracle.analyze(lines, status=False)
    chosen = np.random.default_rng(1).integers(0, 7, len(lines))
    rates = rate_moves(answer, chosen)
    whole = rates.report()
    half = np.arange(len(lines)) < 20
    assert rates.report(half) + rates.report(~half) == whole
    assert whole.moves == len(lines) and whole.illegal == int(rates.illegal.sum())
    assert whole.blunders == int((rates.blunder > 0).sum())
    assert whole.mistakes == int((rates.decisive & ~rates.good).sum())
    assert whole.mean_value_regret == pytest.approx(np.nanmean(rates.value_regret))
    assert whole.mean_distance_regret == pytest.approx(np.nanmean(rates.distance_regret))
    assert whole.good_rate == rates.good_rate and whole.perfect_rate == rates.perfect_rate
    assert AgentReport().to_dict()["score"] is None


def test_a_match_is_reproducible_and_its_reports_add_up(oracle):
    first = play_match(1, "perfect", 10, oracle=oracle, seed=3)
    again = play_match(1, "perfect", 10, oracle=oracle, seed=3)
    other = play_match(1, "perfect", 10, oracle=oracle, seed=4)
    assert [g.moves for g in first.games] == [g.moves for g in again.games]
    assert [g.moves for g in first.games] != [g.moves for g in other.games]
    assert first.names == ("level 1", "perfect")
    assert [g.a_first for g in first.games] == [True] * 5 + [False] * 5
    assert sum((g.a for g in first.games), AgentReport()) == first.a
    assert sum((g.b for g in first.games), AgentReport()) == first.b
    assert first.a_moving(first=True) + first.a_moving(first=False) == first.a
    assert first.a_moving(first=True).games == 5
    assert first.a.games == first.b.games == 10
    assert (first.a.wins, first.a.draws, first.a.losses) == (
        first.b.losses,
        first.b.draws,
        first.b.wins,
    )
    for game in first.games:
        # every move judged, once, by the side that made it; the game replays to its end
        a_moves = (len(game.moves) + game.a_first) // 2
        assert (game.a.moves, game.b.moves) == (a_moves, len(game.moves) - a_moves)
        pos = Position.from_moves(game.moves[:-1])  # refused if four came earlier
        last = int(game.moves[-1]) - 1
        if pos.is_winning_move(last):
            assert game.winner == (1 if pos.stone_count % 2 == 0 else -1)
        else:
            assert len(game.moves) == 42 and game.winner == 0
    # the perfect player never errs; the level's judged moves are the oracle's
    assert first.b.mistakes == 0 and first.b.perfect == first.b.moves
    assert first.a.mistakes == first.a.blunders > 0


def test_perfect_play_as_first_player_always_wins(oracle):
    result = play_match("perfect", PerfectPlayer(oracle, seed=2), 8, oracle=oracle, seed=0)
    assert [g.winner for g in result.games] == [1] * 8
    assert result.a.wins == result.b.wins == 4
    assert result.a.perfect_rate == result.b.perfect_rate == 1.0
    assert result.a.mean_value_regret == result.a.mean_distance_regret == 0


def test_any_policy_plays_and_an_illegal_move_loses(oracle):
    seen = []

    def leftmost(observation, action_mask):
        seen.append(observation)
        return int(np.flatnonzero(action_mask)[0])

    result = play_match(leftmost, LevelPlayer(10, oracle, seed=0), 1, oracle=oracle)
    assert result.b.wins == 1 and result.a.illegal == 0 and result.games[0].a_first
    # the observations are PettingZoo's: they read back to the game's positions
    moves = result.games[0].moves
    before_each = [moves[:ply] for ply in range(0, len(moves), 2)]
    boards = read_batch(np.stack(seen), "pettingzoo")
    assert boards.mask.tolist() == read_batch(before_each).mask.tolist()
    assert boards.first.tolist() == read_batch(before_each).first.tolist()

    def off_the_board(observation, action_mask):
        return 7

    result = play_match(off_the_board, "perfect", 2, oracle=oracle)
    assert result.a.losses == 2 and result.a.illegal == result.a.moves == 2
    assert [(g.moves, g.winner) for g in result.games] == [("", -1), ("4", 1)]
    with pytest.raises(InvalidArgument, match="games"):
        play_match("perfect", "perfect", 0, oracle=oracle)
    with pytest.raises(InvalidArgument, match="player"):
        play_match("best", "perfect", 2, oracle=oracle)


def test_level_reports_sum_each_levels_games(oracle):
    pairs = level_pairs([2, 3])
    assert pairs == [(2, "perfect"), (3, "perfect"), (2, 3)]
    results = [play_match(a, b, 4, oracle=oracle, seed=1) for a, b in pairs]
    reports = level_reports(results)
    assert list(reports) == [2, 3]
    assert reports[2] == results[0].a + results[2].a
    assert reports[3] == results[1].a + results[2].b
    assert set(MOVE_COUNTS) <= set(reports[2].to_dict())


def test_the_levels_command(monkeypatch):
    result = CliRunner().invoke(main, ["levels", "--games", "2", "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.output)
    assert (got["games"], got["seed"]) == (2, 1)
    assert [(p["a"], p["b"]) for p in got["pairs"]] == [
        (f"level {a}", "perfect" if b == "perfect" else f"level {b}") for a, b in level_pairs()
    ]
    assert all(p["games"] == 2 for p in got["pairs"])
    # against perfect play the level moving second loses every game
    assert all(p["a_second_report"]["losses"] == 1 for p in got["pairs"][:10])
    assert [lv["level"] for lv in got["levels"]] == list(LEVEL_MISTAKE_RATES)
    assert got["levels"][-1]["mistakes"] == 0
    text = CliRunner().invoke(main, ["levels", "--games", "2", "--seed", "1"])
    assert text.exit_code == 0, text.output
    assert "level 1 vs perfect" in text.output and "level 9 vs level 10" in text.output
    bad = CliRunner().invoke(main, ["levels", "--games", "0"])
    assert bad.exit_code == 2
