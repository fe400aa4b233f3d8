#!/usr/bin/env python3
"""Generate lib/ops/op-list.h, the operator registry, from torch's own operator data.

  tools/gen-op-list.py                 write lib/ops/op-list.h
  tools/gen-op-list.py --check         exit 1 when lib/ops/op-list.h differs from what the data gives
  tools/gen-op-list.py --import F.json write tools/ops/torch-2.11.txt from the GPU machine's dump
                                       (tests/gpu/dump_torch_ops.py)

Inputs (all committed):
  tools/ops/torch-2.11.txt  every aten/prims overload of torch 2.11 with its schema and tags, the
                            torch-level callables Dynamo records with their Python parameters,
                            and the type-promotion kind of each elementwise torch._refs function;
  tools/ops/explicit.txt    targets whose rule is written by hand (and their argument lists);
  tools/ops/families.txt    the small hand-written map from operator packets to rule families.

Every overload torch has gets an entry; one without a rule family gets rule "none" (known to
torch, its schema kept, but no shape rule), so unknown targets are told apart from typos.
Python 3 only, no torch: CI runs --check.
"""

import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tools", "ops", "torch-2.11.txt")
EXPLICIT = os.path.join(ROOT, "tools", "ops", "explicit.txt")
FAMILIES = os.path.join(ROOT, "tools", "ops", "families.txt")
HEADER = os.path.join(ROOT, "lib", "ops", "op-list.h")

# parameters that never take part in type promotion even when typed Scalar/Tensor
NO_PROMOTE = {"alpha", "value", "out", "beta"}
PROMO_KINDS = ("DEFAULT", "INT_TO_FLOAT", "ALWAYS_BOOL", "COMPLEX_TO_FLOAT", "NO_OPMATH",
               "BOOL_TO_LONG")


# ---- torch's data -------------------------------------------------------------------------

def do_import(path):
    d = json.load(open(path))
    lines = ["# torch %s operator data (tests/gpu/dump_torch_ops.py; tools/gen-op-list.py "
             "--import). Lines:" % d["torch"],
             "#   O name | tags | schema      an aten/prims overload",
             "#   C callable | params         a torch-level callable ('method:' = Tensor method)",
             "#   P ref | kind                elementwise type promotion of torch._refs.<ref>"]
    for e in d["overloads"]:
        lines.append("O %s | %s | %s" % (e["name"], ",".join(e["tags"]) or "-", e["schema"]))
    for k in sorted(d["callables"]):
        p = d["callables"][k]["params"]
        lines.append("C %s | %s" % (k, "?" if p is None else p))
    for k in sorted(d["promotion"]):
        lines.append("P %s | %s" % (k, d["promotion"][k]))
    with open(DATA, "w") as f:
        f.write("\n".join(lines) + "\n")


def load_data():
    overloads, callables, promo = {}, {}, {}
    for line in open(DATA):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        kind, rest = line[0], line[2:]
        if kind == "O":
            name, tags, schema = rest.split(" | ", 2)
            overloads[name] = (set() if tags == "-" else set(tags.split(",")), schema)
        elif kind == "C":
            name, params = rest.split(" | ", 1)
            callables[name] = None if params == "?" else params
        elif kind == "P":
            name, k = rest.split(" | ")
            promo[name] = k
    return overloads, callables, promo


def split_top(text, sep=","):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class Param:
    def __init__(self, typ, name, default, kwonly):
        self.typ, self.name, self.default, self.kwonly = typ, name, default, kwonly

    @property
    def mutated(self):
        return "!" in self.typ

    @property
    def promotes(self):
        base = re.sub(r"\(.*?\)", "", self.typ).rstrip("?")
        return base in ("Tensor", "Scalar") and self.name not in NO_PROMOTE


def parse_torch_schema(schema):
    """'aten::add.Tensor(Tensor self, ...) -> Tensor' -> ([Param], returns text)."""
    head, _, rets = schema.rpartition(") -> ")
    args = head[head.index("(") + 1:]
    params, kwonly = [], False
    for a in split_top(args):
        if a == "*":
            kwonly = True
            continue
        if a == "...":
            params.append(Param("...", "*args", None, kwonly))
            continue
        m = re.match(r"^(.*\S)\s+(\w+)(?:=(.*))?$", a)
        if not m:
            raise ValueError("bad schema argument %r in %s" % (a, schema))
        params.append(Param(m.group(1), m.group(2), m.group(3), kwonly))
    return params, rets.strip()


