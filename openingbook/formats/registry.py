"""The format registry: every book format, its detection, reader and writer.

Its public face is :mod:`openingbook.formats`; a format's module does not import it.

Each entry is a :class:`~openingbook.formats.base.Format`, defined in its format's
module (:mod:`.thill`, :mod:`.compact`, :mod:`.cadot`, :mod:`.pons`, :mod:`.uci`,
:mod:`.tabular`, :mod:`.npz`, :mod:`.parquet`): a name, ``sniff`` (does a file look like
this format?), ``open`` (a reader keeping the one
reader contract of :class:`~openingbook.answers.BookReader`) and
``write`` (a :class:`~openingbook.model.BookModel` to a file).

============  ====  =====  ==========================================================
format        read  write  boards
============  ====  =====  ==========================================================
``compact``   yes   yes    any (``.c4b``: magic bytes, header with the board)
``pons``      yes   yes    any (header with the board; the file exactly as announced)
``thill``     yes   yes    7x6 (manifest, Thill's file names, or the records' content)
``cadot``     yes   yes    7x6 (7-byte records; sampled keys valid and ascending)
``uci``       no    yes    7x6 (Tromp's CSV lines: no ply, no scope to read back)
``jsonl``     no    yes    7x6
``csv``       no    yes    7x6
============  ====  =====  ==========================================================

Detection is :func:`detect`'s alone: the formats whose usual
file name ending the file has are asked first, then the others in the order
above; a file that no format recognises is refused (:class:`BookFileError`
naming what was tried), never opened as the format that sniffs weakest. A
suffix alone never decides: the content must fit.

Writing lives here too: every book the project writes (``build``, ``derive``,
``merge``, ``convert``, ``export``) is a :class:`~openingbook.model.BookModel`
written by its format's ``write`` (atomically), and :func:`output_format` is the one
rule of which format an output is written in. :func:`load_book` is the one way to
load a whole book.

>>> from openingbook.booknames import resolve_book
>>> detect(resolve_book("8")).name, readable_formats()
('compact', ('compact', 'pons', 'thill', 'cadot'))
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from openingbook.answers import BookReader
from openingbook.atomicio import check_writable, refuse_existing
from openingbook.errors import (
    BookFileError,
    BookFileMissing,
    ForeignBook,
    InvalidArgument,
    reads_book,
)
from openingbook.formats.base import (
    KINDS,
    Format,
    WrittenBook,
)
from openingbook.formats.compact import COMPACT_SUFFIX, CompactFormat
from openingbook.solver import DEFAULT_BOARD, BoardSize

if TYPE_CHECKING:
    from openingbook.formats.thill import BookFormat, Records
    from openingbook.model import BookModel

__all__ = [
    "KINDS",
    "BookReader",
    "Format",
    "Layout",
    "WrittenBook",
    "as_format",
    "book_files",
    "check_compact_output",
    "check_output",
    "describe",
    "detect",
    "detect_own",
    "format_named",
    "format_of",
    "is_pruned",
    "layout_name",
    "load_book",
    "lookup_source",
    "open_book",
    "output_format",
    "own_formats",
    "parse_layout",
    "read_model",
    "read_records",
    "readable_formats",
    "solved_book_writer",
]


class Layout(Protocol):
    """A record layout of a format whose files come in several (Thill's: ``--format
    12-dist``, :func:`parse_layout`), as callers see it: its name, ply, whether it holds
    distances, and one line describing it."""

    name: str
    plies: int
    distances: bool

    def describe(self) -> str: ...


#: bytes read for sniffing (the longest header any format needs)
_HEAD_BYTES = 64


#: the compact format: the shipped books' (and the engine's), known without the registry
_COMPACT = CompactFormat()


@functools.cache
def _registry() -> dict[str, Format]:
    """Every format, in the order detection asks them. Built on first use, so that a
    command that only reads compact books (``analyze``, ``best``) loads no other format's
    module."""
    from openingbook.formats.cadot import CadotFormat
    from openingbook.formats.npz import NpzFormat
    from openingbook.formats.parquet import ParquetFormat
    from openingbook.formats.pons import PonsFormat
    from openingbook.formats.tabular import CsvFormat, JsonlFormat
    from openingbook.formats.thill import ThillFormat
    from openingbook.formats.uci import UciFormat

    return {
        f.name: f
        for f in (
            _COMPACT,
            PonsFormat(),
            ThillFormat(),
            CadotFormat(),
            UciFormat(),
            JsonlFormat(),
            CsvFormat(),
            NpzFormat(),
            ParquetFormat(),
        )
    }


def __getattr__(name: str) -> Any:
    # ``FORMATS`` (every format by name) is the registry, built when first asked for
    if name == "FORMATS":
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def format_named(name: str) -> Format:
    """The registry entry called ``name``; :class:`InvalidArgument` naming the choices."""
    return as_format(name)


def as_format(format: Format | str, argument: str = "format") -> Format:
    """``format`` as a registry entry: an entry as it is, a name (``"compact"``, the text of
    a ``--format`` option) the entry of that name (:class:`InvalidArgument` naming
    ``argument`` and the choices)."""
    if isinstance(format, Format):
        return format
    if format == _COMPACT.name:
        return _COMPACT
    entry = _registry().get(format)
    if entry is None:
        raise InvalidArgument(
            f"choose one of {', '.join(_registry())}", argument=argument, value=format
        )
    return entry


def format_of(book: BookReader) -> Format:
    """The registry entry of an open reader's format."""
    return format_named(book.format_name)


