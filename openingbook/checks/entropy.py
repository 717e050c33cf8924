"""How much information a book's values hold: :func:`book_entropy`.

The figures are the limit a book's encoding is held to. Counted: the positions the book
stores, one per mirror pair (the canonical variant), positions whose side to move can
complete four at once left out (no book stores them: the reader answers them from the
position). The value of a position is what the book stores: the winner in a
win/draw/loss book, the winner and the plies to the end in a distance book (the signed
distance byte), the Pons score in a score book.

For each *context* (what a reader knows of a position before it reads the book, at the
cost of a few instructions) the report gives the empirical conditional entropy
``H(value | context)`` in bits per position, the average length of a Huffman code of the
values per context (a prefix code the reader could decode), and, for distance and score
books, ``H(wdl | context)``: the win/draw/loss part alone. The ply and the side to move
are part of every context (a book of one ply holds them constant). The contexts:

* ``ply``: nothing more (order 0);
* ``forced``: how many of the opponent's winning cells are playable now (0, 1, 2 or
  more: a move the side to move must block, or a lost position);
* ``threats``: each player's winning cells (empty cells that complete four), 0 to 3 or
  more each;
* ``odd-even``: the first player's winning cells on odd rows and the second player's on
  even rows (rows counted from 1 at the bottom; Allis' zugzwang rule), 0 to 2 or more each;
* ``centre``: each player's stones in the centre column;
* ``heights``: the height of every column (of the mirror pair's smaller variant);
* ``combined``: ``forced``, ``threats``, ``odd-even`` and ``centre`` together (on a
  board of even width the centre is the two middle columns): the compact format's
  context (:mod:`openingbook.formats.compact.contexts`).

An empirical entropy over many contexts is lower than what a code can reach: the
``bias`` column bounds how much lower, ``contexts * (values - 1) / (2 N ln 2)`` bits per
position (the first-order bias of the plug-in estimate), so a context is worth as much as
its entropy plus that.

>>> report = book_entropy("8")
>>> report.positions, report.distinct_values
(77715, 3)
>>> round(report.rows[0]["entropy"], 3) == round(report.order0, 3)
True
"""

from __future__ import annotations

import heapq
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from openingbook.checks.report import Report
from openingbook.formats import load_book
from openingbook.formats.compact.contexts import CONTEXT_THREATS_CENTRE, context_space
from openingbook.formats.compact.contexts import position_contexts as book_contexts
from openingbook.solver import (
    STATUS_OK,
    board_mask,
    book_position_status,
    bottom_mask,
    canonical_keys,
    stone_counts,
    winning_cells_bits,
)

__all__ = [
    "CONTEXTS",
    "EntropyReport",
    "book_entropy",
    "conditional_entropy",
    "context_counts",
    "huffman_bits",
    "position_contexts",
]

#: The contexts, in the report's order, with what each one holds.
CONTEXTS = {
    "ply": "the ply and the side to move (order 0 for a book of one ply)",
    "forced": "the opponent's playable winning cells (0, 1, 2+)",
    "threats": "each player's winning cells (0..3+ each)",
    "odd-even": "first player's winning cells on odd rows, second's on even rows (0..2+)",
    "centre": "each player's stones in the centre column",
    "heights": "the height of every column",
    "combined": "forced, threats, odd-even and centre",
}


