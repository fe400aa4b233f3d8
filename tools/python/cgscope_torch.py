"""cgscope_torch: get graphs out of PyTorch for cgscope, and mark pieces at run time.

One module, torch its only dependency. Three things:

* ``dump(gm, path, stage=...)`` writes any ``torch.fx.GraphModule`` (or ``fx.Graph``) as
  cgscope graph JSON (shared/spec/graph-json.md, version 1). The file is written atomically:
  a temporary file in the same folder, fsync, then rename over the target.
* ``dump_backend(dir)`` is a ``torch.compile`` backend that dumps the Dynamo graph of every
  compiled frame (and, with ``post_grad=True``, every post-grad graph Inductor lowers), then
  compiles with Inductor as usual (or runs eagerly with ``compiler="eager"``).
* ``piecewise_backend(splitting_ops, events=...)`` is MagiCompiler's piecewise model for users
  who have neither MagiCompiler nor vLLM: it splits the Dynamo graph at the splitting ops
  (``torch.fx.passes.split_module(keep_original_order=True)``), compiles the other pieces,
  keeps a per-piece cache keyed by ``(runtime_shape, graph_index, backend)``, appends cache
  events as JSON lines (docs/dashboard.md, "The events it reads") and wraps each piece's call in an NVTX range
  named ``cgscope:<compile id>/submod_N`` (``cgscope:0/0/submod_1``).

Helpers used by the checks: ``split_graph``/``split_report`` (the split and its description
in the spec's sidecar format) and ``load`` (a graph JSON back into an ``fx.GraphModule`` that
``split_module`` accepts).

Two lines get a graph out of a model::

    import cgscope_torch
    torch.compile(model, backend=cgscope_torch.dump_backend("graphs"))(*inputs)
"""

import builtins
import contextlib
import importlib
import json
import math
import operator
import os
import re
import sys
import tempfile
import threading
import time
import types

import torch
import torch.fx

__all__ = [
    "FORMAT",
    "VERSION",
    "STAGES",
    "EVENTS",
    "to_json",
    "dump",
    "dump_backend",
    "DumpBackend",
    "piecewise_backend",
    "PiecewiseBackend",
    "EventLog",
    "target_name",
    "split_graph",
    "split_report",
    "load",
]

FORMAT = "cgscope.graph"
VERSION = 1
STAGES = ("dynamo", "aot_forward", "aot_backward", "aot_joint", "post_grad", "export", "other")
EVENTS = ("compile_start", "compile_end", "cache_hit", "cache_miss", "cache_store", "recompile",
          "piece_run", "cudagraph_capture")

_REPR_LIMIT = 200
_TAG = "cgscope_name"           # node.meta key: original node name, survives split_module
_TARGET_TAG = "cgscope_target"  # node.meta key set by load(): the spec's target string


# ---------------------------------------------------------------------------------------------
# Writing: fx -> JSON
# ---------------------------------------------------------------------------------------------

def _natural_key(name):
    m = re.match(r"^(.*?)(\d+)$", name)
    if m:
        return (m.group(1), int(m.group(2)), name)
    return (name, -1, name)


def _func_name(fn):
    """The spec's name of a Python callable: its module and qualified name."""
    name = getattr(fn, "__name__", None)
    if name is None:
        return type(fn).__module__ + "." + type(fn).__qualname__
    if getattr(builtins, name, None) is fn:
        return "builtins." + name
    if getattr(operator, name, None) is fn:
        return "operator." + name
    # FX names a callable by its module and __name__, not __qualname__: functions
    # made by torch.nn.functional.boolean_dispatch (max_pool2d) have a qualname
    # "boolean_dispatch.<locals>.fn" but the __name__ "max_pool2d"; C functions bound
    # to a hidden class (torch._C._VariableFunctionsClass) are torch.conv2d
    qual = name
    # torch.Tensor methods used as functions (FX calls them torch.Tensor.x too)
    if isinstance(fn, (types.MethodDescriptorType, types.WrapperDescriptorType)):
        if getattr(torch.Tensor, name, None) is fn:
            return "torch.Tensor." + name
    module = getattr(fn, "__module__", None)
    if module is None:
        objclass = getattr(fn, "__objclass__", None)
        if objclass is not None:
            return objclass.__module__ + "." + objclass.__qualname__ + "." + name
        self_obj = getattr(fn, "__self__", None)
        if isinstance(self_obj, types.ModuleType):
            module = self_obj.__name__
        else:
            module = "builtins"
    if module == "_operator":
        module = "operator"
    elif module.startswith("torch._ops"):
        module = module.replace("torch._ops", "torch.ops", 1)
    return module + "." + qual


