/* cgscope top: a live dashboard of compiles and cache lookups, from what a run writes. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/run/dash.h"
#include "lib/readers/file.h"
#include "lib/run/findings.h"
#include "lib/run/follow.h"
#include "lib/base/strmap.h"
#include "tools/cmd.h"
#include "tools/job.h"
#include "viz/tui.h"

static int run(int argc, char **argv);

/* the options run() accepts: --help, the man page, completion and "did you mean" list them */
static const struct cli_opt options[] = {
    CLI_OPT("once", 'o', NULL, "print the table once as text and exit (no terminal needed)"),
    CLI_OPT("json", 'j', NULL, "with --once: one JSON document (docs/json.md)"),
    CLI_OPT("interval", 'i', "MS", "how often sources are read (default 100)"),
    CLI_OPT("dir", 'd', "DIR", "with -- CMD: the folder (default: a new one under $TMPDIR)"),
    CLI_OPT("log", 'l', "FILE", "with -- CMD: CMD's output (default DIR/cmd.log)"),
    CLI_OPT("html", 'H', NULL, "with -- CMD: when it ends, write DIR/report.html (cgscope html)"),
    CLI_OPT_END,
};

const struct cmd cmd_top = {
    .name = "top",
    .usage = "cgscope top SOURCE... [--once] [--json] [--interval MS]\n"
             "       cgscope top [--log FILE] [--dir DIR] [--html] -- CMD [ARGS...]",
    .summary = "live dashboard of compiles and cache hits (events, TORCH_TRACE, cache index)",
    .help =
        "SOURCE is any of, told apart by their content:\n"
        "  - the events file the Python bridge's piecewise runner writes (JSON lines: a row\n"
        "    per (graph_index, runtime_shape, backend));\n"
        "  - a TORCH_TRACE log (TORCH_TRACE=DIR python ...), a file or the folder of per-rank\n"
        "    files (a row per compile id and rank; torch's own cache artifacts counted per\n"
        "    cache, one per lookup; recompiles with their reasons; graph breaks);\n"
        "  - MagiCompiler's compile-cache index magi_compile_cache.py (or vLLM's).\n"
        "Logs may be compressed (.gz, .xz, .zst: read as they are), pipes, FIFOs or - .\n"
        "Rows from several files carry a source column (the file's name, with as many of\n"
        "its folders as tell two runs' same-named logs apart); the header's compiles and\n"
        "recompiles are the rows' sums; recompile reasons are shown one a line (each names\n"
        "an earlier entry of the frame and the guard it failed). --once exits 2 when\n"
        "nothing in the sources could be read, saying what each one is.\n"
        "Sources are followed as they grow: a file that does not exist yet is waited for, a\n"
        "new file in a folder is picked up, a file truncated or replaced starts the count\n"
        "again. Lines that do not parse are counted and shown, never fatal.\n\n"
        "With -- CMD ARGS...: run CMD with TORCH_TRACE and CGSCOPE_EVENTS pointed at a fresh\n"
        "folder and show its compiles live; CMD's output goes to a log file named in the\n"
        "footer; the exit status is CMD's; when it fails, its last lines of output are\n"
        "shown. Without a terminal: a status line every 5 s, then the final table.\n\n",
    .more =
        "keys: Up/Down select, Enter detail, s sort, / filter, p pause, h help,\n"
        "Left/Right scroll the frame / reason column, q back (from detail or help) or quit,\n"
        "F10 quit from any view.\n"
        "In a run: prefix the command you already run, 'cgscope top -- python3 train.py'.\n\n"
        "JSON keys (--once --json): format, version, sources [{path, kind, bytes}], rows\n"
        "[{graph_index, runtime_shape, backend, compile_id, source, rank, frame, hits,\n"
        "misses, bypasses, compiles, compile_ms, last_compile_ms, runs, run_ms, recompiles,\n"
        "captures (CUDA graphs captured: more than one is a re-capture),\n"
        "reason, reasons [one a line], indexed}], caches {NAME: {hit, miss, bypass}} (fx_graph and aotautograd always),\n"
        "compiles, recompiles, graph_breaks, captures, events, hit_rate, bad_lines, first_bad_line.\n\n"
        "examples:\n"
        "  cgscope top samples/llama_tiny.events.jsonl --once\n"
        "  cgscope top samples/graph_break.torch_trace.log --once --json\n",
    .run = run,
    .options = options,
};

