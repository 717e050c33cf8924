"""The build's work directory: ours alone, locked while in use, one checksummed file per chunk.

A build splits its positions into chunks and saves each finished chunk as
``chunk-<id>.npz`` holding the chunk's positions (``first``, ``mask``), their
book values, the CPU seconds spent and a SHA-256 over all of these. Every file
is written to a temporary name in the same directory, flushed to disk and
renamed into place (:func:`openingbook.atomicio.atomic_write_bytes`), so a
build killed at any moment leaves only whole chunk files (plus stray
temporaries, removed on the next start). A chunk file that
fails to load, fails its checksum, or holds other positions than the plan
says is treated as missing and recomputed.

**Ours alone.** The marker file ``openingbook-work.json`` says that a build made
the directory's contents, for which settings, and whether it created the
directory itself. :meth:`WorkDir.open` uses a directory that is new, empty, or
marked for the same settings; it refuses one marked for other settings (chunks
of different builds never mix) and any other non-empty directory: it holds
someone else's files. :meth:`WorkDir.remove` deletes only the files a build
makes (marker, lock, chunk files, our temporaries) and then the directory,
if it is empty and the build created it. Nothing else is ever deleted.

**Locked.** ``openingbook-work.lock`` is locked (``fcntl.flock``) from
:meth:`WorkDir.open` to :meth:`WorkDir.close`: a second build of the same work
directory fails at once, naming the process that holds it. The kernel drops the
lock when its holder ends, however it ends, so a lock file left behind by a
killed build does not block the next one.

>>> import tempfile, numpy as np
>>> with tempfile.TemporaryDirectory() as tmp:
...     with WorkDir.open(os.path.join(tmp, "w"), {"plies": 4}) as wd:
...         chunk = ChunkResult(0, np.array([1], np.uint64), np.array([3], np.uint64),
...                             np.array([0], np.int8), 0.5)
...         path = wd.save_chunk(chunk)
...         values = wd.load_chunk(0).values.tolist()
...         wd.remove()  # only our own files, then the directory it created
...     values, os.listdir(tmp)
([0], [])
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import numpy as np

from openingbook.atomicio import atomic_write_bytes
from openingbook.errors import InvalidArgument, WorkDirError, WorkDirUnusable, os_failures

__all__ = [
    "LOCK_NAME",
    "MARKER_NAME",
    "ChunkResult",
    "WorkDir",
    "WorkDirError",
    "chunk_checksum",
    "is_own_file_name",
]

MARKER_NAME = "openingbook-work.json"
LOCK_NAME = "openingbook-work.lock"
#: What the marker says about its directory (any other content: not ours).
_MADE_BY = "openingbook build"
#: The settings file of work directories made before the marker existed; such a
#: directory is adopted when it holds nothing but a build's own files.
_LEGACY_SETTINGS_NAME = "settings.json"
_CHUNK_PREFIX = "chunk-"
_CHUNK_SUFFIX = ".npz"
# openingbook.atomicio writes ".<name>.openingbook-<host>-<pid>-<random>.tmp"
_TMP_SUFFIX = ".tmp"
_OWN_NAMES = (MARKER_NAME, LOCK_NAME, _LEGACY_SETTINGS_NAME)


def is_own_file_name(name: str) -> bool:
    """Whether a build makes files called ``name`` in its work directory.

    >>> [is_own_file_name(n) for n in ("chunk-0000003.npz", ".chunk-0000003.npz.k2j.tmp", "a.txt")]
    [True, True, False]
    """
    if name.startswith(".") and name.endswith(_TMP_SUFFIX):  # our atomic writes' temporaries
        return any(name.startswith(f".{own}.") for own in _OWN_NAMES) or (
            name.startswith(f".{_CHUNK_PREFIX}")
        )
    if name in _OWN_NAMES:
        return True
    digits = name[len(_CHUNK_PREFIX) : -len(_CHUNK_SUFFIX)]
    return name.startswith(_CHUNK_PREFIX) and name.endswith(_CHUNK_SUFFIX) and digits.isdigit()


@dataclass(frozen=True)
class ChunkResult:
    """One solved chunk: its positions, their book values and the CPU time spent."""

    chunk_id: int
    first: np.ndarray
    mask: np.ndarray
    values: np.ndarray
    cpu_seconds: float

    def __len__(self) -> int:
        return len(self.first)


def chunk_checksum(
    chunk_id: int, first: np.ndarray, mask: np.ndarray, values: np.ndarray, cpu: float
) -> str:
    """SHA-256 (hex) over a chunk's id, arrays (as little-endian bytes) and CPU time."""
    h = hashlib.sha256()
    h.update(f"chunk {chunk_id} n {len(first)} cpu {cpu!r}\n".encode())
    h.update(np.ascontiguousarray(first, dtype="<u8").tobytes())
    h.update(np.ascontiguousarray(mask, dtype="<u8").tobytes())
    h.update(np.ascontiguousarray(values, dtype="i1").tobytes())
    return h.hexdigest()


