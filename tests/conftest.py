"""The suite's set-up and its shared pytest fixtures (what test files share besides
fixtures is in ``helpers.py``)."""

from __future__ import annotations

import os
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
# (the fixtures import the package, through tests.helpers, only once this is set)


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The reference directory (:data:`tests.helpers.REFERENCE`); a clear failure when it
    is missing."""
    from tests.helpers import REFERENCE

    if not REFERENCE.is_dir():
        pytest.fail(
            f"reference data not found at {REFERENCE}: set OPENINGBOOK_REFERENCE to the "
            "directory holding thill-original-book8.dat"
        )
    return REFERENCE


@pytest.fixture(scope="session")
def line_books(tmp_path_factory) -> dict[tuple[int, bool], Path]:
    """Books built with the real build under ``helpers.LINE_BOOKS_UNDER``, once per
    session: (plies, distances) -> path, for 12 and 10 plies."""
    from tests.helpers import build_line_books

    return build_line_books(tmp_path_factory.mktemp("line-books"))
