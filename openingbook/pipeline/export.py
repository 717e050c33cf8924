"""Exporting a book: :func:`export_book` reads any readable book through the format
registry (:func:`openingbook.formats.load_book`) and writes it with a registry entry:

* ``cadot``: Sidney Cadot's sorted 7-byte records (:mod:`openingbook.formats.cadot`);
* ``pons``: Pascal Pons' solver book, a prime-sized hash table (:mod:`openingbook.formats.pons`);
* ``uci``: the UCI / John Tromp CSV lines (:mod:`openingbook.formats.uci`);
* ``jsonl`` / ``csv``: one position per line for data work (:mod:`openingbook.formats.tabular`).

Every export holds exactly the positions the book answers for. A pruned
(win/draw/loss) book leaves the first player's wins out; they are recovered by
enumerating the book's ply (or its manifest's ``under`` subtree), which is exact
because such a book is complete. Pruned books that are samples or shards are
refused. Formats that need the distance to the result refuse books without
distances: ``pons`` always (its values are exact scores), ``cadot`` unless
``no_distance`` asks for half-move counts of 0 ("unknown").

>>> sorted(EXPORT_FORMATS)
['cadot', 'csv', 'jsonl', 'pons', 'uci']
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from openingbook.atomicio import refuse_input_as_output
from openingbook.bookfile import BookFormat
from openingbook.errors import BookFileError, InvalidArgument, reads_book
from openingbook.formats import FORMATS, load_book
from openingbook.formats.model import BookModel, require_complete_model
from openingbook.formats.uci import tromp_order
from openingbook.manifest import manifest_path
from solver import DEFAULT_BOARD, canonical_keys

__all__ = [
    "EXPORT_FORMATS",
    "ExportSummary",
    "export_book",
]

EXPORT_FORMATS = {
    "cadot": "Sidney Cadot's 7-byte records (base-111 column key, outcome byte)",
    "pons": "Pascal Pons' solver opening book (prime-sized table, key3, score + 19)",
    "uci": "UCI / Tromp CSV: 42 x/o/b cells a1..g6, then win/loss/draw for the first player",
    "jsonl": "JSON Lines: code, diagram, stones, winner, plies, score",
    "csv": "CSV with a header: code, diagram, stones, winner, plies, score",
}


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
    fmt: str,
    out: str | os.PathLike[str],
    *,
    no_distance: bool = False,
    tromp_subset: bool = False,
    log_size: int | None = None,
) -> ExportSummary:
    """Export the book at ``book`` as ``fmt`` to ``out`` (written atomically).

    ``no_distance`` (cadot): write half-move counts of 0 instead of refusing a
    book without distances. ``tromp_subset`` (uci): only the positions of
    Tromp's data set. ``log_size`` (pons): log2 of the table size, 21..27.
    Raises ``ValueError`` with a one-line reason for anything that cannot be
    exported faithfully.
    """
    if fmt not in EXPORT_FORMATS:
        choices = ", ".join(EXPORT_FORMATS)
        raise InvalidArgument(f"choose one of {choices}", argument="fmt", value=fmt)
    for argument, value, owner in (
        ("no_distance", no_distance, "cadot"),
        ("tromp_subset", tromp_subset, "uci"),
        ("log_size", log_size is not None, "pons"),
    ):
        if value and fmt != owner:
            raise InvalidArgument(f"applies to the {owner} format only", argument=argument)
    book = Path(book)
    refuse_input_as_output(out, [book, manifest_path(book)])
    model = load_book(book)  # any readable format; a pruned book with its first-player wins
    require_complete_model(model)
    if model.board != DEFAULT_BOARD and fmt != "pons":
        # Cadot's keys, Tromp's 42 cells and the tabular diagrams are of the 7x6 board
        raise InvalidArgument(
            f"exports 7x6 books only; {book} is a {model.board} book "
            "(Pons' book format takes any size: --format pons)",
            argument="fmt",
            value=fmt,
        )
    if not model.has_distances and fmt == "pons":
        raise BookFileError(
            f"{book}: a Pons book stores exact scores, and this book has no distances: "
            "export a book built with --distances"
        )
    if not model.has_distances and fmt == "cadot" and not no_distance:
        raise BookFileError(
            f"{book}: Cadot records carry the half-moves to the result, and this book has no "
            "distances: export a book built with --distances, or pass --no-distance to "
            "write 0 (unknown) half-moves"
        )
    summary = ExportSummary(
        format=fmt,
        output=str(out),
        book=str(book),
        book_format=_layout_name(model),
        positions=0,
        recovered_first_wins=int((model.winner == 1).sum()) if model.pruned else 0,
    )
    writer = FORMATS[fmt]
    if fmt == "cadot":
        summary.positions = writer.write(model, out, no_distance=no_distance)
        summary.details = {"half_moves": "unknown (0)" if no_distance else "exact"}
    elif fmt == "pons":
        result = writer.write(model, out, log_size=log_size)
        summary.positions = result.stored
        summary.details = {
            "depth": result.depth,
            "log_size": result.log_size,
            "table_size": result.size,
            "key_bytes": result.key_bytes,
            "lost_to_slot_clashes": result.lost,
        }
    elif fmt == "uci":
        selected = _uci_selection(model, tromp_subset)
        winner = selected.winner
        summary.positions = writer.write(selected, out)
        summary.details = {
            "tromp_subset": tromp_subset,
            "win": int((winner > 0).sum()),
            "loss": int((winner < 0).sum()),
            "draw": int((winner == 0).sum()),
        }
    else:
        summary.positions = writer.write(model, out)
        summary.details = {"distances": model.has_distances}
    return summary


def _layout_name(model: BookModel) -> str:
    """The source's layout name as Thill's layouts call it (``12-ply-dist``), or its format."""
    if model.source_format not in ("thill", "compact"):
        return model.source_format
    return BookFormat.for_plies(model.plies, model.kind != "wdl", *model.board).name


def _uci_selection(model: BookModel, tromp_subset: bool) -> BookModel:
    """The book's positions in Tromp's order and variants, with their results."""
    first, mask = tromp_order(model.plies, tromp_subset)
    wanted = canonical_keys(first, mask, *model.board)
    have = canonical_keys(model.first, model.mask, *model.board)
    sorter = np.argsort(have)
    at = sorter[np.clip(np.searchsorted(have, wanted, sorter=sorter), 0, have.size - 1)]
    present = have[at] == wanted  # all of them, unless the book covers one subtree
    return replace(model.select(at[present]), first=first[present], mask=mask[present])
