"""Benchmark: the first use of the command line, from a fresh wheel install.

Usage: ``python benchmarks/bench_first_use.py [--work DIR] [--commands NAME,...] [--out PATH]``

Builds a wheel of this checkout (``pip wheel --no-deps``), installs it into a
fresh virtual environment under ``--work`` (a new temporary directory by default;
pip may take the dependencies from its cache), then for each command: removes
every compiled cache of the installation (numba's ``.nbi``/``.nbc`` files and the
native cache, beside the packages and in the run's own ``$HOME/.cache``), and
times a first run (everything compiled) and a second run (everything cached) of
the installed ``openingbook`` script, as whole processes (wall time from start to
exit, and the child's CPU time; for ``serve``, from its start to its first answer
of ``/solve``, asked as soon as it listens). Between them it waits for the background compile
of the fast search a first run starts (``openingbook.solver._firstuse``; detached, so neither
its time nor its CPU is the first run's) and records how long it still ran after the
first run had ended. Each command starts from cold caches, as the
first command after an install. The runs ask for the compile note
(``OPENINGBOOK_COMPILE_NOTE=1``) and record what stderr said and when: each note
says, when printed, how long what it names takes, so the notes promise a compiling
from the first note to the latest such end, held against the first use's own wait
(the first run's wall time less the second's). The load average is recorded
beside each run: the machine may be shared. Writes
``benchmarks/results/first_use.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import TextIO

from runinfo import run_info

from openingbook.atomicio import write_json_atomic
from openingbook.solver._firstuse import background_locks

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
#: the goal of issue 32: the first answer of each command within this many seconds
GOAL_S = 20
#: a deep line for the oracle and c4solver: past the shipped books, so the solver runs
DEEP = "2552354651517435"
COMMANDS = {
    "solve 44": ["solve", "44"],
    "analyze 44": ["analyze", "44"],
    "analyze 14 stones": ["analyze", "44444433333312"],
    "lookup 12-dist": ["lookup", "12-dist", "444444333333"],
    "enumerate --plies 10": ["enumerate", "--plies", "10"],
    "build --plies 8 --under 4444": ["build", "--plies", "8", "--under", "4444", "-o", "b8.dat"],
    "c4solver": ["c4solver"],
    # the server: from its start to its first answer of /solve (a book position, then DEEP)
    "serve": ["serve", "--port", "0", "--json"],
    # the library: the oracle's first batch (python, not the openingbook script)
    "Oracle().analyze": [
        "python",
        "-c",
        f"from openingbook.oracle import Oracle; print(Oracle().analyze(['{DEEP}']).scores[0])",
    ],
}
#: what a command reads on its standard input
STDIN = {"c4solver": f"44\n{DEEP}\n"}


def install(work: Path) -> Path:
    """A fresh venv with the wheel of this checkout; returns its ``bin`` directory."""
    wheels = work / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(REPO)],
        check=True,
    )
    [wheel] = wheels.glob("openingbook-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True)
    bin_dir = work / "venv" / "bin"
    subprocess.run([str(bin_dir / "pip"), "install", "-q", str(wheel)], check=True)
    return bin_dir


def site_packages(bin_dir: Path) -> Path:
    done = subprocess.run(
        [str(bin_dir / "python"), "-c", "import openingbook, pathlib; print(openingbook.__file__)"],
        capture_output=True, text=True, check=True, cwd="/",
    )  # fmt: skip
    return Path(done.stdout.strip()).parent.parent


def clear_compiled(site: Path, home: Path) -> int:
    """Remove numba's cache files and the native cache; returns how many files went."""
    removed = 0
    for package in ("openingbook",):
        for path in (site / package).rglob("*"):
            if path.is_file() and (path.suffix in (".nbi", ".nbc") or "native" in path.parts):
                path.unlink()
                removed += 1
    user = home / ".cache" / "openingbook"
    if user.exists():
        removed += sum(1 for p in user.rglob("*") if p.is_file())
        shutil.rmtree(user)
    return removed


