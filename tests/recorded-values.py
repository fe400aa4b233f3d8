#!/usr/bin/env python3
"""Recorded values (issue 38): on graphs read from logs others wrote (tlparse's test logs), every
value torch recorded is the node's reported value, as torch wrote it (`shapes --json`: val, and
val_source "recorded"), and a node whose inputs torch recorded in full (shape and strides) and
whose operator has a rule is not left partial for want of an input.
usage: tests/recorded-values.py CGSCOPE REF...   (each ref a graph of a log)"""
import json, os, subprocess, sys, tempfile

cg, refs = sys.argv[1], sys.argv[2:]
bad, checked, recorded, freed = [], 0, 0, 0
tmp = tempfile.mkdtemp()
for ref in refs:
    sh = subprocess.run([cg, "shapes", "--json", ref], capture_output=True, text=True)
    if sh.returncode not in (0,):
        bad.append("%s: shapes exit %d: %s" % (ref, sh.returncode, sh.stderr[-200:]))
        continue
    shapes = {n["name"]: n for n in json.load(__import__("io").StringIO(sh.stdout))["nodes"]}
    # the records, as the graph JSON holds them (graphs --write of the log, the ref's graph)
    log, sel = ref.split("#", 1)
    d = os.path.join(tmp, str(abs(hash(ref))))
    os.makedirs(d, exist_ok=True)
    gl = subprocess.run([cg, "graphs", "--json", "--write", d, log], capture_output=True, text=True)
    files = {g["ref"]: g["file"] for g in json.loads(gl.stdout)["graphs"]}
    graph = json.load(open(files[ref]))
    recs = {n["name"]: n.get("val") for n in graph["nodes"]}
    for n in graph["nodes"]:
        rec = n.get("val")
        if rec is None or n["op"] == "output":
            continue
        s = shapes[n["name"]]
        checked += 1
        if s["val_source"] != "recorded":
            bad.append("%s: %s: torch recorded a value; reported from %s" % (ref, n["name"], s["val_source"]))
            continue
        # the same value as the record (the JSON forms agree key by key where both say)
        for k, v in (rec.items() if isinstance(rec, dict) else []):
            if k in s["val"] and s["val"][k] != v:
                bad.append("%s: %s: %s is %r, torch recorded %r" % (ref, n["name"], k, s["val"][k], v))
        if s["status"] != "ok":
            recorded += 1
        full = all(isinstance(recs.get(a), dict) and recs[a].get("stride") is not None
                   for a in [x for x in json.dumps(n.get("args", [])).split('"node": "')[1:]
                             for x in [x.split('"')[0]]] if a in recs)
        if (full and s["status"] == "partial" and "is not known" in s.get("reason", "")):
            bad.append("%s: %s: partial (%s) although torch recorded its inputs in full" %
                       (ref, n["name"], s.get("reason")))
for b in bad:
    print("recorded-values:", b)
print("recorded-values: %d graphs, %d recorded values reported as torch wrote them, %d of them "
      "where inference had none or differed" % (len(refs), checked, recorded))
sys.exit(1 if bad else 0)
