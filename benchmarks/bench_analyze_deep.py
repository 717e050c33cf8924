"""Benchmark: every move's exact score of positions past the books, ours against Pons'.

Usage: ``python benchmarks/bench_analyze_deep.py [--positions 20] [--stones 12,13,14,16]
[--pons PATH] [--pons-book PATH] [--no-pons-without-book] [--table-log2 25] [--out PATH]``

For each stone count, ``--positions`` random positions (random legal games from a
fixed seed, as in ``bench_solver.py``: nobody has four, the side to move cannot win at
once), each analysed (the exact score of every legal move) by, position after position:

* ``engine``: ``openingbook.engine.Engine().analyze(moves)`` with the shipped books,
  whatever the engine does with them on this checkout;
* ``openingbook.solver``: ``Solver.analyze(moves)``, no book;
* ``pons_book``: Pascal Pons' solver, ``--pons PATH -a -b BOOK`` (his analyze mode:
  the score of every column), with a Pons-format book made by our ``openingbook
  export 12-dist --format pons -o BOOK`` (his solver probes it during the search for
  positions of at most its depth, 12 stones: never below a 12-stone position);
* ``pons``: the same binary without a book (``--no-pons-without-book`` leaves it out).

Every engine starts each position with an empty transposition table (ours:
``reset()``, untimed; Pons' solver: one process per position), so the figures do not
depend on the order of the positions. Times are CPU time: ``time.process_time`` around
our calls (one thread); for Pons' solver, the CPU time a timing driver prints after
the scores (a ``main`` of one's own compiled against his solver, which empties the
table, analyses and prints ``moves s1 .. s7 cpu_ms``: ``benchmarks/DECISIONS.md``), or,
for his ``c4solver``, which prints no times, the child's CPU time (``getrusage``;
under 0.1 s the least of ``--pons-repeat`` processes) minus the least CPU time of the
same command with no position (loading the book, allocating its table, start and
exit; ``overhead_ms`` in the results), measured in the same run: then a few
milliseconds of noise stay in Pons' figures. Every answer is compared with
``openingbook.solver``'s: the engine must agree (else the run stops), Pons' disagreements are
counted and listed.

Prints and writes (``benchmarks/results/analyze-deep.json``) median, p99 (nearest rank:
with fewer than 100 positions, the largest), mean and max milliseconds per
position per engine and stone count, and the ratios of medians and means against
``openingbook.solver`` and against ``pons_book``. Pons' solver absent: its columns are skipped
with a message. Build it as ``benchmarks/DECISIONS.md`` ("Peers") says.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_solver import WARMUP, random_positions
from runinfo import run_info

from openingbook.atomicio import write_json_atomic
from openingbook.engine import Engine
from openingbook.solver import Solver

ROOT = Path(__file__).resolve().parent
#: Pons' analyze mode prints this for a column that cannot be played
PONS_INVALID = -1000
#: Pons' positions faster than this (CPU seconds) are run ``--pons-repeat`` times
REPEAT_BELOW = 0.1
#: an engine: move string -> (scores per column, None if full; CPU seconds)
Analyzer = Callable[[str], tuple[list[int | None], float]]


def summary(seconds: list[float]) -> dict[str, float]:
    """Median, p99, mean and max in milliseconds (p99: nearest rank)."""
    ms = sorted(s * 1000 for s in seconds)
    rank = max(0, min(len(ms) - 1, -(-99 * len(ms) // 100) - 1))
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 3),
        "p99_ms": round(ms[rank], 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "max_ms": round(ms[-1], 3),
    }


def ours(make: Callable[[], Solver], analyze: Callable[[str], list[int | None]]) -> Analyzer:
    """Time ``analyze`` on a fresh table (``make()`` returns the solver to reset)."""

    def run(moves: str) -> tuple[list[int | None], float]:
        make().reset()
        start = time.process_time()
        scores = analyze(moves)
        return scores, time.process_time() - start

    return run


def _child_cpu(argv: list[str], text: str, cwd: str) -> tuple[str, float]:
    """(standard output, CPU seconds of the child) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, input=text, capture_output=True, text=True, check=True, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.stdout, cpu


