#!/bin/sh
# Declared operators (lib/readers/opdecl.h, --ops, $CGSCOPE_OPS, ops/*.ops): a user's own op gets a
# shape rule from a line of text. The graph is Mixtral's transformers.grouped_mm_fallback
# node with its inputs, as torch 2.11 recorded them (tests/gpu/model_graphs.py).
. tests/cli/lib.sh
here=$(dirname "$0")
g="$here/../data/custom-op.dynamo.json"
tmp=$T

# without a declaration the op is a root cause, reported with its name: a copy of the binary
# with no ops/ folder beside it (nor above) has none (ops/transformers.ops ships this one)
mkdir -p "$tmp/bare/bin" && cp "$CGSCOPE" "$tmp/bare/bin/cgscope"
"$tmp/bare/bin/cgscope" shapes --reinfer --json "$g" >"$tmp/out" 2>/dev/null
python3 - "$tmp/out" <<'PY' || fail "undeclared op"
import json, sys
doc = json.load(open(sys.argv[1]))
rc = doc["root_causes"]
assert rc and rc[0]["target"] == "transformers.grouped_mm_fallback", rc
assert rc[0]["status"] == "unknown_op", rc
PY

grep -q "declare it with --ops" "$tmp/out" || fail "no hint to declare an unknown op"
# the shipped declaration (ops/transformers.ops, after transformers' fake implementation)
"$CGSCOPE" shapes --reinfer --check "$g" >"$tmp/out" 2>&1 || fail "the shipped declaration: $(tail -1 $tmp/out)"

# a mistyped target gets a "did you mean" from the registry
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["nodes"][-2]["target"] = "torch.nn.functional.rellu"
json.dump(d, open(sys.argv[2], "w"))' "$g" "$tmp/typo.json"
"$CGSCOPE" shapes --reinfer "$tmp/typo.json" 2>/dev/null |
    grep -q "did you mean 'torch.nn.functional.relu'" || fail "no did-you-mean for a typo"

# [96, 64] x [4, 64, 256] -> [96, 256]: like argument 0, last dim from argument 1's last dim
cat >"$tmp/moe.ops" <<'OPS'
# Mixtral's grouped matmul fallback
transformers.grouped_mm_fallback: like 0 dim -1 = 1 dim -1
OPS
"$CGSCOPE" shapes --reinfer --check --ops "$tmp/moe.ops" "$g" >"$tmp/out" 2>&1 ||
    fail "declared op does not validate: $(cat "$tmp/out")"
CGSCOPE_OPS="$tmp/moe.ops" "$CGSCOPE" shapes --reinfer --check "$g" >/dev/null 2>&1 ||
    fail "CGSCOPE_OPS not read"

# a declaration that gets the size wrong is caught by the record
echo "transformers.grouped_mm_fallback: like 0" >"$tmp/wrong.ops"
"$CGSCOPE" shapes --reinfer --check --ops "$tmp/wrong.ops" "$g" >/dev/null 2>&1
[ $? = 1 ] || fail "a wrong declaration passed --check"

# dtype and several outputs, keyword arguments by name
cat >"$tmp/multi.ops" <<'OPS'
transformers.grouped_mm_fallback: like offs dtype int64, like 0 dim 0 = 7 dtype float16, none
OPS
"$CGSCOPE" shapes --reinfer --json --ops "$tmp/multi.ops" "$g" 2>/dev/null | python3 -c '
import json, sys
doc = json.load(sys.stdin)
n = [x for x in doc["nodes"] if x["name"] == "out"][0]
v = n["val"]
assert n["status"] == "ok" and isinstance(v, list) and len(v) == 3, n
assert v[0]["dtype"] == "int64" and v[1]["shape"] == [7, 64] and v[1]["dtype"] == "float16", v
assert v[1]["stride"] == [64, 1] and v[2] is None, v
' || fail "several outputs"

