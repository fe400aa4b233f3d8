/* cgscope check: the findings of a run as a CI gate (exit 1 at or above a severity). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lib/run/findings.h"
#include "tools/cmd.h"
#include "tools/job.h"

static int run(int argc, char **argv);


static const struct cli_opt options[] = {
    CLI_OPT_ONE_OF("fail-on", 'f', "SEVERITY", cgs_severity_names,
            "exit 1 when a finding is at or above it: error (default), warning,\n"
            "note"),
    CLI_OPT_SUGGEST("split-ops", 's', "OP[,OP...]", cli_presets_values,
            "splitting ops (presets @vllm, @magi, @sdpa): pieces that cannot be\n"
            "CUDA-graph captured become findings; a cache folder's graph splits as\n"
            "recorded"),
    CLI_OPT("json", 'j', NULL, "write one JSON document to stdout"),
    CLI_OPT_END,
};

const struct cmd cmd_check = {
    .name = "check",
    .usage = "cgscope check SOURCE... [--fail-on error|warning|note] [--split-ops OPS] [--json]",
    .summary = "what looks wrong in a run (failed compiles, recompiles, graph breaks, ...): a CI gate",
    .help =
        "Reads what you give it (a TORCH_TRACE log or folder, graphs, refs, a vLLM or\n"
        "MagiCompiler cache folder, the bridge's events) and prints the findings: the same\n"
        "verdicts as cgscope html's \"what looks wrong\" and top's findings, one line each,\n"
        "errors first, then warnings, then notes, each with torch's hint where torch gave\n"
        "one and the log record it rests on.\n\n",
    .more =
        "Kinds: compile_failure (a compile that raised: error), collective_mismatch (ranks\n"
        "that scheduled different collectives for one compile id, a hang at run time: error),\n"
        "recompiles (per frame, across its compile ids and ranks, with the guards that\n"
        "failed; torch's recompile limit reached: error; two or more in one process: warning;\n"
        "one: note), graph_break (per site, with torch's hints, its link and your line),\n"
        "rank_divergence (ranks that compiled different things), cache_miss (a later run,\n"
        "after a reset or a log given after another, missed for a frame an earlier run\n"
        "compiled), shape_mismatch (an inferred value torch's record contradicts),\n"
        "not_capturable (only where a piecewise backend splits: a cache folder, or\n"
        "--split-ops), empty_graph, unknown_ops (an operator without a shape rule), unread\n"
        "(a graph of the log not read), bad_lines.\n\n"

        "Exit status: 1 when a finding is at or above --fail-on (default error), 0 otherwise,\n"
        "2 on bad input or when nothing was read (an empty folder: no verdict on nothing;\n"
        "docs/ci.md gates a job's TORCH_TRACE log with it).\n\n"
        "JSON keys: format, version, findings [{kind, severity, subject {frame, compile_ids,\n"
        "ranks, graphs, pieces}, message, hint, url, evidence {file, line}, count}] (sorted:\n"
        "severity, then cost), compiles {compiles, graphs, empty, failed, refused, recompiles,\n"
        "runs}, graphs (read), fail_on, failed (bool).\n\n"
        "examples:\n"
        "  cgscope check samples/graph_break.torch_trace.log\n"
        "  cgscope check samples/graph_break.torch_trace.log --json\n",
    .run = run,
    .options = options,
};

struct check_out {
    const struct cli_job *job;
    const struct cgs_compile_counts *cc;
    int fail_on;
    uint32_t bad;
};

/* check --json's document, written straight from the findings. */
static void check_write(struct jsonw *w, void *ctx)
{
    const struct check_out *c = ctx;
    const struct cgs_compile_counts *cc = c->cc;
    struct jsonw_obj doc, co;
    cli_doc_open(w, &doc, 0, "check");
    jsonw_field(w, &doc, "findings");
    cli_findings_write(w, &c->job->findings, doc.depth);
    jsonw_field(w, &doc, "compiles");
    jsonw_open(w, &co, doc.depth);
    jsonw_field_num(w, &co, "compiles", (double)cc->compiles);
    jsonw_field_num(w, &co, "graphs", (double)cc->graphs);
    jsonw_field_num(w, &co, "empty", (double)cc->empty);
    jsonw_field_num(w, &co, "failed", (double)cc->failed);
    jsonw_field_num(w, &co, "refused", (double)cc->refused);
    jsonw_field_num(w, &co, "recompiles", (double)cc->recompiles);
    jsonw_field_num(w, &co, "runs", (double)cc->runs);
    jsonw_close(w, &co);
    jsonw_field_num(w, &doc, "graphs", c->job->n_graphs);
    jsonw_field_str(w, &doc, "fail_on", cgs_severity_names[c->fail_on]);
    jsonw_field_bool(w, &doc, "failed", c->bad > 0);
    jsonw_close(w, &doc);
}

