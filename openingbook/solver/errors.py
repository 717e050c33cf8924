"""The root of every error the project raises, and the caller's bad arguments.

These live in the lowest layer so that the solver's refusals belong to the same
family as the book library's: ``except openingbook.Error`` (the same class as
:class:`Error` here, re-exported by :mod:`openingbook.errors`) catches every
failure of either package, and a caller never needs to know which layer refused.

* :class:`Error`: the root; never raised itself.
* :class:`InternalError` (also a ``RuntimeError``): a check of the library's own
  invariants failed (parallel search threads that disagree, a native kernel that
  reports a fault): a bug to report, never a consequence of the caller's input.
* :class:`SearchTimeout` (also a ``TimeoutError``): a search stopped by its time
  limit (``Solver.solve(..., time_limit=...)``).
* :class:`InvalidArgument` (also a ``ValueError``): an argument value that can
  never work, whatever the files hold: a malformed move string, a board too large
  for 64 bits, a table size out of range. The command line exits with status 2
  for these. The message speaks of the argument by its library name
  (``table_log2``); :meth:`InvalidArgument.describe` puts another name (the
  command line's ``--table-log2``) in its place.

>>> exc = InvalidArgument("expected 10 to 32", argument="table_log2", value=40)
>>> str(exc)
'table_log2 40: expected 10 to 32'
>>> exc.describe("--table-log2")
'--table-log2 40: expected 10 to 32'
>>> isinstance(exc, ValueError), isinstance(exc, Error)
(True, True)
>>> str(InvalidArgument("give MOVES or a file"))
'give MOVES or a file'
>>> str(InvalidArgument("not a digit", argument="MOVES", value="4" * 100_000))[66:]
'... (100,000 characters): not a digit'
"""

from __future__ import annotations

__all__ = ["Error", "InternalError", "InvalidArgument", "SearchTimeout"]

_NO_VALUE = object()

#: The most characters of a rejected value a message repeats: a value pasted by
#: mistake, or a file given where moves were expected, does not make a message as long
#: as itself.
ECHO_LIMIT = 80


def _echoed(value: object) -> str:
    """``value`` as a message repeats it: whole, or its start and its length."""
    text = str(value)
    if len(text) <= ECHO_LIMIT:
        return text
    return f"{text[: ECHO_LIMIT - 20]}... ({len(text):,} characters)"


class Error(Exception):
    """The root of every error raised by ``openingbook.solver`` and ``openingbook``.

    >>> from openingbook.solver import Position
    >>> try:
    ...     Position.from_moves("9")
    ... except Error as exc:
    ...     print(type(exc).__name__, exc)
    InvalidArgument move 1 is column 9, outside 1-7
    """


class InvalidArgument(Error, ValueError):
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
        return f"{name} {_echoed(self.value)}: {self.reason}"


class SearchTimeout(Error, TimeoutError):
    """A search stopped by its time limit (:meth:`openingbook.solver.Solver.solve`'s
    ``time_limit``)."""


class InternalError(Error, RuntimeError):
    """A check of the library's own invariants failed: a bug, never the caller's input."""
