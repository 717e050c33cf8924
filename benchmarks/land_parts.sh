#!/bin/sh
# Check and commit the parts of a ply's distance book (14 plies unless PLIES says) that
# build_parts.sh has finished.
#
# Usage: benchmarks/land_parts.sh   (run from the checkout to commit into)
#
# For every part in $WORK/out that is not in books/bookPLIES-dist/ yet:
# benchmarks/check_parts.py (file checks, a re-solved sample of $SAMPLE positions, mirror
# answers, the part's per-ply counts) writes benchmarks/results/bookPLIES/<part>.json;
# a part that passes is copied into books/bookPLIES-dist/ and committed with its result.
# A part that fails is left where it is and reported (exit status 1).
#
# Environment (defaults in brackets): PLIES [14]; WORK [buildPLIES-work beside the
# checkout]; SAMPLE positions re-solved per part [200]; PYTHON [python3]
set -eu
REPO=$(git rev-parse --show-toplevel)
PLIES=${PLIES:-14}
WORK=${WORK:-$(cd "$(dirname "$0")/../.." && pwd)/build$PLIES-work}
SAMPLE=${SAMPLE:-200}
PYTHON=${PYTHON:-python3}
BOOKS=$REPO/books/book$PLIES-dist
RESULTS=$REPO/benchmarks/results/book$PLIES
mkdir -p "$BOOKS" "$RESULTS"
status=0
for part in "$WORK"/out/book"$PLIES"-dist-part*.c4b; do
    [ -e "$part" ] || continue
    name=$(basename "$part")
    [ -e "$BOOKS/$name" ] && continue
    if PYTHONPATH="$REPO" "$PYTHON" "$REPO/benchmarks/check_parts.py" "$part" \
        --sample "$SAMPLE" --results "$RESULTS"; then
        cp "$part" "$BOOKS/$name.tmp" && mv "$BOOKS/$name.tmp" "$BOOKS/$name"
        stem=${name%.c4b}
        git -C "$REPO" add "books/book$PLIES-dist/$name" "benchmarks/results/book$PLIES/$stem.json"
        git -C "$REPO" commit -q -m "books: $PLIES-ply distance book, $stem (built by benchmarks/build_parts.sh; checked by benchmarks/check_parts.py: checksum, position count of the part, values, $SAMPLE positions re-solved, mirror answers, per-ply counts in benchmarks/results/book$PLIES/$stem.json)"
        echo "committed $name"
    else
        echo "$name: a check failed, not committed (see $RESULTS/${name%.c4b}.json)" >&2
        status=1
    fi
done
exit $status
