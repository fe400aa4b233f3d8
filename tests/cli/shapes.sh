#!/bin/sh
# cgscope shapes: exit codes and messages for bad usage and bad input, the
# --json contract keys, --reinfer against a fixture recorded by torch 2.11,
# and --bind (bytes per node at a batch size).
. tests/cli/lib.sh

# usage errors: exit 2, the message on stderr, nothing on stdout
"$CGSCOPE" shapes >$out 2>$err; rc=$?
[ "$rc" = 2 ] || fail "no GRAPH: exit $rc"
grep -q "expected one GRAPH" $err || fail "no GRAPH: $(cat $err)"
[ -s $out ] && fail "no GRAPH: wrote to stdout"
"$CGSCOPE" shapes --bind s0 x.json >$out 2>$err; rc=$?
[ "$rc" = 2 ] || fail "--bind without =: exit $rc"
grep -q "expects SYM=INT (SYM=FLOAT for a SymFloat), got 's0'" $err || fail "--bind without =: $(cat $err)"
"$CGSCOPE" shapes --bind s0=ten x.json >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || fail "--bind s0=ten: exit $rc"
"$CGSCOPE" shapes --frobnicate x.json >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || fail "unknown option: exit $rc"
"$CGSCOPE" shapes /nonexistent/graph.json >$out 2>$err; rc=$?
[ "$rc" = 2 ] || fail "missing file: exit $rc"
grep -q "/nonexistent/graph.json" $err || fail "missing file: message lacks the path: $(cat $err)"
if [ -f tests/bad/cycle.json ]; then
    "$CGSCOPE" shapes --json tests/bad/cycle.json >$out 2>/dev/null; rc=$?
    [ "$rc" = 2 ] || fail "bad graph: exit $rc"
    [ -s $out ] && fail "bad graph: wrote to stdout"
fi
"$CGSCOPE" shapes --help >$out 2>&1 || fail "--help: exit $?"
grep -q -- "--reinfer" $out || fail "--help lacks --reinfer"

g="$FIXTURES/dynamo/resnet18_dyn.json"
if [ ! -f "$g" ]; then echo "no fixtures at $FIXTURES"; exit 77; fi

# --reinfer --json: contract keys; every tensor node matches what torch recorded
"$CGSCOPE" shapes --reinfer --json "$g" >$out 2>$err || fail "reinfer: exit $?"
python3 - "$out" <<'PY' || fails=$((fails + 1))
import json, sys
doc = json.load(open(sys.argv[1]))
s = doc["summary"]
for k in ("nodes", "inferred", "matched", "mismatched", "unknown"):
    assert k in s, "summary lacks " + k
for n in doc["nodes"]:
    assert {"name", "val", "status"} <= set(n), n
assert s["mismatched"] == 0 and s["unknown"] == 0, s
assert s["matched"] >= 60, s
conv = [n for n in doc["nodes"] if n["name"] == "x"][0]
# torch: conv1 of [s77, 3, s53, s53] gives [s77, 64, (s53 - 1)//2 + 1, ...]
assert conv["val"]["shape"][:2] == ["s77", 64], conv["val"]
assert conv["status"] == "ok"
# item() of a float tensor is data-dependent: FakeTensor gives an unbacked SymFloat
# (shape_env.create_unbacked_symfloat), a value with no number to compare
items = [n for n in doc["nodes"] if n["target"] == "item"]
assert items and all(n["status"] == "ok" and n.get("match") is None for n in items), items[:1]
PY

