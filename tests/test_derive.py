"""Derivation of a shallower book: layer-by-layer negamax against the solver and real builds.

The independent sources: the solver's exact scores of the shallower positions
themselves, books built directly at the shallower ply by ``openingbook build``,
and mirror symmetry.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from openingbook.checks.diff import diff_books
from openingbook.cli import main
from openingbook.formats import load_book, read_records
from openingbook.pipeline.derive import derive_book
from openingbook.pipeline.negamax import derive_values, negamax_layers
from openingbook.provenance import file_sha256
from openingbook.solver import DEFAULT_BOARD, Position, plies_from_score, score_from_plies
from openingbook.solver.bitboards import mirror_bits
from openingbook.solver.search import Solver
from openingbook.values import (
    UNKNOWN,
    distance_bytes_from_scores,
    scores_from_distance_bytes,
    wdl_from_pruned_values,
)
from tests.helpers import LINE_BOOKS_UNDER, random_game


@pytest.fixture(scope="module")
def thill_book8(reference_dir: Path) -> str:
    """Thill's 8-ply book."""
    return str(reference_dir / "thill-original-book8.dat")


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver()


def random_roots(stones: int, count: int, seed: int) -> list[Position]:
    """Random positions reached by legal play where the side to move cannot win at once."""
    rng = random.Random(seed)
    roots: list[Position] = []
    while len(roots) < count:
        pos = random_game(rng, 7, 6, stones)
        if pos is not None and not pos.can_win_next():
            roots.append(pos)
    return roots


def arrays(positions: list[Position]) -> tuple[np.ndarray, np.ndarray]:
    first = np.array([p.first_stones for p in positions], np.uint64)
    mask = np.array([p.mask for p in positions], np.uint64)
    return first, mask


