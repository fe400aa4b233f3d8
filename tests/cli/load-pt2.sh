#!/bin/sh
# torch.export .pt2 archives on the command line: every command takes one where
# it takes a graph JSON; `info --json` agrees with the JSON twin (node count
# and operator histogram, counted here with Python's json module); bad
# archives exit 2 with a message naming the file and nothing on stdout.
. tests/cli/lib.sh
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 77; }
ls "$FIXTURES"/export/*.pt2 >/dev/null 2>&1 || { echo "no .pt2 fixtures in $FIXTURES/export"; exit 77; }
tmp=$T

for p in "$FIXTURES"/export/*.pt2; do
    twin=${p%.pt2}.json
    "$CGSCOPE" info "$p" --json >"$tmp/out.json" 2>"$tmp/err" || { fail "info $p: exit $?"; sed 's/^/  | /' "$tmp/err"; continue; }
    python3 - "$tmp/out.json" "$twin" <<'EOF' || fail "info $p disagrees with its twin"
import collections, json, sys
got = json.load(open(sys.argv[1]))
twin = json.load(open(sys.argv[2]))
ops = collections.Counter(n["target"] for n in twin["nodes"]
                          if n["op"] in ("call_function", "call_method", "call_module"))
ok = got["nodes"] == len(twin["nodes"]) and got["ops"] == dict(ops)
ok = ok and set(got.get("symbols", {})) == set(twin.get("symbols", {}))
# which inputs are parameters, buffers, user inputs (the fixture's signature file)
sig = json.load(open(sys.argv[2][:-5] + ".signature.json"))
want = [(s["arg"], s["kind"].lower(), s["target"]) for s in sig["input_specs"]]
have = [(i["name"], i.get("kind"), i.get("fqn")) for i in got["inputs"]]
if want != have:
    print("  inputs' signature differs: %s vs %s" % (have[:3], want[:3]))
    ok = False
if not ok:
    print("  nodes %s vs %d; ops equal: %s" % (got["nodes"], len(twin["nodes"]), got["ops"] == dict(ops)))
sys.exit(0 if ok else 1)
EOF
done

# the other commands run on a .pt2
dyn="$FIXTURES/export/cgs_transformer_dyn.pt2"
"$CGSCOPE" split "$dyn" --split-ops cgs.attention --json >"$tmp/split.json" 2>"$tmp/err" || fail "split on a .pt2: exit $?"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if len(d['pieces']) == 9 else 1)" "$tmp/split.json" \
    || fail "split on cgs_transformer_dyn.pt2: expected 9 pieces (4 attention ops)"
"$CGSCOPE" shapes "$dyn" --json >/dev/null 2>"$tmp/err" || fail "shapes on a .pt2: exit $?"
# layout is Inductor's decision on post-grad graphs: an export graph is refused with the hint
"$CGSCOPE" layout "$dyn" --json >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "post-grad graph" "$tmp/err" || fail "layout on an export .pt2: exit $rc"

# every analysis gives the same answer on a .pt2 as on its JSON twin
for p in "$FIXTURES"/export/*.pt2; do
    twin=${p%.pt2}.json
    for cmd in "split --split-ops cgs.attention,aten.conv2d.default --allow-missing-ops --json" "shapes --reinfer --json"; do
        # shellcheck disable=SC2086
        "$CGSCOPE" $cmd "$p" >"$tmp/a.json" 2>/dev/null
        ra=$?
        # shellcheck disable=SC2086
        "$CGSCOPE" $cmd "$twin" >"$tmp/b.json" 2>/dev/null
        rb=$?
        [ "$ra" = "$rb" ] || fail "$cmd: exit $ra on $p, $rb on its twin"
        python3 - "$tmp/a.json" "$tmp/b.json" <<'EOF2' || fail "$cmd: $p and its twin differ"
import json, sys
def strip(d):  # the top level names the file and the graph, which differ
    return {k: v for k, v in d.items() if k not in ("graph", "name", "file")}
a, b = (strip(json.load(open(f))) for f in sys.argv[1:3])
sys.exit(0 if a == b else 1)
EOF2
    done
done

# bad archives: exit 2, "FILE: error: ...", nothing on stdout
bad() { # file, expected message, [args...]
    f=$1; want=$2; shift 2
    "$CGSCOPE" info "$@" "$f" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = 2 ] || fail "$f: exit $rc, expected 2"
    grep -qF -- "$f: error: $want" "$tmp/err" || { fail "$f: expected '$f: error: $want'"; sed 's/^/  | /' "$tmp/err"; }
    [ -s "$tmp/out" ] && fail "$f: wrote to stdout"
}
printf 'hello' >"$tmp/text.pt2"
bad "$tmp/text.pt2" "not a zip archive"
: >"$tmp/empty.pt2"
bad "$tmp/empty.pt2" "not a zip archive (the file is empty)"
head -c 100000 "$FIXTURES/export/tiny_cnn.pt2" >"$tmp/cut.pt2"
bad "$tmp/cut.pt2" "truncated or damaged zip archive"
python3 - "$tmp" "$FIXTURES/export/tiny_cnn.pt2" <<'EOF'
import sys, zipfile
tmp, src = sys.argv[1], sys.argv[2]
model = zipfile.ZipFile(src).read("tiny_cnn/models/model.json").decode()
def write(name, records):
    with zipfile.ZipFile("%s/%s" % (tmp, name), "w") as z:
        for k, v in records.items():
            z.writestr(k, v)
base = {"a/archive_format": "pt2", "a/archive_version": "0"}
write("nomodel.pt2", base)
write("two.pt2", dict(base, **{"a/models/first.json": model, "a/models/second.json": model}))
write("v9.pt2", dict(base, **{"a/models/model.json": model.replace('"major": 8', '"major": 9')}))
write("garbage.pt2", dict(base, **{"a/models/model.json": model[:5000]}))
write("unknown.pt2", dict(base, **{"a/models/model.json": model.replace('"as_ints": [1, 1]', '"as_wobble": [1, 1]', 1)}))
EOF
bad "$tmp/nomodel.pt2" "no model in the archive: no 'a/models/NAME.json' record"
bad "$tmp/two.pt2" "the archive holds 2 models ('first', 'second'): choose one with --model NAME"
bad "$tmp/two.pt2" "no model 'third' in the archive" --model third
bad "$tmp/v9.pt2" "unsupported schema version 9.17"
bad "$tmp/garbage.pt2" "malformed JSON"
for cmd in "split --split-ops aten.conv2d.default" shapes info; do
    # shellcheck disable=SC2086
    "$CGSCOPE" $cmd --model first "$tmp/two.pt2" >/dev/null 2>"$tmp/err" || fail "$cmd --model first: exit $?"
    # shellcheck disable=SC2086
    "$CGSCOPE" $cmd "$tmp/two.pt2" >/dev/null 2>"$tmp/err"
    [ $? = 2 ] || fail "$cmd on a two-model archive without --model: expected exit 2"
done
"$CGSCOPE" info --model second "$tmp/two.pt2" >"$tmp/out" 2>"$tmp/err" || fail "--model second: exit $?"
grep -q "nodes:    44" "$tmp/out" || fail "--model second: expected 44 nodes"
# an unknown argument kind is reported and loading goes on
"$CGSCOPE" info "$tmp/unknown.pt2" >"$tmp/out" 2>"$tmp/err" || fail "unknown argument kind: exit $?"
grep -qF "unknown argument kind 'as_wobble'" "$tmp/err" || fail "unknown argument kind not reported"
grep -q "nodes:    44" "$tmp/out" || fail "unknown argument kind: expected 44 nodes"

# a Hugging Face decoder exported by torch 2.11 (tests/gpu/model_graphs.py; weights left
# out): its slices end at sys.maxsize (9223372036854775807), which a double rounds to 2**63
q="$(dirname "$0")/../data/pt2/qwen2_tiny.export.pt2"
"$CGSCOPE" shapes --reinfer --check "$q" >"$tmp/out" 2>"$tmp/err" ||
    fail "qwen2 .pt2 with sys.maxsize slice ends: exit $? $(head -c 300 "$tmp/err")"
"$CGSCOPE" shapes --reinfer --json --all "$q" 2>/dev/null | python3 -c '
import json, sys
doc = json.load(sys.stdin)
ends = [n for n in doc["nodes"] if n["target"] == "aten.slice.Tensor"]
assert ends, "no slice in the qwen2 graph"
' || fail "qwen2 .pt2: no slice read"

finish
