"""The search's two compiled kernels (openingbook/solver/search.py): with and without the mirror
code.

``_negamax`` searches the nodes below ``SYMMETRY_STONES`` stones with the mirror
code and hands every node of that many stones, with its subtree, to
``_negamax_deep``, the same search compiled without it. Checked here: the
mirror-free kernel alone gives the exact scores the general one gives (also from
roots where the general one uses the mirror code), the very same search where the
mirror code cannot act, and each kernel searches exactly the nodes it is meant to
(``stats[2]`` counts the nodes of the mirror-free kernel).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from numba import njit

from openingbook.solver import NO_LOWER_BOUND, Position, Solver, search, settings
from openingbook.solver._jit import materialize
from openingbook.solver.position import winning_cells
from tests.helpers import random_game

SYMMETRY = settings.SYMMETRY_STONES
materialize()  # the kernels below call the search's kernels: numba's dispatchers


def _copies(default_size: bool) -> tuple:
    """``_negamax`` and ``_negamax_deep`` with the board's copy of the search chosen by
    a constant, as the solver's entry kernels choose it (a run-time flag would compile
    another copy of the search than the one the solver runs)."""

    @njit
    def general(cur, mask, n, alpha, state):
        return search._negamax(cur, mask, n, alpha, state, default_size, False, default_size)

    @njit
    def mirror_free(d0, n0, arrays):
        return search._negamax_deep(d0, n0, arrays, default_size)

    return general, mirror_free


#: by "the 7x6 copy": (_negamax, _negamax_deep)
_KERNELS = {True: _copies(True), False: _copies(False)}


def _default_size(solver: Solver) -> bool:
    return bool(search._is_7x6(solver._geo, solver.table.params))


def _general(solver: Solver, pos: Position, alpha: int, beta: int) -> int:
    """``_negamax`` on ``pos`` (the kernel the solver runs; null windows only)."""
    assert beta == alpha + 1
    args = solver._kernel_args()
    n = pos.stone_count
    general = _KERNELS[_default_size(solver)][0]
    return int(general(np.uint64(pos.current), np.uint64(pos.mask), n, alpha, *args))


def _mirror_free(solver: Solver, pos: Position, alpha: int, beta: int) -> int:
    """``_negamax_deep`` on ``pos`` as the root, whatever its stone count (the
    mirror code only saves work: without it the search is as exact)."""
    (state,) = solver._kernel_args()
    order, stack = state[4], state[6]
    width, height = solver.width, solver.height
    stack[search._CUR] = pos.current  # row 0 of the flat stack
    stack[search._MASK] = pos.mask
    opponent = pos.current ^ pos.mask
    stack[search._OPPW] = winning_cells(opponent, pos.mask, width, height)
    stack[search._ALPHA] = alpha & 0xFFFF_FFFF_FFFF_FFFF  # an integer's 64 bits
    stack[search._BETA] = beta & 0xFFFF_FFFF_FFFF_FFFF
    col_of_bit = np.arange(64, dtype=np.int64) // (height + 1)
    rank = np.zeros(width, dtype=np.int64)
    rank[order] = search._RANKS - 1 - np.arange(width)
    tie_break = np.zeros(64, dtype=np.int64)  # by bit
    tie_break[: width * (height + 1)] = np.repeat(rank, height + 1)
    big, small, tparams, geo, _, col_masks, _, stats, _ = state
    arrays = (big, small, tparams, geo, col_masks, stack, stats, col_of_bit, tie_break)
    v = _KERNELS[_default_size(solver)][1](0, pos.stone_count, arrays)
    return int(v)


def _exact(kernel, solver: Solver, pos: Position) -> int:
    """The exact score by null windows with ``kernel`` (bisection on fail-soft bounds)."""
    n = pos.stone_count
    lo = -((solver.cells - n) // 2)
    hi = (solver.cells + 1 - n) // 2
    while lo < hi:
        med = (lo + hi) // 2
        r = kernel(solver, pos, med, med + 1)
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


def _positions(width: int, height: int, stones: int, count: int, seed: int) -> list[Position]:
    """Random positions nobody has won, the side to move not winning at once."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = random_game(rng, width, height, stones)
        if pos is not None and not pos.can_win_next():
            out.append(pos)
    return out


def _stats(solver: Solver) -> tuple[int, int]:
    """(nodes, nodes of the mirror-free kernel) of the solver's main thread."""
    stats = solver._workers[0].stats
    return int(stats[0]), int(stats[2])


