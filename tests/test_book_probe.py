"""The solver's book probe (solver.probe, ``Solver(book=...)``) against the plain solver.

A probing search takes the exact score of every node of the book's ply from the book;
its answers must be the plain search's on every position (``Solver.analyze``: every
column's score), with fewer nodes when the book's ply lies below the position. The
books are shipped ones, made and checked independently of the solver's probe: the
12-ply 7x6 distance book under the line 44444 (every position of the searches from a
position under that line is in it) and the 14-ply 6x5 distance book. A table with
deliberately wrong scores must change the answers, which shows that the comparisons
can fail.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from openingbook.api import open_book
from openingbook.engine import Engine, book_probe
from openingbook.errors import InvalidArgument as BookInvalidArgument
from openingbook.solver import BoardSize, BookProbe, InvalidArgument, Position, Solver, score_bounds
from tests.helpers import check_against

TABLE = 20
BOOKS = Path(__file__).resolve().parents[1] / "books"
LINE = "44444"  # the shipped 12-ply book under this line: every descendant of it is there


def random_line(rng: random.Random, start: str, stones: int, width: int, height: int) -> Position:
    """A random continuation of ``start`` to ``stones`` stones in which nobody has four."""
    while True:
        pos = Position.from_moves(start, width, height)
        while pos.stone_count < stones:
            moves = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
            if not moves:
                break
            pos = pos.play(rng.choice(moves))
        if pos.stone_count == stones:
            return pos


@pytest.fixture(scope="module")
def probe_44444() -> BookProbe:
    with open_book("12-dist-under44444") as book:
        return book_probe([book])


def test_the_probe_holds_the_books_scores(probe_44444):
    """Every position of the book, either mirror variant, has the book's score in the probe."""
    with open_book("12-dist-under44444") as book:
        assert len(probe_44444) == len(book) and probe_44444.plies == 12
        first, mask = book.positions()
        rng = np.random.default_rng(12)
        for i in rng.choice(len(first), 300, replace=False):
            pos = Position.from_bitboards(int(first[i]), int(mask[i]))
            want = book.get(pos).score
            assert probe_44444.score(pos) == want and probe_44444.score(pos.mirror()) == want
    assert probe_44444.score(Position.from_moves("123456712345")) is None  # not under the line
    assert probe_44444.score(Position.from_moves("4444433333")) is None  # another ply


def test_probing_equals_the_plain_solver_under_the_line(probe_44444):
    """Positions of 8..11 stones under 44444: their searches meet the book's ply."""
    plain = Solver(table_log2=TABLE)
    probing = Solver(table_log2=TABLE, book=probe_44444)
    rng = random.Random(25)
    plain_nodes = probing_nodes = 0
    for stones in (8, 9, 9, 10, 10, 11, 11, 11):
        pos = random_line(rng, LINE, stones, 7, 6)
        plain.reset_stats()
        probing.reset_stats()
        assert probing.analyze(pos) == plain.analyze(pos), pos.to_moves()
        assert plain.book_hits == 0 and probing.book_hits > 0
        plain_nodes += plain.nodes
        probing_nodes += probing.nodes
    assert probing_nodes * 5 < plain_nodes  # the book answered most of the search


def test_many_positions_and_several_threads_probe_alike(probe_44444):
    """``solve_many`` (one kernel call for many positions) and a parallel search (each
    thread its own column order) probe the book as the single search does."""
    rng = random.Random(27)
    positions = [random_line(rng, LINE, stones, 7, 6) for stones in (9, 10, 10, 11, 11)]
    first = np.array([p.first_stones for p in positions], np.uint64)
    mask = np.array([p.mask for p in positions], np.uint64)
    plain = Solver(table_log2=TABLE)
    want = plain.solve_many(first, mask)
    batch = Solver(table_log2=TABLE, book=probe_44444)
    assert batch.solve_many(first, mask).tolist() == want.tolist() and batch.book_hits > 0
    parallel = Solver(table_log2=TABLE, book=probe_44444, threads=2)
    assert [parallel.solve(p) for p in positions] == want.tolist()
    assert parallel.book_hits > 0


def test_a_wrong_table_gives_wrong_answers(probe_44444):
    """The comparison above can fail: every score one off (in range) changes answers."""
    stored = probe_44444.scores.astype(np.int64)
    high = score_bounds(12, 7, 6)[1]
    wrong = np.where(stored < high, stored + 1, stored - 1)
    altered = BookProbe(probe_44444.keys, wrong, 12, 7, 6)
    assert (altered.scores != probe_44444.scores).all()
    plain = Solver(table_log2=TABLE)
    fooled = Solver(table_log2=TABLE, book=altered)
    rng = random.Random(26)
    positions = [random_line(rng, LINE, stones, 7, 6) for stones in (9, 10, 11, 11)]
    assert any(fooled.analyze(p) != plain.analyze(p) for p in positions)


def test_a_book_the_search_never_meets_changes_nothing(probe_44444):
    """Positions of 13..20 stones: the search only adds stones, so a 12-ply book is never
    probed: the same answers and exactly the same nodes."""
    plain = Solver(table_log2=TABLE)
    probing = Solver(table_log2=TABLE, book=probe_44444)
    rng = random.Random(13)
    for stones in range(13, 21):
        pos = random_line(rng, LINE, stones, 7, 6)
        plain.reset()
        probing.reset()
        plain.reset_stats()
        probing.reset_stats()
        assert probing.analyze(pos) == plain.analyze(pos), pos.to_moves()
        assert probing.nodes == plain.nodes and probing.book_hits == 0


