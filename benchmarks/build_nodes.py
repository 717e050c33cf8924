"""Yardstick for the build's solver: nodes and CPU time on the strata of bench_build.py.

Usage: ``python benchmarks/build_nodes.py [--strata 8] [--jobs 2] [--solver '{"table_log2": 26}']
[--windows] [--out FILE]``

The same positions as ``bench_build.py --strata K`` (same seed, same shards), each
worker's run solved in one process exactly as a build worker solves it: a fresh
solver, ``--warmup-chunks`` untimed chunks, then the timed ones. Node counts are
deterministic (unlike times on a shared host), so they are the figure to compare
search changes by; CPU time per position is reported too. ``--windows`` also
replays the exact-score walk in Python and reports the nodes spent per window,
by the window's place relative to the true score.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import multiprocess as mp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_build import FULL_CHUNK_SIZE, full_book_cost, strata_shards

from openingbook.pipeline.build import BuildOptions, plan_build
from openingbook.pipeline.executors import worker_ranges
from openingbook.solver import DEFAULT_BOARD, Solver


def _walk(solver: Solver, cur: int, mask: int, windows: Counter) -> int:
    """The exact score by the walk of search._solve_one, recording nodes per window."""
    from openingbook.solver import search

    args = solver._kernel_args()
    n = bin(mask).count("1")
    cells = solver.cells
    pos_windows = []
    lo = -((cells - n) // 2)
    hi = (cells + 1 - n) // 2
    first = True
    while lo < hi:
        med = 0 if first else (lo if lo >= 1 else hi - 1)
        first = False
        med = min(max(med, lo), hi - 1)
        before = solver.nodes
        # the 7x6 copies, no book, the mirror code until the deep copy takes over (as the
        # build's kernel; run-time flags here: the same search, compiled once more)
        r = search._negamax(
            np.uint64(cur), np.uint64(mask), n, med, *args,
            default_size=True, probing=False, deep_copy=True,
        )  # fmt: skip
        pos_windows.append((med, solver.nodes - before, r > med))
        if r <= med:
            hi = r
        else:
            lo = r
    for med, nodes, high in pos_windows:
        windows[(med - lo, high)] += nodes
    windows["searches"] += len(pos_windows)
    return lo


def run_worker(job: tuple) -> dict:
    shard, worker, jobs, warmup, timed, settings, windows = job
    options = BuildOptions(
        plies=12, distances=True, shard=shard, chunk_size=FULL_CHUNK_SIZE, board=DEFAULT_BOARD
    )
    plan = plan_build(options)
    start, stop = worker_ranges(len(plan.chunks), jobs)[worker]
    chunks = plan.chunks[start:stop]
    solver = Solver(**settings)
    solver.warm_up()
    out = {"shard": f"{shard[0]}/{shard[1]}", "worker": worker}
    window_nodes: Counter = Counter()
    for part, part_chunks in (("warmup", chunks[:warmup]), ("timed", chunks[warmup:][:timed])):
        nodes = positions = 0
        cpu = 0.0
        for chunk in part_chunks:
            first, mask = plan.chunk_arrays(chunk)
            before = solver.nodes
            t0 = time.process_time()
            if windows and part == "timed":
                for f, m in zip(first.tolist(), mask.tolist(), strict=True):
                    cur = f if bin(m).count("1") % 2 == 0 else f ^ m
                    _walk(solver, cur, m, window_nodes)
            else:
                solver.solve_many(first, mask)
            cpu += time.process_time() - t0
            nodes += solver.nodes - before
            positions += len(first)
        out[part] = {"positions": positions, "nodes": nodes, "cpu_seconds": round(cpu, 3)}
    if windows:
        out["windows"] = {str(k): v for k, v in window_nodes.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--strata", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="workers per stratum (as the build)")
    parser.add_argument("--processes", type=int, default=2, help="processes running them")
    parser.add_argument("--warmup-chunks", type=int, default=1)
    parser.add_argument("--stratum-chunks", type=int, default=1)
    parser.add_argument("--solver", type=json.loads, default={}, help="Solver(**settings)")
    parser.add_argument("--windows", action="store_true")
    parser.add_argument("--only", type=int, default=0, help="first N worker runs only")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    shards = strata_shards(args.strata, args.warmup_chunks + args.stratum_chunks, args)
    jobs = [
        (s, w, args.jobs, args.warmup_chunks, args.stratum_chunks, args.solver, args.windows)
        for s in shards
        for w in range(args.jobs)
    ]
    if args.only:
        jobs = jobs[: args.only]
    with mp.Pool(args.processes) as pool:
        runs = []
        for r in pool.imap(run_worker, jobs):
            print(json.dumps(r), flush=True)
            runs.append(r)
    timed = [r["timed"] for r in runs]
    positions = sum(t["positions"] for t in timed)
    nodes = sum(t["nodes"] for t in timed)
    cpu = sum(t["cpu_seconds"] for t in timed)
    summary = {
        "settings": args.solver,
        "runs": len(runs),
        "positions": positions,
        "nodes": nodes,
        "nodes_per_position": round(nodes / positions),
        "cpu_seconds": round(cpu, 2),
        "mnodes_per_cpu_second": round(nodes / cpu / 1e6, 2),
        **full_book_cost(cpu / positions),
    }
    if args.windows:
        total: Counter = Counter()
        for r in runs:
            total.update(r["windows"])
        summary["windows"] = dict(sorted(total.items(), key=lambda kv: -kv[1]))
    print(json.dumps(summary))
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