static void print_check_json(const struct cli_job *job, const struct cgs_compile_counts *cc,
                             int fail_on, uint32_t bad)
{
    struct check_out c = {job, cc, fail_on, bad};
    cli_print_written(check_write, &c);
}

static void print_check_text(const struct cli_job *job, const struct cgs_compile_counts *cc,
                             int fail_on, uint32_t bad)
{
    char tally[96];
    cli_findings_print(&job->findings, stdout, true);
    cli_findings_tally(&job->findings, tally, sizeof(tally));
    printf("%s%s", job->findings.n ? "\n" : "", tally);
    if (job->have_dash)
        printf("; %llu compile%s (%llu made a graph, %llu empty, %llu failed), %llu recompile%s",
               (unsigned long long)cc->compiles, PLURAL(cc->compiles),
               (unsigned long long)cc->graphs, (unsigned long long)cc->empty,
               (unsigned long long)cc->failed, (unsigned long long)cc->recompiles,
               PLURAL(cc->recompiles));
    printf("; %u graph%s read\n", job->n_graphs, PLURAL(job->n_graphs));
    if (bad)
        fprintf(stderr, "cgscope check: %u finding%s at or above %s\n", bad, PLURAL(bad),
                cgs_severity_names[fail_on]);
}

static int parse_args(int argc, char **argv, struct cli_list *ops, bool *json, int *fail_on)
{
    int c;
    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_check, argc, argv)) != -1) {
        switch (c) {
        case 'j': *json = true; break;
        case 'f': /* one of severities: cli_getopt checked */
            *fail_on = cgs_severity_from_name(optarg);
            break;
        case 's':
            if (cli_split_ops_add(ops, optarg))
                return CGS_EXIT_BAD_INPUT;
            break;
        default: return CGS_EXIT_BAD_INPUT;
        }
    }
    if (optind == argc)
        return cli_usage_error(&cmd_check, "missing SOURCE (a TORCH_TRACE log or folder, a "
                                           "graph, a cache folder, a depyf dump, events)");
    return 0;
}

static int run(int argc, char **argv)
{
    bool json = false;
    int rc, fail_on = CGS_SEV_ERROR;
    struct cli_list ops = CLI_LIST_INIT;
    struct cli_job job;
    struct cgs_compile_counts cc;
    uint32_t bad;

    memset(&job, 0, sizeof(job));
    if ((rc = parse_args(argc, argv, &ops, &json, &fail_on)))
        goto out;
    job.progress = true;
    job.drop_graphs = true; /* findings and counts only: one graph in memory at a time */
    if ((rc = cli_job_run(&job, argv + optind, argc - optind, &ops)))
        goto out;
    if (cli_job_read_nothing(&job)) {
        /* an empty folder, a wrong path's folder: "0 errors" would pass a CI gate on nothing */
        rc = argc - optind == 1
                 ? cli_file_error(argv[optind], "nothing to check: no graph, compile record or "
                                                "profile in it")
                 : cli_error("nothing to check: no graph, compile record or profile in the "
                             "sources given");
        goto out;
    }
    bad = cgs_findings_at_least(&job.findings, (enum cgs_severity)fail_on);
    cgs_findings_compile_counts(job.have_dash ? &job.dash : NULL, &cc);
    if (json)
        print_check_json(&job, &cc, fail_on, bad);
    else
        print_check_text(&job, &cc, fail_on, bad);
    rc = bad ? CGS_EXIT_CHECK : CGS_EXIT_OK;
out:
    cli_job_release(&job);
    cli_list_release(&ops);
    return rc;
}
