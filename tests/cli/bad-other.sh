#!/bin/sh
# The hostile inputs of the other formats: CUPTI traces (tests/bad/trace, through report,
# report --json, report --ranges and dot --profile) and per-piece reports (tests/bad/report,
# through dot --profile in both views) and compile-cache indexes (tests/bad/index, through
# cache INDEX and cache INDEX --json): exit 2, the message of the .expect file with the file's
# name, nothing on stdout, no output file. (Graph JSON and .pt2: bad-input.sh.)
. tests/cli/lib.sh
G=samples/profile/transformer.dynamo.json
n=0
run_case() {   # FILE EXPECT CMD...
    f=$1 exp=$2; shift 2
    n=$((n + 1))
    rm -f "$T/o.svg"
    "$@" >"$out" 2>"$err"
    rc=$?
    [ "$rc" = 2 ] || fail "$* : exit $rc, expected 2"
    grep -qF -- "$f" "$err" || fail "$* : the message does not name $f: $(head -c 200 "$err")"
    grep -qF -- "$exp" "$err" || fail "$* : expected '$exp', got '$(head -c 200 "$err")'"
    [ -s "$out" ] && fail "$* : wrote to stdout"
    [ -e "$T/o.svg" ] && fail "$* : wrote an output file"
}
for f in tests/bad/trace/*.cgstrace; do
    exp=$(cat "${f%.cgstrace}.expect")
    run_case "$f" "$exp" "$CGSCOPE" report "$f"
    run_case "$f" "$exp" "$CGSCOPE" report "$f" --json
    run_case "$f" "$exp" "$CGSCOPE" report "$f" --ranges
    run_case "$f" "$exp" "$CGSCOPE" dot $G --split-ops @sdpa --collapse pieces --profile "$f" -o "$T/o.svg"
done
for f in tests/bad/report/*.json; do
    exp=$(cat "${f%.json}.expect")
    run_case "$f" "$exp" "$CGSCOPE" dot $G --split-ops @sdpa --collapse pieces --profile "$f" -o "$T/o.svg"
    run_case "$f" "$exp" "$CGSCOPE" dot $G --split-ops @sdpa --profile "$f" -o "$T/o.svg"
done
for f in tests/bad/index/*.py; do
    exp=$(cat "${f%.py}.expect")
    run_case "$f" "$exp" "$CGSCOPE" cache "$f"
    run_case "$f" "$exp" "$CGSCOPE" cache "$f" --json
done
echo "$n runs of $(ls tests/bad/trace/*.cgstrace tests/bad/report/*.json tests/bad/index/*.py | wc -l) hostile files"
finish
