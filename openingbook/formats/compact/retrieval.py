"""A static function from 64-bit keys to small values that stores no keys.

The compact book format (:mod:`openingbook.formats.compact`) maps every position of a
ply to its value without storing the positions: the value of a key is the XOR
of three ``r``-bit cells of a table about 1.13 times as long as the number of
keys, at three cell indices computed from a hash of the key (a 3-wise XOR
retrieval structure in the "binary fuse" layout of Graf and Lemire: the cells
are cut into segments of ``L`` cells, and a key's three cells lie in three
consecutive segments). A key that was not in the construction set gets an
arbitrary value, so the caller decides membership by other means (for a book:
the position model, :mod:`openingbook.solver.membership`).

Everything a reader needs is here and in ``docs/FORMATS.md``, byte for byte:

* ``mix(key, seed)``: ``z = key + seed`` (mod 2^64), then the splitmix64
  finalizer ``z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9``,
  ``z = (z ^ (z >> 27)) * 0x94D049BB133111EB``, ``z ^ (z >> 31)``;
* cells of a hash ``h`` with ``S`` segments of ``L`` cells (``L`` a power of
  two, at most 2^16): ``c0 = ((h >> 32) * (S * L)) >> 32``,
  ``c1 = (c0 + L) ^ (h & (L - 1))``, ``c2 = (c0 + 2L) ^ ((h >> 16) & (L - 1))``;
* the table holds ``(S + 2) * L`` cells of ``r`` bits in a little-endian bit
  stream of 64-bit words (cell ``i`` = bits ``i*r .. i*r+r-1``), followed by
  one zero word so that a reader may always read two words.

Construction (:func:`build_retrieval`) peels the 3-uniform hypergraph of the
keys' cells (repeatedly remove a key that is alone in one of its cells), then
assigns the cells in reverse order; it retries with the next seed when peeling
gets stuck, and grows the table by 2.5% after every 8 failures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from openingbook.solver import InvalidArgument, njit

__all__ = [
    "MAX_SEGMENT_LENGTH",
    "Retrieval",
    "build_retrieval",
    "fuse_layout",
    "mix",
    "nb_cells",
    "nb_cells_value",
    "nb_mix",
    "nb_packed_field",
    "pack_fields",
    "query_many",
    "unpack_fields",
]

#: Largest segment length: the two in-segment offsets take 16 bits each of the hash.
MAX_SEGMENT_LENGTH = 1 << 16
#: The first seed tried; each retry adds one (so a build is reproducible).
FIRST_SEED = 0x0B00C0DE
_MASK64 = (1 << 64) - 1


def mix(key: int, seed: int) -> int:
    """The 64-bit hash of ``key`` (pure Python; equal to :func:`nb_mix`).

    >>> hex(mix(0, 0))
    '0x0'
    >>> mix(1, 0) == mix(0, 1)
    True
    """
    z = (key + seed) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


@njit(cache=True, inline="always")
def nb_mix(key, seed):
    """:func:`mix` in compiled code (``key``, ``seed`` as uint64)."""
    z = key + seed
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def nb_cells(h, segment_length, segment_count_length):
    """The three cell indices of hash ``h`` (see the module docstring)."""
    length_mask = np.uint64(segment_length - 1)
    c0 = ((h >> np.uint64(32)) * np.uint64(segment_count_length)) >> np.uint64(32)
    c1 = (c0 + np.uint64(segment_length)) ^ (h & length_mask)
    c2 = (c0 + np.uint64(2 * segment_length)) ^ ((h >> np.uint64(16)) & length_mask)
    return c0, c1, c2


@njit(cache=True, inline="always")
def nb_packed_field(words, index, bits):
    """Field ``index`` of ``bits`` bits from a little-endian bit stream of uint64 words
    followed by one more word (the zero word :func:`pack_fields` appends)."""
    start = np.uint64(index) * np.uint64(bits)
    w = start >> np.uint64(6)
    off = start & np.uint64(63)
    # always two words, no branch: the next word's low bits go above the first
    # word's high ones; shifted in two steps so that off = 0 shifts by 64 in all
    # (giving 0) without an undefined shift by 64
    v = (words[w] >> off) | ((words[w + np.uint64(1)] << np.uint64(1)) << (np.uint64(63) - off))
    return v & ((np.uint64(1) << np.uint64(bits)) - np.uint64(1))


@njit(cache=True, inline="always")
def nb_cells_value(words, c0, c1, c2, bits):
    """The value three cells give: the XOR of their fields (what a key stored, for a key
    of the table)."""
    return (
        nb_packed_field(words, c0, bits)
        ^ nb_packed_field(words, c1, bits)
        ^ nb_packed_field(words, c2, bits)
    )


def pack_fields(values: np.ndarray, bits: int) -> np.ndarray:
    """``values`` (each < 2^bits) as a bit stream of uint64 words plus one zero word."""
    values = np.asarray(values, dtype=np.uint64)
    if not 1 <= bits <= 32:
        raise InvalidArgument(f"field width {bits}: expected 1 to 32 bits")
    if values.size and int(values.max()) >> bits:
        raise InvalidArgument(f"a value does not fit in {bits} bits")
    words = np.zeros((values.size * bits + 63) // 64 + 1, dtype=np.uint64)
    _pack(values, bits, words)
    return words


@njit(cache=True)
def _pack(values, bits, words):
    for i in range(values.size):
        start = i * bits
        w = start >> 6
        off = start & 63
        words[w] |= values[i] << np.uint64(off)
        if off + bits > 64:
            words[w + 1] |= values[i] >> np.uint64(64 - off)


@njit(cache=True)
def _unpack(words, bits, count):
    out = np.empty(count, dtype=np.uint64)
    for i in range(count):
        out[i] = nb_packed_field(words, i, bits)
    return out


def unpack_fields(words: np.ndarray, bits: int, count: int) -> np.ndarray:
    """The first ``count`` fields of a bit stream written by :func:`pack_fields`."""
    return _unpack(np.asarray(words, dtype=np.uint64), bits, count)


@dataclass(frozen=True)
class Retrieval:
    """A built table: ``seed``, ``segment_length`` ``L``, ``segment_count`` ``S``,
    ``bits`` per cell and the packed ``words`` (``(S + 2) * L`` cells + one zero word)."""

    seed: int
    segment_length: int
    segment_count: int
    bits: int
    words: np.ndarray

    @property
    def cells(self) -> int:
        return (self.segment_count + 2) * self.segment_length


def fuse_layout(n: int, growth: float, least: float = 1.125) -> tuple[int, int]:
    """Segment length and count of a table of ``n`` equations, ``growth`` times the
    usual room: ``least`` cells per equation, more for small ``n``."""
    if n < 2:
        return 4, 1
    segment_length = 1 << max(2, int(math.log(n) / math.log(3.33) + 2.25))
    segment_length = min(segment_length, MAX_SEGMENT_LENGTH)
    factor = max(least, 0.875 + 0.25 * math.log(1e6) / math.log(max(n, 3)))
    capacity = round(n * factor * growth)
    segment_count = max(1, -(-capacity // segment_length) - 2)
    return segment_length, segment_count


@njit(cache=True)
def _peel(keys, seed, segment_length, segment_count, values):
    """Cells of one attempt (uint64 array) or an empty array when peeling gets stuck."""
    n = keys.size
    scl = segment_count * segment_length
    size = (segment_count + 2) * segment_length
    h0 = np.empty(n, dtype=np.uint32)
    h1 = np.empty(n, dtype=np.uint32)
    h2 = np.empty(n, dtype=np.uint32)
    count = np.zeros(size, dtype=np.uint32)
    xor_edges = np.zeros(size, dtype=np.uint32)
    for i in range(n):
        c0, c1, c2 = nb_cells(nb_mix(keys[i], np.uint64(seed)), segment_length, scl)
        h0[i], h1[i], h2[i] = c0, c1, c2
        count[c0] += 1
        count[c1] += 1
        count[c2] += 1
        xor_edges[c0] ^= i
        xor_edges[c1] ^= i
        xor_edges[c2] ^= i
    queue = np.empty(size, dtype=np.uint32)
    head = 0
    tail = 0
    for c in range(size):
        if count[c] == 1:
            queue[tail] = c
            tail += 1
    order_edge = np.empty(n, dtype=np.uint32)
    order_cell = np.empty(n, dtype=np.uint32)
    peeled = 0
    while head < tail:
        c = queue[head]
        head += 1
        if count[c] != 1:
            continue
        e = xor_edges[c]
        order_edge[peeled] = e
        order_cell[peeled] = c
        peeled += 1
        for other in (h0[e], h1[e], h2[e]):
            count[other] -= 1
            xor_edges[other] ^= e
            if count[other] == 1:
                queue[tail] = other
                tail += 1
    if peeled != n:
        return np.empty(0, dtype=np.uint64)
    cells = np.zeros(size, dtype=np.uint64)
    for j in range(n - 1, -1, -1):
        e = order_edge[j]
        c = order_cell[j]
        cells[c] = values[e] ^ cells[h0[e]] ^ cells[h1[e]] ^ cells[h2[e]]
    return cells


def build_retrieval(keys: np.ndarray, values: np.ndarray, bits: int) -> Retrieval:
    """A table answering ``values[i]`` (each < 2^bits) for ``keys[i]`` (distinct uint64).

    Raises ``ValueError`` for duplicate keys or values that do not fit.
    """
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    values = np.ascontiguousarray(values, dtype=np.uint64)
    if keys.shape != values.shape or keys.ndim != 1:
        raise InvalidArgument("keys and values must be 1-d arrays of the same length")
    if values.size and int(values.max()) >> bits:
        raise InvalidArgument(f"a value does not fit in {bits} bits")
    if np.unique(keys).size != keys.size:
        raise InvalidArgument("duplicate keys")
    growth = 1.0
    seed = FIRST_SEED
    for attempt in range(1000):
        if attempt and attempt % 8 == 0:
            growth *= 1.025
        segment_length, segment_count = fuse_layout(keys.size, growth)
        cells = _peel(keys, seed, segment_length, segment_count, values)
        if cells.size or keys.size == 0:
            if keys.size == 0:
                cells = np.zeros((segment_count + 2) * segment_length, dtype=np.uint64)
            return Retrieval(seed, segment_length, segment_count, bits, pack_fields(cells, bits))
        seed += 1
    raise RuntimeError("no retrieval table found in 1000 attempts")  # pragma: no cover


@njit(cache=True)
def _query(keys, seed, segment_length, segment_count, bits, words):
    out = np.empty(keys.size, dtype=np.uint64)
    scl = segment_count * segment_length
    for i in range(keys.size):
        c0, c1, c2 = nb_cells(nb_mix(keys[i], np.uint64(seed)), segment_length, scl)
        out[i] = nb_cells_value(words, c0, c1, c2, bits)
    return out


def query_many(table: Retrieval, keys: np.ndarray) -> np.ndarray:
    """The stored value of each key (arbitrary for keys outside the construction set)."""
    return _query(
        np.ascontiguousarray(keys, dtype=np.uint64),
        np.uint64(table.seed),
        table.segment_length,
        table.segment_count,
        table.bits,
        table.words,
    )
