"""Which positions a book of a given ply holds, decided by computation.

A ply-``N`` book holds every position with exactly ``N`` stones that occurs in
legal play, where nobody has four in a row and the side to move cannot complete
four at once (:func:`openingbook.solver.enumerate_positions` lists them). A book format that
stores no keys needs the same set as a *check*: :func:`book_position_status`
tells, for any pair of bitboards, whether it is such a position and if not, why.

"Occurs in legal play" needs more than gravity and alternating stone counts: a
column holding A, A, B, B (bottom up) and nothing else has legal counts and no
floating stone, yet no game reaches it (B's first stone would have to go on top
of A's second). The check takes the stones back one at a time, newest first:
the player who moved last must own the top stone of some column. A greedy choice
(prefer a top stone resting on an opponent's stone, which gives the opponent a
stone to take back next) finds an order for 97.6% of the 12-stone book positions, and
the same pass on the mirror image (other tie-breaks) for 88% of the rest; when
both get stuck, an exhaustive
search over the columns' heights (memoized) decides exactly, so the answer never
depends on the heuristic.

The ``nb_*`` functions are the same checks for one position inside
numba-compiled code.

>>> import numpy as np
>>> from openingbook.solver import Position
>>> p = Position.from_moves("4453")
>>> f, m = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
>>> book_position_status(f, m, 4, 7, 6).tolist()
[0]
>>> aabb = np.array([0b0011], np.uint64), np.array([0b1111], np.uint64)  # column 1: A A B B
>>> book_position_status(*aabb, 4, 7, 6).tolist()  # STATUS_UNREACHABLE
[6]
"""

from __future__ import annotations

import numpy as np

from openingbook.solver._jit import njit
from openingbook.solver._kernels import _nb_has_four, _nb_mirror, _nb_part_of, _nb_winning_cells
from openingbook.solver.bitops import popcount
from openingbook.solver.errors import InvalidArgument

__all__ = [
    "STATUS_BAD_CELLS",
    "STATUS_BAD_MOVES",
    "STATUS_BLOCK",
    "STATUS_CONTRADICTED",
    "STATUS_GAME_OVER",
    "STATUS_MESSAGES",
    "STATUS_NOT_A_BOARD",
    "STATUS_OK",
    "STATUS_OUT_OF_SCOPE",
    "STATUS_STONE_COUNTS",
    "STATUS_TIMEOUT",
    "STATUS_UNREACHABLE",
    "STATUS_WINS_AT_ONCE",
    "STATUS_WRONG_PLY",
    "book_position_status",
    "nb_block_status",
    "nb_book_position_status",
    "nb_canonical_key",
    "nb_part_of",
    "nb_under_line",
    "nb_winning_cells",
    "under_line",
]

# The one status set of a position (int8 codes): what the book readers
# (:mod:`openingbook.answers`) and the oracle's rows (:mod:`openingbook.layouts`,
# :mod:`openingbook.oracle`) report, one name per condition. The kernels here give
# the first seven; a reader adds :data:`STATUS_OUT_OF_SCOPE`, a batch of rows the rest.

#: Nothing stops the answer: a position of the book (a reader), a row answered (the
#: oracle).
STATUS_OK = 0
#: Of the ply and reachable, but the side to move can complete four at once (never stored).
STATUS_WINS_AT_ONCE = 1
#: Not the book's number of stones.
STATUS_WRONG_PLY = 2
#: Stones outside the board, floating stones, or first-player stones on empty cells.
STATUS_NOT_A_BOARD = 3
#: The first player does not have as many stones as the second (or one more).
STATUS_STONE_COUNTS = 4
#: The game is over: somebody has four in a row (or, for a row of the oracle, the
#: board is full).
STATUS_GAME_OVER = 5
#: No game reaches it (see the module docstring).
STATUS_UNREACHABLE = 6
#: Of the book's ply but outside its scope (not under its line, another part).
STATUS_OUT_OF_SCOPE = 7
#: A row's cell holds a value its layout does not use (or two planes claim it).
STATUS_BAD_CELLS = 8
#: A row's action mask or mark contradicts its board.
STATUS_CONTRADICTED = 9
#: A row's move string or action list cannot be played.
STATUS_BAD_MOVES = 10
#: A row not answered within the oracle's time limit.
STATUS_TIMEOUT = 11

