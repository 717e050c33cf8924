"""Benchmark: the cost of a ply's distance book (14 plies unless ``--plies``), from
strata of its parts.

Usage: ``python benchmarks/bench_build_parts.py [--plies 14] [--parts 32] [--strata 8]
[--warmup 256] [--timed 1024] [--seed 1] [--out benchmarks/results/buildP-strata.json]
[--pons PATH]``

The 14- and 15-ply books are built in parts (``openingbook build --plies P
--distances --part i/n``, see ``docs/BOOK14.md``, ``docs/BOOK15.md``): part ``i`` of
``n`` holds the positions whose canonical key hashes to ``i``
(:func:`openingbook.solver.enumerate.part_of`), in the enumeration's order, and one worker solves
a part's chunks in that order, keeping its table. Each stratum reproduces that: a part
spread evenly over ``1..n`` is enumerated, a random window of ``warmup + timed``
consecutive positions of it is solved by one fresh solver (exact scores, as the
build), and only the last ``timed`` count. The book's estimate is the
mean CPU time per position over the strata times the book's positions (the strata's
part sizes times ``n``, an estimate; ``openingbook enumerate --plies P`` counts them),
in core-hours, beside the 12-ply book's (``FULL_12_CORE_HOURS``, the ninth pass).
With ``--pons PATH`` (Pascal Pons' ``c4solver``, built as ``benchmarks/DECISIONS.md``
"Peers" says) every window is also solved by his solver, without an opening book, in
one fresh process (its table kept from position to position, as ours): its CPU time for
the timed positions (the run of the warm-up alone subtracted), its scores compared with
ours, and its core-hours for the whole book, as a ratio to ours.
Writes ``benchmarks/results/buildP-strata.json`` (``P``: the plies).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import resource
import time
from pathlib import Path

import numpy as np
from cross_pons import pons_scores

from openingbook.atomicio import write_json_atomic
from openingbook.solver import DEFAULT_BOARD, Position, Solver, enumerate_positions

ROOT = Path(__file__).resolve().parent
#: The 12-ply distance book's measured cost (benchmarks/README, ninth pass, median).
FULL_12_CORE_HOURS = 2.81


def pons_cpu_seconds(binary: Path, moves: list[str]) -> tuple[float, list[int]]:
    """CPU seconds (user + system) of one run of Pons' solver on ``moves``, and its scores."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    scores = pons_scores(binary, moves)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, scores


def run_pons(binary: Path, first: np.ndarray, mask: np.ndarray, warmup: int) -> dict:
    """The same window solved by Pons' solver, one fresh process (a fresh table, as our
    fresh solver): the warm-up alone, then warm-up and timed, the difference timed."""
    moves = [
        Position.from_bitboards(int(f), int(m), *DEFAULT_BOARD).some_moves()
        for f, m in zip(first, mask, strict=True)
    ]
    warm_cpu, _ = pons_cpu_seconds(binary, moves[:warmup])
    cpu, scores = pons_cpu_seconds(binary, moves)
    n = len(moves) - warmup
    return {
        "timed_cpu_seconds": round(cpu - warm_cpu, 3),
        "cpu_ms_per_position": round(1000 * (cpu - warm_cpu) / n, 3),
        "scores": scores[warmup:],
    }


def run_stratum(
    plies: int,
    part: int,
    parts: int,
    warmup: int,
    timed: int,
    rng: np.random.Generator,
    pons: Path | None = None,
) -> dict:
    """Solve ``warmup + timed`` consecutive positions of one part; time the last ``timed``
    (and with ``pons``, the same window by Pons' solver, its scores compared)."""
    start = time.perf_counter()
    first, mask = enumerate_positions(plies, None, *DEFAULT_BOARD, part=(part, parts))
    enumerate_seconds = time.perf_counter() - start
    length = warmup + timed
    at = int(rng.integers(0, max(1, len(first) - length)))
    solver = Solver()
    solver.warm_up()
    solver.solve_many(first[at : at + warmup], mask[at : at + warmup])
    # the solver's own CPU time: it searches in a thread of its own (interruptible)
    cpu = solver.stats.cpu_seconds
    scores = solver.solve_many(first[at + warmup : at + length], mask[at + warmup : at + length])
    cpu = solver.stats.cpu_seconds - cpu
    n = min(timed, len(first) - at - warmup)
    run = {
        "part": f"{part}/{parts}",
        "part_positions": len(first),
        "window_start": at,
        "timed_positions": n,
        "timed_cpu_seconds": round(cpu, 3),
        "cpu_ms_per_position": round(1000 * cpu / n, 3),
        "enumerate_seconds": round(enumerate_seconds, 2),
    }
    if pons is not None:
        peer = run_pons(pons, first[at : at + length], mask[at : at + length], warmup)
        disagree = int(np.count_nonzero(np.asarray(peer.pop("scores")) != scores))
        if disagree:
            raise SystemExit(f"part {part}/{parts}: Pons' solver differs on {disagree} scores")
        run["pons"] = peer
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plies", type=int, default=14, help="stones of the book's positions")
    parser.add_argument("--parts", type=int, default=32, help="parts of the book")
    parser.add_argument("--strata", type=int, default=8, help="parts to time, evenly spread")
    parser.add_argument("--warmup", type=int, default=256, help="untimed positions first")
    parser.add_argument("--timed", type=int, default=1024, help="timed positions per stratum")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="[results/buildP-strata.json]")
    parser.add_argument("--pons", type=Path, help="Pons' c4solver: the same windows, side by side")
    args = parser.parse_args()
    out = args.out or ROOT / "results" / f"build{args.plies}-strata.json"
    rng = np.random.default_rng(args.seed)
    runs = []
    for k in range(args.strata):
        part = 1 + k * args.parts // args.strata + int(rng.integers(args.parts // args.strata))
        runs.append(
            run_stratum(args.plies, part, args.parts, args.warmup, args.timed, rng, args.pons)
        )
        print(json.dumps(runs[-1]), flush=True)
    ms = sum(r["cpu_ms_per_position"] for r in runs) / len(runs)
    positions = round(args.parts * sum(r["part_positions"] for r in runs) / len(runs))
    core_hours = positions * ms / 1000 / 3600
    result = {
        "command": "python benchmarks/bench_build_parts.py "
        f"--plies {args.plies} --parts {args.parts} --strata {args.strata} --warmup {args.warmup} "
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
    if args.pons:
        result["command"] += f" --pons {args.pons.name}"
        pons_ms = sum(r["pons"]["cpu_ms_per_position"] for r in runs) / len(runs)
        result["pons"] = {
            "solver": args.pons.name,
            "sha256": hashlib.sha256(args.pons.read_bytes()).hexdigest(),
            "cpu_ms_per_position": round(pons_ms, 3),
            "full_book_core_hours": round(positions * pons_ms / 1000 / 3600, 2),
            "ratio_pons_to_ours": round(pons_ms / ms, 2),
            "scores_compared": sum(r["timed_positions"] for r in runs),
        }
    write_json_atomic(out, result)
    print(json.dumps({k: v for k, v in result.items() if k != "runs"}, indent=1))


if __name__ == "__main__":
    main()
