"""Diff two books of one ply, mirror-aware and across formats: :func:`diff_books`."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from openingbook.checks.report import (
    PositionReport,
    Report,
    answer_entry,
    position_report,
)
from openingbook.errors import BookFileError
from openingbook.formats import load_book
from openingbook.model import require_board

__all__ = ["DiffReport", "diff_books"]


@dataclass
class DiffReport(Report):
    """Result of :func:`diff_books`. ``ok`` when the books say the same of every position."""

    a: str
    b: str
    plies: int
    compared_by: str
    positions_a: int
    positions_b: int
    common: int
    implied_agreements: int
    only_in_a: list[PositionReport]
    only_in_b: list[PositionReport]
    value_differences: list[PositionReport]
    notes: list[str]

    @property
    def ok(self) -> bool:
        return not (self.only_in_a or self.only_in_b or self.value_differences)

    def lines(self, limit: int = 0) -> list[str]:
        """Human-readable report; ``limit`` > 0 caps each list."""
        out = [
            f"diff {self.a} ({self.positions_a} positions) and {self.b} "
            f"({self.positions_b} positions), {self.plies} plies, comparing {self.compared_by}"
        ]
        out += [f"note: {n}" for n in self.notes]
        for title, items in (
            ("only in A", self.only_in_a),
            ("only in B", self.only_in_b),
            ("values differ", self.value_differences),
        ):
            shown = items[:limit] if limit > 0 else items
            for d in shown:
                out.append(f"{title}:")
                out += ["  " + line for line in d.lines("A", "B")]
            if len(shown) < len(items):
                out.append(f"{title}: {len(items) - len(shown)} more (use --json or --limit 0)")
        verdict = "SAME" if self.ok else "DIFFERENT"
        out.append(
            f"{verdict}: {self.common} in both, {len(self.only_in_a)} only in A, "
            f"{len(self.only_in_b)} only in B, {len(self.value_differences)} values differ, "
            f"{self.implied_agreements} agree through the pruning rule"
        )
        return out


def diff_books(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> DiffReport:
    """Compare two books of the same ply, position by position (mirror pairs merged).

    Books built under a line are compared only inside their scopes (both
    lines). "Only in A" lists positions A stores and B does not, unless B implies the
    same value (a pruned B answers "first player wins" for what it does not
    store); "values differ" lists positions both store with different values.
    Distance books are compared on distances when both have them, else on
    win/draw/loss.
    """
    book_a, book_b = load_book(a, complete=False), load_book(b, complete=False)
    require_board(book_b.path.name, book_b.board, book_a.board)
    if book_a.plies != book_b.plies:
        raise BookFileError(
            f"{book_a.path.name} has {book_a.plies} plies, {book_b.path.name} "
            f"{book_b.plies}: diff compares books of one ply (use validate)"
        )
    notes = []
    canonical_a, canonical_b = book_a.canonical, book_b.canonical
    positions = {}
    for bk, canonical in ((book_a, canonical_a), (book_b, canonical_b)):
        if not bk.scope.known:
            notes.append(f"{bk.path.name}: scope {bk.scope.describe()}")
        elif not bk.scope.complete:
            notes.append(f"{bk.path.name} holds {bk.scope.describe()}")
        positions[id(bk)] = len(np.unique(canonical))
        dup = len(canonical) - positions[id(bk)]
        if dup:
            notes.append(f"{bk.path.name} stores {dup} mirror pairs twice (compared once)")
    _, pick = np.unique(np.concatenate([canonical_a, canonical_b]), return_index=True)
    first = np.concatenate([book_a.first, book_b.first])[pick]
    mask = np.concatenate([book_a.mask, book_b.mask])[pick]
    # a book built under a line says nothing about positions outside it
    inside = np.ones(len(first), bool)
    for bk in (book_a, book_b):
        if bk.scope.under:
            inside &= bk.in_scope(first, mask)
    if not inside.all():
        notes.append(
            f"compared only the {int(inside.sum())} positions inside both books' scopes "
            f"({int((~inside).sum())} stored positions are outside one of them)"
        )
        first, mask = first[inside], mask[inside]
    ans_a = book_a.answers(first, mask)
    ans_b = book_b.answers(first, mask)
    distances = book_a.has_distances and book_b.has_distances
    same = ans_a.winner == ans_b.winner
    if distances:
        same &= ans_a.plies == ans_b.plies
    stored_a, stored_b = ans_a.index >= 0, ans_b.index >= 0
    only_a = stored_a & ~stored_b
    only_b = stored_b & ~stored_a
    both = stored_a & stored_b

    def reports(selected: np.ndarray) -> list[PositionReport]:
        return [
            position_report(
                first[i],
                mask[i],
                None,
                answer_entry(ans_a, i, book_a.has_distances),
                answer_entry(ans_b, i, book_b.has_distances),
                book_a.board,
            )
            for i in np.flatnonzero(selected)
        ]

    return DiffReport(
        a=str(book_a.path),
        b=str(book_b.path),
        plies=book_a.plies,
        compared_by="win/draw/loss and distances" if distances else "win/draw/loss",
        positions_a=positions[id(book_a)],
        positions_b=positions[id(book_b)],
        common=int(both.sum()),
        implied_agreements=int(((only_a | only_b) & same).sum()),
        only_in_a=reports(only_a & ~same),
        only_in_b=reports(only_b & ~same),
        value_differences=reports(both & ~same),
        notes=notes,
    )
