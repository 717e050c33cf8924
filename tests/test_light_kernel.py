"""The first use (solver._firstuse): the light kernel now, the fast one in the background.

The light kernel is the fast kernel's copy without the mirror code, for every node: the
same scores as the fast kernel everywhere (symmetric positions near the root, where
the fast kernel's mirror code acts and the light kernel searches more nodes, random
positions on both sides of ``SYMMETRY_STONES``), one position and many, with a book
probed and without, and node for node the same search from ``SYMMETRY_STONES`` stones
on, where the fast kernel runs that copy too.
Then the choice between the two, the background compile's lock, and a first run of
the command line from empty caches: the answer, the note, the background process
that leaves the fast kernel's native library behind, and a second run that compiles
nothing.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from openingbook.api import open_book
from openingbook.engine import book_probe
from openingbook.solver import NO_LOWER_BOUND, Position, Solver, _firstuse, _jit, _native
from openingbook.solver._native import NATIVE_KERNELS
from openingbook.solver.search import _ENTRY_KERNELS, _LIGHT_KERNELS
from openingbook.solver.settings import SYMMETRY_STONES
from tests.helpers import CLI, random_game

TABLE = 20


def light(fast, light, args, variant):
    """:func:`openingbook.solver._firstuse.choose` as on a first use: the light kernel."""
    return light


def positions() -> list[Position]:
    """Symmetric positions near the root and random ones on both sides of
    ``SYMMETRY_STONES``."""
    rng = random.Random(5)
    found = [Position.from_moves(m) for m in ("444", "4444", "444444")]
    for stones in (10, 12, 14, 16, SYMMETRY_STONES - 1, SYMMETRY_STONES, 20, 24, 30):
        found += [p for p in (random_game(rng, 7, 6, stones) for _ in range(2)) if p]
    return found


def answers() -> list[tuple[int, int, int]]:
    """(stones, score, nodes) of each position, each by a fresh solver, then the scores
    of all of them by one ``solve_many`` and its nodes."""
    found = []
    for pos in positions():
        solver = Solver(TABLE)
        found.append((pos.stone_count, solver.solve(pos), solver.nodes))
    solver = Solver(TABLE)
    many = [p for p in positions() if p.stone_count >= 8]
    first = np.array([p.first_stones for p in many], np.uint64)
    mask = np.array([p.mask for p in many], np.uint64)
    found.append((-1, tuple(solver.solve_many(first, mask).tolist()), solver.nodes))
    return found


@pytest.mark.slow
def test_the_light_kernel_answers_as_the_fast_one(monkeypatch):
    fast = answers()
    monkeypatch.setattr(_firstuse, "choose", light)
    slow = answers()
    assert [(n, score) for n, score, _ in slow] == [(n, score) for n, score, _ in fast]
    deep = [(a, b) for a, b in zip(fast, slow, strict=True) if a[0] >= SYMMETRY_STONES]
    assert len(deep) >= 6 and all(a[2] == b[2] for a, b in deep)  # the same search there
    # near the root the fast kernel's mirror code saves nodes on a symmetric position
    assert fast[1][0] == 4 and slow[1][2] > fast[1][2] > 1000


@pytest.mark.slow
def test_the_light_kernel_probes_a_book_as_the_fast_one(monkeypatch):
    with open_book("12-dist-under44444") as book:
        probe = book_probe([book])
    rng = random.Random(9)
    lines = []
    while len(lines) < 6:  # positions under the book's line: the probe answers their ply
        pos = Position.from_moves("44444")
        while pos.stone_count < 9 + len(lines) % 3:
            moves = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
            pos = pos.play(rng.choice(moves))
        lines.append(pos)

    def scores() -> list[tuple[int, int]]:
        found = []
        for pos in lines:
            solver = Solver(TABLE, book=probe)
            found.append((solver.solve(pos), solver.nodes))
        return found

    fast = scores()
    monkeypatch.setattr(_firstuse, "choose", light)
    assert scores() == fast


@pytest.fixture
def native_dir(tmp_path, monkeypatch):
    """A native cache of its own, the light kernel on, a C compiler assumed."""
    monkeypatch.setenv("OPENINGBOOK_NATIVE_DIR", str(tmp_path))
    monkeypatch.setenv(_firstuse.SWITCH, "1")
    monkeypatch.setattr(_native, "_compiler", lambda: "cc")
    _firstuse._READY.clear()
    yield tmp_path
    _firstuse._READY.clear()


def kernel_args() -> tuple:
    solver = Solver(10)
    pos = Position.from_moves("4455")
    return (np.uint64(pos.first_stones), np.uint64(pos.mask), False, False, 0,
            NO_LOWER_BOUND, 0, *solver._kernel_args())  # fmt: skip


@pytest.mark.parametrize("numba_first", [False, True])
def test_a_first_use_takes_the_light_kernel_and_starts_the_background_compile(
    native_dir, monkeypatch, numba_first
):
    started = []
    monkeypatch.setattr(_firstuse, "_start_background", lambda lock, v: started.append((lock, v)))
    fast, slow = _ENTRY_KERNELS[True, False][0], _LIGHT_KERNELS[True, False][0]
    stand_in = NATIVE_KERNELS["openingbook.solver.search._solve_one_7x6"]
    if numba_first:  # numba loaded before solver.search: its dispatchers are the kernels
        fast = stand_in.dispatcher()
    args = kernel_args()
    variant = (7, 6, False, False)
    assert _firstuse.choose(fast, slow, args, variant) is slow
    library = _native.library_path(stand_in, _native._signature(args))
    assert started == [(library.with_suffix(".compiling"), variant)]
    assert library.parent == native_dir
    # the library built: the fast kernel from then on
    library.write_bytes(b"")
    assert _firstuse.choose(fast, slow, args, variant) is fast
    library.unlink()
    assert _firstuse.choose(fast, slow, args, variant) is fast  # remembered


@pytest.mark.parametrize("why", ["switch", "no native", "failed"])
def test_the_fast_kernel_when_no_library_will_come(native_dir, monkeypatch, why):
    monkeypatch.setattr(_firstuse, "_start_background", lambda lock, v: pytest.fail("started"))
    fast, slow = _ENTRY_KERNELS[True, False][0], _LIGHT_KERNELS[True, False][0]
    args = kernel_args()
    if why == "switch":
        monkeypatch.setenv(_firstuse.SWITCH, "0")
    elif why == "no native":
        monkeypatch.setenv("OPENINGBOOK_NATIVE", "0")
    else:  # a library that could not be built is never retried by the background
        library = _native.library_path(fast, _native._signature(args))
        library.with_suffix(".failed").write_text("CalledProcessError: ...\n")
    assert _firstuse.choose(fast, slow, args, (7, 6, False, False)) is fast


class FakeChild:
    pid = 4242

    def __init__(self, argv, **options):
        FakeChild.started.append((argv, options))


def test_one_background_compile_at_a_time(tmp_path, monkeypatch):
    # a process that runs the module holds the lock (its command line names it)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "openingbook.solver._firstuse"]
    )
    deadline = time.monotonic() + 30
    while b"openingbook.solver._firstuse" not in Path(f"/proc/{holder.pid}/cmdline").read_bytes():
        assert time.monotonic() < deadline  # started (its command line shows)
        time.sleep(0.01)
    try:
        FakeChild.started = []
        monkeypatch.setattr(subprocess, "Popen", FakeChild)
        lock = tmp_path / "k.compiling"
        lock.write_text(str(holder.pid))
        _firstuse._start_background(lock, (7, 6, True, False))
        assert FakeChild.started == [] and _firstuse.background_locks(tmp_path) == [lock]
        lock.write_text(str(os.getpid()))  # a live process, but not the module's: stale
        assert _firstuse.background_locks(tmp_path) == []
        lock.write_text("999999999")  # its process is gone: taken over
        _firstuse._start_background(lock, (7, 6, True, False))
        [(argv, options)] = FakeChild.started
        assert argv[-6:] == ["openingbook.solver._firstuse", "7", "6", "probing", "one", str(lock)]
        assert options["start_new_session"] and options["env"][_firstuse.SWITCH] == "0"
        assert lock.read_text() == "4242"
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.slow
def test_a_first_run_answers_with_the_light_kernel_and_leaves_the_fast_one(tmp_path):
    # the run's own process says the note (not the test process it would inherit)
    env = {k: v for k, v in os.environ.items() if k != "OPENINGBOOK_COMPILE_NOTE_PID"}
    env = {
        **env,
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "OPENINGBOOK_NATIVE_DIR": str(tmp_path / "native"),
        "OPENINGBOOK_COMPILE_NOTE": "1",
        _firstuse.SWITCH: "1",
    }
    pos = "4444333"
    command = [*CLI, "solve", "--table-log2", "20", pos]
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    expected = Solver(TABLE).solve(Position.from_moves(pos))
    assert f"score {expected}" in first.stdout
    assert "compiling the solver" in first.stderr and "background" in first.stderr
    native = tmp_path / "native"
    deadline = time.monotonic() + 600
    while _firstuse.background_locks(native):
        assert time.monotonic() < deadline, "the background compile did not end"
        time.sleep(0.5)
    assert list(native.glob("openingbook.solver.search._solve_one_7x6-*.so"))
    assert not list(native.glob("*.compiling")) and not list(native.glob("*.failed"))
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0 and f"score {expected}" in second.stdout
    assert "compiling" not in second.stderr


class FakeCompile:
    """A child compiling the light kernel (start_light), waited for by choose()."""

    pid = -1  # no such process: its CPU time is unknown

    def __init__(self, argv, **options):
        self.argv, self.options, self.waited = argv, options, False
        FakeCompile.made.append(self)

    def poll(self):
        return 0 if self.waited else None

    def wait(self):
        self.waited = True
        return 0

    def kill(self):
        self.killed = True


def test_a_build_compiles_the_light_kernel_while_it_enumerates(native_dir, monkeypatch, capsys):
    """start_light: a child compiles the light kernel now, said at once (its time overlaps
    the run's other work); choose() waits for it, then answers with the light kernel
    (compiled by the child, loaded from the cache)."""
    FakeCompile.made = []
    monkeypatch.setattr(subprocess, "Popen", FakeCompile)
    monkeypatch.setattr(_firstuse, "_start_background", lambda lock, v: None)
    monkeypatch.setattr(_jit, "_ANNOUNCED", set())
    monkeypatch.setenv("OPENINGBOOK_COMPILE_NOTE", "1")
    monkeypatch.setenv("OPENINGBOOK_COMPILE_NOTE_PID", str(os.getpid()))
    fast, slow = _ENTRY_KERNELS[True, False][1], _LIGHT_KERNELS[True, False][1]
    solver = Solver(10)
    pos = Position.from_moves("4455")
    args = solver._warm_up_args(pos, batch=True)
    variant = (7, 6, False, True)
    _firstuse.start_light(fast, slow, args, variant)
    _firstuse.start_light(fast, slow, args, variant)  # once
    [child] = FakeCompile.made
    assert child.argv[-6:] == ["openingbook.solver._firstuse", "7", "6", "plain", "batch", "-"]
    assert child.options["env"][_firstuse.SWITCH] == "light"
    assert not child.waited
    note = _jit.compile_note(slow.__module__, light=True, elsewhere=True)
    assert capsys.readouterr().err == note + "\n"  # once, when the child starts
    monkeypatch.setattr(_firstuse, "_SAID_AGAIN_AFTER", 0.0)  # as if it had run a while
    assert _firstuse.choose(fast, slow, args, variant) is slow and child.waited
    # still compiling when waited for: the time left is said
    left = capsys.readouterr().err
    assert left.startswith("openingbook: compiling the solver in another process, once: about ")
    assert " s more (" in left and left.count("\n") == 1
    # the fast kernel's library exists: nothing to start
    library = _native.library_path(
        NATIVE_KERNELS["openingbook.solver.search._solve_batch_7x6"], _native._signature(args)
    )
    library.write_bytes(b"")
    _firstuse.start_light(fast, slow, args, variant)
    assert len(FakeCompile.made) == 1


def test_the_light_switch_forces_the_light_kernel(monkeypatch):
    monkeypatch.setenv(_firstuse.SWITCH, "light")
    fast, slow = _ENTRY_KERNELS[True, False][0], _LIGHT_KERNELS[True, False][0]
    assert _firstuse.choose(fast, slow, kernel_args(), (7, 6, False, False)) is slow


def test_a_light_compile_nobody_waits_for_is_stopped_at_exit(native_dir, monkeypatch):
    FakeCompile.made = []
    monkeypatch.setattr(subprocess, "Popen", FakeCompile)
    fast, slow = _ENTRY_KERNELS[True, False][1], _LIGHT_KERNELS[True, False][1]
    args = Solver(10)._warm_up_args(Position.from_moves("4455"), batch=True)
    _firstuse.start_light(fast, slow, args, (7, 6, False, True))
    _firstuse._stop_light_children()  # what exit runs (atexit), e.g. after SIGTERM
    [child] = FakeCompile.made
    assert child.killed and child.waited and not _firstuse._LIGHT_CHILDREN
