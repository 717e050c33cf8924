"""Validate a book against a deeper one: :func:`validate_books` derives the shallower
book's values from the deeper book (:mod:`openingbook.pipeline.negamax`) and compares them
position by position.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
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
from openingbook.formats.registry import BookReader, load_book, lookup_source, open_book
from openingbook.model import BookModel, require_board
from openingbook.pipeline.negamax import DeepBook, Derivation, derive_pieces
from openingbook.solver import canonical_keys, part_of
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
    is stored. A ``book`` under a line (and no ``under``) is validated under its line,
    the only positions it answers. Values are compared as win/draw/loss, plus
    distances when both books have them. A pruned ``book`` answers "first player
    wins" for what it does not store (within its own scope).

    Neither book is loaded when it is compact (each lookup reads its file), and the
    positions go piece by piece (:func:`openingbook.pipeline.negamax.derive_pieces`: a
    whole ply of 13 or more plies part by part), each derived, looked up in ``book`` and
    compared before the next: memory holds one piece. ``progress(done, total)`` is
    called with the positions done after each slice of the derivation, to the end: the
    comparison has no step of its own, so ``stage`` (kept for its callers) is never called.
    """
    start = time.perf_counter()
    with _compared_book(book) as shallow, lookup_source(deeper) as deep:
        require_board(deep.path.name, deep.board, shallow.board)
        if shallow.plies >= deep.plies:
            raise BookFileError(
                f"{deep.path.name} ({deep.plies} plies) is not deeper than "
                f"{shallow.path.name} ({shallow.plies} plies)"
            )
        own_line = _own_line(shallow, deep, under)
        tally = _Tally(shallow)
        line = None
        for piece in derive_pieces(deep, shallow.plies, under or own_line, progress):
            line = piece.under
            tally.add(piece)
        notes = tally.notes(deep, line, own_line)
    return ValidationReport(
        book=str(shallow.path),
        deeper=str(deep.path),
        plies=shallow.plies,
        deeper_plies=deep.plies,
        compared_by="win/draw/loss and distances" if tally.distances else "win/draw/loss",
        scope=f"under {line}" if line else "all book positions",
        positions=tally.positions,
        covered=tally.covered,
        not_covered=tally.not_covered,
        compared=tally.compared,
        agree=tally.compared - len(tally.disagreements),
        disagreements=tally.disagreements,
        uncovered_examples=tally.uncovered_examples,
        extra_records=tally.extra_records,
        notes=notes,
        seconds=round(time.perf_counter() - start, 3),
    )


@contextlib.contextmanager
def _compared_book(path: str | os.PathLike[str]) -> Iterator[BookModel | BookReader]:
    """The book validated: open, when its positions are its ply's enumeration (a compact
    book: every lookup reads its file, and it holds no record outside its scope); else
    loaded as stored (a Thill book's records, for the records outside the positions)."""
    with open_book(path) as reader:
        if reader.enumerated:
            yield reader
            return
    yield load_book(path, complete=False)


def _own_line(shallow: BookModel | BookReader, deep: DeepBook, under: str | None) -> str | None:
    """The line of a book under a line that continues the deeper book's (none asked):
    it answers nothing else, so nothing else is derived."""
    line, deep_line = shallow.scope.under, deep.scope.under or ""
    if under is not None or not line or not line.startswith(deep_line):
        return None
    return line


def _answers(book: BookModel | BookReader, first: np.ndarray, mask: np.ndarray) -> BulkValues:
    """What ``book`` answers for positions of its ply (``UNKNOWN`` where it does not)."""
    if isinstance(book, BookModel):
        return book.answers(first, mask)
    return book.lookup_many(first, mask, strict=False)


class _Tally:
    """The comparison of ``shallow`` with the derived values, piece by piece."""

    def __init__(self, shallow: BookModel | BookReader) -> None:
        self.shallow = shallow
        self.distances = False
        self.positions = self.covered = self.compared = self.not_covered = 0
        self.disagreements: list[PositionReport] = []
        self.uncovered_examples: list[str] = []
        self.extra_records: list[str] = []
        #: a loaded book's records that are positions of a piece so far
        self.inside = np.zeros(len(shallow), bool) if isinstance(shallow, BookModel) else None
        self._canonical: np.ndarray | None = None
        self._parts: dict[int, np.ndarray] = {}

    def add(self, piece: Derivation) -> None:
        shallow = self.shallow
        answers = _answers(shallow, piece.first, piece.mask)
        covered = piece.covered
        compared = covered & (answers.winner != UNKNOWN)
        derived_winner = piece.winners()
        derived_plies = piece.distances()
        self.distances = shallow.has_distances and piece.scores
        differ = derived_winner != answers.winner
        if self.distances:
            differ |= (derived_winner != 0) & (derived_plies != answers.plies)
        for i in np.flatnonzero(compared & differ):
            self.disagreements.append(
                position_report(
                    piece.first[i],
                    piece.mask[i],
                    piece.move_string(int(i)),
                    answer_entry(answers, i, shallow.has_distances),
                    (True, int(derived_winner[i]), int(derived_plies[i]), True),
                    shallow.board,
                )
            )
        not_covered = np.flatnonzero(~covered)
        for i in not_covered[: max(0, 20 - len(self.uncovered_examples))]:
            self.uncovered_examples.append(piece.move_string(int(i)))
        self.positions += len(piece)
        self.covered += int(covered.sum())
        self.compared += int(compared.sum())
        self.not_covered += len(not_covered)
        if self.inside is not None and piece.under is None:
            self._mark_inside(piece)

    def _mark_inside(self, piece: Derivation) -> None:
        """Mark the loaded book's records that are positions of ``piece``."""
        shallow = self.shallow
        if self._canonical is None:
            self._canonical = shallow.canonical
        records = np.arange(len(self._canonical))
        if piece.parts:  # only the records of the piece's part can be its positions
            i, n = piece.parts[0][1]
            if n not in self._parts:
                self._parts[n] = part_of(shallow.first, shallow.mask, n, *shallow.board)
            records = np.flatnonzero(self._parts[n] == i)
        roots = np.sort(canonical_keys(piece.first, piece.mask, *shallow.board))
        self.inside[records] |= np.isin(self._canonical[records], roots)

    def notes(self, deep: DeepBook, line: str | None, own_line: str | None) -> list[str]:
        shallow = self.shallow
        notes: list[str] = []
        if line and line == own_line:
            notes.append(
                f"only the {shallow.plies}-ply positions under {line} are validated "
                f"({shallow.path.name} holds {shallow.scope.describe()})"
            )
        elif line:
            notes.append(
                f"only the {shallow.plies}-ply positions under {line} are validated "
                f"({deep.path.name}: {deep.scope.describe()})"
            )
        if shallow.scope.partial and not shallow.has_distances:
            notes.append(
                f"{shallow.path.name} is {shallow.scope.describe()}: "
                "only its stored records are compared"
            )
        elif shallow.scope.under and not shallow.has_distances and line != own_line:
            notes.append(f"{shallow.path.name} holds {shallow.scope.describe()}")
        # stored records of the shallower book that are not positions of the compared set
        if line is None and self.inside is not None:
            outside = ~self.inside
            for i in np.flatnonzero(outside)[:100]:
                self.extra_records.append(moves_of(shallow, int(i)))
            if outside.any():
                notes.append(
                    f"{int(outside.sum())} records of {shallow.path.name} are not "
                    f"{shallow.plies}-ply book positions (see `openingbook check`)"
                )
        if self.not_covered:
            notes.append(
                f"{self.not_covered} positions are not fully covered by {deep.path.name} "
                "and were not validated"
            )
        return notes
