"""Book identity: a book is checked against its manifest and its layout on open, never
answers outside what it can prove, and is written together with its manifest.

The books are small: derived from Thill's 8-ply file (6 plies under a line) or
written record by record, so that every test runs in well under a second.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import openingbook
import openingbook.memory
from openingbook.cli import main
from openingbook.errors import BookFileError, PositionNotInBook
from openingbook.formats import read_records
from openingbook.formats.thill import (
    BOOK8,
    Book,
    BookFormat,
    describe_book,
    identify,
    manifest_path,
)
from openingbook.formats.thill.book import check_output, load_manifest, write_book_and_manifest
from openingbook.model import Scope
from openingbook.pipeline.derive import derive_book
from openingbook.pipeline.export import export_book
from openingbook.solver import (
    DEFAULT_BOARD,
    DEFAULT_HEIGHT,
    DEFAULT_WIDTH,
    Position,
    enumerate_positions,
)
from openingbook.values import UNKNOWN
from tests.helpers import REFERENCE

BOOK8_FILE = REFERENCE / "thill-original-book8.dat"
#: Inside the line 4444 (stored / not stored), outside it, and a side-to-move win at once.
INSIDE_STORED = None  # found by the fixture
OUTSIDE = "111111"
WIN_NOW = "121212"


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def one_line_error(result, *fragments: str) -> str:
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1, result.output
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def under_book(tmp_path_factory) -> Path:
    """The pruned 6-ply book of the positions under 4444, with its manifest."""
    out = tmp_path_factory.mktemp("under") / "b6.dat"
    derive_book(BOOK8_FILE, 6, out, under="4444", distances=False)
    return out


def positions_of(book: Path) -> tuple[list[str], list[str]]:
    """Move strings of the 6-ply positions under 4444 that ``book`` stores / leaves out."""
    first, mask = enumerate_positions(6, under="4444", width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    stored, absent = [], []
    with Book(book) as b:
        for f, m in zip(first.tolist(), mask.tolist(), strict=True):
            p = Position.from_bitboards(f, m)
            (stored if b.find(p) is not None else absent).append(p.some_moves())
    return stored, absent


def copy(src: Path, dst_dir: Path, name: str = "b6.dat", manifest_as: str | None = None) -> Path:
    dst_dir.mkdir(exist_ok=True)
    dst = dst_dir / name
    shutil.copyfile(src, dst)
    if manifest_as is not None:
        shutil.copyfile(manifest_path(src), dst_dir / manifest_as)
    return dst


# ------------------------------------------------------------------ the path rule
def test_manifest_path_rule_and_unrelated_json(tmp_path):
    assert manifest_path("a/book12.dat") == Path("a/book12.dat.json")
    book = tmp_path / "data.dat"
    shutil.copyfile(BOOK8_FILE, book)
    (tmp_path / "data.json").write_text('{"unrelated": true}')  # not data.dat.json
    with Book(book) as b:
        assert b.format == BOOK8 and b.identity.manifest is None
        assert b.get(Position.from_moves("67464334")).winner.value == "second"
    assert run("info", book).exit_code == 0


# ------------------------------------------------------------------ verified on open
def test_book_cut_at_a_record_boundary_is_refused(under_book, tmp_path):
    book = copy(under_book, tmp_path, manifest_as="b6.dat.json")
    data = book.read_bytes()
    book.write_bytes(data[:-3])  # one record less, still whole records
    n = len(data) // 3
    message = f"b6.dat: {n - 1} records, its manifest b6.dat.json says {n}"
    with pytest.raises(BookFileError, match=message):
        Book(book)
    with pytest.raises(BookFileError, match=message):
        openingbook.open_book(book)
    for args in (["lookup", book, "444411"], ["info", book], ["check", book]):
        one_line_error(run(*args), message)


def test_one_flipped_value_bit_is_refused_by_every_full_read(under_book, tmp_path):
    book = copy(under_book, tmp_path, manifest_as="b6.dat.json")
    data = bytearray(book.read_bytes())
    data[2] ^= 1  # record 0: a draw becomes "second player wins" or the other way round
    book.write_bytes(bytes(data))
    sha = "contents differ from its manifest b6.dat.json (sha256)"
    with pytest.raises(BookFileError, match=sha.replace("(", r"\(").replace(")", r"\)")):
        Book(book, verify=True)
    with pytest.raises(BookFileError, match="sha256"):
        read_records(book)
    with pytest.raises(BookFileError, match="sha256"):
        Book(book).lookup_many(np.zeros(0, np.uint64), np.zeros(0, np.uint64))
    info = describe_book(book)
    assert info["ok"] is False and "sha256" in info["checks"]["sha256"]
    result = run("info", book)
    assert result.exit_code == 1 and f"sha256 check: {sha}" in result.output
    one_line_error(run("lookup", book, "444411", "--verify"), sha)
    one_line_error(run("check", book), "sha256")
    one_line_error(run("export", book, "-f", "jsonl", "-o", tmp_path / "x.jsonl"), "sha256")


def test_manifest_lying_about_the_format_is_refused(tmp_path):
    book = tmp_path / "b.dat"
    shutil.copyfile(BOOK8_FILE, book)
    manifest = {
        **json.loads(
            json.dumps(_manifest_for(book, BookFormat.for_plies(7, False, *DEFAULT_BOARD)))
        ),
    }
    manifest_path(book).write_text(json.dumps(manifest))  # 3-byte records, but 7 plies
    with pytest.raises(BookFileError, match=r"record 0 .*format 7-ply from the manifest"):
        Book(book)
    one_line_error(run("lookup", book, "67464334"), "format 7-ply from the manifest")
    one_line_error(run("info", book), "format 7-ply from the manifest")


def test_a_format_argument_that_does_not_fit_is_refused(tmp_path):
    with pytest.raises(BookFileError, match=r"format 7-ply from the argument"):
        Book(BOOK8_FILE, BookFormat.for_plies(7, False, *DEFAULT_BOARD))
    with pytest.raises(BookFileError, match=r"format 4-ply from the argument"):
        openingbook.open_book(BOOK8_FILE, layout="4")
    one_line_error(
        run("lookup", BOOK8_FILE, "6746433", "--format", "7"), "format 7-ply from the argument"
    )
    one_line_error(run("info", BOOK8_FILE, "--format", "6"), "format 6-ply from the argument")


def _damage(book: Path, how: str) -> None:
    """Change the book file ``book`` (its manifest, if any, kept) as ``how`` says."""
    data = bytearray(book.read_bytes())
    if how == "one record less":
        data = data[:-3]
    elif how == "a byte more":
        data += b"\0"
    elif how == "an illegal first record":
        data[0:3] = b"\xff\xff\xfc"  # a column of more than six stones
    elif how == "junk":
        data = bytearray(b"not a book at all\n")
    book.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("name", "manifest", "how", "accepted"),
    [
        ("b6.dat", True, None, True),
        ("b6.dat", True, "one record less", False),
        ("b6.dat", True, "a byte more", False),
        ("b6.dat", True, "an illegal first record", False),
        ("b6.dat", True, "a complete book, says its manifest", False),
        ("b6.dat", False, None, True),  # the content fits one layout
        ("book.dat", False, "book.dat", True),  # Thill's name and his file
        ("book.dat", False, "an illegal first record", False),
        ("x.dat", False, "junk", False),
    ],
)
def test_detection_and_the_reader_accept_the_same_files(
    under_book, tmp_path, name, manifest, how, accepted
):
    """A file that detection takes for Thill's layout is one the reader opens, and the
    other way round: both are :func:`identify`'s verdict."""
    from openingbook.formats import FORMATS, detect

    if how == "book.dat" or name == "book.dat":
        book = copy(BOOK8_FILE, tmp_path, name)
    else:
        book = copy(under_book, tmp_path, name, manifest_as=f"{name}.json" if manifest else None)
    if how == "a complete book, says its manifest":
        data = json.loads(manifest_path(book).read_text())
        data["selection"]["under"] = None
        manifest_path(book).write_text(json.dumps(data))
    elif how not in (None, "book.dat"):
        _damage(book, how)
    head = book.read_bytes()[:64]
    sniffed = FORMATS["thill"].sniff(book, head, book.stat().st_size)
    try:
        Book(book).close()
        opened = True
    except BookFileError:
        opened = False
    assert sniffed == opened == accepted
    if accepted:
        assert detect(book).name == "thill"
    else:
        with pytest.raises(BookFileError, match="not a book in a known format"):
            detect(book)


