"""How a compact book is recognised: its magic bytes and file suffix.

Kept apart from :mod:`openingbook.compact` (which compiles its lookup kernels with numba)
so that recognising a file, resolving a shipped book's name or reading a Thill book never
loads the compiler (start-up of ``lookup``, ``info``, ``--help``).

>>> is_compact("no-such-file.c4b")
False
"""

from __future__ import annotations

import os

MAGIC = b"C4BOOK\x1a\n"
COMPACT_SUFFIX = ".c4b"


def is_compact(path: str | os.PathLike[str]) -> bool:
    """Does the file start with the compact format's magic? (A FIFO or a device is
    refused unopened: :func:`openingbook.inputs.require_regular_file`.)"""
    from openingbook.inputs import require_regular_file

    if os.path.isdir(path):
        return False
    try:
        require_regular_file(path)
        with open(path, "rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC
    except (IsADirectoryError, FileNotFoundError):
        return False
