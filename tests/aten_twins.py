#!/usr/bin/env python3
"""Twins: the ATen operators that torch.export's training IR keeps, checked against values torch
recorded for the operator they stand for.

torch.export traces above CompositeImplicitAutograd, so its graphs call aten.type_as,
aten.rms_norm, aten.cross_entropy_loss, aten.arccos ... where make_fx records what they
decompose to and Dynamo records the torch-level function. Their values are known from torch
without tracing them again:

  aliases     torch's alias operators ("alias ALIAS | CANONICAL" in tools/ops/families.txt) are
              the canonical operator under another name: every recorded call of a canonical
              overload in the OpInfo ATen graphs (tests/data/opinfo/aten.txt) is renamed to
              its alias;
  composites  a torch-level call (tests/data/opinfo/torch.txt, the models' Dynamo graphs) is
              the call of the ATen composite it binds to: the call is rewritten with ATen's
              parameters (by name, reduction='mean' as 1, size_average/reduce dropped).

Each rewritten graph is inferred again with `cgscope shapes --reinfer --json` and every
rewritten node must be inferred exactly (status ok, equal to torch's record) wherever its
original was. Prints the figures; exits 1 on a difference or when fewer than --min nodes were
checked.

usage: aten_twins.py --cgscope BIN [--models DIR] [--min N] [--jobs N]
"""

import argparse
import ast
import concurrent.futures as cf
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# torch-level target -> ATen overload chooser (args, kwargs -> overload or None)
def _split_like(kind):
    def pick(args, kwargs):
        how = args[1] if len(args) > 1 else kwargs.get("indices_or_sections")
        if isinstance(how, int):
            return "aten.%s.%s" % (kind, "sections" if kind == "tensor_split" else "int")
        if isinstance(how, list):
            return "aten.%s.%s" % (kind, "indices" if kind == "tensor_split" else "array")
        return None
    return pick


def _conv(nd):
    def pick(args, kwargs):
        pad = args[4] if len(args) > 4 else kwargs.get("padding")
        return "aten.conv%dd.padding" % nd if isinstance(pad, str) else None
    return pick


def _legacy_reduction(op):
    """torch.var(x, True) / torch.var(x, dim=1): the overloads with an unbiased flag."""
    def pick(args, kwargs):
        if len(args) == 2 and isinstance(args[1], bool) and not kwargs:
            return "aten.%s.default" % op, {"self": args[0], "unbiased": args[1]}
        if len(args) == 1 and set(kwargs) == {"dim"}:
            d = kwargs["dim"]
            return "aten.%s.dim" % op, {"self": args[0], "dim": d if isinstance(d, list) else [d]}
        if len(args) == 1 and not kwargs:
            return "aten.%s.default" % op, {"self": args[0]}
        return None
    return pick


