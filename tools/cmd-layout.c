/* cgscope layout: Inductor's layout decisions on a post-grad graph, with reasons. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/buf.h"
#include "lib/base/json-alloc.h"
#include "lib/passes/layout.h"
#include "lib/readers/source.h"
#include "tools/cmd.h"
#include "tools/session.h"

static int run(int argc, char **argv);

/* the options run() accepts: --help, the man page, completion and "did you mean" list them */
enum { O_RULES = 256, O_INF, O_TRAIN, O_BWD, O_MKLDNN, O_FORCE, O_OFF, O_UOUT, O_ALL, O_MODEL };

static const struct cli_opt options[] = {
    CLI_OPT("json", 'j', NULL, "write one JSON document to stdout"),
    CLI_OPT_ONE_OF("rules", O_RULES, "RULES", cgs_layout_rules_names,
     "torch-2.11 (default) or torch-2.1 (no FLOP vote; training\n"
     "vetoes for every graph; scaled-dot-product attention veto)"),
    CLI_OPT("inference", O_INF, NULL, "lower as an inference graph (default: producer.is_inference)"),
    CLI_OPT("training", O_TRAIN, NULL, "lower as a training step's forward graph"),
    CLI_OPT("backward", O_BWD, NULL, "lower as a backward graph (default: producer.is_backward)"),
    CLI_OPT("mkldnn", O_MKLDNN, NULL, "mkldnn is enabled and available (CPU convolutions)"),
    CLI_OPT("force-layout-opt", O_FORCE, NULL, "config.force_layout_optimization = True"),
    CLI_OPT("no-layout-opt", O_OFF, NULL, "config.layout_optimization = False"),
    CLI_OPT("user-outputs", O_UOUT, "N",
     "training graphs: the first N outputs are the model's own\n"
     "(default: those before the first saved input)"),
    CLI_OPT("all", O_ALL, NULL, "list every row in the text output"),
    CLI_OPT("model", O_MODEL, "NAME", "the model to read from a .pt2 archive holding several"),
    CLI_OPT_END,
};

const struct cmd cmd_layout = {
    .name = "layout",
    .usage = "cgscope layout [--json] [--rules torch-2.11|torch-2.1] "
             "[--inference|--training|--backward] [--mkldnn] "
             "[--force-layout-opt|--no-layout-opt]\n"
             "                      [--user-outputs] [--all] [--model NAME] GRAPH",
    .summary = "Inductor's layout decisions: channels-last verdict, preferred nodes, stride orders",
    .help =
        "Replays torch/_inductor/graph.py (PyTorch 2.11 by default) on a post-grad graph:\n"
        "decide_layout_opt (the verdict and the rule that fired), the nodes that prefer\n"
        "channels last, per-node stride-order requirements, fixed-layout pins, and which\n"
        "nodes Inductor would run as fallback kernels (from torch 2.11's lowering table).\n\n",
    .more =
        "JSON keys: layout_opt, reason, prefer_channels_last, rule, rule_nodes, rules,\n"
        "is_inference, is_backward, nodes, nconv, convolutions [{name, class, weight, groups,\n"
        "transposed, free_symbols, flops, counted, ...}], flop_vote {flops_by_class,\n"
        "total_flops, weighted_flops}, stride_orders [{name, requirement, order}],\n"
        "fixed_layout [{name, user, order, channels_last}], realize_hints,\n"
        "channels_last_if_realized, input_constraints [{name, target, constraint}],\n"
        "fallbacks [{name, target, kind}], cpp_wrapper_unsupported [{name, dtype}],\n"
        "lowering_table, inferred_values (nodes without a recorded value, whose value\n"
        "came from shape inference).\n\n"
        "example:\n"
        "  cgscope layout samples/resnet18.post_grad.json\n",
    .run = run,
    .options = options,
};

static void order_write(struct jsonw *w, const uint8_t *order, uint32_t n)
{
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            jsonw_sep(w);
        jsonw_int(w, order[i]);
    }
    jsonw_raw(w, "]", 1);
}

