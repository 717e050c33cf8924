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


def test_committed_board_size_results_agree_with_the_published_table():
    """``benchmarks/results/board_sizes.json`` (``bench_board_sizes.py``): every board it
    solved agrees with the published outcome and last move."""
    import json
    from pathlib import Path

    results = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "board_sizes.json"
    rows = json.loads(results.read_text())["boards"]
    solved = [r for r in rows if r["status"] == "solved"]
    assert {"4x4", "7x6", "8x5"} <= {r["size"] for r in solved}
    for r in solved:
        width, height = (int(x) for x in r["size"].split("x"))
        assert (r["winner"], r["last_move"]) == BOARD_RESULTS[(width, height)], r["size"]
        assert r["agrees"] is True
