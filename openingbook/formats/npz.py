"""The labelled data set as a numpy ``.npz`` archive (``export -f npz``): one array per
column of :mod:`openingbook.formats.dataset`, ``np.load(path)["scores"]``.

Written as it is computed: each member is a ``.npy`` file written into the zip
archive (stored, not compressed, as ``np.savez`` does) a chunk at a time, so
the boards (42 bytes a row on 7x6, 0.6 GB for the 14-ply book's 14 million
rows) are never all in memory; the whole archive goes through
:func:`openingbook.atomicio.atomic_output`.
"""

from __future__ import annotations

import os
import zipfile
from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.atomicio import atomic_output
from openingbook.formats.base import Format
from openingbook.formats.dataset import COLUMNS, LabelledRows, labelled_rows

if TYPE_CHECKING:
    from collections.abc import Callable

    from openingbook.answers import BookReader
    from openingbook.model import BookModel

__all__ = ["NpzFormat", "write_npz"]


def write_npz(
    path: str | os.PathLike[str],
    rows: LabelledRows,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Write ``rows`` as an ``.npz`` archive at ``path`` (atomically); the rows written.
    ``progress(done, total)``: the rows whose boards are written, after each chunk."""
    width, height = rows.board_size
    count = len(rows)
    done = 0
    with atomic_output(path) as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as archive:
        for name in COLUMNS:
            if name == "board":
                dtype, shape, chunks = np.dtype(np.int8), (count, height, width), None
            else:
                whole = np.ascontiguousarray(rows.column(name))
                dtype, shape, chunks = whole.dtype, whole.shape, [whole]
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False}
                np.lib.format.write_array_header_2_0(member, {**header, "shape": shape})
                for chunk in rows.board_chunks() if chunks is None else chunks:
                    member.write(memoryview(np.ascontiguousarray(chunk)).cast("B"))
                    if chunks is None and progress is not None:
                        done += len(chunk)
                        progress(done, count)
    return count


class NpzFormat(Format):
    name = "npz"
    description = (
        "labelled data set, numpy .npz: the positions one ply above the book, board "
        "arrays and every move's exact score"
    )
    suffixes = (".npz",)
    readable = False
    any_board = True
    exports_from_lookups = True

    def export(
        self,
        model: BookModel | BookReader,
        out: str | os.PathLike[str],
        progress: Callable[[int, int], None] | None = None,
        stage: Callable[[str], None] | None = None,
        **options: Any,
    ) -> tuple[int, dict[str, Any]]:
        rows = labelled_rows(model, progress)
        if stage is not None:
            stage(f"writing {os.path.basename(out)}")
        written = write_npz(out, rows, progress if stage is not None else None)
        return written, {"distances": True, "stones": rows.stones}

    def write(self, model: BookModel, out: str | os.PathLike[str], **options: Any) -> Any:
        return write_npz(out, labelled_rows(model))
