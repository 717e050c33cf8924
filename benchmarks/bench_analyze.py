"""Benchmark: analysing positions with the engine (every column's exact value).

Usage: ``python benchmarks/bench_analyze.py [--positions 10000] [--deep 20] [--probe 10]
[--runs 9] [--out PATH]`` (``0`` for a count skips its part)

1. ``--positions`` random positions of 0..11 stones (as many of each ply; random games
   in which nobody has won and the side to move cannot win at once, as in
   ``bench_solver.py``), shuffled, analysed one by one through the library,
   ``Engine().analyze(moves)`` with the shipped books, timed per call after
   one untimed analysis per ply (so that every book is open): median, p99, max.
   Goal (issue 25): median <= 1 ms, p99 <= 5 ms. Also the thread's CPU time per call:
   on a loaded host a call that is descheduled waits 10 ms or more, which is the
   wall time's tail, not the engine's.
2. ``--deep`` random positions of each of 12..16 stones: the engine (its children have
   no book: it searches them) against ``Solver.analyze`` without any book, each with
   its own solver of the same table size, alternating position by position; nodes
   and the nodes the engine's search answered from a book (none: a search only adds
   stones, and these positions have more than the deepest shipped 7x6 book).
3. ``--probe`` random positions of each ply below a book, where the search meets the
   book's ply and probes it (``Solver(book=...)``, :func:`openingbook.engine.book_probe`):
   on 7x6 ``Solver.analyze`` probing the 12-ply distance book against the solver
   without a book at 6, 8 and 10 stones; on 6x5 the engine with its shipped 14-ply book
   (which probes it for positions of 0..4 stones, more than eight plies above it, and
   backs the rest up by negamax) against ``Solver.analyze`` without a book at 2, 3, 4,
   6 and 8 stones, and at 6 and 8 stones also ``Solver.analyze`` probing the 14-ply
   book; the time and memory of reading each probe.
4. ``openingbook analyze ""`` as whole processes, start to exit, interleaved with
   ``python -c pass`` (the floor) over ``--runs`` rounds, with the bytecode cache on
   (see ``bench_startup.py``). Goal: 0.2 s.

Writes ``benchmarks/results/analyze.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_solver import random_positions
from bench_startup import ENTRY, run_once
from runinfo import run_info

from openingbook.api import open_book
from openingbook.atomicio import write_json_atomic
from openingbook.engine import Engine, book_probe
from openingbook.solver import BoardSize, Position, Solver

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent


def summary(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 4),
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 4),
        "mean_ms": round(statistics.fmean(ms), 4),
        "max_ms": round(ms[-1], 4),
    }


def bench_shallow(count: int, seed: int) -> dict[str, object]:
    engine = Engine()
    todo = [m for plies in range(12) for m in random_positions(-(-count // 12), plies, seed)]
    random.Random(seed).shuffle(todo)
    for plies in range(12):  # open every book first: a server keeps them open
        engine.analyze(random_positions(1, plies, seed + 1)[0])
    times: list[float] = []
    cpu: list[float] = []
    by_ply: dict[int, list[float]] = {}
    sources: dict[str, int] = {}
    for moves in todo:
        start = time.perf_counter()
        start_cpu = time.thread_time()
        analysis = engine.analyze(moves)
        cpu.append(time.thread_time() - start_cpu)
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        by_ply.setdefault(len(moves), []).append(elapsed)
        for move in analysis.moves:
            if move is not None:
                sources[move.source] = sources.get(move.source, 0) + 1
    return {
        "positions": len(todo),
        "plies": "0..11, as many of each",
        "all": summary(times),
        # the thread's CPU time: on a loaded host the wall time's tail is the scheduler's
        "all_cpu": summary(cpu),
        "by_ply": {str(p): summary(t) for p, t in sorted(by_ply.items())},
        "move_sources": sources,
        "goal": {"median_ms": 1.0, "p99_ms": 5.0},
    }


def random_board_positions(count: int, plies: int, seed: int, board: BoardSize) -> list[str]:
    """:func:`random_positions` on any board (move strings of random legal games)."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        pos = Position(width=board.width, height=board.height)
        for _ in range(plies):
            moves = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
            if not moves:
                break
            pos = pos.play(rng.choice(moves))
        if pos.stone_count == plies and not pos.can_win_next():
            out.append(pos.to_moves())
    return out


def compare(
    name: str,
    first: Callable[[str], list[int | None]],
    first_solver: Solver,
    second: Callable[[str], list[int | None]],
    second_solver: Solver,
    positions: list[str],
) -> dict[str, object]:
    """Both ways of analysing each position, alternating, with the nodes and book hits of
    each one's solver; raises if they disagree (never: both are exact)."""
    times: tuple[list[float], list[float]] = ([], [])
    nodes: tuple[list[int], list[int]] = ([], [])
    hits = [0, 0]
    for moves in positions:
        answers = []
        for i, (way, solver) in enumerate(((first, first_solver), (second, second_solver))):
            solver.reset_stats()
            start = time.perf_counter()
            answers.append(way(moves))
            times[i].append(time.perf_counter() - start)
            nodes[i].append(solver.nodes)
            hits[i] += solver.book_hits
        if answers[0] != answers[1]:
            raise AssertionError(f"{moves}: {answers[0]} != {answers[1]}")
    other = "solver_analyze_without_book"
    return {
        name: summary(times[0]) | {"median_nodes": statistics.median(nodes[0])},
        other: summary(times[1]) | {"median_nodes": statistics.median(nodes[1])},
        f"{name}_book_hits": hits[0],
    }


