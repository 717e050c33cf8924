"""Benchmark: throughput of the 12-ply distance-book build, and the full book's cost.

Usage: ``python benchmarks/bench_build.py [--sample 2000] [--strata 8] [--subtree 6
--subtrees 2] [--jobs 2] [--bitbully 200] [--out benchmarks/results/build.json]``

Runs the real pipeline (:func:`openingbook.pipeline.build.build_book`, exact scores,
``--distances``) twice, each in a fresh temporary directory:

* **sample**: ``--sample K`` positions drawn at random from the 4,200,899
  positions of the 12-ply book. Random positions share little, so the solver's
  table helps less than in a full build: a pessimistic figure.
* **subtrees**: every position under ``--subtrees`` random ``--subtree``-move
  lines (6 moves: about 5,000-12,000 positions each), consecutive in the
  enumeration like the chunks of a full build, each worker solving its own run
  of neighbouring chunks: representative of the full build's table reuse, with
  the variance of a few regions of the book.
* **strata** (``--strata K``, default 8): the book's chunk sequence is cut into K
  equal parts and from each part whole, consecutive 1,024-position chunks of the
  full build are solved, exactly as a worker of the full build would get them:
  each worker gets ``--warmup-chunks`` (default 1) chunks and then
  ``--stratum-chunks`` (default 1) timed ones. In a full build every worker
  solves one long run of neighbouring chunks, so all chunks but the first of
  each run start with a table its predecessor filled (9-20% fewer nodes than
  from an empty table, measured): the timed chunks are that steady state, the
  untimed ones are reported apart. Regions of the book differ by a factor of 8
  in cost, so the full book's estimate is the mean over the strata: the
  headline figure (a single region, like ``--blocks``, can be off by 3x).
* **blocks** (``--blocks N``, off by default): a shard of about N whole, consecutive
  1,024-position chunks of the full build.

Throughput per core is positions / CPU seconds of the solving workers (the
machine is shared, so CPU time is the meaningful figure; wall time is recorded
too). The full book's cost is extrapolated: core-hours = 4,200,899 x CPU seconds
per position / 3600, and hours on this machine = core-hours / usable cores.

``--bitbully N`` also solves the first N positions of the sample with
``bitbully`` (``BitBullyCore.mtdf``, table kept between positions) and with our
solver in the same process, one core, same order, and reports the time ratio and
whether all scores agree. ``--bitbully-consecutive N`` (default 256) does the same
on the first N positions of four of the strata, in the build's order (both
engines' tables then help as they would in a build: the like-for-like ratio for a
BitBully-based pipeline). Writes ``benchmarks/results/build.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import openingbook
from openingbook.atomicio import write_json_atomic
from openingbook.formats.thill import manifest_path
from openingbook.memory import default_jobs
from openingbook.pipeline.build import BuildOptions, build_book, plan_build
from openingbook.pipeline.executors import worker_ranges
from openingbook.pipeline.workdir import ChunkResult
from openingbook.solver import DEFAULT_BOARD, Position, Solver, positions_with_moves

ROOT = Path(__file__).resolve().parent
FULL_BOOK_POSITIONS = 4_200_899  # 12-ply book positions (FORMATS.md)
FULL_CHUNK_SIZE = 1024  # the automatic chunk size of the full 12-ply build


def full_book_cost(cpu_seconds_per_position: float) -> dict:
    """Per-core throughput and the full 12-ply distance book's cost at this CPU time/position."""
    core_hours = FULL_BOOK_POSITIONS * cpu_seconds_per_position / 3600
    return {
        "cpu_ms_per_position": round(1000 * cpu_seconds_per_position, 2),
        "positions_per_second_per_core": round(1 / cpu_seconds_per_position, 1),
        "full_book_core_hours": round(core_hours, 2),
        "full_book_hours_on_this_machine": round(core_hours / default_jobs(), 2),
    }


