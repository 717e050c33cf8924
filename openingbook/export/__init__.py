"""The format modules of other engines' books: Cadot's records (:mod:`.cadot`, read and
written), Pons' tables (:mod:`.pons`, read and written), UCI / Tromp lines
(:mod:`.uci`) and JSON Lines / CSV (:mod:`.tabular`), written only.

They are entries of the format registry (:mod:`openingbook.formats`), which recognises
files and opens them; :func:`openingbook.pipeline.export.export_book` writes any
readable book in one of them.
"""

from __future__ import annotations

from openingbook.export.cadot import CadotBook
from openingbook.export.pons import PonsBook

__all__ = ["CadotBook", "PonsBook"]
