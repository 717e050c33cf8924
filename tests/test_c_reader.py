"""The C reader of the compact format (``readers/c/``): built with the system's C compiler,
it must answer every position exactly as the Python reader does (the status of every
probe and the value of every book position) and refuse what the Python reader refuses.

The books: every shipped compact book of up to 8 plies and samples of the bigger ones,
and books written here by the Python writer in both versions (2: fixed-width fields; 3:
codewords per context, with each context function): each value kind, scoped books,
parts, and boards other than 7x6 (one of them wider than 9 columns)."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from openingbook.formats.compact import CompactBook, CompactFileError, write_compact
from openingbook.formats.compact.book import file_crc32
from openingbook.solver import (
    DEFAULT_BOARD,
    DEFAULT_HEIGHT,
    DEFAULT_WIDTH,
    BoardSize,
    canonical_keys,
    enumerate_positions,
    mirror_bits,
)
from tests.helpers import BOOKS

READER = Path(__file__).resolve().parents[1] / "readers" / "c"

C_DRIVER = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "c4book.h"
/* argv[1]: a book. Without argv[2]: reads positions as pairs of native uint64 (first,
 * mask) and writes a native int32 pair (status, value) for each; with argv[2] "moves":
 * reads lines of move strings and prints "STATUS VALUE" for each (VALUE 0 unless the
 * status is C4BOOK_FOUND); with argv[2] "counts": prints "W H PLIES COUNT" of every board
 * and ply (c4book_complete_positions). */
int main(int argc, char **argv) {
    c4book book; char err[512];
    if (argc < 2) return 2;
    if (c4book_open(&book, argv[1], err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    if (argc > 2 && strcmp(argv[2], "counts") == 0) {
        for (int w = 1; w <= 64; w++)
            for (int h = 1; w * (h + 1) <= 64; h++)
                for (int n = 0; n <= w * h; n++)
                    printf("%d %d %d %llu\n", w, h, n,
                           (unsigned long long)c4book_complete_positions(w, h, n));
    } else if (argc > 2 && strcmp(argv[2], "moves") == 0) {
        char line[512], moves[400];
        while (fgets(line, sizeof line, stdin)) {
            int v = 0, s;
            moves[0] = '\0';
            sscanf(line, "%399s", moves);
            s = c4book_lookup_moves(&book, moves, &v);
            printf("%d %d\n", s, s == 0 ? v : 0);
        }
    } else {
        uint64_t in[2];
        while (fread(in, sizeof in, 1, stdin) == 1) {
            int v = 0, s = c4book_lookup(&book, in[0], in[1], &v);
            int32_t out[2] = {s, s == 0 ? v : 0};
            fwrite(out, sizeof out, 1, stdout);
        }
    }
    c4book_close(&book);
    return 0;
}
"""


@pytest.fixture(scope="module")
def c_reader(tmp_path_factory) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler: install gcc or clang (e.g. apt-get install gcc)")
    tmp = tmp_path_factory.mktemp("c4book")
    (tmp / "driver.c").write_text(C_DRIVER)
    exe = tmp / "c4book-driver"
    subprocess.run(
        [
            cc,
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            f"-I{READER}",
            "-o",
            str(exe),
            str(tmp / "driver.c"),
            str(READER / "c4book.c"),
        ],
        check=True,
    )
    return exe


