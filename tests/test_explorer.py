"""The explorer's server without a browser: the JSON API, its bounds, the static
files (no path ever leaves the static folder) and ``openingbook explore``.

Every value the API answers is compared with the engine's own analysis and the
board with :class:`openingbook.solver.Position`; the browser tests
(``test_explorer_browser.py``) check what the page shows.
"""

from __future__ import annotations

import http.client
import json
import re
import select
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from openingbook.engine import Engine
from openingbook.explorer import STATIC_DIR, Explorer, ExplorerLimits
from openingbook.explorer.server import load_static, parse_request_moves
from openingbook.solver import BoardSize, Position, move_columns
from tests.browser import running_explorer
from tests.helpers import OPENINGS, cli_process, drawn_game, rest_until_closed

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="module")
def explorer(engine: Engine) -> Explorer:
    return Explorer(engine)


@pytest.fixture(scope="module")
def server(explorer: Explorer):
    with running_explorer(explorer) as running:
        yield running


def request(
    server, target: str, method: str = "GET", host: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of one request, the target sent exactly as given
    (``host``: the Host header, default the server's address)."""
    address, port = server.server_address[:2]
    connection = http.client.HTTPConnection(address, port, timeout=300)
    try:
        connection.putrequest(method, target, skip_host=host is not None, skip_accept_encoding=True)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def api(server, query: str) -> tuple[int, dict]:
    status, headers, body = request(server, f"/api/analyze?{query}")
    assert headers["Content-Type"] == "application/json"
    return status, json.loads(body)


# ---------------------------------------------------------------------- answers
@pytest.mark.parametrize("moves", OPENINGS)
def test_answer_is_the_engines_analysis(server, engine: Engine, moves: str) -> None:
    status, answer = api(server, f"moves={moves}")
    assert status == 200
    expected = engine.analyze(moves).to_dict()
    assert answer["analysis"] == expected
    assert answer["analysis"]["complete"]
    pos = Position.from_moves(moves)
    assert answer["moves"] == moves
    assert answer["size"] == "7x6" and (answer["width"], answer["height"]) == (7, 6)
    assert answer["stones"] == len(moves)
    assert answer["to_move"] == ("first" if len(moves) % 2 == 0 else "second")
    assert answer["cells"] == [[pos.cell(c, r) for r in range(6)] for c in range(7)]
    assert answer["parent"] == (moves[:-1] if moves else None)
    assert answer["children"] == [moves + str(c + 1) if pos.can_play(c) else None for c in range(7)]
    assert answer["game_over"] is None


def test_children_and_parents_walk_the_game(server) -> None:
    """Following ``children`` and then ``parent`` comes back to where it started."""
    status, answer = api(server, "moves=")
    for column in (4, 4, 5, 3):
        status, answer = api(server, f"moves={answer['children'][column - 1]}")
        assert status == 200
    assert answer["moves"] == "4453"
    for expected in ("445", "44", "4", ""):
        status, answer = api(server, f"moves={answer['parent']}")
        assert answer["moves"] == expected
    assert answer["parent"] is None


def test_the_last_move_may_complete_four(server) -> None:
    status, answer = api(server, "moves=4455667")
    assert status == 200
    assert answer["game_over"] == {"winner": "first", "four": [[3, 0], [4, 0], [5, 0], [6, 0]]}
    assert answer["analysis"] is None and answer["to_move"] is None
    assert answer["children"] == [None] * 7
    assert answer["parent"] == "445566"
    # a vertical four of the second player, a diagonal of the first
    status, answer = api(server, "moves=71212121")
    assert answer["game_over"] == {"winner": "second", "four": [[0, 0], [0, 1], [0, 2], [0, 3]]}
    status, answer = api(server, "moves=12234334544")
    assert answer["game_over"] == {"winner": "first", "four": [[0, 0], [1, 1], [2, 2], [3, 3]]}


def test_a_full_board_is_a_draw(server) -> None:
    moves = drawn_game()
    status, answer = api(server, f"moves={moves}")
    assert status == 200
    assert answer["game_over"] == {"winner": "draw", "four": []}
    assert answer["analysis"] is None and answer["children"] == [None] * 7
    assert all(cell != 0 for column in answer["cells"] for cell in column)


def test_four_cells_of_a_line_of_five() -> None:
    """A stone that joins two runs makes a line of five: all five cells are shown."""
    game = parse_request_moves("112244563", (7, 6))
    assert game.result == "first"
    assert game.four == ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))


