"""Layering rules, read from the source: no import cycle among ``openingbook``
modules (its solver included), the library uses ``openingbook.solver`` only through the
package's face and the solver imports nothing of the library, each module imports only
from the groups below its own (:data:`GROUPS`), and the longest chain of imports is at
most :data:`MAX_LAYERS` modules.

Every ``import`` statement counts, including those inside functions (and under
``TYPE_CHECKING``): an import deferred to call time is still a dependency. A lazy face
(a package ``__init__`` whose ``__getattr__`` hands on the names of one module, PEP 562)
runs nothing when imported; a module taking a name from it depends on that module.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "openingbook"
#: the solver: the bottom of the house, a stack of its own below the library
SOLVER = "openingbook.solver"


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
    # imports under ``if TYPE_CHECKING:`` never run: they are type hints, not layers
    skipped = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
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


def lazy_faces(files: dict[str, Path]) -> dict[str, dict[str, str] | str]:
    """Package -> where its lazy face takes its names from: one module (``import_module(
    f"{__name__}.registry")`` in a module ``__getattr__``), or each name's module (a
    ``_HOMES`` dict of name -> submodule, ``import_module(f"{__name__}.{_HOMES[name]}")``)."""
    faces: dict[str, dict[str, str] | str] = {}
    for name, path in files.items():
        if path.name != "__init__.py":
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and ast.unparse(node.func).endswith("import_module")
                and isinstance(node.args[0], ast.JoinedStr)
            ):
                tail = ast.unparse(node.args[0]).split("}", 1)[1].rstrip("'\"")
                if tail.startswith(".{"):  # each name from its own module
                    faces[name] = {key: f"{name}.{module}" for key, module in _homes(tree).items()}
                    assert faces[name], f"{name}: a face by name without a _HOMES dict"
                else:
                    faces[name] = name + tail
    return faces


def _homes(tree: ast.Module) -> dict[str, str]:
    """The ``_HOMES = {name: submodule}`` dict of a face's module, read."""
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == "_HOMES" and node.value is not None:
            return ast.literal_eval(node.value)
    return {}


def openingbook_graph(solver: bool = False) -> dict[str, set[str]]:
    """Module -> the ``openingbook`` modules it makes Python run: those it names, and the
    packages above them (importing ``a.b.c`` runs ``a/b/__init__.py`` first), except the
    packages it is itself inside (their ``__init__`` runs before it anyway); a name taken
    from a lazy face runs the face's module. The solver's modules are left out (and so
    every import of the solver) unless ``solver``: the library's layers are its own."""
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    if not solver:
        files = {n: p for n, p in files.items() if n != SOLVER and not n.startswith(SOLVER + ".")}
    faces = lazy_faces(files)
    graph = {}
    for name, path in files.items():
        inside = {name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)}
        runs = set()
        for module in imported_modules(path):
            parts = module.split(".")
            runs.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
            face, _, attribute = module.rpartition(".")
            if face in faces and module not in files:
                home = faces[face]
                if isinstance(home, dict):  # each name of the face from its own module
                    home = home.get(attribute, face)
                if name != home:
                    runs.add(home)  # a name of a lazy face: its module runs
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


def test_every_lazy_face_is_read_with_where_its_names_come_from():
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    faces = lazy_faces(files)
    assert faces["openingbook.formats"] == "openingbook.formats.registry"
    assert faces["openingbook.formats.compact"] == "openingbook.formats.compact.book"
    agents = faces["openingbook.agents"]
    assert agents["kaggle_agent"] == "openingbook.agents.connectx"
    assert all(module in files for module in agents.values())
    graph = openingbook_graph()
    assert all(home in graph for home in agents.values())


