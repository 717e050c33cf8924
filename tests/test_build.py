"""The build pipeline: work directory, chunk plan, executors, build, resume, shards, merge."""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.cli import main
from openingbook.codec import encode_keys, mirror_keys
from openingbook.errors import InvalidArgument, OutputExists
from openingbook.formats import read_records
from openingbook.formats.thill import BOOK8, BookFormat, manifest_path, read_manifest
from openingbook.formats.thill.book import check_output, detect_format
from openingbook.pipeline.build import (
    BuildOptions,
    auto_chunk_size,
    build_book,
    default_output_name,
    parse_shard,
    plan_build,
)
from openingbook.pipeline.executors import DaskExecutor, PoolExecutor, SerialExecutor, make_executor
from openingbook.pipeline.merge import merge_books
from openingbook.pipeline.workdir import (
    LOCK_NAME,
    MARKER_NAME,
    ChunkResult,
    WorkDir,
    WorkDirError,
)
from openingbook.solver import (
    DEFAULT_BOARD,
    DEFAULT_HEIGHT,
    DEFAULT_WIDTH,
    Position,
    Solver,
    enumerate_positions,
)
from tests.helpers import (
    BOOKS,
    SMALL,
    TABLE,
    book_positions,
    expected_book_value,
    second_player_threatens,
    start_build,
)

SETTINGS = {"layout": 1, "plies": 10, "under": "444444"}


def _chunk(chunk_id: int, n: int = 5, seed: int = 0) -> ChunkResult:
    rng = np.random.default_rng(seed)
    return ChunkResult(
        chunk_id,
        rng.integers(0, 2**63, n, dtype=np.uint64),
        rng.integers(0, 2**63, n, dtype=np.uint64),
        rng.integers(-100, 100, n, dtype=np.int8),
        float(rng.random()),
    )


# ---------------------------------------------------------------- work directory
def test_chunk_round_trip(tmp_path):
    wd = WorkDir.open(tmp_path / "w", SETTINGS)
    saved = _chunk(3)
    wd.save_chunk(saved)
    loaded = wd.load_chunk(3)
    assert loaded is not None
    assert np.array_equal(loaded.first, saved.first)
    assert np.array_equal(loaded.mask, saved.mask)
    assert np.array_equal(loaded.values, saved.values)
    assert loaded.cpu_seconds == saved.cpu_seconds
    assert wd.chunk_ids() == [3]
    assert wd.load_chunk(4) is None


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_any_damage_to_a_chunk_file_is_detected(tmp_path_factory, data):
    wd = WorkDir.open(tmp_path_factory.mktemp("w"), SETTINGS)
    path = wd.save_chunk(_chunk(0, n=data.draw(st.integers(1, 40))))
    raw = bytearray(path.read_bytes())
    how = data.draw(st.sampled_from(["truncate", "flip", "empty"]))
    if how == "truncate":
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    elif how == "flip":
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] ^= 1 << data.draw(st.integers(0, 7))
    else:
        raw = bytearray()
    path.write_bytes(bytes(raw))
    # a flipped bit may land in zip padding that no reader uses; then the data are intact
    loaded = wd.load_chunk(0)
    if loaded is not None:
        original = _chunk(0, n=len(loaded))
        assert np.array_equal(loaded.values, original.values)
        assert np.array_equal(loaded.first, original.first)


def test_chunk_from_another_id_is_rejected(tmp_path):
    wd = WorkDir.open(tmp_path, SETTINGS)
    wd.save_chunk(_chunk(1))
    os.replace(wd.chunk_path(1), wd.chunk_path(2))
    assert wd.load_chunk(2) is None


def test_settings_mismatch_is_a_clear_error(tmp_path):
    WorkDir.open(tmp_path, SETTINGS).close()
    with pytest.raises(WorkDirError, match=r"other settings.*plies 10 there, 12 now"):
        WorkDir.open(tmp_path, {**SETTINGS, "plies": 12})
    WorkDir.open(tmp_path, dict(SETTINGS)).close()  # same settings reopen fine


def test_chunks_without_settings_are_refused(tmp_path):
    wd = WorkDir.open(tmp_path / "a", SETTINGS)
    wd.save_chunk(_chunk(0))
    (tmp_path / "a" / MARKER_NAME).unlink()
    wd.close()
    with pytest.raises(WorkDirError, match=r"chunk files but no openingbook-work\.json"):
        WorkDir.open(tmp_path / "a", SETTINGS)


def test_work_dir_that_is_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(WorkDirError, match="not a directory"):
        WorkDir.open(tmp_path / "f", SETTINGS)


def test_half_written_temporaries_are_removed(tmp_path):
    wd = WorkDir.open(tmp_path, SETTINGS)
    wd.close()
    (tmp_path / ".chunk-0000001.npz.x1y2.tmp").write_bytes(b"partial")
    WorkDir.open(tmp_path, SETTINGS).close()
    assert not list(tmp_path.glob(".*.tmp"))
    assert wd.chunk_ids() == []


# ---------------------------------------------------------------- executors
def _square(x: int) -> int:
    return x * x


def test_serial_and_pool_executors_agree():
    tasks = list(range(20))
    with SerialExecutor() as ex:
        serial = list(ex.map_unordered(_square, tasks))
    with PoolExecutor(2) as ex:
        pooled = sorted(ex.map_unordered(_square, tasks))
    assert serial == pooled == [t * t for t in tasks]


