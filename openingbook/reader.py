"""``openingbook.reader``, kept for one release (CHANGELOG.md): an alias of the reader
of :mod:`openingbook.formats.thill`, the one module of Thill's format; import from
there (or open any book with :func:`openingbook.open_book`)."""

from openingbook.formats.thill import (
    UNKNOWN,
    WINNER_CODES,
    Book,
    BookValue,
    BulkValues,
    PositionNotInBook,
    describe_book,
    scan_book,
    search_steps,
    thill_records,
    thill_values,
)

__all__ = [
    "UNKNOWN",
    "WINNER_CODES",
    "Book",
    "BookValue",
    "BulkValues",
    "PositionNotInBook",
    "describe_book",
    "scan_book",
    "search_steps",
    "thill_records",
    "thill_values",
]
