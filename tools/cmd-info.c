/* cgscope info: what a graph holds. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/buf.h"
#include "lib/base/json-alloc.h"
#include "lib/readers/load.h"
#include "lib/writers/report-json.h"
#include "lib/base/strmap.h"
#include "tools/cmd.h"
#include "tools/session.h"

static int run(int argc, char **argv);

/* the options run() accepts: --help, the man page, completion and "did you mean" list them */
static const struct cli_opt options[] = {
    CLI_OPT("json", 'j', NULL, "write one JSON document to stdout"),
    CLI_OPT("model", 'm', "NAME", "the model to read from a .pt2 archive holding several"),
    CLI_OPT("targets", 't', NULL,
     "print the graph's distinct call targets, one per line (for\n"
     "scripts and shell completion of --split-ops)"),
    CLI_OPT_END,
};

const struct cmd cmd_info = {
    .name = "info",
    .usage = "cgscope info [--json | --targets] [--model NAME] GRAPH",
    .summary = "summarise a graph: nodes, operator histogram, inputs, outputs, symbols",
    .help = "",
    .more =
            "JSON keys: name, file, producer, nodes, node_kinds, ops {target: count},\n"
            "inputs [{name, target, val}], outputs [{name, val}], symbols {name: {hint, min,\n"
            "max}}, subgraphs [{name, nodes}], notes.\n\n"
            "example:\n"
            "  cgscope info samples/cgs_transformer_dyn.json\n",
    .run = run,
    .options = options,
};

struct op_count {
    const char *target;
    uint32_t count;
};

static int op_count_cmp(const void *a, const void *b)
{
    const struct op_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->target, y->target);
}

static bool is_op_node(const struct cgs_node *n)
{
    return n->op == CGS_NODE_CALL_FUNCTION || n->op == CGS_NODE_CALL_METHOD ||
           n->op == CGS_NODE_CALL_MODULE;
}

/* The operator histogram, sorted by count then name (caller frees). */
static struct op_count *histogram(const struct cgs_graph *g, size_t *n_out)
{
    struct op_count *h = NULL;
    size_t n = 0, alloc = 0;
    struct cgs_strmap *slot = cgs_strmap_new(); /* target -> index + 1 in h */

    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *nd = g->nodes[i];
        uintptr_t k;
        if (!is_op_node(nd))
            continue;
        k = (uintptr_t)cgs_strmap_get(slot, nd->target);
        if (!k) {
            CGS_ALLOC_GROW(h, n + 1, alloc);
            h[n] = (struct op_count){nd->target, 0};
            k = ++n;
            cgs_strmap_put(slot, nd->target, (void *)k);
        }
        h[k - 1].count++;
    }
    cgs_strmap_free(slot);
    if (n)
        qsort(h, n, sizeof(*h), op_count_cmp);
    *n_out = n;
    return h;
}

/* The values the output node returns, flattened in order. */
static void collect_outputs(const struct cgs_arg *a, const struct cgs_node ***out, size_t *n,
                            size_t *alloc)
{
    /* iterative walk with an explicit stack of (items, count, position) */
    struct frame {
        const struct cgs_arg *items;
        uint32_t n, i;
    } *st = NULL;
    size_t sp = 0, st_alloc = 0;
    CGS_ALLOC_GROW(st, 1, st_alloc);
    st[sp++] = (struct frame){a, 1, 0};
    while (sp) {
        struct frame *f = &st[sp - 1];
        if (f->i >= f->n) {
            sp--;
            continue;
        }
        const struct cgs_arg *x = &f->items[f->i++];
        if (x->kind == CGS_ARG_LIST) {
            CGS_ALLOC_GROW(st, sp + 1, st_alloc);
            st[sp++] = (struct frame){x->u.items, x->n, 0};
        } else {
            CGS_ALLOC_GROW(*out, *n + 1, *alloc);
            (*out)[(*n)++] = x->kind == CGS_ARG_NODE ? x->u.node : NULL;
        }
    }
    free(st);
}

