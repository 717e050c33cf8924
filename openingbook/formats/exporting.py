"""``openingbook.formats.exporting``, kept for one release (CHANGELOG.md): an alias of
:mod:`openingbook.pipeline.export`; import from there."""

from openingbook.pipeline.export import EXPORT_FORMATS, ExportSummary, export_book

__all__ = [
    "EXPORT_FORMATS",
    "ExportSummary",
    "export_book",
]
