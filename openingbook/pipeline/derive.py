"""``derive``: write a shallower book derived from a deeper one.

The values come from :func:`openingbook.pipeline.negamax.derive_values` (exact negamax
over the plies between); :func:`derive_book` reads the deeper book, refuses what it
does not cover, and writes the book with a build-style manifest that records the
derivation: the derived values as a book model, written by the ``write`` of the output's
format, as the build does.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from openingbook.atomicio import refuse_input_as_output
from openingbook.counts import value_histogram
from openingbook.errors import BookFileError, InvalidArgument, reads_book
from openingbook.formats import Format
from openingbook.formats.registry import (
    book_files,
    check_output,
    layout_name,
    solved_book_writer,
)
from openingbook.model import BookModel, Scope, model_from_values
from openingbook.pipeline.negamax import Derivation, derive_values
from openingbook.provenance import file_sha256, manifest_provenance
from openingbook.solver import DEFAULT_BOARD

__all__ = ["DeriveSummary", "derive_book"]


@dataclass
class DeriveSummary:
    """What :func:`derive_book` wrote (also the ``--json`` output)."""

    output: str
    manifest: str
    source: str
    format: str
    plies: int
    under: str | None
    positions: int
    records: int
    deeper_positions_looked_up: int
    layer_sizes: list[int]
    values: dict[str, object]
    seconds: float

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


@reads_book
def derive_book(
    source: str | os.PathLike[str],
    plies: int,
    output: str | os.PathLike[str],
    under: str | None = None,
    distances: bool | None = None,
    force: bool = False,
    command: list[str] | None = None,
    format: Format | str | None = None,
    progress: Callable[[int, int], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> DeriveSummary:
    """Write the ``plies``-stone book derived from the deeper book ``source``.

    The output has distances when ``distances`` (default: when the source has
    them), else it is pruned (first-player wins dropped). Every position must be
    covered by the source; for an incomplete source pass ``under`` (or rely on
    the line in its manifest). The manifest ``<output>.json`` records the
    derivation (source file and SHA-256, command). ``format``: the format written (a
    registry entry or its name: Thill's layout, or compact with the manifest's content
    in its metadata); default: compact for an output ending in ``.c4b``
    (:func:`openingbook.formats.registry.solved_book_writer`). A compact source is not loaded: each
    lookup reads its file (:func:`openingbook.formats.registry.lookup_source`), and the roots are
    walked slice by slice (:func:`openingbook.pipeline.negamax.derive_values`), with
    ``progress(done, total)`` after each; then, given ``stage``, ``stage("writing
    <output's name>")`` and ``progress(0, positions)`` before the book is written,
    ``progress(positions, positions)`` once it is. The summary's ``seconds``: the whole
    call, the book's write included (the manifest's ``derived_from`` records the
    derivation's own).

    >>> import os, tempfile
    >>> ref = REFERENCE / "thill-original-book8.dat"
    >>> with tempfile.TemporaryDirectory() as tmp:  # 8-ply book -> 6 plies under "4444"
    ...     s = derive_book(ref, 6, os.path.join(tmp, "b6.dat"), under="4444")
    ...     s.positions, s.format
    (25, '6-ply')
    """
    start = time.perf_counter()
    refuse_input_as_output(book_files(output), book_files(source))
    out = Path(output)
    from openingbook.formats.registry import lookup_source, open_book

    with open_book(source) as book:  # the output is decided before the book is read
        writer = solved_book_writer(out, format, book.board)
        writer.check_book(book.board, plies)
    check_output(writer, out, force)
    with lookup_source(source) as deep:
        if distances is None:
            distances = deep.has_distances
        if distances and not deep.has_distances:
            raise BookFileError(
                f"{deep.path.name} has no distances: only a pruned (win/draw/loss) book "
                "can be derived"
            )
        if plies == deep.plies and (distances or not deep.has_distances):
            raise InvalidArgument(
                f"{deep.path.name} has {plies} plies: at its own ply only its win/draw/loss "
                "book is derived (--pruned); 'openingbook convert' copies a book into "
                "another format",
                argument="plies",
                value=plies,
            )
        layout = layout_name(plies, distances, deep.board)
        if plies == deep.plies:  # its own positions and values, read once
            from openingbook.formats.registry import load_book

            deep = load_book(source, complete=False)
        derivation = derive_values(deep, plies, under, progress)
        missing = np.flatnonzero(~derivation.covered)
        if len(missing):
            where = f" under {derivation.under}" if derivation.under else ""
            raise BookFileError(
                f"{deep.path.name} does not cover {len(missing)} of the "
                f"{len(derivation.first)} {plies}-ply positions{where} "
                f"(first: {derivation.move_string(int(missing[0]))}); derive only the "
                "positions under a line it covers (under)"
            )
        model = model_from_values(
            "distance" if distances else "pruned",
            plies,
            derivation.first,
            derivation.mask,
            derivation.book_values(distances),  # the solver's value codes
            board=deep.board,
            scope=Scope(derivation.under, board=deep.board),
        )
        histogram = value_histogram(model)  # of every position, pruned ones included
        record = _manifest_content(model, derivation, histogram, command)
    positions = len(derivation.first)
    under, looked_up = derivation.under, derivation.result.looked_up
    layer_sizes = derivation.result.layer_sizes
    del derivation  # its values now in the model: not held through the write's peak
    # the write's progress only for a caller told that a new step starts (``stage``):
    # to any other the derivation's progress(done, total) never goes back
    write_progress = progress if stage is not None else None
    if stage is not None:
        stage(f"writing {out.name}")
    if write_progress is not None:
        write_progress(0, positions)
    written = writer.write(model, out, force=force, record=record)
    if write_progress is not None:
        write_progress(positions, positions)
    return DeriveSummary(
        output=str(out),
        manifest=str(written.manifest or ""),
        source=str(deep.path),
        format=layout,
        plies=plies,
        under=under,
        positions=positions,
        records=written.records,
        deeper_positions_looked_up=looked_up,
        layer_sizes=layer_sizes,
        values=histogram,
        seconds=round(time.perf_counter() - start, 3),
    )


def _manifest_content(
    model: BookModel,
    derivation: Derivation,
    histogram: dict[str, object],
    command: list[str] | None,
) -> dict[str, object]:
    """A build-style manifest (same ``selection`` keys) plus the source."""
    deep = derivation.deep
    board = {} if model.board == DEFAULT_BOARD else {"board": str(model.board)}
    return {
        "selection": {
            **board,
            "plies": model.plies,
            "distances": model.has_distances,
            "under": derivation.under,
            "sample": None,
            "seed": None,
            "shard": None,
        },
        "values": histogram,
        "derived_from": {
            "file": str(deep.path),
            "sha256": file_sha256(deep.path),
            # the layout of the source's records: its file's, or the one its values fit
            "format": layout_name(int(deep.plies or 0), deep.has_distances, deep.board),
            "scope": deep.scope.describe(),
            "method": "exact negamax over the plies between "
            f"({' -> '.join(str(n) for n in derivation.result.layer_sizes)} positions)",
            "seconds": round(derivation.seconds, 3),
        },
        **manifest_provenance(command),
    }