def default_text(d):
    if d is None:
        return None
    if d in ("None", "True", "False"):
        return d
    if re.match(r"^-?\d+$", d) or re.match(r"^-?\d*\.\d*(e-?\d+)?$", d) or \
            re.match(r"^-?\d+e-?\d+$", d):
        return d
    if d.startswith("[") and re.match(r"^\[[-\d, ]*\]$", d):
        return d
    if d.startswith('"') and d.endswith('"'):
        return "'%s'" % d[1:-1]
    if d == "Mean":
        return "1"
    if d == "Sum":
        return "2"
    return "'%s'" % d.replace("'", "")


def our_schema(params, mark_promote, mark_out=False):
    out, star = [], False
    for p in params:
        if p.kwonly and not star:
            out.append("*")
            star = True
        text = ("%" if mark_promote and p.promotes else "") + \
            ("!" if mark_out and p.mutated else "") + p.name
        d = default_text(p.default)
        if d is not None:
            text += "=" + d
        out.append(text)
    return ", ".join(out)


def python_schema(params_text, aten_params, mark_promote):
    """A torch-level callable's Python parameter list, with promotion marks taken from the
    ATen overload's types (Python's 'input' is ATen's 'self')."""
    promote = {p.name for p in aten_params if p.promotes} if mark_promote else set()
    out = []
    for part in split_top(params_text):
        name = part.split("=", 1)[0].lstrip("*")
        if name in ("**kwargs",) or part.startswith("**"):
            continue
        key = "self" if name == "input" else name
        if not part.startswith("*") and key in promote:
            part = "%" + part
        # Python defaults are reprs: strings keep their quotes; other objects are opaque
        if "=" in part:
            n, d = part.split("=", 1)
            if not (re.match(r"^-?[\d.e]+$", d) or d in ("None", "True", "False") or
                    d.startswith("'") or re.match(r"^[\[(][-\d, ]*[\])]$", d)):
                d = "None"
            d = d.replace("(", "[").replace(")", "]")
            part = n + "=" + d
        out.append(part)
    return ", ".join(out)


# ---- hand-written tables ------------------------------------------------------------------

def load_explicit():
    out = {}
    for line in open(EXPLICIT):
        if not line.strip() or line.startswith("#"):
            continue
        target, rule, flags, schema = [x.strip() for x in line.rstrip("\n").split(" | ", 3)]
        out[target] = (rule, [] if flags == "-" else flags.split("+"), schema)
    return out


PROMO_OVERRIDES = []
# view rules that lib/passes/shapes-views.c wraps as copy_of_<rule> (the COPY_OF list there)
COPY_OF_VIEWS = ("expand", "permute", "view", "unsqueeze", "squeeze", "transpose", "slice",
                 "select", "t", "alias", "unfold", "view_as_real", "unbind", "split",
                 "view_as_complex")


ALIASES = []    # (alias packet or overload, canonical packet or overload), from "alias" lines


def load_families():
    packets, prefixes = {}, []
    for line in open(FAMILIES):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        key, rule = [x.strip() for x in line.split("|")[:2]]
        if key.startswith("promo "):
            PROMO_OVERRIDES.append((key[6:].strip(), rule))
            continue
        if key.startswith("alias "):
            ALIASES.append((key[6:].strip(), rule))
            continue
        if key.endswith("*"):
            prefixes.append((key[:-1], rule))
        else:
            packets[key] = rule
    return packets, prefixes


# ---- the registry -------------------------------------------------------------------------

def packet_of(name):
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) >= 3 else name


def base_name(packet):
    """'aten.add_' -> 'add'; 'aten.add' -> 'add'."""
    b = packet.split(".", 1)[1]
    return b[:-1] if b.endswith("_") and not b.endswith("__") else b


def flags_of(tags, params, rets, name):
    f = []
    if "pointwise" in tags:
        f.append("ELEMENTWISE")
    if "reduction" in tags:
        f.append("REDUCTION")
    if any(p.mutated for p in params):
        f.append("INPLACE")
    if re.match(r"^Tensor\([a-z]\)", rets) or "inplace_view" in tags:
        f.append("VIEW")
    if "nondeterministic_seeded" in tags:
        f.append("RANDOM")
    if "core" in tags:
        f.append("CORE")
    if "dynamic_output_shape" in tags or "data_dependent_output" in tags:
        f.append("DYNAMIC")
    if not any("Tensor" in p.typ for p in params) and rets.startswith("Tensor"):
        f.append("FACTORY")
    return f


