"""Ctrl-C and SIGTERM stop every long command at any moment: exit status 130 or 143,
the signal's one line on stderr and nothing else (no traceback), within a second, and
no output or temporary file left behind.

Each command runs as the ``openingbook`` program does, on small books, and is stopped
at moments found without timing guesses:

* while the command line loads: just after ``numpy`` was imported (``-X importtime``
  says when);
* inside a compiled call that no signal can cut short: the child replaces the
  enumeration of a ply's positions (a numba kernel per layer, which every command
  reading a compact book runs) by a call of C's ``sleep`` with the stopping signals
  blocked in its thread, after saying ``READY``; the command must end without it,
  as it must when a long kernel or a numpy sort is under way;
* at the output's write, stuck the same way in ``fsync`` with the temporary file
  complete: the temporary file must be gone.

(An interruption inside numba's loading of a kernel ends in a ``SystemError`` whose
chain no longer holds the ``KeyboardInterrupt``: tested in-process below.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tests.helpers import BOOKS, default_signals, signal_when_ready, unbuffered_env

#: the longest from the signal to the command's one line (a stopped command's thread
#: gets 0.3 s to unwind before the process ends without it)
STOP_SECONDS = 1.0

#: the child: the command line, with ``STALL_AT`` ("module:Class.method" or
#: "module:function") replaced by a stall in C after saying READY on stderr
_CHILD = """
import ctypes, importlib, os, signal, sys
target = os.environ.get("STALL_AT")
if target:
    module_name, _, path = target.partition(":")
    owner = importlib.import_module(module_name)
    *outer, name = path.split(".")
    for part in outer:
        owner = getattr(owner, part)
    def stall(*args, **kwargs):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        sys.stderr.write("READY\\n")
        sys.stderr.flush()
        ctypes.CDLL(None).sleep(600)  # a compiled call: no exception reaches it
    setattr(owner, name, stall)
