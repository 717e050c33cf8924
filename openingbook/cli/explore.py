"""``openingbook explore``: argument parsing for the browser explorer
(:mod:`openingbook.explorer`); the engine's options (``--book``, the board size,
``--table-log2``) are those of ``openingbook analyze`` (:mod:`openingbook.cli._common`)."""

from __future__ import annotations

import sys
import threading
from typing import Any

import click

from openingbook.cli import main
from openingbook.cli._common import (
    board_size_options,
    book_option,
    emit_json,
    engine_arguments,
    json_option,
    listen_options,
    listening_server,
    table_option,
    user_errors,
)


@main.command("explore")
@listen_options(8404)
@book_option
@board_size_options
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0.1, max=3600),
    default=2.0,
    show_default=True,
    metavar="SECONDS",
    help="Seconds an analysis may search; then the page shows what is known and marks "
    "the columns that are not.",
)
@table_option
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
    books: tuple[Any, ...],
    size: Any,
    width: int | None,
    height: int | None,
    time_limit: float,
    table_log2: int | None,
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

    \b
    Examples:
      openingbook explore
      openingbook explore --port 0 --no-browser
      openingbook explore --size 6x5
    """
    from openingbook.engine import Engine
    from openingbook.explorer import Explorer, ExplorerLimits, make_server

    engine = Engine(**engine_arguments(books, size, width, height), table_log2=table_log2)
    board = engine.board
    explorer = Explorer(engine, board, limits=ExplorerLimits(time_limit=time_limit))
    server = listening_server(
        lambda: make_server(explorer, host, port, log_requests=log_requests), host, port
    )
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
