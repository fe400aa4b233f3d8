#!/bin/sh
# cgscope html: one self-contained page from a mix of sources. Its numbers are the commands'
# own (the documents split, shapes, top --once and report print with --json, compared here);
# Chromium loads it headless (no script error; screenshots of the summary, an opened piece and
# the profile against docs/html/*.png; the first rows readable with JavaScript off).
. tests/cli/lib.sh
G=samples/profile/transformer.dynamo.json
P=samples/profile
L=samples/graph_break.torch_trace.log
check "a page of a graph, its profile and a log" 0 "$CGSCOPE" html "$G" "$P" "$L" --split-ops @sdpa \
    --title "samples: a transformer with its profile, and a log with graph breaks" -o "$T/r.html"
has "says where it wrote" "$err" "wrote $T/r.html"
python3 tests/html-check.py selfcontained "$T/r.html" || fail "the page fetches something"
python3 tests/html-check.py cards "$T/r.html" || fail "cards: the summary's numbers"

# every number is the command's: split, shapes, top and report with --json
"$CGSCOPE" split "$G" --split-ops @sdpa --json >"$T/split.json" 2>/dev/null
python3 tests/html-check.py same "$T/r.html" split "$T/split.json" "$G" || fail "split's numbers"
"$CGSCOPE" shapes "$G" --json >"$T/shapes.json" 2>/dev/null
python3 tests/html-check.py same "$T/r.html" shapes "$T/shapes.json" "$G" || fail "shapes' numbers"
"$CGSCOPE" top --once --json "$L" >"$T/top.json" 2>/dev/null
python3 tests/html-check.py same "$T/r.html" top "$T/top.json" || fail "top's numbers"
"$CGSCOPE" breaks --json "$L" >"$T/breaks.json" 2>/dev/null
python3 tests/html-check.py same "$T/r.html" breaks "$T/breaks.json" || fail "breaks' numbers"
has "a break at the user's line" "$T/r.html" "model.py:12 in forward"
has "a break hit in a loop is said" "$T/r.html" "model.py:12 in forward: Failed to trace builtin operator"
has "... with how often" "$T/r.html" "hit 2 times"
has "... with torch's hint" "$T/r.html" "reorderable_logging_functions"
"$CGSCOPE" report --json "$P" >"$T/report.json" 2>/dev/null
python3 tests/html-check.py same "$T/r.html" profile "$T/report.json" || fail "report's numbers"

# samples/report.html is this page, made from the samples themselves (regenerate it with the
# command above and -o samples/report.html when the page changes)
cmp -s "$T/r.html" samples/report.html || fail "samples/report.html is not the page its sources make now"

# a TORCH_TRACE log alone: its graphs (each with its ref), compiles and the break
check "a page of a log" 0 "$CGSCOPE" html samples/two_graphs.torch_trace.log.xz -o "$T/log.html" --json
python3 - "$out" <<'PY' || fail "a log's page"
import json, sys
d = json.load(open(sys.argv[1]))
refs = [g["ref"] for g in d["graphs"]]
assert len(refs) == 6 and all("#" in r for r in refs), refs
assert d["summary"]["graph_breaks"] == d["top"]["graph_breaks"] == 1, d["summary"]
assert d["profile"] is None and d["summary"]["gpu_ns"] is None
PY
# a cache folder: its split graph split as recorded
check "a page of a cache folder" 0 "$CGSCOPE" html tests/data/fxtext/vllm_cache -o "$T/vc.html" --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["graphs"][0]["split"]
assert [p["name"] for p in s["pieces"]] == ["submod_0", "submod_1", "submod_2"], s["pieces"]
assert d["top"]["rows"], "the index beside the graph"' "$out" || fail "a cache folder's page"

