"""Judging agents by perfect play: move judgements, matches, players of known strength.

**Moves.** :func:`rate_moves` judges an agent's chosen moves against an
:class:`~openingbook.oracle.OracleAnswer` (a :class:`MoveRates`, per move):

* *perfect*: one of the position's optimal moves (the highest score: fastest win,
  slowest loss);
* *good*: keeps the position's outcome (a won position stays won, a drawn one drawn).
  In a lost position every legal move is good, so the good-move rate says little
  about an agent that plays a strong opponent: most of its moves are in lost
  positions (all of them for the second player against perfect play);
* *decisive*: made in a position not lost where some legal move changes the outcome,
  the moves where a mistake is possible; the *mistake rate* is the share of them that
  changed the outcome (for a :class:`LevelPlayer`, its level's rate);
* *blunder*: a legal move that changed the outcome, by kind (:data:`BLUNDER_KINDS`):
  a win thrown to a draw, a win to a loss, a draw to a loss;
* *value regret*: the position's score minus the move's, in Pons' score units (a win
  with one's own k-th stone scores 22 - k on 7x6, a draw 0): 0 for a perfect move;
* *distance regret*: for a move that keeps the outcome, the plies it adds to a win or
  takes from a loss (2 plies a score unit): 0 for a perfect move.

**Reports.** An :class:`AgentReport` sums one agent's results (games, wins, draws,
losses, :attr:`~AgentReport.score`) and judged moves over games, with the rates:
``perfect_rate``, ``good_rate``, ``lost_share`` (of the moves in lost positions),
``mistake_rate`` (of the decisive moves), ``mean_value_regret``,
``mean_distance_regret``. :func:`play_match` plays two players against each other,
both colours, all games advancing together (one oracle call per ply), and reports
every game (:class:`GameReport`) and each player (:class:`MatchResult`).

**Players.** :class:`PerfectPlayer` plays from scores: at temperature 0 one of the
optimal moves, above it a softmax over the legal moves' scores (``p ~ exp(score /
temperature)``: temperature 1 still strongly prefers better moves, 10 plays nearly at
random). Ties are broken by ``tie_break``: ``"random"`` (uniformly among the equal
moves, from the player's seeded generator: the same seed plays the same game) or
``"centre"`` (the move nearest the centre, the left one of two as near, as
:meth:`openingbook.engine.Engine.best`). It is a policy ``(observation, action_mask)
-> action`` for a PettingZoo ``connect_four_v3`` loop (or another layout).
:class:`LevelPlayer` is a perfect player that errs at a known rate (levels 1-10,
:data:`LEVEL_MISTAKE_RATES`); :func:`measure_levels` measures their results.

>>> from openingbook.oracle import Oracle
>>> oracle = Oracle()
>>> answer = oracle.analyze(["", "4453"])
>>> rates = rate_moves(answer, [3, 0])
>>> rates.perfect.tolist(), rates.good.tolist(), rates.perfect_rate, rates.good_rate
([True, False], [True, True], 0.5, 1.0)
>>> rates.value_regret.tolist(), rates.distance_regret.tolist(), rates.lost.tolist()
([0.0, 3.0], [0.0, 6.0], [False, True])
>>> player = PerfectPlayer(oracle, layout="moves", tie_break="centre")
>>> player("4453")
2
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from openingbook.errors import InvalidArgument
from openingbook.layouts import read_batch, write_boards
from openingbook.oracle import Oracle, OracleAnswer
from openingbook.solver import BoardSize, winning_cells_bits

__all__ = [
    "BLUNDER_KINDS",
    "LEVELS",
    "LEVEL_MISTAKE_RATES",
    "MOVE_COUNTS",
    "REPORT_RATES",
    "TIE_BREAKS",
    "AgentReport",
    "GameReport",
    "LevelPlayer",
    "MatchResult",
    "MoveRates",
    "PerfectPlayer",
    "Player",
    "level_pairs",
    "level_reports",
    "make_player",
    "measure_levels",
    "play_match",
    "player_name",
    "rate_moves",
]

#: How :class:`PerfectPlayer` chooses among moves of the same score.
TIE_BREAKS = ("random", "centre")

#: The chance that :class:`LevelPlayer` at each level (1 to 10) makes a mistake, per
#: move, in a position it does not lose and where a move changes the outcome. Level 1
#: errs at every other such move, level 10 never; between them the rates are chosen so
#: that, moving first against perfect play, level L keeps its won game in about
#: (L - 1) / 9 of the games: such a game asks about 15 moves where a mistake is
#: possible, so ``(1 - rate) ** 15`` is about ``(L - 1) / 9`` (rounded). The measured
#: results are in ``docs/LEVELS.md`` (``openingbook levels``).
LEVEL_MISTAKE_RATES = {
    1: 0.5,
    2: 0.14,
    3: 0.095,
    4: 0.07,
    5: 0.053,
    6: 0.038,
    7: 0.027,
    8: 0.017,
    9: 0.008,
    10: 0.0,
}
#: The levels of :class:`LevelPlayer`, weakest first.
LEVELS = tuple(LEVEL_MISTAKE_RATES)


#: The kinds of :attr:`MoveRates.blunder`, by code: a move that keeps the outcome
#: (0), throws a win away to a draw (1) or to a loss (2), or a draw to a loss (3).
BLUNDER_KINDS = ("none", "win_to_draw", "win_to_loss", "draw_to_loss")


@dataclass
class MoveRates:
    """The judgement of B chosen moves (see the module docstring), per row:

    * ``perfect``, ``good``, ``illegal`` (a full column or no column: neither perfect
      nor good) and ``judged`` (the row was answered: everything else counts these);
    * ``lost``: the position is lost for the side to move (every legal move is good);
    * ``decisive``: the position is not lost and a legal move changes its outcome (a
      mistake is possible: what :attr:`mistake_rate` counts);
    * ``blunder``: the code of :data:`BLUNDER_KINDS` (0 for a move that keeps the
      outcome, an illegal move and a row not judged);
    * ``value_regret``: the position's score minus the chosen move's (Pons score
      units: 0 for a perfect move; ``nan`` for an illegal move and a row not judged);
    * ``distance_regret``: for a move that keeps the outcome, the plies it adds to a
      win or takes from a loss against an optimal move (0 for a perfect move or a
      draw kept; ``nan`` for a move that changes the outcome, an illegal move and a
      row not judged).

    The rates are over the judged rows (``nan`` when there is none)."""

    perfect: np.ndarray
    good: np.ndarray
    illegal: np.ndarray
    judged: np.ndarray
    lost: np.ndarray | None = None
    decisive: np.ndarray | None = None
    blunder: np.ndarray | None = None
    value_regret: np.ndarray | None = None
    distance_regret: np.ndarray | None = None

    @property
    def count(self) -> int:
        return int(self.judged.sum())

    @property
    def perfect_rate(self) -> float:
        return float(self.perfect[self.judged].mean()) if self.count else float("nan")

    @property
    def good_rate(self) -> float:
        return float(self.good[self.judged].mean()) if self.count else float("nan")

    def report(self, rows: Any = None) -> AgentReport:
        """The sums of the judged moves (of ``rows``: a boolean mask or indices; None:
        every row) as an :class:`AgentReport` of no game."""
        tally = _tally(self)
        if rows is not None:
            tally = tally[np.asarray(rows)]
        return AgentReport(**dict(zip(MOVE_COUNTS, tally.sum(axis=0).tolist(), strict=True)))

    @property
    def mistake_rate(self) -> float:
        """The share of the decisive moves that changed the outcome (a legal move that
        threw a win or a draw away, or an illegal move)."""
        return self.report().mistake_rate

    @property
    def mean_value_regret(self) -> float:
        """The mean :attr:`value_regret` of the judged legal moves."""
        return self.report().mean_value_regret

    @property
    def mean_distance_regret(self) -> float:
        """The mean :attr:`distance_regret` of the judged moves that kept the outcome."""
        return self.report().mean_distance_regret


def rate_moves(answer: OracleAnswer, actions: Any) -> MoveRates:
    """Judge ``actions`` (B 0-based columns, one per row of ``answer``): a
    :class:`MoveRates`.

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
    legal = inside & answer.playable[rows, col] & judged
    # outcomes seen from the side to move: +1 a win, 0 a draw, -1 a loss
    mover = np.where(answer.stones % 2 == 0, 1, -1).astype(np.int64)
    before = np.where(judged, answer.value_winner.astype(np.int64) * mover, 0)
    after = np.where(legal, answer.winners[rows, col].astype(np.int64) * mover, before)
    kept = legal & (after == before)  # in a lost position every legal move keeps it
    lost = judged & (before == -1)
    changing = answer.playable & (answer.winners != answer.value_winner[:, None])
    decisive = judged & ~lost & changing.any(axis=1)
    blunder = np.select(
        [legal & (before == 1) & (after == 0), legal & (before == 1), legal & (before == 0)],
        [1, 2, 3],
        0,
    )
    blunder = np.where(after < before, blunder, 0).astype(np.int8)
    chosen = answer.scores[rows, col].astype(np.int64)
    value_regret = np.where(legal, answer.value.astype(np.float64) - chosen, np.nan)
    plies_after = answer.plies[rows, col].astype(np.int64)
    slower = (plies_after - answer.value_plies.astype(np.int64)) * before  # 0 for a draw
    distance_regret = np.where(kept, slower.astype(np.float64), np.nan)
    return MoveRates(
        perfect=legal & answer.optimal[rows, col],
        good=kept,
        illegal=~legal & judged,
        judged=judged,
        lost=lost,
        decisive=decisive,
        blunder=blunder,
        value_regret=value_regret,
        distance_regret=distance_regret,
    )


