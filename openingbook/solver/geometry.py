"""Board sizes and move strings: the one place where ``"8x7"`` becomes a width and a
height, and where a move string becomes columns.

A board of ``width`` columns and ``height`` rows is stored in bitboards of
``width * (height + 1)`` bits (one spare bit above each column), so every
board with ``width * (height + 1) <= 64`` fits: 4x4 ... 7x6, 8x7 (64 bits), 9x6,
7x8, 12x4, 1x63. The solver takes every one of them; whether the books or Pons'
book export support a given size is their business.

Move strings are 1-based column numbers. On boards of up to 9 columns each digit is
a move (``"4453"``, Pons' notation); on any board the columns may instead be
separated by commas (``"10,1,12"`` on 12x4; ``"4,4,5,3"`` = ``"4453"``), and wider
boards write them that way (:func:`move_string`).

>>> parse_board_size("8x7")
BoardSize(width=8, height=7)
>>> str(DEFAULT_BOARD), DEFAULT_BOARD.cells, parse_board_size("8x7").bits
('7x6', 42, 64)
>>> parse_board_size("9X6") == BoardSize(9, 6)
True
>>> move_columns("10,1,12", 12)
[9, 0, 11]
>>> move_string([9, 0, 11], 12), move_string([3, 3, 4, 2], 7)
('10,1,12', '4453')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from openingbook.solver.errors import InvalidArgument

__all__ = [
    "DEFAULT_BOARD",
    "DEFAULT_HEIGHT",
    "DEFAULT_WIDTH",
    "MAX_BITS",
    "MAX_DIGIT_WIDTH",
    "BoardSize",
    "check_board_size",
    "move_columns",
    "move_string",
    "parse_board_size",
]

DEFAULT_WIDTH = 7
DEFAULT_HEIGHT = 6
#: bits of the bitboard: ``width * (height + 1)`` must not exceed this
MAX_BITS = 64
#: the widest board whose move strings may be written one digit per move
MAX_DIGIT_WIDTH = 9


class BoardSize(NamedTuple):
    """A board size: ``width`` columns of ``height`` cells."""

    width: int
    height: int

    @property
    def cells(self) -> int:
        """Cells of the board (the most stones a game can place)."""
        return self.width * self.height

    @property
    def bits(self) -> int:
        """Bits of a position key on this board (``width * (height + 1)``)."""
        return self.width * (self.height + 1)

    @property
    def is_default(self) -> bool:
        """The standard 7x6 board (the only size of Thill's book layout)."""
        return (self.width, self.height) == (DEFAULT_WIDTH, DEFAULT_HEIGHT)

    def __str__(self) -> str:
        return f"{self.width}x{self.height}"


#: The standard board.
DEFAULT_BOARD = BoardSize(DEFAULT_WIDTH, DEFAULT_HEIGHT)


def check_board_size(width: int, height: int) -> None:
    """Raise ``ValueError`` unless a ``width`` x ``height`` board fits the bitboard."""
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidArgument(f"board {name} must be an integer, got {value!r}")
    if width < 1 or height < 1:
        raise InvalidArgument(f"board {width}x{height}: width and height must be at least 1")
    if width * (height + 1) > MAX_BITS:
        raise InvalidArgument(
            f"board {width}x{height} does not fit the 64-bit bitboard "
            f"(width x (height + 1) = {width * (height + 1)} > {MAX_BITS})"
        )


def parse_board_size(text: str | BoardSize) -> BoardSize:
    """``"WxH"`` (``x`` or ``X``) -> :class:`BoardSize`; ``ValueError`` with a one-line
    reason when it is not a size or the board does not fit 64-bit bitboards.

    >>> parse_board_size("12x4").cells
    48
    >>> parse_board_size("8x8")
    Traceback (most recent call last):
    ...
    openingbook.solver.errors.InvalidArgument: board size '8x8': 8 columns of 8 cells need 72 ...
    """
    if isinstance(text, BoardSize):
        return text
    raw = str(text).strip()
    parts = raw.lower().split("x")
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
        raise InvalidArgument(f"board size {raw!r}: expected WIDTHxHEIGHT, e.g. 7x6 or 8x7")
    width, height = int(parts[0]), int(parts[1])
    if width < 1 or height < 1:
        raise InvalidArgument(f"board size {raw!r}: width and height must be at least 1")
    if width * (height + 1) > 64:
        raise InvalidArgument(
            f"board size {raw!r}: {width} columns of {height} cells need "
            f"{width * (height + 1)} bits, more than 64"
        )
    return BoardSize(width, height)


def move_columns(text: str, width: int) -> list[int]:
    """0-based columns of a 1-based move string on a board ``width`` columns wide.

    Digits one per move (boards up to 9 columns), or numbers separated by commas
    (any board). Raises ``ValueError`` naming the bad move; whether a move fits
    the position (full column, game over) is the caller's to check.
    """
    text = text.strip()
    digits = "," not in text and width <= MAX_DIGIT_WIDTH
    if digits:
        fields = list(text)
    elif "," in text:
        fields = [f.strip() for f in text.split(",")]
    else:
        fields = [text] if text else []  # one move on a wide board; more need commas
    out = []
    for i, field in enumerate(fields):
        # not str.isdigit, which takes fullwidth and superscript digits too
        if not field or any(ch not in "0123456789" for ch in field):
            kind = "digit" if digits else "number"
            raise InvalidArgument(f"move {i + 1} is {field!r}, not a column {kind} 1-{width}")
        col = int(field) - 1
        if not 0 <= col < width:
            hint = " (separate moves by commas)" if width > MAX_DIGIT_WIDTH else ""
            raise InvalidArgument(f"move {i + 1} is column {field}, outside 1-{width}{hint}")
        out.append(col)
    return out


def move_string(columns: Iterable[int], width: int) -> str:
    """The move string of 0-based ``columns``: digits up to 9 columns, else commas."""
    sep = "" if width <= MAX_DIGIT_WIDTH else ","
    return sep.join(str(c + 1) for c in columns)
