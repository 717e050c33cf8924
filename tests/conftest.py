"""Shared test set-up: where the reference data are.

The reference files (Thill's 8-ply book, solver scores, ...) live outside the
repository: ``../shared/reference`` beside it, or wherever
``OPENINGBOOK_REFERENCE`` points. :data:`REFERENCE` is computed here and only
here; tests take the :func:`reference_dir` fixture, and modules that need a
reference path while pytest collects them (in a ``parametrize`` list) import
:data:`REFERENCE` from this module.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

#: The shared reference directory (see the module docstring).
REFERENCE = Path(
    os.environ.get(
        "OPENINGBOOK_REFERENCE",
        Path(__file__).resolve().parents[1].parent / "shared" / "reference",
    )
)


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The shared reference directory; a clear failure when it is missing."""
    if not REFERENCE.is_dir():
        pytest.fail(
            f"reference data not found at {REFERENCE}: set OPENINGBOOK_REFERENCE to the "
            "directory holding thill-original-book8.dat"
        )
    return REFERENCE


def default_sigint() -> None:
    """``preexec_fn`` for children that tests interrupt with SIGINT.

    A shell that starts the test run in the background (``cmd &``) ignores SIGINT, and
    children inherit that, so Python would never raise KeyboardInterrupt in them; the
    default action makes the child's Python install its handler as in a terminal.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
