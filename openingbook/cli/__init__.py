"""The ``openingbook`` command line: argument parsing only, the work is in the library.

Each command lives in its own module of this package and is registered below.
Errors the user can fix (bad files, bad positions, unwritable paths) are raised
as :class:`click.ClickException` (or ``click.UsageError``) so they print one line
and exit non-zero.
"""

from __future__ import annotations

import click

from openingbook import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="openingbook")
def main() -> None:
    """Generate, read, validate and export Connect-4 opening books."""


# Command modules register themselves on `main` when imported.
from openingbook.cli import commands as _commands  # noqa: E402,F401