static const char *req_name(enum cgs_stride_req r)
{
    switch (r) {
    case CGS_STRIDE_EAGER:
        return "eager";
    case CGS_STRIDE_USER_VISIBLE:
        return "user_visible";
    case CGS_STRIDE_CHANNELS_LAST:
        return "channels_last";
    default:
        return "free";
    }
}

/* The per-node lists of the document, one a pass over the nodes (which list: k). */
enum { L_STRIDE, L_FIXED, L_REALIZE, L_CL_REALIZED, L_CONSTRAINT, L_FALLBACK, L_CPP, L_LISTS };
static const char *const list_keys[L_LISTS] = {
    "stride_orders", "fixed_layout", "realize_hints", "channels_last_if_realized",
    "input_constraints", "fallbacks", "cpp_wrapper_unsupported"};

/* Node i's entry of list k, when it has one (an item of an array at depth). */
static bool list_item(struct jsonw *w, const struct cgs_layout *l, uint32_t i, int k, bool first,
                      int depth)
{
    const struct cgs_node *n = l->graph->nodes[i];
    const struct cgs_layout_node *ln = &l->nodes[i];
    const struct cgs_tensor *t;
    struct jsonw_obj o;
    switch (k) {
    case L_STRIDE:
        if (ln->req == CGS_STRIDE_FREE)
            return false;
        break;
    case L_FIXED:
        if (!ln->pinned_by && !ln->pinned_cl_by)
            return false;
        break;
    case L_REALIZE:
    case L_CL_REALIZED:
        if (!(k == L_REALIZE ? ln->realize_hint : ln->cl_if_realized))
            return false;
        if (!first)
            jsonw_sep(w);
        jsonw_string(w, n->name);
        return true;
    case L_CONSTRAINT:
        if (ln->constraint == CGS_CONSTRAINT_NONE)
            return false;
        break;
    case L_FALLBACK:
        if (ln->fallback == CGS_FALLBACK_NONE)
            return false;
        break;
    default:
        t = cgs_node_tensor(n);
        if (!t || t->dtype == CGS_DTYPE_UNKNOWN || cgs_inductor_cpp_wrapper_supports(t->dtype))
            return false;
        break;
    }
    if (!first)
        jsonw_sep(w);
    jsonw_open(w, &o, depth);
    jsonw_field_str(w, &o, "name", n->name);
    switch (k) {
    case L_STRIDE:
        jsonw_field_str(w, &o, "requirement", req_name(ln->req));
        jsonw_field(w, &o, "order");
        order_write(w, ln->order, ln->ndim);
        jsonw_field_bool(w, &o, "dense", ln->dense);
        jsonw_field_bool(w, &o, "as_strided_input", ln->as_strided_input);
        break;
    case L_FIXED:
        jsonw_field_str(w, &o, "user", (ln->pinned_cl_by ? ln->pinned_cl_by : ln->pinned_by)->name);
        jsonw_field(w, &o, "order");
        order_write(w, ln->pin_order, ln->ndim);
        jsonw_field_bool(w, &o, "channels_last", ln->pinned_cl_by != NULL);
        break;
    case L_CONSTRAINT:
        jsonw_field_str(w, &o, "target", n->target);
        jsonw_field_str(w, &o, "constraint", cgs_input_constraint_name(ln->constraint));
        break;
    case L_FALLBACK:
        jsonw_field_str(w, &o, "target", n->target ? n->target : "");
        jsonw_field_str(w, &o, "kind", cgs_fallback_kind_name(ln->fallback));
        break;
    default:
        jsonw_field_str(w, &o, "dtype", cgs_dtypes[cgs_node_tensor(n)->dtype].name);
        break;
    }
    jsonw_close(w, &o);
    return true;
}

/* layout --json's document (and the page's layout), written straight from the decisions at
 * depth (0: a document of its own). */
