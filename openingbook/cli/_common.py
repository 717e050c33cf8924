"""Helpers shared by the command modules: JSON output and error conversion."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


def parallel_options(func: F) -> F:
    """``--jobs``, ``--executor``, ``--scheduler``, ``--table-log2``: how solving is spread out."""
    from openingbook.executors import EXECUTOR_NAMES

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
            "--table-log2", type=int, help="Solver table size per worker, log2 of entries."
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def emit_json(obj: Any) -> None:
    """Print one JSON document (one line) on stdout."""
    click.echo(json.dumps(obj, sort_keys=False, default=_json_default))


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "item"):  # numpy scalars
        return obj.item()
    if hasattr(obj, "value"):  # enums
        return obj.value
    raise TypeError(f"cannot serialize {type(obj).__name__}")


def user_errors(func: F) -> F:
    """Turn ``ValueError``/``OSError`` raised by the library into one-line CLI errors."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except click.ClickException:
            raise
        except BrokenPipeError:
            # the reader went away (`openingbook info book.dat | head -1`): stop quietly,
            # with stdout pointed at /dev/null so that the final flush does not fail too
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(141)
        except (ValueError, OSError) as exc:
            raise click.ClickException(_one_line(exc)) from None
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)

    return wrapper  # type: ignore[return-value]


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"  # not "[Errno 2] No such file ...: 'PATH'"
    return " ".join(text.split())
