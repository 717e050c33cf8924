"""Hypothesis strategies shared by the tests."""

from __future__ import annotations

from hypothesis import strategies as st

from solver import Position


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
