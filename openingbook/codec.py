"""The column code of the opening books, bit by bit and vectorized.

The code walks the columns from left to right and each column from the bottom
up: a stone of the first player (A) is ``10``, a stone of the second player (B)
is ``11``, and one ``0`` closes every column but the last. Empty cells are not
coded, gravity puts them on top. A position with ``n`` stones on the 7x6 board
takes ``6 + 2n`` bits (22 for 8 stones, 30 for 12). In a book record the code is
left-aligned in the key field (most significant bit first), low bits zero.

Two implementations, checked against each other by the tests:

* :func:`encode_column_code` / :func:`decode_column_code`: the bit-level
  reference, a prefix code on :mod:`bitarray`;
* :func:`encode_keys` / :func:`decode_keys` / :func:`mirror_keys`: numpy over
  arrays of ``first``/``mask`` bitboards (the array form of docs/ARCHITECTURE.md),
  one table lookup per column instead of one step per bit.

:func:`position_key` and :func:`key_position` do the same for one position
with plain integers (the single-lookup path of the reader).

>>> from openingbook.solver import Position
>>> pos = Position.from_moves("4453")
>>> encode_column_code(pos).to01()
'00110101101000'
>>> hex(position_key(pos, 24))
'0x35a000'
>>> key_position(position_key(pos, 24), 24, None, 7, 6) == pos
True
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import numpy as np
from bitarray import bitarray, decodetree

from openingbook.errors import InvalidArgument
from openingbook.solver import Position, has_four_bits

#: Code words of the prefix code: A stone, B stone, column separator.
STONE_FIRST = "A"
STONE_SECOND = "B"
SEPARATOR = "|"
CODE_WORDS: dict[str, bitarray] = {
    STONE_FIRST: bitarray("10"),
    STONE_SECOND: bitarray("11"),
    SEPARATOR: bitarray("0"),
}
_TREE = decodetree(CODE_WORDS)

_U64 = np.uint64

#: Tallest board of the array path: its decoding table has ``2 ** (2 * height + 1)``
#: entries (512 Ki at 9 rows); taller boards would need gigabytes.
MAX_ARRAY_HEIGHT = 9


def _check_height(height: int) -> None:
    if not 1 <= height <= MAX_ARRAY_HEIGHT:
        raise InvalidArgument(
            f"boards of {height} rows: the column code tables take boards of 1 to "
            f"{MAX_ARRAY_HEIGHT} rows"
        )


def code_length(stones: int, width: int) -> int:
    """Bits of the column code for ``stones`` stones: one separator per column but the last.

    >>> code_length(8, 7), code_length(12, 7)
    (22, 30)
    """
    return width - 1 + 2 * stones


def key_field_bits(stones: int, distances: bool, width: int) -> int:
    """Bits of the key field of a book record of ``stones`` stones, the column code
    left-aligned in it (docs/FORMATS.md): a book with distances has whole key bytes
    (4 at least) before its value byte; a pruned book's key is its whole record
    (3 bytes at least), the value in the low two bits.

    >>> key_field_bits(8, False, 7), key_field_bits(12, False, 7), key_field_bits(12, True, 7)
    (24, 32, 32)
    """
    bits = code_length(stones, width)
    if distances:
        return 8 * max(4, -(-bits // 8))
    return 8 * max(3, -(-(bits + 2) // 8))


# --------------------------------------------------------------- bitarray path
def encode_column_code(pos: Position) -> bitarray:
    """The column code of ``pos`` as a bitarray of exactly ``code_length`` bits.

    >>> from openingbook.solver import Position
    >>> encode_column_code(Position.from_moves("7")).to01()
    '00000010'
    """
    symbols: list[str] = []
    for col in range(pos.width):
        for row in range(pos.column_height(col)):
            symbols.append(STONE_FIRST if pos.cell(col, row) == 1 else STONE_SECOND)
        if col < pos.width - 1:
            symbols.append(SEPARATOR)
    bits = bitarray()
    bits.encode(CODE_WORDS, symbols)
    return bits


def decode_column_code(bits: bitarray | str, width: int, height: int) -> Position:
    """The position coded by ``bits``; zero bits after the last column are padding.

    Raises ``ValueError`` when the bits are not a complete code, a column
    overflows, or the board is not a legal position.

    >>> pos = decode_column_code("0000010101011100111111" + "00", 7, 6)  # book.dat record 0
    >>> [[int(c) for c in col] for col in pos.to_array()[5:]]
    [[1, 1, 1, 2, 1, 0], [2, 2, 2, 0, 0, 0]]
    """
    if isinstance(bits, str):
        bits = bitarray(bits)
    try:
        symbols = list(bits.decode(_TREE))
    except ValueError as exc:
        raise InvalidArgument(f"not a column code: {exc}") from None
    cells = [[0] * height for _ in range(width)]
    col = row = 0
    for i, sym in enumerate(symbols):
        if sym == SEPARATOR:
            col += 1
            row = 0
            continue
        if col >= width:
            raise InvalidArgument(f"not a column code: stone after the last column (symbol {i})")
        if row >= height:
            raise InvalidArgument(
                f"not a column code: column {col + 1} has more than {height} stones"
            )
        cells[col][row] = 1 if sym == STONE_FIRST else 2
        row += 1
    if col < width - 1:
        raise InvalidArgument(f"not a column code: {col + 1} columns, expected {width}")
    return Position.from_array(cells)


# ----------------------------------------------------------- integer helpers
@functools.cache
def _marker_tables(height: int) -> tuple[np.ndarray, np.ndarray]:
    """Code and length of one column followed by its separator, indexed by the
    column's ``height + 1`` bits of ``first + mask + bottom``: a marker bit just
    above the stones, the first player's stones below it."""
    _check_height(height)
    size = 1 << (height + 1)
    codes = np.zeros(size, dtype=_U64)
    lengths = np.zeros(size, dtype=_U64)
    for stones in range(height + 1):
        for f in range(1 << stones):
            code = 0
            for row in range(stones):
                code = (code << 2) | (0b10 if (f >> row) & 1 else 0b11)
            codes[(1 << stones) | f] = code << 1
            lengths[(1 << stones) | f] = 2 * stones + 1
    return codes, lengths


