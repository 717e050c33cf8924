"""Count a book: :func:`book_stats`, record and value counts, Tromp's 8-ply subset
counts, and the published per-ply counts (:mod:`openingbook.checks.plycounts`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from openingbook.checks.plycounts import PlyCounts, per_ply_counts_from_values
from openingbook.checks.published import TROMP_BOARD, TROMP_SUBSET_COUNTS
from openingbook.checks.report import (
    Report,
    StoredValues,
)
from openingbook.counts import value_histogram
from openingbook.errors import BookFileError, InvalidArgument
from openingbook.formats import Layout, load_book
from openingbook.model import BookModel
from openingbook.solver import (
    DEFAULT_BOARD,
    can_win_next_bits,
    positions_with_moves,
)
from openingbook.values import UNKNOWN

__all__ = ["TROMP_COUNTS", "StatsReport", "book_part", "book_stats", "tromp_subset"]

#: Tromp's 8-ply data set: first-player wins, second-player wins, draws.
TROMP_COUNTS = TROMP_SUBSET_COUNTS  # the published figures live in openingbook.checks.published


@dataclass
class StatsReport(Report):
    """Result of :func:`book_stats`."""

    book: str
    format: str
    records: int
    positions: int
    duplicate_mirror_pairs: int
    scope: str
    stored_values: dict[str, int]
    distance_histogram: dict[str, int] | None
    tromp: dict[str, Any] | None
    per_ply: PlyCounts | None = None

    @property
    def ok(self) -> bool:
        """False only when published counts were compared and differ."""
        tromp_ok = self.tromp is None or self.tromp.get("matches_published") is not False
        per_ply_ok = self.per_ply is None or self.per_ply.matches_published is not False
        return tromp_ok and per_ply_ok

    def as_dict(self) -> dict[str, Any]:
        d = super().as_dict()
        d["per_ply"] = None if self.per_ply is None else self.per_ply.as_dict()
        return d

    def lines(self) -> list[str]:
        v = self.stored_values
        out = [
            f"{self.book}: {self.format}",
            f"records: {self.records}; positions: {self.positions} "
            f"({self.duplicate_mirror_pairs} stored in both mirror variants); {self.scope}",
            f"stored values: first player wins {v['first']}, second player wins "
            f"{v['second']}, draws {v['draw']}",
        ]
        if self.distance_histogram:
            hist = ", ".join(f"{k}: {c}" for k, c in self.distance_histogram.items())
            out.append(f"distances (plies: records): {hist}")
        if self.tromp is not None:
            t = self.tromp
            out.append(
                f"Tromp's subset ({t['positions']} positions{t['where']}): first player wins "
                f"{t['first']}, second player wins {t['second']}, draws {t['draw']}"
                + (f", unknown {t['unknown']}" if t["unknown"] else "")
            )
            if t.get("matches_published") is not None:
                p = TROMP_COUNTS
                verdict = "match" if t["matches_published"] else "DIFFER FROM"
                out.append(
                    f"{verdict} Tromp's published {p['first']} / {p['second']} / {p['draw']}"
                )
            else:
                out.append(f"not compared with Tromp's published counts: {t['why_not_compared']}")
        if self.per_ply is not None:
            out.extend(self.per_ply.lines())
        return out


def tromp_subset(first: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Positions in Tromp's data set: the player who just moved has no immediate threat.

    (The side to move cannot win at once in a book position anyway.) Swapping
    the colours makes the other player the side to move.

    >>> from openingbook.solver import Position
    >>> threat, calm = Position.from_moves("717161"), Position.from_moves("717162")
    >>> tromp_subset([threat.first_stones, calm.first_stones], [threat.mask, calm.mask]).tolist()
    [False, True]
    """
    first = np.asarray(first, np.uint64)
    mask = np.asarray(mask, np.uint64)
    return ~can_win_next_bits(first ^ mask, mask, *TROMP_BOARD)


