"""``openingbook serve``: argument parsing for the local drop-in of the public solver's
web API (:mod:`openingbook.explorer.solve`) with the explorer's page on the same
server; the engine's options are those of ``openingbook explore``."""

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


@main.command("serve")
@listen_options(8405)
@book_option
@board_size_options
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0.1, max=3600),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="Seconds a request may search (a batch: all its positions together); a "
    "position not solved by then is answered 503.",
)
@click.option(
    "--max-batch",
    type=click.IntRange(1, 100_000),
    default=4096,
    show_default=True,
    help="Positions in one /solve/batch request (the body is bounded too, at 64 bytes "
    "a position and 256 KiB at least).",
)
@table_option
@click.option("--log", "log_requests", is_flag=True, help="Print every request on stderr.")
@json_option
@user_errors
def serve_command(
    host: str,
    port: int,
    books: tuple[Any, ...],
    size: Any,
    width: int | None,
    height: int | None,
    time_limit: float,
    max_batch: int,
    table_log2: int | None,
    log_requests: bool,
    as_json: bool,
) -> None:
    """Answer the public Connect-4 solver's web API on this machine.

    GET /solve?pos=4453 answers {"pos": "4453", "score": [s1, ..., s7]} as
    connect4.gamesolver.org does (1-based columns; each column's score for
    the side to move, 100 for a full column), so a client switches by
    changing its base URL. POST /solve/batch takes a JSON list of move
    strings and answers the list of answers. The explorer's page is at /.
    A bad position is answered 400 with one line. Stop with Ctrl-C. With
    --json the first line is an object with url, size and solve (the solve
    URL). See docs/SERVE.md.

    \b
    Examples:
      openingbook serve
      openingbook serve --port 0
      curl 'http://127.0.0.1:8405/solve?pos=4453'
    """
    from openingbook.engine import Engine
    from openingbook.explorer import Explorer, make_server
    from openingbook.explorer.solve import SOLVE_PATH, add_solve_api, serve_limits
    from openingbook.oracle import solver_api_scores

    engine = Engine(**engine_arguments(books, size, width, height), table_log2=table_log2)
    board = engine.board
    limits = serve_limits(time_limit, max_batch)
    explorer = add_solve_api(Explorer(engine, board, limits=limits), solver_api_scores)
    server = listening_server(
        lambda: make_server(explorer, host, port, log_requests=log_requests), host, port
    )
    # a first use: the search past the books (/solve's batch kernel) compiles in a child
    # process on another core while this one compiles the book reader for the first answers
    engine.solver.warm_up(solve=False, wait=False)
    try:
        threading.Thread(target=explorer.warm_up, name="warm-up", daemon=True).start()
        solve_url = server.url.rstrip("/") + SOLVE_PATH
        if as_json:
            emit_json({"url": server.url, "size": str(board), "solve": solve_url})
        else:
            click.echo(
                f"openingbook serve ({board}) at {server.url}: "
                f"{solve_url}?pos=4453, the explorer at /  (Ctrl-C stops it)"
            )
        sys.stdout.flush()
        server.serve_forever()
    finally:
        server.server_close()
