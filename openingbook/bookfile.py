"""Book files: record layouts, reading, writing, sorting and checks.

A book is a headerless array of fixed-size big-endian records sorted by key,
one record per stored position (see docs/FORMATS.md):

* **pruned** books (win/draw/loss, first-player wins dropped): the column code
  left-aligned in the whole record, the value in the low two bits
  (0 draw, 1 second player wins; 2 first player wins is never written by the
  pruning rule but is accepted when present);
* **distance** books: the column code left-aligned in a key of 4 (or 5) bytes,
  then one signed byte ``v``: 0 draw, ``v > 0`` first player wins in
  ``100 - v`` plies, ``v < 0`` second player wins in ``100 + v`` plies.

Thill's three files are :data:`BOOK8` (``book.dat``), :data:`BOOK12`
(``bookDeep.dat``) and :data:`BOOK12_DIST` (``bookDeepDist.dat``).
:meth:`BookFormat.for_plies` extends the same rules to other plies:

============  ==========================================  =====================
book          record                                      order
============  ==========================================  =====================
pruned        ``max(3, ceil((6 + 2n + 2) / 8))`` bytes:    unsigned for 3-byte
              plies 1-8: 3, 9-12: 4, 13-16: 5              keys, else signed
distance      key ``max(4, ceil((6 + 2n) / 8))`` bytes     signed (two's
              (plies 1-13: 4, 14-17: 5) + 1 value byte     complement of the key)
============  ==========================================  =====================

Signed order is Thill's: his reader compares the first four bytes as a Java
``int``, so codes starting with bit 1 (first column non-empty) sort first.

>>> BOOK8.record_bytes, BOOK12.signed_order, BOOK12_DIST.record_bytes
(3, True, 5)
>>> BookFormat.for_plies(8, False, *THILL_BOARD) == BOOK8
True
>>> BookFormat.for_plies(14, True, *THILL_BOARD).record_bytes
6
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from openingbook.atomicio import atomic_write_bytes
from openingbook.codec import code_length, decode_keys, decode_keys_raw, legal_mask
from openingbook.errors import BookFileError, InvalidArgument
from openingbook.values import (
    VALUE_DRAW,
    VALUE_FIRST,
    VALUE_SECOND,
    distance_plies,
    invalid_values,
)
from solver import BoardSize

__all__ = [
    "BOOK8",
    "BOOK12",
    "BOOK12_DIST",
    "MAX_PLIES",
    "THILL_BOARD",
    "VALUE_DRAW",
    "VALUE_FIRST",
    "VALUE_SECOND",
    "BookFileError",
    "BookFormat",
    "Records",
    "book_bytes",
    "check_distances",
    "check_order",
    "check_positions",
    "check_records",
    "check_sample",
    "check_size",
    "check_values",
    "content_formats",
    "max_plies",
    "parity_faults",
    "parse_records",
    "records_to_bytes",
    "refuse_thill_layout",
    "sort_records",
    "value_histogram",
    "write_book",
]

_U64 = np.uint64

#: Thill's record layout is of the 7x6 board only: a file does not say its board
#: (books of other sizes are written in the compact format, :func:`refuse_thill_layout`).
THILL_BOARD = BoardSize(7, 6)
#: Deepest 7x6 book whose pruned record still fits a 64-bit key field.
MAX_PLIES = 28


def max_plies(width: int, height: int) -> int:
    """Deepest book of a board: the pruned record (code and two value bits) fits 64 bits,
    and no more stones than cells.

    >>> max_plies(7, 6), max_plies(9, 6), max_plies(4, 4)
    (28, 27, 16)
    """
    return min(width * height, (64 - 2 - (width - 1)) // 2)


THILL_NAMES = {"book.dat": (8, False), "bookDeep.dat": (12, False), "bookDeepDist.dat": (12, True)}


@dataclass(frozen=True)
class BookFormat:
    """Record layout of a book of ``plies`` stones.

    ``key_bits`` is the width of the field the column code is left-aligned in
    (pruned books: the whole record, value bits included and zero in keys;
    distance books: the key bytes before the value byte).

    ``width`` x ``height`` is the board. The column code has ``width - 1``
    separators, so the same rules give a layout for every board; but only
    7x6 files are Thill's layout (readable without a manifest, by his
    readers). A book of another size is always written in the compact format
    (``docs/FORMATS.md``); this layout serves it only in memory and as the
    build's intermediate file, whose manifest carries the board.
    """

    plies: int
    distances: bool
    record_bytes: int
    key_bits: int
    value_bits: int
    signed_order: bool
    name: str
    width: int
    height: int

    @classmethod
    def for_plies(
        cls,
        plies: int,
        distances: bool,
        width: int,
        height: int,
    ) -> BookFormat:
        """The format of a ``plies``-stone book (Thill's for 8 and 12 on 7x6).

        >>> BookFormat.for_plies(10, False, 7, 6).record_bytes
        4
        >>> BookFormat.for_plies(8, False, width=6, height=5).name
        '6x5-8-ply'
        """
        most = max_plies(width, height)
        if not 0 <= plies <= most:
            raise InvalidArgument(f"book plies must be 0..{most}, got {plies}")
        bits = code_length(plies, width)
        board = "" if (width, height) == THILL_BOARD else f"{width}x{height}-"
        if distances:
            key_bytes = max(4, -(-bits // 8))
            return cls(
                plies,
                True,
                key_bytes + 1,
                8 * key_bytes,
                8,
                True,
                f"{board}{plies}-ply-dist",
                width,
                height,
            )
        record_bytes = max(3, -(-(bits + 2) // 8))
        return cls(
            plies,
            False,
            record_bytes,
            8 * record_bytes,
            2,
            record_bytes >= 4,
            f"{board}{plies}-ply",
            width,
            height,
        )

    @property
    def board(self) -> BoardSize:
        """The board size of the book's positions."""
        return BoardSize(self.width, self.height)

    @classmethod
    def parse(cls, text: str) -> BookFormat:
        """A format from its name (``"8-ply"``, ``"12-ply-dist"``), a bare ply
        count (``"12"``, ``"12-dist"``) or one of Thill's file names.

        >>> BookFormat.parse("bookDeepDist.dat") == BookFormat.parse("12-dist") == BOOK12_DIST
        True
        """
        t = text.strip()
        if t in THILL_NAMES:
            return cls.for_plies(*THILL_NAMES[t], *THILL_BOARD)
        core = t.lower().replace("_", "-")
        distances = core.endswith("-dist")
        if distances:
            core = core[: -len("-dist")]
        core = core.removesuffix("-ply")
        if not core.isdigit():
            raise InvalidArgument(
                f"unknown book format {text!r}: use e.g. 8, 12, 12-dist, 12-ply-dist or book.dat"
            )
        refuse_thill_layout(THILL_BOARD, int(core))  # a named layout is Thill's: 1 ply or more
        return cls.for_plies(int(core), distances, *THILL_BOARD)

    @property
    def key_bytes(self) -> int:
        return self.key_bits // 8

    @property
    def file_name(self) -> str:
        """Thill's file name for his three books, else ``book<plies>[-dist].dat``."""
        for name, (plies, dist) in THILL_NAMES.items():
            if (plies, dist) == (self.plies, self.distances):
                return name
        board = "" if self.board == THILL_BOARD else f"-{self.board}"
        return f"book{self.plies}{'-dist' if self.distances else ''}{board}.dat"

    def order_keys(self, keys: np.ndarray) -> np.ndarray:
        """Keys mapped to uint64 so that unsigned comparison gives the file order.

        Signed order flips the key's sign bit (two's complement -> offset binary).
        """
        keys = np.asarray(keys, dtype=_U64)
        if self.signed_order:
            return keys ^ _U64(1 << (self.key_bits - 1))
        return keys

    def order_key(self, key: int) -> int:
        """:meth:`order_keys` for one key."""
        return key ^ (1 << (self.key_bits - 1)) if self.signed_order else key

    def describe(self) -> str:
        """One line, e.g. ``"8-ply, pruned, 3-byte records"``."""
        kind = "with distances" if self.distances else "pruned (win/draw/loss)"
        board = "" if self.board == THILL_BOARD else f" ({self.board} board)"
        return f"{self.plies}-ply{board}, {kind}, {self.record_bytes}-byte records"


def refuse_thill_layout(board: BoardSize | tuple[int, int], plies: int | None = None) -> None:
    """Thill's book layout is 7x6 only, of 1 or more plies: :class:`InvalidArgument`
    for any other board, or for ``plies`` 0.

    A file of this record layout does not say its board; without its manifest a
    book of another size would read as a 7x6 book. So books of other sizes are
    written in the compact format, whose header holds the board. A 0-ply book (the
    empty board alone) has no Thill form either: its one record would be the empty
    code, which no reader of the layout expects; it too is a compact book.

    >>> refuse_thill_layout(BoardSize(6, 5))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    solver.errors.InvalidArgument: Thill's book layout is for 7x6 boards only: ...
    """
    board = BoardSize(*board)
    if board != THILL_BOARD:
        raise InvalidArgument(
            f"Thill's book layout is for 7x6 boards only: write the {board} book in the "
            "compact format (--format compact, a .c4b file)"
        )
    if plies == 0:
        raise InvalidArgument(
            "Thill's book layout has no 0-ply book: write the empty board's book in the "
            "compact format (--format compact, a .c4b file)"
        )


BOOK8 = BookFormat.for_plies(8, False, *THILL_BOARD)
BOOK12 = BookFormat.for_plies(12, False, *THILL_BOARD)
BOOK12_DIST = BookFormat.for_plies(12, True, *THILL_BOARD)


@dataclass
class Records:
    """The records of a book as arrays: ``keys`` (uint64, value bits cleared) and
    ``values`` (int8: pruned 0 draw, 1 second wins, 2 first wins; distance books
    the signed distance byte)."""

    keys: np.ndarray
    values: np.ndarray

    def __post_init__(self) -> None:
        self.keys = np.asarray(self.keys, dtype=_U64)
        self.values = np.asarray(self.values, dtype=np.int8)
        if self.keys.shape != self.values.shape or self.keys.ndim != 1:
            raise InvalidArgument(
                f"keys and values must be 1-d arrays of one length, "
                f"got {self.keys.shape} and {self.values.shape}"
            )

    def __len__(self) -> int:
        return len(self.keys)


# ------------------------------------------------------------- bytes <-> arrays
def parse_records(data: np.ndarray | bytes | memoryview, fmt: BookFormat) -> Records:
    """Records from raw file bytes (a whole number of records; a uint8 memmap works).

    >>> r = parse_records(bytes.fromhex("055cfc 055d02"), BOOK8)
    >>> [hex(k) for k in r.keys], r.values.tolist()
    (['0x55cfc', '0x55d00'], [0, 2])
    """
    raw = data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)
    if raw.size % fmt.record_bytes:
        raise BookFileError(
            f"{raw.size} bytes is not a whole number of {fmt.record_bytes}-byte records"
        )
    rows = raw.reshape(-1, fmt.record_bytes)
    field = np.zeros(len(rows), dtype=_U64)
    for i in range(fmt.key_bytes):
        field = (field << _U64(8)) | rows[:, i].astype(_U64)
    if fmt.distances:
        return Records(field, np.ascontiguousarray(rows[:, fmt.key_bytes]).view(np.int8))
    value_mask = _U64((1 << fmt.value_bits) - 1)
    return Records(field & ~value_mask, (field & value_mask).astype(np.int8))


