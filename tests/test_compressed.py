"""The compressed static function (:mod:`openingbook.compressed`): every key answers its
value, the codes are Huffman codes, the table is about as large as the codewords."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.compressed import (
    MAX_CODE,
    build_function,
    code_lengths,
    decode_tables,
    query_function,
)
from openingbook.errors import InvalidArgument


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
