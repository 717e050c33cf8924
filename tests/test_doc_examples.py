"""The examples in README.md and docs/*.md run as written and print what they show.

Which fenced blocks run, by their language tag:

* ``console``: shell commands after ``$ `` with their output on the lines below,
  run one after the other in one shell (a ``cd`` carries over), in a fresh
  directory, with ``openingbook`` this checkout's command line. Output that is
  shown is compared (``...`` stands for any text, as in doctest); a command shown
  without output must succeed; one whose shown output starts with ``Error:`` must
  fail with that message.
* ``pycon``: an interactive Python session, run by doctest (``...`` as above),
  the blocks of one file in order, sharing their names, in a fresh directory.
* ``python``: a script, run in a fresh directory; it must not raise.

Blocks tagged ``bash``, ``sh`` or ``text`` are shown only (long builds, clusters,
other programs). Nothing an example writes may land in the repository.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
RUNNABLE = ("console", "pycon", "python")
_CHECKER = doctest.OutputChecker()
_ENTRY = "import sys; sys.argv[0] = 'openingbook'; from openingbook.cli import main; main()"


@dataclass
class Block:
    path: Path
    line: int
    language: str
    text: str

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(language: str | None = None) -> list[Block]:
    found = []
    for path in DOCS:
        text = path.read_text()
        for match in _FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(Block(path, line, match.group(1), match.group(2)))
    return [b for b in found if language is None or b.language == language]


def _commands(text: str) -> list[tuple[str, str]]:
    """(command, the output shown below it) for every ``$ `` line of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
        elif line.strip():
            raise AssertionError(f"output before the first command: {line!r}")
    return [(command, "\n".join(out).strip("\n")) for command, out in steps]


def _matches(want: str, got: str) -> bool:
    return _CHECKER.check_output(want + "\n", got.rstrip("\n") + "\n", doctest.ELLIPSIS)


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A fresh working directory; checks that nothing was written to the repository."""
    before = sorted(p.name for p in ROOT.iterdir())
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    yield work
    assert sorted(p.name for p in ROOT.iterdir()) == before


def test_the_docs_have_runnable_examples():
    languages = {b.language for b in blocks()}
    assert {"console", "pycon"} <= languages
    readme = [b for b in blocks() if b.path.name == "README.md"]
    assert {b.language for b in readme} >= {"console", "pycon"}


@pytest.mark.slow
@pytest.mark.parametrize("block", blocks("console"), ids=lambda b: b.name)
def test_console_example(block: Block, sandbox: Path, tmp_path: Path) -> None:
    steps = _commands(block.text)
    assert steps, "a console block without commands"
    script = [
        f'openingbook() {{ "{sys.executable}" -c "{_ENTRY}" "$@"; }}',
        "export -f openingbook",
    ]
    for i, (command, _) in enumerate(steps):
        out, err, status = (tmp_path / f"{i}.{kind}" for kind in ("out", "err", "status"))
        script.append(f"{{ {command}\n}} > '{out}' 2> '{err}'; echo $? > '{status}'")
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path))
    subprocess.run(["bash", "-c", "\n".join(script)], cwd=sandbox, env=env, check=True, timeout=900)
    for i, (command, want) in enumerate(steps):
        out, err = ((tmp_path / f"{i}.{kind}").read_text() for kind in ("out", "err"))
        status = int((tmp_path / f"{i}.status").read_text())
        where = f"{block.name}: $ {command}"
        if want.startswith("Error:"):
            assert status != 0 and _matches(want, err), f"{where}\n{err}"
        else:
            assert status == 0, f"{where}: exit status {status}\n{err}"
            if want:
                assert _matches(want, out), f"{where}\nshown:\n{want}\nprinted:\n{out}"


@pytest.mark.parametrize("path", sorted({b.path for b in blocks("pycon")}), ids=lambda p: p.name)
def test_python_sessions(path: Path, sandbox: Path) -> None:
    parser, globs = doctest.DocTestParser(), {}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for block in (b for b in blocks("pycon") if b.path == path):
        test = parser.get_doctest(block.text, globs, block.name, str(path), block.line)
        runner.run(test, clear_globs=False)
        globs = test.globs  # the next block sees this one's names (DocTest copies them)
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("block", blocks("python"), ids=lambda b: b.name)
def test_python_scripts(block: Block, sandbox: Path) -> None:
    exec(compile(block.text, block.name, "exec"), {"__name__": "__main__"})


#: commands whose first argument is a book (a file, or a shipped book's name)
_BOOK_COMMANDS = ("lookup", "info", "check", "stats", "export", "convert")


def test_help_examples_name_books_that_ship():
    """An example in ``--help`` that names a shipped book names one that exists."""
    from click.testing import CliRunner

    from openingbook.cli import main
    from openingbook.registry import resolve_book

    named = []
    for command in _BOOK_COMMANDS:
        text = CliRunner().invoke(main, [command, "--help"]).output
        for words in (line.split() for line in text.splitlines()):
            if words[:2] == ["openingbook", command] and len(words) > 2:
                book = words[2]
                if not book.startswith("-") and not {".", "/"} & set(book):
                    named.append(book)
                    assert resolve_book(book).is_file(), f"{command} --help: {book}"
    assert "14-dist-6x5" in named  # the examples were found


def test_the_readme_table_of_shipped_books_is_true():
    """Every row of README.md's table that names one book gives its positions and bytes."""
    from openingbook.registry import shipped_books

    shipped = {b.name: b for b in shipped_books()}
    text = (ROOT / "README.md").read_text()
    row = r"^\| `([^`]+)` \| (\w+) \|[^|]*\|[^|]*\| ([\d,]+) \| ([\d,]+) \|$"
    rows = re.findall(row, text, re.M)
    assert len(rows) >= 6
    for name, board, positions, size in rows:
        book = shipped[name]
        assert (book.board, book.positions, book.bytes) == (
            board,
            int(positions.replace(",", "")),
            int(size.replace(",", "")),
        ), name
    listed = " ".join(re.findall(r"^\| (.*?) \|", text, re.M))
    assert all(f"`{name}`" in listed or name.endswith("-dist") for name in shipped)
