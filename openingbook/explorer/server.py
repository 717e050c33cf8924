"""The explorer's web server: the JSON API ``/api/analyze`` and the static page.

Built on the standard library's :class:`http.server.ThreadingHTTPServer`: the
explorer serves one person on their own machine (a page, three small static
files and a JSON answer per move), which needs no framework, and the standard
library adds no dependency to install or keep up to date.

Bounds, so that no request can make the server misbehave:

* only ``GET`` and ``HEAD`` (other methods: 405), and ``POST`` to an endpoint that
  takes a body (:class:`Endpoint`: ``openingbook serve``'s ``/solve/batch``), whose
  body must announce its length, at most :attr:`ExplorerLimits.max_body` bytes
  (411, 413), and arrive within the answer's deadline;
* a request target of at most :attr:`ExplorerLimits.max_target` characters (414);
* a move string must be legal on the explorer's board (400 with a one-line
  message in JSON, ``{"error": ...}``);
* an analysis searches at most :attr:`ExplorerLimits.time_limit` seconds: the
  answer says which columns are not answered (``analysis.complete``,
  ``analysis.unknown``) instead of waiting;
* every connection has deadlines, each a total over however many reads it takes
  (a client that sends a byte now and then gains nothing): the request line and
  headers within :attr:`ExplorerLimits.request_timeout` seconds of the request's
  first byte, the next request of a kept-alive connection within
  :attr:`ExplorerLimits.idle_timeout`, the answer sent within
  :attr:`ExplorerLimits.write_timeout`; any other request body is never read (a
  request that announces one is answered, then its connection is closed);
* at most :attr:`ExplorerLimits.max_connections` open connections (a thread each);
  a further one takes the place of the connection that has waited longest for a
  request (so slow clients cannot keep a request out), or is closed at once when
  every connection is being answered;
* one analysis runs at a time (the engine's solver has one table); at most
  :attr:`ExplorerLimits.max_pending` requests run or wait, further ones get a
  503 at once;
* on a loopback address, a request must name this machine in its ``Host`` header
  (``127.0.0.1``, ``localhost`` or ``[::1]`` with the port; else 403), so that a web
  page elsewhere cannot reach the server by pointing a name of its own at 127.0.0.1
  (DNS rebinding);
* static files are the regular files found in the static folder when the
  server starts (symbolic links and anything resolving outside the folder are
  left out), looked up by exact name: no request path is ever joined to a
  file-system path, so ``..``, encoded or not, and absolute paths find nothing.

>>> from openingbook.explorer.server import parse_request_moves
>>> parse_request_moves("4453", (7, 6)).moves
'4453'
>>> parse_request_moves("4444444", (7, 6))
Traceback (most recent call last):
...
openingbook.explorer.server.ApiError: move 7 plays column 4, which is full
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import json
import socket
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from openingbook.solver import DEFAULT_BOARD, BoardSize, Player, Position, move_columns, move_string

#: the page: index.html, explorer.css, explorer.js, favicon.svg
STATIC_DIR = Path(__file__).with_name("static")

#: the analysis endpoint
API_PATH = "/api/analyze"

#: the query parameters the API knows
API_PARAMETERS = ("moves", "size")

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}

#: everything the page loads comes from this server: no CDN, no inline code
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

#: the four directions a four can run in: along a row, a column and both diagonals
_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


class AnalysisLike(Protocol):
    """What the explorer reads of :class:`openingbook.engine.Analysis`."""

    complete: bool

    def to_dict(self) -> dict[str, Any]: ...


class EngineLike(Protocol):
    """What the explorer calls of :class:`openingbook.engine.Engine`."""

    def analyze(self, moves: str, time_limit: float | None = ...) -> AnalysisLike: ...


class Endpoint(Protocol):
    """A JSON endpoint served beside the explorer's API (:mod:`openingbook.explorer.solve`
    adds the public solver's ``/solve``). ``get`` answers a query string, ``post`` a
    request body (read only when ``takes_body``, at most ``max_body`` bytes), each an
    object to send as JSON or JSON already encoded (``bytes``); both raise
    :class:`ApiError` for a request they refuse. ``cross_origin``: the answers
    carry ``Access-Control-Allow-Origin: *``, so a web page of any origin may read them."""

    cross_origin: bool
    takes_body: bool

    def get(self, query: str) -> Any: ...

    def post(self, body: bytes) -> Any: ...

    def warm_up(self) -> None:
        """Answer one request of its own, so that a client's first is as fast as the others."""
        ...


