"""The package as people expect it: licence, one version, dask as an extra, clean provenance.

The wheel itself (shipped books found by name from another directory, solve,
lookup) is smoke-tested by ``.ci/run`` in a fresh virtual environment.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

import openingbook
from openingbook.cli import main
from openingbook.errors import MissingExtra
from openingbook.formats.compact import CompactBook
from openingbook.pipeline.build import BuildOptions, build_book
from openingbook.provenance import clean_command
from openingbook.registry import shipped_books
from openingbook.solver import DEFAULT_BOARD

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_licence_file_is_the_declared_mit_licence():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "openingbook contributors" in text
    assert PYPROJECT["project"]["license"] == "MIT"  # an SPDX expression
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]


def test_the_version_is_written_in_one_place():
    project = PYPROJECT["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    source = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]
    assert source == {"attr": "openingbook.__version__"}
    # the installed metadata was made from it (an editable or a wheel install alike)
    assert importlib.metadata.version("openingbook") == openingbook.__version__


def test_every_package_of_the_source_is_in_the_wheel():
    # setuptools installs exactly the listed packages: a subpackage left out of the list
    # imports from a checkout but is missing from a wheel install
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("openingbook", "solver")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert found <= listed, f"not in pyproject's packages: {sorted(found - listed)}"


def test_every_directory_of_the_source_is_a_listed_package():
    # a directory of data files (the explorer's page) reached through its parent's
    # package-data patterns makes setuptools warn that it is absent from the packages
    # and may leave it out: each such directory is listed and names its own data
    setuptools = PYPROJECT["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    directories = {
        ".".join(path.relative_to(ROOT).parts)
        for top in ("openingbook", "solver")
        for path in [ROOT / top, *(ROOT / top).rglob("*")]
        if path.is_dir() and "__pycache__" not in path.parts
    }
    assert directories <= listed, f"not in pyproject's packages: {sorted(directories - listed)}"
    data = setuptools["package-data"]
    assert set(data) <= listed
    assert [p for patterns in data.values() for p in patterns if "/" in p] == []
    assert data["openingbook.explorer.static"] == ["*"]


def test_dask_is_an_extra_not_a_dependency():
    assert not any(d.startswith("dask") for d in PYPROJECT["project"]["dependencies"])
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert extras["dask"] == ["dask[distributed]>=2024.1"]
    # the suite tests the dask executor (and the Parquet export)
    assert "openingbook[dask,parquet]" in extras["test"]


@pytest.fixture
def without_dask(monkeypatch):
    for name in ("dask", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError


def test_a_missing_dask_names_the_extra_before_any_work(without_dask, tmp_path):
    out = tmp_path / "b.dat"
    with pytest.raises(MissingExtra, match=r'pip install "openingbook\[dask\]"') as caught:
        build_book(
            out, BuildOptions(8, under="4444", board=DEFAULT_BOARD), executor="dask", progress=False
        )
    assert isinstance(caught.value, ImportError) and caught.value.extra == "dask"
    assert list(tmp_path.iterdir()) == []  # no book, manifest or work directory

    args = ["build", "--plies", "8", "--under", "4444", "--executor", "dask", "-o", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert result.stderr == (
        'Error: the dask executor needs the dask extra: pip install "openingbook[dask]"\n'
    )
    assert list(tmp_path.iterdir()) == []


def test_everything_else_works_without_dask(tmp_path):
    blocker = (
        "import sys; sys.modules['dask'] = sys.modules['distributed'] = None;"
        "from openingbook.cli import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", blocker, "build", "--plies", "8", "--under", "4444333",
         "--jobs", "2", "-o", str(tmp_path / "b.dat"), "--quiet"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert (tmp_path / "b.dat").is_file()


def _commands(obj: object) -> list[str]:
    """Every ``"command"`` string in a manifest or in compact metadata, however nested."""
    if isinstance(obj, dict):
        own = [v for k, v in obj.items() if k == "command" and isinstance(v, str)]
        return own + [c for k, v in obj.items() if k != "command" for c in _commands(v)]
    if isinstance(obj, list):
        return [c for v in obj for c in _commands(v)]
    return []


def _recorded_commands() -> dict[str, list[str]]:
    found = {p.name: _commands(json.loads(p.read_text())) for p in ROOT.glob("books/*.json")}
    for book in shipped_books():
        with CompactBook(book.path, verify=False) as compact:
            found[Path(book.path).name] = _commands(compact.header.metadata)
    return found


def test_shipped_books_record_clean_commands():
    """``openingbook ...`` as a user types it: no ``-c``, no path of the build machine."""
    found = _recorded_commands()
    assert len(found) >= 10 and all(found.values())
    for name, commands in found.items():
        for command in commands:
            assert command.startswith("openingbook "), (name, command)
            assert not any(os.path.isabs(w.partition("=")[2] or w) for w in shlex.split(command))
            assert clean_command(shlex.split(command)) == command, (name, command)


def _strings(obj: object) -> list[str]:
    """Every string in a manifest or in compact metadata, however nested."""
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return [obj] if isinstance(obj, str) else []


def test_shipped_books_name_no_path_of_the_build_machine():
    """Source files (``derived_from``, ``merged_from``) are named as from the checkout."""
    found = {p.name: json.loads(p.read_text()) for p in ROOT.glob("books/*.json")}
    for book in shipped_books():
        with CompactBook(book.path, verify=False) as compact:
            found[Path(book.path).name] = compact.header.metadata
    assert len(found) >= 10
    for name, metadata in found.items():
        for text in _strings(metadata):
            assert not os.path.isabs(text) and str(ROOT) not in text, (name, text)


def test_new_manifests_record_clean_commands(tmp_path):
    out = tmp_path / "b.dat"
    args = ["build", "--plies", "8", "--under", "4444333", "--jobs", "1", "-o", str(out)]
    result = CliRunner().invoke(main, [*args, "--work-dir", str(tmp_path / "w"), "--quiet"])
    assert result.exit_code == 0, result.output
    command = json.loads(Path(f"{out}.json").read_text())["command"]
    assert command.startswith("openingbook build --plies 8 ")
    assert str(tmp_path) not in command
    assert {"b.dat", "w"} <= set(shlex.split(command))  # base names of paths elsewhere
