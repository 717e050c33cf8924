"""The reading commands on Cadot and Pons files: one ``open_book`` for every format.

``lookup``, ``info``, ``stats``, ``check``, ``diff``, ``validate`` and ``export`` are
run (in process) on exports of the shipped 8-ply distance book to Cadot's and Pons'
formats, and on a 5x4 Pons book of solver scores; every answer is compared with the
source book's (read through the compact reader, whose values ``test_compact`` and
``test_full_books`` check against Thill's files and the solver), and ``validate``
with the deeper shipped book. Damaged and mixed files fail with one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from openingbook.cli import main
from openingbook.formats import FORMATS, load_book
from openingbook.formats.cadot import CADOT_RECORD_BYTES, KEY_BYTES, write_cadot
from openingbook.formats.compact import write_compact
from openingbook.solver import BoardSize, Position, Solver, canonical_keys, enumerate_positions

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "books" / "book8-dist.c4b"
DEEPER = ROOT / "books" / "book10-dist.c4b"


def _run(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert not isinstance(result.exception, AssertionError | TypeError | AttributeError), (
        result.output
    )
    return result.exit_code, result.output


def _one_line_error(code: int, output: str, status: int = 1) -> str:
    assert code == status, output
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), output
    return lines[0]


@pytest.fixture(scope="module")
def books(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("cli-formats")
    source = load_book(SOURCE)
    out = {}
    for name, suffix in (("cadot", ".cadot"), ("pons", ".book")):
        out[name] = tmp / f"book8-dist{suffix}"
        FORMATS[name].write(source, out[name])
    # a 5x4 book of solver scores (exact on this board: test_board_size_books)
    board = BoardSize(5, 4)
    first, mask = enumerate_positions(8, None, *board)
    scores = Solver(width=5, height=4, table_log2=16).solve_many(first, mask)
    compact = tmp / "5x4-8.c4b"
    write_compact(compact, 8, "score", first, mask, scores, board=board)
    out["5x4 compact"] = compact
    out["5x4 pons"] = tmp / "5x4-8.book"
    FORMATS["pons"].write(load_book(compact), out["5x4 pons"])
    return out


def _moves(first: int, mask: int, board: BoardSize) -> str:
    return Position.from_bitboards(first, mask, *board).some_moves()


@pytest.mark.parametrize("name", ["cadot", "pons", "5x4 pons"])
def test_lookup_answers_as_the_source(books, name):
    model = load_book(books["5x4 compact"] if name.startswith("5x4") else SOURCE)
    picks = np.random.default_rng(5).choice(len(model), size=12, replace=False)
    for i in picks:
        moves = _moves(int(model.first[i]), int(model.mask[i]), model.board)
        code, output = _run("lookup", books[name], moves, "--json")
        assert code == 0, output
        answer = json.loads(output)
        winner = {1: "first", -1: "second", 0: "draw"}[int(model.winner[i])]
        assert (answer["winner"], answer["plies"], answer["score"]) == (
            winner,
            int(model.plies_to_end[i]),
            int(model.score[i]),
        ), moves
        assert answer["format"].startswith(FORMATS[name.split()[-1]].name)


@pytest.mark.parametrize(("name", "status"), [("cadot", 2), ("pons", 1)])
def test_lookup_of_another_ply_is_one_line(books, name, status):
    # a stone count the book cannot hold is refused as an argument (exit status 2); a
    # Pons book may hold positions of fewer stones than its depth: not in it (status 1)
    _one_line_error(*_run("lookup", books[name], "444444"), status=status)


@pytest.mark.parametrize("name", ["cadot", "pons", "5x4 pons"])
def test_info_and_stats_count_the_source(books, name):
    model = load_book(books["5x4 compact"] if name.startswith("5x4") else SOURCE)
    counts = {
        "first": int((model.winner == 1).sum()),
        "second": int((model.winner == -1).sum()),
        "draw": int((model.winner == 0).sum()),
    }
    code, output = _run("info", books[name], "--json")
    assert code == 0, output
    info = json.loads(output)
    assert info["format"] == name.split()[-1] and info["board"] == str(model.board)
    assert (info["plies"], info["positions"], info["values"]) == (8, len(model), counts)
    code, output = _run("stats", books[name], "--json")
    assert code == 0, output
    stats = json.loads(output)
    assert stats["positions"] == len(model) and stats["stored_values"] == counts
    assert f"{name.split()[-1]} format" in stats["format"]
    if model.board == BoardSize(7, 6):  # the distances of the source, to the ply
        by_plies = np.unique(model.plies_to_end[model.winner == 1], return_counts=True)
        expected = {f"first wins in {d}": int(c) for d, c in zip(*by_plies, strict=True)}
        got = {k: v for k, v in stats["distance_histogram"].items() if k.startswith("first")}
        assert got == expected


@pytest.mark.parametrize("name", ["cadot", "pons"])
def test_diff_and_validate_agree_with_the_source(books, name):
    code, output = _run("diff", books[name], SOURCE, "--json")
    assert code == 0, output
    diff = json.loads(output)
    assert diff["ok"] and diff["common"] == 77_715 and not diff["value_differences"]
    code, output = _run("validate", books[name], DEEPER, "--json")
    assert code == 0, output
    report = json.loads(output)
    assert report["ok"] and report["agree"] == report["positions"] == 77_715


def test_diff_of_a_5x4_pons_book_and_its_source(books):
    code, output = _run("diff", books["5x4 pons"], books["5x4 compact"], "--json")
    assert code == 0, output
    diff = json.loads(output)
    assert diff["ok"] and diff["common"] == diff["positions_a"] == diff["positions_b"] > 0


def test_diff_finds_a_changed_cadot_record(books, tmp_path):
    """One outcome byte changed to another possible value: diff names that position."""
    data = bytearray(books["cadot"].read_bytes())
    outcomes = np.frombuffer(bytes(data), np.uint8).reshape(-1, CADOT_RECORD_BYTES)[:, KEY_BYTES]
    i = int(np.flatnonzero(outcomes == 0x40 | 5)[0])  # first player wins in 5 plies
    data[i * CADOT_RECORD_BYTES + KEY_BYTES] = 0x40 | 7
    changed = tmp_path / "changed.cadot"
    changed.write_bytes(bytes(data))
    code, output = _run("diff", changed, SOURCE, "--json")
    assert code == 1, output
    assert len(json.loads(output)["value_differences"]) == 1


@pytest.mark.parametrize("name", ["cadot", "pons"])
def test_check_re_solves_the_file(books, name):
    code, output = _run("check", books[name], "--sample", 3, "--jobs", 1, "--json")
    assert code == 0, output
    report = json.loads(output)
    assert report["ok"] and report["solved"] == 3 and report["positions"] == 77_715


@pytest.mark.parametrize(("source", "target"), [("cadot", "pons"), ("pons", "cadot")])
def test_export_between_formats_keeps_every_answer(books, tmp_path, source, target):
    out = tmp_path / f"again.{target}"
    code, output = _run("export", books[source], "--format", target, "-o", out)
    assert code == 0, output
    want, got = load_book(SOURCE), load_book(out)
    assert len(got) == len(want)
    keys_want = canonical_keys(want.first, want.mask, *want.board)  # either mirror variant
    keys_got = canonical_keys(got.first, got.mask, *got.board)
    a, b = np.argsort(keys_want), np.argsort(keys_got)
    assert np.array_equal(keys_want[a], keys_got[b])
    for field in ("winner", "plies_to_end", "score"):
        assert np.array_equal(getattr(want, field)[a], getattr(got, field)[b]), field


def test_a_cadot_table_of_two_plies_is_refused_in_one_line(tmp_path):
    board = BoardSize(7, 6)
    parts = [enumerate_positions(p, None, *board) for p in (4, 5)]
    first = np.concatenate([p[0] for p in parts])
    mask = np.concatenate([p[1] for p in parts])
    path = tmp_path / "mixed.cadot"
    write_cadot(path, first, mask, np.zeros(len(first)), np.zeros(len(first)))
    for args in (("info", path), ("stats", path), ("lookup", path, "4444")):
        line = _one_line_error(*_run(*args))
        assert "4-stone" in line and "5-stone" in line, line


@pytest.mark.parametrize("name", ["cadot", "pons"])
@pytest.mark.parametrize("suffix", [".c4b", ".dat"])
def test_convert_names_another_engines_format_and_refuses_it(books, tmp_path, name, suffix):
    """convert reads Thill and compact books; another engine's file is named for what
    it is (never "already a thill book") and nothing is written."""
    out = tmp_path / f"out{suffix}"
    line = _one_line_error(*_run("convert", books[name], out))
    assert f"a {name} book; convert takes Thill and compact books" in line, line
    assert not out.exists()


@pytest.mark.parametrize("name", ["cadot", "pons"])
def test_merge_names_another_engines_format_and_refuses_it(books, tmp_path, name):
    out = tmp_path / "merged.dat"
    line = _one_line_error(*_run("merge", books[name], books[name], "-o", out))
    assert f"a {name} book; merge takes the Thill shards" in line, line
    assert not out.exists()
