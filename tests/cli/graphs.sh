#!/bin/sh
# cgscope graphs and graphs read from TORCH_TRACE logs (issue 28): the forms torch.fx prints,
# refs taken by every command, errors with their place, and the recorded logs read into the
# graphs the bridge dumped of the same compiles (tests/trace-graphs.py).
. tests/cli/lib.sh
D=tests/data

# a printed graph written by hand: every statement form
check "printed graph" 0 "$CGSCOPE" graphs $D/fxtext/forms.py --json
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
g=d['graphs'][0]; assert g['nodes'] == 15 and g['error'] is None and g['stage'] == 'dynamo', g
" "$out" || fail "forms.py: $(cat $out | head -c 300)"
check "printed graph as JSON" 0 "$CGSCOPE" graphs $D/fxtext/forms.py --write "$T"
python3 - "$T/forms.dynamo.json" <<'PY' || fail "forms.py's nodes"
import json, sys
d = json.load(open(sys.argv[1]))
n = {x["name"]: x for x in d["nodes"]}
assert [x["name"] for x in d["nodes"]][:3] == ["s0", "l_x_", "l_w_"], d["nodes"][:3]
assert n["l_x_"]["op"] == "placeholder" and n["l_x_"]["target"] == "L_x_"
assert n["s0"]["val"] == {"symint": "s0"}, n["s0"]
assert n["l_w_"]["val"] == {"dtype": "float16", "shape": [8, 8], "stride": [1, 8], "device": "cuda:0"}
assert n["to"]["op"] == "call_method" and n["to"]["target"] == "to"
assert n["to"]["args"] == [{"node": "l_x_"}, {"dtype": "float16"}], n["to"]
assert n["to"]["stack_trace"] == 'File "/home/u/model.py", line 12, in forward\n    y = x.to(torch.float16) @ w'
assert n["y"]["target"] == "operator.matmul"
assert n["y_1"]["target"] == "operator.iadd" and n["y_1"]["args"] == [{"node": "y"}, 1], n["y_1"]
assert n["y_1"]["stack_trace"].endswith("y += 1")
assert "stack_trace" not in n["wrap"], n["wrap"]
assert n["wrap_body_0"]["op"] == "get_attr" and n["wrap_body_0"]["target"] == "wrap_body_0"
assert n["wrap"]["target"] == "higher_order.wrap"
assert n["getitem"]["target"] == "operator.getitem" and n["getitem"]["args"] == [{"node": "wrap"}, 0]
assert n["neg"]["target"] == "operator.neg"
assert n["size"]["op"] == "call_method" and n["size"]["args"] == [{"node": "l_x_"}, 0]
assert n["cl"]["kwargs"] == {"memory_format": {"memory_format": "contiguous_format"},
                             "device": {"device": "cuda:0"}}, n["cl"]
assert n["sl"]["args"][1] == [{"slice": [None, None, None]}, {"slice": [None, 4, None]}], n["sl"]
assert n["pick"]["args"][1] == {"list": [1, 0]}, n["pick"]
assert n["output"]["args"] == [[{"node": k} for k in ("y_1", "neg", "sl", "pick", "size")]]
assert list(d["subgraphs"]) == ["wrap_body_0"] and len(d["subgraphs"]["wrap_body_0"]["nodes"]) == 3
PY
check "shapes of a printed graph" 0 "$CGSCOPE" shapes --reinfer $D/fxtext/forms.py

