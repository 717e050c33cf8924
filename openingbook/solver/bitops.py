"""Bit and memory operations for numba-compiled code that numba has no builtin for.

Each function is an ``@intrinsic`` that emits one LLVM instruction, so it
compiles to a single machine instruction (``popcnt``, ``tzcnt``,
``prefetcht0``, ``mov``) and caches with the functions that call it.

Only callable from ``@njit`` code:

>>> import numpy as np
>>> from numba import njit
>>> @njit
... def bits_set(x):
...     return popcount(x)
>>> bits_set(np.uint64(0b1011))
3
>>> @njit
... def lowest_bit(x):
...     return trailing_zeros(x)
>>> lowest_bit(np.uint64(0b1000))
3
"""

from __future__ import annotations

from typing import Any

# numba's ``intrinsic``, applied when numba is first needed (importing this module
# must not import numba: see openingbook/solver/_jit.py); numba and llvmlite are imported
# inside the typing functions, which only numba calls
from openingbook.solver._jit import intrinsic

__all__ = ["load_relaxed", "popcount", "prefetch", "store_relaxed", "trailing_zeros"]


def _llvm() -> tuple[Any, Any, Any]:
    """(llvmlite.ir, numba.types, numba.core.cgutils), for the code generators."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils

    return ir, types, cgutils


def _require_u64(x: Any) -> None:
    _, types, _ = _llvm()
    if not (isinstance(x, types.Integer) and x.bitwidth == 64):
        raise TypeError(f"expected a 64-bit integer, got {x}")


@intrinsic
def popcount(typingctx, x):  # type: ignore[no-untyped-def]
    """Number of set bits of a 64-bit integer (LLVM ``ctpop``), as ``int64``."""
    ir, types, _ = _llvm()
    _require_u64(x)
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return sig, codegen


@intrinsic
def trailing_zeros(typingctx, x):  # type: ignore[no-untyped-def]
    """Index of the lowest set bit of a 64-bit integer (64 for zero), as ``int64``."""
    ir, types, _ = _llvm()
    _require_u64(x)
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.cttz", [ir.IntType(64), ir.IntType(1)])
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

    return sig, codegen


@intrinsic
def prefetch(typingctx, array, index):  # type: ignore[no-untyped-def]
    """Hint the CPU to load ``array[index]`` into cache (no effect on results).

    No bounds check: ``index`` must be valid (a prefetch of a bad address is
    harmless on x86, but keep it in range anyway).
    """
    ir, types, cgutils = _llvm()
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        raise TypeError("prefetch(array, integer index)")
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        arrty, idxty = signature.args
        ary = context.make_array(arrty)(context, builder, args[0])
        idx = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, arrty, ary, [idx], wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        # read access, high temporal locality, data cache
        builder.call(
            fn,
            [
                builder.bitcast(ptr, i8p),
                ir.Constant(i32, 0),
                ir.Constant(i32, 3),
                ir.Constant(i32, 1),
            ],
        )
        return context.get_dummy_value()

    return sig, codegen


def _require_word_array(array: Any, index: Any) -> None:
    _, types, _ = _llvm()
    if not (
        isinstance(array, types.Array)
        and isinstance(array.dtype, types.Integer)
        and array.dtype.bitwidth == 64
        and isinstance(index, types.Integer)
    ):
        raise TypeError("expected (array of 64-bit integers, integer index)")


def _item_pointer(context, builder, arrty, idxty, array, index):  # type: ignore[no-untyped-def]
    _, types, cgutils = _llvm()
    ary = context.make_array(arrty)(context, builder, array)
    idx = context.cast(builder, index, idxty, types.intp)
    return cgutils.get_item_pointer(context, builder, arrty, ary, [idx], wraparound=False)


@intrinsic
def load_relaxed(typingctx, array, index):  # type: ignore[no-untyped-def]
    """``array[index]`` read as one atomic word (LLVM ``load atomic monotonic``).

    For memory other threads write meanwhile (the shared transposition table,
    the stop flag): the value is one that some thread stored, never a mix, and
    the compiler may neither split the load nor repeat it, nor keep the value
    in a register across loop iterations. On x86-64 it is a plain ``mov``. No
    bounds check: ``index`` must be valid.
    """
    _require_word_array(array, index)
    sig = array.dtype(array, index)

    def codegen(context, builder, signature, args):
        arrty, idxty = signature.args
        ptr = _item_pointer(context, builder, arrty, idxty, args[0], args[1])
        return builder.load_atomic(ptr, "monotonic", 8)

    return sig, codegen


@intrinsic
def store_relaxed(typingctx, array, index, value):  # type: ignore[no-untyped-def]
    """``array[index] = value`` as one atomic word (LLVM ``store atomic monotonic``).

    See :func:`load_relaxed`. No bounds check: ``index`` must be valid.
    """
    _, types, _ = _llvm()
    _require_word_array(array, index)
    if not (isinstance(value, types.Integer) and value.bitwidth == 64):
        raise TypeError(f"expected a 64-bit integer value, got {value}")
    sig = types.void(array, index, value)

    def codegen(context, builder, signature, args):
        arrty, idxty, valty = signature.args
        ptr = _item_pointer(context, builder, arrty, idxty, args[0], args[1])
        val = context.cast(builder, args[2], valty, arrty.dtype)
        builder.store_atomic(val, ptr, "monotonic", 8)
        return context.get_dummy_value()

    return sig, codegen
