"""Every book the project writes goes through the one writer of its format, the book
model in (``FORMATS[name].write(model, out)``), and comes out byte for byte as the
earlier outputs this project shipped (``books/``, with the commands in their manifests);
the output's format follows one rule in every command (``--format``, else the name);
whole books are loaded by the one loader (``formats.load_book``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import openingbook.formats.registry
import openingbook.formats.thill
from openingbook.cli import main
from openingbook.errors import InvalidArgument
from openingbook.formats import FORMATS, format_named, load_book, read_records
from openingbook.formats.compact import CompactBook
from openingbook.formats.registry import output_format
from openingbook.formats.thill import read_manifest, thill_values
from openingbook.model import Scope, model_from_values
from openingbook.pipeline.build import BuildOptions, build_book
from openingbook.pipeline.convert import convert_book
from openingbook.pipeline.derive import derive_book
from openingbook.pipeline.merge import merge_books
from openingbook.registry import books_dir
from openingbook.solver import DEFAULT_BOARD, BoardSize, enumerate_positions
from tests.helpers import assert_same_as_shipped

BOOKS = books_dir()


@pytest.fixture
def writes(monkeypatch):
    """The formats whose registry writer was called, in order (the writers still write)."""
    called: list[str] = []
    for name in ("thill", "compact"):
        entry = FORMATS[name]
        real = entry.write

        def spy(model, out, _real=real, _name=name, **options):
            assert isinstance(model, openingbook.model.BookModel)
            called.append(_name)
            return _real(model, out, **options)

        monkeypatch.setattr(entry, "write", spy)
    return called


def test_derive_writes_through_the_registry_the_shipped_bytes(tmp_path, writes):
    # books/book8-under44444.dat: derive --from book12-dist-under44444.dat --plies 8 --pruned
    out = tmp_path / "b8.dat"
    summary = derive_book(BOOKS / "book12-dist-under44444.dat", 8, out, distances=False)
    assert writes == ["thill"]
    assert out.read_bytes() == (BOOKS / "book8-under44444.dat").read_bytes()
    assert summary.records == read_manifest(out)["book"]["records"] == 28
    shipped = read_manifest(BOOKS / "book8-under44444.dat")
    assert read_manifest(out)["selection"] == shipped["selection"]
    assert read_manifest(out)["values"] == shipped["values"]
    # books/book4-dist.c4b: derive --plies 4 --format compact (here from the 8-ply book)
    direct = tmp_path / "b4.c4b"
    derive_book(BOOKS / "book8-dist.dat", 4, direct)  # compact by its name
    assert writes == ["thill", "compact"]
    assert_same_as_shipped(direct, BOOKS / "book4-dist.c4b")


def test_build_writes_through_the_registry_the_shipped_bytes(tmp_path, writes):
    # the 8-ply positions under 44444 solved; the shipped book was derived from 12 plies
    options = BuildOptions(plies=8, under="44444", board=DEFAULT_BOARD)
    summary = build_book(tmp_path / "b.dat", options, jobs=1, progress=False)
    assert writes == ["thill"]
    assert (tmp_path / "b.dat").read_bytes() == (BOOKS / "book8-under44444.dat").read_bytes()
    assert summary.records == 28 and summary.manifest == str(tmp_path / "b.dat.json")
    assert (
        read_manifest(tmp_path / "b.dat")["values"]
        == read_manifest(BOOKS / "book8-under44444.dat")["values"]
    )


def test_convert_writes_through_the_registry_the_shipped_bytes(tmp_path, writes):
    # books/book8-dist.c4b was converted from books/book8-dist.dat: back, byte for byte
    back = tmp_path / "b.dat"
    convert_book(BOOKS / "book8-dist.c4b", back)
    assert back.read_bytes() == (BOOKS / "book8-dist.dat").read_bytes()
    shipped = read_manifest(BOOKS / "book8-dist.dat")
    assert read_manifest(back)["command"] == shipped["command"]  # the build's record kept
    convert_book(BOOKS / "book8-under44444.dat", tmp_path / "b.c4b")
    assert_same_as_shipped(tmp_path / "b.c4b", BOOKS / "book8-under44444.c4b")
    assert writes == ["thill", "compact"]


def test_merge_writes_through_the_registry(tmp_path, writes):
    options = {"plies": 8, "under": "44444", "board": DEFAULT_BOARD, "chunk_size": 16}
    shards = []
    for i in (1, 2):
        shard = BuildOptions(**options, shard=(i, 2))
        build_book(tmp_path / f"s{i}.dat", shard, jobs=1, progress=False)
        shards.append(tmp_path / f"s{i}.dat")
    writes.clear()
    summary = merge_books(tmp_path / "m.dat", shards)
    assert writes == ["thill"]
    assert (tmp_path / "m.dat").read_bytes() == (BOOKS / "book8-under44444.dat").read_bytes()
    assert summary.records == 28


def test_solved_values_round_trip_through_the_model():
    """The model of Thill's codes gives the codes back (every distance byte of a ply)."""
    board = DEFAULT_BOARD
    first, mask = enumerate_positions(4, None, *board)
    n = len(first)
    scope = Scope(board=board)
    # every distance a 4-ply position can have, either winner, and draws
    d = np.arange(n) % (board.cells - 4) + 1
    values = np.where(np.arange(n) % 3 == 0, 0, np.where(np.arange(n) % 3 == 1, 100 - d, d - 100))
    model = model_from_values("distance", 4, first, mask, values, board=board, scope=scope)
    assert thill_values(model)[1].tolist() == values.astype(np.int8).tolist()
    pruned = np.arange(n) % 3
    model = model_from_values("pruned", 4, first, mask, pruned, board=board, scope=scope)
    assert thill_values(model)[1].tolist() == pruned.tolist()
    with pytest.raises(InvalidArgument, match="not a distance value at 4 plies"):
        model_from_values("distance", 4, first, mask, values + 120, board=board, scope=scope)


