"""``openingbook serve``: the public solver's API (``/solve``, ``/solve/batch``) on the
explorer's server, with real HTTP clients: answers checked against the engine and
the solver, bad input, large requests, concurrent and slow clients, the command."""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import re
import socket
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from openingbook.engine import Engine
from openingbook.explorer import Explorer, ExplorerLimits
from openingbook.explorer.server import ApiError
from openingbook.explorer.solve import (
    SOLVE_PATH,
    add_solve_api,
    batch_json,
    checked_position,
    checked_positions,
    serve_limits,
)
from openingbook.layouts import PLAY_TOGETHER
from openingbook.oracle import solver_api_scores
from openingbook.solver import DEFAULT_BOARD, BoardSize, Position, Solver, score_from_plies
from openingbook.values import FULL_COLUMN
from tests.browser import running_explorer
from tests.helpers import OPENINGS, cli_process, drawn_game, rest_until_closed

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="module")
def server(engine: Engine):
    with running_explorer(
        add_solve_api(Explorer(engine, limits=serve_limits()), solver_api_scores)
    ) as running:
        yield running


def call(
    server,
    method: str,
    target: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of one request on a new connection."""
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=300)
    try:
        connection.request(method, target, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def solve(server, query: str) -> tuple[int, dict]:
    status, headers, body = call(server, "GET", f"/solve?{query}")
    assert headers["Content-Type"] == "application/json"
    assert headers["Access-Control-Allow-Origin"] == "*"
    return status, json.loads(body)


def batch(server, positions: object, raw: bytes | None = None) -> tuple[int, object]:
    body = json.dumps(positions).encode() if raw is None else raw
    status, headers, answer = call(
        server, "POST", "/solve/batch", body, {"Content-Type": "application/json"}
    )
    assert headers["Content-Type"] == "application/json"
    assert headers["Access-Control-Allow-Origin"] == "*"
    return status, json.loads(answer)


def solver_scores(moves: str) -> list[int]:
    """Every column's Pons score for the side to move, from the solver alone."""
    pos = Position.from_moves(moves, 7, 6)
    searcher = Solver(20)
    out = []
    for column in range(7):
        if not pos.can_play(column):
            out.append(FULL_COLUMN)
        elif pos.is_winning_move(column):
            out.append(score_from_plies(1, pos.stone_count, 7, 6))
        else:
            out.append(-searcher.solve(pos.play(column)))
    return out


def random_positions(count: int, stones: range, seed: int) -> list[str]:
    """Move strings of random games, neither over nor full, ``stones`` long."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        target = rng.choice(stones)
        pos, moves = Position.from_moves("", 7, 6), ""
        while len(moves) < target:
            column = rng.choice(pos.legal_moves())
            if pos.is_winning_move(column):
                break
            pos, moves = pos.play(column), moves + str(column + 1)
        if len(moves) == target:
            out.append(moves)
    return out


# ---------------------------------------------------------------------- answers
def test_the_public_apis_answers() -> None:
    """The public API's answers for the empty board and 4453, column by column."""
    engine = Engine()
    positions = [Position.from_moves(m) for m in ("", "4453")]
    expected = [[-2, -1, 0, 1, 0, -1, -2], [-5, -5, -2, -3, -4, -2, -2]]
    first = np.array([p.first_stones for p in positions], np.uint64)
    mask = np.array([p.mask for p in positions], np.uint64)
    scores, answered = solver_api_scores(engine, first, mask, None)
    assert scores.tolist() == expected and answered.tolist() == [True, True]


@pytest.mark.parametrize("moves", OPENINGS)
def test_answer_is_every_columns_score(server, engine: Engine, moves: str) -> None:
    status, answer = solve(server, f"pos={moves}")
    assert status == 200 and answer == {"pos": moves, "score": answer["score"]}
    analysis = engine.analyze(moves)
    assert answer["score"] == [FULL_COLUMN if m is None else m.score for m in analysis.moves]


def test_answers_agree_with_the_solver(server) -> None:
    """Positions of random games past the books (searched, with four-in-a-row wins and
    full columns among them), each column's score checked against the solver alone."""
    positions = random_positions(12, range(24, 36), seed=3)
    for moves in positions:
        status, answer = solve(server, f"pos={moves}")
        assert status == 200 and answer["score"] == solver_scores(moves), moves
    scores = [s for moves in positions for s in solve(server, f"pos={moves}")[1]["score"]]
    assert FULL_COLUMN in scores  # the sample holds full columns


def test_a_full_column_is_100(server) -> None:
    status, answer = solve(server, "pos=444444")
    assert status == 200 and answer["score"][3] == FULL_COLUMN
    assert all(s != FULL_COLUMN for i, s in enumerate(answer["score"]) if i != 3)


@pytest.mark.parametrize("query", ["", "pos=", "pos=&_=1712345678"])
def test_no_position_is_the_empty_board(server, query: str) -> None:
    assert solve(server, query) == (200, {"pos": "", "score": [-2, -1, 0, 1, 0, -1, -2]})


def test_other_parameters_are_ignored(server) -> None:
    status, answer = solve(server, "_=1&pos=4453&callback=x")
    assert status == 200 and answer["pos"] == "4453"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("pos=4444444", "move 7 plays column 4, which is full"),
        ("pos=48", "move 2 is column 8, outside 1-7"),
        ("pos=40", "move 2 is column 0"),
        ("pos=4x", "'x'"),
        ("pos=4455667", "the game is over: the first player completed four with move 7"),
        ("pos=1&pos=2", "'pos' given more than once"),
        ("a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9", "more than 8 query parameters"),
    ],
)
def test_bad_positions_get_400_and_one_line(server, query: str, message: str) -> None:
    status, answer = solve(server, query)
    assert status == 400 and list(answer) == ["error"]
    assert message in answer["error"] and "\n" not in answer["error"]
    assert solve(server, "pos=4")[0] == 200  # and the server goes on


