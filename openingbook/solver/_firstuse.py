"""The first use of the search: a one-copy kernel now, the fast kernel in the background.

The fast 7x6 search is two copies of :func:`openingbook.solver.search._search` (with the mirror
code, and from ``SYMMETRY_STONES`` stones on without it), compiled into one entry
kernel: about 18 s of numba's work before a first run's first answer. A run that
finds the fast kernel neither in the native cache (:mod:`openingbook.solver._native`) nor
remembered as unbuildable there searches with the *light* kernel instead
(:data:`openingbook.solver.search._LIGHT_KERNELS`): the copy without the mirror code serves every
node (probing the book, if the solver has one). It gives the same answers, searches
more nodes only where the mirror code would have pruned a symmetric position's moves
(below ``SYMMETRY_STONES`` stones; from there on it is the same search), and compiles
in under half the time. A build starts that compile in a child process while it
enumerates its positions (:func:`start_light`). One background process (``python -m
solver._firstuse``, in a session of its own so that it outlives the command, as
``git gc --auto`` does) compiles the fast kernel and builds its native library with
:meth:`openingbook.solver.Solver.warm_up` once the command has ended (a long-running process:
after :data:`START_AFTER_SECONDS`), on idle CPU only: a build's workers, measured,
lost a third of their speed to it even at the lowest priority. Every later run loads
that library in milliseconds; a process still running picks it up at its next search.

A lock file beside the library's name (``.compiling``, holding the background
process's id) keeps a second run, or a build's workers, from starting another
one; a lock whose process is gone (killed, or its machine restarted) is taken
over. When the background process fails, the next run starts it again; when the
library cannot be built, the ``.failed`` file :mod:`openingbook.solver._native` leaves says
so and runs compile the fast kernel themselves.

Only with the native cache: without it (``OPENINGBOOK_NATIVE=0``, no C compiler,
no writable cache directory, an untested numba) nothing would tell a later run
that the fast kernel is ready, so every run uses the fast kernel, compiled in the
run as numba does. ``OPENINGBOOK_FIRST_USE=0`` turns the light kernel off (the
test suite does, so that one kernel serves it; the background process does, so
that it compiles the fast one).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from openingbook.solver import _jit, _native, search
from openingbook.solver.position import Position
from openingbook.solver.probe import BookProbe
from openingbook.solver.table import tiny_table_log2

__all__ = ["background_locks", "choose", "enabled", "main", "start_light"]

#: the variable that turns the light kernel off ("0")
SWITCH = "OPENINGBOOK_FIRST_USE"
#: where no /proc tells what a process runs, a lock older than this is taken over even
#: if a process of its id is alive (the id reused after a restart)
_LOCK_SECONDS = 3600
#: a lock whose process shows no command line yet (being started) is held this long
_STARTING_SECONDS = 60
#: the background process compiles once the command that started it has ended (its
#: workers get every core), or after this many seconds of a long-running process
START_AFTER_SECONDS = 60
#: the write ends of the pipes the background processes wait on, kept open until exit
_STARTERS: list[int] = []
#: the children compiling a light kernel for this process (start_light), by its name
_LIGHT_CHILDREN: dict[str, subprocess.Popen] = {}
#: when each of them started (time.monotonic()), by the same name
_LIGHT_STARTED: dict[str, float] = {}
#: a light kernel's child that has run this long when waited for has its time left said
_SAID_AGAIN_AFTER = 1.0
#: (fast kernel, signature) pairs whose library exists or cannot be built: fast
_READY: set[tuple[Any, str]] = set()
_GUARD = threading.Lock()


def enabled() -> bool:
    """Whether a first use takes the light kernel (native cache usable, not turned off)."""
    return (
        os.environ.get(SWITCH, "1") != "0"
        and _native.enabled()
        and _native.numba_tested()
        and _native._compiler() is not None
    )


def choose(
    fast: Any, light: Any, args: tuple[Any, ...], variant: tuple[int, int, bool, bool]
) -> Any:
    """The kernel to call with ``args``: ``fast``, or ``light`` while the fast one's
    native library does not exist yet (then its background compile is started once).
    ``variant``: (width, height, probing, batch), what the background process warms up.
    """
    if os.environ.get(SWITCH) == "light":  # the child of start_light
        return light
    library = _missing_library(fast, args)
    if library is None:
        return fast
    _await_light(light)
    _start_background(library.with_suffix(".compiling"), variant)
    return light


def start_light(
    fast: Any, light: Any, args: tuple[Any, ...], variant: tuple[int, int, bool, bool]
) -> None:
    """If a first use will take ``light`` for such arguments, start compiling it now in
    a child process (numba compiles one kernel at a time in a process), so that this
    process does its other first-run work meanwhile (a build enumerates its
    positions); :func:`choose` waits for the child before the light kernel is called."""
    name = f"{light.__module__}.{light.__qualname__}"
    if name in _LIGHT_CHILDREN or _missing_library(fast, args) is None:
        return
    width, height, probing, batch = variant
    env = _child_env()
    env[SWITCH] = "light"
    argv = [sys.executable, "-m", "openingbook.solver._firstuse", str(width), str(height)]
    argv += ["probing" if probing else "plain", "batch" if batch else "one", "-"]
    with contextlib.suppress(OSError):  # else this process compiles it when it needs it
        _LIGHT_CHILDREN[name] = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=env,
        )  # fmt: skip
        _LIGHT_STARTED[name] = time.monotonic()
        if len(_LIGHT_CHILDREN) == 1:
            atexit.register(_stop_light_children)
        # said when it starts, as every compile: this run's other first-use work goes on
        _jit.announce_compile(light.__module__, light=True, elsewhere=True)


def _stop_light_children() -> None:
    """At exit (an error, Ctrl-C or SIGTERM before the light kernel was needed): stop
    the children still compiling one for this process; nobody will wait for them."""
    for child in list(_LIGHT_CHILDREN.values()):
        with contextlib.suppress(OSError):
            child.kill()
            child.wait()
    _LIGHT_CHILDREN.clear()


def _await_light(light: Any) -> None:
    """Wait for the child compiling ``light`` (start_light), if any; stopped with this
    process (Ctrl-C), it is stopped too."""
    name = f"{light.__module__}.{light.__qualname__}"
    child = _LIGHT_CHILDREN.get(name)
    started = _LIGHT_STARTED.pop(name, time.monotonic())
    if child is None:
        return
    try:
        running = time.monotonic() - started
        # its compile is this run's wait: the time left is said, unless its start was
        # said just now (a search at once)
        if child.poll() is None and running >= _SAID_AGAIN_AFTER:
            done = _cpu_seconds(child.pid)
            if done is None:  # no /proc: the time since it started
                done = running
            _jit.announce_compile(
                light.__module__, light=True, done=max(done, 0.1), elsewhere=True, again=True
            )
        child.wait()
    except BaseException:
        child.kill()
        child.wait()
        raise
    finally:  # listed until it has ended: a process ended while waiting stops it at exit
        _LIGHT_CHILDREN.pop(name, None)
        _jit.compiled_elsewhere(light.__module__)


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time (user + system) process ``pid`` has used, from ``/proc`` (None where
    there is none): a compile's progress, whatever else the machine runs."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _missing_library(fast: Any, args: tuple[Any, ...]) -> Path | None:
    """The native library of ``fast`` for ``args`` when a first use takes the light
    kernel instead (the library neither exists nor failed to build), else None."""
    if not enabled():
        return None
    signature = _native._signature(args)
    if signature is None or (fast, signature) in _READY:
        return None
    # the stand-in names the library; numba's dispatcher stands in the kernels' place
    # when numba was loaded before solver.search (a build's enumeration loads it)
    stand_in = _native.stand_in(fast)
    library = None if stand_in is None else _native.library_path(stand_in, signature)
    if library is None:
        return None
    if library.exists() or library.with_suffix(".failed").exists():
        _READY.add((fast, signature))
        return None
    return library


def _child_env() -> dict[str, str]:
    """The environment of a child running this module: the solver package this process
    runs (whatever ``sys.path`` found it), no compile note."""
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    env["OPENINGBOOK_COMPILE_NOTE"] = "0"
    return env


def background_locks(directory: Path) -> list[Path]:
    """The lock files of background compiles running now under ``directory`` (the
    native cache): benchmarks wait for them before clearing the caches."""
    return [lock for lock in directory.glob("*.compiling") if _held(lock)]


def _held(lock: Path) -> bool:
    """Whether the process named in ``lock`` still runs this module (on systems
    without ``/proc``: whether a process of that id runs and the lock is recent)."""
    try:
        pid = int(lock.read_text(encoding="ascii").strip() or "0")
        age = time.time() - lock.stat().st_mtime
    except (OSError, ValueError):
        return False
    if pid <= 0:
        return False
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        if Path("/proc/self/cmdline").exists():
            return False  # /proc works: no such process
        command = None
    except OSError:
        command = None
    if command:
        return __name__.encode() in command
    if command is not None:  # empty: a process just started (not run yet) or a zombie
        return age < _STARTING_SECONDS
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return age < _LOCK_SECONDS


def _start_background(lock: Path, variant: tuple[int, int, bool, bool]) -> None:
    """Start the background compile of ``variant`` unless one holds ``lock``."""
    with _GUARD:
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            if _held(lock):
                return
            try:  # a stale lock: its process is gone
                lock.unlink()
                fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            except OSError:
                return
        except OSError:
            return
        try:
            width, height, probing, batch = variant
            env = _child_env()
            env[SWITCH] = "0"
            argv = [sys.executable, "-m", "openingbook.solver._firstuse", str(width), str(height)]
            argv += ["probing" if probing else "plain", "batch" if batch else "one", str(lock)]
            # the child's stdin: a pipe whose write end this process keeps, so the child
            # sees its end (EOF) when this process and its forked workers have exited
            wait_end, keep_end = os.pipe()
            child = subprocess.Popen(
                argv,
                stdin=wait_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                start_new_session=True,  # not stopped by the command's Ctrl-C: it outlives it
            )
            os.close(wait_end)
            _STARTERS.append(keep_end)
            os.write(fd, str(child.pid).encode("ascii"))
        except OSError:
            os.close(fd)
            lock.unlink(missing_ok=True)
            return
        os.close(fd)


def _yield_cpu() -> None:
    """Run only on CPU time nobody else wants: the command that started this process
    (a build's workers), and the next one, come first. Linux's idle scheduling class
    (``SCHED_IDLE``); elsewhere the lowest priority."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        with contextlib.suppress(OSError):
            os.nice(19)


def main(argv: list[str]) -> int:
    """The background process: compile the fast kernel of one variant and build its
    native library (``width height probing|plain batch|one LOCK``), then drop the lock.
    With ``-`` for LOCK (and ``OPENINGBOOK_FIRST_USE=light``): compile the light kernel
    for the process that waits for it (:func:`start_light`)."""
    width, height, probing, batch, lock = argv
    try:
        if lock != "-":
            # after the command that started it (EOF on stdin), or after a while
            select.select([sys.stdin], [], [], START_AFTER_SECONDS)
            _yield_cpu()
        book = None
        if probing == "probing":
            # any book of positions: the kernel's arguments have the same types
            pos = Position.from_moves("1", width=int(width), height=int(height))
            book = BookProbe.from_positions(
                [pos.first_stones], [pos.mask], [0], 1, int(width), int(height)
            )
        # warm_up solves with a small copy of this solver: the table's size is no matter
        log2 = tiny_table_log2(int(width), int(height))
        solver = search.Solver(log2, width=int(width), height=int(height), book=book)
        solver.warm_up(solve=batch == "one", solve_many=batch == "batch")
        return 0
    finally:
        if lock != "-":
            Path(lock).unlink(missing_ok=True)


# the search asks this module for its entry kernels (looked up here at each call), and
# the compile note whether a first use compiles the light one
search.install_first_use(sys.modules[__name__])  # type: ignore[arg-type]
_jit.first_use_light = enabled

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
