"""Trust a book, or find its faults: validate, diff, check and stats.

* :func:`validate_books`: derive the shallower book's values from a deeper book
  (:mod:`openingbook.derive`) and compare them position by position.
* :func:`diff_books`: two books of one ply, mirror-aware and across formats.
* :func:`check_book`: what the file alone shows (mirror pairs stored twice,
  first-player wins stored in a pruned book, positions whose side to move wins at
  once) and records re-solved with the solver, in parallel like the build.
* :func:`book_stats`: record and value counts; Tromp's 8-ply subset counts.

Every report is a dataclass with ``as_dict()`` (the ``--json`` output) and
``ok`` (the exit status of the command).

>>> ref = REFERENCE / "thill-original-book8.dat"
>>> report = check_book(ref)
>>> [(i.kind, i.count) for i in report.issues]
[('duplicate-mirror-pair', 5593)]
>>> report.ok
True
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from openingbook.answers import BulkValues
from openingbook.bookfile import BookFormat, value_histogram
from openingbook.derive import derive_values
from openingbook.errors import BookFileError, InvalidArgument
from openingbook.formats import load_book
from openingbook.formats.model import BookModel, thill_values
from openingbook.manifest import require_board
from openingbook.plycounts import PlyCounts, per_ply_counts_from_values
from openingbook.published import TROMP_BOARD, TROMP_SUBSET_COUNTS
from openingbook.values import UNKNOWN, VALUE_FIRST, WINNERS, distance_plies, first_player_winner
from solver import (
    DEFAULT_BOARD,
    BoardSize,
    Position,
    can_win_next_bits,
    canonical_keys,
    positions_with_moves,
)

__all__ = [
    "TROMP_COUNTS",
    "CheckReport",
    "DiffReport",
    "Issue",
    "PositionReport",
    "StatsReport",
    "ValidationReport",
    "book_stats",
    "check_book",
    "describe_value",
    "diff_books",
    "solve_book_values",
    "tromp_subset",
    "validate_books",
]

#: Tromp's 8-ply data set: first-player wins, second-player wins, draws.
TROMP_COUNTS = TROMP_SUBSET_COUNTS  # the published figures live in openingbook.published


def describe_value(known: bool, winner: int, plies: int = -1, stored: bool = True) -> str:
    """A book's answer in words.

    >>> describe_value(True, 1, 5)
    'first player wins in 5 plies'
    >>> describe_value(True, 1, stored=False)
    'first player wins (not stored)'
    >>> describe_value(False, 0)
    'not in book'
    """
    if not known:
        return "not in book"
    if winner == 0:
        text = "draw"
    else:
        text = f"{WINNERS[winner].value} player wins"
        if plies >= 0:
            text += f" in {plies} plies"
    return text if stored else text + " (not stored)"


@dataclass
class PositionReport:
    """One position of a report: how to reach it, its diagram, and what each side says."""

    moves: str
    diagram: str
    a: str
    b: str
    a_value: dict[str, Any]
    b_value: dict[str, Any]

    def lines(self, a_name: str, b_name: str) -> list[str]:
        """Text form: the move string, both values, the diagram."""
        width = max(len(a_name), len(b_name)) + 1
        out = [
            f"{self.moves}",
            f"  {a_name + ':':<{width}} {self.a}",
            f"  {b_name + ':':<{width}} {self.b}",
        ]
        out += ["  " + row for row in self.diagram.splitlines()]
        return out


def _value_dict(known: bool, winner: int, plies: int, stored: bool) -> dict[str, Any]:
    return {
        "known": bool(known),
        "winner": WINNERS[int(winner)].value if known else None,
        "plies": int(plies) if known and plies >= 0 else None,
        "stored": bool(stored),
    }


def _position_report(
    first: int,
    mask: int,
    moves: str | None,
    a: tuple[bool, int, int, bool],
    b: tuple[bool, int, int, bool],
    board: BoardSize,
) -> PositionReport:
    pos = Position.from_bitboards(int(first), int(mask), *board)
    return PositionReport(
        moves=moves if moves else pos.some_moves(),
        diagram=pos.to_diagram(),
        a=describe_value(a[0], a[1], a[2], a[3]),
        b=describe_value(b[0], b[1], b[2], b[3]),
        a_value=_value_dict(*a),
        b_value=_value_dict(*b),
    )


def _entry(ans: BulkValues, i: int, distances: bool) -> tuple[bool, int, int, bool]:
    """``(known, winner, plies or -1, stored)`` of one answer, for a report; the plies
    of a book with distances, of a decided game only."""
    winner, plies = int(ans.winner[i]), int(ans.plies[i])
    known = winner != UNKNOWN
    shown = plies if distances and known and winner != 0 and plies != UNKNOWN else -1
    return known, winner if known else 0, shown, bool(ans.index[i] >= 0)


# ------------------------------------------------------------------ validate
@dataclass
class ValidationReport:
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

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"] = self.ok
        return d

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
) -> ValidationReport:
    """Derive ``book``'s values from the ``deeper`` book and compare every position.

    Only positions the deeper book fully covers are compared: with a pruned
    deeper book, those inside its declared scope (its manifest's ``under`` line,
    or ``under``); with a distance book, those whose every needed deeper position
    is stored. Values are compared as win/draw/loss, plus distances when both
    books have them. A pruned ``book`` answers "first player wins" for what it
    does not store (within its own scope).
    """
    start = time.perf_counter()
    shallow = load_book(book, complete=False)
    deep = load_book(deeper, complete=False)
    require_board(deep.path.name, deep.board, shallow.board)
    if shallow.plies >= deep.plies:
        raise BookFileError(
            f"{deep.path.name} ({deep.plies} plies) is not deeper than "
            f"{shallow.path.name} ({shallow.plies} plies)"
        )
    derivation = derive_values(deep, shallow.plies, under)
    notes: list[str] = []
    if derivation.under:
        notes.append(
            f"only the {shallow.plies}-ply positions under {derivation.under} are validated "
            f"({deep.path.name}: {deep.scope.describe()})"
        )
    answers = shallow.answers(derivation.first, derivation.mask)
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
        _position_report(
            derivation.first[i],
            derivation.mask[i],
            derivation.moves[i],
            _entry(answers, i, shallow.has_distances),
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
            extra.append(_moves_of(shallow, int(i)))
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


def _moves_of(book: BookModel, record: int) -> str:
    pos = Position.from_bitboards(int(book.first[record]), int(book.mask[record]), *book.board)
    return pos.some_moves()


# ------------------------------------------------------------------ diff
@dataclass
class DiffReport:
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

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"] = self.ok
        return d

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
            _position_report(
                first[i],
                mask[i],
                None,
                _entry(ans_a, i, book_a.has_distances),
                _entry(ans_b, i, book_b.has_distances),
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


# ------------------------------------------------------------------ check
@dataclass
class Issue:
    """One kind of problem found by :func:`check_book`, with examples."""

    severity: str  # "error" or "warning"
    kind: str
    count: int
    message: str
    examples: list[str] = field(default_factory=list)


@dataclass
class CheckReport:
    """Result of :func:`check_book`. ``ok`` when there is no error (warnings allowed)."""

    book: str
    format: str
    records: int
    positions: int
    scope: str
    solved: int
    solved_absent: int
    disagreements: list[PositionReport]
    issues: list[Issue]
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.disagreements and not any(i.severity == "error" for i in self.issues)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"] = self.ok
        return d

    def lines(self) -> list[str]:
        out = [
            f"check {self.book}: {self.format}, {self.records} records, "
            f"{self.positions} positions ({self.scope})"
        ]
        for issue in self.issues:
            ex = f" (e.g. {', '.join(issue.examples[:5])})" if issue.examples else ""
            out.append(f"{issue.severity}: {issue.message}{ex}")
        for d in self.disagreements:
            out.append("solver disagrees:")
            out += ["  " + line for line in d.lines("book", "solver")]
        if self.solved or self.solved_absent:
            out.append(
                f"re-solved {self.solved} records"
                + (f" and {self.solved_absent} positions not stored" if self.solved_absent else "")
                + f": {len(self.disagreements)} disagree"
            )
        errors = sum(i.severity == "error" for i in self.issues) + len(self.disagreements)
        warnings = sum(i.severity == "warning" for i in self.issues)
        out.append(f"{'OK' if self.ok else 'FAILED'}: {errors} errors, {warnings} warnings")
        return out


@dataclass(frozen=True)
class _Stored:
    """What ``stats`` and ``check`` count and re-solve: a Thill book's records, or every
    position a book of another format holds (its model, first-player wins included),
    with their values as Thill's codes (pruned codes or distance bytes) of ``fmt``."""

    format: str
    records: int
    positions: int
    first: np.ndarray
    mask: np.ndarray
    values: np.ndarray
    fmt: BookFormat

    @property
    def distances(self) -> bool:
        return self.fmt.distances

    @classmethod
    def of(cls, model: BookModel) -> _Stored:
        if model.stored is not None:
            fmt, records = model.stored
            return cls(
                fmt.describe(),
                len(records),
                len(np.unique(model.canonical)),
                model.first,
                model.mask,
                records.values,
                fmt,
            )
        fmt, values = thill_values(model)
        kind = {"wdl": "win/draw/loss", "distance": "with distances", "score": "with scores"}
        board = "" if model.board == DEFAULT_BOARD else f" ({model.board} board)"
        return cls(
            f"{model.plies}-ply{board}, {kind[model.kind]}, {model.source_format} format",
            len(model) if model.records is None else model.records,
            len(model),
            model.first,
            model.mask,
            values,
            fmt,
        )


