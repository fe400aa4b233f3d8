#!/usr/bin/env python3
"""Ground truth for the prims and Inductor prims with rules of their own that the OpInfo
samples do not reach (prims.empty, full, copy_strided, device_put, xor_sum, Inductor's fma,
aten._unsafe_index): each call traced by make_fx(tracing_mode="fake") on CUDA inputs of
several layouts, written with the bridge as one graph JSON line each, for
tests/data/opinfo/prims-extra.txt ("@ CASE fake", then the graph).

  python3 tests/gpu/prims_extra.py --out FILE
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "python"))


def main():
    import torch
    import torch._inductor.inductor_prims  # noqa: F401  (registers prims.fma)
    from torch.fx.experimental.proxy_tensor import make_fx
    import cgscope_torch as ct

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    P = torch.ops.prims
    dev = "cuda"
    x = torch.randn(4, 6, device=dev)
    xt = x.t()
    h = torch.randn(6, device=dev, dtype=torch.float16)
    idx = torch.tensor([2, 0, 3], device=dev)
    cases = {
        "empty": (lambda: P.empty([3, 5], dtype=torch.float16, device=torch.device(dev),
                                  requires_grad=False), []),
        "full": (lambda: P.full([2, 0, 3], 1.5, dtype=torch.float32, device=torch.device(dev),
                                requires_grad=False), []),
        "copy_strided": (lambda t: P.copy_strided(t, [1, 4]), [x]),
        "device_put": (lambda t: P.device_put(t, torch.device("cpu")), [xt]),
        "xor_sum": (lambda t: P.xor_sum(t, [1]), [torch.randint(0, 9, (4, 6), device=dev)]),
        "fma": (lambda t, u: P.fma(t, u, t), [x, h]),
        "fma_t": (lambda t, u: P.fma(t, u, 2.0), [xt, torch.randn(6, 1, device=dev)]),
        "unsafe_index": (lambda t, i: torch.ops.aten._unsafe_index.Tensor(t, [None, i]), [x, idx]),
        "unsafe_index_t": (lambda t, i: torch.ops.aten._unsafe_index.Tensor(t, [i]), [xt, idx]),
    }
    n = 0
    with open(a.out, "w") as f:
        f.write("# prims and Inductor prims outside the OpInfo samples, recorded on the GPU "
                "machine by tests/gpu/prims_extra.py (torch %s).\n" % torch.__version__)
        for name, (fn, args) in cases.items():
            try:
                gm = make_fx(fn, tracing_mode="fake")(*args)
                doc = ct.to_json(gm, stage="other", name=name, is_inference=True)
                for node in doc["nodes"]:
                    node.pop("stack_trace", None)
                f.write("@ %s fake\n%s\n" % (name, json.dumps(doc, separators=(",", ":"))))
                n += 1
            except Exception as exc:  # noqa: BLE001
                print("%s: %s: %s" % (name, type(exc).__name__, exc))
    print("%d cases written to %s" % (n, a.out))


if __name__ == "__main__":
    main()
