"""Benchmark: the first use's light kernel beside the fast one (solver._firstuse).

Usage: ``python benchmarks/bench_light_kernel.py [--stones 12,16] [--count 40]
[--rounds 3] [--seed 1] [--out PATH]``

The light kernel is the copy of the search without the mirror code serving every node: a
first run uses it while the fast kernel compiles in the background. Same positions
(random games of each stone count, the side to move not winning at once), each solved by
a fresh solver (2^22 entries, one thread) with the fast kernel and with the light one,
alternating by round; the search's CPU time (``Solver.stats.cpu_seconds``) and nodes
(more for the light kernel where the fast one's mirror code prunes a symmetric
position's moves). Both kernels are loaded first (compiled if needed), outside the
timing.
Writes
``benchmarks/results/light_kernel.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from bench_solver import random_positions  # noqa: E402
from runinfo import run_info  # noqa: E402

from openingbook.atomicio import write_json_atomic  # noqa: E402
from openingbook.solver import Position, Solver, _firstuse  # noqa: E402

REAL_CHOOSE = _firstuse.choose


def light(fast, light, args, variant):
    return light


def sample(stones: int, count: int, seed: int) -> list[Position]:
    """Random games of ``stones`` stones (bench_solver's), the side to move not winning."""
    return [Position.from_moves(m) for m in random_positions(count, stones, seed * 1000 + stones)]


def run(positions: list[Position], use_light: bool) -> tuple[float, int]:
    _firstuse.choose = light if use_light else REAL_CHOOSE
    cpu, nodes = 0.0, 0
    for pos in positions:
        solver = Solver(22, threads=1)
        solver.solve(pos)
        cpu += solver.stats.cpu_seconds
        nodes += solver.nodes
    return cpu, nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stones", default="12,16")
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "light_kernel.json")
    args = parser.parse_args()
    warm = sample(10, 1, 0)
    run(warm, False)
    run(warm, True)
    rows = {}
    for stones in (int(s) for s in args.stones.split(",")):
        positions = sample(stones, args.count, args.seed)
        fast_cpu, light_cpu = [], []
        for _ in range(args.rounds):
            cpu, fast_nodes = run(positions, False)
            fast_cpu.append(cpu)
            cpu, light_nodes = run(positions, True)
            light_cpu.append(cpu)
        ratio = min(light_cpu) / min(fast_cpu)
        rows[stones] = {
            "positions": len(positions),
            "nodes_fast": fast_nodes,
            "nodes_light": light_nodes,
            "fast_cpu_s": [round(c, 3) for c in fast_cpu],
            "light_cpu_s": [round(c, 3) for c in light_cpu],
            "light_over_fast_best": round(ratio, 3),
        }
        print(
            f"{stones} stones: fast {min(fast_cpu):.3f} s, light {min(light_cpu):.3f} s "
            f"(best of {args.rounds}), light/fast {ratio:.3f}, "
            f"nodes {fast_nodes:,} / {light_nodes:,}"
        )
    results = {
        "benchmark": "light kernel beside the fast one: CPU and nodes per position set",
        **run_info(),
        "rows": rows,
    }
    write_json_atomic(args.out, results)
    print(json.dumps({"out": str(args.out)}))


if __name__ == "__main__":
    main()
