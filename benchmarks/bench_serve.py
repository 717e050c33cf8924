"""Benchmark: ``openingbook serve``'s latency on ``/solve`` and the batch endpoint's throughput.

Usage: ``python benchmarks/bench_serve.py [--requests 2000] [--batches 5]
[--batch-size 4096] [--seed 1] [--out PATH]``

Starts ``openingbook serve --port 0`` as its own process (the command a user
runs, its default limits, in the default configuration: the environment's switches
:data:`SWITCHES` are left out, and a first run's background compiles are done first,
``runinfo.wait_for_background_compiles``), waits for its first answer, then:

* asks ``GET /solve?pos=...`` ``--requests`` times, one at a time, for positions
  of 0 to 14 stones from random games (answered from the shipped books by lookups), over
  one kept-alive connection and again with a new connection per request (as a
  client without a session does); the time of each request is from sending it
  to its whole answer, on the client;
* asks ``--deep-requests`` positions of 15 to 41 stones from random games the same way
  (past the books: searched), on the kept-alive connection;
* sends one ``POST /solve/batch`` request of ``--batch-size`` such positions (not
  timed: the batch's code paths run once), then ``--batches`` more and reports
  positions per second (whole requests: the JSON both ways included), of wall time
  and of the server process's CPU time (read from ``/proc``; on a loaded machine the
  wall time mostly measures the wait for a core).

Every answer is checked to be 200 with the position's 7 scores. Writes
``benchmarks/results/serve.json`` and prints the figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from runinfo import wait_for_background_compiles

from openingbook.atomicio import write_json_atomic
from openingbook.solver import Position

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
ENTRY = "from openingbook.cli import main; main()"
#: environment variables that change how the solver runs (the light kernel, the native
#: code): the server runs without them, as a user's does
SWITCHES = ("OPENINGBOOK_FIRST_USE", "OPENINGBOOK_NATIVE")


def book_positions(count: int, rng: random.Random, stones: range = range(15)) -> list[str]:
    """Move strings of 0 to 14 stones (or ``stones``) from random games (no four
    completed, the board not full)."""
    out = []
    while len(out) < count:
        target = rng.choice(stones)
        pos, moves = Position.from_moves("", 7, 6), ""
        while len(moves) < target:
            column = rng.choice(pos.legal_moves())
            if pos.is_winning_move(column):
                break
            pos, moves = pos.play(column), moves + str(column + 1)
        if len(moves) == target:
            out.append(moves)
    return out


def timed_get(connection: http.client.HTTPConnection, moves: str) -> float:
    start = time.perf_counter()
    connection.request("GET", f"/solve?pos={moves}")
    response = connection.getresponse()
    body = response.read()
    seconds = time.perf_counter() - start
    answer = json.loads(body)
    if response.status != 200 or answer["pos"] != moves or len(answer["score"]) != 7:
        sys.exit(f"bad answer for {moves!r}: {response.status} {body[:200]!r}")
    return seconds


def post_batch(connection: http.client.HTTPConnection, positions: list[str]) -> float:
    """Seconds of one ``POST /solve/batch`` of ``positions``, from sending the request to
    its answer read and decoded, which is checked."""
    body = json.dumps(positions).encode()
    start = time.perf_counter()
    connection.request("POST", "/solve/batch", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    answer = json.loads(response.read())
    seconds = time.perf_counter() - start
    if response.status != 200 or [a["pos"] for a in answer] != positions:
        sys.exit(f"bad batch answer: {response.status}")
    if any(len(a["score"]) != 7 for a in answer):
        sys.exit("bad batch answer: not 7 scores a position")
    return seconds


def cpu_seconds(pid: int) -> float | None:
    """User and system CPU time of process ``pid`` (Linux ``/proc``), None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summary(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    if not ms:
        return {"requests": 0}
    return {
        "requests": len(ms),
        "median_ms": round(statistics.median(ms), 3),
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 3),
        "max_ms": round(ms[-1], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument(
        "--deep-requests", type=int, default=300, help="GET /solve of 15-41 stones (searched)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "serve.json")
    args = parser.parse_args()
    # the configuration users get: their first runs' background compiles done
    waited = wait_for_background_compiles()
    rng = random.Random(args.seed)
    singles = book_positions(args.requests, rng)
    batches = [book_positions(args.batch_size, rng) for _ in range(args.batches + 1)]
    deep = book_positions(args.deep_requests, rng, range(15, 42))

    env = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    env["PYTHONPATH"] = str(REPO)
    server = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "serve", "--port", "0", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        first = json.loads(server.stdout.readline())
        host, port = first["url"].split("/")[2].rsplit(":", 1)
        address = (host, int(port))
        kept = http.client.HTTPConnection(*address, timeout=300)
        for moves in singles[:50]:  # warm-up: every book opened, the code paths run once
            timed_get(kept, moves)
        keep_alive = [timed_get(kept, moves) for moves in singles]
        searched = [timed_get(kept, moves) for moves in deep]
        kept.close()
        new_connection = []
        for moves in singles:
            connection = http.client.HTTPConnection(*address, timeout=300)
            new_connection.append(timed_get(connection, moves))
            connection.close()
        batch_seconds = []
        connection = http.client.HTTPConnection(*address, timeout=300)
        post_batch(connection, batches.pop())  # warm-up
        cpu_before = cpu_seconds(server.pid)
        for positions in batches:
            batch_seconds.append(post_batch(connection, positions))
        connection.close()
        cpu_after = cpu_seconds(server.pid)
    finally:
        server.terminate()  # SIGTERM: SIGINT may be ignored in a background job
        server.wait(timeout=30)

    total = sum(len(b) for b in batches)
    result = {
        "positions": "0-14 stones from random games (the shipped books)",
        "solve_keep_alive": summary(keep_alive),
        "solve_new_connection": summary(new_connection),
        "solve_deep": {**summary(searched), "positions": "15-41 stones from random games"},
        "batch": {
            "batches": len(batches),
            "batch_size": args.batch_size,
            "seconds": [round(s, 3) for s in batch_seconds],
            "positions_per_second": round(total / sum(batch_seconds)),
            "server_cpu_seconds": None if cpu_before is None else round(cpu_after - cpu_before, 3),
            "positions_per_cpu_second": None
            if cpu_before is None
            else round(total / max(cpu_after - cpu_before, 1e-9)),
        },
        "background_compiles_waited_s": round(waited, 1),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, result)
    for name in ("solve_keep_alive", "solve_new_connection", "solve_deep"):
        s = result[name]
        print(
            f"/solve, {name.removeprefix('solve_').replace('_', ' ')}: median {s['median_ms']} ms, "
            f"99th percentile {s['p99_ms']} ms, max {s['max_ms']} ms ({s['requests']} requests)"
        )
    b = result["batch"]
    per_cpu = b["positions_per_cpu_second"]
    print(
        f"/solve/batch: {b['positions_per_second']:,} positions/s of wall time, "
        f"{per_cpu:,} per second of the server's CPU ({b['batches']} batches of "
        f"{b['batch_size']})"
    )
    print(f"load average {result['load_average'][0]:.1f} on {result['cpus']} cores")


if __name__ == "__main__":
    main()
