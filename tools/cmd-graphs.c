/* cgscope graphs: the graphs a TORCH_TRACE log or a compile-cache folder carries, with refs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/readers/file.h"
#include "lib/run/graphs.h"
#include "tools/cmd.h"

static int run(int argc, char **argv);

static const struct cli_opt options[] = {
    CLI_OPT("json", 'j', NULL, "write one JSON document to stdout"),
    CLI_OPT("write", 'w', "DIR",
            "also write each graph into DIR (made if missing) as graph JSON, named\n"
            "as the bridge names its dumps (0_0.dynamo.json, 1_0.post_grad.backward.json)"),
    CLI_OPT_END,
};

const struct cmd cmd_graphs = {
    .name = "graphs",
    .usage = "cgscope graphs SOURCE... [--write DIR] [--json]",
    .summary = "the graphs a TORCH_TRACE log, a compile-cache folder or a depyf dump carries",
    .help = "You already have a TORCH_TRACE log (TORCH_TRACE=DIR python ...)? It carries the\n"
            "graphs themselves: the graph Dynamo hands every backend (dynamo), the graph\n"
            "Inductor lowers (post_grad) and AOT Autograd's forward, backward and inference\n"
            "graphs. This lists each with its compile id as torch writes it (0/0; !0/1/0 for\n"
            "compiled autograd), its stage, rank and node count, and a ref: a string every\n"
            "command takes as GRAPH (split, shapes, layout, dot, info, report --graph).\n"
            "SOURCE is a log (compressed or not), a folder of per-rank logs, a vLLM or\n"
            "MagiCompiler cache folder, or a computation_graph.py in one, or a depyf dump\n"
            "folder (depyf.prepare_debug: each __compiled_fn_N.*.py graph file, its stage\n"
            "read from its name; a graph file's ref is its path).\n\n",
    .more = "A restarted analysis logs a graph again: the last attempt is kept. A graph\n"
            "that does not read (a log of an older torch, a cut payload) is listed with its\n"
            "error and warned about; the others are read. A bare SOURCE given to another\n"
            "command takes its first graph of the stage that command works on (post_grad\n"
            "for layout, dynamo otherwise) and says so. Exit status 2 when no source holds a\n"
            "graph or none of its graphs reads (they are still listed). --write DIR converts\n"
            "every graph to graph JSON (to keep, to share, for other tools); no two graphs\n"
            "get one file name (a later one is numbered: 0_0.dynamo.2.json), and --json's\n"
            "file says where each went.\n\n"
            "JSON keys: format, version, graphs [{ref, source, compile_id, stage, rank,\n"
            "attempt, line, nodes, error, file}], bad_lines.\n\n"
            "examples:\n"
            "  cgscope graphs samples/two_graphs.torch_trace.log.xz\n"
            "  cgscope split 'samples/two_graphs.torch_trace.log.xz#1/0:dynamo'\n"
            "  cgscope layout samples/two_graphs.torch_trace.log.xz\n",
    .run = run,
    .options = options,
};

static void warn_line(const char *file, const char *msg, void *ctx)
{
    (void)ctx;
    cli_file_warn(file, "%s", msg);
}

/* --write: graph i as graph JSON into dir; its path into file (empty when not written). */
static int write_graph(struct cgs_graphs *gs, uint32_t i, const char *dir, char *file, size_t n)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    char name[512];
    char *text = cgs_graphs_json(gs, i, &d);
    int rc = 0;
    cgs_graphs_file_name(gs, i, name, sizeof(name));
    snprintf(file, n, "%s/%s", dir, name);
    if (!text || cli_write_file_here(file, text, strlen(text)))
        rc = CGS_EXIT_BAD_INPUT, file[0] = '\0';
    free(text);
    return rc;
}

/* One graph's entry of graphs --json, an item of its "graphs" array. */
static void item_write(struct jsonw *w, const struct cgs_graphs_item *it,
                       const struct cgs_graph *g, const char *err, const char *file)
{
    struct jsonw_obj o;
    jsonw_open(w, &o, 2);
    jsonw_field_str(w, &o, "ref", it->ref);
    jsonw_field_str(w, &o, "source", it->source);
    jsonw_field_str(w, &o, "compile_id", it->compile_id);
    jsonw_field_str(w, &o, "stage", it->stage);
    if (it->rank >= 0)
        jsonw_field_num(w, &o, "rank", it->rank);
    else
        jsonw_field_null(w, &o, "rank");
    jsonw_field_num(w, &o, "attempt", it->attempt);
    jsonw_field_num(w, &o, "line", (double)it->line);
    if (g)
        jsonw_field_num(w, &o, "nodes", g->n_nodes);
    else
        jsonw_field_null(w, &o, "nodes");
    jsonw_field_str(w, &o, "error", g ? NULL : err);
    jsonw_field_str(w, &o, "file", file[0] ? file : NULL);
    jsonw_close(w, &o);
}

/* graphs --json's document up to its "graphs" array's items, and after them. */
static void json_head(struct jsonw *w, struct jsonw_obj *doc)
{
    cli_json_out_begin(w);
    jsonw_open(w, doc, 0);
    jsonw_field_str(w, doc, "format", "cgscope-graphs");
    jsonw_field_num(w, doc, "version", 1);
    jsonw_field(w, doc, "graphs");
    jsonw_raw(w, "[", 1);
}

