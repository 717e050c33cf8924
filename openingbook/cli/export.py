"""``openingbook export``: argument parsing only."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import click

from openingbook.cli import main
from openingbook.cli._common import (
    BOOK,
    BadArgument,
    LazyChoice,
    LazyHelpOption,
    counted,
    emit_json,
    json_option,
    output_option,
    progress_bar,
    progress_option,
    to_stdout,
    user_errors,
)

if TYPE_CHECKING:
    from pathlib import Path


def _log_size(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """``--log-size`` checked against the sizes Pons' loader accepts (loaded on use)."""
    if value is None:
        return None
    from openingbook.formats.pons import PONS_LOG_SIZES

    return click.IntRange(PONS_LOG_SIZES[0], PONS_LOG_SIZES[-1]).convert(value, param, ctx)


def _format_help() -> str:
    from openingbook.pipeline.export import EXPORT_FORMATS

    return "; ".join(f"{name}: {text}" for name, text in EXPORT_FORMATS.items())


@main.command("export")
@click.argument("book", type=BOOK)
@click.option(
    "-f",
    "--format",
    "fmt",
    type=LazyChoice("openingbook.pipeline.export", "EXPORT_FORMATS"),
    required=True,
    cls=LazyHelpOption,
    help_from=_format_help,
)
@output_option("File to write (replaced atomically; jsonl, csv and uci:", required=True, text=True)
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@click.option(
    "--no-distance",
    is_flag=True,
    help="cadot: export a book without distances, with half-move counts of 0 (unknown).",
)
@click.option(
    "--tromp-subset",
    is_flag=True,
    help="uci: only the positions of Tromp's data set (the second player has no "
    "immediate threat), in its order: 67,557 lines for an 8-ply book.",
)
@click.option(
    "--log-size",
    type=int,
    callback=_log_size,
    help="pons: log2 of the table size (default: at least 8 slots per position).",
)
@progress_option
@json_option
@user_errors
def export_command(
    book: Path,
    fmt: str,
    output: str,
    force: bool,
    no_distance: bool,
    tromp_subset: bool,
    log_size: int | None,
    progress: bool,
    as_json: bool,
) -> None:
    """Write BOOK in another engine's format (cadot, pons, uci), as jsonl/csv rows, or
    as a labelled data set (npz, parquet: the positions one ply above BOOK, every
    move's exact score; docs/DATASET.md).

    Pruned (win/draw/loss) books get their left-out first-player wins back by
    enumeration, so every export is complete for the book's ply.

    \b
    Examples:
      openingbook export 8 -f csv -o book8.csv
      openingbook export 12-dist -f jsonl -o - | head -3
      openingbook export 12-dist -f cadot -o book12.cadot
      openingbook export 14-dist -f npz -o positions13.npz
    """
    started = time.perf_counter()  # the time reported: the command's, imports included
    from openingbook.atomicio import refuse_existing
    from openingbook.formats import FORMATS, as_format

    format = as_format(fmt)  # the --format text, parsed once
    piped = to_stdout(output)
    if piped and not format.text:
        texts = ", ".join(f.name for f in FORMATS.values() if f.text)
        raise BadArgument(
            f"--output -: {format.name} is a binary format; standard output takes "
            f"{texts}: give a file"
        )
    refuse_existing(output, force)
    from openingbook.pipeline.export import export_book

    with progress_bar(progress and not as_json, "valuing rows") as advance:
        summary = export_book(
            book,
            format,
            output,
            no_distance=no_distance,
            tromp_subset=tromp_subset,
            log_size=log_size,
            progress=advance,
            stage=advance and advance.stage,
        )
    if as_json:
        emit_json(summary.as_dict(), err=piped)
        return
    # with the rows on standard output, the summary goes to stderr
    where = "standard output" if piped else summary.output
    elapsed = time.perf_counter() - started
    line = (
        f"wrote {counted(summary.positions, 'position')} to {where} ({format.name}) "
        f"in {elapsed:.1f} s"
    )
    if summary.recovered_first_wins:
        line += f"; {summary.recovered_first_wins:,} first-player wins recovered by enumeration"
    click.echo(line, err=piped)
    lost = summary.details.get("lost_to_slot_clashes")
    if lost:
        click.echo(
            f"left out: {counted(lost, 'position')} sharing a table slot with another "
            "(Pons' solver searches them instead); a larger --log-size keeps more"
        )
    if "stones" in summary.details:  # a labelled data set: the rows are one ply up
        click.echo(
            f"the positions of {summary.details['stones']} stones, every move's score "
            "from the book",
            err=piped,
        )
    if "win" in summary.details:  # a UCI export counts its results
        d = summary.details
        click.echo(f"win {d['win']:,}, loss {d['loss']:,}, draw {d['draw']:,}", err=piped)
