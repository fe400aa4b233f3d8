#!/bin/sh
# cgscope top / breaks / cache on what runs write: torch's TORCH_TRACE logs recorded on the GPU
# machine (tests/data/traces: a model with a print graph break, compiled cold, warm, and warm
# with Inductor's epilogue_fusion changed; the piecewise runner's events), the fixtures' logs
# and MagiCompiler index when present, and the live dashboard driven under tmux.
. tests/cli/lib.sh
TR=tests/data/traces
for n in cold warm changed; do xz -dc $TR/graph_break.$n.torch_trace.log.xz > "$T/$n.log"; done

# ground truth from the logs themselves: one artifact record per lookup, as torch wrote them
count() { grep -c "^V.*\"artifact\": {\"name\": \"$1\"" "$2"; }
for n in cold warm changed; do
    check "top --once --json $n" 0 "$CGSCOPE" top "$T/$n.log" --once --json
    python3 - "$out" "$(count fx_graph_cache_hit "$T/$n.log")" "$(count fx_graph_cache_miss "$T/$n.log")" \
        "$(count aotautograd_cache_hit "$T/$n.log")" "$(count aotautograd_cache_miss "$T/$n.log")" \
        "$(grep -c '"compilation_metrics": {' "$T/$n.log")" "$(count recompile_reasons "$T/$n.log")" <<'PY' || fail "top --once --json $n: counts"
import json, sys
d = json.load(open(sys.argv[1]))
fh, fm, ah, am, compiles, recompiles = map(int, sys.argv[2:])
c = d["caches"]
assert (c["fx_graph"]["hit"], c["fx_graph"]["miss"]) == (fh, fm), c
assert (c["aotautograd"]["hit"], c["aotautograd"]["miss"]) == (ah, am), c
assert d["compiles"] == compiles, (d["compiles"], compiles)
assert d["recompiles"] == recompiles, d["recompiles"]
assert d["bad_lines"] == 0 and d["format"] == "cgscope-top"
assert sum(r["hits"] + r["misses"] for r in d["rows"]) == fh + fm + ah + am
PY
done
check "top text" 0 "$CGSCOPE" top "$T/cold.log" --once
has "top text rows" "$out" "forward (model.py:10)"
has "top text recompile reason" "$out" "tensor 'x' size mismatch at index 0. expected 8, actual 32"
# the fixtures' run: cold = 6 FX-graph misses + 4 AOTAutograd misses over 4 compiles, warm hits
if [ -d "$FIXTURES/traces" ]; then
    check "fixture cold" 0 "$CGSCOPE" top "$FIXTURES/traces/resnet18_mlp.cold.torch_trace.log" --once --json
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); c=d['caches']
assert (c['fx_graph']['miss'], c['aotautograd']['miss'], d['compiles']) == (6, 4, 4), d
assert c['fx_graph']['hit'] == c['aotautograd']['hit'] == 0" "$out" || fail "fixture cold counts"
    check "fixture warm" 0 "$CGSCOPE" top "$FIXTURES/traces/resnet18_mlp.warm.torch_trace.log" --once --json
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); c=d['caches']
assert (c['fx_graph']['hit'], c['aotautograd']['hit'], d['compiles']) == (6, 4, 4), d
assert c['fx_graph']['miss'] == c['aotautograd']['miss'] == 0" "$out" || fail "fixture warm counts"
    check "magi index" 0 "$CGSCOPE" cache "$FIXTURES/magi/magi_compile_cache.py" --json
    python3 -c "
import json,sys,ast,re
d=json.load(open(sys.argv[1]))
ref=ast.literal_eval(open(sys.argv[2]).read())   # Python's own reading of the index
got={(e['runtime_shape'],e['graph_index'],e['backend']):(e['key'],e['path'],e['restart_analysis_count']) for e in d['entries']}
assert got==ref, (len(got), len(ref))" "$out" "$FIXTURES/magi/magi_compile_cache.py" || fail "magi index equals Python's literal_eval"
    check "top shows the index" 0 "$CGSCOPE" top "$FIXTURES/magi/magi_compile_cache.py" --once
    has "indexed rows" "$out" "in the cache index"
