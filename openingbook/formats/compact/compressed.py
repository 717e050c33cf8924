"""A compressed static function: small values stored in about their entropy, no keys.

:mod:`.retrieval` stores every value in the same ``r`` bits. Here each value is
stored as its codeword in a prefix (Huffman) code, one code per *context* (a small number
the caller computes from the key for free, such as features of a position that make
some values likelier), so a key costs its codeword's length, about the entropy of the
values given the context, times the table's overhead.

The construction, after the compressed static functions of Genuzio, Ottaviano and Vigna
(the codeword bits of a key at consecutive positions of three windows) in the segmented
"binary fuse" layout of Graf and Lemire (:mod:`.retrieval`): a key's hash
gives three bit positions ``c0, c1, c2`` (the cell formula of
:func:`.retrieval.nb_cells`); bit ``j`` of its codeword is
``B[c0 + j] ^ B[c1 + j] ^ B[c2 + j]`` in a bit array ``B`` of ``(S + 2) * L + MAX_CODE``
bits. A lookup reads three 64-bit windows, XORs them and decodes the codeword from the
low bit up (a table indexed by the window's low bits, :func:`lookup_tables`, then a
canonical decoder for longer codewords): three memory reads whatever the codeword's
length.

Construction peels the hypergraph of these equations (one per codeword bit) and
assigns the bits in reverse order, retrying with the next seed when peeling gets stuck
(as :mod:`.retrieval`), from 1.11 bits of array per codeword bit
(:data:`FIRST_FACTOR`), 1% more after every 4 failures. The compact format's version 3
stores such a function (:mod:`openingbook.formats.compact.book`).

The codes are canonical: per context, symbols by (length, symbol); a context with one
symbol has length-0 codewords (nothing stored: the context alone gives the value).

>>> import numpy as np
>>> keys = np.arange(1000, dtype=np.uint64) * 7919
>>> values = (np.arange(1000) % 3 == 0).astype(np.int64)
>>> f = build_function(keys, values, np.zeros(1000, np.int64), 1)
>>> bool((query_function(f, keys, np.zeros(1000, np.int64)) == values).all())
True
"""

from __future__ import annotations

import functools
import heapq
from dataclasses import dataclass

import numpy as np

from openingbook.formats.compact.retrieval import FIRST_SEED, fuse_layout, nb_cells, nb_mix
from openingbook.solver import InternalError, InvalidArgument, njit

__all__ = [
    "MAX_CODE",
    "CompressedFunction",
    "build_function",
    "canonical_codes",
    "code_lengths",
    "decode_longer",
    "decode_tables",
    "decoding_tables",
    "lookup_tables",
    "nb_decode",
    "nb_window",
    "query_function",
]

#: Longest codeword in bits (a length fits in 4 bits; one 64-bit window holds it).
MAX_CODE = 15
#: Index bits of the first decoding step's table (:func:`lookup_tables`).
LUT_BITS = 8
#: A lookup table entry: the codeword is longer than the table's index.
LONGER = 255
#: The peeling's first room: ``(S + 2) * L`` cells for 1.11 codeword bits (the 3-wise
#: fuse layout peels there for millions of bits); small functions get more
#: (:func:`.retrieval.fuse_layout`).
FIRST_FACTOR = 1.11
#: Failed seeds before the room grows, and by how much.
TRIES_PER_SIZE = 4
GROWTH = 1.01


@dataclass(frozen=True)
class CompressedFunction:
    """A built function: the table (``seed``, ``segment_length``, ``segment_count``,
    ``words``) and the code of each context (``lengths[context, value]``: -1 for a value
    the context never has, 0 for the one value of a one-value context)."""

    seed: int
    segment_length: int
    segment_count: int
    words: np.ndarray
    lengths: np.ndarray

    @property
    def bits(self) -> int:
        """Bits of the table (without the code lengths)."""
        return int(self.words.size) * 64


