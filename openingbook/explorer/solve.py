"""The public Connect-4 solver's web API, answered on this machine (``openingbook serve``).

Pascal Pons' online solver (``https://connect4.gamesolver.org``) answers
``GET /solve?pos=4453`` with ``{"pos": "4453", "score": [-5, -5, -2, -3, -4, -2, -2]}``:
the move string as given (1-based columns) and, for each column, Pons' score of
playing it for the side to move (:mod:`openingbook.solver.scores`: positive wins, the sooner
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
``ExplorerLimits.max_batch``, else 413; the body at most ``ExplorerLimits.max_body``
bytes) and answers the list of ``/solve`` answers, in order, byte for byte; one bad
position refuses the batch (400, naming its index, with ``/solve``'s reason), as
does a batch not solved within the time limit (503). A batch is read all together
(:func:`checked_positions`) and its answer written in one pass (:func:`batch_json`):
no object per position on either side.

The scores come from the function given to :func:`add_solve_api`, of the positions'
bitboards (:data:`Scores`; ``openingbook serve`` gives
:func:`openingbook.oracle.solver_api_scores`, the batched oracle's).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs

import numpy as np

from openingbook.explorer.server import (
    ApiError,
    Explorer,
    ExplorerLimits,
    parse_request_moves,
)
from openingbook.layouts import PLAY_TOGETHER, play_move_strings
from openingbook.solver import BoardSize, Position

#: one position: ``GET /solve?pos=4453``
SOLVE_PATH = "/solve"
#: many positions: ``POST /solve/batch`` with a JSON list of move strings
BATCH_PATH = "/solve/batch"
#: query fields read at most (``pos`` and a client's own few)
_MAX_FIELDS = 8

#: ``scores(engine, first, mask, time_limit)``: the scores of positions of games that go
#: on, given as ``first``/``mask`` uint64 bitboards (:mod:`openingbook.solver.bitboards`; parsed
#: once,
#: from the request's move strings): ``(scores, answered)``, a ``(B, width)`` integer
#: array, one score per column (``FULL_COLUMN`` for a full one), and a ``(B,)`` bool array,
#: False for a position not solved within ``time_limit`` seconds (its scores are not read)
Scores = Callable[[Any, np.ndarray, np.ndarray, float | None], tuple[np.ndarray, np.ndarray]]


def checked_positions(
    positions: Sequence[str], board: BoardSize, batch: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``first``/``mask`` bitboards of move strings of games that go on, or
    :class:`ApiError` (400) for the first that is not one (``batch``: naming its index),
    in the words of :func:`checked_position`; and ``plain`` (B,), True for the strings
    of column digits alone (their JSON is the string in quotes).

    From :data:`openingbook.layouts.PLAY_TOGETHER` strings on, those of column digits
    alone are played all together (:func:`openingbook.layouts.play_move_strings`), and
    only the others (another character, a full column, a four, a full board; whitespace
    or commas) are read one by one, by :func:`checked_position`: the same positions and
    the same words, at a fraction of the cost.
    """
    n = len(positions)
    if n >= PLAY_TOGETHER:
        first, mask, plain = play_move_strings(positions, board)
        plain &= np.bitwise_count(mask) < board.cells  # a full board: refused below
    else:
        first, mask = np.zeros(n, np.uint64), np.zeros(n, np.uint64)
        plain = np.zeros(n, bool)
    for i in np.flatnonzero(~plain).tolist():
        where = f"position {i} ({positions[i][:50]!r}): " if batch else ""
        position = checked_position(positions[i], board, where)
        first[i], mask[i] = position.first_stones, position.mask
    return first, mask, plain


def checked_position(moves: str, board: BoardSize, where: str = "") -> Position:
    """The position of one move string of a game that goes on, or :class:`ApiError` (400)
    in one line, ``where`` first: the explorer's reason (:func:`parse_request_moves`:
    a character that is no column, a column out of range or full), or the game is over
    (the last move completed four, or the board is full)."""
    try:
        requested = parse_request_moves(moves, board)
    except ApiError as exc:
        raise ApiError(f"{where}{exc}") from None
    if requested.result == "draw":
        raise ApiError(f"{where}the board is full: the game is over (a draw)")
    if requested.result is not None:
        raise ApiError(
            f"{where}the game is over: the {requested.result} player completed "
            f"four with move {requested.position.stone_count}"
        )
    return requested.position


def batch_json(positions: Sequence[str], scores: np.ndarray, plain: np.ndarray) -> bytes:
    r"""The JSON of ``[{"pos": ..., "score": [...]}, ...]``, byte for byte as
    ``json.dumps(..., separators=(",", ":"))`` writes it, without a dict per position
    (encoding those costs ten times more): when every string is ``plain`` (column
    digits alone, its JSON the string in quotes) the text is laid out in one array,
    a row per position; else ``plain`` strings go in quotes as they are and the others
    as JSON escapes them.

    >>> batch_json(["44", "4\t"], np.array([[1, -2], [100, 0]]), np.array([True, False]))
    b'[{"pos":"44","score":[1,-2]},{"pos":"4\\t","score":[100,0]}]'
    >>> batch_json(["44", ""], np.array([[1, -2], [100, 0]]), np.array([True, True]))
    b'[{"pos":"44","score":[1,-2]},{"pos":"","score":[100,0]}]'
    """
    n = len(positions)
    if n == 0:
        return b"[]"
    scores = np.asarray(scores, np.int64)
    fits = scores.size and scores.min() >= _TOKEN_LOW and scores.max() <= _TOKEN_HIGH
    if fits and plain.all():
        return _laid_out_json(positions, scores)
    rows = json.dumps(scores.tolist(), separators=(",", ":"))
    texts = rows[2:-2].split("],[")
    if not plain.all():
        marks = zip(positions, plain.tolist(), strict=True)
        positions = [p if ok else json.dumps(p)[1:-1] for p, ok in marks]
    parts = ['{"pos":"', "", '","score":[', "", "]},"] * n
    parts[1::5] = positions
    parts[3::5] = texts
    parts[-1] = "]}"
    return ("[" + "".join(parts) + "]").encode()