fi

# graph breaks: the model's print, at its line
check "breaks" 0 "$CGSCOPE" breaks "$T/cold.log" --json
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
src=open('tests/data/traces/model.py').read().splitlines()
# the log holds two break records, one per compile (0/0 and 0/1), at one site: one row, hit twice
assert len(d['breaks']) == 1 and d['hits'] == 2, d
assert d['breaks'][0]['hits'] == 2 and d['breaks'][0]['compile_ids'] == ['0/0', '0/1'], d
for b in d['breaks']:
    assert b['frame']['file'].endswith('model.py') and b['frame']['name'] == 'forward', b
    assert 'print' in src[b['frame']['line'] - 1], b     # the line torch names holds the print
    assert 'print' in b['reason'], b" "$out" || fail "breaks point at the print"
check "breaks text" 0 "$CGSCOPE" breaks "$T/cold.log"
has "breaks text" "$out" "1 graph break (sites; hit 2 times in all)"
has "breaks text hits" "$out" "hit 2 times (compiles 0/0, 0/1)"
check "breaks on events refuses" 2 "$CGSCOPE" breaks $TR/piecewise.events.jsonl
has "breaks says what it is" "$err" "is the bridge's events (JSON lines), not a TORCH_TRACE log"

# why the warm run missed: the one config value the third run changed
check "cache diff" 0 "$CGSCOPE" cache diff "$T/warm.log" "$T/changed.log"
has "diff names the config" "$out" "inductor_config[epilogue_fusion]: True  ->  False"
check "cache diff json" 0 "$CGSCOPE" cache diff "$T/warm.log" "$T/changed.log" --json
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
fx=[p for p in d['pairs'] if p['cache']=='fx_graph']
assert fx and all(p['a']['status']=='hit' and p['b']['status']=='miss' for p in fx), fx
assert all([x['component'] for x in p['differs']]==['inductor_config[epilogue_fusion]'] for p in fx), fx" "$out" || fail "diff json"
check "cache diff same" 0 "$CGSCOPE" cache diff "$T/cold.log" "$T/warm.log"
has "same keys" "$out" "same key"

# cache replay, checked against torch's split of the graph (the sample's sidecar): every
# compiled piece compiles for the dynamic shape; pieces with a size input once per listed size
check "simulate" 0 "$CGSCOPE" cache simulate samples/cgs_transformer_dyn.dynamo.json \
    --split-ops cgs.attention --shapes 1,2,4,8,2,1 --compile-sizes 1,2 --json --events "$T/sim.jsonl"
python3 - "$out" <<'PY' || fail "simulate counts"
import json, sys
d = json.load(open(sys.argv[1]))
ref = json.load(open("samples/cgs_transformer_dyn.split-attn.json"))
comp = [p for p in ref["pieces"] if not p["is_splitting_graph"]]
sized = [p for p in comp if any(i in ("s23",) for i in p["inputs"])]
shapes, sizes = [1, 2, 4, 8, 2, 1], {1, 2}
misses = len(comp) + len(sized) * len(sizes)
lookups = len(comp) + len(comp) * len(shapes)
assert (d["misses"], d["lookups"], d["hits"]) == (misses, lookups, lookups - misses), d
PY
# a warm start from a compile-cache index: its entries load, after their restart skips
python3 - "$T/warm.py" <<'PY'
import pprint, sys
d = {}
for shape in (None, 1):
    for gi in range(3):
        k = "artifact_shape_%s_subgraph_%d" % (shape, gi)
        d[(shape, gi, "inductor")] = (k, "/cache/" + k, 2 if (shape, gi) == (None, 0) else 0)
open(sys.argv[1], "w").write(pprint.PrettyPrinter(indent=4).pformat(d))
PY
check "simulate warm" 0 "$CGSCOPE" cache simulate samples/cgs_transformer_dyn.dynamo.json \
    --split-ops cgs.attention --shapes 1,2,4,1 --compile-sizes 1,2 --index "$T/warm.py" --json
