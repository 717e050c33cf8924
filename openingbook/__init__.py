"""openingbook: generate, encode, read and validate Connect-4 opening books.

The book files are byte-compatible with Markus Thill's published books
(``book.dat``, ``bookDeep.dat``, ``bookDeepDist.dat``). :func:`open_book`
reads those and the Cadot and Pons formats behind one interface.
"""

__version__ = "0.1.0"

# Defined before the import below, since modules it loads may read the version.
from openingbook.api import open_book

__all__ = ["__version__", "open_book"]
