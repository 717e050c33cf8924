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
"""

from __future__ import annotations

import sys
from typing import NoReturn


def _interrupted(as_json: bool = False, signum: int = 2) -> NoReturn:
    """Ctrl-C (SIGINT, 2) or another stopping signal: one line, exit status 128 +
    the signal's number (130 for Ctrl-C), as shells report it."""
    if signum == 2:
        message = "interrupted"
    else:
        import signal

        message = f"terminated ({signal.Signals(signum).name})"
    code = 128 + signum
    if as_json:
        sys.stderr.write(f'{{"error": "{message}", "exit_code": {code}}}\n')
    else:
        sys.stderr.write(message + "\n")
    sys.exit(code)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP while a command runs, raised where Python is when it arrives.

    A ``KeyboardInterrupt`` so that every path that stops cleanly on Ctrl-C (the
    temporary files of :mod:`openingbook.atomicio`, a build's workers and work
    directory lock) does the same here; ``signum`` gives the exit status.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop_on_signals() -> Callable[[], None]:
    """SIGTERM (``kill``, batch schedulers) and SIGHUP (the terminal closed) raise
    :class:`Terminated` instead of ending the process where it stands (which would
    leave temporary files behind). Returns the function that puts the previous
    handlers back (the command line also runs inside other programs: tests)."""
    import signal

    def stop(signum: int, frame: object) -> None:
        raise Terminated(signum)

    previous: dict[int, Any] = {}
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is None:
            continue
        try:
            handler = signal.getsignal(number)
            if handler is signal.SIG_DFL:  # an ignored SIGHUP (nohup) stays ignored
                signal.signal(number, stop)
                previous[number] = handler
        except ValueError:  # not the main thread: leave signals alone
            break

    def restore() -> None:
        for number, handler in previous.items():
            signal.signal(number, handler)

    return restore


try:  # Ctrl-C while Python loads the command line: the same one line, no traceback
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
except KeyboardInterrupt:
    _interrupted()

_INTERRUPTED = 130
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
        argv = kwargs.get("args", args[0] if args else None)
        argv = sys.argv[1:] if argv is None else list(argv)
        as_json = "--json" in argv
        restore_signals = _stop_on_signals()
        try:
            if not argv:  # bare `openingbook`: the help on stdout, exit 0, as `--help` does
                argv = ["--help"]
                kwargs["args"] = argv
                args = args[1:]
            _load_commands()
            code = super().main(*args, standalone_mode=False, **kwargs)
        except KeyboardInterrupt as exc:
            _interrupted(as_json, getattr(exc, "signum", 2))
        except _Interrupted as exc:
            _interrupted(as_json, exc.signum)
        except _NO_ARGS_IS_HELP as exc:  # a group without its command: its help, exit 0
            click.echo(exc.ctx.get_help() if exc.ctx is not None else "")
            sys.exit(0)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            _fail(exc.format_message() + hint, exc.exit_code, as_json)
        except click.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code, as_json)
        except click.Abort as exc:
            if isinstance(exc.__cause__, KeyboardInterrupt):
                _interrupted(as_json, getattr(exc.__cause__, "signum", 2))
            _fail("aborted", 1, as_json)
        finally:
            restore_signals()
        sys.exit(code if isinstance(code, int) else 0)

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt as exc:
            raise _Interrupted(getattr(exc, "signum", 2)) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise _Interrupted(getattr(exc, "signum", 2)) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        _load_commands()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        _load_commands()
        return super().get_command(ctx, cmd_name)


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
