"""Where a written book came from: the record every writer keeps of how a book was made.

A book this project writes records its provenance (in a Thill book's manifest, in a
compact book's metadata): the command line as a user would type it on another machine
(:func:`clean_command`), the version, Python and the time it was made
(:func:`manifest_provenance`), and for a book made from other books their files'
SHA-256 (:func:`file_sha256`). Nothing here belongs to one format.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["clean_command", "file_sha256", "manifest_provenance", "recorded_command"]


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file's bytes (read in 1 MiB pieces)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def manifest_provenance(command: Sequence[str] | None) -> dict[str, Any]:
    """The command line, version and creation time of a manifest.

    ``command`` defaults to this process's arguments; either way it is recorded by
    :func:`clean_command`, as a user would type it on another machine.
    """
    from openingbook import __version__ as version

    argv = list(command) if command is not None else ["openingbook", *sys.argv[1:]]
    return {
        "command": clean_command(argv),
        "version": version,
        "python": sys.version.split()[0],
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def clean_command(argv: Sequence[str]) -> str:
    """``argv`` as a shell command without this machine in it.

    The program is ``openingbook`` (``sys.argv[0]`` may be ``-c``, a full path or
    ``__main__.py``); an absolute path becomes relative to the current directory
    when it lies below it, else its base name (``--work-dir /data/x/work`` ->
    ``--work-dir work``), also in ``--option=/path``. (The paths below are only text.)

    >>> clean_command(["-c", "build", "--plies", "8", "-o", "/data/runs/b8.dat"])
    'openingbook build --plies 8 -o b8.dat'
    >>> clean_command(["openingbook", "merge", "--output=/srv/x/b.dat", "part 1.dat"])
    "openingbook merge --output=b.dat 'part 1.dat'"
    """
    words = ["openingbook", *argv[1:]] if argv else ["openingbook"]
    import shlex

    return shlex.join(_machine_free(word) for word in words)


def recorded_command(command: object) -> str | None:
    """A source's recorded command (``"command"`` of its manifest) as
    :func:`clean_command` records one today, for a book that lists its sources (a book
    built by an older version may name paths of the machine that built it); None when
    there is none.

    >>> recorded_command("openingbook build --part 1/32 -o /data/work/out/p01.c4b")
    'openingbook build --part 1/32 -o p01.c4b'
    >>> recorded_command(None) is None
    True
    """
    if not isinstance(command, str):
        return None
    import shlex

    return clean_command(shlex.split(command))


def _machine_free(word: str) -> str:
    option, eq, value = word.partition("=") if word.startswith("-") else ("", "", word)
    if not os.path.isabs(value):
        return word
    path = Path(value)
    try:
        relative = str(path.relative_to(Path.cwd()))
    except ValueError:
        relative = path.name
    return f"{option}{eq}{relative or '.'}"