def target_name(node):
    """The spec's target string of an fx.Node (see "Targets" in graph-json.md)."""
    tag = node.meta.get(_TARGET_TAG) if hasattr(node, "meta") else None
    if tag is not None:
        return tag
    t = node.target
    if node.op == "output":
        return "output"
    if isinstance(t, str):
        return t
    if isinstance(t, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return str(t)
    hop = getattr(torch._ops, "HigherOrderOperator", None)
    if hop is not None and isinstance(t, hop):
        ns = getattr(t, "namespace", None) or "higher_order"
        name = t.name() if callable(getattr(t, "name", None)) else getattr(t, "_name", str(t))
        return "%s.%s" % (ns, name)
    return _func_name(t)


def _shape_env_of(value):
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return getattr(value.node, "shape_env", None)
    mode = getattr(value, "fake_mode", None)
    if mode is not None:
        return getattr(mode, "shape_env", None)
    return None


def _node_val(node):
    meta = node.meta
    if "val" in meta:
        return meta["val"]
    return meta.get("example_value")


class _Writer:
    """Turns one graph (and its nested graphs) into plain JSON values."""

    def __init__(self):
        self.symbols = {}      # name -> sympy symbol
        self.shape_env = None

    # -- symbolic values ---------------------------------------------------------------------

    def _note_expr(self, expr):
        for s in getattr(expr, "free_symbols", ()):
            self.symbols.setdefault(str(s), s)

    def _sym(self, value):
        """(expr string or None, python constant or None) of a SymInt/SymFloat/SymBool."""
        node = value.node
        if self.shape_env is None:
            self.shape_env = getattr(node, "shape_env", None)
        const = None
        for attr in ("maybe_as_int", "maybe_as_float", "maybe_as_bool"):
            fn = getattr(node, attr, None)
            if fn is None:
                continue
            try:
                const = fn()
            except Exception:
                const = None
            if const is not None:
                return None, const
        expr = node.expr
        if getattr(expr, "is_number", False):
            try:
                if isinstance(value, torch.SymBool):
                    return None, bool(expr)
                if isinstance(value, torch.SymFloat):
                    return None, float(expr)
                return None, int(expr)
            except Exception:
                pass
        self._note_expr(expr)
        return str(expr), None

    def _hint(self, value):
        node = value.node
        hint = getattr(node, "hint", None)
        if hint is None or isinstance(hint, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            env = getattr(node, "shape_env", None)
            hint = None
            if env is not None:
                try:
                    hint = env.size_hint(node.expr, allow_none=True)
                except Exception:
                    hint = None
        if hint is None:
            return None
        try:
            if isinstance(value, torch.SymBool):
                return bool(hint)
            if isinstance(value, torch.SymFloat):
                return _plain_float(float(hint))
            return int(hint)
        except Exception:
            return None

    def dim(self, d):
        if isinstance(d, torch.SymInt):
            expr, const = self._sym(d)
            return int(const) if expr is None else expr
        return int(d)

    # -- values (meta["val"]) ----------------------------------------------------------------

    def val(self, v):
        if v is None:
            return None
        if isinstance(v, bool):
            return v
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return _plain_float(v)
        if isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            expr, const = self._sym(v)
            if expr is None:
                if isinstance(const, float):
                    return _plain_float(const)
                return const
            key = ("symint" if isinstance(v, torch.SymInt) else
                   "symfloat" if isinstance(v, torch.SymFloat) else "symbool")
            return {key: expr, "hint": self._hint(v)}
        if isinstance(v, torch.Tensor):
            return self.tensor(v)
        if isinstance(v, (list, tuple)):
            return [self.val(x) for x in v]
        return None

    def tensor(self, t):
        if self.shape_env is None:
            self.shape_env = _shape_env_of(t)
        out = {"dtype": str(t.dtype).replace("torch.", "")}
        try:
            out["shape"] = [self.dim(d) for d in t.shape]
        except Exception:
            out["shape"] = None
        try:
            out["stride"] = [self.dim(d) for d in t.stride()]
        except Exception:
            out["stride"] = None
        try:
            out["storage_offset"] = self.dim(t.storage_offset())
        except Exception:
            out["storage_offset"] = None
        out["device"] = str(t.device)
        out["requires_grad"] = bool(t.requires_grad)
        return out

    # -- arguments ---------------------------------------------------------------------------

    def arg(self, a):
        if isinstance(a, torch.fx.Node):
            return {"node": a.name}
        if a is None or isinstance(a, (bool, str)):
            return a
        if isinstance(a, int):
            return int(a)
        if isinstance(a, float):
            if math.isnan(a):
                return {"float": "nan"}
            if math.isinf(a):
                return {"float": "inf" if a > 0 else "-inf"}
            return float(a)
        if isinstance(a, list) and self.in_index:
            # an index of getitem/setitem: a list is advanced indexing, a tuple is one index
            # per dimension, so lists are marked there (graph-json.md, "Arguments")
            return {"list": [self.arg(x) for x in a]}
        if isinstance(a, (list, tuple)):
            return [self.arg(x) for x in a]
        if isinstance(a, dict):
            # a triton kernel's kwargs, tma_descriptor_metadata: keys and values kept, so the
            # nodes a dict holds stay inputs of the node (graph-json.md, "Arguments")
            return {"dict": [[self.arg(k), self.arg(v)] for k, v in a.items()]}
        if isinstance(a, torch.dtype):
            return {"dtype": str(a).replace("torch.", "")}
        if isinstance(a, torch.device):
            return {"device": str(a)}
        if isinstance(a, torch.memory_format):
            return {"memory_format": str(a).replace("torch.", "")}
        if isinstance(a, torch.layout):
            return {"layout": str(a).replace("torch.", "")}
        if isinstance(a, slice):
            return {"slice": [self.arg(a.start), self.arg(a.stop), self.arg(a.step)]}
        if a is Ellipsis:
            return {"ellipsis": True}
        if isinstance(a, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            expr, const = self._sym(a)
            if expr is None:
                return self.arg(const)
            return {"repr": expr}
        if isinstance(a, torch.Tensor):
            return {"repr": "tensor(shape=%s, dtype=%s)" % (list(a.shape), a.dtype)}
        if callable(a) and not isinstance(a, torch.nn.Module):
            try:
                if isinstance(a, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
                    return {"repr": str(a)}
                return {"repr": _func_name(a)}
            except Exception:
                pass
        try:
            text = repr(a)
        except Exception:
            text = "<%s>" % type(a).__name__
        if len(text) > _REPR_LIMIT:
            text = text[:_REPR_LIMIT - 3] + "..."
        return {"repr": text}

    in_index = False

    def _args(self, n):
        """A node's positional arguments; the index of operator.getitem/setitem (argument 1)
        is written with lists told apart from tuples."""
        index_op = n.op == "call_function" and n.target in (operator.getitem, operator.setitem)
        out = []
        for i, a in enumerate(n.args):
            self.in_index = index_op and i == 1
            try:
                out.append(self.arg(a))
            finally:
                self.in_index = False
        return out

    # -- nodes -------------------------------------------------------------------------------

    def node(self, n, owner):
        out = {
            "name": n.name,
            "op": n.op,
            "target": target_name(n),
            "args": self._args(n),
            "kwargs": {str(k): self.arg(v) for k, v in n.kwargs.items()},
            "val": (n.meta["cgscope_val"] if "cgscope_val" in n.meta
                    else self.val(_node_val(n))),
        }
        trace = n.meta.get("stack_trace")
        if trace:
            out["stack_trace"] = str(trace)
        path, mtype = _module_of(n, owner)
        if path is not None:
            out["module_path"] = path
            out["module_type"] = mtype
        return out

    def symbols_table(self):
        env = self.shape_env
        table = {}
        for name in sorted(self.symbols, key=_natural_key):
            sym = self.symbols[name]
            hint, lo, hi = None, None, None
            if env is not None:
                for attr in ("backed_var_to_val", "var_to_val", "unbacked_var_to_val"):
                    m = getattr(env, attr, None)
                    if isinstance(m, dict) and sym in m:
                        hint = _int_or_none(m[sym])
                        break
                rng = getattr(env, "var_to_range", {}).get(sym)
                if rng is not None:
                    lo, hi = _bound(rng.lower), _bound(rng.upper)
            table[name] = {"hint": hint, "min": lo, "max": hi}
        return table


def _plain_float(x):
    if math.isnan(x) or math.isinf(x):
        return None
    return x


def _int_or_none(x):
    try:
        return int(x)
    except Exception:
        return None


def _bound(x):
    if x is None:
        return None
    if getattr(x, "is_infinite", False) or str(x) in ("oo", "-oo", "int_oo", "-int_oo"):
        return None
    return _int_or_none(x)


_MOD_PATH_FIXES = [
    (re.compile(r"""getattr\(([^(),]+),\s*['"]([^'"]+)['"]\)"""), r"\1.\2"),
    (re.compile(r"""\._modules\[['"]([^'"]+)['"]\]"""), r".\1"),
    (re.compile(r"""\[['"]([^'"]+)['"]\]"""), r".\1"),
    (re.compile(r"""\[(\d+)\]"""), r".\1"),
]


def _module_path(text):
    """'L['self'].blocks[0].ln1' (Dynamo's spelling) -> 'blocks.0.ln1'."""
    p = str(text)
    p = re.sub(r"""^(L|G)\[['"][A-Za-z_]\w*['"]\]""", "", p)
    p = re.sub(r"""^self(?=\.|\[|$)""", "", p)
    for _ in range(8):
        q = p
        for rx, rep in _MOD_PATH_FIXES:
            q = rx.sub(rep, q)
        if q == p:
            break
        p = q
    p = re.sub(r"""^(L|G)\.self(?=\.|$)""", "", p)
    p = re.sub(r"\.{2,}", ".", p).strip(".")
    return p


def _type_name(t):
    if isinstance(t, str):
        return t
    if isinstance(t, type):
        return t.__module__ + "." + t.__qualname__
    return str(t)


def _module_of(node, owner):
    if "cgscope_module" in node.meta:
        return node.meta["cgscope_module"]
    if node.op == "call_module" and owner is not None:
        try:
            sub = owner.get_submodule(node.target)
            return str(node.target), _type_name(type(sub))
        except Exception:
            pass
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return None, None
    try:
        last = list(stack.values())[-1]
    except Exception:
        return None, None
    if isinstance(last, (tuple, list)) and len(last) >= 2:
        return _module_path(last[0]), _type_name(last[1])
    return None, None


def _graph_and_owner(gm):
    if isinstance(gm, torch.fx.GraphModule):
        return gm.graph, gm
    if isinstance(gm, torch.fx.Graph):
        return gm, gm.owning_module
    raise TypeError("cgscope_torch: expected an fx.GraphModule or fx.Graph, got %s"
                    % type(gm).__name__)


def _resolve_attr(owner, path):
    obj = owner
    for atom in str(path).split("."):
        obj = getattr(obj, atom)
    return obj


def to_json(gm, stage="other", name=None, is_inference=None, is_backward=None, compile_id=None):
    """The graph as a dict in the spec's shape (format, version, name, producer, symbols,
    nodes[, subgraphs]). Nested GraphModules that get_attr nodes name go to "subgraphs"."""
    if stage not in STAGES:
        raise ValueError("cgscope_torch: unknown stage '%s' (one of %s)"
                         % (stage, ", ".join(STAGES)))
    graph, owner = _graph_and_owner(gm)
    w = _Writer()
    nodes = [w.node(n, owner) for n in graph.nodes]

    subgraphs = {}
    work = [(graph, owner, "")]
    seen = set()
    while work:
        g, own, prefix = work.pop(0)
        for n in g.nodes:
            if n.op != "get_attr" or own is None:
                continue
            try:
                sub = _resolve_attr(own, n.target)
            except Exception:
                continue
            if not isinstance(sub, torch.fx.GraphModule) or id(sub) in seen:
                continue
            seen.add(id(sub))
            key = prefix + str(n.target)
            subgraphs[key] = {"nodes": [w.node(m, sub) for m in sub.graph.nodes]}
            work.append((sub.graph, sub, key + "."))

    producer = {"tool": "torch", "version": str(torch.__version__), "stage": stage}
    if is_inference is not None:
        producer["is_inference"] = bool(is_inference)
    if is_backward is not None:
        producer["is_backward"] = bool(is_backward)
    if compile_id is None:
        compile_id, _ = _compile_id()
    if compile_id is not None:
        producer["compile_id"] = str(compile_id)
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "name": name if name is not None else stage,
        "producer": producer,
        "symbols": w.symbols_table(),
        "nodes": nodes,
    }
    if subgraphs:
        doc["subgraphs"] = subgraphs
    return doc


def _encode(doc):
    """Compact JSON, one node per line (small, and diffs stay readable)."""
    def enc(x):
        return json.dumps(x, separators=(",", ":"), allow_nan=False)

    def node_list(nodes):
        if not nodes:
            return "[]"
        return "[\n" + ",\n".join(enc(n) for n in nodes) + "\n]"

    parts = []
    for key, value in doc.items():
        if key == "nodes":
            parts.append('"nodes":' + node_list(value))
        elif key == "subgraphs":
            subs = ",\n".join(enc(k) + ':{"nodes":' + node_list(v["nodes"]) + "}"
                              for k, v in value.items())
            parts.append('"subgraphs":{\n' + subs + "\n}")
        else:
            parts.append(enc(key) + ":" + enc(value))
    return "{" + ",".join(parts) + "}\n"


def _atomic_write(path, text):
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                               dir=folder)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)        # mkstemp makes 0600; a dump is an ordinary file
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    return path


def dump(gm, path, stage="other", name=None, is_inference=None, is_backward=None,
         compile_id=None):
    """Write gm (fx.GraphModule or fx.Graph) to path as cgscope graph JSON, atomically.

    stage is one of STAGES ("dynamo" for the graph a torch.compile backend receives,
    "post_grad" for the graph Inductor lowers, ...). Values come from node.meta["val"], or
    meta["example_value"] on Dynamo graphs. Returns the path."""
    if name is None:
        base = os.path.basename(os.fspath(path))
        name = base[:-5] if base.endswith(".json") else base
    doc = to_json(gm, stage=stage, name=name, is_inference=is_inference,
                  is_backward=is_backward, compile_id=compile_id)
    return _atomic_write(path, _encode(doc))


# ---------------------------------------------------------------------------------------------
# Splitting (MagiCompiler's rule, carried out by torch's split_module)
# ---------------------------------------------------------------------------------------------

class SplitItem:
    """One piece of a split graph: submodule name, graph id, whether it is a splitting op's
    own piece, and its GraphModule."""

    __slots__ = ("submod_name", "graph_id", "is_splitting_graph", "graph")

    def __init__(self, submod_name, graph_id, is_splitting_graph, graph):
        self.submod_name = submod_name
        self.graph_id = graph_id
        self.is_splitting_graph = is_splitting_graph
        self.graph = graph

    def __repr__(self):
        return "SplitItem(%s, %d, %s)" % (self.submod_name, self.graph_id,
                                          self.is_splitting_graph)


def _split_ops(ops):
    if isinstance(ops, str):
        ops = [o for o in ops.split(",") if o]
    return [str(o).replace("::", ".") for o in ops]


def _is_split_node(node, ops):
    """call_function nodes whose target is one of ops (the spec's target syntax). An operator
    packet name (aten.mm) matches all its overloads; an op named with its overload also
    matches the packet node Dynamo records (cgs.attention vs cgs.attention.default)."""
    if node.op != "call_function":
        return False
    name = target_name(node)
    if name in ops:
        return True
    t = node.target
    if isinstance(t, torch._ops.OpOverload):
        return str(t.overloadpacket) in ops
    if isinstance(t, torch._ops.OpOverloadPacket):
        return (name + ".default") in ops
    if _TARGET_TAG in node.meta:
        # a graph read back by load() whose operator is not registered in this process
        return node.meta.get("cgscope_kind") == "packet" and (name + ".default") in ops
    return False


def _partition(gm, ops):
    graph, _ = _graph_and_owner(gm)
    node_to_id = {}
    split_ids = set()
    sid = 0
    for node in graph.nodes:
        if node.op in ("placeholder", "output"):
            continue
        if _is_split_node(node, ops):
            sid += 1
            node_to_id[node] = sid
            split_ids.add(sid)
            sid += 1
        else:
            node_to_id[node] = sid
    return node_to_id, split_ids


def split_graph(gm, splitting_ops):
    """Split gm exactly as MagiCompiler does: every call_function node whose target is a
    splitting op gets a partition of its own, everything else stays in order between them,
    and torch.fx.passes.split_module(keep_original_order=True) builds the pieces.

    Returns (split_gm, [SplitItem...] sorted by graph_id). Each node of the pieces carries
    node.meta["cgscope_name"], the name of the node it came from."""
    from torch.fx.passes.split_module import split_module

    ops = _split_ops(splitting_ops)
    node_to_id, split_ids = _partition(gm, ops)
    graph, _ = _graph_and_owner(gm)
    added = []
    for node in graph.nodes:
        if _TAG not in node.meta:
            node.meta[_TAG] = node.name
            added.append(node)
    try:
        split_gm = split_module(gm, None, lambda n: node_to_id[n], keep_original_order=True)
    finally:
        for node in added:
            node.meta.pop(_TAG, None)
        for node in graph.nodes:
            if hasattr(node, "_fx_partition"):
                with contextlib.suppress(AttributeError):
                    delattr(node, "_fx_partition")
    items = []
    for name, mod in split_gm.named_children():
        if not name.startswith("submod_") or not name[7:].isdigit():
            continue
        gid = int(name[7:])
        items.append(SplitItem(name, gid, gid in split_ids, mod))
    items.sort(key=lambda it: it.graph_id)
    return split_gm, items


def _tag(node):
    return node.meta.get(_TAG, node.name)


def split_report(gm, splitting_ops, graph=None, items=None):
    """The split as the spec's CASE.split.json sidecar: {"graph", "splitting_ops",
    "pieces": [{"name", "graph_id", "is_splitting_graph", "nodes", "inputs", "outputs"}]},
    every name being the original node's name."""
    ops = _split_ops(splitting_ops)
    split_gm = None
    t0 = time.perf_counter()
    if items is None:
        split_gm, items = split_graph(gm, ops)
    elapsed = time.perf_counter() - t0
    pieces = []
    for it in items:
        nodes, inputs, outputs = [], [], []
        for n in it.graph.graph.nodes:
            if n.op == "placeholder":
                inputs.append(_tag(n))
            elif n.op == "output":
                res = n.args[0]
                if isinstance(res, (list, tuple)):
                    outputs.extend(_tag(x) for x in res if isinstance(x, torch.fx.Node))
                elif isinstance(res, torch.fx.Node):
                    outputs.append(_tag(res))
            elif n.op != "get_attr":
                nodes.append(_tag(n))
        pieces.append({"name": it.submod_name, "graph_id": it.graph_id,
                       "is_splitting_graph": it.is_splitting_graph, "nodes": nodes,
                       "inputs": inputs, "outputs": outputs})
    rep = {"graph": graph, "splitting_ops": ops}
    if split_gm is not None:
        rep["call_order"] = [n.target for n in split_gm.graph.nodes if n.op == "call_module"]
        rep["split_op_graph_ids"] = [it.graph_id for it in items if it.is_splitting_graph]
        rep["split_module_s"] = elapsed
    rep["pieces"] = pieces
    return rep


# ---------------------------------------------------------------------------------------------
# Reading: JSON -> fx (for split checks)
# ---------------------------------------------------------------------------------------------

def _stand_in(name):
    short = re.sub(r"\W", "_", name.rpartition(".")[2]) or "op"

    def stand_in(*args, **kwargs):
        raise RuntimeError("cgscope_torch: '%s' is a stand-in read from JSON" % name)

    stand_in.__name__ = short
    stand_in.__qualname__ = short
    stand_in.__module__ = "cgscope_torch.targets"
    return stand_in


def _resolve_target(name):
    """The real callable a spec target names, where it is safe to find; None otherwise."""
    head, _, rest = name.partition(".")
    if not rest:
        return None
    try:
        if head in ("operator", "builtins", "math") and "." not in rest:
            return getattr(importlib.import_module(head), rest)
        if head == "torch":
            parts = name.split(".")
            for cut in range(len(parts) - 1, 0, -1):
                modname = ".".join(parts[:cut])
                try:
                    obj = importlib.import_module(modname)
                except Exception:
                    continue
                for atom in parts[cut:]:
                    obj = getattr(obj, atom)
                return obj if callable(obj) else None
            return None
        parts = name.split(".")
        if len(parts) in (2, 3) and re.match(r"^[a-z][a-z0-9_]*$", head):
            obj = getattr(torch.ops, head)
            for atom in parts[1:]:
                obj = getattr(obj, atom)
            if isinstance(obj, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
                return obj
            return None
    except Exception:
        return None
    return None


class _Reader:
    def __init__(self, symbols, dynamo):
        import sympy
        self.sympy = sympy
        self.dynamo = dynamo
        self.hints = {k: (v or {}).get("hint") for k, v in (symbols or {}).items()}
        self.syms = {}
        self.shape_env = None

    def symbol(self, name):
        s = self.syms.get(name)
        if s is None:
            s = self.syms[name] = self.sympy.Symbol(name, integer=True, positive=True)
        return s

    def free(self, text):
        names = re.findall(r"[A-Za-z_]\w*", str(text))
        return [self.symbol(n) for n in names if n in self.hints or re.match(r"^[suq]\d+$", n)]

    def symint(self, expr, hint):
        if self.shape_env is None:
            from torch.fx.experimental.symbolic_shapes import ShapeEnv
            self.shape_env = ShapeEnv()
        return self.shape_env.create_symintnode(self.symbol(expr), hint=hint)

    def meta_val(self, v):
        """What split_module reads from meta["example_value"]: SymInts for symbol-valued
        nodes (symbol_to_node), and the free symbols of everything else."""
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, list):
            return [self.meta_val(x) for x in v]
        if isinstance(v, dict):
            if "symint" in v:
                expr = str(v["symint"]).strip()
                if re.match(r"^[A-Za-z_]\w*$", expr):
                    try:
                        return self.symint(expr, v.get("hint"))
                    except Exception:
                        return [self.symbol(expr)]
                return self.free(expr)
            for key in ("symfloat", "symbool"):
                if key in v:
                    return self.free(v[key])
            out = []
            for key in ("shape", "stride"):
                for d in v.get(key) or []:
                    if isinstance(d, str):
                        out.extend(self.free(d))
            if isinstance(v.get("storage_offset"), str):
                out.extend(self.free(v["storage_offset"]))
            return out
        return None

    def arg(self, a, env):
        if isinstance(a, list):
            return [self.arg(x, env) for x in a]
        if not isinstance(a, dict):
            return a
        if "node" in a:
            return env[a["node"]]
        if "list" in a:
            return [self.arg(x, env) for x in a["list"]]
        if "dict" in a:
            return {self.arg(k, env): self.arg(v, env) for k, v in a["dict"]}
        if "dtype" in a:
            return getattr(torch, a["dtype"], None) or a["dtype"]
        if "device" in a:
            return torch.device(a["device"])
        if "memory_format" in a:
            return getattr(torch, a["memory_format"], None) or a["memory_format"]
        if "layout" in a:
            return getattr(torch, a["layout"], None) or a["layout"]
        if "slice" in a:
            s = [self.arg(x, env) for x in a["slice"]]
            return slice(*s)
        if "float" in a:
            return float(a["float"])
        if "ellipsis" in a:
            return Ellipsis
        if "repr" in a:
            return str(a["repr"])
        return None


def _args_tuple(args):
    # FX keeps list args as lists and the outer container as a tuple
    return tuple(args)


def _build_graph(nodes, reader, root, subs_by_name):
    graph = torch.fx.Graph()
    env = {}
    for nd in nodes:
        op = nd["op"]
        name = nd["name"]
        tname = nd.get("target")
        if op == "call_function":
            target = _resolve_target(tname)
            kind = None
            if isinstance(target, torch._ops.OpOverloadPacket):
                kind = "packet"
            if target is None:
                target = _stand_in(tname)
                if tname.count(".") == 1 and tname.split(".")[0] not in ("operator", "builtins",
                                                                       "math", "torch"):
                    kind = "packet"
        elif op == "output":
            target = "output"
        else:
            target = str(tname)
        args = reader.arg(nd.get("args") or [], env)
        kwargs = {k: reader.arg(v, env) for k, v in (nd.get("kwargs") or {}).items()}
        if op == "output":
            node = graph.output(args[0] if args else None)
        else:
            node = graph.create_node(op, target, _args_tuple(args), kwargs, name=name)
        env[name] = node
        node.meta[_TAG] = name
        if op == "call_function":
            node.meta[_TARGET_TAG] = tname
            if kind:
                node.meta["cgscope_kind"] = kind
        node.meta["cgscope_val"] = nd.get("val")
        if nd.get("stack_trace"):
            node.meta["stack_trace"] = nd["stack_trace"]
        if nd.get("module_path") is not None:
            node.meta["cgscope_module"] = (nd["module_path"], nd.get("module_type"))
        mv = reader.meta_val(nd.get("val"))
        if op != "output":
            node.meta["example_value" if reader.dynamo else "val"] = mv
        if op in ("get_attr", "call_module"):
            _install_attr(root, target, subs_by_name.get(target), op)
    return graph


def _install_attr(root, path, sub, op):
    atoms = path.split(".")
    obj = root
    for atom in atoms[:-1]:
        nxt = getattr(obj, atom, None)
        if nxt is None:
            nxt = torch.nn.Module()
            setattr(obj, atom, nxt)
        obj = nxt
    if hasattr(obj, atoms[-1]):
        return
    if sub is not None:
        setattr(obj, atoms[-1], sub)
    elif op == "call_module":
        setattr(obj, atoms[-1], torch.nn.Identity())
    else:
        obj.register_buffer(atoms[-1], torch.empty(0))


def load(source):
    """Read cgscope graph JSON (a path, or an already parsed dict) back into an
    fx.GraphModule good for split_module: call_function targets are the real callables
    where they can be found (operator.*, torch.*, registered torch.ops) and stand-ins
    otherwise; node.meta["cgscope_name"]/["cgscope_target"] keep the names and targets,
    node.meta["cgscope_val"] the JSON value; meta["example_value"] (Dynamo graphs) holds
    what split_module reads from it: SymInts for symbol-valued nodes and the free symbols
    of tensors."""
    if isinstance(source, dict):
        doc = source
    else:
        with open(os.fspath(source), encoding="utf-8") as f:
            doc = json.load(f)
    if doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise ValueError("cgscope_torch: not a cgscope graph (format %r, version %r)"
                         % (doc.get("format"), doc.get("version")))
    stage = (doc.get("producer") or {}).get("stage")
    reader = _Reader(doc.get("symbols"), dynamo=(stage == "dynamo"))
    root = torch.nn.Module()
    subs = {}
    sub_docs = doc.get("subgraphs") or {}
    # innermost first, so a body's own get_attr targets exist when it is built
    for key in sorted(sub_docs, key=lambda k: -k.count(".")):
        sub_root = torch.nn.Module()
        inner = {k[len(key) + 1:]: v for k, v in subs.items() if k.startswith(key + ".")}
        g = _build_graph(sub_docs[key]["nodes"], reader, sub_root, inner)
        subs[key] = torch.fx.GraphModule(sub_root, g)
    top = {k: v for k, v in subs.items()}
    graph = _build_graph(doc["nodes"], reader, root, top)
    gm = torch.fx.GraphModule(root, graph)
    gm.meta["cgscope_doc"] = {k: v for k, v in doc.items() if k not in ("nodes", "subgraphs")}
    return gm


# ---------------------------------------------------------------------------------------------
# Events (docs/dashboard.md, "The events it reads")
# ---------------------------------------------------------------------------------------------

class EventLog:
    """Appends one JSON object per line to a file (O_APPEND, one write per line), or keeps
    them in memory when path is None. Every event has ts, event, graph_index, runtime_shape,
    backend and key; extra keys are added freely."""

    def __init__(self, path=None):
        self.path = os.fspath(path) if path is not None else None
        self.lines = []
        self._lock = threading.Lock()
        self._fd = None
        if self.path is not None:
            folder = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(folder, exist_ok=True)

    def emit(self, event, graph_index=None, runtime_shape=None, backend=None, key=None,
             ms=None, **extra):
        if event not in EVENTS:
            raise ValueError("cgscope_torch: unknown event '%s'" % event)
        rec = {"ts": time.time(), "event": event, "graph_index": graph_index,
               "runtime_shape": runtime_shape, "backend": backend, "key": key}
        if ms is not None:
            rec["ms"] = round(float(ms), 4)
        for k, v in extra.items():
            if v is not None:
                rec[k] = v
        line = json.dumps(rec, separators=(", ", ": "), allow_nan=False) + "\n"
        with self._lock:
            self.lines.append(rec)
            if self.path is not None:
                if self._fd is None:
                    self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                data = line.encode("utf-8")
                while data:
                    n = os.write(self._fd, data)
                    data = data[n:]
        return rec

    def close(self):
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


# ---------------------------------------------------------------------------------------------
# torch.compile backends
# ---------------------------------------------------------------------------------------------

def _compile_id():
    """Dynamo's compile id of the frame being compiled, as (text, frame_compile_id)."""
    try:
        from torch._guards import CompileContext
        cid = CompileContext.current_compile_id()
    except Exception:
        cid = None
    if cid is None:
        return None, None
    attempt = getattr(cid, "frame_compile_id", None)
    return str(cid), attempt


def _safe(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text)).strip("_") or "graph"


