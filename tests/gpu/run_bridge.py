#!/usr/bin/env python3
"""GPU check of the Python bridge (tools/python/cgscope_torch.py), issue 8.3.

Runs on a machine with torch (2.11, CUDA), torchvision and transformers:

  1. torch's split_module, driven by the bridge's split_graph/split_report on graphs read back
     with load(), reproduces every MagiCompiler split oracle in FIXTURES/dynamo, and
     to_json(load(x)) gives back every fixture graph unchanged;
  2. dumps resnet18 (torchvision; Dynamo, post-grad, dynamic batch), a small Llama
     (transformers config, random weights), a transformer whose attention is a custom op
     (torch.library, cgs::attention; static and dynamic) and a tiny MLP training step
     (post-grad forward and backward);
  3. loads each dump with `cgscope info --json` and checks it against the file;
  4. checks `cgscope split --json` against torch's own split_module of the live Dynamo graph
     (and the graph read back from JSON);
  5. runs the piecewise runner for several batch sizes and checks the events file (misses then
     hits, recompiles, one piece_run and one NVTX range per piece call, outputs equal eager);
  6. packs small dumps into OUT/samples.tgz (for samples/) and everything into OUT/dumps.tgz.

Writes OUT/run_bridge.log, OUT/samples.tgz and OUT/dumps.tgz. Prints one line per check and
closes with "N passed, N failed, N skipped"; exit 1 if any check failed.

usage: run_bridge.py [--out DIR] [--cgscope PATH] [--fixtures DIR] [--skip-fixtures]
                     [--work DIR]

On the GPU machine, with cgscope and its libraries carried in .devcarry/ (cgscope.sh sets
LD_LIBRARY_PATH for it alone) and the fixtures copied to .devcarry/fixtures:

  python3 tests/gpu/run_bridge.py --out $OUT --cgscope .devcarry/cgscope.sh \
      --fixtures .devcarry/fixtures
"""

import argparse
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "python"))

import torch  # noqa: E402

import cgscope_torch as ct  # noqa: E402

SPLIT_KEYS = ("graph", "splitting_ops", "call_order", "split_op_graph_ids", "pieces")
SAMPLE_LIMIT = 2 * 1024 * 1024

RESULTS = collections.Counter()
LOG = None


def say(msg=""):
    print(msg, flush=True)
    if LOG is not None:
        LOG.write(msg + "\n")
        LOG.flush()


