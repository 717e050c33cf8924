"""Judging agents by perfect play: move rates, and a perfect-play opponent.

:func:`rate_moves` scores an agent's chosen moves against an
:class:`~openingbook.oracle.OracleAnswer`: a move is *perfect* when it is one of the
position's optimal moves (the highest score: fastest win, slowest loss), and *good*
when it keeps the position's outcome (a won position stays won, a drawn one drawn;
in a lost position every legal move is good).

:class:`PerfectPlayer` plays from scores: at temperature 0 one of the optimal moves,
above it a softmax over the legal moves' scores (``p ~ exp(score / temperature)``:
temperature 1 still strongly prefers better moves, 10 plays nearly at random). Ties
are broken by ``tie_break``: ``"random"`` (uniformly among the equal moves, from the
player's seeded generator: the same seed plays the same game) or ``"centre"`` (the
move nearest the centre, the left one of two as near, as
:meth:`openingbook.engine.Engine.best`). It is a policy ``(observation, action_mask)
-> action`` for a PettingZoo ``connect_four_v3`` loop (or another layout).

>>> from openingbook.oracle import Oracle
>>> oracle = Oracle()
>>> answer = oracle.analyze(["", "4453"])
>>> rates = rate_moves(answer, [3, 0])
>>> rates.perfect.tolist(), rates.good.tolist(), rates.perfect_rate, rates.good_rate
([True, False], [True, True], 0.5, 1.0)
>>> player = PerfectPlayer(oracle, layout="moves", tie_break="centre")
>>> player("4453")
2
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from openingbook.errors import InvalidArgument
from openingbook.layouts import read_batch
from openingbook.oracle import Oracle, OracleAnswer

__all__ = [
    "LEVELS",
    "LEVEL_MISTAKE_RATES",
    "TIE_BREAKS",
    "LevelPlayer",
    "MoveRates",
    "PerfectPlayer",
    "rate_moves",
]

#: How :class:`PerfectPlayer` chooses among moves of the same score.
TIE_BREAKS = ("random", "centre")

#: The chance that :class:`LevelPlayer` at each level (1 to 10) makes a mistake, per
#: move, in a position it does not lose and where a move changes the outcome: the
#: rates halve from level to level (level 10 never errs), so that each level throws
#: away a won or drawn position about half as often as the one below it.
LEVEL_MISTAKE_RATES = {
    1: 0.5,
    2: 0.25,
    3: 0.125,
    4: 0.0625,
    5: 0.03125,
    6: 0.015625,
    7: 0.0078125,
    8: 0.00390625,
    9: 0.001953125,
    10: 0.0,
}
#: The levels of :class:`LevelPlayer`, weakest first.
LEVELS = tuple(LEVEL_MISTAKE_RATES)


@dataclass
class MoveRates:
    """The judgement of B chosen moves: per row ``perfect``, ``good`` and ``illegal``
    (a full column or no column; never perfect nor good) and ``judged`` (the row was
    answered; the rates count only these); the rates over the judged rows (``nan``
    when none is)."""

    perfect: np.ndarray
    good: np.ndarray
    illegal: np.ndarray
    judged: np.ndarray

    @property
    def count(self) -> int:
        return int(self.judged.sum())

    @property
    def perfect_rate(self) -> float:
        return float(self.perfect[self.judged].mean()) if self.count else float("nan")

    @property
    def good_rate(self) -> float:
        return float(self.good[self.judged].mean()) if self.count else float("nan")


def rate_moves(answer: OracleAnswer, actions: Any) -> MoveRates:
    """Judge ``actions`` (B 0-based columns, one per row of ``answer``).

    Raises :class:`~openingbook.errors.InvalidArgument` when ``actions`` are not B
    integers."""
    try:
        acts = np.asarray(actions)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"actions: not an array ({exc})") from None
    if acts.ndim != 1 or len(acts) != len(answer) or (acts.size and acts.dtype.kind not in "iu"):
        raise InvalidArgument(
            f"actions: expected {len(answer)} integer columns, got shape {acts.shape}"
        )
    width = answer.scores.shape[1]
    judged = answer.answered.copy()
    inside = (acts >= 0) & (acts < width)
    col = np.where(inside, acts, 0).astype(np.int64)
    rows = np.arange(len(acts))
    legal = inside & answer.playable[rows, col]
    perfect = legal & answer.optimal[rows, col]
    good = legal & (answer.winners[rows, col] == answer.value_winner)
    # in a lost position every legal move keeps the outcome
    mover = np.where(answer.stones % 2 == 0, 1, -1)
    good |= legal & (answer.value_winner == -mover)
    return MoveRates(perfect & judged, good & judged, ~legal & judged, judged)


class PerfectPlayer:
    """A perfect-play opponent (see the module docstring).

    ``oracle``: the oracle to ask (default: a new one with the shipped books);
    ``temperature``: 0 for exact play, above 0 a softmax over the scores;
    ``tie_break``: one of :data:`TIE_BREAKS`; ``seed``: of the player's random
    generator (None: fresh entropy); ``layout``: of the observations it is given
    (default PettingZoo's). Calling it with one observation (and its action mask)
    returns one column; :meth:`act` chooses for a batch.
    """

    def __init__(
        self,
        oracle: Oracle | None = None,
        *,
        temperature: float = 0.0,
        tie_break: str = "random",
        seed: int | None = None,
        layout: str | None = "pettingzoo",
    ) -> None:
        if (
            isinstance(temperature, bool)
            or not isinstance(temperature, numbers.Real)
            or not temperature >= 0
        ):
            raise InvalidArgument(
                "expected a number >= 0", argument="temperature", value=temperature
            )
        if tie_break not in TIE_BREAKS:
            raise InvalidArgument(
                f"expected one of {', '.join(TIE_BREAKS)}", argument="tie_break", value=tie_break
            )
        self.oracle = Oracle() if oracle is None else oracle
        self.temperature = float(temperature)
        self.tie_break = tie_break
        self.layout = layout
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: Any, action_mask: Any = None) -> int:
        """One column (0-based) for one position (an observation of :attr:`layout`)."""
        mask = None if action_mask is None else np.asarray(action_mask)[None]
        return int(self.act(observation, action_mask=mask)[0])

    def act(self, batch: Any, action_mask: Any = None, **layout_options: Any) -> np.ndarray:
        """Columns (0-based) for a batch of positions; refuses (as
        :meth:`openingbook.oracle.Oracle.analyze`) a row that is not a position."""
        read = read_batch(
            batch,
            self.layout,
            board=self.oracle.board,
            action_mask=action_mask,
            **layout_options,
        )
        answer = self.oracle.answer(read)
        return self.choose(answer)

    def choose(self, answer: OracleAnswer) -> np.ndarray:
        """The player's columns for the positions of ``answer`` (all answered)."""
        if not answer.answered.all():
            raise InvalidArgument("every row must be answered to choose a move")
        width = answer.scores.shape[1]
        legal = answer.playable
        if self.temperature == 0:
            candidates = answer.optimal
        else:
            scores = np.where(legal, answer.scores, 0).astype(np.float64)
            logits = (scores - scores.max(axis=1, keepdims=True)) / self.temperature
            weights = np.where(legal, np.exp(logits), 0.0)
            probs = weights / weights.sum(axis=1, keepdims=True)
            cumulative = probs.cumsum(axis=1)
            draw = self.rng.random(len(answer))[:, None] * cumulative[:, -1:]
            picked = np.minimum((cumulative <= draw).sum(axis=1), width - 1)
            # a sampled score; the tie-break picks among the moves of that score
            picked_score = answer.scores[np.arange(len(answer)), picked]
            candidates = legal & (answer.scores == picked_score[:, None])
        if self.tie_break == "centre":
            order = sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c))
            ranked = candidates[:, order]
            return np.asarray(order)[np.argmax(ranked, axis=1)]
        keys = self.rng.random(candidates.shape)
        return np.argmax(np.where(candidates, keys, -1.0), axis=1)


