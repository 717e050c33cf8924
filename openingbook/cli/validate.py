"""``openingbook derive``, ``validate``, ``diff``, ``check`` and ``stats``: argument parsing only.

The work is done by :mod:`openingbook.pipeline.derive` and :mod:`openingbook.checks.validate`.
Commands that compare exit with status 1 when anything disagrees (after
printing the report), and with status 1 and a one-line message on bad input.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from openingbook.cli import main
from openingbook.cli._common import (
    BOOK,
    counted,
    emit_json,
    format_option,
    json_option,
    output_format_option,
    output_option,
    parallel_options,
    progress_bar,
    progress_option,
    seed_option,
    user_errors,
    working,
)

if TYPE_CHECKING:
    from openingbook.formats import Format, Layout

_BOOK = BOOK


def _finish(report, as_json: bool, lines: list[str]) -> None:
    """Print the report (JSON or text) and exit 1 when it is not ok."""
    if as_json:
        emit_json(report.as_dict())
    else:
        click.echo("\n".join(lines))
    if not report.ok:
        sys.exit(1)


def _line(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    if not value.strip().isdigit():
        raise click.BadParameter(f"{value!r} is not a 1-based move string such as 4453")
    # whether the line can be played depends on the book's board: _check_line, once known
    return value.strip()


def _board_of(book: Path) -> Any:
    """The board size of ``book``, or None when the file cannot tell (the command's
    library call then names what is wrong with it)."""
    from openingbook.api import book_board

    try:
        return book_board(book)
    except (ValueError, OSError):
        return None


def _check_line(under: str | None, book: Path) -> None:
    """A ``--under`` line that cannot be played on the book's board: exit 2, as click's own."""
    board = _board_of(book)
    if under is None or board is None:
        return
    from openingbook.solver import Position

    try:
        Position.from_moves(under, *board)
    except ValueError as exc:
        raise click.BadParameter(f"{under}: {exc}", param_hint="'--under'") from None


@main.command("derive")
@click.option(
    "--from",
    "source",
    type=_BOOK,
    required=True,
    help="The deeper book (pruned or with distances).",
)
@click.option("--plies", type=int, required=True, help="Stones of the book to derive.")
@output_option("Book file to write; the manifest goes to <output>.json.", required=True)
@click.option(
    "--under",
    metavar="MOVES",
    callback=_line,
    help="Only the positions under this 1-based line (default: the deeper book's own scope).",
)
@click.option(
    "--distances/--pruned",
    default=None,
    help="Distance book or pruned win/draw/loss book (default: like the deeper book).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing output and manifest.")
@output_format_option
@progress_option
@json_option
@user_errors
def derive_command(
    source: Path,
    plies: int,
    output: str,
    under: str | None,
    distances: bool | None,
    force: bool,
    format: Format | None,
    progress: bool,
    as_json: bool,
) -> None:
    """Compute a shallower book from a deeper one by exact minimax.

    Positions where someone can win on the way are scored directly; a pruned
    deeper book is read with its rule "not stored = first player wins";
    distances carry through from a distance book. At the deeper book's own ply,
    --pruned writes a distance book's win/draw/loss book.

    \b
    Examples:
      openingbook derive --from 12-dist --plies 8 -o book8.dat --pruned
      openingbook derive --from 14-dist --plies 14 --pruned -o book14.c4b
    """
    started = time.perf_counter()  # the time reported: the command's, imports and write included
    from openingbook.pipeline.derive import derive_book  # the command modules import only click

    _check_line(under, source)

    with progress_bar(progress and not as_json, "deriving") as advance:
        summary = derive_book(
            source,
            plies,
            output,
            under=under,
            distances=distances,
            force=force,
            command=["openingbook", *sys.argv[1:]],
            format=format,
            progress=advance,
            stage=advance and advance.stage,
        )
    if as_json:
        emit_json(summary.as_dict())
        return
    v = summary.values
    where = f" under {summary.under}" if summary.under else ""
    click.echo(
        f"wrote {summary.output} ({summary.format}, "
        f"{counted(summary.records, 'record', grouped=False)} for "
        f"{counted(summary.positions, 'position', grouped=False)}{where}) "
        f"in {time.perf_counter() - started:.1f} s"
    )
    click.echo(
        f"first player wins {v['first']}, second player wins {v['second']}, draws {v['draw']}; "
        f"{summary.deeper_positions_looked_up} deeper positions looked up"
    )
    if summary.manifest:
        click.echo(f"manifest: {summary.manifest}")


@main.command("validate")
@click.argument("book", type=_BOOK)
@click.argument("deeper", type=_BOOK)
@click.option(
    "--under",
    metavar="MOVES",
    callback=_line,
    help="Validate only the positions under this line (default: the deeper book's scope).",
)
@progress_option
@json_option
@user_errors
def validate_command(
    book: Path, deeper: Path, under: str | None, progress: bool, as_json: bool
) -> None:
    """Check BOOK against the values derived from the DEEPER book.

    Every disagreement is printed (move string, diagram, both values); exit
    status 1 when any position disagrees. A deeper book built --under a line
    validates only the positions under that line, and says so.

    Example: openingbook validate book.dat bookDeep.dat
    """
    from openingbook.checks.validate import validate_books

    _check_line(under, deeper)
    with progress_bar(progress and not as_json, "validating") as advance:
        report = validate_books(book, deeper, under=under, progress=advance)
    _finish(report, as_json, report.lines())


@main.command("diff")
@click.argument("a", type=_BOOK)
@click.argument("b", type=_BOOK)
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Print at most this many positions per list (0: all; --json lists all).",
)
@progress_option
@json_option
@user_errors
def diff_command(a: Path, b: Path, limit: int, progress: bool, as_json: bool) -> None:
    """Compare two books of the same ply, mirror-aware, across formats.

    Lists positions only in A, only in B, and value differences; a pruned book's
    missing positions count as first-player wins, so a distance book and a pruned
    one are compared on win/draw/loss. Exit status 1 when they differ.
    """
    from openingbook.checks.diff import diff_books

    with progress_bar(progress and not as_json, "comparing") as advance:
        report = diff_books(a, b, progress=advance)
    _finish(report, as_json, report.lines(limit))


@main.command("check")
@click.argument("book", type=_BOOK)
@click.option(
    "--sample", type=click.IntRange(min=0), metavar="K", help="Re-solve K random records."
)
@click.option("--all", "all_records", is_flag=True, help="Re-solve every record.")
@click.option(
    "--absent",
    type=click.IntRange(min=0),
    metavar="K",
    help="Pruned books: also solve K random positions the book does not store "
    "(each must be a first-player win).",
)
@seed_option("Random seed of the samples.")
@parallel_options
@click.option("--strict", is_flag=True, help="Exit with status 1 on warnings too.")
@format_option
@progress_option
@json_option
@user_errors
def check_command(
    book: Path,
    sample: int | None,
    all_records: bool,
    absent: int | None,
    seed: int,
    jobs: int | None,
    executor: str,
    scheduler: str | None,
    table_log2: int | None,
    strict: bool,
    fmt: Layout | None,
    progress: bool,
    as_json: bool,
) -> None:
    """Check BOOK from the file alone, and re-solve records with the solver.

    File checks: format errors (one-line error), mirror pairs stored twice
    (warning), first-player wins stored in a pruned book (warning), positions
    whose side to move can win at once (warning). Exit status 1 on an error or
    a solver disagreement (and on warnings with --strict).
    """
    if sample is not None and all_records:
        raise click.UsageError("--sample and --all exclude each other")
    from openingbook.checks.check import check_book

    with working(progress and not as_json, f"check {book.name}"):
        report = check_book(
            book,
            sample=sample,
            all_records=all_records,
            absent=absent,
            seed=seed,
            jobs=jobs,
            executor=executor,
            table_log2=table_log2,
            scheduler=scheduler,
            layout=fmt,
        )
    _finish(report, as_json, report.lines())
    if strict and report.issues:
        sys.exit(1)


@main.command("stats")
@click.argument("book", type=_BOOK)
@click.option(
    "--tromp",
    is_flag=True,
    help="Also count results on Tromp's subset (no immediate threat for either side); "
    "a complete 8-ply book must give 44,473 / 16,635 / 6,449 (exit status 1 if not).",
)
@click.option(
    "--per-ply-counts",
    "per_ply",
    is_flag=True,
    help="Expand a complete book to every position of its ply (both mirror variants, "
    "immediate wins, finished games) and compare with the published per-ply counts "
    "(Tromp's positions, the strong solution's won/drawn/lost; exit status 1 if not equal).",
)
@click.option(
    "--entropy",
    is_flag=True,
    help="Instead of the counts, the entropy of the stored values in bits per position "
    "(one position per mirror pair, wins at once left out): order 0 and given what a "
    "reader knows of a position for free (threats, column heights, the centre column), "
    "with the Huffman code length of each.",
)
@format_option
@progress_option
@json_option
@user_errors
def stats_command(
    book: Path,
    tromp: bool,
    per_ply: bool,
    entropy: bool,
    fmt: Layout | None,
    progress: bool,
    as_json: bool,
) -> None:
    """Record and value counts of BOOK."""
    with working(progress and not as_json, f"stats {book.name}"):
        report = _stats(book, tromp, per_ply, entropy, fmt)
    _finish(report, as_json, report.lines())


def _stats(book: Path, tromp: bool, per_ply: bool, entropy: bool, fmt: Layout | None) -> Any:
    """The report ``stats`` prints: the counts, or the entropy."""
    if entropy:
        from openingbook.checks.entropy import book_entropy

        if tromp or per_ply:
            raise click.UsageError(
                "--entropy is a report of its own: without --tromp or --per-ply-counts"
            )
        options = {} if fmt is None else {"layout": fmt}
        return book_entropy(book, **options)
    from openingbook.checks.stats import book_stats

    return book_stats(book, tromp=tromp, layout=fmt, per_ply=per_ply)
