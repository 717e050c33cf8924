"""A build through a real dask cluster: a ``dask scheduler`` and two ``dask worker``
processes, started as subprocesses on 127.0.0.1, as on machines of a cluster
(docs/CLUSTER.md). Independent source: the same build on the local executor, byte
for byte (book and record order), and the solver's chunks landing in the work
directory of the machine that runs ``build``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from openingbook.formats.thill import manifest_path
from openingbook.pipeline.build import BuildOptions, build_book
from openingbook.solver import DEFAULT_BOARD
from tests.helpers import SMALL, TABLE

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.cluster, pytest.mark.slow]


def _dask(*args: str, log: Path) -> subprocess.Popen:
    """``python -m distributed.cli.dask_<command>`` with this checkout first on the path
    (what ``dask scheduler`` / ``dask worker`` run), output to ``log``."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    return subprocess.Popen(
        [sys.executable, "-m", "distributed.cli." + args[0], *args[1:]],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        env=env,
        cwd=log.parent,
    )


@pytest.fixture
def cluster(tmp_path):
    """The address of a scheduler with two single-threaded workers, all local processes."""
    pytest.importorskip("distributed")
    info = tmp_path / "scheduler.json"
    procs = [
        _dask(
            "dask_scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(info),
            log=tmp_path / "scheduler.log",
        )
    ]
    try:
        deadline = time.monotonic() + 120
        while not info.exists():
            if time.monotonic() > deadline or procs[0].poll() is not None:
                pytest.fail(
                    "the scheduler did not start: " + (tmp_path / "scheduler.log").read_text()
                )
            time.sleep(0.2)
        for k in (1, 2):
            procs.append(
                _dask(
                    "dask_worker",
                    "--scheduler-file",
                    str(info),
                    "--nworkers",
                    "1",
                    "--nthreads",
                    "1",
                    "--host",
                    "127.0.0.1",
                    "--no-dashboard",
                    "--name",
                    f"w{k}",
                    log=tmp_path / f"worker{k}.log",
                )
            )
        from distributed import Client

        address = json.loads(info.read_text())["address"]
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        for proc in reversed(procs):  # workers first, then the scheduler
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_a_real_cluster_writes_the_local_executors_bytes(tmp_path, cluster):
    options = BuildOptions(plies=12, distances=True, under=SMALL, chunk_size=4, board=DEFAULT_BOARD)
    local = build_book(tmp_path / "local.dat", options, jobs=1, table_log2=TABLE, progress=False)
    remote_out = tmp_path / "cluster.dat"
    remote = build_book(
        remote_out,
        options,
        executor="dask",
        scheduler=cluster,
        table_log2=TABLE,
        progress=False,
        keep_work=True,
    )
    assert remote_out.read_bytes() == (tmp_path / "local.dat").read_bytes()
    assert remote.records == local.records and remote.chunks == local.chunks > 2
    manifest = json.loads(manifest_path(remote_out).read_text())
    assert manifest["solver"]["executor"] == "dask" and manifest["solver"]["workers"] == 2
    # the results came back to this machine's work directory, one file per chunk
    chunks = sorted(p.name for p in (tmp_path / "cluster.dat.work").glob("chunk-*.npz"))
    assert len(chunks) == remote.chunks
    # a rerun resumes every chunk from there, without the cluster
    shutil.rmtree(tmp_path / "again.work", ignore_errors=True)
    again = build_book(
        tmp_path / "again.dat",
        options,
        work_dir=tmp_path / "cluster.dat.work",
        jobs=1,
        table_log2=TABLE,
        progress=False,
    )
    assert again.chunks_resumed == again.chunks
    assert (tmp_path / "again.dat").read_bytes() == remote_out.read_bytes()