# --bind: bytes per node; conv1 output at s77=4, s53=224 is 4*64*112*112 float32
"$CGSCOPE" shapes --reinfer --json --bind s77=4 --bind s53=224 "$g" >$out 2>$err || fail "bind: exit $?"
python3 - "$out" <<'PY' || fails=$((fails + 1))
import json, sys
doc = json.load(open(sys.argv[1]))
conv = [n for n in doc["nodes"] if n["name"] == "x"][0]
assert conv["bytes"] == 4 * 64 * 112 * 112 * 4, conv.get("bytes")
assert conv["bound"]["shape"] == [4, 64, 112, 112], conv["bound"]
assert conv["bound"]["stride"] == [64 * 112 * 112, 112 * 112, 112, 1], conv["bound"]
assert doc["bindings"] == {"s77": 4, "s53": 224}
assert doc["total_bytes"] and doc["total_bytes"] > conv["bytes"]
PY
# --split-ops: bytes per piece; the pieces are torch's split_module's (names from its sidecar)
t="$FIXTURES/dynamo/cgs_transformer.json"
"$CGSCOPE" shapes --reinfer --json --split-ops cgs.attention "$t" >$out 2>$err || fail "split-ops: exit $?"
python3 - "$out" "$FIXTURES/dynamo/cgs_transformer.split-attn.json" <<'PY' || fails=$((fails + 1))
import json, sys
doc = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
assert [p["name"] for p in doc["pieces"]] == [p["name"] for p in want["pieces"]], doc["pieces"]
# every piece holds torch's nodes (the sidecar lists them by name)
assert [p["nodes"] for p in doc["pieces"]] == [p["nodes"] for p in want["pieces"]], doc["pieces"]
# the attention piece holds one node: a float32 [2, 4, 16, 32] output
att = [p for p in doc["pieces"] if p["n_nodes"] == 1][0]
assert att["bytes"] == 2 * 4 * 16 * 32 * 4, att
PY
# a piece is written the same by every command: split, dot and shapes agree on each key
"$CGSCOPE" split --json --split-ops cgs.attention "$t" > "$T/split.json" || fail "split json"
"$CGSCOPE" dot --json --split-ops cgs.attention --collapse pieces -o "$T/p.dot" "$t" > "$T/dot.json" || fail "dot json"
python3 - "$out" "$T/split.json" "$T/dot.json" <<'PY' || fail "one piece writer"
import json, sys
sh, sp, dt = (json.load(open(f))["pieces"] for f in sys.argv[1:])
keys = ["name", "graph_id", "is_splitting_graph", "nodes", "n_nodes", "inputs", "outputs", "compile_index"]
for a, b, c in zip(sh, sp, dt):
    for k in keys:
        assert a[k] == b[k] == c[k], (k, a[k], b[k], c[k])
    assert a["n_nodes"] == len(a["nodes"])
assert len(sh) == len(sp) == len(dt)
PY
"$CGSCOPE" shapes --split-ops , "$t" >/dev/null 2>&1; rc=$?
[ "$rc" = 0 ] || [ "$rc" = 2 ] || fail "empty --split-ops: exit $rc"

# --bind refuses what would evaluate nothing or nonsense: an unknown symbol (named with the
# graph's own), a value outside the recorded range, an integer past 64 bits
"$CGSCOPE" shapes --bind s99=3 "$g" >/dev/null 2>$err; rc=$?
[ $rc = 2 ] || fail "unknown symbol: exit $rc"
grep -q "no symbol 's99' (its symbols: s53, s77)" $err || fail "unknown symbol: $(cat $err)"
"$CGSCOPE" shapes --bind s77=1 "$g" >/dev/null 2>$err; rc=$?
[ $rc = 2 ] && grep -q "outside the symbol's recorded range \[2, " $err ||
    fail "out-of-range --bind: exit $rc $(cat $err)"
"$CGSCOPE" shapes --bind s77=99999999999999999999 "$g" >/dev/null 2>$err; rc=$?
[ $rc = 2 ] || fail "--bind past 64 bits: exit $rc"

# --check: a CI gate; exit 1 when not every node is inferred exactly (here: an operator
# nobody knows, and the two nodes it blocks)
"$CGSCOPE" shapes --check --reinfer "$FIXTURES/dynamo/resnet18_eval.json" >/dev/null 2>&1; rc=$?
[ "$rc" = 0 ] || fail "--check on a graph torch agrees with: exit $rc"
u=$(mktemp -d)
python3 - "$FIXTURES/dynamo/tiny_cnn_eval.json" "$u/g.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for n in doc["nodes"]:
    if n["op"] == "call_function":
        n["target"] = "mylib.nobody_knows"
        break
