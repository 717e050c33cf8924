"""The entropy report (``stats --entropy``): its counts, its contexts against a brute-force
reading of the board, and the command line."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from openingbook.checks.entropy import (
    CONTEXTS,
    book_entropy,
    conditional_entropy,
    context_counts,
    huffman_bits,
    position_contexts,
)
from openingbook.cli import main
from openingbook.formats import load_book
from openingbook.solver import STATUS_OK, book_position_status
from tests.helpers import four_through

WIDTH, HEIGHT = 7, 6


@pytest.fixture(scope="module")
def report8():
    return book_entropy("8-dist")


def test_counts_the_stored_positions_once():
    """Every stored position once; order 0 is the entropy of the book's value counts."""
    report = book_entropy("10")
    model = load_book("10")
    stored = book_position_status(model.first, model.mask, 10, WIDTH, HEIGHT) == STATUS_OK
    assert report.positions == int(stored.sum()) == len(model)
    counts = np.bincount(model.winner.astype(np.int64) + 1)
    p = counts[counts > 0] / counts.sum()
    assert report.order0 == pytest.approx(float(-(p * np.log2(p)).sum()))
    assert report.distinct_values == 3


def test_a_finer_context_never_holds_more(report8):
    rows = {r["context"]: r for r in report8.rows}
    for coarse in ("ply", "forced", "threats", "odd-even", "centre"):
        assert rows["combined"]["entropy"] <= rows[coarse]["entropy"] + 1e-9
    for r in report8.rows:  # a prefix code averages at least the entropy, less than 1 more
        assert r["entropy"] - 1e-9 <= r["huffman"] < r["entropy"] + 1
        assert r["wdl_entropy"] <= r["entropy"] + 1e-9  # the winner is part of the value
    assert [r["context"] for r in report8.rows] == list(CONTEXTS)


def test_entropy_and_huffman_of_known_counts():
    counts = context_counts(np.array([1, 1, 1, 1, 2, 2, 3, 3]))
    assert conditional_entropy(counts) == pytest.approx(1.5)
    assert huffman_bits(counts) == pytest.approx(1.5)
    skewed = context_counts(np.array([0] * 9 + [1]))
    h = -(0.9 * math.log2(0.9) + 0.1 * math.log2(0.1))
    assert conditional_entropy(skewed) == pytest.approx(h)
    assert huffman_bits(skewed) == 1.0
    # each context decides the value: nothing left to store
    split = context_counts(np.array([0, 0, 1, 1]), np.array([7, 7, 3, 3]))
    assert conditional_entropy(split) == 0.0 and huffman_bits(split) == 0.0


def _grid(first: int, mask: int) -> list[list[int | None]]:
    """Columns bottom first: 1 first player, 2 second, None empty."""
    return [
        [
            None
            if not mask >> (c * (HEIGHT + 1) + r) & 1
            else 1
            if first >> (c * (HEIGHT + 1) + r) & 1
            else 2
            for r in range(HEIGHT)
        ]
        for c in range(WIDTH)
    ]


def _winning_cells(grid: list[list[int | None]], player: int) -> list[tuple[int, int]]:
    out = []
    for c in range(WIDTH):
        for r in range(HEIGHT):
            if grid[c][r] is None:
                trial = [list(col) for col in grid]
                trial[c][r] = player
                if four_through(trial, c, r):
                    out.append((c, r))
    return out


def test_contexts_agree_with_the_board_read_cell_by_cell():
    model = load_book("8")
    rng = np.random.default_rng(34)
    pick = rng.choice(len(model), 400, replace=False)
    first, mask = model.first[pick], model.mask[pick]
    contexts = position_contexts(first, mask, WIDTH, HEIGHT)
    for i in range(pick.size):
        grid = _grid(int(first[i]), int(mask[i]))
        stones = sum(cell is not None for col in grid for cell in col)
        heights = [sum(cell is not None for cell in col) for col in grid]
        w1, w2 = _winning_cells(grid, 1), _winning_cells(grid, 2)
        opponent = w2 if stones % 2 == 0 else w1
        forced = min(2, sum(1 for c, r in opponent if r == heights[c]))
        threats = min(len(w1), 3) * 4 + min(len(w2), 3)
        odd = sum(1 for _, r in w1 if r % 2 == 0)  # rows 1, 3, 5 counted from 1
        even = sum(1 for _, r in w2 if r % 2 == 1)
        odd_even = min(odd, 2) * 3 + min(even, 2)
        centre = grid[WIDTH // 2]
        centre_code = centre.count(1) * (HEIGHT + 1) + centre.count(2)
        code = 0
        for h in heights:
            code = code * (HEIGHT + 1) + h
        mirrored = 0
        for h in reversed(heights):
            mirrored = mirrored * (HEIGHT + 1) + h
        assert contexts["forced"][i] == stones * 3 + forced
        assert contexts["threats"][i] == stones * 16 + threats
        assert contexts["odd-even"][i] == stones * 9 + odd_even
        assert contexts["centre"][i] == stones * (HEIGHT + 1) ** 2 + centre_code
        assert contexts["heights"][i] == min(code, mirrored)


def test_the_command_prints_and_writes_json():
    runner = CliRunner()
    text = runner.invoke(main, ["stats", "--entropy", "8"])
    assert text.exit_code == 0, text.output
    assert "77,715 positions, 3 distinct values" in text.output
    assert "wins at once left out" in text.output
    done = runner.invoke(main, ["stats", "--entropy", "8-dist", "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    assert data["ok"] and data["kind"] == "distance"
    assert [r["context"] for r in data["rows"]] == list(CONTEXTS)


def test_the_entropy_report_stands_alone():
    done = CliRunner().invoke(main, ["stats", "--entropy", "--tromp", "8"])
    assert done.exit_code == 2
    assert "--entropy is a report of its own" in done.output
