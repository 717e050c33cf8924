"""Where compiled code is cached: beside the package, else the user's cache, else a
private directory under the system's temporary directory.

numba (``@njit(cache=True)``) and the native cache (:mod:`openingbook.solver._native`) both
keep compiled kernels on disk. Beside the source (``__pycache__``) is the first
choice, as numba's own default; an installed package is often not writable by
the user who runs it, so the user's cache directory (``$XDG_CACHE_HOME`` or
``~/.cache``, then ``openingbook/<kind>``) comes next. When neither can be
written (a read-only install run with no home directory), the compiled code goes
to ``<temporary directory>/openingbook-<uid>/<kind>`` (:func:`private_temp_dir`):
created with mode 0700 and used only when it is a real directory owned by this
user that nobody else can write, so that no other user can plant code there. The
process that creates it says so on stderr, in one line: every later run finds the
kernels there and compiles nothing. Only when that fails too is nothing cached.
Writability is probed by creating a file, not by ``os.access``, which says yes to
root on a read-only file system.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     first_writable([Path(tmp) / "a" / "b"]) == Path(tmp) / "a" / "b"
True
>>> first_writable([]) is None
True
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "cache_dir",
    "first_writable",
    "numba_cache_dir",
    "private_temp_dir",
    "user_cache_dir",
    "writable",
]


def writable(directory: Path) -> bool:
    """Whether files can be created in ``directory`` (created if missing)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            return True
    except OSError:
        return False


def first_writable(candidates: Iterable[Path]) -> Path | None:
    """The first of ``candidates`` that :func:`writable` accepts, or None."""
    return next((c for c in candidates if writable(c)), None)


def user_cache_dir(kind: str) -> Path:
    """``$XDG_CACHE_HOME/openingbook/<kind>`` (``~/.cache`` when it is not set)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "openingbook" / kind


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def private_temp_dir(kind: str) -> Path | None:
    """``<tempfile.gettempdir()>/openingbook-<uid>/<kind>``, or None when that is not
    safe to use: the top directory must be a directory (not a symlink) owned by this
    user, with no permission for group or others. Creating it (mode 0700) prints one
    line on stderr, once for every process that will use it."""
    top = Path(tempfile.gettempdir()) / f"openingbook-{_uid()}"
    created = False
    try:
        os.mkdir(top, 0o700)
        created = True
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(top)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != _uid() or st.st_mode & 0o077:
        return None
    directory = top / kind
    if not writable(directory):
        return None
    if created:
        print(
            "openingbook: no writable cache directory (beside the package, $XDG_CACHE_HOME "
            f"or ~/.cache): compiled code is kept in {top}",
            file=sys.stderr,
        )
    return directory


def cache_dir(kind: str, local: Iterable[Path] = ()) -> Path | None:
    """Where compiled code of ``kind`` goes: the first writable of ``local``, else the
    user's cache directory, else :func:`private_temp_dir`; None when none can be used."""
    return first_writable([*local, user_cache_dir(kind)]) or private_temp_dir(kind)


def numba_cache_dir(package_dirs: Iterable[Path]) -> Path | bool | None:
    """Where numba should cache: True for its default (every package's ``__pycache__``
    is writable), a directory for ``NUMBA_CACHE_DIR``, or None for no cache at all."""
    if all(writable(d / "__pycache__") for d in package_dirs):
        return True
    return cache_dir("numba")