def _nvtx_push(name):
    try:
        if torch.cuda.is_available():
            torch.cuda.nvtx.range_push(name)
            return True
    except Exception:
        pass
    return False


def _nvtx_pop():
    try:
        torch.cuda.nvtx.range_pop()
    except Exception:
        pass


class CgscopeDumpError(RuntimeError):
    """A graph could not be written (strict backends raise it: nothing was half-written)."""


def _inductor_options(mode=None, options=None):
    """Inductor's config patches for torch.compile's mode= and options=, as torch.compile's
    own Inductor wrapper derives them: the mode's preset (list_mode_options), then options,
    each key checked against torch._inductor.config."""
    cfg = {}
    if mode not in (None, "default"):
        from torch._inductor import list_mode_options
        if mode not in list_mode_options():
            raise RuntimeError("cgscope_torch: unknown torch.compile mode %r (one of %s)"
                               % (mode, ", ".join(sorted(list_mode_options()))))
        cfg.update(list_mode_options(mode))
    if options:
        import torch._inductor.config as inductor_config
        known = inductor_config.get_config_copy()
        for key, value in dict(options).items():
            name = key.replace("-", "_")
            if name not in known:
                raise RuntimeError("cgscope_torch: unknown Inductor option %r" % key)
            cfg[name] = value
    return cfg


