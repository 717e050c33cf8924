"""``export -f npz`` and ``-f parquet``: the labelled data set, every row checked against
the engine (its position, board, every move's score, its own value)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from openingbook.api import open_book
from openingbook.engine import Engine
from openingbook.errors import BookFileError, InvalidArgument, MissingExtra
from openingbook.formats import read_model
from openingbook.formats.dataset import COLUMNS, labelled_rows
from openingbook.pipeline.export import export_book
from openingbook.registry import resolve_book
from openingbook.solver import Position, canonical_keys, count_positions
from openingbook.values import FULL_COLUMN

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="module")
def npz8(tmp_path_factory) -> dict[str, np.ndarray]:
    out = tmp_path_factory.mktemp("npz") / "b8.npz"
    summary = export_book(resolve_book("8-dist"), "npz", out)
    assert summary.positions == count_positions(7, None, 7, 6, drop_immediate_wins=False)
    assert summary.details["stones"] == 7
    with np.load(out) as archive:
        return {name: archive[name] for name in archive.files}


def check_rows(data: dict[str, np.ndarray], engine: Engine, stones: int) -> None:
    """Every row against the engine: the position, its board, every column, its value."""
    assert list(data) == list(COLUMNS)
    n = len(data["first"])
    assert data["board"].shape == (n, 6, 7) and data["scores"].shape == (n, 7)
    assert {a.dtype for k, a in data.items() if k not in ("first", "mask")} == {np.dtype("int8")}
    keys = canonical_keys(data["first"], data["mask"], 7, 6)
    assert len(np.unique(keys)) == n  # one of each mirror pair
    for i in range(n):
        pos = Position.from_bitboards(int(data["first"][i]), int(data["mask"][i]), 7, 6)
        assert pos.stone_count == data["stones"][i] == stones
        assert data["to_move"][i] == 1 + stones % 2
        cells = [[pos.cell(c, r) for c in range(7)] for r in reversed(range(6))]  # top row first
        assert data["board"][i].tolist() == cells
        analysis = engine.analyze(pos)
        expected = [FULL_COLUMN if m is None else m.score for m in analysis.moves]
        assert data["scores"][i].tolist() == expected, pos.some_moves()
        value = analysis.value
        assert data["value"][i] == value.score and data["plies"][i] == value.plies
        assert data["winner"][i] == {"first": 1, "second": 2, "draw": 0}[value.winner.value]


def test_npz_rows_agree_with_the_engine(npz8, engine: Engine) -> None:
    check_rows(npz8, engine, 7)
    # the sample holds full columns, wins at once and each outcome
    assert (npz8["scores"] == FULL_COLUMN).any()
    assert (npz8["scores"] == 18).any()  # 7 stones: a win with the 8th stone, 18 = (43 - 7) / 2
    assert set(npz8["winner"].tolist()) == {0, 1, 2}


def test_a_book_under_a_line(tmp_path: Path, engine: Engine) -> None:
    """A distance book of the positions under a line: the positions under it one ply up."""
    out = tmp_path / "under.npz"
    summary = export_book(resolve_book("12-dist-under44444"), "npz", out)
    with np.load(out) as archive:
        data = {name: archive[name] for name in archive.files}
    assert summary.positions == count_positions(11, "44444", 7, 6, drop_immediate_wins=False)
    sample = np.random.default_rng(1).choice(len(data["first"]), 400, replace=False)
    check_rows({k: v[np.sort(sample)] for k, v in data.items()}, engine, 11)


def test_the_archive_is_a_plain_npz(tmp_path: Path) -> None:
    """Members stored (not compressed), each a .npy that np.load reads."""
    out = tmp_path / "b4.npz"
    export_book(resolve_book("4-dist"), "npz", out)
    with zipfile.ZipFile(out) as archive:
        assert archive.namelist() == [f"{c}.npy" for c in COLUMNS]
        assert {i.compress_type for i in archive.infolist()} == {zipfile.ZIP_STORED}
    with np.load(out) as data:
        assert data["board"].shape == (121, 6, 7)  # the 3-ply book's 121


def test_parquet_holds_the_same_rows(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    npz, parquet = tmp_path / "b6.npz", tmp_path / "b6.parquet"
    export_book(resolve_book("6-dist"), "npz", npz)
    export_book(resolve_book("6-dist"), "parquet", parquet)
    table = pq.read_table(parquet)
    assert table.column_names == list(COLUMNS)
    assert table.schema.metadata[b"openingbook.board"] == b"7x6"
    with np.load(npz) as data:
        for name in COLUMNS:
            column = table.column(name).combine_chunks()
            if name in ("board", "scores"):
                got = column.flatten().to_numpy().reshape(data[name].shape)
            else:
                got = column.to_numpy()
            assert np.array_equal(got, data[name]), name


def test_parquet_without_pyarrow_names_the_extra(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow: ImportError
    with pytest.raises(
        MissingExtra, match=r'needs the parquet extra: pip install "openingbook\[parquet\]"'
    ):
        export_book(resolve_book("4-dist"), "parquet", tmp_path / "b.parquet")
    assert list(tmp_path.iterdir()) == []


def test_books_that_cannot_label_every_move_are_refused(tmp_path: Path) -> None:
    with pytest.raises(BookFileError, match="has no distances"):
        export_book(resolve_book("8"), "npz", tmp_path / "x.npz")
    with pytest.raises(InvalidArgument, match="0 plies"):
        export_book(resolve_book("0-dist"), "npz", tmp_path / "x.npz")
    with open_book(resolve_book("12-dist-under44444")) as book:
        model = read_model(book)
    from dataclasses import replace

    sample = replace(model, scope=replace(model.scope, partial="a sample"))
    with pytest.raises(BookFileError, match="a sample"):
        labelled_rows(sample)
    assert list(tmp_path.iterdir()) == []


def test_the_command(tmp_path: Path) -> None:
    out = tmp_path / "b5.npz"
    result = subprocess.run(
        [sys.executable, "-c", "from openingbook.cli import main; main()", "export", "5-dist",
         "-f", "npz", "-o", str(out), "--json"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["details"]["stones"] == 4 and out.is_file()
    result = subprocess.run(
        [sys.executable, "-c", "from openingbook.cli import main; main()", "export", "5-dist",
         "-f", "npz", "-o", "-"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "npz is a binary format" in result.stderr
