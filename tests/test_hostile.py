"""Hostile conditions: signals, named pipes, devices, endless input, too many workers,
a damaged shipped book. Each case was reproduced before its fix (issue 24).

Signals are sent to real processes. To stop a command at a known point without
timing guesses, the child replaces ``os.fsync`` (every atomic write calls it once
its temporary file is complete) by a version that says ``READY`` on stderr and
waits: the test then sends the signal while the temporary file exists, and
checks that it is gone, the output was never written, and the command said one
line and exited with 128 + the signal's number. Waits are bounded and generous
(the machine running the suite may be busy).
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from openingbook.cli import main
from tests.helpers import FifoGuard, default_stop_signals, one_line_error, unbuffered_env

ROOT = Path(__file__).resolve().parents[1]

#: the command line, with os.fsync stalling after its work until a signal comes
_STALL_AT_FSYNC = """
import os, sys, time
_fsync = os.fsync
def stall(fd):
    _fsync(fd)
    sys.stderr.write("READY\\n")
    sys.stderr.flush()
    time.sleep(600)
os.fsync = stall
from openingbook.cli import main
main()
"""


def _stop_when_ready(args: list[str], signum: int, cwd: Path) -> tuple[int, str]:
    """Run the CLI with ``args``, send ``signum`` once it stalls in its first fsync."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _STALL_AT_FSYNC, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        text=True, env=unbuffered_env(), cwd=cwd, preexec_fn=default_stop_signals,
    )  # fmt: skip
    assert proc.stderr is not None
    try:
        seen = []
        deadline = time.monotonic() + 600
        for line in proc.stderr:  # the child blocks after READY: this loop ends there
            seen.append(line)
            # a progress bar redraws with carriage returns and no newline, so READY can
            # end a line that began with the bar
            if line.endswith("READY\n"):
                proc.send_signal(signum)
                break
            assert time.monotonic() < deadline, "the command never reached its write"
        else:
            pytest.fail(f"the command ended without writing: {''.join(seen)}")
        rest = proc.stderr.read()
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = [
        line
        for line in "".join(seen).splitlines() + rest.splitlines()
        if not line.endswith("READY")
    ]
    return proc.returncode, "\n".join(lines)


def _hidden_temporaries(directory: Path) -> list[str]:
    return sorted(str(p) for p in directory.rglob(".*") if p.name.endswith(".tmp"))


