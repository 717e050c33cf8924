"""Long compiled work that a signal stops at once: Ctrl-C, SIGTERM.

Python runs a signal's handler in the main thread only, and only between
bytecodes: while the main thread sits in a compiled kernel (numba's, or a native
library called through ``ctypes``), a Ctrl-C is noted and acted on when the kernel
returns, which for a search may be minutes later. :func:`run_interruptibly` runs
the work in another thread instead (one per process, started once and kept, so
that a short call pays a hand-over of a few microseconds, not a thread's start)
while the main thread waits in a lock that a signal interrupts. When the handler
raises (``KeyboardInterrupt``, the command line's ``Terminated``), the caller's
``stop`` asks the work to end (the search's stop flag), the work is waited for,
and the exception goes on. A handler that does not raise leaves the work running.

The command line runs each command this way (no ``stop``: a ``KeyboardInterrupt``
is raised in the work's thread, which unwinds as it would in the main thread,
removing its temporary files), waiting a short ``grace`` for it: work inside a
long compiled call (a numba kernel, a numpy sort of a billion keys) is left to the
process's exit.

Called from any other thread, the work runs in that thread: no signal handler
runs there.
"""

from __future__ import annotations

import _thread
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["run_interruptibly"]

T = TypeVar("T")

#: seconds between the main thread's checks while it waits (a signal interrupts the
#: wait at once on POSIX; the bound holds where it would not)
_POLL = 0.05


class _Job:
    """One call of the work: its result or exception, and a lock released when done."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self.work = work
        self.result: Any = None
        self.error: BaseException | None = None
        #: given to the runner: from then on it runs, and the caller must wait for it
        self.handed = False
        self.finished = False
        self.done = _thread.allocate_lock()
        self.done.acquire()

    def run(self) -> None:
        try:
            self.result = self.work()
        except BaseException as exc:  # handed to the caller, raised in its thread
            self.error = exc

    def finish(self) -> None:
        self.finished = True
        self.done.release()

    def wait(self, deadline: float | None = None) -> None:
        """Until the work has returned, or ``deadline`` (``time.monotonic``) has passed
        (a signal's exception propagates from here).

        ``finished`` decides, not the lock: an exception between taking the lock and
        giving it back leaves it taken, and the next wait must still return."""
        while not self.finished:
            if deadline is not None and time.monotonic() >= deadline:
                return
            if self.done.acquire(timeout=_POLL):
                self.done.release()


class _Runner:
    """The thread that runs the main thread's work, one job at a time."""

    def __init__(self) -> None:
        self.job: _Job | None = None
        self.busy = False
        self._go = _thread.allocate_lock()
        self._go.acquire()
        thread = threading.Thread(target=self._loop, name="openingbook-work", daemon=True)
        thread.start()
        self.ident = thread.ident

    def interrupt(self, job: _Job) -> None:
        """Raise ``KeyboardInterrupt`` in this runner's thread while it runs ``job``."""
        import ctypes

        if job.finished or self.ident is None:
            return
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(self.ident), ctypes.py_object(KeyboardInterrupt)
        )

    def submit(self, job: _Job) -> None:
        self.busy = True
        self.job = job
        # CPython runs a signal's handler at a call's start or end, not between these
        # two lines: ``handed`` is true exactly when the runner has the job
        job.handed = True
        self._go.release()

    def _loop(self) -> None:
        while True:
            self._go.acquire()
            job = self.job
            assert job is not None
            self.job = None
            job.run()
            self.busy = False  # before the caller hears of it: its next job comes here
            job.finish()
            if _runner is not self:  # replaced while busy: the new one serves
                return


_runner: _Runner | None = None


def _forget_runner() -> None:
    """In a forked child: the runner thread was not copied."""
    global _runner
    _runner = None


os.register_at_fork(after_in_child=_forget_runner)


def run_interruptibly(
    work: Callable[[], T], stop: Callable[[], None] | None = None, grace: float | None = None
) -> T:
    """``work()``'s result (or exception); from the main thread, run so that a signal
    whose handler raises stops it: ``stop()`` is called (it must make ``work``
    return soon), ``work`` is waited for, and the handler's exception is raised.

    Without ``stop``, ``work`` is stopped by a ``KeyboardInterrupt`` raised in its
    thread: where it runs Python, at once; in a compiled call, when the call returns.
    With ``grace``, the work is waited for that many seconds at most: after that the
    handler's exception is raised with the work still running (its result unused), for
    a caller that ends the process then (the command line).

    ``work`` must not need the main thread (it runs in another one).
    """
    global _runner
    if threading.current_thread() is not threading.main_thread():
        return work()
    job = _Job(work)
    if _runner is None or _runner.busy:  # busy: a job a second exception left behind
        _runner = _Runner()
    runner = _runner
    try:
        runner.submit(job)
        job.wait()
    except BaseException:
        if job.handed:
            if stop is None:
                _runner = None  # its thread may meet the exception between jobs: not reused
                runner.interrupt(job)
            else:
                stop()
            _wait_through_signals(job, grace)
        raise
    if job.error is not None:
        error, job.error = job.error, None
        raise error
    return job.result  # type: ignore[no-any-return]


def _wait_through_signals(job: _Job, grace: float | None = None) -> None:
    """Wait for stopped work (``grace``: that many seconds at most): a second Ctrl-C
    meanwhile does not leave it running (the stop takes milliseconds; the first
    exception is the one raised)."""
    deadline = None if grace is None else time.monotonic() + grace
    while True:
        try:
            job.wait(deadline)
            return
        except BaseException:  # the first signal's exception goes on
            continue
