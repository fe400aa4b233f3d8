#!/usr/bin/env python3
"""Make lib/ops/inductor-lowerings.h: which operators Inductor lowers, in one torch version.

Two steps (docs/inductor-lowerings.md says how the committed table was made):

  python3 tools/gen-inductor-lowerings.py dump > inductor.json     # needs torch, no GPU
  python3 tools/gen-inductor-lowerings.py emit inductor.json > lib/ops/inductor-lowerings.h
  python3 tools/gen-inductor-lowerings.py check inductor.json lib/ops/inductor-lowerings.h

`dump` imports torch._inductor (which registers every lowering) and writes a JSON summary;
`emit` turns that summary into a sorted C table. Only `dump` needs torch.
"""
import json
import re
import sys

# Operators whose role in Inductor is written into its Python code rather than registered
# anywhere (named lists and `n.target == aten.X` tests). Each role becomes a flag of the table,
# so that cgscope's layout pass asks the table and never compares a target's spelling.
# (flag, torch version, the torch module that names them, operators). `dump` checks that every
# operator of a 2.11 role is still named in that module's source (a drift check against torch);
# the 2.1 roles are torch 2.1.0's graph.py, kept for `layout --torch 2.1`.
ROLES = [
    ("CGS_LOWERF_ROLE_CONV", "2.11", "torch._inductor.graph",
     ["aten.convolution.default"]),
    ("CGS_LOWERF_ROLE_CONV_BACKWARD", "2.11", "torch._inductor.graph",
     ["aten.convolution_backward.default"]),
    ("CGS_LOWERF_ROLE_BMM", "2.11", "torch._inductor.graph", ["aten.bmm.default"]),
    ("CGS_LOWERF_ROLE_MKLDNN_CONV", "2.11", "torch._inductor.graph",
     ["mkldnn._convolution_pointwise.default", "mkldnn._convolution_pointwise.binary",
      "mkldnn._convolution_pointwise_.binary"]),
    ("CGS_LOWERF_ROLE_AS_STRIDED", "2.11", "torch._inductor.graph",
     ["aten.as_strided.default", "aten.as_strided_.default", "aten.as_strided_scatter.default",
      "aten.resize.default", "aten.resize_as.default"]),
    ("CGS_LOWERF_ROLE_NEEDS_FIXED_LAYOUT", "2.11", "torch._inductor.graph",
     ["aten.convolution_backward.default", "aten.mm.default", "aten._int_mm.default",
      "mkldnn._linear_pointwise.default", "mkldnn._linear_pointwise.binary",
      "aten.mkldnn_rnn_layer.default", "onednn.qlinear_pointwise.default",
      "onednn.qlinear_pointwise.tensor", "onednn.qlinear_pointwise.binary",
      "onednn.qlinear_pointwise.binary_tensor", "mkl._mkl_linear.default"]),
    ("CGS_LOWERF_ROLE_NEEDS_FIXED_CL", "2.11", "torch._inductor.graph",
     ["mkldnn._convolution_pointwise.default", "mkldnn._convolution_pointwise.binary",
      "mkldnn._convolution_pointwise_.binary", "mkldnn._convolution_transpose_pointwise.default",
      "onednn.qconv_pointwise.default", "onednn.qconv2d_pointwise.binary"]),
    ("CGS_LOWERF_ROLE_KEEPS_UNSUPPORTED_TYPE", "2.11", "torch._inductor.lowering",
     ["aten.view_as_complex.default", "aten.lift_fresh_copy.default"]),
    ("CGS_LOWERF_ROLE_COMPLEX_VIEW", "2.11", "torch._inductor.lowering",
     ["aten.view.dtype", "prims.convert_element_type.default"]),
    ("CGS_LOWERF_ROLE_COMPLEX_COPY_FALLBACK", "2.11", "torch._inductor.lowering",
     ["prims.convert_element_type.default"]),
    ("CGS_LOWERF_ROLE_AS_STRIDED_21", "2.1", "torch._inductor.graph",
     ["aten.as_strided.default", "aten.as_strided_.default", "aten.as_strided_scatter.default"]),
    ("CGS_LOWERF_ROLE_NEEDS_FIXED_CL_21", "2.1", "torch._inductor.graph",
     ["mkldnn._convolution_pointwise.default", "mkldnn._convolution_pointwise.binary",
      "mkldnn._convolution_pointwise_.binary", "mkldnn._convolution_transpose_pointwise.default"]),
    ("CGS_LOWERF_ROLE_SDPA_21", "2.1", "torch._inductor.graph",
     ["aten._scaled_dot_product_flash_attention.default",
      "aten._scaled_dot_product_efficient_attention.default"]),
]


