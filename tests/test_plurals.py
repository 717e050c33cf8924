"""Counts in the command line's sentences take the number that agrees with them."""

from __future__ import annotations

from click.testing import CliRunner

from openingbook.checks.report import describe_value
from openingbook.cli import main


def test_lookup_of_one_stone_says_one_stone() -> None:
    result = CliRunner().invoke(main, ["lookup", "1-dist", "4"])
    assert result.exit_code == 0, result.output
    assert "; 1 stone, in compact 1-ply book" in result.output
    assert "1 stones" not in result.output


def test_lookup_of_several_stones_says_stones() -> None:
    result = CliRunner().invoke(main, ["lookup", "8", "44444455"])
    assert "; 8 stones, in compact 8-ply book" in result.output


def test_a_win_in_one_ply_is_one_ply_in_reports() -> None:
    assert describe_value(True, 1, 1) == "first player wins in 1 ply"
    assert describe_value(True, -1, 2) == "second player wins in 2 plies"
