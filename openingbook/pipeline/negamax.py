"""The values of a shallower ply from a deeper book, by exact negamax over the plies between.

The values of the positions at ply ``m`` follow from the values at ply ``n > m``:
expand every ply-``m`` position layer by layer to ply ``n`` (vectorized, one numpy
array per layer, transpositions and mirror pairs merged), score the positions
where the side to move can complete four at once directly, look the remaining
ply-``n`` positions up in the deeper book, and back the values up by negamax
(:func:`negamax_layers`; over a :class:`~openingbook.model.BookModel`:
:func:`derive_values`). What ``derive`` writes (:mod:`openingbook.pipeline.derive`),
what ``validate`` compares (:mod:`openingbook.checks.validate`) and what the engine
backs up (:mod:`openingbook.engine`); it reads no file and writes none.

Values are Pons scores (side to move, see :mod:`openingbook.solver.scores`) when the deeper
book has distances, so that distances carry through; otherwise win/draw/loss
(+1/0/-1 for the side to move). A first-player-win-pruned deeper book is read
with its rule "a position that is not stored is a first-player win".

>>> import numpy as np
>>> from openingbook.solver import Position
>>> root = Position.from_moves("112233")  # the first player completes four next
>>> first = np.array([root.first_stones], np.uint64)
>>> mask = np.array([root.mask], np.uint64)
>>> def no_leaves(f, m):  # never asked: every line ends before ply 8
...     raise AssertionError
>>> negamax_layers(first, mask, 8, no_leaves, scores=True, width=7, height=6).values.tolist()
[18]
"""

from __future__ import annotations

import bisect
import functools
import itertools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

import numpy as np

from openingbook.checks.booksizes import complete_positions, estimated_positions
from openingbook.errors import BookFileError, InvalidArgument
from openingbook.memory import require_memory
from openingbook.model import BookModel
from openingbook.solver import (
    BoardSize,
    board_mask,
    can_win_next_bits,
    canonical_keys,
    enumerate_positions,
    iter_parts,
    positions_with_moves,
    score_from_plies,
    stone_counts,
)
from openingbook.values import (
    UNKNOWN,
    distance_bytes_from_scores,
    distance_plies,
    pruned_values,
)

if TYPE_CHECKING:
    from openingbook.answers import BookReader

#: the deeper book of a derivation: loaded whole, or an open reader
DeepBook = Union["BookModel", "BookReader"]

__all__ = [
    "DERIVE_BYTES_PER_DEEP_POSITION",
    "DERIVE_PIECE_ROOTS",
    "DERIVE_SLICE_BYTES",
    "DeepBook",
    "Derivation",
    "DerivedValues",
    "LeafLookup",
    "book_leaves",
    "derive_pieces",
    "derive_values",
    "negamax_layers",
]

_U64 = np.uint64


class _Board(BoardSize):
    """A board size with the bit masks the layer walk needs."""

    __slots__ = ()

    @property
    def bottom(self) -> list[np.uint64]:
        return [_U64(1 << (c * (self.height + 1))) for c in range(self.width)]

    @property
    def top(self) -> list[np.uint64]:
        return [_U64(1 << (c * (self.height + 1) + self.height - 1)) for c in range(self.width)]

    @property
    def full(self) -> np.uint64:
        return _U64(board_mask(self.width, self.height))


#: Marks a value the negamax cannot decide (a deeper position it needs is not in the
#: book) inside its int8 value arrays: larger than any score, so that a maximum over
#: children is undecided as soon as one child is. Not :data:`openingbook.values.UNKNOWN`,
#: which marks a book's unknown answer.
UNDECIDED = np.int8(100)

#: ``leaves(first, mask) -> (known, values)``: values (int8, side to move; Pons
#: scores or -1/0/+1) of ply-``n`` positions in which the side to move cannot win
#: at once; ``known`` is False where the deeper book cannot say.
LeafLookup = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass
class DerivedValues:
    """Values of root positions backed up from a deeper ply.

    ``values`` are side-to-move values (Pons scores when ``scores``, else -1/0/+1)
    and meaningless where ``known`` is False (some needed deeper position was
    missing from the deeper book).
    """

    first: np.ndarray
    mask: np.ndarray
    values: np.ndarray
    known: np.ndarray
    plies: int
    scores: bool
    layer_sizes: list[int] = field(default_factory=list)
    looked_up: int = 0

    def first_player_values(self) -> np.ndarray:
        """Values from the first player's side (positive = first player wins)."""
        a_to_move = stone_counts(self.mask) % 2 == 0
        return np.where(a_to_move, self.values, -self.values).astype(np.int8)


