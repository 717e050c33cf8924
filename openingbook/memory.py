"""Solver table sizes checked against this machine's memory, before anything is allocated.

A solver's transposition table is ``2**table_log2`` entries of 8 bytes, one per
worker. numpy allocates it lazily, so a table larger than the machine fails
late (when the search touches enough of it, or when the kernel's out-of-memory
killer ends the process), not at the start: every command that creates solvers
calls :func:`check_table_size` first, and an impossible size is an
:class:`~openingbook.errors.InvalidArgument` saying how much memory it needs
and how much there is. How many workers fit (:func:`worker_count`) also counts the
cores this process may use (:func:`default_jobs`).

>>> check_table_size(20, workers=2)  # 2 x 8.5 MiB: fine anywhere
>>> check_table_size(9)
Traceback (most recent call last):
openingbook.solver.errors.InvalidArgument: table_log2 9: expected 10 to 32
"""

from __future__ import annotations

import os

from openingbook.errors import InvalidArgument, NotEnoughMemory
from openingbook.solver import table_bytes

__all__ = [
    "MAX_TABLE_LOG2",
    "MIN_TABLE_LOG2",
    "WORKER_PROCESS_BYTES",
    "available_memory",
    "check_table_size",
    "default_jobs",
    "release_freed_memory",
    "require_memory",
    "worker_count",
]

MIN_TABLE_LOG2 = 10
MAX_TABLE_LOG2 = 32
#: a worker process besides its table: Python, numpy and the compiled solver (48
#: workers of a tiny build, their tables barely touched, peaked at 9.5 GB: ~200 MB each)
WORKER_PROCESS_BYTES = 200 << 20


def available_memory() -> int | None:
    """Bytes this machine can give a new allocation without swapping, if known.

    Linux's ``MemAvailable`` (free memory plus caches it can drop), else the
    physical memory, else ``None``.
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def check_table_size(
    table_log2: int | None, workers: int = 1, available: int | None = None
) -> None:
    """Refuse a table size out of range, or larger than the memory for ``workers`` tables.

    ``None`` means the solver's default size. ``workers=0``: the tables are
    made on other machines (a cluster's), only the range is checked here. ``available`` defaults to
    :func:`available_memory`; when that is unknown only the range is checked.
    """
    if table_log2 is None:
        return
    if not MIN_TABLE_LOG2 <= table_log2 <= MAX_TABLE_LOG2:
        expected = f"expected {MIN_TABLE_LOG2} to {MAX_TABLE_LOG2}"
        raise InvalidArgument(expected, argument="table_log2", value=table_log2)
    if available is None:
        available = available_memory()
    needed = table_bytes(table_log2) * workers
    if available is not None and needed > available:
        each = f" ({workers} workers, {_gib(table_bytes(table_log2))} each)" if workers > 1 else ""
        raise InvalidArgument(
            f"solver tables of 2^{table_log2} entries need {_gib(needed)}{each}; "
            f"this machine has {_gib(available)} available",
            argument="table_log2",
            value=table_log2,
        )


def default_jobs() -> int:
    """The number of CPU cores this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def worker_count(
    jobs: int | None,
    table_log2: int | None,
    tasks: int,
    available: int | None = None,
    cores: int | None = None,
) -> int:
    """How many local worker processes to start for ``tasks`` pieces of work.

    Never more than ``tasks`` (a worker without work only costs memory), nor than
    the memory holds: each worker needs its solver table (``table_log2``, None =
    the solver's default) plus :data:`WORKER_PROCESS_BYTES`. ``jobs`` asked for
    more than fits is an :class:`~openingbook.errors.InvalidArgument` (naming how
    many fit); the default (``jobs=None``: ``cores``, else every usable core)
    shrinks to what fits, at least one.

    >>> worker_count(48, 20, tasks=3, available=64 << 30)  # 3 chunks: 3 workers
    3
    >>> worker_count(None, 25, tasks=100, available=2 << 30, cores=8)  # 456 MiB each
    4
    >>> worker_count(8, 25, tasks=100, available=2 << 30)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    openingbook.solver.errors.InvalidArgument: jobs 8: 8 workers need about 3.6 GiB (456.5 MiB ...
    """
    from openingbook.solver import default_table_log2

    if cores is None:
        cores = default_jobs()
    wanted = max(1, min(jobs or cores, tasks))
    if available is None:
        available = available_memory()
    log2 = default_table_log2() if table_log2 is None else table_log2
    each = table_bytes(log2) + WORKER_PROCESS_BYTES
    if available is None or wanted * each <= available:
        return wanted
    fit = max(1, available // each)
    if jobs is None:
        return fit
    raise InvalidArgument(
        f"{wanted} workers need about {_gib(wanted * each)} ({_size(each)} each: a table of "
        f"2^{log2} entries and the process); this machine has {_gib(available)} available, "
        f"enough for {fit}",
        argument="jobs",
        value=jobs,
    )


def require_memory(need: int, what: str) -> None:
    """Refuse, before allocating, work that needs ``need`` bytes when less is available.

    ``ValueError`` with a one-line message: ``what`` (e.g. "book.dat: reading its 5
    records") followed by both amounts.
    """
    have = available_memory()
    if have is not None and need > have:
        raise NotEnoughMemory(
            f"{what} needs about {_size(need)} of memory, only {_size(have)} is available"
        )


def _size(n: int) -> str:
    return _gib(n) if n >= 2**30 else f"{n / 2**20:.1f} MiB"


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def release_freed_memory() -> None:
    """Give the memory freed on the heap back to the system (glibc's ``malloc_trim``; a
    no-op elsewhere). Arrays under glibc's threshold (32 MiB at most) live on the heap,
    and the heap keeps what they freed: after a derivation's thousands of part-sized
    arrays, a quarter of the process's memory. A step that then allocates its big arrays
    apart (a compact book's write) calls this first, so that its peak is its own
    arrays' and not that as well."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # another C library (musl): nothing to trim
        return
    trim(0)