class DumpBackend:
    """torch.compile backend: dumps every frame's Dynamo graph to folder (and, with
    post_grad=True, each post-grad graph Inductor lowers), then compiles with Inductor
    (compiler="inductor") or runs the graph as it is (compiler="eager").

    Files: <prefix><id>.dynamo.json and <prefix><id>.post_grad.<inference|forward|backward>
    [.N].json, where id is Dynamo's compile id ("0_0": frame 0, first compile). With
    splits={"attn": ["cgs.attention"]} each Dynamo graph also gets <...>.split-attn.json, the
    split torch's split_module makes (the spec's sidecar). self.dumps lists what was written;
    self.graphs keeps (path, GraphModule) of each Dynamo graph."""

    def __init__(self, folder, post_grad=False, compiler="inductor", prefix="", splits=None,
                 strict=True, mode=None, options=None):
        if compiler not in ("inductor", "eager"):
            raise ValueError("cgscope_torch: compiler must be 'inductor' or 'eager'")
        self.mode = mode
        self.options = dict(options or {})
        _inductor_options(mode, options)   # a bad mode or option fails here, not mid-run
        self.folder = os.fspath(folder)
        self.post_grad = post_grad
        self.compiler = compiler
        self.prefix = prefix
        self.splits = dict(splits or {})
        self.strict = strict
        self.dumps = []
        self.graphs = []
        self.errors = []
        self._count = 0
        self._local = threading.local()

    def _fail(self, what, exc):
        self.errors.append("%s: %s: %s" % (what, type(exc).__name__, exc))
        if self.strict:
            raise CgscopeDumpError("cgscope_torch: %s failed: %s: %s (strict=False writes what "
                                   "it can and reports the rest at exit)"
                                   % (what, type(exc).__name__, exc)) from exc
        import warnings
        warnings.warn("cgscope_torch: %s failed: %s" % (what, exc))
        sys.stderr.write("cgscope_torch: error: %s failed: %s\n" % (what, exc))
        if not getattr(self, "_atexit", False):
            import atexit
            self._atexit = True
            atexit.register(self._report_errors)

    def _report_errors(self):
        if self.errors:
            sys.stderr.write("cgscope_torch: error: %d graph dump%s FAILED in this run; the "
                             "files listed below were not written:\n"
                             % (len(self.errors), "" if len(self.errors) == 1 else "s"))
            for e in self.errors:
                sys.stderr.write("  %s\n" % e)

    def __call__(self, gm, example_inputs, mode=None, options=None):
        # torch.compile(model, backend=this, mode=..., options=...) passes them here
        if mode is not None or options:
            self.mode = mode if mode is not None else self.mode
            self.options.update(options or {})
        text, _ = _compile_id()
        ident = _safe(text) if text is not None else str(self._count)
        self._count += 1
        base = os.path.join(self.folder, "%s%s" % (self.prefix, ident))
        try:
            path = dump(gm, base + ".dynamo.json", stage="dynamo")
            self.dumps.append(path)
            self.graphs.append((path, gm))
            for key, ops in self.splits.items():
                rep = split_report(gm, ops, graph=os.path.basename(path))
                sp = base + ".split-%s.json" % _safe(key)
                _atomic_write(sp, json.dumps(rep, separators=(",", ":")) + "\n")
                self.dumps.append(sp)
        except Exception as exc:
            self._fail("dump of %s" % base, exc)
        if self.compiler == "eager":
            return gm.forward
        from torch._inductor.compile_fx import compile_fx
        patches = _inductor_options(self.mode, self.options)
        if not self.post_grad:
            return compile_fx(gm, example_inputs, config_patches=patches)
        return self._compile_with_post_grad(gm, example_inputs, base, patches)

    def _compile_with_post_grad(self, gm, example_inputs, base, user_patches=None):
        """Compiles with Inductor, dumping each graph Inductor lowers: the graph as it is after
        Inductor's post-grad passes (torch._inductor.compile_fx._recursive_post_grad_passes,
        reinplacing and the decomposition of auto_functionalized included), the graph a
        TORCH_TRACE log holds as inductor_post_grad_graph. A higher-order op's bodies pass
        through those passes first, each as a graph of its own: they are written as
        <...>.post_grad.<kind>[.N].sub<K>.json, the main graph as <...>.post_grad.<kind>[.N].json.
        The backward graph is compiled when the backward first runs, after compile_fx has
        returned: the hook stays installed, and the inner compile (which compile_fx hands the
        backward's compiler too) says where its graphs go."""
        import inspect
        from torch._inductor.compile_fx import compile_fx, compile_fx_inner

        local = self._local
        counts = {}
        backend = self

        def write(graph, depth):
            is_inference, is_backward = getattr(local, "flags", None) or (None, None)
            kind = ("backward" if is_backward else "inference" if is_inference else
                    "forward" if is_inference is not None else "graph")
            n = counts.get(kind, 0)
            name = "%s.post_grad.%s%s" % (base, kind, "" if n == 0 else ".%d" % n)
            if depth:
                k = counts.get((kind, n), 0)
                counts[(kind, n)] = k + 1
                name += ".sub%d" % k
            else:
                counts[kind] = n + 1
            path = name + ".json"
            try:
                dump(graph, path, stage="post_grad", is_inference=is_inference,
                     is_backward=is_backward)
                backend.dumps.append(path)
            except Exception as exc:
                backend._fail("post-grad dump %s" % path, exc)

        hooked = _install_post_grad_hook()

        def inner(gm_, example_inputs_, **kwargs):
            saved = getattr(local, "flags", None), getattr(_HOOK, "writer", None)
            # compile_fx passes is_inference to forward/inference graphs and is_backward
            # to backward graphs; an absent flag is false
            local.flags = (bool(kwargs.get("is_inference", False)),
                           bool(kwargs.get("is_backward", False)))
            _HOOK.writer = write if hooked else None
            try:
                return compile_fx_inner(gm_, example_inputs_, **kwargs)
            finally:
                local.flags, _HOOK.writer = saved

        patches = dict(user_patches or {})
        patches["fx_graph_cache"] = False
        if not hooked:
            # an older torch: the last custom pass Inductor offers (before reinplacing)
            from torch._inductor.custom_graph_pass import CustomGraphPass

            class _DumpPass(CustomGraphPass):
                def __call__(self, graph):
                    write(graph, 0)

                def uuid(self):
                    return None   # never cache: a cached graph would skip the dump

            patches["post_grad_custom_post_pass"] = _DumpPass()
        kw = {"config_patches": patches}
        if "inner_compile" in inspect.signature(compile_fx).parameters:
            kw["inner_compile"] = inner
        ctx = contextlib.nullcontext()
        try:
            import torch._functorch.config as functorch_config
            if hasattr(functorch_config, "enable_autograd_cache"):
                ctx = functorch_config.patch(enable_autograd_cache=False)
        except Exception:
            pass
        with ctx:
            return compile_fx(gm, example_inputs, **kw)


