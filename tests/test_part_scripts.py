"""The scripts of a book built in parts (benchmarks/build_parts.sh, check_parts.py,
finish_parts.sh, cross_pons.py), run in small.

A 7-ply part on 5x4 is built by build_parts.sh (an odd ply, as the 15-ply book's
parts). The 8-ply distance book (books/) cut into three parts stands in for the 14-ply
parts: check_parts.py checks each part, finish_parts.sh merges them, checks the whole
against the published counts and a re-solved sample, validates the 6-ply book against
it and derives the 7-ply book, which must equal the 7-ply book built on its own
(books/). A part with one wrong value must stop the script before anything is merged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from openingbook.formats.compact import CompactBook, write_compact
from openingbook.solver import DEFAULT_BOARD, enumerate_positions

ROOT = Path(__file__).resolve().parents[1]
BOOKS = ROOT / "books"


def write_parts(where: Path, damage: bool = False) -> Path:
    """book8-dist.dat as three compact parts; ``damage`` changes one value of part 2."""
    from openingbook.formats import load_book
    from openingbook.formats.thill import thill_values

    whole = load_book(BOOKS / "book8-dist.dat", complete=False)
    distance_bytes = thill_values(whole)[1]
    parts = where / "parts"
    parts.mkdir()
    for i in (1, 2, 3):
        first, mask = enumerate_positions(8, None, *DEFAULT_BOARD, part=(i, 3))
        values = distance_bytes[whole.find(first, mask)].copy()
        if damage and i == 2:  # a draw made a first-player win (of the right parity)
            values[np.flatnonzero(values == 0)[0]] = values.max()
        write_compact(
            parts / f"book8-dist-part{i}of3.c4b",
            8,
            "distance",
            first,
            mask,
            values,
            part=(i, 3),
            board=DEFAULT_BOARD,
        )
    return parts


def run(script: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*script.split(), *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        capture_output=True,
        text=True,
    )


BOOK_PONS = """#!{python}
# Stands in for Pons' c4solver on 7x6 positions of a shipped distance book's ply.
import sys
import openingbook
from openingbook.solver import Position
for line in sys.stdin:
    moves = line.strip()
    with openingbook.open_book(f"{{len(moves)}}-dist") as book:
        print(moves, book.get(Position.from_moves(moves)).score, 0, 0)
"""


def stand_in(path: Path, script: str) -> Path:
    """An executable stand-in for Pons' solver at ``path``."""
    path.write_text(script.format(python=sys.executable))
    path.chmod(0o755)
    return path


def settings(tmp: Path, parts: Path) -> dict[str, str]:
    """finish_parts.sh's environment for the 8-ply parts in ``parts``, results under ``tmp``."""
    return {
        "PLIES": "8",
        "PARTS": "3",
        "PARTS_DIR": str(parts),
        "OUT": str(tmp),
        "SHALLOW": str(BOOKS / "book6-dist.c4b"),
        "SAMPLE": "20",
        "RESULTS": str(tmp / "final"),
        "PARTS_RESULTS": str(tmp / "parts-results"),
        "PYTHON": sys.executable,
        "PONS": str(stand_in(tmp / "c4solver", BOOK_PONS)),
    }


def finish(tmp: Path, parts: Path) -> tuple[subprocess.CompletedProcess, ...]:
    """check_parts.py on every part, then finish_parts.sh on them: both runs."""
    check = run(
        f"{sys.executable} benchmarks/check_parts.py",
        *map(str, sorted(parts.glob("*.c4b"))),
        "--sample", "10", "--results", str(tmp / "parts-results"),
    )  # fmt: skip
    return check, run("sh benchmarks/finish_parts.sh", env=settings(tmp, parts))