#: One line per status, completing "the position ...".
STATUS_MESSAGES = {
    STATUS_OK: "is a book position",
    STATUS_WINS_AT_ONCE: "lets the side to move complete four at once (never stored)",
    STATUS_WRONG_PLY: "has the wrong number of stones",
    STATUS_NOT_A_BOARD: "is not a board (stones outside the board or floating)",
    STATUS_STONE_COUNTS: "has stone counts that do not alternate",
    STATUS_GAME_OVER: "has four in a row (the game is over)",
    STATUS_UNREACHABLE: "cannot occur in a game (no order of moves reaches it)",
    STATUS_OUT_OF_SCOPE: "is outside the book's scope",
    STATUS_BAD_CELLS: "has a cell value its layout does not use",
    STATUS_CONTRADICTED: "contradicts its action mask or mark",
    STATUS_BAD_MOVES: "comes from moves that cannot be played",
    STATUS_TIMEOUT: "was not answered within the time limit",
}


@njit(cache=True, inline="always")
def _bottom(width: int, height: int) -> np.uint64:
    out = np.uint64(0)
    for col in range(width):
        out |= np.uint64(1) << np.uint64(col * (height + 1))
    return out


@njit(cache=True)
def _exhaustive_reachable(first, mask, floor, width, height):
    """Exact: can the stones above ``floor`` (cells never taken back, a gravity-legal
    subset of ``mask``) be taken back, newest first, in alternation? (memoized DFS)"""
    h1 = height + 1
    heights = np.zeros(width, dtype=np.int64)
    floor_h = np.zeros(width, dtype=np.int64)
    radix = np.ones(width + 1, dtype=np.int64)
    for col in range(width):
        heights[col] = popcount((mask >> np.uint64(col * h1)) & np.uint64((1 << h1) - 1))
        floor_h[col] = popcount((floor >> np.uint64(col * h1)) & np.uint64((1 << h1) - 1))
        radix[col + 1] = radix[col] * (heights[col] + 1)
    failed = np.zeros(radix[width], dtype=np.bool_)  # states known to lead nowhere
    total = popcount(mask)
    stones = total - popcount(floor)
    # explicit stack of (state, next column to try)
    state_h = heights.copy()
    stack_col = np.zeros(stones + 1, dtype=np.int64)
    depth = 0  # stones taken back so far
    while True:
        if depth == stones:
            return True
        # the player who placed the newest remaining stone: A when the count is odd
        left = total - depth
        mover_is_first = left % 2 == 1
        col = stack_col[depth]
        moved = False
        while col < width:
            h = state_h[col]
            if h > floor_h[col]:
                bit = np.uint64(1) << np.uint64(col * h1 + h - 1)
                is_first = (first & bit) != np.uint64(0)
                if is_first == mover_is_first:
                    state_h[col] = h - 1
                    index = 0
                    for c in range(width):
                        index += state_h[c] * radix[c]
                    if not failed[index]:
                        stack_col[depth] = col + 1
                        depth += 1
                        stack_col[depth] = 0
                        moved = True
                        break
                    state_h[col] = h
            col += 1
        if moved:
            continue
        # dead end: mark it, undo the move that led here
        index = 0
        for c in range(width):
            index += state_h[c] * radix[c]
        failed[index] = True
        if depth == 0:
            return False
        depth -= 1
        state_h[stack_col[depth] - 1] += 1


@njit(cache=True, inline="always")
def _greedy_reachable(first, mask, stones, bottom, floor):
    """Take the stones above ``floor`` back newest first, preferring tops resting on an
    opponent's stone (True: an order was found; False: none found, maybe one exists)."""
    zero = np.uint64(0)
    one = np.uint64(1)
    m = mask
    # `own` placed the newest remaining stone: A when the count is odd
    own = first if stones % 2 == 1 else first ^ mask
    other = own ^ mask
    for _ in range(stones - popcount(floor)):
        tops = ((m + bottom) >> one) & m & ~floor
        cand = tops & own
        # a top resting on the opponent's stone gives the opponent a stone to take
        # back next; else one resting on an own stone (a run must be taken back
        # stone by stone, turn after turn); a stone on the floor is the most flexible
        # (branch-free: `x & (0 - (y == 0))` is x when y is 0, else 0)
        good = cand & (other << one)
        on_own = cand & (own << one)
        pick = good | (on_own & (zero - np.uint64(good == zero)))
        pick |= cand & (zero - np.uint64(pick == zero))
        if cand == zero:
            return False
        bit = pick & (zero - pick)
        m ^= bit
        own, other = other, own & ~bit
    return True


@njit(cache=True, inline="always")
def _reachable_from(first, mask, stones, floor_first, floor, width, height):
    """Does some game continue the position ``floor_first``/``floor`` (a subset of the
    stones, same colours) to ``first``/``mask``? Exact."""
    if (mask & floor) != floor or (first & floor) != floor_first:
        return False
    bottom = _bottom(width, height)
    # the greedy pass picks the lowest column among equals; on the mirror image it
    # picks the highest, which rescues most of the positions the first pass misses
    if _greedy_reachable(first, mask, stones, bottom, floor):
        return True
    mirrored = _nb_mirror(first, width, height), _nb_mirror(mask, width, height)
    mirrored_floor = _nb_mirror(floor, width, height)
    if _greedy_reachable(mirrored[0], mirrored[1], stones, bottom, mirrored_floor):
        return True
    return _exhaustive_reachable(first, mask, floor, width, height)


