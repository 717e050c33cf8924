"""How little room the compressed function's peeling needs: the codeword bits of a book
(the compact format's version 3 codes, threats-and-centre context) peeled in layouts of
given segment lengths and cells per codeword bit, a few seeds each (benchmarks/DECISIONS.md,
"The compact format's version 3").

    python benchmarks/bench_peel_room.py 12 --lengths 32768,8192 --factors 1.125,1.11,1.10 --seeds 3
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openingbook.formats import load_book  # noqa: E402
from openingbook.formats.compact.compressed import _code_table, _codewords, _peel, code_lengths  # noqa: E402
from openingbook.formats.compact.contexts import CONTEXT_THREATS_CENTRE, position_contexts  # noqa: E402
from openingbook.formats.compact.retrieval import FIRST_SEED  # noqa: E402
from openingbook.solver import canonical_keys  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("book")
    parser.add_argument("--lengths", default="32768,8192")
    parser.add_argument("--factors", default="1.125,1.11,1.10")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    model = load_book(args.book)
    width, height = model.board
    keys = canonical_keys(model.first, model.mask, width, height)
    stored = (model.winner if model.kind == "wdl" else model.score).astype(np.int64)
    _, values = np.unique(stored, return_inverse=True)
    contexts = position_contexts(model.first, model.mask, width, height, CONTEXT_THREATS_CENTRE)
    _, contexts = np.unique(contexts, return_inverse=True)
    nvalues, ncontexts = int(values.max()) + 1, int(contexts.max()) + 1
    counts = np.bincount(contexts * nvalues + values, minlength=ncontexts * nvalues)
    lengths = np.stack([code_lengths(row) for row in counts.reshape(ncontexts, nvalues)])
    word, size = _codewords(
        values.astype(np.uint8), contexts.astype(np.int32), *_code_table(lengths)
    )
    total = int(size.sum())
    print(f"{args.book}: {total:,} codeword bits, {total / keys.size:.4f} per position")
    for length in (int(x) for x in args.lengths.split(",")):
        for factor in (float(x) for x in args.factors.split(",")):
            segments = max(1, -(-int(total * factor) // length) - 2)
            start = time.process_time()
            peeled = sum(
                bool(_peel(keys, FIRST_SEED + s, length, segments, word, size).size)
                for s in range(args.seeds)
            )
            print(
                f"L {length:>6}  cells per codeword bit {factor}  peeled {peeled} of "
                f"{args.seeds}  table bits per position {(segments + 2) * length / keys.size:.4f}"
                f"  {time.process_time() - start:.1f} s CPU",
                flush=True,
            )


if __name__ == "__main__":
    main()
