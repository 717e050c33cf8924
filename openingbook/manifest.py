"""Book identity: what a book file is, from the file itself and its manifest.

A book we write has a JSON **manifest** beside it, named by one rule
(:func:`manifest_path`): the book's file name plus ``.json``
(``book12.dat`` -> ``book12.dat.json``). No other name is a manifest: a
``data.json`` beside ``data.dat`` is an unrelated file and is ignored.

The manifest says what the book is: its record layout (``format``: ply,
distances or pruned), its file (``book``: record count, byte size, sha256), its
**scope** (``selection``: every position of the ply, those under a line, a
sample or a shard) and its provenance (``command``, ``version``, ``created``).
:func:`read_manifest` reads it strictly (types, finite integers where counts are
expected): a manifest we cannot trust is a one-line :class:`BookFileError`.

:func:`identify` is the one way into a book file: it decides the format (an
explicit one, else the manifest's, else Thill's file names, else the content;
content that fits more than one layout is refused: pass the format), and
compares the file with it, cheaply: byte size and record count against the
manifest, and a spread sample of records (64 plus the first and the last) must
decode to legal positions of the format's ply. The sha256 is compared when the
whole file is read anyway (:meth:`BookIdentity.verify_sha256`).

The **scope** (:class:`Scope`) decides what a book may answer for a position it
does not store. Known from the manifest; without one, a pruned book is taken as
complete only when it is recognisably so (:func:`scope_without_manifest`), else
its scope is unknown and a missing position is not answered.

Writers (build, merge, derive) write book and manifest as one unit
(:func:`write_book_and_manifest`): both go to temporary files first, then the
old book (if ``force`` replaces one) is removed, the manifest renamed into place
and the book last. Every intermediate state is either the previous pair or a
manifest without its book, which no reader answers from ("interrupted write");
a rerun of the command replaces such an orphaned manifest without ``force``
(:func:`check_output`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openingbook
from openingbook.atomicio import check_writable, refuse_existing, write_together
from openingbook.bookfile import (
    THILL_NAMES,
    BookFormat,
    check_sample,
    check_size,
    content_formats,
    max_plies,
)
from openingbook.checks.booksizes import complete_positions
from openingbook.errors import BookFileError, InvalidArgument, OutputError
from openingbook.inputs import MAX_MANIFEST_BYTES, read_bounded, require_regular_file
from openingbook.model import Scope
from solver import (
    DEFAULT_BOARD,
    BoardSize,
    Position,
    parse_board_size,
)

__all__ = [
    "COMPLETE_AT_LEAST",
    "COMPLETE_RECORDS",
    "LAYOUT_VERSION",
    "MANIFEST_MARK",
    "BookIdentity",
    "Manifest",
    "check_output",
    "clean_command",
    "detect_format",
    "file_sha256",
    "identify",
    "load_manifest",
    "manifest_book_entry",
    "manifest_path",
    "manifest_provenance",
    "read_manifest",
    "recorded_command",
    "require_board",
    "scope_without_manifest",
    "write_book_and_manifest",
]

#: The ``manifest`` entry of every manifest we write.
MANIFEST_MARK = "openingbook book manifest"
#: Version of the manifest layout.
LAYOUT_VERSION = 1

#: Record counts of complete books without a manifest, by (plies, distances): a
#: file with at least this many records is complete for its ply. Pruned: our
#: complete 8- and 12-ply books (one record per mirror pair); Thill's ``book.dat``
#: (34,286 records, 102,858 bytes) and ``bookDeep.dat`` (1,735,945) reach them.
#: Distance books: every position of the ply (:mod:`openingbook.checks.booksizes`).
COMPLETE_RECORDS = {
    (8, False): 28_922,
    (12, False): 1_735_945,
    **{(plies, True): complete_positions(DEFAULT_BOARD, plies) for plies in (8, 12)},
}

#: The fewest records a book whose manifest says it is complete may hold, by (plies,
#: distances): :data:`COMPLETE_RECORDS`, except that Thill's published 8-ply file read
#: without its 5,593 duplicate mirror pairs holds 28,693 (229 positions are missing from
#: it, a known fault its readers answer as first-player wins; docs/FORMATS.md).
COMPLETE_AT_LEAST = {**COMPLETE_RECORDS, (8, False): 28_693}


# ------------------------------------------------------------------ paths, hashes
def manifest_path(book: str | os.PathLike[str]) -> Path:
    """The manifest of a book: its file name plus ``.json`` (``b.dat`` -> ``b.dat.json``).

    >>> manifest_path("books/book12.dat").as_posix()
    'books/book12.dat.json'
    """
    book = Path(book)
    return book.with_name(book.name + ".json")


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file's bytes (read in 1 MiB pieces)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ------------------------------------------------------------------ scope
def require_board(
    name: str | os.PathLike[str],
    have: BoardSize,
    want: BoardSize | None,
    argument: str | None = None,
) -> None:
    """Refuse to read a book of one board size as another: :class:`BookFileError`
    naming the file when ``want`` (the size the caller asked for) is given and differs;
    :class:`InvalidArgument` when ``want`` came from the argument ``argument``.

    >>> require_board("b.c4b", BoardSize(6, 5), BoardSize(7, 6))
    Traceback (most recent call last):
    ...
    openingbook.errors.BookFileError: b.c4b: a book of the 6x5 board, not 7x6
    """
    if want is not None and tuple(have) != tuple(want):
        message = f"{name}: a book of the {BoardSize(*have)} board, not {BoardSize(*want)}"
        if argument is not None:
            raise InvalidArgument(message, argument=argument, value=BoardSize(*want))
        raise BookFileError(message)


# ------------------------------------------------------------------ reading manifests
def _reject_constant(name: str) -> Any:
    raise BookFileError(f"{name} is not a number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BookFileError(f"{text} is not a finite number")
    return value


def _load_json(path: Path) -> Any:
    require_regular_file(path, "manifest")  # a FIFO would block the read forever
    try:
        with open(path, encoding="utf-8") as fh:
            text = read_bounded(fh, str(path), MAX_MANIFEST_BYTES, "a book manifest")
    except OSError as exc:
        raise BookFileError(f"{path}: cannot read the manifest ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise BookFileError(f"{path}: not a book manifest (not UTF-8 text)") from None
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except (ValueError, RecursionError) as exc:
        raise BookFileError(f"{path}: not a valid JSON manifest ({exc})") from None


def _count(section: dict[str, Any], key: str, where: str, low: int = 0) -> int:
    value = section.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise BookFileError(f"{where}: '{key}' is {value!r}, expected an integer >= {low}")
    return value


def read_manifest(book: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of ``book``, validated (see :class:`Manifest`); raises
    :class:`BookFileError` when it is missing or not a valid manifest."""
    path = manifest_path(book)
    if not path.is_file():
        raise BookFileError(f"{book}: no manifest {path.name} beside it")
    data = _load_json(path)
    _parse(path, data)
    return data