json.dump(doc, open(sys.argv[2], "w"))
PY
"$CGSCOPE" shapes --check --reinfer "$u/g.json" >/dev/null 2>$err; rc=$?
[ "$rc" = 1 ] || fail "--check on a graph with an unknown op: exit $rc"
grep -q "check failed: 0 mismatched" $err || fail "--check message: $(cat $err)"
# the unknown op is the root cause of everything after it: partial nodes pointing at it,
# ranked first, and no node an error because of it
"$CGSCOPE" shapes --reinfer --json "$u/g.json" 2>/dev/null | python3 -c '
import json, sys
doc = json.load(sys.stdin)
rc = doc["root_causes"]
assert rc and rc[0]["target"] == "mylib.nobody_knows" and rc[0]["blocks"] >= 3, rc[:2]
blocked = [n for n in doc["nodes"] if n.get("root_cause") == rc[0]["node"]]
assert len(blocked) == rc[0]["blocks"], (len(blocked), rc[0])
assert not [n for n in doc["nodes"] if n["status"] == "error"], "an error for an unknown input"
assert all(n["status"] == "partial" and n["reason"].startswith("blocked by")
           for n in blocked if n["name"] != rc[0]["node"] and n["op"] != "output"), blocked[:3]
' || fail "root causes of an unknown op"
"$CGSCOPE" shapes --reinfer "$u/g.json" 2>/dev/null | head -1 | grep -q "^root causes (1)" ||
    fail "text output does not lead with the root causes"
rm -rf "$u"

# a Dynamo graph of x[[1, 2]] + x[1:3, [0]].sum() + x[1, 2] (tests/gpu: the bridge writes list
# indices as {"list": [...]}): x[[1, 2]] is advanced indexing, x[1, 2] two plain indices
li="$(dirname "$0")/../data/listindex.dynamo.json"
"$CGSCOPE" shapes --reinfer --json "$li" 2>/dev/null | python3 -c '
import json, sys
doc = json.load(sys.stdin)
adv = [n for n in doc["nodes"] if n["target"] == "operator.getitem"][0]
assert adv["val"]["shape"] == [2, 3] and adv["match"] is True, adv
' || fail "list index read as a tuple"

# dimensions in torch's sympy vocabulary that cgscope keeps as opaque calls (Piecewise from
# narrow with an unbacked size, TruncToInt from a symbolic interpolate): they load, flow
# through the rules as atoms, compare by text and evaluate under --bind the way Python does
# (int(1.7 * 10.0) == 17); a call torch does not write is still a format error
p=$(mktemp)
cat >"$p" <<'JSON'
{"format": "cgscope.graph", "version": 1, "name": "sympy_dims",
 "producer": {"tool": "torch", "version": "2.11.0", "stage": "dynamo", "is_inference": true},
 "symbols": {"s7": {"hint": 10, "min": 2, "max": null}, "u0": {"hint": null, "min": null, "max": null}},
 "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {},
   "val": {"dtype": "float32", "shape": [2, "TruncToInt(1.7*ToFloat(s7))"],
           "stride": ["TruncToInt(1.7*ToFloat(s7))", 1], "storage_offset": 0,
           "device": "cpu", "requires_grad": false}},
  {"name": "w", "op": "placeholder", "target": "w", "args": [], "kwargs": {},
   "val": {"dtype": "float32", "shape": ["Piecewise((1, Eq(u0, -2) & (u0 < 0)), (0, True))", 3],
           "stride": [3, 1], "storage_offset": 0, "device": "cpu", "requires_grad": false}},
  {"name": "y", "op": "call_function", "target": "torch.relu", "args": [{"node": "x"}],
   "kwargs": {}, "val": {"dtype": "float32", "shape": [2, "TruncToInt(1.7*ToFloat(s7))"],
   "stride": ["Max(1, TruncToInt(1.7*ToFloat(s7)))", 1], "storage_offset": 0, "device": "cpu",
   "requires_grad": false}},
  {"name": "z", "op": "call_function", "target": "torch.cat", "args": [[{"node": "y"}, {"node": "y"}], 1],
   "kwargs": {}, "val": {"dtype": "float32", "shape": [2, "2*TruncToInt(1.7*ToFloat(s7))"],
   "stride": ["Max(1, 2*TruncToInt(1.7*ToFloat(s7)))", 1], "storage_offset": 0, "device": "cpu",
   "requires_grad": false}},
  {"name": "v", "op": "call_function", "target": "torch.sigmoid", "args": [{"node": "w"}],
   "kwargs": {}, "val": {"dtype": "float32",
   "shape": ["Piecewise((1, Eq(u0, -2) & (u0 < 0)), (0, True))", 3], "stride": [3, 1],
   "storage_offset": 0, "device": "cpu", "requires_grad": false}},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "z"}, {"node": "v"}]],
   "kwargs": {}, "val": null}]}