/* ---- --once ---------------------------------------------------------------------------- */

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The recompiles, each reason on its own line, said in words: Dynamo compiles a frame again
   when every entry it already has for the frame fails a guard; torch logs, for each of those
   entries (by compile id), the first guard that failed. */
static void print_recompiles(const struct cgs_dash *d, const struct cgs_dash_row *const *rows,
                             uint32_t n)
{
    bool any = false;
    for (uint32_t i = 0; i < n; i++) {
        const struct cgs_dash_row *r = rows[i];
        const char *p = r->reason;
        if (!r->recompiles || !p)
            continue;
        if (!any)
            printf("\nrecompiles (Dynamo compiled a frame again because every entry it already "
                   "had for the frame\nfailed a guard; each line names an earlier entry and the "
                   "guard it failed):\n");
        any = true;
        printf("  %s%s%s%s%s%s\n", r->compile_id ? r->compile_id : "?", r->frame ? " " : "",
               r->frame ? r->frame : "", d->n_sources > 1 ? " [" : "",
               d->n_sources > 1 ? d->sources[r->source] : "", d->n_sources > 1 ? "]" : "");
        while (*p) {
            size_t k = strcspn(p, "\n");
            printf("      %.*s\n", (int)k, p);
            p += k;
            if (*p)
                p++;
        }
    }
}

static void print_text(const struct cgs_follow *f)
{
    const struct cgs_dash *d = f->dash;
    const struct cgs_dash_row **rows;
    double now = d->last_ts > 0 ? d->last_ts : wall_now(), hr = cgs_dash_hit_rate(d);
    uint32_t n = cgs_dash_view(d, CGS_DASH_COL_KEY, NULL, now, &rows);
    /* lib/run/dash.h's columns that --once prints; the source only for several files */
    enum cgs_dash_col cols[CGS_DASH_COL_COUNT];
    size_t ncols = 0;
    for (int c = 0; c < CGS_DASH_COL_COUNT; c++)
        if ((cgs_dash_columns[c].flags & CGS_DASH_ONCE) &&
            (!(cgs_dash_columns[c].flags & CGS_DASH_MULTI) || d->n_sources > 1))
            cols[ncols++] = (enum cgs_dash_col)c;
    int w[CGS_DASH_COL_COUNT] = {0};
    char cell[512];

    printf("%llu event%s, %llu compile%s, hit rate ", (unsigned long long)d->events,
           PLURAL(d->events), (unsigned long long)d->compiles, PLURAL(d->compiles));
    if (hr < 0)
        printf("- (no lookup)");
    else
        printf("%.1f%%", hr * 100);
    printf(", %llu recompile%s, %llu graph break%s", (unsigned long long)d->recompiles,
           PLURAL(d->recompiles), (unsigned long long)d->graph_breaks, PLURAL(d->graph_breaks));
    if (d->n_breaks && d->n_breaks != d->graph_breaks)
        printf(" (%u site%s)", d->n_breaks, PLURAL(d->n_breaks));
    printf(", %llu bad line%s\n", (unsigned long long)d->bad_lines, PLURAL(d->bad_lines));
    for (uint32_t i = 0; i < d->n_caches; i++)
        printf("%s%s %llu hit / %llu miss / %llu bypass", i ? ", " : "caches: ",
               d->caches[i].name, (unsigned long long)d->caches[i].hit,
               (unsigned long long)d->caches[i].miss, (unsigned long long)d->caches[i].bypass);
    if (d->n_caches)
        printf("\n");
    if (d->bad_lines)
        printf("first bad line: %s\n", d->first_bad);
    if (f->status[0])
        printf("%s\n", f->status);
    for (size_t k = 0; k < ncols; k++)
        w[cols[k]] = (int)strlen(cgs_dash_col_names[cols[k]]);
    for (uint32_t i = 0; i < n; i++)
        for (size_t k = 0; k + 1 < ncols; k++) {
            cgs_dash_row_cell(d, rows[i], cols[k], now, cell, sizeof(cell));
            if ((int)strlen(cell) > w[cols[k]])
                w[cols[k]] = (int)strlen(cell);
        }
    printf("\n");
    for (size_t k = 0; k < ncols; k++)
        printf("%-*s%s", w[cols[k]], cgs_dash_col_names[cols[k]], k + 1 < ncols ? "  " : "\n");
    for (uint32_t i = 0; i < n; i++)
        for (size_t k = 0; k < ncols; k++) {
            cgs_dash_row_cell(d, rows[i], cols[k], now, cell, sizeof(cell));
            if (k + 1 < ncols)
                printf("%-*s  ", w[cols[k]], cell);
            else
                printf("%s\n", cell);
        }
    if (!n)
        printf("(no compile or lookup in the sources)\n");
    {
        uint32_t unknown = 0;
        for (uint32_t i = 0; i < n; i++)
            unknown += rows[i]->trace && !rows[i]->has_compile_ms;
        if (unknown)
            printf("compile ms '-': no compilation_metrics record gives a time for %u compile "
                   "id%s (a compile still running, or a process that ended inside it)\n",
                   unknown, PLURAL(unknown));
    }
    print_recompiles(d, rows, n);
    free(rows);
}

