"""Helpers shared by the command modules: JSON output and error conversion.

:func:`user_errors` is where library errors become exit statuses: an
:class:`~openingbook.errors.InvalidArgument` exits with 2 (a bad argument, like
the ones click rejects), naming the command-line flag of the argument; every
other :class:`openingbook.Error` (a damaged book, a foreign work directory, an
existing output), an ``OSError`` (a missing file, a full disk), a stray
``ValueError`` and running out of memory exit with 1.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import importlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import click

from openingbook.errors import Error, InvalidArgument, OutputExists
from openingbook.memory import MAX_TABLE_LOG2, MIN_TABLE_LOG2

if TYPE_CHECKING:
    from openingbook.solver import Position

F = TypeVar("F", bound=Callable[..., Any])

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


def parse_output_format(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """``--format`` of a command that writes a book, parsed once into the registry's
    entry of that format (:func:`openingbook.formats.as_format`)."""
    if value is None:
        return None
    from openingbook.formats.registry import as_format, own_formats

    writes = own_formats()
    try:
        chosen = as_format(value)
    except InvalidArgument:
        chosen = None
    if chosen not in writes:
        names = ", ".join(repr(f.name) for f in writes)
        raise click.BadParameter(f"{value!r} is not one of {names}.")
    return chosen


#: the format a command writes its book in (build, derive): the command receives the
#: registry's entry (or ``None``) as ``format``
output_format_option = click.option(
    "--format",
    "format",
    metavar="FORMAT",
    callback=parse_output_format,
    default=None,
    help="Thill's layout (.dat plus a manifest) or the compact format (.c4b, "
    "self-describing; complete books and books under a line only; the only format of "
    "other board sizes). Default: from the output's name (.c4b compact, .dat Thill), "
    "else Thill's layout on 7x6; a name of another format is refused.",
)


def _board_size(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """``--size WxH`` parsed into a :class:`openingbook.solver.BoardSize` (exit 2 if bad)."""
    if value is None:
        return None
    from openingbook.solver import parse_board_size

    try:
        return parse_board_size(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def size_option(help_text: str) -> Callable[[F], F]:
    """``--size WxH``: the board size (passed as ``size``, a ``BoardSize`` or None)."""
    return click.option(
        "--size",
        "size",
        metavar="WxH",
        default=None,
        callback=_board_size,
        help=help_text,
    )


def board_size_options(func: F) -> F:
    """``--size WxH`` or ``--width W --height H`` (default 7x6); the command receives
    ``size`` (a :class:`openingbook.solver.BoardSize` or None), ``width`` and ``height`` (ints or
    None), resolved by :func:`resolve_board_size`."""
    options = [
        size_option(
            "Board size, width x height (default 7x6): any board with "
            "width x (height + 1) <= 64, e.g. 8x7, 9x6, 7x8, 5x5."
        ),
        click.option("--width", type=int, default=None, help="Board width (instead of --size)."),
        click.option("--height", type=int, default=None, help="Board height (instead of --size)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def resolve_board_size(size: Any, width: int | None, height: int | None) -> Any:
    """The :class:`openingbook.solver.BoardSize` of :func:`board_size_options`' values; a bad or
    doubly given size is a usage error (exit status 2)."""
    from openingbook.solver import DEFAULT_BOARD, BoardSize, check_board_size

    if size is not None:
        if width is not None or height is not None:
            raise click.UsageError("give either --size or --width/--height, not both")
        return size
    width = DEFAULT_BOARD.width if width is None else width
    height = DEFAULT_BOARD.height if height is None else height
    try:
        check_board_size(width, height)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    return BoardSize(width, height)


def seed_option(help_text: str) -> Callable[[F], F]:
    """``--seed N`` (default 0): a random seed, never negative (the error names it)."""
    return click.option(
        "--seed", type=click.IntRange(min=0), default=0, show_default=True, help=help_text
    )


def parallel_options(func: F) -> F:
    """``--jobs``, ``--executor``, ``--scheduler``, ``--table-log2``: how solving is spread out."""
    from openingbook.pipeline.executors import EXECUTOR_NAMES

    options = [
        click.option(
            "-j",
            "--jobs",
            type=click.IntRange(min=1),
            help="Worker processes (default: all cores).",
        ),
        click.option(
            "--executor",
            type=click.Choice(EXECUTOR_NAMES),
            default="pool",
            show_default=True,
            help="Local process pool, or a dask.distributed cluster.",
        ),
        click.option(
            "--scheduler",
            metavar="ADDRESS",
            help="Dask scheduler address (tcp://host:8786); "
            "default a local cluster of --jobs workers.",
        ),
        click.option(
            "--table-log2",
            type=click.IntRange(10, 32),
            help="Solver table size per worker: 2^N entries of 8 bytes.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _book_format(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """``--format`` parsed into a record layout (:func:`openingbook.formats.registry.parse_layout`;
    exit 2 if bad)."""
    if value is None:
        return None
    from openingbook.formats.registry import parse_layout

    try:
        return parse_layout(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


#: ``--format``: the layout of a book whose format cannot be detected; the
#: command receives a :class:`~openingbook.formats.Layout` (or ``None``) as ``fmt``.
format_option = click.option(
    "--format",
    "fmt",
    metavar="FORMAT",
    default=None,
    callback=_book_format,
    help="Book format: 8, 12, 12-dist (any ply: N or N-dist) or a Thill file name; "
    "default: the manifest <book>.json, Thill's file names, else the content.",
)


class LazyChoice(click.Choice):
    """A :class:`click.Choice` of a library constant, imported when first needed.

    Every command imports all command modules (``--help`` lists them), so a
    constant read at import time would load its library, numpy and all, into
    ``openingbook lookup`` and ``--help`` too; this one is read when the option
    is parsed or its help is shown.
    """

    def __init__(self, module: str, name: str) -> None:
        self._source = (module, name)
        self.case_sensitive = True

    @functools.cached_property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        module, name = self._source
        return tuple(getattr(importlib.import_module(module), name))


class LazyHelpOption(click.Option):
    """An option whose help text is made from the library when it is shown
    (``cls=LazyHelpOption, help_from=FUNCTION``), for the reason of :class:`LazyChoice`."""

    def __init__(self, *args: Any, help_from: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._help_from = help_from

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        if self.help is None:
            self.help = self._help_from()
        return super().get_help_record(ctx)


class ShippedBooksHelp(click.Command):
    """A command whose help says how deep the shipped books answer: ``{book_reach}`` in
    its text becomes a sentence read from the books (:func:`openingbook.booknames.
    lookup_stones`) when the help is shown, not when the command loads (every command
    line loads every command)."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from openingbook.booknames import lookup_stones
        from openingbook.solver import DEFAULT_BOARD

        stones = lookup_stones(DEFAULT_BOARD)
        reach = (
            "No shipped books are installed: the solver answers every position."
            if stones is None
            else f"On {DEFAULT_BOARD}, positions of up to {stones} stones are answered from the "
            "shipped books at once, deeper ones by the solver."
        )
        text = self.help
        self.help = (text or "").replace("{book_reach}", reach)
        try:
            super().format_help_text(ctx, formatter)
        finally:
            self.help = text