static void json_foot(struct jsonw *w, struct jsonw_obj *doc, const struct cgs_graphs *gs)
{
    jsonw_raw(w, "]", 1);
    jsonw_field_num(w, doc, "bad_lines", (double)gs->bad_lines);
    jsonw_close(w, doc);
    cli_json_out_end(w);
}

static void item_text(const struct cgs_graphs_item *it, const struct cgs_graph *g, int width)
{
    char nodes[32] = "error", rank[16] = "-";
    if (g)
        snprintf(nodes, sizeof(nodes), "%u", g->n_nodes);
    if (it->rank >= 0)
        snprintf(rank, sizeof(rank), "%d", it->rank);
    printf("%-*s  %-9s %-13s %4s %6s\n", width, it->ref, it->compile_id ? it->compile_id : "-",
           it->stage, rank, nodes);
}

static int parse_args(int argc, char **argv, bool *json, const char **write_dir)
{
    struct stat st;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_graphs, argc, argv)) != -1) {
        if (c == 'j')
            *json = true;
        else if (c == 'w')
            *write_dir = optarg;
        else
            return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
    }
    if (optind == argc)
        return cli_usage_error(&cmd_graphs, "missing SOURCE (a TORCH_TRACE log or folder, a "
                                            "compile-cache folder or a depyf dump)");
    for (int i = optind; i < argc; i++)
        if (!cgs_path_is_stdin(argv[i]) && stat(argv[i], &st))
            return cli_file_error(argv[i], "cannot open: No such file or directory");
    /* --write DIR: made when it does not exist (its parent must) */
    if (*write_dir && stat(*write_dir, &st) && errno == ENOENT && mkdir(*write_dir, 0777))
        return cli_file_error(*write_dir, "--write: cannot make the folder: %s",
                              strerror(errno));
    if (*write_dir && (stat(*write_dir, &st) || !S_ISDIR(st.st_mode)))
        return cli_file_error(*write_dir, "--write: not a folder");
    return 0;
}

/* The table's head, its first column as wide as the longest ref (returned). */
static int table_head(const struct cgs_graphs *gs)
{
    int width = 3;
    for (uint32_t i = 0; i < gs->n_items; i++)
        if ((int)strlen(gs->items[i].ref) > width)
            width = (int)strlen(gs->items[i].ref);
    printf("%-*s  %-9s %-13s %4s %6s\n", width, "ref", "compile", "stage", "rank", "nodes");
    return width;
}

/* The count under the table, and the lines of the logs that were not read. */
static void table_foot(const struct cgs_graphs *gs, uint32_t bad)
{
    printf("%u graph%s", gs->n_items, PLURAL(gs->n_items));
    if (bad)
        printf(", %u not read (see above)", bad);
    printf("\n");
    if (gs->bad_lines)
        cli_warn("%llu line%s not read, the first: %s", (unsigned long long)gs->bad_lines,
                 PLURAL(gs->bad_lines), gs->first_bad);
}

static int run(int argc, char **argv)
{
    bool json = false;
    const char *write_dir = NULL;
    int rc, width = 3;
    struct cgs_graphs gs;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct jsonw w;
    struct jsonw_obj doc;
    uint32_t bad = 0;

    if ((rc = parse_args(argc, argv, &json, &write_dir)))
        return rc;
    /* every graph is loaded: they are read while the logs are, as far as a core is free */
    if (cgs_graphs_collect_every(&gs, (const char *const *)argv + optind,
                                 (uint32_t)(argc - optind), warn_line, NULL, &d)) {
        rc = cli_report_diag(&d);
        cgs_graphs_release(&gs);
        return rc;
    }
    if (json) /* the document written as the graphs are read */
        json_head(&w, &doc);
    else
        width = table_head(&gs);
    /* read a batch at a time on several threads, listed in order */
    enum { BATCH = 32 };
    struct cgs_graph *loaded[BATCH];
    struct cgs_diag ds[BATCH];
    for (uint32_t from = 0; from < gs.n_items; from += BATCH) {
        uint32_t n = gs.n_items - from < BATCH ? gs.n_items - from : BATCH;
        for (uint32_t k = 0; k < n; k++)
            ds[k] = (struct cgs_diag)CGS_DIAG_INIT;
        cgs_graphs_load_many(&gs, from, n, loaded, ds);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t i = from + k;
            struct cgs_graph *g = loaded[k];
            char file[4096] = "";
            if (!g) {
                bad++;
                cli_report_diag(&ds[k]);
            } else if (write_dir && write_graph(&gs, i, write_dir, file, sizeof(file)))
                rc = CGS_EXIT_BAD_INPUT;
            if (json) {
                if (i)
                    jsonw_sep(&w);
                item_write(&w, &gs.items[i], g, ds[k].msg, file);
            } else
                item_text(&gs.items[i], g, width);
            cgs_graph_free(g);
        }
    }
    if (json)
        json_foot(&w, &doc, &gs);
    else
        table_foot(&gs, bad);
    /* nothing could be read: the input is bad, whatever was listed */
    if (!rc && gs.n_items && bad == gs.n_items)
        rc = CGS_EXIT_BAD_INPUT;
    cgs_graphs_release(&gs);
    return rc;
}
