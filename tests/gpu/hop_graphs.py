#!/usr/bin/env python3
"""Graphs with higher-order ops, for the shape pass's body entry (issue 11.3).

On the GPU machine (torch 2.11), writes OUT/hop/<name>.json with the bridge (subgraphs
included): torch.export of modules using torch.no_grad() inside forward
(wrap_with_set_grad_enabled), an autocast region (wrap_with_autocast), torch.cond, and a
Dynamo graph with torch.compiler.nested_compile_region (invoke_subgraph).

usage: hop_graphs.py --out DIR
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "python"))

import torch  # noqa: E402

import cgscope_torch as ct  # noqa: E402


class NoGrad(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 32)

    def forward(self, x):
        y = self.lin(x).relu()
        with torch.no_grad():
            z = y.transpose(0, 1).sum(dim=0, keepdim=True) * 2
        return y + z.t()


class Autocast(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)

    def forward(self, x):
        with torch.autocast("cuda", enabled=False):
            y = self.lin(x)
        return y.sigmoid().permute(1, 0)


class Cond(torch.nn.Module):
    def forward(self, x):
        def t(x):
            return (x.sin() + 1).reshape(-1, 4)

        def f(x):
            return (x.cos() - 1).reshape(-1, 4)

        return torch.cond(x.sum() > 0, t, f, (x,))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    out = os.path.join(a.out, "hop")
    os.makedirs(out, exist_ok=True)
    x = torch.randn(8, 16, device="cuda")
    for name, mod in (("no_grad", NoGrad()), ("autocast", Autocast()), ("cond", Cond())):
        mod = mod.cuda()
        try:
            ep = torch.export.export(mod, (x,), strict=False)
            ct.dump(ep.graph_module, os.path.join(out, name + ".export.json"), stage="export",
                    is_inference=False)
            print(name, "export: ok", flush=True)
        except Exception as exc:
            print(name, "export FAILED", type(exc).__name__, str(exc)[:300], flush=True)
    # invoke_subgraph through Dynamo
    try:
        region = torch.compiler.nested_compile_region

        @region
        def block(x):
            return torch.nn.functional.gelu(x @ x.t()).sum(dim=1)

        graphs = []

        def backend(gm, ex):
            graphs.append(gm)
            return gm.forward

        torch._dynamo.reset()
        torch.compile(lambda x: block(x) + block(x * 2), backend=backend)(x)
        ct.dump(graphs[0], os.path.join(out, "invoke_subgraph.dynamo.json"), stage="dynamo",
                is_inference=True)
        print("invoke_subgraph dynamo: ok", flush=True)
    except Exception as exc:
        print("invoke_subgraph FAILED", type(exc).__name__, str(exc)[:300], flush=True)


if __name__ == "__main__":
    main()
