#!/usr/bin/env python3
"""Graphs whose sizes use torch's sympy functions beyond cgscope's algebra (issue 11): Dynamo
graphs with dynamic shapes where torch writes TruncToInt/ToFloat (interpolate by a float
scale), FloorToInt, Piecewise and Max/Min over unbacked sizes (narrow, slicing by .item()).

On the GPU machine (torch 2.11): writes OUT/symdims/<name>.dynamo.json with the bridge and
prints every size expression that uses such a function.

usage: sympy_dims.py --out DIR
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import cgscope_torch as ct  # noqa: E402


def interp_nearest(x):
    return F.interpolate(x, scale_factor=1.7, mode="nearest").relu()


def interp_bilinear(x):
    y = F.interpolate(x, scale_factor=0.6, mode="bilinear", align_corners=False)
    return torch.cat([y, y * 2], dim=1).sum(dim=-1)


def interp_twice(x):
    y = F.interpolate(x, scale_factor=2.5, mode="nearest")
    return F.avg_pool2d(y, 2) + 1


def interp_integral(x):
    return F.interpolate(x, scale_factor=2.0, mode="nearest") * 2


def interp_third(x):
    return F.interpolate(x, scale_factor=1 / 3, mode="bilinear") - 1


def narrow_unbacked(x, n):
    k = n.item()
    torch._check(k >= 0)
    torch._check(k <= x.size(0))
    return x.narrow(0, 0, k).relu() * 2


def slice_unbacked(x, n):
    k = n.item()
    return (x[:k] + 1).sum(0, keepdim=True)


def narrow_start_unbacked(x, n):
    k = n.item()
    torch._check(k >= 0)
    torch._check(k + 2 <= x.size(0))
    return x.narrow(0, k, 2).cos()


CASES = {
    "interp_nearest": (interp_nearest, lambda: (torch.randn(2, 3, 10, 12, device="cuda"),)),
    "interp_bilinear": (interp_bilinear, lambda: (torch.randn(2, 3, 10, 12, device="cuda"),)),
    "interp_twice": (interp_twice, lambda: (torch.randn(1, 4, 9, 7, device="cuda"),)),
    "interp_integral": (interp_integral, lambda: (torch.randn(2, 3, 10, 12, device="cuda"),)),
    "interp_third": (interp_third, lambda: (torch.randn(2, 3, 10, 12, device="cuda"),)),
    "narrow_unbacked": (narrow_unbacked, lambda: (torch.randn(8, 5, device="cuda"),
                                                  torch.tensor(3, device="cuda"))),
    "slice_unbacked": (slice_unbacked, lambda: (torch.randn(8, 5, device="cuda"),
                                                torch.tensor(3, device="cuda"))),
    "narrow_start_unbacked": (narrow_start_unbacked,
                              lambda: (torch.randn(8, 5, device="cuda"),
                                       torch.tensor(3, device="cuda"))),
}

FUNCS = re.compile(r"(Piecewise|TruncToInt|ToFloat|FloorToInt|CeilToInt|RoundToInt|"
                   r"ModularIndexing|FloatTrueDiv|IntTrueDiv|Max|Min|Where|Abs)\(")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    out = os.path.join(a.out, "symdims")
    os.makedirs(out, exist_ok=True)
    torch._dynamo.config.capture_scalar_outputs = True
    for name, (fn, make) in CASES.items():
        graphs = []

        def backend(gm, ex):
            graphs.append(gm)
            return gm.forward

        try:
            torch._dynamo.reset()
            torch.compile(fn, backend=backend, dynamic=True)(*make())
            path = os.path.join(out, name + ".dynamo.json")
            ct.dump(graphs[0], path, stage="dynamo", is_inference=True)
            seen = set()
            for n in json.load(open(path))["nodes"]:
                v = n.get("val")
                for t in (v if isinstance(v, list) else [v]):
                    if isinstance(t, dict):
                        for d in (t.get("shape") or []) + (t.get("stride") or []):
                            if isinstance(d, str) and FUNCS.search(d):
                                seen.add(d)
            print(name, "ok:", sorted(seen), flush=True)
        except Exception as exc:
            print(name, "FAILED", type(exc).__name__, str(exc)[:300], flush=True)


if __name__ == "__main__":
    main()