def book_stats(
    path: str | os.PathLike[str],
    tromp: bool = False,
    layout: Layout | None = None,
    per_ply: bool = False,
) -> StatsReport:
    """Record and value counts of a book; with ``tromp``, the counts on Tromp's subset.

    With ``per_ply``, the book (complete, unscoped) expanded to every position of its
    ply as the published per-ply tables count them (:mod:`openingbook.checks.plycounts`).

    Tromp's subset is the ply's book positions (within the book's scope) in which
    the player who just moved could not complete four at once either; mirror
    pairs once. For a complete 8-ply book the counts are compared with Tromp's
    published 44,473 / 16,635 / 6,449. ``layout``: the record layout, when not detected.
    """
    book = load_book(path, layout=layout, complete=False)
    if (tromp or per_ply) and book.board != DEFAULT_BOARD:
        raise InvalidArgument(
            f"the published counts are of the 7x6 board; {book.path.name} is a {book.board} book",
            argument="tromp" if tromp else "per_ply",
        )
    stored_book = StoredValues.of(book)
    histogram = value_histogram(book)
    stored = {k: int(histogram[k]) for k in ("first", "second", "draw")}
    hist = None
    if stored_book.distances:
        hist = {f"first wins in {d}": c for d, c in histogram["first_by_plies"].items()}
        hist.update({f"second wins in {d}": c for d, c in histogram["second_by_plies"].items()})
    report = StatsReport(
        book=str(book.path),
        format=stored_book.format,
        records=stored_book.records,
        positions=stored_book.positions,
        duplicate_mirror_pairs=(
            0 if book.stored is None else stored_book.records - stored_book.positions
        ),
        scope=book.scope.describe(),
        stored_values=stored,
        distance_histogram=hist,
        tromp=None,
    )
    if tromp:
        report.tromp = _tromp_counts(book)
    if per_ply:
        report.per_ply = _per_ply_counts(book)
    return report


def _per_ply_counts(book: BookModel) -> PlyCounts:
    """A complete book's per-ply counts, or a compact part's (of its part only)."""
    part = book_part(book.path)
    if not book.scope.complete and part is None:
        raise BookFileError(
            f"the scope of {book.path.name} is {book.scope.describe()}: per-ply counts "
            "need a complete book or a part"
        )

    def lookup(first: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        winner = book.answers(first, mask).winner
        return winner != UNKNOWN, winner

    return per_ply_counts_from_values(book.plies, lookup, *book.board, part=part)


def book_part(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """``(i, n)`` when ``path`` is a compact part of a ply (``build --part``), else None."""
    from openingbook.formats.compact import CompactBook, is_compact

    if not is_compact(path):
        return None
    with CompactBook(path, verify=False) as book:
        return book.part


def _tromp_counts(book: BookModel) -> dict[str, Any]:
    if book.scope.partial:
        raise BookFileError(
            f"{book.path.name} is {book.scope.describe()}: Tromp's counts need every position"
        )
    if book.scope.under and len(book.scope.under) > book.plies:
        raise BookFileError(f"{book.path.name} holds no {book.plies}-ply position under a line")
    f, m, _ = positions_with_moves(book.plies, book.scope.under, *book.board)
    keep = tromp_subset(f, m)
    winner = book.answers(f[keep], m[keep]).winner
    known = winner != UNKNOWN
    w = winner[known]
    out: dict[str, Any] = {
        "positions": int(keep.sum()),
        "where": f" under {book.scope.under}" if book.scope.under else "",
        "first": int((w > 0).sum()),
        "second": int((w < 0).sum()),
        "draw": int((w == 0).sum()),
        "unknown": int((~known).sum()),
    }
    if book.plies == 8 and book.scope.complete:
        out["published"] = dict(TROMP_COUNTS)
        out["matches_published"] = (
            all(out[k] == TROMP_COUNTS[k] for k in TROMP_COUNTS) and not out["unknown"]
        )
    else:
        out["matches_published"] = None
        out["why_not_compared"] = (
            "Tromp's counts are for the complete 8-ply set"
            if book.plies == 8
            else f"Tromp's data set is 8-ply, this book has {book.plies} plies"
        )
    return out
