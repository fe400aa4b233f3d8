#!/bin/sh
# Every fuzz target (tests/fuzz/fuzz-*.c, built with a plain main) replays its seeds and its
# regression inputs (tests/fuzz/regress/TARGET: each one crashed cgscope before its fix) under
# the build's compiler and sanitizers: nothing may crash or abort.
. tests/cli/lib.sh
. tests/fuzz/seeds.sh
: "${BUILD:=build}"
n=0
for src in tests/fuzz/fuzz-*.c; do
    t=$(basename "$src" .c); t=${t#fuzz-}
    bin=$BUILD/fuzz/replay-$t
    [ -x "$bin" ] || { fail "no $bin (make test builds it)"; continue; }
    check "replay $t" 0 "$bin" $(seeds "$t")
    has "replay $t ran" "$out" "inputs ran"
    n=$((n + 1))
done
[ $n -ge 6 ] || fail "only $n fuzz targets"
finish