static void layout_write(struct jsonw *w, const struct cgs_layout *l, int depth)
{
    const struct cgs_graph *g = l->graph;
    struct jsonw_obj doc, o, by;

    cli_doc_open(w, &doc, depth, "layout");
    jsonw_field_bool(w, &doc, "layout_opt", l->layout_opt);
    jsonw_field_str(w, &doc, "reason", l->reason);
    jsonw_field(w, &doc, "prefer_channels_last");
    cli_names_write(w, l->prefer_cl, l->n_prefer_cl);
    jsonw_field_str(w, &doc, "rule", cgs_layout_rule_id(l->rule));
    jsonw_field(w, &doc, "rule_nodes");
    cli_names_write(w, l->rule_nodes, l->n_rule_nodes);
    jsonw_field_str(w, &doc, "rules", cgs_layout_rules_name(l->opts.rules));
    jsonw_field_str(w, &doc, "graph", g->file ? g->file : "");
    jsonw_field_bool(w, &doc, "is_inference", l->is_inference);
    jsonw_field_bool(w, &doc, "is_backward", l->is_backward);
    jsonw_field_str(w, &doc, "mode_reason", l->mode_reason ? l->mode_reason : "");
    jsonw_field_num(w, &doc, "nodes", l->n_nodes);
    jsonw_field_num(w, &doc, "nconv", l->n_convs);

    jsonw_field(w, &doc, "convolutions");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < l->n_convs; i++) {
        const struct cgs_layout_conv *cv = &l->convs[i];
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, doc.depth + 1);
        jsonw_field_str(w, &o, "name", cv->node->name);
        jsonw_field_str(w, &o, "class", cgs_conv_class_name(cv->cls));
        jsonw_field_bool(w, &o, "known", cv->known);
        jsonw_field_bool(w, &o, "mkldnn", cv->mkldnn);
        jsonw_field(w, &o, "weight");
        jsonw_raw(w, "[", 1);
        for (uint32_t k = 0; k < cv->weight_ndim && k < 5; k++) {
            if (k)
                jsonw_sep(w);
            jsonw_number(w, (double)cv->weight[k]);
        }
        jsonw_raw(w, "]", 1);
        jsonw_field_num(w, &o, "groups", (double)cv->groups);
        jsonw_field_bool(w, &o, "transposed", cv->transposed);
        jsonw_field_bool(w, &o, "free_symbols", cv->free_symbols);
        jsonw_field_bool(w, &o, "from_hints", cv->hinted);
        jsonw_field_bool(w, &o, "is_grouped", cv->grouped);
        jsonw_field_bool(w, &o, "is_small_channel", cv->small);
        jsonw_field_bool(w, &o, "is_in_out_channel", cv->in_out);
        jsonw_field(w, &o, "flops");
        if (cv->has_flops)
            jsonw_number(w, (double)cv->flops);
        else
            jsonw_raw(w, "null", 4);
        jsonw_field_bool(w, &o, "counted", cv->counted);
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &doc, "flop_vote");
    if (l->voted) {
        jsonw_open(w, &o, doc.depth);
        jsonw_field(w, &o, "flops_by_class");
        jsonw_open(w, &by, o.depth);
        for (int k = 0; k < CGS_CONV_CLASS_COUNT; k++)
            if (l->class_seen[k])
                jsonw_field_num(w, &by, cgs_conv_class_name(k), l->flops_by_class[k]);
        jsonw_close(w, &by);
        jsonw_field_num(w, &o, "total_flops", l->total_flops);
        jsonw_field_num(w, &o, "weighted_flops", l->weighted_flops);
        jsonw_close(w, &o);
    } else {
        jsonw_raw(w, "null", 4);
    }
    for (int k = 0; k < L_LISTS; k++) {
        bool first = true;
        jsonw_field(w, &doc, list_keys[k]);
        jsonw_raw(w, "[", 1);
        for (uint32_t i = 0; i < g->n_nodes; i++)
            if (list_item(w, l, i, k, first, doc.depth + 1))
                first = false;
        jsonw_raw(w, "]", 1);
    }
    jsonw_field_str(w, &doc, "lowering_table", cgs_inductor_table_version());
    jsonw_field_num(w, &doc, "inferred_values", l->n_inferred);
    jsonw_close(w, &doc);
}

