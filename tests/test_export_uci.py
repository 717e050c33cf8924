"""UCI / Tromp CSV export: Tromp's selection, order and variants, values, row format."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from openingbook.codec import legal_mask
from openingbook.formats.thill import Book
from openingbook.formats.uci import opponent_threat, tromp_order, uci_fields, uci_lines
from openingbook.pipeline.export import export_book
from openingbook.solver import (
    DEFAULT_BOARD,
    DEFAULT_HEIGHT,
    Position,
    can_win_next_bits,
    canonical_keys,
)
from openingbook.solver.position import bottom_mask, winning_cells
from openingbook.solver.search import Solver
from tests.helpers import REFERENCE_BOOK8, built_book, positions

#: The first 43 lines of the published UCI "Connect-4" data set (connect-4.data).
PUBLISHED_FIRST_LINES = """
b,b,b,b,b,b,b,b,b,b,b,b,x,o,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,x,b,b,b,b,b,x,o,x,o,x,o,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,o,b,b,b,b,b,x,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,x,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,o,b,b,b,b,b,b,b,b,b,b,b,win
o,b,b,b,b,b,b,b,b,b,b,b,x,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,x,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,win
b,b,b,b,b,b,x,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,draw
b,b,b,b,b,b,x,b,b,b,b,b,b,b,b,b,b,b,x,o,x,o,x,o,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,x,o,b,b,b,b,b,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,x,b,b,b,b,b,b,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,o,b,b,b,b,b,b,b,b,b,b,b,win
o,b,b,b,b,b,x,b,b,b,b,b,b,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,x,b,b,b,b,b,b,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,win
x,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,x,o,x,o,x,o,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
x,b,b,b,b,b,o,b,b,b,b,b,b,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,loss
x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,o,b,b,b,b,b,b,b,b,b,b,b,win
x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,o,o,b,b,b,b,x,o,x,o,x,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,loss
b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,o,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,x,b,b,b,b,b,b,o,b,b,b,b,b,b,b,b,b,b,b,win
o,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,x,b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,draw
b,b,b,b,b,b,b,b,b,b,b,b,o,x,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,o,x,o,b,b,b,x,o,x,o,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,o,x,b,b,b,b,x,o,x,o,x,b,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,o,b,b,b,b,b,o,x,b,b,b,b,x,o,x,o,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,o,x,b,b,b,b,x,o,x,o,x,b,b,b,b,b,b,b,o,b,b,b,b,b,b,b,b,b,b,b,win
o,b,b,b,b,b,b,b,b,b,b,b,o,x,b,b,b,b,x,o,x,o,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,o,x,b,b,b,b,x,o,x,o,x,b,b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,o,o,b,b,b,b,x,o,x,o,x,b,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,loss
b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,b,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,draw
b,b,b,b,b,b,o,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,b,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,b,x,b,b,b,b,b,o,b,b,b,b,b,b,b,b,b,b,b,loss
o,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,b,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,b,x,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,win
b,b,b,b,b,b,x,b,b,b,b,b,o,o,b,b,b,b,x,o,x,o,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,loss
b,b,b,b,b,b,x,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,b,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,x,o,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,loss
b,b,b,b,b,b,x,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,b,b,b,b,b,b,b,o,b,b,b,b,b,b,b,b,b,b,b,draw
o,b,b,b,b,b,x,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,win
b,b,b,b,b,b,x,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,b,b,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,draw
""".strip().splitlines()

CLASSES = {"win": 1, "loss": -1, "draw": 0}


def _parse(line: str) -> tuple[Position, int]:
    *cells, result = line.strip().split(",")
    array = [
        [{"b": 0, "x": 1, "o": 2}[cells[6 * col + row]] for row in range(6)] for col in range(7)
    ]
    return Position.from_array(array), CLASSES[result]


def _parse_many(lines: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(first, mask, result)``; cell ``i`` of a line is column ``i // 6``, row ``i % 6``."""
    raw = np.frombuffer("".join(line[:84] for line in lines).encode(), np.uint8).reshape(-1, 84)
    cells = raw[:, 0::2]
    bits = np.array([1 << (7 * (i // 6) + i % 6) for i in range(42)], np.uint64)
    first = np.bitwise_or.reduce(np.where(cells == ord("x"), bits, np.uint64(0)), axis=1)
    mask = np.bitwise_or.reduce(np.where(cells != ord("b"), bits, np.uint64(0)), axis=1)
    result = np.array([CLASSES[line.rsplit(",", 1)[1]] for line in lines])
    return first, mask, result


@pytest.fixture(scope="module")
def tromp_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    out = tmp_path_factory.mktemp("uci") / "connect-4.data"
    summary = export_book(REFERENCE_BOOK8, "uci", out, tromp_subset=True)
    assert summary.positions == 67557
    return out.read_text().splitlines()


def test_first_lines_equal_the_published_data_set(tromp_lines: list[str]) -> None:
    assert tromp_lines[: len(PUBLISHED_FIRST_LINES)] == PUBLISHED_FIRST_LINES


def test_tromp_subset_counts(tromp_lines: list[str]) -> None:
    # counts published with the data set (and by Thill); the original 8-ply book's
    # 229 missing positions all have a second-player threat, outside the subset
    results = [line.rsplit(",", 1)[1] for line in tromp_lines]
    assert len(results) == 67557
    assert (results.count("win"), results.count("loss"), results.count("draw")) == (
        44473,
        16635,
        6449,
    )


def test_every_line_is_a_distinct_book_position_with_its_value(tromp_lines: list[str]) -> None:
    first, mask, result = _parse_many(tromp_lines)
    with Book(REFERENCE_BOOK8) as book:
        assert (book.lookup_many(first, mask).winner == result).all()
    assert legal_mask(first, mask, DEFAULT_HEIGHT).all() and (np.bitwise_count(mask) == 8).all()
    assert np.unique(canonical_keys(first, mask, *DEFAULT_BOARD)).size == len(tromp_lines)
    assert not can_win_next_bits(first, mask, *DEFAULT_BOARD).any()
    assert not opponent_threat(first, mask).any()
    for line in tromp_lines[::5000]:  # the vectorized parse agrees with a literal one
        pos, _ = _parse(line)
        assert (pos.first_stones, pos.mask) in set(zip(first.tolist(), mask.tolist(), strict=True))


def test_without_the_subset_every_book_position_is_listed(tmp_path: Path) -> None:
    out = tmp_path / "all.csv"
    summary = export_book(REFERENCE_BOOK8, "uci", out)
    assert summary.positions == 77715
    first, mask = tromp_order(8)
    assert opponent_threat(first, mask).sum() == 77715 - 67557
    assert out.read_bytes() == b"".join(
        uci_lines(first, mask, Book(REFERENCE_BOOK8).lookup_many(first, mask).winner)
    )


@settings(max_examples=150, deadline=None)
@given(positions(max_stones=41))
def test_vectorized_rows_and_threats_follow_the_definitions(pos: Position) -> None:
    first = np.array([pos.first_stones], np.uint64)
    mask = np.array([pos.mask], np.uint64)
    assert uci_lines(first, mask, np.array([0]))[0] == (uci_fields(pos) + ",draw\n").encode()
    waiting = pos.second_stones if pos.stone_count % 2 == 0 else pos.first_stones
    playable = pos.mask + bottom_mask(7, 6)
    threat = bool(winning_cells(waiting, pos.mask, 7, 6) & playable)
    assert bool(opponent_threat(first, mask)[0]) == threat


def test_rows_of_a_built_book_agree_with_the_solver(tmp_path: Path) -> None:
    book = built_book(10, "44444455", distances=False)
    out = tmp_path / "ten.csv"
    summary = export_book(book, "uci", out)
    lines = out.read_text().splitlines()
    assert summary.positions == len(lines) > 0
    solver = Solver(table_log2=20)
    for line in lines:
        pos, result = _parse(line)
        wdl = solver.solve_wdl(pos)  # side to move: the first player at 10 stones
        assert wdl == result


def test_deeper_books_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at most 10 plies"):
        export_book(built_book(), "uci", tmp_path / "x.csv")
    assert not (tmp_path / "x.csv").exists()
