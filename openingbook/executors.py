"""Where a build's chunks run: in-process, on a local process pool, or on a dask cluster.

Every executor takes a picklable function and a list of tasks and yields the
function's results in completion order. The build saves each result as soon as
it arrives, so all executors fill the same work directory the same way.

* :class:`SerialExecutor` — in the calling process (``--jobs 1``).
* :class:`PoolExecutor` — a ``multiprocess`` pool, one process per job; an
  initializer runs once in each worker (the build creates the worker's solver
  and table there).
* :class:`DaskExecutor` — a ``dask.distributed`` cluster at a scheduler address,
  or a ``LocalCluster`` with one single-threaded worker process per job when no
  address is given. Workers need this package installed (same version).

>>> with SerialExecutor() as ex:
...     sorted(ex.map_unordered(abs, [-2, 1, -3]))
[1, 2, 3]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = [
    "EXECUTOR_NAMES",
    "DaskExecutor",
    "Executor",
    "PoolExecutor",
    "SerialExecutor",
    "default_jobs",
    "make_executor",
]

EXECUTOR_NAMES = ("pool", "dask")


def default_jobs() -> int:
    """The number of CPU cores this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Executor:
    """Base class: a context manager with :meth:`map_unordered` and a worker count."""

    #: Short name for manifests and summaries.
    name = "executor"

    def __init__(self) -> None:
        self.workers = 1

    def map_unordered(self, func: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        raise NotImplementedError

    def close(self) -> None:
        """Stop the workers (pending tasks are dropped)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialExecutor(Executor):
    """Runs every task in the calling process, in order."""

    name = "serial"

    def __init__(
        self, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
    ) -> None:
        super().__init__()
        if initializer is not None:
            initializer(*initargs)

    def map_unordered(self, func: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        for task in tasks:
            yield func(task)


class PoolExecutor(Executor):
    """A ``multiprocess`` pool of ``jobs`` worker processes.

    ``multiprocess`` (dill) rather than ``multiprocessing`` so that closures and
    interactively defined functions can be sent to the workers as well.
    """

    name = "pool"

    def __init__(
        self,
        jobs: int,
        initializer: Callable[..., None] | None = None,
        initargs: tuple[Any, ...] = (),
    ) -> None:
        super().__init__()
        import multiprocess

        if jobs < 1:
            raise ValueError(f"jobs must be at least 1, not {jobs}")
        self.workers = jobs
        self._pool = multiprocess.Pool(
            jobs, initializer=_pool_worker_start, initargs=(os.getpid(), initializer, initargs)
        )

    def map_unordered(self, func: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        # chunksize=1: a task is already a sizeable chunk of positions, and one
        # task at a time keeps "lost on kill" down to the tasks in flight.
        yield from self._pool.imap_unordered(func, tasks, chunksize=1)

    def close(self) -> None:
        # terminate, not close+join: on an error or Ctrl-C the queued tasks are
        # not wanted, and finished ones have been consumed already.
        self._pool.terminate()
        self._pool.join()


def _pool_worker_start(
    parent: int, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]
) -> None:
    """Runs first in every pool worker: signals, die with the parent, the caller's initializer.

    Ctrl-C reaches the whole process group: the workers ignore it and the
    parent stops them (SIGTERM, default action, no traceback). A worker whose
    parent was killed (``kill -9``, out of memory) would finish its chunk for
    nobody, so it asks to die with the parent (Linux ``prctl``; elsewhere a
    no-op).
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


def _die_with_parent(parent: int) -> None:
    import ctypes
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return
    pr_set_pdeathsig = 1
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


class DaskExecutor(Executor):
    """Tasks on a ``dask.distributed`` cluster.

    With ``scheduler`` (``"tcp://host:8786"``) the executor connects to a running
    cluster; without it, a ``LocalCluster`` with ``jobs`` single-threaded worker
    processes is started and stopped with the executor. The initializer runs
    once on every worker present at start-up (workers that join later set
    themselves up on their first task, if the task function does so lazily).
    """

    name = "dask"

    def __init__(
        self,
        scheduler: str | None = None,
        jobs: int | None = None,
        initializer: Callable[..., None] | None = None,
        initargs: tuple[Any, ...] = (),
    ) -> None:
        super().__init__()
        from distributed import Client, LocalCluster

        self._cluster = None
        if scheduler:
            try:
                self._client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError) as exc:
                raise OSError(f"cannot reach the dask scheduler at {scheduler}: {exc}") from None
        else:
            n = jobs or default_jobs()
            self._cluster = LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None
            )
            self._client = Client(self._cluster)
        self.scheduler = self._client.scheduler.address
        self.workers = max(1, sum(w["nthreads"] for w in self._workers().values()))
        if initializer is not None:
            self._client.run(initializer, *initargs)

    def _workers(self) -> dict[str, Any]:
        return self._client.scheduler_info().get("workers", {})

    def map_unordered(self, func: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        from distributed import as_completed

        futures = [self._client.submit(func, task, pure=False) for task in tasks]
        try:
            for future in as_completed(futures):
                yield future.result()
                future.release()
        finally:
            self._client.cancel([f for f in futures if not f.done()])

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def make_executor(
    name: str,
    jobs: int | None = None,
    scheduler: str | None = None,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> Executor:
    """The executor called ``name`` (``"pool"`` or ``"dask"``).

    ``pool`` with one job runs in-process (:class:`SerialExecutor`).

    >>> make_executor("pool", jobs=1).name
    'serial'
    """
    if name not in EXECUTOR_NAMES:
        raise ValueError(f"unknown executor {name!r}: choose one of {', '.join(EXECUTOR_NAMES)}")
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs must be at least 1, not {jobs}")
    if scheduler and name != "dask":
        raise ValueError("--scheduler needs --executor dask")
    if name == "dask":
        return DaskExecutor(scheduler, jobs, initializer, initargs)
    jobs = jobs or default_jobs()
    if jobs == 1:
        return SerialExecutor(initializer, initargs)
    return PoolExecutor(jobs, initializer, initargs)
