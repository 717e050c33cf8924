"""The shipped 7x6 distance books of every ply 0..15 (``books/book<N>-dist.c4b``).

Plies 8, 10 and 12 are the compact copies of the Thill-layout books checked in
``test_distance_books.py``; the others come from ``openingbook derive --from
books/book12-dist.dat --plies N --format compact``. Checked against independent
sources:

* derivation: every book equals one ply of exact negamax over the next book (so, by
  induction from the 12-ply book, the derivation from it), over all its positions;
* the published per-ply won/drawn/lost counts (Böck's strong solution,
  :data:`openingbook.checks.published.WDL_PER_PLY`) of every ply 0..12, by expanding each
  book to every position of its ply (ply 0: the empty board alone);
* the solver, on random positions of each book of plies 4..14, and Pons' published
  scores of the seven first moves.

The 14-ply book was built in parts and the 13-ply book derived from it
(``docs/BOOK14.md``); their whole-book checks (published counts, the 12-ply book
derived again from the 14-ply one, 2,000 positions re-solved by this solver and by
Pons') take minutes and 9 GB and are in ``benchmarks/finish_parts.sh``, its results in
``benchmarks/results/book14-final/``. The 15-ply book was built in parts the same way
and merged (``docs/BOOK15.md``, results in ``benchmarks/results/book15-final/``: the
14-ply book derived from it equals the shipped one). Here: the 12-ply book is one ply of
negamax over the 13-ply book, positions of random games of 13 and 14 stones one ply of
negamax over the next book, the 15-ply book the merge of its checked parts, and
random games of 12 to 15 stones against the solver.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from openingbook.booknames import resolve_book
from openingbook.checks.plycounts import per_ply_counts_from_values
from openingbook.checks.published import WDL_PER_PLY
from openingbook.formats.compact import CompactBook, provenance
from openingbook.oracle import Oracle
from openingbook.pipeline.negamax import negamax_layers
from openingbook.provenance import file_sha256
from openingbook.solver import (
    Position,
    Solver,
    enumerate_positions,
)
from openingbook.values import UNKNOWN
from tests.helpers import BOOKS, TABLE, random_game

DERIVED_HERE = (0, 1, 2, 3, 4, 5, 6, 7, 9, 11)  # the others are conversions of Thill books


def book_path(plies: int):
    """The shipped distance book of ``plies``, by name: 13 to 15 plies are in the data
    package of the deep books (or ``books/deep/`` of the checkout)."""
    return resolve_book(f"{plies}-dist")


def random_book_positions(
    plies: int, count: int, seed: int
) -> tuple[list[Position], np.ndarray, np.ndarray]:
    """``count`` positions of random games of ``plies`` stones in which nobody won on
    the way and nobody wins at once (a book's positions), with their ``first``/``mask``."""
    rng = random.Random(seed)
    positions: list[Position] = []
    while len(positions) < count:
        pos = random_game(rng, 7, 6, plies)
        if pos is not None and not pos.can_win_next():  # a win at once is answered by rule
            positions.append(pos)
    first = np.array([p.first_stones for p in positions], np.uint64)
    mask = np.array([p.mask for p in positions], np.uint64)
    return positions, first, mask


def scores_of(book: CompactBook, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
    bulk = book.lookup_many(first, mask)
    assert (bulk.score != UNKNOWN).all()
    return bulk.score.astype(np.int64)


@pytest.mark.parametrize("plies", DERIVED_HERE)
def test_derived_books_say_how_they_were_made(plies):
    with CompactBook(book_path(plies)) as book:
        assert (book.plies, book.kind, book.under, str(book.board)) == (
            plies,
            "distance",
            None,
            "7x6",
        )
        assert len(book) == len(enumerate_positions(plies, None, 7, 6)[0])
        meta = book.header.metadata
    made = provenance(meta)["built_by"]
    assert made == (
        f"openingbook derive --from books/book12-dist.dat --plies {plies} "
        f"--out books/book{plies}-dist.c4b --format compact --json"
    )
    source = meta["source_manifest"]["derived_from"]
    assert source["sha256"] == file_sha256(BOOKS / "book12-dist.dat")
    assert source["scope"] == "complete"


@pytest.mark.slow
@pytest.mark.parametrize("plies", range(0, 13))
def test_each_book_is_one_ply_of_negamax_over_the_next(plies):
    """The book of ``plies`` derived again, exactly, from the shipped book one ply deeper."""
    first, mask = enumerate_positions(plies, None, 7, 6)
    with CompactBook(book_path(plies + 1)) as deeper, CompactBook(book_path(plies)) as book:

        def leaves(f, m):
            bulk = deeper.lookup_many(f, m)
            return bulk.score != UNKNOWN, bulk.score.astype(np.int8)

        derived = negamax_layers(first, mask, plies + 1, leaves, True, 7, 6)
        assert derived.known.all()
        assert np.array_equal(derived.values.astype(np.int64), scores_of(book, first, mask))


def _book_counts(plies: int):
    with CompactBook(book_path(plies)) as book:

        def lookup(f, m):
            bulk = book.lookup_many(f, m, strict=False)
            return bulk.winner != UNKNOWN, bulk.winner.astype(np.int8)

        return per_ply_counts_from_values(plies, lookup, 7, 6)


@pytest.mark.parametrize("plies", range(0, 8))
def test_books_of_plies_up_to_7_expand_to_the_published_counts(plies):
    counts = _book_counts(plies)
    assert counts.matches_published and counts.unknown == 0
    assert (counts.won, counts.drawn, counts.lost) == WDL_PER_PLY[plies]


@pytest.mark.slow
@pytest.mark.parametrize("plies", range(8, 13))
def test_deeper_books_expand_to_the_published_counts(plies):
    counts = _book_counts(plies)
    assert counts.matches_published and counts.unknown == 0
    assert (counts.won, counts.drawn, counts.lost) == WDL_PER_PLY[plies]


def test_the_empty_board_and_its_seven_moves():
    """Ply 0 (one position): the first player, to move, wins (Böck: 1 won) with its
    21st stone, the 41st of the game (score +1); the seven first moves score
    -2 -1 0 1 0 -1 -2 for it (Pons), read from the 1-ply book."""
    empty = Position()
    with CompactBook(book_path(1)) as book:
        children = [empty.play(c) for c in range(7)]
        first = np.array([c.first_stones for c in children], np.uint64)
        mask = np.array([c.mask for c in children], np.uint64)
        scores = (-scores_of(book, first, mask)).tolist()
    assert scores == [-2, -1, 0, 1, 0, -1, -2]
    assert WDL_PER_PLY[0] == (1 if max(scores) > 0 else 0, 0, 0)
    with CompactBook(book_path(0)) as book:
        assert len(book) == 1
        value = book.get(empty)
    assert (value.winner.value, value.plies, value.score) == ("first", 41, max(scores))


@pytest.mark.slow
@pytest.mark.parametrize("plies", range(4, 12))
def test_random_book_positions_agree_with_the_solver(plies):
    first, mask = enumerate_positions(plies, None, 7, 6)
    rng = np.random.default_rng(plies)
    solver = Solver(table_log2=TABLE)
    with CompactBook(book_path(plies)) as book:
        picks = rng.choice(len(first), 3, replace=False)
        stored = scores_of(book, first[picks], mask[picks])
    for i, score in zip(picks.tolist(), stored.tolist(), strict=True):
        pos = Position.from_bitboards(int(first[i]), int(mask[i]))
        assert solver.solve(pos) == score, pos.some_moves()


def test_the_13_ply_book_says_it_was_derived_from_the_14_ply_book():
    with CompactBook(book_path(13)) as book:
        assert (book.plies, book.kind, book.under, book.part, str(book.board)) == (
            13,
            "distance",
            None,
            None,
            "7x6",
        )
        assert len(book) == 10_881_076  # openingbook enumerate --plies 13 (docs/BOOK14.md)
        meta = book.header.metadata
    source = meta["source_manifest"]["derived_from"]
    assert source["scope"] == "complete"
    with CompactBook(book_path(14)) as book:
        assert (book.plies, book.kind, book.part, len(book)) == (14, "distance", None, 23_192_137)
        # derived from the 14-ply book's file, or from the file it was re-encoded from
        # (openingbook convert: the same answers, every position compared)
        reencoded = book.header.metadata.get("reencoded", {})
    assert source["sha256"] in (file_sha256(book_path(14)), reencoded.get("sha256"))


@pytest.mark.parametrize("plies", [13, 14])
def test_random_game_positions_are_one_ply_of_negamax_over_the_next_book(plies):
    """2,000 positions of random games (nobody won on the way, nobody wins at once):
    each one's score in its book is the best of its moves' values, a move that completes
    four by rule and every other by the next book alone (the oracle's bulk lookups,
    nothing searched). The whole books were compared by ``finish_parts.sh``."""
    _, first, mask = random_book_positions(plies, 2000, seed=plies)
    with Oracle(books=[book_path(plies + 1)], table_log2=TABLE) as oracle:
        answer = oracle.analyze_bitboards(first, mask)
        assert oracle.engine.solver.stats.positions == 0  # every child from the book
    with CompactBook(book_path(plies)) as book:
        stored = scores_of(book, first, mask)
    assert answer.answered.all()
    assert answer.value.tolist() == stored.tolist()


def test_the_15_ply_book_is_the_merge_of_its_checked_parts():
    """``15-dist`` (``books/deep/openingbook_books/book15-dist.c4b``) is ``openingbook
    merge`` of 64 parts, each checked when it landed
    (``benchmarks/results/book15/<part>.json``: CRC, values, positions re-solved, mirror
    answers, per-ply counts; ``docs/BOOK15.md``; the parts are in git history). The book
    names every part once, in order, and holds exactly the positions the checks counted,
    55,482,500 in all (``finish_parts.sh`` added up their per-ply counts against Tromp's
    and Böck's)."""
    results = sorted((BOOKS.parent / "benchmarks" / "results" / "book15").glob("*of64.json"))
    checked = [json.loads(path.read_text()) for path in results]
    assert len(checked) == 64 and all(result["ok"] for result in checked)
    with CompactBook(book_path(15)) as book:
        assert (book.plies, book.kind, book.under, book.part, str(book.board)) == (
            15,
            "distance",
            None,
            None,
            "7x6",
        )
        merged = book.header.metadata["merged_from"]
        assert len(book) == sum(result["positions"] for result in checked) == 55_482_500
    assert [(m["part"], m["file"]) for m in merged] == [
        (f"{i}/64", f"book15-dist-part{i:02d}of64.c4b") for i in range(1, 65)
    ]
    assert [m["file"] for m in merged] == [result["file"] for result in checked]


@pytest.mark.slow
@pytest.mark.parametrize("plies", [12, 13, 14, 15])
def test_random_games_agree_with_the_solver(plies):
    """Positions of random games (nobody wins on the way), not the enumeration's."""
    rng = random.Random(plies)
    solver = Solver(table_log2=TABLE)
    checked = 0
    with CompactBook(book_path(plies)) as book:
        while checked < 20:
            pos = random_game(rng, 7, 6, plies)
            if pos is None or pos.can_win_next():
                continue
            assert book.get(pos).score == solver.solve(pos), pos.some_moves()
            checked += 1


def test_the_14_ply_win_draw_loss_book_is_the_distance_books_part():
    """``14`` (``books/deep/openingbook_books/book14.c4b``: ``derive --from 14-dist
    --plies 14 --pruned``) holds every position of the 14-ply distance book with its
    winner: the same count, the same winner on positions of random games (both readers
    in bulk), and the solver's on some; its whole position set was compared with
    ``openingbook diff`` (benchmarks/DECISIONS.md)."""
    positions, first, mask = random_book_positions(14, 3000, seed=14)
    with CompactBook(resolve_book("14")) as wdl, CompactBook(book_path(14)) as dist:
        assert wdl.kind == "wdl" and len(wdl) == len(dist) == 23_192_137
        assert "--plies 14 --pruned" in provenance(wdl.header.metadata)["built_by"]
        answers, exact = wdl.lookup_many(first, mask), dist.lookup_many(first, mask)
        assert (answers.index >= 0).all() and (exact.index >= 0).all()
        assert (answers.winner == exact.winner).all()
        solver = Solver(table_log2=TABLE)
        names = {1: "first", -1: "second", 0: "draw"}  # the side to move's score, by sign
        for pos in positions[:12]:
            sign = int(np.sign(solver.solve(pos)))  # the first player moves at 14 stones
            assert wdl.get(pos).winner.value == names[sign], pos.some_moves()
