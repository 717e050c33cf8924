"""Where compiled code is cached: beside the package, else the user's cache, else nowhere.

numba (``@njit(cache=True)``) and the native cache (:mod:`solver._native`) both
keep compiled kernels on disk. Beside the source (``__pycache__``) is the first
choice, as numba's own default; an installed package is often not writable by
the user who runs it, so the user's cache directory (``$XDG_CACHE_HOME`` or
``~/.cache``, then ``openingbook/<kind>``) comes next; when neither can be
written (a read-only install run with no home directory) nothing is cached and
every process compiles what it uses. Writability is probed by creating a file,
not by ``os.access``, which says yes to root on a read-only file system.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     first_writable([Path(tmp) / "a" / "b"]) == Path(tmp) / "a" / "b"
True
>>> first_writable([]) is None
True
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = ["first_writable", "numba_cache_dir", "user_cache_dir", "writable"]


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


def numba_cache_dir(package_dirs: Iterable[Path]) -> Path | bool | None:
    """Where numba should cache: True for its default (every package's ``__pycache__``
    is writable), a directory for ``NUMBA_CACHE_DIR``, or None for no cache at all."""
    if all(writable(d / "__pycache__") for d in package_dirs):
        return True
    return first_writable([user_cache_dir("numba")])
