/* cgscope shapes: shape inference, and how it compares with what PyTorch recorded. */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/buf.h"
#include "lib/ops/ops.h"
#include "lib/writers/report-json.h"
#include "lib/passes/shapes.h"
#include "lib/passes/split.h"
#include "tools/cmd.h"
#include "tools/job.h"
#include "tools/session.h"

static int run(int argc, char **argv);


/* the options run() accepts: --help, the man page, completion and "did you mean" list them */
static const struct cli_opt options[] = {
    CLI_OPT("reinfer", 'r', NULL,
     "drop every recorded value except those of placeholders and\n"
     "get_attr nodes, infer the rest from the inputs alone, and\n"
     "compare with what was recorded; without it each node is\n"
     "inferred from its inputs' recorded values (a local check)"),
    CLI_OPT("bind", 'b', "SYM=INT",
     "evaluate shapes with symbol SYM bound (repeatable) and\n"
     "report bytes per node and in total; a SymFloat (zf0)\n"
     "takes a float: --bind zf0=0.5"),
    CLI_OPT("allow-missing-ops", 'M', NULL, "a splitting op may be absent (else exit 2)"),
    CLI_OPT_SUGGEST("split-ops", 's', "OP[,OP]", cli_presets_values,
     "also split the graph as MagiCompiler does at these ops\n"
     "and report the bytes each piece computes (needs every\n"
     "symbol bound, or a static graph)"),
    CLI_OPT("model", 'm', "NAME", "the model to read from a .pt2 archive holding several"),
    CLI_OPT("ops", 'o', "FILE",
     "shape rules for your own operators, one line each\n"
     "('mylib.fused_rmsnorm: like 0'; docs/custom-ops.md);\n"
     "repeatable, after $CGSCOPE_OPS and the shipped ops/*.ops"),
    CLI_OPT("check", 'c', NULL,
     "exit 1 unless every node was inferred exactly and agrees\n"
     "with its recorded value (a CI gate)"),
    CLI_OPT("all", 'a', NULL,
     "text output: list every node, not only the ones that are\n"
     "not ok or differ from the record"),
    CLI_OPT("json", 'j', NULL, "write one JSON document to stdout"),
    CLI_OPT_END,
};

const struct cmd cmd_shapes = {
    .name = "shapes",
    .usage =
        "cgscope shapes [--reinfer] [--bind SYM=INT ...] [--split-ops OP[,OP]] [--allow-missing-ops]\n"
        "                      [--check] [--all] [--ops FILE ...] [--json] [--model NAME] GRAPH",
    .summary = "infer shapes, dtypes and strides of every node (FakeTensor semantics)",
    .help = "",
    .more =
            "Without --reinfer a value torch recorded is the node's value, as torch wrote it\n"
            "(val_source \"recorded\"; the inferred one is checked against it, and where they\n"
            "differ both are given): a node with no rule, or whose inference failed, still has\n"
            "torch's value; with --reinfer every value is inferred.\n\n"
            "JSON keys: nodes [{name, op, target, val, val_source, inferred, status, reason,\n"
            "root_cause, match, recorded, bound, bytes}], root_causes [{node, target, status,\n"
            "reason, blocks}] (most blocking first), summary {nodes, inferred, matched,\n"
            "mismatched, recorded, unknown, partial, errors, validated}, bindings {sym:\n"
            "number}, total_bytes, pieces [a piece as split --json\n"
            "writes it: {name, graph_id, is_splitting_graph, nodes [names], n_nodes, inputs,\n"
            "outputs, compile_index}, and bytes].\n"
            "status is ok, partial, unknown_op or error; match is true, false or \"strides\"\n"
            "(same shape and dtype, other strides); bound is val at the --bind values;\n"
            "validated: every node inferred and none differing from what torch recorded.\n\n"
            "example:\n"
            "  cgscope shapes --reinfer --bind s77=64 samples/resnet18_dyn.dynamo.json\n",
    .run = run,
    .options = options,
};

#define MAX_BINDS 64

