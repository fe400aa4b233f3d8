/*
 * A graph from its printed Python: what torch.fx's GraphModule.print_readable() writes, the
 * form TORCH_TRACE logs carry their graphs in (dynamo_output_graph, inductor_post_grad_graph,
 * aot_forward_graph, ...) and vLLM / MagiCompiler keep a split graph in
 * (computation_graph.py). Nothing is evaluated: the text is read as the fixed shapes FX's code
 * generator writes, one node a statement:
 *
 *   class GraphModule(torch.nn.Module):
 *       class wrap_body_0(torch.nn.Module):          a nested class: a subgraph (HOP body,
 *           def forward(self, ...): ...                  split piece), kept under its name
 *       def forward(self, L_x_: "f32[s0, 3][3, 1]cuda:0", s0: "Sym(s0)"):   placeholders
 *           l_x_ = L_x_                               the placeholder's node name
 *           # File: /m.py:12 in forward, code: y = x.relu()        the source line
 *           y: "f32[s0, 3][3, 1]cuda:0" = torch.relu(l_x_);  l_x_ = None    call_function
 *           v = y.view(3, -1)                         call_method
 *           g = split[0]                              operator.getitem
 *           a = y + 1                                 operator.add (every Python operator)
 *           out_4 += x_3;  out_5: "f32[..]" = out_4   operator.iadd, named out_5
 *           w = self.weight / c = self.conv(y)        get_attr / call_module
 *           return (y, v)                             the output node
 *
 * The statements are read into the reader's own model of the graph (nodes, their arguments and
 * values in the kinds graph JSON has, ../shared/spec/graph-json.md), which is then written out
 * either as the IR, directly (cgs_graph_load_fxtext), or as graph JSON text
 * (lib/writers/fxtext-json.h: `graphs --write`). The IR is made with the graph JSON loader's rules and
 * words (lib/readers/load-json-int.h), so a graph read from a trace is checked and built exactly
 * as its document would be loaded, and as one the bridge dumped; its refusals name the line of
 * the statement that made the node. Values come from the annotations ("f32[2, 3][3, 1]cuda:0",
 * "Sym(s0 + 1)"): dtype, shape, strides and device; the storage offset is not printed, so it
 * stays unknown (a graph input's is 0).
 */
#ifndef CGS_FXTEXT_H
#define CGS_FXTEXT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"

/* Limits: past them the text is refused (CGS_E_LIMIT). */
#define CGS_FXTEXT_MAX_BYTES    ((size_t)256 << 20)
#define CGS_FXTEXT_MAX_STMT     ((size_t)16 << 20) /* one statement, joined lines */
#define CGS_FXTEXT_MAX_DEPTH    64                 /* nesting of brackets in an expression */
#define CGS_FXTEXT_MAX_CLASSES  4096               /* nested classes (subgraphs) */

struct cgs_fxtext_opts {
    const char *name;       /* the graph's name */
    const char *stage;      /* producer.stage: "dynamo", "post_grad", ... or NULL */
    const char *compile_id; /* producer.compile_id, or NULL */
    const cJSON *symbols;   /* a "symbols" object to copy in (hints from the trace), or NULL */
    int is_inference, is_backward; /* producer's: 1, 0, or -1 when not known */
};

/*
 * Read text[0..len) (file names it in messages, line numbers from first_line) straight into the
 * IR: the graph its graph JSON (lib/writers/fxtext-json.h) loads as (tests/test-graphs.c and
 * the fxtext fuzz target check that), with no document made; NULL with d filled
 * (file:line:col and what was expected).
 */
struct cgs_graph;
struct cgs_graph *cgs_graph_load_fxtext(const char *text, size_t len, const char *file,
                                        uint32_t first_line, const struct cgs_fxtext_opts *o,
                                        struct cgs_diag *d);

#endif
