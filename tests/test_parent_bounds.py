"""Lower bounds from the book of the ply before (``build --parent-book``).

A position's parents are the position less one top stone of the player who moved last;
a parent's score bounds each child's from below (negamax). The bounds are checked
against parents found cell by cell (``Position.to_array``) and against exact scores
(the solver's; near the root, the ply's own book); the solver with bounds (exact and
win/draw/loss; bounds at the score, below it, and none) against the solver without; a
build with them against one without, byte for byte, on the shipped books' board, and
value for value on a small board with a parent book of its own; and the refusals of a
parent book that cannot serve.
"""

from __future__ import annotations

import json
import random
import subprocess

import numpy as np
import pytest

from openingbook.errors import InvalidArgument
from openingbook.formats import open_book
from openingbook.pipeline import build
from openingbook.pipeline.build import BuildOptions, build_book
from openingbook.pipeline.solving import parent_lower_bounds
from openingbook.solver import NO_LOWER_BOUND, BoardSize, Position, Solver
from tests.helpers import CLI, random_game

BOARD = BoardSize(7, 6)


def arrays(positions: list[Position]) -> tuple[np.ndarray, np.ndarray]:
    first = np.array([p.first_stones for p in positions], np.uint64)
    mask = np.array([p.mask for p in positions], np.uint64)
    return first, mask


def parents(pos: Position) -> list[Position]:
    """The position less one top stone of the player who moved last, cell by cell."""
    last = 1 if pos.stone_count % 2 == 1 else 2
    cells = pos.to_array()
    found = []
    for col, column in enumerate(cells):
        height = pos.column_height(col)
        if height and column[height - 1] == last:
            lifted = [list(c) for c in cells]
            lifted[col][height - 1] = 0
            found.append(Position.from_array(lifted, check=False))
    return found


def sample(stones: int, count: int, seed: int, board: BoardSize = BOARD) -> list[Position]:
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        pos = random_game(rng, board.width, board.height, stones)
        if pos is not None and not pos.can_win_next():
            found.append(pos)
    return found


@pytest.mark.parametrize("stones", [1, 2, 5, 8, 11, 14])
def test_bounds_are_the_best_parent_and_below_the_score(stones):
    positions = sample(stones, 40, stones)
    solver = Solver(20)
    if stones < 8:  # the solver is slow this near the root: the ply's own book (checked
        with open_book(f"{stones}-dist") as own:  # against the solver by its own tests)
            exact = [own.get(p).score for p in positions]
    else:
        exact = [solver.solve(p) for p in positions]
    with open_book(f"{stones - 1}-dist") as book:
        bounds = parent_lower_bounds(book, *arrays(positions)).tolist()
        tight = 0
        for pos, bound, score in zip(positions, bounds, exact, strict=True):
            expected = NO_LOWER_BOUND
            for parent in parents(pos):
                try:  # a parent no game reaches is refused: it proves nothing
                    value = book.get(parent)
                except InvalidArgument:
                    continue
                expected = max(expected, -value.score)
            assert bound == expected, pos.to_moves()
            assert NO_LOWER_BOUND < bound <= score, pos.to_moves()
            tight += bound == score
    assert 0 < tight < len(positions)


def test_a_parent_outside_the_book_proves_nothing():
    pos = Position.from_moves("4455")
    first, mask = arrays([pos])
    with open_book("3-dist") as book:  # "445" and "554": 2 and 0 for the second player
        assert parent_lower_bounds(book, first, mask).tolist() == [0]
    with open_book("12-dist-under44444") as book:  # no parent under its line
        assert parent_lower_bounds(book, first, mask).tolist() == [NO_LOWER_BOUND]


