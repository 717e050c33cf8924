"""Compact books written straight from solved values (``build``/``derive --format compact``)
hold exactly the table the conversion of the Thill book of the same values holds: the same
header fields and byte-identical payloads, also against a shipped book converted that way."""

from __future__ import annotations

import json

import pytest

from openingbook.errors import InvalidArgument
from openingbook.formats.compact import CompactBook, provenance
from openingbook.formats.thill import read_manifest
from openingbook.pipeline.build import BuildOptions, build_book
from openingbook.pipeline.convert import convert_book
from openingbook.pipeline.derive import derive_book
from openingbook.registry import resolve_book
from openingbook.solver import DEFAULT_BOARD
from tests.helpers import assert_same_as_shipped, assert_same_table


def test_compact_build_equals_the_conversion_of_the_thill_build(tmp_path):
    options = BuildOptions(plies=8, under="44444", board=DEFAULT_BOARD)
    thill, direct = tmp_path / "b.dat", tmp_path / "b.c4b"
    build_book(thill, options, jobs=1, progress=False)
    build_book(direct, options, jobs=1, progress=False)
    assert not (tmp_path / "b.c4b.json").exists()  # no Thill book, no manifest on the way
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.c4b", "b.dat", "b.dat.json"]
    convert_book(thill, tmp_path / "converted.c4b")
    assert_same_table(direct, tmp_path / "converted.c4b")
    # today's shipped book of the same content was converted from a Thill build (or
    # re-encoded from such a conversion: the same answers)
    assert_same_as_shipped(direct, resolve_book("8-under44444"))
    with CompactBook(direct) as book:
        made = book.header.metadata["source_manifest"]
        assert made["selection"]["under"] == "44444" and "time" in made
        assert provenance(book.header.metadata)["built_by"] == made["command"]
    # back to Thill: the build's record comes back as its manifest, the bytes as built
    back = tmp_path / "back.dat"
    convert_book(direct, back)
    assert back.read_bytes() == thill.read_bytes()
    assert read_manifest(back)["selection"] == read_manifest(thill)["selection"]


def test_compact_derivation_equals_the_conversion_of_the_thill_derivation(tmp_path):
    source = resolve_book("12-dist-under44444").with_suffix(".dat")
    thill, direct = tmp_path / "d.dat", tmp_path / "d.c4b"
    derive_book(source, 10, thill, under="44444")
    derive_book(source, 10, direct, under="44444")
    convert_book(thill, tmp_path / "converted.c4b")
    assert_same_table(direct, tmp_path / "converted.c4b")
    with CompactBook(direct) as book:
        assert book.kind == "distance" and book.under == "44444"
        assert "derived_from" in book.header.metadata["source_manifest"]
    assert json.loads(json.dumps(read_manifest(thill)["derived_from"]))["format"] == "12-ply-dist"


def test_compact_output_name_and_whole_books_are_checked_before_any_work(tmp_path):
    with pytest.raises(InvalidArgument, match=r"\.c4b"):
        build_book(tmp_path / "b.dat", BuildOptions(plies=4, board=DEFAULT_BOARD), format="compact")
    with pytest.raises(InvalidArgument, match="whole book"):
        build_book(
            tmp_path / "b.c4b",
            BuildOptions(plies=4, shard=(1, 2), board=DEFAULT_BOARD),
            progress=False,
        )
    assert list(tmp_path.iterdir()) == []


def test_a_ply_past_the_table_of_counts_is_counted_part_by_part(tmp_path, monkeypatch):
    """A complete ply the table of counts does not hold (13 plies and more on 7x6) is
    counted by the enumerator part by part: the same count, so a whole ply is written and a
    ply with a position left out is refused."""
    import numpy as np

    from openingbook.formats.compact import book
    from openingbook.solver import enumerate_positions

    monkeypatch.setattr(book, "complete_positions", lambda board, plies: None)
    monkeypatch.setattr(book, "_COUNT_PART_POSITIONS", 100)  # several parts for 568
    assert book._complete_count(4, DEFAULT_BOARD, 568) == 568
    first, mask = enumerate_positions(4, None, *DEFAULT_BOARD)
    values = np.zeros(first.size, np.int8)
    book.write_compact(tmp_path / "b4.c4b", 4, "wdl", first, mask, values, board=DEFAULT_BOARD)
    with pytest.raises(InvalidArgument, match="a complete 4-ply book has 568"):
        book.write_compact(
            tmp_path / "short.c4b", 4, "wdl", first[1:], mask[1:], values[1:], board=DEFAULT_BOARD
        )
    assert not (tmp_path / "short.c4b").exists()
