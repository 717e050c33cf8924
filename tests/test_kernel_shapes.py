"""Compiled kernels take few arguments: no function of the package decorated with numba's
``njit`` or ``jit`` (or :mod:`openingbook.solver._jit`'s) has more than
:data:`MAX_PARAMETERS` parameters, read from the source.

Arguments that travel together go as one tuple: a book's decoded tables (built once when
it opens), the board and its masks, a scope as one uint64 array, a kernel's output arrays.
A native kernel (:mod:`openingbook.solver._native`) takes such a tuple's items one by one,
and each argument costs a call through numba's dispatcher time: few arguments keep both
the calls and the signatures short.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from tests.helpers import functions

PACKAGE = Path(__file__).resolve().parents[1] / "openingbook"
MAX_PARAMETERS = 8
#: the names of the decorators that compile a function
COMPILERS = frozenset({"njit", "jit"})


def _compiles(decorator: ast.expr) -> bool:
    """Is ``decorator`` ``njit``, ``jit``, ``numba.njit``, ``njit(...)`` and the like?"""
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    if isinstance(decorator, ast.Attribute):
        return decorator.attr in COMPILERS
    return isinstance(decorator, ast.Name) and decorator.id in COMPILERS


def kernel_parameters(source: str) -> dict[str, int]:
    """The parameter count of every compiled function in ``source``, by qualified name."""
    return {
        name: len(a.posonlyargs)
        + len(a.args)
        + len(a.kwonlyargs)
        + (a.vararg is not None)
        + (a.kwarg is not None)
        for name, f in functions(source).items()
        if any(_compiles(d) for d in f.decorator_list)
        for a in (f.args,)
    }


def test_no_kernel_of_the_package_takes_more_than_the_limit() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 20  # the package was found
    counts = {
        f"{path.relative_to(PACKAGE.parent)}:{name}": n
        for path in files
        for name, n in kernel_parameters(path.read_text(encoding="utf-8")).items()
    }
    assert "openingbook/solver/search.py:_search" in counts  # kernels were found
    assert "openingbook/formats/compact/book.py:_read_kernel_v3" in counts
    too_many = {name: n for name, n in counts.items() if n > MAX_PARAMETERS}
    assert not too_many, f"compiled functions over {MAX_PARAMETERS} parameters: {too_many}"


def test_the_scan_finds_every_form_of_the_decorators() -> None:
    source = textwrap.dedent(
        """
        @njit
        def bare(a, b): pass

        @njit(cache=True, inline="always")
        def called(a, b, c=1, *rest, d, **more): pass

        @numba.jit(nopython=True)
        def dotted(a): pass

        class C:
            @nb.njit
            def method(a, /, b): pass

        def outer():
            @jit
            def inner(a, b, c): pass

        @functools.cache
        def plain(a, b, c, d, e, f, g, h, i): pass
        """
    )
    assert kernel_parameters(source) == {
        "bare": 2,
        "called": 6,
        "dotted": 1,
        "C.method": 2,
        "outer.inner": 3,
    }
