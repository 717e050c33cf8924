"""Benchmark: our solver against bitbully's MTD(f) on the same 12-ply positions.

Usage: ``python benchmarks/bench_solver.py [--quick] [--table-log2 N] [--out PATH]``

Two position sets, each solved by both engines in the same order, each engine
keeping its transposition table from one position to the next:

(a) random: 300 random 12-ply positions (random legal games from a fixed seed;
    nobody has four, the side to move cannot win at once);
(b) families: every distinct 12-ply descendant of three fixed 8-ply positions
    (same filter), in depth-first order (columns left to right).

Times are CPU time of this process (``time.process_time``: the machine is
shared, and wall time counts other processes' turns); with ``--repeat R`` each
engine solves every set R times, alternating, each time with a fresh table,
and a position's time is its minimum over the R runs.

Prints mean / median / p90 milliseconds per position, the ratio ours/bitbully,
nodes per second, disagreements between the two engines, and the JIT compile
time (cold, in a fresh process with an empty numba cache, and warm from the
cache). Writes everything to ``benchmarks/results/solver.json``.

Needs the ``bitbully`` package (``pip install bitbully``, extra ``bench``).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from openingbook.atomicio import write_json_atomic
from solver import Position
from solver.search import Solver

ROOT = Path(__file__).resolve().parent
SEED = 20240607
RANDOM_COUNT = 300
FAMILY_ROOTS = ("44444365", "43534253", "33452566")  # 1-based 8-ply move strings
WARMUP = "2252576253462244111563365343671351441"  # a 37-stone position, solved at once


def random_positions(count: int, plies: int, seed: int) -> list[str]:
    """Move strings of random legal games: nobody has four, side to move cannot win."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        pos = Position()
        for _ in range(plies):
            moves = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
            if not moves:
                break
            pos = pos.play(rng.choice(moves))
        if pos.stone_count == plies and not pos.can_win_next():
            out.append(pos.to_moves())
    return out


def descendants(root: str, plies: int) -> list[str]:
    """Distinct ``plies``-stone descendants of ``root``, depth-first, same filter."""
    seen: set[Position] = set()
    out: list[str] = []

    def walk(pos: Position) -> None:
        if pos.stone_count == plies:
            if not pos.can_win_next() and pos not in seen:
                seen.add(pos)
                out.append(pos.to_moves())
            return
        for col in pos.legal_moves():
            if not pos.is_winning_move(col):
                walk(pos.play(col))

    walk(Position.from_moves(root))
    return out


def summary(ms: list[float]) -> dict[str, float]:
    a = np.array(ms)
    return {
        "mean_ms": round(float(a.mean()), 3),
        "median_ms": round(float(np.median(a)), 3),
        "p90_ms": round(float(np.percentile(a, 90)), 3),
        "total_s": round(float(a.sum() / 1000), 3),
    }


def run_ours(moves: list[str], table_log2: int) -> tuple[list[int], list[float], int]:
    solver = Solver(table_log2)
    solver.solve(Position.from_moves(WARMUP))  # load the compiled kernel, not timed
    solver.reset()
    solver.reset_stats()
    positions = [Position.from_moves(m) for m in moves]
    scores: list[int] = []
    ms = []
    for p in positions:
        # the previous score as a first guess, as solve_many and `solve --file` do
        t0 = time.process_time()
        scores.append(solver.solve(p, guess=scores[-1] if scores else None))
        ms.append((time.process_time() - t0) * 1000)
    return scores, ms, solver.nodes


def run_bitbully(moves: list[str]) -> tuple[list[int], list[float]]:
    from bitbully import bitbully_core as bb

    engine = bb.BitBullyCore()
    boards = []
    for m in moves:
        board = bb.BoardCore()
        if not board.play([int(c) - 1 for c in m]):
            raise RuntimeError(f"bitbully rejected {m}")
        boards.append(board)
    scores, ms = [], []
    for board in boards:
        t0 = time.process_time()
        scores.append(int(engine.mtdf(board, 0)))
        ms.append((time.process_time() - t0) * 1000)
    return scores, ms


def compare(name: str, moves: list[str], table_log2: int, repeat: int = 1) -> dict:
    ours_runs, theirs_runs = [], []
    for _ in range(repeat):
        ours, ms, nodes = run_ours(moves, table_log2)
        ours_runs.append(ms)
        theirs, ms = run_bitbully(moves)
        theirs_runs.append(ms)
    ours_ms = np.min(ours_runs, axis=0).tolist()
    theirs_ms = np.min(theirs_runs, axis=0).tolist()
    disagree = [m for m, a, b in zip(moves, ours, theirs, strict=True) if a != b]
    o, t = summary(ours_ms), summary(theirs_ms)
    result = {
        "positions": len(moves),
        "ours": {**o, "nodes": nodes, "nodes_per_s": round(nodes / (o["total_s"] or 1e-9))},
        "bitbully": t,
        "ratio_mean": round(o["mean_ms"] / t["mean_ms"], 3),
        "ratio_median": round(o["median_ms"] / t["median_ms"], 3),
        "disagreements": len(disagree),
        "disagreeing_positions": disagree[:10],
    }
    print(
        f"{name:<10} {len(moves):>5}  ours {o['mean_ms']:7.2f} / {o['median_ms']:7.2f} / "
        f"{o['p90_ms']:7.2f} ms   bitbully {t['mean_ms']:7.2f} / {t['median_ms']:7.2f} / "
        f"{t['p90_ms']:7.2f} ms   ratio {result['ratio_mean']:.2f} (median "
        f"{result['ratio_median']:.2f})   {result['ours']['nodes_per_s'] / 1e6:.1f} M nodes/s   "
        f"disagreements {len(disagree)}",
        flush=True,
    )
    return result


def compile_times() -> dict[str, float]:
    """Seconds to the first answer in a fresh process: empty numba cache, then warm."""
    code = (
        "import time; t=time.perf_counter(); from solver.search import Solver; "
        'Solver(16).solve("2252576253462244111563365343671351441"); print(time.perf_counter()-t)'
    )
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("cold_compile_s", "warm_from_cache_s"):
            res = subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
            )
            out[label] = round(float(res.stdout.strip()), 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sets, for a smoke run")
    parser.add_argument("--table-log2", type=int, default=None, help="our table size")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "solver.json")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile timing")
    parser.add_argument(
        "--repeat", type=int, default=None, help="runs per engine (default 2, --quick 1)"
    )
    args = parser.parse_args()

    import bitbully

    from solver.table import DEFAULT_LOG2

    table_log2 = args.table_log2 or DEFAULT_LOG2
    repeat = args.repeat or (1 if args.quick else 2)
    count = 40 if args.quick else RANDOM_COUNT
    roots = FAMILY_ROOTS[:1] if args.quick else FAMILY_ROOTS
    rand = random_positions(count, 12, SEED)
    family = [m for r in roots for m in descendants(r, 12)]
    if args.quick:
        family = family[:300]

    print(f"table 2^{table_log2} entries; mean / median / p90 per position", flush=True)
    results = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "quick": args.quick,
        "machine": {
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
        },
        "bitbully_version": getattr(bitbully, "__version__", "unknown"),
        "table_log2": table_log2,
        "seed": SEED,
        "family_roots": list(roots),
        "repeat": repeat,
        "timer": "process_time, minimum over the runs",
        "random": compare("random", rand, table_log2, repeat),
        "families": compare("families", family, table_log2, repeat),
    }
    if not args.no_compile:
        results["compile"] = compile_times()
        print(f"compile: {results['compile']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, results)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
