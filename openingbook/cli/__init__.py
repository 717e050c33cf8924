"""The ``openingbook`` command line: argument parsing only, the work is in the library.

Each command lives in its own module of this package, registered on ``main``
when first needed (so that the command line starts fast, and that Ctrl-C while
the libraries load is handled like any other Ctrl-C).

Every failure is one line on stderr (``Error: MESSAGE``, or with ``--json``
``{"error": MESSAGE, "exit_code": N}``) and an exit status: 2 for a bad
argument (what click rejects, and the library's
:class:`openingbook.errors.InvalidArgument`), 130 for Ctrl-C (the line is
``interrupted``), 1 for everything else (:mod:`openingbook.cli._common`
turns library errors into these).
"""

from __future__ import annotations

import sys
from typing import NoReturn


def _interrupted(as_json: bool = False) -> NoReturn:
    """Ctrl-C: one line, exit status 130 (128 + SIGINT), as shells report it."""
    if as_json:
        sys.stderr.write('{"error": "interrupted", "exit_code": 130}\n')
    else:
        sys.stderr.write("interrupted\n")
    sys.exit(130)


try:  # Ctrl-C while Python loads the command line: the same one line, no traceback
    import json
    import os
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

    def __init__(self) -> None:
        super().__init__("interrupted")


class _OneLineErrors(click.Group):
    """A group whose errors print one line: text, or with ``--json`` a JSON object.

    Click would print the usage block before a usage error; here every error is
    ``Error: MESSAGE`` on stderr (usage errors add the ``--help`` to read), and
    with ``--json`` on the command line ``{"error": MESSAGE, "exit_code": N}``.
    """

    def main(self, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.pop("standalone_mode", True):
            _load_commands()
            return super().main(*args, standalone_mode=False, **kwargs)
        argv = kwargs.get("args", args[0] if args else None)
        as_json = "--json" in (sys.argv[1:] if argv is None else list(argv))
        try:
            _load_commands()
            code = super().main(*args, standalone_mode=False, **kwargs)
        except KeyboardInterrupt:
            _interrupted(as_json)
        except _Interrupted:
            _interrupted(as_json)
        except _NO_ARGS_IS_HELP as exc:  # bare `openingbook`: the help, as click prints it
            exc.show()
            sys.exit(exc.exit_code)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            _fail(exc.format_message() + hint, exc.exit_code, as_json)
        except click.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code, as_json)
        except click.Abort as exc:
            if isinstance(exc.__cause__, KeyboardInterrupt):
                _interrupted(as_json)
            _fail("aborted", 1, as_json)
        sys.exit(code if isinstance(code, int) else 0)

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            raise _Interrupted() from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted() from None

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
    """Import every command module: each registers its commands on ``main``."""
    from openingbook.cli import commands  # noqa: F401