def check(name, ok, detail=""):
    RESULTS["passed" if ok else "failed"] += 1
    say("%s  %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail else ""))
    return ok


def skip(name, why):
    RESULTS["skipped"] += 1
    say("skip  %s: %s" % (name, why))


def guard(name, fn, *args, **kwargs):
    """Run one stage; an exception is a failed check, never the end of the script."""
    t0 = time.time()
    say("\n== %s" % name)
    try:
        res = fn(*args, **kwargs)
    except Exception as exc:
        check(name + " (stage ran)", False, "%s: %s" % (type(exc).__name__, exc))
        say(traceback.format_exc(limit=12))
        res = None
    say("   (%s: %.1f s)" % (name, time.time() - t0))
    return res


# ---------------------------------------------------------------------------------------------
# cgscope binary
# ---------------------------------------------------------------------------------------------

class Cgscope:
    def __init__(self, path):
        self.path = path
        self.ok = path is not None and os.access(path, os.X_OK)

    def run(self, *args):
        p = subprocess.run([self.path] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        return p.returncode, p.stdout, p.stderr

    def has(self, command, probe_file):
        """Whether `cgscope COMMAND` exists and is implemented (probe on one file)."""
        if not self.ok:
            return False
        rc, out, err = self.run(command, "--help")
        if rc != 0 or "not implemented" in out + err:
            return False
        return True


# ---------------------------------------------------------------------------------------------
# 1. fixtures
# ---------------------------------------------------------------------------------------------

def fixture_checks(fixtures):
    oracles = sorted(glob.glob(os.path.join(fixtures, "dynamo", "*.split-*.json")))
    if not oracles:
        skip("fixture splits", "no oracles under %s" % fixtures)
        return
    good, bad = 0, []
    for f in oracles:
        oracle = json.load(open(f))
        try:
            gm = ct.load(os.path.join(os.path.dirname(f), oracle["graph"]))
            rep = ct.split_report(gm, oracle["splitting_ops"], graph=oracle["graph"])
            diff = [k for k in SPLIT_KEYS if rep.get(k) != oracle.get(k)]
        except Exception as exc:
            diff = ["%s: %s" % (type(exc).__name__, exc)]
        if diff:
            bad.append("%s (%s)" % (os.path.basename(f), ",".join(diff)))
        else:
            good += 1
    check("split_module on fixture graphs reproduces the %d split oracles" % len(oracles),
          not bad, "%d match%s" % (good, "; differ: " + "; ".join(bad[:6]) if bad else ""))

    graphs = [f for f in sorted(glob.glob(os.path.join(fixtures, "*", "*.json")))
              if ".split" not in f and ".layout" not in f]
    good, bad = 0, []
    for f in graphs:
        d = json.load(open(f))
        if not isinstance(d, dict) or d.get("format") != ct.FORMAT:
            continue
        p = d["producer"]
        out = ct.to_json(ct.load(f), stage=p["stage"], name=d["name"],
                         is_inference=p.get("is_inference"), is_backward=p.get("is_backward"))
        out["symbols"] = d["symbols"]          # symbols come from a ShapeEnv, absent here
        out["producer"]["version"] = p["version"]
        if out == d:
            good += 1
        else:
            bad.append(os.path.basename(f))
    check("to_json(load(x)) == x on %d fixture graphs" % (good + len(bad)), not bad,
          "%d same%s" % (good, "; differ: " + ", ".join(bad[:6]) if bad else ""))


# ---------------------------------------------------------------------------------------------
# 2. models
# ---------------------------------------------------------------------------------------------

def _register_cgs_attention():
    if hasattr(torch.ops, "cgs") and hasattr(torch.ops.cgs, "attention"):
        try:
            torch.ops.cgs.attention.default
            return
        except Exception:
            pass

    # the result is laid out (B, T, H, D) and seen as (B, H, T, D), as flash attention
    # returns it; the real and the fake kernel agree on that layout
    @torch.library.custom_op("cgs::attention", mutates_args=())
    def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return out.transpose(1, 2).contiguous().transpose(1, 2)

    @attention.register_fake
    def _(q, k, v):
        B, H, T, D = q.shape
        return q.new_empty((B, T, H, D)).transpose(1, 2)


class CgsBlock(torch.nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        B, T, D = x.shape
        qkv = self.qkv(self.ln1(x)).view(B, T, 3, self.h, D // self.h).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        a = torch.ops.cgs.attention(q, k, v)
        a = a.transpose(1, 2).reshape(B, T, D)
        x = x + self.proj(a)
        x = x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))
        return x


class CgsTransformer(torch.nn.Module):
    def __init__(self, vocab=512, d=128, h=4, layers=2, ctx=256):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Parameter(torch.randn(ctx, d) * 0.02)
        self.blocks = torch.nn.ModuleList(CgsBlock(d, h) for _ in range(layers))
        self.ln_f = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        T = ids.shape[1]
        x = self.tok(ids) + self.pos[:T]
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


def make_llama():
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(vocab_size=512, hidden_size=128, intermediate_size=256,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                      max_position_embeddings=256)
    try:
        cfg._attn_implementation = "sdpa"
    except Exception:
        pass
    return LlamaForCausalLM(cfg)


def _close(a, b, tol=1e-3):
    if isinstance(a, (list, tuple)):
        return all(_close(x, y, tol) for x, y in zip(a, b))
    if hasattr(a, "logits"):
        a, b = a.logits, b.logits
    return torch.allclose(a.float(), b.float(), atol=tol, rtol=tol)


def _reset():
    torch._dynamo.reset()


def compile_and_run(model, backend, inputs, kwargs=None, dynamic_dims=()):
    kwargs = kwargs or {}
    _reset()
    for t, dims in dynamic_dims:
        for d in dims:
            torch._dynamo.mark_dynamic(t, d)
    fn = torch.compile(model, backend=backend)
    with torch.no_grad():
        ref = model(*inputs, **kwargs)
        out = fn(*inputs, **kwargs)
    return ref, out


def dump_models(work, models):
    """Dump each model; returns {tag: DumpBackend}."""
    dev = "cuda"
    backends = {}

    def run(tag, model, inputs, kwargs=None, dynamic_dims=(), tol=1e-3, **bk):
        folder = os.path.join(work, "dumps")
        b = ct.dump_backend(folder, prefix=tag + ".", strict=True, **bk)
        t0 = time.time()
        ref, out = compile_and_run(model, b, inputs, kwargs, dynamic_dims)
        check("%s: compiled output equals eager" % tag, _close(out, ref, tol))
        check("%s: dumped %d files, no dump errors" % (tag, len(b.dumps)),
              bool(b.dumps) and not b.errors, "; ".join(b.errors)[:400])
        say("   %s: %s (%.1f s)" % (tag, ", ".join(os.path.basename(p) for p in b.dumps),
                                    time.time() - t0))
        backends[tag] = b
        return b

    import torchvision
    resnet = torchvision.models.resnet18(weights=None).eval().to(dev)
    x = torch.randn(2, 3, 224, 224, device=dev)
    run("resnet18", resnet, (x,), post_grad=True, compiler="inductor", tol=1e-2,
        splits={"k1": ["torch.nn.functional.batch_norm"], "k2": ["torch.conv2d"]})
    b = backends["resnet18"]
    pg = [p for p in b.dumps if ".post_grad.inference" in p]
    check("resnet18: post-grad inference graph dumped", bool(pg))
    if pg:
        prod = json.load(open(pg[0]))["producer"]
        check("resnet18: post-grad producer flags", prod.get("stage") == "post_grad" and
              prod.get("is_inference") is True and prod.get("is_backward") is False, str(prod))

    x4 = torch.randn(4, 3, 224, 224, device=dev)
    run("resnet18_dyn", resnet, (x4,), compiler="eager", dynamic_dims=[(x4, (0,))],
        splits={"k2": ["torch.conv2d"]})
    d = json.load(open(backends["resnet18_dyn"].dumps[0]))
    check("resnet18_dyn: batch is symbolic, symbol table has hint 4",
          any(v.get("hint") == 4 for v in d["symbols"].values()), json.dumps(d["symbols"]))

    _register_cgs_attention()
    torch.manual_seed(0)
    cgs = CgsTransformer().eval().to(dev)
    models["cgs"] = cgs
    ids = torch.randint(0, 512, (2, 16), device=dev)
    run("cgs_transformer", cgs, (ids,), compiler="eager",
        splits={"attn": ["cgs.attention"], "k1": ["operator.getitem"],
                "k2": ["torch._C._nn.linear"]})
    ids2 = torch.randint(0, 512, (2, 16), device=dev)
    run("cgs_transformer_dyn", cgs, (ids2,), compiler="eager",
        dynamic_dims=[(ids2, (0, 1))],
        splits={"attn": ["cgs.attention"], "k2": ["torch._C._nn.linear"]})
    d = json.load(open(backends["cgs_transformer_dyn"].dumps[0]))
    check("cgs_transformer_dyn: two symbols with hints 2 and 16",
          sorted(v.get("hint") for v in d["symbols"].values()) == [2, 16],
          json.dumps(d["symbols"]))
    check("cgs_transformer: custom op recorded as cgs.attention",
          any(n["target"] == "cgs.attention"
              for n in json.load(open(backends["cgs_transformer"].dumps[0]))["nodes"]))

    torch.manual_seed(0)
    llama = make_llama().eval().to(dev)
    models["llama"] = llama
    ids = torch.randint(0, 512, (2, 16), device=dev)
    run("llama_tiny", llama, (), kwargs={"input_ids": ids, "use_cache": False},
        compiler="eager",
        splits={"attn": ["torch._C._nn.scaled_dot_product_attention"]})

    # a training step: post-grad forward and backward graphs
    mlp = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                              torch.nn.Linear(128, 10)).to(dev)
    b = ct.dump_backend(os.path.join(work, "dumps"), prefix="mlp_train.", post_grad=True,
                        strict=True)
    _reset()
    fn = torch.compile(mlp, backend=b)
    xin = torch.randn(8, 64, device=dev)
    loss = fn(xin).square().mean()
    loss.backward()
    kinds = sorted(os.path.basename(p).split(".post_grad.")[1] for p in b.dumps
                   if ".post_grad." in p)
    check("mlp_train: post-grad forward and backward dumped", kinds[:2] == ["backward.json",
                                                                           "forward.json"],
          str(kinds))
    for p in b.dumps:
        if ".post_grad.backward" in p:
            prod = json.load(open(p))["producer"]
            check("mlp_train: backward graph flagged is_backward",
                  prod.get("is_backward") is True and prod.get("is_inference") is False,
                  str(prod))
    backends["mlp_train"] = b
    return backends


# ---------------------------------------------------------------------------------------------
# 3, 4. cgscope info and split
# ---------------------------------------------------------------------------------------------

def info_checks(cg, backends):
    if not cg.ok:
        skip("cgscope info", "no cgscope binary")
        return
    for tag, b in sorted(backends.items()):
        for p in b.dumps:
            if ".split-" in p:
                continue
            d = json.load(open(p))
            rc, out, err = cg.run("info", "--json", p)
            name = "cgscope info %s" % os.path.basename(p)
            if rc != 0:
                check(name, False, "exit %d: %s" % (rc, err.strip()[:300]))
                continue
            info = json.loads(out)
            kinds = collections.Counter(n["op"] for n in d["nodes"])
            ops = collections.Counter(n["target"] for n in d["nodes"]
                                      if n["op"] in ("call_function", "call_method",
                                                     "call_module"))
            problems = []
            if info.get("name") != d["name"]:
                problems.append("name %r" % info.get("name"))
            if info.get("nodes") != len(d["nodes"]):
                problems.append("nodes %r != %d" % (info.get("nodes"), len(d["nodes"])))
            if "node_kinds" in info and info["node_kinds"] != dict(kinds):
                problems.append("node_kinds differ")
            if info.get("ops") != dict(ops):
                problems.append("ops histogram differs")
            if info.get("symbols") != d["symbols"]:
                problems.append("symbols %s != %s" % (info.get("symbols"), d["symbols"]))
            check(name, not problems, "; ".join(problems) or "%d nodes, %d ops" % (
                len(d["nodes"]), len(ops)))


def split_checks(cg, backends):
    have_split = cg.has("split", None)
    if not have_split:
        say("   cgscope split is not available: only torch's side is checked")
    for tag, b in sorted(backends.items()):
        for sp in b.dumps:
            if ".split-" not in sp:
                continue
            live = json.load(open(sp))
            graph_path = os.path.join(os.path.dirname(sp), live["graph"])
            ops = live["splitting_ops"]
            name = os.path.basename(sp)
            back = ct.split_report(ct.load(graph_path), ops, graph=live["graph"])
            diff = [k for k in SPLIT_KEYS if back.get(k) != live.get(k)]
            check("split of the graph read back from JSON == live split (%s, %d pieces)" %
                  (name, len(live["pieces"])), not diff, ",".join(diff))
            if not have_split:
                skip("cgscope split %s" % name, "cgscope split not implemented here")
                continue
            rc, out, err = cg.run("split", "--json", "--split-ops", ",".join(ops), graph_path)
            if rc != 0:
                check("cgscope split %s" % name, False, "exit %d: %s" % (rc, err.strip()[:300]))
                continue
            mine = json.loads(out)
            problems = []
            if mine.get("splitting_ops") != ops:
                problems.append("splitting_ops %r" % mine.get("splitting_ops"))
            a, b2 = mine.get("pieces", []), live["pieces"]
            if len(a) != len(b2):
                problems.append("%d pieces, torch has %d" % (len(a), len(b2)))
            for x, y in zip(a, b2):
                for k in ("name", "graph_id", "is_splitting_graph", "nodes", "inputs",
                          "outputs"):
                    if x.get(k) != y.get(k):
                        problems.append("%s.%s: %s != torch %s" % (
                            y["name"], k, str(x.get(k))[:120], str(y.get(k))[:120]))
                        break
                if len(problems) > 3:
                    break
            check("cgscope split == torch split_module (%s, %d pieces)" % (name, len(b2)),
                  not problems, "; ".join(problems))


# ---------------------------------------------------------------------------------------------
# 5. piecewise runner
# ---------------------------------------------------------------------------------------------

class NvtxSpy:
    def __init__(self):
        self.names = collections.Counter()
        self.depth = 0
        self.max_depth = 0

    def __enter__(self):
        self.push, self.pop = torch.cuda.nvtx.range_push, torch.cuda.nvtx.range_pop
        spy = self

        def push(name):
            spy.names[name] += 1
            spy.depth += 1
            spy.max_depth = max(spy.max_depth, spy.depth)
            return spy.push(name)

        def pop():
            spy.depth -= 1
            return spy.pop()

        torch.cuda.nvtx.range_push, torch.cuda.nvtx.range_pop = push, pop
        return self

    def __exit__(self, *exc):
        torch.cuda.nvtx.range_push, torch.cuda.nvtx.range_pop = self.push, self.pop


def check_events(tag, path, calls, backend, cg):
    lines = open(path).read().splitlines()
    events = []
    bad = 0
    for ln in lines:
        try:
            events.append(json.loads(ln))
        except ValueError:
            bad += 1
    need = ("ts", "event", "graph_index", "runtime_shape", "backend", "key")
    check("%s: %d event lines parse, each with %s" % (tag, len(lines), ",".join(need)),
          bad == 0 and events and all(all(k in e for k in need) and e["event"] in ct.EVENTS
                                      for e in events))
    kinds = collections.Counter(e["event"] for e in events)
    say("   %s events: %s" % (tag, dict(kinds)))

    # per (graph, graph_index, runtime_shape): miss, compile_start, compile_end, store, hits
    seqs = collections.defaultdict(list)
    for e in events:
        if e["event"] in ("cache_hit", "cache_miss", "cache_store", "compile_start",
                          "compile_end"):
            seqs[(e.get("graph"), e["graph_index"], e["runtime_shape"])].append(e["event"])
    wrong = []
    for key, seq in seqs.items():
        if seq[:4] != ["cache_miss", "compile_start", "compile_end", "cache_store"] or \
                any(s != "cache_hit" for s in seq[4:]):
            wrong.append("%s: %s" % (key, seq[:6]))
    check("%s: each (graph, graph_index, runtime_shape) misses, compiles, stores, then only "
          "hits (%d keys)" % (tag, len(seqs)), not wrong, "; ".join(wrong[:3]))
    check("%s: misses and hits both seen" % tag,
          kinds["cache_miss"] > 0 and kinds["cache_hit"] > 0)
    check("%s: recompile events (%d)" % (tag, kinds["recompile"]), kinds["recompile"] >= 1)
    errs = [e for e in events if e["event"] == "compile_end" and e.get("error")]
    check("%s: every piece compiled without falling back" % tag, not errs and not backend.errors,
          "; ".join(backend.errors[:3]))
    shapes = sorted({e["runtime_shape"] for e in events if e["event"] == "cache_miss"
                     and e["runtime_shape"] is not None})
    say("   %s runtime shapes compiled: %s" % (tag, shapes))

    # one piece_run per piece call
    runs = [e for e in events if e["event"] == "piece_run"]
    per_graph = {st.ident: len(st.pieces) for st in backend.graphs}
    calls_total = sum(p.calls for st in backend.graphs for p in st.pieces)
    check("%s: %d piece_run events == piece calls" % (tag, len(runs)),
          len(runs) == calls_total and calls_total > 0, "pieces per graph %s" % per_graph)
    return events, shapes


def runner_checks(work, cg, models):
    dev = "cuda"
    out = {}
    have_top = cg.has("top", None)

    def one(tag, model, make_inputs, sizes, ops, compiler, kwargs_fn=None, tol=1e-3):
        ev = os.path.join(work, "events", tag + ".events.jsonl")
        if os.path.exists(ev):
            os.unlink(ev)
        b = ct.piecewise_backend(ops, events=ev, compiler=compiler)
        _reset()
        fn = torch.compile(model, backend=b)
        same = []
        t0 = time.time()
        with NvtxSpy() as spy, torch.no_grad():
            for s in sizes:
                args = make_inputs(s)
                kw = kwargs_fn(args) if kwargs_fn else {}
                a = () if kwargs_fn else args
                got = fn(*a, **kw)
                ref = model(*a, **kw)
                same.append(_close(got, ref, tol))
        say("   %s: %d calls in %.1f s" % (tag, len(sizes), time.time() - t0))
        check("%s: piecewise outputs equal eager for sizes %s" % (tag, sizes), all(same),
              str(same))
        events, shapes = check_events(tag, ev, len(sizes), b, cg)
        piece_names = {p.range_name for st in b.graphs for p in st.pieces}
        pushed = sum(v for k, v in spy.names.items() if k.startswith("cgscope:"))
        runs = sum(1 for e in events if e["event"] == "piece_run")
        check("%s: one NVTX range cgscope:<compile id>/submod_N per piece call (%d)" % (tag, pushed),
              pushed == runs and set(spy.names) <= piece_names and spy.depth == 0,
              "names %s" % sorted(spy.names)[:8])
        splits = [it for items in b.split_items for it in items if it.is_splitting_graph]
        check("%s: the graph was split at %s (%d splitting pieces)" % (tag, ops, len(splits)),
              len(splits) > 0)
        # sizes other than the first can only run in the recompiled (dynamic) graph, whose
        # pieces are specialized per runtime shape on first use
        want = set(sizes) - {sizes[0]}
        ran = sorted({e["runtime_shape"] for e in events if e["event"] == "piece_run"
                      and e["runtime_shape"] is not None})
        check("%s: specialized compiles for the batch sizes after the first %s" % (
            tag, sorted(want)), want <= set(shapes) and want <= set(ran),
            "compiled %s, ran %s" % (shapes, ran))
        if have_top:
            top_check(tag, cg, ev, events)
        else:
            skip("%s: cgscope top --once --json" % tag, "cgscope top not implemented here")
        out[tag] = ev

    cgs = models.get("cgs")
    if cgs is not None:
        one("cgs_transformer", cgs, lambda b: (torch.randint(0, 512, (b, 16), device=dev),),
            [2, 4, 8, 4, 2, 8], ["cgs.attention"], "inductor")
    llama = models.get("llama")
    if llama is not None:
        one("llama_tiny", llama, lambda b: (torch.randint(0, 512, (b, 16), device=dev),),
            [1, 2, 3, 2], ["torch._C._nn.scaled_dot_product_attention"], "eager",
            kwargs_fn=lambda args: {"input_ids": args[0], "use_cache": False})
    return out


def top_check(tag, cg, path, events):
    rc, out, err = cg.run("top", "--once", "--json", path)
    if rc != 0:
        check("%s: cgscope top --once --json" % tag, False, "exit %d: %s" % (rc, err[:200]))
        return
    doc = json.loads(out)
    mine = collections.defaultdict(lambda: [0, 0])
    for e in events:
        if e["event"] in ("cache_hit", "cache_miss"):
            # a row per Dynamo graph (its compile id, "graph") and cache key
            k = (e.get("graph"), e["graph_index"], e["runtime_shape"], e["backend"])
            mine[k][0 if e["event"] == "cache_hit" else 1] += 1
    rows = {(r.get("compile_id"), r.get("graph_index"), r.get("runtime_shape"), r.get("backend")):
            [r.get("hits"), r.get("misses")] for r in doc.get("rows", [])}
    diff = [str(k) for k in mine if rows.get(k) != mine[k]]
    check("%s: cgscope top rows == the events' hits and misses (%d rows)" % (tag, len(mine)),
          not diff and doc.get("bad_lines", 0) == 0, "differ: " + ", ".join(diff[:4]))


# ---------------------------------------------------------------------------------------------
# 6. samples
# ---------------------------------------------------------------------------------------------

def _biggest(paths):
    return max(paths, key=lambda p: len(json.load(open(p))["nodes"])) if paths else None


def write_sample(src, dst_dir, new_name):
    d = json.load(open(src))
    d["name"] = new_name[:-5]
    text = ct._encode(d)
    if len(text) > SAMPLE_LIMIT:
        for n in d["nodes"]:
            n.pop("stack_trace", None)
        text = ct._encode(d)
        say("   %s: stack traces dropped to stay under 2 MB" % new_name)
    ct._atomic_write(os.path.join(dst_dir, new_name), text)
    return new_name, len(text)


def collect_samples(work, out_dir, backends, events):
    dst = os.path.join(work, "samples")
    os.makedirs(dst, exist_ok=True)
    picked = []

    def graph_of(tag, kind):
        b = backends.get(tag)
        if b is None:
            return None
        return _biggest([p for p in b.dumps if p.endswith(kind)])

    plan = [("resnet18", ".dynamo.json", "resnet18.dynamo.json"),
            ("resnet18", ".post_grad.inference.json", "resnet18.post_grad.json"),
            ("resnet18_dyn", ".dynamo.json", "resnet18_dyn.dynamo.json"),
            ("cgs_transformer", ".dynamo.json", "cgs_transformer.dynamo.json"),
            ("cgs_transformer_dyn", ".dynamo.json", "cgs_transformer_dyn.dynamo.json"),
            ("llama_tiny", ".dynamo.json", "llama_tiny.dynamo.json"),
            ("mlp_train", ".post_grad.forward.json", "mlp_train.post_grad.fwd.json"),
            ("mlp_train", ".post_grad.backward.json", "mlp_train.post_grad.bwd.json")]
    for tag, kind, new in plan:
        src = graph_of(tag, kind)
        if src is None:
            continue
        picked.append(write_sample(src, dst, new))
        # its split sidecars, renamed with it
        stem = src[:-len(".dynamo.json")] if src.endswith(".dynamo.json") else None
        if stem is None:
            continue
        for sp in sorted(glob.glob(stem + ".split-*.json")):
            key = sp[len(stem) + len(".split-"):-len(".json")]
            rep = json.load(open(sp))
            rep["graph"] = new
            name = new[:-len(".dynamo.json")] + ".split-%s.json" % key
            ct._atomic_write(os.path.join(dst, name), json.dumps(rep, separators=(",", ":")) + "\n")
            picked.append((name, os.path.getsize(os.path.join(dst, name))))
    for tag, ev in sorted(events.items()):
        shutil.copyfile(ev, os.path.join(dst, os.path.basename(ev)))
        picked.append((os.path.basename(ev), os.path.getsize(ev)))
    for name, size in picked:
        say("   sample %-44s %8d bytes" % (name, size))
    check("samples: %d files, each under 2 MB" % len(picked),
          picked and all(s < SAMPLE_LIMIT for _, s in picked))
    with tarfile.open(os.path.join(out_dir, "samples.tgz"), "w:gz") as tf:
        tf.add(dst, arcname="samples")


def main():
    global LOG
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT") or os.path.join(ROOT, "bridge-out"))
    ap.add_argument("--cgscope", default=os.path.join(ROOT, "cgscope"))
    ap.add_argument("--fixtures", default=os.path.join(os.path.dirname(ROOT), "shared",
                                                       "fixtures"))
    ap.add_argument("--skip-fixtures", action="store_true")
    ap.add_argument("--work", default=None, help="scratch folder (default: a new temp folder)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    # everything but the log and two archives stays out of OUT (few files come back)
    work = args.work or tempfile.mkdtemp(prefix="cgscope-bridge-")
    os.makedirs(work, exist_ok=True)
    LOG = open(os.path.join(args.out, "run_bridge.log"), "w")

    say("torch %s, cuda %s, device %s" % (
        torch.__version__, torch.version.cuda,
        torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"))
    for mod in ("torchvision", "transformers"):
        try:
            say("%s %s" % (mod, __import__(mod).__version__))
        except Exception as exc:
            say("%s missing: %s" % (mod, exc))
    cg = Cgscope(args.cgscope)
    if cg.ok:
        rc, out, err = cg.run("--version")
        say("cgscope %s (%s)" % (args.cgscope, (out or err).strip().splitlines()[0] if
                                 (out or err).strip() else "rc %d" % rc))
    else:
        say("cgscope: no binary at %s" % args.cgscope)

    if not torch.cuda.is_available():
        check("a CUDA device is present", False)
    if not args.skip_fixtures and os.path.isdir(args.fixtures):
        guard("fixtures", fixture_checks, args.fixtures)
    else:
        skip("fixtures", "no fixtures at %s" % args.fixtures)

    models = {}
    backends = guard("dump models", dump_models, work, models) or {}
    guard("cgscope info", info_checks, cg, backends)
    guard("cgscope split vs torch split_module", split_checks, cg, backends)
    events = guard("piecewise runner", runner_checks, work, cg, models) or {}
    guard("samples", collect_samples, work, args.out, backends, events)

    with tarfile.open(os.path.join(args.out, "dumps.tgz"), "w:gz") as tf:
        tf.add(work, arcname="work")
    say("\n%d passed, %d failed, %d skipped" % (RESULTS["passed"], RESULTS["failed"],
                                                RESULTS["skipped"]))
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
