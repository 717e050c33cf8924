"""A valid manifest for a book file written by a test (as build, merge and derive write)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openingbook.formats.thill import BookFormat, manifest_book_entry, manifest_path


def write_manifest(book: str | Path, fmt: BookFormat, **selection: Any) -> Path:
    """Write ``<book>.json`` describing the file ``book`` as it is now; ``selection``
    overrides entries of the complete selection (``under``, ``sample``, ``shard``)."""
    book = Path(book)
    data = book.read_bytes()
    manifest = {
        **manifest_book_entry(book, fmt, len(data) // fmt.record_bytes, data),
        "selection": {
            "plies": fmt.plies,
            "distances": fmt.distances,
            "under": None,
            "sample": None,
            "seed": None,
            "shard": None,
            **selection,
        },
    }
    path = manifest_path(book)
    path.write_text(json.dumps(manifest))
    return path
