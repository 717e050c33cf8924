"""The ``openingbook`` command line: argument parsing only, the work is in the library.

Each command lives in its own module of this package, registered on ``main``
when first needed (so that the command line starts fast, and that Ctrl-C while
the libraries load is handled like any other Ctrl-C).

Every failure is one line on stderr (``Error: MESSAGE``, or with ``--json``
``{"error": MESSAGE, "exit_code": N}``) and an exit status: 2 for a bad
argument (what click rejects, and the library's
:class:`openingbook.errors.InvalidArgument`), 1 for everything else
(:mod:`openingbook.cli._common` turns library errors into these). A signal
that asks a command to stop ends it like Ctrl-C, cleanly: temporary files
removed, workers stopped, one line, exit status 128 + the signal's number
(Ctrl-C/SIGINT: ``interrupted``, 130; SIGTERM: ``terminated (SIGTERM)``,
143; SIGHUP: ``terminated (SIGHUP)``, 129). ``docs/CLI.md`` has the rules.

So that this holds at any moment, within a second: the signals are held back while
this module loads; the ``openingbook`` program runs the command in a thread of its
own (:func:`openingbook.solver.run_interruptibly`), which the main thread, waiting,
interrupts, giving it :data:`_GRACE_SECONDS` to unwind before the process ends
without it (a compiled call no signal cuts short); and an error that the
interruption became on its way out (:class:`_StopSignals`) ends as the signal does.
"""

from __future__ import annotations

import signal
import sys
from typing import NoReturn

#: the signals that stop a command: Ctrl-C, ``kill``, the terminal closed
_STOPPING = {
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
}


def _hold_stopping_signals() -> set[int] | None:
    """Hold the stopping signals back while this module loads (the libraries it imports,
    the group's definition): one that comes meanwhile waits for
    :func:`_release_stopping_signals`, at the end, which stops with the signal's one
    line. Returns the signals blocked before (None where signals cannot be blocked)."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return set(signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING))


_BLOCKED_BEFORE = _hold_stopping_signals()


def _interrupted(as_json: bool = False, signum: int = 2) -> NoReturn:
    """Ctrl-C (SIGINT, 2) or another stopping signal: one line, exit status 128 +
    the signal's number (130 for Ctrl-C), as shells report it."""
    sys.stderr.write(_signal_line(as_json, signum))
    sys.exit(128 + signum)


def _signal_line(as_json: bool, signum: int) -> str:
    message = "interrupted" if signum == 2 else f"terminated ({signal.Signals(signum).name})"
    if as_json:
        return f'{{"error": "{message}", "exit_code": {128 + signum}}}\n'
    return message + "\n"


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP while a command runs, raised where Python is when it arrives.

    A ``KeyboardInterrupt`` so that every path that stops cleanly on Ctrl-C (the
    temporary files of :mod:`openingbook.atomicio`, a build's workers and work
    directory lock) does the same here; ``signum`` gives the exit status.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


#: seconds after a first stopping signal in which another one is only noted: the first
#: one's exception is on its way out, removing temporary files and stopping workers,
#: which an impatient second Ctrl-C must not cut short. A signal after that stops again
#: (something the first one's exception went through kept the command running).
_CLEAN_UP_SECONDS = 2.0


