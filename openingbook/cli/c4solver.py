"""``openingbook c4solver``: Pascal Pons' ``c4solver`` standard input/output protocol.

A program that runs Pons' solver (github.com/PascalPons/connect4) as a child process
can run ``openingbook c4solver`` instead, with the same arguments, and read the same
bytes: each line of standard input is a move string (columns ``1``-``7``, 7x6 board);
a playable line is answered on standard output by the line, a space and its score
(Pons' score: positive when the side to move wins, ``(43 - stones) // 2`` for a win
with its next stone), or with ``-a`` by the line and the seven columns' scores
(``-1000`` for a full column); a line that is not a game that goes on is answered on
standard error by ``Line N: Invalid move K "LINE"`` (K: the 1-based move that cannot
be played: not a column digit, a full column, or a move that completes four).

``-w`` (Pons' weak solver) answers the sign of each score (-1, 0, 1), except a score
of a win or loss with the next stone, which Pons' weak solver reports in full. Pons'
own weak search reports a win by a lower bound of its score found on the way (1 up to
the exact score, depending on his search's table); this command says 1 there.

Lines are read in batches (all the lines standard input holds at the moment, up to
:data:`BATCH_LINES`), each batch answered by one call of the oracle
(:class:`openingbook.oracle.Oracle`: the books where they answer, the solver
elsewhere) and written in input order, flushed: a line sent alone is answered at once.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

import click
import numpy as np

from openingbook.cli import main
from openingbook.cli._common import NO_BOOK, BadArgument, _EngineBook, user_errors

#: The most lines answered by one call of the oracle.
BATCH_LINES = 4096

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
    h1 = HEIGHT + 1
    mask = current = 0
    for i, char in enumerate(line):
        col = ord(char) - ord("1")
        if not 0 <= col < WIDTH:
            return i
        move = (mask + (1 << (col * h1))) & (((1 << HEIGHT) - 1) << (col * h1))
        if move == 0:
            return i
        if _has_four(current | move):
            return i
        current ^= mask  # the other player's stones
        mask |= move
    return len(line)


def _has_four(stones: int) -> bool:
    h1 = HEIGHT + 1
    for shift in (1, h1, h1 - 1, h1 + 1):
        pairs = stones & (stones >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


class Answers:
    """The scores of batches of positions, from ``books`` (a list of book files, or
    None for the solver alone; default: the shipped books).

    A book that the engine reads (a distance book of one ply) is given to the engine;
    any other book with exact scores (a Pons ``.book``) is asked first for every child
    position it holds, the solver searching the rest."""

    def __init__(self, book: Any = None) -> None:
        from openingbook.oracle import Oracle

        self.lookup: Any = None
        if book is None:
            self.oracle = Oracle()
        elif book == NO_BOOK:
            self.oracle = Oracle(books=None)
        else:
            from openingbook.formats import format_named, open_book

            reader = open_book(book)
            if tuple(reader.board) != (WIDTH, HEIGHT):
                raise BadArgument(
                    f"-b {book}: a book of the {reader.board[0]}x{reader.board[1]} board; "
                    "this command plays 7x6"
                )
            if reader.kind == "wdl":
                raise BadArgument(f"-b {book}: a book without distances; scores need them")
            if format_named(reader.format_name).own:
                reader.close()
                self.oracle = Oracle(books=[book])
            else:
                self.lookup = reader
                self.oracle = Oracle(books=None)

    def scores(self, first: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(scores (B, 7) with :data:`INVALID_MOVE` for a full column, value (B,)) of
        positions that go on, given as bitboards."""
        from openingbook.oracle import FULL_COLUMN

        if self.lookup is not None:
            return self._scores_with_lookup(first, mask)
        answer = self.oracle.analyze_bitboards(first, mask)
        scores = np.where(answer.scores == FULL_COLUMN, INVALID_MOVE, answer.scores)
        return scores.astype(np.int64), answer.value.astype(np.int64)

    def _scores_with_lookup(
        self, first: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        from openingbook.oracle import FULL_COLUMN
        from openingbook.solver import winning_cells_bits
        from openingbook.values import UNKNOWN

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


def read_batches(stream: BinaryIO) -> Iterator[list[str]]:
    """The lines of ``stream`` (bytes read as Latin-1, so that each byte is one
    character and is written back unchanged), in batches: all the complete lines the
    stream holds without waiting, up to :data:`BATCH_LINES`; a final line without its
    newline is a line."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        fd = None
    pending = b""
    lines: list[str] = []
    while True:
        chunk = stream.read(1 << 16) if fd is None else os.read(fd, 1 << 16)
        if not chunk:
            break
        pending += chunk
        *complete, pending = pending.split(b"\n")
        lines.extend(line.decode("latin-1") for line in complete)
        while len(lines) >= BATCH_LINES:
            yield lines[:BATCH_LINES]
            lines = lines[BATCH_LINES:]
        # a short read of a stream without descriptor: it holds no more for now
        waiting = len(chunk) < (1 << 16) if fd is None else not _readable(fd)
        if lines and waiting:
            yield lines
            lines = []
    if pending:
        lines.append(pending.decode("latin-1"))
    if lines:
        yield lines


def _readable(fd: int) -> bool:
    """Does ``fd`` hold more input now (or its end)?"""
    try:
        ready, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError):
        return False
    return bool(ready)


@main.command("c4solver")
@click.option("-a", "analyze", is_flag=True, help="Answer the score of each of the 7 columns.")
@click.option(
    "-w", "weak", is_flag=True, help="Weak answers: a score's sign, -1, 0 or 1 (see above)."
)
@click.option(
    "-b",
    "book",
    type=_EngineBook(),
    default=None,
    metavar="BOOK",
    help="A book to use instead of the shipped ones (any format 'openingbook info' "
    "reads, a Pons .book too), or 'none' for the solver alone.",
)
@user_errors
def c4solver(analyze: bool, weak: bool, book: Any) -> None:
    """Answer move strings on stdin as Pascal Pons' c4solver does (7x6 board only).

    Each line of standard input is a move string (columns 1-7). A line that is a game
    that goes on is answered on standard output by the line and its score (Pons'
    score: positive when the side to move wins; 0 a draw), or with -a the line and
    the score of each column (-1000: a full column); any other line on standard
    error by 'Line N: Invalid move K "LINE"'. With -w a score is its sign, but a
    win or loss with the next stone is in full, as Pons' weak solver says it; where
    his weak search reports a win by a larger lower bound of its score, this command
    says 1. Each line is answered as soon as it is read. Unlike Pons' program, a
    missing -b book is an error (exit status 1), and nothing is written about
    loading books.
    """
    if sys.stdin is None:
        raise OSError("cannot read standard input: it is closed")
    source = sys.stdin.buffer
    answers = Answers(book)
    out = sys.stdout.buffer
    err = sys.stderr.buffer
    number = 1
    try:
        for lines in read_batches(source):
            for to_err, text in answer_lines(lines, number, answers, analyze, weak):
                stream = err if to_err else out
                stream.write(text.encode("latin-1"))
                stream.flush()
            number += len(lines)
    finally:
        answers.close()
