"""The library's exceptions: one family under :class:`Error`.

``except openingbook.Error`` catches every failure of the library, the solver's
included (the root lives in :mod:`openingbook.solver.errors`, the lowest layer, and is the
same class here). Beneath it:

* :class:`InvalidArgument` (also ``ValueError``): an argument value that can
  never work, whatever the files hold (a malformed move string, a bad shard
  spec, a table size out of range). The command line exits with status 2; the
  message names the argument by its library name, which the command line
  replaces by its flag (:meth:`InvalidArgument.describe`).
* :class:`BookFileError` (also ``ValueError``): a file that is not the book it
  should be (damaged, unknown format, a manifest that does not match), or a book
  that cannot serve the call (a partial book where a complete one is needed).
  :class:`BookFileMissing` (also ``FileNotFoundError``) when there is no file,
  :class:`ForeignBook` for another engine's book where a command reads only
  Thill and compact books.
  :class:`openingbook.formats.compact.CompactFileError` is one of these.
* :class:`PositionNotInBook` (also ``KeyError``): a position the book does not
  answer; its ``str`` is the readable message, not a key's ``repr``.
* :class:`InternalError` (also ``RuntimeError``): a check of the library's own
  invariants failed, a bug to report (:mod:`openingbook.solver.errors`).
* :class:`SearchTimeout` (also ``TimeoutError``): a search, or an analysis
  (:mod:`openingbook.engine`), that its time limit stopped.
* :class:`BookClosed` (also ``ValueError``, like a closed file): a book used after
  ``close()``.
* :class:`OutputError` (an output path that cannot be written) and beneath it
  :class:`OutputExists` (an output file that needs ``force``), :class:`WorkDirError`
  (a work directory that cannot be used), :class:`NotEnoughMemory` (work refused
  before allocating): all also ``ValueError``, as they were before the family.
* :class:`MissingExtra` (also ``ImportError``): an optional dependency is not
  installed; the message names the extra that brings it.
* What the operating system refuses, at the library's boundaries (opening and loading
  books, atomic writes, work directories: :func:`os_failures`, :func:`reads_book`):
  :class:`BookFileUnreadable` (a :class:`BookFileError`), :class:`OutputUnwritable` (an
  :class:`OutputError`: a read-only directory, a full disk), :class:`WorkDirUnusable` (a
  :class:`WorkDirError`). Each is also the ``OSError`` it was: ``except OSError`` still
  catches it, ``errno``/``strerror``/``filename`` are the failure's and ``__cause__`` is
  the original error; its message is one line (``cannot write out.c4b: No space left on
  device``).

Everything but :class:`InvalidArgument` exits with status 1 on the command line
(``openingbook.cli._common.user_errors``).

>>> exc = InvalidArgument("expected 10 to 32", argument="table_log2", value=40)
>>> str(exc), exc.describe("--table-log2")
('table_log2 40: expected 10 to 32', '--table-log2 40: expected 10 to 32')
>>> missing = PositionNotInBook("4455 is not in book8.c4b")
>>> str(missing), isinstance(missing, KeyError), isinstance(missing, Error)
('4455 is not in book8.c4b', True, True)
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from openingbook.solver import Error, InternalError, InvalidArgument, SearchTimeout

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = [
    "BookClosed",
    "BookFileError",
    "BookFileMissing",
    "BookFileUnreadable",
    "Error",
    "ForeignBook",
    "InternalError",
    "InvalidArgument",
    "MissingExtra",
    "NotEnoughMemory",
    "OutputDirectoryMissing",
    "OutputError",
    "OutputExists",
    "OutputNotReplaceable",
    "OutputUnwritable",
    "PositionNotInBook",
    "SchedulerUnreachable",
    "SearchTimeout",
    "WorkDirError",
    "WorkDirUnusable",
    "WorkerLost",
]


class OutputError(Error, ValueError):
    """An output path that cannot be written: a directory, or in no existing directory."""


class OutputDirectoryMissing(OutputError, FileNotFoundError):
    """The output's directory does not exist (also ``FileNotFoundError``)."""


