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
  address is given. Workers need this package installed (same version). Dask is
  an optional dependency (``pip install "openingbook[dask]"``):
  :func:`require_dask` names the extra when it is missing.

>>> with SerialExecutor() as ex:
...     sorted(ex.map_unordered(abs, [-2, 1, -3]))
[1, 2, 3]
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from openingbook.errors import InvalidArgument, MissingExtra, SchedulerUnreachable, WorkerLost
from openingbook.memory import default_jobs

__all__ = [
    "EXECUTOR_NAMES",
    "DaskExecutor",
    "Executor",
    "PoolExecutor",
    "SerialExecutor",
    "make_executor",
    "require_dask",
    "worker_ranges",
]

EXECUTOR_NAMES = ("pool", "dask")


def worker_ranges(tasks: int, workers: int) -> list[tuple[int, int]]:
    """The contiguous ``[start, stop)`` range of tasks each pool worker starts on.

    >>> worker_ranges(10, 3)
    [(0, 3), (3, 7), (7, 10)]
    """
    bounds = [round(i * tasks / workers) for i in range(workers + 1)]
    return [(bounds[w], bounds[w + 1]) for w in range(workers)]


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
    """``jobs`` worker processes (``multiprocess``), each working along its own run of tasks.

    The tasks are taken to be in an order where neighbours are related (the
    build's chunks follow the enumeration, grouped by parent line). Worker ``w``
    starts on the ``w``-th of ``jobs`` equal contiguous ranges of the task list
    and takes its tasks in order; a worker whose range is used up takes the
    back half of the largest range left (work stealing). So every worker stays
    busy and solves neighbouring chunks one after the other, which keeps its
    solver's table warm: handing tasks out in turn (every worker jumping over
    the others' chunks) cost about 20-50% more CPU per position.

    Each worker has at most two tasks handed out (one running, one queued), so
    stopping loses at most the running ones. ``multiprocess`` (dill) rather than
    ``multiprocessing`` so that closures can be sent to the workers as well.
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
            raise InvalidArgument(f"jobs must be at least 1, not {jobs}")
        self.workers = jobs
        self._results = multiprocess.Queue()
        self._queues = [multiprocess.Queue() for _ in range(jobs)]
        self._procs = [
            multiprocess.Process(
                target=_pool_worker_loop,
                args=(os.getpid(), initializer, initargs, self._queues[w], self._results, w),
                daemon=True,
            )
            for w in range(jobs)
        ]
        try:
            with _stopping_signals_held():
                for proc in self._procs:
                    proc.start()
        except BaseException:  # Ctrl-C as they start: the started ones are stopped
            self.close()
            raise

    def map_unordered(self, func: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        import queue

        todo = list(tasks)
        k = self.workers
        ranges = [list(r) for r in worker_ranges(len(todo), k)]  # [next, stop) per worker

        def next_index(w: int) -> int | None:
            if ranges[w][0] >= ranges[w][1]:  # steal the back half of the largest range
                victim = max(range(k), key=lambda v: ranges[v][1] - ranges[v][0])
                left = ranges[victim][1] - ranges[victim][0]
                if left <= 0:
                    return None
                cut = ranges[victim][1] - max(1, left // 2)
                ranges[w] = [cut, ranges[victim][1]]
                ranges[victim][1] = cut
            ranges[w][0] += 1
            return ranges[w][0] - 1

        handed: list[list[int]] = [[] for _ in range(k)]  # each worker's tasks, in its order

        def hand_out(w: int) -> bool:
            i = next_index(w)
            if i is None:
                return False
            self._queues[w].put((func, todo[i]))
            handed[w].append(i)
            return True

        pending = sum(hand_out(w) for w in range(k) for _ in range(2))

        def check_alive() -> None:
            for w, proc in enumerate(self._procs):
                # killed (out of memory, kill -9) or crashed; a worker whose set-up failed
                # ends with 0 after putting its error in the queue, which says it better
                if not proc.is_alive() and proc.exitcode != 0:
                    task = todo[handed[w][0]] if handed[w] else None
                    raise WorkerLost(w + 1, proc.exitcode, task)

        while pending:
            try:
                # a short wait: a Ctrl-C raised in this thread (the command line runs
                # commands in a thread of their own) is acted on between waits
                w, ok, value = self._results.get(timeout=0.2)
            except queue.Empty:
                check_alive()
                continue
            check_alive()  # at once, not after the others ran out of work
            if not ok:
                raise value
            handed[w].pop(0)
            pending -= 1
            pending += hand_out(w)
            yield value

    def close(self) -> None:
        # terminate: on an error or Ctrl-C the queued tasks are not wanted, and
        # after success the workers are idle
        for proc in self._procs:
            if proc.is_alive():
                proc.terminate()
        for proc in self._procs:
            if proc.pid is not None:  # started
                proc.join()
        for q in [*self._queues, self._results]:
            q.cancel_join_thread()
            q.close()


def _pool_worker_loop(
    parent: int,
    initializer: Callable[..., None] | None,
    initargs: tuple[Any, ...],
    tasks: Any,
    results: Any,
    worker: int,
) -> None:
    """A pool worker: set up, then run ``(func, task)`` items until ``None``."""
    try:
        _pool_worker_start(parent, initializer, initargs)
    except Exception as exc:
        results.put((worker, False, _portable(exc)))
        return
    while True:
        item = tasks.get()
        if item is None:
            return
        func, task = item
        try:
            results.put((worker, True, func(task)))
        except Exception as exc:
            results.put((worker, False, _portable(exc)))


def _portable(exc: Exception) -> Exception:
    """The exception itself if it survives pickling, else a RuntimeError with its text."""
    import dill

    try:
        dill.loads(dill.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


def _pool_worker_start(
    parent: int, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]
) -> None:
    """Runs first in every pool worker: signals, die with the parent, the caller's initializer.

    Ctrl-C and a closed terminal's SIGHUP reach the whole process group: the
    workers ignore them and the parent stops them (SIGTERM, default action, no
    traceback). The worker starts with these signals held back
    (:func:`_stopping_signals_held`: until here it runs with the parent's
    handlers, which raise) and lets them through once they are set. A worker
    whose parent was killed (``kill -9``, out of memory) would finish its chunk
    for nobody, so it asks to die with the parent (Linux ``prctl``; elsewhere a
    no-op).
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _stopping_signals())
    _die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


