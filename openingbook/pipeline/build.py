"""The build pipeline: enumerate, solve in resumable chunks, write the book and its manifest.

:func:`build_book` turns a :class:`BuildOptions` into a book file:

1. **Plan** (:func:`plan_build`): the book positions of the ply
   (:func:`openingbook.solver.enumerate_positions`, grouped by parent line), optionally only
   those under a line (``under``) and a random sample of them (``sample``,
   ``seed``), cut into chunks of consecutive positions (related positions share
   a solver table). ``shard=(i, n)`` keeps the i-th of n contiguous runs of
   chunks (contiguous, so that a shard's chunks share their solver tables too).
   Chunk ids and contents depend only on the options, never on the machine.
2. **Solve** every chunk not already saved in the work directory
   (:class:`openingbook.pipeline.workdir.WorkDir`) on an executor
   (:mod:`openingbook.pipeline.executors`), one solver and table per worker
   (:mod:`openingbook.pipeline.solving`): exact
   scores for distance books, win/draw/loss otherwise. Each finished chunk is
   saved atomically with a checksum; a rerun skips whole chunks and recomputes
   damaged ones.
3. **Write**: the solved values as a book model
   (:func:`openingbook.model.model_from_values`), written by the ``write`` of the
   output's format (:func:`openingbook.formats.registry.solved_book_writer`):
   Thill's layout (first-player wins pruned in non-distance books, keys encoded,
   records sorted) with its manifest ``<output>.json`` as one unit, or the compact
   format with the manifest's content in its metadata.

Shard outputs are books of their own; :func:`openingbook.pipeline.merge.merge_books`
combines all ``n`` of them into the book a single run writes, byte for byte.

Book values (see ``FORMATS.md`` and :mod:`openingbook.values`): pruned books
store 0 (draw), 1 (second player wins), 2 (first player wins, dropped by
pruning); distance books the signed distance byte.

>>> opts = BuildOptions(plies=10, under="44444433", board=BoardSize(7, 6))
>>> plan = plan_build(opts)
>>> plan.total_positions, len(plan.chunks) >= 1
(14, True)
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from openingbook.atomicio import refuse_input_as_output
from openingbook.booknames import distance_book_name
from openingbook.codec import MAX_ARRAY_HEIGHT
from openingbook.counts import outcomes, value_histogram
from openingbook.errors import (
    InvalidArgument,
    WorkerLost,
)
from openingbook.formats import Format, open_book
from openingbook.formats.registry import (
    book_files,
    check_compact_output,
    check_output,
    layout_name,
    solved_book_writer,
)
from openingbook.memory import check_table_size, default_jobs, worker_count
from openingbook.model import Scope, model_from_values
from openingbook.pipeline.enumeration import parse_part
from openingbook.pipeline.executors import (
    EXECUTOR_NAMES,
    Executor,
    make_executor,
    require_dask,
)
from openingbook.pipeline.solving import (
    ChunkTask,
    init_worker,
    load_worker_kernel,
    parent_lower_bounds,
    solve_chunk,
    start_worker_kernel,
)
from openingbook.pipeline.workdir import ChunkResult, WorkDir, is_own_file_name
from openingbook.provenance import manifest_provenance
from openingbook.solver import DEFAULT_BOARD, BoardSize, Position, enumerate_positions

__all__ = [
    "MAX_CHUNK_SIZE",
    "MIN_CHUNK_SIZE",
    "PART_PLIES",
    "SUPPORTED_PLIES",
    "BuildOptions",
    "BuildPlan",
    "BuildSummary",
    "Chunk",
    "build_book",
    "default_output_name",
    "parse_shard",
    "plan_build",
]

#: Plies a build accepts (book positions have the first player to move).
SUPPORTED_PLIES = tuple(range(2, 17, 2))
#: Plies a part of a ply accepts (``--part``; written compact, which holds either
#: side to move, as the derived odd-ply books).
PART_PLIES = tuple(range(1, 17))
#: Bounds of the automatic chunk size (about 64 chunks per build in between).
MIN_CHUNK_SIZE = 16
MAX_CHUNK_SIZE = 1024
#: Version of the work directory layout.
LAYOUT_VERSION = 1
#: Positions a build must have for the shipped parent book's bounds (``parent_book=True``):
#: the bounds save 15-20% of the search's CPU (1-2 s on builds of 450 and 2,519
#: positions), the book reader's first compile costs about 9 s once
#: (``benchmarks/DECISIONS.md``, "Parent bounds on small builds").
PARENT_BOUNDS_MIN_POSITIONS = 20_000


# ---------------------------------------------------------------- options, plan
_SHARD_FORM = "expected i/n with 1 <= i <= n, e.g. 1/4"


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/5"`` -> ``(2, 5)``: the 2nd of 5 shards (1-based).

    >>> parse_shard("1/4")
    (1, 4)
    >>> parse_shard("0/4")
    Traceback (most recent call last):
    ...
    openingbook.solver.errors.InvalidArgument: shard 0/4: expected i/n with 1 <= i <= n, e.g. 1/4
    """
    parts = text.strip().split("/")
    try:
        i, n = (int(p) for p in parts)
    except ValueError:
        raise InvalidArgument(_SHARD_FORM, argument="shard", value=text) from None
    if not 1 <= i <= n:
        raise InvalidArgument(_SHARD_FORM, argument="shard", value=text)
    return i, n


