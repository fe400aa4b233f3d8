#!/bin/sh
# cgscope diff on pairs of runs torch made on the H200, each differing by one change made on
# purpose (tests/data/diffpairs, made by tests/gpu/diff_pairs.py; its README has torch's own
# counters of each run). diff must name exactly that change, with where and both values, and
# nothing else; what is expected of each is read here from the logs themselves
# (tests/torchlog.py: the printed graphs' annotations and calls, the compilation metrics, the
# source the program ran), never from diff's own output. Besides each change, the changes it
# makes to the caches' keys are true and allowed (a graph that changed has another key).
. tests/cli/lib.sh
P=tests/data/diffpairs

pair() { # NAME [ARGS...]: diff A B --json of pair NAME into $out, exit status kept in $rc
    name=$1
    shift
    "$CGSCOPE" diff $P/$name/a $P/$name/b --json "$@" >"$out" 2>"$err"
    rc=$?
}

truth() { # NAME DESC: python from standard input with d (diff's JSON), ga and gb (the logs'
    # graphs by (compile id, stage)), ra and rb (the logs' records) and T (tests/torchlog)
    python3 - "$out" $P/$1/a $P/$1/b <<PY || fail "$1: $2"
import json, sys
sys.path.insert(0, "tests")
import torchlog as T
d = json.load(open(sys.argv[1]))
ga, gb = T.graphs(sys.argv[2]), T.graphs(sys.argv[3])
ra, rb = T.records(sys.argv[2]), T.records(sys.argv[3])
msgs = [c["message"] for c in d["changes"]]
def kinds(*want):
    got = sorted(c["kind"] for c in d["changes"] if c["kind"] != "cache_key")
    assert got == sorted(want), (want, msgs)
def of(kind, stage):
    c = [c for c in d["changes"] if c["kind"] == kind and c["subject"] == "graph 0/0:" + stage]
    assert len(c) == 1, (kind, stage, msgs)
    return c[0]
def ops_as_logged(stage, cid="0/0"):
    a, b = ga[(cid, stage)].ops, gb[(cid, stage)].ops
    c = of("ops", stage)
    want_a = {t: a[t] for t in set(a) | set(b) if a[t] != b[t]}
    want_b = {t: b[t] for t in want_a}
    assert (T.counts(c["a"]), T.counts(c["b"])) == (want_a, want_b), (c, want_a, want_b)
def nodes_as_logged(kind, part, stage):
    n = len(T.changed(ga[("0/0", stage)], gb[("0/0", stage)], part))
    c = of(kind, stage)
    assert n and c["message"].startswith("graph 0/0:%s: %d node%s changed %s" % (
        stage, n, "s" if n > 1 else "", kind)), (n, c["message"])
$(cat)
PY
}

# the same program twice: nothing, though its one compile took far less in the second process
# (the first process on the machine): the noise the default bounds leave out
pair same
[ $rc = 0 ] || fail "same: exit $rc"
truth same "no change, its compile times apart" <<'PY'
assert d["changes"] == [] and d["regressions"] == [], msgs
assert sorted(p["what"] for p in d["pairs"]) == ["compile", "frame", "graph", "graph", "graph"]
ms = [r["compilation_metrics"]["entire_frame_compile_time_s"] for r in (ra, rb)
      for k, r, _ in r if k == "compilation_metrics"]
assert len(ms) == 2 and max(ms) / min(ms) > 1.5, ms
PY

