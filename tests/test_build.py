"""The build pipeline: work directory, chunk plan, executors, build, resume, shards, merge."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openingbook.build import (
    BuildOptions,
    auto_chunk_size,
    check_output,
    default_output_name,
    manifest_path,
    parse_shard,
    plan_build,
)
from openingbook.executors import PoolExecutor, SerialExecutor, make_executor
from openingbook.workdir import ChunkResult, WorkDir, WorkDirError
from solver import Position, enumerate_positions

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
    WorkDir.open(tmp_path, SETTINGS)
    with pytest.raises(WorkDirError, match=r"other settings.*plies 10 there, 12 now"):
        WorkDir.open(tmp_path, {**SETTINGS, "plies": 12})
    WorkDir.open(tmp_path, dict(SETTINGS))  # same settings reopen fine


def test_chunks_without_settings_are_refused(tmp_path):
    wd = WorkDir.open(tmp_path / "a", SETTINGS)
    wd.save_chunk(_chunk(0))
    (tmp_path / "a" / "settings.json").unlink()
    with pytest.raises(WorkDirError, match=r"no settings\.json"):
        WorkDir.open(tmp_path / "a", SETTINGS)


def test_work_dir_that_is_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(WorkDirError, match="not a directory"):
        WorkDir.open(tmp_path / "f", SETTINGS)


def test_half_written_temporaries_are_removed(tmp_path):
    wd = WorkDir.open(tmp_path, SETTINGS)
    (tmp_path / ".chunk-0000001.npz.x1y2.tmp").write_bytes(b"partial")
    WorkDir.open(tmp_path, SETTINGS)
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


def test_make_executor_rejects_bad_arguments():
    with pytest.raises(ValueError, match="unknown executor"):
        make_executor("spark")
    with pytest.raises(ValueError, match="at least 1"):
        make_executor("pool", jobs=0)
    with pytest.raises(ValueError, match="--scheduler needs --executor dask"):
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
        (BuildOptions(plies=9), "even number of plies from 2 to 16"),
        (BuildOptions(plies=18), "even number of plies"),
        (BuildOptions(plies=0), "even number of plies"),
        (BuildOptions(plies=4, under="44444"), "5 moves, more than the 4 plies"),
        (BuildOptions(plies=8, under="48"), "outside 1-7"),
        (BuildOptions(plies=10, under="4444444"), "full"),
        (BuildOptions(plies=8, under="4x"), "not a column digit"),
        (BuildOptions(plies=8, sample=0), "at least 1"),
        (BuildOptions(plies=8, chunk_size=0), "at least 1"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        options.validate()


def test_plan_partitions_the_enumeration():
    plan = plan_build(BuildOptions(plies=10, under="444444", chunk_size=20))
    first, mask = enumerate_positions(10, under="444444")
    assert plan.total_positions == plan.selected_positions == len(first)
    assert [c.chunk_id for c in plan.chunks] == list(range(plan.chunk_count))
    assert plan.chunks[0].start == 0 and plan.chunks[-1].stop == len(first)
    for a, b in zip(plan.chunks, plan.chunks[1:], strict=False):
        assert a.stop == b.start and len(a) == 20
    assert np.array_equal(plan.first, first) and np.array_equal(plan.mask, mask)


@pytest.mark.parametrize("shards", [1, 2, 3, 5])
def test_shards_partition_the_chunks(shards):
    options = BuildOptions(plies=10, under="444444", chunk_size=16)
    whole = plan_build(options)
    ids: list[int] = []
    for i in range(1, shards + 1):
        part = plan_build(BuildOptions(**{**options.__dict__, "shard": (i, shards)}))
        assert part.chunk_count == whole.chunk_count
        assert np.array_equal(part.first, whole.first)
        ids += [c.chunk_id for c in part.chunks]
        assert all(c.chunk_id % shards == i - 1 for c in part.chunks)
    assert sorted(ids) == list(range(whole.chunk_count))


def test_empty_shard_is_refused():
    with pytest.raises(ValueError, match="only 1 chunks"):
        plan_build(BuildOptions(plies=10, under="44444433", shard=(2, 2)))


def test_sample_is_deterministic_and_a_subset():
    full = plan_build(BuildOptions(plies=10, under="44444"))
    a = plan_build(BuildOptions(plies=10, under="44444", sample=50, seed=7))
    b = plan_build(BuildOptions(plies=10, under="44444", sample=50, seed=7))
    c = plan_build(BuildOptions(plies=10, under="44444", sample=50, seed=8))
    assert np.array_equal(a.first, b.first) and np.array_equal(a.mask, b.mask)
    assert not (np.array_equal(a.first, c.first) and np.array_equal(a.mask, c.mask))
    index = {
        (int(f), int(m)): i for i, (f, m) in enumerate(zip(full.first, full.mask, strict=True))
    }
    picked = [index[pair] for pair in zip(a.first.tolist(), a.mask.tolist(), strict=True)]
    assert len(set(picked)) == 50 and picked == sorted(picked)  # enumeration order kept
    with pytest.raises(ValueError, match="only"):
        plan_build(BuildOptions(plies=10, under="44444", sample=full.total_positions + 1))


def test_under_a_line_with_no_book_position():
    # the first player has three stacked in column 1 and is to move: not a book position
    line = "12131253"
    assert Position.from_moves(line).can_win_next()
    with pytest.raises(ValueError, match="no 8-ply book positions under"):
        plan_build(BuildOptions(plies=8, under=line))


def test_auto_chunk_size_bounds():
    assert auto_chunk_size(1) == 16
    assert auto_chunk_size(64 * 100) == 100
    assert auto_chunk_size(10**9) == 1024


def test_default_names():
    assert default_output_name(BuildOptions(plies=8)) == "book8.dat"
    assert (
        default_output_name(BuildOptions(plies=12, distances=True, under="44", shard=(2, 4)))
        == "book12-dist-under44-shard2of4.dat"
    )
    assert manifest_path("x/book8.dat").name == "book8.dat.json"


def test_check_output(tmp_path):
    out = tmp_path / "b.dat"
    assert check_output(out, force=False) == out
    out.write_bytes(b"")
    with pytest.raises(ValueError, match="exists; use --force"):
        check_output(out, force=False)
    check_output(out, force=True)
    with pytest.raises(ValueError, match="does not exist"):
        check_output(tmp_path / "nope" / "b.dat", force=False)
    with pytest.raises(ValueError, match="is a directory"):
        check_output(tmp_path, force=True)
    (tmp_path / "m.dat.json").write_text(json.dumps({}))
    with pytest.raises(ValueError, match=r"m\.dat\.json exists"):
        check_output(tmp_path / "m.dat", force=False)
