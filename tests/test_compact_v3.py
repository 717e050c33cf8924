"""The compact format's version 3 (``docs/FORMATS.md``, "Version 3"): the code section
round-trips, every re-encoded book answers every position as the version 2 book it came
from, version 2 books still open, damaged version 3 files are refused in one line, and
the context is the same for both variants of a mirror pair on every board."""

from __future__ import annotations

import hashlib
import re
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.checks.diff import diff_books
from openingbook.formats.compact import (
    VERSION,
    CompactBook,
    CompactFileError,
    provenance,
    write_compact,
)
from openingbook.formats.compact.book import _pack_codes, _parse_codes, file_crc32
from openingbook.formats.compact.compressed import code_lengths
from openingbook.formats.compact.contexts import (
    CONTEXT_NONE,
    CONTEXT_THREATS_CENTRE,
    context_space,
    position_contexts,
)
from openingbook.pipeline.convert import convert_book
from openingbook.registry import resolve_book
from openingbook.solver import BoardSize, Position, enumerate_positions, mirror_bits
from tests.helpers import DATA

V2 = DATA / "compact-v2"
#: Shipped books up to 10 plies (and the small scoped ones), re-encoded whole in the tests.
SMALL_BOOKS = [
    *(f"{k}-dist" for k in range(0, 11)),
    "8",
    "10",
    "8-under44444",
    "12-dist-under44444",
]


def version_2_book(name: str, tmp_path: Path) -> Path:
    """The shipped book ``name`` in version 2: the shipped file while it is of version 2,
    else one written from it by the version 2 writer."""
    shipped = resolve_book(name)
    with CompactBook(shipped) as book:
        h = book.header
        if h.version == 2:
            return shipped
        first, mask = book.positions()
        values = book.values_of(first, mask)
    out = tmp_path / f"v2-{shipped.name}"
    write_compact(out, h.plies, h.kind, first, mask, values, under=h.line, part=h.part,
                  metadata=h.metadata, board=h.board, version=2)  # fmt: skip
    return out


def test_the_version_2_data_are_the_files_their_readme_lists() -> None:
    rows = re.findall(
        r"^\| `([^`]+)` \| ([\d,]+) \| `([0-9a-f]{64})` \|",
        (V2 / "README.md").read_text(),
        re.MULTILINE,
    )
    assert {name for name, _, _ in rows} == {p.name for p in V2.glob("*.c4b")}
    for name, size, digest in rows:
        data = (V2 / name).read_bytes()
        assert len(data) == int(size.replace(",", ""))
        assert hashlib.sha256(data).hexdigest() == digest


# ----------------------------------------------------------------- the code section
@settings(max_examples=60, deadline=None)
@given(
    space=st.integers(1, 5000),
    nvalues=st.integers(1, 40),
    data=st.data(),
)
def test_the_code_section_round_trips(space: int, nvalues: int, data: st.DataObject) -> None:
    used = np.array(
        sorted(data.draw(st.sets(st.integers(0, space - 1), min_size=1, max_size=60))),
        np.int64,
    )
    rows = []
    for _ in used:
        counts = np.array(data.draw(st.lists(st.integers(0, 1000), min_size=nvalues,
                                             max_size=nvalues)))  # fmt: skip
        counts[data.draw(st.integers(0, nvalues - 1))] += 1
        rows.append(code_lengths(counts))
    lengths = np.stack(rows)
    packed = _pack_codes(used, lengths)
    assert len(packed) % 8 == 0
    longest = int(lengths.max())
    got_used, got_lengths, size = _parse_codes(
        memoryview(packed + b"\0" * 16), nvalues, space, longest, "x"
    )
    assert size == len(packed)
    assert np.array_equal(got_used, used) and np.array_equal(got_lengths, lengths)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["wdl", "distance"]))
def test_random_values_round_trip_through_a_book(seed: int, kind: str, tmp_path_factory) -> None:
    """Any values a book can hold (random, per mirror pair) come back, through both the
    single and the bulk lookup, for either variant of each pair."""
    rng = np.random.default_rng(seed)
    plies = int(rng.integers(3, 7))
    first, mask = enumerate_positions(plies, None, 7, 6)
    if kind == "wdl":
        values = rng.integers(-1, 2, first.size).astype(np.int8)
    else:
        choices = np.array([0, *(100 - d for d in range(1, 43 - plies, 2)),
                            *(d - 100 for d in range(2, 43 - plies, 2))])  # fmt: skip
        values = rng.choice(choices[: int(rng.integers(1, choices.size + 1))], first.size)
    path = tmp_path_factory.mktemp("v3") / "b.c4b"
    write_compact(path, plies, kind, first, mask, values, board=BoardSize(7, 6), force=True)
    with CompactBook(path) as book:
        assert book.header.version == VERSION
        assert np.array_equal(book.values_of(first, mask), values.astype(np.int8))
        mf, mm = mirror_bits(first, 7, 6), mirror_bits(mask, 7, 6)
        assert np.array_equal(book.values_of(mf, mm), values.astype(np.int8))
        for i in rng.integers(0, first.size, 20):
            expected = book._answers[book.header.values.index(int(values[i]))]
            assert book.get(Position.from_bitboards(int(first[i]), int(mask[i]), 7, 6)) == expected
            assert book.get(Position.from_bitboards(int(mf[i]), int(mm[i]), 7, 6)) == expected


