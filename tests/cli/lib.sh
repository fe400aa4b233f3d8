# Shared helpers for the CLI test scripts (git's t/test-lib.sh is the model): source it with
# `. tests/cli/lib.sh` from the repository root. It gives:
#   CGSCOPE   the binary under test (./cgscope unless set)
#   FIXTURES  ../shared/fixtures unless set; need_fixtures skips (77) when it is absent
#   T         a fresh temporary folder, removed at exit; $out and $err are the last
#             command's stdout and stderr
#   check DESC STATUS CMD...   run CMD, count a failure unless it exits STATUS
#   has / hasnt DESC FILE TEXT  a fixed string in / not in FILE
#   nofile DESC PATH            PATH does not exist, and no temporary file is left in $T
#   fail DESC                   count a failure
#   finish                      print the count; exit 0 when nothing failed
: "${CGSCOPE:=./cgscope}"
: "${FIXTURES:=../shared/fixtures}"
T=$(mktemp -d "${TMPDIR:-/tmp}/cgs-test.XXXXXX")
out=$T/stdout err=$T/stderr
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL $1"; fails=$((fails + 1)); }
check() {
    desc=$1; want=$2; shift 2
    "$@" >"$out" 2>"$err"
    rc=$?
    [ "$rc" = "$want" ] || { fail "$desc: exit $rc, expected $want"; sed 's/^/  | /' "$err" | head -5; }
}
has() { grep -qF -- "$3" "$2" || fail "$1: no '$3' in $2"; }
hasnt() { ! grep -qF -- "$3" "$2" || fail "$1: '$3' in $2"; }
nofile() {
    [ ! -e "$2" ] || fail "$1: $2 exists"
    [ "$(ls "$T" | grep -c '\.tmp-')" = 0 ] || fail "$1: temporary files left in $T"
}
need_fixtures() {
    [ -d "$FIXTURES" ] || { echo "skipped: no fixtures at $FIXTURES"; exit 77; }
}
finish() {
    echo "$fails failures"
    [ "$fails" -eq 0 ]
}
