"""Layering rules, read from the source: no import cycle among ``openingbook``
modules, and ``openingbook`` uses ``solver`` only through ``solver/__init__.py``.

Every ``import`` statement counts, including those inside functions: an import
deferred to call time is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "openingbook"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> set[str]:
    """Absolute names of the modules ``path`` imports (``from a import b``: ``a.b`` when
    that is a module, else ``a``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = (
        module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    )
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            out.add(base)
            for alias in node.names:
                out.add(f"{base}.{alias.name}")
    return out


def openingbook_graph() -> dict[str, set[str]]:
    """Module -> the ``openingbook`` modules it makes Python run: those it names, and the
    packages above them (importing ``a.b.c`` runs ``a/b/__init__.py`` first), except the
    packages it is itself inside (their ``__init__`` runs before it anyway)."""
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        inside = {name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)}
        runs = set()
        for module in imported_modules(path):
            parts = module.split(".")
            runs.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
        graph[name] = {m for m in runs if m in files and m != name and m not in inside}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle (as a list of modules, first repeated last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_in_openingbook():
    graph = openingbook_graph()
    assert graph.get("openingbook.reader")
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_graph_sees_function_local_imports_and_package_inits(tmp_path, monkeypatch):
    """A cycle through an import inside a function, and through the ``__init__`` of the
    package of an imported submodule, is found (the ``api -> export -> api`` shape)."""
    pkg = tmp_path / "openingbook"
    (pkg / "export").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "api.py").write_text("from openingbook.export.pons import PonsBook\n")
    (pkg / "export" / "__init__.py").write_text(
        "def kind():\n    if True:\n        from openingbook.api import detect_kind\n"
    )
    (pkg / "export" / "pons.py").write_text("from openingbook.export import kind\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    monkeypatch.setitem(globals(), "PACKAGE", pkg)
    graph = openingbook_graph()
    assert graph["openingbook.export"] == {"openingbook.api"}
    assert graph["openingbook.export.pons"] == set()  # inside its package: not an edge
    assert find_cycle(graph) == ["openingbook.api", "openingbook.export", "openingbook.api"]


def test_solver_used_only_through_its_package():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            offenders += [
                f"{path.relative_to(ROOT)}:{node.lineno}: {n}"
                for n in names
                if n.startswith("solver.")
            ]
    assert not offenders, "\n".join(offenders)


#: modules kept for one release under their former paths, as aliases of their new homes
#: in ``openingbook.pipeline`` and ``openingbook.checks`` (CHANGELOG.md)
ALIASES = {
    "openingbook.build": ("openingbook.pipeline.build", "build_book"),
    "openingbook.derive": ("openingbook.pipeline.derive", "derive_book"),
    "openingbook.convert": ("openingbook.pipeline.convert", "convert_book"),
    "openingbook.validate": ("openingbook.checks.validate", "validate_books"),
    "openingbook.formats.exporting": ("openingbook.pipeline.export", "export_book"),
}


def test_the_former_module_paths_are_aliases_nothing_inside_uses():
    import importlib

    graph = openingbook_graph()
    users = {m: sorted(deps & set(ALIASES)) for m, deps in graph.items() if deps & set(ALIASES)}
    assert not users, users
    for alias, (home, name) in ALIASES.items():
        old, new = importlib.import_module(alias), importlib.import_module(home)
        assert getattr(old, name) is getattr(new, name), alias
        assert all(hasattr(old, n) for n in old.__all__), alias
