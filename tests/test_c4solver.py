"""``openingbook c4solver``: Pascal Pons' c4solver protocol, byte for byte.

The expected bytes come from outside the command: the recorded output of Pons' own
binary (``tests/data/pons-c4solver``, its provenance in ``tests/data/README.md``), the
reference scores of an independent solver (``tests/data/solver-scores.txt``), and
scores worked out here by hand.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from openingbook.ponsprotocol import moves_played
from tests.helpers import CLI, DATA

RECORDED = DATA / "pons-c4solver"
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}


def c4solver(stdin: bytes, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, "c4solver", *flags], input=stdin, capture_output=True, env=ENV, timeout=600
    )


def test_answers_lines_with_scores_and_refuses_invalid_ones() -> None:
    done = c4solver(b"4453\n\n4444444\n12x\n")
    assert done.returncode == 0
    # "": the first player wins with the last stone of the board (score 1)
    assert done.stdout == b"4453 -2\n 1\n"
    assert done.stderr == b'Line 3: Invalid move 7 "4444444"\nLine 4: Invalid move 3 "12x"\n'


def test_analysis_gives_seven_scores_and_minus_1000_for_a_full_column() -> None:
    done = c4solver(b"\n444444\n", "-a")
    assert (
        done.stdout
        == b" -2 -1 0 1 0 -1 -2\n444444 "
        + b" ".join(s.encode() for s in _analysis_444444())
        + b"\n"
    )


def _analysis_444444() -> list[str]:
    from openingbook.oracle import Oracle

    scores = Oracle().analyze(["444444"]).scores[0].tolist()
    return ["-1000" if s == 100 else str(s) for s in scores]


def test_a_move_that_completes_four_is_invalid_the_last_one_too() -> None:
    done = c4solver(b"1212121\n121212\n")
    assert done.stderr == b'Line 1: Invalid move 7 "1212121"\n'
    # 121212: the first player wins at once in column 1, with its 4th stone: 22 - 4
    assert done.stdout == b"121212 18\n"


def test_odd_lines_as_pons_reads_them() -> None:
    """A carriage return, a space, a digit outside 1-7 and a 43rd move are invalid
    characters or moves; the line is written back byte for byte; a last line without
    its newline is still a line."""
    done = c4solver(b"44\r\n 4\n48\n40\n" + b"4" * 43 + b"\n4\xe9\n44")
    assert done.stderr == (
        b'Line 1: Invalid move 3 "44\r"\nLine 2: Invalid move 1 " 4"\n'
        b'Line 3: Invalid move 2 "48"\nLine 4: Invalid move 2 "40"\n'
        b'Line 5: Invalid move 7 "' + b"4" * 43 + b'"\nLine 6: Invalid move 2 "4\xe9"\n'
    )
    assert done.stdout == b"44 1\n"


def test_a_full_board_is_a_draw_without_moves() -> None:
    full = _full_board()
    done = c4solver(full.encode() + b"\n", "-a")
    assert done.stdout == (full + " -1000" * 7 + "\n").encode()
    assert c4solver(full.encode() + b"\n").stdout == (full + " 0\n").encode()


def _full_board() -> str:
    """A 42-move game nobody wins (a random one, in the recorded input of Pons' binary)."""
    moves = "333513666334176711215755557274176426444222"
    assert moves_played(moves) == 42, moves_played(moves)
    return moves


def test_moves_played_stops_where_pons_does() -> None:
    assert moves_played("") == 0
    assert moves_played("4" * 7) == 6
    assert moves_played("1212121") == 6
    assert moves_played("9") == 0
    assert moves_played(_full_board() + "1") == 42


def test_scores_are_the_reference_solver_scores(reference_dir: Path) -> None:
    """An independent solver's exact scores, here as Pons' protocol writes them."""
    rows = [
        line.split()
        for line in (reference_dir / "solver-scores.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    shallow = [(m, s) for m, s in rows if len(m) <= 14 or len(m) >= 30][:40]
    assert len(shallow) >= 20
    done = c4solver("".join(m + "\n" for m, _ in shallow).encode())
    assert done.stdout.decode() == "".join(f"{m} {s}\n" for m, s in shallow)


def test_weak_answers_signs_but_a_win_or_loss_at_once_in_full() -> None:
    done = c4solver(b"4453\n121212\n\n", "-w")
    assert done.stdout == b"4453 -1\n121212 18\n 1\n"
    # 121212: column 1 wins at once (22 - 4 = 18); columns 3-7 let the second player
    # win at once in column 2 with its 4th stone (-18); column 2 blocks: its sign
    from openingbook.oracle import Oracle

    block = int(Oracle().analyze(["121212"]).scores[0, 1])
    sign = (block > 0) - (block < 0)
    done = c4solver(b"121212\n", "-a", "-w")
    assert done.stdout == f"121212 18 {sign} -18 -18 -18 -18 -18\n".encode()


@pytest.mark.parametrize("mode", ["", "-a", "-w", "-a -w"])
def test_the_bytes_of_pons_binary(mode: str) -> None:
    """Pons' binary's recorded answers: the same bytes without -w; with -w the same
    but where his weak search reported a win by a bound (beyond 1, same sign)."""
    suffix = mode.replace("-", "").replace(" ", "")
    name = f"-{suffix}" if suffix else ""
    expected_out = (RECORDED / f"stdout{name}.txt").read_bytes()
    expected_err = (RECORDED / f"stderr{name}.txt").read_bytes()
    done = c4solver((RECORDED / "input.txt").read_bytes(), *mode.split())
    assert done.returncode == 0
    assert done.stderr == expected_err
    if "-w" not in mode:
        assert done.stdout == expected_out
        return
    ours, theirs = done.stdout.splitlines(), expected_out.splitlines()
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        for x, y in zip(a.split(b" "), b.split(b" "), strict=True):
            assert x == y or (abs(int(x)) == 1 and int(x) * int(y) > 1), (a, b)


def test_a_line_is_answered_before_the_next_one_comes() -> None:
    proc = subprocess.Popen(
        [*CLI, "c4solver"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV
    )
    try:
        for moves, answer in ((b"4453", b"4453 -2\n"), (b"44", b"44 1\n")):
            proc.stdin.write(moves + b"\n")
            proc.stdin.flush()
            start = time.monotonic()
            assert proc.stdout.readline() == answer
            assert time.monotonic() - start < 120
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0


def test_book_option(tmp_path: Path) -> None:
    book = Path(__file__).resolve().parents[1] / "books" / "book8-dist.c4b"
    done = c4solver(b"4453\n", "-b", str(book))
    assert (done.returncode, done.stdout) == (0, b"4453 -2\n")
    done = c4solver(b"4453\n", "-b", "none")
    assert (done.returncode, done.stdout) == (0, b"4453 -2\n")
    done = c4solver(b"4453\n", "-b", str(tmp_path / "missing.book"))
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode().startswith("Error: ")
    assert "missing.book" in done.stderr.decode()
    assert done.stderr.count(b"\n") == 1


def test_a_pons_book_answers_through_lookups(tmp_path: Path) -> None:
    """A Pons .book made by this project's exporter is read as -b takes it."""
    from openingbook.formats import open_book

    book = Path(__file__).resolve().parents[1] / "books" / "book8-dist.c4b"
    target = tmp_path / "8.book"
    done = subprocess.run(
        [*CLI, "export", str(book), "-f", "pons", "-o", str(target)],
        capture_output=True,
        env=ENV,
    )
    if done.returncode != 0:
        pytest.skip(f"no Pons export here: {done.stderr.decode()[:200]}")
    open_book(target).close()
    lines = b"12345671\n4453\n"
    expected = c4solver(lines, "-a").stdout
    assert c4solver(lines, "-a", "-b", str(target)).stdout == expected
