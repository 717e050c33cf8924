"""Check parts of a ply's distance book (the 14- and 15-ply books are built in parts)
before they are committed, and the complete books merged and derived from them.

Usage: ``python benchmarks/check_parts.py PART.c4b [...] [--sample 200] [--jobs 1]
[--results benchmarks/results/bookP] [--published [--plies 14]]``, or
``python benchmarks/check_parts.py --cost PART.c4b [...]``: the CPU time the parts'
manifests record, per position and for all parts at that rate.

For each part (``openingbook build --part``; docs/BOOK14.md), every check that applies
to a part on its own:

* the file (``openingbook info``): the CRC-32 over header and payload, the position
  count against the enumeration of the part (``openingbook.solver.enumerate_positions(part=)``),
  every
  position's value decoded and of the right kind;
* the solver (``openingbook check --sample K``): ``K`` positions picked at random
  (seed = the part number) re-solved;
* mirror symmetry: the sampled positions' mirror images get the same answers;
* parity: every distance's winner places the last stone (``formats.thill.parity_faults``);
* the per-ply counts of the part (``openingbook stats --per-ply-counts``): both mirror
  variants of its positions, its immediate wins and finished games, won/drawn/lost.

A complete compact book (the merged 14-ply book, the 13-ply one derived from it) gets
the same checks as one part of one (its sample's seed is 1), and its per-ply counts
must equal the published ones.

The result of each book goes to ``<results>/<book name>.json`` (by default
``benchmarks/results/bookP/``, ``P`` the book's plies). With ``--published``, the counts
of every part found in ``<results>`` (by default those of ``--plies``) are added up;
once all ``n`` parts are there the sum must equal Tromp's position count and Böck's
won/drawn/lost counts (``openingbook.checks.published``). Exit status 1 when a check
fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from openingbook.atomicio import write_json_atomic
from openingbook.checks.check import check_book
from openingbook.checks.plycounts import PlyCounts, add_counts
from openingbook.checks.stats import book_stats
from openingbook.formats.compact import CompactBook, describe_compact
from openingbook.formats.thill import BookFormat
from openingbook.formats.thill.book import parity_faults
from openingbook.solver import mirror_bits

ROOT = Path(__file__).resolve().parent


def check_part(path: Path, sample: int, jobs: int) -> dict:
    """Every check of one part, or of a complete book (see the module docstring)."""
    start = time.perf_counter()
    info = describe_compact(path)
    with CompactBook(path) as book:
        # a complete book is checked as its own only part; its sample's seed is 1
        is_part = book.part is not None
        plies = book.plies
        i, n = book.part or (1, 1)
        first, mask = book.positions()
        fmt = BookFormat.for_plies(book.plies, book.kind != "wdl", *book.board)
        parity = (
            int(parity_faults(fmt, book.values_of(first, mask)).sum())
            if book.kind == "distance"
            else 0
        )
        picks = np.random.default_rng(i).choice(len(first), min(sample, len(first)), False)
        f, m = first[picks], mask[picks]
        w, h = book.board
        plain = book.lookup_many(f, m)
        mirrored = book.lookup_many(mirror_bits(f, w, h), mirror_bits(m, w, h))
        mirror_ok = all(
            np.array_equal(getattr(plain, k), getattr(mirrored, k))
            for k in ("winner", "plies", "score")
        )
    report = check_book(path, sample=sample, seed=i, jobs=jobs)
    counts = book_stats(path, per_ply=True).per_ply
    result = {
        "part": f"{i}/{n}" if is_part else None,
        "plies": plies,
        "file": path.name,
        "bytes": path.stat().st_size,
        "positions": info["positions"],
        "file_checks": info["checks"],
        "values": info["values"],
        "resolved_sample": report.solved,
        "resolved_disagree": len(report.disagreements),
        "check_issues": [f"{x.severity}: {x.message}" for x in report.issues],
        "check_ok": report.ok,
        "mirror_ok": mirror_ok,
        "parity_faults": parity,
        "per_ply_counts": counts.as_dict(),
        "built_by": info["provenance"]["built_by"],
        "seconds": round(time.perf_counter() - start, 1),
    }
    ok = info["ok"] and report.ok and mirror_ok and not parity
    if not is_part:  # a complete book's counts must be the published ones where known
        ok = ok and counts.matches_published is not False
    result["ok"] = bool(ok)
    return result


def add_up(results: Path) -> dict | None:
    """The per-ply counts of every part checked so far, added up when all are there."""
    found = [json.loads(p.read_text()) for p in sorted(results.glob("*.json"))]
    found = [r for r in found if "per_ply_counts" in r and r["part"]]
    if not found:
        return None
    n = int(found[0]["part"].split("/")[1])
    done = sorted(int(r["part"].split("/")[0]) for r in found)
    summary = {"parts_checked": len(done), "parts": n, "all_ok": all(r["ok"] for r in found)}
    if done != list(range(1, n + 1)):
        summary["missing"] = [i for i in range(1, n + 1) if i not in done]
        return summary
    counts = []
    for r in found:
        c = dict(r["per_ply_counts"])
        i, k = (int(v) for v in c.pop("part").split("/"))
        keep = {f: c[f] for f in PlyCounts.__dataclass_fields__ if f in c and f != "part"}
        counts.append(PlyCounts(**keep, part=(i, k)))
    whole = add_counts(counts)
    summary["whole"] = whole.as_dict()
    summary["matches_published"] = whole.matches_published
    return summary


def cost(parts: list[Path]) -> dict:
    """The build's CPU time recorded in the parts' manifests, and what all parts cost at
    that rate (``time.solve_cpu_seconds``: the workers' solving, resumed chunks included)."""
    positions = cpu = 0.0
    n = 0
    for path in parts:
        with CompactBook(path, verify=False) as book:
            manifest = book.header.metadata["source_manifest"]
            n = book.part[1] if book.part else 1
        positions += manifest["positions"]["in_output"]
        cpu += manifest["time"]["solve_cpu_seconds"]
    per_position = cpu / positions if positions else 0.0
    return {
        "parts": len(parts),
        "of": n,
        "positions": int(positions),
        "solve_cpu_seconds": round(cpu, 1),
        "ms_per_position": round(1000 * per_position, 3),
        "core_hours_all_parts": round(cpu / len(parts) * n / 3600, 2) if parts else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("parts", nargs="*", type=Path)
    parser.add_argument("--sample", type=int, default=200, help="positions re-solved per part")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--results", type=Path, help="where results go [results/bookP, P the book's plies]"
    )
    parser.add_argument("--published", action="store_true", help="add up all parts' counts")
    parser.add_argument(
        "--plies", type=int, default=14, help="--published without --results: results/bookP"
    )
    parser.add_argument(
        "--cost", action="store_true", help="the parts' recorded CPU time, no checks"
    )
    args = parser.parse_args()
    if args.cost:
        print(json.dumps(cost(args.parts), indent=1))
        return
    ok = True
    for path in args.parts:
        result = check_part(path, args.sample, args.jobs)
        results = args.results or ROOT / "results" / f"book{result['plies']}"
        results.mkdir(parents=True, exist_ok=True)
        write_json_atomic(results / (path.stem + ".json"), result)
        print(json.dumps(result), flush=True)
        ok &= result["ok"]
    if args.published:
        summary = add_up(args.results or ROOT / "results" / f"book{args.plies}")
        print(json.dumps(summary, indent=1))
        ok &= bool(summary and summary["all_ok"] and summary.get("matches_published", True))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
