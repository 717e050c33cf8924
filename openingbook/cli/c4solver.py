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
:data:`BATCH_LINES`), each batch answered by :func:`openingbook.ponsprotocol.answer_lines`
and written in input order, flushed: a line sent alone is answered at once.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

import click

from openingbook.cli import main
from openingbook.cli._common import NO_BOOK, _EngineBook, progress_option, user_errors, working

#: The most lines answered by one call of the oracle.
BATCH_LINES = 4096


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


def _oracle_and_lookup(book: Any) -> tuple[Any, Any]:
    """The oracle that answers, and the book asked before it (or None), for ``-b``: a
    book the engine reads (a distance book of one ply) is given to the oracle; any
    other book with exact scores (a Pons ``.book``) is asked first."""
    from openingbook.errors import InvalidArgument
    from openingbook.formats import format_of, open_book
    from openingbook.oracle import Oracle

    if book is None:
        return Oracle(), None
    if book == NO_BOOK:
        return Oracle(books=None), None
    reader = open_book(book)
    if tuple(reader.board) != (7, 6):
        reader.close()
        raise InvalidArgument(
            f"-b {book}: a book of the {reader.board[0]}x{reader.board[1]} board; "
            "this command plays 7x6"
        )
    if reader.kind == "wdl":
        reader.close()
        raise InvalidArgument(f"-b {book}: a book without distances; scores need them")
    if format_of(reader).own:
        reader.close()
        return Oracle(books=[book]), None
    return Oracle(books=None), reader


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
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Errors as JSON on stderr, as every command's (the answers stay Pons' lines).",
)
@progress_option
@user_errors
def c4solver(analyze: bool, weak: bool, book: Any, as_json: bool, progress: bool) -> None:
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
    from openingbook import ponsprotocol

    source = sys.stdin.buffer
    answers = ponsprotocol.Answers(*_oracle_and_lookup(book))
    out = sys.stdout.buffer
    err = sys.stderr.buffer
    number = 1
    try:
        for lines in read_batches(source):
            with working(progress, "c4solver: answering"):  # a deep line takes seconds
                answered = ponsprotocol.answer_lines(lines, number, answers, analyze, weak)
            for to_err, text in answered:
                stream = err if to_err else out
                stream.write(text.encode("latin-1"))
                stream.flush()
            number += len(lines)
    finally:
        answers.close()
