"""Books by name: where the shipped books are and which file a name means.

The repository's ``books/`` directory is installed as the package
``openingbook.shipped`` (``pyproject.toml`` maps it; only the ``.c4b`` files are
package data), so after ``pip install .`` the books are found from any
directory. A book's name is its file name without ``book`` and ``.c4b``:
``book12-dist.c4b`` is ``12-dist``, ``book8-under44444.c4b`` is
``8-under44444``; books of other board sizes end in their size,
``book12-dist-6x5.c4b`` is ``12-dist-6x5``. In a source checkout without an
install the ``books/`` directory beside the package is used.

The deep books (:data:`DEEP_BOOKS`: 13 to 15 plies, 51 MB) are a data package of
their own, ``openingbook-books`` (the import package ``openingbook_books``, from
``books/deep/`` of the repository), installed by ``pip install "openingbook[books]"``:
the wheel of ``openingbook`` stays small. They are found by name like the others when
that package is installed (or in a source checkout); without it their names give a
one-line error naming :data:`INSTALL_DEEP_BOOKS`, and the engine searches what they
would have answered (:func:`lookup_stones` is then lower). :func:`deep_books_dir` is the
one place that finds them (tests replace it to see an install without them).

:func:`resolve_book` is the one place where a name becomes a path: ``open_book``
and every command that reads a book call it. Names only: no book is opened here
(the listing of the shipped books, which reads their headers, is
:mod:`openingbook.registry`).

>>> resolve_book("8").name
'book8.c4b'
"""

from __future__ import annotations

import os
import re
from importlib import resources
from pathlib import Path

from openingbook.errors import BookFileMissing
from openingbook.inputs import require_regular_file
from openingbook.solver import DEFAULT_BOARD

__all__ = [
    "DEEP_BOOKS",
    "DEEP_BOOKS_DISTRIBUTION",
    "INSTALL_DEEP_BOOKS",
    "SHIPPED_SUFFIX",
    "book_name",
    "books_dir",
    "deep_books_dir",
    "distance_book_name",
    "distance_book_plies",
    "lookup_stones",
    "missing_deep_books",
    "resolve_book",
    "shipped_paths",
    "shipped_twin",
]


#: The suffix of a shipped book's file: the shipped books are compact books, and this is
#: that format's suffix (``openingbook.formats.compact.COMPACT_SUFFIX``, which
#: ``tests/test_compact.py`` checks it equals). It is not imported from there: importing
#: a format module runs the format registry, and the registry resolves names here.
SHIPPED_SUFFIX = ".c4b"

#: The names of the books of the data package (``books/deep/openingbook_books/`` of the
#: repository; ``tests/test_light_install.py`` checks this list against its files). Named
#: here so that a name of one of them is told apart from an unknown name when the
#: package is not installed.
DEEP_BOOKS = ("13-dist", "14", "14-dist", "15-dist")

#: The distribution that holds :data:`DEEP_BOOKS` (its import package: ``openingbook_books``).
DEEP_BOOKS_DISTRIBUTION = "openingbook-books"

#: How to install :data:`DEEP_BOOKS` (the extra pins the data package of the same version).
INSTALL_DEEP_BOOKS = 'pip install "openingbook[books]"'


def books_dir() -> Path | None:
    """The directory of the shipped books: the installed package's ``shipped``
    resources (found through :mod:`importlib.resources`), else ``books/`` of the
    source checkout; None when neither exists (or the package is not on a file
    system, e.g. in a zip archive: the books are memory-mapped files)."""
    installed = resources.files("openingbook") / "shipped"  # a normal install puts books/ here
    if isinstance(installed, Path) and installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parent.parent / "books"
    return checkout if checkout.is_dir() else None


def deep_books_dir() -> Path | None:
    """The directory of the deep books (:data:`DEEP_BOOKS`): the installed data package
    ``openingbook_books``, else ``books/deep/openingbook_books`` of the source checkout;
    None when neither exists (``openingbook`` alone: the light install)."""
    try:
        installed = resources.files("openingbook_books")
    except ModuleNotFoundError:
        installed = None
    if isinstance(installed, Path) and installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parent.parent / "books" / "deep" / "openingbook_books"
    return checkout if checkout.is_dir() else None


def _shipped_dirs() -> list[Path]:
    """The directories of the shipped books: the package's own, then the deep books'."""
    return [d for d in (books_dir(), deep_books_dir()) if d is not None]


def shipped_paths() -> list[Path]:
    """The files of the shipped books, by name: those of the package and, when installed,
    those of the data package of the deep books (none when there is no books directory)."""
    found = {p.name: p for d in reversed(_shipped_dirs()) for p in d.glob(f"book*{SHIPPED_SUFFIX}")}
    return [found[name] for name in sorted(found)]


def missing_deep_books() -> list[str]:
    """The names of :data:`DEEP_BOOKS` not installed (all of them without the data package)."""
    installed = {book_name(p) for p in shipped_paths()}
    return [name for name in DEEP_BOOKS if name not in installed]