def run_build(
    options: BuildOptions,
    jobs: int,
    table_log2: int | None,
    on_chunk: Callable[[ChunkResult], None] | None = None,
) -> dict:
    """Build into a temporary directory; return the timing part of the manifest."""
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        out = Path(tmp) / "bench.dat"
        summary = build_book(
            out,
            options,
            jobs=jobs,
            table_log2=table_log2,
            progress=sys.stderr.isatty(),
            on_chunk=on_chunk,
        )
        manifest = json.loads(manifest_path(out).read_text())
    cpu = manifest["time"]["solve_cpu_seconds"]
    positions = summary.positions
    return {
        "positions": positions,
        "chunks": summary.chunks,
        "chunk_size": manifest["chunks"]["size"],
        "jobs": jobs,
        "wall_seconds": summary.wall_seconds,
        "solve_cpu_seconds": round(cpu, 2),
        "positions_per_second_wall": round(positions / summary.wall_seconds, 1),
        "values": summary.values,
        **full_book_cost(cpu / positions),
    }


def compare_bitbully(first: np.ndarray, mask: np.ndarray, table_log2: int | None) -> dict:
    """Our solver and bitbully on the same positions, in the same order, one core,
    each keeping its table from one position to the next: CPU time per position."""
    import bitbully.bitbully_core as bb

    pairs = zip(first.tolist(), mask.tolist(), strict=True)
    moves = [Position.from_bitboards(f, m).some_moves() for f, m in pairs]

    ours = Solver() if table_log2 is None else Solver(table_log2=table_log2)
    ours.solve_many(first[:1], mask[:1])  # compile / load the cache outside the timing
    ours.reset()
    start = time.process_time()
    our_scores = ours.solve_many(first, mask).tolist()
    our_cpu = time.process_time() - start

    engine = bb.BitBullyCore()
    boards = []
    for line in moves:
        board = bb.BoardCore()
        if not board.play([int(c) - 1 for c in line]):
            raise RuntimeError(f"bitbully refused the moves {line}")
        boards.append(board)
    start = time.process_time()
    their_scores = [engine.mtdf(board, 0) for board in boards]
    their_cpu = time.process_time() - start
    disagree = sum(a != b for a, b in zip(our_scores, their_scores, strict=True))
    return {
        "positions": len(moves),
        "ours_cpu_ms_per_position": round(1000 * our_cpu / len(moves), 2),
        "bitbully_cpu_ms_per_position": round(1000 * their_cpu / len(moves), 2),
        "time_ratio_ours_over_bitbully": round(our_cpu / their_cpu, 3),
        "scores_disagree": disagree,
        "bitbully_full_book_core_hours": round(
            FULL_BOOK_POSITIONS * their_cpu / len(moves) / 3600, 1
        ),
    }


