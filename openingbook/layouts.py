"""Positions as the agent environments write them, converted to bitboards and back.

A batch of positions comes in one of :data:`LAYOUTS`; :func:`read_batch` turns it
into ``first``/``mask`` bitboards (:mod:`openingbook.solver.bitboards`) and a status per row,
:func:`write_boards` turns bitboards into the arrays of a layout. Nothing here
imports an environment package: the layouts are conventions, written down once:

* ``"moves"``: 1-based move strings (``"4453"``), as Pons' solver and the public
  solver API take them.
* ``"actions"``: sequences of 0-based columns, as OpenSpiel's ``history()`` and
  the actions of a PettingZoo game.
* ``"pettingzoo"``: PettingZoo ``connect_four_v3`` observations, ``(6, 7, 2)``
  arrays: row 0 at the top, plane 0 the stones of the player to move, plane 1 the
  opponent's (an observation dict's ``"action_mask"`` is checked when given).
* ``"openspiel"``: OpenSpiel ``connect_four`` observation tensors, ``(3, 6, 7)``
  (or flat, 126 values): plane 0 the first player's stones (``x``), plane 1 the
  second player's (``o``), plane 2 the empty cells; row 0 at the bottom.
* ``"connectx"``: Kaggle ConnectX boards, 42 cells row-major from the top, 0 empty,
  1 and 2 the players' marks (mark 1 moves first); an observation dict's
  ``"mark"`` is checked when given.
* ``"cells012"``: ``(6, 7)`` arrays, 0 empty, 1 the first player, 2 the second.
* ``"cells101"``: ``(6, 7)`` arrays, 0 empty, 1 the first player, -1 the second.

The two plain layouts have row 0 at the top unless ``rows="bottom"``, and with
``relative=True`` read 1 as the player to move and 2 (or -1) as its opponent.
From an array alone the order of the moves is unknown, but not the position: the
stone counts tell whose move it is (equal counts: the first player's).

Every row is checked (:data:`ROW_STATUSES`): cells the layout does not use, floating
stones, stone counts that do not alternate, four in a row or a full board (the game
is over), a position no game reaches, an action mask or mark that contradicts the
board, a move string that cannot be played.

>>> batch = read_batch(["4453", "", "44444444"])
>>> batch.status.tolist(), batch.reasons[2]
([0, 0, 10], 'move 7 plays column 4, which is full')
>>> obs = write_boards("pettingzoo", batch.first[:1], batch.mask[:1])
>>> obs.shape, read_batch(obs).first[0] == batch.first[0]
((1, 6, 7, 2), np.True_)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from openingbook.errors import InvalidArgument
from openingbook.solver import (
    STATUS_BAD_CELLS,
    STATUS_BAD_MOVES,
    STATUS_CONTRADICTED,
    STATUS_GAME_OVER,
    STATUS_MESSAGES,
    STATUS_NOT_A_BOARD,
    STATUS_OK,
    STATUS_STONE_COUNTS,
    STATUS_TIMEOUT,
    STATUS_UNREACHABLE,
    STATUS_WINS_AT_ONCE,
    BoardSize,
    Position,
    book_position_status,
    cells_bitboards,
    has_four_bits,
)

__all__ = [
    "ENVIRONMENT_BOARD",
    "LAYOUTS",
    "PLAY_TOGETHER",
    "ROW_STATUSES",
    "Batch",
    "infer_layout",
    "play_move_strings",
    "read_batch",
    "write_boards",
]

#: The board of the environments' Connect Four (PettingZoo, OpenSpiel, ConnectX), the
#: layouts' default; move strings, actions and plain cells are read on any board.
ENVIRONMENT_BOARD = BoardSize(7, 6)

LAYOUTS = ("moves", "actions", "pettingzoo", "openspiel", "connectx", "cells012", "cells101")

#: Each status a row can have (:data:`openingbook.solver.STATUS_OK` and the codes of the conditions
#: a row can fail, the one status set of :mod:`openingbook.solver.membership`) in words (the
#: reasons give the row's details).
ROW_STATUSES = {
    STATUS_OK: "answered",
    STATUS_BAD_CELLS: "a cell value the layout does not use",
    STATUS_NOT_A_BOARD: "floating stones",
    STATUS_STONE_COUNTS: "stone counts that do not alternate",
    STATUS_GAME_OVER: "the game is over",
    STATUS_UNREACHABLE: "no game reaches the position",
    STATUS_CONTRADICTED: "the action mask or mark contradicts the board",
    STATUS_BAD_MOVES: "moves that cannot be played",
    STATUS_TIMEOUT: "not answered within the time limit",
}


@dataclass
class Batch:
    """A batch read by :func:`read_batch`: ``first``/``mask`` uint64 bitboards (0 in a
    row that is not a position), ``status`` (int8, :data:`ROW_STATUSES`) and
    ``reasons`` (None for a row that is fine, else one line naming what is wrong)."""

    layout: str
    board: BoardSize
    first: np.ndarray
    mask: np.ndarray
    status: np.ndarray
    reasons: list[str | None]

    def __len__(self) -> int:
        return len(self.status)

    @property
    def stones(self) -> np.ndarray:
        return np.bitwise_count(self.mask).astype(np.int64)

    def refuse(self, row: int, status: int, reason: str) -> None:
        """Mark ``row`` as not answered (its first reason is kept)."""
        if self.status[row] == STATUS_OK:
            self.status[row] = status
            self.reasons[row] = reason
            self.first[row] = self.mask[row] = 0

    def check(self) -> Batch:
        """Raise :class:`~openingbook.errors.InvalidArgument` naming the first row that is
        not :data:`STATUS_OK`; return the batch otherwise."""
        bad = np.flatnonzero(self.status != STATUS_OK)
        if bad.size:
            i = int(bad[0])
            more = f" ({bad.size - 1} more rows refused)" if bad.size > 1 else ""
            raise InvalidArgument(f"row {i}: {self.reasons[i]}{more}")
        return self


# ------------------------------------------------------------------ reading
def infer_layout(batch: Any, board: BoardSize = ENVIRONMENT_BOARD) -> str:
    """The layout of ``batch`` where its type or shape tells it, else
    :class:`~openingbook.errors.InvalidArgument` asking for ``layout=``.

    >>> infer_layout(["4453"]), infer_layout(np.zeros((8, 6, 7, 2))), infer_layout(np.zeros(42))
    ('moves', 'pettingzoo', 'connectx')
    """
    width, height = board
    if isinstance(batch, str):
        return "moves"
    if isinstance(batch, Mapping):
        return _dict_layout(batch)
    if isinstance(batch, Sequence) and batch and not isinstance(batch, np.ndarray):
        head = batch[0]
        if isinstance(head, str):
            return "moves"
        if isinstance(head, Mapping):
            return _dict_layout(head)
    array = _numeric(batch, "the batch")
    shape = array.shape
    if shape[-3:] == (height, width, 2):
        return "pettingzoo"
    if shape[-1:] == (width * height,):
        return "connectx"
    if shape[-1:] == (3 * width * height,) or (
        array.ndim == 4 and shape[-3:] == (3, height, width)
    ):
        return "openspiel"
    if shape[-2:] == (height, width) and array.ndim in (2, 3):
        if array.size and array.min() < 0:
            return "cells101"
        if array.size and array.max() > 1:
            return "cells012"
        return "cells012"  # 0/1 only: both layouts read 1 as the first player
    raise InvalidArgument(
        f"cannot tell the layout of an array of shape {shape}: "
        f"pass layout= (one of {', '.join(LAYOUTS)})"
    )


def _dict_layout(obs: Mapping[str, Any]) -> str:
    if "board" in obs:
        return "connectx"
    if "observation" in obs:
        return "pettingzoo"
    raise InvalidArgument(
        "an observation dict needs 'observation' (PettingZoo) or 'board' (ConnectX)"
    )


def _numeric(batch: Any, what: str) -> np.ndarray:
    try:
        array = np.asarray(batch)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{what} is not an array ({exc})") from None
    if array.dtype == object or array.dtype.kind not in "biuf":
        raise InvalidArgument(f"{what} is not an array of numbers (dtype {array.dtype})")
    return array


def read_batch(
    batch: Any,
    layout: str | None = None,
    *,
    board: BoardSize = ENVIRONMENT_BOARD,
    rows: str = "top",
    relative: bool = False,
    action_mask: Any = None,
    marks: Any = None,
) -> Batch:
    """Read a batch of positions (``layout`` None: :func:`infer_layout`) and check every
    row. A single position (one string, one observation) is a batch of one.

    ``rows`` (``"top"`` or ``"bottom"``: which row comes first) and ``relative`` apply
    to ``cells012``/``cells101``; ``action_mask`` ``(B, 7)`` to ``pettingzoo``, and
    ``marks`` ``(B,)`` to ``connectx`` (both taken from observation dicts too).
    A batch whose shape fits no layout raises
    :class:`~openingbook.errors.InvalidArgument`; a row that is not a position is
    reported in :attr:`Batch.status` (:meth:`Batch.check` raises for it).
    """
    board = BoardSize(*board)
    if layout is None:
        layout = infer_layout(batch, board)
    if layout not in LAYOUTS:
        raise InvalidArgument(f"unknown layout {layout!r}: choose one of {', '.join(LAYOUTS)}")
    if rows not in ("top", "bottom"):
        raise InvalidArgument(f"rows {rows!r}: expected 'top' or 'bottom'")
    if layout in ("moves", "actions"):
        out = _read_moves(batch, layout, board)
        # played move by move, each refused at a full column or a completed four: every
        # row read is a position of a game, the full board apart
        _refuse_full_boards(out)
    else:
        out = _read_arrays(batch, layout, board, rows, relative, action_mask, marks)
        _check_positions(out)
    return out


def _read_moves(batch: Any, layout: str, board: BoardSize) -> Batch:
    if layout == "moves":
        rows = [batch] if isinstance(batch, str) else list(_rows_of(batch, "move strings"))
    else:
        rows = list(_rows_of(batch, "action lists"))
        if rows and not isinstance(rows[0], (Sequence, np.ndarray)):
            rows = [rows]  # a single action list
    n = len(rows)
    out = _empty(layout, board, n)
    todo = range(n)
    batched = n >= PLAY_TOGETHER and board.width <= 9
    if layout == "moves" and batched and all(isinstance(r, str) for r in rows):
        todo = _play_digits(out, [r.strip() for r in rows])
    for i in todo:
        row = rows[i]
        try:
            if layout == "moves":
                if not isinstance(row, str):
                    raise InvalidArgument(f"expected a move string, got {type(row).__name__}")
                pos = Position.from_moves(row.strip(), *board)
            else:
                cols = [int(a) for a in row]
                if any(not 0 <= c < board.width for c in cols):
                    raise InvalidArgument(f"an action outside 0-{board.width - 1}")
                pos = Position.from_moves([c + 1 for c in cols], *board)
        except (InvalidArgument, TypeError, ValueError) as exc:
            out.refuse(i, STATUS_BAD_MOVES, str(exc))
            continue
        out.first[i], out.mask[i] = pos.first_stones, pos.mask
    return out


#: From this many move strings on, :func:`play_move_strings` plays them faster than one
#: by one.
PLAY_TOGETHER = 12


def _play_digits(out: Batch, lines: list[str]) -> list[int]:
    """Read the move strings :func:`play_move_strings` plays into ``out``; return the rows
    to read one by one (:meth:`~openingbook.solver.Position.from_moves` then words the reason)."""
    first, mask, fine = play_move_strings(lines, out.board)
    out.first[:], out.mask[:] = first, mask
    return np.flatnonzero(~fine).tolist()


def play_move_strings(
    lines: Sequence[str], board: BoardSize
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play move strings of single digits (``"4453"``, boards of up to 9 columns) all
    together: ``first``, ``mask`` (uint64 bitboards) and ``fine`` (bool), each ``(B,)``.

    ``fine`` is False, and the bitboards 0, for a string that is not such a game, to be
    read (and its reason worded) one by one by :meth:`openingbook.solver.Position.from_moves`: a
    character other than a column digit (whitespace and commas included: strip the
    strings first), a move in a full column, a move that completes four (the last one
    too), more moves than the board has cells, a board wider than 9 columns. A full
    board is fine. :meth:`~openingbook.solver.Position.from_moves` of one string at a time costs
    about 100 times more (4,096 strings of up to 14 moves: 1.3 ms here); here each ply
    of every string is played in a few array steps.

    >>> first, mask, fine = play_move_strings(["4453", "4444444", "44x", ""], BoardSize(7, 6))
    >>> fine.tolist(), int(mask[0]) == Position.from_moves("4453").mask
    ([True, False, False, True], True)
    """
    width, height = board
    n = len(lines)
    length = np.fromiter(map(len, lines), np.int64, n)
    fine = (length <= width * height) & (width <= 9)
    first = np.zeros(n, np.uint64)
    mask = np.zeros(n, np.uint64)
    longest = int(length[fine].max(initial=0))
    if longest == 0:
        return first, mask, fine
    if not fine.all():  # too long to be a game: not copied into the array
        lines = [line if ok else "" for line, ok in zip(lines, fine.tolist(), strict=True)]
        length = np.where(fine, length, 0)
    # (B, longest) 0-based columns, from code points: the NULs that pad the shorter
    # strings, like any character but a column digit, are no column (huge, unsigned);
    # a string is fine if each of its characters (its own length) is a column
    cols = np.array(lines, dtype=f"U{longest}").view(np.uint32).reshape(n, longest) - ord("1")
    column_digit = cols < width
    fine &= column_digit.sum(axis=1) == length
    # one ply at a time, every string together: a stone dropped in a column lands on the
    # lowest empty cell, (mask + the column's bottom cell) & the column's cells, or on
    # none when the column is full (its stone then goes missing from the count below)
    h1 = height + 1
    col = np.where(column_digit, cols, width).T  # (longest, B); width: no move
    bottom = np.array([1 << (c * h1) for c in range(width)] + [0], np.uint64)[col]
    column = np.array([((1 << height) - 1) << (c * h1) for c in range(width)] + [0], np.uint64)
    column = column[col]
    cell = np.empty(n, np.uint64)
    for k in range(longest):
        np.add(mask, bottom[k], out=cell)
        np.bitwise_and(cell, column[k], out=cell)
        np.bitwise_or(mask, cell, out=mask)
        if k % 2 == 0:
            np.bitwise_or(first, cell, out=first)
    fine &= np.bitwise_count(mask) == length
    # stones stay: a four on the final board was completed by one of the moves
    fine &= ~(has_four_bits(first, height) | has_four_bits(first ^ mask, height))
    zero = np.uint64(0)
    return np.where(fine, first, zero), np.where(fine, mask, zero), fine


