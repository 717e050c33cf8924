"""Kaggle ConnectX agents: perfect play, or a level, as a function of ``(observation,
configuration)``.

Kaggle calls an agent positionally with the observation (``board``: 42 cells,
row-major from the top, 0 empty, 1 and 2 the marks; ``mark``: the agent's, 1 moving
first) and the configuration (``columns``, ``rows``, ``inarow``); the agent returns a
0-based column. :func:`kaggle_agent` plays perfectly; :func:`kaggle_agent_at` makes
an agent of a level. Both refuse a configuration other than 7 columns, 6 rows and 4
in a row with :class:`~openingbook.errors.InvalidArgument`. No package is needed:
``kaggle_environments`` (to play games locally) is the caller's.

>>> board = [0] * 42
>>> board[38] = 1  # the first stone, in the middle column
>>> kaggle_agent({"board": board, "mark": 2}, {"columns": 7, "rows": 6, "inarow": 4})
3
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from openingbook.agents.shared import shared_oracle
from openingbook.errors import InvalidArgument
from openingbook.evaluation import make_player

__all__ = ["CONNECTX_CONFIGURATION", "kaggle_agent", "kaggle_agent_at"]

#: The only ConnectX configuration the agents play (Kaggle's default).
CONNECTX_CONFIGURATION = {"columns": 7, "rows": 6, "inarow": 4}

#: The library players, one per strength, made on first use (sharing one oracle).
_PLAYERS: dict[Any, Any] = {}


def _player(strength: str | int) -> Any:
    if strength not in _PLAYERS:
        _PLAYERS[strength] = make_player(strength, shared_oracle(), None)
    return _PLAYERS[strength]


def _check_configuration(configuration: Any) -> None:
    """Refuse a configuration the agents cannot play (one line naming what differs)."""
    if configuration is None:
        return
    if not isinstance(configuration, Mapping):
        raise InvalidArgument(
            f"configuration: expected Kaggle's mapping, got {type(configuration).__name__}"
        )
    differs = [
        f"{key} {configuration[key]!r} (expected {want})"
        for key, want in CONNECTX_CONFIGURATION.items()
        if key in configuration and configuration[key] != want
    ]
    if differs:
        raise InvalidArgument(
            "this agent plays ConnectX on 7 columns, 6 rows, 4 in a row only, not "
            + ", ".join(differs)
        )


def _column(player: Any, observation: Any) -> int:
    """The column ``player`` chooses for a ConnectX observation."""
    answer = player.oracle.analyze(_observation(observation), "connectx")
    return int(player.choose(answer)[0])


def _observation(observation: Any) -> dict[str, Any]:
    if not isinstance(observation, Mapping) or "board" not in observation:
        raise InvalidArgument("observation: expected Kaggle's mapping with 'board' and 'mark'")
    obs = {"board": list(observation["board"])}
    if "mark" in observation:
        obs["mark"] = observation["mark"]
    return obs


def kaggle_agent(observation: Any, configuration: Any = None) -> int:
    """Perfect play for ConnectX (see the module docstring): one of the optimal columns,
    chosen at random among them."""
    _check_configuration(configuration)
    return _column(_player("perfect"), observation)


def kaggle_agent_at(strength: str | int) -> Callable[[Any, Any], int]:
    """A ConnectX agent of ``strength``: ``"perfect"`` or a level 1-10
    (:class:`~openingbook.evaluation.LevelPlayer`: its mistakes random, from fresh
    entropy), e.g. ``env.run([kaggle_agent_at(3), "random"])``."""
    if callable(strength):
        raise InvalidArgument(
            "expected 'perfect' or a level from 1 to 10", argument="strength", value=strength
        )
    _player(strength)  # refused here, when made, if it is not a strength

    def agent(observation: Any, configuration: Any = None) -> int:
        _check_configuration(configuration)
        return _column(_player(strength), observation)

    agent.__name__ = agent.__qualname__ = f"kaggle_agent_at_{strength}"
    return agent
