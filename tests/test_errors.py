"""One error family: ``except openingbook.Error`` catches every failure of the library.

Two checks: the source raises no bare built-in ``ValueError``/``KeyError`` (read
from the code, so a new one fails here), and a sample of public calls that fail,
from every layer (solver, codec, files, build, output), fail with a member of the
family that is also the built-in class callers caught before.
"""

from __future__ import annotations

import ast
import contextlib
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import openingbook
from openingbook import errors, solver
from openingbook.api import open_book
from openingbook.atomicio import atomic_write_bytes, refuse_existing
from openingbook.codec import decode_keys
from openingbook.engine import Engine
from openingbook.formats.thill import BookFormat
from openingbook.memory import check_table_size
from openingbook.pipeline.build import parse_shard
from openingbook.pipeline.merge import merge_books
from openingbook.pipeline.workdir import WorkDir
from openingbook.solver import DEFAULT_BOARD, Position, parse_board_size
from tests.helpers import unprivileged

ROOT = Path(__file__).resolve().parents[1]
BOOKS = ROOT / "books"
#: built-in exceptions the library must not raise bare (its own family instead)
BARE = {"ValueError", "KeyError", "LookupError", "FileNotFoundError", "IsADirectoryError"}


def _bare_raises(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        value = node.exc if isinstance(node, ast.Raise) else None
        if isinstance(node, ast.Return):
            value = node.value  # helpers returning the exception to raise
        call = value.func if isinstance(value, ast.Call) else None
        if isinstance(call, ast.Name) and call.id in BARE:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} {call.id}")
    return found


def test_the_source_raises_no_bare_builtin_errors():
    files = sorted((ROOT / "openingbook").rglob("*.py"))
    assert [hit for f in files for hit in _bare_raises(f)] == []


def test_the_family_tree():
    assert openingbook.Error is solver.Error is errors.Error
    assert openingbook.InvalidArgument is solver.InvalidArgument
    for name, builtin in [
        ("InvalidArgument", ValueError),
        ("BookFileError", ValueError),
        ("BookFileMissing", FileNotFoundError),
        ("PositionNotInBook", KeyError),
        ("BookClosed", ValueError),
        ("OutputError", ValueError),
        ("OutputExists", ValueError),
        ("OutputDirectoryMissing", FileNotFoundError),
        ("WorkDirError", ValueError),
        ("NotEnoughMemory", ValueError),
        ("SearchTimeout", TimeoutError),
        ("InternalError", RuntimeError),
    ]:
        cls = getattr(openingbook, name)
        assert issubclass(cls, openingbook.Error) and issubclass(cls, builtin), name
    assert issubclass(errors.BookFileMissing, errors.BookFileError)
    assert issubclass(errors.OutputExists, errors.OutputError)
    assert not issubclass(errors.PositionNotInBook, ValueError)  # a mapping's miss


def test_the_package_exports_the_whole_family():
    """``openingbook`` exports its few names and exactly ``errors.__all__`` (one list, no
    copy to forget)."""
    names = ["__version__", "Oracle", "OracleAnswer", "open_book"]
    assert openingbook.__all__ == [*names, *errors.__all__]
    for name in errors.__all__:
        assert getattr(openingbook, name) is getattr(errors, name), name
        assert name in dir(openingbook)
    with pytest.raises(AttributeError):
        _ = openingbook.NoSuchError


def test_importing_the_package_loads_no_error_module():
    """The errors (and the solver they come from) load on first use, not on import."""
    code = (
        "import sys, openingbook; "
        "print('openingbook.errors' in sys.modules, 'openingbook.solver' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        check=True,
    )
    assert done.stdout.split() == ["False", "False"]


def test_position_not_in_book_reads_as_a_sentence():
    exc = errors.PositionNotInBook("44 is not in book8.dat")
    assert str(exc) == "44 is not in book8.dat"  # not KeyError's "'44 is not ...'"


def _junk(tmp_path: Path) -> Path:
    path = tmp_path / "junk.bin"
    path.write_bytes(bytes(range(256)) * 3)
    return path


