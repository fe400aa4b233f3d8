/* cgscope diff A B: what changed between two runs, and a CI gate on it (lib/run/diff.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lib/run/diff.h"
#include "tools/cmd.h"
#include "tools/job.h"
#include "tools/prof-out.h"

static int run(int argc, char **argv);

static const struct cli_opt options[] = {
    CLI_OPT("fail-on", 'f', "LIST",
            "exit 1 when a change of these kinds goes the wrong way, a comma list of:\n"
            "compile_failure, graph_break, recompiles, pieces (more), cache_key (a hit\n"
            "that became a miss), graph, ops, symbols, shapes, dtypes, strides, layout\n"
            "(any change), compile-time:N% (a compile N% slower), gpu-time:N% (a\n"
            "piece or kernel N% slower a call, past the noise); default\n"
            "compile_failure,graph_break,recompiles,pieces; none: never"),
    CLI_OPT_SUGGEST("split-ops", 's', "OP[,OP...]", cli_presets_values,
            "splitting ops (presets @vllm, @magi, @sdpa): both runs' graphs are split\n"
            "and their pieces compared"),
    CLI_OPT("html", 'H', "FILE", "also write B's page with every change marked (what `cgscope\n"
            "html B --baseline A -o FILE` writes)"),
    CLI_OPT("json", 'j', NULL, "write one JSON document to stdout"),
    CLI_OPT_END,
};

const struct cmd cmd_diff = {
    .name = "diff",
    .usage = "cgscope diff A B [--fail-on LIST] [--split-ops OPS] [--html FILE] [--json]",
    .summary = "what changed between two runs (graph breaks, recompiles, operators, shapes, "
               "GPU time, ...): a CI gate",
    .help =
        "A and B are two runs of one program: TORCH_TRACE logs or folders, graphs or refs,\n"
        "cache folders, profile folders (cgscope profile's, with the graphs the bridge\n"
        "dumped there). diff pairs what belongs together (frames by code object, compile ids\n"
        "in order within a frame, graphs by compile id and stage, nodes by operator, the\n"
        "program's code they come from and use, never by name alone; profiled pieces by\n"
        "name) and prints every change, most costly first, with where it is and both runs'\n"
        "values: compile failures new or gone, graph breaks added or removed (site, reason,\n"
        "hits), recompiles per frame (with the guards that failed), frames and graphs only\n"
        "one run has, operators added or removed per graph (with the nodes), nodes whose\n"
        "symbols (static <-> dynamic), shapes, dtypes or strides changed, pieces under the\n"
        "split (count and the cuts that moved), Inductor's layout decision, cache lookups\n"
        "whose status changed or whose key differs (with the key's components that differ,\n"
        "as cache diff names them), compile time per compile and per phase (aot_autograd,\n"
        "backend, inductor, inductor_codegen) twice as slow or fast and by 1 s (one compile\n"
        "of one program varies by 1.7x between a machine's first process and its second;\n"
        "--fail-on compile-time:N% sets N% and 100 ms), and, where both runs have a profile,\n"
        "GPU time a call of each piece and of each kernel within it: the medians of the\n"
        "calls, past 5% of A's, past the larger interquartile range of the two runs' calls\n"
        "(the noise) and past 1 us. A run against itself, or two runs of one program, prints\n"
        "no change. Two runs of one rank each, different ranks (rank 0's log against rank\n"
        "3's), are compared rank against rank: why one rank compiled differently.\n\n",
    .more =
        "Exit status: 1 when a change in --fail-on went the wrong way (a new compile\n"
        "failure or graph break, more recompiles, more pieces, a cache hit become a miss,\n"
        "a compile or piece slower past compile-time:N% or gpu-time:N%; any change of\n"
        "graph, ops, symbols, shapes, dtypes, strides, layout), 0 otherwise, 2 on bad input\n"
        "or a run with nothing read (an empty folder: a gate does not pass on nothing), or\n"
        "two runs with nothing this diff compares (events only).\n\n"
        "JSON keys: format, version, a, b, pairs [{what (rank, frame, compile, graph,\n"
        "piece), a, b}], changes [{kind, subject, a, b, message, worse, graph, pieces,\n"
        "compile_ids, rank, pct}], regressions (the changes that fail the gate), fail_on,\n"
        "failed (bool). kind is one of compile_failure, graph_break, recompiles, graph,\n"
        "pieces, ops, symbols, shapes, dtypes, strides, layout, cache_key, compile_time,\n"
        "gpu_time.\n\n"
        "examples:\n"
        "  cgscope diff samples/resnet18.dynamo.json samples/resnet18_dyn.dynamo.json\n"
        "  cgscope diff samples/graph_break.torch_trace.log samples/graph_break.torch_trace.log\n"
        "  cgscope diff samples/cgs_transformer.dynamo.json samples/cgs_transformer_dyn.dynamo.json --json\n"
        "  cgscope diff samples/profile samples/profile --fail-on gpu-time:5%\n",
    .run = run,
    .options = options,
};

struct gate {
    bool kind[CGS_DIFF_KIND_COUNT];
    double compile_pct; /* compile-time:N% (0: not gated) */
    double gpu_pct;     /* gpu-time:N% (0: not gated) */
    char text[256];
};