python3 - "$out" "$T/warm.py" <<'PY' || fail "simulate warm counts"
import ast, json, sys
d = json.load(open(sys.argv[1]))
idx = ast.literal_eval(open(sys.argv[2]).read())
ref = json.load(open("samples/cgs_transformer_dyn.split-attn.json"))
comp = [p for p in ref["pieces"] if not p["is_splitting_graph"]]
shapes, sizes = [1, 2, 4, 1], {1, 2}
skips = sum(v[2] for v in idx.values())
cached, compiles, lookups = set(k[:2] for k in idx), 0, 0
for gi in range(len(comp)):                       # the frame: the dynamic artifacts
    lookups += 1
    if (None, gi) not in cached:
        compiles += 1; cached.add((None, gi))
for s in shapes:
    for gi in range(len(comp)):
        key = (s, gi) if s in sizes else (None, gi)
        lookups += 1
        if key not in cached:
            compiles += 1; cached.add(key)
lookups += skips
assert (d["lookups"], d["compiles"], d["restart_skips"]) == (lookups, compiles, skips), d
assert d["misses"] == compiles + skips, d
PY
check "top reads the simulated events" 0 "$CGSCOPE" top "$T/sim.jsonl" --once --json
python3 -c "
import json,sys; a=json.load(open(sys.argv[1])); c=a['caches']['piecewise']
assert c['hit']>0 and a['bad_lines']==0, a" "$out" || fail "simulated events"
check "simulate megengine" 0 "$CGSCOPE" cache simulate samples/cgs_transformer_dyn.dynamo.json \
    --policy megengine --shapes 1,2,1 --json
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
# the third call repeats the first shape: every op key was seen, all hits
assert d['misses'] * 3 <= d['lookups'] * 2 and d['hits'] >= d['lookups'] // 3, d" "$out" || fail "megengine"

# hostile input: never fatal, counted, named
printf '{"event": "cache_hit", "graph_index": 0}\nnot json\n{"no_event": 1}\n\n{"event":"cache_miss","graph_index":0,"runtime_shape":"x"}\n' > "$T/bad.jsonl"
check "garbage lines" 0 "$CGSCOPE" top "$T/bad.jsonl" --once --json
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
assert d['bad_lines']==3 and d['caches']['piecewise']['hit']==1, d
assert d['first_bad_line'].startswith('$T/bad.jsonl:2:'), d['first_bad_line']" "$out" || fail "bad lines"
printf '{(None, 0, "inductor"): ("k", "/p", 0), (1, 2): }' > "$T/bad_index.py"
check "bad index" 2 "$CGSCOPE" cache "$T/bad_index.py"
has "bad index place" "$err" "bad_index.py:1:"
printf '{(None, 0, "x"): __import__("os").system("echo pwned")}' > "$T/evil_index.py"
check "index is never run" 2 "$CGSCOPE" cache "$T/evil_index.py"
hasnt "not run" "$out" "pwned"
check "missing source" 2 "$CGSCOPE" top "$T/none.log" --once
check "top needs a terminal" 2 "$CGSCOPE" top "$T/cold.log"
has "says --once" "$err" "--once"
head -c 100000 "$T/cold.log" > "$T/cut.log"
check "truncated trace" 0 "$CGSCOPE" top "$T/cut.log" --once --json

