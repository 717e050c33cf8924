"""Markus Thill's book format: the face of its package.

The format is :mod:`.book` (record layouts, the manifest and a book's identity, the
writer, the memory-mapped reader and the registry's entry). The names below are the
ones callers use: the reader (:class:`Book`), the record layouts (:class:`BookFormat`,
Thill's three files :data:`BOOK8`, :data:`BOOK12`, :data:`BOOK12_DIST`), records and
their writer, the manifest beside a book, a book's identity and the registry's entry.
They are taken from :mod:`.book` when first asked for (PEP 562).

>>> from openingbook.formats.thill import BOOK8, manifest_path
>>> BOOK8.name, manifest_path("book12.dat").name
('8-ply', 'book12.dat.json')
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openingbook.formats.thill.book import (
        BOOK8,
        BOOK12,
        BOOK12_DIST,
        Book,
        BookFormat,
        Records,
        ThillFormat,
        describe_book,
        identify,
        manifest_path,
        read_manifest,
        thill_values,
        write_book,
    )

__all__ = [
    "BOOK8",
    "BOOK12",
    "BOOK12_DIST",
    "Book",
    "BookFormat",
    "Records",
    "ThillFormat",
    "describe_book",
    "identify",
    "manifest_path",
    "read_manifest",
    "thill_values",
    "write_book",
]


def __getattr__(name: str) -> Any:
    # the face runs no module until a name is asked for (the format registry's layers)
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}.book"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