@dataclass(frozen=True)
class ExplorerLimits:
    """The bounds of every request (see the module documentation)."""

    #: seconds an analysis may search before it answers what it knows
    time_limit: float = 2.0
    #: characters of a request target (path and query)
    max_target: int = 1024
    #: analyses running or waiting for the engine at once
    max_pending: int = 4
    #: open connections (a thread each); a further one replaces the longest waiting
    max_connections: int = 32
    #: seconds from a request's first byte to the end of its headers
    request_timeout: float = 10.0
    #: seconds a kept-alive (or new) connection may wait for its next request
    idle_timeout: float = 30.0
    #: seconds to send an answer
    write_timeout: float = 10.0
    #: complete answers remembered (positions revisited by take-back are instant)
    cache_entries: int = 4096
    #: bytes of a request body (only endpoints that take one read it: ``/solve/batch``)
    max_body: int = 256 * 1024
    #: positions in one batch request
    max_batch: int = 4096


class ApiError(Exception):
    """A request the API refuses: an HTTP status and a one-line message."""

    def __init__(self, message: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST) -> None:
        super().__init__(message)
        self.status = status


class RequestedPosition(NamedTuple):
    """A parsed move string: the position, and how the game stands."""

    #: the move string in the board's own spelling (digits, commas beyond 9 columns)
    moves: str
    #: the position after every move (the last one included)
    position: Position
    #: who won with the last move, ``"draw"`` for a full board, None while the game goes on
    result: str | None
    #: (column, row) of the cells of the four the last move completed, 0-based
    four: tuple[tuple[int, int], ...]


def parse_request_moves(moves: str, board: tuple[int, int]) -> RequestedPosition:
    """The position a request's move string reaches on ``board``, or :class:`ApiError`.

    Unlike :meth:`openingbook.solver.Position.from_moves`, a last move that completes four is
    accepted: the game is over and the explorer shows it.

    >>> game = parse_request_moves("4455667", (7, 6))
    >>> game.result, game.four
    ('first', ((3, 0), (4, 0), (5, 0), (6, 0)))
    """
    width, height = board
    try:
        columns = move_columns(moves, width)
        before = Position.from_moves([c + 1 for c in columns[:-1]], width, height)
        last = columns[-1] if columns else None
        if last is None:
            position = before
        elif not before.can_play(last):  # a full column: refused in from_moves' words
            position = Position.from_moves([c + 1 for c in columns], width, height)
        elif before.is_winning_move(last):
            final = before.play(last)
            winner = "first" if before.side_to_move == Player.FIRST else "second"
            return RequestedPosition(
                move_string(columns, width), final, winner, four_cells(final, last)
            )
        else:
            position = before.play(last)  # the moves are played once
    except ValueError as exc:
        raise ApiError(one_line(str(exc))) from None
    result = "draw" if position.is_full() else None
    return RequestedPosition(move_string(columns, width), position, result, ())


#: characters of a refusal's reason, at most: a longer one quotes a long input (a move
#: string of thousands of characters), of which it keeps the start and the end
REASON_CHARS = 81


def one_line(reason: str, limit: int = REASON_CHARS) -> str:
    """``reason`` on one line, its middle left out (``...``) when it is over ``limit``
    characters, so that an answer does not echo a long input back.

    >>> one_line("move 2 is '" + "x" * 1000 + "', not a column digit 1-7")
    "move 2 is 'xxxxxxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxx', not a column digit 1-7"
    """
    line = " ".join(reason.split())
    if len(line) <= limit:
        return line
    keep = (limit - 3) // 2
    return f"{line[:keep]}...{line[-keep:]}"


