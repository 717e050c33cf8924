"""The compact book format: the position model, the retrieval table, reader, writer,
conversion both ways (byte-identical for our books), the CLI and the shipped books."""

from __future__ import annotations

import itertools
import json
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import openingbook
from openingbook.booknames import SHIPPED_SUFFIX
from openingbook.cli import main
from openingbook.errors import PositionNotInBook
from openingbook.formats.compact import (
    COMPACT_SUFFIX,
    CompactBook,
    CompactFileError,
    describe_compact,
    write_compact,
)
from openingbook.formats.compact.contexts import position_contexts
from openingbook.formats.compact.retrieval import (
    build_retrieval,
    mix,
    pack_fields,
    query_many,
    unpack_fields,
)
from openingbook.formats.thill import Book
from openingbook.pipeline.convert import convert_book
from openingbook.registry import resolve_book, shipped_books
from openingbook.solver import (
    DEFAULT_BOARD,
    DEFAULT_HEIGHT,
    DEFAULT_WIDTH,
    STATUS_OK,
    STATUS_OUT_OF_SCOPE,
    STATUS_WINS_AT_ONCE,
    Position,
    book_position_status,
    canonical_keys,
    enumerate_positions,
    mirror_bits,
    nb_book_position_status,
    under_line,
)
from openingbook.solver.membership import STATUS_UNREACHABLE
from tests.helpers import BOOKS, REFERENCE, assert_same_book, compact_payload

# every committed compact book beside its Thill book: small ones in the quick suite
CONVERTED = sorted(  # books of other sizes are compact only: no Thill book beside them
    p.with_suffix(".dat").name for p in BOOKS.glob("*.c4b") if p.with_suffix(".dat").exists()
)
THILL_BOOKS = [n for n in CONVERTED if (BOOKS / n).stat().st_size < 1_000_000]
SLOW_THILL_BOOKS = [n for n in CONVERTED if n not in THILL_BOOKS]


