"""Imports every command module so that it registers on the ``main`` group."""
