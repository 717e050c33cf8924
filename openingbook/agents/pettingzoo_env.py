"""PettingZoo's ``connect_four_v3`` with one of its two agents played by the library.

:class:`OpponentWrapper` is an AEC wrapper: the opponent's agent moves inside
``reset()`` and ``step()``, so that ``env.agent_iter()`` yields only the learning
agent; everything else is the environment's own (observations, action masks,
rewards, rendering, and its rule for an illegal move: the game ends, -1 for the
agent that made it). At the end the opponent's last ``step(None)`` is made for it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo.utils import BaseWrapper
from pettingzoo.utils.env import AECEnv

from openingbook.agents.shared import as_policy, checked_column, oracle_for, reseed
from openingbook.errors import InvalidArgument
from openingbook.evaluation import make_player
from openingbook.oracle import Oracle

__all__ = ["OpponentWrapper"]


class OpponentWrapper(BaseWrapper):
    """``env`` (PettingZoo ``connect_four_v3``, AEC) with ``opponent_agent``
    (``"player_1"``, moving second, by default; ``"player_0"`` moves first) played by
    ``opponent``: ``"perfect"``, a level 1-10, or a policy ``(observation,
    action_mask) -> column`` (as :class:`~openingbook.evaluation.PerfectPlayer`).
    ``reset(seed=...)`` seeds the library opponent's choices too (later resets without
    a seed go on from it); ``oracle``: the library opponent's (default: one shared by
    the process).
    """

    def __init__(
        self,
        env: AECEnv,
        opponent: str | int | Callable[..., Any] = "perfect",
        *,
        opponent_agent: str = "player_1",
        oracle: Oracle | None = None,
    ) -> None:
        super().__init__(env)
        agents = list(getattr(env, "possible_agents", []))
        if opponent_agent not in agents:
            raise InvalidArgument(
                f"expected one of the environment's agents ({', '.join(agents)})",
                argument="opponent_agent",
                value=opponent_agent,
            )
        self.opponent = as_policy(make_player(opponent, oracle_for(opponent, oracle), None))
        self.opponent_agent = opponent_agent
        self._rng = np.random.default_rng()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        reseed(self.opponent, self._rng)
        self._opponent_turns()

    def step(self, action: Any) -> None:
        self.env.step(action)
        self._opponent_turns()

    def _opponent_turns(self) -> None:
        """Play the opponent's agent while it is selected: its move, or its last
        ``step(None)`` once the game is over."""
        agent = self.opponent_agent
        while self.env.agents and self.env.agent_selection == agent:
            if self.env.terminations[agent] or self.env.truncations[agent]:
                self.env.step(None)
                continue
            obs = self.env.observe(agent)
            col = self.opponent(obs["observation"], obs["action_mask"])
            self.env.step(checked_column(col, obs["action_mask"], "the opponent"))
