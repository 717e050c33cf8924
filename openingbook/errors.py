"""The library's exceptions, and which of them are the caller's bad arguments.

Every error the library raises for something the user can fix carries a
one-line message. Two kinds matter to a caller:

* :class:`InvalidArgument` (a ``ValueError``): an argument value that can never
  work, whatever the files hold: a malformed move string, a bad shard spec, a
  table size out of range or larger than the machine's memory. The command line
  exits with status 2 for these, like for an option click itself rejects. The
  message speaks of the argument by its library name (``table_log2``); the
  command line puts the flag name (``--table-log2``) in its place.
* everything else, among them :class:`BookFileError` (a file that is not the
  book it should be) and :class:`WorkDirError` (a work directory that cannot be
  used): exit status 1.

>>> exc = InvalidArgument("expected 10 to 32", argument="table_log2", value=40)
>>> str(exc)
'table_log2 40: expected 10 to 32'
>>> exc.describe("--table-log2")
'--table-log2 40: expected 10 to 32'
>>> isinstance(exc, ValueError), str(InvalidArgument("give MOVES or a file"))
(True, 'give MOVES or a file')
"""

from __future__ import annotations

__all__ = [
    "BookFileError",
    "InvalidArgument",
    "OutputExists",
    "OutputNotReplaceable",
    "WorkDirError",
    "WorkerLost",
]

_NO_VALUE = object()


class InvalidArgument(ValueError):
    """An argument value the call can never accept (exit status 2 on the command line).

    ``argument`` is the parameter's name in the library (``"table_log2"``),
    ``value`` the rejected value, ``reason`` what is wrong with it.
    """

    def __init__(self, reason: str, *, argument: str | None = None, value: object = _NO_VALUE):
        self.reason = reason
        self.argument = argument
        self.value = value
        super().__init__(self.describe(argument))

    def describe(self, name: str | None) -> str:
        """The message with the argument called ``name`` (e.g. a command-line flag)."""
        if name is None:
            return self.reason
        if self.value is _NO_VALUE:  # "log_size applies to the pons format only"
            return f"{name} {self.reason}"
        return f"{name} {self.value}: {self.reason}"


class OutputExists(ValueError):
    """An output file exists and the call was not told to replace it (``force``).

    Exit status 1: the argument is fine, the file system holds something.
    """

    def __init__(self, path: object) -> None:
        self.path = path
        super().__init__(f"{path} exists; pass force=True to overwrite it")


class OutputNotReplaceable(ValueError):
    """An existing output that is not a regular file this user may write (a device, a
    named pipe, a directory, a read-only file): never replaced, ``force`` or not."""


class WorkerLost(OSError):
    """A worker process of a build ended without an answer: killed by the kernel (the
    out-of-memory killer sends SIGKILL), by a user, or crashed.

    ``worker`` is its number (1-based), ``exitcode`` the process's (negative: the
    signal), ``task`` what it was working on, ``detail`` the rest of the message
    (the build names the chunk and how to resume).
    """

    def __init__(
        self, worker: int, exitcode: int | None, task: object = None, detail: str = ""
    ) -> None:
        self.worker, self.exitcode, self.task = worker, exitcode, task
        super().__init__(f"worker {worker} {self.how()}{detail}")

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


class BookFileError(ValueError):
    """A book file that cannot be read as the expected format (one-line message)."""


class WorkDirError(ValueError):
    """The work directory cannot be used (not ours, other settings, in use, ...)."""