def records_to_bytes(fmt: BookFormat, records: Records) -> bytes:
    """The file bytes of ``records`` in their current order."""
    keys, values = records.keys, records.values
    # pruned books: the two value bits share the last byte with the code
    field = keys if fmt.distances else keys | values.astype(np.uint8).astype(_U64)
    out = np.empty((len(keys), fmt.record_bytes), dtype=np.uint8)
    for i in range(fmt.key_bytes):
        out[:, i] = (field >> _U64(8 * (fmt.key_bytes - 1 - i))) & _U64(0xFF)
    if fmt.distances:
        out[:, fmt.key_bytes] = values.view(np.uint8)
    return out.tobytes()


def sort_records(fmt: BookFormat, records: Records) -> Records:
    """The records in the format's order (stable; Thill's signed order for wide keys)."""
    order = np.argsort(fmt.order_keys(records.keys), kind="stable")
    return Records(records.keys[order], records.values[order])


# --------------------------------------------------------------------- checks
def check_records(
    fmt: BookFormat, records: Records, name: str = "book", decode: bool = True
) -> None:
    """Raise :class:`BookFileError` (``"<name>: <problem>"``) for the first problem.

    Checks values, order (strictly ascending: an exact duplicate key is an
    error), and with ``decode`` that every key is a legal position with
    ``fmt.plies`` stones. Mirror pairs stored twice are not a format error, nor
    are distances of the wrong parity (:func:`check_distances`, reported by
    :func:`describe_book`): the format can hold them and readers answer them.
    """
    # an empty file is refused by check_size unless its manifest declares 0 records
    check_values(fmt, records, name)
    check_order(fmt, records, name)
    if decode:
        check_positions(fmt, records, name)


