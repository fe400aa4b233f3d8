#!/usr/bin/env python3
"""Dump torch's own operator data for lib/ops (issue 11.2), on a machine with torch 2.11.

Writes one JSON document:
  aten / prims overloads: name ("aten.add.Tensor"), schema (torch's text), tags;
  torch-level callables Dynamo records (torch.*, torch.nn.functional.*, torch._C._nn.*,
  torch._C._VariableFunctions.*, Tensor methods) with their Python parameter lists where torch
  declares one (torch.overrides' testing signatures, inspect.signature for Python functions);
  the elementwise type-promotion kind of each torch._refs function (from its wrapper).

usage: dump_torch_ops.py OUT.json
"""

import inspect
import json
import sys

import torch
import torch._refs
import torch._refs.nn.functional
import torch._refs.special
import torch.overrides


def overloads():
    out = []
    seen = set()
    for schema in torch._C._jit_get_all_schemas():
        ns, _, name = schema.name.partition("::")
        if ns not in ("aten", "prims"):
            continue
        ovl = schema.overload_name or "default"
        key = "%s.%s.%s" % (ns, name, ovl)
        if key in seen:
            continue
        seen.add(key)
        tags = []
        try:
            op = getattr(getattr(getattr(torch.ops, ns), name), ovl)
            tags = sorted(str(t).replace("Tag.", "") for t in op.tags)
        except Exception:
            pass
        out.append({"name": key, "schema": str(schema), "tags": tags})
    # prims registered only in Python (not in the JIT schema list)
    for name in dir(torch.ops.prims):
        try:
            pk = getattr(torch.ops.prims, name)
            for ovl in pk.overloads():
                key = "prims.%s.%s" % (name, ovl)
                if key in seen:
                    continue
                op = getattr(pk, ovl)
                seen.add(key)
                out.append({"name": key, "schema": str(op._schema),
                            "tags": sorted(str(t).replace("Tag.", "") for t in op.tags)})
        except Exception:
            continue
    out.sort(key=lambda e: e["name"])
    return out


def params_of(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    parts = []
    kwonly = False
    for p in sig.parameters.values():
        if p.kind == p.VAR_POSITIONAL:
            parts.append("*" + p.name)
            kwonly = True
            continue
        if p.kind == p.VAR_KEYWORD:
            parts.append("**" + p.name)
            continue
        if p.kind == p.KEYWORD_ONLY and not kwonly:
            parts.append("*")
            kwonly = True
        text = p.name
        if p.default is not p.empty:
            try:
                d = repr(p.default)
            except Exception:
                d = "?"
            text += "=" + d
        parts.append(text)
    return ", ".join(parts)


def qualname(fn, default_mod):
    mod = getattr(fn, "__module__", None) or default_mod
    return "%s.%s" % (mod, getattr(fn, "__name__", "?"))


def callables():
    out = {}
    overrides = torch.overrides.get_testing_overrides()
    for fn, lam in overrides.items():
        name = getattr(fn, "__name__", None)
        if name is None:
            continue
        if isinstance(fn, property) or type(fn).__name__ in ("getset_descriptor",):
            continue
        objclass = getattr(fn, "__objclass__", None)
        qual = getattr(fn, "__qualname__", "")
        if objclass is torch._C.TensorBase or qual.startswith("Tensor.") or \
                qual.startswith("TensorBase."):
            key = "method:" + name
        else:
            mod = getattr(fn, "__module__", None)
            if mod in (None, "torch._C._VariableFunctions", "torch._C._VariableFunctionsClass"):
                mod = "torch"
            key = "%s.%s" % (mod, name)
        out[key] = {"params": params_of(lam), "kind": "overridable"}
    for modname, mod in (("torch.nn.functional", torch.nn.functional),
                         ("torch._C._nn", torch._C._nn), ("torch", torch),
                         ("torch.linalg", torch.linalg), ("torch.special", torch.special),
                         ("torch.fft", torch.fft)):
        for name in dir(mod):
            if name.startswith("__"):
                continue
            fn = getattr(mod, name, None)
            if not callable(fn) or isinstance(fn, type):
                continue
            key = "%s.%s" % (modname, name)
            if key not in out:
                out[key] = {"params": params_of(fn), "kind": "module"}
    return out


def promotion_kinds():
    out = {}
    for modname, mod in (("", torch._refs), ("nn.functional.", torch._refs.nn.functional),
                         ("special.", torch._refs.special)):
        for name in dir(mod):
            fn = getattr(mod, name, None)
            if not callable(fn):
                continue
            kind = find_kind(fn, 0)
            if kind is not None:
                out[modname + name] = kind
    return out


def find_kind(fn, depth):
    if depth > 6 or fn is None:
        return None
    for cell in (getattr(fn, "__closure__", None) or ()):
        try:
            v = cell.cell_contents
        except ValueError:
            continue
        k = getattr(v, "type_promotion_kind", None)
        if k is not None:
            return str(k).split(".")[-1]
        if callable(v) and hasattr(v, "__closure__"):
            r = find_kind(v, depth + 1)
            if r:
                return r
    return find_kind(getattr(fn, "__wrapped__", None), depth + 1)


def main():
    doc = {
        "torch": torch.__version__,
        "overloads": overloads(),
        "callables": callables(),
        "promotion": promotion_kinds(),
    }
    with open(sys.argv[1], "w") as f:
        json.dump(doc, f, indent=0, sort_keys=True)
    print("overloads %d, callables %d, promotion kinds %d"
          % (len(doc["overloads"]), len(doc["callables"]), len(doc["promotion"])))


if __name__ == "__main__":
    main()
