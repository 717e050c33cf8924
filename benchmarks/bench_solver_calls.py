"""Benchmark: the cost of one solver call on positions it answers at once, in the
configuration users get (no switches), after a first run has finished its background
work (the fast kernel's native library built).

Usage: ``python benchmarks/bench_solver_calls.py [--rounds N] [--calls N] [--out PATH]``

Prints and writes (``benchmarks/results/solver_calls.json``) the microseconds per call
(CPU time of the process, every thread's; the minimum and the median over the rounds)
of ``Solver().solve`` (the default solver, one thread), ``Solver(threads=2).solve``,
``solve_many`` of one position and, per position, of a batch of 1,000. Goal (issue 43):
at most 20 us per ``solve``. The positions are answered from the table after their
first solve (or are a few cells from the end): what is measured is the call.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from runinfo import machine_info, wait_for_background_compiles

from openingbook.atomicio import write_json_atomic
from openingbook.solver import Position, Solver

ROOT = Path(__file__).resolve().parent
#: 7x6 positions the search answers in microseconds (a full table, or few cells left)
POSITIONS = ["44444455", "444444333333", "2252576253462244111563365343671351441", "4455443"]


def per_call(call, count: int, rounds: int) -> dict[str, float]:
    """Microseconds of CPU per call of ``call()`` (which makes ``count`` calls)."""
    times = []
    for _ in range(rounds):
        start = time.process_time()
        call()
        times.append((time.process_time() - start) / count * 1e6)
    return {"min": round(min(times), 2), "median": round(statistics.median(times), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "solver_calls.json")
    args = parser.parse_args()

    waited = wait_for_background_compiles()
    positions = [Position.from_moves(m) for m in POSITIONS]
    first = np.array([p.first_stones for p in positions], np.uint64)
    mask = np.array([p.mask for p in positions], np.uint64)
    many_first, many_mask = np.resize(first, 1000), np.resize(mask, 1000)
    one, two = Solver(), Solver(threads=2)
    for solver in (one, two):
        for p in positions:  # the table holds them: every later call is a lookup
            solver.solve(p)
    calls = args.calls

    def solve_each(solver: Solver) -> None:
        for _ in range(calls // len(positions)):
            for p in positions:
                solver.solve(p)

    def many_of_one() -> None:
        for i in range(calls):
            j = i % len(positions)
            one.solve_many(first[j : j + 1], mask[j : j + 1])

    def many() -> None:
        for _ in range(calls // 1000):
            one.solve_many(many_first, many_mask)

    rounds = args.rounds
    result = {
        **machine_info(),
        "configuration": "default (no switches)",
        "background_compiles_waited_s": round(waited, 1),
        "positions": POSITIONS,
        "rounds": rounds,
        "calls_per_round": calls,
        "us_per_call_cpu": {
            "solve": per_call(lambda: solve_each(one), calls, rounds),
            "solve_threads_2": per_call(lambda: solve_each(two), calls, rounds),
            "solve_many_of_one": per_call(many_of_one, calls, rounds),
            "solve_many_per_position_of_1000": per_call(many, calls // 1000 * 1000, rounds),
        },
        "goal_us_per_solve": 20,
    }
    for name, row in result["us_per_call_cpu"].items():
        print(f"{name}: {row['min']} us min, {row['median']} us median per call")
    write_json_atomic(args.out, result)


if __name__ == "__main__":
    main()
