"""The engine (openingbook.engine) against independent answers.

* the solver: every column's value equals ``Solver.analyze`` (converted by
  :mod:`openingbook.solver.scores`) on random positions of plies 0..20 of 7x6 (the engine answers
  them from books, by negamax from a deeper book, or by search), of 6x5 with its shipped
  14-ply book, and on 5x4 with the solver alone;
* brute force: a plain negamax over the whole game tree on 4x4 (no solver code), and
  the winner and the plies to the end by minimax over the game's outcomes, without
  scores, on 5x3, 3x5 (odd cell counts) and 4x4;
* the game itself: best play on both sides from a position ends it after exactly the
  position's plies with its winner (7x6 through the books, 7x5 and 5x5);
* the published value of the empty board (``-2 -1 0 1 0 -1 -2``, Pons), and the rules
  of the answer itself (a win at once is a win in 1, a full column is None, the best
  moves' plies are the position's, fastest win and slowest loss first).
"""

from __future__ import annotations

import functools
import json
import random
import time

import pytest

from openingbook.booknames import resolve_book
from openingbook.engine import SHIPPED, Engine, MoveValue
from openingbook.errors import InvalidArgument
from openingbook.formats.compact import CompactBook
from openingbook.solver import BoardSize, Position, Solver, Winner
from tests.helpers import (
    brute_force_move_scores,
    check_against,
    four_through,
    random_board,
    random_game,
    to_position,
)

TABLE = 20


def random_position(rng: random.Random, plies: int, width: int = 7, height: int = 6) -> Position:
    """A random game of ``plies`` moves nobody has won yet (the side to move may win at once)."""
    while (pos := random_game(rng, width, height, plies)) is None:
        pass
    return pos


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(table_log2=TABLE)


def test_empty_board_is_the_published_one(engine):
    a = engine.analyze("")
    assert [m.score for m in a.moves] == [-2, -1, 0, 1, 0, -1, -2]
    assert [m.winner.value for m in a.moves] == [
        "second",
        "second",
        "draw",
        "first",
        "draw",
        "second",
        "second",
    ]
    # the centre wins with the first player's 21st stone, the 41st of the game
    assert a.value == (Winner.FIRST, 41, 1) and a.best == (4,)
    assert a.moves[3].plies == 41 and a.moves[2].plies == 42  # a draw fills the board
    assert engine.best("") == 4


@pytest.mark.slow
@pytest.mark.parametrize("plies", range(8, 21))
def test_engine_equals_the_solver_on_random_positions(engine, solver, plies):
    """Plies 8..14: children in books (12 to 14: the 13- to 15-ply books); 15..20:
    children past the books, searched."""
    rng = random.Random(2026 + plies)
    for _ in range(6):
        check_against(engine, solver, random_position(rng, plies))


@pytest.mark.slow
@pytest.mark.parametrize("plies", [3, 4, 5, 6, 7])
def test_engine_equals_the_solver_near_the_start(engine, solver, plies):
    rng = random.Random(plies)
    check_against(engine, solver, random_position(rng, plies))


@pytest.mark.parametrize("plies", range(1, 15))
def test_each_position_value_is_its_own_book_value(engine, plies):
    """The engine combines the children's values from the book of the next ply; the
    position's own value in the book of its ply must be the same (200 random positions
    of each ply; where the side to move wins at once, the book's rule: a win in 1)."""
    rng = random.Random(plies)
    with CompactBook(resolve_book(f"{plies}-dist")) as book:  # 13, 14: the deep books
        for _ in range(200):
            pos = random_position(rng, plies)
            value = engine.analyze(pos).value
            assert value == tuple(book.get(pos)), pos.some_moves()


def test_a_book_eight_plies_deeper_answers_by_negamax():
    """With the 8-ply book alone, the empty board's moves (1 stone, 7 plies above it)
    are backed up from it: the published values again."""
    engine = Engine(books=["8-dist"])
    a = engine.analyze("")
    assert [m.score for m in a.moves] == [-2, -1, 0, 1, 0, -1, -2]
    assert {m.source for m in a.moves} == {"derived"}


def test_the_solver_alone_gives_the_same_values(solver):
    rng = random.Random(7)
    alone = Engine(books=None, table_log2=TABLE)
    assert alone.book_plies == ()
    for plies in (14, 17, 20):
        pos = random_position(rng, plies)
        analysis = alone.analyze(pos)
        assert {m.source for m in analysis.moves if m} <= {"solver", "four"}
        check_against(alone, solver, pos)