def _rows_of(batch: Any, what: str) -> Sequence[Any]:
    if isinstance(batch, np.ndarray):
        return batch.tolist()
    if not isinstance(batch, Sequence):
        raise InvalidArgument(f"expected a list of {what}, got {type(batch).__name__}")
    return batch


def _empty(layout: str, board: BoardSize, n: int) -> Batch:
    return Batch(
        layout,
        board,
        np.zeros(n, np.uint64),
        np.zeros(n, np.uint64),
        np.zeros(n, np.int8),
        [None] * n,
    )


def _unpack_dicts(batch: Any, layout: str, action_mask: Any, marks: Any) -> tuple[Any, Any, Any]:
    """Observation dicts (one or a list) split into the board array and mask or marks."""
    dicts = [batch] if isinstance(batch, Mapping) else None
    if dicts is None and isinstance(batch, Sequence) and batch and isinstance(batch[0], Mapping):
        dicts = list(batch)
    if dicts is None:
        return batch, action_mask, marks
    key = "board" if layout == "connectx" else "observation"
    try:
        boards = [np.asarray(d[key]) for d in dicts]
    except KeyError:
        raise InvalidArgument(f"an observation dict without {key!r}") from None
    if layout == "connectx" and marks is None and all("mark" in d for d in dicts):
        marks = [d["mark"] for d in dicts]
    if layout == "pettingzoo" and action_mask is None and all("action_mask" in d for d in dicts):
        action_mask = [d["action_mask"] for d in dicts]
    if len({b.shape for b in boards}) > 1:
        raise InvalidArgument("the observations differ in shape")
    return np.stack(boards), action_mask, marks