static const enum cgs_diff_kind directional[] = {CGS_DIFF_COMPILE_FAILURE, CGS_DIFF_GRAPH_BREAK,
                                                 CGS_DIFF_RECOMPILES, CGS_DIFF_PIECES,
                                                 CGS_DIFF_CACHE_KEY, CGS_DIFF_COMPILE_TIME,
                                                 CGS_DIFF_GPU_TIME};

static bool has_direction(enum cgs_diff_kind k)
{
    for (size_t i = 0; i < sizeof(directional) / sizeof(directional[0]); i++)
        if (directional[i] == k)
            return true;
    return false;
}

static int parse_gate(const char *arg, struct gate *g)
{
    char *copy = cgs_xstrdup(arg), *save = NULL;
    memset(g, 0, sizeof(*g));
    snprintf(g->text, sizeof(g->text), "%s", arg);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k;
        char *end;
        if (!strcmp(t, "none"))
            continue;
        if (!strncmp(t, "compile-time:", 13) || !strncmp(t, "gpu-time:", 9)) {
            bool gpu = t[0] == 'g';
            size_t at = gpu ? 9 : 13;
            double pct = strtod(t + at, &end);
            if (end == t + at || (*end && strcmp(end, "%")) || !(pct > 0 && pct < 1e6)) {
                int rc = cli_usage_error(&cmd_diff, "--fail-on %s: expected %.*sN%% with N a "
                                                    "percentage above 0",
                                         t, (int)at, t);
                free(copy); /* t points into it: said first */
                return rc;
            }
            *(gpu ? &g->gpu_pct : &g->compile_pct) = pct;
            g->kind[gpu ? CGS_DIFF_GPU_TIME : CGS_DIFF_COMPILE_TIME] = true;
            continue;
        }
        k = cgs_diff_kind_from_name(t);
        if (k < 0 || k == CGS_DIFF_COMPILE_TIME || k == CGS_DIFF_GPU_TIME) {
            int rc = cli_usage_error(&cmd_diff, "--fail-on: '%s' is not a change diff gates on "
                                                "(compile_failure, graph_break, recompiles, "
                                                "pieces, cache_key, graph, ops, symbols, "
                                                "shapes, dtypes, strides, layout, "
                                                "compile-time:N%%, gpu-time:N%%, none)",
                                     t);
            free(copy); /* t points into it: said first */
            return rc;
        }
        g->kind[k] = true;
    }
    free(copy);
    return 0;
}

static bool is_regression(const struct gate *g, const struct cgs_diff_change *c)
{
    if (!g->kind[c->kind])
        return false;
    if (c->kind == CGS_DIFF_COMPILE_TIME)
        return c->worse && c->pct >= g->compile_pct;
    if (c->kind == CGS_DIFF_GPU_TIME)
        return c->worse && c->pct >= g->gpu_pct;
    return has_direction(c->kind) ? c->worse : true;
}