#: the smallest job (positions) :func:`progress_bar` shows a bar for: smaller ones end
#: in seconds
PROGRESS_FROM = 1_000_000
#: seconds between two progress lines in a log (``--progress``, stderr not a terminal)
LOG_INTERVAL_SECONDS = 10


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal (progress is shown there by default)."""
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # closed, or a stand-in without isatty
        return False


def _progress_shown(ctx: click.Context, param: click.Parameter, forced: bool) -> bool:
    return forced or stderr_is_terminal()


#: ``--progress``: the command receives ``progress``, whether to show progress on
#: stderr (a terminal, or asked for: then as lines for a log, :class:`ProgressLines`)
progress_option = click.option(
    "--progress",
    "progress",
    is_flag=True,
    callback=_progress_shown,
    help="Show progress also when standard error is not a terminal "
    f"(a line every {LOG_INTERVAL_SECONDS} s, for logs).",
)


class ProgressLines:
    """The stream of a progress bar in a log (stderr not a terminal): each redraw of
    the bar (tqdm writes ``"\r" + line``) becomes a line of its own, at most one every
    ``interval`` seconds, and the bar's last state is written when it ends; any other
    text passes through."""

    def __init__(
        self,
        stream: TextIO,
        interval: float = LOG_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.interval = interval
        self.clock = clock
        self.pending = ""
        self.written_at: float | None = None
        self.last = ""

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        if text.startswith("\r"):  # a redraw: the latest state of the bar
            self.pending = text.strip()
            now = self.clock()
            if self.pending and (self.written_at is None or now - self.written_at >= self.interval):
                self._write_pending(now)
        elif not text.strip():  # the bar's end ("\n" after its last redraw)
            if self.pending:
                self._write_pending(self.clock())
        else:
            self.stream.write(text)
        return len(text)

    def _write_pending(self, now: float) -> None:
        if self.pending != self.last:  # a bar ends by drawing its last state again
            self.stream.write(self.pending + "\n")
            self.stream.flush()
            self.last, self.written_at = self.pending, now
        self.pending = ""

    def flush(self) -> None:
        self.stream.flush()


def progress_stream() -> Any:
    """Where progress goes: stderr on a terminal, else :class:`ProgressLines` over it."""
    return sys.stderr if stderr_is_terminal() else ProgressLines(sys.stderr)


#: seconds between two redraws of a progress bar that no call moved (its clock runs on)
REDRAW_SECONDS = 1.0


class Progress:
    """Progress bars on stderr for the library's ``progress(done, total)`` callbacks
    (positions): called as that callback; :meth:`stage` starts the bar of the next step
    of the same command (a derivation's write, a validation's comparison).

    The rate is work done over time: the positions done since the step's first call
    over the seconds since it (the library calls ``progress(0, total)`` when a step
    starts), not tqdm's smoothed rate, which a bar shown late (from
    :data:`PROGRESS_FROM` positions) or jumping by big pieces would inflate.

    A bar is redrawn every :data:`REDRAW_SECONDS` even when no call moved it (tqdm
    draws only on updates): a step whose first piece takes 18 s shows its elapsed time
    growing, not a clock stopped at 0 (in a log, a line every
    :data:`LOG_INTERVAL_SECONDS`). :meth:`end` stops the redraws."""

    def __init__(self, what: str, redraw: float = REDRAW_SECONDS) -> None:
        self.what = what
        self.bar: Any = None
        #: a bar was shown: the command is long enough for every later step to show one
        self.shown = False
        #: (time.time(), done) of the step's first call
        self.began: tuple[float, int] | None = None
        self.redraw = redraw
        self._lock = threading.Lock()  # the bar, between the caller and the redraws
        self._stop = threading.Event()
        self._redraws: threading.Thread | None = None

    def __call__(self, done: int, total: int) -> None:
        with self._lock:
            if self.began is None:
                self.began = (time.time(), done)
            if self.bar is None:
                if total < PROGRESS_FROM and not self.shown:
                    return
                self._open(total)
            self.bar.total = total
            self.bar.update(done - self.bar.n)

    def _open(self, total: int) -> None:
        from tqdm import tqdm

        since, first = self.began or (time.time(), 0)
        self.bar = tqdm(
            desc=self.what,
            total=total,
            initial=first,
            unit=" positions",
            unit_scale=True,
            smoothing=0,  # the rate: (n - initial) / elapsed
            file=progress_stream(),
        )
        self.bar.start_t = since  # tqdm's clock is time.time
        self.shown = True
        if self._redraws is None and not self._stop.is_set():
            self._redraws = threading.Thread(target=self._redraw, name="progress", daemon=True)
            self._redraws.start()

    def _redraw(self) -> None:
        while not self._stop.wait(self.redraw):
            with self._lock:
                if self.bar is not None:
                    self.bar.refresh()

    def stage(self, what: str) -> None:
        """The next step is ``what``: the current bar ends, its progress gets its own."""
        self.close()
        with self._lock:
            self.what = what
            self.began = None

    def close(self) -> None:
        with self._lock:
            if self.bar is not None:
                self.bar.close()
                self.bar = None

    def end(self) -> None:
        """The last bar ends, and its redraws."""
        self._stop.set()
        if self._redraws is not None:
            self._redraws.join()
        self.close()


@contextlib.contextmanager
def progress_bar(enabled: bool, what: str) -> Iterator[Progress | None]:
    """A :class:`Progress` for the library's ``progress(done, total)`` callbacks, shown
    from the first call of a job of :data:`PROGRESS_FROM` positions or more (and for
    every later step of a command that showed one); None when not ``enabled``
    (``--json``, or ``--progress`` not given where stderr is not a terminal)."""
    if not enabled:
        yield None
        return
    progress = Progress(what)
    try:
        yield progress
    finally:
        progress.end()


def shown_moves(moves: str, keep: int = 24) -> str:
    """A move string as a progress line names it: at most ``keep`` characters.

    >>> shown_moves(""), shown_moves("4453"), shown_moves("1234567" * 5)
    ('(start)', '4453', '123456712345671234567123...')
    """
    if not moves:
        return "(start)"
    return moves if len(moves) <= keep else moves[:keep] + "..."


#: seconds a command works silently before :func:`working` says it is at work
WORKING_AFTER_SECONDS = 2.0


@contextlib.contextmanager
def working(enabled: bool, what: str) -> Iterator[Callable[[], None]]:
    """For work the library reports no progress of: from :data:`WORKING_AFTER_SECONDS`
    on, a line on stderr saying ``what`` is at work and for how long (each second on a
    terminal, a line every :data:`LOG_INTERVAL_SECONDS` in a log), ended by the true
    elapsed time (``what: 83.2 s``); nothing for work that ends sooner or when not
    ``enabled`` (``--json``, or no terminal without ``--progress``). Gives a function
    that ends the line before the block does (a progress bar of the work takes over)."""
    if not enabled:
        yield lambda: None
        return
    stream = progress_stream()
    started = time.perf_counter()
    stop = threading.Event()
    shown = threading.Event()

    def show() -> None:
        if stop.wait(WORKING_AFTER_SECONDS):
            return
        while True:
            shown.set()
            stream.write(f"\r{what}: {time.perf_counter() - started:.0f} s")
            stream.flush()
            if stop.wait(1.0):
                return

    def finish() -> None:
        if stop.is_set():
            return
        stop.set()
        thread.join()
        if shown.is_set():
            stream.write(f"\r{what}: {time.perf_counter() - started:.1f} s")
            stream.write("\n")
            stream.flush()

    thread = threading.Thread(target=show, name="working", daemon=True)
    thread.start()
    try:
        yield finish
    finally:
        finish()


class BarAfterWork:
    """The stream of a library's progress bar that comes after work shown by
    :func:`working`: its first write ends the working line (``finish``)."""

    def __init__(self, stream: Any, finish: Callable[[], None]) -> None:
        self.stream = stream
        self.finish: Callable[[], None] | None = finish

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        if self.finish is not None:
            self.finish()
            self.finish = None
        return int(self.stream.write(text) or 0)

    def flush(self) -> None:
        self.stream.flush()


def counted(count: int, noun: str, plural: str | None = None, *, grouped: bool = True) -> str:
    """``count`` and ``noun`` in the number that agrees with it (``plural``: when not
    ``noun + "s"``), the count with thousands separators unless ``grouped`` is off.

    >>> counted(1, "position"), counted(4_200_899, "position"), counted(2, "ply", "plies")
    ('1 position', '4,200,899 positions', '2 plies')
    """
    number = f"{count:,}" if grouped else str(count)
    return f"{number} {noun if count == 1 else plural or noun + 's'}"


def emit_json(obj: Any, err: bool = False) -> None:
    """Print one JSON document (one line) on stdout (``err``: on stderr, when stdout
    carries the command's output, ``-o -``)."""
    click.echo(json.dumps(obj, sort_keys=False, default=_json_default), err=err)


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "item"):  # numpy scalars
        return obj.item()
    if hasattr(obj, "value"):  # enums
        return obj.value
    raise TypeError(f"cannot serialize {type(obj).__name__}")


