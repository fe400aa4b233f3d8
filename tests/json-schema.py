#!/usr/bin/env python3
"""Check cgscope's JSON documents against docs/json.md.

  json-schema.py docs/json.md FILE...          each FILE one document (its "format" picks the block)
  json-schema.py docs/json.md --help-keys CMD  read `cgscope CMD --help` on stdin: every key its
                                               "JSON keys" paragraph names must be in the page

Exit 1 with every problem listed (file, path, what): a key the page does not list, a required
key missing, a value of another type.
"""
import json
import re
import sys


def blocks(path):
    text = open(path).read()
    out = {}
    for name, body in re.findall(r"```keys (\S+)\n(.*?)```", text, re.S):
        keys = {}
        for line in body.splitlines():
            if not line.strip():
                continue
            parts = line.split()
            key, typ = parts[0], parts[1]
            opt = key.endswith("?")
            keys[key.rstrip("?")] = (typ, opt)
        if name in out:
            sys.exit("%s: block %s twice" % (path, name))
        out[name] = keys
    return out


def check_type(B, typ, v, where, errs):
    alts = typ.split("|")
    for a in alts:
        if type_ok(B, a, v, where, [] if len(alts) > 1 else errs):
            if len(alts) > 1:
                type_ok(B, a, v, where, errs)  # once more, to report what is inside
            return
    if len(alts) > 1 or not errs or errs[-1][0] != where:
        errs.append((where, "expected %s, got %s" % (typ, json.dumps(v)[:60])))


def type_ok(B, t, v, where, errs):
    if t == "any" or t == "val":
        return True
    if t == "null":
        return v is None
    if t == "string":
        return isinstance(v, str)
    if t == "bool":
        return isinstance(v, bool)
    if t == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t.startswith("[") and t.endswith("]"):
        if not isinstance(v, list):
            return False
        for i, x in enumerate(v):
            check_type(B, t[1:-1], x, "%s[%d]" % (where, i), errs)
        return True
    if t.startswith("map<") and t.endswith(">"):
        if not isinstance(v, dict):
            return False
        for k, x in v.items():
            check_type(B, t[4:-1], x, "%s.%s" % (where, k), errs)
        return True
    if t in B:
        if not isinstance(v, dict):
            return False
        keys = B[t]
        if t.startswith("cgscope-"):  # a whole document inside another: its header too
            keys = dict(B["document"])
            keys.update(B[t])
        check_object(B, keys, v, where, errs)
        return True
    errs.append((where, "docs/json.md names an unknown type %r" % t))
    return True


def check_object(B, keys, obj, where, errs):
    for k, v in obj.items():
        if k not in keys:
            errs.append((where, "key %r is not in docs/json.md" % k))
            continue
        check_type(B, keys[k][0], v, "%s.%s" % (where, k), errs)
    for k, (typ, opt) in keys.items():
        if not opt and k not in obj:
            errs.append((where, "required key %r missing" % k))


def main():
    B = blocks(sys.argv[1])
    bad = 0
    if len(sys.argv) == 4 and sys.argv[2] == "--help-keys":
        text = sys.stdin.read()
        m = re.search(r"\nJSON keys[^:]*:(.*?)(\.\s|\n\n|$)", text, re.S)
        if not m:
            return 0
        para = m.group(1)
        while re.search(r"\([^()]*\)", para):
            para = re.sub(r"\([^()]*\)", "", para)  # asides: "(most blocking first)"
        known = set()
        for keys in B.values():
            known.update(keys)
        for word in re.findall(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)*)\b\s*[\[{,}\]]", para):
            if word not in known and word not in ("a", "and", "as", "it", "or", "in", "with",
                                                  "the", "of", "one", "piece", "writes",
                                                  "always", "diff", "simulate", "once", "json", "names",
                                                  "int", "number", "string"):
                print("%s --help: JSON key %r is not in docs/json.md" % (sys.argv[3], word))
                bad = 1
        return bad
    for f in sys.argv[2:]:
        try:
            doc = json.load(open(f))
        except Exception as e:  # noqa: BLE001
            print("%s: not JSON: %s" % (f, e))
            bad = 1
            continue
        fmt = doc.get("format") if isinstance(doc, dict) else None
        if fmt not in B:
            print("%s: format %r has no block in docs/json.md" % (f, fmt))
            bad = 1
            continue
        keys = dict(B["document"])
        keys.update(B[fmt])
        errs = []
        check_object(B, keys, doc, fmt, errs)
        for where, what in errs:
            print("%s: %s: %s" % (f, where, what))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
