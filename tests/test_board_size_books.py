"""Books of other board sizes: enumeration, codec, build, derive, lookup, export, refusals.

Small boards (4x4, 5x4, 6x5) are checked against brute force written here, independent
of the library: the book positions of each ply by walking the game tree over column
tuples, and (4x4) the exact score of every position by a memoized negamax over the
whole game.
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.checks.diff import diff_books
from openingbook.checks.published import BOARD_RESULTS
from openingbook.cli import main
from openingbook.codec import (
    MAX_ARRAY_HEIGHT,
    code_length,
    decode_column_code,
    decode_keys,
    decode_keys_raw,
    encode_column_code,
    encode_key_pairs,
    encode_keys,
    mirror_keys,
    position_key_pair,
)
from openingbook.errors import BookFileError, InvalidArgument, PositionNotInBook
from openingbook.formats import load_book
from openingbook.formats.compact import CompactBook
from openingbook.formats.thill import thill_values
from openingbook.model import BookModel
from openingbook.pipeline.negamax import derive_values
from openingbook.solver import (
    DEFAULT_BOARD,
    BoardSize,
    Position,
    Solver,
    count_positions,
    enumerate_positions,
    parse_board_size,
    plies_from_score,
    positions_with_moves,
    winner_from_score,
)
from tests.helpers import four_through

Columns = tuple[tuple[int, ...], ...]


# ------------------------------------------------------------------ brute force
def _wins_with(cols: Columns, col: int, height: int) -> bool:
    """Does the top stone of ``col`` make four in a row with its owner's stones?"""
    return four_through(cols, col, len(cols[col]) - 1)


def _play(cols: Columns, col: int, player: int) -> Columns:
    return (*cols[:col], (*cols[col], player), *cols[col + 1 :])


def _to_move(cols: Columns) -> int:
    return 1 if sum(map(len, cols)) % 2 == 0 else 2


def _wins_at_once(cols: Columns, height: int) -> bool:
    me = _to_move(cols)
    return any(
        len(cols[c]) < height and _wins_with(_play(cols, c, me), c, height)
        for c in range(len(cols))
    )


def _canonical(cols: Columns) -> Columns:
    return min(cols, cols[::-1])


def brute_force_layers(width: int, height: int, plies: int, line: str = "") -> list[set[Columns]]:
    """Per ply ``len(line)..plies``: the book positions (canonical column tuples) reached
    by continuing ``line``, by walking the game tree (nobody has four on the way)."""
    start: Columns = tuple(() for _ in range(width))
    for i, ch in enumerate(line):
        start = _play(start, int(ch) - 1, 1 if i % 2 == 0 else 2)
    layer = {start}
    out = []
    for _ in range(len(line), plies + 1):
        out.append({_canonical(p) for p in layer if not _wins_at_once(p, height)})
        nxt = set()
        for p in layer:
            me = _to_move(p)
            for c in range(width):
                if len(p[c]) < height:
                    child = _play(p, c, me)
                    if not _wins_with(child, c, height):  # the game goes on
                        nxt.add(child)
        layer = nxt
    return out


def _columns_of(first: int, mask: int, width: int, height: int) -> Columns:
    h1 = height + 1
    cols = []
    for c in range(width):
        col = []
        for r in range(height):
            bit = 1 << (c * h1 + r)
            if mask & bit:
                col.append(1 if first & bit else 2)
        cols.append(tuple(col))
    return tuple(cols)


def _as_columns(first: np.ndarray, mask: np.ndarray, width: int, height: int) -> set[Columns]:
    return {
        _canonical(_columns_of(int(f), int(m), width, height))
        for f, m in zip(first, mask, strict=True)
    }


def brute_force_scores(width: int, height: int):
    """``score(cols)``: the exact Pons score of a position, by memoized negamax over the
    whole game (only for tiny boards)."""
    cells = width * height

    @functools.cache
    def score(cols: Columns) -> int:
        n = sum(map(len, cols))
        if n == cells:
            return 0
        me = _to_move(cols)
        moves = [c for c in range(width) if len(cols[c]) < height]
        if any(_wins_with(_play(cols, c, me), c, height) for c in moves):
            return (cells + 1 - n) // 2
        return max(-score(_canonical(_play(cols, c, me))) for c in moves)

    return score


