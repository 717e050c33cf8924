"""`openingbook lookup` and `openingbook info` on the reference 8-ply file and small books."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from openingbook.cli import main
from openingbook.codec import encode_keys
from openingbook.formats.thill import BookFormat, Records, write_book
from openingbook.solver import DEFAULT_BOARD, DEFAULT_HEIGHT, DEFAULT_WIDTH, Position
from tests.helpers import REFERENCE, write_manifest

BOOK8_FILE = str(REFERENCE / "thill-original-book8.dat")


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def lookup_json(*args: str, input: str | None = None) -> dict:
    result = run("lookup", *args, "--json", input=input)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def record_value(index: int) -> int:
    data = Path(BOOK8_FILE).read_bytes()
    return data[3 * index + 2] & 3


def test_lookup_record_0_by_moves_and_mirror():
    # record 0: column 6 = A,A,A,B,A and column 7 = B,B,B (one move order reaching it)
    assert record_value(0) == 0
    out = lookup_json(BOOK8_FILE, "67676667")
    assert out["winner"] == "draw" and out["plies"] is None and out["score"] == 0
    assert out["record"] == 0 and out["format"] == "8-ply" and out["stones"] == 8
    mirrored = lookup_json(BOOK8_FILE, "21212221")
    assert (mirrored["winner"], mirrored["record"]) == ("draw", 0)


def test_lookup_second_player_win_and_missing():
    assert record_value(3000) == 1
    out = lookup_json(BOOK8_FILE, "67464334")  # record 3000
    assert (out["winner"], out["plies"], out["score"], out["record"]) == (
        "second",
        None,
        None,
        3000,
    )
    missing = lookup_json(BOOK8_FILE, "44444455")
    assert (missing["winner"], missing["record"]) == ("first", None)


def test_lookup_board_diagram():
    board = "......./.....X./.....O./.....XO/.....XO/.....XO"
    out = lookup_json(BOOK8_FILE, "--board", board)
    assert (out["winner"], out["record"]) == ("draw", 0)
    piped = lookup_json(BOOK8_FILE, "--board", "-", input=board.replace("/", "\n"))
    assert piped == out


def test_lookup_text_output():
    result = run("lookup", BOOK8_FILE, "67464334")
    assert result.exit_code == 0
    assert result.output.startswith("second player wins")
    assert "record 3000" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["4444"], "the position has 4 stones; thill-original-book8.dat holds 8-stone positions"),
        (["4444444"], "move 7 plays column 4, which is full"),
        (["1212121"], "completes four in a row"),
        (["--board", "XX/OO"], "the book is for 7x6 boards, not 2x2"),
        (["--board", "XQ"], "unknown"),
    ],
)
def test_lookup_errors_are_one_line(args, message):
    result = run("lookup", BOOK8_FILE, *args)
    assert result.exit_code == 2  # a position that is illegal or not of this book: bad argument
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_lookup_usage_errors(tmp_path):
    assert run("lookup", BOOK8_FILE).exit_code == 2
    assert run("lookup", BOOK8_FILE, "67676667", "--board", "X").exit_code == 2
    result = run("lookup", str(tmp_path / "nope.dat"), "67676667")
    assert result.exit_code == 1 and "nope.dat" in result.output
    result = run("lookup", BOOK8_FILE, "67676667", "--format", "12")
    assert result.exit_code == 1
    assert "is not a multiple of the 4-byte record" in result.output


def test_lookup_check_flag(tmp_path):
    data = bytearray(Path(BOOK8_FILE).read_bytes()[: 3 * 40])
    data[3 * 16 : 3 * 18] = data[3 * 17 : 3 * 18] + data[3 * 16 : 3 * 17]
    path = tmp_path / "swapped.dat"
    path.write_bytes(bytes(data))
    assert run("lookup", str(path), "67676667", "--format", "8").exit_code == 0
    result = run("lookup", str(path), "67676667", "--format", "8", "--check")
    assert result.exit_code == 1
    assert "swapped.dat: records not sorted (record 17 < record 16)" in result.output


def test_lookup_distance_book(tmp_path):
    fmt = BookFormat.for_plies(12, distances=True, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    pos = Position.from_moves("444444333333")
    path = tmp_path / "dist.dat"
    first = np.array([pos.first_stones], np.uint64)
    mask = np.array([pos.mask], np.uint64)
    # second player wins with the stone 12 + 8 = 20 (its 10th): score -(22 - 10)
    write_book(
        path,
        fmt,
        Records(encode_keys(first, mask, 32, *DEFAULT_BOARD), np.array([8 - 100], np.int8)),
    )
    out = lookup_json(str(path), "444444333333")
    assert (out["winner"], out["plies"], out["score"]) == ("second", 8, -12)
    win_now = lookup_json(str(path), "121212445566")
    assert (win_now["winner"], win_now["plies"], win_now["score"]) == ("first", 1, 15)
    info = json.loads(run("info", str(path), "--format", "12-dist", "--json").output)
    assert (info["format"], info["records"]) == ("12-ply-dist", 1)
    assert info["values"]["second_by_plies"] == {"8": 1} and info["ok"] is True
    result = run("lookup", str(path), "444444222222")
    assert result.exit_code == 1 and "position is not in dist.dat" in result.output


def test_info_reference_file():
    result = run("info", BOOK8_FILE, "--json")
    assert result.exit_code == 0, result.output
    info = json.loads(result.output)
    data = Path(BOOK8_FILE).read_bytes()
    values = np.frombuffer(data, np.uint8)[2::3] & 3
    assert info["format"] == "8-ply" and info["records"] == len(data) // 3
    assert info["values"]["draw"] == int((values == 0).sum())
    assert info["values"]["second"] == int((values == 1).sum())
    assert info["checks"] == {"values": "ok", "order": "ok", "positions": "ok"}
    text = run("info", BOOK8_FILE)
    assert (
        text.exit_code == 0 and "records: 34286" in text.output and "order check: ok" in text.output
    )


def test_info_bad_files(tmp_path):
    data = bytearray(Path(BOOK8_FILE).read_bytes()[: 3 * 40])
    data[3 * 16 : 3 * 18] = data[3 * 17 : 3 * 18] + data[3 * 16 : 3 * 17]
    unsorted = tmp_path / "unsorted.dat"
    unsorted.write_bytes(bytes(data))
    result = run("info", str(unsorted), "--format", "8", "--json")
    assert result.exit_code == 1
    info = json.loads(result.output)
    assert info["checks"]["order"] == "records not sorted (record 17 < record 16)"
    empty = tmp_path / "empty.dat"
    empty.write_bytes(b"")
    result = run("info", str(empty))
    assert result.exit_code == 1 and "empty.dat: empty file" in result.output
    odd = tmp_path / "book.dat"
    odd.write_bytes(bytes(data[:-2]))
    result = run("info", str(odd))
    assert result.exit_code == 1
    # Thill's name, but not a whole number of its records: detection refuses it as the
    # reader does, saying why
    assert "book.dat: not a book in a known format" in result.output
    assert "Thill: size 118 bytes is not a multiple of the 3-byte record" in result.output
    assert len(result.output.strip().splitlines()) == 1


def _copy_with_manifest(tmp_path: Path, selection: dict) -> str:
    book = tmp_path / "scoped.dat"
    book.write_bytes(Path(BOOK8_FILE).read_bytes())
    write_manifest(book, BookFormat.for_plies(8, False, *DEFAULT_BOARD), **selection)
    return str(book)


def test_lookup_pruned_book_outside_its_scope_is_an_error(tmp_path):
    # a pruned book built --under a line (or a sample) says nothing about the
    # positions it does not cover: "not stored = first player wins" must not apply
    book = _copy_with_manifest(tmp_path, {"under": "4444"})
    result = run("lookup", book, "11111125")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: the position is outside {Path(book).name}, which holds only the positions "
        "under 4444"
    ]
    # inside the scope (or its mirror) the pruning rule still answers
    assert lookup_json(book, "44441111")["winner"] == "first"
    # outside it, a position whose side to move wins at once is not in the book either
    result = run("lookup", book, "12121233")
    assert result.exit_code == 1 and "outside" in result.output
    sample = _copy_with_manifest(tmp_path, {"sample": 40})
    result = run("lookup", sample, "11111125")
    assert result.exit_code == 1 and "its value is unknown" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_lookup_text_says_1_ply(tmp_path):
    book = tmp_path / "d.dat"
    src = Path(__file__).parent.parent / "books" / "book12-dist-under44444.dat"
    book.write_bytes(Path(src).read_bytes())
    result = run("lookup", str(book), "111222333444")
    assert result.exit_code == 0, result.output
    assert "first player wins in 1 ply " in result.output


def test_info_into_a_closed_pipe_is_quiet():
    # `openingbook info book.dat | head -1`: no "Error: [Errno 32] Broken pipe"
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)  # every write now fails with EPIPE
    try:
        proc = subprocess.run(
            [sys.executable, "-c", "from openingbook.cli import main; main()", "info", BOOK8_FILE],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert proc.stderr == ""
    assert proc.returncode == 141


@pytest.mark.parametrize(
    ("under", "message"),
    [(5, "'under' is 5, not a 1-based move string"), ("4444x", "move 5 is 'x'")],
)
def test_lookup_damaged_manifest_under_is_one_line(tmp_path, under, message):
    book = _copy_with_manifest(tmp_path, {"under": under})
    for args in (["lookup", book, "11111125"], ["stats", book]):
        result = run(*args)
        assert result.exit_code == 1, result.output
        assert message in result.output
        assert len(result.output.strip().splitlines()) == 1


def test_lookup_miss_in_an_unsorted_file_is_an_error(tmp_path):
    # the binary search misses a stored draw in a shuffled file: without the order
    # check the pruning rule answered "first player wins"
    data = Path(BOOK8_FILE).read_bytes()
    records = [data[i : i + 3] for i in range(0, len(data), 3)]
    np.random.default_rng(3).shuffle(records)
    book = tmp_path / "shuffled.dat"
    book.write_bytes(b"".join(records))
    result = run("lookup", str(book), "12345671", "--format", "8")
    assert result.exit_code == 1
    assert len(result.output.strip().splitlines()) == 1
    assert "records not sorted" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["build", "--plies", "x"],
        ["no-such-command"],
        ["lookup", str(BOOK8_FILE)],
        ["enumerate", "--plies", "4", "--bogus"],
    ],
)
def test_usage_errors_are_one_line(args):
    """Bad arguments: one line on stderr naming the problem and the help to read, exit 2."""
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert "--help'" in lines[0] and "Usage:" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["build", "--plies", "x", "--json"], 2),
        (["lookup", str(BOOK8_FILE), "1111111", "--json"], 2),  # an illegal position
        (["lookup", "/no/such/book.dat", "4444", "--json"], 1),
    ],
)
def test_errors_with_json_are_one_json_object(args, code):
    """With --json a script gets the error as a JSON object on stderr, stdout stays empty."""
    result = CliRunner().invoke(main, args)
    assert result.exit_code == code
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert doc["exit_code"] == code and doc["error"] and "Error" not in doc["error"]
    assert result.stdout == ""


def test_missing_book_error_names_the_file(tmp_path):
    missing = tmp_path / "no-such-book.dat"
    result = run("lookup", str(missing), "4444")
    assert result.exit_code == 1
    assert result.stderr == f"Error: {missing}: No such file or directory\n"