class _StopSignals:
    """The stopping signals of one run of the command line: SIGINT, SIGTERM, SIGHUP.

    Each raises where Python is when it arrives (``KeyboardInterrupt``; SIGTERM and
    SIGHUP :class:`Terminated`, instead of ending the process where it stands, which
    would leave temporary files behind) and is remembered: an exception that the
    interruption turned into another on its way out (numba's loading of a compiled
    kernel reports a ``SystemError``, a library boundary its own error, without the
    ``KeyboardInterrupt`` in its chain) still ends the command as the signal does.
    While the command stops, what Python would print as "Exception ignored" (a
    ``__del__``, a thread cut short by the same interruption) is not printed.
    An ignored signal stays ignored (``nohup``; SIGINT in a background job), and
    another handler the host program set (the command line also runs inside other
    programs: tests) is left alone.
    """

    def __init__(self) -> None:
        #: the first stopping signal received, and when (``time.monotonic``)
        self.received: int | None = None
        self.at = 0.0
        self._previous: dict[int, Any] = {}
        self._hooks: tuple[Any, Any] | None = None

    def install(self) -> None:
        import threading

        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is None:
                continue
            default = signal.default_int_handler if name == "SIGINT" else signal.SIG_DFL
            try:
                if signal.getsignal(number) is default:
                    signal.signal(number, self._stop)
                    self._previous[number] = default
            except ValueError:  # not the main thread: leave signals alone
                return
        self._hooks = (sys.unraisablehook, threading.excepthook)
        sys.unraisablehook = self._unraisable
        threading.excepthook = self._thread_failed

    def restore(self) -> None:
        import threading

        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()
        if self._hooks is not None:
            sys.unraisablehook, threading.excepthook = self._hooks
            self._hooks = None

    def _stop(self, signum: int, frame: object) -> None:
        import time

        now = time.monotonic()
        if self.received is not None and now - self.at < _CLEAN_UP_SECONDS:
            return
        if self.received is None:
            self.received = signum
        self.at = now
        if signum == 2:
            raise KeyboardInterrupt
        raise Terminated(signum)

    def behind(self, exc: BaseException) -> int | None:
        """The signal that ``exc`` stops the command for: one received, or a
        ``KeyboardInterrupt`` in its chain (Ctrl-C; ``signum`` of :class:`Terminated`
        and of the command line's own wrapper); None for another failure."""
        if self.received is not None:
            return self.received
        seen: set[int] = set()
        todo: list[BaseException | None] = [exc]
        while todo:
            current = todo.pop()
            if current is None or id(current) in seen:
                continue
            seen.add(id(current))
            if isinstance(current, (KeyboardInterrupt, _Interrupted)):
                return getattr(current, "signum", 2)
            todo += [current.__cause__, current.__context__]
        return None

    def _unraisable(self, unraisable: Any) -> None:
        if self.received is None and self._hooks is not None:
            self._hooks[0](unraisable)

    def _thread_failed(self, args: Any) -> None:
        if self.received is None and self._hooks is not None:
            self._hooks[1](args)


def _stop_on_signals() -> Callable[[], None]:
    """Install the command line's handling of stopping signals (:class:`_StopSignals`);
    returns the function that puts the previous handlers back."""
    stops = _StopSignals()
    stops.install()
    return stops.restore


def _exit_now(code: int, line: str) -> NoReturn:
    """End the process with ``code`` after ``line`` on stderr, once a signal stopped the
    command: the exit handlers run first (``atexit``: the temporary files still being
    written, a pool's workers, logging), then the line, and the process ends without
    the interpreter's teardown, which would wait for nothing useful: the command's
    thread, if still inside a compiled call, and a collection of every object numba
    loaded, several times (a second or more on a busy machine)."""
    import atexit

    sys.setswitchinterval(60.0)  # the command's thread, if it still runs, waits meanwhile
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                if stream is sys.stderr:
                    stream.write(line)
                stream.flush()
        except (OSError, ValueError):  # closed, or its reader gone: nothing more to say
            pass
    os._exit(code)


try:  # Ctrl-C where it cannot be held back (above): the same one line, no traceback
    import json
    import os
    from collections.abc import Callable
    from typing import Any

    # numpy's OpenBLAS starts a thread per core when numpy loads (30 ms of CPU, more
    # wall time on a busy machine); no command does floating-point linear algebra,
    # and the builds run a process per core anyway. An explicit setting wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

    import click

    from openingbook import __version__
except KeyboardInterrupt as exc:
    _interrupted(signum=getattr(exc, "signum", 2))
except BaseException:  # a broken installation: its error, and the signals as they were
    if _BLOCKED_BEFORE is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, _BLOCKED_BEFORE)
    raise

_INTERRUPTED = 130
#: whether the command runs in a thread of its own (:meth:`_OneLineErrors.invoke`): in
#: the ``openingbook`` program, not when ``main`` is called with arguments (tests)
_WORK_IN_THREAD = False
#: seconds a stopped command's thread is given to unwind (removing its temporary files,
#: stopping its workers) before the process ends without it: it is inside a compiled
#: call that the signal cannot cut short (a numba kernel, a numpy sort)
_GRACE_SECONDS = 0.3
#: click (8.2+) raises this usage error to show the help when no command is given
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


class _Interrupted(click.ClickException):
    """Ctrl-C inside click's parsing or a command (click would print a blank line)."""

    exit_code = _INTERRUPTED

    def __init__(self, signum: int = 2) -> None:
        super().__init__("interrupted")
        self.signum = signum