class LevelPlayer(PerfectPlayer):
    """A player of a known strength: level 1 (weakest) to 10 (perfect).

    At every move it plays as :class:`PerfectPlayer` at temperature 0 (one of the
    optimal moves), except that in a position it does not lose, where at least one
    legal move changes the outcome (throws a win away to a draw or a loss, or a draw
    to a loss), it plays such a move, chosen uniformly among them, with the
    probability :data:`LEVEL_MISTAKE_RATES` gives its level. ``oracle``,
    ``tie_break``, ``seed`` and ``layout`` are :class:`PerfectPlayer`'s.

    >>> from openingbook.oracle import Oracle
    >>> LevelPlayer(10, Oracle(), layout="moves", tie_break="centre")("4453")
    2
    """

    def __init__(
        self,
        level: int,
        oracle: Oracle | None = None,
        *,
        tie_break: str = "random",
        seed: int | None = None,
        layout: str | None = "pettingzoo",
    ) -> None:
        if (
            isinstance(level, bool)
            or not isinstance(level, numbers.Integral)
            or (level not in LEVEL_MISTAKE_RATES)
        ):
            raise InvalidArgument(
                f"expected a level from {LEVELS[0]} to {LEVELS[-1]}", argument="level", value=level
            )
        super().__init__(oracle, tie_break=tie_break, seed=seed, layout=layout)
        self.level = int(level)
        self.mistake_rate = LEVEL_MISTAKE_RATES[self.level]

    def __repr__(self) -> str:
        return f"LevelPlayer({self.level})"

    def choose(self, answer: OracleAnswer) -> np.ndarray:
        """The player's columns for the positions of ``answer`` (all answered)."""
        columns = super().choose(answer)
        mistakes = answer.playable & (answer.winners != answer.value_winner[:, None])
        mover = np.where(answer.stones % 2 == 0, 1, -1)
        can_err = mistakes.any(axis=1) & (answer.value_winner != -mover)
        errs = can_err & (self.rng.random(len(answer)) < self.mistake_rate)
        if errs.any():
            keys = self.rng.random(mistakes.shape)
            wrong = np.argmax(np.where(mistakes, keys, -1.0), axis=1)
            columns = np.where(errs, wrong, columns)
        return columns