def test_boards_over_nine_columns_use_commas() -> None:
    game = parse_request_moves("10,1,10", (10, 4))
    assert game.moves == "10,1,10" and game.result is None
    assert move_columns(game.moves, 10) == [9, 0, 9]


def test_answers_are_remembered_only_when_complete(engine: Engine) -> None:
    explorer = Explorer(engine)
    first = explorer.analyze("4453")
    again = explorer.analyze("4453")
    assert {k: v for k, v in first.items() if k != "ms"} == {
        k: v for k, v in again.items() if k != "ms"
    }
    assert list(explorer._cache) == ["4453"]


# ---------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("moves=8", "outside 1-7"),
        ("moves=0", "outside"),
        ("moves=4x", "not a column digit"),
        ("moves=4444444", "column 4, which is full"),
        ("moves=44556677", "game is over"),
        ("moves=4&moves=5", "more than once"),
        ("move=4", "unknown parameter 'move'"),
        ("moves=4&size=6x5", "analyses 7x6 boards"),
        ("a=1&b=2&c=3&d=4", "too many parameters"),
    ],
)
def test_bad_requests_get_400_and_one_line(server, query: str, message: str) -> None:
    status, answer = api(server, query)
    assert status == 400
    assert set(answer) == {"error"}
    assert message in answer["error"] and "\n" not in answer["error"]


def test_the_size_parameter_may_name_the_board(server) -> None:
    status, answer = api(server, "moves=4&size=7x6")
    assert status == 200 and answer["moves"] == "4"


def test_long_targets_are_refused(server, explorer: Explorer) -> None:
    """A target over the limit, and a request line over the standard library's (65,536
    bytes, refused before its target is read): one 414, in the same words."""
    limit = explorer.limits.max_target
    words = f"request longer than {limit} characters"
    for length in (limit, 70_000):
        status, _, body = request(server, "/api/analyze?moves=" + "1" * length)
        assert (status, json.loads(body)) == (414, {"error": words}), length


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
def test_only_get_and_head(server, method: str) -> None:
    status, headers, body = request(server, "/api/analyze?moves=4", method)
    assert status == 405 and headers["Allow"] == "GET, HEAD"
    assert "only GET and HEAD" in json.loads(body)["error"]


