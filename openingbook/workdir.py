"""The build's work directory: a settings file and one checksummed file per chunk.

A build splits its positions into chunks and saves each finished chunk as
``chunk-<id>.npz`` holding the chunk's positions (``first``, ``mask``), their
book values, the CPU seconds spent and a SHA-256 over all of these. Every file
is written to a temporary name in the same directory, flushed to disk and
renamed into place (:func:`openingbook.atomicio.atomic_write_bytes`), so a
build killed at any moment leaves only whole chunk files (plus stray
temporaries, removed on the next start). A chunk file that
fails to load, fails its checksum, or holds other positions than the plan
says is treated as missing and recomputed.

``settings.json`` records what the chunks were computed for; opening a work
directory made for other settings is an error, so chunks of different builds
never mix.

>>> import tempfile, numpy as np
>>> with tempfile.TemporaryDirectory() as tmp:
...     wd = WorkDir.open(tmp, {"plies": 4})
...     chunk = ChunkResult(0, np.array([1], np.uint64), np.array([3], np.uint64),
...                         np.array([0], np.int8), 0.5)
...     path = wd.save_chunk(chunk)
...     wd.load_chunk(0).values.tolist()
[0]
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from openingbook.atomicio import atomic_write_bytes

__all__ = [
    "SETTINGS_NAME",
    "ChunkResult",
    "WorkDir",
    "WorkDirError",
    "chunk_checksum",
]

SETTINGS_NAME = "settings.json"
_CHUNK_PREFIX = "chunk-"
_CHUNK_SUFFIX = ".npz"
# openingbook.atomicio writes ".<name>.<random>.tmp"
_TMP_PREFIX = "."
_TMP_SUFFIX = ".tmp"


class WorkDirError(ValueError):
    """The work directory cannot be used (other settings, not a directory, ...)."""


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

    Use :meth:`open`, which creates the directory and its settings file, or
    checks that an existing one was made for the same ``settings``.
    """

    def __init__(self, path: Path, settings: dict[str, Any]) -> None:
        self.path = path
        self.settings = settings

    @classmethod
    def open(cls, path: str | os.PathLike[str], settings: dict[str, Any]) -> WorkDir:
        """Create or reopen the work directory for ``settings`` (a JSON-able dict).

        Raises :class:`WorkDirError` when ``path`` holds a settings file for
        other settings or is not a directory, and ``OSError`` when it cannot
        be created or written.
        """
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise WorkDirError(f"work directory {path} exists and is not a directory")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OSError(f"cannot create work directory {path}: {exc.strerror or exc}") from None
        wanted = json.loads(json.dumps(settings))  # normalise tuples etc. as JSON does
        settings_file = path / SETTINGS_NAME
        if settings_file.exists():
            try:
                found = json.loads(settings_file.read_text())
            except (OSError, ValueError) as exc:
                raise WorkDirError(
                    f"work directory {path}: unreadable {SETTINGS_NAME} ({exc}); "
                    "delete the directory or choose another --work-dir"
                ) from None
            if found != wanted:
                raise WorkDirError(
                    f"work directory {path} belongs to a build with other settings "
                    f"({_describe_difference(found, wanted)}); "
                    "use another --work-dir or delete it"
                )
        else:
            stray = [p.name for p in path.iterdir() if p.name.startswith(_CHUNK_PREFIX)]
            if stray:
                raise WorkDirError(
                    f"work directory {path} holds chunk files but no {SETTINGS_NAME}; "
                    "use another --work-dir or delete it"
                )
            atomic_write_bytes(settings_file, (json.dumps(wanted, indent=1) + "\n").encode())
        wd = cls(path, wanted)
        wd.remove_temporaries()
        return wd

    def remove_temporaries(self) -> int:
        """Delete half-written files left by a killed build; return how many."""
        removed = 0
        for p in self.path.iterdir():
            if p.name.startswith(_TMP_PREFIX) and p.name.endswith(_TMP_SUFFIX):
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
            raise ValueError(f"chunk {chunk.chunk_id}: arrays of different lengths")
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


def _describe_difference(found: dict[str, Any], wanted: dict[str, Any]) -> str:
    """``"plies 10 here, 12 asked"``-style summary of the first differing settings."""
    parts = []
    for key in sorted(set(found) | set(wanted)):
        if found.get(key) != wanted.get(key):
            parts.append(f"{key} {found.get(key)!r} there, {wanted.get(key)!r} now")
    return "; ".join(parts[:3]) if parts else "unknown difference"
