"""Column codec: bitarray reference, numpy path, mirrored keys.

Independent sources: the code is spelled out by hand for small positions, the
first record of the original 8-ply file fixes the bit order, and the two
implementations (bitarray prefix code vs. numpy tables) check each other.
"""

from __future__ import annotations

import numpy as np
import pytest
from bitarray import bitarray
from bitarray.util import ba2int
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.codec import (
    code_length,
    decode_column_code,
    decode_keys,
    encode_column_code,
    encode_key_pairs,
    encode_keys,
    key_position,
    mirror_keys,
    position_key,
    position_key_pair,
)
from openingbook.solver import DEFAULT_BOARD, DEFAULT_WIDTH, Position
from tests.helpers import positions


def arrays(pos_list: list[Position]) -> tuple[np.ndarray, np.ndarray]:
    first = np.array([p.first_stones for p in pos_list], dtype=np.uint64)
    mask = np.array([p.mask for p in pos_list], dtype=np.uint64)
    return first, mask


def hand_code(pos: Position) -> str:
    """The code spelled out cell by cell, as the format description says."""
    out = []
    for col, cells in enumerate(pos.to_array()):
        out.extend("10" if c == 1 else "11" for c in cells if c)
        if col < pos.width - 1:
            out.append("0")
    return "".join(out)


# ------------------------------------------------------------ bitarray path
def test_hand_examples():
    assert encode_column_code(Position()).to01() == "000000"
    assert encode_column_code(Position.from_moves("1")).to01() == "10000000"
    assert encode_column_code(Position.from_moves("7")).to01() == "00000010"
    # A col 4, B col 4, A col 5, B col 3 (1-based)
    assert (
        encode_column_code(Position.from_moves("4453")).to01()
        == "00" + "110" + "10110" + "100" + "0"
    )


def test_first_record_of_original_book(reference_dir):
    record = (reference_dir / "thill-original-book8.dat").read_bytes()[:3]
    key = int.from_bytes(record, "big") & ~0b11
    bits = bitarray(format(key, "024b"))
    pos = decode_column_code(bits, *DEFAULT_BOARD)
    assert [[int(c) for c in col] for col in pos.to_array()] == [
        [0] * 6,
        [0] * 6,
        [0] * 6,
        [0] * 6,
        [0] * 6,
        [1, 1, 1, 2, 1, 0],  # A, A, A, B, A bottom to top
        [2, 2, 2, 0, 0, 0],
    ]
    assert position_key(pos, 24) == key
    assert record[2] & 0b11 == 0  # draw


@settings(max_examples=300, deadline=None)
@given(positions(max_stones=29))
def test_bitarray_round_trip_and_length(pos):
    bits = encode_column_code(pos)
    assert bits.to01() == hand_code(pos)
    assert len(bits) == code_length(pos.stone_count, DEFAULT_WIDTH) == 6 + 2 * pos.stone_count
    assert decode_column_code(bits, *DEFAULT_BOARD) == pos
    padded = bits + bitarray("0" * (64 - len(bits)))
    assert decode_column_code(padded, *DEFAULT_BOARD) == pos


@settings(max_examples=100, deadline=None)
@given(positions(min_stones=12, max_stones=12))
def test_thirty_bits_for_twelve_stones(pos):
    assert len(encode_column_code(pos)) == 30
    key = position_key(pos, 32)
    assert key & 0b11 == 0 and key >> 30 == ba2int(encode_column_code(pos)) >> 28


@pytest.mark.parametrize(
    ("bits", "problem"),
    [
        ("0000001", "incomplete"),  # half a stone
        ("00000000" + "10", "after the last column"),
        ("0" + "10" * 7 + "00000", "more than 6 stones"),
        ("00000", "6 columns, expected 7"),
        ("10101010" + "000000", "four in a row"),
        ("1010" + "000000", "do not alternate"),
    ],
)
def test_bitarray_decode_errors(bits, problem):
    with pytest.raises(ValueError, match=problem):
        decode_column_code(bits, *DEFAULT_BOARD)


# --------------------------------------------------------------- numpy path
@settings(max_examples=60, deadline=None)
@given(st.lists(positions(max_stones=29), min_size=1, max_size=40))
def test_numpy_matches_reference(pos_list):
    first, mask = arrays(pos_list)
    keys = encode_keys(first, mask, 64, *DEFAULT_BOARD)
    for key, pos in zip(keys, pos_list, strict=True):
        bits = encode_column_code(pos)
        assert int(key) == ba2int(bits) << (64 - len(bits))
        assert int(key) == position_key(pos, 64)
    f2, m2 = decode_keys(keys, 64, None, *DEFAULT_BOARD)
    assert np.array_equal(f2, first) and np.array_equal(m2, mask)


