"""What a book answers: the types every book kind returns.

:class:`BookValue` (one position), :class:`BulkValues` (arrays of positions) and
:class:`PositionNotInBook` are shared by the Thill-layout reader
(:mod:`openingbook.reader`), compact books (:mod:`openingbook.compact`) and the
Cadot and Pons readers. They live apart from the readers so that a reader of one
kind loads no other (a lookup in a compact book loads none of the Thill
reader's file checks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from openingbook.errors import PositionNotInBook
from solver import Winner

if TYPE_CHECKING:
    import numpy as np

__all__ = ["BookValue", "BulkValues", "PositionNotInBook"]


class BookValue(NamedTuple):
    """A book's answer for one position."""

    winner: Winner
    plies: int | None
    score: int | None


class BulkValues(NamedTuple):
    """Answers for arrays of positions (one element per position).

    ``index``: the record that answered (-1 where nothing is stored);
    ``winner``: +1 first player, -1 second, 0 draw (``UNKNOWN`` of
    :mod:`openingbook.values` where not known); ``plies`` and ``score`` as in
    :class:`BookValue`, ``UNKNOWN`` for ``None``.
    """

    index: np.ndarray
    winner: np.ndarray
    plies: np.ndarray
    score: np.ndarray
