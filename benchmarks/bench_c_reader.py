"""Bulk lookups of the C reader (``readers/c/``) in a version 2 and a version 3 book of
the same values, side by side.

    python benchmarks/bench_c_reader.py                 # 12 and 12-dist, ~2 min
    python benchmarks/bench_c_reader.py --books 10-dist  # a quicker run

For each shipped book named: the book written again in both versions (``write_compact``,
in a temporary directory; the shipped file is not used, so the figures do not depend on
its version); every position of the book in a random order, half of them as their
mirror image; ``benchmarks/c4book_bulk.c`` (compiled here with ``cc -O2``) runs
``c4book_lookup`` over all of them, the best CPU time of ``--repeat`` passes, the two
versions' processes alternating ``--rounds`` times (the best of each kept). Both
versions must give the same answers (a checksum of every status and value). The lookup
includes the position check (legal, reachable, not a win at once), as every lookup of
the reader does.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openingbook.formats.compact import CompactBook, write_compact  # noqa: E402
from openingbook.registry import resolve_book  # noqa: E402
from openingbook.solver import BoardSize, mirror_bits  # noqa: E402

READER = ROOT / "readers" / "c"


def compile_driver(tmp: Path) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        sys.exit("no C compiler: install gcc or clang")
    exe = tmp / "c4book_bulk"
    sources = [str(ROOT / "benchmarks" / "c4book_bulk.c"), str(READER / "c4book.c")]
    subprocess.run([cc, "-std=c99", "-O2", f"-I{READER}", "-o", str(exe), *sources], check=True)
    return exe


def run(exe: Path, book: Path, positions: Path, repeat: int) -> dict:
    out = subprocess.run(
        [str(exe), str(book), str(positions), str(repeat)], capture_output=True, text=True
    )
    if out.returncode:
        sys.exit(out.stderr)
    return json.loads(out.stdout)


def measure(name: str, exe: Path, tmp: Path, repeat: int, rounds: int) -> dict:
    with CompactBook(resolve_book(name)) as book:
        first, mask = book.positions()
        values = book.values_of(first, mask)
        plies, kind, board = book.plies, book.kind, BoardSize(*book.board)
    paths = {}
    for version in (2, 3):
        paths[version] = tmp / f"{name}-v{version}.c4b"
        write_compact(
            paths[version], plies, kind, first, mask, values, board=board, version=version
        )
    n = len(first)
    rng = np.random.default_rng(1)
    order = rng.permutation(n)
    f, m = first[order], mask[order]
    flip = rng.random(n) < 0.5  # half of the queries as the other variant
    f = np.where(flip, mirror_bits(f, *board), f)
    m = np.where(flip, mirror_bits(m, *board), m)
    queries = tmp / f"{name}.positions"
    queries.write_bytes(np.stack([f, m], axis=1).astype(np.uint64).tobytes())
    best: dict[int, dict] = {}
    for _ in range(rounds):
        for version in (2, 3):
            r = run(exe, paths[version], queries, repeat)
            if version not in best or r["cpu_seconds"] < best[version]["cpu_seconds"]:
                best[version] = r
    if best[2]["checksum"] != best[3]["checksum"]:
        sys.exit(f"{name}: the two versions answer differently")
    row = {"book": name, "positions": n}
    for version in (2, 3):
        row[f"v{version}_bytes"] = paths[version].stat().st_size
        row[f"v{version}_mps"] = round(n / best[version]["cpu_seconds"] / 1e6, 3)
    row["v3_over_v2"] = round(row["v3_mps"] / row["v2_mps"], 3)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--books", default="12,12-dist", help="shipped books, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="passes per process")
    parser.add_argument("--rounds", type=int, default=3, help="processes per version")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        exe = compile_driver(tmp)
        for name in args.books.split(","):
            row = measure(name, exe, tmp, args.repeat, args.rounds)
            rows.append(row)
            print(
                f"{name:>10}: {row['positions']:>10,} positions  v2 {row['v2_mps']:.3f} M/s "
                f"({row['v2_bytes']:,} B)  v3 {row['v3_mps']:.3f} M/s ({row['v3_bytes']:,} B)"
                f"  v3/v2 {row['v3_over_v2']:.3f}",
                flush=True,
            )
    out = ROOT / "benchmarks" / "results" / "c_reader.json"
    out.write_text(
        json.dumps({"machine": platform.machine(), "args": vars(args), "rows": rows}, indent=2)
        + "\n"
    )
    print(f"written {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
