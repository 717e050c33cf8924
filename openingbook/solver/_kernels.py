"""The numba kernels of :mod:`openingbook.solver.bitboards` and :mod:`openingbook.solver.enumerate`.

They live apart so that importing those modules (as the book readers do) does
not import numba: :mod:`openingbook.solver.enumerate` loads this module on first use,
:mod:`openingbook.solver.bitboards` only in a process that has loaded numba already. The helpers for
one position are defined here, not imported: numba's on-disk cache checks only
the timestamp of a kernel's own file, so a kernel that inlined a function from
another module would keep a stale compiled copy after that module changed.

The kernels over arrays release the GIL (``nogil``): a layer of a 14-ply enumeration
takes seconds, during which the command line's main thread must be able to act on
Ctrl-C (:mod:`openingbook.solver.interrupt`).
"""

from __future__ import annotations

import numpy as np

from openingbook.solver._jit import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing multiplier
_HIGH = np.uint64(32)
#: The longest step between two cells of a four that fits 64 bits (3 steps <= 63), as
#: solver.search's _MAX_STEP: a longer horizontal or diagonal step (boards at most 3
#: wide and 20 or more high) holds no four and is skipped, because compiled code
#: takes a shift count modulo 64 instead of shifting everything out.
_MAX_STEP = 21


@njit(cache=True, inline="always")
def _nb_has_four(s: np.uint64, height: int) -> bool:
    for shift in (1, height + 1, height, height + 2):
        if shift > _MAX_STEP:
            continue
        d = np.uint64(shift)
        m = s & (s >> d)
        if m & (m >> (d + d)) != np.uint64(0):
            return True
    return False


@njit(cache=True, inline="always")
def _nb_mirror(bits: np.uint64, width: int, height: int) -> np.uint64:
    h1 = height + 1
    col_bits = np.uint64((1 << h1) - 1)
    out = np.uint64(0)
    for col in range(width):
        out |= ((bits >> np.uint64(col * h1)) & col_bits) << np.uint64((width - 1 - col) * h1)
    return out


@njit(cache=True, inline="always")
def _nb_winning_cells(s: np.uint64, mask: np.uint64, board: np.uint64, height: int) -> np.uint64:
    r = (s << np.uint64(1)) & (s << np.uint64(2)) & (s << np.uint64(3))
    for shift in (height + 1, height, height + 2):
        if shift > _MAX_STEP:
            continue
        d1 = np.uint64(shift)
        d2 = np.uint64(2 * shift)
        d3 = np.uint64(3 * shift)
        p = (s << d1) & (s << d2)
        r |= p & (s << d3)
        r |= p & (s >> d1)
        p = (s >> d1) & (s >> d2)
        r |= p & (s << d1)
        r |= p & (s >> d3)
    return r & (board ^ mask)


@njit(cache=True, inline="always")
def _nb_part_of(key: np.uint64, parts: int) -> int:
    """The part (1..``parts``) of a canonical key: the high 32 bits of ``key x golden``
    (mod 2**64) scaled to ``parts`` (multiply-shift). Fixed forever: books of parts
    store it implicitly (see :mod:`openingbook.solver.enumerate`)."""
    high = (key * _GOLDEN) >> _HIGH
    return int((high * np.uint64(parts)) >> _HIGH) + 1


# ------------------------------------------- solver.bitboards, many positions
@njit(cache=True, nogil=True)
def has_four_many(bits, height):
    out = np.empty(bits.size, dtype=np.bool_)
    for i in range(bits.size):
        out[i] = _nb_has_four(bits[i], height)
    return out


@njit(cache=True, nogil=True)
def can_win_next_many(first, mask, width, height):
    h1 = height + 1
    bottom = np.uint64(0)
    for col in range(width):
        bottom |= np.uint64(1) << np.uint64(col * h1)
    board = bottom * np.uint64((1 << height) - 1)
    out = np.empty(first.size, dtype=np.bool_)
    for i in range(first.size):
        m = mask[i]
        # the side to move owns `first` when the stone count is even
        stones = 0
        rest = m
        while rest != np.uint64(0):
            rest &= rest - np.uint64(1)
            stones += 1
        current = first[i] if stones % 2 == 0 else first[i] ^ m
        playable = (m + bottom) & board
        out[i] = _nb_winning_cells(current, m, board, height) & playable != np.uint64(0)
    return out


