"""What a book answers: the types every book kind returns.

:class:`BookValue` (one position), :class:`BulkValues` (arrays of positions) and
:class:`PositionNotInBook` are shared by the Thill-layout reader
(:mod:`openingbook.reader`), compact books (:mod:`openingbook.compact`) and the
Cadot and Pons readers. They live apart from the readers so that a reader of one
kind loads no other (a lookup in a compact book loads none of the Thill
reader's file checks). The
format registry (:mod:`openingbook.formats`) imports the readers, so the contract
lives here, below them.

:class:`BookReader` is what :func:`openingbook.open_book` returns, whatever the
file's format; every format's reader derives from it and supplies a handful of
primitives (``_answer``, ``_lookup_many``, ``_answered_positions``, ``_count``,
``_release``), so that the behaviour below is written once, here, and is the
same for every format (``docs/BOOKS.md``; ``tests/test_reader_contract.py``
checks it over every format and several board sizes):

* ``book.get(position)`` -> :class:`BookValue`, or :class:`PositionNotInBook`
  (a ``KeyError``) when the book does not answer it: not stored and not provable,
  outside the book's scope, of another ply, or of another board;
  ``book.get(position, default)`` returns ``default`` instead of raising;
* ``position in book``: True exactly when ``get`` answers; never raises for a
  position (of any board); False for anything else;
* ``len(book)``: the book positions it answers (one per mirror pair; not the
  positions answered by the rule alone: those where the side to move completes
  four at once), the same for one book in every format; ``book.records`` the
  records in the file where it has them (``None`` for a retrieval table);
* ``for position, value in book``: every answered position (one variant per
  mirror pair), ``len(book)`` of them;
* ``book.lookup_many(first, mask, strict=True)`` -> :class:`BulkValues`;
* ``book.board``, ``book.plies``, ``book.kind`` (``"wdl"``, ``"distance"`` or
  ``"score"``), ``book.scope`` (:class:`openingbook.manifest.Scope`),
  ``book.provenance`` (a dict, empty when the file records none),
  ``book.format_name`` (its registry entry);
* ``book.close()`` and ``with``; afterwards every method raises
  :class:`BookClosed`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import numpy as np

from openingbook.errors import (
    BookClosed,
    BookFileError,
    InvalidArgument,
    PositionNotInBook,
    name_file,
)
from solver import BoardSize, Position, Winner

__all__ = [
    "KINDS",
    "BookReader",
    "BookValue",
    "BulkValues",
    "PositionNotInBook",
    "value_from_arrays",
]

#: the value kinds of a book: win/draw/loss only, plies to the end, Pons scores
KINDS = ("wdl", "distance", "score")


class BookValue(NamedTuple):
    """A book's answer for one position."""

    winner: Winner
    plies: int | None
    score: int | None


class BulkValues(NamedTuple):
    """Answers for arrays of positions (one element per position).

    ``index``: the record that answered (-1 where nothing is stored);
    ``winner``: +1 first player, -1 second, 0 draw (``UNKNOWN`` of
    :mod:`openingbook.values` where not known); ``plies`` and ``score`` as in
    :class:`BookValue`, ``UNKNOWN`` for ``None``.
    """

    index: np.ndarray
    winner: np.ndarray
    plies: np.ndarray
    score: np.ndarray


_REQUIRED = object()
_WINNERS = {1: Winner.FIRST, -1: Winner.SECOND, 0: Winner.DRAW}
#: ``UNKNOWN`` of :mod:`openingbook.values` (not imported: a compact lookup loads no more)
_UNKNOWN = -128


def value_from_arrays(winner: int, plies: int, score: int) -> BookValue:
    """One :class:`BookValue` from the ints of a :class:`BulkValues` row (``UNKNOWN``
    -> None).

    >>> value_from_arrays(1, -128, -128)
    BookValue(winner=<Winner.FIRST: 'first'>, plies=None, score=None)
    """
    return BookValue(
        _WINNERS[winner],
        None if plies == _UNKNOWN else plies,
        None if score == _UNKNOWN else score,
    )


