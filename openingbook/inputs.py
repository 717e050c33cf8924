"""What the library reads from the user: regular files only, text only up to a bound.

Two rules, one home:

* A book or a manifest is a **regular file**. A named pipe (FIFO) would block
  the first ``open`` until something writes into it (forever, from a command
  line), a device (``/dev/zero``) never ends, a directory is no book:
  :func:`require_regular_file` refuses them from ``stat`` alone, without opening
  them. :func:`openingbook.registry.resolve_book` (every book argument), the
  readers and the manifest reader call it.
* Text from a stream (``solve --file``, ``lookup --board -``, a manifest) is read
  **with a bound**: :func:`bounded_lines` refuses a line longer than
  ``max_line`` characters, :func:`read_bounded` more than ``limit`` characters,
  so that ``/dev/zero`` or a runaway pipe is a one-line error, not a process
  that grows until the machine swaps.

>>> import io
>>> list(bounded_lines(io.StringIO("44\\n4453\\n"), "moves.txt"))
['44\\n', '4453\\n']
>>> read_bounded(io.StringIO("x" * 10), "standard input", limit=4)
Traceback (most recent call last):
openingbook.errors.BookFileError: standard input: more than 4 characters; this is not a diagram
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from openingbook.errors import BookFileError

__all__ = [
    "MAX_LINE_CHARS",
    "MAX_MANIFEST_BYTES",
    "bounded_lines",
    "read_bounded",
    "require_regular_file",
]

#: the longest line of a move-string file: a 64-cell board's game with commas is 190
MAX_LINE_CHARS = 4096
#: a manifest is a few KB; 16 MiB leaves room for any provenance
MAX_MANIFEST_BYTES = 16 << 20

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def require_regular_file(path: str | os.PathLike[str], what: str = "book") -> Path:
    """``path`` if it is a regular file (or a link to one); else :class:`BookFileError`.

    Decided by ``stat``, never by opening (opening a FIFO waits for a writer).
    A missing path raises ``FileNotFoundError`` as ``open`` would.

    >>> require_regular_file("/dev/null")
    Traceback (most recent call last):
    openingbook.errors.BookFileError: /dev/null: a character device, not a book file
    """
    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode):
        return Path(path)
    if stat.S_ISDIR(mode):
        raise BookFileError(f"{os.fspath(path)}: is a directory, not a {what}")
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise BookFileError(f"{os.fspath(path)}: {kind}, not a {what} file")


def bounded_lines(stream: TextIO, name: str, max_line: int = MAX_LINE_CHARS) -> Iterator[str]:
    """The lines of ``stream``, each read with at most ``max_line + 1`` characters in memory.

    A longer line is :class:`BookFileError` naming ``name`` and the line number.
    """
    number = 0
    while True:
        line = stream.readline(max_line + 1)
        if not line:
            return
        number += 1
        if len(line) > max_line and not line.endswith("\n"):
            raise BookFileError(
                f"{name}: line {number} is longer than {max_line} characters; "
                "expected one move string per line"
            )
        yield line


def read_bounded(stream: TextIO, name: str, limit: int, what: str = "a diagram") -> str:
    """All of ``stream``, refused (:class:`BookFileError`) beyond ``limit`` characters."""
    text = stream.read(limit + 1)
    if len(text) > limit:
        raise BookFileError(f"{name}: more than {limit} characters; this is not {what}")
    return text
