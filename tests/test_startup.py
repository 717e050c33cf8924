"""Start-up: commands import only what they use.

Every command pays for the modules it imports before it does anything; numba
alone costs about 0.3 s (and its kernels more). ``--help``, ``lookup`` and
``info`` read no solver, so they must not load numba or dask; ``--help`` (of any
command) needs click alone, not even numpy. Checked in a
fresh interpreter per command (the test process itself has loaded everything).
The timings are in ``benchmarks/bench_startup.py``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_bookfile import REFERENCE

ROOT = Path(__file__).resolve().parents[1]
BOOK8 = REFERENCE / "thill-original-book8.dat"

#: runs the CLI with the arguments of argv[1] (JSON), then prints the heavy modules loaded
_PROBE = """
import json, sys
from openingbook.cli import main
try:
    main(json.loads(sys.argv[1]))
except SystemExit as exc:
    code = exc.code
else:
    code = 0
heavy = ("numba", "dask", "distributed", "llvmlite", "numpy", "bitarray")
loaded = [m for m in heavy if m in sys.modules]
print(json.dumps({"exit": code, "loaded": loaded}), file=sys.stderr)
"""


def _heavy_modules(args: list[str]) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["exit"] in (0, None), done.stderr
    return report["loaded"]


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["lookup", "--help"],
        ["lookup", str(BOOK8), "44444455"],  # not stored: a first-player win
        ["lookup", str(BOOK8), "44444412"],
        ["lookup", str(BOOK8), "--board", "...O.../...X.../...O.../...X.../...O.../XO.X..."],
        ["info", str(BOOK8)],
        ["info", str(BOOK8), "--json"],
    ],
    ids=lambda args: " ".join(Path(a).name for a in args),
)
def test_reading_commands_load_no_solver(args):
    if not BOOK8.exists():
        pytest.fail(f"reference book missing: {BOOK8}")
    assert [m for m in _heavy_modules(args) if m not in ("numpy", "bitarray")] == []


@pytest.mark.parametrize("command", ["", "lookup", "solve", "validate", "build"])
def test_help_loads_no_numpy(command):
    """Help is click alone (the help of export and enumerate lists choices that come
    from their libraries, and loads them)."""
    assert _heavy_modules([command, "--help"] if command else ["--help"]) == []


def test_solver_package_loads_numba_on_first_use():
    code = (
        "import sys, solver\n"
        "from solver import Position, Winner, has_four_bits, can_win_next_bits\n"
        "import solver.enumerate, solver.table\n"
        "assert 'numba' not in sys.modules, 'numba loaded by the light names'\n"
        "from solver import Solver\n"
        "assert 'numba' in sys.modules\n"
        "assert Solver(table_log2=12).solve('4455') == 18\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
