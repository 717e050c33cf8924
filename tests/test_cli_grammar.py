"""One command-line grammar: exit statuses, the output option, names and paths.

The walk: every command that reads a book gets every kind of unusable book
(missing, a directory, a named pipe, a device, a damaged file) in both formats
where it takes both; every command that writes gets every kind of unusable
output; every command gets an unknown option. Each mistake must give the status
of the rule in ``docs/CLI.md`` (2: a bad argument; 1: a file problem), one line
on stderr starting with ``Error:`` and naming the culprit, no traceback, nothing
written. Then the output option (``-o/--output`` everywhere, ``-`` for standard
output where the output is text), the rule for a book's name against a file of
that name, bare ``openingbook``, ``-q`` and the progress bar, ``--seed -1``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from openingbook.cli import main
from tests.helpers import FifoGuard, one_line_error

ROOT = Path(__file__).resolve().parents[1]
COMPACT8 = ROOT / "books" / "book8.c4b"


@pytest.fixture
def books(tmp_path, reference_dir) -> dict[str, Path]:
    """A Thill 8-ply book and a compact one, as files of the test's own directory."""
    d = tmp_path / "in"
    d.mkdir()
    thill = d / "thill8.dat"
    shutil.copy(reference_dir / "thill-original-book8.dat", thill)
    compact = d / "compact8.c4b"
    shutil.copy(COMPACT8, compact)
    return {"thill": thill, "compact": compact}


@pytest.fixture
def fifo(tmp_path):
    guard = FifoGuard(tmp_path / "in" / "pipe.dat")
    yield guard
    guard.close()
    assert not guard.fired, "a command opened the named pipe for reading"


def _unusable_books(kind: str, tmp: Path, books: dict[str, Path]) -> Path:
    """The book argument of each kind of mistake (the FIFO comes from its fixture)."""
    d = tmp / "in"
    if kind == "missing":
        return d / "none.dat"
    if kind == "directory":
        (d / "dir.dat").mkdir(exist_ok=True)
        return d / "dir.dat"
    if kind == "device":
        return Path("/dev/zero")
    if kind == "damaged-thill":
        bad = d / "cut.dat"
        bad.write_bytes(books["thill"].read_bytes()[:1000] + b"\x01")  # not whole records
        return bad
    if kind == "damaged-compact":
        bad = d / "cut.c4b"
        bad.write_bytes(books["compact"].read_bytes()[:-100])  # truncated payload
        return bad
    raise AssertionError(kind)


#: every command reading a book, as its arguments with the book as {book}; a second
#: book where a command compares two is Thill's 8-ply book
READERS = {
    "lookup": ["lookup", "{book}", "44444455"],
    "info": ["info", "{book}"],
    "stats": ["stats", "{book}"],
    "check": ["check", "{book}"],
    "export": ["export", "{book}", "-f", "csv", "-o", "{out}/x.csv"],
    "convert": ["convert", "{book}", "-o", "{out}/x{other_suffix}"],
    "derive": ["derive", "--from", "{book}", "--plies", "6", "-o", "{out}/d.dat"],
    "validate": ["validate", "{book}", "{other}"],
    "diff": ["diff", "{book}", "{other}"],
    "merge": ["merge", "{book}", "-o", "{out}/m{same_suffix}"],
}
BOOK_MISTAKES = ["missing", "directory", "fifo", "device", "damaged-thill", "damaged-compact"]


def _run(args: list[str]):
    result = CliRunner().invoke(main, args)
    assert "Traceback" not in result.output, result.output
    return result


@pytest.mark.parametrize("mistake", BOOK_MISTAKES)
@pytest.mark.parametrize("command", sorted(READERS))
def test_every_reader_refuses_every_unusable_book_with_status_1(
    command, mistake, books, fifo, tmp_path
):
    book = fifo.path if mistake == "fifo" else _unusable_books(mistake, tmp_path, books)
    out = tmp_path / "out"
    out.mkdir()
    other_suffix = ".dat" if book.suffix == ".c4b" else ".c4b"  # convert: the other format
    args = [
        a.format(
            book=book,
            other=books["thill"],
            out=out,
            other_suffix=other_suffix,
            same_suffix=".c4b" if book.suffix == ".c4b" else ".dat",  # merge: compact parts
        )
        for a in READERS[command]
    ]
    line = one_line_error(_run(args), 1, book.name)
    assert "Traceback" not in line
    assert list(out.iterdir()) == []  # nothing written, no temporary file left
    as_json = _run([*args, "--json"])
    assert as_json.exit_code == 1
    assert json.loads(as_json.stderr.splitlines()[-1])["exit_code"] == 1


