"""The entropy of every shipped book's values: the table of docs/ENTROPY.md.

    python benchmarks/entropy_table.py                 # every shipped book (~10 min)
    python benchmarks/entropy_table.py 8 12 14-dist    # these books

Runs ``openingbook stats --entropy --json`` (:func:`openingbook.checks.entropy.book_entropy`)
on each book, writes the reports to ``benchmarks/results/entropy.json`` (the books asked
for merged into what is there) and prints the Markdown tables of docs/ENTROPY.md: bits
per position of the values alone (order 0), of a Huffman code of them, of the file, and
per context (one per mirror pair, wins at once left out).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openingbook.checks.entropy import CONTEXTS, book_entropy  # noqa: E402
from openingbook.registry import shipped_books  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "entropy.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("books", nargs="*", help="shipped book names (default: every one)")
    args = parser.parse_args()
    names = args.books or [b.name for b in shipped_books()]
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    for name in names:
        start = time.process_time()
        report = book_entropy(name)
        entry = report.as_dict()
        entry["book"] = name
        entry["cpu_seconds"] = round(time.process_time() - start, 1)
        results[name] = entry
        print(f"{name}: {entry['cpu_seconds']} s CPU", file=sys.stderr)
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print_tables([results[n] for n in sorted(results, key=_order)])


def _order(name: str) -> tuple[int, str]:
    digits = "".join(c for c in name.split("-")[0] if c.isdigit())
    return (int(digits or 0), name)


def print_tables(entries: list[dict]) -> None:
    print(
        "| book | positions | values | file | order 0 | Huffman | wdl part | "
        "distance given wdl | best context | its Huffman |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for e in entries:
        rows = {r["context"]: r for r in e["rows"]}
        first = rows["ply"]
        best = min(e["rows"], key=lambda r: r["entropy"] + r["bias"])
        dist = e["kind"] != "wdl"
        print(
            f"| `{e['book']}` | {e['positions']:,} | {e['distinct_values']} | "
            f"{e['file_bits']:.3f} | {first['entropy']:.3f} | {first['huffman']:.3f} | "
            + (f"{first['wdl_entropy']:.3f} | " if dist else "(all) | ")
            + (f"{first['entropy'] - first['wdl_entropy']:.3f} | " if dist else "- | ")
            + f"{best['entropy']:.3f} ({best['context']}) | {best['huffman']:.3f} |"
        )
    print()
    print("| book | " + " | ".join(CONTEXTS) + " |")
    print("|---|" + "---:|" * len(CONTEXTS))
    for e in entries:
        rows = {r["context"]: r for r in e["rows"]}
        cells = [f"{rows[c]['entropy']:.3f} / {rows[c]['huffman']:.3f}" for c in CONTEXTS]
        print(f"| `{e['book']}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
