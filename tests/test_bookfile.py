"""Book files: layouts, byte-exact round trips, sort orders, detection, bad files.

Independent sources: the original 8-ply file (its own bytes and order), the
record layouts stated in FORMATS.md, and Java's signed ``int`` order computed
here with numpy's ``>i4``/``>i8`` views.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.codec import decode_keys, encode_keys, position_key
from openingbook.errors import BookFileError
from openingbook.formats import read_records
from openingbook.formats.thill import (
    BOOK8,
    BOOK12,
    BOOK12_DIST,
    BookFormat,
    Records,
    describe_book,
    write_book,
)
from openingbook.formats.thill.book import (
    detect_format,
    parse_records,
    records_to_bytes,
    sort_records,
)
from openingbook.solver import DEFAULT_BOARD, DEFAULT_HEIGHT, DEFAULT_WIDTH, Position
from tests.helpers import REFERENCE, random_positions, write_manifest

BOOK8_FILE = REFERENCE / "thill-original-book8.dat"


# ------------------------------------------------------------------ helpers


def valid_distance_byte(stones: int, rng: random.Random) -> int:
    """A distance byte a ``stones``-stone position can have (winner plays the last stone)."""
    d = rng.randint(0, 42 - stones)
    if d == 0:
        return 0
    first_wins = (stones + d) % 2 == 1  # stone number stones+d is the first player's
    return 100 - d if first_wins else d - 100


def make_records(fmt: BookFormat, positions: list[Position], seed: int = 0) -> Records:
    rng = random.Random(seed)
    first = np.array([p.first_stones for p in positions], dtype=np.uint64)
    mask = np.array([p.mask for p in positions], dtype=np.uint64)
    keys = encode_keys(first, mask, fmt.key_bits, *DEFAULT_BOARD)
    if fmt.distances:
        values = [valid_distance_byte(fmt.plies, rng) for _ in positions]
    else:
        values = [rng.choice([0, 1, 2]) for _ in positions]
    return Records(keys, np.array(values, dtype=np.int8))


def reference_bytes() -> bytes:
    return BOOK8_FILE.read_bytes()


# ------------------------------------------------------------------ formats
def test_thill_layouts():
    # FORMATS.md: 3-byte unsigned, 4-byte signed, 4+1-byte signed with distances
    assert (BOOK8.record_bytes, BOOK8.key_bits, BOOK8.signed_order) == (3, 24, False)
    assert (BOOK12.record_bytes, BOOK12.key_bits, BOOK12.signed_order) == (4, 32, True)
    assert (BOOK12_DIST.record_bytes, BOOK12_DIST.key_bits, BOOK12_DIST.signed_order) == (
        5,
        32,
        True,
    )
    assert BOOK8.file_name == "book.dat"
    assert BOOK12.file_name == "bookDeep.dat"
    assert BOOK12_DIST.file_name == "bookDeepDist.dat"


@pytest.mark.parametrize(
    ("plies", "pruned_bytes", "dist_bytes"),
    [(2, 3, 5), (4, 3, 5), (6, 3, 5), (8, 3, 5), (10, 4, 5), (12, 4, 5), (14, 5, 6), (16, 5, 6)],
)
def test_general_layouts(plies, pruned_bytes, dist_bytes):
    pruned = BookFormat.for_plies(plies, False, *DEFAULT_BOARD)
    dist = BookFormat.for_plies(plies, distances=True, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    assert pruned.record_bytes == pruned_bytes
    assert dist.record_bytes == dist_bytes
    # the code plus two value bits fit the pruned record; the code fits the key
    assert 6 + 2 * plies + 2 <= pruned.key_bits == 8 * pruned_bytes
    assert 6 + 2 * plies <= dist.key_bits == 8 * (dist_bytes - 1)
    assert pruned.signed_order == (pruned_bytes >= 4)
    assert dist.signed_order


def test_parse_format_names():
    assert BookFormat.parse("8") == BookFormat.parse("8-ply") == BOOK8
    assert BookFormat.parse("bookDeep.dat") == BOOK12
    assert BookFormat.parse("12-dist") == BookFormat.parse("12-ply-dist") == BOOK12_DIST
    with pytest.raises(ValueError, match="unknown book format"):
        BookFormat.parse("twelve")
    for plies in (-1, 43):
        with pytest.raises(ValueError, match=r"plies must be 0\.\.28,"):
            BookFormat.for_plies(plies, False, *DEFAULT_BOARD)


# ------------------------------------------------------------- the real file
def test_reads_original_8ply_file():
    fmt, records = read_records(BOOK8_FILE)
    assert fmt == BOOK8
    assert len(records) == len(reference_bytes()) // 3 == 34_286
    raw = np.frombuffer(reference_bytes(), dtype=np.uint8).reshape(-1, 3)
    for i in (0, 1000, 3000, len(records) - 1):
        field = int.from_bytes(raw[i].tobytes(), "big")
        assert int(records.keys[i]) == field & ~3
        assert int(records.values[i]) == field & 3
    # pruned: only draws and second-player wins are stored
    assert set(np.unique(records.values).tolist()) == {0, 1}
    first, mask = decode_keys(records.keys, 24, 8, *DEFAULT_BOARD)
    pos0 = Position.from_bitboards(int(first[0]), int(mask[0]))
    assert pos0.to_array()[5] == [1, 1, 1, 2, 1, 0] and pos0.to_array()[6] == [2, 2, 2, 0, 0, 0]


def test_original_file_is_unsigned_sorted():
    rows = [reference_bytes()[i : i + 3] for i in range(0, len(reference_bytes()), 3)]
    assert rows == sorted(rows)  # big-endian bytes: lexicographic = unsigned order


def test_byte_exact_round_trip_of_original(tmp_path):
    fmt, records = read_records(BOOK8_FILE)
    out = tmp_path / "copy.dat"
    assert write_book(out, fmt, records) == 34_286
    assert out.read_bytes() == reference_bytes()
    assert records_to_bytes(fmt, records) == reference_bytes()
    # writing shuffled records sorts them back
    perm = np.random.default_rng(1).permutation(len(records))
    write_book(out, fmt, Records(records.keys[perm], records.values[perm]))
    assert out.read_bytes() == reference_bytes()
    assert not list(tmp_path.glob("*.tmp"))


# ----------------------------------------------------------- synthetic books
@pytest.mark.parametrize("distances", [False, True])
def test_signed_order_of_wide_keys(tmp_path, distances):
    fmt = BookFormat.for_plies(12, distances, *DEFAULT_BOARD)
    positions = random_positions(12, 300, seed=5)
    positions.append(Position.from_moves("111222333444"))  # first column non-empty
    positions.append(Position.from_moves("777666555444"))  # first column empty
    out = tmp_path / "b12.dat"
    write_book(out, fmt, make_records(fmt, positions))
    data = out.read_bytes()
    ints = np.frombuffer(data, dtype=np.uint8).reshape(-1, fmt.record_bytes)[:, :4].copy()
    java_ints = ints.view(">i4").ravel()  # Java int: signed two's complement
    assert (np.diff(java_ints.astype(np.int64)) > 0).all()
    top_bit = (ints[:, 0] >> 7).astype(bool)
    assert top_bit.any() and not top_bit.all()
    assert top_bit[: top_bit.sum()].all()  # codes starting with 1 sort first
    fmt2, back = read_records(out, fmt)
    assert fmt2 == fmt
    assert records_to_bytes(fmt, back) == data


def test_signed_order_of_40_bit_keys(tmp_path):
    fmt = BookFormat.for_plies(14, False, *DEFAULT_BOARD)
    assert fmt.key_bits == 40
    positions = random_positions(14, 200, seed=9)
    out = tmp_path / "b14.dat"
    write_book(out, fmt, make_records(fmt, positions))
    rows = np.frombuffer(out.read_bytes(), dtype=np.uint8).reshape(-1, 5)
    padded = np.zeros((len(rows), 8), dtype=np.uint8)
    padded[:, :5] = rows
    signed = padded.view(">i8").ravel() >> 24  # the 40-bit field, sign-extended
    assert (np.diff(signed) > 0).all()


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    plies=st.integers(1, 16),
    distances=st.booleans(),
    count=st.integers(1, 40),
    seed=st.integers(0, 10_000),
)
def test_round_trip_any_ply(tmp_path_factory, plies, distances, count, seed):
    fmt = BookFormat.for_plies(plies, distances, *DEFAULT_BOARD)
    positions = random_positions(plies, count, seed)
    records = make_records(fmt, positions, seed)
    out = tmp_path_factory.mktemp("rt") / "book.bin"
    write_book(out, fmt, records)
    data = out.read_bytes()
    assert len(data) == len(positions) * fmt.record_bytes
    _, back = read_records(out, fmt)
    want = sort_records(fmt, records)
    assert np.array_equal(back.keys, want.keys)
    assert np.array_equal(back.values, want.values)
    assert records_to_bytes(fmt, back) == data
    assert parse_records(data, fmt).keys.tolist() == back.keys.tolist()
    # detection names the format, or refuses when the content fits several layouts
    # (then the format must be given); it never picks a wrong one
    try:
        assert detect_format(out) == fmt
    except BookFileError as exc:
        assert "ambiguous" in str(exc) and f"{fmt.name}," in f"{exc}".replace(" all", ",")
    write_manifest(out, fmt)  # a manifest always decides
    assert detect_format(out) == fmt


def test_ambiguous_content_is_refused_until_the_format_is_given(tmp_path):
    # one 15-ply pruned record that also reads as a 13-ply distance record (5 bytes each)
    fmt = BookFormat.for_plies(15, False, *DEFAULT_BOARD)
    out = tmp_path / "book.bin"
    write_book(out, fmt, make_records(fmt, random_positions(15, 1, 33), 33))
    with pytest.raises(BookFileError, match=r"ambiguous \(15-ply, 13-ply-dist all fit\): give"):
        detect_format(out)
    assert read_records(out, fmt)[0] == fmt  # the format given decides
    assert read_records(out, BookFormat.for_plies(13, True, *DEFAULT_BOARD))[
        0
    ].distances  # it fits that too
    with pytest.raises(BookFileError, match=r"record 0 .*format 14-ply from the argument"):
        read_records(
            out, BookFormat.for_plies(14, False, *DEFAULT_BOARD)
        )  # does not fit: refused, not obeyed
    write_manifest(out, fmt)
    assert detect_format(out) == fmt
    with pytest.raises(
        BookFileError, match=r"13-ply-dist was given, its manifest book\.bin\.json says 15-ply"
    ):
        read_records(out, BookFormat.for_plies(13, True, *DEFAULT_BOARD))


# ---------------------------------------------------------------- detection
def test_detect_by_name_manifest_and_content(tmp_path):
    data = reference_bytes()
    (tmp_path / "bookDeep.dat").write_bytes(data[: 3 * 4 * 100])  # 8-ply records
    assert detect_format(tmp_path / "bookDeep.dat") == BOOK8  # the content is clear
    (tmp_path / "bookDeepDist.dat").write_bytes(bytes(range(250)) * 4)  # junk
    assert detect_format(tmp_path / "bookDeepDist.dat") == BOOK12_DIST  # the name stays
    (tmp_path / "book.dat").write_bytes(data)
    assert detect_format(tmp_path / "book.dat") == BOOK8
    (tmp_path / "plain.bin").write_bytes(data)
    assert detect_format(tmp_path / "plain.bin") == BOOK8
    (tmp_path / "m.dat").write_bytes(data)
    write_manifest(tmp_path / "m.dat", BOOK8)
    assert detect_format(tmp_path / "m.dat") == BOOK8
    (tmp_path / "m.dat.json").write_text("{}")
    with pytest.raises(BookFileError, match=r"m\.dat\.json: not a book manifest \(no 'format'"):
        detect_format(tmp_path / "m.dat")
    fmt = BOOK12_DIST
    write_book(tmp_path / "d.bin", fmt, make_records(fmt, random_positions(12, 50, 3)))
    assert detect_format(tmp_path / "d.bin") == BOOK12_DIST
    (tmp_path / "junk.bin").write_bytes(bytes(range(256)) * 3)
    with pytest.raises(BookFileError, match=r"junk.bin: not a book file"):
        detect_format(tmp_path / "junk.bin")


# ---------------------------------------------------------------- bad files
def bad_copy(tmp_path: Path, data: bytes, name: str = "bad.dat") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_empty_file(tmp_path):
    path = bad_copy(tmp_path, b"", "empty.dat")
    with pytest.raises(BookFileError, match=r"^.*empty.dat: empty file$"):
        read_records(path, BOOK8)
    with pytest.raises(BookFileError, match=r"empty\.dat: empty file"):
        read_records(path)


def test_size_not_a_multiple(tmp_path):
    path = bad_copy(tmp_path, reference_bytes()[:3001], "book.dat")
    with pytest.raises(
        BookFileError, match=r"book\.dat: size 3001 bytes is not a multiple of the 3"
    ):
        read_records(path)


def test_unsorted_records(tmp_path):
    data = bytearray(reference_bytes()[: 3 * 40])
    data[3 * 16 : 3 * 18] = data[3 * 17 : 3 * 18] + data[3 * 16 : 3 * 17]  # swap 16 and 17
    path = bad_copy(tmp_path, bytes(data))
    with pytest.raises(
        BookFileError, match=r"bad\.dat: records not sorted \(record 17 < record 16\)"
    ):
        read_records(path, BOOK8)


def test_duplicate_records(tmp_path):
    data = reference_bytes()[: 3 * 10]
    path = bad_copy(tmp_path, data[:15] + data[12:15] + data[15:])
    with pytest.raises(BookFileError, match=r"record 5 repeats the position of record 4"):
        read_records(path, BOOK8)
    fmt, records = read_records(BOOK8_FILE)
    dup = Records(np.append(records.keys, records.keys[0]), np.append(records.values, 1))
    with pytest.raises(BookFileError, match="repeats the position"):
        write_book(tmp_path / "never.dat", fmt, dup)
    assert not (tmp_path / "never.dat").exists()


def test_record_not_a_position_of_the_ply(tmp_path):
    data = reference_bytes()[: 3 * 10]
    nine = position_key(Position.from_moves("111111222"), 24)  # 9 stones, sorts last
    path = bad_copy(tmp_path, data + nine.to_bytes(3, "big"))
    with pytest.raises(BookFileError, match=r"bad.dat: record 10 .* has 9 stones, expected 8"):
        read_records(path, BOOK8)
    cells = [[1, 1, 1, 1, 0, 0], [2, 2, 2, 0, 0, 0]] + [[0] * 6] * 5  # A has four
    four = position_key(Position.from_array(cells, check=False), 24)
    path = bad_copy(tmp_path, four.to_bytes(3, "big"))
    with pytest.raises(BookFileError, match=r"bad.dat: record 0 .*illegal.*four in a row"):
        read_records(path, BookFormat.for_plies(7, False, *DEFAULT_BOARD))
    garbage = bytearray(reference_bytes()[: 3 * 4])
    garbage[9:12] = b"\xff\xff\xfc"  # all ones: a column overflows, no column code
    with pytest.raises(BookFileError, match=r"record 3 .* not a column code"):
        read_records(bad_copy(tmp_path, bytes(garbage)), BOOK8)


def test_bad_values(tmp_path):
    data = bytearray(reference_bytes()[: 3 * 10])
    data[3 * 2 + 2] |= 3
    with pytest.raises(BookFileError, match=r"bad.dat: record 2 has value 3"):
        read_records(bad_copy(tmp_path, bytes(data)), BOOK8)
    fmt = BOOK12_DIST
    records = make_records(fmt, random_positions(12, 10, 1))
    records.values[3] = 100 - 31  # 12 + 31 stones do not fit the board
    with pytest.raises(BookFileError, match="value 69, not a distance of a 12-stone position"):
        write_book(tmp_path / "d.dat", fmt, records)
    records.values[3] = 100 - 4  # first player "wins" with stone 16: the second's stone
    write_book(tmp_path / "d.dat", fmt, records)  # the format holds it
    info = describe_book(tmp_path / "d.dat", fmt)
    i = int(np.flatnonzero(read_records(tmp_path / "d.dat", fmt)[1].values == 96)[0])
    assert info["checks"]["distances"] == (
        f"record {i} says the first player wins in 4 plies, but stone 16 is the second player's"
    )
    assert info["ok"] is False


def test_describe_book(tmp_path):
    info = describe_book(BOOK8_FILE)
    assert info["format"] == "8-ply" and info["records"] == 34_286
    raw = np.frombuffer(reference_bytes(), dtype=np.uint8)[2::3] & 3
    assert info["values"] == {
        "draw": int((raw == 0).sum()),
        "first": int((raw == 2).sum()),
        "second": int((raw == 1).sum()),
    }
    assert info["ok"] is True
    data = bytearray(reference_bytes()[: 3 * 40])
    data[3 * 16 : 3 * 18] = data[3 * 17 : 3 * 18] + data[3 * 16 : 3 * 17]
    info = describe_book(bad_copy(tmp_path, bytes(data)), BOOK8)
    assert info["checks"]["order"] == "records not sorted (record 17 < record 16)"
    assert info["checks"]["positions"] == "ok" and info["ok"] is False
