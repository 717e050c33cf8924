"""The solver reads in small units: no function in ``solver/`` is longer than
:data:`MAX_LINES` lines, read from the source.

A function's length runs from its first decorator (or its ``def``) to its last line,
docstring and comments included; nested functions and methods count on their own
(and inside the function that holds them).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.helpers import functions

SOLVER = Path(__file__).resolve().parents[1] / "openingbook" / "solver"
MAX_LINES = 200


def function_lengths(source: str) -> dict[str, int]:
    """Lines of every function in ``source``, by qualified name (``Class.method``,
    ``outer.inner``), its decorators included."""
    return {
        name: f.end_lineno - min([f.lineno, *(d.lineno for d in f.decorator_list)]) + 1
        for name, f in functions(source).items()
    }


def test_no_function_in_the_solver_is_longer_than_the_limit() -> None:
    files = sorted(SOLVER.rglob("*.py"))
    assert len(files) > 10  # the package was found
    lengths = {
        f"{path.relative_to(SOLVER.parents[1])}:{name}": lines
        for path in files
        for name, lines in function_lengths(path.read_text()).items()
    }
    assert "openingbook/solver/search.py:_search" in lengths
    too_long = {name: lines for name, lines in lengths.items() if lines > MAX_LINES}
    assert not too_long, f"functions over {MAX_LINES} lines: {too_long}"


def test_the_count_covers_decorators_docstrings_and_nested_functions() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES - 3))
    source = textwrap.dedent(
        '''
        @decorator
        def outer():
            """doc"""
        {body}
            def inner():
                pass
            return x0

        class C:
            def method(self):
                # a comment
                return 1
        '''
    ).format(body=body)
    lengths = function_lengths(source)
    # decorator, def, docstring, MAX_LINES - 3 assignments, inner's two lines, return
    assert lengths["outer"] == MAX_LINES + 3
    assert lengths["outer.inner"] == 2
    assert lengths["C.method"] == 3