def engine_scores(engine: Engine) -> Callable[[str], list[int | None]]:
    def scores(moves: str) -> list[int | None]:
        return [None if m is None else m.score for m in engine.analyze(moves).moves]

    return scores


def bench_deep(per_ply: int, seed: int, table_log2: int) -> dict[str, object]:
    engine = Engine(table_log2=table_log2)
    plain = Solver(table_log2=table_log2)
    engine.solver.warm_up()
    plain.warm_up()
    out: dict[str, object] = {}
    for plies in range(12, 17):
        out[str(plies)] = compare(
            "engine",
            engine_scores(engine),
            engine.solver,
            plain.analyze,
            plain,
            random_positions(per_ply, plies, seed),
        )
    return {"positions_per_ply": per_ply, "table_log2": table_log2, "by_ply": out}


def load_probe(name: str) -> tuple[Any, dict[str, object]]:
    """The probe of a shipped book, with the seconds and bytes it took."""
    start = time.perf_counter()
    with open_book(name) as book:
        probe = book_probe([book])
    seconds = time.perf_counter() - start
    return probe, {
        "book": name,
        "positions": len(probe),
        "megabytes": round(probe.nbytes / 1e6, 1),
        "read_seconds": round(seconds, 2),
    }


def bench_probe(per_ply: int, seed: int, table_log2: int) -> dict[str, object]:
    probe12, loaded12 = load_probe("12-dist")
    probing = Solver(table_log2=table_log2, book=probe12)
    plain = Solver(table_log2=table_log2)
    probing.warm_up()
    seven: dict[str, object] = {}
    for plies in (6, 8, 10):
        row = compare(
            "solver_analyze_probing",
            probing.analyze,
            probing,
            plain.analyze,
            plain,
            random_positions(per_ply, plies, seed),
        )
        seven[str(plies)] = row
        print(f"7x6 {plies} stones: {row}")
    board = BoardSize(6, 5)
    probe14, loaded14 = load_probe("14-dist-6x5")  # timed alone: the engine reads its own
    engine = Engine(board=board, table_log2=table_log2)
    plain65 = Solver(table_log2=table_log2, width=6, height=5)
    engine.analyze("")  # starts reading the probe (timed above)
    engine.wait_for_probes()
    six: dict[str, object] = {}
    probing65 = Solver(table_log2=table_log2, width=6, height=5, book=probe14)
    for plies in (2, 3, 4, 6, 8):
        positions = random_board_positions(per_ply, plies, seed, board)
        row = compare(
            "engine",
            engine_scores(engine),
            engine.solver,
            plain65.analyze,
            plain65,
            positions,
        )
        if plies > 4:  # the engine backs these up by negamax: the probing search instead
            probing_row = compare(
                "solver_analyze_probing",
                probing65.analyze,
                probing65,
                plain65.analyze,
                plain65,
                positions,
            )
            del probing_row["solver_analyze_without_book"]  # the same solver again
            row |= probing_row
        six[str(plies)] = row
        print(f"6x5 {plies} stones: {row}")
    return {
        "positions_per_ply": per_ply,
        "table_log2": table_log2,
        "probes": [loaded12, loaded14],
        "7x6_solver_with_the_12_ply_probe": seven,
        "6x5_engine_with_its_14_ply_book": six,
    }


def bench_startup(runs: int) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    todo = {
        "python -c pass": [sys.executable, "-c", "pass"],
        'analyze ""': [sys.executable, "-c", ENTRY, "analyze", ""],
    }
    for argv in todo.values():  # untimed: the bytecode, native and file caches
        run_once(argv, env, REPO)
    walls: dict[str, list[float]] = {name: [] for name in todo}
    cpus: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(runs):
        for name, argv in todo.items():
            wall, cpu = run_once(argv, env, REPO)
            walls[name].append(wall)
            cpus[name].append(cpu)
    return {
        name: {
            "median_wall_s": round(statistics.median(walls[name]), 3),
            "min_wall_s": round(min(walls[name]), 3),
            "median_cpu_s": round(statistics.median(cpus[name]), 3),
        }
        for name in todo
    } | {"runs": runs, "goal_s": 0.2}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--deep", type=int, default=20, help="positions per ply of 12..16")
    parser.add_argument("--probe", type=int, default=10, help="positions per ply below a book")
    parser.add_argument("--runs", type=int, default=9, help="start-up rounds")
    parser.add_argument("--table-log2", type=int, default=24)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "analyze.json")
    args = parser.parse_args()
    results: dict[str, object] = {}
    if args.positions:
        shallow = bench_shallow(args.positions, args.seed)
        print("0..11 stones:", shallow["all"])
        print("0..11 stones, CPU:", shallow["all_cpu"])
        results["shallow"] = shallow
    if args.deep:
        deep = bench_deep(args.deep, args.seed, args.table_log2)
        for plies, row in deep["by_ply"].items():  # type: ignore[union-attr]
            print(f"{plies} stones: engine {row['engine']}, hits {row['engine_book_hits']}")
            print(f"{'':>9} Solver.analyze {row['solver_analyze_without_book']}")
        results["deep"] = deep
    if args.probe:
        results["probe"] = bench_probe(args.probe, args.seed, args.table_log2)
    if args.runs:
        startup = bench_startup(args.runs)
        print("start-up:", startup)
        results["startup"] = startup
    results = {
        "benchmark": "analysis of positions: every column's exact value (openingbook.engine)",
        **run_info(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    } | results
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, results)


if __name__ == "__main__":
    main()