def check_book(
    path: str | os.PathLike[str],
    sample: int | None = None,
    all_records: bool = False,
    absent: int | None = None,
    seed: int = 0,
    jobs: int | None = None,
    executor: str = "pool",
    table_log2: int | None = None,
    scheduler: str | None = None,
    fmt: BookFormat | None = None,
) -> CheckReport:
    """Check a book from the file alone, then re-solve records with the solver.

    Format errors (bad values, unsorted or repeated keys, illegal positions) raise
    :class:`openingbook.bookfile.BookFileError`. Then: mirror pairs stored twice
    (warning; an error when the two records disagree), first-player wins stored
    in a pruned book (warning), positions whose side to move can win at once
    (warning: not in Thill's set). ``sample`` records picked with ``seed`` (or
    every record with ``all_records``) are re-solved; ``absent``: also solve that
    many book positions a pruned book does not store (they must be first-player
    wins). Solving runs on ``jobs`` worker processes with the build's executors.
    ``fmt``: the book's format, when it is not detected (manifest, name, content).
    """
    start = time.perf_counter()
    from openingbook.executors import default_jobs
    from openingbook.memory import check_table_size

    # before reading the book; a scheduler's workers are on other machines
    check_table_size(table_log2, 0 if scheduler else jobs or default_jobs())
    book = load_book(path, fmt=fmt, complete=False)
    stored_book = _Stored.of(book)
    issues: list[Issue] = []
    if book.stored is not None:  # another format's reader has checked its file already
        _file_issues(book, issues)
    rng = np.random.default_rng(seed)
    picks = np.empty(0, np.int64)
    count = stored_book.records if book.stored is not None else stored_book.positions
    if all_records:
        picks = np.arange(count)
    elif sample:
        if sample < 0:
            raise InvalidArgument("must be at least 0", argument="sample", value=sample)
        picks = np.sort(rng.choice(count, size=min(sample, count), replace=False))
    absent_first = absent_mask = np.empty(0, np.uint64)
    if absent:
        if stored_book.distances or book.scope.partial or book.stored is None:
            raise InvalidArgument(
                "needs a pruned book that holds every position of its scope", argument="absent"
            )
        f, m, _ = positions_with_moves(book.plies, book.scope.under, *book.board)
        missing = np.flatnonzero(book.find(f, m) < 0)
        chosen = rng.choice(missing, size=min(absent, len(missing)), replace=False)
        absent_first, absent_mask = f[np.sort(chosen)], m[np.sort(chosen)]
    first = np.concatenate([stored_book.first[picks], absent_first])
    mask = np.concatenate([stored_book.mask[picks], absent_mask])
    expected = np.concatenate(
        [stored_book.values[picks], np.full(len(absent_first), VALUE_FIRST, np.int8)]
    )
    stored = np.concatenate([np.ones(len(picks), bool), np.zeros(len(absent_first), bool)])
    disagreements: list[PositionReport] = []
    if len(first):
        solved = solve_book_values(
            first,
            mask,
            book.plies,
            stored_book.distances,
            jobs,
            executor,
            table_log2,
            scheduler,
            board=book.board,
        )
        for i in np.flatnonzero(solved != expected):
            a = _book_value_entry(int(expected[i]), stored_book.distances, bool(stored[i]))
            b = _book_value_entry(int(solved[i]), stored_book.distances, True)
            disagreements.append(_position_report(first[i], mask[i], None, a, b, book.board))
    return CheckReport(
        book=str(book.path),
        format=stored_book.format,
        records=stored_book.records,
        positions=stored_book.positions,
        scope=book.scope.describe(),
        solved=len(picks),
        solved_absent=len(absent_first),
        disagreements=disagreements,
        issues=issues,
        seconds=round(time.perf_counter() - start, 3),
    )


