#!/bin/sh
# cgscope dot on the command line: formats (from the extension or --format),
# stdout, clusters per piece (torch split the sample into 9 pieces:
# shared/fixtures/dynamo/cgs_transformer_dyn.split-attn.json), collapsing,
# byte-identical output, the profile overlay, and atomic output: a failed
# render or write leaves no file and no temporary behind.
. tests/cli/lib.sh
G=samples/cgs_transformer_dyn.json
OPS="--split-ops cgs.attention"
dir=$T

check "dot --help" 0 "$CGSCOPE" dot --help
cp $out $dir/help1
check "help dot" 0 "$CGSCOPE" help dot
cmp -s $out $dir/help1 || { echo "FAIL 'help dot' differs from 'dot --help'"; fails=$((fails + 1)); }
has "usage" $out "usage: cgscope dot GRAPH"

# DOT on stdout by default, one cluster per piece
check "dot to stdout" 0 "$CGSCOPE" dot $G $OPS
has "digraph" $out "digraph"
n=$(grep -c 'subgraph cluster_submod_' $out)
[ "$n" = 9 ] || { echo "FAIL stdout: $n clusters, torch made 9 pieces"; fails=$((fails + 1)); }
check "svg to stdout" 0 "$CGSCOPE" dot $G $OPS --format svg
has "svg to stdout" $out "<svg"
n=$(grep -c 'class="cluster"' $out)
[ "$n" = 9 ] || { echo "FAIL svg: $n clusters, expected 9"; fails=$((fails + 1)); }
has "svg cluster id" $out '<g id="cluster_submod_8" class="cluster">'
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout --nonet $out || { echo "FAIL svg is not well-formed XML"; fails=$((fails + 1)); }
fi

# formats from the extension
check "svg file" 0 "$CGSCOPE" dot $G $OPS -o $dir/t.svg
has "svg file" $dir/t.svg "</svg>"
[ -s $out ] && { echo "FAIL -o wrote to stdout"; fails=$((fails + 1)); }
check "png file" 0 "$CGSCOPE" dot $G $OPS --collapse pieces -o $dir/t.png
[ "$(head -c 4 $dir/t.png | od -An -c | tr -d ' ')" = "211PNG" ] ||
    { echo "FAIL png signature"; fails=$((fails + 1)); }
[ "$(wc -c < $dir/t.png)" -gt 10000 ] || { echo "FAIL png too small"; fails=$((fails + 1)); }
check "pdf file" 0 "$CGSCOPE" dot $G $OPS --collapse pieces -o $dir/t.pdf
[ "$(head -c 5 $dir/t.pdf)" = "%PDF-" ] || { echo "FAIL pdf signature"; fails=$((fails + 1)); }
check "dot file" 0 "$CGSCOPE" dot $G $OPS -o $dir/t.dot
has "dot file" $dir/t.dot "cluster_submod_0"
check "format beats extension" 0 "$CGSCOPE" dot $G $OPS --format svg -o $dir/t.dot
has "format svg" $dir/t.dot "<svg"

# same input, same bytes
check "again" 0 "$CGSCOPE" dot $G $OPS -o $dir/t2.svg
cmp -s $dir/t.svg $dir/t2.svg || { echo "FAIL svg differs between two runs"; fails=$((fails + 1)); }

# collapsing
check "collapse pieces" 0 "$CGSCOPE" dot $G $OPS --collapse pieces
has "folded" $out "x3"
hasnt "no clusters when collapsed" $out "subgraph cluster_"
check "collapse module" 0 "$CGSCOPE" dot $G --collapse module:2
has "module box" $out "blocks.0 .. blocks.3"
check "auto collapse" 0 "$CGSCOPE" dot $G $OPS --max-nodes 50
has "auto collapse said" $err "134 nodes, more than --max-nodes 50: drawing one box per piece"
has "auto collapse drew pieces" $out "submod_2 .. submod_6"
check "auto collapse without split" 0 "$CGSCOPE" dot $G --max-nodes 50
has "module when unsplit" $err "one box per module run"

# profile overlay
# (samples/profile: a transformer measured on the H200 by cgscope profile; each piece's share
# is its gpu_ns over the report's total, as the report states them)
PG=samples/profile/transformer.dynamo.json
share=$(python3 -c "import json; r=json.load(open('samples/profile/report.json')); p=[x for x in r['pieces'] if x['name']=='submod_2'][0]; print('%.1f%%' % (100.0*p['gpu_ns']/r['gpu_ns']))")
check "profile" 0 "$CGSCOPE" dot $PG --split-ops @sdpa --collapse pieces --profile samples/profile/report.json
has "profile share" $out "$share"
check "profile from the traces" 0 "$CGSCOPE" dot $PG --split-ops @sdpa --collapse pieces --profile samples/profile
has "profile share from the traces" $out "$share"
check "profile from a trace file" 0 "$CGSCOPE" dot $PG --split-ops @sdpa --collapse pieces --profile samples/profile/cgscope-658.cgstrace
has "profile share from a trace file" $out "$share"
printf '{"pieces": [{"name": "submod_0", "kernels": 1}], "kernels": 1, "gpu_ns": 1}' > $dir/bad-profile.json
check "bad profile" 2 "$CGSCOPE" dot $G $OPS --profile $dir/bad-profile.json
has "bad profile message" $err "expected a non-negative number for 'gpu_ns'"
printf '{"pieces": [\n  {' > $dir/broken-profile.json
check "broken profile" 2 "$CGSCOPE" dot $G $OPS --profile $dir/broken-profile.json
has "broken profile place" $err "broken-profile.json:2:"

