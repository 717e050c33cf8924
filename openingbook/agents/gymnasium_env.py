"""Connect Four as a Gymnasium single-agent environment: the agent plays one side, the
library the other.

``gymnasium.make("openingbook/ConnectFour-v0", opponent=...)`` after ``import
openingbook.agents`` (or ``ConnectFourEnv(...)``). The observation is PettingZoo's
``connect_four_v3`` one, from the agent's view: a dict of ``"observation"``, ``(6, 7,
2)`` int8 planes (row 0 at the top; plane 0 the agent's stones, plane 1 the
opponent's), and ``"action_mask"``, ``(7,)`` int8 (1 for each column not full; all 0
once the game is over). The action is a column, ``Discrete(7)``. The reward is +1 for
a win, -1 for a loss, 0 for a draw, given at the step that ends the game (0 before).
An illegal action (a full column) loses: the episode terminates with reward -1 and
``info["illegal_action"]`` True (else False), the board unchanged (Kaggle ConnectX's
rule); an action outside ``Discrete(7)``, or a step after the end, raises
:class:`~openingbook.errors.InvalidArgument`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from openingbook.agents.shared import (
    action_mask_of,
    as_policy,
    board_text,
    checked_column,
    oracle_for,
    planes_of,
    reseed,
)
from openingbook.errors import InvalidArgument
from openingbook.evaluation import make_player
from openingbook.oracle import Oracle
from openingbook.solver import Position

__all__ = ["AGENT_SIDES", "ConnectFourEnv"]

#: Which side the agent can play: ``"random"`` draws first or second at each reset.
AGENT_SIDES = ("first", "second", "random")


class ConnectFourEnv(gymnasium.Env):
    """Connect Four against ``opponent`` (see the module docstring).

    ``opponent``: ``"perfect"`` (:class:`~openingbook.evaluation.PerfectPlayer`), a
    level 1-10 (:class:`~openingbook.evaluation.LevelPlayer`), or a policy
    ``(observation, action_mask) -> column`` given the PettingZoo planes from the
    opponent's view. ``agent_plays``: one of :data:`AGENT_SIDES`. ``render_mode``:
    ``"ansi"`` (:meth:`render` returns the board as text) or ``"human"`` (prints it).
    ``oracle``: the library opponent's (default: one shared by the process).
    ``reset(seed=...)`` seeds the side drawn and the library opponent's choices (a
    policy of yours keeps its own randomness). ``info`` holds ``"agent_plays"``
    (``"first"`` or ``"second"``), ``"moves"`` (the game so far, 1-based columns, as
    :meth:`openingbook.oracle.Oracle.analyze` reads them), ``"opponent_action"`` (its
    last column, -1 before its first move) and ``"illegal_action"``; each has one type
    throughout, as Gymnasium's vector environments need.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        opponent: str | int | Callable[..., Any] = "perfect",
        agent_plays: str = "first",
        render_mode: str | None = None,
        oracle: Oracle | None = None,
    ) -> None:
        if agent_plays not in AGENT_SIDES:
            raise InvalidArgument(
                f"expected one of {', '.join(AGENT_SIDES)}",
                argument="agent_plays",
                value=agent_plays,
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidArgument(
                f"expected one of {', '.join(self.metadata['render_modes'])} or None",
                argument="render_mode",
                value=render_mode,
            )
        self.opponent = as_policy(make_player(opponent, oracle_for(opponent, oracle), None))
        self.agent_plays = agent_plays
        self.render_mode = render_mode
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (6, 7, 2), np.int8),
                "action_mask": spaces.Box(0, 1, (7,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(7)
        self._position = Position()
        self._mark = 1
        self._over = True
        self._opponent_action = -1
        self._illegal = False

    # ------------------------------------------------------------ the game
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        reseed(self.opponent, self.np_random)
        side = self.agent_plays
        if side == "random":
            side = AGENT_SIDES[int(self.np_random.integers(2))]
        self._mark = 1 if side == "first" else 2
        self._position = Position()
        self._over = False
        self._opponent_action = -1
        self._illegal = False
        if self._mark == 2:
            self._opponent_moves()
        self._render_if_human()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self._over:
            raise InvalidArgument("the game is over: call reset() to start another")
        if isinstance(action, bool) or not self.action_space.contains(action):
            raise InvalidArgument(f"action {action!r}: expected a column, an integer 0-6")
        col = int(action)
        if not self._position.can_play(col):
            self._over = self._illegal = True
            return self._observation(), -1.0, True, False, self._info()
        reward = self._play(col)
        if not self._over:
            reward = -self._opponent_moves()
        self._render_if_human()
        return self._observation(), reward, self._over, False, self._info()

    def _play(self, col: int) -> float:
        """Play ``col`` for the side to move: 1.0 if it wins (the game over), else 0.0."""
        wins = self._position.is_winning_move(col)
        self._position = self._position.play(col)
        self._over = wins or self._position.is_full()
        return 1.0 if wins else 0.0

    def _opponent_moves(self) -> float:
        """The opponent's move: 1.0 if it wins."""
        obs = planes_of(self._position, 3 - self._mark)
        mask = action_mask_of(self._position)
        self._opponent_action = checked_column(self.opponent(obs, mask), mask, "the opponent")
        return self._play(self._opponent_action)

    def _observation(self) -> dict[str, np.ndarray]:
        mask = np.zeros(7, np.int8) if self._over else action_mask_of(self._position)
        return {"observation": planes_of(self._position, self._mark), "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        return {
            "agent_plays": "first" if self._mark == 1 else "second",
            "moves": self._position.to_moves(),
            "opponent_action": self._opponent_action,
            "illegal_action": self._illegal,
        }

    # ------------------------------------------------------------ rendering
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: pass render_mode='ansi'")
            return None
        text = board_text(self._position)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def _render_if_human(self) -> None:
        if self.render_mode == "human":
            self.render()