# ---- the live dashboard, under tmux ----
command -v tmux >/dev/null || { echo "note: no tmux, live view not tested"; finish; exit $?; }
# each tmux session gets a server of its own (a socket per block): a new session on a socket whose
# server is still going away after kill-server dies with it (seen once in CI)
S="$T/tmux-live.sock"
tm() { tmux -S "$S" "$@"; }
screen() { tm capture-pane -p -t cgs > "$T/screen"; }
wait_for() { # text: up to 10 s
    i=0
    while [ $i -lt 100 ]; do screen; grep -qF -- "$1" "$T/screen" && return 0; sleep 0.1; i=$((i + 1)); done
    fail "live view: no '$1' on screen"; sed 's/^/  | /' "$T/screen" | head -20; return 1
}
EV="$T/live.jsonl"
tm new-session -d -s cgs -x 150 -y 30 "env TERM=xterm LANG=C.UTF-8 $CGSCOPE top $EV; sleep 30"
wait_for "waiting for $EV to appear"
head -n 20 $TR/piecewise.events.jsonl > "$EV"
wait_for "submod_1"
wait_for "events 20"
tail -n +21 $TR/piecewise.events.jsonl >> "$EV"
wait_for "events 44"
echo 'garbage' >> "$EV"
wait_for "bad lines 1"
wait_for "first bad line"
tm resize-window -t cgs -x 100 -y 20 2>/dev/null || tm resize-pane -t cgs -x 100 -y 20
sleep 0.3
screen
python3 -c "
import sys; w = max(len(l.rstrip('\\n')) for l in open(sys.argv[1], encoding='utf-8'))
sys.exit(w > 100)" "$T/screen" || fail "resize: lines wider than the pane"
wait_for "submod_1"
wait_for "q quit"
# a file truncated (a new run): counted again from the start
: > "$EV"
head -n 5 $TR/piecewise.events.jsonl > "$EV.new" && mv "$EV.new" "$EV"
wait_for "events 5 "
tm send-keys -t cgs h
wait_for "filter rows by text"
# q in the help view goes back to the table (as the help says), not out
tm send-keys -t cgs q
wait_for "q quit  s sort"
hasnt "q in help goes back" "$T/screen" "filter rows by text"
tm send-keys -t cgs Enter
wait_for "row detail (q, Esc or Enter: back)"
tm send-keys -t cgs q
wait_for "q quit  s sort"
# F10 quits from any view, as in htop
tm send-keys -t cgs h
wait_for "F10                 quit from any view"
tm send-keys -t cgs F10
sleep 0.5
screen
hasnt "F10 quits" "$T/screen" "s sort  / filter"
tm kill-server 2>/dev/null

# Left/Right scroll the frame / reason column; rows of two files carry a source column
S="$T/tmux-scroll.sock"
tm new-session -d -s cgs -x 260 -y 30 "env TERM=xterm LANG=C.UTF-8 $CGSCOPE top $T/cold.log $T/warm.log; sleep 30"
wait_for "size mismatch at index 0"
has "source column" "$T/screen" "source"
has "source names the file" "$T/screen" "warm.log"
tm send-keys -t cgs Right Right Right Right
sleep 0.5
screen
hasnt "Right scrolls the reason column" "$T/screen" "forward (model.py:10): 0/0"
tm send-keys -t cgs Left Left Left Left
wait_for "forward (model.py:10): 0/0"
tm send-keys -t cgs q
tm kill-server 2>/dev/null