@pytest.fixture(scope="module")
def probe_6x5() -> BookProbe:
    with open_book("14-dist-6x5") as book:
        return book_probe([book])


@pytest.mark.slow
def test_probing_equals_the_plain_solver_on_6x5(probe_6x5):
    plain = Solver(table_log2=TABLE, width=6, height=5)
    probing = Solver(table_log2=TABLE, width=6, height=5, book=probe_6x5)
    rng = random.Random(65)
    plain_nodes = probing_nodes = 0
    for stones in (6, 8, 9, 10, 11, 12, 13, 13):
        pos = random_line(rng, "", stones, 6, 5)
        plain.reset_stats()
        probing.reset_stats()
        assert probing.analyze(pos) == plain.analyze(pos), pos.to_moves()
        plain_nodes += plain.nodes
        probing_nodes += probing.nodes
    assert probing_nodes * 5 < plain_nodes


@pytest.mark.slow
def test_the_engine_probes_its_book_below_the_reach_of_negamax():
    """6x5, 0..4 stones: the children lie more than eight plies above the 14-ply book, so
    the engine searches them and reads the book's probe in the background meanwhile;
    once read, its searches probe it: the solver's answers, far fewer nodes, and the
    positions within the reach of negamax are searched with it too."""
    board = BoardSize(6, 5)
    engine = Engine(board=board, table_log2=TABLE)
    alone = Engine(board=board, books=None, table_log2=TABLE)
    solver = Solver(table_log2=TABLE, width=6, height=5)
    rng = random.Random(64)
    for stones in (2, 4):
        pos = random_line(rng, "", stones, 6, 5)
        check_against(engine, solver, pos)
        assert {m.source for m in engine.analyze(pos).moves if m} <= {"solver", "four"}
    assert engine.solver.book is None  # no analysis waits for the reading
    assert engine.wait_for_probes()
    engine.solver.reset_stats()
    alone.solver.reset_stats()
    pos = random_line(rng, "", 3, 6, 5)
    assert engine.analyze(pos).moves == alone.analyze(pos).moves
    assert engine.solver.book is not None and engine.solver.book.plies == 14
    assert engine.solver.book_hits > 0 and alone.solver.book_hits == 0
    assert engine.solver.nodes * 5 < alone.solver.nodes
    pos = random_line(rng, "", 7, 6, 5)
    engine.solver.reset_stats()
    check_against(engine, solver, pos)
    assert {m.source for m in engine.analyze(pos).moves if m} <= {"solver", "four"}
    assert engine.solver.book_hits > 0


def test_a_probe_that_cannot_be_read_leaves_the_answers_and_reports_its_error(tmp_path):
    book = tmp_path / "book14-6x5.c4b"
    shutil.copyfile(BOOKS / "book14-dist-6x5.c4b", book)
    engine = Engine(board=BoardSize(6, 5), books=[book], table_log2=TABLE)
    book.unlink()  # the engine's reader has it open; the background reading cannot
    a = engine.analyze("34")  # 14 - 3 > 8 plies above the book: searched
    assert a.complete and {m.source for m in a.moves if m} <= {"solver", "four"}
    with pytest.raises(Exception, match="book14-6x5"):
        engine.wait_for_probes()
    assert engine.wait_for_probes()  # reported once


def test_the_engine_without_books_probes_nothing():
    engine = Engine(books=None, table_log2=16, board=BoardSize(5, 4))
    engine.analyze("33")
    assert engine.solver.book is None


# ------------------------------------------------------------------ the structure
def test_mirror_variants_are_one_position_and_conflicts_are_refused():
    p = Position.from_moves("1121")
    f = np.array([p.first_stones, p.mirror().first_stones], np.uint64)
    m = np.array([p.mask, p.mirror().mask], np.uint64)
    probe = BookProbe.from_positions(f, m, np.array([-3, -3]), 4, 7, 6)
    assert len(probe) == 1 and probe.score(p) == -3 == probe.score(p.mirror())
    with pytest.raises(InvalidArgument, match="two different scores"):
        BookProbe.from_positions(f, m, np.array([-3, 2]), 4, 7, 6)


def test_bad_probes_are_refused():
    p = Position.from_moves("4455")
    f, m = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    with pytest.raises(InvalidArgument, match="another stone count"):
        BookProbe.from_positions(f, m, np.array([1]), 5, 7, 6)
    with pytest.raises(InvalidArgument, match="lies in"):
        BookProbe.from_positions(f, m, np.array([40]), 4, 7, 6)
    q = Position.from_moves("4455", 7, 7)
    seven = BookProbe.from_positions(
        np.array([q.first_stones], np.uint64), np.array([q.mask], np.uint64), [1], 4, 7, 7
    )
    with pytest.raises(InvalidArgument, match="board"):
        Solver(table_log2=16, book=seven)
    deep = Position.from_moves("123456712345671234")
    deep_probe = BookProbe.from_positions(
        np.array([deep.first_stones], np.uint64), np.array([deep.mask], np.uint64), [0], 18, 7, 6
    )
    with pytest.raises(InvalidArgument, match="fewer than 18"):
        Solver(table_log2=16, book=deep_probe)
    with pytest.raises(InvalidArgument, match="BookProbe"):
        Solver(table_log2=16, book="book12-dist.c4b")  # type: ignore[arg-type]


def test_books_of_several_plies_make_no_probe():
    with (
        open_book("8-dist") as eight,
        open_book("9-dist") as nine,
        pytest.raises(BookInvalidArgument, match="among"),
    ):
        book_probe([eight, nine])
