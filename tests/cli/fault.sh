#!/bin/sh
# Fault injection: tests/fault/failshim.c (LD_PRELOAD) fails the Nth malloc, open, write or
# rename, N walked over every call a real command makes (at most 40 points a kind and
# command). Each run must end in exit 0, 1 or 2 (no signal, no abort), a message on exit 2,
# no partial output file and no temporary file left behind.
. tests/cli/lib.sh
command -v "${CC:-cc}" >/dev/null || { echo "skipped: no C compiler for the shim"; exit 77; }
if nm "$CGSCOPE" 2>/dev/null | grep -q __asan_init; then
    echo "skipped: a sanitizer build cannot run under LD_PRELOAD"; exit 77
fi
if nm "$CGSCOPE" 2>/dev/null | grep -q __gcov_; then
    echo "skipped: a coverage build's own exit handler allocates (and dies when the shim fails it)"
    exit 77
fi
SHIM=$T/failshim.so
${CC:-cc} -O1 -fPIC -shared -o "$SHIM" tests/fault/failshim.c -ldl || { fail "shim does not build"; finish; exit 1; }
G=samples/cgs_transformer_dyn.json
O=$T/out
mkdir -p "$O"
# a 1.2 MB graph too, and the commands with four threads where they use them
python3 tests/cli/wide-graph.py $G "$T/wide.json" || fail "wide graph"
export CGSCOPE_THREADS=4
runs=0
for c in "split $G --split-ops cgs.attention --json" "shapes --reinfer $G" \
         "shapes --reinfer --json $T/wide.json" \
         "layout samples/resnet18.post_grad.json --json" "dot $G --split-ops cgs.attention -o $O/o.svg" \
         "dot $G -o $O/o.dot" "top samples/llama_tiny.events.jsonl --once --json" \
         "cache samples/magi_compile_cache.py" "info tests/data/pt2/qwen2_tiny.export.pt2" \
         "report samples/profile --json" "report tests/data/prof/ranks" \
         "dot samples/profile/transformer.dynamo.json --split-ops @sdpa --profile samples/profile -o $O/o.svg"; do
    rm -f "$T/cnt"
    CGS_FAIL_COUNT=$T/cnt LD_PRELOAD=$SHIM "$CGSCOPE" $c >/dev/null 2>&1 || fail "$c fails without a fault"
    for k in malloc open write rename; do
        total=$(awk -v k=$k '$2 == k { s += $3 } END { print s + 0 }' "$T/cnt")
        [ "$total" -gt 0 ] || continue
        step=$((total / 40 + 1))
        n=1
        while [ $n -le "$total" ]; do
            rm -f "$O/o.svg" "$O/o.dot"
            CGS_FAIL=$k:$n LD_PRELOAD=$SHIM "$CGSCOPE" $c >"$out" 2>"$err"
            rc=$?
            runs=$((runs + 1))
            case $rc in 0 | 1 | 2) ;; *) fail "$k:$n '$c': exit $rc: $(head -c 200 "$err")" ;; esac
            [ $rc != 2 ] || grep -q 'error' "$err" || fail "$k:$n '$c': exit 2 without a message"
            if [ $rc != 0 ] && { [ -e "$O/o.svg" ] || [ -e "$O/o.dot" ]; }; then
                fail "$k:$n '$c': a failed run left its output file"
            fi
            if ls "$O" | grep -q 'tmp-'; then fail "$k:$n '$c': temporary file left"; rm -f "$O"/*tmp-*; fi
            n=$((n + step))
        done
    done
done
[ $runs -ge 100 ] || fail "only $runs faulty runs"
echo "$runs faulty runs"
finish
