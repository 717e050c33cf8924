"""Benchmark: our solver against other solvers on the same positions, in the same run.

Usage: ``python benchmarks/bench_solver.py [--quick] [--sets random,families,...]
[--c4 PATH] [--c4-parallel PATH] [--pons PATH] [--table-log2 N] [--out PATH]``

Position sets, each solved by every engine in the same order, each engine
keeping its transposition table from one position to the next:

(a) random: 300 random 12-ply positions (random legal games from a fixed seed;
    nobody has four, the side to move cannot win at once);
(b) families: every distinct 12-ply descendant of three fixed 8-ply positions
    (same filter), in depth-first order (columns left to right);
(c) random8: 40 random 8-ply positions (same kind as (a));
(d) empty: the empty board (about half a minute per engine);
(e) empty-parallel: the empty board with every engine's parallel search (ours
    with one thread per core, c4's ``--c4-parallel`` binary), timed in wall time.

Engines: ours (single thread), ``bitbully`` (the Python package, if installed:
``BitBullyCore.mtdf(board, 0)``), and, when their binaries are given, Christophe
Steininger's ``c4`` (``--c4``: a batch driver built against c4's solver that
reads one 1-based move string per line on stdin and prints ``moves score cpu_ms
wall_ms``; see benchmarks/DECISIONS.md, "Peers", for the settings that make it like-for-like)
and Pascal Pons' ``c4solver`` (``--pons``: reads move strings on stdin, prints
``moves score``; it reports no times, so its figure is the mean CPU time per
position of the whole run). An engine that is absent is skipped with a message.

Times are CPU time per position (``time.process_time`` for ours and bitbully,
the driver's process CPU clock for c4, the mean for Pons' solver; the
machine is shared, and wall time counts other processes' turns), except for the
parallel set (wall time). With ``--repeat R`` each engine solves every set R
times, alternating engines, each time with a fresh table, and a position's time
is its minimum over the R runs. Ratios are ours / peer, from the same run.

Prints mean / median / p90 milliseconds per position, the ratios, our nodes per
second, disagreements with ours, and the JIT compile time (cold, in a fresh
process with an empty numba cache, and warm from the cache). Writes everything
to ``benchmarks/results/solver.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from openingbook.atomicio import write_json_atomic
from openingbook.solver import Position, Solver

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


#: the position sets (see the module docstring)
SETS = ("random", "families", "random8", "empty", "empty-parallel")
DEFAULT_SETS = ("random", "families", "random8")


def set_positions(name: str, quick: bool) -> list[str]:
    """The move strings of a position set (``""`` is the empty board)."""
    if name == "random":
        return random_positions(40 if quick else RANDOM_COUNT, 12, SEED)
    if name == "families":
        roots = FAMILY_ROOTS[:1] if quick else FAMILY_ROOTS
        family = [m for r in roots for m in descendants(r, 12)]
        return family[:300] if quick else family
    if name == "random8":
        return random_positions(10 if quick else 40, 8, SEED)
    if name in ("empty", "empty-parallel"):
        return [""]
    raise ValueError(f"unknown set {name!r}: choose from {', '.join(SETS)}")


#: an engine: move strings -> (scores, milliseconds per position)
Engine = Callable[[list[str]], tuple[list[int], list[float]]]


def ours(table_log2: int, threads: int = 1, nodes: list[int] | None = None) -> Engine:
    def run(moves: list[str]) -> tuple[list[int], list[float]]:
        solver = Solver(table_log2, threads=threads)
        solver.solve(Position.from_moves(WARMUP))  # load the compiled kernel, not timed
        solver.reset()
        solver.reset_stats()
        # with threads, CPU time counts every thread's: time the wall clock instead
        clock = time.process_time if threads == 1 else time.perf_counter
        scores: list[int] = []
        ms = []
        for m in moves:
            p = Position.from_moves(m)
            # no guess, as solve_many does (the previous score was one until the
            # seventh speed pass: walking from 0 costs fewer nodes)
            t0 = clock()
            scores.append(solver.solve(p))
            ms.append((clock() - t0) * 1000)
        if nodes is not None:
            nodes.append(solver.nodes)
        return scores, ms

    return run


def bitbully_engine() -> Engine | None:
    try:
        from bitbully import bitbully_core as bb
    except ImportError:
        print("bitbully: not installed (pip install bitbully): skipped", flush=True)
        return None

    def run(moves: list[str]) -> tuple[list[int], list[float]]:
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

    return run


def _binary_lines(binary: Path, moves: list[str], args: Sequence[str] = ()) -> list[list[str]]:
    """Run ``binary`` with one move string per stdin line; its output lines, split.

    Lines are read from the right (``score cpu_ms wall_ms`` last), so that the
    empty board's line, whose move string is empty, counts too."""
    text = "".join(f"{m}\n" for m in moves)
    done = subprocess.run(
        [str(binary), *args], input=text, capture_output=True, text=True, check=True
    )
    rows = [line.split() for line in done.stdout.splitlines() if line.strip()]
    rows = [r for r in rows if len(r) >= 3 and r[-3].lstrip("-").isdigit()]
    if len(rows) != len(moves):
        raise RuntimeError(f"{binary}: {len(rows)} answers for {len(moves)} positions")
    return rows