/* text's lines (each cut at 1,000 characters) as an array under key. */
/* key: the text's lines, each cut at 1,000 bytes. */
static void lines_field(struct jsonw *w, struct jsonw_obj *o, const char *key, const char *text)
{
    bool first = true;
    jsonw_field(w, o, key);
    jsonw_raw(w, "[", 1);
    for (const char *p = text; p && *p;) {
        size_t k = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof(line), "%.*s", (int)(k < 1000 ? k : 1000), p);
        if (!first)
            jsonw_sep(w);
        first = false;
        jsonw_string(w, line);
        p += k;
        if (*p)
            p++;
    }
    jsonw_raw(w, "]", 1);
}

static void counts_field(struct jsonw *w, struct jsonw_obj *c, const char *name, double hit,
                         double miss, double bypass)
{
    struct jsonw_obj o;
    jsonw_field(w, c, name);
    jsonw_open(w, &o, c->depth);
    jsonw_field_num(w, &o, "hit", hit);
    jsonw_field_num(w, &o, "miss", miss);
    jsonw_field_num(w, &o, "bypass", bypass);
    jsonw_close(w, &o);
}

struct top_out {
    const struct cgs_follow *f;
    const struct cgs_findings *findings; /* top --json's; NULL for the page's document */
    const struct cgs_dash *texts;        /* the page's: each compile's graph texts from it */
    int depth;                           /* the document's (0: a document of its own) */
};

/* The graph texts the dash holds of row r's compile (its first occurrence): the page shows
 * them with the compile. */
static void graph_texts(struct jsonw *w, struct jsonw_obj *o, const struct cgs_dash *d,
                        const struct cgs_dash_row *r)
{
    bool any = false;
    for (uint32_t i = 0; r->compile_id && i < d->n_graphs; i++) {
        const struct cgs_dash_graph *g = &d->graphs[i];
        struct jsonw_obj x;
        if (strcmp(g->compile_id, r->compile_id) || g->rank != r->rank || g->occurrence != 1 ||
            !g->text)
            continue;
        if (!any) {
            jsonw_field(w, o, "graph_texts");
            jsonw_raw(w, "[", 1);
        } else {
            jsonw_sep(w);
        }
        any = true;
        jsonw_open(w, &x, o->depth + 1);
        jsonw_field_str(w, &x, "stage", g->backward ? "post_grad (backward)" : g->stage);
        if (strlen(g->text) > CGS_DASH_MAX_TEXT) {
            char *cut = cgs_xmalloc(CGS_DASH_MAX_TEXT + 40);
            memcpy(cut, g->text, CGS_DASH_MAX_TEXT);
            strcpy(cut + CGS_DASH_MAX_TEXT, "\n... (cut: the log holds more)");
            jsonw_field_str(w, &x, "text", cut);
            free(cut);
        } else {
            jsonw_field_str(w, &x, "text", g->text);
        }
        jsonw_close(w, &x);
    }
    if (any)
        jsonw_raw(w, "]", 1);
}

