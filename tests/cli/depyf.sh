#!/bin/sh
# depyf's dump folders as a source (issue 37: a new input kind is one reader file and one row
# of the source table): three real dumps from depyf's own tests (tests/data/depyf/README.md),
# read as a user would, and checked against what the files themselves say, read here by a
# parser of the test's own (names and annotations), and against torch's word in Inductor's
# kernel files ("# AOT ID: ['1_backward']").
. tests/cli/lib.sh
D=tests/data/depyf

for dump in inductor-dynamic-grad inductor-static-nograd old-naming; do
    check "graphs $dump" 0 "$CGSCOPE" graphs "$D/$dump" --json
    mkdir -p "$T/$dump"
    check "graphs $dump --write" 0 "$CGSCOPE" graphs "$D/$dump" --write "$T/$dump" --json
    python3 - "$D/$dump" "$out" "$T/$dump" <<'PY' || fail "$dump: the graphs listed and read"
import json, os, re, sys
folder, listing, written = sys.argv[1:]
d = json.load(open(listing))
moment = {"Captured_Graph": "dynamo", "BEFORE_PRE_GRAD": "dynamo", "Joint_graph": "aot_joint",
          "Forward_graph": "aot_forward", "Backward_graph": "aot_backward",
          "AFTER_POST_GRAD": "post_grad"}
name_re = re.compile(r"^__compiled_fn_(\d+)[. ](.+)[. ](\d+)\.py$")
files = {}
for f in os.listdir(folder):
    m = name_re.match(f)
    if m and not re.fullmatch(r"kernel_\d+", m.group(2).replace(" ", "_")):
        files[f] = (int(m.group(1)), m.group(2).replace(" ", "_"), int(m.group(3)))
listed = {os.path.basename(g["ref"]): g for g in d["graphs"]}
assert set(listed) == set(files), (sorted(set(files) ^ set(listed)))
# a compile is a training one when depyf wrote a joint or backward graph for it
training = {fn for fn, m, k in files.values() if m in ("Joint_graph", "Backward_graph")}
for f, (fn, m, k) in files.items():
    g = listed[f]
    want = moment.get(m, "other")
    if want == "aot_forward" and fn not in training:
        want = "aot_inference"
    assert g["stage"] == want, (f, g["stage"], want)
    assert g["error"] is None, (f, g["error"])
    # the nodes: each statement's name, the parameters, the output (read by regex here)
    text = open(os.path.join(folder, f)).read()
    sig = re.search(r"def forward\(self,?(.*?)\):", text, re.S).group(1)
    params = [p.split(":")[0].strip() for p in re.findall(r'(\w+\s*(?::\s*"[^"]*")?)\s*(?:,|$)', sig) if p.strip()]
    body = text[text.index("):", text.index("def forward")) + 2:]
    names, annots = [], {}
    flat = re.search(r"^\s*([\w, ]+?),?\s*=\s*fx_pytree\.tree_flatten_spec\(", body, re.M)
    if flat:   # the joint graph's inputs, flattened: primals_1: "f32[10]"; ... declared first
        params = [x.strip() for x in flat.group(1).split(",") if x.strip()]
        annots.update(re.findall(r'(\w+): "([^"]*)";', body))
    for line in body.splitlines():
        if "tree_flatten_spec" in line:
            continue
        first = line.split(";")[0].strip()
        m2 = re.match(r'^(\w+)(?:\s*:\s*"([^"]*)")?\s*=\s*(.+)$', first)
        if not m2 or first.startswith("#"):
            continue
        lhs, ann, rhs = m2.groups()
        if rhs.strip() in params:   # l_x_ = L_x_: the placeholder, under the name FX gave it
            params[params.index(rhs.strip())] = lhs
            continue
        names.append(lhs)
        if ann:
            annots[lhs] = ann
    for p in re.findall(r'(\w+)\s*:\s*"([^"]*)"', sig):
        annots.setdefault(p[0], p[1])
    want_names = params + names + ["output"]
    js = [x for x in os.listdir(written) if x.startswith(f[:-3].replace(" ", "_") + ".")]
    assert len(js) == 1, (f, js)
    graph = json.load(open(os.path.join(written, js[0])))
    got = [n["name"] for n in graph["nodes"]]
    assert sorted(got) == sorted(want_names), (f, got, want_names)
    assert g["nodes"] == len(got), (f, g["nodes"], len(got))
    # every annotation torch printed is the node's value: dtype and sizes
    dt = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "i64": "int64", "b8": "bool"}
    by = {n["name"]: n for n in graph["nodes"]}
    for name, ann in annots.items():
        n = by.get(name) or next((x for x in graph["nodes"] if x.get("target") == name), None)
        assert n is not None, (f, name)
        m3 = re.fullmatch(r"(\w+)\[(.*)\]", ann)
        if not m3:
            continue
        assert n["val"]["dtype"] == dt[m3.group(1)], (f, name, n["val"], ann)
        sizes = [s.strip() for s in m3.group(2).split(",") if s.strip()]
        assert [str(s if not isinstance(s, dict) else s.get("sym", s)) for s in n["val"]["shape"]] == sizes, (f, name, n["val"]["shape"], ann)
