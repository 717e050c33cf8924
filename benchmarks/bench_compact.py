"""Sizes and lookup speed of the compact format beside Thill's layout (and Pons' size).

    python benchmarks/bench_compact.py            # every book in books/, ~2 min
    python benchmarks/bench_compact.py --quick    # 8-ply and the under-44444 books
    python benchmarks/bench_compact.py --versions OLD.c4b NEW.c4b --rounds 7

For each book in ``books/`` with both a Thill file (``.dat``) and a compact one
(``.c4b``): sizes (Thill, compact, Pons' table for the same positions as our
``export -f pons`` would write it, computed without writing), bits per position
and the value entropy; then, in the same process and on the same positions
(every position of the book in a random order, half of them as their mirror
image): bulk lookups (``lookup_many``) of the Thill reader and the compact
reader, positions per second on one core, and single lookups through the Python
API (``get``) in microseconds. Bulk speed is given twice: by wall time and by the
process's CPU time (best of ``--repeat`` each); on a machine shared with other
jobs the CPU time is the fair "one core" figure. The distance book's size is also measured on the
committed quarters of the 12-ply distance book (the table the full book would
get, per position) until the full book is in ``books/``.

``--versions A B`` (repeatable): two compact books of the same positions (a version 2
book and its version 3 re-encoding), side by side in one process: every position of
the book in a random order, half as their mirror image, both books' answers compared
first; then ``--rounds`` rounds, the two books alternating within each round, of
``lookup_many`` (position checks and values), of the format's read kernel alone
(``_stored_many``: key, hash, reads, decoding) and of ``--singles`` single lookups
(``get``); CPU time per position, best and median over the rounds, and the load average.
The single lookups are timed twice: in this process, where numba is loaded (a native
kernel then runs through numba), and in a fresh process that loads no numba (the
kernels' native libraries, as a user's ``openingbook lookup`` runs them; built by the
first run).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openingbook.formats import load_book  # noqa: E402
from openingbook.formats.compact import CompactBook  # noqa: E402
from openingbook.formats.compact.retrieval import build_retrieval  # noqa: E402
from openingbook.formats.pons import choose_log_size, next_prime, partial_key_bytes  # noqa: E402
from openingbook.formats.thill import Book  # noqa: E402
from openingbook.solver import DEFAULT_BOARD, Position, canonical_keys, mirror_bits  # noqa: E402

BOOKS = ROOT / "books"
FULL_12 = 4_200_899


def entropy_bits(values: np.ndarray) -> float:
    """Shannon entropy of the value distribution, bits per position."""
    _, counts = np.unique(values, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def pons_bytes(positions: int, depth: int) -> int:
    """Size of a Pons book of ``positions`` (our export's defaults: >= 8 slots each)."""
    size = next_prime(1 << choose_log_size(positions))
    return 6 + size * (partial_key_bytes(depth, size, 7) + 1)


def time_best(func, repeat: int, clock=time.perf_counter) -> float:
    """Best of ``repeat`` runs by ``clock`` (wall time, or ``time.process_time``: the
    CPU time of this one-thread process, which the other jobs of a shared
    machine do not inflate by taking the core away)."""
    best = math.inf
    for _ in range(repeat):
        start = clock()
        func()
        best = min(best, clock() - start)
    return best


def measure(name: str, repeat: int, singles: int) -> dict:
    thill_path, compact_path = BOOKS / f"{name}.dat", BOOKS / f"{name}.c4b"
    positions = load_book(thill_path)
    values = positions.score if positions.has_distances else positions.winner
    n = len(positions)
    rng = np.random.default_rng(1)
    order = rng.permutation(n)
    first, mask = positions.first[order], positions.mask[order]
    flip = rng.random(n) < 0.5  # half of the queries as the other variant
    first = np.where(flip, mirror_bits(first, *DEFAULT_BOARD), first)
    mask = np.where(flip, mirror_bits(mask, *DEFAULT_BOARD), mask)
    row: dict = {
        "book": name,
        "positions": n,
        "thill_bytes": thill_path.stat().st_size,
        "compact_bytes": compact_path.stat().st_size,
        "pons_bytes": pons_bytes(n, positions.plies),
        "compact_bits_per_position": round(8 * compact_path.stat().st_size / n, 3),
        "entropy_bits_per_position": round(entropy_bits(values), 3),
    }
    with Book(thill_path) as thill, CompactBook(compact_path) as compact:
        a, b = thill.lookup_many(first, mask), compact.lookup_many(first, mask)
        assert np.array_equal(a.winner, b.winner) and np.array_equal(a.plies, b.plies)
        t_thill = time_best(lambda: thill.lookup_many(first, mask), repeat)
        t_compact = time_best(lambda: compact.lookup_many(first, mask), repeat)
        cpu_thill = time_best(lambda: thill.lookup_many(first, mask), repeat, time.process_time)
        cpu_compact = time_best(lambda: compact.lookup_many(first, mask), repeat, time.process_time)
        picks = [
            Position.from_bitboards(int(first[i]), int(mask[i]))
            for i in rng.choice(n, min(n, singles), replace=False)
        ]
        thill.get(picks[0]), compact.get(picks[0])
        s_thill = time_best(lambda: [thill.get(p) for p in picks], repeat)
        s_compact = time_best(lambda: [compact.get(p) for p in picks], repeat)
    row.update(
        {
            "thill_bulk_mps": round(n / t_thill / 1e6, 2),
            "compact_bulk_mps": round(n / t_compact / 1e6, 2),
            "thill_bulk_cpu_mps": round(n / cpu_thill / 1e6, 2),
            "compact_bulk_cpu_mps": round(n / cpu_compact / 1e6, 2),
            "thill_get_us": round(s_thill / len(picks) * 1e6, 2),
            "compact_get_us": round(s_compact / len(picks) * 1e6, 2),
        }
    )
    return row


def side_by_side(paths: list[Path], rounds: int, singles: int) -> dict:
    """CPU nanoseconds per position of two compact books of the same positions."""
    books = [CompactBook(p) for p in paths]
    try:
        first, mask = books[0].positions()
        board = books[0].board
        rng = np.random.default_rng(1)
        order = rng.permutation(first.size)
        first, mask = first[order], mask[order]
        flip = rng.random(first.size) < 0.5
        first = np.where(flip, mirror_bits(first, *board), first)
        mask = np.where(flip, mirror_bits(mask, *board), mask)
        answers = [b.lookup_many(first, mask) for b in books]  # compiled, and compared
        for field in ("index", "winner", "plies", "score"):
            if field != "index":
                assert np.array_equal(getattr(answers[0], field), getattr(answers[1], field))
        del answers
        picks = [
            Position.from_bitboards(int(first[i]), int(mask[i]), *board)
            for i in rng.choice(first.size, min(first.size, singles), replace=False)
        ]
        for b in books:
            b.get(picks[0])
        times: dict[str, list[list[float]]] = {"lookup_many": [], "stored_many": [], "get": []}
        for key in times:
            times[key] = [[] for _ in books]
        for _ in range(rounds):
            for k, b in enumerate(books):
                start = time.process_time()
                b.lookup_many(first, mask)
                times["lookup_many"][k].append((time.process_time() - start) / first.size)
                start = time.process_time()
                b._stored_many(first, mask)
                times["stored_many"][k].append((time.process_time() - start) / first.size)
                start = time.process_time()
                for pos in picks:
                    b.get(pos)
                times["get"][k].append((time.process_time() - start) / len(picks))
        row: dict = {
            "books": [str(p) for p in paths],
            "versions": [b.header.version for b in books],
            "bytes": [p.stat().st_size for p in paths],
            "bits_per_position": [
                round(8 * p.stat().st_size / b.header.positions, 4)
                for p, b in zip(paths, books, strict=True)
            ],
            "positions": int(first.size),
            "rounds": rounds,
            "load_average_1min": round(os.getloadavg()[0], 2),
        }
        for key, per_book in times.items():
            row[f"{key}_ns_best"] = [round(min(x) * 1e9, 1) for x in per_book]
            row[f"{key}_ns_median"] = [round(float(np.median(x)) * 1e9, 1) for x in per_book]
        fresh = _fresh_singles(paths, picks, rounds)
        row["get_fresh_ns_best"] = [round(min(x) * 1e9, 1) for x in fresh]
        row["get_fresh_ns_median"] = [round(float(np.median(x)) * 1e9, 1) for x in fresh]
        return row
    finally:
        for b in books:
            b.close()


#: The fresh process of :func:`_fresh_singles`: no numba, native kernels only.
_FRESH = """
import json, sys, time
import numpy as np
from openingbook.formats.compact import CompactBook
from openingbook.solver import Position
paths, picks, rounds = json.loads(sys.stdin.read())
books = [CompactBook(p) for p in paths]
picks = [Position.from_bitboards(f, m, w, h) for f, m, w, h in picks]
for b in books:
    b.get(picks[0])
times = [[] for _ in books]
for _ in range(rounds):
    for k, b in enumerate(books):
        start = time.process_time()
        for pos in picks:
            b.get(pos)
        times[k].append((time.process_time() - start) / len(picks))
assert "numba" not in sys.modules
print(json.dumps(times))
"""


def _fresh_singles(paths: list[Path], picks: list[Position], rounds: int) -> list[list[float]]:
    """Seconds per ``get`` of each book per round, in a fresh process without numba."""
    import subprocess

    picks_json = [(p.first_stones, p.mask, p.width, p.height) for p in picks]
    out = subprocess.run(
        [sys.executable, "-c", _FRESH],
        input=json.dumps([[str(p) for p in paths], picks_json, rounds]),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout)


def distance_quarters() -> dict | None:
    """Bits per position of the distance table, measured on the committed quarters."""
    parts = sorted(BOOKS.glob("book12-dist-shard*of4.dat"))
    if not parts:
        return None
    from openingbook.codec import decode_keys
    from openingbook.formats import read_records

    keys, values = [], []
    for part in parts:
        fmt, records = read_records(part)
        first, mask = decode_keys(records.keys, fmt.key_bits, fmt.plies, *DEFAULT_BOARD)
        keys.append(canonical_keys(first, mask, *DEFAULT_BOARD))
        values.append(records.values)
    k, v = np.concatenate(keys), np.concatenate(values)
    table = np.unique(v)
    bits = max(1, math.ceil(math.log2(table.size)))
    start = time.perf_counter()
    ret = build_retrieval(k, np.searchsorted(table, v).astype(np.uint64), bits)
    seconds = time.perf_counter() - start
    per_position = 8 * ret.words.nbytes / k.size
    return {
        "book": "book12-dist (measured on " + " + ".join(p.stem for p in parts) + ")",
        "positions": int(k.size),
        "values": int(table.size),
        "value_bits": bits,
        "table_bits_per_position": round(per_position, 3),
        "entropy_bits_per_position": round(entropy_bits(v), 3),
        "full_book_estimate_bytes": round(per_position * FULL_12 / 8) + 3000,
        "thill_full_bytes": 5 * FULL_12,
        "build_seconds": round(seconds, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the small books")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--singles", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/compact.json")
    parser.add_argument(
        "--versions",
        nargs=2,
        type=Path,
        action="append",
        metavar=("A", "B"),
        help="two compact books of the same positions, side by side (repeatable)",
    )
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    if args.versions:
        out = ROOT / "benchmarks/results/compact-versions.json"
        results = json.loads(out.read_text()) if out.exists() else {}
        for pair in args.versions:
            row = side_by_side(pair, args.rounds, args.singles)
            results[pair[0].name] = row
            out.write_text(json.dumps(results, indent=1) + "\n")
            print(json.dumps(row))
        return
    names = [
        p.stem
        for p in sorted(BOOKS.glob("*.c4b"))
        if (BOOKS / f"{p.stem}.dat").exists() and not (args.quick and p.name == "book12.c4b")
    ]
    rows = [measure(name, args.repeat, args.singles) for name in names]
    quarters = None if args.quick else distance_quarters()
    result = {
        "machine": platform.machine(),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "load_average_1min_at_end": round(os.getloadavg()[0], 2),
        "books": rows,
        "distance_quarters": quarters,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(
        "| book | positions | Thill | compact | Pons | bits/pos (entropy) | "
        "bulk M/s Thill / compact (wall) | (CPU time) | get us Thill / compact |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['book']} | {r['positions']:,} | {r['thill_bytes']:,} | {r['compact_bytes']:,} | "
            f"{r['pons_bytes']:,} | {r['compact_bits_per_position']} "
            f"({r['entropy_bits_per_position']}) | {r['thill_bulk_mps']} / "
            f"{r['compact_bulk_mps']} | {r['thill_bulk_cpu_mps']} / {r['compact_bulk_cpu_mps']} | "
            f"{r['thill_get_us']} / {r['compact_get_us']} |"
        )
    if quarters:
        print(json.dumps(quarters, indent=2))


if __name__ == "__main__":
    main()
