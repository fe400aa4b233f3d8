#!/bin/sh
# A ready-made CI step: draw a model's piecewise split as an SVG (keep it as
# a build artifact) and fail when the split has more pieces than it should.
#
# usage: samples/ci-split-check.sh [GRAPH] [SPLIT_OPS] [MAX_PIECES] [OUT.svg]
#   defaults: the bundled transformer sample, cgs.attention, 9 pieces (what
#   torch's split_module makes of it), cgs-split.svg
# environment: CGSCOPE (default ./cgscope)
# exit status: 0 ok, 1 more pieces than MAX_PIECES, 2 bad input or a failed render
#
# The picture is written first, so it is there to look at when the gate fails.
: "${CGSCOPE:=./cgscope}"
graph=${1:-samples/cgs_transformer_dyn.json}
ops=${2:-cgs.attention}
max=${3:-9}
svg=${4:-cgs-split.svg}

"$CGSCOPE" dot "$graph" --split-ops "$ops" -o "$svg" || {
    echo "ci-split-check: could not draw $graph" >&2
    exit 2
}
"$CGSCOPE" split "$graph" --split-ops "$ops" --max-pieces "$max" >/dev/null
rc=$?
case $rc in
0) echo "ci-split-check: $graph splits into at most $max pieces at $ops; picture: $svg" ;;
1) echo "ci-split-check: $graph splits into more than $max pieces at $ops; see $svg" >&2 ;;
*) echo "ci-split-check: cgscope split failed on $graph" >&2 ;;
esac
exit $rc