def pons(
    binary: Path, book: Path | None, workdir: str, repeat: int, rounds: int = 9
) -> tuple[Analyzer, float]:
    """Pons' solver in analyze mode (``-a -b BOOK``), one process per position, and
    its overhead in seconds (the least CPU time of ``rounds`` runs on empty input).

    The CPU time of a position: the number the binary prints after the seven scores
    when it prints one (a timing driver, see ``benchmarks/DECISIONS.md``); else, for
    Pons' own ``c4solver``, the child's CPU time less the overhead, and a position
    that takes less than :data:`REPEAT_BELOW` runs ``repeat`` times and its least
    CPU time counts (minima: the steadiest figures of CPU time on a shared host)."""
    # -b with a name that does not exist: no book (he says so on stderr)
    argv = [str(binary), "-a", "-b", str(book) if book else "no-such-book"]
    overhead = min(_child_cpu(argv, "", workdir)[1] for _ in range(rounds))

    def run(moves: str) -> tuple[list[int | None], float]:
        out, cpu = _child_cpu(argv, f"{moves}\n", workdir)
        fields = out.split()
        if len(fields) not in (8, 9) or fields[0] != moves:
            raise RuntimeError(f"{binary}: unexpected answer {out.strip()!r} for {moves}")
        scores = [None if int(f) == PONS_INVALID else int(f) for f in fields[1:8]]
        if len(fields) == 9:  # the driver's own CPU time of the analysis, milliseconds
            return scores, float(fields[8]) / 1000
        if cpu - overhead < REPEAT_BELOW:  # the overhead's noise matters: repeat
            cpu = min(
                [cpu] + [_child_cpu(argv, f"{moves}\n", workdir)[1] for _ in range(repeat - 1)]
            )
        return scores, max(0.0, cpu - overhead)

    return run, overhead


def prints_times(binary: Path, workdir: str) -> bool:
    """Does the binary print its own CPU time after the scores (a timing driver)?"""
    out, _ = _child_cpu([str(binary), "-a", "-b", "no-such-book"], f"{WARMUP}\n", workdir)
    return len(out.split()) == 9


def book_loaded(binary: Path, book: Path, workdir: str) -> bool:
    """Does Pons' solver load ``book`` (he prints "... done" on stderr when it does)?"""
    done = subprocess.run(
        [str(binary), "-a", "-b", str(book)],
        input="",
        capture_output=True,
        text=True,
        check=True,
        cwd=workdir,
    )
    return done.stderr.strip().endswith("done")