class _OneLineErrors(click.Group):
    """A group whose errors print one line: text, or with ``--json`` a JSON object.

    Click would print the usage block before a usage error; here every error is
    ``Error: MESSAGE`` on stderr (usage errors add the ``--help`` to read), and
    with ``--json`` on the command line ``{"error": MESSAGE, "exit_code": N}``.
    """

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("prog_name", "openingbook")  # not "-c" or "__main__.py"
        if not kwargs.pop("standalone_mode", True):
            _load_commands()
            return super().main(*args, standalone_mode=False, **kwargs)
        given = kwargs.get("args", args[0] if args else None)
        argv = sys.argv[1:] if given is None else list(given)
        as_json = "--json" in argv
        stops = _StopSignals()
        stops.install()
        global _WORK_IN_THREAD
        _WORK_IN_THREAD = given is None
        try:
            if not argv:  # bare `openingbook`: the help on stdout, exit 0, as `--help` does
                argv = ["--help"]
                kwargs["args"] = argv
                args = args[1:]
            try:
                _load_commands()
                code = super().main(*args, standalone_mode=False, **kwargs)
            except BaseException as exc:
                signum = stops.behind(exc)
                if signum is None:
                    _one_line_error(exc, as_json)
                real = given is None and stops.received is not None
                _stopped(as_json, signum, program=real)
            if stops.received is not None:  # the command went on: it did not finish its work
                _stopped(as_json, stops.received, program=given is None)
        finally:
            _WORK_IN_THREAD = False
            stops.restore()
        sys.exit(code if isinstance(code, int) else 0)

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt as exc:
            raise _Interrupted(getattr(exc, "signum", 2)) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            if _WORK_IN_THREAD:
                from openingbook.solver import run_interruptibly

                command = super().invoke
                return run_interruptibly(lambda: command(ctx), grace=_GRACE_SECONDS)
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise _Interrupted(getattr(exc, "signum", 2)) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        _load_commands()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        _load_commands()
        return super().get_command(ctx, cmd_name)


def _one_line_error(exc: BaseException, as_json: bool) -> NoReturn:
    """The one line of a failure click or the library reported; other exceptions go on
    (``SystemExit``, and a bug's traceback)."""
    if isinstance(exc, _NO_ARGS_IS_HELP):  # a group without its command: its help, exit 0
        click.echo(exc.ctx.get_help() if exc.ctx is not None else "")
        sys.exit(0)
    if isinstance(exc, click.UsageError):
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        _fail(exc.format_message() + hint, exc.exit_code, as_json)
    if isinstance(exc, click.ClickException):
        _fail(exc.format_message(), exc.exit_code, as_json)
    if isinstance(exc, click.Abort):
        _fail("aborted", 1, as_json)
    raise exc


def _stopped(as_json: bool, signum: int, program: bool) -> NoReturn:
    """The signal's one line and exit status; when the process is the ``openingbook``
    program and a real signal stopped it (``program``), at once (:func:`_exit_now`)."""
    if not program:
        _interrupted(as_json, signum)
    _exit_now(128 + signum, _signal_line(as_json, signum))


def _fail(message: str, exit_code: int, as_json: bool) -> NoReturn:
    message = " ".join(message.split())
    if as_json:
        click.echo(json.dumps({"error": message, "exit_code": exit_code}), err=True)
    else:
        click.echo(f"Error: {message}", err=True)
    sys.exit(exit_code)


@click.group(cls=_OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="openingbook")
def main() -> None:
    """Generate, read, validate and export Connect-4 opening books."""


def _release_stopping_signals(blocked_before: set[int] | None) -> None:
    """The end of :func:`_hold_stopping_signals`: a signal that came while this module
    loaded stops here with its one line (SIGINT: raised on unblocking; SIGTERM, SIGHUP:
    left pending and blocked, which the exit makes moot); an ignored one stays ignored."""
    if blocked_before is None:
        return
    held = (_STOPPING - blocked_before) & signal.sigpending()
    for signum in sorted(held - {signal.SIGINT}):
        if signal.getsignal(signum) is signal.SIG_DFL:
            _interrupted(signum=signum)
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked_before)
    except KeyboardInterrupt:
        _interrupted()


def _load_commands() -> None:
    """Import every command module: each registers its commands on ``main`` (here, when
    ``main`` runs, so that Ctrl-C while they load is the one line ``interrupted``)."""
    from openingbook.cli import (  # noqa: F401
        analyze,
        build,
        c4solver,
        convert,
        enumerate,
        explore,
        export,
        levels,
        lookup,
        serve,
        solve,
        validate,
    )


_release_stopping_signals(_BLOCKED_BEFORE)
