"""The solver reads in small units: no function in ``solver/`` is longer than
:data:`MAX_LINES` lines, read from the source.

A function's length runs from its first decorator (or its ``def``) to its last line,
docstring and comments included; nested functions and methods count on their own
(and inside the function that holds them).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

SOLVER = Path(__file__).resolve().parents[1] / "openingbook" / "solver"
MAX_LINES = 200


def function_lengths(source: str) -> dict[str, int]:
    """Lines of every function in ``source``, by qualified name (``Class.method``,
    ``outer.inner``)."""
    out: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    out[name] = child.end_lineno - first + 1
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return out


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
