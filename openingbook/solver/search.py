"""Exact Connect-4 search: compiled negamax with alpha-beta on Pons bitboards.

Scores follow Pons' convention (see :mod:`openingbook.solver.scores`): from the side to
move, ``+(cells/2 + 1 - k)`` for a win with its k-th stone, ``0`` for a draw,
negative for a loss.

The search kernel is one numba function with an explicit stack (no
recursion: each numba call passes every array again), compiled in a few copies
(with and without the mirror code, with the 7x6 board as constants or not, probing
a book or not: :func:`_search`); the solver calls the entry kernel of the copies its
board and book need (:func:`_entry_kernels`). It uses

* null windows only: the exact score is found by asking "win or not?"
  first and then walking one score at a time away from 0 (or, given a guess,
  two windows around it and then Pons' bisection), the win/draw/loss value
  by at most two null-window searches around 0; the search fails soft, so a
  failed window often narrows the range by more than one;
* the transposition table of :mod:`openingbook.solver.table`: bounds plus the cut-off
  move, which is tried first when the position is searched again;
* move ordering: forced blocks, then non-losing moves only, best first by the
  number of winning cells the move creates, centre columns first on ties; a
  move that creates two immediate threats (side by side or stacked) is
  recognised as a win without search;
* bounds from stone counts, "no four is possible any more" (a player whose
  every line is blocked cannot win), and zugzwang rules after Allis
  (claimeven, baseinverse, a simple aftereven): when the number of empty cells
  is even, the opponent can answer each move on top of it, pairing up the
  lowest empty cells of the columns with an odd number of empty cells, so the
  side to move gets only the cells of every other row plus some of those
  lowest cells, and cannot win unless they hold a four for it (see
  :func:`_zugzwang_bound`). With an odd number of empty cells the same bound
  is tried for each move (the opponent then faces it) before any child is
  searched; below the root that look-ahead is the only place it is tried
  (a child's own test would repeat it with the same window).

Board size: any ``width x height`` that fits the 64-bit board
(``width * (height + 1) <= 64``), with an even or an odd number of cells; every
size-dependent constant is an argument of the kernel, so one compiled copy
serves all sizes; 7x6, the size it is tuned for, has copies of its own. Nothing in the search
depends on the parity of the board: its score bounds are those of
:mod:`openingbook.solver.scores` (``|score| = (cells - p) // 2 + 1`` for a game ending with
the p-th stone), and the zugzwang bound needs only an even number of empty
cells, whatever the parity of the board or of its height (the rows the side to
move can claim are those with the parity of the height, see
:func:`_zugzwang_bound`).

>>> s = Solver(table_log2=16)
>>> s.solve(Position.from_moves("2252576253462244111563365343671351441"))
-1
>>> s.solve_wdl(Position.from_moves("4455"))  # the first player wins
1
>>> s.analyze(Position.from_moves("444444"))[3] is None
True
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from openingbook.solver import _native
from openingbook.solver._jit import intrinsic, njit
from openingbook.solver.bitops import (
    load_relaxed,
    popcount,
    prefetch,
    store_relaxed,
    trailing_zeros,
)
from openingbook.solver.errors import InternalError, InvalidArgument, SearchTimeout
from openingbook.solver.geometry import check_board_size
from openingbook.solver.interrupt import run_interruptibly
from openingbook.solver.position import (
    DEFAULT_HEIGHT,
    DEFAULT_WIDTH,
    Position,
    board_mask,
    bottom_mask,
)
from openingbook.solver.probe import BookProbe, no_probe
from openingbook.solver.scores import NO_LOWER_BOUND, UNSOLVED
from openingbook.solver.settings import (
    CALLING_THREAD_NODES,
    DEEP_EMPTY,
    ETC_EMPTY,
    LATER_THREAT_WEIGHT,
    NEXT_THREAT_WEIGHT,
    POTENTIAL,
    PREFETCH,
    SMALL_TABLE_LOG2,
    SPLIT_START,
    SYMMETRY_STONES,
    TABLE_LOG2,
    THREAT_WEIGHT,
    TT_EMPTY,
)
from openingbook.solver.table import _BOUND_OFFSET, _MIX, TranspositionTable, tiny_table_log2

__all__ = [
    "UNSOLVED",
    "SearchStats",
    "SearchTimeout",
    "Solver",
    "analyze",
    "default_solver",
    "solve",
    "solve_wdl",
]

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
#: move scores are (winning cells created) * _RANKS + the column's centre rank
_RANKS = 64  # more than any board width that fits 64 bits
_TT_MOVE_BONUS = 1 << 20  # sorts the table's move before every other
#: the cells of the 7x6 board: a constant of the 7x6 copy
_CELLS_7X6 = DEFAULT_WIDTH * DEFAULT_HEIGHT
#: key bits of a 7x6 position (``width * (height + 1)``): a constant of the 7x6 copy
_KEY_BITS_7X6 = DEFAULT_WIDTH * (DEFAULT_HEIGHT + 1)
#: Index in ``geo`` (width, height, cells, stop, node limit) of the stop flag: set when
#: one thread of a parallel search has the answer, or by a time limit or an interrupt.
_STOP = 3
#: Index in ``geo`` of the node limit: a search stops as at the stop flag once its
#: thread's node count (``stats[0]``) passes it; 0: no limit. A solve runs in the calling
#: thread first under a limit (:data:`openingbook.solver.settings.CALLING_THREAD_NODES`), so that a
#: position answered in a few nodes pays no hand-over to the interruptible thread.
_NODE_LIMIT = 4

# Layout of a stack frame (one row per depth): current, mask, the opponent's
# winning cells (as the parent computed them), the window, the moves' count and
# the one being searched, the best score (upper bound) so far (the search fails
# soft); then the moves (one bit each), then for each move the cells where it
# leaves us a winning spot (the child's opponent threats), then the moves'
# ordering scores. The integers are stored as their 64 bits.
_CUR, _MASK, _OPPW = 0, 1, 2
_ALPHA, _BETA, _NMOVES, _IDX, _BEST = 3, 4, 5, 6, 7
_MOVES = 8
#: 7x6 copy only: after the moves' scores, the entries where :func:`_winning_lanes`
#: writes the winning cells of each candidate move, in the order the move ordering
#: takes them, _LANE_WIDTH moves per round (8 entries: 7 moves in two rounds)
_LANE_WIDTH = 4
_LANE_COUNT = 8
# _winning_lanes writes whole rounds of _LANE_WIDTH entries (one round even for no
# move) and takes up to DEFAULT_WIDTH moves: its rounds must fit in the row's lanes
assert -(-DEFAULT_WIDTH // _LANE_WIDTH) * _LANE_WIDTH <= _LANE_COUNT


def _stack_row(width: int) -> int:
    """Entries per row (one row per depth) of the search's stack, a flat uint64
    array (:func:`_stack_columns` computes it in the kernels with the same formula)."""
    return _MOVES + 3 * width + _LANE_COUNT


@njit(cache=True, inline="always")
def _u(i: int) -> np.uint64:
    """``i`` as an unsigned index: numba checks every signed array index for a
    negative value (Python's wrap-around), two or three instructions per
    access; indices that are unsigned skip the check (10% fewer instructions per
    node, measured). Every index here is non-negative by construction."""
    return np.uint64(i)


# ------------------------------------------------- table entries (solver.table)
@njit(cache=True, inline="always")
def slot_and_tag(key: np.uint64, log2: int, key_bits: int) -> tuple[np.uint64, np.uint64]:
    """Slot index and stored tag of a position key (see the module docstring).

    The slot is unsigned, so indexing the table with it skips numba's check for
    negative indices."""
    mixed = key * np.uint64(_MIX)
    if key_bits < 64:
        mixed &= (np.uint64(1) << np.uint64(key_bits)) - np.uint64(1)
    rest = np.uint64(key_bits - log2)
    slot = mixed >> rest
    tag = mixed & ((np.uint64(1) << rest) - np.uint64(1))
    return slot, tag


@njit(cache=True, inline="always")
def probe(table: np.ndarray, slot: np.uint64, tag: np.uint64) -> np.uint64:
    """The entry's low 16 bits (bounds and move) if it holds this position, else 0."""
    entry = load_relaxed(table, slot)  # one read: other threads may store meanwhile
    if (entry >> np.uint64(16)) == tag:
        return entry & np.uint64(0xFFFF)
    return np.uint64(0)


@njit(cache=True, inline="always")
def store(
    table: np.ndarray, slot: np.uint64, tag: np.uint64, score: int, lower: bool, move_col: int
) -> None:
    """Store a bound (``lower`` or upper) and the cut-off column, keeping the other
    bound (and the move) the slot holds for the same position; any other position
    there is replaced."""
    old = load_relaxed(table, slot)
    lo = _ZERO  # no lower bound
    up = _ZERO  # no upper bound
    mv = _ZERO
    if (old >> np.uint64(16)) == tag:
        # an empty slot (0) matches a tag of 0 too: its fields then read "none"
        lo = (old >> np.uint64(6)) & np.uint64(63)
        up = old & np.uint64(63)
        mv = (old >> np.uint64(12)) & np.uint64(15)
    if lower:
        code = np.uint64(score + _BOUND_OFFSET)
        if code > lo:
            lo = code
        # 4 bits: columns 15 and up (boards 16 or more wide) store "no move" or
        # another column's hint, which only orders moves; never the tag's bits
        mv = np.uint64(move_col + 1) & np.uint64(15)
    else:
        code = np.uint64(_BOUND_OFFSET - score)  # the lower the bound, the larger
        if code > up:
            up = code
        mv = _ZERO
    store_relaxed(
        table, slot, (tag << np.uint64(16)) | (mv << np.uint64(12)) | (lo << np.uint64(6)) | up
    )


@njit(cache=True, inline="always")
def entry_bounds(payload: np.uint64) -> tuple[int, int]:
    """(lower, upper) bounds of a non-zero payload returned by :func:`probe`
    (-99 / 99 when the entry has no such bound)."""
    lo = int((payload >> np.uint64(6)) & np.uint64(63))
    up = int(payload & np.uint64(63))
    return (lo - _BOUND_OFFSET if lo != 0 else -99), (_BOUND_OFFSET - up if up != 0 else 99)


@njit(cache=True, inline="always")
def entry_move(payload: np.uint64) -> int:
    """Column of the stored cut-off move, or -1."""
    return int((payload >> np.uint64(12)) & np.uint64(15)) - 1


# ---------------------------------------------------------------- bit tricks
#: The longest step between two cells of a four that fits 64 bits (3 steps <= 63).
#: A horizontal or diagonal step (height + 1, height, height + 2 bits) is longer only
#: on boards at most 3 columns wide and 20 or more rows high, where no four can lie
#: in that direction; the step is skipped there, because a shift by 64 bits or more
#: is not zero in compiled code (x86 takes the count modulo 64).
_MAX_STEP = np.uint64(21)


# These helpers twin some in openingbook/solver/bitboards.py on purpose: numba's on-disk cache
# checks only the timestamp of the kernel's own file, so a kernel here that inlined
# a function from another module would keep a stale compiled copy after that
# module changed. Keeping the search self-contained keeps its cache honest.
@njit(cache=True, inline="always")
def _winning_cells(s: np.uint64, mask: np.uint64, board: np.uint64, height: int) -> np.uint64:
    """Empty cells where the owner of ``s`` would complete four."""
    h = np.uint64(height)
    r = (s << _ONE) & (s << np.uint64(2)) & (s << np.uint64(3))
    for d1 in (h + _ONE, h, h + np.uint64(2)):  # horizontal, both diagonals
        if d1 > _MAX_STEP:
            continue  # see _MAX_STEP
        d2 = d1 + d1
        d3 = d2 + d1
        p = (s << d1) & (s << d2)
        r |= p & (s << d3)
        r |= p & (s >> d1)
        p = (s >> d1) & (s >> d2)
        r |= p & (s << d1)
        r |= p & (s >> d3)
    return r & (board ^ mask)


@intrinsic
def _winning_lanes(typingctx, stack, start, cur, mask, nxt):  # type: ignore[no-untyped-def]
    """7x6 only: the move ordering's per-move bit work for all moves at once.

    For the j-th move ``m`` of ``nxt`` (one bit per column, lowest first): writes
    ``_winning_cells(cur | m, mask | m)`` to ``stack[start + j]`` and returns
    the moves (OR of their bits) that leave two threats (two playable winning
    cells, or one on top of another). Emitted as LLVM vector code, four moves
    per round (one AVX2 register of 4 x 64 bits), instead of scalar code once
    per move: count_instructions.py 559.6 -> 482.1 instructions per node, same
    nodes (477.7 with :func:`_has_four_lanes`). Measured and dropped
    (instructions per node): eight lanes, one per column, in one round (520.7;
    most nodes have at most four moves, 1.17 rounds per node here); the scalar
    code kept for single-move nodes (+7); the second round only once the loop
    reaches the fifth move (+11: a call inside the loop); the zugzwang look-ahead
    of every move in the same vector code (+32: the scalar one mostly stops at
    its first test).
    Defined here, not in openingbook/solver/bitops.py, so that numba's cache of this file
    sees changes to it (see _winning_cells).
    """
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils

    # the lanes are stored as whole vectors: only into a contiguous uint64 array
    if not (
        isinstance(stack, types.Array)
        and stack.ndim == 1
        and stack.layout == "C"
        and stack.dtype == types.uint64
        and isinstance(start, types.Integer)
        and all(isinstance(x, types.Integer) and x.bitwidth == 64 for x in (cur, mask, nxt))
    ):
        return None  # numba reports a typing error
    sig = types.uint64(stack, start, cur, mask, nxt)
    h1 = DEFAULT_HEIGHT + 1
    board_bits = board_mask(DEFAULT_WIDTH, DEFAULT_HEIGHT)
    bottom_bits = bottom_mask(DEFAULT_WIDTH, DEFAULT_HEIGHT)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        stackty, startty = signature.args[:2]
        i64 = ir.IntType(64)
        i32 = ir.IntType(32)
        vec = ir.VectorType(i64, _LANE_WIDTH)
        zero = ir.Constant(i64, 0)

        def const(x: int) -> ir.Constant:
            return ir.Constant(vec, [x] * _LANE_WIDTH)

        def splat(x: ir.Value) -> ir.Value:
            one = builder.insert_element(ir.Constant(vec, None), x, ir.Constant(i32, 0))
            zeros = ir.Constant(ir.VectorType(i32, _LANE_WIDTH), [0] * _LANE_WIDTH)
            return builder.shuffle_vector(one, ir.Constant(vec, None), zeros)

        ary = context.make_array(stackty)(context, builder, args[0])
        idx = context.cast(builder, args[1], startty, types.intp)
        base = cgutils.get_item_pointer(context, builder, stackty, ary, [idx], wraparound=False)
        scur = splat(args[2])
        smask = splat(args[3])
        fnty = ir.FunctionType(i64, [vec])
        reduce_or = cgutils.get_or_insert_function(
            builder.module, fnty, f"llvm.vector.reduce.or.v{_LANE_WIDTH}i64"
        )
        entry = builder.block
        loop = builder.append_basic_block("lanes.loop")
        done = builder.append_basic_block("lanes.done")
        builder.branch(loop)
        builder.position_at_end(loop)
        rest = builder.phi(i64)
        two = builder.phi(i64)
        ptr = builder.phi(base.type)
        rest.add_incoming(args[4], entry)
        two.add_incoming(zero, entry)
        ptr.add_incoming(base, entry)
        # the next four moves (lowest bits first; 0 when there are fewer): lane j
        # holds the moves left after j of them, then keeps its lowest bit
        m = ir.Constant(vec, None)
        left = rest
        for j in range(_LANE_WIDTH):
            m = builder.insert_element(m, left, ir.Constant(i32, j))
            left = builder.and_(left, builder.sub(left, ir.Constant(i64, 1)))
        m = builder.and_(m, builder.sub(const(0), m))
        s = builder.or_(scur, m)
        nm = builder.or_(smask, m)
        shl = lambda x, k: builder.shl(x, const(k))  # noqa: E731
        shr = lambda x, k: builder.lshr(x, const(k))  # noqa: E731
        # _winning_cells with the pairs of stones shared (one instruction fewer per
        # direction): x marks the cells e with stones on e and e + d; a cell wins
        # with the pair on +d, +2d (x >> d) and a stone on +3d or -d, or with the
        # pair on -2d, -d (x << 2d) and a stone on +d or -3d
        up = shl(s, 1)
        r = builder.and_(shl(builder.and_(s, up), 2), up)
        for d1 in (h1, h1 - 1, h1 + 1):
            plus = shr(s, d1)  # bit e: a stone on e + d
            minus = shl(s, d1)  # bit e: a stone on e - d
            x = builder.and_(s, plus)
            r = builder.or_(r, builder.and_(shr(x, d1), builder.or_(shr(s, 3 * d1), minus)))
            r = builder.or_(r, builder.and_(shl(x, 2 * d1), builder.or_(plus, shl(s, 3 * d1))))
        w = builder.and_(r, builder.xor(const(board_bits), nm))
        builder.store(w, builder.bitcast(ptr, vec.as_pointer()), align=8)
        t = builder.and_(w, builder.and_(builder.add(nm, const(bottom_bits)), const(board_bits)))
        x = builder.or_(builder.and_(t, builder.sub(t, const(1))), builder.and_(t, shr(w, 1)))
        hit = builder.icmp_unsigned("!=", x, const(0))
        two_next = builder.or_(two, builder.call(reduce_or, [builder.select(hit, m, const(0))]))
        ptr_next = builder.gep(ptr, [ir.Constant(i64, _LANE_WIDTH)])
        rest.add_incoming(left, loop)
        two.add_incoming(two_next, loop)
        ptr.add_incoming(ptr_next, loop)
        builder.cbranch(builder.icmp_unsigned("!=", left, zero), loop, done)
        builder.position_at_end(done)
        return two_next

    return sig, codegen


@intrinsic
def _has_four_lanes(typingctx, s):  # type: ignore[no-untyped-def]
    """:func:`_has_four` for boards ``DEFAULT_HEIGHT`` high, its four directions at
    once in one vector register (variable shifts, ``vpsrlvq``): the scalar test
    runs three or four directions in most calls (a four is rare)."""
    from llvmlite import ir
    from numba import types

    if not (isinstance(s, types.Integer) and s.bitwidth == 64):
        return None  # numba reports a typing error
    sig = types.boolean(s)
    h1 = DEFAULT_HEIGHT + 1
    steps = [1, h1, h1 - 1, h1 + 1]

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        i64 = ir.IntType(64)
        i32 = ir.IntType(32)
        vec = ir.VectorType(i64, len(steps))
        one = builder.insert_element(ir.Constant(vec, None), args[0], ir.Constant(i32, 0))
        zeros = ir.Constant(ir.VectorType(i32, len(steps)), [0] * len(steps))
        x = builder.shuffle_vector(one, ir.Constant(vec, None), zeros)
        m = builder.and_(x, builder.lshr(x, ir.Constant(vec, steps)))
        f = builder.and_(m, builder.lshr(m, ir.Constant(vec, [2 * d for d in steps])))
        wide = builder.bitcast(f, ir.IntType(64 * len(steps)))
        return builder.icmp_unsigned("!=", wide, ir.Constant(wide.type, 0))

    return sig, codegen


@njit(cache=True, inline="always")
def _has_four(s: np.uint64, height: int) -> bool:
    if height == DEFAULT_HEIGHT:
        # a constant in the 7x6 copy of the search (see _search): the branch folds;
        # elsewhere a run-time test, and every board 6 high takes the vector code
        # whatever its width (the steps depend on the height only, all <= _MAX_STEP)
        return _has_four_lanes(s)
    h = np.uint64(height)
    for d in (_ONE, h + _ONE, h, h + np.uint64(2)):
        if d > _MAX_STEP:
            continue  # see _MAX_STEP
        m = s & (s >> d)
        if (m & (m >> (d + d))) != _ZERO:
            return True
    return False


@njit(cache=True, inline="always")
def _mirror(x: np.uint64, width: int, h1: int, col0: np.uint64) -> np.uint64:
    """The bitboard ``x`` mirrored left to right (``col0``: the cells of column 0)."""
    r = _ZERO
    for c in range(width):
        r |= ((x >> np.uint64(c * h1)) & col0) << np.uint64((width - 1 - c) * h1)
    return r


@njit(cache=True, inline="always")
def _self_mirror(cur: np.uint64, mask: np.uint64, width: int, h1: int) -> bool:
    """Is the position its own mirror image?"""
    col0 = (_ONE << np.uint64(h1)) - _ONE  # the cells of column 0 (and the one above)
    return _mirror(mask, width, h1, col0) == mask and _mirror(cur, width, h1, col0) == cur


@njit(cache=True, inline="always")
def _mirror_moves(
    cur: np.uint64, mask: np.uint64, nxt: np.uint64, n: int, width: int, h1: int, right: np.uint64
) -> np.uint64:
    """The moves ``nxt`` worth searching at a node of ``n`` stones: without those of the
    columns ``right`` of the centre when the position is its own mirror image below
    ``SYMMETRY_STONES`` stones (so are its threats and its moves then: one move of each
    mirror pair is enough)."""
    if n < SYMMETRY_STONES and _self_mirror(cur, mask, width, h1):
        return nxt & ~right
    return nxt


@njit(cache=True, inline="always")
def _table_key(
    key: np.uint64, n: int, width: int, h1: int, symmetry: bool
) -> tuple[np.uint64, bool]:
    """The table key of a position with ``n`` stones, and whether it is its
    mirror image's (the stored move then is the mirror column): below
    ``SYMMETRY_STONES`` stones, a position and its mirror image share the
    smaller key of the two. ``symmetry`` is False in the kernel compiled for
    positions of ``SYMMETRY_STONES`` or more stones only (see :func:`_search`)."""
    if symmetry and n < SYMMETRY_STONES:
        mirrored = _mirror(key, width, h1, (_ONE << np.uint64(h1)) - _ONE)
        if mirrored < key:
            return mirrored, True
    return key, False


#: what :func:`_zugzwang_bound` returns when it proves nothing
_NO_BOUND = 99


@njit(cache=True, inline="always")
def _zugzwang_bound(
    mover: np.uint64,
    other: np.uint64,
    other_wins: np.uint64,
    mask: np.uint64,
    board: np.uint64,
    bottom: np.uint64,
    claim_rows: np.uint64,
    height: int,
) -> int:
    """Upper bound on the score of ``mover`` (to move, even number of empty cells).

    Allis' claimeven with baseinverse, as ``other``'s strategy: answer each move
    on top of it, except that the lowest empty cells of the columns with an odd
    number of empty cells (all playable now) are paired up: when ``mover``
    takes one of a pair, ``other`` takes another. ``mover`` then only ever gets
    cells of ``claim_rows`` plus some of those lowest cells ("mine"), ``other``
    the rest for sure. A threat of ``other`` (``other_wins``: the empty cells
    where it would complete four) among its sure cells makes the cells above it
    useless to ``mover``: ``other`` wins as soon as the cell below is played (a
    simple case of Allis' aftereven). If "mine" without those cells holds no
    four, ``mover`` cannot win: 0, or a loss if ``other`` has such a threat or
    a four among its sure cells. The loss comes at the latest when every other
    cell is full, which bounds its distance.
    """
    empty = board ^ mask
    lowest_odd = (mask + bottom) & board & ~claim_rows
    mine = mover | (empty & claim_rows) | lowest_odd
    theirs_empty = empty & ~claim_rows & ~lowest_odd
    threats = other_wins & theirs_empty
    if threats == _ZERO:
        if _has_four(mine, height):
            return _NO_BOUND
        return -1 if _has_four(other | theirs_empty, height) else 0
    # the cells above the lowest threat of each column, in one subtraction: in each
    # column, sentinel bit - threats borrows down to the lowest threat, leaving that
    # bit set and, above it, exactly the cells that are not threats (the columns
    # cannot borrow from each other: each difference is non-negative)
    borrow = (bottom << np.uint64(height)) - threats
    above = ((borrow | threats) & board) ^ (borrow & threats)
    if _has_four(mine & ~above, height):
        return _NO_BOUND
    # the other side wins with move number ``last`` from now at the latest
    last = popcount(empty) - popcount(threats | above) + 1
    return -((popcount(board) + 2 - popcount(mask) - last) // 2)


@njit(cache=True)
def _book_score(book: np.ndarray, key: np.uint64, width: int, h1: int) -> int:
    """The exact score :mod:`openingbook.solver.probe`'s array ``book`` holds for the position of
    Pons key ``key`` (either mirror variant), or ``_NO_BOUND``: a binary search of
    its canonical key among the sorted keys (a node of the book's ply only, a few
    per thousand nodes: not inlined into the loop). A score found is the node's value
    whatever the window: an exact score is a bound on either side."""
    mirrored = _mirror(key, width, h1, (_ONE << np.uint64(h1)) - _ONE)
    if mirrored < key:
        key = mirrored
    count = book[1]
    lo = _ZERO
    hi = count
    while lo < hi:
        mid = (lo + hi) >> _ONE
        if book[np.uint64(2) + mid] < key:
            lo = mid + _ONE
        else:
            hi = mid
    if lo == count or book[np.uint64(2) + lo] != key:
        return _NO_BOUND
    word = book[np.uint64(2) + count + (lo >> np.uint64(3))]
    return int((word >> ((lo & np.uint64(7)) << np.uint64(3))) & np.uint64(0xFF)) - 128


# ------------------------------------------------------------- the kernel
@njit(cache=True, nogil=True)
def _negamax(
    cur0: np.uint64,
    mask0: np.uint64,
    n0: int,
    alpha0: int,
    state: tuple,
    default_size: bool,
    probing: bool,
    deep_copy: bool | None,
) -> int:
    """Alpha-beta value of a position whose side to move cannot win at once, searched
    with the null window (``alpha0``, ``alpha0 + 1``).

    Fail-soft: a result ``<= alpha0`` is an upper bound (the best of the
    children's bounds, often below ``alpha0``), ``> alpha0`` a lower bound.
    ``state``: the search's arrays (:meth:`Solver._kernel_args`), (big, small,
    tparams, geo, order, col_masks, stack, stats, book): the big and the small
    table (:mod:`openingbook.solver.table`), ``tparams`` = (log2, small_log2, key_bits), ``geo`` =
    (width, height, cells, stop, node limit), the column order (centre first), each
    column's cells, the search's stack (a flat uint64 array, one row per depth, see
    :func:`_stack_row`), ``stats`` = (nodes, stopped, nodes searched by
    :func:`_negamax_deep`, nodes answered by the book) and ``book``, the exact scores
    of one ply (:mod:`openingbook.solver.probe`), looked up by the nodes of that many stones
    (:func:`_book_score`): one structure, so that each kernel takes a handful of
    arguments (a non-inlined call passes a tuple's arrays as it passes loose ones).
    When another thread
    sets ``geo[_STOP]``, or once ``stats[0]`` passes a node limit ``geo[_NODE_LIMIT]``
    (not 0), returns soon (at the next store into the big table) with ``stats[1]`` set
    and a meaningless result.

    The search itself is :func:`_search`, compiled with the mirror code for the
    nodes below ``SYMMETRY_STONES`` stones and without it (:func:`_negamax_deep`)
    for every node from there on. ``default_size`` (the 7x6 copy of the search
    without the mirror code, :func:`_is_7x6`) and ``probing`` (the copy with the
    mirror code reads ``book``) are constants of the entry kernel
    (:func:`_entry_kernels`): numba compiles only the copies they name. So is
    ``deep_copy``: the ``default_size`` of the copy without the mirror code, or None
    for the light kernel, that copy alone for every node (:mod:`openingbook.solver._firstuse`).
    """
    big, small, tparams, geo, order, col_masks, stack, stats, book = state
    width = geo[0]
    height = geo[1]
    h1 = height + 1
    board = _ZERO
    for c in range(width):
        board |= col_masks[c]
    stack[_CUR] = cur0  # row 0 of the stack (see _stack_row)
    stack[_MASK] = mask0
    stack[_OPPW] = _winning_cells(cur0 ^ mask0, mask0, board, height)
    stack[_ALPHA] = np.uint64(alpha0)
    stack[_BETA] = np.uint64(alpha0 + 1)
    # the column of each bit (no division in the loop) and, for each bit, its
    # column's rank in the move order as a tie-break added to the move scores
    # (centre first); both by bit, so that the loop looks up no column per move
    col_of_bit = np.zeros(64, dtype=np.int64)
    for b in range(64):
        col_of_bit[b] = b // h1
    tie_break = np.zeros(64, dtype=np.int64)
    for i in range(width):
        for b in range(order[i] * h1, (order[i] + 1) * h1):
            tie_break[b] = _RANKS - 1 - i
    # what the search reads (see _search): not the order, and the book apart (the copies
    # without the mirror code take none); each array a call passes costs it a few
    # instructions, and a child handed over to such a copy is a call
    search = (big, small, tparams, geo, col_masks, stack, stats, col_of_bit, tie_break)
    # the root's row as a run-time 0: a literal 0 would compile more copies (see _search)
    root = np.int64(0)
    if deep_copy is None:
        # the light kernel: one copy, without the mirror code, for every node (probing
        # the book if any); None as its last constant keeps it apart from the fast copies
        return _search(root, n0, search, book, None, default_size, probing, None)
    if n0 >= SYMMETRY_STONES:
        return _negamax_deep(root, n0, search, deep_copy)
    return _search(root, n0, search, book, True, False, probing, deep_copy)


@njit(cache=True, inline="always")
def _is_7x6(geo: np.ndarray, tparams: np.ndarray) -> bool:
    """Whether the 7x6 copy of :func:`_search` (board and small table as constants)
    can serve a search: a 7x6 board whose small table has the size that copy was
    compiled with (always, but for a numba cache compiled before solver.settings
    changed: the entry kernels refuse it, :func:`_solve_one`). The solver chooses the
    copy (:meth:`Solver._entry`) with the same test in Python."""
    return (
        geo[0] == DEFAULT_WIDTH
        and geo[1] == DEFAULT_HEIGHT
        and tparams[1] == SMALL_TABLE_LOG2
        and tparams[2] == _KEY_BITS_7X6
    )


# numba counts no references in the search and its hand-over (_nrt=False): they allocate
# nothing, and the search's arrays, taken out of their tuple, would otherwise be counted
# at each call (a hand-over is one per node of SYMMETRY_STONES stones)
@njit(cache=True, nogil=True, _nrt=False)
def _negamax_deep(d0: int, n0: int, search: tuple, default_size: bool) -> int:
    """:func:`_search` without the mirror code, from a node of ``n0 + d0 >=
    SYMMETRY_STONES`` stones at row ``d0`` of the stack (set up as for
    :func:`_search`): with ``default_size`` (a constant, as in :func:`_negamax`) the
    copy compiled with the 7x6 board as constants (:func:`_is_7x6`). ``search``: the
    search's arrays (see :func:`_search`). It probes no book (the copies without the
    mirror code never read it: the small table stands in its place) and hands over to no
    copy."""
    return _search(d0, n0, search, search[1], None, default_size, False, False)


@njit(cache=True, inline="always")
def _enter_row(
    stack: np.ndarray,
    base: int,
    cur: np.uint64,
    mask: np.uint64,
    opp_win: np.uint64,
    alpha: int,
    beta: int,
    whole: bool,
) -> None:
    """Store a pushed child's row (at ``base``). The loop gets the child's position,
    window and threats in variables and reads only current and mask of the row again
    (on returning to the child from its own children), so only they are stored,
    unless ``whole``: the mirror copy may hand the child over to another copy of the
    loop, which reads the whole row."""
    stack[_u(base + _CUR)] = cur
    stack[_u(base + _MASK)] = mask
    if whole:
        stack[_u(base + _OPPW)] = opp_win
        stack[_u(base + _ALPHA)] = np.uint64(alpha)
        stack[_u(base + _BETA)] = np.uint64(beta)


@njit(cache=True, inline="always")
def _board_masks(
    width: int, height: int, col_masks: np.ndarray
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """(bottom, board, claim_rows, right_cols): the bottom cell of every column, every
    cell, the cells the side to move gets in a zugzwang (every column with an even
    number of empty cells, the opponent answering each move on top of it: the rows
    with the parity of the board height, 0-based) and the columns right of the centre."""
    h1 = height + 1
    bottom = _ZERO
    for c in range(width):
        bottom |= _ONE << np.uint64(c * h1)
    # each column's bottom bit times 2**height - 1: that column's height cells
    board = bottom * ((_ONE << np.uint64(height)) - _ONE)
    claim_rows = _ZERO
    for c in range(width):
        for r in range(height % 2, height, 2):
            claim_rows |= _ONE << np.uint64(c * h1 + r)
    right_cols = _ZERO
    for c in range((width + 1) // 2, width):
        right_cols |= col_masks[c]
    return bottom, board, claim_rows, right_cols


@njit(cache=True, inline="always")
def _node_bounds(
    cur: np.uint64,
    mask: np.uint64,
    opp_win: np.uint64,
    n: int,
    root: bool,
    alpha: int,
    beta: int,
    geom: tuple[int, int, np.uint64, np.uint64, np.uint64],
) -> tuple[bool, int, np.uint64, int, int, int]:
    """The tests a node makes before it looks at the table: (done, value, moves, alpha,
    beta, best). ``done``: they decide the node, whose value is ``value``. Else
    ``moves``, the moves worth searching (one bit each, on the cell it fills), the
    window narrowed to the node's score bounds, and ``best``, the lower bound that the
    moves left out (they lose sooner) give. ``geom`` = (cells, height, board, bottom,
    claim_rows), the board's constants (:func:`_board_masks`)."""
    cells, height, board, bottom, claim_rows = geom
    # adding the bottom row carries each column's lowest empty cell up: the playable cells
    possible = (mask + bottom) & board
    forced = possible & opp_win  # the opponent wins there next move: block it
    if forced != _ZERO:
        # x & (x - 1) clears the lowest set bit: what is left is a second threat, lost
        if (forced & (forced - _ONE)) != _ZERO:
            return True, -((cells - n) // 2), _ZERO, alpha, beta, 0
        possible = forced
    # opp_win >> 1: the cells under the opponent's winning cells, never played
    nxt = possible & ~(opp_win >> _ONE)
    if nxt == _ZERO:
        return True, -((cells - n) // 2), nxt, alpha, beta, 0
    if n >= cells - 2:
        return True, 0, nxt, alpha, beta, 0
    lo = -((cells - 2 - n) // 2)  # the opponent cannot win next move
    hi = (cells - 1 - n) // 2  # we cannot win this move
    if POTENTIAL:
        empty = board ^ mask
        # each test only where it can end the search: hi = 0 fails low
        # only if alpha >= 0, lo = 0 fails high only if beta <= 0 (with a
        # null window nothing else changes; a wider one only narrows less)
        if alpha >= 0 and not _has_four(cur | empty, height):
            hi = min(hi, 0)
        # The two tests below repeat, below the root, tests the parent made
        # before it pushed this node, with the same window (every window is
        # a null window, and the search fails soft: the parent's alpha and
        # beta never change while it searches its children): had they cut,
        # the parent would not have searched this node. "No four for the
        # opponent" here implies it at the parent (fewer empty cells), where
        # the same bound failed the parent low; the zugzwang bound is the
        # parent's look-ahead bound for this move.
        if root and beta <= 0 and not _has_four((cur ^ mask) | empty, height):
            lo = max(lo, 0)
        # zugzwang (claimeven, baseinverse, aftereven), when the number
        # of empty cells is even; a bound below -1 needs a threat of the
        # opponent outside claim_rows
        if (
            root
            and ((cells - n) & 1) == 0
            and hi > alpha
            and (alpha >= -1 or (opp_win & ~claim_rows) != _ZERO)
        ):
            hi = min(
                hi,
                _zugzwang_bound(cur, cur ^ mask, opp_win, mask, board, bottom, claim_rows, height),
            )
    alpha_in = alpha
    if alpha < lo:
        alpha = lo
    if beta > hi:
        beta = hi
    if alpha >= beta:
        # lo >= beta: a lower bound that fails high; else hi <= alpha: fails low
        # (if both, lo == hi is the exact score)
        return True, (alpha if alpha > alpha_in else beta), nxt, alpha, beta, lo
    return False, 0, nxt, alpha, beta, lo


@njit(cache=True, inline="always")
def _table_slot(
    key: np.uint64, n: int, addr: tuple[int, int, bool, int, int, int, int]
) -> tuple[np.uint64, np.uint64, bool]:
    """(slot, tag, flipped) of the position of Pons key ``key`` with ``n`` stones: its
    entry in the small table from ``deep`` stones on, else in the big one; ``flipped``:
    the entry is its mirror image's (:func:`_table_key`). ``addr`` = (width, h1,
    symmetry, deep, big_log2, small_log2, key_bits), constants of a search. The callers
    name the array in each branch themselves (``probe(small, ...) if n >= deep else
    probe(big, ...)``): an array held in a variable, or passed to an inlined function
    that branches on it, makes numba count its references in the loop (half the speed,
    measured)."""
    width, h1, symmetry, deep, big_log2, small_log2, key_bits = addr
    tkey, flipped = _table_key(key, n, width, h1, symmetry)
    if n >= deep:
        slot, tag = slot_and_tag(tkey, small_log2, key_bits)
    else:
        slot, tag = slot_and_tag(tkey, big_log2, key_bits)
    return slot, tag, flipped


@njit(cache=True, inline="always")
def _entry_window(payload: np.uint64, alpha: int, beta: int) -> tuple[int, int, int, bool, int]:
    """What a node's table entry (``payload``, 0 for none) gives: (the stored move's
    column or -1, alpha, beta, done, value), the window narrowed by the stored bounds.
    They hardly ever cut: the parent probed this entry before it pushed the node
    (enhanced transposition cut-offs, same window); the probe brings the move to try
    first. A node with one move left (a forced block, or every other move loses at
    once) is not probed: the table's move orders nothing there, and its bounds cut
    nothing the parent's enhanced transposition cut-off did not."""
    if payload == _ZERO:
        return -1, alpha, beta, False, 0
    lower, upper = entry_bounds(payload)
    if lower > alpha:
        alpha = lower
        if alpha >= beta:
            return entry_move(payload), alpha, beta, True, alpha
    if upper < beta:
        beta = upper
        if alpha >= beta:
            return entry_move(payload), alpha, beta, True, beta
    return entry_move(payload), alpha, beta, False, 0


@njit(cache=True, inline="always")
def _prefetch_children(
    big: np.ndarray,
    cur: np.uint64,
    mask: np.uint64,
    bottom: np.uint64,
    nxt: np.uint64,
    n: int,
    addr: tuple[int, int, bool, int, int, int, int],
) -> None:
    """Start loading the big-table slots of the children (the moves ``nxt``) that the
    enhanced transposition cut-offs of the move ordering probe, all at once (``addr``:
    see :func:`_table_slot`; the children have fewer than ``deep`` stones)."""
    width, h1, symmetry, _, big_log2, _, key_bits = addr
    # a child's key is its current + mask + bottom: its side to move holds the other
    # stones (cur ^ mask), and its mask is mask + m (m, an empty cell: + is |)
    child_base = (cur ^ mask) + mask + bottom
    rest = nxt
    while rest != _ZERO:
        m = rest & (_ZERO - rest)  # x & -x: the lowest set bit (two's complement)
        rest ^= m
        ckey, _ = _table_key(child_base + m, n + 1, width, h1, symmetry)
        cslot, _ = slot_and_tag(ckey, big_log2, key_bits)
        prefetch(big, cslot)


@njit(cache=True, inline="always")
def _two_threats(w: np.uint64, nm: np.uint64, bottom: np.uint64, board: np.uint64) -> bool:
    """Do the winning cells ``w`` a move leaves (the mask ``nm`` after it) hold two
    threats: two playable cells, or one right above another? The opponent blocks one,
    the mover completes the other with the next-but-one stone."""
    t = w & ((nm + bottom) & board)  # the winning cells now playable
    # x & (x - 1) != 0: two bits or more; w >> 1: the cells under a winning cell
    return (t & (t - _ONE)) != _ZERO or (t & (w >> _ONE)) != _ZERO


@njit(cache=True, inline="always")
def _move_threats(
    stack: np.ndarray,
    at: int,
    two_threats: np.uint64,
    cur: np.uint64,
    mask: np.uint64,
    m: np.uint64,
    geom: tuple[int, int, np.uint64, np.uint64, np.uint64],
    default_size: bool,
) -> tuple[np.uint64, bool]:
    """(the winning cells the move ``m`` leaves, whether they hold two threats): in the
    7x6 copy (``default_size``) read from :func:`_winning_lanes`' output (the entry at
    ``at``, and its result ``two_threats``), else computed for this move alone
    (``geom``: see :func:`_node_bounds`)."""
    _, height, board, bottom, _ = geom
    if default_size:
        return stack[_u(at)], (two_threats & m) != _ZERO
    w = _winning_cells(cur | m, mask | m, board, height)
    return w, _two_threats(w, mask | m, bottom, board)


@njit(cache=True, inline="always")
def _lookahead_cut(
    cur: np.uint64,
    mask: np.uint64,
    m: np.uint64,
    w: np.uint64,
    odd_empty: bool,
    beta: int,
    geom: tuple[int, int, np.uint64, np.uint64, np.uint64],
) -> int:
    """The zugzwang bound one move ahead, for a move ``m`` (leaving the winning cells
    ``w``) at a node with an odd number of empty cells: after it the opponent is to move
    with an even number and the mover holds the zugzwang. Its value when it is a cut-off
    (``>= beta``) before any child is searched, else ``_NO_BOUND`` (also with an even
    number of empty cells); a value above 1 needs a winning cell outside ``claim_rows``
    (``geom``: see :func:`_node_bounds`)."""
    _, height, board, bottom, claim_rows = geom
    if not odd_empty or (beta > 1 and (w & ~claim_rows) == _ZERO):
        return _NO_BOUND
    bound = _zugzwang_bound(cur ^ mask, cur | m, w, mask | m, board, bottom, claim_rows, height)
    if bound != _NO_BOUND and -bound >= beta:
        return -bound
    return _NO_BOUND


@njit(cache=True, inline="always")
def _threat_score(
    w: np.uint64, nm: np.uint64, opp_win: np.uint64, board: np.uint64, bottom: np.uint64
) -> int:
    """The move ordering's score of the winning cells ``w`` a move leaves (the mask ``nm``
    after it), with c4's weights (:mod:`openingbook.solver.settings`): cells one and two moves from
    playable, and all useful ones (not right above an opponent's winning cell: never
    reached)."""
    useful = w & ~(opp_win << _ONE)
    up1 = (((nm + bottom) & board) << _ONE) & board  # one above each playable cell
    return (
        NEXT_THREAT_WEIGHT * popcount(useful & up1)
        + LATER_THREAT_WEIGHT * popcount(useful & ((up1 << _ONE) & board))
        + THREAT_WEIGHT * popcount(useful)
    )


@njit(cache=True, inline="always")
def _order_score(
    w: np.uint64,
    m: np.uint64,
    mask: np.uint64,
    opp_win: np.uint64,
    geom: tuple[int, int, np.uint64, np.uint64, np.uint64],
    tie_break: np.ndarray,
    tt_cells: np.uint64,
    single: bool,
) -> int:
    """The ordering score of the move ``m`` (leaving the winning cells ``w``), best
    first: the table's move (``tt_cells``, its column), then :func:`_threat_score`,
    then the column's rank (``tie_break``, by bit); 0 at a node with a single move
    (nothing to order; ``geom``: see :func:`_node_bounds`)."""
    if single:
        return 0
    _, _, board, bottom, _ = geom
    sc = _threat_score(w, mask | m, opp_win, board, bottom) * _RANKS
    sc += tie_break[_u(trailing_zeros(m))]
    if (m & tt_cells) != _ZERO:
        sc += _TT_MOVE_BONUS
    return sc


@njit(cache=True, inline="always")
def _early_bound(
    v: int, best: int, etc_col: int, flipped: bool, width: int
) -> tuple[int, bool, int]:
    """(value, lower, stored column) of a node decided in its move ordering: by a move's
    cut-off before any search (``etc_col`` >= 0: the lower bound ``v`` and that column,
    the mirror column in a ``flipped`` entry), or by every move refuted from the table
    (fail low with the upper bound ``best``, no column)."""
    lower = etc_col >= 0
    col = (width - 1 - etc_col if flipped else etc_col) if lower else -1
    return (v if lower else best), lower, col


@njit(cache=True, inline="always")
def _save_node(stack: np.ndarray, base: int, alpha: int, beta: int, k: int, best: int) -> None:
    """Keep in the node's row (at ``base``) what its children's returns read: the
    window, the number of moves, the index of the one searched (the first), the best
    score so far (the integers as their 64 bits)."""
    stack[_u(base + _ALPHA)] = np.uint64(alpha)
    stack[_u(base + _BETA)] = np.uint64(beta)
    stack[_u(base + _NMOVES)] = np.uint64(k)
    stack[_u(base + _IDX)] = np.uint64(0)
    stack[_u(base + _BEST)] = np.uint64(best)


@njit(cache=True, inline="always")
def _stopped(geo: np.ndarray, stats: np.ndarray, nodes: int) -> bool:
    """Must the search stop (see :func:`_negamax`): the stop flag is set, or the
    thread's nodes (``stats[0]`` and this call's ``nodes`` not added yet) passed the
    node limit."""
    limit = geo[_NODE_LIMIT]
    return load_relaxed(geo, _u(_STOP)) != 0 or (limit != 0 and stats[0] + nodes > limit)


@njit(cache=True, inline="always")
def _count_nodes(stats: np.ndarray, nodes: int, symmetry: bool) -> None:
    """Add a search's nodes to ``stats`` (see :func:`_negamax`): all, and those of the
    copies without the mirror code."""
    stats[0] += nodes
    if not symmetry:
        stats[2] += nodes


@njit(cache=True, inline="always")
def _push(
    stack: np.ndarray,
    d: int,
    layout: tuple[int, int],
    idx: int,
    cur: np.uint64,
    mask: np.uint64,
    window: tuple[int, int],
    whole: bool,
) -> tuple[np.uint64, np.uint64, int, int, np.uint64]:
    """Enter the ``idx``-th child of the node at row ``d`` (position ``cur``, ``mask``,
    ``window`` = (alpha, beta)): its row ``d + 1`` (:func:`_enter_row`) and its
    (current, mask, alpha, beta, opponent's winning cells). ``layout`` = (row, wins),
    the stack's row length and first entry of the moves' winning cells
    (:func:`_stack_columns`)."""
    row, wins = layout
    alpha, beta = window
    m = stack[_u(d * row + _MOVES + idx)]
    # the child's side to move holds the other stones (cur ^ mask); negamax window
    child, child_mask = cur ^ mask, mask | m
    opp_win = stack[_u(d * row + wins + idx)]
    _enter_row(stack, (d + 1) * row, child, child_mask, opp_win, -beta, -alpha, whole)
    return child, child_mask, -beta, -alpha, opp_win


@njit(cache=True, inline="always")
def _insert_move(
    stack: np.ndarray,
    base: int,
    wins: int,
    scores: int,
    k: int,
    m: np.uint64,
    w: np.uint64,
    sc: int,
) -> None:
    """Insert the move ``m`` (leaving the winning cells ``w``, ordering score ``sc``) among
    the ``k`` moves already in the row at ``base``, best first: an insertion sort, a move
    going after those of equal score. Inlined, it compiles to the same machine code as the
    loop written out in :func:`_search` (benchmarks/DECISIONS.md, "The kernel")."""
    j = k
    while j > 0 and np.int64(stack[_u(base + scores + j - 1)]) < sc:
        stack[_u(base + _MOVES + j)] = stack[_u(base + _MOVES + j - 1)]
        stack[_u(base + wins + j)] = stack[_u(base + wins + j - 1)]
        stack[_u(base + scores + j)] = stack[_u(base + scores + j - 1)]
        j -= 1
    stack[_u(base + _MOVES + j)] = m
    stack[_u(base + wins + j)] = w
    stack[_u(base + scores + j)] = np.uint64(sc)


@njit(cache=True, inline="always")
def _search_sizes(
    geo: np.ndarray, tparams: np.ndarray, default_size: bool
) -> tuple[int, int, int, int, int]:
    """(width, height, cells, small_log2, key_bits) of a search: constants in the 7x6
    copy of :func:`_search` (``default_size``, see :func:`_is_7x6`), else ``geo``'s and
    ``tparams``'."""
    if default_size:
        width, height = DEFAULT_WIDTH, DEFAULT_HEIGHT
        return width, height, _CELLS_7X6, SMALL_TABLE_LOG2, _KEY_BITS_7X6
    return geo[0], geo[1], geo[2], tparams[1], tparams[2]


@njit(cache=True, inline="always")
def _stack_columns(width: int) -> tuple[int, int, int, int]:
    """(row, wins, scores, lanes): the length of a row of the search's flat stack (see
    :func:`_stack_row`) and the first entry of the moves' winning cells, of their
    ordering scores and of :func:`_winning_lanes`' output (7x6 copy) in a row. An entry
    of row ``d`` is at ``d * row + field``: one base pointer for every field, and
    ``row`` a constant in the 7x6 copy (the row length of a 2-D array is a run-time
    value that the loop reloads)."""
    wins = _MOVES + width
    return _MOVES + 3 * width + _LANE_COUNT, wins, wins + width, wins + 2 * width


@njit(cache=True, inline="always")
def _read_row(stack: np.ndarray, base: int) -> tuple[np.uint64, np.uint64, int, int, np.uint64]:
    """(current, mask, alpha, beta, the opponent's winning cells) of the row at ``base``."""
    cur = stack[_u(base + _CUR)]
    mask = stack[_u(base + _MASK)]
    alpha = np.int64(stack[_u(base + _ALPHA)])
    beta = np.int64(stack[_u(base + _BETA)])
    return cur, mask, alpha, beta, stack[_u(base + _OPPW)]


@njit(cache=True, nogil=True, _nrt=False)  # see _negamax_deep
def _search(
    d0: int,
    n0: int,
    search: tuple,
    book: np.ndarray,
    mirror: bool | None,
    default_size: bool,
    probing: bool,
    deep_default_size: bool | None,
) -> int:
    """The search of :func:`_negamax` from the node at row ``d0`` of the stack (current,
    mask, the opponent's winning cells, alpha, beta), which has ``n0 + d0`` stones.
    ``search``: the search's arrays (big, small, tparams, geo, col_masks, stack, stats,
    col_of_bit, tie_break): those of :func:`_negamax`'s ``state`` but the order and the
    book, and the column of each bit and each bit's tie-break in the move ordering,
    made by :func:`_negamax`. ``book``: read with ``probing`` only.

    ``mirror``, ``default_size`` and ``probing`` are constants: numba compiles a copy per
    combination, the other branches folded away. ``mirror=True``: with the mirror code,
    each child of ``SYMMETRY_STONES`` stones handed over with its subtree to a copy
    without it (:func:`_negamax_deep`; 40 instructions per node cheaper); numba drops
    that hand-over (``if mirror is None``) before typing those copies, so no copy calls
    another (a cycle of calls crashes when loaded from numba's cache).
    ``default_size``: the 7x6 board as constants (:func:`_is_7x6`) and the move
    ordering's bit work in vector registers (:func:`_winning_lanes`). ``probing``: the
    scores of the nodes of ``book``'s ply are read from it (:mod:`openingbook.solver.probe`).
    ``deep_default_size``: the ``default_size`` of the copy the hand-over goes to, so
    that a 7x6 search compiles no copy for other boards, nor they one for 7x6."""
    big, small, tparams, geo, col_masks, stack, stats, col_of_bit, tie_break = search
    symmetry = mirror is not None
    book_ply = np.int64(book[0]) if probing else np.int64(-1)
    big_log2 = tparams[0]
    width, height, cells, small_log2, key_bits = _search_sizes(geo, tparams, default_size)
    # the stone counts from which each table and cut-off applies (solver.settings)
    deep, etc_stones, tt_stones = cells - DEEP_EMPTY, cells - ETC_EMPTY, cells - TT_EMPTY
    h1 = height + 1
    bottom, board, claim_rows, right_cols = _board_masks(width, height, col_masks)
    geom = (cells, height, board, bottom, claim_rows)  # see _node_bounds
    row, wins, scores, lanes = _stack_columns(width)
    addr = (width, h1, symmetry, deep, big_log2, small_log2, key_bits)  # see _table_slot
    d, nodes, v = d0, 0, 0
    # the node's position, window and the opponent's winning cells: read from the
    # stack for the first node, then set by the push of each child (see _enter_row)
    cur, mask, alpha, beta, opp_win = _read_row(stack, d * row)
    while True:
        # ---------------------------------------------------- enter node d
        nodes += 1
        n = n0 + d
        done, v, nxt, alpha, beta, best = _node_bounds(
            cur, mask, opp_win, n, d == 0, alpha, beta, geom
        )
        if symmetry and not done:
            nxt = _mirror_moves(cur, mask, nxt, n, width, h1, right_cols)
        if probing and not done and n == book_ply:  # bounds that cut already are kept
            known = _book_score(book, cur + mask + bottom, width, h1)
            if known != _NO_BOUND:
                v, done = known, True
                stats[3] += 1
        if not done and PREFETCH and n + 1 < deep and n < etc_stones:
            _prefetch_children(big, cur, mask, bottom, nxt, n, addr)
        single = (nxt & (nxt - _ONE)) == _ZERO  # x & (x - 1) == 0: one move (_entry_window)
        slot, tag, flipped, tt_cells = _ZERO, _ZERO, False, _ZERO
        if not done and n < tt_stones:
            slot, tag, flipped = _table_slot(cur + mask + bottom, n, addr)
            payload = _ZERO
            if not single:
                payload = probe(small, slot, tag) if n >= deep else probe(big, slot, tag)
            tt_move, alpha, beta, done, v = _entry_window(payload, alpha, beta)
            if tt_move >= 0:
                tt_cells = col_masks[_u(width - 1 - tt_move if flipped else tt_move)]
        if not done:
            # ------------------------------------------------ order moves
            # the moves into the row, best first (_order_score); a move may decide the
            # node before any search (the tables' probes stay in this loop: see _table_slot)
            k = 0
            etc_col = -1  # the column of a cut-off by the zugzwang bound or the table
            odd_empty = ((cells - n) & 1) == 1
            two_threats = _ZERO
            lane = 0
            if default_size:
                # every move's winning cells at once, in vector registers
                two_threats = _winning_lanes(stack, _u(d * row + lanes), cur, mask, nxt)
            rest = nxt  # one bit per move, lowest first; the insertion sort orders them
            while rest != _ZERO:
                m = rest & (_ZERO - rest)  # x & -x: the lowest set bit
                rest ^= m
                at = d * row + lanes + lane
                w, two = _move_threats(stack, at, two_threats, cur, mask, m, geom, default_size)
                lane += 1
                if two:
                    v, done = (cells - 1 - n) // 2, True
                    break
                cut = _lookahead_cut(cur, mask, m, w, odd_empty, beta, geom)
                if cut != _NO_BOUND:
                    v, done, etc_col = cut, True, col_of_bit[_u(trailing_zeros(m))]
                    break
                if n < etc_stones and n + 1 < tt_stones:
                    # enhanced transposition cut-off: a child whose stored upper
                    # bound already refutes it proves this node fails high
                    cslot, ctag, _ = _table_slot((cur ^ mask) + (mask | m) + bottom, n + 1, addr)
                    cpay = probe(small, cslot, ctag) if n + 1 >= deep else probe(big, cslot, ctag)
                    if cpay != _ZERO:
                        clower, cupper = entry_bounds(cpay)
                        if -cupper >= beta:
                            v, done, etc_col = -cupper, True, col_of_bit[_u(trailing_zeros(m))]
                            break
                        if -clower <= alpha:
                            # this move cannot raise alpha: left out, its bound joins best
                            best = max(best, -clower)
                            continue
                sc = _order_score(w, m, mask, opp_win, geom, tie_break, tt_cells, single)
                _insert_move(stack, d * row, wins, scores, k, m, w, sc)
                k += 1
            if etc_col >= 0 or (not done and k == 0):
                v, lower, col = _early_bound(v, best, etc_col, flipped, width)
                done = True
                if n < tt_stones:
                    if n >= deep:
                        store(small, slot, tag, v, lower, col)
                    else:
                        store(big, slot, tag, v, lower, col)
            if not done:
                _save_node(stack, d * row, alpha, beta, k, best)
                cur, mask, alpha, beta, opp_win = _push(
                    stack, d, (row, wins), 0, cur, mask, (alpha, beta), symmetry
                )
                d += 1
                if mirror is None or n + 1 < SYMMETRY_STONES:
                    continue
                # past the mirror code: the copy without it searches the child's subtree
                v = _negamax_deep(d, n0, search, deep_default_size)
                if stats[1] != 0:  # stopped (see below)
                    stats[0] += nodes
                    return 0
        # ------------------------------------------- return v from depth d
        while True:
            if d == d0:
                _count_nodes(stats, nodes, symmetry)
                return v
            d -= 1
            score = -v
            cur = stack[_u(d * row + _CUR)]
            mask = stack[_u(d * row + _MASK)]
            n = n0 + d
            idx = np.int64(stack[_u(d * row + _IDX)])
            if score >= np.int64(stack[_u(d * row + _BETA)]):
                # a cut-off: store the lower bound with the move that proved it
                col = col_of_bit[_u(trailing_zeros(stack[_u(d * row + _MOVES + idx)]))]
                v, lower = score, True
            else:
                if score > np.int64(stack[_u(d * row + _BEST)]):
                    stack[_u(d * row + _BEST)] = np.uint64(score)
                    if score > np.int64(stack[_u(d * row + _ALPHA)]):
                        stack[_u(d * row + _ALPHA)] = np.uint64(score)
                idx += 1
                if idx < np.int64(stack[_u(d * row + _NMOVES)]):
                    stack[_u(d * row + _IDX)] = np.uint64(idx)
                    _, _, alpha, beta, _ = _read_row(stack, d * row)  # the row's window
                    cur, mask, alpha, beta, opp_win = _push(
                        stack, d, (row, wins), idx, cur, mask, (alpha, beta), symmetry
                    )
                    d += 1
                    if mirror is None or n + 1 < SYMMETRY_STONES:
                        break
                    # past the mirror code, as above: return the child's value at once
                    v = _negamax_deep(d, n0, search, deep_default_size)
                    if stats[1] != 0:  # stopped
                        stats[0] += nodes
                        return 0
                    continue
                # every move searched: the best score is an upper bound
                v, col, lower = np.int64(stack[_u(d * row + _BEST)]), -1, False
            if n >= tt_stones:
                continue
            slot, tag, flipped = _table_slot(cur + mask + bottom, n, addr)
            if flipped and lower:
                col = width - 1 - col
            if n >= deep:
                store(small, slot, tag, v, lower, col)
                continue
            store(big, slot, tag, v, lower, col)
            if _stopped(geo, stats, nodes):
                # leave, storing nothing more (each entry stored so far is a finished
                # subtree's bound); tested after the big table's rarer stores only
                _count_nodes(stats, nodes, symmetry)
                stats[1] = 1
                return 0


@njit(cache=True, nogil=True)
def _solve_one(
    cur: np.uint64,
    mask: np.uint64,
    query: tuple[bool, bool, int, int, int],
    state: tuple,
    default_size: bool,
    probing: bool,
    deep_copy: bool | None,
) -> int:
    """Exact score (or -1/0/+1 if ``wdl``) of a legal position nobody has won.

    ``query`` = (wdl, use_guess, guess, lower, start); ``state``: the search's arrays
    (see :func:`_negamax`). ``lower``: a proven lower bound of the score
    (:data:`NO_LOWER_BOUND`: none), at most the most the side to move can score.
    Without a guess, the walk's first window is (``start``, ``start + 1``): 0 ("win or
    not?"); a helper thread of a parallel search starts one further.
    Meaningless if ``stats[1]`` is set on return: another thread stopped it.
    ``default_size`` and ``probing``: constants of the entry kernel, see :func:`_negamax`.
    """
    wdl, use_guess, guess, lower, start = query
    _, _, tparams, geo, _, col_masks, _, stats, _ = state
    if default_size and not _is_7x6(geo, tparams):
        raise InternalError(
            "the compiled 7x6 search does not match solver.settings: numba's cache of "
            "openingbook.solver.search is stale (delete it)"
        )
    width = geo[0]
    height = geo[1]
    cells = geo[2]
    n = popcount(mask)
    if n >= cells:
        return 0
    bottom = _ZERO
    board = _ZERO
    for c in range(width):
        bottom |= _ONE << np.uint64(c * (height + 1))
        board |= col_masks[c]
    possible = (mask + bottom) & board
    if (_winning_cells(cur, mask, board, height) & possible) != _ZERO:
        stats[0] += 1
        return 1 if wdl else (cells + 1 - n) // 2
    if wdl:
        if lower >= 1:
            return 1
        # the windows as run-time values: literal ones would compile more copies of
        # _negamax (and of everything it links), one per window
        zero = np.int64(0)
        r = _negamax(cur, mask, n, zero, state, default_size, probing, deep_copy)
        if stats[1] != 0:
            return 0  # stopped
        if r > 0:
            return 1
        if r < 0:
            return -1
        if lower == 0:
            return 0  # at most a draw (r == 0), and at least one
        r = _negamax(cur, mask, n, zero - 1, state, default_size, probing, deep_copy)
        return 0 if r >= 0 else -1
    lo = -((cells - n) // 2)
    hi = (cells + 1 - n) // 2
    if lower >= hi:
        return hi
    if lower > lo:
        # a proven bound (a parent's score in the book of the ply before: the score is
        # at least minus it) is the score of about half of a ply's positions, each its
        # parent's best move: one window proves "at most the bound" and ends the search
        # (``benchmarks/bench_parent_bounds.py``); else it fails high to a better ``lo``
        r = _negamax(cur, mask, n, lower, state, default_size, probing, deep_copy)
        if stats[1] != 0:
            return 0  # stopped
        if r <= lower:
            return lower
        lo = r
    guessing = 2 if use_guess else 0
    walking = not use_guess
    first = True
    while lo < hi:
        if walking:
            # no guess: "does the side to move win?" first, then one score at a
            # time away from 0 (each failed window moves the bound by as much as the
            # fail-soft result allows). Scores are mostly near 0, and windows near
            # the true score are the costly ones: walking to it costs fewer nodes
            # than bisecting towards it (measured on every benchmark set: 5-24%
            # fewer than Pons' bisection or the previous position's score as a guess)
            med = start if first else (lo if lo >= 1 else hi - 1)
            first = False
            if med < lo:
                med = lo
            if med > hi - 1:
                med = hi - 1
        else:
            med = lo + (hi - lo) // 2
            # Pons' choice: first ask about scores halfway to the bounds, which
            # are cheap to refute, before the expensive ones near 0
            half_lo = -((-lo) // 2)
            if med <= 0 and half_lo < med:
                med = half_lo
            elif med >= 0 and hi // 2 > med:
                med = hi // 2
            if guessing > 0:
                # with a guess g: prove "> g - 1", then "<= g" (two searches if right)
                g = guess - 1 if guessing == 2 else guess
                guessing -= 1
                if lo <= g < hi:
                    med = g
        r = _negamax(cur, mask, n, med, state, default_size, probing, deep_copy)
        if stats[1] != 0:
            return 0  # stopped
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


@njit(cache=True, nogil=True)
def _solve_batch(
    batch: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    wdl: bool,
    state: tuple,
    default_size: bool,
    probing: bool,
    deep_copy: bool | None,
) -> None:
    """The scores of many positions: ``batch`` = (first, masks, out, lower), the
    positions (first player's stones, masks), the scores' array and each position's
    proven lower bound, or empty (none); ``state``: the search's arrays (see
    :func:`_negamax`). A stopped search (``stats[1]``: the stop flag or the node
    limit) ends the batch: ``out`` keeps what the caller put in the positions not
    solved (a mark)."""
    # no guess: the previous score (the neighbours of a build are related) made a
    # worse first guess than walking from 0 (measured: 5% more nodes on the
    # build's positions, 16% on related 12-ply positions). The arguments of the
    # one-position kernel as run-time values of the types a single solve passes,
    # so that both use one compiled copy of it (literals would compile another)
    first, masks, out, lower = batch
    stats = state[7]
    no_guess = np.bool_(False)
    zero = np.int64(0)
    bounded = lower.shape[0] != 0
    for i in range(first.shape[0]):
        mask = masks[i]
        cur = first[i] if popcount(mask) % 2 == 0 else first[i] ^ mask
        bound = np.int64(lower[i]) if bounded else np.int64(NO_LOWER_BOUND)
        query = (wdl, no_guess, zero, bound, zero)
        score = _solve_one(cur, mask, query, state, default_size, probing, deep_copy)
        if stats[1] != 0:
            return
        out[i] = score


def _entry_kernels(default_size: bool, probing: bool, split: bool = True) -> tuple[Any, Any]:
    """The kernels the solver calls (native ones, :mod:`openingbook.solver._native`) for one
    choice of :func:`_negamax`'s copies: one position (:func:`_solve_one`) and many
    (:func:`_solve_batch`), with ``default_size`` and ``probing`` as constants.
    ``split``: the fast kernels, two copies of :func:`_search` (with the mirror code,
    and without it from ``SYMMETRY_STONES`` stones on); without it the light ones, the
    copy without the mirror code for every node (probing the book, if any), that a
    first use compiles in half the time (:mod:`openingbook.solver._firstuse`; numba-only: a light
    kernel is no native library).

    numba compiles a kernel with everything it calls, whether a run needs it or
    not, and a copy of :func:`_search` is most of the time a first run spends
    compiling: with the choice made in Python (:meth:`Solver._entry`), a 7x6 search
    without a book compiles two copies (with and without the mirror code), not
    every copy of every board and book, and a command compiles only the kernel it
    runs (``benchmarks/bench_first_use.py``). numba caches each entry kernel under
    its own name (and keys on its constants too); so does the native cache.
    """
    deep_copy = default_size if split else None  # see _negamax
    suffix = ("_7x6" if default_size else "_any_size") + ("_probing" if probing else "")
    suffix += "" if split else "_light"

    def solve_one(
        cur: np.uint64,
        mask: np.uint64,
        wdl: bool,
        use_guess: bool,
        guess: int,
        lower: int,
        start: int,
        state: tuple,
    ) -> int:
        query = (wdl, use_guess, guess, lower, start)
        return _solve_one(cur, mask, query, state, default_size, probing, deep_copy)

    def solve_batch(
        first: np.ndarray,
        masks: np.ndarray,
        out: np.ndarray,
        wdl: bool,
        lower: np.ndarray,
        state: tuple,
    ) -> None:
        batch = (first, masks, out, lower)
        _solve_batch(batch, wdl, state, default_size, probing, deep_copy)

    kernels = []
    for func, name in ((solve_one, "_solve_one"), (solve_batch, "_solve_batch")):
        func.__name__ = func.__qualname__ = name + suffix
        # openingbook/solver/_native.py: run without numba (the fast kernels)
        kernels.append(njit(cache=True, nogil=True, native=split)(func))
    return kernels[0], kernels[1]


#: the entry kernels by (7x6 copy, probing copy): (one position, many positions)
_ENTRY_KERNELS = {
    (default_size, probing): _entry_kernels(default_size, probing)
    for default_size in (True, False)
    for probing in (False, True)
}
#: the light entry kernels, the same way (solver._firstuse)
_LIGHT_KERNELS = {
    (default_size, probing): _entry_kernels(default_size, probing, split=False)
    for default_size in (True, False)
    for probing in (False, True)
}


# ------------------------------------------------------------- Python API
class FirstUse(Protocol):
    """What chooses a solver's entry kernel on a first use (:mod:`openingbook.solver._firstuse`)."""

    def choose(
        self, fast: Any, light: Any, args: tuple[Any, ...], variant: tuple[int, int, bool, bool]
    ) -> Any:
        """The kernel to call with ``args``: ``fast`` or ``light``."""

    def start_light(
        self, fast: Any, light: Any, args: tuple[Any, ...], variant: tuple[int, int, bool, bool]
    ) -> None:
        """Start compiling ``light`` if a first use will take it for such arguments."""


#: the first use's kernel choice: installed by :mod:`openingbook.solver._firstuse` when it is
#: loaded (the package loads it with the search); None: always the fast kernels
_first_use: FirstUse | None = None


def install_first_use(first_use: FirstUse | None) -> None:
    """Let ``first_use`` choose the solvers' entry kernels (None: the fast ones)."""
    global _first_use
    _first_use = first_use


def _column_order(width: int) -> list[int]:
    """Centre first, then alternately left and right: 3 2 4 1 5 0 6 for width 7."""
    return sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c))


def _check_board_size(width: int, height: int) -> None:
    """Every board that fits the 64-bit bitboard, any number of cells (see
    :mod:`openingbook.solver.scores` for the scores of boards with an odd number of cells)."""
    check_board_size(width, height)


@dataclass(frozen=True)
class SearchStats:
    """Work done by a :class:`Solver` since creation or :meth:`Solver.reset_stats`."""

    nodes: int
    positions: int
    seconds: float
    #: CPU time of the searching threads (wall time is ``seconds``)
    cpu_seconds: float = 0.0

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class Solver:
    """An exact solver with its own transposition table, kept between calls.

    ``table_log2``: entries of the main table as a power of two (8 bytes
    each; the default 2**25 is 256 MiB, touched only as it fills). The search's
    tuning values are constants of :mod:`openingbook.solver.settings`.

    ``threads``: how many threads search one position (:meth:`solve`,
    :meth:`solve_wdl`, :meth:`analyze`; ``None``: one per core). They share
    the main table (lazy SMP): each searches the same position in its own
    column order, every one profits from the bounds the others store, and the
    first to finish has the answer (exact, as any thread's: the table only
    holds proven bounds). :meth:`solve_many` uses one thread: for many
    positions, one process per core does better. A solver is not thread-safe:
    call it from one thread at a time.

    ``book``: a :class:`openingbook.solver.probe.BookProbe` of the solver's board (or None):
    the exact scores of the positions of one ply, fewer than ``SYMMETRY_STONES``
    (18) stones. Every node of the search with that many stones that the book holds
    takes its score from there instead of being searched below (as Pons' solver
    probes its opening book), so a position with fewer stones than the book's ply
    is solved in a fraction of the nodes; a position with as many or more stones
    never meets one (the search only adds stones), and the answers are the same with
    or without a book. Settable later (:attr:`book`); the table stays valid.

    >>> s = Solver(table_log2=16)
    >>> p = Position.from_moves("4455")
    >>> s.solve(p), s.solve_wdl(p)
    (18, 1)
    >>> import numpy as np
    >>> s.solve_many(np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64))
    array([18], dtype=int8)
    """

    #: the deepest ply of a book the search probes (see ``book``)
    max_book_plies = SYMMETRY_STONES - 1

    def __init__(
        self,
        table_log2: int = TABLE_LOG2,
        *,
        width: int = DEFAULT_WIDTH,
        height: int = DEFAULT_HEIGHT,
        threads: int | None = 1,
        book: BookProbe | None = None,
    ) -> None:
        _check_board_size(width, height)
        self.threads = _thread_count(threads)
        self.width = width
        self.height = height
        self.cells = width * height
        self.table = TranspositionTable(table_log2, SMALL_TABLE_LOG2, width * (height + 1))
        # _STOP and _NODE_LIMIT: 0, none
        self._geo = np.array([width, height, self.cells, 0, 0], dtype=np.int64)
        self._col_masks = np.array(
            [((1 << height) - 1) << (c * (height + 1)) for c in range(width)], dtype=np.uint64
        )
        self._bottom = bottom_mask(width, height)
        self._board = board_mask(width, height)
        #: per searching thread: (order, small table, stacks, stats); grown on demand
        self._workers: list[_Worker] = [_Worker.main(self)]
        self._positions = 0
        self._seconds = 0.0
        self._cpu_seconds = 0.0
        #: set by the timer of a search with a time limit (see :meth:`solve`)
        self._timed_out = False
        self._book: BookProbe | None = None
        self._book_array = no_probe()
        #: batch or not -> (book array, big table, the native kernel bound to them):
        #: see _searcher
        self._bound: dict[bool, tuple[np.ndarray, np.ndarray, Any]] = {}
        self.book = book

    @property
    def book(self) -> BookProbe | None:
        """The book the search probes (:class:`openingbook.solver.probe.BookProbe`), or None.

        Raises :class:`~openingbook.solver.errors.InvalidArgument` when set to a book of another
        board or of ``SYMMETRY_STONES`` or more stones."""
        return self._book

    @book.setter
    def book(self, book: BookProbe | None) -> None:
        if book is None:
            self._book, self._book_array = None, no_probe()
            return
        if not isinstance(book, BookProbe):
            raise InvalidArgument(f"book must be a BookProbe or None, got {type(book).__name__}")
        if (book.width, book.height) != (self.width, self.height):
            raise InvalidArgument(
                f"a {book.width}x{book.height} book, "
                f"the solver's board is {self.width}x{self.height}"
            )
        if book.plies > self.max_book_plies:
            # only the copy of the search with the mirror code (the nodes below
            # SYMMETRY_STONES stones) probes: a deeper book would never be read
            raise InvalidArgument(
                f"the search probes books of fewer than {SYMMETRY_STONES} stones, not {book.plies}"
            )
        self._book, self._book_array = book, book.array

    # ------------------------------------------------------------ queries
    def solve(
        self,
        pos: Position | str,
        guess: int | None = None,
        threads: int | None = None,
        time_limit: float | None = None,
    ) -> int:
        """Exact score of ``pos`` for the side to move (Pons convention).

        ``guess``: a likely score (e.g. one read from a book); when right, the
        search needs only two null-window passes. Without one, the search asks
        "win or not?" and then walks one score at a time away from 0, which
        costs fewer nodes than a merely related position's score as the guess
        (measured). The result is exact whatever the guess. ``threads``: for
        this call instead of the solver's own. ``time_limit`` (seconds): stop the
        search then and raise :class:`SearchTimeout` (the table keeps what was
        proven, so that solving the position again resumes the work). Raises
        ``ValueError`` if the position is illegal, already won, or of another
        board size.

        >>> Solver(table_log2=16).solve("", time_limit=0.01)
        Traceback (most recent call last):
        ...
        openingbook.solver.errors.SearchTimeout: the search was stopped by its time limit of 0.01 s
        """
        cur, mask = self._check(pos)
        return self._run(cur, mask, wdl=False, guess=guess, threads=threads, time_limit=time_limit)

    def solve_wdl(self, pos: Position | str, threads: int | None = None) -> int:
        """+1 win, 0 draw, -1 loss for the side to move (at most two null-window searches)."""
        cur, mask = self._check(pos)
        return self._run(cur, mask, wdl=True, threads=threads)

    def analyze(self, pos: Position | str) -> list[int | None]:
        """Score of playing each column (0-based index), ``None`` for full columns.

        The position's own score is the maximum of the list.

        >>> Solver(table_log2=16).analyze("4455")
        [-4, -3, 18, 2, 2, 18, -3]
        """
        pos = self._position(pos)
        self._check(pos)
        out: list[int | None] = []
        win_now = (self.cells + 1 - pos.stone_count) // 2
        for col in range(self.width):
            if not pos.can_play(col):
                out.append(None)
            elif pos.is_winning_move(col):
                out.append(win_now)
            else:
                child = pos.play(col)
                out.append(-self._run(child.current, child.mask, wdl=False))
        return out

    def solve_many(
        self,
        first: np.ndarray,
        mask: np.ndarray,
        wdl: bool = False,
        lower: np.ndarray | None = None,
        time_limit: float | None = None,
    ) -> np.ndarray:
        """Scores (or -1/0/+1 with ``wdl``) of many positions, keeping the table.

        ``first``/``mask``: ``uint64`` arrays of the first player's stones and
        the occupied cells (Pons layout). ``lower``: a proven lower bound of each
        position's score (:data:`openingbook.solver.NO_LOWER_BOUND` where none), such as minus
        a parent's score: it saves the windows below it, and a bound that is the
        score costs one window. The answer is exact only if every bound is true.
        ``time_limit`` (seconds, for the whole batch): stop then and raise
        :class:`SearchTimeout` (:meth:`solve_until` answers the positions solved by then).
        Raises ``ValueError`` naming the first illegal or already-won position, or
        a bound above the position's highest score. Returns ``int8``; full boards
        score 0.

        >>> s = Solver(table_log2=16)
        >>> p = Position.from_moves("4455")
        >>> first, mask = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
        >>> bound = np.array([15], np.int8)  # proven: at least 15
        >>> s.solve_many(first, mask).tolist(), s.solve_many(first, mask, lower=bound).tolist()
        ([18], [18])
        """
        out = self.solve_until(first, mask, wdl, lower, time_limit)
        if time_limit is not None and (out == UNSOLVED).any():
            raise SearchTimeout(f"the search was stopped by its time limit of {time_limit} s")
        return out

    def solve_until(
        self,
        first: np.ndarray,
        mask: np.ndarray,
        wdl: bool = False,
        lower: np.ndarray | None = None,
        time_limit: float | None = None,
        *,
        check: bool = True,
    ) -> np.ndarray:
        """:meth:`solve_many`, but a position not solved within ``time_limit`` seconds
        (for the whole batch, in order) is :data:`UNSOLVED` (-128, no score) in the
        answer instead of raising. ``check=False``: the positions are known to be legal
        and not won (a caller made them so); they are not checked again (for a handful
        of positions, the check costs more than solving them).

        >>> s = Solver(table_log2=16)
        >>> p = Position.from_moves("4455")
        >>> first, mask = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
        >>> s.solve_until(first, mask, time_limit=10).tolist()
        [18]
        """
        first = np.ascontiguousarray(first, dtype=np.uint64)
        mask = np.ascontiguousarray(mask, dtype=np.uint64)
        if first.shape != mask.shape or first.ndim != 1:
            raise InvalidArgument("first and mask must be 1-d arrays of the same length")
        if check:
            self._check_arrays(first, mask)
        bounds = self._lower_bounds(lower, mask)
        n = first.shape[0]
        # the batch kernel leaves a position it did not solve (stopped) as it was: marked
        out = np.full(n, UNSOLVED, dtype=np.int8)
        start = time.perf_counter()
        stack = contextlib.ExitStack()
        bound = self._searcher(batch=True)
        if bound is None:
            kernel_args = (first, mask, out, wdl, bounds, *self._kernel_args())
            kernel = self._entry(kernel_args, batch=True)
        worker = self._workers[0]
        timer = self._start_timer(time_limit, stack)

        def search(done: int) -> None:
            cpu = time.thread_time()
            head = (first[done:], mask[done:], out[done:], wdl, bounds[done:] if len(bounds)
                    else bounds)  # fmt: skip
            if bound is not None:
                bound(*head)
            else:
                kernel(*head, *kernel_args[5:])
            self._cpu_seconds += time.thread_time() - cpu

        try:
            done = 0
            if bound is not None:
                # first in the calling thread (see _run_here); the rest, if the node limit
                # stopped it, where a signal stops it
                _, stopped = self._node_limited(lambda: search(0))
                done = int(np.argmax(out == UNSOLVED)) if stopped else n
            if done < n and not self._timed_out:
                run_interruptibly(lambda: search(done), lambda: self._interrupt(stack))
        finally:
            self._stop_timer(timer)
            stack.close()
            self._geo[_STOP] = 0
            worker.stats[1] = 0
            self._seconds += time.perf_counter() - start
        self._positions += int(np.count_nonzero(out != UNSOLVED))
        return out

    def warm_up(self, *, solve: bool = True, solve_many: bool = True, wait: bool = True) -> float:
        """Load (or compile) the search kernels now; returns the seconds it took.

        ``solve``: the kernel of :meth:`solve`, :meth:`solve_wdl` and :meth:`analyze`;
        ``solve_many``: that of :meth:`solve_many`; each for this solver's board (7x6
        or any other) and book (probed or not) only. numba compiles a kernel once
        (its cache keeps it; the native cache, :mod:`openingbook.solver._native`, loads it later
        without numba); the first solve in a process otherwise pays the loading or
        the compiling. Leaves the table and the statistics as they were.
        ``wait=False``: on a first use, start compiling the light kernel in a child
        process and return at once (:func:`openingbook.solver._firstuse.start_light`); the next
        search (or warm-up) waits for it. Otherwise it does nothing.
        """
        start = time.perf_counter()
        if solve or solve_many:
            # a copy of this solver (board and book) with a small table, on a position
            # of its board a few cells from the end: the same kernels, in microseconds
            tiny = Solver(tiny_table_log2(self.width, self.height), width=self.width,
                          height=self.height)  # fmt: skip
            tiny.book = self.book
            pos = _warm_up_position(self.width, self.height)
            if not wait:
                for batch in [False] * solve + [True] * solve_many:
                    if _first_use is not None:
                        args, variant = tiny._warm_up_args(pos, batch), tiny._variant(batch)
                        _first_use.start_light(*tiny._entry_choice(batch), args, variant)
                return time.perf_counter() - start
            if solve:
                tiny.solve(pos)
            if solve_many:
                tiny.solve_many(
                    np.array([pos.first_stones], np.uint64), np.array([pos.mask], np.uint64), True
                )
        return time.perf_counter() - start

    def _warm_up_args(self, pos: Position, batch: bool) -> tuple:
        """The entry kernel's arguments of a warm-up of ``pos`` (as :meth:`solve` and
        :meth:`solve_many` pass them): what its compiled code is chosen by."""
        if batch:
            first = np.array([pos.first_stones], np.uint64)
            mask = np.array([pos.mask], np.uint64)
            no_bounds = np.zeros(0, np.int8)
            return (first, mask, np.zeros(1, np.int8), True, no_bounds, *self._kernel_args())
        return (np.uint64(pos.first_stones), np.uint64(pos.mask), False, False, 0,
                NO_LOWER_BOUND, 0, *self._kernel_args())  # fmt: skip

    # ---------------------------------------------------------- the table
    def reset(self) -> None:
        """Clear the transposition table (statistics are kept)."""
        self.table.clear()

    def reset_stats(self) -> None:
        for worker in self._workers:
            worker.stats[:] = 0
        self._positions = 0
        self._seconds = 0.0
        self._cpu_seconds = 0.0

    @property
    def nodes(self) -> int:
        """Search nodes visited since creation or :meth:`reset_stats` (all threads)."""
        return sum(int(worker.stats[0]) for worker in self._workers)

    @property
    def book_hits(self) -> int:
        """Nodes answered by the :attr:`book` since creation or :meth:`reset_stats`."""
        return sum(int(worker.stats[3]) for worker in self._workers)

    @property
    def stats(self) -> SearchStats:
        return SearchStats(self.nodes, self._positions, self._seconds, self._cpu_seconds)

    def __repr__(self) -> str:
        return f"Solver(table_log2={self.table.log2}, width={self.width}, height={self.height})"

    # ----------------------------------------------------------- helpers
    def _entry(self, args: tuple, batch: bool = False) -> Any:
        """The kernel that searches one position (or, with ``batch``, many) for this
        solver and these arguments: the copies of the search its board and book need
        (:func:`_entry_kernels`); on a first use the light kernel, while the fast one
        compiles in the background (:mod:`openingbook.solver._firstuse`)."""
        fast, light = self._entry_choice(batch)
        if _first_use is None:
            return fast
        return _first_use.choose(fast, light, args, self._variant(batch))

    def _entry_choice(self, batch: bool) -> tuple[Any, Any]:
        """(fast, light) entry kernels of this solver's board and book."""
        default_size = (
            (self.width, self.height) == (DEFAULT_WIDTH, DEFAULT_HEIGHT)
            and int(self.table.params[1]) == SMALL_TABLE_LOG2
            and int(self.table.params[2]) == _KEY_BITS_7X6
        )
        i = 1 if batch else 0
        probing = self._probing
        return _ENTRY_KERNELS[default_size, probing][i], _LIGHT_KERNELS[default_size, probing][i]

    def _variant(self, batch: bool) -> tuple[int, int, bool, bool]:
        """What a background process warms up for this solver (solver._firstuse)."""
        return (self.width, self.height, self._probing, batch)

    @property
    def _probing(self) -> bool:
        """Does the search probe a book (one with positions, as _book_score reads it)?"""
        return int(self._book_array[1]) != 0

    def _kernel_args(self, worker: int = 0) -> tuple:
        """The entry kernels' last argument, the search's arrays as one tuple (see
        :func:`_negamax`): the solver's and those of the thread ``worker``."""
        w = self._workers[worker]
        state = (
            self.table.big,
            w.small,
            self.table.params,
            self._geo,
            w.order,
            self._col_masks,
            w.stack,
            w.stats,
            self._book_array,
        )
        return (state,)

    def _run(
        self,
        cur: int,
        mask: int,
        wdl: bool,
        guess: int | None = None,
        threads: int | None = None,
        time_limit: float | None = None,
    ) -> int:
        threads = self.threads if threads is None else _thread_count(threads)
        if time_limit is None:
            # first alone in the calling thread: a position solved in a few nodes pays no
            # hand-over, nor helper threads (a longer search goes on with them)
            searcher = self._searcher()
            score = None if searcher is None else self._run_here(searcher, cur, mask, wdl, guess)
            if score is not None:
                return score
        start = time.perf_counter()
        args = (np.uint64(cur), np.uint64(mask), wdl, guess is not None, guess or 0, NO_LOWER_BOUND)
        stack = contextlib.ExitStack()
        timer = self._start_timer(time_limit, stack)
        try:

            def search() -> int | None:
                if threads > 1:
                    return self._run_parallel(args, threads)
                cpu = time.thread_time()
                kernel_args = (*args, 0, *self._kernel_args())
                found = int(self._entry(kernel_args)(*kernel_args))
                self._cpu_seconds += time.thread_time() - cpu
                # stopped by the time limit (an interrupt raises instead)
                return None if self._workers[0].stats[1] != 0 else found

            score = run_interruptibly(search, lambda: self._interrupt(stack))
        finally:
            self._stop_timer(timer)
            stack.close()
            self._geo[_STOP] = 0  # after an interrupt too: the next search must run
            for worker in self._workers:
                worker.stats[1] = 0  # a stopped flag left set would stop the next search
            self._seconds += time.perf_counter() - start
        if score is None:
            raise SearchTimeout(f"the search was stopped by its time limit of {time_limit} s")
        self._positions += 1
        return score

    def _run_here(
        self, searcher: Any, cur: int, mask: int, wdl: bool, guess: int | None
    ) -> int | None:
        """The search in the calling thread, up to :data:`CALLING_THREAD_NODES` nodes
        (a signal waits for it: tens of milliseconds); None when it stopped there (the table
        keeps what it proved, for the search that goes on). ``searcher``: :meth:`_searcher`."""
        start = time.perf_counter()
        cpu = time.thread_time()
        args = (cur, mask, wdl, guess is not None, guess or 0, NO_LOWER_BOUND, 0)
        try:
            found, stopped = self._node_limited(lambda: searcher(*args))
        finally:
            self._cpu_seconds += time.thread_time() - cpu
            self._seconds += time.perf_counter() - start
        if stopped:
            return None
        self._positions += 1
        return found

    def _node_limited(self, search: Any) -> tuple[Any, bool]:
        """``search()`` (a call of a kernel of the main thread) run in the calling thread
        with the node limit at :data:`CALLING_THREAD_NODES` more than its nodes so far:
        its result, and whether the limit (or the stop flag) stopped it (the thread's
        stopped flag cleared again)."""
        worker = self._workers[0]
        self._geo[_NODE_LIMIT] = worker.stats[0] + CALLING_THREAD_NODES
        try:
            result = search()
        finally:
            self._geo[_NODE_LIMIT] = 0
            stopped = worker.stats[1] != 0
            worker.stats[1] = 0
        return result, stopped

    def _searcher(self, batch: bool = False) -> Any:
        """The main thread's kernel for one position (or, with ``batch``, many) as a
        function of its leading arguments, those :meth:`_run` and :meth:`solve_until`
        vary ((cur, mask, wdl, use_guess, guess, lower, start) as Python ints and
        bools; (first, mask, out, wdl, lower)): the fast kernel's native library bound
        to the solver's arrays once (:func:`openingbook.solver._native.bind`; a call then costs
        microseconds). None without one (a first use, the native cache off): then the
        kernel is chosen call by call (:meth:`_entry`), and every search goes where a
        signal stops it, numba compiling included."""
        bound = self._bound.get(batch)
        if bound is not None and bound[0] is self._book_array and bound[1] is self.table.big:
            return bound[2]
        fixed = self._kernel_args()
        if batch:
            empty = np.zeros(0, np.uint64)
            head: tuple = (empty, empty, np.zeros(0, np.int8), False, np.zeros(0, np.int8))
        else:
            head = (np.uint64(0), np.uint64(0), False, False, 0, NO_LOWER_BOUND, 0)
        searcher = _native.bind(self._entry_choice(batch)[0], (*head, *fixed), len(fixed))
        if searcher is not None:
            self._bound[batch] = (self._book_array, self.table.big, searcher)
        return searcher

    def _start_timer(
        self, time_limit: float | None, stack: contextlib.ExitStack
    ) -> threading.Timer | None:
        """The timer of a search's ``time_limit`` (None for none), started."""
        if time_limit is None:
            return None
        if not time_limit > 0:
            raise InvalidArgument("must be positive", argument="time_limit", value=time_limit)
        # a stopped search is no check of a new native library (solver._native)
        stack.enter_context(_native.timing_dependent())
        # the kernels release the GIL: the timer sets the stop flag the search polls
        # (the same flag that ends the other threads of a parallel search)
        self._timed_out = False
        timer = threading.Timer(time_limit, self._time_up)
        timer.start()
        return timer

    def _stop_timer(self, timer: threading.Timer | None) -> None:
        if timer is not None:
            timer.cancel()
            timer.join()
            self._timed_out = False

    def _time_up(self) -> None:
        self._timed_out = True
        self._geo[_STOP] = 1

    def _interrupt(self, stack: contextlib.ExitStack) -> None:
        """A signal's handler raised while the search ran (:func:`run_interruptibly`):
        stop it. Until the caller closes ``stack`` (the search has returned by then), no
        run of it builds a native library: a stopped search is no check of one."""
        stack.enter_context(_native.timing_dependent())
        self._geo[_STOP] = 1

    def _run_parallel(self, args: tuple, threads: int) -> int | None:
        """Lazy SMP: ``threads`` searches of the same position, the first to finish answers
        (None when a time limit stopped them all)."""
        while len(self._workers) < threads:
            self._workers.append(_Worker.helper(self, len(self._workers)))
        results: list[int | None] = [None] * threads
        cpu = [0.0] * threads
        kernel = self._entry((*args, 0, *self._kernel_args()))

        def search(i: int) -> None:
            worker = self._workers[i]
            worker.stats[1] = 0
            # the helpers start their walk one window above 0, the main thread at 0:
            # both windows are what a small win needs, searched at once
            start = SPLIT_START if i % 2 == 1 else 0
            cpu_start = time.thread_time()
            score = int(kernel(*args, start, *self._kernel_args(i)))  # releases the GIL
            cpu[i] = time.thread_time() - cpu_start
            if worker.stats[1] == 0:  # finished, not stopped
                results[i] = score
                self._geo[_STOP] = 1  # the others see it at their next node

        # the stop flag is not cleared here: it is clear between searches, and a time
        # limit or an interrupt may have set it already
        helpers = [threading.Thread(target=search, args=(i,)) for i in range(1, threads)]
        try:
            for helper in helpers:
                helper.start()
            search(0)
        finally:
            self._geo[_STOP] = 1
            for helper in helpers:
                # Ctrl-C may come before every helper started: join() of a thread not
                # started raises, which would replace the KeyboardInterrupt
                if helper.is_alive():
                    helper.join()
            self._geo[_STOP] = 1 if self._timed_out else 0
            for worker in self._workers:
                worker.stats[1] = 0  # a stopped flag left set would stop the next search
            self._cpu_seconds += sum(cpu)
        answers = {r for r in results if r is not None}
        if not answers and self._timed_out:
            return None
        if len(answers) != 1:  # never: every finished search is exact
            raise InternalError(f"parallel search threads disagree: {sorted(answers)}")
        return answers.pop()

    def _position(self, pos: Position | str) -> Position:
        if isinstance(pos, str):
            return Position.from_moves(pos, self.width, self.height)
        if not isinstance(pos, Position):
            raise TypeError(f"expected a Position or a move string, got {type(pos).__name__}")
        return pos

    def _check(self, pos: Position | str) -> tuple[int, int]:
        pos = self._position(pos)
        if (pos.width, pos.height) != (self.width, self.height):
            raise InvalidArgument(
                f"position is {pos.width}x{pos.height}, solver is {self.width}x{self.height}"
            )
        problems = pos.problems()
        if problems:
            raise InvalidArgument("cannot solve: " + "; ".join(problems))
        return pos.current, pos.mask

    def _lower_bounds(self, lower: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """:meth:`solve_many`'s ``lower`` as the kernel takes it: ``int8``, empty for none;
        a bound above the highest score of its position is refused."""
        if lower is None:
            return np.zeros(0, np.int8)
        bounds = np.asarray(lower)
        if bounds.shape != mask.shape or not np.issubdtype(bounds.dtype, np.integer):
            raise InvalidArgument("lower must be an integer array of the positions' length")
        highest = (self.width * self.height + 1 - np.bitwise_count(mask).astype(np.int64)) // 2
        wide = bounds.astype(np.int64)
        bad = (wide > highest) | (wide < NO_LOWER_BOUND)
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidArgument(
                f"position {i}: a lower bound of {int(bounds[i])} is no score of a position "
                f"of {int(np.bitwise_count(mask[i]))} stones"
            )
        return np.ascontiguousarray(bounds, dtype=np.int8)

    def _check_arrays(self, first: np.ndarray, mask: np.ndarray) -> None:
        from openingbook.solver.bitboards import has_four_bits

        board = np.uint64(self._board)
        bottom = np.uint64(self._bottom)
        second = first ^ mask
        n = np.bitwise_count(mask).astype(np.int64)
        bad = (
            ((mask & ~board) != 0)
            | ((first & ~mask) != 0)
            | (((mask + bottom) & mask) != 0)  # a column that is not a run from the bottom
            | (np.bitwise_count(first).astype(np.int64) != (n + 1) // 2)
            | has_four_bits(first, self.height)
            | has_four_bits(second, self.height)
        )
        if bad.any():
            i = int(np.argmax(bad))
            try:
                Position.from_bitboards(int(first[i]), int(mask[i]), self.width, self.height)
                reason = "illegal position"
            except ValueError as exc:
                reason = str(exc)
            raise InvalidArgument(f"position {i} cannot be solved: {reason}")


def _warm_up_position(width: int, height: int) -> Position:
    """A legal position of the board a few cells from its end that nobody has won, for
    :meth:`Solver.warm_up`: from the empty board, each move the first column (centre
    first) that completes no four and, when there is one, leaves the opponent none.

    >>> _warm_up_position(7, 6).stone_count, _warm_up_position(4, 4).stone_count
    (34, 8)
    """
    pos = Position(width=width, height=height)
    order = _column_order(width)
    while pos.stone_count < width * height - 8:
        playable = [c for c in order if pos.can_play(c) and not pos.is_winning_move(c)]
        quiet = [c for c in playable if not pos.play(c).can_win_next()]
        if not playable:
            break
        pos = pos.play((quiet or playable)[0])
    return pos


def _thread_count(threads: int | None) -> int:
    """``threads`` checked, ``None`` meaning one per core."""
    if threads is None:
        return os.cpu_count() or 1
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise InvalidArgument(f"threads must be a positive integer, got {threads!r}")
    return threads


@dataclass
class _Worker:
    """What one searching thread owns: its column order (the helpers' differ, so
    that they search other parts of the tree first), its stack, its statistics
    (nodes, stopped, nodes of the mirror-free kernel, nodes answered by the book)
    and its small table. The
    small table is per thread: it holds the deepest positions, probed at nearly
    every node, and sharing it would bounce its cache lines between the cores
    for results that are cheap to recompute; the big table is shared."""

    order: np.ndarray
    small: np.ndarray
    stack: np.ndarray
    stats: np.ndarray

    @classmethod
    def main(cls, solver: Solver) -> _Worker:
        return cls._new(solver, _column_order(solver.width), solver.table.small)

    @classmethod
    def helper(cls, solver: Solver, index: int) -> _Worker:
        order = _column_order(solver.width)
        if index % 2 == 1:  # centre first, ties to the right
            order = sorted(order, key=lambda c: (abs(2 * c - (solver.width - 1)), -c))
        if index > 1:  # more helpers: swap neighbours of the order, a different pair each
            i = (index // 2 - 1) % (len(order) - 1)
            order[i], order[i + 1] = order[i + 1], order[i]
        return cls._new(solver, order, np.zeros_like(solver.table.small))

    @classmethod
    def _new(cls, solver: Solver, order: list[int], small: np.ndarray) -> _Worker:
        depth = solver.cells + 2
        return cls(
            order=np.array(order, dtype=np.int64),
            small=small,
            stack=np.zeros(depth * _stack_row(solver.width), dtype=np.uint64),
            stats=np.zeros(4, dtype=np.int64),
        )


# ------------------------------------------------------ module-level API
_default: Solver | None = None


def default_solver() -> Solver:
    """The process-wide 7x6 solver used by :func:`solve`, created on first use."""
    global _default
    if _default is None:
        _default = Solver()
    return _default


def solve(pos: Position | str, threads: int | None = 1) -> int:
    """Exact Pons score of a 7x6 position (or 1-based move string) for the side to move.

    ``threads``: searching threads (``None``: one per core), see :class:`Solver`.

    >>> solve("2252576253462244111563365343671351441")
    -1
    """
    return default_solver().solve(pos, threads=threads)


def solve_wdl(pos: Position | str, threads: int | None = 1) -> int:
    """+1 / 0 / -1: the side to move wins, draws or loses."""
    return default_solver().solve_wdl(pos, threads=threads)


def analyze(pos: Position | str) -> list[int | None]:
    """Score of every column (``None`` if full), with the default solver."""
    return default_solver().analyze(pos)
