"""Benchmark: bulk lookups (``lookup_many`` over every position a book answers) of the
same book files with the code of several checkouts, side by side.

Usage: ``python benchmarks/bench_bulk_checkouts.py CHECKOUT [CHECKOUT ...]
[--books BOOK ...] [--rounds N] [--processes N]``
(default books ``books/book8.dat books/book8-dist.dat``), or
``python benchmarks/bench_bulk_checkouts.py --pair CHECKOUT BOOK --pair CHECKOUT BOOK
...``: each checkout with its own book (a book and its re-encoding in a version only
the newer checkout reads, e.g. ``--pair OLD books/book12.c4b --pair . NEW/book12.c4b``).

A checkout is a directory holding ``openingbook/`` and ``solver/`` (this one, or another
commit's tree from ``git archive COMMIT | tar -x -C DIR``). For each of ``--processes``
rounds, one process per checkout in turn (so that a burst of load on a shared machine
hits them alike) opens each book with ``openingbook.open_book``, asks it once (records
read, kernels loaded), then times ``--rounds`` times the best of 7 calls in CPU time.
Prints ns per position per checkout and book: the best and the median over every round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

#: one process: the best of 7 calls, ``rounds`` times, per book (JSON on stdout)
_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from openingbook import open_book
out = {}
for name in sys.argv[3:]:
    book = open_book(name)
    first, mask = book.positions()
    book.lookup_many(first, mask)
    rounds = []
    for _ in range(int(sys.argv[2])):
        times = []
        for _ in range(7):
            start = time.process_time()
            book.lookup_many(first, mask)
            times.append(time.process_time() - start)
        rounds.append(min(times) / len(first) * 1e9)
    out[name] = rounds
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="*")
    parser.add_argument("--books", nargs="+", default=["books/book8.dat", "books/book8-dist.dat"])
    parser.add_argument(
        "--pair",
        nargs=2,
        action="append",
        default=[],
        metavar=("CHECKOUT", "BOOK"),
        help="a checkout with its own book (repeatable; instead of CHECKOUT and --books)",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--processes", type=int, default=5)
    args = parser.parse_args()
    # the bytecode cache on, as in an installation
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = [(c, list(args.books)) for c in args.checkouts]
    runs += [(c, [book]) for c, book in args.pair]
    if not runs:
        parser.error("give checkouts, or --pair CHECKOUT BOOK")
    found: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.processes):
        for checkout, books in runs:
            done = subprocess.run(
                [sys.executable, "-c", _CHILD, checkout, str(args.rounds), *books],
                capture_output=True,
                text=True,
                check=True,
                env=env,
            )
            for book, rounds in json.loads(done.stdout).items():
                found.setdefault((book, checkout), []).extend(rounds)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    for (book, checkout), rounds in found.items():
        print(
            f"{book}  {checkout}: best {min(rounds):.1f}, median "
            f"{statistics.median(rounds):.1f} ns per position ({len(rounds)} rounds)"
        )


if __name__ == "__main__":
    main()
