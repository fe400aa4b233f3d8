#!/bin/sh
# Every file in tests/bad/ (graph JSON and .pt2) is rejected by every command that reads a
# graph, with exit status 2 and the message in its .expect file (a substring of stderr,
# file:line:col included), without a crash (a sanitizer or signal would change the status),
# with nothing on stdout and no output file.
: "${CGSCOPE:=./cgscope}"
fails=0; n=0; runs=0
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/cgs-bad.XXXXXX")
trap 'rm -rf "$tmpd"' EXIT
for f in tests/bad/*.json tests/bad/*.pt2; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    exp=$(cat "${f%.*}.expect")
    for c in "info" "split --split-ops aten.mm --allow-missing-ops" "shapes --reinfer" "layout" \
             "dot -o $tmpd/out.svg"; do
        runs=$((runs + 1))
        out=$("$CGSCOPE" $c "$f" 2>&1 >$tmpd/stdout)
        rc=$?
        case "$out" in
        *"$f:"*"$exp"* | *"$f: $exp"* ) ;;
        *"$exp"*) case "$exp" in *error:*) ;; *) echo "FAIL $c $f: message lacks the file name: $out"; fails=$((fails + 1));; esac ;;
        *) echo "FAIL $c $f: expected '$exp'"; echo "     got '$out'"; fails=$((fails + 1));;
        esac
        [ "$rc" = 2 ] || { echo "FAIL $c $f: exit $rc, expected 2"; fails=$((fails + 1)); }
        [ -s $tmpd/stdout ] && { echo "FAIL $c $f: wrote to stdout"; fails=$((fails + 1)); }
        [ -e "$tmpd/out.svg" ] && { echo "FAIL $c $f: wrote an output file"; fails=$((fails + 1)); rm -f "$tmpd/out.svg"; }
    done
done
# the .pt2 errors that once printed freed memory (issue 15 finding 3): clean under valgrind
if command -v valgrind >/dev/null && ! nm "$CGSCOPE" 2>/dev/null | grep -q __asan_init; then
    valgrind -q --error-exitcode=99 "$CGSCOPE" info tests/bad/duplicate-input-name.pt2 >/dev/null 2>"$tmpd/vg"
    rc=$?
    [ "$rc" = 2 ] || { echo "FAIL valgrind on duplicate-input-name.pt2: exit $rc"; head -5 "$tmpd/vg"; fails=$((fails + 1)); }
fi
# also through --json
out=$("$CGSCOPE" info --json tests/bad/cycle.json 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || { echo "FAIL --json on a bad file: exit $rc"; fails=$((fails + 1)); }
# a missing file
out=$("$CGSCOPE" info /nonexistent/graph.json 2>&1); rc=$?
case "$out" in *"/nonexistent/graph.json: error: cannot open: No such file or directory"*) ;;
*) echo "FAIL missing file: $out"; fails=$((fails + 1));; esac
[ "$rc" = 2 ] || { echo "FAIL missing file: exit $rc"; fails=$((fails + 1)); }
[ "$n" -ge 30 ] || { echo "FAIL only $n bad inputs"; fails=$((fails + 1)); }
echo "$n bad inputs checked through $runs command runs, $fails failures"
[ $fails = 0 ]