/* SYM=INT, or SYM=FLOAT for a SymFloat (checked against the graph's symbols once loaded). */
static int parse_bind(const char *s, struct cgs_sym_binding *b)
{
    const char *eq = strchr(s, '=');
    char *end;
    long long v;

    if (!eq || eq == s || !eq[1])
        return -1;
    memset(b, 0, sizeof(*b));
    errno = 0;
    v = strtoll(eq + 1, &end, 10);
    if (*end && *end != 'e' && *end != 'E' && *end != '.')
        return -1;
    if (*end) {
        double f;
        errno = 0;
        f = strtod(eq + 1, &end);
        if (*end || errno == ERANGE || !isfinite(f))
            return -1;
        b->is_float = true;
        b->fvalue = f;
    } else if (errno == ERANGE) { // 99999999999999999999 is refused, not clamped
        return -1;
    } else {
        b->value = v;
    }
    b->name = cgs_xstrdup(s);
    ((char *)b->name)[eq - s] = 0;
    return 0;
}

static const char *match_word(enum cgs_shape_cmp c)
{
    switch (c) {
    case CGS_SHAPE_CMP_MATCH:
        return "match";
    case CGS_SHAPE_CMP_STRIDES:
        return "strides differ";
    case CGS_SHAPE_CMP_MISMATCH:
        return "MISMATCH";
    default:
        return "";
    }
}

/* Root causes (nodes that are not ok on their own account), most blocking first. */
static uint32_t root_causes(const struct cgs_shapes *s, uint32_t **out)
{
    uint32_t n = 0, *idx = malloc((s->n_nodes ? s->n_nodes : 1) * sizeof(*idx));

    *out = idx;
    if (!idx)
        return 0;
    for (uint32_t i = 0; i < s->n_nodes; i++)
        if (s->nodes[i].root == (int32_t)i)
            idx[n++] = i;
    // insertion sort by blocks, descending, stable (graph order among equals)
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = idx[i], j = i;
        while (j > 0 && s->nodes[idx[j - 1]].blocks < s->nodes[v].blocks) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
    return n;
}

/* One node's entry of shapes --json (written straight). */
struct node_ctx {
    const struct cgs_graph *g;
    const struct cgs_shapes *s;
    const struct cgs_sym_bindings *bind;
};

static void node_write(const struct node_ctx *nc, uint32_t idx, struct jsonw *w, int depth)
{
    const struct cgs_graph *g = nc->g;
    const struct cgs_shapes *s = nc->s;
    const struct cgs_sym_bindings *bind = nc->bind;
    uint32_t i = idx;
    const struct cgs_node *n = g->nodes[i];
    const struct cgs_shape_node *r = &s->nodes[i];
    struct jsonw_obj o;

    jsonw_open(w, &o, depth);
    jsonw_field_str(w, &o, "name", n->name);
    jsonw_field_str(w, &o, "op", cgs_node_op_names[n->op]);
    jsonw_field_str(w, &o, "target", n->target ? n->target : "");
    jsonw_field(w, &o, "val");
    cgs_jsonw_val(w, r->reported, o.depth);
    jsonw_field_str(w, &o, "val_source", !r->reported ? NULL : r->from_record ? "recorded" : "inferred");
    if (r->from_record && r->val && r->cmp != CGS_SHAPE_CMP_MATCH && r->cmp != CGS_SHAPE_CMP_NONE) {
        jsonw_field(w, &o, "inferred");
        cgs_jsonw_val(w, r->val, o.depth);
    }
    jsonw_field_str(w, &o, "status", cgs_shape_status_names[r->status]);
    if (r->reason)
        jsonw_field_str(w, &o, "reason", r->reason);
    if (r->root >= 0)
        jsonw_field_str(w, &o, "root_cause", g->nodes[r->root]->name);
    if (r->cmp == CGS_SHAPE_CMP_MATCH || r->cmp == CGS_SHAPE_CMP_MISMATCH)
        jsonw_field_bool(w, &o, "match", r->cmp == CGS_SHAPE_CMP_MATCH);
    else if (r->cmp == CGS_SHAPE_CMP_STRIDES)
        jsonw_field_str(w, &o, "match", "strides");
    if (r->cmp == CGS_SHAPE_CMP_STRIDES || r->cmp == CGS_SHAPE_CMP_MISMATCH) {
        jsonw_field(w, &o, "recorded");
        cgs_jsonw_val(w, n->val, o.depth);
    }
    if (bind->n) {
        int64_t bytes;
        jsonw_field(w, &o, "bound");
        cgs_jsonw_val(w,
                      cgs_val_bind(r->reported, g->syms, g->arena, cgs_sym_bindings_lookup,
                                   (void *)bind),
                      o.depth);
        jsonw_field(w, &o, "bytes");
        if (r->reported &&
            cgs_val_bytes(r->reported, cgs_sym_bindings_lookup, (void *)bind, &bytes) == 0)
            jsonw_number(w, (double)bytes);
        else
            jsonw_raw(w, "null", 4);
    }
    jsonw_close(w, &o);
}

