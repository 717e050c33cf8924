"""Export books to other engines' formats (and read those formats back).

:func:`export_book` reads one of our (Thill-format) books and writes it as

* ``cadot``: Sidney Cadot's sorted 7-byte records (:mod:`.cadot`);
* ``pons``: Pascal Pons' solver book, a prime-sized hash table (:mod:`.pons`);
* ``uci``: the UCI / John Tromp CSV lines (:mod:`.uci`);
* ``jsonl`` / ``csv``: one position per line for data work (:mod:`.tabular`).

Every export holds exactly the positions the book answers for. A pruned
(win/draw/loss) book leaves the first player's wins out; they are recovered by
enumerating the book's ply (or its manifest's ``under`` subtree) and marking
the positions the book lacks as first-player wins, which is exact because such
a book is complete. Books that are samples or shards are refused. Formats that
need the distance to the result refuse books without distances: ``pons``
always (its values are exact scores), ``cadot`` unless ``no_distance`` asks for
half-move counts of 0 ("unknown").

>>> sorted(EXPORT_FORMATS)
['cadot', 'csv', 'jsonl', 'pons', 'uci']
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from openingbook.atomicio import refuse_input_as_output
from openingbook.compact_magic import is_compact
from openingbook.errors import BookFileError, BookFileMissing, InvalidArgument
from openingbook.export._positions import BookPositions, load_positions
from openingbook.export.cadot import CADOT_SUFFIXES, CadotBook, looks_like_cadot, write_cadot
from openingbook.export.pons import PonsBook, looks_like_pons, write_pons
from openingbook.export.tabular import write_tabular
from openingbook.export.uci import tromp_order, write_uci
from openingbook.manifest import detect_format, manifest_path
from solver import DEFAULT_BOARD, canonical_keys

__all__ = [
    "EXPORT_FORMATS",
    "BookPositions",
    "CadotBook",
    "ExportSummary",
    "PonsBook",
    "detect_kind",
    "export_book",
    "load_positions",
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
    try:
        kind = detect_kind(book)
    except ValueError:
        kind = "thill"  # let the book reader name the problem
    if kind not in ("thill", "compact"):
        raise BookFileError(
            f"{book}: this is a {kind} file; export converts our books (Thill or compact format)"
        )
    positions = load_positions(book) if kind == "compact" else None
    book_fmt = positions.fmt if positions is not None else detect_format(book)
    if book_fmt.board != DEFAULT_BOARD and fmt != "pons":
        # Cadot's keys, Tromp's 42 cells and the tabular diagrams are of the 7x6 board
        raise InvalidArgument(
            f"exports 7x6 books only; {book} is a {book_fmt.board} book "
            "(Pons' book format takes any size: --format pons)",
            argument="fmt",
            value=fmt,
        )
    if not book_fmt.distances and fmt == "pons":
        raise BookFileError(
            f"{book}: a Pons book stores exact scores, and this book has no distances: "
            "export a book built with --distances"
        )
    if not book_fmt.distances and fmt == "cadot" and not no_distance:
        raise BookFileError(
            f"{book}: Cadot records carry the half-moves to the result, and this book has no "
            "distances: export a book built with --distances, or pass --no-distance to "
            "write 0 (unknown) half-moves"
        )
    if positions is None:
        positions = load_positions(book, book_fmt)
    summary = ExportSummary(
        format=fmt,
        output=str(out),
        book=str(book),
        book_format=book_fmt.name,
        positions=0,
        recovered_first_wins=positions.added,
    )
    if fmt == "cadot":
        half = np.zeros(len(positions), np.int8) if no_distance else positions.plies()
        summary.positions = write_cadot(
            out, positions.first, positions.mask, positions.winner, half
        )
        summary.details = {"half_moves": "unknown (0)" if no_distance else "exact"}
    elif fmt == "pons":
        result = write_pons(
            out,
            positions.first,
            positions.mask,
            positions.scores(),
            log_size=log_size,
            width=book_fmt.width,
            height=book_fmt.height,
        )
        summary.positions = result.stored
        summary.details = {
            "depth": result.depth,
            "log_size": result.log_size,
            "table_size": result.size,
            "key_bytes": result.key_bytes,
            "lost_to_slot_clashes": result.lost,
        }
    elif fmt == "uci":
        first, mask, winner = _uci_selection(positions, tromp_subset)
        summary.positions = write_uci(out, first, mask, winner)
        summary.details = {
            "tromp_subset": tromp_subset,
            "win": int((winner > 0).sum()),
            "loss": int((winner < 0).sum()),
            "draw": int((winner == 0).sum()),
        }
    else:
        with_distances = positions.has_distances
        summary.positions = write_tabular(
            out,
            fmt,
            positions.first,
            positions.mask,
            positions.winner,
            positions.plies() if with_distances else None,
            positions.scores() if with_distances else None,
            book_fmt.key_bits,
        )
        summary.details = {"distances": with_distances}
    return summary


def detect_kind(path: str | os.PathLike[str]) -> str:
    """``"compact"``, ``"thill"``, ``"cadot"`` or ``"pons"`` for the file at ``path``.

    Compact books are recognised by their magic bytes, Pons books by their
    header (sizes in range, file exactly as long as announced); a
    ``.cadot``/``.c4db`` name means Cadot; otherwise a Thill book is tried
    (:func:`openingbook.manifest.detect_format`: manifest, Thill's file names,
    or sampled records decoding to legal positions), then a Cadot table
    (sampled records valid and ascending). Raises ``ValueError`` naming what
    was tried when nothing fits.
    """
    p = Path(path)
    if not p.exists():
        raise BookFileMissing(p)
    size = p.stat().st_size
    if p.is_dir():
        raise BookFileError(f"{p}: is a directory, not a book")
    if is_compact(p):
        return "compact"
    if looks_like_pons(p, size):
        return "pons"
    if p.suffix.lower() in CADOT_SUFFIXES:
        return "cadot"
    try:
        detect_format(p)
        return "thill"
    except BookFileError as exc:
        thill_error = str(exc)
    if looks_like_cadot(p, size):
        return "cadot"
    raise BookFileError(
        f"{p}: not a book in a known format (Thill: {thill_error.split(': ', 1)[-1]}; "
        "not a Cadot table or a Pons book either)"
    )


def _uci_selection(
    positions: BookPositions, tromp_subset: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The book's positions in Tromp's order and variants, with their results."""
    first, mask = tromp_order(positions.stones, tromp_subset)
    wanted = canonical_keys(first, mask, *positions.fmt.board)
    have = canonical_keys(positions.first, positions.mask, *positions.fmt.board)
    sorter = np.argsort(have)
    at = sorter[np.clip(np.searchsorted(have, wanted, sorter=sorter), 0, have.size - 1)]
    present = have[at] == wanted  # all of them, unless the book covers one subtree
    return first[present], mask[present], positions.winner[at[present]]
