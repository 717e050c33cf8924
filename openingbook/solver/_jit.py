"""numba's decorators, loaded on first use: importing a module of kernels costs nothing.

numba's import costs about 0.2 s (more with the scipy it pulls in) and loading a
cached kernel another 0.3 s: a command that solves one easy position or looks
one up in a compact book would spend most of its time there. The kernel modules
(:mod:`openingbook.solver.search`, :mod:`openingbook.solver.membership`,
:mod:`openingbook.formats.compact`, ...)
therefore take ``njit`` and ``intrinsic`` from here. Before numba is needed they
return stand-ins (:class:`LazyKernel`) that remember the function and its
options; the first call of a stand-in (or any attribute numba's dispatchers
have, such as ``py_func``) imports numba, makes the real dispatcher of every
stand-in, and puts the dispatchers in place of the stand-ins in the globals of
every loaded ``openingbook.solver``/``openingbook`` module, so that numba compiles the
kernels exactly as if they had been decorated by numba itself (same functions,
same options, same on-disk cache). Once numba is loaded, ``njit`` is numba's.

numba caches compiled kernels beside their source; when the packages are not
writable (an installed package run by another user) the cache goes to the
user's cache directory, else to a private temporary one, and only when none of
them can be used are the kernels compiled without a cache (``cache=True``
dropped) rather than failing (:func:`_choose_numba_cache`,
:mod:`openingbook.solver._cachedir`). ``NUMBA_CACHE_DIR``, when set, is numba's as always.

Compiling a command's kernels takes from a few seconds to about half a minute,
once: when numba starts compiling one of ours (its cache holds no code for it), a
one-line note says what compiles and for how long (:data:`FIRST_USE_SECONDS`) on
stderr (:func:`_note_compiling`), when stderr is a terminal
(``OPENINGBOOK_COMPILE_NOTE=1`` always, ``0`` never), once for each thing compiled
(the book reader, then the solver: each is announced): only the run's first process
says it (a build's workers stay silent: on this machine they load the kernel the
build compiled before starting them).

A kernel decorated with ``native=True`` (scalar and array arguments, a scalar
or a tuple of scalars as result) is first looked up in the native cache
(:mod:`openingbook.solver._native`): the same compiled code, saved as a shared library
after its first run, called through ``ctypes`` without loading numba.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["LazyKernel", "intrinsic", "materialize", "njit"]

#: every stand-in made before numba was loaded, in definition order
_PENDING: list[LazyKernel] = []
_LOCK = threading.RLock()
_LOADED = False
#: True when no cache directory is writable: kernels are compiled without ``cache=True``
_NO_CACHE = False
#: the packages whose modules may hold stand-ins in their globals
_PACKAGES = ("openingbook",)


def _no_light_kernel() -> bool:
    return False


#: whether a first use compiles the search's light kernel, for the compile note:
#: :mod:`openingbook.solver._firstuse`, above the search, sets it when it is loaded
first_use_light: Callable[[], bool] = _no_light_kernel


class LazyKernel:
    """A numba dispatcher (or intrinsic) not made yet: made for every stand-in at
    once on first use (:func:`materialize`), then this object forwards to it."""

    def __init__(self, func: Callable[..., Any], kind: str, options: dict[str, Any]) -> None:
        self.function = func
        self.kind = kind  # "njit" or "intrinsic"
        self.options = options
        self.native = bool(options.pop("native", False))
        self.real: Any = None
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__module__ = func.__module__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func

    def make(self, numba: Any) -> Any:
        if self.kind == "intrinsic":
            from numba.extending import intrinsic as numba_intrinsic

            return numba_intrinsic(self.function, **self.options)
        options = dict(self.options)
        if _NO_CACHE:
            options.pop("cache", None)
        return numba.njit(**options)(self.function)

    def dispatcher(self) -> Any:
        """numba's dispatcher of this kernel (numba is loaded if it is not yet)."""
        if self.real is None:
            materialize()
        return self.real

    def __call__(self, *args: Any) -> Any:
        if self.native:
            from openingbook.solver import _native

            if not _LOADED:
                result = _native.call(self, args)
                if result is not _native.UNAVAILABLE:
                    return result
            # numba runs the kernel (no native library for these argument types yet,
            # or numba is loaded anyway), and a missing library is saved for the next
            # process, also for a kernel first called after numba was loaded
            return _native.run_and_build(self, args)
        return self.dispatcher()(*args)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.dispatcher(), name)

    def __repr__(self) -> str:
        state = "loaded" if self.real is not None else "not loaded"
        return f"<lazy numba {self.kind} {self.__module__}.{self.__qualname__} ({state})>"