@dataclass
class EntropyReport(Report):
    """Result of :func:`book_entropy`: one row per context (:data:`CONTEXTS`)."""

    book: str
    board: str
    plies: int
    kind: str
    positions: int
    distinct_values: int
    file_bits: float
    counted: str
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return True

    @property
    def order0(self) -> float:
        return float(self.rows[0]["entropy"])

    def lines(self) -> list[str]:
        wdl = self.kind != "wdl"
        out = [
            f"{self.book}: {self.board} {self.plies}-ply {self.kind} book, "
            f"{self.positions:,} positions, {self.distinct_values} distinct values, "
            f"file {self.file_bits:.3f} bits/position",
            f"counted: {self.counted}",
            "bits per position:",
            f"  {'context':<10} {'contexts':>8} {'H(value)':>9} {'Huffman':>8} {'bias':>7}"
            + (f" {'H(wdl)':>7}" if wdl else ""),
        ]
        for r in self.rows:
            out.append(
                f"  {r['context']:<10} {r['contexts']:>8} {r['entropy']:>9.3f} "
                f"{r['huffman']:>8.3f} {r['bias']:>7.3f}"
                + (f" {r['wdl_entropy']:>7.3f}" if wdl else "")
            )
        return out


def book_entropy(path: str | os.PathLike[str], **options: Any) -> EntropyReport:
    """The entropy of the values of the book at ``path`` (any readable format; ``options``
    as for :func:`openingbook.formats.load_book`), alone and per context."""
    model = load_book(path, **options)
    width, height = model.board
    first = np.asarray(model.first, np.uint64)
    mask = np.asarray(model.mask, np.uint64)
    value = (model.winner if model.kind == "wdl" else model.score).astype(np.int64)
    winner = model.winner.astype(np.int64)
    # the stored positions: one per mirror pair, no win at once
    stored = book_position_status(first, mask, model.plies, width, height) == STATUS_OK
    first, mask, value, winner = first[stored], mask[stored], value[stored], winner[stored]
    _, once = np.unique(canonical_keys(first, mask, width, height), return_index=True)
    first, mask, value, winner = first[once], mask[once], value[once], winner[once]
    n = int(first.size)
    contexts = position_contexts(first, mask, width, height)
    rows = []
    distinct = int(np.unique(value).size)
    for name in CONTEXTS:
        counts = context_counts(value, contexts[name])
        k = counts.shape[0]
        rows.append(
            {
                "context": name,
                "contexts": k,
                "entropy": conditional_entropy(counts),
                "huffman": huffman_bits(counts),
                "bias": k * (distinct - 1) / (2 * max(n, 1) * math.log(2)),
                "wdl_entropy": conditional_entropy(context_counts(winner, contexts[name])),
            }
        )
    size = Path(model.source or path).stat().st_size if model.source else 0
    return EntropyReport(
        book=str(path),
        board=str(model.board),
        plies=model.plies,
        kind=model.kind,
        positions=n,
        distinct_values=distinct,
        file_bits=8 * size / max(n, 1),
        counted="the book's positions, one per mirror pair, wins at once left out",
        rows=rows,
    )


