"""The compact book format: a self-describing file that answers positions without keys.

A compact book (``.c4b``) is a header followed by a payload (``docs/FORMATS.md``
specifies both byte for byte):

* **complete** books (every position of a ply) store no positions at all: the
  set of positions is the position model's (:func:`openingbook.solver.book_position_status`),
  and the payload maps the canonical position key to an index into the header's
  value table. Version 3 (written): the index's codeword in a Huffman code chosen
  by the position's context (:mod:`openingbook.formats.compact.contexts`), stored in a compressed
  static function (:mod:`openingbook.formats.compact.compressed`); a lookup checks the position,
  takes the smaller-key variant of its mirror pair, hashes it, XORs three 64-bit
  windows of one bit array and decodes the codeword (a table indexed by its low
  bits). Version 2 (read, and written on request): a retrieval table
  (:mod:`openingbook.formats.compact.retrieval`) of ``r``-bit cells, three of them XORed. Either
  way a handful of memory reads, no search.
* **scoped** books (the positions under a line) have the same table, over
  the positions of their scope, and the scope line in the header: a position
  is answered only when a game continuing the line reaches it (or its mirror
  image), an exact check (:func:`openingbook.solver.under_line`).
* **parts** (part ``i`` of ``n`` of a ply, :func:`openingbook.solver.enumerate.part_of`) have
  the table over the part's positions and ``i/n`` in the header's scope field: a
  position is answered only when its canonical key hashes to part ``i``, an exact
  check; every other position of the ply is not in the book, never a wrong answer.

Value kinds: win/draw/loss (``+1`` first player wins, ``0`` draw, ``-1`` second
player wins), distance (Thill's signed distance byte: ``100 - d`` when the first
player wins in ``d`` plies, ``d - 100`` when the second does, ``0`` for a draw)
and score (Pons score of the side to move).

>>> import numpy as np, tempfile, os
>>> from openingbook.solver import Position, enumerate_positions
>>> first, mask = enumerate_positions(2, None, 7, 6)
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "b2.c4b")
...     values = np.zeros(len(first), np.int8)
...     _ = write_compact(path, 2, "wdl", first, mask, values, board=BoardSize(7, 6))
...     with CompactBook(path) as book:
...         book.get(Position.from_moves("17")).winner.value, len(book)
('draw', 25)
"""

from __future__ import annotations

import collections
import contextlib
import json
import math
import mmap
import os
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.answers import (
    PIECEWISE_POSITIONS,
    BookReader,
    nb_position_status,
)
from openingbook.atomicio import atomic_output, refuse_existing
from openingbook.checks.booksizes import complete_positions
from openingbook.errors import BookClosed, BookFileError, InvalidArgument, reads_book
from openingbook.formats.base import Format, WrittenBook, require_writable
from openingbook.formats.compact.compressed import (
    FIRST_FACTOR,
    LONGER,
    MAX_CODE,
    build_function,
    code_lengths,
    decode_longer,
    decoding_tables,
    nb_window,
)
from openingbook.formats.compact.contexts import (
    CONTEXT_FUNCTIONS,
    CONTEXT_NONE,
    CONTEXT_THREATS_CENTRE,
    context_constants,
    context_space,
    nb_context,
    nb_context_of_cells,
    position_contexts,
)
from openingbook.formats.compact.retrieval import (
    build_retrieval,
    nb_cells,
    nb_cells_value,
    nb_mix,
)
from openingbook.inputs import require_regular_file
from openingbook.memory import release_freed_memory
from openingbook.solver import (
    DEFAULT_BOARD,
    STATUS_MESSAGES,
    STATUS_OK,
    BoardSize,
    Position,
    book_position_status,
    canonical_keys,
    count_positions,
    enumerate_positions,
    nb_block_status,
    nb_canonical_key,
    nb_winning_cells,
    njit,
    parse_board_size,
    prefetch,
)
from openingbook.values import (
    UNKNOWN,
    BookValue,
    BulkValues,
    answer_tables,
    book_value,
    distance_bytes_from_scores,
)

if TYPE_CHECKING:
    from openingbook.model import BookModel, Scope

__all__ = [
    "COMPACT_SUFFIX",
    "KINDS",
    "MAGIC",
    "CompactBook",
    "CompactFileError",
    "CompactFormat",
    "CompactHeader",
    "canonical_keys",
    "describe_compact",
    "file_crc32",
    "is_compact",
    "provenance",
    "read_header",
    "write_compact",
]

MAGIC = b"C4BOOK\x1a\n"
COMPACT_SUFFIX = ".c4b"

#: Version 3: each value stored as its codeword in a prefix code per context
#: (:mod:`openingbook.formats.compact.compressed`). Version 2, still read (and written on request):
#: a retrieval table of fixed-width value indices. Both have the CRC-32 over the whole
#: file (version 1 covered only the payload, so a damaged header field could still
#: give answers; version 1 files are refused).
VERSION = 3
#: The versions this module reads and writes.
VERSIONS = (2, 3)
#: Offset and size of the CRC-32 field in the fixed header.
_CRC_AT = 40
#: Value kinds, by their code in the header.
KINDS = ("wdl", "distance", "score")
STRUCTURE_COMPLETE = 0
STRUCTURE_SCOPED = 1
STRUCTURE_PART = 2
_FIXED = struct.Struct("<8sHBBBBBBQQIIIIQBBHI")
FIXED_HEADER_BYTES = _FIXED.size  # 64


