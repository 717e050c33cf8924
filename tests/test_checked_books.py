"""A book is checked before its first answer where its format allows, and says so where not.

* a Thill-layout book with a manifest: its bytes are compared with the manifest's sha256
  when it is opened, so one flipped bit of a value (a distance that a book can hold, so
  no record check notices) is refused by ``lookup`` and ``open_book``, never answered;
* ``open_book(..., verify=False)`` skips that comparison, and the reader says so;
* a book that cannot be checked (a Thill file without a manifest, Cadot and Pons files):
  ``lookup`` answers with a one-line note on stderr, ``info`` says its values are
  unchecked, and a Pons header whose board was changed is read as that board, which
  ``info`` and the reader say cannot be checked.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from openingbook import BookFileError, open_book
from openingbook.cli import main
from openingbook.errors import PositionNotInBook
from openingbook.formats.cadot import write_cadot
from openingbook.formats.pons import write_pons
from openingbook.formats.thill import Book, manifest_path
from openingbook.solver import Position

BOOKS = Path(__file__).resolve().parents[1] / "books"
#: a position of the shipped 8-ply distance book (a first-player win in 3 plies)
MOVES = "44444455"


def _copy(tmp_path: Path, manifest: bool = True) -> Path:
    book = tmp_path / "book8-dist.dat"
    shutil.copy(BOOKS / "book8-dist.dat", book)
    if manifest:
        shutil.copy(manifest_path(BOOKS / "book8-dist.dat"), manifest_path(book))
    return book


def _flip_value_bit(book: Path, moves: str) -> tuple[int, int]:
    """Flip bit 1 of the value byte of the record holding ``moves``: a distance of the
    same parity and sign that the book could hold (3 plies -> 1 ply). The value before
    and after."""
    with Book(book) as opened:
        index = opened.find(Position.from_moves(moves))
        rb = opened.format.record_bytes
    data = bytearray(book.read_bytes())
    before = data[index * rb + rb - 1]
    data[index * rb + rb - 1] ^= 0x02
    book.write_bytes(bytes(data))
    return before, data[index * rb + rb - 1]


def test_a_flipped_value_bit_is_refused_by_lookup_and_open_book(tmp_path):
    book = _copy(tmp_path)
    sound = CliRunner().invoke(main, ["lookup", str(book), MOVES])
    assert sound.exit_code == 0 and "in 3 plies" in sound.output
    assert _flip_value_bit(book, MOVES) == (97, 99)  # 3 plies -> 1: a value a book holds
    result = CliRunner().invoke(main, ["lookup", str(book), MOVES])
    assert result.exit_code == 1, result.output
    [line] = result.output.strip().splitlines()
    assert "book8-dist.dat" in line and "book8-dist.dat.json" in line and "sha256" in line
    assert result.exception is None or isinstance(result.exception, SystemExit)
    with pytest.raises(BookFileError, match=r"book8-dist\.dat: contents differ from its manifest"):
        open_book(book)
    with pytest.raises(BookFileError, match="manifest"):
        Book(book)


def test_verify_false_skips_the_sha256_and_says_the_values_are_unchecked(tmp_path):
    book = _copy(tmp_path)
    with open_book(book) as opened:
        assert opened.unchecked is None
    _flip_value_bit(book, MOVES)
    with open_book(book, verify=False) as opened:  # the explicit opt-out: answered as stored
        assert opened.get(Position.from_moves(MOVES)).plies == 1
        assert "unchecked" in opened.unchecked and "verify=False" in opened.unchecked
    with pytest.raises(BookFileError, match="sha256"):  # a whole check still refuses it
        open_book(book, verify=True)


def test_a_book_without_a_manifest_says_its_values_are_unchecked(tmp_path):
    book = _copy(tmp_path, manifest=False)
    info = CliRunner().invoke(main, ["info", str(book)])
    assert info.exit_code == 0, info.output
    [line] = [line for line in info.output.splitlines() if line.startswith("sha256 check")]
    assert "not available" in line and "no manifest book8-dist.dat.json" in line
    assert "unchecked" in line
    result = CliRunner().invoke(main, ["lookup", str(book), MOVES])
    assert result.exit_code == 0
    [answer] = result.stdout.strip().splitlines()
    assert answer.startswith("first player wins in 3 plies")
    [note] = result.stderr.strip().splitlines()
    assert note.startswith("note: book8-dist.dat has no manifest") and "unchecked" in note
    with open_book(book) as opened:
        assert "no manifest" in opened.unchecked
    checked_records = CliRunner().invoke(main, ["lookup", str(book), MOVES, "--check"])
    assert "unchecked" in checked_records.stderr  # sound records can still hold a wrong value
    (tmp_path / "checked").mkdir()
    checked = _copy(tmp_path / "checked")
    with_manifest = CliRunner().invoke(main, ["lookup", str(checked), MOVES])
    assert with_manifest.exit_code == 0 and with_manifest.stderr == ""  # checked: no note


def _positions(moves: list[str]) -> tuple[np.ndarray, np.ndarray]:
    pos = [Position.from_moves(m) for m in moves]
    return (
        np.array([p.first_stones for p in pos], np.uint64),
        np.array([p.mask for p in pos], np.uint64),
    )


@pytest.mark.parametrize("fmt", ["pons", "cadot"])
def test_formats_without_a_checksum_answer_with_a_note(fmt, tmp_path):
    first, mask = _positions(["4444", "4455"])
    path = tmp_path / f"b.{fmt}"
    if fmt == "pons":
        write_pons(path, first, mask, np.array([0, 1]), width=7, height=6)
    else:
        write_cadot(path, first, mask, np.array([0, 0]), np.array([38, 38]))
    result = CliRunner().invoke(main, ["lookup", str(path), "4444"])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.strip().splitlines()) == 1
    [note] = result.stderr.strip().splitlines()
    assert note.startswith("note: a ") and "no checksum" in note and "unchecked" in note
    info = CliRunner().invoke(main, ["info", str(path)])
    assert "checksum check: not available" in info.output, info.output


def test_a_pons_header_with_another_height_is_read_as_that_board_and_says_so(tmp_path):
    """Pons' header holds the board and nothing checks it: a height changed to another one
    the table also fits is read as that board. The reader and ``info`` say the board is
    unchecked, and only positions of that board are answered."""
    moves = ["4444", "4455", "1234"]
    first, mask = _positions(moves)
    path = tmp_path / "b.book"
    write_pons(path, first, mask, np.array([0, 1, -1]), width=7, height=6)
    data = bytearray(path.read_bytes())
    data[1] = 7  # the height byte: 6 -> 7
    path.write_bytes(bytes(data))
    with open_book(path) as book:
        assert tuple(book.board) == (7, 7)
        assert "board" in book.unchecked and "unchecked" in book.unchecked
        with pytest.raises(PositionNotInBook):  # a position of the 7x6 board: refused
            book.get(Position.from_moves("4444"))
    info = CliRunner().invoke(main, ["info", str(path)])
    [line] = [line for line in info.output.splitlines() if line.startswith("checksum check")]
    assert "not available" in line and "board its header gives" in line
    result = CliRunner().invoke(main, ["lookup", str(path), "4444"])  # read on 7x7
    assert "board its header gives" in result.stderr


def test_a_book_with_the_bytes_of_its_manifest_needs_no_order_scan(tmp_path, monkeypatch):
    """Its writer checked the order of those very bytes: a position a pruned book does not
    store is answered by the pruning rule without streaming the file's order again, and
    a shuffled copy (every record still a sound one) is refused by its manifest."""
    book = tmp_path / "book8.dat"
    shutil.copy(BOOKS / "book8.dat", book)
    shutil.copy(manifest_path(BOOKS / "book8.dat"), manifest_path(book))

    def no_scan(self):
        raise AssertionError("the order was streamed again")

    monkeypatch.setattr(Book, "check_order", no_scan)
    with open_book(book) as opened:
        value, record = opened.lookup(Position.from_moves(MOVES))
        assert (value.winner.value, record) == ("first", None)  # not stored: the rule
    data = book.read_bytes()
    records = [data[i : i + 3] for i in range(0, len(data), 3)]
    np.random.default_rng(3).shuffle(records)
    book.write_bytes(b"".join(records))
    with pytest.raises(BookFileError, match="sha256"):
        open_book(book)
