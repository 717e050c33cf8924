"""One reader behaviour: one table of cases, run over every readable format.

``docs/BOOKS.md`` writes the rule down; :class:`openingbook.answers.BookReader`
applies it once. Every book below is made by the project's own tools (``derive``,
``convert``, ``export`` and the compact writer), opened through ``open_book``, and
asked every case of :data:`CASES` through every call: ``get``, ``get(pos,
default)``, ``lookup``, ``in``, ``lookup_many`` (strict and not, on 1-D and 2-D arrays). The
expected answer of each case is computed without the readers: the kind of
position is known by construction and checked with :class:`openingbook.solver.Position`'s own
(pure Python) checks; stored values come from :class:`openingbook.solver.Solver` on the small
boards and from the source book (checked against the solver elsewhere) on 7x6.

Groups (one book in several formats, all answering alike):

* 7x6, 8 plies, distance, complete: compact, Thill, Cadot, Pons;
* 7x6, 8 plies, win/draw/loss, complete: compact, Thill (pruned), Cadot (no
  half-move counts);
* 7x6, 6 plies under ``44``, distance: compact and Thill (which record the scope),
  Cadot and Pons (which do not: the line their positions share is the scope);
  win/draw/loss: compact, Thill and Cadot;
* 4x4 (6 plies) and 5x4 (8 plies), Pons scores: compact and Pons; 5x4 win/draw/loss:
  compact.

Every format is asked in every kind it holds (a Pons book holds scores only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from openingbook import BookClosed, InvalidArgument, PositionNotInBook, open_book
from openingbook.formats import detect, load_book
from openingbook.formats.compact import write_compact
from openingbook.pipeline.convert import convert_book
from openingbook.pipeline.derive import derive_book
from openingbook.pipeline.export import export_book
from openingbook.solver import (
    BoardSize,
    Position,
    Solver,
    enumerate_positions,
    plies_from_score,
    score_from_plies,
    under_line,
)
from openingbook.values import KINDS, UNKNOWN

ROOT = Path(__file__).resolve().parents[1]
BOOKS = ROOT / "books"


@dataclass(frozen=True)
class Book:
    """One book file of a group, and what its answers must equal."""

    label: str
    fmt: str
    path: Path
    board: BoardSize
    plies: int
    kind: str
    under: str | None
    #: the stored positions' answers: ``(first, mask, winner, plies, score)`` arrays
    truth: tuple[np.ndarray, ...]
    #: positions answered (``len``)
    size: int


def _truth_from_model(path: Path) -> tuple[tuple[np.ndarray, ...], int]:
    model = load_book(path)
    return (model.first, model.mask, model.winner, model.plies_to_end, model.score), len(model)


def _truth_from_solver(
    first: np.ndarray, mask: np.ndarray, board: BoardSize, kind: str
) -> tuple[np.ndarray, ...]:
    """Winner (first player's view), plies and score of each position, by the solver."""
    w, h = board
    scores = Solver(width=w, height=h, table_log2=16).solve_many(first, mask).astype(np.int64)
    stones = np.bitwise_count(mask).astype(np.int64)
    mover = np.where(stones % 2 == 0, 1, -1)
    winner = np.where(scores == 0, 0, np.where(scores > 0, mover, -mover)).astype(np.int8)
    plies = np.array(
        [plies_from_score(int(s), int(n), w, h) for s, n in zip(scores, stones, strict=True)],
        np.int16,
    )
    if kind == "wdl":  # a draw's score is known: 0
        score = np.where(winner == 0, 0, UNKNOWN).astype(np.int16)
        return first, mask, winner, np.full_like(plies, UNKNOWN), score
    return first, mask, winner, plies, scores.astype(np.int16)


@pytest.fixture(scope="module")
def books(tmp_path_factory) -> dict[str, Book]:
    tmp = tmp_path_factory.mktemp("contract")
    out: dict[str, Book] = {}

    def add(label: str, fmt: str, path: Path, board, plies, kind, under, truth, size) -> None:
        out[label] = Book(label, fmt, path, board, plies, kind, under, truth, size)

    def exported(source: Path, label: str, stem: str, board, plies, kind, under, truth, size):
        """``source`` exported to Cadot (a win/draw/loss book without half-move counts)
        and, with scores, to Pons."""
        path = tmp / f"{stem}.cadot"
        export_book(source, "cadot", path, no_distance=kind == "wdl")
        add(f"{label} cadot", "cadot", path, board, plies, kind, under, truth, size)
        if kind != "wdl":
            path = tmp / f"{stem}.book"
            export_book(source, "pons", path)  # Pons' values are scores
            add(f"{label} pons", "pons", path, board, plies, "score", under, truth, size)

    b76 = BoardSize(7, 6)
    # 7x6 complete: the shipped compact books, converted to Thill's layout, exported
    for kind, source in (("distance", BOOKS / "book8-dist.c4b"), ("wdl", BOOKS / "book8.c4b")):
        truth, size = _truth_from_model(source)
        add(f"7x6 {kind} compact", "compact", source, b76, 8, kind, None, truth, size)
        thill = tmp / f"{kind}8.dat"
        convert_book(source, thill, "thill")
        add(f"7x6 {kind} thill", "thill", thill, b76, 8, kind, None, truth, size)
        exported(source, f"7x6 {kind}", f"{kind}8", b76, 8, kind, None, truth, size)
    # 7x6 scoped: derived from the 8-ply distance book, 6 plies under "44"
    for kind in ("distance", "wdl"):
        compact = tmp / f"{kind}6-under44.c4b"
        derive_book(BOOKS / "book8-dist.c4b", 6, compact, under="44", distances=kind != "wdl")
        truth, size = _truth_from_model(compact)
        add(f"7x6 {kind} under44 compact", "compact", compact, b76, 6, kind, "44", truth, size)
        thill = tmp / f"{kind}6-under44.dat"
        derive_book(
            BOOKS / "book8-dist.c4b", 6, thill, under="44", distances=kind != "wdl",
            format="thill",
        )  # fmt: skip
        add(f"7x6 {kind} under44 thill", "thill", thill, b76, 6, kind, "44", truth, size)
        label, stem = f"7x6 {kind} under44", f"{kind}6-under44"
        exported(compact, label, stem, b76, 6, kind, "44", truth, size)
    # small boards: the solver's values, written as compact books, exported to Pons
    for w, h, plies in ((4, 4, 6), (5, 4, 8)):
        board = BoardSize(w, h)
        first, mask = enumerate_positions(plies, None, w, h)
        truth = _truth_from_solver(first, mask, board, "score")
        compact = tmp / f"{board}-{plies}.c4b"
        write_compact(compact, plies, "score", first, mask, truth[4], board=board)
        add(
            f"{board} score compact",
            "compact",
            compact,
            board,
            plies,
            "score",
            None,
            truth,
            len(first),
        )
        pons = tmp / f"{board}-{plies}.book"
        export_book(compact, "pons", pons)
        add(f"{board} score pons", "pons", pons, board, plies, "score", None, truth, len(first))
        if (w, h) == (5, 4):
            wdl = _truth_from_solver(first, mask, board, "wdl")
            path = tmp / f"{board}-{plies}-wdl.c4b"
            write_compact(path, plies, "wdl", first, mask, wdl[2], board=board)
            add(f"{board} wdl compact", "compact", path, board, plies, "wdl", None, wdl, len(first))
    return out


LABELS = [
    "7x6 distance compact",
    "7x6 distance thill",
    "7x6 distance cadot",
    "7x6 distance pons",
    "7x6 wdl compact",
    "7x6 wdl thill",
    "7x6 wdl cadot",
    "7x6 distance under44 compact",
    "7x6 distance under44 thill",
    "7x6 distance under44 cadot",
    "7x6 distance under44 pons",
    "7x6 wdl under44 compact",
    "7x6 wdl under44 thill",
    "7x6 wdl under44 cadot",
    "4x4 score compact",
    "4x4 score pons",
    "5x4 score compact",
    "5x4 score pons",
    "5x4 wdl compact",
]


# ----------------------------------------------------------------- the cases
#: an expected answer: ("value", winner, plies, score), ("absent",) or ("invalid",)
Expected = tuple


def _random_game(book: Book, stones: int, rng: np.random.Generator, want_win_now: bool | None):
    """A legal position of ``stones`` stones continuing the book's line (None: none found),
    whose side to move can (or cannot) complete four at once."""
    w, h = book.board
    for _ in range(2000):
        pos = Position.from_moves(book.under or "", w, h)
        while pos.stone_count < stones:
            moves = [c for c in range(w) if pos.can_play(c) and not pos.is_winning_move(c)]
            if not moves:
                break
            pos = pos.play(int(rng.choice(moves)))
        if pos.stone_count == stones and (
            want_win_now is None or pos.can_win_next() == want_win_now
        ):
            return pos
    return None


def _win_now(book: Book, stones: int) -> Expected:
    winner = "first" if stones % 2 == 0 else "second"
    if book.kind == "wdl":
        return ("value", winner, None, None)
    return ("value", winner, 1, score_from_plies(1, stones, *book.board))


def case_stored(book: Book, rng) -> list[tuple[Position, Expected]]:
    first, mask, winner, plies, score = book.truth
    out = []
    for i in rng.choice(len(first), size=min(40, len(first)), replace=False):
        pos = Position.from_bitboards(int(first[i]), int(mask[i]), *book.board, check=False)
        assert pos.is_legal() and not pos.can_win_next()
        name = {1: "first", -1: "second", 0: "draw"}[int(winner[i])]
        p = None if plies[i] == UNKNOWN else int(plies[i])
        s = None if score[i] == UNKNOWN else int(score[i])
        out += [(pos, ("value", name, p, s)), (pos.mirror(), ("value", name, p, s))]
    return out


def case_win_at_once(book: Book, rng) -> list[tuple[Position, Expected]]:
    pos = _random_game(book, book.plies, rng, want_win_now=True)
    assert pos is not None
    return [(pos, _win_now(book, book.plies)), (pos.mirror(), _win_now(book, book.plies))]


def case_win_at_once_of_another_ply(book: Book, rng) -> list[tuple[Position, Expected]]:
    out = []
    for stones in (book.plies - 2, book.plies + 2):
        pos = _random_game(book, stones, rng, want_win_now=True)
        if pos is not None:
            out.append((pos, ("absent",)))
    assert out
    return out


def case_another_ply(book: Book, rng) -> list[tuple[Position, Expected]]:
    out = []
    for stones in (book.plies - 1, book.plies + 1, book.plies + 2):
        pos = _random_game(book, stones, rng, want_win_now=False)
        if pos is not None:
            out.append((pos, ("absent",)))
    return out


def case_four_on_the_board(book: Book, rng) -> list[tuple[Position, Expected]]:
    """The book's number of stones, with four of the first player's in column 1."""
    pos = _four_in_column_1(book, book.plies)
    assert pos.stone_count == book.plies and pos.winner() is not None
    return [(pos, ("invalid",))]


def case_no_game_of_another_ply(book: Book, rng) -> list[tuple[Position, Expected]]:
    """A position no game reaches is refused as such whatever its stone count: one
    stone fewer and one more than the book's (four in column 1, and stone counts that
    do not alternate)."""
    out = []
    for stones in (book.plies - 1, book.plies + 1):
        pos = _four_in_column_1(book, stones)
        assert pos.problems()
        out.append((pos, ("invalid",)))
    return out


def _four_in_column_1(book: Book, stones: int) -> Position:
    """``stones`` stones: four of the first player's in column 1, the second player's
    two by two in the next columns."""
    w, h = book.board
    h1 = h + 1
    first = sum(1 << r for r in range(4))
    mask = first
    second = stones - 4
    col, row = 1, 0
    while second > 0:  # the other stones two by two in the next columns
        mask |= 1 << (col * h1 + row)
        second -= 1
        row += 1
        if row == 2:
            col, row = col + 1, 0
    return Position.from_bitboards(first, mask, w, h, check=False)


def case_floating_stones(book: Book, rng) -> list[tuple[Position, Expected]]:
    """A stored position with one column's top stone lifted a cell (a gap below it)."""
    w, h = book.board
    h1 = h + 1
    pairs = zip(book.truth[0][:50].tolist(), book.truth[1][:50].tolist(), strict=True)
    for first, mask in pairs:
        for col in range(w):
            column = (mask >> (col * h1)) & ((1 << h) - 1)
            top = column.bit_length() - 1
            if 0 < top < h - 1:  # a stone stays under the lifted one, which floats
                bit, up = 1 << (col * h1 + top), 1 << (col * h1 + top + 1)
                f = (first & ~bit) | (up if first & bit else 0)
                pos = Position.from_bitboards(f, (mask & ~bit) | up, w, h, check=False)
                assert any("floating" in p for p in pos.problems())
                return [(pos, ("invalid",))]
    raise AssertionError("no column to lift")


def case_outside_the_scope(book: Book, rng) -> list[tuple[Position, Expected]]:
    assert book.under is not None
    w, h = book.board
    out = []
    for want in (False, True):  # not winning at once, and winning at once: both outside
        for _ in range(2000):
            pos = _random_game(
                Book(**{**book.__dict__, "under": None}), book.plies, rng, want_win_now=want
            )
            f, m = np.array([pos.first_stones], np.uint64), np.array([pos.mask], np.uint64)
            if not under_line(f, m, book.under, w, h)[0]:
                out.append((pos, ("absent",)))
                break
    assert len(out) == 2
    return out


CASES: dict[str, Callable[[Book, np.random.Generator], list[tuple[Position, Expected]]]] = {
    "stored": case_stored,
    "win at once": case_win_at_once,
    "win at once of another ply": case_win_at_once_of_another_ply,
    "another ply": case_another_ply,
    "four on the board": case_four_on_the_board,
    "no game, another ply": case_no_game_of_another_ply,
    "floating stones": case_floating_stones,
    "outside the scope": case_outside_the_scope,
}


def _as_expected(value) -> Expected:
    return ("value", value.winner.value, value.plies, value.score)


#: every case of every book (a complete book has no outside)
TABLE = [
    (label, case)
    for label in LABELS
    for case in CASES
    if case != "outside the scope" or "under" in label
]


@pytest.mark.parametrize(("label", "case"), TABLE)
def test_every_call_answers_the_case(books, label, case):
    book = books[label]
    rows = CASES[case](book, np.random.default_rng(7))
    assert rows
    first = np.array([p.first_stones for p, _ in rows], np.uint64)
    mask = np.array([p.mask for p, _ in rows], np.uint64)
    with open_book(book.path) as reader:
        loose = reader.lookup_many(first, mask, strict=False)
        for i, (pos, expected) in enumerate(rows):
            if expected[0] == "value":
                assert _as_expected(reader.get(pos)) == expected, (i, pos.some_moves())
                assert _as_expected(reader.get(pos, None)) == expected
                assert _as_expected(reader.lookup(pos)[0]) == expected
                assert pos in reader
                one = reader.lookup_many(first[i : i + 1], mask[i : i + 1])
                got = value_row(one, 0)
            else:
                error = PositionNotInBook if expected[0] == "absent" else InvalidArgument
                with pytest.raises(error) as info:
                    reader.get(pos)
                assert "\n" not in str(info.value)
                assert pos not in reader
                with pytest.raises(error):
                    reader.lookup(pos)
                if error is PositionNotInBook:
                    assert reader.get(pos, "default") == "default"
                else:
                    with pytest.raises(InvalidArgument):
                        reader.get(pos, "default")
                with pytest.raises(error):
                    reader.lookup_many(first[i : i + 1], mask[i : i + 1])
                got = ("unknown",)
                assert loose.index[i] == -1
            assert value_row(loose, i) == (got if expected[0] == "value" else ("unknown",))
        # the same positions as a 2-D array: the same answers, in that shape
        if len(rows) % 2 == 0:
            square = reader.lookup_many(first.reshape(2, -1), mask.reshape(2, -1), strict=False)
            for a, b in zip(square, loose, strict=True):
                assert a.shape == (2, len(rows) // 2)
                assert np.array_equal(a.reshape(-1), b)


def value_row(bulk, i: int) -> tuple:
    """A row of :class:`BulkValues` as an expected answer."""
    w, p, s = int(bulk.winner[i]), int(bulk.plies[i]), int(bulk.score[i])
    if w == UNKNOWN:
        return ("unknown",)
    name = {1: "first", -1: "second", 0: "draw"}[w]
    return ("value", name, None if p == UNKNOWN else p, None if s == UNKNOWN else s)


@pytest.mark.parametrize("label", LABELS)
def test_another_board_is_not_in_the_book(books, label):
    book = books[label]
    w, h = book.board
    elsewhere = Position.from_moves("11", w + 1, h)
    with open_book(book.path) as reader:
        assert elsewhere not in reader
        with pytest.raises(PositionNotInBook):
            reader.get(elsewhere)
        assert reader.get(elsewhere, 0) == 0
        assert "4455" not in reader and None not in reader
        with pytest.raises(InvalidArgument):
            reader.get("4455")


@pytest.mark.parametrize("label", LABELS)
def test_described_and_every_position_answered(books, label):
    book = books[label]
    assert detect(book.path).name == book.fmt
    first, mask, winner, plies, score = book.truth
    with open_book(book.path) as reader:
        assert reader.format_name == book.fmt
        assert (reader.board, reader.plies, reader.kind) == (book.board, book.plies, book.kind)
        assert reader.kind in KINDS and isinstance(reader.provenance, dict)
        assert reader.records is None or reader.records >= 0
        assert len(reader) == book.size
        bulk = reader.lookup_many(first, mask)
        assert np.array_equal(bulk.winner, winner)
        assert np.array_equal(bulk.plies, plies) and np.array_equal(bulk.score, score)
        f, m = reader.positions()
        assert len(f) == len(m) == book.size
        seen = 0
        for pos, value in reader:
            if seen % 499 == 0:
                assert reader.get(pos) == value
            seen += 1
        assert seen == book.size


@pytest.mark.parametrize("label", LABELS)
def test_argument_shapes(books, label):
    book = books[label]
    first, mask = book.truth[0][:4], book.truth[1][:4]
    with open_book(book.path) as reader:
        with pytest.raises(InvalidArgument):
            reader.lookup_many(first, mask[:3])
        with pytest.raises(InvalidArgument):
            reader.lookup_many(first.reshape(2, 2), mask)
        with pytest.raises(InvalidArgument):
            reader.lookup_many(first.astype(float), mask)
        empty = reader.lookup_many(np.zeros(0, np.uint64), np.zeros(0, np.uint64))
        assert all(a.shape == (0,) for a in empty)


@pytest.mark.parametrize("label", LABELS)
def test_unknown_option_refused(books, label):
    with pytest.raises(InvalidArgument, match="bogus"):
        open_book(books[label].path, bogus=1)


@pytest.mark.parametrize("label", LABELS)
def test_one_error_after_close(books, label):
    book = books[label]
    first, mask = book.truth[0][:1], book.truth[1][:1]
    pos = Position.from_bitboards(int(first[0]), int(mask[0]), *book.board)
    with open_book(book.path) as reader:
        assert reader.get(pos)
    assert reader.closed
    reader.close()  # twice is fine
    for use in (
        lambda: reader.get(pos),
        lambda: reader.get(pos, None),
        lambda: pos in reader,
        lambda: len(reader),
        lambda: next(iter(reader)),
        lambda: reader.positions(),
        lambda: reader.records,
        lambda: reader.lookup_many(first, mask),
        lambda: reader.lookup_many(first, mask, strict=False),
    ):
        with pytest.raises(BookClosed):
            use()