def load_manifest(book: str | os.PathLike[str]) -> Manifest | None:
    """The parsed manifest of ``book``, or None when there is none."""
    path = manifest_path(book)
    if not path.exists():
        return None
    return _parse(path, _load_json(path))


@dataclass(frozen=True)
class Manifest:
    """What a book's manifest says: format, record count, size, sha256, scope.

    Required entries: ``format`` {``plies`` 1..28, ``distances`` bool; ``name``,
    ``record_bytes``, ``key_bits`` must agree when present}, ``book`` {``records``,
    ``bytes`` (integers, ``bytes`` = records x record size), ``sha256`` (64 hex
    digits)}, ``selection`` {``under`` a move string or null, ``sample`` an
    integer or null, ``shard`` ``"i/n"`` or null}.
    """

    path: Path
    fmt: BookFormat
    records: int
    size: int
    sha256: str
    scope: Scope
    data: dict[str, Any] = field(repr=False, compare=False)


def _parse(path: Path, data: Any) -> Manifest:
    where = str(path)
    if not isinstance(data, dict):
        raise BookFileError(f"{where}: not a book manifest (not a JSON object)")
    mark = data.get("manifest", MANIFEST_MARK)
    if mark != MANIFEST_MARK:
        raise BookFileError(f"{where}: not a book manifest ('manifest' is {mark!r})")
    sections = {}
    for key in ("format", "book", "selection"):
        section = data.get(key)
        if key not in data:
            raise BookFileError(f"{where}: not a book manifest (no '{key}' object)")
        if not isinstance(section, dict):
            raise BookFileError(f"{where}: '{key}' is not an object")
        sections[key] = section
    fmt_s, book_s, sel = sections["format"], sections["book"], sections["selection"]
    plies = _count(fmt_s, "plies", where, 1)
    distances = fmt_s.get("distances")
    board = _manifest_board(where, fmt_s)
    most = max_plies(*board)
    if not isinstance(distances, bool) or plies > most:
        raise BookFileError(
            f"{where}: format plies {plies} / distances {distances!r}: expected 1..{most} "
            "and true or false"
        )
    fmt = BookFormat.for_plies(plies, distances, *board)
    for key, want in (
        ("name", fmt.name),
        ("record_bytes", fmt.record_bytes),
        ("key_bits", fmt.key_bits),
    ):
        if key in fmt_s and fmt_s[key] != want:
            raise BookFileError(
                f"{where}: format {key} is {fmt_s[key]!r}, but a {fmt.name} book has {want!r}"
            )
    records = _count(book_s, "records", where)
    size = _count(book_s, "bytes", where)
    if size != records * fmt.record_bytes:
        raise BookFileError(
            f"{where}: {records} records of {fmt.record_bytes} bytes are not {size} bytes"
        )
    digest = book_s.get("sha256")
    if (
        not isinstance(digest, str)
        or len(digest) != 64
        or not all(c in "0123456789abcdef" for c in digest)
    ):
        raise BookFileError(f"{where}: 'sha256' is {digest!r}, expected 64 hex digits")
    return Manifest(path, fmt, records, size, digest, _scope_from_selection(where, sel, fmt), data)