def test_other_host_names_are_refused(server) -> None:
    """DNS rebinding: a page of another site whose name now points at 127.0.0.1 sends
    its own name as Host; the server answers this machine's names only."""
    port = server.server_address[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        assert request(server, "/api/analyze?moves=4", host=host)[0] == 200, host
    for host in (f"attacker.example:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}", ""):
        status, _, body = request(server, "/api/analyze?moves=4", host=host)
        assert status == 403, host
        assert "answers http://127.0.0.1:" in json.loads(body)["error"]
    assert request(server, "/", host="attacker.example")[0] == 403


def test_head_sends_headers_only(server) -> None:
    status, headers, body = request(server, "/", "HEAD")
    assert status == 200 and body == b""
    assert int(headers["Content-Length"]) == len((STATIC_DIR / "index.html").read_bytes())


def test_busy_engine_gets_503(engine: Engine) -> None:
    """With every analysis slot taken, a request is refused at once, not queued."""
    explorer = Explorer(engine, limits=ExplorerLimits(max_pending=1))
    with running_explorer(explorer) as busy:
        assert explorer._pending.acquire(blocking=False)
        try:
            status, headers, body = request(busy, "/api/analyze?moves=123")
            assert status == 503 and headers["Retry-After"] == "1"
            assert "busy" in json.loads(body)["error"]
        finally:
            explorer._pending.release()
        status, _, _ = request(busy, "/api/analyze?moves=123")
        assert status == 200


def test_connections_are_bounded(engine: Engine) -> None:
    """Beyond ``max_connections`` open connections, a new one takes the place of the
    one that has waited longest for a request; one that finds every connection being
    answered is closed unanswered."""
    explorer = Explorer(engine, limits=ExplorerLimits(max_connections=2))
    with running_explorer(explorer) as bounded:
        address = bounded.server_address[:2]
        request_bytes = (
            b"GET /api/analyze?moves=4 HTTP/1.1\r\nHost: %s\r\n\r\n"
            % bounded.url.split("/")[2].encode()
        )
        held = [socket.create_connection(address, timeout=30) for _ in range(2)]
        try:
            for connection in held:  # both served (keep-alive: they stay open)
                connection.sendall(request_bytes)
                assert connection.recv(12) == b"HTTP/1.1 200"
                _wait_until(lambda: all(c.waiting for c in bounded._open.values()))
            with socket.create_connection(address, timeout=30) as extra:
                extra.sendall(request_bytes)
                assert extra.recv(12) == b"HTTP/1.1 200"
            assert rest_until_closed(held[0], 5) is not None  # the longest idle made room
            assert rest_until_closed(held[1], 0.5) is None
        finally:
            for connection in held:
                connection.close()
        with explorer._engine_lock:  # every connection is being answered: no room
            busy = [socket.create_connection(address, timeout=30) for _ in range(2)]
            for connection in busy:
                connection.sendall(request_bytes.replace(b"=4 ", b"=44 "))
            time.sleep(0.5)
            with socket.create_connection(address, timeout=30) as extra:
                extra.sendall(request_bytes)
                assert rest_until_closed(extra, 5) == b""  # closed without an answer
        for connection in busy:
            assert connection.recv(12) == b"HTTP/1.1 200"
            connection.close()


def _wait_until(condition: Callable[[], bool], seconds: float = 10) -> None:
    """Wait until ``condition()`` holds (the server's threads move on), at most ``seconds``."""
    stop = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < stop, "the server did not get there"
        time.sleep(0.01)


def test_trickling_clients_neither_starve_requests_nor_outlive_their_deadline(
    engine: Engine,
) -> None:
    """40 connections that each send a header line now and then (more connections than
    the server keeps open): a request is still answered at once, and every trickling
    connection is closed by its deadline (``request_timeout`` from its first byte)."""
    deadline = 2.0
    explorer = Explorer(engine, limits=ExplorerLimits(request_timeout=deadline))
    with running_explorer(explorer) as served:
        address = served.server_address[:2]
        host = served.url.split("/")[2].encode()
        opened: dict[socket.socket, float] = {}
        closed: dict[socket.socket, float] = {}
        for _ in range(40):
            trickler = socket.create_connection(address, timeout=5)
            trickler.sendall(b"GET / HTTP/1.1\r\nHost: %s\r\n" % host)
            opened[trickler] = time.monotonic()
        answered: list[tuple[int, float, int]] = []

        def legitimate() -> None:
            start = time.monotonic()
            try:
                status = request(served, "/api/analyze?moves=4453")[0]
            except (OSError, http.client.HTTPException):  # refused
                status = 0
            answered.append((status, time.monotonic() - start, len(opened) - len(closed)))

        asker = threading.Thread(target=legitimate)
        try:
            for step in range(int(4 * (deadline + 6))):  # a header line every 0.25 s
                if step == 4:
                    asker.start()
                for trickler in opened.keys() - closed.keys():
                    if _trickle(trickler):
                        closed[trickler] = time.monotonic()
                if len(closed) == len(opened) and answered:
                    break
                time.sleep(0.25)
        finally:
            asker.join(timeout=30)
            for trickler in opened:
                trickler.close()
        [(status, seconds, open_then)] = answered
        assert status == 200 and seconds < 3.0, (status, seconds)  # at once, even on a busy machine
        assert open_then >= 20  # the request was answered while they were connected
        assert closed.keys() == opened.keys(), f"{len(opened) - len(closed)} still open"
        late = [closed[t] - opened[t] for t in opened if closed[t] - opened[t] > deadline + 2]
        assert not late, f"closed {max(late):.1f} s after connecting"


@pytest.mark.parametrize(("method", "status"), [("GET", b"200"), ("POST", b"405")])
def test_a_request_body_is_never_read(server, method: str, status: bytes) -> None:
    """A request announcing a body is answered and its connection closed: the body,
    never read, is not taken for the next request, nor waited for."""
    host = server.url.split("/")[2].encode()
    with socket.create_connection(server.server_address[:2], timeout=30) as connection:
        connection.sendall(
            b"%s /api/analyze?moves=4 HTTP/1.1\r\nHost: %s\r\nContent-Length: 100000\r\n\r\n"
            % (method.encode(), host)
        )
        answer = rest_until_closed(connection, 10)
        assert answer is not None and answer.startswith(b"HTTP/1.1 " + status)
        assert answer.count(b"HTTP/1.1 ") == 1


def _trickle(connection: socket.socket) -> bool:
    """Send one more header line unless the server closed ``connection``: True if closed."""
    readable, _, _ = select.select([connection], [], [], 0)
    try:
        if readable and not connection.recv(100_000):
            return True
        connection.sendall(b"X-Slow: 1\r\n")
    except OSError:  # reset, broken pipe: closed
        return True
    return False


def test_time_limit_answers_what_is_known(engine: Engine) -> None:
    """A position beyond the books with the smallest time limit: the answer says which
    columns are not solved (those the solver would search), and is not remembered."""
    explorer = Explorer(engine, limits=ExplorerLimits(time_limit=1e-6))
    moves = "1234567123456712"  # 16 stones: the positions after its moves are in no book
    answer = explorer.analyze(moves)
    analysis = answer["analysis"]
    assert not analysis["complete"] and analysis["unknown"]
    assert analysis["value"] is None and analysis["best"] == []
    for entry in analysis["columns"]:
        assert entry["known"] == (entry["column"] not in analysis["unknown"])
    assert moves not in explorer._cache


# ---------------------------------------------------------------------- static files
def test_page_and_its_files_are_served(server) -> None:
    for target, content_type in [
        ("/", "text/html; charset=utf-8"),
        ("/index.html", "text/html; charset=utf-8"),
        ("/explorer.js", "text/javascript; charset=utf-8"),
        ("/explorer.css", "text/css; charset=utf-8"),
        ("/favicon.svg", "image/svg+xml"),
    ]:
        status, headers, body = request(server, target)
        assert status == 200, target
        assert headers["Content-Type"] == content_type
        assert "default-src 'self'" in headers["Content-Security-Policy"]
        name = "index.html" if target == "/" else target[1:]
        assert body == (STATIC_DIR / name).read_bytes()


def test_page_loads_nothing_from_elsewhere() -> None:
    """No CDN, no external font: every reference in the page and its files is local
    (an XML namespace is a name, not a load; the browser tests check that the page
    logs no refused load under the server's Content-Security-Policy)."""
    for path in STATIC_DIR.iterdir():
        text = re.sub(r'xmlns="[^"]*"', "", path.read_text(encoding="utf-8"))
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text, re.IGNORECASE), path
        assert "@import" not in text