def code_lengths(counts: np.ndarray) -> np.ndarray:
    """Huffman codeword lengths (int64) of symbols with these counts: -1 for a symbol that
    does not occur, 0 for the only one when one occurs. At most :data:`MAX_CODE` bits.

    >>> code_lengths(np.array([5, 0, 2, 1])).tolist()
    [1, -1, 2, 2]
    >>> code_lengths(np.array([0, 3])).tolist()
    [-1, 0]
    """
    counts = np.asarray(counts, np.int64)
    lengths = np.full(counts.size, -1, np.int64)
    used = np.flatnonzero(counts > 0)
    lengths[used] = 0
    if used.size <= 1:
        return lengths
    weights = counts[used].copy()
    while True:
        heap = [(int(w), i, [i]) for i, w in enumerate(weights)]
        heapq.heapify(heap)
        depth = [0] * used.size
        tie = used.size
        while len(heap) > 1:
            a, _, sa = heapq.heappop(heap)
            b, _, sb = heapq.heappop(heap)
            for i in sa + sb:
                depth[i] += 1
            heapq.heappush(heap, (a + b, tie, sa + sb))
            tie += 1
        if max(depth) <= MAX_CODE:
            lengths[used] = depth
            return lengths
        weights = (weights + 1) // 2  # flatter counts, shorter longest codeword


