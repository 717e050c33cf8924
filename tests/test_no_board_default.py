"""No library function below the command line assumes the 7x6 board.

The board travels with the book and the position: every function of ``openingbook.solver`` and
``openingbook`` (but ``openingbook.cli``, whose user-facing default is
``openingbook.solver.DEFAULT_BOARD``) that needs the board takes it. Read from the source of every
module (every function and method at any depth, every class field):

* no parameter or field defaults to 7, 6 or 42, nor to ``DEFAULT_WIDTH``,
  ``DEFAULT_HEIGHT`` or ``DEFAULT_BOARD``;
* no module-level constant of the 7x6 board (``CELLS = 42``, ``WIDTH, HEIGHT = 7, 6``);
* no literal 42 in code.

The exceptions are listed in :data:`ALLOWED`, each with its reason: the places where a
board is first chosen (a position, a solver) and formats whose board is fixed.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOARD_NAMES = {"DEFAULT_WIDTH", "DEFAULT_HEIGHT", "DEFAULT_BOARD"}
BOARD_NUMBERS = {7, 6, 42}
BOARD_PARAMS = {"width", "height", "board", "cells", "w", "h"}

#: ``module:qualified name`` -> why a 7x6 default or constant is right there.
ALLOWED = {
    "openingbook.solver.geometry:DEFAULT_WIDTH": "the one definition of the standard board",
    "openingbook.solver.geometry:DEFAULT_HEIGHT": "the one definition of the standard board",
    "openingbook.solver.position:Position.__init__": "a position is where its board is chosen",
    "openingbook.solver.position:Position.from_moves": "a position is where a board is chosen",
    "openingbook.solver.position:Position.from_bitboards": "a position is where a board is chosen",
    "openingbook.solver.search:Solver.__init__": "a solver is where its board is chosen",
    "openingbook.solver.search:_search_sizes.width": "the 7x6 search has its board as constants",
    "openingbook.solver.search:_search_sizes.height": "the 7x6 search has its board as constants",
    "openingbook.engine:Engine.__init__": "an engine, as a solver, is where a board is chosen",
    "openingbook.explorer.server:Explorer.__init__": "a user interface, as the CLI: its "
    "default is the user's board",
    "openingbook.formats.cadot:CADOT_BOARD": "Cadot's key is of the 7x6 board only",
    "openingbook.checks.published:TROMP_BOARD": "Tromp's data set and counts are of the 7x6 board",
    "openingbook.formats.tabular:DIAGRAM_BOARD": "the exported diagrams are of the 7x6 board",
    "openingbook.formats.thill.book:THILL_BOARD": "Thill's record layout is of the 7x6 board only",
    "openingbook.ponsprotocol:WIDTH": "Pons' c4solver protocol plays the 7x6 board only",
    "openingbook.ponsprotocol:HEIGHT": "Pons' c4solver protocol plays the 7x6 board only",
    "openingbook.layouts:ENVIRONMENT_BOARD": "PettingZoo's, OpenSpiel's and ConnectX's "
    "Connect Four are of the 7x6 board",
    "openingbook.oracle:Oracle.__init__": "an oracle, as an engine, is where a board is chosen",
}


def library_files(root: Path = ROOT) -> list[Path]:
    files = sorted((root / "solver").rglob("*.py")) + sorted((root / "openingbook").rglob("*.py"))
    return [p for p in files if "cli" not in p.relative_to(root).parts]


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_board_value(node: ast.AST | None, name: str) -> bool:
    """A default/value that is the 7x6 board: a named default, or 7/6/42 for a board
    parameter (or a ``(7, 6)`` pair, or ``BoardSize(7, 6)``)."""
    if node is None:
        return False
    if isinstance(node, ast.Name) and node.id in BOARD_NAMES:
        return True
    if isinstance(node, ast.Attribute) and node.attr in BOARD_NAMES:
        return True
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value in BOARD_NUMBERS and name.lower() in BOARD_PARAMS
    if isinstance(node, ast.Tuple):
        return [getattr(e, "value", None) for e in node.elts] == [7, 6]
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "BoardSize":
        return [getattr(e, "value", None) for e in node.args] == [7, 6]
    return False


def _board_word(name: str) -> bool:
    """Does a name speak of the board (``CELLS``, ``_WIDTH``, ``board``...)?"""
    return name.lower() in BOARD_PARAMS or any(
        word in name.upper() for word in ("WIDTH", "HEIGHT", "CELLS", "BOARD")
    )


def board_assumptions(source: str, module: str) -> list[str]:
    """Every 7x6 default, constant and literal 42 in ``source`` not in :data:`ALLOWED`."""
    tree = ast.parse(source)
    found: list[str] = []
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            docstrings.add(id(first.value))

    def note(qualname: str, line: int, what: str) -> None:
        if f"{module}:{qualname}" not in ALLOWED:
            found.append(f"{module}:{qualname} (line {line}): {what}")

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = ".".join([*scope, child.name])
                args = child.args
                positional = [*args.posonlyargs, *args.args]
                defaulted = positional[len(positional) - len(args.defaults) :]
                pairs = list(zip(defaulted, args.defaults, strict=True))
                pairs += [
                    (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d
                ]
                for arg, default in pairs:
                    if _is_board_value(default, arg.arg):
                        note(qual, child.lineno, f"parameter {arg.arg} defaults to 7x6")
                visit(child, [*scope, child.name])
            elif isinstance(child, ast.ClassDef):
                visit(child, [*scope, child.name])
            elif isinstance(child, (ast.Assign, ast.AnnAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                names = []
                for t in targets:
                    elts = t.elts if isinstance(t, ast.Tuple) else [t]
                    names += [e.id for e in elts if isinstance(e, ast.Name)]
                value = child.value
                values = value.elts if isinstance(value, ast.Tuple) else [value]
                if len(values) != len(names):
                    values = [value] * len(names)
                for name, v in zip(names, values, strict=True):
                    if _is_board_value(v, name) and (_board_word(name) or isinstance(v, ast.Name)):
                        note(".".join([*scope, name]), child.lineno, f"{name} is 7x6")
                    elif _is_board_value(value, "board") and _board_word(name):
                        note(".".join([*scope, name]), child.lineno, f"{name} is the 7x6 board")
                visit(child, scope)
            else:
                visit(child, scope)

    visit(tree, [])
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and type(node.value) is int
            and node.value == 42
            and id(node) not in docstrings
        ):
            note(f"<42 at line {node.lineno}>", node.lineno, "the 7x6 cell count as a literal")
    return found


def test_the_checker_finds_each_kind_of_7x6_assumption():
    source = '''
CELLS = 42
WIDTH, HEIGHT = 7, 6
def f(first, mask, width: int = 7, height: int = 6): ...
class C:
    board: BoardSize = DEFAULT_BOARD
    def m(self, *, h=DEFAULT_HEIGHT):
        def inner(cells=42): ...
def g(x):
    return x % 42
def fine(width, height, n=7):
    """42 in a docstring is prose."""
'''
    found = board_assumptions(source, "m")
    assert [f.split(" ")[0] for f in found] == [
        "m:CELLS", "m:WIDTH", "m:HEIGHT", "m:f", "m:f", "m:C.board", "m:C.m", "m:C.m.inner",
        "m:<42", "m:<42", "m:<42",
    ], found  # fmt: skip


def test_no_library_function_below_the_cli_assumes_7x6():
    found = []
    for path in library_files():
        found += board_assumptions(path.read_text(), module_name(path, ROOT))
    assert not found, "\n".join(found)


def test_every_allowed_exception_is_still_needed():
    """An entry of ALLOWED that no longer matches anything is removed, so that the list
    stays the true list of exceptions."""
    import tests.test_no_board_default as me

    saved = dict(me.ALLOWED)
    try:
        me.ALLOWED.clear()
        hits = set()
        for path in library_files():
            for f in board_assumptions(path.read_text(), module_name(path, ROOT)):
                hits.add(f.split(" ")[0])
    finally:
        me.ALLOWED.update(saved)
    assert set(saved) <= hits, sorted(set(saved) - hits)