@functools.cache
def _marker_lists(height: int) -> tuple[list[int], list[int]]:
    """:func:`_marker_tables` as Python lists (fast item access for one position)."""
    codes, lengths = _marker_tables(height)
    return [int(c) for c in codes], [int(n) for n in lengths]


@functools.cache
def _decode_tables(height: int) -> tuple[np.ndarray, np.ndarray]:
    """Indexed by the next ``2*height + 1`` code bits: how many stones the column
    holds (``height + 1`` when a further stone would overflow it) and which of them
    are the first player's."""
    _check_height(height)
    window = 2 * height + 1
    dec_stones = np.zeros(1 << window, dtype=np.int64)
    dec_first = np.zeros(1 << window, dtype=_U64)
    for w in range(1 << window):
        stones = first = 0
        pos = window
        while True:
            if stones == height:
                if (w >> (pos - 1)) & 1:  # a further stone overflows the column
                    stones = height + 1
                break
            if not (w >> (pos - 1)) & 1:  # separator (or padding) closes the column
                break
            if not (w >> (pos - 2)) & 1:  # "10": first player's stone
                first |= 1 << stones
            stones += 1
            pos -= 2
        dec_stones[w] = stones
        dec_first[w] = first
    return dec_stones, dec_first


def position_key(pos: Position, key_bits: int) -> int:
    """The column code of ``pos`` left-aligned in a ``key_bits``-bit field.

    >>> from openingbook.solver import Position
    >>> hex(position_key(Position(), 24))
    '0x0'
    >>> hex(position_key(Position.from_moves("1"), 24))  # '10' then 6 separators
    '0x800000'
    """
    return position_key_pair(pos, key_bits)[0]


