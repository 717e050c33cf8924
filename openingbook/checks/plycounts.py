"""A complete book expanded to the published per-ply counts of all positions.

A ply-``n`` book stores one variant per mirror pair and leaves out the positions where
the side to move can complete four at once; the published tables
(:mod:`openingbook.checks.published`) count every position reachable in legal play after ``n``
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

from openingbook.checks.published import POSITIONS_PER_PLY, WDL_PER_PLY
from openingbook.errors import InvalidArgument
from openingbook.solver import (
    can_win_next_bits,
    enumerate_positions,
    iter_parts,
    mirror_bits,
    position_keys,
)
from openingbook.solver import finished_games as solver_finished_games

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
    #: ``(i, n)`` when these are the counts of part i of n only
    part: tuple[int, int] | None = None

    @property
    def published(self) -> dict[str, int] | None:
        """The published counts of the whole ply (None for a part or an unpublished ply)."""
        if self.plies not in WDL_PER_PLY or self.part is not None:
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
            "part": None if self.part is None else f"{self.part[0]}/{self.part[1]}",
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
        if self.part is not None:
            out[0] = f"part {self.part[0]}/{self.part[1]} of the " + out[0]
            out.append("no published counts for a part: add up the counts of all parts")
        elif pub is None:
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

    Both mirror variants (:func:`openingbook.solver.finished_games` gives one per pair), each
    distinct position once, as ``(first, mask)``.
    """
    first, mask = solver_finished_games(plies, width, height)
    return _both_variants(first, mask, width, height)


def _both_variants(
    first: np.ndarray, mask: np.ndarray, width: int, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """Canonical positions and their mirror images (symmetric ones once)."""
    mf, mm = mirror_bits(first, width, height), mirror_bits(mask, width, height)
    other = (mf != first) | (mm != mask)
    return np.concatenate([first, mf[other]]), np.concatenate([mask, mm[other]])


@dataclass
class PositionCounts:
    """Every position after ``plies`` plies, counted as the published tables count them."""

    plies: int
    book: int  #: book positions, one per mirror pair (what ``enumerate`` prints)
    variants: int  #: positions nobody has won, both variants, immediate wins included
    immediate_wins: int  #: of those, the side to move completes four at once
    finished: int  #: finished games (the player who just moved has four), both variants
    parts: int  #: parts the ply was enumerated in

    @property
    def total(self) -> int:
        return self.variants + self.finished

    @property
    def published(self) -> int | None:
        return POSITIONS_PER_PLY.get(self.plies)

    @property
    def matches_published(self) -> bool | None:
        return None if self.published is None else self.total == self.published

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.__dict__,
            "total": self.total,
            "published": self.published,
            "matches_published": self.matches_published,
        }

    def lines(self) -> list[str]:
        out = [
            f"{self.plies}-ply book positions (one per mirror pair): {self.book:,}",
            f"all {self.plies}-ply positions: {self.total:,} = {self.variants:,} nobody has "
            f"won (both variants; {self.immediate_wins:,} where the side to move wins at "
            f"once) + {self.finished:,} finished games",
        ]
        if self.published is None:
            out.append(f"no published count for {self.plies} plies")
        else:
            verdict = "match" if self.matches_published else "DOES NOT MATCH"
            out.append(f"published (Tromp): {self.published:,}: {verdict}")
        return out


def count_all_positions(plies: int, parts: int, width: int, height: int) -> PositionCounts:
    """Count every position after ``plies`` plies part by part (bounded memory: the
    previous layer and one part; 14 plies in 32 parts: about 1.5 GB, minutes).

    >>> count_all_positions(8, 3, 7, 6).as_dict()["matches_published"]
    True
    """
    book = variants = immediate = finished = 0
    for _, first, mask in iter_parts(plies, parts, width, height, drop_immediate_wins=False):
        keys = position_keys(first, mask, width, height)
        copies = np.where(mirror_bits(keys, width, height) == keys, 1, 2)
        wins = can_win_next_bits(first, mask, width, height)
        book += int((~wins).sum())
        variants += int(copies.sum())
        immediate += int(copies[wins].sum())
    for _, first, mask in iter_parts(plies, parts, width, height, finished=True):
        finished += len(_both_variants(first, mask, width, height)[0])
    return PositionCounts(plies, book, variants, immediate, finished, parts)


def per_ply_counts_from_values(
    plies: int,
    lookup: ValueLookup,
    width: int,
    height: int,
    part: tuple[int, int] | None = None,
) -> PlyCounts:
    """The per-ply counts of ``plies`` with the values ``lookup`` gives (see module doc).

    ``part=(i, n)``: the counts of the positions of part ``i`` only (both variants of
    the pairs whose canonical key is in the part); the counts of all ``n`` parts add
    up (:func:`add_counts`) to the whole ply's.
    """
    first, mask = enumerate_positions(
        plies, None, width, height, merge_mirrors=False, drop_immediate_wins=False, part=part
    )
    immediate = can_win_next_bits(first, mask, width, height)
    bf, bm = first[~immediate], mask[~immediate]
    known, winner = lookup(bf, bm)
    # side to move's view: the first player moves when the stone count is even
    stm = winner if plies % 2 == 0 else -winner
    finished = len(_both_variants(*solver_finished_games(plies, width, height, part=part),
                                  width, height)[0])  # fmt: skip
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
        part=part,
    )


def add_counts(counts: list[PlyCounts]) -> PlyCounts:
    """The counts of the parts ``1/n .. n/n`` of one ply added up: the whole ply's
    (``ValueError`` unless they are exactly the ``n`` parts of one ply).

    >>> know = lambda f, m: (np.ones(len(f), bool), np.zeros(len(f), np.int8))
    >>> parts = [per_ply_counts_from_values(7, know, 7, 6, part=(i, 2)) for i in (1, 2)]
    >>> add_counts(parts).total == per_ply_counts_from_values(7, know, 7, 6).total
    True
    """
    plies = {c.plies for c in counts}
    n = {c.part[1] if c.part else 0 for c in counts}
    numbers = sorted(c.part[0] if c.part else 0 for c in counts)
    if len(plies) != 1 or len(n) != 1 or numbers != list(range(1, next(iter(n)) + 1)):
        raise InvalidArgument("give the counts of every part 1/n .. n/n of one ply, once each")
    fields = ("total", "won", "drawn", "lost", "from_book", "immediate_wins", "finished", "unknown")
    sums = {f: sum(getattr(c, f) for c in counts) for f in fields}
    return PlyCounts(plies=counts[0].plies, **sums)
