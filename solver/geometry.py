"""Board sizes: the one place where ``"8x7"`` becomes a width and a height.

A board of ``width`` columns and ``height`` rows is stored in bitboards of
``width * (height + 1)`` bits (one spare bit above each column), so every
board with ``width * (height + 1) <= 64`` fits. Whether the solver, the books
or Pons' book export support a given size is their business; this module only
parses and names sizes.

>>> parse_board_size("8x7")
BoardSize(width=8, height=7)
>>> str(DEFAULT_BOARD), DEFAULT_BOARD.cells
('7x6', 42)
>>> parse_board_size("9X6") == BoardSize(9, 6)
True
"""

from __future__ import annotations

from typing import NamedTuple

from solver.position import DEFAULT_HEIGHT, DEFAULT_WIDTH

__all__ = ["DEFAULT_BOARD", "BoardSize", "parse_board_size"]


class BoardSize(NamedTuple):
    """A board size: ``width`` columns of ``height`` cells."""

    width: int
    height: int

    @property
    def cells(self) -> int:
        """Cells of the board (the most stones a game can place)."""
        return self.width * self.height

    @property
    def is_default(self) -> bool:
        """The standard 7x6 board (the only size of Thill's book layout)."""
        return (self.width, self.height) == (DEFAULT_WIDTH, DEFAULT_HEIGHT)

    def __str__(self) -> str:
        return f"{self.width}x{self.height}"


#: The standard board.
DEFAULT_BOARD = BoardSize(DEFAULT_WIDTH, DEFAULT_HEIGHT)


def parse_board_size(text: str | BoardSize) -> BoardSize:
    """``"WxH"`` (``x`` or ``X``) -> :class:`BoardSize`; ``ValueError`` with a one-line
    reason when it is not a size or the board does not fit 64-bit bitboards.

    >>> parse_board_size("12x4").cells
    48
    >>> parse_board_size("8x8")
    Traceback (most recent call last):
    ...
    ValueError: board size '8x8': 8 columns of 8 cells need 72 bits, more than 64
    """
    if isinstance(text, BoardSize):
        return text
    raw = str(text).strip()
    parts = raw.lower().split("x")
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
        raise ValueError(f"board size {raw!r}: expected WIDTHxHEIGHT, e.g. 7x6 or 8x7")
    width, height = int(parts[0]), int(parts[1])
    if width < 1 or height < 1:
        raise ValueError(f"board size {raw!r}: width and height must be at least 1")
    if width * (height + 1) > 64:
        raise ValueError(
            f"board size {raw!r}: {width} columns of {height} cells need "
            f"{width * (height + 1)} bits, more than 64"
        )
    return BoardSize(width, height)
