"""The environment adapters of ``openingbook.agents`` in the real environments
(Gymnasium, PettingZoo, OpenSpiel, Kaggle ConnectX: all in the ``test`` extra): the
Gymnasium environment passes ``check_env``; the perfect opponent moving first never
loses to random play in any adapter; a level makes mistakes, a policy plays, a seed
replays a game, an illegal action and a configuration the agents cannot play are
refused as documented (docs/AGENTS.md)."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

from openingbook.errors import InvalidArgument
from openingbook.evaluation import PerfectPlayer, rate_moves
from tests.helpers import ROOT, require


@pytest.fixture(scope="module")
def agents():
    return importlib.import_module("openingbook.agents")


def random_column(rng: np.random.Generator, mask) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# ---------------------------------------------------------------- the face
def test_import_loads_no_environment_package_but_gymnasiums_registry():
    code = (
        "import sys, openingbook.agents as a; "
        "print(a.ENV_ID, sorted(m for m in ('pettingzoo', 'pyspiel', 'kaggle_environments', "
        "'openingbook.oracle', 'openingbook.evaluation', 'openingbook.agents.gymnasium_env') "
        "if m in sys.modules), 'gymnasium' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["openingbook/ConnectFour-v0", "[]", "True"], out.stdout


def test_import_without_gymnasium_registers_nothing_and_works():
    code = (
        "import sys; sys.modules['gymnasium'] = None\n"
        "import openingbook.agents as a\n"
        "print(a.ENV_ID, callable(a.kaggle_agent))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["openingbook/ConnectFour-v0", "True"], out.stderr


def test_the_face_refuses_unknown_names(agents):
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        agents.Nothing  # noqa: B018


# ---------------------------------------------------------------- Gymnasium
def make_env(agents, **kwargs):
    gymnasium = require("gymnasium")
    return gymnasium.make(agents.ENV_ID, **kwargs)


@pytest.mark.parametrize("opponent", ["perfect", 3, "policy"])
def test_gymnasium_env_passes_check_env(agents, opponent):
    from gymnasium.utils.env_checker import check_env

    if opponent == "policy":
        opponent = lambda obs, mask: int(np.flatnonzero(mask)[0])  # noqa: E731
    env = make_env(agents, opponent=opponent, agent_plays="random", render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # check_env's warnings are failures too
        check_env(env.unwrapped)
    assert env.observation_space["observation"].shape == (6, 7, 2)
    assert env.action_space.n == 7


def play_gymnasium(env, seed: int, rng: np.random.Generator):
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        assert obs["observation"].sum() == len(info["moves"])
        obs, reward, done, truncated, info = env.step(random_column(rng, obs["action_mask"]))
        assert not truncated
    assert not obs["action_mask"].any()  # the game is over: no legal action
    return reward, info


def test_gymnasium_perfect_opponent_first_never_loses(agents):
    env = make_env(agents, opponent="perfect", agent_plays="second")
    rng = np.random.default_rng(0)
    for game in range(20):
        reward, info = play_gymnasium(env, game, rng)
        assert info["agent_plays"] == "second"
        assert reward == -1.0, (game, info["moves"])


def test_gymnasium_observation_is_the_agents_view(agents):
    env = make_env(agents, opponent="perfect", agent_plays="second")
    obs, info = env.reset(seed=0)
    col = info["opponent_action"]
    # the opponent's first stone: the bottom row of its column, in plane 1 (the opponent's)
    assert info["moves"] == str(col + 1)
    assert obs["observation"][5, col].tolist() == [0, 1]
    assert obs["observation"].sum() == 1
    assert obs["action_mask"].tolist() == [1] * 7


def test_gymnasium_observation_is_pettingzoos_so_a_perfect_agent_first_wins(agents):
    """The agent's observation is the one PettingZoo gives the player to move: the
    perfect player reading it as such, moving first, beats even level 10."""
    env = make_env(agents, opponent=10, agent_plays="first")
    perfect = PerfectPlayer(agents.shared_oracle(), seed=0)
    for game in range(3):
        obs, info = env.reset(seed=game)
        done = False
        while not done:
            action = perfect(obs["observation"], obs["action_mask"])
            obs, reward, done, _, info = env.step(action)
        assert reward == 1.0 and not info["illegal_action"], info["moves"]


def test_gymnasium_vector_environments_play(agents):
    gymnasium = require("gymnasium")
    envs = gymnasium.make_vec(agents.ENV_ID, num_envs=3, opponent=4, agent_plays="random")
    obs, _ = envs.reset(seed=0)
    assert obs["observation"].shape == (3, 6, 7, 2)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(40):
        actions = [random_column(rng, m) if m.any() else 0 for m in obs["action_mask"]]
        obs, rewards, terminations, _, _ = envs.step(np.array(actions))
        finished += int(terminations.sum())
        assert set(rewards[terminations].tolist()) <= {-1.0, 0.0, 1.0}
    assert finished >= 3
    envs.close()


def test_gymnasium_seed_replays_a_game_and_other_seeds_differ(agents):
    games = []
    for seed in (7, 7, 8, 9, 10):
        env = make_env(agents, opponent=2, agent_plays="random")
        reward, info = play_gymnasium(env, seed, np.random.default_rng(0))
        games.append((info["agent_plays"], info["moves"], reward))
    assert games[0] == games[1]
    assert len(set(games)) > 2, games


def test_gymnasium_illegal_action_loses_and_a_step_after_the_end_raises(agents):
    # both sides fill column 0: the agent's 4th stone there is illegal
    first_column = lambda obs, mask: int(np.flatnonzero(mask)[0])  # noqa: E731
    env = make_env(agents, opponent=first_column, agent_plays="first", render_mode="ansi")
    env.reset(seed=0)
    for _ in range(3):
        obs, reward, done, _, info = env.step(0)
        assert (reward, done) == (0.0, False)
    assert obs["action_mask"][0] == 0 and info["moves"] == "111111"
    before = env.render()
    obs, reward, done, truncated, info = env.step(0)
    assert (reward, done, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not obs["action_mask"].any()
    assert env.render() == before and info["moves"] == "111111"
    with pytest.raises(InvalidArgument, match="the game is over"):
        env.step(1)
    env.reset(seed=0)
    for bad in (7, -1, True, 2.5, "3"):
        with pytest.raises(InvalidArgument, match="expected a column"):
            env.step(bad)


def test_gymnasium_policy_opponent_sees_its_own_view(agents):
    seen = []

    def policy(observation, action_mask):
        seen.append((observation[..., 0].sum(), observation[..., 1].sum()))
        return int(np.flatnonzero(action_mask)[-1])

    env = make_env(agents, opponent=policy, agent_plays="first")
    env.reset(seed=0)
    env.step(3)
    env.step(3)
    # the opponent (second) had 0 then 1 stones of its own, the agent 1 then 2
    assert seen == [(0, 1), (1, 2)]


def test_gymnasium_policy_opponent_playing_a_full_column_is_refused(agents):
    env = make_env(agents, opponent=lambda obs, mask: 0, agent_plays="first")
    env.reset(seed=0)
    for _ in range(2):
        env.step(0)
    with pytest.raises(InvalidArgument, match="the opponent chose column 0, which is not a legal"):
        env.step(0)  # the agent's 3rd, the column's 5th stone; the opponent's 6th fits...
        env.step(1)  # ... and its next one in column 0 does not


def test_gymnasium_refuses_bad_arguments(agents):
    for kwargs, fragment in [
        ({"opponent": "perfekt"}, "player perfekt:"),
        ({"opponent": 11}, "level 11"),
        ({"agent_plays": "last"}, "agent_plays last:"),
        ({"render_mode": "rgb_array"}, "render_mode rgb_array:"),
    ]:
        with pytest.raises(InvalidArgument, match=fragment):
            agents.ConnectFourEnv(**kwargs)


def opponent_moves_all_good(opponent, games: int) -> list[bool]:
    """Whether each of the opponent's moves (moving first, in positions of at most 12
    stones, against random play) kept the game's outcome, judged by the oracle."""
    from openingbook.agents import ConnectFourEnv, shared_oracle

    env = ConnectFourEnv(opponent=opponent, agent_plays="second")
    rng = np.random.default_rng(5)
    lines, chosen = [], []
    for game in range(games):
        _, info = play_gymnasium(env, game, rng)
        moves = info["moves"]
        for ply in range(0, min(len(moves), 13), 2):  # the opponent's plies
            lines.append(moves[:ply])
            chosen.append(int(moves[ply]) - 1)
    rates = rate_moves(shared_oracle().analyze(lines), chosen)
    return rates.good.tolist()


