"""One entry point for engines: :func:`open_book` reads a book whatever its format.

Every reader keeps one contract (:class:`openingbook.answers.BookReader`,
written down in ``docs/BOOKS.md``):

* ``book.get(position) -> BookValue(winner, plies, score)``, or
  :class:`~openingbook.errors.PositionNotInBook` (a ``KeyError``);
  ``book.get(position, default)``;
* ``position in book`` (True exactly when ``get`` answers);
* ``for position, value in book`` (every position it answers, one variant per
  mirror pair), ``len(book)`` (how many);
* ``book.lookup_many(first, mask) -> BulkValues`` for numpy arrays of positions;
* ``book.board``, ``plies``, ``kind``, ``scope``, ``provenance``, ``records``;
* ``book.unchecked``: None when the file was checked against its checksum or
  manifest before its first answer, else why not (a damaged file is refused);
* ``with open_book(path) as book:`` closes the file.

Formats: our compact books (``.c4b``, :mod:`openingbook.formats.compact`), Thill's
books (``book.dat``, ``bookDeep.dat``, ``bookDeepDist.dat`` and our books of
other plies), Cadot's 7-byte records and Pons' ``.book`` files: the readable
entries of the registry (:mod:`openingbook.formats`), which also recognises a
file's format. A shipped book can be opened by its name
(``open_book("12-dist")``, :mod:`openingbook.registry`).

>>> from openingbook.solver import DEFAULT_BOARD, BoardSize, Position
>>> with open_book(REFERENCE / "thill-original-book8.dat") as book:
...     value = book.get(Position.from_moves("44444455"))
...     value.winner.value, value.plies, type(book).__name__
('first', None, 'Book')
"""

from __future__ import annotations

import os

from openingbook.formats import BookReader, detect, open_book, readable_formats
from openingbook.solver import BoardSize

__all__ = ["BOOK_KINDS", "BookReader", "book_board", "detect_kind", "open_book"]

#: The formats :func:`open_book` reads (its ``format``).
BOOK_KINDS = readable_formats()


def detect_kind(path: str | os.PathLike[str]) -> str:
    """``"compact"``, ``"thill"``, ``"cadot"`` or ``"pons"`` for the file at ``path``
    (:func:`openingbook.formats.detect`); :class:`~openingbook.errors.BookFileError`
    naming what was tried when nothing fits."""
    return detect(path).name


def book_board(path: str | os.PathLike[str]) -> BoardSize:
    """The board size of the book at ``path`` (its reader's ``board``)."""
    # the board is in the header: no whole-file check where the format makes one by default
    options = {"verify": False} if "verify" in detect(path).open_options else {}
    with open_book(path, **options) as book:
        return book.board
