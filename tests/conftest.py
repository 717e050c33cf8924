"""Shared test set-up: where the reference data are.

The reference files (Thill's 8-ply book, an independent solver's scores, ...) live in
``tests/data`` (its README gives each file's provenance and sha256);
``OPENINGBOOK_REFERENCE`` may point at another directory holding the same files.
:data:`REFERENCE` is computed here and only here; tests take the
:func:`reference_dir` fixture, and modules that need a reference path while pytest
collects them (in a ``parametrize`` list) import :data:`REFERENCE` from this module.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests judge values, never time: a loaded machine (CI shares its two cores
# with compilation and subprocesses) must not fail them on hypothesis' deadline or its
# too-slow health check. Tests that set their own settings still override these.
settings.register_profile(
    "openingbook", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("openingbook")

# One kernel serves the suite, the fast one: a first use's light kernel, while the fast
# one compiles in the background (solver._firstuse), is tested by tests/test_light_kernel.py,
# which turns it on where it needs it. Children of the tests inherit this.
os.environ.setdefault("OPENINGBOOK_FIRST_USE", "0")

#: The reference data kept in the repository (``tests/data/README.md``).
DATA = Path(__file__).resolve().parent / "data"

#: The reference directory the tests read: ``OPENINGBOOK_REFERENCE`` or :data:`DATA`.
REFERENCE = Path(os.environ.get("OPENINGBOOK_REFERENCE") or DATA)


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The reference directory; a clear failure when it is missing."""
    if not REFERENCE.is_dir():
        pytest.fail(
            f"reference data not found at {REFERENCE}: set OPENINGBOOK_REFERENCE to the "
            "directory holding thill-original-book8.dat"
        )
    return REFERENCE


#: the command line as a child process runs it, from this checkout
CLI = [sys.executable, "-c", "from openingbook.cli import main; main()"]


def cli_process(*args: str) -> subprocess.Popen:
    """``openingbook ARGS`` as a child of this checkout, text pipes, interruptible by
    SIGINT (:func:`default_sigint`)."""
    return subprocess.Popen(
        [*CLI, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        preexec_fn=default_sigint,
    )


def default_sigint() -> None:
    """``preexec_fn`` for children that tests interrupt with SIGINT.

    A shell that starts the test run in the background (``cmd &``) ignores SIGINT, and
    children inherit that, so Python would never raise KeyboardInterrupt in them; the
    default action makes the child's Python install its handler as in a terminal.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
