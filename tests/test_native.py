"""The native cache (openingbook/solver/_native.py): the same search and lookups without numba.

These tests need a C compiler (``$CC`` or ``cc``), as the native path does; one
test checks that numba serves without one.

The kernels decorated ``native=True`` run from a shared library made of their
numba-compiled code. Checked here: the library and numba give the same scores,
the same node counts (the very same search) and the same lookups; processes with
a warm cache never import numba, with one or several threads; without a C
compiler, or with the native path turned off, numba serves and the answers are
the same. The timings are in ``benchmarks/bench_startup.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from openingbook.solver import DEFAULT_BOARD, NO_LOWER_BOUND, Position, Solver, _native
from openingbook.solver._native import NATIVE_KERNELS

ROOT = Path(__file__).resolve().parents[1]
#: the entry kernels of a 7x6 solver without a book (solver.search._entry_kernels)
SOLVE_ONE = "openingbook.solver.search._solve_one_7x6"
SOLVE_BATCH = "openingbook.solver.search._solve_batch_7x6"
LOOKUP_ONE = "openingbook.formats.compact.book._lookup_one"


@pytest.fixture(scope="module")
def reference_lines(reference_dir: Path) -> list[tuple[str, int]]:
    """The quicker half of the reference positions (those with the most stones)."""
    lines = []
    for line in (reference_dir / "solver-scores.txt").read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            lines.append((moves, int(score)))
    lines.sort(key=lambda ms: -len(ms[0]))
    return lines[: len(lines) // 2]


def _solve_args(solver: Solver, pos: Position, wdl: bool = False) -> tuple:
    """The arguments ``Solver`` passes to the one-position kernel (no guess, the
    walk's first window at 0)."""
    return (np.uint64(pos.current), np.uint64(pos.mask), wdl, False, 0, NO_LOWER_BOUND, 0,
            *solver._kernel_args())  # fmt: skip


def _ensure_library(name: str, args: tuple) -> None:
    """Build the kernel's library (from a run on ``args``) unless it exists."""
    kernel = NATIVE_KERNELS[name]
    if _native.call(kernel, args) is _native.UNAVAILABLE:
        _native._LIBRARIES.pop((kernel, _native._signature(args)), None)
        _native.run_and_build(kernel, args)
        _native._LIBRARIES.pop((kernel, _native._signature(args)), None)
    assert _native.call(kernel, args) is not _native.UNAVAILABLE, (
        f"no native library for {name}: "
        + _read_failure(_native.library_path(kernel, _native._signature(args)))
    )


def _read_failure(path: Path) -> str:
    failed = path.with_suffix(".failed")
    return failed.read_text() if failed.exists() else "(no failure recorded)"


def _tiny_solver() -> Solver:
    """A 7x6 solver with a small table: the kernels of the reference positions' board."""
    return Solver(table_log2=10)


def _near_the_end() -> Position:
    """A 7x6 position a few cells from the end: a library is built from a run on it."""
    from openingbook.solver.search import _warm_up_position

    return _warm_up_position(7, 6)


def test_signatures():
    sig = _native._signature
    arr = np.zeros((3, 4), np.uint64)
    assert sig((True, 5, np.uint64(7), arr, np.zeros(2, np.int8))) == "b,i,s:L,A:L2,A:b1"
    assert sig((np.bool_(True), 1.5)) == "b,f"
    assert sig((arr[:, ::2],)) is None  # not contiguous: numba would compile another kernel
    assert sig(("text",)) is None
    assert sig((1 << 70,)) is None
    assert sig((np.zeros(2, np.bool_),)) is None
    # a tuple (the search's arrays travel as one): its items in parentheses, one level
    assert sig((1, (arr, np.zeros(2, np.int8)))) == "i,(A:L2 A:b1)"
    assert sig(((1, (2,)),)) is None
    assert _native._plan("i,(A:L2 A:b1)") == [("scalar", "q", 0), ("tuple", "A:L2,A:b1", 2)]
    assert _native._plan("b,i,s:L,A:L2") == [
        ("bool", "?", 0),
        ("scalar", "q", 0),
        ("scalar", "L", 0),
        ("array", "L", 2),
    ]


def test_native_search_is_numbas_search(reference_lines):
    """Same scores and the same number of nodes, position after position, tables kept."""
    tiny = _tiny_solver()
    _ensure_library(SOLVE_ONE, _solve_args(tiny, _near_the_end()))
    kernel = NATIVE_KERNELS[SOLVE_ONE]
    by_numba, by_native = Solver(table_log2=20), Solver(table_log2=20)
    for i, (moves, expected) in enumerate(reference_lines):
        pos = Position.from_moves(moves)
        wdl = i % 3 == 0
        numba_score = kernel.dispatcher()(*_solve_args(by_numba, pos, wdl))
        native_score = _native.call(kernel, _solve_args(by_native, pos, wdl))
        assert native_score == numba_score == (np.sign(expected) if wdl else expected), moves
        assert by_native.nodes == by_numba.nodes, moves
    assert np.array_equal(by_native.table.big, by_numba.table.big)


def test_native_batch_is_numbas_batch(reference_lines):
    tiny, pos = _tiny_solver(), _near_the_end()
    first, mask = np.array([pos.first_stones], np.uint64), np.array([pos.mask], np.uint64)
    no_bounds = np.zeros(0, np.int8)
    args = (first, mask, np.zeros(1, np.int8), True, no_bounds, *tiny._kernel_args())
    _ensure_library(SOLVE_BATCH, args)
    kernel = NATIVE_KERNELS[SOLVE_BATCH]
    positions = [Position.from_moves(m) for m, _ in reference_lines[:30]]
    first = np.array([p.first_stones for p in positions], np.uint64)
    mask = np.array([p.mask for p in positions], np.uint64)
    results = []
    for run in (kernel.dispatcher(), lambda *a: _native.call(kernel, a)):
        solver, out = Solver(table_log2=20), np.zeros(len(positions), np.int8)
        assert run(first, mask, out, False, no_bounds, *solver._kernel_args()) is None
        results.append((out, solver.nodes))
    assert np.array_equal(results[0][0], results[1][0]) and results[0][1] == results[1][1]
    assert results[0][0].tolist() == [s for _, s in reference_lines[:30]]


@pytest.mark.parametrize(
    "book",
    ["books/book8.c4b", "books/book8-under44444.c4b", "tests/data/compact-v2/book8-under44444.c4b"],
)
def test_native_compact_lookup_is_numbas(book):
    """Book positions, positions outside the scope, of another ply, with a four, ...;
    the kernel of the book's version (the shipped books are of version 3, the kept test
    book of version 2)."""
    from openingbook.formats.compact import CompactBook
    from openingbook.solver import enumerate_positions

    rng = np.random.default_rng(7)
    with CompactBook(ROOT / book) as compact:
        name = LOOKUP_ONE if compact.header.version == 2 else f"{LOOKUP_ONE}_v3"
        kernel = NATIVE_KERNELS[name]
        tables = (*compact._kernel_args(), *compact._one_args)
        _ensure_library(name, (np.uint64(0), np.uint64(0), *tables))
        first, mask = enumerate_positions(8, None, *DEFAULT_BOARD)
        picks = rng.choice(len(first), 300, replace=False)
        cases = [(int(first[i]), int(mask[i])) for i in picks]
        cases += [(int(rng.integers(0, 1 << 48)), int(rng.integers(0, 1 << 48))) for _ in range(50)]
        cases += [
            (Position.from_moves(m).first_stones, Position.from_moves(m).mask)
            for m in ("4444", "44444455", "1234567123456712", "11112222")
        ]
        for f, m in cases:
            args = (np.uint64(f), np.uint64(m), *tables)
            assert _native.call(kernel, args) == kernel.dispatcher()(*args), (f, m)


def _run(code: str, env: dict[str, str] | None = None) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON line last."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})),
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


_SOLVE_PROCESS = """
import json, sys
from openingbook.solver import Solver
lines = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {lines!r}
Solver(table_log2=10).warm_up()
scores = {{}}
for threads in (1, 2):
    s = Solver(table_log2=18, threads=threads)
    scores[threads] = [s.solve(m) for m, _ in lines]
print(json.dumps({{"scores": scores, "numba": "numba" in sys.modules,
                  "scipy": "scipy" in sys.modules}}))
"""


def test_processes_with_a_warm_cache_never_load_numba(reference_lines, tmp_path):
    """A fresh cache directory: the first process builds (with numba), the next ones
    solve with one and two threads without numba; exact scores throughout."""
    lines = reference_lines[:12]
    code = _SOLVE_PROCESS.format(lines=lines)
    env = {"OPENINGBOOK_NATIVE_DIR": str(tmp_path)}
    runs = [_run(code, env) for _ in range(3)]  # both kernels built by the first process
    expected = [s for _, s in lines]
    for run in runs:
        assert run["scores"] == {"1": expected, "2": expected}
    assert runs[0]["numba"]
    for run in runs[1:]:
        assert not run["numba"] and not run["scipy"], sorted(tmp_path.iterdir())
    assert not list(tmp_path.glob("*.failed"))
    assert len(list(tmp_path.glob("*.so"))) == 2


def test_without_a_compiler_numba_serves(reference_lines, tmp_path):
    """No C compiler: numba solves, answers exact; with one, the next process builds."""
    lines = reference_lines[:4]
    code = _SOLVE_PROCESS.format(lines=lines)
    env = {"OPENINGBOOK_NATIVE_DIR": str(tmp_path), "CC": str(tmp_path / "no-such-cc")}
    for _ in range(2):
        run = _run(code, env)
        assert run["numba"] and run["scores"]["1"] == [s for _, s in lines]
    assert not list(tmp_path.iterdir())  # nothing built, no failure remembered
    del env["CC"]
    _run(code, env)
    assert len(list(tmp_path.glob("*.so"))) == 2  # the warm-up's two kernels


def test_a_failed_build_is_remembered(reference_lines, tmp_path):
    """A compiler that fails: numba solves, the failure is written down and not retried."""
    fake = tmp_path / "bin" / "cc"
    fake.parent.mkdir()
    log = tmp_path / "cc.log"
    fake.write_text(f"#!/bin/sh\necho called >> {log}\necho 'this compiler fails' >&2\nexit 1\n")
    fake.chmod(0o755)
    lines = reference_lines[:4]
    cache = tmp_path / "cache"
    env = {"OPENINGBOOK_NATIVE_DIR": str(cache), "CC": str(fake)}
    for _ in range(3):
        run = _run(_SOLVE_PROCESS.format(lines=lines), env)
        assert run["numba"] and run["scores"]["2"] == [s for _, s in lines]
    # each kernel's build failed once, in the first process; after that numba serves
    assert log.read_text() == "called\ncalled\n"
    failed = list(cache.glob("*.failed"))
    assert len(failed) == 2 and all("this compiler fails" in f.read_text() for f in failed)
    assert not list(cache.glob("*.so"))


def test_a_search_its_time_limit_stopped_builds_nothing(tmp_path):
    """A stopped search returns early; the library run again on the same arguments would
    finish: such a run is never the check of a new library (no false '.failed')."""
    code = (
        "import json\n"
        "from openingbook.solver import SearchTimeout, Solver\n"
        "try:\n"
        "    Solver(table_log2=16).solve('', time_limit=0.01)\n"
        "except SearchTimeout:\n"
        "    print(json.dumps({'stopped': True}))\n"
    )
    env = {"OPENINGBOOK_NATIVE_DIR": str(tmp_path)}
    assert _run(code, env) == {"stopped": True}
    assert not list(tmp_path.iterdir())
    _run(
        "import json; from openingbook.solver import Solver; Solver(10).warm_up(); print('{}')", env
    )
    assert list(tmp_path.glob("*.so")) and not list(tmp_path.glob("*.failed"))


def test_native_path_can_be_turned_off(reference_lines, tmp_path):
    lines = reference_lines[:4]
    env = {"OPENINGBOOK_NATIVE": "0", "OPENINGBOOK_NATIVE_DIR": str(tmp_path)}
    run = _run(_SOLVE_PROCESS.format(lines=lines), env)
    assert run["numba"] and run["scores"]["2"] == [s for _, s in lines]
    assert not list(tmp_path.iterdir())


def test_a_changed_source_is_a_new_library():
    """The key covers every solver module and the kernel's own modules."""
    kernel = NATIVE_KERNELS[LOOKUP_ONE]
    files = {p.name for p in _native._module_files(kernel)}
    own = {"book.py", "retrieval.py", "answers.py"}  # answers: the status it inlines
    assert {"search.py", "bitops.py", "membership.py", *own} <= files
    signature = "i,i"
    path = _native.library_path(kernel, signature)
    assert path.name.startswith("openingbook.formats.compact.book._lookup_one-")
    assert _native.library_path(kernel, "i,b") != path


def test_a_damaged_library_is_not_used(reference_lines, tmp_path):
    """A library that does not load (truncated, say): numba serves, answers exact."""
    lines = reference_lines[:4]
    code = _SOLVE_PROCESS.format(lines=lines)
    env = {"OPENINGBOOK_NATIVE_DIR": str(tmp_path)}
    for _ in range(2):
        _run(code, env)
    libraries = sorted(tmp_path.glob("*.so"))
    assert len(libraries) == 2
    for library in libraries:
        library.write_bytes(library.read_bytes()[:100])
    run = _run(code, env)
    assert run["numba"] and run["scores"]["2"] == [s for _, s in lines]


def test_a_failing_private_path_falls_back_to_numba(reference_lines, tmp_path):
    """The build's one dependence on numba's internals (the runtime of _RUNTIME_C) or any
    other step of it failing: numba compiles and serves, the answers are the same, and
    the failure is written down beside the library's name."""
    lines = reference_lines[:4]
    code = (
        "import openingbook.solver._native as native\n"
        "native._RUNTIME_C = '#error numba changed its runtime\\n'\n"
        + _SOLVE_PROCESS.format(lines=lines)
    )
    env = {"OPENINGBOOK_NATIVE_DIR": str(tmp_path)}
    expected = [s for _, s in lines]
    for _ in range(2):
        run = _run(code, env)
        assert run["numba"] and run["scores"] == {"1": expected, "2": expected}
    failed = list(tmp_path.glob("*.failed"))
    assert failed and all("numba changed its runtime" in f.read_text() for f in failed)
    assert not list(tmp_path.glob("*.so"))


def test_an_untested_numba_builds_nothing(reference_lines, tmp_path):
    """Under a numba outside the tested range numba's own compilation and cache serve,
    with the same answers; nothing is built and no failure is remembered (the next
    numba may be a tested one)."""
    lines = reference_lines[:4]
    code = "import openingbook.solver._native as native\nnative.TESTED_NUMBA = ((0, 1), (0, 2))\n"
    env = {"OPENINGBOOK_NATIVE_DIR": str(tmp_path)}
    run = _run(code + _SOLVE_PROCESS.format(lines=lines), env)
    assert run["numba"] and run["scores"]["1"] == run["scores"]["2"] == [s for _, s in lines]
    assert not list(tmp_path.iterdir())


def test_the_declared_numba_range_is_the_tested_one():
    """pyproject.toml declares the numba versions the native cache was tested with."""
    import re
    from importlib.metadata import version

    text = (ROOT / "pyproject.toml").read_text()
    low, high = _native.TESTED_NUMBA
    assert f'"numba>={low[0]}.{low[1]},<{high[0]}.{high[1]}"' in text
    assert _native.numba_tested(), version("numba")
    assert re.search(r'"numba>=[^"]*<', text)


def test_the_native_runtime_is_numbas():
    """The one dependence on numba's internals, :data:`openingbook.solver._native._RUNTIME_C`: its
    memory record is numba's (refct, dtor, dtor_info, data, size; the compiled code reads
    ``data``), it defines every entry point it names, and numba's code for a kernel that
    allocates and raises calls nothing else. A numba that changes any of them fails here,
    by name."""
    import re

    import llvmlite.binding as ll
    import numba
    from numba.core.runtime import nrtdynmod

    assert str(nrtdynmod._meminfo_struct_type) == "{i64, i8*, i8*, i8*, i64}"
    record = re.search(r"typedef struct \{(.*?)\} meminfo;", _native._RUNTIME_C, re.S)
    assert record is not None
    fields = re.findall(r"(\w+);", record.group(1))
    assert fields[:5] == ["refct", "dtor", "dtor_info", "data", "size"]
    for name in _native.RUNTIME_FUNCTIONS:
        assert re.search(rf"\b{name}\([^;]*\{{", _native._RUNTIME_C), name

    @numba.cfunc("int64(int64)")
    def scratch(n):
        values = np.zeros(n, np.int64)  # numba's memory record
        if n > 100:
            raise ValueError("too many")  # numba's error path
        return values.sum()

    module = ll.parse_assembly(scratch.inspect_llvm())
    assert _native.unprovided(module) == []
    declared = {f.name for f in module.functions if f.is_declaration}
    assert "NRT_MemInfo_alloc_aligned" in declared  # what the runtime is there for
