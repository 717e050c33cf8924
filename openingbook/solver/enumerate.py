"""Enumerate the positions an opening book of a given ply holds.

A ply-``N`` book holds every position with exactly ``N`` stones that occurs in
legal play, where nobody has four in a row and the side to move cannot complete
four at once, one variant per mirror pair (see ``FORMATS.md``).

The positions are built breadth-first, one layer of stones at a time, by
numba kernels: the key of every child of every position (each playable column),
then the first occurrence of each distinct key (keys scattered into buckets by
hash, each bucket deduplicated in a cache-sized hash table: sequential memory
traffic instead of one cache miss per child), then the kept children.
Children come out in (parent rank, column) order, so the output groups the
positions by parent line (like a depth-first walk): neighbours share most of
their subtree, which keeps a solver's transposition table warm when they are
solved in this order. Book files have their own sort order; writing a book
re-sorts.

Mirror pairs: the returned variant is the one with the smaller Pons key
``current + mask + bottom`` (as :meth:`openingbook.solver.Position.canonical` and
:func:`openingbook.solver.bitboards.canonical_bits`). When the start position is its own
mirror (the empty board, or ``under="44"``), the set of reachable positions is
mirror-closed and every layer is reduced to one variant per pair, halving the
work; otherwise the layers are kept whole and merged at the end, so that a pair
is included when either of its variants is reachable from ``under``.

>>> first, mask = enumerate_positions(2, None, 7, 6)
>>> len(first)  # 49 two-stone positions: 24 mirror pairs and one symmetric
25
>>> count_positions(2, None, 7, 6, merge_mirrors=False)
49
>>> count_positions(8, None, 7, 6)
77715
>>> count_positions(4, under="44", width=7, height=6)
25
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from types import ModuleType

import numpy as np

from openingbook.solver.bitboards import can_win_next_bits
from openingbook.solver.bitboards import mirror_bits as _mirror_bits
from openingbook.solver.bitboards import position_keys as _position_keys
from openingbook.solver.errors import InvalidArgument
from openingbook.solver.position import Position

__all__ = [
    "AUTO_PARTS",
    "DEFAULT_MAX_CANDIDATES",
    "MAX_PARTS",
    "PART_MAX_CANDIDATES",
    "LayerTooLarge",
    "check_part",
    "count_positions",
    "counted_positions",
    "enumerate_positions",
    "finished_games",
    "iter_parts",
    "part_of",
    "positions_with_moves",
]

#: Most children examined for one layer (positions of the ply before x width).
#: Each costs about 35 bytes while the layer is built (its key, flag and bucket
#: copy, plus the kept children), so the default bounds one step at about 2 GB: the full enumeration
#: reaches 13 plies (41M candidates for the last layer; 12 plies: 15M), deeper
#: plies come by parts (:data:`PART_MAX_CANDIDATES`) or need ``under``.
DEFAULT_MAX_CANDIDATES = 60_000_000
#: The guard for the whole layers a part's enumeration builds before its own (the part's
#: own layer holds only its children): 15 plies on 7x6 examine 98.7M children for the
#: 14-stone layer, 2.8 GB at the peak for one part of 64; a part of 16 plies would need
#: the whole 15-stone layer (245.3M children) and is refused.
PART_MAX_CANDIDATES = 120_000_000


#: Most parts a ply can be split into (:func:`check_part`).
MAX_PARTS = 1 << 16
#: Parts of a ply whose whole last layer does not fit the memory guard (14 plies on
#: 7x6: about 0.7M book positions a part; the 13-ply layer and one part in memory).
AUTO_PARTS = 32


class LayerTooLarge(InvalidArgument):
    """A whole layer would not fit the memory guard (``max_candidates``): enumerate the
    ply by parts (``part=``, :func:`iter_parts`) or under a longer line."""


def check_part(part: tuple[int, int]) -> tuple[int, int]:
    """``(i, n)`` as two ints, or ``ValueError`` unless ``1 <= i <= n <= MAX_PARTS``.

    >>> check_part((3, 64))
    (3, 64)
    """
    try:
        i, n = (int(v) for v in part)
    except (TypeError, ValueError):
        raise InvalidArgument(f"a part is (i, n), got {part!r}", argument="part") from None
    if not 1 <= i <= n <= MAX_PARTS:
        raise InvalidArgument(
            f"expected i/n with 1 <= i <= n <= {MAX_PARTS}", argument="part", value=f"{i}/{n}"
        )
    return i, n


def _guard(max_candidates: int | None, part: bool) -> int:
    """The memory guard asked for, or the default of a whole ply or of a part's layers."""
    if max_candidates is not None:
        return int(max_candidates)
    return PART_MAX_CANDIDATES if part else DEFAULT_MAX_CANDIDATES


