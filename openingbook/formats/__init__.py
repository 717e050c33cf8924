"""Every book format: open, load, detect, describe and write a book whatever its format.

The face of the formats: the names below, from the format registry
(:mod:`openingbook.formats.registry`), which knows every format's module
(:mod:`.thill`, :mod:`.compact`, :mod:`.cadot`, :mod:`.pons`, :mod:`.uci`,
:mod:`.tabular`, :mod:`.npz`, :mod:`.parquet`). A format is a registry entry
(:class:`~openingbook.formats.base.Format`): callers pass entries, never names;
:func:`as_format` turns the text of a ``--format`` option into one, once. Names are
imported from the registry when first asked for, so that importing a format's module
loads no registry (and the registry no format a command does not use).

>>> from openingbook.formats import detect, format_named
>>> detect("books/book8.c4b") is format_named("compact")
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openingbook.answers import BookReader
    from openingbook.formats.base import Format, WrittenBook
    from openingbook.formats.registry import (
        FORMATS,
        Layout,
        as_format,
        describe,
        detect,
        format_named,
        format_of,
        load_book,
        open_book,
        read_model,
        read_records,
        readable_formats,
    )

__all__ = [
    "FORMATS",
    "BookReader",
    "Format",
    "Layout",
    "WrittenBook",
    "as_format",
    "describe",
    "detect",
    "format_named",
    "format_of",
    "load_book",
    "open_book",
    "read_model",
    "read_records",
    "readable_formats",
]


def __getattr__(name: str) -> Any:
    # the face's names come from the registry, loaded when one is first asked for (PEP 562):
    # the face itself runs no module, so that a format's module runs no registry
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}.registry"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