#: a mistake in the position asked for, the same status in a Thill and a compact book
POSITION_MISTAKES = [
    (["44x"], 2, "MOVES 44x"),
    (["4444"], 2, "stones"),  # a wrong stone count for the book
    (["44444455", "--size", "6x5"], 2, "6x5"),  # a board size the book is not of
    (["--board", "XQ"], 2, "--board"),
    ([], 2, "give the position either as MOVES or with --board"),
]


@pytest.mark.parametrize("kind", ["thill", "compact"])
@pytest.mark.parametrize(("args", "code", "fragment"), POSITION_MISTAKES)
def test_lookup_mistakes_have_one_status_whatever_the_book_format(
    kind, args, code, fragment, books
):
    one_line_error(_run(["lookup", str(books[kind]), *args]), code, fragment)


#: every command that writes, as arguments with its output as {output}
WRITERS = {
    "build": ["build", "--plies", "4", "--jobs", "1", "-o", "{output}"],
    "derive": ["derive", "--from", "{thill}", "--plies", "6", "-o", "{output}"],
    "convert": ["convert", "{thill}", "-o", "{output}"],
    "export": ["export", "{thill}", "-f", "csv", "-o", "{output}"],
    "enumerate": ["enumerate", "--plies", "4", "-o", "{output}"],
}
OUTPUT_MISTAKES = {
    # mistake: (how to make the output, refused alike with --force, status, message
    # fragment); what --force cannot replace is refused without suggesting it
    "exists": ("file", False, 1, "exists; use --force to overwrite it"),
    "no-directory": ("nodir", True, 1, "director"),
    "directory": ("dir", True, 1, "directory"),
    "fifo": ("fifo", True, 1, "named pipe"),
    "link-to-device": ("devlink", True, 1, "character device"),
    "read-only": ("readonly", True, 1, "read-only"),
}


def _output(how: str, d: Path) -> Path:
    out = d / ("x.c4b" if how else "x")
    if how == "file":
        out.write_text("mine\n")
    elif how == "nodir":
        out = d / "no" / "x.c4b"
    elif how == "dir":
        out.mkdir()
    elif how == "fifo":
        os.mkfifo(out)
    elif how == "devlink":
        out.symlink_to("/dev/null")
    elif how == "readonly":
        out.write_text("mine\n")
        out.chmod(0o444)
    return out


@pytest.mark.parametrize("mistake", sorted(OUTPUT_MISTAKES))
@pytest.mark.parametrize("command", sorted(WRITERS))
def test_every_writer_refuses_every_unusable_output_with_status_1(
    command, mistake, books, tmp_path
):
    if mistake == "read-only" and os.geteuid() == 0:
        # root writes read-only files anyway: the rule is then os.access's, which says yes
        mistake = "exists"
    how, forced_too, code, fragment = OUTPUT_MISTAKES[mistake]
    d = tmp_path / "out"
    d.mkdir()
    output = _output(how, d)
    before = {p.name: (p.lstat().st_mode, p.is_file() and p.read_bytes()) for p in d.iterdir()}
    args = [a.format(output=output, thill=books["thill"]) for a in WRITERS[command]]
    for force in (False, True) if forced_too else (False,):
        result = _run([*args, *(["--force"] if force else [])])
        one_line_error(result, code, fragment)
        if forced_too:
            assert "--force" not in result.output, "--force would not help: not suggested"
    after = {p.name: (p.lstat().st_mode, p.is_file() and p.read_bytes()) for p in d.iterdir()}
    assert after == before  # untouched: no temporary file, no replaced device or pipe


def test_force_onto_a_device_node_leaves_it_a_device(tmp_path, books):
    """The issue's case: ``mknod null c 1 3; export ... -o null --force`` replaced the
    device with a regular file. Needs the right to make device nodes (root in a
    container); the same rule is walked above with a link to /dev/null."""
    import stat

    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        node.symlink_to("/dev/null")  # the same rule: what it leads to is a device
    args = ["export", str(books["thill"]), "-f", "csv", "-o", str(node), "--force"]
    one_line_error(_run(args), 1, "character device", "only new paths and regular files")
    assert stat.S_ISCHR(os.stat(node).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "null"]


