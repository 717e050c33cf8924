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

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from openingbook.bookfile import BookFormat
from openingbook.compact import CompactBook, is_compact
from openingbook.errors import BookFileError, BookFileMissing, InvalidArgument
from openingbook.export.cadot import BASE, CADOT_RECORD_BYTES, KEY_BYTES, WIDTH, CadotBook
from openingbook.export.pons import HEADER_BYTES, PonsBook, next_prime
from openingbook.manifest import detect_format
from openingbook.reader import Book, BookValue, BulkValues
from openingbook.registry import resolve_book
from solver import DEFAULT_BOARD, BoardSize, Position

__all__ = ["BOOK_KINDS", "BookReader", "book_board", "detect_kind", "open_book"]

#: The kinds :func:`open_book` accepts as ``kind``.
BOOK_KINDS = ("compact", "thill", "cadot", "pons")
CADOT_SUFFIXES = (".cadot", ".c4db")
PONS_SUFFIXES = (".book",)


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


def _looks_like_pons(path: Path, size: int) -> bool:
    """Header fields in range and the file exactly as long as the header announces."""
    if size < HEADER_BYTES:
        return False
    with open(path, "rb") as fh:
        width, height, depth, nbytes, value_bytes, log_size = fh.read(HEADER_BYTES)
    if not (4 <= width <= 9 and 4 <= height <= 9 and depth <= width * height):
        return False
    if nbytes not in (1, 2, 4, 8) or value_bytes != 1 or not 1 <= log_size <= 32:
        return False
    return size == HEADER_BYTES + next_prime(1 << log_size) * (nbytes + 1)


def _looks_like_cadot(path: Path, size: int) -> bool:
    """Whole 7-byte records whose sampled keys are valid, ascending, and the smaller reading."""
    if size == 0 or size % CADOT_RECORD_BYTES:
        return False
    n = size // CADOT_RECORD_BYTES
    picks = sorted(set(np.linspace(0, n - 1, min(n, 64)).astype(int).tolist()))
    rows = []
    with open(path, "rb") as fh:
        for i in picks:
            fh.seek(i * CADOT_RECORD_BYTES)
            rows.append(fh.read(CADOT_RECORD_BYTES))
    keys = [int.from_bytes(r[:KEY_BYTES], "big") for r in rows]
    outcomes = [r[KEY_BYTES] for r in rows]
    if any(o & 0xC0 == 0xC0 or o & 0x3F > 42 for o in outcomes):
        return False
    if any(b <= a for a, b in itertools.pairwise(keys)):
        return False
    for key in keys:
        if key >= BASE**WIDTH:
            return False
        digits = [(key // BASE**k) % BASE for k in range(WIDTH)]
        mirrored = sum(BASE**k * digits[WIDTH - 1 - k] for k in range(WIDTH))
        if mirrored < key:
            return False
    return True


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
    return DEFAULT_BOARD


def detect_kind(path: str | os.PathLike[str]) -> str:
    """``"compact"``, ``"thill"``, ``"cadot"`` or ``"pons"`` for the file at ``path``.

    Compact books are recognised by their magic bytes, Pons books by their
    header (sizes in range, file exactly as long as announced); a
    ``.cadot``/``.c4db`` name means Cadot; otherwise a Thill book is tried
    (:func:`openingbook.bookfile.detect_format`: manifest, Thill's file names,
    or sampled records decoding to legal positions), then a Cadot table
    (sampled records valid and ascending). Raises ``ValueError`` naming what
    was tried when nothing fits.
    """
    p = Path(path)
    if not p.exists():
        raise BookFileMissing(p)
    size = p.stat().st_size
    if p.is_dir():
        raise BookFileError(f"{p}: is a directory, not a book")
    if is_compact(p):
        return "compact"
    if _looks_like_pons(p, size):
        return "pons"
    if p.suffix.lower() in CADOT_SUFFIXES:
        return "cadot"
    try:
        detect_format(p)
        return "thill"
    except BookFileError as exc:
        thill_error = str(exc)
    if _looks_like_cadot(p, size):
        return "cadot"
    raise BookFileError(
        f"{p}: not a book in a known format (Thill: {thill_error.split(': ', 1)[-1]}; "
        "not a Cadot table or a Pons book either)"
    )


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