#: the scores :func:`_laid_out_json` writes: text of at most 3 characters
_TOKEN_LOW, _TOKEN_HIGH = -99, 999


def _score_tokens(end: bytes) -> np.ndarray:
    """The text of each score from ``_TOKEN_LOW`` on, then ``end``, padded with NULs to
    4 bytes: one uint32 each."""
    texts = [str(v).encode() + end for v in range(_TOKEN_LOW, _TOKEN_HIGH + 1)]
    return np.array(texts, dtype="S4").view(np.uint32)


#: a score followed by a comma, and the last one, followed by the list's end
_BETWEEN, _LAST = _score_tokens(b","), _score_tokens(b"]")


def _laid_out_json(positions: Sequence[str], scores: np.ndarray) -> bytes:
    """:func:`batch_json` of strings of digits: each position's text laid out in a row
    of an array (the string and the scores' text padded with NULs, which no JSON
    text holds), the NULs then taken out."""
    n, width = scores.shape
    longest = max(1, max(map(len, positions)))
    head, middle, tail = b'{"pos":"', b'","score":[', b"},"
    a = len(head)
    b = a + longest
    c = b + len(middle)
    d = c + 4 * width
    rows = np.zeros((n, d + len(tail)), np.uint8)
    rows[:, :a] = np.frombuffer(head, np.uint8)
    rows[:, a:b] = np.array(positions, dtype=f"S{longest}").view(np.uint8).reshape(n, longest)
    rows[:, b:c] = np.frombuffer(middle, np.uint8)
    tokens = rows[:, c:d].view(np.uint32)  # (n, width)
    index = scores - _TOKEN_LOW
    tokens[:, :-1] = _BETWEEN[index[:, :-1]]
    tokens[:, -1] = _LAST[index[:, -1]]
    rows[:, d:] = np.frombuffer(tail, np.uint8)
    return b"[" + rows.tobytes().translate(None, b"\0")[:-1] + b"]"


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

    def post(self, body: bytes) -> bytes:
        """The answer to ``/solve/batch`` with ``body``, a JSON list of move strings
        (JSON already encoded: :func:`batch_json`)."""
        try:
            positions = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            reason = " ".join(str(exc).split())
            raise ApiError(f"the body is not JSON: {reason}") from None
        # json.loads makes no subclasses: the types tell (without a call per position)
        if not isinstance(positions, list) or not set(map(type, positions)) <= {str}:
            raise ApiError('the body must be a JSON list of move strings, e.g. ["4453", "44"]')
        limit = self.explorer.limits.max_batch
        if len(positions) > limit:
            raise ApiError(
                f"{len(positions)} positions in one batch, more than {limit}",
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            )
        scores, plain = self.scored(positions, batch=True)
        return batch_json(positions, scores, plain)

    def warm_up(self) -> None:
        """The empty board's scores once (the batch endpoint answers through the same code)."""
        if not self.takes_body:
            self.solve([""])

    def solve(self, positions: list[str], batch: bool = False) -> list[dict[str, Any]]:
        """``{"pos", "score"}`` of each move string, or :class:`ApiError` for the first
        that cannot be answered."""
        scores, _ = self.scored(positions, batch)
        return [{"pos": p, "score": s} for p, s in zip(positions, scores.tolist(), strict=True)]

    def scored(
        self, positions: Sequence[str], batch: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each move string's scores, ``(B, width)`` int64, and ``plain``
        (:func:`checked_positions`), or :class:`ApiError` for the first that cannot be
        answered: not a game that goes on (400), not solved within the time limit (503)."""
        first, mask, plain = checked_positions(positions, self.explorer.board, batch)
        limit = self.explorer.limits.time_limit
        if not len(positions):
            return np.zeros((0, self.explorer.board.width), np.int64), plain
        with self.explorer.engine_slot() as engine:
            scores, answered = self.scores(engine, first, mask, limit)
        late = np.flatnonzero(~np.asarray(answered, bool))
        if late.size:
            index = int(late[0])
            where = f"position {index} ({positions[index][:50]!r})" if batch else "position"
            raise ApiError(
                f"{where} not solved within the time limit ({limit:g} s)",
                HTTPStatus.SERVICE_UNAVAILABLE,
            )
        return np.asarray(scores, np.int64), plain


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
    answered with ``scores`` of the explorer's engine (``openingbook serve``:
    :func:`openingbook.oracle.solver_api_scores`, the batched oracle's)."""
    explorer.endpoints[SOLVE_PATH] = SolveApi(explorer, takes_body=False, scores=scores)
    explorer.endpoints[BATCH_PATH] = SolveApi(explorer, takes_body=True, scores=scores)
    return explorer
