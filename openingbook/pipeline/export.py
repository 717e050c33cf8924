"""Exporting a book: :func:`export_book` opens any readable book through the format
registry (:func:`openingbook.formats.open_book`) and writes it with a registry entry:

* ``cadot``: Sidney Cadot's sorted 7-byte records (:mod:`openingbook.formats.cadot`);
* ``pons``: Pascal Pons' solver book, a prime-sized hash table (:mod:`openingbook.formats.pons`);
* ``uci``: the UCI / John Tromp CSV lines (:mod:`openingbook.formats.uci`);
* ``jsonl`` / ``csv``: one position per line for data work (:mod:`openingbook.formats.tabular`).
* ``npz`` / ``parquet``: the labelled data set, every move's exact score of the positions
  one ply above the book (:mod:`openingbook.formats.dataset`).

Every export holds exactly the positions the book answers for. A pruned
(win/draw/loss) book leaves the first player's wins out; they are recovered by
enumerating the book's ply (or its manifest's ``under`` subtree), which is exact
because such a book is complete. Pruned books that are samples or shards are
refused. Formats that need the distance to the result refuse books without
distances: ``pons`` always (its values are exact scores), ``cadot`` unless
``no_distance`` asks for half-move counts of 0 ("unknown").

Every refusal (format, options, board, ply, kind, scope) comes from the book's header,
before any position is read. The text formats ``jsonl`` and ``csv`` stream: each piece
of positions (:meth:`openingbook.answers.BookReader.position_pieces`) is answered and
written before the next is read, so the first rows come at once and memory holds one
piece; the labelled data sets (``npz``, ``parquet``) look every move's value up in the
open book, which is not loaded (a compact book: each lookup reads its file); the others
are written from the whole book in memory (:func:`openingbook.formats.read_model`).

>>> sorted(EXPORT_FORMATS)
['cadot', 'csv', 'jsonl', 'npz', 'parquet', 'pons', 'uci']
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from openingbook.atomicio import STDOUT, check_writable, refuse_input_as_output
from openingbook.errors import InvalidArgument, reads_book
from openingbook.formats import Format
from openingbook.formats.registry import (
    FORMATS,
    BookReader,
    as_format,
    book_files,
    format_of,
    is_pruned,
    layout_name,
    open_book,
    read_model,
)
from openingbook.model import require_complete
from openingbook.solver import DEFAULT_BOARD

__all__ = [
    "EXPORT_FORMATS",
    "ExportSummary",
    "export_book",
]

#: the formats of other engines and of data work, each with its description
EXPORT_FORMATS = {name: f.description for name, f in FORMATS.items() if f.writable and not f.own}


@dataclass
class ExportSummary:
    """What :func:`export_book` wrote (also the CLI's ``--json`` output)."""

    format: str
    output: str
    book: str
    book_format: str
    positions: int
    recovered_first_wins: int = 0
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@reads_book
def export_book(
    book: str | os.PathLike[str],
    format: Format | str,
    out: str | os.PathLike[str],
    *,
    no_distance: bool = False,
    tromp_subset: bool = False,
    log_size: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> ExportSummary:
    """Export the book at ``book`` in ``format`` (a registry entry or its name, one of
    :data:`EXPORT_FORMATS`) to ``out`` (written atomically).

    ``no_distance`` (cadot): write half-move counts of 0 instead of refusing a
    book without distances. ``tromp_subset`` (uci): only the positions of
    Tromp's data set. ``log_size`` (pons): log2 of the table size, 21..27.
    ``progress(done, total)``: the rows of a labelled data set valued (npz, parquet),
    after each chunk of them; then, given ``stage``, ``stage("writing <output's name>")``
    and ``progress(done, total)`` of the rows written; for a format written as the
    book's pieces come (jsonl, csv; cadot and pons of a compact book), the positions
    read after each piece.
    Raises an error of :mod:`openingbook.errors` with a one-line reason for anything
    that cannot be exported faithfully, before any position is read.
    """
    try:
        writer: Format | None = as_format(format, argument="fmt")
    except InvalidArgument:
        writer = None  # no format of that name
    if writer is None or not writer.writable or writer.own:
        choices = ", ".join(EXPORT_FORMATS)
        value = format if writer is None else writer.name
        raise InvalidArgument(f"choose one of {choices}", argument="fmt", value=value)
    options = {"no_distance": no_distance, "tromp_subset": tromp_subset, "log_size": log_size}
    given = {name: value for name, value in options.items() if value not in (False, None)}
    for argument in given.keys() - writer.export_options:
        owner = next(f.name for f in FORMATS.values() if argument in f.export_options)
        raise InvalidArgument(f"applies to the {owner} format only", argument=argument)
    book = Path(book)
    refuse_input_as_output(out, book_files(book))
    if str(out) != STDOUT:
        check_writable(out)  # a missing, read-only or full directory: before any work
    with open_book(book) as reader:  # the header only: every refusal before any position
        pruned = is_pruned(reader)
        require_complete(pruned, reader.scope, reader.path)
        if reader.board != DEFAULT_BOARD and not writer.any_board:
            # Cadot's keys, Tromp's 42 cells and the tabular diagrams are of the 7x6 board
            takes = ", ".join(n for n in EXPORT_FORMATS if FORMATS[n].any_board)
            raise InvalidArgument(
                f"exports 7x6 books only; {book} is a {reader.board} book "
                f"(the formats that take any size: {takes})",
                argument="fmt",
                value=writer.name,
            )
        writer.refuse_export(reader, **given)
        summary = ExportSummary(
            format=writer.name,
            output=str(out),
            book=str(book),
            book_format=_layout_name(reader),
            positions=0,
        )
        pieces = reader if progress is None else _Reporting(reader, progress)
        if writer.streams:  # rows as the positions come: the first before the book is read
            summary.positions, summary.details, first_wins = writer.export_stream(
                pieces, out, **given
            )
        elif writer.exports_pieces and reader.enumerated:  # a compact book: not loaded
            summary.positions, summary.details, first_wins = writer.export_pieces(
                pieces, out, **given
            )
        elif writer.exports_from_lookups:  # values looked up in the file, the book not loaded
            summary.positions, summary.details = writer.export(
                reader, out, progress=progress, stage=stage, **given
            )
            first_wins = 0  # a data set's book has distances: none left out
        else:
            model = read_model(reader)  # a pruned book with its first-player wins
            summary.positions, summary.details = writer.export(model, out, **given)
            first_wins = int((model.winner == 1).sum())
    summary.recovered_first_wins = first_wins if pruned else 0
    return summary


class _Reporting:
    """An open book whose :meth:`position_pieces` calls ``progress(done, total)`` after
    each piece it gives (the positions written so far, of the book's): the formats that
    write a book as its pieces come say nothing of progress themselves."""

    def __init__(self, book: BookReader, progress: Callable[[int, int], None]) -> None:
        self._book, self._progress = book, progress

    def __getattr__(self, name: str) -> Any:
        return getattr(self._book, name)

    def __len__(self) -> int:
        return len(self._book)

    def position_pieces(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        total, done = len(self._book), 0
        self._progress(0, total)
        for first, mask in self._book.position_pieces():
            yield first, mask
            done += len(first)
            self._progress(done, total)


def _layout_name(book: BookReader) -> str:
    """The source's layout name as Thill's layouts call it (``12-ply-dist``), or its format."""
    fmt = format_of(book)
    if not fmt.own:
        return fmt.name
    return layout_name(int(book.plies or 0), book.kind != "wdl", book.board)
