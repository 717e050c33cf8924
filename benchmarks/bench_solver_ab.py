"""Benchmark: two copies of the ``openingbook.solver`` package on the same positions, alternating.

Usage: ``python benchmarks/bench_solver_ab.py BEFORE AFTER [--runs 5] [--count 60]
[--out PATH]``, where BEFORE and AFTER are directories that each hold a ``openingbook.solver``
package (e.g. ``git archive <commit> solver | tar -x -C /tmp/before``, and the
worktree root). Each run is a fresh process that imports ``openingbook.solver`` from one of the
directories, solves every position with a fresh default solver (after one warm-up
solve that loads the compiled kernel) and reports its CPU time and nodes. The runs
alternate BEFORE, AFTER, BEFORE, ... so that both see the same load on a shared
machine; the medians are compared. The node counts of the two copies must be equal
(the same search), else the script stops.

Positions: ``--count`` random 12-ply 7x6 positions and a quarter as many random
8-ply ones (the solver benchmark's kinds, benchmarks/bench_solver.py), and 10
random 10-ply 6x5 positions (the search copy for boards other than 7x6).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

#: what one run does, in a fresh process with ``openingbook.solver`` imported from sys.argv[1]
CHILD = r"""
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from openingbook.solver import Position, Solver

def positions(count, plies, seed, width=7, height=6):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position(width=width, height=height)
        for _ in range(plies):
            moves = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
            if not moves:
                break
            pos = pos.play(rng.choice(moves))
        if pos.stone_count == plies and not pos.can_win_next():
            out.append(pos)
    return out

count = int(sys.argv[2])
sets = {
    "7x6-12": positions(count, 12, 20240607),
    "7x6-8": positions(max(1, count // 4), 8, 20240607),
    "6x5-10": positions(10, 10, 20240607, 6, 5),
}
result = {}
for name, items in sets.items():
    width, height = items[0].width, items[0].height
    solver = Solver(width=width, height=height)
    solver.solve(items[-1])  # loads the kernel: not timed
    solver.reset()
    solver.reset_stats()
    start = time.process_time()
    scores = [solver.solve(p) for p in items]
    result[name] = {
        "cpu_s": time.process_time() - start,
        "nodes": solver.nodes,
        "scores": sum((i + 1) * s for i, s in enumerate(scores)),
    }
print(json.dumps(result))
"""


def run(directory: Path, count: int) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(directory), str(count)],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
        env={**os.environ, "PYTHONPATH": ""},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    labels = {"before": args.before.resolve(), "after": args.after.resolve()}
    for directory in labels.values():
        run(directory, 2)  # compiles (or loads) the kernels and builds the native cache
    times: dict[str, dict[str, list[float]]] = {k: {} for k in labels}
    nodes: dict[str, dict[str, int]] = {k: {} for k in labels}
    for i in range(args.runs):
        for label, directory in labels.items():
            result = run(directory, args.count)
            for name, r in result.items():
                times[label].setdefault(name, []).append(r["cpu_s"])
                seen = nodes[label].setdefault(name, r["nodes"])
                if seen != r["nodes"]:
                    sys.exit(f"{label} {name}: nodes differ between runs")
            print(f"run {i + 1} {label}: " + json.dumps(result), flush=True)
    report: dict = {"runs": args.runs, "count": args.count, "sets": {}}
    for name in times["before"]:
        if nodes["before"][name] != nodes["after"][name]:
            sys.exit(f"{name}: nodes differ: {nodes['before'][name]} / {nodes['after'][name]}")
        before = statistics.median(times["before"][name])
        after = statistics.median(times["after"][name])
        report["sets"][name] = {
            "nodes": nodes["before"][name],
            "before_cpu_s": times["before"][name],
            "after_cpu_s": times["after"][name],
            "median_before_s": round(before, 4),
            "median_after_s": round(after, 4),
            "after_over_before": round(after / before, 4),
        }
        print(
            f"{name}: nodes {nodes['before'][name]:,} (equal); median CPU s "
            f"{before:.3f} -> {after:.3f} ({after / before - 1:+.1%})"
        )
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
