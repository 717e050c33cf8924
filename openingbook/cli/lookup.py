"""``openingbook lookup`` and ``openingbook info``: argument parsing for the reader."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from openingbook.cli import main
from openingbook.cli._common import (
    BadArgument,
    counted,
    emit_json,
    format_option,
    json_option,
    parse_moves,
    progress_bar,
    progress_option,
    read_stdin,
    resolve_book_argument,
    size_option,
    user_errors,
)
from openingbook.solver import Player, Position, Winner

if TYPE_CHECKING:
    from openingbook.formats import Layout
    from openingbook.registry import ShippedBook


def _read_board(board: str) -> Position:
    text = read_stdin() if board == "-" else board.replace("/", "\n")
    try:
        return Position.from_diagram(text)
    except ValueError as exc:
        raise BadArgument(f"--board: {exc}") from None


@main.command("lookup")
@click.argument("book", type=click.Path())
@click.argument("moves", required=False)
@click.option(
    "--board",
    metavar="DIAGRAM",
    default=None,
    help="The position as a diagram instead of MOVES: rows top to bottom separated by '/' "
    "or newlines, X (first player), O (second), . (empty); '-' reads it from stdin.",
)
@format_option
@size_option(
    "The board size the position is of, e.g. 6x5; a book of another size is refused "
    "(default: the book's own size)."
)
@click.option(
    "--check",
    is_flag=True,
    help="Verify the whole file first (values, order, positions) instead of trusting it.",
)
@click.option(
    "--verify",
    is_flag=True,
    help="Compare the whole file with its manifest (sha256) and check every record first.",
)
@json_option
@user_errors
def lookup_command(
    book: str,
    moves: str | None,
    board: str | None,
    fmt: Layout | None,
    size: Any,
    check: bool,
    verify: bool,
    as_json: bool,
) -> None:
    """Look up a position (1-based MOVES such as 44444455, or --board) in BOOK.

    Prints the winner, the plies to the end of the game (books with distances)
    and the Pons score of the side to move. The file is checked before it answers:
    a compact book against its checksum, a Thill book against the sha256 in its
    manifest; a damaged file is refused. A book that has neither (Thill's own
    files, Cadot and Pons books) answers with a one-line note on stderr that its
    values are unchecked (with --json: "unchecked", else null). A position a
    pruned book does not store is a first-player win when the book's scope is
    known to hold it (its manifest <book>.json, or a complete book); a position
    outside the book's scope, or one it cannot answer, is an error.

    \b
    BOOK is a file (Thill layout or compact .c4b) or a shipped book's name
    (see 'openingbook books').

    \b
    Examples:
      openingbook lookup 12-dist 444444333333
      openingbook lookup book.dat 44444455
      openingbook lookup bookDeepDist.dat 444444555555 --json
      openingbook lookup book.dat --board "......./.....X./.....O./.....XO/.....XO/.....XO"
      openingbook lookup 14-dist-6x5 34432112566543 --size 6x5
    """
    if (moves is None) == (board is None):
        raise click.UsageError("give the position either as MOVES or with --board")
    # the command modules import only click; the registry loads the reader of the book's format
    from openingbook.formats import detect, open_book

    path = resolve_book_argument(book)
    entry = detect(path)
    if fmt is not None and not entry.layouts:
        raise BadArgument(f"--format applies to Thill-layout books, not {entry.name} ones")
    asked = {"check": check, "verify": verify}
    # only the checks asked for: an option given as False would turn a default check off
    options = {name: True for name, on in asked.items() if on and name in entry.checks_on_request}
    # opening verifies what the format allows (a compact book's checksum, a Thill book's
    # sha256 against its manifest, and sampled records); every answer is checked possible
    with open_book(path, entry, fmt, **options) as opened:
        unchecked = opened.unchecked
        if size is not None:
            from openingbook.model import require_board

            require_board(path, opened.board, size, argument="size")
        if moves is not None:
            pos = parse_moves(moves, "moves", opened.board)
        else:
            pos = _read_board(board or "")
        opened.require_position(pos)  # another board or ply: refused as an argument
        value, record = opened.lookup(pos)
        if entry.layouts:
            fmt_name = opened.format.name
        else:
            board_name = "" if opened.board == (7, 6) else f" {opened.board}"
            fmt_name = f"{entry.name}{board_name} {opened.plies}-ply"
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
                "format": fmt_name,
                "unchecked": unchecked,
            }
        )
        return
    if value.winner is Winner.DRAW:
        text = "draw"
    else:
        text = f"{value.winner.value} player wins"
        if value.plies is not None:
            text += f" in {counted(value.plies, 'ply', 'plies')}"
    if value.score is not None:
        score = f"{value.score:+d}" if value.score else "0"
        text += f" (score {score} for the {to_move} player to move)"
    if not entry.layouts:  # not a Thill layout: no record numbers
        where = "not stored (wins at once) in" if pos.can_win_next() else "in"
    else:
        where = f"record {record} in" if record is not None else "not stored in"
    click.echo(f"{text}; {counted(pos.stone_count, 'stone')}, {where} {fmt_name} book")
    if unchecked is not None:  # on stderr, after the answer: its line stays as it was
        click.echo(f"note: {unchecked}", err=True)


@main.command("info")
@click.argument("book", type=click.Path())
@click.option(
    "--full",
    is_flag=True,
    help="Compact books of more than 5,000,000 positions (the 14-ply book): also decode "
    "every value, part by part with a progress bar (about a minute); smaller ones always are.",
)
@format_option
@progress_option
@json_option
@user_errors
@click.pass_context
def info_command(
    ctx: click.Context, book: str, full: bool, fmt: Layout | None, progress: bool, as_json: bool
) -> None:
    """Format, scope, record count, value histogram and checks of BOOK.

    Checks every record (values, order, positions) and compares the file with
    its manifest <book>.json (size, record count, sha256), reading the file in
    pieces. A compact book's checksum covers the whole file; its values are
    decoded too, for a big book with --full only. Other formats have no checksum:
    their values are compared with a shipped book of their board and ply, where
    there is one. Exits with status 1 when a check fails.

    \b
    Examples:
      openingbook info book.dat
      openingbook info mybook.dat --format 12-dist --json
    """
    from openingbook.formats import describe, detect

    path = resolve_book_argument(book)
    entry = detect(path)
    if fmt is not None and not entry.layouts:
        raise BadArgument(f"--format applies to Thill-layout books, not {entry.name} ones")
    with progress_bar(full and progress and not as_json, "checking every value") as advance:
        info = describe(path, entry, fmt, full=full or None, progress=advance)
    if as_json:
        emit_json(info)
    else:
        values = info["values"]
        assert isinstance(values, dict)
        click.echo(f"{book}: {info['description']}")
        if "bits_per_position" in info:  # a compact book's report
            click.echo(
                f"positions: {info['positions']} ({info['bytes']} bytes, "
                f"{info['bits_per_position']} bits per position)"
            )
            source = info["provenance"]
            if source.get("source"):
                click.echo(
                    f"converted from {source['source']} ({source['source_format']}, "
                    f"sha256 {source['source_sha256']})"
                )
            if source.get("built_by"):
                click.echo(f"built by: {_shortened(source['built_by'])}")
        else:
            click.echo(f"records: {info['records']} ({info['bytes']} bytes)")
            manifest = info["manifest"] or "none"
            click.echo(f"manifest: {manifest}; scope: {info['scope']}")
        if values:  # none when the values could not be read (see the checks)
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
        for label, why in info.get("not_checked", {}).items():
            click.echo(f"{label} check: {why}")
    if not info["ok"]:
        ctx.exit(1)


@main.command("books")
@json_option
@user_errors
def books_command(as_json: bool) -> None:
    """List the shipped books installed: name, size and where each came from; and the
    deep books (13 to 15 plies) when their data package is not installed, with the
    command that installs it.

    Every file is checked whole against its checksum: a damaged one is listed as
    DAMAGED, with the reason (exit status 0: the others are still listed).

    A shipped book is opened by its name anywhere a BOOK is asked for
    ('openingbook lookup 12-dist 444444333333', openingbook.open_book("12-dist")).
    """
    from openingbook.booknames import (
        DEEP_BOOKS_DISTRIBUTION,
        INSTALL_DEEP_BOOKS,
        missing_deep_books,
    )
    from openingbook.registry import shipped_books

    books = shipped_books(verify=True)  # every file checked whole: a damaged one is flagged
    missing = missing_deep_books()
    if as_json:
        emit_json(
            {
                "books": [b.as_dict() for b in books],
                "missing": missing,
                "install": INSTALL_DEEP_BOOKS if missing else None,
            }
        )
        return
    if not books:
        click.echo("no shipped books found")
    _echo_books(books)
    if missing:
        click.echo(f"not installed: {', '.join(missing)} (data package {DEEP_BOOKS_DISTRIBUTION})")
        click.echo(f"{'':<18} {INSTALL_DEEP_BOOKS}  (without them the engine searches deeper)")


def _echo_books(books: list[ShippedBook]) -> None:
    """The listing of ``books``: one line a book (naming the data package of a deep
    book), the next its provenance."""
    for b in books:
        if b.damaged is not None:  # listed, and the others still are
            click.echo(f"{b.name:<18} {b.bytes:>10,} bytes  DAMAGED: {b.damaged}")
            continue
        scope = f"under {b.under}" if b.under else "complete"
        what = {"wdl": "win/draw/loss", "distance": "distances", "score": "scores"}[b.kind]
        board = "" if b.board == "7x6" else f"{b.board} board, "
        package = "" if b.package == "openingbook" else f" ({b.package})"
        click.echo(
            f"{b.name:<18} {b.bytes:>10,} bytes  {board}{b.plies}-ply {what}, {scope}, "
            f"{counted(b.positions, 'position')}{package}"
        )
        origin = b.provenance.get("built_by") or b.provenance.get("converted_by")
        if origin:
            source = b.provenance.get("source")
            click.echo(f"{'':<18} {f'from {source}: ' if source else ''}{_shortened(origin)}")


def _shortened(command: str, keep: int = 2) -> str:
    """A recorded command as ``books`` and ``info`` show it: a long run of operands (a
    merge's 32 parts) shows its first ``keep`` and last one; ``--json`` gives it whole.

    >>> _shortened("openingbook merge p1.c4b p2.c4b p3.c4b p4.c4b p5.c4b -o b.c4b")
    'openingbook merge p1.c4b p2.c4b ... (2 more) p5.c4b -o b.c4b'
    >>> _shortened("openingbook derive --from b.dat --plies 8")
    'openingbook derive --from b.dat --plies 8'
    """
    import shlex

    words = shlex.split(command)
    runs, start = [], 2  # after "openingbook COMMAND": runs of operands between options
    for i in range(2, len(words) + 1):
        if i == len(words) or words[i].startswith("-"):
            runs.append((start, i))
            start = i + 1
    first, stop = max(runs, key=lambda run: run[1] - run[0], default=(0, 0))
    if stop - first <= keep + 2:
        return command
    hidden = stop - first - keep - 1
    quoted = [shlex.quote(w) for w in words]
    return " ".join([*quoted[: first + keep], f"... ({hidden} more)", *quoted[stop - 1 :]])