def _manifest_board(where: str, fmt_s: dict[str, Any]) -> BoardSize:
    """The board of a manifest's ``format``: ``width`` and ``height``, absent = 7x6."""
    if "width" not in fmt_s and "height" not in fmt_s:
        return DEFAULT_BOARD
    width, height = fmt_s.get("width"), fmt_s.get("height")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (width, height)):
        raise BookFileError(f"{where}: format width {width!r} / height {height!r}: not integers")
    try:
        return parse_board_size(f"{width}x{height}")
    except ValueError as exc:
        raise BookFileError(f"{where}: {exc}") from None


def _scope_from_selection(where: str, sel: dict[str, Any], fmt: BookFormat) -> Scope:
    under = sel.get("under")
    if under is not None:
        if not isinstance(under, str):
            raise BookFileError(f"{where}: 'under' is {under!r}, not a 1-based move string")
        try:
            Position.from_moves(under, fmt.width, fmt.height)
        except ValueError as exc:
            raise BookFileError(f"{where}: 'under' {under!r}: {exc}") from None
        if len(under) > fmt.plies:
            raise BookFileError(
                f"{where}: 'under' {under!r} is longer than the book's {fmt.plies} plies"
            )
    for key, want in (("plies", fmt.plies), ("distances", fmt.distances)):
        if key in sel and sel[key] != want:
            raise BookFileError(f"{where}: selection {key} {sel[key]!r} disagrees with the format")
    sample, shard = sel.get("sample"), sel.get("shard")
    partial = None
    if sample is not None:
        partial = f"a sample of {_count(sel, 'sample', where)} positions"
    elif shard is not None:
        parts = shard.split("/") if isinstance(shard, str) else []
        if (
            len(parts) != 2
            or not all(p.isdigit() for p in parts)
            or not 1 <= int(parts[0]) <= int(parts[1])
        ):
            raise BookFileError(f"{where}: 'shard' is {shard!r}, expected \"i/n\"")
        partial = f"shard {shard}"
    return Scope(under or None, partial, board=fmt.board)


