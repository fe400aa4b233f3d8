#!/usr/bin/env python3
"""Ground truth for reading graphs out of TORCH_TRACE logs (issue 28), on the GPU machine.

Each workload runs in its own process with TORCH_TRACE set and torch.compile's backend the
bridge's dump_backend(post_grad=True): the same compile writes its graphs twice, as torch
prints them into the log and as the bridge dumps them (graph JSON). tests/trace-graphs.py then
reads the log with `cgscope graphs --write` and compares the two node by node.

Workloads: a CNN with an in-place residual (`out += identity`) and channels-last input
(inference), an MLP training step (forward and backward graphs), a model with a graph break
(two Dynamo graphs), mark_dynamic batches, a dynamic=True attention block with a Python float
argument (a SymFloat), torch.cond (a HOP: nested classes), a Hugging Face GPT-2 from a config.

  python3 tests/gpu/trace_graphs.py --out OUT            every workload, OUT/NAME/{trace,json}
  python3 tests/gpu/trace_graphs.py --run NAME --trace T --dump D   one (the child)
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "python"))

WORKLOADS = ["cnn_infer", "mlp_train", "breaks", "mark_dynamic", "dyn_attn", "cond", "hf_gpt2"]


def child(name, dump):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import cgscope_torch as ct

    torch.manual_seed(0)
    dev = "cuda"
    backend = ct.dump_backend(dump, post_grad=True)

    if name == "cnn_infer":
        class Block(nn.Module):
            def __init__(s, c):
                super().__init__()
                s.c1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
                s.b1 = nn.BatchNorm2d(c)
                s.c2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
                s.b2 = nn.BatchNorm2d(c)

            def forward(s, x):
                out = F.relu(s.b1(s.c1(x)), inplace=True)
                out = s.b2(s.c2(out))
                out += x
                return F.relu(out)

        m = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(), Block(16),
                          nn.MaxPool2d(2), Block(16), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(16, 10)).to(dev).eval()
        x = torch.randn(4, 3, 32, 32, device=dev).to(memory_format=torch.channels_last)
        with torch.no_grad():
            torch.compile(m, backend=backend)(x)
    elif name == "mlp_train":
        m = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 8)).to(dev)
        cm = torch.compile(m, backend=backend)
        for _ in range(2):
            cm(torch.randn(16, 32, device=dev)).pow(2).mean().backward()
    elif name == "breaks":
        class M(nn.Module):
            def __init__(s):
                super().__init__()
                s.a = nn.Linear(16, 16)
                s.b = nn.Linear(16, 4)

            def forward(s, x):
                y = torch.tanh(s.a(x)) * 2
                torch._dynamo.graph_break()
                return s.b(y).softmax(-1)

        with torch.no_grad():
            torch.compile(M().to(dev), backend=backend)(torch.randn(8, 16, device=dev))
    elif name == "mark_dynamic":
        m = nn.Sequential(nn.Linear(24, 48), nn.SiLU(), nn.Linear(48, 24)).to(dev)
        cm = torch.compile(m, backend=backend)
        with torch.no_grad():
            for b in (4, 12):
                x = torch.randn(b, 24, device=dev)
                torch._dynamo.mark_dynamic(x, 0)
                cm(x)
    elif name == "dyn_attn":
        class Attn(nn.Module):
            def __init__(s):
                super().__init__()
                s.qkv = nn.Linear(32, 96)
                s.o = nn.Linear(32, 32)
                s.ln = nn.LayerNorm(32)

            def forward(s, x, scale: float):
                b, t, c = x.shape
                q, k, v = s.qkv(s.ln(x)).split(32, dim=-1)
                q = q.view(b, t, 4, 8).transpose(1, 2)
                k = k.view(b, t, 4, 8).transpose(1, 2)
                v = v.view(b, t, 4, 8).transpose(1, 2)
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                y = y.transpose(1, 2).reshape(b, t, c)
                return x + s.o(y) * scale

        cm = torch.compile(Attn().to(dev), backend=backend, dynamic=True)
        with torch.no_grad():
            cm(torch.randn(2, 6, 32, device=dev), 0.5)
    elif name == "cond":
        class C(nn.Module):
            def forward(s, x):
                return torch.cond(x.sum() > 0, lambda t: t.sin() + 1, lambda t: t.cos() * 2, (x,))

        with torch.no_grad():
            torch.compile(C(), backend=backend)(torch.randn(5, 3, device=dev))
    elif name == "hf_gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel
        cfg = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=128, n_positions=64)
        m = GPT2LMHeadModel(cfg).to(dev).eval()
        with torch.no_grad():
            torch.compile(m, backend=backend)(torch.randint(0, 128, (2, 16), device=dev))
    else:
        raise SystemExit("unknown workload " + name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--run")
    ap.add_argument("--dump")
    ap.add_argument("--only", default=",".join(WORKLOADS))
    a = ap.parse_args()
    if a.run:
        child(a.run, a.dump)
        return
    for name in a.only.split(","):
        base = os.path.join(a.out, name)
        shutil.rmtree(base, ignore_errors=True)
        trace, dump = os.path.join(base, "trace"), os.path.join(base, "json")
        os.makedirs(trace)
        os.makedirs(dump)
        env = dict(os.environ, TORCH_TRACE=trace)
        p = subprocess.run([sys.executable, __file__, "--run", name, "--dump", dump],
                           env=env, capture_output=True, text=True, timeout=300)
        logs = glob.glob(os.path.join(trace, "*"))
        print("%-13s exit %d, %d log(s) %s, %d graph file(s)%s" % (
            name, p.returncode, len(logs), [os.path.getsize(x) for x in logs],
            len(glob.glob(os.path.join(dump, "*.json"))),
            "" if p.returncode == 0 else "\n" + p.stderr[-2000:]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
