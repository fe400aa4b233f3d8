/* cgscope breaks: Dynamo's graph breaks from a TORCH_TRACE log, without re-running. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/run/dash.h"
#include "lib/readers/file.h"
#include "lib/run/findings.h"
#include "lib/run/follow.h"
#include "tools/cmd.h"

static int run(int argc, char **argv);

/* the options run() accepts: --help, the man page, completion and "did you mean" list them */
static const struct cli_opt options[] = {
    CLI_OPT("json", 'j', NULL, "write one JSON document to stdout"),
    CLI_OPT_END,
};

const struct cmd cmd_breaks = {
    .name = "breaks",
    .usage = "cgscope breaks TRACE... [--json]",
    .summary = "Dynamo graph breaks from a TORCH_TRACE log, with reason and user frame",
    .help = "The other half of \"why did my graph split\": every graph break Dynamo logged\n"
            "(TORCH_TRACE=DIR python ...; TRACE is a file or that folder), with the reason\n"
            "and the line of your code it happened at, like torch._dynamo.explain but from\n"
            "the log, without running the model again; and how many graphs the run made.\n\n",
    .more =
            "A break site (the same reason at the same line) is listed once, with how many\n"
            "times Dynamo met it. TRACE may be compressed (.gz, .xz, .zst), a pipe or - .\n"
            "Exit status 2 when nothing in the sources is a TORCH_TRACE log.\n\n"
            "An older torch logs no graph-break record: its breaks are read from the restart\n"
            "reasons and the resume frames (torch_dynamo_resume_in_NAME_at_LINE).\n\n"
            "JSON keys: format, version, breaks [{compile_id, hits, compile_ids, reason,\n"
            "frame {file, line, name} (where Dynamo broke), rank, title, explanation,\n"
            "hints [..] (torch's own), url (the graph-break site), gb_id, user_frame {file,\n"
            "line, name} (your code: the innermost frame outside torch and site-packages),\n"
            "from_restart_reasons, evidence {file, line}}], hits, graphs (compiles that made a\n"
            "graph), compiles, empty, failed, recompiles, bad_lines.\n\n"
            "example:\n"
            "  cgscope breaks samples/graph_break.torch_trace.log\n",
    .run = run,
    .options = options,
};

/* A list of its text's parts (split at any of sep; ...), as strings. */
static void parts_write(struct jsonw *w, const char *text, const char *sep, bool skip_dots)
{
    bool first = true;
    jsonw_raw(w, "[", 1);
    for (const char *p = text; p && *p;) {
        size_t k = strcspn(p, sep);
        char id[128];
        char *t = skip_dots ? id : cgs_xmalloc(k + 1);
        if (skip_dots) {
            snprintf(id, sizeof(id), "%.*s", (int)(k < 120 ? k : 120), p);
        } else {
            memcpy(t, p, k);
            t[k] = '\0';
        }
        if (!skip_dots || strcmp(id, "...")) {
            if (!first)
                jsonw_sep(w);
            first = false;
            jsonw_string(w, t);
        }
        if (!skip_dots)
            free(t);
        p += k;
        p += skip_dots ? strspn(p, ", ") : (size_t)(*p == '\n');
    }
    jsonw_raw(w, "]", 1);
}

/* breaks --json's document, written straight from the records' model at depth. */
void cli_breaks_write_at(struct jsonw *w, const struct cgs_dash *d, int depth)
{
    struct cgs_compile_counts cc;
    struct jsonw_obj doc, o, fr;
    cli_doc_open(w, &doc, depth, "breaks");
    jsonw_field(w, &doc, "breaks");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < d->n_breaks; i++) {
        const struct cgs_dash_break *b = &d->breaks[i];
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, doc.depth + 1);
        jsonw_field_str(w, &o, "compile_id", b->compile_id ? b->compile_id : "");
        jsonw_field_num(w, &o, "hits", (double)b->hits);
        jsonw_field(w, &o, "compile_ids");
        parts_write(w, b->compile_ids, ",", true);
        jsonw_field_str(w, &o, "reason", b->reason ? b->reason : "");
        jsonw_field(w, &o, "frame");
        jsonw_open(w, &fr, o.depth);
        jsonw_field_str(w, &fr, "file", b->file);
        jsonw_field_num(w, &fr, "line", (double)b->line);
        jsonw_field_str(w, &fr, "name", b->name);
        jsonw_close(w, &fr);
        if (b->rank >= 0)
            jsonw_field_num(w, &o, "rank", b->rank);
        else
            jsonw_field_null(w, &o, "rank");
        jsonw_field_str(w, &o, "title", b->title);
        jsonw_field_str(w, &o, "explanation", b->explanation);
        jsonw_field(w, &o, "hints");
        parts_write(w, b->hints, "\n", false);
        jsonw_field_str(w, &o, "url", b->url);
        jsonw_field_str(w, &o, "gb_id", b->gb_id);
        jsonw_field(w, &o, "user_frame");
        /* the user's own frame: the break's frame when that is the user's code */
        jsonw_open(w, &fr, o.depth);
        jsonw_field_str(w, &fr, "file", b->user_file ? b->user_file : b->file);
        jsonw_field_num(w, &fr, "line", (double)(b->user_file ? b->user_line : b->line));
        jsonw_field_str(w, &fr, "name", b->user_file ? b->user_name : b->name);
        jsonw_close(w, &fr);
        jsonw_field_bool(w, &o, "from_restart_reasons", b->from_restart);
        if (b->source < d->n_sources) {
            jsonw_field(w, &o, "evidence");
            jsonw_open(w, &fr, o.depth);
            jsonw_field_str(w, &fr, "file", d->sources[b->source]);
            jsonw_field_num(w, &fr, "line", (double)b->line_no);
            jsonw_close(w, &fr);
        }
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
    cgs_findings_compile_counts(d, &cc);
    jsonw_field_num(w, &doc, "hits", (double)d->graph_breaks);
    /* compile ids that made a graph; the compiles, empty ones and failures apart */
    jsonw_field_num(w, &doc, "graphs", (double)cc.graphs);
    jsonw_field_num(w, &doc, "compiles", (double)cc.compiles);
    jsonw_field_num(w, &doc, "empty", (double)cc.empty);
    jsonw_field_num(w, &doc, "failed", (double)cc.failed);
    jsonw_field_num(w, &doc, "recompiles", (double)d->recompiles);
    jsonw_field_num(w, &doc, "bad_lines", (double)d->bad_lines);
    jsonw_close(w, &doc);
}

