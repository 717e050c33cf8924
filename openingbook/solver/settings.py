"""The search's tuning values, in one place (as Steininger's c4 keeps them in ``settings.h``).

Each value is a constant that numba compiles into the search (:mod:`openingbook.solver.search`),
so the compiler folds every test on it. None of them changes an answer: they change
how many nodes the search visits and how fast it visits them. The measurements behind
them are in ``benchmarks/DECISIONS.md``.

Where a value depends on how far a position is from the end of its game, it is given
in empty cells, so that it means the same on every board.

numba's on-disk cache of :mod:`openingbook.solver.search` is keyed on that file alone: after
editing a value here, delete the ``__pycache__`` directories of ``openingbook.solver`` (the
native cache, :mod:`openingbook.solver._native`, keys on every ``openingbook.solver`` module and
needs
nothing). A stale copy never answers wrongly: the 7x6 search checks at run time that
the table sizes it was compiled with are those of the solver's table, and raises
``InternalError`` when they are not.
"""

from __future__ import annotations

__all__ = [
    "CALLING_THREAD_NODES",
    "DEEP_EMPTY",
    "ETC_EMPTY",
    "LATER_THREAT_WEIGHT",
    "NEXT_THREAT_WEIGHT",
    "POTENTIAL",
    "PREFETCH",
    "QUERY_EMPTY",
    "QUERY_TABLE_LOG2",
    "SMALL_TABLE_LOG2",
    "SPLIT_START",
    "SYMMETRY_STONES",
    "TABLE_LOG2",
    "THREAT_WEIGHT",
    "TT_EMPTY",
]

# ------------------------------------------------------------- the tables
#: Default entries of the big table (log2): 2**25 = 256 MiB, a worker per core on a
#: 2-core, 24 GiB machine; 2**26 saved 0.17% of nodes and no time.
TABLE_LOG2 = 25
#: Entries of the big table (log2) of a solver that searches positions of at most
#: :data:`QUERY_EMPTY` empty cells (on 7x6, 8 stones or more: an engine's or an oracle's
#: past the books, ``openingbook solve``'s): 2**22 = 32 MiB. Their searches take up to a
#: few million nodes, as many with it as with 2**25 (the 40 random 8-ply positions of
#: ``benchmarks/bench_solver.py``: 107.36 against 107.15 million nodes, the 300 random
#: 12-ply ones 43.85 against 43.84), while a fresh table's pages cost the kernel's time
#: as a search first touches them: 0.5-0.7 s of system time for 2**25's 256 MiB here.
QUERY_TABLE_LOG2 = 22
#: The most empty cells of a position that :data:`QUERY_TABLE_LOG2` serves (7x6: 34, 8
#: stones); emptier ones (the empty board: about 10^9 nodes) get :data:`TABLE_LOG2`.
QUERY_EMPTY = 34
#: Entries of the small table (log2): 2**16 = 512 KiB, half of one core's L2 cache, so
#: the deep nodes' probes stay there (2**18 lives in the shared L3 and lost 18-21%).
SMALL_TABLE_LOG2 = 16
#: Positions with at most this many empty cells use the small table: 17 (25 stones on
#: 7x6) keeps the 22-24-stone positions between neighbouring build positions in the big
#: one (-7% nodes, -15% time).
DEEP_EMPTY = 17
#: The table is probed and stored at nodes with more empty cells than this: -1, every
#: node (no table from 34-38 stones on took up to 1.2% more nodes and was no faster).
TT_EMPTY = -1

# ------------------------------------------------------ bounds and cut-offs
#: The "no four possible any more" bound: one test per node where it can cut; switched
#: off it measured within noise, and it is kept because it can only save nodes.
POTENTIAL = True
#: Enhanced transposition cut-offs at nodes with more empty cells than this: 0, every
#: node (only below 25 or 32 stones took 7-8% more time; 18-30, before fail-soft,
#: 20-42% more nodes).
ETC_EMPTY = 0
#: Prefetch the children's big-table slots before the cut-off probes load them: the
#: loads overlap (25% of the time on the measured positions).
PREFETCH = True
#: Positions with fewer stones are checked for being their own mirror image (and share
#: one table entry with it): 18 took 3-9% fewer nodes than 12; 22 only 0.2-1.5% more.
SYMMETRY_STONES = 18

# ---------------------------------------------------------- move ordering
#: c4's weights of a move's new winning cells: one move from playable (the opponent must
#: block it at once or lose), two moves from playable, and any (useful) winning cell.
NEXT_THREAT_WEIGHT = 12
LATER_THREAT_WEIGHT = 5
THREAT_WEIGHT = 3

# -------------------------------------------------------- parallel search
#: The first window of odd-numbered helper threads (the main thread's is 0): both
#: windows a small win needs are then searched at once.
SPLIT_START = 1

# ---------------------------------------------------------------- calling
#: A search runs in the calling thread first, up to about this many nodes (a few tens
#: of milliseconds: a signal waits that long at most), and only past them in the thread
#: a signal stops (:mod:`openingbook.solver.interrupt`), with the helper threads of a parallel
#: search: handing a search over costs about 40 us, most of the cost of a position
#: answered in a few nodes. A search stopped at the limit goes on there, its table
#: keeping what the first part proved (100,000 nodes restarted 121 of the 1,473 12-ply
#: family positions of ``benchmarks/bench_solver.py``).
CALLING_THREAD_NODES = 1_000_000