# a run's page: top -- CMD --html and profile --html write DIR/report.html and say "open"
mkrun='mkdir -p "$TORCH_TRACE" && cp samples/graph_break.torch_trace.log "$TORCH_TRACE/"'
check "top --html" 0 "$CGSCOPE" top --html --dir "$T/run" -- sh -c "$mkrun" </dev/null
has "top says open" "$err" "open $T/run/report.html"
python3 tests/html-check.py cards "$T/run/report.html" || fail "top --html's page"
has "top --html: the run's breaks" "$T/run/report.html" 'data-key="graph_breaks"><span class="v">2<'
check "--html without a run" 2 "$CGSCOPE" top --html samples/graph_break.torch_trace.log
# (no GPU here: the run makes no CUPTI trace, and the CUPTI library may not be built: a
# stand-in that nothing loads; its TORCH_TRACE log still makes the page)
: >"$T/stand-in.so"
check "profile --html" 0 env CGSCOPE_CUPTI_LIB="$T/stand-in.so" "$CGSCOPE" profile --html -o "$T/prof" -- sh -c "$mkrun"
has "profile says open" "$err" "open $T/prof/report.html"
has "profile --html: the run's compiles" "$T/prof/report.html" 'data-key="compiles"><span class="v">4<'

# bad input: said, exit 2, nothing written
check "a source that is not there" 2 "$CGSCOPE" html "$T/nope.json" -o "$T/bad.html"
has "names it" "$err" "nope.json"
nofile "no page for a missing source" "$T/bad.html"
printf '\211PNG\r\n\032\n' >"$T/x.png"
check "an image" 2 "$CGSCOPE" html "$T/x.png" -o "$T/bad.html"
has "says what it is" "$err" "a PNG image"
nofile "no page for an image" "$T/bad.html"
check "no source" 2 "$CGSCOPE" html
check "--max-graphs not a count" 2 "$CGSCOPE" html "$G" --max-graphs x -o "$T/bad.html"
check "into a folder" 2 "$CGSCOPE" html "$G" -o "$T"

# the browser: Debian's Chromium, headless (CI installs it: tools/deps.sh --test)
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
    [ "${CI:-}" = true ] && fail "no chromium in CI"
    echo "skipped the browser checks: no chromium"
    finish
    exit $?
fi
chrome() {
    HOME=$T timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --no-first-run --disable-dev-shm-usage --force-color-profile=srgb \
        --force-device-scale-factor=1 --window-size=1280,900 "$@" 2>"$T/chrome.err"
}
chrome --dump-dom "file://$PWD/samples/report.html" >"$T/dom.html"
grep -q 'data-ready="1"' "$T/dom.html" || fail "the page's script did not finish: $(grep -i error "$T/chrome.err" | head -3)"
hasnt "no script error" "$T/dom.html" 'data-errors='
grep -c '<tr' "$T/dom.html" >/dev/null
# by keyboard: each piece of the picture and each sortable header takes the focus; the picture
# has zoom buttons (the wheel zooms only with ctrl or the command key)
python3 - "$T/dom.html" <<'PY' || fail "keyboard and zoom controls"
import re, sys
s = open(sys.argv[1]).read()
pieces = re.findall(r'<g id="[^"]*" class="node"[^>]*tabindex="0"[^>]*role="button"', s)
assert len(pieces) >= 5, "%d pieces reachable by keyboard" % len(pieces)
assert len(re.findall(r'<th[^>]*tabindex="0"', s)) >= 7, "headers"
assert 'aria-label="zoom in"' in s and 'aria-label="fit the picture"' in s, "zoom buttons"
PY
# with JavaScript off (the page without its script): the summary and the tables' first rows
# are in the HTML itself, and the summary looks the same (its screenshot against the one with)
has "summary without JavaScript" samples/report.html 'data-key="compiles"><span class="v">4<'
has "node rows without JavaScript" samples/report.html '<tr><td>l_x_</td>'
has "compiles without JavaScript" samples/report.html '<div id="ctable"><div class="tscroll"><table class="t"><thead><tr><th>compile id</th>'
has "a recompile's reason without JavaScript" samples/report.html "0/0: tensor 'x' size mismatch at index 0"
has "GPU time without JavaScript" samples/report.html '<h4>GPU time per piece</h4>'
# tlparse's failures-and-restarts table (the log's two compiles restarted at the print) and each
# compile's time by phase, collapsed
has "failures and restarts" samples/report.html '<h3 id="failures">Failures and restarts</h3>'
python3 - samples/report.html <<'PY' || fail "failures and restarts rows"
import re, sys
s = open(sys.argv[1]).read()
t = s.split('<h3 id="failures">', 1)[1].split("</table>", 1)[0]
rows = re.findall(r"<tr><td>([^<]*)</td><td>[^<]*</td><td>restarted</td>", t)
assert rows == ["0/0", "0/1"], rows
assert "Failed to trace builtin operator" in t
p = s.split('<details id="phases">', 1)[1].split("</table>", 1)[0]
assert "<th class=\"n\">dynamo ms</th>" in p and "<td>1/1</td>" in p and "1715.3" in p, p[:300]
# the stack trie: the frames of the log's four compiles merged, each id at its own last frame
t = s.split('<details id="stacks">', 1)[1].split("</details>", 1)[0]
leaves = re.findall(r'<code>([^<]*)</code> <span class="ids">&rarr; ([^<]*)</span>', t)
assert leaves == [("/root/out/tr/model.py:10 in forward", "0/0, 0/1"),
                  ("/root/out/tr/model.py:12 in torch_dynamo_resume_in_forward_at_12", "1/0, 1/1")], leaves
