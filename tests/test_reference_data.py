"""The reference data in ``tests/data`` are the files its README describes, byte for byte.

The README's table is the one record of each file's size and sha256; this test reads
it, so a changed, truncated or unlisted file fails here rather than as a puzzling
disagreement in the tests that compare with it.
"""

from __future__ import annotations

import hashlib
import re

from tests.helpers import DATA

_ROW = re.compile(r"^\| `([^`]+)` \| ([\d,]+) \| `([0-9a-f]{64})` \|$", re.MULTILINE)


def _listed() -> dict[str, tuple[int, str]]:
    rows = _ROW.findall((DATA / "README.md").read_text())
    return {name: (int(size.replace(",", "")), digest) for name, size, digest in rows}


def test_every_data_file_is_listed_with_its_size_and_sha256() -> None:
    listed = _listed()
    present = {p.name for p in DATA.iterdir() if p.is_file() and p.name != "README.md"}
    assert present == set(listed) and len(listed) == 3
    for name, (size, digest) in listed.items():
        data = (DATA / name).read_bytes()
        assert len(data) == size, name
        assert hashlib.sha256(data).hexdigest() == digest, name


def test_the_reference_files_hold_what_the_readme_says() -> None:
    # Thill's book: 34,286 three-byte records; the solver scores: 180 positions, 10-38 stones
    assert len((DATA / "thill-original-book8.dat").read_bytes()) == 34_286 * 3
    lines = [line.split() for line in (DATA / "solver-scores.txt").read_text().splitlines()]
    assert len(lines) == 180
    assert min(len(m) for m, _ in lines) == 10 and max(len(m) for m, _ in lines) == 38


def test_no_test_reads_reference_data_from_outside_the_repository():
    """A clone with nothing beside it runs the suite: no test looks beside the checkout."""
    outside = re.compile(r"""parents\[1\]\.parent|["']\.\./shared|["']shared["']""")
    found = [
        f"{path.name}:{number}"
        for path in sorted(DATA.parent.glob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if outside.search(line) and path.name != "test_reference_data.py"
    ]
    assert found == []