COMPOSITES = {
    "torch.std": _legacy_reduction("std"),
    "torch.var": _legacy_reduction("var"),
    "torch.var_mean": _legacy_reduction("var_mean"),
    "torch.functional.cdist": lambda a, k: "aten.cdist.default",
    "torch.functional.meshgrid":
        lambda a, k: "aten.meshgrid.indexing" if "indexing" in k else "aten.meshgrid.default",
    "torch.functional.broadcast_tensors": lambda a, k: "aten.broadcast_tensors.default",
    "torch.functional.atleast_3d": lambda a, k: "aten.atleast_3d.default",
    "torch.functional.cartesian_prod": lambda a, k: "aten.cartesian_prod.default",
    "type_as": lambda a, k: "aten.type_as.default",
    "view_as": lambda a, k: "aten.view_as.default",
    "expand_as": lambda a, k: "aten.expand_as.default",
    "torch.hstack": lambda a, k: "aten.hstack.default",
    "torch.vstack": lambda a, k: "aten.vstack.default",
    "torch.dstack": lambda a, k: "aten.dstack.default",
    "torch.column_stack": lambda a, k: "aten.column_stack.default",
    "torch.rms_norm": lambda a, k: "aten.rms_norm.default",
    "torch.take_along_dim": lambda a, k: "aten.take_along_dim.default",
    "torch.nn.functional.instance_norm": lambda a, k: "aten.instance_norm.default",
    "torch.nn.functional.adaptive_avg_pool3d": lambda a, k: "aten.adaptive_avg_pool3d.default",
    "sum_to_size": lambda a, k: "aten.sum_to_size.default",
    "numel": lambda a, k: "aten.numel.default",
    "dim": lambda a, k: "aten.dim.default",
    "item": lambda a, k: "aten.item.default",
    "size": lambda a, k: "aten.size.int" if len(a) > 1 or "dim" in k else "aten.size.default",
    "split": lambda a, k: "aten.split.sizes" if len(a) > 1 and isinstance(a[1], list) else None,
    "torch.tensor_split": _split_like("tensor_split"),
    "torch.hsplit": _split_like("hsplit"),
    "torch.vsplit": _split_like("vsplit"),
    "torch.dsplit": _split_like("dsplit"),
    "torch.conv1d": _conv(1),
    "torch.conv2d": _conv(2),
    "torch.conv3d": _conv(3),
    "torch.nn.functional.nll_loss": lambda a, k: "aten.nll_loss_nd.default",
    "torch.nn.functional.cross_entropy": lambda a, k: "aten.cross_entropy_loss.default",
    "torch.nn.functional.kl_div": lambda a, k: "aten.kl_div.default",
    "torch.nn.functional.hinge_embedding_loss": lambda a, k: "aten.hinge_embedding_loss.default",
    "torch.nn.functional.poisson_nll_loss": lambda a, k: "aten.poisson_nll_loss.default",
    "torch.nn.functional.margin_ranking_loss": lambda a, k: "aten.margin_ranking_loss.default",
    "torch.nn.functional.multilabel_margin_loss":
        lambda a, k: "aten.multilabel_margin_loss.default",
    "torch.nn.functional.cosine_embedding_loss":
        lambda a, k: "aten.cosine_embedding_loss.default",
    "torch.nn.functional.triplet_margin_loss": lambda a, k: "aten.triplet_margin_loss.default",
}
REDUCTION = {"none": 0, "mean": 1, "sum": 2}
# ATen parameters with no Python counterpart, and the value the Python function passes
ATEN_ONLY = {("aten.instance_norm.default", "cudnn_enabled"): False}


def registry():
    """target -> [(name, default text or None, variadic)] from lib/ops/op-list.h."""
    text = open(os.path.join(ROOT, "lib", "ops", "op-list.h")).read()
    out = {}
    for m in re.finditer(r'^OP\(\w+, "([^"]+)", \w+,\n   "((?:[^"\\]|\\.)*)"', text, re.M):
        params = []
        depth, cur = 0, ""
        for ch in m.group(2) + ",":
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            if ch == "," and depth == 0:
                p = cur.strip()
                cur = ""
                if not p or p == "*":
                    continue
                p = p.lstrip("%!")
                var = p.startswith("*")
                name, _, d = p.lstrip("*").partition("=")
                params.append((name, d if d else None, var))
            else:
                cur += ch
        out[m.group(1)] = params
    return out


def literal(d):
    try:
        return ast.literal_eval(d)
    except (ValueError, SyntaxError):
        return None


def bind(params, args, kwargs):
    """Python-style binding: name -> value (defaults included); None if it does not bind."""
    got, i = {}, 0
    for name, d, var in params:
        if var:   # f(*tensors) called with one list binds the list, as f(a, b) does
            rest = list(args[i:])
            got[name] = rest[0] if len(rest) == 1 and isinstance(rest[0], list) else rest
            i = len(args)
            continue
        if i < len(args):
            got[name] = args[i]
            i += 1
    if i < len(args):
        return None
    for k, v in kwargs.items():
        got[k] = v
    for name, d, var in params:
        if name not in got and d is not None:
            got[name] = literal(d)
    return got


def to_aten(target, aten, node, reg):
    py, at = reg.get(target), reg.get(aten)
    if py is None or at is None:
        return None
    got = bind(py, node["args"], node["kwargs"])
    if got is None:
        return None
    if got.pop("size_average", None) is not None or got.pop("reduce", None) is not None:
        return None
    if isinstance(got.get("reduction"), str):
        got["reduction"] = REDUCTION[got["reduction"]]
    names = {n for n, _, _ in at}
    if "input" in got and "input" not in names and "self" in names:
        got["self"] = got.pop("input")
    if "tensor" in got and "self" in names:
        got["self"] = got.pop("tensor")
    if target.startswith("torch.") and target.endswith("split") and \
            "indices_or_sections" in got:
        how = got.pop("indices_or_sections")
        key = [n for n, _, _ in at][1]
        got[key] = how
    kwargs = {}
    for n, d, var in at:
        if n in got:
            kwargs[n] = got.pop(n)
        elif (aten, n) in ATEN_ONLY:
            kwargs[n] = ATEN_ONLY[(aten, n)]
        elif d is None:
            return None
    got.pop("_stacklevel", None)
    if any(v is not None for v in got.values()):   # a Python argument ATen does not take
        return None
    return kwargs


