/* cgscope report: the GPU time of each piece (or NVTX range) from CUPTI traces. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ir/graph.h"
#include "lib/run/prof.h"
#include "lib/passes/split.h"
#include "tools/cmd.h"
#include "tools/session.h"
#include "tools/prof-out.h"

static int run(int argc, char **argv);

/* the options run() accepts: --help, the man page, completion and "did you mean" list them */
enum { O_PREFIX = 256, O_KERNELS, O_GRAPH, O_SPLIT_OPS, O_MODEL, O_GRAPH_ID, O_TRACE_EVENTS };
static const struct cli_opt options[] = {
    CLI_OPT("ranges", 'r', NULL, "one row per NVTX range (innermost), not per piece"),
    CLI_OPT("prefix", O_PREFIX, "P",
     "the range-name prefix that marks a piece (default: what\n"
     "`cgscope profile --nvtx-prefix` recorded, else \"cgscope:\")"),
    CLI_OPT("kernels", O_KERNELS, "N", "rows of the per-kernel table (default 15; 0: all)"),
    CLI_OPT("graph", O_GRAPH, "G",
     "the Dynamo graph the pieces come from: every piece of its\n"
     "split (--split-ops) is listed, with its node count, run or not"),
    CLI_OPT_SUGGEST("split-ops", O_SPLIT_OPS, "OPS", cli_presets_values, "with --graph: the ops it splits at\n" CLI_SPLIT_PRESETS_HELP),
    CLI_OPT("graph-id", O_GRAPH_ID, "ID",
     "with --graph: the compile id of the graph (\"0/0\") whose pieces to list, when\n"
     "the traces hold several graphs' (a model with graph breaks); default: the\n"
     "graph file's producer.compile_id, which the bridge writes"),
    CLI_OPT("model", O_MODEL, "NAME",
     "with --graph: the model to read from a .pt2 archive holding\n"
     "several"),
    CLI_OPT("trace-events", O_TRACE_EVENTS, "FILE",
            "also write the traces as Chrome trace-event JSON (open it in Perfetto or\n"
            "chrome://tracing): the pieces as ranges, kernels on a row per GPU stream"),
    CLI_OPT("json", 'j', NULL, "write one JSON document to stdout"),
    CLI_OPT_END,
};

const struct cmd cmd_report = {
    .name = "report",
    .usage = "cgscope report TRACE|DIR... [--ranges] [--prefix P] [--kernels N]\n"
             "                      [--graph G --split-ops OPS [--graph-id ID] [--model NAME]]\n"
             "                      [--trace-events FILE] [--json]",
    .summary = "GPU time per piece, per NVTX range and per kernel, from `cgscope profile`",
    .help =
        "Reads the CUPTI traces `cgscope profile` wrote (a .cgstrace file, or the folder of\n"
        "them: one per process, so several ranks are merged with a column each) and puts\n"
        "every kernel, memcpy and memset on the piece that launched it: the NVTX range\n"
        "\"cgscope:0/0/submod_N\" (graph, piece) the bridge's piecewise runner opens around\n"
        "each piece; a model with graph breaks has each graph's pieces apart. A kernel\n"
        "launched from a thread with no range open (autograd's backward thread) goes to the\n"
        "range most recently opened on any thread; a kernel replayed from a CUDA graph goes to\n"
        "the range it was captured in. Work outside every piece is shown, never dropped.\n\n",
    .more =
        "JSON keys: format, version, prefix, by (\"piece\"|\"range\"), traces [{file, pid,\n"
        "rank, complete, truncated, error, dropped, cmdline}], pieces [{name, range, calls,\n"
        "kernels, gpu_ns, cpu_ns, memcpy {count, bytes, gpu_ns}, memset {...}, graph_replays,\n"
        "graph_kernels, captured_kernels, any_thread, ranks [{rank, pid, kernels, gpu_ns}],\n"
        "top_kernels [{name, count, gpu_ns}]} + with --graph: in_split, n_nodes (as in\n"
        "split --json's pieces), splitting],\n"
        "unattributed {...as a piece}, kernels, gpu_ns, memcpy, memset, no_launch,\n"
        "kernel_table [{name, count, gpu_ns, min_ns, max_ns, pieces}]. dot --profile reads it.\n\n"
        "examples (samples/profile: a transformer profiled on an H200):\n"
        "  cgscope report samples/profile\n"
        "  cgscope report samples/profile --ranges --kernels 5\n"
        "  cgscope report samples/profile --graph samples/profile/transformer.dynamo.json \\\n"
        "      --split-ops @sdpa\n"
        "  cgscope report samples/profile --json\n"
        "  cgscope report samples/profile --trace-events run.trace.json\n",
    .run = run,
    .options = options,
};

