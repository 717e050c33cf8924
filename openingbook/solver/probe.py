"""Exact scores of the positions of one ply, as the search looks them up.

A :class:`BookProbe` holds, for every position of one ply that a book answers
exactly, its canonical key (:func:`openingbook.solver.bitboards.canonical_keys`: one key per
mirror pair) and its Pons score (side to move). :class:`openingbook.solver.Solver` given one
(``Solver(book=...)``) answers every node of the search with exactly that many
stones whose key it holds by the stored score instead of searching below it, as
Pons' solver probes its opening book; a position it does not hold is searched as
before. Only exact scores belong here: a bound, or a win without its distance (a
first-player win a pruned Thill-layout book leaves out), is not a score.

The search reads one flat ``uint64`` array (:attr:`BookProbe.array`), so that the
kernel takes one more argument, not three:

* ``array[0]``: the ply (:data:`NO_PLY`, all bits set, in the array of "no book");
* ``array[1]``: ``count``, the positions;
* ``array[2 : 2 + count]``: the canonical keys, ascending (binary search);
* then the scores, eight to a word: score ``i`` is byte ``i % 8`` (from the low
  end) of word ``2 + count + i // 8``, stored as ``score + 128``.

Memory: 9 bytes per position (the 12-ply 7x6 distance book: 4,200,899 positions,
37.8 MB).

This module knows nothing of book files: :mod:`openingbook` reads a book and
passes its positions and scores here (:func:`openingbook.engine.book_probe`).

>>> import numpy as np
>>> from openingbook.solver import Position
>>> p = Position.from_moves("4455")
>>> probe = BookProbe.from_positions(
...     np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64), [18], 4, 7, 6
... )
>>> probe.plies, len(probe), probe.score(p), probe.score(p.mirror())
(4, 1, 18, 18)
>>> probe.score(Position.from_moves("4454")) is None
True
"""

from __future__ import annotations

import numpy as np

from openingbook.solver.errors import InvalidArgument
from openingbook.solver.geometry import check_board_size
from openingbook.solver.position import Position
from openingbook.solver.scores import score_bounds

__all__ = ["NO_PLY", "BookProbe", "no_probe"]

#: ``array[0]`` of the array that holds no book: no node has that many stones
NO_PLY = (1 << 64) - 1
#: added to a score to store it as a byte
_SCORE_OFFSET = 128
_HEADER = 2


def no_probe() -> np.ndarray:
    """The search's probe array of a solver without a book."""
    return np.array([NO_PLY, 0], dtype=np.uint64)