def _task_and_worker(x: int) -> tuple[int, int]:
    return x, os.getpid()


def _fail_on_seven(x: int) -> int:
    if x == 7:
        raise ValueError("task seven is bad")
    return x


def _broken_initializer() -> None:
    raise OSError("no memory for the table")


def test_pool_workers_take_contiguous_runs():
    with PoolExecutor(2) as ex:
        results = list(ex.map_unordered(_task_and_worker, range(60)))
    assert sorted(t for t, _ in results) == list(range(60))  # each task once
    by_worker: dict[int, list[int]] = {}
    for task, pid in results:
        by_worker.setdefault(pid, []).append(task)
    for tasks in by_worker.values():
        tasks.sort()
        runs = 1 + sum(b != a + 1 for a, b in itertools.pairwise(tasks))
        # one run per worker plus one per steal (halving); handing out in turn gives ~30
        assert runs <= 8, tasks


def test_pool_worker_errors_reach_the_caller():
    with PoolExecutor(2) as ex, pytest.raises(ValueError, match="task seven is bad"):
        list(ex.map_unordered(_fail_on_seven, range(20)))
    with (
        PoolExecutor(2, initializer=_broken_initializer) as ex,
        pytest.raises(OSError, match="no memory for the table"),
    ):
        list(ex.map_unordered(_square, range(4)))


def test_make_executor_rejects_bad_arguments():
    with pytest.raises(InvalidArgument, match="executor spark: choose one of"):
        make_executor("spark")
    with pytest.raises(ValueError, match="at least 1"):
        make_executor("pool", jobs=0)
    with pytest.raises(
        InvalidArgument, match=r"scheduler tcp://127\.0\.0\.1:1: needs the dask executor"
    ):
        make_executor("pool", scheduler="tcp://127.0.0.1:1")