def c4_engine(binary: Path | None, label: str = "--c4") -> Engine | None:
    """c4 through its batch driver (``moves score cpu_ms wall_ms`` per line)."""
    if binary is None:
        print(f"c4: no binary given ({label} PATH): skipped", flush=True)
        return None
    if not binary.is_file():
        print(f"c4: {binary} not found: skipped", flush=True)
        return None
    column = -2 if label == "--c4" else -1  # CPU time single-threaded, else wall time

    def run(moves: list[str]) -> tuple[list[int], list[float]]:
        rows = _binary_lines(binary, moves)
        return [int(r[-3]) for r in rows], [float(r[column]) for r in rows]

    return run


def pons_engine(binary: Path | None) -> Engine | None:
    """Pons' ``c4solver``: prints ``moves score`` per line and no times, so each
    position gets the mean: the child's CPU time over the positions (table
    allocation included). Run in an empty directory: no ``7x6.book`` to load."""
    if binary is None:
        print("pons: no binary given (--pons PATH): skipped", flush=True)
        return None
    if not binary.is_file():
        print(f"pons: {binary} not found: skipped", flush=True)
        return None

    def run(moves: list[str]) -> tuple[list[int], list[float]]:
        text = "".join(f"{m}\n" for m in moves)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with tempfile.TemporaryDirectory() as empty:
            done = subprocess.run(
                [str(binary.resolve())],
                input=text,
                capture_output=True,
                text=True,
                check=True,
                cwd=empty,
            )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rows = [line.split() for line in done.stdout.splitlines() if line.strip()]
        if len(rows) != len(moves):
            raise RuntimeError(f"{binary}: {len(rows)} answers for {len(moves)} positions")
        # the score is the last field (the empty board's line has no move string)
        return [int(r[-1]) for r in rows], [cpu * 1000 / len(moves)] * len(moves)

    return run


def compare(name: str, moves: list[str], engines: dict[str, Engine], repeat: int) -> dict:
    """Every engine on ``moves``, ``repeat`` times alternating; ratios ours / each peer."""
    runs: dict[str, list[list[float]]] = {e: [] for e in engines}
    scores: dict[str, list[int]] = {}
    for _ in range(repeat):
        for engine, run in engines.items():
            scores[engine], ms = run(moves)
            runs[engine].append(ms)
    result: dict = {"positions": len(moves)}
    sums = {e: summary(np.min(r, axis=0).tolist()) for e, r in runs.items()}
    line = f"{name:<15} {len(moves):>5}"
    for engine, s in sums.items():
        entry: dict = dict(s)
        if engine != "ours":
            entry["ratio_mean"] = round(sums["ours"]["mean_ms"] / s["mean_ms"], 3)
            entry["ratio_median"] = round(sums["ours"]["median_ms"] / s["median_ms"], 3)
            disagree = [
                m for m, a, b in zip(moves, scores["ours"], scores[engine], strict=True) if a != b
            ]
            entry["disagreements"] = len(disagree)
            entry["disagreeing_positions"] = disagree[:10]
        result[engine] = entry
        line += f"  {engine} {s['mean_ms']:.2f}/{s['median_ms']:.2f}/{s['p90_ms']:.2f} ms"
        if engine != "ours":
            line += f" (ours/{engine} {entry['ratio_mean']:.2f}, {entry['disagreements']} disagree)"
    print(line, flush=True)
    return result


