#!/bin/sh
# cgscope split on the command line: exit codes, the --json contract keys, the
# --max-pieces gate, --why, near-miss warnings and bad input. Piece counts come
# from PyTorch's own split of the sample (shared/fixtures/dynamo/cgs_transformer_dyn.split-attn.json:
# 9 pieces, the first splitting piece holds node 'a').
. tests/cli/lib.sh
G=samples/cgs_transformer_dyn.json
check "split --help" 0 "$CGSCOPE" split --help
cp $out $out.2
check "help split" 0 "$CGSCOPE" help split
cmp -s $out $out.2 || { echo "FAIL 'help split' differs from 'split --help'"; fails=$((fails + 1)); }
has "usage" $out "usage: cgscope split GRAPH --split-ops"

check "table" 0 "$CGSCOPE" split $G --split-ops cgs.attention
has "table pieces" $out "9 pieces (5 compiled, 4 splitting)"
has "table cut" $out "'a' (cgs.attention) matches splitting op 'cgs.attention'"
has "table source" $out "a = torch.ops.cgs.attention(q, k, v)"

check "json" 0 "$CGSCOPE" split $G --split-ops cgs.attention --json
for k in '"splitting_ops"' '"pieces"' '"name"' '"graph_id"' '"is_splitting_graph"' '"nodes"' \
         '"inputs"' '"outputs"' '"boundaries"' '"lint"' '"sym_shape_indices"' '"counters"'; do
    has "json key $k" $out "$k"
done
n=$(grep -c '"name":	"submod_' $out)
[ "$n" = 9 ] || { echo "FAIL json: $n pieces, torch 9"; fails=$((fails + 1)); }

check "max-pieces over" 1 "$CGSCOPE" split $G --split-ops cgs.attention --max-pieces 8
has "max-pieces message" $err "9 pieces, more than --max-pieces 8"
check "max-pieces at" 0 "$CGSCOPE" split $G --split-ops cgs.attention --max-pieces 9
check "max-pieces junk" 2 "$CGSCOPE" split $G --split-ops cgs.attention --max-pieces x

check "why" 0 "$CGSCOPE" split $G --split-ops cgs.attention --why a
has "why piece" $out "'a' (cgs.attention) is in submod_1 (splitting piece"
has "why rule" $out "it matches splitting op 'cgs.attention'"
check "why placeholder" 0 "$CGSCOPE" split $G --split-ops cgs.attention --why s23
has "why placeholder text" $out "a graph input (placeholder)"
check "why unknown node" 2 "$CGSCOPE" split $G --split-ops cgs.attention --why no_such_node
has "why unknown message" $err "no node named 'no_such_node'"
check "why near miss" 2 "$CGSCOPE" split $G --split-ops cgs.attention --why linear_x
has "why near miss message" $err "did you mean 'linear_1'?"

# a typo in --split-ops is an input error: a CI gate must not pass with one piece
check "near miss" 2 "$CGSCOPE" split $G --split-ops cgs.atention --max-pieces 9
has "near miss message" $err "'cgs.atention' matches no node; did you mean 'cgs.attention'?"
[ -s $out ] && { echo "FAIL near miss: output on stdout"; fails=$((fails + 1)); }
check "near miss allowed" 0 "$CGSCOPE" split $G --split-ops cgs.atention --allow-missing-ops
has "near miss allowed warning" $err "warning: splitting op 'cgs.atention' matches no node"
check "dot near miss" 2 "$CGSCOPE" dot $G --split-ops cgs.atention -o $out.svg
[ -e $out.svg ] && { echo "FAIL dot near miss wrote a file"; fails=$((fails + 1)); }
check "shapes near miss" 2 "$CGSCOPE" shapes $G --split-ops cgs.atention
# the fusion policy cuts elsewhere, but the op is still found in the graph
check "fusion with a present op" 0 "$CGSCOPE" split $G --policy fusion --split-ops cgs.attention
grep -q "matches no node" $err && { echo "FAIL fusion: a present op reported missing"; fails=$((fails + 1)); }
check "overload name on a packet" 0 "$CGSCOPE" split $G --split-ops cgs.attention.default
has "overload matches" $out "9 pieces"

check "policy fusion" 0 "$CGSCOPE" split $G --policy fusion --json
has "fusion policy" $out '"policy":	"fusion"'
check "policy device" 0 "$CGSCOPE" split $G --policy device
check "bad policy" 2 "$CGSCOPE" split $G --policy nope
has "bad policy message" $err "--policy takes magi, fusion or device, not 'nope'"
check "missing graph" 2 "$CGSCOPE" split --split-ops cgs.attention
check "bad graph" 2 "$CGSCOPE" split tests/bad/cycle.json --split-ops cgs.attention
[ -s $out ] && { echo "FAIL bad graph wrote to stdout"; fails=$((fails + 1)); }
check "missing file" 2 "$CGSCOPE" split /nonexistent/graph.json --split-ops x
finish
