"""Imports every command module so that it registers on the ``main`` group."""

from openingbook.cli import (
    analyze,  # noqa: F401
    build,  # noqa: F401
    convert,  # noqa: F401
    enumerate,  # noqa: F401
    explore,  # noqa: F401
    export,  # noqa: F401
    lookup,  # noqa: F401
    solve,  # noqa: F401
    validate,  # noqa: F401
)
