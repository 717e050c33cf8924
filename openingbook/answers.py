"""What a book answers: the rule, written once.

The values it answers with (:class:`openingbook.values.BookValue` for one position,
:class:`openingbook.values.BulkValues` for arrays) and :class:`PositionNotInBook` are
below every reader, so that a reader of one kind loads no other (a lookup in a compact
book loads none of the Thill reader's file checks); the format registry
(:mod:`openingbook.formats`) imports the readers, so the rule lives here, below them.

:class:`BookReader` is what :func:`openingbook.open_book` returns, whatever the
file's format. A format's reader supplies only what its file stores: the stored
value of a position of the book (``_stored`` for one, ``_stored_many`` for
arrays; either mirror variant, the reader picks its key), the positions it
answers, their count and the release of the file. This class applies the rule
(``docs/BOOKS.md``) to every call, ``get``, ``get(default)``, ``in``,
``lookup_many`` (strict or not), iteration and ``positions()``, in this order:

1. the position's board must be the book's: else not in the book
   (:class:`PositionNotInBook`);
2. a position no game reaches (stones floating or outside the board, stone
   counts that do not alternate, four in a row already, no order of moves) is
   refused with :class:`InvalidArgument` (``in``: False), whatever its stone count;
3. its stones must be the book's ply (a Pons book: at most its depth; a Cadot
   table of several plies: any): else not in the book;
4. outside the book's scope (not under its line, another part) not in the book; a
   book of a format that cannot record its scope (Cadot, Pons) holds the positions
   under the longest line all its stored positions continue (:meth:`_found_line`);
5. the side to move completes four at once: a win in 1 ply for it (never
   stored; plies and score given unless the book is win/draw/loss only);
6. else the stored value (a draw's score: 0); not stored: in a pruned Thill book of
   known scope a first-player win (the pruning rule), else not in the book.

``tests/test_reader_contract.py`` runs one table of cases over every format.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from openingbook.errors import (
    BookClosed,
    BookFileError,
    InvalidArgument,
    PositionNotInBook,
    name_file,
)
from openingbook.solver import (
    AUTO_PARTS,
    STATUS_BLOCK,
    STATUS_MESSAGES,
    STATUS_OK,
    STATUS_OUT_OF_SCOPE,
    STATUS_WINS_AT_ONCE,
    STATUS_WRONG_PLY,
    BoardSize,
    Position,
    Winner,
    iter_parts,
    nb_block_status,
    nb_book_position_status,
    nb_canonical_key,
    nb_part_of,
    nb_under_line,
    njit,
    stone_counts,
    under_line,
)
from openingbook.values import (
    UNKNOWN,
    BookValue,
    BulkValues,
    score_tables,
    unstored_answers,
    unstored_value,
    value_from_arrays,
)

__all__ = [
    "PIECEWISE_POSITIONS",
    "PIECE_POSITIONS",
    "BookReader",
    "bulk_values",
    "nb_position_status",
]

#: What the scope check of the status kernels tests: nothing, a line, a part.
SCOPE_COMPLETE = np.uint64(0)
SCOPE_UNDER = np.uint64(1)
SCOPE_PART = np.uint64(2)


_REQUIRED = object()

#: Positions per piece of :meth:`BookReader.position_pieces` (a few MB of answers).
PIECE_POSITIONS = 1 << 18
#: A complete book of more positions than this (13 plies and deeper on 7x6) whose
#: positions are its ply's enumeration comes part by part
#: (:meth:`BookReader.position_pieces`): the enumeration holds the previous layer and
#: one part, never the whole ply, and the first piece comes in seconds.
PIECEWISE_POSITIONS = 5_000_000


# ------------------------------------------------------------------ status kernels
@njit(cache=True, inline="always")
def _nb_scope_status(s, first, mask, width, height, scope):
    """Status ``s`` of a position, turned out-of-scope outside the book's scope.

    ``scope``: three uint64, what the scope check tests (``SCOPE_*``), then the
    scope line's bitboards (``SCOPE_UNDER``), or ``i`` and ``n`` of a part
    (``SCOPE_PART``)."""
    if s > STATUS_WINS_AT_ONCE or scope[0] == SCOPE_COMPLETE:
        return s
    if scope[0] == SCOPE_UNDER:
        if not nb_under_line(first, mask, scope[1], scope[2], width, height):
            return STATUS_OUT_OF_SCOPE
    elif nb_part_of(nb_canonical_key(first, mask, width, height), scope[2]) != scope[1]:
        return STATUS_OUT_OF_SCOPE
    return s


@njit(cache=True, inline="always")
def _nb_stones(mask):
    n = 0
    while mask:
        mask &= mask - np.uint64(1)
        n += 1
    return n


@njit(cache=True, inline="always")
def _nb_wrong_ply_status(first, mask, width, height):
    """The status of a position of another stone count than the book's: one no game
    reaches is refused as such (the same error whatever the book's ply), any other is
    :data:`openingbook.solver.STATUS_WRONG_PLY`."""
    s = nb_book_position_status(first, mask, _nb_stones(mask), width, height)
    return s if s > STATUS_WRONG_PLY else STATUS_WRONG_PLY


@njit(cache=True, inline="always")
def nb_position_status(first, mask, plies, width, height, scope):
    """The ``STATUS_*`` code of one position for a book (``plies`` < 0: any stone
    count; ``scope``: see :func:`_nb_scope_status`), :data:`STATUS_OUT_OF_SCOPE`
    outside its scope: the one status every reader's answer follows (a format's
    native single lookup inlines it)."""
    n = plies if plies >= 0 else _nb_stones(mask)
    s = nb_book_position_status(first, mask, n, width, height)
    if s == STATUS_WRONG_PLY:
        return _nb_wrong_ply_status(first, mask, width, height)
    return _nb_scope_status(s, first, mask, width, height, scope)


@njit(cache=True, native=True)  # openingbook/solver/_native.py: a single lookup runs without numba
def _status_one(first, mask, plies, width, height, scope):
    """:func:`nb_position_status`, called from Python."""
    return nb_position_status(first, mask, plies, width, height, scope)


@njit(cache=True, inline="always")
def _status_blocks(first, mask, plies, width, height, scope, status):
    n = first.size
    if plies >= 0:
        scratch = np.empty((4, STATUS_BLOCK), dtype=np.uint64)
        for start in range(0, n, STATUS_BLOCK):
            stop = min(n, start + STATUS_BLOCK)
            nb_block_status(first, mask, (start, stop), plies, (width, height), status, scratch)
    else:
        for i in range(n):
            stones = _nb_stones(mask[i])
            status[i] = nb_book_position_status(first[i], mask[i], stones, width, height)
    for i in range(n):
        if status[i] == STATUS_WRONG_PLY:
            status[i] = _nb_wrong_ply_status(first[i], mask[i], width, height)
    if scope[0] != SCOPE_COMPLETE:
        for i in range(n):
            status[i] = _nb_scope_status(status[i], first[i], mask[i], width, height, scope)


# The status kernels write into ``status`` (int8, one per position) and return nothing,
# so that they run from their native libraries (openingbook/solver/_native.py) without numba.
@njit(cache=True, native=True)
def _status_kernel(first, mask, plies, width, height, scope, status):
    """The ``STATUS_*`` code of each position, any board."""
    _status_blocks(first, mask, plies, width, height, scope, status)


@njit(cache=True, native=True)
def _status_kernel_7x6(first, mask, plies, width, height, scope, status):
    """:func:`_status_kernel` compiled for 7x6: with the board's masks constant the
    block check vectorizes."""
    _status_blocks(first, mask, plies, 7, 6, scope, status)


class BookReader(ABC):
    """The one reader behaviour of every format (the rule: see the module docstring).

    A format's reader implements the **storage protocol**, what its file holds and
    stores, and nothing of the rule:

    * what the book holds: :attr:`board`, :attr:`plies`, :attr:`kind`,
      :attr:`scope` (:attr:`records_scope` False for a format whose files cannot
      record one), and :attr:`pruned` (the file leaves the first player's wins out;
      default False); the stone counts held, :meth:`_stones_held` (default: the one
      count :attr:`plies`), or per count, :meth:`_holds` (a format that learns its
      counts lazily);
    * the stored values: :meth:`_stored` (one position) and :meth:`_stored_many`
      (flat uint64 arrays), for positions the base has found to be of the book;
    * the stored positions: :meth:`_answered_positions` (all of them, one variant per
      mirror pair), their number :meth:`_count`, and for a format whose files can be
      larger than memory :meth:`_stored_sample` and :meth:`_stored_pieces`;
    * :meth:`_release`: close the file.

    and, optionally, for speed: :meth:`_probe` (status and stored value in one call)
    and :meth:`_stored_checked_many` (stored values whose positions the format knows to
    be of the book). The base decides everything else: argument shapes, a closed
    book, legality, stone counts, scope (a book that does not record its own: the line
    its positions share, :meth:`_found_line`), wins at once, the pruning rule,
    defaults and every refusal's wording.
    """

    #: the registry name of the reader's format
    format_name: ClassVar[str] = ""
    #: the positions answered are the enumeration of the book's ply and scope
    #: (:func:`openingbook.solver.enumerate_positions`), so that :meth:`position_pieces` may
    #: enumerate them part by part
    enumerated: ClassVar[bool] = False
    #: can the format's files record their scope? Where they cannot (Cadot, Pons) the
    #: scope is the line all the stored positions continue (:meth:`_found_line`), so
    #: that a book exported under a line answers as it did; a file of a format that
    #: can, but does not (a Thill file without its manifest), has an unknown scope
    records_scope: ClassVar[bool] = True
    path: Path
    _closed: bool = False
    _length: int | None = None
    _scope_args: tuple[int, int, int, np.ndarray] | None = None
    _line: str | None = None

    # ------------------------------------------------ the storage protocol
    @property
    @abstractmethod
    def board(self) -> BoardSize:
        """The board size of the book's positions."""

    @property
    @abstractmethod
    def plies(self) -> int | None:
        """The stones of the book's positions (a Pons book: at most this many)."""

    @property
    @abstractmethod
    def kind(self) -> str:
        """``"wdl"``, ``"distance"`` or ``"score"``: what the values tell."""

    @property
    @abstractmethod
    def scope(self) -> Any:  # an openingbook.model.Scope (not imported: a layer less)
        """Which positions of its ply the book holds (:class:`openingbook.model.Scope`)."""

    @property
    def pruned(self) -> bool:
        """Does the file leave the first player's wins out (Thill's pruning rule: inside
        a known scope, a position held but not stored is a first-player win)?"""
        return False

    def _stones_held(self) -> tuple[int, int] | None:
        """The fewest and most stones of the positions the book holds; None: the
        stone counts are decided by :meth:`_holds` alone."""
        plies = self.plies
        return None if plies is None else (plies, plies)

    def _holds(self, stones: int) -> bool:
        """Does the book hold positions of ``stones`` stones?"""
        held = self._stones_held()
        return held is None or held[0] <= stones <= held[1]

    @abstractmethod
    def _stored(self, pos: Position) -> BookValue | None:
        """The stored value of ``pos`` (either mirror variant), a legal position of the
        book's board, ply and scope; None where the file does not store it."""

    @abstractmethod
    def _stored_many(self, first: np.ndarray, mask: np.ndarray) -> BulkValues:
        """:meth:`_stored` for flat uint64 arrays: ``index`` -1 and ``UNKNOWN`` values
        where not stored."""

    @abstractmethod
    def _answered_positions(self) -> tuple[np.ndarray, np.ndarray]:
        """``(first, mask)`` of every book position answered, one variant per mirror pair."""

    @abstractmethod
    def _count(self) -> int:
        """``len(book)`` (computed once)."""

    @abstractmethod
    def _release(self) -> None:
        """Close the file and drop the maps."""

    def _stored_sample(self) -> tuple[np.ndarray, np.ndarray]:
        """``(first, mask)`` of up to a few dozen stored positions spread over the book
        (default: from :meth:`_answered_positions`)."""
        first, mask = self._answered_positions()
        pick = np.unique(np.linspace(0, max(0, first.size - 1), min(first.size, 64)).astype(int))
        return first[pick], mask[pick]

    def _stored_pieces(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Every stored position, as ``(first, mask)`` pieces (default:
        :meth:`_answered_positions` in slices)."""
        yield from _slices(*self._answered_positions())

    @property
    def provenance(self) -> dict[str, Any]:
        """Who made the book and how (command, version, ...); empty when the file says
        nothing."""
        return {}

    def _records(self) -> int | None:
        """Records stored in the file (None where the format has no records)."""
        return None

    @property
    def unchecked(self) -> str | None:
        """Why the book's values were not compared with a checksum or manifest before its
        first answer (a format without one, a file without its manifest, a check turned
        off), as a sentence; None: they were, so a damaged file is refused, not answered."""
        return None

    # ------------------------------------------------ what the base decides
    @property
    def has_distances(self) -> bool:
        """Does the book answer the plies to the result (a distance or score book)?"""
        return self.kind != "wdl"

    @property
    def records(self) -> int | None:
        """Records stored in the file (None where the format has no records)."""
        self._require_open()
        return self._records()

    def _wins_at_once_at(self, stones: int) -> bool:
        """Does the rule of a win at once answer positions of ``stones`` stones (the
        book's ply only: a Pons book's depth, not the shallower counts it may hold)?"""
        held = self._stones_held()
        return held[1] == stones if held is not None else self._holds(stones)

    def _holds_what(self) -> str:
        """``"8-stone"``, ``"at most 8-stone"``: the positions the book holds (asked
        when it refuses a stone count, so known by then)."""
        held = self._stones_held()
        if held is None:
            return f"{self.plies}-stone"
        return f"{held[1]}-stone" if held[0] == held[1] else f"at most {held[1]}-stone"

    @property
    def _absent_first_wins(self) -> bool:
        """Is a book position of its scope that the file does not store a first-player
        win (the pruning rule: a pruned book of known scope)?"""
        return self.pruned and self.scope.answers_absent

    def _absent_why(self, which: str) -> str:
        """Why a book position the file does not store has no answer."""
        name, scope = self.path.name, self.scope
        if self.pruned and not scope.known:
            return (
                f"{which} is not stored in {name}, and its scope is unknown: "
                f"{scope.unknown_why}, so a position it does not store is not "
                "known to be a first-player win"
            )
        if scope.partial:
            return f"{which} is not in {name}, which holds {scope.describe()}: its value is unknown"
        return f"{which} is not in {name}"

    def _stored_checked_many(self, first: np.ndarray, mask: np.ndarray) -> BulkValues | None:
        """The stored values of the positions among ``first``/``mask`` (any bitboards of
        the book's board) that the file stores as positions of the book whose status is
        :data:`openingbook.solver.STATUS_OK`, ``index`` -1 for every other; None (the default): the
        format cannot tell without :meth:`statuses`. A format whose records are checked
        positions of the book answers them without the full check of each query."""
        return None

    def _probe(self, pos: Position) -> tuple[int, BookValue | None]:
        """``(status, stored value or None)`` of a position of the book's board: the
        :meth:`position_status` and, for a book position, :meth:`_stored`. A format may
        compute both in one native call (its kernel inlining
        :func:`nb_position_status`)."""
        status = self.position_status(pos)
        return status, (self._stored(pos) if status == STATUS_OK else None)

    # ---------------------------------------------------------- the rule
    def _scope_line(self) -> tuple[str | None, tuple[int, int] | None]:
        """The scope's line and part (what the status kernels check)."""
        scope = self.scope
        return scope.under, getattr(scope, "part", None)

    def _kernel_args(self) -> tuple[int, int, int, np.ndarray]:
        """The status kernels' arguments after the position: ``plies`` (-1: any stone
        count), the board and the scope (three uint64: its ``SCOPE_*`` and its line's
        bitboards or part; computed once)."""
        if self._scope_args is None:
            under, part = self._scope_line()
            w, h = self.board
            held = self._stones_held()
            plies = held[0] if held is not None and held[0] == held[1] else -1
            if part is not None:
                scope = (SCOPE_PART, part[0], part[1])
            elif under is not None:
                line = Position.from_moves(under, w, h)
                scope = (SCOPE_UNDER, line.first_stones, line.mask)
            else:
                scope = (SCOPE_COMPLETE, 0, 0)
            self._scope_args = (plies, w, h, np.array(scope, np.uint64))
        return self._scope_args

    def position_status(self, pos: Position) -> int:
        """The ``STATUS_*`` code of ``pos`` for this book (:data:`STATUS_OUT_OF_SCOPE`
        outside its scope); a position of another board: ``STATUS_WRONG_PLY``."""
        self._require_open()
        if (pos.width, pos.height) != self.board:
            return STATUS_WRONG_PLY
        args = self._kernel_args()
        f, m = np.uint64(pos.first_stones), np.uint64(pos.mask)
        status = int(_status_one(f, m, *args))
        if args[0] < 0 and status <= STATUS_WRONG_PLY:  # several stone counts
            stones = pos.mask.bit_count()
            if not self._holds(stones):
                return STATUS_WRONG_PLY
            if status == STATUS_WINS_AT_ONCE and not self._wins_at_once_at(stones):
                return STATUS_OK  # e.g. a shallower position of a Pons book: what is stored
        if status == STATUS_WINS_AT_ONCE and self._found_line():
            f_, m_ = np.array([f]), np.array([m])
            if not under_line(f_, m_, self._found_line(), *self.board)[0]:
                return STATUS_OUT_OF_SCOPE
        return status

    def statuses(self, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """:meth:`position_status` of flat uint64 arrays of positions of the book's board."""
        self._require_open()
        args = self._kernel_args()
        kernel = _status_kernel_7x6 if args[1:3] == (7, 6) else _status_kernel
        status = np.empty(first.size, dtype=np.int8)
        kernel(first, mask, *args, status)
        if args[0] < 0:  # several stone counts: the book says which it holds
            stones = np.bitwise_count(mask)
            for n in np.unique(stones).tolist():
                rows = (stones == n) & (status <= STATUS_WRONG_PLY)
                if not self._holds(n):
                    status[rows] = STATUS_WRONG_PLY
                elif not self._wins_at_once_at(n):
                    status[rows & (status == STATUS_WINS_AT_ONCE)] = STATUS_OK
        now = np.flatnonzero(status == STATUS_WINS_AT_ONCE)
        if now.size and self._found_line():
            inside = under_line(first[now], mask[now], self._found_line(), *self.board)
            status[now[~inside]] = STATUS_OUT_OF_SCOPE
        return status

    def _found_line(self) -> str:
        """For a format that cannot record its scope: the longest line every position
        it stores continues ("" for none, and for a format that can record it), found
        once, from a sample of its positions first (:meth:`_stored_sample`) and then,
        only when the sample shares a line, from all of them (:meth:`_stored_pieces`).
        A win at once outside that line is not in the book, as it is not in the same
        book written with its scope."""
        if self._line is None:
            self._line = ""
            if not self.records_scope:
                try:
                    line = _shared_line(*self._stored_sample(), self.board, "")
                    if line:
                        for first, mask in self._stored_pieces():
                            line = _shared_line(first, mask, self.board, line, longer=False)
                            if not line:
                                break
                except BookFileError:  # positions that cannot be listed: no line known
                    line = ""
                self._line = line
        return self._line

    def _refusal(self, status: int, which: str, stones: int) -> Exception:
        """The error for a position of ``status`` that the book does not answer."""
        name = self.path.name
        if status == STATUS_WRONG_PLY:
            holds = self._holds_what()
            return PositionNotInBook(f"{which} has {stones} stones; {name} holds {holds} positions")
        if status == STATUS_OUT_OF_SCOPE:
            under, part = self._scope_line()
            if part is not None:
                holds = f"part {part[0]}/{part[1]} of the {self.plies}-ply positions"
            else:
                holds = f"the positions under {under or self._found_line()}"
            return PositionNotInBook(f"{which} is outside {name}, which holds only {holds}")
        return InvalidArgument(f"{which} {STATUS_MESSAGES[status]}")

    def _answer(self, pos: Position) -> BookValue:
        """The rule for one position of any board."""
        if (pos.width, pos.height) != self.board:
            raise PositionNotInBook(
                f"a {pos.width}x{pos.height} position is not in {self.path.name}, "
                f"a book of {self.board} positions"
            )
        status, value = self._probe(pos)
        if status == STATUS_OK and value is not None:
            if value.winner is Winner.DRAW and value.score is None:
                return BookValue(Winner.DRAW, value.plies, 0)  # a draw's score is 0
            return value
        if status not in (STATUS_OK, STATUS_WINS_AT_ONCE):
            raise self._refusal(status, "the position", pos.stone_count)
        now = status == STATUS_WINS_AT_ONCE
        answer = unstored_value(
            pos.stone_count, now, self._absent_first_wins, self.kind, self.board
        )
        if answer is None:
            raise PositionNotInBook(self._absent_why("the position"))
        return answer

    def _answer_many(self, first: np.ndarray, mask: np.ndarray, strict: bool) -> BulkValues:
        """The rule for flat uint64 arrays of positions of the book's board."""
        known = self._stored_checked_many(first, mask)
        rest = None  # with ``known``: the positions not found among the stored ones
        if known is None:
            status = self.statuses(first, mask)
            every = bool((status == STATUS_OK).all())
        else:  # the stored positions are book positions: check only the others
            rest = np.flatnonzero(known.index < 0)
            rest_status = self.statuses(first[rest], mask[rest]) if rest.size else None
            every = rest_status is None or bool((rest_status == STATUS_OK).all())
            if not every:
                status = np.full(first.size, STATUS_OK, np.int8)
                status[rest] = rest_status
        if every:  # the usual bulk call: book positions only, nothing refused
            if known is None:
                index, winner, plies, score = self._stored_many(first, mask)
                absent_rows = np.flatnonzero(index < 0)
            else:
                index, winner, plies, score = known
                absent_rows = rest
        else:
            book = status == STATUS_OK
            if known is not None:  # stored where index >= 0, UNKNOWN elsewhere
                index, winner, plies, score = (a.copy() for a in known)
                rows = np.empty(0, np.int64)
            else:
                n = first.size
                index = np.full(n, -1, np.int64)
                winner = np.full(n, UNKNOWN, np.int8)
                plies = np.full(n, UNKNOWN, np.int16)
                score = np.full(n, UNKNOWN, np.int16)
                rows = np.flatnonzero(book)
            if rows.size:
                part = self._stored_many(first[rows], mask[rows])
                for whole, a in zip((index, winner, plies, score), part, strict=True):
                    whole[rows] = a
            now = status == STATUS_WINS_AT_ONCE
            absent_rows = np.flatnonzero((book & (index < 0)) | now)
        unanswered = np.empty(0, np.int64)  # held, not stored, and not known
        if absent_rows.size:  # not stored: the rule of every book (and model)
            now_rows = np.zeros(absent_rows.size, bool) if every else now[absent_rows]
            answers = unstored_answers(
                mask[absent_rows], now_rows, self._absent_first_wins, self.kind, self.board
            )
            for whole, part in zip((winner, plies, score), answers, strict=True):
                whole[absent_rows] = part
            unanswered = absent_rows[answers[0] == UNKNOWN]
        score[(winner == 0) & (index >= 0)] = 0  # a draw's score is 0 in every book
        if strict and (unanswered.size or not every):
            failed = np.zeros(first.size, bool)
            failed[unanswered] = True
            if not every:
                failed = failed | ((status != STATUS_OK) & (status != STATUS_WINS_AT_ONCE))
            if failed.any():  # the first position not answered names the error
                i = int(np.argmax(failed))
                if every or status[i] == STATUS_OK:
                    raise PositionNotInBook(self._absent_why(f"position {i}"))
                stones = int(np.bitwise_count(mask[i]))
                raise self._refusal(int(status[i]), f"position {i}", stones)
        return BulkValues(index, winner, plies, score)

    def require_position(self, pos: Position) -> None:
        """Refuse, as an argument (:class:`InvalidArgument`), a position that can never
        be in this book: of another board, or of a stone count the book does not hold."""
        self._require_open()
        if (pos.width, pos.height) != self.board:
            raise InvalidArgument(
                f"the book is for {self.board} boards, not {pos.width}x{pos.height}"
            )
        stones = pos.stone_count
        if not self._holds(stones):
            raise InvalidArgument(str(self._refusal(STATUS_WRONG_PLY, "the position", stones)))

    def lookup(self, pos: Position) -> tuple[BookValue, int | None]:
        """:meth:`get` plus the record that answered (None: not stored, or a format
        without record numbers)."""
        return self.get(pos), None

    # ---------------------------------------------------------- the contract
    def get(self, pos: Position, default: Any = _REQUIRED) -> Any:
        """The book's answer for ``pos`` (either mirror variant).

        Raises :class:`PositionNotInBook` (a ``KeyError``) when the book does not
        answer it, unless ``default`` is given; :class:`InvalidArgument` for
        something that is not a position, or a position no game reaches.
        """
        self._require_open()
        if not isinstance(pos, Position):
            raise InvalidArgument(f"expected a Position, got {type(pos).__name__}")
        try:
            return self._answer(pos)
        except PositionNotInBook:
            if default is _REQUIRED:
                raise
            return default
        except BookFileError as exc:  # a damaged file: the message names it
            name_file(exc, self.path)
            raise

    def __contains__(self, pos: object) -> bool:
        """True exactly when :meth:`get` answers ``pos``."""
        self._require_open()
        if not isinstance(pos, Position):
            return False
        try:
            self._answer(pos)
        except (PositionNotInBook, InvalidArgument):
            return False
        except BookFileError as exc:
            name_file(exc, self.path)
            raise
        return True

    def lookup_many(self, first: np.ndarray, mask: np.ndarray, strict: bool = True) -> BulkValues:
        """Bulk :meth:`get` over ``first``/``mask`` arrays (one shape, any number of
        dimensions) of positions of the book's board: ``BulkValues(index, winner,
        plies, score)`` of that shape (winner +1/-1/0, ``UNKNOWN`` where not known;
        ``index`` the record or slot that answered, -1 where none did). A position
        the book does not answer raises :class:`PositionNotInBook` (one no game
        reaches: :class:`InvalidArgument`) naming the first one, or with
        ``strict=False`` gets ``UNKNOWN``."""
        self._require_open()
        f, m = _bitboard_array(first, "first"), _bitboard_array(mask, "mask")
        if f.shape != m.shape:
            raise InvalidArgument(f"first and mask differ in shape: {f.shape} vs {m.shape}")
        shape = f.shape
        try:
            out = self._answer_many(f.reshape(-1), m.reshape(-1), strict)
        except BookFileError as exc:
            name_file(exc, self.path)
            raise
        return BulkValues(*(a.reshape(shape) for a in out))

    def __len__(self) -> int:
        self._require_open()
        if self._length is None:
            try:
                self._length = self._count()
            except BookFileError as exc:
                name_file(exc, self.path)
                raise
        return self._length

    def __iter__(self) -> Iterator[tuple[Position, BookValue]]:
        """``(Position, BookValue)`` for every position the book answers (one variant per
        mirror pair), read piece by piece (:meth:`position_pieces`)."""
        board = self.board
        chunk = 1 << 16
        for first, mask in self.position_pieces():
            for start in range(0, len(first), chunk):
                f, m = first[start : start + chunk], mask[start : start + chunk]
                bulk = self.lookup_many(f, m)
                rows = zip(
                    f.tolist(),
                    m.tolist(),
                    bulk.winner.tolist(),
                    bulk.plies.tolist(),
                    bulk.score.tolist(),
                    strict=True,
                )
                for fi, mi, w, p, s in rows:
                    pos = Position.from_bitboards(fi, mi, *board, check=False)
                    yield pos, value_from_arrays(w, p, s)

    def position_pieces(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Every position of :meth:`positions`, once, as ``(first, mask)`` pieces of at
        most :data:`PIECE_POSITIONS`. A complete book of more than
        :data:`PIECEWISE_POSITIONS` positions that are its ply's enumeration comes part
        by part (:func:`openingbook.solver.iter_parts`,
        :data:`openingbook.solver.AUTO_PARTS` parts; the
        order of :meth:`positions` where the enumeration itself goes by parts, as for
        14 plies on 7x6): memory for the previous layer and one part, and the first
        piece without enumerating the whole ply. Any other book: :meth:`positions`
        in slices.

        >>> from openingbook import open_book
        >>> with open_book("8") as book:
        ...     sum(len(f) for f, _ in book.position_pieces()) == len(book)
        True
        """
        self._require_open()
        under, part = self._scope_line()
        if self.enumerated and under is None and part is None and len(self) > PIECEWISE_POSITIONS:
            for _, first, mask in iter_parts(int(self.plies or 0), AUTO_PARTS, *self.board):
                yield from _slices(first, mask)
            return
        yield from _slices(*self.positions())

    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """``(first, mask)`` of every position :meth:`__iter__` yields."""
        self._require_open()
        try:
            return self._answered_positions()
        except BookFileError as exc:
            name_file(exc, self.path)
            raise

    def close(self) -> None:
        """Release the file; every later use raises :class:`BookClosed`."""
        if not self._closed:
            self._closed = True
            self._release()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> BookReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _require_open(self) -> None:
        if self._closed:
            raise BookClosed(f"{self.path}: the book is closed")


def _slices(first: np.ndarray, mask: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``first``/``mask`` in slices of :data:`PIECE_POSITIONS` (one, empty, for no position)."""
    for start in range(0, max(1, len(first)), PIECE_POSITIONS):
        yield first[start : start + PIECE_POSITIONS], mask[start : start + PIECE_POSITIONS]


def _bitboard_array(values: Any, name: str) -> np.ndarray:
    """``values`` as a contiguous uint64 array; :class:`InvalidArgument` for anything
    that is not an array of non-negative integers."""
    try:
        a = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name}: not an array of bitboards ({exc})") from None
    if a.dtype == np.uint64:
        return np.ascontiguousarray(a)
    if a.size and a.dtype.kind not in "iu":
        raise InvalidArgument(f"{name}: expected integer bitboards, got {a.dtype} values")
    if a.size and a.dtype.kind == "i" and (a < 0).any():
        raise InvalidArgument(f"{name}: a bitboard is negative")
    return np.ascontiguousarray(a, dtype=np.uint64)


def bulk_values(
    mask: np.ndarray,
    index: np.ndarray,
    winner: np.ndarray,
    plies: np.ndarray,
    book: str,
    board: BoardSize,
    scores: np.ndarray | None = None,
) -> BulkValues:
    """:class:`BulkValues` from stored exact results on ``board`` of the positions of
    ``mask`` (``index`` -1 where not stored): what a reader's ``_stored_many`` returns.

    ``winner`` (+1/-1/0) and ``plies`` (``UNKNOWN`` when not known) are read
    where ``index >= 0``; scores follow from them unless given; ``UNKNOWN`` where not
    stored (what a position not stored answers is the rule of
    :class:`openingbook.answers.BookReader`). A stored result that no game can have
    raises :class:`BookFileError`.
    """
    score_of = score_tables(board)[0]
    cells = board.cells
    stones = stone_counts(mask).astype(np.int64)
    found = index >= 0
    winner = np.where(found, winner, UNKNOWN).astype(np.int8)
    plies = np.where(found, plies, UNKNOWN).astype(np.int16)
    known = found & (plies != UNKNOWN)
    safe_plies = np.clip(plies, 0, cells).astype(np.int64)
    safe_stones = np.clip(stones, 0, cells)
    if scores is None:
        score = np.where(winner == 0, 0, score_of[safe_stones, safe_plies])
    else:
        score = np.asarray(scores)
    score = np.where(known, score, UNKNOWN).astype(np.int16)
    decided = known & (winner != 0) & (plies != 0)
    mover_wins = (winner > 0) == (stones % 2 == 0)
    off_board = (plies < 1) | (stones + plies > cells)
    bad = decided & ((((plies % 2) == 1) != mover_wins) | off_board)
    if bad.any():
        i = int(np.argmax(bad))
        raise BookFileError(f"{book}: record {int(index[i])} has an impossible result")
    return BulkValues(index.astype(np.int64), winner, plies, score)


def _shared_line(
    first: np.ndarray, mask: np.ndarray, board: BoardSize, line: str, longer: bool = True
) -> str:
    """The longest line that every position of ``first``/``mask`` continues, starting
    from ``line`` (which they are known to continue with ``longer``: made longer, one
    move at a time, while they all continue it; else shortened until they do)."""
    w, h = board
    if not longer:
        while line and not under_line(first, mask, line, w, h).all():
            line = line[:-1]
        return line
    while first.size:
        for col in range(1, w + 1):
            candidate = f"{line}{col}"
            try:
                Position.from_moves(candidate, w, h)
            except InvalidArgument:
                continue
            if under_line(first, mask, candidate, w, h).all():
                line = candidate
                break
        else:
            return line
    return line