static const struct cgs_node *output_node(const struct cgs_graph *g)
{
    for (uint32_t i = g->n_nodes; i-- > 0;)
        if (g->nodes[i]->op == CGS_NODE_OUTPUT)
            return g->nodes[i];
    return NULL;
}

static void symbol_range(const struct cgs_symbol *s, struct cgs_buf *b)
{
    if (s->is_float) { /* a SymFloat: its hint as Python prints a float (repr) */
        if (s->has_fhint)
            cgs_buf_addf(b, "float, hint %.17g", s->fhint);
        else
            cgs_buf_addstr(b, "float");
        return;
    }
    if (s->has_hint)
        cgs_buf_addf(b, "hint %lld, ", (long long)s->hint);
    if (s->has_min)
        cgs_buf_addf(b, "[%lld, ", (long long)s->min);
    else
        cgs_buf_addstr(b, "(-inf, ");
    if (s->has_max)
        cgs_buf_addf(b, "%lld]", (long long)s->max);
    else
        cgs_buf_addstr(b, "inf)");
}

/* A .pt2 signature entry: "kind" (parameter, buffer_mutation, ...) and "fqn". */
static void sig_fields(struct jsonw *w, struct jsonw_obj *o, const struct cgs_sig_spec *sp)
{
    if (!sp || sp->kind == CGS_PT2_NONE)
        return;
    jsonw_field_str(w, o, "kind", cgs_pt2_kind_name(sp->kind));
    if (sp->target)
        jsonw_field_str(w, o, "fqn", sp->target);
}

static void describe_sig(const struct cgs_sig_spec *sp, struct cgs_buf *b)
{
    if (!sp || sp->kind == CGS_PT2_NONE)
        return;
    cgs_buf_addf(b, "  [%s%s%s]", cgs_pt2_kind_name(sp->kind), sp->target ? " " : "",
                 sp->target ? sp->target : "");
}

/* info's "symbols" object, at depth: each symbol's hint and range. */
static void symbols_write(struct jsonw *w, const struct cgs_graph *g, int depth)
{
    struct jsonw_obj o, so;
    jsonw_open(w, &o, depth);
    for (uint32_t i = 0; i < g->n_symbols; i++) {
        const struct cgs_symbol *s = &g->symbols[i];
        jsonw_field(w, &o, s->name);
        jsonw_open(w, &so, o.depth);
        if (s->is_float && s->has_fhint)
            jsonw_field_num(w, &so, "hint", s->fhint);
        else if (s->has_hint)
            jsonw_field_int(w, &so, "hint", s->hint);
        else
            jsonw_field_null(w, &so, "hint");
        if (s->is_float)
            jsonw_field_bool(w, &so, "float", true);
        if (s->has_min)
            jsonw_field_num(w, &so, "min", (double)s->min);
        else
            jsonw_field_null(w, &so, "min");
        if (s->has_max)
            jsonw_field_num(w, &so, "max", (double)s->max);
        else
            jsonw_field_null(w, &so, "max");
        jsonw_close(w, &so);
    }
    jsonw_close(w, &o);
}

struct info_out {
    const struct cgs_graph *g;
    const struct op_count *h;
    size_t nh;
    const struct cgs_node **outs;
    size_t nouts;
};