@pytest.mark.slow
def test_6x5_with_its_shipped_book_equals_the_solver():
    board = BoardSize(6, 5)
    engine = Engine(board=board, table_log2=TABLE)
    assert 14 in engine.book_plies
    solver = Solver(table_log2=TABLE, width=6, height=5)
    rng = random.Random(65)
    sources = set()
    # 4 stones last: its search reads the probe of the 14-ply book, and from then on the
    # engine searches with it instead of backing positions up by negamax ("derived")
    for plies in (9, 10, 12, 13, 14, 16, 18, 4):
        pos = random_position(rng, plies, 6, 5)
        check_against(engine, solver, pos)
        sources |= {m.source for m in engine.analyze(pos).moves if m}
    assert {"book", "derived", "solver"} <= sources


def test_5x4_solver_only_equals_the_solver():
    engine = Engine(board=BoardSize(5, 4), table_log2=16)
    assert engine.book_plies == ()  # nothing shipped for 5x4
    solver = Solver(table_log2=16, width=5, height=4)
    rng = random.Random(54)
    for plies in (0, 3, 6, 9, 12):
        check_against(engine, solver, random_position(rng, plies, 5, 4))


def test_4x4_equals_brute_force():
    """No solver code: a plain negamax over the whole game tree."""
    rng = random.Random(44)
    engine = Engine(board=BoardSize(4, 4), table_log2=14)
    for stones in (0, 2, 5, 8, 11):
        board = random_board(rng, 4, 4, stones)
        if board is None:
            continue
        pos = to_position(board, 4)
        want = brute_force_move_scores(board, 4)
        got = [None if m is None else m.score for m in engine.analyze(pos).moves]
        assert got == want, board


# ------------------------------------------------------------------ the answer's rules
def test_a_win_at_once_is_a_win_in_one_and_a_full_column_is_none(engine):
    # the first player (to move) has three in column 1; column 4 is full
    a = engine.analyze("121212444444")
    assert a.moves[0] == MoveValue(1, Winner.FIRST, 1, 15, "four")
    assert a.best == (1,) and a.value == (Winner.FIRST, 1, 15)
    assert a.moves[3] is None and not a.to_dict()["columns"][3]["playable"]
    assert 3 + 1 not in a.unknown


def test_losses_prefer_the_slowest_and_wins_the_fastest(engine):
    a = engine.analyze("4453")  # the second player wins whatever the first plays
    losses = [m for m in a.moves if m]
    assert all(m.winner is Winner.SECOND for m in losses)
    slowest = max(m.plies for m in losses)
    assert {m.column for m in losses if m.plies == slowest} == set(a.best)


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("44444445", "column 4, which is full"),
        ("1212121", "completes four"),
        ("48", "outside 1-7"),
        ("4x", "x"),
    ],
)
def test_bad_moves_are_refused_in_one_line(engine, moves, message):
    with pytest.raises(InvalidArgument, match=message) as info:
        engine.analyze(moves)
    assert "\n" not in str(info.value)


def test_a_finished_game_is_refused():
    engine = Engine(board=BoardSize(4, 1), books=None)
    with pytest.raises(InvalidArgument, match="full"):
        engine.analyze("1234")
    won = Position.from_bitboards(0b1111, 0b1111 | (0b111 << 7), 7, 6, check=False)
    with pytest.raises(InvalidArgument, match="four in a row"):
        Engine(books=None).analyze(won)
    with pytest.raises(InvalidArgument, match="6x5"):
        Engine(books=None).analyze(Position(width=6, height=5))


