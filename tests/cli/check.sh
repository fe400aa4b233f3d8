#!/bin/sh
# cgscope check, the findings model's CI gate: on tlparse's test logs and on logs recorded with
# faults provoked on purpose (tests/gpu/fault_logs.py), the findings written down from the logs
# (tests/data/findings.expect); top --once --json and the page hold the same findings.
. tests/cli/lib.sh
python3 tests/check-findings.py "$CGSCOPE" || fail "findings (tests/check-findings.py)"
# the text: errors first, with the hint and the record they rest on
check "a failed compile fails the gate" 1 "$CGSCOPE" check tests/data/faultlogs/backend_fail.log.xz
has "the failure first" "$out" "error: compile_failure: the compile of fn (fault_logs.py:42) failed"
has "the record" "$out" "record:   tests/data/faultlogs/backend_fail.log.xz:248"
has "the gate said" "$err" "1 finding at or above error"
check "breaks only warn" 0 "$CGSCOPE" check tests/data/faultlogs/break_hints.log.xz
has "torch's hint, the fix" "$out" 'hint:     Add the logging method to `torch._dynamo.config.ignore_logging_functions`.'
check "--fail-on warning" 1 "$CGSCOPE" check tests/data/faultlogs/break_hints.log.xz --fail-on warning
check "a reset is another run" 0 "$CGSCOPE" check tests/data/faultlogs/reset.log.xz --json
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
c=d['compiles']
assert (c['compiles'], c['graphs'], c['runs'], c['recompiles']) == (3, 3, 2, 1), c" "$out" \
    || fail "reset: 3 compiles in 2 runs, 1 recompile"
check "a compiled optimizer: graphs apart from compiles" 0 "$CGSCOPE" breaks tests/data/faultlogs/optimizer.log.xz --json
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
# torch's counters said unique_graphs 2 of 5 compiles (tests/gpu/fault_logs.py)
assert (d['compiles'], d['graphs'], d['empty']) == (5, 2, 3), d
b=d['breaks'][0]
assert b['user_frame']['file'].endswith('fault_logs.py') and b['user_frame']['line'] == 88, b
assert b['hints'] == ['Remove the \`torch._dynamo.graph_break()\` call.'], b['hints']
assert b['url'].endswith('gb0025.html') and b['gb_id'] == 'gb0025', b" "$out" || fail "optimizer: counts and the break's parts"
# a log on standard input: read once, its records judged (top --once too)
xz -dc tests/data/faultlogs/backend_fail.log.xz | "$CGSCOPE" check - >"$out" 2>"$err"
[ $? = 1 ] || fail "check -: exit status, expected 1"
has "check - judged the log" "$out" "record:   <stdin>:248"
xz -dc tests/data/faultlogs/reset.log.xz | "$CGSCOPE" top --once - >"$out" 2>"$err" || fail "top --once -: failed"
has "top --once - gives its findings" "$out" "note: recompiles: fn (fault_logs.py:72)"
# rank divergence rests on the compile where rank 1 parts from rank 0 (its 0/1, the extra one)
check "ranks that diverge" 0 "$CGSCOPE" check tests/data/faultlogs/ranks_diverge --json
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
f=[f for f in d['findings'] if f['kind'] == 'rank_divergence'][0]
assert f['evidence']['file'].endswith('rank_1.log.xz'), f['evidence']
import lzma; l=lzma.open(f['evidence']['file'],'rt').read().split('\n')[f['evidence']['line']-1]
assert '\"compilation_metrics\"' in l and '\"frame_compile_id\": 1' in l, l[:200]" "$out" || fail "divergence evidence"
check "a missing source" 2 "$CGSCOPE" check "$T/nothing.log"
has "named" "$err" "nothing.log"
check "no source" 2 "$CGSCOPE" check
# nothing read is no verdict: an empty folder (a wrong path in a CI gate) fails, named
mkdir "$T/empty"
check "check of an empty folder" 2 "$CGSCOPE" check "$T/empty"
has "nothing to check" "$err" "$T/empty: error: nothing to check"
hasnt "no verdict on nothing" "$out" "0 errors"
check "check of an empty folder, --json" 2 "$CGSCOPE" check "$T/empty" --json
python3 -c 'import json,sys; e=json.loads(open(sys.argv[1]).read().splitlines()[-1])["error"]; assert e["file"] == sys.argv[2] and e["exit"] == 2, e' "$err" "$T/empty" ||
    fail "check of an empty folder: the JSON error names it"
finish
