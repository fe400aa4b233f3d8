#!/usr/bin/env python3
"""Ground truth for reading graphs out of TORCH_TRACE logs (issue 28), on the GPU machine.

Each workload runs in its own process with TORCH_TRACE set and torch.compile's backend the
bridge's dump_backend(post_grad=True): the same compile writes its graphs twice, as torch
prints them into the log and as the bridge dumps them (graph JSON). tests/trace-graphs.py then
reads the log with `cgscope graphs --write` and compares the two node by node.

Workloads: a CNN with an in-place residual (`out += identity`) and channels-last input
(inference), an MLP training step (forward and backward graphs), a model with a graph break
(two Dynamo graphs), mark_dynamic batches, a dynamic=True attention block with a Python float
argument (a SymFloat), torch.cond (a HOP: nested classes), a Hugging Face GPT-2 from a config;
custom ops with register_fake (one in-place: reinplaced in the graph Inductor lowers), a
torch.autocast region, a compiled AdamW step, flex_attention with a score_mod and a block mask,
dynamic=True with recompiles (a size-1 specialization, a new rank), mode="reduce-overhead",
Hugging Face Mixtral (MoE routing), T5 (encoder-decoder) and ViT from configs; training steps
through SDPA's flash and memory-efficient kernels (one with a mask's gradient) and through
flex_attention (its backward HOP).

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

WORKLOADS = ["cnn_infer", "mlp_train", "breaks", "mark_dynamic", "dyn_attn", "cond", "hf_gpt2",
             "custom_op", "autocast", "adamw", "flex", "dyn_recompile", "reduce_overhead",
             "hf_mixtral", "hf_t5", "hf_vit", "attn_train", "flex_train"]


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
    elif name == "custom_op":
        # a custom op with register_fake, and an in-place one (auto_functionalized in the
        # post-grad graph until Inductor reinplaces it)
        @torch.library.custom_op("cgs::scale_rows", mutates_args=())
        def scale_rows(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
            return x * w[:, None]

        @scale_rows.register_fake
        def _(x, w):
            return torch.empty_like(x)

        @torch.library.custom_op("cgs::clamp_", mutates_args=("x",))
        def clamp_(x: torch.Tensor, lo: float) -> None:
            x.clamp_(min=lo)

        @clamp_.register_fake
        def _(x, lo):
            return None

        def f(x, w):
            y = scale_rows(x, w).relu()
            z = y * 2
            clamp_(z, 0.5)
            return z.sum(-1)

        with torch.no_grad():
            torch.compile(f, backend=backend)(torch.randn(6, 5, device=dev),
                                              torch.randn(6, device=dev))
    elif name == "autocast":
        m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.Flatten(), nn.Linear(8 * 8 * 8, 16), nn.LayerNorm(16)).to(dev)

        def f(x):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                y = m(x)
                p = y.softmax(-1)
                return (p @ p.t()).float().sum() + y.exp().mean()

        torch.compile(f, backend=backend)(torch.randn(4, 3, 8, 8, device=dev))
    elif name == "adamw":
        m = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).to(dev)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
        m(torch.randn(8, 16, device=dev)).sum().backward()

        @torch.compile(backend=backend)
        def step():
            opt.step()

        step()
    elif name == "flex":
        from torch.nn.attention.flex_attention import flex_attention, create_block_mask

        def causal(b, h, q, kv):
            return q >= kv

        def score(s, b, h, q, kv):
            return s + (q - kv) * 0.01

        bm = create_block_mask(causal, None, None, 128, 128, device=dev)

        def f(q, k, v):
            return flex_attention(q, k, v, score_mod=score, block_mask=bm)

        q, k, v = (torch.randn(1, 2, 128, 16, device=dev) for _ in range(3))
        with torch.no_grad():
            torch.compile(f, backend=backend)(q, k, v)
    elif name == "dyn_recompile":
        # dynamic=True, then a call whose size 1 specializes, then a new rank: recompiles
        m = nn.Sequential(nn.Linear(12, 12), nn.Tanh()).to(dev)
        cm = torch.compile(lambda x: m(x).cumsum(0) / x.shape[0], backend=backend, dynamic=True)
        with torch.no_grad():
            for shape in ((5, 12), (9, 12), (1, 12), (2, 3, 12)):
                cm(torch.randn(*shape, device=dev))
    elif name == "reduce_overhead":
        m = nn.Sequential(nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 8)).to(dev).eval()
        cm = torch.compile(m, backend=backend, mode="reduce-overhead")
        with torch.no_grad():
            for _ in range(3):
                cm(torch.randn(4, 32, device=dev))
    elif name == "hf_mixtral":
        from transformers import MixtralConfig, MixtralForCausalLM
        cfg = MixtralConfig(hidden_size=64, intermediate_size=96, num_hidden_layers=1,
                            num_attention_heads=4, num_key_value_heads=2, num_local_experts=4,
                            num_experts_per_tok=2, vocab_size=128, max_position_embeddings=64)
        m = MixtralForCausalLM(cfg).to(dev).eval()
        with torch.no_grad():
            torch.compile(m, backend=backend)(torch.randint(0, 128, (2, 12), device=dev))
    elif name == "hf_t5":
        from transformers import T5Config, T5ForConditionalGeneration
        cfg = T5Config(vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=1,
                       num_decoder_layers=1, num_heads=4)
        m = T5ForConditionalGeneration(cfg).to(dev).eval()
        with torch.no_grad():
            torch.compile(m, backend=backend)(
                input_ids=torch.randint(0, 128, (2, 10), device=dev),
                decoder_input_ids=torch.randint(0, 128, (2, 6), device=dev))
    elif name == "hf_vit":
        from transformers import ViTConfig, ViTModel
        cfg = ViTConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
                        intermediate_size=64, image_size=32, patch_size=8)
        m = ViTModel(cfg).to(dev).eval()
        with torch.no_grad():
            torch.compile(m, backend=backend)(torch.randn(2, 3, 32, 32, device=dev))
    elif name == "attn_train":
        # a training step through SDPA's kernels: bfloat16 without a mask (flash), float32
        # (memory-efficient), bfloat16 with an additive mask that wants a gradient (efficient,
        # with the bias gradient): their forward and backward ops in the post-grad graphs
        class A(nn.Module):
            def __init__(s):
                super().__init__()
                s.qkv = nn.Linear(64, 192)

            def forward(s, x, mask):
                b, t, _ = x.shape
                q, k, v = s.qkv(x).view(b, t, 3, 4, 16).permute(2, 0, 3, 1, 4)
                y1 = F.scaled_dot_product_attention(q.bfloat16(), k.bfloat16(), v.bfloat16(),
                                                    is_causal=True)
                y2 = F.scaled_dot_product_attention(q, k, v)
                y3 = F.scaled_dot_product_attention(q.bfloat16(), k.bfloat16(), v.bfloat16(),
                                                    attn_mask=mask.bfloat16())
                return y1.float().sum() + y2.sum() + y3.float().sum()

        m = A().to(dev)
        mask = torch.randn(2, 4, 32, 32, device=dev, requires_grad=True)
        torch.compile(m, backend=backend)(torch.randn(2, 32, 64, device=dev), mask).backward()
    elif name == "flex_train":
        from torch.nn.attention.flex_attention import flex_attention

        def rel(s, b, h, q, kv):
            return s + (q - kv) * 0.02

        q, k, v = (torch.randn(1, 2, 128, 16, device=dev, requires_grad=True) for _ in range(3))
        torch.compile(lambda a, b_, c: flex_attention(a, b_, c, score_mod=rel),
                      backend=backend)(q, k, v).sum().backward()
    else:
        raise SystemExit("unknown workload " + name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--run")
    ap.add_argument("--dump")
    ap.add_argument("--only", default=",".join(WORKLOADS))
    ap.add_argument("--timeout", type=int, default=300)
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
        try:
            p = subprocess.run([sys.executable, __file__, "--run", name, "--dump", dump],
                               env=env, capture_output=True, text=True, timeout=a.timeout)
        except subprocess.TimeoutExpired:
            print("%-13s TIMEOUT after %d s" % (name, a.timeout))
            continue
        logs = glob.glob(os.path.join(trace, "*"))
        print("%-13s exit %d, %d log(s) %s, %d graph file(s)%s" % (
            name, p.returncode, len(logs), [os.path.getsize(x) for x in logs],
            len(glob.glob(os.path.join(dump, "*.json"))),
            "" if p.returncode == 0 else "\n" + p.stderr[-2000:]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