# bad declaration files: exit 2, file:line:col and what was expected, nothing on stdout
check_bad() {
    printf '%s\n' "$1" >"$tmp/bad.ops"
    "$CGSCOPE" shapes --ops "$tmp/bad.ops" "$g" >"$tmp/o" 2>"$tmp/e"; rc=$?
    [ $rc = 2 ] || fail "bad decl '$1': exit $rc"
    [ -s "$tmp/o" ] && fail "bad decl '$1': output on stdout"
    grep -q "bad.ops:$2: error: .*$3" "$tmp/e" || fail "bad decl '$1': $(cat "$tmp/e")"
}
check_bad "mylib.op like 0" "1:10" "expected ':'"
check_bad "mylib.op: same 0" "1:11" "expected 'like ARG', 'none' or 'unknown'"
check_bad "mylib.op: like 0 dtype float33" "1:31" "expected a dtype"
check_bad "mylib.op: like 0 dim -1 8" "1:25" "expected '='"
check_bad "mylib.op: like 0 dim x = 3" "1:23" "expected a dim number"
check_bad "mylib.op: like 0 extra" "1:18" "expected 'dtype DTYPE'"
check_bad "# ok
mylib.op: like -3" "2:16" "position >= 0"
check_bad "mylib.op_: none mutates 3" "1:26" "the name of an argument the op mutates"
check_bad "mylib.op_: none mutates" "1:24" "the name of an argument the op mutates"
check_bad "mylib.op: like 0 rank 65" "1:25" "expected a rank from 0 to 64"
check_bad "mylib.op: like 0 rank 2 rank 3" "1:31" "'rank' given twice"
"$CGSCOPE" shapes --ops "$tmp/nope.ops" "$g" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "nope.ops" "$tmp/e" || fail "missing --ops file: exit $rc $(cat "$tmp/e")"

# flash-attn (ops/flash_attn.ops): outputs of another rank ('rank N'), and an output left unknown.
# The graph's values are what _flash_attn_forward_fake (flash_attn/flash_attn_interface.py)
# returns for q (2, 128, 8, 64), k and v (2, 256, 8, 64): softmax_lse (batch, heads, seqlen_q)
# float32, p (0,) for return_softmax=False, rng_state (2,) int64.
fa="$here/../data/flash-attn.dynamo.json"
"$CGSCOPE" shapes --reinfer --json "$fa" >"$tmp/fa.json" 2>/dev/null
python3 - "$tmp/fa.json" <<'PY' || fail "flash-attn declarations"
import json, sys
doc = json.load(open(sys.argv[1]))
n = {x["name"]: x for x in doc["nodes"]}
for name in ("out", "lse", "rng"):
    assert n[name]["status"] == "ok" and n[name]["match"] is True, n[name]
assert n["lse"]["val"]["shape"] == [2, 8, 128] and n["lse"]["val"]["dtype"] == "float32", n["lse"]
# p hangs on return_softmax: unknown, never claimed (so never a mismatch)
assert n["p"]["status"] == "partial" and n["p"].get("match") is not False, n["p"]
assert n["fa"]["status"] == "partial" and "declared unknown" in n["fa"]["reason"], n["fa"]
# the reason names the declaration's file and line (it named a freed buffer: "(:11)")
import re
assert re.search(r"\(/\S*/flash_attn\.ops:[0-9]+\)$", n["fa"]["reason"]), n["fa"]["reason"]
assert doc["summary"]["mismatched"] == 0, doc["summary"]
PY
# a dim past the like-argument's rank that the declaration does not give is not made up
echo "flashattn._flash_attn_forward: like 0 rank 5" >"$tmp/rank.ops"
"$CGSCOPE" shapes --reinfer --ops "$tmp/rank.ops" "$fa" 2>/dev/null | grep -q "dim 4 of output 0 is past argument 0's rank" ||
    fail "an undeclared dim past the rank"

# MagiCompiler's (ops/magi_compiler.ops): athena::flash_attn as its README registers it
# (infer_output_meta_fn=["q"]: torch.empty_like(q)) and its NVTX markers (fakes return None)
python3 - "$tmp/magi.json" <<'PY'
import json, sys
t = lambda s, st: {"dtype": "bfloat16", "shape": s, "stride": st, "storage_offset": 0,
                   "device": "cuda:0", "requires_grad": False}
q = t([2, 16, 128, 64], [131072, 64, 1024, 1])  # a transposed q: empty_like keeps its layout
nodes = [{"name": n, "op": "placeholder", "target": n, "args": [], "kwargs": {}, "val": q}
         for n in ("q", "k", "v")]
