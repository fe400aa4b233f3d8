#!/bin/sh
# No command answers about input it did not read: breaks, top --once and cache diff exit 2
# and say what each source actually is when nothing in them could be read; every reader names
# a wrong file's kind ("a PNG image", "a CUPTI trace: use `cgscope report`"); TORCH_TRACE
# logs are read compressed (gzip, xz, zstd), from pipes and from standard input.
. tests/cli/lib.sh
TR=tests/data/traces
printf '\211PNG\r\n\032\n\000\000\000\rIHDR' > "$T/pic.png"
: > "$T/empty.log"
mkdir "$T/nolog"
xz -dc $TR/graph_break.cold.torch_trace.log.xz > "$T/cold.log"
gzip -c "$T/cold.log" > "$T/cold.log.gz"
cp $TR/graph_break.cold.torch_trace.log.xz "$T/cold.log.xz"

# what torch wrote, counted from the log itself: the ground truth of every reading below
breaks=$(grep -c '"name": "dynamo_graph_break_reason"' "$T/cold.log")
[ "$breaks" -gt 0 ] || fail "the recorded log has graph breaks"

for src in "$T/pic.png" samples/resnet18.dynamo.json "$T/empty.log" "$T/nolog" \
           samples/profile/cgscope-658.cgstrace; do
    check "breaks $src" 2 "$CGSCOPE" breaks "$src"
    hasnt "breaks $src: no answer" "$out" "graph break"
    check "top --once $src" 2 "$CGSCOPE" top --once "$src"
    hasnt "top $src: no table" "$out" "compiles"
    check "cache diff $src" 2 "$CGSCOPE" cache diff "$src" "$T/cold.log"
    hasnt "cache diff $src: no answer" "$out" "same key"
done
check "breaks png" 2 "$CGSCOPE" breaks "$T/pic.png"
has "a PNG is named" "$err" "it is a PNG image, not a TORCH_TRACE log"
check "breaks graph" 2 "$CGSCOPE" breaks samples/resnet18.dynamo.json
has "a graph is named, with its commands" "$err" "it is a graph JSON, not a TORCH_TRACE log; use \`cgscope info\`"
check "breaks cupti" 2 "$CGSCOPE" breaks samples/profile/cgscope-658.cgstrace
has "a CUPTI trace is named" "$err" "it is a CUPTI trace, not a TORCH_TRACE log; use \`cgscope report\`"
check "breaks empty" 2 "$CGSCOPE" breaks "$T/empty.log"
has "empty is said" "$err" "is empty"
check "breaks empty folder" 2 "$CGSCOPE" breaks "$T/nolog"
has "a folder without a log" "$err" "a folder without a TORCH_TRACE log in it"

