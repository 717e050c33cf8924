"""Merging: the Thill-layout books of all shards of one build into the book a single run
writes (:func:`merge_books`), and the compact parts of a ply into its complete compact
book (:func:`merge_parts`): the shards' or parts' book models joined into one, written by
the ``write`` of their format.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from openingbook.atomicio import refuse_input_as_output
from openingbook.counts import outcomes, value_histogram
from openingbook.errors import (
    BookFileError,
    BookFileUnreadable,
    ForeignBook,
    InvalidArgument,
    os_failures,
)
from openingbook.formats.registry import (
    FORMATS,
    book_files,
    check_compact_output,
    check_output,
    detect_own,
    layout_name,
    load_book,
    output_format,
)
from openingbook.model import BookModel, Scope
from openingbook.provenance import manifest_provenance, recorded_command
from openingbook.solver import DEFAULT_BOARD

__all__ = ["MergeSummary", "merge_books", "merge_parts"]


@dataclass
class MergeSummary:
    """What a merge did (also the ``--json`` output)."""

    output: str
    manifest: str
    format: str
    records: int
    shards: int
    positions: int
    values: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


#: Manifest entries a merge reads besides the settings.
_MERGE_KEYS = (
    ("positions", "in_output"),
    ("positions", "book_total"),
    ("chunks", "count_all"),
    ("time", "wall_seconds"),
    ("time", "solve_cpu_seconds"),
    ("values", "first"),
    ("book", "records"),
)


def _shard_settings(m: dict[str, Any]) -> dict[str, Any]:
    """What must agree between the shards of one build (from a shard's manifest).

    Raises ``BookFileError`` naming the first entry a merge needs that is missing.
    """
    for section, key in _MERGE_KEYS:
        if not isinstance(m.get(section), dict) or key not in m[section]:
            raise BookFileError(f"{section}.{key}")
    sel = {k: v for k, v in m["selection"].items() if k != "shard"}
    sel["shards"] = int(m["selection"]["shard"].split("/")[1])
    sel["chunk_size"] = m["chunks"]["size"]
    sel["format"] = m["format"]["name"]
    sel["selected_positions"] = m["positions"]["selected"]
    return sel


def merge_books(
    output: str | os.PathLike[str],
    shard_books: Sequence[str | os.PathLike[str]],
    *,
    force: bool = False,
    command: Sequence[str] | None = None,
) -> MergeSummary:
    """Combine the books of all shards ``1/n .. n/n`` of one build into its full book.

    Every shard book needs its manifest (it says which shard it is and for
    which settings). Refused with ``ValueError``: a missing or changed shard file
    (sha256), shards of different settings or shard counts, a shard given twice
    or overlapping records (overlap), a missing shard (gap). The result is the
    bytes a single run writes, plus a manifest listing the shards. Compact parts
    (``build --part``) go to :func:`merge_parts`.
    """
    if not shard_books:
        raise InvalidArgument("no shard books to merge")
    kinds = set()
    with os_failures("a shard book", BookFileUnreadable):  # the OS names the file it refused
        for book in shard_books:
            if not Path(book).is_file():  # missing, a pipe (never opened): the checks say so
                continue
            try:
                kinds.add(
                    detect_own(
                        book, "merge", "the Thill shards of a build or the compact parts of a ply"
                    )
                )
            except ForeignBook:
                raise
            except BookFileError:  # empty, unknown: the shard checks say which
                continue
    if any(kind.holds_parts for kind in kinds):  # the parts of a ply
        return merge_parts(output, shard_books, force=force, command=command)
    # the shards of a build: the merged book is written in their format
    writer = next(f for f in FORMATS.values() if f.holds_samples)
    output_format(output, None, writes=(writer,), default=writer, board=DEFAULT_BOARD)
    refuse_input_as_output(
        book_files(output, writer), [p for book in shard_books for p in book_files(book, writer)]
    )
    out = Path(output)
    check_output(writer, out, force)
    manifests = []
    for book in shard_books:
        with os_failures(book, BookFileUnreadable):  # what the OS refuses names the shard
            # a changed shard first, whatever its manifest holds
            m = writer.record_of(book, verify=True)
        if not m["selection"].get("shard"):
            raise BookFileError(f"{book}: not a shard output (built without --shard)")
        try:
            _shard_settings(m)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise BookFileError(f"{book}: incomplete build manifest (no {exc})") from None
        manifests.append(m)

    reference = _shard_settings(manifests[0])
    for book, m in zip(shard_books, manifests, strict=True):
        s = _shard_settings(m)
        if s != reference:
            diff = ", ".join(
                f"{k} {s.get(k)!r} vs {reference.get(k)!r}"
                for k in reference
                if s.get(k) != reference.get(k)
            )
            raise BookFileError(
                f"{book} was built with other settings than {shard_books[0]} ({diff})"
            )
    n = reference["shards"]
    seen: dict[int, str] = {}
    for book, m in zip(shard_books, manifests, strict=True):
        i = int(m["selection"]["shard"].split("/")[0])
        if i in seen:
            raise BookFileError(f"overlap: shard {i}/{n} given twice ({seen[i]} and {book})")
        seen[i] = str(book)
    missing = [i for i in range(1, n + 1) if i not in seen]
    if missing:
        listed = ", ".join(f"{i}/{n}" for i in missing)
        raise BookFileError(f"gap: shard{'s' if len(missing) > 1 else ''} {listed} missing")
    positions = sum(m["positions"]["in_output"] for m in manifests)
    if positions != reference["selected_positions"]:
        raise BookFileError(
            f"gap or overlap: the shards hold {positions} positions, the build has "
            f"{reference['selected_positions']}"
        )

    # each shard whole, as stored (size, records, sha256 checked against its manifest)
    shards = [load_book(book, writer, complete=False) for book in shard_books]
    sel = dict(manifests[0]["selection"], shard=None)
    model = _joined(shards, Scope(sel["under"] or None, board=DEFAULT_BOARD))
    del shards
    if len(np.unique(model.canonical)) != len(model):
        raise BookFileError("overlap: the same position is stored in more than one shard")
    histogram = value_histogram(model)
    if not model.has_distances:  # pruned first-player wins are only counted in the manifests
        histogram["first"] = sum(int(m["values"]["first"]) for m in manifests)
    content = {
        "selection": sel,
        "values": histogram,
        "positions": {
            "book_total": manifests[0]["positions"]["book_total"],
            "selected": reference["selected_positions"],
            "in_output": positions,
        },
        "chunks": {
            "size": reference["chunk_size"],
            "count_all": manifests[0]["chunks"]["count_all"],
        },
        "solver": manifests[0]["solver"],
        "time": {
            "wall_seconds_sum": round(sum(m["time"]["wall_seconds"] for m in manifests), 3),
            "solve_cpu_seconds": round(sum(m["time"]["solve_cpu_seconds"] for m in manifests), 3),
        },
        "merged_from": [
            {
                "file": Path(b).name,
                "shard": m["selection"]["shard"],
                "sha256": m["book"]["sha256"],
                "command": recorded_command(m.get("command")),
            }
            for b, m in sorted(
                zip(shard_books, manifests, strict=True),
                key=lambda bm: int(bm[1]["selection"]["shard"].split("/")[0]),
            )
        ],
        **manifest_provenance(command),
    }
    written = writer.write(model, out, force=force, record=content)
    return MergeSummary(
        output=str(out),
        manifest=str(written.manifest),
        format=layout_name(model.plies, model.has_distances, model.board),
        records=written.records,
        shards=n,
        positions=positions,
        values=outcomes(histogram),
    )


def merge_parts(
    output: str | os.PathLike[str],
    part_books: Sequence[str | os.PathLike[str]],
    *,
    force: bool = False,
    command: Sequence[str] | None = None,
) -> MergeSummary:
    """Combine the compact books of all parts ``1/n .. n/n`` of a ply into the complete
    compact book (``build --part``; ``openingbook merge`` on ``.c4b`` files).

    Each part is opened with its checksum checked; refused with ``ValueError``:
    a book that is not a part, parts of different plies, kinds, boards or part
    counts, a part given twice (overlap) or missing (gap). The positions of each
    part are enumerated (the previous layer once for all parts), their values
    read, and the whole written as one book model by the registry's compact writer,
    which checks that they are exactly the ply's positions. The metadata lists
    the parts (file, part, CRC-32, the command that built each) and the sum of
    their solving CPU time.
    """
    from openingbook.formats.compact import CompactBook
    from openingbook.solver import iter_parts

    out = Path(output)
    refuse_input_as_output([out], list(part_books))
    check_compact_output(out, force, "parts are merged")
    books: dict[int, tuple[Path, Any]] = {}
    settings: tuple[Any, ...] = ()
    for path in map(Path, part_books):
        with CompactBook(path) as book:  # the checksum over header and payload
            h = book.header
            if book.part is None:
                raise BookFileError(f"{path}: not a part (built without --part)")
            i, n = book.part
            these = (h.plies, h.kind, h.board, n)
            if not settings:
                settings, first_path = these, path
            elif these != settings:
                raise BookFileError(
                    f"{path} is part of another book than {first_path} "
                    f"(plies, kind, board, parts: {these} vs {settings})"
                )
            if i in books:
                raise BookFileError(f"overlap: part {i}/{n} given twice ({books[i][0]} and {path})")
            books[i] = (path, h)
    plies, kind, board, n = settings
    missing = [f"{i}/{n}" for i in range(1, n + 1) if i not in books]
    if missing:
        listed = ", ".join(missing[:10]) + (", ..." if len(missing) > 10 else "")
        raise BookFileError(f"gap: part{'s' if len(missing) > 1 else ''} {listed} missing")
    firsts, masks, values = [], [], []
    for i, first, mask in iter_parts(plies, n, *board):
        with CompactBook(books[i][0], verify=False) as book:
            values.append(book.values_of(first, mask))
        firsts.append(first)
        masks.append(mask)
    first, mask, value = (np.concatenate(a) for a in (firsts, masks, values))
    del firsts, masks, values
    manifests = [_object_of(books[i][1].metadata, "source_manifest") for i in range(1, n + 1)]
    cpu = sum(float(_object_of(m, "time").get("solve_cpu_seconds", 0)) for m in manifests)
    metadata = {
        "source_manifest": {
            "selection": {"plies": plies, "kind": kind, "board": str(board), "parts": n},
            "time": {"solve_cpu_seconds": round(cpu, 3)},
            **manifest_provenance(command),
        },
        "merged_from": [
            {
                "file": books[i][0].name,
                "part": f"{i}/{n}",
                "crc32": books[i][1].crc32,
                "command": recorded_command(manifests[i - 1].get("command")),
            }
            for i in range(1, n + 1)
        ],
    }
    from openingbook.model import model_from_values

    model = model_from_values(
        kind, plies, first, mask, value, board=board, scope=Scope(board=board)
    )
    del first, mask, value
    writer = next(f for f in FORMATS.values() if f.holds_parts)  # the parts' format
    writer.write(model, out, metadata=metadata, force=force)
    return MergeSummary(
        output=str(out),
        manifest="",
        format=writer.name,
        records=len(model),
        shards=n,
        positions=len(model),
        values={
            "first": int((model.winner > 0).sum()),
            "second": int((model.winner < 0).sum()),
            "draw": int((model.winner == 0).sum()),
        },
    )


def _joined(shards: list[BookModel], scope: Scope) -> BookModel:
    """The book models of a build's shards as one model of the whole ``scope``."""
    first = shards[0]
    return BookModel(
        board=first.board,
        plies=first.plies,
        kind=first.kind,
        first=np.concatenate([m.first for m in shards]),
        mask=np.concatenate([m.mask for m in shards]),
        winner=np.concatenate([m.winner for m in shards]),
        plies_to_end=np.concatenate([m.plies_to_end for m in shards]),
        score=np.concatenate([m.score for m in shards]),
        scope=scope,
    )


def _object_of(metadata: dict[str, Any], key: str) -> dict[str, Any]:
    """``metadata[key]`` when it is a JSON object, else ``{}``."""
    value = metadata.get(key)
    return value if isinstance(value, dict) else {}