@njit(cache=True)
def nb_under_line(first, mask, line_first, line_mask, width, height):
    """Is the position (a legal one) or its mirror image reached by continuing the
    line whose position is ``line_first``/``line_mask``? (``enumerate_positions``'
    ``under``: a mirror pair is in when either variant is reachable from the line.)"""
    stones = popcount(mask)
    if _reachable_from(first, mask, stones, line_first, line_mask, width, height):
        return True
    mf = _nb_mirror(first, width, height)
    mm = _nb_mirror(mask, width, height)
    return _reachable_from(mf, mm, stones, line_first, line_mask, width, height)


@njit(cache=True)
def _under_line_many(first, mask, line_first, line_mask, width, height):
    out = np.empty(first.size, dtype=np.bool_)
    for i in range(first.size):
        out[i] = nb_under_line(first[i], mask[i], line_first, line_mask, width, height)
    return out


def under_line(
    first: np.ndarray,
    mask: np.ndarray,
    line: str,
    width: int,
    height: int,
) -> np.ndarray:
    """For legal positions: is the position or its mirror image reached from ``line``
    (1-based moves)? Exactly the positions ``enumerate_positions(plies, under=line)``
    keeps, among the positions of that ply (on a ``width`` x ``height`` board)."""
    from openingbook.solver.position import Position

    start = Position.from_moves(line, width, height)
    f = np.ascontiguousarray(first, dtype=np.uint64).reshape(-1)
    m = np.ascontiguousarray(mask, dtype=np.uint64).reshape(-1)
    out = _under_line_many(
        f, m, np.uint64(start.first_stones), np.uint64(start.mask), width, height
    )
    return out.reshape(np.shape(first))


@njit(cache=True, inline="always")
def _nb_board_status(first, mask, plies, width, height):
    """The checks before reachability (ply, board, counts, fours): ``STATUS_OK`` if
    the position passes them."""
    bottom = _bottom(width, height)
    board = bottom * np.uint64((1 << height) - 1)
    stones = popcount(mask)
    if stones != plies:
        return STATUS_WRONG_PLY
    if (mask & ~board) != np.uint64(0) or (first & ~mask) != np.uint64(0):
        return STATUS_NOT_A_BOARD
    if ((mask + bottom) & mask) != np.uint64(0):  # a column with a gap: floating stone
        return STATUS_NOT_A_BOARD
    if popcount(first) != (stones + 1) // 2:
        return STATUS_STONE_COUNTS
    if _nb_has_four(first, height) or _nb_has_four(first ^ mask, height):
        return STATUS_GAME_OVER
    return STATUS_OK


@njit(cache=True, inline="always")
def _nb_move_status_of(cells, mask, width, height):
    """The check after reachability, given the side to move's winning cells
    (:data:`nb_winning_cells`): can it complete four at once?"""
    bottom = _bottom(width, height)
    playable = (mask + bottom) & (bottom * np.uint64((1 << height) - 1))
    if cells & playable != np.uint64(0):
        return STATUS_WINS_AT_ONCE
    return STATUS_OK


@njit(cache=True, inline="always")
def _nb_move_status(first, mask, width, height):
    """The check after reachability: can the side to move complete four at once?"""
    board = _bottom(width, height) * np.uint64((1 << height) - 1)
    current = first if popcount(mask) % 2 == 0 else first ^ mask
    cells = _nb_winning_cells(current, mask, board, height)
    return _nb_move_status_of(cells, mask, width, height)


@njit(cache=True)
def nb_book_position_status(first, mask, plies, width, height):
    """Status code (``STATUS_*``) of one position for a ply-``plies`` book."""
    s = _nb_board_status(first, mask, plies, width, height)
    if s != STATUS_OK:
        return s
    zero = np.uint64(0)
    if not _reachable_from(first, mask, plies, zero, zero, width, height):
        return STATUS_UNREACHABLE
    return _nb_move_status(first, mask, width, height)


#: Positions per block of :func:`nb_block_status` (its scratch arrays' length).
STATUS_BLOCK = 64


