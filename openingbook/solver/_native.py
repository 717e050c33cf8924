"""The native cache: numba-compiled kernels saved as shared libraries, run without numba.

Loading numba and a cached kernel costs about half a second per process, which
is most of the time of ``openingbook solve`` on an easy position and of a
lookup in a compact book. A kernel decorated ``@njit(..., native=True)``
(:mod:`openingbook.solver._jit`) is compiled once by numba as usual; after that first run
this module wraps the very same compiled function in a C-callable entry point
(a numba ``cfunc`` taking pointers and shapes instead of arrays), emits the
machine code of the whole thing (the kernel and everything it calls, compiled
for this CPU) as position-independent code, links it with a C compiler into a
shared library, checks that the library gives the answer numba just gave, and
keeps it. Later processes load the library with ``ctypes`` (a few
milliseconds) and never import numba. ``ctypes`` releases the GIL during the
call, as the ``nogil`` kernels do, so threads sharing one table still search
in parallel.

The library's name holds a key: the sha256 of the source of every ``openingbook.solver``
module and of the kernel's module (and the modules of the kernels it calls),
the numba, llvmlite and Python installations, numba's ``NUMBA_*`` settings, the
CPU (its flags) and the argument types. Any change gives a new key, and a new library on the next
first run; nothing stale is ever loaded.

Everything is optional: without a C compiler (``$CC`` or ``cc``; looked for
again by every process that runs the kernel with numba), with an unwritable
cache directory, for arguments of other types, or when the build or
its check fails, the kernel runs with numba as before (a failed build is
remembered in a ``.failed`` file beside the library's name, which says why, so it
is not retried on every run; delete it to retry). ``OPENINGBOOK_NATIVE=0``
turns the native path off. The libraries go to ``__pycache__/native`` beside
the module (as numba's cache does), else to ``$XDG_CACHE_HOME/openingbook/native``,
else to a private directory under the system's temporary directory
(``OPENINGBOOK_NATIVE_DIR`` chooses another directory); with none of them usable
there is no native cache (:mod:`openingbook.solver._cachedir`).

Everything of numba this module uses is its public interface (``cfunc``, ``carray``,
``CFunc.inspect_llvm`` and ``native_name``, the dispatcher's ``nopython_signatures``,
``numba.config``) and llvmlite's, but for one thing numba does not offer: the compiled
code calls a few runtime functions that numba provides from its own extension modules,
which are not loadable without importing numba (memory for the kernels' small scratch
arrays, in numba's ``MemInfo`` layout, and the entry points of its error path).
:data:`_RUNTIME_C` implements them, the one place that depends on numba's internals;
an error inside a native kernel (which numba would raise as an exception) is counted
there and raised as :class:`~openingbook.solver.errors.InternalError` after the call. Because that
layout is numba's own, libraries are built only under the numba versions the test
suite ran on (:data:`TESTED_NUMBA`, the range ``pyproject.toml`` declares); under any
other, as after any failure of the build, numba compiles and caches the kernels itself.
A build also refuses code that calls anything else outside itself (:func:`unprovided`),
and ``tests/test_native.py`` checks the layout and the entry points against numba's.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType
from typing import Any

from openingbook.solver import _cachedir
from openingbook.solver.errors import InternalError

__all__ = [
    "NATIVE_KERNELS",
    "RUNTIME_FUNCTIONS",
    "TESTED_NUMBA",
    "UNAVAILABLE",
    "bind",
    "cache_dir",
    "call",
    "enabled",
    "library_path",
    "register",
    "run_and_build",
    "stand_in",
    "timing_dependent",
    "unprovided",
]

#: every kernel decorated ``native=True``, by ``module.qualname`` (its stand-in,
#: which keeps its native path after numba is loaded: tests compare the two)
NATIVE_KERNELS: dict[str, Any] = {}
#: what :func:`call` returns when the kernel has no native library (yet)
UNAVAILABLE = object()
_LOCK = threading.RLock()
#: (kernel, argument signature) -> _Library, or None when there is none to load
_LIBRARIES: dict[tuple[Any, str], _Library | None] = {}
#: kernels whose build failed in this process, by (kernel, signature)
_FAILED: set[tuple[Any, str]] = set()
_SYMBOL = "openingbook_native_kernel"
_KEY_CACHE: dict[Any, str] = {}
#: module name -> its library directory (None: nothing writable), probed once
_CACHE_DIRS: dict[str, Path | None] = {}

# numpy dtype character code -> (numba type name, ctypes type)
_SCALARS = {
    "Q": ("uint64", ctypes.c_uint64),
    "q": ("int64", ctypes.c_int64),
    "L": ("uint64", ctypes.c_uint64),
    "l": ("int64", ctypes.c_int64),
    "I": ("uint32", ctypes.c_uint32),
    "i": ("int32", ctypes.c_int32),
    "H": ("uint16", ctypes.c_uint16),
    "h": ("int16", ctypes.c_int16),
    "B": ("uint8", ctypes.c_uint8),
    "b": ("int8", ctypes.c_int8),
    "d": ("float64", ctypes.c_double),
}

# ------------------------------------------------ numba's internals: only here
#: numba versions (lowest, first one above) whose runtime ABI :data:`_RUNTIME_C` was
#: tested with, as ``pyproject.toml`` declares them: no library is built under others
TESTED_NUMBA = ((0, 60), (0, 69))

_RUNTIME_C = r"""
/* What numba-compiled code calls outside itself (see openingbook/solver/_native.py). */
#include <stdint.h>
#include <stdlib.h>