# a print inside forward: a graph break where the print is, the rest of forward in a resumed
# frame of its own, and what 0/0 no longer holds (fc2 and the sum) in each of its graphs
pair print_break
[ $rc = 1 ] || fail "print_break: exit $rc, expected 1 (a new graph break)"
truth print_break "the graph break at the print, the graph cut in two" <<'PY'
kinds("graph_break", "graph", "ops", "ops", "ops")
gb_ = [c for c in d["changes"] if c["kind"] == "graph_break"][0]
line = int(gb_["message"].split("diff_pairs.py:")[1].split()[0])
assert "print(" in open("tests/gpu/diff_pairs.py").read().split("\n")[line - 1], gb_
assert gb_["worse"] and "print" in gb_["message"], gb_
assert [c["kind"] for c in d["regressions"]] == ["graph_break"], d["regressions"]
fr = [c for c in d["changes"] if c["kind"] == "graph"][0]
assert fr["message"].startswith("frame torch_dynamo_resume_in_forward_at_%d " % line), fr
assert ("1/0", "dynamo") in gb and ("1/0", "dynamo") not in ga
for stage in ("dynamo", "aot_inference", "post_grad"):
    ops_as_logged(stage)
    assert all(v == 0 or v < T.counts(of("ops", stage)["a"])[t]
               for t, v in T.counts(of("ops", stage)["b"]).items()), stage  # only less
PY

# gelu swapped for relu: in each graph gelu's operators out, relu's in; nothing else
pair gelu_relu
[ $rc = 0 ] || fail "gelu_relu: exit $rc"
truth gelu_relu "gelu's operators out, relu's in" <<'PY'
kinds("ops", "ops", "ops")
for stage in ("dynamo", "aot_inference", "post_grad"):
    ops_as_logged(stage)
assert T.counts(of("ops", "dynamo")["b"]) == {"torch._C._nn.gelu": 0, "torch.nn.functional.relu": 1}
PY

# a wider hidden layer: shapes, on the nodes whose annotation says so; operators the same
pair wider
[ $rc = 0 ] || fail "wider: exit $rc"
truth wider "shapes only" <<'PY'
kinds("shapes", "shapes", "shapes")
for stage in ("dynamo", "aot_inference", "post_grad"):
    nodes_as_logged("shapes", 1, stage)
c = of("shapes", "dynamo")
assert "l_self_modules_fc1_parameters_weight_: [64, 32] -> [128, 32]" in c["message"], c
PY

# a second attention call: one more attention operator in each graph (and its getitem)
pair second_attn
[ $rc = 0 ] || fail "second_attn: exit $rc"
truth second_attn "one more attention" <<'PY'
kinds("ops", "ops", "ops")
for stage in ("dynamo", "aot_inference", "post_grad"):
    ops_as_logged(stage)
assert T.counts(of("ops", "dynamo")["b"]) == {"torch._C._nn.scaled_dot_product_attention": 2}
PY

# ... and under a split at attention, the pieces: the dynamo graph's count of split_module's
# pieces (each attention call alone) from the calls the log prints
pair second_attn --split-ops @sdpa
[ $rc = 1 ] || fail "second_attn split: exit $rc, expected 1 (more pieces)"
truth second_attn "more pieces under a split at attention" <<'PY'
kinds("ops", "ops", "ops", "pieces", "pieces", "pieces")
sdpa = lambda t: "scaled_dot_product" in t
na, nb = ga[("0/0", "dynamo")].pieces(sdpa), gb[("0/0", "dynamo")].pieces(sdpa)
c = of("pieces", "dynamo")
assert (na, nb) == (3, 4) and c["message"].startswith("graph 0/0:dynamo: %d pieces in A, %d in B; new cuts before y_1" % (na, nb)), c
assert c["worse"]
PY

# channels-last input: strides, on the nodes whose annotation says so; shapes the same
pair channels_last
[ $rc = 0 ] || fail "channels_last: exit $rc"
truth channels_last "strides only" <<'PY'
kinds("strides", "strides", "strides")
for stage in ("dynamo", "aot_inference", "post_grad"):
    nodes_as_logged("strides", 2, stage)
assert "l_x_: [768, 256, 16, 1] -> [768, 1, 48, 3]" in of("strides", "dynamo")["message"]
PY

# autocast to bfloat16: dtypes, and the casts it adds (post-grad: the first linear is one addmm
# in bf16 where f32 had mm + add); no shape changed (the nodes pair by where they come from)
pair autocast
[ $rc = 0 ] || fail "autocast: exit $rc"
truth autocast "dtypes and casts" <<'PY'
kinds("ops", "ops", "dtypes", "dtypes", "dtypes")
for stage in ("aot_inference", "post_grad"):
    ops_as_logged(stage)
