"""Benchmark: a build's searches with and without the parent book's lower bounds.

Usage: ``python benchmarks/bench_parent_bounds.py [--plies 15] [--part 9/64]
[--under MOVES] [--chunks 4] [--rounds 2] [--out PATH]``

A build of ``P`` plies with the distance book of ``P - 1`` plies bounds each position's
score from below by its parents' scores (``openingbook.pipeline.solving.
parent_lower_bounds``): a bound that is the score (the position is a parent's best
move) needs one null window, any other saves the windows below it. The positions are
the build's own: ``--chunks`` chunks spread evenly over the plan of ``build --plies P
--distances`` (``--part`` or ``--under`` as the build takes them; a 15-ply part
enumerates in about 15 s and 2.8 GB). Each variant solves them in plan order with one
solver (2^24 entries, one thread), as a build's worker does, alternating by round;
the search's CPU time (``Solver.stats.cpu_seconds``) and nodes. The answers of the
two are compared (they must be equal) and the bounds checked against them (never above
the score). Writes ``benchmarks/results/parent_bounds.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from runinfo import run_info  # noqa: E402

from openingbook.atomicio import write_json_atomic  # noqa: E402
from openingbook.formats import open_book  # noqa: E402
from openingbook.pipeline.build import BuildOptions, plan_build  # noqa: E402
from openingbook.pipeline.enumeration import parse_part  # noqa: E402
from openingbook.pipeline.solving import parent_lower_bounds  # noqa: E402
from openingbook.solver import DEFAULT_BOARD, NO_LOWER_BOUND, Solver  # noqa: E402


def positions(plies: int, part: str | None, under: str | None, chunks: int):
    """The first and mask arrays of ``chunks`` chunks spread evenly over the build's plan."""
    options = BuildOptions(
        plies,
        distances=True,
        under=under,
        part=parse_part(part) if part else None,
        board=DEFAULT_BOARD,
    )
    plan = plan_build(options)
    picked = np.linspace(0, len(plan.chunks) - 1, min(chunks, len(plan.chunks))).astype(int)
    arrays = [plan.chunk_arrays(plan.chunks[i]) for i in sorted(set(picked.tolist()))]
    return [a[0] for a in arrays], [a[1] for a in arrays]


def run(firsts, masks, bounds) -> tuple[float, int, list[np.ndarray]]:
    solver = Solver(24, threads=1)
    answers = [
        solver.solve_many(f, m, lower=b) for f, m, b in zip(firsts, masks, bounds, strict=True)
    ]
    return solver.stats.cpu_seconds, solver.nodes, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plies", type=int, default=15)
    parser.add_argument("--part", default="9/64")
    parser.add_argument("--under")
    parser.add_argument("--chunks", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "parent_bounds.json")
    args = parser.parse_args()
    part = None if args.under else args.part
    start = time.perf_counter()
    firsts, masks = positions(args.plies, part, args.under, args.chunks)
    planned = time.perf_counter() - start
    count = sum(len(f) for f in firsts)
    parent = f"{args.plies - 1}-dist"
    with open_book(parent) as book:
        start = time.perf_counter()
        bounds = [parent_lower_bounds(book, f, m) for f, m in zip(firsts, masks, strict=True)]
        bounding = time.perf_counter() - start
    none = [None] * len(firsts)
    run([firsts[0][:4]], [masks[0][:4]], [None])  # the kernel loaded, outside the timing
    plain_cpu, bounded_cpu = [], []
    for _ in range(args.rounds):
        cpu, plain_nodes, plain = run(firsts, masks, none)
        plain_cpu.append(cpu)
        cpu, bounded_nodes, bounded = run(firsts, masks, bounds)
        bounded_cpu.append(cpu)
    scores = np.concatenate(plain)
    lower = np.concatenate(bounds).astype(np.int64)
    if not np.array_equal(scores, np.concatenate(bounded)):
        sys.exit("the answers with bounds differ from those without")
    known = lower != NO_LOWER_BOUND
    if (lower[known] > scores[known]).any():
        sys.exit("a bound is above its position's score")
    ratio = min(bounded_cpu) / min(plain_cpu)
    results = {
        "benchmark": "a build's searches with and without the parent book's lower bounds",
        **run_info(),
        "plies": args.plies,
        "scope": f"under {args.under}" if args.under else f"part {part}",
        "parent_book": parent,
        "positions": count,
        "plan_seconds": round(planned, 2),
        "bounds_seconds": round(bounding, 3),
        "bounded_share": round(float(known.mean()), 4),
        "tight_share": round(float((lower == scores).mean()), 4),
        "nodes_plain": plain_nodes,
        "nodes_bounded": bounded_nodes,
        "plain_cpu_s": [round(c, 3) for c in plain_cpu],
        "bounded_cpu_s": [round(c, 3) for c in bounded_cpu],
        "bounded_over_plain_best": round(ratio, 3),
        "plain_ms_per_position": round(1000 * min(plain_cpu) / count, 4),
        "bounded_ms_per_position": round(1000 * min(bounded_cpu) / count, 4),
    }
    print(
        f"{count} positions of {args.plies} plies ({results['scope']}): "
        f"bounds in {bounding:.3f} s, tight for {results['tight_share']:.1%}; "
        f"CPU plain {min(plain_cpu):.2f} s, bounded {min(bounded_cpu):.2f} s "
        f"(best of {args.rounds}), bounded/plain {ratio:.3f}; "
        f"nodes {plain_nodes:,} / {bounded_nodes:,}"
    )
    write_json_atomic(args.out, results)
    print(json.dumps({"out": str(args.out)}))


if __name__ == "__main__":
    main()
