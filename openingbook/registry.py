"""The shipped books listed: every compact book shipped with the package, its header
read (and with ``verify`` its whole file checked).

Names and where the books are live in :mod:`openingbook.booknames`; their functions
are also importable from here (``resolve_book``, ``books_dir``, ...).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from openingbook.booknames import (
    DEEP_BOOKS,
    DEEP_BOOKS_DISTRIBUTION,
    book_name,
    books_dir,
    deep_books_dir,
    distance_book_plies,
    lookup_stones,
    missing_deep_books,
    resolve_book,
    shipped_paths,
    shipped_twin,
)

__all__ = [
    "ShippedBook",
    "book_name",
    "books_dir",
    "deep_books_dir",
    "distance_book_plies",
    "lookup_stones",
    "missing_deep_books",
    "resolve_book",
    "shipped_books",
    "shipped_paths",
    "shipped_twin",
]


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
    #: why the file cannot be read as a compact book (then the other fields are empty)
    damaged: str | None = None
    #: the distribution that installs it: ``openingbook``, or ``openingbook-books`` for
    #: the deep books (:data:`openingbook.booknames.DEEP_BOOKS`)
    package: str = "openingbook"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def shipped_books(verify: bool = False) -> list[ShippedBook]:
    """Every shipped book, by ply, kind and name: its header read and checked and,
    with ``verify``, its whole file checked against the CRC-32 its header stores (a
    byte changed anywhere, header or body, is found; a few milliseconds per megabyte).

    A file that cannot be read as a compact book, or fails that check, is listed with
    the reason in ``damaged`` (and no contents): one bad file hides none of the others.
    """
    from openingbook.formats.compact import CompactBook, provenance

    out = []
    for path in shipped_paths():
        try:
            book = CompactBook(path, verify=verify)
        except (ValueError, OSError) as exc:
            reason = " ".join(str(exc).removeprefix(f"{path}: ").split())
            out.append(
                ShippedBook(
                    book_name(path), str(path), _size(path), 0, "", None, 0, {}, "", reason,
                    _package(path),
                )
            )  # fmt: skip
            continue
        with book:
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
                    package=_package(path),
                )
            )
    # 7x6 first, then the other boards, each by ply, kind and name; damaged files last
    return sorted(
        out,
        key=lambda b: (
            b.damaged is not None,
            b.board != "7x6",
            b.board,
            b.plies,
            b.kind,
            b.under or "",
            b.name,
        ),
    )


def _package(path: Path) -> str:
    """The distribution a shipped book comes with (by its name: a deep book's file is
    in the data package's directory)."""
    return DEEP_BOOKS_DISTRIBUTION if book_name(path) in DEEP_BOOKS else "openingbook"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
