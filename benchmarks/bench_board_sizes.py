"""The empty board of every published board size, solved from scratch and compared.

For each board in :data:`openingbook.published.BOARD_RESULTS` (Tromp's and Steininger's
tables: who wins the empty board under perfect play, and on which move the game ends)
that fits the solver (width x (height + 1) <= 64 bits, even and odd numbers of cells),
the empty board is solved in a child process with a time budget
(``--budget`` seconds, default 120), smallest boards first. Each row records the size,
our outcome and last move, the published ones, whether they agree, the time and the
nodes; boards over the budget are recorded as not solved. Results go to
``benchmarks/results/board_sizes.json``.

    python benchmarks/bench_board_sizes.py [--budget 120] [--table-log2 24] [--max-cells 64]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import platform
import subprocess
import time
from pathlib import Path

from openingbook.published import BOARD_RESULTS

RESULTS = Path(__file__).resolve().parent / "results" / "board_sizes.json"


def solve_empty(width: int, height: int, table_log2: int, out: mp.Queue) -> None:
    """Child process: solve the empty board, put (score, seconds, nodes) on ``out``."""
    from solver import Position, Solver

    solver = Solver(table_log2=table_log2, width=width, height=height)
    solver.warm_up()
    start = time.perf_counter()
    score = solver.solve(Position.from_bitboards(0, 0, width, height))
    out.put((score, time.perf_counter() - start, solver.nodes))


def outcome(score: int, width: int, height: int) -> tuple[str, int]:
    """(winner of the empty board, the move on which the game ends) from its score."""
    from solver import plies_from_score, winner_from_score

    return str(winner_from_score(score, 0)), plies_from_score(score, 0, width, height)


def fits(width: int, height: int) -> str | None:
    """Why the solver cannot take this board, or None."""
    from solver import check_board_size

    try:
        check_board_size(width, height)
    except ValueError:
        return "more than 64 bits"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=120.0, help="seconds per board")
    parser.add_argument("--table-log2", type=int, default=24)
    parser.add_argument("--max-cells", type=int, default=64)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    rows = []
    boards = sorted(BOARD_RESULTS, key=lambda wh: (wh[0] * wh[1], wh))
    for width, height in boards:
        if width * height > args.max_cells:
            continue
        published_winner, published_last = BOARD_RESULTS[(width, height)]
        row = {
            "size": f"{width}x{height}",
            "published": {"winner": published_winner, "last_move": published_last},
        }
        reason = fits(width, height)
        if reason:
            rows.append({**row, "status": f"skipped: {reason}"})
            print(f"{row['size']}: skipped ({reason})", flush=True)
            continue
        queue: mp.Queue = mp.Queue()
        child = mp.Process(target=solve_empty, args=(width, height, args.table_log2, queue))
        child.start()
        child.join(args.budget + 60)  # + compile/cache load
        if child.is_alive():
            child.kill()
            child.join()
            rows.append({**row, "status": f"not solved within {args.budget:.0f} s"})
            print(f"{row['size']}: not solved within the budget", flush=True)
            continue
        if child.exitcode != 0:
            rows.append({**row, "status": f"failed (exit code {child.exitcode})"})
            print(f"{row['size']}: failed", flush=True)
            continue
        score, seconds, nodes = queue.get(timeout=10)
        winner, last = outcome(score, width, height)
        agree = (winner, last) == (published_winner, published_last)
        rows.append(
            {
                **row,
                "status": "solved",
                "score": score,
                "winner": winner,
                "last_move": last,
                "agrees": agree,
                "seconds": round(seconds, 3),
                "nodes": nodes,
            }
        )
        print(
            f"{row['size']}: {winner} ({last}), published {published_winner} ({published_last})"
            f" {'agree' if agree else 'DISAGREE'}; {seconds:.2f} s, {nodes:,} nodes",
            flush=True,
        )
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(
        json.dumps(
            {
                "command": "python benchmarks/bench_board_sizes.py"
                f" --budget {args.budget:g} --table-log2 {args.table_log2}",
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
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
