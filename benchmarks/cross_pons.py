"""Re-solve random positions of books with Pascal Pons' solver: a check by another program.

Usage: ``python benchmarks/cross_pons.py BOOK.c4b [...] --pons PATH [--sample 200]
[--seed 0] [--out benchmarks/results/bookP-pons.json]`` (``P``: the first book's plies)

``check_parts.py`` re-solves samples with this project's solver; this script asks an
independent one, Pons' ``c4solver`` (built from his public source as
``benchmarks/DECISIONS.md`` "Peers" says; never part of this project). For each book (a
part of the 14- or 15-ply book, a merged book, any 7x6 distance book), ``--sample`` of its
positions picked at random (seed: ``--seed`` plus the part number, so not
``check_parts.py``'s sample) are written as move strings to the solver's standard input,
run without an opening book (``-b`` names no file: every score is searched), and its
score (Pons' convention: positive when the side to move wins, ``(cells + 1 - stones) /
2`` for a win with its next stone) is compared with the book's. Exit status 1 on any
disagreement; the result goes to ``--out``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from openingbook.atomicio import write_json_atomic
from openingbook.formats.compact import CompactBook
from openingbook.solver import Position

ROOT = Path(__file__).resolve().parent


def sample_moves(path: Path, sample: int, seed: int) -> tuple[list[str], list[int], str]:
    """Move strings and book scores of ``sample`` random positions of the book at ``path``."""
    with CompactBook(path) as book:
        if book.kind != "distance":
            raise SystemExit(f"{path}: a {book.kind} book; the comparison needs exact scores")
        part = book.part[0] if book.part else 0
        first, mask = book.positions()
        rng = np.random.default_rng(seed + part)
        picks = np.sort(rng.choice(len(first), min(sample, len(first)), replace=False))
        scores = book.lookup_many(first[picks], mask[picks]).score
        w, h = book.board
        moves = [
            Position.from_bitboards(int(first[i]), int(mask[i]), w, h).some_moves() for i in picks
        ]
        scope = f"part {book.part[0]}/{book.part[1]}" if book.part else "complete"
    return moves, [int(s) for s in scores], scope


def pons_scores(binary: Path, moves: list[str]) -> list[int]:
    """Pons' solver's score of every move string, searched without an opening book."""
    with tempfile.TemporaryDirectory(prefix="cross-pons-") as empty:
        done = subprocess.run(
            [str(binary), "-b", str(Path(empty) / "no-book")],
            input="".join(f"{m}\n" for m in moves),
            capture_output=True,
            text=True,
            check=True,
            cwd=empty,
        )
    lines = done.stdout.split("\n")[: len(moves)]
    scores = []
    for m, line in zip(moves, lines, strict=True):
        fields = line.split()
        if len(fields) < 2 or fields[0] != m:
            raise SystemExit(f"{binary}: unexpected answer {line!r} for {m}")
        scores.append(int(fields[1]))
    return scores


def cross_check(path: Path, binary: Path, sample: int, seed: int) -> dict:
    start = time.perf_counter()
    moves, ours, scope = sample_moves(path, sample, seed)
    theirs = pons_scores(binary, moves)
    differ = [
        {"moves": m, "book": a, "pons": b}
        for m, a, b in zip(moves, ours, theirs, strict=True)
        if a != b
    ]
    return {
        "file": path.name,
        "scope": scope,
        "sample": len(moves),
        "agree": len(moves) - len(differ),
        "disagree": len(differ),
        "disagreements": differ[:20],
        "seconds": round(time.perf_counter() - start, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("books", nargs="+", type=Path)
    parser.add_argument("--pons", type=Path, required=True, help="Pons' c4solver binary")
    parser.add_argument("--sample", type=int, default=200, help="positions per book")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="[results/bookP-pons.json]")
    args = parser.parse_args()
    if not args.pons.is_file():
        raise SystemExit(f"cross_pons: no solver at {args.pons}")
    if args.out is None:
        with CompactBook(args.books[0], verify=False) as first:
            args.out = ROOT / "results" / f"book{first.plies}-pons.json"
    rows = []
    for path in args.books:
        row = cross_check(path, args.pons, args.sample, args.seed)
        print(json.dumps({k: v for k, v in row.items() if k != "disagreements"}), flush=True)
        rows.append(row)
    result = {
        "command": "python benchmarks/cross_pons.py "
        + " ".join(p.name for p in args.books)
        + f" --pons {args.pons.name} --sample {args.sample} --seed {args.seed}",
        "solver": {
            "name": args.pons.name,
            "sha256": hashlib.sha256(args.pons.read_bytes()).hexdigest(),
            "opening_book": None,
        },
        "books": rows,
        "positions": sum(r["sample"] for r in rows),
        "disagree": sum(r["disagree"] for r in rows),
    }
    write_json_atomic(args.out, result)
    print(f"{result['positions']} positions re-solved by {args.pons.name}: "
          f"{result['disagree']} disagree")  # fmt: skip
    sys.exit(1 if result["disagree"] else 0)


if __name__ == "__main__":
    main()
