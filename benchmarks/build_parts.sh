#!/bin/sh
# Build the parts of a ply's distance book (14 plies unless PLIES says), one after the
# other, resumably.
#
# Usage: benchmarks/build_parts.sh [PART ...]   (default: every part 1..PARTS)
#
# Each part is `openingbook build --plies PLIES --distances --part I/PARTS`: its positions
# are enumerated alone (the layer before them whole: 14 plies about 1.3 GB, 15 plies
# 2.8 GB, for a few seconds), solved in chunks saved under $WORK/part-I (a rerun resumes
# them), and written to $WORK/out/ as a compact book that answers only its part. A part
# already in $BOOKS (committed) or in $WORK/out (built, waiting to be checked and
# committed) is skipped, so rerunning this script continues exactly where the last run
# stopped. docs/BOOK14.md: checking and committing parts, merging them, running parts
# on other machines; docs/BOOK15.md: the 15-ply book.
#
# Environment (defaults in brackets):
#   PLIES  stones of the book's positions [14]; PARTS  number of parts [32]
#   CODE   checkout whose code runs; it must not change while the build runs
#          [the checkout holding this script]
#   BOOKS  directory of committed parts [$CODE/books/bookPLIES-dist]
#   WORK   work directories, outputs and the log [buildPLIES-work beside the checkout]
#   JOBS   worker processes per part [1]; SIZE  the board [7x6]
#   SCHEDULER  a dask scheduler's address (tcp://host:8786): its workers solve the
#          chunks, this machine enumerates, saves chunks and writes parts
#          (docs/CLUSTER.md) [none: local worker processes]
#   PYTHON [python3]
set -eu
PLIES=${PLIES:-14}
CODE=${CODE:-$(cd "$(dirname "$0")/.." && pwd)}
BOOKS=${BOOKS:-$CODE/books/book$PLIES-dist}
WORK=${WORK:-$(cd "$(dirname "$0")/../.." && pwd)/build$PLIES-work}
PARTS=${PARTS:-32}
JOBS=${JOBS:-1}
SIZE=${SIZE:-7x6}
PYTHON=${PYTHON:-python3}
if [ -n "${SCHEDULER:-}" ]; then
    EXECUTE="--executor dask --scheduler $SCHEDULER"
else
    EXECUTE="--jobs $JOBS"
fi
# the build's own name of a part (openingbook.pipeline.build.default_output_name)
board=""
size=""
if [ "$SIZE" != 7x6 ]; then
    board="-$SIZE"
    size="--size $SIZE"
fi
mkdir -p "$WORK/out"
# absolute paths, then run from $WORK: `python -c` puts the current directory first on
# its path, so started from a checkout it would import that checkout's code, not $CODE's
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
CODE=$(absolute "$CODE")
BOOKS=$(absolute "$BOOKS")
WORK=$(absolute "$WORK")
cd "$WORK"
if [ $# -eq 0 ]; then
    set -- $(seq 1 "$PARTS")
fi
for i in "$@"; do
    name=$(printf "book%d-dist%s-part%0${#PARTS}dof%d.c4b" "$PLIES" "$board" "$i" "$PARTS")
    if [ -e "$BOOKS/$name" ] || [ -e "$WORK/out/$name" ]; then
        echo "$(date -u +%FT%TZ) part $i/$PARTS: $name exists, skipped"
        continue
    fi
    echo "$(date -u +%FT%TZ) part $i/$PARTS: building $name"
    PYTHONPATH="$CODE" "$PYTHON" -c "from openingbook.cli import main; main()" build \
        --plies "$PLIES" --distances --part "$i/$PARTS" $size $EXECUTE --quiet \
        --keep-work --work-dir "$WORK/part-$i" -o "$WORK/out/$name"
    echo "$(date -u +%FT%TZ) part $i/$PARTS: done"
done
