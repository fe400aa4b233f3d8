"""What a TORCH_TRACE log says, read here with nothing of cgscope's, for the tests that check
cgscope's answers against torch's own records (tests/cli/diff-torch.sh).

  graphs(path)   {(compile id, stage): Graph}: the printed graphs of dynamo_output_graph,
                 aot_inference_graph and the inductor_post_grad_graph artifact (stages
                 "dynamo", "aot_inference", "post_grad", as cgscope names them)
  records(path)  [(kind, record dict, payload text)] in order
Graph.values   {node name: (dtype, shape, stride)} from the annotations torch prints
               ("f32[8, 32][32, 1]cuda:0"; a SymInt input as ("sym", name, None))
Graph.calls    [(node name, target)] in order; Graph.pieces(splitting) the piecewise split's count
Graph.ops      Counter of the targets of the calls ("aten.mm.default", "torch._C._nn.linear",
               a method by its name: "sum"; a tuple's item, x[0], as "operator.getitem")
"""
import collections
import glob
import gzip
import json
import lzma
import os
import re

STAGES = {"dynamo_output_graph": "dynamo", "aot_inference_graph": "aot_inference",
          "aot_forward_graph": "aot_forward", "aot_backward_graph": "aot_backward",
          "inductor_post_grad_graph": "post_grad"}
ANN = re.compile(r'^(\w+)\[([^\]]*)\]\[([^\]]*)\]')
ASSIGN = re.compile(r'^\s+(\w+)(?:: "([^"]*)")? = (.*)$')
ARG = re.compile(r'(\w+): "([^"]*)"')
CALL = re.compile(r'^(torch\.ops\.[\w.]+|torch\.[\w.]+|operator\.\w+|\w+\.(\w+))\(')


def _open(path):
    if os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(path, "*.log*")))
        assert len(files) == 1, (path, files)
        path = files[0]
    if path.endswith(".xz"):
        return lzma.open(path, "rt")
    if path.endswith(".gz"):
        return gzip.open(path, "rt")
    return open(path)


def records(path):
    out = []
    with _open(path) as f:
        for line in f:
            if line.startswith("\t"):
                if out:
                    out[-1][2].append(line[1:])
                continue
            i = line.find("] {")
            if i < 0:
                continue
            try:
                rec = json.loads(line[i + 2:])
            except ValueError:
                continue
            kind = next(iter(rec), None)
            out.append((kind, rec, []))
    return [(k, r, "".join(p)) for k, r, p in out]


def value(ann):
    if ann.startswith("Sym("):
        return ("sym", ann[4:-1], None)
    m = ANN.match(ann)
    if not m:
        return None
    dims = lambda s: [d.strip() for d in s.split(",") if d.strip()]
    return (m.group(1), dims(m.group(2)), dims(m.group(3)))


class Graph:
    def __init__(self, text):
        self.values, self.ops, self.calls = {}, collections.Counter(), []
        signature = False
        for line in text.split("\n"):
            if "def forward(" in line:
                signature = True
                line = line[line.index("def forward(") + 12:]
            if signature:
                for name, ann in ARG.findall(line):
                    # Dynamo's inputs are L_x_ in the signature, l_x_ in the graph
                    self.values[name.lower() if name.startswith("L_") else name] = value(ann)
                signature = not line.rstrip().endswith(":")
                continue
            m = ASSIGN.match(line)
            if not m or re.match(r"^\w+$", m.group(3).split(";")[0].strip()):
                continue  # not a node, or Dynamo's renaming of an input (l_x_ = L_x_)
            self.values[m.group(1)] = value(m.group(2)) if m.group(2) else None
            c = CALL.match(m.group(3))
            t = None
            if re.match(r"^\w+\[\d+\]", m.group(3)):
                t = "operator.getitem"  # a tuple's item: torch prints x[0]
            elif c:
                t = c.group(2) or c.group(1)
                t = t[len("torch.ops."):] if t.startswith("torch.ops.") else t
            if t:
                self.ops[t] += 1
                self.calls.append((m.group(1), t))

    def pieces(self, splitting):
        """Pieces of torch.fx.passes.split_module as the piecewise backends cut: each call
        whose target splitting(target) says is a splitting op alone, the calls between them
        together."""
        n, run = 0, False
        for _, t in self.calls:
            if splitting(t):
                n, run = n + 1, False
            elif not run:
                n, run = n + 1, True
        return n


def graphs(path):
    out = {}
    for kind, rec, payload in records(path):
        if kind == "artifact":
            kind = rec["artifact"].get("name")
        if kind not in STAGES or not payload:
            continue
        cid = "%d/%d" % (rec.get("frame_id", 0), rec.get("frame_compile_id", 0))
        out[(cid, STAGES[kind])] = Graph(payload)
    return out


def changed(ga, gb, part):
    """Names of the nodes both graphs have whose dtype (part 0), shape (1) or strides (2, of
    nodes whose shape is the same) differ, by name (right where the two programs name their
    nodes alike)."""
    return sorted(n for n in ga.values if n in gb.values and ga.values[n] and gb.values[n]
                  and ga.values[n][part] != gb.values[n][part]
                  and (part != 2 or ga.values[n][1] == gb.values[n][1]))


def counts(text):
    """'aten.mm.default: 1, aten.add.Tensor: 2' (diff's a and b of an ops change) -> dict."""
    out = {}
    for item in filter(None, (text or "").split(", ")):
        t, n = item.rsplit(": ", 1)
        out[t] = int(n)
    return out
