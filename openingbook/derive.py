"""``openingbook.derive``, kept for one release (CHANGELOG.md): an alias of
:mod:`openingbook.pipeline.derive`; import from there."""

from openingbook.pipeline.derive import (
    Derivation,
    DerivedValues,
    DeriveSummary,
    LeafLookup,
    book_leaves,
    derive_book,
    derive_values,
    negamax_layers,
)

__all__ = [
    "Derivation",
    "DeriveSummary",
    "DerivedValues",
    "LeafLookup",
    "book_leaves",
    "derive_book",
    "derive_values",
    "negamax_layers",
]
