"""``openingbook solve``: argument parsing for the exact solver
(:mod:`openingbook.solver.search`)."""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from openingbook.cli import main
from openingbook.cli._common import (
    BadArgument,
    board_size_options,
    emit_json,
    json_option,
    parse_moves,
    progress_option,
    resolve_board_size,
    shown_moves,
    stdin_text_stream,
    user_errors,
    working,
)
from openingbook.errors import InvalidArgument

if TYPE_CHECKING:
    from openingbook.solver import Solver

from openingbook.memory import MAX_TABLE_LOG2, MIN_TABLE_LOG2, check_table_size
from openingbook.solver import (
    Position,
    default_table_log2,
    describe_score,
    plies_from_score,
    query_table_log2,
    winner_from_score,
)


class _Solvers:
    """The command's solvers, each made when a position first needs it: one with the
    table ``--table-log2`` gives, or one per table size :func:`openingbook.solver.query_table_log2`
    chooses by the position's empty cells (a 12-ply position is solved as fast with a
    32 MiB table, which costs the system far less to fill than 256 MiB)."""

    def __init__(self, table_log2: int | None, threads: int | None, width: int, height: int):
        self.table_log2, self.threads = table_log2, threads
        self.width, self.height = width, height
        self.by_size: dict[int, Solver] = {}

    def of(self, pos: Position) -> Solver:
        from openingbook.solver import Solver

        log2 = self.table_log2
        if log2 is None:
            log2 = query_table_log2(self.width * self.height - pos.stone_count)
        solver = self.by_size.get(log2)
        if solver is None:
            solver = Solver(log2, threads=self.threads, width=self.width, height=self.height)
            # load (or compile) the kernel now, so that "ms" is solving time only
            solver.warm_up(solve_many=False)
            self.by_size[log2] = solver
        return solver


def _result(solver: Solver, pos: Position, moves: str, all_moves: bool) -> dict:
    start = time.perf_counter()
    score = solver.solve(pos)
    columns = solver.analyze(pos) if all_moves else None
    ms = (time.perf_counter() - start) * 1000
    n = pos.stone_count
    w, h = pos.width, pos.height
    out = {
        "moves": moves,
        "size": f"{w}x{h}",
        "stones": n,
        "score": score,
        "winner": winner_from_score(score, n).value,
        "plies": plies_from_score(score, n, w, h),
        "result": describe_score(score, n, w, h),
    }
    if columns is not None:
        out["columns"] = columns
    out["ms"] = round(ms, 3)
    return out


def _text(result: dict) -> str:
    line = f"{result['moves'] or '(start)'}: score {result['score']}, {result['result']}"
    if "columns" in result:
        cols = " ".join("-" if s is None else str(s) for s in result["columns"])
        line += f"\n  column scores 1-{len(result['columns'])}: {cols}"
    return line


def _batch_lines(source: str) -> Iterator[tuple[int, str]]:
    """(line number, move string) of every non-blank, non-comment line of a file or stdin.

    A source without any move string is an error: nothing would be solved, and
    an empty standard input is usually a pipe that went wrong.
    """
    from openingbook.inputs import bounded_lines  # a line of /dev/zero never ends

    name = "standard input" if source == "-" else source
    stream = stdin_text_stream() if source == "-" else open(source, encoding="utf-8")  # noqa: SIM115
    found = False
    try:
        for number, line in enumerate(bounded_lines(stream, name), 1):
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                found = True
                yield number, fields[0]
    except OSError as exc:  # standard input closed under us, a file that went away
        raise OSError(f"cannot read {name}: {exc.strerror or exc}") from None
    finally:
        if stream is not sys.stdin:
            stream.close()
    if not found:
        raise InvalidArgument(f"{name}: no move strings to solve")


@main.command("solve")
@click.argument("moves", required=False)
@click.option(
    "--file",
    "source",
    metavar="F",
    default=None,
    help="Solve every line of F ('-' = stdin): one 1-based move string per line (further "
    "fields are ignored, '#' starts a comment). The table is kept between positions.",
)
@click.option("--all-moves", is_flag=True, help="Also print the score of every column.")
@click.option(
    "--table-log2",
    type=click.IntRange(MIN_TABLE_LOG2, MAX_TABLE_LOG2),
    default=None,
    help="Transposition table size: 2^N entries of 8 bytes (default: sized for each "
    f"position, {query_table_log2(0)} for one of 8 stones or more on 7x6, "
    f"{default_table_log2()} for an emptier one).",
)
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=None,
    help="Threads searching each position, sharing the table (default: one per core).",
)
@board_size_options
@progress_option
@json_option
@user_errors
def solve_command(
    moves: str | None,
    source: str | None,
    all_moves: bool,
    table_log2: int | None,
    threads: int | None,
    size: object,
    width: int | None,
    height: int | None,
    progress: bool,
    as_json: bool,
) -> None:
    """Exact game value of the position after MOVES (1-based columns, e.g. 4453;
    on boards wider than 9 columns separated by commas, e.g. 10,1,12).

    Prints the score (Pons convention: positive = the side to move wins, the
    larger the sooner; on any board size one more than the stones the winner
    still has in hand after its winning stone), the result in words and the
    plies to the end of the game with perfect play. With --json: an object with
    moves, size, stones, score, winner ("first", "second", "draw"), plies,
    result, ms (and columns).
    """
    board = resolve_board_size(size, width, height)
    width, height = board
    from openingbook.solver import min_table_log2

    if table_log2 is not None and table_log2 < min_table_log2(width * (height + 1)):
        raise BadArgument(
            f"--table-log2 {table_log2}: {width}x{height} boards need at least "
            f"{min_table_log2(width * (height + 1))}"
        )
    if (moves is None) == (source is None):
        raise click.UsageError("give either MOVES or --file F")
    position = parse_moves(moves, "moves", board) if moves is not None else None
    # before a table is allocated
    check_table_size(default_table_log2() if table_log2 is None else table_log2)
    lines: Iterator[tuple[int, str]] = iter(())
    if source is not None:
        # the first line before the solver: a missing file or a closed or empty stdin
        # fails at once, without loading the solver first
        batch = _batch_lines(source)
        lines = itertools.chain([next(batch)], batch)
    solvers = _Solvers(table_log2, threads, width, height)
    shown = progress and not as_json

    def solved(pos: Position, line: str) -> dict:
        with working(shown, f"solve {shown_moves(line)}"):
            return _result(solvers.of(pos), pos, line, all_moves)

    if position is not None and moves is not None:
        result = solved(position, moves)
        if as_json:
            emit_json(result)
        else:
            click.echo(_text(result))
        return
    # no first guess from the previous line: the solver's own start (win or not,
    # then one score at a time from 0) costs fewer nodes, even on related lines
    for number, line in lines:
        try:
            pos = Position.from_moves(line, width, height)
        except ValueError as exc:
            raise InvalidArgument(f"line {number}: {exc}") from None
        result = solved(pos, line)
        if as_json:
            emit_json(result)
        else:
            click.echo(_text(result))
