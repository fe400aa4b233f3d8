#!/bin/sh
# The runs docs/pictures.md fits dot's layout-time estimate to: for each graph, the wall time
# of `cgscope dot GRAPH --collapse none -o o.svg --json` and the layout facts it reports, one
# JSON line each. Slow (the largest take a minute); not part of make bench.
#   sh tests/bench/layout-times.sh [OUT_DIR]   (after make and make build/bench/gen-graph)
set -u
cd "$(dirname "$0")/../.."
O=${1:-/tmp/cgs-layout-times}
mkdir -p "$O"
for n in 300 1000 2000 3000 4000 5000; do [ -s "$O/g$n.json" ] || build/bench/gen-graph $n > "$O/g$n.json"; done
for f in "$O"/g300.json "$O"/g1000.json "$O"/g2000.json "$O"/g3000.json "$O"/g4000.json "$O"/g5000.json \
         samples/llama_tiny.dynamo.json samples/resnet18.post_grad.json ../shared/fixtures/dynamo/gpt2_tiny.json \
         ../shared/fixtures/dynamo/vit_b_16_eval.json ../shared/fixtures/post_grad/*.json; do
    case $f in *split*|*layout*) continue ;; esac
    [ -f "$f" ] || continue
    s=$(date +%s.%N)
    ./cgscope dot "$f" --collapse none -o "$O/o.svg" --json > "$O/j.json" 2>/dev/null
    e=$(date +%s.%N)
    python3 -c "
import json,sys; d=json.load(open(sys.argv[4])); l=d['layout']
print(json.dumps(dict(f=sys.argv[1], t=float(sys.argv[3])-float(sys.argv[2]), N=d['nodes_drawn'], E=d['edges_drawn'], R=l['ranks'], W=l['max_rank_width'], V=l['virtual_nodes'], L=l['long_edges'], est=l['estimated_seconds'])))" "$f" "$s" "$e" "$O/j.json"
done