def part_of(
    first: np.ndarray,
    mask: np.ndarray,
    parts: int,
    width: int,
    height: int,
) -> np.ndarray:
    """The part (1..``parts``, int32) of each position, the same for both variants of
    a mirror pair: the high 32 bits of ``canonical key x 0x9E3779B97F4A7C15``
    (mod 2**64) times ``parts``, shifted right by 32, plus 1. The canonical key is
    the Pons key of the smaller-key variant (:func:`openingbook.solver.canonical_bits`).

    >>> first, mask = enumerate_positions(4, None, 7, 6)
    >>> sizes = np.bincount(part_of(first, mask, 4, 7, 6))[1:]
    >>> sizes.tolist(), int(sizes.sum()) == len(first)
    ([139, 151, 126, 152], True)
    """
    check_part((1, parts))
    key = _position_keys(first, mask, width, height)
    key = np.minimum(key, _mirror_bits(key, width, height))
    return _kernels().part_of_many(np.ascontiguousarray(key, dtype=np.uint64), int(parts))


def _kernels() -> ModuleType:
    """The compiled kernels (:mod:`openingbook.solver._kernels`), imported on first use:
    numba is not loaded by a process that only reads books."""
    from openingbook.solver import _kernels

    return _kernels


def _bucket_bits(n: int) -> int:
    """log2 of the bucket count of :func:`openingbook.solver._kernels.first_flags`: about 8k keys
    per bucket
    (a 16k-slot table, 128 KiB, stays in cache); at least 2 buckets. ``n`` keys, fewer
    than 2**32 (the kernel numbers them in 4 bytes), else :class:`LayerTooLarge`."""
    if n >= 1 << 32:
        raise LayerTooLarge(f"{n:,} children in one step: at most 2**32 - 1")
    bits = 1
    while (n >> bits) > 8192:
        bits += 1
    return bits