def test_a_full_board_is_refused(server) -> None:
    status, answer = solve(server, f"pos={drawn_game()}")
    assert status == 400 and "the board is full" in answer["error"]


def test_a_position_not_solved_in_time_is_503_not_a_guess(engine: Engine) -> None:
    limits = serve_limits(time_limit=1e-6)
    explorer = add_solve_api(Explorer(engine, limits=limits), solver_api_scores)
    with running_explorer(explorer) as hurried:
        status, answer = solve(hurried, "pos=1234567123456712")  # 16: searched
        assert status == 503 and "not solved within the time limit" in answer["error"]
        status, answer = batch(hurried, ["4", "1234567123456712"])
        assert status == 503 and "position 1 ('1234567123456712') not solved" in answer["error"]
        assert solve(hurried, "pos=4453")[0] == 200  # lookups are never cut short


def test_busy_engine_gets_503(engine: Engine) -> None:
    limits = ExplorerLimits(max_pending=1)
    explorer = add_solve_api(Explorer(engine, limits=limits), solver_api_scores)
    with running_explorer(explorer) as busy:
        with explorer.engine_slot():
            status, headers, body = call(busy, "GET", "/solve?pos=4")
            assert status == 503 and headers["Retry-After"] == "1"
            assert "busy" in json.loads(body)["error"]
        assert solve(busy, "pos=4")[0] == 200


def test_concurrent_clients_each_get_their_answer(server, engine: Engine) -> None:
    """16 threads, each asking 25 positions over one kept-alive connection."""
    positions = random_positions(40, range(0, 14), seed=5)
    expected = {m: [FULL_COLUMN if v is None else v.score for v in engine.analyze(m).moves]
                for m in positions}  # fmt: skip
    failures: list[str] = []

    def client(seed: int) -> None:
        rng = random.Random(seed)
        connection = http.client.HTTPConnection(*server.server_address[:2], timeout=300)
        try:
            for _ in range(25):
                moves = rng.choice(positions)
                connection.request("GET", f"/solve?pos={moves}")
                response = connection.getresponse()
                answer = json.loads(response.read())
                if response.status != 200 or answer != {"pos": moves, "score": expected[moves]}:
                    failures.append(f"{moves}: {response.status} {answer}")
        except Exception as exc:  # reported below: the thread must not die silently
            failures.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not failures, failures[:3]


# ---------------------------------------------------------------------- the batch
def test_batch_answers_each_position_in_order(server) -> None:
    positions = ["4453", "", "44", "444444", *random_positions(30, range(1, 30), seed=7)]
    status, answers = batch(server, positions)
    assert status == 200 and [a["pos"] for a in answers] == positions
    for moves, answer in zip(positions, answers, strict=True):
        assert answer == solve(server, f"pos={moves}")[1]
    assert batch(server, []) == (200, [])


