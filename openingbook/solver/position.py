"""Connect-4 positions on Pons-style bitboards.

A board of ``width`` x ``height`` cells is stored in two integers:

* ``mask``: one bit per occupied cell;
* ``current``: one bit per stone of the side to move.

Cell (col, row) is bit ``col * (height + 1) + row`` (row 0 at the bottom). Every
column owns one spare bit above its top cell; that sentinel row keeps the
shifts used by the alignment test from wrapping into the next column and makes
``mask + bottom`` carry-free (see ``key``).

The first player (A, "X", moves on even stone counts) and the second player
(B, "O") are :class:`Player` values. Move strings are 1-based column digits as
in Pons' solver: ``"4453"`` = A plays column 3 (0-based), B 3, A 4, B 2.

>>> p = Position.from_moves("4453")
>>> p.stone_count, p.side_to_move
(4, <Player.FIRST: 1>)
>>> p.to_diagram().splitlines()[-2:]  # rows top to bottom
['...O...', '..OXX..']
>>> p.mirror().to_moves() is None  # a mirrored board has no stored history
True
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from enum import IntEnum

from openingbook.solver.errors import InvalidArgument
from openingbook.solver.geometry import (
    DEFAULT_HEIGHT,
    DEFAULT_WIDTH,
    MAX_DIGIT_WIDTH,
    check_board_size,
    move_columns,
)

#: Characters accepted in text diagrams, per cell content.
DIAGRAM_FIRST = "Xx1"
DIAGRAM_SECOND = "Oo2"
DIAGRAM_EMPTY = ".-_0 "


class Player(IntEnum):
    """The two players; the value is the cell value used in arrays."""

    FIRST = 1
    SECOND = 2

    @property
    def other(self) -> Player:
        return Player.SECOND if self is Player.FIRST else Player.FIRST


@functools.cache
def bottom_mask(width: int, height: int) -> int:
    """One bit at the bottom cell of every column (computed once per board: every
    move a :class:`Position` checks asks for it)."""
    return sum(1 << (col * (height + 1)) for col in range(width))


@functools.cache
def board_mask(width: int, height: int) -> int:
    """Every playable cell (the sentinel rows excluded)."""
    return bottom_mask(width, height) * ((1 << height) - 1)


def column_mask(col: int, height: int) -> int:
    """The playable cells of one column."""
    return ((1 << height) - 1) << (col * (height + 1))


def has_four(stones: int, height: int) -> bool:
    """True when ``stones`` (one player's bitboard) contains four in a row.

    ``m = s & (s >> d)`` marks cells whose neighbour in direction ``d`` is also
    set; ``m & (m >> 2d)`` then finds four consecutive cells. The directions are
    1 (vertical), h+1 (horizontal), h (diagonal down-right) and h+2 (up-right),
    with h = height; the sentinel row stops runs from crossing columns.
    """
    for shift in (1, height + 1, height, height + 2):
        m = stones & (stones >> shift)
        if m & (m >> (2 * shift)):
            return True
    return False


def winning_cells(stones: int, mask: int, width: int, height: int) -> int:
    """Empty cells that would complete four for the owner of ``stones``."""
    h1 = height + 1
    # vertical: three stacked stones, the cell above them
    r = (stones << 1) & (stones << 2) & (stones << 3)
    for shift in (h1, height, height + 2):  # horizontal and both diagonals
        p = (stones << shift) & (stones << (2 * shift))
        r |= p & (stones << (3 * shift))  # xxx. : three to the left
        r |= p & (stones >> shift)  # xx.x
        p = (stones >> shift) & (stones >> (2 * shift))
        r |= p & (stones << shift)  # x.xx
        r |= p & (stones >> (3 * shift))  # .xxx : three to the right
    return r & (board_mask(width, height) ^ mask)


class Position:
    """An immutable Connect-4 position (Pons bitboards plus the board size).

    Build one with :meth:`from_moves`, :meth:`from_array`, :meth:`from_diagram`
    or :meth:`from_bitboards`; every constructor checks legality and raises
    ``ValueError`` naming the problem.
    """

    __slots__ = ("_moves", "current", "height", "mask", "width")

    def __init__(
        self,
        current: int = 0,
        mask: int = 0,
        width: int = DEFAULT_WIDTH,
        height: int = DEFAULT_HEIGHT,
        _moves: str | None = "",
    ) -> None:
        self.current = current
        self.mask = mask
        self.width = width
        self.height = height
        self._moves = _moves

    # ------------------------------------------------------------------ build
    @classmethod
    def from_moves(
        cls, moves: str | Iterable[int], width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT
    ) -> Position:
        """Play a 1-based move string (``"4453"``, or ``"10,1,12"``: see
        :mod:`openingbook.solver.geometry`) or a sequence of 1-based ints.

        Raises ``ValueError`` for a non-digit, a column out of range, a full
        column, or a move played after (or completing) four in a row.
        """
        _check_size(width, height)
        pos = cls(0, 0, width, height, "")
        if isinstance(moves, str):
            columns = move_columns(moves, width)
        else:
            columns = [int(m) - 1 for m in moves]
        for i, col in enumerate(columns):
            name = str(col + 1)
            if not 0 <= col < width:
                raise InvalidArgument(f"move {i + 1} is column {name}, outside 1-{width}")
            if not pos.can_play(col):
                raise InvalidArgument(f"move {i + 1} plays column {name}, which is full")
            if pos.is_winning_move(col):
                raise InvalidArgument(
                    f"move {i + 1} (column {name}) completes four in a row: the game is over"
                )
            pos = pos.play(col)
        return pos

    @classmethod
    def from_bitboards(
        cls,
        first: int,
        mask: int,
        width: int = DEFAULT_WIDTH,
        height: int = DEFAULT_HEIGHT,
        check: bool = True,
    ) -> Position:
        """Build from the first player's stones and the occupied cells."""
        _check_size(width, height)
        n = mask.bit_count()
        current = first if n % 2 == 0 else mask ^ first
        pos = cls(current, mask, width, height, None)
        if check:
            pos.validate()
        return pos

    @classmethod
    def from_array(cls, cells: Sequence[Sequence[int]], check: bool = True) -> Position:
        """Build from an array indexed ``cells[col][row]`` (row 0 = bottom).

        Cell values: 0 empty, 1 first player, 2 second player. A numpy array of
        shape (7, 6) works as well as nested lists.
        """
        width = len(cells)
        if width == 0:
            raise InvalidArgument("the array has no columns")
        height = len(cells[0])
        first = mask = 0
        for col in range(width):
            if len(cells[col]) != height:
                raise InvalidArgument(
                    f"column {col} has {len(cells[col])} cells, expected {height}"
                )
            for row in range(height):
                v = int(cells[col][row])
                bit = 1 << (col * (height + 1) + row)
                if v == Player.FIRST:
                    first |= bit
                    mask |= bit
                elif v == Player.SECOND:
                    mask |= bit
                elif v != 0:
                    raise InvalidArgument(f"cell (col {col}, row {row}) is {v}, expected 0, 1 or 2")
        return cls.from_bitboards(first, mask, width, height, check=check)

    @classmethod
    def from_diagram(cls, text: str, check: bool = True) -> Position:
        """Build from a text diagram: one line per row, top row first.

        ``X``/``x``/``1`` is the first player, ``O``/``o``/``2`` the second,
        ``.``/``-``/``_``/``0`` an empty cell. Blank lines and spaces between
        cells are ignored; ``|`` borders are allowed.
        """
        rows = []
        for line in text.strip("\n").splitlines():
            cells = line.replace("|", "").replace(" ", "")
            if cells:
                rows.append(cells)
        if not rows:
            raise InvalidArgument("the diagram is empty")
        width = len(rows[0])
        if any(len(r) != width for r in rows):
            raise InvalidArgument("the diagram's rows have different lengths")
        height = len(rows)
        array = [[0] * height for _ in range(width)]
        for r, line in enumerate(rows):
            row = height - 1 - r
            for col, ch in enumerate(line):
                if ch in DIAGRAM_FIRST:
                    array[col][row] = 1
                elif ch in DIAGRAM_SECOND:
                    array[col][row] = 2
                elif ch not in DIAGRAM_EMPTY:
                    raise InvalidArgument(
                        f"diagram cell {ch!r} (row {r + 1}, col {col + 1}) unknown"
                    )
        return cls.from_array(array, check=check)

    # ---------------------------------------------------------------- queries
    @property
    def stone_count(self) -> int:
        return self.mask.bit_count()

    @property
    def side_to_move(self) -> Player:
        return Player.FIRST if self.stone_count % 2 == 0 else Player.SECOND

    @property
    def first_stones(self) -> int:
        """Bitboard of the first player's stones."""
        return self.current if self.stone_count % 2 == 0 else self.current ^ self.mask

    @property
    def second_stones(self) -> int:
        return self.first_stones ^ self.mask

    def stones_of(self, player: Player) -> int:
        return self.first_stones if player is Player.FIRST else self.second_stones

    def key(self) -> int:
        """Unique key: ``current + mask + bottom``.

        ``mask + bottom`` puts a single 1 just above each column's stones with
        no carry between columns; adding ``current`` then sets the stones of the
        side to move below it. Side to move is implied by the stone count.
        """
        return self.current + self.mask + bottom_mask(self.width, self.height)

    def column_height(self, col: int) -> int:
        return (self.mask & column_mask(col, self.height)).bit_count()

    def cell(self, col: int, row: int) -> int:
        """0 empty, 1 first player, 2 second player."""
        bit = 1 << (col * (self.height + 1) + row)
        if not self.mask & bit:
            return 0
        return Player.FIRST if self.first_stones & bit else Player.SECOND

    def can_play(self, col: int) -> bool:
        top = 1 << (self.height - 1 + col * (self.height + 1))
        return 0 <= col < self.width and not self.mask & top

    def legal_moves(self) -> list[int]:
        """0-based columns that are not full."""
        return [c for c in range(self.width) if self.can_play(c)]

    def is_winning_move(self, col: int) -> bool:
        """Would the side to move complete four by playing ``col`` (0-based)?"""
        return bool(self.winning_moves_mask() & self._column_move(col))

    def winning_moves_mask(self) -> int:
        """Playable cells where the side to move completes four."""
        win = winning_cells(self.current, self.mask, self.width, self.height)
        return win & (self.mask + bottom_mask(self.width, self.height))

    def can_win_next(self) -> bool:
        """Can the side to move complete four with its next stone?"""
        return bool(self.winning_moves_mask())

    def winner(self) -> Player | None:
        """The player who already has four in a row, if any."""
        if has_four(self.first_stones, self.height):
            return Player.FIRST
        if has_four(self.second_stones, self.height):
            return Player.SECOND
        return None

    def is_full(self) -> bool:
        return self.stone_count == self.width * self.height

    # ------------------------------------------------------------- transform
    def play(self, col: int) -> Position:
        """The position after the side to move plays ``col`` (0-based)."""
        if not self.can_play(col):
            raise InvalidArgument(f"column {col + 1} is full or outside the board")
        mask = self.mask | (self.mask + (1 << (col * (self.height + 1))))
        moves = None if self._moves is None else _append_move(self._moves, col, self.width)
        # the mover's stones become the opponent's: current ^ old mask
        return Position(self.current ^ self.mask, mask, self.width, self.height, moves)

    def play_moves(self, moves: str) -> Position:
        """Play further 1-based moves from this position."""
        pos = self
        for col in move_columns(moves, self.width):
            pos = pos.play(col)
        return pos

    def mirror(self) -> Position:
        """The position with its columns reversed."""
        return Position(
            _mirror_bits(self.current, self.width, self.height),
            _mirror_bits(self.mask, self.width, self.height),
            self.width,
            self.height,
            None,
        )

    def canonical(self) -> Position:
        """The variant of the mirror pair with the smaller key."""
        m = self.mirror()
        return m if m.key() < self.key() else self

    # ----------------------------------------------------------------- output
    def to_array(self) -> list[list[int]]:
        """``cells[col][row]``, row 0 at the bottom; 0 empty, 1 first, 2 second."""
        return [[self.cell(c, r) for r in range(self.height)] for c in range(self.width)]

    def to_diagram(self, first: str = "X", second: str = "O", empty: str = ".") -> str:
        """Rows top to bottom, one character per cell."""
        chars = {0: empty, 1: first, 2: second}
        return "\n".join(
            "".join(chars[self.cell(c, r)] for c in range(self.width))
            for r in reversed(range(self.height))
        )

    def to_moves(self) -> str | None:
        """The 1-based move string that built this position, when known."""
        return self._moves

    def some_moves(self) -> str:
        """A 1-based move string reaching this position (found by search if unknown).

        Raises ``ValueError`` when no legal game reaches the position.
        """
        if self._moves is not None:
            return self._moves
        found = _find_move_order(self)
        if found is None:
            raise InvalidArgument("no legal move order reaches this position")
        return found

    # -------------------------------------------------------------- legality
    def problems(self) -> list[str]:
        """Reasons this position cannot occur in a game (empty when legal)."""
        out: list[str] = []
        h1 = self.height + 1
        full = board_mask(self.width, self.height)
        if self.mask & ~full:
            out.append("stones outside the board")
        if self.current & ~self.mask:
            out.append("stones without an occupied cell")
        for col in range(self.width):
            bits = (self.mask >> (col * h1)) & ((1 << self.height) - 1)
            if bits & (bits + 1):  # a column's stones must be a run from the bottom
                out.append(f"column {col + 1} has a floating stone")
        a = self.first_stones.bit_count()
        b = self.second_stones.bit_count()
        if a != b and a != b + 1:
            out.append(f"stone counts do not alternate: first player {a}, second player {b}")
        win = self.winner()
        if win is not None:
            other = win.other
            if has_four(self.stones_of(other), self.height):
                out.append("both players have four in a row")
            else:
                out.append(f"the {win.name.lower()} player already has four in a row")
        return out

    def is_legal(self) -> bool:
        return not self.problems()

    def validate(self) -> Position:
        """Raise ``ValueError`` naming the first problem; return self otherwise."""
        probs = self.problems()
        if probs:
            raise InvalidArgument("illegal position: " + "; ".join(probs))
        return self

    # ---------------------------------------------------------------- dunder
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (self.current, self.mask, self.width, self.height) == (
            other.current,
            other.mask,
            other.width,
            other.height,
        )

    def __hash__(self) -> int:
        return hash((self.current, self.mask, self.width, self.height))

    def __repr__(self) -> str:
        if self._moves is not None:
            return f"Position.from_moves({self._moves!r})"
        return f"Position.from_diagram({self.to_diagram()!r})"

    def __str__(self) -> str:
        return self.to_diagram()

    def _column_move(self, col: int) -> int:
        """The cell a stone dropped in ``col`` lands on (0 if full)."""
        cm = column_mask(col, self.height)
        return (self.mask + (1 << (col * (self.height + 1)))) & cm


def _check_size(width: int, height: int) -> None:
    check_board_size(width, height)


def _digit(col: int) -> str:
    return str(col + 1)


def _append_move(moves: str, col: int, width: int) -> str:
    """``moves`` followed by the 1-based ``col``, written as
    :func:`openingbook.solver.geometry.move_string`."""
    if width <= MAX_DIGIT_WIDTH or not moves:
        return moves + _digit(col)
    return moves + "," + _digit(col)


def _mirror_bits(bits: int, width: int, height: int) -> int:
    h1 = height + 1
    col_bits = (1 << h1) - 1
    out = 0
    for col in range(width):
        out |= ((bits >> (col * h1)) & col_bits) << ((width - 1 - col) * h1)
    return out


def _find_move_order(target: Position) -> str | None:
    """Depth-first search for a legal move order reaching ``target``.

    Undo the last stone: it must be the top stone of some column, belong to the
    player who moved last, and the position before it must not already be won.
    """
    w, h = target.width, target.height

    dead: set[tuple[int, int]] = set()  # positions already shown unreachable

    def rec(first: int, mask: int) -> str | None:
        if (first, mask) in dead:
            return None
        n = mask.bit_count()
        if n == 0:
            return ""
        last_is_first = n % 2 == 1
        for col in range(w):
            colbits = (mask >> (col * (h + 1))) & ((1 << h) - 1)
            if not colbits:
                continue
            top = 1 << (col * (h + 1) + colbits.bit_length() - 1)
            if bool(first & top) != last_is_first:
                continue
            pf = first & ~top
            pm = mask & ~top
            if has_four(pf, h) or has_four(pf ^ pm, h):
                continue
            rest = rec(pf, pm)
            if rest is not None:
                return _append_move(rest, col, w)
        dead.add((first, mask))
        return None

    return rec(target.first_stones, target.mask)
