"""Every docstring example in ``openingbook`` and ``openingbook.solver`` runs as written.

The modules are found by walking the packages, so a module that gains examples
is tested without being listed here. Examples that read the reference
files name them ``REFERENCE / "<file>"``: ``REFERENCE`` is the directory the
``reference_dir`` fixture gives (``tests/conftest.py``), never an absolute path.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import openingbook

ROOT = Path(__file__).resolve().parents[1]


def _modules() -> list[str]:
    prefix = openingbook.__name__ + "."
    return sorted(
        ["openingbook", *(m.name for m in pkgutil.walk_packages(openingbook.__path__, prefix))]
    )


def _with_examples(name: str) -> bool:
    module = importlib.import_module(name)
    return any(t.examples for t in doctest.DocTestFinder().find(module))


MODULES = [name for name in _modules() if _with_examples(name)]


def test_the_examples_are_found():
    # the modules known to have examples, as a check that the discovery works
    assert {
        "openingbook.pipeline.workdir",
        "openingbook.atomicio",
        "openingbook.solver.position",
    } <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module: str, reference_dir: Path) -> None:
    failed, attempted = doctest.testmod(
        importlib.import_module(module),
        extraglobs={"REFERENCE": reference_dir},
        optionflags=doctest.ELLIPSIS,
        verbose=False,
    )
    assert attempted > 0 and failed == 0


def test_examples_use_no_absolute_paths() -> None:
    """A literal ``"/..."`` path in an example works on one machine only."""
    absolute = re.compile(r"""^\s*(>>>|\.\.\.) .*["']/(work|home|tmp|root|usr)/""")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "openingbook").rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if absolute.match(line)
    ]
    assert found == []
