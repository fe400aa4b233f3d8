#!/bin/sh
# Every JSON document a command writes is the one docs/json.md describes: no key the page does
# not list, no required key missing, every value of its type (tests/json-schema.py); and the
# keys a command's --help names under "JSON keys" are the page's. The documents come from every
# command on the samples (and the fixtures, where present), errors included.
. tests/cli/lib.sh
J=$T/json
mkdir -p "$J"
S=samples
n=0
doc() { # NAME CMD...: keep CMD's standard output as a document when it succeeds
    name=$1; shift
    "$@" > "$J/$name.json" 2> "$T/doc-err"
    rc=$?
    if [ $rc = 0 ]; then
        n=$((n + 1))
    else
        rm -f "$J/$name.json"
        fail "$name: $* exited $rc: $(head -c 300 "$T/doc-err")"
    fi
}
for g in $S/*.json; do
    case $g in *split*|*events*) continue;; esac
    b=$(basename "$g" .json)
    doc "info-$b" "$CGSCOPE" info "$g" --json
    doc "shapes-$b" "$CGSCOPE" shapes --reinfer "$g" --json
    doc "split-$b" "$CGSCOPE" split "$g" --split-ops @sdpa,@vllm,cgs.attention --allow-missing-ops --json
    case $g in *post_grad*) doc "layout-$b" "$CGSCOPE" layout "$g" --json;; esac
done
if [ -d "$FIXTURES" ]; then
    for g in "$FIXTURES"/*/*.json; do
        case $g in *split*|*layout.json|*events*|*index*|*signature*) continue;; esac
        b=fx-$(basename "$g" .json)
        doc "info-$b" "$CGSCOPE" info "$g" --json
        doc "split-$b" "$CGSCOPE" split "$g" --split-ops @sdpa,@vllm,cgs.attention --allow-missing-ops --json
        case $g in */post_grad/*) doc "layout-$b" "$CGSCOPE" layout "$g" --json;; esac
    done
    tr=$FIXTURES/traces
    doc diff-all "$CGSCOPE" cache diff "$tr/resnet18_mlp.cold.torch_trace.log" "$tr/resnet18_mlp.warm.torch_trace.log" --json --all
    doc top-fx "$CGSCOPE" top --once --json "$tr"
fi
doc shapes-bind "$CGSCOPE" shapes $S/cgs_transformer_dyn.json --bind s23=4 --bind s27=8 --split-ops cgs.attention --json
doc split-why "$CGSCOPE" split $S/llama_tiny.dynamo.json --split-ops @sdpa --why view --json
doc dot "$CGSCOPE" dot $S/llama_tiny.dynamo.json --split-ops @sdpa -o "$T/l.svg" --json
doc dot-pieces "$CGSCOPE" dot $S/resnet18.dynamo.json --collapse module:2 -o "$T/r.dot" --json
doc breaks "$CGSCOPE" breaks $S/graph_break.torch_trace.log --json
doc top "$CGSCOPE" top --once --json $S/llama_tiny.events.jsonl $S/graph_break.torch_trace.log $S/magi_compile_cache.py
doc cache "$CGSCOPE" cache $S/magi_compile_cache.py --json
doc diff "$CGSCOPE" cache diff $S/graph_break.torch_trace.log $S/graph_break.torch_trace.log --json
doc simulate "$CGSCOPE" cache simulate $S/cgs_transformer_dyn.dynamo.json --split-ops cgs.attention --shapes 1,2,4,8,2,1 --compile-sizes 1,2 --json
doc report "$CGSCOPE" report $S/profile --json
doc report-graph "$CGSCOPE" report $S/profile --json --graph $S/profile/transformer.dynamo.json --split-ops @sdpa
doc report-ranges "$CGSCOPE" report $S/profile --json --ranges
doc html "$CGSCOPE" html $S/profile/transformer.dynamo.json $S/profile $S/graph_break.torch_trace.log $S/two_graphs.torch_trace.log.xz --split-ops @sdpa -o "$T/r.html" --json
# an error, as --json writes it on standard error
"$CGSCOPE" info "$T/missing.json" --json > /dev/null 2> "$J/error.json" && fail "a missing graph read"
tail -n 1 "$J/error.json" > "$T/e" && mv "$T/e" "$J/error.json"
python3 tests/json-schema.py docs/json.md "$J"/*.json > "$T/schema" || {
    fail "documents against docs/json.md"
    sed 's/^/  | /' "$T/schema" | head -30
}
# the help's "JSON keys" name only keys the page describes
for c in $("$CGSCOPE" help --commands); do
    "$CGSCOPE" "$c" --help | python3 tests/json-schema.py docs/json.md --help-keys "$c" || fail "$c --help's JSON keys"
done
# the checker fails what it should (it is not a stub): an unknown key, a missing one, a wrong type
python3 - "$J/split-llama_tiny.dynamo.json" "$T/bad" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for i, mutate in enumerate([lambda d: d.__setitem__("surprise", 1),
                            lambda d: d["pieces"][0].pop("n_nodes"),
                            lambda d: d["pieces"][0].__setitem__("nodes", 3)]):
    x = json.loads(json.dumps(d))
    mutate(x)
    json.dump(x, open("%s%d.json" % (sys.argv[2], i), "w"))
PY
for i in 0 1 2; do
    python3 tests/json-schema.py docs/json.md "$T/bad$i.json" > /dev/null && fail "the checker let bad document $i pass"
done
[ "$n" -gt 40 ] || fail "only $n documents made"
echo "$n documents checked"
finish
