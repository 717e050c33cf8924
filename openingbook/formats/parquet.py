"""The labelled data set as an Apache Parquet file (``export -f parquet``; the
``parquet`` extra installs ``pyarrow``): one row per position, the columns of
:mod:`openingbook.formats.dataset`, ``pandas.read_parquet(path)``.

``board`` is a list of ``height * width`` int8 cells per row (row 0 the top
row, each row left to right: ``np.reshape(-1, height, width)`` gives the
``.npz`` archive's array back), ``scores`` a list of ``width`` int8; the
others are scalars. The file's metadata names the board (``openingbook.board``,
e.g. ``7x6``). Written a row group at a time (:data:`dataset.CHUNK` rows), into
:func:`openingbook.atomicio.atomic_output`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.atomicio import atomic_output
from openingbook.errors import MissingExtra
from openingbook.formats.base import Format
from openingbook.formats.dataset import CHUNK, COLUMNS, LabelledRows, labelled_rows

if TYPE_CHECKING:
    from collections.abc import Callable

    from openingbook.answers import BookReader
    from openingbook.model import BookModel

__all__ = ["ParquetFormat", "write_parquet"]


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise MissingExtra("parquet", "the parquet format") from None
    return pyarrow


def write_parquet(
    path: str | os.PathLike[str],
    rows: LabelledRows,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Write ``rows`` as a Parquet file at ``path`` (atomically); the rows written.
    ``progress(done, total)``: the rows written, after each chunk."""
    pa = _pyarrow()
    width, height = rows.board_size
    cells = width * height
    types = {
        "board": pa.list_(pa.int8(), cells),
        "scores": pa.list_(pa.int8(), width),
        "first": pa.uint64(),
        "mask": pa.uint64(),
    }
    schema = pa.schema(
        [pa.field(name, types.get(name, pa.int8())) for name in COLUMNS],
        metadata={"openingbook.board": str(rows.board_size)},
    )
    whole = {name: rows.column(name) for name in COLUMNS if name != "board"}
    with atomic_output(path) as fh, pa.parquet.ParquetWriter(fh, schema) as writer:
        for start, board in zip(range(0, len(rows), CHUNK), rows.board_chunks(), strict=True):
            part = slice(start, start + CHUNK)
            arrays = []
            for name in COLUMNS:
                if name == "board":
                    flat = pa.array(np.ascontiguousarray(board).reshape(-1))
                    arrays.append(pa.FixedSizeListArray.from_arrays(flat, cells))
                elif name == "scores":
                    flat = pa.array(np.ascontiguousarray(whole[name][part]).reshape(-1))
                    arrays.append(pa.FixedSizeListArray.from_arrays(flat, width))
                else:
                    arrays.append(pa.array(whole[name][part]))
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
            if progress is not None:
                progress(min(len(rows), start + CHUNK), len(rows))
        if not len(rows):
            writer.write_table(schema.empty_table())
    return len(rows)


class ParquetFormat(Format):
    name = "parquet"
    description = (
        "labelled data set, Apache Parquet (the parquet extra): the rows of the npz "
        "format, one per position"
    )
    suffixes = (".parquet",)
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
        _pyarrow()  # before the work: a missing extra is said at once
        rows = labelled_rows(model, progress)
        if stage is not None:
            stage(f"writing {os.path.basename(out)}")
        written = write_parquet(out, rows, progress if stage is not None else None)
        return written, {"distances": True, "stones": rows.stones}

    def write(self, model: BookModel, out: str | os.PathLike[str], **options: Any) -> Any:
        _pyarrow()
        return write_parquet(out, labelled_rows(model))
