"""Book positions of a ply as text files: move strings or column codes.

The enumeration itself is :func:`openingbook.solver.enumerate_positions`; this module turns
its arrays into lines and writes them atomically.

* ``moves``: one 1-based move string per line reaching the position from the
  empty board (``positions_with_moves``), e.g. ``44444412``;
* ``codes``: the column code (FORMATS.md) as ``0``/``1`` digits, ``6 + 2n`` of
  them for ``n`` stones on the 7x6 board (``W - 1 + 2n`` on a ``W``-column
  board), e.g. ``0000011101010111101010``.

The lines come in the enumeration's order (grouped by parent line), not the
order of a book file. A ply whose whole last layer does not fit the enumeration's
memory guard (14 plies and deeper on 7x6) is enumerated in parts
(:func:`openingbook.solver.iter_parts`, :data:`openingbook.solver.AUTO_PARTS` of them unless
``parts`` is
given): the lines of part 1, then part 2, and so on, each in the enumeration's
order, in bounded memory.

>>> import numpy as np
>>> from openingbook.solver import Position
>>> p = Position.from_moves("4453")
>>> code_lines(np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64), 4, 7, 6)
b'00110101101000\\n'
>>> move_lines(np.array([b"4453", b"4444"]))
b'4453\\n4444\\n'
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from openingbook.atomicio import atomic_output
from openingbook.codec import code_length, encode_keys
from openingbook.errors import InvalidArgument, OutputError
from openingbook.solver import (
    AUTO_PARTS,
    BoardSize,
    LayerTooLarge,
    enumerate_positions,
    iter_parts,
    positions_with_moves,
)

__all__ = [
    "OUTPUT_FORMATS",
    "EnumerationResult",
    "code_lines",
    "enumerate_to_file",
    "move_lines",
    "parse_part",
]


#: Line formats of :func:`enumerate_to_file`.
OUTPUT_FORMATS = ("moves", "codes")

_NEWLINE = np.uint8(ord("\n"))


_PART_FORM = "expected i/n with 1 <= i <= n <= 65536, e.g. 3/32"


def parse_part(text: str) -> tuple[int, int]:
    """``"3/32"`` -> ``(3, 32)``: part 3 of 32 of the ply (:func:`openingbook.solver.part_of`).

    >>> parse_part("3/32")
    (3, 32)
    """
    from openingbook.solver import check_part

    try:
        i, n = (int(p) for p in text.strip().split("/"))
        return check_part((i, n))
    except ValueError:
        raise InvalidArgument(_PART_FORM, argument="part", value=text) from None


def move_lines(moves: np.ndarray) -> bytes:
    """Move strings (a bytes array of equal-length strings) as newline-terminated lines."""
    moves = np.asarray(moves)
    length = len(moves[0]) if moves.size else 0
    chars = np.frombuffer(moves.tobytes(), dtype=np.uint8).reshape(moves.size, -1)
    lines = np.empty((moves.size, length + 1), dtype=np.uint8)
    lines[:, :length] = chars[:, :length]
    lines[:, length] = _NEWLINE
    return lines.tobytes()


def _check_code_length(stones: int, width: int) -> int:
    length = code_length(stones, width)
    if length > 64:
        raise InvalidArgument(
            f"column codes of {stones} stones take {length} bits; at most 64 can be written"
        )
    return length


def code_lines(first: np.ndarray, mask: np.ndarray, stones: int, width: int, height: int) -> bytes:
    """Column codes of positions with ``stones`` stones as lines of ``0``/``1`` digits."""
    length = _check_code_length(stones, width)
    keys = encode_keys(first, mask, 64, width, height)  # left-aligned: the code is the top bits
    shifts = np.arange(63, 63 - length, -1, dtype=np.uint64)
    lines = np.empty((keys.size, length + 1), dtype=np.uint8)
    lines[:, :length] = ((keys[:, None] >> shifts) & np.uint64(1)).astype(np.uint8) + ord("0")
    lines[:, length] = _NEWLINE
    return lines.tobytes()


@dataclass(frozen=True)
class EnumerationResult:
    """What :func:`enumerate_to_file` did (``path`` None when nothing was written)."""

    plies: int
    count: int
    under: str | None
    path: str | None
    output_format: str | None
    board: BoardSize
    #: the ply was enumerated in this many parts (1: whole); ``part`` (i, n): one part
    parts: int = 1
    part: tuple[int, int] | None = None


def enumerate_to_file(
    plies: int,
    under: str | None = None,
    path: str | os.PathLike[str] | None = None,
    output_format: Literal["moves", "codes"] = "moves",
    *,
    merge_mirrors: bool = True,
    drop_immediate_wins: bool = True,
    board: BoardSize,
    parts: int | None = None,
    part: tuple[int, int] | None = None,
) -> EnumerationResult:
    """Enumerate the positions of ``plies`` on ``board`` and, with ``path``, write them
    one per line (the column code of a ``W``-column board has ``W - 1`` separators).

    ``part=(i, n)``: only part ``i`` of ``n`` (:func:`openingbook.solver.part_of`). ``parts``:
    enumerate the whole ply in that many parts (bounded memory; the lines part by
    part); by default a ply is enumerated whole unless its last layer does not fit
    the memory guard, then in :data:`openingbook.solver.AUTO_PARTS` parts.

    The file is written atomically (temporary file, fsync, rename). Raises
    ``ValueError`` for bad arguments (see :func:`openingbook.solver.enumerate_positions`)
    and ``OSError`` when the file cannot be written.

    >>> enumerate_to_file(4, under="44", board=BoardSize(7, 6)).count
    25
    """
    if output_format not in OUTPUT_FORMATS:
        raise InvalidArgument(
            f"use one of {', '.join(OUTPUT_FORMATS)}", argument="output_format", value=output_format
        )
    if path is not None:
        directory = Path(path).parent
        if not directory.is_dir():
            raise OutputError(f"cannot write {os.fspath(path)}: no directory {directory}")
        if output_format == "codes":
            _check_code_length(plies, board.width)
    options = {"merge_mirrors": merge_mirrors, "drop_immediate_wins": drop_immediate_wins}
    width, height = board = BoardSize(*board)
    if parts is not None and (part is not None or under):
        raise InvalidArgument("give parts alone: not with a part or a line", argument="parts")
    out = None if path is None else os.fspath(path)

    def one(which: tuple[int, int] | None) -> tuple[int, bytes]:
        """Count (and lines, with ``path``) of the ply, or of one part of it."""
        if path is None:  # whole plies too large for memory: counted by _by_parts
            first, _ = enumerate_positions(
                plies, under, width, height, **options, part=which, by_parts=False
            )
            return int(first.size), b""
        if output_format == "moves":
            first, _, moves = positions_with_moves(
                plies, under, width, height, **options, part=which
            )
            return int(first.size), move_lines(moves)
        first, mask = enumerate_positions(plies, under, width, height, **options, part=which)
        return int(first.size), code_lines(first, mask, plies, width, height)

    try:  # the solver's ValueErrors here are all about plies, under and parts
        if parts is None:
            try:
                count, data = one(part)
            except LayerTooLarge:
                if under or part is not None:
                    raise
                parts = AUTO_PARTS
            else:
                if out is not None:
                    with atomic_output(out) as fh:
                        fh.write(data)
                return EnumerationResult(
                    plies, count, under, out, output_format if out else None, board, 1, part
                )
        count = _by_parts(plies, parts, board, options, out, one)
    except OutputError:
        raise  # the output (a full disk, say), not an argument
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None
    return EnumerationResult(
        plies, count, under, out, output_format if out else None, board, parts, None
    )


def _by_parts(
    plies: int,
    parts: int,
    board: BoardSize,
    options: dict[str, bool],
    out: str | None,
    one: Callable[[tuple[int, int]], tuple[int, bytes]],
) -> int:
    """The whole ply in ``parts`` parts: the count, and the lines written part by part
    into ``out`` (atomically: the file appears once every part is written)."""
    if out is None:  # counting: the previous layer once for all parts
        return sum(len(f) for _, f, _ in iter_parts(plies, parts, *board, **options))
    count = 0
    with atomic_output(out) as fh:
        for i in range(1, parts + 1):
            n, data = one((i, parts))
            fh.write(data)
            count += n
    return count