class WorkDir:
    """A build's work directory (see the module docstring).

    Use :meth:`open`, which creates (or adopts, or reopens) the directory, marks
    it and takes its lock; :meth:`close` (or leaving the ``with`` block) releases
    the lock, :meth:`remove` deletes what the build made. ``WorkDir(path,
    settings)`` alone only reads and writes chunk files (no checks, no lock).
    """

    def __init__(self, path: Path, settings: dict[str, Any], created: bool = False) -> None:
        self.path = Path(path)
        self.settings = settings
        #: whether a build created the directory (then :meth:`remove` may remove it)
        self.created = created
        self._lock: IO[bytes] | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str], settings: dict[str, Any]) -> WorkDir:
        """Create, adopt or reopen the work directory for ``settings`` (a JSON-able
        dict) and lock it.

        Raises :class:`WorkDirError` when ``path`` is not a directory, holds
        files a build did not make, is marked for other settings, or is locked
        by another process; :class:`WorkDirUnusable` (also ``OSError``) when the OS
        refuses to create, read or write it.
        """
        path = Path(path)
        wanted = json.loads(json.dumps(settings))  # normalise tuples etc. as JSON does
        with os_failures(path, WorkDirUnusable):  # what the OS refuses: one family member
            if path.exists() and not path.is_dir():
                raise WorkDirError(f"work directory {path} exists and is not a directory")
            created = False
            if not path.exists():
                try:
                    path.mkdir(parents=True)
                    created = True
                except FileExistsError:  # made a moment ago (another build): check it below
                    pass
                except OSError as exc:
                    raise WorkDirUnusable(path, exc, "cannot create work directory") from exc
            if not created:  # before the lock: nothing is created in a stranger's directory
                _refuse_foreign(path)
            wd = cls(path, wanted, created)
            wd._take_lock()
            try:
                wd._check_or_write_marker()
                wd._remove_temporaries()
            except BaseException:
                wd.close()
                raise
            return wd

    def _take_lock(self) -> None:
        """Lock ``openingbook-work.lock`` for this process, or fail naming its holder."""
        lock_path = self.path / LOCK_NAME
        try:
            fh = open(lock_path, "a+b")  # noqa: SIM115 - held open until close()
        except OSError as exc:
            raise WorkDirUnusable(self.path, exc, "cannot write work directory") from exc
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            fh.seek(0)
            holder = fh.read(40).decode("ascii", "replace").strip() or "unknown"
            fh.close()
            if exc.errno in (errno.EWOULDBLOCK, errno.EACCES, errno.EAGAIN):
                raise WorkDirError(
                    f"work directory {self.path} is being built by process {holder} "
                    f"(lock on {lock_path})"
                ) from None
            raise
        fh.truncate(0)
        fh.write(f"{os.getpid()}\n".encode())
        fh.flush()
        self._lock = fh

    def _check_or_write_marker(self) -> None:
        marker = self.path / MARKER_NAME
        if marker.exists():
            found = _read_marker(marker)
            self.created = bool(found.get("created_directory"))
            if found.get("settings") != self.settings:
                raise WorkDirError(
                    f"work directory {self.path} belongs to a build with other settings "
                    f"({_describe_difference(found.get('settings') or {}, self.settings)}); "
                    "choose another work directory or delete it"
                )
            return
        legacy = self.path / _LEGACY_SETTINGS_NAME
        if legacy.exists():
            try:
                found = json.loads(legacy.read_text())
            except (OSError, ValueError) as exc:
                raise WorkDirError(
                    f"work directory {self.path}: unreadable {_LEGACY_SETTINGS_NAME} ({exc})"
                ) from None
            if found != self.settings:
                raise WorkDirError(
                    f"work directory {self.path} belongs to a build with other settings "
                    f"({_describe_difference(found, self.settings)}); "
                    "choose another work directory or delete it"
                )
            # an older build's directory holding only its own files: it made the directory
            self.created = True
        elif any(p.name.startswith(_CHUNK_PREFIX) for p in self.path.iterdir()):
            raise WorkDirError(
                f"work directory {self.path} holds chunk files but no {MARKER_NAME}; "
                "choose another work directory or delete it"
            )
        content = {
            "made_by": _MADE_BY,
            "created_directory": self.created,
            "settings": self.settings,
        }
        atomic_write_bytes(marker, (json.dumps(content, indent=1) + "\n").encode())

    def close(self) -> None:
        """Release the lock (the files stay, for a rerun to resume from)."""
        if self._lock is not None:
            self._lock.close()  # closing the descriptor releases the flock
            self._lock = None

    def __enter__(self) -> WorkDir:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def remove(self) -> None:
        """Delete the files a build makes, then the directory if it is empty and ours.

        Files of other names (the book itself, when written into the work
        directory, or anything a user put there) are kept, and so is the
        directory holding them. The lock is held until its file is gone.
        """
        for p in self.path.iterdir():
            ours = p.name not in (MARKER_NAME, LOCK_NAME) and is_own_file_name(p.name)
            if ours and (p.is_file() or p.is_symlink()):  # never a directory of that name
                with contextlib.suppress(FileNotFoundError):
                    p.unlink()
        # the marker last but the lock: interrupted here, the directory is still recognisably ours
        with contextlib.suppress(FileNotFoundError):
            (self.path / MARKER_NAME).unlink()
        with contextlib.suppress(FileNotFoundError):
            (self.path / LOCK_NAME).unlink()
        self.close()
        if self.created:
            with contextlib.suppress(OSError):  # not empty: someone else's files are there
                self.path.rmdir()

    def _remove_temporaries(self) -> int:
        """Delete our half-written files left by a killed build; return how many."""
        removed = 0
        for p in self.path.iterdir():
            if p.name.startswith(".") and is_own_file_name(p.name):
                with contextlib.suppress(OSError):
                    p.unlink()
                    removed += 1
        return removed

    def chunk_path(self, chunk_id: int) -> Path:
        return self.path / f"{_CHUNK_PREFIX}{chunk_id:07d}{_CHUNK_SUFFIX}"

    def chunk_ids(self) -> list[int]:
        """Ids of the chunk files present (whole or not), ascending."""
        ids = []
        for p in self.path.iterdir():
            name = p.name
            if name.startswith(_CHUNK_PREFIX) and name.endswith(_CHUNK_SUFFIX):
                digits = name[len(_CHUNK_PREFIX) : -len(_CHUNK_SUFFIX)]
                if digits.isdigit():
                    ids.append(int(digits))
        return sorted(ids)

    def save_chunk(self, chunk: ChunkResult) -> Path:
        """Write one chunk file atomically; return its path."""
        first = np.ascontiguousarray(chunk.first, dtype=np.uint64)
        mask = np.ascontiguousarray(chunk.mask, dtype=np.uint64)
        values = np.ascontiguousarray(chunk.values, dtype=np.int8)
        if not len(first) == len(mask) == len(values):
            raise InvalidArgument(f"chunk {chunk.chunk_id}: arrays of different lengths")
        cpu = float(chunk.cpu_seconds)
        digest = chunk_checksum(chunk.chunk_id, first, mask, values, cpu)
        buf = io.BytesIO()
        np.savez(
            buf,
            chunk_id=np.int64(chunk.chunk_id),
            first=first,
            mask=mask,
            values=values,
            cpu_seconds=np.float64(cpu),
            sha256=np.array(digest),
        )
        path = self.chunk_path(chunk.chunk_id)
        atomic_write_bytes(path, buf.getvalue())
        return path

    def load_chunk(self, chunk_id: int) -> ChunkResult | None:
        """The chunk's saved result, or ``None`` when the file is missing or damaged.

        Damaged means: not a readable ``.npz``, a missing array, another chunk
        id, or a checksum that does not match the arrays.
        """
        path = self.chunk_path(chunk_id)
        try:
            with np.load(path, allow_pickle=False) as data:
                stored_id = int(data["chunk_id"])
                first = data["first"]
                mask = data["mask"]
                values = data["values"]
                cpu = float(data["cpu_seconds"])
                digest = str(data["sha256"])
        except FileNotFoundError:
            return None
        except Exception:  # any damage in the zip container or an array: recompute
            return None
        if stored_id != chunk_id or first.dtype != np.uint64 or mask.dtype != np.uint64:
            return None
        if values.dtype != np.int8 or not len(first) == len(mask) == len(values):
            return None
        if chunk_checksum(chunk_id, first, mask, values, cpu) != digest:
            return None
        return ChunkResult(chunk_id, first, mask, values, cpu)

    def discard_chunk(self, chunk_id: int) -> None:
        """Delete a chunk file (a damaged or stale one) if present."""
        with contextlib.suppress(FileNotFoundError):
            self.chunk_path(chunk_id).unlink()