nodes_as_logged("dtypes", 0, "dynamo")
assert "h: f32 -> bf16" in of("dtypes", "dynamo")["message"]
c = of("ops", "post_grad")
assert "(mm_default in A)" in c["message"] and "+1 aten.addmm.default (addmm in B)" in c["message"], c
PY

# three batch sizes: a recompile on the second, with torch's guard failure, and the recompiled
# graph's batch a symbol
pair dynamic
[ $rc = 1 ] || fail "dynamic: exit $rc, expected 1 (more recompiles)"
truth dynamic "the recompile and its symbolic graph" <<'PY'
kinds("recompiles", "symbols")
r = [c for c in d["changes"] if c["kind"] == "recompiles"][0]
why = [x["compilation_metrics"]["recompile_reason"] for k, x, _ in rb
       if k == "compilation_metrics" and x["compilation_metrics"]["compile_id"] == "0/1"]
assert why and "expected 8, actual 12" in why[0] and r["message"].endswith(why[0]), (why, r)
assert (r["a"], r["b"], r["worse"]) == ("1 compile", "2 compiles", True), r
s = [c for c in d["changes"] if c["kind"] == "symbols"][0]
sym = [n for n, v in gb[("0/1", "dynamo")].values.items() if v and v[0] == "sym"]
assert sym and "0/1:dynamo" in s["message"] and ("%s: symint %s" % (sym[0], sym[0])) in s["message"], (sym, s)
assert ("0/1", "dynamo") not in ga
PY

# mark_dynamic on the batch: the inputs and every node with the batch dim a symbol, and the
# new SymInt input; no shape changed (inputs pair by position among tensors)
pair mark_dynamic
[ $rc = 0 ] || fail "mark_dynamic: exit $rc"
truth mark_dynamic "symbols only" <<'PY'
kinds("symbols", "symbols", "symbols")
nodes_as_logged("symbols", 1, "dynamo")
for stage in ("aot_inference", "post_grad"):
    x = [n for n, v in gb[("0/0", stage)].values.items() if v and v[0] != "sym" and "s77" in v[1]]
    c = of("symbols", stage)
    assert c["message"].startswith("graph 0/0:%s: %d nodes changed symbols" % (stage, len(x))), (x, c)
    arg = [n for n in x if n.startswith("arg")]
    assert "%s: [8, 32] -> [s77, 32]" % arg[0] in c["message"], (arg, c)
PY

# a backend that raises: one compile failure with torch's own words, nothing else (the stages
# the failed compile did not reach are that failure, not changes of their own)
pair backend_fail
[ $rc = 1 ] || fail "backend_fail: exit $rc, expected 1 (a new compile failure)"
truth backend_fail "the failure alone" <<'PY'
kinds("compile_failure")
m = [x["compilation_metrics"] for k, x, _ in rb if k == "compilation_metrics"][0]
c = d["changes"][0]
assert m["fail_type"] == "BackendCompilerFailed" and m["fail_type"] in c["message"], (m, c)
assert "a backend that fails on purpose" in m["fail_reason"] and "a backend that fails on purpose" in c["message"]
assert c["worse"] and c["compile_ids"] == "0/0" and len(d["regressions"]) == 1
PY
# reversed: a failure gone is no regression
check "backend_fail reversed" 0 "$CGSCOPE" diff $P/backend_fail/b $P/backend_fail/a
has "backend_fail reversed" "$out" "failed in A, compiles in B"
has "backend_fail reversed: nothing else" "$out" "1 change, 0 regressions"

# a gate on compile time asks for its finer bound: then the same program's noise shows (B, the
# first process on the machine, slower)
check "same, gated on compile time" 1 "$CGSCOPE" diff $P/same/b $P/same/a --fail-on compile-time:20%
has "same, gated" "$out" "compile_time: compile 0/0 of forward (diff_pairs.py) took"