JSON
"$CGSCOPE" shapes --reinfer --check "$p" >$out 2>$err || fail "sympy dims: exit $?: $(cat $err)"
grep -q "3 matched, 0 mismatched" $out || fail "sympy dims: $(cat $out)"
"$CGSCOPE" shapes --bind s7=10 --bind u0=-2 --json "$p" 2>$err | python3 -c '
import json, sys
by = {n["name"]: n for n in json.load(sys.stdin)["nodes"]}
assert by["z"]["bound"]["shape"] == [2, 34], by["z"]
assert by["z"]["bound"]["stride"] == [34, 1], by["z"]
assert by["v"]["bound"]["shape"] == [1, 3], by["v"]
' || fail "sympy dims under --bind: $(cat $err)"
sed 's/TruncToInt(1.7\*ToFloat(s7))"\],/TruncToInt(1.7*ToFloat(s7)"],/' "$p" >"$p.bad"
check "unbalanced sympy call" 2 "$CGSCOPE" shapes "$p.bad"
has "unbalanced sympy call" $err "expected ')'"
# a call over more symbols than an atom holds (64) loads as an unknown dim, with a warning
many=$(python3 -c "print('+'.join('ToFloat(s%d)' % i for i in range(70)))")
sed "s/TruncToInt(1.7\*ToFloat(s7))\"\],/TruncToInt($many)\"],/" "$p" >"$p.many"
check "sympy call of 70 symbols" 0 "$CGSCOPE" shapes "$p.many"
has "sympy call of 70 symbols" $err "loaded as unknown"
rm -f "$p.many"
rm -f "$p" "$p.bad"