class BadArgument(click.ClickException):
    """A value the library refused as an argument: exit status 2, like click's own."""

    exit_code = 2


def user_errors(func: F) -> F:
    """Turn errors raised by the library into one-line CLI errors (see the module doc).

    Ctrl-C is left to the ``main`` group, which prints ``interrupted``.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except click.ClickException:
            raise
        except OutputExists as exc:
            raise click.ClickException(f"{exc.path} exists; use --force to overwrite it") from None
        except InvalidArgument as exc:
            raise BadArgument(" ".join(exc.describe(_flag(exc.argument)).split())) from None
        except (Error, ValueError, OSError) as exc:
            if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
                # the reader went away (`openingbook info book.dat | head -1`; the library
                # says OutputUnwritable, click BrokenPipeError): stop quietly, with stdout
                # pointed at /dev/null so that the final flush does not fail too
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
                sys.exit(141)
            raise click.ClickException(_one_line(exc)) from None
        except MemoryError:
            raise click.ClickException(
                "out of memory (a smaller --table-log2 or fewer --jobs may help)"
            ) from None

    return wrapper  # type: ignore[return-value]


def parse_moves(moves: str, argument: str, board: Any = None) -> Position:
    """The position after ``moves`` (1-based columns) on ``board`` (a ``BoardSize``,
    default 7x6); a malformed or illegal move string is a bad argument (exit
    status 2) named after the command's parameter."""
    from openingbook.solver import DEFAULT_BOARD, InvalidArgument, Position

    try:
        return Position.from_moves(moves, *(board or DEFAULT_BOARD))
    except ValueError as exc:  # the message repeats at most the start of a long string
        refusal = InvalidArgument(str(exc), argument=argument, value=moves)
        raise BadArgument(refusal.describe(_flag(argument))) from None