def _read_arrays(
    batch: Any,
    layout: str,
    board: BoardSize,
    rows: str,
    relative: bool,
    action_mask: Any,
    marks: Any,
) -> Batch:
    width, height = board
    batch, action_mask, marks = _unpack_dicts(batch, layout, action_mask, marks)
    array = _numeric(batch, "the batch")
    single = {
        "pettingzoo": (height, width, 2),
        "openspiel": (3, height, width),
        "connectx": (width * height,),
        "cells012": (height, width),
        "cells101": (height, width),
    }[layout]
    if layout == "openspiel" and array.shape[-1:] == (3 * width * height,):
        array = array.reshape(*array.shape[:-1], *single)
    if array.shape == single:
        array = array[None]
    if array.ndim != len(single) + 1 or array.shape[1:] != single:
        raise InvalidArgument(
            f"a {layout} batch has shape (B, {', '.join(map(str, single))}), not {array.shape}"
        )
    n = array.shape[0]
    # every layout becomes (B, height, width) grids, row 0 at the top, 0 empty, then 1/2
    # either the first/second player (absolute) or the mover/opponent (relative)
    bad = np.zeros(n, bool)
    if layout == "pettingzoo":
        bad |= ~np.isin(array, (0, 1)).all(axis=(1, 2, 3))
        bad |= (array.sum(axis=3) > 1).any(axis=(1, 2))
        grid = np.where(array[..., 0] == 1, 1, np.where(array[..., 1] == 1, 2, 0))
        relative = True
    elif layout == "openspiel":
        bad |= ~np.isin(array, (0, 1)).all(axis=(1, 2, 3))
        bad |= (array.sum(axis=1) != 1).any(axis=(1, 2))
        grid = np.where(array[:, 0] == 1, 1, np.where(array[:, 1] == 1, 2, 0))[:, ::-1]
        relative = False
    elif layout == "connectx":
        bad |= ~np.isin(array, (0, 1, 2)).all(axis=1)
        grid = array.reshape(n, height, width)
        relative = False
    else:
        values = (0, 1, 2) if layout == "cells012" else (0, 1, -1)
        bad |= ~np.isin(array, values).all(axis=(1, 2))
        grid = np.where(array == 1, 1, np.where(array == values[2], 2, 0))
        if rows == "bottom":
            grid = grid[:, ::-1]
    grid = np.where(bad[:, None, None], 0, grid).astype(np.int8)
    wrong = np.zeros(n, bool)
    if relative:
        grid, wrong = _absolute(grid)
    cells = np.ascontiguousarray(grid[:, ::-1].transpose(0, 2, 1))  # [b, col, row], row 0 bottom
    first, mask = cells_bitboards(cells)
    out = Batch(layout, board, first, mask, np.zeros(n, np.int8), [None] * n)
    for i in np.flatnonzero(bad).tolist():
        out.refuse(i, STATUS_BAD_CELLS, f"a cell value the {layout} layout does not use")
    for i in np.flatnonzero(wrong).tolist():
        mover, other = (int(v) for v in _counts(array, layout, i))
        out.refuse(
            i,
            STATUS_STONE_COUNTS,
            f"the player to move has {mover} stones and its opponent {other}: "
            "the opponent has as many or one more",
        )
    if action_mask is not None:
        _check_action_mask(out, action_mask)
    if marks is not None:
        _check_marks(out, marks)
    return out