@dataclass(frozen=True)
class BuildOptions:
    """What to build. Everything here decides the chunks and the book bytes.

    ``under``: a 1-based move string; only positions reached by continuing it.
    ``shard``: ``(i, n)``, the i-th (1-based) of n shards. ``sample``: solve this
    many positions picked at random (``seed``) instead of all. ``chunk_size``:
    positions per chunk, ``None`` for automatic. ``board``: the board size
    (7x6 by default; other sizes are written in the compact format only).
    ``part``: ``(i, n)``, part ``i`` of ``n`` of the ply (positions whose canonical
    key hashes to ``i``, :func:`openingbook.solver.part_of`): enumerated alone in bounded
    memory, written as a compact book that answers only its part.
    """

    plies: int
    distances: bool = False
    under: str | None = None
    shard: tuple[int, int] | None = None
    sample: int | None = None
    seed: int = 0
    chunk_size: int | None = None
    part: tuple[int, int] | None = None
    #: the board (a keyword): the CLI's ``--size``, ``openingbook.solver.DEFAULT_BOARD`` for 7x6
    board: BoardSize = field(kw_only=True)

    def validate(self) -> None:
        """Raise ``ValueError`` with a one-line reason when the options make no build."""
        if self.part is not None:
            value = f"{self.part[0]}/{self.part[1]}"
            parse_part(value)
            if self.under or self.shard is not None or self.sample is not None:
                raise InvalidArgument(
                    "a part splits the whole ply: not with --under, --shard or --sample",
                    argument="part",
                    value=value,
                )
        if self.plies not in (SUPPORTED_PLIES if self.part is None else PART_PLIES):
            raise InvalidArgument(
                "books are built for an even number of plies "
                f"from {SUPPORTED_PLIES[0]} to {SUPPORTED_PLIES[-1]} (a part, --part I/N: "
                f"any number from {PART_PLIES[0]} to {PART_PLIES[-1]})",
                argument="plies",
                value=self.plies,
            )
        if self.plies >= self.board.cells:
            raise InvalidArgument(
                f"a {self.board} board has {self.board.cells} cells: a book needs fewer plies",
                argument="plies",
                value=self.plies,
            )
        if self.board.height > MAX_ARRAY_HEIGHT:
            raise InvalidArgument(
                f"books take boards of at most {MAX_ARRAY_HEIGHT} rows (the column code's tables)",
                argument="size",
                value=str(self.board),
            )
        if self.board != DEFAULT_BOARD and (self.shard is not None or self.sample is not None):
            raise InvalidArgument(
                f"a {self.board} book is written in the compact format, which holds whole "
                "books (or --under a line) only: split the work with --under, or resume",
                argument="shard" if self.shard is not None else "sample",
                value=f"{self.shard[0]}/{self.shard[1]}" if self.shard else self.sample,
            )
        if self.under:
            if len(self.under) > self.plies:
                raise InvalidArgument(
                    f"{len(self.under)} moves, more than the {self.plies} plies of the book",
                    argument="under",
                    value=self.under,
                )
            try:
                Position.from_moves(self.under, *self.board)
            except ValueError as exc:
                raise InvalidArgument(str(exc), argument="under", value=self.under) from None
        if self.shard is not None:
            i, n = self.shard
            if not 1 <= i <= n:
                raise InvalidArgument(_SHARD_FORM, argument="shard", value=f"{i}/{n}")
        if self.sample is not None and self.sample < 1:
            raise InvalidArgument("must be at least 1", argument="sample", value=self.sample)
        if self.chunk_size is not None and self.chunk_size < 1:
            raise InvalidArgument(
                "must be at least 1", argument="chunk_size", value=self.chunk_size
            )

    def scope(self) -> Scope:
        """Which positions of the ply the build's book holds (:class:`Scope`)."""
        partial = None
        if self.sample is not None:
            partial = f"a sample of {self.sample} positions"
        elif self.shard is not None:
            partial = f"shard {self.shard[0]}/{self.shard[1]}"
        elif self.part is not None:
            partial = f"part {self.part[0]}/{self.part[1]}"
        return Scope(self.under or None, partial, board=self.board)

    @property
    def exact(self) -> bool:
        """Exact scores are needed (distance books); otherwise win/draw/loss."""
        return self.distances

    def selection(self) -> dict[str, Any]:
        """The options as a JSON-able dict (work directory settings, manifests)."""
        # the board only when not 7x6: 7x6 settings stay those of earlier versions
        board = {} if self.board == DEFAULT_BOARD else {"board": str(self.board)}
        # the part only when given: the settings of other builds stay as they were
        part = {} if self.part is None else {"part": f"{self.part[0]}/{self.part[1]}"}
        return {
            **part,
            **board,
            "plies": self.plies,
            "distances": self.distances,
            "under": self.under or None,
            "sample": self.sample,
            "seed": self.seed if self.sample is not None else None,
            "shard": None if self.shard is None else f"{self.shard[0]}/{self.shard[1]}",
        }


