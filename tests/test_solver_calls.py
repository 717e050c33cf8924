"""The cost of one solver call, kept off the answers: a search starts in the calling
thread under a node limit and goes on where a signal stops it (solver.search), the
fast kernel is bound to the solver's arrays once (solver._native.bind), batches stop
at a time limit leaving the positions not solved marked (Solver.solve_until).

The answers are checked against the independent solver's scores in tests/data and
against the same solver taking the other path.
"""

from __future__ import annotations

import numpy as np
import pytest

import openingbook.solver.search as search
from openingbook.solver import UNSOLVED, Position, SearchTimeout, Solver, _firstuse, _native

TABLE = 20


@pytest.fixture(scope="module")
def reference(reference_dir) -> list[tuple[Position, int]]:
    """The independent solver's exact scores (tests/data/solver-scores.txt)."""
    out = []
    for line in (reference_dir / "solver-scores.txt").read_text().splitlines():
        moves, score = line.split()
        out.append((Position.from_moves(moves), int(score)))
    return out


def fast_solver() -> Solver:
    """A solver whose fast kernel runs from its native library (built by the warm-up
    when missing): the calling thread's first part runs only there."""
    solver = Solver(TABLE)
    solver.warm_up()
    assert solver._searcher() is not None or not _native.enabled()
    return solver


def bitboards(positions: list[Position]) -> tuple[np.ndarray, np.ndarray]:
    first = np.array([p.first_stones for p in positions], np.uint64)
    mask = np.array([p.mask for p in positions], np.uint64)
    return first, mask


@pytest.mark.parametrize("limit", [1, 5_000])
def test_a_search_past_the_node_limit_goes_on_to_the_same_answer(reference, monkeypatch, limit):
    """With a node limit of 1 every search stops in the calling thread at its first
    check and goes on handed over; with 5,000 some do: every score is the reference's."""
    solver = fast_solver()
    monkeypatch.setattr(search, "CALLING_THREAD_NODES", limit)
    for pos, score in reference[:60]:
        assert solver.solve(pos) == score, pos.to_moves()


@pytest.mark.parametrize("limit", [1, 5_000])
def test_a_batch_past_the_node_limit_goes_on_where_it_stopped(reference, monkeypatch, limit):
    positions = [pos for pos, _ in reference[:60]]
    first, mask = bitboards(positions)
    solver = fast_solver()
    monkeypatch.setattr(search, "CALLING_THREAD_NODES", limit)
    assert solver.solve_many(first, mask).tolist() == [s for _, s in reference[:60]]
    assert solver.stats.positions == 60
    # the win/draw/loss answers and lower bounds take the same path
    wdl = solver.solve_many(first, mask, wdl=True).tolist()
    assert wdl == [int(np.sign(s)) for _, s in reference[:60]]


def test_a_time_limit_leaves_the_positions_not_solved_marked():
    # the empty board without a book takes minutes; the positions before it are solved
    positions = [Position.from_moves(m) for m in ("4455", "444444333333", "", "4")]
    first, mask = bitboards(positions)
    solver = fast_solver()
    out = solver.solve_until(first, mask, time_limit=0.2).tolist()
    assert out[:2] == [18, Solver(TABLE).solve(positions[1])]
    assert out[2:] == [UNSOLVED, UNSOLVED]
    with pytest.raises(SearchTimeout, match=r"time limit of 0\.2 s"):
        solver.solve_many(first, mask, time_limit=0.2)
    # the solver stays usable, without a time limit too
    assert solver.solve_many(first[:2], mask[:2]).tolist() == out[:2]
    assert solver.solve(positions[0]) == 18


def test_the_fast_kernel_is_chosen_once_then_bound(monkeypatch):
    """After the first search finds the fast kernel's native library, a solve neither
    asks the first-use machinery again nor converts the solver's arrays."""
    if not _native.enabled():
        pytest.skip("OPENINGBOOK_NATIVE=0: no native libraries")
    solver = fast_solver()
    assert solver.solve("4455") == 18
    bound = solver._searcher()
    assert bound is not None and solver._searcher() is bound
    assert solver._searcher(batch=True) is not None  # the batch kernel's, apart

    def asked(*args: object) -> None:
        raise AssertionError("the first-use choice was made again")

    monkeypatch.setattr(_firstuse, "choose", asked)
    assert [solver.solve(m) for m in ("4455", "44444455")] == [18, 16]
    # a book set (or none) binds again: the book array is an argument of the kernel
    solver.book = None
    assert solver._searcher() is not bound and solver.solve("4455") == 18


def test_the_bound_kernel_refuses_a_kernel_without_a_library():
    first, mask = bitboards([Position.from_moves("4455")])
    assert _native.bind(print, (first, mask), 1) is None
