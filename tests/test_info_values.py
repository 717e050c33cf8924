"""``info``'s values check of a format without a checksum: against a shipped book, or
said to be not available; never an unexamined "ok"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from click.testing import CliRunner

from openingbook.cli import main
from openingbook.formats import describe, load_book
from openingbook.formats.pons import write_pons
from openingbook.solver import enumerate_positions


def _pons(path: Path, first: np.ndarray, mask: np.ndarray, scores: np.ndarray, board) -> Path:
    write_pons(path, first, mask, scores, log_size=21, width=board.width, height=board.height)
    return path


def test_a_pons_book_with_2000_altered_values_is_not_ok(tmp_path: Path) -> None:
    model = load_book("8-dist")
    scores = model.score.copy()
    # swap the scores of 1000 pairs of neighbours that differ: 2,000 values, each one a
    # score some 8-ply position has, so that nothing but a comparison can tell
    pairs = np.flatnonzero(scores[:-1:2] != scores[1::2])[:1000] * 2
    scores[pairs], scores[pairs + 1] = model.score[pairs + 1], model.score[pairs]
    assert (scores != model.score).sum() == 2000
    good = _pons(tmp_path / "good.book", model.first, model.mask, model.score, model.board)
    bad = _pons(tmp_path / "bad.book", model.first, model.mask, scores, model.board)
    assert describe(good)["checks"] == {"values": "ok"}
    info = describe(bad)
    assert not info["ok"]
    assert info["checks"]["values"].startswith("2,000 of 77,715 positions disagree with the ")
    result = CliRunner().invoke(main, ["info", str(bad)])
    assert result.exit_code == 1
    assert "values check: 2,000 of 77,715 positions disagree" in result.output


def test_a_book_no_shipped_book_can_check_says_so(tmp_path: Path) -> None:
    from openingbook.solver import BoardSize

    board = BoardSize(5, 4)  # no shipped book of this board
    first, mask = enumerate_positions(2, None, *board)
    book = _pons(tmp_path / "b.book", first, mask, np.zeros(len(first), np.int64), board)
    info = describe(book)
    assert info["ok"] and info["checks"] == {}
    assert info["not_checked"]["values"].startswith("not available for pons")
    result = CliRunner().invoke(main, ["info", str(book)])
    assert result.exit_code == 0, result.output
    assert "values check: not available for pons" in result.output
    assert "values check: ok" not in result.output
