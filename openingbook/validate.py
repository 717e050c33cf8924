"""``openingbook.validate``, kept for one release (CHANGELOG.md): an alias of
:mod:`openingbook.checks.validate`, :mod:`~openingbook.checks.diff`,
:mod:`~openingbook.checks.check` and :mod:`~openingbook.checks.stats`; import from there."""

from openingbook.checks.check import CheckReport, Issue, check_book, solve_book_values
from openingbook.checks.diff import DiffReport, diff_books
from openingbook.checks.report import PositionReport, describe_value
from openingbook.checks.stats import TROMP_COUNTS, StatsReport, book_stats, tromp_subset
from openingbook.checks.validate import ValidationReport, validate_books

__all__ = [
    "TROMP_COUNTS",
    "CheckReport",
    "DiffReport",
    "Issue",
    "PositionReport",
    "StatsReport",
    "ValidationReport",
    "book_stats",
    "check_book",
    "describe_value",
    "diff_books",
    "solve_book_values",
    "tromp_subset",
    "validate_books",
]
