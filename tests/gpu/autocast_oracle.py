#!/usr/bin/env python3
"""The autocast oracle (issue 38): what torch.autocast does to every OpInfo op, recorded.

On a machine with torch 2.11 and CUDA, for every OpInfo in op_db that supports float32 on
CUDA, takes the first SAMPLES sample inputs and compiles the call with Dynamo inside
`with torch.autocast("cuda", dtype=DT)` (DT bfloat16 for float32 inputs; float16 for one
more pass over bfloat16 inputs, where the fp32 and promote policies show), the graph
Dynamo hands its backend holding the _enter_autocast/_exit_autocast nodes and the dtypes
autocast gave every value. Each graph is one pair of lines of OUT/autocast.txt, the format
tests/test-opinfo.c reads ("@ CASE autocast", then the graph).

It also writes OUT/autocast-registry.txt: every operator torch registers a kernel for at
the AutocastCUDA dispatch key, with the source line of its registration (torch registers
each policy's list from one line, so the line names the policy).

usage: autocast_oracle.py --out DIR [--workers N] [--samples K] [--deadline SECONDS]
"""
import argparse
import json
import multiprocessing as mp
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import opinfo_oracle as oo   # noqa: E402  (its helpers: timeouts, stripping, test stubs)


def worker(args):
    wid, nworkers, out_dir, samples, deadline = args
    oo.stub_test_modules()
    import torch
    import torch._dynamo
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.utils import _pytree as pytree
    import cgscope_torch as ct

    torch._dynamo.config.cache_size_limit = 1 << 20
    torch._dynamo.config.accumulated_cache_size_limit = 1 << 20
    signal.signal(signal.SIGALRM, oo._alarm)
    out = open(os.path.join(out_dir, "autocast.%d.jsonl" % wid), "w")
    stats = {"graphs": 0, "refused": 0, "breaks": 0}
    for idx, op in enumerate(op_db):
        if idx % nworkers != wid or time.time() > deadline:
            continue
        opname = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
        try:
            sup = op.supported_dtypes("cuda")
        except Exception:
            sup = op.dtypes
        passes = []
        if torch.float32 in sup:
            passes.append((torch.float32, torch.bfloat16))
        if torch.bfloat16 in sup:
            passes.append((torch.bfloat16, torch.float16))
        for dt, cast in passes:
            try:
                signal.alarm(60)
                its = list(op.sample_inputs("cuda", dt, requires_grad=False))[:samples]
                signal.alarm(0)
            except BaseException:
                signal.alarm(0)
                continue
            for si, s in enumerate(its):
                leaves, spec = pytree.tree_flatten((s.input, s.args, s.kwargs))
                tidx = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
                tens = [leaves[i] for i in tidx]

                def fn(*ts, leaves=leaves, spec=spec, tidx=tidx, op=op, cast=cast):
                    full = list(leaves)
                    for i, t in zip(tidx, ts):
                        full[i] = t
                    inp, a, kw = pytree.tree_unflatten(full, spec)
                    with torch.autocast("cuda", dtype=cast):
                        return op(inp, *a, **kw)

                graphs = []

                def backend(g, example_inputs, graphs=graphs):
                    graphs.append(g)
                    return g.forward

                case = "%s|%s>%s|%d" % (opname, str(dt).replace("torch.", ""),
                                        str(cast).replace("torch.", ""), si)
                try:
                    torch._dynamo.reset()
                    signal.alarm(30)
                    torch.compile(fn, backend=backend, dynamic=False)(*tens)
                    signal.alarm(0)
                except BaseException:
                    signal.alarm(0)
                    stats["refused"] += 1
                    continue
                if len(graphs) != 1:
                    stats["breaks"] += 1
                    continue
                try:
                    doc = oo.strip(ct.to_json(graphs[0], stage="dynamo", name=case,
                                              is_inference=True))
                except BaseException:
                    stats["refused"] += 1
                    continue
                out.write(json.dumps({"case": case, "graph": doc}, separators=(",", ":")) + "\n")
                stats["graphs"] += 1
    out.close()
    return stats


def registry(path):
    import torch
    with open(path, "w") as f:
        f.write("# torch %s: operators with an AutocastCUDA kernel, and the line that "
                "registers it\n" % torch.__version__)
        for name in sorted(torch._C._dispatch_get_registrations_for_dispatch_key("AutocastCUDA")):
            where = ""
            for line in torch._C._dispatch_dump(name).splitlines():
                if line.startswith("AutocastCUDA"):
                    where = line.split("registered at", 1)[-1].strip()
            f.write("%s | %s\n" % (name, where))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--workers", type=int, default=12)
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--deadline", type=float, default=200)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    registry(os.path.join(a.out, "autocast-registry.txt"))
    work = os.path.join(a.out, "parts")
    os.makedirs(work, exist_ok=True)
    deadline = time.time() + a.deadline
    t0 = time.time()
    with mp.get_context("spawn").Pool(a.workers) as pool:
        res = pool.map(worker, [(w, a.workers, work, a.samples, deadline)
                                for w in range(a.workers)])
    total = {}
    for st in res:
        for k, v in st.items():
            total[k] = total.get(k, 0) + v
    lines = []
    for w in range(a.workers):
        with open(os.path.join(work, "autocast.%d.jsonl" % w)) as f:
            lines.extend(f.readlines())
    lines.sort()
    import torch
    with open(os.path.join(a.out, "autocast.txt"), "w") as f:
        f.write("# torch %s OpInfo cases recorded by tests/gpu/autocast_oracle.py (autocast "
                "level).\n# Pairs of lines: \"@ CASE MODE\", then the graph.\n"
                % torch.__version__.split("+")[0])
        for line in lines:
            r = json.loads(line)
            f.write("@ %s autocast\n%s\n" % (r["case"], json.dumps(r["graph"],
                                                                   separators=(",", ":"))))
    print("autocast oracle: %s; %.0f s" % (total, time.time() - t0))


if __name__ == "__main__":
    main()
