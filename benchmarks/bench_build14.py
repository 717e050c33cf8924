"""Benchmark: the cost of the 14-ply distance book, from strata of its parts.

Usage: ``python benchmarks/bench_build14.py [--parts 32] [--strata 8] [--warmup 256]
[--timed 1024] [--seed 1] [--out benchmarks/results/build14-strata.json]``

The 14-ply book is built in parts (``openingbook build --plies 14 --distances --part
i/n``, see ``docs/BOOK14.md``): part ``i`` of ``n`` holds the positions whose canonical
key hashes to ``i`` (:func:`solver.enumerate.part_of`), in the enumeration's order, and
one worker solves a part's chunks in that order, keeping its table. Each stratum
reproduces that: a part spread evenly over ``1..n`` is enumerated, a random window of
``warmup + timed`` consecutive positions of it is solved by one fresh solver (exact
scores, as the build), and only the last ``timed`` count. The book's estimate is the
mean CPU time per position over the strata times the book's positions (the strata's
part sizes times ``n``, an estimate; ``openingbook enumerate --plies 14`` counts them),
in core-hours, beside the 12-ply book's (``FULL_12_CORE_HOURS``, the ninth pass).
Writes ``benchmarks/results/build14-strata.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from openingbook.atomicio import write_json_atomic
from solver import DEFAULT_BOARD, Solver, enumerate_positions

ROOT = Path(__file__).resolve().parent
#: The 12-ply distance book's measured cost (benchmarks/README, ninth pass, median).
FULL_12_CORE_HOURS = 2.81


def run_stratum(part: int, parts: int, warmup: int, timed: int, rng: np.random.Generator) -> dict:
    """Solve ``warmup + timed`` consecutive positions of one part; time the last ``timed``."""
    start = time.perf_counter()
    first, mask = enumerate_positions(14, None, *DEFAULT_BOARD, part=(part, parts))
    enumerate_seconds = time.perf_counter() - start
    length = warmup + timed
    at = int(rng.integers(0, max(1, len(first) - length)))
    solver = Solver()
    solver.warm_up()
    solver.solve_many(first[at : at + warmup], mask[at : at + warmup])
    cpu = time.thread_time()
    solver.solve_many(first[at + warmup : at + length], mask[at + warmup : at + length])
    cpu = time.thread_time() - cpu
    n = min(timed, len(first) - at - warmup)
    return {
        "part": f"{part}/{parts}",
        "part_positions": len(first),
        "window_start": at,
        "timed_positions": n,
        "timed_cpu_seconds": round(cpu, 3),
        "cpu_ms_per_position": round(1000 * cpu / n, 3),
        "enumerate_seconds": round(enumerate_seconds, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", type=int, default=32, help="parts of the 14-ply book")
    parser.add_argument("--strata", type=int, default=8, help="parts to time, evenly spread")
    parser.add_argument("--warmup", type=int, default=256, help="untimed positions first")
    parser.add_argument("--timed", type=int, default=1024, help="timed positions per stratum")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "build14-strata.json")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    runs = []
    for k in range(args.strata):
        part = 1 + k * args.parts // args.strata + int(rng.integers(args.parts // args.strata))
        runs.append(run_stratum(part, args.parts, args.warmup, args.timed, rng))
        print(json.dumps(runs[-1]), flush=True)
    ms = sum(r["cpu_ms_per_position"] for r in runs) / len(runs)
    positions = round(args.parts * sum(r["part_positions"] for r in runs) / len(runs))
    core_hours = positions * ms / 1000 / 3600
    result = {
        "command": "python benchmarks/bench_build14.py "
        f"--parts {args.parts} --strata {args.strata} --warmup {args.warmup} "
        f"--timed {args.timed} --seed {args.seed}",
        "machine": platform.processor() or platform.machine(),
        "runs": runs,
        "cpu_ms_per_position": round(ms, 3),
        "cpu_ms_per_position_min_max": [
            min(r["cpu_ms_per_position"] for r in runs),
            max(r["cpu_ms_per_position"] for r in runs),
        ],
        "book_positions_estimate": positions,
        "full_book_core_hours": round(core_hours, 2),
        "core_hours_per_part": round(core_hours / args.parts, 3),
        "book12_core_hours": FULL_12_CORE_HOURS,
        "ratio_to_book12": round(core_hours / FULL_12_CORE_HOURS, 2),
    }
    write_json_atomic(args.out, result)
    print(json.dumps({k: v for k, v in result.items() if k != "runs"}, indent=1))


if __name__ == "__main__":
    main()