def _c_answers(exe: Path, book: Path, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The C reader's (status, value) of each position."""
    pairs = np.stack([np.asarray(first, np.uint64), np.asarray(mask, np.uint64)], axis=1)
    out = subprocess.run([str(exe), str(book)], input=pairs.tobytes(), capture_output=True)
    assert out.returncode == 0, out.stderr
    answers = np.frombuffer(out.stdout, np.int32).reshape(-1, 2).astype(np.int64)
    assert len(answers) == len(pairs)
    return answers


def _c_move_answers(exe: Path, book: Path, moves: list[str]) -> list[list[int]]:
    """The C reader's (status, value) of each move string."""
    out = subprocess.run(
        [str(exe), str(book), "moves"],
        input="\n".join(moves) + "\n",
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    rows = [list(map(int, x.split())) for x in out.stdout.split("\n") if x]
    assert len(rows) == len(moves)
    return rows


def _python_answers(book: Path, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
    with CompactBook(book) as b:
        status, values = b.raw_lookup(first, mask)
    return np.stack([status.astype(np.int64), values.astype(np.int64)], axis=1)


def _refusal(exe: Path, book: Path) -> str:
    """The C reader's message for a book it refuses."""
    out = subprocess.run([str(exe), str(book)], input="", capture_output=True, text=True)
    assert out.returncode == 1, out
    return out.stderr


def _probe_set(first: np.ndarray, mask: np.ndarray, board: BoardSize, rng: np.random.Generator):
    """The positions, their mirror images, and damaged variants: a stone recoloured
    (wrong counts), two stones of different colours swapped (fours, unreachable
    boards), stones with a stone above them removed (floating stones, wrong ply)."""
    width, height = board
    flip = rng.integers(0, width * height, first.size)
    cells = ((flip // height) * (height + 1) + flip % height).astype(np.uint64)
    recoloured = first ^ ((np.uint64(1) << cells) & mask)
    second = first ^ mask
    low_a, low_b = first & (np.uint64(0) - first), second & (np.uint64(0) - second)
    swapped = first ^ low_a ^ low_b
    return (
        np.concatenate([first, mirror_bits(first, width, height), recoloured, swapped, first]),
        np.concatenate(
            [
                mask,
                mirror_bits(mask, width, height),
                mask,
                mask,
                mask ^ (mask & (mask >> np.uint64(1))),
            ]
        ),
    )


def _agree(exe: Path, book: Path, first, mask, board: BoardSize, seed: int) -> np.ndarray:
    """Both readers' answers to the probe set of the positions: equal; the Python ones."""
    f, m = _probe_set(first, mask, board, np.random.default_rng(seed))
    c, py = _c_answers(exe, book, f, m), _python_answers(book, f, m)
    assert np.array_equal(c, py), f"{book.name}: {int((c != py).any(axis=1).sum())} differ"
    return py


# ------------------------------------------------------------- written books
def _made_up_values(kind: str, plies: int, keys: np.ndarray, cells: int) -> np.ndarray:
    """Values of ``kind`` any game of ``plies`` stones may have, spread by the keys."""
    if kind == "wdl":
        choices = np.array([-1, 0, 1])
    elif kind == "distance":
        room = np.arange(1, cells - plies + 1)
        choices = np.concatenate([[0], 100 - room, room - 100])
    else:
        choices = np.arange(-(cells // 2 - (plies + 1) // 2), cells // 2 - plies // 2 + 1)
    # a skewed spread (low indices likelier), as real books are
    pick = (keys * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
    index = (pick.astype(np.float64) / 2**24) ** 2 * choices.size
    return choices[index.astype(np.int64)].astype(np.int8)


def _real_values(kind: str, plies: int, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The values of the shipped 7x6 distance book of ``plies``, as ``kind``."""
    with CompactBook(BOOKS / f"book{plies}-dist.c4b") as book:
        answers = book.lookup_many(first, mask)
        distance = book.values_of(first, mask)
    return {"wdl": answers.winner, "distance": distance, "score": answers.score}[kind].astype(
        np.int8
    )


def _write(
    path: Path,
    plies: int,
    kind: str,
    board: BoardSize = DEFAULT_BOARD,
    under: str | None = None,
    part: tuple[int, int] | None = None,
    real: bool = False,
    version: int = 3,
) -> tuple[np.ndarray, np.ndarray]:
    """A book of the positions of ``plies`` (under ``under``, of ``part``); its positions."""
    first, mask = enumerate_positions(plies, under, *board, part=part)
    if real:
        values = _real_values(kind, plies, first, mask)
    else:
        keys = canonical_keys(first, mask, *board)
        values = _made_up_values(kind, plies, keys, board.cells)
    header = write_compact(
        path, plies, kind, first, mask, values, under=under, part=part, board=board, version=version
    )
    assert header.version == version
    return first, mask


def _all_positions(plies: int, board: BoardSize, under: str | None = None):
    """Every position of the ply (both variants, wins at once too): what a reader must
    answer or refuse."""
    return enumerate_positions(plies, under, *board, merge_mirrors=False, drop_immediate_wins=False)


@pytest.mark.parametrize("version", [3, 2])
@pytest.mark.parametrize("kind", ["wdl", "distance", "score"])
def test_c_reader_agrees_on_every_position_of_small_books(
    kind: str, version: int, c_reader: Path, tmp_path: Path
) -> None:
    """Complete 7x6 books of 0 to 8 plies holding the true values, as each kind."""
    plies_list = range(9) if kind == "distance" and version == 3 else (0, 1, 5, 8)
    for plies in plies_list:
        book = tmp_path / f"b{plies}-{kind}.c4b"
        _write(book, plies, kind, real=True, version=version)
        py = _agree(c_reader, book, *_all_positions(plies, DEFAULT_BOARD), DEFAULT_BOARD, plies)
        if plies >= 1:
            assert (py[:, 0] == 0).any() and (py[:, 0] > 1).any()  # answers and refusals


# a board, a ply, a scope line, a part, the kind, the version
SCOPED_AND_PARTS = [
    (DEFAULT_BOARD, 8, "44", None, "wdl", 3),
    (DEFAULT_BOARD, 8, "44", None, "wdl", 2),
    (DEFAULT_BOARD, 7, "4", None, "score", 3),
    (DEFAULT_BOARD, 8, None, (2, 5), "distance", 3),
    (DEFAULT_BOARD, 8, None, (2, 5), "distance", 2),
    (DEFAULT_BOARD, 6, None, (1, 1), "wdl", 3),
    (BoardSize(5, 4), 8, None, None, "distance", 3),
    (BoardSize(5, 4), 9, None, None, "score", 2),
    (BoardSize(5, 4), 8, "33", None, "wdl", 3),
    (BoardSize(6, 5), 7, None, (3, 4), "score", 3),
    (BoardSize(6, 5), 8, None, None, "distance", 3),
    (BoardSize(4, 9), 6, None, None, "distance", 3),
    (BoardSize(10, 4), 5, "5", None, "wdl", 3),
    (BoardSize(10, 5), 4, None, None, "score", 2),
    (BoardSize(10, 5), 5, None, None, "score", 3),
    (BoardSize(4, 4), 16, None, None, "distance", 3),
]


@pytest.mark.parametrize(
    ("board", "plies", "under", "part", "kind", "version"),
    SCOPED_AND_PARTS,
    ids=[f"{b}-{n}-{u or ''}-{p or ''}-{k}-v{v}" for b, n, u, p, k, v in SCOPED_AND_PARTS],
)
def test_c_reader_agrees_on_scoped_books_parts_and_other_boards(
    board, plies, under, part, kind, version, c_reader: Path, tmp_path: Path
) -> None:
    book = tmp_path / "b.c4b"
    _write(book, plies, kind, BoardSize(*board), under, part, version=version)
    first, mask = _all_positions(plies, BoardSize(*board))
    py = _agree(c_reader, book, first, mask, BoardSize(*board), plies)
    if under is not None or (part is not None and part[1] > 1):
        assert (py[:, 0] == 7).any()  # refused: out of scope
    assert (py[: len(first), 0] == 0).any()


def test_c_reader_reads_each_context_function_and_codes_without_bits(
    c_reader: Path, tmp_path: Path
) -> None:
    """Version 3 books of context function 0 and 1 (the writer picks the smaller file),
    with codewords, and with one value per context only (K = 0: no bit read)."""
    from openingbook.formats.compact.contexts import CONTEXT_THREATS_CENTRE, position_contexts

    seen = set()
    for plies, board, how in (
        (8, DEFAULT_BOARD, "real"),  # threats and centre pay: function 1
        (3, DEFAULT_BOARD, "made up"),  # too few positions for 1: function 0
        (6, BoardSize(6, 5), "one value"),  # K = 0, function 0
        (7, DEFAULT_BOARD, "the context"),  # the value follows the context: function 1, K = 0
        (6, BoardSize(6, 5), "the context"),
    ):
        first, mask = enumerate_positions(plies, None, *board)
        if how == "real":
            values = _real_values("distance", plies, first, mask)
        elif how == "made up":
            keys = canonical_keys(first, mask, *board)
            values = _made_up_values("distance", plies, keys, board.cells)
        elif how == "one value":
            values = np.zeros(first.size, np.int8)
        else:
            contexts = position_contexts(first, mask, *board, CONTEXT_THREATS_CENTRE)
            values = (contexts % 3 - 1).astype(np.int8)
        book = tmp_path / f"{plies}-{board}-{how}.c4b"
        kind = "distance" if how in ("real", "made up") else "wdl"
        header = write_compact(book, plies, kind, first, mask, values, board=board)
        seen.add((header.context_function, header.value_bits == 0))
        _agree(c_reader, book, *_all_positions(plies, board), board, plies)
    assert seen == {(1, False), (0, False), (0, True), (1, True)}


def test_c_reader_reads_codewords_of_15_bits(c_reader: Path, tmp_path: Path) -> None:
    """A geometric spread of values (half the book one value, a quarter the next, ...): a
    Huffman code deeper than the format allows, limited to 15-bit codewords."""
    first, mask = enumerate_positions(8, None, *DEFAULT_BOARD)
    keys = canonical_keys(first, mask, *DEFAULT_BOARD)
    rank = np.argsort(np.argsort(keys * np.uint64(0x9E3779B97F4A7C15)))
    index = np.floor(-np.log2(1 - (rank + 0.5) / len(keys))).astype(np.int64)
    distances = np.concatenate([[0], 100 - np.arange(1, 35)])
    book = tmp_path / "deep.c4b"
    header = write_compact(
        book, 8, "distance", first, mask, distances[index].astype(np.int8), board=DEFAULT_BOARD
    )
    assert header.value_bits == 15  # K
    _agree(c_reader, book, *_all_positions(8, DEFAULT_BOARD), DEFAULT_BOARD, 8)


def test_c_reader_reads_move_strings(c_reader: Path, tmp_path: Path) -> None:
    """Digits on boards of up to 9 columns, comma-separated numbers on any board."""
    from openingbook.solver import Position

    cases = {
        (DEFAULT_BOARD, 4): ["4444", "1234", "4,4,4,4", "12", "0444", "8444", "444", "4x44"],
        (BoardSize(10, 4), 3): ["10,1,10", "1,2,3", "1,2,", "123", "10,10,10,10,10", "9,11,1"],
    }
    for (board, plies), moves in cases.items():
        book = tmp_path / f"m{board.width}.c4b"
        _write(book, plies, "wdl", board)
        c = _c_move_answers(c_reader, book, moves)
        for text, (status, value) in zip(moves, c, strict=True):
            try:
                p = Position.from_moves(text, *board)
            except ValueError:
                assert status == 8, text  # C4BOOK_BAD_MOVES
                continue
            py = _python_answers(book, np.array([p.first_stones]), np.array([p.mask]))
            assert [status, value] == py[0].tolist(), text


# ------------------------------------------------------------- shipped books
#: version 2 books kept as written before version 3 (tests/data/compact-v2/README.md)
KEPT_V2 = Path(__file__).resolve().parent / "data" / "compact-v2"


def test_c_reader_agrees_on_the_shipped_small_books(c_reader: Path) -> None:
    """Every shipped book of up to 8 plies, and the version 2 books kept for the tests."""
    for book in sorted(BOOKS.glob("*.c4b")) + sorted(KEPT_V2.glob("*.c4b")):
        with CompactBook(book) as b:
            plies, board, partial = b.plies, BoardSize(*b.board), b.under or b.part
        if plies > 8:
            continue
        py = _agree(c_reader, book, *_all_positions(plies, board), board, plies)
        if partial:
            assert (py[:, 0] == 7).any()  # out of scope


def test_c_reader_agrees_on_a_sample_of_12_ply_positions(c_reader: Path) -> None:
    rng = np.random.default_rng(12)
    # both variants, and positions whose side to move wins at once
    first, mask = _all_positions(12, DEFAULT_BOARD)
    pick = rng.choice(len(first), 40_000, replace=False)
    under_first, under_mask = enumerate_positions(
        12, under="44444", width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
    )
    first = np.concatenate([first[pick], under_first])
    mask = np.concatenate([mask[pick], under_mask])
    for name, statuses in (
        ("book12.c4b", {0, 1, 3, 4, 5, 6}),
        ("book12-dist.c4b", {0, 1, 3, 4, 5, 6}),
        ("book12-dist-under44444.c4b", {7}),
    ):
        py = _agree(c_reader, BOOKS / name, first, mask, DEFAULT_BOARD, 12)
        assert statuses <= set(py[:, 0].tolist())  # answers, and refusals of every kind


def test_c_reader_agrees_on_a_version_3_book_of_10_plies(c_reader: Path, tmp_path: Path) -> None:
    """The shipped 10-ply distance book written again in version 3 (whatever version the
    shipped books are): every position, and the probes of a sample."""
    with CompactBook(BOOKS / "book10-dist.c4b") as b:
        first, mask = b.positions()
        values = b.values_of(first, mask)
    book = tmp_path / "b10.c4b"
    header = write_compact(book, 10, "distance", first, mask, values, board=DEFAULT_BOARD)
    assert (header.version, header.context_function) == (3, 1) and header.value_bits > 8
    c = _c_answers(c_reader, book, first, mask)
    assert (c[:, 0] == 0).all() and np.array_equal(c[:, 1], values)
    pick = np.random.default_rng(10).choice(len(first), 20_000, replace=False)
    _agree(c_reader, book, first[pick], mask[pick], DEFAULT_BOARD, 10)


def test_c_reader_agrees_on_a_sample_of_other_boards_books(c_reader: Path) -> None:
    rng = np.random.default_rng(14)
    for name in ("book12-dist-6x6.c4b", "book14-dist-6x5.c4b"):
        with CompactBook(BOOKS / name) as b:
            plies, board = b.plies, BoardSize(*b.board)
        first, mask = enumerate_positions(plies, None, *board)
        pick = rng.choice(len(first), min(len(first), 20_000), replace=False)
        py = _agree(c_reader, BOOKS / name, first[pick], mask[pick], board, plies)
        assert (py[: len(pick), 0] == 0).all()


# ------------------------------------------------------------- damaged files
def test_c_reader_refuses_a_damaged_file(c_reader: Path, tmp_path: Path) -> None:
    data = bytearray((BOOKS / "book8.c4b").read_bytes())
    data[-30] ^= 4
    bad = tmp_path / "bad.c4b"
    bad.write_bytes(bytes(data))
    assert re.search(r"bad\.c4b: checksum mismatch", _refusal(c_reader, bad))


def _damaged_header(name: str, edit) -> bytes:
    """A shipped book with its header edited and its CRC-32 recomputed, so that only
    the checks of the fields can refuse it."""
    data = bytearray((BOOKS / name).read_bytes())
    edit(data)
    start = struct.unpack_from("<I", data, 44)[0]
    struct.pack_into("<I", data, 40, file_crc32(bytes(data[:start]), bytes(data[start:])))
    return bytes(data)


def _wrapped_segments(data: bytearray) -> None:
    """L = 4, S = 2^32 - 1: a reader adding 2 to S in 32 bits sees a 4-cell table."""
    struct.pack_into("<II", data, 32, 4, 0xFFFFFFFF)
    start = struct.unpack_from("<I", data, 44)[0]
    del data[start:]
    data += bytes(16)  # 4 cells of 2 bits and the spare word
    struct.pack_into("<IIQ", data, 40, 0, start, 16)  # the CRC-32 is set by the caller


# header fields: each must be checked (FORMATS.md) by both readers, also when the
# checksum matches (a writer with a bug writes a matching checksum)
DAMAGED_HEADERS = {
    "wdl entry 2": ("book8.c4b", lambda d: d.__setitem__(66, 2), "value table"),
    "wdl table as distances": ("book8.c4b", lambda d: d.__setitem__(13, 1), "value table"),
    "score beyond the ply": (
        "book8.c4b",
        lambda d: (d.__setitem__(13, 2), d.__setitem__(66, 18)),
        "value table",
    ),
    "table not ascending": ("book8.c4b", lambda d: d.__setitem__(64, 1), "ascending"),
    "scope longer than the ply": (
        "book8-under44444.c4b",
        lambda d: d.__setitem__(12, 4),
        "scope",
    ),
    "segment count wraps": ("book8.c4b", _wrapped_segments, "segment|payload length"),
    "scope with a NUL": (  # "44\0\0\0": a C string reads "44"
        "book8-under44444.c4b",
        lambda d: d.__setitem__(slice(69, 72), bytes(3)),
        "scope line",
    ),
    "board too big": ("book8.c4b", lambda d: d.__setitem__(10, 10), "board"),
    # a complete book's count is its ply's (openingbook.checks.booksizes)
    "positions": ("book8.c4b", lambda d: d.__setitem__(16, d[16] ^ 1), r"has 77,?715 \(damaged"),
    "unknown structure": ("book8.c4b", lambda d: d.__setitem__(14, 3), "structure"),
}


@pytest.mark.parametrize("case", sorted(DAMAGED_HEADERS))
def test_damaged_headers_are_refused_by_both_readers(
    case: str, c_reader: Path, tmp_path: Path
) -> None:
    name, edit, message = DAMAGED_HEADERS[case]
    bad = tmp_path / "bad.c4b"
    bad.write_bytes(_damaged_header(name, edit))
    with pytest.raises(CompactFileError, match=message) as info:
        CompactBook(bad)
    assert "\n" not in str(info.value) and str(bad) in str(info.value)
    assert re.search(rf"bad\.c4b: .*({message})", _refusal(c_reader, bad))


def _with_scope(data: bytes, scope: bytes) -> bytes:
    """The book ``data`` with another scope (the header's lengths and CRC-32 to match)."""
    nvalues, old = data[56], data[57]
    meta = struct.unpack_from("<I", data, 60)[0]
    header_bytes = struct.unpack_from("<I", data, 44)[0]
    at = 64 + nvalues
    body = data[:at] + scope + data[at + old : at + old + meta]
    new_header = -(-len(body) // 8) * 8
    out = bytearray(body.ljust(new_header, b"\0") + data[header_bytes:])
    out[57] = len(scope)
    struct.pack_into("<I", out, 44, new_header)
    struct.pack_into("<I", out, 40, file_crc32(bytes(out[:new_header]), bytes(out[new_header:])))
    return bytes(out)


@pytest.mark.parametrize("part", ["0/3", "4/3", "1/65537", "1/", "a/3", "13", "1/3/3"])
def test_a_bad_part_is_refused_by_both_readers(part: str, c_reader: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.c4b"
    _write(good, 6, "wdl", part=(1, 3))
    bad = tmp_path / "bad.c4b"
    bad.write_bytes(_with_scope(good.read_bytes(), part.encode()))
    with pytest.raises(CompactFileError, match="part"):
        CompactBook(bad)
    assert "bad.c4b: bad part" in _refusal(c_reader, bad)
    # the same edit keeping the part opens: only the part's text refused it
    same = tmp_path / "same.c4b"
    same.write_bytes(_with_scope(good.read_bytes(), b"1/3"))
    assert _refusal_or_none(c_reader, same) is None


def _refusal_or_none(exe: Path, book: Path) -> str | None:
    out = subprocess.run([str(exe), str(book)], input="", capture_output=True, text=True)
    return None if out.returncode == 0 else out.stderr


def test_the_c_reader_knows_the_complete_books_sizes(c_reader: Path) -> None:
    """Its table of complete books' position counts is openingbook.checks.booksizes'."""
    from openingbook.checks.booksizes import complete_positions

    out = subprocess.run(
        [str(c_reader), str(BOOKS / "book8.c4b"), "counts"], capture_output=True, text=True
    )
    rows = [tuple(map(int, line.split())) for line in out.stdout.splitlines()]
    assert len(rows) > 1000 and sum(count > 0 for *_, count in rows) > 600
    for w, h, n, count in rows:
        assert count == (complete_positions(BoardSize(w, h), n) or 0), (w, h, n)


def test_a_scope_line_with_four_in_a_row_is_refused_by_both_readers(
    c_reader: Path, tmp_path: Path
) -> None:
    good = tmp_path / "good.c4b"
    _write(good, 8, "wdl", under="1212123")
    data = good.read_bytes()
    at = data.index(b"1212123", 64)
    bad = tmp_path / "bad.c4b"
    bad.write_bytes(data[:at] + b"1212121" + data[at + 7 :])  # the first player's four
    with pytest.raises(CompactFileError, match="scope line"):
        CompactBook(bad)
    assert "bad.c4b: bad scope line" in _refusal(c_reader, bad)


def test_a_cell_past_the_value_table_is_reported_as_damage(c_reader: Path, tmp_path: Path):
    """Every cell 3 in a 3-value table of version 2 (CRC-32 recomputed): every index is
    3 ^ 3 ^ 3."""
    v2 = tmp_path / "v2.c4b"
    _write(v2, 8, "wdl", real=True, version=2)
    data = bytearray(v2.read_bytes())
    assert data[15] == 2 and data[56] == 3  # 2-bit cells, 3 values
    start = struct.unpack_from("<I", data, 44)[0]
    payload = b"\xff" * (len(data) - start - 8) + bytes(8)  # cells all ones, the spare word 0
    data[start:] = payload
    struct.pack_into("<I", data, 40, file_crc32(bytes(data[:start]), payload))
    bad = tmp_path / "cells.c4b"
    bad.write_bytes(bytes(data))
    first, mask = enumerate_positions(8, None, *DEFAULT_BOARD)
    with CompactBook(bad) as book, pytest.raises(CompactFileError, match="holds no value"):
        book.values_of(first[:1], mask[:1])
    answers = _c_answers(c_reader, bad, first[:50], mask[:50])
    assert (answers[:, 0] == 9).all()  # C4BOOK_DAMAGED


# ------------------------------------------------ version 3's code section, damaged
def _leb128(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n >> 7 else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _codes(data: bytes) -> tuple[list[int], list[list[int]], int]:
    """A version 3 book's used contexts, each one's length fields, and the section's bytes
    (docs/FORMATS.md, "Version 3")."""
    start, nvalues = struct.unpack_from("<I", data, 44)[0], data[56]
    count, nlist = struct.unpack_from("<II", data, start)
    at, used = start + 8, []
    for _ in range(count):
        value = shift = 0
        while True:
            value |= (data[at] & 0x7F) << shift
            shift += 7
            at += 1
            if not data[at - 1] & 0x80:
                break
        used.append(value + (used[-1] if used else 0))
    nibbles = [(b >> s) & 15 for b in data[at : at + (count * nvalues + 1) // 2] for s in (0, 4)]
    rows = [nibbles[i * nvalues : (i + 1) * nvalues] for i in range(count)]
    return used, rows, -(-(8 + nlist + (count * nvalues + 1) // 2) // 8) * 8


def _section(numbers: list[int], rows: list[list[int]], list_tail: bytes = b"", pad: int = 0):
    """A code section of these LEB128 numbers (the first context, then the gaps) and
    length fields; ``pad`` goes into the first padding byte (or the spare half byte)."""
    listed = b"".join(map(_leb128, numbers)) + list_tail
    nibbles = [x for row in rows for x in row]
    packed = bytearray((len(nibbles) + 1) // 2)
    for i, x in enumerate(nibbles):
        packed[i // 2] |= x << (4 * (i % 2))
    body = bytearray(struct.pack("<II", len(rows), len(listed)) + listed + bytes(packed))
    body += bytes(-len(body) % 8)
    if pad:  # the spare half byte, else the first padding byte
        at = 8 + len(listed) + len(packed)
        if len(nibbles) % 2:
            body[at - 1] |= pad << 4
        else:
            assert at < len(body), "no padding byte to damage"
            body[at] = pad
    return bytes(body)


def _with_section(data: bytes, section: bytes) -> bytes:
    """The book with another code section; the payload length and CRC-32 to match."""
    start = struct.unpack_from("<I", data, 44)[0]
    old = _codes(data)[2]
    out = bytearray(data[:start] + section + data[start + old :])
    struct.pack_into("<Q", out, 48, len(out) - start)
    struct.pack_into("<I", out, 40, file_crc32(bytes(out[:start]), bytes(out[start:])))
    return bytes(out)


def _gaps(used: list[int]) -> list[int]:
    return [c - (used[i - 1] if i else 0) for i, c in enumerate(used)]


@pytest.fixture(scope="module")
def v3_book(tmp_path_factory) -> Path:
    """An 8-ply distance book of version 3 with context function 1 and real values."""
    path = tmp_path_factory.mktemp("v3") / "b8.c4b"
    _write(path, 8, "distance", real=True)
    assert path.read_bytes()[58] == 1
    return path


def _damaged_codes(data: bytes, case: str) -> bytes:
    used, rows, _ = _codes(data)
    multi = next(i for i, r in enumerate(rows) if sum(x > 0 for x in r) >= 3)
    row = rows[multi]
    longest = max(row)
    if case == "no context":
        return _with_section(data, _section([], []))
    if case == "a context twice":
        return _with_section(data, _section(_gaps(used[:1] + used), rows[:1] + rows))
    if case == "a context past the space":
        return _with_section(data, _section([*_gaps(used), 21168 - used[-1]], [*rows, rows[-1]]))
    if case == "more contexts than the space":
        return _with_section(
            data, _section(list(range(21169)), [[1] + [0] * (len(row) - 1)] * 21169)
        )
    if case == "an incomplete code":
        short = row.index(longest)
        bad = [x + (i == short) for i, x in enumerate(row)]
        return _with_section(data, _section(_gaps(used), [*rows[:multi], bad, *rows[multi + 1 :]]))
    if case == "an oversubscribed code":
        bad = [x - (i == row.index(longest)) for i, x in enumerate(row)]
        return _with_section(data, _section(_gaps(used), [*rows[:multi], bad, *rows[multi + 1 :]]))
    if case == "one value of length 2":
        one = [2] + [0] * (len(row) - 1)
        return _with_section(data, _section(_gaps(used), [*rows[:multi], one, *rows[multi + 1 :]]))
    if case == "a context without values":
        empty = [0] * len(row)
        return _with_section(
            data, _section(_gaps(used), [*rows[:multi], empty, *rows[multi + 1 :]])
        )
    if case == "a longer list":
        return _with_section(data, _section(_gaps(used), rows, list_tail=b"\x00"))
    if case == "a list cut short":
        section = bytearray(_section(_gaps(used), rows))
        nlist = struct.unpack_from("<I", section, 4)[0]
        section[8 + nlist - 1] |= 0x80  # the last number goes on
        return _with_section(data, bytes(section))
    if case == "nonzero padding":
        return _with_section(data, _section(_gaps(used), rows, pad=1))
    raise AssertionError(case)


CODE_DAMAGE = [
    "no context",
    "a context twice",
    "a context past the space",
    "more contexts than the space",
    "an incomplete code",
    "an oversubscribed code",
    "one value of length 2",
    "a context without values",
    "a longer list",
    "a list cut short",
    "nonzero padding",
]


@pytest.mark.parametrize("case", CODE_DAMAGE)
def test_a_broken_code_section_is_refused_by_both_readers(
    case: str, v3_book: Path, c_reader: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.c4b"
    bad.write_bytes(_damaged_codes(v3_book.read_bytes(), case))
    with pytest.raises(CompactFileError, match="code tables") as info:
        CompactBook(bad)
    assert "\n" not in str(info.value) and str(bad) in str(info.value)
    assert re.search(r"bad\.c4b: bad code tables: .*\(damaged file\)", _refusal(c_reader, bad))
    # the section written back as it was opens: only the damage refused it
    used, rows, _ = _codes(v3_book.read_bytes())
    same = tmp_path / "same.c4b"
    same.write_bytes(_with_section(v3_book.read_bytes(), _section(_gaps(used), rows)))
    assert _refusal_or_none(c_reader, same) is None


V3_HEADERS = {
    "K not the longest": (lambda d: d.__setitem__(15, d[15] + 1), "code|bits"),
    "K past 15": (lambda d: d.__setitem__(15, 16), "code|bits"),
    "unknown context function": (lambda d: d.__setitem__(58, 2), "context function"),
    "reserved byte": (lambda d: d.__setitem__(59, 1), "reserved"),
    "no value table": (lambda d: d.__setitem__(56, 0), "value"),
}


@pytest.mark.parametrize("case", sorted(V3_HEADERS))
def test_a_damaged_version_3_header_is_refused_by_both_readers(
    case: str, v3_book: Path, c_reader: Path, tmp_path: Path
) -> None:
    edit, message = V3_HEADERS[case]
    data = bytearray(v3_book.read_bytes())
    edit(data)
    start = struct.unpack_from("<I", data, 44)[0]
    struct.pack_into("<I", data, 40, file_crc32(bytes(data[:start]), bytes(data[start:])))
    bad = tmp_path / "bad.c4b"
    bad.write_bytes(bytes(data))
    with pytest.raises(CompactFileError, match=message):
        CompactBook(bad)
    assert re.search(rf"bad\.c4b: .*({message})", _refusal(c_reader, bad))


def test_a_context_missing_from_the_list_is_reported_as_damage(
    v3_book: Path, c_reader: Path, tmp_path: Path
) -> None:
    """A context dropped from the code section (CRC-32 recomputed): the positions of that
    context have no code; both readers say the file is damaged, and answer the others."""
    data = v3_book.read_bytes()
    used, rows, _ = _codes(data)
    drop = max(range(len(used)), key=lambda i: sum(rows[i]))  # a context with codewords
    keep = [i for i in range(len(used)) if i != drop]
    bad = tmp_path / "bad.c4b"
    bad.write_bytes(
        _with_section(data, _section(_gaps([used[i] for i in keep]), [rows[i] for i in keep]))
    )
    first, mask = enumerate_positions(8, None, *DEFAULT_BOARD)
    c = _c_answers(c_reader, bad, first, mask)
    from openingbook.formats.compact.contexts import CONTEXT_THREATS_CENTRE, position_contexts

    lost = position_contexts(first, mask, 7, 6, CONTEXT_THREATS_CENTRE) == used[drop]
    assert lost.any() and (c[lost, 0] == 9).all()  # C4BOOK_DAMAGED
    assert np.array_equal(c[~lost], _python_answers(bad, first[~lost], mask[~lost]))
    with CompactBook(bad) as book, pytest.raises(CompactFileError, match="damaged"):
        book.values_of(first[lost][:1], mask[lost][:1])