/* A titled list of names in columns (as ls lays them out), at most 12 without --all. */
void cli_layout_write(struct jsonw *w, const struct cgs_layout *l, int depth)
{
    layout_write(w, l, depth);
}

static void layout_doc(struct jsonw *w, void *l)
{
    layout_write(w, l, 0);
}

static void print_names(const char *title, const struct cgs_node *const *nodes, uint32_t n,
                        bool all)
{
    uint32_t max = all ? n : 12, shown = n < max ? n : max, w = 8, cols, rows;
    printf("%s (%u):\n", title, n);
    for (uint32_t i = 0; i < shown; i++)
        if (strlen(nodes[i]->name) + 2 > w)
            w = (uint32_t)strlen(nodes[i]->name) + 2;
    cols = 96 / w ? 96 / w : 1;
    rows = (shown + cols - 1) / cols;
    for (uint32_t r = 0; r < rows; r++) {
        int pad = 1;
        for (uint32_t c = 0; c < cols; c++) {
            uint32_t i = c * rows + r;
            if (i >= shown)
                break;
            printf("%*s%s", pad + 1, "", nodes[i]->name);
            pad = (int)(w - 1 - strlen(nodes[i]->name));
        }
        printf("\n");
    }
    if (n > max)
        printf("  ... (%u more; --all lists them)\n", n - max);
}

static void print_order(const uint8_t *order, uint32_t n)
{
    printf("[");
    for (uint32_t i = 0; i < n; i++)
        printf("%s%u", i ? ", " : "", order[i]);
    printf("]");
}

