"""Connect-4 positions, exact search and position enumeration.

This package knows nothing of files or books: :mod:`openingbook` uses it
through the names exported here.
"""

from solver.bitboards import (
    can_win_next_bits,
    canonical_bits,
    current_bits,
    has_four_bits,
    mirror_bits,
    position_keys,
    stone_counts,
)
from solver.bitops import prefetch
from solver.enumerate import count_positions, enumerate_positions, positions_with_moves
from solver.membership import (
    STATUS_BOOK,
    STATUS_MESSAGES,
    STATUS_WINS_AT_ONCE,
    book_position_status,
    nb_book_position_status,
    nb_canonical_key,
    nb_under_line,
    under_line,
)
from solver.position import DEFAULT_HEIGHT, DEFAULT_WIDTH, Player, Position, board_mask
from solver.scores import (
    Winner,
    describe_score,
    plies_from_score,
    score_from_plies,
    winner_from_score,
)
from solver.search import Solver, analyze, solve, solve_wdl
from solver.table import default_table_log2, table_bytes

__all__ = [
    "DEFAULT_HEIGHT",
    "DEFAULT_WIDTH",
    "STATUS_BOOK",
    "STATUS_MESSAGES",
    "STATUS_WINS_AT_ONCE",
    "Player",
    "Position",
    "Solver",
    "Winner",
    "analyze",
    "board_mask",
    "book_position_status",
    "can_win_next_bits",
    "canonical_bits",
    "count_positions",
    "current_bits",
    "default_table_log2",
    "describe_score",
    "enumerate_positions",
    "has_four_bits",
    "mirror_bits",
    "nb_book_position_status",
    "nb_canonical_key",
    "nb_under_line",
    "plies_from_score",
    "position_keys",
    "positions_with_moves",
    "prefetch",
    "score_from_plies",
    "solve",
    "solve_wdl",
    "stone_counts",
    "table_bytes",
    "under_line",
    "winner_from_score",
]