def book_name(path: str | os.PathLike[str]) -> str:
    """The name of a shipped book file (``books/book12-dist.c4b`` -> ``12-dist``)."""
    return Path(path).name.removesuffix(SHIPPED_SUFFIX).removeprefix("book")


def distance_book_plies(board: tuple[int, int]) -> list[int]:
    """The plies of the complete distance books shipped for ``board``, ascending (the
    books an :class:`openingbook.engine.Engine` of that board answers from).

    Read from the file names (``book<plies>-dist[-<W>x<H>].c4b``, the naming rule
    above; the test suite checks every shipped name against its header), opening no
    file: the command line's help uses it and loads no numpy.
    """
    suffix = _size_suffix(board)
    plies = set()
    for path in shipped_paths():
        match = re.fullmatch(rf"(\d+)-dist{re.escape(suffix)}", book_name(path))
        if match is not None:
            plies.add(int(match.group(1)))
    return sorted(plies)


def distance_book_name(plies: int, board: tuple[int, int]) -> str | None:
    """The name of the complete distance book of ``plies`` shipped for ``board`` (the
    naming rule of :func:`distance_book_plies`), None when none is shipped.

    >>> [distance_book_name(14, board) for board in ((7, 6), (6, 5), (5, 4))]
    ['14-dist', '14-dist-6x5', None]
    """
    if plies not in distance_book_plies(board):
        return None
    return f"{plies}-dist{_size_suffix(board)}"


def _size_suffix(board: tuple[int, int]) -> str:
    """The board in a shipped book's name: none for the standard board, ``-WxH`` else."""
    return "" if tuple(board) == tuple(DEFAULT_BOARD) else f"-{board[0]}x{board[1]}"


def lookup_stones(board: tuple[int, int]) -> int | None:
    """The most stones a position of ``board`` may have for the shipped books to answer
    every one of its moves by lookups alone (a distance book of every ply from 1 to one
    more than that); None when they do not even answer the empty board's moves.

    >>> lookup_stones((7, 6))  # books of every ply 0 to 15
    14
    """
    plies = set(distance_book_plies(board))
    reach = 0
    while reach + 1 in plies:
        reach += 1
    return reach - 1 if reach else None


def resolve_book(book: str | os.PathLike[str]) -> Path:
    """The file of ``book``: a path as it is when it exists, else a shipped book's name.

    The rule, for every command and :func:`openingbook.open_book`: an existing
    file wins; a name (no ``/`` nor ``.``) that is no file here is a shipped
    book. When both exist (a file ``12`` in the current directory and the
    shipped book ``12``) the file is used and :func:`shipped_twin` names the
    other (the command line says so). A path that exists must be a regular
    file (:func:`openingbook.inputs.require_regular_file`).

    Raises :class:`~openingbook.errors.BookFileMissing` (a ``FileNotFoundError``)
    naming the shipped books for a bare name (no ``/`` or ``.``) that is neither a
    file nor a shipped book, and saying how to install the deep books for one of
    :data:`DEEP_BOOKS` when their data package is not installed.
    """
    path = Path(book)
    if path.exists():
        return require_regular_file(path)  # a FIFO, a device or a directory is no book
    name = str(book)
    if not _is_name(name):
        return path  # a path, not a name: the reader names what is missing
    candidate = _shipped_file(name)
    if candidate is not None:
        return candidate
    if name.removeprefix("book") in DEEP_BOOKS:
        raise BookFileMissing(
            name,
            f"a book of the data package {DEEP_BOOKS_DISTRIBUTION}, which is not installed: "
            f"{INSTALL_DEEP_BOOKS}",
        )
    if not _shipped_dirs():
        raise BookFileMissing(name)
    names = ", ".join(book_name(p) for p in shipped_paths())
    raise BookFileMissing(name, f"no such book file, nor a shipped book (shipped books: {names})")


def shipped_twin(book: str | os.PathLike[str]) -> Path | None:
    """The shipped book that ``book`` would name if no file of that name existed here:
    the other side of a name clash (:func:`resolve_book` took the file), else None.

    >>> shipped_twin("books/book8.c4b") is None  # a path, never a name
    True
    """
    name = str(book)
    if not _is_name(name) or not Path(book).exists():
        return None
    candidate = _shipped_file(name)
    if candidate is None or os.path.samefile(candidate, book):
        return None
    return candidate


def _is_name(text: str) -> bool:
    """A shipped book's name has no directory part and no suffix (``12-dist``)."""
    return not any(c in text for c in ("/", os.sep, "."))


def _shipped_file(name: str) -> Path | None:
    """The shipped book of that name, in the package's books or the deep books', if any."""
    for directory in _shipped_dirs():
        candidate = directory / f"book{name.removeprefix('book')}{SHIPPED_SUFFIX}"
        if candidate.is_file():
            return candidate
    return None