def test_batch_of_many_positions(server, engine: Engine) -> None:
    """The largest batch allowed: every answer the engine's."""
    positions = random_positions(serve_limits().max_batch, range(0, 14), seed=11)
    status, answers = batch(server, positions)
    assert status == 200 and len(answers) == len(positions)
    for moves, answer in zip(positions[::97], answers[::97], strict=True):
        assert answer["score"] == [
            FULL_COLUMN if v is None else v.score for v in engine.analyze(moves).moves
        ]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (json.dumps(["4", "4444444"]).encode(), 400, "position 1 ('4444444'): move 7 plays"),
        (json.dumps(["4455667"]).encode(), 400, "position 0 ('4455667'): the game is over"),
        (b'["4", 44]', 400, "a JSON list of move strings"),
        (b'{"pos": "4"}', 400, "a JSON list of move strings"),
        (b"[4453", 400, "the body is not JSON"),
        (b"\xff\xfe", 400, "the body is not JSON"),
        (json.dumps(["4"] * 4097).encode(), 413, "4097 positions in one batch, more than 4096"),
        (json.dumps(["4"] * 60_000).encode(), 413, "more than 262144"),
    ],
)
def test_bad_batches_are_refused_in_one_line(server, body, status, message) -> None:
    got, answer = batch(server, None, raw=body)
    assert got == status and message in answer["error"] and "\n" not in answer["error"]
    assert batch(server, ["4"])[0] == 200


def test_a_long_move_string_is_not_echoed_whole(server) -> None:
    """A refusal quotes at most the start and the end of what it was sent."""
    long = "1," + "x" * 100_000
    status, answer = batch(server, [long])
    assert status == 400 and len(answer["error"]) < 150, len(answer["error"])
    assert answer["error"].startswith("position 0 ('1,xxx")
    assert answer["error"].endswith("xxx', not a column number 1-7")


# ------------------------------------------- the batch answers as /solve, byte for byte
#: characters a client may send by mistake: out of range, no digit, separators, whitespace,
#: a NUL, non-ASCII digits and letters, a character JSON escapes
_STRAY = '089x ,\t\x00\u0663\u00e9"\\\U0001f600'


@st.composite
def move_strings(draw) -> str:
    """A move string a client might send, good or bad: random columns (full columns and
    fours among them), a stray character put in, whitespace around, a whole game over
    (a four, a full board). Strings of a game that goes on have at most 14 moves (their
    answers are lookups)."""
    kind = draw(st.sampled_from(["columns", "columns", "stray", "around", "over", "long"]))
    moves = draw(st.text("1234567", max_size=16))
    if kind == "stray":
        at = draw(st.integers(0, len(moves)))
        moves = moves[:at] + draw(st.sampled_from(_STRAY)) + moves[at:]
    elif kind == "around":
        moves = draw(st.sampled_from([" ", "\t", "\n "])) + moves + draw(st.sampled_from(["", " "]))
    elif kind == "over":
        moves = draw(st.sampled_from(["4455667", "1212121", "12121213", drawn_game()]))
    elif kind == "long":
        moves = draw(st.text("1234567", min_size=40, max_size=60))
    try:
        if checked_position(moves, DEFAULT_BOARD).stone_count > 14:
            return moves.strip()[:14]  # a game that goes on: the start of it (a lookup)
    except ApiError:
        pass
    return moves


@st.composite
def good_move_strings(draw) -> str:
    """A move string of a game that goes on, of at most 14 moves (a lookup), now and then
    with whitespace around."""
    moves = draw(st.text("1234567", max_size=14))
    while moves:  # the longest start of it that is a game that goes on
        try:
            checked_position(moves, DEFAULT_BOARD)
            break
        except ApiError:
            moves = moves[:-1]
    return draw(st.sampled_from(["", "", "", " "])) + moves + draw(st.sampled_from(["", "\t"]))


@st.composite
def batches(draw) -> list[str]:
    """Good move strings enough to be played together, and none, one or two of any kind."""
    positions = draw(st.lists(good_move_strings(), min_size=PLAY_TOGETHER, max_size=40))
    for _ in range(draw(st.sampled_from([0, 1, 2]))):
        positions.insert(draw(st.integers(0, len(positions))), draw(move_strings()))
    return positions


def _get(server, moves: str) -> tuple[int, bytes]:
    status, _, body = call(server, "GET", "/solve?pos=" + quote(moves, safe=""))
    return status, body


@given(batches())
def test_a_batch_answers_as_solve_one_by_one_byte_for_byte(server, positions) -> None:
    """Batches long enough to be played all together: the answer is the ``/solve``
    answers of the strings one by one, joined, byte for byte; or the refusal of the
    first that ``/solve`` refuses, in the same words, naming it."""
    singles = [_get(server, moves) for moves in positions]
    got, _, body = call(server, "POST", "/solve/batch", json.dumps(positions).encode())
    refused = [i for i, (status, _) in enumerate(singles) if status != 200]
    event("refused" if refused else "answered")
    if not refused:
        assert (got, body) == (200, b"[" + b",".join(b for _, b in singles) + b"]")
        return
    i = refused[0]
    status, single = singles[i]
    reason = json.loads(single)["error"]
    assert got == status
    assert json.loads(body) == {"error": f"position {i} ({positions[i][:50]!r}): {reason}"}


