"""Perfect play on demand: the exact value of every move of a position.

:class:`Engine` answers, for any legal position of its board that is not over,
what each column is worth with perfect play from both sides:

* ``winner``: who wins after that move (``"first"``, ``"second"``, ``"draw"``);
* ``plies``: plies to the end of the game counted from the analysed position,
  the move itself included (a move that completes four is a win in 1; the best
  move's plies equal the position's own);
* ``score``: the Pons score of the move from the side to move at the analysed
  position (:mod:`openingbook.solver.scores`; the empty board: ``-2 -1 0 1 0 -1 -2``, the
  centre winning with the 41st stone).

A full column is not playable (``None``). The best moves are those of the
highest score, which is the tie-break "fastest win, slowest loss" (the score of
a win grows the sooner it comes, the score of a loss the later it comes);
:meth:`Engine.best` picks one of them, the one nearest the centre (the left one
of two as near).

Where the values come from (:attr:`MoveValue.source`):

* ``"four"``: the move completes four;
* ``"book"``: the position after the move looked up in a distance book of its
  ply;
* ``"derived"``: backed up by exact negamax from a distance book at most
  :data:`MAX_BOOK_GAP` plies deeper, fewer on wide boards
  (:func:`openingbook.pipeline.negamax.negamax_layers`), unless the engine has read that
  book's probe (below);
* ``"solver"``: searched by :class:`openingbook.solver.Solver`; when the engine has a book
  deeper than the move's position, the search probes the shallowest such book
  (:func:`book_probe`): every node of that ply takes its exact score from there.
  The engine reads a probe in the background when a search could use it (more
  than :func:`book_gap` plies above every book; :meth:`Engine.wait_for_probes`)
  and, once read, searches with it instead of backing positions up by negamax.

By default an engine uses the distance books shipped for its board
(:mod:`openingbook.booknames`), opening each book the first time a position
needs it; a position of up to :func:`openingbook.booknames.lookup_stones` stones
(14 on 7x6, with a book of every ply 0 to 15) is answered by lookups alone.

>>> engine = Engine()
>>> a = engine.analyze("")
>>> [m.score for m in a.moves]
[-2, -1, 0, 1, 0, -1, -2]
>>> a.best, a.value.winner.value, a.value.plies
((4,), 'first', 41)
>>> a.moves[3]
MoveValue(column=4, winner=<Winner.FIRST: 'first'>, plies=41, score=1, source='book')
>>> engine.analyze("4453").best, engine.best("4453")  # three as good: the most central
((3, 6, 7), 3)
>>> from openingbook.booknames import lookup_stones
>>> lookup_stones(engine.board)
14
"""

from __future__ import annotations

import math
import numbers
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from openingbook.errors import InvalidArgument
from openingbook.solver import (
    DEFAULT_BOARD,
    UNSOLVED,
    BoardSize,
    Position,
    SearchTimeout,
    Winner,
    move_string,
    score_from_plies,
)
from openingbook.values import BookValue, value_from_score

if TYPE_CHECKING:
    import numpy as np

    from openingbook.answers import BookReader
    from openingbook.solver import BookProbe, Solver

__all__ = [
    "MAX_BOOK_GAP",
    "SHIPPED",
    "SOURCES",
    "Analysis",
    "Engine",
    "MoveValue",
    "best_column",
    "book_gap",
    "book_probe",
    "value_dict",
]

#: ``Engine(books=SHIPPED)`` (the default): the distance books shipped for the board.
SHIPPED = "shipped"
#: Where a move's value came from (see the module docstring).
SOURCES = ("four", "book", "derived", "solver")
#: The most plies between a move's position and the next deeper book that the engine
#: bridges by negamax over every line on 7x6 (transpositions merged: from the empty
#: board to the 8-ply book, 0.1 s; 8 plies above the 12-ply book, 0.3 s); beyond that,
#: the solver searches the move. Wider boards bridge fewer plies (:func:`book_gap`).
MAX_BOOK_GAP = 8


