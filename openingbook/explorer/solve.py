"""The public Connect-4 solver's web API, answered on this machine (``openingbook serve``).

Pascal Pons' online solver (``https://connect4.gamesolver.org``) answers
``GET /solve?pos=4453`` with ``{"pos": "4453", "score": [-5, -5, -2, -3, -4, -2, -2]}``:
the move string as given (1-based columns) and, for each column, Pons' score of
playing it for the side to move (:mod:`solver.scores`: positive wins, the sooner
the higher; 0 a draw; negative loses), :data:`FULL_COLUMN` (100) for a full
column. :class:`SolveApi` answers the same request with the same JSON, so a client
switches by changing its base URL; the answers carry
``Access-Control-Allow-Origin: *``, as the public API's do, so pages of any origin
can call it. A missing or empty ``pos`` is the empty board. Further parameters
(a client's cache-busting ``_=...``) are ignored.

Where this server differs from the public one, it refuses rather than guesses: a
move string that cannot be played (a column out of range or full, a character that
is no column), a game already over (a four, or a full board) and a repeated ``pos``
are answered 400 with one line, ``{"error": "..."}``; a position not solved within
the time limit is answered 503 (``ExplorerLimits.time_limit``), never a made-up score.

``POST /solve/batch`` takes a JSON list of move strings (at most
``ExplorerLimits.max_batch``; the body at most ``ExplorerLimits.max_body`` bytes)
and answers the list of ``/solve`` answers, in order; one bad position refuses the
batch (400, naming its index), as does a batch not solved within the time limit
(503).

The scores come from the function given to :func:`add_solve_api` (``openingbook serve``
gives :func:`openingbook.oracle.solver_api_scores`, the batched oracle's).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs

from openingbook.explorer.server import (
    ApiError,
    Explorer,
    ExplorerLimits,
    parse_request_moves,
)
from solver import Position

#: one position: ``GET /solve?pos=4453``
SOLVE_PATH = "/solve"
#: many positions: ``POST /solve/batch`` with a JSON list of move strings
BATCH_PATH = "/solve/batch"
#: query fields read at most (``pos`` and a client's own few)
_MAX_FIELDS = 8

#: ``scores(engine, positions, time_limit)``: each position's scores (positions of games
#: that go on, parsed once from the request's move strings), one per column
#: (``FULL_COLUMN`` for a full one), or None for a position not solved in time
Scores = Callable[[Any, Sequence[Position], float | None], list[list[int] | None]]


class SolveApi:
    """``/solve`` and ``/solve/batch`` (see the module documentation) of an
    :class:`~openingbook.explorer.server.Explorer`'s engine and limits; thread-safe
    (the engine is taken through :meth:`Explorer.engine_slot`)."""

    cross_origin = True

    def __init__(self, explorer: Explorer, takes_body: bool, scores: Scores) -> None:
        self.explorer = explorer
        self.takes_body = takes_body
        self.scores = scores

    def get(self, query: str) -> dict[str, Any]:
        """The answer to ``/solve?<query>``."""
        if self.takes_body:
            raise ApiError(
                f"POST a JSON list of move strings to {BATCH_PATH}",
                HTTPStatus.METHOD_NOT_ALLOWED,
            )
        try:
            fields = parse_qs(query, keep_blank_values=True, max_num_fields=_MAX_FIELDS)
        except ValueError:
            raise ApiError(f"more than {_MAX_FIELDS} query parameters") from None
        given = fields.get("pos", [""])
        if len(given) > 1:
            raise ApiError("parameter 'pos' given more than once")
        return self.solve([given[0]])[0]

    def post(self, body: bytes) -> list[dict[str, Any]]:
        """The answer to ``/solve/batch`` with ``body``, a JSON list of move strings."""
        try:
            positions = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            reason = " ".join(str(exc).split())
            raise ApiError(f"the body is not JSON: {reason}") from None
        if not isinstance(positions, list) or not all(isinstance(p, str) for p in positions):
            raise ApiError('the body must be a JSON list of move strings, e.g. ["4453", "44"]')
        limit = self.explorer.limits.max_batch
        if len(positions) > limit:
            raise ApiError(f"{len(positions)} positions in one batch, more than {limit}")
        return self.solve(positions, batch=True)

    def solve(self, positions: list[str], batch: bool = False) -> list[dict[str, Any]]:
        """``{"pos", "score"}`` of each move string, or :class:`ApiError` for the first
        that cannot be answered."""
        board = self.explorer.board
        checked = []
        for index, pos in enumerate(positions):
            where = f"position {index} ({pos[:50]!r}): " if batch else ""
            try:
                requested = parse_request_moves(pos, board)
            except ApiError as exc:
                raise ApiError(f"{where}{exc}") from None
            if requested.result == "draw":
                raise ApiError(f"{where}the board is full: the game is over (a draw)")
            if requested.result is not None:
                raise ApiError(
                    f"{where}the game is over: the {requested.result} player completed "
                    f"four with move {requested.position.stone_count}"
                )
            checked.append(requested.position)
        limit = self.explorer.limits.time_limit
        if not checked:
            return []
        with self.explorer.engine_slot() as engine:
            scores = self.scores(engine, checked, limit)
        for index, found in enumerate(scores):
            if found is None:
                where = f"position {index} ({positions[index][:50]!r})" if batch else "position"
                raise ApiError(
                    f"{where} not solved within the time limit ({limit:g} s)",
                    HTTPStatus.SERVICE_UNAVAILABLE,
                )
        return [{"pos": p, "score": s} for p, s in zip(positions, scores, strict=True)]


def serve_limits(time_limit: float = 10.0, max_batch: int = 4096) -> ExplorerLimits:
    """The bounds of ``openingbook serve``: the explorer's, with ``time_limit`` seconds
    a request (a batch: all its positions together), ``max_batch`` positions a batch
    in a body of 64 bytes a position (256 KiB at least), and as many requests waiting
    for the engine as connections (an agent's clients ask many positions at once;
    answered one after the other, book positions in well under a millisecond each)."""
    connections = ExplorerLimits.max_connections
    return ExplorerLimits(
        time_limit=time_limit,
        max_batch=max_batch,
        max_body=max(256 * 1024, 64 * max_batch),
        max_pending=connections,
    )


def add_solve_api(explorer: Explorer, scores: Scores) -> Explorer:
    """``explorer`` with :data:`SOLVE_PATH` and :data:`BATCH_PATH` added (returned),
    answered with ``scores`` of the explorer's engine."""
    explorer.endpoints[SOLVE_PATH] = SolveApi(explorer, takes_body=False, scores=scores)
    explorer.endpoints[BATCH_PATH] = SolveApi(explorer, takes_body=True, scores=scores)
    return explorer