/* Recorded values the comparison could not check in full: tensors whose record holds no
 * storage offset (a printed graph's: a TORCH_TRACE log records none). */
/* Whether a recorded tensor lacks a field: its storage offset (a printed graph prints none),
   or its strides (FX prints a TensorMetadata annotation, "f32[4]", without them). */
static bool lacks(const struct cgs_tensor *t, bool strides)
{
    return strides ? t->ndim != CGS_NDIM_UNKNOWN && t->ndim > 0 && !t->stride
                   : !t->storage_offset;
}

/* Compared values whose record lacks the field: the comparison could not check it. */
static uint32_t unrecorded(const struct cgs_graph *g, const struct cgs_shapes *s, bool strides)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_nodes && i < s->n_nodes; i++) {
        const struct cgs_val *v = g->nodes[i]->val;
        if (s->nodes[i].cmp == CGS_SHAPE_CMP_NONE || !v)
            continue;
        if (v->kind == CGS_VAL_TENSOR && lacks(&v->u.t, strides))
            n++;
        else if (v->kind == CGS_VAL_LIST)
            for (uint32_t k = 0; k < v->n; k++)
                if (v->u.items[k].kind == CGS_VAL_TENSOR && lacks(&v->u.items[k].u.t, strides)) {
                    n++;
                    break;
                }
    }
    return n;
}

/* What shapes' document is written from: the graph, its shapes, the bindings, and the pieces
 * with their bytes when --split-ops split it (sp). */
struct shapes_out {
    const struct cgs_graph *g;
    const struct cgs_shapes *s;
    const struct cgs_sym_bindings *bind;
    int64_t total;
    bool total_known;
    bool nodes; /* each node's entry (the page's document leaves them out) */
    const struct cgs_split *sp;
    int depth; /* the document's (0: a document of its own) */
};

static bool owned_bytes(const struct cgs_shapes *s, const struct cgs_node *n,
                        const struct cgs_sym_bindings *bind, int64_t *bytes);

/* shapes' "summary" object, at depth: the counts, and what the comparison could not check. */
static void summary_write(struct jsonw *w, const struct cgs_graph *g, const struct cgs_shapes *s,
                          int depth)
{
    const struct cgs_shapes_summary *sm = &s->summary;
    struct jsonw_obj o, x;
    jsonw_open(w, &o, depth);
    jsonw_field_num(w, &o, "nodes", sm->nodes);
    jsonw_field_num(w, &o, "inferred", sm->inferred);
    jsonw_field_num(w, &o, "matched", sm->matched);
    jsonw_field_num(w, &o, "mismatched", sm->mismatched);
    jsonw_field_num(w, &o, "recorded", sm->recorded);
    jsonw_field_num(w, &o, "unknown", sm->unknown);
    jsonw_field_num(w, &o, "partial", sm->partial);
    jsonw_field_num(w, &o, "errors", sm->errors);
    jsonw_field_bool(w, &o, "validated", sm->validated);
    {
        /* what the comparison could not check: keys of the record it lacked */
        bool first = true;
        jsonw_field(w, &o, "not_checked");
        jsonw_raw(w, "[", 1);
        for (int strides = 0; strides < 2; strides++) {
            uint32_t k = unrecorded(g, s, strides);
            if (!k)
                continue;
            if (!first)
                jsonw_sep(w);
            first = false;
            jsonw_open(w, &x, o.depth + 1);
            jsonw_field_str(w, &x, "field", strides ? "stride" : "storage_offset");
            jsonw_field_num(w, &x, "nodes", k);
            jsonw_field_str(w, &x, "why", "the record holds none (a printed graph)");
            jsonw_close(w, &x);
        }
        jsonw_raw(w, "]", 1);
    }
    jsonw_close(w, &o);
}

