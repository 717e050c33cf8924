"""What the test files share: paths, child processes, random positions, brute-force
answers, books built for the tests and the comparisons of books.

Test files import from here and never from one another; ``conftest.py`` holds the
pytest fixtures and the suite's set-up (hypothesis profile, first-use kernel), and
``browser.py`` the explorer's server thread and headless Chromium (scripts use it too).

The reference files (Thill's 8-ply book, an independent solver's scores, ...) live in
``tests/data`` (its README gives each file's provenance and sha256);
``OPENINGBOOK_REFERENCE`` may point at another directory holding the same files.
:data:`REFERENCE` is computed here and only here; tests take the ``reference_dir``
fixture (``conftest.py``), and modules that need a reference path while pytest collects
them (in a ``parametrize`` list) import :data:`REFERENCE`.
"""

from __future__ import annotations

import ast
import atexit
import functools
import importlib
import json
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np
import pytest
from hypothesis import strategies as st

from openingbook.codec import decode_keys
from openingbook.formats import read_records
from openingbook.formats.compact import VERSION, CompactBook
from openingbook.formats.thill import BookFormat, manifest_path
from openingbook.formats.thill.book import manifest_book_entry
from openingbook.solver import (
    DEFAULT_BOARD,
    BoardSize,
    Position,
    Solver,
    Winner,
    has_four_bits,
    plies_from_score,
    winner_from_score,
)
from openingbook.solver.position import has_four

if TYPE_CHECKING:
    from openingbook.engine import Engine

# ================================================================ where things are
#: The checkout's root.
ROOT = Path(__file__).resolve().parents[1]

#: The reference data kept in the repository (``tests/data/README.md``).
DATA = Path(__file__).resolve().parent / "data"

#: The reference directory the tests read: ``OPENINGBOOK_REFERENCE`` or :data:`DATA`.
REFERENCE = Path(os.environ.get("OPENINGBOOK_REFERENCE") or DATA)

#: Thill's original 8-ply book among the reference files.
REFERENCE_BOOK8 = REFERENCE / "thill-original-book8.dat"

#: The books committed with the package (installed as ``openingbook.shipped``).
BOOKS = ROOT / "books"


# ================================================================ child processes
#: the command line as a child process runs it, from this checkout
CLI = [sys.executable, "-c", "from openingbook.cli import main; main()"]


def cli_process(*args: str) -> subprocess.Popen:
    """``openingbook ARGS`` as a child of this checkout, text pipes, interruptible by
    SIGINT (:func:`default_sigint`)."""
    return subprocess.Popen(
        [*CLI, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=default_sigint,
    )


def default_sigint() -> None:
    """``preexec_fn`` for children that tests interrupt with SIGINT.

    A shell that starts the test run in the background (``cmd &``) ignores SIGINT, and
    children inherit that, so Python would never raise KeyboardInterrupt in them; the
    default action makes the child's Python install its handler as in a terminal.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def default_stop_signals() -> None:
    """``preexec_fn``: a test run started under ``nohup`` (or ``&``) ignores SIGHUP, and
    the command keeps an inherited ignored SIGHUP ignored, by design; the child under
    test must start with the default actions, as from a terminal."""
    for signum in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


def require(module: str) -> Any:
    """The environment package, or a failure saying how to install it (never a skip:
    the test extra installs it)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        pytest.fail(f"{module} is missing ({exc}): pip install -e '.[test]'")


def default_signals() -> None:
    """``preexec_fn``: SIGINT, SIGTERM and SIGHUP with their default actions (see
    :func:`default_sigint` and :func:`default_stop_signals`)."""
    default_sigint()
    default_stop_signals()


def signal_when_ready(
    proc: subprocess.Popen,
    ready: Callable[[str], bool],
    signum: int,
    *,
    settle: float = 0.0,
    start_within: float = 300,
    stop_within: float = 60,
) -> tuple[list[tuple[float, str]], float]:
    """Send ``signum`` to ``proc`` once a line of its stderr is ``ready`` (and ``settle``
    seconds more); wait for it to end. Returns every line of its stderr with the time
    it came (``time.monotonic``), and the time the signal was sent. Fails the test when
    no line is ready within ``start_within`` seconds (a cold start compiles kernels) or
    the process still runs ``stop_within`` seconds after the signal."""
    assert proc.stderr is not None
    lines: queue.Queue[tuple[float, str]] = queue.Queue()

    def read(stream: IO[Any]) -> None:
        for raw in stream:
            line = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
            lines.put((time.monotonic(), line.rstrip("\n")))

    reader = threading.Thread(target=read, args=(proc.stderr,), daemon=True)
    reader.start()
    seen: list[tuple[float, str]] = []
    deadline = time.monotonic() + start_within
    try:
        while not any(ready(line) for _, line in seen):
            try:
                seen.append(lines.get(timeout=1))
            except queue.Empty:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the command was never ready: {seen[-20:]}")
        time.sleep(settle)
        sent = time.monotonic()
        proc.send_signal(signum)
        try:
            proc.wait(timeout=stop_within)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {stop_within} s after {signal.Signals(signum).name}")
        reader.join(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    while not lines.empty():
        seen.append(lines.get())
    return seen, sent


def unbuffered_env() -> dict[str, str]:
    """The environment of a child that imports this checkout and writes unbuffered."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}


def start_build(args: list[str]) -> subprocess.Popen:
    """``openingbook build ARGS`` in a child process (its own session: Ctrl-C tests)."""
    cmd = [sys.executable, "-c", "from openingbook.cli import main; main()", "build", *args]
    return subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=default_sigint,
    )


def unprivileged() -> list[str]:
    """The command prefix that runs as a user who can write nothing of ours."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot drop to an unprivileged user")
    keep_reading = ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]
    return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", *keep_reading]