def test_build_parts_builds_a_part_once_with_the_code_of_its_checkout(tmp_path):
    """build_parts.sh with PLIES, PARTS and SIZE: the part is written under $WORK/out in
    the build's own name, with the part's positions, and a rerun skips it (check_parts.py
    needs 7x6: the published per-ply counts are of that board). Started from a directory
    holding other code (a checkout that changes), it runs $CODE's; relative paths are
    taken from where it starts."""
    from openingbook.solver import count_positions

    other = tmp_path / "openingbook"
    other.mkdir()
    (other / "__init__.py").write_text("raise SystemExit('not the code of CODE')\n")
    env = {
        **os.environ,
        "PLIES": "7",
        "PARTS": "3",
        "SIZE": "5x4",
        "CODE": str(ROOT),
        "WORK": "work",
        "BOOKS": "books",
        "PYTHON": sys.executable,
    }
    script = ["sh", str(ROOT / "benchmarks" / "build_parts.sh"), "2"]
    done = subprocess.run(script, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    part = tmp_path / "work" / "out" / "book7-dist-5x4-part2of3.c4b"
    with CompactBook(part) as book:
        assert (book.plies, book.part, tuple(book.board)) == (7, (2, 3), (5, 4))
        assert len(book) == count_positions(7, None, 5, 4, part=(2, 3))
        command = book.header.metadata["source_manifest"]["command"]
    assert {"--plies 7", "--part 2/3", "--size 5x4"} <= set(
        " ".join(pair) for pair in zip(command.split(), command.split()[1:], strict=False)
    )
    again = subprocess.run(script, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert again.returncode == 0 and "exists, skipped" in again.stdout


def test_land_parts_commits_the_parts_that_pass_their_checks(tmp_path):
    """land_parts.sh in a repository of its own: a sound part is checked and committed
    with its result, a damaged one (a byte of its payload changed) is left out."""
    import shutil

    repo = tmp_path / "repo"
    (repo / "benchmarks").mkdir(parents=True)
    for script in ("check_parts.py", "land_parts.sh"):
        shutil.copy(ROOT / "benchmarks" / script, repo / "benchmarks")
    for setting in (["init", "-q"], ["config", "user.name", "t"], ["config", "user.email", "t@t"]):
        subprocess.run(["git", "-C", str(repo), *setting], check=True)
    out = tmp_path / "work" / "out"
    out.mkdir(parents=True)
    parts = write_parts(tmp_path)
    for i in (1, 2):
        shutil.copy(parts / f"book8-dist-part{i}of3.c4b", out)
    damaged = out / "book8-dist-part2of3.c4b"
    data = bytearray(damaged.read_bytes())
    data[-1] ^= 1
    damaged.write_bytes(data)
    env = {**os.environ, "PLIES": "8", "WORK": str(tmp_path / "work"), "SAMPLE": "5"}
    env["PYTHON"] = sys.executable
    script = ["sh", "benchmarks/land_parts.sh"]
    done = subprocess.run(script, cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "committed book8-dist-part1of3.c4b" in done.stdout
    assert "book8-dist-part2of3.c4b: a check failed" in done.stderr
    files = subprocess.run(
        ["git", "-C", str(repo), "ls-files"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert files == [
        "benchmarks/results/book8/book8-dist-part1of3.json",
        "books/book8-dist/book8-dist-part1of3.c4b",
    ]
    result = json.loads((repo / "benchmarks/results/book8/book8-dist-part1of3.json").read_text())
    assert result["ok"] and result["resolved_sample"] == 5 and result["plies"] == 8
    again = subprocess.run(script, cwd=repo, env=env, capture_output=True, text=True)
    assert again.returncode == 1 and "committed" not in again.stdout


@pytest.mark.slow
def test_finish_merges_checks_validates_and_derives(tmp_path):
    check, done = finish(tmp_path, write_parts(tmp_path))
    assert check.returncode == 0, check.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    final = tmp_path / "final"
    whole = json.loads((final / "book8-dist.json").read_text())
    assert whole["ok"] and whole["part"] is None and whole["resolved_sample"] == 20
    assert whole["per_ply_counts"]["matches_published"] is True
    assert json.loads((final / "validate.json").read_text())["ok"]
    assert json.loads((final / "book7-dist.json").read_text())["ok"]
    # the derived book against the shipped one of its ply
    diff = json.loads((final / "diff-shipped.json").read_text())
    assert diff["ok"] and diff["common"] == diff["positions_b"] > 0
    pons = json.loads((final / "pons.json").read_text())
    assert (pons["positions"], pons["disagree"]) == (40, 0)
    pons = json.loads((tmp_path / "parts-results-pons.json").read_text())
    assert (pons["positions"], pons["disagree"]) == (600, 0)
    with (
        CompactBook(tmp_path / "book7-dist.c4b") as got,
        CompactBook(BOOKS / "book7-dist.c4b") as built,
    ):
        first, mask = built.positions()
        assert np.array_equal(got.values_of(first, mask), built.values_of(first, mask))
        assert len(got) == len(built)
    again = run("sh benchmarks/finish_parts.sh", env=settings(tmp_path, tmp_path / "parts"))
    assert again.returncode == 0 and again.stdout.count("skipped") == 7, again.stdout


def test_a_wrong_value_in_a_part_stops_before_the_merge(tmp_path):
    _, done = finish(tmp_path, write_parts(tmp_path, damage=True))
    assert done.returncode == 1 and "parts-published.json: failed" in done.stdout
    summary = json.loads((tmp_path / "final" / "parts-published.json.tmp").read_text())
    assert summary["matches_published"] is False
    assert not (tmp_path / "book8-dist.c4b").exists()


def test_cost_adds_up_the_parts_manifests(tmp_path):
    """check_parts.py --cost: positions and CPU seconds of the parts' own manifests, summed."""
    from openingbook.pipeline.build import BuildOptions, build_book
    from openingbook.solver import BoardSize

    board = BoardSize(5, 4)
    paths, recorded = [], []
    for i in (1, 2):  # two parts of three
        path = tmp_path / f"book8-dist-5x4-part{i}of3.c4b"
        options = BuildOptions(8, distances=True, board=board, part=(i, 3))
        build_book(path, options, jobs=1, progress=False)
        with CompactBook(path, verify=False) as book:
            manifest = book.header.metadata["source_manifest"]
        recorded.append((manifest["positions"]["in_output"], manifest["time"]["solve_cpu_seconds"]))
        paths.append(path)
    done = run(f"{sys.executable} benchmarks/check_parts.py --cost", *map(str, paths))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    positions = recorded[0][0] + recorded[1][0]
    cpu = recorded[0][1] + recorded[1][1]
    assert (got["parts"], got["of"], got["positions"]) == (2, 3, positions)
    assert got["positions"] == len(enumerate_positions(8, None, 5, 4, part=(1, 3))[0]) + len(
        enumerate_positions(8, None, 5, 4, part=(2, 3))[0]
    )
    assert got["solve_cpu_seconds"] == round(cpu, 1)
    assert got["core_hours_all_parts"] == round(cpu / 2 * 3 / 3600, 2)


FAKE_PONS = """#!{python}
# Stands in for Pons' c4solver on 5x4: "moves score" per input line, from our solver;
# with LIE set, the third answer is one off.
import os, sys
from openingbook.solver import Solver
solver = Solver(width=5, height=4, table_log2=16)
for n, line in enumerate(sys.stdin):
    moves = line.strip()
    score = solver.solve(moves) + (n == 2 and bool(os.environ.get("LIE")))
    print(moves, score, 0, 0)
"""


def test_cross_check_compares_every_sampled_score(tmp_path):
    """cross_pons.py feeds the sample's move strings to the solver and compares its scores
    with the book's (the stand-in solver is ours; the real one is Pons')."""
    from openingbook.pipeline.build import BuildOptions, build_book
    from openingbook.solver import BoardSize

    part = tmp_path / "book8-dist-5x4-part2of3.c4b"
    options = BuildOptions(8, distances=True, board=BoardSize(5, 4), part=(2, 3))
    build_book(part, options, jobs=1, progress=False)
    fake = stand_in(tmp_path / "c4solver", FAKE_PONS)
    out = tmp_path / "cross.json"
    args = (str(part), "--pons", str(fake), "--sample", "25", "--out", str(out))
    done = run(f"{sys.executable} benchmarks/cross_pons.py", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(out.read_text())
    assert (result["positions"], result["disagree"]) == (25, 0)
    assert result["books"][0]["scope"] == "part 2/3"
    done = run(f"{sys.executable} benchmarks/cross_pons.py", *args, env={"LIE": "1"})
    result = json.loads(out.read_text())
    assert done.returncode == 1 and result["disagree"] == 1
    (wrong,) = result["books"][0]["disagreements"]
    assert wrong["pons"] == wrong["book"] + 1
