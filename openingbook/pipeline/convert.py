"""Conversion between Thill's book layout and the compact format, both ways: the book
loaded as a model (:func:`openingbook.formats.load_book`) and written by the target
format's ``write``.

Thill -> compact: every position the book answers for, with its value
(:func:`openingbook.formats.load_book`: a pruned book gets its left-out
first-player wins back by enumeration, within the scope its manifest records),
written by the registry's compact writer. Samples and shards of a
book cannot be completed and are refused. The source's identity (file name,
size, sha256, format) and its manifest travel in the compact file's metadata.

Compact -> compact: the book re-encoded in the compact format's current version (a
version 2 book into version 3), every position's stored value read from the source and
written again; the metadata kept (the provenance, ``source_manifest``) with a
``reencoded`` record of the source file added.

Compact -> Thill: the book model (:func:`openingbook.formats.load_book`) written by
the registry's Thill writer, the one every Thill-layout book goes through, so a book
this project built comes back byte for byte; its manifest is restored from the
metadata when the book's sha256 matches, else a new one is written.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from openingbook.atomicio import refuse_input_as_output
from openingbook.errors import (
    BookFileError,
    BookFileMissing,
    InvalidArgument,
    OutputError,
    reads_book,
)
from openingbook.formats import Format
from openingbook.formats.compact import CompactBook
from openingbook.formats.registry import (
    as_format,
    book_files,
    check_output,
    detect_own,
    layout_name,
    load_book,
    open_book,
    output_format,
    own_formats,
)
from openingbook.model import require_complete_model
from openingbook.provenance import file_sha256, manifest_provenance

__all__ = [
    "CONVERT_FORMATS",
    "ConvertSummary",
    "convert_book",
    "target_format",
]

#: the names of the formats convert writes (``--format``'s choices)
CONVERT_FORMATS = tuple(f.name for f in own_formats())


@dataclass
class ConvertSummary:
    """What :func:`convert_book` wrote."""

    source: str
    output: str
    source_format: str
    output_format: str
    positions: int
    source_bytes: int
    output_bytes: int
    manifest: str | None
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def target_format(output: str | os.PathLike[str], format: Format | str | None) -> Format:
    """The format convert writes: ``format`` (Thill's layout or compact), else the one the
    output's name tells (``.c4b`` compact, ``.dat`` Thill); a name of another format
    refused (:func:`openingbook.formats.registry.output_format`)."""
    chosen = None if format is None else as_format(format)
    return output_format(output, chosen, writes=own_formats(), default=None, board=None)


@reads_book
def convert_book(
    source: str | os.PathLike[str],
    output: str | os.PathLike[str],
    format: Format | str | None = None,
    *,
    force: bool = False,
    command: Sequence[str] | None = None,
) -> ConvertSummary:
    """Convert ``source`` (Thill or compact) into ``output`` in the other format.

    ``format`` (a registry entry, or its name: compact or thill) defaults to the
    output's extension. The book is loaded as a model and written by the target format's
    ``write``. Raises :class:`BookFileError` for a conversion that cannot be exact (a
    sample or a shard, a distance book missing positions); what the OS refuses is
    ``BookFileUnreadable`` or ``OutputUnwritable`` (both also ``OSError``).
    """
    import time

    start = time.perf_counter()
    src, out = Path(source), Path(output)
    if not src.is_file():
        raise BookFileMissing(src)
    target = target_format(out, format)
    source_format = detect_own(
        src,
        "convert",
        "Thill and compact books (other engines' formats are written by 'openingbook export')",
    )
    if source_format is target and not target.reencodes:
        raise InvalidArgument(
            f"{src} is already a {target.name} book: convert it to the other format"
        )
    # nothing is ever written over what is read: the book, nor its manifest
    refuse_input_as_output(book_files(out), book_files(src))
    check_output(target, out, force)  # before the book is read
    if source_format is target:
        positions, manifest = _reencode_compact(src, out, force, command)
    elif target.separate_manifest:
        positions, manifest = _with_manifest(src, source_format, target, out, force, command)
    else:
        positions, manifest = _with_metadata(src, source_format, target, out, force, command)
    return ConvertSummary(
        str(src),
        str(out),
        source_format.name,
        target.name,
        positions,
        src.stat().st_size,
        out.stat().st_size,
        manifest,
        round(time.perf_counter() - start, 3),
    )


def _with_metadata(
    src: Path,
    source: Format,
    target: Format,
    out: Path,
    force: bool,
    command: Sequence[str] | None,
) -> tuple[int, None]:
    """A book of Thill's layout written compact: the source's identity and manifest
    travel in the metadata."""
    with open_book(src, source) as reader:
        if reader.scope.partial:
            raise BookFileError(
                f"{src}: the book is {reader.scope.partial}, not complete for its ply or "
                "line: a compact book must answer every position of its scope (merge the "
                "shards first)"
            )
        layout = layout_name(int(reader.plies or 0), reader.kind != "wdl", reader.board)
    book = load_book(src, source)
    require_complete_model(book)
    metadata: dict[str, Any] = {
        "source": {
            "file": src.name,
            "bytes": src.stat().st_size,
            "sha256": file_sha256(src),
            "format": layout,
        },
        "source_manifest": source.record_of(src),
        "converted": manifest_provenance(command),
    }
    try:
        target.write(book, out, metadata=metadata, force=force)
    except OutputError:
        raise  # about the output, not the source: as every command says it
    except ValueError as exc:
        raise BookFileError(f"{src}: {exc}") from None
    return len(book), None


def _reencode_compact(
    src: Path, out: Path, force: bool, command: Sequence[str] | None
) -> tuple[int, None]:
    """Write the compact book ``src`` again, in the compact format's current version."""
    from openingbook.formats.compact import VERSION, write_compact

    with CompactBook(src) as book:  # the checksum first: a damaged book is refused
        h = book.header
        if h.version == VERSION:
            raise InvalidArgument(
                f"{src} is already a version {VERSION} compact book: nothing to re-encode"
            )
        first, mask = book.positions()
        values = book.values_of(first, mask)
    metadata = {
        **h.metadata,
        "reencoded": {
            "file": src.name,
            "bytes": src.stat().st_size,
            "sha256": file_sha256(src),
            "from_version": h.version,
            "to_version": VERSION,
            **manifest_provenance(command),
        },
    }
    positions = int(first.size)
    write_compact(
        out,
        h.plies,
        h.kind,
        first,
        mask,
        values,
        under=h.line,
        part=h.part,
        metadata=metadata,
        force=force,
        board=h.board,
    )
    return positions, None


#: The keys of a manifest that describe the book file itself (written with it).
_ENTRY_KEYS = ("manifest", "layout", "format", "book")


def _with_manifest(
    src: Path,
    source: Format,
    target: Format,
    out: Path,
    force: bool,
    command: Sequence[str] | None,
) -> tuple[int, str]:
    """A compact book written in Thill's layout: its manifest is the one saved in the
    metadata when it is of these bytes, else a new one."""
    model = load_book(src, source)
    if model.scope.partial:  # its positions alone would read as a complete book
        raise BookFileError(
            f"{src}: {model.scope.partial} of a book: merge the parts first ('openingbook merge')"
        )
    saved = source.record_of(src)

    def record(entry: dict[str, Any]) -> dict[str, Any]:
        """The manifest's content: the one saved in the metadata when it is of these bytes
        (or of a book written straight by build or derive), else a new one."""
        saved_book = saved.get("book") if isinstance(saved, dict) else None
        # written straight by build or derive: the record of the build, no Thill file behind it
        made = (
            isinstance(saved, dict)
            and saved_book is None
            and isinstance(saved.get("selection"), dict)
            and "distances" in saved["selection"]
            and "part" not in saved["selection"]
        )
        if made or (
            isinstance(saved_book, dict) and saved_book.get("sha256") == entry["book"]["sha256"]
        ):
            return {k: v for k, v in saved.items() if k not in _ENTRY_KEYS}
        return {
            "selection": {
                "plies": entry["format"]["plies"],
                "distances": entry["format"]["distances"],
                "under": model.scope.under,
                "sample": None,
                "seed": None,
                "shard": None,
            },
            "converted_from": {
                "file": src.name,
                "sha256": file_sha256(src),
                "format": source.name,
            },
            **manifest_provenance(command),
        }

    written = target.write(model, out, force=force, record=record)
    return len(model), str(written.manifest)
