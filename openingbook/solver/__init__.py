"""Connect-4 positions, exact search and position enumeration.

This package knows nothing of files or books: :mod:`openingbook` uses it
through the names exported here.

The names are loaded on first use (:func:`__getattr__`): reading a book needs
positions and the numpy bitboard helpers only, and should not pay for numba,
which the search (:mod:`openingbook.solver.search`) and the enumeration kernels load.
Those kernels are themselves numba's only when first run (:mod:`openingbook.solver._jit`;
``njit`` is exported for the kernels of :mod:`openingbook`), and the search
kernel runs from the native cache (:mod:`openingbook.solver._native`) when it can, without
numba at all. A search name loaded here also loads :mod:`openingbook.solver._firstuse`, which
chooses the search's kernel on a first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from openingbook.solver._jit import njit
from openingbook.solver.errors import Error, InternalError, InvalidArgument, SearchTimeout
from openingbook.solver.geometry import (
    DEFAULT_BOARD,
    BoardSize,
    check_board_size,
    move_columns,
    move_string,
    parse_board_size,
)
from openingbook.solver.position import (
    DEFAULT_HEIGHT,
    DEFAULT_WIDTH,
    Player,
    Position,
    board_mask,
    bottom_mask,
)
from openingbook.solver.scores import (
    NO_LOWER_BOUND,
    UNSOLVED,
    Winner,
    describe_score,
    plies_from_score,
    score_bounds,
    score_from_plies,
    winner_from_score,
)
from openingbook.solver.table import (
    default_table_log2,
    min_table_log2,
    query_table_log2,
    table_bytes,
    tiny_table_log2,
)

if TYPE_CHECKING:
    from openingbook.solver.bitboards import (
        can_win_next_bits,
        canonical_bits,
        canonical_keys,
        cells_bitboards,
        current_bits,
        has_four_bits,
        mirror_bits,
        position_keys,
        stone_counts,
        winning_cells_bits,
    )
    from openingbook.solver.bitops import popcount, prefetch
    from openingbook.solver.enumerate import (
        AUTO_PARTS,
        LayerTooLarge,
        check_part,
        count_positions,
        counts_per_ply,
        enumerate_positions,
        finished_games,
        iter_parts,
        part_of,
        positions_with_moves,
    )
    from openingbook.solver.interrupt import run_interruptibly
    from openingbook.solver.membership import (
        STATUS_BAD_CELLS,
        STATUS_BAD_MOVES,
        STATUS_BLOCK,
        STATUS_CONTRADICTED,
        STATUS_GAME_OVER,
        STATUS_MESSAGES,
        STATUS_NOT_A_BOARD,
        STATUS_OK,
        STATUS_OUT_OF_SCOPE,
        STATUS_STONE_COUNTS,
        STATUS_TIMEOUT,
        STATUS_UNREACHABLE,
        STATUS_WINS_AT_ONCE,
        STATUS_WRONG_PLY,
        book_position_status,
        nb_block_status,
        nb_book_position_status,
        nb_canonical_key,
        nb_part_of,
        nb_under_line,
        nb_winning_cells,
        under_line,
    )
    from openingbook.solver.probe import BookProbe
    from openingbook.solver.search import Solver, analyze, solve, solve_wdl

#: the module of each name loaded on first use
_LAZY = {
    "can_win_next_bits": "openingbook.solver.bitboards",
    "canonical_bits": "openingbook.solver.bitboards",
    "canonical_keys": "openingbook.solver.bitboards",
    "cells_bitboards": "openingbook.solver.bitboards",
    "current_bits": "openingbook.solver.bitboards",
    "stone_counts": "openingbook.solver.bitboards",
    "has_four_bits": "openingbook.solver.bitboards",
    "mirror_bits": "openingbook.solver.bitboards",
    "winning_cells_bits": "openingbook.solver.bitboards",
    "position_keys": "openingbook.solver.bitboards",
    "AUTO_PARTS": "openingbook.solver.enumerate",
    "LayerTooLarge": "openingbook.solver.enumerate",
    "check_part": "openingbook.solver.enumerate",
    "count_positions": "openingbook.solver.enumerate",
    "counted_positions": "openingbook.solver.enumerate",
    "counts_per_ply": "openingbook.solver.enumerate",
    "finished_games": "openingbook.solver.enumerate",
    "iter_parts": "openingbook.solver.enumerate",
    "part_of": "openingbook.solver.enumerate",
    "enumerate_positions": "openingbook.solver.enumerate",
    "positions_with_moves": "openingbook.solver.enumerate",
    "prefetch": "openingbook.solver.bitops",
    "STATUS_BAD_CELLS": "openingbook.solver.membership",
    "STATUS_BAD_MOVES": "openingbook.solver.membership",
    "STATUS_BLOCK": "openingbook.solver.membership",
    "STATUS_CONTRADICTED": "openingbook.solver.membership",
    "STATUS_OK": "openingbook.solver.membership",
    "STATUS_OUT_OF_SCOPE": "openingbook.solver.membership",
    "STATUS_TIMEOUT": "openingbook.solver.membership",
    "STATUS_GAME_OVER": "openingbook.solver.membership",
    "STATUS_NOT_A_BOARD": "openingbook.solver.membership",
    "STATUS_STONE_COUNTS": "openingbook.solver.membership",
    "STATUS_UNREACHABLE": "openingbook.solver.membership",
    "STATUS_MESSAGES": "openingbook.solver.membership",
    "STATUS_WINS_AT_ONCE": "openingbook.solver.membership",
    "STATUS_WRONG_PLY": "openingbook.solver.membership",
    "book_position_status": "openingbook.solver.membership",
    "nb_block_status": "openingbook.solver.membership",
    "nb_book_position_status": "openingbook.solver.membership",
    "nb_canonical_key": "openingbook.solver.membership",
    "nb_part_of": "openingbook.solver.membership",
    "nb_winning_cells": "openingbook.solver.membership",
    "popcount": "openingbook.solver.bitops",
    "nb_under_line": "openingbook.solver.membership",
    "under_line": "openingbook.solver.membership",
    "BookProbe": "openingbook.solver.probe",
    "Solver": "openingbook.solver.search",
    "analyze": "openingbook.solver.search",
    "solve": "openingbook.solver.search",
    "solve_wdl": "openingbook.solver.search",
    "run_interruptibly": "openingbook.solver.interrupt",
}

__all__ = [
    "AUTO_PARTS",
    "DEFAULT_BOARD",
    "DEFAULT_HEIGHT",
    "DEFAULT_WIDTH",
    "NO_LOWER_BOUND",
    "STATUS_BAD_CELLS",
    "STATUS_BAD_MOVES",
    "STATUS_BLOCK",
    "STATUS_CONTRADICTED",
    "STATUS_GAME_OVER",
    "STATUS_MESSAGES",
    "STATUS_NOT_A_BOARD",
    "STATUS_OK",
    "STATUS_OUT_OF_SCOPE",
    "STATUS_STONE_COUNTS",
    "STATUS_TIMEOUT",
    "STATUS_UNREACHABLE",
    "STATUS_WINS_AT_ONCE",
    "STATUS_WRONG_PLY",
    "UNSOLVED",
    "BoardSize",
    "BookProbe",
    "Error",
    "InternalError",
    "InvalidArgument",
    "LayerTooLarge",
    "Player",
    "Position",
    "SearchTimeout",
    "Solver",
    "Winner",
    "analyze",
    "board_mask",
    "book_position_status",
    "bottom_mask",
    "can_win_next_bits",
    "canonical_bits",
    "canonical_keys",
    "cells_bitboards",
    "check_board_size",
    "check_part",
    "count_positions",
    "counted_positions",
    "counts_per_ply",
    "current_bits",
    "default_table_log2",
    "describe_score",
    "enumerate_positions",
    "finished_games",
    "has_four_bits",
    "iter_parts",
    "min_table_log2",
    "mirror_bits",
    "move_columns",
    "move_string",
    "nb_block_status",
    "nb_book_position_status",
    "nb_canonical_key",
    "nb_part_of",
    "nb_under_line",
    "nb_winning_cells",
    "njit",
    "parse_board_size",
    "part_of",
    "plies_from_score",
    "popcount",
    "position_keys",
    "positions_with_moves",
    "prefetch",
    "query_table_log2",
    "run_interruptibly",
    "score_bounds",
    "score_from_plies",
    "solve",
    "solve_wdl",
    "stone_counts",
    "table_bytes",
    "tiny_table_log2",
    "under_line",
    "winner_from_score",
    "winning_cells_bits",
]


def __getattr__(name: str) -> Any:
    """Load ``name`` from its module on first use (PEP 562), then keep it here."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'solver' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    if module == "openingbook.solver.search":
        # the first use's kernel choice sits above the search, which it installs itself
        # into when loaded (the light kernel now, the fast one in the background)
        importlib.import_module("openingbook.solver._firstuse")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
