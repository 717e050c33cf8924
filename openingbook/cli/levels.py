"""``openingbook levels``: the measured strength of the levels of
:class:`openingbook.evaluation.LevelPlayer`.

Plays each level against perfect play and against the next level
(:func:`openingbook.evaluation.measure_levels`: ``--games`` games a pair, half of them
each way round) and prints, per pair, the first-named player's wins, draws, losses and
score (over all the games, then as the first player and as the second), and per level
its measured mistake rate (beside the defined one), its perfect moves and its mean
regrets over every game it played. ``docs/LEVELS.md`` holds the table this command
printed.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from openingbook.cli import main
from openingbook.cli._common import emit_json, json_option, seed_option, user_errors


def _rate(value: float, digits: int = 3) -> str:
    return "-" if value != value else f"{value:.{digits}f}"


def pairs_table(results: list[Any]) -> list[str]:
    """The lines of the table of pairs: the first-named player's results."""
    lines = [
        f"{'pair':<22} {'wins':>5} {'draws':>5} {'losses':>6} {'score':>6}"
        f"  {'first: W-D-L':>13} {'second: W-D-L':>13}"
    ]
    for result in results:
        a = result.a
        first, second = result.a_moving(first=True), result.a_moving(first=False)
        lines.append(
            f"{result.names[0] + ' vs ' + result.names[1]:<22} "
            f"{a.wins:>5} {a.draws:>5} {a.losses:>6} {_rate(a.score):>6}"
            f"  {_results(first):>13} {_results(second):>13}"
        )
    return lines


def _results(report: Any) -> str:
    return f"{report.wins}-{report.draws}-{report.losses}"


def levels_table(reports: dict[int, Any], defined: dict[int, float]) -> list[str]:
    """The lines of the table of levels: each level's moves over all its games."""
    lines = [
        f"{'level':>5} {'defined':>8} {'measured':>8} {'decisive':>8} {'blunders':>8} "
        f"{'perfect':>7} {'value regret':>12} {'distance regret':>15}"
    ]
    for level, report in reports.items():
        lines.append(
            f"{level:>5} {_rate(defined[level], 4):>8} {_rate(report.mistake_rate, 4):>8} "
            f"{report.decisive:>8} {report.blunders:>8} {_rate(report.perfect_rate):>7} "
            f"{_rate(report.mean_value_regret):>12} {_rate(report.mean_distance_regret):>15}"
        )
    return lines


@main.command("levels")
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Games a pair (the first-named player moves first in half of them, rounded up).",
)
@seed_option("Seed of the players' random generators: the same seed plays the same games.")
@click.option(
    "--progress",
    is_flag=True,
    help="A line on stderr as each pair ends (shown anyway when stderr is a terminal).",
)
@json_option
@user_errors
def levels_command(games: int, seed: int, progress: bool, as_json: bool) -> None:
    """Measure the levels of LevelPlayer: each level against perfect play and against
    the next level, --games games a pair, both colours.

    Prints each pair's results (wins, draws, losses and score of the first-named
    player, score = (wins + draws / 2) / games; then its wins, draws and losses
    moving first and moving second), then each level's mistake rate (the share of its
    moves that changed the outcome where a move could: the level's definition, beside
    the measured one), its blunders, its perfect-move rate and its mean regrets
    (value: Pons score units a move; distance: plies a move that kept the outcome)
    over all the games it played. docs/LEVELS.md shows the table of 200 games a pair.
    """
    from openingbook.evaluation import (
        LEVEL_MISTAKE_RATES,
        level_pairs,
        level_reports,
        measure_levels,
        player_name,
    )
    from openingbook.oracle import Oracle

    pairs = level_pairs()
    show = progress or sys.stderr.isatty()
    start = time.perf_counter()

    def report_progress(done: int, total: int) -> None:
        if show:
            names = " vs ".join(player_name(p) for p in pairs[done - 1])
            elapsed = time.perf_counter() - start
            click.echo(f"{done}/{total} pairs ({names} done), {elapsed:.1f} s", err=True)

    with Oracle() as oracle:
        results = measure_levels(
            games, seed=seed, oracle=oracle, pairs=pairs, progress=report_progress
        )
    seconds = time.perf_counter() - start
    reports = level_reports(results)
    if as_json:
        emit_json(
            {
                "games": games,
                "seed": seed,
                "seconds": round(seconds, 3),
                "pairs": [r.to_dict() for r in results],
                "levels": [
                    {
                        "level": level,
                        "defined_mistake_rate": LEVEL_MISTAKE_RATES[level],
                        **report.to_dict(),
                    }
                    for level, report in reports.items()
                ],
            }
        )
        return
    click.echo(f"{games} games a pair, both colours, seed {seed}: {seconds:.1f} s")
    click.echo()
    click.echo("\n".join(pairs_table(results)))
    click.echo()
    click.echo("\n".join(levels_table(reports, LEVEL_MISTAKE_RATES)))
