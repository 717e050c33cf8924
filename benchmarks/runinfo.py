"""What every benchmark's result file records of its run: the command and the date."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def run_info() -> dict[str, str]:
    """``command``: the command line that made the result, as typed in the checkout
    (``python benchmarks/<script> <arguments>``); ``date``: now, UTC."""
    command = ["python", f"benchmarks/{Path(sys.argv[0]).name}", *sys.argv[1:]]
    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {"command": " ".join(command), "date": date}