def test_a_time_limit_answers_what_it_can():
    engine = Engine(books=None, table_log2=TABLE)
    pos = Position.from_moves("44444433333312")  # past every book: the solver
    a = engine.analyze(pos, time_limit=1e-9)
    assert not a.complete and a.value is None and a.best == ()
    playable = {c + 1 for c in pos.legal_moves()}
    assert set(a.unknown) | {m.column for m in a.moves if m} == playable == {1, 2, 5, 6, 7}
    assert all(m.source == "four" for m in a.moves if m)
    assert a.to_dict()["complete"] is False
    with pytest.raises(TimeoutError):
        engine.best(pos, time_limit=1e-9)
    with pytest.raises(InvalidArgument, match="time_limit"):
        engine.analyze(pos, time_limit=0)
    # a search is stopped inside a column: each move of the empty board needs minutes
    engine.solver.warm_up()  # a first compilation is not search time
    start = time.perf_counter()
    a = engine.analyze("", time_limit=0.2)
    assert time.perf_counter() - start < 5
    assert not a.complete and a.value is None and 4 in a.unknown
    assert engine.analyze("4444443333331").complete  # the solver is left exact and usable


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"time_limit": "2"}, "time_limit 2: expected a positive number of seconds"),
        ({"time_limit": 0}, "time_limit 0: expected a positive number"),
        ({"time_limit": True}, "time_limit True: expected a positive number"),
        ({"time_limit": float("inf")}, "time_limit inf: expected a positive number"),
        ({"time_limit": float("nan")}, "time_limit nan: expected a positive number"),
        ({"board": BoardSize(0, 0)}, "board 0x0: width and height must be at least 1"),
        ({"board": (9, 9)}, "board 9x9 does not fit the 64-bit bitboard"),
        ({"board": 7}, "board 7: expected a board size"),
        ({"board": "7by6"}, "expected WIDTHxHEIGHT"),
        ({"table_log2": "20"}, "table_log2 20: expected an integer"),
        ({"table_log2": 99}, "table_log2 99: expected 10 to 32"),
        ({"books": 5}, "books 5: expected SHIPPED, None, or book names and paths"),
        ({"books": ["14-dist", 5]}, "books 5: expected"),
        ({"books": ""}, "books '': expected a book name or path, not an empty one"),
        ({"books": ["14-dist", ""]}, "books '': expected a book name or path"),
        ({"board": None}, "board None: expected books to take the board from"),
        ({"board": None, "books": None}, "board None: expected books to take the board from"),
        ({"board": None, "books": []}, "board None: expected books to take the board from"),
    ],
)
def test_arguments_are_checked_at_construction(arguments, message):
    """A bad argument is refused by the constructor, in one line of the library's
    errors, before any book is opened (not a bare TypeError, nor a later failure)."""
    with pytest.raises(InvalidArgument) as refused:
        Engine(**arguments)
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_the_engines_time_limit_is_the_default_of_its_analyses():
    engine = Engine(books=None, table_log2=TABLE, time_limit=1e-9)
    assert engine.time_limit == 1e-9
    assert not engine.analyze("44444433333312").complete  # past every book: stopped
    assert Engine("6x5").board == BoardSize(6, 5)


def test_json_form(engine):
    a = engine.analyze("4453")
    d = json.loads(json.dumps(a.to_dict()))
    assert d["moves"] == "4453" and d["board"] == "7x6" and d["to_move"] == "first"
    assert [c["column"] for c in d["columns"]] == list(range(1, 8))
    assert [c["score"] for c in d["columns"]] == [m.score for m in a.moves]
    assert [c["column"] for c in d["columns"] if c["best"]] == list(a.best) == d["best"]
    assert d["value"] == {"winner": "second", "plies": a.value.plies, "score": a.value.score}
    lines = a.lines()
    assert len(lines) == 8 and [line[1] for line in lines[1:]] == [
        "*" if c in a.best else " " for c in range(1, 8)
    ]


def test_books_of_another_board_or_without_distances_are_refused():
    with pytest.raises(InvalidArgument, match="6x5"):
        Engine(books=["14-dist-6x5"])
    with pytest.raises(InvalidArgument, match="6x5"):
        Engine(None, ["14-dist-6x5", "8-dist"])  # the first book's board, then another's
    with Engine(None, "14-dist-6x5") as engine:  # the board of the books
        assert engine.board == BoardSize(6, 5) and engine.book_plies == (14,)
    with pytest.raises(InvalidArgument, match="distances"):
        Engine(books=["8"])


# ------------------------------------------- winner and plies from the rules alone
def brute_force_outcomes(board: tuple[str, ...], height: int) -> list[tuple[str, int] | None]:
    """(winner, the number of the game's last stone) after each column, by plain minimax
    over outcomes, without scores: the side to move prefers a win, the sooner the better,
    then a draw, then a loss, the later the better (None: a full column). ``board``: one
    string per column, bottom first, ``"a"`` the first player's stones, ``"b"`` the
    second's."""
    width = len(board)
    placed = sum(map(len, board))
    me = "a" if placed % 2 == 0 else "b"
    out: list[tuple[str, int] | None] = []
    for col in range(width):
        if len(board[col]) == height:
            out.append(None)
            continue
        child = (*board[:col], board[col] + me, *board[col + 1 :])
        if four_through(child, col, len(board[col])):
            out.append((me, placed + 1))
        elif placed + 1 == width * height:
            out.append(("draw", placed + 1))
        else:
            out.append(_brute_force_outcome(child, height))
    return out