def _stopping_signals() -> set[int]:
    import signal

    names = ("SIGINT", "SIGTERM", "SIGHUP")
    return {getattr(signal, name) for name in names if hasattr(signal, name)}


@contextlib.contextmanager
def _stopping_signals_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP held back while worker processes are forked: a worker
    starts with them blocked (:func:`_pool_worker_start` sets its own handling, then
    unblocks), and one that came meanwhile reaches this process at the end."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _stopping_signals())
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


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


def require_dask() -> None:
    """Check that ``dask.distributed`` is installed: :class:`MissingExtra` if not.

    Called before any work, so a build asked for the dask executor stops with one
    line naming the extra rather than after it has set up its work directory.
    """
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise MissingExtra("dask", "the dask executor") from None


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
        require_dask()
        from distributed import Client, LocalCluster

        self._cluster = None
        if scheduler:
            try:
                self._client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError) as exc:
                raise SchedulerUnreachable(
                    f"cannot reach the dask scheduler at {scheduler}: {exc}"
                ) from exc
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

        # Neighbouring tasks (chunks of related positions) share solver-table
        # entries, so each worker is asked for one contiguous run of the tasks, as
        # in the local pool; the request is loose: the scheduler may still move
        # tasks to idle workers, and uses others if a worker leaves.
        tasks = list(tasks)
        workers = sorted(self._workers())
        futures = [
            self._client.submit(
                func,
                task,
                pure=False,
                workers=[workers[i * len(workers) // len(tasks)]] if workers else None,
                allow_other_workers=True,
            )
            for i, task in enumerate(tasks)
        ]
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
        raise InvalidArgument(
            f"choose one of {', '.join(EXECUTOR_NAMES)}", argument="executor", value=name
        )
    if jobs is not None and jobs < 1:
        raise InvalidArgument("must be at least 1", argument="jobs", value=jobs)
    if scheduler and name != "dask":
        raise InvalidArgument("needs the dask executor", argument="scheduler", value=scheduler)
    if name == "dask":
        return DaskExecutor(scheduler, jobs, initializer, initargs)
    jobs = jobs or default_jobs()
    if jobs == 1:
        return SerialExecutor(initializer, initargs)
    return PoolExecutor(jobs, initializer, initargs)