def promo_flag(packet, promo):
    for pat, kind in PROMO_OVERRIDES:
        if packet == pat or (pat.endswith("*") and packet.startswith(pat[:-1])):
            return "PROMO_" + kind
    b = base_name(packet)
    for key in (b, packet.split(".", 1)[1], "special." + b.replace("special_", ""),
                "nn.functional." + b):
        if key in promo:
            return "PROMO_" + promo[key]
    return None


def rule_for(name, tags, params, families):
    packets, prefixes = families
    packet = packet_of(name)
    ovl = name.split(".")[-1]
    is_out = any(p.mutated and p.kwonly for p in params) or ovl.startswith("out")
    is_inplace = not is_out and params and params[0].mutated
    if name in packets:
        return packets[name]
    if is_out:
        return "out"
    if packet in packets:
        return packets[packet]
    if is_inplace:
        return "inplace"
    for pre, rule in prefixes:
        if packet.startswith(pre):
            return rule
    if "pointwise" in tags:
        return "pointwise"
    return "none"


def make_id(target, used):
    base = re.sub(r"[^A-Za-z0-9]", "_", target).upper()
    if "." not in target:
        base = "M_" + base
    ident, k = base, 2
    while ident in used:
        ident = "%s_%d" % (base, k)
        k += 1
    used.add(ident)
    return ident


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def torch_level_targets(callables):
    """(target, aten packet it names) for each torch-level callable Dynamo can record."""
    out = []
    for key in callables:
        if key.startswith("method:"):
            name = key[7:]
            out.append((name, "aten." + name, key))
            continue
        for pre, apre in (("torch.nn.functional.", ""), ("torch._C._nn.", ""),
                          ("torch.special.", "special_"), ("torch.linalg.", "linalg_"),
                          ("torch.fft.", "fft_"), ("torch._C._VariableFunctions.", ""),
                          ("torch._C._linalg.", ""), ("torch._C._special.", ""),
                          ("torch._C._fft.", ""), ("torch.", "")):
            if key.startswith(pre):
                rest = key[len(pre):]
                if "." in rest:
                    break
                out.append((key, "aten." + apre + rest, key))
                break
    # the C bindings Dynamo records for torch.linalg / torch.fft / torch.special functions
    for key in list(callables):
        for pre, cpre, apre in (("torch.linalg.", "torch._C._linalg.linalg_", "aten.linalg_"),
                                ("torch.fft.", "torch._C._fft.fft_", "aten.fft_"),
                                ("torch.special.", "torch._C._special.special_",
                                 "aten.special_")):
            if key.startswith(pre) and "." not in key[len(pre):]:
                rest = key[len(pre):]
                out.append((cpre + rest, apre + rest, key))
    return out


