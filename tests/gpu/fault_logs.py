#!/usr/bin/env python3
"""TORCH_TRACE logs with faults provoked on purpose (issue 36), for the findings' ground truth.

Each workload runs in its own process with TORCH_TRACE pointed at OUT/NAME and prints what it
provoked (torch's own counters and the exception it raised), so the findings `cgscope check`
gives can be written down from what was done, not from cgscope's output:

  backend_fail     a backend that raises: one compile that fails (BackendCompilerFailed)
  recompile_limit  recompile_limit 3, automatic dynamic off, six batch sizes: the frame hits
                   torch's recompile limit and runs eagerly after it
  break_hints      a data-dependent branch (torch's hint: torch.cond) and a logging call
                   (the hint: ignore_logging_functions), each a graph break
  reset            one frame compiled, torch._dynamo.reset(), compiled again (compile id 0/0
                   twice), then a size change that recompiles it
  optimizer        a training step with a compiled optimizer step (AdamW)
  empty            a frame with no tensor work (Dynamo makes no graph)
  fullgraph_break  fullgraph=True and a graph break: the compile fails (Unsupported, raised)
  item_break       x.item() without capture_scalar_outputs: a break with torch's hint
  hf_dynamic       a Hugging Face GPT-2 at three sequence lengths: one recompile, then
                   automatic dynamic shapes (no more)
  ranks_diverge    two processes (gloo, one log a rank): rank 1 feeds another size and
                   recompiles, rank 0 does not

  python3 tests/gpu/fault_logs.py --out OUT [--only NAME,...]
"""
import argparse
import os
import shutil
import subprocess
import sys

WORKLOADS = ["backend_fail", "recompile_limit", "break_hints", "reset", "optimizer", "empty",
             "fullgraph_break", "item_break", "hf_dynamic", "ranks_diverge"]


def child(name):
    import logging
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    dev = "cuda"
    torch.manual_seed(0)
    said = []
    if name == "backend_fail":
        def broken(gm, inputs):
            raise RuntimeError("broken backend on purpose")

        def fn(x):
            return torch.sin(x) + 1

        try:
            torch.compile(fn, backend=broken)(torch.randn(4, device=dev))
            said.append("no exception")
        except Exception as e:
            said.append("raised %s" % type(e).__name__)
    elif name == "recompile_limit":
        torch._dynamo.config.recompile_limit = 3
        torch._dynamo.config.automatic_dynamic_shapes = False

        def fn(x):
            return (x * 2).relu().sum(0)

        cf = torch.compile(fn)
        for b in range(2, 8):
            cf(torch.randn(b, 4, device=dev))
    elif name == "break_hints":
        log = logging.getLogger("cgs_fault")

        def fn(x):
            y = x.cos()
            if y.sum() > 0:
                y = y + 1
            log.warning("step")
            return y * 2

        torch.compile(fn)(torch.randn(8, device=dev))
    elif name == "reset":
        def fn(x):
            return torch.tanh(x) * 3

        torch.compile(fn)(torch.randn(4, device=dev))
        torch._dynamo.reset()
        cf = torch.compile(fn)
        cf(torch.randn(4, device=dev))
        cf(torch.randn(6, device=dev))
    elif name == "optimizer":
        m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                torch.nn.Linear(16, 2)).to(dev)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
        cm = torch.compile(m)

        @torch.compile
        def step():
            opt.step()

        for _ in range(2):
            cm(torch.randn(4, 8, device=dev)).sum().backward()
            step()
            opt.zero_grad()
    elif name == "empty":
        def fn(x, n):
            return [x] * n

        torch.compile(fn)(torch.randn(3, device=dev), 2)
    elif name == "fullgraph_break":
        def fn(x):
            y = x * 2
            if y.sum() > 0:
                y = y - 1
            return y

        try:
            torch.compile(fn, fullgraph=True)(torch.randn(4, device=dev))
            said.append("no exception")
        except Exception as e:
            said.append("raised %s" % type(e).__name__)
    elif name == "item_break":
        def fn(x):
            n = x.sum().item()
            return x * n

        torch.compile(fn)(torch.randn(4, device=dev))
    elif name == "hf_dynamic":
        from transformers import GPT2Config, GPT2LMHeadModel
        cfg = GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=64, n_positions=64)
        m = torch.compile(GPT2LMHeadModel(cfg).to(dev).eval())
        with torch.no_grad():
            for t in (8, 12, 16):
                m(torch.randint(0, 64, (1, t), device=dev))
    elif name == "ranks_diverge":
        import torch.distributed as dist
        dist.init_process_group("gloo")
        r = dist.get_rank()

        def fn(x):
            return (x + 1).relu()

        cf = torch.compile(fn)
        cf(torch.randn(4, device=dev))
        cf(torch.randn(4 if r == 0 else 6, device=dev))
        dist.barrier()
        dist.destroy_process_group()
    print("%s: %s; counters %s" % (name, "; ".join(said) or "ran",
                                   {k: dict(v) for k, v in counters.items()
                                    if k in ("stats", "graph_break", "recompiles", "unimplemented")}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--run")
    ap.add_argument("--only", default=",".join(WORKLOADS))
    a = ap.parse_args()
    a.run = a.run or os.environ.get("CGS_FAULT_RUN")
    if a.run:
        child(a.run)
        return
    for name in a.only.split(","):
        trace = os.path.join(a.out, name)
        shutil.rmtree(trace, ignore_errors=True)
        os.makedirs(trace)
        env = dict(os.environ, TORCH_TRACE=trace)
        cmd = [sys.executable, __file__, "--run", name]
        if name == "ranks_diverge":  # two ranks, each its own log (rank_N in the name)
            # (torchrun would take --run for its own --run-path: the name goes by environment)
            cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
                   "--master-port", "29517", __file__]
            env["CGS_FAULT_RUN"] = name
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        print("== %s exit %d" % (name, p.returncode))
        print(p.stdout[-3000:])
        print(p.stderr[-1500:])
        sys.stdout.flush()


if __name__ == "__main__":
    main()