def test_no_import_cycle_in_openingbook():
    graph = openingbook_graph(solver=True)
    assert graph.get("openingbook.formats.thill.book") and graph.get(SOLVER + ".search")
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
    """The library imports ``openingbook.solver``, never one of its modules; the solver
    imports nothing of the library (it is the bottom of the house)."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        inside = module_name(path) == SOLVER or module_name(path).startswith(SOLVER + ".")
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
                if (inside and n.startswith("openingbook") and not n.startswith(SOLVER))
                or (not inside and n.startswith(SOLVER + "."))
            ]
    assert not offenders, "\n".join(offenders)


def test_the_solver_is_a_stack():
    """The solver's own modules: no cycle (tested with the library above) and at most
    :data:`MAX_SOLVER_LAYERS` on one chain (the compile machinery, the kernels, the
    search, its first use)."""
    graph = openingbook_graph(solver=True)
    solver = {
        m: {t for t in graph[m] if t.startswith(SOLVER + ".")}
        for m in graph
        if m.startswith(SOLVER + ".")
    }
    chain = longest_chain(solver)
    assert len(chain) <= MAX_SOLVER_LAYERS, " -> ".join(chain)


# ---------------------------------------------------------------- the layering
#: the root: the book model, values, errors, files written atomically, the machine's
#: resources, and the published figures and complete-book sizes formats size their files
#: by; the packages ``pipeline`` and ``checks`` (docstrings only)
ROOT_MODULES = {
    "openingbook.answers",
    "openingbook.atomicio",
    "openingbook.checks",
    "openingbook.checks.booksizes",
    "openingbook.checks.published",
    "openingbook.counts",
    "openingbook.errors",
    "openingbook.inputs",
    "openingbook.memory",
    "openingbook.model",
    "openingbook.pipeline",
    "openingbook.provenance",
    "openingbook.values",
}
#: the low helpers of the work on books and of the checks: below the format registry
HELPER_MODULES = {
    "openingbook.checks.plycounts",
    "openingbook.checks.report",
    "openingbook.pipeline.enumeration",
    "openingbook.pipeline.executors",
    "openingbook.pipeline.negamax",
    "openingbook.pipeline.solving",
    "openingbook.pipeline.workdir",
}
#: the top modules: each does one job with the formats and the helpers, none imports
#: another (but for :data:`EXCEPTIONS`)
LIBRARY_MODULES = {
    "openingbook.api",
    "openingbook.checks.check",
    "openingbook.checks.diff",
    "openingbook.checks.entropy",
    "openingbook.checks.stats",
    "openingbook.checks.validate",
    "openingbook.engine",
    "openingbook.pipeline.build",
    "openingbook.pipeline.convert",
    "openingbook.pipeline.derive",
    "openingbook.pipeline.export",
    "openingbook.pipeline.merge",
}
#: perfect play for agents: the environments' layouts, the batched oracle (on the
#: engine), the evaluation tools (on the oracle) and the environment adapters (on both)
AGENT_MODULES = {
    "openingbook.agents",
    "openingbook.agents.connectx",
    "openingbook.agents.gymnasium_env",
    "openingbook.agents.openspiel_bot",
    "openingbook.agents.pettingzoo_env",
    "openingbook.agents.shared",
    "openingbook.evaluation",
    "openingbook.layouts",
    "openingbook.oracle",
    "openingbook.ponsprotocol",
}
#: The groups, lowest first, and the groups each one's modules may import (their own
#: group only where it is listed). "formats" is every module no other group names: the
#: format registry ``openingbook.formats`` and the modules of the formats. The helpers
#: may import the format modules the registry itself imports, never the registry (nor,
#: so, a module of its package: importing one runs the registry's ``__init__``).
GROUPS: dict[str, set[str]] = {
    "root": {"root"},
    "formats": {"root", "formats"},
    "helpers": {"root", "helpers", "below the registry"},
    "library": {"root", "formats", "helpers"},
    "agents": {"root", "formats", "helpers", "library", "agents"},
    "explorer": {"root", "formats", "helpers", "library", "agents", "explorer"},
    "cli._common": {"root", "formats", "helpers"},
    "cli commands": {
        "root",
        "formats",
        "helpers",
        "library",
        "agents",
        "explorer",
        "cli._common",
    },
    "cli": {"root", "cli._common", "cli commands"},
    "public names": {"root", "formats", "helpers", "library", "agents"},
}

#: imports the groups do not allow, each with its reason; one that no longer exists
#: fails the test (remove it from here)
EXCEPTIONS = {}

#: The most modules on one chain of imports inside ``openingbook``: the command line, a
#: command, a library module, the format registry, a format's module, the reader base or
#: the model, the values, the errors; and one more for the agents, which sit above the
#: oracle (``cli -> cli.levels -> evaluation -> oracle -> engine -> formats.registry ->
#: booknames -> inputs -> errors``).
MAX_LAYERS = 9
#: The most modules on one chain of imports inside the solver.
MAX_SOLVER_LAYERS = 8


def group_of(module: str) -> str:
    if module == "openingbook":
        return "public names"
    for group, members in (
        ("root", ROOT_MODULES),
        ("helpers", HELPER_MODULES),
        ("library", LIBRARY_MODULES),
        ("agents", AGENT_MODULES),
    ):
        if module in members:
            return group
    if module == "openingbook.explorer" or module.startswith("openingbook.explorer."):
        return "explorer"
    if module in ("openingbook.cli", "openingbook.cli._common"):
        return module.removeprefix("openingbook.")
    if module.startswith("openingbook.cli."):
        return "cli commands"
    return "formats"


def _below(graph: dict[str, set[str]], top: str) -> set[str]:
    """Every module ``top`` makes Python run, directly or not (not ``top`` itself)."""
    seen: set[str] = set()
    todo = list(graph[top])
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += graph[module]
    return seen - {top}


def layering_violations(graph: dict[str, set[str]]) -> list[str]:
    """``importer -> imported (groups)`` for every import the groups do not allow."""
    below_registry = _below(graph, "openingbook.formats.registry")
    found = []
    for module, imports in sorted(graph.items()):
        group = group_of(module)
        allowed = GROUPS[group]
        for target in sorted(imports):
            target_group = group_of(target)
            ok = target_group in allowed or (
                "below the registry" in allowed
                and target_group == "formats"
                and target in below_registry
            )
            if not ok and (module, target) not in EXCEPTIONS:
                found.append(f"{module} ({group}) -> {target} ({target_group})")
    return found


def layers(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each module's layer: 1 + the highest layer of what it imports (1: imports nothing)."""
    out: dict[str, int] = {}

    def layer(module: str) -> int:
        if module not in out:
            out[module] = 1 + max((layer(m) for m in graph[module]), default=0)
        return out[module]

    for module in graph:
        layer(module)
    return out


