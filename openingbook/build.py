"""``openingbook.build``, kept for one release (CHANGELOG.md): an alias of
:mod:`openingbook.pipeline.build`, :mod:`~openingbook.pipeline.enumeration`,
:mod:`~openingbook.pipeline.merge`, :mod:`~openingbook.pipeline.solving` and
:mod:`openingbook.formats` (the writing of solved values); import from there."""

from openingbook.formats import write_solved_book, writes_compact
from openingbook.pipeline.build import (
    MAX_CHUNK_SIZE,
    MIN_CHUNK_SIZE,
    SUPPORTED_PLIES,
    BuildOptions,
    BuildPlan,
    BuildSummary,
    Chunk,
    build_book,
    default_output_name,
    parse_shard,
    plan_build,
)
from openingbook.pipeline.enumeration import parse_part
from openingbook.pipeline.merge import MergeSummary, merge_books, merge_parts
from openingbook.pipeline.solving import ChunkTask, solve_chunk

__all__ = [
    "MAX_CHUNK_SIZE",
    "MIN_CHUNK_SIZE",
    "SUPPORTED_PLIES",
    "BuildOptions",
    "BuildPlan",
    "BuildSummary",
    "Chunk",
    "ChunkTask",
    "MergeSummary",
    "build_book",
    "default_output_name",
    "merge_books",
    "merge_parts",
    "parse_part",
    "parse_shard",
    "plan_build",
    "solve_chunk",
    "write_solved_book",
    "writes_compact",
]
