import pytest
from hypothesis import given

from openingbook.solver import Player, Position
from openingbook.solver.position import has_four
from tests.helpers import positions


def test_move_string_and_diagram():
    p = Position.from_moves("4453")
    assert p.stone_count == 4
    assert p.side_to_move is Player.FIRST
    assert p.to_diagram().splitlines()[-2:] == ["...O...", "..OXX.."]
    assert p.cell(3, 0) == 1 and p.cell(3, 1) == 2 and p.cell(2, 0) == 2


@given(positions())
def test_round_trips(p):
    assert Position.from_diagram(p.to_diagram()) == p
    assert Position.from_array(p.to_array()) == p
    assert p.mirror().mirror() == p
    assert p.mirror().stone_count == p.stone_count
    assert Position.from_moves(p.to_moves()) == p
    assert Position.from_moves(p.mirror().some_moves()) == p.mirror()


@given(positions(max_stones=40))
def test_can_win_next_matches_playing(p):
    brute = [c for c in p.legal_moves() if has_four(p.play(c).stones_of(p.side_to_move), p.height)]
    assert [c for c in p.legal_moves() if p.is_winning_move(c)] == brute
    assert p.can_win_next() == bool(brute)


@given(positions())
def test_mirror_columns(p):
    m = p.mirror()
    for c in range(7):
        for r in range(6):
            assert m.cell(6 - c, r) == p.cell(c, r)


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("48", "outside 1-7"),
        ("4a", "not a column digit"),
        ("4444444", "full"),
        ("1212121", "completes four"),
    ],
)
def test_bad_move_strings(moves, message):
    with pytest.raises(ValueError, match=message):
        Position.from_moves(moves)


@pytest.mark.parametrize(
    ("diagram", "message"),
    [
        ("...X...\n" + ".......\n" * 5, "floating stone"),
        (".......\n" * 5 + "XXX....", "do not alternate"),
        (".......\n" * 2 + "X......\nXO.....\nXO.....\nXO.....", "already has four"),
        (".......\n" * 5 + "XX?....", "unknown"),
    ],
)
def test_illegal_diagrams(diagram, message):
    with pytest.raises(ValueError, match=message):
        Position.from_diagram(diagram)


def test_some_moves_reconstructs_history():
    p = Position.from_diagram(".......\n" * 4 + "...O...\n..XXO..")
    assert Position.from_moves(p.some_moves()) == p


def test_other_sizes():
    p = Position.from_moves("1234", width=4, height=4)
    assert p.width == 4 and p.stone_count == 4
    with pytest.raises(ValueError, match="outside 1-4"):
        Position.from_moves("5", width=4, height=4)


@pytest.mark.parametrize("moves", ["1234567\uff11", "12\u00b2", "4\u0664"])
def test_from_moves_refuses_non_ascii_digits(moves):
    # str.isdigit() is true for fullwidth, superscript and Arabic-Indic digits
    with pytest.raises(ValueError, match=r"not a column digit 1-7"):
        Position.from_moves(moves)