@pytest.mark.parametrize(
    "target",
    [
        "/../pyproject.toml",
        "/../../etc/passwd",
        "/%2e%2e/server.py",
        "/%2E%2E/%2E%2E/etc/passwd",
        "/..%2fserver.py",
        "/%2e%2e%2fserver.py",
        "/static/../server.py",
        "/server.py",
        "/__init__.py",
        "//etc/passwd",
        "/etc/passwd",
        "/%2Fetc%2Fpasswd",
        "http://127.0.0.1/../server.py",
        "/./index.html/..",
        "/index.html%00.js",
        "/api/other",
    ],
)
def test_nothing_outside_the_static_folder(server, target: str) -> None:
    status, _, body = request(server, target, host=server.url.split("/")[2])
    assert status == 404, target
    assert json.loads(body) == {"error": "not found"}


def test_links_in_the_static_folder_are_not_followed(tmp_path: Path, engine: Engine) -> None:
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<p>page</p>")
    secret = tmp_path / "secret.css"
    secret.write_text("secret")
    (static / "link.css").symlink_to(secret)
    (static / "dir").symlink_to(tmp_path, target_is_directory=True)
    (static / "inner").mkdir()
    (static / "inner" / "ok.css").write_text("ok")
    assert sorted(load_static(static)) == ["index.html", "inner/ok.css"]
    with running_explorer(Explorer(engine, static_dir=static)) as linked:
        assert request(linked, "/link.css")[0] == 404
        assert request(linked, "/dir/secret.css")[0] == 404
        assert request(linked, "/inner/ok.css")[2] == b"ok"