def negamax_layers(
    first: np.ndarray,
    mask: np.ndarray,
    plies: int,
    leaves: LeafLookup,
    scores: bool,
    width: int,
    height: int,
) -> DerivedValues:
    """Exact values of the ``first``/``mask`` positions from the values at ``plies`` stones.

    The positions are of a ``width`` x ``height`` board.

    All roots must have the same number of stones, at most ``plies``. Every line
    is followed to ``plies`` stones unless the side to move can win at once on
    the way (scored as a win with its next stone) or the board is full (a
    draw); the ply-``plies`` positions left are passed to ``leaves`` once each
    (one variant per mirror pair). A root is unknown when any position it needs
    is unknown.

    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("4444443")  # second player to move, blocks or loses
    >>> f = np.array([p.first_stones], np.uint64); m = np.array([p.mask], np.uint64)
    >>> def all_draws(f, m):
    ...     return np.ones(len(f), bool), np.zeros(len(f), np.int8)
    >>> negamax_layers(f, m, 9, all_draws, scores=False, width=7, height=6).values.tolist()
    [0]
    """
    first = np.ascontiguousarray(first, dtype=np.uint64)
    mask = np.ascontiguousarray(mask, dtype=np.uint64)
    if first.shape != mask.shape or first.ndim != 1:
        raise InvalidArgument("first and mask must be one-dimensional arrays of the same length")
    counts = np.unique(stone_counts(mask))
    if len(counts) > 1:
        raise InvalidArgument(f"roots have different stone counts: {counts.tolist()}")
    start = int(counts[0]) if len(counts) else plies
    if start > plies:
        raise InvalidArgument(f"roots have {start} stones, more than the target ply {plies}")
    board = _Board(width, height)
    if plies > board.cells:
        raise InvalidArgument(f"ply {plies} is beyond a full board ({board.cells})")

    # Walk down: per layer the positions, and the (rows, 7) child indices.
    layers: list[tuple[np.ndarray, np.ndarray]] = [(first, mask)]
    children: list[np.ndarray] = []
    for _ply in range(start, plies):
        f, m = layers[-1]
        stop = _terminal(f, m, board)
        child_index, cf, cm = _expand(f, m, ~stop, board)
        children.append(child_index)
        layers.append((cf, cm))

    # The deepest layer: immediate wins directly, the rest from the deeper book.
    f, m = layers[-1]
    values, known, looked_up = _leaf_values(f, m, plies, leaves, scores, board)

    # Walk up.
    for depth in range(len(children) - 1, -1, -1):
        f, m = layers[depth]
        ply = start + depth
        child_index = children[depth]
        contrib = np.where(known, -values, UNDECIDED).astype(np.int8)
        contrib = np.append(contrib, -UNDECIDED)  # the last entry stands for "no child"
        backed = contrib[np.where(child_index >= 0, child_index, len(contrib) - 1)].max(axis=1)
        win_now = can_win_next_bits(f, m, width, height)
        full = m == board.full
        direct = _win_now_value(ply, scores, board)
        values = np.where(win_now, direct, np.where(full, 0, backed)).astype(np.int8)
        known = values != UNDECIDED
        values[~known] = 0
    return DerivedValues(
        first=first,
        mask=mask,
        values=values,
        known=known,
        plies=plies,
        scores=scores,
        layer_sizes=[len(lf) for lf, _ in layers],
        looked_up=looked_up,
    )


def _terminal(first: np.ndarray, mask: np.ndarray, board: _Board) -> np.ndarray:
    """Positions not expanded: the side to move wins at once, or the board is full."""
    return can_win_next_bits(first, mask, board.width, board.height) | (mask == board.full)