# ----------------------------------------------------------- every position, exactly
@pytest.mark.parametrize("name", SMALL_BOOKS)
def test_a_reencoded_book_answers_every_position_as_its_source(name: str, tmp_path: Path):
    source = version_2_book(name, tmp_path)
    out = tmp_path / "new.c4b"
    summary = convert_book(source, out)
    assert summary.positions > 0 and out.stat().st_size > 0
    with CompactBook(source) as old, CompactBook(out) as new:
        assert new.header.version == VERSION
        first, mask = old.positions()
        assert np.array_equal(old.values_of(first, mask), new.values_of(first, mask))
        assert new.header.metadata["source_manifest"] == old.header.metadata.get("source_manifest")
        assert provenance(new.header.metadata)["reencoded_from"] == source.name
        if old.header.version == 2:
            assert out.stat().st_size <= source.stat().st_size + 64
    assert diff_books(source, out).ok


@pytest.mark.parametrize("name", sorted(p.name for p in V2.glob("*.c4b")))
def test_version_2_books_open_and_reencode(name: str, tmp_path: Path):
    source = V2 / name
    with CompactBook(source) as old:
        assert old.header.version == 2
        first, mask = old.positions()
        values = old.values_of(first, mask)
        one = old.get(Position.from_bitboards(int(first[0]), int(mask[0]), 7, 6))
        assert one is not None
    out = tmp_path / name
    convert_book(source, out)
    with CompactBook(out) as new:
        assert new.header.version == 3 and new.part == old.part and new.under == old.under
        assert np.array_equal(new.values_of(first, mask), values)
    with pytest.raises(ValueError, match="exists"):
        convert_book(source, out)
    with pytest.raises(ValueError, match="already a version 3"):
        convert_book(out, tmp_path / "again.c4b")
    assert not (tmp_path / "again.c4b").exists()


# ------------------------------------------------------------------------ damage
def _rewrite(data: bytearray, at: int, value: bytes) -> bytes:
    """``data`` with ``value`` at ``at`` and the CRC-32 made right again: only the
    structure checks can refuse it."""
    data = bytearray(data)
    data[at : at + len(value)] = value
    header_bytes = struct.unpack_from("<I", data, 44)[0]
    crc = file_crc32(bytes(data[:header_bytes]), bytes(data[header_bytes:]))
    struct.pack_into("<I", data, 40, crc)
    return bytes(data)


def test_damaged_version_3_files_are_refused_in_one_line(tmp_path: Path):
    source = tmp_path / "b.c4b"
    convert_book(version_2_book("8-dist", tmp_path), source)  # big enough for contexts
    data = bytearray(source.read_bytes())
    p0 = struct.unpack_from("<I", data, 44)[0]
    nlist = struct.unpack_from("<I", data, p0 + 4)[0]
    lengths_at = p0 + 8 + nlist
    with CompactBook(source) as book:
        assert book.header.context_function == CONTEXT_THREATS_CENTRE
    cases = {
        "no contexts": (_rewrite(data, p0, struct.pack("<I", 0)), "used contexts"),
        "context list": (_rewrite(data, p0 + 4, struct.pack("<I", nlist + 1)), "code tables"),
        "gap of 0": (_rewrite(data, p0 + 9, bytes([0])), "context"),
        "incomplete code": (
            _rewrite(data, lengths_at, bytes([data[lengths_at] ^ 0x11])),
            "code tables|longest",
        ),
        "longest codeword": (_rewrite(data, 15, bytes([data[15] + 1])), "header says"),
        "context function": (_rewrite(data, 58, bytes([7])), "unknown context function"),
        "reserved": (_rewrite(data, 59, bytes([1])), "reserved"),
        "metadata": (_rewrite(data, p0 - 8, b"\xff" * 8), "header"),
        "flipped bit": (
            bytes(data[:-20]) + bytes([data[-20] ^ 1]) + bytes(data[-19:]),
            "checksum",
        ),
        "truncated": (bytes(data[:-8]), "bytes"),
    }
    for name, (damaged, message) in cases.items():
        path = tmp_path / f"{name}.c4b"
        path.write_bytes(damaged)
        with pytest.raises(CompactFileError, match=message) as info, CompactBook(path) as book:
            first, mask = book.positions()
            book.values_of(first, mask)
        assert "\n" not in str(info.value), name
        assert (
            "damaged" in str(info.value) or "bad" in str(info.value) or name in ("flipped bit",)
        ), (name, str(info.value))


