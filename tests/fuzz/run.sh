#!/bin/sh
# make fuzz: run each libFuzzer target for SECONDS on a corpus seeded from the repository,
# then print one line per target with the executions reached (libFuzzer's final stats).
# usage: sh tests/fuzz/run.sh BUILD_DIR SECONDS TARGET...
set -u
B=$1 secs=$2
shift 2
. tests/fuzz/seeds.sh
rc=0
for t in "$@"; do
    corpus=$B/corpus/$t
    seed_corpus "$corpus" "$t"
    log=$B/fuzz-$t.log
    # a target's dictionary (tests/fuzz/dicts/TARGET.dict): the tokens that reach its recursion
    dict=
    [ -f "tests/fuzz/dicts/$t.dict" ] && dict="-dict=tests/fuzz/dicts/$t.dict"
    "$B/fuzz/fuzz-$t" $dict -max_total_time="$secs" -print_final_stats=1 -max_len=1048576 \
        -artifact_prefix="$B/crash-$t-" -timeout=20 -rss_limit_mb=4096 "$corpus" >"$log" 2>&1
    r=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    if [ $r -eq 0 ]; then
        echo "fuzz-$t: ${execs:-?} executions, $cov, 0 crashes ($secs s)"
    else
        echo "fuzz-$t: FAILED after ${execs:-?} executions (exit $r): see $log and $B/crash-$t-*"
        rc=1
    fi
done
exit $rc