# The hook on Inductor's post-grad passes (installed once, for the process): after
# _recursive_post_grad_passes has run on a graph, the writer the current inner compile set
# (a thread's own) gets it, with its depth (0: the graph being compiled; 1 and more: a
# higher-order op's body, which the passes visit first). Without a writer it only counts.
_HOOK = threading.local()


def _install_post_grad_hook():
    try:
        from torch._inductor import compile_fx as cfx
    except Exception:
        return False
    original = getattr(cfx, "_recursive_post_grad_passes", None)
    if original is None:
        return False
    if getattr(original, "_cgscope_hook", False):
        return True

    def recursive_post_grad_passes(gm_, *args, **kwargs):
        depth = getattr(_HOOK, "depth", 0)
        _HOOK.depth = depth + 1
        try:
            result = original(gm_, *args, **kwargs)
        finally:
            _HOOK.depth = depth
        writer = getattr(_HOOK, "writer", None)
        if writer is not None:
            writer(gm_, depth)
        return result

    recursive_post_grad_passes._cgscope_hook = True
    recursive_post_grad_passes.__wrapped__ = original
    cfx._recursive_post_grad_passes = recursive_post_grad_passes
    return True


def dump_backend(folder, post_grad=False, compiler="inductor", prefix="", splits=None,
                 strict=True, mode=None, options=None):
    """A torch.compile backend that writes the graphs it sees into folder (see DumpBackend):
    torch.compile(model, backend=cgscope_torch.dump_backend("graphs")). torch.compile's own
    mode= and options= reach it and Inductor compiles with them (mode and options here do
    the same). A dump that fails raises CgscopeDumpError (strict=False: a warning, an error
    line on stderr, and at exit the list of what was not written)."""
    return DumpBackend(folder, post_grad=post_grad, compiler=compiler, prefix=prefix,
                       splits=splits, strict=strict, mode=mode, options=options)