class OutputExists(OutputError):
    """An output file exists and the call was not told to replace it (``force``).

    Exit status 1: the argument is fine, the file system holds something.
    """

    def __init__(self, path: object) -> None:
        self.path = path
        super().__init__(f"{path} exists; pass force=True to overwrite it")


class OutputNotReplaceable(OutputError):
    """An existing output that is not a regular file this user may write (a device, a
    named pipe, a directory, a read-only file): never replaced, ``force`` or not."""


class BookFileError(Error, ValueError):
    """A book file that cannot be read as the expected format, or a book that cannot
    serve the call (one-line message)."""


class BookFileMissing(BookFileError, FileNotFoundError):
    """There is no book file at the path (also ``FileNotFoundError``).

    >>> str(BookFileMissing("b.dat")), BookFileMissing("b.dat").filename
    ('b.dat: No such file or directory', 'b.dat')
    """

    def __init__(self, path: object, reason: str = os.strerror(errno.ENOENT)) -> None:
        ValueError.__init__(self, f"{path}: {reason}")
        self.path = path
        self.errno, self.strerror, self.filename = errno.ENOENT, reason, str(path)

    def __str__(self) -> str:
        return f"{self.path}: {self.strerror}"


class ForeignBook(BookFileError):
    """Another engine's book (Pons, Cadot) given to a command that reads only this
    project's Thill and compact books; the message names its format."""


class _OSFailure(OSError):
    """The OS refused a file operation: the family member keeps ``OSError``'s semantics
    (``except OSError`` still catches it; ``errno``, ``strerror``, ``filename`` are the
    failure's; ``__cause__`` is the original error). One line: ``cannot read PATH:
    reason``."""

    #: what could not be done to the path
    doing = "cannot use"

    def __init__(self, path: object, cause: OSError, doing: str | None = None) -> None:
        if doing is not None:
            self.doing = doing
        reason = cause.strerror or str(cause) or type(cause).__name__
        ValueError.__init__(self, f"{self.doing} {path}: {reason}")  # the family's message
        self.path = path
        self.errno, self.strerror, self.filename = cause.errno, reason, str(path)

    def __str__(self) -> str:
        return f"{self.doing} {self.path}: {self.strerror}"


class BookFileUnreadable(_OSFailure, BookFileError):
    """The OS would not let a book be read: permission denied, an input/output error, a
    path through a file (also ``OSError``, with the failure's ``errno``)."""

    doing = "cannot read"


class OutputUnwritable(_OSFailure, OutputError):
    """The OS would not let an output be written: a read-only directory, a full disk
    (``ENOSPC``), an input/output error (also ``OSError``, with the failure's ``errno``)."""

    doing = "cannot write"


class PositionNotInBook(Error, KeyError):
    """A position of the book's ply the book does not answer: not stored and not
    provable, outside the book's scope, or of another board or ply (also ``KeyError``,
    so ``book.get(pos)`` behaves as a mapping)."""

    def __str__(self) -> str:  # KeyError's str is the repr of its argument
        return str(self.args[0]) if self.args else "position not in the book"


class BookClosed(Error, ValueError):
    """A book used after ``close()`` (also ``ValueError``, as a closed file's read)."""


class WorkDirError(Error, ValueError):
    """The work directory cannot be used (not ours, other settings, in use, ...)."""


class WorkDirUnusable(_OSFailure, WorkDirError):
    """The OS would not let a work directory be made, read or written (also ``OSError``)."""

    doing = "cannot use work directory"


class WorkerLost(Error, OSError):
    """A worker process of a build ended without an answer: killed by the kernel (the
    out-of-memory killer sends SIGKILL), by a user, or crashed.

    ``worker`` is its number (1-based), ``exitcode`` the process's (negative: the
    signal), ``task`` what it was working on, ``detail`` the rest of the message
    (the build names the chunk and how to resume).

    >>> str(WorkerLost(2, -9))
    "worker 2 was killed by SIGKILL (out of memory? the kernel's killer sends it)"
    """

    def __init__(
        self, worker: int, exitcode: int | None, task: object = None, detail: str = ""
    ) -> None:
        self.worker, self.exitcode, self.task = worker, exitcode, task
        OSError.__init__(self, f"worker {worker} {self.how()}{detail}")

    def how(self) -> str:
        """How the worker ended, in words: "was killed by SIGKILL (...)", "exited with 1"."""
        import signal

        code = self.exitcode
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            why = " (out of memory? the kernel's killer sends it)" if name == "SIGKILL" else ""
            return f"was killed by {name}{why}"
        return f"exited with status {code}"