def stdin_text_stream() -> TextIO:
    """Standard input for reading text, or ``OSError`` when there is none (closed:
    ``cmd 0<&-``), so that the command fails with one line instead of a traceback."""
    stream = sys.stdin
    if stream is None:
        raise OSError("cannot read standard input: it is closed")
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # not a file descriptor (a test runner's buffer)
        return stream
    try:
        os.fstat(fd)
    except OSError:
        raise OSError("cannot read standard input: it is closed") from None
    return stream


#: the most a diagram read from standard input may hold (64 cells and a little layout)
MAX_DIAGRAM_CHARS = 1 << 16


def read_stdin(limit: int = MAX_DIAGRAM_CHARS) -> str:
    """Standard input as text (see :func:`stdin_text_stream`), at most ``limit``
    characters: more is an error, not a read without end (``< /dev/zero``)."""
    from openingbook.inputs import read_bounded

    stream = stdin_text_stream()
    try:
        return read_bounded(stream, "standard input", limit)
    except OSError as exc:
        raise OSError(f"cannot read standard input: {exc.strerror or exc}") from None


def _flag(argument: str | None) -> str | None:
    """The current command's name for the library argument ``argument``: its longest
    flag (``--table-log2``) or, for a positional argument, its metavar (``MOVES``)."""
    if argument is None:
        return None
    ctx = click.get_current_context(silent=True)
    for param in ctx.command.params if ctx is not None else ():
        if param.name == argument:
            if isinstance(param, click.Option):
                return max(param.opts, key=len)
            return param.human_readable_name
    return argument


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and not isinstance(exc, Error) and exc.filename and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"  # not "[Errno 2] No such file ...: 'PATH'"
    return " ".join(text.split())


