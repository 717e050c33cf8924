#!/bin/sh
# Merge the committed parts of a ply's distance book (14 plies unless PLIES says), derive
# the book one ply shallower, and run every check of the complete books (docs/BOOK14.md,
# "Checks").
#
# Usage: benchmarks/finish_parts.sh   (run from the checkout holding the parts)
#
# Steps, each one skipped when its output exists, so a rerun continues where an
# interrupted run stopped; the first failing step stops the script (exit status 1):
#   1. the per-ply counts of all parts added up: Tromp's positions, Böck's won/drawn/lost
#      (benchmarks/check_parts.py --published; every part must be checked and committed)
#   2. openingbook merge of the parts into $OUT/bookP-dist.c4b
#   3. the merged book checked whole by check_parts.py: file, $SAMPLE positions re-solved,
#      mirror answers, parity, its per-ply counts against the published ones
#   4. openingbook validate $SHALLOW against the merged book: the values two plies up
#      derived from it equal the shallower book's on every position
#   5. openingbook derive of the (P-1)-ply book ($OUT/book(P-1)-dist.c4b), compact
#   6. the derived book checked whole like step 3; where a (P-1)-ply distance book is
#      shipped (books/book(P-1)-dist.c4b, or in books/deep/openingbook_books/ for 13 to
#      15 plies), openingbook diff of the two: equal everywhere
#   7. with PONS set (the path of Pascal Pons' c4solver): 200 positions of every part
#      ($PARTS_RESULTS-pons.json) and $SAMPLE of each complete book re-solved by his
#      solver (benchmarks/cross_pons.py)
# Results (JSON, one file per step) go to $RESULTS. Nothing is committed, and nothing is
# written into books/ (the shipped books, package data): to ship the merged book, copy
# it there once every step has passed (a book past 12 plies: books/deep/openingbook_books/,
# the data package of the deep books).
#
# Environment (defaults in brackets):
#   PLIES [14]; PARTS [32]; PARTS_DIR [books/bookP-dist]; OUT [finishP beside the checkout]
#   SHALLOW  the book two plies shallower [books/book(P-2)-dist.dat, or its .c4b
#            where there is no .dat: books/deep/openingbook_books/book13-dist.c4b
#            for 15 plies]
#   SAMPLE   positions re-solved in each complete book [2000]; JOBS [1]
#   RESULTS  [benchmarks/results/bookP-final]; PARTS_RESULTS  the parts' check results
#            [benchmarks/results/bookP]; PYTHON [python3]
set -eu
REPO=$(git rev-parse --show-toplevel)
# from the checkout, with relative paths: the books record their sources' paths as given
cd "$REPO"
PLIES=${PLIES:-14}
PARTS=${PARTS:-32}
PARTS_DIR=${PARTS_DIR:-books/book$PLIES-dist}
OUT=${OUT:-$(dirname "$REPO")/finish$PLIES}
if [ -z "${SHALLOW:-}" ]; then
    SHALLOW=books/book$((PLIES - 2))-dist.dat
    [ -e "$SHALLOW" ] || SHALLOW=books/book$((PLIES - 2))-dist.c4b
    [ -e "$SHALLOW" ] || SHALLOW=books/deep/openingbook_books/book$((PLIES - 2))-dist.c4b
fi
SAMPLE=${SAMPLE:-2000}
JOBS=${JOBS:-1}
RESULTS=${RESULTS:-benchmarks/results/book$PLIES-final}
PARTS_RESULTS=${PARTS_RESULTS:-benchmarks/results/book$PLIES}
PYTHON=${PYTHON:-python3}
deep=$OUT/book$PLIES-dist.c4b
derived=$OUT/book$((PLIES - 1))-dist.c4b
shipped=books/book$((PLIES - 1))-dist.c4b
[ -e "$shipped" ] || shipped=books/deep/openingbook_books/book$((PLIES - 1))-dist.c4b
mkdir -p "$RESULTS" "$OUT"

say() { echo "$(date -u +%FT%TZ) $*"; }
openingbook() { PYTHONPATH="$REPO" "$PYTHON" -c "from openingbook.cli import main; main()" "$@"; }
# check_parts.py writes its result (with "ok") whether or not the book passes
check_whole() {
    result=$RESULTS/$(basename "$1" .c4b).json
    if grep -qs '"ok": true' "$result"; then
        say "$(basename "$result"): passed before, skipped"
        return
    fi
    say "$(basename "$result"): checking $1"
    PYTHONPATH="$REPO" "$PYTHON" benchmarks/check_parts.py "$1" --sample "$SAMPLE" \
        --jobs "$JOBS" --results "$RESULTS" > /dev/null || { say "$1: a check failed (see $result)"; exit 1; }
}
# a step's JSON is written beside, then renamed: a result file exists only when complete
step() {
    result=$RESULTS/$1.json
    shift
    if [ -e "$result" ]; then
        say "$(basename "$result"): done before, skipped"
        return
    fi
    say "$(basename "$result"): $*"
    "$@" > "$result.tmp" || { say "$(basename "$result"): failed (see $result.tmp)"; exit 1; }
    mv "$result.tmp" "$result"
}

step parts-published env PYTHONPATH="$REPO" "$PYTHON" benchmarks/check_parts.py \
    --published --results "$PARTS_RESULTS"
grep -q '"matches_published": true' "$RESULTS/parts-published.json" || {
    say "the parts do not add up to the published counts: $RESULTS/parts-published.json"
    rm "$RESULTS/parts-published.json"
    exit 1
}
if [ ! -e "$deep" ]; then
    step merge openingbook merge "$PARTS_DIR"/book"$PLIES"-dist-part*of"$PARTS".c4b -o "$deep" --json
fi
check_whole "$deep"
step validate openingbook validate "$SHALLOW" "$deep" --json
if [ ! -e "$derived" ]; then
    step derive openingbook derive --from "$deep" --plies $((PLIES - 1)) --format compact \
        -o "$derived" --json
fi
check_whole "$derived"
if [ -e "$shipped" ]; then
    step diff-shipped openingbook diff "$shipped" "$derived" --json
fi
# cross_pons.py writes its result whether or not every score agrees: renamed when they do
cross_check() {
    result=$1
    shift
    if [ -e "$result" ]; then
        say "$(basename "$result"): done before, skipped"
        return
    fi
    say "$(basename "$result"): re-solved by $PONS"
    PYTHONPATH="$REPO" "$PYTHON" benchmarks/cross_pons.py "$@" --pons "$PONS" \
        --out "$result.tmp" > /dev/null || { say "a score differs (see $result.tmp)"; exit 1; }
    mv "$result.tmp" "$result"
}
if [ -n "${PONS:-}" ]; then
    cross_check "$PARTS_RESULTS-pons.json" "$PARTS_DIR"/book"$PLIES"-dist-part*of"$PARTS".c4b --sample 200
    cross_check "$RESULTS/pons.json" "$deep" "$derived" --sample "$SAMPLE"
fi
say "all checks passed: $deep, $derived (results in $RESULTS)"