# ================================================================ the command line's answers
class FifoGuard:
    """A named pipe that nothing writes into; if a command opens it for reading (which
    blocks), a writer opens it after a minute so that the test fails instead of hanging."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path
        self.fired = False
        self._timer = threading.Timer(60, self._unblock)
        self._timer.start()

    def _unblock(self) -> None:
        self.fired = True
        with open(self.path, "w"):
            pass

    def close(self) -> None:
        self._timer.cancel()


def one_line_error(result, code: int, *fragments: str) -> str:
    """The one ``Error:`` line of a ``CliRunner`` result that exited with ``code``
    (no note), holding every fragment."""
    assert result.exit_code == code, (result.exit_code, result.output)
    lines = result.stderr.splitlines()
    notes = [line for line in lines if line.startswith("note: ")]
    errors = [line for line in lines if not line.startswith("note: ")]
    assert len(errors) == 1 and errors[0].startswith("Error: "), result.stderr
    assert not notes, notes
    for fragment in fragments:
        assert fragment in errors[0], (fragment, errors[0])
    return errors[0]


# ================================================================ random positions
def random_game(rng: random.Random, width: int, height: int, stones: int) -> Position | None:
    """A random game of ``stones`` moves in which nobody wins, or None if it got stuck."""
    pos = Position(width=width, height=height)
    while pos.stone_count < stones:
        moves = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
        if not moves:
            return None
        pos = pos.play(rng.choice(moves))
    return pos


def random_positions(stones: int, count: int, seed: int) -> list[Position]:
    """Distinct legal positions with ``stones`` stones, by random legal play."""
    rng = random.Random(seed)
    seen: dict[tuple[int, int], Position] = {}
    tries = 0
    while len(seen) < count and tries < 50 * count:
        tries += 1
        pos = random_game(rng, 7, 6, stones)
        if pos is not None:
            seen.setdefault((pos.first_stones, pos.mask), pos)
    return list(seen.values())


@st.composite
def positions(draw, min_stones: int = 0, max_stones: int = 41) -> Position:
    """A hypothesis strategy: a legal, non-terminal position reached by random legal moves."""
    target = draw(st.integers(min_stones, max_stones))
    pos = Position()
    while pos.stone_count < target:
        moves = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
        if not moves:
            break
        pos = pos.play(draw(st.sampled_from(moves)))
    return pos


#: positions inside the shipped books: answered by lookups (the explorer and serve tests)
OPENINGS = [
    *("", "4", "44", "4453", "3344", "12345", "444444", "1726355", "7654321"),
    *("44444432", "43444445556"),
]


def drawn_game(board: BoardSize = DEFAULT_BOARD) -> str:
    """A move string filling the board without a four: random play that never takes
    a win, from the first seed that gets through."""
    for seed in range(1000):
        rng = random.Random(seed)
        pos = Position.from_moves("", *board)
        moves = []
        while not pos.is_full():
            safe = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
            if not safe:
                break
            column = rng.choice(safe)
            moves.append(str(column + 1))
            pos = pos.play(column)
        if pos.is_full():
            return "".join(moves)
    raise AssertionError("no drawn game found")


# ================================================================ brute force (no solver code)
#: one string per column, bottom first: "a" first player, "b" second
Board = tuple[str, ...]


def four_through(columns: Sequence[Sequence[object]], col: int, row: int) -> bool:
    """Does the stone at (``col``, ``row``) lie on four in a row of its colour?

    ``columns``: one sequence per column, bottom first, of stones that compare
    equal when they are of one colour (ints, or the characters of a string).
    """
    width, stone = len(columns), columns[col][row]

    def same(c: int, r: int) -> bool:
        return 0 <= c < width and 0 <= r < len(columns[c]) and columns[c][r] == stone

    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while same(c, r):
                run += 1
                c, r = c + sign * dc, r + sign * dr
        if run >= 4:
            return True
    return False


def brute_force_move_scores(board: Board, height: int) -> list[int | None]:
    """Score of each column for the side to move (None: full), by plain negamax.

    The definition: a game that ends with its p-th stone (counted from the empty
    board) is worth (cells - p) // 2 + 1 to the player who placed it, minus that to
    the other; a full board without four is worth 0.
    """
    width = len(board)
    cells = width * height

    @functools.cache
    def value(b: Board) -> int:
        return max(s for s in move_scores(b) if s is not None)

    def move_scores(b: Board) -> list[int | None]:
        placed = sum(len(column) for column in b)
        stone = "a" if placed % 2 == 0 else "b"
        out: list[int | None] = []
        for col in range(width):
            if len(b[col]) == height:
                out.append(None)
                continue
            child = (*b[:col], b[col] + stone, *b[col + 1 :])
            p = placed + 1
            if four_through(child, col, len(b[col])):
                out.append((cells - p) // 2 + 1)
            elif p == cells:
                out.append(0)
            else:
                out.append(-value(child))
        return out

    return move_scores(board)


def random_board(rng: random.Random, width: int, height: int, stones: int) -> Board | None:
    """A random game of ``stones`` moves that nobody has won, or None if stuck."""
    board: Board = ("",) * width
    for n in range(stones):
        stone = "ab"[n % 2]
        choices = []
        for col in range(width):
            if len(board[col]) < height:
                child = (*board[:col], board[col] + stone, *board[col + 1 :])
                if not four_through(child, col, len(board[col])):
                    choices.append(col)
        if not choices:
            return None
        col = rng.choice(choices)
        board = (*board[:col], board[col] + stone, *board[col + 1 :])
    return board


def to_position(board: Board, height: int) -> Position:
    """The solver's :class:`Position` of a brute-force board."""
    cells = [
        [{"a": 1, "b": 2}[s] for s in column] + [0] * (height - len(column)) for column in board
    ]
    return Position.from_array(cells)


