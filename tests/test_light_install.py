"""The light install: ``openingbook`` without its data package of deep books.

The 13- to 15-ply books (:data:`openingbook.booknames.DEEP_BOOKS`) are the package
``openingbook-books`` (``books/deep/``), installed by ``pip install "openingbook[books]"``.
Here their absence is seen by replacing :func:`openingbook.booknames.deep_books_dir`,
the one place that finds them: their names give a one-line error naming the install
command, ``books`` says what is missing, and the engine and the oracle answer what they
would have looked up by searching, with the same exact values. The wheels themselves
(the core wheel without the deep books, the data wheel with them) are built, checked
and smoke-tested by ``.ci/run``.
"""

from __future__ import annotations

import json
import random
import tomllib

import numpy as np
import pytest
from click.testing import CliRunner

import openingbook
from openingbook import booknames
from openingbook.booknames import (
    DEEP_BOOKS,
    INSTALL_DEEP_BOOKS,
    book_name,
    distance_book_plies,
    lookup_stones,
    missing_deep_books,
    resolve_book,
)
from openingbook.cli import main
from openingbook.engine import Engine
from openingbook.errors import BookFileMissing
from openingbook.oracle import Oracle
from openingbook.registry import shipped_books
from tests.helpers import BOOKS, ROOT, TABLE, random_game

DEEP = BOOKS / "deep"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
DEEP_PYPROJECT = tomllib.loads((DEEP / "pyproject.toml").read_text())


@pytest.fixture
def light(monkeypatch: pytest.MonkeyPatch) -> None:
    """``openingbook`` installed without its data package: no deep books anywhere."""
    monkeypatch.setattr(booknames, "deep_books_dir", lambda: None)


# ------------------------------------------------------------------ the two packages
def test_the_deep_books_are_the_files_of_the_data_package() -> None:
    files = sorted(book_name(p) for p in (DEEP / "openingbook_books").glob("book*.c4b"))
    assert files == sorted(DEEP_BOOKS)
    # none of them is also in the core package's books (books/*.c4b are its package data)
    assert PYPROJECT["tool"]["setuptools"]["package-data"]["openingbook.shipped"] == ["*.c4b"]
    assert not {book_name(p) for p in BOOKS.glob("book*.c4b")} & set(DEEP_BOOKS)
    assert DEEP_PYPROJECT["tool"]["setuptools"]["packages"] == ["openingbook_books"]
    assert DEEP_PYPROJECT["tool"]["setuptools"]["package-data"] == {"openingbook_books": ["*.c4b"]}


def test_the_extra_pins_the_data_package_of_the_same_version() -> None:
    version = openingbook.__version__
    assert DEEP_PYPROJECT["project"]["name"] == booknames.DEEP_BOOKS_DISTRIBUTION
    assert DEEP_PYPROJECT["project"]["version"] == version
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert extras["books"] == [f"{booknames.DEEP_BOOKS_DISTRIBUTION}=={version}"]
    assert INSTALL_DEEP_BOOKS == 'pip install "openingbook[books]"'


def test_the_readme_installs_the_data_package_with_the_tests() -> None:
    readme = (ROOT / "README.md").read_text()
    setup = readme.split("## Set-up", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    assert len(setup.strip().splitlines()) == 2  # the two set-up commands
    assert 'pip install -e ".[test,books]" -e ./books/deep' in setup.splitlines()[0]


# ------------------------------------------------------------------ installed
def test_with_the_data_package_the_deep_books_are_found_by_name() -> None:
    assert missing_deep_books() == []
    for name in DEEP_BOOKS:
        assert resolve_book(name).parent == booknames.deep_books_dir()
    packages = {b.name: b.package for b in shipped_books()}
    assert {packages[name] for name in DEEP_BOOKS} == {"openingbook-books"}
    assert packages["12-dist"] == "openingbook"
    assert lookup_stones((7, 6)) == 14
    listed = json.loads(CliRunner().invoke(main, ["books", "--json"]).stdout)
    assert (listed["missing"], listed["install"]) == ([], None)
    assert "not installed" not in CliRunner().invoke(main, ["books"]).stdout


# ------------------------------------------------------------------ without it
def test_a_deep_book_name_says_how_to_install_it(light: None) -> None:
    for name in DEEP_BOOKS:
        with pytest.raises(BookFileMissing, match=r'openingbook-books.*"openingbook\[books\]"'):
            resolve_book(name)
    with pytest.raises(BookFileMissing, match="nor a shipped book") as caught:
        resolve_book("16-dist")  # no book of either package: the listing of the shipped
    assert "15-dist" not in str(caught.value) and "12-dist" in str(caught.value)
    result = CliRunner().invoke(main, ["lookup", "15-dist", "444444333333"])
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: 15-dist: a book of the data package openingbook-books, which is not "
        'installed: pip install "openingbook[books]"\n'
    )
    with pytest.raises(BookFileMissing, match="openingbook-books"):
        openingbook.open_book("14")


def test_books_says_what_is_missing_and_how_to_get_it(light: None) -> None:
    result = CliRunner().invoke(main, ["books"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert (
        lines[-2] == "not installed: 13-dist, 14, 14-dist, 15-dist (data package openingbook-books)"
    )
    assert INSTALL_DEEP_BOOKS in lines[-1]
    assert any(line.startswith("12-dist ") for line in lines)
    listed = json.loads(CliRunner().invoke(main, ["books", "--json"]).stdout)
    assert listed["missing"] == list(DEEP_BOOKS) and listed["install"] == INSTALL_DEEP_BOOKS
    assert not {b["name"] for b in listed["books"]} & set(DEEP_BOOKS)
    assert {b["package"] for b in listed["books"]} == {"openingbook"}


def test_without_the_deep_books_the_engine_searches_what_they_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Positions of 12 to 14 stones: the engine of a light install answers them by
    search (the 12-ply book is then its deepest), equal to the deep books' values."""
    rng = random.Random(46)
    positions = []
    for stones in (12, 12, 13, 13, 14, 14):
        while (pos := random_game(rng, 7, 6, stones)) is None:
            pass
        positions.append(pos)
    with Engine(table_log2=TABLE) as engine:
        assert max(engine.book_plies) == 15
        looked_up = [engine.analyze(pos) for pos in positions]
    assert {m.source for a in looked_up for m in a.moves if m.score is not None} <= {"book", "four"}
    first = np.array([p.first_stones for p in positions], np.uint64)
    mask = np.array([p.mask for p in positions], np.uint64)
    with Oracle(table_log2=TABLE) as oracle:
        from_books = oracle.analyze_bitboards(first, mask).scores

    monkeypatch.setattr(booknames, "deep_books_dir", lambda: None)
    assert distance_book_plies((7, 6)) == list(range(13)) and lookup_stones((7, 6)) == 11
    with Engine(table_log2=TABLE) as engine:
        assert max(engine.book_plies) == 12
        searched = [engine.analyze(pos) for pos in positions]
    for pos, book, search in zip(positions, looked_up, searched, strict=True):
        assert [m.score for m in search.moves] == [m.score for m in book.moves], pos
        assert [m.plies for m in search.moves] == [m.plies for m in book.moves], pos
        assert {m.source for m in search.moves if m.score is not None} <= {"solver", "four"}
    with Oracle(table_log2=TABLE) as oracle:
        assert np.array_equal(oracle.analyze_bitboards(first, mask).scores, from_books)