def resolve_book_argument(book: str) -> Any:
    """The file of a book argument (:func:`openingbook.booknames.resolve_book`: an
    existing file wins, else a shipped book's name); on a name clash a note on stderr
    says which was used. A missing or unreadable book exits with 1, like any file
    problem."""
    from openingbook.booknames import resolve_book, shipped_twin

    try:
        path = resolve_book(book)
    except (ValueError, OSError) as exc:
        raise click.ClickException(_one_line(exc)) from None
    twin = shipped_twin(book)
    if twin is not None:
        click.echo(
            f"note: {book} is the file {path.resolve()} here, not the shipped book {book} ({twin})",
            err=True,
        )
    return path


class BookParam(click.ParamType):
    """A book argument: an existing file, or a shipped book's name (``12-dist``)."""

    name = "book"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from pathlib import Path

        if isinstance(value, Path):
            return value
        path = resolve_book_argument(value)
        if not path.exists():  # a path, not a name: exit 1 as a missing file
            raise click.ClickException(f"{value}: No such file or directory")
        return path


#: Use as ``type=`` of every argument that names a book to read.
BOOK = BookParam()


#: ``--book none``: the solver alone
NO_BOOK = "none"


class _EngineBook(click.ParamType):
    """A ``--book`` value: a book file, a shipped book's name, or ``none``."""

    name = "book"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value == NO_BOOK:
            return value
        return BOOK.convert(value, param, ctx)


