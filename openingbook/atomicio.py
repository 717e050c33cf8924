"""Atomic file output: every file this project writes goes through here.

Output goes to a temporary file ``.<name>.openingbook-<host>-<pid>-<random>.tmp``
in the destination's directory, is flushed to disk and then renamed over the
destination, so that a reader sees either the old file or the complete new one,
never a half-written one. The file gets an ordinary mode (0666 less the umask),
not mkstemp's 0600. On any exception, Ctrl-C and (on the command line)
SIGTERM/SIGHUP included, the temporary file is removed; so is one still being
written when the process exits (the command line ends a stopped command without
waiting for a long compiled call in the thread that writes).

A process killed outright (SIGKILL, a power cut) cannot remove its temporary
file; its name says whose it is (``<host>``: a hash of this machine's name,
``<pid>``: the writing process), and the first atomic write of a process into a
directory removes the temporary files there that this machine's processes left
and whose process is gone (:func:`remove_stale_temporaries`). Nothing else is
ever removed: not a file of another name, not one of a running process, not
one written from another machine sharing the directory.

What may be written is decided here and only here: a new path, or (with
``force``) an existing **regular file** the user may write
(:func:`check_replaceable`). A device (``/dev/null``), a named pipe, a socket, a
directory, a link to one of those, or a read-only file is never replaced,
``force`` or not. The path ``-`` (:data:`STDOUT`) is standard output, written as
it comes (the command line's convention for text outputs).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import socket
import stat
import sys
import tempfile
import threading
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from openingbook.errors import (
    InvalidArgument,
    OutputDirectoryMissing,
    OutputError,
    OutputExists,
    OutputNotReplaceable,
    OutputUnwritable,
    os_failures,
)

#: the output path that means standard output (text outputs; nothing is renamed)
STDOUT = "-"

#: this machine in temporary files' names: a hash of its host name (8 hex digits)
_HOST = f"{zlib.crc32(socket.gethostname().encode()):08x}"
#: a temporary file of :func:`atomic_output` on this machine: the writer's process id
_OWN_TEMPORARY = re.compile(rf"\..+\.openingbook-{_HOST}-(\d+)-[a-z0-9_]+\.tmp")
#: directories this process has cleared of stale temporary files already
_CLEARED: set[str] = set()
_CLEARED_LOCK = threading.Lock()
#: this process's temporary files not yet renamed or removed: removed at exit too
#: (:func:`_remove_live_temporaries`), for a command stopped while another thread writes
_LIVE: set[str] = set()


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], text: bool = False) -> Iterator[IO]:
    """Open a temporary file next to ``path``; on success fsync it and rename it to ``path``.

    On any exception the temporary file is removed and ``path`` is untouched.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> with atomic_output(os.path.join(d, "x.txt"), text=True) as fh:
    ...     _ = fh.write("hello")
    >>> open(os.path.join(d, "x.txt")).read()
    'hello'
    """
    if os.fspath(path) == STDOUT:
        yield from _standard_output(text)
        return
    path = Path(path)
    _require_directory(path)
    with os_failures(path, OutputUnwritable):
        if path.is_dir():
            raise OutputError(f"{path}: the output path is a directory")
        check_replaceable(path)  # whatever the caller checked: never a device, a FIFO, ...
    fd, tmp = _temporary_beside(path)
    try:
        mode = "w" if text else "wb"
        kwargs = {"encoding": "utf-8", "newline": "\n"} if text else {}
        with _writes_to(path, tmp), os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
            fh.close()
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        _LIVE.discard(tmp)


def _standard_output(text: bool) -> Iterator[IO]:
    """Standard output as the stream of :func:`atomic_output` (``-``), flushed at the end."""
    stream = sys.stdout
    if stream is None:
        raise OutputError("cannot write standard output: it is closed")
    with _writes_to("standard output"):  # a full disk, a closed pipe (EPIPE): OutputUnwritable
        stream.flush()
        out = stream if text else stream.buffer
        yield out
        out.flush()


@contextlib.contextmanager
def _writes_to(path: object, *files: object) -> Iterator[None]:
    """An ``OSError`` of writing the output (without a file name: a write, a flush,
    ``fsync``; or naming the output or its temporary ``files``: the rename) as
    :class:`OutputUnwritable` naming ``path`` (a full disk, an I/O error); an error
    naming another file (an input the caller reads while writing) passes as it is."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None and str(exc.filename) not in map(str, (path, *files)):
            raise
        with os_failures(path, OutputUnwritable):
            raise