def build():
    overloads, callables, promo = load_data()
    explicit = load_explicit()
    families = load_families()
    entries = {}   # target -> (rule, flags list, schema)
    parsed = {}
    for name, (tags, schema) in overloads.items():
        params, rets = parse_torch_schema(schema)
        parsed[name] = (params, rets, tags)
        rule = rule_for(name, tags, params, families)
        flags = flags_of(tags, params, rets, name)
        if rets == "()" and rule == "none":
            # an op that returns nothing (asserts, prints, profiler marks): its value is None
            rule = "novalue"
            flags.append("NOVALUE")
        pf = promo_flag(packet_of(name), promo) if rule == "pointwise" else None
        if pf:
            flags.append(pf)
        entries[name] = (rule, flags, our_schema(params, rule == "pointwise", rule == "out"))
    # explicit entries win, and keep torch's tags as flags they lack
    for target, (rule, flags, schema) in explicit.items():
        if schema == "-":
            if target not in parsed:
                raise SystemExit("explicit.txt: %s has schema '-' but torch has no such "
                                 "overload" % target)
            schema = our_schema(parsed[target][0], rule == "pointwise")
        flags = list(flags)
        if target in parsed and "core" in parsed[target][2] and "CORE" not in flags:
            flags.append("CORE")
        entries[target] = (rule, flags, schema)
    # the _copy forms of views (tagged view_copy): copy_of_<the view's rule>, where the view's
    # packet has one of the rules lib/passes/shapes-*.c wrap
    for name, (params, rets, tags) in parsed.items():
        if "view_copy" not in tags or entries[name][0] not in ("none", "out"):
            continue
        if entries[name][0] == "out":
            continue
        base = packet_of(name)[:-len("_copy")] if packet_of(name).endswith("_copy") else None
        ovl = name.split(".")[-1]
        cand = [base + "." + ovl] if base else []
        cand += [c for c in overloads if base and packet_of(c) == base]
        for c in cand:
            if c in entries and entries[c][0] in COPY_OF_VIEWS:
                entries[name] = ("copy_of_" + entries[c][0], entries[name][1],
                                 entries[name][2])
                break
    # aliases (torch's "alias for" operators: aten.arccos is aten.acos): each overload without
    # a rule takes the rule and flags of the canonical overload of the same name (or the one
    # the line names), which must take the same types in the same places; its parameters are
    # its own, or the canonical ones where the names differ (the rule reads those names)
    for alias, canon in ALIASES:
        pairs = []
        if alias in overloads:
            pairs.append((alias, canon))
        else:
            for name in overloads:
                if packet_of(name) == alias:
                    pairs.append((name, canon + name[len(alias):]))
        took = 0
        for name, cname in pairs:
            if entries[name][0] != "none" or cname not in entries or \
                    entries[cname][0] in ("none", "out"):
                continue
            ap, cp = parsed[name][0], parsed[cname][0]
            # the same types and defaults in the same places (a keyword-only parameter of one
            # may be positional in the other: it binds by name either way)
            if [(p.typ.split("(")[0], p.default) for p in ap] != \
                    [(p.typ.split("(")[0], p.default) for p in cp]:
                raise SystemExit("families.txt: alias %s takes other arguments than %s" %
                                 (name, cname))
            rule, flags, schema = entries[cname]
            if [p.name for p in ap] == [p.name for p in cp]:
                schema = our_schema(ap, rule == "pointwise")   # its own keyword-only marks
            elif [p.kwonly for p in ap] != [p.kwonly for p in cp]:
                raise SystemExit("families.txt: alias %s names and places its arguments "
                                 "unlike %s" % (name, cname))
            flags = [f for f in flags if f != "CORE"]
            if fast_binary(cname, rule):     # it runs as the canonical op under FakeTensor
                flags.append("FAKE_FAST_BINARY")
            entries[name] = (rule, flags, schema)
            took += 1
        if not took:
            raise SystemExit("families.txt: alias %s -> %s gives no entry" % (alias, canon))
    # torch-level callables: the rule of the ATen overload they name, Python's parameters
    by_packet = {}
    for name in sorted(overloads):
        by_packet.setdefault(packet_of(name), []).append(name)
    for target, packet, key in torch_level_targets(callables):
        if target in entries or packet not in by_packet:
            continue
        # named-tensor overloads (Dimname arguments) are not what Dynamo graphs call
        cands = [n for n in by_packet[packet] if entries[n][0] not in ("none", "out") and
                 "Dimname" not in overloads[n][1] and "names" not in n.split(".")[-1].lower()]
        if not cands:
            continue
        # the Python binding takes every overload's arguments: the widest overload's list
        # (the preferred names break ties) binds what Dynamo records
        prefer = ("default", "Tensor", "int", "dim", "self", "correction")
        rules = {entries[c][0] for c in cands}
        def rank(c):
            ovl = c[len(packet) + 1:]
            positional = sum(1 for p in parsed[c][0] if not p.kwonly)
            return (-positional if len(rules) == 1 else 0,
                    -len(parsed[c][0]) if len(rules) == 1 else 0,
                    prefer.index(ovl) if ovl in prefer else len(prefer), c)
        pick = sorted(cands, key=rank)[0]
        rule, flags, schema = entries[pick]
        # the Python binding takes ATen's parameters in ATen's order (self is "input" as a
        # keyword of torch.* functions: lib/passes/shapes-core-args.c binds either name)
        params_text = callables[key]
        if target.startswith("torch.nn.functional.") and params_text and \
                not params_text.startswith("*") and rule != "pointwise":
            names = [x.split("=")[0].strip() for x in split_top(params_text)]
            aten = [p.name for p in parsed[pick][0]]
            mapped = [("self" if n == "input" else n) for n in names]
            # a Python wrapper with its own arguments, or one whose results depend on an option
            # of its own (return_indices), is not the ATen op: no guess
            if mapped[:len(aten)] != aten[:len(mapped)] or "return_indices" in mapped:
                continue
        entries[target] = (rule, [f for f in flags if f != "CORE"], schema)
    return entries