def scope_without_manifest(path: str | os.PathLike[str], fmt: BookFormat, records: int) -> Scope:
    """The scope of a book that has no manifest.

    Complete when it has at least the records of a complete book of its ply
    (:data:`COMPLETE_RECORDS`: so Thill's three published files); otherwise
    unknown: a book built under a line, a sample or a shard looks the same.
    """
    need = COMPLETE_RECORDS.get((fmt.plies, fmt.distances))
    if need is not None and records >= need:
        return Scope(board=fmt.board)
    name = Path(path).name
    return Scope(
        board=fmt.board,
        known=False,
        unknown_why=f"{name} has no manifest {manifest_path(name).name} and is not a "
        f"complete {fmt.name} book",
    )


# ------------------------------------------------------------------ identity
@dataclass(frozen=True)
class BookIdentity:
    """A book file as checked against what it claims to be (:func:`identify`)."""

    path: Path
    fmt: BookFormat
    size: int
    records: int
    manifest: Manifest | None
    scope: Scope
    #: where the format came from: "argument", "manifest", "file name" or "content"
    format_from: str

    def verify_sha256(self, digest: str | None = None) -> None:
        """Compare the file's sha256 (``digest`` when already computed) with the manifest's;
        :class:`BookFileError` when they differ. Nothing to compare without a manifest."""
        if self.manifest is None:
            return
        if digest is None:
            digest = file_sha256(self.path)
        if digest != self.manifest.sha256:
            raise BookFileError(
                f"{self.path.name}: contents differ from its manifest {self.manifest.path.name} "
                "(sha256)"
            )


def detect_format(path: str | os.PathLike[str]) -> BookFormat:
    """The format of a book file: from its manifest, Thill's file names, or its content.

    The content test keeps the record layouts whose sampled records decode to
    legal positions of one stone count matching the layout. A Thill file name is
    trusted unless the content clearly says otherwise (exactly one other format
    fits). Raises :class:`BookFileError` when no format fits, or when several do
    and nothing else decides (then the format must be given).
    """
    return _decide_format(Path(path), load_manifest(path))[0]


def _decide_format(p: Path, manifest: Manifest | None) -> tuple[BookFormat, str]:
    if manifest is not None:
        return manifest.fmt, "manifest"
    if p.is_dir():
        raise BookFileError(f"{p}: is a directory, not a book")
    size = p.stat().st_size
    if size == 0:
        raise BookFileError(f"{p}: empty file")
    fits = content_formats(p, size)
    if p.name in THILL_NAMES:
        named = BookFormat.parse(p.name)
        # a damaged file keeps its name's format, so that reading names the damage
        if len(fits) == 1 and named not in fits:
            return fits[0], "content"
        return named, "file name"
    if len(fits) == 1:
        return fits[0], "content"
    if not fits:
        raise BookFileError(
            f"{p}: not a book file: no record layout fits its {size} bytes "
            "(give the format if it is one)"
        )
    names = ", ".join(f.name for f in fits)
    raise BookFileError(f"{p}: the book format is ambiguous ({names} all fit): give the format")


def identify(path: str | os.PathLike[str], fmt: BookFormat | None = None) -> BookIdentity:
    """Decide a book file's format and check the file against it and its manifest.

    Cheap (reads the manifest and a few records, never the whole file). Raises
    :class:`BookFileError` naming the file and what disagrees: a given ``fmt``
    or the manifest's that the records do not fit, a size or record count other
    than the manifest's, a size that is not a whole number of records.
    """
    p = Path(path)
    if p.exists():  # a FIFO or a device is refused before anything opens it
        require_regular_file(p)
    manifest = load_manifest(p)
    if fmt is not None:
        if manifest is not None and manifest.fmt != fmt:
            raise BookFileError(
                f"{p.name}: format {fmt.name} was given, its manifest {manifest.path.name} "
                f"says {manifest.fmt.name}"
            )
        source = "argument" if manifest is None else "manifest"
    else:
        fmt, source = _decide_format(p, manifest)
    if p.is_dir():
        raise BookFileError(f"{p}: is a directory, not a book")
    if not p.exists() and manifest is not None:
        raise BookFileError(
            f"{p}: no such book, but its manifest {manifest.path.name} is there "
            "(an interrupted write? rerun the command that wrote it)"
        )
    size = p.stat().st_size
    check_size(p, size, fmt, empty_ok=manifest is not None and manifest.records == 0)
    records = size // fmt.record_bytes
    if manifest is not None and records != manifest.records:
        raise BookFileError(
            f"{p.name}: {records} records, its manifest {manifest.path.name} says "
            f"{manifest.records}"
        )
    check_sample(p, fmt, size, f"format {fmt.name} from the {source}")
    scope = manifest.scope if manifest is not None else scope_without_manifest(p, fmt, records)
    if manifest is not None and scope.complete:
        _refuse_short_complete_book(p, fmt, records, manifest)
    return BookIdentity(p, fmt, size, records, manifest, scope, source)