def is_compact(path: str | os.PathLike[str]) -> bool:
    """Does the file start with the compact format's magic? (A FIFO or a device is
    refused unopened: :func:`openingbook.inputs.require_regular_file`.)

    >>> is_compact("no-such-file.c4b")
    False
    """
    if os.path.isdir(path):
        return False
    try:
        require_regular_file(path)
        with open(path, "rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC
    except (IsADirectoryError, FileNotFoundError):
        return False


class CompactFileError(BookFileError):
    """A file that is not a valid compact book (the message names the file)."""


@dataclass
class CompactHeader:
    """The header fields (see ``docs/FORMATS.md``)."""

    width: int
    height: int
    plies: int
    kind: str
    structure: int
    value_bits: int
    positions: int
    seed: int
    segment_length: int
    segment_count: int
    crc32: int
    header_bytes: int
    payload_bytes: int
    values: list[int]
    scope: str | None
    metadata: dict[str, Any] = field(default_factory=dict)
    version: int = VERSION
    #: version 3: the context function (:mod:`openingbook.formats.compact.contexts`)
    context_function: int = 0

    @property
    def complete(self) -> bool:
        return self.structure == STRUCTURE_COMPLETE

    @property
    def board(self) -> BoardSize:
        return BoardSize(self.width, self.height)

    @property
    def line(self) -> str | None:
        """The scope line of a scoped book (None for other structures)."""
        return self.scope if self.structure == STRUCTURE_SCOPED else None

    @property
    def part(self) -> tuple[int, int] | None:
        """``(i, n)`` of a part (None for other structures)."""
        return _parse_part(self.scope) if self.structure == STRUCTURE_PART else None

    def pack(self) -> bytes:
        """The header bytes, zero-padded to ``header_bytes`` (a multiple of 8)."""
        scope = (self.scope or "").encode("ascii")
        meta = _metadata_bytes(self.metadata, self.version)
        fixed = _FIXED.pack(
            MAGIC,
            self.version,
            self.width,
            self.height,
            self.plies,
            KINDS.index(self.kind),
            self.structure,
            self.value_bits,
            self.positions,
            self.seed,
            self.segment_length,
            self.segment_count,
            self.crc32,
            self.header_bytes,
            self.payload_bytes,
            len(self.values),
            len(scope),
            self.context_function if self.version >= 3 else 0,
            len(meta),
        )
        body = fixed + struct.pack(f"<{len(self.values)}b", *self.values) + scope + meta
        return body + b"\0" * (self.header_bytes - len(body))

    @staticmethod
    def size_for(
        values: int, scope: str | None, metadata: dict[str, Any], version: int = VERSION
    ) -> int:
        meta = _metadata_bytes(metadata, version)
        n = FIXED_HEADER_BYTES + values + len(scope or "") + len(meta)
        return -(-n // 8) * 8

    @classmethod
    def parse(cls, data: bytes | mmap.mmap, name: str, file_size: int) -> CompactHeader:
        """Parse and check the header of a file of ``file_size`` bytes."""
        if file_size < FIXED_HEADER_BYTES or bytes(data[:8]) != MAGIC:
            raise CompactFileError(f"{name}: not a compact book (no {MAGIC!r} magic)")
        (
            _,
            version,
            width,
            height,
            plies,
            kind,
            structure,
            bits,
            positions,
            seed,
            seg_len,
            seg_count,
            crc,
            header_bytes,
            payload_bytes,
            nvalues,
            nscope,
            reserved,
            nmeta,
        ) = _FIXED.unpack_from(data, 0)
        if version == 1:
            raise CompactFileError(
                f"{name}: compact format version 1, whose header has no checksum (this "
                f"reader reads version {VERSION}): write the book again"
            )
        if version not in VERSIONS:
            raise CompactFileError(
                f"{name}: compact format version {version}, expected "
                f"{' or '.join(map(str, VERSIONS))}"
            )
        try:
            board = parse_board_size(f"{width}x{height}")
        except ValueError as exc:
            raise CompactFileError(f"{name}: bad compact book header: {exc}") from None
        problems = []
        if kind >= len(KINDS):
            problems.append(f"unknown value kind {kind}")
        if structure not in (STRUCTURE_COMPLETE, STRUCTURE_SCOPED, STRUCTURE_PART):
            problems.append(f"unknown structure {structure}")
        if version == 2 and (not nvalues >= 1 or nvalues > 1 << bits or not 1 <= bits <= 8):
            problems.append(f"{nvalues} values in {bits}-bit fields")
        if version >= 3 and (not 1 <= nvalues <= LONGER or bits > MAX_CODE):
            problems.append(f"{nvalues} values, codewords of up to {bits} bits")
        context_function, reserved = reserved & 0xFF, reserved >> 8
        if version == 2 and context_function:
            reserved = 1
        if version >= 3 and context_function not in CONTEXT_FUNCTIONS:
            problems.append(f"unknown context function {context_function}")
        if not 0 <= plies <= board.cells or reserved:
            problems.append("ply or reserved field out of range")
        expected_header = -(-(FIXED_HEADER_BYTES + nvalues + nscope + nmeta) // 8) * 8
        if header_bytes != expected_header:
            problems.append(f"header length {header_bytes}, expected {expected_header}")
        if header_bytes + payload_bytes != file_size:
            problems.append(
                f"{file_size} bytes, the header announces {header_bytes + payload_bytes}"
            )
        if not problems:
            # S * L <= 2^32: the cell formula's 64-bit product (h >> 32) * (S * L) cannot wrap
            if (
                seg_len < 4
                or seg_len & (seg_len - 1)
                or seg_len > 1 << 16
                or seg_count < 1
                or seg_len * seg_count > 1 << 32
            ):
                problems.append(f"segment length {seg_len} / count {seg_count}")
            elif version == 2 and payload_bytes != 8 * (
                (seg_len * (seg_count + 2) * bits + 63) // 64 + 1
            ):
                problems.append("payload length does not match the table size")
            elif version >= 3 and payload_bytes < 8 + _bit_array_bytes(seg_len, seg_count):
                problems.append("payload shorter than its bit array")
            if (structure != STRUCTURE_COMPLETE) != (nscope > 0):
                problems.append("a scope belongs to a scoped book or a part, and only there")
            # a complete book's table answers every position of its ply: it must have
            # been built over all of them, or it answers positions it never held
            need = complete_positions(board, plies) if structure == STRUCTURE_COMPLETE else None
            if need is not None and positions != need:
                problems.append(
                    f"a complete {plies}-ply book of {positions:,} positions, where a "
                    f"complete {board} {plies}-ply book has {need:,} (damaged, or a partial book)"
                )
        if problems:
            raise CompactFileError(f"{name}: bad compact book header: {'; '.join(problems)}")
        at = FIXED_HEADER_BYTES
        values = list(struct.unpack_from(f"<{nvalues}b", data, at))
        at += nvalues
        try:
            scope = bytes(data[at : at + nscope]).decode("ascii") or None
            at += nscope
            meta = bytes(data[at : at + nmeta])
            if version >= 3 and nmeta:
                meta = zlib.decompress(meta)
            metadata = json.loads(meta.decode()) if nmeta else {}
        except (ValueError, RecursionError, zlib.error) as exc:  # json: too deeply nested
            raise CompactFileError(f"{name}: bad compact book header ({exc})") from None
        if scope is not None and structure == STRUCTURE_PART:
            try:
                _parse_part(scope)
            except ValueError as exc:
                raise CompactFileError(f"{name}: bad part {scope!r} ({exc})") from None
        elif scope is not None:
            try:
                Position.from_moves(scope, width, height)
                if len(scope) > plies:
                    raise InvalidArgument(f"{len(scope)} moves, more than the book's {plies} plies")
            except ValueError as exc:
                raise CompactFileError(f"{name}: bad scope line {scope!r} ({exc})") from None
        if sorted(set(values)) != values:
            raise CompactFileError(f"{name}: the value table is not strictly ascending")
        try:  # the header has no checksum: a value no game can have is damage
            _check_values(KINDS[kind], plies, np.array(values), board.cells)
        except ValueError as exc:
            raise CompactFileError(f"{name}: bad value table ({exc})") from None
        return cls(
            width,
            height,
            plies,
            KINDS[kind],
            structure,
            bits,
            positions,
            seed,
            seg_len,
            seg_count,
            crc,
            header_bytes,
            payload_bytes,
            values,
            scope,
            metadata if isinstance(metadata, dict) else {},
            version,
            context_function,
        )


def _metadata_bytes(metadata: dict[str, Any], version: int) -> bytes:
    """The header's metadata: JSON text, zlib-compressed from version 3 on."""
    meta = json.dumps(metadata, separators=(",", ":")).encode()
    return zlib.compress(meta, 9) if version >= 3 else meta


def _bit_array_bytes(segment_length: int, segment_count: int) -> int:
    """Bytes of version 3's bit array: ``(S + 2) * L + MAX_CODE`` bits in 64-bit words,
    then one zero word."""
    return 8 * (-(-((segment_count + 2) * segment_length + MAX_CODE) // 64) + 1)


def _choose_contexts(
    contexts: np.ndarray, index: np.ndarray, nvalues: int, board: BoardSize
) -> tuple[int, np.ndarray, np.ndarray]:
    """The context function that makes the smaller file, given each key's context under
    :data:`CONTEXT_THREATS_CENTRE` and its value index: ``(function, used contexts
    ascending, each key's row among them)``. A small book's code tables can cost more
    than its contexts save: then none."""
    space = context_space(CONTEXT_THREATS_CENTRE, *board)
    counts = np.bincount(
        contexts.astype(np.int64) * nvalues + index, minlength=space * nvalues
    ).reshape(space, nvalues)
    used = np.flatnonzero(counts.sum(axis=1))

    def cost(rows: np.ndarray, contexts_used: np.ndarray) -> float:
        bits = sum(int((row * np.maximum(code_lengths(row), 0)).sum()) for row in rows)
        return FIRST_FACTOR * bits + 8 * len(_pack_codes(contexts_used, np.zeros((0, 0))))

    whole = counts.sum(axis=0, keepdims=True)
    if cost(counts[used], used) + 4 * used.size * nvalues < cost(whole, np.zeros(1, np.int64)):
        # each key's row in the smallest type that holds them (a byte: the peeling's peak
        # holds one per key)
        row_of = np.zeros(space, np.min_scalar_type(max(used.size - 1, 0)))
        row_of[used] = np.arange(used.size)
        return CONTEXT_THREATS_CENTRE, used, row_of[contexts]
    return CONTEXT_NONE, np.zeros(1, np.int64), np.zeros(contexts.size, np.uint8)


def _pack_codes(used: np.ndarray, lengths: np.ndarray) -> bytes:
    """Version 3's code section (``docs/FORMATS.md``): the used contexts (ascending) as
    LEB128 gaps, then a 4-bit length field per context and value (``lengths`` as
    :func:`.compressed.code_lengths` gives them: -1 absent, 0 the one value of a
    one-value context, stored as 1), zero-padded to a multiple of 8 bytes."""
    gaps = bytearray()
    previous = 0
    for k, context in enumerate(used.tolist()):
        gap = context - previous if k else context
        previous = context
        while True:
            low, gap = gap & 0x7F, gap >> 7
            gaps.append(low | (0x80 if gap else 0))
            if not gap:
                break
    fields = np.where(lengths < 0, 0, np.where(lengths == 0, 1, lengths)).astype(np.uint8)
    fields = fields.reshape(-1)
    if fields.size % 2:
        fields = np.append(fields, np.uint8(0))
    nibbles = (fields[0::2] | (fields[1::2] << 4)).astype(np.uint8).tobytes()
    body = struct.pack("<II", used.size, len(gaps)) + bytes(gaps) + nibbles
    return body + b"\0" * (-len(body) % 8)


def _parse_codes(
    data: memoryview, nvalues: int, space: int, longest: int, name: str
) -> tuple[np.ndarray, np.ndarray, int]:
    """The code section at the start of ``data`` (a version 3 payload): ``(used
    contexts, lengths as :func:`_pack_codes` takes them, the section's bytes)``;
    :class:`CompactFileError` for any rule ``docs/FORMATS.md`` states broken."""

    def bad(why: str) -> CompactFileError:
        return CompactFileError(f"{name}: bad code tables: {why} (damaged file)")

    if len(data) < 8:
        raise bad("no code section")
    count, nlist = struct.unpack_from("<II", data, 0)
    nfields = count * nvalues
    size = -(-(8 + nlist + (nfields + 1) // 2) // 8) * 8
    if not 1 <= count <= space or size > len(data):
        raise bad(f"{count} used contexts in {nlist} bytes")
    raw = bytes(data[8 : 8 + nlist])
    used = np.empty(count, np.int64)
    k = at = 0
    previous = -1
    while k < count:
        value = shift = 0
        while True:
            if at >= nlist or shift > 35:
                raise bad("the context list is cut short")
            byte = raw[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        context = value if k == 0 else previous + value
        if (k and value == 0) or context >= space:
            raise bad(f"context {context} after {previous}")
        used[k] = previous = context
        k += 1
    if at != nlist:
        raise bad("the context list is longer than its contexts")
    packed = np.frombuffer(data, np.uint8, (nfields + 1) // 2, 8 + nlist)
    fields = np.empty(2 * packed.size, np.int64)
    fields[0::2], fields[1::2] = packed & 0x0F, packed >> 4
    if fields.size > nfields and fields[-1]:
        raise bad("nonzero padding")
    if any(bytes(data[8 + nlist + packed.size : size])):
        raise bad("nonzero padding")
    fields = fields[:nfields].reshape(count, nvalues)
    lengths = np.where(fields == 0, -1, fields)
    one_value = (fields > 0).sum(axis=1) == 1
    lengths[one_value] = np.where(fields[one_value] == 1, 0, lengths[one_value])
    coded = np.where(lengths > 0, lengths, 0)
    kraft = np.where(lengths > 0, 2.0 ** -coded.astype(np.float64), 0.0).sum(axis=1)
    if ((fields > 0).sum(axis=1) == 0).any():
        raise bad("a context with no value")
    if ((~one_value) & (kraft != 1.0)).any() or (one_value & (fields.max(axis=1) != 1)).any():
        raise bad("a code that is not a complete prefix code")
    if int(coded.max(initial=0)) != longest:
        raise bad(f"codewords of up to {int(coded.max(initial=0))} bits, the header says {longest}")
    return used, lengths, size


def _parse_part(text: str) -> tuple[int, int]:
    """``"3/32"`` -> ``(3, 32)`` (``ValueError`` unless a valid part)."""
    from openingbook.solver import check_part

    i, sep, n = text.partition("/")
    if not sep or not i.isdigit() or not n.isdigit():
        raise InvalidArgument("expected i/n", argument="part", value=text)
    return check_part((int(i), int(n)))


def file_crc32(header: bytes | memoryview, payload: bytes | memoryview | np.ndarray) -> int:
    """The CRC-32 a compact book stores: of the header (its ``P0`` bytes, with the CRC
    field itself read as four zero bytes), then of the payload."""
    crc = zlib.crc32(header[:_CRC_AT])
    crc = zlib.crc32(b"\0\0\0\0", crc)
    crc = zlib.crc32(header[_CRC_AT + 4 :], crc)
    return zlib.crc32(payload, crc)


def _value_bits(count: int) -> int:
    return max(1, math.ceil(math.log2(count))) if count > 1 else 1


def _check_values(kind: str, plies: int, values: np.ndarray, cells: int) -> None:
    """Refuse values that cannot be of ``kind`` at ``plies`` stones on ``cells`` cells."""
    v = values.astype(np.int64)
    if kind == "wdl":
        ok = np.isin(v, (-1, 0, 1))
    elif kind == "distance":
        d = np.where(v > 0, 100 - v, 100 + v)
        ok = (v == 0) | ((np.abs(v) >= 100 - cells) & (d >= 1) & (d <= cells - plies))
    else:  # Pons: the side to move wins with its k-th stone: cells/2 + 1 - k, loses: k - that
        best = cells // 2 - plies // 2  # a win with the mover's next stone
        worst = cells // 2 - (plies + 1) // 2  # a loss to the opponent's next stone
        ok = (v <= best) & (v >= -worst)
    if not ok.all():
        raise InvalidArgument(
            f"value {int(v[np.argmin(ok)])} is not a {kind} value at {plies} plies"
        )


#: Positions per part when a complete ply is counted part by part (:func:`_complete_count`).
_COUNT_PART_POSITIONS = 1_500_000


def _complete_count(plies: int, board: BoardSize, given: int) -> int:
    """The positions of a complete ``plies``-ply book: from the table of counts
    (:func:`openingbook.checks.booksizes.complete_positions`), or counted by the enumerator
    part by part, one part's positions in memory at a time (the whole 13-ply enumeration
    takes 1.2 GB; by parts, the 12-ply layer and a part). ``given``: the positions the
    caller has, which sets the size of the parts, never the count."""
    known = complete_positions(board, plies)
    if known is not None:
        return known
    from openingbook.solver import counted_positions

    known = counted_positions(plies, *board)  # a derivation's roots enumerated the ply
    if known is not None:
        return known
    from openingbook.solver import AUTO_PARTS, iter_parts

    parts = min(AUTO_PARTS, max(1, -(-given // _COUNT_PART_POSITIONS)))
    return sum(int(f.size) for _, f, _ in iter_parts(plies, parts, *board))


def write_compact(
    path: str | os.PathLike[str],
    plies: int,
    kind: str,
    first: np.ndarray,
    mask: np.ndarray,
    values: np.ndarray,
    *,
    under: str | None = None,
    metadata: dict[str, Any] | None = None,
    force: bool = False,
    board: BoardSize,
    part: tuple[int, int] | None = None,
    version: int = VERSION,
) -> CompactHeader:
    """Write a compact book of the given positions and values; return its header.

    ``first``/``mask`` are the positions (either variant of a mirror pair, a
    pair given twice must have one value), ``values`` their values of
    ``kind`` (``"wdl"``, ``"distance"`` or ``"score"``, see the module
    docstring). Without ``under`` the positions must be every position of the
    ply (a complete book); with ``under`` exactly the positions under that
    line (a scoped book); with ``part=(i, n)`` exactly the positions of that part
    of the ply (:func:`openingbook.solver.enumerate.part_of`). ``board``: the board size,
    written in the header.
    ``version``: 3 (the values as codewords, the context function that makes the
    smaller file) or 2 (a retrieval table of fixed-width fields).
    Raises ``ValueError`` for anything else; writes atomically and needs
    ``force`` to replace a file.
    """
    if version not in VERSIONS:
        raise InvalidArgument(
            f"compact format version {version}: choose {' or '.join(map(str, VERSIONS))}"
        )
    if kind not in KINDS:
        raise InvalidArgument(f"unknown value kind {kind!r}: choose one of {', '.join(KINDS)}")
    out = Path(path)
    refuse_existing(out, force)
    first = np.ascontiguousarray(first, dtype=np.uint64)
    mask = np.ascontiguousarray(mask, dtype=np.uint64)
    values = np.asarray(values)
    values = values if values.dtype == np.int8 else values.astype(np.int8)  # never changed
    if not first.shape == mask.shape == values.shape or first.ndim != 1:
        raise InvalidArgument("first, mask and values must be 1-d arrays of one length")
    width, height = board = BoardSize(*board)
    _check_values(kind, plies, values, board.cells)
    # the heap's garbage (a derivation's, then the count's) off the peaks that follow
    release_freed_memory()
    # counted first, before the arrays below: the count enumerates the ply again
    complete = _complete_count(plies, board, first.size) if under is None and part is None else 0
    release_freed_memory()
    status = book_position_status(first, mask, plies, width, height)
    if (status != STATUS_OK).any():
        i = int(np.argmax(status != STATUS_OK))
        raise InvalidArgument(
            f"position {i} is not a {plies}-ply book position: it "
            + STATUS_MESSAGES[int(status[i])]
        )
    del status
    keys = canonical_keys(first, mask, width, height)
    # the contexts of version 3 (the same for both variants of a mirror pair), as small
    # as they go: the 14-ply book has 23 million
    contexts = (
        position_contexts(first, mask, width, height, CONTEXT_THREATS_CENTRE).astype(np.int32)
        if version >= 3
        else np.zeros(0, np.int32)
    )
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    if contexts.size:
        contexts = contexts[order]
    del order
    dup = np.flatnonzero(keys[1:] == keys[:-1]) if keys.size > 1 else np.empty(0, np.int64)
    if dup.size:
        if (values[dup] != values[dup + 1]).any():
            raise InvalidArgument("the two variants of a mirror pair have different values")
        keep = np.ones(keys.size, dtype=bool)
        keep[dup + 1] = False
        keys, values = keys[keep], values[keep]
        if contexts.size:
            contexts = contexts[keep]
    if part is not None:
        from openingbook.solver import check_part, part_of

        if under is not None:
            raise InvalidArgument(
                "a part splits the whole ply: give a part or a line, not both", argument="part"
            )
        part = check_part(part)
        outside = part_of(first, mask, part[1], width, height) != part[0]
        if outside.any():
            i = int(np.argmax(outside))
            raise InvalidArgument(f"position {i} is not in part {part[0]}/{part[1]}")
        expected = count_positions(plies, None, width, height, part=part)
        if keys.size != expected:
            raise InvalidArgument(
                f"{keys.size} positions, but part {part[0]}/{part[1]} of the {plies}-ply "
                f"book has {expected}"
            )
    elif under is None and keys.size != complete:
        raise InvalidArgument(
            f"{keys.size} positions, but a complete {plies}-ply book has "
            f"{complete}: give the scope (under) of a partial book"
        )
    if under is not None:
        Position.from_moves(under, width, height)  # a readable line
        scope_first, scope_mask = enumerate_positions(plies, under, width, height)
        scope_keys = canonical_keys(scope_first, scope_mask, width, height)
        if not np.array_equal(np.sort(scope_keys), keys):
            raise InvalidArgument(
                f"the positions are not exactly the {plies}-ply positions under {under}"
            )
    table = np.unique(values)
    metadata = dict(metadata or {})
    function = CONTEXT_NONE
    if version == 2:
        bits = _value_bits(table.size)
        index = np.searchsorted(table, values).astype(np.uint64)
        ret = build_retrieval(keys, index, bits)
        payload = ret.words.astype("<u8").tobytes()
        seed, seg_len, seg_count = ret.seed, ret.segment_length, ret.segment_count
    else:
        if table.size > LONGER:
            raise InvalidArgument(f"{table.size} distinct values: at most {LONGER}")
        index = np.searchsorted(table, values).astype(np.uint8)
        del values
        function, used, rows = _choose_contexts(contexts, index, table.size, board)
        del contexts
        release_freed_memory()  # the heap's garbage (the sort's) off the peeling's peak
        f = build_function(keys, index, rows, used.size)
        del rows
        codes = _pack_codes(used, f.lengths)
        bits = int(f.lengths.max(initial=0))
        payload = codes + f.words.astype("<u8").tobytes()
        seed, seg_len, seg_count = f.seed, f.segment_length, f.segment_count
    structure = STRUCTURE_COMPLETE if under is None else STRUCTURE_SCOPED
    scope = under
    if part is not None:
        structure, scope = STRUCTURE_PART, f"{part[0]}/{part[1]}"
    header = CompactHeader(
        width,
        height,
        plies,
        kind,
        structure,
        bits,
        int(keys.size),
        seed,
        seg_len,
        seg_count,
        0,  # the CRC-32, computed over these header bytes below
        CompactHeader.size_for(table.size, scope, metadata, version),
        len(payload),
        [int(v) for v in table],
        scope,
        metadata,
        version,
        function,
    )
    header.crc32 = file_crc32(header.pack(), payload)
    with atomic_output(out) as fh:
        fh.write(header.pack())
        fh.write(payload)
    return header


# ------------------------------------------------------------------ lookups
@njit(cache=True, inline="always")
def _nb_stored(first, mask, width, height, cells, params):
    """The value index the table ``cells`` holds for one position of a version 2 book;
    ``params``: its seed, segment length, segment count and value bits (int64)."""
    seg_len, bits = params[1], params[3]
    key = nb_canonical_key(first, mask, width, height)
    c0, c1, c2 = nb_cells(nb_mix(key, np.uint64(params[0])), seg_len, seg_len * params[2])
    return np.int64(nb_cells_value(cells, c0, c1, c2, bits))


@njit(cache=True, native=True)  # openingbook/solver/_native.py: run without numba
def _lookup_one(first, mask, plies, width, height, scope, cells, params):
    """``(status, value index)`` of one position in one native call: the readers' status
    (:func:`openingbook.answers.nb_position_status`), then for a book position the
    table's value index (else -1). Arrays, not a tuple, for the table (:func:`_nb_stored`):
    numba's dispatcher types a tuple argument slower, a microsecond a lookup."""
    s = nb_position_status(first, mask, plies, width, height, scope)
    if s != STATUS_OK:
        return s, np.int64(-1)
    return s, _nb_stored(first, mask, width, height, cells, params)


@njit(cache=True, inline="always")
def _read_blocks(first, mask, width, height, table, luts):
    """Value index, winner, plies and score of each position of the book (``table``:
    its seed, segment length, segment count, value bits and cells); ``luts`` holds
    winner/plies/score per value index, and in its last column the answer for an index
    past the table (a damaged file, refused by the caller).

    The positions go in blocks, in a pipeline: block ``b`` is hashed and its three
    cells per position prefetched; then block ``b - 1``, whose cells were
    prefetched one block of work earlier, is read, so the memory latency of the
    reads hides behind the hashing of the next block.
    """
    seed, seg_len, seg_count, bits, cells = table
    n = first.size
    index = np.empty(n, dtype=np.int64)
    winner = np.empty(n, dtype=np.int8)
    dist = np.empty(n, dtype=np.int16)
    score = np.empty(n, dtype=np.int16)
    scl = seg_len * seg_count
    nvalues = luts.shape[1] - 1
    block = _READ_BLOCK
    blocks = (n + block - 1) // block
    cell_of = np.empty((2, 3, block), dtype=np.uint64)  # two blocks' cells, alternating
    ubits = np.uint64(bits)
    six = np.uint64(6)
    for b in range(blocks + 1):
        if b < blocks:  # hash and prefetch block b
            start = b * block
            stop = min(n, start + block)
            cs = cell_of[b & 1]
            for j in range(stop - start):
                key = nb_canonical_key(first[start + j], mask[start + j], width, height)
                cs[0, j], cs[1, j], cs[2, j] = nb_cells(nb_mix(key, seed), seg_len, scl)
            for j in range(stop - start):
                prefetch(cells, (cs[0, j] * ubits) >> six)
                prefetch(cells, (cs[1, j] * ubits) >> six)
                prefetch(cells, (cs[2, j] * ubits) >> six)
        if b > 0:  # read block b - 1
            start = (b - 1) * block
            stop = min(n, start + block)
            cs = cell_of[(b - 1) & 1]
            for i in range(start, stop):
                j = i - start
                index[i] = np.int64(nb_cells_value(cells, cs[0, j], cs[1, j], cs[2, j], bits))
                col = index[i] if index[i] < nvalues else nvalues
                winner[i] = luts[0, col]
                dist[i] = luts[1, col]
                score[i] = luts[2, col]
    return index, winner, dist, score


#: Positions per block of :func:`_read_blocks`' pipeline.
_READ_BLOCK = 64


@njit(cache=True)
def _read_kernel(first, mask, width, height, table, luts):
    """:func:`_read_blocks` for any board."""
    return _read_blocks(first, mask, width, height, table, luts)


@njit(cache=True)
def _read_kernel_7x6(first, mask, width, height, table, luts):
    """:func:`_read_blocks` compiled for 7x6 (``width``, ``height`` are 7 and 6)."""
    return _read_blocks(first, mask, 7, 6, table, luts)


# ----------------------------------------------------------- version 3 lookups
@njit(cache=True, native=True)  # openingbook/solver/_native.py: run without numba
def _lookup_one_v3(
    first, mask, plies, width, height, scope, words, tables,
):  # fmt: skip
    """``(status, value index)`` of one position of a version 3 book (-1 when not a
    book position, or for damage). Few arguments (a native call's cost grows with
    them): the bit array and ``tables``, the parameters (:data:`_ONE_PARAMS`) then the
    context rows, the lookup table and the canonical decoder's arrays, in one int64
    array."""
    s = nb_position_status(first, mask, plies, width, height, scope)
    if s != STATUS_OK:
        return s, np.int64(-1)
    seg_len = tables[1]
    key = nb_canonical_key(first, mask, width, height)
    c0, c1, c2 = nb_cells(nb_mix(key, np.uint64(tables[0])), seg_len, seg_len * tables[2])
    x = nb_window(words, c0) ^ nb_window(words, c1) ^ nb_window(words, c2)
    masks = (
        np.uint64(tables[4]), np.uint64(tables[5]), np.uint64(tables[6]),
        np.uint64(tables[7]), np.uint64(tables[8]),
    )  # fmt: skip
    context = nb_context(first, mask, tables[3], height, masks)
    row = tables[_ONE_ROWS_AT + context]
    lut_at, lut_width = tables[9], tables[10]
    # the decoding written out (as in _read_blocks_v3): through an inlined function it
    # is twice as slow
    v = np.int64(-1)
    if row >= 0:
        v = tables[lut_at + row * lut_width + np.int64(x & np.uint64(lut_width - 1))]
    if v == LONGER:
        first_at, count_at, symbols_at = tables[11], tables[12], tables[13]
        v = decode_longer(
            x, row, tables[first_at:count_at], tables[count_at:symbols_at],
            tables[symbols_at:], tables[14],
        )  # fmt: skip
    return s, v


#: What ``params`` of :func:`_lookup_one_v3` holds, in order.
_ONE_PARAMS = (
    "seed", "segment length", "segment count", "context function", "bottom", "full", "odd",
    "centre", "base", "lookup table at", "lookup table width", "first codes at",
    "counts at", "symbols at", "values",
)  # fmt: skip
#: Where the context rows start in ``tables`` of :func:`_lookup_one_v3`.
_ONE_ROWS_AT = len(_ONE_PARAMS)


@njit(cache=True, inline="always")
def _read_blocks_v3(first, mask, plies, check, board, table, luts, out):
    """:func:`_read_blocks` for version 3: block ``b``'s keys hashed, their contexts
    computed and their three windows prefetched, then block ``b - 1``'s windows read and
    decoded; ``plies``: the book's. ``check``: each block's positions are also checked as
    positions of a complete book of that ply (:func:`openingbook.solver.nb_block_status`,
    in the same pass), and one that is not a book position gets index -1 and ``UNKNOWN``
    answers; else they are book positions (checked already). ``board``: the width, the
    height and the context's masks (:func:`context_constants`); ``table``: the book's
    (:meth:`CompactBook._v3_args`). Writes each position's ``index`` (int64), ``winner``
    (int8), ``dist`` and ``score`` (int16), the arrays of ``out``; returns whether a
    codeword was not found (a damaged file)."""
    width, height, bottom, full, odd, centre, base = board
    masks = (bottom, full, odd, centre, base)
    seed, seg_len, seg_count, words, function, row_of, lut, first_code, code_count, symbols = table
    index, winner, dist, score = out
    n = first.size
    status = np.full(n, STATUS_OK, dtype=np.int8)
    scratch = np.empty((4, _READ_BLOCK), dtype=np.uint64)
    scl = seg_len * seg_count
    nvalues = luts.shape[1] - 1
    block = _READ_BLOCK
    blocks = (n + block - 1) // block
    cell_of = np.empty((2, 3, block), dtype=np.uint64)
    row_in = np.empty((2, block), dtype=np.int64)
    keys = np.empty(block, dtype=np.uint64)
    movers = np.empty(block, dtype=np.uint64)
    nsymbols = symbols.size // max(1, lut.shape[0])
    six = np.uint64(6)
    lut_mask = np.uint64(lut.shape[1] - 1)
    damaged = False
    for b in range(blocks + 1):
        if b < blocks:  # hash, context and prefetch block b
            start = b * block
            stop = min(n, start + block)
            cs = cell_of[b & 1]
            rs = row_in[b & 1]
            # keys, hashes and contexts each in a loop of their own: plain
            # arithmetic, they vectorize
            for j in range(stop - start):
                keys[j] = nb_canonical_key(first[start + j], mask[start + j], width, height)
            for j in range(stop - start):
                cs[0, j], cs[1, j], cs[2, j] = nb_cells(nb_mix(keys[j], seed), seg_len, scl)
            for j in range(stop - start):
                f, m = first[start + j], mask[start + j]
                a = nb_winning_cells(f, m, full, height)
                o = nb_winning_cells(f ^ m, m, full, height)
                # a book position has ``plies`` stones (the others are not read)
                rs[j] = nb_context_of_cells(f, m, a, o, plies & 1, function, masks)
                movers[j] = a if plies & 1 == 0 else o  # for the position check
            if check:
                nb_block_status(
                    first, mask, (start, stop), plies, (width, height), status, scratch, movers
                )
            for j in range(stop - start):
                rs[j] = row_of[rs[j]]
            for j in range(stop - start):
                prefetch(words, cs[0, j] >> six)
                prefetch(words, cs[1, j] >> six)
                prefetch(words, cs[2, j] >> six)
        if b > 0:  # read block b - 1
            start = (b - 1) * block
            stop = min(n, start + block)
            cs = cell_of[(b - 1) & 1]
            rs = row_in[(b - 1) & 1]
            for i in range(start, stop):
                j = i - start
                if status[i] != STATUS_OK:
                    index[i] = -1
                    winner[i] = UNKNOWN
                    dist[i] = UNKNOWN
                    score[i] = UNKNOWN
                    continue
                x = nb_window(words, cs[0, j]) ^ nb_window(words, cs[1, j])
                x ^= nb_window(words, cs[2, j])
                # the first step of nb_decode written out: through the inlined
                # function every lookup takes twice as long
                row = rs[j]
                v = np.int64(lut[row, x & lut_mask]) if row >= 0 else np.int64(-1)
                if v == LONGER:
                    v = decode_longer(x, row, first_code, code_count, symbols, nsymbols)
                col = v if 0 <= v < nvalues else nvalues
                damaged |= col == nvalues
                index[i] = col
                winner[i] = luts[0, col]
                dist[i] = luts[1, col]
                score[i] = luts[2, col]
    return damaged


# The bulk read kernels write their answers into arrays the caller gives and return a
# scalar, so that they run from their native libraries (openingbook/solver/_native.py) without
# loading numba: an oracle's first batch, a lookup of many positions.
@njit(cache=True, native=True)
def _read_kernel_v3(first, mask, plies, check, board, table, luts, out):
    """:func:`_read_blocks_v3` for any board."""
    return _read_blocks_v3(first, mask, plies, check, board, table, luts, out)


#: The 7x6 board's masks of the context (compile-time constants of the 7x6 kernel).
_BOTTOM_7X6, _FULL_7X6, _ODD_7X6, _CENTRE_7X6, _BASE_7X6 = context_constants(7, 6)


@njit(cache=True, native=True)
def _read_kernel_v3_7x6(first, mask, plies, check, board, table, luts, out):
    """:func:`_read_blocks_v3` compiled for 7x6 (``board`` is 7x6's: its constants are
    used in its place)."""
    board_7x6 = (7, 6, _BOTTOM_7X6, _FULL_7X6, _ODD_7X6, _CENTRE_7X6, _BASE_7X6)
    return _read_blocks_v3(first, mask, plies, check, board_7x6, table, luts, out)


def _value_luts(kind: str, plies: int, table: list[int], board: BoardSize) -> np.ndarray:
    """Winner code, plies and score (rows; int16, ``UNKNOWN`` for None) of each table
    entry (:func:`openingbook.values.answer_tables`), then ``UNKNOWN`` for an index
    past the table."""
    n = len(table)
    luts = np.full((3, n + 1), UNKNOWN, np.int16)
    luts[:, :n] = answer_tables(kind, plies, np.array(table, dtype=np.int64), board)[:3]
    return luts


def _crc_ok(data: mmap.mmap, header: CompactHeader, payload: np.ndarray) -> bool:
    """Does the file's CRC-32 field match its header and payload?"""
    with memoryview(data) as view, view[: header.header_bytes] as head:
        return file_crc32(head, payload) == header.crc32


class CompactBook(BookReader):
    """A memory-mapped compact book: the reader contract of
    :class:`openingbook.answers.BookReader` (``get``, ``in``, iteration, bulk lookups).

    Opening reads and checks the header and the file's CRC-32 (over header and
    payload; a few milliseconds for a 3 MB book). Lookups raise
    :class:`PositionNotInBook` for a position of another ply or outside a scoped
    book, :class:`InvalidArgument` for one that cannot occur in a game.
    A position whose side to move can complete four at once is not stored;
    it is answered as a win in 1 ply for the side to move, as Thill's readers do.
    """

    @reads_book
    def __init__(self, path: str | os.PathLike[str], verify: bool = True) -> None:
        self.path = require_regular_file(path)
        size = self.path.stat().st_size
        self._fh = open(self.path, "rb")  # noqa: SIM115 - closed by close()
        try:
            if size < FIXED_HEADER_BYTES:
                raise CompactFileError(f"{self.path}: not a compact book (too short)")
            self._mm = mmap.mmap(self._fh.fileno(), 0, access=mmap.ACCESS_READ)
            self.header = CompactHeader.parse(self._mm, str(self.path), size)
            h = self.header
            words = np.frombuffer(self._mm, dtype="<u8", offset=h.header_bytes)
            if verify and not _crc_ok(self._mm, h, words):
                raise CompactFileError(f"{self.path}: checksum mismatch (damaged file)")
            self._crc_checked = verify
        except BaseException:
            self._fh.close()
            raise
        self._cells = words
        if h.version == 2:
            # the read kernels' table, one argument (see _read_blocks)
            self._table_args = (
                np.uint64(h.seed),
                h.segment_length,
                h.segment_count,
                h.value_bits,
                words,
            )
        else:
            try:
                self._table_args = self._v3_args(words)
            except BaseException:
                self._release()
                raise
        #: the version 3 read kernels' board: width, height and the context's masks
        self._board_args = (h.width, h.height, *context_constants(h.width, h.height))
        self._one_args: tuple[Any, ...] = (
            words,
            # the seed's 64 bits as they are (np.uint64 of the int64 gives it back)
            np.array([h.seed, h.segment_length, h.segment_count, h.value_bits], np.uint64).astype(
                np.int64
            ),
        )
        if h.version >= 3:  # the single lookup's: few (see _lookup_one_v3)
            self._one_args = self._one_lookup_args()
        self._luts = _value_luts(h.kind, h.plies, h.values, h.board)
        self._answers = [book_value(*self._luts[:, i]) for i in range(len(h.values))]
        self._table = np.array(h.values, dtype=np.int16)

    format_name = "compact"
    enumerated = True

    def _one_lookup_args(self) -> tuple[Any, ...]:
        """:func:`_lookup_one_v3`'s table arguments: the bit array and one int64 array,
        the parameters (:data:`_ONE_PARAMS`) then the context rows, the lookup table and
        the canonical decoder's arrays."""
        a = self._table_args
        parts = [x.reshape(-1).astype(np.int64) for x in a[5:10]]
        lut, symbols = a[6], a[9]
        at = len(_ONE_PARAMS) + np.cumsum([0] + [x.size for x in parts])
        params = [int(a[0]), a[1], a[2], a[4], *(int(x) for x in self._board_args[2:])]
        params += [int(at[1]), lut.shape[1], *(int(x) for x in at[2:5])]
        params.append(
            symbols.shape[1] if symbols.ndim == 2 else symbols.size // max(1, lut.shape[0])
        )
        return (a[3], np.concatenate([np.array(params, np.int64), *parts]))

    def _v3_args(self, words: np.ndarray) -> tuple[Any, ...]:
        """The version 3 kernels' table, one argument: the hash's parameters, the bit
        array, the context function, each context's row and the decode tables."""
        h = self.header
        space = context_space(h.context_function, h.width, h.height)
        with memoryview(self._mm) as view:
            used, lengths, size = _parse_codes(
                view[h.header_bytes :], len(h.values), space, h.value_bits, str(self.path)
            )
        if h.payload_bytes != size + _bit_array_bytes(h.segment_length, h.segment_count):
            raise CompactFileError(
                f"{self.path}: bad compact book header: payload length does not match the "
                "table size"
            )
        row_of = np.full(space, -1, np.int32)
        row_of[used] = np.arange(used.size, dtype=np.int32)
        lut, first_code, code_count, symbols = decoding_tables(lengths)
        return (
            np.uint64(h.seed),
            h.segment_length,
            h.segment_count,
            words[size // 8 :],
            h.context_function,
            row_of,
            lut,
            first_code.reshape(-1),
            code_count.reshape(-1),
            symbols.reshape(-1),
        )

    # ------------------------------------------------------------- lifecycle
    def _release(self) -> None:
        self._cells = None  # type: ignore[assignment]
        self._table_args = self._one_args = ()
        if not self._mm.closed:
            with contextlib.suppress(BufferError):  # arrays handed out still view the map
                self._mm.close()
        self._fh.close()

    def _count(self) -> int:
        return self.header.positions

    def _scope_line(self) -> tuple[str | None, tuple[int, int] | None]:
        # the header's line and part, without the book model a lookup does not load
        return self.under, self.part

    @property
    def scope(self) -> Scope:
        from openingbook.model import Scope  # not loaded by a lookup

        part = None if self.part is None else f"part {self.part[0]}/{self.part[1]}"
        return Scope(self.under, part, board=self.board, part=self.part)

    @property
    def provenance(self) -> dict[str, Any]:
        return provenance(self.header.metadata)

    @property
    def unchecked(self) -> str | None:
        if self._crc_checked:
            return None
        return (
            f"{self.path.name} was not compared with its checksum (verify=False): its values "
            "are unchecked"
        )

    def __repr__(self) -> str:
        return f"CompactBook({str(self.path)!r}, {self.describe()})"

    @property
    def plies(self) -> int:
        return self.header.plies

    @property
    def kind(self) -> str:
        return self.header.kind

    @property
    def under(self) -> str | None:
        return self.header.line

    @property
    def part(self) -> tuple[int, int] | None:
        """``(i, n)`` when the book is part ``i`` of ``n`` of its ply."""
        return self.header.part

    @property
    def board(self) -> BoardSize:
        """The board size of the book's positions (from the header)."""
        return self.header.board

    def describe(self) -> str:
        """``"12-ply distance book, complete"`` and the like (``"6x5 12-ply ..."`` on
        other boards)."""
        what = {"wdl": "win/draw/loss", "distance": "distance", "score": "score"}[self.kind]
        scope = f"positions under {self.under}" if self.under else "complete"
        if self.part is not None:
            scope = f"part {self.part[0]}/{self.part[1]}"
        board = "" if self.board == DEFAULT_BOARD else f"{self.board} "
        return f"{board}{self.plies}-ply {what} book, {scope}"

    # ---------------------------------------------------------------- lookups
    def _params(self) -> tuple[Any, ...]:
        if self._cells is None:
            raise BookClosed(f"{self.path}: the book is closed")
        return self._table_args

    def _damaged(self) -> CompactFileError:
        return CompactFileError(f"{self.path}: a table cell holds no value (damaged file)")

    def _stored(self, pos: Position) -> BookValue | None:
        return self._probe(pos)[1]

    def _probe(self, pos: Position) -> tuple[int, BookValue | None]:
        if self._cells is None:
            raise BookClosed(f"{self.path}: the book is closed")
        status, index = (_lookup_one if self.header.version == 2 else _lookup_one_v3)(
            np.uint64(pos.first_stones),
            np.uint64(pos.mask),
            *self._kernel_args(),
            *self._one_args,
        )
        if status != STATUS_OK:
            return int(status), None
        if not 0 <= index < len(self._answers):
            raise self._damaged()
        return STATUS_OK, self._answers[index]

    def _stored_many(self, first: np.ndarray, mask: np.ndarray) -> BulkValues:
        h = self.header
        if h.version == 2:
            kernel = _read_kernel_7x6 if (h.width, h.height) == (7, 6) else _read_kernel
            index, winner, plies, score = kernel(
                first, mask, h.width, h.height, self._params(), self._luts
            )
            if (index >= len(h.values)).any():
                raise self._damaged()
        else:
            index, winner, plies, score = self._read_v3(first, mask, False)
        return BulkValues(index, winner, plies, score)

    def _read_v3(self, first: np.ndarray, mask: np.ndarray, check: bool) -> tuple[Any, ...]:
        """The version 3 read kernel's ``(index, winner, plies, score)``; a damaged
        file (a codeword no code holds) refused."""
        h = self.header
        kernel = _read_kernel_v3_7x6 if (h.width, h.height) == (7, 6) else _read_kernel_v3
        n = first.size
        out = (np.empty(n, np.int64), np.empty(n, np.int8), np.empty(n, np.int16),
               np.empty(n, np.int16))  # fmt: skip
        damaged = kernel(
            first, mask, h.plies, check, self._board_args, self._params(), self._luts, out
        )
        if damaged:
            raise self._damaged()
        return out

    def _stored_checked_many(self, first: np.ndarray, mask: np.ndarray) -> BulkValues | None:
        """A complete version 3 book: the position checks in the read kernel's pass
        (:func:`_read_blocks_v3`); other books: None (checked apart)."""
        h = self.header
        if h.version < 3 or h.structure != STRUCTURE_COMPLETE:
            return None
        f = np.ascontiguousarray(first, dtype=np.uint64).reshape(-1)
        m = np.ascontiguousarray(mask, dtype=np.uint64).reshape(-1)
        index, winner, plies, score = self._read_v3(f, m, True)
        return BulkValues(index, winner, plies, score)

    def status(self, pos: Position) -> int:
        """The ``STATUS_*`` code of one position (:meth:`position_status`)."""
        return self.position_status(pos)

    def raw_lookup(self, first: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(status, values)`` per position: the ``STATUS_*`` code and, where the
        status is ``STATUS_OK``, the stored value (the header's value table entry)."""
        f = np.ascontiguousarray(first, dtype=np.uint64).reshape(-1)
        m = np.ascontiguousarray(mask, dtype=np.uint64).reshape(-1)
        if f.shape != m.shape:
            raise InvalidArgument(f"first and mask differ in shape: {f.shape} vs {m.shape}")
        status = self.statuses(f, m)
        values = np.zeros(f.size, np.int16)
        book = np.flatnonzero(status == STATUS_OK)
        if book.size:
            values[book] = self._table[self._stored_many(f[book], m[book]).index]
        return status, values

    # -------------------------------------------------------------- positions
    def _answered_positions(self) -> tuple[np.ndarray, np.ndarray]:
        """``(first, mask)`` of every stored position, in the enumeration's variant and
        order (:func:`openingbook.solver.enumerate_positions` of the ply and scope)."""
        return enumerate_positions(self.plies, self.under, *self.board, part=self.part)

    def values_of(self, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The stored values (value table entries) of book positions; any other position
        is refused as :meth:`lookup_many` refuses it."""
        status, values = self.raw_lookup(first, mask)
        if (status != STATUS_OK).any():
            i = int(np.argmax(status != STATUS_OK))
            stones = int(np.bitwise_count(np.asarray(mask, np.uint64).reshape(-1)[i]))
            raise self._refusal(int(status[i]), f"position {i}", stones)
        return values.astype(np.int8)


def read_header(path: str | os.PathLike[str]) -> CompactHeader:
    """The header of a compact book, read and checked, nothing else of the file: what
    a book holds (board, plies, kind, scope) at the cost of a few reads, where opening
    it (:class:`CompactBook`) also builds its decoding tables. Not a check of the
    values: that is the CRC-32 a :class:`CompactBook` checks when it opens."""
    path = require_regular_file(path)
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size < FIXED_HEADER_BYTES:
            raise CompactFileError(f"{path}: not a compact book (too short)")
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            return CompactHeader.parse(mm, str(path), size)


def describe_compact(
    path: str | os.PathLike[str],
    full: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """What ``openingbook info`` prints for a compact book, as a JSON-ready dict.

    Raises :class:`CompactFileError` (one line) for a file whose header is not a
    compact book's or whose checksum (over header and payload) fails: a damaged
    file, whatever byte changed, is reported as damaged and nothing of it is
    described. ``full``: also decode every position's value, piece by piece
    (:meth:`CompactBook.position_pieces`; ``progress(done, total)`` is called after
    each piece), and report the count of positions and the values as checks
    (``"ok"`` or the problem). By default a book of up to
    :data:`~openingbook.answers.PIECEWISE_POSITIONS` positions is checked in full; a
    bigger one (the 14-ply book) is not, and ``not_checked`` says why.
    """
    path = Path(path)
    checks: dict[str, str] = {}
    not_checked: dict[str, str] = {}
    with CompactBook(path, verify=True) as book:  # the checksum first: damage is refused
        h = book.header
        checks["checksum"] = "ok"
        values: dict[str, Any] = {}
        if full is None:
            full = h.positions <= PIECEWISE_POSITIONS
        if not full:
            why = f"not run ({h.positions:,} positions: --full decodes every one)"
            not_checked = {"positions": why, "values": why}
        else:
            try:
                counted, stored = 0, collections.Counter[int]()
                if progress is not None:
                    progress(0, h.positions)
                for first, mask in book.position_pieces():
                    found, counts = np.unique(book.values_of(first, mask), return_counts=True)
                    stored.update(dict(zip(found.tolist(), counts.tolist(), strict=True)))
                    counted += len(first)
                    if progress is not None:
                        progress(counted, h.positions)
                # n has no checksum; the ply and scope give the true count
                checks["positions"] = (
                    "ok"
                    if counted == h.positions
                    else f"the header announces {h.positions} positions, its ply and scope "
                    f"give {counted}"
                )
                values = _histogram(h.kind, h.plies, stored, h.board)
                checks["values"] = "ok"
            except ValueError as exc:
                checks["values"] = str(exc).removeprefix(f"{path}: ")
        info: dict[str, Any] = {
            "path": str(path),
            "format": "compact",
            "description": f"compact {book.describe()}",
            "board": str(h.board),
            "plies": h.plies,
            "kind": h.kind,
            "distances": h.kind != "wdl",
            "under": h.line,
            "part": None if h.part is None else f"{h.part[0]}/{h.part[1]}",
            "records": h.positions,
            "positions": h.positions,
            "bytes": path.stat().st_size,
            "bits_per_position": round(8 * path.stat().st_size / max(1, h.positions), 3),
            "version": h.version,
            # version 2: bits per value; version 3: the longest codeword
            "value_bits": h.value_bits,
            "context_function": CONTEXT_FUNCTIONS[h.context_function] if h.version >= 3 else None,
            "value_table": h.values,
            "values": values,
            "provenance": provenance(h.metadata),
            "checks": checks,
            "not_checked": not_checked,
        }
    info["ok"] = all(v == "ok" for v in checks.values())
    return info


def provenance(metadata: dict[str, Any]) -> dict[str, Any]:
    """Where a compact book came from: its source file and the commands that made it
    (``source_manifest``: the manifest of the Thill book a conversion read, or what
    ``build``/``derive`` record of a book they write directly; a derivation's source
    is the deeper book it was derived from, a build's is None), and the command that
    re-encoded it into the current version, from which file."""
    source, manifest, converted, reencoded = (
        _object(metadata, key) for key in ("source", "source_manifest", "converted", "reencoded")
    )
    # a book derived straight into the compact format names its source in its record
    source = source or _object(manifest, "derived_from")
    return {
        "source": source.get("file"),
        "source_format": source.get("format"),
        "source_sha256": source.get("sha256"),
        "source_bytes": source.get("bytes"),
        "built_by": manifest.get("command"),
        "built": manifest.get("created"),
        "converted_by": converted.get("command"),
        "version": converted.get("version"),
        "reencoded_by": reencoded.get("command"),
        "reencoded_from": reencoded.get("file"),
    }


def _object(metadata: dict[str, Any], key: str) -> dict[str, Any]:
    """``metadata[key]`` when it is a JSON object, else ``{}`` (readers may skip metadata:
    another writer's may have other shapes)."""
    value = metadata.get(key)
    return value if isinstance(value, dict) else {}


def _histogram(kind: str, plies: int, counts: dict[int, int], board: BoardSize) -> dict[str, Any]:
    """Counts of first/second/draw (and, with distances, by plies) of stored values,
    from the count of each stored value."""
    table = sorted(counts)
    winner, dist, _ = _value_luts(kind, plies, table, board)[:, :-1]
    out: dict[str, Any] = {"draw": 0, "first": 0, "second": 0}
    by_plies: dict[str, collections.Counter[int]] = {
        "first": collections.Counter(),
        "second": collections.Counter(),
    }
    sides = {0: "draw", 1: "first", -1: "second"}
    for value, w, d in zip(table, winner.tolist(), dist.tolist(), strict=True):
        side = sides.get(w)
        if side is None:
            continue
        out[side] += counts[value]
        if side != "draw":
            by_plies[side][d] += counts[value]
    if kind != "wdl":
        for side, plies_of in by_plies.items():
            out[f"{side}_by_plies"] = {str(k): c for k, c in sorted(plies_of.items())}
    return out


class CompactFormat(Format):
    """The compact format's entry in the registry (:data:`openingbook.formats.FORMATS`)."""

    name = "compact"
    description = "our compact format (.c4b): a retrieval table with a self-describing header"
    suffixes = (COMPACT_SUFFIX,)
    any_board = True
    open_options = frozenset({"verify"})
    own = True
    holds_parts = True
    reencodes = True

    def record_of(self, path: str | os.PathLike[str], verify: bool = False) -> Any:
        """What the book's metadata keeps of how it was made (``source_manifest``: the
        manifest of the book it was converted from, or the record of its build or
        derivation), or None; ``verify``: the checksum checked first."""
        with CompactBook(path, verify=verify) as book:
            return book.header.metadata.get("source_manifest")

    def describe_file(self, path: Path, layout: Any = None, **options: Any) -> dict[str, Any]:
        """:func:`describe_compact` (``full``, ``progress``: its whole-file check)."""
        return describe_compact(path, options.get("full"), options.get("progress"))

    def sniff(self, path: Path, head: bytes, size: int) -> bool:
        return head.startswith(MAGIC)

    def open(self, path: Path, **options: Any) -> BookReader:
        return CompactBook(path, verify=options.get("verify", True))

    def write(self, model: BookModel, out: str | os.PathLike[str], **options: Any) -> WrittenBook:
        """Options: ``force``; ``record`` (what a manifest records of how the book was
        made: kept as the metadata's ``source_manifest``) and other ``metadata``;
        ``part=(i, n)``: the model is part i of n of its ply (``build --part``)."""
        part = options.get("part")
        require_writable(model, self.name, scope=part is None)
        if model.kind == "distance":
            values = distance_bytes_from_scores(model.score, model.plies, model.board)
        else:
            values = model.score if model.kind == "score" else model.winner
        metadata = dict(options.get("metadata") or {})
        if options.get("record") is not None:
            metadata = {"source_manifest": options["record"], **metadata}
        header = write_compact(
            out,
            model.plies,
            model.kind,
            model.first,
            model.mask,
            values,
            under=model.scope.under,
            metadata=metadata,
            force=options.get("force", False),
            board=model.board,
            part=part,
        )
        return WrittenBook(Path(out), header.positions)