def test_a_level_opponent_throws_outcomes_away_and_perfect_never():
    assert all(opponent_moves_all_good("perfect", 6))
    assert not all(opponent_moves_all_good(1, 6))


# ---------------------------------------------------------------- PettingZoo
def pettingzoo_env(agents, opponent, opponent_agent: str):
    pettingzoo = require("pettingzoo")
    return agents.OpponentWrapper(
        pettingzoo.make("aec", "classic/connect_four-v3"), opponent, opponent_agent=opponent_agent
    )


def play_pettingzoo(env, seed: int, rng: np.random.Generator):
    env.reset(seed=seed)
    learners, final = set(), None
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _info = env.last()
        learners.add(agent)
        if termination or truncation:
            final, action = reward, None
        else:
            action = random_column(rng, obs["action_mask"])
        env.step(action)
    return final, learners


def test_pettingzoo_perfect_opponent_first_never_loses_and_only_the_learner_is_asked(agents):
    env = pettingzoo_env(agents, "perfect", "player_0")
    rng = np.random.default_rng(1)
    for game in range(20):
        reward, learners = play_pettingzoo(env, game, rng)
        assert learners == {"player_1"}
        assert reward == -1, game


def test_pettingzoo_seed_replays_the_opponent(agents):
    def game(seed):
        env = pettingzoo_env(agents, 1, "player_0")
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else random_column(rng, obs["action_mask"]))
        return env.unwrapped.board[:]

    assert game(3) == game(3)
    assert len({tuple(game(s)) for s in (3, 4, 5, 6)}) > 1