# rules whose ops reach FakeTensor's fast binary path when they dispatch to aten.add/sub/mul/
# div.Tensor: every form of those four (aten overloads, torch.*, operator.*, methods)
BINARY_RULES = ("binary", "binary_float", "compare", "binary_div_mode", "binary_iop")
FAST_BINARY = re.compile(r"(^|[._])(r?add|r?sub|r?mul|r?div|r?truediv|multiply|subtract|"
                         r"true_divide|divide|iadd|isub|imul|itruediv)(_|\.|$)")


def fast_binary(target, rule):
    if rule not in BINARY_RULES:
        return False
    if target.startswith("aten."):
        return target in ("aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor",
                          "aten.div.Tensor")
    if "floor_divide" in target:
        return False    # aten.floor_divide has its own meta kernel
    return bool(FAST_BINARY.search(target.replace("__", ".")))


# Python's integer arithmetic on sizes: the operator.* functions, their in-place forms and the
# dunder methods (reflected ones swap the operands)
ARITH = {"add": "ADD", "sub": "SUB", "mul": "MUL", "floordiv": "FLOORDIV", "mod": "MOD"}


def arith_flags(target):
    name = None
    if target.startswith("operator."):
        name = target[9:]
        if name.startswith("i") and (name[1:] in ARITH or name[1:] == "truediv"):
            name = name[1:]
        if name == "truediv":  # a / b: a float even of two ints (the scalar rules' float path)
            return ["TRUEDIV"]
        return [ARITH[name]] if name in ARITH else []
    if target.startswith("__") and target.endswith("__"):
        name = target[2:-2]
        if name.startswith("r") and name[1:] in ARITH:
            return [ARITH[name[1:]], "REFLECTED"]
        if name.startswith("i") and name[1:] in ARITH:
            name = name[1:]
        return [ARITH[name]] if name in ARITH else []
    return []


# Python's comparisons on sizes (a SymBool): operator.lt ... and the dunder methods
CMP = {"lt": "LT", "le": "LE", "gt": "GT", "ge": "GE", "eq": "EQ", "ne": "NE"}


def cmp_flags(target):
    if target.startswith("operator."):
        name = target[9:]
    elif target.startswith("__") and target.endswith("__"):
        name = target[2:-2]
    else:
        return []
    return ["CMP_" + CMP[name]] if name in CMP else []


def render(entries):
    used = set()
    lines = [
        "/*",
        " * The operator registry, GENERATED by tools/gen-op-list.py from torch 2.11's own",
        " * operator data (tools/ops/torch-2.11.txt), the hand-written rule families",
        " * (tools/ops/families.txt) and the explicit entries (tools/ops/explicit.txt). Do not",
        " * edit: change those and run `make op-list` (`make check-ops` compares).",
        " *",
        " *   OP(ID, \"target\", rule, \"schema\", flags)",
        " *",
        " * target  the spec's target syntax; rule  cgs_shape_rule_<rule> in lib/passes/shapes-*.c (none:",
        " * known to torch, no rule); schema  parameters in positional order, \"=default\", \"*\"",
        " * before keyword-only ones, \"*name\" a variadic tail, \"%\" before a parameter that",
        " * takes part in type promotion, \"!\" before an out= tensor the op writes; flags",
        " * CGS_OPF_* (lib/ops/ops.h). Sorted by target.",
        " */",
    ]
    for target in sorted(entries, key=lambda s: s.encode()):
        rule, flags, schema = entries[target]
        if fast_binary(target, rule):
            flags = list(flags) + ["FAKE_FAST_BINARY"]
        flags = list(flags) + ["ARITH_" + a for a in arith_flags(target)] + cmp_flags(target)
        fl = " | ".join("CGS_OPF_" + f for f in flags) if flags else "0"
        lines.append("OP(%s, %s, %s,\n   %s, %s)" % (make_id(target, used), c_str(target), rule,
                                                   c_str(schema), fl))
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--import":
        do_import(sys.argv[2])
        return 0
    text = render(build())
    if len(sys.argv) == 2 and sys.argv[1] == "--check":
        old = open(HEADER).read() if os.path.exists(HEADER) else ""
        if old != text:
            sys.stderr.write("lib/ops/op-list.h is not what tools/ops/ gives: run "
                             "`make op-list` and commit the result\n")
            return 1
        print("op-list ok: %d entries" % text.count("\nOP("))
        return 0
    if len(sys.argv) != 1:
        sys.stderr.write(__doc__)
        return 2
    tmp = HEADER + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, HEADER)
    print("lib/ops/op-list.h: %d entries" % text.count("\nOP("))
    return 0


if __name__ == "__main__":
    sys.exit(main())
