#!/bin/sh
# cgscope report on the CUPTI traces recorded on the H200 (tests/data/prof: a transformer
# through the piecewise runner, eager, as CUDA graphs, training, two ranks, killed by SIGTERM;
# torch.profiler's own per-piece counts beside them), and cgscope profile end to end with a
# CPU-only NVTX client (tests/profiler/nvtx-client.c) where the library was built.
. tests/cli/lib.sh
P=tests/data/prof
B=${BUILD:-build}

# ---- report ----------------------------------------------------------------------------------
check "report eager" 0 "$CGSCOPE" report $P/eager
has "report rows" "$out" "submod_4"
has "report unattributed row" "$out" "(no piece)"
has "report kernel table" "$out" "kernels by GPU time"
has "report demangled" "$out" "vectorized_layer_norm_kernel<float"
for m in eager cudagraph train; do
    check "report --json $m" 0 "$CGSCOPE" report $P/$m --json --kernels 0
    python3 - "$out" $P/$m/torch_profiler.json <<'PY' || fail "report --json $m against torch.profiler"
import json, sys
r = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
assert r["format"] == "cgscope-report" and r["by"] == "piece", r["format"]
ours = {p["name"]: p for p in r["pieces"]}
assert set(ours) == set(t["pieces"]), (sorted(ours), sorted(t["pieces"]))
for name, k in t["pieces"].items():
    p = ours[name]
    assert p["kernels"] == k["kernels"], (name, p["kernels"], k["kernels"])
    assert p["memcpy"]["count"] == k["memcpy"] and p["memset"]["count"] == k["memset"], name
    assert abs(p["gpu_ns"] - k["gpu_ns"]) <= 0.02 * k["gpu_ns"], (name, p["gpu_ns"], k["gpu_ns"])