class SchedulerUnreachable(Error, OSError):
    """The dask scheduler a build was pointed at cannot be reached (also ``OSError``;
    the connection's error is ``__cause__``)."""


class NotEnoughMemory(Error, ValueError):
    """Work refused before allocating: it needs more memory than is available."""


class MissingExtra(Error, ImportError):
    """An optional dependency is not installed; the message names the extra to install.

    >>> str(MissingExtra("dask", "the dask executor"))
    'the dask executor needs the dask extra: pip install "openingbook[dask]"'
    """

    def __init__(self, extra: str, feature: str) -> None:
        self.extra = extra
        super().__init__(f'{feature} needs the {extra} extra: pip install "openingbook[{extra}]"')


@contextlib.contextmanager
def os_failures(path: object, as_error: type[_OSFailure]) -> Iterator[None]:
    """Raise an ``OSError`` of the block that is not already a family member as
    ``as_error`` (:class:`BookFileUnreadable`, :class:`OutputUnwritable`,
    :class:`WorkDirUnusable`) naming ``path``, the original as its ``__cause__``; a
    missing book file as :class:`BookFileMissing`. The library's boundaries (opening
    and loading books, atomic writes, work directories) use it, so that ``except
    openingbook.Error`` catches what the OS refuses too.

    >>> try:
    ...     with os_failures("b.dat", BookFileUnreadable):
    ...         raise PermissionError(errno.EACCES, "Permission denied")
    ... except BookFileUnreadable as exc:
    ...     str(exc), exc.errno == errno.EACCES, isinstance(exc, OSError)
    ('cannot read b.dat: Permission denied', True, True)
    """
    try:
        yield
    except OSError as exc:
        if isinstance(exc, Error):
            raise
        if isinstance(exc, FileNotFoundError) and as_error is BookFileUnreadable:
            raise BookFileMissing(exc.filename or path) from exc
        raise as_error(exc.filename or path, exc) from exc


def name_file(exc: BookFileError, path: object) -> None:
    """Put ``path:`` in front of the message of ``exc`` unless it names that file
    already (``path:`` or ``name:``, or a path or file name with a suffix anywhere in
    it): every error about a file names its file. Readers call it where their errors
    leave (:func:`reads_book`, :class:`openingbook.answers.BookReader`).

    >>> exc = BookFileError("a stored key has a column taller than the board")
    >>> name_file(exc, "books/p8.book"); str(exc)
    'books/p8.book: a stored key has a column taller than the board'
    >>> name_file(exc, "/elsewhere/p8.book"); str(exc)  # named already: as it was
    'books/p8.book: a stored key has a column taller than the board'
    """
    where = os.fspath(getattr(path, "path", path)) if path is not None else ""
    name = os.path.basename(where)
    text = str(exc)
    if not where or f"{where}:" in text or f"{name}:" in text:
        return
    if "." in name and (where in text or name in text):
        return
    if type(exc).__str__ is not BaseException.__str__ or len(exc.args) != 1:
        return  # a message of its own making (BookFileMissing): it names its file
    exc.args = (f"{where}: {text}",)


def reads_book(func: _F) -> _F:
    """Decorate a function whose first argument is a book's path (or a reader's
    ``__init__``, whose first argument after ``self`` is): what the OS refuses while it
    runs (permission denied, an I/O error, a path through a file) is raised as
    :class:`BookFileUnreadable` naming the file, a missing file as
    :class:`BookFileMissing` (:func:`os_failures`), and a :class:`BookFileError` that
    does not name its file gets the path in front (:func:`name_file`)."""
    at = 1 if func.__name__ == "__init__" else 0  # a reader's constructor: after self

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        path = args[at] if len(args) > at else kwargs.get("path")
        try:
            with os_failures(path, BookFileUnreadable):
                return func(*args, **kwargs)
        except BookFileError as exc:
            name_file(exc, path)
            raise

    return wrapper  # type: ignore[return-value]
