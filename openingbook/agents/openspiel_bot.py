"""An OpenSpiel bot for ``connect_four``: perfect play, or a level.

:class:`OpenSpielBot` is a ``pyspiel.Bot``: ``bot.step(state)`` returns its action
(a 0-based column) in a state of ``pyspiel.load_game("connect_four")``, read from the
state's history; it keeps no state between moves, so ``restart_at`` and the
``inform_action`` calls cost nothing, and ``pyspiel.evaluate_bots`` plays it.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from openingbook.agents.shared import oracle_for
from openingbook.errors import InvalidArgument
from openingbook.evaluation import make_player
from openingbook.oracle import Oracle

__all__ = ["OpenSpielBot"]


class OpenSpielBot(pyspiel.Bot):
    """A ``pyspiel.Bot`` playing ``player_id`` (0 moves first) at ``strength``:
    ``"perfect"`` (:class:`~openingbook.evaluation.PerfectPlayer`) or a level 1-10
    (:class:`~openingbook.evaluation.LevelPlayer`). ``seed`` seeds its choices among
    equal moves (and a level's mistakes); ``oracle``: default one shared by the process.
    """

    def __init__(
        self,
        strength: str | int = "perfect",
        player_id: int = 0,
        *,
        seed: int | None = None,
        oracle: Oracle | None = None,
    ) -> None:
        pyspiel.Bot.__init__(self)
        if callable(strength):
            raise InvalidArgument(
                "expected 'perfect' or a level from 1 to 10", argument="strength", value=strength
            )
        if isinstance(player_id, bool) or player_id not in (0, 1):
            raise InvalidArgument("expected 0 or 1", argument="player_id", value=player_id)
        self._player = make_player(strength, oracle_for(strength, oracle), seed)
        self._player_id = int(player_id)

    def __repr__(self) -> str:
        return f"OpenSpielBot({self._player!r}, player_id={self._player_id})"

    def player_id(self) -> int:
        return self._player_id

    def restart_at(self, state: Any) -> None:
        pass

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return False

    def step(self, state: Any) -> int:
        game = state.get_game()
        if game.get_type().short_name != "connect_four" or game.num_distinct_actions() != 7:
            raise InvalidArgument(
                f"OpenSpielBot plays connect_four, not {game.get_type().short_name}"
            )
        if state.is_terminal() or state.current_player() != self._player_id:
            raise InvalidArgument(
                f"player {self._player_id} is not to move in this state (the game is over "
                "or it is the other player's turn)"
            )
        answer = self._player.oracle.analyze([state.history()], "actions")
        return int(self._player.choose(answer)[0])
