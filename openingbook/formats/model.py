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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.answers import BulkValues
from openingbook.errors import BookFileError, InvalidArgument
from openingbook.values import UNKNOWN, byte_tables, missing_answers, score_tables
from solver import BoardSize, canonical_keys, stone_counts

if TYPE_CHECKING:
    from openingbook.bookfile import BookFormat, Records
    from openingbook.manifest import Scope

__all__ = [
    "BookModel",
    "model_from_values",
    "require_complete_model",
    "thill_records",
    "thill_values",
]


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
    #: layout and records in file order, one per position of the model (each mirror
    #: variant as the file stores it), for record-level checks; None otherwise
    stored: tuple[BookFormat, Records] | None = None

    def __len__(self) -> int:
        return int(self.first.size)

    @property
    def has_distances(self) -> bool:
        """Are the plies to the end (and so the scores) known for every position?"""
        return self.kind != "wdl" and not bool((self.plies_to_end == UNKNOWN).any())

    @property
    def stones(self) -> np.ndarray:
        return np.bitwise_count(self.mask).astype(np.int64)

    @property
    def path(self) -> Path:
        """The file the model was read from."""
        return Path(self.source)

    @property
    def canonical(self) -> np.ndarray:
        """The mirror-merged key of each position (:func:`solver.canonical_keys`)."""
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

        A position the model does not hold is answered by the one rule
        (:func:`openingbook.values.missing_answers`): a win in 1 when the side to move
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
            m_winner, m_plies = missing_answers(f, m, rule, self.board)
            winner[missing] = m_winner
            plies[missing] = m_plies
            wins_now = m_plies == 1
            stones = stone_counts(m[wins_now]).astype(np.int64)
            score[missing[wins_now]] = score_tables(self.board)[0][stones, 1]
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


#: the model's kind of each kind of stored values (:data:`openingbook.values.VALUE_KINDS`)
_MODEL_KINDS = {"pruned": "wdl", "wdl": "wdl", "distance": "distance", "score": "score"}


def model_from_values(
    kind: str,
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
    stored: tuple[BookFormat, Records] | None = None,
) -> BookModel:
    """The model of ``plies``-stone positions with stored values of ``kind``: Thill's
    pruned codes (``"pruned"``: 2 first player wins, 1 second, 0 draw) or distance
    bytes (``"distance"``), -1/0/+1 (``"wdl"``, first player's view) or Pons scores
    (``"score"``): what ``build`` and ``derive`` solve and ``merge`` reads. Every value
    is answered by table (:func:`openingbook.values.byte_tables`); a value no game can
    have is refused (:class:`InvalidArgument`). ``pruned``: the positions leave the
    first player's wins out (records of a pruned Thill book).

    >>> from openingbook.manifest import Scope
    >>> from solver import Position
    >>> board = BoardSize(7, 6)
    >>> p = Position.from_moves("4444")
    >>> f, m = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    >>> model = model_from_values("distance", 4, f, m, np.array([63]), board=board,
    ...                           scope=Scope(board=board))
    >>> model.kind, int(model.winner[0]), int(model.plies_to_end[0]), int(model.score[0])
    ('distance', 1, 37, 1)
    >>> thill_values(model)[1].tolist()
    [63]
    """
    values = np.ascontiguousarray(values).astype(np.int8)
    winner, plies_to_end, score, valid = (
        table[values.view(np.uint8)] for table in byte_tables(kind, plies, board)
    )
    if not valid.all():
        raise InvalidArgument(
            f"value {int(values[np.argmin(valid)])} is not a {kind} value at {plies} plies"
        )
    return BookModel(
        board=board,
        plies=plies,
        kind=_MODEL_KINDS[kind],
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


def thill_values(model: BookModel) -> tuple[BookFormat, np.ndarray]:
    """The model's values in Thill's layout of its ply and board: ``(fmt, values)``, one
    value per position of the model (nothing pruned yet): distance bytes where the
    plies are known (``100 - plies`` signed by the winner, 0 for a draw), else the pruned
    codes (2 first player wins, 1 second, 0 draw)."""
    from openingbook.bookfile import BookFormat
    from openingbook.values import pruned_values

    distances = model.has_distances
    fmt = BookFormat.for_plies(model.plies, distances, *model.board)
    if distances:
        signed = model.winner.astype(np.int16) * (100 - model.plies_to_end)
        return fmt, signed.astype(np.int8)
    return fmt, pruned_values(model.winner)


def thill_records(model: BookModel) -> tuple[BookFormat, Records]:
    """The model as the records of a Thill-layout book: the file's own where the model
    was loaded as stored, else sorted, a book without distances leaving its first-player
    wins out where its scope answers them by the pruning rule."""
    from openingbook.bookfile import Records, sort_records
    from openingbook.codec import encode_keys

    if model.stored is not None:
        return model.stored

    fmt, values = thill_values(model)
    first, mask = model.first, model.mask
    if not fmt.distances and model.scope.answers_absent:
        keep = values != 2
        first, mask, values = first[keep], mask[keep], values[keep]
    keys = encode_keys(first, mask, fmt.key_bits, fmt.width, fmt.height)
    return fmt, sort_records(fmt, Records(keys, values.astype(np.int8)))


def require_complete_model(model: BookModel) -> None:
    """Refuse a model of a pruned book that could not be completed: its file leaves the
    first player's wins out, and its scope is unknown or partial (a sample, a shard), so
    the model holds only what is stored (:class:`BookFileError`)."""
    scope = model.scope
    if not model.pruned:
        return
    if not scope.known:
        raise BookFileError(
            f"{model.source}: scope unknown: {scope.unknown_why}, so the first-player wins "
            "it leaves out cannot be recovered; keep the manifest beside the book"
        )
    if scope.partial:
        raise BookFileError(
            f"{model.source}: the book is {scope.partial}, so the first-player wins it leaves "
            "out cannot be recovered; export a complete book"
        )
