"""What the command line says is true and reads well: the help's claims about the
shipped books, and counts that agree with their nouns."""

from __future__ import annotations

import random

from click.testing import CliRunner

from openingbook.cli import main
from openingbook.engine import Engine
from openingbook.registry import distance_book_plies, lookup_stones, shipped_books
from openingbook.solver import Position


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_book_of_one_position_says_one_position() -> None:
    [one] = [b for b in shipped_books() if b.positions == 1]  # the empty board: 0-dist
    [line] = [x for x in _run("books").splitlines() if x.startswith(f"{one.name} ")]
    assert line.endswith(", 1 position")


def test_an_export_of_one_position_says_one_position(tmp_path) -> None:
    out = tmp_path / "empty.csv"
    assert _run("export", "0-dist", "-f", "csv", "-o", str(out)).startswith(
        f"wrote 1 position to {out} (csv)"
    )


def test_the_help_of_analyze_says_how_deep_the_shipped_books_answer() -> None:
    """The help's figure is read from the books, and it is true: every move of a random
    position of that many stones is answered by lookups, of one more stone not all."""
    stones = lookup_stones((7, 6))
    assert stones is not None and stones >= 11
    assert f"positions of up to {stones} stones are answered" in " ".join(
        _run("analyze", "--help").split()
    )
    rng = random.Random(7)
    engine = Engine()
    for count, by_lookups in ((stones, True), (stones + 1, False)):
        for _ in range(3):
            moves = _random_game(rng, count)
            sources = {m.source for m in engine.analyze(moves).moves if m is not None}
            assert (sources <= {"book", "four"}) == by_lookups, (moves, sources)


def test_the_shipped_distance_books_named_are_those_their_headers_say() -> None:
    """``distance_book_plies`` reads file names (the help loads no numpy): they agree with
    the headers of the shipped books, board by board."""
    books = shipped_books()
    for board in {b.board for b in books}:
        size = tuple(map(int, board.split("x")))
        headers = {b.plies for b in books if b.board == board and b.kind != "wdl" and not b.under}
        assert distance_book_plies(size) == sorted(headers), board


def _random_game(rng: random.Random, stones: int) -> str:
    """A random move string of ``stones`` moves on 7x6 in which nobody can win at once."""
    while True:
        pos, moves = Position.from_moves(""), ""
        for _ in range(stones):
            safe = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
            if not safe:
                break
            column = rng.choice(safe)
            pos, moves = pos.play(column), moves + str(column + 1)
        if len(moves) == stones and not any(pos.is_winning_move(c) for c in pos.legal_moves()):
            return moves
