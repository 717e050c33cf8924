"""validate, diff, check and stats on books built in the tests and on Thill's 8-ply file.

Independent sources: the solver (positions solved directly at the shallower
ply), books built directly by ``openingbook build``, Tromp's published counts,
and brute-force definitions over :class:`openingbook.solver.Position`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.checks.check import check_book
from openingbook.checks.diff import diff_books
from openingbook.checks.stats import TROMP_COUNTS, book_stats, tromp_subset
from openingbook.checks.validate import validate_books
from openingbook.cli import main
from openingbook.codec import encode_keys
from openingbook.formats import load_book, read_records
from openingbook.formats.thill import Book, Records, write_book
from openingbook.pipeline.build import BuildOptions, build_book
from openingbook.solver import DEFAULT_BOARD, DEFAULT_HEIGHT, DEFAULT_WIDTH, Position
from openingbook.solver.bitboards import mirror_bits
from openingbook.solver.enumerate import positions_with_moves
from openingbook.solver.position import has_four
from openingbook.solver.search import Solver
from tests.helpers import REFERENCE, positions, write_manifest

REFERENCE_BOOK8 = REFERENCE / "thill-original-book8.dat"
BOOKS_DIR = Path(__file__).resolve().parents[1] / "books"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def build(path: Path, plies: int, under: str, distances: bool = False) -> Path:
    build_book(
        path,
        BuildOptions(plies, distances=distances, under=under, board=DEFAULT_BOARD),
        jobs=2,
        progress=False,
    )
    return path


def rewrite(src: Path, dst: Path, change) -> Path:
    """Copy a book (and its manifest: same scope), letting ``change(first, mask, values)``
    return new arrays."""
    book = load_book(src, complete=False)
    fmt, records = book.stored
    first, mask, values = change(book.first.copy(), book.mask.copy(), records.values.copy())
    write_book(dst, fmt, Records(encode_keys(first, mask, fmt.key_bits, *DEFAULT_BOARD), values))
    manifest = src.with_name(src.name + ".json")
    selection = json.loads(manifest.read_text())["selection"] if manifest.is_file() else {}
    write_manifest(dst, fmt, **selection)  # Thill's file: complete, as the source
    return dst


def arrays(pos_list: list[Position]) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.array([p.first_stones for p in pos_list], np.uint64),
        np.array([p.mask for p in pos_list], np.uint64),
    )


# ------------------------------------------------------------------ the reference file
def test_check_reference_file_alone():
    report = check_book(REFERENCE_BOOK8)
    assert [(i.severity, i.kind, i.count) for i in report.issues] == [
        ("warning", "duplicate-mirror-pair", 5593)
    ]
    assert report.ok and report.records == 34286 and report.positions == 34286 - 5593
    example = Position.from_moves(report.issues[0].examples[0])
    # the example really is stored in both variants
    with Book(REFERENCE_BOOK8) as book:
        found = book.find_many(*arrays([example, example.mirror()]))
    assert (found >= 0).all() and found[0] != found[1]
    code, out = run("check", REFERENCE_BOOK8, "--json")
    assert code == 0 and json.loads(out)["issues"][0]["count"] == 5593
    assert run("check", REFERENCE_BOOK8, "--strict")[0] == 1


def tromp_books() -> list[Path]:
    """Complete 8-ply books in books/ (with a manifest saying so), else the reference file.

    The reference misses 229 positions, all with an immediate threat by the
    second player, which Tromp's subset excludes: its counts must match exactly.
    """
    found = []
    for path in sorted(BOOKS_DIR.glob("*.dat")) if BOOKS_DIR.is_dir() else []:
        manifest = path.with_name(path.name + ".json")
        if manifest.is_file():
            data = json.loads(manifest.read_text())
            sel = data.get("selection", {})
            complete = not (sel.get("under") or sel.get("sample") or sel.get("shard"))
            if data.get("format", {}).get("plies") == 8 and complete:
                found.append(path)
    return found or [REFERENCE_BOOK8]


@pytest.mark.parametrize("path", tromp_books(), ids=lambda p: p.name)
def test_tromp_counts(path):
    report = book_stats(path, tromp=True)
    t = report.tromp
    assert t["positions"] == sum(TROMP_COUNTS.values()) == 67557
    assert {k: t[k] for k in TROMP_COUNTS} == TROMP_COUNTS
    assert t["matches_published"] is True and report.ok
    code, out = run("stats", path, "--tromp", "--json")
    assert code == 0 and json.loads(out)["tromp"]["first"] == 44473


@settings(max_examples=60, deadline=None)
@given(positions(min_stones=8, max_stones=8))
def test_tromp_subset_is_no_threat_by_the_player_who_moved(pos):
    other = pos.stones_of(pos.side_to_move.other)
    threat = False
    for col in pos.legal_moves():
        cell = pos._column_move(col)
        threat |= has_four(other | cell, pos.height)
    assert tromp_subset(*arrays([pos])).tolist() == [not threat]


# ------------------------------------------------------------------ validate
MISSING_LINES = ["1554433", "553535"]  # lines above some of the reference's missing positions


@pytest.fixture(scope="module")
def reference_subtrees(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("subtrees")
    return {
        "1554433": build(tmp / "b12.dat", 12, "1554433"),
        "553535": build(tmp / "b10.dat", 10, "553535"),
    }


@pytest.mark.slow
@pytest.mark.parametrize("line", MISSING_LINES)
def test_validate_reference_reports_exactly_its_missing_positions(reference_subtrees, line):
    deeper = reference_subtrees[line]
    report = validate_books(REFERENCE_BOOK8, deeper)
    assert not report.ok
    # independently: the 8-ply positions under the line the reference does not
    # store (looked up with the reader) that the solver says are not first-player wins
    first, mask, moves = positions_with_moves(
        8, under=line, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
    )
    with Book(REFERENCE_BOOK8) as book:
        absent = book.find_many(first, mask) < 0
    wdl = Solver().solve_many(first[absent], mask[absent], wdl=True)  # first player to move
    expected = {
        Position.from_moves(m).canonical()
        for m, v in zip(moves[absent].astype(str), wdl, strict=True)
        if v <= 0
    }
    assert expected  # the line was chosen for this
    got = {Position.from_moves(d.moves).canonical() for d in report.disagreements}
    assert got == expected
    for d in report.disagreements:
        assert d.a == "first player wins (not stored)" and d.b_value["winner"] != "first"
        assert Position.from_diagram(d.diagram) == Position.from_moves(d.moves)
        # FORMATS.md: the missing positions are those with a threat by the second player
        assert not tromp_subset(*arrays([Position.from_moves(d.moves)]))[0]
    assert report.positions == report.covered == report.compared == len(first)
    assert report.agree == len(first) - len(expected)
    assert any(f"under {line}" in note for note in report.notes)
    code, out = run("validate", REFERENCE_BOOK8, deeper, "--json")
    assert code == 1 and len(json.loads(out)["disagreements"]) == len(expected)
    code, text = run("validate", REFERENCE_BOOK8, deeper)
    assert code == 1 and f"{len(expected)} disagree" in text and "under " + line in text


@pytest.fixture(scope="module")
def book8_553535(tmp_path_factory):
    """The 8-ply book under 553535, solved directly at 8 plies by the real build."""
    return build(tmp_path_factory.mktemp("b8") / "b8.dat", 8, "553535")


@pytest.mark.slow
def test_validate_a_correct_book_passes(reference_subtrees, book8_553535):
    line = "553535"
    code, out = run("validate", book8_553535, reference_subtrees[line])
    assert code == 0, out
    assert "OK: 22 agree, 0 disagree" in out
    # the deeper book knows only its line: a wider --under is covered nowhere else
    report = validate_books(book8_553535, reference_subtrees[line], under=line[:5])
    assert report.ok and report.covered == 22 and report.not_covered == report.positions - 22
    assert report.not_covered > 0 and report.uncovered_examples


@pytest.mark.slow
def test_tromp_counts_under_a_line_match_the_solver(book8_553535):
    report = book_stats(book8_553535, tromp=True)
    t = report.tromp
    assert t["matches_published"] is None and "complete 8-ply" in t["why_not_compared"]
    # independently: Position-level threat test, solver values
    _, _, moves = positions_with_moves(
        8, under="553535", width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
    )
    subset = []
    for m in moves.astype(str):
        pos = Position.from_moves(m)
        other = pos.stones_of(pos.side_to_move.other)
        if not any(has_four(other | pos._column_move(c), 6) for c in pos.legal_moves()):
            subset.append(pos)
    wdl = Solver().solve_many(*arrays(subset), wdl=True).tolist()  # first player to move
    expected = {"first": wdl.count(1), "second": wdl.count(-1), "draw": wdl.count(0)}
    assert t["positions"] == len(subset) == 7
    assert {k: t[k] for k in expected} == expected
    code, out = run("stats", book8_553535, "--tromp")
    assert code == 0 and "not compared with Tromp's published counts" in out


@pytest.fixture(scope="module")
def distance_books(line_books):
    """Books built under ``helpers.LINE_BOOKS_UNDER``: (plies, distances) -> path (the
    session's ``line_books``, shared with test_derive)."""
    return line_books


@pytest.mark.slow
def test_validate_distance_books_and_a_wrong_distance(distance_books, tmp_path):
    b10, b12 = distance_books[(10, True)], distance_books[(12, True)]
    report = validate_books(b10, b12)
    assert report.ok and report.compared_by == "win/draw/loss and distances"
    assert report.compared == report.positions == len(read_records(b10)[1])

    def lengthen(first, mask, values):
        i = int(np.flatnonzero(values != 0)[0])
        values[i] = values[i] - 2 if values[i] > 0 else values[i] + 2  # 2 plies longer
        return first, mask, values

    wrong = rewrite(b10, tmp_path / "wrong10.dat", lengthen)
    report = validate_books(wrong, b12)
    assert len(report.disagreements) == 1
    d = report.disagreements[0]
    assert d.a_value["winner"] == d.b_value["winner"]
    assert d.a_value["plies"] == d.b_value["plies"] + 2
    # a pruned book against the distance book: win/draw/loss only, so no disagreement
    assert validate_books(distance_books[(10, False)], b12).ok


# ------------------------------------------------------------------ diff
def test_diff_reference_against_itself_and_deduplicated(tmp_path):
    report = diff_books(REFERENCE_BOOK8, REFERENCE_BOOK8)
    assert report.ok and report.common == 34286 - 5593

    def dedupe(first, mask, values):
        keys = load_book(REFERENCE_BOOK8, complete=False).canonical
        _, keep = np.unique(keys, return_index=True)
        return first[keep], mask[keep], values[keep]

    deduped = rewrite(REFERENCE_BOOK8, tmp_path / "dedup.dat", dedupe)
    assert len(read_records(deduped)[1]) == 34286 - 5593
    code, out = run("diff", REFERENCE_BOOK8, deduped)
    assert code == 0 and "SAME" in out


def test_diff_finds_changed_and_missing_records(tmp_path):
    values = read_records(REFERENCE_BOOK8)[1].values
    draw, loss = int(np.flatnonzero(values == 0)[0]), int(np.flatnonzero(values == 1)[0])

    def change(first, mask, values):
        values[draw] = 1
        keep = np.ones(len(values), bool)
        keep[loss] = False
        return first[keep], mask[keep], values[keep]

    changed = rewrite(REFERENCE_BOOK8, tmp_path / "changed.dat", change)
    report = diff_books(REFERENCE_BOOK8, changed)
    assert not report.ok
    # the removed B win may still be stored as its mirror variant (a duplicate pair)
    book = load_book(REFERENCE_BOOK8, complete=False)
    twice = (book.canonical == book.canonical[loss]).sum() == 2
    assert len(report.only_in_a) == (0 if twice else 1) and not report.only_in_b
    if not twice:
        assert report.only_in_a[0].b == "first player wins (not stored)"
    drawn = {d.moves for d in report.value_differences}
    assert len(report.value_differences) == 1
    pos = Position.from_bitboards(int(book.first[draw]), int(book.mask[draw]))
    assert Position.from_moves(drawn.pop()).canonical() == pos.canonical()
    code, out = run("diff", REFERENCE_BOOK8, changed, "--json")
    assert code == 1 and json.loads(out)["value_differences"][0]["a"] == "draw"


@pytest.mark.slow
def test_diff_across_formats(distance_books):
    pruned, dist = distance_books[(12, False)], distance_books[(12, True)]
    report = diff_books(pruned, dist)
    assert report.ok and report.compared_by == "win/draw/loss"
    first_wins = int((read_records(dist)[1].values > 0).sum())
    assert report.implied_agreements == first_wins > 0
    code, _ = run("diff", distance_books[(10, True)], dist)
    assert code == 1


def test_diff_needs_one_ply(tmp_path):
    code, out = run("diff", REFERENCE_BOOK8, tmp_path / "nope.dat")
    assert code == 1 and "nope.dat: No such file or directory" in out  # a file problem
    bad = tmp_path / "garbage.dat"
    bad.write_bytes(b"\x01\x02")
    code, out = run("diff", REFERENCE_BOOK8, bad)
    assert code == 1 and out.startswith("Error:") and len(out.strip().splitlines()) == 1


# ------------------------------------------------------------------ check
@pytest.mark.slow
def test_check_resolves_records_and_absent_positions(distance_books, tmp_path):
    pruned = distance_books[(10, False)]
    report = check_book(pruned, all_records=True, absent=1000, jobs=2)
    assert report.ok and report.solved == len(read_records(pruned)[1]) and report.solved_absent > 0
    dist = distance_books[(10, True)]
    code, out = run("check", dist, "--sample", "5", "--seed", "3", "-j", "2", "--json")
    assert code == 0 and json.loads(out)["solved"] == 5

    target = {}

    def corrupt(first, mask, values):
        loss = int(np.flatnonzero(values == 1)[0])
        draw = int(np.flatnonzero(values == 0)[0]) if (values == 0).any() else None
        target["flipped"] = Position.from_bitboards(int(first[loss]), int(mask[loss]))
        values[loss] = 0 if draw is None else values[loss]
        keep = np.ones(len(values), bool)
        if draw is not None:
            values[loss] = 0
            keep[draw] = False
            target["dropped"] = Position.from_bitboards(int(first[draw]), int(mask[draw]))
        return first[keep], mask[keep], values[keep]

    bad = rewrite(pruned, tmp_path / "bad.dat", corrupt)
    report = check_book(bad, all_records=True, absent=1000, jobs=2)
    found = {Position.from_moves(d.moves).canonical() for d in report.disagreements}
    assert found == {p.canonical() for p in target.values()}
    assert not report.ok
    assert run("check", bad, "--all", "-j", "1")[0] == 1


def test_check_file_warnings_and_errors(tmp_path):
    # a pruned 8-ply book holding a first-player win, a position whose side to move
    # wins at once, and one mirror pair twice with different values
    pos_a = Position.from_moves("44444411")
    pos_threat = Position.from_moves("12121233")  # A to move has three in column 1
    asym = Position.from_moves("12345612")
    assert pos_threat.can_win_next() and not pos_a.can_win_next()
    assert asym.mirror() != asym
    plist = [pos_a, pos_threat, asym, asym.mirror()]
    first, mask = arrays(plist)
    values = np.array([2, 0, 0, 1], np.int8)
    path = tmp_path / "odd.dat"
    write_book(
        path,
        read_records(REFERENCE_BOOK8)[0],
        Records(encode_keys(first, mask, 24, *DEFAULT_BOARD), values),
    )
    report = check_book(path)
    kinds = {i.kind: (i.severity, i.count) for i in report.issues}
    assert kinds == {
        "conflicting-mirror-pair": ("error", 1),
        "first-player-win-stored": ("warning", 1),
        "immediate-win-stored": ("warning", 1),
    }
    assert not report.ok
    code, out = run("check", path)
    assert (code == 1 and "conflicting" in out) or "different values" in out


def test_check_refuses_records_that_are_not_positions_of_the_ply(tmp_path):
    seven = Position.from_moves("4444333")  # 7 stones in an 8-ply book
    key = int(encode_keys(*arrays([seven]), 24, *DEFAULT_BOARD)[0])
    path = tmp_path / "book8.dat"
    path.write_bytes(key.to_bytes(3, "big"))
    # without a format, the content says "7-ply book": a valid (tiny) book
    assert "7-ply" in run("stats", path)[1]
    for command in ("check", "stats"):
        code, out = run(command, path, "--format", "8")
        assert code == 1 and out.startswith("Error:") and "7 stones" in out, (command, out)
        assert len(out.strip().splitlines()) == 1


@pytest.mark.slow
def test_diff_against_a_book_under_a_line(book8_553535):
    # the built 8-ply book under 553535 has scope "under 553535": only those
    # positions are compared, and the reference's missing one shows as only in B
    report = diff_books(REFERENCE_BOOK8, book8_553535)
    assert any("inside both books' scopes" in note for note in report.notes)
    assert not report.only_in_a and not report.value_differences
    missing = Position.from_moves("55353533").canonical()
    assert [Position.from_moves(d.moves).canonical() for d in report.only_in_b] == [missing]
    assert report.only_in_b[0].a == "first player wins (not stored)"
    stored_b = len(read_records(book8_553535)[1])
    assert report.common + len(report.only_in_b) == stored_b


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_diff_and_answers_ignore_which_mirror_variant_is_stored(seed, tmp_path_factory):
    rng = np.random.default_rng(seed)

    def flip_some(first, mask, values):
        keep = np.ones(len(values), bool)
        book = load_book(REFERENCE_BOOK8, complete=False)
        _, once = np.unique(book.canonical, return_index=True)
        keep[:] = False
        keep[once] = True  # one record per pair, so that flipping never collides
        first, mask, values = first[keep], mask[keep], values[keep]
        flip = rng.random(len(values)) < 0.5
        first = np.where(flip, mirror_bits(first, *DEFAULT_BOARD), first)
        mask = np.where(flip, mirror_bits(mask, *DEFAULT_BOARD), mask)
        return first, mask, values

    path = tmp_path_factory.mktemp("flip") / "flipped.dat"
    flipped = rewrite(REFERENCE_BOOK8, path, flip_some)
    report = diff_books(REFERENCE_BOOK8, flipped)
    assert report.ok and report.common == 34286 - 5593
    first, mask = positions_with_moves(8, under="44", width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)[
        :2
    ]
    a = load_book(REFERENCE_BOOK8, complete=False).answers(first, mask)
    b = load_book(flipped, complete=False).answers(
        mirror_bits(first, *DEFAULT_BOARD), mirror_bits(mask, *DEFAULT_BOARD)
    )
    assert a.winner.tolist() == b.winner.tolist()
    assert (a.index >= 0).tolist() == (b.index >= 0).tolist()


@pytest.mark.parametrize("log2", ["2", "9", "33"])
def test_check_table_log2_range_like_build(log2):
    code, out = run("check", str(REFERENCE_BOOK8), "--table-log2", log2)
    assert code == 2  # a bad argument
    [line] = out.strip().splitlines()
    assert line.startswith("Error: Invalid value for '--table-log2'") and "10<=x<=32" in line


def test_validate_that_compares_nothing_fails():
    """A deeper book that covers none of the asked positions proves nothing: not a pass."""
    deeper = BOOKS_DIR / "book12-dist-under44444.dat"
    code, out = run("validate", REFERENCE_BOOK8, deeper, "--under", "1234")
    assert code == 1
    assert "nothing compared" in out
    report = validate_books(REFERENCE_BOOK8, deeper, under="1234")
    assert report.compared == 0 and report.not_covered == report.positions > 0
    assert not report.ok