def four_cells(position: Position, column: int) -> tuple[tuple[int, int], ...]:
    """The cells (column, row) of every four through the top stone of ``column``."""
    row = position.column_height(column) - 1
    owner = position.cell(column, row)
    cells: set[tuple[int, int]] = set()
    for dc, dr in _DIRECTIONS:
        line = [(column, row)]
        for sign in (1, -1):
            c, r = column + sign * dc, row + sign * dr
            while (
                0 <= c < position.width
                and 0 <= r < position.height
                and position.cell(c, r) == owner
            ):
                line.append((c, r))
                c, r = c + sign * dc, r + sign * dr
        if len(line) >= 4:
            cells.update(line)
    return tuple(sorted(cells))


def load_static(directory: Path) -> dict[str, tuple[bytes, str]]:
    """URL path (``"index.html"``, ``"sub/x.css"``) -> (content, type) of every file
    the server may send: regular files under ``directory`` with a known type.

    Symbolic links, and files that resolve outside the folder, are left out.
    """
    root = directory.resolve()
    files: dict[str, tuple[bytes, str]] = {}
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory)
        if any((directory / part).is_symlink() for part in _prefixes(relative)):
            continue
        if not path.is_file() or path.suffix not in CONTENT_TYPES:
            continue
        if not path.resolve().is_relative_to(root):
            continue
        files[relative.as_posix()] = (path.read_bytes(), CONTENT_TYPES[path.suffix])
    return files


def _prefixes(relative: Path) -> list[Path]:
    """``a/b/c`` -> ``a``, ``a/b``, ``a/b/c``: every path component that could be a link."""
    parts = relative.parts
    return [Path(*parts[: i + 1]) for i in range(len(parts))]


class Explorer:
    """The explorer's application: answers API queries and finds static files.

    ``engine`` analyses positions of ``board`` (an :class:`openingbook.engine.Engine`
    of that board). Thread-safe: the HTTP server calls it from one thread per
    connection.
    """

    def __init__(
        self,
        engine: EngineLike,
        board: tuple[int, int] = DEFAULT_BOARD,
        *,
        limits: ExplorerLimits | None = None,
        static_dir: Path = STATIC_DIR,
    ) -> None:
        self.engine = engine
        self.board = BoardSize(*board)
        self.limits = limits or ExplorerLimits()
        self.static = load_static(static_dir)
        self._engine_lock = threading.Lock()
        self._pending = threading.BoundedSemaphore(self.limits.max_pending)
        self._cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._cache_lock = threading.Lock()
        #: further endpoints by path (``openingbook serve``: the public solver's API)
        self.endpoints: dict[str, Endpoint] = {}

    def analyze_query(self, query: str) -> dict[str, Any]:
        """The API's answer to a query string (``"moves=4453"``); :class:`ApiError` if refused."""
        try:
            fields = parse_qs(query, keep_blank_values=True, max_num_fields=len(API_PARAMETERS))
        except ValueError:
            raise ApiError(f"too many parameters (known: {', '.join(API_PARAMETERS)})") from None
        for name, values in fields.items():
            if name not in API_PARAMETERS:
                raise ApiError(f"unknown parameter {name!r} (known: {', '.join(API_PARAMETERS)})")
            if len(values) > 1:
                raise ApiError(f"parameter {name!r} given more than once")
        size = fields.get("size", [str(self.board)])[0]
        if size != str(self.board):
            raise ApiError(
                f"this explorer analyses {self.board} boards, not {size[:20]!r} "
                f"(start 'openingbook explore --size {size[:20]}' for those)"
            )
        return self.analyze(fields.get("moves", [""])[0])

    def analyze(self, moves: str) -> dict[str, Any]:
        """The API's answer for a move string (see ``docs/EXPLORER.md``)."""
        start = time.perf_counter()
        requested = parse_request_moves(moves, self.board)
        with self._cache_lock:
            answer = self._cache.get(requested.moves)
            if answer is not None:
                self._cache.move_to_end(requested.moves)
        if answer is None:
            answer = self._answer(requested)
            if answer["analysis"] is None or answer["analysis"].get("complete", False):
                with self._cache_lock:
                    self._cache[requested.moves] = answer
                    while len(self._cache) > self.limits.cache_entries:
                        self._cache.popitem(last=False)
        return {**answer, "ms": round((time.perf_counter() - start) * 1000, 3)}

    def warm_up(self) -> None:
        """Warm each endpoint first (``openingbook serve``'s clients ask ``/solve`` as soon
        as it listens: a first use compiles what that answer needs before anything else),
        then analyse the empty board once (loads the books and the compiled lookups, and
        remembers the answer), so that the page's first request is as fast as the
        others. Errors are left to the requests that meet them again."""
        try:
            for endpoint in self.endpoints.values():
                endpoint.warm_up()
            self.analyze("")
        except Exception as exc:
            sys.stderr.write(f"explorer: warm-up failed: {type(exc).__name__}: {exc}\n")

    def _answer(self, requested: RequestedPosition) -> dict[str, Any]:
        position = requested.position
        width, height = self.board
        over = requested.result is not None
        analysis = None if over else self._run_engine(requested.moves).to_dict()
        columns = range(width)
        return {
            "size": str(self.board),
            "width": width,
            "height": height,
            "moves": requested.moves,
            "stones": position.stone_count,
            "to_move": None if over else position.side_to_move.name.lower(),
            # cells[column][row], row 0 at the bottom: 0 empty, 1 first player, 2 second
            "cells": [[position.cell(c, r) for r in range(height)] for c in columns],
            "parent": self._parent(requested.moves),
            "children": [
                None
                if over or not position.can_play(c)
                else move_string([*move_columns(requested.moves, width), c], width)
                for c in columns
            ],
            "game_over": None
            if not over
            else {"winner": requested.result, "four": [list(cell) for cell in requested.four]},
            "analysis": analysis,
        }

    def _parent(self, moves: str) -> str | None:
        columns = move_columns(moves, self.board.width)
        return move_string(columns[:-1], self.board.width) if columns else None

    def _run_engine(self, moves: str) -> AnalysisLike:
        with self.engine_slot():
            return self.engine.analyze(moves, time_limit=self.limits.time_limit)

    @contextlib.contextmanager
    def engine_slot(self) -> Iterator[EngineLike]:
        """The engine, for this thread alone while the block runs (its solver has one
        table); :class:`ApiError` 503 at once when ``max_pending`` requests already run
        or wait for it."""
        if not self._pending.acquire(blocking=False):
            raise ApiError(
                f"busy: {self.limits.max_pending} analyses are running or waiting; try again",
                HTTPStatus.SERVICE_UNAVAILABLE,
            )
        try:
            with self._engine_lock:
                yield self.engine
        finally:
            self._pending.release()