def compile_times() -> dict[str, float]:
    """Seconds to the first answer in a fresh process: empty numba cache, then warm."""
    code = (
        "import time; t=time.perf_counter(); from openingbook.solver.search import Solver; "
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
    parser.add_argument(
        "--sets",
        default=",".join(DEFAULT_SETS),
        help=f"comma-separated sets from {', '.join(SETS)} (default %(default)s)",
    )
    parser.add_argument("--table-log2", type=int, default=None, help="our table size")
    parser.add_argument("--c4", type=Path, help="c4 batch driver, built single-threaded")
    parser.add_argument("--c4-parallel", type=Path, help="c4 batch driver, built multi-threaded")
    parser.add_argument("--pons", type=Path, help="Pons' c4solver binary")
    parser.add_argument("--no-bitbully", action="store_true", help="leave bitbully out")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "solver.json")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile timing")
    parser.add_argument(
        "--repeat", type=int, default=None, help="runs per engine (default 2, --quick 1)"
    )
    args = parser.parse_args()

    from openingbook.solver.settings import TABLE_LOG2

    table_log2 = args.table_log2 or TABLE_LOG2
    repeat = args.repeat or (1 if args.quick else 2)
    names = [n.strip() for n in args.sets.split(",") if n.strip()]
    unknown = [n for n in names if n not in SETS]
    if unknown:
        parser.error(f"unknown set {unknown[0]!r}: choose from {', '.join(SETS)}")
    nodes: list[int] = []
    peers: dict[str, Engine | None] = {
        "bitbully": None if args.no_bitbully else bitbully_engine(),
        "c4": c4_engine(args.c4),
        "pons": pons_engine(args.pons),
    }
    single = {"ours": ours(table_log2, nodes=nodes)}
    single.update({k: v for k, v in peers.items() if v is not None})
    parallel: dict[str, Engine] = {"ours": ours(table_log2, threads=os.cpu_count() or 1)}
    c4_parallel = (
        c4_engine(args.c4_parallel, "--c4-parallel") if "empty-parallel" in names else None
    )
    if c4_parallel is not None:
        parallel["c4"] = c4_parallel

    print(f"table 2^{table_log2} entries; mean / median / p90 ms per position", flush=True)
    results: dict = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "command": " ".join(["python", "benchmarks/bench_solver.py", *sys.argv[1:]]),
        "quick": args.quick,
        "machine": {
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        },
        "engines": sorted(single),
        "table_log2": table_log2,
        "seed": SEED,
        "family_roots": list(FAMILY_ROOTS[:1] if args.quick else FAMILY_ROOTS),
        "repeat": repeat,
        "timer": "CPU time per position (wall time for empty-parallel), minimum over the runs",
    }
    for name in names:
        moves = set_positions(name, args.quick)
        engines = parallel if name == "empty-parallel" else single
        nodes.clear()
        results[name] = compare(name, moves, engines, repeat)
        if nodes and name != "empty-parallel":
            total = results[name]["ours"]["total_s"] or 1e-9
            results[name]["ours"]["nodes"] = nodes[-1]
            results[name]["ours"]["nodes_per_s"] = round(nodes[-1] / total)
    if not args.no_compile:
        results["compile"] = compile_times()
        print(f"compile: {results['compile']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, results)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