def longest_chain(graph: dict[str, set[str]]) -> list[str]:
    """One longest chain of imports, importer first."""
    layer = layers(graph)
    module = max(sorted(graph), key=layer.__getitem__)
    chain = [module]
    while graph[module]:
        module = max(sorted(graph[module]), key=layer.__getitem__)
        chain.append(module)
    return chain


def test_layers_and_the_longest_chain():
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": set()}
    assert layers(graph) == {"a": 3, "b": 2, "c": 1, "d": 1}
    assert longest_chain(graph) == ["a", "b", "c"]


def test_the_groups_name_modules_that_exist():
    graph = openingbook_graph()
    named = ROOT_MODULES | HELPER_MODULES | LIBRARY_MODULES | AGENT_MODULES
    assert not named - set(graph), sorted(named - set(graph))
    assert "openingbook.formats" in graph and group_of("openingbook.formats") == "formats"


def test_each_module_imports_only_from_the_groups_below_it():
    """The table of :data:`GROUPS`: in particular no top module of ``pipeline``/``checks``
    imports another, no command module imports another, the helpers stay below the
    format registry, and the root imports nothing above it."""
    assert layering_violations(openingbook_graph()) == []


def test_the_layering_finds_a_forbidden_import():
    graph = openingbook_graph()
    before = set(layering_violations(graph))
    graph["openingbook.checks.diff"] = graph["openingbook.checks.diff"] | {
        "openingbook.checks.stats"
    }
    graph["openingbook.cli.explore"] = graph["openingbook.cli.explore"] | {
        "openingbook.cli.analyze"
    }
    graph["openingbook.memory"] = graph["openingbook.memory"] | {"openingbook.pipeline.executors"}
    graph["openingbook.pipeline.workdir"] = graph["openingbook.pipeline.workdir"] | {
        "openingbook.formats"
    }
    assert [v for v in layering_violations(graph) if v not in before] == [
        "openingbook.checks.diff (library) -> openingbook.checks.stats (library)",
        "openingbook.cli.explore (cli commands) -> openingbook.cli.analyze (cli commands)",
        "openingbook.memory (root) -> openingbook.pipeline.executors (helpers)",
        "openingbook.pipeline.workdir (helpers) -> openingbook.formats (formats)",
    ]


def test_every_exception_is_still_needed():
    graph = openingbook_graph()
    stale = [f"{a} -> {b}" for a, b in EXCEPTIONS if b not in graph.get(a, set())]
    assert not stale, "no longer imported, remove from EXCEPTIONS: " + ", ".join(stale)


def test_the_longest_chain_of_imports():
    """At most :data:`MAX_LAYERS` modules on one chain of imports."""
    chain = longest_chain(openingbook_graph())
    assert len(chain) <= MAX_LAYERS, " -> ".join(chain)


# ------------------------------------------------- formats are asked, never named
#: modules outside ``openingbook/formats/`` that still compare a format's name, each with
#: its reason; one that no longer does fails the test (remove it from here)
NAMING_EXCEPTIONS: dict[str, str] = {}


def format_name_comparisons(source: str, names: set[str]) -> list[int]:
    """The lines of ``source`` comparing something to a format's name written as a string
    (``x == "thill"``, ``x in ("thill", "compact")``, ``x != "pons"``)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        for operand in (node.left, *node.comparators):
            items = operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else []
            literals = {
                item.value
                for item in (operand, *items)
                if isinstance(item, ast.Constant) and isinstance(item.value, str)
            }
            if literals & names:
                lines.append(node.lineno)
                break
    return lines


def test_the_format_name_check_finds_a_comparison():
    names = {"thill", "compact"}
    source = 'a = kind == "thill"\nb = kind in ("x", "compact")\nc = kind == "other"\n'
    assert format_name_comparisons(source, names) == [1, 2]


def test_nothing_outside_formats_branches_on_a_format_name():
    """Outside ``openingbook/formats/`` a module asks the format (``Format.own``,
    ``any_board``, ``holds_parts``, ...) instead of comparing its name to a string."""
    from openingbook.formats import FORMATS

    names = set(FORMATS)
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith("openingbook/formats/"):
            continue
        lines = format_name_comparisons(path.read_text(), names)
        if lines:
            found[relative] = lines
    assert set(found) == set(NAMING_EXCEPTIONS), found