/* shapes --json's document (and the page's shapes, without nodes), written straight. */
static void shapes_write(struct jsonw *w, void *ctx)
{
    const struct shapes_out *so = ctx;
    const struct cgs_graph *g = so->g;
    const struct cgs_shapes *s = so->s;
    const struct cgs_sym_bindings *bind = so->bind;
    struct jsonw_obj doc, o;
    struct node_ctx nc = {g, s, bind};
    int d;

    cli_doc_open(w, &doc, so->depth, "shapes");
    jsonw_field_str(w, &doc, "graph", g->name ? g->name : "");
    d = doc.depth + 1; /* an item of one of the document's arrays */
    jsonw_field(w, &doc, "nodes");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; so->nodes && i < g->n_nodes; i++) {
        if (i)
            jsonw_sep(w);
        node_write(&nc, i, w, d);
    }
    jsonw_raw(w, "]", 1);
    {
        uint32_t *idx, k = root_causes(s, &idx);
        jsonw_field(w, &doc, "root_causes");
        jsonw_raw(w, "[", 1);
        for (uint32_t i = 0; i < k; i++) {
            const struct cgs_node *n = g->nodes[idx[i]];
            const struct cgs_shape_node *r = &s->nodes[idx[i]];
            if (i)
                jsonw_sep(w);
            jsonw_open(w, &o, d);
            jsonw_field_str(w, &o, "node", n->name);
            jsonw_field_str(w, &o, "target", n->target ? n->target : "");
            jsonw_field_str(w, &o, "status", cgs_shape_status_names[r->status]);
            jsonw_field_str(w, &o, "reason", r->reason ? r->reason : "");
            jsonw_field_num(w, &o, "blocks", r->blocks);
            jsonw_close(w, &o);
        }
        jsonw_raw(w, "]", 1);
        free(idx);
    }
    jsonw_field(w, &doc, "summary");
    summary_write(w, g, s, doc.depth);
    {
        struct cgs_op_suggestion *sg;
        size_t ns = cgs_shapes_suggest_decls(g, s, &sg);
        jsonw_field(w, &doc, "suggested_ops");
        jsonw_raw(w, "[", 1);
        for (size_t i = 0; i < ns; i++) {
            if (i)
                jsonw_sep(w);
            jsonw_open(w, &o, d);
            jsonw_field_str(w, &o, "op", sg[i].name);
            jsonw_field_str(w, &o, "target", sg[i].target);
            jsonw_field_str(w, &o, "declaration", sg[i].decl);
            jsonw_field_num(w, &o, "recorded", sg[i].confirmed);
            jsonw_close(w, &o);
        }
        jsonw_raw(w, "]", 1);
        free(sg);
    }
    if (bind->n) {
        jsonw_field(w, &doc, "bindings");
        jsonw_open(w, &o, doc.depth);
        for (size_t i = 0; i < bind->n; i++)
            jsonw_field_num(w, &o, bind->items[i].name,
                            bind->items[i].is_float ? bind->items[i].fvalue
                                                    : (double)bind->items[i].value);
        jsonw_close(w, &o);
        if (so->total_known)
            jsonw_field_num(w, &doc, "total_bytes", (double)so->total);
        else
            jsonw_field_null(w, &doc, "total_bytes");
    }
    if (so->sp) {
        /* each piece's bytes: the values its nodes own */
        jsonw_field(w, &doc, "pieces");
        jsonw_raw(w, "[", 1);
        for (uint32_t p = 0; p < so->sp->n_pieces; p++) {
            const struct cgs_split_piece *pc = &so->sp->pieces[p];
            int64_t sum = 0, b;
            bool known = true;
            for (uint32_t k = 0; k < pc->n_nodes && known; k++) {
                known = owned_bytes(s, pc->nodes[k], bind, &b);
                sum += known ? b : 0;
            }
            if (p)
                jsonw_sep(w);
            jsonw_open(w, &o, d);
            cli_piece_fields(w, &o, so->sp, p, true);
            if (known)
                jsonw_field_num(w, &o, "bytes", (double)sum);
            else
                jsonw_field_null(w, &o, "bytes");
            jsonw_close(w, &o);
        }
        jsonw_raw(w, "]", 1);
    }
    jsonw_close(w, &doc);
}

