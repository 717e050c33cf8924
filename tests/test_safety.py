"""Never lose a user's data: work directories, the build lock, outputs that are inputs.

* a build deletes only what it made: a work directory holding someone else's
  files is refused, the current directory included; after success only the
  build's own files go, and the directory only if the build created it;
* a second build of the same work directory fails at once, naming the process
  that holds the lock; a lock file left by a killed build does not block;
* no command writes over one of its inputs (or their manifests), ``--force`` or not.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from openingbook.cli import main
from openingbook.errors import InvalidArgument, WorkDirError
from openingbook.formats.thill import manifest_path
from openingbook.pipeline.build import BuildOptions, build_book
from openingbook.pipeline.workdir import LOCK_NAME, MARKER_NAME, WorkDir, is_own_file_name
from openingbook.solver import DEFAULT_BOARD
from tests.helpers import start_build

#: 12-ply positions under this line: 29 of them, a build of a second or so
PLIES, LINE = 12, "444444336"
BUILD = ["build", "--plies", str(PLIES), "--under", LINE, "--jobs", "1", "--table-log2", "16", "-q"]


def _cli(*args: str | os.PathLike[str]):
    return CliRunner().invoke(main, [str(a) for a in args])


def _tree(path: Path) -> dict[str, bytes | None]:
    """Every file and directory under ``path`` with its bytes (None for directories)."""
    return {
        str(p.relative_to(path)): (None if p.is_dir() else p.read_bytes())
        for p in sorted(path.rglob("*"))
    }


def _user_files(directory: Path) -> dict[str, bytes | None]:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "thesis.tex").write_text("three years of work\n")
    (directory / "data").mkdir()
    (directory / "data" / "measurements.csv").write_text("1,2,3\n")
    return _tree(directory)


def _one_line_error(result, code: int, *fragments: str) -> str:
    assert result.exit_code == code, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0]
    return lines[0]


# ------------------------------------------------------------ never delete what we did not make
def test_work_dir_holding_user_files_is_refused_and_kept(tmp_path):
    """Was: the build succeeded, then deleted the whole directory."""
    mine = tmp_path / "mine"
    before = _user_files(mine)
    result = _cli(*BUILD, "-o", tmp_path / "b.dat", "--work-dir", mine)
    _one_line_error(result, 1, f"work directory {mine} is not empty", "not made by a build")
    assert _tree(mine) == before  # not one file added or removed
    assert not (tmp_path / "b.dat").exists()


def test_current_directory_as_work_dir_is_refused_and_kept(tmp_path, monkeypatch):
    """Was: ``--work-dir .`` emptied the current directory, the new book included, exit 0."""
    before = _user_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = _cli(*BUILD, "-o", "b.dat", "--work-dir", ".")
    _one_line_error(result, 1, "work directory . is not empty")
    assert _tree(tmp_path) == before


def test_empty_current_directory_as_work_dir_keeps_the_book_and_the_directory(
    tmp_path, monkeypatch
):
    run = tmp_path / "run"
    run.mkdir()
    monkeypatch.chdir(run)
    result = _cli(*BUILD, "-o", "b.dat", "--work-dir", ".")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in run.iterdir()) == ["b.dat", "b.dat.json"]


def test_existing_empty_work_dir_is_emptied_but_kept(tmp_path):
    """A directory the user made stays, even empty: only the build's own files go."""
    work = tmp_path / "work"
    work.mkdir()
    result = _cli(*BUILD, "-o", tmp_path / "b.dat", "--work-dir", work)
    assert result.exit_code == 0, result.output
    assert work.is_dir() and list(work.iterdir()) == []


def test_work_dir_made_by_the_build_is_removed(tmp_path):
    work = tmp_path / "deep" / "work"  # parents too: only the work directory itself is ours
    result = _cli(*BUILD, "-o", tmp_path / "b.dat", "--work-dir", work)
    assert result.exit_code == 0, result.output
    assert not work.exists() and (tmp_path / "deep").is_dir()


def test_files_added_to_the_work_dir_during_the_build_are_kept(tmp_path):
    work = tmp_path / "work"

    def add_a_note(chunk):  # the user drops a file into the work directory mid-build
        (work / "note.txt").write_text("mine")

    build_book(
        tmp_path / "b.dat",
        BuildOptions(PLIES, under=LINE, chunk_size=8, board=DEFAULT_BOARD),
        work_dir=work,
        jobs=1,
        table_log2=16,
        progress=False,
        on_chunk=add_a_note,
    )
    assert _tree(work) == {"note.txt": b"mine"}


def test_book_written_into_its_own_work_dir_stays(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    result = _cli(*BUILD, "-o", work / "b.dat", "--work-dir", work)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in work.iterdir()) == ["b.dat", "b.dat.json"]


