"""The ``openingbook`` command line: argument parsing only, the work is in the library.

Each command lives in its own module of this package and is registered below.
Errors the user can fix (bad files, bad positions, unwritable paths) are raised
as :class:`click.ClickException` (or ``click.UsageError``) so they print one line
and exit non-zero.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from openingbook import __version__


class _OneLineErrors(click.Group):
    """A group whose errors print one line: text, or with ``--json`` a JSON object.

    Click would print the usage block before a usage error; here every error is
    ``Error: MESSAGE`` on stderr (usage errors add the ``--help`` to read), and
    with ``--json`` on the command line ``{"error": MESSAGE, "exit_code": N}``.
    """

    def main(self, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.pop("standalone_mode", True):
            return super().main(*args, standalone_mode=False, **kwargs)
        argv = kwargs.get("args", args[0] if args else None)
        as_json = "--json" in (sys.argv[1:] if argv is None else list(argv))
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            _fail(exc.format_message() + hint, exc.exit_code, as_json)
        except click.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code, as_json)
        except click.Abort:
            _fail("aborted", 1, as_json)
        sys.exit(code if isinstance(code, int) else 0)


def _fail(message: str, exit_code: int, as_json: bool) -> None:
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


# Command modules register themselves on `main` when imported.
from openingbook.cli import commands as _commands  # noqa: E402,F401
