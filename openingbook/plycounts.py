"""A complete book expanded to the published per-ply counts of all positions.

A ply-``n`` book stores one variant per mirror pair and leaves out the positions where
the side to move can complete four at once; the published tables
(:mod:`openingbook.published`) count every position reachable in legal play after ``n``
plies: both mirror variants, the immediate wins, and the finished games (the player who
just moved has four). :func:`per_ply_counts` rebuilds those counts from a book and the
enumeration, so a book can be compared with Tromp's position counts and with the
won/drawn/lost counts of the published strong solution:

* every position of the ply (both variants) that the book answers: its value, turned to
  the side to move's view;
* positions where the side to move can complete four at once: won;
* finished games (children of the ``n - 1``-ply positions in which the mover completes
  four, each distinct position once): lost for the side to move.

>>> everything_known = lambda f, m: (np.ones(len(f), bool), np.zeros(len(f), np.int8))
>>> per_ply_counts_from_values(7, everything_known, 7, 6).total == POSITIONS_PER_PLY[7]
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from openingbook.published import POSITIONS_PER_PLY, WDL_PER_PLY
from solver import (
    can_win_next_bits,
    enumerate_positions,
    has_four_bits,
    position_keys,
)

#: ``(first, mask) -> (known, winner)``: a book's answers, winner from the first
#: player's side (+1 first wins, -1 second, 0 draw).
ValueLookup = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass
class PlyCounts:
    """All positions after ``plies`` plies, won/drawn/lost for the side to move."""

    plies: int
    total: int
    won: int
    drawn: int
    lost: int
    from_book: int
    immediate_wins: int
    finished: int
    unknown: int

    @property
    def published(self) -> dict[str, int] | None:
        if self.plies not in WDL_PER_PLY:
            return None
        won, drawn, lost = WDL_PER_PLY[self.plies]
        return {"total": POSITIONS_PER_PLY[self.plies], "won": won, "drawn": drawn, "lost": lost}

    @property
    def matches_published(self) -> bool | None:
        pub = self.published
        if pub is None:
            return None
        mine = {"total": self.total, "won": self.won, "drawn": self.drawn, "lost": self.lost}
        return mine == pub and self.unknown == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "plies": self.plies,
            "total": self.total,
            "won": self.won,
            "drawn": self.drawn,
            "lost": self.lost,
            "from_book": self.from_book,
            "immediate_wins": self.immediate_wins,
            "finished": self.finished,
            "unknown": self.unknown,
            "published": self.published,
            "matches_published": self.matches_published,
        }

    def lines(self) -> list[str]:
        out = [
            f"all {self.plies}-ply positions (both mirror variants): {self.total:,}"
            f" = {self.from_book:,} answered by the book + {self.immediate_wins:,} where the"
            f" side to move wins at once + {self.finished:,} finished games",
            f"side to move: won {self.won:,}, drawn {self.drawn:,}, lost {self.lost:,}"
            + (f", unknown {self.unknown:,}" if self.unknown else ""),
        ]
        pub = self.published
        if pub is None:
            out.append(f"no published per-ply counts for {self.plies} plies")
        else:
            verdict = "match" if self.matches_published else "DO NOT MATCH"
            out.append(
                f"published: {pub['total']:,} positions, won {pub['won']:,}, drawn"
                f" {pub['drawn']:,}, lost {pub['lost']:,}: {verdict}"
            )
        return out


def finished_games(plies: int, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Every position after ``plies`` plies in which the player who just moved has four.

    Both mirror variants, each distinct position once, as ``(first, mask)``.
    """
    if plies < 7:  # the first player's fourth stone is the 7th
        return np.empty(0, np.uint64), np.empty(0, np.uint64)
    first, mask = enumerate_positions(
        plies - 1, None, width, height, merge_mirrors=False, drop_immediate_wins=False
    )
    # the mover of the last ply: the first player when plies - 1 stones is even
    mover = first if (plies - 1) % 2 == 0 else first ^ mask
    out_first, out_mask = [], []
    column_bits = height + 1
    for col in range(width):
        bottom = np.uint64(1 << (col * column_bits))
        column = np.uint64(((1 << height) - 1) << (col * column_bits))
        # adding the column's bottom bit to its stones carries into its first empty cell
        move = (mask + bottom) & column
        playable = move != 0
        stones = mover[playable] | move[playable]
        wins = has_four_bits(stones, height)
        new_mask = mask[playable][wins] | move[playable][wins]
        new_mover = stones[wins]
        out_mask.append(new_mask)
        out_first.append(new_mover if (plies - 1) % 2 == 0 else new_mask ^ new_mover)
    f = np.concatenate(out_first)
    m = np.concatenate(out_mask)
    _, keep = np.unique(position_keys(f, m, width, height), return_index=True)
    return f[keep], m[keep]


def per_ply_counts_from_values(
    plies: int,
    lookup: ValueLookup,
    width: int,
    height: int,
) -> PlyCounts:
    """The per-ply counts of ``plies`` with the values ``lookup`` gives (see module doc)."""
    first, mask = enumerate_positions(
        plies, None, width, height, merge_mirrors=False, drop_immediate_wins=False
    )
    immediate = can_win_next_bits(first, mask, width, height)
    bf, bm = first[~immediate], mask[~immediate]
    known, winner = lookup(bf, bm)
    # side to move's view: the first player moves when the stone count is even
    stm = winner if plies % 2 == 0 else -winner
    finished = len(finished_games(plies, width, height)[0])
    n_immediate = int(immediate.sum())
    won = int(((stm > 0) & known).sum()) + n_immediate
    drawn = int(((stm == 0) & known).sum())
    lost = int(((stm < 0) & known).sum()) + finished
    return PlyCounts(
        plies=plies,
        total=len(first) + finished,
        won=won,
        drawn=drawn,
        lost=lost,
        from_book=len(bf),
        immediate_wins=n_immediate,
        finished=finished,
        unknown=int((~known).sum()),
    )
