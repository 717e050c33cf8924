"""One reader behaviour: the same checks over every readable format and several boards.

``docs/BOOKS.md`` writes the contract down; :class:`openingbook.answers.BookReader`
implements it once. Every book below is opened through ``open_book`` and must keep
it: ``get`` (answer or ``PositionNotInBook``, a ``KeyError``), ``get(pos, default)``,
``in`` (True exactly when ``get`` answers, never raising), ``len`` (the positions
answered: the same for one book in every format), iteration, ``lookup_many``, the
book's properties, ``close`` and the context manager (one error after close).

The books: the shipped 7x6 8-ply books (Thill's layout pruned and with distances,
compact), exports of the distance book to Cadot, Pons and Thill's layout written by
the registry, and on the 4x4 and 5x4 boards compact books of solver scores
(:class:`solver.Solver`, checked against brute force in ``test_board_size_books``)
with their Pons exports. Each group of one book in several formats is compared with
the group's source, position by position.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from openingbook import BookClosed, PositionNotInBook, open_book
from openingbook.compact import write_compact
from openingbook.formats import FORMATS, KINDS, detect, load_book
from openingbook.formats.model import BookModel
from openingbook.values import UNKNOWN
from solver import BoardSize, Position, Solver, enumerate_positions

ROOT = Path(__file__).resolve().parents[1]
BOOKS = ROOT / "books"
#: small boards and the ply of their test books (solved in well under a second)
SMALL = ((4, 4, 6), (5, 4, 8))


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> dict[str, tuple[str, Path, BookModel]]:
    """label -> (format, path, the source model its answers must equal)."""
    tmp = tmp_path_factory.mktemp("contract")
    out: dict[str, tuple[str, Path, BookModel]] = {}
    wdl = load_book(BOOKS / "book8.c4b")
    out["7x6 wdl compact"] = ("compact", BOOKS / "book8.c4b", wdl)
    out["7x6 wdl thill"] = ("thill", BOOKS / "book8.dat", wdl)
    dist = load_book(BOOKS / "book8-dist.c4b")
    out["7x6 distance compact"] = ("compact", BOOKS / "book8-dist.c4b", dist)
    out["7x6 distance thill"] = ("thill", BOOKS / "book8-dist.dat", dist)
    for name, suffix in (("cadot", ".cadot"), ("pons", ".book"), ("thill", ".dat")):
        path = tmp / f"book8-dist{suffix}"
        FORMATS[name].write(dist, path)
        out[f"7x6 distance {name}"] = (name, path, dist)
    for width, height, plies in SMALL:
        first, mask = enumerate_positions(plies, None, width, height)
        scores = Solver(width=width, height=height, table_log2=16).solve_many(first, mask)
        board = BoardSize(width, height)
        compact = tmp / f"{board}-{plies}.c4b"
        write_compact(compact, plies, "score", first, mask, scores, board=board)
        model = load_book(compact)
        out[f"{board} score compact"] = ("compact", compact, model)
        pons = tmp / f"{board}-{plies}.book"
        FORMATS["pons"].write(model, pons)
        out[f"{board} score pons"] = ("pons", pons, model)
    return out


LABELS = [
    "7x6 wdl compact",
    "7x6 wdl thill",
    "7x6 distance compact",
    "7x6 distance thill",
    "7x6 distance cadot",
    "7x6 distance pons",
    "4x4 score compact",
    "4x4 score pons",
    "5x4 score compact",
    "5x4 score pons",
]


def _unanswered(model: BookModel) -> Position:
    """A legal position two plies deeper than the book's, whose side to move cannot
    win at once (so no reader answers it by the win-at-once rule)."""
    w, h = model.board
    for i in range(len(model)):
        pos = Position.from_bitboards(int(model.first[i]), int(model.mask[i]), w, h)
        for a in range(w):
            for b in range(w):
                if not pos.can_play(a) or pos.is_winning_move(a):
                    continue
                child = pos.play(a)
                if not child.can_play(b) or child.is_winning_move(b):
                    continue
                grand = child.play(b)
                if not grand.can_win_next():
                    return grand
    raise AssertionError("no deeper position found")


def _sample(model: BookModel, n: int = 200) -> np.ndarray:
    return np.random.default_rng(23).choice(len(model), size=min(n, len(model)), replace=False)


@pytest.mark.parametrize("label", LABELS)
def test_detected_and_described(library, label):
    name, path, model = library[label]
    assert detect(path).name == name
    with open_book(path) as book:
        assert book.format_name == name
        assert book.board == model.board
        assert book.kind in KINDS
        assert book.plies == model.plies
        assert isinstance(book.provenance, dict)
        assert book.records is None or book.records >= 0
        assert book.scope.describe()
        assert len(book) == len(model)  # the positions answered, in every format


@pytest.mark.parametrize("label", LABELS)
def test_answers_equal_the_source_on_every_position(library, label):
    _, path, model = library[label]
    with open_book(path) as book:
        bulk = book.lookup_many(model.first, model.mask)
    assert np.array_equal(bulk.winner, model.winner)
    if book.kind != "wdl":
        assert np.array_equal(bulk.plies, model.plies_to_end)
        assert np.array_equal(bulk.score, model.score)
    else:
        assert (bulk.plies == UNKNOWN).all()


@pytest.mark.parametrize("label", LABELS)
def test_get_in_and_defaults(library, label):
    _, path, model = library[label]
    missing = _unanswered(model)
    w, h = model.board
    other = BoardSize(w + 1, h)
    elsewhere = Position.from_moves("1" * min(2, h), *other)  # a legal position of another board
    with open_book(path) as book:
        bulk = book.lookup_many(model.first, model.mask)
        for i in _sample(model):
            pos = Position.from_bitboards(int(model.first[i]), int(model.mask[i]), w, h)
            value = book.get(pos)
            assert value == book.get(pos.mirror()) == book.get(pos, None)
            assert pos in book and pos.mirror() in book
            assert value.winner.value == {1: "first", -1: "second", 0: "draw"}[int(bulk.winner[i])]
        for pos in (missing, elsewhere):
            assert pos not in book
            with pytest.raises(PositionNotInBook) as info:
                book.get(pos)
            assert isinstance(info.value, KeyError) and "\n" not in str(info.value)
            assert book.get(pos, "absent") == "absent"
        assert "4455" not in book and None not in book
        with pytest.raises(PositionNotInBook):
            book.lookup_many(
                np.array([missing.first_stones], np.uint64), np.array([missing.mask], np.uint64)
            )
        loose = book.lookup_many(
            np.array([missing.first_stones], np.uint64),
            np.array([missing.mask], np.uint64),
            strict=False,
        )
        assert loose.winner.tolist() == [UNKNOWN] and loose.index.tolist() == [-1]


@pytest.mark.parametrize("label", LABELS)
def test_iteration_yields_len_answers(library, label):
    _, path, model = library[label]
    with open_book(path) as book:
        seen = 0
        for pos, value in book:
            if seen % 997 == 0:
                assert book.get(pos) == value
            seen += 1
        assert seen == len(book) == len(model)


@pytest.mark.parametrize("label", LABELS)
def test_one_error_after_close(library, label):
    _, path, model = library[label]
    pos = Position.from_bitboards(int(model.first[0]), int(model.mask[0]), *model.board)
    with open_book(path) as book:
        assert book.get(pos)
    assert book.closed
    book.close()  # twice is fine
    for use in (
        lambda: book.get(pos),
        lambda: pos in book,
        lambda: len(book),
        lambda: next(iter(book)),
        lambda: book.lookup_many(model.first[:1], model.mask[:1]),
    ):
        with pytest.raises(BookClosed):
            use()