def roles_checked():
    """The roles, each 2.11 operator checked against the installed torch's source."""
    import importlib
    import inspect

    out, missing = [], []
    for flag, ver, mod, ops in ROLES:
        if ver != "2.1":
            src = inspect.getsource(importlib.import_module(mod))
            for op in ops:
                ns, name, ov = op.split(".")
                # torch writes aten.X.Y, torch.ops.aten.X.Y, or ops.X.Y after `ops = torch.ops.ns`
                pat = r"\b%s\.%s\b" % (re.escape(name), re.escape(ov))
                if not re.search(pat, src):
                    missing.append("%s (%s) in %s" % (op, flag, mod))
        out.append({"flag": flag, "torch": ver, "module": mod, "ops": ops})
    if missing:
        sys.exit("dump: torch no longer names these where cgscope expects them; read the "
                 "module and update ROLES:\n  " + "\n  ".join(missing))
    return out

PY_MODULE_RENAMES = [
    ("_operator.", "operator."),
    ("torch._VariableFunctionsClass.", "torch."),
]


def op_name(k):
    import torch

    if isinstance(k, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return str(k), isinstance(k, torch._ops.OpOverloadPacket)
    if isinstance(k, torch._ops.HigherOrderOperator):
        return "torch.ops.higher_order." + k.name(), False
    mod = getattr(k, "__module__", None) or "?"
    qual = getattr(k, "__qualname__", None) or getattr(k, "__name__", repr(k))
    name = "%s.%s" % (mod, qual)
    for a, b in PY_MODULE_RENAMES:
        if name.startswith(a):
            name = b + name[len(a):]
    return name, False


def dump():
    import torch
    import torch._inductor.compile_fx  # noqa: F401  registers the lowerings of kernel/
    import torch._inductor.lowering as L
    from torch._inductor.codegen.cpp_utils import DTYPE_TO_ATEN

    out = {"torch": torch.__version__, "git": torch.version.git_version}
    low = {}
    for k, fn in L.lowerings.items():
        name, packet = op_name(k)
        if packet or "<lambda>" in name:
            continue
        low[name] = "fallback" if getattr(fn, "_is_fallback_handler", False) else "lowered"
    out["lowerings"] = dict(sorted(low.items()))
    out["fallbacks"] = sorted(op_name(k)[0] for k in L.fallbacks)
    out["needs_realized_inputs"] = sorted(op_name(k)[0] for k in L.needs_realized_inputs)
    cons = {}
    for k, fn in L._maybe_layout_constraints.items():
        cons[op_name(k)[0]] = fn.__name__
    out["layout_constraints"] = dict(sorted(cons.items()))
    tags = {}
    wanted = ("needs_exact_strides", "needs_contiguous_strides", "needs_fixed_stride_order",
              "flexible_layout")
    for full in torch._C._dispatch_get_all_op_names():
        ns, rest = full.split("::", 1)
        base, _, ov = rest.partition(".")
        try:
            o = getattr(getattr(getattr(torch.ops, ns), base), ov or "default")
        except Exception:
            continue
        for t in wanted:  # torch._library.utils.tags_by_priority order
            if getattr(torch._C.Tag, t) in o.tags:
                tags["%s.%s.%s" % (ns, base, ov or "default")] = t
                break
    out["layout_tags"] = dict(sorted(tags.items()))
    out["fallback_allow_list"] = sorted(L.FALLBACK_ALLOW_LIST)
    out["cpp_wrapper_dtypes"] = sorted(str(d).replace("torch.", "") for d in DTYPE_TO_ATEN)
    from torch._functorch import config as fc

    out["custom_op_default_layout_constraint"] = fc.custom_op_default_layout_constraint
    out["roles"] = roles_checked()
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


KIND = {"lowered": "CGS_LOWER_LOWERED", "fallback": "CGS_LOWER_FALLBACK"}
TAG = {"needs_exact_strides": "CGS_LOWERF_EXACT_STRIDES",
       "needs_contiguous_strides": "CGS_LOWERF_CONTIGUOUS_STRIDES",
       "needs_fixed_stride_order": "CGS_LOWERF_FIXED_STRIDE_ORDER",
       "flexible_layout": "CGS_LOWERF_FLEXIBLE_LAYOUT"}
CONS = {"constrain_to_fx_strides": "CGS_LOWERF_CONSTRAIN_FX_STRIDES",
        "constrain_conv_to_fx_strides": "CGS_LOWERF_CONSTRAIN_CONV_FX_STRIDES",
        "constrain_to_fake_tensors": "CGS_LOWERF_EXACT_STRIDES",
        "require_contiguous": "CGS_LOWERF_CONTIGUOUS_STRIDES",
        "require_contiguous_strides": "CGS_LOWERF_CONTIGUOUS_STRIDES"}


def emit(path):
    """The C table of the summary at path, as text."""
    with open(path) as f:
        d = json.load(f)
    roles = {}
    for r in d["roles"]:
        for op in r["ops"]:
            roles.setdefault(op, []).append(r["flag"])
    names = set(d["lowerings"]) | set(d["fallbacks"]) | set(d["needs_realized_inputs"]) | \
        set(d["layout_tags"]) | set(d["layout_constraints"]) | set(roles)
    fb = set(d["fallbacks"])
    nri = set(d["needs_realized_inputs"])
    rows = []
    for name in sorted(names, key=lambda s: s.encode()):
        kind = d["lowerings"].get(name)
        if kind is None:
            k = "CGS_LOWER_NONE"
        elif kind == "lowered" and name in fb:
            k = "CGS_LOWER_MAYBE_FALLBACK"
        else:
            k = KIND[kind]
        flags = []
        if name in nri:
            flags.append("CGS_LOWERF_NEEDS_REALIZED_INPUTS")
        if name in d["layout_tags"]:
            flags.append(TAG[d["layout_tags"][name]])
        if name in d["layout_constraints"]:
            fn = d["layout_constraints"][name]
            if fn not in CONS:
                sys.exit("emit: unknown layout constraint %r of %s: teach CONS about it" % (fn, name))
            if CONS[fn] not in flags:
                flags.append(CONS[fn])
        flags += roles.get(name, [])
        rows.append((name, k, " | ".join(flags) or "0"))
    text = []
    w = text.append
    w("/*\n * Generated by tools/gen-inductor-lowerings.py from torch %s (git %s);\n"
      " * do not edit: docs/inductor-lowerings.md says how to regenerate it.\n"
      " *\n * LOWERING(name, kind, flags): every operator Inductor has a lowering for, or\n"
      " * treats specially, sorted by name (bytewise) for binary search.\n */\n"
      % (d["torch"], d["git"][:12]))
    w("#define CGS_INDUCTOR_TORCH_VERSION \"%s\"\n" % d["torch"])
    w("#define CGS_INDUCTOR_CUSTOM_OP_DEFAULT_TAG %s\n" % TAG[d["custom_op_default_layout_constraint"]])
    w("#define CGS_INDUCTOR_FALLBACK_ALLOW_LIST %s\n" % ", ".join(
        '"%s"' % s.replace("::", ".") for s in d["fallback_allow_list"]))
    w("#define CGS_INDUCTOR_CPP_WRAPPER_DTYPES %s\n" % ", ".join(
        '"%s"' % s for s in d["cpp_wrapper_dtypes"]))
    w("#ifdef LOWERING\n")
    for name, k, fl in rows:
        w("LOWERING(\"%s\", %s, %s)\n" % (name, k, fl))
    w("#endif\n")
    return "".join(text)


def check(path, header):
    """Exit 1 when header is not what emit makes of path (someone edited one of them)."""
    with open(header) as f:
        have = f.read()
    if have != emit(path):
        sys.stderr.write("%s is not what `%s emit %s` makes: regenerate it (docs/"
                         "inductor-lowerings.md), never edit it by hand\n" % (header, sys.argv[0], path))
        return 1
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "dump":
        dump()
    elif len(sys.argv) == 3 and sys.argv[1] == "emit":
        sys.stdout.write(emit(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