# the other branches of FX's code generator (forms2.py says which): each statement a node, the
# way torch.fx builds it; shape inference gives each value torch printed
check "printed graph, more forms" 0 "$CGSCOPE" graphs $D/fxtext/forms2.py --write "$T"
python3 - "$T/forms2.dynamo.json" <<'PY' || fail "forms2.py's nodes"
import json, sys
d = json.load(open(sys.argv[1]))
n = {x["name"]: x for x in d["nodes"]}
assert n["args"]["op"] == "placeholder" and n["args"]["target"] == "*args", n["args"]
assert n["l_scale_"]["args"] == [2.0], n["l_scale_"]
assert n["layers_0"]["op"] == "call_module" and n["layers_0"]["target"] == "layers.0", n["layers_0"]
assert n["layers_0"]["args"] == [{"node": "l_x_"}]
assert n["layers_0_weight"]["op"] == "get_attr" and n["layers_0_weight"]["target"] == "layers.0.weight"
for name, op in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "truediv"),
                 ("floordiv", "floordiv"), ("mod", "mod"), ("pow_1", "pow"), ("matmul", "matmul"),
                 ("eq", "eq"), ("ne", "ne"), ("lt", "lt"), ("ge", "ge"), ("and_", "and_"),
                 ("or_", "or_"), ("xor", "xor"), ("invert", "invert"), ("pos", "pos"),
                 ("getitem", "getitem"), ("isub", "isub"), ("imul", "imul"), ("gt", "gt")):
    assert n[name]["target"] == "operator." + op, (name, n[name]["target"])
assert n["mul"]["args"] == [2, {"node": "sub"}], n["mul"]
assert n["isub"]["args"] == [{"node": "matmul"}, {"node": "add"}], n["isub"]
assert n["gt"]["val"] is True and n["sym_float"]["val"] == {"symfloat": "4.0"}, n["gt"]
assert n["mean"]["kwargs"] == {"dim": -1, "keepdim": False}, n["mean"]
assert n["attr"]["target"] == "builtins.getattr" and n["attr"]["args"] == [{"node": "mean"}, "T"]
assert n["dflt"]["args"] == [{"node": "mean"}, "missing", None], n["dflt"]
# a subclass's annotation gives the tensor it wraps; a TensorMetadata's has no strides
assert n["clamp"]["val"]["shape"] == [4] and n["clamp"]["val"]["stride"] == [1], n["clamp"]
assert n["relu"]["val"]["shape"] == [4] and "stride" not in n["relu"]["val"], n["relu"]
assert n["output"]["args"] == [{"node": "relu"}], n["output"]
PY
check "shapes of more forms" 0 "$CGSCOPE" shapes --reinfer --json $D/fxtext/forms2.py
python3 - "$out" <<'PY' || fail "forms2.py's shapes: $(head -c 400 $out)"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["mismatched"] == 0 and s["errors"] == 0, s
bad = {x["name"]: x["status"] for x in d["nodes"] if x["status"] != "ok"}
# *args has no value, a module call no rule, a 3-argument getattr of an unknown attribute
assert bad == {"args": "partial", "layers_0": "unknown_op", "dflt": "partial"}, bad
assert {"field": "stride", "nodes": 1} == {k: v for k, v in s["not_checked"][1].items() if k != "why"}
PY

# the shipped declarations of vLLM's ops (ops/vllm.ops, after their fake implementations):
# unified_attention is like its query, all_reduce like its tensor, _C.rms_norm returns None
check "vLLM ops" 0 "$CGSCOPE" shapes --reinfer --all --json $D/fxtext/vllm_ops.py
python3 -c "
import json,sys; d={n['name']: n for n in json.load(open(sys.argv[1]))['nodes']}
assert all(n['status'] == 'ok' for n in d.values()), [(k, n['status']) for k, n in d.items()]
assert d['attn']['val']['shape'] == [8, 4, 64] and d['attn']['val']['dtype'] == 'bfloat16'
assert d['ar']['val']['shape'] == [8, 256] and d['rms_norm']['val'] is None
" "$out" || fail "vLLM ops inferred"

