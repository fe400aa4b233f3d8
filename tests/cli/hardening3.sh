#!/bin/sh
# Hardening, round 3 (issue 41): each class of hostile input met on the landed build, made here
# (large inputs are generated, not committed), and what cgscope must do with it.
. tests/cli/lib.sh

# right-associative power chains (x ** 2 ** 2 ** ...) recursed once per operator without a
# bound: SIGSEGV from any GRAPH command; now a depth limit, exit 2 naming the place
python3 - "$T" <<'PY'
import lzma, sys
chain = " ** ".join(["x"] + ["2"] * 200000)
py = ('class GraphModule(torch.nn.Module):\n    def forward(self, x: "f32[4]"):\n'
      '        y = %s\n        return (y,)\n' % chain)
open(sys.argv[1] + "/pow.py", "w").write(py)
# the same graph in a TORCH_TRACE log (a few hundred bytes once compressed)
rec = ('V1205 00:00:00.000000 1 torch/_dynamo/output_graph.py:1] {"dynamo_output_graph": '
       '{"sizes": {}}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "x"}\n')
body = "".join("\t" + l + "\n" for l in py.rstrip("\n").split("\n"))
with lzma.open(sys.argv[1] + "/pow.log.xz", "wt") as f:
    f.write(rec + body)
PY
for cmd in info shapes split; do
    check "$cmd on a power chain" 2 "$CGSCOPE" $cmd "$T/pow.py"
    has "$cmd names the place" "$err" "pow.py:3:"
    has "$cmd says why" "$err" "nested deeper than 64 levels"
done
check "graphs of a log with a power chain: every graph unread is bad input" 2 "$CGSCOPE" graphs "$T/pow.log.xz"
has "the graph is said not read" "$err" "nested deeper than 64 levels"
finish
