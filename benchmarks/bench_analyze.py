"""Benchmark: analysing positions with the engine (every column's exact value).

Usage: ``python benchmarks/bench_analyze.py [--positions 10000] [--deep 20] [--runs 9]
[--out PATH]``

1. ``--positions`` random positions of 0..11 stones (as many of each ply; random games
   in which nobody has won and the side to move cannot win at once, as in
   ``bench_solver.py``), shuffled, analysed one by one through the library,
   ``Engine().analyze(moves)`` with the shipped books, timed per call after
   one untimed analysis per ply (so that every book is open): median, p99, max.
   Goal (issue 25): median <= 1 ms, p99 <= 5 ms. Also the thread's CPU time per call:
   on a loaded host a call that is descheduled waits 10 ms or more, which is the
   wall time's tail, not the engine's.
2. ``--deep`` random positions of each of 12..16 stones: the engine (its children have
   no book: it searches them) against ``Solver.analyze`` without any book, each with
   its own solver of the same table size, alternating position by position.
3. ``openingbook analyze ""`` as whole processes, start to exit, interleaved with
   ``python -c pass`` (the floor) over ``--runs`` rounds, with the bytecode cache on
   (see ``bench_startup.py``). Goal: 0.2 s.

Writes ``benchmarks/results/analyze.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

from bench_solver import random_positions
from bench_startup import ENTRY, run_once

from openingbook.atomicio import write_json_atomic
from openingbook.engine import Engine
from solver import Solver

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent


def summary(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 4),
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 4),
        "mean_ms": round(statistics.fmean(ms), 4),
        "max_ms": round(ms[-1], 4),
    }


def bench_shallow(count: int, seed: int) -> dict[str, object]:
    engine = Engine()
    todo = [m for plies in range(12) for m in random_positions(-(-count // 12), plies, seed)]
    random.Random(seed).shuffle(todo)
    for plies in range(12):  # open every book first: a server keeps them open
        engine.analyze(random_positions(1, plies, seed + 1)[0])
    times: list[float] = []
    cpu: list[float] = []
    by_ply: dict[int, list[float]] = {}
    sources: dict[str, int] = {}
    for moves in todo:
        start = time.perf_counter()
        start_cpu = time.thread_time()
        analysis = engine.analyze(moves)
        cpu.append(time.thread_time() - start_cpu)
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        by_ply.setdefault(len(moves), []).append(elapsed)
        for move in analysis.moves:
            if move is not None:
                sources[move.source] = sources.get(move.source, 0) + 1
    return {
        "positions": len(todo),
        "plies": "0..11, as many of each",
        "all": summary(times),
        # the thread's CPU time: on a loaded host the wall time's tail is the scheduler's
        "all_cpu": summary(cpu),
        "by_ply": {str(p): summary(t) for p, t in sorted(by_ply.items())},
        "move_sources": sources,
        "goal": {"median_ms": 1.0, "p99_ms": 5.0},
    }


def bench_deep(per_ply: int, seed: int, table_log2: int) -> dict[str, object]:
    engine = Engine(table_log2=table_log2)
    plain = Solver(table_log2=table_log2)
    engine.solver.warm_up()
    plain.warm_up()
    out: dict[str, object] = {}
    for plies in range(12, 17):
        engine_times, solver_times = [], []
        for moves in random_positions(per_ply, plies, seed):
            start = time.perf_counter()
            analysis = engine.analyze(moves)
            engine_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            scores = plain.analyze(moves)
            solver_times.append(time.perf_counter() - start)
            got = [None if m is None else m.score for m in analysis.moves]
            if got != scores:  # never: the engine is exact
                raise AssertionError(f"{moves}: engine {got}, solver {scores}")
        out[str(plies)] = {
            "engine": summary(engine_times),
            "solver_analyze_without_book": summary(solver_times),
        }
    return {"positions_per_ply": per_ply, "table_log2": table_log2, "by_ply": out}


def bench_startup(runs: int) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    todo = {
        "python -c pass": [sys.executable, "-c", "pass"],
        'analyze ""': [sys.executable, "-c", ENTRY, "analyze", ""],
    }
    for argv in todo.values():  # untimed: the bytecode, native and file caches
        run_once(argv, env, REPO)
    walls: dict[str, list[float]] = {name: [] for name in todo}
    cpus: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(runs):
        for name, argv in todo.items():
            wall, cpu = run_once(argv, env, REPO)
            walls[name].append(wall)
            cpus[name].append(cpu)
    return {
        name: {
            "median_wall_s": round(statistics.median(walls[name]), 3),
            "min_wall_s": round(min(walls[name]), 3),
            "median_cpu_s": round(statistics.median(cpus[name]), 3),
        }
        for name in todo
    } | {"runs": runs, "goal_s": 0.2}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--deep", type=int, default=20, help="positions per ply of 12..16")
    parser.add_argument("--runs", type=int, default=9, help="start-up rounds")
    parser.add_argument("--table-log2", type=int, default=24)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "analyze.json")
    args = parser.parse_args()
    shallow = bench_shallow(args.positions, args.seed)
    print("0..11 stones:", shallow["all"])
    print("0..11 stones, CPU:", shallow["all_cpu"])
    deep = bench_deep(args.deep, args.seed, args.table_log2)
    for plies, row in deep["by_ply"].items():  # type: ignore[union-attr]
        print(f"{plies} stones: engine {row['engine']}")
        print(f"{'':>9} Solver.analyze {row['solver_analyze_without_book']}")
    startup = bench_startup(args.runs)
    print("start-up:", startup)
    results = {
        "benchmark": "analysis of positions: every column's exact value (openingbook.engine)",
        "command": " ".join(["python", "benchmarks/bench_analyze.py", *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "shallow": shallow,
        "deep": deep,
        "startup": startup,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, results)


if __name__ == "__main__":
    main()