@dataclass(frozen=True)
class Chunk:
    """Positions ``start:stop`` of the plan's arrays, solved and saved as one unit."""

    chunk_id: int
    start: int
    stop: int

    def __len__(self) -> int:
        return self.stop - self.start


@dataclass
class BuildPlan:
    """The positions of a build and their chunks (see :func:`plan_build`).

    ``first``/``mask`` hold the selected positions (after ``under`` and
    ``sample``); ``chunks`` are the ones this build (shard) solves.
    """

    options: BuildOptions
    first: np.ndarray
    mask: np.ndarray
    total_positions: int
    chunk_size: int
    chunk_count: int
    chunks: list[Chunk] = field(default_factory=list)

    @property
    def selected_positions(self) -> int:
        """Positions after ``under`` and ``sample``, before sharding."""
        return len(self.first)

    @property
    def positions(self) -> int:
        """Positions this build (shard) solves."""
        return sum(len(c) for c in self.chunks)

    def chunk_arrays(self, chunk: Chunk) -> tuple[np.ndarray, np.ndarray]:
        return self.first[chunk.start : chunk.stop], self.mask[chunk.start : chunk.stop]

    def work_settings(self) -> dict[str, Any]:
        """What the chunks depend on; a work directory is tied to these."""
        return {
            "layout": LAYOUT_VERSION,
            **self.options.selection(),
            "chunk_size": self.chunk_size,
        }


def auto_chunk_size(positions: int) -> int:
    """About 64 chunks, each of 16 to 1024 positions.

    >>> auto_chunk_size(300), auto_chunk_size(2000), auto_chunk_size(4_200_899)
    (16, 32, 1024)
    """
    return max(MIN_CHUNK_SIZE, min(MAX_CHUNK_SIZE, math.ceil(positions / 64)))