def test_pettingzoo_refuses_an_unknown_agent(agents):
    with pytest.raises(InvalidArgument, match="opponent_agent player_2:"):
        pettingzoo_env(agents, "perfect", "player_2")


# ---------------------------------------------------------------- OpenSpiel
def test_openspiel_perfect_bot_first_never_loses(agents):
    pyspiel = require("pyspiel")
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    game = pyspiel.load_game("connect_four")
    for seed in range(20):
        bots = [agents.OpenSpielBot("perfect", 0, seed=seed), UniformRandomBot(1, np.random)]
        np.random.seed(seed)
        assert pyspiel.evaluate_bots(game.new_initial_state(), bots, seed) == [1.0, -1.0]


def test_openspiel_level_bot_loses_to_the_perfect_bot_from_known_seeds(agents):
    """Level 1 moving first (a won position) throws the win away: the perfect second
    player wins games that perfect play as first player never loses."""
    pyspiel = require("pyspiel")
    game = pyspiel.load_game("connect_four")
    returns = [
        pyspiel.evaluate_bots(
            game.new_initial_state(),
            [agents.OpenSpielBot(1, 0, seed=seed), agents.OpenSpielBot("perfect", 1, seed=seed)],
            seed,
        )[0]
        for seed in range(2)
    ]
    assert min(returns) < 0, returns