void cli_shapes_write(struct jsonw *w, const struct cli_job_graph *j, int depth)
{
    struct cgs_sym_bindings none = {0};
    struct shapes_out so = {j->g, j->shapes, &none, 0, false, false, NULL, depth};
    shapes_write(w, &so);
}

#define NAME_COL_MAX 40

static void shapes_text(const struct cgs_graph *g, const struct cgs_shapes *s,
                        const struct cgs_sym_bindings *bind, bool all, int64_t total,
                        bool total_known)
{
    struct cgs_buf b = CGS_BUF_INIT;
    const struct cgs_shapes_summary *sm = &s->summary;
    uint32_t *idx, k = root_causes(s, &idx);

    // what to fix first: the root causes, ranked by how many nodes each leaves not ok
    if (k) {
        printf("root causes (%u), by the nodes each blocks:\n", k);
        for (uint32_t i = 0; i < k && i < 10; i++) {
            const struct cgs_node *n = g->nodes[idx[i]];
            const struct cgs_shape_node *r = &s->nodes[idx[i]];
            printf("  %5u  %-28s %-10s %s: %s\n", r->blocks, n->name,
                   cgs_shape_status_names[r->status], n->target ? n->target : "",
                   r->reason ? r->reason : "");
        }
        if (k > 10)
            printf("  ... and %u more (--json lists them all)\n", k - 10);
        printf("\n");
    }
    free(idx);
    // the name column fits the longest name shown, up to a cap; longer ones get a line each
    int name_w = 4, status_w = 6;
    bool any = false;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_shape_node *r = &s->nodes[i];
        bool notable = r->status != CGS_SHAPE_OK ||
                       (r->cmp != CGS_SHAPE_CMP_NONE && r->cmp != CGS_SHAPE_CMP_MATCH);
        int len = (int)strlen(g->nodes[i]->name);
        if (!all && !notable && !bind->n)
            continue;
        any = true;
        if (len > name_w)
            name_w = len > NAME_COL_MAX ? NAME_COL_MAX : len;
        len = (int)strlen(cgs_shape_status_names[r->status]);
        status_w = len > status_w ? len : status_w;
    }
    if (any)
        printf("%s%-*s  %-*s  value%s%s\n", cli_paint(1, "bold"), name_w, "node", status_w,
               "status", bind->n ? "  (= at the --bind values)  bytes" : "", CLI_RESET(1));
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        const struct cgs_shape_node *r = &s->nodes[i];
        bool notable = r->status != CGS_SHAPE_OK ||
                       (r->cmp != CGS_SHAPE_CMP_NONE && r->cmp != CGS_SHAPE_CMP_MATCH);
        const char *role = r->status == CGS_SHAPE_OK        ? "ok"
                           : r->status == CGS_SHAPE_PARTIAL ? "warn"
                                                            : "bad";
        if (!all && !notable && !bind->n)
            continue;
        cgs_buf_reset(&b);
        cgs_val_describe(r->reported, &b);
        if (r->from_record && !r->val)
            cgs_buf_addstr(&b, " (recorded)");
        if (bind->n && r->reported) {
            // the value at the binding too, when it differs from the symbolic one
            struct cgs_buf bb = CGS_BUF_INIT;
            cgs_val_describe(cgs_val_bind(r->reported, g->syms, g->arena,
                                          cgs_sym_bindings_lookup, (void *)bind),
                             &bb);
            if (strcmp(bb.buf, b.buf))
                cgs_buf_addf(&b, " = %s", bb.buf);
            cgs_buf_release(&bb);
        }
        if ((int)strlen(n->name) > name_w)
            printf("%s\n%-*s", n->name, name_w, "");
        else
            printf("%-*s", name_w, n->name);
        printf("  %s%-*s%s  %s", cli_paint(1, role), status_w,
               cgs_shape_status_names[r->status], CLI_RESET(1), b.buf);
        if (bind->n) {
            int64_t bytes;
            char hb[32];
            if (r->reported &&
                cgs_val_bytes(r->reported, cgs_sym_bindings_lookup, (void *)bind, &bytes) == 0)
                printf("  %s", cli_human_bytes(bytes, hb, sizeof(hb)));
        }
        if (r->cmp != CGS_SHAPE_CMP_NONE && r->cmp != CGS_SHAPE_CMP_MATCH) {
            struct cgs_buf ib = CGS_BUF_INIT;
            cgs_val_describe(r->val, &ib);
            printf("  [%s: inferred %s]", match_word(r->cmp), ib.buf);
            cgs_buf_release(&ib);
        }
        if (r->reason && notable)
            printf("\n    %s", r->reason);
        printf("\n");
    }
    printf("%u node%s: %u inferred, %u matched, %u mismatched, %u unknown op%s, %u partial, "
           "%u error%s; %s\n",
           sm->nodes, PLURAL(sm->nodes), sm->inferred, sm->matched, sm->mismatched, sm->unknown,
           PLURAL(sm->unknown), sm->partial, sm->errors, PLURAL(sm->errors),
           sm->validated ? "validated" : "not validated");
    if (sm->recorded)
        printf("%u value%s reported as torch recorded %s (no inferred value, or one that "
               "differs)\n", sm->recorded, PLURAL(sm->recorded), sm->recorded == 1 ? "it" : "them");
    {
        uint32_t nk = unrecorded(g, s, false), ns = unrecorded(g, s, true);
        if (nk)
            printf("not checked: the storage offsets of %u recorded value%s (the record holds "
                   "none: a printed graph)\n",
                   nk, PLURAL(nk));
        if (ns)
            printf("not checked: the strides of %u recorded value%s (the record holds none: "
                   "an annotation without strides)\n",
                   ns, PLURAL(ns));
    }
    {
        struct cgs_op_suggestion *sg;
        size_t ns = cgs_shapes_suggest_decls(g, s, &sg);
        if (ns) {
            printf("declarations the recorded values bear out (docs/custom-ops.md; put them in a "
                   "file and pass --ops FILE):\n");
            for (size_t i = 0; i < ns; i++)
                printf("  %s: %s    # gives the %u value%s torch recorded\n", sg[i].name,
                       sg[i].decl, sg[i].confirmed, PLURAL(sg[i].confirmed));
        }
        free(sg);
    }
    if (bind->n) {
        char hb[32];
        if (total_known)
            printf("total: %s (%lld bytes) of node values (views and in-place results counted "
                   "once)\n",
                   cli_human_bytes(total, hb, sizeof(hb)), (long long)total);
        else
            printf("total: unknown (unbound symbols or unknown values)\n");
    }
    cgs_buf_release(&b);
}

