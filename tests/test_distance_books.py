"""The complete 12-ply distance book in books/ and the shallower books derived from it.

``books/book12-dist.dat``: ``openingbook build --plies 12 --distances`` in four shards,
joined by ``openingbook merge``; ``book8-dist.dat``, ``book10.dat`` and
``book10-dist.dat``: ``openingbook derive`` from it. Checked, over whole books, against
independent sources: the enumeration (every position once), ``book12.dat`` (a separate
build that asked only win/draw/loss), the rules of distances (parity, end of the board),
the solver (random records re-solved), Thill-layout reproducibility (``book8.dat``
re-derived byte for byte) and the published per-ply counts (Tromp's positions and the
strong solution's won/drawn/lost).
"""

from __future__ import annotations

import numpy as np
import pytest

from openingbook import open_book
from openingbook.checks.published import WDL_PER_PLY
from openingbook.checks.stats import book_stats
from openingbook.formats.thill import read_manifest
from openingbook.pipeline.derive import derive_book
from openingbook.provenance import file_sha256
from openingbook.solver import (
    DEFAULT_BOARD,
    Position,
    Solver,
    enumerate_positions,
    mirror_bits,
    position_keys,
)
from tests.helpers import BOOKS, TABLE, book_positions, expected_book_value

BOOK12_DIST = BOOKS / "book12-dist.dat"
BOOK12 = BOOKS / "book12.dat"
BOOK8 = BOOKS / "book8.dat"
DERIVED = {  # file -> (plies, distances)
    "book8-dist.dat": (8, True),
    "book10.dat": (10, False),
    "book10-dist.dat": (10, True),
}
CELLS = 42


def _canonical(first: np.ndarray, mask: np.ndarray) -> np.ndarray:
    keys = position_keys(first, mask, *DEFAULT_BOARD)
    return np.minimum(keys, mirror_bits(keys, *DEFAULT_BOARD))


def _winners(values: np.ndarray, distances: bool) -> np.ndarray:
    """+1 first wins, -1 second, 0 draw, from stored book values."""
    v = values.astype(np.int64)
    return np.sign(v) if distances else np.where(v == 1, -1, np.where(v == 2, 1, 0))


def test_distance_book_manifest_says_how_it_was_made():
    manifest = read_manifest(BOOK12_DIST)
    assert manifest["format"]["name"] == "12-ply-dist" and not manifest["format"]["pruned"]
    assert manifest["selection"]["under"] is None and manifest["selection"]["shard"] is None
    assert manifest["command"].startswith("openingbook merge ")
    shards = manifest["merged_from"]
    assert [s["shard"] for s in shards] == ["1/4", "2/4", "3/4", "4/4"]
    for s in shards:
        assert s["command"].startswith("openingbook build --plies 12 --distances ")
        assert f"--shard {s['shard']}" in s["command"] and len(s["sha256"]) == 64
    # FORMATS.md: the counts of the complete, correct 12-ply books
    assert manifest["book"]["records"] == 4_200_899
    outcomes = {k: manifest["values"][k] for k in ("first", "second", "draw")}
    assert outcomes == {"first": 2_464_954, "second": 1_464_998, "draw": 270_947}
    assert manifest["book"]["sha256"] == file_sha256(BOOK12_DIST)


@pytest.fixture(scope="module")
def distance_book():
    """(first, mask, values) of every record of the 12-ply distance book."""
    return book_positions(BOOK12_DIST, 12, True)


@pytest.mark.slow
def test_distance_book_holds_every_12_ply_position_once(distance_book):
    first, mask, _ = distance_book
    got = np.sort(_canonical(first, mask))
    assert len(np.unique(got)) == len(got) == 4_200_899
    want = np.sort(_canonical(*enumerate_positions(12, None, *DEFAULT_BOARD)))
    assert np.array_equal(got, want)


@pytest.mark.slow
def test_distance_book_agrees_with_the_win_draw_loss_book_everywhere(distance_book):
    first, mask, values = distance_book
    with open_book(BOOK12) as wdl:
        winners = wdl.lookup_many(first, mask).winner
    assert np.array_equal(_winners(values, True), winners)


