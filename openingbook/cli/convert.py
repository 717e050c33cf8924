"""``openingbook convert``: argument parsing only."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from openingbook.cli import main
from openingbook.cli._common import (
    BOOK,
    counted,
    emit_json,
    json_option,
    output_option,
    parse_output_format,
    progress_option,
    user_errors,
    working,
)

if TYPE_CHECKING:
    from openingbook.formats import Format


@main.command("convert")
@click.argument("source", type=BOOK)
@click.argument("target", metavar="[OUTPUT]", required=False, type=click.Path(dir_okay=False))
@output_option("Book file to write (or give it as OUTPUT).")
@click.option(
    "-f",
    "--format",
    "format",
    metavar="FORMAT",
    callback=parse_output_format,
    default=None,
    help="Output format (default: from the extension, .c4b compact, .dat Thill).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing output (and its manifest).")
@progress_option
@json_option
@user_errors
def convert_command(
    source: Path,
    target: str | None,
    output: str | None,
    format: Format | None,
    force: bool,
    progress: bool,
    as_json: bool,
) -> None:
    """Convert SOURCE between Thill's layout and the compact format, into OUTPUT
    (or -o PATH).

    Thill -> compact keeps every answer (a pruned book's left-out first-player
    wins are recovered by enumeration); compact -> Thill gives back the book
    this project built, byte for byte, with its manifest; compact -> compact
    re-encodes a book of an older version of the compact format (version 2) in
    the current one, keeping its provenance ('openingbook diff OLD NEW' then
    compares every position).

    \b
    Examples:
      openingbook convert books/book12.dat books/book12.c4b
      openingbook convert books/book12.c4b -o book12.dat
      openingbook convert old/book12.c4b books/book12.c4b --force
    """
    if (target is None) == (output is None):
        raise click.UsageError("give the output once: as OUTPUT or with -o/--output")
    from openingbook.pipeline.convert import convert_book  # the command modules import only click

    with working(progress and not as_json, f"convert {source.name}"):
        summary = convert_book(source, Path(target or output or ""), format, force=force)
    if as_json:
        emit_json(summary.as_dict())
        return
    click.echo(
        f"wrote {summary.output} ({summary.output_format}, {summary.output_bytes:,} bytes) from "
        f"{summary.source} ({summary.source_format}, {summary.source_bytes:,} bytes): "
        f"{counted(summary.positions, 'position')} in {summary.seconds:.1f} s"
    )