def decode_tables(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The canonical code of each context (row of ``lengths``) as decode tables:
    ``first[c, l]`` (the first codeword of length ``l``), ``count[c, l]`` (``count[c, 0]``:
    the symbols with a codeword, 0 for a one-value context) and ``symbols[c, :]`` (the
    symbols by length, then value; ``symbols[c, 0]`` is the value of a one-value
    context). Every context at once (a book has thousands: opening it builds these).

    >>> first, count, symbols = decode_tables(np.array([[2, 1, 2], [-1, 0, -1]]))
    >>> first[0, 1:3].tolist(), count[0, :3].tolist(), symbols.tolist()
    ([0, 2], [3, 1, 2], [[1, 0, 2], [1, 0, 0]])
    """
    lengths = np.asarray(lengths, np.int64)
    contexts, nvalues = lengths.shape
    coded = lengths > 0
    ncoded = coded.sum(axis=1)
    bad = np.flatnonzero((ncoded > 0) & (lengths == 0).any(axis=1))
    if bad.size:
        raise InvalidArgument(f"context {bad[0]}: a value without a codeword beside others")
    # the coded values by length, then value; the others after them
    key = np.where(coded, lengths * nvalues + np.arange(nvalues), np.iinfo(np.int64).max)
    by_code = np.argsort(key, axis=1, kind="stable")
    symbols = np.zeros((contexts, max(nvalues, 1)), np.int64)
    symbols[:, :nvalues] = np.where(np.arange(nvalues) < ncoded[:, None], by_code, 0)
    one_value = ncoded == 0
    # a one-value context's value: its length-0 entry (none: 0)
    symbols[one_value, 0] = np.argmax(lengths[one_value] == 0, axis=1) if nvalues else 0
    first, count, kraft = _first_codewords(lengths)
    count[:, 0] = ncoded
    incomplete = np.flatnonzero(~one_value & (kraft != 1 << MAX_CODE))
    if incomplete.size:
        raise InvalidArgument(
            f"context {incomplete[0]}: the code lengths do not make a complete code"
        )
    return first, count, symbols


def _first_codewords(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per context: ``first[c, l]``, the first canonical codeword of length ``l``;
    ``count[c, l]``, the codewords of length ``l`` (``l`` from 1; column 0 zero, and
    ``MAX_CODE + 1`` unused); and the Kraft sum in units of ``2^-MAX_CODE`` (a complete
    code: ``2^MAX_CODE``)."""
    contexts = lengths.shape[0]
    first = np.zeros((contexts, MAX_CODE + 2), np.int64)
    count = np.zeros((contexts, MAX_CODE + 2), np.int64)
    code = np.zeros(contexts, np.int64)
    for length in range(1, MAX_CODE + 1):
        count[:, length] = (lengths == length).sum(axis=1)
        code <<= 1
        first[:, length] = code
        code += count[:, length]
    return first, count, code


@njit(cache=True, inline="always")
def nb_window(words, position):
    """The 64 bits of a bit stream of uint64 words starting at bit ``position`` (the
    stream is followed by one more word)."""
    w = position >> np.uint64(6)
    off = position & np.uint64(63)
    return (words[w] >> off) | ((words[w + np.uint64(1)] << np.uint64(1)) << (np.uint64(63) - off))


def lookup_tables(lengths: np.ndarray) -> np.ndarray:
    """The first step of decoding: ``lut[c, x & (2^k - 1)]`` is the value whose codeword
    in context ``c``'s code starts at the low bit of ``x`` when that codeword has at most
    ``k`` bits (:data:`LUT_BITS`, fewer when every codeword is shorter), else
    :data:`LONGER` (decode on with :func:`nb_decode`); a one-value context's value
    everywhere. ``k`` is ``log2`` of the row length. Every context at once.

    >>> lookup_tables(np.array([[2, 1, 2], [-1, 0, -1]])).tolist()  # codes 10, 0, 11
    [[1, 0, 1, 2], [1, 1, 1, 1]]
    """
    return decoding_tables(lengths)[0]


def decoding_tables(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What a decoder reads (:func:`nb_decode`): the lookup table of
    :func:`lookup_tables` and the ``first``, ``count``, ``symbols`` of
    :func:`decode_tables`, the canonical codes worked out once for both."""
    lengths = np.asarray(lengths, np.int64)
    if lengths.shape[1] >= LONGER:
        raise InvalidArgument(f"{lengths.shape[1]} values: at most {LONGER - 1}")
    first, count, symbols = decode_tables(lengths)
    lut = _lookup_table(lengths, _codes(lengths, first, count, symbols))
    return lut, first, count, symbols


def _lookup_table(lengths: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """:func:`lookup_tables` from the canonical codewords ``codes``."""
    contexts = lengths.shape[0]
    k = int(min(LUT_BITS, max(int(lengths.max(initial=0)), 0)))
    lut = np.full((contexts, 1 << k), LONGER, np.uint8)
    one_value = ~(lengths > 0).any(axis=1) & (lengths == 0).any(axis=1)
    lut[one_value] = np.argmax(lengths[one_value] == 0, axis=1)[:, None]
    for length in range(1, k + 1):
        # every k-bit window whose low bits are the codeword (first bit lowest)
        c, v = np.nonzero(lengths == length)
        windows = codes[c, v][:, None] + (np.arange(1 << (k - length)) << length)
        lut[c[:, None], windows] = v[:, None]
    return lut


def canonical_codes(lengths: np.ndarray) -> np.ndarray:
    """The codeword of each (context, value) of the canonical codes (DEFLATE's rule: by
    length, then value; the first codeword all zeros), first bit lowest, as the bit
    stream holds it (0 where a value has no codeword).

    >>> canonical_codes(np.array([[2, 1, 2]])).tolist()  # 10, 0, 11: first bit lowest
    [[1, 0, 3]]
    """
    lengths = np.asarray(lengths, np.int64)
    return _codes(lengths, *decode_tables(lengths))


def _codes(
    lengths: np.ndarray, first: np.ndarray, count: np.ndarray, symbols: np.ndarray
) -> np.ndarray:
    """:func:`canonical_codes` from the contexts' :func:`decode_tables`."""
    # rank of each coded value in its context's (length, value) order
    c, j = np.nonzero(np.arange(symbols.shape[1]) < count[:, :1])
    rank = np.zeros(lengths.shape, np.int64)
    rank[c, symbols[c, j]] = j
    per_length = count.copy()
    per_length[:, 0] = 0  # column 0 counts every codeword
    shorter = np.cumsum(per_length, axis=1) - per_length  # codewords shorter than each length
    # codeword = first codeword of its length + its rank among the codewords of that length
    rows = np.arange(lengths.shape[0])[:, None]
    size = np.maximum(lengths, 0)
    msb_first = np.where(lengths > 0, first[rows, size] + rank - shorter[rows, size], 0)
    # first bit lowest: the codeword's MAX_CODE bits reversed, shifted down to its length
    return np.where(size > 0, _reversed_bits()[msb_first] >> (MAX_CODE - size), 0)


@functools.cache
def _reversed_bits() -> np.ndarray:
    """Each MAX_CODE-bit number with its bits in reverse order (made once: a table of
    2**MAX_CODE entries, where reversing every codeword bit by bit took 15 passes over
    all of a book's codes)."""
    x = np.arange(1 << MAX_CODE, dtype=np.int64)
    out = np.zeros_like(x)
    for bit in range(MAX_CODE):
        out |= ((x >> bit) & 1) << (MAX_CODE - 1 - bit)
    return out


@njit(cache=True, inline="always")
def nb_decode(x, context, lut, first, count, symbols):
    """The value whose codeword starts at the low bit of ``x`` in ``context``'s code
    (-1: no codeword, a damaged table): the lookup table, then for a codeword longer
    than its index the canonical loop (:func:`decode_longer`, out of line: inlined, its
    loop slows every lookup down; ``first``, ``count`` and ``symbols`` flattened). The
    compact reader's kernels write the first step out themselves: even so inlined,
    this function makes them twice as slow."""
    v = np.int64(lut[context, x & np.uint64(lut.shape[1] - 1)])
    if v == LONGER:
        v = decode_longer(x, context, first, count, symbols, symbols.size // lut.shape[0])
    return v


@njit(cache=True)
def decode_longer(x, context, first, count, symbols, nvalues):
    """The canonical decoder: bit by bit from the low bit of ``x`` (-1: no codeword);
    :func:`decode_tables`' arrays flattened (row ``context`` of ``first`` and ``count``
    at ``context * (MAX_CODE + 2)``, of ``symbols`` at ``context * nvalues``)."""
    code = np.int64(0)
    row = context * (MAX_CODE + 2)
    offset = np.int64(context * nvalues)
    for length in range(1, MAX_CODE + 1):
        code = (code << 1) | np.int64((x >> np.uint64(length - 1)) & np.uint64(1))
        n = np.int64(count[row + length])
        delta = code - first[row + length]
        if 0 <= delta < n:
            return np.int64(symbols[offset + delta])
        offset += n
    return np.int64(-1)  # not a codeword: a damaged table


def _code_table(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The codeword (first bit lowest, uint16) and length (uint8) of each (context,
    value) of the canonical codes."""
    return canonical_codes(lengths).astype(np.uint16), np.maximum(lengths, 0).astype(np.uint8)


@njit(cache=True, nogil=True)  # seconds a call: a signal acts meanwhile
def _codeword_bits(values, contexts, table_size):
    """The codeword bits of all keys (``table_size[context, value]`` each)."""
    total = np.int64(0)
    for i in range(values.size):
        total += table_size[contexts[i], values[i]]
    return total


#: An edge (one codeword bit) is numbered ``key index << EDGE_SHIFT | bit``: its key and
#: bit without a table from edges to keys (a codeword has at most MAX_CODE < 16 bits).
EDGE_SHIFT = 4
#: Keys of one function: their edge numbers fit the peeling's uint32 cells.
MAX_KEYS = 1 << (32 - EDGE_SHIFT)
#: :func:`_peel`'s outcomes.
_PEELED, _STUCK, _COUNT_FULL = 0, 1, 2


@njit(cache=True, inline="always")
def _edge_cells(keys, i, j, seed, segment_length, scl):
    """The three bit positions of bit ``j`` of key ``i``'s codeword."""
    c0, c1, c2 = nb_cells(nb_mix(keys[i], np.uint64(seed)), segment_length, scl)
    uj = np.uint64(j)
    return c0 + uj, c1 + uj, c2 + uj


@njit(cache=True, nogil=True)  # seconds a call: a signal acts meanwhile
def _peel(keys, layout, values, contexts, code, count, full):
    """``(status, bit array)`` of one attempt (``layout``: the hash seed, the segments'
    length and count): :data:`_PEELED` and its uint64 words, else
    :data:`_STUCK` (peeling got stuck: another seed) or :data:`_COUNT_FULL` (a cell has
    more edges than ``count``, zeros of the bit array's length, counts up to ``full``:
    a wider one). ``code``: the codeword (uint16, first bit lowest) and length (uint8)
    of each (context, value), looked up per key when needed (no array per key).

    One equation (edge) per codeword bit: bit ``j`` of key ``i`` (edge ``i << 4 | j``)
    is the XOR of the bits at its three cells plus ``j``. Peeling removes an edge alone
    at one of its cells, in the order of a queue of such cells; then the bits are
    assigned in reverse order. Memory, the peak of a book's write: per bit position a
    count (1 byte), the XOR of its edges' numbers and a queue slot (4 bytes each),
    nothing per edge or key: a key's cells are hashed again when needed, the queue's
    consumed slots record the peeled cells in order, and a peeled cell keeps the number
    of the edge it was peeled by (no other edge has it)."""
    table_word, table_size = code
    seed, segment_length, segment_count = layout
    n = keys.size
    scl = segment_count * segment_length
    nbits = count.size
    shift = np.uint32(EDGE_SHIFT)
    low_bits = np.uint32((1 << EDGE_SHIFT) - 1)
    xor_edges = np.zeros(nbits, np.uint32)
    edges = np.int64(0)
    for i in range(n):
        size = table_size[contexts[i], values[i]]
        edges += size
        for j in range(size):
            e = (np.uint32(i) << shift) | np.uint32(j)
            for c in _edge_cells(keys, i, j, seed, segment_length, scl):
                if count[c] == full:
                    return _COUNT_FULL, np.empty(0, np.uint64)
                count[c] += 1
                xor_edges[c] ^= e
    queue = np.empty(nbits, np.uint32)
    tail = 0
    for c in range(nbits):
        if count[c] == 1:
            queue[tail] = c
            tail += 1
    peeled = 0
    head = 0
    while head < tail:
        c = queue[head]
        head += 1
        if count[c] != 1:
            continue
        queue[peeled] = c  # a consumed slot: peeled < head
        peeled += 1
        e = xor_edges[c]
        for other in _edge_cells(keys, e >> shift, e & low_bits, seed, segment_length, scl):
            count[other] -= 1
            if other != c:  # c keeps e: the edge it was peeled by
                xor_edges[other] ^= e
                if count[other] == 1:
                    queue[tail] = other
                    tail += 1
    if peeled != edges:
        return _STUCK, np.empty(0, np.uint64)
    words = np.zeros((nbits + 63) // 64 + 1, np.uint64)
    one = np.uint64(1)
    six = np.uint64(6)
    low = np.uint64(63)
    for k in range(edges - 1, -1, -1):
        c = np.uint64(queue[k])
        e = xor_edges[c]
        i, j = e >> shift, e & low_bits
        bit = (np.uint64(table_word[contexts[i], values[i]]) >> np.uint64(j)) & one
        for o in _edge_cells(keys, i, j, seed, segment_length, scl):
            if o != c:
                bit ^= (words[o >> six] >> (o & low)) & one
        words[c >> six] |= bit << (c & low)
    return _PEELED, words


def _count_full(count_type: type) -> np.integer:
    """The most edges a cell's count of this type holds."""
    return count_type(np.iinfo(count_type).max)


def _has_duplicates(keys: np.ndarray) -> bool:
    """Does a key occur twice? Ascending keys (as a compact book passes them) are checked
    in place; others sorted in a copy."""
    if keys.size < 2:
        return False
    ascending = keys[1:] > keys[:-1]
    if ascending.all():
        return False
    del ascending
    ordered = np.sort(keys)
    return bool((ordered[1:] == ordered[:-1]).any())


def build_function(
    keys: np.ndarray, values: np.ndarray, contexts: np.ndarray, context_count: int
) -> CompressedFunction:
    """A function answering ``values[i]`` (ints from 0 to 254) for ``keys[i]``
    (distinct uint64) given ``contexts[i]`` (``0 <= contexts[i] < context_count``).
    Every key is queried once built: a function that answers one wrongly is never
    returned."""
    keys = np.ascontiguousarray(keys, np.uint64)
    values = np.asarray(values)
    contexts = np.asarray(contexts)
    if not keys.shape == values.shape == contexts.shape or keys.ndim != 1:
        raise InvalidArgument("keys, values and contexts must be 1-d arrays of one length")
    if keys.size and (
        values.min() < 0
        or values.max() >= LONGER
        or contexts.min() < 0
        or contexts.max() >= context_count
    ):
        raise InvalidArgument("a value or context out of range")
    values = np.ascontiguousarray(values, np.uint8)
    # any integer type is taken as it is (a book's rows come in the smallest that holds
    # them: a byte a key less at the peeling's peak)
    contexts = np.ascontiguousarray(contexts, None if contexts.dtype.kind in "iu" else np.int32)
    if keys.size > MAX_KEYS:  # the peeling numbers a key's edges in uint32
        raise InvalidArgument(f"{keys.size:,} keys: at most {MAX_KEYS:,} in one function")
    if _has_duplicates(keys):
        raise InvalidArgument("duplicate keys")
    nvalues = int(values.max()) + 1 if values.size else 1
    counts = np.bincount(
        contexts.astype(np.int64) * nvalues + values, minlength=context_count * nvalues
    ).reshape(context_count, nvalues)
    lengths = np.stack([code_lengths(row) for row in counts]) if context_count else counts
    code = _code_table(lengths)
    total = int(_codeword_bits(values, contexts, code[1]))
    if total >= 1 << 32:  # codeword bits are numbered in uint32
        raise InvalidArgument(f"{total:,} codeword bits: at most 2^32 - 1 in one function")
    growth = 1.0
    seed = FIRST_SEED
    # a cell's edges counted in one byte (a cell has about three), two when one has more
    count_type = np.uint8
    attempt = 0
    while attempt < 1000:
        if attempt and attempt % TRIES_PER_SIZE == 0:
            growth *= GROWTH
        segment_length, segment_count = fuse_layout(max(total, 1), growth, FIRST_FACTOR)
        count = np.zeros((segment_count + 2) * segment_length + MAX_CODE, count_type)
        full = _count_full(count_type)
        layout = (seed, segment_length, segment_count)
        status, words = _peel(keys, layout, values, contexts, code, count, full)
        del count
        if status == _COUNT_FULL:  # the same attempt again, with wider counts
            count_type = np.uint16 if count_type is np.uint8 else np.uint32
            continue
        if status == _PEELED:
            f = CompressedFunction(seed, segment_length, segment_count, words, lengths)
            if not np.array_equal(query_function(f, keys, contexts), values):
                raise InternalError("a compressed function answers a key wrongly")
            return f
        seed += 1
        attempt += 1
    raise RuntimeError("no compressed function found in 1000 attempts")  # pragma: no cover


@njit(cache=True, nogil=True)  # seconds a call: a signal acts meanwhile
def _query(keys, contexts, hashing, decoder):
    """The value of each key in its context: ``hashing`` is the function's ``(seed,
    segment length, segment count, words)``, ``decoder`` its code's decoding tables
    (:func:`decoding_tables`: ``(lut, first, count, symbols)``)."""
    seed, segment_length, segment_count, words = hashing
    lut, first, count, symbols = decoder
    out = np.empty(keys.size, np.int64)
    scl = segment_count * segment_length
    for i in range(keys.size):
        c0, c1, c2 = nb_cells(nb_mix(keys[i], np.uint64(seed)), segment_length, scl)
        x = nb_window(words, c0) ^ nb_window(words, c1) ^ nb_window(words, c2)
        out[i] = nb_decode(x, contexts[i], lut, first, count, symbols)
    return out


def query_function(f: CompressedFunction, keys: np.ndarray, contexts: np.ndarray) -> np.ndarray:
    """The stored value of each key in its context (arbitrary for keys outside the
    construction set)."""
    lut, first, count, symbols = decoding_tables(f.lengths)
    return _query(
        np.ascontiguousarray(keys, np.uint64),
        np.ascontiguousarray(contexts, np.int32),
        (np.uint64(f.seed), f.segment_length, f.segment_count, f.words),
        (lut, first.reshape(-1), count.reshape(-1), symbols.reshape(-1)),
    )
