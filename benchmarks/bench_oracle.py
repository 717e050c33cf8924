"""Benchmark: the batched oracle against BitBully (and Pons' solver) on positions of
random games, in the configuration users get.

Usage: ``python benchmarks/bench_oracle.py [--positions 1000] [--batch 4096]
[--seed S] [--pons PATH] [--out PATH]`` (``0`` for a count skips its part)

Nothing is switched off: the benchmark first leaves the machine as a user's first runs
leave it, their background compiles done (``runinfo.wait_for_background_compiles``;
the first use is its own figure, ``bench_first_use.py``), then times fresh oracles,
the opening of their books and their first batch included.

1. ``--positions`` positions sampled from random games (uniformly random legal moves
   until the game ends; one position per game, its stone count uniform over the game's
   positions that are not over: 0 to 41 stones). Every move's exact score of each
   position, side by side in one run:

   * BitBully's ``BitBully().score_all_moves(board)`` with its default opening book
     (``pip install bitbully``, the ``bench`` extra), one call per position (its
     book read before timing);
   * ours one position per call, ``Oracle().analyze([moves])`` (a fresh oracle);
   * ours the whole set in one call, ``Oracle().analyze(moves)`` (another);
   * ours in one call per band of stones (0-8, 9-15, 16-25, 26-41), a fresh oracle
     each (the median of ``BAND_REPEATS``), against BitBully's CPU on the same positions;
   * with ``--pons PATH`` (a ``c4solver`` built from Pons' public source; ``make`` in a
     checkout) ``c4solver -a`` reading the positions on its standard input, CPU time of
     the child process, against ours (one batch, a fresh oracle) and BitBully's on the
     same positions. Pons' repository has no opening book: ``--pons-book 7x6.book``
     gives it one (``openingbook export 12-dist --format pons -o 7x6.book``). It is
     given the positions of at least ``--pons-min-stones`` stones (default 8 with a
     book, 14 without): shallower ones take it seconds (with the 12-ply book: 6.5 s
     for ``44``) to minutes each.

   CPU time (``time.process_time``: both engines run in this process, one thread):
   total, median, 99th percentile and slowest. Goals (issue 43): one batch at most
   0.1 of BitBully's CPU, one call per position at most 0.3, every band in a batch at
   most BitBully's. Every position's seven scores are compared with BitBully's (and
   Pons'), and with ours for the same positions in every other layout: a disagreement
   is reported and fails the run.
2. ``--batch`` positions of random games of 0 to 13 stones in one ``analyze`` call, and
   as many of 0 to 14 stones (7x6: every child of either in a shipped book, the 15-ply
   distance book the deepest): positions per CPU second (the median of
   ``BATCH_REPEATS`` calls), and the children the engine had to search (0 when the
   books answer them all). Goal: 200,000 per second.
3. Memory: the resident size of a fresh process (``/proc/self/statm``) after an oracle
   answered the ``--batch`` positions of up to 14 stones (lookups only), then after it
   answered 1,000 positions of 16 to 41 stones (searches).

Writes ``benchmarks/results/oracle.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from runinfo import machine_info, wait_for_background_compiles

from openingbook.atomicio import write_json_atomic
from openingbook.layouts import LAYOUTS, write_boards
from openingbook.oracle import FULL_COLUMN, Oracle
from openingbook.solver import Position

ROOT = Path(__file__).resolve().parent
SEED = 20261127
#: timed calls of each batch (the median is reported)
BATCH_REPEATS = 9


def random_game_positions(count: int, seed: int, most_stones: int = 41) -> list[str]:
    """Move strings of positions of random games: each game plays uniformly random legal
    moves until it is over; one position per game, uniform over its positions that are
    not over and have at most ``most_stones`` stones."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        pos = Position()
        line = [pos]
        while not pos.is_full():
            col = rng.choice(pos.legal_moves())
            if pos.is_winning_move(col):
                break
            pos = pos.play(col)
            line.append(pos)
        candidates = [p for p in line if not p.is_full() and p.stone_count <= most_stones]
        out.append(rng.choice(candidates).to_moves())
    return out


#: the bands of stone counts the goals name
BANDS = ((0, 8), (9, 15), (16, 25), (26, 41))
#: fresh oracles timed on each band's positions (the median is reported)
BAND_REPEATS = 5


def timed_first_batch(positions: list[str]) -> tuple[Any, float]:
    """A fresh oracle's answer to ``positions`` in one call, and the CPU seconds of
    making the oracle and of that first call (its books opened on the way)."""
    t = time.process_time()
    answer = Oracle().analyze(positions)
    return answer, time.process_time() - t


def summary(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {
        "n": len(ms),
        "total_s": round(sum(ms) / 1000, 4),
        "median_ms": round(statistics.median(ms), 4),
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 4),
        "max_ms": round(ms[-1], 4),
    }


def bitbully_scores(agent: Any, moves: str) -> list[int]:
    from bitbully import Board

    board = Board([int(c) - 1 for c in moves])
    got = agent.score_all_moves(board)
    return [int(got.get(c, FULL_COLUMN)) for c in range(7)]


