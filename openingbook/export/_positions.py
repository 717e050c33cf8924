"""A whole book as arrays: every position it answers for, with its value.

Exports need each position with its result, but a pruned (win/draw/loss) book
does not store the positions the first player wins: its reader answers "first
player wins" for a position it does not find inside its scope
(:class:`openingbook.manifest.Scope`). When that scope is complete (every
position of the ply, or of the subtree of its manifest's ``under`` line), the
missing positions are recovered exactly by enumerating the scope's positions
and marking the ones the book lacks as first-player wins. A book whose
manifest says it is a sample or a shard, or whose scope is unknown (no
manifest, not recognisably complete), cannot be completed and is refused.

Distance books store every position, so their records are taken as they are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from openingbook.bookfile import BookFormat, check_records
from openingbook.codec import decode_keys
from openingbook.errors import BookFileError, InvalidArgument
from openingbook.manifest import identify
from openingbook.reader import read_book
from openingbook.values import (
    distance_plies,
    first_player_winner,
    scores_from_distance_bytes,
)
from solver import canonical_keys, enumerate_positions

__all__ = ["BookPositions", "load_positions"]


@dataclass
class BookPositions:
    """Positions of a book with their values, as parallel arrays.

    ``winner``: +1 first player wins, -1 second player wins, 0 draw.
    ``distance``: Thill's signed distance bytes, or ``None`` for a pruned book.
    ``added``: how many first-player wins were recovered by enumeration.
    """

    fmt: BookFormat
    first: np.ndarray
    mask: np.ndarray
    winner: np.ndarray
    distance: np.ndarray | None
    under: str | None = None
    added: int = 0

    def __len__(self) -> int:
        return int(self.first.size)

    @property
    def stones(self) -> int:
        return self.fmt.plies

    @property
    def has_distances(self) -> bool:
        return self.distance is not None

    def plies(self) -> np.ndarray:
        """Plies to the result (to the winning stone, or to the full board for a draw).

        Raises ``ValueError`` for a book without distances.
        """
        if self.distance is None:
            raise InvalidArgument("the book has no distances")
        d = self.distance
        return np.where(d == 0, self.fmt.board.cells - self.stones, distance_plies(d)).astype(
            np.int8
        )

    def scores(self) -> np.ndarray:
        """Pons scores (side to move). Raises ``ValueError`` for a book without distances."""
        if self.distance is None:
            raise InvalidArgument("the book has no distances")
        scores, consistent = scores_from_distance_bytes(self.distance, self.stones, self.fmt.board)
        if not consistent.all():
            i = int(np.argmin(consistent))
            raise BookFileError(f"record {i}: distance byte {int(self.distance[i])} is impossible")
        return scores

    def select(self, index: np.ndarray) -> BookPositions:
        """The positions at ``index`` (an index or boolean array), same book."""
        return BookPositions(
            self.fmt,
            self.first[index],
            self.mask[index],
            self.winner[index],
            None if self.distance is None else self.distance[index],
            self.under,
            self.added,
        )


def load_positions(
    path: str | os.PathLike[str], fmt: BookFormat | None = None, complete: bool = True
) -> BookPositions:
    """Every position of the book at ``path`` with its value.

    Pruned books are completed with their first-player wins (see the module
    docstring) when ``complete``; otherwise only the stored records are
    returned. Mirror pairs stored twice (as in Thill's original 8-ply file) are
    kept once; ``ValueError`` if the two records disagree. Raises
    ``ValueError`` when a pruned book cannot be completed.
    """
    path = Path(path)
    from openingbook.compact import is_compact

    if is_compact(path):  # every position of its scope, values stored
        from openingbook.compact import compact_thill_values

        fmt, first, mask, values, under = compact_thill_values(path)
        if fmt.distances:
            return BookPositions(fmt, first, mask, np.sign(values).astype(np.int8), values, under)
        return BookPositions(fmt, first, mask, first_player_winner(values), None, under)
    identity = identify(path, fmt)
    scope = identity.scope
    fmt, records = read_book(path, identity.fmt, check=False)
    check_records(fmt, records, str(path), decode=False)  # values and order
    try:  # the positions: legal, of the book's ply (decoded once, here)
        first, mask = decode_keys(records.keys, fmt.key_bits, fmt.plies, fmt.width, fmt.height)
    except ValueError as exc:
        raise BookFileError(f"{path}: {str(exc).replace('key ', 'record ', 1)}") from None
    keys = canonical_keys(first, mask, fmt.width, fmt.height)
    order = np.argsort(keys, kind="stable")
    keys, first, mask = keys[order], first[order], mask[order]
    values = records.values[order]
    if keys.size > 1:
        twice = np.flatnonzero(keys[1:] == keys[:-1])
        if twice.size:
            clash = twice[values[twice + 1] != values[twice]]
            if clash.size:
                raise BookFileError(
                    f"{path}: the two variants of a mirror pair have different values "
                    f"(records {int(order[clash[0]])} and {int(order[clash[0] + 1])})"
                )
            keep = np.ones(keys.size, dtype=bool)
            keep[twice + 1] = False
            keys, first, mask, values = keys[keep], first[keep], mask[keep], values[keep]
    under = scope.under
    if fmt.distances:
        winner = np.sign(values).astype(np.int8)
        return BookPositions(fmt, first, mask, winner, values.astype(np.int8), under)
    winner = first_player_winner(values)
    if not complete:
        return BookPositions(fmt, first, mask, winner, None, under)
    if not scope.known:
        raise BookFileError(
            f"{path}: scope unknown: {scope.unknown_why}, so the first-player wins it leaves "
            "out cannot be recovered; keep the manifest beside the book"
        )
    if scope.partial:
        raise BookFileError(
            f"{path}: the book is {scope.partial}, so the first-player wins it leaves out "
            "cannot be recovered; export a complete book"
        )
    all_first, all_mask = enumerate_positions(fmt.plies, under, fmt.width, fmt.height)
    all_keys = canonical_keys(all_first, all_mask, fmt.width, fmt.height)
    sorter = np.argsort(all_keys)
    where = np.clip(np.searchsorted(all_keys, keys, sorter=sorter), 0, all_keys.size - 1)
    stored_at = sorter[where]
    missing = all_keys[stored_at] != keys
    if missing.any():
        i = int(np.argmax(missing))
        scope = f" under {under}" if under else ""
        raise BookFileError(
            f"{path}: record {int(order[i])} is not a {fmt.plies}-ply book position{scope} "
            "(the book is not complete for its ply, so its left-out wins cannot be recovered)"
        )
    all_winner = np.ones(all_keys.size, dtype=np.int8)  # not stored: first player wins
    all_winner[stored_at] = winner
    added = int(all_keys.size - keys.size)
    return BookPositions(fmt, all_first, all_mask, all_winner, None, under, added)