static void layout_text(const struct cgs_layout *l, bool all)
{
    const struct cgs_graph *g = l->graph;
    uint32_t shown;

    printf("%slayout opt %s%s: %s\n", cli_paint(1, "bold"), l->layout_opt ? "ON" : "OFF",
           CLI_RESET(1), l->reason);
    printf("rule %s (%s), %s graph, %u nodes, %u convolution%s\n", cgs_layout_rule_id(l->rule),
           cgs_layout_rules_name(l->opts.rules),
           l->is_backward ? "backward" : l->is_inference ? "inference" : "training forward",
           l->n_nodes, l->n_convs, l->n_convs == 1 ? "" : "s");
    if (l->mode_reason && strstr(l->mode_reason, "missing"))
        printf("graph kind: %s\n", l->mode_reason);
    if (l->n_convs) {
        printf("\nconvolutions:\n  %-24s %-8s %-18s %6s %16s\n", "name", "class", "weight",
               "groups", "flops");
        shown = 0;
        for (uint32_t i = 0; i < l->n_convs && (all || shown < 20); i++, shown++) {
            const struct cgs_layout_conv *cv = &l->convs[i];
            char w[96] = "?";
            if (cv->known) {
                size_t off = 0;
                for (uint32_t k = 0; k < cv->weight_ndim && k < 5 && off < sizeof(w); k++)
                    off += (size_t)snprintf(w + off, sizeof(w) - off, "%s%lld", k ? "x" : "",
                                            (long long)cv->weight[k]);
            }
            char f[32] = "-";
            if (cv->has_flops)
                snprintf(f, sizeof(f), "%lld%s", (long long)cv->flops, cv->hinted ? "*" : "");
            printf("  %-24s %-8s %-18s %6lld %16s\n", cv->node->name, cgs_conv_class_name(cv->cls),
                   w, (long long)cv->groups, f);
        }
        if (shown < l->n_convs)
            printf("  ... %u more (--all lists them)\n", l->n_convs - shown);
    }
    if (l->voted) {
        printf("\nFLOP vote:");
        for (int k = 0; k < CGS_CONV_CLASS_COUNT; k++)
            if (l->class_seen[k])
                printf(" %s %.6g x %.3f;", cgs_conv_class_name(k), l->flops_by_class[k],
                       cgs_conv_class_multiplier[k]);
        printf(" weighted %.6g vs %.6g\n", l->weighted_flops, l->total_flops);
    }
    printf("\n");
    print_names("prefer channels last", l->prefer_cl, l->n_prefer_cl, all);

    uint32_t counts[4] = {0}, pins = 0, hints = 0, fbs = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        counts[l->nodes[i].req]++;
        pins += l->nodes[i].pinned_by || l->nodes[i].pinned_cl_by;
        hints += l->nodes[i].realize_hint;
        fbs += l->nodes[i].fallback != CGS_FALLBACK_NONE;
    }
    printf("\nstride orders (%u channels last, %u eager, %u user visible):\n",
           counts[CGS_STRIDE_CHANNELS_LAST], counts[CGS_STRIDE_EAGER],
           counts[CGS_STRIDE_USER_VISIBLE]);
    shown = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_layout_node *ln = &l->nodes[i];
        if (ln->req == CGS_STRIDE_FREE)
            continue;
        if (!all && shown == 12) {
            printf("  ... (--all lists them)\n");
            break;
        }
        printf("  %-32s %-13s ", g->nodes[i]->name, req_name(ln->req));
        print_order(ln->order, ln->ndim);
        printf("\n");
        shown++;
    }
    printf("\nfixed layouts (%u), realize hints (%u):\n", pins, hints);
    shown = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_layout_node *ln = &l->nodes[i];
        if (!ln->pinned_by && !ln->pinned_cl_by)
            continue;
        if (!all && shown == 12) {
            printf("  ... (--all lists them)\n");
            break;
        }
        printf("  %-32s pinned %s by %s ", g->nodes[i]->name,
               ln->pinned_cl_by ? "channels last" : "to eager order",
               (ln->pinned_cl_by ? ln->pinned_cl_by : ln->pinned_by)->name);
        print_order(ln->pin_order, ln->ndim);
        printf("\n");
        shown++;
    }
    printf("\nfallbacks (%u; lowering table from torch %s):\n", fbs, cgs_inductor_table_version());
    shown = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_layout_node *ln = &l->nodes[i];
        if (ln->fallback == CGS_FALLBACK_NONE)
            continue;
        if (!all && shown == 12) {
            printf("  ... (--all lists them)\n");
            break;
        }
        printf("  %-32s %-18s %s\n", g->nodes[i]->name, cgs_fallback_kind_name(ln->fallback),
               g->nodes[i]->target ? g->nodes[i]->target : "");
        shown++;
    }
}

struct layout_args {
    bool json, all;
};

static int parse_args(int argc, char **argv, struct cli_session *ss, struct layout_args *a)
{
    struct cgs_layout_opts *lo = &ss->layout_opts;
    bool mode_set = false, sw_set = false;
    unsigned long uo;
    int c;

    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_layout, argc, argv)) != -1) {
        switch (c) {
        case 'j': a->json = true; break;
        case O_RULES: /* one of cgs_layout_rules_names: cli_getopt checked */
            lo->rules = (enum cgs_layout_rules)cgs_layout_rules_from_name(optarg);
            break;
        case O_INF:
        case O_TRAIN:
        case O_BWD:
            if (mode_set)
                return cli_usage_error(&cmd_layout,
                                       "--inference, --training and --backward exclude each other");
            mode_set = true;
            lo->mode = c == O_INF     ? CGS_LAYOUT_MODE_INFERENCE
                       : c == O_TRAIN ? CGS_LAYOUT_MODE_TRAINING
                                      : CGS_LAYOUT_MODE_BACKWARD;
            break;
        case O_MKLDNN: lo->mkldnn = true; break;
        case O_FORCE:
        case O_OFF:
            if (sw_set)
                return cli_usage_error(&cmd_layout,
                                       "--force-layout-opt and --no-layout-opt exclude each other");
            sw_set = true;
            lo->sw = c == O_FORCE ? CGS_LAYOUT_SWITCH_FORCE_ON : CGS_LAYOUT_SWITCH_OFF;
            break;
        case O_UOUT:
            if (!cli_parse_uint(optarg, &uo) || uo > 1u << 30)
                return cli_usage_error(&cmd_layout, "bad --user-outputs '%s'", optarg);
            lo->user_outputs = (int)uo;
            break;
        case O_ALL: a->all = true; break;
        case O_MODEL: ss->model = optarg; break;
        default: return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_layout,
                               optind == argc ? "missing GRAPH" : "expected one GRAPH");
    ss->path = argv[optind];
    ss->prefer = CGS_STAGE_POST_GRAD; /* from a TORCH_TRACE log: the graph Inductor lowers */
    return 0;
}

