"""The labelled data set as an Apache Parquet file (``export -f parquet``; the
``parquet`` extra installs ``pyarrow``): one row per position, the columns of
:mod:`openingbook.formats.dataset`, ``pandas.read_parquet(path)``.

``board`` is a list of ``height * width`` int8 cells per row (row 0 the top
row, each row left to right: ``np.reshape(-1, height, width)`` gives the
``.npz`` archive's array back), ``scores`` a list of ``width`` int8; the
others are scalars. The file's metadata names the board (``openingbook.board``,
e.g. ``7x6``). Written a row group at a time (:data:`ROW_GROUP` rows), into
:func:`openingbook.atomicio.atomic_output`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.atomicio import atomic_output
from openingbook.errors import MissingExtra
from openingbook.formats.base import Format
from openingbook.formats.dataset import COLUMNS, LabelledRows, labelled_rows

if TYPE_CHECKING:
    from collections.abc import Callable

    from openingbook.answers import BookReader
    from openingbook.model import BookModel

__all__ = ["ParquetFormat", "write_parquet"]


#: rows written at once, one row group: the writer's buffers for a group's columns (the
#: boards dictionary-encoded) are the write's peak (a million rows took 0.5 GB more)
ROW_GROUP = 1 << 18


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
    # the system's allocator: Arrow's own keeps what each chunk freed, and the 15-ply data
    # set's write then peaked 0.17 GB higher (past 2 GB with its rows)
    pool = pa.system_memory_pool()
    writer_of = pa.parquet.ParquetWriter
    with atomic_output(path) as fh, writer_of(fh, schema, memory_pool=pool) as writer:
        chunks = zip(range(0, len(rows), ROW_GROUP), rows.board_chunks(ROW_GROUP), strict=True)
        for start, board in chunks:
            part = slice(start, start + ROW_GROUP)
            arrays = []
            for name in COLUMNS:
                if name == "board":
                    flat = pa.array(np.ascontiguousarray(board).reshape(-1), memory_pool=pool)
                    arrays.append(pa.FixedSizeListArray.from_arrays(flat, cells))
                elif name == "scores":
                    flat = pa.array(
                        np.ascontiguousarray(rows.column(name, part)).reshape(-1), memory_pool=pool
                    )
                    arrays.append(pa.FixedSizeListArray.from_arrays(flat, width))
                else:
                    arrays.append(pa.array(rows.column(name, part), memory_pool=pool))
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
            if progress is not None:
                progress(min(len(rows), start + ROW_GROUP), len(rows))
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