void cli_breaks_write(struct jsonw *w, void *dash)
{
    cli_breaks_write_at(w, dash, 0);
}

cJSON *cli_breaks_doc(const struct cgs_dash *d)
{
    return cli_written_tree(cli_breaks_write, (void *)d);
}

static void break_text(const struct cgs_dash_break *b)
{
    printf("\n%s", b->compile_id ? b->compile_id : "?");
    if (b->rank >= 0)
        printf(" (rank %d)", b->rank);
    printf(": %s\n", b->title ? b->title : b->reason ? b->reason : "");
    if (b->title && b->explanation)
        printf("  %s\n", b->explanation);
    if (b->hits > 1)
        printf("  hit %llu times (compiles %s)\n", (unsigned long long)b->hits, b->compile_ids);
    if (b->file)
        printf("  at %s:%lld%s%s\n", b->file, (long long)b->line, b->name ? ", in " : "",
               b->name ? b->name : "");
    if (b->user_file)
        printf("  your code: %s:%lld%s%s\n", b->user_file, (long long)b->user_line,
               b->user_name ? ", in " : "", b->user_name ? b->user_name : "");
    for (const char *p = b->hints; p && *p;) {
        size_t k = strcspn(p, "\n");
        printf("  hint: %.*s\n", (int)k, p);
        p += k;
        p += *p == '\n';
    }
    if (b->url)
        printf("  more: %s\n", b->url);
    if (b->from_restart)
        printf("  (from the restart reason and the resume frame: this torch logged no "
               "graph-break record)\n");
}

static void breaks_text(const struct cgs_dash *dash)
{
    struct cgs_compile_counts cc;
    cgs_findings_compile_counts(dash, &cc);
    printf("%u graph break%s", dash->n_breaks, PLURAL(dash->n_breaks));
    if (dash->graph_breaks != dash->n_breaks)
        printf(" (sites; hit %llu times in all)", (unsigned long long)dash->graph_breaks);
    printf("; %llu compile%s: %llu made a graph, %llu empty, %llu failed; %llu recompile%s\n",
           (unsigned long long)cc.compiles, PLURAL(cc.compiles), (unsigned long long)cc.graphs,
           (unsigned long long)cc.empty, (unsigned long long)cc.failed,
           (unsigned long long)cc.recompiles, PLURAL(cc.recompiles));
    for (uint32_t i = 0; i < dash->n_breaks; i++)
        break_text(&dash->breaks[i]);
    if (dash->bad_lines)
        cli_warn("%llu line%s did not parse; the first: %s", (unsigned long long)dash->bad_lines,
                 PLURAL(dash->bad_lines), dash->first_bad);
}

static int run(int argc, char **argv)
{
    bool json = false;
    int c, rc = CGS_EXIT_OK;
    struct cgs_dash dash;
    struct cgs_follow f;

    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_breaks, argc, argv)) != -1) {
        if (c == 'j')
            json = true;
        else
            return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
    }
    if (optind == argc)
        return cli_usage_error(&cmd_breaks, "missing TRACE (a TORCH_TRACE file or folder)");
    for (int i = optind; i < argc; i++) {
        struct stat st;
        if (!cgs_path_is_stdin(argv[i]) && stat(argv[i], &st))
            return cli_file_error(argv[i], "cannot open: No such file or directory");
    }
    cgs_dash_init(&dash);
    cgs_follow_init(&f, (const char *const *)argv + optind, (uint32_t)(argc - optind), &dash);
    f.blocking = true;
    cgs_follow_poll(&f);
    cgs_follow_finish(&f);
    if (!(rc = cli_sources_read(&f, 1u << CGS_SRC_TRACE, "a TORCH_TRACE log"))) {
        if (json)
            cli_print_written(cli_breaks_write, &dash);
        else
            breaks_text(&dash);
    }
    cgs_follow_release(&f);
    cgs_dash_release(&dash);
    return rc;
}
