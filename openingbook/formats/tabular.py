"""One position per line for data work: JSON Lines and CSV.

Fields (the same in both formats, in this order):

``code``
    the column code of the position, left-aligned in the book's key field, as
    lower-case hex (6 digits for 8-ply books, 8 for 12-ply books): the key a
    Thill-format reader searches for (see ``docs/FORMATS.md``).
``diagram``
    42 characters, the rows from the top row down, each left to right:
    ``X`` first player, ``O`` second player, ``.`` empty. Cut it into rows of 7
    for :meth:`openingbook.solver.Position.from_diagram`.
``stones``
    number of stones (the book's ply).
``winner``
    ``first``, ``second`` or ``draw``.
``plies``
    plies from the position to the result (the winning stone, or the full board
    for a draw); empty (CSV) or ``null`` (JSON) in books without distances.
``score``
    Pons score for the side to move (see :mod:`openingbook.solver.scores`); empty/``null``
    without distances.

Each mirror pair appears once, in the variant the book stores (or, for the
first-player wins a pruned book leaves out, the variant the enumeration gives).

>>> from openingbook.solver import Position
>>> p = Position.from_moves("4453")
>>> diagrams(np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64))[0][-14:]
'...O.....OXX..'
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.atomicio import atomic_output
from openingbook.errors import BookFileError, InvalidArgument
from openingbook.formats.base import Format, require_7x6
from openingbook.solver import BoardSize
from openingbook.values import UNKNOWN, WINNERS

if TYPE_CHECKING:
    from openingbook.model import BookModel

__all__ = [
    "FIELDS",
    "CsvFormat",
    "JsonlFormat",
    "tabular_lines",
    "write_tabular",
]

#: The exported diagrams (and codes) are of the 7x6 board: the format's own board.
DIAGRAM_BOARD = BoardSize(7, 6)
WIDTH, HEIGHT = DIAGRAM_BOARD
FIELDS = ("code", "diagram", "stones", "winner", "plies", "score")
_U64 = np.uint64
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


def _column_chars() -> np.ndarray:
    """The 6 characters (bottom up) of a column, by its occupied and first-player bits."""
    size = 1 << (2 * HEIGHT)
    table = np.full((size, HEIGHT), ord("."), dtype=np.uint8)
    for index in range(size):
        occupied, first = index >> HEIGHT, index & ((1 << HEIGHT) - 1)
        for row in range(HEIGHT):
            if occupied >> row & 1:
                table[index, row] = ord("X") if first >> row & 1 else ord("O")
    return table


_COLUMN_CHARS = _column_chars()


def diagrams(first: np.ndarray, mask: np.ndarray) -> list[str]:
    """The 42-character diagram of each position (top row first).

    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("1")
    >>> d = diagrams(np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64))[0]
    >>> Position.from_diagram("\\n".join(d[i:i + 7] for i in range(0, 42, 7))) == p
    True
    """
    first = np.asarray(first, dtype=np.uint64).reshape(-1)
    mask = np.asarray(mask, dtype=np.uint64).reshape(-1)
    bits = _U64((1 << HEIGHT) - 1)
    cells = np.empty((first.size, HEIGHT, WIDTH), dtype=np.uint8)  # [position, row, column]
    for col in range(WIDTH):
        shift = _U64(col * (HEIGHT + 1))
        index = (((mask >> shift) & bits) << _U64(HEIGHT)) | ((first >> shift) & bits)
        cells[:, :, col] = _COLUMN_CHARS[index.astype(np.int64)]
    rows_top_down = np.ascontiguousarray(cells[:, ::-1, :]).reshape(first.size, WIDTH * HEIGHT)
    return rows_top_down.view(f"S{WIDTH * HEIGHT}").reshape(-1).astype(str).tolist()


def hex_codes(first: np.ndarray, mask: np.ndarray, key_bits: int) -> list[str]:
    """The column code of each position left-aligned in ``key_bits`` bits, as hex.

    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("4453")
    >>> hex_codes(np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64), 24)
    ['35a000']
    """
    from openingbook.codec import encode_keys  # bitarray: loaded only by an export

    keys = encode_keys(first, mask, key_bits, WIDTH, HEIGHT)
    digits = key_bits // 4
    out = np.empty((keys.size, digits), dtype=np.uint8)
    for i in range(digits):
        shift = _U64(4 * (digits - 1 - i))
        out[:, i] = _HEX[((keys >> shift) & _U64(0xF)).astype(np.int64)]
    return out.view(f"S{digits}").reshape(-1).astype(str).tolist()


def tabular_lines(
    kind: str,
    first: np.ndarray,
    mask: np.ndarray,
    winner: np.ndarray,
    plies: np.ndarray | None,
    scores: np.ndarray | None,
    key_bits: int,
) -> list[str]:
    """Lines (with newlines) of ``kind`` ``"jsonl"`` or ``"csv"`` (no CSV header).

    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("44")
    >>> f, m = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    >>> line = tabular_lines("csv", f, m, np.array([1]), np.array([39]), np.array([1]), 24)[0]
    >>> code, diagram, *rest = line.split(",")
    >>> code, diagram[-14:], rest
    ('160000', '...O......X...', ['2', 'first', '39', '1\\n'])
    """
    if kind not in ("jsonl", "csv"):
        raise InvalidArgument(f"unknown tabular format {kind!r}")
    codes = hex_codes(first, mask, key_bits)
    pictures = diagrams(first, mask)
    stones = np.bitwise_count(np.asarray(mask, dtype=np.uint64)).tolist()
    names = [WINNERS[int(w)].value for w in np.asarray(winner).tolist()]
    if kind == "jsonl":
        plies_text = ["null"] * len(codes) if plies is None else [str(p) for p in plies.tolist()]
        score_text = ["null"] * len(codes) if scores is None else [str(s) for s in scores.tolist()]
        return [
            f'{{"code":"{c}","diagram":"{d}","stones":{n},"winner":"{w}",'
            f'"plies":{p},"score":{s}}}\n'
            for c, d, n, w, p, s in zip(
                codes, pictures, stones, names, plies_text, score_text, strict=True
            )
        ]
    plies_text = [""] * len(codes) if plies is None else [str(p) for p in plies.tolist()]
    score_text = [""] * len(codes) if scores is None else [str(s) for s in scores.tolist()]
    return [
        f"{c},{d},{n},{w},{p},{s}\n"
        for c, d, n, w, p, s in zip(
            codes, pictures, stones, names, plies_text, score_text, strict=True
        )
    ]


def write_tabular(
    path: str | os.PathLike[str],
    kind: str,
    first: np.ndarray,
    mask: np.ndarray,
    winner: np.ndarray,
    plies: np.ndarray | None,
    scores: np.ndarray | None,
    key_bits: int,
) -> int:
    """Write JSON Lines or CSV (with a header line) atomically; return the positions written."""
    step = 1 << 17
    with atomic_output(path, text=True) as fh:
        if kind == "csv":
            fh.write(",".join(FIELDS) + "\n")
        for start in range(0, len(first), step):
            part = slice(start, start + step)
            fh.write(
                "".join(
                    tabular_lines(
                        kind,
                        first[part],
                        mask[part],
                        winner[part],
                        None if plies is None else plies[part],
                        None if scores is None else scores[part],
                        key_bits,
                    )
                )
            )
    return len(first)


class TabularFormat(Format):
    """One position per line (:func:`write_tabular`), as JSON Lines or CSV."""

    name = "tabular"
    readable = False
    streams = True
    text = True

    def export_stream(
        self, book: Any, out: str | os.PathLike[str], **options: Any
    ) -> tuple[int, dict[str, Any], int]:
        """Rows as the positions come from the open ``book``
        (:meth:`~openingbook.answers.BookReader.position_pieces`), each piece answered in
        one bulk lookup and written (and flushed) before the next is read: the first rows
        come while the rest of the book is still unread, and memory holds one piece."""
        from openingbook.codec import key_field_bits  # bitarray: loaded only by an export

        known = book.kind != "wdl"
        key_bits = key_field_bits(book.plies, known, book.board.width)
        written = first_wins = 0
        with atomic_output(out, text=True) as fh:
            if self.name == "csv":
                fh.write(",".join(FIELDS) + "\n")
            for first, mask in book.position_pieces():
                answers = book.lookup_many(first, mask)
                if known and (answers.plies == UNKNOWN).any():
                    raise BookFileError(
                        f"{book.path}: a {book.kind} book answers a position without its "
                        "distance (damaged file)"
                    )
                plies = answers.plies if known else None
                score = answers.score if known else None
                fh.write(
                    "".join(
                        tabular_lines(
                            self.name, first, mask, answers.winner, plies, score, key_bits
                        )
                    )
                )
                fh.flush()
                written += len(first)
                first_wins += int((answers.winner == 1).sum())
        return written, {"distances": known}, first_wins

    def write(self, model: BookModel, out: str | os.PathLike[str], **options: Any) -> Any:
        from openingbook.codec import key_field_bits  # bitarray: loaded only by an export

        require_7x6(model, self.name)
        known = model.has_distances
        key_bits = key_field_bits(model.plies, known, model.board.width)
        return write_tabular(
            out,
            self.name,
            model.first,
            model.mask,
            model.winner,
            model.plies_to_end if known else None,
            model.score if known else None,
            key_bits,
        )


class JsonlFormat(TabularFormat):
    name = "jsonl"
    description = "JSON Lines: code, diagram, stones, winner, plies, score"
    suffixes = (".jsonl",)


class CsvFormat(TabularFormat):
    name = "csv"
    description = "CSV with a header: code, diagram, stones, winner, plies, score"
    suffixes = (".csv",)
