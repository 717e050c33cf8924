"""The ``openingbook`` command line: argument parsing only, the work is in the library.

Each command lives in its own module of this package and is registered below.
Errors the user can fix (bad files, bad positions, unwritable paths) are raised
as :class:`click.ClickException` (or ``click.UsageError``) so they print one line
and exit non-zero.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from openingbook import __version__


class _OneLineErrors(click.Group):
    """A group whose usage errors print one line (click prints the usage block too)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.pop("standalone_mode", True):
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            click.echo(f"Error: {' '.join(exc.format_message().split())}{hint}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=_OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="openingbook")
def main() -> None:
    """Generate, read, validate and export Connect-4 opening books."""


# Command modules register themselves on `main` when imported.
from openingbook.cli import commands as _commands  # noqa: E402,F401