def check_values(fmt: BookFormat, records: Records, name: str = "book", offset: int = 0) -> None:
    """Raise :class:`BookFileError` for the first value the format cannot hold (record
    numbers in messages count from ``offset``, for a piece of a file)."""
    bad = _bad_values(fmt, records.values)
    if bad.any():
        i = int(np.argmax(bad))
        v = int(records.values[i])
        raise BookFileError(f"{name}: record {i + offset} has value {v}, {_value_rule(fmt)}")


def check_order(fmt: BookFormat, records: Records, name: str = "book", offset: int = 0) -> None:
    """Raise :class:`BookFileError` unless the keys strictly ascend in the format's order."""
    order = fmt.order_keys(records.keys)
    step = order[1:] > order[:-1]
    if not step.all():
        i = int(np.argmax(~step)) + 1
        j = i + offset
        if order[i] == order[i - 1]:
            raise BookFileError(f"{name}: record {j} repeats the position of record {j - 1}")
        raise BookFileError(f"{name}: records not sorted (record {j} < record {j - 1})")


def check_positions(fmt: BookFormat, records: Records, name: str = "book", offset: int = 0) -> None:
    """Raise :class:`BookFileError` for the first key that is not a legal ``fmt.plies``-stone
    position (value bits, if any, must be zero)."""
    try:
        decode_keys(records.keys, fmt.key_bits, fmt.plies, fmt.width, fmt.height)
    except ValueError as exc:
        text = str(exc)
        if offset and text.startswith("key "):
            index, rest = text[4:].split(" ", 1)
            text = f"key {int(index) + offset} {rest}" if index.isdigit() else text
        raise BookFileError(f"{name}: {text.replace('key ', 'record ', 1)}") from None


