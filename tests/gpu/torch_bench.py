#!/usr/bin/env python3
"""cgscope against torch, side by side in one run (issue 16): torch's own split_module and
FakeTensorProp in memory, against a whole cgscope process each on the same graph's JSON,
with the answers checked while they are timed.

Graphs, built here with torch (random weights, no network):
  llama80      a Llama of 80 layers (transformers; width 256), the Dynamo graph, split at
               scaled_dot_product_attention;
  gpt2_48      GPT-2 with 48 layers (width 256), Dynamo graph, split the same way;
  attn100k     torch.fx.symbolic_trace of 14,300 attention blocks sharing 4 weight inputs
               (about 100k nodes), split at scaled_dot_product_attention;
  mlp_bwd      the AOTAutograd backward graph of a 200-layer MLP's training step (FakeTensorProp
               only; split at aten.mm);
  cnn_pg       the post-grad graph Inductor lowers for a ResNet-152 on CUDA (inference), split
               at aten.convolution.
torch: min of R runs of cgscope_torch.split_graph (torch.fx.passes.split_module with
MagiCompiler's partition) and of FakeTensorProp.propagate on fake copies of the inputs.
cgscope: min of 5 whole processes of `info --json`, `split --split-ops OP --json` and `shapes
--reinfer --json`, output to /dev/null. Checks: cgscope's pieces equal torch's (every piece's
nodes, inputs and outputs), and `shapes --reinfer` matches every value torch recorded.
Writes OUT/torch_bench.json and a markdown table OUT/torch_bench.md (for docs/perf.md).

usage: torch_bench.py --out DIR --cgscope PATH [--only NAME,...]
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "python"))

import torch  # noqa: E402

import cgscope_torch as ct  # noqa: E402

SDPA = "torch._C._nn.scaled_dot_product_attention"


def capture_dynamo(model, inputs):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append((gm, list(example_inputs)))
        return gm.forward

    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(model, backend=backend, dynamic=False)(*inputs)
    return graphs[0]


def llama80():
    import transformers as tr
    cfg = tr.LlamaConfig(vocab_size=1000, hidden_size=256, intermediate_size=512,
                         num_hidden_layers=80, num_attention_heads=4, num_key_value_heads=4,
                         max_position_embeddings=128)
    cfg._attn_implementation = "sdpa"
    m = tr.LlamaForCausalLM(cfg).eval()
    return capture_dynamo(m, (torch.randint(0, 1000, (1, 32)),)) + (SDPA, "dynamo")


def gpt2_48():
    import transformers as tr
    cfg = tr.GPT2Config(vocab_size=1000, n_positions=128, n_embd=256, n_layer=48, n_head=4)
    cfg._attn_implementation = "sdpa"
    m = tr.GPT2Model(cfg).eval()
    return capture_dynamo(m, (torch.randint(0, 1000, (1, 32)),)) + (SDPA, "dynamo")


class Blocks(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x, wq, wk, wv, wo):
        for _ in range(self.n):
            q = torch.matmul(x, wq)
            k = torch.matmul(x, wk)
            v = torch.matmul(x, wv)
            a = torch.nn.functional.scaled_dot_product_attention(q, k, v)
            x = x + torch.matmul(a, wo)
        return x


def attn100k():
    gm = torch.fx.symbolic_trace(Blocks(14300))
    d = 64
    inputs = [torch.randn(2, 16, d)] + [torch.randn(d, d) for _ in range(4)]
    return gm, inputs, SDPA, "other"


def mlp_bwd():
    from torch._functorch.aot_autograd import aot_module_simplified
    layers = []
    for _ in range(200):
        layers += [torch.nn.Linear(128, 128), torch.nn.ReLU()]
    m = torch.nn.Sequential(*layers)
    out = []

    def fw(gm, ex):
        return gm.forward

    def bw(gm, ex):
        out.append((gm, list(ex)))
        return gm.forward

    def backend(gm, ex):
        return aot_module_simplified(gm, ex, fw_compiler=fw, bw_compiler=bw)

    torch._dynamo.reset()
    x = torch.randn(32, 128)
    torch.compile(m, backend=backend)(x).sum().backward()
    gm, ex = out[0]
    return gm, ex, "aten.mm", "post_grad"


def cnn_pg():
    """The post-grad graph Inductor lowers for a ResNet-152 (CUDA, inference), taken from its
    post-grad custom pass; compilation is stopped there."""
    import torchvision
    import torch._inductor.config as ic
    m = torchvision.models.resnet152().cuda().eval()
    got = []

    class Stop(Exception):
        pass

    def grab(graph):
        got.append(graph.owning_module)
        raise Stop()

    torch._dynamo.reset()
    with ic.patch(post_grad_custom_post_pass=grab), torch.no_grad():
        try:
            torch.compile(m)(torch.randn(8, 3, 224, 224, device="cuda"))
        except Exception:
            if not got:
                raise
    gm = got[0]
    inputs = [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"]
    return gm, inputs, "aten.convolution.default", "post_grad"


BUILDERS = {"gpt2_48": gpt2_48, "llama80": llama80, "mlp_bwd": mlp_bwd, "cnn_pg": cnn_pg,
            "attn100k": attn100k}


def fake_prop(gm, inputs):
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp
    from torch._subclasses.fake_tensor import FakeTensor
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    fakes = []
    for t in inputs:
        if isinstance(t, FakeTensor):   # AOTAutograd's own fakes: a real stand-in first
            t = torch.empty_strided(tuple(t.size()), tuple(t.stride()), dtype=t.dtype,
                                    device=t.device)
        fakes.append(mode.from_tensor(t) if isinstance(t, torch.Tensor) else t)
    t0 = time.perf_counter()
    FakeTensorProp(gm, mode).propagate_dont_convert_inputs(*fakes)
    return time.perf_counter() - t0


def best(fn, reps):
    return min(fn() for _ in range(reps))


def proc_time(cmd, reps=5):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - t0)
        if p.returncode not in (0, 1):
            raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr[-500:]))
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cgscope", required=True)
    ap.add_argument("--only", default=",".join(BUILDERS))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cg = os.path.abspath(a.cgscope)
    rows = []
    for name in a.only.split(","):
        t_build = time.perf_counter()
        gm, inputs, op, stage = BUILDERS[name]()
        # values on every node (what cgscope's --reinfer is checked against), then the JSON
        fake_prop(gm, inputs)
        path = os.path.join(a.out, name + ".json")
        ct.dump(gm, path, stage=stage, name=name)
        nodes = len(gm.graph.nodes)
        big = nodes > 50000
        reps = 1 if big else 3
        t_split = best(lambda: (lambda t0: (ct.split_graph(gm, [op]), time.perf_counter() - t0)[1])(
            time.perf_counter()), reps)
        t_prop = best(lambda: fake_prop(gm, inputs), reps)
        rep = ct.split_report(gm, [op])
        c_info = proc_time([cg, "info", "--json", path])
        c_split = proc_time([cg, "split", path, "--split-ops", op, "--json"])
        c_shapes = proc_time([cg, "shapes", "--reinfer", "--json", path])
        # answers
        p = subprocess.run([cg, "split", path, "--split-ops", op, "--json"],
                           capture_output=True, text=True)
        ours = json.loads(p.stdout)["pieces"]
        same_split = [(x["name"], x["nodes"], x["inputs"], x["outputs"]) for x in ours] == \
            [(x["name"], x["nodes"], x["inputs"], x["outputs"]) for x in rep["pieces"]]
        p = subprocess.run([cg, "shapes", "--reinfer", "--json", path], capture_output=True,
                           text=True)
        sh = json.loads(p.stdout)
        mism = sum(1 for n in sh["nodes"] if n.get("match") is False)
        unknown = sum(1 for n in sh["nodes"] if n.get("status") not in ("ok", None))
        causes = sh.get("root_causes") or []
        size = os.path.getsize(path)
        row = {"graph": name, "nodes": nodes, "pieces": len(rep["pieces"]), "bytes": size,
               "torch_split_s": t_split, "torch_fakeprop_s": t_prop, "cgscope_info_s": c_info,
               "cgscope_split_s": c_split, "cgscope_shapes_s": c_shapes,
               "ratio": (t_split + t_prop) / (c_split + c_shapes),
               "load_mb_s": size / 1e6 / c_info, "split_equal": same_split,
               "shape_mismatches": mism, "shape_not_ok": unknown, "root_causes": causes[:5],
               "build_s": time.perf_counter() - t_build}
        rows.append(row)
        print(json.dumps(row))
        sys.stdout.flush()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    meta = {"date": time.strftime("%Y-%m-%d"), "torch": torch.__version__,
            "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "commit": commit}
    json.dump({"meta": meta, "rows": rows}, open(os.path.join(a.out, "torch_bench.json"), "w"),
              indent=1)
    with open(os.path.join(a.out, "torch_bench.md"), "w") as f:
        f.write("| graph | nodes, pieces | JSON | torch split / FakeTensorProp | cgscope info / "
                "split --json / shapes --reinfer --json | ratio | load | answers |\n")
        f.write("|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write("| %s | %d, %d | %.1f MB | %.2f s / %.2f s | %.0f / %.0f / %.0f ms | %.0fx | "
                    "%.0f MB/s | split %s, %d value mismatches |\n" % (
                        r["graph"], r["nodes"], r["pieces"], r["bytes"] / 1e6, r["torch_split_s"],
                        r["torch_fakeprop_s"], 1e3 * r["cgscope_info_s"],
                        1e3 * r["cgscope_split_s"], 1e3 * r["cgscope_shapes_s"], r["ratio"],
                        r["load_mb_s"], "equal" if r["split_equal"] else "DIFFERENT",
                        r["shape_mismatches"]))
    print(open(os.path.join(a.out, "torch_bench.md")).read())
    return 0 if all(r["split_equal"] and r["shape_mismatches"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