def _manifest_for(book: Path, fmt: BookFormat) -> dict:
    from openingbook.formats.thill.book import manifest_book_entry

    data = book.read_bytes()
    return {
        **manifest_book_entry(book, fmt, len(data) // fmt.record_bytes, data),
        "selection": {"plies": fmt.plies, "distances": fmt.distances, "under": None},
    }


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda t: t.replace('"records": 34286', '"records": 1e400'), "not a finite number"),
        (lambda t: t.replace('"records": 34286', '"records": NaN'), "NaN is not a number"),
        (lambda t: t.replace('"records": 34286', '"records": "34286"'), "'records' is '34286'"),
        (lambda t: t.replace('"records": 34286', '"records": 34286.0'), "expected an integer"),
        (lambda t: t.replace('"plies": 8', '"plies": true'), "'plies' is True"),
        (lambda t: t.replace('"under": null', '"under": 44'), "'under' is 44"),
        (lambda t: t.replace('"under": null', '"under": "123412341"'), "longer than"),
        (lambda t: t[:-5], "not a valid JSON manifest"),
        (lambda t: "[1, 2]", "not a JSON object"),
    ],
)
def test_bad_manifest_numbers_and_types_are_one_line_errors(tmp_path, edit, fragment):
    book = tmp_path / "b.dat"
    shutil.copyfile(BOOK8_FILE, book)
    text = json.dumps(_manifest_for(book, BOOK8))
    edited = edit(text)
    assert edited != text
    manifest_path(book).write_text(edited)
    with pytest.raises(BookFileError, match=r"b\.dat\.json: "):
        load_manifest(book)
    for args in (
        ["lookup", book, "67464334"],
        ["info", book],
        ["lookup", book, "67464334", "--json"],
    ):
        result = run(*args)
        assert result.exit_code == 1, result.output
        assert len(result.output.strip().splitlines()) == 1 and fragment in result.output


