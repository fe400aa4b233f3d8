#!/bin/sh
# Line coverage per source file after `make coverage` ran the test suite on a --coverage build
# (gcov, from gcc): one line per file of lib/, viz/, tools/ and profiler/'s readers, then the
# total. usage: sh tests/coverage.sh BUILD_DIR
set -eu
B=${1:-build-cov}
total=0 hit=0
printf '%-28s %8s %8s\n' file lines covered
for src in lib/*/*.c viz/*.c tools/*.c; do
    obj=$B/${src%.c}.gcda
    [ -f "$obj" ] || { printf '%-28s %8s %8s\n' "$src" "-" "never run"; continue; }
    line=$(gcov -n -o "$B/$(dirname "$src")" "$src" 2>/dev/null |
        awk -v f="$src" '$0 ~ "^File .*"f"'"'"'" {want=1; next} want && /Lines executed/ {print; exit}')
    pct=$(printf '%s\n' "$line" | sed -n 's/Lines executed:\([0-9.]*\)% of \([0-9]*\)/\1 \2/p')
    [ -n "$pct" ] || continue
    set -- $pct
    n=$2
    h=$(awk -v p="$1" -v n="$n" 'BEGIN { printf "%d", p * n / 100 + 0.5 }')
    total=$((total + n)); hit=$((hit + h))
    printf '%-28s %8d %7s%%\n' "$src" "$n" "$1"
done
awk -v h=$hit -v t=$total 'BEGIN { printf "%-28s %8d %7.2f%%\n", "total", t, t ? 100 * h / t : 0 }'