@settings(max_examples=60, deadline=None)
@given(st.lists(positions(min_stones=8, max_stones=8), min_size=1, max_size=40))
def test_numpy_round_trip_fixed_ply(pos_list):
    first, mask = arrays(pos_list)
    keys = encode_keys(first, mask, 24, *DEFAULT_BOARD)
    assert not (keys & np.uint64(0b11)).any()  # room for the value bits
    f2, m2 = decode_keys(keys, 24, 8, *DEFAULT_BOARD)
    assert np.array_equal(f2, first) and np.array_equal(m2, mask)
    assert [key_position(int(k), 24, 8, *DEFAULT_BOARD) for k in keys] == pos_list


@settings(max_examples=60, deadline=None)
@given(st.lists(positions(max_stones=13), min_size=1, max_size=40))
def test_mirror_keys(pos_list):
    first, mask = arrays(pos_list)
    keys = encode_keys(first, mask, 32, *DEFAULT_BOARD)
    mirrored = mirror_keys(keys, 32, *DEFAULT_BOARD)
    assert np.array_equal(mirror_keys(mirrored, 32, *DEFAULT_BOARD), keys)
    assert [int(k) for k in mirrored] == [position_key(p.mirror(), 32) for p in pos_list]
    pair_keys, pair_mirrored = encode_key_pairs(first, mask, 32, *DEFAULT_BOARD)
    mf, mm = arrays([p.mirror() for p in pos_list])
    assert np.array_equal(pair_keys, keys)
    assert np.array_equal(pair_mirrored, encode_keys(mf, mm, 32, *DEFAULT_BOARD))
    assert [position_key_pair(p, 32) for p in pos_list] == list(
        zip(keys.tolist(), mirrored.tolist(), strict=True)
    )
    # the mirrored code lists the same column codes in reverse order
    for key, mkey, pos in zip(keys, mirrored, pos_list, strict=True):
        n = code_length(pos.stone_count, DEFAULT_WIDTH)
        cols = format(int(key) >> (32 - n), f"0{n}b")
        mcols = format(int(mkey) >> (32 - n), f"0{n}b")
        assert _split_columns(mcols) == _split_columns(cols)[::-1]


def _split_columns(code: str) -> list[str]:
    cols, cur, i = [], "", 0
    while i < len(code):
        if code[i] == "0":
            cols.append(cur)
            cur = ""
            i += 1
        else:
            cur += code[i : i + 2]
            i += 2
    cols.append(cur)
    return cols


def test_real_book_keys_round_trip(reference_dir):
    data = (reference_dir / "thill-original-book8.dat").read_bytes()
    raw = np.frombuffer(data, dtype=np.uint8).reshape(-1, 3).astype(np.uint64)
    keys = ((raw[:, 0] << np.uint64(16)) | (raw[:, 1] << np.uint64(8)) | raw[:, 2]) & ~np.uint64(3)
    first, mask = decode_keys(keys, 24, 8, *DEFAULT_BOARD)
    assert np.array_equal(encode_keys(first, mask, 24, *DEFAULT_BOARD), keys)
    assert np.array_equal(
        mirror_keys(mirror_keys(keys, 24, *DEFAULT_BOARD), 24, *DEFAULT_BOARD), keys
    )
    assert (np.bitwise_count(mask) == 8).all()


# ------------------------------------------------------------------ errors
def test_decode_keys_names_first_bad_index():
    good = position_key(Position.from_moves("44444455"), 24)
    nine = position_key(Position.from_moves("444444553"), 24)
    with pytest.raises(ValueError, match=r"key 2 .* has 9 stones, expected 8"):
        decode_keys(np.array([good, good, nine, nine]), 24, 8, *DEFAULT_BOARD)
    with pytest.raises(ValueError, match=r"key 1 .* is not a column code"):
        decode_keys(
            np.array([good, good | 1, good]), 24, 8, *DEFAULT_BOARD
        )  # garbage in the value bits
    with pytest.raises(ValueError, match=r"key 0 .* is not a column code"):
        decode_keys(np.array([int("0" + "10" * 7 + "00000", 2) << 4]), 24, None, *DEFAULT_BOARD)
    cells = [[1, 1, 1, 1, 0, 0], [2, 2, 2, 0, 0, 0]] + [[0] * 6] * 5  # A has four
    four = position_key(Position.from_array(cells, check=False), 24)
    with pytest.raises(ValueError, match=r"key 0 .* illegal"):
        decode_keys(np.array([four]), 24, None, *DEFAULT_BOARD)


def test_encode_errors():
    p = Position.from_moves("4444445555")
    with pytest.raises(ValueError, match="26-bit column code does not fit a 24-bit key"):
        encode_keys(np.array([p.first_stones]), np.array([p.mask]), 24, *DEFAULT_BOARD)
    with pytest.raises(ValueError, match="does not fit"):
        position_key(p, 24)
    with pytest.raises(ValueError, match="position 1: not a position"):
        encode_keys(np.array([0, 0b10]), np.array([0, 0b10]), 24, *DEFAULT_BOARD)  # floating stone
    with pytest.raises(ValueError, match="integer array"):
        encode_keys(np.array([0.5]), np.array([1.0]), 24, *DEFAULT_BOARD)