/* One row of top's document (a compile, a cache entry), an item of "rows" at depth. */
static void row_write(struct jsonw *w, const struct top_out *to, const struct cgs_dash_row *r,
                      int depth)
{
    const struct cgs_dash *d = to->f->dash;
    struct jsonw_obj o, c;
    jsonw_open(w, &o, depth);
    if (r->has_graph_index)
        jsonw_field_int(w, &o, "graph_index", r->graph_index);
    else
        jsonw_field_null(w, &o, "graph_index");
    if (r->trace || r->dynamic)
        jsonw_field_null(w, &o, "runtime_shape");
    else
        jsonw_field_int(w, &o, "runtime_shape", r->runtime_shape);
    jsonw_field_str(w, &o, "backend", r->backend);
    jsonw_field_str(w, &o, "compile_id", r->compile_id);
    jsonw_field_str(w, &o, "source", r->source < d->n_sources ? d->sources[r->source] : "");
    if (r->rank >= 0)
        jsonw_field_num(w, &o, "rank", r->rank);
    else
        jsonw_field_null(w, &o, "rank");
    jsonw_field_str(w, &o, "frame", r->frame);
    jsonw_field_num(w, &o, "hits", (double)r->hits);
    jsonw_field_num(w, &o, "misses", (double)r->misses);
    jsonw_field_num(w, &o, "bypasses", (double)r->bypasses);
    jsonw_field_num(w, &o, "compiles", (double)r->compiles);
    if (r->trace && !r->has_compile_ms) { /* the log does not say: unknown, not 0 */
        jsonw_field_null(w, &o, "compile_ms");
        jsonw_field_null(w, &o, "last_compile_ms");
    } else {
        jsonw_field_num(w, &o, "compile_ms", r->compile_ms);
        jsonw_field_num(w, &o, "last_compile_ms", r->last_compile_ms);
    }
    if (r->trace) {
        jsonw_field(w, &o, "compile_ms_phases");
        jsonw_open(w, &c, o.depth);
        for (int k = 0; k < CGS_DASH_PHASE_COUNT; k++)
            if (r->phase_ms[k] >= 0)
                jsonw_field_num(w, &c, cgs_dash_phase_names[k], r->phase_ms[k]);
            else
                jsonw_field_null(w, &c, cgs_dash_phase_names[k]);
        jsonw_close(w, &c);
        jsonw_field_num(w, &o, "run", r->run);
        jsonw_field_str(w, &o, "fail_type", r->limit_hit ? NULL : r->fail_type);
        jsonw_field_str(w, &o, "fail_reason", r->limit_hit ? NULL : r->fail_reason);
        jsonw_field_bool(w, &o, "recompile_limit", r->limit_hit);
        /* where the compile came from: dynamo_start's stack, the outermost frame first */
        lines_field(w, &o, "stack", r->stack);
        /* the page's (keep_texts): guards, shape specializations, generated code */
        if (r->guards)
            jsonw_field_str(w, &o, "guards", r->guards);
        if (r->specializations.len)
            jsonw_field_str(w, &o, "specializations", r->specializations.buf);
        if (r->output_code)
            jsonw_field_str(w, &o, "output_code", r->output_code);
        if (r->metrics_text)
            jsonw_field_str(w, &o, "metrics", r->metrics_text);
        /* the collectives Inductor scheduled, in order (a log that says) */
        if (r->collectives.len)
            lines_field(w, &o, "collectives", r->collectives.buf);
        /* why Dynamo restarted the frame's analysis (a graph break), as torch wrote it */
        jsonw_field_str(w, &o, "restart_reasons",
                        r->restart_reasons && *r->restart_reasons ? r->restart_reasons
                                                                  : NULL);
        if (r->graph_op_count >= 0)
            jsonw_field_num(w, &o, "graph_op_count", (double)r->graph_op_count);
        else
            jsonw_field_null(w, &o, "graph_op_count");
    }
    if (r->last_ts > 0)
        jsonw_field_num(w, &o, "last_ts", r->last_ts);
    else
        jsonw_field_null(w, &o, "last_ts");
    jsonw_field_num(w, &o, "runs", (double)r->runs);
    jsonw_field_num(w, &o, "run_ms", r->run_ms);
    jsonw_field_num(w, &o, "recompiles", (double)r->recompiles);
    jsonw_field_num(w, &o, "captures", (double)r->captures);
    jsonw_field_str(w, &o, "reason", r->reason);
    lines_field(w, &o, "reasons", r->reason);
    jsonw_field_bool(w, &o, "indexed", r->indexed);
    if (to->texts)
        graph_texts(w, &o, to->texts, r);
    jsonw_close(w, &o);
}

