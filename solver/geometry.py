"""Board sizes and move strings: the one home of "which boards exist" and "how moves are written".

A board is ``width`` columns of ``height`` cells. Positions live on Pons bitboards,
``height + 1`` bits per column (a sentinel bit above each column), so a board fits
when ``width * (height + 1) <= 64``: 4x4 ... 7x6, 8x7 (64 bits), 9x6, 7x8, 12x4, 1x63.

Move strings are 1-based column numbers. On boards of up to 9 columns each digit is
a move (``"4453"``, Pons' notation); on any board the columns may instead be
separated by commas (``"10,1,12"`` on 12x4; ``"4,4,5,3"`` = ``"4453"``), and wider
boards write them that way (:func:`move_string`).

>>> BoardSize.parse("8x7")
BoardSize(width=8, height=7)
>>> BoardSize.parse("8x7").cells, BoardSize.parse("8x7").bits
(56, 64)
>>> move_columns("10,1,12", 12)
[9, 0, 11]
>>> move_string([9, 0, 11], 12), move_string([3, 3, 4, 2], 7)
('10,1,12', '4453')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "MAX_BITS",
    "MAX_DIGIT_WIDTH",
    "STANDARD",
    "BoardSize",
    "check_board_size",
    "move_columns",
    "move_string",
]

#: bits of the bitboard: ``width * (height + 1)`` must not exceed this
MAX_BITS = 64
#: the widest board whose move strings may be written one digit per move
MAX_DIGIT_WIDTH = 9

_SIZE = re.compile(r"\s*([0-9]+)\s*[xX]\s*([0-9]+)\s*")


def check_board_size(width: int, height: int) -> None:
    """Raise ``ValueError`` unless a ``width`` x ``height`` board fits the bitboard."""
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"board {name} must be an integer, got {value!r}")
    if width < 1 or height < 1:
        raise ValueError(f"board {width}x{height}: width and height must be at least 1")
    if width * (height + 1) > MAX_BITS:
        raise ValueError(
            f"board {width}x{height} does not fit the 64-bit bitboard "
            f"(width x (height + 1) = {width * (height + 1)} > {MAX_BITS})"
        )


@dataclass(frozen=True, order=True)
class BoardSize:
    """A board size that fits the bitboard (checked on creation)."""

    width: int
    height: int

    def __post_init__(self) -> None:
        check_board_size(self.width, self.height)

    @classmethod
    def parse(cls, text: str) -> BoardSize:
        """``"8x7"`` (width x height) as a board size; ``ValueError`` when malformed or too big."""
        match = _SIZE.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"board size {text!r} is not WIDTHxHEIGHT (e.g. 7x6)")
        return cls(int(match.group(1)), int(match.group(2)))

    @property
    def cells(self) -> int:
        return self.width * self.height

    @property
    def bits(self) -> int:
        """Bits of a position key on this board (``width * (height + 1)``)."""
        return self.width * (self.height + 1)

    def __str__(self) -> str:
        return f"{self.width}x{self.height}"


#: the standard board
STANDARD = BoardSize(7, 6)


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
            raise ValueError(f"move {i + 1} is {field!r}, not a column {kind} 1-{width}")
        col = int(field) - 1
        if not 0 <= col < width:
            hint = " (separate moves by commas)" if width > MAX_DIGIT_WIDTH else ""
            raise ValueError(f"move {i + 1} is column {field}, outside 1-{width}{hint}")
        out.append(col)
    return out


def move_string(columns: Iterable[int], width: int) -> str:
    """The move string of 0-based ``columns``: digits up to 9 columns, else commas."""
    sep = "" if width <= MAX_DIGIT_WIDTH else ","
    return sep.join(str(c + 1) for c in columns)
