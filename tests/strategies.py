"""Random positions shared by the tests: hypothesis strategies and seeded random games."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from solver import Position


def random_game(rng: random.Random, width: int, height: int, stones: int) -> Position | None:
    """A random game of ``stones`` moves in which nobody wins, or None if it got stuck."""
    pos = Position(width=width, height=height)
    while pos.stone_count < stones:
        moves = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
        if not moves:
            return None
        pos = pos.play(rng.choice(moves))
    return pos


@st.composite
def positions(draw, min_stones: int = 0, max_stones: int = 41) -> Position:
    """A legal, non-terminal position reached by random legal moves."""
    target = draw(st.integers(min_stones, max_stones))
    pos = Position()
    while pos.stone_count < target:
        moves = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
        if not moves:
            break
        pos = pos.play(draw(st.sampled_from(moves)))
    return pos
