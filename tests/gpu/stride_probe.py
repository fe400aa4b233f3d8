#!/usr/bin/env python3
"""Ground truth for the strides torch gives view/reshape outputs, on the H200 with torch 2.11.

Random tensors (permuted, sliced, unsqueezed: size-1 dims with every kind of stride) are viewed
and reshaped to random shapes of the same numel; for each case the strides torch's FakeTensor
gives (what every graph records) and what eager CUDA gives. Also: dropout in eval mode on a
non-dense input, a depthwise convolution of a channels-last-like input at the Dynamo and
torch.export stages, and a repeated slice_scatter of a sliced input under one FakeTensorMode.

usage: python3 tests/gpu/stride_probe.py OUT.json
"""
import json
import random
import sys

import torch
import torch.nn.functional as F
from torch._subclasses.fake_tensor import FakeTensorMode

rng = random.Random(11)


def factors(n):
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def rand_tensor():
    nd = rng.randint(1, 5)
    shape = [rng.choice([1, 1, 2, 3, 4, 6]) for _ in range(nd)]
    t = torch.empty(shape, device="cuda")
    for _ in range(rng.randint(0, 4)):
        op = rng.randrange(4)
        if op == 0 and t.dim() > 1:
            perm = list(range(t.dim()))
            rng.shuffle(perm)
            t = t.permute(perm)
        elif op == 1 and t.dim() < 6:
            t = t.unsqueeze(rng.randint(0, t.dim()))
        elif op == 2 and t.dim() > 0:
            d = rng.randrange(t.dim())
            if t.shape[d] > 1:
                a = rng.randrange(t.shape[d])
                b = rng.randint(a + 1, t.shape[d])
                t = t.narrow(d, a, b - a)
        elif op == 3 and t.dim() > 1:
            i, j = rng.sample(range(t.dim()), 2)
            t = t.transpose(i, j)
    return t


def rand_shape(numel):
    fs = factors(numel)
    rng.shuffle(fs)
    shape = []
    for f in fs:
        if shape and rng.random() < 0.4:
            shape[-1] *= f
        else:
            shape.append(f)
    for _ in range(rng.randint(0, 3)):
        shape.insert(rng.randint(0, len(shape)), 1)
    return shape or [1] * rng.randint(0, 2)


def outcome(fn):
    try:
        r = fn()
        return {"stride": list(r.stride()), "offset": r.storage_offset()}
    except Exception as e:  # noqa: BLE001 (torch refuses a view: that is an answer too)
        return {"error": type(e).__name__}


def views(n):
    mode = FakeTensorMode()
    cases = []
    for _ in range(n):
        t = rand_tensor()
        shape = rand_shape(t.numel())
        ft = mode.from_tensor(t)
        c = {"shape": list(t.shape), "stride": list(t.stride()), "new": shape}
        for name, fn in (("view", lambda x: x.view(shape)), ("reshape", lambda x: x.reshape(shape))):
            c[name + "_eager"] = outcome(lambda: fn(t))
            with mode:
                c[name + "_fake"] = outcome(lambda: fn(ft))
        cases.append(c)
    return cases


def dynamo_vals(fn, *args):
    seen = []

    def backend(gm, ex):
        for n in gm.graph.nodes:
            v = n.meta.get("example_value")
            if isinstance(v, torch.Tensor) and n.op == "call_function":
                seen.append((n.name, list(v.shape), list(v.stride()), v.storage_offset()))
        return gm.forward
    torch._dynamo.reset()
    torch.compile(fn, backend=backend, fullgraph=True)(*args)
    return seen


def export_vals(mod, *args):
    ep = torch.export.export(mod, args, strict=False)
    return [(n.name, list(n.meta["val"].shape), list(n.meta["val"].stride()),
             n.meta["val"].storage_offset())
            for n in ep.graph.nodes if n.op == "call_function"
            and isinstance(n.meta.get("val"), torch.Tensor)]


class Depthwise(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(64, 64, 3, padding=1, groups=64)

    def forward(self, y):
        x = y[:, 1:].transpose(1, 2).view(2, 64, 56, 56)
        return self.conv(x)


class Drop(torch.nn.Module):
    def forward(self, y):
        return F.dropout(y[:, 0], 0.0, False)


def main():
    out = {"torch": torch.__version__, "views": views(3000)}
    y = torch.randn(2, 3137, 64, device="cuda")
    m = Depthwise().cuda().eval()
    with torch.no_grad():
        out["conv_dynamo"] = dynamo_vals(m, y)
        out["conv_export"] = export_vals(m, y)
        out["conv_eager"] = list(m(y).stride())
        d = Drop().cuda().eval()
        z = torch.randn(2, 50, 320, device="cuda")
        out["drop_dynamo"] = dynamo_vals(d, z)
        out["drop_export"] = export_vals(d, z)
        out["drop_eager"] = list(d(z).stride())
    for cache in (True, False):
        import torch._subclasses.fake_tensor as ftm
        mode = FakeTensorMode()
        mode.cache_enabled = cache
        x = mode.from_tensor(torch.empty(14, 14, device="cuda"))
        src = mode.from_tensor(torch.empty(4, 7, device="cuda"))
        with mode:
            s = x[7:11]
            r = [torch.slice_scatter(s, src, 1, 0, 7).storage_offset() for _ in range(3)]
        out["slice_scatter_offsets_cache_%s" % cache] = r
    real = torch.empty(14, 14, device="cuda")[7:11]
    out["slice_scatter_eager"] = torch.slice_scatter(real, torch.empty(4, 7, device="cuda"),
                                                     1, 0, 7).storage_offset()
    json.dump(out, open(sys.argv[1], "w"))
    bad = [c for c in out["views"] if c["view_fake"] != c["view_eager"]]
    print("views: %d cases, %d where fake and eager differ" % (len(out["views"]), len(bad)))
    for k, v in out.items():
        if k != "views":
            print(k, v)


if __name__ == "__main__":
    main()
