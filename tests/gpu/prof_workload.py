#!/usr/bin/env python3
"""The workload of the profiler's GPU test (tests/gpu/profile_check.py): a small transformer
run through the bridge's piecewise runner, split at scaled_dot_product_attention, as a user's
run.py would be. What runs it decides how it is observed:

  cgscope profile -o DIR -- python3 prof_workload.py ...      CUPTI through cgscope
  python3 prof_workload.py --torch-profiler trace.json ...    torch.profiler (Kineto), with
                                                              each piece in a record_function
  python3 prof_workload.py ...                                nothing (the overhead baseline)

modes: eager (pieces run eagerly), cudagraph (each piece a CUDA graph, replayed), train
(forward and backward: backward kernels come from autograd's own thread). --slow-attention runs
attention by PyTorch's math backend: the same graphs, the attention pieces slower on purpose
(what `cgscope diff` must name, tests/gpu/diff_pairs.py's profile pair).

Prints one JSON line on stdout: {"mode", "batch", "iters", "reps", "rep_ms": [...],
"pieces": N, "kernels_hint": ...}. --forever loops until killed (the SIGTERM test) and prints
"iter N" lines on stderr; --fork forks a child after CUDA is up that exits through C's exit().
"""
import argparse
import ctypes
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tools", "python"))
import cgscope_torch  # noqa: E402


class Block(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, 4 * d)
        self.down = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q = q.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))


class Model(torch.nn.Module):
    def __init__(self, d=512, heads=8, layers=2, breaks=False):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.head = torch.nn.Linear(d, d)
        self.breaks = breaks

    def forward(self, x):
        x = self.blocks[0](x)
        if self.breaks:
            # a graph break after the first block (outside the loop, so that Dynamo resumes
            # after it): two Dynamo graphs, 0/0 and 1/0, each split into its own submod_0, ...
            torch._dynamo.graph_break()
        for b in self.blocks[1:]:
            x = b(x)
        return self.head(x)


def record_function_ranges():
    """Each piece's range also as a record_function (what torch.profiler sees)."""
    stack = []

    def push(name):
        stack.append(torch.ops.profiler._record_function_enter_new(name, None))
        return True

    def pop():
        torch.ops.profiler._record_function_exit._RecordFunction(stack.pop())

    cgscope_torch._nvtx_push = push
    cgscope_torch._nvtx_pop = pop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("eager", "cudagraph", "train", "breaks"), default="eager")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--torch-profiler", metavar="TRACE_JSON")
    ap.add_argument("--forever", action="store_true")
    ap.add_argument("--fork", action="store_true")
    ap.add_argument("--slow-attention", action="store_true",
                    help="attention by PyTorch's math backend (the same graphs, slower attention "
                         "pieces: the ground truth of `cgscope diff`'s GPU time)")
    a = ap.parse_args()

    torch.manual_seed(0)
    dev = "cuda"
    model = Model(a.width, 8, a.layers, breaks=a.mode == "breaks").to(dev)
    if a.mode != "train":
        model.eval()
    if a.torch_profiler:
        record_function_ranges()
    backend = cgscope_torch.piecewise_backend(
        ["torch._C._nn.scaled_dot_product_attention"], compiler="eager",
        cudagraph=a.mode == "cudagraph", dump_dir=os.environ.get("CGSCOPE_DEMO_DUMP"))
    cm = torch.compile(model, backend=backend, dynamic=False)
    x = torch.randn(a.batch, a.seq, a.width, device=dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4) if a.mode == "train" else None

    def step():
        if a.slow_attention:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            with sdpa_kernel(SDPBackend.MATH):
                return plain_step()
        return plain_step()

    def plain_step():
        if opt is None:
            with torch.no_grad():
                return cm(x)
        # the step in a range of its own: the backward, launched from autograd's thread,
        # happens while it is open on this one
        cgscope_torch._nvtx_push("train_step")
        opt.zero_grad(set_to_none=True)
        out = cm(x)
        out.square().mean().backward()
        opt.step()
        cgscope_torch._nvtx_pop()
        return out

    # torch.profiler covers the pieces' whole life (warm-up, capture, timed reps), as cgscope
    # does, so the per-piece counts compare; the model's set-up before this is in no piece
    prof = None
    if a.torch_profiler:
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        prof = torch.profiler.profile(activities=acts)
        prof.__enter__()
    for _ in range(a.warmup):
        step()
    torch.cuda.synchronize()

    if a.fork:
        pid = os.fork()
        if pid == 0:
            ctypes.CDLL(None).exit(0)   # C's exit: atexit handlers run, the profiler's too
        t0 = time.time()
        _, st = os.waitpid(pid, 0)
        sys.stderr.write("fork child %d: status %d after %.1f s\n" % (pid, st, time.time() - t0))

    if a.forever:
        i = 0
        while True:
            step()
            torch.cuda.synchronize()
            i += 1
            sys.stderr.write("iter %d\n" % i)
            sys.stderr.flush()

    rep_ms = []
    for _ in range(a.reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(a.iters):
            step()
        torch.cuda.synchronize()
        rep_ms.append((time.perf_counter() - t0) * 1e3)
    if prof is not None:
        prof.__exit__(None, None, None)
        prof.export_chrome_trace(a.torch_profiler)
    pieces = sum(len(g.pieces) for g in backend.graphs)
    print(json.dumps({"mode": a.mode, "batch": a.batch, "iters": a.iters, "reps": a.reps,
                      "warmup": a.warmup, "rep_ms": rep_ms, "pieces": pieces,
                      "pid": os.getpid()}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