def readable_formats() -> tuple[str, ...]:
    """The names of the formats that can be read (``open_book``'s ``format``)."""
    return tuple(name for name, f in _registry().items() if f.readable)


def own_formats() -> tuple[Format, ...]:
    """This project's own formats (:attr:`Format.own`): what ``build``, ``derive`` and
    ``convert`` write."""
    return tuple(f for f in _registry().values() if f.own)


def book_files(path: str | os.PathLike[str], format: Format | None = None) -> list[Path]:
    """The book at ``path`` and the files beside it (a manifest): of ``format``, else of
    any format that writes files beside its books (what a command must never write over
    when it reads ``path``)."""
    formats = [format] if format is not None else _registry().values()
    return [Path(path), *(side for f in formats for side in f.side_files(path))]


def parse_layout(text: str) -> Layout:
    """A record layout of Thill's format from its name (``"8"``, ``"12-dist"``,
    ``"12-ply-dist"``, one of Thill's file names: the ``--format`` of a Thill-layout book);
    :class:`InvalidArgument` for any other text."""
    from openingbook.formats.thill import BookFormat

    return BookFormat.parse(text)


def layout_name(plies: int, distances: bool, board: BoardSize) -> str:
    """The name of the record layout of a ``plies``-stone book (``"12-ply-dist"``,
    ``"6x5-8-ply"``): what build, derive and merge report and record as a book's format.

    >>> layout_name(12, True, BoardSize(7, 6)), layout_name(8, False, BoardSize(6, 5))
    ('12-ply-dist', '6x5-8-ply')
    """
    from openingbook.formats.thill import BookFormat

    return BookFormat.for_plies(plies, distances, *board).name