/* info --json's document, written straight from the graph. */
static void info_write(struct jsonw *w, void *ctx)
{
    const struct info_out *io = ctx;
    const struct cgs_graph *g = io->g;
    uint32_t kinds[CGS_NODE_OP_COUNT] = {0};
    struct jsonw_obj doc, o;
    int d;

    cli_doc_open(w, &doc, 0, "info");
    jsonw_field_str(w, &doc, "name", g->name ? g->name : "");
    jsonw_field_str(w, &doc, "file", g->file ? g->file : "");
    jsonw_field(w, &doc, "producer");
    jsonw_open(w, &o, doc.depth);
    if (g->producer.tool)
        jsonw_field_str(w, &o, "tool", g->producer.tool);
    if (g->producer.version)
        jsonw_field_str(w, &o, "version", g->producer.version);
    jsonw_field_str(w, &o, "stage", cgs_stage_names[g->producer.stage]);
    if (g->producer.is_inference >= 0)
        jsonw_field_bool(w, &o, "is_inference", g->producer.is_inference);
    if (g->producer.is_backward >= 0)
        jsonw_field_bool(w, &o, "is_backward", g->producer.is_backward);
    jsonw_close(w, &o);
    jsonw_field_num(w, &doc, "nodes", g->n_nodes);
    for (uint32_t i = 0; i < g->n_nodes; i++)
        kinds[g->nodes[i]->op]++;
    jsonw_field(w, &doc, "node_kinds");
    jsonw_open(w, &o, doc.depth);
    for (int k = 0; k < CGS_NODE_OP_COUNT; k++)
        if (kinds[k])
            jsonw_field_num(w, &o, cgs_node_op_names[k], kinds[k]);
    jsonw_close(w, &o);
    jsonw_field(w, &doc, "ops");
    jsonw_open(w, &o, doc.depth);
    for (size_t i = 0; i < io->nh; i++)
        jsonw_field_num(w, &o, io->h[i].target, io->h[i].count);
    jsonw_close(w, &o);
    d = doc.depth + 1; /* an item of one of the document's arrays */
    jsonw_field(w, &doc, "inputs");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0, k = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        if (n->op != CGS_NODE_PLACEHOLDER)
            continue;
        if (k)
            jsonw_sep(w);
        jsonw_open(w, &o, d);
        jsonw_field_str(w, &o, "name", n->name);
        jsonw_field_str(w, &o, "target", n->target);
        jsonw_field(w, &o, "val");
        cgs_jsonw_val(w, n->val, o.depth);
        sig_fields(w, &o, k < g->n_sig_inputs ? &g->sig_inputs[k] : NULL); /* .pt2 signature */
        k++;
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &doc, "outputs");
    jsonw_raw(w, "[", 1);
    for (size_t i = 0; i < io->nouts; i++) {
        const struct cgs_node *out = io->outs[i];
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, d);
        if (out) {
            jsonw_field_str(w, &o, "name", out->name);
            jsonw_field(w, &o, "val");
            cgs_jsonw_val(w, out->val, o.depth);
            sig_fields(w, &o, i < g->n_sig_outputs ? &g->sig_outputs[i] : NULL);
        } else {
            jsonw_field_null(w, &o, "name");
            jsonw_field_null(w, &o, "val");
        }
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &doc, "symbols");
    symbols_write(w, g, doc.depth);
    jsonw_field(w, &doc, "subgraphs");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < g->n_subgraphs; i++) {
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, d);
        jsonw_field_str(w, &o, "name", g->subgraph_names[i]);
        jsonw_field_num(w, &o, "nodes", g->subgraphs[i]->n_nodes);
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &doc, "notes");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < g->n_notes; i++) {
        const struct cgs_note *nt = &g->notes[i];
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, d);
        jsonw_field_str(w, &o, "level",
                        nt->level == CGS_NOTE_ERROR     ? "error"
                        : nt->level == CGS_NOTE_WARNING ? "warning"
                                                        : "info");
        if (nt->node)
            jsonw_field_str(w, &o, "node", nt->node->name);
        jsonw_field_str(w, &o, "message", nt->msg);
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
    jsonw_close(w, &doc);
}

/* "  name   value", a name too long for the column on a line of its own. */
static void print_row(const char *name, const char *value)
{
    if (strlen(name) > 40)
        printf("  %s\n  %-40s %s\n", name, "", value);
    else
        printf("  %-40s %s\n", name, value);
}