static int parse_args(int argc, char **argv, struct cli_list *ops, bool *json, struct gate *g,
                      const char **html)
{
    int c, rc;
    optind = 0;
    opterr = 0;
    if ((rc = parse_gate("compile_failure,graph_break,recompiles,pieces", g)))
        return rc;
    while ((c = cli_getopt(&cmd_diff, argc, argv)) != -1) {
        switch (c) {
        case 'j': *json = true; break;
        case 'H': *html = optarg; break;
        case 'f':
            if ((rc = parse_gate(optarg, g)))
                return rc;
            break;
        case 's':
            if (cli_split_ops_add(ops, optarg))
                return CGS_EXIT_BAD_INPUT;
            break;
        default: return CGS_EXIT_BAD_INPUT;
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(&cmd_diff, "expected two runs, A and B (logs, folders, graphs "
                                          "or refs), got %d",
                               argc - optind);
    return 0;
}

/* One side's run: its job, the graphs as the diff reads them, and its profile. */
struct side {
    struct cli_job job;
    struct cgs_diff_input in; /* in.graphs is ours to free */
    struct cli_prof_set set;
    struct cgs_prof_report rep;
    bool have_rep;
};

static int read_side(struct side *s, char *path, const struct cli_list *ops)
{
    int rc;
    memset(s, 0, sizeof(*s));
    s->job.progress = true;
    s->job.layout = true;
    s->job.lookups = true;
    s->job.lazy = true; /* each graph read when its pair is compared: two in memory at a time */
    if ((rc = cli_job_run(&s->job, &path, 1, ops)) ||
        (rc = cli_job_profile(&s->job, true, &s->set, &s->rep, &s->have_rep)))
        return rc;
    if (cli_job_read_nothing(&s->job)) /* a run against nothing: every break "gone", exit 0 */
        return cli_file_error(path, "nothing to compare: no graph, compile record or profile in "
                                    "it");
    cli_job_diff_input(&s->job, path, &s->in);
    s->in.prof = s->have_rep ? &s->rep : NULL;
    return 0;
}

static void side_release(struct side *s)
{
    free((void *)s->in.graphs);
    if (s->have_rep)
        cgs_prof_report_release(&s->rep);
    cli_prof_release(&s->set);
    cli_job_release(&s->job);
}

struct diff_out {
    const struct side *a, *b;
    const struct cgs_diff *d;
    const struct gate *g;
    uint32_t bad;
};

/* diff --json's document, written straight from the comparison. */
static void diff_write(struct jsonw *w, void *ctx)
{
    const struct diff_out *x = ctx;
    const struct cgs_diff *d = x->d;
    struct jsonw_obj doc, o;
    int dd;
    cli_doc_open(w, &doc, 0, "diff");
    jsonw_field_str(w, &doc, "a", x->a->in.name);
    jsonw_field_str(w, &doc, "b", x->b->in.name);
    dd = doc.depth + 1; /* an item of one of the document's arrays */
    jsonw_field(w, &doc, "pairs");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < d->n_pairs; i++) {
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, dd);
        jsonw_field_str(w, &o, "what", d->pairs[i].what);
        jsonw_field_str(w, &o, "a", d->pairs[i].a);
        jsonw_field_str(w, &o, "b", d->pairs[i].b);
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
    for (int regressions = 0; regressions < 2; regressions++) {
        bool first = true;
        jsonw_field(w, &doc, regressions ? "regressions" : "changes");
        jsonw_raw(w, "[", 1);
        for (uint32_t i = 0; i < d->n_changes; i++) {
            if (regressions && !is_regression(x->g, &d->changes[i]))
                continue;
            if (!first)
                jsonw_sep(w);
            first = false;
            cli_diff_change_write(w, &d->changes[i], dd);
        }
        jsonw_raw(w, "]", 1);
    }
    jsonw_field_str(w, &doc, "fail_on", x->g->text);
    jsonw_field_bool(w, &doc, "failed", x->bad > 0);
    jsonw_close(w, &doc);
}

static void print_json(const struct side *a, const struct side *b, const struct cgs_diff *d,
                       const struct gate *g, uint32_t bad)
{
    struct diff_out x = {a, b, d, g, bad};
    cli_print_written(diff_write, &x);
}

static void print_text(const struct side *a, const struct side *b, const struct cgs_diff *d,
                       const struct gate *g, uint32_t bad)
{
    uint32_t frames = 0, graphs = 0, pieces = 0, only_a = 0, only_b = 0;
    for (uint32_t i = 0; i < d->n_pairs; i++) {
        bool piece = !strcmp(d->pairs[i].what, "piece");
        frames += !strcmp(d->pairs[i].what, "frame") && d->pairs[i].a && d->pairs[i].b;
        graphs += !strcmp(d->pairs[i].what, "graph") && d->pairs[i].a && d->pairs[i].b;
        pieces += piece && d->pairs[i].a && d->pairs[i].b;
        only_a += piece && !d->pairs[i].b;
        only_b += piece && !d->pairs[i].a;
    }
    printf("A: %s\nB: %s\n", a->in.name, b->in.name);
    for (uint32_t i = 0; i < d->n_changes; i++) {
        const struct cgs_diff_change *c = &d->changes[i];
        printf("%s%s: ", is_regression(g, c) ? "regression: " : "", cgs_diff_kind_names[c->kind]);
        for (const char *p = c->message; *p; p++) /* a change a line: torch's reasons have more */
            putchar(*p == '\n' ? ' ' : *p);
        putchar('\n');
    }
    printf("%s%u change%s, %u regression%s (--fail-on %s); %u frame%s and %u graph%s paired",
           d->n_changes ? "\n" : "", d->n_changes, PLURAL(d->n_changes), bad, PLURAL(bad),
           g->text, frames, PLURAL(frames), graphs, PLURAL(graphs));
    if (a->in.prof && b->in.prof) {
        printf(", %u profiled piece%s", pieces, PLURAL(pieces));
        if (only_a || only_b) /* their GPU time is not compared: say so */
            printf(" (%u only in A, %u only in B: not compared)", only_a, only_b);
    } else if (a->in.prof || b->in.prof)
        printf("; only %s has a profile (no GPU time compared)", a->in.prof ? "A" : "B");
    putchar('\n');
}

/* --html FILE: B's page against A, as `cgscope html B --baseline A -o FILE` writes it. */
extern const struct cmd cmd_html;
static int write_page(const char *a, const char *b, const char *file, const struct cli_list *ops)
{
    char **hv = cgs_xcalloc(8 + 2 * ops->n, sizeof(*hv));
    int hc = 0, rc;
    hv[hc++] = (char *)"html";
    hv[hc++] = (char *)b;
    hv[hc++] = (char *)"--baseline";
    hv[hc++] = (char *)a;
    for (size_t i = 0; i < ops->n; i++) {
        hv[hc++] = (char *)"--split-ops";
        hv[hc++] = ops->items[i];
    }
    hv[hc++] = (char *)"-o";
    hv[hc++] = (char *)file;
    hv[hc] = NULL;
    rc = cmd_html.run(hc, hv);
    free(hv);
    return rc;
}

static int run(int argc, char **argv)
{
    bool json = false;
    const char *html = NULL;
    int rc;
    struct cli_list ops = CLI_LIST_INIT;
    struct gate gate;
    struct side a, b;
    struct cgs_diff d = {0};
    struct cgs_diff_opts o = CGS_DIFF_OPTS_DEFAULT;
    uint32_t bad = 0;

    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    if ((rc = parse_args(argc, argv, &ops, &json, &gate, &html)))
        goto out;
    if ((rc = read_side(&a, argv[optind], &ops)) || (rc = read_side(&b, argv[optind + 1], &ops)))
        goto out;
    /* a gate on compile time asks for finer bounds than the noise the defaults leave out */
    if (gate.compile_pct > 0 && gate.compile_pct < o.compile_time_pct) {
        o.compile_time_pct = gate.compile_pct;
        o.compile_time_ms = 100;
    }
    if (gate.gpu_pct > 0 && gate.gpu_pct < o.gpu_time_pct)
        o.gpu_time_pct = gate.gpu_pct;
    cgs_diff_build(&a.in, &b.in, &o, &d);
    if (!d.n_pairs && !d.n_changes && !(a.in.prof && b.in.prof)) {
        /* the bridge's events against events: nothing this diff compares ("0 changes" would
           pass a gate on what it cannot see) */
        rc = cli_error("nothing to compare: neither %s nor %s has a compile frame, a graph or a "
                       "profile (`cgscope top` reads the bridge's events, `cgscope cache` a "
                       "compile-cache index)",
                       argv[optind], argv[optind + 1]);
        goto out;
    }
    for (uint32_t i = 0; i < d.n_changes; i++)
        bad += is_regression(&gate, &d.changes[i]);
    if (json)
        print_json(&a, &b, &d, &gate, bad);
    else
        print_text(&a, &b, &d, &gate, bad);
    rc = bad ? CGS_EXIT_CHECK : CGS_EXIT_OK;
    if (html && write_page(argv[optind], argv[optind + 1], html, &ops))
        rc = CGS_EXIT_BAD_INPUT; /* said by html */
out:
    cgs_diff_release(&d);
    side_release(&a);
    side_release(&b);
    cli_list_release(&ops);
    return rc;
}
