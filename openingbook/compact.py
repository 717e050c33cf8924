"""``openingbook.compact``, kept for one release (CHANGELOG.md): an alias of
:mod:`openingbook.formats.compact`, the compact format's one module; import from there."""

from openingbook.formats.compact import (
    COMPACT_SUFFIX,
    KINDS,
    MAGIC,
    STATUS_OUT_OF_SCOPE,
    CompactBook,
    CompactFileError,
    CompactFormat,
    CompactHeader,
    canonical_keys,
    describe_compact,
    file_crc32,
    is_compact,
    provenance,
    write_compact,
)

__all__ = [
    "COMPACT_SUFFIX",
    "KINDS",
    "MAGIC",
    "STATUS_OUT_OF_SCOPE",
    "CompactBook",
    "CompactFileError",
    "CompactFormat",
    "CompactHeader",
    "canonical_keys",
    "describe_compact",
    "file_crc32",
    "is_compact",
    "provenance",
    "write_compact",
]