class _Connection:
    """One open connection as the server tracks it: whether it waits for a request
    (then it may be closed to make room) and the deadline of what it waits for."""

    def __init__(self, sock: socket.socket, idle_timeout: float) -> None:
        self.socket = sock
        #: "idle" (before a request's first byte), "request" (reading it), "answering"
        self.phase = "idle"
        self.since = time.monotonic()
        self.deadline = self.since + idle_timeout
        #: closed by the server to make room for a new connection
        self.evicted = False

    def enter(self, phase: str, seconds: float) -> None:
        self.phase = phase
        self.since = time.monotonic()
        self.deadline = self.since + seconds

    @property
    def waiting(self) -> bool:
        return self.phase != "answering"


class _DeadlineReader(io.RawIOBase):
    """A connection's input, every read bounded by the connection's deadline: a
    per-read timeout would start again with each byte a slow client sends."""

    def __init__(self, connection: _Connection, request_timeout: float) -> None:
        self._connection = connection
        self._request_timeout = request_timeout

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        connection = self._connection
        remaining = connection.deadline - time.monotonic()
        if connection.evicted or remaining <= 0:
            raise TimeoutError("the connection's deadline passed")
        connection.socket.settimeout(remaining)
        count = connection.socket.recv_into(buffer)
        if connection.evicted:
            raise TimeoutError("closed to make room for another connection")
        if count and connection.phase == "idle":  # a request's first byte: its deadline starts
            connection.enter("request", self._request_timeout)
        return count