from openingbook.cli import main
main()
"""

#: every long command, on small inputs, writing (if it writes) ``out.*`` in its directory
COMMANDS = {
    "build": ["build", "--plies", "6", "--jobs", "2", "-o", "out.dat"],
    "derive": ["derive", "--from", "10-dist", "--plies", "8", "-o", "out.dat"],
    "validate": ["validate", "8-dist", "10-dist"],
    "diff": ["diff", "10-dist", str(BOOKS / "book10-dist.dat")],
    "export csv": ["export", "10-dist", "-f", "csv", "-o", "out.csv"],
    "export npz": ["export", "8-dist", "-f", "npz", "-o", "out.npz"],
    "convert": ["convert", str(BOOKS / "book10-dist.dat"), "out.c4b"],
    "serve": ["serve", "--port", "0"],
}
#: the commands that enumerate a compact book's positions (or a ply's, the build), and
#: one that builds a compact book's compressed function from a book it reads
ENUMERATING = ["build", "derive", "validate", "diff", "export csv", "export npz", "convert"]
#: where each stalls in compiled code: a layer's enumeration, or the compressed
#: function's peeling (a ply in the table of counts is not enumerated to be counted)
STALLS = {"convert": "openingbook.formats.compact.compressed:_peel"}
ENUMERATION = "openingbook.solver.enumerate:_Layers.add_layer"

SIGNALS = {
    "SIGINT": (signal.SIGINT, 130, "interrupted"),
    "SIGTERM": (signal.SIGTERM, 143, "terminated (SIGTERM)"),
}


def _start(args: list[str], cwd: Path, stall_at: str | None, importtime: bool) -> subprocess.Popen:
    env = unbuffered_env()
    env.pop("STALL_AT", None)
    if stall_at:
        env["STALL_AT"] = stall_at
    flags = ["-X", "importtime"] if importtime else []

    return subprocess.Popen(
        [sys.executable, *flags, "-c", _CHILD, *args],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        cwd=cwd, env=env, preexec_fn=default_signals,
    )  # fmt: skip


def _stop_at(proc: subprocess.Popen, ready: str, signum: int) -> tuple[int, list[str], float]:
    """Send ``signum`` once stderr has a line ``ready``; return the exit status, the
    other lines of stderr and the seconds from the signal to the last of them."""
    seen, sent = signal_when_ready(proc, lambda line: _is(line, ready), signum)
    said = [(at, line) for at, line in seen if not _is(line, ready) and not _timing(line)]
    took = said[-1][0] - sent if said else float("inf")
    return proc.returncode, [line for _, line in said], took


def _is(line: str, ready: str) -> bool:
    if ready.startswith("import "):
        return line.startswith("import time:") and line.split("|")[-1].strip() == ready[7:]
    return line.endswith(ready)  # a progress bar may begin the line


def _timing(line: str) -> bool:
    return line.startswith("import time:")


def _left(directory: Path) -> list[str]:
    """What the command left: anything but a build's work directory (kept to resume)
    and, inside that, anything temporary."""
    left = [p.name for p in directory.iterdir() if not p.name.endswith(".work")]
    left += [p.name for p in directory.glob("*.work/.*.tmp")]
    return sorted(left)


def _check(case: str, signame: str, outcome: tuple[int, list[str], float], tmp: Path) -> None:
    _, status, line = SIGNALS[signame]
    code, said, took = outcome
    assert not any("Traceback" in s for s in said), "\n".join(said)
    assert (code, said) == (status, [line]), f"{case}: {said}"
    assert took < STOP_SECONDS, f"{case}: the line came {took:.2f} s after the signal"
    assert _left(tmp) == [], f"{case} left {_left(tmp)}"


@pytest.mark.parametrize("signame", sorted(SIGNALS))
@pytest.mark.parametrize("case", sorted(COMMANDS))
def test_a_signal_while_the_command_loads(case, signame, tmp_path):
    proc = _start(COMMANDS[case], tmp_path, None, importtime=True)
    outcome = _stop_at(proc, "import numpy", SIGNALS[signame][0])
    _check(case, signame, outcome, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("case", ENUMERATING)
def test_a_signal_inside_a_compiled_call_that_does_not_return(case, tmp_path):
    """The command is stuck in C (as in a numba kernel enumerating a layer): it ends
    anyway, within a second, with its line, its workers and temporary files gone.
    (One signal per command, in turn: both stop it the same way.)"""
    signame = sorted(SIGNALS)[ENUMERATING.index(case) % 2]
    proc = _start(COMMANDS[case], tmp_path, STALLS.get(case, ENUMERATION), importtime=False)
    outcome = _stop_at(proc, "READY", SIGNALS[signame][0])
    _check(case, signame, outcome, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["derive", "export csv", "convert"])
def test_a_signal_while_the_output_is_written_removes_it(case, tmp_path):
    """Stuck in C at the output's ``fsync`` (its temporary file complete): the
    temporary file is removed on the way out although the writing thread never
    returns."""
    signame = "SIGTERM" if case == "derive" else "SIGINT"
    proc = _start(COMMANDS[case], tmp_path, "os:fsync", importtime=False)
    outcome = _stop_at(proc, "READY", SIGNALS[signame][0])
    _check(case, signame, outcome, tmp_path)


def test_an_error_that_an_interruption_became_still_ends_as_the_signal(monkeypatch):
    """numba's loading of a kernel turns a ``KeyboardInterrupt`` into a ``SystemError``
    (the chain holds it), and a library boundary may report it as its own error (the
    chain lost): both end as the signal does, with its one line."""
    from openingbook.cli import main
    from openingbook.pipeline import export as export_module

    def numba_like(*args: object, **kwargs: object) -> None:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError(
                "CPUDispatcher(<function part_child_keys>) returned a result"
            ) from exc

    def chain_lost(*args: object, **kwargs: object) -> None:
        try:
            os.kill(os.getpid(), signal.SIGINT)  # the command line's handler raises
            time.sleep(5)
        except KeyboardInterrupt:
            raise click.ClickException("the book could not be read") from None

    # as from a terminal: a run started in the background (``&``, nohup) ignores SIGINT,
    # and the command line keeps an ignored signal ignored
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        for fake in (numba_like, chain_lost):
            monkeypatch.setattr(export_module, "export_book", fake)
            result = CliRunner().invoke(main, ["export", "8-dist", "-f", "csv", "-o", "-"])
            assert (result.exit_code, result.stderr) == (130, "interrupted\n"), fake.__name__
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, inherited)