PY
python3 -c '
import re, sys
s = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.sub(r"<script>.*?</script>", "", s, flags=re.S))' samples/report.html "$T/nojs.html"
chrome --screenshot="$T/nojs.png" "file://$T/nojs.html" >/dev/null
python3 tests/html-check.py png "$T/nojs.png" docs/html/summary.png 0.05 || fail "the summary without JavaScript"
# a 5k-node graph: the node table draws the rows in view, and #node=NAME opens it at a node,
# the last one included (the window is drawn where the table is scrolled to, not at row 0)
python3 - "$T/chain.json" <<'PY'
import json, sys
t = {"dtype": "float32", "shape": [8, 8], "stride": [8, 1], "storage_offset": 0, "device": "cuda:0"}
nodes = [{"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}, "val": t}]
for i in range(5000):
    nodes.append({"name": "n%d" % i, "op": "call_function", "target": "aten.relu.default",
                  "args": [{"node": nodes[-1]["name"]}], "kwargs": {}, "val": t})
nodes.append({"name": "output", "op": "output", "target": "output",
              "args": [[{"node": "n4999"}]], "kwargs": {}, "val": None})
json.dump({"format": "cgscope.graph", "version": 1, "name": "chain", "producer": {"tool": "torch",
           "version": "2.11.0", "stage": "dynamo"}, "symbols": {}, "nodes": nodes}, open(sys.argv[1], "w"))
PY
"$CGSCOPE" html "$T/chain.json" -o "$T/chain.html" >/dev/null 2>&1 || fail "html of a 5k-node graph"
for at in n4999 n2500 n3; do
    chrome --dump-dom "file://$T/chain.html#node=$at" >"$T/chain-dom.html"
    python3 - "$T/chain-dom.html" "$at" <<'PY' || fail "#node=$at: the node table is not at it"
import re, sys
s = open(sys.argv[1]).read()
assert 'data-ready="1"' in s and 'data-errors="' not in s, "script"
assert re.search(r'<tr class="hit"><td[^>]*>%s</td>' % sys.argv[2], s), "no marked row"
rows = len(re.findall(r"<tr>", s))
assert rows < 400, "%d rows drawn: not a window" % rows
PY
done
# #sort=COLUMN sorts the node table (n9 before n10, as people read numbers); #sort=-COLUMN
# descending: the rows drawn first are the order's first
for key in node -node; do
    chrome --dump-dom "file://$T/chain.html#sort=$key" >"$T/chain-sort.html"
    python3 - "$T/chain-sort.html" "$key" <<'PY' || fail "#sort=$key: the node table's order"
import re, sys
s = open(sys.argv[1]).read()
assert 'data-ready="1"' in s and 'data-errors="' not in s, "script"
assert re.search(r'data-sort-ms="\d+"', s), "no sort time"
names = re.findall(r'<tr><td[^>]*>((?:n\d+)|x|output)</td><td[^>]*>(?:placeholder|call_function|output)', s)
want = ["x"] + ["n%d" % i for i in range(5000)] + ["output"]
want.sort(key=lambda n: (n.rstrip("0123456789"), int(n[1:]) if n[1:].isdigit() else -1))
if sys.argv[2].startswith("-"):
    want.reverse()
assert names == want[:len(names)] and len(names) > 20, (names[:8], want[:8])
PY
done
# --baseline RUN: what changed since it first, the same changes as cgscope diff RUN SOURCE, and
# marked where they are: the compiles they concern, the pieces (in the table and the picture)
for n in warm changed; do xz -dc tests/data/traces/graph_break.$n.torch_trace.log.xz >"$T/$n.log"; done
check "html --baseline" 0 "$CGSCOPE" html "$T/changed.log" --baseline "$T/warm.log" -o "$T/bl.html"
"$CGSCOPE" diff "$T/warm.log" "$T/changed.log" --json >"$T/bl-diff.json" 2>/dev/null
chrome --dump-dom "file://$T/bl.html" >"$T/bl-dom.html"
python3 - "$T/bl.html" "$T/bl-dom.html" "$T/bl-diff.json" <<'PY' || fail "html --baseline: the changes and their marks"
import json, re, sys
page, dom, diff = open(sys.argv[1]).read(), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
assert 'data-ready="1"' in dom and 'data-errors="' not in dom, "script"
data = json.loads(page.split('id="cgs-data">', 1)[1].split("</script>", 1)[0])
assert data["baseline"]["changes"] == diff["changes"] and diff["changes"], "not diff's changes"
main = page.split("<main>", 1)[1]
assert main.lstrip().startswith('<section id="changes"><h2>Changed since the baseline</h2>'), main[:80]
rows = re.findall(r'<tr class="error"><td>cache_key</td>', page)
assert len(rows) == sum(c["kind"] == "cache_key" and c["worse"] for c in diff["changes"]), rows
# every compile a change names is marked, in the static table and the script's
want = {x for c in diff["changes"] for x in (c["compile_ids"] or "").split(", ") if x}
for text in (page, dom):
    got = set(re.findall(r'<tr class="changed"><td[^>]*>([^<]*)</td>', text))
    assert got == want, (got, want)
PY
python3 - samples/llama_tiny.dynamo.json "$T/attn.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))  # its second attention renamed: one cut fewer under @sdpa
att = [n for n in g["nodes"] if n.get("target") == "torch._C._nn.scaled_dot_product_attention"]
att[-1]["target"] = "torch.ops.cgs_test.my_attention"
json.dump(g, open(sys.argv[2], "w"))
PY
check "html --baseline, pieces" 0 "$CGSCOPE" html "$T/attn.json" --baseline samples/llama_tiny.dynamo.json \
    --split-ops @sdpa -o "$T/bl2.html"
chrome --dump-dom "file://$T/bl2.html" >"$T/bl2-dom.html"
python3 - "$T/bl2.html" "$T/bl2-dom.html" <<'PY' || fail "html --baseline: the changed piece marked"
import json, re, sys
page, dom = open(sys.argv[1]).read(), open(sys.argv[2]).read()
data = json.loads(page.split('id="cgs-data">', 1)[1].split("</script>", 1)[0])
p = [c for c in data["baseline"]["changes"] if c["kind"] == "pieces"][0]
assert p["pieces"], p
for name in p["pieces"].split(", "):
    assert re.search(r'<g id="[^"]*" class="node changed"[^>]*aria-label="piece %s:' % name, dom), name
    assert re.search(r'<tr class="changed"><td[^>]*>%s</td>' % name, dom), name
assert 'Changed since the baseline: pieces, ops' in page
PY
check "html without --baseline: no changes section" 0 "$CGSCOPE" html samples/llama_tiny.dynamo.json -o "$T/nb.html"
hasnt "no section" "$T/nb.html" 'id="changes"'
has "baseline null" "$T/nb.html" '"baseline":null'
check "html --baseline of a missing run" 2 "$CGSCOPE" html samples/llama_tiny.dynamo.json \
    --baseline "$T/nothing.json" -o "$T/nb2.html"
nofile "no page written" "$T/nb2.html"

# --redact: where the run happened is left out (absolute paths cut to their last part, the
# profiled command line gone), on the page and in its data; without it both are there
check "html --redact" 0 "$CGSCOPE" html samples/profile/transformer.dynamo.json samples/profile \
    samples/graph_break.torch_trace.log --split-ops @sdpa --redact -o "$T/red.html"
hasnt "no absolute path when redacted" "$T/red.html" '/root/out/'
hasnt "no command line when redacted" "$T/red.html" 'prof_workload.py --mode'
has "the file name kept" "$T/red.html" '.../model.py'
has "paths without --redact" samples/report.html '/root/out/tr/model.py'
chrome --dump-dom "file://$T/red.html" >"$T/red-dom.html"
grep -q 'data-ready="1"' "$T/red-dom.html" || fail "the redacted page's script did not run"

# each compile of a log others wrote (tlparse's simple.log): its graphs as the log printed them,
# its guards and the code Inductor generated, folded under the compile id
mkdir -p "$T/tl"
tar -xJf tests/data/tlparse/inputs.tar.xz -C "$T/tl"
check "html of tlparse's simple.log" 0 "$CGSCOPE" html "$T/tl/inputs/simple.log" -o "$T/simple.html"
python3 - "$T/simple.html" "$T/tl/inputs/simple.log" <<'PY' || fail "each compile's guards and code"
import re, sys
s = open(sys.argv[1]).read()
d = s.split('<h3 id="details">Each compile</h3>', 1)[1].split("</section>", 1)[0]
assert re.findall(r"<summary>([^<]*)</summary>", d)[:7] == [
    "0/0 forward (test_torchinductor.py:11123)", "graph: dynamo", "graph: aot_inference",
    "graph: post_grad", "compilation metrics", "guards", "generated code"], d[:300]
# the compilation metrics: every field of the log's record, in its order
import json
rec = next(json.loads(l[l.index("{"):])["compilation_metrics"] for l in open(sys.argv[2])
           if '{"compilation_metrics"' in l)
m = d.split("<summary>compilation metrics</summary><pre>", 1)[1].split("</pre>", 1)[0]
names = [l.split(":", 1)[0] for l in m.split("\n")]
assert names == list(rec), (names, list(rec))
assert "guard_count: %d" % rec["guard_count"] in m.split("\n"), m
gd = d.split("<summary>graph: dynamo</summary><pre>", 1)[1]
assert gd.startswith("class GraphModule(torch.nn.Module):"), gd[:80]
g = d.split("<summary>guards</summary><pre>", 1)[1]
assert g.startswith("TREE_GUARD_MANAGER:\n+- RootGuardManager"), g[:80]
c = d.split("<summary>generated code</summary><pre>", 1)[1]
assert c.startswith("# AOT ID: [&#39;0_inference&#39;]") or c.startswith("# AOT ID: ['0_inference']"), c[:80]
PY
# several ranks (tlparse's multi_rank_logs): each rank's compiles, and the compile ids only one
# rank made, as the logs' own dynamo_start records say
check "html of four ranks' logs" 0 "$CGSCOPE" html "$T/tl/inputs/multi_rank_logs" -o "$T/ranks.html"
python3 - "$T/ranks.html" "$T/tl/inputs/multi_rank_logs" <<'PY' || fail "the ranks table"
import glob, json, re, sys
s = open(sys.argv[1]).read()
t = s.split('<h3 id="ranks">Ranks</h3>', 1)[1].split("</p>", 1)[0]
rows = re.findall(r'<tr><td>(\d+)</td><td class="n">(\d+)</td>.*?<td>([^<]*)</td></tr>', t)
ids = {}
for f in glob.glob(sys.argv[2] + "/*rank_*.log"):
    rank = int(re.search(r"rank_(\d+)", f).group(1))
    for line in open(f):
        if '{"dynamo_start"' in line:
            j = json.loads(line[line.index("{"):])
            ids.setdefault(rank, set()).add("%d/%d" % (j["frame_id"], j["frame_compile_id"]))
only = {r: sorted(v - set().union(*(w for q, w in ids.items() if q != r)),
                  key=lambda x: tuple(map(int, x.split("/")))) for r, v in ids.items()}
got = {int(r): [x for x in u.split(", ") if x] for r, n, u in rows}
assert got == only, (got, only)
assert ("compiled differently" in t) == any(only.values()), t[-200:]
PY
chrome --dump-dom "file://$T/ranks.html" >"$T/ranks-dom.html"
grep -q '<text x="0" y="13">rank [0-9]* · ' "$T/ranks-dom.html" ||
    fail "the compile timeline of several ranks names each row's rank"
chrome --dump-dom "file://$T/simple.html" >"$T/simple-dom.html"
grep -q 'data-ready="1"' "$T/simple-dom.html" || fail "tlparse's simple.log: the page's script did not run"

# the profile joined to the compiles: a profile of a model with a graph break (its ranges name
# compile 0/0's and 1/0's pieces): per compile id its pieces, calls and GPU time, as report --json
# adds them up
"$CGSCOPE" report tests/data/prof/breaks --json >"$T/breaks-report.json" 2>/dev/null
check "html of a profile with compile ids" 0 "$CGSCOPE" html tests/data/prof/breaks/0_0.dynamo.json \
    tests/data/prof/breaks -o "$T/pb.html"
python3 - "$T/pb.html" "$T/breaks-report.json" <<'PY' || fail "GPU time per compile"
import json, re, sys
s, rep = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
t = s.split('id="gpu-compiles"', 1)[1].split("</table>", 1)[0]
got = re.findall(r'<tr><td>([^<]*)</td><td class="n">(\d+)</td><td class="n">(\d+)</td><td class="n">([0-9.]+)</td>', t)
want = {}
for p in rep["pieces"]:
    cid = p["range"].split(":", 1)[1].rsplit("/", 1)[0]
    w = want.setdefault(cid, [0, 0, 0])
    w[0] += 1; w[1] = max(w[1], p["calls"]); w[2] += p["gpu_ns"]
assert [(c, int(n), int(k), float(ms)) for c, n, k, ms in got] == \
    [(c, w[0], w[1], round(w[2] / 1e6, 3)) for c, w in want.items()], (got, want)
PY

# a folded box (three repeats of a transformer block) lists every piece it stands for: its id
# names them, and opening them lists the nodes of all three, as many as split --json gives them
"$CGSCOPE" split samples/cgs_transformer_dyn.json --split-ops cgs.attention --json >"$T/fold-split.json" 2>/dev/null
check "html of a folded picture" 0 "$CGSCOPE" html samples/cgs_transformer_dyn.json --split-ops cgs.attention -o "$T/fold.html"
ids=$(grep -o 'id="b:submod_[0-9]*,[^"]*"' "$T/fold.html" | sed -n 2p | sed 's/id="b://; s/"//')
[ -n "$ids" ] || fail "a folded box names the pieces it stands for"
chrome --dump-dom "file://$T/fold.html#open=g0:$ids" >"$T/fold-dom.html"
python3 - "$T/fold-dom.html" "$T/fold-split.json" "$ids" <<'PY' || fail "opening a folded box lists every piece's nodes"
import json, re, sys
from collections import Counter
s, split, ids = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3].split(",")
assert len(ids) == 3, ids
rows = re.findall(r'<tr><td[^>]*>[^<]*</td>(?:<td[^>]*>[^<]*</td>){4}<td[^>]*>(submod_\d+)</td>', s)
want = {p["name"]: p["n_nodes"] for p in split["pieces"] if p["name"] in ids}
assert Counter(rows) == Counter(want), (Counter(rows), want)
PY

# the layout section is drawn from the layout document: the decision, and the convolutions and
# stride orders as tables of as many rows as cgscope layout --json has
CNN=tests/data/tracegraphs/cnn_infer/json/0_0.post_grad.inference.json
"$CGSCOPE" layout --json "$CNN" >"$T/layout.json" 2>/dev/null
"$CGSCOPE" html "$CNN" -o "$T/cnn.html" >/dev/null 2>&1 || fail "html of a post-grad graph"
chrome --dump-dom "file://$T/cnn.html" >"$T/cnn-dom.html"
python3 - "$T/cnn-dom.html" "$T/layout.json" <<'PY' || fail "the layout section"
import json, re, sys
dom, L = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
assert "<b>layout optimisation %s</b>" % ("on" if L["layout_opt"] else "off") in dom, "decision"
assert L["convolutions"] and "<h4>convolutions (%d)</h4>" % len(L["convolutions"]) in dom, "convolutions"
if L["stride_orders"]:
    assert "<h4>stride orders (%d)</h4>" % len(L["stride_orders"]) in dom, "stride orders"
assert "<pre>" not in dom.split('id="cgs-data"')[0], "a raw dump"
PY
# hostile text: node names, targets, source frames and file names holding <!--, <script,
# </script>, onerror= and the like; the page's script still runs, and none of the text does
# (each payload would mark the page); the Content-Security-Policy allows only the page's script
python3 - "$T" <<'PY'
import json, os, sys
P = ["<!--", "<script>document.documentElement.setAttribute('data-pwned','1')</script>",
     "</script><script>document.documentElement.setAttribute('data-pwned','2')</script>",
     "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','3')\">",
     "<svg onload=\"document.documentElement.setAttribute('data-pwned','4')\">", "]]>", "-->",
     "\"><script>document.documentElement.setAttribute('data-pwned','5')</script>", "&lt;&amp;",
     "\u2028\u2029", "L" * 20000]
t = {"dtype": "float32", "shape": [2], "stride": [1], "storage_offset": 0, "device": "cuda:0"}
nodes = [{"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}, "val": t}]
for i, p in enumerate(P):
    nodes.append({"name": "n%d%s" % (i, p), "op": "call_function", "target": "evil.op%d%s" % (i, p),
                  "args": [{"node": nodes[-1]["name"]}], "kwargs": {"k": p}, "val": t,
                  "stack_trace": 'File "/home/u/%s.py", line 3, in forward\n    y = f(x)  # %s' % (p, p)})
nodes.append({"name": "output", "op": "output", "target": "output",
              "args": [[{"node": nodes[-1]["name"]}]], "kwargs": {}, "val": None})
name = os.path.join(sys.argv[1], "evil<!--<script>.json")
json.dump({"format": "cgscope.graph", "version": 1, "name": P[2], "producer": {"tool": "torch",
           "version": "2.11.0", "stage": "dynamo"}, "symbols": {}, "nodes": nodes}, open(name, "w"))
PY
"$CGSCOPE" html "$T/evil<!--<script>.json" --title "</script><!--<script>" -o "$T/evil.html" >/dev/null 2>&1 ||
    fail "html of hostile text"
chrome --dump-dom "file://$T/evil.html" >"$T/evil-dom.html"
python3 - "$T/evil-dom.html" "$T/evil.html" <<'PY' || fail "hostile text changed what the page does"
import re, sys
dom, page = open(sys.argv[1]).read(), open(sys.argv[2]).read()
assert 'data-ready="1"' in dom and 'data-errors="' not in dom, "the page's script did not run"
assert not re.search(r"<html[^>]*data-pwned", dom), "a payload ran"
assert not re.search(r"<(img|svg)[^>]*onerror|<(img|svg)[^>]*onload", dom), "a payload became an element"
assert "Content-Security-Policy" in page and "script-src 'sha256-" in page, "no CSP"
data = page.split('id="cgs-data">', 1)[1].split("</script>", 1)[0]
assert "<" not in data and ">" not in data, "raw < or > in the embedded JSON"
PY
# on paper: the 5k-node graph prints in under 15 pages (no empty spacer, the rows drawn and how
# many more there are)
chrome --print-to-pdf="$T/chain.pdf" "file://$T/chain.html" >/dev/null
pages=$(grep -a -o '/Count [0-9]*' "$T/chain.pdf" | sed 's/.* //' | sort -n | tail -1)
[ -n "$pages" ] && [ "$pages" -lt 15 ] || fail "the 5k-node graph prints on ${pages:-?} pages"
grep -a -q 'Count' "$T/chain.pdf" || fail "no PDF"
# a phone's width: at 390 px the page takes no sideways scroll (wide tables scroll in their box,
# long text wraps), for the sample, the 5k-node graph and the hostile one (a 20,000-character
# name); the page is framed 390 px wide (headless Chromium's window is never under 500)
narrow() {
    cp "$1" "$T/narrow-page.html"
    printf '%s\n' '<!DOCTYPE html><html><body style="margin:0">' \
        '<iframe id="f" src="narrow-page.html" style="width:390px;height:900px;border:0"></iframe>' \
        '<script>window.addEventListener("load", function () { var d = document.getElementById("f")' \
        '.contentDocument.documentElement; document.body.setAttribute("data-inner",' \
        'd.getAttribute("data-ready") + " " + d.getAttribute("data-width")); });</script></body></html>' \
        >"$T/narrow.html"
    chrome --allow-file-access-from-files --dump-dom "file://$T/narrow.html" |
        grep -o 'data-inner="[^"]*"'
}
for page in samples/report.html "$T/chain.html" "$T/evil.html"; do
    got=$(narrow "$page")
    [ "$got" = 'data-inner="1 390"' ] || fail "390 px wide: $page is $got (ready, width)"
done
# ... and the page of every log and folder of tlparse's tests (24 pages of logs others wrote)
for src in "$T"/tl/inputs/*; do
    "$CGSCOPE" html "$src" -o "$T/tl-page.html" >/dev/null 2>&1 || { fail "html of $src"; continue; }
    got=$(narrow "$T/tl-page.html")
    [ "$got" = 'data-inner="1 390"' ] || fail "390 px wide: the page of $src is $got (ready, width)"
done
for shot in summary: piece:#open=g0:submod_2 profile:#only=profile compiles:#only=compiles; do
    name=${shot%%:*} hash=${shot#*:}
    chrome --screenshot="$T/$name.png" "file://$PWD/samples/report.html$hash" >/dev/null
    [ -s "$T/$name.png" ] || { fail "no screenshot $name"; continue; }
    python3 tests/html-check.py png "$T/$name.png" "docs/html/$name.png" 0.03 ||
        fail "screenshot $name differs from docs/html/$name.png (kept in ${KEEP:-$T})"
    [ -n "${KEEP:-}" ] && cp "$T/$name.png" "$KEEP/"
done
finish
