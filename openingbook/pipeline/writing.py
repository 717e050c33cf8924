"""Writing what the pipeline solved: the one rule of which format a build, derivation or
merge writes (:func:`writes_compact`), the check of its output before any work
(:func:`check_book_output`, :func:`check_compact_output`), and the write itself
(:func:`write_solved_book`: the solved values as a :class:`BookModel` through the
registry's Thill or compact writer).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from openingbook.atomicio import refuse_existing
from openingbook.bookfile import BookFormat
from openingbook.errors import InvalidArgument
from openingbook.formats.base import WrittenBook
from openingbook.model import Scope
from solver import DEFAULT_BOARD, BoardSize

__all__ = [
    "check_book_output",
    "check_compact_output",
    "outcomes",
    "write_solved_book",
    "writes_compact",
]


def check_compact_output(out: Path, force: bool, what: str) -> None:
    """A part, or parts merged, make a compact book: its name ends in ``.c4b``; an existing
    file needs force. ``what``: the start of the message (``"a part is written"``)."""
    from openingbook.compact import COMPACT_SUFFIX

    if out.suffix.lower() != COMPACT_SUFFIX:
        raise InvalidArgument(
            f"{what} as a compact book: its name ends in {COMPACT_SUFFIX}",
            argument="output",
            value=str(out),
        )
    refuse_existing(out, force)


def outcomes(histogram: dict[str, Any]) -> dict[str, int]:
    """The first/second/draw counts of a value histogram (``bookfile.value_histogram``)."""
    return {k: int(histogram[k]) for k in ("first", "second", "draw")}


def writes_compact(
    output: str | os.PathLike[str] | None, book_format: str | None, board: BoardSize
) -> bool:
    """Does a build or derivation write the compact format (else Thill's layout)?

    :func:`openingbook.formats.output_format` decides: ``book_format``
    ``"compact"``/``"thill"`` as given (refused when the output's name is another
    format's, and Thill's layout on boards other than 7x6: it does not record its
    board), else by the output's name (``.c4b`` compact, ``.dat`` Thill), else Thill's
    layout on 7x6 and compact on other boards. A compact output must end in ``.c4b``.
    """
    from openingbook.formats import output_format

    default = "thill" if board == DEFAULT_BOARD else "compact"
    chosen = output_format(
        output, book_format, writes=("thill", "compact"), default=default, board=board
    )
    return chosen == "compact"


def check_book_output(out: Path, force: bool, compact: bool) -> None:
    """Refuse, before any work, an output that exists (without ``force``) or cannot be
    written: a Thill-layout book with its manifest, a compact book alone
    (:meth:`openingbook.formats.Format.check_output`)."""
    from openingbook.formats import FORMATS

    FORMATS["compact" if compact else "thill"].check_output(out, force)


def write_solved_book(
    out: Path,
    fmt: BookFormat,
    first: np.ndarray,
    mask: np.ndarray,
    values: np.ndarray,
    *,
    scope: Scope,
    record: dict[str, Any],
    compact: bool,
    force: bool,
    part: tuple[int, int] | None = None,
) -> WrittenBook:
    """Write the solved ``values`` (Thill's codes of every position: distance bytes, or
    2 first player wins / 1 second / 0 draw) of a build or derivation as a book model
    through the registry's writer: Thill's layout with ``record`` as its manifest, or
    the compact format with ``record`` in its metadata (``source_manifest``; ``part``:
    part i of n of the ply)."""
    from openingbook.formats import FORMATS
    from openingbook.model import model_from_values

    kind = "distance" if fmt.distances else "pruned"
    model = model_from_values(kind, fmt.plies, first, mask, values, board=fmt.board, scope=scope)
    writer = FORMATS["compact" if compact else "thill"]
    return writer.write(model, out, force=force, record=record, part=part)
