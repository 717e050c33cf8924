"""Benchmark: the explorer's answers while slow clients trickle their headers.

Usage: ``python benchmarks/bench_slow_clients.py [--tricklers 40] [--every 5]
[--requests 8] [--out PATH]``

Starts ``openingbook explore --port 0 --no-browser`` as its own process (the
command a user runs, with its default limits), opens ``--tricklers`` connections
on 127.0.0.1 that each send a request line and then one header line every
``--every`` seconds, never finishing their headers, and meanwhile asks
``/api/analyze`` ``--requests`` times, two seconds apart, each on a new
connection. It measures each request's time to its whole answer (and how many
trickling connections were open when it was sent) and, for every trickling
connection, how long after its first byte the server closed it. Stops by itself:
when every trickling connection is closed, or after a minute. Writes
``benchmarks/results/slow_clients.json``.
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import re
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from openingbook.atomicio import write_json_atomic

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
ENTRY = "from openingbook.cli import main; main()"
#: seconds after which the run stops, whatever is still open
LONGEST = 60.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tricklers", type=int, default=40)
    parser.add_argument("--every", type=float, default=5.0)
    parser.add_argument("--requests", type=int, default=8)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "slow_clients.json")
    args = parser.parse_args()

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    server = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "explore", "--port", "0", "--no-browser"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = server.stdout.readline()
        match = re.search(r"http://([0-9.]+):(\d+)/", line)
        if not match:
            sys.exit(f"the explorer did not print its address: {line!r}")
        address = (match.group(1), int(match.group(2)))
        requests, lifetimes = run(address, args.tricklers, args.every, args.requests)
    finally:
        server.terminate()
        server.wait(timeout=30)

    still_open = args.tricklers - len(lifetimes)
    result = {
        "tricklers": args.tricklers,
        "header_line_every_s": args.every,
        "requests": [
            {"seconds": round(s, 4), "status": status, "tricklers_open": n}
            for s, status, n in requests
        ],
        "request_max_s": round(max(s for s, _, _ in requests), 4),
        "trickler_closed_after_s": {
            "min": round(min(lifetimes), 2),
            "max": round(max(lifetimes), 2),
        },
        "tricklers_still_open_after_s": {str(LONGEST): still_open},
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out, result)
    print(f"{args.tricklers} connections sending a header line every {args.every:g} s")
    for s, status, n in requests:
        print(f"  request: {status} in {s * 1000:.1f} ms with {n} trickling connections open")
    print(
        f"trickling connections closed {min(lifetimes):.2f} to {max(lifetimes):.2f} s after "
        f"their first byte; {still_open} still open after {LONGEST:g} s"
    )


def run(
    address: tuple[str, int], tricklers: int, every: float, count: int
) -> tuple[list[tuple[float, int, int]], list[float]]:
    """(seconds, status, trickling connections open) of each request, and the seconds
    from first byte to close of each trickling connection the server closed."""
    host = f"{address[0]}:{address[1]}".encode()
    opened: dict[socket.socket, float] = {}
    closed: dict[socket.socket, float] = {}
    for _ in range(tricklers):
        connection = socket.create_connection(address, timeout=10)
        connection.sendall(b"GET / HTTP/1.1\r\nHost: %s\r\n" % host)
        opened[connection] = time.monotonic()
    requests: list[tuple[float, int, int]] = []

    def ask() -> None:
        for _ in range(count):
            open_now = len(opened) - len(closed)
            start = time.monotonic()
            client = http.client.HTTPConnection(*address, timeout=60)
            try:
                client.request("GET", "/api/analyze?moves=4453")
                response = client.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException):
                status = 0  # refused
            finally:
                client.close()
            requests.append((time.monotonic() - start, status, open_now))
            time.sleep(2)

    asker = threading.Thread(target=ask)
    asker.start()
    start = time.monotonic()
    next_line = start + every
    try:
        while len(closed) < len(opened) and time.monotonic() - start < LONGEST:
            waiting = [c for c in opened if c not in closed]
            wait = max(0.0, min(next_line, start + LONGEST) - time.monotonic())
            readable, _, _ = select.select(waiting, [], [], wait)
            for connection in readable:  # a trickler can only read the server's close
                try:
                    data = connection.recv(100_000)
                except OSError:
                    data = b""
                if not data:
                    closed[connection] = time.monotonic()
            if time.monotonic() >= next_line:
                next_line += every
                for connection in waiting:
                    if connection in closed:
                        continue
                    try:
                        connection.sendall(b"X-Slow: 1\r\n")
                    except OSError:
                        closed[connection] = time.monotonic()
    finally:
        asker.join()
        for connection in opened:
            connection.close()
    return requests, [closed[c] - opened[c] for c in closed]


if __name__ == "__main__":
    main()