UNKNOWN_OPTION_CASES = [
    ["solve", "44"],
    ["analyze", "44"],
    ["best", "44"],
    ["explore"],
    ["serve"],
    ["lookup", "8", "44444455"],
    ["info", "8"],
    ["books"],
    ["enumerate", "--plies", "2"],
    ["build", "--plies", "2"],
    ["export", "8", "-f", "csv", "-o", "x"],
    ["convert", "8", "x.dat"],
    ["derive", "--from", "8", "--plies", "6", "-o", "x"],
    ["merge", "8", "-o", "x"],
    ["validate", "8", "8"],
    ["diff", "8", "8"],
    ["check", "8"],
    ["stats", "8"],
    ["c4solver"],
    ["levels"],
]


@pytest.mark.parametrize("args", UNKNOWN_OPTION_CASES)
def test_unknown_option_is_status_2_for_every_command(args, tmp_path, monkeypatch):
    """(The list is checked against ``openingbook --help`` below.)"""
    monkeypatch.chdir(tmp_path)
    one_line_error(_run([*args, "--frobnicate"]), 2, "No such option '--frobnicate'")
    assert list(tmp_path.iterdir()) == []


def test_every_command_is_walked():
    ctx = main.make_context("openingbook", ["--help"], resilient_parsing=True)
    walked = {args[0] for args in UNKNOWN_OPTION_CASES}
    assert walked == set(main.list_commands(ctx))


