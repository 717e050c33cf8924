"""``openingbook build`` and ``openingbook merge``: argument parsing only.

The work is done by :func:`openingbook.pipeline.build.build_book` and
:func:`openingbook.pipeline.merge.merge_books`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from openingbook.cli import main
from openingbook.cli._common import (
    BarAfterWork,
    counted,
    emit_json,
    json_option,
    output_format_option,
    output_option,
    parallel_options,
    progress_option,
    progress_stream,
    seed_option,
    size_option,
    user_errors,
    working,
)

if TYPE_CHECKING:
    from openingbook.formats import Format


def _shard(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    from openingbook.pipeline.build import parse_shard  # the command modules import only click

    try:
        return parse_shard(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc).split(": ", 1)[-1]) from None


def _part(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    from openingbook.pipeline.enumeration import parse_part  # the command modules import only click

    try:
        return parse_part(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc).split(": ", 1)[-1]) from None


def _command_line() -> list[str]:
    """The command as given: ``openingbook <command> <options>`` rebuilt from the parsed
    parameters (exact up to option order and spelling, whatever ``sys.argv`` holds)."""
    ctx = click.get_current_context()
    words = ["openingbook", ctx.info_name or ctx.command.name or ""]
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        if value is None or value is False or value == () or value == param.default:
            continue
        if isinstance(param, click.Argument):
            words += [str(v) for v in value] if isinstance(value, tuple) else [str(value)]
            continue
        opt = max(param.opts, key=len)
        if value is True:
            words.append(opt)
        elif param.name in ("shard", "part"):
            words += [opt, f"{value[0]}/{value[1]}"]
        elif param.name == "size":
            words += [opt, f"{value[0]}x{value[1]}"]
        else:
            words += [opt, str(value)]
    return words


@main.command("build")
@click.option(
    "--plies",
    type=int,
    required=True,
    help="Stones on the board: an even number from 2 to 16 (any number from 1 to 16 with "
    "--part). Whole books up to 12 plies; at 14 and 15 the positions do not fit in memory "
    "at once: build --part I/N (then merge) or --under a line; at 16 only --under.",
)
@click.option(
    "--distances",
    is_flag=True,
    help="Exact distances to the end for every position (5-byte records at 12 plies, "
    "nothing pruned); default is the win/draw/loss book with first-player wins pruned.",
)
@output_option(
    "Book file to write (default: book<plies>[-dist][-under...].dat here). "
    "The manifest goes to <output>.json."
)
@click.option("--under", metavar="MOVES", help="Only positions reached from this 1-based line.")
@size_option(
    "Board size, e.g. 6x5 (default 7x6); books of other sizes are written in the "
    "compact format (.c4b)."
)
@click.option(
    "--shard", metavar="I/N", callback=_shard, help="Solve the I-th of N deterministic parts."
)
@click.option(
    "--part",
    metavar="I/N",
    callback=_part,
    help="Part I of N of the ply (positions whose canonical key hashes to I): "
    "enumerated alone in little memory, written as a compact book (.c4b) that answers "
    "only its part; 'openingbook merge' combines all N.",
)
@click.option("--sample", type=int, metavar="K", help="Solve K positions picked at random.")
@seed_option("Random seed of --sample.")
@parallel_options
@click.option(
    "--work-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where finished chunks are saved for resuming (default: <output>.work): a new or "
    "empty directory, or one a build of the same settings made; after success only the "
    "build's own files are removed.",
)
@click.option("--chunk-size", type=int, help="Positions per chunk (default: automatic, <= 1024).")
@click.option(
    "--parent-book",
    metavar="BOOK",
    help="A distance book of the ply before (a name or a file) whose scores bound the "
    "positions' scores from below: the same book, solved with fewer searches. Default: "
    "the shipped one of the board, if any, for a build of 20,000 positions or more; 'none' "
    "for none. Its values are trusted: give "
    "a checked book.",
)
@click.option("--force", is_flag=True, help="Overwrite an existing output and manifest.")
@output_format_option
@click.option("--keep-work", is_flag=True, help="Keep the work directory after success.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar (the summary is still printed).")
@progress_option
@json_option
@user_errors
def build_command(
    plies: int,
    distances: bool,
    output: str | None,
    under: str | None,
    size: Any,
    shard: tuple[int, int] | None,
    part: tuple[int, int] | None,
    sample: int | None,
    seed: int,
    jobs: int | None,
    executor: str,
    scheduler: str | None,
    work_dir: Path | None,
    chunk_size: int | None,
    parent_book: str | None,
    table_log2: int | None,
    force: bool,
    format: Format | None,
    keep_work: bool,
    quiet: bool,
    progress: bool,
    as_json: bool,
) -> None:
    """Solve every book position of a ply and write the book plus its manifest.

    Finished chunks are saved in the work directory: rerun the same command
    after an interruption to continue where it stopped.

    \b
    Examples:
      openingbook build --plies 8
      openingbook build --plies 12 --distances --jobs 2
      openingbook build --plies 12 --under 4444 -o book12-4444.dat
      openingbook build --plies 12 --distances --shard 1/4   # then: openingbook merge
      openingbook build --plies 10 --distances --size 6x5   # book10-dist-6x5.c4b
      openingbook build --plies 14 --distances --part 3/32  # book14-dist-part03of32.c4b
    """
    if seed != 0 and sample is None:
        raise click.UsageError("--seed only applies with --sample")
    from openingbook.formats import FORMATS
    from openingbook.pipeline.build import BuildOptions, build_book, default_output_name
    from openingbook.solver import DEFAULT_BOARD

    if part is not None:
        holds_parts = next(f for f in FORMATS.values() if f.holds_parts)
        if format is not None and not format.holds_parts:
            raise click.UsageError(
                f"--part writes a {holds_parts.name} book: leave out --format {format.name}"
            )
        format = holds_parts
    # else as given: the library chooses by the output's name (.c4b compact, .dat Thill)
    options = BuildOptions(
        plies=plies,
        distances=distances,
        under=under,
        shard=shard,
        sample=sample,
        seed=seed,
        chunk_size=chunk_size,
        board=size or DEFAULT_BOARD,
        part=part,
    )

    if format is not None and not format.holds_samples:
        options.validate()  # other board sizes: no shards, whatever the format
        if shard is not None or sample is not None:
            raise click.UsageError(
                f"--format {format.name} needs a whole book (or --under): build the shards "
                "in Thill's layout, merge them, then 'openingbook convert'"
            )
        output = output or Path(default_output_name(options, compact=True))
    shown = progress and not quiet and not as_json
    # before the bar: enumerating the positions, their bounds, loading the solver
    with working(shown, "build: preparing") as finish:
        summary = build_book(
            output,
            options,
            work_dir=work_dir,
            jobs=jobs,
            executor=executor,
            scheduler=scheduler,
            table_log2=table_log2,
            force=force,
            keep_work=keep_work,
            progress=shown and BarAfterWork(progress_stream(), finish),
            command=_command_line(),
            format=format,
            parent_book=True if parent_book is None else parent_book != "none" and parent_book,
        )
    if as_json:
        emit_json(summary.as_dict())
    else:  # -q silences the progress bar only: the summary is the command's result
        v = summary.values
        click.echo(
            f"{summary.output}: {counted(summary.records, 'record', grouped=False)} "
            f"({summary.format}); {counted(summary.positions, 'position', grouped=False)}: "
            f"first wins {v['first']}, second wins "
            f"{v['second']}, draws {v['draw']}; solved {summary.positions_solved} in "
            f"{summary.wall_seconds:.1f} s ({summary.positions_per_second:.1f}/s), "
            f"{summary.chunks_resumed} of {counted(summary.chunks, 'chunk')} resumed"
        )


@main.command("merge")
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path))
@output_option("Book file to write (manifest: <output>.json).", required=True)
@click.option("--force", is_flag=True, help="Overwrite an existing output and manifest.")
@progress_option
@json_option
@user_errors
def merge_command(
    shards: tuple[Path, ...], output: str, force: bool, progress: bool, as_json: bool
) -> None:
    """Combine the shard books of one build (all of 1/N .. N/N) into the full book,
    or the compact parts of a ply ('build --part', all of 1/N .. N/N) into the
    complete compact book.

    Refuses shards or parts of different settings, one given twice or
    overlapping, and missing ones.

    \b
    Examples:
      openingbook merge book12-dist-shard*of4.dat -o book12-dist.dat
      openingbook merge book14-dist-part*of32.c4b -o book14-dist.c4b
    """
    from openingbook.pipeline.merge import merge_books

    with working(progress and not as_json, f"merge {counted(len(shards), 'book')}"):
        summary = merge_books(output, list(shards), force=force, command=_command_line())
    # a build's shards make a book with a manifest; the parts of a ply, a compact book
    pieces = "shards" if summary.manifest else "parts"
    if as_json:
        emit_json(summary.as_dict())
    else:
        click.echo(
            f"{summary.output}: {counted(summary.records, 'record', grouped=False)} "
            f"({summary.format}) "
            f"from {summary.shards} {pieces}, "
            f"{counted(summary.positions, 'position', grouped=False)}"
        )