class _Handler(BaseHTTPRequestHandler):
    """GET and HEAD of the API, the further endpoints and the static files; POST (and
    its preflight, OPTIONS) of the endpoints that take a body; everything else refused."""

    server: ExplorerServer
    server_version = "openingbook-explorer"
    protocol_version = "HTTP/1.1"  # keep-alive: one connection for all of a page's requests
    #: no per-read timeout: the connection's deadlines bound every read (_DeadlineReader)
    timeout = None
    #: headers and body go out as two writes: without TCP_NODELAY the body waits for
    #: the client's delayed ACK of the headers, 40 ms per answer on Linux
    disable_nagle_algorithm = True

    def setup(self) -> None:
        super().setup()
        limits = self.server.explorer.limits
        self._connection = self.server.connection_of(self.request)
        self.rfile.close()  # the socket's own file: replaced by one that keeps the deadlines
        self.rfile = io.BufferedReader(_DeadlineReader(self._connection, limits.request_timeout))

    def handle_one_request(self) -> None:
        if not self._connection.evicted:
            self._connection.enter("idle", self.server.explorer.limits.idle_timeout)
        super().handle_one_request()

    def parse_request(self) -> bool:
        if not super().parse_request():  # it reads the headers; a refusal: send_error
            return False
        self._answering()
        if self._takes_body():
            return True  # the endpoint reads its body (_read_body), or refuses and closes
        if self.headers.get("Content-Length", "0").strip() != "0" or (
            "Transfer-Encoding" in self.headers
        ):
            self.close_connection = True  # a body is never read: answer, then close
        return True

    def _endpoint(self) -> Endpoint | None:
        return self.server.explorer.endpoints.get(urlsplit(self.path).path)

    def _takes_body(self) -> bool:
        endpoint = self._endpoint()
        return self.command == "POST" and endpoint is not None and endpoint.takes_body

    def _read_body(self) -> bytes:
        """The request body, read within the answer's deadline (a client that sends it
        slowly is closed at the deadline), or :class:`ApiError` (then the connection is
        closed: its body is not read)."""
        limit = self.server.explorer.limits.max_body
        length = self.headers.get("Content-Length")
        if "Transfer-Encoding" in self.headers or length is None:
            self.close_connection = True
            raise ApiError(
                "a request body needs a Content-Length (chunked bodies are not read)",
                HTTPStatus.LENGTH_REQUIRED,
            )
        length = length.strip()
        if not length.isdigit() or len(length) > 12:
            self.close_connection = True
            raise ApiError(f"Content-Length {length[:20]!r} is not a number of bytes")
        if int(length) > limit:
            self.close_connection = True
            raise ApiError(
                f"request body of {int(length)} bytes, more than {limit}",
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            )
        body = self.rfile.read(int(length))
        if len(body) < int(length):  # the client stopped sending: nobody to answer
            self.close_connection = True
            raise ConnectionAbortedError("the client closed the connection within its body")
        return body

    def _answering(self) -> None:
        """From here on the request is answered: no longer to be closed to make room,
        and the answer must go out within ``write_timeout`` seconds."""
        seconds = self.server.explorer.limits.write_timeout
        self._connection.enter("answering", seconds)
        self.connection.settimeout(seconds)

    def version_string(self) -> str:
        return self.server_version

    def do_GET(self) -> None:
        self._respond(send_body=True)

    def do_HEAD(self) -> None:
        self._respond(send_body=False)

    def do_POST(self) -> None:
        endpoint = self._endpoint()
        if endpoint is None or not endpoint.takes_body:
            self._refuse_method()
            return
        refused = self._refusal()
        if refused is not None:
            self.close_connection = True  # its body is not read
            status, why = refused
            self._send_json(status, {"error": why})
            return
        try:
            body = self._read_body()
        except ConnectionAbortedError:
            return
        except ApiError as exc:
            self._send_json(exc.status, {"error": str(exc)}, True, self._cors(endpoint))
            return
        self._answer(lambda: endpoint.post(body), True, self._cors(endpoint))

    def do_OPTIONS(self) -> None:
        """A browser's preflight before a cross-origin POST with a JSON body: allowed
        on the endpoints that any origin may read, refused elsewhere."""
        endpoint = self._endpoint()
        if endpoint is None or not endpoint.cross_origin:
            self._refuse_method()
            return
        refused = self._refusal()
        if refused is not None:
            status, why = refused
            self._send_json(status, {"error": why})
            return
        headers = {
            **self._cors(endpoint),
            "Access-Control-Allow-Methods": self._allowed(),
            "Access-Control-Allow-Headers": "Content-Type",
            "Access-Control-Max-Age": "86400",
        }
        self._send(HTTPStatus.NO_CONTENT, b"", "text/plain", False, headers)

    def _allowed(self) -> str:
        endpoint = self._endpoint()
        if endpoint is None:
            return "GET, HEAD"
        extra = ", POST" if endpoint.takes_body else ""
        return "GET, HEAD" + extra + (", OPTIONS" if endpoint.cross_origin else "")

    @staticmethod
    def _cors(endpoint: Endpoint) -> dict[str, str]:
        return {"Access-Control-Allow-Origin": "*"} if endpoint.cross_origin else {}

    def _refuse_method(self) -> None:
        allowed = self._allowed()
        *others, last = allowed.split(", ")
        self._send_json(
            HTTPStatus.METHOD_NOT_ALLOWED,
            {"error": f"method {self.command} not allowed (only {', '.join(others)} and {last})"},
            extra_headers={"Allow": allowed},
        )

    do_PUT = do_DELETE = do_PATCH = do_TRACE = do_CONNECT = _refuse_method

    def _refusal(self) -> tuple[HTTPStatus, str] | None:
        """Why the request is refused before its target is read (a foreign Host: DNS
        rebinding; a target over the limit), or None."""
        host = self.headers.get("Host")
        if host is not None and not self.server.host_allowed(host):
            return (
                HTTPStatus.FORBIDDEN,
                f"this server answers {self.server.url} only, not Host {host[:80]!r}",
            )
        if len(self.path) > self.server.explorer.limits.max_target:
            return HTTPStatus.REQUEST_URI_TOO_LONG, self._too_long()
        return None

    def _too_long(self) -> str:
        """The one reason of a 414, whether this handler or the base class (a request line
        over 65,536 bytes) refuses the request."""
        return f"request longer than {self.server.explorer.limits.max_target} characters"

    def _respond(self, send_body: bool) -> None:
        explorer = self.server.explorer
        refused = self._refusal()
        if refused is not None:
            status, why = refused
            self._send_json(status, {"error": why}, send_body)
            return
        target = urlsplit(self.path)
        if target.path == API_PATH:
            self._answer(lambda: explorer.analyze_query(target.query), send_body, {})
            return
        endpoint = explorer.endpoints.get(target.path)
        if endpoint is not None:
            self._answer(lambda: endpoint.get(target.query), send_body, self._cors(endpoint))
            return
        name = unquote(target.path)
        found = explorer.static.get("index.html" if name == "/" else name[1:])
        if found is None:
            self._send_json(HTTPStatus.NOT_FOUND, {"error": "not found"}, send_body)
            return
        content, content_type = found
        self._send(HTTPStatus.OK, content, content_type, send_body, {"Cache-Control": "no-cache"})

    def _answer(
        self, call: Callable[[], Any], send_body: bool, extra_headers: dict[str, str]
    ) -> None:
        """Send what ``call`` answers as JSON; a refusal (:class:`ApiError`) as its
        status and one line, ``{"error": ...}``."""
        try:
            answer = call()
        except ApiError as exc:
            busy = exc.status == HTTPStatus.SERVICE_UNAVAILABLE
            headers = {**extra_headers, **({"Retry-After": "1"} if busy else {})}
            self._send_json(exc.status, {"error": str(exc)}, send_body, headers)
        except Exception as exc:  # a bug: the page shows one line, the console too
            self.log_error("internal error on %s: %r", self.path, exc)
            self._send_json(
                HTTPStatus.INTERNAL_SERVER_ERROR,
                {"error": f"internal error: {type(exc).__name__}: {exc}"},
                send_body,
                extra_headers,
            )
        else:
            self._send_json(HTTPStatus.OK, answer, send_body, extra_headers)

    def _send_json(
        self,
        status: HTTPStatus,
        obj: Any,
        send_body: bool = True,
        extra_headers: dict[str, str] | None = None,
    ) -> None:
        body = obj if isinstance(obj, bytes) else json.dumps(obj, separators=(",", ":")).encode()
        headers = {"Cache-Control": "no-store", **(extra_headers or {})}
        self._send(status, body, "application/json", send_body, headers)

    def _send(
        self,
        status: HTTPStatus,
        body: bytes,
        content_type: str,
        send_body: bool,
        extra_headers: dict[str, str],
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        for name, value in extra_headers.items():
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's own refusals (malformed request line, headers too long,
        unknown method) as one-line JSON too, then the connection is closed."""
        self.close_connection = True
        self._answering()
        try:
            status = HTTPStatus(code)
        except ValueError:
            status = HTTPStatus.BAD_REQUEST
        if status == HTTPStatus.REQUEST_URI_TOO_LONG:
            message = self._too_long()
        self._send_json(status, {"error": message or status.phrase}, self.command != "HEAD")

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.log_requests:
            super().log_message(format, *args)

    def log_error(self, format: str, *args: Any) -> None:
        if format.startswith("Request timed out") and not self.server.log_requests:
            return  # a slow client's connection closed at its deadline: nothing to report
        sys.stderr.write("explorer: " + (format % args).replace("\n", " ") + "\n")


class ExplorerServer(ThreadingHTTPServer):
    """A :class:`ThreadingHTTPServer` serving an :class:`Explorer`; ``url`` is its page."""

    daemon_threads = True  # Ctrl-C does not wait for open keep-alive connections
    #: connections the kernel queues before they are accepted (the standard library's 5
    #: makes a burst of connections wait for the client's SYN retries, 1 s and more)
    request_queue_size = 128

    def __init__(
        self, address: tuple[str, int], explorer: Explorer, log_requests: bool = False
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.explorer = explorer
        self.log_requests = log_requests
        super().__init__(address, _Handler)
        self._open: dict[socket.socket, _Connection] = {}
        self._open_lock = threading.Lock()
        port = self.server_address[1]
        self._hosts: frozenset[str] | None = None  # any Host header
        if _is_loopback(address[0]):
            names = ("127.0.0.1", "localhost", "[::1]", self.url.split("/")[2].rsplit(":", 1)[0])
            self._hosts = frozenset(f"{name}:{port}" for name in names)

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread for the connection. With ``max_connections`` open already, the one
        that has waited longest for a request is closed to make room (a browser opens
        a handful; slow clients cannot keep a request out), unless every one is being
        answered: then the new one is closed at once."""
        limits = self.explorer.limits
        with self._open_lock:
            if len(self._open) >= limits.max_connections:
                waiting = [c for c in self._open.values() if c.waiting]
                if not waiting:
                    self.shutdown_request(request)
                    return
                oldest = min(waiting, key=lambda c: c.since)
                del self._open[oldest.socket]
                oldest.evicted = True
                with contextlib.suppress(OSError):  # its thread wakes, sees it and ends
                    oldest.socket.shutdown(socket.SHUT_RDWR)
            self._open[request] = _Connection(request, limits.idle_timeout)
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._forget(request)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._forget(request)

    def connection_of(self, request: socket.socket) -> _Connection:
        """The tracked state of an open connection (an evicted one's, if it was closed
        to make room before its thread started)."""
        with self._open_lock:
            found = self._open.get(request)
        if found is None:
            found = _Connection(request, 0.0)
            found.evicted = True
        return found

    def _forget(self, request: socket.socket) -> None:
        with self._open_lock:
            self._open.pop(request, None)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection's failure: a client gone away (reset, broken pipe, closed to
        make room) is not reported; anything else is, in one line."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        sys.stderr.write(f"explorer: error on a connection: {type(exc).__name__}: {exc}\n")

    def host_allowed(self, host: str) -> bool:
        """Does a request's ``Host`` header name this server? (On a loopback address:
        this machine's names with the port; on any other address every name.)"""
        return self._hosts is None or host.lower() in self._hosts

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        shown = f"[{host}]" if ":" in str(host) else str(host)
        return f"http://{shown}:{port}/"


def _is_loopback(host: str) -> bool:
    """Is ``host`` (an address or a name) this machine only?"""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def make_server(
    explorer: Explorer, host: str = "127.0.0.1", port: int = 0, log_requests: bool = False
) -> ExplorerServer:
    """An :class:`ExplorerServer` bound to ``host:port`` (port 0: any free port), not
    yet serving: call ``serve_forever()`` (and ``server_close()`` after).

    ``OSError`` when the address cannot be bound (port taken, unknown host).
    """
    return ExplorerServer((host, port), explorer, log_requests)
