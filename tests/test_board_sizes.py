"""Other board sizes: the solver's value of the empty board against the published results.

Tromp's and Steininger's tables (:data:`openingbook.published.BOARD_RESULTS`) give the
winner of the empty board under perfect play and the move on which the game ends; the
larger boards are solved by ``benchmarks/bench_board_sizes.py``.
"""

from __future__ import annotations

import pytest

from openingbook.published import BOARD_RESULTS
from solver import Position, Solver, plies_from_score, winner_from_score

SMALL = [(4, 4), (5, 4), (4, 5), (6, 4), (4, 6), (7, 4), (6, 5), (5, 6), (4, 7), (4, 8)]


@pytest.mark.parametrize(("width", "height"), SMALL, ids=lambda v: str(v))
def test_empty_board_matches_the_published_result(width, height):
    solver = Solver(table_log2=20, width=width, height=height)
    score = solver.solve(Position.from_moves("", width=width, height=height))
    winner = str(winner_from_score(score, 0))
    assert (winner, plies_from_score(score, 0, width, height)) == BOARD_RESULTS[(width, height)]
