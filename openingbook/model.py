"""One model of a book: what every format reads into and writes from.

:class:`BookModel` is a whole book in memory, whatever file it came from:
its board and ply, the kind of its values (``"wdl"``, ``"distance"``,
``"score"``), whether its file leaves the first player's wins out (pruning),
its scope and provenance, and every position it answers (one variant per
mirror pair) with the answer as arrays: ``winner`` (+1 first player, -1
second, 0 draw), ``plies`` (to the end of the game) and ``score`` (Pons score of
the side to move), ``UNKNOWN`` where the book does not tell. It is the one whole-book
model: derive, validate, diff, check, stats and merge work on it, and it looks
positions up itself (:meth:`BookModel.find`, :meth:`BookModel.answers`).

:func:`openingbook.formats.load_book` is the one way to load a whole book: it opens the file
through the registry (:func:`openingbook.formats.open_book`), asks the reader
for every position it answers (a pruned book's left-out first-player wins
included, recovered by enumerating its scope) and answers them in one bulk
lookup, so that a model holds exactly what ``book.get`` answers.

>>> from openingbook.formats import load_book
>>> model = load_book("8")
>>> model.board, model.plies, model.kind, len(model), model.scope.describe()
(BoardSize(width=7, height=6), 8, 'wdl', 77715, 'complete')
>>> int((model.winner == 1).sum()), int((model.winner == 0).sum())
(48793, 7344)
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from openingbook.errors import BookFileError, InvalidArgument
from openingbook.solver import (
    BoardSize,
    Player,
    Position,
    can_win_next_bits,
    canonical_keys,
    enumerate_positions,
    part_of,
)
from openingbook.values import UNKNOWN, BulkValues, byte_tables, unstored_answers

__all__ = [
    "BookModel",
    "Scope",
    "model_from_values",
    "require_board",
    "require_complete",
    "require_complete_model",
]


# ------------------------------------------------------------------ the scope
@functools.lru_cache(maxsize=8)
def _scope_keys(under: str, plies: int, width: int, height: int) -> np.ndarray:
    """Sorted canonical Pons keys of the ``plies``-stone book positions under ``under``."""
    if len(under) > plies:
        return np.empty(0, np.uint64)
    first, mask = enumerate_positions(plies, under, width, height)
    return np.sort(canonical_keys(first, mask, width, height))


@dataclass(frozen=True)
class Scope:
    """Which positions of its ply a book holds.

    ``under``: only positions reached by continuing this 1-based line.
    ``partial``: why the book is not complete even under its line (``"a sample
    of 2000 positions"``, ``"shard 1/4"``), else None. ``known`` False: nothing
    says (no manifest, not recognisably complete); ``unknown_why`` says why.
    A pruned book's rule "not stored = first player wins" holds only where
    :attr:`answers_absent`.
    """

    under: str | None = None
    partial: str | None = None
    known: bool = True
    unknown_why: str = ""
    #: the board of the positions (the ``under`` line is read on it); a keyword
    board: BoardSize = field(kw_only=True)
    #: ``(i, n)``: the book holds part ``i`` of ``n`` of its ply
    #: (:func:`openingbook.solver.part_of`)
    part: tuple[int, int] | None = field(default=None, kw_only=True)

    @property
    def complete(self) -> bool:
        """Every position of the ply (as Thill's books)."""
        return self.known and self.under is None and self.partial is None

    @property
    def answers_absent(self) -> bool:
        """Is a missing position inside :meth:`contains` a first-player win (pruned books)?"""
        return self.known and self.partial is None

    def describe(self) -> str:
        """``"complete"``, ``"positions under 4444"``, ``"shard 1/4"``, ``"unknown (...)"``."""
        if not self.known:
            return f"unknown ({self.unknown_why})" if self.unknown_why else "unknown"
        if self.partial:
            return self.partial + (f" of the positions under {self.under}" if self.under else "")
        return f"positions under {self.under}" if self.under else "complete"

    def contains(self, pos: Position) -> bool:
        """Is ``pos`` reached by continuing the ``under`` line (either mirror variant)?

        Always True without a line. Exact: the stones added after the line must
        be playable in some order (gravity, players alternating).

        >>> scope = Scope("44", board=BoardSize(7, 6))
        >>> scope.contains(Position.from_moves("4453")), scope.contains(Position.from_moves("3453"))
        (True, False)
        """
        if self.part is not None:
            f, m = np.array([pos.first_stones], np.uint64), np.array([pos.mask], np.uint64)
            if int(part_of(f, m, self.part[1], *self.board)[0]) != self.part[0]:
                return False
        if self.under is None:
            return True
        line = Position.from_moves(self.under, *self.board)
        return any(_reachable(v, pos) for v in (line, line.mirror()))

    def contains_many(self, first: np.ndarray, mask: np.ndarray, plies: int) -> np.ndarray:
        """:meth:`contains` for arrays of ``plies``-stone book positions (by enumeration)."""
        inside = np.ones(len(first), bool)
        if self.part is not None:
            inside = part_of(first, mask, self.part[1], *self.board) == self.part[0]
        if self.under is None:
            return inside
        w, h = self.board
        keys = canonical_keys(first, mask, w, h)
        return inside & np.isin(keys, _scope_keys(self.under, plies, w, h))


def _reachable(start: Position, target: Position) -> bool:
    """Can ``target`` be reached from ``start`` by legal moves? (Undo moves of
    ``target``, never a stone of ``start``, down to ``start``'s stone count.)"""
    if (start.width, start.height) != (target.width, target.height):
        return False
    for player in (Player.FIRST, Player.SECOND):
        if start.stones_of(player) & ~target.stones_of(player):
            return False
    if start.stone_count > target.stone_count:
        return False
    first_t, h1 = target.first_stones, target.height + 1
    keep = start.mask
    seen: set[int] = set()

    def undo(mask: int, stones: int) -> bool:
        if stones == start.stone_count:
            return mask == keep
        if mask in seen:
            return False
        seen.add(mask)
        last_is_first = stones % 2 == 1  # stone number `stones` is the first player's
        for col in range(target.width):
            column = (mask >> (col * h1)) & ((1 << h1) - 1)
            if not column:
                continue
            top = 1 << (col * h1 + column.bit_length() - 1)
            if top & keep or bool(top & first_t) != last_is_first:
                continue
            if undo(mask ^ top, stones - 1):
                return True
        return False

    return undo(target.mask, target.stone_count)


# ------------------------------------------------------------------ the model
@dataclass(frozen=True)
class BookModel:
    """A whole book as arrays (see the module docstring)."""

    board: BoardSize
    plies: int
    kind: str
    first: np.ndarray
    mask: np.ndarray
    winner: np.ndarray
    plies_to_end: np.ndarray
    score: np.ndarray
    scope: Scope
    #: the source file leaves positions the first player wins out (a pruned book)
    pruned: bool = False
    provenance: dict[str, Any] = field(default_factory=dict)
    #: the file and format the model was read from
    source: str = ""
    source_format: str = ""
    #: records of the source file (None: the format has none)
    records: int | None = None
    #: a Thill-layout file loaded as stored (``load_book(..., complete=False)``): its
    #: layout and records in file order (the format's layout and records objects: the
    #: model, a root module, names no format's types), one per position of the model
    #: (each mirror variant as the file stores it), for record-level checks; else None
    stored: tuple[Any, Any] | None = None

    def __len__(self) -> int:
        return int(self.first.size)

    @property
    def has_distances(self) -> bool:
        """Are the plies to the end (and so the scores) known for every position?"""
        return self.kind != "wdl" and not bool((self.plies_to_end == UNKNOWN).any())

    def require_distances(self, name: str) -> None:
        """Refuse this model for ``name`` (a format or a product) that stores the plies to
        the result when some are not known."""
        if not self.has_distances:
            raise BookFileError(
                f"{self.source}: the {name} format stores the plies to the result, and this "
                "book has no distances: use a book built with --distances"
            )

    @property
    def stones(self) -> np.ndarray:
        return np.bitwise_count(self.mask).astype(np.int64)

    @property
    def path(self) -> Path:
        """The file the model was read from."""
        return Path(self.source)

    @property
    def canonical(self) -> np.ndarray:
        """The mirror-merged key of each position (:func:`openingbook.solver.canonical_keys`)."""
        return canonical_keys(self.first, self.mask, *self.board)

    @functools.cached_property
    def key_order(self) -> tuple[np.ndarray, np.ndarray]:
        """``(order, sorted canonical keys)``: the positions sorted by key, for :meth:`find`."""
        canonical = self.canonical
        order = np.argsort(canonical, kind="stable")
        return order, canonical[order]

    def find(self, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The index in the model of each position (either mirror variant), -1 where the
        model does not hold it."""
        order, keys = self.key_order
        if not len(keys):
            return np.full(len(first), -1, np.int64)
        wanted = canonical_keys(first, mask, *self.board)
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        return np.where(keys[at] == wanted, order[at], -1)

    def in_scope(self, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Positions the book's scope holds (a partial scope's ``partial`` ignored)."""
        return self.scope.contains_many(first, mask, self.plies)

    def answers(self, first: np.ndarray, mask: np.ndarray) -> BulkValues:
        """What the book answers for positions of its ply, :data:`openingbook.values.UNKNOWN`
        where it does not know (``index``: the model's position, -1 where it holds none).

        A position the model does not hold is answered by the one rule of every reader
        (:func:`openingbook.values.unstored_answers`): a win in 1 when the side to move
        completes four at once, else, for a pruned book inside its complete scope, a
        first-player win.
        """
        first = np.ascontiguousarray(first, dtype=np.uint64)
        mask = np.ascontiguousarray(mask, dtype=np.uint64)
        index = self.find(first, mask)
        at = np.maximum(index, 0)
        held = index >= 0
        winner = np.where(held, self.winner[at], UNKNOWN).astype(np.int8)
        plies = np.where(held, self.plies_to_end[at], UNKNOWN).astype(np.int16)
        score = np.where(held, self.score[at], UNKNOWN).astype(np.int16)
        missing = np.flatnonzero(~held)
        if len(missing):
            f, m = first[missing], mask[missing]
            implied = self.pruned and self.scope.answers_absent
            rule = self.in_scope(f, m) if implied else False
            now = can_win_next_bits(f, m, *self.board)
            answers = unstored_answers(m, now, rule, self.kind, self.board)
            for whole, part in zip((winner, plies, score), answers, strict=True):
                whole[missing] = part
        return BulkValues(index.astype(np.int64), winner, plies, score)

    def select(self, index: np.ndarray) -> BookModel:
        """The same book restricted to the positions at ``index`` (indices or booleans)."""
        from dataclasses import replace

        return replace(
            self,
            first=self.first[index],
            mask=self.mask[index],
            winner=self.winner[index],
            plies_to_end=self.plies_to_end[index],
            score=self.score[index],
            stored=None,  # the file's records are of every position
        )


#: the model's kind of each encoding of stored values
#: (:data:`openingbook.values.VALUE_ENCODINGS`)
_KIND_OF_ENCODING = {"pruned": "wdl", "wdl": "wdl", "distance": "distance", "score": "score"}


def model_from_values(
    encoding: str,
    plies: int,
    first: np.ndarray,
    mask: np.ndarray,
    values: np.ndarray,
    *,
    board: BoardSize,
    scope: Scope,
    pruned: bool = False,
    provenance: dict[str, Any] | None = None,
    source: str = "",
    source_format: str = "",
    records: int | None = None,
    stored: tuple[Any, Any] | None = None,
) -> BookModel:
    """The model of ``plies``-stone positions with stored values in ``encoding``: Thill's
    pruned codes (``"pruned"``: 2 first player wins, 1 second, 0 draw) or distance
    bytes (``"distance"``), -1/0/+1 (``"wdl"``, first player's view) or Pons scores
    (``"score"``; :data:`openingbook.values.VALUE_ENCODINGS`, of which the model's
    ``kind`` follows): what ``build`` and ``derive`` solve and ``merge`` reads. Every value
    is answered by table (:func:`openingbook.values.byte_tables`); a value no game can
    have is refused (:class:`InvalidArgument`). ``pruned``: the positions leave the
    first player's wins out (records of a pruned Thill book).

    >>> from openingbook.model import Scope
    >>> from openingbook.solver import Position
    >>> board = BoardSize(7, 6)
    >>> p = Position.from_moves("4444")
    >>> f, m = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    >>> model = model_from_values("distance", 4, f, m, np.array([63]), board=board,
    ...                           scope=Scope(board=board))
    >>> model.kind, int(model.winner[0]), int(model.plies_to_end[0]), int(model.score[0])
    ('distance', 1, 37, 1)
    """
    values = np.ascontiguousarray(values).astype(np.int8)
    winner, plies_to_end, score, valid = (
        table[values.view(np.uint8)] for table in byte_tables(encoding, plies, board)
    )
    if not valid.all():
        raise InvalidArgument(
            f"value {int(values[np.argmin(valid)])} is not a {encoding} value at {plies} plies"
        )
    return BookModel(
        board=board,
        plies=plies,
        kind=_KIND_OF_ENCODING[encoding],
        first=np.ascontiguousarray(first, dtype=np.uint64),
        mask=np.ascontiguousarray(mask, dtype=np.uint64),
        winner=winner.astype(np.int8),
        plies_to_end=plies_to_end,
        score=score,
        scope=scope,
        pruned=pruned,
        provenance=provenance or {},
        source=source,
        source_format=source_format,
        records=records,
        stored=stored,
    )


def require_complete_model(model: BookModel) -> None:
    """Refuse a model of a pruned book that could not be completed: its file leaves the
    first player's wins out, and its scope is unknown or partial (a sample, a shard), so
    the model holds only what is stored (:class:`BookFileError`)."""
    require_complete(model.pruned, model.scope, model.source)


def require_complete(pruned: bool, scope: Scope, source: str | os.PathLike[str]) -> None:
    """:func:`require_complete_model` of a book known by its pruning, scope and file
    (an open reader, before any position is read)."""
    if not pruned:
        return
    if not scope.known:
        raise BookFileError(
            f"{source}: scope unknown: {scope.unknown_why}, so the first-player wins "
            "it leaves out cannot be recovered; keep the manifest beside the book"
        )
    if scope.partial:
        raise BookFileError(
            f"{source}: the book is {scope.partial}, so the first-player wins it leaves "
            "out cannot be recovered; export a complete book"
        )


def require_board(
    name: str | os.PathLike[str],
    have: BoardSize,
    want: BoardSize | None,
    argument: str | None = None,
) -> None:
    """Refuse to read a book of one board size as another: :class:`BookFileError`
    naming the file when ``want`` (the size the caller asked for) is given and differs;
    :class:`InvalidArgument` when ``want`` came from the argument ``argument``.

    >>> require_board("b.c4b", BoardSize(6, 5), BoardSize(7, 6))
    Traceback (most recent call last):
    ...
    openingbook.errors.BookFileError: b.c4b: a book of the 6x5 board, not 7x6
    """
    if want is not None and tuple(have) != tuple(want):
        message = f"{name}: a book of the {BoardSize(*have)} board, not {BoardSize(*want)}"
        if argument is not None:
            raise InvalidArgument(message, argument=argument, value=BoardSize(*want))
        raise BookFileError(message)