def strata_shards(strata: int, per_worker: int, args: argparse.Namespace) -> list[tuple[int, int]]:
    """The shard (index, count) of each stratum: a random one in each of ``strata``
    equal parts of the book (``--seed``), a shard being one stratum's chunks."""
    chunks = -(-FULL_BOOK_POSITIONS // FULL_CHUNK_SIZE)
    shards = chunks // (args.jobs * per_worker)
    rng = np.random.default_rng(args.seed)
    picks = []
    for k in range(strata):
        low, high = k * shards // strata, (k + 1) * shards // strata
        picks.append((1 + int(low + rng.integers(high - low)), shards))
    return picks


def compare_bitbully_consecutive(
    shards: list[tuple[int, int]], count: int, table_log2: int | None
) -> dict:
    """Both solvers on the build's own order: the first ``count`` positions of four
    of the strata (evenly spaced), each engine starting from an empty table in each
    stratum and keeping it from one position to the next, as a build's worker does."""
    picked = [shards[i * len(shards) // 4] for i in range(min(4, len(shards)))]
    parts = []
    for index, count_of_shards in picked:
        options = BuildOptions(
            plies=12,
            distances=True,
            shard=(index, count_of_shards),
            chunk_size=FULL_CHUNK_SIZE,
            board=DEFAULT_BOARD,
        )
        plan = plan_build(options)
        first, mask = plan.chunk_arrays(plan.chunks[0])
        both = compare_bitbully(first[:count], mask[:count], table_log2)
        parts.append({"shard": f"{index}/{count_of_shards}"} | both)
        print(json.dumps({"bitbully_stratum": parts[-1]}), flush=True)
    ours = sum(p["ours_cpu_ms_per_position"] for p in parts) / len(parts)
    theirs = sum(p["bitbully_cpu_ms_per_position"] for p in parts) / len(parts)
    return {
        "runs": parts,
        "positions": sum(p["positions"] for p in parts),
        "scores_disagree": sum(p["scores_disagree"] for p in parts),
        "ours_cpu_ms_per_position": round(ours, 2),
        "bitbully_cpu_ms_per_position": round(theirs, 2),
        "time_ratio_ours_over_bitbully": round(ours / theirs, 3),
        "bitbully_full_book_core_hours": round(FULL_BOOK_POSITIONS * theirs / 1000 / 3600, 1),
    }


def run_strata(strata: int, per_stratum: int, warmup: int, args: argparse.Namespace) -> dict:
    """Whole full-build chunks from each of ``strata`` equal parts of the book.

    A full build's worker solves one long run of neighbouring chunks, so every
    chunk but the first of each run starts with a table that its predecessor
    filled. Each stratum reproduces that steady state: every worker gets
    ``warmup + per_stratum`` consecutive chunks, and only the last
    ``per_stratum`` count (the cold first chunks are reported apart).
    """
    runs = []
    for index, shards in strata_shards(strata, warmup + per_stratum, args):
        options = BuildOptions(
            plies=12,
            distances=True,
            shard=(index, shards),
            chunk_size=FULL_CHUNK_SIZE,
            board=DEFAULT_BOARD,
        )
        done: list = []
        run = run_build(options, args.jobs, args.table_log2, on_chunk=done.append)
        first_chunk = min(c.chunk_id for c in done)
        # the chunks each worker started on (as the pool hands them out), warmed up on
        cold = {
            first_chunk + start + i
            for start, _ in worker_ranges(len(done), args.jobs)
            for i in range(warmup)
        }
        timed = [c for c in done if c.chunk_id not in cold]
        cpu = sum(c.cpu_seconds for c in timed)
        positions = sum(len(c) for c in timed)
        runs.append(
            {"shard": f"{index}/{shards}", "all_chunks": run}
            | {"timed_positions": positions, "timed_cpu_seconds": round(cpu, 2)}
            | full_book_cost(cpu / positions)
        )
        print(json.dumps({"stratum": runs[-1]}), flush=True)
    # each stratum stands for 1/strata of the book: the unweighted mean per position
    per_position = sum(r["timed_cpu_seconds"] / r["timed_positions"] for r in runs) / len(runs)
    cold_per_position = sum(
        r["all_chunks"]["solve_cpu_seconds"] / r["all_chunks"]["positions"] for r in runs
    ) / len(runs)
    ms = [r["cpu_ms_per_position"] for r in runs]
    return {
        "runs": runs,
        "warmup_chunks_per_worker": warmup,
        "timed_chunks_per_worker": per_stratum,
        "positions": sum(r["timed_positions"] for r in runs),
        "cpu_ms_per_position_min_max": [min(ms), max(ms)],
        "with_warmup_chunks": full_book_cost(cold_per_position),
        **full_book_cost(per_position),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=2000, help="random positions (>= 2000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the sample")
    parser.add_argument("--subtree", type=int, default=6, help="moves of the random lines")
    parser.add_argument("--subtrees", type=int, default=2, help="how many random lines")
    parser.add_argument("--strata", type=int, default=8, help="regions of the book to time")
    parser.add_argument(
        "--stratum-chunks", type=int, default=1, help="timed chunks per worker and region"
    )
    parser.add_argument(
        "--warmup-chunks", type=int, default=1, help="untimed chunks before them (warm table)"
    )
    parser.add_argument("--blocks", type=int, default=0, help="whole full-build chunks to time")
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="worker processes")
    parser.add_argument("--table-log2", type=int, default=None, help="solver table size")
    parser.add_argument("--bitbully", type=int, default=200, help="positions for bitbully")
    parser.add_argument(
        "--bitbully-consecutive",
        type=int,
        default=256,
        help="consecutive positions of 4 strata for bitbully, in the build's order",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "build.json")
    args = parser.parse_args()

    results: dict = {
        "benchmark": "12-ply --distances build (exact scores)",
        "command": " ".join(["python", "benchmarks/bench_build.py", *sys.argv[1:]]),
        "machine": {
            "cores_usable": default_jobs(),
            "cpu": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
            "note": "shared with other engineers' jobs during the run: wall times are "
            "inflated; per-core figures use the workers' own CPU time",
        },
        "openingbook_version": openingbook.__version__,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    sample = BuildOptions(
        plies=12, distances=True, sample=args.sample, seed=args.seed, board=DEFAULT_BOARD
    )
    if args.sample:
        results["sample"] = run_build(sample, args.jobs, args.table_log2)
        print(json.dumps({"sample": results["sample"]}), flush=True)

    if args.subtree and args.subtrees:
        _, _, lines = positions_with_moves(args.subtree, None, *DEFAULT_BOARD)
        picks = np.random.default_rng(args.seed).choice(len(lines), args.subtrees, replace=False)
        runs = []
        for i in picks.tolist():
            line = lines[i].decode()
            subtree = BuildOptions(plies=12, distances=True, under=line, board=DEFAULT_BOARD)
            runs.append({"under": line} | run_build(subtree, args.jobs, args.table_log2))
            print(json.dumps({"subtree": runs[-1]}), flush=True)
        positions = sum(r["positions"] for r in runs)
        cpu = sum(r["solve_cpu_seconds"] for r in runs)
        results["subtrees"] = {
            "runs": runs,
            "positions": positions,
            "solve_cpu_seconds": round(cpu, 2),
            **full_book_cost(cpu / positions),
        }

    if args.strata:
        results["strata"] = run_strata(args.strata, args.stratum_chunks, args.warmup_chunks, args)
    if args.blocks:
        chunks = -(-FULL_BOOK_POSITIONS // FULL_CHUNK_SIZE)
        shards = chunks // args.blocks
        index = 1 + np.random.default_rng(args.seed).integers(shards)
        blocks = BuildOptions(
            plies=12,
            distances=True,
            shard=(int(index), shards),
            chunk_size=FULL_CHUNK_SIZE,
            board=DEFAULT_BOARD,
        )
        results["blocks"] = {"shard": f"{index}/{shards}"} | run_build(
            blocks, args.jobs, args.table_log2
        )
        print(json.dumps({"blocks": results["blocks"]}), flush=True)

    if args.bitbully:
        plan = plan_build(sample)
        results["bitbully"] = compare_bitbully(
            plan.first[: args.bitbully], plan.mask[: args.bitbully], args.table_log2
        )
        print(json.dumps({"bitbully": results["bitbully"]}), flush=True)
    if args.bitbully_consecutive:
        shards = strata_shards(max(args.strata, 4), args.warmup_chunks + args.stratum_chunks, args)
        results["bitbully_consecutive"] = compare_bitbully_consecutive(
            shards, args.bitbully_consecutive, args.table_log2
        )
        print(json.dumps({"bitbully_consecutive": results["bitbully_consecutive"]}), flush=True)
    results["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, results)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