# compressed logs, pipes and standard input read as the plain log
check "breaks plain" 0 "$CGSCOPE" breaks "$T/cold.log" --json
# the same breaks from every form of the log; each names the file it read (evidence)
noev() { python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
for b in d['breaks']: b.pop('evidence', None)
json.dump(d, open(sys.argv[1], 'w'), sort_keys=True)" "$1"; }
cp "$out" "$T/plain.json"; noev "$T/plain.json"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
assert d['hits'] == int(sys.argv[2]), (d['hits'], sys.argv[2])" "$T/plain.json" "$breaks" \
    || fail "breaks counts every record the log holds"
for src in "$T/cold.log.gz" "$T/cold.log.xz"; do
    check "breaks $src" 0 "$CGSCOPE" breaks "$src" --json
    noev "$out"; cmp -s "$out" "$T/plain.json" || fail "breaks $src: differs from the plain log"
done
if command -v zstd >/dev/null 2>&1; then
    zstd -q -c "$T/cold.log" > "$T/cold.log.zst"
    check "breaks zst" 0 "$CGSCOPE" breaks "$T/cold.log.zst" --json
    noev "$out"; cmp -s "$out" "$T/plain.json" || fail "breaks zst: differs from the plain log"
fi
"$CGSCOPE" breaks --json - < "$T/cold.log.gz" > "$out" 2>"$err" || fail "breaks - (gzip on stdin)"
noev "$out"; cmp -s "$out" "$T/plain.json" || fail "breaks on stdin: differs from the plain log"
xz -dc "$T/cold.log.xz" | "$CGSCOPE" breaks --json /dev/stdin > "$out" 2>"$err" || fail "breaks /dev/stdin"
noev "$out"; cmp -s "$out" "$T/plain.json" || fail "breaks /dev/stdin: differs from the plain log"
mkfifo "$T/fifo"
(cat "$T/cold.log" > "$T/fifo" &)
check "breaks FIFO" 0 "$CGSCOPE" breaks --json "$T/fifo"
noev "$out"; cmp -s "$out" "$T/plain.json" || fail "breaks FIFO: differs from the plain log"
check "top --once .xz" 0 "$CGSCOPE" top --once --json "$T/cold.log.xz"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
assert d['graph_breaks'] == int(sys.argv[2]) and d['compiles'] > 0, d" "$out" "$breaks" || fail "top reads .xz"
mkdir "$T/gzdir" && cp "$T/cold.log.gz" "$T/gzdir/"
check "a folder of .gz logs" 0 "$CGSCOPE" breaks "$T/gzdir"
check "cache diff .gz .xz" 0 "$CGSCOPE" cache diff "$T/cold.log.gz" "$T/cold.log.xz"
has "one-line summary first" "$out" "paired (same compile id and cache), 0 with a different key"
# a truncated or corrupt compressed log says so, naming the file
head -c 3000 "$T/cold.log.xz" > "$T/cut.log.xz"
check "truncated xz" 0 "$CGSCOPE" breaks "$T/cut.log.xz"
has "truncated said" "$err" "ends early"
head -c 40 "$T/cold.log.gz" > "$T/cut2.log.gz"
check "truncated gzip, nothing readable" 2 "$CGSCOPE" breaks "$T/cut2.log.gz"
has "truncated gzip said" "$err" "cut2.log.gz: warning: the gzip data ends early"
# a few header bytes cannot make the reader allocate gigabytes: an xz dictionary of 512 MiB
# (xz -9 needs 64) or a zstd window of 1 GiB (--long=30 on a pipe) is refused, with what to do
xz -dc "$T/cold.log.xz" | xz -c --lzma2=dict=512MiB > "$T/bigdict.log.xz"
check "xz with a 512 MiB dictionary" 2 "$CGSCOPE" breaks "$T/bigdict.log.xz"
has "dictionary said" "$err" "the xz data needs more than 256 MiB of memory to unpack"
if command -v zstd >/dev/null 2>&1; then
    xz -dc "$T/cold.log.xz" | zstd -q --long=30 -c > "$T/bigwin.log.zst"
    check "zstd with a 1 GiB window" 2 "$CGSCOPE" breaks "$T/bigwin.log.zst"
    has "window said" "$err" "the zstd data needs a window of more than 256 MiB"
    xz -dc "$T/cold.log.xz" | zstd -q --ultra -22 -c > "$T/ultra.log.zst"
    check "zstd --ultra -22 (128 MiB window) is read" 0 "$CGSCOPE" breaks "$T/ultra.log.zst" --json
    noev "$out"; cmp -s "$out" "$T/plain.json" || fail "zstd --ultra -22: differs from the plain log"
fi
xz -dc "$T/cold.log.xz" | xz -9e -c > "$T/xz9.log.xz"
check "xz -9e is read" 0 "$CGSCOPE" breaks "$T/xz9.log.xz" --json
noev "$out"; cmp -s "$out" "$T/plain.json" || fail "xz -9e: differs from the plain log"
gzip -c samples/resnet18.dynamo.json > "$T/graph.json.gz"
check "a compressed graph" 2 "$CGSCOPE" breaks "$T/graph.json.gz"
has "what the archive holds" "$err" "it holds a graph JSON"

# the graph readers name what a wrong file is
check "info png" 2 "$CGSCOPE" info "$T/pic.png"
has "info png" "$err" "is a PNG image, not a graph"
hasnt "no byte" "$err" "0x89"
# a TORCH_TRACE log is a graph source now (issue 28): its first Dynamo graph, said on stderr
check "split trace" 0 "$CGSCOPE" split "$T/cold.log" --split-ops torch.relu --allow-missing-ops
has "split trace" "$err" "this is $T/cold.log#0/0:dynamo"
check "shapes cupti" 2 "$CGSCOPE" shapes samples/profile/cgscope-658.cgstrace
has "shapes cupti" "$err" "is a CUPTI trace, not a graph"
check "dot events" 2 "$CGSCOPE" dot samples/cgs_transformer.events.jsonl -o "$T/x.svg"
has "dot events" "$err" "is the bridge's events (JSON lines), not a graph"
nofile "dot events" "$T/x.svg"
check "layout gz" 2 "$CGSCOPE" layout "$T/graph.json.gz"
has "layout gz" "$err" "decompress it first"
check "info - png" 2 sh -c "\"$CGSCOPE\" info - < \"$T/pic.png\""
has "stdin png" "$err" "is a PNG image"
check "report graph" 2 "$CGSCOPE" report samples/resnet18.dynamo.json
has "report graph" "$err" "it is a graph JSON"
check "cache index graph" 2 "$CGSCOPE" cache samples/resnet18.dynamo.json
has "cache graph" "$err" "is a graph JSON, not a compile-cache index"
# a compressed file given as a graph: what it holds decides the words (a compressed picture is
# no graph once decompressed; a compressed graph JSON is, once decompressed)
xz -c samples/resnet18.dynamo.json > "$T/model.json.xz"
printf '\211PNG\r\n\032\n%02000d' 0 | xz -c > "$T/picture.png.xz"
check "info of a compressed graph JSON" 2 "$CGSCOPE" info "$T/model.json.xz"
has "what it holds, how to read it" "$err" "holding a graph JSON: graphs are read uncompressed; decompress it first (xz -dk FILE)"
check "info of a compressed PNG" 2 "$CGSCOPE" info "$T/picture.png.xz"
has "what it holds" "$err" "is an xz-compressed file holding a PNG image, not a graph"
hasnt "no decompress hint" "$err" "decompress"
finish
