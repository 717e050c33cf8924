"""Ctrl-C and SIGTERM stop a command within a second while the solver searches, on
every board, from the native library and from numba (issue 32: a long search ran on
until killed, the signal waiting for the search kernel to return).

The child announces each search of the board under test (``SEARCHING`` on stderr,
just before the search kernel runs: the warm-up's searches, a few cells from the end,
are not announced); the test sends the signal then and times the command's one line.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests.helpers import default_signals, signal_when_ready, unbuffered_env

#: the command line, announcing every search of more than 16 cells but the warm-up's
_ANNOUNCE_SEARCHES = """
import sys
import openingbook.solver.search as search
def announced(kernel):
    def search(*args):
        # geo (width, height, cells, stop, node limit), the fourth of the search's arrays,
        # the last argument; the second: the mask (of each position, for the batch
        # kernel); the warm-up's position is 8 cells from the end
        geo = args[-1][3]
        masks = args[1].tolist() if args[1].ndim else [int(args[1])]
        if geo[2] > 16 and min(m.bit_count() for m in masks) < geo[2] - 8:
            sys.stderr.write("SEARCHING\\n")
            sys.stderr.flush()
        return kernel(*args)
    return search
# the kernels of every board and book (what Solver._entry chooses from): one position
# (solve, a first use's analyze) and many (an engine's analyze, solve_many)
search._ENTRY_KERNELS = {
    key: (announced(one), announced(many)) for key, (one, many) in search._ENTRY_KERNELS.items()
}
from openingbook.cli import main
main()
"""

#: the longest a search may take to stop after the signal: the command's one line is
#: there by then. (The exit that follows is the interpreter's usual one: about a second
#: more on a busy machine when numba is loaded, as after any command it ran.)
STOP_SECONDS = 1.0

#: searches of a minute or more, the native path and numba's
CASES = {
    "7x6 solve": (["solve", ""], {}),
    "7x7 solve, numba": (["solve", "--size", "7x7", ""], {"OPENINGBOOK_NATIVE": "0"}),
    "8x7 analyze": (["analyze", "--size", "8x7", "--book", "none"], {}),
}


@pytest.fixture(scope="module", autouse=True)
def _kernels_ready() -> None:
    """Every case's kernel compiled and its native library built first: a command's
    first call of a kernel loads numba (or compiles) before it searches, which no
    signal cuts short (the commands here announce the call, not the loading)."""
    from openingbook.solver import Solver

    for width, height in ((7, 6), (7, 7), (8, 7)):
        Solver(table_log2=16, width=width, height=height).warm_up()


def _stop_while_searching(args: list[str], env: dict[str, str], signum: int) -> tuple:
    """(exit status, stderr without the announcements, seconds from the signal to the
    command's last line)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _ANNOUNCE_SEARCHES, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        text=True, env={**unbuffered_env(), **env}, preexec_fn=default_signals,
    )  # fmt: skip
    # 0.2 s after the announcement: well inside the search; a cold start compiles first
    ready = lambda line: line == "SEARCHING"  # noqa: E731
    seen, sent = signal_when_ready(
        proc, ready, signum, settle=0.2, start_within=600, stop_within=30
    )
    said = [(at, line) for at, line in seen if line != "SEARCHING"]
    took = said[-1][0] - sent if said else float("inf")
    return proc.returncode, [line for _, line in said], took


@pytest.mark.parametrize(
    ("signum", "status", "message"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated (SIGTERM)")],
    ids=["SIGINT", "SIGTERM"],
)
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_signal_stops_a_search_within_a_second(case, signum, status, message):
    args, env = CASES[case]
    code, lines, took = _stop_while_searching(args, env, signum)
    assert (code, lines) == (status, [message])
    assert took < STOP_SECONDS, f"{case}: ended {took:.2f} s after the signal"


def test_a_raising_handler_stops_a_search_in_python_and_the_solver_stays_usable():
    """The library alone: a handler that raises stops ``Solver.solve`` at once (the
    exception is the handler's), and the solver answers the next position exactly."""
    from openingbook.solver import Solver

    class Stop(Exception):
        pass

    def stop(signum: int, frame: object) -> None:
        raise Stop

    solver = Solver(table_log2=20)
    solver.warm_up()
    previous = signal.signal(signal.SIGUSR1, stop)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGUSR1))
    try:
        start = time.monotonic()
        timer.start()
        with pytest.raises(Stop):
            solver.solve("")  # the empty board: half a minute or more
        took = time.monotonic() - start - 0.3
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR1, previous)
    assert took < STOP_SECONDS
    assert solver.solve("44444455") == 16
    assert solver.solve_wdl("4453") == -1