/* numba's memory record: the compiled code reads `data` and counts references */
typedef void (*dtor_function)(void *data, size_t size, void *info);
typedef struct {
    size_t refct;
    dtor_function dtor;
    void *dtor_info;
    void *data;
    size_t size;
    void *external_allocator;
} meminfo;

void *NRT_MemInfo_alloc_aligned(size_t size, unsigned align) {
    size_t pad = align > 1 ? align : 1;
    char *base = malloc(sizeof(meminfo) + size + pad);
    if (base == NULL) return NULL;
    meminfo *mi = (meminfo *)base;
    uintptr_t data = (uintptr_t)(base + sizeof(meminfo));
    data = (data + pad - 1) / pad * pad;
    mi->refct = 1;
    mi->dtor = NULL;
    mi->dtor_info = NULL;
    mi->data = (void *)data;
    mi->size = size;
    mi->external_allocator = NULL;
    return mi;
}

void *NRT_MemInfo_alloc_safe_aligned(size_t size, unsigned align) {
    return NRT_MemInfo_alloc_aligned(size, align);
}

void NRT_MemInfo_call_dtor(meminfo *mi) {
    if (mi->dtor != NULL) mi->dtor(mi->data, mi->size, mi->dtor_info);
    free(mi);
}

void NRT_Free(void *ptr) { free(ptr); }

/* the error path: count the error; the caller raises it */
static volatile long errors;
long openingbook_native_errors(void) { return __atomic_load_n(&errors, __ATOMIC_SEQ_CST); }
static void count_error(void) { __atomic_add_fetch(&errors, 1, __ATOMIC_SEQ_CST); }