/*
 * Bytes a node's value owns: 0 for views of and in-place results on an
 * input (the same value object), and for values that are not tensors.
 * false when they cannot be known (unbound symbols, unknown values).
 */
static bool owned_bytes(const struct cgs_shapes *s, const struct cgs_node *n,
                        const struct cgs_sym_bindings *bind, int64_t *bytes)
{
    const struct cgs_shape_node *r = &s->nodes[n->index];

    *bytes = 0;
    if (n->op == CGS_NODE_OUTPUT ||
        (r->reported && r->reported->kind != CGS_VAL_LIST && r->reported->kind != CGS_VAL_TENSOR))
        return true;
    if (!r->reported)
        // scalars (item(), sizes) take no tensor memory even when unknown
        return cgs_op_target_has(n->target, CGS_OPF_SIZE) ||
               cgs_op_target_has(n->target, CGS_OPF_NOVALUE);
    // a value shared with an input (alias, in-place, getitem) counts once, there
    for (uint32_t j = 0; j < n->n_inputs; j++)
        if (s->nodes[n->inputs[j]->index].reported == r->reported)
            return true;
    return cgs_val_bytes(r->reported, cgs_sym_bindings_lookup, (void *)bind, bytes) == 0;
}

static bool total_bytes(const struct cgs_graph *g, const struct cgs_shapes *s,
                        const struct cgs_sym_bindings *bind, int64_t *total)
{
    *total = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        int64_t bytes;
        if (!owned_bytes(s, g->nodes[i], bind, &bytes))
            return false;
        *total += bytes;
    }
    return true;
}

