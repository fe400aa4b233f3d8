#!/bin/sh
# cgscope layout: help, usage errors, bad input, and verdicts on post-grad fixtures
# (the verdicts are PyTorch's own, from the fixtures' .layout.json sidecars).
. tests/cli/lib.sh
PG=$FIXTURES/post_grad
first() { # description, file, prefix of the first line
    head -n 1 "$2" | grep -q "^$3" || { echo "FAIL $1: first line '$(head -n 1 "$2")'"; fails=$((fails + 1)); }
}

check "layout --help" 0 "$CGSCOPE" layout --help
has "help usage" $out "usage: cgscope layout"
has "help rules" $out "--rules RULES"
cp $out $out.help
check "help layout" 0 "$CGSCOPE" help layout
cmp -s $out $out.help || { echo "FAIL 'help layout' differs from 'layout --help'"; fails=$((fails + 1)); }
check "no graph" 2 "$CGSCOPE" layout
has "missing GRAPH" $err "missing GRAPH"
check "unknown rule set" 2 "$CGSCOPE" layout --rules torch-1.0 x.json
has "rule set message" $err "--rules takes torch-2.11 or torch-2.1, not 'torch-1.0'"
check "two modes" 2 "$CGSCOPE" layout --inference --training x.json
check "two switches" 2 "$CGSCOPE" layout --force-layout-opt --no-layout-opt x.json
check "bad --user-outputs" 2 "$CGSCOPE" layout --user-outputs -1 x.json
check "missing file" 2 "$CGSCOPE" layout /nonexistent/graph.json
has "missing file message" $err "error:"
printf '{"format": "cgscope.graph", "version": 1, "nodes": [\n  {"name": "x", "op": 7}]}\n' >$out.bad.json
check "malformed graph" 2 "$CGSCOPE" layout $out.bad.json
has "malformed graph place" $err "$out.bad.json:2:"

if [ ! -d "$PG" ]; then
    rm -f $out* $err
    echo "fixtures not found at $PG (set FIXTURES)"
    [ $fails = 0 ] || exit 1
    exit 77
fi
# the sidecar is no graph: a clear message and exit 2
check "sidecar is no graph" 2 "$CGSCOPE" layout "$PG/resnet18_eval.layout.json"
has "sidecar message" $err "error:"

check "resnet18 eval" 0 "$CGSCOPE" layout "$PG/resnet18_eval.json"
first "verdict leads" $out "layout opt ON: inference FLOP vote"
check "resnet18 eval --json" 0 "$CGSCOPE" layout "$PG/resnet18_eval.json" --json
has "json verdict" $out '"layout_opt":	true'
has "json rule" $out '"rule":	"flop_vote"'
for key in reason prefer_channels_last convolutions stride_orders fixed_layout fallbacks \
    input_constraints realize_hints flop_vote; do
    has "json key $key" $out "\"$key\":"
done
check "unet train fwd" 0 "$CGSCOPE" layout "$PG/unet_small_train.fwd.json"
first "in/out veto leads" $out "layout opt OFF: training graph has convolution \`convolution_7\`"
check "resnet18 dyn" 0 "$CGSCOPE" layout "$PG/resnet18_dyn.json"
first "dynamic leads" $out "layout opt OFF: symbolic shapes"
check "backward" 0 "$CGSCOPE" layout "$PG/tiny_cnn_train.bwd.json"
first "no conv leads" $out "layout opt OFF: no convolution"
has "conv backward fallback" $out "fallback_kernel"
# torch 2.1 applies the training vetoes to inference graphs too
check "unet eval torch-2.1" 0 "$CGSCOPE" layout --rules torch-2.1 "$PG/unet_small_eval.json"
first "2.1 veto" $out "layout opt OFF: graph has convolution"
check "unet eval torch-2.11" 0 "$CGSCOPE" layout "$PG/unet_small_eval.json"
first "2.11 vote" $out "layout opt ON"
check "switched off" 0 "$CGSCOPE" layout --no-layout-opt --json "$PG/resnet18_eval.json"
has "off verdict" $out '"layout_opt":	false'
has "off empty set" $out '"prefer_channels_last":	[]'
check "forced" 0 "$CGSCOPE" layout --force-layout-opt "$PG/vit_b_16_eval.json"
first "forced leads" $out "layout opt ON: layout optimization forced"
check "as training" 0 "$CGSCOPE" layout --training "$PG/tiny_cnn_eval.json"
first "training vetoes" $out "layout opt OFF: training graph: all 4 convolutions"
if [ -w /dev/full ]; then
    "$CGSCOPE" layout "$PG/resnet18_eval.json" >/dev/full 2>$err
    [ $? = 2 ] || { echo "FAIL writing to /dev/full did not fail"; fails=$((fails + 1)); }
fi
# a graph that does not say whether it is an inference graph: taken for a training forward
# graph, and the answer says so (text and JSON)
if [ -f "$PG/resnet18_eval.json" ]; then
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["producer"].pop("is_inference", None)
d["producer"].pop("is_backward", None)
json.dump(d, open(sys.argv[2], "w"))' "$PG/resnet18_eval.json" $out.noflag.json
    check "no is_inference" 0 "$CGSCOPE" layout $out.noflag.json
    has "no is_inference (text)" $out "producer.is_inference missing: treated as a training forward"
    check "no is_inference --json" 0 "$CGSCOPE" layout --json $out.noflag.json
    has "no is_inference (json)" $out '"mode_reason":'
    check "no is_inference --inference" 0 "$CGSCOPE" layout --inference --json $out.noflag.json
    has "--inference" $out '"is_inference":	true'
fi
# a Dynamo graph (torch.conv2d, not aten.convolution) is refused, saying how to get a post-grad
# one; no "no convolution in the graph" answer that would be wrong
check "dynamo graph" 2 "$CGSCOPE" layout "$(dirname "$0")/../../samples/resnet18.dynamo.json"
has "dynamo graph hint" $err "Inductor decides layout on the post-grad graph"
finish