def brute_reachable(plies: int, under: str = "", width: int = 7, height: int = 6) -> set:
    """Every position with ``plies`` stones reached from ``under`` by legal play
    in which nobody completes four, as a set of ``(first, mask)`` pairs."""
    layer = {Position.from_moves(under, width, height)}
    for _ in range(plies - len(under)):
        layer = {
            pos.play(col)
            for pos in layer
            for col in pos.legal_moves()
            if not has_four(pos.play(col).stones_of(pos.side_to_move), height)
        }
    return {(p.first_stones, p.mask) for p in layer}


def book_set(reachable: set, width: int = 7, height: int = 6, merge=True, drop=True) -> set:
    """Apply the book's rules to a reachable set, with Position's own methods."""
    out = set()
    for first, mask in reachable:
        pos = Position.from_bitboards(first, mask, width, height)
        if drop and pos.can_win_next():
            continue
        if merge:
            pos = pos.canonical()
        out.add((pos.first_stones, pos.mask))
    return out


def as_pairs(first: np.ndarray, mask: np.ndarray) -> list[tuple[int, int]]:
    """``(first, mask)`` arrays as a list of pairs."""
    return list(zip(first.tolist(), mask.tolist(), strict=True))


def replay(moves: np.ndarray, width: int = 7, height: int = 6):
    """Replay 1-based move strings with numpy; check each move is legal and
    completes no four; return the resulting (first, mask)."""
    cols = np.frombuffer(moves.tobytes(), dtype=np.uint8).reshape(moves.size, -1) - ord("1")
    assert (cols < width).all()
    h1 = np.uint64(height + 1)
    first = np.zeros(moves.size, np.uint64)
    mask = np.zeros(moves.size, np.uint64)
    for ply in range(cols.shape[1]):
        bottom = np.uint64(1) << (cols[:, ply].astype(np.uint64) * h1)
        top = bottom << np.uint64(height - 1)
        assert not (mask & top).any(), f"move {ply + 1} plays a full column"
        stone = (mask + bottom) & ~mask
        mover_first = ply % 2 == 0
        if mover_first:
            first |= stone
        mask |= stone
        mover = first if mover_first else first ^ mask
        assert not has_four_bits(mover, height).any(), f"move {ply + 1} completes four"
    return first, mask