nodes += [{"name": "push", "op": "call_function", "target": "magi_compile.nvtx_range_push.default",
           "args": ["attn"], "kwargs": {}, "val": None},
          {"name": "o", "op": "call_function", "target": "athena.flash_attn.default",
           "args": [{"node": "q"}, {"node": "k"}, {"node": "v"}], "kwargs": {}, "val": q},
          {"name": "pop", "op": "call_function", "target": "magi_compile.nvtx_range_pop.default",
           "args": [], "kwargs": {}, "val": None},
          {"name": "output", "op": "output", "target": "output", "args": [[{"node": "o"}]],
           "kwargs": {}, "val": None}]
json.dump({"format": "cgscope.graph", "version": 1, "name": "magi", "producer": {"tool": "torch",
           "version": "2.11.0", "stage": "dynamo"}, "symbols": {}, "nodes": nodes}, open(sys.argv[1], "w"))
PY
"$CGSCOPE" shapes --reinfer --check "$tmp/magi.json" >"$tmp/out" 2>&1 ||
    fail "MagiCompiler's declarations: $(tail -3 "$tmp/out")"
"$CGSCOPE" split "$tmp/magi.json" --split-ops @magi --summary >"$tmp/out" 2>&1 &&
    grep -q "3 pieces" "$tmp/out" || fail "athena.flash_attn is a @magi splitting op: $(cat "$tmp/out")"

# a declaration the recorded values bear out: the custom op of tests/gpu/trace_graphs.py's
# custom_op workload (register_fake: torch.empty_like(x)) has no rule; the values torch recorded
# at its call say "like 0", and that line, saved and passed back with --ops, infers the call
CG="tests/data/tracegraphs/custom_op/json/0_0.post_grad.inference.json"
"$CGSCOPE" shapes --json "$CG" >"$tmp/out" 2>&1 || fail "suggested ops: $(tail -3 "$tmp/out")"
python3 - "$tmp/out" "$tmp/suggested.ops" <<'PY' || fail "suggested ops: $(head -c 300 "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["op"]: x for x in d["suggested_ops"]}
assert s["cgs.scale_rows"]["declaration"] == "like 0" and s["cgs.scale_rows"]["recorded"] == 1, s
assert s["cgs.scale_rows"]["target"] == "cgs.scale_rows.default", s
open(sys.argv[2], "w").write("".join("%s: %s\n" % (x["op"], x["declaration"]) for x in s.values()))
PY
"$CGSCOPE" shapes --reinfer --json --ops "$tmp/suggested.ops" "$CG" >"$tmp/out" 2>&1
python3 - "$tmp/out" <<'PY' || fail "the suggested declaration infers the call: $(head -c 300 "$tmp/out")"
import json, sys
n = {x["name"]: x for x in json.load(open(sys.argv[1]))["nodes"]}
assert n["scale_rows"]["status"] == "ok" and n["scale_rows"]["match"] is True, n["scale_rows"]
assert n["relu"]["status"] == "ok" and n["relu"]["match"] is True, n["relu"]
PY
# no declaration where none gives the record: a value of a shape no argument has
python3 - "$tmp/odd.json" <<'PY'
import json, sys
def t(shape):
    st, acc = [], 1
    for d in reversed(shape):
        st.insert(0, acc); acc *= d
    return {"dtype": "float32", "shape": shape, "stride": st, "storage_offset": 0, "device": "cuda:0"}
nodes = [{"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}, "val": t([4, 8])},
         {"name": "y", "op": "call_function", "target": "mylib.pool.default", "args": [{"node": "x"}],
          "kwargs": {}, "val": t([4, 2])},
         {"name": "output", "op": "output", "target": "output", "args": [[{"node": "y"}]],
          "kwargs": {}, "val": None}]
json.dump({"format": "cgscope.graph", "version": 1, "name": "odd", "producer": {"tool": "torch",
           "version": "2.11.0", "stage": "dynamo"}, "symbols": {}, "nodes": nodes}, open(sys.argv[1], "w"))
PY
"$CGSCOPE" shapes --json "$tmp/odd.json" >"$tmp/out" 2>&1
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['suggested_ops'] == []" "$tmp/out" ||
    fail "no suggestion without one that fits: $(head -c 300 "$tmp/out")"

finish
