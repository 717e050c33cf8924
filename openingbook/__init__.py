"""openingbook: generate, encode, read and validate Connect-4 opening books.

The book files are byte-compatible with Markus Thill's published books
(``book.dat``, ``bookDeep.dat``, ``bookDeepDist.dat``).
"""

__version__ = "0.1.0"
