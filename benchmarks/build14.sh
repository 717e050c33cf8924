#!/bin/sh
# Build the parts of the 14-ply distance book, one after the other, resumably.
#
# Usage: benchmarks/build14.sh [PART ...]   (default: every part 1..PARTS)
#
# Each part is `openingbook build --plies 14 --distances --part I/PARTS`: its positions
# are enumerated alone (about 1.3 GB for a few seconds), solved in chunks saved under
# $WORK/part-I (a rerun resumes them), and written to $WORK/out/ as a compact book that
# answers only its part. A part already in $BOOKS (committed) or in $WORK/out (built,
# waiting to be checked and committed) is skipped, so rerunning this script continues
# exactly where the last run stopped. docs/BOOK14.md: checking and committing parts,
# merging them, running parts on other machines.
#
# Environment (defaults in brackets):
#   CODE   checkout whose code runs; it must not change while the build runs
#          [the checkout holding this script]
#   BOOKS  directory of committed parts [$CODE/books/book14-dist]
#   WORK   work directories, outputs and the log [build14-work beside the checkout]
#   PARTS  number of parts [32]; JOBS worker processes per part [1]
#   SCHEDULER  a dask scheduler's address (tcp://host:8786): its workers solve the
#          chunks, this machine enumerates, saves chunks and writes parts
#          (docs/CLUSTER.md) [none: local worker processes]
#   PYTHON [python3]
set -eu
CODE=${CODE:-$(cd "$(dirname "$0")/.." && pwd)}
BOOKS=${BOOKS:-$CODE/books/book14-dist}
WORK=${WORK:-$(cd "$(dirname "$0")/../.." && pwd)/build14-work}
PARTS=${PARTS:-32}
JOBS=${JOBS:-1}
PYTHON=${PYTHON:-python3}
if [ -n "${SCHEDULER:-}" ]; then
    EXECUTE="--executor dask --scheduler $SCHEDULER"
else
    EXECUTE="--jobs $JOBS"
fi
mkdir -p "$WORK/out"
if [ $# -eq 0 ]; then
    set -- $(seq 1 "$PARTS")
fi
for i in "$@"; do
    name=$(printf "book14-dist-part%0${#PARTS}dof%d.c4b" "$i" "$PARTS")
    if [ -e "$BOOKS/$name" ] || [ -e "$WORK/out/$name" ]; then
        echo "$(date -u +%FT%TZ) part $i/$PARTS: $name exists, skipped"
        continue
    fi
    echo "$(date -u +%FT%TZ) part $i/$PARTS: building $name"
    PYTHONPATH="$CODE" "$PYTHON" -c "from openingbook.cli import main; main()" build \
        --plies 14 --distances --part "$i/$PARTS" $EXECUTE --quiet --keep-work \
        --work-dir "$WORK/part-$i" -o "$WORK/out/$name"
    echo "$(date -u +%FT%TZ) part $i/$PARTS: done"
done