def _decorator(kind: str, args: tuple[Any, ...], options: dict[str, Any]) -> Any:
    def wrap(func: Callable[..., Any]) -> Any:
        with _LOCK:
            kernel = LazyKernel(func, kind, dict(options))
            if kernel.native:
                # the native cache knows its kernels by name (their stand-ins, which keep
                # the native path after numba is loaded); loaded only by modules that
                # have a native kernel
                from openingbook.solver import _native

                _native.register(kernel)
            if _LOADED or "numba" in sys.modules:  # numba is paid for: no stand-ins
                materialize()
                kernel.real = kernel.make(sys.modules["numba"])
                return kernel.real
            _PENDING.append(kernel)
            return kernel

    if args and callable(args[0]) and not options:
        return wrap(args[0])
    if args:
        raise TypeError(f"{kind}: give the options as keywords (explicit signatures unsupported)")
    return wrap


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit`` on first use; ``native=True``: see the module docstring."""
    return _decorator("njit", args, options)


def intrinsic(*args: Any, **options: Any) -> Any:
    """``numba.extending.intrinsic`` on first use."""
    return _decorator("intrinsic", args, options)


def materialize() -> None:
    """Import numba and put a real dispatcher in place of every stand-in (idempotent)."""
    global _LOADED
    with _LOCK:
        if _LOADED:
            return
        _choose_numba_cache()
        import numba

        if os.environ.get("NUMBA_CACHE_DIR") and not numba.config.CACHE_DIR:
            numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]  # numba came first

        _note_compiling()
        for kernel in _PENDING:
            kernel.real = kernel.make(numba)
        # the kernels find each other through their modules' globals, which numba
        # reads when it compiles: swap the stand-ins there (also where a module
        # imported a kernel of another module by name). A native kernel that no
        # kernel calls stays a stand-in, called from Python only: its first call
        # still saves its native library (a solve's warm-up runs two native kernels,
        # the second after numba is loaded by the first)
        called = {name for k in _PENDING for name in k.function.__code__.co_names}
        for name, module in list(sys.modules.items()):
            if module is None or name.partition(".")[0] not in _PACKAGES:
                continue
            namespace = getattr(module, "__dict__", None)
            if namespace is None:
                continue
            for key, value in list(namespace.items()):
                if isinstance(value, LazyKernel) and value.real is not None:
                    if value.native and key not in called:
                        continue
                    namespace[key] = value.real
        _PENDING.clear()
        _LOADED = True


def _choose_numba_cache() -> None:
    """Point numba's cache where it can write (see the module docstring).

    numba's own fallback (a user-wide directory) raises "cannot cache function"
    when that is not writable either; this chooses first. Worker processes
    inherit the choice through ``NUMBA_CACHE_DIR``.
    """
    global _NO_CACHE
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    from openingbook.solver._cachedir import numba_cache_dir

    packages = [sys.modules[name] for name in _PACKAGES if name in sys.modules]
    choice = numba_cache_dir(Path(m.__file__).resolve().parent for m in packages if m.__file__)
    if choice is None:
        _NO_CACHE = True
    elif choice is not True:
        os.environ["NUMBA_CACHE_DIR"] = str(choice)


#: What a first run compiles, by the kernels' module (the first match of its name's
#: start): the name its note gives it. Any other module's kernels are named by module.
COMPILED = (
    ("openingbook.solver.search", "the solver"),
    ("openingbook.formats.compact", "the book reader"),
    ("openingbook.solver.membership", "the book reader"),
    ("openingbook.answers", "the book reader"),
    ("openingbook.solver._kernels", "the position enumeration"),
    ("openingbook.solver.enumerate", "the position enumeration"),
)
#: The one home of the first-use figures: seconds a first run spends compiling each of
#: :data:`COMPILED` ("light solver": the search's light kernel, solver._firstuse;
#: "the solver": the fast one, two copies; "other": any other module's kernels). The
#: CPU time (user + sys) of the compile in a first run from a fresh install on this
#: project's 2-core machine: numba compiles on one thread, so this is the wait a quiet
#: machine sees. ``python benchmarks/bench_first_use.py`` measures each command's first
#: run beside what its notes promise.
FIRST_USE_SECONDS = {
    "the solver": 20,
    "light solver": 10,
    "the book reader": 9,
    "the position enumeration": 2,
    "other": 5,
}
_NOTE = "OPENINGBOOK_COMPILE_NOTE"
#: the process of a run that may print the note: the first to import this module
#: (a build's workers, started by it, inherit it and leave the note to it)
_NOTE_PROCESS = "OPENINGBOOK_COMPILE_NOTE_PID"
os.environ.setdefault(_NOTE_PROCESS, str(os.getpid()))
#: what this process has announced compiling (each once)
_ANNOUNCED: set[str] = set()
#: how much longer a compile takes here while a child process compiles beside it (the
#: two share the machine: the book reader's first compile, 8.1 s alone, took 11.3 s beside
#: the solver's in ``serve``; ``python benchmarks/bench_first_use.py``)
BESIDE_ANOTHER = 1.4
#: the compiles announced as running in a child process of this one, not yet waited for
_ELSEWHERE: set[str] = set()


def compiled_name(module: str) -> str:
    """The name a note gives the kernels of ``module`` (:data:`COMPILED`)."""
    return next((name for start, name in COMPILED if module.startswith(start)), module)


def compile_note(
    module: str, light: bool = False, done: float = 0.0, elsewhere: bool = False
) -> str:
    """The line that says the kernels of ``module`` are being compiled, and for how
    long (:data:`FIRST_USE_SECONDS`; ``done``: the seconds of it done already, in a
    child process); ``light``: the search's light kernel, while the fast one compiles
    in the background later (:mod:`openingbook.solver._firstuse`); ``elsewhere``:
    compiled in a child process beside this run's other work (its wait overlaps theirs;
    a compile of this process said while one runs takes :data:`BESIDE_ANOTHER` times
    longer)."""
    name = compiled_name(module)
    key = "light solver" if name == "the solver" and light else name
    seconds = FIRST_USE_SECONDS.get(key, FIRST_USE_SECONDS["other"])
    if not elsewhere and _ELSEWHERE - {name}:  # sharing the machine with a child's compile
        seconds *= BESIDE_ANOTHER
    left = f"about {max(1, round(seconds - done))} s"
    if done > 0:
        left += " more"
    where = " in another process" if elsewhere else ""
    if key == "light solver":
        return (
            f"openingbook: compiling the solver{where}, once: {left} (its fastest form "
            "compiles in the background)"
        )
    return f"openingbook: compiling {name}, once: {left}"


def compiled_elsewhere(module: str) -> None:
    """The child compiling ``module``'s kernels for this process has ended (waited for)."""
    _ELSEWHERE.discard(compiled_name(module))