def test_a_book_position_of_an_unused_context_is_damage(tmp_path: Path):
    """A context list that misses a stored position's context answers nothing."""
    source = tmp_path / "b.c4b"
    convert_book(version_2_book("8-dist", tmp_path), source)
    data = bytearray(source.read_bytes())
    p0 = struct.unpack_from("<I", data, 44)[0]
    nlist = struct.unpack_from("<I", data, p0 + 4)[0]
    gaps = list(data[p0 + 8 : p0 + 8 + nlist])
    # a used context moved one up (its gap one more, the next one's one less): the
    # positions of its old context are no longer listed
    k = next(k for k in range(1, len(gaps) - 1) if gaps[k] < 0x7F and 1 < gaps[k + 1] < 0x80)
    assert all(g < 0x80 for g in gaps[: k + 2])  # one byte each up to there
    damaged = _rewrite(data, p0 + 8 + k, bytes([gaps[k] + 1, gaps[k + 1] - 1]))
    path = tmp_path / "moved.c4b"
    path.write_bytes(damaged)
    with CompactBook(path) as book, pytest.raises(CompactFileError, match="damaged"):
        first, mask = book.positions()
        book.values_of(first, mask)


def test_the_metadata_is_compressed(tmp_path: Path):
    out = tmp_path / "b.c4b"
    convert_book(V2 / "book6-dist.c4b", out)
    with CompactBook(out) as book:
        h = book.header
    data = out.read_bytes()
    nmeta = struct.unpack_from("<I", data, 60)[0]
    at = 64 + len(h.values) + len(h.scope or "")
    assert zlib.decompress(data[at : at + nmeta]).startswith(b"{")


# ------------------------------------------------------------------ the contexts
@pytest.mark.parametrize("board", [(7, 6), (6, 5), (4, 4), (8, 7), (5, 4), (9, 6)])
def test_the_context_is_the_same_for_both_variants(board: tuple[int, int]):
    width, height = board
    first, mask = enumerate_positions(min(6, width * height // 2), None, width, height)
    c = position_contexts(first, mask, width, height, CONTEXT_THREATS_CENTRE)
    m = position_contexts(
        mirror_bits(first, width, height),
        mirror_bits(mask, width, height),
        width,
        height,
        CONTEXT_THREATS_CENTRE,
    )
    assert np.array_equal(c, m)
    assert c.min() >= 0 and c.max() < context_space(CONTEXT_THREATS_CENTRE, width, height)
    assert (position_contexts(first, mask, width, height, CONTEXT_NONE) == 0).all()


@pytest.mark.parametrize("board", [(6, 5), (4, 4), (8, 7)])
def test_books_of_other_boards_round_trip(board: tuple[int, int], tmp_path: Path):
    width, height = board
    plies = 5
    first, mask = enumerate_positions(plies, None, width, height)
    values = np.random.default_rng(width).integers(-1, 2, first.size).astype(np.int8)
    out = tmp_path / "b.c4b"
    write_compact(out, plies, "wdl", first, mask, values, board=BoardSize(width, height))
    with CompactBook(out) as book:
        assert np.array_equal(book.values_of(first, mask), values)
        mf, mm = mirror_bits(first, width, height), mirror_bits(mask, width, height)
        assert np.array_equal(book.values_of(mf, mm), values)


def test_positions_of_every_status_answer_as_in_version_2(tmp_path: Path):
    """Book positions, positions of other plies, wins at once and boards no game has,
    in one bulk call: version 3 (whose kernel checks them in its own pass) answers
    exactly as version 2."""
    source = version_2_book("8-dist", tmp_path)
    out = tmp_path / "b.c4b"
    convert_book(source, out)
    parts = [enumerate_positions(k, None, 7, 6) for k in (7, 8, 9)]
    first = np.concatenate([f for f, _ in parts] + [np.array([1, 0], np.uint64)])
    mask = np.concatenate([m for _, m in parts] + [np.array([1, 1 << 7 | 1], np.uint64)])
    first = np.concatenate([first, mirror_bits(first, 7, 6)])
    mask = np.concatenate([mask, mirror_bits(mask, 7, 6)])
    with CompactBook(source) as old, CompactBook(out) as new:
        a = old.lookup_many(first, mask, strict=False)
        b = new.lookup_many(first, mask, strict=False)
        for field in ("index", "winner", "plies", "score"):
            assert np.array_equal(getattr(a, field), getattr(b, field)), field
        assert (a.index >= 0).sum() == 2 * 77_715 and (a.index < 0).any()
        assert np.array_equal(old.statuses(first, mask), new.statuses(first, mask))