def solver_leaves(solver: Solver, wdl: bool):
    def leaves(first: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.ones(len(first), bool), solver.solve_many(first, mask, wdl=wdl).astype(np.int8)

    return leaves


@pytest.mark.parametrize("stones, depth, seed", [(26, 4, 1), (30, 5, 2), (35, 3, 3)])
def test_negamax_matches_solver_scores(solver, stones, depth, seed):
    roots = random_roots(stones, 12, seed)
    first, mask = arrays(roots)
    expected = solver.solve_many(first, mask)
    derived = negamax_layers(
        first, mask, stones + depth, solver_leaves(solver, False), True, *DEFAULT_BOARD
    )
    assert derived.known.all()
    assert derived.values.tolist() == expected.tolist()
    assert derived.layer_sizes[0] == len(roots) and len(derived.layer_sizes) == depth + 1
    wdl = negamax_layers(
        first, mask, stones + depth, solver_leaves(solver, True), False, *DEFAULT_BOARD
    )
    assert wdl.values.tolist() == np.sign(expected).tolist()


def test_negamax_is_mirror_symmetric(solver):
    roots = random_roots(28, 10, 4)
    first, mask = arrays(roots)
    leaves = solver_leaves(solver, False)
    plain = negamax_layers(first, mask, 32, leaves, True, *DEFAULT_BOARD)
    mirrored = negamax_layers(
        mirror_bits(first, *DEFAULT_BOARD),
        mirror_bits(mask, *DEFAULT_BOARD),
        32,
        leaves,
        True,
        *DEFAULT_BOARD,
    )
    assert plain.values.tolist() == mirrored.values.tolist()


def reference_value(pos: Position, target: int, leaf) -> tuple[bool, int]:
    """Scalar negamax over Position objects: (known, Pons score) -- the same rules
    as the vectorized code, written independently."""
    if pos.can_win_next():
        return True, (43 - pos.stone_count) // 2
    if pos.stone_count == 42:
        return True, 0
    if pos.stone_count == target:
        return leaf(pos)
    best, known = -99, True
    for col in pos.legal_moves():
        k, v = reference_value(pos.play(col), target, leaf)
        known &= k
        best = max(best, -v)
    return known, best


def test_unknown_leaves_make_their_ancestors_unknown(solver):
    roots = random_roots(30, 12, 5)
    first, mask = arrays(roots)

    def is_known(f, m):  # an arbitrary, mirror-symmetric half of the positions
        return (np.bitwise_count(f & np.uint64(0x3F03F03F03F)) % 2) == 0

    def partly_known(f, m):
        return is_known(f, m), solver.solve_many(f, m).astype(np.int8)

    def scalar_leaf(pos):
        f, m = arrays([pos])
        return bool(is_known(f, m)[0]), solver.solve(pos)

    derived = negamax_layers(first, mask, 33, partly_known, True, *DEFAULT_BOARD)
    expected = [reference_value(p, 33, scalar_leaf) for p in roots]
    assert derived.known.tolist() == [k for k, _ in expected]
    assert 0 < derived.known.sum() < len(roots)
    for got, (k, v) in zip(derived.values.tolist(), expected, strict=True):
        if k:
            assert got == v


def test_immediate_wins_on_the_way_are_scored_without_the_book():
    # A has an open three on the bottom row: whatever B plays, A wins at once with
    # its 4th stone (score -18 for B to move); no ply-7 position is ever looked up.
    pos = Position.from_moves("22334")
    first, mask = arrays([pos])

    def never(f, m):
        raise AssertionError("looked up a position that a win on the way decides")

    derived = negamax_layers(first, mask, 7, never, True, *DEFAULT_BOARD)
    assert derived.values.tolist() == [-18] and derived.looked_up == 0
    assert negamax_layers(first, mask, 7, never, False, *DEFAULT_BOARD).values.tolist() == [-1]


@given(st.integers(1, 41), st.data())
def test_distance_bytes_round_trip(stones, data):
    # every legal result of a position with `stones` stones
    plies = data.draw(st.integers(0, 42 - stones))
    score = 0 if plies == 0 else score_from_plies(plies, stones, *DEFAULT_BOARD)
    byte = distance_bytes_from_scores(np.array([score]), stones, DEFAULT_BOARD)
    back, ok = scores_from_distance_bytes(byte, stones, DEFAULT_BOARD)
    assert ok.all() and back.tolist() == [score]
    if score:
        d = 100 - abs(int(byte[0]))
        assert d == plies_from_score(score, stones, *DEFAULT_BOARD)
        first_wins = (score > 0) == (stones % 2 == 0)
        assert (byte[0] > 0) == first_wins


def test_impossible_distance_bytes_are_flagged():
    # at 12 stones the first player is to move: a first-player win is an odd number
    # of plies away, and nothing is more than 30 plies away
    _, ok = scores_from_distance_bytes(
        np.array([98, -97, 97, -98, 69, 0], np.int8), 12, DEFAULT_BOARD
    )
    assert ok.tolist() == [False, False, True, True, False, True]


def test_pruned_values_to_side_to_move():
    assert wdl_from_pruned_values(np.array([0, 1, 2]), 9).tolist() == [0, 1, -1]


# ------------------------------------------------------------------ real books


@pytest.fixture(scope="module")
def built(line_books):
    return next(iter(line_books.values())).parent, line_books


@pytest.mark.slow
@pytest.mark.parametrize("distances", [True, False])
def test_derived_book_equals_built_book(built, distances):
    tmp, books = built
    out = tmp / f"derived10{'d' if distances else ''}.dat"
    summary = derive_book(books[(12, distances)], 10, out, force=True)
    assert summary.under == LINE_BOOKS_UNDER  # taken from the deeper book's manifest
    fmt, records = read_records(out)
    assert fmt.plies == 10 and fmt.distances == distances
    report = diff_books(out, books[(10, distances)])
    assert report.ok, report.lines()
    assert report.common == len(records) == summary.records
    manifest = json.loads((tmp / (out.name + ".json")).read_text())
    assert manifest["selection"]["under"] == LINE_BOOKS_UNDER
    assert manifest["derived_from"]["sha256"] == file_sha256(books[(12, distances)])
    assert manifest["book"]["sha256"] == file_sha256(out)


@pytest.mark.slow
def test_derived_distances_match_the_solver(built, solver):
    _, books = built
    derivation = derive_values(load_book(books[(12, True)], complete=False), 10)
    assert derivation.covered.all() and derivation.scores
    expected = solver.solve_many(derivation.first, derivation.mask)
    assert derivation.result.values.tolist() == expected.tolist()
    # two plies further up, still exact
    up = derive_values(load_book(books[(12, True)], complete=False), 8)
    assert up.result.values.tolist() == solver.solve_many(up.first, up.mask).tolist()


@pytest.mark.slow
def test_pruned_from_distance_book(built, tmp_path):
    _, books = built
    out = tmp_path / "p10.dat"
    derive_book(books[(12, True)], 10, out, distances=False)
    assert diff_books(out, books[(10, False)]).ok


@pytest.mark.slow
def test_distance_book_needs_a_distance_source(built, tmp_path):
    _, books = built
    with pytest.raises(ValueError, match="no distances"):
        derive_book(books[(12, False)], 10, tmp_path / "x.dat", distances=True)


@pytest.mark.slow
def test_incomplete_distance_book_is_refused_outside_its_cover(built, tmp_path, solver):
    _, books = built
    # the 12-ply book holds only positions under LINE_BOOKS_UNDER: the 8-ply positions under
    # a shorter line need positions it does not have
    with pytest.raises(ValueError, match="does not cover"):
        derive_book(books[(12, True)], 8, tmp_path / "x.dat", under=LINE_BOOKS_UNDER[:6])
    derivation = derive_values(
        load_book(books[(12, True)], complete=False), 8, under=LINE_BOOKS_UNDER[:6]
    )
    covered = derivation.covered
    # LINE_BOOKS_UNDER itself, and positions decided before ply 12 (the second player's double
    # threats on the bottom row) need nothing the book lacks
    assert len(covered) == 33 and 1 < covered.sum() < 33
    assert LINE_BOOKS_UNDER in set(derivation.moves[covered])
    solved = solver.solve_many(derivation.first[covered], derivation.mask[covered])
    assert derivation.result.values[covered].tolist() == solved.tolist()


def test_derive_from_reference_pruned_book(tmp_path, thill_book8):
    # 8 -> 6 plies under "4444" from Thill's 8-ply book: the 6-ply values must equal
    # the minimax of the 8-ply answers (missing = first player wins)
    out = tmp_path / "b6.dat"
    summary = derive_book(thill_book8, 6, out, under="4444")
    book8 = load_book(thill_book8, complete=False)
    derived = load_book(out, complete=False)
    assert derived.scope.under == "4444"
    for moves in ("444411", "444455", "444433", "444417"):
        pos = Position.from_moves(moves)
        children = [pos.play(c) for c in pos.legal_moves()]
        # brute force over two plies with the 8-ply book's answers
        best = -2
        for child in children:
            if child.can_win_next():
                value = -1
            else:
                worst = 2
                for c in child.legal_moves():
                    g = child.play(c)
                    if g.can_win_next():
                        v = 1
                    else:
                        f, m = arrays([g])
                        v = int(book8.answers(f, m).winner[0])  # first-player view, A to move
                    worst = min(worst, v)
                value = -worst
            best = max(best, -value)
        f, m = arrays([pos])
        assert int(derived.answers(f, m).winner[0]) == best, moves
    assert summary.positions == 25


def test_derive_cli(tmp_path, thill_book8):
    runner = CliRunner()
    out = tmp_path / "b6.dat"
    args = ["derive", "--from", thill_book8, "--plies", "6", "--out", str(out)]
    result = runner.invoke(main, [*args, "--under", "4444", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["positions"] == 25 and data["format"] == "6-ply" and data["under"] == "4444"
    again = runner.invoke(main, [*args, "--under", "4444"])
    assert again.exit_code == 1 and "exists" in again.output and "Traceback" not in again.output
    for bad, message in (
        (["--plies", "9"], "must be at most the 8 plies"),
        (["--plies", "8"], "only its win/draw/loss book"),
        (["--under", "44x4"], "not a 1-based move string"),
        (["--under", "1234567"], "7 moves"),
        (["--distances"], "no distances"),
    ):
        argv = ["derive", "--from", thill_book8, "--out", str(tmp_path / "y.dat")]
        if "--plies" not in bad:
            argv += ["--plies", "6"]
        result = runner.invoke(main, argv + bad)
        assert result.exit_code != 0, bad
        assert message in result.output, (bad, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_distance_books_win_draw_loss_book_at_its_own_ply(tmp_path):
    """``derive --pruned`` at the distance book's own ply writes its win/draw/loss part:
    the same answers as the shipped 8-ply win/draw/loss book (built from Thill's
    published file), every position compared; a copy at the same ply is refused."""
    from openingbook.checks.diff import diff_books

    out = tmp_path / "b8.c4b"
    runner = CliRunner()
    argv = ["derive", "--from", "8-dist", "--plies", "8", "-o", str(out)]
    result = runner.invoke(main, [*argv, "--pruned", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["positions"] == 77715
    report = diff_books(str(out), "8")
    assert report.ok and report.common == 77715, report.lines(5)
    thill = tmp_path / "b8.dat"  # Thill's layout: the shipped book8.dat, byte for byte
    result = runner.invoke(main, [*argv[:-1], str(thill), "--pruned"])
    assert result.exit_code == 0, result.output
    assert thill.read_bytes() == (Path(__file__).parents[1] / "books" / "book8.dat").read_bytes()
    refused = runner.invoke(main, [*argv[:-1], str(tmp_path / "c.c4b")])
    assert refused.exit_code == 2 and "only its win/draw/loss book" in refused.output
    assert not (tmp_path / "c.c4b").exists()


def test_derive_and_validate_show_their_last_step_on_stderr(tmp_path, thill_book8, monkeypatch):
    """After the derivation's bar, the write (derive) gets a bar of its own on stderr,
    none with --json; the library names each step. validate shows one bar, to the end."""
    from openingbook.checks.validate import validate_books
    from openingbook.cli import _common

    monkeypatch.setattr(_common, "PROGRESS_FROM", 1)  # a bar for these small books too
    runner = CliRunner()
    out = tmp_path / "b6.dat"
    derive = ["derive", "--from", thill_book8, "--plies", "6", "--under", "4444", "-o", str(out)]
    derive.append("--progress")  # stderr is not a terminal here
    result = runner.invoke(main, derive)
    assert result.exit_code == 0, result.output
    assert "deriving" in result.stderr and "writing b6.dat" in result.stderr
    assert "writing b6.dat: 100%" in result.stderr  # the write's bar, finished
    result = runner.invoke(main, [*derive, "--force", "--json"])
    assert result.exit_code == 0 and result.stderr == ""
    result = runner.invoke(main, ["validate", str(out), thill_book8, "--progress"])
    assert result.exit_code == 0, result.output
    # each piece is derived and compared before the next: one bar, to the end
    assert "validating: 100%" in result.stderr

    calls: list[object] = []
    report = validate_books(out, thill_book8, progress=lambda *a: calls.append(a))
    assert report.ok and report.compared == report.positions == 25  # under the book's line
    assert calls[-1] == (25, 25) and calls == sorted(calls)
    calls.clear()
    derive_book(
        thill_book8, 6, out, under="4444", force=True,
        progress=lambda *a: calls.append(a), stage=calls.append,
    )  # fmt: skip
    assert calls[calls.index("writing b6.dat") :] == ["writing b6.dat", (0, 25), (25, 25)]


def test_book_model_finds_what_the_reader_finds(thill_book8):
    # every 8-ply book position, and its mirror: the in-memory index and the reader's
    # mirrored dual binary search must agree on what is stored
    from openingbook.formats.thill import Book
    from openingbook.solver.enumerate import enumerate_positions

    first, mask = enumerate_positions(8, None, *DEFAULT_BOARD)
    book = load_book(thill_book8, complete=False)
    with Book(thill_book8) as reader:
        for f, m in (
            (first, mask),
            (mirror_bits(first, *DEFAULT_BOARD), mirror_bits(mask, *DEFAULT_BOARD)),
        ):
            ours = book.find(f, m) >= 0
            theirs = reader.find_many(f, m) >= 0
            assert ours.tolist() == theirs.tolist()
    assert ours.sum() == 34286 - 5593  # one per stored pair
    answers = book.answers(first, mask)
    assert (answers.winner != UNKNOWN).all() and (answers.winner[~ours] == 1).all()


def test_the_0_ply_book_is_compact_only(tmp_path):
    """``derive --plies 0``: the empty board's book, read back with its value; a Thill
    layout output (no 0-ply form: unreadable) is refused before anything is written."""
    source = Path(__file__).resolve().parents[1] / "books" / "book1-dist.c4b"
    refused = CliRunner().invoke(
        main, ["derive", "--from", str(source), "--plies", "0", "-o", str(tmp_path / "b0.dat")]
    )
    assert refused.exit_code == 2, refused.output
    assert "no 0-ply book" in refused.stderr and "compact" in refused.stderr
    assert list(tmp_path.iterdir()) == []
    out = tmp_path / "b0.c4b"
    run = CliRunner().invoke(
        main, ["derive", "--from", str(source), "--plies", "0", "-o", str(out)]
    )
    assert run.exit_code == 0, run.output
    looked = CliRunner().invoke(main, ["lookup", str(out), "", "--json"])
    assert looked.exit_code == 0, looked.output
    answer = json.loads(looked.stdout)
    assert (answer["winner"], answer["plies"], answer["score"]) == ("first", 41, 1)


@pytest.mark.parametrize("book", ["8-dist", "thill-8"])
def test_a_derivation_larger_than_memory_is_refused_first(book, thill_book8, monkeypatch, tmp_path):
    """The deeper ply's positions (the book's, or a pruned complete book's table size)
    times the measured bytes per position, refused before the layers are allocated;
    a narrower line than the book's walks to fewer positions and is not estimated."""
    import openingbook.memory
    from openingbook.pipeline.negamax import DERIVE_BYTES_PER_DEEP_POSITION
    from openingbook.registry import resolve_book

    path = thill_book8 if book == "thill-8" else resolve_book(book)
    deep = load_book(path, complete=False)
    need = 77_715 * DERIVE_BYTES_PER_DEEP_POSITION  # every 8-ply book position
    monkeypatch.setattr(openingbook.memory, "available_memory", lambda: need - 1)
    with pytest.raises(openingbook.NotEnoughMemory, match=r"\(77,715 positions at 8 plies\)"):
        derive_values(deep, 6)
    assert derive_values(deep, 6, under="4444").covered.all()
    monkeypatch.setattr(openingbook.memory, "available_memory", lambda: need)
    assert derive_values(deep, 7).covered.all()
    # the command line: one line, exit status 1, nothing written
    monkeypatch.setattr(openingbook.memory, "available_memory", lambda: need - 1)
    out = tmp_path / "d7.c4b"
    result = CliRunner().invoke(
        main, ["derive", "--from", str(path), "--plies", "7", "-o", str(out)]
    )
    assert result.exit_code == 1, result.output
    assert "needs about" in result.output and len(result.output.strip().splitlines()) == 1
    assert not out.exists()