def checked_time_limit(value: object) -> float | None:
    """``value`` as a time limit in seconds: None (no limit) or a positive finite number,
    else :class:`~openingbook.errors.InvalidArgument` (the engine's and the oracle's).

    >>> checked_time_limit(2), checked_time_limit(None)
    (2.0, None)
    >>> checked_time_limit("2")
    Traceback (most recent call last):
    ...
    openingbook.solver.errors.InvalidArgument: time_limit 2: expected a positive number of seconds
    """
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not 0 < value < math.inf  # NaN and infinity too: None is "no limit"
    ):
        raise InvalidArgument(
            "expected a positive number of seconds", argument="time_limit", value=value
        )
    return float(value)


def book_gap(width: int) -> int:
    """The plies the engine bridges by negamax on a board ``width`` columns wide: as many
    as keep ``width ** plies`` lines within 7x6's ``7 ** MAX_BOOK_GAP``.

    >>> book_gap(7), book_gap(6), book_gap(9), book_gap(12)
    (8, 8, 7, 6)
    """
    gap = MAX_BOOK_GAP
    while gap > 0 and width**gap > 7**MAX_BOOK_GAP:
        gap -= 1
    return gap


def value_dict(value: BookValue) -> dict[str, Any]:
    """The JSON form of a value: ``{"winner": "first", "plies": 41, "score": 1}``."""
    return {"winner": value.winner.value, "plies": value.plies, "score": value.score}


class MoveValue(NamedTuple):
    """The exact value of one move (column 1-based), seen from the analysed position:
    its :class:`openingbook.values.BookValue` (:attr:`value`) and where it came from."""

    column: int
    winner: Winner
    plies: int
    score: int
    source: str

    @property
    def value(self) -> BookValue:
        return BookValue(self.winner, self.plies, self.score)

    def to_dict(self) -> dict[str, Any]:
        return {"column": self.column, **value_dict(self.value), "source": self.source}


def book_probe(books: Sequence[BookReader]) -> BookProbe:
    """The exact scores of every position ``books`` (of one ply and board) answer, for
    the solver's search to probe (:class:`openingbook.solver.BookProbe`, ``Solver(book=...)``).

    Only exact scores go in: a position a book answers without a score (a
    first-player win a pruned Thill-layout book leaves out, whose distance is not
    known) is left out, and the search solves it. A position several books answer
    takes the first book's score, as :meth:`Engine.analyze` looks them up. Costs
    9 bytes per position (the 12-ply 7x6 distance book: 37.8 MB) and, for the
    12-ply 7x6 book, several seconds to read.

    >>> from openingbook.api import open_book
    >>> with open_book("8-dist") as book:
    ...     probe = book_probe([book])
    >>> probe.plies, len(probe)
    (8, 77715)
    """
    import numpy as np

    from openingbook.formats import read_model
    from openingbook.solver import BookProbe, canonical_keys
    from openingbook.values import UNKNOWN

    if not books:
        raise InvalidArgument("no book to probe", argument="books")
    board, plies = books[0].board, books[0].plies
    keys, scores = [], []
    for book in books:
        if (book.board, book.plies) != (board, plies):
            raise InvalidArgument(
                f"{book.path.name}: a {book.board} book of {book.plies} plies among "
                f"{board} books of {plies}",
                argument="books",
            )
        model = read_model(book)  # every position the book answers, with its answer
        exact = model.score != UNKNOWN
        keys.append(canonical_keys(model.first[exact], model.mask[exact], *board))
        scores.append(model.score[exact])
    all_keys = np.concatenate(keys)
    # the first book's score of a position several books answer (np.unique: first index)
    unique, first_index = np.unique(all_keys, return_index=True)
    return BookProbe(unique, np.concatenate(scores)[first_index], plies, *board)