def _book_value_entry(value: int, distances: bool, stored: bool) -> tuple[bool, int, int, bool]:
    if distances:
        if value == 0:
            return True, 0, -1, stored
        return True, 1 if value > 0 else -1, int(distance_plies(np.array([value]))[0]), stored
    return True, int(first_player_winner(np.array([value]))[0]), -1, stored


def _file_issues(book: BookModel, issues: list[Issue]) -> None:
    """What a Thill-layout file's records alone show beyond format errors."""
    assert book.stored is not None  # loaded as stored: one position per record
    fmt, records = book.stored
    order, keys = book.key_order
    repeat = np.flatnonzero(keys[1:] == keys[:-1]) + 1
    if len(repeat):
        values = records.values[order]
        conflict = repeat[values[repeat] != values[repeat - 1]]
        same = np.setdiff1d(repeat, conflict)
        if len(same):
            issues.append(
                Issue(
                    "warning",
                    "duplicate-mirror-pair",
                    len(same),
                    f"{len(same)} positions are stored in both mirror variants with the same "
                    "value (harmless: readers search both)",
                    [_moves_of(book, int(order[i])) for i in same[:5]],
                )
            )
        if len(conflict):
            issues.append(
                Issue(
                    "error",
                    "conflicting-mirror-pair",
                    len(conflict),
                    f"{len(conflict)} positions are stored in both mirror variants with "
                    "different values (a reader's answer depends on its search order)",
                    [_moves_of(book, int(order[i])) for i in conflict[:5]],
                )
            )
    if not fmt.distances:
        first_wins = np.flatnonzero(records.values == VALUE_FIRST)
        if len(first_wins):
            issues.append(
                Issue(
                    "warning",
                    "first-player-win-stored",
                    len(first_wins),
                    f"{len(first_wins)} first-player wins are stored in a pruned book "
                    "(valid, but the pruning rule makes them redundant)",
                    [_moves_of(book, int(i)) for i in first_wins[:5]],
                )
            )
    wins_now = np.flatnonzero(can_win_next_bits(book.first, book.mask, *book.board))
    if len(wins_now):
        issues.append(
            Issue(
                "warning",
                "immediate-win-stored",
                len(wins_now),
                f"{len(wins_now)} stored positions let the side to move complete four at once "
                "(not in Thill's set of book positions)",
                [_moves_of(book, int(i)) for i in wins_now[:5]],
            )
        )


