"""Diff two books of one ply, mirror-aware and across formats: :func:`diff_books`."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from openingbook.checks.report import (
    PositionReport,
    Report,
    answer_entry,
    position_report,
)
from openingbook.errors import BookFileError
from openingbook.formats import load_book, open_book
from openingbook.formats.registry import BookReader
from openingbook.model import BookModel, require_board
from openingbook.solver import canonical_keys
from openingbook.values import BulkValues

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


def diff_books(
    a: str | os.PathLike[str],
    b: str | os.PathLike[str],
    progress: Callable[[int, int], None] | None = None,
) -> DiffReport:
    """Compare two books of the same ply, position by position (mirror pairs merged).

    Books built under a line are compared only inside their scopes (both
    lines). "Only in A" lists positions A stores and B does not, unless B implies the
    same value (a pruned B answers "first player wins" for what it does not
    store); "values differ" lists positions both store with different values.
    Distance books are compared on distances when both have them, else on
    win/draw/loss. Each list comes in the order of the positions' canonical keys.

    Two books whose positions are the enumeration of one ply and scope (compact books)
    are not loaded: their positions go piece by piece
    (:meth:`openingbook.answers.BookReader.position_pieces`, a big ply part by part),
    each looked up in both files, with ``progress(done, total)`` after each. Any other
    two books are loaded whole (``progress`` called once, at the end).
    """
    with open_book(a) as reader_a, open_book(b) as reader_b:
        if _same_enumeration(reader_a, reader_b):
            return _diff_pieces(reader_a, reader_b, progress)
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
    tally = _Tally(book_a, book_b)
    tally.add(first, mask, book_a.answers(first, mask), book_b.answers(first, mask))
    if progress is not None:
        progress(len(first), len(first))
    return tally.report(positions[id(book_a)], positions[id(book_b)], notes)


def _same_enumeration(a: BookReader, b: BookReader) -> bool:
    """Do both books hold exactly the positions of one enumeration (one ply, board, line
    and part), each position once?"""
    return (
        a.enumerated
        and b.enumerated
        and a.plies == b.plies
        and a.board == b.board
        and a.scope == b.scope
        and a.scope.known
        and a.scope.partial is None
    )


def _diff_pieces(
    a: BookReader, b: BookReader, progress: Callable[[int, int], None] | None
) -> DiffReport:
    """:func:`diff_books` of two books of one enumeration, a piece of positions at a time."""
    notes = []
    for bk in (a, b):
        if not bk.scope.complete:
            notes.append(f"{bk.path.name} holds {bk.scope.describe()}")
    total, done = len(a), 0
    tally = _Tally(a, b)
    for first, mask in a.position_pieces():
        answers_a = a.lookup_many(first, mask, strict=False)
        tally.add(first, mask, answers_a, b.lookup_many(first, mask, strict=False))
        done += len(first)
        if progress is not None:
            progress(done, total)
    return tally.report(total, len(b), notes)


class _Tally:
    """The comparison of two books' answers, piece by piece."""

    def __init__(self, a: BookModel | BookReader, b: BookModel | BookReader) -> None:
        self.a, self.b = a, b
        self.distances = a.has_distances and b.has_distances
        self.common = self.implied = 0
        #: ``(canonical key, report)`` of each list
        self.lists: tuple[list[tuple[int, PositionReport]], ...] = ([], [], [])

    def add(
        self, first: np.ndarray, mask: np.ndarray, ans_a: BulkValues, ans_b: BulkValues
    ) -> None:
        same = ans_a.winner == ans_b.winner
        if self.distances:
            same &= ans_a.plies == ans_b.plies
        stored_a, stored_b = ans_a.index >= 0, ans_b.index >= 0
        only_a = stored_a & ~stored_b
        only_b = stored_b & ~stored_a
        both = stored_a & stored_b
        self.common += int(both.sum())
        self.implied += int(((only_a | only_b) & same).sum())
        board = self.a.board
        for reports, selected in zip(self.lists, (only_a, only_b, both), strict=True):
            rows = np.flatnonzero(selected & ~same)
            keys = canonical_keys(first[rows], mask[rows], *board)
            for i, key in zip(rows, keys.tolist(), strict=True):
                report = position_report(
                    first[i],
                    mask[i],
                    None,
                    answer_entry(ans_a, i, self.a.has_distances),
                    answer_entry(ans_b, i, self.b.has_distances),
                    board,
                )
                reports.append((key, report))

    def report(self, positions_a: int, positions_b: int, notes: list[str]) -> DiffReport:
        only_a, only_b, differ = (
            [r for _, r in sorted(rs, key=lambda kr: kr[0])] for rs in self.lists
        )
        return DiffReport(
            a=str(self.a.path),
            b=str(self.b.path),
            plies=int(self.a.plies or 0),
            compared_by="win/draw/loss and distances" if self.distances else "win/draw/loss",
            positions_a=positions_a,
            positions_b=positions_b,
            common=self.common,
            implied_agreements=self.implied,
            only_in_a=only_a,
            only_in_b=only_b,
            value_differences=differ,
            notes=notes,
        )