class _Layers:
    """The layers of one enumeration, with what is needed to rebuild move strings."""

    def __init__(
        self,
        start: Position,
        plies: int,
        canonical: bool,
        max_candidates: int,
        part: tuple[int, int] | None = None,
        steps: bool = True,
    ) -> None:
        self.start = start
        #: whether each layer's steps are kept (to rebuild move strings)
        self.keep_steps = steps
        self.width = start.width
        self.height = start.height
        self.canonical = canonical
        self.first = np.array([start.first_stones], dtype=np.uint64)
        self.mask = np.array([start.mask], dtype=np.uint64)
        # per layer added: (parent index, column, mirrored) arrays
        self.steps: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        stones = start.stone_count
        if part is not None and stones == plies:  # no step: the start alone, if in the part
            keep = part_of(self.first, self.mask, part[1], self.width, self.height) == part[0]
            self.first, self.mask = self.first[keep], self.mask[keep]
        while stones < plies:
            if part is not None and stones == plies - 1:
                # the last layer of one part: its children only, never the whole layer
                self.add_part_layer(stones, part)
                break
            self.add_layer(stones, max_candidates)
            stones += 1

    def add_layer(self, stones: int, max_candidates: int) -> None:
        """Replace the last layer (``stones`` stones) by the next one: every child,
        once (one variant per mirror pair when the layers are canonical)."""
        kernels = _kernels()
        cap = self.first.size * self.width
        if cap > max_candidates:
            raise LayerTooLarge(
                f"the {stones + 1}-stone layer means examining {cap:,} children, more "
                f"than the {max_candidates:,} allowed in memory (start from a longer line)"
            )
        keys = kernels.child_keys(
            self.first, self.mask, stones, self.width, self.height, self.canonical
        )
        flags = kernels.first_flags(keys, _bucket_bits(keys.size))
        del keys
        f, m, parent, col, flip = kernels.gather_children(
            self.first,
            self.mask,
            stones,
            self.width,
            self.height,
            self.canonical,
            flags,
            int(np.count_nonzero(flags)),
        )
        self.first, self.mask = f, m
        if self.keep_steps:
            self.steps.append((parent, col, flip))

    def add_part_layer(self, stones: int, part: tuple[int, int], finished: bool = False) -> None:
        """Replace the last layer (``stones`` stones, canonical) by the children of part
        ``part``: the positions of the whole next layer whose canonical key is in the
        part, in the same order. Memory: the part's children and one flag per child.
        ``finished``: the part's finished games instead (the mover completes four)."""
        kernels = _kernels()
        keys, index = kernels.part_child_keys(
            self.first, self.mask, stones, self.width, self.height, part[0], part[1], finished
        )
        kept = index[kernels.first_flags(keys, _bucket_bits(keys.size))]
        del keys, index
        flags = np.zeros(self.first.size * self.width, dtype=bool)
        flags[kept] = True
        f, m, parent, col, flip = kernels.gather_children(
            self.first, self.mask, stones, self.width, self.height, True, flags, kept.size
        )
        self.first, self.mask = f, m
        if self.keep_steps:
            self.steps.append((parent, col, flip))

    def moves(self, keep: np.ndarray | None = None) -> np.ndarray:
        """0-based columns reaching each final position, shape (n, plies), uint8.

        ``keep`` selects final positions (indices) before the moves are traced back.
        """
        index = np.arange(self.first.size) if keep is None else np.asarray(keep, np.int64)
        start_moves = self.start.to_moves() or ""
        plies = len(start_moves) + len(self.steps)
        out = np.empty((index.size, plies), dtype=np.uint8)
        # walk back layer by layer: column of the last move, then its parent
        # flips: the stored position was mirrored an odd number of times after this move
        flips = np.zeros(index.size, dtype=bool)
        for depth in range(len(self.steps) - 1, -1, -1):
            parent, col, flip = self.steps[depth]
            c = col[index]
            flips ^= flip[index]
            out[:, len(start_moves) + depth] = np.where(flips, self.width - 1 - c, c)
            # a flipped child mirrors everything played before it as well
            index = parent[index]
        for j, ch in enumerate(start_moves):
            c = int(ch) - 1
            out[:, j] = np.where(flips, self.width - 1 - c, c)
        return out


def _start_position(under: str | None, width: int, height: int) -> Position:
    if under is None:
        return Position(width=width, height=height)
    text = under.strip()
    if text and not text.isdigit():
        raise InvalidArgument(f"the line {under!r} is not a string of column digits")
    return Position.from_moves(text, width, height)


def _check_plies(plies: object) -> int:
    if not isinstance(plies, int | np.integer) or isinstance(plies, bool):
        raise InvalidArgument(f"plies must be an integer, got {plies!r}")
    return int(plies)


