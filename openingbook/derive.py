"""``openingbook.derive``, kept for one release (CHANGELOG.md): an alias of
:mod:`openingbook.pipeline.derive` and :mod:`openingbook.pipeline.negamax`; import from
there."""

from openingbook.pipeline.derive import DeriveSummary, derive_book
from openingbook.pipeline.negamax import (
    Derivation,
    DerivedValues,
    LeafLookup,
    book_leaves,
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