struct report_args {
    struct cgs_prof_opts po;
    const char *graph_id, *trace_events;
    unsigned long kernels;
    bool json;
};

static int parse_args(int argc, char **argv, struct cli_session *ss, struct report_args *a)
{
    int c;
    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_report, argc, argv)) != -1) {
        switch (c) {
        case 'j': a->json = true; break;
        case 'r': a->po.by = CGS_PROF_BY_RANGE; break;
        case O_PREFIX: a->po.prefix = optarg; break;
        case O_KERNELS:
            if (!cli_parse_uint(optarg, &a->kernels))
                return cli_usage_error(&cmd_report, "--kernels needs a number, not '%s'", optarg);
            break;
        case O_GRAPH: ss->path = optarg; break;
        case O_GRAPH_ID: a->graph_id = optarg; break;
        case O_TRACE_EVENTS: a->trace_events = optarg; break;
        case O_MODEL: ss->model = optarg; break;
        case O_SPLIT_OPS:
            if (cli_split_ops_add(&ss->ops, optarg))
                return CGS_EXIT_BAD_INPUT;
            break;
        default: return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
        }
    }
    if (optind == argc)
        return cli_usage_error(&cmd_report, "missing TRACE (a .cgstrace file or the folder "
                                            "`cgscope profile -o DIR` wrote)");
    if ((ss->path != NULL) != (ss->ops.n > 0))
        return cli_usage_error(&cmd_report, "--graph and --split-ops go together (the pieces "
                                            "are those of that graph's split)");
    if (ss->path && a->po.by == CGS_PROF_BY_RANGE)
        return cli_usage_error(&cmd_report, "--graph lists pieces; --ranges lists NVTX ranges: "
                                            "give one of them");
    return 0;
}

/* A piece name several graphs' traces hold, when no --graph-id says which: 0, or said. */
static int check_one_graph(const struct cgs_prof_report *rep, const struct cgs_split *s,
                           const char *graph_id, const char *graph)
{
    for (uint32_t i = 0; s && i < s->n_pieces; i++) {
        bool amb;
        char ids[512];
        if (cgs_prof_find_piece(rep, graph_id, s->pieces[i].name, &amb) || !amb)
            continue;
        cgs_prof_graph_ids(rep, ids, sizeof(ids));
        return cli_error("the traces hold the pieces of several graphs (%s), each with its %s: "
                         "say which graph %s is with --graph-id", ids, s->pieces[i].name, graph);
    }
    return 0;
}

static int run(int argc, char **argv)
{
    struct report_args a = {.po = {NULL, CGS_PROF_BY_PIECE}, .kernels = 15};
    struct cli_prof_out out = {0};
    struct cli_session ss;
    struct cli_prof_set set = {0};
    struct cgs_prof_report rep;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_split *s = NULL;
    int rc;

    cli_session_init(&ss, NULL);
    if ((rc = parse_args(argc, argv, &ss, &a)) ||
        (rc = cli_prof_load((const char *const *)argv + optind, (size_t)(argc - optind), &set)))
        goto done;
    if (a.trace_events && (rc = cli_prof_trace_events(&set, a.trace_events)))
        goto done;
    if (ss.path && !(s = cli_session_split(&ss))) { /* --graph: its pieces */
        rc = cli_session_fail(&ss);
        goto done;
    }
    if (cgs_prof_report_build(set.traces, (uint32_t)set.n, &a.po, &rep, &d) < 0) {
        rc = cli_report_diag(&d);
        goto done;
    }
    out.kernels = (uint32_t)(a.kernels > 1000000 ? 1000000 : a.kernels);
    out.split = s;
    out.graph_id = a.graph_id ? a.graph_id : ss.g ? ss.g->producer.compile_id : NULL;
    if (!(rc = check_one_graph(&rep, s, out.graph_id, ss.path))) {
        cli_prof_warn(&set, &rep, s, out.graph_id);
        if (a.json)
            cli_print_prof(&set, &rep, &out);
        else
            cli_prof_print(stdout, &set, &rep, &out);
    }
    cgs_prof_report_release(&rep);
done:
    cli_session_close(&ss); /* the graph and its split */
    cli_prof_release(&set);
    return rc;
}
