"""Imports every command module so that it registers on the ``main`` group."""
from openingbook.cli import lookup  # noqa: F401
