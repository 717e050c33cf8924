"""The UCI "Connect-4" data set layout (John Tromp's 8-ply positions), written from a book.

One line per position: 42 comma-separated cells ``a1, a2, ..., a6, b1, ..., g6``
(column letter a-g from the left, row 1 at the bottom), each ``x`` (first
player), ``o`` (second player) or ``b`` (blank), then the result for the first
player: ``win``, ``loss`` or ``draw``.

Tromp's published set (67,557 lines: 44,473 win, 16,635 loss, 6,449 draw)
holds the 8-ply positions where nobody has won, the side to move (the first
player) cannot win at once and, in addition, the second player has no
immediate threat (the "next move is not forced"), each mirror pair once. Its
lines follow a depth-first walk from the empty board that tries the columns
centre first (d, c, e, b, f, a, g) and never plays a winning move; a position
is listed, in the variant reached, the first time the walk reaches it or its
mirror image. :func:`tromp_order` reproduces that walk (checked against the
published file's first lines in the tests), so ``tromp_subset=True`` writes
the same lines in the same order. Without the subset, the extra book positions
(those with a second-player threat) are listed in the same walk order.

>>> from openingbook.solver import Position
>>> uci_fields(Position.from_moves("4453")).split(",")[12:19]  # c1..c6, d1
['o', 'b', 'b', 'b', 'b', 'b', 'x']
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.atomicio import atomic_output
from openingbook.checks.published import TROMP_BOARD
from openingbook.errors import InvalidArgument
from openingbook.formats.base import Format, require_7x6
from openingbook.solver import (
    Position,
    can_win_next_bits,
    canonical_keys,
    has_four_bits,
)

if TYPE_CHECKING:
    from openingbook.model import BookModel

__all__ = [
    "UciFormat",
    "tromp_order",
    "uci_lines",
    "write_uci",
]

WIDTH, HEIGHT = TROMP_BOARD  # Tromp's data set is of the 7x6 board
#: Columns (0-based) in the order Tromp's walk tries them: d, c, e, b, f, a, g.
TROMP_COLUMN_ORDER = (3, 2, 4, 1, 5, 0, 6)
#: Deepest ply :func:`tromp_order` handles in memory (its last layer is ~7x the ply's size).
MAX_UCI_PLIES = 10
CLASS_NAMES = {1: b"win", -1: b"loss", 0: b"draw"}
_U64 = np.uint64


def uci_fields(pos: Position) -> str:
    """The 42 cell fields of one position (no result), the definition read literally.

    >>> uci_fields(Position.from_moves("1"))[:3]
    'x,b'
    """
    chars = {0: "b", 1: "x", 2: "o"}
    return ",".join(chars[pos.cell(col, row)] for col in range(WIDTH) for row in range(HEIGHT))


def opponent_threat(first: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Could the player who is *not* to move complete four on a playable cell?

    Swapping the players' stones (``first ^ mask``) makes the other player the
    side to move of :func:`openingbook.solver.bitboards.can_win_next_bits`.

    >>> p = Position.from_moves("1212123")  # B to move, A has three in column 1
    >>> opponent_threat(np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64))
    array([ True])
    """
    first = np.asarray(first, dtype=np.uint64)
    mask = np.asarray(mask, dtype=np.uint64)
    return can_win_next_bits(first ^ mask, mask, WIDTH, HEIGHT)


