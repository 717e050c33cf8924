"""JSONL and CSV export: fields read back to the same positions and values."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
from hypothesis import given, settings

from openingbook.codec import position_key
from openingbook.formats.tabular import FIELDS, diagrams, hex_codes
from openingbook.formats.thill import Book
from openingbook.pipeline.export import export_book
from openingbook.solver import Position
from tests.helpers import REFERENCE_BOOK8, built_book, positions


def _position(diagram: str) -> Position:
    return Position.from_diagram("\n".join(diagram[i : i + 7] for i in range(0, 42, 7)))


@settings(max_examples=150, deadline=None)
@given(positions(max_stones=29))  # a code of 6 + 2n bits fits 64 bits up to 29 stones
def test_diagram_and_code_fields_follow_their_definitions(pos: Position) -> None:
    first = np.array([pos.first_stones], np.uint64)
    mask = np.array([pos.mask], np.uint64)
    assert diagrams(first, mask) == [pos.to_diagram().replace("\n", "")]
    assert hex_codes(first, mask, 64) == [f"{position_key(pos, 64):016x}"]


def test_jsonl_of_a_distance_book_round_trips(tmp_path: Path) -> None:
    book = built_book()
    out = tmp_path / "book.jsonl"
    summary = export_book(book, "jsonl", out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    with Book(book) as source:
        assert len(rows) == summary.positions == len(source)
        seen = set()
        for row in rows:
            assert list(row) == list(FIELDS)
            pos = _position(row["diagram"])
            assert row["code"] == f"{position_key(pos, 32):08x}"
            value = source.get(pos)
            assert (row["winner"], row["plies"], row["score"]) == (
                value.winner.value,
                value.plies,
                value.score,
            )
            assert row["stones"] == pos.stone_count == 12
            seen.add(pos.canonical())
        assert seen == {p.canonical() for p, _ in source}


def test_csv_of_the_pruned_reference_book_is_complete(tmp_path: Path) -> None:
    out = tmp_path / "book8.csv"
    summary = export_book(REFERENCE_BOOK8, "csv", out)
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert summary.positions == len(rows) == 77715
    assert summary.recovered_first_wins == 77715 - (34286 - 5593)  # minus stored, once each
    assert all(row["plies"] == "" and row["score"] == "" for row in rows)
    positions_ = [_position(row["diagram"]) for row in rows[::97]]
    first = np.array([p.first_stones for p in positions_], np.uint64)
    mask = np.array([p.mask for p in positions_], np.uint64)
    with Book(REFERENCE_BOOK8) as book:
        winners = book.lookup_many(first, mask).winner
    names = {1: "first", -1: "second", 0: "draw"}
    assert [row["winner"] for row in rows[::97]] == [names[int(w)] for w in winners]
    counts = {name: sum(row["winner"] == name for row in rows) for name in names.values()}
    assert sum(counts.values()) == 77715 and min(counts.values()) > 0
