"""The empty board of every published board size, solved from scratch and compared.

For each board in :data:`openingbook.checks.published.BOARD_RESULTS` (Tromp's and Steininger's
tables: who wins the empty board under perfect play, and on which move the game ends)
that fits the solver (width x (height + 1) <= 64 bits, even and odd numbers of cells),
the empty board is solved in a child process with a time budget
(``--budget`` seconds, default 120), smallest boards first. Each row records the size,
our outcome and last move, the published ones, whether they agree, the time and the
nodes; boards over the budget are recorded as not solved. The budget is CPU time of the
solve (``seconds``; ``wall_seconds`` beside it), so that a machine shared with other jobs
gives the same verdicts as an idle one. Results go to
``benchmarks/results/board_sizes.json``.

    python benchmarks/bench_board_sizes.py [--budget 120] [--table-log2 24] [--jobs 2]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing as mp
import os
import platform
import signal
import subprocess
import threading
import time
from pathlib import Path

from openingbook.checks.published import BOARD_RESULTS

RESULTS = Path(__file__).resolve().parent / "results" / "board_sizes.json"


def solve_empty(width: int, height: int, table_log2: int, budget: float, out: mp.Queue) -> None:
    """Child process: solve the empty board, put (score, CPU seconds, wall seconds, nodes)
    on ``out``; the kernel stops it (SIGXCPU) when the solve has used ``budget`` CPU
    seconds."""
    import resource

    from openingbook.solver import Position, Solver

    solver = Solver(table_log2=table_log2, width=width, height=height)
    solver.warm_up()
    cpu = time.process_time()
    limit = int(cpu + budget) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 10))
    start = time.perf_counter()
    score = solver.solve(Position.from_bitboards(0, 0, width, height))
    cpu = time.process_time() - cpu
    out.put((score, cpu, time.perf_counter() - start, solver.nodes))


def outcome(score: int, width: int, height: int) -> tuple[str, int]:
    """(winner of the empty board, the move on which the game ends) from its score."""
    from openingbook.solver import plies_from_score, winner_from_score

    return str(winner_from_score(score, 0)), plies_from_score(score, 0, width, height)


def fits(width: int, height: int) -> str | None:
    """Why the solver cannot take this board, or None."""
    from openingbook.solver import check_board_size

    try:
        check_board_size(width, height)
    except ValueError:
        return "more than 64 bits"
    return None


def run_board(width: int, height: int, budget: float, table_log2: int) -> dict:
    """Solve one board's empty position in a child process; its row of the results."""
    published_winner, published_last = BOARD_RESULTS[(width, height)]
    row = {
        "size": f"{width}x{height}",
        "published": {"winner": published_winner, "last_move": published_last},
    }
    reason = fits(width, height)
    if reason:
        print(f"{row['size']}: skipped ({reason})", flush=True)
        return {**row, "status": f"skipped: {reason}"}
    context = mp.get_context("spawn")  # started from a thread: no fork
    queue = context.Queue()
    child = context.Process(target=solve_empty, args=(width, height, table_log2, budget, queue))
    child.start()
    # the budget is CPU time, enforced in the child: on a machine shared with other
    # jobs, wall time says more about the neighbours than about the solver
    child.join(budget * 30 + 60)
    over = f"not solved within {budget:.0f} CPU seconds"
    if child.is_alive():
        child.kill()
        child.join()
        print(f"{row['size']}: {over} (wall-clock limit)", flush=True)
        return {**row, "status": over + " (wall-clock limit)"}
    if child.exitcode == -signal.SIGXCPU:
        print(f"{row['size']}: {over}", flush=True)
        return {**row, "status": over}
    if child.exitcode != 0:
        print(f"{row['size']}: failed", flush=True)
        return {**row, "status": f"failed (exit code {child.exitcode})"}
    score, seconds, wall, nodes = queue.get(timeout=10)
    if seconds > budget:  # the kernel's limit is whole seconds
        print(f"{row['size']}: {over} ({seconds:.1f})", flush=True)
        return {**row, "status": over, "seconds": round(seconds, 3)}
    winner, last = outcome(score, width, height)
    agree = (winner, last) == (published_winner, published_last)
    print(
        f"{row['size']}: {winner} ({last}), published {published_winner} ({published_last})"
        f" {'agree' if agree else 'DISAGREE'}; {seconds:.2f} CPU s ({wall:.2f} s wall),"
        f" {nodes:,} nodes",
        flush=True,
    )
    return {
        **row,
        "status": "solved",
        "score": score,
        "winner": winner,
        "last_move": last,
        "agrees": agree,
        "seconds": round(seconds, 3),
        "wall_seconds": round(wall, 3),
        "nodes": nodes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=120.0, help="CPU seconds per board")
    parser.add_argument("--only", nargs="*", default=None, help="these sizes only (e.g. 8x7)")
    parser.add_argument("--table-log2", type=int, default=24)
    parser.add_argument("--max-cells", type=int, default=64)
    parser.add_argument("--jobs", type=int, default=1, help="boards solved at once")
    parser.add_argument(
        "--resume", action="store_true", help="keep the boards the results file has (same settings)"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help=f"default {RESULTS.name} (not with --only)"
    )
    args = parser.parse_args()

    boards = [
        (width, height)
        for width, height in sorted(BOARD_RESULTS, key=lambda wh: (wh[0] * wh[1], wh))
        if width * height <= args.max_cells
        and (args.only is None or f"{width}x{height}" in args.only)
    ]
    if args.out is None:
        if args.only is not None:
            args.out = Path(os.devnull)  # a partial run does not replace the committed results
        else:
            args.out = RESULTS
    settings = {"budget_cpu_seconds": args.budget, "table_log2": args.table_log2}
    done: dict[str, dict] = {}
    if args.resume and args.out.exists():
        previous = json.loads(args.out.read_text())
        if previous.get("settings") == settings:
            done = {r["size"]: r for r in previous["boards"]}
            print(f"resuming: {len(done)} boards from {args.out}", flush=True)
    lock = threading.Lock()

    def run(wh: tuple[int, int]) -> None:
        size = f"{wh[0]}x{wh[1]}"
        if size in done:
            return
        row = run_board(*wh, args.budget, args.table_log2)
        with lock:
            done[size] = row
            write_results(args, settings, boards, done)

    # boards in parallel (--jobs): each child's budget is its own CPU time, so the
    # verdicts do not depend on how many run at once
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(run, boards))
    write_results(args, settings, boards, done)
    print(f"wrote {args.out}")


def write_results(
    args: argparse.Namespace,
    settings: dict,
    boards: list[tuple[int, int]],
    done: dict[str, dict],
) -> None:
    """The results so far, in board order (after every board: ``--resume`` goes on)."""
    if args.out == Path(os.devnull):
        return
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    rows = [done[f"{w}x{h}"] for w, h in boards if f"{w}x{h}" in done]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(
        json.dumps(
            {
                "command": "python benchmarks/bench_board_sizes.py"
                f" --budget {args.budget:g} --table-log2 {args.table_log2} --jobs {args.jobs}",
                "settings": settings,
                "complete": len(rows) == len(boards),
                "commit": commit,
                "machine": platform.machine(),
                "date": time.strftime("%Y-%m-%d"),
                "boards": rows,
            },
            indent=1,
        )
        + "\n"
    )
    tmp.replace(args.out)


if __name__ == "__main__":
    main()