def check_replaceable(path: str | os.PathLike[str]) -> None:
    """:class:`~openingbook.errors.OutputNotReplaceable` unless ``path`` is new or an
    existing regular file (or a link to one) that this user may write.

    >>> check_replaceable("/dev/null")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    openingbook.errors.OutputNotReplaceable: /dev/null is a character device, not a regular...
    """
    if os.fspath(path) == STDOUT or not os.path.lexists(path):
        return
    try:
        mode = os.stat(path).st_mode
    except OSError:  # a link to nothing, a loop: replacing it would hide that
        raise OutputNotReplaceable(
            f"{path} is a symbolic link that leads nowhere: only new paths and regular "
            "files are written"
        ) from None
    if not stat.S_ISREG(mode):
        raise OutputNotReplaceable(
            f"{path} is {_kind(mode)}, not a regular file: only new paths and regular "
            "files are written"
        )
    if not os.access(path, os.W_OK):
        raise OutputNotReplaceable(f"{path} is read-only: only files you may write are replaced")


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "a special file"


def _temporary_beside(path: Path) -> tuple[int, str]:
    """A new temporary file ``.<name>.openingbook-<host>-<pid>-<random>.tmp`` beside
    ``path``, with an ordinary file's mode: ``(descriptor, name)``. The first one of
    this process in a directory removes the stale ones there first."""
    directory = path.parent if str(path.parent) else Path(".")
    _clear_once(directory)
    prefix = f".{path.name}.openingbook-{_HOST}-{os.getpid()}-"
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=prefix, suffix=".tmp")
    except OSError as exc:  # /proc/x, a read-only directory: name the output, not the temp file
        raise OutputUnwritable(path, exc) from exc
    try:
        _live(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it private; give a normal file's mode
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        _LIVE.discard(tmp)
        raise
    return fd, tmp


def _live(tmp: str) -> None:
    """Note ``tmp`` as this process's until renamed or removed; the first one registers
    their removal at exit."""
    if not _LIVE and not _LIVE_AT_EXIT:
        _LIVE_AT_EXIT.append(True)
        atexit.register(_remove_live_temporaries)
    _LIVE.add(tmp)


_LIVE_AT_EXIT: list[bool] = []


def _remove_live_temporaries() -> None:
    """At exit: remove the temporary files still being written. None after a normal run
    (each is renamed or removed where it was made); after a signal, the command line ends
    the process without waiting for work stuck in a long compiled call, whose temporary
    file goes here."""
    for tmp in list(_LIVE):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        _LIVE.discard(tmp)


def _clear_once(directory: Path) -> None:
    """:func:`remove_stale_temporaries` of ``directory``, once per process."""
    key = os.path.abspath(directory)
    with _CLEARED_LOCK:
        if key in _CLEARED:
            return
        _CLEARED.add(key)
    remove_stale_temporaries(directory)


def remove_stale_temporaries(directory: str | os.PathLike[str]) -> list[str]:
    """Remove the temporary files of :func:`atomic_output` in ``directory`` that a
    process of this machine left behind and that is gone (killed outright); return
    their names. Only regular files of that name pattern whose process no longer
    runs; a directory that cannot be listed is left alone.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> dead = 2**22 + 1  # above Linux's largest process id: no such process
    >>> stale = f".b.c4b.openingbook-{_HOST}-{dead}-x1y2z3.tmp"
    >>> for name in (stale, ".b.c4b.x1y2z3.tmp", "notes.txt"):
    ...     open(os.path.join(d, name), "w").close()
    >>> remove_stale_temporaries(d) == [stale], sorted(os.listdir(d))
    (True, ['.b.c4b.x1y2z3.tmp', 'notes.txt'])
    """
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        match = _OWN_TEMPORARY.fullmatch(entry.name)
        if match is None or _process_runs(int(match.group(1))):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(entry.name)
    return removed


def _process_runs(pid: int) -> bool:
    """Is there a process ``pid`` on this machine (of any user)? True when that cannot
    be told: a file is removed only when its process is known to be gone."""
    try:
        os.kill(pid, 0)  # signal 0: nothing is sent, the process is only looked up
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # another user's process (EPERM), or no process id
        return True
    return True


def write_together(files: Sequence[tuple[str | os.PathLike[str], bytes]]) -> None:
    """Write several files as one unit: every file to a temporary file first (flushed to
    disk; a failure there, a full disk say, leaves everything as it was), then an
    existing last file is removed and the files are renamed into place in the given
    order, the last one last, and the directory is synced.

    So a reader that checks the earlier files against the last one (a manifest and
    its book) finds either the previous set or the earlier files without the last,
    never the last file with another's companions.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> write_together([(os.path.join(d, "b.json"), b"{}"), (os.path.join(d, "b"), b"x")])
    >>> sorted(os.listdir(d))
    ['b', 'b.json']
    """
    targets = [Path(path) for path, _ in files]
    for target in targets:  # never a device, a FIFO, ..., whatever the caller checked
        check_replaceable(target)
    staged: list[str] = []
    try:
        for target, (_, data) in zip(targets, files, strict=True):
            fd, tmp = _temporary_beside(target)
            staged.append(tmp)
            with _writes_to(target, tmp), os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        with os_failures(targets[-1], OutputUnwritable):
            if os.path.lexists(targets[-1]):
                os.unlink(targets[-1])  # from here until the last rename: the others without it
        for tmp, target in zip(staged, targets, strict=True):
            with _writes_to(target, tmp):
                os.replace(tmp, target)
    except BaseException:
        for tmp in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    finally:
        _LIVE.difference_update(staged)
    for directory in {target.parent for target in targets}:
        _sync_directory(directory)


def _require_directory(path: Path) -> None:
    """:class:`OutputDirectoryMissing` when the directory ``path`` goes into does not exist."""
    directory = path.parent if str(path.parent) else Path(".")
    with os_failures(path, OutputUnwritable):  # a name too long, a directory we may not search
        if not directory.is_dir():
            raise OutputDirectoryMissing(f"{directory}: the output directory does not exist")


def check_writable(path: str | os.PathLike[str]) -> None:
    """:class:`OutputUnwritable` (an ``OSError``) naming ``path`` when a file cannot be
    created in its directory (a probe file is created and removed), before any long
    work that would write it."""
    path = Path(path)
    _require_directory(path)
    fd, probe = _temporary_beside(path)
    try:
        os.close(fd)
        os.unlink(probe)
    finally:
        _LIVE.discard(probe)


def _sync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory if str(directory) else ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _umask() -> int:
    """The process umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def refuse_existing(path: str | os.PathLike[str], force: bool) -> None:
    """What :func:`check_replaceable` refuses (a device, a FIFO, a read-only file, a
    dangling link, ...), forced or not: ``--force`` would not help, so it is not
    suggested; then :class:`~openingbook.errors.OutputExists` when ``path`` exists
    and ``force`` is off.

    Every command that writes a file refuses to replace one unless told to.
    Standard output (``-``) is never refused.
    """
    if os.fspath(path) == STDOUT:
        return
    check_replaceable(path)
    if not force and os.path.lexists(path):
        raise OutputExists(path)


def refuse_input_as_output(
    outputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    inputs: Sequence[str | os.PathLike[str]],
) -> None:
    """:class:`~openingbook.errors.InvalidArgument` when an output is one of the inputs.

    Every command that reads files and writes others calls this before any
    work, with ``--force`` or without: nothing ever writes over what it reads.
    Paths are compared resolved (symbolic links, ``..``) and, when both exist,
    as files (:func:`os.path.samefile`: hard links, other mount points).
    Callers pass the companions too: a book's manifest is an output beside the
    book, and an input's manifest is an input.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> book = os.path.join(d, "b.dat")
    >>> refuse_input_as_output(os.path.join(d, "c.dat"), [book])  # different files: fine
    >>> refuse_input_as_output(os.path.join(d, ".", "b.dat"), [book])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    openingbook.solver.errors.InvalidArgument: output ....dat is also an input: choose another ...
    """
    if isinstance(outputs, (str, os.PathLike)):
        outputs = [outputs]
    for output in outputs:
        if os.fspath(output) == STDOUT:
            continue
        for source in inputs:
            if _same_path(Path(output), Path(source)):
                also = "" if Path(output) == Path(source) else f" (as {source})"
                raise InvalidArgument(
                    f"output {output} is also an input{also}: choose another output"
                )


def _same_path(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): not the same file
        return False


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_output(path) as fh:
        fh.write(data)


def write_json_atomic(path: str | os.PathLike[str], obj: object) -> None:
    """Write ``obj`` as indented JSON (and a final newline) to ``path`` atomically."""
    atomic_write_bytes(path, (json.dumps(obj, indent=2) + "\n").encode())
