#!/usr/bin/env python3
"""Judge `cgscope shapes --reinfer` on real model graphs against the values torch recorded.

The graphs (tests/data/models.tar.xz) come from tests/gpu/model_graphs.py on the H200: model
families the fixtures do not have (torchvision, timm, Hugging Face built from configs; random
weights), at the Dynamo, AOT inference (ATen), torch.export and post-grad stages. For every
call node: shape+dtype equal to torch's record, and strides too.

usage: shapes-models.py [--cgscope PATH] [--ops FILE] [--min-shape PCT] [--min-stride PCT]
                        [--json] [ARCHIVE]
Prints one line per stage and the total; exit 1 when a minimum is not met, or when any node is
an error because of an unknown input.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def stage_of(path):
    base = os.path.basename(path)
    if "/pg/" in path:
        return "post_grad" if "post_grad" in base else "dynamo"
    return {"dynamo_dyn": "dynamo (dynamic)", "aot": "aot (ATen)"}.get(base.split(".")[-2],
                                                                    base.split(".")[-2])


def extract_all(tf, dest):
    """Extract the archive's regular files and folders only, under dest. tarfile's
    filter="data" does this on Python >= 3.11.4 (and 3.8.17, 3.9.17, 3.10.12); Debian 12's
    3.11.2 has no filter argument, so the same check is made here by hand."""
    root = os.path.realpath(dest)
    for m in tf.getmembers():
        path = os.path.realpath(os.path.join(root, m.name))
        if not (m.isfile() or m.isdir()) or os.path.commonpath([root, path]) != root:
            raise SystemExit("refusing archive member %r (not a plain file under %s)" % (m.name, dest))
    for m in tf.getmembers():
        if m.isdir():
            os.makedirs(os.path.join(root, m.name), exist_ok=True)
        else:
            os.makedirs(os.path.dirname(os.path.join(root, m.name)), exist_ok=True)
            with tf.extractfile(m) as src, open(os.path.join(root, m.name), "wb") as dst:
                dst.write(src.read())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("archive", nargs="?", default=os.path.join(HERE, "data", "models.tar.xz"))
    ap.add_argument("--cgscope", default=os.environ.get("CGSCOPE", "./cgscope"))
    ap.add_argument("--ops", action="append", default=[])
    ap.add_argument("--min-shape", type=float, default=0)
    ap.add_argument("--min-stride", type=float, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    tot = collections.defaultdict(lambda: [0, 0, 0])
    roots = collections.Counter()
    errors = 0
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(a.archive) as tf:
            extract_all(tf, tmp)
        files = []
        for dp, _, fs in os.walk(tmp):
            files += [os.path.join(dp, f) for f in fs if f.endswith(".json")]
        for f in sorted(files):
            cmd = [a.cgscope, "shapes", "--reinfer", "--json", f]
            for o in a.ops:
                cmd += ["--ops", o]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if not p.stdout:
                print("does not load: %s: %s" % (f, p.stderr.strip()[:200]))
                errors += 1
                continue
            doc = json.loads(p.stdout)
            st = stage_of(os.path.relpath(f, tmp))
            for n in doc["nodes"]:
                if n["op"] not in ("call_function", "call_method"):
                    continue
                m = n.get("match")
                ok = n["status"] == "ok"
                t = tot[st]
                t[0] += 1
                t[1] += ok and m in (True, "strides", None)
                t[2] += ok and m in (True, None)
                if n["status"] == "error" and "not known" in (n.get("reason") or ""):
                    errors += 1
            for r in doc.get("root_causes", []):
                roots["%s (%s)" % (r["target"], r["status"])] += r["blocks"]
    all_ = [sum(v[i] for v in tot.values()) for i in range(3)]
    res = {"stages": {k: {"nodes": v[0], "shape_pct": 100.0 * v[1] / v[0],
                          "stride_pct": 100.0 * v[2] / v[0]} for k, v in sorted(tot.items())},
           "nodes": all_[0], "shape_pct": 100.0 * all_[1] / all_[0],
           "stride_pct": 100.0 * all_[2] / all_[0], "errors_from_unknown_inputs": errors,
           "root_causes": roots.most_common(10)}
    if a.json:
        print(json.dumps(res, indent=1))
    else:
        for k, v in res["stages"].items():
            print("%-18s %6d nodes  shape+dtype %6.2f%%  strides %6.2f%%"
                  % (k, v["nodes"], v["shape_pct"], v["stride_pct"]))
        print("%-18s %6d nodes  shape+dtype %6.2f%%  strides %6.2f%%"
              % ("all", res["nodes"], res["shape_pct"], res["stride_pct"]))
        for r, c in res["root_causes"]:
            print("  root cause %-60s blocks %d" % (r, c))
    ok = res["shape_pct"] >= a.min_shape and res["stride_pct"] >= a.min_stride and not errors
    if not ok:
        print("models: below the minimum (shape %.2f < %.2f or strides %.2f < %.2f) or %d errors"
              % (res["shape_pct"], a.min_shape, res["stride_pct"], a.min_stride, errors))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