@pytest.mark.parametrize(
    "args",
    [
        ["build", "--plies", "8", "--sample", "3", "--seed", "-1"],
        ["check", "8", "--sample", "3", "--seed", "-1"],
        ["levels", "--games", "2", "--seed", "-1"],
    ],
)
def test_a_negative_seed_names_the_option(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_line_error(_run(args), 2, "--seed", "-1")


# ------------------------------------------------------------------ the output option
WRITING_COMMANDS = ["build", "merge", "derive", "convert", "export", "enumerate"]


@pytest.mark.parametrize("command", WRITING_COMMANDS)
def test_every_writing_command_documents_one_output_option(command):
    help_text = _run([command, "--help"]).stdout
    assert "-o, --output PATH" in help_text
    assert "--out " not in help_text and "--out," not in help_text


@pytest.mark.parametrize("spelling", ["-o", "--output", "--out"])
def test_the_old_spelling_still_works(spelling, tmp_path):
    out = tmp_path / "e.txt"
    result = _run(["enumerate", "--plies", "4", spelling, str(out)])
    assert result.exit_code == 0 and out.read_text().count("\n") == 568


@pytest.mark.parametrize(
    "args",
    [
        ["export", "{book}", "-f", "csv"],
        ["export", "{book}", "-f", "jsonl"],
        ["export", "{book}", "-f", "uci"],
        ["enumerate", "--plies", "8"],
    ],
)
def test_dash_writes_text_to_standard_output(args, books, tmp_path, monkeypatch):
    """``-o -``: the same bytes as the file ``-o FILE`` gets, on stdout; no file named
    ``-``; the summary on stderr."""
    tmp_path = tmp_path / "run"
    tmp_path.mkdir()
    monkeypatch.chdir(tmp_path)
    args = [a.format(book=books["thill"]) for a in args]
    to_file = _run([*args, "-o", "file.txt"])
    assert to_file.exit_code == 0, to_file.output
    expected = (tmp_path / "file.txt").read_text()
    (tmp_path / "file.txt").unlink()
    piped = _run([*args, "-o", "-"])
    assert piped.exit_code == 0, piped.output
    assert list(tmp_path.iterdir()) == []  # no file named "-"
    assert piped.stdout == expected and expected.count("\n") >= 67557
    assert "standard output" in piped.stderr  # the summary goes to stderr


@pytest.mark.parametrize("fmt", ["cadot", "pons"])
def test_dash_refuses_a_binary_format(fmt, books, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_line_error(
        _run(["export", str(books["compact"]), "-f", fmt, "-o", "-"]), 2, "--output -", fmt
    )
    assert [p.name for p in tmp_path.iterdir()] == ["in"]


def test_convert_takes_the_output_once(books, tmp_path):
    out = tmp_path / "c.c4b"
    one_line_error(_run(["convert", str(books["thill"])]), 2, "give the output once")
    one_line_error(
        _run(["convert", str(books["thill"]), str(out), "-o", str(out)]), 2, "output once"
    )
    assert not out.exists()


# ------------------------------------------------------------------ names and paths
def test_a_file_named_like_a_shipped_book_wins_and_the_clash_is_said(books, tmp_path, monkeypatch):
    """``12`` in the current directory is used (an existing path wins), and a note on
    stderr says so and where the shipped book ``12`` is; no note without a clash."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(books["compact"], tmp_path / "12")  # an 8-ply book named 12
    result = _run(["lookup", "12", "44444455"])
    assert result.exit_code == 0, result.output
    [note] = result.stderr.splitlines()
    assert note.startswith(f"note: 12 is the file {tmp_path / '12'} here, not the shipped book 12")
    assert "book12.c4b" in note
    assert "8-ply" in result.stdout
    # the shipped book by its path, and another name without a clash: no note
    shipped = note.rsplit("(", 1)[1].rstrip(")")
    assert "12-ply" in _run(["info", shipped]).stdout
    quiet = _run(["lookup", "8", "44444455"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_a_missing_path_is_not_taken_for_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_line_error(_run(["lookup", "./8", "44444455"]), 1, "8: No such file or directory")
    one_line_error(_run(["info", "nosuchbook"]), 1, "nor a shipped book (shipped books: ")


# ------------------------------------------------------------------ summary and progress
def test_quiet_silences_the_progress_bar_not_the_summary(tmp_path):
    """In a process of its own (as users run it): the bar on stderr, the summary on
    stdout; with ``-q`` the same summary and nothing on stderr. A book under a line (14
    positions, a second) shows the same bar and summary as a whole ply (minutes)."""
    import subprocess
    import sys

    def build(*extra: str) -> subprocess.CompletedProcess:
        args = ["build", "--plies", "10", "--under", "44444455", "--jobs", "1"]
        args += ["-o", str(tmp_path / "b.dat"), *extra]
        return subprocess.run(
            [sys.executable, "-c", "from openingbook.cli import main; main()", *args],
            capture_output=True, text=True, timeout=900,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip

    loud = build("--progress")  # stderr is no terminal here: progress asked for
    assert loud.returncode == 0, loud.stderr
    assert "solving" in loud.stderr  # the bar, on stderr
    # the workers load the kernel this process compiled: the bar never says "compiling"
    assert "compiling:" not in loud.stderr
    assert loud.stdout.startswith(f"{tmp_path / 'b.dat'}: ")
    quiet = build("--force", "-q")
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert quiet.stdout.split(";")[:2] == loud.stdout.split(";")[:2]


def test_the_progress_bar_has_no_rate_until_the_first_chunk(monkeypatch):
    """ "solving" from the start (the workers load the kernel the build compiled before
    starting them), with no rate and no ETA before the first chunk, then with both."""
    import io

    from openingbook.pipeline import build

    stream = io.StringIO()
    monkeypatch.setattr(build.sys, "stderr", stream)
    bar = build._progress_bar(100, 0, 0, 4, True)
    bar.refresh()
    starting = stream.getvalue().split("\r")[-1]
    assert starting.startswith("solving:") and "ETA" not in starting and "<" not in starting
    assert "pos/s" not in starting and "?" not in starting
    build._chunk_landed(bar, 25, 1, 4, 0)
    bar.refresh()
    solving = stream.getvalue().split("\r")[-1]
    assert solving.startswith("solving:") and "25/100" in solving and "<" in solving
    assert "chunks 1/4" in solving  # the chunk counted as it lands, with its positions
    bar.close()


def _rate(line: str) -> float:
    """The positions per second a tqdm line shows (``12.5pos/s``, ``3.10k positions/s``)."""
    import re

    number, prefix = re.search(r"([\d.]+)\s*([kMG]?)\s*pos(?:itions)?/s", line).groups()
    return float(number) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[prefix]


def test_the_build_bar_rate_is_the_positions_solved_this_run_per_second():
    """Resumed positions are no work of this run, and a chunk landing a moment after
    the bar started (or after another chunk) is no burst of speed: the rate is the
    positions solved in this run over the seconds since the bar started."""
    import io

    from openingbook.pipeline import build

    stream = io.StringIO()
    bar = build._progress_bar(10_000, 6_000, 6, 10, stream)  # 6 chunks resumed
    bar.start_t -= 20.0  # the workers started 20 s ago
    build._chunk_landed(bar, 1_000, 7, 10, 6)
    bar.refresh()
    line = stream.getvalue().split("\r")[-1]
    assert "chunks 7/10, resumed 6" in line
    assert 45 <= _rate(line) <= 50.5, line  # 1,000 positions in 20 s (and a moment)
    build._chunk_landed(bar, 1_000, 8, 10, 6)  # at once: still ~2,000 in 20 s
    bar.refresh()
    assert 90 <= _rate(stream.getvalue().split("\r")[-1]) <= 100.5
    bar.close()


def test_a_progress_bar_rate_is_work_done_since_its_first_call(monkeypatch):
    """A command's bar (cli._common.Progress) appears from a big job's first call and
    counts its rate from that call, whatever it was given before and however late the
    bar is drawn: 2,000,000 positions done 10 s after the step began is 200k/s."""
    import io

    from openingbook.cli import _common

    stream = io.StringIO()
    monkeypatch.setattr(_common, "progress_stream", lambda: stream)
    progress = _common.Progress("checking")
    progress(0, 4_000_000)
    progress.bar.start_t -= 10.0
    progress(2_000_000, 4_000_000)
    progress.bar.refresh()
    assert 190e3 <= _rate(stream.getvalue().split("\r")[-1]) <= 200.5e3
    progress.stage("writing")  # a new step: its own clock
    progress(1_000_000, 4_000_000)  # its first call: no work measured yet
    progress.bar.start_t -= 5.0
    progress(2_000_000, 4_000_000)
    progress.bar.refresh()
    assert 190e3 <= _rate(stream.getvalue().split("\r")[-1]) <= 200.5e3
    progress.close()


def test_progress_in_a_log_is_a_line_at_a_time():
    """--progress with stderr not a terminal: a line per redraw, at most one per
    interval, and the bar's last state when it ends; other text passes through."""
    import io

    from openingbook.cli._common import ProgressLines

    now = [0.0]
    log = io.StringIO()
    lines = ProgressLines(log, interval=10, clock=lambda: now[0])
    lines.write("\rstep: 0%")
    now[0] = 3.0
    lines.write("\rstep: 30%")  # too soon: held
    lines.write("note: something\n")
    now[0] = 12.0
    lines.write("\rstep: 90%   ")
    now[0] = 13.0
    lines.write("\rstep: 100%")
    now[0] = 30.0
    lines.write("\rstep: 100%")  # the bar's close draws it again: once in the log
    lines.write("\n")  # the end: its last state
    assert log.getvalue().splitlines() == ["step: 0%", "note: something", "step: 90%", "step: 100%"]


#: the commands that can run longer than a few seconds on the shipped books: each shows
#: progress on a terminal and takes --progress for a log
LONG_COMMANDS = (
    "build",
    "merge",
    "convert",
    "check",
    "stats",
    "enumerate",
    "solve",
    "analyze",
    "best",
    "c4solver",
    "info",
    "derive",
    "validate",
    "diff",
    "export",
)


@pytest.mark.parametrize("name", LONG_COMMANDS)
def test_every_long_command_takes_progress(name):
    import click

    from openingbook.cli import main

    command = main.get_command(click.Context(main), name)
    flags = {opt for param in command.params for opt in param.opts}
    assert "--progress" in flags


def test_a_bar_no_call_moves_still_shows_its_clock_running(monkeypatch):
    """Progress: a bar is redrawn on a timer, so a step whose first piece takes long shows
    its elapsed time growing (tqdm alone draws only on updates); the redraws end with
    the bar."""
    import io
    import time

    from openingbook.cli import _common

    stream = io.StringIO()
    stream.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr(_common.sys, "stderr", stream)
    progress = _common.Progress("deriving", redraw=0.02)
    progress(0, 10_000_000)
    progress.bar.start_t -= 7  # as if the step had begun 7 s ago, and no call since
    time.sleep(0.3)
    assert "00:07" in stream.getvalue()  # redrawn, with no update, at its true elapsed time
    assert stream.getvalue().count("\r") >= 5
    progress.end()
    ended = stream.getvalue()
    time.sleep(0.1)
    assert stream.getvalue() == ended and progress.bar is None


def test_work_without_progress_of_its_own_says_how_long_it_takes(monkeypatch):
    """working(): a line from the first seconds on, ended by the true elapsed time; nothing
    for work that ends sooner, nor when not enabled."""
    import io
    import time

    from openingbook.cli import _common

    stream = io.StringIO()
    stream.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr(_common.sys, "stderr", stream)
    monkeypatch.setattr(_common, "WORKING_AFTER_SECONDS", 0.05)
    with _common.working(True, "stats book15-dist.c4b"):
        time.sleep(0.3)
    shown = stream.getvalue()
    assert shown.startswith("\rstats book15-dist.c4b: 0 s") and shown.endswith(" s\n")
    elapsed = float(shown.rsplit(": ", 1)[1].removesuffix(" s\n"))
    assert 0.3 <= elapsed < 5
    monkeypatch.setattr(_common, "WORKING_AFTER_SECONDS", 2.0)
    with _common.working(True, "quick"):  # over before it would be said
        pass
    with _common.working(False, "not wanted"):
        time.sleep(0.1)
    assert stream.getvalue() == shown
