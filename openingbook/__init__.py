"""openingbook: generate, encode, read and validate Connect-4 opening books.

The book files are byte-compatible with Markus Thill's published books
(``book.dat``, ``bookDeep.dat``, ``bookDeepDist.dat``). :func:`open_book`
reads those and the Cadot and Pons formats behind one interface.

The package exports :func:`open_book`, :class:`Oracle` (perfect play for batches
of positions, :mod:`openingbook.oracle`) and the error family of
:mod:`openingbook.errors` (its ``__all__``): ``except openingbook.Error`` catches
every failure of the library and of the solver.

>>> import openingbook
>>> openingbook.BookFileError.__module__, "OutputNotReplaceable" in openingbook.__all__
('openingbook.errors', True)
"""

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    """``open_book``, the errors and ``__all__`` are loaded on first use: ``import
    openingbook`` stays cheap, so the command line starts (and answers Ctrl-C) before
    numpy and numba are loaded. Only capitalised names are looked up in
    :mod:`openingbook.errors` (the classes; submodules are lowercase), so that ``from
    openingbook import cli`` does not load it."""
    if name == "open_book":
        from openingbook.api import open_book

        return open_book
    if name in ("Oracle", "OracleAnswer"):
        from openingbook import oracle

        return getattr(oracle, name)
    if name == "__all__":
        from openingbook import errors

        return ["__version__", "Oracle", "OracleAnswer", "open_book", *errors.__all__]
    if name[:1].isupper():
        from openingbook import errors

        if name in errors.__all__:
            return getattr(errors, name)
    raise AttributeError(f"module 'openingbook' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__getattr__("__all__")})  # type: ignore[misc]
