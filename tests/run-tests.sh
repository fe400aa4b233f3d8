#!/bin/sh
# Run every test: the cmocka unit binaries given as arguments, then every
# tests/cli/*.sh script (CLI and golden tests). Each script exits 0 (pass),
# 77 (skipped, with a reason on stdout) or anything else (fail).
# Environment: CGSCOPE (the binary), FIXTURES (../shared/fixtures),
# VALGRIND=1 to run the unit binaries under valgrind.
# Prints one closing line: "N passed, N failed, N skipped".
unit_only=0
if [ "$1" = "--unit-only" ]; then unit_only=1; shift; fi
pass=0; fail=0; skip=0; failed=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run() {
    name=$1; shift
    "$@" >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1)); echo "ok      $name"
    elif [ $rc -eq 77 ]; then
        skip=$((skip + 1)); echo "skip    $name: $(tail -n 1 "$log")"
    else
        fail=$((fail + 1)); failed="$failed $name"
        echo "FAIL    $name (exit $rc)"; sed 's/^/    | /' "$log" | tail -n 40
    fi
}
for t in "$@"; do
    if [ "$VALGRIND" = 1 ]; then
        run "$(basename "$t") (valgrind)" valgrind -q --error-exitcode=99 --leak-check=full \
            --errors-for-leak-kinds=definite,indirect \
            --suppressions=tests/valgrind.supp "$t"
    else
        run "$(basename "$t")" "$t"
    fi
done
if [ $unit_only = 0 ]; then
    for s in tests/cli/*.sh; do
        [ -f "$s" ] || continue
        [ "$(basename "$s")" = lib.sh ] && continue
        run "cli/$(basename "$s")" sh "$s"
    done
fi
echo
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
