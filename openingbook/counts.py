"""Counts of a book model's values, as the record of how a book was made states them
(``values`` of a manifest, of ``stats`` and of the summaries of build, derive and merge).

>>> from openingbook.formats import load_book
>>> model = load_book("8", complete=False)
>>> value_histogram(model)
{'draw': 7344, 'first': 48793, 'second': 21578}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.values import pruned_values

if TYPE_CHECKING:
    from openingbook.model import BookModel

__all__ = ["outcomes", "solver_values", "value_histogram"]


def solver_values(model: BookModel) -> np.ndarray:
    """The model's values as the solver gives them (:func:`openingbook.values.book_values`):
    distance bytes (``100 - plies`` signed by the winner, 0 a draw) where every distance is
    known, else 2 first player wins, 1 second, 0 draw. What ``check`` compares a position
    solved again with."""
    if model.has_distances:
        signed = model.winner.astype(np.int16) * (100 - model.plies_to_end)
        return signed.astype(np.int8)
    return pruned_values(model.winner)


def value_histogram(model: BookModel) -> dict[str, Any]:
    """The model's positions by winner (``draw``, ``first``, ``second``), and for a model
    with every distance (:attr:`~openingbook.model.BookModel.has_distances`) each winner's
    positions by the plies to the end (``first_by_plies``, ``second_by_plies``, ascending)."""
    winner = model.winner
    out: dict[str, Any] = {
        "draw": int((winner == 0).sum()),
        "first": int((winner == 1).sum()),
        "second": int((winner == -1).sum()),
    }
    if not model.has_distances:
        return out
    for label, side in (("first_by_plies", 1), ("second_by_plies", -1)):
        plies, counts = np.unique(model.plies_to_end[winner == side], return_counts=True)
        out[label] = {int(p): int(c) for p, c in zip(plies, counts, strict=True)}
    return out


def outcomes(histogram: dict[str, Any]) -> dict[str, int]:
    """The first/second/draw counts of a value histogram (:func:`value_histogram`): what a
    written book's summary says of its values."""
    return {k: int(histogram[k]) for k in ("first", "second", "draw")}
