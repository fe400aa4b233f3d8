#!/bin/sh
# make bench: the page of the 100k-node bench graph (cgscope html): made in under 2 s, under
# 10 MB, and (where Chromium is) its first paint under 1 s, read from the page itself
# (data-fcp-ms, the browser's first-contentful-paint; data-ready-ms when its script is done),
# and sorting its node table (page#sort=COLUMN; data-sort-ms, the column's ranks ready, as the
# page's idle work after load makes them for a click; data-ranks-ms, making them) under 100 ms.
# usage: sh tests/bench/html.sh CGSCOPE GRAPH
set -u
bin=$1 graph=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s%N)
"$bin" html "$graph" -o "$tmp/p.html" 2>/dev/null || { echo "bench-html: cgscope html failed"; exit 1; }
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
kb=$(( $(wc -c <"$tmp/p.html") / 1024 ))
rc=0
echo "bench-html: $(basename "$graph"): page made in $ms ms, $kb KB (targets 2000 ms, 10240 KB)"
[ "$ms" -lt 2000 ] || { echo "bench-html: slower than 2 s"; rc=1; }
[ "$kb" -lt 10240 ] || { echo "bench-html: larger than 10 MB"; rc=1; }
chrome=$(command -v chromium || true)
if [ -n "$chrome" ]; then
    HOME=$tmp timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --virtual-time-budget=3000 \
        --dump-dom "file://$tmp/p.html" 2>/dev/null >"$tmp/dom"
    fcp=$(sed -n 's/.*data-fcp-ms="\([0-9]*\)".*/\1/p' "$tmp/dom" | head -n 1)
    ready=$(sed -n 's/.*data-ready-ms="\([0-9]*\)".*/\1/p' "$tmp/dom" | head -n 1)
    echo "bench-html: Chromium: first paint ${fcp:-?} ms, script done ${ready:-?} ms (target: first paint 1000 ms)"
    [ -n "$fcp" ] && [ "$fcp" -lt 1000 ] || { echo "bench-html: first paint not under 1 s"; rc=1; }
    for col in node op target value -value; do
        HOME=$tmp timeout 120 "$chrome" --headless --no-sandbox --disable-gpu \
            --virtual-time-budget=5000 --dump-dom "file://$tmp/p.html#sort=$col" 2>/dev/null \
            >"$tmp/dom"
        ms=$(sed -n 's/.*data-sort-ms="\([0-9]*\)".*/\1/p' "$tmp/dom" | head -n 1)
        rk=$(sed -n 's/.*data-ranks-ms="\([0-9]*\)".*/\1/p' "$tmp/dom" | head -n 1)
        echo "bench-html: Chromium: node table sorted by $col in ${ms:-?} ms (target 100 ms;" \
            "the column's ranks, computed while the page is idle after load: ${rk:-?} ms)"
        [ -n "$ms" ] && [ "$ms" -lt 100 ] || { echo "bench-html: sorting by $col not under 100 ms"; rc=1; }
    done
fi
exit $rc
