"""What every benchmark's result file records of its run: the command and the date."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def run_info() -> dict[str, str]:
    """``command``: the command line that made the result, as typed in the checkout
    (``python benchmarks/<script> <arguments>``); ``date``: now, UTC."""
    command = ["python", f"benchmarks/{Path(sys.argv[0]).name}", *sys.argv[1:]]
    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {"command": " ".join(command), "date": date}


#: what a user's first runs do: a solve, a batch past the books, an oracle's batch and a
#: compact book's lookups (each starts the background compile of what it lacks)
_FIRST_RUN = """
import numpy as np
from openingbook.oracle import Oracle
from openingbook.solver import Position, Solver
p = Position.from_moves("4444433333")
s = Solver()
s.solve(p)
s.solve_many(np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64))
Oracle().analyze(["", "4453", "444444333333", "4444443333332222", "25777131474464721"])
"""


def wait_for_background_compiles(timeout: float = 1800) -> float:
    """Leave this machine as a user's first runs leave it, their background work done:
    a child process makes those first runs (``openingbook.solver._firstuse`` then compiles the
    fast kernels in the background), then this waits until no background compile holds
    a lock in the native cache. Benchmarks call it first, so that they time the
    configuration users get from then on (the first use is a figure of its own:
    ``bench_first_use.py``); returns the seconds it took."""
    import subprocess

    # their kernels' cache directories
    import openingbook.answers
    import openingbook.formats.compact.book
    import openingbook.solver.search  # noqa: F401
    from openingbook.solver import _firstuse, _native
    from openingbook.solver._native import NATIVE_KERNELS

    start = time.monotonic()
    for _ in range(2):  # the second run finds what the first one's compiles left
        subprocess.run([sys.executable, "-c", _FIRST_RUN], check=True)
        directories = {_native.cache_dir(kernel) for kernel in NATIVE_KERNELS.values()}
        while any(_firstuse.background_locks(d) for d in directories if d is not None):
            if time.monotonic() - start > timeout:
                raise TimeoutError("the background compiles did not end")
            time.sleep(1)
    return time.monotonic() - start


def machine_info() -> dict[str, object]:
    """:func:`run_info`, the processor, Python and the cores."""
    import os
    import platform

    return {
        **run_info(),
        "machine": {
            "processor": platform.machine(),
            "python": sys.version.split()[0],
            "cores": os.cpu_count(),
        },
    }
