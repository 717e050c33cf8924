"""One entry point for engines: :func:`open_book` reads a book whatever its format.

All readers share one interface (the one of :class:`openingbook.reader.Book`):

* ``book.get(position) -> BookValue(winner, plies, score)``;
* ``position in book`` (is it stored?);
* ``for position, value in book`` (every stored position, one variant per
  mirror pair);
* ``book.lookup_many(first, mask) -> BulkValues`` for numpy arrays of positions;
* ``len(book)``, and ``with open_book(path) as book:`` closes the file.

Formats: our compact books (``.c4b``, :mod:`openingbook.compact`), Thill's
books (``book.dat``, ``bookDeep.dat``, ``bookDeepDist.dat`` and our books of
other plies), Cadot's 7-byte records and Pons' ``.book`` files. A shipped
book can be opened by its name (``open_book("12-dist")``,
:mod:`openingbook.registry`). See ``docs/FORMATS.md`` and :func:`open_book` for how a file's format
is recognised.

>>> from solver import DEFAULT_BOARD, BoardSize, Position
>>> with open_book(REFERENCE / "thill-original-book8.dat") as book:
...     value = book.get(Position.from_moves("44444455"))
...     value.winner.value, value.plies, type(book).__name__
('first', None, 'Book')
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from openingbook.bookfile import BookFormat
from openingbook.compact import CompactBook
from openingbook.errors import InvalidArgument
from openingbook.export import detect_kind
from openingbook.export.cadot import CADOT_BOARD, CadotBook
from openingbook.export.pons import PonsBook
from openingbook.manifest import detect_format
from openingbook.reader import Book, BookValue, BulkValues
from openingbook.registry import resolve_book
from solver import BoardSize, Position

__all__ = ["BOOK_KINDS", "BookReader", "book_board", "detect_kind", "open_book"]

#: The kinds :func:`open_book` accepts as ``kind``.
BOOK_KINDS = ("compact", "thill", "cadot", "pons")


@runtime_checkable
class BookReader(Protocol):
    """What every reader returned by :func:`open_book` provides."""

    def get(self, pos: Position) -> BookValue: ...

    def __contains__(self, pos: object) -> bool: ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[tuple[Position, BookValue]]: ...

    def lookup_many(
        self, first: np.ndarray, mask: np.ndarray, strict: bool = True
    ) -> BulkValues: ...

    def close(self) -> None: ...


def book_board(path: str | os.PathLike[str]) -> BoardSize:
    """The board size of the book at ``path``: a compact book's header, a Pons book's
    header, a Thill-layout book's manifest (7x6 without one; Cadot tables are 7x6)."""
    p = Path(path)
    kind = detect_kind(p)
    if kind == "compact":
        with CompactBook(p, verify=False) as book:
            return book.board
    if kind == "pons":
        with open(p, "rb") as fh:
            width, height = fh.read(2)
        return BoardSize(width, height)
    if kind == "thill":
        return detect_format(p).board
    return CADOT_BOARD


def open_book(
    path: str | os.PathLike[str], kind: str | None = None, fmt: BookFormat | str | None = None
) -> Book | CompactBook | CadotBook | PonsBook:
    """Open a book file (or a shipped book by name, e.g. ``"12-dist"``), whatever its format.

    ``kind`` forces ``"compact"``, ``"thill"``, ``"cadot"`` or ``"pons"`` (default:
    :func:`detect_kind`); ``fmt`` forces a Thill layout (a
    :class:`openingbook.bookfile.BookFormat` or a name such as ``"12-dist"``).
    The reader is a context manager; see the module docstring for its methods.
    Raises ``ValueError`` (one line) for a file in no known format and
    ``OSError`` for a file that cannot be read.

    >>> import numpy as np
    >>> from solver import Position
    >>> book = open_book(REFERENCE / "thill-original-book8.dat")
    >>> p = Position.from_moves("44444455")
    >>> p in book, book.get(p.mirror()) == book.get(p)
    (False, True)
    >>> first, mask = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    >>> bulk = book.lookup_many(first, mask)
    >>> bulk.winner.tolist()  # +1: the first player wins (pruned books leave these out)
    [1]
    >>> book.close()
    """
    p = resolve_book(path)
    if isinstance(fmt, str):
        fmt = BookFormat.parse(fmt)
    if fmt is not None:
        if kind not in (None, "thill"):
            raise InvalidArgument(f"a Thill layout was given, but kind is {kind!r}")
        kind = "thill"
    kind = kind or detect_kind(p)
    if kind == "compact":
        return CompactBook(p)
    if kind == "thill":
        return Book(p, fmt)
    if kind == "cadot":
        return CadotBook(p)
    if kind == "pons":
        return PonsBook(p)
    raise InvalidArgument(f"unknown book kind {kind!r}: choose one of {', '.join(BOOK_KINDS)}")
