"""Benchmark: start-up of the command line, as whole processes.

Usage: ``python benchmarks/bench_startup.py [--runs 15] [--book PATH] [--baseline REPO]
[--cases NAME,...] [--out PATH]``

Each case is a fresh ``python`` process running the ``openingbook`` entry point
(``openingbook.cli:main``, as the installed script does) with the repository
first on the path, timed from start to exit (wall time, and the CPU time of the
child). The cases run interleaved, ``--runs`` rounds of all of them, so that a
burst of load on this shared host hits every case alike; the figure per case is
the median over the rounds. The processes run with Python's bytecode cache on
(``PYTHONDONTWRITEBYTECODE`` removed from their environment), as an installed
package has its ``.pyc`` files. First a user's first runs and their background
compiles (``runinfo.wait_for_background_compiles``); then, before timing, two untimed
rounds fill numba's cache, the native cache (``openingbook/solver/_native.py``: each
kernel's library is saved by the first process that runs it) and the OS file cache:
``solve`` and the compact lookups are measured with a warm cache.

Cases: the bare interpreter (``python -c pass``, the floor), ``--help``,
``lookup BOOK MOVES`` (a position the book does not store: the reader's
binary search, order check and manifest), ``lookup`` in a shipped compact book
by name (``12-dist``), ``analyze ""`` (the empty board's seven moves from the
shipped 1-ply book), ``analyze 444333`` (a 6-ply position: the 7-ply book) and
``analyze`` of a 14-stone position (the 15-ply book, 28.5 MB, opened and checked),
``info BOOK`` (reads and checks the whole book),
``solve`` of an easy 8-ply position, single-threaded and with the default thread
count, and the same solve without the native cache (``OPENINGBOOK_NATIVE=0``:
numba loads the kernel, as before the cache existed). ``--baseline REPO`` times
every case also with another checkout's code (e.g. the main branch before a
change), interleaved with these. Writes ``benchmarks/results/startup.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from runinfo import run_info, wait_for_background_compiles

from openingbook.atomicio import write_json_atomic

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
DEFAULT_BOOK = REPO / "tests" / "data" / "thill-original-book8.dat"
ENTRY = "import sys; from openingbook.cli import main; sys.argv[0] = 'openingbook'; main()"
#: goals of issue 17, seconds of wall time
GOALS = {
    "--help": 0.2,
    "lookup": 0.25,
    "lookup 12-dist": 0.25,
    "solve": 0.5,
    "analyze": 0.2,
    "analyze 6-ply": 0.2,
    "analyze 14-ply": 0.2,  # issue 43: its moves in the 15-ply book (28.5 MB, checked)
}


def cases(book: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    """Case name -> (argv, extra environment)."""
    cli = [sys.executable, "-c", ENTRY]
    return {
        "python -c pass": ([sys.executable, "-c", "pass"], {}),
        "--help": ([*cli, "--help"], {}),
        "lookup": ([*cli, "lookup", str(book), "44444455"], {}),
        "lookup 12-dist": ([*cli, "lookup", "12-dist", "444444333333"], {}),
        "analyze": ([*cli, "analyze", ""], {}),
        "analyze 6-ply": ([*cli, "analyze", "444333"], {}),
        "analyze 14-ply": ([*cli, "analyze", "12134724515216"], {}),
        "info": ([*cli, "info", str(book)], {}),
        "solve": ([*cli, "solve", "44444455", "--threads", "1"], {}),
        "solve (all cores)": ([*cli, "solve", "44444455"], {}),
        "solve (no native cache)": (
            [*cli, "solve", "44444455", "--threads", "1"],
            {"OPENINGBOOK_NATIVE": "0"},
        ),
    }


def run_once(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[3:])} failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def commit_of(repo: Path) -> str:
    """The commit a checkout stands at (a result names code, not the machine's paths)."""
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed rounds (median)")
    parser.add_argument("--book", type=Path, default=DEFAULT_BOOK, help="book for lookup/info")
    parser.add_argument(
        "--baseline", type=Path, default=None, help="also time another checkout's code"
    )
    parser.add_argument(
        "--cases",
        help="comma-separated case names to time (default all; the floor always runs)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "startup.json")
    args = parser.parse_args()
    # the configuration users get: their first runs' background compiles done (the fast
    # kernels' native libraries), so that the untimed rounds only warm the caches
    waited = wait_for_background_compiles()
    chosen = cases(args.book)
    if args.cases:
        names = [n.strip() for n in args.cases.split(",") if n.strip()]
        unknown = [n for n in names if n not in chosen]
        if unknown:
            parser.error(f"unknown case {unknown[0]!r}: choose from {', '.join(chosen)}")
        chosen = {n: c for n, c in chosen.items() if n == "python -c pass" or n in names}
    if not args.book.is_file():
        sys.exit(f"bench_startup: no book at {args.book} (give --book)")
    repos = {"": REPO}
    if args.baseline is not None:
        repos[" [baseline]"] = args.baseline.resolve()
    # Python's bytecode cache on, as in any installation (this host's environment turns
    # it off, which would compile every module of ours from source in every process)
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    todo: dict[str, tuple[list[str], dict[str, str], Path]] = {}
    for suffix, repo in repos.items():
        for name, (argv, extra) in chosen.items():
            if suffix and "no native cache" in name:
                continue  # the baseline has no native cache to turn off
            env = dict(base_env, PYTHONPATH=str(repo), **extra)
            todo[name + suffix] = (argv, env, repo)
    load_before = [round(x, 2) for x in os.getloadavg()]
    for _ in range(2):  # untimed: numba's cache, the native cache, the OS's file cache
        for argv, env, repo in todo.values():
            run_once(argv, env, repo)
    walls: dict[str, list[float]] = {name: [] for name in todo}
    cpus: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(args.runs):
        for name, (argv, env, repo) in todo.items():
            wall, cpu = run_once(argv, env, repo)
            walls[name].append(wall)
            cpus[name].append(cpu)
    rows = {}
    print(f"{'case':<36} {'median wall s':>13} {'min':>7} {'max':>7} {'median CPU s':>13}  goal")
    for name in todo:
        row = {
            "median_wall_s": round(statistics.median(walls[name]), 3),
            "min_wall_s": round(min(walls[name]), 3),
            "max_wall_s": round(max(walls[name]), 3),
            "median_cpu_s": round(statistics.median(cpus[name]), 3),
            "argv": [os.path.basename(todo[name][0][0]), *todo[name][0][1:]],
            "checkout": commit_of(todo[name][2]),
        }
        goal = GOALS.get(name.removesuffix(" [baseline]"))
        if goal is not None:
            row["goal_s"] = goal
        rows[name] = row
        print(
            f"{name:<36} {row['median_wall_s']:>13.3f} {row['min_wall_s']:>7.3f} "
            f"{row['max_wall_s']:>7.3f} {row['median_cpu_s']:>13.3f}  {goal or ''}"
        )
    load = os.getloadavg()
    results = {
        "benchmark": "start-up of whole openingbook processes (median of interleaved rounds)",
        **run_info(),
        "background_compiles_waited_s": round(waited, 1),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": [round(x, 2) for x in load],
        "runs": args.runs,
        "book": args.book.name,
        "baseline": str(args.baseline) if args.baseline else None,
        "cases": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, results)
    print(json.dumps({"load_average_after": results["load_average_after"]}))


if __name__ == "__main__":
    main()
