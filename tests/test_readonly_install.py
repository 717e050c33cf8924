"""A read-only install run by a user without a home directory: no traceback.

numba caches compiled kernels beside their source, then in a user-wide
directory; when it can write neither it raises "cannot cache function" (9 of
the 11 commands failed that way). :mod:`openingbook.solver._cachedir` chooses first: the
package's ``__pycache__``, else ``$XDG_CACHE_HOME``/``~/.cache``, else a private
directory under the temporary directory (said once, by the run that creates it),
and only when none is usable no cache at all.
Checked end to end: a copy of the packages made read-only, run with
``HOME=/nonexistent`` by an unprivileged user (as root: ``setpriv`` to
``nobody``, keeping only the right to read files, so the Python installation
stays readable but nothing is writable).
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from openingbook.solver import _cachedir
from openingbook.solver._cachedir import (
    first_writable,
    numba_cache_dir,
    private_temp_dir,
    user_cache_dir,
    writable,
)
from tests.helpers import unprivileged

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "from openingbook.cli import main; main()"


def _set_writable(top: Path, on: bool) -> None:
    for path in [top, *top.rglob("*")]:
        mode = path.stat().st_mode
        w = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
        path.chmod(mode | stat.S_IWUSR if on else mode & ~w)


@pytest.fixture(scope="module")
def readonly_site(tmp_path_factory):
    """openingbook (its solver inside) and the shipped books, copied without caches, read-only."""
    site = tmp_path_factory.mktemp("readonly-site")
    ignore = shutil.ignore_patterns("__pycache__", "*.dat", "*.json")
    for name in ("openingbook", "books"):
        shutil.copytree(ROOT / name, site / name, ignore=ignore)
    _set_writable(site, False)
    yield site
    _set_writable(site, True)


def _run(site: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "OPENINGBOOK_"))}
    clean.pop("XDG_CACHE_HOME", None)
    return subprocess.run(
        [*unprivileged(), sys.executable, "-c", ENTRY, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**clean, "HOME": "/nonexistent", "PYTHONPATH": str(site), **env},
        timeout=600,
        check=False,
    )


def _open_to_all(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o777)
    return path


def _files(top: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in top.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_nothing_writable_caches_in_a_private_temporary_directory(readonly_site, tmp_path):
    """No package cache, no home: the compiled code goes to <tmp>/openingbook-<uid>,
    which the first run announces in one line; the second run compiles nothing."""
    tmp = _open_to_all(tmp_path / "tmp")
    cwd = _open_to_all(tmp_path / "cwd")
    first = _run(readonly_site, cwd, "lookup", "8", "44444455", TMPDIR=str(tmp))
    assert first.returncode == 0, first.stderr
    assert first.stdout == "first player wins; 8 stones, in compact 8-ply book\n"
    [private] = tmp.glob("openingbook-*")
    assert first.stderr == (
        "openingbook: no writable cache directory (beside the package, $XDG_CACHE_HOME "
        f"or ~/.cache): compiled code is kept in {private}\n"
    )
    assert private.stat().st_mode & 0o777 == 0o700
    cached = _files(private)
    assert any(p.suffix == ".nbi" for p in cached)  # numba's index files
    second = _run(readonly_site, cwd, "lookup", "8", "44444455", TMPDIR=str(tmp))
    assert (second.returncode, second.stderr) == (0, "")
    assert second.stdout == first.stdout
    assert _files(private) == cached  # nothing compiled, nothing written again
    assert not list(readonly_site.rglob("__pycache__"))  # nothing was written beside the code


@pytest.mark.slow
def test_nothing_usable_compiles_without_a_cache(readonly_site, tmp_path):
    """The private directory's name taken by a symlink (anyone could have made it,
    pointing anywhere): refused, and nothing is cached."""
    tmp = _open_to_all(tmp_path / "tmp")
    uid = pwd.getpwnam("nobody").pw_uid if os.geteuid() == 0 else os.getuid()
    (tmp / f"openingbook-{uid}").symlink_to(_open_to_all(tmp_path / "planted"))
    done = _run(
        readonly_site, _open_to_all(tmp_path / "cwd"), "lookup", "8", "44444455",
        TMPDIR=str(tmp),
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "first player wins; 8 stones, in compact 8-ply book\n"
    assert not list(readonly_site.rglob("__pycache__"))


@pytest.mark.slow
def test_an_unwritable_package_caches_in_the_user_cache(readonly_site, tmp_path):
    cache = _open_to_all(tmp_path / "xdg")
    done = _run(
        readonly_site, _open_to_all(tmp_path / "cwd"), "lookup", "8", "44444455",
        XDG_CACHE_HOME=str(cache),
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert list((cache / "openingbook" / "numba").rglob("*.nbi"))  # numba's index files


def test_the_cache_directory_choice(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_cache_dir("numba") == tmp_path / "xdg" / "openingbook" / "numba"
    assert numba_cache_dir([tmp_path / "a", tmp_path / "b"]) is True  # numba's default
    blocker = tmp_path / "file"
    blocker.write_text("")  # a directory cannot be made below a file, even by root
    assert not writable(blocker / "sub")
    assert first_writable([blocker / "sub", tmp_path / "c"]) == tmp_path / "c"
    assert numba_cache_dir([blocker]) == tmp_path / "xdg" / "openingbook" / "numba"
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    assert numba_cache_dir([blocker]) == tmp_path / "tmp" / f"openingbook-{os.getuid()}" / "numba"
    monkeypatch.setattr(tempfile, "tempdir", str(blocker))
    assert numba_cache_dir([blocker]) is None


def test_the_private_temporary_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    top = tmp_path / f"openingbook-{os.getuid()}"
    assert private_temp_dir("native") == top / "native"
    assert top.stat().st_mode & 0o777 == 0o700
    assert capsys.readouterr().err == (
        "openingbook: no writable cache directory (beside the package, $XDG_CACHE_HOME "
        f"or ~/.cache): compiled code is kept in {top}\n"
    )
    assert private_temp_dir("numba") == top / "numba"
    assert capsys.readouterr().err == ""  # said once, by the run that created it
    top.chmod(0o755)  # others could read (and, with 0o777, plant code): refused
    assert private_temp_dir("native") is None
    top.chmod(0o700)
    monkeypatch.setattr(_cachedir, "_uid", lambda: os.getuid() + 1)  # another user's
    (tmp_path / f"openingbook-{os.getuid() + 1}").symlink_to(top)
    assert private_temp_dir("native") is None  # a symlink, even to a good directory
    (tmp_path / f"openingbook-{os.getuid() + 1}").unlink()
    monkeypatch.setattr(_cachedir, "_uid", lambda: os.getuid())
    other = tmp_path / "other"
    monkeypatch.setattr(tempfile, "tempdir", str(other))
    other.mkdir()
    (other / f"openingbook-{os.getuid()}").mkdir(mode=0o700)
    monkeypatch.setattr(_cachedir, "_uid", lambda: os.getuid() + 1)
    (other / f"openingbook-{os.getuid()}").rename(other / f"openingbook-{os.getuid() + 1}")
    assert private_temp_dir("native") is None  # owned by someone else
    assert capsys.readouterr().err == ""
