"""Benchmark: ``openingbook solve --file -`` as a user runs it, against BitBully, c4 and
Pons' solver on the same positions, in the same run.

Usage: ``python benchmarks/bench_solve_file.py [--sets families,random]
[--repeat R] [--c4 PATH] [--pons PATH] [--out PATH]``

The command runs in a child process exactly as typed (``openingbook solve --file -``,
no option, the default configuration after a first run's background work:
``runinfo.wait_for_background_compiles``), the positions on its standard input; its
figure is the child's CPU time, user and system (``resource.RUSAGE_CHILDREN``): the
interpreter's start, the imports, the table and every search included. The peers:
BitBully's ``BitBullyCore.mtdf`` in this process (its CPU time around the calls only),
c4's batch driver and Pons' ``c4solver`` as child processes (their CPU, user and
system; see ``bench_solver.py`` and ``benchmarks/DECISIONS.md`` for how they are built).
The sets are ``bench_solver.py``'s (``families``: every 12-ply descendant of three
8-ply positions; ``random``: 300 random 12-ply positions). With ``--repeat R`` every
engine runs R times, alternating, and the minimum counts. Goal (issue 43): at most 0.3
of c4's and of BitBully's CPU on the families. Every score is compared with BitBully's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from bench_solver import bitbully_engine, set_positions
from runinfo import machine_info, wait_for_background_compiles

from openingbook.atomicio import write_json_atomic

ROOT = Path(__file__).resolve().parent


#: the children's environment: Python's bytecode cache on, as in any installation (this
#: host's environment turns it off, which makes every start compile the modules again)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def child_cpu(argv: list[str], lines: list[str]) -> tuple[float, str]:
    """CPU seconds (user + system) of a child reading ``lines``, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        argv, input="".join(f"{m}\n" for m in lines), capture_output=True, text=True,
        check=True, env=ENV,
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stdout


def ours(lines: list[str]) -> tuple[float, list[int]]:
    argv = [sys.executable, "-c", "from openingbook.cli import main; main()"]
    cpu, out = child_cpu([*argv, "solve", "--file", "-", "--json"], lines)
    return cpu, [json.loads(row)["score"] for row in out.splitlines()]


def last_fields(out: str, field: int) -> list[int]:
    rows = [r.split() for r in out.splitlines() if r.strip()]
    return [int(r[field]) for r in rows if len(r) >= 2 and r[field].lstrip("-").isdigit()]


def differences(scores: list[int], reference: list[int]) -> int:
    """Positions whose scores differ (a missing answer counts as one)."""
    return sum(a != b for a, b in zip(scores, reference, strict=False)) + abs(
        len(scores) - len(reference)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="families,random")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--c4", type=Path, help="c4 batch driver (moves score cpu_ms wall_ms)")
    parser.add_argument("--pons", type=Path, help="Pons' c4solver binary")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "solve_file.json")
    args = parser.parse_args()
    waited = wait_for_background_compiles()
    bitbully = bitbully_engine()
    engines = {"openingbook solve --file -": ours}
    if bitbully is not None:

        def run_bitbully(lines: list[str]) -> tuple[float, list[int]]:
            scores, ms = bitbully(lines)
            return sum(ms) / 1000, scores

        engines["bitbully"] = run_bitbully
    if args.c4:
        engines["c4"] = lambda lines: (lambda c: (c[0], last_fields(c[1], -3)))(
            child_cpu([str(args.c4)], lines)
        )
    if args.pons:
        engines["pons"] = lambda lines: (lambda c: (c[0], last_fields(c[1], -1)))(
            child_cpu([str(args.pons)], lines)
        )
    result: dict = {**machine_info(), "background_compiles_waited_s": round(waited, 1)}
    for name in args.sets.split(","):
        lines = set_positions(name, False)
        cpu: dict[str, list[float]] = {engine: [] for engine in engines}
        scores: dict[str, list[int]] = {}
        for _ in range(args.repeat):
            for engine, run in engines.items():
                seconds, got = run(lines)
                cpu[engine].append(seconds)
                scores[engine] = got
                print(f"{name}: {engine} {seconds:.3f} s", flush=True)
        best = {engine: min(times) for engine, times in cpu.items()}
        ours_cpu = best["openingbook solve --file -"]
        reference = scores.get("bitbully")
        result[name] = {
            "positions": len(lines),
            "cpu_s": {engine: round(t, 3) for engine, t in best.items()},
            "cpu_s_runs": {engine: [round(t, 3) for t in ts] for engine, ts in cpu.items()},
            "ratio_ours_to": {
                engine: round(ours_cpu / t, 3) for engine, t in best.items() if t > 0
            },
            "disagree_with_bitbully": None
            if reference is None
            else {engine: differences(got, reference) for engine, got in scores.items()},
        }
        print(json.dumps(result[name], indent=1), flush=True)
    write_json_atomic(args.out, result)
    bad = [r["disagree_with_bitbully"] for k, r in result.items() if isinstance(r, dict)
           and r.get("disagree_with_bitbully")]  # fmt: skip
    return 1 if any(any(d.values()) for d in bad) else 0


if __name__ == "__main__":
    raise SystemExit(main())