/* top --json's document (and the page's), written straight from the records' model. */
static void top_write(struct jsonw *w, void *ctx)
{
    const struct top_out *to = ctx;
    const struct cgs_follow *f = to->f;
    const struct cgs_dash *d = f->dash;
    struct jsonw_obj doc, o, c;
    double hr = cgs_dash_hit_rate(d);
    int dd;

    cli_doc_open(w, &doc, to->depth, "top");
    dd = doc.depth + 1; /* an item of one of the document's arrays */
    jsonw_field(w, &doc, "sources");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < f->n_files; i++) {
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, dd);
        jsonw_field_str(w, &o, "path", f->files[i].path);
        jsonw_field_str(w, &o, "kind", cgs_src_kind_names[f->files[i].feed.kind]);
        jsonw_field_num(w, &o, "bytes", (double)f->files[i].off);
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &doc, "rows");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < d->n_rows; i++) {
        if (i)
            jsonw_sep(w);
        row_write(w, to, d->rows[i], dd);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &doc, "caches");
    jsonw_open(w, &c, doc.depth);
    {
        static const char *const always[] = {"fx_graph", "aotautograd"};
        for (size_t k = 0; k < 2; k++)
            if (!cgs_dash_cache(d, always[k]))
                counts_field(w, &c, always[k], 0, 0, 0);
    }
    for (uint32_t i = 0; i < d->n_caches; i++)
        counts_field(w, &c, d->caches[i].name, (double)d->caches[i].hit,
                     (double)d->caches[i].miss, (double)d->caches[i].bypass);
    jsonw_close(w, &c);
    jsonw_field_num(w, &doc, "compiles", (double)d->compiles);
    {
        /* distinct compile ids (per rank): what "compiles" counted before it counted
           compilations (DESIGN.md's contract keeps both) */
        struct cgs_strmap *ids = cgs_strmap_new(); /* borrows its keys: kept in keys[] */
        char **keys = cgs_xcalloc(d->n_rows ? d->n_rows : 1, sizeof(*keys));
        for (uint32_t i = 0; i < d->n_rows; i++)
            if (d->rows[i]->compile_id) {
                size_t n = strlen(d->rows[i]->compile_id) + 16;
                keys[i] = cgs_xmalloc(n);
                snprintf(keys[i], n, "%d %s", d->rows[i]->rank, d->rows[i]->compile_id);
                cgs_strmap_put(ids, keys[i], (void *)1);
            }
        jsonw_field_num(w, &doc, "compile_ids", (double)ids->count);
        cgs_strmap_free(ids);
        for (uint32_t i = 0; i < d->n_rows; i++)
            free(keys[i]);
        free(keys);
    }
    jsonw_field_num(w, &doc, "recompiles", (double)d->recompiles);
    {
        struct cgs_compile_counts cc;
        cgs_findings_compile_counts(d, &cc);
        jsonw_field(w, &doc, "compile_counts");
        jsonw_open(w, &o, doc.depth);
        jsonw_field_num(w, &o, "graphs", (double)cc.graphs);
        jsonw_field_num(w, &o, "empty", (double)cc.empty);
        jsonw_field_num(w, &o, "failed", (double)cc.failed);
        jsonw_field_num(w, &o, "refused", (double)cc.refused);
        jsonw_field_num(w, &o, "runs", (double)cc.runs);
        jsonw_close(w, &o);
    }
    jsonw_field_num(w, &doc, "graph_breaks", (double)d->graph_breaks);
    jsonw_field_num(w, &doc, "captures", (double)d->captures);
    jsonw_field_num(w, &doc, "events", (double)d->events);
    if (hr < 0)
        jsonw_field_null(w, &doc, "hit_rate");
    else
        jsonw_field_num(w, &doc, "hit_rate", hr);
    jsonw_field_num(w, &doc, "bad_lines", (double)d->bad_lines);
    jsonw_field_str(w, &doc, "first_bad_line", d->bad_lines ? d->first_bad : NULL);
    if (to->findings) {
        jsonw_field(w, &doc, "findings");
        cli_findings_write(w, to->findings, doc.depth);
    }
    jsonw_close(w, &doc);
}

cJSON *cli_top_doc(const struct cgs_follow *f, const struct cgs_dash *texts)
{
    struct top_out to = {f, NULL, texts, 0};
    return cli_written_tree(top_write, &to);
}