def wait_background(site: Path, home: Path) -> float:
    """Wait for the background compile a first run may have left (solver._firstuse);
    returns the seconds waited. Its CPU time is not the run's: it runs detached."""
    dirs = [
        site / "openingbook" / "solver" / "__pycache__" / "native",
        home / ".cache" / "openingbook" / "native",
    ]
    start = time.perf_counter()
    while any(background_locks(d) for d in dirs if d.is_dir()):
        if time.perf_counter() - start > 600:
            raise RuntimeError("a background compile still runs after 10 minutes")
        time.sleep(0.2)
    return round(time.perf_counter() - start, 2)


def timed_lines(stream: TextIO, start: float, into: list[list[object]]) -> threading.Thread:
    """A thread that appends ``[seconds since start, line]`` for each line of ``stream``."""

    def read() -> None:
        for line in stream:
            into.append([round(time.perf_counter() - start, 2), line.rstrip("\n")])

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def run_once(argv: list[str], env: dict[str, str], cwd: Path, stdin: str = "") -> dict[str, object]:
    load = round(os.getloadavg()[0], 2)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(
        argv, env=env, cwd=cwd, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    lines: list[list[object]] = []
    reader = timed_lines(process.stderr, start, lines)  # type: ignore[arg-type]
    process.stdin.write(stdin)  # type: ignore[union-attr]
    process.stdin.close()  # type: ignore[union-attr]
    process.stdout.read()  # type: ignore[union-attr]
    process.wait()
    wall = time.perf_counter() - start
    reader.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {lines}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "load_average_1min_before": load,
        "stderr": lines[:8],
    }