def _expand(
    first: np.ndarray, mask: np.ndarray, open_: np.ndarray, board: _Board
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Children of the ``open_`` positions, one variant per mirror pair.

    Returns ``(child_index, first, mask)``: ``child_index[i, c]`` is the row of
    the position after column ``c`` is played in position ``i`` (-1 when the
    column is full or the position is not open). The side to move cannot win
    at once in an open position, so no child has four in a row.
    """
    rows = len(first)
    width = board.width
    a_moves = rows > 0 and int(stone_counts(mask[:1])[0]) % 2 == 0
    cf = np.empty((rows, width), np.uint64)
    cm = np.empty((rows, width), np.uint64)
    ok = np.empty((rows, width), bool)
    bottom, top = board.bottom, board.top
    for col in range(width):
        new_mask = mask | (mask + bottom[col])
        cm[:, col] = new_mask
        cf[:, col] = first | (new_mask ^ mask) if a_moves else first
        ok[:, col] = ((mask & top[col]) == 0) & open_
    flat = np.flatnonzero(ok.ravel())
    cf_flat = cf.ravel()[flat]
    cm_flat = cm.ravel()[flat]
    keys = canonical_keys(cf_flat, cm_flat, board.width, board.height)  # merge mirror pairs
    _, first_seen, inverse = np.unique(keys, return_index=True, return_inverse=True)
    child_index = np.full(rows * width, -1, np.int32)
    child_index[flat] = inverse.ravel()
    return child_index.reshape(rows, width), cf_flat[first_seen], cm_flat[first_seen]


def _win_now_value(ply: int, scores: bool, board: _Board) -> int:
    """Value for the side to move that completes four with its next stone."""
    return score_from_plies(1, ply, board.width, board.height) if scores else 1


def _leaf_values(
    first: np.ndarray,
    mask: np.ndarray,
    ply: int,
    leaves: LeafLookup,
    scores: bool,
    board: _Board,
) -> tuple[np.ndarray, np.ndarray, int]:
    win_now = can_win_next_bits(first, mask, board.width, board.height)
    values = np.zeros(len(first), np.int8)
    known = np.ones(len(first), bool)
    values[win_now] = _win_now_value(ply, scores, board)
    ask = np.flatnonzero(~win_now & (mask != board.full))
    if len(ask):
        k, v = leaves(first[ask], mask[ask])
        values[ask] = v
        known[ask] = k
    return values, known, len(ask)


# ------------------------------------------------------------------ books
def book_leaves(book: DeepBook) -> tuple[LeafLookup, bool]:
    """The leaf lookup reading ``book`` (a loaded :class:`~openingbook.model.BookModel`
    or an open :class:`~openingbook.answers.BookReader`, which answers each lookup from
    its file), and whether it gives Pons scores.

    A book with distances gives exact scores (unknown where a position is missing);
    another gives win/draw/loss, a pruned book's missing position inside its scope
    being a first-player win (:meth:`BookModel.answers`, the reader's own rule).
    """
    plies = book.plies
    if not isinstance(book, BookModel):
        return _reader_leaves(book)
    if book.has_distances:

        def leaves(first: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            index = book.find(first, mask)
            found = index >= 0
            scores = book.score[np.maximum(index, 0)]
            faulty = found & (scores == UNKNOWN)
            if faulty.any():
                i = int(index[np.argmax(faulty)])
                raise BookFileError(
                    f"{book.path}: position {i} is a win in {int(book.plies_to_end[i])} "
                    f"plies, impossible at {plies} stones"
                )
            return found, np.where(found, scores, 0).astype(np.int8)

        return leaves, True

    def leaves_wdl(first: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        winner = book.answers(first, mask).winner
        known = winner != UNKNOWN
        first_view = np.where(known, winner, 0)
        return known, (first_view if plies % 2 == 0 else -first_view).astype(np.int8)

    return leaves_wdl, False


def _reader_leaves(book: BookReader) -> tuple[LeafLookup, bool]:
    """:func:`book_leaves` of an open reader: one bulk lookup per call (``strict=False``:
    what the book does not answer is unknown)."""
    plies = int(book.plies or 0)
    scores = book.has_distances

    def leaves(first: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        answers = book.lookup_many(first, mask, strict=False)
        if scores:
            known = answers.score != UNKNOWN
            return known, np.where(known, answers.score, 0).astype(np.int8)
        known = answers.winner != UNKNOWN
        first_view = np.where(known, answers.winner, 0)
        return known, (first_view if plies % 2 == 0 else -first_view).astype(np.int8)

    return leaves, scores


# ------------------------------------------------------------------ derivation
@dataclass
class Derivation:
    """Values of the ``plies``-stone book positions (under ``under``) derived from ``deep``:
    all of them (:func:`derive_values`), or one piece (:func:`derive_pieces`).

    ``covered`` is True where the value is certain: every deeper position it
    needs is in the deeper book, or (pruned books) inside its declared scope.
    ``moves``: the enumeration's move string of each position, or None when they were
    not kept (:meth:`move_string` finds them on demand).
    """

    plies: int
    deep: DeepBook
    under: str | None
    first: np.ndarray
    mask: np.ndarray
    moves: np.ndarray | None
    result: DerivedValues
    covered: np.ndarray
    seconds: float
    #: ``(start, part)`` of each piece enumerated as a part of the ply (its move strings
    #: are that part's enumeration's), in the order of the rows
    parts: list[tuple[int, tuple[int, int]]] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.first.size)

    @property
    def scores(self) -> bool:
        """Values are exact Pons scores (the deeper book has distances)."""
        return self.result.scores

    def winners(self) -> np.ndarray:
        """+1 first player wins, -1 second, 0 draw."""
        return np.sign(self.result.first_player_values()).astype(np.int8)

    def distances(self) -> np.ndarray:
        """Plies to the winning stone (-1 for draws, or without scores)."""
        if not self.scores:
            return np.full(len(self.first), -1, np.int16)
        d = distance_bytes_from_scores(self.result.values, self.plies, self.deep.board)
        return np.where(d == 0, -1, distance_plies(d)).astype(np.int16)

    def book_values(self, distances: bool) -> np.ndarray:
        """Values as stored in a book: distance bytes, or 0 draw / 1 second / 2 first wins."""
        if distances:
            if not self.scores:
                raise BookFileError("a distance book needs a deeper book with distances")
            return distance_bytes_from_scores(self.result.values, self.plies, self.deep.board)
        return pruned_values(self.winners())

    def move_string(self, row: int) -> str:
        """The enumeration's move string of the position at ``row`` (of a piece enumerated as
        a part of the ply: that part enumerated again, with its move strings)."""
        if self.moves is not None:
            return str(self.moves[row])
        starts = [start for start, _ in self.parts]
        start, part = self.parts[bisect.bisect_right(starts, row) - 1]
        return str(_part_moves(self.plies, part, self.deep.board)[row - start])


@functools.lru_cache(maxsize=1)
def _part_moves(plies: int, part: tuple[int, int], board: BoardSize) -> np.ndarray:
    """The move strings of part ``part`` of the ``plies``-stone positions, in the order of
    :func:`openingbook.solver.iter_parts` (the last part asked kept: a report names
    several positions of one part)."""
    return positions_with_moves(plies, None, *board, part=part)[2].astype(str)


def derive_values(
    deep: DeepBook,
    plies: int,
    under: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Derivation:
    """Derive the values of the ``plies``-stone book positions from a deeper book.

    ``deep``: the loaded model, or an open reader whose lookups read its file
    (:func:`book_leaves`; a compact book: nothing of it is loaded). ``under``: only the
    positions under this line (default: the deeper book's own scope). Raises
    ``ValueError`` when ``plies`` is deeper than the book (its own ply: the book's
    values read once, e.g. a distance book's win/draw/loss part), or when a pruned
    deeper book is only a sample or shard (its missing positions are not first-player
    wins).

    The pieces of :func:`derive_pieces`, joined: ``progress(done, total)`` is called
    with the roots done after each slice. The layer sizes and lookups of the result
    are summed over the slices (a position two slices reach is counted in each).
    """
    start = time.perf_counter()
    pieces = derive_pieces(deep, plies, under, progress)
    head = next(pieces)
    if not head.parts:  # the roots in one piece
        return head
    # part by part: each piece copied into the whole ply's arrays, then dropped
    capacity = complete_positions(deep.board, plies) or estimated_positions(deep.board, plies) or 0
    capacity += capacity // 8  # room for an estimate's error before the arrays grow
    columns = [np.empty(capacity, t) for t in (np.uint64, np.uint64, np.int8, bool, bool)]
    parts: list[tuple[int, tuple[int, int]]] = []
    layer_sizes, looked_up, row = [0] * len(head.result.layer_sizes), 0, 0
    for piece in itertools.chain([head], pieces):
        values = (piece.first, piece.mask, piece.result.values, piece.result.known, piece.covered)
        if row + len(piece) > len(columns[0]):
            columns = [
                np.concatenate([c[:row], np.empty(row + len(piece), c.dtype)]) for c in columns
            ]
        for column, piece_values in zip(columns, values, strict=True):
            column[row : row + len(piece)] = piece_values
        parts += [(row + s, part) for s, part in piece.parts]
        layer_sizes = [a + b for a, b in zip(layer_sizes, piece.result.layer_sizes, strict=True)]
        looked_up += piece.result.looked_up
        row += len(piece)
    for column in columns:  # to the rows filled: the room left is given back, not copied
        column.resize(row, refcheck=False)
    first, mask, values, known, covered = columns
    result = DerivedValues(
        first, mask, values, known, plies=deep.plies, scores=head.scores,
        layer_sizes=layer_sizes, looked_up=looked_up,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    return Derivation(plies, deep, head.under, first, mask, None, result, covered, seconds, parts)


def derive_pieces(
    deep: DeepBook,
    plies: int,
    under: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[Derivation]:
    """:func:`derive_values` a piece of the roots at a time, in bounded memory.

    The roots of a whole ply of more than :data:`DERIVE_PIECE_ROOTS` positions come part
    by part (:func:`openingbook.solver.iter_parts`: the previous layer and one part in
    memory, each part's move strings found on demand, :meth:`Derivation.move_string`);
    any other set of roots is one piece, with its move strings. Each piece is walked
    down in consecutive slices (:func:`_slices`), each within
    :data:`DERIVE_SLICE_BYTES` of working memory (deriving 13 plies from the 14-ply
    book: about twenty); ``progress(done, total)`` is called with the roots done after
    each. :class:`NotEnoughMemory` before anything is allocated when one slice would
    need more memory than this machine has (:data:`DERIVE_BYTES_PER_DEEP_POSITION`).
    """
    start = time.perf_counter()
    line = _checked_line(deep, plies, under)
    if plies == deep.plies:
        yield _own_ply(deep, line, start)
        return
    board = deep.board
    deepest = _deepest_layer(deep, line)
    exact = complete_positions(board, plies) if line is None else None
    estimate = exact if exact is not None or line is not None else estimated_positions(board, plies)
    parts = 1 if estimate is None else min(MAX_PIECES, max(1, -(-estimate // DERIVE_PIECE_ROOTS)))
    total = estimate if parts > 1 else None
    slices = 1 if deepest is None else -(-_slice_count(deepest) // parts)
    if deepest is not None:
        require_memory(
            -(-deepest // (slices * parts)) * DERIVE_BYTES_PER_DEEP_POSITION,
            f"deriving the {plies}-ply values from {deep.path.name} "
            f"({deepest:,} positions at {deep.plies} plies"
            + (f", in {slices * parts} slices)" if slices * parts > 1 else ")"),
        )
    leaves, scores = book_leaves(deep)
    scope_keys = None
    if not deep.has_distances and deep.scope.under:
        scope_keys = _scope_at(deep.scope.under, plies, board)
    if progress is not None and total is not None:
        progress(0, total)  # the bar before the first part's enumeration
    done = 0
    for part, first, mask, moves in _roots(plies, line, parts, board):
        if total is not None and exact is None and part is not None and part[0] > 1:
            # the total of an estimated ply, from the parts so far
            total = max(done + len(first), done * parts // (part[0] - 1))
        count = total if total is not None else len(first)
        if part is not None and part[0] == parts:
            count = done + len(first)  # the last part: the total is known
        if progress is not None and total is None:
            progress(0, count)  # one part: the bar once its positions are known
        pieces: list[DerivedValues] = []
        known_reach = deepest is not None or not line
        ranges = _slices(len(first), slices) if known_reach else _line_slices(len(first), pieces)
        for lo, hi in ranges:
            pieces.append(
                negamax_layers(first[lo:hi], mask[lo:hi], deep.plies, leaves, scores, *board)
            )
            if progress is not None:
                progress(done + hi, count)
        done += len(first)
        result = _joined(first, mask, pieces)
        covered = result.known.copy()
        if scope_keys is not None:
            # a pruned book answers only inside its scope; a root's whole subtree is
            # inside when the root is (the scope is closed under continuing play)
            covered &= np.isin(canonical_keys(first, mask, *board), scope_keys)
        yield Derivation(
            plies,
            deep,
            line,
            first,
            mask,
            moves,
            result,
            covered,
            time.perf_counter() - start,
            [] if part is None else [(0, part)],
        )


#: most pieces a derivation's roots are split into (a ply far past the table of complete
#: book sizes is estimated large; its parts would need more memory than a piece anyway)
MAX_PIECES = 4096


def _checked_line(deep: DeepBook, plies: int, under: str | None) -> str | None:
    """The line a derivation of ``plies`` from ``deep`` walks under (``under``, else the
    deeper book's scope), or the refusal of what cannot be derived."""
    if not 0 <= plies <= deep.plies:
        raise InvalidArgument(
            f"must be at most the {deep.plies} plies of {deep.path.name}",
            argument="plies",
            value=plies,
        )
    if not deep.scope.answers_absent and not deep.has_distances:
        raise BookFileError(
            f"the scope of {deep.path.name} is {deep.scope.describe()}: its missing "
            "positions are not known to be first-player wins, so it cannot be read as a pruned book"
            + ("" if not deep.scope.known else " (merge or rebuild it)")
        )
    line = under if under is not None else deep.scope.under
    if line and len(line) > plies:
        raise InvalidArgument(
            f"the line {line} has {len(line)} moves: no {plies}-ply position lies under it"
            + (f" ({deep.path.name} holds only positions under it)" if not under else "")
        )
    return line or None


def _roots(
    plies: int, line: str | None, parts: int, board: BoardSize
) -> Iterator[tuple[tuple[int, int] | None, np.ndarray, np.ndarray, np.ndarray | None]]:
    """``(part, first, mask, moves)`` of the roots: in ``parts`` parts of the whole ply
    (``moves`` None), or all at once with their move strings (``part`` None)."""
    if parts > 1:
        for i, first, mask in iter_parts(plies, parts, *board):
            yield (i, parts), first, mask, None
        return
    first, mask, moves = positions_with_moves(plies, line, *board)
    yield None, first, mask, moves.astype(str)


def _own_ply(deep: DeepBook, line: str | None, start: float) -> Derivation:
    """The values of a loaded distance book at its own ply, read once (its win/draw/loss
    part): its own positions, no enumeration and no walk."""
    if not isinstance(deep, BookModel) or not deep.has_distances:
        raise InvalidArgument(
            f"{deep.path.name}: only a loaded distance book is read at its own ply",
            argument="plies",
            value=deep.plies,
        )
    if line != (deep.scope.under or None):
        raise InvalidArgument(
            f"{deep.path.name} holds its own positions at {deep.plies} plies: "
            "--under is not taken there",
            argument="under",
            value=line,
        )
    n = len(deep)
    values = deep.score.astype(np.int8)
    known = np.ones(n, bool)
    result = DerivedValues(deep.first, deep.mask, values, known, deep.plies, True, [n], n)
    moves = np.full(n, "", dtype="<U1")  # every value is known: no position is named
    seconds = time.perf_counter() - start
    return Derivation(deep.plies, deep, line, deep.first, deep.mask, moves, result, known, seconds)


def _slice_count(deepest: int) -> int:
    """Slices of the roots whose walks each reach about :data:`DERIVE_SLICE_BYTES` worth
    of deeper positions (``deepest`` for all the roots)."""
    return max(1, -(-deepest * DERIVE_BYTES_PER_DEEP_POSITION // DERIVE_SLICE_BYTES))


def _line_slices(count: int, walked: list[DerivedValues]) -> Iterator[tuple[int, int]]:
    """Consecutive ``(lo, hi)`` ranges covering ``range(count)`` for roots under a line,
    whose walks' reach is not known beforehand: the first 1/:data:`LINE_FIRST_SLICES` of
    them, each next one sized to :data:`DERIVE_LINE_SLICE_BYTES` by what the last range
    reached per root (``walked[-1]``, appended by the caller before the next range)."""
    lo, size = 0, max(1, count // LINE_FIRST_SLICES)
    while lo < count:
        hi = min(count, lo + size)
        yield lo, hi
        per_root = walked[-1].layer_sizes[-1] * DERIVE_BYTES_PER_DEEP_POSITION / (hi - lo)
        size = max(1, int(DERIVE_LINE_SLICE_BYTES // max(per_root, 1.0)))
        lo = hi


def _slices(count: int, slices: int) -> list[tuple[int, int]]:
    """``slices`` consecutive ``(lo, hi)`` ranges covering ``range(count)``, as even as can be."""
    bounds = np.linspace(0, count, max(1, min(slices, count)) + 1).astype(np.int64).tolist()
    return list(itertools.pairwise(bounds))


def _joined(first: np.ndarray, mask: np.ndarray, pieces: list[DerivedValues]) -> DerivedValues:
    """The :class:`DerivedValues` of consecutive slices of roots, as one."""
    if len(pieces) == 1:
        return pieces[0]
    return DerivedValues(
        first=first,
        mask=mask,
        values=np.concatenate([p.values for p in pieces]),
        known=np.concatenate([p.known for p in pieces]),
        plies=pieces[0].plies,
        scores=pieces[0].scores,
        layer_sizes=[sum(sizes) for sizes in zip(*(p.layer_sizes for p in pieces), strict=True)],
        looked_up=sum(p.looked_up for p in pieces),
    )


#: a derivation's peak working memory per position of the deeper ply its walk reaches:
#: every layer from the roots down with its child indices (measured peaks: 1.7 GB deriving
#: 11 plies from the 4,200,899 positions of the 12-ply distance book, 9.0 GB deriving 13
#: plies from the 14-ply one in one walk, the book loaded: about 400 bytes each)
DERIVE_BYTES_PER_DEEP_POSITION = 420

#: the working memory of one slice of a derivation's roots (:func:`derive_pieces`): with
#: the layer a part grows from and a derivation's values so far, within 2 GB for 14 plies
#: from the 15-ply book
DERIVE_SLICE_BYTES = 1 << 29

#: the working memory of one slice of a walk under a line narrower than the deeper book's
#: scope (a small book checked against a big one: what its roots reach is not known
#: before, so the first slice is 1/:data:`LINE_FIRST_SLICES` of them and the others are
#: sized by what it reached): validating the 450 8-ply positions under 4444 against the
#: 15-ply book in about 0.3 GB in all, where one walk took 0.48 GB
DERIVE_LINE_SLICE_BYTES = 1 << 26
LINE_FIRST_SLICES = 16

#: a whole ply of more roots than this is derived part by part (:func:`derive_pieces`:
#: 14 plies on 7x6 in 24 parts of about a million roots, the 13-ply layer they grow
#: from enumerated once), so that neither the roots nor the values of the whole ply
#: are ever in memory; smaller sets of roots are one piece
DERIVE_PIECE_ROOTS = 1 << 20


def _deepest_layer(deep: DeepBook, line: str | None) -> int | None:
    """How many positions at the deeper ply a derivation under ``line`` walks to, when
    known: those of the whole book (a narrower line walks to fewer, not estimated)."""
    if line != (deep.scope.under or None):
        return None
    if deep.has_distances:  # a distance book stores every position of its scope
        return len(deep)
    return complete_positions(deep.board, deep.plies) if deep.scope.complete else None


def _scope_at(under: str, plies: int, board: BoardSize) -> np.ndarray:
    if len(under) > plies:
        return np.empty(0, np.uint64)
    f, m = enumerate_positions(plies, under, *board)
    return canonical_keys(f, m, *board)
