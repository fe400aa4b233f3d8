#!/usr/bin/env python3
"""How torch 2.11 lays out a convolution's output at the Dynamo and torch.export stages, for
inputs laid out channels-last exactly or nearly (a batch stride that is not H*W*C, as after a
slice), depthwise or not; eager's layout beside. Writes OUT.json and the source of the fake
and meta convolution kernels (OUT.src.txt) for reading.

usage: python3 tests/gpu/conv_probe.py OUT.json
"""
import inspect
import json
import sys

import torch


def dynamo_val(fn, *args):
    seen = []

    def backend(gm, ex):
        for n in gm.graph.nodes:
            v = n.meta.get("example_value")
            if n.op == "call_function" and "conv" in str(n.target) and isinstance(v, torch.Tensor):
                seen.append(list(v.stride()))
        return gm.forward
    torch._dynamo.reset()
    torch.compile(fn, backend=backend, fullgraph=True)(*args)
    return seen


def export_val(mod, *args):
    ep = torch.export.export(mod, args, strict=False)
    return [list(n.meta["val"].stride()) for n in ep.graph.nodes
            if n.op == "call_function" and "conv" in str(n.target)]


class M(torch.nn.Module):
    def __init__(self, groups, near):
        super().__init__()
        self.conv = torch.nn.Conv2d(64, 64, 3, padding=1, groups=groups)
        self.near = near

    def forward(self, y):
        if self.near:
            x = y[:, 1:].transpose(1, 2).view(2, 64, 56, 56)
        else:
            x = y[:, :3136].transpose(1, 2).reshape(2, 64, 56, 56)
        return self.conv(x)


def main():
    out = {"torch": torch.__version__, "cases": []}
    with torch.no_grad():
        for groups in (64, 1):
            for near in (True, False):
                for dev in ("cuda", "cpu"):
                    m = M(groups, near).to(dev).eval()
                    y = torch.randn(2, 3137 if near else 3136, 64, device=dev)
                    if not near:
                        y = torch.randn(2, 3136, 64, device=dev)
                    case = {"groups": groups, "near_cl": near, "device": dev}
                    for name, fn in (("dynamo", lambda: dynamo_val(m, y)),
                                     ("export", lambda: export_val(m, y)),
                                     ("eager", lambda: [list(m(y).stride())])):
                        try:
                            case[name] = fn()
                        except Exception as e:  # noqa: BLE001
                            case[name] = "%s: %s" % (type(e).__name__, str(e)[:200])
                    out["cases"].append(case)
                    print(case, flush=True)
    json.dump(out, open(sys.argv[1], "w"), indent=1)
    src = []
    import torch._subclasses.fake_impls as fi
    import torch._meta_registrations as mr
    for name, obj in (("fake_impls.conv", getattr(fi, "conv", None)),
                      ("meta_conv", getattr(mr, "meta_conv", None))):
        if obj is not None:
            src.append("# %s\n%s" % (name, inspect.getsource(obj)))
    open(sys.argv[1].replace(".json", ".src.txt"), "w").write("\n".join(src))


if __name__ == "__main__":
    main()