def ratios(rows: dict[str, dict[str, float]], base: str) -> dict[str, dict[str, float]]:
    """``engine / base`` of medians and means, for every other engine of ``rows``."""
    out = {}
    for name, row in rows.items():
        if name != base and base in rows:
            b = rows[base]
            out[name] = {
                "median": round(row["median_ms"] / max(b["median_ms"], 1e-9), 3),
                "mean": round(row["mean_ms"] / max(b["mean_ms"], 1e-9), 3),
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=20, help="positions per stone count")
    parser.add_argument("--stones", default="12,13,14,16", help="comma-separated stone counts")
    parser.add_argument("--pons", type=Path, help="Pons' c4solver binary")
    parser.add_argument(
        "--pons-book",
        type=Path,
        help="Pons-format book for his solver (default: 7x6.book beside the binary)",
    )
    parser.add_argument("--no-pons-without-book", action="store_true")
    parser.add_argument(
        "--pons-repeat", type=int, default=3, help="processes per position (least CPU counts)"
    )
    parser.add_argument("--table-log2", type=int, default=25, help="our solvers' tables")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "analyze-deep.json")
    args = parser.parse_args()
    stones = [int(s) for s in args.stones.split(",") if s.strip()]

    engine = Engine(table_log2=args.table_log2)
    plain = Solver(args.table_log2)
    engine.solver.warm_up()
    plain.warm_up()
    analyzers: dict[str, Analyzer] = {
        "engine": ours(
            lambda: engine.solver,
            lambda m: [None if v is None else v.score for v in engine.analyze(m).moves],
        ),
        "solver": ours(lambda: plain, plain.analyze),
    }
    workdir = tempfile.mkdtemp(prefix="bench-pons-")  # no 7x6.book of anyone's here
    pons_info: dict[str, object] = {"binary": None}
    if args.pons is None:
        print("pons: no binary given (--pons PATH): skipped", flush=True)
    elif not args.pons.is_file():
        print(f"pons: {args.pons} not found: skipped", flush=True)
    else:
        binary = args.pons.resolve()
        book = (args.pons_book or binary.parent / "7x6.book").resolve()
        timer = "driver" if prints_times(binary, workdir) else "child CPU less overhead"
        pons_info = {"binary": str(binary), "book": str(book), "timer": timer, "overhead_ms": {}}
        if not book.is_file():
            print(
                f"pons: no book at {book} (openingbook export 12-dist --format pons -o "
                f"{book}): his solver with a book skipped",
                flush=True,
            )
        elif not book_loaded(binary, book, workdir):
            sys.exit(f"pons: his solver does not load {book}")
        else:
            run, overhead = pons(binary, book, workdir, args.pons_repeat)
            analyzers["pons_book"] = run
            pons_info["overhead_ms"]["pons_book"] = round(overhead * 1000, 2)  # type: ignore[index]
        if not args.no_pons_without_book:
            run, overhead = pons(binary, None, workdir, args.pons_repeat)
            analyzers["pons"] = run
            pons_info["overhead_ms"]["pons"] = round(overhead * 1000, 2)  # type: ignore[index]

    load_before = [round(x, 2) for x in os.getloadavg()]
    started = time.perf_counter()
    by_stones: dict[str, object] = {}
    print(f"CPU ms per position: median / p99 / mean ({', '.join(analyzers)})", flush=True)
    for count in stones:
        times: dict[str, list[float]] = {name: [] for name in analyzers}
        disagree: dict[str, list[str]] = {name: [] for name in analyzers}
        for moves in random_positions(args.positions, count, args.seed + count):
            answers = {}
            for name, run in analyzers.items():
                answers[name], seconds = run(moves)
                times[name].append(seconds)
            for name, scores in answers.items():
                if scores != answers["solver"]:
                    if name == "engine":  # never: the engine is exact
                        raise AssertionError(
                            f"{moves}: engine {scores}, solver {answers['solver']}"
                        )
                    disagree[name].append(moves)
        rows = {name: summary(t) for name, t in times.items()}
        by_stones[str(count)] = {
            "cpu": rows,
            "ratio_to_solver": ratios(rows, "solver"),
            "ratio_to_pons_book": ratios(rows, "pons_book"),
            "disagreements_with_solver": {n: d for n, d in disagree.items() if d},
        }
        line = "  ".join(
            f"{n} {r['median_ms']:.1f}/{r['p99_ms']:.0f}/{r['mean_ms']:.1f}"
            for n, r in rows.items()
        )
        print(f"{count} stones: {line}", flush=True)
        for name, d in disagree.items():
            if d:
                print(f"  {name} disagrees with Solver.analyze on {len(d)}: {d[:5]}", flush=True)
    results = {
        "benchmark": "every move's exact score of random 12..16-stone positions: "
        "Engine.analyze, Solver.analyze (no book), Pons' c4solver -a with and without a book",
        **run_info(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "wall_s": round(time.perf_counter() - started, 1),
        "positions_per_stone_count": args.positions,
        "seed": args.seed,
        "table_log2": args.table_log2,
        "timer": "CPU time per position, each engine from an empty table; Pons: the "
        "driver's own CPU time, or the least child CPU of --pons-repeat processes "
        "minus the least CPU on empty input",
        "pons_repeat": args.pons_repeat,
        "pons": pons_info,
        "by_stones": by_stones,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, results)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