@pytest.mark.parametrize("wdl", [False, True])
def test_solver_with_bounds_answers_as_without(wdl):
    positions = [p for stones in (6, 12, 18, 24) for p in sample(stones, 12, 100 + stones)]
    first, mask = arrays(positions)
    scores = Solver(20).solve_many(first, mask)
    plain = Solver(20).solve_many(first, mask, wdl=wdl)
    cells = BOARD.cells
    lowest = -((cells - np.bitwise_count(mask).astype(np.int64)) // 2)
    rng = np.random.default_rng(7)
    for bounds in (
        scores.astype(np.int64),  # every bound the score
        scores.astype(np.int64) - rng.integers(1, 6, len(scores)),
        lowest,
        np.where(rng.random(len(scores)) < 0.5, scores, NO_LOWER_BOUND),
    ):
        bounds = np.maximum(bounds, NO_LOWER_BOUND).astype(np.int8)
        solver = Solver(20)
        assert solver.solve_many(first, mask, wdl=wdl, lower=bounds).tolist() == plain.tolist()
    # a bound at the score costs fewer nodes than none
    with_bound, without = Solver(20), Solver(20)
    with_bound.solve_many(first, mask, wdl=wdl, lower=scores)
    without.solve_many(first, mask, wdl=wdl)
    assert with_bound.nodes < without.nodes


def test_solver_refuses_impossible_bounds():
    pos = Position.from_moves("4455")
    first, mask = arrays([pos])
    solver = Solver(16)
    with pytest.raises(InvalidArgument, match="a lower bound of 20 is no score"):
        solver.solve_many(first, mask, lower=np.array([20]))
    with pytest.raises(InvalidArgument, match="integer array of the positions' length"):
        solver.solve_many(first, mask, lower=np.array([1, 2]))
    with pytest.raises(InvalidArgument, match="integer array"):
        solver.solve_many(first, mask, lower=np.array([1.5]))


def values_of(path) -> tuple[list[int], list[int], list[int]]:
    with open_book(path) as book:
        first, mask = book.positions()
        answers = book.lookup_many(first, mask)
        order = np.lexsort((first, mask))
        return mask[order].tolist(), first[order].tolist(), answers.score[order].tolist()


@pytest.mark.parametrize("distances", [True, False])
def test_build_with_the_shipped_parent_book_writes_the_same_book(tmp_path, distances, monkeypatch):
    monkeypatch.setattr(build, "PARENT_BOUNDS_MIN_POSITIONS", 0)  # a small build takes it too
    options = BuildOptions(10, distances=distances, under="444444", board=BOARD)
    bounded = build_book(tmp_path / "bounded.dat", options, jobs=1, progress=False)
    plain = build_book(tmp_path / "plain.dat", options, jobs=1, progress=False, parent_book=False)
    assert bounded.parent_book == "9-dist" and plain.parent_book is None
    assert (tmp_path / "bounded.dat").read_bytes() == (tmp_path / "plain.dat").read_bytes()
    record = json.loads((tmp_path / "bounded.dat.json").read_text())
    assert record["solver"]["parent_book"] == "9-dist"


def test_a_small_build_takes_no_shipped_parent_book_unless_named(tmp_path):
    # below PARENT_BOUNDS_MIN_POSITIONS the reader's first compile costs more than it saves
    options = BuildOptions(10, distances=True, under="444444", board=BOARD)
    small = build_book(tmp_path / "small.dat", options, jobs=1, progress=False)
    named = build_book(
        tmp_path / "named.dat", options, jobs=1, progress=False, parent_book="9-dist"
    )
    assert small.positions < build.PARENT_BOUNDS_MIN_POSITIONS
    assert small.parent_book is None and named.parent_book == "9-dist"
    assert (tmp_path / "small.dat").read_bytes() == (tmp_path / "named.dat").read_bytes()


def test_build_with_a_parent_book_of_its_own(tmp_path):
    board = BoardSize(5, 4)
    parent = tmp_path / "book7-dist-5x4.c4b"
    build_book(parent, BuildOptions(7, True, part=(1, 1), board=board), jobs=1, progress=False)
    options = BuildOptions(8, distances=True, board=board)
    bounded = build_book(
        tmp_path / "bounded.c4b", options, jobs=1, progress=False, parent_book=parent
    )
    plain = build_book(tmp_path / "plain.c4b", options, jobs=1, progress=False)
    assert bounded.parent_book == str(parent) and plain.parent_book is None  # none shipped
    assert values_of(tmp_path / "bounded.c4b") == values_of(tmp_path / "plain.c4b")


@pytest.mark.parametrize(
    ("plies", "board", "parent", "reason"),
    [
        (10, BOARD, "8-dist", "a book of 8 plies, the build needs one of 9"),
        (13, BOARD, "12-dist-6x6", "a 6x6 book, the build is of 7x6"),
        (9, BOARD, "8", "a win/draw/loss book"),
        (14, BoardSize(6, 5), "13-dist", "a 7x6 book, the build is of 6x5"),
    ],
)
def test_a_parent_book_that_cannot_serve_is_refused(tmp_path, plies, board, parent, reason):
    part = (1, 64) if plies % 2 else None
    under = None if part or board != BOARD else "444444"
    options = BuildOptions(plies, distances=True, under=under, part=part, board=board)
    with pytest.raises(InvalidArgument) as caught:
        build_book(tmp_path / "b.c4b", options, jobs=1, progress=False, parent_book=parent)
    assert reason in str(caught.value)
    assert not any(tmp_path.iterdir())  # refused before any work


def test_cli_parent_book_option(tmp_path):
    out = tmp_path / "b.dat"
    args = ["build", "--plies", "10", "--under", "444444", "-q", "--json", "-o", str(out)]
    done = subprocess.run([*CLI, *args, "--parent-book", "none"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["parent_book"] is None
    done = subprocess.run(
        [*CLI, *args, "--parent-book", "8-dist", "--force"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "needs one of 9" in done.stderr
