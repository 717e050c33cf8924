"""Start-up: commands import only what they use.

Every command pays for the modules it imports before it does anything: numba
alone costs about 0.2 s (plus the scipy it pulls in), loading its cached kernels
0.3 s more. ``--help`` (of any command) needs click alone, not even numpy;
``lookup`` and ``info`` of a Thill book load no solver, and a lookup in a
compact book none of the Thill reader's modules (``info`` of a compact book
decodes every position, with the compiled enumeration: it loads numba); an
analysis the books answer loads no search; ``solve`` and a lookup (the status
check of every reader, a compact book's table) run their kernels from the native
cache (:mod:`openingbook.solver._native`) and never load numba once the cache is warm. Checked in
a fresh interpreter per command (the test process itself has loaded
everything), by the modules loaded, never by time: the timings are in
``benchmarks/bench_startup.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REFERENCE

ROOT = Path(__file__).resolve().parents[1]
BOOK8 = REFERENCE / "thill-original-book8.dat"
COMPACT8 = ROOT / "books" / "book8.c4b"
SCOPED8 = ROOT / "books" / "book8-under44444.c4b"
#: never loaded by a reading command, nor by solve once the native cache is warm
SOLVER_MODULES = ("numba", "llvmlite", "scipy", "dask", "distributed", "multiprocess")
#: what a lookup in a compact book does not need either: the whole-book model
WHOLE_BOOK = ("openingbook.model",)
#: what the engine's lookups (``analyze``, ``best``: compact books) do not need: any other
#: format's module (the registry in ``openingbook.formats`` loads them when first asked),
#: so neither Thill's format nor its codec
REGISTRY = (
    "openingbook.formats.thill",
    "openingbook.formats.thill.book",
    "openingbook.formats.cadot",
    "openingbook.formats.pons",
    "openingbook.formats.tabular",
    "openingbook.formats.npz",
    "openingbook.codec",
    "bitarray",
)

#: runs the CLI with the arguments of argv[1] (JSON), then prints the modules loaded
_PROBE = """
import json, sys
from openingbook.cli import main
try:
    main(json.loads(sys.argv[1]))
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({"exit": code, "loaded": sorted(sys.modules)}), file=sys.stderr)
"""


def _loaded_modules(args: list[str], env: dict[str, str] | None = None) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})),
        cwd=ROOT,
        check=False,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["exit"] in (0, None), done.stderr
    return set(report["loaded"])


def _top_level(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if n in modules)


@pytest.fixture(scope="module")
def warm_native_cache() -> None:
    """Run each native kernel once in its own process: the first run of a kernel
    (with numba) saves its library. ``solve`` has two kernels (the search, and the
    batch one its warm-up uses); the compact lookup one, and the status check every
    reader's single lookup runs (:func:`openingbook.answers.nb_position_status`)."""
    for _ in range(2):
        _loaded_modules(["solve", "44444455", "--threads", "1"])
    _loaded_modules(["lookup", str(COMPACT8), "44444455"])
    _loaded_modules(["lookup", str(BOOK8), "44444455"])


@pytest.mark.parametrize(
    "args",
    [
        ["lookup", str(BOOK8), "44444455"],  # not stored: a first-player win
        ["lookup", str(BOOK8), "44444412"],
        ["lookup", str(BOOK8), "--board", "...O.../...X.../...O.../...X.../...O.../XO.X..."],
        ["info", str(BOOK8)],
        ["info", str(BOOK8), "--json"],
        ["books"],
    ],
    ids=lambda args: " ".join(Path(a).name for a in args),
)
def test_reading_commands_load_no_solver(warm_native_cache, args):
    if not BOOK8.exists():
        pytest.fail(f"reference book missing: {BOOK8}")
    assert _top_level(_loaded_modules(args), SOLVER_MODULES) == []