# usage errors
# a binary format goes to stdout only when it is not a terminal (here: a file), and with -o -
check "png to a pipe" 0 "$CGSCOPE" dot $G --format png
head -c 4 $out | grep -q PNG || { echo "FAIL png to a pipe: no PNG on stdout"; fails=$((fails + 1)); }
check "png to -o -" 0 "$CGSCOPE" dot $G $OPS -o - --format png
head -c 4 $out | grep -q PNG || { echo "FAIL -o -: no PNG on stdout"; fails=$((fails + 1)); }
check "-o - defaults to dot" 0 "$CGSCOPE" dot $G -o -
has "-o - dot" $out "digraph"
# upper-case extensions name the format too
check "upper-case extension" 0 "$CGSCOPE" dot $G $OPS -o $dir/UP.SVG
has "upper-case svg" $dir/UP.SVG "<svg"
# --json describes what was written
check "dot --json" 0 "$CGSCOPE" dot $G $OPS --collapse pieces -o $dir/j.svg --json
for k in '"format":	"cgscope-dot"' '"version":	1' '"output":' '"view":	"pieces"' '"view_reason":' '"pieces":' '"width_px":' '"estimated_seconds":'; do
    has "dot --json key" $out "$k"
done
check "dot --json without -o" 2 "$CGSCOPE" dot $G --json
has "dot --json needs -o" $err "give -o FILE"
has "dot --json error object" $err '{"format":"cgscope-error"'
# a graph whose every-node PNG would be huge is drawn collapsed, saying so; asked for, it is
# scaled to fit (torch's efficientnet_b0 post-grad graph: 1435 nodes)
F=${FIXTURES:-../shared/fixtures}/post_grad/efficientnet_b0_eval.json
if [ -f "$F" ]; then
    check "big png collapses" 0 "$CGSCOPE" dot $F -o $dir/big.png --json
    has "big png view" $out '"view":	"module"'
    has "big png says why" $err "past the 16384 px a side"
    hasnt "no graphviz line" $err "(null)"
    check "big png insisted" 0 "$CGSCOPE" dot $F --collapse none -o $dir/big2.png --json
    has "big png scaled" $err "dpi to stay within 16384 px"
    w=$(sed -n 's/.*"height_px":	\([0-9]*\).*/\1/p' $out)
    [ "${w:-99999}" -le 16384 ] || { echo "FAIL scaled png is $w px high"; fails=$((fails + 1)); }
fi
# a PNG of every node within the side but of too many pixels (ResNet-18's post-grad graph:
# 10332 x 12684 px at 96 dpi, 131 M pixels that took 7 s to render) keeps every node, drawn at
# a lower dpi within 64 M pixels; the file's own header says its size
check "many-pixel png" 0 "$CGSCOPE" dot samples/resnet18.post_grad.json -o $dir/r18.png --json
has "many-pixel png: every node" $out '"view":	"full"'
has "many-pixel png: says so" $err "and 64 M pixels (SVG keeps every detail)"
python3 - $dir/r18.png <<'PY' || { echo "FAIL many-pixel png: not within 64 M pixels"; fails=$((fails + 1)); }
import struct, sys
head = open(sys.argv[1], "rb").read(24)
assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
w, h = struct.unpack(">II", head[16:24])
assert w * h <= 64e6 and w > 5000, (w, h)
PY
# standard output's reader going away (| head) is no drawing failure
"$CGSCOPE" dot samples/resnet18.post_grad.json --format dot -o - 2>$dir/pipe.err | head -c 8 >/dev/null
"$CGSCOPE" dot samples/resnet18.post_grad.json --format svg -o - 2>>$dir/pipe.err | head -c 8 >/dev/null
[ -s $dir/pipe.err ] && { echo "FAIL a closed pipe said: $(head -c 300 $dir/pipe.err)"; fails=$((fails + 1)); }
# a layout that would take long (mobilenet_v2's training backward graph: a full SVG took
# 34 s on the development machine) is collapsed by default, saying so
F=${FIXTURES:-../shared/fixtures}/post_grad/mobilenet_v2_train.bwd.json
if [ -f "$F" ]; then
    check "slow layout collapses" 0 "$CGSCOPE" dot $F --max-nodes 0 -o $dir/bwd.svg --json
    has "slow layout says why" $err "a layout of every node would take about"
    has "slow layout view" $out '"view":	"module"'
