"""Validate a book against a deeper one: :func:`validate_books` derives the shallower
book's values from the deeper book (:mod:`openingbook.pipeline.negamax`) and compares them
position by position.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from openingbook.checks.report import (
    PositionReport,
    Report,
    answer_entry,
    moves_of,
    position_report,
)
from openingbook.errors import BookFileError
from openingbook.formats.registry import load_book, lookup_source
from openingbook.model import BookModel, require_board
from openingbook.pipeline.negamax import derive_values
from openingbook.solver import (
    canonical_keys,
)
from openingbook.values import UNKNOWN, BulkValues

__all__ = ["ValidationReport", "validate_books"]


@dataclass
class ValidationReport(Report):
    """Result of :func:`validate_books`.

    ``ok`` when at least one position was compared and none disagrees: a
    validation that compared nothing (the deeper book covers none of the
    positions asked for) proves nothing and is not a pass.
    """

    book: str
    deeper: str
    plies: int
    deeper_plies: int
    compared_by: str
    scope: str
    positions: int
    covered: int
    not_covered: int
    compared: int
    agree: int
    disagreements: list[PositionReport]
    uncovered_examples: list[str]
    extra_records: list[str]
    notes: list[str]
    seconds: float

    @property
    def ok(self) -> bool:
        return self.compared > 0 and not self.disagreements

    def lines(self) -> list[str]:
        """Human-readable report."""
        out = [
            f"validate {self.book} ({self.plies} plies) against {self.deeper} "
            f"({self.deeper_plies} plies), comparing {self.compared_by}",
            f"positions: {self.scope}: {self.positions}; fully covered by the deeper book: "
            f"{self.covered}; compared: {self.compared}",
        ]
        for note in self.notes:
            out.append(f"note: {note}")
        for n, d in enumerate(self.disagreements, 1):
            out.append(f"disagreement {n}:")
            out += ["  " + line for line in d.lines("book", "derived")]
        for moves in self.extra_records:
            out.append(f"extra record (not a book position of this scope): {moves}")
        verdict = "OK" if self.ok else "FAILED"
        if self.compared == 0:
            verdict = "FAILED (nothing compared: the deeper book covers none of these positions)"
        out.append(
            f"{verdict}: {self.agree} agree, {len(self.disagreements)} disagree, "
            f"{self.not_covered} not covered"
        )
        return out


#: positions of the shallower book looked up at once by :func:`validate_books` (a part
#: of the 13-ply book takes about a second), reporting progress after each part
COMPARE_PART = 1 << 20


def _answers_in_parts(
    book: BookModel,
    first: np.ndarray,
    mask: np.ndarray,
    progress: Callable[[int, int], None] | None,
) -> BulkValues:
    """``book.answers(first, mask)``, :data:`COMPARE_PART` positions at a time."""
    total = len(first)
    if progress is None or total <= COMPARE_PART:
        answers = book.answers(first, mask)
        if progress is not None:
            progress(total, total)
        return answers
    parts = []
    for start in range(0, total, COMPARE_PART):
        end = min(start + COMPARE_PART, total)
        parts.append(book.answers(first[start:end], mask[start:end]))
        progress(end, total)
    return BulkValues(*(np.concatenate(column) for column in zip(*parts, strict=True)))


def validate_books(
    book: str | os.PathLike[str],
    deeper: str | os.PathLike[str],
    under: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> ValidationReport:
    """Derive ``book``'s values from the ``deeper`` book and compare every position.

    Only positions the deeper book fully covers are compared: with a pruned
    deeper book, those inside its declared scope (its manifest's ``under`` line,
    or ``under``); with a distance book, those whose every needed deeper position
    is stored. Values are compared as win/draw/loss, plus distances when both
    books have them. A pruned ``book`` answers "first player wins" for what it
    does not store (within its own scope). A compact deeper book is not loaded (each
    lookup reads its file) and the derivation goes slice by slice, with
    ``progress(done, total)`` after each (:func:`openingbook.pipeline.negamax.derive_values`);
    then, given ``stage``, ``stage("comparing")`` and ``progress(done, total)`` after each
    part of :data:`COMPARE_PART` positions looked up in ``book``.
    """
    start = time.perf_counter()
    shallow = load_book(book, complete=False)
    with lookup_source(deeper) as deep:
        require_board(deep.path.name, deep.board, shallow.board)
        if shallow.plies >= deep.plies:
            raise BookFileError(
                f"{deep.path.name} ({deep.plies} plies) is not deeper than "
                f"{shallow.path.name} ({shallow.plies} plies)"
            )
        derivation = derive_values(deep, shallow.plies, under, progress)
    notes: list[str] = []
    if derivation.under:
        notes.append(
            f"only the {shallow.plies}-ply positions under {derivation.under} are validated "
            f"({deep.path.name}: {deep.scope.describe()})"
        )
    if stage is not None:
        stage("comparing")
    # the comparison's progress only for a caller told that a new step starts
    answers = _answers_in_parts(
        shallow, derivation.first, derivation.mask, progress if stage is not None else None
    )
    if shallow.scope.partial and not shallow.has_distances:
        notes.append(
            f"{shallow.path.name} is {shallow.scope.describe()}: "
            "only its stored records are compared"
        )
    elif shallow.scope.under and not shallow.has_distances:
        notes.append(f"{shallow.path.name} holds {shallow.scope.describe()}")
    covered = derivation.covered
    compared = covered & (answers.winner != UNKNOWN)
    derived_winner = derivation.winners()
    derived_plies = derivation.distances()
    both_distances = shallow.has_distances and derivation.scores
    differ = derived_winner != answers.winner
    if both_distances:
        differ |= (derived_winner != 0) & (derived_plies != answers.plies)
    bad = np.flatnonzero(compared & differ)
    reports = [
        position_report(
            derivation.first[i],
            derivation.mask[i],
            derivation.moves[i],
            answer_entry(answers, i, shallow.has_distances),
            (True, int(derived_winner[i]), int(derived_plies[i]), True),
            shallow.board,
        )
        for i in bad
    ]
    # stored records of the shallower book that are not positions of the compared set
    roots = np.sort(canonical_keys(derivation.first, derivation.mask, *shallow.board))
    outside = ~np.isin(shallow.canonical, roots)
    extra: list[str] = []
    if derivation.under is None:
        for i in np.flatnonzero(outside)[:100]:
            extra.append(moves_of(shallow, int(i)))
        if outside.any():
            notes.append(
                f"{int(outside.sum())} records of {shallow.path.name} are not {shallow.plies}-ply "
                "book positions (see `openingbook check`)"
            )
    not_covered = np.flatnonzero(~covered)
    if len(not_covered):
        notes.append(
            f"{len(not_covered)} positions are not fully covered by {deep.path.name} "
            "and were not validated"
        )
    return ValidationReport(
        book=str(shallow.path),
        deeper=str(deep.path),
        plies=shallow.plies,
        deeper_plies=deep.plies,
        compared_by="win/draw/loss and distances" if both_distances else "win/draw/loss",
        scope=f"under {derivation.under}" if derivation.under else "all book positions",
        positions=len(derivation.first),
        covered=int(covered.sum()),
        not_covered=len(not_covered),
        compared=int(compared.sum()),
        agree=int(compared.sum()) - len(bad),
        disagreements=reports,
        uncovered_examples=[str(derivation.moves[i]) for i in not_covered[:20]],
        extra_records=extra,
        notes=notes,
        seconds=round(time.perf_counter() - start, 3),
    )
