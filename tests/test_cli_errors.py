"""Every command's bad input: one line on stderr, exit status 2 for a bad argument, 1 otherwise.

The table below goes through every command of ``openingbook --help`` with a few
bad arguments each: what click rejects and what the library rejects
(:class:`openingbook.errors.InvalidArgument`) both exit with 2, file problems
with 1. Then the cases that used to end in a traceback: a closed standard
input, a solver table larger than the machine's memory, Ctrl-C while the
command line starts.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from openingbook.cli import main
from openingbook.errors import InvalidArgument
from openingbook.memory import check_table_size
from tests.helpers import default_sigint

#: (arguments, exit status, a piece of the one-line message). ``{book8}`` is
#: Thill's 8-ply book, ``{tmp}`` a fresh directory; outputs go there.
CASES = [
    # solve
    (["solve", "44x"], 2, "MOVES 44x: move 3 is 'x', not a column digit"),
    (["solve", "4444444"], 2, "column 4, which is full"),
    (["solve"], 2, "give either MOVES or --file F"),
    (["solve", "44", "--table-log2", "9"], 2, "'--table-log2': 9 is not in the range 10<=x<=32"),
    (["solve", "--file", "{tmp}/missing.txt"], 1, "missing.txt: No such file or directory"),
    # c4solver
    (["c4solver", "-b", "{tmp}/missing.book"], 1, "missing.book: No such file or directory"),
    (["c4solver", "-x"], 2, "No such option '-x'"),
    # levels
    (["levels", "--games", "0"], 2, "'--games': 0 is not in the range x>=1"),
    (["levels", "--seed", "x"], 2, "'x' is not a valid integer"),
    # enumerate
    (["enumerate", "--plies", "50"], 2, "plies must be between 0 and 42"),
    (["enumerate", "--plies", "8", "--under", "4x"], 2, "not a string of column digits"),
    (["enumerate", "--plies", "4", "--under", "44444"], 2, "more than the 4 plies"),
    (["enumerate", "--plies", "8", "--as", "codes"], 2, "--as needs --output PATH"),
    (["enumerate", "--plies", "40", "-o", "{tmp}/c.txt", "--as", "codes"], 2, "at most 64"),
    (["enumerate", "--plies", "2", "--output", "{tmp}/no/dir.txt"], 1, "no directory"),
    # build
    (["build", "--plies", "11"], 2, "--plies 11: books are built for an even number"),
    (["build", "--plies", "x"], 2, "'x' is not a valid integer"),
    (["build", "--plies", "8", "--under", "4444444"], 2, "--under 4444444: move 7"),
    (["build", "--plies", "8", "--under", "4444444444"], 2, "10 moves, more than the 8"),
    (["build", "--plies", "8", "--shard", "3/2"], 2, "expected i/n with 1 <= i <= n"),
    (["build", "--plies", "8", "--sample", "0"], 2, "--sample 0: must be at least 1"),
    (["build", "--plies", "8", "--sample", "99999999"], 2, "--sample 99999999: only 77715"),
    (["build", "--plies", "8", "--chunk-size", "0"], 2, "--chunk-size 0: must be at least 1"),
    (["build", "--plies", "8", "--jobs", "0"], 2, "0 is not in the range x>=1"),
    (["build", "--plies", "8", "--executor", "spark"], 2, "'spark' is not one of"),
    (["build", "--plies", "8", "--scheduler", "tcp://h:1"], 2, "needs the dask executor"),
    (["build", "--plies", "8", "--table-log2", "33"], 2, "33 is not in the range 10<=x<=32"),
    (["build", "--plies", "8", "--seed", "2"], 2, "--seed only applies with --sample"),
    (["build", "--plies", "8", "--under", "444444", "--chunk-size", "999", "--shard", "1/3"], 2,
     "this shard is empty"),
    (["build", "--plies", "8", "-o", "{tmp}/no/b.dat"], 1, "does not exist"),
    # merge
    (["merge", "{book8}", "-o", "{tmp}/m.dat"], 1, "no manifest"),
    (["merge", "-o", "{tmp}/m.dat"], 2, "Missing argument 'SHARDS...'"),
    # lookup and info
    (["lookup", "{book8}", "44x"], 2, "MOVES 44x"),
    (["lookup", "{book8}", "4444"], 2, "the position has 4 stones"),
    (["lookup", "{book8}", "--board", "XQ"], 2, "--board: "),
    (["lookup", "{book8}", "44444455", "--format", "xx"], 2, "unknown book format 'xx'"),
    (["lookup", "{book8}"], 2, "give the position either as MOVES or with --board"),
    (["lookup", "{tmp}/none.dat", "44444455"], 1, "none.dat: No such file or directory"),
    (["info", "{book8}", "--format", "13-dist"], 1, "not a multiple of the 5-byte record"),
    (["info", "{book8}", "--format", "0"], 2, "--format"),
    # derive, validate, diff, check, stats
    (["derive", "--from", "{book8}", "--plies", "9", "--out", "{tmp}/d.dat"], 2, "--plies 9"),
    (["derive", "--from", "{book8}", "--plies", "6", "--under", "4x", "--out", "{tmp}/d.dat"], 2,
     "'4x' is not a 1-based move string"),
    (["derive", "--from", "{tmp}/none.dat", "--plies", "6", "--out", "{tmp}/d.dat"], 1,
     "none.dat: No such file or directory"),
    (["validate", "{book8}", "{book8}"], 1, "is not deeper than"),
    (["validate", "{book8}"], 2, "Missing argument 'DEEPER'"),
    (["validate", "{book8}", "{book8}", "--under", "49"], 2, "'--under': 49: move 2 is column 9"),
    (["diff", "{book8}", "{book8}", "--limit", "-1"], 2, "-1 is not in the range x>=0"),
    (["check", "{book8}", "--sample", "2", "--all"], 2, "--sample and --all exclude each other"),
    (["check", "{book8}", "--table-log2", "9"], 2, "9 is not in the range 10<=x<=32"),
    (["check", "{book8}", "--jobs", "0"], 2, "0 is not in the range x>=1"),
    (["check", "{book8}", "--scheduler", "tcp://h:1", "--sample", "1"], 2,
     "needs the dask executor"),
    (["stats", "{book8}", "--format", "9"], 1, "not a multiple of the 4-byte record"),
    (["stats", "{book8}", "--format", "twelve"], 2, "unknown book format"),
    # export
    (["export", "{book8}", "-f", "foo", "-o", "{tmp}/x"], 2, "'foo' is not one of"),
    (["export", "{book8}", "-f", "csv", "--log-size", "22", "-o", "{tmp}/x"], 2,
     "--log-size applies to the pons format only"),
    (["export", "{book8}", "-f", "pons", "--log-size", "5", "-o", "{tmp}/x"], 2,
     "5 is not in the range 21<=x<=27"),
    (["export", "{book8}", "-f", "pons", "-o", "{tmp}/x"], 1, "this book has no distances"),
    # analyze and best
    (["analyze", "44x"], 2, "MOVES 44x: move 3 is 'x', not a column digit"),
    (["analyze", "1212121"], 2, "completes four in a row: the game is over"),
    (["best", "4", "--book", "{book8}"], 2, "a win/draw/loss book: the engine needs distances"),
    (["best", "4", "--book", "none", "--book", "8-dist"], 2, "cannot be combined"),
    (["analyze", "4", "--time-limit", "-1"], 2, "--time-limit"),
    (["analyze", "4", "--book", "{tmp}/none.c4b"], 1, "none.c4b: No such file or directory"),
    # explore (refused before the server starts)
    (["explore", "--size", "9x9", "--no-browser"], 2, "--size"),
    (["explore", "--port", "70000", "--no-browser"], 2, "70000 is not in the range"),
    (["explore", "--book", "12", "--no-browser"], 2, "book12.c4b: a win/draw/loss book"),
    (["explore", "--book", "none", "--book", "8-dist", "--no-browser"], 2, "--book none"),
    (["explore", "--size", "6x5", "--book", "12-dist", "--no-browser"], 2, "a 7x6 book"),
    (["explore", "--time-limit", "0", "--no-browser"], 2, "--time-limit"),
    # serve (refused before the server starts)
    (["serve", "--port", "70000"], 2, "70000 is not in the range"),
    (["serve", "--time-limit", "0"], 2, "--time-limit"),
    (["serve", "--max-batch", "0"], 2, "0 is not in the range 1<=x<=100000"),
    (["serve", "--book", "none", "--book", "8-dist"], 2, "--book none"),
    # the group itself
    (["convert", "{book8}", "{tmp}/b.txt"], 2, "--format is needed: cannot tell the output format"),
    (["convert", "{book8}", "{tmp}/b.dat"], 2, "is already a thill book"),
    (["convert", "{tmp}/none.dat", "{tmp}/b.c4b"], 1, "none.dat: No such file or directory"),
    (["convert", "{book8}", "{tmp}/b.c4b", "--format", "zip"], 2, "'zip' is not one of"),
    (["books", "extra"], 2, "Got unexpected extra argument"),
    (["frobnicate"], 2, "No such command 'frobnicate'"),
    (["--bogus"], 2, "--bogus"),  # click 8.4: "No such option '--bogus'", before: ": --bogus"
]  # fmt: skip


@pytest.mark.parametrize(("argv", "code", "message"), CASES)
def test_bad_input_is_one_line_with_the_right_exit_status(
    argv, code, message, reference_dir, tmp_path
):
    book8 = reference_dir / "thill-original-book8.dat"
    args = [a.format(book8=book8, tmp=tmp_path) for a in argv]
    if args[0] == "build" and "-o" not in args:
        args += ["-o", str(tmp_path / "b.dat")]  # never the current directory
    result = CliRunner().invoke(main, args)
    assert result.exit_code == code, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert message in lines[0]
    assert result.stdout == "" and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written
    with_json = CliRunner().invoke(main, [*args, "--json"])
    assert with_json.exit_code == code
    assert json.loads(with_json.stderr) == {"error": lines[0][len("Error: ") :], "exit_code": code}


def test_no_command_prints_the_help():
    result = CliRunner().invoke(main, [])
    assert result.exit_code == 0 and result.stderr == ""  # as with --help: not a mistake
    assert "Commands:" in result.stdout and "\n  solve " in result.stdout
    assert result.stdout == CliRunner().invoke(main, ["--help"]).stdout


def test_every_command_is_in_the_table():
    ctx = main.make_context("openingbook", ["--help"], resilient_parsing=True)
    assert {argv[0] for argv, _, _ in CASES} >= set(main.list_commands(ctx))


def test_library_errors_name_arguments_not_flags():
    with pytest.raises(InvalidArgument) as info:
        check_table_size(40)
    assert str(info.value) == "table_log2 40: expected 10 to 32"
    assert info.value.describe("--table-log2") == "--table-log2 40: expected 10 to 32"


# ------------------------------------------------------------ tables larger than the machine
def test_table_larger_than_memory_is_refused_before_allocation():
    with pytest.raises(InvalidArgument) as info:
        check_table_size(32, workers=2, available=20 * 2**30)
    assert str(info.value) == (
        "table_log2 32: solver tables of 2^32 entries need 64.0 GiB (2 workers, 32.0 GiB each); "
        "this machine has 20.0 GiB available"
    )
    check_table_size(32, workers=0, available=1)  # a cluster's workers: only the range
    check_table_size(25, workers=2, available=2**30)  # 2 x 256.5 MiB fit in 1 GiB


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "44", "--table-log2", "32"],
        ["build", "--plies", "8", "--table-log2", "32", "--jobs", "1", "-o", "{tmp}/b.dat"],
        ["check", "{book8}", "--sample", "1", "--table-log2", "32", "--jobs", "1"],
    ],
)
def test_documented_maximum_table_on_a_smaller_machine_is_exit_2(
    argv, monkeypatch, reference_dir, tmp_path
):
    import openingbook.memory

    # a machine with 8 GiB available: 2^32 entries (32 GiB) do not fit
    monkeypatch.setattr(openingbook.memory, "available_memory", lambda: 8 * 2**30)
    book8 = reference_dir / "thill-original-book8.dat"
    args = [a.format(book8=book8, tmp=tmp_path) for a in argv]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    [line] = result.stderr.splitlines()
    assert line.startswith("Error: --table-log2 32: solver tables of 2^32 entries need 32.0 GiB")
    assert line.endswith("this machine has 8.0 GiB available")
    assert list(tmp_path.iterdir()) == []
    if argv[0] != "solve":  # one table per worker
        result = CliRunner().invoke(main, [*args, "--jobs", "2"])
        assert "need 64.0 GiB (2 workers, 32.0 GiB each)" in result.stderr


# ------------------------------------------------------------ closed standard input, Ctrl-C
def _command(*args: str) -> list[str]:
    return [sys.executable, "-c", "from openingbook.cli import main; main()", *args]


def _env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.mark.parametrize(
    ("args", "closed", "empty"),
    [
        (["solve", "--file", "-"], "standard input", "standard input: no move strings to solve"),
        (["lookup", "{book8}", "--board", "-"], "standard input", "--board: the diagram is empty"),
    ],
)
def test_closed_or_empty_standard_input(args, closed, empty, reference_dir):
    args = [a.format(book8=reference_dir / "thill-original-book8.dat") for a in args]
    # 0<&- : no file descriptor 0 at all
    shut = subprocess.run(
        _command(*args), stdin=None, capture_output=True, text=True, env=_env(),
        preexec_fn=lambda: os.close(0),
    )  # fmt: skip
    assert shut.returncode == 1
    assert shut.stderr == "Error: cannot read standard input: it is closed\n"
    blank = subprocess.run(
        _command(*args), stdin=subprocess.DEVNULL, capture_output=True, text=True, env=_env()
    )
    assert blank.returncode in (1, 2) and blank.stderr == f"Error: {empty}\n"


def test_ctrl_c_anywhere_in_the_command_is_one_line(monkeypatch):
    import openingbook.cli

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(openingbook.cli, "_load_commands", interrupted)
    result = CliRunner().invoke(main, ["solve", "44"])
    assert (result.exit_code, result.stderr) == (130, "interrupted\n")
    result = CliRunner().invoke(main, ["solve", "44", "--json"])
    assert result.exit_code == 130
    assert json.loads(result.stderr) == {"error": "interrupted", "exit_code": 130}


def _interrupt_after_import(proc: subprocess.Popen, module: str) -> str:
    """Read the child's stderr until ``-X importtime`` reports ``module`` imported, send
    SIGINT, return all of stderr. The child is killed after two minutes whatever happens."""
    assert proc.stderr is not None
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("import time:") and line.split("|")[-1].strip() == module:
                proc.send_signal(signal.SIGINT)
                break
        else:
            pytest.fail(f"{module} was never imported")
        rest = proc.stderr.read()
        proc.wait()
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return "".join(seen) + rest


@pytest.mark.parametrize("module", ["numba", "openingbook.cli.validate"])
def test_ctrl_c_while_the_command_line_loads(module):
    """SIGINT right after ``module`` was imported (``-X importtime`` says when): the
    remaining imports, the solver's set-up or the solve are interrupted, never a traceback.
    (Without the native cache, which would solve without numba: openingbook/solver/_native.py.)"""
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", *_command("solve", "")[1:]],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        text=True, env={**_env(), "OPENINGBOOK_NATIVE": "0"}, preexec_fn=default_sigint,
    )  # fmt: skip
    stderr = _interrupt_after_import(proc, module)
    messages = [line for line in stderr.splitlines() if not line.startswith("import time:")]
    assert "Traceback" not in stderr
    assert messages == ["interrupted"], messages
    assert proc.returncode == 130


def test_ctrl_c_while_reading_standard_input():
    proc = subprocess.Popen(
        _command("solve", "--file", "-"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE, text=True,
        env={**_env(), "PYTHONUNBUFFERED": "1"}, preexec_fn=default_sigint,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    deep = "2252576253462244111563365343671351441"  # 37 stones: solved at once
    proc.stdin.write(deep + "\n")  # one answer: the command is past its start, waits for more
    proc.stdin.flush()
    assert proc.stdout.readline().startswith(f"{deep}: score -1")
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, err) == (130, "interrupted\n")


@pytest.mark.parametrize(
    "argv",
    [["solve", "4" * 100_000], ["lookup", "8", "12" * 50_000], ["analyze", "x" * 100_000]],
)
def test_a_long_bad_argument_is_echoed_in_part(argv):
    """A move string pasted by mistake: the one-line error repeats its start and its
    length, not the whole of it."""
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert len(line) < 200 and "... (100,000 characters): move " in line, line
