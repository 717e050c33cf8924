"""``openingbook.manifest``, kept for one release (CHANGELOG.md): an alias of the
manifest and book identity of :mod:`openingbook.formats.thill`, the one module of
Thill's format (``Scope`` and ``require_board``: :mod:`openingbook.model`); import
from there."""

from openingbook.formats.thill import (
    COMPLETE_AT_LEAST,
    COMPLETE_RECORDS,
    LAYOUT_VERSION,
    MANIFEST_MARK,
    BookIdentity,
    Manifest,
    check_output,
    clean_command,
    detect_format,
    file_sha256,
    identify,
    load_manifest,
    manifest_book_entry,
    manifest_path,
    manifest_provenance,
    read_manifest,
    recorded_command,
    scope_without_manifest,
    write_book_and_manifest,
)
from openingbook.model import Scope, require_board

__all__ = [
    "COMPLETE_AT_LEAST",
    "COMPLETE_RECORDS",
    "LAYOUT_VERSION",
    "MANIFEST_MARK",
    "BookIdentity",
    "Manifest",
    "Scope",
    "check_output",
    "clean_command",
    "detect_format",
    "file_sha256",
    "identify",
    "load_manifest",
    "manifest_book_entry",
    "manifest_path",
    "manifest_provenance",
    "read_manifest",
    "recorded_command",
    "require_board",
    "scope_without_manifest",
    "write_book_and_manifest",
]
