#!/usr/bin/env python3
"""Pairs of TORCH_TRACE logs that differ by one change made on purpose (issue 40), the ground
truth of `cgscope diff`: each pair runs a workload twice, as A and as B, each in its own process
with its own TORCH_TRACE folder and a fresh Inductor cache, and B makes exactly the change its
name says. What each run did is printed (torch's own counters), so that what diff must say is
written down from the change, not from cgscope's output.

  same          the same program twice: no change
  print_break   B prints inside forward: a graph break, the forward's graph cut in two
  gelu_relu     B swaps gelu for relu: in each graph, gelu's operators out, relu's in
  wider         B's hidden size 64 -> 128: shapes change, operators do not
  second_attn   B calls scaled_dot_product_attention twice: one more attention operator
  channels_last B feeds a conv net channels-last input: strides change
  autocast      B runs under torch.autocast(bfloat16): dtypes change
  dynamic       A calls with one batch size three times, B with three sizes: a recompile, and
                the recompiled graph's batch is a symbol
  mark_dynamic  B marks the batch dimension dynamic: the graph's batch is a symbol
  backend_fail  B's backend raises: a compile failure

  python3 tests/gpu/diff_pairs.py --out OUT [--only NAME,...]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

PAIRS = ["same", "print_break", "gelu_relu", "wider", "second_attn", "channels_last", "autocast",
         "dynamic", "mark_dynamic", "backend_fail"]


def child(name, side):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch._dynamo.utils import counters

    dev = "cuda"
    torch.manual_seed(0)
    b = side == "b"
    said = []

    class MLP(nn.Module):
        def __init__(self, hidden=64, act="gelu", talk=False):
            super().__init__()
            self.fc1 = nn.Linear(32, hidden)
            self.fc2 = nn.Linear(hidden, 16)
            self.act, self.talk = act, talk

        def forward(self, x):
            h = self.fc1(x)
            h = F.gelu(h) if self.act == "gelu" else F.relu(h)
            if self.talk:
                print("inside forward")
            return self.fc2(h).sum(-1)

    class Attn(nn.Module):
        def __init__(self, twice=False):
            super().__init__()
            self.qkv = nn.Linear(64, 192)
            self.out = nn.Linear(64, 64)
            self.twice = twice

        def forward(self, x):
            q, k, v = self.qkv(x).view(x.shape[0], x.shape[1], 3, 4, 16).unbind(2)
            q, k, v = (t.transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            if self.twice:
                y = F.scaled_dot_product_attention(y, k, v, is_causal=True)
            return self.out(y.transpose(1, 2).reshape(x.shape[0], x.shape[1], 64))

    class Conv(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 16, 3, padding=1)
            self.bn = nn.BatchNorm2d(16)
            self.c2 = nn.Conv2d(16, 8, 3, padding=1)

        def forward(self, x):
            return self.c2(F.relu(self.bn(self.c1(x)))).mean((2, 3))

    with torch.no_grad():
        if name in ("same", "print_break", "gelu_relu", "wider", "dynamic", "mark_dynamic",
                    "backend_fail"):
            m = MLP(hidden=128 if (name == "wider" and b) else 64,
                    act="relu" if (name == "gelu_relu" and b) else "gelu",
                    talk=name == "print_break" and b).to(dev).eval()
            if name == "backend_fail" and b:
                def broken(gm, inputs):
                    raise RuntimeError("a backend that fails on purpose")
                cm = torch.compile(m, backend=broken)
            else:
                cm = torch.compile(m)
            sizes = [8, 8, 8]
            if name == "dynamic" and b:
                sizes = [8, 12, 16]
            for n in sizes:
                x = torch.randn(n, 32, device=dev)
                if name == "mark_dynamic" and b:
                    torch._dynamo.mark_dynamic(x, 0)
                try:
                    cm(x)
                except Exception as e:
                    said.append("raised %s" % type(e).__name__)
                    break
        elif name == "second_attn":
            m = Attn(twice=b).to(dev).eval()
            torch.compile(m)(torch.randn(2, 16, 64, device=dev))
        elif name == "channels_last":
            m = Conv().to(dev).eval()
            x = torch.randn(4, 3, 16, 16, device=dev)
            if b:
                x = x.to(memory_format=torch.channels_last)
            torch.compile(m)(x)
        elif name == "autocast":
            m = MLP().to(dev).eval()
            cm = torch.compile(m)
            x = torch.randn(8, 32, device=dev)
            if b:
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    cm(x)
            else:
                cm(x)
    torch.cuda.synchronize()
    print("%s/%s: frames %s, unique graphs %s, graph breaks %s, recompiles %s %s" % (
        name, side, dict(counters["frames"]), counters["stats"].get("unique_graphs"),
        sum(counters["graph_break"].values()), counters["recompiles"] if "recompiles" in counters
        else {}, "; ".join(said)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--run")
    ap.add_argument("--side")
    ap.add_argument("--only", default=",".join(PAIRS))
    a = ap.parse_args()
    if a.run:
        child(a.run, a.side)
        return
    for name in a.only.split(","):
        for side in ("a", "b"):
            trace = os.path.join(a.out, name, side)
            shutil.rmtree(trace, ignore_errors=True)
            os.makedirs(trace)
            cache = tempfile.mkdtemp(prefix="cgs-diff-cache-")
            env = dict(os.environ, TORCH_TRACE=trace, TORCHINDUCTOR_CACHE_DIR=cache)
            cmd = [sys.executable, __file__, "--run", name, "--side", side]
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
            shutil.rmtree(cache, ignore_errors=True)
            print("== %s/%s exit %d" % (name, side, p.returncode))
            print(p.stdout[-2000:])
            if p.returncode:
                print(p.stderr[-2000:])
            sys.stdout.flush()


if __name__ == "__main__":
    main()
