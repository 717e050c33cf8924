"""The compressed static function (:mod:`openingbook.formats.compact.compressed`): every key
answers its value, the codes are Huffman codes, the table is about as large as the codewords."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.errors import InvalidArgument
from openingbook.formats.compact.compressed import (
    LONGER,
    MAX_CODE,
    build_function,
    canonical_codes,
    code_lengths,
    decode_longer,
    decode_tables,
    lookup_tables,
    query_function,
)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(0, 3000),
    nvalues=st.integers(1, 40),
    ncontexts=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_key_answers_its_value(n, nvalues, ncontexts, seed):
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, 2**63, n, dtype=np.uint64))
    skew = rng.random(nvalues) ** 3  # some values rare, some contexts one-valued
    values = rng.choice(nvalues, keys.size, p=skew / skew.sum())
    contexts = rng.integers(0, ncontexts, keys.size)
    values[contexts == 0] = values[0] if keys.size else 0  # a context with one value
    f = build_function(keys, values, contexts, ncontexts)
    assert np.array_equal(query_function(f, keys, contexts), values)


def test_the_table_costs_about_the_codewords():
    """200,000 skewed values: about 1.13 bits of table per bit of codeword; a one-value
    context costs nothing."""
    rng = np.random.default_rng(34)
    n = 200_000
    keys = np.unique(rng.integers(0, 2**63, n, dtype=np.uint64))
    values = rng.choice(3, keys.size, p=[0.6, 0.3, 0.1])
    contexts = np.zeros(keys.size, np.int64)
    f = build_function(keys, values, contexts, 1)
    codeword_bits = 1 * (values == 0).sum() + 2 * (values != 0).sum()
    assert 1.05 < f.bits / codeword_bits < 1.2
    decided = build_function(keys, np.zeros(keys.size, np.int64), contexts, 1)
    assert decided.words.size <= 2 and (query_function(decided, keys, contexts) == 0).all()


def test_code_lengths_make_a_complete_prefix_code():
    rng = np.random.default_rng(7)
    for _ in range(50):
        counts = rng.integers(0, 1000, rng.integers(2, 40)) * (rng.random(1) < 0.9)
        counts[rng.integers(0, counts.size)] += 1
        lengths = code_lengths(counts)
        coded = lengths[lengths > 0]
        assert ((lengths == -1) == (counts == 0)).all()
        if coded.size:
            assert sum(2.0**-coded) == 1.0 and coded.max() <= MAX_CODE
            total = (counts[lengths > 0] * coded).sum() / counts.sum()
            p = counts[counts > 0] / counts.sum()
            entropy = -(p * np.log2(p)).sum()
            assert entropy - 1e-9 <= total < entropy + 1
        else:
            assert (lengths >= -1).all() and (lengths == 0).sum() == 1


def reference_code(row: np.ndarray) -> dict[int, str]:
    """One context's canonical code written out the textbook way: values by (length,
    value), each codeword the previous one plus one, shifted left to its length."""
    code, previous, out = 0, 0, {}
    for v in sorted((v for v in range(row.size) if row[v] > 0), key=lambda v: (row[v], v)):
        code <<= int(row[v]) - previous
        out[v] = format(code, f"0{row[v]}b")  # first bit first
        code, previous = code + 1, int(row[v])
    return out


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.one_of(
            st.lists(st.integers(0, 2**40), min_size=2, max_size=30),  # skewed counts
            st.integers(1, 29).map(lambda n: [-1] * n),  # a context with no value
            st.integers(1, 29).map(lambda n: [0] * n),  # ... with one value (made below)
        ),
        min_size=1,
        max_size=6,
    ),
    nvalues=st.integers(2, 30),
)
def test_the_tables_of_every_context_decode_its_canonical_code(rows, nvalues):
    """:func:`canonical_codes`, :func:`lookup_tables` and :func:`decode_tables` (built
    for all contexts at once) agree with each context's code written out by hand: every
    codeword is its value's, in the lookup table where it fits, by the canonical loop
    where it does not."""
    lengths = np.full((len(rows), nvalues), -1, np.int64)
    for c, row in enumerate(rows):
        row = (row + [0] * nvalues)[:nvalues]
        if any(row) and min(row) >= 0:  # counts: a Huffman code
            counts = np.array(row, np.int64)
            counts[c % nvalues] += 1
            lengths[c] = code_lengths(counts)
        elif row and row[0] == 0:
            lengths[c, c % nvalues] = 0  # one value: no codeword
    codes = canonical_codes(lengths)
    lut = lookup_tables(lengths)
    first, count, symbols = decode_tables(lengths)
    k = lut.shape[1].bit_length() - 1
    for c in range(lengths.shape[0]):
        expected = reference_code(lengths[c])
        if not expected:  # one value or none: the whole row is it
            one = np.flatnonzero(lengths[c] == 0)
            assert (lut[c] == (one[0] if one.size else LONGER)).all()
            assert count[c, 0] == 0 and symbols[c, 0] == (one[0] if one.size else 0)
            continue
        for v, word in expected.items():
            stream = int(word[::-1], 2)  # first bit lowest, as the bit array holds it
            assert codes[c, v] == stream
            if len(word) <= k:
                assert (lut[c, stream :: 1 << len(word)] == v).all()
            else:
                assert lut[c, stream & ((1 << k) - 1)] == LONGER
            noise = np.uint64(stream | (0xABCDE << len(word)))  # bits after the codeword
            flat = (first.reshape(-1), count.reshape(-1), symbols.reshape(-1))
            assert decode_longer(noise, c, *flat, symbols.shape[1]) == v


def test_the_longest_codeword_is_bounded():
    counts = np.array([2**k for k in range(45)])  # Huffman alone would go 44 deep
    lengths = code_lengths(counts)
    assert lengths.max() <= MAX_CODE and sum(2.0**-lengths) == 1.0


def test_a_code_that_is_not_complete_is_refused():
    with pytest.raises(InvalidArgument, match="complete code"):
        decode_tables(np.array([[1, 2]]))


def test_bad_arguments_are_refused():
    keys = np.arange(4, dtype=np.uint64)
    with pytest.raises(InvalidArgument, match="one length"):
        build_function(keys, np.zeros(3, np.int64), np.zeros(4, np.int64), 1)
    with pytest.raises(InvalidArgument, match="out of range"):
        build_function(keys, np.zeros(4, np.int64), np.full(4, 2), 2)
    with pytest.raises(InvalidArgument, match="duplicate"):
        build_function(np.zeros(4, np.uint64), np.zeros(4, np.int64), np.zeros(4, np.int64), 1)
    unsorted = np.array([9, 3, 7, 3], np.uint64)  # not ascending: checked on a sorted copy
    with pytest.raises(InvalidArgument, match="duplicate"):
        build_function(unsorted, np.zeros(4, np.int64), np.zeros(4, np.int64), 1)


def _skewed_function_input(seed: int, n: int, nvalues: int, ncontexts: int):
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, 2**63, n, dtype=np.uint64))
    rng.shuffle(keys)
    values = np.minimum(rng.geometric(0.3, keys.size) - 1, nvalues - 1)
    return keys, values, rng.integers(0, ncontexts, keys.size)


def test_the_bit_array_is_the_one_books_were_written_with():
    """The construction is part of the format's bytes: a book written again (``derive``,
    ``convert``) is byte for byte the shipped one. The digest is of the bit array the
    construction gave before its memory was cut down (per edge and per key arrays)."""
    import hashlib

    f = build_function(*_skewed_function_input(2, 50_000, 9, 5), 5)
    assert (f.seed, f.segment_length, f.segment_count) == (0x0B00C0DE, 4096, 38)
    digest = hashlib.sha256(f.words.tobytes()).hexdigest()
    assert digest == "4e001a1d21194dcd671a623e30bf8f247da67746adf880596011a55cae99cffc"


def test_a_cell_with_more_edges_than_its_count_holds_is_counted_again_wider(monkeypatch):
    """Cells' edges are counted in one byte; when a cell has more, the same attempt runs
    again with wider counts, to the same function."""
    from openingbook.formats.compact import compressed

    keys, values, contexts = _skewed_function_input(3, 20_000, 9, 5)
    expected = build_function(keys, values, contexts, 5)
    widened = []

    def small_bytes(count_type):
        widened.append(count_type)
        return count_type(2 if count_type is np.uint8 else np.iinfo(count_type).max)

    monkeypatch.setattr(compressed, "_count_full", small_bytes)
    f = build_function(keys, values, contexts, 5)
    assert widened[:2] == [np.uint8, np.uint16]
    assert np.array_equal(f.words, expected.words) and f.seed == expected.seed
