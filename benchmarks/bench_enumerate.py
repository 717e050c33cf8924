"""Benchmark: enumerating the book positions of 8 and 12 plies.

Usage: ``python benchmarks/bench_enumerate.py [--quick] [--repeat N] [--out PATH]``

Each case runs in a fresh Python process (so its peak resident memory is its
own): one untimed warm-up call (numba compiles or loads its cache), then
``--repeat`` timed calls (wall and process CPU time: on a shared machine
the CPU time is the steadier figure). Every call's count is checked against the verified
counts of FORMATS.md (8-ply 77,715 / 182,383 raw; 12-ply 4,200,899 /
11,662,778 raw); a mismatch aborts the benchmark. Prints a table and writes
``benchmarks/results/enumerate.json``.

``--quick`` runs the 8-ply cases only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent

#: name -> (call, keyword arguments, expected count or None when not verified elsewhere)
CASES: dict[str, tuple[str, dict, int | None]] = {
    "8-ply book": ("enumerate_positions", {"plies": 8}, 77_715),
    "8-ply raw": (
        "enumerate_positions",
        {"plies": 8, "merge_mirrors": False, "drop_immediate_wins": False},
        182_383,
    ),
    "12-ply book": ("enumerate_positions", {"plies": 12}, 4_200_899),
    "12-ply raw": (
        "enumerate_positions",
        {"plies": 12, "merge_mirrors": False, "drop_immediate_wins": False},
        11_662_778,
    ),
    "12-ply book + move strings": ("positions_with_moves", {"plies": 12}, 4_200_899),
    "12-ply under 44": ("enumerate_positions", {"plies": 12, "under": "44"}, None),
}
QUICK = ("8-ply book", "8-ply raw")


def run_case(name: str, repeat: int) -> dict:
    """Time one case in this process (called in the child)."""
    from openingbook import solver

    func_name, kwargs, expected = CASES[name]
    func = getattr(solver, func_name)
    t0 = time.perf_counter()
    count = func(**kwargs)[0].size
    first_call = time.perf_counter() - t0
    times = []
    cpu = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        c0 = time.process_time()
        result = func(**kwargs)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        count = result[0].size
        del result
    if expected is not None and count != expected:
        raise SystemExit(f"{name}: counted {count:,}, expected {expected:,}")
    return {
        "case": name,
        "call": f"solver.{func_name}(**{kwargs!r})",
        "count": count,
        "expected": expected,
        "first_call_s": round(first_call, 3),
        "times_s": [round(t, 3) for t in times],
        "min_s": round(min(times), 3),
        "median_s": round(statistics.median(times), 3),
        "cpu_s": [round(t, 3) for t in cpu],
        "min_cpu_s": round(min(cpu), 3),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def baseline_rss() -> float:
    """Peak RSS of a process that only imports the package (MiB)."""
    code = (
        "import resource, solver;print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return round(float(out.stdout), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="8-ply cases only")
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per case")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "enumerate.json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_case(args.child, args.repeat)))
        return

    names = QUICK if args.quick else tuple(CASES)
    results = []
    load_before = [round(x, 2) for x in os.getloadavg()]
    header = f"{'case':28} {'count':>11} {'min s':>7} {'median s':>9} {'min cpu s':>10}"
    print(f"{header} {'peak MiB':>9}")
    for name in names:
        proc = subprocess.run(
            [sys.executable, __file__, "--child", name, "--repeat", str(args.repeat)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise SystemExit(proc.stderr.strip() or f"{name} failed")
        row = json.loads(proc.stdout)
        results.append(row)
        print(
            f"{name:28} {row['count']:>11,} {row['min_s']:>7.2f} {row['median_s']:>9.2f} "
            f"{row['min_cpu_s']:>10.2f} {row['peak_rss_mib']:>9.0f}"
        )
    base = baseline_rss()
    print(f"(import-only process peak: {base:.0f} MiB)")
    report = {
        "benchmark": "enumerate",
        "command": "python benchmarks/bench_enumerate.py" + (" --quick" if args.quick else ""),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average_at_start": load_before,
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        },
        "import_only_peak_rss_mib": base,
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    from openingbook.atomicio import write_json_atomic

    write_json_atomic(args.out, report)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
