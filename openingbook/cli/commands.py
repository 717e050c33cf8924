"""Imports every command module so that it registers on the ``main`` group."""
from openingbook.cli import enumerate  # noqa: F401
from openingbook.cli import validate  # noqa: F401
from openingbook.cli import lookup  # noqa: F401
from openingbook.cli import build  # noqa: F401
from openingbook.cli import export  # noqa: F401