def value_histogram(
    fmt: BookFormat, values: np.ndarray, weights: np.ndarray | None = None
) -> dict[str, object]:
    """Counts of the stored values: by winner, and for distance books by distance.

    ``weights``: how many times each entry of ``values`` occurs (default once).

    >>> value_histogram(BOOK8, np.array([0, 1, 1], np.int8))
    {'draw': 1, 'first': 0, 'second': 2}
    """
    v = np.asarray(values, dtype=np.int64)
    w = np.ones(len(v), np.int64) if weights is None else np.asarray(weights, np.int64)
    if not fmt.distances:
        return {
            "draw": int(w[v == VALUE_DRAW].sum()),
            "first": int(w[v == VALUE_FIRST].sum()),
            "second": int(w[v == VALUE_SECOND].sum()),
        }
    out: dict[str, object] = {
        "draw": int(w[v == 0].sum()),
        "first": int(w[v > 0].sum()),
        "second": int(w[v < 0].sum()),
    }
    for label, sel in (("first_by_plies", v > 0), ("second_by_plies", v < 0)):
        d, inverse = np.unique(distance_plies(v[sel]), return_inverse=True)
        counts = np.bincount(inverse.ravel(), weights=w[sel], minlength=len(d))
        out[label] = {int(a): int(c) for a, c in zip(d, counts, strict=True) if c}
    return out