def _damaged_compact(tmp_path: Path) -> Path:
    data = bytearray((BOOKS / "book8.c4b").read_bytes())
    path = tmp_path / "short.c4b"
    path.write_bytes(bytes(data[: len(data) // 2]))
    return path


FAILURES = {
    "illegal move": (lambda tmp: Position.from_moves("8"), errors.InvalidArgument),
    "board over 64 bits": (lambda tmp: parse_board_size("8x8"), errors.InvalidArgument),
    "board size": (lambda tmp: solver.check_board_size(0, 4), errors.InvalidArgument),
    "book layout": (lambda tmp: BookFormat.parse("eight"), errors.InvalidArgument),
    "shard": (lambda tmp: parse_shard("0/4"), errors.InvalidArgument),
    "table size": (lambda tmp: check_table_size(9), errors.InvalidArgument),
    "column code": (
        lambda tmp: decode_keys(np.array([0xFFFFFF], np.uint64), 24, 8, *DEFAULT_BOARD),
        errors.InvalidArgument,
    ),
    "missing book": (lambda tmp: open_book(tmp / "none.dat"), errors.BookFileMissing),
    "unknown shipped name": (lambda tmp: open_book("nosuchbook"), errors.BookFileMissing),
    "directory as a book": (lambda tmp: open_book(tmp), errors.BookFileError),
    "truncated compact book": (
        lambda tmp: open_book(_damaged_compact(tmp)),
        errors.BookFileError,
    ),
    "wrong kind": (lambda tmp: open_book(BOOKS / "book8.c4b", format="tape"), errors.Error),
    "output exists": (
        lambda tmp: refuse_existing(BOOKS / "book8.c4b", force=False),
        errors.OutputExists,
    ),
    "output directory missing": (
        lambda tmp: atomic_write_bytes(tmp / "no" / "dir.bin", b""),
        errors.OutputDirectoryMissing,
    ),
    "foreign work directory": (
        lambda tmp: WorkDir.open(_junk(tmp).parent, {"plies": 8}),
        errors.WorkDirError,
    ),
    "search time limit": (
        lambda tmp: solver.Solver(table_log2=16).solve("", time_limit=0.01),
        errors.SearchTimeout,
    ),
    "finished game": (
        lambda tmp: Engine(books=None).analyze("1212121"),
        errors.InvalidArgument,
    ),
    "book path too long for the OS": (
        lambda tmp: open_book(tmp / ("x" * 300)),
        errors.BookFileUnreadable,
    ),
    "book through a file": (
        lambda tmp: open_book(_junk(tmp) / "b.dat"),
        errors.BookFileMissing,
    ),
    "output name too long for the OS": (
        lambda tmp: atomic_write_bytes(tmp / ("x" * 300), b""),
        errors.OutputUnwritable,
    ),
    "shard name too long for the OS": (
        lambda tmp: merge_books(tmp / "merged.dat", [tmp / ("x" * 300)]),
        errors.BookFileUnreadable,
    ),
    "work directory through a file": (
        lambda tmp: WorkDir.open(_junk(tmp) / "work", {"plies": 8}),
        errors.WorkDirUnusable,
    ),
    "position of another ply": (
        lambda tmp: open_book(BOOKS / "book8.dat").get(Position.from_moves("44")),
        errors.Error,
    ),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_every_public_failure_is_an_openingbook_error(case, tmp_path):
    call, expected = FAILURES[case]
    with pytest.raises(openingbook.Error) as info:
        call(tmp_path)
    assert isinstance(info.value, expected), type(info.value)
    text = str(info.value)
    assert text and "\n" not in text and not text.startswith("'"), text


def test_os_failures_keep_their_os_error(tmp_path):
    """A family member for what the OS refuses is still the ``OSError`` it was: errno,
    file name, the original as ``__cause__``."""
    with pytest.raises(OSError) as info:
        open_book(tmp_path / ("x" * 300))
    exc = info.value
    assert isinstance(exc, errors.BookFileUnreadable) and isinstance(exc, openingbook.Error)
    assert exc.errno == errno.ENAMETOOLONG and isinstance(exc.__cause__, OSError)
    assert str(exc).startswith("cannot read ") and str(exc).endswith(": File name too long")


@pytest.mark.parametrize(
    "reader",
    [
        "openingbook.formats.compact:CompactBook",
        "openingbook.formats.thill:Book",
        "openingbook.formats.cadot:CadotBook",
        "openingbook.formats.pons:PonsBook",
    ],
)
def test_a_reader_made_directly_raises_the_family_too(reader, tmp_path):
    """Each format's reader, made without ``open_book``: a path the OS refuses (a name
    too long, a path through a file) and a missing file are family members too."""
    import importlib

    module, name = reader.split(":")
    cls = getattr(importlib.import_module(module), name)
    with pytest.raises(errors.BookFileUnreadable) as info:
        cls(tmp_path / ("x" * 300))
    assert info.value.errno == errno.ENAMETOOLONG and isinstance(info.value, OSError)
    with pytest.raises(errors.BookFileError):
        cls(_junk(tmp_path) / "b.dat")
    with pytest.raises(errors.BookFileMissing):
        cls(path=tmp_path / "none.dat")


def test_a_full_disk_is_an_output_error(monkeypatch):
    """Standard output on ``/dev/full``: every write fails with ENOSPC."""
    from openingbook.pipeline.export import export_book

    with open("/dev/full", "w") as full:
        monkeypatch.setattr(sys, "stdout", full)
        with pytest.raises(errors.OutputUnwritable) as info:
            export_book(BOOKS / "book8-dist.c4b", "csv", "-")
        assert info.value.errno == errno.ENOSPC
        assert str(info.value) == "cannot write standard output: No space left on device"
        with contextlib.suppress(OSError):  # what is left in its buffer cannot go anywhere
            full.close()


#: run as a user who may read everything and write nothing of root's (see below)
_UNPRIVILEGED_WRITES = """
import json, sys
import openingbook
from openingbook.atomicio import atomic_write_bytes, write_together
from openingbook.pipeline.workdir import WorkDir
ro = sys.argv[1]
calls = {
    "atomic": lambda: atomic_write_bytes(ro + "/a.bin", b"x"),
    "together": lambda: write_together([(ro + "/b.json", b"{}"), (ro + "/b", b"x")]),
    "new work directory": lambda: WorkDir.open(ro + "/work", {"plies": 8}),
    "work directory": lambda: WorkDir.open(ro, {"plies": 8}),
}
out = {}
for name, call in calls.items():
    try:
        call()
        out[name] = None
    except openingbook.Error as exc:
        out[name] = [type(exc).__name__, str(exc), exc.errno, type(exc.__cause__).__name__]
print(json.dumps(out))
"""


def test_a_read_only_output_directory_is_one_family_error(tmp_path):
    tmp_path.chmod(0o755)
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o555)
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME="/nonexistent")
    done = subprocess.run(
        [*unprivileged(), sys.executable, "-c", _UNPRIVILEGED_WRITES, str(ro)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    denied = os.strerror(errno.EACCES)
    assert got == {
        "atomic": ["OutputUnwritable", f"cannot write {ro}/a.bin: {denied}", 13, "PermissionError"],
        "together": [
            "OutputUnwritable",
            f"cannot write {ro}/b.json: {denied}",
            13,
            "PermissionError",
        ],
        "new work directory": [
            "WorkDirUnusable",
            f"cannot create work directory {ro}/work: {denied}",
            13,
            "PermissionError",
        ],
        "work directory": [
            "WorkDirUnusable",
            f"cannot write work directory {ro}: {denied}",
            13,
            "PermissionError",
        ],
    }
    export = ["export", str(BOOKS / "book8-dist.c4b"), "--format", "csv", "-o", str(ro / "x.csv")]
    cli = subprocess.run(
        [
            *unprivileged(),
            sys.executable,
            "-c",
            "from openingbook.cli import main; main()",
            *export,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert (cli.returncode, cli.stdout) == (1, "")
    assert cli.stderr == f"Error: cannot write {ro}/x.csv: {denied}\n"


def test_an_unreachable_scheduler_is_one_family_error(monkeypatch):
    """The dask client's connection error (made here: no network in a test) becomes
    ``SchedulerUnreachable``, still an ``OSError``."""
    distributed = pytest.importorskip("distributed")
    from openingbook.pipeline.executors import DaskExecutor

    def refuse(*args, **kwargs):
        raise OSError(errno.ECONNREFUSED, "Connection refused")

    monkeypatch.setattr(distributed, "Client", refuse)
    with pytest.raises(errors.SchedulerUnreachable) as info:
        DaskExecutor("tcp://127.0.0.1:9")
    assert isinstance(info.value, OSError) and isinstance(info.value.__cause__, OSError)
    assert str(info.value) == (
        "cannot reach the dask scheduler at tcp://127.0.0.1:9: [Errno 111] Connection refused"
    )