class BookReader(ABC):
    """The one reader behaviour of every format (see the module docstring)."""

    #: the registry name of the reader's format
    format_name: ClassVar[str] = ""
    path: Path
    _closed: bool = False
    _length: int | None = None

    # ------------------------------------------------ what each format supplies
    @property
    @abstractmethod
    def board(self) -> BoardSize:
        """The board size of the book's positions."""

    @property
    @abstractmethod
    def plies(self) -> int | None:
        """The stones of the book's positions (a Pons book: at most this many)."""

    @property
    @abstractmethod
    def kind(self) -> str:
        """``"wdl"``, ``"distance"`` or ``"score"``: what the values tell."""

    @property
    @abstractmethod
    def scope(self) -> Any:  # an openingbook.manifest.Scope (not imported: a lower layer)
        """Which positions of its ply the book holds (:class:`openingbook.manifest.Scope`)."""

    @property
    def provenance(self) -> dict[str, Any]:
        """Who made the book and how (command, version, ...); empty when the file says
        nothing."""
        return {}

    @property
    def records(self) -> int | None:
        """Records stored in the file (None where the format has no records)."""
        return None

    @abstractmethod
    def _answer(self, pos: Position) -> BookValue:
        """The answer for a position of the book's board; :class:`PositionNotInBook`."""

    @abstractmethod
    def _lookup_many(self, first: np.ndarray, mask: np.ndarray, strict: bool) -> BulkValues:
        """Bulk answers; see :meth:`lookup_many`."""

    @abstractmethod
    def _answered_positions(self) -> tuple[np.ndarray, np.ndarray]:
        """``(first, mask)`` of every book position answered, one variant per mirror pair."""

    @abstractmethod
    def _count(self) -> int:
        """``len(book)`` (computed once)."""

    @abstractmethod
    def _release(self) -> None:
        """Close the file and drop the maps."""

    # ---------------------------------------------------------- the contract
    def get(self, pos: Position, default: Any = _REQUIRED) -> Any:
        """The book's answer for ``pos`` (either mirror variant).

        Raises :class:`PositionNotInBook` (a ``KeyError``) when the book does not
        answer it, unless ``default`` is given; :class:`InvalidArgument` for
        something that is not a position.
        """
        self._require_open()
        if not isinstance(pos, Position):
            raise InvalidArgument(f"expected a Position, got {type(pos).__name__}")
        try:
            if (pos.width, pos.height) != self.board:
                raise PositionNotInBook(
                    f"a {pos.width}x{pos.height} position is not in {self.path.name}, "
                    f"a book of {self.board} positions"
                )
            return self._answer(pos)
        except PositionNotInBook:
            if default is _REQUIRED:
                raise
            return default
        except BookFileError as exc:  # a damaged file: the message names it
            name_file(exc, self.path)
            raise

    def __contains__(self, pos: object) -> bool:
        """True exactly when :meth:`get` answers ``pos``."""
        self._require_open()
        if not isinstance(pos, Position) or (pos.width, pos.height) != self.board:
            return False
        try:
            self._answer(pos)
        except (PositionNotInBook, InvalidArgument):
            return False
        except BookFileError as exc:
            name_file(exc, self.path)
            raise
        return True

    def lookup_many(self, first: np.ndarray, mask: np.ndarray, strict: bool = True) -> BulkValues:
        """Bulk :meth:`get` over ``first``/``mask`` uint64 arrays of the book's board:
        ``BulkValues(index, winner, plies, score)`` (winner +1/-1/0, ``UNKNOWN``
        where not known; ``index`` the record or slot that answered, -1 where none
        did). A position the book does not answer raises :class:`PositionNotInBook`
        naming the first one, or with ``strict=False`` gets ``UNKNOWN``."""
        self._require_open()
        try:
            return self._lookup_many(first, mask, strict)
        except BookFileError as exc:
            name_file(exc, self.path)
            raise

    def __len__(self) -> int:
        self._require_open()
        if self._length is None:
            try:
                self._length = self._count()
            except BookFileError as exc:
                name_file(exc, self.path)
                raise
        return self._length

    def __iter__(self) -> Iterator[tuple[Position, BookValue]]:
        """``(Position, BookValue)`` for every position the book answers (one variant per
        mirror pair)."""
        first, mask = self.positions()
        board = self.board
        chunk = 1 << 16
        for start in range(0, len(first), chunk):
            f, m = first[start : start + chunk], mask[start : start + chunk]
            bulk = self.lookup_many(f, m)
            rows = zip(
                f.tolist(),
                m.tolist(),
                bulk.winner.tolist(),
                bulk.plies.tolist(),
                bulk.score.tolist(),
                strict=True,
            )
            for fi, mi, w, p, s in rows:
                pos = Position.from_bitboards(fi, mi, *board, check=False)
                yield pos, value_from_arrays(w, p, s)

    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """``(first, mask)`` of every position :meth:`__iter__` yields."""
        self._require_open()
        try:
            return self._answered_positions()
        except BookFileError as exc:
            name_file(exc, self.path)
            raise

    def close(self) -> None:
        """Release the file; every later use raises :class:`BookClosed`."""
        if not self._closed:
            self._closed = True
            self._release()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> BookReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _require_open(self) -> None:
        if self._closed:
            raise BookClosed(f"{self.path}: the book is closed")