def output_format(
    output: str | os.PathLike[str] | None,
    format: Format | None,
    *,
    writes: tuple[Format, ...],
    default: Format | None,
    board: BoardSize | None,
    argument: str = "format",
) -> Format:
    """The format a command writes ``output`` in, one of ``writes``: ``format`` as given,
    else the format whose usual name ending ``output`` has (``.c4b`` compact, ``.dat``
    Thill, ...), else ``default`` (None: the name must tell).

    One rule for every command that writes books: a name that ends as another
    format's books do is refused (:class:`InvalidArgument` naming ``argument``, the
    option that chose the format), never written in a format its name belies; a
    compact book's name ends in ``.c4b``; Thill's layout is of the 7x6 board only
    (``board``: the book's, None when not known yet: the Thill writer refuses it then).

    >>> thill, compact = format_named("thill"), format_named("compact")
    >>> output_format("b.c4b", None, writes=(thill, compact), default=thill,
    ...               board=BoardSize(7, 6)).name
    'compact'
    >>> output_format("b.c4b", thill, writes=(thill, compact), default=thill, board=BoardSize(7, 6))
    Traceback (most recent call last):
    ...
    openingbook.solver.errors.InvalidArgument: format thill: b.c4b is named as a compact book ...
    """
    names = [w.name for w in writes]
    if format is not None and format not in writes:
        raise InvalidArgument(
            f"choose one of {', '.join(names)}", argument=argument, value=format.name
        )
    out = None if output is None else Path(output)
    suffix = "" if out is None else out.suffix.lower()
    named = next((f for f in _registry().values() if suffix and suffix in f.suffixes), None)
    if format is not None and named not in (None, format):
        assert named is not None
        raise InvalidArgument(
            f"{out} is named as a {named.name} book ({suffix}): name a {format.name} book "
            f"*{format.suffixes[0]}, or leave the option out",
            argument=argument,
            value=format.name,
        )
    if format is None and named is not None and named not in writes:
        choices = " or ".join(f"*{w.suffixes[0]}" for w in writes)
        raise InvalidArgument(
            f"{out} is named as a {named.name} book ({suffix}), and this command writes "
            f"{' or '.join(names)} books: name it {choices}"
        )
    chosen = format or named or default
    if chosen is None:
        choices = ", ".join(f"{w.suffixes[0]} {w.name}" for w in writes)
        raise InvalidArgument(
            f"is needed: cannot tell the output format from the name {out} ({choices})",
            argument=argument,
        )
    if not chosen.any_board and board is not None:
        chosen.check_book(board, None)  # Thill's layout: 7x6 only
    if chosen is _COMPACT and out is not None and suffix != COMPACT_SUFFIX:
        raise InvalidArgument(f"{out}: a compact book's name ends in {COMPACT_SUFFIX}")
    return chosen


@reads_book
def check_output(fmt: Format, out: str | os.PathLike[str], force: bool) -> None:
    """Refuse, before any work, an output ``fmt`` cannot write: what the format refuses
    (:meth:`Format.check_output`: Thill's manifest beside the book), then one that exists
    (without ``force``) or cannot be written (:mod:`openingbook.atomicio`)."""
    fmt.check_output(out, force)
    refuse_existing(out, force)
    check_writable(out)


def detect(path: str | os.PathLike[str]) -> Format:
    """The format of the file at ``path`` (see the module docstring).

    :class:`BookFileMissing` when there is no file, :class:`BookFileError` for a
    directory or a file no format recognises.
    """
    p = Path(path)
    if not p.exists():
        for fmt in _registry().values():  # an interrupted write: the reader says so
            if any(side.exists() for side in fmt.side_files(p)):
                return fmt
        raise BookFileMissing(p)
    if p.is_dir():
        raise BookFileError(f"{p}: is a directory, not a book")
    size = p.stat().st_size
    with open(p, "rb") as fh:
        head = fh.read(_HEAD_BYTES)
    suffix = p.suffix.lower()
    if suffix in _COMPACT.suffixes and _COMPACT.sniff(p, head, size):
        return _COMPACT  # the shipped books: no other format's module is loaded
    readable = [f for f in _registry().values() if f.readable]
    by_name = [f for f in readable if suffix in f.suffixes]
    for fmt in itertools.chain(by_name, (f for f in readable if f not in by_name)):
        if fmt.sniff(p, head, size):
            return fmt
    if size == 0:
        raise BookFileError(f"{p}: empty file")
    reasons = "; ".join(f.why_not(p) for f in readable)
    raise BookFileError(f"{p}: not a book in a known format ({reasons})")


def detect_own(path: str | os.PathLike[str], command: str, takes: str) -> Format:
    """``path``'s format when it is one of this project's own (Thill or compact).

    Another engine's book (Pons, Cadot) is refused with :class:`ForeignBook`
    naming its format and what ``command`` takes instead (``takes``), so that no
    command mistakes it for a damaged book of its own. :func:`detect`'s errors
    pass through.
    """
    fmt = detect(path)
    if not fmt.own:
        raise ForeignBook(f"{path}: a {fmt.name} book; {command} takes {takes}")
    return fmt