def tromp_order(plies: int, tromp_subset: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Book positions of ``plies`` stones in the order and variants of Tromp's walk.

    Book positions: nobody has four and the side to move cannot win at once,
    one variant per mirror pair. With ``tromp_subset`` also drop positions where
    the other player has an immediate threat (Tromp's "not forced" set).
    Raises ``ValueError`` above :data:`MAX_UCI_PLIES`.

    The walk is computed layer by layer: a position's first visit comes from the
    parent visited first and, among its moves, the column tried first, so each
    layer, kept in visiting order, is the previous layer's children sorted by
    (parent's position in its layer, column rank), with later duplicates of a
    mirror pair dropped.

    >>> first, mask = tromp_order(8, tromp_subset=True)
    >>> len(first)
    67557
    >>> uci_fields(Position.from_bitboards(int(first[0]), int(mask[0]))).split(",")[12:24]
    ['x', 'o', 'b', 'b', 'b', 'b', 'x', 'o', 'x', 'o', 'x', 'o']
    """
    _require_uci_plies(plies)
    h1 = HEIGHT + 1
    first = np.zeros(1, dtype=np.uint64)
    mask = np.zeros(1, dtype=np.uint64)
    for stones in range(plies):
        first_moves = stones % 2 == 0
        kids_first = np.empty((first.size, WIDTH), dtype=np.uint64)
        kids_mask = np.empty((first.size, WIDTH), dtype=np.uint64)
        ok = np.empty((first.size, WIDTH), dtype=bool)
        for rank, col in enumerate(TROMP_COLUMN_ORDER):
            bottom = _U64(1 << (col * h1))
            top = _U64(1 << (col * h1 + HEIGHT - 1))
            new_mask = mask | (mask + bottom)
            stone = new_mask ^ mask
            new_first = first | stone if first_moves else first
            mover = new_first if first_moves else new_first ^ new_mask
            kids_first[:, rank] = new_first
            kids_mask[:, rank] = new_mask
            ok[:, rank] = ((mask & top) == 0) & ~has_four_bits(mover, HEIGHT)
        kids_first, kids_mask = kids_first[ok], kids_mask[ok]  # row-major: visiting order
        keys = canonical_keys(kids_first, kids_mask, WIDTH, HEIGHT)
        _, firsts = np.unique(keys, return_index=True)
        firsts.sort()
        first, mask = kids_first[firsts], kids_mask[firsts]
    keep = ~can_win_next_bits(first, mask, WIDTH, HEIGHT)
    if tromp_subset:
        keep &= ~opponent_threat(first, mask)
    return first[keep], mask[keep]


def _require_uci_plies(plies: int) -> None:
    """Refuse a ply past :data:`MAX_UCI_PLIES` (:class:`InvalidArgument`)."""
    if not 0 <= plies <= MAX_UCI_PLIES:
        raise InvalidArgument(
            f"UCI rows are made for books of at most {MAX_UCI_PLIES} plies, not {plies} "
            "(use the csv or jsonl format for deeper books)"
        )


def uci_lines(first: np.ndarray, mask: np.ndarray, winner: np.ndarray) -> list[bytes]:
    """One UCI line (with its newline) per position; ``winner`` +1/-1/0 for the first player.

    >>> p = Position.from_moves("44")
    >>> uci_lines(np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64),
    ...           np.array([1]))[0][34:42]  # c6, d1, d2, d3
    b'b,x,o,b,'
    """
    first = np.asarray(first, dtype=np.uint64)
    mask = np.asarray(mask, dtype=np.uint64)
    cells = np.empty((first.size, 2 * WIDTH * HEIGHT), dtype=np.uint8)
    cells[:, 1::2] = ord(",")
    for col in range(WIDTH):
        for row in range(HEIGHT):
            bit = _U64(col * (HEIGHT + 1) + row)
            occupied = ((mask >> bit) & _U64(1)) != 0
            is_first = ((first >> bit) & _U64(1)) != 0
            char = np.where(occupied, np.where(is_first, ord("x"), ord("o")), ord("b"))
            cells[:, 2 * (col * HEIGHT + row)] = char
    prefixes = cells.view(f"S{cells.shape[1]}").reshape(-1).tolist()
    names = [CLASS_NAMES[int(w)] for w in np.asarray(winner).tolist()]
    return [p + n + b"\n" for p, n in zip(prefixes, names, strict=True)]


def write_uci(
    path: str | os.PathLike[str], first: np.ndarray, mask: np.ndarray, winner: np.ndarray
) -> int:
    """Write the positions as UCI lines in the given order (atomically); return the count."""
    with atomic_output(path) as fh:
        step = 1 << 18
        for start in range(0, len(first), step):
            stop = start + step
            fh.write(b"".join(uci_lines(first[start:stop], mask[start:stop], winner[start:stop])))
    return len(first)


class UciFormat(Format):
    name = "uci"
    description = "UCI / Tromp CSV: 42 x/o/b cells a1..g6, then win/loss/draw for the first player"
    suffixes = (".data",)
    readable = False
    text = True
    export_options = frozenset({"tromp_subset"})

    def refuse_export(self, book: Any, **options: Any) -> None:
        super().refuse_export(book, **options)
        _require_uci_plies(int(book.plies or 0))

    def export(
        self, model: BookModel, out: str | os.PathLike[str], **options: Any
    ) -> tuple[int, dict[str, Any]]:
        """Options: ``tromp_subset``: only the positions of Tromp's data set. The lines
        are in Tromp's order and variants (:func:`tromp_order`)."""
        tromp_subset = bool(options.get("tromp_subset"))
        selected = _tromp_selection(model, tromp_subset)
        winner = selected.winner
        return self.write(selected, out), {
            "tromp_subset": tromp_subset,
            "win": int((winner > 0).sum()),
            "loss": int((winner < 0).sum()),
            "draw": int((winner == 0).sum()),
        }

    def write(self, model: BookModel, out: str | os.PathLike[str], **options: Any) -> Any:
        require_7x6(model, self.name)
        return write_uci(out, model.first, model.mask, model.winner)


def _tromp_selection(model: BookModel, tromp_subset: bool) -> BookModel:
    """The book's positions in Tromp's order and variants, with their results."""
    first, mask = tromp_order(model.plies, tromp_subset)
    wanted = canonical_keys(first, mask, *model.board)
    have = canonical_keys(model.first, model.mask, *model.board)
    sorter = np.argsort(have)
    at = sorter[np.clip(np.searchsorted(have, wanted, sorter=sorter), 0, have.size - 1)]
    present = have[at] == wanted  # all of them, unless the book covers one subtree
    return replace(model.select(at[present]), first=first[present], mask=mask[present])
