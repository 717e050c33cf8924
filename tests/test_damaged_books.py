"""Damaged or foreign files are refused with one line, never answered.

* a compact book with one changed byte of its header (width, height, ply, seed) or of
  its payload: ``info`` and ``open_book`` say it is damaged (the checksum);
* a Pons book whose value bytes are damaged: ``get`` and ``lookup_many`` refuse
  (a score outside what the position's stones allow), never ``plies=-437``;
* a Cadot table with an impossible outcome byte: refused the same way;
* a manifest edited to call a partial book complete: refused on open, so a missing
  position is never answered "first player wins" by the pruning rule;
* junk files of any name: no format recognises them, whatever their suffix;
* a shipped book with any byte changed is listed as damaged by ``books``, and refused by
  ``analyze`` when it first reads the book, though the engine listed it by its header.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from openingbook import BookFileError, open_book
from openingbook.cli import main
from openingbook.formats.cadot import write_cadot
from openingbook.formats.pons import HEADER_BYTES, write_pons
from openingbook.formats.thill import manifest_path
from openingbook.provenance import file_sha256
from openingbook.solver import Position, enumerate_positions

ROOT = Path(__file__).resolve().parents[1]
BOOKS = ROOT / "books"
#: byte offsets in a compact book's fixed header (docs/FORMATS.md)
HEADER_FIELDS = {"width": 10, "height": 11, "ply": 12, "seed": 24}


@pytest.mark.parametrize("where", [*HEADER_FIELDS, "payload", "last payload byte"])
def test_a_damaged_compact_book_is_reported_damaged_in_one_line(where, tmp_path):
    data = bytearray((BOOKS / "book8.c4b").read_bytes())
    offset = {"payload": 2000, "last payload byte": len(data) - 1}.get(where)
    data[HEADER_FIELDS.get(where, offset)] ^= 0x01
    path = tmp_path / "damaged.c4b"
    path.write_bytes(bytes(data))
    result = CliRunner().invoke(main, ["info", str(path)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "damaged" in lines[0], result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    with pytest.raises(BookFileError, match="damaged"):
        open_book(path)


def test_books_flags_a_shipped_book_changed_in_any_byte(tmp_path, monkeypatch):
    """Every single-byte change of a shipped book, header or body, makes ``books`` list
    it as damaged (the whole file is checked against its checksum); the others stay."""
    from openingbook import booknames, registry

    monkeypatch.setattr(booknames, "books_dir", lambda: tmp_path)
    monkeypatch.setattr(booknames, "deep_books_dir", lambda: None)  # these alone
    shutil.copy(BOOKS / "book1-dist.c4b", tmp_path)
    original = (BOOKS / "book0-dist.c4b").read_bytes()
    target = tmp_path / "book0-dist.c4b"
    for offset in range(len(original)):
        data = bytearray(original)
        data[offset] ^= 0x10
        target.write_bytes(bytes(data))
        listed = {b.name: b for b in registry.shipped_books(verify=True)}
        assert listed["0-dist"].damaged, f"byte {offset} changed, not flagged"
        assert listed["1-dist"].damaged is None
    data = bytearray((BOOKS / "book8.c4b").read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit in the middle of the body
    (tmp_path / "book8.c4b").write_bytes(bytes(data))
    target.write_bytes(original)
    output = CliRunner().invoke(main, ["books"]).output.splitlines()
    [damaged] = [line for line in output if "DAMAGED" in line]
    assert damaged.startswith("8 ") and "checksum mismatch (damaged file)" in damaged
    assert {line.split()[0] for line in output if "position" in line} == {"0-dist", "1-dist"}
    listed = json.loads(CliRunner().invoke(main, ["books", "--json"]).output)["books"]
    assert [b["name"] for b in listed if b["damaged"]] == ["8"]


def _positions(moves: list[str]) -> tuple[np.ndarray, np.ndarray]:
    pos = [Position.from_moves(m) for m in moves]
    return (
        np.array([p.first_stones for p in pos], np.uint64),
        np.array([p.mask for p in pos], np.uint64),
    )


def test_damaged_pons_values_are_refused_not_answered(tmp_path):
    moves = ["4444", "4455", "1234"]
    first, mask = _positions(moves)
    path = tmp_path / "b.book"
    write_pons(path, first, mask, np.array([0, 1, -1]), width=7, height=6)
    with open_book(path) as book:  # sound: answered
        assert [book.get(Position.from_moves(m)).score for m in moves] == [0, 1, -1]
    data = bytearray(path.read_bytes())
    size = (len(data) - HEADER_BYTES) // (data[3] + 1)
    values = np.frombuffer(data, np.uint8, size, HEADER_BYTES + size * data[3]).copy()
    # score 39 - 19 = 20: more than any 4-stone position can have (19), within the board's
    values[values != 0] = 39
    data[HEADER_BYTES + size * data[3] :] = values.tobytes()
    path.write_bytes(bytes(data))
    with open_book(path) as book:
        for m in moves:
            with pytest.raises(BookFileError, match="impossible"):
                book.get(Position.from_moves(m))
            with pytest.raises(BookFileError, match="impossible"):  # not a quiet False either
                _ = Position.from_moves(m) in book
        with pytest.raises(BookFileError, match="impossible"):
            book.lookup_many(first, mask)
        with pytest.raises(BookFileError, match="impossible"):
            book.lookup_many(first, mask, strict=False)


def test_an_impossible_cadot_outcome_is_refused(tmp_path):
    first, mask = _positions(["4444"])
    path = tmp_path / "b.cadot"
    write_cadot(path, first, mask, np.array([1]), np.array([5]))  # first wins in 5: sound
    with open_book(path) as book:
        assert book.get(Position.from_moves("4444")).plies == 5
    data = bytearray(path.read_bytes())
    data[6] = 0x40 | 4  # first player wins 4 plies on: the second player places that stone
    path.write_bytes(bytes(data))
    with open_book(path) as book:
        with pytest.raises(BookFileError, match="record 0"):
            book.get(Position.from_moves("4444"))
        with pytest.raises(BookFileError, match="impossible"):
            book.lookup_many(first, mask)


def test_every_error_of_a_damaged_file_names_the_file(tmp_path):
    """A Pons book whose stored keys are damaged (refused when opened: its table does not
    fit its header), a Cadot table with an impossible outcome: every reader call and every
    command that meets the damage says which file it is (the decoders deep inside do not
    know it)."""
    moves = ["4444", "4455", "1234", "7766"]
    first, mask = _positions(moves)
    pons = tmp_path / "keys.book"
    write_pons(pons, first, mask, np.array([0, 1, -1, 2]), width=7, height=6)
    data = bytearray(pons.read_bytes())
    size = (len(data) - HEADER_BYTES) // (data[3] + 1)
    for slot in range(size):  # every stored key: digits that no position of its depth has
        if data[HEADER_BYTES + size * data[3] + slot]:
            data[HEADER_BYTES + slot * data[3] : HEADER_BYTES + (slot + 1) * data[3]] = (
                b"\xff" * data[3]
            )
    pons.write_bytes(bytes(data))
    cadot = tmp_path / "outcome.cadot"
    write_cadot(cadot, first[:1], mask[:1], np.array([1]), np.array([5]))
    data = bytearray(cadot.read_bytes())
    data[6] = 0x40 | 4  # first player wins 4 plies on: the second player places that stone
    cadot.write_bytes(bytes(data))
    with pytest.raises(BookFileError, match="too large for the book's depth") as refused:
        open_book(pons)
    assert pons.name in str(refused.value), refused.value
    with open_book(cadot) as book, pytest.raises(BookFileError) as refused:
        list(book)
    assert cadot.name in str(refused.value), refused.value
    for path in (pons, cadot):
        for command in (["info", str(path)], ["export", str(path), "-f", "csv", "-o", "-"]):
            result = CliRunner().invoke(main, command)
            assert result.exit_code == 1
            [line] = [x for x in result.stderr.splitlines() if x.startswith("Error:")]
            assert path.name in line, (command, line)


def test_a_manifest_edited_to_complete_does_not_make_a_partial_book_complete(tmp_path):
    """The first 28 records of the complete 8-ply book, with a manifest that matches
    the file (size, records, sha256) but claims the complete scope."""
    book = tmp_path / "part.dat"
    book.write_bytes((BOOKS / "book8.dat").read_bytes()[: 28 * 3])
    manifest = json.loads(manifest_path(BOOKS / "book8.dat").read_text())
    manifest["book"].update(file=book.name, records=28, bytes=28 * 3, sha256=file_sha256(book))
    manifest_path(book).write_text(json.dumps(manifest))
    with pytest.raises(BookFileError, match=r"says the book is complete, but it holds 28 records"):
        open_book(book)
    result = CliRunner().invoke(main, ["lookup", str(book), "67464334"])
    assert result.exit_code == 1 and "complete" in result.output and "wins" not in result.output
    # the same records declared a sample are read, and the absent position is unknown
    manifest["selection"]["sample"] = 28
    manifest_path(book).write_text(json.dumps(manifest))
    with open_book(book) as partial:
        assert len(partial) == 28 and Position.from_moves("67464334") not in partial


JUNK = {
    "seeded random": np.random.default_rng(700).integers(0, 256, 700, dtype=np.uint8).tobytes(),
    "zeros": bytes(700),
    "counting": bytes(i % 256 for i in range(700)),
    "ascending records": b"".join(
        (i * 10**9).to_bytes(6, "big") + bytes([0x3F]) for i in range(100)
    ),
}


@pytest.mark.parametrize("suffix", [".bin", ".cadot", ".c4db", ".book", ".dat", ".c4b"])
@pytest.mark.parametrize("junk", sorted(JUNK))
def test_junk_is_refused_whatever_its_name(junk, suffix, tmp_path):
    path = tmp_path / f"junk{suffix}"
    path.write_bytes(JUNK[junk])
    with pytest.raises(BookFileError) as info:
        open_book(path)
    assert "\n" not in str(info.value)
    with pytest.raises(BookFileError):
        open_book(path, format="cadot")


def test_a_shipped_book_copied_under_another_name_still_opens(tmp_path):
    """Detection is by content: the suffix only orders the candidates."""
    for source, name in (("book8-dist.c4b", "b.dat"), ("book8-dist.dat", "b.c4b")):
        target = tmp_path / name
        shutil.copy(BOOKS / source, target)
        if source.endswith(".dat"):
            shutil.copy(manifest_path(BOOKS / source), manifest_path(target))
        with open_book(target) as book:
            assert len(book) == len(enumerate_positions(8, None, 7, 6)[0])


def test_a_shipped_book_damaged_after_its_header_was_read_is_refused(tmp_path, monkeypatch):
    """The engine lists the shipped books by their headers alone, each remembered for the
    process by path, size and mtime; the file itself is checked (CRC-32, every byte) when
    a position first needs it. A book damaged after its header was remembered, its size
    and mtime kept, is refused in one line at that first use, never answered."""
    from openingbook import booknames
    from openingbook.engine import Engine

    monkeypatch.setattr(booknames, "books_dir", lambda: tmp_path)
    monkeypatch.setattr(booknames, "deep_books_dir", lambda: None)  # these alone
    for ply in (4, 5):  # 4453: its children (5 stones) are in the 5-ply book
        shutil.copy(BOOKS / f"book{ply}-dist.c4b", tmp_path)
    target = tmp_path / "book5-dist.c4b"
    assert Engine().book_plies == (4, 5)  # the headers read, and remembered
    stat = target.stat()
    data = bytearray(target.read_bytes())
    data[-1] ^= 0x01  # the last payload byte: the header still parses
    target.write_bytes(bytes(data))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert target.stat().st_size == stat.st_size
    with Engine() as engine, pytest.raises(BookFileError, match="checksum mismatch"):
        assert engine.book_plies == (4, 5)
        engine.analyze("4453")
    result = CliRunner().invoke(main, ["analyze", "4453"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: {target}: checksum mismatch (damaged file)"
    ], result.output