#: The counts of moves an :class:`AgentReport` sums (its fields after the results).
MOVE_COUNTS = (
    "moves",
    "perfect",
    "good",
    "illegal",
    "lost",
    "decisive",
    "mistakes",
    "win_to_draw",
    "win_to_loss",
    "draw_to_loss",
    "value_regret",
    "distance_regret",
)


def _tally(rates: MoveRates) -> np.ndarray:
    """(B, len(MOVE_COUNTS)) int64: each row's part of each count of :data:`MOVE_COUNTS`."""
    if rates.decisive is None:
        raise InvalidArgument("these move rates were made without regrets: use rate_moves")
    judged = rates.judged
    columns = [
        judged,
        rates.perfect & judged,
        rates.good & judged,
        rates.illegal & judged,
        rates.lost & judged,
        rates.decisive & judged,
        rates.decisive & judged & ~rates.good,
        rates.blunder == 1,
        rates.blunder == 2,
        rates.blunder == 3,
        np.nan_to_num(rates.value_regret, nan=0.0),
        np.nan_to_num(rates.distance_regret, nan=0.0),
    ]
    return np.stack([np.asarray(c).astype(np.int64) for c in columns], axis=1)


@dataclass
class AgentReport:
    """One agent's results and moves, summed over games (see the module docstring).

    Results: ``games``, ``wins``, ``draws``, ``losses``. Moves (judged ones only):
    ``moves``; ``perfect`` (optimal); ``good`` (legal and keeping the outcome);
    ``illegal``; ``lost`` (in a lost position: every legal move is good there);
    ``decisive`` (in a position not lost where a legal move changes the outcome);
    ``mistakes`` (decisive moves that changed the outcome, illegal ones included);
    ``win_to_draw``, ``win_to_loss``, ``draw_to_loss`` (legal moves that changed the
    outcome, by kind); ``value_regret`` (the sum of the legal moves' score regrets,
    Pons score units) and ``distance_regret`` (the sum of the plies lost by the moves
    that kept the outcome). Reports add up with ``+``."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    moves: int = 0
    perfect: int = 0
    good: int = 0
    illegal: int = 0
    lost: int = 0
    decisive: int = 0
    mistakes: int = 0
    win_to_draw: int = 0
    win_to_loss: int = 0
    draw_to_loss: int = 0
    value_regret: int = 0
    distance_regret: int = 0

    def __add__(self, other: AgentReport) -> AgentReport:
        if not isinstance(other, AgentReport):
            return NotImplemented
        return AgentReport(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )

    @property
    def score(self) -> float:
        """(wins + draws / 2) / games: 1 for an agent that won every game."""
        return _share(self.wins + self.draws / 2, self.games)

    @property
    def blunders(self) -> int:
        """The legal moves that changed the outcome (every kind)."""
        return self.win_to_draw + self.win_to_loss + self.draw_to_loss

    @property
    def perfect_rate(self) -> float:
        return _share(self.perfect, self.moves)

    @property
    def good_rate(self) -> float:
        """good / moves: high against a strong opponent whatever the agent plays (every
        legal move in a lost position is good); :attr:`mistake_rate` is the measure."""
        return _share(self.good, self.moves)

    @property
    def lost_share(self) -> float:
        """The share of the moves made in lost positions."""
        return _share(self.lost, self.moves)

    @property
    def mistake_rate(self) -> float:
        """mistakes / decisive: the chance that a move changed the outcome where one
        could (a :class:`LevelPlayer`'s :data:`LEVEL_MISTAKE_RATES`)."""
        return _share(self.mistakes, self.decisive)

    @property
    def mean_value_regret(self) -> float:
        """The mean score regret of the legal moves (Pons score units)."""
        return _share(self.value_regret, self.moves - self.illegal)

    @property
    def mean_distance_regret(self) -> float:
        """The mean plies lost by the moves that kept the outcome."""
        return _share(self.distance_regret, self.good)

    def to_dict(self) -> dict[str, Any]:
        """The counts and the rates (``None`` for a rate of nothing), for JSON."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in REPORT_RATES:
            rate = getattr(self, name)
            out[name] = None if math.isnan(rate) else rate
        return out


#: The rates of an :class:`AgentReport` (its properties), as :meth:`AgentReport.to_dict`
#: writes them.
REPORT_RATES = (
    "score",
    "perfect_rate",
    "good_rate",
    "lost_share",
    "mistake_rate",
    "mean_value_regret",
    "mean_distance_regret",
)


def _share(part: float, whole: float) -> float:
    return part / whole if whole else float("nan")


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

    def __repr__(self) -> str:
        return f"PerfectPlayer(temperature={self.temperature:g}, tie_break={self.tie_break!r})"

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
    probability :data:`LEVEL_MISTAKE_RATES` gives its level: 0.5 at level 1, 0.14 at
    level 2, then 0.095, 0.07, 0.053, 0.038, 0.027, 0.017, 0.008 and 0 at level 10
    (perfect play), so that moving first against perfect play level L keeps its win
    in about (L - 1) / 9 of the games. ``oracle``, ``tie_break``, ``seed`` and
    ``layout`` are :class:`PerfectPlayer`'s. Measured results: ``docs/LEVELS.md``.

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


# ------------------------------------------------------------------ matches
#: What :func:`play_match` takes as a player: a level (1-10), ``"perfect"``, a
#: :class:`PerfectPlayer` (or a :class:`LevelPlayer`), an object with a batch method
#: ``act(observations, action_mask=...)``, or a policy ``(observation, action_mask) ->
#: column`` (PettingZoo ``connect_four_v3`` observations, 0-based columns).
Player = Any


@dataclass
class GameReport:
    """One game of a match: its ``moves`` (1-based columns, as ``"4453"``), the
    ``winner`` (+1 the first player, -1 the second, 0 a draw), whether player A of the
    match moved first (``a_first``), and each player's :class:`AgentReport` of the
    game (``a`` and ``b``: one game, its result and its moves)."""

    moves: str
    winner: int
    a_first: bool
    a: AgentReport
    b: AgentReport


@dataclass
class MatchResult:
    """The games of :func:`play_match` and each player's report over them all
    (``a``, ``b``); ``names`` the players' names."""

    names: tuple[str, str]
    games: list[GameReport]
    a: AgentReport
    b: AgentReport

    def a_moving(self, first: bool) -> AgentReport:
        """Player A's report over the games where it moved first (``first``) or second."""
        return sum((g.a for g in self.games if g.a_first == first), AgentReport())

    def to_dict(self, games: bool = False) -> dict[str, Any]:
        """The names and reports (A's also by colour; ``games``: each game's moves and
        winner too), for JSON."""
        out: dict[str, Any] = {
            "a": self.names[0],
            "b": self.names[1],
            "games": len(self.games),
            "a_report": self.a.to_dict(),
            "b_report": self.b.to_dict(),
            "a_first_report": self.a_moving(first=True).to_dict(),
            "a_second_report": self.a_moving(first=False).to_dict(),
        }
        if games:
            out["game_list"] = [
                {"moves": g.moves, "winner": g.winner, "a_first": g.a_first} for g in self.games
            ]
        return out


def player_name(player: Player) -> str:
    """How reports name ``player``: ``"level 3"``, ``"perfect"``, or its ``repr``."""
    if isinstance(player, LevelPlayer):
        return f"level {player.level}"
    if isinstance(player, PerfectPlayer) and player.temperature == 0:
        return "perfect"
    if isinstance(player, str):
        return player
    if isinstance(player, numbers.Integral) and not isinstance(player, bool):
        return f"level {player}"
    return repr(player)


def make_player(player: Player, oracle: Oracle, seed: Any) -> Player:
    """``player`` as :func:`play_match` plays it: a level (1-10) becomes a
    :class:`LevelPlayer`, ``"perfect"`` a :class:`PerfectPlayer` (ties broken at
    random), each of ``oracle`` and seeded with ``seed``; any other player as it is."""
    if isinstance(player, str):
        if player != "perfect":
            raise InvalidArgument(
                "expected 'perfect', a level, or a player", argument="player", value=player
            )
        return PerfectPlayer(oracle, seed=seed)
    if isinstance(player, numbers.Integral) and not isinstance(player, bool):
        return LevelPlayer(int(player), oracle, seed=seed)
    if isinstance(player, PerfectPlayer) or hasattr(player, "act") or callable(player):
        return player
    raise InvalidArgument(
        "expected 'perfect', a level, a player with act(), or a policy",
        argument="player",
        value=player,
    )


def play_match(
    a: Player,
    b: Player,
    games: int = 200,
    *,
    oracle: Oracle | None = None,
    seed: int = 0,
) -> MatchResult:
    """Play ``games`` games between ``a`` and ``b`` (see :data:`Player`), ``a`` first in
    the first half of them (rounded up), ``b`` in the rest, and judge every move.

    All the games advance together: one :meth:`~openingbook.oracle.Oracle.analyze_bitboards`
    call per ply answers the positions of every game still going on, and that answer
    both chooses the moves of :class:`PerfectPlayer`\\ s and judges every move. A level
    or ``"perfect"`` given by name is seeded from ``seed`` (``a`` and ``b`` each their
    own generator): the same arguments play the same games. A player given as an object
    uses its own generator. An illegal move (a full column, or not a column) loses
    the game, as in PettingZoo.

    >>> result = play_match(10, "perfect", 4, seed=1)
    >>> [g.winner for g in result.games], result.a.wins, result.a.mistake_rate
    ([1, 1, 1, 1], 2, 0.0)
    """
    if isinstance(games, bool) or not isinstance(games, numbers.Integral) or games < 1:
        raise InvalidArgument("expected a number of games >= 1", argument="games", value=games)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InvalidArgument("expected an integer >= 0", argument="seed", value=seed)
    oracle = Oracle() if oracle is None else oracle
    players = [make_player(p, oracle, [int(seed), side]) for side, p in enumerate((a, b))]
    n = int(games)
    a_first = np.arange(n) < (n + 1) // 2
    board = _MatchBoard(oracle.board, n)
    counts = np.zeros((n, 2, len(MOVE_COUNTS)), np.int64)
    for ply in range(oracle.board.cells):
        index = np.flatnonzero(board.running)
        if not index.size:
            break
        answer = oracle.analyze_bitboards(board.first[index], board.mask[index])
        a_moves = a_first[index] == (ply % 2 == 0)
        columns = np.zeros(len(index), np.int64)
        for side, chooses in ((0, a_moves), (1, ~a_moves)):
            if chooses.any():
                columns[chooses] = _choose(players[side], _rows(answer, chooses), oracle.board)
        judgement = rate_moves(answer, columns)
        np.add.at(counts, (index, np.where(a_moves, 0, 1)), _tally(judgement))
        board.play(index, columns, judgement.illegal)
    reports = [_game_reports(board, counts, a_first, g) for g in range(n)]
    return MatchResult(
        names=(player_name(a), player_name(b)),
        games=reports,
        a=sum((g.a for g in reports), AgentReport()),
        b=sum((g.b for g in reports), AgentReport()),
    )


class _MatchBoard:
    """The boards of the games of a match, played together (bitboards, the moves)."""

    def __init__(self, board: BoardSize, games: int) -> None:
        self.width, self.height = board
        self.cells = board.cells
        h1 = self.height + 1
        self.bottom = np.array([1 << (c * h1) for c in range(self.width)], np.uint64)
        column = (1 << self.height) - 1
        self.column = np.array([column << (c * h1) for c in range(self.width)], np.uint64)
        self.first = np.zeros(games, np.uint64)
        self.mask = np.zeros(games, np.uint64)
        self.stones = np.zeros(games, np.int64)
        self.moves = np.zeros((games, self.cells), np.int8)
        self.running = np.ones(games, bool)
        self.winner = np.zeros(games, np.int64)

    def play(self, index: np.ndarray, columns: np.ndarray, illegal: np.ndarray) -> None:
        """Play ``columns`` in the games ``index`` (all running, all to move); an
        ``illegal`` move ends its game, lost by its mover."""
        mover = np.where(self.stones[index] % 2 == 0, 1, -1)
        self.winner[index[illegal]] = -mover[illegal]
        self.running[index[illegal]] = False
        index, columns, mover = index[~illegal], columns[~illegal], mover[~illegal]
        first, mask = self.first[index], self.mask[index]
        own = np.where(mover == 1, first, first ^ mask)
        move = (mask + self.bottom[columns]) & self.column[columns]
        wins = (winning_cells_bits(own, mask, self.width, self.height) & move) != 0
        self.first[index] = np.where(mover == 1, first | move, first)
        self.mask[index] = mask | move
        self.moves[index, self.stones[index]] = columns + 1
        self.stones[index] += 1
        self.winner[index[wins]] = mover[wins]
        self.running[index[wins | (self.stones[index] == self.cells)]] = False

    def line(self, game: int) -> str:
        return "".join(str(c) for c in self.moves[game, : self.stones[game]].tolist())


def _game_reports(
    board: _MatchBoard, counts: np.ndarray, a_first: np.ndarray, game: int
) -> GameReport:
    """Game ``game``'s :class:`GameReport` from the match's per-game move counts."""
    winner = int(board.winner[game])
    sides = []
    for side in (0, 1):
        colour = 1 if a_first[game] == (side == 0) else -1  # +1: this side moved first
        result = winner * colour
        sides.append(
            AgentReport(
                games=1,
                wins=int(result == 1),
                draws=int(result == 0),
                losses=int(result == -1),
                **dict(zip(MOVE_COUNTS, counts[game, side].tolist(), strict=True)),
            )
        )
    return GameReport(board.line(game), winner, bool(a_first[game]), sides[0], sides[1])


def _rows(answer: OracleAnswer, rows: np.ndarray) -> OracleAnswer:
    """The rows ``rows`` (a boolean mask) of ``answer``."""
    taken = {
        f.name: getattr(answer, f.name)[rows]
        for f in fields(answer)
        if isinstance(getattr(answer, f.name), np.ndarray)
    }
    reasons = [r for r, keep in zip(answer.reasons, rows.tolist(), strict=True) if keep]
    return replace(answer, reasons=reasons, **taken)


def _choose(player: Player, answer: OracleAnswer, board: BoardSize) -> np.ndarray:
    """``player``'s columns for the positions of ``answer``: a :class:`PerfectPlayer`
    chooses from the answer; any other player is given PettingZoo observations and
    action masks (a batch to ``act``, else one position per call)."""
    if isinstance(player, PerfectPlayer):
        return np.asarray(player.choose(answer), np.int64)
    observations = write_boards("pettingzoo", answer.first, answer.mask, board=board)
    masks = answer.playable.astype(np.int8)
    if hasattr(player, "act"):
        chosen = player.act(observations, action_mask=masks)
    else:
        chosen = [player(obs, mask) for obs, mask in zip(observations, masks, strict=True)]
    try:
        columns = np.asarray(chosen).reshape(-1)
    except (TypeError, ValueError):
        columns = np.empty(0)
    if len(columns) != len(answer) or (columns.size and columns.dtype.kind not in "iu"):
        raise InvalidArgument(
            f"{player_name(player)}: expected {len(answer)} integer columns, got {chosen!r:.80}"
        )
    return columns.astype(np.int64)


# ------------------------------------------------------------------ levels
def level_pairs(levels: Any = LEVELS) -> list[tuple[int, int | str]]:
    """The pairs :func:`measure_levels` plays: each level against ``"perfect"``, then
    each level against the next one.

    >>> level_pairs([1, 2, 3])
    [(1, 'perfect'), (2, 'perfect'), (3, 'perfect'), (1, 2), (2, 3)]
    """
    levels = list(levels)
    return [(level, "perfect") for level in levels] + list(itertools.pairwise(levels))


def measure_levels(
    games: int = 200,
    *,
    seed: int = 0,
    oracle: Oracle | None = None,
    pairs: list[tuple[int, int | str]] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[MatchResult]:
    """The levels' measured strength: :func:`play_match` (``games`` games, ``seed``)
    of each of ``pairs`` (default :func:`level_pairs`); ``progress(done, total)`` is
    called after each pair. :func:`level_reports` sums each level's moves."""
    oracle = Oracle() if oracle is None else oracle
    pairs = level_pairs() if pairs is None else pairs
    results = []
    for done, (a, b) in enumerate(pairs, 1):
        results.append(play_match(a, b, games, oracle=oracle, seed=seed))
        if progress is not None:
            progress(done, len(pairs))
    return results


def level_reports(results: list[MatchResult]) -> dict[int, AgentReport]:
    """Each level's :class:`AgentReport` summed over every game it played in
    ``results`` (by the names ``"level N"`` of :func:`player_name`), by level."""
    out: dict[int, AgentReport] = {}
    for result in results:
        for name, report in zip(result.names, (result.a, result.b), strict=True):
            if name.startswith("level "):
                level = int(name.removeprefix("level "))
                out[level] = out.get(level, AgentReport()) + report
    return dict(sorted(out.items()))
