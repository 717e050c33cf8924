"""Checks on the small books the export tests share (:func:`tests.helpers.built_book`,
built once per test session).

The books cover the 12-ply positions under one 10-move line (37 positions:
first-player wins, second-player wins and draws), with and without distances,
so that every export path (pruned completion included) runs in seconds.
"""

from __future__ import annotations

import functools

import numpy as np

from openingbook.formats.thill import Book
from openingbook.solver import DEFAULT_HEIGHT, DEFAULT_WIDTH, Position, enumerate_positions
from openingbook.solver.search import Solver
from tests.helpers import BUILT_BOOK_UNDER, built_book


@functools.cache
def exact_scores(plies: int = 12, under: str = BUILT_BOOK_UNDER) -> dict[Position, int]:
    """Solver scores of the book positions under ``under``, keyed by canonical position."""
    first, mask = enumerate_positions(
        plies, under=under, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
    )
    scores = Solver(table_log2=20).solve_many(first, mask)
    return {
        Position.from_bitboards(int(f), int(m)).canonical(): int(s)
        for f, m, s in zip(first, mask, scores, strict=True)
    }


def test_distance_book_agrees_with_the_solver() -> None:
    scores = exact_scores()
    with Book(built_book()) as book:
        assert len(book) == len(scores) == 37
        for pos, value in book:
            assert value.score == scores[pos.canonical()]


def test_pruned_book_leaves_out_first_player_wins() -> None:
    with Book(built_book(distances=False)) as book, Book(built_book()) as full:
        wins = sum(1 for _, v in full if v.winner.value == "first")
        assert 0 < wins < len(full)
        assert book.records == len(full) - wins  # stored: all but the first player's wins
        assert len(book) == len(full)  # answered: every position
        first = np.array([p.first_stones for p, _ in full], np.uint64)
        mask = np.array([p.mask for p, _ in full], np.uint64)
        assert (book.lookup_many(first, mask).winner == full.lookup_many(first, mask).winner).all()
