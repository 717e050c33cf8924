"""Benchmark: a first compile of the search, in one process or with the child's copy.

Usage: ``python benchmarks/bench_solver_compile.py TREE [TREE ...] [--runs 2]
[--kernel fast|light] [--out PATH]``, where each TREE is a directory holding a
``openingbook.solver`` package (e.g. ``git archive <commit> solver | tar -x -C /tmp/before``, and
the worktree root). ``--kernel light``: the first use's light entry kernel
(:mod:`openingbook.solver._firstuse`, one copy of ``_search``) instead of the fast one.

Each run is a fresh process with numba's cache in a new empty directory and the
native cache off, importing ``openingbook.solver`` from TREE, that solves one 14-stone position
(``44444433333312``, a draw) with a small table: numba compiles the 7x6 entry kernel
and the two copies of ``_search`` it calls. Timed in the compiling thread (thread CPU,
from numba's ``numba:compile`` event of the entry kernel to its end). A tree whose
search compiles one copy in a child process and waits for it (``subprocess.Popen.wait``,
started from a hook in ``openingbook.solver._jit.COMPILE_HOOKS``; ``OPENINGBOOK_COMPILE_CHILD=1``
is set; see benchmarks/DECISIONS.md, "The kernel") also gets the thread CPU before
and after the wait for the child, the wait (wall) and the child's CPU, and the
estimate of a quiet 2-core machine: max(before the wait, the child) + after it. The
runs alternate the trees. This times numba's compile itself, a mechanism's figure: the
native cache is off here only so that numba compiles. What a user's first run costs, in
the configuration users get (the light kernel, the background compile), is
``bench_first_use.py``'s figure.
Writes ``benchmarks/results/solver_compile.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from runinfo import run_info

from openingbook.atomicio import write_json_atomic

ROOT = Path(__file__).resolve().parent

#: one run, in a fresh process with ``openingbook.solver`` imported from sys.argv[1]
CHILD = r"""
import json, resource, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from openingbook.solver import Position, Solver, _jit
if sys.argv[2] == "light":  # the kernel a first use runs while the fast one compiles
    from openingbook.solver import _firstuse
    _firstuse.choose = lambda fast, light, args, variant: light

marks = {}
wait = subprocess.Popen.wait

def timed_wait(self, timeout=None):  # the search's wait for its child
    if "wait" in marks:
        return wait(self, timeout)
    marks["wait"], start = time.thread_time(), time.perf_counter()
    try:
        return wait(self, timeout)
    finally:
        marks["waited"], marks["resumed"] = time.perf_counter() - start, time.thread_time()

subprocess.Popen.wait = timed_wait

def entry_started(dispatcher):
    func = getattr(dispatcher, "py_func", None)
    if func is None or not func.__name__.startswith("_solve_one_") or "start" in marks:
        return
    marks["start"] = time.thread_time()
    from numba.core import event

    class End(event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            if ev.data.get("dispatcher") is dispatcher:
                marks["end"] = time.thread_time()

    event.register("numba:compile", End())

if hasattr(_jit, "COMPILE_HOOKS"):  # before the search's own hook
    _jit.COMPILE_HOOKS.insert(0, entry_started)
else:
    _jit.materialize()
    from numba.core import event

    class Start(event.Listener):
        def on_start(self, ev):
            entry_started(ev.data.get("dispatcher"))

        def on_end(self, ev):
            pass

    event.register("numba:compile", Start())

score = Solver(16).solve(Position.from_moves("44444433333312"))
children = resource.getrusage(resource.RUSAGE_CHILDREN)
out = {"score": score, "compile_cpu_s": round(marks["end"] - marks["start"], 2)}
if "wait" in marks:
    before, after = marks["wait"] - marks["start"], marks["end"] - marks["resumed"]
    child = children.ru_utime + children.ru_stime
    out.update(before_wait_cpu_s=round(before, 2), after_wait_cpu_s=round(after, 2),
               child_cpu_s=round(child, 2), waited_s=round(marks["waited"], 2),
               quiet_estimate_s=round(max(before, child) + after, 2))
else:
    out["quiet_estimate_s"] = out["compile_cpu_s"]
print(json.dumps(out))
"""


def run(tree: Path, kernel: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="solver-compile-") as cache:
        env = {**os.environ, "PYTHONPATH": "", "NUMBA_CACHE_DIR": cache,
               "OPENINGBOOK_NATIVE": "0", "OPENINGBOOK_COMPILE_CHILD": "1"}  # fmt: skip
        load = os.getloadavg()[0]
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(tree), kernel], capture_output=True, text=True,
            env=env, cwd="/", check=True,
        )  # fmt: skip
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["score"] != 0:
        raise RuntimeError(f"{tree}: scored {result['score']}, not the draw (0)")
    return {**result, "load_average_1min": round(load, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path, help="directories holding solver")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--kernel", choices=("fast", "light"), default="fast")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "solver_compile.json")
    args = parser.parse_args()
    runs: dict[str, list[dict[str, object]]] = {str(t): [] for t in args.trees}
    for i in range(args.runs):
        for tree in args.trees:
            result = run(tree.resolve(), args.kernel)
            runs[str(tree)].append(result)
            print(f"run {i + 1} {tree}: {json.dumps(result)}", flush=True)
    results = {
        "benchmark": "a first compile of the search's 7x6 entry kernel (thread CPU)",
        "kernel": args.kernel,
        **run_info(),
        "cpus": os.cpu_count(),
        "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, results)


if __name__ == "__main__":
    main()