def _bad_values(fmt: BookFormat, values: np.ndarray) -> np.ndarray:
    """Values the format cannot hold (:func:`openingbook.values.invalid_values`)."""
    return invalid_values(values, fmt.plies, fmt.distances, fmt.board)


def parity_faults(fmt: BookFormat, values: np.ndarray) -> np.ndarray:
    """Distance values whose winner cannot place the last stone.

    Stone number ``plies + d`` is the first player's when it is odd, so a first
    player win needs ``plies + d`` odd and a second player win even. Such a value
    fits the format (readers still answer it) but cannot be right.
    """
    if not fmt.distances:
        return np.zeros(len(values), dtype=bool)
    v = values.astype(np.int64)
    first_last = (fmt.plies + distance_plies(v)) % 2 == 1
    return (v != 0) & (first_last != (v > 0))


def check_distances(fmt: BookFormat, records: Records, name: str = "book", offset: int = 0) -> None:
    """Raise :class:`BookFileError` for the first distance whose winner cannot play the
    last stone (see :func:`parity_faults`); nothing to check in pruned books."""
    bad = parity_faults(fmt, records.values)
    if bad.any():
        i = int(np.argmax(bad))
        v = int(records.values[i])
        d = int(distance_plies(records.values[i : i + 1])[0])
        winner, other = ("first", "second") if v > 0 else ("second", "first")
        raise BookFileError(
            f"{name}: record {i + offset} says the {winner} player wins in {d} plies, but stone "
            f"{fmt.plies + d} is the {other} player's"
        )


def _value_rule(fmt: BookFormat) -> str:
    if fmt.distances:
        return (
            f"not a distance of a {fmt.plies}-stone position "
            "(0 draw, 100-d first player wins in d plies, d-100 second player wins)"
        )
    return "expected 0 (draw), 1 (second player wins) or 2 (first player wins)"


# ----------------------------------------------------------------- detection
def content_formats(path: Path, size: int) -> list[BookFormat]:
    """Every format whose record layout divides ``size`` and whose sampled records
    decode to legal positions of that format's ply."""
    layouts: dict[tuple[int, int, bool], list[BookFormat]] = {}
    for dist in (False, True):
        for plies in range(1, MAX_PLIES + 1):
            f = BookFormat.for_plies(plies, dist, *THILL_BOARD)
            layouts.setdefault((f.record_bytes, f.key_bits, dist), []).append(f)
    fits = []
    with open(path, "rb") as fh:
        for (record_bytes, _, _), formats in layouts.items():
            if size % record_bytes:
                continue
            sample = _sample_records(fh, size, record_bytes)
            fmt = _fitting_format(sample, formats)
            if fmt is not None:
                fits.append(fmt)
    return fits


