"""Small books for the export tests, built once per test session, and checks on them.

The books cover the 12-ply positions under one 10-move line (37 positions:
first-player wins, second-player wins and draws), with and without distances,
so that every export path (pruned completion included) runs in seconds.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

import numpy as np

from openingbook.formats.thill import Book
from solver import DEFAULT_BOARD, DEFAULT_HEIGHT, DEFAULT_WIDTH, Position, enumerate_positions
from solver.search import Solver
from tests.conftest import REFERENCE

#: A line whose 12-ply subtree holds all three results.
LINE = "1212343456"
REFERENCE_BOOK8 = REFERENCE / "thill-original-book8.dat"

_DIR = Path(tempfile.mkdtemp(prefix="export-books-"))
atexit.register(shutil.rmtree, _DIR, ignore_errors=True)


@functools.cache
def built_book(plies: int = 12, under: str = LINE, distances: bool = True) -> Path:
    """A book built by the build pipeline (with its manifest), cached for the session."""
    from openingbook.pipeline.build import BuildOptions, build_book

    out = _DIR / f"book{plies}{'-dist' if distances else ''}-under{under}.dat"
    options = BuildOptions(plies=plies, distances=distances, under=under, board=DEFAULT_BOARD)
    build_book(out, options, jobs=1, table_log2=20, progress=False)
    return out


@functools.cache
def exact_scores(plies: int = 12, under: str = LINE) -> dict[Position, int]:
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
