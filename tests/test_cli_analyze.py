"""``openingbook analyze`` and ``openingbook best``: output and exit statuses."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from openingbook.cli import main
from openingbook.engine import Engine
from openingbook.solver import BoardSize


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_analyze_the_empty_board():
    result = run("analyze", "")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("(empty board): first player to move; first player wins in 41")
    scores = [int(line.split("score")[1].split()[0]) for line in lines[1:]]
    assert scores == [-2, -1, 0, 1, 0, -1, -2]
    assert [line[1] for line in lines[1:]] == [" ", " ", " ", "*", " ", " ", " "]
    assert run("analyze").output == result.output  # MOVES defaults to the empty board


def test_analyze_json_is_the_engines():
    result = run("analyze", "4453", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == Engine().analyze("4453").to_dict()


def test_best():
    assert run("best", "").output == "4\n"
    result = run("best", "4453", "--json")
    got = json.loads(result.output)
    assert got["best"] == 3 and got["best_columns"] == [3, 6, 7]
    assert got["value"] == {"winner": "second", "plies": 36, "score": -2}


def test_other_books_and_boards():
    # the 12-ply book alone: an 11-stone position's moves are looked up
    result = run("analyze", "44444433333", "--book", "12-dist", "--json")
    assert {c["source"] for c in json.loads(result.output)["columns"] if c["known"]} <= {
        "book",
        "four",
    }
    # 6x5: its shipped 14-ply book; given without --size, the book's board
    want = Engine(board=BoardSize(6, 5)).analyze("3333344444111").to_dict()
    for args in (["--size", "6x5"], ["--book", "14-dist-6x5"]):
        result = run("analyze", "3333344444111", *args, "--json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.output) == want


def test_the_solver_alone_with_a_time_limit():
    result = run("analyze", "44444433333312", "--book", "none", "--time-limit", "1e-9", "--json")
    assert result.exit_code == 0, result.output
    got = json.loads(result.output)
    assert not got["complete"] and got["value"] is None and got["unknown"] == [1, 2, 5, 6, 7]
    result = run("best", "44444433333312", "--book", "none", "--time-limit", "1e-9")
    assert result.exit_code == 1 and "not known within the time limit" in result.output


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["analyze", "44444445"], 2, "MOVES 44444445: move 7 plays column 4, which is full"),
        (["analyze", "1212121"], 2, "the game is over"),
        (["best", "9"], 2, "outside 1-7"),
        (["analyze", "4", "--book", "none", "--book", "8-dist"], 2, "cannot be combined"),
        (["analyze", "4", "--book", "8"], 2, "book8.c4b: a win/draw/loss book"),
        (["analyze", "4", "--book", "14-dist-6x5", "--size", "7x6"], 2, "6x5 book"),
        (["analyze", "4", "--book", "no-such-book"], 1, "no-such-book"),  # a file problem
        (["analyze", "4", "--time-limit", "0"], 2, "--time-limit"),
        (["analyze", "4", "--size", "9x9"], 2, "64"),
    ],
)
def test_bad_arguments_are_one_line(args, status, message):
    result = run(*args)
    assert result.exit_code == status, result.output
    assert message in result.output and len(result.output.strip().splitlines()) <= 3