@njit(cache=True, nogil=True)
def mirror_many(bits, width, height):
    out = np.empty(bits.size, dtype=np.uint64)
    for i in range(bits.size):
        out[i] = _nb_mirror(bits[i], width, height)
    return out


# --------------------------------------------------------- solver.enumerate
@njit(cache=True, inline="always")
def _nb_bottom(width: int, height: int) -> np.uint64:
    bottom = np.uint64(0)
    for col in range(width):
        bottom |= np.uint64(1) << np.uint64(col * (height + 1))
    return bottom


@njit(cache=True, inline="always")
def _nb_child(mover, m, col, width, height, bottom, canonical):
    """``mover`` (the side to move's stones) plays ``col`` on ``m``: ``(key, four)``, the
    child's Pons key (the smaller of its mirror pair with ``canonical``; 0 when the column
    is full) and whether the mover completes four."""
    col_bottom = np.uint64(1) << np.uint64(col * (height + 1))
    if m & (col_bottom << np.uint64(height - 1)) != np.uint64(0):
        return np.uint64(0), False
    new_mask = m | (m + col_bottom)
    new_mover = mover | (new_mask ^ m)
    key = (new_mover ^ new_mask) + new_mask + bottom
    if canonical:
        mirrored = _nb_mirror(key, width, height)
        if mirrored < key:
            key = mirrored
    return key, _nb_has_four(new_mover, height)


@njit(cache=True, nogil=True)
def child_keys(first, mask, stones, width, height, canonical):
    """Pons key of every child ``parent * width + col`` (mirrored to the smaller
    key with ``canonical``); 0 where the column is full or the mover completes
    four (the game is over: not continued, not counted)."""
    n = first.size
    bottom = _nb_bottom(width, height)
    first_moves = stones % 2 == 0
    keys = np.zeros(n * width, dtype=np.uint64)
    for i in range(n):
        mover = first[i] if first_moves else first[i] ^ mask[i]
        for col in range(width):
            key, four = _nb_child(mover, mask[i], col, width, height, bottom, canonical)
            if not four:
                keys[i * width + col] = key
    return keys


@njit(cache=True, nogil=True)
def part_of_many(keys, parts):
    out = np.empty(keys.size, dtype=np.int32)
    for i in range(keys.size):
        out[i] = _nb_part_of(keys[i], parts)
    return out


@njit(cache=True, nogil=True)
def part_child_keys(first, mask, stones, width, height, part, parts, finished):
    """The canonical key and index ``parent * width + col`` of every child in part
    ``part`` of ``parts`` (children as :func:`child_keys` with ``canonical``),
    in index order. With ``finished``, the other children instead: those in which
    the mover completes four (the finished games)."""
    bottom = _nb_bottom(width, height)
    first_moves = stones % 2 == 0
    size = 1024
    keys = np.empty(size, dtype=np.uint64)
    index = np.empty(size, dtype=np.int64)
    j = 0
    for i in range(first.size):
        mover = first[i] if first_moves else first[i] ^ mask[i]
        for col in range(width):
            key, four = _nb_child(mover, mask[i], col, width, height, bottom, True)
            if key == np.uint64(0) or four != finished or _nb_part_of(key, parts) != part:
                continue
            if j == size:  # grow by doubling: one pass, no count pass
                size *= 2
                grown_keys = np.empty(size, dtype=np.uint64)
                grown_index = np.empty(size, dtype=np.int64)
                grown_keys[:j] = keys[:j]
                grown_index[:j] = index[:j]
                keys, index = grown_keys, grown_index
            keys[j] = key
            index[j] = i * width + col
            j += 1
    return keys[:j].copy(), index[:j].copy()