def cases_of(path):
    name = None
    for line in open(path):
        if line.startswith("#"):
            continue
        if line.startswith("@"):
            name = line[2:].split()[0]
            continue
        yield name, json.loads(line)


def aliases():
    out = []
    for line in open(os.path.join(ROOT, "tools", "ops", "families.txt")):
        line = line.split("#", 1)[0].strip()
        if line.startswith("alias "):
            a, c = [x.strip() for x in line[6:].split("|")]
            out.append((a, c))
    return out


def alias_map(reg):
    """canonical overload -> alias overload, for the alias lines with a rule."""
    m = {}
    for a, c in aliases():
        if a in reg:
            m.setdefault(c, []).append(a)
            continue
        for t in reg:
            if t.startswith(a + ".") and t.count(".") == 2:
                cn = c + t[len(a):]
                if cn in reg:
                    m.setdefault(cn, []).append(t)
    return m


def run(cg, doc):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
    try:
        p = subprocess.run([cg, "shapes", f.name, "--reinfer", "--json"], capture_output=True,
                           text=True)
    finally:
        os.unlink(f.name)
    if p.returncode not in (0, 1):
        return None
    return {n["name"]: n for n in json.loads(p.stdout)["nodes"]}


def exact(r):
    return r is not None and r["status"] == "ok" and r.get("match") in (True, None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cgscope", required=True)
    ap.add_argument("--models", help="folder of the models' Dynamo graphs (*.dynamo*.json)")
    ap.add_argument("--min", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    reg = registry()
    amap = alias_map(reg)
    work = []    # (label, original doc, rewritten doc, [rewritten node names], kind)
    data = os.path.join(ROOT, "tests", "data", "opinfo")
    for case, doc in cases_of(os.path.join(data, "aten.txt")):
        hit = [n for n in doc["nodes"] if n["op"] == "call_function" and n["target"] in amap]
        for k in range(max((len(amap[n["target"]]) for n in hit), default=0)):
            new, names = copy.deepcopy(doc), []
            for n in new["nodes"]:
                alts = amap.get(n["target"]) if n["op"] == "call_function" else None
                if alts:
                    n["target"] = alts[k % len(alts)]
                    names.append(n["name"])
            work.append((case, doc, new, names, "alias"))
    sources = [os.path.join(data, "torch.txt")]
    if a.models:
        sources += sorted(glob.glob(os.path.join(a.models, "*.dynamo*.json")))
    for src in sources:
        docs = cases_of(src) if src.endswith(".txt") else [(os.path.basename(src),
                                                             json.load(open(src)))]
        for case, doc in docs:
            new, names = copy.deepcopy(doc), []
            for n in new["nodes"]:
                pick = COMPOSITES.get(n["target"]) if n["op"].startswith("call_") else None
                aten = pick(n["args"], n["kwargs"]) if pick else None
                if isinstance(aten, tuple):   # the chooser bound the arguments itself
                    aten, kw = aten
                else:
                    kw = to_aten(n["target"], aten, n, reg) if aten else None
                if kw is None:
                    continue
                n.update(op="call_function", target=aten, args=[], kwargs=kw)
                names.append(n["name"])
            if names:
                work.append((case, doc, new, names, "composite"))

    def check(item):
        case, doc, new, names, kind = item
        before, after = run(a.cgscope, doc), run(a.cgscope, new)
        out = []
        for nm in names:
            if before is None or not exact(before.get(nm)):
                out.append((kind, case, nm, None, "original not exact"))
                continue
            r = after.get(nm) if after else None
            tgt = [n["target"] for n in new["nodes"] if n["name"] == nm][0]
            out.append((kind, case, nm, tgt, None if exact(r) else
                        "%s: %s" % (r["status"], r.get("reason")) if r else "no result"))
        return out

    checked, skipped, bad, ops = 0, 0, [], {}
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        for res in ex.map(check, work):
            for kind, case, nm, tgt, why in res:
                if tgt is None:
                    skipped += 1
                    continue
                checked += 1
                ops[tgt] = ops.get(tgt, 0) + 1
                if why:
                    bad.append("%s %s %s (%s): %s" % (kind, case, nm, tgt, why))
    print("aten twins: %d nodes checked over %d operators (%d skipped: the original was not "
          "exact), %d differ" % (checked, len(ops), skipped, len(bad)))
    for tgt in sorted(ops):
        print("  %-44s %5d" % (tgt, ops[tgt]))
    for b in bad[:40]:
        print("DIFFERS " + b)
    if bad or checked < a.min:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
