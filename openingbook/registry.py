"""Books by name: the compact books shipped with the package.

The repository's ``books/`` directory is installed as the package
``openingbook.shipped`` (``pyproject.toml`` maps it; only the ``.c4b`` files are
package data), so after ``pip install .`` the books are found from any
directory. A book's name is its file name without ``book`` and ``.c4b``:
``book12-dist.c4b`` is ``12-dist``, ``book8-under44444.c4b`` is
``8-under44444``; books of other board sizes end in their size,
``book12-dist-6x5.c4b`` is ``12-dist-6x5``. In a source checkout without an
install the ``books/`` directory beside the package is used.

:func:`resolve_book` is the one place where a name becomes a path: ``open_book``
and every command that reads a book call it.

>>> resolve_book("8").name
'book8.c4b'
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from openingbook.compact_magic import COMPACT_SUFFIX
from openingbook.errors import BookFileMissing

__all__ = ["ShippedBook", "book_name", "books_dir", "resolve_book", "shipped_books"]


def books_dir() -> Path | None:
    """The directory of the shipped books: the installed package's ``shipped``
    resources (found through :mod:`importlib.resources`), else ``books/`` of the
    source checkout; None when neither exists (or the package is not on a file
    system, e.g. in a zip archive: the books are memory-mapped files)."""
    installed = resources.files("openingbook") / "shipped"  # a normal install puts books/ here
    if isinstance(installed, Path) and installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parent.parent / "books"
    return checkout if checkout.is_dir() else None


def book_name(path: str | os.PathLike[str]) -> str:
    """The name of a shipped book file (``books/book12-dist.c4b`` -> ``12-dist``)."""
    return Path(path).name.removesuffix(COMPACT_SUFFIX).removeprefix("book")


@dataclass
class ShippedBook:
    """One shipped book: its name, file, size and what it holds."""

    name: str
    path: str
    bytes: int
    plies: int
    kind: str
    under: str | None
    positions: int
    provenance: dict[str, Any]
    #: the board size, ``"7x6"`` or another (``book12-dist-6x5.c4b``: ``12-dist-6x5``)
    board: str = "7x6"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def shipped_books() -> list[ShippedBook]:
    """Every shipped book (header read, payload not verified), by ply, kind and name."""
    from openingbook.compact import CompactBook, provenance

    directory = books_dir()
    if directory is None:
        return []
    out = []
    for path in sorted(directory.glob(f"book*{COMPACT_SUFFIX}")):
        with CompactBook(path, verify=False) as book:
            h = book.header
            if book.part is not None:  # a part answers only some positions: not a book to list
                continue
            out.append(
                ShippedBook(
                    book_name(path),
                    str(path),
                    path.stat().st_size,
                    h.plies,
                    h.kind,
                    h.line,
                    h.positions,
                    provenance(h.metadata),
                    str(h.board),
                )
            )
    # 7x6 first, then the other boards, each by ply, kind and name
    return sorted(
        out, key=lambda b: (b.board != "7x6", b.board, b.plies, b.kind, b.under or "", b.name)
    )


def resolve_book(book: str | os.PathLike[str]) -> Path:
    """The file of ``book``: a path as it is, else a shipped book's name.

    Raises :class:`~openingbook.errors.BookFileMissing` (a ``FileNotFoundError``)
    naming the shipped books for a bare name (no ``/`` or ``.``) that is neither a
    file nor a shipped book.
    """
    path = Path(book)
    if path.exists():
        return path
    name = str(book)
    if any(c in name for c in ("/", os.sep, ".")):
        return path  # a path, not a name: the reader names what is missing
    directory = books_dir()
    if directory is None:
        raise BookFileMissing(name)
    candidate = directory / f"book{name.removeprefix('book')}{COMPACT_SUFFIX}"
    if candidate.is_file():
        return candidate
    names = ", ".join(book_name(p) for p in sorted(directory.glob(f"book*{COMPACT_SUFFIX}")))
    raise BookFileMissing(name, f"no such book file, nor a shipped book (shipped books: {names})")
