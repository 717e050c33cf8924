"""``openingbook enumerate``: count the book positions of a ply, optionally write them."""

from __future__ import annotations

import sys
from typing import Any

import click

from openingbook.cli import main
from openingbook.cli._common import (
    LazyChoice,
    counted,
    emit_json,
    json_option,
    output_option,
    progress_option,
    size_option,
    to_stdout,
    user_errors,
    working,
)


@main.command("enumerate")
@click.option("--plies", "-p", type=int, required=True, help="Stones on the board (0-42 on 7x6).")
@size_option("Board size, e.g. 6x5 (default 7x6).")
@click.option(
    "--under",
    metavar="MOVES",
    default=None,
    help="Only positions reached by continuing this 1-based move line (e.g. 44).",
)
@output_option("Write the positions to this file, one per line.", text=True)
@click.option(
    "--as",
    "output_format",
    type=LazyChoice("openingbook.pipeline.enumeration", "OUTPUT_FORMATS"),
    default=None,
    help="Line format for --output: 1-based move strings (default) or column codes as 0/1 digits.",
)
@click.option("--force", is_flag=True, help="Overwrite an existing --output file.")
@click.option(
    "--both-mirrors",
    is_flag=True,
    help="Keep both variants of every mirror pair instead of one.",
)
@click.option(
    "--keep-immediate-wins",
    is_flag=True,
    help="Keep positions where the side to move can complete four at once.",
)
@click.option(
    "--parts",
    type=click.IntRange(1, 65536),
    metavar="N",
    help="Enumerate the ply in N parts (bounded memory; the lines part by part). "
    "Default: whole, or 32 parts when the ply does not fit in memory (14 plies and deeper).",
)
@click.option(
    "--part",
    metavar="I/N",
    help="Only part I of N (positions whose canonical key hashes to I), as "
    "'build --part' solves them.",
)
@click.option(
    "--count-all",
    is_flag=True,
    help="Also count every position of the ply as Tromp's published table does (both "
    "mirror variants, immediate wins, finished games) and compare with it.",
)
@progress_option
@json_option
@user_errors
def enumerate_command(
    plies: int,
    size: Any,
    under: str | None,
    output: str | None,
    output_format: str | None,
    force: bool,
    both_mirrors: bool,
    keep_immediate_wins: bool,
    parts: int | None,
    part: str | None,
    count_all: bool,
    progress: bool,
    as_json: bool,
) -> None:
    """Count the positions a PLIES-ply book holds (legal, nobody has four, the side
    to move cannot win at once, one per mirror pair) and optionally write them.

    \b
    Examples:
      openingbook enumerate --plies 8                      # 77715
      openingbook enumerate --plies 12 --under 44 -o 44.txt --as moves
      openingbook enumerate --plies 6 -o - | head -3
      openingbook enumerate --plies 8 --both-mirrors --keep-immediate-wins --json
      openingbook enumerate --plies 10 --size 6x5
      openingbook enumerate --plies 14 --count-all        # 23192137; all: 75,437,595
      openingbook enumerate --plies 14 --part 3/32
    """
    if output_format is not None and output is None:
        raise click.UsageError("--as needs --output PATH")
    from openingbook.atomicio import refuse_existing

    if output is not None:
        refuse_existing(output, force)
    from openingbook.pipeline.enumeration import enumerate_to_file
    from openingbook.solver import AUTO_PARTS, DEFAULT_BOARD

    which = None
    if part is not None:
        from openingbook.pipeline.enumeration import parse_part

        which = parse_part(part)

    piped = to_stdout(output)  # the positions on stdout: the count and summary on stderr
    # not over positions written to a terminal (-o -)
    shown = progress and not as_json and not (piped and sys.stdout.isatty())
    with working(shown, f"enumerate --plies {plies}"):
        result = enumerate_to_file(
            plies,
            under,
            output,
            output_format or "moves",
            merge_mirrors=not both_mirrors,
            drop_immediate_wins=not keep_immediate_wins,
            board=size or DEFAULT_BOARD,
            parts=parts,
            part=which,
        )
        counts = None
        if count_all:
            from openingbook.checks.plycounts import count_all_positions

            counts = count_all_positions(plies, parts or AUTO_PARTS, *result.board)
    if as_json:
        emit_json(
            {
                "plies": result.plies,
                "board": str(result.board),
                "count": result.count,
                "under": result.under,
                "both_mirrors": both_mirrors,
                "keep_immediate_wins": keep_immediate_wins,
                "out": result.path,
                "as": result.output_format,
                "parts": result.parts,
                "part": part,
                **({} if counts is None else {"all_positions": counts.as_dict()}),
            },
            err=piped,
        )
        return
    click.echo(result.count, err=piped)
    for line in counts.lines() if counts is not None else ():
        click.echo(line, err=piped)
    if result.path is not None:
        click.echo(
            f"wrote {counted(result.count, 'position')} ({result.output_format}) to "
            f"{'standard output' if piped else result.path}",
            err=True,
        )