def position_contexts(
    first: np.ndarray, mask: np.ndarray, width: int, height: int
) -> dict[str, np.ndarray]:
    """Each context of :data:`CONTEXTS` as one int64 code per position."""
    stones = stone_counts(mask).astype(np.int64)
    second = first ^ mask
    mover_first = stones % 2 == 0
    w_first = winning_cells_bits(first, mask, width, height)
    w_second = winning_cells_bits(second, mask, width, height)
    full = np.uint64(board_mask(width, height))
    playable = (mask + np.uint64(bottom_mask(width, height))) & full
    opponent_wins = np.where(mover_first, w_second, w_first)
    forced = np.minimum(_popcount(opponent_wins & playable), 2)
    threats = np.minimum(_popcount(w_first), 3) * 4 + np.minimum(_popcount(w_second), 3)
    odd_rows = np.uint64(sum(bottom_mask(width, height) << r for r in range(0, height, 2)))
    even_rows = full ^ odd_rows
    odd_even = np.minimum(_popcount(w_first & odd_rows), 2) * 3 + np.minimum(
        _popcount(w_second & even_rows), 2
    )
    centre_column = np.uint64(((1 << height) - 1) << (width // 2 * (height + 1)))
    centre = _popcount(first & centre_column) * (height + 1) + _popcount(second & centre_column)
    heights = np.zeros(first.size, np.int64)
    mirrored = np.zeros(first.size, np.int64)
    for col in range(width):
        column = np.uint64(((1 << height) - 1) << (col * (height + 1)))
        mirror = np.uint64(((1 << height) - 1) << ((width - 1 - col) * (height + 1)))
        heights = heights * (height + 1) + _popcount(mask & column)
        mirrored = mirrored * (height + 1) + _popcount(mask & mirror)
    heights = np.minimum(heights, mirrored)  # a mirror pair has one context
    ply = stones
    out = {
        "ply": ply,
        "forced": ply * 3 + forced,
        "threats": ply * 16 + threats,
        "odd-even": ply * 9 + odd_even,
        "centre": ply * (height + 1) ** 2 + centre,
        "heights": heights,  # the heights give the ply
        # the compact format's context (openingbook.formats.compact.contexts: the centre
        # column, or the two middle columns on a board of even width)
        "combined": ply * context_space(CONTEXT_THREATS_CENTRE, width, height)
        + book_contexts(first, mask, width, height, CONTEXT_THREATS_CENTRE),
    }
    return out


def _popcount(bits: np.ndarray) -> np.ndarray:
    return np.bitwise_count(bits).astype(np.int64)


def context_counts(values: np.ndarray, context: np.ndarray | None = None) -> np.ndarray:
    """How often each value occurs in each context: a ``(contexts, values)`` count matrix.

    >>> context_counts(np.array([0, 0, 1, 7]), np.array([5, 5, 5, 6])).tolist()
    [[2, 1, 0], [0, 0, 1]]
    """
    values = np.asarray(values, np.int64)
    _, v = np.unique(values, return_inverse=True)
    if context is None:
        c = np.zeros(values.size, np.int64)
    else:
        c = np.unique(np.asarray(context, np.int64), return_inverse=True)[1]
    k, nv = (int(c.max()) + 1, int(v.max()) + 1) if values.size else (0, 0)
    joint = np.bincount(c.astype(np.int64) * nv + v, minlength=k * nv)
    return joint.reshape(k, nv)


def conditional_entropy(counts: np.ndarray) -> float:
    """Empirical ``H(value | context)`` in bits per element of a
    :func:`context_counts` matrix (order 0 for one row).

    >>> round(conditional_entropy(np.array([[2, 2]])), 3)
    1.0
    >>> conditional_entropy(np.array([[2, 0], [0, 2]]))
    0.0
    """
    total = int(counts.sum())
    if total == 0:
        return 0.0
    return (_plogp(counts.sum(axis=1)) - _plogp(counts.ravel())) / total


def _plogp(counts: np.ndarray) -> float:
    """``sum(n * log2(n))`` of the counts."""
    n = counts[counts > 0].astype(np.float64)
    return float((n * np.log2(n)).sum())


def huffman_bits(counts: np.ndarray) -> float:
    """Average length in bits of a Huffman code per context (row) of a
    :func:`context_counts` matrix.

    >>> huffman_bits(np.array([[2, 1, 1]]))
    1.5
    """
    total = int(counts.sum())
    bits = 0
    for row in counts:
        used = row[row > 0]
        bits += sum(int(n) * b for n, b in zip(used, _code_lengths(used), strict=True))
    return bits / max(total, 1)


def _code_lengths(counts: np.ndarray) -> list[int]:
    """Huffman code lengths of symbols with these counts (one symbol: length 0)."""
    if len(counts) == 1:
        return [0]
    heap = [(int(n), i, [i]) for i, n in enumerate(counts)]
    heapq.heapify(heap)
    lengths = [0] * len(counts)
    tie = len(counts)
    while len(heap) > 1:
        a, _, sa = heapq.heappop(heap)
        b, _, sb = heapq.heappop(heap)
        for i in sa + sb:
            lengths[i] += 1
        heapq.heappush(heap, (a + b, tie, sa + sb))
        tie += 1
    return lengths
