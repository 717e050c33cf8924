"""The complete books in books/: the 12-ply win/draw/loss book this project built
(``openingbook build --plies 12`` in four shards, then ``openingbook merge``) and the
8-ply book derived from it (``openingbook derive``).

Checked against independent sources: the enumeration (every book position is there
once, pruned ones counted), the solver (random stored and random pruned positions),
Thill's published 8-ply file (every value agrees but for the 229 positions his file
is documented to lack) and, in test_validate.py, Tromp's published 8-ply counts.
"""

from __future__ import annotations

import numpy as np
import pytest

from openingbook.checks.validate import validate_books
from openingbook.formats.thill import read_manifest
from openingbook.pipeline.derive import derive_book
from openingbook.provenance import file_sha256
from openingbook.solver import DEFAULT_BOARD, Position, Solver, enumerate_positions
from openingbook.solver.bitboards import position_keys
from tests.helpers import BOOKS, TABLE, book_positions, expected_book_value, second_player_threatens

BOOK12 = BOOKS / "book12.dat"
BOOK8 = BOOKS / "book8.dat"
FULL_12_PLY = 4_200_899  # FORMATS.md
THILL_MISSING = 229  # positions Thill's book.dat lacks although the first player does not win


def test_book12_manifest_says_how_it_was_made():
    manifest = read_manifest(BOOK12)
    assert manifest["format"]["name"] == "12-ply" and manifest["format"]["pruned"]
    assert manifest["selection"] == {
        "plies": 12,
        "distances": False,
        "under": None,
        "sample": None,
        "seed": None,
        "shard": None,
    }
    assert manifest["command"].startswith("openingbook merge ")
    assert [s["shard"] for s in manifest["merged_from"]] == ["1/4", "2/4", "3/4", "4/4"]
    for shard in manifest["merged_from"]:
        assert shard["command"].startswith("openingbook build --plies 12 ")
        assert f"--shard {shard['shard']}" in shard["command"]
        assert "--distances" not in shard["command"]
    assert sum(manifest["values"].values()) == FULL_12_PLY
    # FORMATS.md: the counts of the complete, correct published 12-ply books
    assert manifest["values"] == {"first": 2_464_954, "second": 1_464_998, "draw": 270_947}
    assert manifest["book"]["records"] == 1_735_945
    assert read_manifest(BOOK8)["book"]["records"] == 28_922  # a correct 8-ply book


@pytest.mark.slow
def test_book12_holds_every_position_not_won_by_the_first_player():
    """Every stored record is a 12-ply book position (one variant per mirror pair),
    stored once; with the pruned first-player wins they make the whole enumeration."""
    manifest = read_manifest(BOOK12)
    first, mask, values = book_positions(BOOK12, 12, False)
    assert len(values) == manifest["book"]["records"]
    assert set(np.unique(values).tolist()) <= {0, 1}  # draw, second player wins
    all_first, all_mask = enumerate_positions(12, None, *DEFAULT_BOARD)
    assert len(all_first) == FULL_12_PLY
    book_keys = position_keys(first, mask, 7, 6)
    all_keys = position_keys(all_first, all_mask, 7, 6)
    assert len(np.unique(book_keys)) == len(book_keys)
    assert np.isin(book_keys, all_keys).all()  # the enumeration's variant of each pair
    assert manifest["values"]["first"] == FULL_12_PLY - len(values)
    assert manifest["values"]["draw"] == int(np.count_nonzero(values == 0))
    assert manifest["values"]["second"] == int(np.count_nonzero(values == 1))

    # the solver on random stored records and random pruned (first-player-win) positions
    rng = np.random.default_rng(2026)
    solver = Solver(table_log2=TABLE)
    for i in rng.choice(len(values), 40, replace=False).tolist():
        pos = Position.from_bitboards(int(first[i]), int(mask[i]))
        assert int(values[i]) == expected_book_value(pos, False, solver), pos.some_moves()
    pruned = np.flatnonzero(~np.isin(all_keys, book_keys))
    for i in rng.choice(pruned, 40, replace=False).tolist():
        pos = Position.from_bitboards(int(all_first[i]), int(all_mask[i]))
        assert expected_book_value(pos, False, solver) == 2, pos.some_moves()


@pytest.mark.slow
def test_book8_is_derived_from_book12_and_agrees_with_thill(tmp_path, reference_dir):
    """books/book8.dat is reproduced by deriving it again; Thill's 8-ply file, validated
    against our 12-ply book, disagrees exactly on the positions it is known to lack."""
    manifest = read_manifest(BOOK8)
    assert manifest["derived_from"]["sha256"] == file_sha256(BOOK12)
    assert manifest["command"].startswith("openingbook derive --from books/book12.dat ")
    again = tmp_path / "b8.dat"
    derive_book(BOOK12, 8, again, distances=False)
    assert again.read_bytes() == BOOK8.read_bytes()

    report = validate_books(reference_dir / "thill-original-book8.dat", BOOK12)
    assert report.compared == report.positions == 77_715
    assert len(report.disagreements) == THILL_MISSING
    for d in report.disagreements:
        assert d.a == "first player wins (not stored)" and d.b_value["winner"] != "first"
        assert second_player_threatens(Position.from_moves(d.moves)), d.moves
    assert report.agree == 77_715 - THILL_MISSING
