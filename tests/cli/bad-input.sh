#!/bin/sh
# Every file in tests/bad/ is rejected with exit status 2 and the message in
# its .expect file (a substring of stderr, file:line:col included), without a
# crash (a sanitizer or signal would change the status) and with nothing on stdout.
: "${CGSCOPE:=./cgscope}"
fails=0; n=0
for f in tests/bad/*.json; do
    n=$((n + 1))
    exp=$(cat "${f%.json}.expect")
    out=$("$CGSCOPE" info "$f" 2>&1 >/tmp/cgs-bad-stdout.$$)
    rc=$?
    case "$out" in
    *"$f:"*"$exp"* | *"$f: $exp"* ) ;;
    *"$exp"*) case "$exp" in *error:*) ;; *) echo "FAIL $f: message lacks the file name: $out"; fails=$((fails + 1));; esac ;;
    *) echo "FAIL $f: expected '$exp'"; echo "     got '$out'"; fails=$((fails + 1));;
    esac
    [ "$rc" = 2 ] || { echo "FAIL $f: exit $rc, expected 2"; fails=$((fails + 1)); }
    [ -s /tmp/cgs-bad-stdout.$$ ] && { echo "FAIL $f: wrote to stdout"; fails=$((fails + 1)); }
done
rm -f /tmp/cgs-bad-stdout.$$
# also through --json
out=$("$CGSCOPE" info --json tests/bad/cycle.json 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || { echo "FAIL --json on a bad file: exit $rc"; fails=$((fails + 1)); }
# a missing file
out=$("$CGSCOPE" info /nonexistent/graph.json 2>&1); rc=$?
case "$out" in *"/nonexistent/graph.json: error: cannot open: No such file or directory"*) ;;
*) echo "FAIL missing file: $out"; fails=$((fails + 1));; esac
[ "$rc" = 2 ] || { echo "FAIL missing file: exit $rc"; fails=$((fails + 1)); }
[ "$n" -ge 30 ] || { echo "FAIL only $n bad inputs"; fails=$((fails + 1)); }
echo "$n bad inputs checked, $fails failures"
[ $fails = 0 ]