def serve_once(argv: list[str], env: dict[str, str], cwd: Path) -> dict[str, object]:
    """Start ``openingbook serve --json``; the wall time is from its start to its first
    answer of ``/solve?pos=4453`` (asked as soon as it listens), then ``DEEP`` is asked
    (past the books: the solver's first search); stopped with SIGTERM, its CPU time is the
    whole run's."""
    load = round(os.getloadavg()[0], 2)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    server = subprocess.Popen(
        argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: list[list[object]] = []
    reader = timed_lines(server.stderr, start, lines)  # type: ignore[arg-type]
    try:
        solve = json.loads(server.stdout.readline())["solve"]  # type: ignore[union-attr]
        listening = time.perf_counter() - start
        answers = []
        for pos in ("4453", DEEP):
            with urllib.request.urlopen(f"{solve}?pos={pos}", timeout=120) as response:
                answers.append(json.loads(response.read()))
            answers[-1]["seconds"] = round(time.perf_counter() - start, 2)
    finally:
        server.terminate()  # SIGTERM: a background job ignores SIGINT
        server.communicate(timeout=60)
        reader.join()
    cpu = sum(
        getattr(resource.getrusage(resource.RUSAGE_CHILDREN), f) - getattr(before, f)
        for f in ("ru_utime", "ru_stime")
    )
    return {
        "wall_s": answers[0]["seconds"],
        "listening_s": round(listening, 2),
        "deep_answer_s": answers[1]["seconds"],
        "cpu_s": round(cpu, 2),
        "load_average_1min_before": load,
        "stderr": lines[:8],
    }


def promised_seconds(stderr: list[list[object]]) -> float:
    """How long a first run's notes say its compiling takes: from the first note to the
    latest end any note gives (each says, when it is printed, how long what it names
    will take: the compiles of the run's own process one after another, each said as it
    starts; one in another process beside them, said when it starts and again, with the
    time left, when waited for). 0 without a note."""
    start, end = None, 0.0
    for at, line in stderr:
        found = re.search(r"compiling .*about (\d+) s", str(line))
        if found is not None:
            start = float(at) if start is None else start  # type: ignore[arg-type]
            end = max(end, float(at) + int(found.group(1)))  # type: ignore[arg-type]
    return 0.0 if start is None else round(end - start, 2)


def run_command(name: str, argv: list[str], env: dict[str, str], cwd: Path) -> dict[str, object]:
    """One timed run of the command ``name`` (the server: until its first answers)."""
    if name == "serve":
        return serve_once(argv, env, cwd)
    return run_once(argv, env, cwd, STDIN.get(name, ""))


def commit_of(repo: Path) -> str:
    """The commit a checkout stands at."""
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--work", type=Path, help="where the venv goes, kept (default: a temp dir, removed)"
    )
    parser.add_argument("--commands", help="comma-separated names (default all)")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "first_use.json")
    args = parser.parse_args()
    chosen = COMMANDS
    if args.commands:
        names = [n.strip() for n in args.commands.split(",") if n.strip()]
        unknown = [n for n in names if n not in COMMANDS]
        if unknown:
            parser.error(f"unknown command {unknown[0]!r}: choose from {', '.join(COMMANDS)}")
        chosen = {n: COMMANDS[n] for n in names}
    checkout = commit_of(REPO)  # the code of the wheel, built now
    work = args.work or Path(tempfile.mkdtemp(prefix="first-use-"))
    work.mkdir(parents=True, exist_ok=True)
    load_before = [round(x, 2) for x in os.getloadavg()]
    start = time.perf_counter()
    bin_dir = install(work)
    install_s = round(time.perf_counter() - start, 1)
    site = site_packages(bin_dir)
    home = work / "home"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("NUMBA_", "OPENINGBOOK_", "PYTHON", "XDG_", "VIRTUAL_ENV"))
    }
    env.update(HOME=str(home), OPENINGBOOK_COMPILE_NOTE="1")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    rows: dict[str, dict[str, object]] = {}
    print(
        f"{'command':<30} {'first s':>8} {'CPU s':>7} {'bg s':>6} {'second s':>9} {'load':>5} "
        f"{'wait s':>6} {'note s':>6} {'off':>5}  notes"
    )
    for name, argv in chosen.items():
        cwd = work / "cwd" / name.replace(" ", "_")
        cwd.mkdir(parents=True, exist_ok=True)
        home.mkdir(exist_ok=True)
        cleared = clear_compiled(site, home)
        program = (
            [str(bin_dir / argv[0])] if argv[0] == "python" else [str(bin_dir / "openingbook")]
        )
        argv = argv[1:] if argv[0] == "python" else argv
        first = run_command(name, [*program, *argv], env, cwd)
        # the second run measures the steady state: the fast kernel ready
        background = wait_background(site, home)
        for stale in cwd.iterdir():  # build writes its book: the second run starts afresh
            if stale.is_file():
                stale.unlink()
        second = run_command(name, [*program, *argv], env, cwd)
        # what the notes promised (openingbook.solver._jit.FIRST_USE_SECONDS), against
        # the first use's own wait: what the first run took more than the second
        promised = promised_seconds(first["stderr"])  # type: ignore[arg-type]
        wait = round(float(first["wall_s"]) - float(second["wall_s"]), 2)  # type: ignore[arg-type]
        rows[name] = {
            "argv": [Path(program[0]).name, *argv],
            "notes_promised_s": promised,
            "first_use_wait_s": wait,
            "note_off_by": round(promised / wait - 1, 3) if wait > 0 else None,
            "cleared_files": cleared,
            "first": first,
            "background_compile_after_s": background,
            "second": second,
            "goal_s": GOAL_S,
        }
        notes = [f"{at} s: {line}" for at, line in first["stderr"] if "compiling" in line]  # type: ignore[union-attr,misc]
        print(
            f"{name:<30} {first['wall_s']:>8} {first['cpu_s']:>7} {background:>6} "
            f"{second['wall_s']:>9} "
            f"{first['load_average_1min_before']:>5} {wait:>6} {promised:>6} "
            f"{rows[name]['note_off_by'] or 0:>+5.0%}  {' / '.join(notes)}"
        )
    results = {
        "benchmark": "first use from a fresh wheel install: cold caches, then warm",
        **run_info(),
        "checkout": checkout,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "install_s": install_s,
        "load_average_before": load_before,
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "commands": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, results)
    print(json.dumps({"install_s": install_s, "load_average_after": results["load_average_after"]}))
    if args.work is None:  # a directory of our own: the venv, the wheel, the runs' files
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
