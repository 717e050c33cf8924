"""Benchmark: deriving the complete 8-ply book from a complete 12-ply book.

Usage: ``python benchmarks/bench_derive.py [--repeat 1] [--out benchmarks/results/derive.json]``

No solved 12-ply book exists on this machine (building one takes days of CPU),
so the benchmark writes **complete 12-ply books with synthetic values**: every
one of the 4,200,899 positions (from :func:`openingbook.solver.enumerate.enumerate_positions`)
with a random but well-formed value (a distance byte of the right parity for the
distance book; draw / second-player win for the pruned one, first-player wins
dropped). The values do not change the work: every layer is expanded, every
needed 12-ply position is looked up, every value is backed up. Then it times
the real command path, :func:`openingbook.pipeline.derive.derive_book` (read and check the
book, index it, expand 8 -> 12 plies, look up, negamax, encode and write the 8-ply
book and its manifest), for both kinds of book. Writes ``benchmarks/results/derive.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

import openingbook
from openingbook.atomicio import write_json_atomic
from openingbook.codec import encode_keys
from openingbook.formats import load_book
from openingbook.formats.thill import BookFormat, Records, write_book
from openingbook.pipeline.derive import derive_book
from openingbook.pipeline.negamax import derive_values
from openingbook.solver import DEFAULT_BOARD
from openingbook.solver.enumerate import enumerate_positions

ROOT = Path(__file__).resolve().parent


def synthetic_book(path: Path, distances: bool, seed: int = 0) -> int:
    """A complete 12-ply book with random well-formed values; returns its record count."""
    rng = np.random.default_rng(seed)
    first, mask = enumerate_positions(12, None, *DEFAULT_BOARD)
    if distances:
        # first player (to move at 12 stones) wins in an odd number of plies,
        # the second in an even number; nobody wins at once in a book position
        kind = rng.integers(0, 3, len(first))
        a_plies = 2 * rng.integers(1, 15, len(first)) + 1  # 3..29
        b_plies = 2 * rng.integers(1, 16, len(first))  # 2..30
        values = np.where(kind == 0, 0, np.where(kind == 1, 100 - a_plies, b_plies - 100))
    else:
        values = rng.integers(0, 3, len(first))  # 2 = first player wins: dropped
        keep = values != 2
        first, mask, values = first[keep], mask[keep], values[keep]
    fmt = BookFormat.for_plies(12, distances, *DEFAULT_BOARD)
    keys = encode_keys(first, mask, fmt.key_bits, *DEFAULT_BOARD)
    return write_book(path, fmt, Records(keys, values.astype(np.int8)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="Timed runs per book kind.")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "derive.json")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-derive-") as tmp:
        for distances in (True, False):
            src = Path(tmp) / f"book12{'-dist' if distances else ''}.dat"
            t = time.perf_counter()
            records = synthetic_book(src, distances)
            made = time.perf_counter() - t
            for run in range(args.repeat):
                out = Path(tmp) / f"book8-{run}.dat"
                cpu, wall = time.process_time(), time.perf_counter()
                summary = derive_book(src, 8, out, distances=distances, force=True)
                wall = time.perf_counter() - wall
                cpu = time.process_time() - cpu
                # the parts: loading/indexing the 12-ply book, and the derivation itself
                t = time.perf_counter()
                deep = load_book(src, complete=False)
                _ = deep.key_order  # the index its lookups search, built on first use
                load = time.perf_counter() - t
                derivation = derive_values(deep, 8)
                results.append(
                    {
                        "source": "12-ply with distances" if distances else "12-ply pruned",
                        "source_records": records,
                        "make_synthetic_book_seconds": round(made, 2),
                        "derive_book_wall_seconds": round(wall, 2),
                        "derive_book_cpu_seconds": round(cpu, 2),
                        "load_and_index_seconds": round(load, 2),
                        "expand_lookup_negamax_seconds": round(derivation.seconds, 2),
                        "positions_8ply": summary.positions,
                        "records_written": summary.records,
                        "layer_sizes": summary.layer_sizes,
                        "deeper_positions_looked_up": summary.deeper_positions_looked_up,
                    }
                )
                print(json.dumps(results[-1]))
    report = {
        "benchmark": "derive the complete 8-ply book from a complete 12-ply book",
        "command": "python benchmarks/bench_derive.py",
        "note": "12-ply books with synthetic values (no solved 12-ply book exists here); "
        "the work does not depend on the values",
        "results": results,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg(),
        },
        "version": openingbook.__version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, report)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
