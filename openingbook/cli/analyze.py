"""``openingbook analyze`` and ``openingbook best``: argument parsing for the engine.

The work is done by :class:`openingbook.engine.Engine` (``docs/ANALYSIS.md``).
Exit status: 0 answered; 2 a bad argument (a move string that cannot be played, a
finished game, a book of another board or without distances, a bad option); 1 a
book that cannot be read, or ``best`` whose best move a time limit left open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from openingbook.cli import main
from openingbook.cli._common import (
    ShippedBooksHelp,
    board_size_options,
    book_option,
    emit_json,
    engine_arguments,
    json_option,
    progress_option,
    shown_moves,
    table_option,
    user_errors,
    working,
)

if TYPE_CHECKING:
    from openingbook.engine import Analysis

F = TypeVar("F", bound=Callable[..., Any])


def engine_options(func: F) -> F:
    """The options ``analyze`` and ``best`` share."""
    options = [
        book_option,
        board_size_options,
        click.option(
            "--time-limit",
            type=click.FloatRange(min=0, min_open=True),
            default=None,
            metavar="SECONDS",
            help="Stop searching after this long (a column's search is stopped too); the "
            "columns not answered are reported as unknown.",
        ),
        table_option,
        progress_option,
        json_option,
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _analyze(
    moves: str,
    books: tuple[Any, ...],
    size: Any,
    width: int | None,
    height: int | None,
    time_limit: float | None,
    table_log2: int | None,
    progress: bool,
    command: str = "analyze",
    quiet: bool = False,
) -> Analysis:
    """The analysis of ``moves`` by the engine the options of :func:`engine_options` ask for."""
    from openingbook.engine import Engine

    arguments = engine_arguments(books, size, width, height)
    shown = working(progress and not quiet, f"{command} {shown_moves(moves)}")
    with shown, Engine(**arguments, table_log2=table_log2) as engine:
        return engine.analyze(moves, time_limit=time_limit)


@main.command("analyze", cls=ShippedBooksHelp)
@click.argument("moves", default="", required=False)
@engine_options
@user_errors
def analyze_command(moves: str, as_json: bool, **options: Any) -> None:
    """Exact value of every move after MOVES (1-based columns, e.g. 4453; none or ""
    for the empty board).

    For each column: who wins with perfect play after that move, the plies to the
    end of the game counted from this position (the move included), and the Pons
    score for the side to move; '*' marks the best moves (highest score: the
    fastest win, else the slowest loss). {book_reach}

    \b
    Examples:
      openingbook analyze ""
      openingbook analyze 4453 --json
      openingbook analyze 333 --size 6x5
      openingbook analyze 44444433333312 --book none --time-limit 2
    """
    analysis = _analyze(moves, quiet=as_json, **options)
    if as_json:
        emit_json(analysis.to_dict())
    else:
        click.echo("\n".join(analysis.lines()))


@main.command("best")
@click.argument("moves", default="", required=False)
@engine_options
@user_errors
def best_command(moves: str, as_json: bool, **options: Any) -> None:
    """A best move after MOVES (1-based column): the highest score (fastest win,
    else slowest loss), the most central of equals.

    \b
    Examples:
      openingbook best ""
      openingbook best 4453 --json
    """
    from openingbook.engine import best_column, value_dict

    analysis = _analyze(moves, command="best", quiet=as_json, **options)
    column = best_column(analysis)
    if as_json:
        emit_json(
            {
                "moves": analysis.line,
                "board": str(analysis.board),
                "best": column,
                "best_columns": list(analysis.best),
                "value": None if analysis.value is None else value_dict(analysis.value),
            }
        )
    else:
        click.echo(column)