@reads_book
def open_book(
    path: str | os.PathLike[str],
    format: Format | str | None = None,
    layout: BookFormat | str | None = None,
    **options: Any,
) -> BookReader:
    """Open a book file (or a shipped book by name, e.g. ``"12-dist"``), whatever its format.

    ``format`` forces a format of the registry (an entry or its name; default:
    :func:`detect`); ``layout`` forces a record layout of Thill's format (a
    :class:`Layout` of :func:`parse_layout`, or its name such as ``"12-dist"``).
    ``options``: ``check``/``verify`` (Thill: read and check the whole file first; by
    default the sha256 against its manifest only, ``verify=False``: not even that),
    ``verify`` (compact: the checksum, default on). ``book.unchecked`` says why a book
    was not checked before its first answer (None: it was).
    Every reader keeps the contract of :class:`BookReader`.

    >>> from openingbook.solver import Position
    >>> with open_book("8") as book:
    ...     book.format_name, book.get(Position.from_moves("44444455")).winner.value
    ('compact', 'first')
    """
    from openingbook.booknames import resolve_book

    p = resolve_book(path)
    if isinstance(layout, str):
        layout = parse_layout(layout)
    if format is None and layout is not None:
        format = next(f for f in _registry().values() if f.layouts)
    if format is None:
        entry = detect(p)
    else:
        entry = as_format(format)
        if layout is not None and not entry.layouts:
            raise InvalidArgument(f"a Thill layout was given, but the format is {entry.name}")
        if not entry.readable:
            raise InvalidArgument(
                f"the {entry.name} format is written, never read back; read one of "
                f"{', '.join(readable_formats())}",
                argument="format",
                value=entry.name,
            )
        if not p.exists():
            detect(p)  # no file: BookFileMissing, or the Thill reader names an interrupted write
    unknown = sorted(set(options) - entry.open_options)
    if unknown:
        takes = ", ".join(sorted(entry.open_options)) or "none"
        raise InvalidArgument(
            f"open_book: unknown option {unknown[0]!r} for a {entry.name} book "
            f"(its options: {takes})",
            argument=unknown[0],
        )
    return entry.open(p, fmt=layout, **options)


@reads_book
def load_book(
    path: str | os.PathLike[str],
    format: Format | str | None = None,
    *,
    complete: bool = True,
    **options: Any,
) -> BookModel:
    """Every position the book at ``path`` answers, with its answer (see the module
    docstring). ``format`` and ``options`` (``layout``, ...) as for
    :func:`openingbook.formats.open_book`.

    The one way to load a whole book. ``complete=False``: a Thill-layout file as it
    is stored, for the commands that check or combine its records (``validate``,
    ``diff``, ``check``, ``stats``, ``derive``, ``merge``): every record read and
    checked (values, order, legal positions, sha256 against its manifest), the model's
    positions those of the records in file order, ``model.stored`` the layout and
    records, and a pruned book's left-out first-player wins not added (its reader's
    rule answers them). Other formats store what they answer: the same either way.

    >>> model = load_book("8", complete=False)
    >>> len(model), model.stored is None
    (77715, True)
    """
    with open_book(path, format, **options) as book:
        return read_model(book, complete)


def read_model(book: BookReader, complete: bool = True) -> BookModel:
    """The :class:`BookModel` of an open reader (what :func:`load_book` returns for its
    file): every position it answers, asked in one bulk lookup, or with ``complete=False``
    a Thill-layout file's records as stored."""
    from openingbook.model import BookModel

    source = {
        "provenance": book.provenance,
        "source": str(Path(book.path)),
        "source_format": book.format_name,
        "records": book.records,
    }
    pruned = is_pruned(book)
    if not complete:
        stored = format_of(book).stored_model(book, pruned, source)
        if stored is not None:
            return stored
    # piece by piece (a big book part by part): the enumeration of the whole ply and the
    # lookups' working arrays are never in memory beside each other
    pieces: list[tuple[np.ndarray, ...]] = []
    for first, mask in book.position_pieces():
        first = np.ascontiguousarray(first, dtype=np.uint64)
        mask = np.ascontiguousarray(mask, dtype=np.uint64)
        bulk = book.lookup_many(first, mask)
        answers = (bulk.winner.astype(np.int8), bulk.plies.astype(np.int16))
        pieces.append((first, mask, *answers, bulk.score.astype(np.int16)))
    first, mask, winner, plies_to_end, score = (
        np.concatenate([piece[i] for piece in pieces]) for i in range(5)
    )
    del pieces
    return BookModel(
        board=book.board,
        plies=int(book.plies if book.plies is not None else 0),
        kind=book.kind,
        first=first,
        mask=mask,
        winner=winner,
        plies_to_end=plies_to_end,
        score=score,
        scope=book.scope,
        pruned=pruned,
        **source,
    )