/* Per-piece bytes of the session's split: into doc (JSON) or printed. */
static int piece_bytes(struct cli_session *ss, const char *ops_arg,
                       const struct cgs_sym_bindings *bind)
{
    const struct cgs_shapes *s = ss->shapes;
    struct cgs_split *sp = cli_session_split(ss);

    if (!sp)
        return cli_session_fail(ss);
    printf("\npieces (split at %s):\n", ops_arg);
    for (uint32_t p = 0; p < sp->n_pieces; p++) {
        const struct cgs_split_piece *pc = &sp->pieces[p];
        int64_t sum = 0, b;
        bool known = true;
        for (uint32_t k = 0; k < pc->n_nodes && known; k++) {
            known = owned_bytes(s, pc->nodes[k], bind, &b);
            sum += known ? b : 0;
        }
        if (known) {
            char hb[32];
            printf("  %-12s %6u node%s  %12s%s\n", pc->name, pc->n_nodes, PLURAL(pc->n_nodes),
                   cli_human_bytes(sum, hb, sizeof(hb)),
                   pc->is_splitting_graph ? "  (splitting op)" : "");
        } else {
            printf("  %-12s %6u nodes  ? bytes (unbound symbols or unknown values)\n", pc->name,
                   pc->n_nodes);
        }
    }
    return 0;
}

struct shapes_args {
    struct cgs_sym_binding binds[MAX_BINDS];
    struct cgs_sym_bindings bind;
    const char *ops_files[16];
    const char *split_ops;
    bool json, all, check;
};

static int parse_args(int argc, char **argv, struct cli_session *ss, struct shapes_args *a)
{
    int c;
    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_shapes, argc, argv)) != -1) {
        switch (c) {
        case 'r': ss->reinfer = true; break;
        case 'b':
            if (a->bind.n == MAX_BINDS)
                return cli_usage_error(&cmd_shapes, "too many --bind options (at most %d)",
                                       MAX_BINDS);
            if (parse_bind(optarg, &a->binds[a->bind.n]))
                return cli_usage_error(&cmd_shapes, "--bind expects SYM=INT (SYM=FLOAT for a "
                                                    "SymFloat), got '%s'", optarg);
            a->bind.n++;
            break;
        case 'a': a->all = true; break;
        case 'c': a->check = true; break;
        case 's':
            a->split_ops = optarg;
            if (cli_split_ops_add(&ss->ops, optarg))
                return CGS_EXIT_BAD_INPUT;
            break;
        case 'j': a->json = true; break;
        case 'm': ss->model = optarg; break;
        case 'M': ss->allow_missing_ops = true; break;
        case 'o':
            if (ss->n_decl_files == 16)
                return cli_usage_error(&cmd_shapes, "too many --ops files (at most 16)");
            a->ops_files[ss->n_decl_files++] = optarg;
            break;
        default: return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
        }
    }
    if (argc - optind != 1)
        return cli_usage_error(&cmd_shapes, "expected one GRAPH");
    ss->path = argv[optind];
    ss->decl_files = a->ops_files;
    return 0;
}

