"""Published figures that books are checked against (facts, with their sources).

* :data:`TROMP_SUBSET_COUNTS`: John Tromp's 8-ply data set (UCI "Connect-4", 67,557
  positions): first-player wins, second-player wins and draws.
* :data:`POSITIONS_PER_PLY`: Tromp's number of positions reachable in legal play after
  ``n`` plies on 7x6 (OEIS A212693): both mirror variants, positions where the side to
  move can complete four at once, and finished games (the player who just moved has
  four) all count.
* :data:`WDL_PER_PLY`: the won/drawn/lost counts of those positions for the side to move
  under perfect play, from the published strong solution of Böck's BDD solver
  (github markus7800/Connect4-Strong-Solver, ``results_solve_w7_h6.csv``). A finished
  game counts as lost for the side to move. Their sums equal :data:`POSITIONS_PER_PLY`.

>>> sum(WDL_PER_PLY[12]) == POSITIONS_PER_PLY[12]
True
"""

from __future__ import annotations

from openingbook.solver import DEFAULT_BOARD

#: Tromp's data set and counts are of the standard board, :data:`openingbook.solver.DEFAULT_BOARD`
#: (7x6): this name says that it is his data's board, not a default.
TROMP_BOARD = DEFAULT_BOARD
TROMP_SUBSET_COUNTS: dict[str, int] = {"first": 44_473, "second": 16_635, "draw": 6_449}

POSITIONS_PER_PLY: dict[int, int] = {
    0: 1,
    1: 7,
    2: 49,
    3: 238,
    4: 1_120,
    5: 4_263,
    6: 16_422,
    7: 54_859,
    8: 184_275,
    9: 558_186,
    10: 1_662_623,
    11: 4_568_683,
    12: 12_236_101,
    13: 30_929_111,
    14: 75_437_595,
    15: 176_541_259,
    16: 394_591_391,
}

#: ply -> (won, drawn, lost) for the side to move.
WDL_PER_PLY: dict[int, tuple[int, int, int]] = {
    0: (1, 0, 0),
    1: (4, 2, 1),
    2: (27, 12, 10),
    3: (145, 58, 35),
    4: (690, 200, 230),
    5: (2_486, 697, 1_080),
    6: (10_889, 1_943, 3_590),
    7: (31_408, 5_944, 17_507),
    8: (124_624, 14_676, 44_975),
    9: (317_541, 42_896, 197_749),
    10: (1_122_696, 97_532, 442_395),
    11: (2_578_781, 255_780, 1_734_122),
    12: (8_191_645, 541_825, 3_502_631),
    13: (17_308_630, 1_286_746, 12_333_735),
    14: (49_756_539, 2_583_292, 23_097_764),
    15: (97_682_013, 5_596_074, 73_263_172),
    16: (255_117_922, 10_681_110, 128_792_359),
}

#: (width, height) -> (winner of the empty board under perfect play, the move on which the
#: game ends: the winning stone's number, or the number of cells for a draw). Tromp's
#: results (width + height <= 15, and 8x8) and Steininger's (github ChristopheSteininger/c4:
#: width + height = 16 and some larger boards, with the last move for all).
BOARD_RESULTS: dict[tuple[int, int], tuple[str, int]] = {
    **{
        (w, 4): r
        for w, r in zip(
            range(4, 13),
            [
                ("draw", 16),
                ("draw", 20),
                ("second", 24),
                ("draw", 28),
                ("second", 32),
                ("second", 36),
                ("second", 40),
                ("second", 44),
                ("second", 48),
            ],
            strict=True,
        )
    },
    **{
        (w, 5): r
        for w, r in zip(
            range(4, 12),
            [
                ("draw", 20),
                ("draw", 25),
                ("draw", 30),
                ("draw", 35),
                ("first", 39),
                ("first", 41),
                ("first", 47),
                ("first", 51),
            ],
            strict=True,
        )
    },
    **{
        (w, 6): r
        for w, r in zip(
            range(4, 11),
            [
                ("draw", 24),
                ("draw", 30),
                ("second", 36),
                ("first", 41),
                ("second", 48),
                ("second", 52),
                ("first", 59),
            ],
            strict=True,
        )
    },
    **{
        (w, 7): r
        for w, r in zip(
            range(4, 10),
            [("draw", 28), ("draw", 35), ("first", 41), ("draw", 49), ("first", 53), ("first", 55)],
            strict=True,
        )
    },
    **{
        (w, 8): r
        for w, r in zip(
            range(4, 9),
            [("draw", 32), ("draw", 40), ("second", 48), ("first", 55), ("second", 62)],
            strict=True,
        )
    },
    **{
        (w, 9): r
        for w, r in zip(
            range(4, 8), [("draw", 36), ("draw", 45), ("first", 53), ("draw", 63)], strict=True
        )
    },
    **{
        (w, 10): r
        for w, r in zip(
            range(4, 8), [("draw", 40), ("draw", 50), ("second", 60), ("first", 69)], strict=True
        )
    },
    **{
        (w, 11): r
        for w, r in zip(range(4, 7), [("draw", 44), ("draw", 55), ("first", 63)], strict=True)
    },
    **{
        (w, 12): r
        for w, r in zip(range(4, 7), [("draw", 48), ("draw", 60), ("second", 72)], strict=True)
    },
    **{(w, 13): r for w, r in zip(range(4, 6), [("draw", 52), ("draw", 65)], strict=True)},
}
