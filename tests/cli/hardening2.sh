#!/bin/sh
# Hardening, round 2 (issue 26): each defect found on the newer readers, with the input that
# showed it. (The hostile cache indexes are files in tests/bad/index, run by bad-other.sh; the
# declaration grammar's edges are in tests/test-shapes.c.)
. tests/cli/lib.sh
S=samples

# 1, 2: index numbers are integers that fit, read exactly; a restart count past any real run is
# refused before the simulator would replay it (10^12 skips grew without bound)
printf '{(None, 9223372036854775807, "inductor"): ("k", "p", 3)}\n' > "$T/max.py"
check "int64 max graph index" 0 "$CGSCOPE" cache "$T/max.py" --json
has "printed exactly" "$out" '"graph_index":	9223372036854775807'
check "simulate refuses 10^12 restarts" 2 timeout 20 "$CGSCOPE" cache simulate \
    $S/cgs_transformer_dyn.dynamo.json --split-ops cgs.attention --shapes 1,2 \
    --index tests/bad/index/restarts-huge.py
has "names the count" "$err" "restart_analysis_count is from 0 to 10000"

# 3: an index past the 64 MiB limit is said to be, by cache and by top, not read as empty or
# spliced
python3 - "$T/big.py" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("{")
    n = 0
    while f.tell() < 65 << 20:
        f.write('(%d, 0, "inductor"): ("k%08d", "/tmp/artifacts/a_%d", 0), ' % (n, n, n))
        n += 1
    f.write("}\n")
PY
check "cache on a 65 MiB index" 2 "$CGSCOPE" cache "$T/big.py"
has "cache says why" "$err" "the index is larger than 64 MiB"
check "top on a 65 MiB index" 2 "$CGSCOPE" top --once "$T/big.py"
has "top says why" "$err" "the index is larger than 64 MiB"
rm -f "$T/big.py"

