"""openingbook: generate, encode, read and validate Connect-4 opening books.

The book files are byte-compatible with Markus Thill's published books
(``book.dat``, ``bookDeep.dat``, ``bookDeepDist.dat``). :func:`open_book`
reads those and the Cadot and Pons formats behind one interface.
"""

__version__ = "0.1.0"

#: the error family (:mod:`openingbook.errors`): ``except openingbook.Error`` catches
#: every failure of the library and of the solver
_ERRORS = (
    "BookClosed",
    "BookFileError",
    "BookFileMissing",
    "Error",
    "InvalidArgument",
    "MissingExtra",
    "NotEnoughMemory",
    "OutputDirectoryMissing",
    "OutputError",
    "OutputExists",
    "PositionNotInBook",
    "SearchTimeout",
    "WorkDirError",
)

__all__ = ["__version__", "open_book", *_ERRORS]


def __getattr__(name: str) -> object:
    """``open_book`` and the errors are loaded on first use: ``import openingbook``
    stays cheap, so the command line starts (and answers Ctrl-C) before numpy and
    numba are loaded."""
    if name == "open_book":
        from openingbook.api import open_book

        return open_book
    if name in _ERRORS:
        from openingbook import errors

        return getattr(errors, name)
    raise AttributeError(f"module 'openingbook' has no attribute {name!r}")
