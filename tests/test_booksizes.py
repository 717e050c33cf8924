"""The size of a complete book, and the refusal of a book that claims completeness
with fewer positions.

:data:`openingbook.checks.booksizes.COMPLETE_POSITIONS` is checked against the enumerator
(recounted for the small boards and plies), against Tromp's published per-ply counts
of 7x6 (through :func:`openingbook.checks.plycounts.count_all_positions`, which adds the
mirror variants, immediate wins and finished games back) and against Thill's files
(``docs/FORMATS.md``: 77,715 positions at 8 plies, 4,200,899 at 12). Then files
that claim to be complete and are not are refused in one line: a compact book whose
header was made to say complete, Thill-layout books whose manifest lost its scope
line (a distance book; a pruned book, which would answer every absent position as a
first-player win).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from openingbook import BookFileError, open_book
from openingbook.checks.booksizes import (
    CAP,
    COMPLETE_POSITIONS,
    all_boards,
    complete_positions,
    count_table,
)
from openingbook.checks.plycounts import count_all_positions
from openingbook.formats import FORMATS, load_book
from openingbook.formats.compact import CompactHeader
from openingbook.formats.compact.book import file_crc32
from openingbook.formats.thill import manifest_path
from openingbook.model import Scope
from openingbook.solver import BoardSize, Position
from openingbook.values import UNKNOWN

ROOT = Path(__file__).resolve().parents[1]
BOOKS = ROOT / "books"
BOARD = BoardSize(7, 6)


def test_the_table_covers_every_board_it_names():
    assert sorted(COMPLETE_POSITIONS) == sorted(all_boards())
    for board, counts in COMPLETE_POSITIONS.items():
        assert counts[:2] == (1, (board[0] + 1) // 2), board  # the empty board; one stone
        assert max(counts) <= CAP


@pytest.mark.parametrize("board", [(4, 4), (4, 5), (5, 4), (6, 4)])
def test_small_boards_are_counted_again(board):
    assert count_table([board])[board] == COMPLETE_POSITIONS[board]


def test_where_the_table_stops():
    """Each board's counts end just before the first ply past the cap (or at the full
    board): recounted with a small cap, the table's own prefix comes back."""
    for board in [(5, 4), (7, 6)]:
        counts = count_table([board], cap=1000)[board]
        assert counts == COMPLETE_POSITIONS[board][: len(counts)]
        assert COMPLETE_POSITIONS[board][len(counts)] > 1000
    assert len(COMPLETE_POSITIONS[(4, 4)]) == 17  # every ply of the full 16 cells


@pytest.mark.parametrize("plies", range(0, 10))
def test_7x6_against_tromps_counts(plies):
    counts = count_all_positions(plies, 1, *BOARD)
    assert counts.as_dict()["matches_published"]
    assert complete_positions(BOARD, plies) == counts.book


def test_7x6_against_thills_files():
    assert complete_positions(BOARD, 8) == 77_715
    assert complete_positions(BOARD, 12) == 4_200_899
    assert complete_positions(BOARD, len(COMPLETE_POSITIONS[(7, 6)])) is None
    assert complete_positions(BoardSize(3, 3), 2) is None


# --------------------------------------------------------------- refusals
def test_a_compact_book_made_to_say_complete_is_refused(tmp_path):
    """The scoped 8-ply book with its header's scope removed and its checksum made
    right again: its table holds 2,474 positions, a complete book 77,715."""
    data = bytearray((BOOKS / "book8-under44444.c4b").read_bytes())
    header = CompactHeader.parse(bytes(data), "scoped", len(data))
    payload = bytes(data[header.header_bytes :])
    header.structure, header.scope = 0, None
    header.header_bytes = CompactHeader.size_for(
        len(header.values), None, header.metadata, header.version
    )
    header.crc32 = 0
    header.crc32 = file_crc32(header.pack(), payload)
    path = tmp_path / "claims-complete.c4b"
    path.write_bytes(header.pack() + payload)
    with pytest.raises(BookFileError, match=r"complete 7x6 8-ply book has 77,715") as info:
        open_book(path)
    assert "\n" not in str(info.value)


def _thill_under(tmp_path: Path, kind: str) -> Path:
    """A Thill-layout 6-ply book (with distances, or pruned) of the positions under
    ``44``, written by the registry from the shipped complete distance book."""
    model = load_book(BOOKS / "book6-dist.c4b")
    scope = Scope("44", board=BOARD)
    keep = np.array(
        [
            scope.contains(Position.from_bitboards(int(f), int(m), *BOARD))
            for f, m in zip(model.first, model.mask, strict=True)
        ]
    )
    part = dataclasses.replace(model.select(keep), scope=scope)
    if kind == "wdl":
        unknown = np.full(len(part), UNKNOWN, np.int16)
        part = dataclasses.replace(part, kind="wdl", plies_to_end=unknown, score=unknown)
    path = tmp_path / f"under44-{kind}.dat"
    FORMATS["thill"].write(part, path)
    return path


def _drop_scope_line(book: Path) -> dict:
    manifest = json.loads(manifest_path(book).read_text())
    manifest["selection"]["under"] = None
    manifest_path(book).write_text(json.dumps(manifest))
    return manifest


@pytest.mark.parametrize("kind", ["distance", "wdl"])
def test_a_thill_book_whose_manifest_lost_its_scope_is_refused(tmp_path, kind):
    book = _thill_under(tmp_path, kind)
    with open_book(book) as opened:  # as written: a book of the positions under 44
        assert opened.scope.under == "44"
    _drop_scope_line(book)
    with pytest.raises(BookFileError, match=r"says the book is complete") as info:
        open_book(book)
    assert "\n" not in str(info.value) and "7,638" in str(info.value)  # the 6-ply count


def test_a_pruned_book_needs_the_records_its_value_counts_leave(tmp_path):
    """A manifest whose value counts were made to add up to the complete ply but
    leave too few first-player wins out for the records: refused."""
    book = _thill_under(tmp_path, "wdl")
    manifest = _drop_scope_line(book)
    values = manifest["values"]
    values["draw"] += complete_positions(BOARD, 6) - sum(values.values())
    manifest_path(book).write_text(json.dumps(manifest))
    with pytest.raises(BookFileError, match=r"holds [\d,]+ records and a complete 6-ply book"):
        open_book(book)


def test_complete_books_still_open():
    for name in ("book8.dat", "book8-dist.dat", "book10.dat", "book12.c4b", "book6-dist.c4b"):
        with open_book(BOOKS / name) as book:
            assert book.scope.complete and len(book) == complete_positions(book.board, book.plies)


def test_a_shipped_copy_keeps_opening(tmp_path):
    """A complete book and its manifest copied elsewhere: the same book."""
    for name in ("book10.dat", "book10.dat.json"):
        shutil.copy(BOOKS / name, tmp_path / name)
    with open_book(tmp_path / "book10.dat") as book:
        assert len(book) == 634_338