# ------------------------------------------------------------------ scope
def test_scope_contains_is_exact():
    scope = Scope("4444", board=DEFAULT_BOARD)
    first, mask = enumerate_positions(6, under="4444", width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT)
    assert scope.contains_many(first, mask, 6).all()
    everything = enumerate_positions(6, None, *DEFAULT_BOARD)
    inside = scope.contains_many(*everything, 6)
    for f, m, want in zip(everything[0][:400], everything[1][:400], inside[:400], strict=True):
        assert scope.contains(Position.from_bitboards(int(f), int(m))) == bool(want)
    assert not Scope("4444", board=DEFAULT_BOARD).contains(Position.from_moves(OUTSIDE))


def test_under_book_with_manifest_refuses_outside_its_scope(under_book):
    stored, absent = positions_of(under_book)
    assert stored and absent
    with openingbook.open_book(under_book) as book:
        assert book.scope == Scope("4444", board=DEFAULT_BOARD)
        assert book.get(Position.from_moves(absent[0])).winner.value == "first"
        with pytest.raises(PositionNotInBook, match=r"outside .*b6\.dat, which holds only"):
            book.get(Position.from_moves(OUTSIDE))
        # outside the scope: not in the book, even where the side to move wins at once
        assert not book.scope.contains(Position.from_moves(WIN_NOW))
        assert Position.from_moves(WIN_NOW) not in book
        p = [Position.from_moves(m) for m in (absent[0], OUTSIDE)]
        first = np.array([x.first_stones for x in p], np.uint64)
        mask = np.array([x.mask for x in p], np.uint64)
        with pytest.raises(PositionNotInBook, match="position 1 is outside"):
            book.lookup_many(first, mask)
        assert book.lookup_many(first, mask, strict=False).winner.tolist() == [1, UNKNOWN]
    one_line_error(run("lookup", under_book, OUTSIDE), "outside", "under 4444")