# refs: every command takes one; a bare log takes the stage the command works on, and says so
L=$T/resnet.log
xz -dc $D/tracegraphs/cnn_infer/trace/*.xz >"$L"
check "list a log" 0 "$CGSCOPE" graphs "$L"
has "a dynamo graph's ref" "$out" "$L#0/0:dynamo"
has "the post-grad graph's ref" "$out" "$L#0/0:post_grad"
check "info on a ref" 0 "$CGSCOPE" info "$L#0/0:dynamo"
has "its compile id and stage" "$out" "0/0 dynamo"
check "split on a bare log" 0 "$CGSCOPE" split "$L" --split-ops torch.conv2d
has "the note" "$err" "holds 3 graphs (1 dynamo); this is $L#0/0:dynamo"
check "layout on a bare log" 0 "$CGSCOPE" layout "$L"
has "the post-grad graph" "$err" "this is $L#0/0:post_grad"
check "dot on a ref" 0 "$CGSCOPE" dot "$L#0/0:dynamo" -o "$T/g.svg"
check "a ref to no graph" 2 "$CGSCOPE" info "$L#9/9:dynamo"
has "names what there is" "$err" "no graph '9/9:dynamo' in it (it holds 3: 0/0:dynamo"

# a log holding the same compile ids twice (two runs, or torch._dynamo.reset() between them,
# as tlparse's cache_hit_miss.log does): each graph kept, the second ones @2; an inference
# compile's post-grad graph is never taken for a backward
xz -dc samples/two_graphs.torch_trace.log.xz >"$T/one.log"
cat "$T/one.log" "$T/one.log" >"$T/twice.log"
check "a compile id used again" 0 "$CGSCOPE" graphs "$T/twice.log"
has "12 graphs" "$out" "12 graphs"
has "the second occurrence" "$out" "$T/twice.log#1/0:post_grad@2"
hasnt "no backward" "$out" ":backward"
check "a ref to it" 0 "$CGSCOPE" info "$T/twice.log#0/0:dynamo@2"

# a printed graph that is wrong: the place and what was expected; exit 2, nothing written
printf 'class GraphModule(torch.nn.Module):\n    def forward(self, x: "f32[2][1]cpu"):\n        y = x +\n        return (y,)\n' >"$T/bad.py"
check "a statement cut short" 2 "$CGSCOPE" info "$T/bad.py"
has "file:line:col" "$err" "bad.py:3:"
has "what was expected" "$err" "expected a value"
# a printed graph in a folder whose name is not UTF-8 (Latin-1's e-acute): read, its name's odd
# byte shown as '?' (it was refused: "invalid UTF-8 in a string")
L1="$T/caf$(printf '\351')"
mkdir -p "$L1" && cp $D/fxtext/forms.py "$L1/"
check "a folder named in Latin-1" 0 "$CGSCOPE" info "$L1/forms.py"
has "the name, cut" "$out" "caf?/forms.py"
check "and written as graph JSON" 0 "$CGSCOPE" graphs "$L1/forms.py" --write "$T/l1"
check "which loads" 0 "$CGSCOPE" info "$T/l1/forms.dynamo.json"

# a size the graph cannot hold, on the signature's fourth line and on a statement: the line
# that has it (the graph is read straight into the IR: no document path in the message)
printf 'class GraphModule(torch.nn.Module):\n    def forward(\n        self,\n        x: "f32[2][1]cpu",\n        w: "f32[2, s0+][1, 2]cpu",\n    ):\n        y = x + 1\n        return (y,)\n' >"$T/badsize.py"
check "a bad size in the signature" 2 "$CGSCOPE" info "$T/badsize.py"
has "its line" "$err" "badsize.py:5:1: error: bad dimension"
has "its node" "$err" "(node 'w')"
hasnt "no document path" "$err" "nodes["
printf 'class GraphModule(torch.nn.Module):\n    def forward(self, x: "f32[2][1]cpu"):\n        y: "f32[2][1]cpu" = x + 1\n        z: "f32[2, 2][1]cpu" = y * 2\n        return (z,)\n' >"$T/badstride.py"
check "strides not one a dimension" 2 "$CGSCOPE" info "$T/badstride.py"
has "its line" "$err" "badstride.py:4:1: error: expected 2 entries in 'stride'"
printf 'class GraphModule(torch.nn.Module):\n    def forward(self, x):\n        y = torch.relu(z)\n        return (y,)\n' >"$T/unknown.py"
check "a name no node has" 0 "$CGSCOPE" info "$T/unknown.py"
check "no graph in a log" 2 "$CGSCOPE" graphs samples/graph_break.torch_trace.log
has "says why" "$err" "no graph in it"
check "--write makes its folder" 0 "$CGSCOPE" graphs "$L" --write "$T/made"
[ -d "$T/made" ] && [ -n "$(ls "$T/made")" ] || fail "--write: the folder made and filled"
check "--write under a missing parent" 2 "$CGSCOPE" graphs "$L" --write "$T/nope/deeper"
has "says why" "$err" "--write: cannot make the folder: No such file or directory"
echo x >"$T/afile"
check "--write onto a file" 2 "$CGSCOPE" graphs "$L" --write "$T/afile"
has "not a folder" "$err" "--write: not a folder"

# the recorded logs: the graphs the bridge dumped of the same compiles, node for node
python3 tests/trace-graphs.py "$CGSCOPE" $D/tracegraphs >"$T/cmp" 2>&1 || {
    fail "trace graphs against the bridge's"; tail -20 "$T/cmp"; }
tail -1 "$T/cmp"

# a vLLM compile-cache folder: computation_graph.py two levels down (<hash>/rank_0_0/backbone/),
# a split graph whose pieces are put back into one graph, each node keeping the piece it was
# compiled in; cgscope's own split at the same splitting op gives the same pieces
VC=tests/data/fxtext/vllm_cache
check "graphs in a vLLM cache folder" 0 "$CGSCOPE" graphs "$VC"
has "the graph two levels down" "$out" "rank_0_0/backbone/computation_graph.py"
mkdir "$T/vcw"
check "graphs --write of a split graph" 0 "$CGSCOPE" graphs "$VC" --write "$T/vcw"
check "split of a cache folder" 0 "$CGSCOPE" split "$VC" --split-ops vllm.unified_attention --json
python3 - "$T/vcw" "$out" <<'PY' || fail "cgscope's pieces equal the pieces vLLM compiled"
import glob, json, sys
g = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))
recorded = {n["name"]: n.get("piece") for n in g["nodes"] if n["op"] not in ("placeholder", "output")}
assert recorded and all(recorded.values()), recorded
assert not any(n["op"] == "call_module" for n in g["nodes"]), "pieces left as calls"
s = json.load(open(sys.argv[2]))
mine = {m: p["name"] for p in s["pieces"] for m in p["nodes"]}
assert mine == recorded, (mine, recorded)
PY
check "shapes of a cache folder's graph" 0 "$CGSCOPE" shapes --reinfer --check "$VC"

# `cache` takes the cache folder too: the one index in it, up to three levels down
mkdir -p "$T/cf/hash1/rank_0_0/backbone" "$T/cf2/a" "$T/cf2/b"
cp samples/magi_compile_cache.py "$T/cf/hash1/rank_0_0/backbone/vllm_compile_cache.py"
check "cache of a folder" 0 "$CGSCOPE" cache "$T/cf" --json
"$CGSCOPE" cache samples/magi_compile_cache.py --json > "$T/direct.json"
cmp -s "$out" "$T/direct.json" || fail "cache of a folder: not the index's own listing"
cp samples/magi_compile_cache.py "$T/cf2/a/"; cp samples/magi_compile_cache.py "$T/cf2/b/"
check "cache of a folder with two indexes" 2 "$CGSCOPE" cache "$T/cf2"
has "two indexes named" "$err" "a folder with 2 compile-cache indexes in it"
mkdir -p "$T/noidx" && cp "$VC/rank_0_0/backbone/computation_graph.py" "$T/noidx/"
check "cache of a folder without one" 2 "$CGSCOPE" cache "$T/noidx"
has "none said" "$err" "a folder without a compile-cache index in it"

# the folder as vLLM left it: without --split-ops, the split is at the op alone in a recorded
# piece, and checked against the record; the index beside the graph (vllm_compile_cache.py,
# keyed (runtime_shape, graph_index, backend), graph_index counting compiled pieces only:
# vLLM's compile_submod_names.index) is joined to the compiled pieces
check "split of a cache folder as compiled" 0 "$CGSCOPE" split "$VC" --json
has "the splitting op read from the pieces" "$err" "splitting at vllm.unified_attention.default"
python3 - "$out" "$T/vcw" <<'PY' || fail "split of a cache folder joined with its index"
import glob, json, sys
s = json.load(open(sys.argv[1]))
assert s["recorded_pieces"] == {"match": True, "differences": 0}, s["recorded_pieces"]
assert s["cache_index"].endswith("rank_0_0/backbone/vllm_compile_cache.py"), s["cache_index"]
p = {x["name"]: x for x in s["pieces"]}
assert p["submod_1"]["is_splitting_graph"] and p["submod_1"]["cache_entries"] == []
shapes = lambda n: sorted((e["runtime_shape"] is None, e["runtime_shape"] or 0) for e in p[n]["cache_entries"])
# the index: (None, 0), (None, 1), (8, 0): submod_0 is compiled piece 0, submod_2 piece 1
assert shapes("submod_0") == [(False, 8), (True, 0)], p["submod_0"]["cache_entries"]
assert shapes("submod_2") == [(True, 0)], p["submod_2"]["cache_entries"]
assert all(e["backend"] == "inductor" for e in p["submod_0"]["cache_entries"])
PY
check "split of a cache folder, text" 0 "$CGSCOPE" split "$VC"
has "the index joined" "$out" "cache: dynamic (inductor), 8 (inductor)"
# another split than the compiler's is said
check "split at another op" 0 "$CGSCOPE" split "$VC" --split-ops torch.relu
has "differs from the record" "$err" "not in the piece the compiler recorded for them"
# top follows the folder: the index three levels down
check "top of a cache folder" 0 "$CGSCOPE" top --once --json "$VC"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["rows"]) == 3, d' "$out" ||
    fail "top of a cache folder: the index's three entries"
# what holds no graph record is said once, with who reads it, never as a log that lost its
# graphs (a graph JSON, a .pt2, the bridge's events, a cache index; compressed, what it holds)
xz -c samples/resnet18.dynamo.json > "$T/model.json.xz"
printf '\211PNG\r\n\032\n%02000d' 0 | xz -c > "$T/picture.png.xz"
for src in samples/resnet18.dynamo.json:"a graph JSON":"cgscope info" \
           $D/pt2/qwen2_tiny.export.pt2:"a zip archive":"on a .pt2" \
           samples/llama_tiny.events.jsonl:"the bridge's events":"cgscope top" \
           samples/magi_compile_cache.py:"a compile-cache index":"cgscope cache" \
           "$T/model.json.xz":"an xz-compressed file holding a graph JSON":"xz -dk FILE" \
           "$T/picture.png.xz":"an xz-compressed file holding a PNG image":"nothing here holds graphs"; do
    f=${src%%:*} rest=${src#*:}
    check "graphs $f" 2 "$CGSCOPE" graphs "$f"
    has "graphs $f: what it is" "$err" "is ${rest%%:*}"
    has "graphs $f: who reads it" "$err" "${rest#*:}"
    hasnt "graphs $f: no lost graphs" "$err" "was the log filtered"
    hasnt "graphs $f: no TORCH_TRACE log" "$err" "is a TORCH_TRACE log"
    hasnt "graphs $f: not cut short" "$err" "ends early"
    [ "$(grep -c . "$err")" = 1 ] || fail "graphs $f: said once: $(cat "$err")"
done
# several files read at once: a helper thread reads and unpacks the files after the first while
# the first is fed, and its reads are replayed here; each way a file ends (clean, cut short,
# corrupt, holding a picture, empty, concatenated members) reads as on one thread
L=$D/tracegraphs
mkdir "$T/many"
cp $L/attn_train/trace/*.log.xz "$T/many/a.log.xz"
xz -dc $L/hf_t5/trace/*.log.xz >"$T/many/b.log"
cut_at=$(($(cat $L/hf_gpt2/trace/*.log.xz | wc -c) / 2))
head -c $cut_at $L/hf_gpt2/trace/*.log.xz >"$T/many/c_cut.log.xz"
xz -dc $L/cnn_infer/trace/*.log.xz | gzip -c >"$T/many/d_bad.log.gz"
python3 - "$T/many/d_bad.log.gz" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read())
for i in range(len(b) // 2, len(b) // 2 + 64):
    b[i] ^= 0x5A
open(p, "wb").write(bytes(b))
PY
cp "$T/picture.png.xz" "$T/many/e_pic.log.xz"
: >"$T/many/f_empty.log"
{ xz -dc $L/mlp_train/trace/*.log.xz | head -n 40 | gzip -c
  xz -dc $L/mlp_train/trace/*.log.xz | tail -n +41 | gzip -c; } >"$T/many/g_two.log.gz"
if command -v zstd >/dev/null; then
    xz -dc $L/dyn_attn/trace/*.log.xz | zstd -q -c >"$T/many/h.log.zst"
fi
# what command $1 says of sources $2 (split at spaces and globbed), read ahead on four threads,
# is what it says on one
same_as_one_thread() {
    CGSCOPE_THREADS=1 "$CGSCOPE" $1 $2 >"$T/one.out" 2>&1; echo "rc $?" >>"$T/one.out"
    CGSCOPE_THREADS=4 "$CGSCOPE" $1 $2 >"$T/four.out" 2>&1; echo "rc $?" >>"$T/four.out"
    cmp -s "$T/one.out" "$T/four.out" ||
        fail "$1 $2: read ahead differs from one thread: $(diff "$T/one.out" "$T/four.out" | head -5)"
}
for c in "graphs" "graphs --json" "breaks" "check --json" "top --once"; do
    same_as_one_thread "$c" "$T/many"
    same_as_one_thread "$c" "$T/many/*"
done
# one big compressed log alone (1 MB or more of it) is unpacked ahead of the feeding, published
# 2 MB unpacked at a time: the training logs in one (9.3 MB unpacked), gzip -1, whole, cut in
# a later segment, corrupt there, and beside a small one
mkdir "$T/big"
for f in $L/*/trace/*.log.xz; do xz -dc "$f"; done | gzip -1 -c >"$T/big/all.log.gz"
size=$(wc -c <"$T/big/all.log.gz")
[ "$size" -gt 1200000 ] || fail "the big log is too small to be read ahead alone: $size bytes"
head -c $((size * 3 / 4)) "$T/big/all.log.gz" >"$T/big/cut.log.gz"
python3 - "$T/big/all.log.gz" "$T/big/bad.log.gz" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
for i in range(len(b) * 3 // 4, len(b) * 3 // 4 + 64):
    b[i] ^= 0x5A
open(sys.argv[2], "wb").write(bytes(b))
PY
for src in "$T/big/all.log.gz" "$T/big/cut.log.gz" "$T/big/bad.log.gz" \
           "$T/big/bad.log.gz $T/many/a.log.xz"; do
    for c in "graphs" "breaks" "check --json"; do
        same_as_one_thread "$c" "$src"
    done
done
CGSCOPE_THREADS=4 "$CGSCOPE" graphs "$T/big/cut.log.gz" >"$out" 2>"$err"
has "read ahead alone: the cut log said" "$err" "cut.log.gz: warning: the gzip data ends early"
has "read ahead alone: what came before it listed" "$out" "cut.log.gz#"
CGSCOPE_THREADS=4 "$CGSCOPE" graphs "$T/big/bad.log.gz" >"$out" 2>"$err"
has "read ahead alone: the corrupt log said" "$err" "bad.log.gz: warning: corrupt gzip data"
CGSCOPE_THREADS=4 "$CGSCOPE" graphs "$T"/many/* >"$out" 2>"$err"
has "read ahead: the cut file said" "$err" "c_cut.log.xz: warning: the xz data ends early"
has "read ahead: the corrupt file said" "$err" "d_bad.log.gz: warning:"
has "read ahead: the picture said" "$err" "e_pic.log.xz: warning: not read: it holds a PNG image"
has "read ahead: both members read" "$out" "g_two.log.gz#"
has "read ahead: the first file read" "$out" "a.log.xz#"
# several sources without a graph: the sources are the subject
check "graphs of two sources without a graph" 2 "$CGSCOPE" graphs samples/resnet18.dynamo.json \
    samples/graph_break.torch_trace.log
has "no graph in the sources" "$err" "error: no graph in the 2 sources"
finish