def test_a_marker_not_written_by_a_build_is_refused(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    (work / MARKER_NAME).write_text(json.dumps({"settings": {}}))
    (work / "keep.txt").write_text("x")
    result = _cli(*BUILD, "-o", tmp_path / "b.dat", "--work-dir", work)
    _one_line_error(result, 1, "not a work directory marker")
    assert sorted(p.name for p in work.iterdir()) == ["keep.txt", MARKER_NAME]


def test_keep_work_keeps_the_chunks_and_a_rerun_resumes_them(tmp_path):
    out = tmp_path / "b.dat"
    work = tmp_path / "w"
    first = _cli(*BUILD, "-o", out, "--work-dir", work, "--keep-work", "--chunk-size", "8")
    assert first.exit_code == 0, first.output
    assert all(is_own_file_name(p.name) for p in work.iterdir())
    marker = json.loads((work / MARKER_NAME).read_text())
    assert marker["made_by"] == "openingbook build" and marker["created_directory"] is True
    again = _cli(*BUILD, "-o", out, "--work-dir", work, "--force", "--json", "--chunk-size", "8")
    assert again.exit_code == 0, again.output
    summary = json.loads(again.stdout)
    assert summary["chunks_resumed"] == summary["chunks"] > 1
    assert summary["positions_solved"] == 0
    assert not work.exists()  # made by the first run, removed by the second


def test_work_dir_of_an_older_version_is_adopted(tmp_path):
    """Work directories made before the marker (settings.json, chunks) still resume."""
    out = tmp_path / "b.dat"
    work = tmp_path / "w"
    assert _cli(*BUILD, "-o", out, "--work-dir", work, "--keep-work").exit_code == 0
    settings = json.loads((work / MARKER_NAME).read_text())["settings"]
    (work / MARKER_NAME).unlink()
    (work / LOCK_NAME).unlink()
    (work / "settings.json").write_text(json.dumps(settings))
    again = _cli(*BUILD, "-o", out, "--work-dir", work, "--force", "--json")
    assert again.exit_code == 0, again.output
    summary = json.loads(again.stdout)
    assert summary["chunks_resumed"] == summary["chunks"] and summary["positions_solved"] == 0
    assert not work.exists()


# ------------------------------------------------------------ the lock
def test_second_open_of_a_locked_work_dir_fails_at_once(tmp_path):
    with WorkDir.open(tmp_path / "w", {"plies": 8}) as wd:
        with pytest.raises(WorkDirError) as info:
            WorkDir.open(tmp_path / "w", {"plies": 8})
        assert str(info.value) == (
            f"work directory {wd.path} is being built by process {os.getpid()} "
            f"(lock on {wd.path / LOCK_NAME})"
        )
    WorkDir.open(tmp_path / "w", {"plies": 8}).close()  # released: opens again


def test_concurrent_build_of_the_same_output_fails_and_a_killed_one_does_not_block(tmp_path):
    out = tmp_path / "c.dat"
    work = tmp_path / "c.dat.work"
    args = ["--plies", "12", "--distances", "--under", "444444", "-o", str(out)]
    args += ["--chunk-size", "4", "--jobs", "1", "--table-log2", "16", "-q"]
    child = start_build(args)
    try:
        deadline = time.monotonic() + 120
        lock = work / LOCK_NAME
        while time.monotonic() < deadline and child.poll() is None:
            locked = lock.exists() and lock.read_text().strip() == str(child.pid)
            if locked and (work / MARKER_NAME).exists():
                break
            time.sleep(0.01)
        assert child.poll() is None, "the first build ended before the second could start"
        chunks_before = sorted(p.name for p in work.glob("chunk-*"))
        second = _cli("build", *args)
        _one_line_error(
            second, 1, f"is being built by process {child.pid}", f"(lock on {work / LOCK_NAME})"
        )
        assert set(chunks_before) <= {p.name for p in work.glob("chunk-*")}  # nothing removed
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert not out.exists()
    assert (work / LOCK_NAME).exists()  # left behind by the killed build ...
    settings = json.loads((work / MARKER_NAME).read_text())["settings"]
    WorkDir.open(work, settings).close()  # ... and no obstacle: nobody holds it


# ------------------------------------------------------------ no output over an input
@pytest.fixture
def book(tmp_path, reference_dir) -> Path:
    """A copy of Thill's 8-ply book with a manifest beside it (never the reference itself)."""
    path = tmp_path / "book.dat"
    shutil.copy(reference_dir / "thill-original-book8.dat", path)
    return path


def _unchanged(*paths: Path):
    before = {p: (p.read_bytes() if p.exists() else None) for p in paths}

    def check() -> None:
        assert {p: (p.read_bytes() if p.exists() else None) for p in paths} == before

    return check


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_derive_refuses_its_source_as_output(book, force):
    """Was: ``derive --from X --out X --force`` replaced the source with its output."""
    check = _unchanged(book)
    result = _cli(
        "derive", "--from", book, "--plies", "6", "--under", "4444", "--out", book, *force
    )
    _one_line_error(result, 2, f"output {book} is also an input")
    check()


def test_derive_refuses_the_sources_manifest_and_links_to_the_source(book, tmp_path):
    manifest = manifest_path(book)
    manifest.write_text("{}")
    check = _unchanged(book, manifest)
    # the output's manifest would be the source's manifest: book.dat -> book.dat.json
    as_manifest = _cli(
        "derive", "--from", book, "--plies", "6", "--under", "4444", "--out", manifest, "--force"
    )
    _one_line_error(as_manifest, 2, "is also an input")
    link = tmp_path / "link.dat"
    link.symlink_to(book)
    hard = tmp_path / "hard.dat"
    os.link(book, hard)
    for alias in (link, hard, tmp_path / "." / "book.dat"):
        result = _cli(
            "derive", "--from", book, "--plies", "6", "--under", "4444", "--out", alias, "--force"
        )
        _one_line_error(result, 2, "is also an input")
    check()


def test_export_refuses_the_book_and_its_manifest(book):
    manifest = manifest_path(book)
    manifest.write_text("{}")
    check = _unchanged(book, manifest)
    for out in (book, manifest):
        result = _cli("export", book, "-f", "csv", "-o", out, "--force")
        _one_line_error(result, 2, "is also an input")
    check()


def test_merge_refuses_a_shard_as_output(book, tmp_path):
    other = tmp_path / "other.dat"
    other.write_bytes(b"")
    check = _unchanged(book, other)
    result = _cli("merge", book, other, "-o", other, "--force")
    _one_line_error(result, 2, f"output {other} is also an input")
    check()


def test_build_refuses_its_work_dir_or_its_files_as_output(tmp_path):
    out = tmp_path / "b.dat"
    result = _cli(*BUILD, "-o", out, "--work-dir", out)
    _one_line_error(result, 2, "is also an input")
    # the manifest of "openingbook-work" would be the work directory's marker
    work = tmp_path / "w"
    result = _cli(*BUILD, "-o", work / "openingbook-work", "--work-dir", work, "--force")
    _one_line_error(result, 2, "is also an input")
    assert not work.exists() and not out.exists()


def test_refuse_input_as_output_in_the_library(tmp_path):
    from openingbook.atomicio import refuse_input_as_output

    a, b = tmp_path / "a.dat", tmp_path / "b.dat"
    a.write_bytes(b"x")
    refuse_input_as_output([b, tmp_path / "b.dat.json"], [a, tmp_path / "a.dat.json"])
    with pytest.raises(InvalidArgument, match="is also an input"):
        refuse_input_as_output([b, a], [a])
    (tmp_path / "sub").mkdir()
    with pytest.raises(InvalidArgument, match=r"\(as .*a\.dat\)"):
        refuse_input_as_output(tmp_path / "sub" / ".." / "a.dat", [a])


# ------------------------------------------------------- temporaries of killed runs
def test_a_killed_exports_temporary_file_is_removed_by_the_next_write(tmp_path):
    """An export killed outright (SIGKILL) leaves its temporary file, named with its
    process id; the next atomic write into that directory removes it, and nothing
    that is not a dead process's temporary: another program's file of a like name,
    a running process's temporary."""
    import subprocess
    import sys

    from openingbook import atomicio

    out = tmp_path / "big.csv"
    command = ["export", "11-dist", "-f", "csv", "-o", str(out)]
    child = subprocess.Popen(
        [sys.executable, "-c", "from openingbook.cli import main; main()", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        left: list[Path] = []
        while time.monotonic() < deadline and child.poll() is None and not left:
            left = [p for p in tmp_path.glob(".big.csv.*.tmp") if p.stat().st_size > 0]
            time.sleep(0.01)
        assert child.poll() is None, "the export ended before it could be killed"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    [stale] = left
    assert stale.exists() and f"-{child.pid}-" in stale.name and not out.exists()
    foreign = tmp_path / ".big.csv.x1y2z3.tmp"  # not of our pattern: someone else's
    foreign.write_text("not ours")
    running = tmp_path / f".other.openingbook-{atomicio._HOST}-{os.getpid()}-abc123.tmp"
    running.write_text("a running process's")
    atomicio._CLEARED.discard(os.path.abspath(tmp_path))  # as a new process would
    assert _cli("export", "0-dist", "-f", "csv", "-o", tmp_path / "small.csv").exit_code == 0
    assert not stale.exists()
    assert foreign.read_text() == "not ours" and running.exists()