# top -- CMD with a small fake command that writes a trace where TORCH_TRACE says, slowly
cat > "$T/fake.sh" <<EOF2
#!/bin/sh
echo "fake run starting"
head -n 300 "$T/cold.log" > "\$TORCH_TRACE/rank_0.log"; sleep 1
cat "$T/cold.log" > "\$TORCH_TRACE/rank_0.log"; sleep 1
echo "fake run done"
exit 3
EOF2
chmod +x "$T/fake.sh"
S="$T/tmux-cmd.sock"
tm new-session -d -s cgs -x 150 -y 30 "env TERM=xterm $CGSCOPE top --dir $T/run -- $T/fake.sh; echo top-exit=\$? > $T/top-exit; sleep 30"
wait_for "command exited with 3"
has "live rows from the trace" "$T/screen" "forward (model.py:10)"
has "footer names the log" "$T/screen" "output: $T/run/cmd.log"
tm send-keys -t cgs q
i=0; while [ ! -s "$T/top-exit" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
has "exit status is CMD's" "$T/top-exit" "top-exit=3"
has "CMD's output kept out of the screen" "$T/run/cmd.log" "fake run done"
tm kill-server 2>/dev/null
# the failed command's last output on the screen, not only its status
S="$T/tmux-cmd2.sock"
tm new-session -d -s cgs -x 150 -y 30 "env TERM=xterm $CGSCOPE top --dir $T/run2 -- $T/fake.sh; sleep 30"
wait_for "command exited with 3"
wait_for "the command's last output"
has "failed command's output shown" "$T/screen" "fake run done"
tm send-keys -t cgs q
tm kill-server 2>/dev/null
# top -- CMD without a terminal: status lines, then the final table; CMD's exit status
check "top -- CMD, no terminal" 3 "$CGSCOPE" top --dir "$T/run3" -- "$T/fake.sh"
has "plain: the final table" "$out" "forward (model.py:10)"
has "plain: the header agrees with the rows" "$out" "compiles"
has "plain: why it failed" "$err" "fake run done"
has "plain: the exit" "$err" "exited with 3"
# two files at once: a source column, and the header's counts are the rows' sums
check "top two sources" 0 "$CGSCOPE" top --once --json "$T/cold.log" "$T/warm.log"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); rows=d['rows']
assert d['compiles'] == sum(r['compiles'] for r in rows), d['compiles']
assert d['recompiles'] == sum(r['recompiles'] for r in rows), d['recompiles']
assert {r['source'] for r in rows} == {sys.argv[2], sys.argv[3]}, rows
assert all(r['reasons'] and r['reasons'][0].startswith(r['compile_id'].split('/')[0] + '/0: ') for r in rows if r['recompiles']), rows" \
    "$out" "$T/cold.log" "$T/warm.log" || fail "two sources: rows and header"
check "top two sources text" 0 "$CGSCOPE" top --once "$T/cold.log" "$T/warm.log"
has "text source column" "$out" "source"
has "recompile reasons explained" "$out" "every entry it already"
# without ncursesw installed (its name changed in a copy of the binary): a message and exit 2
sed 's/libncursesw\.so\./libncursesX.so./' "$CGSCOPE" > "$T/cgs-nocurses" && chmod +x "$T/cgs-nocurses"
if ! cmp -s "$CGSCOPE" "$T/cgs-nocurses"; then
    S="$T/tmux-nocurses.sock"
    tm new-session -d -s cgs -x 150 -y 30 \
        "env TERM=xterm $T/cgs-nocurses top $EV 2>$T/nocurses.err; echo top-exit=\$? > $T/nc-exit; sleep 30"
    i=0; while [ ! -s "$T/nc-exit" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    has "no ncursesw: exit 2" "$T/nc-exit" "top-exit=2"
    has "no ncursesw: what is missing" "$T/nocurses.err" "cannot load ncursesw: libncursesX.so."
    has "no ncursesw: what to do" "$T/nocurses.err" "--once prints the table as text"
    tm kill-server 2>/dev/null
fi
# the source column tells two runs' folders apart where their logs share a name (two folders
# of rank_0.log: each row names its folder), and keeps the bare file name where it is enough
mkdir -p "$T/main" "$T/pr"
cp samples/graph_break.torch_trace.log "$T/main/rank_0.log"
cp samples/graph_break.torch_trace.log "$T/pr/rank_0.log"
check "two runs' folders" 0 "$CGSCOPE" top --once "$T/main" "$T/pr"
[ "$(grep -c '^main/rank_0.log ' "$out")" = 4 ] || fail "main's four compiles named main/rank_0.log"
[ "$(grep -c '^pr/rank_0.log ' "$out")" = 4 ] || fail "pr's four compiles named pr/rank_0.log"
cp samples/graph_break.torch_trace.log "$T/pr/other.log"
check "a name of its own" 0 "$CGSCOPE" top --once "$T/main" "$T/pr/other.log"
has "bare name" "$out" "other.log "
# a truncated compressed log: what the follower found is said once
head -c 3000 samples/two_graphs.torch_trace.log.xz > "$T/cut.log.xz"
check "top --once of a cut log" 0 "$CGSCOPE" top --once "$T/cut.log.xz"
[ "$(grep -c 'ends early' "$err")" = 1 ] || fail "top --once of a cut log: said once: $(cat "$err")"
finish