def _refuse_foreign(path: Path) -> None:
    """Refuse a directory holding anything a build does not make (and no marker)."""
    names = sorted(p.name for p in path.iterdir())
    if MARKER_NAME in names:
        _read_marker(path / MARKER_NAME)  # ours, or refused before anything is created
        return
    foreign = [name for name in names if not is_own_file_name(name)]
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise WorkDirError(
            f"work directory {path} is not empty and was not made by a build "
            f"(it holds {foreign[0]!r}{more}); choose a new or empty directory"
        )


def _read_marker(marker: Path) -> dict[str, Any]:
    try:
        found = json.loads(marker.read_text())
    except (OSError, ValueError) as exc:
        raise WorkDirError(f"{marker}: unreadable work directory marker ({exc})") from None
    if not isinstance(found, dict) or found.get("made_by") != _MADE_BY:
        raise WorkDirError(f"{marker}: not a work directory marker of {_MADE_BY}")
    return found


def _describe_difference(found: dict[str, Any], wanted: dict[str, Any]) -> str:
    """``"plies 10 here, 12 asked"``-style summary of the first differing settings."""
    parts = []
    for key in sorted(set(found) | set(wanted)):
        if found.get(key) != wanted.get(key):
            parts.append(f"{key} {found.get(key)!r} there, {wanted.get(key)!r} now")
    return "; ".join(parts[:3]) if parts else "unknown difference"