# ---------------------------------------------------------------------- other boards
def test_other_board_sizes() -> None:
    board = BoardSize(6, 5)
    engine = Engine(board=board)
    moves = "1234561234561"  # 13 stones: every move's position is in the 14-ply 6x5 book
    with running_explorer(Explorer(engine, board)) as small:
        status, answer = api(small, f"moves={moves}&size=6x5")
        assert status == 200
        assert answer["size"] == "6x5" and (answer["width"], answer["height"]) == (6, 5)
        pos = Position.from_moves(moves, 6, 5)
        assert answer["cells"] == [[pos.cell(c, r) for r in range(5)] for c in range(6)]
        assert answer["analysis"] == engine.analyze(moves).to_dict()
        assert answer["analysis"]["complete"]
        status, answer = api(small, "moves=7")
        assert status == 400 and "outside 1-6" in answer["error"]
        status, answer = api(small, "size=7x6")
        assert status == 400 and "analyses 6x5 boards" in answer["error"]


# ---------------------------------------------------------------------- the command
def explore_process(*args: str) -> subprocess.Popen:
    return cli_process("explore", *args)


@pytest.mark.slow
def test_explore_serves_and_stops_on_ctrl_c() -> None:
    process = explore_process("--port", "0", "--no-browser")
    try:
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        connection = http.client.HTTPConnection("127.0.0.1", int(match.group(1)), timeout=60)
        connection.request("GET", "/api/analyze?moves=4453")
        response = connection.getresponse()
        assert response.status == 200
        assert json.loads(response.read())["analysis"]["best"]
        connection.close()
        process.send_signal(2)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130
    assert stderr == "interrupted\n"


@pytest.mark.slow
def test_explore_takes_the_board_of_its_book() -> None:
    """``--book`` of a 6x5 book without ``--size``: a 6x5 explorer (as ``analyze``);
    ``--json`` prints the address as an object."""
    process = explore_process("--book", "14-dist-6x5", "--port", "0", "--no-browser", "--json")
    try:
        first = json.loads(process.stdout.readline())
        assert first["size"] == "6x5" and first["url"].startswith("http://127.0.0.1:")
        host, port = first["url"].split("/")[2].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=300)
        connection.request("GET", "/api/analyze?moves=1234561234561")
        answer = json.loads(connection.getresponse().read())
        connection.close()
        assert answer["size"] == "6x5" and answer["analysis"]["complete"]
    finally:
        process.send_signal(2)
        process.communicate(timeout=60)


def test_explore_cannot_listen_exits_2() -> None:
    """A port in use or an unknown host: one line, exit status 2 (the other bad
    arguments are in test_cli_errors.py)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for args in (["--port", str(port)], ["--host", "no-such-host.invalid", "--port", "0"]):
            process = explore_process(*args, "--no-browser")
            _, stderr = process.communicate(timeout=300)
            assert process.returncode == 2
            assert stderr.startswith("Error: cannot listen on ") and stderr.count("\n") == 1
