#!/bin/sh
# Check and commit the parts of the 14-ply distance book that build14.sh has finished.
#
# Usage: benchmarks/land14.sh   (run from the checkout to commit into)
#
# For every part in $WORK/out that is not in books/book14-dist/ yet:
# benchmarks/check14.py (file checks, a re-solved sample of $SAMPLE positions, mirror
# answers, the part's per-ply counts) writes benchmarks/results/book14/<part>.json;
# a part that passes is copied into books/book14-dist/ and committed with its result.
# A part that fails is left where it is and reported (exit status 1).
set -eu
REPO=$(git rev-parse --show-toplevel)
WORK=${WORK:-$(cd "$(dirname "$0")/../.." && pwd)/build14-work}
SAMPLE=${SAMPLE:-200}
PYTHON=${PYTHON:-python3}
BOOKS=$REPO/books/book14-dist
RESULTS=$REPO/benchmarks/results/book14
mkdir -p "$BOOKS" "$RESULTS"
status=0
for part in "$WORK"/out/book14-dist-part*.c4b; do
    [ -e "$part" ] || continue
    name=$(basename "$part")
    [ -e "$BOOKS/$name" ] && continue
    if PYTHONPATH="$REPO" "$PYTHON" "$REPO/benchmarks/check14.py" "$part" \
        --sample "$SAMPLE" --results "$RESULTS"; then
        cp "$part" "$BOOKS/$name.tmp" && mv "$BOOKS/$name.tmp" "$BOOKS/$name"
        stem=${name%.c4b}
        git -C "$REPO" add "books/book14-dist/$name" "benchmarks/results/book14/$stem.json"
        git -C "$REPO" commit -q -m "books: 14-ply distance book, $stem (built by benchmarks/build14.sh; checked by benchmarks/check14.py: checksum, position count of the part, values, $SAMPLE positions re-solved, mirror answers, per-ply counts in benchmarks/results/book14/$stem.json)"
        echo "committed $name"
    else
        echo "$name: a check failed, not committed (see $RESULTS/${name%.c4b}.json)" >&2
        status=1
    fi
done
exit $status
