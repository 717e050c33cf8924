"""docs/FORMATS.md: every worked example is recomputed by our code and found on the page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from openingbook.codec import encode_column_code, position_key
from openingbook.formats.cadot import cadot_columns, cadot_key, encode_outcomes
from openingbook.formats.pons import key3, next_prime
from openingbook.formats.tabular import tabular_lines
from openingbook.formats.thill import BOOK12_DIST, BookFormat, Records
from openingbook.formats.thill.book import records_to_bytes
from openingbook.formats.uci import tromp_order, uci_lines
from openingbook.solver import DEFAULT_BOARD, DEFAULT_HEIGHT, DEFAULT_WIDTH, Position
from openingbook.solver.search import Solver

DOC = Path(__file__).resolve().parent.parent / "docs" / "FORMATS.md"
EXAMPLE = "616157435612"


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text()


@pytest.fixture(scope="module")
def example() -> Position:
    return Position.from_moves(EXAMPLE)


def test_example_position_and_score(doc: str, example: Position, reference_dir: Path) -> None:
    assert example.to_diagram() in doc
    reference = (reference_dir / "solver-scores.txt").read_text().split("\n")
    assert f"{EXAMPLE} 14" in reference
    assert Solver(table_log2=16).solve(example) == 14
    assert "score **14**" in doc and "3 plies" in doc


def test_column_code_example(doc: str, example: Position) -> None:
    assert encode_column_code(example).to01() in doc
    assert f"`{position_key(example, 32):#010x}`" in doc
    assert f"`{position_key(example.mirror(), 32):#010x}`" in doc


def test_thill_record_example(doc: str, example: Position) -> None:
    key = position_key(example, 32)
    record = records_to_bytes(BOOK12_DIST, Records([key], [100 - 3]))
    assert f"**`{record.hex(' ')}`**" in doc
    assert str(key - (1 << 32)) in doc
    for plies, pruned, dist in ((10, 4, 5), (12, 4, 5), (14, 5, 6), (16, 5, 6)):
        assert BookFormat.for_plies(plies, False, *DEFAULT_BOARD).record_bytes == pruned
        assert (
            BookFormat.for_plies(
                plies, distances=True, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
            ).record_bytes
            == dist
        )


def test_cadot_example(doc: str, example: Position) -> None:
    values = [sum(example.cell(c, r) * 3**r for r in range(6)) for c in range(7)]
    digits = [cadot_columns().index(v) for v in values]
    assert "**" + ", ".join(map(str, digits)) + "**" in doc
    key = cadot_key(example)
    assert f"**{key}**" in doc
    outcome = int(encode_outcomes(np.array([1]), np.array([3]))[0])
    record = key.to_bytes(6, "big") + bytes([outcome])
    assert f"**`{record.hex(' ')}`**" in doc


def test_pons_example(doc: str, example: Position) -> None:
    k = key3(example)
    assert f"**{k}**" in doc and np.base_repr(k, 3) in doc
    size = next_prime(1 << 21)
    assert f"`size` {size}" in doc
    assert f"**{k % size}**" in doc and f"**{k & 0xFF}**" in doc and "**33**" in doc


def test_uci_and_tabular_examples(doc: str, example: Position) -> None:
    first, mask = tromp_order(8, tromp_subset=True)
    line = uci_lines(first[:1], mask[:1], np.array([1]))[0].decode().strip()
    assert f"\n{line}\n" in doc
    f = np.array([example.first_stones], np.uint64)
    m = np.array([example.mask], np.uint64)
    row = tabular_lines("jsonl", f, m, np.array([1]), np.array([3]), np.array([14]), 32)[0]
    assert f"\n{row}" in doc