fi
check "unknown extension" 2 "$CGSCOPE" dot $G -o $dir/t.jpeg
nofile "unknown extension" $dir/t.jpeg
check "unknown format" 2 "$CGSCOPE" dot $G --format gif
check "pieces without split" 2 "$CGSCOPE" dot $G --collapse pieces
has "pieces without split message" $err "--collapse pieces needs --split-ops or --policy"
check "bad collapse" 2 "$CGSCOPE" dot $G --collapse sideways
check "bad depth" 2 "$CGSCOPE" dot $G --collapse module:0
check "bad max-nodes" 2 "$CGSCOPE" dot $G --max-nodes lots
check "missing graph" 2 "$CGSCOPE" dot
check "bad graph" 2 "$CGSCOPE" dot tests/bad/cycle.json -o $dir/bad.svg
nofile "bad graph" $dir/bad.svg

# atomic output
check "missing directory" 2 "$CGSCOPE" dot $G $OPS -o $dir/no/such/dir/t.svg
nofile "missing directory" $dir/no/such/dir/t.svg
mkdir $dir/isdir.svg
check "target is a directory" 2 "$CGSCOPE" dot $G $OPS -o $dir/isdir.svg
[ -d $dir/isdir.svg ] || { echo "FAIL directory target replaced"; fails=$((fails + 1)); }
nofile "target is a directory" $dir/none
# a write that fails half-way (file size limit) leaves the old file as it was
echo old > $dir/keep.svg
check "write fails" 2 sh -c "trap '' XFSZ; ulimit -f 8; exec \"\$0\" dot $G $OPS -o $dir/keep.svg" "$CGSCOPE"
[ "$(cat $dir/keep.svg)" = old ] || { echo "FAIL failed write changed the old file"; fails=$((fails + 1)); }
nofile "write fails" $dir/none
# the CI step in samples/: picture first, then the piece-count gate (torch: 9 pieces)
check "ci step ok" 0 env CGSCOPE="$CGSCOPE" sh samples/ci-split-check.sh $G cgs.attention 9 $dir/ci.svg
has "ci step picture" $dir/ci.svg 'class="cluster"'
rm -f $dir/ci.svg
check "ci step grows" 1 env CGSCOPE="$CGSCOPE" sh samples/ci-split-check.sh $G cgs.attention 8 $dir/ci.svg
has "ci step message" $err "more than 8 pieces"
[ -s $dir/ci.svg ] || { echo "FAIL ci step: no picture when the gate fails"; fails=$((fails + 1)); }
check "ci step bad graph" 2 env CGSCOPE="$CGSCOPE" sh samples/ci-split-check.sh tests/bad/cycle.json x 1 $dir/ci2.svg
# progress whenever a layout runs on (CGSCOPE_PROGRESS_AFTER=0 stands for a layout past 3 s),
# with an estimate a person reads ("about 12 s", "over an hour"), never a raw count of seconds
CGSCOPE_PROGRESS_AFTER=0 check "progress line" 0 "$CGSCOPE" dot samples/llama_tiny.dynamo.json --collapse none -o "$T/p.svg"
has "progress line" "$err" "cgscope dot: still laying out after"
has "estimate in words" "$err" "estimated)"
check "layout facts" 0 "$CGSCOPE" dot samples/llama_tiny.dynamo.json --collapse none -o "$T/p.svg" --json
python3 -c "
import json,sys; l=json.load(open(sys.argv[1]))['layout']
assert l['ranks'] > 0 and l['max_rank_width'] > 0 and 0 < l['estimated_seconds'] < 5, l" "$out" || fail "layout facts"
# a profile of another split: refused, naming the pieces that differ; nothing written
check "profile of another split" 2 "$CGSCOPE" dot samples/cgs_transformer_dyn.json --split-ops cgs.attention \
    --collapse pieces --profile samples/profile -o "$T/wrong.svg"
has "which pieces differ" "$err" "in the split, not in the profile: submod_5, submod_6, submod_7, submod_8"
nofile "profile of another split" "$T/wrong.svg"
check "profile of its split" 0 "$CGSCOPE" dot samples/profile/transformer.dynamo.json --split-ops @sdpa \
    --collapse pieces --profile samples/profile -o "$T/right.svg"
# a preset's bare name: '@sdpa' suggested, not a near op name
check "sdpa without @" 2 "$CGSCOPE" split samples/llama_tiny.dynamo.json --split-ops sdpa
has "suggests the preset" "$err" "did you mean '@sdpa'"
hasnt "not sin" "$err" "'sin'"
# the subtitle lists the splitting ops present, and counts the preset's others
check "subtitle" 0 "$CGSCOPE" dot samples/llama_tiny.dynamo.json --split-ops @vllm,@sdpa --allow-missing-ops \
    --collapse pieces -o "$T/l.dot"
has "present op listed" "$T/l.dot" "split at torch._C._nn.scaled_dot_product_attention ("
hasnt "absent op not listed" "$T/l.dot" "vllm.unified_attention"
# --policy fusion: pieces labelled fused / not fused, never "splitting (eager)"
check "fusion labels" 0 "$CGSCOPE" dot samples/resnet18.dynamo.json --policy fusion --collapse pieces -o "$T/f.dot"
has "fused label" "$T/f.dot" "fused #"
hasnt "no splitting label" "$T/f.dot" "splitting (eager)"
finish