# profiles (cgscope profile on the H200): the workload twice is no change; with attention by
# the math backend, the two pieces that run attention (as A's own report attributes its
# attention kernel) are slower and nothing else but the strides Dynamo traced under it
Q=$P/prof
check "prof: the same workload twice" 0 "$CGSCOPE" diff $Q/a $Q/a2
has "prof: the same workload twice" "$out" "0 changes, 0 regressions"
check "prof: report of A" 0 "$CGSCOPE" report $Q/a --json
cp "$out" "$T/report-a.json"
check "prof: slower attention" 0 "$CGSCOPE" diff $Q/a $Q/slow --json
python3 - "$out" "$T/report-a.json" $Q/a/0_0.dynamo.json $Q/slow/0_0.dynamo.json <<'PY' || fail "prof: the attention pieces slower, the strides traced under the math backend"
import json, sys
d, rep = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ga, gb = (json.load(open(p)) for p in sys.argv[3:5])
# the pieces that run the attention kernel in A, by A's report
attn = sorted(p["name"] for p in rep["pieces"]
              if any("fmha" in k["name"] or "attention" in k["name"].lower() for k in p["top_kernels"]))
t = sorted(c["subject"] for c in d["changes"] if c["kind"] == "gpu_time")
assert attn and t == ["piece " + p for p in attn], (attn, t)
assert all(c["pct"] > 50 and c["worse"] for c in d["changes"] if c["kind"] == "gpu_time")
nodes = lambda g: {n["name"]: n.get("val") for n in g["nodes"]}
na, nb = nodes(ga), nodes(gb)
strided = [n for n in na if isinstance(na[n], dict) and isinstance(nb.get(n), dict)
           and na[n].get("stride") != nb[n].get("stride")]
s = [c for c in d["changes"] if c["kind"] == "strides"]
assert len(s) == 1 and s[0]["message"].startswith("graph 0_0.dynamo.json: %d nodes changed strides" % len(strided)), (strided, s)
assert sorted(c["kind"] for c in d["changes"]) == ["gpu_time"] * len(attn) + ["strides"]
PY
check "prof: slower attention, gated" 1 "$CGSCOPE" diff $Q/a $Q/slow --fail-on gpu-time:5%
has "prof: gated" "$out" "2 regressions"

# Inductor's layout decision: ResNet-18's post-grad graph torch made static and with
# dynamic=True (the fixtures, beside PyTorch's own decision for each): the layout optimisation
# on in one, off in the other, as PyTorch decided, and the symbols; nothing else
if [ -d "$FIXTURES/post_grad" ]; then
    G=$FIXTURES/post_grad
    check "layout: resnet18 static against dynamic" 0 "$CGSCOPE" diff $G/resnet18_eval.json \
        $G/resnet18_dyn.json --json
    python3 - "$out" $G/resnet18_eval.layout.json $G/resnet18_dyn.layout.json <<'PY' || fail "layout: PyTorch's decisions, on in A, off in B"
import json, sys
d = json.load(open(sys.argv[1]))
ta, tb = (json.load(open(p))["layout_opt"] for p in sys.argv[2:4])
assert (ta, tb) == (True, False), (ta, tb)
assert sorted(c["kind"] for c in d["changes"]) == ["layout", "symbols"], [c["message"] for c in d["changes"]]
c = [c for c in d["changes"] if c["kind"] == "layout"][0]
onoff = lambda v: "on" if v else "off"
assert c["a"].startswith("layout optimisation " + onoff(ta)) and c["b"].startswith("layout optimisation " + onoff(tb)), c
assert "symbolic shapes" in c["message"], c
PY
    check "layout: gated" 1 "$CGSCOPE" diff $G/resnet18_eval.json $G/resnet18_dyn.json --fail-on layout
else
    echo "skipped: the layout pair (no fixtures at $FIXTURES)"
fi

finish
