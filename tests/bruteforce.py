"""Pieces the tests' brute-force game-tree walks share (no solver code)."""

from __future__ import annotations

from collections.abc import Sequence


def four_through(columns: Sequence[Sequence[object]], col: int, row: int) -> bool:
    """Does the stone at (``col``, ``row``) lie on four in a row of its colour?

    ``columns``: one sequence per column, bottom first, of stones that compare
    equal when they are of one colour (ints, or the characters of a string).
    """
    width, stone = len(columns), columns[col][row]

    def same(c: int, r: int) -> bool:
        return 0 <= c < width and 0 <= r < len(columns[c]) and columns[c][r] == stone

    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while same(c, r):
                run += 1
                c, r = c + sign * dc, r + sign * dr
        if run >= 4:
            return True
    return False