@dataclass(frozen=True)
class Analysis:
    """Every column's value of :attr:`position` (see the module docstring).

    ``moves[c - 1]`` is column ``c``'s :class:`MoveValue`, ``None`` for a full
    column or one left unanswered (``unknown``, when a time limit stopped the
    analysis: then ``complete`` is False). ``value`` is the position's own value
    (the best move's), ``None`` when unanswered columns leave it open; ``best``
    the columns of the highest score (empty when open).
    """

    position: Position
    moves: tuple[MoveValue | None, ...]
    value: BookValue | None
    best: tuple[int, ...]
    complete: bool
    unknown: tuple[int, ...]
    line: str
    seconds: float = field(default=0.0, compare=False)

    @property
    def board(self) -> BoardSize:
        return BoardSize(self.position.width, self.position.height)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``openingbook analyze --json``, the explorer's ``/api/analyze``).

        ``columns`` has one object per column, in order: ``column`` (1-based),
        ``playable``, ``known``, ``best``, and when known ``winner``, ``plies``,
        ``score``, ``source``.
        """
        pos = self.position
        columns = []
        for c, move in enumerate(self.moves, start=1):
            entry: dict[str, Any] = {
                "column": c,
                "playable": pos.can_play(c - 1),
                "known": move is not None,
                "best": c in self.best,
            }
            if move is not None:
                entry.update(move.to_dict())
            columns.append(entry)
        return {
            "moves": self.line,
            "board": str(self.board),
            "stones": pos.stone_count,
            "to_move": "first" if pos.stone_count % 2 == 0 else "second",
            "value": None if self.value is None else value_dict(self.value),
            "columns": columns,
            "best": list(self.best),
            "complete": self.complete,
            "unknown": list(self.unknown),
        }

    def lines(self) -> list[str]:
        """The text form: a heading with the position's value, then one line per column
        (winner, plies, score, source; ``*`` marks the best moves)."""
        pos = self.position
        who = "first" if pos.stone_count % 2 == 0 else "second"
        head = f"{self.line or '(empty board)'}: {who} player to move"
        if self.value is None:
            out = [f"{head}; value unknown within the time limit"]
        else:
            v = self.value
            result = "draw" if v.winner is Winner.DRAW else f"{v.winner.value} player wins"
            out = [f"{head}; {result} in {_plies(v.plies)} (score {v.score:+d})"]
        for c, move in enumerate(self.moves, start=1):
            name = move_string([c - 1], self.board.width)
            if move is None:
                what = "unknown (time limit)" if c in self.unknown else "full"
                out.append(f"   {name:>2}  {what}")
                continue
            mark = "*" if c in self.best else " "
            result = "draw" if move.winner is Winner.DRAW else f"{move.winner.value} wins"
            out.append(
                f" {mark} {name:>2}  {result:<12} {_plies(move.plies, 2):<8}"
                f"  score {move.score:+3d}  ({move.source})"
            )
        return out


def _plies(n: int, digits: int = 0) -> str:
    """``"1 ply"``, ``"41 plies"`` (the number right-aligned in ``digits`` characters).

    >>> _plies(1), _plies(41), _plies(1, 2)
    ('1 ply', '41 plies', ' 1 ply')
    """
    return f"{n:>{digits}} {'ply' if n == 1 else 'plies'}"


def best_column(analysis: Analysis) -> int:
    """The best column :meth:`Engine.best` picks: of the highest score, the one nearest
    the centre (the left one of two as near). Raises :class:`openingbook.solver.SearchTimeout` when
    a time limit left the best moves open.

    >>> best_column(Engine().analyze("4453"))
    3
    """
    for col in _centre_order(analysis.board.width):
        if col + 1 in analysis.best:
            return col + 1
    raise SearchTimeout(
        f"the best move of {analysis.line or 'the empty board'} is not known within the time limit"
    )


def _centre_order(width: int) -> list[int]:
    """0-based columns, centre first, then alternately left and right (left first)."""
    return sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c))


#: what each shipped file holds, read from its header once per process and file version
_SHIPPED: dict[tuple[Path, int, int], tuple[BoardSize, int] | None] = {}


def _shipped_book(path: Path) -> tuple[BoardSize, int] | None:
    """(board, plies) of a shipped book an engine answers from (a complete distance
    book), None for another book or a damaged file (``info`` names it). Each file's
    header is read once per process (and again when the file changes): a fresh engine
    then lists the books in microseconds."""
    from openingbook.formats.compact import read_header

    try:
        stat = path.stat()
    except OSError:
        return None
    key = (path, stat.st_size, stat.st_mtime_ns)
    if key not in _SHIPPED:
        try:
            header = read_header(path)
        except (ValueError, OSError):
            _SHIPPED[key] = None
        else:
            usable = header.kind != "wdl" and header.complete
            _SHIPPED[key] = (header.board, header.plies) if usable else None
    return _SHIPPED[key]


class _PlyBook:
    """One distance book of one ply, opened on first use."""

    def __init__(self, path: Path, plies: int, reader: Any = None) -> None:
        self.path = path
        self.plies = plies
        self._reader = reader

    @property
    def reader(self) -> Any:
        if self._reader is None:
            from openingbook.formats.compact import CompactBook

            self._reader = CompactBook(self.path)
        return self._reader

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None


def _describe_reader(reader: Any) -> tuple[BoardSize, int, bool]:
    """(board, plies, has distances) of a reader returned by ``open_book``."""
    from openingbook.formats import format_of

    if not format_of(reader).own:  # Cadot, Pons: not one ply each
        raise InvalidArgument(
            f"{reader.path.name}: the engine reads distance books of one ply "
            "(compact or Thill layout), not this kind",
            argument="books",
        )
    return reader.board, reader.plies, reader.kind != "wdl"


class Engine:
    """Exact values of every move of a position, from books where it can, else by search.

    ``board``: the board size (default 7x6; ``"WxH"`` too; ``None``: the board of the
    first of ``books``, which are then files or names). ``books``: :data:`SHIPPED` (the
    default: the distance books shipped for the board, none for a board without
    any), ``None`` (the solver alone), or book files / shipped book names
    (distance books of the board; several of one ply are asked in order).
    ``table_log2``: the solver's table (:class:`openingbook.solver.Solver`), allocated when a
    position first needs the solver (default: :meth:`default_table_log2`).
    ``time_limit``: the seconds an analysis may search when :meth:`analyze` is given
    none (default: no limit).

    Every argument is checked here, at construction: a board that is no board size
    or does not fit the bitboard, books that are not book names or paths, a table
    size out of range or larger than the memory, a time limit that is not a positive
    number, and a book of another board or without distances raise
    :class:`~openingbook.errors.InvalidArgument` (one line).

    Like its solver, an engine is not thread-safe: call it from one thread at a time
    (the explorer's server holds a lock around it).
    """

    def __init__(
        self,
        board: BoardSize | tuple[int, int] | str | None = DEFAULT_BOARD,
        books: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None = SHIPPED,
        *,
        table_log2: int | None = None,
        time_limit: float | None = None,
    ) -> None:
        from openingbook.memory import check_table_size
        from openingbook.solver import check_board_size, parse_board_size

        if isinstance(board, str):
            board = parse_board_size(board)
        if board is not None:
            try:
                width, height = board
            except (TypeError, ValueError):
                raise InvalidArgument(
                    "expected a board size: a BoardSize, (width, height) or 'WxH'",
                    argument="board",
                    value=board,
                ) from None
            check_board_size(width, height)
        if table_log2 is not None:
            if isinstance(table_log2, bool) or not isinstance(table_log2, numbers.Integral):
                raise InvalidArgument(
                    "expected an integer", argument="table_log2", value=table_log2
                )
            table_log2 = int(table_log2)
        check_table_size(table_log2)
        if not (books is None or isinstance(books, (str, os.PathLike))):
            try:
                books = list(books)
            except TypeError:
                books = [books]
            wrong = [b for b in books if not isinstance(b, (str, os.PathLike))]
            if wrong:
                raise InvalidArgument(
                    "expected SHIPPED, None, or book names and paths",
                    argument="books",
                    value=wrong[0],
                )
        names = [books] if isinstance(books, (str, os.PathLike)) else list(books or [])
        if any(os.fspath(name) == "" for name in names):
            # else open_book("") reads the current directory: ".: is a directory"
            raise InvalidArgument(
                "expected a book name or path, not an empty one", argument="books", value="''"
            )
        time_limit = checked_time_limit(time_limit)
        #: the first book, opened to learn the board (``board=None``)
        first: tuple[str | os.PathLike[str], Any] | None = None
        if board is None:
            if books is None or books == SHIPPED or not names:
                raise InvalidArgument(
                    "expected books to take the board from, or a board size",
                    argument="board",
                    value=None,
                )
            from openingbook.formats import open_book

            reader = open_book(names[0])
            first = (names[0], reader)
            width, height = reader.board
        self.board = BoardSize(width, height)
        #: the time limit of an analysis given none (seconds; None: no limit)
        self.time_limit = time_limit
        self._table_log2 = table_log2
        self._solver: Solver | None = None
        self._books: dict[int, list[_PlyBook]] = {}
        #: the solver's book probes, by ply, read on first use (:meth:`_probe_for`)
        self._probes: dict[int, BookProbe] = {}
        #: probes being read in the background (:meth:`wait_for_probes`), by ply
        self._reading: dict[int, threading.Thread] = {}
        self._probe_errors: dict[int, Exception] = {}
        if books is None:
            pass
        elif isinstance(books, str) and books == SHIPPED:
            self._add_shipped()
        elif isinstance(books, (str, os.PathLike)):
            self._add_books([books], first)
        else:
            self._add_books(list(books), first)

    # ------------------------------------------------------------------ books
    def _add_shipped(self) -> None:
        """The shipped distance books of the board, known by their headers alone (each
        book is opened, and its file checked, the first time a position needs it)."""
        from openingbook.booknames import shipped_paths

        for path in shipped_paths():
            held = _shipped_book(path)
            if held is not None and held[0] == self.board:
                self._books.setdefault(held[1], []).append(_PlyBook(path, held[1]))

    def _add_books(
        self,
        names: Sequence[str | os.PathLike[str]],
        first: tuple[str | os.PathLike[str], Any] | None = None,
    ) -> None:
        """Open ``names`` (``first``: the first of them and its reader, already open)."""
        from openingbook.formats import open_book

        for i, name in enumerate(names):
            reader = first[1] if i == 0 and first is not None else open_book(name)
            board, plies, distances = _describe_reader(reader)
            problem = None
            if board != self.board:
                problem = f"a {board} book, the engine's board is {self.board}"
            elif not distances:
                problem = "a win/draw/loss book: the engine needs distances"
            if problem is not None:
                reader.close()
                raise InvalidArgument(problem, argument="books", value=str(name))
            self._books.setdefault(plies, []).append(_PlyBook(Path(reader.path), plies, reader))

    def readers(self, ply: int) -> list[BookReader]:
        """The engine's books of ``ply`` stones (opened on first use), in the order
        :meth:`analyze` asks them; empty when it has none of that ply."""
        return [book.reader for book in self._books.get(ply, ())]

    @property
    def book_plies(self) -> tuple[int, ...]:
        """The plies the engine has a book of, ascending."""
        return tuple(sorted(self._books))

    def close(self) -> None:
        """Close the books (the engine opens them again when asked)."""
        for books in self._books.values():
            for book in books:
                book.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        plies = ",".join(map(str, self.book_plies)) or "none"
        return f"Engine(board={self.board}, book plies={plies})"

    # --------------------------------------------------------------- solving
    @property
    def solver(self) -> Solver:
        """The engine's solver (created on first use)."""
        if self._solver is None:
            from openingbook.solver import Solver

            log2 = self._table_log2 or self.default_table_log2()
            self._solver = Solver(log2, width=self.board.width, height=self.board.height)
        return self._solver

    def default_table_log2(self) -> int:
        """The size of the solver's table when none is given: for the fewest stones of a
        position the solver may meet, the first ply the engine has no book of
        (:func:`openingbook.solver.query_table_log2`: 32 MiB on 7x6 with the shipped books, which
        leave it positions of 16 stones or more; 256 MiB with none).

        >>> Engine().default_table_log2(), Engine(books=None).default_table_log2()
        (22, 25)
        """
        from openingbook.solver import query_table_log2

        searched = next(ply for ply in range(1, self.board.cells + 2) if ply not in self._books)
        return query_table_log2(self.board.cells - searched)

    def position(self, moves: str | Position) -> Position:
        """The position to analyse: checked to be of the board, legal and not over.

        Raises :class:`~openingbook.errors.InvalidArgument` (one line) otherwise.
        """
        width, height = self.board
        if isinstance(moves, Position):
            pos = moves
            if (pos.width, pos.height) != self.board:
                raise InvalidArgument(
                    f"a {pos.width}x{pos.height} position, the engine's board is {self.board}",
                    argument="position",
                )
            problems = pos.problems()
            if problems:
                raise InvalidArgument("; ".join(problems), argument="position")
        elif isinstance(moves, str):
            try:
                pos = Position.from_moves(moves.strip(), width, height)
            except ValueError as exc:
                raise InvalidArgument(str(exc), argument="moves", value=moves) from None
        else:
            raise TypeError(f"expected a move string or a Position, got {type(moves).__name__}")
        if pos.is_full():
            raise InvalidArgument("the board is full: the game is over", argument="moves")
        return pos

    def analyze(self, moves: str | Position, time_limit: float | None = None) -> Analysis:
        """Every column's exact value after ``moves`` (a 1-based move string or a Position).

        ``time_limit`` (seconds; default the engine's): stop searching then (the search
        of a column is stopped too); the columns not answered are ``unknown`` and the analysis
        not ``complete``. Lookups are never cut short. Raises
        :class:`~openingbook.errors.InvalidArgument` for a move string that cannot be
        played, a position of another board or a game that is over.
        """
        start = time.perf_counter()
        time_limit = self.time_limit if time_limit is None else checked_time_limit(time_limit)
        deadline = None if time_limit is None else start + time_limit
        pos = self.position(moves)
        line = moves.strip() if isinstance(moves, str) else pos.some_moves()
        scores, unknown = self.move_scores(pos, deadline)
        return self._analysis(pos, line, scores, unknown, time.perf_counter() - start)

    def move_scores(
        self, pos: Position, deadline: float | None = None
    ) -> tuple[dict[int, tuple[int, str]], list[int]]:
        """What :meth:`analyze` finds for ``pos`` (a position :meth:`position` accepts):
        ``{0-based column: (Pons score of the move, source)}`` for every column answered,
        and the 0-based columns left unanswered when ``deadline`` (a
        ``time.perf_counter()`` instant; None: no limit) stopped the search."""
        n = pos.stone_count
        width = self.board.width
        scores: dict[int, tuple[int, str]] = {}  # 0-based column -> (score, source)
        open_children: dict[int, Position] = {}
        win_now = score_from_plies(1, n, *self.board)
        for col in range(width):
            if not pos.can_play(col):
                continue
            if pos.is_winning_move(col):
                scores[col] = (win_now, "four")
            else:
                open_children[col] = pos.play(col)
        if open_children:
            self._book_values(n + 1, open_children, scores)
        if open_children and self._probe_ply(n + 1) not in self._probes:
            # with the probe of the deeper book in memory the probing search answers
            # instead: 10-20 times faster than negamax over every line (6x5, 6 and 8
            # stones: 1.5 and 0.3 ms against 33 and 5 ms, benchmarks/bench_analyze.py)
            self._derived_values(n + 1, open_children, scores)
        unknown: list[int] = []
        if open_children:
            self._searched_values(open_children, scores, unknown, deadline)
        return scores, unknown

    def _analysis(
        self,
        pos: Position,
        line: str,
        scores: dict[int, tuple[int, str]],
        unknown: list[int],
        seconds: float,
    ) -> Analysis:
        n = pos.stone_count
        moves: list[MoveValue | None] = [None] * self.board.width
        for col, (score, source) in scores.items():
            value = value_from_score(score, n, self.board)
            moves[col] = MoveValue(col + 1, value.winner, value.plies, value.score, source)
        value = None
        best: tuple[int, ...] = ()
        if scores:
            top = max(s for s, _ in scores.values())
            # an unanswered move never completes four (those are answered by rule),
            # so a win at once is the value even with columns unanswered
            if not unknown or top == score_from_plies(1, n, *self.board):
                value = value_from_score(top, n, self.board)
                best = tuple(c + 1 for c in sorted(scores) if scores[c][0] == top)
        return Analysis(
            position=pos,
            moves=tuple(moves),
            value=value,
            best=best,
            complete=not unknown,
            unknown=tuple(sorted(c + 1 for c in unknown)),
            line=line,
            seconds=seconds,
        )

    def best(self, moves: str | Position, time_limit: float | None = None) -> int:
        """One best column (1-based): of the highest score, the one nearest the centre.

        Raises :class:`openingbook.solver.SearchTimeout` when ``time_limit`` left the best move
        open.
        """
        return best_column(self.analyze(moves, time_limit))

    def _searched_values(
        self,
        children: dict[int, Position],
        scores: dict[int, tuple[int, str]],
        unknown: list[int],
        deadline: float | None,
    ) -> None:
        """Search the ``children`` (of one stone count), centre first, in one call of
        the solver's batch kernel, until the ``deadline``; the columns left unanswered
        go to ``unknown``."""
        import numpy as np

        self._probe_for(next(iter(children.values())).stone_count)
        cols = [col for col in _centre_order(self.board.width) if col in children]
        first = np.array([children[col].first_stones for col in cols], np.uint64)
        mask = np.array([children[col].mask for col in cols], np.uint64)
        found = self.solve_positions(first, mask, deadline)
        for col, score in zip(cols, found.tolist(), strict=True):
            if score == UNSOLVED:
                unknown.append(col)
            else:
                scores[col] = (-score, "solver")

    def searches_only(self, stones: int) -> bool:
        """Does the engine answer positions of ``stones`` stones by its solver alone (no
        book of theirs, none deeper to back them up from or for the search to probe)?
        Then :meth:`solve_positions` answers them all at once.

        >>> Engine().searches_only(14), Engine().searches_only(16)
        (False, True)
        """
        gap = book_gap(self.board.width)
        return self._probe_ply(stones) is None and not any(
            stones <= ply <= stones + gap for ply in self._books
        )

    def solve_positions(
        self, first: np.ndarray, mask: np.ndarray, deadline: float | None = None
    ) -> np.ndarray:
        """The solver's exact scores (int8) of positions of the engine's board that nobody
        has won, given as ``first``/``mask`` bitboards and known to be legal (the engine
        made or checked them: they are not checked again), all in one call of its batch
        kernel; :data:`openingbook.solver.UNSOLVED` for those not solved before ``deadline`` (a
        ``time.perf_counter()`` instant; None: no limit)."""
        import numpy as np

        remaining = None if deadline is None else deadline - time.perf_counter()
        if remaining is not None and remaining <= 0:
            return np.full(len(first), UNSOLVED, np.int8)
        return self.solver.solve_until(first, mask, time_limit=remaining, check=False)

    def wait_for_probes(self, timeout: float | None = None) -> bool:
        """Wait for the book probes being read in the background (``timeout`` seconds
        at most; None: until read). True when none is still being read. Raises the
        error of a reading that failed (the searches went on without that probe).

        An engine starts reading a book's probe (:func:`book_probe`: seconds; the
        14-ply 6x5 book's 3.6 million positions) the first time it searches a
        position more than :func:`book_gap` plies above every book, and searches
        without it until it is read: no analysis waits for it. Call this to have the
        probes in use from the next analysis on (a benchmark, a server at start).
        """
        end = None if timeout is None else time.monotonic() + timeout
        for thread in list(self._reading.values()):
            thread.join(None if end is None else max(0.0, end - time.monotonic()))
        for ply, error in list(self._probe_errors.items()):
            del self._probe_errors[ply], self._reading[ply]  # read again when needed
            raise error
        return not any(thread.is_alive() for thread in self._reading.values())

    def _probe_for(self, stones: int) -> None:
        """Let the solver's search of ``stones``-stone positions probe the shallowest
        book deeper than them (the search stops there: the fewer plies above the
        book, the fewer nodes), if the engine has one the search can probe and has
        read its probe; else start reading it in the background (seconds: a search
        without it is exact all the same, and for one analysis mostly faster than
        the reading). A search of deeper positions never meets the book's ply: the
        solver keeps the book it has."""
        ply = self._probe_ply(stones)
        if ply is None:
            return
        if ply in self._probes:
            self.solver.book = self._probes[ply]
        else:
            self._read_probe_later(ply)

    def _probe_ply(self, stones: int) -> int | None:
        """The ply of the book a search of ``stones``-stone positions probes: the
        shallowest deeper than them that a search can probe, None if there is none."""
        from openingbook.solver import Solver

        deeper = [p for p in self._books if stones < p <= Solver.max_book_plies]
        return min(deeper) if deeper else None

    def _read_probe_later(self, ply: int) -> None:
        """Read the probe of ``ply`` in a thread of its own, from readers of its own (the
        engine's are not shared between threads). A failure leaves no probe, and its
        error for :meth:`wait_for_probes`."""
        if ply in self._reading:
            return
        paths = [book.path for book in self._books[ply]]

        def read() -> None:
            from openingbook.formats import open_book

            readers = []
            try:
                readers = [open_book(path) for path in paths]
                self._probes[ply] = book_probe(readers)
            except Exception as exc:  # raised by wait_for_probes
                self._probe_errors[ply] = exc
            finally:
                for reader in readers:
                    reader.close()

        thread = threading.Thread(target=read, name=f"probe-{ply}", daemon=True)
        self._reading[ply] = thread
        thread.start()

    # ------------------------------------------------------- book lookups
    def _book_values(
        self, ply: int, children: dict[int, Position], scores: dict[int, tuple[int, str]]
    ) -> None:
        """Answer the ``children`` (all of ``ply`` stones) a book of their ply holds;
        answered ones move from ``children`` to ``scores`` (the parent's view)."""
        from openingbook.errors import PositionNotInBook

        for book in self._books.get(ply, ()):
            for col, child in list(children.items()):
                try:
                    value = book.reader.get(child)
                except PositionNotInBook:
                    continue
                if value.score is not None:
                    scores[col] = (-value.score, "book")
                    del children[col]

    def _derived_values(
        self, ply: int, children: dict[int, Position], scores: dict[int, tuple[int, str]]
    ) -> None:
        """Back the ``children`` up from the nearest deeper book within :func:`book_gap`."""
        deeper = [p for p in self._books if ply < p <= ply + book_gap(self.board.width)]
        if not deeper:
            return
        import numpy as np

        from openingbook.pipeline.negamax import negamax_layers

        target = min(deeper)
        cols = list(children)
        first = np.array([children[c].first_stones for c in cols], np.uint64)
        mask = np.array([children[c].mask for c in cols], np.uint64)
        result = negamax_layers(first, mask, target, self._leaf_lookup(target), True, *self.board)
        for i, col in enumerate(cols):
            if result.known[i]:
                scores[col] = (-int(result.values[i]), "derived")
                del children[col]

    def _leaf_lookup(self, ply: int) -> Any:
        """``leaves(first, mask) -> (known, scores)`` from the books of ``ply``."""
        import numpy as np

        from openingbook.values import UNKNOWN

        books = self._books[ply]

        def leaves(first: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            known = np.zeros(len(first), bool)
            values = np.zeros(len(first), np.int8)
            for book in books:
                ask = np.flatnonzero(~known)
                if not len(ask):
                    break
                bulk = book.reader.lookup_many(first[ask], mask[ask], strict=False)
                got = bulk.score != UNKNOWN
                values[ask[got]] = bulk.score[got]
                known[ask[got]] = True
            return known, values

        return leaves
