"""Benchmark: the cost of one call of the solver on positions it answers at once, with
the search handed to its own thread (``solver.interrupt``, so that a signal stops it)
and run in the calling thread, in the same process, alternately.

Usage: ``python benchmarks/bench_solver_calls.py [--rounds N] [--out PATH]``

Prints and writes (``benchmarks/results/solver_calls.json``) the microseconds per
``Solver.solve`` call, the minimum and the median over the rounds, for each way: CPU
time of the process (every thread's; wall time on a shared machine counts other
processes' turns) and wall time.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

from openingbook.atomicio import write_json_atomic
from solver import Position, Solver

ROOT = Path(__file__).resolve().parent
#: 7x6 positions the search answers in microseconds (a full table, or few cells left)
POSITIONS = ["44444455", "444444333333", "2252576253462244111563365343671351441", "4455443"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "solver_calls.json")
    args = parser.parse_args()

    import solver.search as search

    solver = Solver(table_log2=20)
    solver.warm_up()
    positions = [Position.from_moves(m) for m in POSITIONS]
    for p in positions:
        solver.solve(p)  # the table holds them: every later call is a lookup
    ways = {
        "handed_over": search.run_interruptibly,
        "calling_thread": lambda work, stop: work(),
    }
    clocks = {"cpu": time.process_time, "wall": time.perf_counter}
    times: dict[str, list[float]] = {f"{n}_{c}": [] for n in ways for c in clocks}
    calls = args.calls * len(positions)
    for _ in range(args.rounds):
        for name, runner in ways.items():
            search.run_interruptibly = runner
            start = {c: clock() for c, clock in clocks.items()}
            for _ in range(args.calls):
                for p in positions:
                    solver.solve(p)
            for c, clock in clocks.items():
                times[f"{name}_{c}"].append((clock() - start[c]) / calls * 1e6)
    search.run_interruptibly = ways["handed_over"]
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "machine": {"processor": platform.machine(), "python": sys.version.split()[0]},
        "positions": POSITIONS,
        "rounds": args.rounds,
        "calls_per_round": calls,
        "us_per_call": {
            name: {"min": round(min(v), 1), "median": round(statistics.median(v), 1)}
            for name, v in times.items()
        },
    }
    for name, row in result["us_per_call"].items():
        print(f"{name}: {row['min']} us min, {row['median']} us median per call")
    write_json_atomic(args.out, result)


if __name__ == "__main__":
    main()
