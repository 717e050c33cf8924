"""Position enumeration and the vectorized bitboard helpers.

Independent sources: a slow pure-Python breadth-first walk with
:class:`openingbook.solver.Position` (plies 0..6 and below given lines), the counts verified
in FORMATS.md, the original published 8-ply book, and mirror symmetry.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.solver import (
    DEFAULT_BOARD,
    DEFAULT_HEIGHT,
    DEFAULT_WIDTH,
    Position,
    bitboards,
    can_win_next_bits,
    canonical_bits,
    count_positions,
    enumerate_positions,
    has_four_bits,
    mirror_bits,
    position_keys,
    positions_with_moves,
)
from openingbook.solver.bitboards import winning_cells_bits
from openingbook.solver.position import has_four, winning_cells
from tests.helpers import as_pairs, book_set, brute_reachable, positions, replay


# ------------------------------------------------------------- small plies
@pytest.mark.parametrize("plies", range(7))
def test_small_plies_match_brute_force(plies):
    reachable = brute_reachable(plies)
    for merge, drop in itertools.product([True, False], repeat=2):
        first, mask = enumerate_positions(
            plies, None, *DEFAULT_BOARD, merge_mirrors=merge, drop_immediate_wins=drop
        )
        got = as_pairs(first, mask)
        assert len(got) == len(set(got)), "duplicates"
        assert set(got) == book_set(reachable, merge=merge, drop=drop)


@pytest.mark.parametrize(
    ("under", "plies"),
    [("4", 7), ("44", 8), ("3", 7), ("1234", 9), ("4453", 10), ("7777", 8), ("", 5), ("1", 1)],
)
def test_under_line_matches_brute_force(under, plies):
    reachable = brute_reachable(plies, under)
    mirrored = {
        (p.first_stones, p.mask)
        for p in (Position.from_bitboards(f, m).mirror() for f, m in reachable)
    }
    for merge, drop in itertools.product([True, False], repeat=2):
        first, mask = enumerate_positions(
            plies,
            under=under,
            merge_mirrors=merge,
            drop_immediate_wins=drop,
            width=DEFAULT_WIDTH,
            height=DEFAULT_HEIGHT,
        )
        got = as_pairs(first, mask)
        assert len(got) == len(set(got))
        # merged: a pair is in when either variant is reachable
        source = reachable | mirrored if merge else reachable
        assert set(got) == book_set(source, merge=merge, drop=drop)
        assert count_positions(
            plies, under, *DEFAULT_BOARD, merge_mirrors=merge, drop_immediate_wins=drop
        ) == len(got)


def test_under_is_a_subset_of_the_full_enumeration():
    full = set(as_pairs(*enumerate_positions(7, None, *DEFAULT_BOARD)))
    for under in ["4", "12", "765", "1111"]:
        part = set(
            as_pairs(
                *enumerate_positions(7, under=under, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
            )
        )
        assert part and part <= full


def test_other_board_sizes_match_brute_force():
    for width, height, plies in [(5, 4, 8), (4, 4, 9), (6, 5, 5)]:
        reachable = brute_reachable(plies, width=width, height=height)
        first, mask = enumerate_positions(plies, None, width, height)
        got = as_pairs(first, mask)
        assert len(got) == len(set(got))
        assert set(got) == book_set(reachable, width, height)


def test_full_small_board():
    # every ply of a 4x4 game down to the full board (no side-to-move test there)
    reachable = brute_reachable(16, width=4, height=4)
    got = set(as_pairs(*enumerate_positions(16, None, 4, 4, merge_mirrors=False)))
    assert got == book_set(reachable, 4, 4, merge=False)


# ------------------------------------------------------------------- 8 ply
@pytest.fixture(scope="module")
def ply8():
    return positions_with_moves(8, None, *DEFAULT_BOARD)


def test_8ply_counts():
    assert count_positions(8, None, *DEFAULT_BOARD) == 77_715
    assert (
        count_positions(8, None, *DEFAULT_BOARD, merge_mirrors=False, drop_immediate_wins=False)
        == 182_383
    )


@pytest.mark.slow
def test_12ply_counts():
    first, mask = enumerate_positions(12, None, *DEFAULT_BOARD)
    assert first.size == 4_200_899
    assert not can_win_next_bits(first, mask, *DEFAULT_BOARD).any()
    assert (
        count_positions(12, None, *DEFAULT_BOARD, merge_mirrors=False, drop_immediate_wins=False)
        == 11_662_778
    )


def test_8ply_counts_are_consistent(ply8):
    first, mask, _ = ply8
    raw_f, raw_m = enumerate_positions(
        8, None, *DEFAULT_BOARD, merge_mirrors=False, drop_immediate_wins=False
    )
    # merging by canonical_bits after dropping the wins gives the book set
    keep = ~can_win_next_bits(raw_f, raw_m, *DEFAULT_BOARD)
    cf, cm = canonical_bits(raw_f[keep], raw_m[keep], *DEFAULT_BOARD)
    assert set(as_pairs(cf, cm)) == set(as_pairs(first, mask))
    # unmerged = the book set plus the mirror of every asymmetric position
    uf, um = enumerate_positions(8, None, *DEFAULT_BOARD, merge_mirrors=False)
    book = set(as_pairs(first, mask))
    assert set(as_pairs(uf, um)) == book | set(
        as_pairs(mirror_bits(first, *DEFAULT_BOARD), mirror_bits(mask, *DEFAULT_BOARD))
    )
    symmetric = (mirror_bits(first, *DEFAULT_BOARD) == first) & (
        mirror_bits(mask, *DEFAULT_BOARD) == mask
    )
    assert uf.size == 2 * first.size - int(symmetric.sum())


def test_8ply_positions_are_legal_book_positions(ply8):
    first, mask, _ = ply8
    assert (np.bitwise_count(mask) == 8).all()
    assert not has_four_bits(first, DEFAULT_HEIGHT).any()
    assert not has_four_bits(first ^ mask, DEFAULT_HEIGHT).any()
    assert not can_win_next_bits(first, mask, *DEFAULT_BOARD).any()
    for f, m in as_pairs(first, mask):
        Position.from_bitboards(f, m).validate()


def test_8ply_mirror_pairs_once(ply8):
    first, mask, _ = ply8
    cf, cm = canonical_bits(first, mask, *DEFAULT_BOARD)
    assert (cf == first).all() and (cm == mask).all()  # the smaller-key variant is kept
    keys = position_keys(first, mask, *DEFAULT_BOARD)
    both = np.concatenate([keys, mirror_bits(keys, *DEFAULT_BOARD)])
    symmetric = mirror_bits(keys, *DEFAULT_BOARD) == keys
    # every key and mirrored key distinct except a symmetric position's own mirror
    assert np.unique(both).size == 2 * keys.size - int(symmetric.sum())


def test_8ply_move_strings_reach_their_positions(ply8):
    first, mask, moves = ply8
    assert moves.dtype == np.dtype("S8")
    rf, rm = replay(moves)
    assert (rf == first).all() and (rm == mask).all()


def test_move_strings_under_a_line_start_with_it_or_its_mirror():
    under = "4453"
    first, mask, moves = positions_with_moves(
        10, under=under, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
    )
    mirror_line = "".join(str(8 - int(c)) for c in under)
    text = moves.astype(str)
    assert all(m.startswith(under) or m.startswith(mirror_line) for m in text)
    rf, rm = replay(moves)
    assert (rf == first).all() and (rm == mask).all()


def test_reference_8ply_book_positions_are_enumerated(reference_dir):
    """Every record of the published 8-ply book (decoded here from FORMATS.md's
    description of the column code) is one of the enumerated positions."""
    data = (reference_dir / "thill-original-book8.dat").read_bytes()
    assert len(data) == 34_286 * 3
    book = set(as_pairs(*enumerate_positions(8, None, *DEFAULT_BOARD)))
    found = set()
    for i in range(0, len(data), 3):
        code = int.from_bytes(data[i : i + 3], "big") >> 2
        bits = format(code, "022b")
        first = mask = 0
        col = row = 0
        j = 0
        while j < len(bits):
            if bits[j] == "0":
                col, row, j = col + 1, 0, j + 1
                continue
            cell = 1 << (col * 7 + row)
            mask |= cell
            if bits[j + 1] == "0":
                first |= cell
            row, j = row + 1, j + 2
        assert col == 6
        pos = Position.from_bitboards(first, mask).canonical()
        found.add((pos.first_stones, pos.mask))
    assert found <= book
    # 5,593 records are stored in both variants
    assert len(found) == 34_286 - 5_593


# ------------------------------------------------------------ order
def test_order_is_lexicographic_by_first_line_without_merging():
    # from an asymmetric line and without merging, the layers are kept whole:
    # each position appears at the rank of its smallest move string
    first, mask, moves = positions_with_moves(
        6,
        under="5",
        merge_mirrors=False,
        drop_immediate_wins=False,
        width=DEFAULT_WIDTH,
        height=DEFAULT_HEIGHT,
    )
    text = moves.astype(str).tolist()
    assert text == sorted(text)
    smallest = {}
    for line in brute_lines(6, "5"):
        pos = Position.from_moves(line)
        key = (pos.first_stones, pos.mask)
        if key not in smallest or line < smallest[key]:
            smallest[key] = line
    assert [smallest[p] for p in as_pairs(first, mask)] == text


def brute_lines(plies: int, under: str):
    """Every legal move string of ``plies`` moves starting with ``under``."""
    lines = [under]
    for _ in range(plies - len(under)):
        nxt = []
        for line in lines:
            pos = Position.from_moves(line)
            nxt.extend(line + str(c + 1) for c in pos.legal_moves() if not pos.is_winning_move(c))
        lines = nxt
    return lines


def test_order_groups_siblings():
    # positions sharing the first seven moves come out next to each other
    _, _, moves = positions_with_moves(8, under="44", width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    prefixes = [m[:7] for m in moves.tolist()]
    runs = sum(1 for a, b in itertools.pairwise(prefixes) if a != b) + 1
    assert runs == len(set(prefixes))


# ------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"plies": -1}, "between 0 and 42"),
        ({"plies": 43}, "between 0 and 42"),
        ({"plies": 2.5}, "integer"),
        ({"plies": 4, "under": "48a"}, "column digits"),
        ({"plies": 4, "under": "8"}, "outside 1-7"),
        ({"plies": 8, "under": "1111111"}, "full"),
        ({"plies": 8, "under": "1212121"}, "four in a row"),
        ({"plies": 2, "under": "444"}, "more than the 2 plies"),
        ({"plies": 6, "max_candidates": 1000}, "more than the 1,000 allowed"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        enumerate_positions(**{"under": None, "width": 7, "height": 6, **kwargs})


def test_zero_plies_and_empty_under():
    first, mask, moves = positions_with_moves(0, None, *DEFAULT_BOARD)
    assert first.tolist() == [0] and mask.tolist() == [0] and moves.tolist() == [b""]
    assert count_positions(
        4, under="", width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
    ) == count_positions(4, None, *DEFAULT_BOARD)


# ------------------------------------------------- vectorized helpers vs Position
@settings(max_examples=50)
@given(st.lists(positions(), min_size=1, max_size=20))
def test_bit_helpers_agree_with_position(poss):
    first = np.array([p.first_stones for p in poss], np.uint64)
    mask = np.array([p.mask for p in poss], np.uint64)
    assert has_four_bits(first, DEFAULT_HEIGHT).tolist() == [
        has_four(p.first_stones, 6) for p in poss
    ]
    assert can_win_next_bits(first, mask, *DEFAULT_BOARD).tolist() == [
        p.can_win_next() for p in poss
    ]
    assert mirror_bits(mask, *DEFAULT_BOARD).tolist() == [p.mirror().mask for p in poss]
    assert mirror_bits(first, *DEFAULT_BOARD).tolist() == [p.mirror().first_stones for p in poss]
    assert position_keys(first, mask, *DEFAULT_BOARD).tolist() == [p.key() for p in poss]
    cf, cm = canonical_bits(first, mask, *DEFAULT_BOARD)
    assert as_pairs(cf, cm) == [(p.canonical().first_stones, p.canonical().mask) for p in poss]
    # the other variant of the pair gives the same canonical variant
    mf, mm = canonical_bits(
        mirror_bits(first, *DEFAULT_BOARD), mirror_bits(mask, *DEFAULT_BOARD), *DEFAULT_BOARD
    )
    assert (mf == cf).all() and (mm == cm).all()


def test_numpy_and_compiled_bit_helpers_agree(monkeypatch):
    """The helpers run numpy code, or numba kernels in a process that loaded numba:
    both must give the same answers (positions of the book, and random bit
    patterns that are not positions), in the input's shape."""
    import numba  # noqa: F401 (the kernels are only used once numba is loaded)

    first, mask = enumerate_positions(
        7, None, *DEFAULT_BOARD, merge_mirrors=False, drop_immediate_wins=False
    )
    noise = np.random.default_rng(17).integers(0, 1 << 63, 2000, dtype=np.uint64)
    first = np.concatenate([first, noise & (noise >> np.uint64(7))])
    mask = np.concatenate([mask, noise])
    first, mask = (
        first[: first.size // 2 * 2].reshape(2, -1),
        mask[: mask.size // 2 * 2].reshape(2, -1),
    )
    answers = []
    for min_size in (0, 1 << 62):  # always the kernels, never the kernels
        monkeypatch.setattr(bitboards, "_KERNEL_MIN_SIZE", min_size)
        answers.append(
            (
                has_four_bits(first, DEFAULT_HEIGHT),
                has_four_bits(first ^ mask, DEFAULT_HEIGHT),
                can_win_next_bits(first, mask, *DEFAULT_BOARD),
                mirror_bits(first, *DEFAULT_BOARD),
                mirror_bits(mask, *DEFAULT_BOARD),
            )
        )
    for compiled, plain in zip(*answers, strict=True):
        assert compiled.shape == plain.shape == first.shape
        assert compiled.dtype == plain.dtype
        assert np.array_equal(compiled, plain)


@settings(max_examples=50)
@given(st.lists(positions(), min_size=1, max_size=20))
def test_winning_cells_bits_agrees_with_position(poss):
    for owner in ("first_stones", "second_stones"):
        stones = np.array([getattr(p, owner) for p in poss], np.uint64)
        mask = np.array([p.mask for p in poss], np.uint64)
        expected = [winning_cells(getattr(p, owner), p.mask, 7, 6) for p in poss]
        assert winning_cells_bits(stones, mask, *DEFAULT_BOARD).tolist() == expected


def test_bit_helpers_keep_shapes():
    p = Position.from_moves("4453")
    first = np.full((2, 3), p.first_stones, np.uint64)
    mask = np.full((2, 3), p.mask, np.uint64)
    assert has_four_bits(first, DEFAULT_HEIGHT).shape == (2, 3)
    assert can_win_next_bits(first, mask, *DEFAULT_BOARD).shape == (2, 3)
    assert (mirror_bits(mirror_bits(mask, *DEFAULT_BOARD), *DEFAULT_BOARD) == mask).all()
    with pytest.raises(ValueError, match="differ in shape"):
        can_win_next_bits(first, mask[0], *DEFAULT_BOARD)


@given(st.integers(0, (1 << 49) - 1))
def test_has_four_bits_agrees_on_arbitrary_bitboards(bits):
    board = int(sum(((1 << 6) - 1) << (7 * c) for c in range(7)))
    bits &= board
    assert has_four_bits(np.array([bits], np.uint64), DEFAULT_HEIGHT).tolist() == [
        has_four(bits, 6)
    ]


# ------------------------------------------------------------------- CLI
def run_cli(*args):
    from click.testing import CliRunner

    from openingbook.cli import main

    return CliRunner().invoke(main, ["enumerate", *args])


def test_cli_json_count():
    result = run_cli("--plies", "6", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["plies"] == 6 and doc["count"] == len(book_set(brute_reachable(6)))
    raw = json.loads(run_cli("-p", "6", "--both-mirrors", "--keep-immediate-wins", "--json").output)
    assert raw["count"] == len(brute_reachable(6))


def test_cli_text_count_under_line():
    result = run_cli("--plies", "7", "--under", "4")
    assert result.exit_code == 0
    reachable = brute_reachable(7, "4")
    mirrored = {
        (mirror_bits(f, *DEFAULT_BOARD).item(), mirror_bits(m, *DEFAULT_BOARD).item())
        for f, m in reachable
    }
    assert int(result.output) == len(book_set(reachable | mirrored))


def test_cli_writes_moves_and_codes(tmp_path):
    moves_file = tmp_path / "moves.txt"
    result = run_cli("-p", "6", "--under", "44", "--out", str(moves_file), "--as", "moves")
    assert result.exit_code == 0, result.output
    lines = moves_file.read_text().splitlines()
    first, mask = enumerate_positions(6, under="44", width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    assert len(lines) == first.size == int(result.output.splitlines()[0])
    got = {(p.first_stones, p.mask) for p in map(Position.from_moves, lines)}
    assert got == set(as_pairs(first, mask))

    codes_file = tmp_path / "codes.txt"
    result = run_cli("-p", "6", "--under", "44", "--out", str(codes_file), "--as", "codes")
    assert result.exit_code == 0, result.output
    codes = codes_file.read_text().splitlines()
    assert len(codes) == len(lines)
    for code, line in zip(codes, lines, strict=True):
        # the code read back column by column (FORMATS.md) gives the same board
        pos = Position.from_moves(line)
        assert len(code) == 6 + 2 * 6
        rebuilt = []
        j = 0
        for col in range(7):
            cells = []
            while j < len(code) and code[j] == "1":
                cells.append(1 if code[j + 1] == "0" else 2)
                j += 2
            j += 1  # separator
            rebuilt.append(cells + [0] * (6 - len(cells)))
            assert cells == [pos.cell(col, r) for r in range(len(cells))]
        assert Position.from_array(rebuilt) == Position.from_bitboards(pos.first_stones, pos.mask)


LINE29 = "25777131474464721415461763362"  # a legal 29-move line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-p", "43"], "between 0 and 42"),
        (["-p", "4", "--under", "4x"], "column digits"),
        (["-p", "4", "--as", "codes"], "--as needs --out"),
        (["-p", "4", "--out", "/nonexistent-dir/x.txt"], "no directory"),
        (["-p", "30", "--under", LINE29, "--out", "x.txt", "--as", "codes"], "at most 64"),
    ],
)
def test_cli_errors_are_one_line(args, message):
    result = run_cli(*args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_cli_unwritable_out_is_one_line_naming_it():
    result = run_cli("--plies", "2", "--out", "/proc/x")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: cannot write /proc/x: No such file or directory"
    ]


def test_cli_existing_out_needs_force(tmp_path):
    out = tmp_path / "x.txt"
    out.write_text("keep me\n")
    result = run_cli("--plies", "2", "--out", str(out))
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: {out} exists; use --force to overwrite it"
    ]
    assert out.read_text() == "keep me\n"
    result = run_cli("--plies", "2", "--out", str(out), "--force")
    assert result.exit_code == 0, result.output
    assert out.read_text() != "keep me\n"
