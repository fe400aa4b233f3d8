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
static void add_sig(cJSON *o, const struct cgs_sig_spec *sp)
{
    if (!sp || sp->kind == CGS_PT2_NONE)
        return;
    cJSON_AddStringToObject(o, "kind", cgs_pt2_kind_name(sp->kind));
    if (sp->target)
        cJSON_AddStringToObject(o, "fqn", sp->target);
}

static void describe_sig(const struct cgs_sig_spec *sp, struct cgs_buf *b)
{
    if (!sp || sp->kind == CGS_PT2_NONE)
        return;
    cgs_buf_addf(b, "  [%s%s%s]", cgs_pt2_kind_name(sp->kind), sp->target ? " " : "",
                 sp->target ? sp->target : "");
}

static cJSON *info_json(const struct cgs_graph *g, struct op_count *h, size_t nh,
                        const struct cgs_node **outs, size_t nouts)
{
    cJSON *doc = cli_json_doc("info"), *o, *arr;
    uint32_t kinds[CGS_NODE_OP_COUNT] = {0};

    cJSON_AddStringToObject(doc, "name", g->name ? g->name : "");
    cJSON_AddStringToObject(doc, "file", g->file ? g->file : "");
    o = cJSON_AddObjectToObject(doc, "producer");
    if (g->producer.tool)
        cJSON_AddStringToObject(o, "tool", g->producer.tool);
    if (g->producer.version)
        cJSON_AddStringToObject(o, "version", g->producer.version);
    cJSON_AddStringToObject(o, "stage", cgs_stage_names[g->producer.stage]);
    if (g->producer.is_inference >= 0)
        cJSON_AddBoolToObject(o, "is_inference", g->producer.is_inference);
    if (g->producer.is_backward >= 0)
        cJSON_AddBoolToObject(o, "is_backward", g->producer.is_backward);
    cJSON_AddNumberToObject(doc, "nodes", g->n_nodes);
    for (uint32_t i = 0; i < g->n_nodes; i++)
        kinds[g->nodes[i]->op]++;
    o = cJSON_AddObjectToObject(doc, "node_kinds");
    for (int k = 0; k < CGS_NODE_OP_COUNT; k++)
        if (kinds[k])
            cJSON_AddNumberToObject(o, cgs_node_op_names[k], kinds[k]);
    o = cJSON_AddObjectToObject(doc, "ops");
    for (size_t i = 0; i < nh; i++)
        cJSON_AddNumberToObject(o, h[i].target, h[i].count);
    arr = cJSON_AddArrayToObject(doc, "inputs");
    for (uint32_t i = 0, k = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        if (n->op != CGS_NODE_PLACEHOLDER)
            continue;
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", n->name);
        cJSON_AddStringToObject(o, "target", n->target);
        cJSON_AddItemToObject(o, "val", cgs_json_val(n->val));
        add_sig(o, k < g->n_sig_inputs ? &g->sig_inputs[k] : NULL); /* .pt2 signature */
        k++;
        cJSON_AddItemToArray(arr, o);
    }
    arr = cJSON_AddArrayToObject(doc, "outputs");
    for (size_t i = 0; i < nouts; i++) {
        o = cJSON_CreateObject();
        if (outs[i]) {
            cJSON_AddStringToObject(o, "name", outs[i]->name);
            cJSON_AddItemToObject(o, "val", cgs_json_val(outs[i]->val));
            add_sig(o, i < g->n_sig_outputs ? &g->sig_outputs[i] : NULL);
        } else {
            cJSON_AddNullToObject(o, "name");
            cJSON_AddNullToObject(o, "val");
        }
        cJSON_AddItemToArray(arr, o);
    }
    o = cJSON_AddObjectToObject(doc, "symbols");
    for (uint32_t i = 0; i < g->n_symbols; i++) {
        const struct cgs_symbol *s = &g->symbols[i];
        cJSON *so = cJSON_AddObjectToObject(o, s->name);
        if (s->is_float && s->has_fhint)
            cJSON_AddNumberToObject(so, "hint", s->fhint);
        else if (s->has_hint)
            cgs_json_add_int(so, "hint", s->hint);
        else
            cJSON_AddNullToObject(so, "hint");
        if (s->is_float)
            cJSON_AddBoolToObject(so, "float", true);
        if (s->has_min)
            cJSON_AddNumberToObject(so, "min", (double)s->min);
        else
            cJSON_AddNullToObject(so, "min");
        if (s->has_max)
            cJSON_AddNumberToObject(so, "max", (double)s->max);
        else
            cJSON_AddNullToObject(so, "max");
    }
    arr = cJSON_AddArrayToObject(doc, "subgraphs");
    for (uint32_t i = 0; i < g->n_subgraphs; i++) {
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", g->subgraph_names[i]);
        cJSON_AddNumberToObject(o, "nodes", g->subgraphs[i]->n_nodes);
        cJSON_AddItemToArray(arr, o);
    }
    arr = cJSON_AddArrayToObject(doc, "notes");
    for (uint32_t i = 0; i < g->n_notes; i++) {
        const struct cgs_note *nt = &g->notes[i];
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "level",
                                nt->level == CGS_NOTE_ERROR     ? "error"
                                : nt->level == CGS_NOTE_WARNING ? "warning"
                                                                : "info");
        if (nt->node)
            cJSON_AddStringToObject(o, "node", nt->node->name);
        cJSON_AddStringToObject(o, "message", nt->msg);
        cJSON_AddItemToArray(arr, o);
    }
    return doc;
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
        /* the document (every input's shape: 0.2 MB on GPT-2) is made in a bump region and
           dropped with it: no allocation per item, no cJSON_Delete walk */
        struct cgs_jbump region;
        cgs_jbump_begin(&region);
        cli_print_json(info_json(g, h, nh, outs, nouts));
        cgs_jbump_end(&region);
    } else {
        info_text(g, h, nh, outs, nouts);
        cli_print_notes(g, 20);
    }
    free(h);
    free(outs);
    cli_session_close(&ss);
    return CGS_EXIT_OK;
}