@contextlib.contextmanager
def lookup_source(path: str | os.PathLike[str]) -> Iterator[BookModel | BookReader]:
    """The book at ``path`` for the bulk lookups of a derivation or a validation: a
    file of Thill's layouts loaded as stored (:func:`load_book` with ``complete=False``:
    every record read and checked, its layout and records kept), any other the open
    reader, which answers every lookup from its file (a compact book: nothing of it
    loaded, whatever its size)."""
    from openingbook.booknames import resolve_book

    if detect(resolve_book(path)).layouts:
        yield load_book(path, complete=False)
        return
    with open_book(path) as book:
        yield book


def is_pruned(book: BookReader) -> bool:
    """Does the open book's file leave the first player's wins out (a pruned Thill
    book, answered by its rule)?"""
    return format_of(book).prunes and book.kind == "wdl"


def read_records(
    path: str | os.PathLike[str], layout: BookFormat | str | None = None
) -> tuple[BookFormat, Records]:
    """The layout and records of a Thill-layout book file as stored (file order), every
    record checked: ``load_book(path, "thill", layout=layout, complete=False).stored``.

    >>> from openingbook.booknames import resolve_book
    >>> fmt, records = read_records(resolve_book("8").with_suffix(".dat"))
    >>> fmt.name, len(records)
    ('8-ply', 28922)
    """
    layouts = next(f for f in _registry().values() if f.layouts)
    stored = load_book(path, layouts, layout=layout, complete=False).stored
    assert stored is not None  # a Thill book is always loaded with its records
    return stored


