"""``openingbook explore``: argument parsing for the browser explorer
(:mod:`openingbook.explorer`)."""

from __future__ import annotations

import sys
import threading

import click

from openingbook.cli import main
from openingbook.cli._common import BadArgument, emit_json, json_option, size_option, user_errors


@main.command("explore")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. The default answers this machine only; another address "
    "lets other machines use the explorer (and its CPU).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8404,
    show_default=True,
    help="TCP port; 0 picks any free port.",
)
@size_option("Board size, width x height (default 7x6): e.g. 6x5, 8x7.")
@click.option(
    "--book",
    "books",
    metavar="BOOK",
    multiple=True,
    help="Distance book to answer from, a shipped book's name (12-dist) or a file; "
    "repeat for several plies; 'none' for the solver alone (default: the distance "
    "books shipped for the board).",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0.1, max=600),
    default=2.0,
    show_default=True,
    help="Seconds an analysis may search; after that the page shows what is known "
    "and marks the columns that are not.",
)
@click.option(
    "--browser/--no-browser",
    default=True,
    show_default=True,
    help="Open the page in the default web browser.",
)
@click.option("--log", "log_requests", is_flag=True, help="Print every request on stderr.")
@json_option
@user_errors
def explore_command(
    host: str,
    port: int,
    size: object,
    books: tuple[str, ...],
    time_limit: float,
    browser: bool,
    log_requests: bool,
    as_json: bool,
) -> None:
    """Explore positions in a web browser: every column's value, the best moves.

    Starts a local web server and prints its address; open it in a browser,
    click a column to play it, take moves back, flip the board, copy a link to
    the position. Stop with Ctrl-C. The page's JSON API is
    /api/analyze?moves=4453 (docs/EXPLORER.md). With --json the first line is
    an object with url and size.
    """
    from openingbook.engine import Engine
    from openingbook.explorer import Explorer, ExplorerLimits, make_server
    from solver import DEFAULT_BOARD

    board = size or DEFAULT_BOARD
    engine = Engine(board=board, **_books_argument(books))
    explorer = Explorer(engine, board, limits=ExplorerLimits(time_limit=time_limit))
    try:
        server = make_server(explorer, host, port, log_requests=log_requests)
    except OSError as exc:
        raise BadArgument(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
    try:
        # the empty board in the background: the page's first question, answered while
        # the browser opens (it waits for this answer rather than asking the engine twice)
        threading.Thread(target=explorer.warm_up, name="warm-up", daemon=True).start()
        if as_json:
            emit_json({"url": server.url, "size": str(board)})
        else:
            click.echo(f"openingbook explorer ({board}) at {server.url}  (Ctrl-C stops it)")
        sys.stdout.flush()
        if browser:
            import webbrowser

            webbrowser.open(server.url)
        server.serve_forever()
    finally:
        server.server_close()


def _books_argument(books: tuple[str, ...]) -> dict[str, object]:
    """The ``books`` argument of :class:`openingbook.engine.Engine` for ``--book``."""
    if not books:
        return {}
    if books == ("none",):
        return {"books": None}
    if "none" in books:
        raise BadArgument("--book none: the solver alone, without other books")
    return {"books": list(books)}
