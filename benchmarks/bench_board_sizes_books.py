"""Cost of complete opening books on other board sizes, measured on a sample.

For each ``WxH:PLIES`` case the book positions of the ply are enumerated (exactly as
``openingbook build --size WxH --plies PLIES`` does), a random sample of them is
solved in enumeration order (the build's order: related positions share the
solver's table) with one solver, as exact scores (distance book) and as
win/draw/loss (pruned book), and the CPU time per position extrapolates the
build: positions x mean seconds per position, in core-hours. The sample
is spread over the whole enumeration (every k-th position from a random
offset), so early and late subtrees count alike; a sample of one solver and
one thread ignores the table reuse of a full build's long runs of neighbours,
so the extrapolation errs on the high side.

Boards where one position can take minutes (8x7, 9x6: their empty boards are not
solved within two minutes here) are measured with ``--cap SECONDS``: each sampled
position is solved in a child process limited to that much CPU time (``RLIMIT_CPU``);
a position cut off counts as ``cap`` seconds, so the extrapolation is a lower bound
(reported as such, with the number of positions cut off).

    python benchmarks/bench_board_sizes_books.py [--sample 60] [--budget 600] \\
        [--cases 8x7:8 9x6:8 6x5:10] [--table-log2 22] [--cap 30 --kinds wdl]

Results go to ``benchmarks/results/board_sizes_books.json`` (one row per case:
positions, sample, seconds per position for both kinds, extrapolated core-hours,
or the reason the size is not solved: the solver's refusal, or the budget).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "board_sizes_books.json"
KINDS = ("distance", "wdl")
DEFAULT_CASES = ("8x7:8", "9x6:8", "6x5:10", "6x5:12", "6x6:8", "8x5:8", "5x4:10", "4x4:8")


def _capped_child(width: int, height: int, table_log2: int, wdl: bool, cap: float, f, m, out):
    """Child process: solve one position under a CPU-time limit, put its CPU seconds."""
    import resource

    from openingbook.solver import Solver

    solver = Solver(table_log2=table_log2, width=width, height=height)
    solver.warm_up()
    used = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    resource.setrlimit(resource.RLIMIT_CPU, (int(used + cap) + 1, int(used + cap) + 2))
    t0 = time.process_time()
    solver.solve_many(np.array([f], np.uint64), np.array([m], np.uint64), wdl=wdl)
    out.put(time.process_time() - t0)


def measure_capped(
    width: int,
    height: int,
    plies: int,
    sample: int,
    cap: float,
    table_log2: int,
    seed: int,
    kinds: list[str],
) -> dict[str, object]:
    """One case with a CPU cap per position (child processes): a lower bound."""
    import multiprocessing as mp
    import queue

    from openingbook.solver import enumerate_positions

    row: dict[str, object] = {"board": f"{width}x{height}", "plies": plies, "cap_seconds": cap}
    first, mask = enumerate_positions(plies, None, width, height)
    row["positions"] = int(first.size)
    n = min(sample, first.size)
    step = first.size // n
    offset = int(np.random.default_rng(seed).integers(step))
    picks = offset + step * np.arange(n)
    ctx = mp.get_context("fork")
    for kind in kinds:
        times, cut = [], 0
        for i in picks:
            out = ctx.Queue()
            child = ctx.Process(
                target=_capped_child,
                args=(width, height, table_log2, kind == "wdl", cap, first[i], mask[i], out),
            )
            child.start()
            child.join()
            try:
                times.append(min(cap, out.get(timeout=1)))
            except queue.Empty:  # killed at the CPU limit
                times.append(cap)
                cut += 1
        per = float(np.mean(times))
        row[f"{kind}_solved"] = n - cut
        row[f"{kind}_cut_off_at_cap"] = cut
        row[f"{kind}_cpu_seconds_each"] = [round(t, 2) for t in times]
        row[f"{kind}_seconds_per_position"] = round(per, 3)
        row[f"{kind}_core_hours"] = round(per * first.size / 3600, 1)
        row[f"{kind}_core_hours_is"] = "a lower bound" if cut else "an estimate"
    print(json.dumps(row), flush=True)
    return row


def measure(
    width: int, height: int, plies: int, sample: int, budget: float, table_log2: int, seed: int
) -> dict[str, object]:
    """One case: enumerate, sample, solve (exact, then win/draw/loss), extrapolate."""
    from openingbook.solver import Solver, enumerate_positions

    row: dict[str, object] = {"board": f"{width}x{height}", "plies": plies}
    try:
        solver = Solver(table_log2=table_log2, width=width, height=height)
    except ValueError as exc:
        row["refused"] = str(exc)
        return row
    start = time.perf_counter()
    first, mask = enumerate_positions(plies, None, width, height)
    row["positions"] = int(first.size)
    row["enumerate_seconds"] = round(time.perf_counter() - start, 3)
    n = min(sample, first.size)
    step = first.size // n
    offset = int(np.random.default_rng(seed).integers(step))
    picks = offset + step * np.arange(n)
    solver.warm_up()
    for kind, wdl in (("distance", False), ("wdl", True)):
        solver.reset()
        spent, done = 0.0, 0
        for i in picks:
            t0 = time.process_time()
            solver.solve_many(first[i : i + 1], mask[i : i + 1], wdl=wdl)
            spent += time.process_time() - t0
            done += 1
            if spent > budget:
                break
        per = spent / done
        row[f"{kind}_solved"] = done
        row[f"{kind}_cpu_seconds"] = round(spent, 3)
        row[f"{kind}_seconds_per_position"] = round(per, 5)
        row[f"{kind}_core_hours"] = round(per * first.size / 3600, 3)
        if done < n:
            row[f"{kind}_note"] = f"budget of {budget:.0f} s reached after {done} of {n}"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=list(DEFAULT_CASES), metavar="WxH:PLIES")
    parser.add_argument("--sample", type=int, default=60, help="positions solved per case")
    parser.add_argument("--budget", type=float, default=600.0, help="CPU seconds per case+kind")
    parser.add_argument("--table-log2", type=int, default=22)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--cap", type=float, help="CPU seconds per position (child processes): a lower bound"
    )
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    args = parser.parse_args()
    from openingbook.solver import parse_board_size

    rows = []
    for case in args.cases:
        size, _, plies = case.partition(":")
        board = parse_board_size(size)
        if args.cap:
            rows.append(
                measure_capped(
                    board.width,
                    board.height,
                    int(plies),
                    args.sample,
                    args.cap,
                    args.table_log2,
                    args.seed,
                    args.kinds,
                )
            )
            continue
        row = measure(
            board.width,
            board.height,
            int(plies),
            args.sample,
            args.budget,
            args.table_log2,
            args.seed,
        )
        rows.append(row)
        print(json.dumps(row), flush=True)
    result = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "sample": args.sample,
        "table_log2": args.table_log2,
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(
        f"{'board':>6} {'ply':>4} {'positions':>11} {'dist s/pos':>11} {'dist h':>9} "
        f"{'wdl s/pos':>10} {'wdl h':>8}"
    )
    for r in rows:
        if "cap_seconds" in r:
            for kind in args.kinds:
                print(
                    f"{r['board']:>6} {r['plies']:>4} {r['positions']:>11,} {kind}: "
                    f"{r[f'{kind}_seconds_per_position']} s/position, "
                    f"{r[f'{kind}_core_hours']} core-hours ({r[f'{kind}_core_hours_is']}; "
                    f"{r[f'{kind}_cut_off_at_cap']} cut off at {r['cap_seconds']} s)"
                )
            continue
        if "refused" in r:
            print(f"{r['board']:>6} {r['plies']:>4}  refused: {r['refused']}")
            continue
        print(
            f"{r['board']:>6} {r['plies']:>4} {r['positions']:>11,} "
            f"{r['distance_seconds_per_position']:>11} {r['distance_core_hours']:>9} "
            f"{r['wdl_seconds_per_position']:>10} {r['wdl_core_hours']:>8}"
        )


if __name__ == "__main__":
    main()