class _Piece:
    """The callable that replaces one submodule of the split graph: dispatches on the runtime
    shape, keeps the per-piece cache, logs events, and marks the call with NVTX."""

    def __init__(self, owner, state, item, graph_index):
        self.owner = owner
        self.state = state
        self.item = item
        self.name = item.submod_name
        # "cgscope:0/0/submod_1": the Dynamo graph's compile id keeps apart the pieces of the
        # several graphs a model with graph breaks makes, each with its own submod_0
        self.range_name = "cgscope:%s/%s" % (state.ident, self.name)
        self.graph_index = graph_index          # None for a splitting op's piece
        self.sym_shape_indices = []
        self.calls = 0
        self.graphs = {}                        # cudagraph=True: runtime shape -> state

    def _lookup(self, runtime_shape, args):
        owner, state = self.owner, self.state
        key = (runtime_shape, self.graph_index, owner.compiler)
        t0 = time.perf_counter()
        fn = state.cache.get(key)
        label = "artifact_shape_%s_subgraph_%s" % (runtime_shape, self.graph_index)
        if fn is not None:
            owner.log.emit("cache_hit", self.graph_index, runtime_shape, owner.compiler, label,
                           ms=(time.perf_counter() - t0) * 1e3, graph=state.ident,
                           piece=self.name)
            return fn
        owner.log.emit("cache_miss", self.graph_index, runtime_shape, owner.compiler, label,
                       graph=state.ident, piece=self.name)
        fn = owner._compile(state, self, args, runtime_shape, label)
        return fn

    def _graph_call(self, runtime_shape, fn, args):
        """cudagraph=True: the first call per runtime shape runs as is (warm-up), the second
        captures the piece into a CUDA graph (inside its NVTX range), later calls copy the
        inputs into the captured ones and replay. Parameters are captured in place; the
        outputs are the graph's own buffers, overwritten by the next replay (as in vLLM)."""
        state = self.graphs.get(runtime_shape)
        if state is None:
            self.graphs[runtime_shape] = "warm"
            return fn(*args)
        if state == "warm":
            static = [a if not isinstance(a, torch.Tensor) or isinstance(a, torch.nn.Parameter)
                      else a.clone() for a in args]
            copy = [i for i, a in enumerate(args)
                    if isinstance(a, torch.Tensor) and not isinstance(a, torch.nn.Parameter)]
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                fn(*static)
            torch.cuda.current_stream().wait_stream(side)
            if self.owner.graph_pool is None:
                self.owner.graph_pool = torch.cuda.graph_pool_handle()
            t0 = time.perf_counter()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, pool=self.owner.graph_pool):
                out = fn(*static)
            state = self.graphs[runtime_shape] = (graph, static, copy, out)
            # each capture is an event: a piece captured again at the same shape (its cache
            # entry replaced) is a re-capture, which `cgscope top` shows per row
            self.owner.log.emit("cudagraph_capture", self.graph_index, runtime_shape,
                                self.owner.compiler, None,
                                ms=(time.perf_counter() - t0) * 1e3, graph=self.state.ident,
                                piece=self.name)
        graph, static, copy, out = state
        for i in copy:
            static[i].copy_(args[i])
        graph.replay()
        return out

    def __call__(self, *args):
        self.calls += 1
        owner = self.owner
        pushed = owner.nvtx and _nvtx_push(self.range_name)
        t0 = time.perf_counter()
        try:
            if self.graph_index is None:
                out = self.item.graph(*args)
                runtime_shape = None
            else:
                runtime_shape = None
                if self.sym_shape_indices:
                    runtime_shape = int(args[self.sym_shape_indices[0]])
                    if owner.compile_sizes is not None and \
                            runtime_shape not in owner.compile_sizes:
                        runtime_shape = None
                fn = self._lookup(runtime_shape, args)
                if owner.cudagraph:
                    out = self._graph_call(runtime_shape, fn, args)
                else:
                    out = fn(*args)
            if owner.sync and torch.cuda.is_available():
                torch.cuda.synchronize()
        finally:
            if pushed:
                _nvtx_pop()
        backend = None if self.graph_index is None else owner.compiler
        owner.log.emit("piece_run", self.graph_index, runtime_shape, backend, None,
                       ms=(time.perf_counter() - t0) * 1e3, graph=self.state.ident,
                       piece=self.name, graph_id=self.item.graph_id,
                       is_splitting_graph=self.item.is_splitting_graph)
        return out