@pytest.mark.slow
def test_distances_fit_their_winners_and_the_board(distance_book):
    _, _, values = distance_book
    v = values.astype(np.int64)
    d = 100 - np.abs(v)
    # at 12 stones the first player places the odd-numbered stones from here
    assert np.all(d[v > 0] % 2 == 1) and np.all(d[v < 0] % 2 == 0)
    assert np.all(d[v != 0] >= 1) and np.all(d[v != 0] <= CELLS - 12)
    # the side to move cannot win at once in a book position: no first-player win in 1
    assert np.all(d[v > 0] >= 3)


@pytest.mark.slow
def test_distance_book_records_agree_with_the_solver(distance_book):
    first, mask, values = distance_book
    solver = Solver(table_log2=TABLE)
    rng = np.random.default_rng(2026)
    for i in rng.choice(len(values), 300, replace=False).tolist():
        pos = Position.from_bitboards(int(first[i]), int(mask[i]))
        assert int(values[i]) == expected_book_value(pos, True, solver), pos.some_moves()


@pytest.mark.slow
def test_distance_book_derives_book8_byte_for_byte(tmp_path):
    again = tmp_path / "book8.dat"
    derive_book(BOOK12_DIST, 8, again, distances=False)
    assert again.read_bytes() == BOOK8.read_bytes()


# ------------------------------------------------------------ books derived from it
def test_derived_books_say_how_they_were_made():
    source_sha = read_manifest(BOOK12_DIST)["book"]["sha256"]
    for name, (plies, distances) in DERIVED.items():
        manifest = read_manifest(BOOKS / name)
        assert manifest["derived_from"]["sha256"] == source_sha, name
        assert manifest["command"].startswith("openingbook derive --from books/book12-dist.dat")
        assert f"--plies {plies}" in manifest["command"]
        assert manifest["format"]["plies"] == plies and manifest["format"]["distances"] is distances
        assert manifest["book"]["sha256"] == file_sha256(BOOKS / name)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(DERIVED))
def test_derived_book_is_reproduced_and_matches_the_published_counts(name, tmp_path):
    plies, distances = DERIVED[name]
    again = tmp_path / name
    derive_book(BOOK12_DIST, plies, again, distances=distances)
    assert again.read_bytes() == (BOOKS / name).read_bytes()
    per_ply = book_stats(BOOKS / name, per_ply=True).per_ply
    assert per_ply.matches_published
    assert (per_ply.won, per_ply.drawn, per_ply.lost) == WDL_PER_PLY[plies]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "same_ply"), [("book8-dist.dat", BOOK8), ("book10-dist.dat", BOOKS / "book10.dat")]
)
def test_derived_distance_book_agrees_with_its_ply_and_the_solver(name, same_ply):
    plies, _ = DERIVED[name]
    first, mask, values = book_positions(BOOKS / name, plies, True)
    assert len(values) == len(enumerate_positions(plies, None, *DEFAULT_BOARD)[0])
    with open_book(same_ply) as wdl:
        assert np.array_equal(_winners(values, True), wdl.lookup_many(first, mask).winner)
    solver = Solver(table_log2=TABLE)
    rng = np.random.default_rng(plies)
    for i in rng.choice(len(values), 12 if plies == 8 else 40, replace=False).tolist():
        pos = Position.from_bitboards(int(first[i]), int(mask[i]))
        assert int(values[i]) == expected_book_value(pos, True, solver), pos.some_moves()


@pytest.mark.slow
def test_book10_pruned_values_agree_with_the_solver():
    first, mask, values = book_positions(BOOKS / "book10.dat", 10, False)
    solver = Solver(table_log2=TABLE)
    rng = np.random.default_rng(10)
    for i in rng.choice(len(values), 40, replace=False).tolist():
        pos = Position.from_bitboards(int(first[i]), int(mask[i]))
        assert int(values[i]) == expected_book_value(pos, False, solver), pos.some_moves()