def solve_book_values(
    first: np.ndarray,
    mask: np.ndarray,
    plies: int,
    distances: bool,
    jobs: int | None = None,
    executor: str = "pool",
    table_log2: int | None = None,
    scheduler: str | None = None,
    chunk: int = 64,
    *,
    board: BoardSize,
) -> np.ndarray:
    """Book values (distance bytes, or 0/1/2) of positions, solved in parallel.

    Uses the build's worker (one solver per worker process, table kept between
    chunks) and executors; results come back in input order. ``board``: the
    positions' board size.
    """
    from openingbook.build import ChunkTask, init_worker, solve_chunk
    from openingbook.executors import make_executor
    from openingbook.memory import worker_count

    n = len(first)
    if not scheduler:  # local workers: no more than the chunks or the memory
        jobs = worker_count(jobs, table_log2, max(1, -(-n // chunk)))
    tasks = [
        ChunkTask(i, first[s : s + chunk], mask[s : s + chunk], plies, distances, table_log2, board)
        for i, s in enumerate(range(0, n, chunk))
    ]
    out = np.empty(n, np.int8)
    with make_executor(
        executor, jobs, scheduler, initializer=init_worker, initargs=(table_log2, board)
    ) as ex:
        for result in ex.map_unordered(solve_chunk, tasks):
            s = result.chunk_id * chunk
            out[s : s + len(result.values)] = result.values
    return out


# ------------------------------------------------------------------ stats
@dataclass
class StatsReport:
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
        d = asdict(self)
        d["per_ply"] = None if self.per_ply is None else self.per_ply.as_dict()
        d["ok"] = self.ok
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

    >>> from solver import Position
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
    fmt: BookFormat | None = None,
    per_ply: bool = False,
) -> StatsReport:
    """Record and value counts of a book; with ``tromp``, the counts on Tromp's subset.

    With ``per_ply``, the book (complete, unscoped) expanded to every position of its
    ply as the published per-ply tables count them (:mod:`openingbook.plycounts`).

    Tromp's subset is the ply's book positions (within the book's scope) in which
    the player who just moved could not complete four at once either; mirror
    pairs once. For a complete 8-ply book the counts are compared with Tromp's
    published 44,473 / 16,635 / 6,449. ``fmt``: the format, when not detected.
    """
    book = load_book(path, fmt=fmt, complete=False)
    if (tromp or per_ply) and book.board != DEFAULT_BOARD:
        raise InvalidArgument(
            f"the published counts are of the 7x6 board; {book.path.name} is a {book.board} book",
            argument="tromp" if tromp else "per_ply",
        )
    stored_book = _Stored.of(book)
    histogram = value_histogram(stored_book.fmt, stored_book.values)
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
    from openingbook.compact import CompactBook, is_compact

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
