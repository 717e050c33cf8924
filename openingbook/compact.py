"""``openingbook.compact``, kept for one release (CHANGELOG.md): an alias of
:mod:`openingbook.formats.compact`, the compact format's one module; import from there."""

# every public name of the format's module, as it lists them
from openingbook.formats.compact import *  # noqa: F403
from openingbook.formats.compact import __all__  # noqa: F401