/* Every --bind names a symbol of the graph, of its kind, in its recorded range: 0, or said. */
static int check_binds(const struct cgs_graph *g, const struct shapes_args *a, const char *path)
{
    for (size_t i = 0; i < a->bind.n; i++) {
        const struct cgs_sym_binding *b = &a->binds[i];
        const struct cgs_symbol *sy = cgs_graph_symbol(g, b->name);
        if (!sy) {
            /* name the graph's symbols: a typo must not evaluate nothing silently */
            struct cgs_buf names = CGS_BUF_INIT;
            int rc;
            for (uint32_t k = 0; k < g->n_symbols; k++)
                cgs_buf_addf(&names, "%s%s", k ? ", " : "", g->symbols[k].name);
            rc = cli_file_error(path, "--bind: the graph has no symbol '%s' (its symbols: %s)",
                                b->name, g->n_symbols ? names.buf : "none");
            cgs_buf_release(&names);
            return rc;
        }
        if (b->is_float != sy->is_float)
            return cli_file_error(path, sy->is_float ? "--bind %s: the symbol is a SymFloat: "
                                                       "give a number with a point (%s=0.5)"
                                                     : "--bind %s: the symbol is a SymInt: give "
                                                       "an integer (%s=8)",
                                  b->name, b->name);
        if (!b->is_float &&
            ((sy->has_min && b->value < sy->min) || (sy->has_max && b->value > sy->max))) {
            char lo[32] = "-inf", hi[32] = "inf";
            if (sy->has_min)
                snprintf(lo, sizeof(lo), "%lld", (long long)sy->min);
            if (sy->has_max)
                snprintf(hi, sizeof(hi), "%lld", (long long)sy->max);
            return cli_file_error(path, "--bind %s=%lld is outside the symbol's recorded range "
                                        "[%s, %s]", b->name, (long long)b->value, lo, hi);
        }
    }
    return 0;
}

static int run(int argc, char **argv)
{
    struct cli_session ss;
    struct shapes_args a = {.bind = {NULL, 0}};
    struct cgs_graph *g;
    struct cgs_shapes *s;
    int64_t total = 0;
    bool total_known = false;
    int rc;

    a.bind.items = a.binds;
    cli_session_init(&ss, NULL);
    if ((rc = parse_args(argc, argv, &ss, &a)) || (rc = cli_session_decls(&ss)))
        goto out;
    if (!(g = cli_session_graph(&ss))) {
        rc = CGS_EXIT_BAD_INPUT;
        goto out;
    }
    cli_print_notes(g, 20); /* stderr: the loader's warnings (unknown dims, ...) */
    if ((rc = check_binds(g, &a, ss.path)))
        goto out;
    if (!(s = cli_session_shapes(&ss))) {
        rc = cli_session_fail(&ss);
        goto out;
    }
    if (a.bind.n)
        total_known = total_bytes(g, s, &a.bind, &total);
    if (a.json) {
        struct shapes_out so = {g, s, &a.bind, total, total_known, true, NULL, 0};
        if (a.split_ops && !(so.sp = cli_session_split(&ss))) {
            rc = cli_session_fail(&ss);
            goto out;
        }
        cli_print_written(shapes_write, &so);
    } else {
        shapes_text(g, s, &a.bind, a.all, total, total_known);
        if (a.split_ops)
            rc = piece_bytes(&ss, a.split_ops, &a.bind);
    }
    if (a.check && rc == CGS_EXIT_OK && (!s->summary.validated || s->summary.mismatched)) {
        fprintf(stderr,
                "cgscope shapes: check failed: %u mismatched, %u partial, %u unknown op, %u "
                "errors\n",
                s->summary.mismatched, s->summary.partial, s->summary.unknown, s->summary.errors);
        rc = CGS_EXIT_CHECK;
    }
out:
    for (size_t i = 0; i < a.bind.n; i++)
        free((char *)a.binds[i].name);
    cli_session_close(&ss);
    return rc;
}