# 5: FIFOs named like traces are skipped in a folder; -o onto a FIFO nobody reads is refused
mkdir "$T/prof" && cp $S/profile/*.cgstrace "$T/prof/" && mkfifo "$T/prof/zz.cgstrace"
check "report DIR with a FIFO" 0 timeout 20 "$CGSCOPE" report "$T/prof"
has "the FIFO skipped" "$err" "not a regular file: skipped"
check "dot --profile DIR with a FIFO" 0 timeout 20 "$CGSCOPE" dot \
    $S/profile/transformer.dynamo.json --split-ops @sdpa --profile "$T/prof" -o "$T/p.svg"
mkfifo "$T/out.fifo"
check "-o FIFO without a reader" 2 timeout 20 "$CGSCOPE" dot $S/llama_tiny.dynamo.json \
    -o "$T/out.fifo" --format dot
has "-o FIFO says" "$err" "a FIFO that nothing reads"
[ -p "$T/out.fifo" ] || fail "-o replaced the FIFO"

# 6: rows keyed by whole names: a '|' in a backend, or names equal in their first 200
# characters, stay apart
long=$(python3 -c "print('b' * 250)")
{
    printf '{"ts": 1, "event": "compile", "graph_index": 0, "runtime_shape": 1, "backend": "a|b", "ms": 1}\n'
    printf '{"ts": 2, "event": "compile", "graph_index": 0, "runtime_shape": 1, "backend": "a", "ms": 1}\n'
    printf '{"ts": 3, "event": "compile", "graph_index": 0, "runtime_shape": 1, "backend": "%sX", "ms": 1}\n' "$long"
    printf '{"ts": 4, "event": "compile", "graph_index": 0, "runtime_shape": 1, "backend": "%sY", "ms": 1}\n' "$long"
} > "$T/ev.jsonl"
check "events rows" 0 "$CGSCOPE" top --once --json "$T/ev.jsonl"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
assert len(d['rows']) == 4, [r['backend'] for r in d['rows']]" "$out" || fail "rows merged"

# the bridge's events of two Dynamo graphs (a graph break): graph index 0 of each is its own
# row; CUDA graph captures are counted per row, a second one being a re-capture
cat > "$T/two-graphs.jsonl" <<'EOF'
{"ts": 1, "event": "compile_end", "graph_index": 0, "runtime_shape": 8, "backend": "inductor", "ms": 3, "graph": "0/0", "piece": "submod_0"}
{"ts": 2, "event": "compile_end", "graph_index": 0, "runtime_shape": 8, "backend": "inductor", "ms": 3, "graph": "1/0", "piece": "submod_0"}
{"ts": 3, "event": "cudagraph_capture", "graph_index": 0, "runtime_shape": 8, "backend": "inductor", "ms": 1, "graph": "1/0", "piece": "submod_0"}
{"ts": 4, "event": "cudagraph_capture", "graph_index": 0, "runtime_shape": 8, "backend": "inductor", "ms": 1, "graph": "1/0", "piece": "submod_0"}
EOF
check "rows per graph" 0 "$CGSCOPE" top --once --json "$T/two-graphs.jsonl"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
got = sorted((r['compile_id'], r['compiles'], r['captures']) for r in d['rows'])
assert got == [('0/0', 1, 0), ('1/0', 1, 2)] and d['captures'] == 2, got" "$out" || fail "graphs' rows or captures"
check "rows per graph, text" 0 "$CGSCOPE" top --once "$T/two-graphs.jsonl"
has "the graph beside its index" "$out" "0 (1/0)"

# 7: compiled autograd's ids !A/F/C: a recompile is C > 0, not F > 0
cat > "$T/ca.log" <<'EOF'
V1201 13:44:17.888000 455 torch/_dynamo/convert_frame.py:276] {"dynamo_start": {"stack": []}, "compiled_autograd_id": 0, "frame_id": 3, "frame_compile_id": 0, "attempt": 0}
V1201 13:44:17.888000 455 torch/_dynamo/convert_frame.py:276] {"dynamo_start": {"stack": []}, "compiled_autograd_id": 1, "frame_id": 0, "frame_compile_id": 1, "attempt": 0}
EOF
check "compiled autograd ids" 0 "$CGSCOPE" top --once --json "$T/ca.log"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
got = {r['compile_id']: r['recompiles'] for r in d['rows']}
assert got == {'!0/3/0': 0, '!1/0/1': 1} and d['recompiles'] == 1, got" "$out" || fail "recompiles of !A/F/C"

# 8, 11: bytes that are not UTF-8 and a NUL inside a string: --json stays valid UTF-8 and the
# string is not cut (both read as U+FFFD)
printf '{"ts": 1, "event": "compile", "graph_index": 0, "runtime_shape": 1, "backend": "ind\377uctor\\u0000tail", "ms": 1}\n' > "$T/bad-utf8.jsonl"
check "events with bad bytes" 0 "$CGSCOPE" top --once --json "$T/bad-utf8.jsonl"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1], encoding='utf-8'))
assert d['rows'][0]['backend'] == 'ind\ufffductor\ufffdtail', d['rows'][0]['backend']" "$out" \
    || fail "--json not valid UTF-8, or the string cut"
printf '{(None, 0, "ind\377uctor"): ("k\303\251", "p", 0)}\n' > "$T/u.py"
check "index with bad bytes" 0 "$CGSCOPE" cache "$T/u.py" --json
python3 -c "
import json,sys; d=json.load(open(sys.argv[1], encoding='utf-8'))
e=d['entries'][0]; assert (e['backend'], e['key']) == ('ind\ufffductor', 'k\u00e9'), e" "$out" \
    || fail "index strings in --json"

# 11: -o onto a dangling symlink makes the file it names; the link stays
ln -s made.svg "$T/dangling.svg"
check "-o dangling symlink" 0 "$CGSCOPE" dot $S/llama_tiny.dynamo.json -o "$T/dangling.svg"
[ -L "$T/dangling.svg" ] || fail "-o replaced the dangling symlink"
has "its target written" "$T/made.svg" "<svg"
# issue 27: a dynamic graph with a Python float argument (a SymFloat, torch's zf0) loads, its
# symbol printed as a float, and the graph is inferred (it was refused: "expected an integer")
check "SymFloat graph" 0 "$CGSCOPE" info tests/data/symfloat.dynamo.json
has "SymFloat symbol" "$out" "zf0 (float, hint 0.5)"
check "SymFloat graph, JSON" 0 "$CGSCOPE" info tests/data/symfloat.dynamo.json --json
python3 -c "
import json,sys; s=json.load(open(sys.argv[1]))['symbols']['zf0']
assert s['hint'] == 0.5 and s['float'] is True, s" "$out" || fail "SymFloat in info --json"
check "SymFloat graph inferred" 0 "$CGSCOPE" shapes --reinfer --check tests/data/symfloat.dynamo.json
# --bind takes a SymFloat's value (a float), prints it and writes it in --json's bindings;
# an integer for a SymFloat, or a float for a SymInt, is an error naming the symbol's kind
check "SymFloat bound" 0 "$CGSCOPE" shapes tests/data/symfloat.dynamo.json --all --bind s0=4 --bind zf0=0.25
has "SymFloat's bound value" "$out" "symfloat zf0 = 0.25"
check "SymFloat bound, JSON" 0 "$CGSCOPE" shapes tests/data/symfloat.dynamo.json --json --bind s0=4 --bind zf0=0.25
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
assert d['bindings'] == {'s0': 4, 'zf0': 0.25}, d['bindings']
f=[n for n in d['nodes'] if n['name'] == 'f'][0]
assert f['bound'] == 0.25, f" "$out" || fail "SymFloat bound in shapes --json"
check "SymFloat bound to an integer" 2 "$CGSCOPE" shapes tests/data/symfloat.dynamo.json --bind zf0=2
has "says it is a SymFloat" "$err" "zf0: the symbol is a SymFloat"
check "SymInt bound to a float" 2 "$CGSCOPE" shapes tests/data/symfloat.dynamo.json --bind s0=2.5
has "says it is a SymInt" "$err" "s0: the symbol is a SymInt"

# issue 27, Dynamo-level rules that answered wrong: a tensor bound of clamp_min/clamp_max
# broadcasts ([1, 3] against [2, 1] is [2, 3], as torch.clamp_min gives); adaptive_avg_pool1d
# pools one dim of an unbatched (C, L) input; nonzero(as_tuple=True) is one [nnz] tensor per dim
# (torch's nonzero_numpy: nonzero(x).unbind(1))
check "clamp and pool" 0 "$CGSCOPE" shapes tests/data/clamp-pool.dynamo.json --json
python3 -c "
import json,sys; d={n['name']: n for n in json.load(open(sys.argv[1]))['nodes']}
assert [d[k]['val']['shape'] for k in 'abce'] == [[2, 3], [2, 3], [1, 2], [2, 3]], d
assert all(d[k]['status'] == 'ok' for k in 'abce')" "$out" || fail "clamp_min broadcast, adaptive_avg_pool1d"
check "nonzero as_tuple" 0 "$CGSCOPE" shapes tests/data/nonzero-tuple.dynamo.json --json
python3 -c "
import json,sys; d={n['name']: n for n in json.load(open(sys.argv[1]))['nodes']}
v = d['b']['val']
assert isinstance(v, list) and len(v) == 2 and all(t['shape'] == [v[0]['shape'][0]] for t in v), v" "$out" || fail "nonzero(as_tuple=True)"

# torch.nn.functional.fold: [N, C*k*k, L] -> [N, C, H, W], an int kernel size for both dims
check "fold" 0 "$CGSCOPE" shapes tests/data/fold.dynamo.json --json
python3 -c "
import json,sys; d={n['name']: n for n in json.load(open(sys.argv[1]))['nodes']}
assert d['f']['status'] == 'ok' and d['f']['val']['shape'] == [1, 3, 4, 5], d['f']" "$out" || fail "fold"

finish
