"""The base of the format registry's entries, :class:`Format`.

An entry is a name, ``sniff`` (does this file look like mine?), ``open`` (a reader:
an :class:`openingbook.answers.BookReader`, the one reader contract) and ``write``
(a :class:`openingbook.model.BookModel` to a file). The contract itself lives in
:mod:`openingbook.answers`, below the readers, since the registry imports them.
"""

from __future__ import annotations

import os
from abc import ABC
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from openingbook.errors import BookFileError, InvalidArgument
from openingbook.solver import DEFAULT_BOARD
from openingbook.values import KINDS, value_from_arrays

__all__ = [
    "KINDS",
    "Format",
    "WrittenBook",
    "require_7x6",
    "require_writable",
    "value_from_arrays",
]


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
    #: of :attr:`open_options`, the whole-file checks that are off unless asked for
    #: (``lookup --check/--verify``)
    checks_on_request: ClassVar[frozenset[str]] = frozenset()
    #: the keyword options :meth:`export` takes (``export_book`` refuses the others)
    export_options: ClassVar[frozenset[str]] = frozenset()
    #: one of this project's own formats: a file holds one ply (or a scope of it), the
    #: record of how it was made, and is what the engine, ``convert`` and ``merge`` read
    own: ClassVar[bool] = False
    #: does a file say which of several record layouts it has (``open_book(layout=...)``
    #: forces one)?
    layouts: ClassVar[bool] = False
    #: can a file be part ``i`` of ``n`` of a ply (``build --part``, merged by ``merge``)?
    holds_parts: ClassVar[bool] = False
    #: does ``convert`` write a book of an older version of the format again in the
    #: current one (``convert OLD NEW`` within the format)?
    reencodes: ClassVar[bool] = False
    #: can a file be a sample or a shard of a ply (recorded in its manifest)?
    holds_samples: ClassVar[bool] = False
    #: is the record of how the book was made a manifest file beside the book (else it
    #: is inside the file, or there is none)?
    separate_manifest: ClassVar[bool] = False
    #: does ``export`` write the book as its positions come (:meth:`export_stream`: rows
    #: of text, in the book's order), rather than from the whole book in memory?
    streams: ClassVar[bool] = False
    #: does ``export`` take the open reader, looking up what it writes (a labelled data
    #: set: every move's value), rather than the whole book in memory?
    exports_from_lookups: ClassVar[bool] = False
    #: does ``export`` gather a book that is its ply's enumeration piece by piece
    #: (:meth:`export_pieces`: a few bytes a position, the book never loaded), rather than
    #: from the whole book in memory?
    exports_pieces: ClassVar[bool] = False
    #: does a book without distances leave the first player's wins out of its file (the
    #: reader's rule answers them)?
    prunes: ClassVar[bool] = False
    #: is a file lines of text (so ``export -o -`` can write it to standard output)?
    text: ClassVar[bool] = False
    #: why a file of the format cannot be checked before it answers (it has no checksum
    #: nor manifest), as ``info`` and a reader's ``unchecked`` say it; None: it can be
    no_checksum: ClassVar[str | None] = None

    def __str__(self) -> str:
        # as the text of a ``--format`` option: a recorded command names the format
        return self.name

    def side_files(self, path: str | os.PathLike[str]) -> list[Path]:
        """The files written beside a book at ``path`` (a manifest): none by default."""
        return []

    def record_of(self, path: str | os.PathLike[str], verify: bool = False) -> Any:
        """The record of how the book at ``path`` was made, as the format keeps it (a
        manifest's content), or None; ``verify``: the whole file compared with it first."""
        return None

    def describe_file(self, path: Path, layout: Any = None, **options: Any) -> Any:
        """The format's own report of the file for ``openingbook info`` (a JSON-ready
        dict), or None: the report of every format (the book read whole)."""
        return None

    def stored_model(self, book: Any, pruned: bool, source: dict[str, Any]) -> Any:
        """The model of an open reader's file as stored (its records in file order, for
        record-level checks), or None: the format stores what it answers."""
        return None

    def sniff(self, path: Path, head: bytes, size: int) -> bool:
        """Does the file (its first bytes ``head``, ``size`` bytes long) look like this
        format? Cheap: reads at most a few records."""
        return False

    def why_not(self, path: Path) -> str:
        """Why :meth:`sniff` said no (for the refusal of a file no format recognises)."""
        return f"not a {self.name} file"

    def open(self, path: Path, **options: Any) -> Any:  # an answers.BookReader
        """A reader of the file; :class:`BookFileError` when it is not of this format."""
        raise BookFileError(f"{path}: the {self.name} format is written, never read back")

    def check_book(self, board: Any, plies: int) -> None:
        """Refuse, before any work, a book of ``board`` (a :class:`openingbook.solver.BoardSize`)
        and
        ``plies`` that this format cannot hold (:class:`InvalidArgument`); its writer
        refuses it again. Nothing to refuse by default."""
        return

    def check_output(self, out: str | os.PathLike[str], force: bool) -> None:
        """Refuse, before any work, an output this format cannot write beyond the rule of
        every output (:func:`openingbook.formats.registry.check_output` applies both): nothing
        more by default."""
        return

    def refuse_export(self, book: Any, **options: Any) -> None:
        """Refuse, before any position is read, a book (an open
        :class:`~openingbook.answers.BookReader`) this format cannot export with these
        options, from what its header tells (board, ply, kind). Default: a board other
        than 7x6 for a format of 7x6 only (:func:`require_7x6`)."""
        if not self.any_board:
            require_7x6(book, self.name)

    def export_stream(
        self, book: Any, out: str | os.PathLike[str], **options: Any
    ) -> tuple[int, dict[str, Any], int]:
        """Write the open ``book`` at ``out`` as its positions come
        (:meth:`~openingbook.answers.BookReader.position_pieces`), for a format whose
        :attr:`streams`: the positions written, the summary's ``details`` and the
        first-player wins among them."""
        raise InvalidArgument(f"the {self.name} format is not written as a stream", argument="fmt")

    def export_pieces(
        self, book: Any, out: str | os.PathLike[str], **options: Any
    ) -> tuple[int, dict[str, Any], int]:
        """Write the open ``book``, whose positions are its ply's enumeration, at ``out``
        from its :meth:`~openingbook.answers.BookReader.position_pieces`, for a format whose
        :attr:`exports_pieces`: the positions written, the summary's ``details`` and the
        first-player wins among them."""
        raise InvalidArgument(f"the {self.name} format is not written by pieces", argument="fmt")

    def export(
        self, model: Any, out: str | os.PathLike[str], **options: Any
    ) -> tuple[int, dict[str, Any]]:
        """Write ``model`` at ``out`` for ``export``: the positions written and what the
        export's summary says of them (``details``)."""
        return self.write(model, out, **options), {"distances": model.has_distances}

    def write(self, model: Any, out: str | os.PathLike[str], **options: Any) -> Any:
        """Write ``model`` (a :class:`~openingbook.model.BookModel`) as this format
        at ``out`` (atomically); the format's summary."""
        raise InvalidArgument(f"the {self.name} format cannot be written", argument="fmt")


def require_writable(model: Any, name: str, scope: bool) -> None:
    """Refuse a model the book format ``name`` cannot hold: a distance or score book
    without every distance, and (``scope``) a book that is neither complete nor every
    position under a line (a sample or shard needs its record to say so)."""
    if model.kind != "wdl":
        model.require_distances(name)
    if scope and (not model.scope.known or model.scope.partial):
        raise BookFileError(
            f"{model.source}: the book is {model.scope.describe()}; the {name} format holds "
            "complete books and books under a line only"
        )


def require_7x6(model: Any, name: str) -> None:
    """Refuse a model (or an open reader) of another board than 7x6 for the format
    ``name``, of 7x6 only."""
    if model.board != DEFAULT_BOARD:
        source = getattr(model, "source", None) or getattr(model, "path", "the book")
        raise InvalidArgument(
            f"the {name} format is of the 7x6 board; {source} is a {model.board} book",
            argument="fmt",
            value=name,
        )
