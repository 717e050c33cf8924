"""Exact machine instructions per search node of the solver kernel, under valgrind.

Usage: ``python benchmarks/count_instructions.py [--positions 16] [--cpu haswell]
[--out benchmarks/results/instructions.json]``

Times on this shared host move by 10-30% between identical runs; instruction counts
do not, and the search is compute-bound, so they are the yardstick for small changes
to the kernel (the instruction counts in benchmarks/DECISIONS.md were measured this way).

How: the kernel (the batch entry kernel of a 7x6 solver without a book,
``openingbook.solver.search._solve_batch_7x6``, and everything it calls) is compiled
ahead of time with ``numba.pycc`` into an extension module that imports with numpy
alone (importing numba under valgrind takes many minutes). The module solves
``--positions`` consecutive 12-ply positions of the build's order (from one eighth
into the book, exact scores, fresh default-size tables) under ``valgrind
--tool=cachegrind``, and again with no position; the difference over the nodes
searched is the figure. ``--cpu`` is the code generation target: valgrind does not
decode AVX-512, which numba would emit for this machine's Zen 4 (``host``), so the
default is ``haswell`` (AVX2). Needs valgrind (Debian's package) on the PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from runinfo import run_info

from openingbook.atomicio import write_json_atomic
from openingbook.solver import DEFAULT_BOARD, Solver, enumerate_positions, search

ROOT = Path(__file__).resolve().parent
#: the batch entry kernel's types: the positions, then the search's arrays as one tuple
#: (big, small, tparams, geo, order, col_masks, stack, stats, book)
_SIGNATURE = (
    "void(u8[::1], u8[::1], i1[::1], b1, i1[::1], Tuple((u8[::1], u8[::1], i8[::1], i8[::1],"
    " i8[::1], u8[::1], u8[::1], i8[::1], u8[::1])))"
)
# run under valgrind: numpy and the compiled module only
_DRIVER = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import kernel_aot
d = np.load(sys.argv[2])
n = int(sys.argv[3])
out = np.zeros(n, np.int8)
stats = np.zeros(4, np.int64)  # nodes, stopped, nodes of the mirror-free kernel, book hits
state = (
    np.zeros(int(d["big"]), np.uint64), np.zeros(int(d["small"]), np.uint64),
    d["tparams"], d["geo"], d["order"], d["col_masks"], d["stack"], stats, d["book"],
)
kernel_aot.solve_batch(
    d["first"][:n].copy(), d["mask"][:n].copy(), out, False, np.zeros(0, np.int8), state
)
print("nodes", int(stats[0]), "scores", ",".join(map(str, out.tolist())))
"""


def compile_kernel(directory: Path, cpu: str) -> None:
    from numba.pycc import CC

    cc = CC("kernel_aot")
    cc.output_dir = str(directory)
    cc.target_cpu = cpu
    cc.verbose = False
    # the entry kernel's function: its board and book choice are constants of it
    cc.export("solve_batch", _SIGNATURE)(search._ENTRY_KERNELS[True, False][1].py_func)
    cc.compile()


def instructions(directory: Path, count: int) -> tuple[int, int, str]:
    """(instructions, nodes, scores) of the driver solving ``count`` positions."""
    result = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            sys.executable,
            str(directory / "driver.py"),
            str(directory),
            str(directory / "inputs.npz"),
            str(count),
        ],
        capture_output=True,
        text=True,
        check=True,
        # numpy's BLAS threads spin for a while at start-up: their instructions vary
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
    )
    refs = re.search(r"I\s+refs:\s+([\d,]+)", result.stderr)
    nodes = re.search(r"^nodes (\d+) scores (.*)$", result.stdout, re.M)
    if refs is None or nodes is None:
        raise RuntimeError("valgrind run failed:\n" + result.stderr[-2000:])
    return int(refs.group(1).replace(",", "")), int(nodes.group(1)), nodes.group(2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=16, help="consecutive positions")
    parser.add_argument("--cpu", default="haswell", help="LLVM target of the compiled kernel")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "instructions.json")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("count_instructions: valgrind is not on the PATH (Debian package 'valgrind')")

    first, mask = enumerate_positions(12, None, *DEFAULT_BOARD)
    start = len(first) // 8
    first, mask = first[start : start + args.positions], mask[start : start + args.positions]
    solver = Solver()
    ((big, small, tparams, geo, order, col_masks, stack, _, book),) = solver._kernel_args()
    with tempfile.TemporaryDirectory(prefix="count-instructions-") as tmp:
        directory = Path(tmp)
        np.savez(
            directory / "inputs.npz",
            first=first,
            mask=mask,
            big=big.size,
            small=small.size,
            tparams=tparams,
            geo=geo,
            order=order,
            col_masks=col_masks,
            stack=stack,
            book=book,
        )
        (directory / "driver.py").write_text(_DRIVER)
        began = time.perf_counter()
        compile_kernel(directory, args.cpu)
        total, nodes, scores = instructions(directory, args.positions)
        baseline, _, _ = instructions(directory, 0)
        seconds = time.perf_counter() - began
    expected = solver.solve_many(first, mask)
    if scores != ",".join(map(str, expected.tolist())):
        raise RuntimeError("the compiled kernel's scores differ from the solver's")
    kernel = total - baseline
    results = {
        "benchmark": "machine instructions per search node (valgrind, ahead-of-time kernel)",
        **run_info(),
        "target_cpu": args.cpu,
        "positions": args.positions,
        "first_position_index": start,
        "nodes": nodes,
        "instructions": kernel,
        "instructions_per_node": round(kernel / nodes, 1),
        "seconds": round(seconds, 1),
    }
    print(json.dumps(results, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, results)


if __name__ == "__main__":
    main()
