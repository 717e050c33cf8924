"""``openingbook lookup`` and ``openingbook info``: argument parsing for the reader."""

from __future__ import annotations

import click

from openingbook.bookfile import BookFormat, check_order, describe_book
from openingbook.cli import main
from openingbook.cli._common import (
    BadArgument,
    emit_json,
    format_option,
    json_option,
    parse_moves,
    read_stdin,
    user_errors,
)
from openingbook.reader import Book
from solver import Player, Position, Winner


def _read_board(board: str) -> Position:
    text = read_stdin() if board == "-" else board.replace("/", "\n")
    try:
        return Position.from_diagram(text)
    except ValueError as exc:
        raise BadArgument(f"--board: {exc}") from None


@main.command("lookup")
@click.argument("book", type=click.Path(dir_okay=False))
@click.argument("moves", required=False)
@click.option(
    "--board",
    metavar="DIAGRAM",
    default=None,
    help="The position as a diagram instead of MOVES: rows top to bottom separated by '/' "
    "or newlines, X (first player), O (second), . (empty); '-' reads it from stdin.",
)
@format_option
@click.option(
    "--check",
    is_flag=True,
    help="Verify the whole file first (values, order, positions) instead of trusting it.",
)
@json_option
@user_errors
def lookup_command(
    book: str,
    moves: str | None,
    board: str | None,
    fmt: BookFormat | None,
    check: bool,
    as_json: bool,
) -> None:
    """Look up a position (1-based MOVES such as 44444455, or --board) in BOOK.

    Prints the winner, the plies to the end of the game (books with distances)
    and the Pons score of the side to move. A position a pruned book does not
    store is a first-player win.

    \b
    Examples:
      openingbook lookup book.dat 44444455
      openingbook lookup bookDeepDist.dat 444444555555 --json
      openingbook lookup book.dat --board "......./.....X./.....O./.....XO/.....XO/.....XO"
    """
    if (moves is None) == (board is None):
        raise click.UsageError("give the position either as MOVES or with --board")
    pos = parse_moves(moves, "moves") if moves is not None else _read_board(board or "")
    with Book(book, fmt, check=check) as opened:
        fmt = opened.format
        record = opened.find(pos)  # refuses a wrong stone count or board size
        if record is None and not pos.can_win_next():
            _check_in_scope(book, pos)
            if not check:
                # "not stored" comes from a binary search, which is only right in a
                # sorted file: verify the order (about 0.2 s for a full 12-ply book)
                check_order(fmt, opened.records(), book)
        value, record = opened.lookup(pos)
    to_move = "first" if pos.side_to_move is Player.FIRST else "second"
    if as_json:
        emit_json(
            {
                "winner": value.winner.value,
                "plies": value.plies,
                "score": value.score,
                "stones": pos.stone_count,
                "to_move": to_move,
                "record": record,
                "moves": moves,
                "book": book,
                "format": fmt.name,
            }
        )
        return
    if value.winner is Winner.DRAW:
        text = "draw"
    else:
        text = f"{value.winner.value} player wins"
        if value.plies is not None:
            text += f" in {value.plies} {'ply' if value.plies == 1 else 'plies'}"
    if value.score is not None:
        score = f"{value.score:+d}" if value.score else "0"
        text += f" (score {score} for the {to_move} player to move)"
    where = f"record {record}" if record is not None else "not stored"
    click.echo(f"{text}; {pos.stone_count} stones, {where} in {fmt.name} book")


def _check_in_scope(book: str, pos: Position) -> None:
    """Refuse a position the book's manifest says it does not cover.

    A pruned book answers "first player wins" for what it does not store, which
    is only true inside its scope (its ``under`` line, and not for a sample or a
    shard). A position whose stones do not contain the ``under`` line's (or
    its mirror's) is outside it.
    """
    from openingbook.derive import read_scope

    scope = read_scope(book)
    if scope.partial:
        raise click.ClickException(
            f"position not in {book}, which holds {scope.describe()}: its value is unknown"
        )
    if scope.under is None:
        return
    line = Position.from_moves(scope.under)
    for variant in (line, line.mirror()):
        if all(
            variant.stones_of(player) & ~pos.stones_of(player) == 0
            for player in (Player.FIRST, Player.SECOND)
        ):
            return
    raise click.ClickException(
        f"position outside {book}, which holds only the positions under {scope.under}"
    )


@main.command("info")
@click.argument("book", type=click.Path(dir_okay=False))
@format_option
@json_option
@user_errors
@click.pass_context
def info_command(ctx: click.Context, book: str, fmt: BookFormat | None, as_json: bool) -> None:
    """Format, record count, value histogram and checks (values, order, positions) of BOOK.

    Exits with status 1 when a check fails.

    \b
    Examples:
      openingbook info book.dat
      openingbook info mybook.dat --format 12-dist --json
    """
    info = describe_book(book, fmt)
    if as_json:
        emit_json(info)
    else:
        values = info["values"]
        assert isinstance(values, dict)
        click.echo(f"{book}: {info['description']}")
        click.echo(f"records: {info['records']} ({info['bytes']} bytes)")
        click.echo(
            f"values: draw {values['draw']}, first player wins {values['first']}, "
            f"second player wins {values['second']}"
        )
        for side in ("first", "second"):
            by_plies = values.get(f"{side}_by_plies")
            if by_plies:
                spread = ", ".join(f"{d}: {c}" for d, c in by_plies.items())
                click.echo(f"  {side} player wins by plies: {spread}")
        checks = info["checks"]
        assert isinstance(checks, dict)
        for label, result in checks.items():
            click.echo(f"{label} check: {result}")
    if not info["ok"]:
        ctx.exit(1)
