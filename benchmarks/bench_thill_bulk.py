"""Benchmark: bulk lookups in Thill-layout books, the positions found among the records
answered without a check of their own (``Book._stored_checked_many``) against the full
check of every position (the reader base's ``statuses`` on all of them), in one process.

Usage: ``python benchmarks/bench_thill_bulk.py [BOOK ...] [--rounds N]``
(default ``books/book8.dat books/book8-dist.dat``).

Each book's ``lookup_many`` over all of its ``positions()``, the two ways alternating
for ``--rounds`` rounds, each the best of 7 calls, in CPU time of the process (the
machine is shared); the answers of both ways compared equal. Prints ns per position:
the best round and every round.
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable

from openingbook import open_book


def best_of(call: Callable[[], object], repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("books", nargs="*", default=["books/book8.dat", "books/book8-dist.dat"])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    for name in args.books:
        book = open_book(name)
        first, mask = book.positions()
        reader = type(book)
        found_first = reader._stored_checked_many
        ways = {
            "full check of every position": lambda self, f, m: None,
            "full check of the positions not found": found_first,
        }
        times: dict[str, list[float]] = {way: [] for way in ways}
        answers = {}
        try:
            for _ in range(args.rounds):
                for way, hook in ways.items():
                    reader._stored_checked_many = hook
                    answers[way] = book.lookup_many(first, mask)
                    times[way].append(best_of(functools.partial(book.lookup_many, first, mask)))
        finally:
            reader._stored_checked_many = found_first
        a, b = answers.values()
        assert all((x == y).all() for x, y in zip(a, b, strict=True)), name
        n = len(first)
        print(f"{name}: {n:,} positions, {int((a.index >= 0).sum()):,} stored")
        for way, seconds in times.items():
            rounds = ", ".join(f"{s / n * 1e9:.1f}" for s in seconds)
            print(f"  {way}: {min(seconds) / n * 1e9:.1f} ns per position ({rounds})")


if __name__ == "__main__":
    main()