class _GraphState:
    def __init__(self, ident):
        self.ident = ident
        self.cache = {}
        self.pieces = []


class PiecewiseBackend:
    """MagiCompiler's piecewise model as a torch.compile backend (see piecewise_backend)."""

    def __init__(self, splitting_ops, events=None, compiler="inductor", compile_sizes=None,
                 nvtx=True, sync=False, dump_dir=None, mode=None, options=None,
                 cudagraph=False):
        if compiler not in ("inductor", "eager"):
            raise ValueError("cgscope_torch: compiler must be 'inductor' or 'eager'")
        self.mode = mode
        self.options = dict(options or {})
        _inductor_options(mode, options)
        self.splitting_ops = _split_ops(splitting_ops)
        if events is None:
            # `cgscope top -- CMD` points CGSCOPE_EVENTS at the file it follows
            events = os.environ.get("CGSCOPE_EVENTS") or None
        self.log = events if isinstance(events, EventLog) else EventLog(events)
        self.compiler = compiler
        self.compile_sizes = None if compile_sizes is None else set(int(s) for s in compile_sizes)
        self.nvtx = nvtx
        self.sync = sync
        self.cudagraph = bool(cudagraph) and torch.cuda.is_available()
        self.graph_pool = None
        self.dump_dir = dump_dir
        self.graphs = []            # _GraphState per Dynamo graph
        self.split_items = []       # [SplitItem...] per Dynamo graph
        self.errors = []
        self._calls = 0

    # -- compile one piece -------------------------------------------------------------------

    def _compile(self, state, piece, args, runtime_shape, label):
        key = (runtime_shape, piece.graph_index, self.compiler)
        self.log.emit("compile_start", piece.graph_index, runtime_shape, self.compiler, label,
                      graph=state.ident, piece=piece.name)
        t0 = time.perf_counter()
        error = None
        if self.compiler == "eager":
            fn = piece.item.graph
        else:
            try:
                fn = _inductor_compile(piece.item.graph, list(args), runtime_shape,
                                       _inductor_options(self.mode, self.options))
            except Exception as exc:
                error = "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc)
                                    else "")
                self.errors.append("%s %s: %s" % (state.ident, label, error))
                fn = piece.item.graph
        ms = (time.perf_counter() - t0) * 1e3
        self.log.emit("compile_end", piece.graph_index, runtime_shape, self.compiler, label,
                      ms=ms, graph=state.ident, piece=piece.name, error=error)
        state.cache[key] = fn
        self.log.emit("cache_store", piece.graph_index, runtime_shape, self.compiler, label,
                      graph=state.ident, piece=piece.name)
        return fn

    # -- the backend -------------------------------------------------------------------------

    def __call__(self, gm, example_inputs, mode=None, options=None):
        if mode is not None or options:
            self.mode = mode if mode is not None else self.mode
            self.options.update(options or {})
        text, attempt = _compile_id()
        ident = text if text is not None else str(self._calls)
        if (attempt is not None and attempt > 0) or (attempt is None and self._calls > 0):
            self.log.emit("recompile", None, None, self.compiler, "frame_" + _safe(ident),
                          graph=ident)
        self._calls += 1
        if self.dump_dir is not None:
            base = os.path.join(self.dump_dir, _safe(ident))
            dump(gm, base + ".dynamo.json", stage="dynamo")
            rep = split_report(gm, self.splitting_ops,
                               graph=os.path.basename(base) + ".dynamo.json")
            _atomic_write(base + ".split.json", json.dumps(rep, separators=(",", ":")) + "\n")

        split_gm, items = split_graph(gm, self.splitting_ops)
        state = _GraphState(ident)
        index = 0
        for it in items:
            gi = None
            if not it.is_splitting_graph:
                gi = index
                index += 1
            state.pieces.append(_Piece(self, state, it, gi))
        self.graphs.append(state)
        self.split_items.append(items)

        # MagiCompiler compiles every non-splitting piece for the general shape at once, on
        # fake inputs that carry Dynamo's symbolic sizes.
        _GeneralCompile(split_gm, self, state, example_inputs).run_all()

        for piece in state.pieces:
            split_gm.__dict__[piece.name] = piece
        return split_gm