def second_player_threatens(pos: Position) -> bool:
    """Has the second player a winning cell the next stone in its column fills?"""
    from openingbook.solver.position import winning_cells

    threats = winning_cells(pos.second_stones, pos.mask, pos.width, pos.height)
    playable = pos.mask + sum(1 << (c * (pos.height + 1)) for c in range(pos.width))
    return bool(threats & playable)


# ================================================================ books the tests build
# Small subtrees keep builds quick: SMALL is a 9-move line (29 positions at 12 plies).
SMALL = "444444336"
TABLE = 18  # small solver tables: tests must not need much memory


def write_manifest(book: str | Path, fmt: BookFormat, **selection: Any) -> Path:
    """Write ``<book>.json`` describing the file ``book`` as it is now (as build, merge
    and derive write it); ``selection`` overrides entries of the complete selection
    (``under``, ``sample``, ``shard``)."""
    book = Path(book)
    data = book.read_bytes()
    manifest = {
        **manifest_book_entry(book, fmt, len(data) // fmt.record_bytes, data),
        "selection": {
            "plies": fmt.plies,
            "distances": fmt.distances,
            "under": None,
            "sample": None,
            "seed": None,
            "shard": None,
            **selection,
        },
    }
    path = manifest_path(book)
    path.write_text(json.dumps(manifest))
    return path


#: A line whose 12-ply subtree holds all three results (the export tests' books).
BUILT_BOOK_UNDER = "1212343456"


@functools.cache
def _built_books_dir() -> Path:
    path = Path(tempfile.mkdtemp(prefix="export-books-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


@functools.cache
def built_book(plies: int = 12, under: str = BUILT_BOOK_UNDER, distances: bool = True) -> Path:
    """A book built by the build pipeline (with its manifest), cached for the session."""
    from openingbook.pipeline.build import BuildOptions, build_book

    out = _built_books_dir() / f"book{plies}{'-dist' if distances else ''}-under{under}.dat"
    options = BuildOptions(plies=plies, distances=distances, under=under, board=DEFAULT_BOARD)
    build_book(out, options, jobs=1, table_log2=20, progress=False)
    return out


#: 8 moves; the 10- and 12-ply books under it (the ``line_books`` fixture) build in seconds
LINE_BOOKS_UNDER = "62242322"


def build_line_books(directory: Path) -> dict[tuple[int, bool], Path]:
    """Books built with the real build under :data:`LINE_BOOKS_UNDER` in ``directory``:
    (plies, distances) -> path, for 12 and 10 plies."""
    from openingbook.pipeline.build import BuildOptions, build_book

    books = {}
    for plies, dist in ((12, True), (12, False), (10, True), (10, False)):
        path = directory / f"b{plies}{'d' if dist else ''}.dat"
        options = BuildOptions(plies, distances=dist, under=LINE_BOOKS_UNDER, board=DEFAULT_BOARD)
        build_book(path, options, jobs=2, progress=False)
        books[(plies, dist)] = path
    return books


# ================================================================ comparing books and answers
def book_positions(path, plies, distances):
    """(first, mask, values) decoded from the written file, independently of the build."""
    fmt = BookFormat.for_plies(plies, distances, *DEFAULT_BOARD)
    if path.stat().st_size == 0:
        empty = np.zeros(0, np.uint64)
        return empty, empty, np.zeros(0, np.int8)
    _, records = read_records(path, fmt)
    first, mask = decode_keys(records.keys, fmt.key_bits, plies, *DEFAULT_BOARD)
    return first, mask, records.values


def expected_book_value(pos: Position, distances: bool, solver) -> int:
    """The book value of one position from the solver's exact score (scalar path)."""
    score = solver.solve(pos)
    winner = winner_from_score(score, pos.stone_count)
    if not distances:
        return {Winner.FIRST: 2, Winner.SECOND: 1, Winner.DRAW: 0}[winner]
    d = plies_from_score(score, pos.stone_count, *DEFAULT_BOARD)
    return {Winner.FIRST: 100 - d, Winner.SECOND: d - 100, Winner.DRAW: 0}[winner]


def compact_payload(path: Path) -> bytes:
    """The bytes of a compact book after its header."""
    with CompactBook(path) as book:
        return path.read_bytes()[book.header.header_bytes :]


def assert_same_book(a: Path, b: Path) -> None:
    """Two compact books of one version hold the same payload; of two versions, the
    same value for every position."""
    with CompactBook(a) as x, CompactBook(b) as y:
        if x.header.version == y.header.version:
            assert compact_payload(a) == compact_payload(b)
        else:
            first, mask = x.positions()
            assert np.array_equal(x.values_of(first, mask), y.values_of(first, mask))


#: The header fields that describe the table (the metadata says who made it and when).
TABLE_FIELDS = (
    "width", "height", "plies", "kind", "structure", "value_bits", "positions", "seed",
    "segment_length", "segment_count", "payload_bytes", "values", "scope", "version",
    "context_function",
)  # fmt: skip


def assert_same_table(a: Path, b: Path) -> None:
    """Two compact books hold the same table: its header fields and payload bytes."""
    with CompactBook(a) as x, CompactBook(b) as y:
        hx, hy = x.header, y.header
        assert [getattr(hx, f) for f in TABLE_FIELDS] == [getattr(hy, f) for f in TABLE_FIELDS]
    assert a.read_bytes()[hx.header_bytes :] == b.read_bytes()[hy.header_bytes :]


def assert_same_as_shipped(made: Path, shipped: Path) -> None:
    """A book written now holds the shipped book's table when the shipped one is of the
    version written now, else (a shipped book of the former version) its answers."""
    with CompactBook(shipped) as book:
        same_version = book.header.version == VERSION
    if same_version:
        assert_same_table(made, shipped)
    else:
        assert_same_book(made, shipped)


def expected_moves(solver: Solver, pos: Position) -> list[tuple[Winner, int, int] | None]:
    """(winner, plies, score) of every column from the solver's scores."""
    n, w, h = pos.stone_count, pos.width, pos.height
    return [
        None if s is None else (winner_from_score(s, n), plies_from_score(s, n, w, h), s)
        for s in solver.analyze(pos)
    ]


def check_against(engine: Engine, solver: Solver, pos: Position) -> None:
    """The engine's analysis of ``pos`` is the solver's, every column and the best moves."""
    analysis = engine.analyze(pos)
    got = [None if m is None else (m.winner, m.plies, m.score) for m in analysis.moves]
    assert got == expected_moves(solver, pos), pos.some_moves()
    assert analysis.complete and analysis.unknown == ()
    top = max(m.score for m in analysis.moves if m is not None)
    assert analysis.value.score == top
    assert analysis.best == tuple(m.column for m in analysis.moves if m and m.score == top)
    assert all(analysis.moves[c - 1].plies == analysis.value.plies for c in analysis.best)


# ================================================================ the explorer's connections
def rest_until_closed(connection: socket.socket, wait: float) -> bytes | None:
    """What the server still sends on ``connection`` before closing it, or None when
    it is still open after ``wait`` seconds."""
    connection.settimeout(wait)
    received = b""
    try:
        while chunk := connection.recv(100_000):
            received += chunk
    except ConnectionResetError:  # closed before it read what was sent
        pass
    except TimeoutError:
        return None
    return received


def functions(source: str) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function of ``source`` by qualified name (``Class.method``, ``outer.inner``):
    what the tests that read the package's source (unit lengths, kernel shapes) walk."""
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    out[name] = child
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return out
