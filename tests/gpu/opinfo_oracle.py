#!/usr/bin/env python3
"""The breadth oracle for shape inference (issue 11.6): torch's own OpInfo database, recorded.

On a machine with torch 2.11 and CUDA, for every OpInfo in
torch.testing._internal.common_methods_invocations.op_db, for float32 and one other dtype the
op supports on CUDA (bfloat16, else int64, else bool, else the first), takes the first
SAMPLES sample inputs and records:

  aten   make_fx(tracing_mode="fake") of the call (the ATen graph FakeTensor propagation
         gives); where fake tracing refuses a data-dependent size, tracing_mode="symbolic"
         (inputs get size symbols, data-dependent sizes unbacked symbols u0, ...);
  torch  the graph Dynamo hands its backend (torch-level targets), float32 only, when Dynamo
         traces the call as one graph;
  dynamic  the graph Dynamo hands its backend with torch.compile(dynamic=True) (inputs with
         size symbols, Python floats as SymFloats), float32, the first two samples;
  export the graph torch.export.export gives (its training IR: aten ops, decompositions
         not run), float32, the first two samples, the tensors as the module's inputs;
  symbolic  make_fx(tracing_mode="symbolic") of the call (every input size a symbol),
         float32, the first two samples;
  prims  make_fx(tracing_mode="fake") of the call under torch._prims.context.TorchRefsMode
         (torch's Python references, decomposed to prims: what decompositions produce),
         float32, the first two samples, when the graph holds a prims call.

Each recorded graph is written with the bridge (tools/python/cgscope_torch.py) in cgscope's
graph format, without stack traces, as one JSON line {"case": ..., "graph": ...} of
OUT/opinfo-aten.jsonl or OUT/opinfo-torch.jsonl. Cases torch itself refuses are counted, not
written. Work is spread over --workers processes; --deadline stops each worker in time and
the files hold what was done.

usage: opinfo_oracle.py --out DIR [--workers N] [--samples K] [--deadline SECONDS]
"""

import argparse
import json
import multiprocessing as mp
import os
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "python"))


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def pick_dtypes(op, torch):
    try:
        sup = op.supported_dtypes("cuda")
    except Exception:
        sup = op.dtypes
    out = []
    if torch.float32 in sup:
        out.append(torch.float32)
    for d in (torch.bfloat16, torch.int64, torch.bool, torch.complex64):
        if d in sup and d not in out:
            out.append(d)
            break
    if not out and sup:
        out.append(sorted(sup, key=str)[0])
    return out


def strip(doc):
    for n in doc["nodes"]:
        n.pop("stack_trace", None)
    for sub in doc.get("subgraphs", {}).values():
        for n in sub["nodes"]:
            n.pop("stack_trace", None)
    return doc


def stub_test_modules():
    """torch's test helpers import expecttest, which only its own test runner needs; the
    GPU machine has none, so an empty stand-in with a TestCase is put in its place."""
    import importlib.util
    import types
    import unittest
    if importlib.util.find_spec("expecttest") is None:
        m = types.ModuleType("expecttest")
        m.TestCase = unittest.TestCase
        sys.modules["expecttest"] = m