typedef int gil_state;
extern gil_state PyGILState_Ensure(void);
extern void PyGILState_Release(gil_state);
void numba_gil_ensure(gil_state *state) { *state = PyGILState_Ensure(); }
void numba_gil_release(gil_state *state) { PyGILState_Release(*state); }
void *numba_unpickle(const char *data, int n, const char *hash) { count_error(); return NULL; }
int numba_do_raise(void *exc) { count_error(); return 0; }
void *numba_runtime_build_excinfo_struct(void *a, void *b) { count_error(); return NULL; }
"""


#: the functions :data:`_RUNTIME_C` defines: numba's compiled code may call these, and
#: the C library's and Python's (a library runs inside Python), nothing else
#: (:func:`unprovided`, checked before a library is built)
RUNTIME_FUNCTIONS = frozenset(
    {
        "NRT_MemInfo_alloc_aligned",
        "NRT_MemInfo_alloc_safe_aligned",
        "NRT_MemInfo_call_dtor",
        "NRT_Free",
        "numba_gil_ensure",
        "numba_gil_release",
        "numba_unpickle",
        "numba_do_raise",
        "numba_runtime_build_excinfo_struct",
    }
)
#: what else the compiled code may call: the C library's memory functions
_C_FUNCTIONS = frozenset({"malloc", "free", "memset", "memcpy", "memmove", "memcmp"})


def unprovided(module: Any) -> list[str]:
    """The functions and globals an LLVM module (llvmlite's ``ModuleRef``) of numba's
    code takes from outside that neither :data:`_RUNTIME_C`, the C library nor Python
    provides: a numba whose code calls another runtime function (its runtime changed)
    gives a name here, and no library is built (a missing function would end the
    process when first called)."""
    needed = [f.name for f in module.functions if f.is_declaration]
    needed += [g.name for g in module.global_variables if g.is_declaration]
    return sorted(
        name
        for name in needed
        if not name.startswith(("llvm.", "Py", "_Py"))
        and name not in RUNTIME_FUNCTIONS
        and name not in _C_FUNCTIONS
    )


@functools.cache
def numba_tested() -> bool:
    """Is the installed numba one of :data:`TESTED_NUMBA` (read from its metadata,
    without importing it)? Read once per process: reading the metadata takes about
    0.2 ms, and the numba a process runs does not change while it runs."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        parts = version("numba").split(".")
        installed = (int(parts[0]), int(parts[1]))
    except (PackageNotFoundError, ValueError, IndexError):
        return False
    low, high = TESTED_NUMBA
    return low <= installed < high


class _Library:
    """A loaded native kernel: the C function, its argument plan and result kind."""

    def __init__(self, path: Path, signature: str, result: str) -> None:
        self.dll = ctypes.CDLL(str(path))
        self.fn = getattr(self.dll, _SYMBOL)
        self.errors = self.dll.openingbook_native_errors
        self.errors.restype = ctypes.c_long
        self.errors.argtypes = []
        self.plan = _plan(signature)
        self.result = result
        argtypes = _c_types(self.plan)
        if result.startswith("tuple"):
            argtypes.append(ctypes.c_void_p)
            self.fn.restype = ctypes.c_int64
        else:
            self.fn.restype = ctypes.c_double if result == "float" else ctypes.c_int64
        self.fn.argtypes = argtypes

    def __call__(self, args: tuple[Any, ...]) -> Any:
        cargs = _c_arguments(self.plan, args)
        before = self.errors()
        if self.result.startswith("tuple"):
            import numpy as np

            kinds = self.result.split(":")[1].split(",")
            out = np.zeros(len(kinds), dtype=np.int64)
            cargs.append(out.__array_interface__["data"][0])
            self.fn(*cargs)  # the arrays stay alive in args and out during the call
            value: Any = tuple(_convert(k, x) for k, x in zip(kinds, out.tolist(), strict=True))
        elif self.result == "none":
            self.fn(*cargs)
            value = None
        else:
            value = _convert(self.result, self.fn(*cargs))
        if self.errors() != before:
            raise InternalError(_FAILURE)
        return value

    def bind(self, tail: tuple[Any, ...]) -> Callable[..., Any]:
        """This kernel as a function of its leading arguments, ``tail`` (its last
        arguments) converted now, once: a call converts only the leading ones, a few
        microseconds where :meth:`__call__` takes about 25 (scalars are passed as they
        are: Python ints and bools). The arrays of ``tail`` must stay alive, in place,
        while the function is in use. Integer, boolean and no results only."""
        if self.result not in _BINDABLE:
            raise InternalError(f"bind: a kernel returning {self.result}")
        split = len(self.plan) - len(tail)
        fixed = _c_arguments(self.plan[split:], tail)
        head_plan = self.plan[:split]
        arrays = any(kind in ("array", "tuple") for kind, _, _ in head_plan)
        fn, errors = self.fn, self.errors
        convert = {"int": int, "bool": bool, "none": lambda value: None}[self.result]

        def bound(*head: Any) -> Any:
            before = errors()
            value = fn(*(_c_arguments(head_plan, head) if arrays else head), *fixed)
            if errors() != before:
                raise InternalError(_FAILURE)
            return convert(value)

        bound.library = self  # type: ignore[attr-defined]  # keeps the library loaded
        return bound


def _c_types(plan: list[tuple[str, str, int]]) -> list[Any]:
    """The ``ctypes`` argument types of the library's C function (:func:`_c_arguments`)."""
    argtypes: list[Any] = []
    for kind, code, ndim in plan:
        if kind == "tuple":
            argtypes += _c_types(_plan(code))
        elif kind == "array":
            argtypes.append(ctypes.c_void_p)
            argtypes.extend([ctypes.c_int64] * ndim)
        elif kind == "bool":
            argtypes.append(ctypes.c_int64)
        else:
            argtypes.append(_SCALARS[code][1])
    return argtypes


def _c_arguments(plan: list[tuple[str, str, int]], args: tuple[Any, ...]) -> list[Any]:
    """``args`` as the library's C function takes them: an array as its address and
    its shape, a scalar as a Python number, a tuple as its items, one after another."""
    out: list[Any] = []
    for (kind, code, _), arg in zip(plan, args, strict=True):
        if kind == "tuple":
            out += _c_arguments(_plan(code), arg)
        elif kind == "array":
            out.append(arg.__array_interface__["data"][0])
            out.extend(arg.shape)
        elif code == "d":
            out.append(float(arg))
        else:
            out.append(int(arg))
    return out


_FAILURE = "a native solver kernel failed (run with OPENINGBOOK_NATIVE=0)"
#: the results a bound kernel returns (:meth:`_Library.bind`)
_BINDABLE = ("int", "bool", "none")


def _convert(kind: str, value: Any) -> Any:
    if kind == "bool":
        return bool(value)
    if kind == "float":
        return float(value)
    return int(value)


def enabled() -> bool:
    """Is the native path on (``OPENINGBOOK_NATIVE`` is not ``0``)?"""
    return os.environ.get("OPENINGBOOK_NATIVE", "1") != "0"


def _signature(args: tuple[Any, ...]) -> str | None:
    """The argument types as text (``b,i,Q,A:Q1``...), None for an unsupported argument.

    Python ``bool`` and ``int`` are numba's ``boolean`` and ``int64``; numpy
    scalars keep their dtype; arrays must be C-contiguous (``A:<dtype><ndim>``); a
    tuple of such arguments is its items' types in parentheses, separated by spaces
    (``(A:Q1 A:q1)``; the library takes its items one by one, the kernel the tuple).
    """
    parts = []
    for arg in args:
        if isinstance(arg, tuple):
            inner = _signature(arg) if arg and not any(isinstance(a, tuple) for a in arg) else None
            if inner is None:
                return None
            parts.append("(" + inner.replace(",", " ") + ")")
        elif isinstance(arg, bool):
            parts.append("b")
        elif isinstance(arg, int):
            if not -(1 << 63) <= arg < 1 << 63:
                return None
            parts.append("i")
        elif isinstance(arg, float):
            parts.append("f")
        else:
            dtype = getattr(arg, "dtype", None)
            if dtype is None or dtype.byteorder not in "=|":
                return None
            if getattr(arg, "shape", None) == ():
                if dtype.char == "?":
                    parts.append("b")
                elif dtype.char in _SCALARS:
                    parts.append("s:" + dtype.char)
                else:
                    return None
            elif dtype.char in _SCALARS and arg.flags.c_contiguous and arg.flags.aligned:
                parts.append(f"A:{dtype.char}{arg.ndim}")
            else:
                return None
    return ",".join(parts)


@functools.cache
def _plan(signature: str) -> list[tuple[str, str, int]]:
    """(kind, dtype character, ndim) per argument of a signature; a tuple's is
    ("tuple", its items' signature, their number)."""
    plan = []
    for part in signature.split(","):
        if part.startswith("("):
            items = part[1:-1].replace(" ", ",")
            plan.append(("tuple", items, len(_plan(items))))
        elif part == "b":
            plan.append(("bool", "?", 0))
        elif part == "i":
            plan.append(("scalar", "q", 0))
        elif part == "f":
            plan.append(("scalar", "d", 0))
        elif part.startswith("s:"):
            plan.append(("scalar", part[2:], 0))
        else:
            plan.append(("array", part[2], int(part[3:])))
    return plan


# ------------------------------------------------------------------ the key
def _module_files(kernel: Any) -> list[Path]:
    """The source files the kernel's compiled code comes from: every ``openingbook.solver``
    module, the kernel's module and the modules of the kernels its module uses."""
    files = {p.resolve() for p in Path(__file__).resolve().parent.glob("*.py")}
    todo = [kernel.__module__]
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        module = sys.modules.get(name)
        origin = getattr(module, "__file__", None)
        if origin is None:
            continue
        files.add(Path(origin).resolve())
        for value in vars(module).values():
            # a stand-in (solver._jit.LazyKernel: its function), or numba's dispatcher
            # once numba is loaded (its py_func): the same key. Read from the object's
            # own attributes: any other attribute of a stand-in loads numba
            if isinstance(value, type | ModuleType):
                continue
            own = getattr(value, "__dict__", None) or {}
            func = own.get("function", own.get("py_func"))
            if callable(func):
                todo.append(func.__module__)
    return sorted(files)


def _installation(package: str) -> str:
    """Where a package is installed and when: changes with any reinstall."""
    spec = find_spec(package)
    if spec is None or spec.origin is None:
        return f"{package}: missing"
    directory = Path(spec.origin).parent
    stamps = []
    for name in ("__init__.py", "_version.py"):
        path = directory / name
        if path.exists():
            st = path.stat()
            stamps.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return f"{package}:{directory}:{','.join(stamps)}"


def _cpu() -> str:
    """The CPU model and flags (the code is compiled for this CPU)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            text = fh.read(1 << 16)
    except OSError:
        return os.environ.get("PROCESSOR_IDENTIFIER", "")
    keep = [
        line
        for line in text.split("\n\n")[0].splitlines()
        if line.startswith(("model name", "flags", "vendor_id", "cpu family", "model\t"))
    ]
    return "\n".join(keep)


def _key(kernel: Any, signature: str) -> str:
    base = _KEY_CACHE.get(kernel)
    if base is None:
        digest = hashlib.sha256()
        for path in _module_files(kernel):
            digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
        for part in (
            _installation("numba"),
            _installation("llvmlite"),
            _installation("numpy"),
            sys.version,
            sys.executable,
            sys.platform,
            os.uname().machine if hasattr(os, "uname") else "",
            _cpu(),
            # numba's settings that change the code it makes (NUMBA_CPU_NAME, ...)
            # (not where numba caches, which solver._jit may choose per process)
            repr(
                sorted(
                    (k, v)
                    for k, v in os.environ.items()
                    if k.startswith("NUMBA_") and k != "NUMBA_CACHE_DIR"
                )
            ),
            f"{kernel.__module__}.{kernel.__qualname__}",
            repr(sorted(kernel.options.items())),
            _RUNTIME_C,
        ):
            digest.update(part.encode() + b"\0")
        base = digest.hexdigest()
        _KEY_CACHE[kernel] = base
    return hashlib.sha256(f"{base}\0{signature}".encode()).hexdigest()[:24]


def cache_dir(kernel: Any) -> Path | None:
    """Where the kernel's libraries go: ``$OPENINGBOOK_NATIVE_DIR`` if set, else
    ``__pycache__/native`` beside its module when that is writable, else the user's
    cache directory, else a private temporary one (:mod:`openingbook.solver._cachedir`); None when
    none can be used."""
    chosen = os.environ.get("OPENINGBOOK_NATIVE_DIR")
    if chosen:
        return Path(chosen)
    directory = _CACHE_DIRS.get(kernel.__module__, UNAVAILABLE)
    if directory is UNAVAILABLE:
        origin = getattr(sys.modules.get(kernel.__module__), "__file__", None)
        local = [Path(origin).resolve().parent / "__pycache__" / "native"] if origin else []
        directory = _cachedir.cache_dir("native", local)
        _CACHE_DIRS[kernel.__module__] = directory
    return directory  # type: ignore[return-value]


def library_path(kernel: Any, signature: str) -> Path | None:
    """The library file of a kernel for arguments of this signature (None: no cache)."""
    directory = cache_dir(kernel)
    if directory is None:
        return None
    name = f"{kernel.__module__}.{kernel.__qualname__}-{_key(kernel, signature)}"
    return directory / f"{name}.so"


# ------------------------------------------------------------------ calling
def call(kernel: Any, args: tuple[Any, ...]) -> Any:
    """The kernel's result from its native library, or :data:`UNAVAILABLE`."""
    library = _library(kernel, args)
    if library is None:
        return UNAVAILABLE
    return library(args)


def bind(kernel: Any, args: tuple[Any, ...], fixed: int) -> Callable[..., Any] | None:
    """``kernel``'s native library for arguments like ``args``, as a function of the
    first ``len(args) - fixed`` of them, the last ``fixed`` bound now
    (:meth:`_Library.bind`); None when there is no library for such arguments (yet).

    ``kernel``: a native kernel's stand-in, or its numba dispatcher (numba loaded
    first): the library is the same compiled code either way."""
    native = stand_in(kernel)
    library = None if native is None else _library(native, args)
    if library is None or library.result not in _BINDABLE:
        return None
    return library.bind(args[len(args) - fixed :])


def register(kernel: Any) -> None:
    """Know ``kernel`` (a stand-in decorated ``native=True``, :mod:`openingbook.solver._jit`) as a
    native kernel, by its module and name."""
    NATIVE_KERNELS[f"{kernel.__module__}.{kernel.__qualname__}"] = kernel


def stand_in(kernel: Any) -> Any:
    """The stand-in (:class:`openingbook.solver._jit.LazyKernel`) of a native kernel or of its
    dispatcher, None for a kernel that is not native."""
    return NATIVE_KERNELS.get(f"{kernel.__module__}.{kernel.__qualname__}")


def _library(kernel: Any, args: tuple[Any, ...]) -> _Library | None:
    """The kernel's loaded library for arguments like ``args``, None if none."""
    if not enabled():
        return None
    signature = _signature(args)
    if signature is None:
        return None
    entry = (kernel, signature)
    library = _LIBRARIES.get(entry, UNAVAILABLE)
    if library is UNAVAILABLE:
        with _LOCK:
            library = _LIBRARIES.get(entry, UNAVAILABLE)
            if library is UNAVAILABLE:
                library = _load(kernel, signature)
                _LIBRARIES[entry] = library
    return library  # type: ignore[return-value]


def _load(kernel: Any, signature: str) -> _Library | None:
    path = library_path(kernel, signature)
    if path is None:
        return None
    try:
        result = path.with_suffix(".result").read_text(encoding="ascii").strip()
        return _Library(path, signature, result)
    except (OSError, AttributeError):
        return None


# ----------------------------------------------------------------- building
#: the writable arrays of a call that may build a library are copied first (for the
#: check): at most this many bytes in all (Solver.warm_up's tiny solver makes such calls)
_CHECK_BYTES = 8 << 20
_calls = 0  # calls of native kernels run by numba, started in this process
_running = 0  # ... and still running
_timing_dependent = 0  # open timing_dependent() blocks: no call of theirs is a check


@contextlib.contextmanager
def timing_dependent() -> Iterator[None]:
    """Calls of native kernels made meanwhile (in any thread) never serve as the check
    of a new library: their result depends on timing (a search its time limit stops
    returns early; the library, run again on the same arguments, would finish)."""
    global _timing_dependent
    with _LOCK:
        _timing_dependent += 1
    try:
        yield
    finally:
        with _LOCK:
            _timing_dependent -= 1


def run_and_build(kernel: Any, args: tuple[Any, ...]) -> Any:
    """Run ``kernel`` with numba; then, if that call can serve as the check (no
    other native kernel ran meanwhile, small arrays), build its native library."""
    global _calls, _running
    with _LOCK:
        _calls += 1
        _running += 1
        ticket = _calls
        alone = _running == 1 and _timing_dependent == 0
    try:
        snapshot = _snapshot(kernel, args) if alone else None
        result = kernel.dispatcher()(*args)
    finally:
        with _LOCK:
            _running -= 1
    if snapshot is not None:
        with _LOCK:
            deterministic = _calls == ticket and _running == 0 and _timing_dependent == 0
        if deterministic:
            _build_checked(kernel, args, snapshot, result)
    return result


def _snapshot(kernel: Any, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """Copies of the arguments when a build is due and they are small, else None."""
    if not enabled():
        return None
    signature = _signature(args)
    if signature is None or (kernel, signature) in _FAILED:
        return None
    # arrays the kernel may write (numba compiles no write to a read-only one)
    leaves = _leaves(args)
    arrays = {id(a) for a in leaves if getattr(a, "shape", ()) != () and a.flags.writeable}
    if sum(a.nbytes for a in leaves if id(a) in arrays) > _CHECK_BYTES:
        return None
    path = library_path(kernel, signature)
    if path is None or path.exists() or path.with_suffix(".failed").exists():
        return None
    if _compiler() is None:  # not remembered as a failure: a compiler may come later
        return None
    if not numba_tested():  # nor this: the numba in use may change
        return None
    return _copies(args, arrays)


def _leaves(args: tuple[Any, ...]) -> list[Any]:
    """The arguments with the items of a tuple argument in its place."""
    return [leaf for a in args for leaf in (_leaves(a) if isinstance(a, tuple) else [a])]


def _copies(args: tuple[Any, ...], arrays: set[int]) -> tuple[Any, ...]:
    """``args`` with a copy of each of the ``arrays`` (by id), in tuples too."""
    return tuple(
        _copies(a, arrays) if isinstance(a, tuple) else a.copy() if id(a) in arrays else a
        for a in args
    )


def _build_checked(
    kernel: Any, args: tuple[Any, ...], snapshot: tuple[Any, ...], result: Any
) -> None:
    """Build the library; keep it only if, run on the snapshot of the arguments, it
    gives numba's result and leaves every array exactly as numba left it. Never
    raises: on any failure numba keeps serving the kernel (and the failure is
    remembered beside the library's name)."""
    signature = _signature(args)
    assert signature is not None
    entry = (kernel, signature)
    path = library_path(kernel, signature)
    assert path is not None  # _snapshot found a cache directory
    with _LOCK:
        try:
            _build(kernel, signature, args, snapshot, result, path)
        except Exception as exc:  # any failure: numba keeps serving this kernel
            _FAILED.add(entry)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.with_suffix(".failed").write_text(
                    f"{type(exc).__name__}: {exc}\n", encoding="utf-8"
                )
            except OSError:
                pass


def _result_kind(dispatcher: Any, args: tuple[Any, ...]) -> str | None:
    """How the library returns the kernel's result, from the return type numba compiled
    for these arguments: ``int`` (signed, or unsigned below 64 bits), ``bool``,
    ``float``, ``none``, ``tuple:int,bool,...``; None for anything else (arrays,
    unsigned 64-bit integers, floats in a tuple)."""
    from numba import typeof, types

    argtypes = tuple(typeof(a) for a in args)
    compiled = [s for s in dispatcher.nopython_signatures if tuple(s.args) == argtypes]
    if not compiled:
        return None
    rtype = compiled[0].return_type

    def kind(t: Any, in_tuple: bool) -> str | None:
        if isinstance(t, types.Boolean):
            return "bool"
        if isinstance(t, types.Integer) and (t.signed or t.bitwidth < 64):
            return "int"
        if isinstance(t, types.Float) and not in_tuple:
            return "float"
        return None

    if isinstance(rtype, types.NoneType):
        return "none"
    if isinstance(rtype, types.BaseTuple):
        kinds = [kind(t, True) for t in rtype.types]
        if not kinds or None in kinds:
            return None
        return "tuple:" + ",".join(k for k in kinds if k)
    return kind(rtype, False)


def _wrapper_source(signature: str, result: str, nb: Any) -> tuple[str, list[Any]]:
    """Python source of the C-callable wrapper, and its argument types (``nb`` is
    ``numba.types``)."""
    params: list[str] = []
    types: list[Any] = []
    lines: list[str] = []

    def arguments(plan: list[tuple[str, str, int]], prefix: str) -> list[str]:
        """The wrapper's parameters of ``plan`` (appended) and the kernel's arguments."""
        call_args = []
        for j, (kind, code, ndim) in enumerate(plan):
            i = f"{prefix}{j}"
            if kind == "tuple":
                items = arguments(_plan(code), f"{i}_")
                call_args.append(f"({', '.join(items)},)")
            elif kind == "array":
                shape = [f"n{i}_{d}" for d in range(ndim)]
                params.extend([f"p{i}", *shape])
                types.extend([nb.CPointer(getattr(nb, _SCALARS[code][0]))] + [nb.int64] * ndim)
                lines.append(f"    a{i} = carray(p{i}, ({', '.join(shape)},))")
                call_args.append(f"a{i}")
            elif kind == "bool":
                params.append(f"x{i}")
                types.append(nb.int64)
                call_args.append(f"x{i} != 0")
            else:
                params.append(f"x{i}")
                types.append(getattr(nb, _SCALARS[code][0]))
                call_args.append(f"x{i}")
        return call_args

    body = f"kernel({', '.join(arguments(_plan(signature), ''))})"
    if result.startswith("tuple"):
        n = len(result.split(":")[1].split(","))
        params.append("pout")
        types.append(nb.CPointer(nb.int64))
        lines.append(f"    out = carray(pout, ({n},))")
        lines.append(f"    r = {body}")
        lines += [f"    out[{j}] = r[{j}]" for j in range(n)]
        lines.append("    return 0")
    elif result == "none":
        lines += [f"    {body}", "    return 0"]
    else:
        lines.append(f"    return {body}")
    source = f"def wrapper({', '.join(params)}):\n" + "\n".join(lines) + "\n"
    return source, types


def _target_cpu() -> tuple[str, str]:
    """The CPU name and features numba compiles for: the host's (llvmlite), unless
    ``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES`` say otherwise, without AVX when
    ``NUMBA_ENABLE_AVX`` is off (numba's documented settings)."""
    import llvmlite.binding as ll
    from numba import config

    cpu = config.CPU_NAME or ll.get_host_cpu_name()
    if config.CPU_FEATURES is not None:
        return cpu, config.CPU_FEATURES
    try:
        host = ll.get_host_cpu_features()
    except RuntimeError:
        return cpu, ""
    if not config.ENABLE_AVX:
        for name in host:
            if name.startswith("avx"):
                host[name] = False
    return cpu, host.flatten()


def _compiler() -> str | None:
    """The C compiler (``$CC``, else ``cc``), None when there is none (looked for once
    per process and value of ``$CC``: a search of ``PATH`` takes about 0.1 ms)."""
    return _which(os.environ.get("CC", "cc"))


@functools.cache
def _which(program: str) -> str | None:
    import shutil

    return shutil.which(program)


def _build(
    kernel: Any,
    signature: str,
    args: tuple[Any, ...],
    snapshot: tuple[Any, ...],
    result: Any,
    path: Path,
) -> None:
    """Compile, link and check the library (``args``: after numba's run, ``snapshot``:
    before it); raises on any failure."""
    import subprocess
    import tempfile

    import llvmlite.binding as ll
    import numpy as np
    from numba import carray, cfunc, types

    kind = _result_kind(kernel.dispatcher(), snapshot)
    if kind is None:
        raise RuntimeError(f"result {result!r}: not a scalar or a tuple of scalars")
    cc = _compiler()
    if cc is None:
        raise RuntimeError("no C compiler")
    source, arg_types = _wrapper_source(signature, kind, types)
    namespace: dict[str, Any] = {"carray": carray, "kernel": kernel.dispatcher()}
    exec(compile(source, f"<native wrapper of {kernel.__qualname__}>", "exec"), namespace)
    if kind.startswith("tuple"):
        restype = types.int64
    else:
        restype = types.float64 if kind == "float" else types.int64
    compiled = cfunc(restype(*arg_types), nopython=True)(namespace["wrapper"])
    # the cfunc's whole module (the kernel and everything it calls, linked in)
    module = ll.parse_assembly(compiled.inspect_llvm())
    missing = unprovided(module)
    if missing:
        raise RuntimeError(
            f"the compiled code calls {', '.join(missing)}: not in the native runtime "
            "(numba changed its runtime?)"
        )
    entry = module.get_function(compiled.native_name)
    entry.name = _SYMBOL
    cpu, features = _target_cpu()
    machine = ll.Target.from_default_triple().create_target_machine(
        cpu=cpu, features=features, opt=3, reloc="pic", codemodel="default"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="native-", dir=path.parent) as tmp:
        obj = Path(tmp) / "kernel.o"
        obj.write_bytes(machine.emit_object(module))
        runtime = Path(tmp) / "runtime.c"
        runtime.write_text(_RUNTIME_C, encoding="ascii")
        built = Path(tmp) / "kernel.so"
        done = subprocess.run(
            [cc, "-shared", "-fPIC", "-O2", "-o", str(built), str(obj), str(runtime)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{cc} failed: {done.stderr.strip()[-500:]}")
        # the check: from the same starting state, the library must give numba's
        # result and leave every array exactly as numba's run left it
        result_file = Path(tmp) / "kernel.result"
        result_file.write_text(kind + "\n", encoding="ascii")
        native = _Library(built, signature, kind)(snapshot)
        if native != result:
            raise RuntimeError(f"native result {native!r} differs from numba's {result!r}")
        for i, (before, after) in enumerate(zip(_leaves(snapshot), _leaves(args), strict=True)):
            if isinstance(after, np.ndarray) and not np.array_equal(before, after):
                raise RuntimeError(f"argument {i} differs after the native run")
        os.replace(result_file, path.with_suffix(".result"))
        os.replace(built, path)
