#!/bin/sh
# Long fuzzing on a machine with many cores: every target at once, each in libFuzzer's fork
# mode with its own number of workers, on a corpus seeded like run.sh's; one line per target
# with the executions reached (the fork-mode parent's running total) and the crashes.
# usage: sh tests/fuzz/parallel.sh BUILD_DIR SECONDS JOBS TARGET[:JOBS[:MAX_LEN]]...
#   JOBS: workers for each target not given its own; MAX_LEN: libFuzzer's -max_len (65536 when
#   not given; the inputs read from the corpus are cut to it)
set -u
B=$1 secs=$2 jobs=$3
shift 3
. tests/fuzz/seeds.sh
names=
for spec in "$@"; do
    t=${spec%%:*}
    rest=${spec#"$t"}
    rest=${rest#:}
    j=${rest%%:*}
    m=${rest#"$j"}
    m=${m#:}
    corpus=$B/corpus/$t
    seed_corpus "$corpus" "$t"
    "$B/fuzz/fuzz-$t" -fork="${j:-$jobs}" -max_total_time="$secs" -max_len="${m:-65536}" \
        -artifact_prefix="$B/crash-$t-" -timeout=20 -rss_limit_mb=4096 -ignore_crashes=1 \
        "$corpus" >"$B/fuzz-$t.log" 2>&1 &
    names="$names $t:${j:-$jobs}:${m:-65536}"
done
wait
rc=0
for spec in $names; do
    t=${spec%%:*}
    log=$B/fuzz-$t.log
    last=$(grep -E '^#[0-9]+:' "$log" | tail -n 1)
    execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
    cov=$(echo "$last" | grep -o 'cov: [0-9]*')
    crashes=$(ls "$B"/crash-"$t"-* 2>/dev/null | wc -l)
    j=${spec#*:}
    echo "fuzz-$t: ${execs:-?} executions, ${cov:-cov: ?}, $crashes crashes ($secs s, ${j%%:*} jobs, max_len ${spec##*:})"
    [ "$crashes" -eq 0 ] || rc=1
done
exit $rc