#: every command that writes, with its output ``out`` in the test's directory
WRITERS = {
    "build": ["build", "--plies", "6", "--jobs", "1", "-o", "out.dat"],
    "derive": ["derive", "--from", "{book}", "--plies", "6", "-o", "out.dat"],
    "merge": ["merge", "{shard1}", "{shard2}", "-o", "out.dat"],
    "convert": ["convert", "{book}", "-o", "out.c4b"],
    "export": ["export", "{book}", "-f", "csv", "-o", "out.csv"],
    "enumerate": ["enumerate", "--plies", "6", "-o", "out.txt"],
}


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> tuple[Path, Path]:
    """The two shards of a small build, for merge (111 positions: seconds to solve)."""
    d = tmp_path_factory.mktemp("shards")
    for i in (1, 2):
        result = CliRunner().invoke(
            main,
            ["build", "--plies", "8", "--under", "44444", "--shard", f"{i}/2", "--jobs", "1", "-q",
             "-o", str(d / f"s{i}.dat")],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    return d / "s1.dat", d / "s2.dat"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("command", sorted(WRITERS))
def test_a_stopping_signal_removes_the_temporary_files(
    command, signum, shards, tmp_path, reference_dir
):
    book = tmp_path / "in.dat"
    shutil.copy(reference_dir / "thill-original-book8.dat", book)
    work = tmp_path / "run"
    work.mkdir()
    args = [a.format(book=book, shard1=shards[0], shard2=shards[1]) for a in WRITERS[command]]
    code, stderr = _stop_when_ready(args, signum, work)
    name = signal.Signals(signum).name
    assert (code, stderr.splitlines()[-1:]) == (128 + signum, [f"terminated ({name})"]), stderr
    assert "Traceback" not in stderr
    assert _hidden_temporaries(work) == []
    assert not any(p.name.startswith("out.") and p.is_file() for p in work.iterdir())


@pytest.mark.slow
def test_sigterm_during_a_long_export_leaves_nothing(tmp_path):
    """The issue's case, without any stall: SIGTERM while the 12-ply distance book's
    CSV is being written (hundreds of MB) used to leave the temporary file behind."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "from openingbook.cli import main; main()",
         "export", "12-dist", "-f", "csv", "-o", "big.csv"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=unbuffered_env(),
        cwd=tmp_path,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 600
        while not _hidden_temporaries(tmp_path):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, err) == (143, "terminated (SIGTERM)\n")
    assert list(tmp_path.iterdir()) == []


def test_an_ignored_sighup_stays_ignored(tmp_path):
    """``nohup openingbook ...``: the command line keeps SIGHUP ignored."""
    probe = (
        "import signal; signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
        "from openingbook.cli import _stop_on_signals\n"
        "restore = _stop_on_signals()\n"
        "print(signal.getsignal(signal.SIGHUP) is signal.SIG_IGN,"
        " signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=unbuffered_env(),
        timeout=300,
    )
    assert done.stdout.split() == ["True", "True"], done.stderr


# ------------------------------------------------------------------ named pipes, devices
def test_a_named_pipe_as_a_manifest_is_refused_unopened(tmp_path, reference_dir):
    book = tmp_path / "in" / "b.dat"
    book.parent.mkdir()
    shutil.copy(reference_dir / "thill-original-book8.dat", book)
    guard = FifoGuard(tmp_path / "in" / "b.dat.json")
    try:
        for args in (["lookup", str(book), "44444455"], ["info", str(book)]):
            result = CliRunner().invoke(main, args)
            one_line_error(result, 1, "b.dat.json", "named pipe", "not a manifest")
    finally:
        guard.close()
    assert not guard.fired


def test_a_named_pipe_as_a_book_is_refused_by_the_library(tmp_path):
    import openingbook
    from openingbook.errors import BookFileError

    guard = FifoGuard(tmp_path / "pipe.c4b")
    try:
        with pytest.raises(BookFileError, match="named pipe"):
            openingbook.open_book(guard.path)
    finally:
        guard.close()
    assert not guard.fired


# ------------------------------------------------------------------ endless input
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["solve", "--file", "/dev/zero"], "/dev/zero: line 1 is longer than 4096 characters"),
        (["solve", "--file", "-"], "standard input: line 1 is longer than 4096 characters"),
        (["lookup", "8", "--board", "-"], "standard input: more than 65536 characters"),
    ],
)
def test_endless_input_is_read_with_a_bound(args, message):
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(
            [sys.executable, "-c", "from openingbook.cli import main; main()", *args],
            stdin=zero, capture_output=True, text=True, env=unbuffered_env(), timeout=300,
        )  # fmt: skip
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"Error: {message}")
    assert done.stdout == ""


def test_long_lines_within_the_bound_still_solve(tmp_path):
    from openingbook.inputs import MAX_LINE_CHARS, bounded_lines

    line = "4" * 6 + " " * (MAX_LINE_CHARS - 7) + "\n"  # exactly the bound, then a newline
    moves = tmp_path / "m.txt"
    moves.write_text(line + "44\n")
    with open(moves, encoding="utf-8") as fh:
        assert [x.split()[0] for x in bounded_lines(fh, "m.txt")] == ["444444", "44"]


# ------------------------------------------------------------------ workers
@pytest.mark.parametrize(("jobs", "chunk_size", "workers"), [("48", "1024", 1), ("48", "64", 9)])
def test_workers_are_no_more_than_the_chunks(jobs, chunk_size, workers, tmp_path, monkeypatch):
    """``--jobs 48`` for a build of one chunk started 48 workers: now as many as chunks
    (568 positions of 4 plies: 1 chunk of 1024, 9 of 64). The executor is replaced by
    one that records what it was asked for (no solving needed)."""
    import openingbook.pipeline.build

    asked = []

    def record(name, jobs, *args, **kwargs):
        asked.append(jobs)
        raise KeyboardInterrupt  # stop there, as Ctrl-C would

    monkeypatch.setattr(openingbook.pipeline.build, "make_executor", record)
    args = ["build", "--plies", "4", "--chunk-size", chunk_size, "--jobs", jobs]
    result = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "b.dat")])
    assert (result.exit_code, result.stderr) == (130, "interrupted\n")
    assert asked == [workers]


def test_workers_are_checked_against_memory(tmp_path, monkeypatch):
    import openingbook.memory
    from openingbook.memory import WORKER_PROCESS_BYTES
    from openingbook.solver import table_bytes

    each = table_bytes(18) + WORKER_PROCESS_BYTES
    monkeypatch.setattr(openingbook.memory, "available_memory", lambda: 3 * each + 1)
    args = ["build", "--plies", "8", "--under", "4444", "--chunk-size", "16", "--table-log2"]
    args += ["18", "-o", str(tmp_path / "b.dat")]
    result = CliRunner().invoke(main, [*args, "--jobs", "8"])
    one_line_error(result, 2, "--jobs 8: 8 workers need about", "enough for 3")
    assert list(tmp_path.iterdir()) == []
    assert openingbook.memory.worker_count(None, 18, tasks=29, cores=8) == 3  # the default fits


# ------------------------------------------------------------------ shipped books
def test_a_damaged_shipped_book_is_listed_as_damaged_and_hides_no_other(tmp_path, monkeypatch):
    import openingbook.booknames

    for name in ("book8.c4b", "book8-under44444.c4b"):
        shutil.copy(ROOT / "books" / name, tmp_path / name)
    (tmp_path / "book10.c4b").write_bytes((ROOT / "books" / "book10.c4b").read_bytes()[:40])
    monkeypatch.setattr(openingbook.booknames, "books_dir", lambda: tmp_path)
    monkeypatch.setattr(openingbook.booknames, "deep_books_dir", lambda: None)  # these alone
    result = CliRunner().invoke(main, ["books"])
    assert result.exit_code == 0, result.output
    *lines, missing = [line for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert [line.split()[0] for line in lines] == ["8", "8-under44444", "10"]
    assert missing.startswith("not installed: 13-dist, 14, 14-dist, 15-dist")
    assert "8-ply win/draw/loss, complete, 77,715 positions" in lines[0]
    assert lines[2].split()[1:4] == ["40", "bytes", "DAMAGED:"]
    listed = json.loads(CliRunner().invoke(main, ["books", "--json"]).stdout)["books"]
    assert [b["damaged"] is None for b in listed] == [True, True, False]