def announce_compile(
    module: str,
    light: bool = False,
    done: float = 0.0,
    elsewhere: bool = False,
    again: bool = False,
) -> None:
    """Say on stderr that the kernels of ``module`` are being compiled (once per name in
    a process, and only where notes are wanted: see the module docstring); the search's
    light kernel compiled in a child process (:func:`openingbook.solver._firstuse.
    start_light`) is announced by the process that starts it (``elsewhere``), and by the
    one that waits for it, with the time left (``done``: the seconds of it done already;
    ``again``: said even if its start was)."""
    name = compiled_name(module)
    if elsewhere and not done:
        _ELSEWHERE.add(name)
    if (name in _ANNOUNCED and not again) or not _notes_wanted():
        return
    _ANNOUNCED.add(name)
    clear = "\r\x1b[K" if _is_terminal(sys.stderr) else ""  # over a progress line
    print(clear + compile_note(module, light, done, elsewhere), file=sys.stderr, flush=True)


def _notes_wanted() -> bool:
    wanted = os.environ.get(_NOTE)
    if wanted == "0" or (wanted != "1" and not _is_terminal(sys.stderr)):
        return False
    return os.environ.get(_NOTE_PROCESS) == str(os.getpid())


def _note_compiling() -> None:
    """Announce (:func:`announce_compile`) each kernel of ours numba starts compiling
    in this run: the first of each name (:data:`COMPILED`) says what compiles, and for
    how long (see the module docstring)."""
    if not _notes_wanted():
        return
    from numba.core import event

    class Compiles(event.Listener):
        def on_start(self, ev: Any) -> None:
            func = getattr(ev.data.get("dispatcher"), "py_func", None)
            module = getattr(func, "__module__", "") or ""
            if module.partition(".")[0] not in _PACKAGES:
                return
            # a first use compiles the light kernel (solver._firstuse)
            light = compiled_name(module) == "the solver" and first_use_light()
            announce_compile(module, light)

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", Compiles())


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