def _inductor_compile(submod, args, runtime_shape, options=None):
    from torch._inductor import standalone_compile
    if runtime_shape is None:
        mode = "from_tracing_context"
        try:
            from torch._guards import TracingContext
            if TracingContext.try_get() is None:
                mode = "from_graph"
        except Exception:
            pass
    else:
        mode = "from_example_inputs"
    # standalone_compile's options are compile_fx's keyword arguments, not config: the
    # user's mode and options are Inductor config, patched in around the compile
    import torch._inductor.config as inductor_config
    with inductor_config.patch(dict(options or {})):
        return standalone_compile(submod, args, dynamic_shapes=mode, options={})


class _GeneralCompile(torch.fx.Interpreter):
    """Runs the split graph once on fake inputs and compiles each non-splitting piece for
    the general (possibly symbolic) shape as it is reached, as MagiCompiler does."""

    def __init__(self, split_gm, backend, state, example_inputs):
        super().__init__(split_gm)
        self.backend = backend
        self.state = state
        self.example_inputs = list(example_inputs)
        self.by_name = {p.name: p for p in state.pieces}
        self.extra_traceback = False

    def _fake_args(self):
        placeholders = [n for n in self.module.graph.nodes if n.op == "placeholder"]
        values = [n.meta.get("example_value") for n in placeholders]
        mode = None
        try:
            from torch._guards import detect_fake_mode
            mode = detect_fake_mode(self.example_inputs)
        except Exception:
            mode = None
        if mode is None:
            for v in values:
                mode = getattr(v, "fake_mode", None)
                if mode is not None:
                    break
        args = []
        for i, t in enumerate(self.example_inputs):
            ev = values[i] if i < len(values) else None
            if ev is not None and (isinstance(ev, torch.SymInt) or
                                   getattr(ev, "fake_mode", None) is mode and mode is not None):
                args.append(ev)
            elif isinstance(t, torch.Tensor) and mode is not None:
                args.append(mode.from_tensor(t))
            else:
                args.append(t)
        return mode, args

    def run_all(self):
        mode, args = self._fake_args()
        ctx = contextlib.ExitStack()
        with ctx:
            if mode is not None:
                ctx.enter_context(mode)
                try:
                    from torch._dispatch.python import enable_python_dispatcher
                    ctx.enter_context(enable_python_dispatcher())
                except Exception:
                    pass
            return self.run(*args)

    def call_module(self, target, args, kwargs):
        out = super().call_module(target, args, kwargs)
        piece = self.by_name.get(target)
        if piece is None or piece.graph_index is None:
            return out
        piece.sym_shape_indices = [i for i, a in enumerate(args) if isinstance(a, torch.SymInt)]
        label = "artifact_shape_None_subgraph_%d" % piece.graph_index
        self.backend.log.emit("cache_miss", piece.graph_index, None, self.backend.compiler, label,
                              graph=self.state.ident, piece=piece.name)
        self.backend._compile(self.state, piece, args, None, label)
        return out


def piecewise_backend(splitting_ops, events=None, compiler="inductor", compile_sizes=None,
                      nvtx=True, sync=False, dump_dir=None, mode=None, options=None,
                      cudagraph=False):
    """A torch.compile backend that runs the model piecewise, as MagiCompiler does.

    splitting_ops: targets in the spec's syntax ("cgs.attention",
    "torch._C._nn.scaled_dot_product_attention", "aten.mm" for every overload). The Dynamo
    graph is split at them; each other piece is compiled (compiler "inductor" or "eager")
    for the general shape when the frame is compiled, then for each runtime shape (the first
    symbolic size argument of the piece) on first use: all shapes when compile_sizes is None,
    else only those listed (the others run the general compile). The cache is keyed by
    (runtime_shape, graph_index, backend), graph_index counting only the compiled pieces.

    events: a path (JSON lines appended) or an EventLog (default: $CGSCOPE_EVENTS, which
    `cgscope top -- CMD` sets, else kept in memory); the events are compile_start,
    compile_end, cache_hit, cache_miss, cache_store, recompile and piece_run. Each piece's call
    is wrapped in the NVTX range "cgscope:<compile id>/submod_N" (nvtx=False turns that off); sync=True
    synchronizes the GPU after each piece so piece_run's ms is the piece's time.
    cudagraph=True runs each compiled piece as a CUDA graph per runtime shape, as vLLM and
    MagiCompiler do (warm-up, capture on the second call, then replays; splitting-op pieces
    stay eager); `cgscope profile` attributes the replayed kernels to the piece."""
    return PiecewiseBackend(splitting_ops, events=events, compiler=compiler,
                            compile_sizes=compile_sizes, nvtx=nvtx, sync=sync,
                            dump_dir=dump_dir, mode=mode, options=options,
                            cudagraph=cudagraph)


def _main(argv):
    """python3 cgscope_torch.py split GRAPH.json OP[,OP]: torch's split as sidecar JSON."""
    if len(argv) == 3 and argv[0] == "split":
        rep = split_report(load(argv[1]), argv[2], graph=os.path.basename(argv[1]))
        sys.stdout.write(json.dumps(rep, indent=1) + "\n")
        return 0
    sys.stderr.write("usage: python3 cgscope_torch.py split GRAPH.json OP[,OP]\n")
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
