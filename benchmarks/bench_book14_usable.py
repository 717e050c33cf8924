"""Benchmark: the 14-ply book's commands, each as a whole process.

Usage: ``python benchmarks/bench_book14_usable.py [--book 14-dist] [--commands NAME,...]
[--out PATH]``

Runs each command of :data:`COMMANDS` under ``/usr/bin/time -v`` (its peak resident
memory, "Maximum resident set size") and records the wall time from start to the first
line of output (the first row on standard output for ``export -o -``, else the first
bytes on either stream: a progress bar, a refusal, the summary) and to the
exit, the exit status, and the last lines of stderr (a refusal's message, the progress
bar's end). Commands run one after another, from the worktree's installation, in a
temporary directory; the load average is recorded beside each run: the machine may be
shared. Writes ``benchmarks/results/book14_usable.json``.

The goals of issue 32: ``info`` within 2 s; ``validate`` and ``derive`` within 3 GB;
``export`` streaming its first row within 5 s, refusing a format before any work,
within 2 GB.
"""

from __future__ import annotations

import argparse
import os
import re
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from openingbook.atomicio import write_json_atomic

ROOT = Path(__file__).resolve().parent
#: name -> the command's arguments after ``openingbook`` ({book}: the 14-ply book)
COMMANDS = {
    "info": ["info", "{book}"],
    "info --full": ["info", "{book}", "--full"],
    "export csv -o -": ["export", "{book}", "-f", "csv", "-o", "-"],
    "export uci (refused)": ["export", "{book}", "-f", "uci", "-o", "b14.data"],
    "export cadot": ["export", "{book}", "-f", "cadot", "-o", "b14.cadot"],
    "export pons": ["export", "{book}", "-f", "pons", "-o", "b14.book"],
    "validate 13-dist": ["validate", "13-dist", "{book}"],
    "derive --plies 13": ["derive", "--from", "{book}", "--plies", "13", "-o", "b13.c4b"],
}


def run(args: list[str], cwd: Path) -> dict[str, object]:
    """One command under ``/usr/bin/time -v``: times, peak memory, status, stderr's end."""
    command = ["/usr/bin/time", "-v", shutil.which("openingbook") or "openingbook", *args]
    to_stdout = args[-2:] == ["-o", "-"]
    load = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first_output: float | None = None
    stdout_bytes = 0
    stderr = b""
    streams = selectors.DefaultSelector()
    assert proc.stdout is not None and proc.stderr is not None
    streams.register(proc.stdout, selectors.EVENT_READ, "out")
    streams.register(proc.stderr, selectors.EVENT_READ, "err")
    open_streams = 2
    while open_streams:
        for key, _ in streams.select():
            data = os.read(key.fileobj.fileno(), 1 << 16)  # type: ignore[union-attr]
            if not data:
                streams.unregister(key.fileobj)
                open_streams -= 1
                continue
            if key.data == "out":
                stdout_bytes += len(data)
                if first_output is None and b"\n" in data:
                    first_output = time.perf_counter() - start
            else:
                stderr += data
                # time's report is not the command's output; rows on stdout are
                if first_output is None and not to_stdout and b"Command being timed" not in data:
                    first_output = time.perf_counter() - start
    status = proc.wait()
    seconds = time.perf_counter() - start
    rss = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", stderr)
    text = stderr.split(b"\tCommand being timed")[0].decode(errors="replace")
    last = [line for line in re.split(r"[\r\n]", text) if line.strip()][-3:]
    return {
        "command": "openingbook " + " ".join(args),
        "exit_status": status,
        "seconds": round(seconds, 2),
        "first_output_seconds": None if first_output is None else round(first_output, 2),
        "peak_rss_mb": round(int(rss.group(1)) / 1024, 1) if rss else None,
        "stdout_bytes": stdout_bytes,
        "stderr_end": last,
        "load_average": round(load, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--book", default="14-dist")
    parser.add_argument("--commands", help="comma-separated names of COMMANDS (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "book14_usable.json")
    options = parser.parse_args()
    names = options.commands.split(",") if options.commands else list(COMMANDS)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            args = [a.format(book=options.book) for a in COMMANDS[name]]
            result = {"name": name, **run(args, Path(tmp))}
            results.append(result)
            print(
                f"{name:<22} exit {result['exit_status']}  {result['seconds']:>7} s  "
                f"first output {result['first_output_seconds']} s  "
                f"peak {result['peak_rss_mb']} MB  (load {result['load_average']})",
                flush=True,
            )
            for file in Path(tmp).iterdir():
                file.unlink()
            # after each command: a run stopped half-way keeps what it measured
            write_json_atomic(options.out, {"python": sys.version.split()[0], "results": results})


if __name__ == "__main__":
    main()