def plan_build(options: BuildOptions) -> BuildPlan:
    """Enumerate, sample and chunk the positions of a build (deterministic).

    Raises ``ValueError`` for invalid options or when nothing is left to solve.
    """
    options.validate()
    first, mask = enumerate_positions(
        options.plies, options.under or None, *options.board, part=options.part
    )
    first = np.ascontiguousarray(first, dtype=np.uint64)
    mask = np.ascontiguousarray(mask, dtype=np.uint64)
    total = len(first)
    where = f" under {options.under}" if options.under else ""
    if total == 0:
        raise InvalidArgument(f"no {options.plies}-ply book positions{where}")
    if options.sample is not None:
        if options.sample > total:
            raise InvalidArgument(
                f"only {total} {options.plies}-ply positions{where}",
                argument="sample",
                value=options.sample,
            )
        rng = np.random.default_rng(options.seed)
        # sorted: the sample keeps the enumeration's grouping by parent line
        picked = np.sort(rng.choice(total, size=options.sample, replace=False))
        first, mask = first[picked], mask[picked]
    size = options.chunk_size or auto_chunk_size(len(first))
    count = math.ceil(len(first) / size)
    chunks = [Chunk(c, c * size, min(len(first), (c + 1) * size)) for c in range(count)]
    if options.shard is not None:
        i, n = options.shard
        chunks = chunks[(i - 1) * count // n : i * count // n]
        if not chunks:
            raise InvalidArgument(
                f"the build has only {count} chunks, so this shard is "
                "empty; use fewer shards or a smaller chunk size",
                argument="shard",
                value=f"{i}/{n}",
            )
    return BuildPlan(options, first, mask, total, size, count, chunks)


# ---------------------------------------------------------------- build
@dataclass
class BuildSummary:
    """What a build did (also the ``--json`` output)."""

    output: str
    manifest: str
    format: str
    records: int
    positions: int
    positions_solved: int
    chunks: int
    chunks_resumed: int
    wall_seconds: float
    cpu_seconds: float
    positions_per_second: float
    values: dict[str, int]
    #: the book whose scores bounded the positions' from below (None: none)
    parent_book: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def default_output_name(options: BuildOptions, compact: bool = False) -> str:
    """``book12-dist-under44-shard1of4.dat``-style name for a build's output.

    >>> default_output_name(BuildOptions(plies=12, distances=True, board=BoardSize(7, 6)))
    'book12-dist.dat'
    >>> board = BoardSize(7, 6)
    >>> default_output_name(BuildOptions(plies=8, under="44", sample=10, seed=3, board=board))
    'book8-under44-sample10-seed3.dat'
    """
    name = f"book{options.plies}"
    if options.distances:
        name += "-dist"
    if options.under:
        name += f"-under{options.under}"
    if options.sample is not None:
        name += f"-sample{options.sample}-seed{options.seed}"
    if options.shard is not None:
        name += f"-shard{options.shard[0]}of{options.shard[1]}"
    if options.board != DEFAULT_BOARD:
        name += f"-{options.board}"
    if options.part is not None:  # parts are compact books
        i, n = options.part
        return name + f"-part{i:0{len(str(n))}d}of{n}.c4b"
    return name + (".c4b" if compact else ".dat")


def build_book(
    output: str | os.PathLike[str] | None,
    options: BuildOptions,
    *,
    work_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    executor: str = "pool",
    scheduler: str | None = None,
    table_log2: int | None = None,
    force: bool = False,
    keep_work: bool = False,
    progress: bool | TextIO = True,
    command: Sequence[str] | None = None,
    on_chunk: Callable[[ChunkResult], None] | None = None,
    format: Format | str | None = None,
    parent_book: str | os.PathLike[str] | bool = True,
) -> BuildSummary:
    """Build a book (or a shard/sample of one) and its manifest; see the module docstring.

    ``output`` defaults to :func:`default_output_name` in the current directory,
    ``work_dir`` to ``<output>.work`` (a new, empty or resumable directory;
    after success its own files are deleted, and the directory if the build
    created it, unless ``keep_work``: :class:`openingbook.pipeline.workdir.WorkDir`).
    ``jobs`` defaults to the usable cores; ``executor`` is
    ``"pool"`` or ``"dask"`` (``scheduler`` = address of a running cluster,
    else a local one). ``command`` is recorded in the manifest (default
    ``sys.argv``). ``progress``: the bar on stderr, or on the text stream given (the
    command line gives a log one that writes a line every few seconds). ``on_chunk``
    is called in the main process after each chunk is saved. ``format``: the format
    the book is written in (a registry entry, or its name): Thill's layout (7x6 only,
    with a manifest) or the compact format (:mod:`openingbook.formats.compact`, the
    build's record in its metadata); default: compact for an output ending in ``.c4b``
    (:func:`openingbook.formats.registry.solved_book_writer`).
    ``parent_book``: a distance book of the ply before (a name or a path) whose scores
    bound the positions' scores from below (:func:`parent_lower_bounds`: the same
    values, found with fewer windows); its values are trusted, so give only a checked
    book. True (the default): the shipped one of the board, if there is one and the
    build has :data:`PARENT_BOUNDS_MIN_POSITIONS` positions or more; False: none.
    Raises ``ValueError``/``OSError`` for bad input, before any work.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     options = BuildOptions(10, under="44444433", board=BoardSize(7, 6))
    ...     s = build_book(os.path.join(tmp, "b.dat"), options, jobs=1, progress=False)
    ...     s.positions, s.records + s.values.get("first", 0)
    (14, 14)
    """
    wall_start = time.perf_counter()
    main_cpu_start = time.process_time()
    options.validate()
    if executor not in EXECUTOR_NAMES:
        raise InvalidArgument(
            f"choose one of {', '.join(EXECUTOR_NAMES)}", argument="executor", value=executor
        )
    if jobs is not None and jobs < 1:
        raise InvalidArgument("must be at least 1", argument="jobs", value=jobs)
    if scheduler and executor != "dask":
        raise InvalidArgument("needs the dask executor", argument="scheduler", value=scheduler)
    if executor == "dask":
        require_dask()
    # tables on this machine (a scheduler's workers are elsewhere): refused before any work
    check_table_size(table_log2, 0 if scheduler else jobs or default_jobs())
    _check_solver_board(options.board)
    layout = layout_name(options.plies, options.distances, options.board)
    # a part is written in the format that holds parts, whatever the format asked for
    writer = solved_book_writer(output, format, options.board, options.part)
    compact = not writer.holds_samples  # a whole book, or its positions under a line
    if compact and (options.shard is not None or options.sample is not None):
        raise InvalidArgument(
            "a compact book holds a whole book (or the positions under a line): build the "
            "shards in Thill's layout, merge them, then convert",
            argument="shard" if options.shard is not None else "sample",
        )
    out = Path(output or default_output_name(options, compact))
    work_dir_path = Path(work_dir) if work_dir else out.with_name(out.name + ".work")
    # the work directory and its files are the build's resume inputs
    outputs = book_files(out, writer)
    work_files = [work_dir_path / p.name for p in outputs if is_own_file_name(p.name)]
    refuse_input_as_output(outputs, [work_dir_path, *work_files])
    if options.part is not None:
        check_compact_output(out, force, "a part is written")
    else:
        check_output(writer, out, force)
    parents_name = _parent_book_name(options, parent_book)
    parent_recorded = None if parents_name is None else str(parents_name)
    with contextlib.ExitStack() as books:
        parents = None if parents_name is None else books.enter_context(open_book(parents_name))
        if parents is not None:  # refused before any work
            _check_parent_book(parents, options, parents_name)
        if not scheduler:  # a first use compiles the workers' kernel while this enumerates
            start_worker_kernel(options.board)
        plan = plan_build(options)
        if parent_book is True and plan.positions < PARENT_BOUNDS_MIN_POSITIONS:
            parents = parent_recorded = None  # a small build: not worth the reader's compile
        if not scheduler:  # local workers: no more than the chunks or the memory, checked
            jobs = worker_count(jobs, table_log2, len(plan.chunks))  # before anything is written
        wd = books.enter_context(WorkDir.open(work_dir_path, plan.work_settings()))
        results: dict[int, ChunkResult] = {}
        todo: list[ChunkTask] = []
        for chunk in plan.chunks:
            first, mask = plan.chunk_arrays(chunk)
            saved = wd.load_chunk(chunk.chunk_id)
            if saved is not None and _same_positions(saved, first, mask):
                results[chunk.chunk_id] = saved
            else:
                wd.discard_chunk(chunk.chunk_id)  # damaged or from another enumeration
                todo.append(
                    ChunkTask(
                        chunk.chunk_id,
                        first,
                        mask,
                        options.plies,
                        options.exact,
                        table_log2,
                        options.board,
                        None if parents is None else parent_lower_bounds(parents, first, mask),
                    )
                )
        resumed = len(results)
        resumed_positions = sum(len(r) for r in results.values())

        solve_cpu = 0.0
        workers = jobs or default_jobs()  # what would have run, if every chunk was resumed
        with contextlib.ExitStack() as stack:
            # the executor first: a cluster that cannot be reached fails before any output
            ex = None
            if todo and not scheduler:
                # the workers are on this machine: they load the kernel this process
                # compiles (or loads) now, instead of each compiling it
                load_worker_kernel(options.board)
            if todo:
                if jobs is not None:  # and no more than the chunks left after resuming
                    jobs = min(jobs, len(todo))
                ex = stack.enter_context(
                    make_executor(
                        executor,
                        jobs,
                        scheduler,
                        initializer=init_worker,
                        initargs=(table_log2, options.board),
                    )
                )
                workers = ex.workers
            bar = _progress_bar(
                plan.positions, resumed_positions, resumed, len(plan.chunks), progress
            )
            stack.callback(bar.close)
            for result in _results(ex, todo, wd.path):
                wd.save_chunk(result)
                results[result.chunk_id] = result
                solve_cpu += result.cpu_seconds
                _chunk_landed(bar, len(result), len(results), len(plan.chunks), resumed)
                if on_chunk is not None:
                    on_chunk(result)

        ordered = [results[c.chunk_id] for c in plan.chunks]
        first = np.concatenate([r.first for r in ordered])
        mask = np.concatenate([r.mask for r in ordered])
        values = np.concatenate([r.values for r in ordered])  # the solver's value codes
        model = model_from_values(
            "distance" if options.distances else "pruned",
            options.plies,
            first,
            mask,
            values,
            board=options.board,
            scope=options.scope(),
        )
        del first, mask, values
        histogram = value_histogram(model)  # of all positions, pruned ones included
        wall = time.perf_counter() - wall_start
        solved = plan.positions - resumed_positions
        content = {
            "selection": options.selection(),
            "values": histogram,
            "positions": {
                "book_total": plan.total_positions,
                "selected": plan.selected_positions,
                "in_output": plan.positions,
                "solved_this_run": solved,
                "resumed": resumed_positions,
            },
            "chunks": {
                "size": plan.chunk_size,
                "count_all": plan.chunk_count,
                "in_output": len(plan.chunks),
                "resumed": resumed,
            },
            "solver": {
                "search": "exact score" if options.exact else "win/draw/loss",
                "table_log2": table_log2,
                "executor": executor
                if executor == "dask"
                else ("pool" if workers > 1 else "serial"),
                "workers": workers,
                "parent_book": parent_recorded,
            },
            "time": {
                "wall_seconds": round(wall, 3),
                "solve_cpu_seconds": round(sum(r.cpu_seconds for r in ordered), 3),
                "solve_cpu_seconds_this_run": round(solve_cpu, 3),
                "main_cpu_seconds": round(time.process_time() - main_cpu_start, 3),
            },
            **manifest_provenance(command),
        }
        written = writer.write(model, out, force=force, record=content, part=options.part)
        if not keep_work:
            wd.remove()  # our own files only, and the directory if we made it
        return BuildSummary(
            output=str(out),
            manifest=str(written.manifest or ""),
            format=layout if options.part is None else writer.name,
            records=written.records,
            positions=plan.positions,
            positions_solved=solved,
            chunks=len(plan.chunks),
            chunks_resumed=resumed,
            wall_seconds=round(wall, 3),
            cpu_seconds=round(solve_cpu, 3),
            positions_per_second=round(solved / wall, 2) if wall > 0 else 0.0,
            values=outcomes(histogram),
            parent_book=parent_recorded,
        )


def _results(ex: Executor | None, todo: list[ChunkTask], work_dir: Path) -> Iterator[ChunkResult]:
    """The executor's results; a lost worker becomes one line naming it, its chunk and
    how to resume (the chunks finished so far are saved)."""
    if ex is None:
        return
    try:
        yield from ex.map_unordered(solve_chunk, todo)
    except WorkerLost as exc:
        chunk = f" while solving chunk {exc.task.chunk_id}" if exc.task is not None else ""
        detail = (
            f"{chunk}; the finished chunks are saved in {work_dir}: run the same command "
            "again to resume (with fewer jobs or a smaller table if memory ran out)"
        )
        raise WorkerLost(exc.worker, exc.exitcode, exc.task, detail) from None


def _parent_book_name(
    options: BuildOptions, parent_book: str | os.PathLike[str] | bool
) -> str | os.PathLike[str] | None:
    """The book whose scores bound the build's from below (see :func:`build_book`):
    the shipped distance book of the ply before on the build's board, when asked for and
    shipped; None for none."""
    if parent_book is False:
        return None
    if parent_book is not True:
        return parent_book
    return distance_book_name(options.plies - 1, options.board)


def _check_parent_book(parents: Any, options: BuildOptions, name: Any) -> None:
    """Refuse a parent book of another board or ply, or one without scores."""
    problem = None
    if parents.board != options.board:
        problem = f"a {parents.board} book, the build is of {options.board}"
    elif parents.plies != options.plies - 1:
        problem = f"a book of {parents.plies} plies, the build needs one of {options.plies - 1}"
    elif not parents.has_distances:
        problem = "a win/draw/loss book: the bounds need its scores (a distance book)"
    if problem is not None:
        raise InvalidArgument(problem, argument="parent_book", value=str(name))


def _check_solver_board(board: BoardSize) -> None:
    """Refuse, before any work, a board the solver does not take (its own reason)."""
    from openingbook.solver import check_board_size

    try:
        check_board_size(board.width, board.height)
    except ValueError as exc:
        raise InvalidArgument(str(exc), argument="size", value=str(board)) from None


def _same_positions(saved: ChunkResult, first: np.ndarray, mask: np.ndarray) -> bool:
    return np.array_equal(saved.first, first) and np.array_equal(saved.mask, mask)


#: the bar until the first chunk lands: the workers start, load the solver (this
#: process compiled it for workers on this machine, :func:`load_worker_kernel`) and
#: solve their first chunks; no rate or ETA until there is work done to measure
_STARTING_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"


def _progress_bar(total: int, done: int, resumed: int, chunks: int, enabled: bool | TextIO) -> Any:
    """The build's progress bar on stderr: "solving", without rate or ETA until the
    first chunk lands (:func:`_chunk_landed`), then with both.

    The rate is the positions solved in this run over the time since the bar started
    (the workers were started just before): resumed positions (``done``, the bar's
    ``initial``) are not work of this run, and tqdm's smoothed rate of chunky updates
    (a whole chunk landing a moment after the previous one) is not a rate of work, so
    smoothing is off: tqdm then shows ``(n - initial) / elapsed``."""
    from tqdm import tqdm

    bar = tqdm(
        total=total,
        initial=done,
        unit="pos",
        desc="solving",
        file=sys.stderr if isinstance(enabled, bool) else enabled,
        disable=not enabled,
        dynamic_ncols=True,
        smoothing=0,
        bar_format=_STARTING_FORMAT,
    )
    bar.set_postfix_str(_chunks_postfix(resumed, chunks, resumed), refresh=False)
    return bar


def _chunks_postfix(landed: int, chunks: int, resumed: int) -> str:
    return f"chunks {landed}/{chunks}, resumed {resumed}"


def _chunk_landed(bar: Any, positions: int, landed: int, chunks: int, resumed: int) -> None:
    """A chunk of ``positions`` landed (``landed`` of ``chunks``, resumed ones included):
    the bar counts it, with the rate and the time left from the first one of this run."""
    if bar.disable:
        return
    bar.set_postfix_str(_chunks_postfix(landed, chunks, resumed), refresh=False)
    bar.bar_format = None  # tqdm's default: rate and ETA
    bar.update(positions)