# nothing dropped: the totals are the pieces plus the unattributed
assert r["kernels"] == sum(p["kernels"] for p in r["pieces"]) + r["unattributed"]["kernels"]
assert sum(k["count"] for k in r["kernel_table"]) == r["kernels"]
assert all(k["pieces"] for k in r["kernel_table"])
PY
done
check "report --ranges train" 0 "$CGSCOPE" report $P/train --ranges
has "report --ranges names" "$out" "train_step"
check "report two ranks" 0 "$CGSCOPE" report $P/ranks
has "report rank columns" "$out" "rank0"
has "report rank columns" "$out" "rank1"
check "report a SIGTERM'd run" 0 "$CGSCOPE" report $P/sigterm
has "report says the signal" "$err" "signal 15"
check "report two files" 0 "$CGSCOPE" report $P/eager/*.cgstrace $P/cudagraph/*.cgstrace --json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['traces'])==2" "$out" ||
    fail "report two files: two traces"

# --graph: every piece of the split is listed, with its node count, run or not
G=samples/cgs_transformer.dynamo.json
check "report --graph" 0 "$CGSCOPE" report $P/eager --graph $G --split-ops cgs.attention --json
"$CGSCOPE" split $G --split-ops cgs.attention --json > "$T/split.json" 2>/dev/null
python3 - "$out" "$T/split.json" <<'PY' || fail "report --graph: the split's pieces"
import json, sys
r = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
listed = [p["name"] for p in r["pieces"] if p.get("in_split")]
assert listed == [p["name"] for p in s["pieces"]], (listed, [p["name"] for p in s["pieces"]])
assert [p["n_nodes"] for p in r["pieces"] if p.get("in_split")] == [p["n_nodes"] for p in s["pieces"]] == [len(p["nodes"]) for p in s["pieces"]]
PY
check "report --graph text" 0 "$CGSCOPE" report $P/eager --graph $G --split-ops cgs.attention
has "report --graph nodes column" "$out" "nodes"
check "report --graph without --split-ops" 2 "$CGSCOPE" report $P/eager --graph x.json
has "report --graph usage" "$err" "go together"

# ---- bad input -------------------------------------------------------------------------------
check "report nothing" 2 "$CGSCOPE" report
check "report missing file" 2 "$CGSCOPE" report "$T/nope.cgstrace"
has "report missing names it" "$err" "nope.cgstrace"
check "report not a trace" 2 "$CGSCOPE" report README.md
has "report not a trace says so" "$err" "not a cgscope CUPTI trace"
mkdir "$T/empty"
check "report empty folder" 2 "$CGSCOPE" report "$T/empty"
has "report empty folder says what to do" "$err" "cgscope profile -o"
f=$(ls $P/eager/*.cgstrace)
head -c 30000 "$f" > "$T/cut.cgstrace"
check "report a cut trace" 0 "$CGSCOPE" report "$T/cut.cgstrace"
has "report a cut trace warns" "$err" "ends inside a record"
head -c 29992 "$f" > "$T/cut8.cgstrace"
check "report a trace cut at a record" 0 "$CGSCOPE" report "$T/cut8.cgstrace" --json
has "report incomplete warns" "$err" "incomplete"
printf 'CGSTRACE\001\000\000\000' > "$T/short.cgstrace"
check "report a header cut short" 2 "$CGSCOPE" report "$T/short.cgstrace"
check "report --json error" 2 "$CGSCOPE" report README.md --json
has "report --json error object" "$err" '"error"'
check "report --kernels junk" 2 "$CGSCOPE" report $P/eager --kernels x

# ---- dot --profile reads what report --json writes ------------------------------------------
if [ -f samples/cgs_transformer.dynamo.json ]; then
    "$CGSCOPE" report $P/eager --json > "$T/rep.json"
    check "dot --profile report.json" 0 "$CGSCOPE" dot samples/cgs_transformer.dynamo.json \
        --split-ops cgs.attention --collapse pieces --profile "$T/rep.json" -o "$T/p.dot"
fi

# ---- profile ---------------------------------------------------------------------------------
check "profile with no command" 2 "$CGSCOPE" profile
has "profile usage" "$err" "cgscope profile -- CMD"
check "profile without its library" 2 env CGSCOPE_CUPTI_LIB="$T/none.so" "$CGSCOPE" profile -- true
has "profile names the library" "$err" "none.so"
LIB=$B/profiler/libcgscope-cupti.so
if [ -f "$LIB" ] && [ -x $B/profiler/nvtx-client ]; then
    C=$B/profiler/nvtx-client
    # CMD's status is kept; ranges are recorded from two threads
    check "profile keeps the status" 3 env CGSCOPE_CUPTI_LIB="$LIB" "$CGSCOPE" profile -o "$T/p" -- sh -c "$C plain; exit 3"
    check "profile plain" 0 env CGSCOPE_CUPTI_LIB="$LIB" "$CGSCOPE" profile -o "$T/p" -- $C plain
    has "profile summary" "$err" "1 process traced"
    [ -f "$T/p/report.json" ] || fail "profile writes report.json"
    check "report of a profile" 0 "$CGSCOPE" report "$T/p" --json
    python3 - "$out" <<'PY' || fail "profile plain: calls per piece"
import json, sys
d = json.load(open(sys.argv[1]))
calls = {p["name"]: p["calls"] for p in d["pieces"]}
assert calls == {"submod_0": 3, "submod_1": 2}, calls
assert all(p["cpu_ns"] >= 1000000 * p["calls"] for p in d["pieces"])  # each call sleeps 1 ms
assert d["traces"][0]["complete"] and d["kernels"] == 0
PY
    # a second run replaces the first run's traces
    check "profile again" 0 env CGSCOPE_CUPTI_LIB="$LIB" "$CGSCOPE" profile -o "$T/p" -- $C plain
    has "profile says it removed old traces" "$err" "removed 1 trace"
    [ "$(ls "$T/p" | grep -c '\.cgstrace$')" = 1 ] || fail "profile again: one trace"
    # buffers fill and the writer thread writes them; nothing is lost
    check "profile many" 0 env CGSCOPE_CUPTI_LIB="$LIB" "$CGSCOPE" profile -q -o "$T/m" -- $C many 200000
    check "report many" 0 "$CGSCOPE" report "$T/m" --json
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['pieces'][0]['calls']==200000, d['pieces'][0]['calls']" "$out" ||
        fail "profile many: every range"
    # a forked child neither hangs nor writes a trace
    check "profile fork" 0 env CGSCOPE_CUPTI_LIB="$LIB" "$CGSCOPE" profile -q -o "$T/f" -- $C fork
    [ "$(ls "$T/f" | grep -c 'cgstrace')" = 1 ] || fail "profile fork: the child wrote a trace"
    # SIGTERM: flushed, complete, the signal recorded, 128+15 kept
    check "profile term" 143 env CGSCOPE_CUPTI_LIB="$LIB" "$CGSCOPE" profile -o "$T/s" -- $C term
    has "profile term says so" "$err" "signal 15"
    check "report term" 0 "$CGSCOPE" report "$T/s" --json
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=d['traces'][0]; assert t['complete'] and t['signal']==15; assert 'submod_9' in [p['name'] for p in d['pieces']]" "$out" ||
        fail "profile term: complete trace with the open range"
    # ranks name the files
    check "profile RANK" 0 env RANK=1 CGSCOPE_CUPTI_LIB="$LIB" "$CGSCOPE" profile -q -o "$T/r" -- $C plain
    ls "$T/r" | grep -q 'rank1\.cgstrace$' || fail "profile RANK: file name"
    # a folder cgscope cannot write
    check "profile into a file" 2 env CGSCOPE_CUPTI_LIB="$LIB" "$CGSCOPE" profile -o README.md -- true
else
    echo "note: $LIB not built (no cupti.h): profile's end-to-end part skipped"
fi
# a model with graph breaks (tests/data/prof/breaks, recorded on the H200 with
# tests/gpu/profile_check.py --phase truth): two Dynamo graphs, each with its submod_0..2, are
# six rows whose kernel, memcpy and memset counts are torch.profiler's (recorded beside them)
B=tests/data/prof/breaks
check "graph breaks: report" 0 "$CGSCOPE" report $B --json
python3 - "$out" $B/torch_profiler.json <<'PY' || fail "graph breaks: pieces per graph, as torch.profiler counts them"
import json, sys
r = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))["pieces"]
ours = {p["name"]: p for p in r["pieces"]}
assert sorted(ours) == sorted(truth), (sorted(ours), sorted(truth))
for n, t in truth.items():
    p = ours[n]
    assert (p["kernels"], p["memcpy"]["count"], p["memset"]["count"]) == \
        (t["kernels"], t["memcpy"], t["memset"]), (n, p, t)
PY
# --graph: the graph file says its compile id (producer.compile_id): its pieces, by their names
check "graph breaks: report --graph" 0 "$CGSCOPE" report $B --graph $B/0_0.dynamo.json --split-ops @sdpa --json
python3 - "$out" $B/torch_profiler.json <<'PY' || fail "graph breaks: --graph takes graph 0/0's pieces"
import json, sys
r = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))["pieces"]
split = [p for p in r["pieces"] if p.get("in_split")]
assert [p["name"] for p in split] == ["submod_0", "submod_1", "submod_2"], split
assert [p["kernels"] for p in split] == [truth["0/0/" + p["name"]]["kernels"] for p in split]
PY
check "graph breaks: --graph-id picks the other graph" 0 "$CGSCOPE" report $B --graph $B/0_0.dynamo.json --split-ops @sdpa --graph-id 1/0 --json
python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))
assert [p['kernels'] for p in r['pieces'] if p.get('in_split')] == [26, 13, 104], r['pieces']" "$out" || fail "--graph-id 1/0"
# a graph that does not say which it is: refused, not guessed
sed 's/,"compile_id":"0\/0"//' $B/0_0.dynamo.json > "$T/nameless.json"
check "graph breaks: which graph?" 2 "$CGSCOPE" report $B --graph "$T/nameless.json" --split-ops @sdpa
has "asks for --graph-id" "$err" "several graphs (0/0, 1/0)"
check "graph breaks: dot --profile" 0 "$CGSCOPE" dot $B/0_0.dynamo.json --split-ops @sdpa --collapse pieces --profile $B -o "$T/b.svg"
check "graph breaks: dot --profile, which graph?" 2 "$CGSCOPE" dot "$T/nameless.json" --split-ops @sdpa --profile $B -o "$T/b.svg"
has "dot asks for --graph-id" "$err" "--graph-id"

# --trace-events: the traces as Chrome trace-event JSON (what Perfetto opens): every kernel and
# memcpy the report counts, each piece's range, GPU times brought onto the CPU clock (no kernel
# before the trace's first event, each on a row of its GPU stream)
check "report --trace-events" 0 "$CGSCOPE" report samples/profile --json --trace-events "$T/trace.json"
python3 - "$T/trace.json" "$out" <<'PY' || fail "trace events: $(head -c 300 "$T/trace.json")"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
rep = json.load(open(sys.argv[2]))
k = [e for e in ev if e.get("cat") == "kernel"]
m = [e for e in ev if e.get("cat") == "memcpy"]
r = [e for e in ev if e.get("cat") == "range"]
assert len(k) == rep["kernels"] and len(m) == rep["memcpy"]["count"], (len(k), len(m))
assert {p["range"] for p in rep["pieces"]} <= {e["name"] for e in r}, "piece ranges"
assert all(e["ph"] == "X" and e["ts"] >= 0 and e["dur"] >= 0 for e in k + m + r)
assert all(e["tid"].startswith("GPU 0 stream ") for e in k), "stream rows"
assert abs(sum(e["dur"] for e in k) * 1e3 - rep["gpu_ns"]) <= 1e-3 * rep["gpu_ns"] + len(k), "GPU time"
# kernels fall within the run: none after the last range ends by more than a second
assert max(e["ts"] for e in k) < max(e["ts"] + e["dur"] for e in r) + 1e6
PY

finish