@reads_book
def describe(
    path: str | os.PathLike[str],
    format: Format | str | None = None,
    layout: BookFormat | None = None,
    *,
    full: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """What ``openingbook info`` prints for the book at ``path``, as a JSON-ready dict.

    Compact and Thill books have their own full reports
    (:func:`openingbook.formats.compact.describe_compact`, which ``full`` and ``progress``
    are for; :func:`openingbook.formats.thill.describe_book`); any other format is read whole
    through its reader: every answer is checked possible for its position (a damaged
    file is refused), and the report gives the board, ply, kind, records, the
    positions answered and their values. Such a file has no checksum: its values are
    checked against a shipped complete book of its board and ply where there is one
    (:func:`_values_check`), and ``not_checked`` says so where there is none.
    """
    p = Path(path)
    entry = detect(p) if format is None else as_format(format)
    report = entry.describe_file(p, layout, full=full, progress=progress)
    if report is not None:
        return report
    model = load_book(p, entry)
    values = {
        "draw": int((model.winner == 0).sum()),
        "first": int((model.winner == 1).sum()),
        "second": int((model.winner == -1).sum()),
    }
    board = "" if model.board == DEFAULT_BOARD else f"{model.board} "
    checks: dict[str, str] = {}
    not_checked: dict[str, str] = {}
    result = _values_check(model, entry.name)
    if result.startswith(_NOT_AVAILABLE):
        not_checked["values"] = result
    else:
        checks["values"] = result
    if entry.no_checksum is not None:
        not_checked["checksum"] = f"{_NOT_AVAILABLE}: {entry.no_checksum}"
    return {
        "path": str(path),
        "format": entry.name,
        "description": f"{board}{entry.description}",
        "board": str(model.board),
        "plies": model.plies,
        "kind": model.kind,
        "scope": model.scope.describe(),
        "manifest": None,
        "records": model.records,
        "positions": len(model),
        "bytes": p.stat().st_size,
        "values": values,
        "checks": checks,
        "not_checked": not_checked,
        "ok": all(v == "ok" for v in checks.values()),
    }


_NOT_AVAILABLE = "not available"


def _values_check(model: BookModel, kind: str) -> str:
    """``"ok"`` when every value of ``model`` (a file of the format ``kind``) agrees
    with a shipped complete book of its board and ply (winners, and plies where both
    have distances); else the disagreement, or why the check is not available.

    A format without a checksum can hold any plausible value; the shipped books are
    checked whole against theirs, so they are what a value is compared with."""
    from openingbook.booknames import book_name, shipped_paths
    from openingbook.formats.compact import CompactBook

    stones = np.bitwise_count(model.mask)
    reference: Path | None = None
    for candidate in shipped_paths():  # a distance book first: it checks the plies too
        try:
            with CompactBook(candidate, verify=False) as book:
                fits = (book.board, book.plies) == (model.board, model.plies) and (
                    book.under is None and book.part is None
                )
                if fits and (reference is None or book.kind != "wdl"):
                    reference = candidate
        except BookFileError:
            continue  # a damaged shipped book is no reference (``books`` flags it)
    if reference is None:
        return (
            f"{_NOT_AVAILABLE} for {kind}: no shipped complete {model.board} "
            f"{model.plies}-ply book to compare its values with"
        )
    at_ply = np.flatnonzero(stones == model.plies)
    with CompactBook(reference) as book:  # the checksum too: a reference must be sound
        truth = book.lookup_many(model.first[at_ply], model.mask[at_ply], strict=False)
        distances = book.kind != "wdl" and model.has_distances
    differ = truth.winner != model.winner[at_ply]
    if distances:
        differ |= truth.plies != model.plies_to_end[at_ply]
    if not differ.any():
        return "ok"
    from openingbook.solver import Position

    i = int(at_ply[np.argmax(differ)])
    moves = Position.from_bitboards(
        int(model.first[i]), int(model.mask[i]), *model.board
    ).some_moves()
    return (
        f"{int(differ.sum()):,} of {len(at_ply):,} positions disagree with the shipped "
        f"{book_name(reference)} book (first: {moves})"
    )


# ------------------------------------------------------------------ writing books
# The rule of which format a build, derivation or merge writes, and the check of its
# output before any work.
def check_compact_output(out: Path, force: bool, what: str) -> None:
    """A part, or parts merged, make a compact book: its name ends in ``.c4b``; an existing
    file needs force. ``what``: the start of the message (``"a part is written"``)."""
    if out.suffix.lower() != COMPACT_SUFFIX:
        raise InvalidArgument(
            f"{what} as a compact book: its name ends in {COMPACT_SUFFIX}",
            argument="output",
            value=str(out),
        )
    refuse_existing(out, force)


def solved_book_writer(
    output: str | os.PathLike[str] | None,
    format: Format | str | None,
    board: BoardSize,
    part: tuple[int, int] | None = None,
) -> Format:
    """The format a build or derivation writes its solved values in.

    A part of a ply (``part``): the format that holds parts. Else :func:`output_format`
    decides among this project's own formats: ``format`` as given (refused when the
    output's name is another format's, and Thill's layout on boards other than 7x6: it
    does not record its board), else by the output's name (``.c4b`` compact, ``.dat``
    Thill), else Thill's layout on 7x6 and compact on other boards. A compact output
    must end in ``.c4b``.

    >>> solved_book_writer("b.dat", None, BoardSize(7, 6)).name
    'thill'
    >>> solved_book_writer(None, None, BoardSize(6, 5)).name
    'compact'
    """
    if part is not None:
        return next(f for f in _registry().values() if f.holds_parts)
    writes = own_formats()
    layouts = next(f for f in writes if f.layouts)
    default = layouts if board == DEFAULT_BOARD else _COMPACT
    chosen = None if format is None else as_format(format)
    return output_format(output, chosen, writes=writes, default=default, board=board)
