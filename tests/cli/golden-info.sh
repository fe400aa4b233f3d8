#!/bin/sh
# Every graph in the fixtures: `cgscope info --json` reports its exact node
# count and operator histogram, as counted independently (python3) from the
# file itself; every .pt2 reports the same as its JSON twin.
: "${CGSCOPE:=./cgscope}"
: "${FIXTURES:=../shared/fixtures}"
[ -d "$FIXTURES" ] || { echo "fixtures not found at $FIXTURES"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
python3 - "$CGSCOPE" "$FIXTURES" <<'PY'
import collections, glob, json, os, subprocess, sys
cgscope, root = sys.argv[1], sys.argv[2]
fails = checked = 0
def info(path):
    p = subprocess.run([cgscope, "info", "--json", path], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))
    return json.loads(p.stdout)
for path in sorted(glob.glob(os.path.join(root, "*", "*.json"))):
    base = os.path.basename(path)
    if ".split" in base or ".layout" in base or ".signature" in base:
        continue
    with open(path) as f:
        g = json.load(f)
    want_ops = collections.Counter(n["target"] for n in g["nodes"]
                                   if n["op"] in ("call_function", "call_method", "call_module"))
    try:
        got = info(path)
    except RuntimeError as e:
        print("FAIL %s: %s" % (base, e)); fails += 1; continue
    checked += 1
    if got["nodes"] != len(g["nodes"]):
        print("FAIL %s: nodes %s, file has %d" % (base, got["nodes"], len(g["nodes"]))); fails += 1
    if got["ops"] != dict(want_ops):
        print("FAIL %s: operator histogram differs" % base); fails += 1
    if sorted(got["symbols"]) != sorted(g.get("symbols") or {}):
        print("FAIL %s: symbols differ" % base); fails += 1
    pt2 = path[:-5] + ".pt2"
    if os.path.exists(pt2):
        try:
            p = info(pt2)
        except RuntimeError as e:
            print("FAIL %s: %s" % (os.path.basename(pt2), e)); fails += 1; continue
        if p["nodes"] != got["nodes"] or p["ops"] != got["ops"]:
            print("FAIL %s: differs from its JSON twin" % os.path.basename(pt2)); fails += 1
print("%d graphs checked, %d failures" % (checked, fails))
sys.exit(1 if fails or checked < 30 else 0)
PY