def check_sample(path: Path, fmt: BookFormat, size: int, source: str, count: int = 64) -> None:
    """Raise :class:`BookFileError` unless a spread sample of the file's records (``count``
    of them, the first and the last included) are legal ``fmt.plies``-stone positions with
    values the format can hold: a layout that does not fit the file is refused, not obeyed.
    ``source`` says where the format came from, for the message."""
    if size == 0:
        return
    with open(path, "rb") as fh:
        sample, picks = _sample_records(fh, size, fmt.record_bytes, count, with_picks=True)
    records = parse_records(sample, fmt)
    first, mask, ok = decode_keys_raw(records.keys, fmt.key_bits, fmt.width, fmt.height)
    good = ok & legal_mask(first, mask, fmt.height) & (np.bitwise_count(mask) == fmt.plies)
    good &= ~_bad_values(fmt, records.values)
    if not good.all():
        k = int(np.argmin(good))
        one = Records(records.keys[k : k + 1], records.values[k : k + 1])
        reason = f"{path}: record {picks[k]} is not a legal {fmt.plies}-stone position"
        try:
            check_values(fmt, one, str(path), picks[k])
            check_positions(fmt, one, str(path), picks[k])
        except BookFileError as exc:
            reason = str(exc)
        raise BookFileError(f"{reason} ({source}: the file does not fit it)")


def _sample_records(fh, size: int, record_bytes: int, count: int = 64, with_picks: bool = False):
    n = size // record_bytes
    picks = sorted(set(np.linspace(0, n - 1, min(n, count)).astype(int).tolist()))
    buf = bytearray()
    for i in picks:
        fh.seek(i * record_bytes)
        buf += fh.read(record_bytes)
    sample = np.frombuffer(bytes(buf), dtype=np.uint8)
    return (sample, picks) if with_picks else sample


def _fitting_format(sample: np.ndarray, formats: list[BookFormat]) -> BookFormat | None:
    fmt0 = formats[0]
    records = parse_records(sample, fmt0)
    first, mask, ok = decode_keys_raw(records.keys, fmt0.key_bits, *fmt0.board)
    if not ok.all() or not legal_mask(first, mask, fmt0.height).all():
        return None
    stones = np.bitwise_count(mask)
    # not np.unique, which loads numpy.ma: 7 ms of every book open
    if stones.size == 0 or (stones != stones[0]).any():
        return None
    for fmt in formats:
        if fmt.plies == int(stones[0]):
            return None if _bad_values(fmt, records.values).any() else fmt
    return None


# ---------------------------------------------------------------- read/write
def check_size(
    path: str | os.PathLike[str], size: int, fmt: BookFormat, empty_ok: bool = False
) -> None:
    """Raise for an empty file or one that is not a whole number of records.

    An empty file is a book only with ``empty_ok`` (its manifest says it has 0
    records: a pruned book whose positions are all first-player wins).
    """
    if size == 0:
        if empty_ok:
            return
        raise BookFileError(f"{path}: empty file")
    if size % fmt.record_bytes:
        raise BookFileError(
            f"{path}: size {size} bytes is not a multiple of the {fmt.record_bytes}-byte "
            f"record of a {fmt.name} book"
        )


def write_book(
    path: str | os.PathLike[str], fmt: BookFormat, records: Records, check: bool = True
) -> int:
    """Write ``records`` sorted in the format's order, atomically, as a bare book file
    without a manifest (as Thill's files); return the record count.

    With ``check`` the records are verified first (values, duplicates, legal
    positions of ``fmt.plies`` stones), so a bad book is never written. The
    build, merge and derive write a book with its manifest instead
    (:func:`book_bytes`, then :func:`openingbook.manifest.write_book_and_manifest`).
    """
    data = book_bytes(fmt, records, str(path), check)
    atomic_write_bytes(path, data)
    return len(data) // fmt.record_bytes


def book_bytes(fmt: BookFormat, records: Records, name: str = "book", check: bool = True) -> bytes:
    """The file bytes of a book of ``records``: sorted in the format's order and checked
    (values, duplicates, and with ``check`` legal positions of ``fmt.plies`` stones)."""
    path = name
    ordered = sort_records(fmt, records)
    too_wide = ordered.keys >> _U64(fmt.key_bits) if fmt.key_bits < 64 else None
    if too_wide is not None and too_wide.any():
        i = int(np.argmax(too_wide != 0))
        key = int(ordered.keys[i])
        raise BookFileError(f"{path}: key {key:#x} does not fit {fmt.key_bits} bits")
    check_records(fmt, ordered, str(path), decode=check)
    return records_to_bytes(fmt, ordered)