# ------------------------------------------------------------------ enumeration
@pytest.mark.parametrize(
    ("width", "height", "plies"), [(4, 4, 9), (5, 4, 8), (6, 5, 6), (9, 4, 5), (4, 9, 6)]
)
def test_enumeration_matches_the_game_tree(width, height, plies):
    layers = brute_force_layers(width, height, plies)
    for n, expected in enumerate(layers):
        first, mask = enumerate_positions(n, None, width, height)
        assert len(first) == len(expected), (n, len(first), len(expected))
        assert _as_columns(first, mask, width, height) == expected, n


@pytest.mark.parametrize(("width", "height", "line"), [(5, 4, "3"), (5, 4, "12"), (6, 5, "334")])
def test_enumeration_under_a_line_matches_the_game_tree(width, height, line):
    layers = brute_force_layers(width, height, 7, line)
    for n, expected in enumerate(layers, len(line)):
        # a mirror pair counts when either variant is reachable from the line
        assert count_positions(n, line, width, height) == len(expected), n
        first, mask = enumerate_positions(n, line, width, height)
        assert _as_columns(first, mask, width, height) == expected


# ------------------------------------------------------------------ codec
@st.composite
def boards_and_positions(draw):
    """A board that fits 64 bits and a position on it whose column code fits a key:
    ``(width, height, position, legal)``; legal positions come from random play, the
    others are any gap-free filling (the array codec does not need legality)."""
    width = draw(st.integers(1, 12))
    height = draw(st.integers(1, min(MAX_ARRAY_HEIGHT, 64 // width - 1)))
    if draw(st.booleans()):
        most = min(width * height, (64 - width + 1) // 2)
        pos = Position(width=width, height=height)
        target = draw(st.integers(0, most))
        while pos.stone_count < target:
            moves = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
            if not moves:
                break
            pos = pos.play(draw(st.sampled_from(moves)))
        return width, height, pos, True
    heights = [draw(st.integers(0, height)) for _ in range(width)]
    while code_length(sum(heights), width) > 64:
        heights[heights.index(max(heights))] -= 1
    cells = [[draw(st.integers(1, 2)) for _ in range(h)] + [0] * (height - h) for h in heights]
    return width, height, Position.from_array(cells, check=False), False


@settings(max_examples=300, deadline=None)
@given(boards_and_positions())
def test_column_code_round_trips_on_any_board(case):
    width, height, pos, legal = case
    n = pos.stone_count
    key_bits = 64
    bits = encode_column_code(pos)
    assert len(bits) == code_length(n, width) == width - 1 + 2 * n
    first = np.array([pos.first_stones], np.uint64)
    mask = np.array([pos.mask], np.uint64)
    keys, mirrored = encode_key_pairs(first, mask, key_bits, width, height)
    # the bitarray reference and the array path agree, left-aligned
    assert int(keys[0]) == int(bits.to01() or "0", 2) << (key_bits - len(bits))
    assert (int(keys[0]), int(mirrored[0])) == position_key_pair(pos, key_bits)
    f, m, ok = decode_keys_raw(keys, key_bits, width, height)
    assert ok.all() and (int(f[0]), int(m[0])) == (pos.first_stones, pos.mask)
    if legal:  # the bit-level reference decodes legal positions only
        assert decode_column_code(bits, width, height) == pos
    flipped = pos.mirror()
    assert int(mirror_keys(keys, key_bits, width, height)[0]) == int(
        encode_keys(
            np.array([flipped.first_stones], np.uint64),
            np.array([flipped.mask], np.uint64),
            key_bits,
            width,
            height,
        )[0]
    )


def test_boards_taller_than_the_codec_tables_are_refused():
    pos = Position.from_moves("1", 4, MAX_ARRAY_HEIGHT + 1)
    with pytest.raises(ValueError, match="rows"):
        encode_keys(np.array([pos.first_stones]), np.array([pos.mask]), 64, 4, pos.height)


def test_a_key_decodes_only_on_its_own_board():
    """The code of a 6x5 position is not a legal 7x6 code with the same stones in general:
    the board size is not in the bits, which is why only the compact format (header) or
    a manifest may carry books of other sizes."""
    pos = Position.from_moves("3344", 6, 5)
    key = position_key_pair(pos, 24)[0]
    first, mask = decode_keys(np.array([key], np.uint64), 24, 4, 6, 5)
    assert (int(first[0]), int(mask[0])) == (pos.first_stones, pos.mask)
    seven = decode_keys(
        np.array([key], np.uint64), 24, 4, *DEFAULT_BOARD
    )  # read as 7x6: another position
    assert Position.from_bitboards(int(seven[0][0]), int(seven[1][0])).to_moves() != "3344"


def test_board_size_parser():
    assert parse_board_size("8x7") == BoardSize(8, 7)
    assert str(parse_board_size(" 12X4 ")) == "12x4"
    for bad in ("8", "8x", "x7", "0x4", "9x7", "8x-1", "eight by seven"):
        with pytest.raises(ValueError, match="board size"):
            parse_board_size(bad)


# ------------------------------------------------------------------ build, lookup
def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def small_books(tmp_path_factory) -> dict[str, Path]:
    """Books built by the command line: 4x4 6- and 8-ply distances, 5x4 6- and 8-ply
    distances, 5x4 8-ply win/draw/loss, 5x4 8-ply under 3, 6x5 4-ply distances."""
    tmp = tmp_path_factory.mktemp("sizes")
    specs = {
        "4x4-8": ("4x4", "8", "--distances"),
        "4x4-6": ("4x4", "6", "--distances"),
        "5x4-8": ("5x4", "8", "--distances"),
        "5x4-6": ("5x4", "6", "--distances"),
        "5x4-8-wdl": ("5x4", "8"),
        "5x4-8-under3": ("5x4", "8", "--distances", "--under", "3"),
        "6x5-4": ("6x5", "4", "--distances"),
    }
    out = {}
    for name, (size, plies, *rest) in specs.items():
        path = tmp / f"{name}.c4b"
        result = run(
            "build", "--size", size, "--plies", plies, *rest, "-j", "1", "-q", "-o", str(path)
        )
        assert result.exit_code == 0, result.output
        out[name] = path
    return out


def test_built_values_match_brute_force_on_4x4(small_books):
    score = brute_force_scores(4, 4)
    for name, plies in (("4x4-8", 8), ("4x4-6", 6)):
        first, mask = enumerate_positions(plies, None, 4, 4)
        with CompactBook(small_books[name]) as book:
            assert book.board == (4, 4) and len(book) == len(first)
            got = book.lookup_many(first, mask).score
        want = [
            score(_canonical(_columns_of(int(f), int(m), 4, 4)))
            for f, m in zip(first, mask, strict=True)
        ]
        assert got.tolist() == want


def test_built_values_match_the_solver_on_5x4_and_6x5(small_books):
    rng = np.random.default_rng(5)
    for name, (w, h), plies in (("5x4-8", (5, 4), 8), ("6x5-4", (6, 5), 4)):
        first, mask = enumerate_positions(plies, None, w, h)
        pick = rng.choice(len(first), size=min(40, len(first)), replace=False)
        solver = Solver(table_log2=18, width=w, height=h)
        want = solver.solve_many(first[pick], mask[pick])
        with CompactBook(small_books[name]) as book:
            assert book.lookup_many(first[pick], mask[pick]).score.tolist() == want.tolist()


def test_win_draw_loss_book_agrees_with_the_distance_book(small_books):
    first, mask = enumerate_positions(8, None, 5, 4)
    with CompactBook(small_books["5x4-8"]) as dist, CompactBook(small_books["5x4-8-wdl"]) as wdl:
        assert wdl.kind == "wdl"
        assert (
            dist.lookup_many(first, mask).winner.tolist()
            == wdl.lookup_many(first, mask).winner.tolist()
        )


def test_under_book_is_the_full_book_restricted(small_books):
    first, mask = enumerate_positions(8, "3", 5, 4)
    with (
        CompactBook(small_books["5x4-8"]) as full,
        CompactBook(small_books["5x4-8-under3"]) as under,
    ):
        assert len(under) == len(first) < len(full)
        assert (
            under.lookup_many(first, mask).score.tolist()
            == full.lookup_many(first, mask).score.tolist()
        )
        outside = Position.from_moves("11223311", 5, 4)
        if not outside.can_win_next() and not under_line_reaches(outside, "3"):
            with pytest.raises(ValueError, match="outside"):
                under.get(outside)


def under_line_reaches(pos: Position, line: str) -> bool:
    from openingbook.solver import under_line

    return bool(
        under_line(
            np.array([pos.first_stones], np.uint64),
            np.array([pos.mask], np.uint64),
            line,
            pos.width,
            pos.height,
        )[0]
    )


def test_derive_from_a_deeper_ply_equals_the_direct_build(small_books):
    for deep, shallow in (("5x4-8", "5x4-6"), ("4x4-8", "4x4-6")):
        report = diff_books(small_books[shallow], _derived(small_books[deep], 6))
        assert report.ok and report.common == report.positions_a > 0


def _derived(source: Path, plies: int) -> Path:
    out = source.with_name(f"{source.stem}-derived{plies}.c4b")
    if not out.exists():
        result = run("derive", "--from", str(source), "--plies", str(plies), "-o", str(out))
        assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize(("name", "board"), [("4x4-8", (4, 4)), ("5x4-8", (5, 4))])
def test_empty_board_derived_from_the_book_matches_the_published_result(small_books, name, board):
    derivation = derive_values(load_book(small_books[name], complete=False), 0)
    score = int(derivation.result.values[0])
    outcome = (str(winner_from_score(score, 0)), plies_from_score(score, 0, *board))
    assert outcome == BOARD_RESULTS[board]


def test_lookup_reads_moves_on_the_books_board(small_books):
    book = str(small_books["5x4-8"])
    result = run("lookup", book, "33333", "--json")  # a 5-stone line: wrong ply for the book
    assert result.exit_code == 2
    moves = "12345123"
    result = run("lookup", book, moves, "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    pos = Position.from_moves(moves, 5, 4)
    assert answer["score"] == Solver(table_log2=16, width=5, height=4).solve(pos)
    assert answer["format"] == "compact 5x4 8-ply"


# ------------------------------------------------------------------ refusals
def test_a_book_of_one_size_is_never_read_as_another(small_books, tmp_path):
    book = str(small_books["5x4-8"])
    result = run("lookup", book, "12345123", "--size", "7x6")
    assert result.exit_code == 2
    assert "a book of the 5x4 board, not 7x6" in result.stderr
    result = run("lookup", book, "--board", "......./......./......./......./.....X./....OX.")
    assert result.exit_code == 2 and "for 5x4 boards, not 7x6" in result.stderr
    with CompactBook(small_books["5x4-8"]) as compact:
        with pytest.raises(PositionNotInBook, match=r"a 7x6 position is not in 5x4-8\.c4b"):
            compact.get(Position.from_moves("12345123"))
        assert Position.from_moves("12345123") not in compact
    # two books of different sizes are not compared
    for command in (["diff"], ["validate"]):
        result = run(*command, str(small_books["6x5-4"]), book)
        assert result.exit_code == 1
        assert "a book of the 5x4 board, not 6x5" in result.stderr
    with pytest.raises(BookFileError, match="not 6x5"):
        diff_books(small_books["6x5-4"], small_books["5x4-8"])


def test_thill_layout_is_refused_for_other_sizes(small_books, tmp_path):
    message = "Thill's book layout is for 7x6 boards only"
    result = run("build", "--size", "5x4", "--plies", "4", "--format", "thill", "-o", "x.dat")
    assert result.exit_code == 2 and message in result.stderr
    result = run(
        "derive", "--from", str(small_books["5x4-8"]), "--plies", "4", "--format", "thill",
        "-o", str(tmp_path / "d.dat"),
    )  # fmt: skip
    assert result.exit_code == 2 and message in result.stderr
    result = run("convert", str(small_books["5x4-8"]), str(tmp_path / "c.dat"))
    assert result.exit_code == 2 and message in result.stderr
    result = run("build", "--size", "5x4", "--plies", "4", "--shard", "1/2", "-o", "x.c4b")
    assert result.exit_code == 2 and "compact format" in result.stderr
    assert not (tmp_path / "d.dat").exists() and not (tmp_path / "c.dat").exists()


def test_manifest_carries_the_board(tmp_path):
    """A Thill-layout file of a 5x4 book (as earlier builds wrote on the way to a compact
    book): its manifest says 5x4, and the reader decodes it on that board (a given 7x6
    format is refused)."""
    from openingbook.formats import load_book
    from openingbook.formats.thill import BookFormat, identify, read_manifest
    from openingbook.formats.thill.book import book_bytes, thill_records, write_book_and_manifest
    from openingbook.pipeline.build import BuildOptions, build_book

    out = tmp_path / "b.dat"
    options = BuildOptions(plies=4, distances=True, board=BoardSize(5, 4))
    with pytest.raises(InvalidArgument, match="7x6 boards only"):
        build_book(out, options, jobs=1, progress=False)
    build_book(tmp_path / "b.c4b", options, jobs=1, progress=False)
    model = load_book(tmp_path / "b.c4b")
    fmt, records = thill_records(model)  # the registry's Thill writer refuses 5x4
    data = book_bytes(fmt, records)
    write_book_and_manifest(out, fmt, data, len(records), {"selection": options.selection()})
    fmt = read_manifest(out)["format"]
    assert (fmt["width"], fmt["height"], fmt["name"]) == (5, 4, "5x4-4-ply-dist")
    identity = identify(out)
    assert identity.fmt.board == (5, 4) and identity.records == count_positions(4, None, 5, 4)
    with pytest.raises(BookFileError, match="5x4-4-ply-dist"):
        identify(out, BookFormat.for_plies(4, True, *DEFAULT_BOARD))


def test_build_refuses_boards_the_solver_does_not_take(tmp_path):
    result = run("build", "--size", "8x8", "--plies", "4", "-o", str(tmp_path / "b.c4b"))
    assert result.exit_code == 2 and "more than 64" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_build_of_a_board_with_an_odd_number_of_cells(tmp_path):
    """5x5 (the solver takes odd cell counts): every record agrees with the solver."""
    from openingbook import open_book
    from openingbook.solver import Solver

    out = tmp_path / "b.c4b"
    result = run("build", "--size", "5x5", "--plies", "4", "--distances", "-o", str(out))
    assert result.exit_code == 0, result.output
    solver = Solver(table_log2=16, width=5, height=5)
    with open_book(out) as book:
        values = list(book)
    assert len(values) > 100
    for pos, value in values:
        assert value.score == solver.solve(pos), pos.to_diagram()


# ------------------------------------------------------------------ export
def test_pons_export_of_another_size_answers_the_solvers_scores(small_books, tmp_path):
    from openingbook.formats.pons import PonsBook

    out = tmp_path / "b.book"
    result = run(
        "export", str(small_books["5x4-8"]), "--format", "pons", "--out", str(out),
        "--log-size", "21",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:3] == bytes([5, 4, 8])  # width, height, depth
    first, mask = enumerate_positions(8, None, 5, 4)
    rng = random.Random(2)
    picks = rng.sample(range(len(first)), 30)
    solver = Solver(table_log2=16, width=5, height=4)
    with PonsBook(out) as book:
        for i in picks:
            pos = Position.from_bitboards(int(first[i]), int(mask[i]), 5, 4)
            assert book.get(pos).score == solver.solve(pos)
    result = run("export", str(small_books["5x4-8"]), "--format", "jsonl", "--out", "x.jsonl")
    assert result.exit_code == 2 and "7x6 books only" in result.stderr


# Every export that takes a board size, read back on 5x4, 6x5, 6x6 and 7x6: small books built
# above, the shipped 6x6 12-ply book (the board of the reported wrong plies: a Pons book of
# 6x6 once answered 6 plies too many, converted with 42 cells) and Thill's 8-ply book.
READ_BACK = [
    ("5x4-8", "pons"),
    ("6x5-4", "pons"),
    ("12-dist-6x6", "pons"),
    ("8-dist", "pons"),
    ("8-dist", "cadot"),
]


@pytest.mark.parametrize(("source", "fmt"), READ_BACK)
def test_every_export_reads_back_the_sources_answers_on_every_position(
    small_books, tmp_path, source, fmt
):
    from openingbook import open_book
    from openingbook.pipeline.export import export_book
    from openingbook.registry import resolve_book
    from openingbook.values import UNKNOWN

    path = small_books.get(source) or resolve_book(source)
    out = tmp_path / f"export.{fmt}"
    summary = export_book(path, fmt, out)
    with open_book(path) as book, open_book(out) as back:
        board = book.board if hasattr(book, "board") else book.format.board
        assert (back.width, back.height) == board if fmt == "pons" else board == (7, 6)
        plies = book.plies if hasattr(book, "plies") else book.format.plies
        first, mask = enumerate_positions(plies, None, *board)
        want = book.lookup_many(first, mask)
        got = back.lookup_many(first, mask, strict=False)
        kept = got.index >= 0  # Pons keeps one position per table slot
        assert int((~kept).sum()) == summary.details.get("lost_to_slot_clashes", 0)
        assert (~kept).sum() < len(first) // 20
        for field in ("winner", "plies", "score"):
            assert np.array_equal(getattr(got, field)[kept], getattr(want, field)[kept]), field
        # a left-out position is not known, never answered wrongly
        assert (got.winner[~kept] == UNKNOWN).all()
        assert (want.plies != UNKNOWN).all() and (want.score != UNKNOWN).all()
        # one position at a time (the path of the reported wrong plies), on a spread sample
        rng = np.random.default_rng(7)
        for i in rng.choice(np.flatnonzero(kept), size=min(300, int(kept.sum())), replace=False):
            pos = Position.from_bitboards(int(first[i]), int(mask[i]), *board)
            assert back.get(pos) == book.get(pos), pos.some_moves()


# ------------------------------------------------------------------ shipped books
def shipped_other_sizes():
    from openingbook.registry import shipped_books

    return [b for b in shipped_books() if b.board != "7x6"]


SHIPPED = shipped_other_sizes()


@functools.cache
def loaded(path: str) -> BookModel:
    """A shipped book in memory, loaded once for the tests below (a few seconds each)."""
    return load_book(path, complete=False)


def test_books_of_at_least_two_other_sizes_ship_and_are_listed():
    assert len({b.board for b in SHIPPED}) >= 2
    result = run("books", "--json")
    assert result.exit_code == 0
    listed = {b["name"]: b["board"] for b in json.loads(result.output)["books"]}
    for book in SHIPPED:
        assert listed[book.name] == book.board
        assert book.name.endswith(f"-{book.board}")  # book14-dist-6x5.c4b: 14-dist-6x5
        with CompactBook(book.path) as opened:
            assert opened.header.complete and opened.kind == "distance"
            assert len(opened) == count_positions(book.plies, None, *parse_board_size(book.board))


@pytest.mark.parametrize("book", SHIPPED, ids=lambda b: b.name)
def test_shipped_book_gives_the_published_value_of_the_empty_board(book):
    """Exact minimax from the book's deepest ply down to the empty board."""
    board = parse_board_size(book.board)
    derivation = derive_values(loaded(book.path), 0)
    assert derivation.covered.all()
    score = int(derivation.result.values[0])
    outcome = (str(winner_from_score(score, 0)), plies_from_score(score, 0, *board))
    assert outcome == BOARD_RESULTS[tuple(board)]


@pytest.mark.parametrize("book", SHIPPED, ids=lambda b: b.name)
def test_shipped_book_derives_shallower_plies_the_solver_agrees_with(book):
    """Two plies shallower (under a line, to keep it small) and at 4 plies (a sample):
    every derived score is the solver's."""
    board = parse_board_size(book.board)
    deep = loaded(book.path)
    solver = Solver(table_log2=20, width=board.width, height=board.height)
    rng = np.random.default_rng(7)
    lines = positions_with_moves(book.plies - 4, None, *board)[2].astype(str)
    line = lines[len(lines) // 2]  # a line of the enumeration: legal, nobody has four
    for plies, under in ((book.plies - 2, line), (4, None)):
        derivation = derive_values(deep, plies, under)
        assert derivation.covered.all() and len(derivation.first) > 0
        pick = rng.choice(len(derivation.first), min(25, len(derivation.first)), replace=False)
        solved = solver.solve_many(derivation.first[pick], derivation.mask[pick])
        assert derivation.result.values[pick].tolist() == solved.tolist(), plies


@pytest.mark.parametrize("book", SHIPPED, ids=lambda b: b.name)
def test_shipped_book_sample_re_solved(book):
    """Stored values of a random sample against the solver (as ``openingbook check``)."""
    from openingbook.checks.check import solve_book_values

    board = parse_board_size(book.board)
    deep = loaded(book.path)
    pick = np.sort(np.random.default_rng(3).choice(len(deep), 25, replace=False))
    solved = solve_book_values(
        deep.first[pick], deep.mask[pick], deep.plies, True, jobs=1, board=board
    )
    assert solved.tolist() == thill_values(deep)[1][pick].tolist()