static void info_text(const struct cgs_graph *g, struct op_count *h, size_t nh,
                      const struct cgs_node **outs, size_t nouts)
{
    struct cgs_buf b = CGS_BUF_INIT;
    uint32_t kinds[CGS_NODE_OP_COUNT] = {0}, n_in = 0;

    printf("graph:    %s\n", g->name ? g->name : "(unnamed)");
    printf("file:     %s\n", g->file ? g->file : "-");
    if (g->producer.tool || g->producer.stage)
        printf("producer: %s%s%s, stage %s%s%s\n", g->producer.tool ? g->producer.tool : "?",
               g->producer.version ? " " : "", g->producer.version ? g->producer.version : "",
               cgs_stage_names[g->producer.stage],
               g->producer.is_inference == 1 ? ", inference" : "",
               g->producer.is_backward == 1 ? ", backward" : "");
    for (uint32_t i = 0; i < g->n_nodes; i++)
        kinds[g->nodes[i]->op]++;
    printf("nodes:    %u (", g->n_nodes);
    for (int k = 0, first = 1; k < CGS_NODE_OP_COUNT; k++)
        if (kinds[k]) {
            printf("%s%s %u", first ? "" : ", ", cgs_node_op_names[k], kinds[k]);
            first = 0;
        }
    printf(")\n");
    if (g->n_symbols) {
        printf("symbols:  ");
        for (uint32_t i = 0; i < g->n_symbols; i++) {
            cgs_buf_reset(&b);
            symbol_range(&g->symbols[i], &b);
            printf("%s%s (%s)", i ? ", " : "", g->symbols[i].name, b.buf);
        }
        printf("\n");
    }
    for (uint32_t i = 0; i < g->n_nodes; i++)
        n_in += g->nodes[i]->op == CGS_NODE_PLACEHOLDER;
    printf("\ninputs (%u):\n", n_in);
    for (uint32_t i = 0, k = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        if (n->op != CGS_NODE_PLACEHOLDER)
            continue;
        cgs_buf_reset(&b);
        cgs_val_describe(n->val, &b);
        describe_sig(k < g->n_sig_inputs ? &g->sig_inputs[k] : NULL, &b);
        k++;
        print_row(n->name, b.buf);
    }
    printf("\noutputs (%zu):\n", nouts);
    for (size_t i = 0; i < nouts; i++) {
        cgs_buf_reset(&b);
        if (outs[i])
            cgs_val_describe(outs[i]->val, &b);
        describe_sig(i < g->n_sig_outputs ? &g->sig_outputs[i] : NULL, &b);
        print_row(outs[i] ? outs[i]->name : "None", outs[i] ? b.buf : "");
    }
    printf("\noperators (%zu distinct):\n", nh);
    for (size_t i = 0; i < nh; i++)
        printf("  %6u  %s\n", h[i].count, h[i].target);
    for (uint32_t i = 0; i < g->n_subgraphs; i++)
        printf("%ssubgraph %s: %u nodes\n", i ? "" : "\n", g->subgraph_names[i],
               g->subgraphs[i]->n_nodes);
    cgs_buf_release(&b);
}

static int run(int argc, char **argv)
{
    bool json = false, targets = false;
    struct cli_session ss;
    struct cgs_graph *g;
    struct op_count *h;
    const struct cgs_node **outs = NULL, *out;
    size_t nh, nouts = 0, outs_alloc = 0;
    int c;

    cli_session_init(&ss, NULL);
    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_info, argc, argv)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'm': ss.model = optarg; break;
        case 't': targets = true; break;
        default: return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_info, optind == argc ? "missing GRAPH" : "expected one GRAPH");
    ss.path = argv[optind];
    if (!(g = cli_session_graph(&ss)))
        return CGS_EXIT_BAD_INPUT;
    h = histogram(g, &nh);
    if ((out = output_node(g)) && out->n_args)
        collect_outputs(&out->args[0], &outs, &nouts, &outs_alloc);
    if (targets) {
        for (size_t i = 0; i < nh; i++)
            printf("%s\n", h[i].target);
    } else if (json) {
        struct info_out io = {g, h, nh, outs, nouts};
        cli_print_written(info_write, &io);
    } else {
        info_text(g, h, nh, outs, nouts);
        cli_print_notes(g, 20);
    }
    free(h);
    free(outs);
    cli_session_close(&ss);
    return CGS_EXIT_OK;
}