# ------------------------------------------------------------- position model
def _all_boards(stones: int) -> tuple[np.ndarray, np.ndarray]:
    """Every gravity-legal board with ``stones`` stones and alternating counts."""
    firsts, masks = [], []
    for heights in itertools.product(range(7), repeat=7):
        if sum(heights) != stones:
            continue
        cells = [c * 7 + r for c in range(7) for r in range(heights[c])]
        mask = sum(1 << x for x in cells)
        for chosen in itertools.combinations(cells, (stones + 1) // 2):
            firsts.append(sum(1 << x for x in chosen))
            masks.append(mask)
    return np.array(firsts, np.uint64), np.array(masks, np.uint64)


@pytest.mark.parametrize("stones", range(7))
def test_the_check_accepts_exactly_the_enumerated_positions(stones: int) -> None:
    first, mask = _all_boards(stones)
    status = book_position_status(first, mask, stones, *DEFAULT_BOARD)
    accepted = np.isin(status, (STATUS_OK, STATUS_WINS_AT_ONCE))
    ef, em = enumerate_positions(
        stones, None, *DEFAULT_BOARD, merge_mirrors=False, drop_immediate_wins=False
    )  # every reachable variant
    assert set(canonical_keys(first[accepted], mask[accepted], *DEFAULT_BOARD).tolist()) == set(
        canonical_keys(ef, em, *DEFAULT_BOARD).tolist()
    )
    kept_f, kept_m = enumerate_positions(stones, None, *DEFAULT_BOARD)
    assert (book_position_status(kept_f, kept_m, stones, *DEFAULT_BOARD) == STATUS_OK).all()
    if stones >= 2:  # boards with legal counts that no game reaches exist from 2 stones
        assert (status == STATUS_UNREACHABLE).any()


def test_an_unreachable_board_is_refused() -> None:
    aabb = np.array([0b0011], np.uint64), np.array([0b1111], np.uint64)  # column 1: A A B B
    assert book_position_status(*aabb, 4, *DEFAULT_BOARD).tolist() == [STATUS_UNREACHABLE]


def test_the_block_check_answers_like_the_one_position_check() -> None:
    """book_position_status runs the greedy take-back pass on blocks of positions at
    once; it must give nb_book_position_status's answer position by position, also
    for blocks that are not full and for boards of every kind (legal, unreachable,
    floating, wrong counts, fours, wrong ply)."""
    rng = np.random.default_rng(7)
    first, mask = enumerate_positions(
        10, None, *DEFAULT_BOARD, merge_mirrors=False, drop_immediate_wins=False
    )
    pick = rng.choice(first.size, 3000, replace=False)
    legal_f, legal_m = first[pick], mask[pick]
    scrambled_f = rng.integers(0, 1 << 49, 3000, dtype=np.uint64) & legal_m  # any colours
    noise_f = rng.integers(0, 1 << 49, 300, dtype=np.uint64)
    noise_m = noise_f | rng.integers(0, 1 << 49, 300, dtype=np.uint64)
    f = np.concatenate([legal_f, scrambled_f, noise_f, mirror_bits(legal_f[:77], *DEFAULT_BOARD)])
    m = np.concatenate([legal_m, legal_m, noise_m, mirror_bits(legal_m[:77], *DEFAULT_BOARD)])
    for plies in (9, 10):
        block = book_position_status(f, m, plies, *DEFAULT_BOARD)
        one = [nb_book_position_status(fi, mi, plies, 7, 6) for fi, mi in zip(f, m, strict=True)]
        assert block.tolist() == one
    assert len(set(book_position_status(f, m, 10, *DEFAULT_BOARD).tolist())) >= 5  # the kinds occur


@pytest.mark.parametrize("plies", [6, 8])
def test_the_scope_check_keeps_exactly_the_positions_under_a_line(plies: int) -> None:
    first, mask = enumerate_positions(plies, None, *DEFAULT_BOARD)
    keys = canonical_keys(first, mask, *DEFAULT_BOARD)
    for line in ["4", "44", "1", "7", "12", "4453", "1234", "7777", "3456", "11", "44444"]:
        under_first, under_mask = enumerate_positions(
            plies, under=line, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
        )
        expected = set(canonical_keys(under_first, under_mask, *DEFAULT_BOARD).tolist())
        assert set(keys[under_line(first, mask, line, *DEFAULT_BOARD)].tolist()) == expected, line
        # either variant of a pair
        assert under_line(
            mirror_bits(under_first, *DEFAULT_BOARD),
            mirror_bits(under_mask, *DEFAULT_BOARD),
            line,
            *DEFAULT_BOARD,
        ).all()


@pytest.mark.slow
def test_every_reachable_12_stone_position_passes_the_check() -> None:
    first, mask = enumerate_positions(
        12, None, *DEFAULT_BOARD, merge_mirrors=False, drop_immediate_wins=False
    )
    status = book_position_status(first, mask, 12, *DEFAULT_BOARD)
    assert np.isin(status, (STATUS_OK, STATUS_WINS_AT_ONCE)).all()


# ------------------------------------------------------------ retrieval table
@settings(max_examples=40, deadline=None)
@given(
    st.sets(st.integers(1, 2**63), max_size=3000),
    st.integers(1, 8),
    st.randoms(use_true_random=False),
)
def test_retrieval_returns_every_stored_value(keys: set[int], bits: int, rng) -> None:
    k = np.array(sorted(keys), np.uint64)
    v = np.array([rng.randrange(1 << bits) for _ in keys], np.uint64)
    table = build_retrieval(k, v, bits)
    assert np.array_equal(query_many(table, k), v)


@settings(deadline=None)
@given(
    st.integers(1, 32).flatmap(
        lambda bits: st.tuples(st.lists(st.integers(0, 2**bits - 1), max_size=200), st.just(bits))
    )
)
def test_packed_fields_round_trip(values_bits: tuple[list[int], int]) -> None:
    values, bits = values_bits  # every width, the books' 1 to 8 bits among them
    words = pack_fields(np.array(values, np.uint64), bits)
    assert words[-1] == 0  # the spare word a reader may always read
    assert unpack_fields(words, bits, len(values)).tolist() == values


def test_hash_matches_the_documented_formula() -> None:
    # splitmix64's finalizer (FORMATS.md): the first output of splitmix64 seeded with 0
    assert mix(0x9E3779B97F4A7C15, 0) == 0xE220A8397B1DCDAF


# ----------------------------------------------------------- reader and writer
@pytest.fixture(scope="module")
def small_books(tmp_path_factory) -> dict[str, Path]:
    """A complete 6-ply distance-like book and a scoped one, with made-up values."""
    tmp = tmp_path_factory.mktemp("compact")
    first, mask = enumerate_positions(6, None, *DEFAULT_BOARD)
    values = (canonical_keys(first, mask, *DEFAULT_BOARD) % np.uint64(3)).astype(np.int8) - 1
    whole = tmp / "b6.c4b"
    write_compact(whole, 6, "wdl", first, mask, values, board=DEFAULT_BOARD)
    sf, sm = enumerate_positions(6, under="44", width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    scoped = tmp / "b6-under44.c4b"
    write_compact(
        scoped,
        6,
        "wdl",
        sf,
        sm,
        (canonical_keys(sf, sm, *DEFAULT_BOARD) % np.uint64(3)).astype(np.int8) - 1,
        under="44",
        board=DEFAULT_BOARD,
    )
    return {"whole": whole, "scoped": scoped}


def test_every_position_answers_in_both_variants(small_books: dict[str, Path]) -> None:
    for name, under in (("whole", None), ("scoped", "44")):
        first, mask = enumerate_positions(
            6, under=under, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
        )
        expected = (canonical_keys(first, mask, *DEFAULT_BOARD) % np.uint64(3)).astype(np.int8) - 1
        with CompactBook(small_books[name]) as book:
            for f, m in (
                (first, mask),
                (mirror_bits(first, *DEFAULT_BOARD), mirror_bits(mask, *DEFAULT_BOARD)),
            ):
                bulk = book.lookup_many(f, m)
                assert np.array_equal(bulk.winner, expected)
            i = len(first) // 2
            p = Position.from_bitboards(int(first[i]), int(mask[i]))
            assert book.get(p).winner == book.get(p.mirror()).winner
            assert p in book and p.mirror() in book


def test_refused_positions_are_never_answered(small_books: dict[str, Path]) -> None:
    with CompactBook(small_books["whole"]) as book:
        with pytest.raises(PositionNotInBook, match=r"has 4 stones; .* holds 6-stone positions"):
            book.get(Position.from_moves("4444"))
        # column 1: A, A, B, B; column 2: A, B: legal counts, but no game reaches it
        unreachable = Position.from_bitboards(0b0011 | 1 << 7, 0b1111 | 0b11 << 7, check=False)
        with pytest.raises(ValueError, match="cannot occur in a game"):
            book.get(unreachable)
        wins = Position.from_moves("121212")  # A has three in column 1 and moves
        assert book.get(wins).winner.value == "first"
        assert wins in book  # answered (by the rule): in the book, though not stored
        assert book.status(wins) != STATUS_OK
        assert unreachable not in book
        bulk = book.lookup_many(
            np.array([unreachable.first_stones], np.uint64),
            np.array([unreachable.mask], np.uint64),
            strict=False,
        )
        assert bulk.winner.tolist() == [-128]
    with CompactBook(small_books["scoped"]) as book:
        outside = Position.from_moves("111222")
        with pytest.raises(PositionNotInBook, match="only the positions under 44"):
            book.get(outside)
        assert book.status(outside) == STATUS_OUT_OF_SCOPE


def test_the_writer_refuses_what_it_cannot_answer(tmp_path: Path) -> None:
    first, mask = enumerate_positions(6, None, *DEFAULT_BOARD)
    zeros = np.zeros(len(first), np.int8)
    with pytest.raises(ValueError, match="a complete 6-ply book has"):
        write_compact(
            tmp_path / "x.c4b", 6, "wdl", first[1:], mask[1:], zeros[1:], board=DEFAULT_BOARD
        )
    with pytest.raises(ValueError, match="not a 6-ply book position"):
        bad = first.copy()
        bad[0] = 0
        write_compact(tmp_path / "x.c4b", 6, "wdl", bad, mask, zeros, board=DEFAULT_BOARD)
    with pytest.raises(ValueError, match="not a wdl value"):
        write_compact(tmp_path / "x.c4b", 6, "wdl", first, mask, zeros + 5, board=DEFAULT_BOARD)
    write_compact(tmp_path / "x.c4b", 6, "wdl", first, mask, zeros, board=DEFAULT_BOARD)
    with pytest.raises(ValueError, match="exists"):
        write_compact(tmp_path / "x.c4b", 6, "wdl", first, mask, zeros, board=DEFAULT_BOARD)


def test_damaged_files_are_refused_in_one_line(small_books: dict[str, Path], tmp_path: Path):
    data = bytearray(small_books["whole"].read_bytes())
    cases = {
        "flipped": (lambda d: d.__setitem__(len(d) - 20, d[len(d) - 20] ^ 1), "checksum"),
        "truncated": (lambda d: d.__delitem__(slice(len(d) - 8, None)), "file size|bytes"),
        "magic": (lambda d: d.__setitem__(0, 0), "not a compact book"),
        "version": (lambda d: d.__setitem__(8, 4), "version 4"),
        "version 1": (lambda d: d.__setitem__(8, 1), "version 1, whose header has no checksum"),
        # a header field whose every value is valid: only the checksum catches it
        "seed": (lambda d: d.__setitem__(27, d[27] ^ 16), "checksum"),
        # a complete book's count is its ply's (openingbook.checks.booksizes), checked first
        "positions": (lambda d: d.__setitem__(16, d[16] ^ 1), r"6-ply book has 7,638 \(damaged"),
    }
    for name, (damage, message) in cases.items():
        copy = bytearray(data)
        damage(copy)
        path = tmp_path / f"{name}.c4b"
        path.write_bytes(bytes(copy))
        with pytest.raises(CompactFileError, match=message) as info:
            CompactBook(path)
        assert "\n" not in str(info.value) and str(path) in str(info.value)


# ------------------------------------------------------------------ conversion
def _round_trip(name: str, tmp_path: Path) -> None:
    source = BOOKS / name
    compact = tmp_path / (Path(name).stem + ".c4b")
    back = tmp_path / name
    convert_book(source, compact)
    convert_book(compact, back)
    assert back.read_bytes() == source.read_bytes()
    manifest = Path(str(back) + ".json")
    assert json.loads(manifest.read_text()) == json.loads(Path(str(source) + ".json").read_text())
    # the compact book answers like the Thill book, in both variants
    with CompactBook(compact) as c, Book(source) as t:
        first, mask = c.positions()
        for f, m in (
            (first, mask),
            (mirror_bits(first, *DEFAULT_BOARD), mirror_bits(mask, *DEFAULT_BOARD)),
        ):
            a, b = c.lookup_many(f, m), t.lookup_many(f, m)
            assert np.array_equal(a.winner, b.winner)
            assert np.array_equal(a.plies, b.plies) and np.array_equal(a.score, b.score)
    # the committed compact book holds the same table (the same answers, when it is
    # of the other version)
    shipped = BOOKS / compact.name
    assert_same_book(shipped, compact)


def test_every_compact_book_has_its_thill_book() -> None:
    assert {"book8.dat", "book12.dat", "book8-under44444.dat"} <= set(CONVERTED)
    assert all((BOOKS / name).exists() for name in CONVERTED)


@pytest.mark.parametrize("name", THILL_BOOKS)
def test_our_books_convert_both_ways_byte_for_byte(name: str, tmp_path: Path) -> None:
    _round_trip(name, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_THILL_BOOKS)
def test_our_large_books_convert_both_ways_byte_for_byte(name: str, tmp_path: Path) -> None:
    _round_trip(name, tmp_path)


def test_shards_and_samples_are_refused(tmp_path: Path) -> None:
    from openingbook.pipeline.build import BuildOptions, build_book

    shard = tmp_path / "shard.dat"
    options = BuildOptions(10, under="44444433", shard=(1, 2), chunk_size=7, board=DEFAULT_BOARD)
    build_book(shard, options, jobs=1, progress=False)
    with pytest.raises(ValueError, match="shard 1/2"):
        convert_book(shard, tmp_path / "s.c4b")
    assert not (tmp_path / "s.c4b").exists()


def test_thill_original_converts_value_for_value(tmp_path: Path) -> None:
    original = REFERENCE / "thill-original-book8.dat"
    out = tmp_path / "orig.c4b"
    convert_book(original, out)  # its mirror pairs stored twice are merged
    with CompactBook(out) as c, Book(original) as t:
        first, mask = c.positions()
        assert np.array_equal(c.lookup_many(first, mask).winner, t.lookup_many(first, mask).winner)


# ---------------------------------------------------------------- shipped books
def test_shipped_books_open_by_name_from_anywhere(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    names = {b.name for b in shipped_books()}
    assert {"8", "12", "8-under44444", "12-dist-under44444"} <= names
    with openingbook.open_book("8") as book:
        assert isinstance(book, CompactBook) and len(book) == 77_715
        assert book.get(Position.from_moves("67464334")).winner.value == "second"
    assert resolve_book("12-dist-under44444").name == "book12-dist-under44444.c4b"
    with pytest.raises(FileNotFoundError, match=r"shipped books: .*12"):
        resolve_book("16-dist")


def test_cli_on_compact_books(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    result = runner.invoke(main, ["lookup", "8", "67464334", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["winner"] == "second"
    result = runner.invoke(main, ["lookup", "12-dist-under44444", "444444333333"])
    assert result.exit_code == 0 and "first player wins in 3 plies" in result.output
    result = runner.invoke(main, ["lookup", "8-under44444", "11112222"])
    assert result.exit_code == 1 and "only the positions under 44444" in result.output
    result = runner.invoke(main, ["info", "8", "--json"])
    info = json.loads(result.output)
    assert info["ok"] and info["values"] == {"draw": 7344, "first": 48793, "second": 21578}
    result = runner.invoke(main, ["books", "--json"])
    books = {b["name"]: b for b in json.loads(result.output)["books"]}
    assert books["12"]["positions"] == 4_200_899 and books["12"]["provenance"]["built_by"]
    # the listing shortens the merge of the 14-ply book's 32 parts; --json has them all
    merged = books["14-dist"]["provenance"]["built_by"]
    assert merged.count("-part") == 32
    listing = runner.invoke(main, ["books"]).output.splitlines()
    (line,) = [listing[i + 1] for i, text in enumerate(listing) if text.startswith("14-dist ")]
    assert line.split()[:3] == merged.split()[:3] and "... (29 more)" in line
    assert line.count("-part") == 3 and line.endswith(merged.split("of32.c4b")[-1])
    result = runner.invoke(main, ["diff", str(BOOKS / "book8.dat"), "8"])
    assert result.exit_code == 0 and "SAME" in result.output
    out = tmp_path / "b8.dat"
    result = runner.invoke(main, ["convert", "8", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == (BOOKS / "book8.dat").read_bytes()
    result = runner.invoke(main, ["convert", "8", str(out)])
    assert result.exit_code == 1 and "exists" in result.output  # --force needed
    result = runner.invoke(main, ["convert", "8", str(tmp_path / "b8.txt")])
    assert result.exit_code == 2 and "--format" in result.output  # a bad argument


def test_info_checks_the_position_count_of_the_header(tmp_path: Path) -> None:
    data = bytearray((BOOKS / "book8.c4b").read_bytes())
    data[16] ^= 1  # n
    bad = tmp_path / "n.c4b"
    bad.write_bytes(bytes(data))
    with pytest.raises(CompactFileError, match="damaged"):
        describe_compact(bad)
    assert describe_compact(BOOKS / "book8.c4b")["checks"]["positions"] == "ok"


def test_a_closed_book_refuses_lookups() -> None:
    book = CompactBook(BOOKS / "book8.c4b")
    book.close()
    with pytest.raises(ValueError, match="closed"):
        book.get(Position.from_moves("67464334"))
    with pytest.raises(ValueError, match="closed"):
        book.lookup_many(*enumerate_positions(8, None, *DEFAULT_BOARD))


def test_deeply_nested_metadata_is_refused_in_one_line(tmp_path: Path) -> None:
    data = (BOOKS / "book8.c4b").read_bytes()
    start, values, scope = struct.unpack_from("<I", data, 44)[0], data[56], data[57]
    meta = b"[" * 100_000 + b"]" * 100_000  # valid JSON that json's recursion refuses
    header = bytearray(data[: 64 + values + scope]) + meta
    header += bytes(-len(header) % 8)
    struct.pack_into("<I", header, 44, len(header))
    struct.pack_into("<I", header, 60, len(meta))
    bad = tmp_path / "deep.c4b"
    bad.write_bytes(bytes(header) + data[start:])
    with pytest.raises(CompactFileError, match=r"deep\.c4b: bad compact book header"):
        CompactBook(bad)


@pytest.mark.parametrize(
    "metadata", [{"source": "x"}, {"converted": [1]}, {"source_manifest": {"book": "y"}}]
)
def test_metadata_of_another_shape_is_skipped(metadata: dict, tmp_path: Path) -> None:
    """FORMATS.md: readers may skip the metadata; info and convert must not trip on it."""
    first, mask = enumerate_positions(4, None, *DEFAULT_BOARD)
    book = tmp_path / "m.c4b"
    write_compact(
        book,
        4,
        "wdl",
        first,
        mask,
        np.zeros(len(first), np.int8),
        metadata=metadata,
        board=DEFAULT_BOARD,
    )
    assert describe_compact(book)["ok"]
    convert_book(book, tmp_path / "m.dat")
    with Book(tmp_path / "m.dat") as thill, CompactBook(book) as compact:
        assert np.array_equal(
            thill.lookup_many(first, mask).winner, compact.lookup_many(first, mask).winner
        )


def test_a_table_too_long_for_the_hash_is_refused(tmp_path: Path) -> None:
    """S * L above 2^32 would overflow c0's 64-bit product: refused (a sparse file of
    the announced length, so nothing is read but the header)."""
    data = bytearray((BOOKS / "book8.c4b").read_bytes())
    start = struct.unpack_from("<I", data, 44)[0]
    segments, length = (1 << 16) + 1, 1 << 16  # S * L = 2^32 + 2^16; (S + 2) * L cells
    payload = 8 * (((segments + 2) * length * 2 + 63) // 64 + 1)
    struct.pack_into("<II", data, 32, length, segments)
    struct.pack_into("<Q", data, 48, payload)
    bad = tmp_path / "long.c4b"
    with open(bad, "wb") as fh:
        fh.write(bytes(data[:start]))
        fh.truncate(start + payload)
    with pytest.raises(CompactFileError, match="segment"):
        CompactBook(bad)


def test_the_writer_refuses_scores_beyond_the_ply(tmp_path: Path) -> None:
    first, mask = enumerate_positions(6, None, *DEFAULT_BOARD)
    scores = np.zeros(len(first), np.int8)
    scores[0] = 19  # the side to move (3 stones) wins with its 4th stone at best: 18
    with pytest.raises(ValueError, match="not a score value"):
        write_compact(tmp_path / "s.c4b", 6, "score", first, mask, scores, board=DEFAULT_BOARD)
    scores[0] = 18
    write_compact(tmp_path / "s.c4b", 6, "score", first, mask, scores, board=DEFAULT_BOARD)


def _example_section(version: int) -> str:
    text = (Path(__file__).resolve().parents[1] / "docs" / "FORMATS.md").read_text()
    section = text[text.index(f"### Worked example, version {version}") :]
    return section[: re.search(r"\n##+ ", section).start()]


def test_formats_page_worked_example_of_version_3(tmp_path: Path) -> None:
    """The version 3 example, against the shipped book12.c4b when it is of version 3,
    else against its re-encoding (the bytes the metadata decides are not shown)."""
    book12 = BOOKS / "book12.c4b"
    with CompactBook(book12) as book:
        if book.header.version != 3:
            book12 = tmp_path / "book12.c4b"
            convert_book(BOOKS / "book12.c4b", book12)
    section = _example_section(3)
    rows = re.findall(
        r"^((?:[0-9a-f]{2} ){7}[0-9a-f]{2})  ((?:[0-9a-f]{2} ){7}[0-9a-f]{2})", section, re.M
    )
    documented = bytes.fromhex("".join(a + b for a, b in rows).replace(" ", ""))
    data = book12.read_bytes()
    assert len(documented) == 32 and documented == data[:32]
    flat = " ".join(section.split())
    p = Position.from_moves("616157435612")
    f, m = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    key = int(canonical_keys(f, m, *DEFAULT_BOARD)[0])
    with CompactBook(book12) as book:
        h = book.header
        assert f"a payload of {h.payload_bytes:,} bytes" in flat
        assert f"payload {h.payload_bytes:,} bytes" in flat
        hashed = mix(key, h.seed)
        assert f"key `{key:#x}` and `h` = `{hashed:#x}`" in flat
        length, cells = h.segment_length, h.segment_length * h.segment_count
        c0 = ((hashed >> 32) * cells) >> 32
        c1 = (c0 + length) ^ (hashed & (length - 1))
        c2 = (c0 + 2 * length) ^ ((hashed >> 16) & (length - 1))
        assert f"cells {c0:,}, {c1:,} and {c2:,}" in flat
        assert int(position_contexts(f, m, 7, 6, h.context_function)[0]) == 7
        assert "context `0 * 49 + 1 * 7 + 0` = 7" in flat
        assert book.get(p).winner.value == "first"


def test_formats_page_worked_example(tmp_path: Path) -> None:
    """The version 2 example, against book12.c4b in version 2: the shipped file when it
    is of version 2, else the version 2 writer's copy of the shipped version 3 book (its
    values and metadata, the re-encoding's record left out), which is the former
    shipped file byte for byte."""
    book12 = BOOKS / "book12.c4b"
    with CompactBook(book12) as book:
        h = book.header
        if h.version != 2:
            first, mask = book.positions()
            values = book.values_of(first, mask)
            metadata = {k: v for k, v in h.metadata.items() if k != "reencoded"}
            book12 = tmp_path / "book12.c4b"
            write_compact(
                book12, h.plies, h.kind, first, mask, values, metadata=metadata,
                board=h.board, version=2,
            )  # fmt: skip
    section = _example_section(2)
    header = (book12).read_bytes()[:64]
    rows = re.findall(
        r"^((?:[0-9a-f]{2} ){7}[0-9a-f]{2})  ((?:[0-9a-f]{2} ){7}[0-9a-f]{2})", section, re.M
    )
    documented = bytes.fromhex("".join(a + b for a, b in rows).replace(" ", ""))
    assert documented == header
    p = Position.from_moves("616157435612")
    key = int(
        canonical_keys(
            np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64), *DEFAULT_BOARD
        )[0]
    )
    assert f"key\nis `{key:#x}`" in section or f"key is `{key:#x}`" in section.replace("\n", " ")
    with CompactBook(book12) as book:
        header = book.header
        h = mix(key, header.seed)
        assert f"`{h:#x}`" in section
        assert book.get(p).winner.value == "first"
        # the cells by the documented formula, and what they hold
        length, cells = header.segment_length, header.segment_length * header.segment_count
        c0 = ((h >> 32) * cells) >> 32
        c1 = (c0 + length) ^ (h & (length - 1))
        c2 = (c0 + 2 * length) ^ ((h >> 16) & (length - 1))
        v0, v1, v2 = unpack_fields(book._cells, header.value_bits, c2 + 1)[[c0, c1, c2]]
        index = int(v0 ^ v1 ^ v2)
        assert header.values[index] == 1
    flat = " ".join(section.split())
    assert (
        f"cells {c0:,}, {c1:,} and {c2:,} hold {v0}, {v1} and {v2}; their XOR is {index}, "
        f"entry {index} of the value table is `+1`"
    ) in flat


def test_a_compact_build_leaves_a_directory_it_did_not_make_alone(tmp_path: Path, monkeypatch):
    """The build stages its Thill book in a new directory; a directory of the name an
    older version used (the user's, for all the build knows) is not deleted."""
    monkeypatch.chdir(tmp_path)
    theirs = tmp_path / ".book10-under44444433.c4b.thill"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    line = ["--plies", "10", "--under", "44444433", "-q", "-j", "1", "--format", "compact"]
    result = CliRunner().invoke(main, ["build", *line])
    assert result.exit_code == 0, result.output
    assert (theirs / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [theirs.name, "book10-under44444433.c4b"]
    )


def test_build_and_derive_write_compact_books(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    line = ["--plies", "10", "--under", "44444433", "-q", "-j", "1"]
    result = runner.invoke(main, ["build", *line, "--format", "compact"])
    assert result.exit_code == 0, result.output
    built = tmp_path / "book10-under44444433.c4b"
    assert sorted(p.name for p in tmp_path.iterdir()) == [built.name]
    with CompactBook(built) as book:
        assert "--format compact" in book.header.metadata["source_manifest"]["command"]
        assert len(book) == 14 and book.under == "44444433"
    # the same table as the Thill build converted
    result = runner.invoke(main, ["build", *line, "-o", "t.dat"])
    assert result.exit_code == 0, result.output
    convert_book(tmp_path / "t.dat", tmp_path / "t.c4b")
    assert compact_payload(tmp_path / "t.c4b") == compact_payload(built)
    result = runner.invoke(
        main,
        [
            "derive",
            "--from",
            "8-under44444",
            "--plies",
            "6",
            "-o",
            "d.c4b",
            "--format",
            "compact",
        ],
    )
    assert result.exit_code == 0, result.output
    with CompactBook(tmp_path / "d.c4b") as book:
        assert book.kind == "wdl" and book.under == "44444" and book.plies == 6 and len(book) == 4
    result = runner.invoke(main, ["build", "--plies", "8", "--sample", "5", "--format", "compact"])
    assert result.exit_code == 2 and "merge" in result.output


def test_the_shipped_books_are_named_as_compact_books():
    """booknames spells the suffix itself (importing the format would run the registry,
    which resolves names there): the two must agree."""
    assert SHIPPED_SUFFIX == COMPACT_SUFFIX