@njit(cache=True)
def nb_block_status(first, mask, block, plies, board, status, scratch, movers=None):
    """``status[i] = nb_book_position_status(first[i], mask[i], ...)`` for ``start <= i
    < stop``, ``block`` being ``(start, stop)`` (at most :data:`STATUS_BLOCK` positions;
    ``board``: ``(width, height)``; ``scratch``: a uint64 array of shape
    ``(4, STATUS_BLOCK)``). ``movers``, when given: ``movers[i - start]`` holds
    the side to move's winning cells (:data:`nb_winning_cells`) of position ``i``, which
    a caller that computes them anyway passes so that they are not computed twice.

    Same answers, faster: the first greedy take-back pass runs for the whole block
    at once, position by position inside each take-back step (a structure of
    arrays, branch-free), so the compiler runs it on several positions per vector
    instruction; only the positions it gets stuck on go through the exact check.
    """
    start, stop = block
    width, height = board
    zero = np.uint64(0)
    one = np.uint64(1)
    bottom = _bottom(width, height)
    board_m, own, other, stuck = scratch[0], scratch[1], scratch[2], scratch[3]
    for j in range(STATUS_BLOCK):
        i = start + j
        s = _nb_board_status(first[i], mask[i], plies, width, height) if i < stop else -1
        if i < stop:
            status[i] = s
        if s == STATUS_OK:
            # `own` placed the newest remaining stone: A when the count is odd
            mine = first[i] if plies % 2 == 1 else first[i] ^ mask[i]
            board_m[j], own[j], other[j] = mask[i], mine, mine ^ mask[i]
        else:  # nothing to take back: stuck at once, and ignored
            board_m[j], own[j], other[j] = zero, zero, zero
        stuck[j] = zero
    # _greedy_reachable's step with an empty floor, on every position of the block
    for _ in range(plies):
        for j in range(STATUS_BLOCK):
            m, mine, theirs = board_m[j], own[j], other[j]
            cand = ((m + bottom) >> one) & m & mine
            good = cand & (theirs << one)
            on_own = cand & (mine << one)
            pick = good | (on_own & (zero - np.uint64(good == zero)))
            pick |= cand & (zero - np.uint64(pick == zero))
            bit = pick & (zero - pick)
            stuck[j] |= np.uint64(cand == zero)
            board_m[j] = m ^ bit
            own[j] = theirs
            other[j] = mine & ~bit
    for j in range(stop - start):
        i = start + j
        if status[i] != STATUS_OK:
            continue
        if stuck[j] != zero and not _reachable_from(
            first[i], mask[i], plies, zero, zero, width, height
        ):
            status[i] = STATUS_UNREACHABLE
        elif movers is None:
            status[i] = _nb_move_status(first[i], mask[i], width, height)
        else:
            status[i] = _nb_move_status_of(movers[j], mask[i], width, height)


@njit(cache=True, inline="always")
def nb_canonical_key(first, mask, width, height):
    """Pons key ``current + mask + bottom`` of the variant of the mirror pair with the
    smaller key (the variant :func:`openingbook.solver.canonical_bits` keeps)."""
    bottom = _bottom(width, height)
    stones = popcount(mask)
    current = first if stones % 2 == 0 else first ^ mask
    key = current + mask + bottom
    mirrored = _nb_mirror(key, width, height)
    return mirrored if mirrored < key else key


#: The part (1..n) of a canonical key in compiled code
#: (:func:`openingbook.solver.enumerate.part_of`).
nb_part_of = _nb_part_of

#: The empty cells that complete four for ``stones`` in compiled code
#: (:func:`openingbook.solver.bitboards.winning_cells_bits`; ``board`` = every cell of the board).
nb_winning_cells = _nb_winning_cells


@njit(cache=True, native=True)
def _status_many(first, mask, plies, width, height, out, scratch):
    """Fill ``out`` (int8, one per position) with the ``STATUS_*`` codes; ``scratch``:
    (4, STATUS_BLOCK) uint64. Arrays in and nothing out, so that it runs from its
    native library (:mod:`openingbook.solver._native`) without loading numba: every batch of the
    oracle checks its positions here."""
    for start in range(0, first.size, STATUS_BLOCK):
        stop = min(first.size, start + STATUS_BLOCK)
        nb_block_status(first, mask, (start, stop), plies, (width, height), out, scratch)


def book_position_status(
    first: np.ndarray,
    mask: np.ndarray,
    plies: int,
    width: int,
    height: int,
) -> np.ndarray:
    """``STATUS_*`` code (int8) of each position for a ply-``plies`` book.

    ``STATUS_OK`` exactly for the positions :func:`openingbook.solver.enumerate_positions`
    lists at that ply, in either variant of their mirror pair.
    """
    f = np.ascontiguousarray(first, dtype=np.uint64).reshape(-1)
    m = np.ascontiguousarray(mask, dtype=np.uint64).reshape(-1)
    if f.shape != m.shape:
        raise InvalidArgument(f"first and mask differ in shape: {f.shape} vs {m.shape}")
    out = np.empty(f.size, dtype=np.int8)
    scratch = np.empty((4, STATUS_BLOCK), dtype=np.uint64)
    _status_many(f, m, int(plies), int(width), int(height), out, scratch)
    return out.reshape(np.shape(first))