@given(st.one_of(st.lists(move_strings(), max_size=30), batches()))
def test_strings_played_together_read_as_one_by_one(positions) -> None:
    """:func:`checked_positions` (the strings played together from ``PLAY_TOGETHER`` on)
    gives each string's position as :func:`checked_position`, and refuses the first bad
    one in its words."""
    for batch_of in (positions, positions * PLAY_TOGETHER):
        alone = []
        for i, moves in enumerate(batch_of):
            try:
                alone.append(checked_position(moves, DEFAULT_BOARD))
            except ApiError as exc:
                with pytest.raises(ApiError) as refused:
                    checked_positions(batch_of, DEFAULT_BOARD, batch=True)
                assert str(refused.value) == f"position {i} ({moves[:50]!r}): {exc}"
                break
        else:
            first, mask, plain = checked_positions(batch_of, DEFAULT_BOARD, batch=True)
            assert first.tolist() == [p.first_stones for p in alone]
            assert mask.tolist() == [p.mask for p in alone]
            if len(batch_of) >= PLAY_TOGETHER:
                assert plain.tolist() == [set(m) <= set("1234567") for m in batch_of]


@pytest.mark.parametrize("board", [BoardSize(5, 4), BoardSize(9, 6), BoardSize(8, 7)])
def test_other_boards_play_together_as_one_by_one(board: BoardSize) -> None:
    rng = random.Random(board.cells)
    lines = ["".join(rng.choice("123456789"[: board.width]) for _ in range(rng.randrange(30)))
             for _ in range(400)]  # fmt: skip
    good = []
    for moves in lines:
        with contextlib.suppress(ApiError):
            good.append((moves, checked_position(moves, board)))
    first, mask, _ = checked_positions([m for m, _ in good], board)
    assert first.tolist() == [p.first_stones for _, p in good]
    assert mask.tolist() == [p.mask for _, p in good]


_DIGITS_OR_ANY = st.one_of(st.text("0123456789", max_size=12), st.text(max_size=12))


@given(st.lists(_DIGITS_OR_ANY, min_size=1, max_size=20), st.integers(1, 9), st.data())
def test_batch_json_is_json_dumps(positions, width, data) -> None:
    """The batch's JSON, laid out in one array or joined, is ``json.dumps``' byte for byte."""
    values = st.one_of(st.integers(-99, 999), st.integers(-(10**6), 10**6), st.just(100))
    rows = data.draw(st.lists(st.lists(values, min_size=width, max_size=width),
                              min_size=len(positions), max_size=len(positions)))  # fmt: skip
    scores = np.array(rows, np.int64)
    expected = json.dumps(
        [{"pos": p, "score": s} for p, s in zip(positions, rows, strict=True)],
        separators=(",", ":"),
    ).encode()
    plain = np.array([p.isascii() and p.isdigit() for p in positions])
    assert batch_json(positions, scores, plain) == expected
    assert batch_json(positions, scores, np.zeros(len(positions), bool)) == expected


def test_a_batch_keeps_its_connection(server) -> None:
    """The body is read whole: the next request on the connection is answered."""
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=300)
    try:
        for _ in range(3):
            connection.request("POST", "/solve/batch", body=b'["4453"]')
            response = connection.getresponse()
            assert response.status == 200 and json.loads(response.read())[0]["pos"] == "4453"
            connection.request("GET", "/solve?pos=44")
            response = connection.getresponse()
            assert response.status == 200 and json.loads(response.read())["pos"] == "44"
    finally:
        connection.close()


def test_a_body_without_length_is_refused(server) -> None:
    host = server.url.split("/")[2].encode()
    with socket.create_connection(server.server_address[:2], timeout=30) as connection:
        connection.sendall(
            b"POST /solve/batch HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked\r\n\r\n"
            b'5\r\n["4"]\r\n0\r\n\r\n' % host
        )
        answer = rest_until_closed(connection, 10)
    assert answer is not None and answer.startswith(b"HTTP/1.1 411")
    assert answer.count(b"HTTP/1.1 ") == 1


