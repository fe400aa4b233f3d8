# A wide graph from a sample: twelve renamed copies of its nodes, all returned (1.2 MB from
# samples/cgs_transformer_dyn.json, past the 512 KB from which the loader reads with threads).
# usage: python3 tests/cli/wide-graph.py SAMPLE OUT
import json, sys
g = json.load(open(sys.argv[1]))
nodes = [n for n in g["nodes"] if n["op"] != "output"]
out = [n for n in g["nodes"] if n["op"] == "output"][0]
wide = []
for k in range(12):
    m = {n["name"]: "%s_c%d" % (n["name"], k) for n in nodes}
    def fix(a):
        if isinstance(a, dict):
            return {kk: (m.get(v, v) if kk == "node" else fix(v)) for kk, v in a.items()}
        if isinstance(a, list):
            return [fix(v) for v in a]
        return a
    for n in nodes:
        c = dict(n, name=m[n["name"]], args=fix(n.get("args", [])), kwargs=fix(n.get("kwargs", {})))
        if c["op"] == "placeholder":
            c["target"] = c["name"]
        wide.append(c)
wide.append(dict(out, args=[[{"node": "%s_c%d" % (nodes[-1]["name"], k)} for k in range(12)]]))
g["nodes"] = wide
json.dump(g, open(sys.argv[2], "w"), indent=1)
