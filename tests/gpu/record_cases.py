#!/usr/bin/env python3
"""Record shape-rule cases for tests/data/shapes.test under FakeTensorMode (torch 2.11, CUDA).

Each case: a call in the graph format (inputs x0, x1, ...), the input values, and the value
FakeTensor propagation gives (or "error"). Prints the groups to stdout, ready to append.

usage: record_cases.py > cases.test
"""

import operator
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "python"))

import json  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402

import cgscope_torch as ct  # noqa: E402

W = ct._Writer()


def T(shape, stride=None, dtype=torch.float32, device="cuda"):
    return ("T", shape, stride, dtype, device)


class L(list):
    """A Python list index (written {"list": [...]})."""


def enc(x):
    return json.dumps(x, separators=(",", ":"))


def case(target, op, fn, args, kwargs=None, note="", dynamic=False):
    """fn(*materialized args, **kwargs); args hold T(...) specs for tensor inputs. dynamic:
    a ShapeEnv that allows data-dependent output sizes (unbacked symbols u0, ...)."""
    kwargs = kwargs or {}
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    mode = FakeTensorMode(shape_env=ShapeEnv()) if dynamic else FakeTensorMode()
    with mode:
        tensors = []

        def mat(a):
            if isinstance(a, tuple) and a and a[0] == "T":
                _, shape, stride, dtype, device = a
                if stride is None:
                    t = torch.empty(shape, dtype=dtype, device=device)
                else:
                    t = torch.empty_strided(shape, stride, dtype=dtype, device=device)
                tensors.append(t)
                return t, {"node": "x%d" % (len(tensors) - 1)}
            if isinstance(a, L):
                return list(a), {"list": [W.arg(x) for x in a]}
            if isinstance(a, list):
                pairs = [mat(x) for x in a]
                return [p[0] for p in pairs], [p[1] for p in pairs]
            return a, W.arg(a)

        real, spec = zip(*[mat(a) for a in args]) if args else ((), ())
        kreal, kspec = {}, {}
        for k, v in kwargs.items():
            kreal[k], kspec[k] = mat(v)
        try:
            out = W.val(fn(*real, **kreal))
        except Exception:
            out = "error"
    call = {"op": op, "target": target, "args": list(spec), "kwargs": kspec}
    print("# recorded: FakeTensorMode, torch %s%s" % (torch.__version__, note and "; " + note))
    print(enc(call))
    print(enc([W.val(t) for t in tensors]))
    print(enc(out))
    print()


def main():
    print("%symbols {}\n")
    cf = "call_function"
    # expand: new leading dims of size 1 take the stride of the dim after them
    case("aten.expand.default", cf, torch.ops.aten.expand.default,
         [T([4, 128], [128, 1]), [1, 4, 128]])
    case("aten.expand.default", cf, torch.ops.aten.expand.default,
         [T([1, 128], [128, 1]), [1, 1, 128]])
    case("aten.expand.default", cf, torch.ops.aten.expand.default,
         [T([1, 128], [128, 1]), [3, 1, 128]])
    case("expand_as", "call_method", lambda a, b: a.expand_as(b), [T([], []), T([1, 1])])
    case("expand", "call_method", lambda a, *s: a.expand(*s), [T([2, 3], [1, 2]), 1, 2, 3])
    # arange with a negative step and float bounds
    cuda = {"device": torch.device("cuda")}
    case("aten.arange.start_step", cf, torch.ops.aten.arange.start_step, [2, -3, -1], cuda)
    case("torch.arange", cf, torch.arange, [0.5, 3.0, 0.7], cuda)
    case("torch.arange", cf, torch.arange, [10, 0, -3], cuda)
    # sdpa: an expanded mask (last stride 0) takes the math path
    q = T([2, 4, 24, 16], [1536, 16, 64, 1])
    sdpa = F.scaled_dot_product_attention
    case("torch._C._nn.scaled_dot_product_attention", cf, sdpa, [q, q, q],
         {"attn_mask": T([2, 1, 24, 24], [0, 24, 1, 0], torch.bool)})
    case("torch._C._nn.scaled_dot_product_attention", cf, sdpa, [q, q, q],
         {"attn_mask": T([2, 1, 24, 24], [576, 576, 24, 1], torch.bool)})
    # dropout without training clones
    case("torch.nn.functional.dropout", cf, F.dropout, [T([2, 192], [37824, 1]), 0.1, False])
    case("aten.dropout.default", cf, torch.ops.aten.dropout.default,
         [T([2, 192], [37824, 1]), 0.0, False])
    # layer_norm keeps a contiguous input's size-1 strides
    case("torch.nn.functional.layer_norm", cf, F.layer_norm,
         [T([2, 1, 1, 512], [512, 1, 1, 1]), [512]])
    # einsum
    case("torch.functional.einsum", cf, torch.einsum,
         ["bhid,bhjd->bhij", T([2, 4, 8, 16]), T([2, 4, 6, 16])])
    case("torch.functional.einsum", cf, torch.einsum, ["ij,jk", T([3, 5]), T([5, 7])])
    case("torch.functional.einsum", cf, torch.einsum, ["...ij->...ji", T([2, 3, 5])])
    # torch.max / torch.min overloads
    case("torch.max", cf, torch.max, [T([3, 5])])
    case("torch.max", cf, torch.max, [T([3, 5]), 1])
    case("torch.min", cf, torch.min, [T([3, 5]), T([5])])
    # prims and generated families
    case("prims.iota.default", cf, torch.ops.prims.iota.default, [7],
         {"start": 0, "step": 1, "dtype": torch.int64, "device": torch.device("cuda"),
          "requires_grad": False})
    case("aten.special_bessel_j0.default", cf, torch.ops.aten.special_bessel_j0.default,
         [T([4], dtype=torch.int64)])
    case("aten.polygamma.default", cf, torch.ops.aten.polygamma.default, [1, T([4, 3], [1, 4])])
    case("aten.logaddexp.default", cf, torch.ops.aten.logaddexp.default,
         [T([4, 3]), T([3], dtype=torch.bfloat16)])
    case("aten.histc.default", cf, torch.ops.aten.histc.default, [T([40]), 10])
    case("torch.frexp", cf, torch.frexp, [T([3, 4], [1, 3])])
    case("torch.float_power", cf, torch.float_power, [T([3]), 2])
    case("operator.getitem", cf, operator.getitem, [T([5, 3]), L([1, 2])])
    case("aten.swapaxes.default", cf, torch.ops.aten.swapaxes.default, [T([2, 3, 4]), 0, 2])
    # data-dependent sizes: unbacked symbols
    case("operator.getitem", cf, operator.getitem, [T([5, 3]), T([5], dtype=torch.bool)],
         dynamic=True, note="ShapeEnv")
    case("operator.getitem", cf, operator.getitem, [T([4, 6, 2]), T([4, 6], dtype=torch.bool)],
         dynamic=True, note="ShapeEnv")
    case("aten.nonzero.default", cf, torch.ops.aten.nonzero.default, [T([3, 4])],
         dynamic=True, note="ShapeEnv")
    case("aten.masked_select.default", cf, torch.ops.aten.masked_select.default,
         [T([3, 4]), T([3, 4], dtype=torch.bool)], dynamic=True, note="ShapeEnv")


if __name__ == "__main__":
    main()