# ---------------------------------------------------------------- options and plan
def test_parse_shard():
    assert parse_shard("3/7") == (3, 7)
    for bad in ("0/3", "4/3", "1", "a/b", "1/2/3", "-1/2"):
        with pytest.raises(ValueError, match="expected i/n"):
            parse_shard(bad)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (BuildOptions(plies=9, board=DEFAULT_BOARD), "even number of plies from 2 to 16"),
        (BuildOptions(plies=18, board=DEFAULT_BOARD), "even number of plies"),
        (BuildOptions(plies=0, board=DEFAULT_BOARD), "even number of plies"),
        (
            BuildOptions(plies=4, under="44444", board=DEFAULT_BOARD),
            "5 moves, more than the 4 plies",
        ),
        (BuildOptions(plies=8, under="48", board=DEFAULT_BOARD), "outside 1-7"),
        (BuildOptions(plies=10, under="4444444", board=DEFAULT_BOARD), "full"),
        (BuildOptions(plies=8, under="4x", board=DEFAULT_BOARD), "not a column digit"),
        (BuildOptions(plies=8, sample=0, board=DEFAULT_BOARD), "at least 1"),
        (BuildOptions(plies=8, chunk_size=0, board=DEFAULT_BOARD), "at least 1"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        options.validate()


def test_plan_partitions_the_enumeration():
    plan = plan_build(BuildOptions(plies=10, under="444444", chunk_size=20, board=DEFAULT_BOARD))
    first, mask = enumerate_positions(
        10, under="444444", width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
    )
    assert plan.total_positions == plan.selected_positions == len(first)
    assert [c.chunk_id for c in plan.chunks] == list(range(plan.chunk_count))
    assert plan.chunks[0].start == 0 and plan.chunks[-1].stop == len(first)
    for a, b in zip(plan.chunks, plan.chunks[1:], strict=False):
        assert a.stop == b.start and len(a) == 20
    assert np.array_equal(plan.first, first) and np.array_equal(plan.mask, mask)


@pytest.mark.parametrize("shards", [1, 2, 3, 5])
def test_shards_partition_the_chunks(shards):
    options = BuildOptions(plies=10, under="444444", chunk_size=16, board=DEFAULT_BOARD)
    whole = plan_build(options)
    ids: list[int] = []
    for i in range(1, shards + 1):
        part = plan_build(BuildOptions(**{**options.__dict__, "shard": (i, shards)}))
        assert part.chunk_count == whole.chunk_count
        assert np.array_equal(part.first, whole.first)
        ids += [c.chunk_id for c in part.chunks]
        got = [c.chunk_id for c in part.chunks]
        assert got == list(range(got[0], got[-1] + 1))  # a contiguous run of chunks
    assert sorted(ids) == list(range(whole.chunk_count))


def test_empty_shard_is_refused():
    with pytest.raises(ValueError, match="only 1 chunks"):
        plan_build(BuildOptions(plies=10, under="44444433", shard=(1, 2), board=DEFAULT_BOARD))


def test_sample_is_deterministic_and_a_subset():
    full = plan_build(BuildOptions(plies=10, under="44444", board=DEFAULT_BOARD))
    a = plan_build(BuildOptions(plies=10, under="44444", sample=50, seed=7, board=DEFAULT_BOARD))
    b = plan_build(BuildOptions(plies=10, under="44444", sample=50, seed=7, board=DEFAULT_BOARD))
    c = plan_build(BuildOptions(plies=10, under="44444", sample=50, seed=8, board=DEFAULT_BOARD))
    assert np.array_equal(a.first, b.first) and np.array_equal(a.mask, b.mask)
    assert not (np.array_equal(a.first, c.first) and np.array_equal(a.mask, c.mask))
    index = {
        (int(f), int(m)): i for i, (f, m) in enumerate(zip(full.first, full.mask, strict=True))
    }
    picked = [index[pair] for pair in zip(a.first.tolist(), a.mask.tolist(), strict=True)]
    assert len(set(picked)) == 50 and picked == sorted(picked)  # enumeration order kept
    with pytest.raises(ValueError, match="only"):
        plan_build(
            BuildOptions(
                plies=10, under="44444", sample=full.total_positions + 1, board=DEFAULT_BOARD
            )
        )


def test_under_a_line_with_no_book_position():
    # the first player has three stacked in column 1 and is to move: not a book position
    line = "12131253"
    assert Position.from_moves(line).can_win_next()
    with pytest.raises(ValueError, match="no 8-ply book positions under"):
        plan_build(BuildOptions(plies=8, under=line, board=DEFAULT_BOARD))


def test_auto_chunk_size_bounds():
    assert auto_chunk_size(1) == 16
    assert auto_chunk_size(64 * 100) == 100
    assert auto_chunk_size(10**9) == 1024


def test_default_names():
    assert default_output_name(BuildOptions(plies=8, board=DEFAULT_BOARD)) == "book8.dat"
    assert (
        default_output_name(
            BuildOptions(plies=12, distances=True, under="44", shard=(2, 4), board=DEFAULT_BOARD)
        )
        == "book12-dist-under44-shard2of4.dat"
    )
    assert manifest_path("x/book8.dat").name == "book8.dat.json"


def test_check_output(tmp_path):
    out = tmp_path / "b.dat"
    assert check_output(out, force=False) == out
    out.write_bytes(b"")
    with pytest.raises(OutputExists, match="exists; pass force=True"):
        check_output(out, force=False)
    check_output(out, force=True)
    with pytest.raises(ValueError, match="does not exist"):
        check_output(tmp_path / "nope" / "b.dat", force=False)
    with pytest.raises(ValueError, match="is a directory"):
        check_output(tmp_path, force=True)
    (tmp_path / "m.dat.json").write_text(json.dumps({}))
    with pytest.raises(ValueError, match=r"m\.dat\.json exists"):
        check_output(tmp_path / "m.dat", force=False)


# ================================================================ builds (use the solver)
# Small subtrees keep these quick: BIG is the "done when" 8-move line (202 positions
# at 12 plies), SMALL (tests/helpers.py) a 9-move line (29 positions).
BIG = "44444433"


def _build(out, plies=12, under=SMALL, distances=True, **kwargs):
    opts = {k: kwargs.pop(k) for k in ("shard", "sample", "seed", "chunk_size") if k in kwargs}
    options = BuildOptions(
        plies=plies, distances=distances, under=under, board=DEFAULT_BOARD, **opts
    )
    kwargs.setdefault("jobs", 1)
    kwargs.setdefault("progress", False)
    kwargs.setdefault("table_log2", TABLE)
    return build_book(out, options, **kwargs)


def test_the_workers_kernel_is_compiled_once_before_they_start(tmp_path, monkeypatch):
    """A build on this machine compiles (or loads) its workers' kernel in its own process
    before it starts them: they load it from the cache instead of each compiling it. Not
    for a cluster's workers, elsewhere (a remote scheduler)."""
    import openingbook.pipeline.build as build_module

    calls = []
    monkeypatch.setattr(build_module, "load_worker_kernel", lambda board: calls.append(board))
    real = build_module.make_executor

    def executor(*args, **kwargs):
        calls.append("executor")
        return real(*args, **kwargs)

    monkeypatch.setattr(build_module, "make_executor", executor)
    _build(tmp_path / "b.dat", plies=8, under="4444443", distances=False)
    assert calls == [DEFAULT_BOARD, "executor"]


def _as_dict(first, mask, values) -> dict[tuple[int, int], int]:
    pairs = zip(first.tolist(), mask.tolist(), strict=True)
    return dict(zip(pairs, values.tolist(), strict=True))


@pytest.fixture(scope="module")
def big_books(tmp_path_factory):
    """The 12-ply distance and pruned books under BIG, built once for several tests."""
    d = tmp_path_factory.mktemp("big")
    dist = _build(d / "dist.dat", under=BIG, chunk_size=64)
    pruned = _build(d / "pruned.dat", under=BIG, distances=False, chunk_size=64)
    return d / "dist.dat", d / "pruned.dat", dist, pruned


@pytest.fixture(scope="module")
def small_book(tmp_path_factory):
    path = tmp_path_factory.mktemp("small") / "ref.dat"
    _build(path)
    return path


@pytest.mark.slow
def test_complete_subtree_books_match_the_solver(big_books):
    dist_path, pruned_path, dist, pruned = big_books
    first, mask = enumerate_positions(12, under=BIG, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    assert dist.positions == pruned.positions == len(first) == 202

    # the distance book holds every position of the subtree once
    bf, bm, bv = book_positions(dist_path, 12, True)
    assert len(bv) == dist.records == len(first)
    want = set(zip(first.tolist(), mask.tolist(), strict=True))
    assert set(zip(bf.tolist(), bm.tolist(), strict=True)) == want

    # every record against a fresh solver, one position at a time
    solver = Solver(table_log2=TABLE)
    by_position = {}
    for f, m, v in zip(bf.tolist(), bm.tolist(), bv.tolist(), strict=True):
        pos = Position.from_bitboards(f, m)
        assert not pos.can_win_next()
        assert v == expected_book_value(pos, True, solver), pos.some_moves()
        by_position[(f, m)] = v

    # the pruned book is the distance book without first-player wins
    got = _as_dict(*book_positions(pruned_path, 12, False))
    want_pruned = {k: (1 if v < 0 else 0) for k, v in by_position.items() if v <= 0}
    assert got == want_pruned
    assert pruned.records == len(want_pruned)
    assert dist.values == {
        "first": sum(v > 0 for v in bv.tolist()),
        "second": sum(v < 0 for v in bv.tolist()),
        "draw": sum(v == 0 for v in bv.tolist()),
    }
    assert pruned.values == dist.values


def test_manifest_describes_the_book(big_books):
    dist_path, _, dist, _ = big_books
    manifest = json.loads(manifest_path(dist_path).read_text())
    data = dist_path.read_bytes()
    assert manifest["book"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert manifest["book"]["bytes"] == len(data) == 5 * dist.records
    assert manifest["book"]["records"] == dist.records
    assert manifest["format"] == {
        "name": "12-ply-dist",
        "plies": 12,
        "distances": True,
        "record_bytes": 5,
        "key_bits": 32,
        "pruned": False,
    }
    assert manifest["selection"]["under"] == BIG
    _, _, values = book_positions(dist_path, 12, True)
    by_plies = {"first_by_plies": {}, "second_by_plies": {}}
    for v in values.tolist():
        if v:
            side = by_plies["first_by_plies" if v > 0 else "second_by_plies"]
            side[str(100 - abs(v))] = side.get(str(100 - abs(v)), 0) + 1
    assert manifest["values"] == {**dist.values, **by_plies}
    assert manifest["positions"]["solved_this_run"] == 202
    assert manifest["solver"]["search"] == "exact score"
    assert manifest["solver"]["table_log2"] == TABLE
    assert manifest["time"]["solve_cpu_seconds"] > 0
    assert manifest["version"] and manifest["command"]
    # the book file format detection of openingbook.formats.thill reads this manifest
    assert detect_format(dist_path) == BookFormat.for_plies(12, True, *DEFAULT_BOARD)


# 7-move lines whose 8-ply positions have all three outcomes, and one (2113254)
# where the first player wins them all, so that the pruned book is empty
@pytest.mark.parametrize("line", ["1266646", "3133636", "3454434", "2113254"])
def test_eight_ply_subtree_agrees_with_thills_file(tmp_path, line, reference_dir):
    """Independent source: the published 8-ply book (with its documented faults)."""
    out = tmp_path / "b8.dat"
    summary = _build(out, plies=8, under=line, distances=False)
    first, _ = enumerate_positions(8, under=line, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    assert summary.positions == len(first) > 0
    assert summary.records == out.stat().st_size // 3
    assert _compare_with_thill(out, line, reference_dir) == len(first)


def _compare_with_thill(book, line: str, reference_dir: Path) -> int:
    """Check a pruned 8-ply book of the positions under ``line`` against Thill's file.

    Every position must have Thill's value (absent = first player wins), except
    the documented fault of his file: positions missing although the first
    player does not win, all with an immediate threat of the second player.
    Returns the number of positions compared.
    """
    first, mask = enumerate_positions(8, under=line, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    ours = dict.fromkeys(zip(first.tolist(), mask.tolist(), strict=True), 2)  # pruned = A wins
    ours.update(_as_dict(*book_positions(book, 8, False)))
    assert len(ours) == len(first)  # the book holds only positions under the line

    _, thill = read_records(reference_dir / "thill-original-book8.dat", BOOK8)
    stored = dict(zip(thill.keys.tolist(), thill.values.tolist(), strict=True))
    f = np.array([k[0] for k in ours], np.uint64)
    m = np.array([k[1] for k in ours], np.uint64)
    keys = encode_keys(f, m, 24, *DEFAULT_BOARD).tolist()
    mirrored = mirror_keys(encode_keys(f, m, 24, *DEFAULT_BOARD), 24, *DEFAULT_BOARD).tolist()
    for (fi, mi), key, mkey in zip(ours, keys, mirrored, strict=True):
        value = ours[(fi, mi)]
        theirs = stored.get(key, stored.get(mkey, 2))  # absent = "first player wins"
        if theirs != value:
            pos = Position.from_bitboards(fi, mi)
            assert theirs == 2 and value != 2, pos.some_moves()
            assert second_player_threatens(pos), pos.some_moves()
    return len(ours)


def test_pool_gives_the_same_bytes(tmp_path, small_book):
    out = tmp_path / "pool.dat"
    summary = _build(out, jobs=2, chunk_size=4)
    assert summary.chunks == 8
    assert out.read_bytes() == small_book.read_bytes()
    manifest = json.loads(manifest_path(out).read_text())
    assert manifest["solver"]["executor"] == "pool" and manifest["solver"]["workers"] == 2


@pytest.mark.cluster
def test_dask_executor_gives_the_same_bytes(tmp_path, small_book):
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        out = tmp_path / "dask.dat"
        summary = _build(
            out,
            executor="dask",
            scheduler=cluster.scheduler_address,
            chunk_size=8,
            keep_work=True,
        )
    assert out.read_bytes() == small_book.read_bytes()
    assert summary.chunks == 4 and summary.chunks_resumed == 0
    wd = WorkDir.open(tmp_path / "dask.dat.work", _settings_of(out))
    assert wd.chunk_ids() == [0, 1, 2, 3]  # results landed in the same work directory


def _where_it_ran(task: int) -> tuple[int, str]:
    from distributed import get_worker

    time.sleep(0.05)
    return task, get_worker().address


@pytest.mark.cluster
def test_dask_executor_gives_each_worker_a_contiguous_run():
    """Neighbouring chunks share table entries: each dask worker gets one run of them."""
    from distributed import LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        DaskExecutor(scheduler=cluster.scheduler_address) as executor,
    ):
        ran = dict(executor.map_unordered(_where_it_ran, range(16)))
    assert sorted(ran) == list(range(16))
    by_worker: dict[str, list[int]] = {}
    for task in sorted(ran):
        by_worker.setdefault(ran[task], []).append(task)
    runs = sum(1 + sum(b - a > 1 for a, b in itertools.pairwise(ix)) for ix in by_worker.values())
    assert len(by_worker) == 2
    assert runs <= 4  # two runs, give or take a task the scheduler moved to an idle worker


@pytest.mark.cluster
def test_cli_dask_local_cluster_gives_the_same_bytes(tmp_path, small_book):
    """``--executor dask`` without a scheduler: a local cluster of worker processes."""
    out = tmp_path / "dask-cli.dat"
    result = _cli(
        "build", "--plies", "12", "--distances", "--under", SMALL, "-o", str(out),
        "--executor", "dask", "--jobs", "1", "--table-log2", str(TABLE), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == small_book.read_bytes()
    assert json.loads(manifest_path(out).read_text())["solver"]["executor"] == "dask"


def _settings_of(out):
    manifest = json.loads(manifest_path(out).read_text())
    return {"layout": 1, **manifest["selection"], "chunk_size": manifest["chunks"]["size"]}


def test_damaged_chunks_are_recomputed(tmp_path, small_book):
    out = tmp_path / "b.dat"
    first = _build(out, chunk_size=4, keep_work=True)
    assert first.chunks == 8 and first.chunks_resumed == 0
    wd = WorkDir(tmp_path / "b.dat.work", {})
    sizes = {i: len(wd.load_chunk(i)) for i in range(8)}
    raw = bytearray(wd.chunk_path(2).read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    wd.chunk_path(2).write_bytes(bytes(raw))
    wd.chunk_path(5).write_bytes(wd.chunk_path(5).read_bytes()[:100])
    wd.chunk_path(7).unlink()
    again = _build(out, chunk_size=4, keep_work=True, force=True)
    assert again.chunks_resumed == 5
    assert again.positions_solved == sizes[2] + sizes[5] + sizes[7]
    assert out.read_bytes() == small_book.read_bytes()
    assert all(wd.load_chunk(i) is not None for i in range(8))
    # nothing left to solve: no workers are started, the same bytes are written
    third = _build(out, chunk_size=4, force=True, jobs=2, progress=True)
    assert third.chunks_resumed == 8 and third.positions_solved == 0
    assert out.read_bytes() == small_book.read_bytes()
    assert not wd.path.exists()  # removed after success without keep_work


def _wait_for_chunks(proc: subprocess.Popen, work: Path, count: int) -> list[int]:
    """Wait until ``count`` chunk files exist; return the build's worker processes."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if work.is_dir() and len(list(work.glob("chunk-*.npz"))) >= count:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the build ended before it could be interrupted"
    return _children(proc.pid)


def _children(pid: int) -> list[int]:
    """Child processes of ``pid`` (Linux /proc)."""
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(entry.name))
    return kids


def _gone(pids: list[int]) -> bool:
    """Wait (up to a minute) for processes to end; zombies count as ended."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                alive.append(pid)
        if not alive:
            return True
        time.sleep(0.05)
    return False


def _lock_released(lock: Path) -> bool:
    """Wait (up to a minute) until the lock can be taken, as a resumed build takes it
    (scanning /proc for processes holding the file open missed a process starting or
    ending at that moment: the lock was still held when the build resumed)."""
    deadline = time.monotonic() + 60
    with open(lock, "a+b") as fh:
        while time.monotonic() < deadline:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                time.sleep(0.05)
                continue
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
            return True
    return False


@pytest.mark.slow
def test_kill_and_resume_loses_and_duplicates_nothing(tmp_path, big_books):
    dist_path = big_books[0]
    out = tmp_path / "k.dat"
    work = tmp_path / "k.dat.work"
    args = ["--plies", "12", "--distances", "--under", BIG, "-o", str(out)]
    args += ["--chunk-size", "8", "--jobs", "2", "--table-log2", str(TABLE), "--keep-work", "-q"]
    proc = start_build(args)
    try:
        workers = _wait_for_chunks(proc, work, 3)
        assert len(workers) == 2
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert _gone(workers)  # the pool workers die with the build
    # the lock goes with the last process that holds its file open (a process the build
    # started after the workers were counted may take a moment to end)
    assert _lock_released(work / LOCK_NAME)
    assert not out.exists()
    wd = WorkDir(work, {})
    done = wd.chunk_ids()
    assert 3 <= len(done) < 26  # 202 positions in chunks of 8
    assert all(wd.load_chunk(i) is not None for i in done)  # whole files only

    result = CliRunner().invoke(main, ["build", *args, "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["chunks_resumed"] == len(done)
    assert summary["positions_solved"] == 202 - sum(len(wd.load_chunk(i)) for i in done)
    assert out.read_bytes() == dist_path.read_bytes()
    # every position in exactly one chunk file
    chunks = [wd.load_chunk(i) for i in wd.chunk_ids()]
    seen = [p for c in chunks for p in zip(c.first.tolist(), c.mask.tolist(), strict=True)]
    first, mask = enumerate_positions(12, under=BIG, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    assert len(seen) == len(set(seen)) == 202
    assert set(seen) == set(zip(first.tolist(), mask.tolist(), strict=True))


@pytest.mark.slow
def test_a_worker_killed_by_the_kernel_is_one_line_and_the_build_resumes(tmp_path, big_books):
    """``kill -9`` of one worker (what the out-of-memory killer does) used to end the
    build with a traceback: now one line names the worker, its chunk and how to resume,
    the other worker is stopped, and the same command finishes the same book."""
    dist_path = big_books[0]
    out = tmp_path / "w.dat"
    work = tmp_path / "w.dat.work"
    args = ["--plies", "12", "--distances", "--under", BIG, "-o", str(out)]
    args += ["--chunk-size", "8", "--jobs", "2", "--table-log2", str(TABLE), "-q"]
    proc = start_build(args)
    try:
        workers = _wait_for_chunks(proc, work, 2)
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _gone(workers)
    message = err.decode().splitlines()
    assert proc.returncode == 1, message
    assert len(message) == 1 and "Traceback" not in err.decode(), message
    line = message[0]
    assert line.startswith("Error: worker ") and "was killed by SIGKILL" in line, line
    assert " while solving chunk " in line and f"saved in {work}" in line, line
    assert "run the same command again to resume" in line
    assert not out.exists()
    done = len(WorkDir(work, {}).chunk_ids())
    assert done >= 2

    result = CliRunner().invoke(main, ["build", *args, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["chunks_resumed"] == done
    assert out.read_bytes() == dist_path.read_bytes()


@pytest.mark.slow
def test_ctrl_c_stops_the_workers_and_keeps_whole_chunks(tmp_path):
    out = tmp_path / "c.dat"
    work = tmp_path / "c.dat.work"
    args = ["--plies", "12", "--distances", "--under", BIG, "-o", str(out)]
    args += ["--chunk-size", "8", "--jobs", "2", "--table-log2", str(TABLE)]
    proc = start_build(args)
    try:
        workers = _wait_for_chunks(proc, work, 2)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert err.decode().splitlines()[-1] == "interrupted"
    assert "Traceback" not in err.decode()
    assert _gone(workers)
    assert not out.exists()
    wd = WorkDir(work, {})
    assert len(wd.chunk_ids()) >= 2
    assert all(wd.load_chunk(i) is not None for i in wd.chunk_ids())


@pytest.mark.parametrize("distances", [True, False])
def test_shards_merge_into_the_single_run_bytes(tmp_path, small_book, distances):
    reference = small_book
    if not distances:
        reference = tmp_path / "ref-pruned.dat"
        _build(reference, distances=False)
    shards = []
    for i in (1, 2, 3):
        out = tmp_path / f"s{i}.dat"
        s = _build(out, distances=distances, shard=(i, 3), chunk_size=4)
        assert s.chunks in (2, 3)
        shards.append(out)
    merged = tmp_path / "merged.dat"
    summary = merge_books(merged, list(reversed(shards)))
    assert summary.positions == 29 and summary.shards == 3
    assert merged.read_bytes() == reference.read_bytes()
    manifest = json.loads(manifest_path(merged).read_text())
    assert manifest["selection"]["shard"] is None
    assert manifest["values"] == json.loads(manifest_path(reference).read_text())["values"]
    assert [s["shard"] for s in manifest["merged_from"]] == ["1/3", "2/3", "3/3"]
    # each shard's own build command travels into the merged manifest
    assert [s["command"] for s in manifest["merged_from"]] == [
        json.loads(manifest_path(b).read_text())["command"] for b in shards
    ]
    assert manifest["book"]["sha256"] == hashlib.sha256(merged.read_bytes()).hexdigest()


def test_merge_refuses_gaps_overlaps_and_mixed_settings(tmp_path):
    s = {i: tmp_path / f"s{i}.dat" for i in (1, 2)}
    for i, out in s.items():
        _build(out, shard=(i, 2), chunk_size=8)
    other = tmp_path / "other.dat"
    _build(other, under="444444552", shard=(2, 2), chunk_size=8)
    whole = tmp_path / "whole.dat"
    _build(whole, chunk_size=8)
    out = tmp_path / "m.dat"
    with pytest.raises(ValueError, match=r"gap: shard 2/2 missing"):
        merge_books(out, [s[1]])
    with pytest.raises(ValueError, match=r"overlap: shard 1/2 given twice"):
        merge_books(out, [s[1], s[1], s[2]])
    with pytest.raises(ValueError, match=r"other settings.*under"):
        merge_books(out, [s[1], other])
    with pytest.raises(ValueError, match="not a shard output"):
        merge_books(out, [s[1], whole])
    assert not out.exists()
    manifest = json.loads(manifest_path(s[2]).read_text())
    del manifest["time"]
    manifest_path(s[2]).write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=r"incomplete build manifest \(no time\.wall_seconds\)"):
        merge_books(out, [s[1], s[2]])
    data = bytearray(s[2].read_bytes())
    data[-1] ^= 1
    s[2].write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"differ from its manifest"):
        merge_books(out, [s[1], s[2]])
    assert not out.exists()


def test_sample_solves_the_chosen_positions(tmp_path, big_books):
    dist_path = big_books[0]
    out = tmp_path / "sample.dat"
    summary = _build(out, under=BIG, sample=12, seed=5)
    assert summary.records == summary.positions == 12
    reference = _as_dict(*book_positions(dist_path, 12, True))
    sf, sm, sv = book_positions(out, 12, True)
    picked = plan_build(
        BuildOptions(12, distances=True, under=BIG, sample=12, seed=5, board=DEFAULT_BOARD)
    )
    assert set(zip(sf.tolist(), sm.tolist(), strict=True)) == set(
        zip(picked.first.tolist(), picked.mask.tolist(), strict=True)
    )
    for key, v in zip(zip(sf.tolist(), sm.tolist(), strict=True), sv.tolist(), strict=True):
        assert reference[key] == v


def test_progress_bar_on_stderr(tmp_path, capsys):
    _build(tmp_path / "p.dat", under="444444552", progress=True, chunk_size=8)
    err = capsys.readouterr().err
    assert "29/29" in err and "pos/s" in err and "resumed 0" in err


# ---------------------------------------------------------------- command line
def _cli(*args):
    return CliRunner().invoke(main, list(args))


def test_cli_build_json_and_quiet(tmp_path):
    out = tmp_path / "c.dat"
    result = _cli(
        "build", "--plies", "12", "--under", "444444552", "-o", str(out), "--jobs", "1",
        "--table-log2", str(TABLE), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["output"] == str(out) and summary["positions"] == 29
    assert summary["records"] == out.stat().st_size // 4
    assert set(summary) >= {"positions_solved", "chunks_resumed", "wall_seconds", "cpu_seconds"}
    assert result.stderr == ""  # --json implies no progress bar
    manifest = json.loads(manifest_path(out).read_text())
    assert manifest["command"].startswith("openingbook build --plies 12")

    quiet = _cli(
        "build", "--plies", "12", "--under", "444444552", "-o", str(out), "--jobs", "1",
        "--table-log2", str(TABLE), "--force", "-q",
    )  # fmt: skip
    # -q silences the progress bar only: the summary is the command's result
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert quiet.stdout.startswith(f"{out}: ") and len(quiet.stdout.splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--plies", "11"], "even number of plies from 2 to 16"),
        (["--plies", "18"], "even number of plies from 2 to 16"),
        (["--plies", "12", "--under", "4444444"], "column 4, which is full"),
        (["--plies", "12", "--shard", "3/2"], "expected i/n"),
        (["--plies", "12", "--seed", "3"], "--seed only applies with --sample"),
        (["--plies", "12", "--jobs", "0"], "0 is not in the range x>=1"),
        (["--plies", "12", "--scheduler", "tcp://127.0.0.1:1"], "needs the dask executor"),
        (["--plies", "12", "--table-log2", "40"], "'--table-log2': 40 is not in the range"),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path, args, message):
    result = _cli("build", *args, "-o", str(tmp_path / "x.dat"))
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_cli_existing_output_and_unwritable_paths(tmp_path):
    out = tmp_path / "exists.dat"
    out.write_bytes(b"keep me")
    result = _cli("build", "--plies", "12", "--under", SMALL, "-o", str(out))
    assert result.exit_code == 1 and "exists; use --force" in result.output
    assert out.read_bytes() == b"keep me"
    not_dir = tmp_path / "file"
    not_dir.write_text("")
    result = _cli("build", "--plies", "12", "--under", SMALL, "-o", str(not_dir / "b.dat"))
    assert result.exit_code == 1 and "does not exist" in result.output
    assert result.output.count("\n") == 1
    # /proc takes no new files, even from root
    result = _cli("build", "--plies", "12", "--under", SMALL, "-o", "/proc/openingbook-test.dat")
    assert result.exit_code == 1
    assert result.output.startswith("Error: cannot write /proc/openingbook-test.dat")
    result = _cli(
        "build", "--plies", "12", "--under", SMALL, "-o", str(tmp_path / "w.dat"),
        "--work-dir", "/proc/openingbook-test.work",
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.output.startswith("Error: cannot create work directory /proc/openingbook-test")
    assert not (tmp_path / "w.dat").exists()


def test_cli_work_dir_of_other_settings(tmp_path):
    work = tmp_path / "w"
    a = _cli(
        "build", "--plies", "12", "--under", "444444552", "-o", str(tmp_path / "a.dat"),
        "--work-dir", str(work), "--keep-work", "--jobs", "1", "-q",
    )  # fmt: skip
    assert a.exit_code == 0, a.output
    before = {p.name: p.read_bytes() for p in work.iterdir()}
    b = _cli(
        "build", "--plies", "12", "--under", SMALL, "-o", str(tmp_path / "b.dat"),
        "--work-dir", str(work), "--jobs", "1", "-q",
    )  # fmt: skip
    assert b.exit_code == 1
    assert "other settings" in b.output and "under" in b.output
    assert {p.name: p.read_bytes() for p in work.iterdir()} == before
    assert not (tmp_path / "b.dat").exists()


def test_cli_merge_errors_are_one_line(tmp_path):
    shard = tmp_path / "s1.dat"
    assert _cli(
        "build", "--plies", "12", "--under", "444444552", "--shard", "1/2", "--chunk-size", "8",
        "-o", str(shard), "--jobs", "1", "-q",
    ).exit_code == 0  # fmt: skip
    result = _cli("merge", str(shard), "-o", str(tmp_path / "m.dat"))
    assert result.exit_code == 1
    assert result.output == "Error: gap: shard 2/2 missing\n"
    result = _cli("merge", str(tmp_path / "nothing.dat"), "-o", str(tmp_path / "m.dat"))
    assert result.exit_code == 1 and "no manifest" in result.output


@pytest.mark.parametrize(
    ("plies", "line", "distances"),
    [(14, "4444443366", True), (14, "4444443366", False), (16, "444444552211", True)],
)
def test_wider_record_layouts_match_the_solver(tmp_path, plies, line, distances):
    """14 and 16 plies: 40-bit keys (5-byte pruned, 6-byte distance records)."""
    out = tmp_path / "w.dat"
    summary = _build(out, plies=plies, under=line, distances=distances)
    fmt = BookFormat.for_plies(plies, distances, *DEFAULT_BOARD)
    assert out.stat().st_size == summary.records * fmt.record_bytes
    first, mask, values = book_positions(out, plies, distances)
    solver = Solver(table_log2=TABLE)
    for f, m, v in zip(first.tolist(), mask.tolist(), values.tolist(), strict=True):
        assert v == expected_book_value(Position.from_bitboards(f, m), distances, solver)
    assert summary.positions == len(
        enumerate_positions(plies, under=line, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)[0]
    )
    if distances:
        assert summary.records == summary.positions


# ---------------------------------------------------------------- the committed books
COMMITTED = BOOKS / "book12-dist-under44444.dat"


def test_committed_book_matches_its_manifest():
    manifest = read_manifest(COMMITTED)
    data = COMMITTED.read_bytes()
    assert manifest["book"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert manifest["selection"]["under"] == "44444" and manifest["format"]["name"] == "12-ply-dist"
    first, mask, values = book_positions(COMMITTED, 12, True)
    expected_first, expected_mask = enumerate_positions(
        12, under="44444", width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT
    )
    assert manifest["book"]["records"] == len(values) == len(expected_first)
    assert set(zip(first.tolist(), mask.tolist(), strict=True)) == set(
        zip(expected_first.tolist(), expected_mask.tolist(), strict=True)
    )
    # a few records against the solver directly
    solver = Solver(table_log2=TABLE)
    for i in np.random.default_rng(0).choice(len(values), 25, replace=False).tolist():
        pos = Position.from_bitboards(int(first[i]), int(mask[i]))
        assert int(values[i]) == expected_book_value(pos, True, solver), pos.some_moves()


def test_committed_book_backs_up_to_thills_8_ply_values(tmp_path, reference_dir):
    """The 12-ply distances, backed up 4 plies by exact negamax, give Thill's 8-ply values."""
    from openingbook.pipeline.derive import derive_book

    derived = tmp_path / "b8.dat"
    derive_book(COMMITTED, 8, derived, under="44444", distances=False)
    assert _compare_with_thill(derived, "44444", reference_dir) == 111


@pytest.mark.parametrize("book", sorted(BOOKS.glob("*.dat")), ids=lambda p: p.name)
def test_every_committed_book_matches_its_manifest(book):
    """Each book in books/ has a manifest naming its command, bytes, sha256 and records."""
    manifest = read_manifest(book)
    data = book.read_bytes()
    assert manifest["book"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert manifest["book"]["bytes"] == len(data)
    assert manifest["book"]["records"] * manifest["format"]["record_bytes"] == len(data)
    assert manifest["command"].startswith(
        ("openingbook build ", "openingbook derive ", "openingbook merge ")
    )
    for shard in manifest.get("merged_from", []):  # a sharded build: each shard built by us
        assert shard["command"].startswith("openingbook build ")


def test_committed_derived_book_is_reproduced_and_agrees_with_thill(tmp_path, reference_dir):
    """books/book8-under44444.dat: derived again from the committed 12-ply book, the same
    bytes; and its values are Thill's (but for his file's documented missing positions)."""
    from openingbook.pipeline.derive import derive_book

    committed = BOOKS / "book8-under44444.dat"
    manifest = read_manifest(committed)
    assert manifest["derived_from"]["sha256"] == read_manifest(COMMITTED)["book"]["sha256"]
    again = tmp_path / "b8.dat"
    derive_book(COMMITTED, 8, again, under="44444", distances=False)
    assert again.read_bytes() == committed.read_bytes()
    assert _compare_with_thill(committed, "44444", reference_dir) == 111