def position_key_pair(pos: Position, key_bits: int) -> tuple[int, int]:
    """``(key, mirrored key)`` of ``pos``: the mirrored code lists the columns right to left.

    >>> from openingbook.solver import Position
    >>> [hex(k) for k in position_key_pair(Position.from_moves("1"), 24)]
    ['0x800000', '0x20000']
    """
    width, height = pos.width, pos.height
    h1 = height + 1
    bottom = _bottom_bits(width, height)
    mask = pos.mask
    if (mask + bottom) & mask or mask & ~_board_bits(width, height):
        raise InvalidArgument("not a position: a floating stone or a stray bit")
    length = width - 1 + 2 * mask.bit_count()
    if length > key_bits:
        raise InvalidArgument(f"{length}-bit column code does not fit a {key_bits}-bit key")
    table_code, table_len = _marker_lists(height)
    marked = pos.first_stones + mask + bottom
    col_bits = (1 << h1) - 1
    cols = [(marked >> (col * h1)) & col_bits for col in range(width)]
    key = mirrored = 0
    for idx, midx in zip(cols, reversed(cols), strict=True):
        key = (key << table_len[idx]) | table_code[idx]
        mirrored = (mirrored << table_len[midx]) | table_code[midx]
    # every column was closed by a separator: the last one is not part of the code
    shift = key_bits - length
    return (key >> 1) << shift, (mirrored >> 1) << shift


def key_position(
    key: int,
    key_bits: int,
    stones: int | None,
    width: int,
    height: int,
) -> Position:
    """The position coded in a left-aligned ``key_bits``-bit key (inverse of :func:`position_key`).

    Raises ``ValueError`` when the key is not a legal code (with ``stones``
    stones, when given).
    """
    first, mask = decode_keys(np.array([key], dtype=_U64), key_bits, stones, width, height)
    return Position.from_bitboards(int(first[0]), int(mask[0]), width, height)