@njit(cache=True, nogil=True)
def first_flags(keys, bucket_bits):
    """True at the first occurrence of each distinct nonzero key.

    Cache-friendly: the keys' indices are first scattered into 2**bucket_bits buckets
    by their hash (sequential streams), then each bucket is deduplicated with a
    small hash table that stays in cache, reading its keys in ascending order. Memory
    beyond the flags: 4 bytes a key (its index), the peak of a layer's enumeration
    (an index and a copy of each key took 16).
    """
    n = keys.size  # fewer than 2**32 (enumerate._bucket_bits refuses more)
    zero = np.uint64(0)
    nb = 1 << bucket_bits
    bshift = np.uint64(64 - bucket_bits)
    counts = np.zeros(nb + 1, dtype=np.int64)
    for i in range(n):
        k = keys[i]
        if k != zero:
            counts[((k * _GOLDEN) >> bshift) + np.uint64(1)] += 1
    for b in range(nb):
        counts[b + 1] += counts[b]
    fill = counts[:-1].copy()
    total = counts[nb]
    part_idx = np.empty(total, dtype=np.uint32)
    for i in range(n):
        k = keys[i]
        if k != zero:
            b = (k * _GOLDEN) >> bshift
            j = fill[b]
            part_idx[j] = i
            fill[b] = j + 1
    flags = np.zeros(n, dtype=np.bool_)
    largest = 0
    for b in range(nb):
        largest = max(largest, counts[b + 1] - counts[b])
    tbits = 4
    while (1 << tbits) < 2 * largest:
        tbits += 1
    table = np.zeros(1 << tbits, dtype=np.uint64)
    for b in range(nb):
        lo = counts[b]
        hi = counts[b + 1]
        size = 4
        tb = 2
        while size < 2 * (hi - lo):
            size <<= 1
            tb += 1
        slot_mask = np.uint64(size - 1)
        for s in range(size):
            table[s] = zero
        # slots from the hash bits below the bucket bits
        tshift = np.uint64(64 - bucket_bits - tb)
        for j in range(lo, hi):
            k = keys[part_idx[j]]
            slot = ((k * _GOLDEN) >> tshift) & slot_mask
            found = False
            while table[slot] != zero:
                if table[slot] == k:
                    found = True
                    break
                slot = (slot + np.uint64(1)) & slot_mask
            if not found:
                table[slot] = k
                flags[part_idx[j]] = True
    return flags


@njit(cache=True, nogil=True)
def gather_children(first, mask, stones, width, height, canonical, flags, count):
    """The ``count`` children flagged in ``flags`` (index ``parent * width + col``),
    in index order: their bitboards (mirrored like their key with ``canonical``),
    parent index, column played on the parent as stored, and whether mirrored."""
    h1 = height + 1
    first_moves = stones % 2 == 0
    out_first = np.empty(count, dtype=np.uint64)
    out_mask = np.empty(count, dtype=np.uint64)
    out_parent = np.empty(count, dtype=np.int32)
    out_col = np.empty(count, dtype=np.uint8)
    out_flip = np.zeros(count, dtype=np.bool_)
    zero = np.uint64(0)
    bottom = zero
    for col in range(width):
        bottom |= np.uint64(1) << np.uint64(col * h1)
    j = 0
    for c in range(flags.size):
        if not flags[c]:
            continue
        i = c // width
        col = c - i * width
        f = first[i]
        m = mask[i]
        new_mask = m | (m + (np.uint64(1) << np.uint64(col * h1)))
        stone = new_mask ^ m
        new_first = f | stone if first_moves else f
        if canonical:
            mover = (f if first_moves else f ^ m) | stone
            key = (mover ^ new_mask) + new_mask + bottom
            if _nb_mirror(key, width, height) < key:
                out_flip[j] = True
                new_first = _nb_mirror(new_first, width, height)
                new_mask = _nb_mirror(new_mask, width, height)
        out_first[j] = new_first
        out_mask[j] = new_mask
        out_parent[j] = i
        out_col[j] = col
        j += 1
    return out_first, out_mask, out_parent, out_col, out_flip


@njit(cache=True, nogil=True)
def add_mirrors(first, mask, index, width, height):
    """Each position followed by its mirror image unless it is symmetric; the
    index is repeated and ``mirrored`` marks the added images."""
    n = first.size
    out_first = np.empty(2 * n, dtype=np.uint64)
    out_mask = np.empty(2 * n, dtype=np.uint64)
    out_index = np.empty(2 * n, dtype=index.dtype)
    mirrored = np.zeros(2 * n, dtype=np.bool_)
    j = 0
    for i in range(n):
        out_first[j] = first[i]
        out_mask[j] = mask[i]
        out_index[j] = index[i]
        j += 1
        mf = _nb_mirror(first[i], width, height)
        mm = _nb_mirror(mask[i], width, height)
        if mf != first[i] or mm != mask[i]:
            out_first[j] = mf
            out_mask[j] = mm
            out_index[j] = index[i]
            mirrored[j] = True
            j += 1
    return out_first[:j].copy(), out_mask[:j].copy(), out_index[:j].copy(), mirrored[:j].copy()
