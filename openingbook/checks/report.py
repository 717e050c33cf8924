"""What the reports of :mod:`openingbook.checks` share: a book's answer in words
(:func:`describe_value`), one position of a report (:class:`PositionReport`), and what
``check`` and ``stats`` count of a book (:class:`StoredValues`).

Every report is a dataclass with ``as_dict()`` (the ``--json`` output) and ``ok`` (the
exit status of the command).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.counts import solver_values
from openingbook.model import BookModel
from openingbook.solver import (
    DEFAULT_BOARD,
    BoardSize,
    Position,
)
from openingbook.values import UNKNOWN, WINNERS, BulkValues

if TYPE_CHECKING:
    from openingbook.formats import Layout

__all__ = [
    "PositionReport",
    "Report",
    "StoredValues",
    "answer_entry",
    "describe_value",
    "moves_of",
    "position_report",
    "value_dict",
]


class Report:
    """What every report (a dataclass) shares: its verdict ``ok`` (the exit status of the
    command) and its JSON form."""

    @property
    def ok(self) -> bool:
        raise NotImplementedError

    def as_dict(self) -> dict[str, Any]:
        """The ``--json`` output: the report's fields and ``ok``."""
        d = asdict(self)  # type: ignore[call-overload]
        d["ok"] = self.ok
        return d


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
            text += f" in {plies} {'ply' if plies == 1 else 'plies'}"
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


def value_dict(known: bool, winner: int, plies: int, stored: bool) -> dict[str, Any]:
    """The JSON form of one side of a :class:`PositionReport`."""
    return {
        "known": bool(known),
        "winner": WINNERS[int(winner)].value if known else None,
        "plies": int(plies) if known and plies >= 0 else None,
        "stored": bool(stored),
    }


def position_report(
    first: int,
    mask: int,
    moves: str | None,
    a: tuple[bool, int, int, bool],
    b: tuple[bool, int, int, bool],
    board: BoardSize,
) -> PositionReport:
    """The report of one position: ``a`` and ``b`` are what each side says, as
    :func:`answer_entry` gives it; ``moves`` the line to show, else one that reaches it."""
    pos = Position.from_bitboards(int(first), int(mask), *board)
    return PositionReport(
        moves=moves if moves else pos.some_moves(),
        diagram=pos.to_diagram(),
        a=describe_value(a[0], a[1], a[2], a[3]),
        b=describe_value(b[0], b[1], b[2], b[3]),
        a_value=value_dict(*a),
        b_value=value_dict(*b),
    )


def answer_entry(ans: BulkValues, i: int, distances: bool) -> tuple[bool, int, int, bool]:
    """``(known, winner, plies or -1, stored)`` of one answer, for a report; the plies
    of a book with distances, of a decided game only."""
    winner, plies = int(ans.winner[i]), int(ans.plies[i])
    known = winner != UNKNOWN
    shown = plies if distances and known and winner != 0 and plies != UNKNOWN else -1
    return known, winner if known else 0, shown, bool(ans.index[i] >= 0)


def moves_of(book: BookModel, record: int) -> str:
    """A move string reaching the model's position at index ``record``."""
    pos = Position.from_bitboards(int(book.first[record]), int(book.mask[record]), *book.board)
    return pos.some_moves()


@dataclass(frozen=True)
class StoredValues:
    """What ``stats`` and ``check`` count and re-solve: a Thill book's records, or every
    position a book of another format holds (its model, first-player wins included),
    with their values as the solver gives them (pruned codes or distance bytes)."""

    format: str
    records: int
    positions: int
    first: np.ndarray
    mask: np.ndarray
    values: np.ndarray
    distances: bool

    @classmethod
    def of(cls, model: BookModel) -> StoredValues:
        """What ``model`` stores (a model loaded as stored: its file's records), its values
        as the solver gives them (:func:`openingbook.counts.solver_values`)."""
        values = solver_values(model)
        if model.stored is not None:  # a Thill book's records, as stored
            layout: Layout = model.stored[0]
            described, records = layout.describe(), len(values)
            positions = len(np.unique(model.canonical))
        else:
            kind = {"wdl": "win/draw/loss", "distance": "with distances", "score": "with scores"}
            board = "" if model.board == DEFAULT_BOARD else f" ({model.board} board)"
            described = (
                f"{model.plies}-ply{board}, {kind[model.kind]}, {model.source_format} format"
            )
            records = len(model) if model.records is None else model.records
            positions = len(model)
        distances = model.has_distances
        return cls(described, records, positions, model.first, model.mask, values, distances)