def test_openspiel_bot_refuses_other_games_turns_and_strengths(agents):
    pyspiel = require("pyspiel")
    bot = agents.OpenSpielBot("perfect", 1)
    with pytest.raises(InvalidArgument, match="plays connect_four, not tic_tac_toe"):
        bot.step(pyspiel.load_game("tic_tac_toe").new_initial_state())
    with pytest.raises(InvalidArgument, match="player 1 is not to move"):
        bot.step(pyspiel.load_game("connect_four").new_initial_state())
    for strength, fragment in [("best", "player best:"), (0, "level 0"), (print, "strength")]:
        with pytest.raises(InvalidArgument, match=fragment):
            agents.OpenSpielBot(strength, 0)
    with pytest.raises(InvalidArgument, match="player_id 2"):
        agents.OpenSpielBot("perfect", 2)


# ---------------------------------------------------------------- Kaggle ConnectX
@pytest.fixture(scope="module")
def connectx():
    return require("kaggle_environments").make("connectx")


def test_kaggle_agent_first_never_loses_to_random(agents, connectx):
    for _ in range(20):
        last = connectx.run([agents.kaggle_agent, "random"])[-1]
        assert [(s["reward"], s["status"]) for s in last] == [(1, "DONE"), (-1, "DONE")]


def test_kaggle_level_agent_plays_and_refuses_what_is_not_a_strength(agents, connectx):
    last = connectx.run(["random", agents.kaggle_agent_at(10)])[-1]
    assert [s["status"] for s in last] == ["DONE", "DONE"]
    for strength, fragment in [(11, "level 11"), ("best", "player best:"), (len, "strength")]:
        with pytest.raises(InvalidArgument, match=fragment):
            agents.kaggle_agent_at(strength)


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"columns": 8}, "columns 8 (expected 7)"),
        ({"rows": 7}, "rows 7 (expected 6)"),
        ({"inarow": 5}, "inarow 5 (expected 4)"),
    ],
)
def test_kaggle_agent_refuses_other_configurations(agents, change, fragment):
    config = {"columns": 7, "rows": 6, "inarow": 4, **change}
    board = [0] * (config["columns"] * config["rows"])
    with pytest.raises(
        InvalidArgument, match=r"plays ConnectX on 7 columns.*" + re.escape(fragment)
    ) as caught:
        agents.kaggle_agent({"board": board, "mark": 1}, config)
    assert "\n" not in str(caught.value)


def test_kaggle_agent_in_another_configuration_is_an_error_in_the_run(agents):
    env = require("kaggle_environments").make("connectx", configuration={"inarow": 5})
    last = env.run([agents.kaggle_agent, "random"])[-1]
    assert last[0]["status"] == "ERROR"


def test_kaggle_agent_reads_the_mark_and_answers_as_the_perfect_player(agents):
    board = [0] * 42
    board[38] = 1  # the first stone, in the middle column
    assert agents.kaggle_agent({"board": board, "mark": 2}, None) == 3
    with pytest.raises(InvalidArgument, match="mark 1 is to move"):
        agents.kaggle_agent({"board": board, "mark": 1}, None)
    player = PerfectPlayer(agents.shared_oracle(), tie_break="centre", layout="connectx")
    assert player({"board": board, "mark": 2}) == 3


# ---------------------------------------------------------------- 100 games each
@pytest.mark.slow
def test_a_hundred_games_in_each_adapter_perfect_first_never_loses(agents, connectx):
    pyspiel = require("pyspiel")
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    rng = np.random.default_rng(100)
    env = make_env(agents, opponent="perfect", agent_plays="second")
    assert all(play_gymnasium(env, g, rng)[0] == -1.0 for g in range(100))
    env = pettingzoo_env(agents, "perfect", "player_0")
    assert all(play_pettingzoo(env, g, rng)[0] == -1 for g in range(100))
    game = pyspiel.load_game("connect_four")
    for g in range(100):
        bots = [agents.OpenSpielBot("perfect", 0, seed=g), UniformRandomBot(1, np.random)]
        assert pyspiel.evaluate_bots(game.new_initial_state(), bots, g)[0] == 1.0
    for _ in range(100):
        assert connectx.run([agents.kaggle_agent, "random"])[-1][0]["reward"] == 1
