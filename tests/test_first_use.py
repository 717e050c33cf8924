"""The first run of a command says, in one line on stderr, that it compiles once.

The note is printed when numba starts compiling a kernel of ours (its cache holds
no code for it: :func:`openingbook.solver._jit._note_compiling`), on a terminal (or always with
``OPENINGBOOK_COMPILE_NOTE=1``), never on stdout, and not again once the cache
holds the code. Checked in fresh processes with numba's cache in a new directory
(``NUMBA_CACHE_DIR``) and the native cache off, so that numba compiles the
kernels of a single lookup (the book reader's).
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from openingbook.solver import _jit
from openingbook.solver._jit import FIRST_USE_SECONDS, compile_note

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "from openingbook.cli import main; main()"
LOOKUP = ("lookup", "8", "44444455")
ANSWER = "first player wins; 8 stones, in compact 8-ply book\n"
NOTE = compile_note("openingbook.formats.compact.book") + "\n"


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


def test_the_note_names_what_compiles_and_its_time():
    """Each note's figure is the one of FIRST_USE_SECONDS, the notes' one home."""
    seconds = FIRST_USE_SECONDS
    assert compile_note("openingbook.solver.search") == (
        f"openingbook: compiling the solver, once: about {seconds['the solver']} s"
    )
    assert compile_note("openingbook.solver.search", light=True) == (
        f"openingbook: compiling the solver, once: about {seconds['light solver']} s "
        "(its fastest form compiles in the background)"
    )
    assert compile_note("openingbook.formats.compact.book") == (
        f"openingbook: compiling the book reader, once: about {seconds['the book reader']} s"
    )
    # compiled in a child for this run: the time left when this run waits for it
    left = seconds["light solver"] - 5
    assert compile_note("openingbook.solver.search", light=True, done=5.2).startswith(
        f"openingbook: compiling the solver, once: about {left} s more ("
    )
    assert "about 1 s more" in compile_note("openingbook.solver.search", True, done=99)
    # a compile of this process beside a child's (the two share the machine) takes longer
    _jit._ELSEWHERE.add("the solver")
    try:
        beside = round(seconds["the book reader"] * _jit.BESIDE_ANOTHER)
        assert compile_note("openingbook.formats.compact.book").endswith(f"about {beside} s")
    finally:
        _jit._ELSEWHERE.discard("the solver")
    # compiled in a child started by this run, beside its other work: said at the start
    assert compile_note("openingbook.solver.search", light=True, elsewhere=True) == (
        "openingbook: compiling the solver in another process, once: about "
        f"{seconds['light solver']} s (its fastest form compiles in the background)"
    )
    assert compile_note("openingbook.solver.membership") == compile_note(
        "openingbook.formats.compact.compressed"
    )
    assert compile_note("openingbook.solver.bitops") == (
        f"openingbook: compiling openingbook.solver.bitops, once: about {seconds['other']} s"
    )


def test_every_compile_of_a_run_is_announced_once(monkeypatch, capsys):
    """The book reader, then the solver (the oracle's first batch compiles both): each
    said when it starts, each once, and nothing when notes are not wanted."""
    monkeypatch.setattr(_jit, "_ANNOUNCED", set())
    monkeypatch.setenv("OPENINGBOOK_COMPILE_NOTE", "1")
    monkeypatch.setenv("OPENINGBOOK_COMPILE_NOTE_PID", str(os.getpid()))
    for module in (
        "openingbook.formats.compact.book",
        "openingbook.solver.membership",
        "openingbook.solver.search",
        "openingbook.solver.search",
    ):
        _jit.announce_compile(module, light=True)
    assert capsys.readouterr().err.splitlines() == [
        compile_note("openingbook.formats.compact.book"),
        compile_note("openingbook.solver.search", light=True),
    ]
    monkeypatch.setattr(_jit, "_ANNOUNCED", set())
    monkeypatch.setenv("OPENINGBOOK_COMPILE_NOTE", "0")
    _jit.announce_compile("openingbook.solver.search")
    assert capsys.readouterr().err == ""


def test_the_first_use_figures_have_one_home():
    """No figure of a first use's wait is written anywhere but FIRST_USE_SECONDS: the
    source has no other note text, and every note the docs quote is compile_note's."""
    notes = re.compile(r"compiling ([\w. ]+?), once: about \d+ s")
    for path in (ROOT / "openingbook").rglob("*.py"):
        if path.name != "_jit.py":
            assert "once: about" not in path.read_text(encoding="utf-8"), path
    by_name = {"the solver": "openingbook.solver.search"}
    by_name.update({name: start for start, name in _jit.COMPILED if name not in by_name})
    quoted = 0
    for doc in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        text = " ".join(doc.read_text(encoding="utf-8").split())
        for found in notes.finditer(text):
            module = by_name[found.group(1)]
            said = (compile_note(module), compile_note(module, light=True))
            assert any(found.group(0) in note for note in said), (doc.name, found.group(0))
            quoted += 1
    assert quoted >= 2  # README and the command line's guide quote the notes


@pytest.mark.slow
def test_a_cold_first_run_says_it_compiles_once_on_a_terminal(tmp_path):
    status, out, shown = _run_on_a_terminal(tmp_path / "numba")
    assert (status, out) == (0, ANSWER)  # stdout stays clean
    # the note clears the line first (a command's progress line may be on it)
    assert shown == "\r\x1b[K" + NOTE
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
def test_a_run_says_what_it_compiles_not_what_it_loaded(tmp_path, module):
    """A run that loaded the search but compiles only the book reader says the reader's
    time (the solver, compiled later if at all, is announced when it is)."""
    code = f"import {module}; {ENTRY}"
    done = subprocess.run(
        [sys.executable, "-c", code, *LOOKUP], capture_output=True, text=True, cwd=ROOT,
        env=_env(tmp_path / "a", OPENINGBOOK_COMPILE_NOTE="1"), timeout=600,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, ANSWER)
    assert done.stderr == NOTE
