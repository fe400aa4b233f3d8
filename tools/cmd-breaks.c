/* cgscope breaks: Dynamo's graph breaks from a TORCH_TRACE log, without re-running. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/dash.h"
#include "lib/follow.h"
#include "tools/cmd.h"

static int run(int argc, char **argv);

const struct cmd cmd_breaks = {
    .name = "breaks",
    .usage = "cgscope breaks TRACE... [--json]",
    .summary = "Dynamo graph breaks from a TORCH_TRACE log, with reason and user frame",
    .help = "The other half of \"why did my graph split\": every graph break Dynamo logged\n"
            "(TORCH_TRACE=DIR python ...; TRACE is a file or that folder), with the reason\n"
            "and the line of your code it happened at, like torch._dynamo.explain but from\n"
            "the log, without running the model again; and how many graphs the run made.\n\n"
            "options:\n"
            "  --json      write one JSON document to stdout\n"
            "  -h, --help  show this help\n\n"
            "JSON keys: format, version, breaks [{compile_id, reason, frame {file, line,\n"
            "name}, rank}], graphs (compile ids seen), recompiles, bad_lines.\n\n"
            "example:\n"
            "  cgscope breaks samples/graph_break.torch_trace.log\n",
    .run = run,
};

static int run(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'}, {NULL, 0, NULL, 0}};
    bool json = false;
    int c, rc = CGS_EXIT_OK;
    struct cgs_dash dash;
    struct cgs_follow f;

    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'j')
            json = true;
        else
            return cli_usage_error(&cmd_breaks, "unknown option '%s'", argv[optind - 1]);
    }
    if (optind == argc)
        return cli_usage_error(&cmd_breaks, "missing TRACE (a TORCH_TRACE file or folder)");
    for (int i = optind; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st))
            return cli_error("%s: cannot open: no such file or folder", argv[i]);
    }
    cgs_dash_init(&dash);
    cgs_follow_init(&f, (const char *const *)argv + optind, (uint32_t)(argc - optind), &dash);
    cgs_follow_poll(&f);
    cgs_follow_finish(&f);
    for (uint32_t i = 0; i < f.n_files; i++)
        if (f.files[i].feed.kind != CGS_SRC_TRACE && f.files[i].feed.kind != CGS_SRC_UNKNOWN)
            cli_warn("%s is a %s file, not a TORCH_TRACE log: no graph break can be in it",
                     f.files[i].path, cgs_src_kind_names[f.files[i].feed.kind]);
    if (json) {
        cJSON *doc = cli_json_doc("breaks"), *a = cJSON_AddArrayToObject(doc, "breaks");
        for (uint32_t i = 0; i < dash.n_breaks; i++) {
            const struct cgs_dash_break *b = &dash.breaks[i];
            cJSON *o = cJSON_CreateObject(), *fr;
            cJSON_AddStringToObject(o, "compile_id", b->compile_id ? b->compile_id : "");
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
            cJSON_AddItemToArray(a, o);
        }
        cJSON_AddNumberToObject(doc, "graphs", (double)dash.compiles);
        cJSON_AddNumberToObject(doc, "recompiles", (double)dash.recompiles);
        cJSON_AddNumberToObject(doc, "bad_lines", (double)dash.bad_lines);
        cli_print_json(doc);
    } else {
        printf("%u graph break%s; %llu graph%s compiled (compile ids), %llu recompile%s\n",
               dash.n_breaks, PLURAL(dash.n_breaks), (unsigned long long)dash.compiles,
               PLURAL(dash.compiles), (unsigned long long)dash.recompiles,
               PLURAL(dash.recompiles));
        for (uint32_t i = 0; i < dash.n_breaks; i++) {
            const struct cgs_dash_break *b = &dash.breaks[i];
            printf("\n%s", b->compile_id ? b->compile_id : "?");
            if (b->rank >= 0)
                printf(" (rank %d)", b->rank);
            printf(": %s\n", b->reason ? b->reason : "");
            if (b->file)
                printf("  at %s:%lld%s%s\n", b->file, (long long)b->line, b->name ? ", in " : "",
                       b->name ? b->name : "");
        }
        if (dash.bad_lines)
            cli_warn("%llu line%s did not parse; the first: %s",
                     (unsigned long long)dash.bad_lines, PLURAL(dash.bad_lines), dash.first_bad);
    }
    cgs_follow_release(&f);
    cgs_dash_release(&dash);
    return rc;
}
