"""``openingbook c4solver`` against Pascal Pons' ``c4solver``: the same bytes, and how fast.

Usage: ``python benchmarks/bench_c4solver.py --pons PATH [--positions 1000] [--short 2000]
[--seed 0] [--modes "" -a -w "-a -w"] [--out benchmarks/results/c4solver.json]``

``PATH``: Pons' binary, built from github.com/PascalPons/connect4 (never part of this
project); it runs in its own directory, so that it loads the ``7x6.book`` lying there
(as it does by default). Two inputs are made from ``--seed``:

* the comparison: ``--positions`` random games (each of a random length of 0 to 41
  moves, every move a random column that is not full and does not complete four), then
  one invalid line for every ten positions (a game followed by a full column, a move
  that completes four, a character that is no column, a trailing ``\\r``, a space,
  more than 42 moves), shuffled together; each program answers it in each of
  ``--modes``, and the standard outputs are compared byte for byte (standard errors
  too, Pons' line about loading his book left out);
* the throughput: ``--short`` random games of 0 to 14 moves, answered by each program
  without flags and with ``-a``: lines per second, start to exit.

Pons' weak solver (``-w``) reports a win by a lower bound of its score met in its
search (depending on its table's history and on which positions his book holds), where
``openingbook c4solver -w`` says 1: the differences of that kind are counted apart
(``weak_bound_lines``), any other is a mismatch. Exit status 1 on a mismatch.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

from runinfo import run_info

ROOT = Path(__file__).resolve().parent
WIDTH, HEIGHT = 7, 6


def _has_four(stones: int) -> bool:
    for shift in (1, HEIGHT + 1, HEIGHT, HEIGHT + 2):
        pairs = stones & (stones >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


def random_game(rng: random.Random, length: int) -> tuple[str, list[int], int, int]:
    """A random game of up to ``length`` moves: (moves, heights, mover's stones, mask)."""
    heights = [0] * WIDTH
    mine = theirs = 0
    moves = ""
    while len(moves) < length:
        options = []
        for col in range(WIDTH):
            if heights[col] < HEIGHT:
                cell = 1 << (col * (HEIGHT + 1) + heights[col])
                if not _has_four(mine | cell):
                    options.append((col, cell))
        if not options:
            break
        col, cell = rng.choice(options)
        heights[col] += 1
        mine, theirs = theirs, mine | cell
        moves += str(col + 1)
    return moves, heights, mine, mine | theirs


def invalid_line(rng: random.Random) -> str:
    """A line that is no game that goes on, of one of several kinds."""
    moves, heights, mine, _mask = random_game(rng, rng.randint(0, 30))
    kind = rng.randrange(6)
    if kind == 0 and max(heights) == HEIGHT:
        return moves + str(heights.index(HEIGHT) + 1)
    if kind == 1:
        for col in range(WIDTH):
            if heights[col] < HEIGHT and _has_four(mine | 1 << (col * (HEIGHT + 1) + heights[col])):
                return moves + str(col + 1)
    if kind == 2:
        return moves + rng.choice("089x-")
    if kind == 3:
        return moves + "\r"
    if kind == 4:
        return " " + moves
    return "4" * 7 if rng.random() < 0.5 else "1234567" * 7


def make_inputs(seed: int, positions: int, short: int) -> tuple[str, str]:
    rng = random.Random(seed)
    lines = [random_game(rng, rng.randint(0, 41))[0] for _ in range(positions)]
    lines += [invalid_line(rng) for _ in range(positions // 10)]
    rng.shuffle(lines)
    quick = [random_game(rng, rng.randint(0, 14))[0] for _ in range(short)]
    return "".join(line + "\n" for line in lines), "".join(line + "\n" for line in quick)


def run(command: list[str], text: str, cwd: Path | None = None) -> tuple[bytes, bytes, float]:
    start = time.perf_counter()
    done = subprocess.run(command, input=text.encode("latin-1"), capture_output=True, cwd=cwd)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} exited with {done.returncode}: {done.stderr[-500:]!r}")
    return done.stdout, done.stderr, seconds


def weak_bound(ours: str, theirs: str) -> bool:
    """Do two ``-w`` answer lines differ only where Pons reports a win's score by a bound
    (he says a value beyond 1 in magnitude of the same sign where we say 1)?"""
    a, b = ours.split(" "), theirs.split(" ")
    if len(a) != len(b) or a[0] != b[0]:
        return False
    for x, y in zip(a[1:], b[1:], strict=True):
        if x != y and not (abs(int(x)) == 1 and int(x) * int(y) > 1):
            return False
    return True


def compare(mode: str, ours: bytes, theirs: bytes) -> dict[str, int]:
    a, b = ours.decode("latin-1").splitlines(), theirs.decode("latin-1").splitlines()
    if len(a) != len(b):
        return {"lines": len(b), "same": 0, "weak_bound_lines": 0, "mismatches": len(b) or 1}
    same = sum(x == y for x, y in zip(a, b, strict=True))
    bound = sum(x != y and "-w" in mode and weak_bound(x, y) for x, y in zip(a, b, strict=True))
    return {
        "lines": len(b),
        "same": same,
        "weak_bound_lines": bound,
        "mismatches": len(b) - same - bound,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pons", type=Path, required=True, help="Pons' c4solver binary")
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--short", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modes", nargs="*", default=["", "-a", "-w", "-a -w"])
    parser.add_argument("--out", default=str(ROOT / "results" / "c4solver.json"))
    args = parser.parse_args()
    pons = args.pons.resolve()
    ours = [sys.executable, "-c", "from openingbook.cli import main; main()", "c4solver"]
    compared, short = make_inputs(args.seed, args.positions, args.short)
    result: dict = {
        **run_info(),
        "seed": args.seed,
        "positions": args.positions,
        "invalid_lines": args.positions // 10,
        "modes": {},
        "throughput": {},
    }
    failed = False
    for mode in args.modes:
        flags = mode.split()
        theirs_out, theirs_err, theirs_s = run([str(pons), *flags], compared, pons.parent)
        ours_out, ours_err, ours_s = run(ours + flags, compared)
        theirs_err = b"".join(
            line
            for line in theirs_err.splitlines(keepends=True)
            if not line.startswith(b"Loading opening book")
        )
        row = compare(mode, ours_out, theirs_out)
        row["stdout_identical"] = ours_out == theirs_out
        row["stderr_identical"] = ours_err == theirs_err
        row["seconds"] = {"pons": round(theirs_s, 2), "openingbook": round(ours_s, 2)}
        result["modes"][mode or "(none)"] = row
        failed |= row["mismatches"] > 0 or not row["stderr_identical"]
        print(f"mode {mode or '(none)'}: {json.dumps(row)}", flush=True)
    for mode in ("", "-a"):
        flags = mode.split()
        theirs_out, _, theirs_s = run([str(pons), *flags], short, pons.parent)
        ours_out, _, ours_s = run(ours + flags, short)
        lines = args.short
        row = {
            "lines": lines,
            "identical": ours_out == theirs_out,
            "pons_lines_per_s": round(lines / theirs_s, 1),
            "openingbook_lines_per_s": round(lines / ours_s, 1),
            "ratio": round(theirs_s / ours_s, 1),
        }
        failed |= not row["identical"]
        result["throughput"][mode or "(none)"] = row
        print(f"throughput {mode or '(none)'}, 0-14 stones: {json.dumps(row)}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