def _refuse_short_complete_book(p: Path, fmt: BookFormat, records: int, manifest: Manifest) -> None:
    """Refuse a book whose manifest says it is complete when it holds fewer records than
    a complete book of its ply and board (an edited manifest, or a partial book): a pruned
    book answers every absent position as a first-player win, so a partial book taken
    for a complete one would answer wrongly, never refuse.

    The floor: every position of the ply for a distance book
    (:func:`openingbook.checks.booksizes.complete_positions`); for a pruned book those its
    manifest does not count as first-player wins (its ``values``, which must then count
    every position of the ply), and on 7x6 at 8 and 12 plies at least
    :data:`COMPLETE_AT_LEAST` (the published books' records) whatever it says."""
    positions = complete_positions(fmt.board, fmt.plies)
    values = manifest.data.get("values")
    counts = None
    if isinstance(values, dict):
        counts = {k: values.get(k) for k in ("first", "second", "draw")}
        if not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in counts.values()
        ):
            counts = None
    if positions is not None and counts is not None and sum(counts.values()) != positions:
        raise BookFileError(
            f"{p.name}: its manifest {manifest.path.name} says the book is complete and "
            f"counts {sum(counts.values()):,} positions; a complete {fmt.name} book has "
            f"{positions:,} (an edited manifest, or a partial book)"
        )
    floors = []
    if fmt.board == DEFAULT_BOARD and (fmt.plies, fmt.distances) in COMPLETE_AT_LEAST:
        floors.append(COMPLETE_AT_LEAST[(fmt.plies, fmt.distances)])
    if positions is not None and fmt.distances:
        floors.append(positions)
    elif positions is not None and counts is not None:
        floors.append(positions - counts["first"])  # the first-player wins are left out
    need = max(floors, default=0)
    if records < need:
        raise BookFileError(
            f"{p.name}: its manifest {manifest.path.name} says the book is complete, but it "
            f"holds {records:,} records and a complete {fmt.name} book at least {need:,} "
            "(an edited manifest, or a partial book)"
        )


# ------------------------------------------------------------------ writing
def manifest_book_entry(out: Path, fmt: BookFormat, records: int, data: bytes) -> dict[str, Any]:
    """The ``format`` and ``book`` parts of a manifest for the bytes ``data`` of ``out``."""
    board = {} if fmt.board == DEFAULT_BOARD else {"width": fmt.width, "height": fmt.height}
    return {
        "manifest": MANIFEST_MARK,
        "layout": LAYOUT_VERSION,
        "format": {
            "name": fmt.name,
            "plies": fmt.plies,
            "distances": fmt.distances,
            "record_bytes": fmt.record_bytes,
            "key_bits": fmt.key_bits,
            "pruned": not fmt.distances,
            **board,  # absent: 7x6
        },
        "book": {
            "file": out.name,
            "records": records,
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        },
    }