class BookProbe:
    """The exact scores of ``plies``-stone positions on a ``width`` x ``height`` board.

    ``keys``: canonical keys (:func:`openingbook.solver.bitboards.canonical_keys`), any order,
    each once; ``scores``: their Pons scores (side to move). Raises
    :class:`~openingbook.solver.errors.InvalidArgument` for a key given twice, a key of another
    stone count, or a score no position of that ply can have. Usually built by
    :meth:`from_positions`.
    """

    def __init__(
        self,
        keys: np.ndarray,
        scores: np.ndarray,
        plies: int,
        width: int,
        height: int,
    ) -> None:
        check_board_size(width, height)
        cells = width * height
        if not isinstance(plies, int) or not 0 <= plies < cells:
            raise InvalidArgument(f"a book probe's ply must be 0-{cells - 1}, got {plies!r}")
        keys = np.asarray(keys, dtype=np.uint64).ravel()
        scores = np.asarray(scores).ravel()
        if keys.shape != scores.shape:
            raise InvalidArgument("a book probe needs one score per key")
        low, high = score_bounds(plies, width, height)
        if scores.size and (scores.min() < low or scores.max() > high):
            raise InvalidArgument(
                f"a score of a {plies}-stone position lies in {low}..{high}, "
                f"got {int(scores.min())}..{int(scores.max())}"
            )
        if keys.size and (_stones_of_keys(keys, width, height) != plies).any():
            raise InvalidArgument(f"a key of another stone count than {plies}")
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        if keys.size > 1 and (keys[1:] == keys[:-1]).any():
            raise InvalidArgument("a book probe holds each position once")
        stored = (scores[order].astype(np.int64) + _SCORE_OFFSET).astype(np.uint64)
        count = keys.size
        words = -(-count // 8)
        padded = np.zeros(words * 8, dtype=np.uint64)
        padded[:count] = stored
        packed = np.zeros(words, dtype=np.uint64)
        for byte in range(8):  # explicit shifts: the same words on any byte order
            packed |= padded[byte::8] << np.uint64(8 * byte)
        self.plies = plies
        self.width = width
        self.height = height
        #: the array the search reads (see the module docstring)
        self.array = np.concatenate(
            [np.array([plies, count], dtype=np.uint64), keys, packed]
        ).astype(np.uint64, copy=False)

    @classmethod
    def from_positions(
        cls,
        first: np.ndarray,
        mask: np.ndarray,
        scores: np.ndarray,
        plies: int,
        width: int,
        height: int,
    ) -> BookProbe:
        """From positions (``first``/``mask`` bitboards, either mirror variant) of
        ``plies`` stones and their scores. A position given twice (or with its mirror
        image) is kept once if both scores agree; differing scores are refused."""
        from openingbook.solver.bitboards import canonical_keys

        first = np.asarray(first, dtype=np.uint64).ravel()
        mask = np.asarray(mask, dtype=np.uint64).ravel()
        scores = np.asarray(scores).astype(np.int64).ravel()
        if not first.shape == mask.shape == scores.shape:
            raise InvalidArgument("a book probe needs one score per position")
        keys = canonical_keys(first, mask, width, height)
        unique, index, inverse = np.unique(keys, return_index=True, return_inverse=True)
        if unique.size != keys.size and (scores != scores[index][inverse]).any():
            raise InvalidArgument("a position with two different scores")
        return cls(unique, scores[index], plies, width, height)

    def __len__(self) -> int:
        return int(self.array[1])

    @property
    def nbytes(self) -> int:
        """Bytes of :attr:`array`."""
        return int(self.array.nbytes)

    @property
    def keys(self) -> np.ndarray:
        """The canonical keys, ascending (a view of :attr:`array`)."""
        return self.array[_HEADER : _HEADER + len(self)]

    @property
    def scores(self) -> np.ndarray:
        """The scores of :attr:`keys`, in their order (``int8``, unpacked)."""
        count = len(self)
        packed = self.array[_HEADER + count :]
        out = np.empty(packed.size * 8, dtype=np.int64)
        for byte in range(8):
            out[byte::8] = (packed >> np.uint64(8 * byte)) & np.uint64(0xFF)
        return (out[:count] - _SCORE_OFFSET).astype(np.int8)

    def score(self, pos: Position) -> int | None:
        """The stored score of ``pos`` (either mirror variant), None if not held.

        The same lookup as the search's, in Python (for checks and tests)."""
        if (pos.width, pos.height) != (self.width, self.height):
            raise InvalidArgument(
                f"a {pos.width}x{pos.height} position, the probe's board is "
                f"{self.width}x{self.height}"
            )
        if pos.stone_count != self.plies:
            return None
        key = min(pos.key(), pos.mirror().key())
        count = len(self)
        keys = self.keys
        i = int(np.searchsorted(keys, np.uint64(key)))
        if i == count or int(keys[i]) != key:
            return None
        word = int(self.array[_HEADER + count + i // 8])
        return ((word >> (8 * (i % 8))) & 0xFF) - _SCORE_OFFSET

    def __repr__(self) -> str:
        return (
            f"BookProbe(plies={self.plies}, positions={len(self)}, "
            f"board={self.width}x{self.height})"
        )


def _stones_of_keys(keys: np.ndarray, width: int, height: int) -> np.ndarray:
    """Stone counts of Pons keys ``current + mask + bottom``: in each column the
    highest set bit is the one above its stones (the sentinel), so a column holds
    the index of that bit within the column."""
    h1 = height + 1
    column = np.uint64((1 << h1) - 1)
    stones = np.zeros(keys.shape, dtype=np.int64)
    for col in range(width):
        bits = (keys >> np.uint64(col * h1)) & column
        # the highest set bit's index: bit_length - 1 (a column's bits are never 0)
        stones += np.floor(np.log2(np.maximum(bits, 1).astype(np.float64))).astype(np.int64)
    return stones