def test_a_slow_body_is_cut_at_the_deadline(engine: Engine) -> None:
    """A client that announces a body and sends it a byte now and then is closed at the
    answer's deadline (``write_timeout`` for the whole body), and others are answered."""
    explorer = add_solve_api(
        Explorer(engine, limits=ExplorerLimits(write_timeout=1.0, max_pending=32)),
        solver_api_scores,
    )
    with running_explorer(explorer) as served:
        host = served.url.split("/")[2].encode()
        with socket.create_connection(served.server_address[:2], timeout=30) as slow:
            slow.sendall(
                b"POST /solve/batch HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000\r\n\r\n[" % host
            )
            start = time.monotonic()
            closed = None
            while closed is None and time.monotonic() - start < 10:
                try:
                    slow.sendall(b" ")
                except OSError:
                    closed = time.monotonic() - start
                    break
                assert solve(served, "pos=4")[0] == 200
                if rest_until_closed(slow, 0.2) is not None:
                    closed = time.monotonic() - start
        assert closed is not None and closed < 4.0, closed


def test_methods(server) -> None:
    status, headers, body = call(server, "POST", "/solve", b"[]")
    assert status == 405 and headers["Allow"] == "GET, HEAD, OPTIONS"
    status, _, body = call(server, "GET", "/solve/batch")
    assert status == 405 and "POST a JSON list" in json.loads(body)["error"]
    status, headers, body = call(server, "PUT", "/solve/batch", b"[]")
    assert status == 405 and headers["Allow"] == "GET, HEAD, POST, OPTIONS"
    status, headers, body = call(server, "HEAD", "/solve?pos=4")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0


def test_cross_origin_preflight(server) -> None:
    """A page of another origin may POST JSON: its browser's preflight is allowed."""
    status, headers, body = call(
        server,
        "OPTIONS",
        "/solve/batch",
        headers={"Origin": "http://example.org", "Access-Control-Request-Method": "POST"},
    )
    assert status == 204 and body == b""
    assert headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in headers["Access-Control-Allow-Methods"]
    assert headers["Access-Control-Allow-Headers"] == "Content-Type"
    assert call(server, "OPTIONS", "/api/analyze")[0] == 405  # the explorer's own: same origin


def test_other_host_names_are_refused(server) -> None:
    status, _, _ = call(server, "GET", "/solve?pos=4", headers={"Host": "attacker.example"})
    assert status == 403
    status, _, _ = call(server, "POST", "/solve/batch", b"[]", {"Host": "attacker.example"})
    assert status == 403


def test_the_explorer_is_on_the_same_server(server) -> None:
    status, _, body = call(server, "GET", "/")
    assert status == 200 and b"<html" in body
    status, _, body = call(server, "GET", "/api/analyze?moves=4453")
    assert status == 200 and json.loads(body)["analysis"]["best"] == [3, 6, 7]
    assert "Access-Control-Allow-Origin" not in call(server, "GET", "/")[1]


# ---------------------------------------------------------------------- the command
def serve_process(*args: str) -> subprocess.Popen:
    return cli_process("serve", *args)


@pytest.mark.slow
def test_serve_answers_and_stops_on_ctrl_c() -> None:
    process = serve_process("--port", "0", "--json")
    try:
        first = json.loads(process.stdout.readline())
        assert first["size"] == "7x6" and re.match(
            r"http://127\.0\.0\.1:\d+/solve$", first["solve"]
        )
        host, port = first["url"].split("/")[2].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=300)
        connection.request("GET", "/solve?pos=4453")
        response = connection.getresponse()
        assert response.status == 200
        assert json.loads(response.read()) == {"pos": "4453", "score": [-5, -5, -2, -3, -4, -2, -2]}
        connection.close()
        process.send_signal(2)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130
    assert json.loads(stderr) == {"error": "interrupted", "exit_code": 130}


def test_serve_cannot_listen_exits_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        process = serve_process("--port", str(taken.getsockname()[1]))
        _, stderr = process.communicate(timeout=300)
    assert process.returncode == 2
    assert stderr.startswith("Error: cannot listen on ") and stderr.count("\n") == 1


def test_the_warm_up_answers_solve_before_the_page(engine: Engine, monkeypatch) -> None:
    """A client of ``serve`` asks ``/solve`` as soon as it listens: the warm-up answers
    one of its own first (on a first use the reader's kernels that answer needs compile
    before the page's), then the page's empty board."""
    explorer = add_solve_api(Explorer(engine, limits=serve_limits()), solver_api_scores)
    order: list[str] = []

    def recorded(name: str, call):
        def record(*args, **kwargs):
            order.append(name)
            return call(*args, **kwargs)

        return record

    for path, endpoint in explorer.endpoints.items():
        monkeypatch.setattr(endpoint, "solve", recorded(path, endpoint.solve))
    monkeypatch.setattr(explorer, "analyze", recorded("page", explorer.analyze))
    explorer.warm_up()
    assert order == [SOLVE_PATH, "page"]  # the batch endpoint answers through the same code