@pytest.mark.parametrize(
    ("output", "fmt", "board", "expect"),
    [
        ("b.c4b", None, DEFAULT_BOARD, "compact"),
        ("b.dat", None, DEFAULT_BOARD, "thill"),
        ("b", None, DEFAULT_BOARD, "thill"),
        (None, None, BoardSize(6, 5), "compact"),
        ("b.c4b", "thill", DEFAULT_BOARD, "--format thill: b.c4b is named as a compact book"),
        ("b.dat", "compact", DEFAULT_BOARD, "--format compact: b.dat is named as a thill book"),
        ("b.book", None, DEFAULT_BOARD, "named as a pons book (.book), and this command writes"),
        ("b.bin", "compact", DEFAULT_BOARD, "a compact book's name ends in .c4b"),
        ("b.dat", None, BoardSize(6, 5), "Thill"),
    ],
)
def test_the_output_format_is_the_option_else_the_name(output, fmt, board, expect):
    thill, compact = format_named("thill"), format_named("compact")
    default = thill if board == DEFAULT_BOARD else compact
    writes = (thill, compact)
    chosen = None if fmt is None else format_named(fmt)
    if expect in ("thill", "compact"):
        written = output_format(output, chosen, writes=writes, default=default, board=board)
        assert written.name == expect
        return
    with pytest.raises(InvalidArgument) as caught:
        output_format(output, chosen, writes=writes, default=default, board=board)
    assert expect in caught.value.describe("--format")


def test_writing_commands_choose_the_format_by_name_and_refuse_a_mismatch(tmp_path):
    run = CliRunner().invoke
    source = str(BOOKS / "book8-dist.dat")
    # without --format a .c4b name is a compact book (it was Thill's layout before)
    result = run(main, ["derive", "--from", source, "--plies", "4", "-o", str(tmp_path / "a.c4b")])
    assert result.exit_code == 0, result.output
    with CompactBook(tmp_path / "a.c4b") as book:
        assert book.kind == "distance" and len(book) == 568
    assert not (tmp_path / "a.c4b.json").exists()
    for args in (
        ["derive", "--from", source, "--plies", "4", "--format", "thill"],
        ["build", "--plies", "4", "--format", "thill"],
    ):
        result = run(main, [*args, "-o", str(tmp_path / "b.c4b")])
        assert result.exit_code == 2, result.output
        assert result.output.count("\n") == 1
        assert "--format thill: " in result.output and "named as a compact book" in result.output
    assert not (tmp_path / "b.c4b").exists()
    result = run(main, ["merge", source, "-o", str(tmp_path / "m.c4b")])
    assert result.exit_code == 2 and "writes thill books: name it *.dat" in result.output
    result = run(main, ["convert", source, str(tmp_path / "c.book")])
    assert result.exit_code == 2 and "named as a pons book" in result.output


def test_whole_books_are_loaded_by_the_one_loader(monkeypatch, tmp_path):
    assert not hasattr(openingbook.formats.thill, "read_book")
    calls = []
    real = openingbook.formats.registry.load_book

    def spy(path, *args, **kwargs):
        calls.append((Path(path).name, kwargs.get("complete", True)))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(openingbook.formats.registry, "load_book", spy)
    thill = BOOKS / "book8-under44444.dat"
    derive_book(thill, 6, tmp_path / "b6.c4b", under="44444")  # reads a whole book
    fmt, records = read_records(thill)
    assert calls == [(thill.name, False), (thill.name, False)]
    # as stored: the file's records in file order, the model's positions theirs
    model = real(thill, complete=False)
    assert model.stored is not None and len(model) == len(records) == 28 and model.pruned
    assert model.stored[0] == fmt and np.array_equal(model.stored[1].keys, records.keys)
    # complete: the first-player wins the pruned file leaves out recovered
    assert len(real(thill)) == 111 == len(load_book(BOOKS / "book8-under44444.c4b"))


def test_a_whole_book_larger_than_the_memory_is_refused_before_reading(monkeypatch):
    import openingbook.memory
    from openingbook.errors import NotEnoughMemory

    monkeypatch.setattr(openingbook.memory, "available_memory", lambda: 1000)
    with pytest.raises(NotEnoughMemory, match=r"book8-under44444\.dat: reading its 28 records"):
        load_book(BOOKS / "book8-under44444.dat", complete=False)
