#!/usr/bin/env python3
"""Graphs with higher-order ops, for the shape pass's body entry (issue 11.3).

On the GPU machine (torch 2.11), writes OUT/hop/<name>.json with the bridge (subgraphs
included): torch.export of modules using torch.no_grad() inside forward
(wrap_with_set_grad_enabled), an autocast region (wrap_with_autocast), torch.cond, and a
Dynamo graph with torch.compiler.nested_compile_region (invoke_subgraph), while_loop,
a mutating custom op (auto_functionalized) and an effectful op (with_effects).

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


try:
    import triton
    import triton.language as tl

    @triton.jit
    def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m),
                 mask=m)

    def triton_user(x, y):
        out = torch.empty_like(x)
        n = x.numel()
        _add_kernel[(triton.cdiv(n, 64),)](x, y, out, n, BLOCK=64)
        return out.relu().t()
except ImportError:  # no triton: those graphs are skipped
    triton_user = None


def aot_capture(dynamo_graphs, forward_graphs):
    """A torch.compile backend keeping Dynamo's graph and AOTAutograd's forward graph."""
    from torch._dynamo.backends.common import aot_autograd

    def backend(gm, ex):
        dynamo_graphs.append(gm)

        def fw_compiler(g, ex2):
            forward_graphs.append(g)
            return g.forward
        return aot_autograd(fw_compiler=fw_compiler)(gm, ex)
    return backend


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
    # while_loop, auto_functionalized (a mutating custom op), with_effects (an effectful op)
    try:
        class Loop(torch.nn.Module):
            def forward(self, x):
                def cond_fn(i, y):
                    return i < 3

                def body_fn(i, y):
                    return i + 1, (y * 2).relu()

                return torch._higher_order_ops.while_loop(
                    cond_fn, body_fn, (torch.zeros((), dtype=torch.int64, device=x.device), x))

        ep = torch.export.export(Loop().cuda(), (x,), strict=False)
        ct.dump(ep.graph_module, os.path.join(out, "while_loop.export.json"), stage="export",
                is_inference=False)
        print("while_loop export: ok", flush=True)
    except Exception as exc:
        print("while_loop FAILED", type(exc).__name__, str(exc)[:300], flush=True)
    try:
        @torch.library.custom_op("cgs::scale_", mutates_args={"y"})
        def scale_(y: torch.Tensor, k: float) -> None:
            y.mul_(k)

        @scale_.register_fake
        def _(y, k):
            return None

        class Mut(torch.nn.Module):
            def forward(self, x):
                y = x.transpose(0, 1).contiguous() + 1
                scale_(y, 2.0)
                return y.sum(dim=0)

        globals()["Mut"] = Mut
        ep = torch.export.export(Mut().cuda(), (x,), strict=False).run_decompositions({})
        ct.dump(ep.graph_module, os.path.join(out, "auto_functionalized.export.json"),
                stage="export", is_inference=False)
        print("auto_functionalized export: ok", flush=True)
    except Exception as exc:
        print("auto_functionalized FAILED", type(exc).__name__, str(exc)[:300], flush=True)
    try:
        class Eff(torch.nn.Module):
            def forward(self, x):
                torch.ops.aten._print("hello")
                return x.cos()

        # the training IR keeps aten._print as it is (tests/data/print.export.json); the
        # decomposed graph threads an effect token through with_effects
        ep = torch.export.export(Eff().cuda(), (x,), strict=False)
        ct.dump(ep.graph_module, os.path.join(out, "print.export.json"), stage="export",
                is_inference=False)
        ep = ep.run_decompositions()
        ct.dump(ep.graph_module, os.path.join(out, "with_effects.export.json"), stage="export",
                is_inference=False)
        print("with_effects export: ok", flush=True)
    except Exception as exc:
        print("with_effects FAILED", type(exc).__name__, str(exc)[:300], flush=True)
    # a user's triton kernel: Dynamo records triton_kernel_wrapper_mutation (its kwargs a
    # dict holding the tensors), AOTAutograd's forward graph the functional form whose dict
    # result getitem reads by name
    try:
        graphs, fw = [], []
        torch._dynamo.reset()
        with torch.no_grad():
            torch.compile(triton_user, backend=aot_capture(graphs, fw))(x, x * 3)
        ct.dump(graphs[0], os.path.join(out, "triton_kernel.dynamo.json"), stage="dynamo",
                is_inference=True)
        ct.dump(fw[0], os.path.join(out, "triton_kernel.aot.json"), stage="aot_forward",
                is_inference=True)
        print("triton kernel dynamo+aot: ok", [str(n.target) for n in fw[0].graph.nodes
                                               if "triton" in str(n.target)], flush=True)
    except Exception as exc:
        print("triton kernel FAILED", type(exc).__name__, str(exc)[:300], flush=True)
    # auto_functionalized v1: what AOTAutograd records when Inductor's v2 is switched off
    try:
        fw = []
        torch._dynamo.reset()
        import torch._inductor.config as ic
        with ic.patch(enable_auto_functionalized_v2=False), torch.no_grad():
            torch.compile(Mut().cuda(), backend=aot_capture([], fw))(x)
        ct.dump(fw[0], os.path.join(out, "auto_functionalized_v1.aot.json"), stage="aot_forward",
                is_inference=True)
        print("auto_functionalized v1: ok", [str(n.target) for n in fw[0].graph.nodes
                                             if "auto" in str(n.target)], flush=True)
    except Exception as exc:
        print("auto_functionalized v1 FAILED", type(exc).__name__, str(exc)[:300], flush=True)
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
