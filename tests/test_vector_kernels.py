"""The search's vector code (openingbook/solver/search.py) against the plain Python bit tricks.

``_winning_lanes`` computes, in the 7x6 copy of the search loop, the winning cells
of every candidate move at once in vector registers, and which moves leave two
threats; ``_has_four_lanes`` tests a four in all four directions at once. The
search tests compare that copy with the scalar any-size copy node for node on a
few positions; here each piece is checked directly, on many positions, against
:func:`openingbook.solver.position.winning_cells` and :func:`openingbook.solver.position.has_four`.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.solver import Position, search
from openingbook.solver._jit import materialize
from openingbook.solver.position import board_mask, bottom_mask, has_four, winning_cells
from tests.helpers import positions

WIDTH, HEIGHT = 7, 6
BOARD = board_mask(WIDTH, HEIGHT)
BOTTOM = bottom_mask(WIDTH, HEIGHT)
ROW = search._stack_row(WIDTH)
OFFSET = 3  # the lanes start anywhere in the stack: not at a row's beginning


def _kernels():
    """Small compiled callers of the two intrinsics (an intrinsic runs only in
    compiled code), made once."""
    if not hasattr(_kernels, "made"):
        materialize()
        import numba

        @numba.njit
        def lanes(stack, start, cur, mask, moves):
            return search._winning_lanes(stack, start, cur, mask, moves)

        @numba.njit
        def four(s):
            return search._has_four_lanes(s)

        _kernels.made = (lanes, four)
    return _kernels.made


def _expected(cur: int, mask: int, moves: int) -> tuple[list[int], int]:
    """Each move's winning cells (lowest move bit first) and the moves that leave
    two threats: two playable winning cells, or one right on top of another."""
    cells = []
    two = 0
    rest = moves
    while rest:
        m = rest & -rest
        rest ^= m
        w = winning_cells(cur | m, mask | m, WIDTH, HEIGHT)
        t = w & ((mask | m) + BOTTOM) & BOARD
        if (t & (t - 1)) or (t & (w >> 1)):
            two |= m
        cells.append(w)
    return cells, two


@settings(max_examples=300, deadline=None)
@given(positions(max_stones=40), st.data())
def test_winning_lanes_equal_the_scalar_winning_cells(pos: Position, data) -> None:
    lanes, _ = _kernels()
    playable = (pos.mask + BOTTOM) & BOARD
    # any set of playable cells, as the search passes its non-losing moves
    bits = [1 << b for b in range(64) if playable >> b & 1]
    chosen = data.draw(st.lists(st.sampled_from(bits), unique=True)) if bits else []
    moves = sum(chosen)
    stack = np.full(ROW + OFFSET, 0xDEAD, dtype=np.uint64)
    two = lanes(
        stack, np.uint64(OFFSET), np.uint64(pos.current), np.uint64(pos.mask), np.uint64(moves)
    )
    cells, expected_two = _expected(pos.current, pos.mask, moves)
    assert int(two) == expected_two
    assert [int(x) for x in stack[OFFSET : OFFSET + len(cells)]] == cells
    assert int(stack[0]) == 0xDEAD  # nothing written before the lanes


def test_winning_lanes_write_only_the_rows_lanes() -> None:
    """Every column a move (the most the 7x6 copy passes: two rounds) or none (one
    round all the same): the writes stay in the row's ``_LANE_COUNT`` lanes, which
    end the row, so nothing of the next row is overwritten."""
    lanes, _ = _kernels()
    assert search._stack_row(WIDTH) - search._LANE_COUNT == search._MOVES + 3 * WIDTH
    guard = 5
    for moves in (BOTTOM, 0):
        stack = np.full(OFFSET + search._LANE_COUNT + guard, 0xDEAD, dtype=np.uint64)
        lanes(stack, np.uint64(OFFSET), np.uint64(0), np.uint64(0), np.uint64(moves))
        assert [int(x) for x in stack[:OFFSET]] == [0xDEAD] * OFFSET
        assert [int(x) for x in stack[OFFSET + search._LANE_COUNT :]] == [0xDEAD] * guard


def test_the_intrinsics_refuse_other_argument_types() -> None:
    """The lanes are stored as whole vectors: a stack that is not a contiguous uint64
    array (a strided view, say) is a typing error, not a silent write past its end."""
    import numba.core.errors

    lanes, four = _kernels()
    stack = np.zeros(2 * (ROW + OFFSET), dtype=np.uint64)
    for bad in (stack[::2], stack.view(np.int64), stack.astype(np.uint32)):
        with pytest.raises(numba.core.errors.TypingError):
            lanes(bad, np.uint64(OFFSET), np.uint64(0), np.uint64(0), np.uint64(1))
    with pytest.raises(numba.core.errors.TypingError):
        four(np.uint32(15))


@settings(max_examples=500, deadline=None)
@given(st.integers(0, BOARD))
def test_has_four_lanes_equals_the_scalar_test(stones: int) -> None:
    _, four = _kernels()
    assert bool(four(np.uint64(stones))) == has_four(stones, HEIGHT)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from([4, 5, 8, 9]), st.data())
def test_has_four_is_the_vector_test_on_every_board_six_high(width: int, data) -> None:
    """``_has_four`` takes the vector test whenever the height is 6, whatever the
    width (the any-size and the mirror copies decide at run time): 8x6 and 9x6 use
    the bits up to 62, where a wrong step or a lost top bit would show."""
    _, four = _kernels()
    board = board_mask(width, HEIGHT)
    # two random sets ANDed: a quarter of the cells, fours and no fours alike
    stones = data.draw(st.integers(0, board)) & data.draw(st.integers(0, board)) & board
    expected = has_four(stones, HEIGHT)
    assert bool(four(np.uint64(stones))) == expected
    assert bool(search._has_four(np.uint64(stones), HEIGHT)) == expected
    assert bool(search._has_four(np.uint64(stones), 5)) == has_four(stones, 5)


def test_has_four_lanes_finds_each_direction() -> None:
    """One four of each kind, alone on the board (random sets are mostly fours)."""
    _, four = _kernels()
    h1 = HEIGHT + 1
    for step in (1, h1, h1 - 1, h1 + 1):
        start = 3 if step == h1 - 1 else 0  # a down-diagonal starts high
        line = sum(1 << (start + i * step) for i in range(4))
        assert four(np.uint64(line))
        three = line & ~(1 << (start + 3 * step))
        assert not four(np.uint64(three))
