"""Benchmark: games in each environment adapter of ``openingbook.agents``, the perfect
player moving first against uniformly random play (docs/AGENTS.md, "Speed").

Usage: ``python benchmarks/bench_agents.py [--games 100] [--opponent perfect]``
(``--opponent`` a level 1-10 too); needs the ``agents`` extra and
``kaggle-environments`` (the ``test`` extra). Prints, per adapter, the games won, drawn
and lost by the library's player and the wall time, its oracle's first use included.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import pettingzoo
import pyspiel
from kaggle_environments import make
from open_spiel.python.bots.uniform_random import UniformRandomBot

import openingbook.agents as agents


def report(name: str, returns: list[float], start: float) -> None:
    won = sum(r > 0 for r in returns)
    drawn = sum(r == 0 for r in returns)
    print(
        f"{name}: {len(returns)} games, the library first: {won} won, {drawn} drawn, "
        f"{len(returns) - won - drawn} lost, {time.perf_counter() - start:.1f} s",
        flush=True,
    )


def gymnasium_games(games: int, opponent: str | int) -> list[float]:
    env = gymnasium.make(agents.ENV_ID, opponent=opponent, agent_plays="second")
    rng, returns = np.random.default_rng(0), []
    for game in range(games):
        obs, _ = env.reset(seed=game)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, done, _, _ = env.step(action)
        returns.append(-reward)  # the library's return
    return returns


def pettingzoo_games(games: int, opponent: str | int) -> list[float]:
    aec = pettingzoo.make("aec", "classic/connect_four-v3")
    env = agents.OpponentWrapper(aec, opponent, opponent_agent="player_0")
    rng, returns = np.random.default_rng(1), []
    for game in range(games):
        env.reset(seed=game)
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            action = None
            if termination or truncation:
                returns.append(-reward)
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
    return returns


def openspiel_games(games: int, opponent: str | int) -> list[float]:
    game = pyspiel.load_game("connect_four")
    returns = []
    for seed in range(games):
        bots = [
            agents.OpenSpielBot(opponent, 0, seed=seed),
            UniformRandomBot(1, np.random.RandomState(seed)),
        ]
        returns.append(pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)[0])
    return returns


def kaggle_games(games: int, opponent: str | int) -> list[float]:
    env = make("connectx")
    agent = agents.kaggle_agent_at(opponent)
    return [env.run([agent, "random"])[-1][0]["reward"] for _ in range(games)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--opponent", default="perfect")
    args = parser.parse_args()
    opponent = args.opponent if args.opponent == "perfect" else int(args.opponent)
    for name, play in [
        ("gymnasium", gymnasium_games),
        ("pettingzoo", pettingzoo_games),
        ("openspiel", openspiel_games),
        ("kaggle", kaggle_games),
    ]:
        start = time.perf_counter()
        report(name, play(args.games, opponent), start)


if __name__ == "__main__":
    main()