@pytest.mark.parametrize(
    ("width", "height", "stones"),
    [(6, 5, 10), (6, 5, 14), (7, 5, 16), (7, 6, 17)],
)
def test_mirror_free_kernel_gives_the_general_kernels_scores(width, height, stones):
    """From roots below ``SYMMETRY_STONES`` stones the general kernel uses the mirror
    code (self-mirror roots included: every fourth position here is one); the
    mirror-free kernel searching everything gives the same exact scores, and both
    give the solver's."""
    positions = _positions(width, height, stones, 6, seed=stones)
    rng = random.Random(width * stones)
    for _ in range(2):  # positions that are their own mirror image
        moves = [rng.randrange(width) for _ in range(stones // 2)]
        pos = Position(width=width, height=height)
        for a in moves:
            for col in (a, width - 1 - a):
                if pos.can_play(col) and not pos.is_winning_move(col):
                    pos = pos.play(col)
        if pos.mirror() == pos and pos.stone_count < SYMMETRY and not pos.can_win_next():
            positions.append(pos)
    for pos in positions:
        general = Solver(table_log2=16, width=width, height=height)
        mirror_free = Solver(table_log2=16, width=width, height=height)
        score = _exact(_general, general, pos)
        assert _exact(_mirror_free, mirror_free, pos) == score, pos.some_moves()
        assert Solver(table_log2=16, width=width, height=height).solve(pos) == score


def test_same_search_where_the_mirror_code_cannot_act():
    """A root of ``SYMMETRY_STONES - 1`` stones that is not its own mirror image:
    the mirror code changes only the root's own table key, so from empty tables the
    general kernel (root) plus the mirror-free one (everything below) make the very
    same search as the mirror-free kernel alone: same bound, same nodes, per window."""
    checked = 0
    for pos in _positions(7, 6, SYMMETRY - 1, 6, seed=5):
        if pos.mirror() == pos:
            continue
        for alpha in (-2, -1, 0, 1):
            general = Solver(table_log2=16)
            mirror_free = Solver(table_log2=16)
            v = _general(general, pos, alpha, alpha + 1)
            assert _mirror_free(mirror_free, pos, alpha, alpha + 1) == v
            assert general.nodes == mirror_free.nodes
            checked += 1
    assert checked >= 16


def test_each_kernel_searches_the_nodes_meant_for_it():
    """``stats[2]``: nodes of the mirror-free kernel. Below ``SYMMETRY_STONES``
    stones the general kernel searches the node (a root one stone short: the root
    alone, when it gets past its entry tests), from there on the mirror-free one."""
    # a root one stone short of the threshold: the general kernel searches it alone
    for pos in _positions(7, 6, SYMMETRY - 1, 4, seed=7):
        s = Solver(table_log2=16)
        _general(s, pos, 0, 1)
        nodes, deep = _stats(s)
        assert nodes - deep == 1
    # the build's roots (12 stones): most nodes, not all, in the mirror-free kernel
    for pos in _positions(7, 6, 12, 2, seed=12):
        s = Solver(table_log2=20)
        s.solve(pos)
        nodes, deep = _stats(s)
        assert nodes - deep > 1
        assert deep > 0.9 * nodes
    # roots at the threshold or past it: the mirror-free kernel only
    for stones in (SYMMETRY, SYMMETRY + 5):
        for pos in _positions(7, 6, stones, 3, seed=stones):
            s = Solver(table_log2=16)
            s.solve(pos)
            nodes, deep = _stats(s)
            assert nodes == deep > 0
    # the mirror-free kernel as the root counts every node of its search
    for pos in _positions(7, 6, SYMMETRY - 3, 2, seed=3):
        s = Solver(table_log2=16)
        _mirror_free(s, pos, 0, 1)
        nodes, deep = _stats(s)
        assert nodes == deep > 0


@pytest.mark.parametrize(
    ("width", "height", "seven_by_six"),
    [(7, 6, True), (6, 5, False), (6, 7, False), (8, 6, False), (7, 7, False)],
)
def test_the_7x6_copy_serves_exactly_the_7x6_board(width, height, seven_by_six):
    """The mirror-free copy with the 7x6 board compiled in serves every 7x6 solver,
    whatever its big table's size, and no other board."""
    for log2 in (16, 20):
        s = Solver(table_log2=log2, width=width, height=height)
        assert bool(search._is_7x6(s._geo, s.table.params)) is seven_by_six
        # the solver runs that copy, and only on that board
        pos = _positions(width, height, 8, 1, 3)[0]
        args = (np.uint64(pos.first_stones), np.uint64(pos.mask), False, False, 0, 0)
        assert s._entry((*args, *s._kernel_args())) is search._ENTRY_KERNELS[seven_by_six, False][0]
        many = (np.array([pos.first_stones], np.uint64), np.array([pos.mask], np.uint64))
        batch = (*many, np.zeros(1, np.int8), False, *s._kernel_args())
        assert s._entry(batch, batch=True) is search._ENTRY_KERNELS[seven_by_six, False][1]


def test_the_7x6_kernel_refuses_a_table_it_was_not_compiled_for():
    """The solver chooses the 7x6 copy in Python; the kernel checks what it was compiled
    with (a numba cache left from other settings would not match): never a search with
    the wrong table size, an error instead."""
    from openingbook.solver.errors import InternalError

    solver = Solver(table_log2=16)
    (state,) = solver._kernel_args()
    other = state[2].copy()  # tparams
    other[1] += 1  # the small table's log2
    pos = Position.from_moves("4455")
    one = search._ENTRY_KERNELS[True, False][0]
    args = (np.uint64(pos.current), np.uint64(pos.mask), False, False, 0, NO_LOWER_BOUND, 0)
    with pytest.raises(InternalError):
        one(*args, (*state[:2], other, *state[3:]))
    assert one(*args, state) == 18  # the right table: the answer
