#!/bin/sh
# Graphs from logs others wrote (issue 38): every value torch recorded is reported as torch
# wrote it (val_source "recorded"), inference runs on from the records (a printed graph's records
# hold no storage offset: a new tensor's is 0), and no node whose inputs torch recorded in full is
# left partial for want of one. tlparse's test logs (tests/data/tlparse), read by
# tests/recorded-values.py against the records themselves.
. tests/cli/lib.sh
D=tests/data
mkdir -p "$T/tl"
tar -xJf $D/tlparse/inputs.tar.xz -C "$T/tl"
refs=$(for f in "$T"/tl/inputs/*.log; do
    "$CGSCOPE" graphs --json "$f" 2>/dev/null | python3 -c "
import json, sys
try:
    d = json.load(sys.stdin)
except ValueError:
    sys.exit()
for g in d['graphs']:
    if g['nodes']:
        print(g['ref'])"
done)
[ -n "$refs" ] || fail "no graph read from tlparse's logs"
check "recorded values" 0 python3 tests/recorded-values.py "$CGSCOPE" $refs
has "recorded values: how many" "$out" "recorded values reported as torch wrote them"

# export's slice bound: -u1 is operator.neg of a SymInt (a size), inferred and equal to the record;
# u1 (torch's name: it counted a symbol it dropped) is cgscope's u0, the same data-dependent size
E="$T/tl/inputs/export.log"
ref=$(echo "$refs" | grep -F "$E#" | head -n 1)
check "export's graph" 0 "$CGSCOPE" shapes --json "$ref"
python3 - "$out" <<'PY' || fail "export's graph: neg and the unbacked size"
import json, sys
n = {x["name"]: x for x in json.load(open(sys.argv[1]))["nodes"]}
assert n["neg"]["status"] == "ok" and n["neg"]["match"] is True, n["neg"]
assert n["neg"]["val"] == {"symint": "-u1"}, n["neg"]
assert n["_local_scalar_dense"]["match"] is True, n["_local_scalar_dense"]
assert n["add"]["val"]["symint"] == "(((-u1)//3)) + 5", n["add"]   # as torch wrote it
PY

# operator.setitem as FX prints it: the store, then the statement naming its result
check "setitem" 0 "$CGSCOPE" graphs --json $D/fxtext/setitem.py --write "$T"
python3 - "$T/setitem.dynamo.json" <<'PY' || fail "setitem's nodes"
import json, sys
n = {x["name"]: x for x in json.load(open(sys.argv[1]))["nodes"]}
assert n["setitem"]["target"] == "operator.setitem", n["setitem"]
assert n["setitem"]["args"] == [{"node": "inv_perm"}, {"node": "l_perm_"}, {"node": "arange_5"}]
assert n["setitem_1"]["args"] == [{"node": "y"}, [{"slice": [None, None, None]}, 0], 1.0]
PY
check "setitem's shapes" 0 "$CGSCOPE" shapes --json $D/fxtext/setitem.py
python3 - "$out" <<'PY' || fail "setitem: y has torch's value"
import json, sys
n = {x["name"]: x for x in json.load(open(sys.argv[1]))["nodes"]}
assert n["y"]["val"]["shape"] == [8, 4] and n["y"]["val_source"] == "recorded", n["y"]
PY
# x.shape is builtins.getattr(x, "shape"), as FX prints a two-argument getattr; -x and ~x
check "getattr" 0 "$CGSCOPE" graphs --json $D/fxtext/getattr.py --write "$T"
python3 - "$T/getattr.dynamo.json" <<'PY' || fail "getattr's nodes"
import json, sys
n = {x["name"]: x for x in json.load(open(sys.argv[1]))["nodes"]}
assert n["e"]["target"] == "builtins.getattr" and n["e"]["args"] == [{"node": "a"}, "shape"], n["e"]
assert n["g"]["args"] == [{"node": "a"}, "foo", None], n["g"]
assert n["b"]["target"] == "operator.neg" and n["c"]["target"] == "operator.invert"
PY

# a graph traced under torch.autocast("cuda", bf16): torch 2.11's cast policies give conv2d and
# linear bfloat16 from float32 inputs, as torch recorded; nothing to report
check "autocast" 0 "$CGSCOPE" check --json --fail-on note $D/fxtext/autocast.py
check "autocast shapes" 0 "$CGSCOPE" shapes --reinfer --check --json $D/fxtext/autocast.py
python3 - "$out" <<'PY' || fail "autocast: modelled casts"
import json, sys
n = {x["name"]: x for x in json.load(open(sys.argv[1]))["nodes"]}
assert n["conv2d"]["val"]["dtype"] == "bfloat16" and n["conv2d"]["match"] is True, n["conv2d"]
assert n["linear"]["val"]["dtype"] == "bfloat16" and n["linear"]["match"] is True, n["linear"]
PY
# torch.export's wrap_with_autocast: the same region as a higher-order op. The recorded graph is
# a disabled one (tests/data/hop); enabled, with float16, torch's linear in the body runs in
# float16 and so does everything after it
python3 - "$D/hop/autocast.export.json" "$T/autocast_on.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
def f16(v):
    if isinstance(v, list):
        return [f16(x) for x in v]
    return dict(v, dtype="float16") if isinstance(v, dict) and "dtype" in v else v
for n in g["nodes"]:
    if n["target"] == "higher_order.wrap_with_autocast":
        n["args"][2] = True
    if n["op"] != "placeholder" and n["op"] != "get_attr":
        n["val"] = f16(n["val"])
for sub in g["subgraphs"].values():
    for n in sub["nodes"]:
        if n["op"] == "call_function":
            n["val"] = f16(n["val"])
json.dump(g, open(sys.argv[2], "w"))
PY
check "wrap_with_autocast" 0 "$CGSCOPE" shapes --reinfer --check "$T/autocast_on.json"
check "wrap_with_autocast, recorded disabled" 0 "$CGSCOPE" shapes --reinfer --check $D/hop/autocast.export.json
# a CPU region is not modelled: the recorded bfloat16 is reported, and the dtype cgscope infers
# is a note that says so, not a warning
check "autocast on CPU" 0 "$CGSCOPE" check --json --fail-on warning $D/fxtext/autocast_cpu.py
python3 - "$out" <<'PY' || fail "CPU autocast: a note, not a mismatch warning"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert [(x["kind"], x["severity"]) for x in f] == [("shape_mismatch", "note")], f
assert "autocast" in f[0]["message"] and "CUDA" in f[0]["message"] and f[0]["count"] == 1, f
PY
check "autocast on CPU, shapes" 0 "$CGSCOPE" shapes --json $D/fxtext/autocast_cpu.py
python3 - "$out" <<'PY' || fail "CPU autocast: torch's dtype reported"
import json, sys
n = {x["name"]: x for x in json.load(open(sys.argv[1]))["nodes"]}
assert n["conv2d"]["val"]["dtype"] == "bfloat16" and n["conv2d"]["inferred"]["dtype"] == "float32"
PY

# flex_attention (tlparse's cache_hit_miss.log): the HOP's output and logsumexp, read through
# their getitems, equal to torch's records
C="$T/tl/inputs/cache_hit_miss.log"
check "flex_attention" 0 "$CGSCOPE" shapes --json "$C#0/0:dynamo"
python3 - "$out" <<'PY' || fail "flex_attention's results"
import json, sys
d = json.load(open(sys.argv[1]))
fa = [n for n in d["nodes"] if n["target"] == "higher_order.flex_attention"]
assert fa and all(n["status"] == "ok" for n in fa), fa
gi = [n for n in d["nodes"] if n["target"] == "operator.getitem"]
assert gi and all(n.get("match") is True for n in gi), gi
PY

# a compiled optimizer step (torch 2.11, tests/gpu/fault_logs.py's optimizer workload): the
# _foreach_* ops of every stage inferred and equal to torch's records, the in-place
# _foreach_add_ that Inductor's reinplacing leaves in the post-grad graph giving its getitems
# the mutated list
xz -dc $D/faultlogs/optimizer.log.xz >"$T/opt.log"
for stage in dynamo aot_inference post_grad; do
    check "optimizer $stage" 0 "$CGSCOPE" shapes --json "$T/opt.log#3/0:$stage"
    python3 - "$out" "$stage" <<'PY' || fail "optimizer $stage: every _foreach node inferred"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["partial"] == 0 and s["unknown"] == 0 and s["mismatched"] == 0, s
fe = [n for n in d["nodes"] if "_foreach" in n["target"]]
assert fe and all(n["status"] == "ok" for n in fe), [(n["name"], n["status"]) for n in fe]
assert any(n.get("match") is True for n in d["nodes"] if n["target"] == "operator.getitem")
PY
done
finish
