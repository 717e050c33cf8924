"""The docstring examples of the core modules run as written."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["solver.position", "solver.scores"])
def test_docstring_examples_run(module: str) -> None:
    failed, attempted = doctest.testmod(importlib.import_module(module), verbose=False)
    assert attempted > 0 and failed == 0
