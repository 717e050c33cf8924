"""The base of the format registry's entries, :class:`Format`.

An entry is a name, ``sniff`` (does this file look like mine?), ``open`` (a reader:
an :class:`openingbook.answers.BookReader`, the one reader contract, re-exported
here with ``KINDS``) and ``write`` (a :class:`openingbook.model.BookModel` to
a file). The contract itself lives in :mod:`openingbook.answers`, below the readers,
since the registry imports them.
"""

from __future__ import annotations

import os
from abc import ABC
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from openingbook.answers import BookReader
from openingbook.errors import BookFileError, InvalidArgument
from openingbook.values import KINDS, value_from_arrays

if TYPE_CHECKING:
    from openingbook.model import BookModel

__all__ = ["KINDS", "BookReader", "Format", "WrittenBook", "value_from_arrays"]


@dataclass(frozen=True)
class WrittenBook:
    """What the writer of a book format (Thill's layout, compact) wrote: the book, its
    records (a compact book: its positions) and its manifest (None: the format keeps
    the record of how the book was made inside the file)."""

    path: Path
    records: int
    manifest: Path | None = None


class Format(ABC):
    """An entry of the format registry: one file format, its sniffing, reader and writer.

    ``readable``/``writable`` say what the format supports; a write-only format
    (an export that cannot be read back) refuses ``open`` with one line.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    #: file name endings usual for the format (a hint for writers; never enough to read)
    suffixes: ClassVar[tuple[str, ...]] = ()
    readable: ClassVar[bool] = True
    writable: ClassVar[bool] = True
    #: does the format hold books of boards other than 7x6?
    any_board: ClassVar[bool] = False
    #: the keyword options :meth:`open` takes (:func:`openingbook.open_book` refuses others)
    open_options: ClassVar[frozenset[str]] = frozenset()

    def sniff(self, path: Path, head: bytes, size: int) -> bool:
        """Does the file (its first bytes ``head``, ``size`` bytes long) look like this
        format? Cheap: reads at most a few records."""
        return False

    def why_not(self, path: Path) -> str:
        """Why :meth:`sniff` said no (for the refusal of a file no format recognises)."""
        return f"not a {self.name} file"

    def open(self, path: Path, **options: Any) -> BookReader:
        """A reader of the file; :class:`BookFileError` when it is not of this format."""
        raise BookFileError(f"{path}: the {self.name} format is written, never read back")

    def check_output(self, out: str | os.PathLike[str], force: bool) -> None:
        """Refuse, before any work, an output this format cannot write: one that exists
        (without ``force``) or cannot be written (:mod:`openingbook.atomicio`)."""
        from openingbook.atomicio import check_writable, refuse_existing

        refuse_existing(out, force)
        check_writable(out)

    def write(self, model: BookModel, out: str | os.PathLike[str], **options: Any) -> Any:
        """Write ``model`` as this format at ``out`` (atomically); the format's summary."""
        raise InvalidArgument(f"the {self.name} format cannot be written", argument="fmt")