def manifest_provenance(command: Sequence[str] | None) -> dict[str, Any]:
    """The command line, version and creation time of a manifest.

    ``command`` defaults to this process's arguments; either way it is recorded by
    :func:`clean_command`, as a user would type it on another machine.
    """
    argv = list(command) if command is not None else ["openingbook", *sys.argv[1:]]
    return {
        "command": clean_command(argv),
        "version": openingbook.__version__,
        "python": sys.version.split()[0],
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def clean_command(argv: Sequence[str]) -> str:
    """``argv`` as a shell command without this machine in it.

    The program is ``openingbook`` (``sys.argv[0]`` may be ``-c``, a full path or
    ``__main__.py``); an absolute path becomes relative to the current directory
    when it lies below it, else its base name (``--work-dir /data/x/work`` ->
    ``--work-dir work``), also in ``--option=/path``. (The paths below are only text.)

    >>> clean_command(["-c", "build", "--plies", "8", "-o", "/data/runs/b8.dat"])
    'openingbook build --plies 8 -o b8.dat'
    >>> clean_command(["openingbook", "merge", "--output=/srv/x/b.dat", "part 1.dat"])
    "openingbook merge --output=b.dat 'part 1.dat'"
    """
    words = ["openingbook", *argv[1:]] if argv else ["openingbook"]
    return shlex.join(_machine_free(word) for word in words)


def recorded_command(command: object) -> str | None:
    """A source's recorded command (``"command"`` of its manifest) as
    :func:`clean_command` records one today, for a book that lists its sources (a book
    built by an older version may name paths of the machine that built it); None when
    there is none.

    >>> recorded_command("openingbook build --part 1/32 -o /data/work/out/p01.c4b")
    'openingbook build --part 1/32 -o p01.c4b'
    >>> recorded_command(None) is None
    True
    """
    return clean_command(shlex.split(command)) if isinstance(command, str) else None


def _machine_free(word: str) -> str:
    option, eq, value = word.partition("=") if word.startswith("-") else ("", "", word)
    if not os.path.isabs(value):
        return word
    path = Path(value)
    try:
        relative = str(path.relative_to(Path.cwd()))
    except ValueError:
        relative = path.name
    return f"{option}{eq}{relative or '.'}"


def _orphaned_manifest(out: Path) -> bool:
    """Is there a manifest of ours for ``out`` while ``out`` itself is missing (the
    trace of a write interrupted between its renames)?"""
    mpath = manifest_path(out)
    if os.path.lexists(out) or not mpath.is_file():
        return False
    try:
        data = _load_json(mpath)
    except BookFileError:
        return False
    return isinstance(data, dict) and data.get("manifest") == MANIFEST_MARK


def check_output(output: str | os.PathLike[str], force: bool) -> Path:
    """Refuse an output book that exists (without ``force``) or cannot be written.

    Checked before any work, so that a long build does not fail at the end. The
    book and its manifest both count; a manifest of ours whose book is missing
    (a write interrupted between its renames) is replaced without ``force``.
    """
    out = Path(output)
    if out.is_dir():
        raise OutputError(f"output {out} is a directory")
    refuse_existing(out, force)
    if not _orphaned_manifest(out):
        refuse_existing(manifest_path(out), force)
    parent = out.parent
    if not parent.is_dir():
        raise OutputError(f"cannot write {out}: directory {parent} does not exist")
    check_writable(out)
    return out


def write_book_and_manifest(
    out: str | os.PathLike[str],
    fmt: BookFormat,
    data: bytes,
    records: int,
    content: dict[str, Any],
) -> dict[str, Any]:
    """Write the book bytes ``data`` to ``out`` and its manifest, as one unit.

    The manifest is :func:`manifest_book_entry` followed by ``content``. Both are
    written to temporary files beside ``out`` first (a failure there, a full
    disk say, leaves everything as it was); then an old ``out`` is removed, the
    manifest renamed into place, and the book last. So a reader finds either
    the previous pair or a manifest without its book (refused by
    :func:`identify`, replaced by a rerun: :func:`check_output`), never a book
    without its manifest or with another book's. Returns the manifest.
    """
    out = Path(out)
    mpath = manifest_path(out)
    manifest = {**manifest_book_entry(out, fmt, records, data), **content}
    text = (json.dumps(manifest, indent=2) + "\n").encode()
    write_together([(mpath, text), (out, data)])
    return manifest
