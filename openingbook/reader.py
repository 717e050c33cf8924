"""Answer positions from a book file without loading it.

:class:`Book` memory-maps the file. A single lookup (:meth:`Book.get`) runs
the mirrored dual binary search of Thill's reader: one loop, two searches
side by side (the column code and the mirrored code) with the step sequence
``step = size - 1``, then ``(step + (step & 1)) >> 1`` down to 0, so it reads
about 2 x log2(records) records and nothing else. A bulk lookup
(:meth:`Book.lookup_many`) encodes numpy arrays of positions and runs
``np.searchsorted`` over the file's keys.

Two deliberate differences from the original Java reader, both about
correctness: a probe outside the array compares as "past the end" (the
original compares with the previously read code, so its search for a code
never reaches records 0-3 of the 8-ply file; it still answers those positions
because that file happens to store their mirror images too), and when the
step sequence cannot reach record 0 (sizes ``2^k + 1``) one extra probe reads it.

Answers (:class:`BookValue`): the winner, the plies to the end of the game
under perfect play (``None`` in a book without distances), and the Pons score
of the side to move (``None`` when only win/draw/loss is known; 0 for every
draw). What a position not stored answers (a win at once, the pruning rule of a
pruned book whose scope is known, or nothing) is the rule of
:class:`openingbook.answers.BookReader`, the same for every format.

Opening a book goes through :func:`openingbook.manifest.identify` (format,
size, record count and a sample of records against the manifest); whenever a
reader reads the whole file (``check``, ``verify``, bulk lookups,
:func:`openingbook.formats.load_book`, :func:`describe_book`) every record is checked and the
file's sha256 compared with its manifest.

>>> from solver import Position
>>> with Book(REFERENCE / "thill-original-book8.dat") as book:
...     book.format.name, book.records, len(book), book.get(Position.from_moves("44444455")).winner
('8-ply', 34286, 77715, <Winner.FIRST: 'first'>)
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
from typing import Any

import numpy as np

from openingbook.answers import BookReader
from openingbook.bookfile import (
    BookFormat,
    Records,
    check_distances,
    check_order,
    check_positions,
    check_values,
    parse_records,
    sort_records,
    value_histogram,
)
from openingbook.checks.booksizes import complete_positions
from openingbook.codec import (
    decode_keys,
    encodable,
    encode_key_pairs,
    encode_keys,
    legal_mask,
    position_key_pair,
)
from openingbook.errors import BookFileError, InvalidArgument, PositionNotInBook, reads_book
from openingbook.manifest import BookIdentity, identify, read_manifest
from openingbook.memory import require_memory
from openingbook.model import BookModel, Scope
from openingbook.values import (
    UNKNOWN,
    WINNER_CODES,
    BookValue,
    BulkValues,
    book_value,
    pruned_values,
    value_tables,
)
from solver import (
    STATUS_BOOK,
    BoardSize,
    Position,
)

__all__ = [
    "UNKNOWN",
    "WINNER_CODES",
    "Book",
    "BookValue",
    "BulkValues",
    "PositionNotInBook",
    "describe_book",
    "search_steps",
]

_BIG_ENDIAN_U64 = struct.Struct(">Q")


def search_steps(size: int) -> list[int]:
    """The step sequence of the dual binary search over ``size`` records.

    >>> search_steps(10)
    [5, 3, 2, 1, 0]
    """
    steps = []
    step = size - 1
    while step > 0:
        step = (step + (step & 1)) >> 1 if step != 1 else 0
        steps.append(step)
    return steps


class Book(BookReader):
    """A memory-mapped book file in Thill's layout: the reader contract of
    :class:`openingbook.answers.BookReader` (``get``, ``in``, iteration, bulk
    lookups), plus record access (``record``, ``records``, ``find``, ``lookup``).

    ``fmt`` forces a layout (else :func:`openingbook.manifest.detect_format`);
    either way :func:`openingbook.manifest.identify` checks the file against it
    and against its manifest (size, record count, a sample of records). With
    ``check`` or ``verify`` the whole file is verified first (order, values,
    positions, and the sha256 against the manifest). Answering a single
    lookup never parses more than the probed records.
    """

    @reads_book
    def __init__(
        self,
        path: str | os.PathLike[str],
        fmt: BookFormat | None = None,
        check: bool = False,
        verify: bool = False,
    ) -> None:
        self.identity: BookIdentity = identify(path, fmt)
        self.path = self.identity.path
        self.format = self.identity.fmt
        self._scope = self.identity.scope
        size = self.identity.size
        self._size = self.identity.records
        self._fh = open(self.path, "rb")  # noqa: SIM115 - closed by close()
        try:
            # an empty book (its manifest says 0 records) cannot be mapped: no probe reads it
            self._mm = mmap.mmap(self._fh.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        except BaseException:
            self._fh.close()
            raise
        self._order: np.ndarray | None = None
        self._values: np.ndarray | None = None
        self._not_book: tuple[np.ndarray | None] | None = None
        fmt = self.format
        self._luts = value_tables(fmt.plies, fmt.distances, fmt.board)
        self._verified = False
        if check or verify:
            self.verify()

    format_name = "thill"

    # ------------------------------------------------------------- lifecycle
    def _release(self) -> None:
        self._order = self._values = None
        if self._mm is not None and not self._mm.closed:
            self._mm.close()
        self._fh.close()

    # ------------------------------------------------------- what it is
    @property
    def board(self) -> BoardSize:
        return self.format.board

    @property
    def plies(self) -> int:
        return self.format.plies

    @property
    def kind(self) -> str:
        return "distance" if self.format.distances else "wdl"

    @property
    def scope(self) -> Scope:
        return self._scope

    def _records(self) -> int:
        return self._size

    @property
    def provenance(self) -> dict[str, Any]:
        if self.identity.manifest is None:
            return {}
        data = read_manifest(self.path)
        out = {
            "built_by": data.get("command"),
            "built": data.get("created"),
            "version": data.get("version"),
        }
        out.update({k: data[k] for k in ("derived_from", "merged_from") if k in data})
        return out

    def _count(self) -> int:
        """Positions answered: the manifest's value counts where every solved position is
        answered, a complete book's count, else the distinct stored positions."""
        answers_all = self.format.distances or self._scope.answers_absent
        manifest = self.identity.manifest
        if answers_all and manifest is not None:
            values = read_manifest(self.path).get("values")
            if isinstance(values, dict) and all(isinstance(v, int) for v in values.values()):
                return sum(values.values())
        if answers_all and self._scope.complete:
            known = complete_positions(self.format.board, self.format.plies)
            if known is not None:
                return known  # every position of the ply
        return len(self._answered_positions()[0])

    def _answered_positions(self) -> tuple[np.ndarray, np.ndarray]:
        fmt = self.format
        if not fmt.distances and self._scope.answers_absent:
            # a pruned book answers every position of its scope: enumerate them
            from solver import enumerate_positions

            return enumerate_positions(fmt.plies, self._scope.under, *fmt.board)
        from solver import canonical_keys

        recs = self.records_array()
        first, mask = decode_keys(
            recs.keys, fmt.key_bits, fmt.plies, fmt.width, fmt.height, check_legal=False
        )
        _, once = np.unique(canonical_keys(first, mask, *fmt.board), return_index=True)
        once.sort()  # file order; a mirror pair stored twice once
        return first[once], mask[once]

    def __repr__(self) -> str:
        return f"Book({str(self.path)!r}, {self.format.name}, {self._size} records)"

    # --------------------------------------------------------------- records
    def verify(self) -> None:
        """Check every record (values, order, legal positions of the ply) and compare the
        file's sha256 with its manifest's; :class:`BookFileError` on the first problem."""
        self._verify()

    def _verify(self, keep: list[Records] | None = None) -> None:
        """:meth:`verify`; ``keep`` collects the records of the file, parsed on the way."""
        if self._verified:
            return
        # a parity fault is answerable (describe_book reports it): not checked here
        labels = ["values", "order", "positions"]
        problems, _, digest = scan_book(self.identity, labels, keep=keep)
        for label in labels:
            if label in problems:
                raise BookFileError(f"{self.path}: {problems[label]}")
        self.identity.verify_sha256(digest)
        self._verified = True

    def check_order(self) -> None:
        """Raise :class:`BookFileError` unless the records ascend (streamed): a binary
        search, and so "not stored", is only right in a sorted file."""
        problems, _, _ = scan_book(self.identity, ["order"])
        if problems:
            raise BookFileError(f"{self.path}: {problems['order']}")

    def records_array(self) -> Records:
        """All records as arrays (no Python object per record); the whole file is read, so
        it is verified first (:meth:`verify`)."""
        if not self._verified:  # verified and parsed in one pass over the file
            chunks: list[Records] = []
            self._verify(keep=chunks)
            if len(chunks) == 1:
                return chunks[0]
            if chunks:
                return Records(
                    np.concatenate([c.keys for c in chunks]),
                    np.concatenate([c.values for c in chunks]),
                )
        data = self._file_bytes()
        try:
            return parse_records(data, self.format)
        finally:
            del data

    def require_memory(self) -> None:
        """Refuse, before reading, a book whose records and their decoded positions would
        not fit in the memory available (:func:`openingbook.memory.require_memory`)."""
        require_memory(
            self._size * _BYTES_PER_RECORD, f"{self.path}: reading its {self._size:,} records"
        )

    def _file_bytes(self) -> np.ndarray:
        """The file as a read-only byte array (memory-mapped; empty for an empty book)."""
        if self._size == 0:
            return np.empty(0, dtype=np.uint8)
        return np.memmap(self.path, dtype=np.uint8, mode="r")

    def record(self, index: int) -> tuple[int, int]:
        """``(key, value)`` of one record, read from the map."""
        if not 0 <= index < self._size:
            raise IndexError(f"record {index} outside 0..{self._size - 1}")
        return self._read(index)

    def _read(self, index: int) -> tuple[int, int]:
        fmt = self.format
        start = index * fmt.record_bytes
        field = int.from_bytes(self._mm[start : start + fmt.key_bytes], "big")
        if fmt.distances:
            byte = self._mm[start + fmt.key_bytes]
            return field, byte - 256 if byte > 127 else byte
        return field & ~3, field & 3

    # --------------------------------------------------------- single lookup
    def dual_search(self, key: int, mirrored: int) -> tuple[int | None, int]:
        """Find ``key`` or ``mirrored`` (column-code keys): ``(record index or None, probes)``."""
        fmt = self.format
        size = self._size
        mm = self._mm
        rb, kb = fmt.record_bytes, fmt.key_bytes
        # compare in file order: flip the sign bit of signed keys (offset binary)
        flip = 1 << (fmt.key_bits - 1) if fmt.signed_order else 0
        # read 8 bytes ending with the key (one C call, no slice), keep the key bits;
        # pruned books also drop the two value bits
        keep = ((1 << fmt.key_bits) - 1) & (-1 if fmt.distances else ~3)
        unpack = _BIG_ENDIAN_U64.unpack_from
        target, target_m = key ^ flip, mirrored ^ flip
        past_end = 1 << 64
        probes = 0

        def code_at(p: int) -> int:
            """The key of record ``p`` in file order; outside the file: past that end."""
            nonlocal probes
            if not 0 <= p < size:
                return past_end if p >= size else -1
            probes += 1
            start = p * rb + kb - 8
            if start >= 0:
                return (unpack(mm, start)[0] & keep) ^ flip
            return (int.from_bytes(mm[start + 8 - kb : start + 8], "big") & keep) ^ flip

        pos = pos_m = step = size - 1
        while step > 0:
            step = (step + (step & 1)) >> 1 if step != 1 else 0
            code = code_at(pos)
            if target < code:
                pos -= step
            elif target > code:
                pos += step
            else:
                return pos, probes
            code = code_at(pos_m)
            if target_m < code:
                pos_m -= step
            elif target_m > code:
                pos_m += step
            else:
                return pos_m, probes
        # the steps add up to one short of record 0 when size - 1 is a power of two
        if (size == 1 or pos == 1 or pos_m == 1) and code_at(0) in (target, target_m):
            return 0, probes
        return None, probes

    def find(self, pos: Position) -> int | None:
        """The index of the record holding ``pos`` or its mirror image, else None."""
        self._check_position(pos)
        return self.dual_search(*position_key_pair(pos, self.format.key_bits))[0]

    def stores(self, pos: Position) -> bool:
        """Is ``pos`` (or its mirror image) one of the file's records?"""
        return self.find(pos) is not None

    def _stored(self, pos: Position) -> BookValue | None:
        index = self.find(pos)
        return None if index is None else self._value(self._read(index)[1], index)

    def lookup(self, pos: Position) -> tuple[BookValue, int | None]:
        """:meth:`get` plus the index of the record that answered (None: not stored).

        "Not stored" comes from a binary search, which is only right in a sorted file:
        unless the book was verified, the order of its records is checked first
        (streamed; about 0.2 s for a 12-ply book)."""
        self._require_open()
        index = self.find(pos)
        if index is None and not pos.can_win_next() and not self._verified:
            self.check_order()
        return self.get(pos), index

    def _absent_why(self, which: str) -> str:
        """Why a missing position has no answer."""
        name = self.path.name
        if not self.scope.known and not self.format.distances:
            return (
                f"{which} is not stored in {name}, and its scope is unknown: "
                f"{self.scope.unknown_why}, so a position it does not store is not "
                "known to be a first-player win"
            )
        if self.scope.partial:
            scope = self.scope.describe()
            return f"{which} is not in {name}, which holds {scope}: its value is unknown"
        n = self.format.plies
        return (
            f"{which} is not in {name}: a {self.format.name} book stores every "
            f"{n}-stone position where the side to move cannot win at once"
        )

    def _check_position(self, pos: Position) -> None:
        if (pos.width, pos.height) != self.format.board:
            raise PositionNotInBook(
                f"the book is for {self.format.board} boards, not {pos.width}x{pos.height}"
            )
        n = pos.stone_count
        if n != self.format.plies:
            raise PositionNotInBook(
                f"the position has {n} stones; {self.path.name} holds "
                f"{self.format.plies}-stone positions"
            )

    def _value(self, raw: int, index: int | None = None) -> BookValue:
        winner_lut, plies_lut, score_lut, valid_lut = self._luts
        b = raw & 0xFF
        if not valid_lut[b]:
            where = f"record {index}" if index is not None else "a record"
            raise BookFileError(f"{self.path}: {where} has the impossible value {raw}")
        return book_value(int(winner_lut[b]), int(plies_lut[b]), int(score_lut[b]))

    @property
    def _absent_first_wins(self) -> bool:
        """Is a missing position in scope a first-player win (the pruning rule)?"""
        return not self.format.distances and self.scope.answers_absent

    # ---------------------------------------------------------- bulk lookup
    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._order is None or self._values is None:
            recs = self.records_array()  # the whole file is read anyway: verified
            self._order = self.format.order_keys(recs.keys)
            self._values = recs.values
        return self._order, self._values

    def find_many(self, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Record index of each position or its mirror image (-1 where not stored).

        Raises :class:`InvalidArgument` naming the first position with the wrong stone
        count or an illegal board.
        """
        first = np.asarray(first, dtype=np.uint64)
        mask = np.asarray(mask, dtype=np.uint64)
        fmt = self.format
        counts = np.bitwise_count(mask)
        wrong = counts != fmt.plies
        if wrong.any():
            i = int(np.argmax(wrong))
            raise InvalidArgument(
                f"position {i} has {int(counts.flat[i])} stones; {self.path.name} holds "
                f"{fmt.plies}-stone positions"
            )
        illegal = ~legal_mask(first, mask, fmt.height)
        if illegal.any():
            i = int(np.argmax(illegal))
            raise InvalidArgument(f"position {i} is not legal (stone counts or four in a row)")
        return self._find_sorted(first, mask)

    def _find_sorted(
        self, first: np.ndarray, mask: np.ndarray, checked: bool = False
    ) -> np.ndarray:
        fmt = self.format
        keys, mirrored = encode_key_pairs(
            first, mask, fmt.key_bits, fmt.width, fmt.height, checked=checked
        )
        order, _ = self._arrays()
        index = _search_sorted(order, fmt.order_keys(keys))
        # the mirror image only where the position itself is not stored
        missing = np.flatnonzero(index < 0)
        if len(missing):
            index[missing] = _search_sorted(order, fmt.order_keys(mirrored[missing]))
        return index

    def _records_not_book(self) -> np.ndarray | None:
        """The records whose position is not a position of the book
        (:data:`solver.STATUS_BOOK`: legal, reachable, in scope, no win at once), as a
        lookup table by record index + 1 (entry 0: not stored); None when every record's
        is (a book as written). Checked once, when the records are first searched in bulk."""
        if self._not_book is None:
            fmt = self.format
            keys = self.records_array().keys
            first, mask = decode_keys(
                keys, fmt.key_bits, fmt.plies, fmt.width, fmt.height, check_legal=False
            )
            not_book = self.statuses(first, mask) != STATUS_BOOK
            self._not_book = (np.concatenate(([False], not_book)),) if not_book.any() else (None,)
        return self._not_book[0]

    def _stored_checked_many(self, first: np.ndarray, mask: np.ndarray) -> BulkValues:
        """The records are checked positions of the book (:meth:`_records_not_book`): a
        position found among them is one, with no check of its own beyond its stone count
        and the bitboards a key encodes."""
        fmt = self.format
        n = first.size
        searchable = (np.bitwise_count(mask) == fmt.plies) & encodable(first, mask, *fmt.board)
        if searchable.all():
            stored = self._stored_many(first, mask, checked=True)
        else:
            rows = np.flatnonzero(searchable)
            stored = BulkValues(
                np.full(n, -1, np.int64),
                np.full(n, UNKNOWN, np.int8),
                np.full(n, UNKNOWN, np.int16),
                np.full(n, UNKNOWN, np.int16),
            )
            part = self._stored_many(first[rows], mask[rows], checked=True)
            for whole, a in zip(stored, part, strict=True):
                whole[rows] = a
        not_book = self._records_not_book()
        if not_book is not None:  # those records' positions are left to the full check
            unchecked = not_book[stored.index + 1]
            stored.index[unchecked] = -1
            for a in stored[1:]:
                a[unchecked] = UNKNOWN
        return stored

    def _stored_many(
        self, first: np.ndarray, mask: np.ndarray, checked: bool = False
    ) -> BulkValues:
        """``checked``: every position is of the book's ply with bitboards a key encodes."""
        index = self._find_sorted(first, mask, checked)
        _, values = self._arrays()
        winner_lut, plies_lut, score_lut, valid_lut = self._luts
        # value bytes as intp indices into the per-byte tables (fast gathers)
        if values.size:
            raw = values.take(np.maximum(index, 0)).view(np.uint8).astype(np.intp)
        else:  # an empty book: nothing stored, every index -1
            raw = np.zeros(index.shape, np.intp)
        found = index >= 0
        valid = valid_lut.take(raw)
        if not valid[found].all():
            bad = int(index[found][np.argmax(~valid[found])])
            raise BookFileError(f"{self.path}: record {bad} has an impossible value")
        winner = np.where(found, winner_lut.take(raw), UNKNOWN).astype(np.int8)
        plies = np.where(found, plies_lut.take(raw), UNKNOWN).astype(np.int16)
        score = np.where(found, score_lut.take(raw), UNKNOWN).astype(np.int16)
        return BulkValues(index, winner, plies, score)


def _search_sorted(order: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Index of each target in the ascending ``order`` array, -1 where absent.

    The targets are searched in ascending order: consecutive binary searches then
    walk nearby memory, several times faster than random queries on a large book.
    """
    if len(order) == 0 or len(targets) == 0:
        return np.full(len(targets), -1, dtype=np.int64)
    perm = np.argsort(targets)
    ascending = targets[perm]
    at = np.searchsorted(order, ascending)
    np.minimum(at, len(order) - 1, out=at)
    hit = order[at] == ascending
    out = np.empty(len(targets), dtype=np.int64)
    out[perm] = np.where(hit, at, -1)
    return out


# ------------------------------------------------------------------ whole books
#: Memory per record of a whole book in arrays (keys, values, decoded positions,
#: sort orders and the temporaries of checking them), bytes.
_BYTES_PER_RECORD = 64


_CHECKS = {
    "values": check_values,
    "order": check_order,
    "positions": check_positions,
    "distances": check_distances,
}


def scan_book(
    identity: BookIdentity,
    labels: list[str],
    chunk_records: int = 1 << 20,
    keep: list[Records] | None = None,
) -> tuple[dict[str, str], np.ndarray, str]:
    """Stream a whole book file (memory-mapped, ``chunk_records`` at a time) through the
    checks named in ``labels`` (``values``, ``order``, ``positions``, ``distances``).

    Returns ``(problems, counts, sha256)``: the first problem of each failing check
    (message without the file name), the count of each raw value byte, and the
    file's sha256. Memory stays small whatever the file size, unless ``keep`` (a list)
    collects the parsed records of every chunk.
    """
    fmt, rb, name = identity.fmt, identity.fmt.record_bytes, str(identity.path)
    problems: dict[str, str] = {}
    counts = np.zeros(256, np.int64)
    digest = hashlib.sha256()
    if identity.size == 0:
        return problems, counts, digest.hexdigest()
    data = np.memmap(identity.path, dtype=np.uint8, mode="r")
    try:
        for start in range(0, identity.records, chunk_records):
            stop = min(identity.records, start + chunk_records)
            digest.update(data[start * rb : stop * rb])
            # one record before the chunk, so that the order check spans the boundary
            lo = max(0, start - 1)
            records = parse_records(data[lo * rb : stop * rb], fmt)
            own = Records(records.keys[start - lo :], records.values[start - lo :])
            if keep is not None:
                keep.append(own)
            counts += np.bincount(own.values.view(np.uint8), minlength=256)
            for label in labels:
                if label in problems or (label == "distances" and not fmt.distances):
                    continue
                recs, offset = (records, lo) if label == "order" else (own, start)
                try:
                    _CHECKS[label](fmt, recs, name, offset)
                except BookFileError as exc:
                    problems[label] = str(exc).removeprefix(f"{name}: ")
    finally:
        del data
    return problems, counts, digest.hexdigest()


def describe_book(
    path: str | os.PathLike[str], fmt: BookFormat | None = None, chunk_records: int = 1 << 20
) -> dict[str, object]:
    """Format, scope, record count, value histogram and the file checks, as a JSON-ready dict.

    Streams the file (``chunk_records`` at a time, memory-mapped): memory stays
    small whatever the file size. Raises for a file that does not fit its
    format or manifest (:func:`openingbook.manifest.identify`); the
    order/value/position/distance checks and the sha256 comparison are reported
    as ``"ok"`` or the problem.
    """
    identity = identify(path, fmt)
    fmt = identity.fmt
    labels = ["values", "order", "positions"] + (["distances"] if fmt.distances else [])
    problems, counts, digest = scan_book(identity, labels, chunk_records)
    checks = {label: problems.get(label, "ok") for label in labels}
    if identity.manifest is not None:
        try:
            identity.verify_sha256(digest)
            checks["sha256"] = "ok"
        except BookFileError as exc:
            checks["sha256"] = str(exc).split(": ", 1)[-1]
    raw = np.arange(256, dtype=np.uint8).view(np.int8)
    return {
        "path": str(path),
        "format": fmt.name,
        "description": fmt.describe(),
        "format_from": identity.format_from,
        "manifest": None if identity.manifest is None else str(identity.manifest.path),
        "scope": identity.scope.describe(),
        "plies": fmt.plies,
        "distances": fmt.distances,
        "record_bytes": fmt.record_bytes,
        "key_bits": fmt.key_bits,
        "signed_order": fmt.signed_order,
        "records": identity.records,
        "bytes": identity.size,
        "values": value_histogram(fmt, raw, weights=counts),
        "checks": checks,
        "ok": all(v == "ok" for v in checks.values()),
    }


# ------------------------------------------------------------------ a model as records
def thill_values(model: BookModel) -> tuple[BookFormat, np.ndarray]:
    """The model's values in Thill's layout of its ply and board: ``(fmt, values)``, one
    value per position of the model (nothing pruned yet): distance bytes where the
    plies are known (``100 - plies`` signed by the winner, 0 for a draw), else the pruned
    codes (2 first player wins, 1 second, 0 draw)."""
    distances = model.has_distances
    fmt = BookFormat.for_plies(model.plies, distances, *model.board)
    if distances:
        signed = model.winner.astype(np.int16) * (100 - model.plies_to_end)
        return fmt, signed.astype(np.int8)
    return fmt, pruned_values(model.winner)


def thill_records(model: BookModel) -> tuple[BookFormat, Records]:
    """The model as the records of a Thill-layout book: the file's own where the model
    was loaded as stored, else sorted, a book without distances leaving its first-player
    wins out where its scope answers them by the pruning rule."""
    if model.stored is not None:
        return model.stored

    fmt, values = thill_values(model)
    first, mask = model.first, model.mask
    if not fmt.distances and model.scope.answers_absent:
        keep = values != 2
        first, mask, values = first[keep], mask[keep], values[keep]
    keys = encode_keys(first, mask, fmt.key_bits, fmt.width, fmt.height)
    return fmt, sort_records(fmt, Records(keys, values.astype(np.int8)))