def worker(args):
    wid, nworkers, out_dir, samples, deadline = args
    stub_test_modules()
    import torch
    import torch._dynamo
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.utils import _pytree as pytree

    import cgscope_torch as ct

    torch._dynamo.config.cache_size_limit = 1 << 20
    torch._dynamo.config.accumulated_cache_size_limit = 1 << 20
    signal.signal(signal.SIGALRM, _alarm)
    fa = open(os.path.join(out_dir, "aten.%d.jsonl" % wid), "w")
    ft = open(os.path.join(out_dir, "torch.%d.jsonl" % wid), "w")
    fp = open(os.path.join(out_dir, "prims.%d.jsonl" % wid), "w")
    fd = open(os.path.join(out_dir, "dynamic.%d.jsonl" % wid), "w")
    fe = open(os.path.join(out_dir, "export.%d.jsonl" % wid), "w")
    fs = open(os.path.join(out_dir, "symbolic.%d.jsonl" % wid), "w")
    from torch._prims.context import TorchRefsMode
    stats = {"aten": 0, "torch": 0, "prims": 0, "prims_refused": 0, "aten_refused": 0,
             "dynamic": 0, "dynamic_refused": 0, "export": 0, "export_refused": 0,
             "torch_refused": 0, "symbolic": 0, "symbolic_level": 0, "symbolic_refused": 0,
             "graph_breaks": 0, "timeouts": 0, "sample_errors": 0}
    refusals = {}
    for idx, op in enumerate(op_db):
        if idx % nworkers != wid:
            continue
        if time.time() > deadline:
            break
        opname = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
        for dt in pick_dtypes(op, torch):
            try:
                signal.alarm(60)
                its = list(op.sample_inputs("cuda", dt, requires_grad=False))[:samples]
                signal.alarm(0)
            except BaseException:
                signal.alarm(0)
                stats["sample_errors"] += 1
                continue
            for si, s in enumerate(its):
                leaves, spec = pytree.tree_flatten((s.input, s.args, s.kwargs))
                tidx = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]

                def fn(*ts, leaves=leaves, spec=spec, tidx=tidx, op=op):
                    full = list(leaves)
                    for i, t in zip(tidx, ts):
                        full[i] = t
                    inp, a, kw = pytree.tree_unflatten(full, spec)
                    return op(inp, *a, **kw)

                tens = [leaves[i] for i in tidx]
                case = "%s|%s|%d" % (opname, str(dt).replace("torch.", ""), si)
                gm, mode = None, "fake"
                for mode in ("fake", "symbolic"):
                    try:
                        signal.alarm(30)
                        gm = make_fx(fn, tracing_mode=mode)(*tens)
                        signal.alarm(0)
                        break
                    except Timeout:
                        stats["timeouts"] += 1
                        gm = None
                        break
                    except BaseException as exc:
                        signal.alarm(0)
                        gm = None
                        key = type(exc).__name__
                        if mode == "symbolic":
                            refusals[key] = refusals.get(key, 0) + 1
                if gm is not None:
                    try:
                        doc = strip(ct.to_json(gm, stage="other", name=case, is_inference=True))
                        fa.write(json.dumps({"case": case, "mode": mode, "graph": doc},
                                            separators=(",", ":")) + "\n")
                        stats["aten"] += 1
                        stats["symbolic"] += mode == "symbolic"
                    except BaseException as exc:
                        stats["aten_refused"] += 1
                        refusals["write:" + type(exc).__name__] = \
                            refusals.get("write:" + type(exc).__name__, 0) + 1
                else:
                    stats["aten_refused"] += 1
                if dt != torch.float32 or si >= 2:
                    continue

                def refs(*ts, fn=fn):
                    with TorchRefsMode(strict=False):
                        return fn(*ts)

                try:
                    signal.alarm(30)
                    pg = make_fx(refs, tracing_mode="fake")(*tens)
                    signal.alarm(0)
                    if any(str(n.target).startswith("prims.") for n in pg.graph.nodes):
                        doc = strip(ct.to_json(pg, stage="other", name=case, is_inference=True))
                        fp.write(json.dumps({"case": case, "mode": "fake", "graph": doc},
                                            separators=(",", ":")) + "\n")
                        stats["prims"] += 1
                except BaseException:
                    signal.alarm(0)
                    stats["prims_refused"] += 1
                # make_fx's symbolic tracing: every input size a symbol
                try:
                    signal.alarm(30)
                    sg = make_fx(fn, tracing_mode="symbolic")(*tens)
                    signal.alarm(0)
                    doc = strip(ct.to_json(sg, stage="other", name=case, is_inference=True))
                    fs.write(json.dumps({"case": case, "mode": "symbolic", "graph": doc},
                                        separators=(",", ":")) + "\n")
                    stats["symbolic_level"] += 1
                except BaseException:
                    signal.alarm(0)
                    stats["symbolic_refused"] += 1
                # dynamic=True: the graph with size symbols (and SymFloats)
                dgraphs = []

                def dbackend(g, example_inputs, dgraphs=dgraphs):
                    dgraphs.append(g)
                    return g.forward

                try:
                    torch._dynamo.reset()
                    signal.alarm(30)
                    torch.compile(fn, backend=dbackend, dynamic=True)(*tens)
                    signal.alarm(0)
                    if len(dgraphs) == 1:
                        doc = strip(ct.to_json(dgraphs[0], stage="dynamo", name=case,
                                               is_inference=True))
                        fd.write(json.dumps({"case": case, "mode": "dynamic", "graph": doc},
                                            separators=(",", ":")) + "\n")
                        stats["dynamic"] += 1
                    else:
                        stats["dynamic_refused"] += 1
                except BaseException:
                    signal.alarm(0)
                    stats["dynamic_refused"] += 1

                # torch.export's training IR
                class M(torch.nn.Module):
                    def forward(self, *ts, fn=fn):
                        return fn(*ts)

                try:
                    signal.alarm(30)
                    ep = torch.export.export(M(), tuple(tens), strict=False)
                    signal.alarm(0)
                    doc = strip(ct.to_json(ep.graph_module, stage="export", name=case,
                                           is_inference=True))
                    fe.write(json.dumps({"case": case, "mode": "export", "graph": doc},
                                        separators=(",", ":")) + "\n")
                    stats["export"] += 1
                except BaseException:
                    signal.alarm(0)
                    stats["export_refused"] += 1

                graphs = []

                def backend(g, example_inputs, graphs=graphs):
                    graphs.append(g)
                    return g.forward

                try:
                    torch._dynamo.reset()
                    signal.alarm(30)
                    torch.compile(fn, backend=backend, dynamic=False)(*tens)
                    signal.alarm(0)
                except BaseException:
                    signal.alarm(0)
                    graphs = None
                if not graphs:
                    stats["torch_refused"] += 1
                    continue
                if len(graphs) != 1:
                    stats["graph_breaks"] += 1
                    continue
                try:
                    doc = strip(ct.to_json(graphs[0], stage="dynamo", name=case,
                                           is_inference=True))
                    ft.write(json.dumps({"case": case, "graph": doc},
                                        separators=(",", ":")) + "\n")
                    stats["torch"] += 1
                except BaseException:
                    stats["torch_refused"] += 1
    fa.close()
    ft.close()
    fp.close()
    fd.close()
    fe.close()
    fs.close()
    return stats, refusals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--workers", type=int, default=12)
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--deadline", type=float, default=400)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    work = os.path.join(a.out, "parts")
    os.makedirs(work, exist_ok=True)
    deadline = time.time() + a.deadline
    ctx = mp.get_context("spawn")
    t0 = time.time()
    with ctx.Pool(a.workers) as pool:
        res = pool.map(worker, [(w, a.workers, work, a.samples, deadline)
                                for w in range(a.workers)])
    total, refused = {}, {}
    for st, rf in res:
        for k, v in st.items():
            total[k] = total.get(k, 0) + v
        for k, v in rf.items():
            refused[k] = refused.get(k, 0) + v
    for kind in ("aten", "torch", "prims", "dynamic", "export", "symbolic"):
        lines = []
        for w in range(a.workers):
            with open(os.path.join(work, "%s.%d.jsonl" % (kind, w))) as f:
                lines.extend(f.readlines())
        lines.sort()
        with open(os.path.join(a.out, "opinfo-%s.jsonl" % kind), "w") as f:
            f.writelines(lines)
        # tests/data/opinfo/KIND.txt: "@ CASE MODE", then the graph, for tests/test-opinfo.c
        with open(os.path.join(a.out, "%s.txt" % kind), "w") as f:
            f.write("# torch %s OpInfo cases recorded by tests/gpu/opinfo_oracle.py (%s level).\n"
                    "# Pairs of lines: \"@ CASE MODE\", then the graph.\n"
                    % (__import__("torch").__version__.split("+")[0], kind))
            for line in lines:
                r = json.loads(line)
                f.write("@ %s %s\n%s\n" % (r["case"], r.get("mode", "fake"),
                                            json.dumps(r["graph"], separators=(",", ":"))))
    print("opinfo oracle: %s; refusals %s; %.0f s" % (total, refused, time.time() - t0))


if __name__ == "__main__":
    main()