@functools.cache
def _brute_force_outcome(board: tuple[str, ...], height: int) -> tuple[str, int]:
    """The outcome of ``board`` with best play from both sides (see above)."""
    me = "a" if sum(map(len, board)) % 2 == 0 else "b"

    def preference(outcome: tuple[str, int]) -> tuple[int, int]:
        winner, last = outcome
        if winner == me:
            return (2, -last)
        return (1, 0) if winner == "draw" else (0, last)

    return max((o for o in brute_force_outcomes(board, height) if o), key=preference)


@pytest.mark.parametrize(("width", "height"), [(5, 3), (3, 5), (4, 4)])
def test_winner_and_plies_equal_the_game_played_out(width, height):
    """Odd and even cell counts: who wins after each move and on which stone the game
    ends, by minimax over the game's outcomes (no scores, no solver code), equal the
    engine's winner and plies; the sample holds positions whose side to move wins at
    once and positions one stone before the full board."""
    engine = Engine(board=BoardSize(width, height), books=None, table_log2=14)
    names = {"a": "first", "b": "second", "draw": "draw"}
    rng = random.Random(width * 10 + height)
    cells = width * height
    wins_at_once = last_stone = 0
    for stones in range(cells):
        for _ in range(4):
            board = random_board(rng, width, height, stones)
            if board is None:
                continue
            pos = to_position(board, height)
            want = [
                None if o is None else (names[o[0]], o[1] - stones)
                for o in brute_force_outcomes(board, height)
            ]
            analysis = engine.analyze(pos)
            got = [None if m is None else (m.winner.value, m.plies) for m in analysis.moves]
            assert got == want, board
            wins_at_once += any(m and m.plies == 1 for m in analysis.moves)
            last_stone += stones == cells - 1
    assert wins_at_once and last_stone


@pytest.mark.parametrize(
    ("width", "height", "moves", "books"),
    [
        (7, 6, "4453", SHIPPED),  # the loser to move: through the books, then the solver
        (7, 6, "44444433333", SHIPPED),  # from the 12-ply book on
        (7, 5, "5473332766563112", None),  # 35 cells: a win
        (7, 5, "4444", None),  # 35 cells: a draw fills the board with the first's stone
        (5, 5, "533", None),  # 25 cells: the winner not to move
        (5, 5, "324", None),  # 25 cells: the winner to move
    ],
)
def test_best_play_ends_the_game_as_the_value_says(width, height, moves, books):
    """Playing the engine's best move on both sides from a position ends the game (four
    in a row, or the full board) after exactly the position's plies, won by its
    winner; after every move the value is the same winner with one ply less."""
    engine = Engine(board=BoardSize(width, height), books=books, table_log2=TABLE)
    pos = Position.from_moves(moves, width, height)
    value = engine.analyze(pos).value
    assert value.plies > 15
    played = 0
    while True:
        col = engine.best(pos) - 1
        played += 1
        if pos.is_winning_move(col):
            ended = "first" if pos.stone_count % 2 == 0 else "second"
            break
        pos = pos.play(col)
        if pos.is_full():
            ended = "draw"
            break
        assert engine.analyze(pos).value[:2] == (value.winner, value.plies - played)
    assert (ended, played) == (value.winner.value, value.plies)


def test_the_text_says_one_ply():
    lines = Engine().analyze("121212").lines()
    assert lines[0].endswith("first player wins in 1 ply (score +18)")
    assert " 1 ply    score +18" in lines[1] and "32 plies  score  -3" in lines[2]


@pytest.mark.parametrize(
    ("board", "plies"), [(BoardSize(7, 6), tuple(range(0, 16))), (BoardSize(6, 6), (12,))]
)
def test_shipped_books_are_the_complete_distance_books_of_the_board(board, plies):
    """Only the board's complete distance books (not its win/draw/loss books, books
    under a line, or another board's), one per ply."""
    engine = Engine(board=board)
    assert engine.book_plies == plies
    for ply, books in engine._books.items():
        assert len(books) == 1
        with CompactBook(books[0].path) as book:
            assert (book.board, book.plies, book.has_distances, book.under) == (
                board,
                ply,
                True,
                None,
            )