#: ``--book``: the engine's books (``analyze``, ``best``, ``explore``); the command
#: receives ``books``, a tuple of book paths and ``none``
book_option = click.option(
    "--book",
    "books",
    type=_EngineBook(),
    multiple=True,
    help="A distance book to use instead of the shipped ones (a file or a shipped "
    "book's name; repeat for several plies), or 'none' for the solver alone.",
)

#: ``--table-log2``: the engine's solver table (``table_log2``, None for the default)
table_option = click.option(
    "--table-log2",
    type=click.IntRange(MIN_TABLE_LOG2, MAX_TABLE_LOG2),
    default=None,
    help="The solver's transposition table, 2^N entries of 8 bytes (default: as "
    "'openingbook solve').",
)


def engine_arguments(
    books: tuple[Any, ...], size: Any, width: int | None, height: int | None
) -> dict[str, Any]:
    """The ``board`` and ``books`` of :class:`openingbook.engine.Engine` that
    :data:`book_option` and :func:`board_size_options` ask for: the shipped books unless
    ``--book`` is given, the books' own board (``board=None``) unless a size is."""
    if NO_BOOK in books and len(books) > 1:
        raise click.UsageError("--book none cannot be combined with books")
    if books and NO_BOOK not in books and size is None and width is None and height is None:
        return {"board": None, "books": list(books)}
    board = resolve_board_size(size, width, height)
    if not books:
        return {"board": board}  # the engine's default: the shipped books of the board
    return {"board": board, "books": None if books == (NO_BOOK,) else list(books)}


def listen_options(default_port: int) -> Callable[[F], F]:
    """``--host`` and ``--port`` of a command that starts a web server (explore, serve)."""

    def decorate(func: F) -> F:
        func = click.option(
            "--port",
            type=click.IntRange(0, 65535),
            default=default_port,
            show_default=True,
            help="TCP port; 0 picks any free port (the address printed names it).",
        )(func)
        return click.option(
            "--host",
            default="127.0.0.1",
            show_default=True,
            help="Address to listen on. The default answers this machine only; another "
            "address lets other machines use the server (and its CPU).",
        )(func)

    return decorate


def listening_server(make: Callable[[], Any], host: str, port: int) -> Any:
    """``make()`` (a server bound to ``host:port``), its ``OSError`` as a bad argument."""
    try:
        return make()
    except OSError as exc:
        raise BadArgument(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None


class OutputOption(click.Option):
    """``-o/--output``, the one output option of every command that writes; the
    older spelling ``--out`` is still accepted but not shown in the help."""

    _HIDDEN = ("--out",)

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        shown = [o for o in self.opts if o not in self._HIDDEN]
        saved, self.opts = self.opts, shown
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = saved


#: the output path meaning standard output (text outputs only)
STDOUT = "-"


def output_option(help_text: str, *, required: bool = False, text: bool = False) -> Any:
    """``-o/--output PATH`` (the command receives ``output``); ``text``: ``-`` writes to
    standard output."""
    if text:
        help_text += " '-' writes to standard output."
    return click.option(
        "-o",
        "--output",
        "--out",
        "output",
        cls=OutputOption,
        metavar="PATH",
        required=required,
        # a directory is refused by the library, as a file problem (exit 1)
        type=click.Path(allow_dash=text),
        help=help_text,
    )


def to_stdout(output: Any) -> bool:
    """Does the command write its output to standard output (``-o -``)?"""
    return output is not None and str(output) == STDOUT