def _enumerate(
    plies: int,
    under: str | None,
    width: int,
    height: int,
    merge_mirrors: bool,
    drop_immediate_wins: bool,
    max_candidates: int | None,
    part: tuple[int, int] | None = None,
) -> tuple[_Layers, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Enumerate; return the layers, the final arrays and, per final position,
    the index in the last layer and whether it is the mirror of that entry."""
    plies = _check_plies(plies)
    if part is not None:
        part = check_part(part)
        if under:
            raise InvalidArgument(
                "a part splits the whole ply: give a part or a line, not both", argument="part"
            )
    start = _start_position(under, width, height)
    if not 0 <= plies <= width * height:
        raise InvalidArgument(f"plies must be between 0 and {width * height}, got {plies}")
    if start.stone_count > plies:
        raise InvalidArgument(
            f"the line {under!r} has {start.stone_count} moves, more than the {plies} plies asked"
        )
    start_symmetric = start.mirror() == start
    # a mirror-closed reachable set may be reduced to one variant per pair as it grows
    canonical = start_symmetric
    layers = _Layers(start, plies, canonical, _guard(max_candidates, part is not None), part)
    return (layers, *_finish(layers, width, height, merge_mirrors, drop_immediate_wins))


def _finish(
    layers: _Layers, width: int, height: int, merge_mirrors: bool, drop_immediate_wins: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The final positions of ``layers`` as asked: immediate wins dropped, mirror pairs
    merged or both variants; with each one's index in the last layer and mirror flag."""
    canonical = layers.canonical
    first, mask = layers.first, layers.mask
    index = np.arange(first.size, dtype=np.int64)
    if drop_immediate_wins and first.size:
        keep = ~can_win_next_bits(first, mask, width, height)
        first, mask, index = first[keep], mask[keep], index[keep]
    mirrored = np.zeros(first.size, dtype=bool)
    if merge_mirrors and not canonical:
        key = _position_keys(first, mask, width, height)
        mkey = _mirror_bits(key, width, height)
        flip = mkey < key
        canon = np.where(flip, mkey, key)
        firsts = np.flatnonzero(_kernels().first_flags(canon, _bucket_bits(canon.size)))
        first = np.where(flip, _mirror_bits(first, width, height), first)[firsts]
        mask = np.where(flip, _mirror_bits(mask, width, height), mask)[firsts]
        index, mirrored = index[firsts], flip[firsts]
    elif not merge_mirrors and canonical:
        first, mask, index, mirrored = _kernels().add_mirrors(first, mask, index, width, height)
    return first, mask, index, mirrored


def enumerate_positions(
    plies: int,
    under: str | None,
    width: int,
    height: int,
    *,
    merge_mirrors: bool = True,
    drop_immediate_wins: bool = True,
    max_candidates: int | None = None,
    part: tuple[int, int] | None = None,
    by_parts: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """The book positions with ``plies`` stones, as ``(first, mask)`` uint64 arrays.

    ``part=(i, n)``: only the positions of part ``i`` of ``n`` (:func:`part_of`), in
    the whole enumeration's order: the parts are disjoint, their union is the ply,
    and a part of a deep ply needs only the previous layer and its own positions
    in memory (14 plies: the 13-ply layer, about 15.5M positions, 0.5 GB; 15 plies:
    the 14-ply layer, 2.8 GB at the peak). A whole ply whose last layer does not fit
    ``max_candidates`` (14 plies on 7x6) comes part by part (:data:`AUTO_PARTS`
    parts, each in its order), or with ``by_parts=False`` raises
    :class:`LayerTooLarge`.

    ``under``: a 1-based move string; only positions reachable by continuing it
    (with either variant reachable, when mirror pairs are merged). With
    ``merge_mirrors=False`` both variants of every pair are returned (the
    unmerged variant right after the merged one); with
    ``drop_immediate_wins=False`` positions where the side to move can
    complete four at once are kept. Raises ``ValueError`` for a bad line, a
    ply outside 0..width*height, or a layer needing more than ``max_candidates``
    children (the memory guard; by default :data:`DEFAULT_MAX_CANDIDATES` for a whole
    ply, :data:`PART_MAX_CANDIDATES` for the layers a part builds before its own).

    >>> first, mask = enumerate_positions(4, under="4444", width=7, height=6)
    >>> Position.from_bitboards(int(first[0]), int(mask[0])).to_diagram().splitlines()[-4:]
    ['...O...', '...X...', '...O...', '...X...']
    >>> len(enumerate_positions(8, None, 7, 6, merge_mirrors=False, drop_immediate_wins=False)[0])
    182383
    """
    first, mask = _joined(
        (first, mask)
        for _, first, mask, _, _ in _pieces(
            plies, under, width, height, merge_mirrors, drop_immediate_wins, max_candidates,
            part, by_parts,
        )
    )  # fmt: skip
    return first, mask


def _joined(pieces: Iterable[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
    """Pieces of arrays (``(first, mask, ...)`` each) joined column by column; one piece
    as it is, not copied."""
    pieces = list(pieces)
    if len(pieces) == 1:
        return pieces[0]
    return tuple(np.concatenate(column) for column in zip(*pieces, strict=True))


def _pieces(
    plies: int,
    under: str | None,
    width: int,
    height: int,
    merge_mirrors: bool,
    drop_immediate_wins: bool,
    max_candidates: int | None,
    part: tuple[int, int] | None,
    by_parts: bool = True,
) -> Iterator[tuple[_Layers, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The enumeration as :func:`_enumerate` gives it, in one piece; or, for a whole ply
    whose last layer does not fit the memory guard (unless ``by_parts`` is false), part
    by part (:data:`AUTO_PARTS` parts, each in its order): the previous layer and one
    part's layers in memory at a time."""
    try:
        whole = _enumerate(
            plies, under, width, height, merge_mirrors, drop_immediate_wins, max_candidates, part
        )
    except LayerTooLarge:
        if under or part is not None or not by_parts:
            raise
        for _, layers in _part_layers(plies, AUTO_PARTS, width, height, max_candidates):
            yield (layers, *_finish(layers, width, height, merge_mirrors, drop_immediate_wins))
        return
    yield whole


def positions_with_moves(
    plies: int,
    under: str | None,
    width: int,
    height: int,
    *,
    merge_mirrors: bool = True,
    drop_immediate_wins: bool = True,
    max_candidates: int | None = None,
    part: tuple[int, int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Like :func:`enumerate_positions`, plus one 1-based move string per position.

    The strings are a bytes array (dtype ``S<plies>``; ``.astype(str)`` gives
    text). Each reaches its position from the empty board. With ``under``, it
    starts with ``under`` when the returned variant is the reachable one, else
    it is the mirror of such a line (the pair is stored as its smaller-key
    variant). Boards wider than 9 columns have no move strings.

    >>> first, mask, moves = positions_with_moves(2, under="4", width=7, height=6)
    >>> moves.astype(str).tolist()
    ['41', '42', '43', '44']
    """
    if width > 9:
        raise InvalidArgument("move strings are only defined for boards up to 9 columns")
    first, mask, moves = _joined(
        (first, mask, _move_strings(layers, index, mirrored, width))
        for layers, first, mask, index, mirrored in _pieces(
            plies, under, width, height, merge_mirrors, drop_immediate_wins, max_candidates, part
        )
    )
    return first, mask, moves


def _move_strings(
    layers: _Layers, index: np.ndarray, mirrored: np.ndarray, width: int
) -> np.ndarray:
    """The move string (bytes, 1-based columns) reaching entry ``index`` of the last
    layer, or its mirror where ``mirrored``."""
    cols = layers.moves(index)
    cols = np.where(mirrored[:, None], width - 1 - cols, cols).astype(np.uint8)
    if cols.shape[1] == 0:  # zero plies: the empty board, reached by no move
        return np.full(index.size, b"", dtype="S1")
    digits = np.ascontiguousarray(cols + np.uint8(ord("1")))
    return digits.view(f"S{digits.shape[1]}").reshape(-1)


def count_positions(
    plies: int,
    under: str | None,
    width: int,
    height: int,
    *,
    merge_mirrors: bool = True,
    drop_immediate_wins: bool = True,
    max_candidates: int | None = None,
    part: tuple[int, int] | None = None,
) -> int:
    """Number of positions :func:`enumerate_positions` returns.

    >>> count_positions(8, None, 7, 6, merge_mirrors=False, drop_immediate_wins=False)
    182383
    """
    first, _ = enumerate_positions(
        plies,
        under,
        width,
        height,
        merge_mirrors=merge_mirrors,
        drop_immediate_wins=drop_immediate_wins,
        max_candidates=max_candidates,
        part=part,
    )
    return int(first.size)


def counts_per_ply(width: int, height: int, cap: int) -> list[int]:
    """``count_positions(p, None, width, height)`` for ``p`` = 0, 1, 2, ... up to the
    last ply before the first count over ``cap`` (or the full board), from one
    enumeration grown layer by layer.

    >>> counts_per_ply(7, 6, 1000)
    [1, 4, 25, 121, 568]
    """
    layers = _Layers(_start_position(None, width, height), 0, True, DEFAULT_MAX_CANDIDATES)
    counts: list[int] = []
    for stones in range(width * height + 1):
        if stones:
            layers.add_layer(stones - 1, DEFAULT_MAX_CANDIDATES)
        first, _, _, _ = _finish(layers, width, height, True, True)
        if first.size > cap:
            break
        counts.append(int(first.size))
    return counts


def iter_parts(
    plies: int,
    parts: int,
    width: int,
    height: int,
    *,
    merge_mirrors: bool = True,
    drop_immediate_wins: bool = True,
    max_candidates: int | None = None,
    which: Iterable[int] | None = None,
    finished: bool = False,
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """``(i, first, mask)`` for parts ``i`` = 1..``parts`` (or those in ``which``) of a
    ply, as :func:`enumerate_positions` with ``part=(i, parts)`` gives them; the
    previous layer is enumerated once for all. Memory: that layer plus one part.
    ``finished``: each part's :func:`finished_games` instead (the other options
    do not apply to them).

    >>> sizes = [len(f) for _, f, _ in iter_parts(4, 3, 7, 6)]
    >>> sizes == [count_positions(4, None, 7, 6, part=(i, 3)) for i in (1, 2, 3)], sum(sizes)
    (True, 568)
    """
    plies = _check_plies(plies)
    check_part((1, parts))
    numbers = list(range(1, parts + 1)) if which is None else [int(i) for i in which]
    for i in numbers:
        check_part((i, parts))
    if plies == 0:
        for i in numbers:
            if finished:
                yield i, np.empty(0, np.uint64), np.empty(0, np.uint64)
            else:
                yield (i, *enumerate_positions(0, None, width, height, part=(i, parts)))
        return
    # every part of the book positions: the ply's count is remembered (counted_positions)
    whole = which is None and not finished and merge_mirrors and drop_immediate_wins
    total = 0
    layered = _part_layers(plies, parts, width, height, max_candidates, numbers, finished, False)
    for i, layers in layered:
        if finished:
            yield i, layers.first, layers.mask
            continue
        first, mask, _, _ = _finish(layers, width, height, merge_mirrors, drop_immediate_wins)
        total += first.size
        yield i, first, mask
    if whole and max_candidates is None:
        _COUNTED[plies, width, height] = total


#: the book positions of each ply an iter_parts of this process went through whole
_COUNTED: dict[tuple[int, int, int], int] = {}


def counted_positions(plies: int, width: int, height: int) -> int | None:
    """The positions of a complete ``plies``-stone book of the board, if this process
    has enumerated every part of that ply already (:func:`iter_parts`: a derivation's
    roots), else None: what counting them again would give, without the enumeration.

    >>> sum(len(f) for _, f, _ in iter_parts(5, 2, 7, 6)), counted_positions(5, 7, 6)
    (2144, 2144)
    """
    return _COUNTED.get((plies, width, height))


def _part_layers(
    plies: int,
    parts: int,
    width: int,
    height: int,
    max_candidates: int | None,
    numbers: Iterable[int] | None = None,
    finished: bool = False,
    steps: bool = True,
) -> Iterator[tuple[int, _Layers]]:
    """``(i, layers)`` whose last layer is part ``i`` of ``parts`` of a ply (``plies`` >
    0), the previous layer built once for all (every part, or those in ``numbers``);
    ``steps``: the layers keep what rebuilds the move strings (:meth:`_Layers.moves`)."""
    start = Position(width=width, height=height)
    previous = _Layers(start, plies - 1, True, _guard(max_candidates, True), steps=steps)
    for i in range(1, parts + 1) if numbers is None else numbers:
        layers = copy.copy(previous)
        layers.steps = list(previous.steps)
        layers.add_part_layer(plies - 1, (i, parts), finished)
        yield i, layers


def finished_games(
    plies: int,
    width: int,
    height: int,
    *,
    part: tuple[int, int] | None = None,
    max_candidates: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The finished games after ``plies`` plies (the player who just moved has four),
    one variant per mirror pair (the smaller key), each distinct position once, in
    the order of their first parent; with ``part``, those of one part.

    >>> len(finished_games(7, 7, 6)[0])  # the first player's four with its fourth stone
    364
    """
    i, n = check_part(part) if part is not None else (1, 1)
    options = {"max_candidates": max_candidates, "which": [i], "finished": True}
    _, first, mask = next(iter_parts(plies, n, width, height, **options))
    return first, mask
