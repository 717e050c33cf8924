"""Pascal Pons' ``c4solver`` protocol: lines of moves answered as his program does.

A line is a move string (columns ``1``-``7``, 7x6 board); a playable line is answered
by the line, a space and its score (Pons' score: positive when the side to move wins,
``(43 - stones) // 2`` for a win with its next stone), or in analysis by the line and
the seven columns' scores (``-1000`` for a full column); a line that is not a game that
goes on is answered by ``Line N: Invalid move K "LINE"`` (K: the 1-based move that
cannot be played: not a column digit, a full column, or a move that completes four).

Weak answers (Pons' ``-w``) are each score's sign (-1, 0, 1), except a win or loss with
the next stone, which Pons' weak solver reports in full. His own weak search reports a
win by a lower bound of its score found on the way (1 up to the exact score, depending
on his search's table); here it is 1.

:func:`answer_lines` answers a batch of lines with one call of the oracle
(:class:`openingbook.oracle.Oracle`: the books where they answer, the solver elsewhere);
``openingbook c4solver`` reads standard input in batches and writes the answers.

>>> from openingbook.oracle import Oracle
>>> answers = Answers(Oracle())
>>> answer_lines(["44", "4444444"], 1, answers, analyze=False, weak=False)
[(False, '44 1\\n'), (True, 'Line 2: Invalid move 7 "4444444"\\n')]
>>> answers.close()
"""

from __future__ import annotations

from typing import Any

import numpy as np

from openingbook.values import FULL_COLUMN, UNKNOWN

#: Pons' score of a full column in ``-a`` lines (his ``Solver::INVALID_MOVE``).
INVALID_MOVE = -1000

WIDTH, HEIGHT = 7, 6
CELLS = WIDTH * HEIGHT


def moves_played(line: str) -> int:
    """How many moves of ``line`` Pons' ``Position::play`` plays: it stops at a character
    that is not a column digit, a move in a full column and a move that completes four.

    >>> moves_played("4453"), moves_played("4444444"), moves_played("1212121"), moves_played("12x")
    (4, 6, 6, 2)
    """
    from openingbook.solver import Position

    pos = Position.from_moves("", WIDTH, HEIGHT)
    for i, char in enumerate(line):
        col = ord(char) - ord("1")
        if not 0 <= col < WIDTH or col not in pos.legal_moves() or pos.is_winning_move(col):
            return i
        pos = pos.play(col)
    return len(line)


class Answers:
    """The scores of batches of positions: from ``oracle`` (an
    :class:`openingbook.oracle.Oracle`), and first from ``lookup`` when given (an open
    book with exact scores the oracle does not read, e.g. a Pons ``.book``: asked for
    every child position it holds, the oracle answering the rest). Closing the answers
    closes both."""

    def __init__(self, oracle: Any, lookup: Any = None) -> None:
        self.oracle = oracle
        self.lookup = lookup

    def scores(self, first: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(scores (B, 7) with :data:`INVALID_MOVE` for a full column, value (B,)) of
        positions that go on, given as bitboards."""
        if self.lookup is not None:
            return self._scores_with_lookup(first, mask)
        answer = self.oracle.analyze_bitboards(first, mask)
        scores = np.where(answer.scores == FULL_COLUMN, INVALID_MOVE, answer.scores)
        return scores.astype(np.int64), answer.value.astype(np.int64)

    def _scores_with_lookup(
        self, first: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        from openingbook.solver import winning_cells_bits

        n = len(first)
        h1 = HEIGHT + 1
        bottom = np.array([1 << (c * h1) for c in range(WIDTH)], np.uint64)
        column = np.array([((1 << HEIGHT) - 1) << (c * h1) for c in range(WIDTH)], np.uint64)
        stones = np.bitwise_count(mask).astype(np.int64)
        move = (mask[:, None] + bottom[None, :]) & column[None, :]
        playable = move != 0
        current = np.where(stones % 2 == 0, first, first ^ mask)
        wins = ((winning_cells_bits(current, mask, WIDTH, HEIGHT)[:, None] & move) != 0) & playable
        child_first = np.where((stones % 2 == 0)[:, None], first[:, None] | move, first[:, None])
        child_mask = mask[:, None] | move
        scores = np.full((n, WIDTH), INVALID_MOVE, np.int64)
        scores[wins] = np.broadcast_to(((CELLS + 1 - stones) // 2)[:, None], wins.shape)[wins]
        ask = playable & ~wins
        found = self.lookup.lookup_many(child_first[ask], child_mask[ask], strict=False).score
        known = found != UNKNOWN
        rows, cols = np.nonzero(ask)
        scores[rows[known], cols[known]] = -found[known]
        left = np.zeros(n, bool)
        left[rows[~known]] = True
        if left.any():
            answer = self.oracle.analyze_bitboards(first[left], mask[left])
            searched = np.where(answer.scores == FULL_COLUMN, INVALID_MOVE, answer.scores)
            scores[left] = searched
        value = np.where(scores == INVALID_MOVE, -CELLS, scores).max(axis=1)
        return scores, value

    def close(self) -> None:
        self.oracle.close()
        if self.lookup is not None:
            self.lookup.close()


def answer_lines(
    lines: list[str], first_number: int, answers: Answers, analyze: bool, weak: bool
) -> list[tuple[bool, str]]:
    """What to write for ``lines``, the first of them line ``first_number``: runs of
    (to stderr?, text) in input order (as Pons writes each line where it goes, so that
    ``2>&1`` interleaves the two streams as his program does)."""
    from openingbook.layouts import play_move_strings
    from openingbook.solver import BoardSize

    first, mask, fine = play_move_strings(lines, BoardSize(WIDTH, HEIGHT))
    stones = np.bitwise_count(mask).astype(np.int64)
    going_on = fine & (stones < CELLS)
    rows = np.flatnonzero(going_on)
    scores = np.full((len(lines), WIDTH), INVALID_MOVE, np.int64)
    value = np.zeros(len(lines), np.int64)  # a full board: a draw
    if rows.size:
        scores[rows], value[rows] = answers.scores(first[rows], mask[rows])
    if weak:
        scores, value = _weak(scores, value, stones)
    runs: list[tuple[bool, list[str]]] = []
    fine_list = fine.tolist()
    for i, line in enumerate(lines):
        if not fine_list[i]:
            played = moves_played(line)
            text = f'Line {first_number + i}: Invalid move {played + 1} "{line}"\n'
        elif analyze:
            text = line + "".join(f" {s}" for s in scores[i].tolist()) + "\n"
        else:
            text = f"{line} {value[i]}\n"
        to_err = not fine_list[i]
        if runs and runs[-1][0] == to_err:
            runs[-1][1].append(text)
        else:
            runs.append((to_err, [text]))
    return [(to_err, "".join(texts)) for to_err, texts in runs]


def _weak(
    scores: np.ndarray, value: np.ndarray, stones: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pons' weak solver's answers: signs, but a win with the next stone (the position's,
    or a column's own) and a column that lets the other player win at once, in full."""
    win_now = (CELLS + 1 - stones) // 2
    lose_next = -((CELLS - stones) // 2)
    value = np.where(value == win_now, value, np.sign(value))
    keep = (scores == INVALID_MOVE) | (scores == win_now[:, None]) | (scores == lose_next[:, None])
    scores = np.where(keep, scores, np.sign(scores))
    return scores, value