# sizes in torch's sympy functions and data-dependent sizes (torch 2.11 Dynamo graphs with
# dynamic shapes, tests/gpu/sympy_dims.py): interpolate by a float scale (TruncToInt, Max(1, ...)
# in the strides), pooling after it, narrow/slice by an .item() (fresh unbacked sizes and
# offsets, numbered as torch numbers them), the SymBool asserts around them: every value
# torch recorded is matched, nothing is left partial
for h in "$(dirname "$0")"/../data/symdims/*.json; do
    "$CGSCOPE" shapes --reinfer --json "$h" 2>/dev/null | python3 -c '
import json, sys
doc = json.load(sys.stdin)
s = doc["summary"]
assert s["mismatched"] == 0 and s["partial"] == 0 and s["validated"], s
assert s["matched"] >= 2, s
' || fail "sympy / unbacked sizes: $h"
done

# higher-order ops (torch 2.11 graphs, tests/gpu/hop_graphs.py): their bodies are entered with
# the operands' values, and the op's own value matches what torch recorded
for h in "$(dirname "$0")"/../data/hop/*.json; do
    "$CGSCOPE" shapes --reinfer --json --ops "$(dirname "$0")/../data/hop/hop.ops" "$h" \
        2>/dev/null | python3 -c '
import json, sys
doc = json.load(sys.stdin)
hops = [n for n in doc["nodes"] if n["target"].startswith("higher_order.")]
# a HOP whose value torch does not record (None from triton_kernel_wrapper_mutation, the
# dict of triton_kernel_wrapper_functional) has nothing to match: its users are checked
assert hops and all(n["status"] == "ok" and n.get("match", True) is True for n in hops), hops
assert doc["summary"]["validated"], doc["summary"]
' || fail "higher-order op body: $h"
done
# an op whose schema returns nothing (aten._print) has the value None
"$CGSCOPE" shapes --reinfer --check "$(dirname "$0")/../data/print.export.json" >/dev/null 2>&1 ||
    fail "aten._print (returns nothing) not validated"
# a body torch cannot trace through cgscope: the op is partial, pointing into the body
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for sub in d["subgraphs"].values():
    for n in sub["nodes"]:
        if n["op"] == "call_function":
            n["target"] = "mylib.opaque"
            break
json.dump(d, open(sys.argv[2], "w"))' "$(dirname "$0")/../data/hop/no_grad.export.json" $err.hop.json
"$CGSCOPE" shapes --reinfer --json $err.hop.json 2>/dev/null | python3 -c '
import json, sys
doc = json.load(sys.stdin)
h = [n for n in doc["nodes"] if n["target"].startswith("higher_order.")][0]
assert h["status"] == "partial" and "in the body" in h["reason"], h
' || fail "an unknown op inside a body"
rm -f $err.hop.json

# torch.tensor's own rules (torch 2.11): the nesting is the shape; bools give bool, ints and
# SymInts int64, any float the default float32, [] float32 of shape [0]; dtype= and device=
# win; a ragged nesting raises (ValueError in torch)
check "torch.tensor data" 0 "$CGSCOPE" shapes --json tests/data/tensor-data.dynamo.json
python3 - "$out" <<'PY' || fail "torch.tensor data: shapes and dtypes"
import json, sys
d = {n["name"]: n for n in json.load(open(sys.argv[1]))["nodes"]}
want = {"a": ("int64", [2, 2], "cpu"), "b": ("bool", [3], "cpu"), "c": ("float32", [2], "cpu"),
        "d": ("float32", [0], "cpu"), "e": ("float16", [2], "cuda:0"), "f": ("int64", [2], "cpu"),
        "h": ("float64", [2, 2], "cpu")}
for k, (dt, shape, dev) in want.items():
    v = d[k]["val"]
    assert (d[k]["status"], v["dtype"], v["shape"], v["device"]) == ("ok", dt, shape, dev), (k, d[k])
assert d["g"]["status"] == "error" and "rectangular" in d["g"]["reason"], d["g"]
PY
# bodies that would never end: a body invoking itself (a fuzzed invoke_subgraph graph: it ran
# for hours) and twelve levels of bodies each invoking the next twice (8,190 entries): each a
# reason on the node, quickly
check "a body that calls itself" 0 timeout 20 "$CGSCOPE" shapes --reinfer \
    tests/fuzz/regress/graph/invoke-subgraph-calls-itself
has "a body that calls itself" $out "the op's body calls itself (through 'subgraph_0')"
check "bodies entering bodies twice, 12 deep" 0 timeout 20 "$CGSCOPE" shapes --reinfer \
    tests/data/hostile/invoke-fanout-12-deep.json
has "bodies entering bodies twice" $out "more than 4096 bodies entered"
# one registry entry for both spellings of Python's operator module (a tool that writes
# getitem's __module__ writes _operator.getitem): the same answers as operator.getitem
sed 's/"operator.getitem"/"_operator.getitem"/g' samples/llama_tiny.dynamo.json > "$T/underscore.json"
"$CGSCOPE" shapes --reinfer samples/llama_tiny.dynamo.json | tail -n 1 > "$T/a.txt"
"$CGSCOPE" shapes --reinfer "$T/underscore.json" | tail -n 1 > "$T/b.txt"
cmp -s "$T/a.txt" "$T/b.txt" || fail "_operator.getitem: $(cat "$T/b.txt") vs $(cat "$T/a.txt")"
grep -q "0 unknown ops" "$T/b.txt" || fail "_operator.getitem is an unknown op"
finish