@pytest.mark.parametrize("manifest_as", [None, "b6.json"])
def test_under_book_without_its_manifest_answers_only_what_it_stores(
    under_book, tmp_path, manifest_as
):
    book = copy(under_book, tmp_path / "copy", manifest_as=manifest_as)
    stored, absent = positions_of(under_book)
    with openingbook.open_book(book) as b:
        assert not b.scope.known
        assert b.get(Position.from_moves(stored[0])) is not None  # stored: answered
        assert b.get(Position.from_moves(WIN_NOW)).winner.value == "first"  # the rules say
        for moves in (OUTSIDE, absent[0]):
            with pytest.raises(
                PositionNotInBook, match=r"scope is unknown: b6\.dat has no manifest"
            ):
                b.get(Position.from_moves(moves))
        p = Position.from_moves(OUTSIDE)
        arrays = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
        with pytest.raises(PositionNotInBook, match="scope is unknown"):
            b.lookup_many(*arrays)
        assert b.lookup_many(*arrays, strict=False).winner.tolist() == [UNKNOWN]
    one_line_error(run("lookup", book, OUTSIDE), "scope is unknown")
    assert run("lookup", book, stored[0]).exit_code == 0
    with pytest.raises(ValueError, match="scope unknown"):
        export_book(book, "jsonl", tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()
    one_line_error(run("export", book, "-f", "csv", "-o", tmp_path / "o.csv"), "scope unknown")


def test_thill_file_without_manifest_is_complete():
    with openingbook.open_book(BOOK8_FILE) as b:
        assert b.scope.complete
        assert b.get(Position.from_moves("44444455")).winner.value == "first"  # not stored
    assert (
        "second player wins; 8 stones, record 3000" in run("lookup", BOOK8_FILE, "67464334").output
    )


# ------------------------------------------------------------------ written as a unit
def test_failed_manifest_write_leaves_the_previous_state(under_book, tmp_path, monkeypatch):
    out = tmp_path / "b6.dat"
    real_fdopen = os.fdopen

    def failing_fdopen(fd, *args, **kwargs):
        fh = real_fdopen(fd, *args, **kwargs)
        name = os.readlink(f"/proc/self/fd/{fd}")
        if ".b6.dat.json." in name:  # the manifest's temporary file: "disk full"
            fh.close()
            raise OSError(28, "No space left on device")
        return fh

    monkeypatch.setattr(os, "fdopen", failing_fdopen)
    with pytest.raises(OSError, match="No space left"):
        derive_book(BOOK8_FILE, 6, out, under="4444")
    assert sorted(os.listdir(tmp_path)) == []  # no book without its manifest, no temporaries
    monkeypatch.setattr(os, "fdopen", real_fdopen)
    derive_book(BOOK8_FILE, 6, out, under="4444")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    monkeypatch.setattr(os, "fdopen", failing_fdopen)
    with pytest.raises(OSError, match="No space left"):
        derive_book(BOOK8_FILE, 6, out, under="44444", force=True)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # the previous pair


def test_crash_between_the_renames_is_refused_then_recovered(tmp_path, monkeypatch):
    out = tmp_path / "b6.dat"
    derive_book(BOOK8_FILE, 6, out, under="4444")
    real_replace = os.replace
    calls = []

    def crash_on_book(src, dst):
        calls.append(Path(dst).name)
        if Path(dst) == out:  # the book's rename: the machine stops here
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_on_book)
    with pytest.raises(KeyboardInterrupt):
        derive_book(BOOK8_FILE, 6, out, under="44444", force=True)
    monkeypatch.setattr(os, "replace", real_replace)
    assert calls == ["b6.dat.json", "b6.dat"]  # the manifest first, the book last
    assert not out.exists() and manifest_path(out).exists()
    assert sorted(os.listdir(tmp_path)) == ["b6.dat.json"]  # temporaries removed
    with pytest.raises(BookFileError, match=r"no such book, but its manifest b6\.dat\.json"):
        identify(out)
    one_line_error(run("lookup", out, "444411"), "interrupted write")
    # the rerun replaces its own orphaned manifest without --force
    assert check_output(out, force=False) == out
    derive_book(BOOK8_FILE, 6, out, under="44444")
    with Book(out, verify=True) as b:
        assert b.scope == Scope("44444", board=DEFAULT_BOARD)
    # a manifest that is not ours still needs --force
    out2 = tmp_path / "c.dat"
    manifest_path(out2).write_text("{}")
    with pytest.raises(ValueError, match="exists; pass force=True"):
        check_output(out2, force=False)


def test_write_book_and_manifest_agree(tmp_path):
    data = BOOK8_FILE.read_bytes()[: 3 * 100]
    out = tmp_path / "w.dat"
    selection = {"selection": {"under": None, "sample": 100}}
    manifest = write_book_and_manifest(out, BOOK8, data, 100, selection)
    assert out.read_bytes() == data
    assert json.loads(manifest_path(out).read_text()) == manifest
    assert load_manifest(out).records == 100
    assert identify(out).scope.partial == "a sample of 100 positions"


@pytest.mark.parametrize("chunk", [1, 16, 17, 1 << 20])
def test_info_streams_and_numbers_records_across_pieces(tmp_path, chunk):
    data = bytearray(BOOK8_FILE.read_bytes()[: 3 * 40])
    data[3 * 16 : 3 * 18] = data[3 * 17 : 3 * 18] + data[3 * 16 : 3 * 17]  # swap 16 and 17
    book = tmp_path / "bad.dat"  # (bad values are refused on open: every record is sampled)
    book.write_bytes(bytes(data))
    info = describe_book(book, BOOK8, chunk_records=chunk)
    assert info["checks"]["order"] == "records not sorted (record 17 < record 16)"
    assert info["checks"]["values"] == info["checks"]["positions"] == "ok"
    assert info["records"] == 40 and info["ok"] is False
    whole = describe_book(BOOK8_FILE, chunk_records=chunk if chunk > 1 else 5000)
    assert whole["values"] == describe_book(BOOK8_FILE)["values"]


def test_a_whole_file_read_larger_than_memory_is_refused_first(monkeypatch):
    monkeypatch.setattr(openingbook.memory, "available_memory", lambda: 1 << 20)  # 1 MiB
    with pytest.raises(
        ValueError, match=r"34,286 records needs about 2\.1 MiB of memory, only 1\.0 MiB"
    ):
        read_records(BOOK8_FILE)
    assert describe_book(BOOK8_FILE)["ok"]  # info streams: no whole-file allocation
