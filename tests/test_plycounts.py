"""Books expanded to the published per-ply counts (``openingbook stats --per-ply-counts``).

Independent sources: Tromp's position counts per ply and the won/drawn/lost counts of
the published strong solution (:mod:`openingbook.checks.published`), and a brute-force walk of
the game tree for the small plies.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from openingbook.checks.plycounts import finished_games, per_ply_counts_from_values
from openingbook.checks.published import POSITIONS_PER_PLY, WDL_PER_PLY
from openingbook.checks.stats import book_stats
from openingbook.cli import main
from openingbook.formats import read_records
from openingbook.formats.thill import BOOK8, write_book
from openingbook.solver import DEFAULT_BOARD
from tests.helpers import BOOKS

WIDTH, HEIGHT = 7, 6
COLUMN = HEIGHT + 1


def _has_four(stones: int) -> bool:
    """Four in a row in the Pons layout (a column of HEIGHT + 1 bits)."""
    for shift in (1, COLUMN, COLUMN - 1, COLUMN + 1):  # vertical, horizontal, two diagonals
        pairs = stones & (stones >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


def _brute_force_levels(max_plies: int) -> list[tuple[int, int]]:
    """(positions, finished games) per ply by walking the game tree from the empty board."""
    level = {(0, 0)}  # (stones of the player who just moved, mask)
    out = [(1, 0)]
    for _ply in range(max_plies):
        nxt = set()
        for last, mask in level:
            if _has_four(last):
                continue  # a finished game has no moves
            mover = last ^ mask
            for col in range(WIDTH):
                move = (mask + (1 << (col * COLUMN))) & (((1 << HEIGHT) - 1) << (col * COLUMN))
                if move:
                    nxt.add((mover | move, mask | move))
        level = nxt
        out.append((len(level), sum(_has_four(last) for last, _ in level)))
    return out


def _everything_draws(first: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.ones(len(first), bool), np.zeros(len(first), np.int8)


def test_published_tables_agree_with_each_other():
    for ply, wdl in WDL_PER_PLY.items():
        assert sum(wdl) == POSITIONS_PER_PLY[ply]


def test_expansion_counts_every_position_as_the_game_tree_walk_and_tromp():
    walked = _brute_force_levels(7)
    for ply in range(8):
        counts = per_ply_counts_from_values(ply, _everything_draws, *DEFAULT_BOARD)
        assert (counts.total, counts.finished) == walked[ply]
        assert counts.total == POSITIONS_PER_PLY[ply]
    assert walked[7][1] == len(finished_games(7, *DEFAULT_BOARD)[0]) > 0


@pytest.mark.parametrize("ply", [8, 9, 10])
def test_expansion_totals_match_tromp(ply):
    counts = per_ply_counts_from_values(ply, _everything_draws, *DEFAULT_BOARD)
    assert counts.total == POSITIONS_PER_PLY[ply]
    # calling every book position a draw gives the right total but the wrong won/drawn/lost
    assert counts.matches_published is False


def test_book8_expands_to_the_published_counts():
    report = book_stats(BOOKS / "book8.dat", per_ply=True)
    assert report.per_ply is not None and report.per_ply.matches_published
    assert (report.per_ply.won, report.per_ply.drawn, report.per_ply.lost) == WDL_PER_PLY[8]
    assert report.ok


def test_a_wrong_value_breaks_the_match_and_the_exit_status(tmp_path):
    _, records = read_records(BOOKS / "book8.dat")
    values = records.values.copy()
    values[np.flatnonzero(values == 0)[0]] = 1  # one draw made a second-player win
    bad = tmp_path / "book8.dat"
    write_book(bad, BOOK8, type(records)(records.keys, values))
    report = book_stats(bad, per_ply=True)
    assert report.per_ply.matches_published is False and not report.ok
    result = CliRunner().invoke(main, ["stats", str(bad), "--per-ply-counts", "--json"])
    assert result.exit_code == 1
    assert json.loads(result.output)["per_ply"]["matches_published"] is False


@pytest.mark.slow
def test_book12_expands_to_the_published_counts():
    result = CliRunner().invoke(
        main, ["stats", str(BOOKS / "book12.dat"), "--per-ply-counts", "--json"]
    )
    assert result.exit_code == 0, result.output
    per_ply = json.loads(result.output)["per_ply"]
    assert per_ply["matches_published"] is True
    assert (per_ply["won"], per_ply["drawn"], per_ply["lost"]) == WDL_PER_PLY[12]
    assert per_ply["total"] == POSITIONS_PER_PLY[12] == 12_236_101


def test_partial_books_are_refused():
    with pytest.raises(ValueError, match="complete book"):
        book_stats(BOOKS / "book8-under44444.dat", per_ply=True)
