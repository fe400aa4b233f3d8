#!/usr/bin/env python3
"""Make lib/ops/inductor-lowerings.h: which operators Inductor lowers, in one torch version.

Two steps (docs/inductor-lowerings.md says how the committed table was made):

  python3 tools/gen-inductor-lowerings.py dump > inductor.json     # needs torch, no GPU
  python3 tools/gen-inductor-lowerings.py emit inductor.json > lib/ops/inductor-lowerings.h

`dump` imports torch._inductor (which registers every lowering) and writes a JSON summary;
`emit` turns that summary into a sorted C table. Only `dump` needs torch.
"""
import json
import sys

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
    with open(path) as f:
        d = json.load(f)
    names = set(d["lowerings"]) | set(d["fallbacks"]) | set(d["needs_realized_inputs"]) | \
        set(d["layout_tags"]) | set(d["layout_constraints"])
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
        rows.append((name, k, " | ".join(flags) or "0"))
    w = sys.stdout.write
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


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "dump":
        dump()
    elif len(sys.argv) == 3 and sys.argv[1] == "emit":
        emit(sys.argv[2])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
