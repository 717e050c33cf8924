"""What a book's values cost in a compressed static function, per context: the choice of
the compact format's next encoding, measured on the shipped books (issue 34).

    python benchmarks/bench_entropy_encodings.py 12 14-dist
    python benchmarks/bench_entropy_encodings.py 12 --contexts ply,forced,combined

For each book and context (:data:`openingbook.checks.entropy.CONTEXTS`; ``ply`` is one
code for the whole book) a
:func:`openingbook.formats.compact.compressed.build_function` is built over the
book's canonical keys, every key is queried and compared with the book (the run stops on
any difference), and the figures are printed and written to
``benchmarks/results/entropy-encodings.json``: the codewords' average length, the
table's bits per position, the code tables' (the used contexts, 16 bits each, and a
5-bit codeword length per value and used context), the whole, the construction's CPU
time and the bulk query's CPU nanoseconds per key (keys and contexts given; computing
them is not counted), beside the same book's compact bulk lookup today
(``CompactBook.lookup_many`` less its position checks: key, hash, three reads) on the
same positions in a random order, in the same run. CPU time, not wall time: the machine
is shared.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openingbook.checks.entropy import CONTEXTS, position_contexts  # noqa: E402
from openingbook.formats import load_book, open_book  # noqa: E402
from openingbook.formats.compact.compressed import build_function, query_function  # noqa: E402
from openingbook.solver import canonical_keys  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "entropy-encodings.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("books", nargs="+")
    parser.add_argument("--contexts", default="ply,forced,threats,combined")
    args = parser.parse_args()
    names = args.contexts.split(",")
    unknown = set(names) - set(CONTEXTS)
    if unknown:
        parser.error(f"unknown contexts: {', '.join(sorted(unknown))}")
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    for book in args.books:
        model = load_book(book)
        width, height = model.board
        shuffle = np.random.default_rng(34).permutation(len(model))
        first, mask = model.first[shuffle], model.mask[shuffle]
        with open_book(book) as reader:  # today's compact book, side by side
            reader._stored_many(first[:10], mask[:10])  # compiled before timing
            start = time.process_time()
            reader._stored_many(first, mask)
            today = time.process_time() - start
        keys = canonical_keys(first, mask, width, height)
        stored = (model.winner if model.kind == "wdl" else model.score).astype(np.int64)
        _, values = np.unique(stored[shuffle], return_inverse=True)
        contexts = position_contexts(first, mask, width, height)
        n = keys.size
        for name in names:
            used, ctx = np.unique(contexts[name], return_inverse=True)
            start = time.process_time()
            f = build_function(keys, values, ctx, used.size)
            build = time.process_time() - start
            start = time.process_time()
            got = query_function(f, keys, ctx)
            query = time.process_time() - start
            if not np.array_equal(got, values):
                sys.exit(f"{book} {name}: {int((got != values).sum())} keys answer wrongly")
            codewords = float(np.maximum(f.lengths[ctx, values], 0).mean())
            tables = used.size * (16 + 5 * f.lengths.shape[1])
            row = {
                "positions": n,
                "contexts": int(used.size),
                "codeword_bits": round(codewords, 4),
                "table_bits": round(f.bits / n, 4),
                "code_table_bits": round(tables / n, 4),
                "bits_per_position": round((f.bits + tables) / n, 4),
                "bytes": (f.bits + tables) // 8,
                "build_cpu_s": round(build, 1),
                "query_cpu_ns": round(query / n * 1e9, 1),
                "compact_today_cpu_ns": round(today / n * 1e9, 1),
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
            }
            results.setdefault(book, {})[name] = row
            RESULTS.write_text(json.dumps(results, indent=1) + "\n")
            print(
                f"{book:>10} {name:<9} contexts {row['contexts']:>5}  codewords "
                f"{row['codeword_bits']:.3f}  table {row['table_bits']:.3f}  code tables "
                f"{row['code_table_bits']:.4f}  = {row['bits_per_position']:.3f} bits/position "
                f"({row['bytes']:,} bytes)  build {row['build_cpu_s']} s CPU  query "
                f"{row['query_cpu_ns']} ns/key (compact today {row['compact_today_cpu_ns']})  "
                f"peak {row['peak_rss_mb']} MB",
                flush=True,
            )


if __name__ == "__main__":
    main()