# ------------------------------------------------------------------ numpy path
def _as_u64(values: Iterable[int] | np.ndarray, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype != _U64:
        if arr.dtype.kind not in "iu":
            raise InvalidArgument(f"{name} must be an integer array, got {arr.dtype}")
        arr = arr.astype(_U64)
    return arr


def encode_keys(
    first: np.ndarray,
    mask: np.ndarray,
    key_bits: int,
    width: int,
    height: int,
) -> np.ndarray:
    """Column codes of many positions, each left-aligned in a ``key_bits``-bit field.

    ``first``/``mask`` are uint64 bitboards (Pons layout). Raises ``ValueError``
    naming the first index whose columns are not gap-free or whose code is
    longer than ``key_bits``. Legality (four in a row, alternation) is not checked.

    >>> import numpy as np
    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("4453")
    >>> [hex(k) for k in encode_keys(np.array([p.first_stones]), np.array([p.mask]), 24, 7, 6)]
    ['0x35a000']
    """
    codes, lengths, shift = _column_codes(first, mask, key_bits, width, height)
    return _fold_columns(codes, lengths, range(width)) << shift


def encode_key_pairs(
    first: np.ndarray,
    mask: np.ndarray,
    key_bits: int,
    width: int,
    height: int,
    *,
    checked: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, mirrored keys)``: :func:`encode_keys` of the positions and of their mirror
    images, from one pass over the columns (the mirrored code lists them right to left).
    ``checked``: the caller has found every position :func:`encodable` with a code that
    fits ``key_bits`` (not checked again).

    >>> import numpy as np
    >>> keys, mirrored = encode_key_pairs(np.array([1]), np.array([1]), 24, 7, 6)  # A in column 1
    >>> hex(int(keys[0])), hex(int(mirrored[0]))
    ('0x800000', '0x20000')
    """
    codes, lengths, shift = _column_codes(first, mask, key_bits, width, height, checked)
    keys = _fold_columns(codes, lengths, range(width)) << shift
    mirrored = _fold_columns(codes, lengths, range(width - 1, -1, -1)) << shift
    return keys, mirrored


def _column_codes(
    first: np.ndarray,
    mask: np.ndarray,
    key_bits: int,
    width: int,
    height: int,
    checked: bool = False,
) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Per column: code with separator and its length; and the left-align shift."""
    first = _as_u64(first, "first")
    mask = _as_u64(mask, "mask")
    if first.shape != mask.shape:
        raise InvalidArgument(f"first and mask differ in shape: {first.shape} vs {mask.shape}")
    if not 0 < key_bits <= 64:
        raise InvalidArgument(f"key_bits must be 1..64, got {key_bits}")
    bottom = _U64(_bottom_bits(width, height))
    length = width - 1 + 2 * np.bitwise_count(mask).astype(np.int64)
    if not checked:
        too_long = length > key_bits
        bad = too_long | ~encodable(first, mask, width, height)
        if bad.any():
            i = int(np.argmax(bad))
            if too_long.flat[i]:
                raise InvalidArgument(
                    f"position {i}: {int(length.flat[i])}-bit column code does not fit "
                    f"a {key_bits}-bit key"
                )
            raise InvalidArgument(f"position {i}: not a position (floating stone or stray bits)")
    marked = first + mask + bottom  # per column: marker above the stones, first's below
    table_code, table_len = _marker_tables(height)
    h1 = height + 1
    col_bits = _U64((1 << h1) - 1)
    codes, lengths = [], []
    idx = np.empty(marked.shape, dtype=_U64)
    for col in range(width):
        np.right_shift(marked, _U64(col * h1), out=idx)
        np.bitwise_and(idx, col_bits, out=idx)
        # gathers take intp indices (uint64 ones are converted, much slower);
        # the values are below 2**7, so the bits can be reinterpreted as they are
        at = idx.view(np.intp)
        codes.append(table_code.take(at))
        lengths.append(table_len.take(at))
    return codes, lengths, (key_bits - length).astype(_U64)


def encodable(first: np.ndarray, mask: np.ndarray, width: int, height: int) -> np.ndarray:
    """True where ``first``/``mask`` (uint64 arrays) are bitboards a column code can
    encode: each column a gap-free run from the bottom, first-player stones on occupied
    cells, nothing outside the board (legality not checked).

    >>> import numpy as np
    >>> encodable(np.array([1, 0], np.uint64), np.array([1, 2], np.uint64), 7, 6).tolist()
    [True, False]
    """
    bottom = _U64(_bottom_bits(width, height))
    board = _U64(_board_bits(width, height))
    return ((first & ~mask) | (mask & ~board) | ((mask + bottom) & mask)) == 0


def _fold_columns(codes: list[np.ndarray], lengths: list[np.ndarray], order: range) -> np.ndarray:
    """Concatenate column codes in ``order``; the last column drops its separator."""
    cols = list(order)
    acc = np.zeros(codes[0].shape, dtype=_U64)
    for col in cols[:-1]:
        np.left_shift(acc, lengths[col], out=acc)
        np.bitwise_or(acc, codes[col], out=acc)
    last = cols[-1]
    np.left_shift(acc, lengths[last] - _U64(1), out=acc)
    np.bitwise_or(acc, codes[last] >> _U64(1), out=acc)
    return acc


@functools.cache
def _bottom_bits(width: int, height: int) -> int:
    return sum(1 << (col * (height + 1)) for col in range(width))


@functools.cache
def _board_bits(width: int, height: int) -> int:
    return sum(((1 << height) - 1) << (col * (height + 1)) for col in range(width))


def decode_keys_raw(
    keys: np.ndarray,
    key_bits: int,
    width: int,
    height: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode without raising: ``(first, mask, ok)``, ``ok`` False where a key is not a code.

    No stone count or legality test (see :func:`legal_mask`); where ``ok`` is
    False, ``first``/``mask`` are meaningless.
    """
    if not 0 < key_bits <= 64:
        raise InvalidArgument(f"key_bits must be 1..64, got {key_bits}")
    dec_stones, dec_first = _decode_tables(height)
    window = 2 * height + 1
    h1 = height + 1
    reg = keys << _U64(64 - key_bits)
    ok = (keys >> _U64(key_bits)) == 0 if key_bits < 64 else np.ones(keys.shape, bool)
    first = np.zeros(keys.shape, dtype=_U64)
    mask = np.zeros(keys.shape, dtype=_U64)
    for col in range(width):
        w = (reg >> _U64(64 - window)).astype(np.intp)
        n = dec_stones.take(w)
        ok &= n <= height
        n = np.minimum(n, height)
        shift = _U64(col * h1)
        mask |= ((_U64(1) << n.astype(_U64)) - _U64(1)) << shift
        first |= dec_first.take(w) << shift
        # the stones plus the closing separator (after the last column: padding)
        reg <<= (2 * n + 1).astype(_U64)
    ok &= reg == 0  # nothing may follow the last column
    return first, mask, ok


def legal_mask(first: np.ndarray, mask: np.ndarray, height: int) -> np.ndarray:
    """True where stone counts alternate (A has as many or one more) and nobody has four.

    Assumes gap-free columns (as any decoded code has).
    """
    n = np.bitwise_count(mask).astype(np.int64)
    a = np.bitwise_count(first).astype(np.int64)
    ok = a == (n + 1) // 2
    ok &= ~has_four_bits(first, height)
    ok &= ~has_four_bits(first ^ mask, height)
    return ok


def decode_keys(
    keys: np.ndarray,
    key_bits: int,
    stones: int | None,
    width: int,
    height: int,
    check_legal: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """``(first, mask)`` bitboards of left-aligned column-code keys.

    Raises ``ValueError`` naming the first index whose key is not a code, does
    not hold ``stones`` stones (unless ``stones`` is None), or (``check_legal``)
    is not a legal position: stone counts alternate and nobody has four.

    >>> import numpy as np
    >>> first, mask = decode_keys(np.array([0x35A000]), 24, 4, 7, 6)
    >>> from openingbook.solver import Position
    >>> Position.from_bitboards(int(first[0]), int(mask[0])) == Position.from_moves("4453")
    True
    """
    keys = _as_u64(keys, "keys")
    first, mask, ok = decode_keys_raw(keys, key_bits, width, height)
    if not ok.all():
        i = int(np.argmax(~ok))
        raise InvalidArgument(f"key {i} ({int(keys.flat[i]):#x}) is not a column code")
    if stones is not None:
        count = np.bitwise_count(mask)
        wrong = count != stones
        if wrong.any():
            i = int(np.argmax(wrong))
            raise InvalidArgument(
                f"key {i} ({int(keys.flat[i]):#x}) has {int(count.flat[i])} stones, "
                f"expected {stones}"
            )
    if check_legal:
        legal = legal_mask(first, mask, height)
        if not legal.all():
            i = int(np.argmax(~legal))
            pos = Position.from_bitboards(
                int(first.flat[i]), int(mask.flat[i]), width, height, check=False
            )
            reason = "; ".join(pos.problems()) or "not a legal position"
            raise InvalidArgument(f"key {i} ({int(keys.flat[i]):#x}) is illegal: {reason}")
    return first, mask


def mirror_keys(
    keys: np.ndarray,
    key_bits: int,
    width: int,
    height: int,
) -> np.ndarray:
    """Keys of the mirrored positions (columns reversed), same alignment.

    Raises ``ValueError`` naming the first key that is not a column code.

    >>> import numpy as np
    >>> [hex(k) for k in mirror_keys(np.array([0x800000]), 24, 7, 6)]  # column 1 -> column 7
    ['0x20000']
    """
    keys = _as_u64(keys, "keys")
    first, mask, ok = decode_keys_raw(keys, key_bits, width, height)
    if not ok.all():
        i = int(np.argmax(~ok))
        raise InvalidArgument(f"key {i} ({int(keys.flat[i]):#x}) is not a column code")
    return encode_key_pairs(first, mask, key_bits, width, height)[1]
