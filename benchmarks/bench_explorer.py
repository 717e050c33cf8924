"""Benchmark: how fast each move's analysis reaches the explorer's page.

Usage: ``python benchmarks/bench_explorer.py [--positions 1000] [--max-stones 11]
[--seed 0] [--out PATH]``

Starts ``openingbook explore --port 0 --no-browser`` as its own process (the
command a user runs; it warms up on the empty board, the page's first request,
which is timed apart), then asks ``/api/analyze`` over one keep-alive HTTP connection, as
the page does, for ``--positions`` distinct random positions of 0 to
``--max-stones`` stones (random legal games, no finished ones; every position
distinct, so the server's memory of earlier answers never serves one). Each
figure is the time from sending the request to having the whole JSON answer
parsed, in the client; the server's own time (``ms`` of the answer) is shown
beside it. Every answer must be complete (all columns known): a position the
books do not answer in time is a failure, not a slow figure. Goal (issue 25):
100 ms per move for positions inside the books.

``--browser GAMES`` also plays GAMES random games of ``--max-stones`` moves in
headless Chromium (``tests/browser.py``; Debian's ``chromium`` and
``chromium-driver``), clicking the columns, and reads the page's own figure:
from the click to the answer drawn (``data-shown-ms``), for positions the server
had not answered before. Writes ``benchmarks/results/explorer.json``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from openingbook.atomicio import write_json_atomic
from openingbook.solver import Position

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
ENTRY = "from openingbook.cli import main; main()"
#: milliseconds from request to answer, for positions inside the books
GOAL_MS = 100.0


def random_positions(count: int, max_stones: int, seed: int) -> list[str]:
    """``count`` distinct move strings of 0..max_stones stones, none of a finished game."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        stones = rng.randint(0, max_stones)
        pos = Position.from_moves("")
        moves = ""
        for _ in range(stones):
            safe = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
            column = rng.choice(safe)
            moves += str(column + 1)
            pos = pos.play(column)
        found.setdefault(moves, None)
    return list(found)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def url(match: re.Match[str]) -> str:
    return f"http://{match.group(1)}:{match.group(2)}/"


def shows(driver: object, moves: str) -> bool:
    """Does the page show the answer for ``moves``?"""
    script = "return document.body.dataset.state === 'ready' && document.body.dataset.moves"
    return driver.execute_script(script) == moves  # type: ignore[attr-defined]


def browser_games(
    address: str, games: int, max_stones: int, seed: int, asked: list[str]
) -> list[float]:
    """Milliseconds from click to drawn answer of every new position of ``games`` random
    games played by clicking in headless Chromium (positions in ``asked`` are skipped)."""
    if not games:
        return []
    sys.path.insert(0, str(REPO))
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.browser import chromium_paths, headless_chromium

    paths = chromium_paths()
    if isinstance(paths, str):
        sys.exit(f"--browser: {paths}")
    rng = random.Random(seed + 1)
    seen = set(asked) | {""}
    shown: list[float] = []
    with headless_chromium(paths) as driver:
        for _ in range(games):
            driver.get(address)
            pos, moves = Position.from_moves(""), ""
            for _ in range(max_stones):
                WebDriverWait(driver, 120).until(lambda d, m=moves: shows(d, m))
                column = rng.choice([c for c in pos.legal_moves() if not pos.is_winning_move(c)])
                driver.find_element("css selector", f'.col[data-column="{column + 1}"]').click()
                pos, moves = pos.play(column), moves + str(column + 1)
                WebDriverWait(driver, 120).until(lambda d, m=moves: shows(d, m))
                if moves not in seen:
                    seen.add(moves)
                    ms = driver.execute_script("return document.body.dataset.shownMs")
                    shown.append(float(ms))
    return shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--max-stones", type=int, default=11)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--browser", type=int, default=0, metavar="GAMES")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "explorer.json")
    args = parser.parse_args()

    positions = random_positions(args.positions, args.max_stones, args.seed)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "explore", "--port", "0", "--no-browser"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = server.stdout.readline()
        ready_s = time.perf_counter() - started
        match = re.search(r"http://([0-9.]+):(\d+)/", line)
        if not match:
            sys.exit(f"the explorer did not print its address: {line!r}")
        connection = http.client.HTTPConnection(match.group(1), int(match.group(2)), timeout=120)
        connection.request("GET", "/api/analyze?moves=")
        json.loads(connection.getresponse().read())
        first_s = time.perf_counter() - started
        positions = [moves for moves in positions if moves]  # the empty board: answered
        client_ms: list[float] = []
        server_ms: list[float] = []
        for moves in positions:
            start = time.perf_counter()
            connection.request("GET", f"/api/analyze?moves={moves}")
            response = connection.getresponse()
            answer = json.loads(response.read())
            client_ms.append((time.perf_counter() - start) * 1000)
            if response.status != 200 or not answer["analysis"]["complete"]:
                sys.exit(f"{moves!r}: not answered in full: {answer}")
            server_ms.append(answer["ms"])
        connection.close()
        page_ms = browser_games(url(match), args.browser, args.max_stones, args.seed, positions)
    finally:
        server.terminate()
        server.wait(timeout=30)

    def summary(values: list[float]) -> dict[str, float]:
        return {
            "median": round(statistics.median(values), 3),
            "p90": round(percentile(values, 0.90), 3),
            "p99": round(percentile(values, 0.99), 3),
            "max": round(max(values), 3),
        }

    result = {
        "positions": len(positions),
        "stones": f"0..{args.max_stones}",
        "seed": args.seed,
        "start_to_address_s": round(ready_s, 3),
        "start_to_first_answer_s": round(first_s, 3),
        "client_ms": summary(client_ms),
        "server_ms": summary(server_ms),
        "page_ms": summary(page_ms) if page_ms else None,
        "page_positions": len(page_ms),
        "goal_ms": GOAL_MS,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, result)
    print(f"{len(positions)} positions of 0..{args.max_stones} stones over HTTP")
    print(f"explore printed its address after {ready_s:.2f} s, answered the empty board")
    print(f"(books opened, lookups loaded: the page's first request) after {first_s:.2f} s")
    print(f"{'ms':<16}{'median':>10}{'p90':>10}{'p99':>10}{'max':>10}")
    rows = [("HTTP client", client_ms), ("server", server_ms)]
    if page_ms:
        rows.append((f"page ({len(page_ms)})", page_ms))
    for name, values in rows:
        s = summary(values)
        print(f"{name:<16}{s['median']:>10.2f}{s['p90']:>10.2f}{s['p99']:>10.2f}{s['max']:>10.2f}")
    worst = max(result["client_ms"]["p99"], (result["page_ms"] or {"p99": 0})["p99"])
    verdict = "met" if worst <= GOAL_MS else "NOT met"
    print(f"goal: {GOAL_MS:.0f} ms per move (p99): {verdict}")


if __name__ == "__main__":
    main()
