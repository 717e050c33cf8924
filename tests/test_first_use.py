"""The first run of a command says, in one line on stderr, that it compiles once.

The note is printed when numba starts compiling a kernel of ours (its cache holds
no code for it: :func:`openingbook.solver._jit._note_compiling`), on a terminal (or always with
``OPENINGBOOK_COMPILE_NOTE=1``), never on stdout, and not again once the cache
holds the code. Checked in fresh processes with numba's cache in a new directory
(``NUMBA_CACHE_DIR``) and the native cache off, so that numba compiles the
kernels of a single lookup (a few seconds).
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from openingbook.solver._jit import compile_note

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "from openingbook.cli import main; main()"
LOOKUP = ("lookup", "8", "44444455")
ANSWER = "first player wins; 8 stones, in compact 8-ply book\n"
NOTE = "openingbook: compiling openingbook.formats.compact.book, once: a few seconds\n"


def _env(cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "OPENINGBOOK_"))}
    return {**env, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(cache),
            "OPENINGBOOK_NATIVE": "0", **extra}  # fmt: skip


def _run(cache: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", ENTRY, *LOOKUP],
        capture_output=True, text=True, cwd=ROOT, env=_env(cache, **extra), timeout=600,
    )  # fmt: skip


def _run_on_a_terminal(cache: Path) -> tuple[int, str, str]:
    """(exit status, stdout, what the terminal on stderr showed)."""
    master, slave = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-c", ENTRY, *LOOKUP],
        stdout=subprocess.PIPE, stderr=slave, text=True, cwd=ROOT, env=_env(cache),
    ) as child:  # fmt: skip
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        out = child.stdout.read() if child.stdout else ""
        status = child.wait(timeout=600)
    os.close(master)
    return status, out, shown.decode().replace("\r\n", "\n")


def test_the_note_names_the_solver_and_its_time():
    assert (
        compile_note("openingbook.solver.search")
        == "openingbook: compiling the solver, once: about 25 s"
    )
    assert compile_note("openingbook.solver.search", light=True) == (
        "openingbook: compiling the solver, once: about 10 s "
        "(its fastest form compiles in the background)"
    )
    assert compile_note("openingbook.answers") == (
        "openingbook: compiling openingbook.answers, once: a few seconds"
    )


@pytest.mark.slow
def test_a_cold_first_run_says_it_compiles_once_on_a_terminal(tmp_path):
    status, out, shown = _run_on_a_terminal(tmp_path / "numba")
    assert (status, out) == (0, ANSWER)  # stdout stays clean
    assert shown == NOTE
    # the cache is warm now: nothing compiled, nothing said, even when asked to
    warm = _run(tmp_path / "numba", OPENINGBOOK_COMPILE_NOTE="1")
    assert (warm.returncode, warm.stdout, warm.stderr) == (0, ANSWER, "")


@pytest.mark.slow
def test_the_note_is_for_terminals_unless_asked_for(tmp_path):
    quiet = _run(tmp_path / "a")  # stderr is a pipe: a script's output stays as it was
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, ANSWER, "")
    asked = _run(tmp_path / "b", OPENINGBOOK_COMPILE_NOTE="1")
    assert (asked.returncode, asked.stdout) == (0, ANSWER)
    assert asked.stderr == NOTE
    never = _run(tmp_path / "c", OPENINGBOOK_COMPILE_NOTE="0")
    assert (never.returncode, never.stdout, never.stderr) == (0, ANSWER, "")


@pytest.mark.slow
def test_only_the_first_process_of_a_run_says_it(tmp_path):
    """A worker the run started (its first process's id inherited) leaves the note to
    that process, which has said it or shows the build's progress bar."""
    worker = _run(tmp_path / "a", OPENINGBOOK_COMPILE_NOTE="1", OPENINGBOOK_COMPILE_NOTE_PID="1")
    assert (worker.returncode, worker.stdout, worker.stderr) == (0, ANSWER, "")


@pytest.mark.slow
@pytest.mark.parametrize("module", ["openingbook.solver.search", "openingbook.pipeline.solving"])
def test_a_run_that_loaded_the_search_names_the_solver(tmp_path, module):
    """It will compile the search (a build enumerates its positions first, then its
    workers compile the search): the note gives the solver's time, even when another
    kernel compiles first."""
    code = f"import {module}; {ENTRY}"
    done = subprocess.run(
        [sys.executable, "-c", code, *LOOKUP], capture_output=True, text=True, cwd=ROOT,
        env=_env(tmp_path / "a", OPENINGBOOK_COMPILE_NOTE="1"), timeout=600,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, ANSWER)
    assert done.stderr == compile_note("openingbook.solver.search") + "\n"