def _absolute(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mover/opponent grids as first/second player grids: equal counts, the mover is the
    first player; one stone more for the opponent, the second. Also the rows of other
    counts (emptied: the caller refuses them)."""
    mover = (grid == 1).sum(axis=(1, 2))
    other = (grid == 2).sum(axis=(1, 2))
    swap = other == mover + 1
    wrong = (other != mover) & ~swap
    out = np.where(swap[:, None, None], np.where(grid == 0, 0, 3 - grid), grid).astype(np.int8)
    out[wrong] = 0
    return out, wrong


def _counts(array: np.ndarray, layout: str, i: int) -> tuple[int, int]:
    """The mover's and the opponent's stones of a relative row."""
    row = array[i]
    if layout == "pettingzoo":
        return int(row[..., 0].sum()), int(row[..., 1].sum())
    two = 2 if layout == "cells012" else -1
    return int((row == 1).sum()), int((row == two).sum())


def _check_action_mask(out: Batch, action_mask: Any) -> None:
    width, height = out.board
    masks = _numeric(action_mask, "action_mask").astype(bool).reshape(-1, width)
    if len(masks) != len(out):
        raise InvalidArgument(f"action_mask has {len(masks)} rows for {len(out)} positions")
    top = np.array([1 << (c * (height + 1) + height - 1) for c in range(width)], np.uint64)
    playable = (out.mask[:, None] & top[None, :]) == 0
    for i in np.flatnonzero((masks != playable).any(axis=1)).tolist():
        out.refuse(
            i,
            STATUS_CONTRADICTED,
            f"the action mask {masks[i].astype(int).tolist()} is not the board's playable "
            f"columns {playable[i].astype(int).tolist()}",
        )


def _check_marks(out: Batch, marks: Any) -> None:
    marks = _numeric(marks, "marks").reshape(-1)
    if len(marks) != len(out):
        raise InvalidArgument(f"{len(marks)} marks for {len(out)} positions")
    expected = np.where(out.stones % 2 == 0, 1, 2)
    for i in np.flatnonzero(marks != expected).tolist():
        out.refuse(
            i,
            STATUS_CONTRADICTED,
            f"mark {marks[i]} is to move, but the stone counts say mark {expected[i]}",
        )


def _refuse_full_boards(out: Batch) -> None:
    """Refuse the rows whose board is full (a game over, though nobody won)."""
    for i in np.flatnonzero((out.stones == out.board.cells) & (out.status == STATUS_OK)).tolist():
        out.refuse(i, STATUS_GAME_OVER, _FULL_BOARD)


#: the reason of a full board, a game over though nobody won
_FULL_BOARD = "the board is full: the game is over"


def _check_positions(out: Batch) -> None:
    """Refuse the rows that are no position of a game that goes on."""
    width, height = out.board
    stones = out.stones
    cells = width * height
    for n in np.unique(stones[out.status == STATUS_OK]).tolist():
        rows = np.flatnonzero((stones == n) & (out.status == STATUS_OK))
        status = book_position_status(out.first[rows], out.mask[rows], n, width, height)
        for i, s in zip(rows.tolist(), status.tolist(), strict=True):
            if s not in (STATUS_OK, STATUS_WINS_AT_ONCE):
                out.refuse(i, s, f"the position {STATUS_MESSAGES[s]}")
            elif n == cells:
                out.refuse(i, STATUS_GAME_OVER, _FULL_BOARD)


# ------------------------------------------------------------------ writing
def write_boards(
    layout: str,
    first: np.ndarray,
    mask: np.ndarray,
    *,
    board: BoardSize = ENVIRONMENT_BOARD,
    rows: str = "top",
    relative: bool = False,
) -> np.ndarray:
    """The boards ``first``/``mask`` (uint64 arrays of shape ``(B,)``) as arrays of
    ``layout`` (any but ``moves``/``actions``): int8, float32 for ``openspiel``.
    :func:`read_batch` reads them back to the same bitboards."""
    width, height = BoardSize(*board)
    first = np.asarray(first, np.uint64).reshape(-1)
    mask = np.asarray(mask, np.uint64).reshape(-1)
    col = np.arange(width, dtype=np.uint64)[None, :] * np.uint64(height + 1)
    row = np.arange(height - 1, -1, -1, dtype=np.uint64)[:, None]  # top row first
    bits = np.uint64(1) << (col + row)  # (height, width)
    is_first = (first[:, None, None] & bits) != 0
    is_stone = (mask[:, None, None] & bits) != 0
    grid = np.where(is_stone, np.where(is_first, 1, 2), 0).astype(np.int8)  # row 0 top
    n = len(first)
    if layout == "pettingzoo" or relative:
        second_moves = np.bitwise_count(mask) % 2 == 1
        mover = np.where(second_moves[:, None, None], np.where(grid == 0, 0, 3 - grid), grid)
    if layout == "pettingzoo":
        return np.stack([mover == 1, mover == 2], axis=-1).astype(np.int8)
    if layout == "openspiel":
        planes = np.stack([grid == 1, grid == 2, grid == 0], axis=1)[:, :, ::-1]
        return np.ascontiguousarray(planes, dtype=np.float32)
    if layout == "connectx":
        return grid.reshape(n, width * height)
    if layout in ("cells012", "cells101"):
        out = mover.astype(np.int8) if relative else grid
        if layout == "cells101":
            out = np.where(out == 2, -1, out).astype(np.int8)
        return np.ascontiguousarray(out[:, ::-1]) if rows == "bottom" else out
    raise InvalidArgument(f"cannot write layout {layout!r}: choose one of {', '.join(LAYOUTS[2:])}")
