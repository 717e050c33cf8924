"""The compact book format (``.c4b``): the face of its package.

The format itself is :mod:`.book` (header, writer, reader and the registry's entry);
its engine lives beside it: the position contexts (:mod:`.contexts`), the retrieval
table of version 2 (:mod:`.retrieval`) and the compressed static function of version 3
(:mod:`.compressed`). The names below are taken from :mod:`.book` when first asked for
(PEP 562), so that importing a module of the engine runs no format code.

>>> from openingbook.formats.compact import CompactBook, read_header
>>> read_header("books/book8.c4b").plies
8
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openingbook.formats.compact.book import (
        COMPACT_SUFFIX,
        VERSION,
        CompactBook,
        CompactFileError,
        CompactFormat,
        CompactHeader,
        describe_compact,
        is_compact,
        provenance,
        read_header,
        write_compact,
    )

__all__ = [
    "COMPACT_SUFFIX",
    "VERSION",
    "CompactBook",
    "CompactFileError",
    "CompactFormat",
    "CompactHeader",
    "describe_compact",
    "is_compact",
    "provenance",
    "read_header",
    "write_compact",
]


def __getattr__(name: str) -> Any:
    # the face runs no module until a name is asked for: the engine's modules (numba
    # kernels, the checks' entropy measure) import without the format's reader
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}.book"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