/* Inductor decides layouts on the post-grad graph: answering for another stage (where
 * torch.conv2d is no aten.convolution) would be wrong, not merely approximate. 0, or said. */
static int check_stage(const struct cgs_graph *g, const char *path)
{
    enum cgs_stage st = g->producer.stage;
    bool log = !strchr(path, '#') && (cgs_source_kind_of(path) == CGS_SRCK_TRACE ||
                                      cgs_source_kind_of(path) == CGS_SRCK_TRACE_DIR);
    if ((st == CGS_STAGE_DYNAMO || st == CGS_STAGE_EXPORT || st == CGS_STAGE_AOT_JOINT) &&
        strchr(path, '#'))
        return cli_file_error(path, "a %s graph: Inductor decides layout on the post-grad graph; "
                                    "give the log's post_grad ref (cgscope graphs LOG lists them)",
                              cgs_stage_names[st]);
    if ((st == CGS_STAGE_DYNAMO || st == CGS_STAGE_EXPORT || st == CGS_STAGE_AOT_JOINT) && log)
        return cli_file_error(path, "a %s graph, and the log holds no post-grad graph, where "
                                    "Inductor decides layout: torch logs one per compile that "
                                    "Inductor lowers (inductor_post_grad_graph); this run's "
                                    "backend was not Inductor, or the log was filtered",
                              cgs_stage_names[st]);
    if (st == CGS_STAGE_DYNAMO || st == CGS_STAGE_EXPORT || st == CGS_STAGE_AOT_JOINT)
        return cli_file_error(path, "a %s graph: Inductor decides layout on the post-grad graph; "
                                    "dump one with the bridge "
                                    "(cgscope_torch.dump_backend(dir, post_grad=True)), or run "
                                    "with TORCH_TRACE and give the log",
                              cgs_stage_names[st]);
    if (st != CGS_STAGE_POST_GRAD)
        cli_file_warn(path, "a graph of stage '%s': layout decisions are Inductor's on "
                            "post-grad graphs; answering as if this were one",
                      cgs_stage_names[st]);
    return 0;
}

static int run(int argc, char **argv)
{
    struct cli_session ss;
    struct layout_args a = {false, false};
    struct cgs_graph *g;
    struct cgs_layout *l;
    int rc;

    cli_session_init(&ss, NULL);
    if ((rc = parse_args(argc, argv, &ss, &a)))
        goto out;
    if (!(g = cli_session_graph(&ss))) {
        rc = CGS_EXIT_BAD_INPUT;
        goto out;
    }
    if ((rc = check_stage(g, ss.path)))
        goto out;
    if (!(l = cli_session_layout(&ss))) {
        rc = cli_session_fail(&ss);
        goto out;
    }
    if (a.json) {
        /* one tree with a row for every strided node (5.6 MB on 320k nodes): made in a bump
           region and dropped with it, not one allocation and one free per item */
        struct cgs_jbump region;
        cgs_jbump_begin(&region);
        cli_print_written(layout_doc, (void *)l);
        cgs_jbump_end(&region);
    } else {
        layout_text(l, a.all);
        cli_print_notes(g, 20);
    }
out:
    cli_session_close(&ss);
    return rc;
}
