"""``openingbook.convert``, kept for one release (CHANGELOG.md): an alias of
:mod:`openingbook.pipeline.convert`; import from there."""

from openingbook.pipeline.convert import (
    CONVERT_FORMATS,
    ConvertSummary,
    convert_book,
    target_format,
)

__all__ = [
    "CONVERT_FORMATS",
    "ConvertSummary",
    "convert_book",
    "target_format",
]
