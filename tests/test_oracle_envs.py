"""The oracle in the real environments: PettingZoo ``connect_four_v3`` and OpenSpiel
``connect_four`` (both in the ``test`` extra). Random games are played in them, their
observations passed through the adapters, and the answers checked against the
environment's legal moves and the project's engine on the same moves."""

from __future__ import annotations

import random

import numpy as np
import pytest

from openingbook.engine import Engine
from openingbook.evaluation import PerfectPlayer, rate_moves
from openingbook.oracle import FULL_COLUMN, Oracle
from tests.helpers import require


def connect_four_env():
    """PettingZoo's ``connect_four_v3`` (AEC): from the registry (pettingzoo 1.27 on),
    else by its module (earlier versions)."""
    pettingzoo = require("pettingzoo")
    if hasattr(pettingzoo, "make"):
        return pettingzoo.make("aec", "classic/connect_four-v3")
    return require("pettingzoo.classic.connect_four_v3").env()


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    return Oracle()


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def engine_scores(engine: Engine, actions: list[int]) -> list[int]:
    moves = "".join(str(a + 1) for a in actions)
    return [FULL_COLUMN if m is None else m.score for m in engine.analyze(moves).moves]


def test_pettingzoo_random_games(oracle, engine):
    rng = random.Random(11)
    env = connect_four_env()
    checked = 0
    for game in range(6):
        env.reset(seed=game)
        actions: list[int] = []
        for agent in env.agent_iter():
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            answer = oracle.analyze(obs)  # the dict: observation and action mask
            assert answer.layout == "pettingzoo"
            assert answer.playable[0].tolist() == obs["action_mask"].astype(bool).tolist()
            assert answer.scores[0].tolist() == engine_scores(engine, actions), actions
            assert env.agents.index(agent) == len(actions) % 2
            checked += 1
            action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            actions.append(action)
            env.step(action)
    env.close()
    assert checked > 50


def test_pettingzoo_perfect_player_never_loses_the_first_move(oracle):
    """The first player wins with perfect play: the perfect player moving first beats a
    random agent in every game, whatever the seed; the random agent's move rates are
    measured on the way (the example of docs/ORACLE.md)."""
    env = connect_four_env()
    perfect = PerfectPlayer(oracle, seed=3)
    rng = np.random.default_rng(3)
    observations, choices = [], []
    for game in range(3):
        env.reset(seed=game)
        final = {}
        for agent in env.agent_iter():
            obs, reward, termination, truncation, _info = env.last()
            if termination or truncation:
                final[agent] = reward
                action = None
            elif agent == "player_0":
                action = perfect(obs["observation"], obs["action_mask"])
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                observations.append(obs["observation"])
                choices.append(action)
            env.step(action)
        assert final == {"player_0": 1, "player_1": -1}, f"game {game}"
    env.close()
    rates = rate_moves(oracle.analyze(np.stack(observations)), choices)
    assert rates.count == len(choices) and 0 <= rates.perfect_rate <= rates.good_rate <= 1


def test_openspiel_random_games(oracle, engine):
    pyspiel = require("pyspiel")
    game = pyspiel.load_game("connect_four")
    shape = game.observation_tensor_shape()
    rng = random.Random(12)
    checked = 0
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            tensor = np.array(state.observation_tensor()).reshape(shape)
            history = state.history()
            by_tensor = oracle.analyze(tensor[None], "openspiel")
            by_history = oracle.analyze([history], "actions")
            legal = state.legal_actions()
            assert np.flatnonzero(by_tensor.playable[0]).tolist() == legal
            assert by_tensor.scores.tolist() == by_history.scores.tolist()
            assert by_tensor.scores[0].tolist() == engine_scores(engine, history), history
            assert state.current_player() == len(history) % 2
            checked += 1
            state.apply_action(rng.choice(legal))
        # the game over: its final observation is refused, never answered
        tensor = np.array(state.observation_tensor(0)).reshape(shape)
        answer = oracle.analyze(tensor[None], "openspiel", status=True)
        assert not answer.answered[0] and "over" in answer.reasons[0]
    assert checked > 50


def test_oracle_docs_first_example_runs_without_deprecation(capsys):
    """``docs/ORACLE.md`` opens with a PettingZoo example: it runs as written, with the
    environment's deprecation warnings turned into errors, and prints its rates."""
    import re
    import warnings
    from pathlib import Path

    if not hasattr(require("pettingzoo"), "make"):
        pytest.fail("the docs' example needs pettingzoo 1.27 or later: pip install -e '.[test]'")
    text = (Path(__file__).resolve().parents[1] / "docs" / "ORACLE.md").read_text()
    example = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        exec(compile(example, "docs/ORACLE.md", "exec"), {})
    printed = capsys.readouterr().out
    assert re.fullmatch(r"\d+ moves: \d+% perfect, \d+% good\n", printed), printed
