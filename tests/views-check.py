#!/usr/bin/env python3
"""The strides of view and reshape, judged against torch (tests/data/views.txt: 3,000 random
tensors with size-1 dims of every stride, viewed and reshaped to random shapes, as torch 2.11's
FakeTensor gives them; recorded by tests/gpu/stride_probe.py on the H200).

One graph holds every case: an input of the recorded shape, strides and offset, a view node
and a reshape node carrying torch's value. `cgscope shapes --reinfer --json` must give every
value exactly, and refuse (status error) every view torch refuses.

usage: views-check.py [--cgscope PATH] [CASES]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def ints(f):
    return [] if f in ("-", "") else [int(x) for x in f.split(",")]


def val(shape, stride, offset):
    return {"dtype": "float32", "shape": shape, "stride": stride, "storage_offset": offset,
            "device": "cuda:0", "requires_grad": False}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="?", default=os.path.join(HERE, "data", "views.txt"))
    ap.add_argument("--cgscope", default=os.environ.get("CGSCOPE", "./cgscope"))
    a = ap.parse_args()
    nodes, refused = [], set()
    for i, line in enumerate(open(a.cases)):
        if line.startswith("#"):
            continue
        shape, stride, new, v, r = line.split()
        shape, stride, new = ints(shape), ints(stride), ints(new)
        # the input's offset is the view's (torch keeps it); a refused view's input: 0
        off = int(v.split("@")[1]) if v != "x" else 0
        p = "x%d" % i
        nodes.append({"name": p, "op": "placeholder", "target": p, "args": [], "kwargs": {},
                      "val": val(shape, stride, off)})
        for kind, got in (("view", v), ("reshape", r)):
            n = {"name": "%s%d" % (kind, i), "op": "call_function",
                 "target": "aten.%s.default" % kind, "args": [{"node": p}, new], "kwargs": {}}
            if got == "x":
                refused.add(n["name"])
            else:
                st, o = got.split("@")
                n["val"] = val(new, ints(st), int(o))
            nodes.append(n)
    g = {"format": "cgscope.graph", "version": 1, "name": "views",
         "producer": {"tool": "torch", "version": "2.11.0", "stage": "aot_forward"},
         "nodes": nodes + [{"name": "output", "op": "output", "target": "output",
                            "args": [[]], "kwargs": {}}]}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "views.json")
        json.dump(g, open(path, "w"))
        p = subprocess.run([a.cgscope, "shapes", "--reinfer", "--json", path],
                           capture_output=True, text=True)
    if not p.stdout:
        print("views: cgscope failed: %s" % p.stderr.strip()[:500])
        return 1
    bad, n_cases = [], 0
    for n in json.loads(p.stdout)["nodes"]:
        if n["op"] != "call_function":
            continue
        n_cases += 1
        if n["name"] in refused:
            if n["status"] != "error":
                bad.append("%s: torch refuses, cgscope says %s %s" % (n["name"], n["status"],
                                                                      n.get("val")))
        elif n["status"] != "ok" or n.get("match") is not True:
            bad.append("%s: %s %s" % (n["name"], n["status"], n.get("reason")))
    for b in bad[:20]:
        print("views: " + b)
    print("views: %d of %d view/reshape values as torch gives them (%d refusals)"
          % (n_cases - len(bad), n_cases, len(refused)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