def pons_scores(
    binary: str, positions: list[str], book: str | None
) -> tuple[list[list[int]], float]:
    """Every position's scores from ``c4solver -a`` (one line per position; ``book``: its
    ``-b`` opening book), and the child's CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [binary, "-a", *(["-b", book] if book else [])],
        input="".join(p + "\n" for p in positions),
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    out = []
    for line in done.stdout.splitlines():
        fields = line.split()
        # "moves s1 ... s7" (an empty position: the scores alone); -1000 for a full column
        values = [int(v) for v in fields[-7:]]
        out.append([FULL_COLUMN if v == -1000 else v for v in values])
    return out, cpu


def bench_positions(
    count: int, seed: int, pons: str | None, pons_book: str | None, pons_min_stones: int
) -> dict[str, Any]:
    from bitbully import BitBully

    positions = random_game_positions(count, seed)
    stones = [len(p) for p in positions]
    agent = BitBully()
    warm = random_game_positions(10, seed + 1)
    for moves in warm:  # untimed: BitBully's book read
        bitbully_scores(agent, moves)
    bb_times, ours_times, bb_all = [], [], []
    ours_single = []
    t = time.process_time()
    oracle = Oracle()  # its books are opened as its first calls need them: timed
    made = time.process_time() - t
    for moves in positions:
        t = time.process_time()
        bb_all.append(bitbully_scores(agent, moves))
        bb_times.append(time.process_time() - t)
        t = time.process_time()
        answer = oracle.analyze([moves])
        ours_times.append(time.process_time() - t)
        ours_single.append(answer.scores[0].tolist())
    ours_times[0] += made
    batch, batch_cpu = timed_first_batch(positions)
    batch_oracle = Oracle()
    ours = batch.scores.tolist()
    bands = {}
    for low, high in BANDS:
        rows = [i for i, n in enumerate(stones) if low <= n <= high]
        # a fresh oracle's first batch, BAND_REPEATS times (a band's batch can take a
        # millisecond): the median
        runs = [timed_first_batch([positions[i] for i in rows]) for _ in range(BAND_REPEATS)]
        band, cpu = runs[0][0], statistics.median(c for _, c in runs)
        spread = [round(min(c for _, c in runs), 4), round(max(c for _, c in runs), 4)]
        bitbully_cpu = sum(bb_times[i] for i in rows)
        bands[f"{low}-{high}"] = {
            "positions": len(rows),
            "ours_batch_cpu_s": round(cpu, 4),
            "ours_batch_cpu_s_min_max": spread,
            "bitbully_cpu_s": round(bitbully_cpu, 4),
            "ratio": round(cpu / bitbully_cpu, 4) if bitbully_cpu else None,
            "ours_one_per_call_cpu_s": round(sum(ours_times[i] for i in rows), 4),
        }
        if band.scores.tolist() != [ours[i] for i in rows]:
            bands[f"{low}-{high}"]["differs_from_the_whole_batch"] = True
    # the same positions in every array layout (and as 0-based actions): the same scores
    layouts_differ = []
    for layout in LAYOUTS:
        if layout == "moves":
            continue
        if layout == "actions":
            again = batch_oracle.analyze([[int(c) - 1 for c in m] for m in positions], layout)
        else:
            again = batch_oracle.analyze(write_boards(layout, batch.first, batch.mask), layout)
        if again.scores.tolist() != ours:
            layouts_differ.append(layout)
    disagree = [
        {"moves": m, "ours": o, "bitbully": b}
        for m, o, b, s in zip(positions, ours, bb_all, ours_single, strict=True)
        if o != b or s != o
    ]
    result: dict[str, Any] = {
        "positions": count,
        "seed": seed,
        "stones_histogram": np.bincount(stones, minlength=42).tolist(),
        "bitbully": {"book": agent.opening_book_type, **summary(bb_times)},
        "ours_one_per_call": summary(ours_times),
        "ours_one_batch_cpu_s": round(batch_cpu, 4),
        "ratio_total_one_per_call": round(sum(ours_times) / sum(bb_times), 4),
        "ratio_total_batch": round(batch_cpu / sum(bb_times), 4),
        "bands": bands,
        "ratio_max": round(max(ours_times) / max(bb_times), 4),
        "ratio_p99": round(
            summary(ours_times)["p99_ms"] / max(summary(bb_times)["p99_ms"], 1e-9), 4
        ),
        "disagreements_with_bitbully": disagree[:20],
        "disagreement_count": len(disagree)
        + len(layouts_differ)
        + sum(1 for b in bands.values() if b.get("differs_from_the_whole_batch")),
        "layouts_checked": [name for name in LAYOUTS if name != "moves"],
        "layouts_that_differ": layouts_differ,
    }
    slowest = sorted(range(count), key=lambda i: -ours_times[i])[:5]
    result["ours_slowest"] = [
        {"moves": positions[i], "ms": round(ours_times[i] * 1000, 2)} for i in slowest
    ]
    if pons:
        rows = [i for i, n in enumerate(stones) if n >= pons_min_stones]
        subset = [positions[i] for i in rows]
        pons_all, pons_cpu = pons_scores(pons, subset, pons_book)
        _, subset_cpu = timed_first_batch(subset)  # a fresh oracle: a fresh table
        bitbully_cpu = sum(bb_times[i] for i in rows)
        result["pons"] = {
            "book": pons_book or "none",
            "positions": len(subset),
            "min_stones": pons_min_stones,
            "pons_cpu_s": round(pons_cpu, 4),
            "bitbully_cpu_s": round(bitbully_cpu, 4),
            "ours_one_per_call_cpu_s": round(sum(ours_times[i] for i in rows), 4),
            "ours_batch_cpu_s": round(subset_cpu, 4),
            "ratio_batch_vs_pons": round(subset_cpu / pons_cpu, 4),
            "ratio_batch_vs_bitbully": round(subset_cpu / bitbully_cpu, 4),
            "disagreements": [
                {"moves": m, "ours": ours[i], "pons": p}
                for m, i, p in zip(subset, rows, pons_all, strict=True)
                if ours[i] != p
            ][:20],
        }
        result["disagreement_count"] += len(result["pons"]["disagreements"])
    return result


def bench_batch(count: int, seed: int) -> dict[str, Any]:
    oracle = Oracle()
    out: dict[str, Any] = {}
    for most in (13, 14):
        positions = random_game_positions(count, seed + most, most_stones=most)
        oracle.analyze(positions[:200])  # untimed: kernels and books
        before = oracle.engine.solver.stats.positions
        cpus = []
        for _ in range(BATCH_REPEATS):  # a batch takes milliseconds: the median of a few
            t = time.process_time()
            answer = oracle.analyze(positions)
            cpus.append(time.process_time() - t)
            if len(cpus) == 1:  # of the first call
                searched = oracle.engine.solver.stats.positions - before
        cpu = statistics.median(cpus)
        out[f"at_most_{most}_stones"] = {
            "positions": count,
            "repeats": BATCH_REPEATS,
            "cpu_s": round(cpu, 4),
            "cpu_s_min_max": [round(min(cpus), 4), round(max(cpus), 4)],
            "positions_per_cpu_s": round(count / cpu),
            # the children no shipped book answered, searched by the engine's solver
            "children_searched": searched,
            "rows_of_14_stones": int(sum(len(p) == 14 for p in positions)),
            "answered": int(answer.answered.sum()),
        }
    return out


#: a fresh process: its resident size (MiB) after lookups only, then after searches
_MEMORY = """
import json, os, sys
sys.path.insert(0, {root!r})
from bench_oracle import random_game_positions
from openingbook.oracle import Oracle
def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
out = {{"after_import_mib": round(rss(), 1)}}
oracle = Oracle()
oracle.analyze(random_game_positions({count}, {seed}, most_stones=14))
out["after_lookups_mib"] = round(rss(), 1)
deep = [m for m in random_game_positions(6000, {seed} + 1) if len(m) >= 16][:1000]
oracle.analyze(deep)
out["after_searches_mib"] = round(rss(), 1)
out["searched_positions"] = len(deep)
out["table_mib"] = round(oracle.engine.solver.table.nbytes / 2**20, 1)
print(json.dumps(out))
"""


def bench_memory(count: int, seed: int) -> dict[str, Any]:
    code = _MEMORY.format(root=str(ROOT), count=count, seed=seed)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--pons", help="path of Pons' c4solver binary")
    parser.add_argument(
        "--pons-book",
        help="an opening book for Pons' solver (openingbook export 12-dist --format pons)",
    )
    parser.add_argument(
        "--pons-min-stones",
        type=int,
        help="give Pons' solver the positions of at least this many stones (default 8 with "
        "--pons-book, 14 without: shallower ones take it seconds to minutes each)",
    )
    parser.add_argument("--out", default=str(ROOT / "results" / "oracle.json"))
    args = parser.parse_args()
    waited = wait_for_background_compiles()
    result: dict[str, Any] = {
        **machine_info(),
        "configuration": "default (no switches)",
        "background_compiles_waited_s": round(waited, 1),
        "load_before": os.getloadavg(),
    }
    if args.positions:
        result["random_games"] = bench_positions(
            args.positions,
            args.seed,
            args.pons,
            args.pons_book,
            args.pons_min_stones
            if args.pons_min_stones is not None
            else (8 if args.pons_book else 14),
        )
        print(json.dumps(result["random_games"], indent=1), flush=True)
    if args.batch:
        result["batch"] = bench_batch(args.batch, args.seed)
        print(json.dumps(result["batch"], indent=1), flush=True)
        result["memory"] = bench_memory(args.batch, args.seed)
        print(json.dumps(result["memory"], indent=1), flush=True)
    result["load_after"] = os.getloadavg()
    write_json_atomic(Path(args.out), result)
    return 1 if result.get("random_games", {}).get("disagreement_count", 0) else 0


if __name__ == "__main__":
    raise SystemExit(main())