PY
done

# torch's word on each post-grad graph: the kernel file Inductor wrote for it names the AOT
# graph ("# AOT ID: ['1_backward']"), K-th kernel for the K-th post-grad graph
for dump in inductor-dynamic-grad inductor-static-nograd; do
    for pg in "$D/$dump"/__compiled_fn_*.AFTER_POST_GRAD.*.py; do
        k=${pg##*.AFTER_POST_GRAD.}; k=${k%.py}
        kern="${pg%%.AFTER_POST_GRAD*}.kernel_$k.py"
        check "info $pg" 0 "$CGSCOPE" info "$pg" --json
        python3 - "$out" "$kern" <<'PY' || fail "$pg: inference/backward against $kern"
import json, re, sys
info = json.load(open(sys.argv[1]))
aot = re.search(r"# AOT ID: \['\d+_(\w+)'\]", open(sys.argv[2]).read()).group(1)
p = info["producer"]
assert p["stage"] == "post_grad", p
assert p["is_inference"] == (aot == "inference"), (p, aot)
assert p["is_backward"] == (aot == "backward"), (p, aot)
PY
    done
done

# a graph of the folder through the folder's own listing: its ref, and the folder as GRAPH
g="$D/inductor-dynamic-grad/__compiled_fn_3.AFTER_POST_GRAD.1.py"
mkdir -p "$T/w2"
check "graphs lists the backward post-grad" 0 "$CGSCOPE" graphs "$D/inductor-dynamic-grad" --write "$T/w2"
has "refs are files" "$out" "$g"
check "info on the folder" 0 "$CGSCOPE" info "$D/inductor-dynamic-grad"
has "info on the folder: the Dynamo graph" "$out" "__compiled_fn_1.BEFORE_PRE_GRAD.0.py"
has "info on the folder: says which" "$err" "holds 24 graphs (2 dynamo)"
check "check on a dump" 0 "$CGSCOPE" check "$D/inductor-dynamic-grad" "$D/old-naming"
has "check counts the graphs" "$out" "32 graphs read"

# Inductor's generated code is not a graph: said so, exit 2
check "kernel file" 2 "$CGSCOPE" info "$D/inductor-dynamic-grad/__compiled_fn_3.kernel_1.py"
has "kernel file: what it is" "$err" "is the code Inductor generated"
check "kernel file in check" 2 "$CGSCOPE" check "$D/inductor-dynamic-grad/__compiled_fn_3.kernel_1.py"

# depyf before 0.18: the forward alone at the top level, spaces in the names
check "old form" 0 "$CGSCOPE" shapes --json "$D/old-naming/__compiled_fn_7 Captured Graph 0.py"

finish