void cli_top_write(struct jsonw *w, const struct cgs_follow *f, const struct cgs_dash *texts,
                   int depth)
{
    struct top_out to = {f, NULL, texts, depth};
    top_write(w, &to);
}

/* ---- -- CMD ---------------------------------------------------------------------------- */

static pid_t spawn(char **cmd, const char *dir, const char *log)
{
    char trace[4096], events[4096];
    pid_t pid;
    snprintf(trace, sizeof(trace), "%.4000s/trace", dir);
    snprintf(events, sizeof(events), "%.4000s/events.jsonl", dir);
    if (mkdir(trace, 0777) && errno != EEXIST) {
        cli_error("cannot make '%s': %s", trace, strerror(errno));
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        cli_error("cannot start '%s': %s", cmd[0], strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* a folder cgscope fills: a link planted at the log's name is not followed */
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (nul >= 0)
            dup2(nul, 0);
        setenv("TORCH_TRACE", trace, 1);
        setenv("CGSCOPE_EVENTS", events, 1);
        signal(SIGINT, SIG_DFL);
        execvp(cmd[0], cmd);
        fprintf(stderr, "cgscope top: cannot run '%s': %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

/* The command's last lines of output, when it failed: the why, not only the status. */
static void print_child_tail(const char *log)
{
    char tail[12][256];
    int n = cgs_file_tail(log, tail, 12);
    if (!n)
        return;
    fprintf(stderr, "cgscope top: the last lines of its output (%s):\n", log);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "  | %s\n", tail[i]);
}

/*
 * top -- CMD without a terminal (CI, a pipe, TERM=dumb): a status line every few seconds while
 * CMD runs, then the final table; CMD's exit status is the command's.
 */
static int run_plain(struct cgs_tui_opts *t, const char *name, const char *dir,
                     unsigned interval_ms)
{
    struct cgs_follow *f = t->follow;
    const struct cgs_dash *d = f->dash;
    double last = 0, t0 = wall_now();
    int rc;
    fprintf(stderr, "cgscope top: running %s (no terminal: a status line every 5 s, then the "
            "table); run folder %s\n", name, dir);
    for (;;) {
        int st;
        pid_t w = waitpid(t->child, &st, WNOHANG);
        double now = wall_now();
        cgs_follow_poll(f);
        if (w == t->child) {
            t->child_done = true;
            t->child_status = st;
            break;
        }
        if (now - last >= 5.0) {
            fprintf(stderr, "cgscope top: %.0f s: %llu events, %llu compiles, %llu recompiles, "
                    "%llu graph breaks\n", now - t0, (unsigned long long)d->events,
                    (unsigned long long)d->compiles, (unsigned long long)d->recompiles,
                    (unsigned long long)d->graph_breaks);
            last = now;
        }
        {
            struct timespec ts = {(time_t)(interval_ms / 1000),
                                  (long)(interval_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    cgs_follow_poll(f);
    cgs_follow_finish(f);
    print_text(f);
    fflush(stdout);
    rc = cli_exit_status(t->child_status);
    fprintf(stderr, "cgscope top: %s exited with %d; its output: %s; the trace: %s\n", name, rc,
            t->log_path, dir);
    if (rc)
        print_child_tail(t->log_path);
    return rc;
}

/* ---- main ------------------------------------------------------------------------------ */

extern const struct cmd cmd_html;

/* --html: DIR/report.html of the run, from what it wrote (its TORCH_TRACE log, its events). */
static void run_html(const char *dir, const char *trace, const char *events)
{
    char page[4200];
    char *hv[8];
    int hc = 0;
    struct stat st;
    hv[hc++] = (char *)"html";
    if (!stat(trace, &st))
        hv[hc++] = (char *)trace;
    if (!stat(events, &st) && st.st_size > 0)
        hv[hc++] = (char *)events;
    if (hc == 1) {
        cli_warn("--html: the run wrote no TORCH_TRACE log and no events in %s: no page", dir);
        return;
    }
    snprintf(page, sizeof(page), "%.4000s/report.html", dir);
    hv[hc++] = (char *)"-o";
    hv[hc++] = page;
    hv[hc] = NULL;
    if (cmd_html.run(hc, hv) == CGS_EXIT_OK)
        fprintf(stderr, "open %s\n", page);
}

struct top_args {
    bool once, json, html;
    unsigned long interval;
    const char *dir, *log;
    char **cmd;            /* after "--": the command to run, or NULL */
    int n_cmd;
    char **sources;        /* else the sources */
    int n_sources;
    char dirbuf[4096], logbuf[4096], tracebuf[4200], eventsbuf[4200], title[512];
};

static int parse_args(int argc, char **argv, struct top_args *a)
{
    int c;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            a->cmd = argv + i + 1;
            a->n_cmd = argc - i - 1;
            argc = i;
            break;
        }
    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_top, argc, argv)) != -1) {
        switch (c) {
        case 'o': a->once = true; break;
        case 'j': a->json = true; break;
        case 'd': a->dir = optarg; break;
        case 'l': a->log = optarg; break;
        case 'H': a->html = true; break;
        case 'i':
            if (!cli_parse_uint(optarg, &a->interval) || a->interval == 0 || a->interval > 60000)
                return cli_usage_error(&cmd_top, "--interval wants milliseconds (1-60000), got "
                                       "'%s'", optarg);
            break;
        default: return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
        }
    }
    a->sources = argv + optind;
    a->n_sources = argc - optind;
    if (a->json && !a->once)
        return cli_usage_error(&cmd_top, "--json needs --once (the live view is for a terminal)");
    if (a->cmd && !a->n_cmd)
        return cli_usage_error(&cmd_top, "nothing after '--': give the command to run");
    if (a->cmd && a->n_sources)
        return cli_usage_error(&cmd_top, "give SOURCE... or -- CMD, not both");
    if (!a->cmd && !a->n_sources)
        return cli_usage_error(&cmd_top, "missing SOURCE (an events file, a TORCH_TRACE file "
                               "or folder, or a cache index), or -- CMD");
    if (a->html && !a->cmd)
        return cli_usage_error(&cmd_top, "--html writes the page of a run: give -- CMD (for "
                               "finished sources: cgscope html SOURCE...)");
    if (a->cmd && a->once)
        return cli_usage_error(&cmd_top, "--once reads finished sources; with -- CMD the "
                               "dashboard follows the run");
    if (!a->once && !a->cmd && (!isatty(0) || !isatty(1)))
        return cli_usage_error(&cmd_top, "the live view needs a terminal; --once prints the "
                               "table as text");
    return 0;
}

/* -- CMD: a run folder (made, or --dir), CMD started with TORCH_TRACE and the bridge's events
 * pointed into it, and follow set on them. 0, or the exit status (said). */
static int start_run(struct top_args *a, struct cgs_follow *follow, struct cgs_dash *dash,
                     pid_t *child)
{
    const char *roots[2];
    if (!a->dir) {
        const char *tmp = getenv("TMPDIR");
        snprintf(a->dirbuf, sizeof(a->dirbuf), "%s/cgscope-top.XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(a->dirbuf))
            return cli_error("cannot make a folder for the run: %s", strerror(errno));
        a->dir = a->dirbuf;
    } else if (mkdir(a->dir, 0777) && errno != EEXIST) {
        return cli_error("cannot make '%s': %s", a->dir, strerror(errno));
    }
    if (!a->log) {
        snprintf(a->logbuf, sizeof(a->logbuf), "%.4000s/cmd.log", a->dir);
        a->log = a->logbuf;
    }
    snprintf(a->tracebuf, sizeof(a->tracebuf), "%.4000s/trace", a->dir);
    snprintf(a->eventsbuf, sizeof(a->eventsbuf), "%.4000s/events.jsonl", a->dir);
    roots[0] = a->tracebuf;
    roots[1] = a->eventsbuf;
    cgs_follow_init(follow, roots, 2, dash);
    follow->any_root = true; /* a run writes a trace, events, or both */
    if ((*child = spawn(a->cmd, a->dir, a->log)) < 0)
        return CGS_EXIT_BAD_INPUT;
    snprintf(a->title, sizeof(a->title), "cgscope top -- %.200s (run folder %.200s)", a->cmd[0],
             a->dir);
    return 0;
}

/* --once: the table of finished sources, then the findings model over the same sources
 * (graphs analysed too), as check and the page print them. */
static int run_once(const struct top_args *a, struct cgs_follow *follow, struct cgs_dash *dash)
{
    struct cli_job job;
    int rc;
    follow->blocking = true;
    for (uint32_t i = 0; i < follow->n_roots; i++) {
        struct stat st;
        if (!cgs_path_is_stdin(follow->roots[i]) && stat(follow->roots[i], &st))
            return cli_file_error(follow->roots[i], "cannot open: %s", strerror(errno));
    }
    cgs_follow_poll(follow);
    cgs_follow_finish(follow);
    if ((rc = cli_sources_read(follow, 1u << CGS_SRC_TRACE | 1u << CGS_SRC_EVENTS |
                                           1u << CGS_SRC_CACHE_INDEX,
                               "a TORCH_TRACE log, the bridge's events or a cache index")))
        return rc;
    memset(&job, 0, sizeof(job));
    job.drop_graphs = true; /* the findings only */
    if (!(rc = cli_job_run_read(&job, a->sources, a->n_sources, NULL, dash))) {
        if (a->json) {
            struct top_out to = {follow, &job.findings, NULL, 0};
            cli_print_written(top_write, &to);
        } else {
            char tally[96];
            print_text(follow);
            cli_findings_tally(&job.findings, tally, sizeof(tally));
            printf("\nfindings: %s%s\n", tally, job.findings.n ? " (cgscope check prints "
                                                                 "their hints)" : "");
            cli_findings_print(&job.findings, stdout, false);
        }
    }
    cli_job_release(&job);
    return rc;
}

/* The live view (or plain lines without a terminal), then CMD waited for and its page. */
static int run_live(struct top_args *a, struct cgs_tui_opts *t)
{
    int rc;
    t->interval_ms = (int)a->interval;
    t->title = a->title;
    t->log_path = a->cmd ? a->log : NULL;
    if (a->cmd && (!isatty(0) || !isatty(1) || !getenv("TERM") || !strcmp(getenv("TERM"), "dumb"))) {
        rc = run_plain(t, a->cmd[0], a->dir, (unsigned)a->interval);
        if (a->html)
            run_html(a->dir, a->tracebuf, a->eventsbuf);
        return rc;
    }
    if (cgs_tui_run(t) < 0) {
        if (t->child > 0) {
            kill(t->child, SIGTERM);
            waitpid(t->child, &t->child_status, 0);
        }
        return CGS_EXIT_BAD_INPUT;
    }
    if (t->child <= 0)
        return CGS_EXIT_OK;
    if (!t->child_done) {
        /* the user quit while CMD runs: it keeps its terminal-less run to the end */
        fprintf(stderr, "cgscope top: waiting for %s (pid %d) to finish; its output: %s\n",
                a->cmd[0], (int)t->child, a->log);
        waitpid(t->child, &t->child_status, 0);
    }
    rc = cli_exit_status(t->child_status);
    fprintf(stderr, "cgscope top: %s exited with %d; its output: %s; the trace: %s\n", a->cmd[0],
            rc, a->log, a->dir);
    if (rc)
        print_child_tail(a->log);
    if (a->html)
        run_html(a->dir, a->tracebuf, a->eventsbuf);
    return rc;
}

static int run(int argc, char **argv)
{
    struct top_args *a = cgs_xcalloc(1, sizeof(*a)); /* 17 KB of paths: not on the stack */
    struct cgs_dash dash;
    struct cgs_follow follow;
    struct cgs_tui_opts t = {0};
    int rc;

    a->interval = 100;
    if ((rc = parse_args(argc, argv, a))) {
        free(a);
        return rc;
    }
    cgs_dash_init(&dash);
    if (a->cmd) {
        if ((rc = start_run(a, &follow, &dash, &t.child))) {
            if (t.child < 0)
                cgs_follow_release(&follow);
            cgs_dash_release(&dash);
            free(a);
            return rc;
        }
    } else {
        cgs_follow_init(&follow, (const char *const *)a->sources, (uint32_t)a->n_sources, &dash);
        snprintf(a->title, sizeof(a->title), "cgscope top: %.400s%s", a->sources[0],
                 a->n_sources > 1 ? " ..." : "");
    }
    t.follow = &follow;
    rc = a->once ? run_once(a, &follow, &dash) : run_live(a, &t);
    cgs_follow_release(&follow);
    cgs_dash_release(&dash);
    free(a);
    return rc;
}
