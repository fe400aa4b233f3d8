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

cJSON *cli_breaks_doc(const struct cgs_dash *d)
{
    struct cgs_compile_counts cc;
    cJSON *doc = cli_json_doc("breaks"), *a = cJSON_AddArrayToObject(doc, "breaks");
    for (uint32_t i = 0; i < d->n_breaks; i++) {
        const struct cgs_dash_break *b = &d->breaks[i];
        cJSON *o = cJSON_CreateObject(), *fr;
        cJSON_AddStringToObject(o, "compile_id", b->compile_id ? b->compile_id : "");
        cJSON_AddNumberToObject(o, "hits", (double)b->hits);
        {
            cJSON *ids = cJSON_AddArrayToObject(o, "compile_ids");
            for (const char *p = b->compile_ids; p && *p;) {
                size_t k = strcspn(p, ",");
                char id[128];
                snprintf(id, sizeof(id), "%.*s", (int)(k < 120 ? k : 120), p);
                if (strcmp(id, "..."))
                    cJSON_AddItemToArray(ids, cJSON_CreateString(id));
                p += k;
                p += strspn(p, ", ");
            }
        }
        cJSON_AddStringToObject(o, "reason", b->reason ? b->reason : "");
        fr = cJSON_AddObjectToObject(o, "frame");
        if (b->file)
            cJSON_AddStringToObject(fr, "file", b->file);
        else
            cJSON_AddNullToObject(fr, "file");
        cJSON_AddNumberToObject(fr, "line", (double)b->line);
        if (b->name)
            cJSON_AddStringToObject(fr, "name", b->name);
        else
            cJSON_AddNullToObject(fr, "name");
        if (b->rank >= 0)
            cJSON_AddNumberToObject(o, "rank", b->rank);
        else
            cJSON_AddNullToObject(o, "rank");
        cli_json_add_str(o, "title", b->title);
        cli_json_add_str(o, "explanation", b->explanation);
        {
            cJSON *h = cJSON_AddArrayToObject(o, "hints");
            for (const char *p = b->hints; p && *p;) {
                size_t k = strcspn(p, "\n");
                char *t = cgs_xmalloc(k + 1);
                memcpy(t, p, k);
                t[k] = '\0';
                cJSON_AddItemToArray(h, cJSON_CreateString(t));
                free(t);
                p += k;
                p += *p == '\n';
            }
        }
        cli_json_add_str(o, "url", b->url);
        cli_json_add_str(o, "gb_id", b->gb_id);
        fr = cJSON_AddObjectToObject(o, "user_frame");
        /* the user's own frame: the break's frame when that is the user's code */
        cli_json_add_str(fr, "file", b->user_file ? b->user_file : b->file);
        cJSON_AddNumberToObject(fr, "line", (double)(b->user_file ? b->user_line : b->line));
        cli_json_add_str(fr, "name", b->user_file ? b->user_name : b->name);
        cJSON_AddBoolToObject(o, "from_restart_reasons", b->from_restart);
        if (b->source < d->n_sources) {
            cJSON *ev = cJSON_AddObjectToObject(o, "evidence");
            cJSON_AddStringToObject(ev, "file", d->sources[b->source]);
            cJSON_AddNumberToObject(ev, "line", (double)b->line_no);
        }
        cJSON_AddItemToArray(a, o);
    }
    cgs_findings_compile_counts(d, &cc);
    cJSON_AddNumberToObject(doc, "hits", (double)d->graph_breaks);
    /* compile ids that made a graph; the compiles, empty ones and failures apart */
    cJSON_AddNumberToObject(doc, "graphs", (double)cc.graphs);
    cJSON_AddNumberToObject(doc, "compiles", (double)cc.compiles);
    cJSON_AddNumberToObject(doc, "empty", (double)cc.empty);
    cJSON_AddNumberToObject(doc, "failed", (double)cc.failed);
    cJSON_AddNumberToObject(doc, "recompiles", (double)d->recompiles);
    cJSON_AddNumberToObject(doc, "bad_lines", (double)d->bad_lines);
    return doc;
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
            cli_print_json(cli_breaks_doc(&dash));
        else
            breaks_text(&dash);
    }
    cgs_follow_release(&f);
    cgs_dash_release(&dash);
    return rc;
}
