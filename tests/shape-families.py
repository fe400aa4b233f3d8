#!/usr/bin/env python3
"""The shape rules' files (issue 37): every rule is in the family file docs/shape-rules.md names
for it, the table lists every rule, no file is over 1,500 lines, no two rules share one body, and
the rule files draw as a fan below the core: a family calls another family's rule only along
edges that make no loop.
usage: tests/shape-families.py [--print]   (--print: the table as the doc should hold it)"""
import glob, os, re, sys

CORE = {"shapes.c", "shapes-core.c", "shapes-core-args.c", "shapes-core-results.c",
        "shapes-core-views.c", "shapes-compare.c"}

def rules_of(text):
    rules = re.findall(r"^RULE\((\w+)\)", text, re.M)
    rules += ["copy_of_" + v for v in re.findall(r"^COPY_OF\((\w+)\)", text, re.M)]
    rules += re.findall(r"^TAKE_OF\((\w+),", text, re.M)
    return rules

files = {os.path.basename(p): open(p).read() for p in sorted(glob.glob("lib/passes/shapes*.c"))}
where = {}
bad = []
for f, t in files.items():
    for r in rules_of(t):
        if r in where:
            bad.append("rule %s defined in %s and %s" % (r, where[r], f))
        where[r] = f
    n = t.count("\n")
    if n > 1500:
        bad.append("%s: %d lines (a family file stays under 1,500: cut it by family)" % (f, n))

families = sorted(f for f in files if f not in CORE and any(where[r] == f for r in where))
if "--print" in sys.argv:
    for f in families:
        rs = sorted(r for r in where if where[r] == f)
        print("| `%s` | %s |" % (f, " ".join(rs)))
    sys.exit(0)

# the doc's table
doc = open("docs/shape-rules.md").read()
listed = {}
for f, rs in re.findall(r"^\| `(shapes-[\w-]+\.c)` \| ([\w ]+) \|$", doc, re.M):
    for r in rs.split():
        listed[r] = f
for r, f in sorted(where.items()):
    if f in CORE:
        bad.append("rule %s is in %s: rules live in a family file, the core holds helpers" % (r, f))
    elif listed.get(r) != f:
        bad.append("rule %s is in %s, docs/shape-rules.md says %s" % (r, f, listed.get(r)))
for r in sorted(set(listed) - set(where)):
    bad.append("docs/shape-rules.md lists rule %s, which no file defines" % r)

# twins: two rules with one body are one rule under two names (op-list maps both ops to one)
bodies = {}
for f, t in files.items():
    for m in re.finditer(r"^RULE\((\w+)\)\n(\{.*?\n\})", t, re.M | re.S):
        body = re.sub(r"\s+", " ", re.sub(r"/\*.*?\*/", "", m.group(2), flags=re.S))
        if body in bodies:
            bad.append("rules %s and %s have one body: map the ops to one rule (tools/ops/)" %
                       (bodies[body], m.group(1)))
        bodies[body] = m.group(1)

# calls between family files: cgs_shape_rule_X of another family, or a helper defined there
edges = set()
for f in families:
    t = re.sub(r"/\*.*?\*/", " ", files[f], flags=re.S)
    for r in set(re.findall(r"cgs_shape_rule_(\w+)", t)):
        g = where.get(r)
        if g and g != f and g not in CORE:
            edges.add((f, g))
def cyclic():
    seen, stack = set(), set()
    graph = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
    def visit(v):
        if v in stack:
            return True
        if v in seen:
            return False
        seen.add(v); stack.add(v)
        if any(visit(w) for w in graph.get(v, [])):
            return True
        stack.discard(v)
        return False
    return any(visit(v) for v in list(graph))
if cyclic():
    bad.append("the family files call one another in a loop: %s" % sorted(edges))
for b in bad:
    print("shape-families:", b)
print("shape-families: %d rules in %d family files, %d call edges between families, %s" %
      (len(where), len(families), len(edges), "no loop" if not cyclic() else "a loop"))
sys.exit(1 if bad else 0)