@pytest.mark.parametrize(
    "args",
    [
        ["lookup", str(COMPACT8), "44444455"],
        ["lookup", str(COMPACT8), "44444412", "--json"],
        ["lookup", str(SCOPED8), "44444412"],
        ["lookup", "8", "44444455"],  # a shipped book by name
        ["analyze", ""],  # every column from the shipped 1-ply book
        ["analyze", "4453", "--json"],
        ["best", "44444433333"],
    ],
    ids=lambda args: " ".join(Path(a).name for a in args),
)
def test_compact_lookups_load_no_solver_nor_whole_book_model(warm_native_cache, args):
    loaded = _loaded_modules(args)
    assert _top_level(loaded, SOLVER_MODULES) == []
    assert _top_level(loaded, WHOLE_BOOK) == []
    if args[0] != "lookup":  # ``lookup`` opens any book through the registry
        assert _top_level(loaded, REGISTRY) == []


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "44444455", "--threads", "1"],
        ["solve", "44444455"],
        ["solve", "4453", "--json"],
        ["analyze", "44444433333312"],  # past the books: the solver
    ],
    ids=" ".join,
)
def test_solve_with_a_warm_cache_loads_no_numba(warm_native_cache, args):
    assert _top_level(_loaded_modules(args), SOLVER_MODULES) == []


@pytest.mark.parametrize(
    "args",
    [
        ["analyze", ""],  # the 1-ply book
        ["analyze", "444333"],  # a 6-ply position: the 7-ply book
        ["analyze", "4453", "--json"],
        ["best", "44444433333"],  # 11 stones: the 12-ply book
        ["analyze", "12134724515216"],  # 14 stones: the 15-ply book (28.5 MB), checked
    ],
    ids=" ".join,
)
def test_analysis_the_books_answer_loads_no_search(warm_native_cache, args):
    """A position whose moves the books hold needs no search: neither the solver's
    search module (nor the table it allocates) nor the negamax bridge is loaded."""
    loaded = _loaded_modules(args)
    assert (
        _top_level(
            loaded, ("openingbook.solver.search", "openingbook.pipeline.negamax", *SOLVER_MODULES)
        )
        == []
    )


def test_solve_without_the_native_cache_loads_numba():
    """The fallback: numba serves (and the answer is the same, see test_native.py)."""
    loaded = _loaded_modules(["solve", "44444455", "--threads", "1"], {"OPENINGBOOK_NATIVE": "0"})
    assert "numba" in loaded


@pytest.mark.parametrize(
    "command", ["", "lookup", "solve", "validate", "build", "info", "analyze", "best"]
)
def test_help_loads_no_numpy(command):
    """Help is click alone (the help of export and enumerate lists choices that come
    from their libraries, and loads them)."""
    loaded = _loaded_modules([command, "--help"] if command else ["--help"])
    assert _top_level(loaded, ("numpy", "bitarray", *SOLVER_MODULES)) == []


def test_solver_package_loads_numba_on_first_numba_run():
    code = (
        "import sys, openingbook.solver\n"
        "from openingbook.solver import Position, Winner, has_four_bits, can_win_next_bits\n"
        "from openingbook.solver import Solver\n"
        "import openingbook.solver.enumerate, openingbook.solver.table, openingbook.solver.search\n"
        "import openingbook.solver.membership\n"
        "import openingbook.formats.compact.book, openingbook.formats.compact.retrieval\n"
        "assert 'numba' not in sys.modules, 'numba loaded by an import'\n"
        "assert Solver(table_log2=12).solve('4455') == 18\n"
        "assert 'numba' in sys.modules, 'no native path here: numba solves'\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENINGBOOK_NATIVE="0")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr


def test_the_second_solve_loads_no_numba(tmp_path):
    """The first run saves the native library of the one kernel a solve runs (that of
    a 7x6 solver without a book, no batch kernel): the second runs without numba."""
    env = {"OPENINGBOOK_NATIVE_DIR": str(tmp_path / "native")}  # empty: a first run
    assert "numba" in _loaded_modules(["solve", "44444455", "--threads", "1"], env)
    assert sorted(p.name.split("-")[0] for p in (tmp_path / "native").glob("*.so")) == [
        "openingbook.solver.search._solve_one_7x6",
    ]
    assert _top_level(_loaded_modules(["solve", "44444455"], env), SOLVER_MODULES) == []
