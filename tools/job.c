/* A job over the user's sources and its findings (tools/job.h). */
#include "tools/job.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/passes/layout.h"
#include "lib/passes/shapes.h"
#include "lib/passes/split.h"
#include "lib/readers/file.h"
#include "lib/readers/load.h"
#include "lib/readers/sniff.h"
#include "lib/run/follow.h"
#include "tools/prof-out.h"
#include "tools/session.h"

const char *const cli_role_names[4] = {"graph", "torch_trace_or_cache_folder", "compiles",
                                       "profile"};

int cli_source_role(const char *path, enum cgs_source_kind *kind)
{
    struct cgs_probe p;
    enum cgs_source_kind k;

    if (kind)
        *kind = CGS_SRCK_NONE;

    if (cgs_source_probe(&p, path)) {
        if (strchr(path, '#'))
            return CLI_ROLE_GRAPH; /* a ref: the log it names is checked when it loads */
        return cli_file_error(path, "cannot read it: %s", strerror(p.err)), -1;
    }
    k = cgs_source_kind(&p);
    if (kind)
        *kind = k;
    if (k != CGS_SRCK_NONE)
        return (int)cgs_source_reader(k)->role;
    if (cgs_input_kind_compressed(p.kind))
        return cli_file_error(path, "is %s holding %s: cgscope reads compressed TORCH_TRACE "
                                    "logs only; decompress it first (%s)",
                              cgs_input_kind_what(p.kind), cgs_input_kind_what(p.inner),
                              cgs_input_kind_unpack(p.kind)),
               -1;
    {
        struct cgs_diag d = CGS_DIAG_INIT;
        cgs_sniff_refuse(&d, path, p.kind,
                         "a graph, a TORCH_TRACE log, events, a cache index or folder, a depyf "
                         "dump, or a profile");
        return cli_report_diag(&d), -1;
    }
}

static void add_graph(struct cli_job *j, const char *ref, const char *label)
{
    struct cli_job_graph *x;
    CGS_ALLOC_GROW(j->graphs, j->n_graphs + 1, j->alloc_graphs);
    x = &j->graphs[j->n_graphs++];
    memset(x, 0, sizeof(*x));
    x->ref = cgs_xstrdup(ref);
    x->label = cgs_xstrdup(label ? label : ref);
    x->item = -1;
}

static void warn_source(const char *file, const char *msg, void *ctx)
{
    (void)ctx;
    cli_file_warn(file, "%s", msg);
}

/* The caller read the logs' records already and said what the follower found (top --once):
 * collecting the graphs finds the same, unsaid a second time. */
static void warn_none(const char *file, const char *msg, void *ctx)
{
    (void)file, (void)msg, (void)ctx;
}

/* Split (piecewise only where split ops apply: those given or recorded that match a node),
 * infer shapes, and Inductor's layout of a post-grad graph when asked. */
static void analyse(struct cli_job *j, struct cli_job_graph *x, const struct cli_list *ops)
{
    static const struct cli_list empty = CLI_LIST_INIT;
    struct cli_session *s = &x->session;

    cli_session_init(s, x->ref);
    cli_session_adopt(s, x->g);
    for (size_t i = 0; ops && i < ops->n; i++)
        cli_list_add_csv(&s->ops, ops->items[i]);
    s->recorded_ops = s->present_ops_only = true;
    s->shared_decls = &j->decls;
    x->s = cli_session_split(s);
    x->ops = s->split_ops; /* the job's to keep */
    s->split_ops = empty;
    if (!x->s) {
        x->error = cgs_xstrdup(s->diag.msg);
        return;
    }
    x->shapes = cli_session_shapes(s);
    if (j->layout && x->g->producer.stage == CGS_STAGE_POST_GRAD)
        x->layout = cli_session_layout(s);
    cgs_diag_clear(&s->diag);
}

/* A graph as the findings read it. */
static void findings_graph(const struct cli_job_graph *x, struct cgs_findings_graph *out)
{
    out->label = x->label;
    out->error = x->error;
    out->g = x->error ? NULL : x->g;
    out->split = x->ops.n ? x->s : NULL; /* split ops given or recorded: pieces are CUDA-graph
                                            candidates */
    out->shapes = x->shapes;
}

/* The graph and its analysis freed (its label, error and split ops kept). */
static void free_analysis(struct cli_job_graph *x)
{
    if (x->session.g == x->g)
        cli_session_close(&x->session); /* the graph, its split, shapes and layout */
    else
        cgs_graph_free(x->g);
    x->g = NULL;
    x->s = NULL;
    x->shapes = NULL;
    x->layout = NULL;
}

/* Its findings into fed, then the graph and its analysis freed. */
static void drop_graph(struct cli_job_graph *x, struct cgs_findings_graphs *fed)
{
    struct cgs_findings_graph fg;
    findings_graph(x, &fg);
    cgs_findings_graphs_add(fed, &fg);
    free_analysis(x);
}

bool cli_job_read_nothing(const struct cli_job *j)
{
    return !j->n_graphs && !j->n_profiles &&
           !(j->have_dash && (j->dash.events || j->dash.n_rows || j->dash.n_entries));
}

int cli_job_run(struct cli_job *j, char *const *paths, int n, const struct cli_list *ops)
{
    return cli_job_run_read(j, paths, n, ops, NULL);
}

/* A source that is a stream (standard input, a pipe): read once, by the trace reader alone. */
static bool stream(const char *path)
{
    struct stat st;
    return cgs_path_is_stdin(path) || (!stat(path, &st) && !S_ISREG(st.st_mode) &&
                                       !S_ISDIR(st.st_mode));
}

/* Whether a JSON file says it is a cgscope graph in its first 4 KB (the bridge writes the format
 * first; another JSON of the folder, a split or a report, is not one). */
static bool says_graph(const char *path)
{
    char head[4097];
    size_t n = 0;
    FILE *f = fopen(path, "rb");
    if (f) {
        n = fread(head, 1, sizeof(head) - 1, f);
        fclose(f);
    }
    head[n] = '\0';
    return memchr(head, '\0', n) == NULL && strstr(head, "\"cgscope.graph\"") != NULL;
}

/* A profile folder's graphs (the bridge's dump_dir pointed at it: one folder for a run), in
 * name order, unless the user named the same file too. */
static void add_profile_graphs(struct cli_job *j, const char *dir)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        size_t len = strlen(name);
        char *path, *real, *other;
        bool named = false;
        enum cgs_source_kind k;
        if (name[0] == '.' || !((len > 5 && !strcmp(name + len - 5, ".json")) ||
                                (len > 4 && !strcmp(name + len - 4, ".pt2")))) {
            free(list[i]);
            continue;
        }
        path = cgs_xmalloc(strlen(dir) + len + 2);
        sprintf(path, "%s/%s", dir, name);
        k = cgs_source_kind_of(path);
        real = (k == CGS_SRCK_PT2 || (k == CGS_SRCK_GRAPH_JSON && says_graph(path)))
                   ? realpath(path, NULL)
                   : NULL;
        for (uint32_t g = 0; real && g < j->n_graphs && !named; g++) {
            other = realpath(j->graphs[g].ref, NULL);
            named = other && !strcmp(other, real);
            free(other);
        }
        if (real && !named)
            add_graph(j, path, NULL);
        free(real);
        free(path);
        free(list[i]);
    }
    free(list);
}

/* The logs' graphs loaded at once, at most: two for each load thread (cgs_load_threads), so
 * that the threads stay busy while graphs differ in size; one thread (CGSCOPE_THREADS=1) loads
 * one at a time, as before (tests/cli/graphs.sh compares the two). */
#define JOB_WINDOW 16

int cli_job_run_read(struct cli_job *j, char *const *paths, int n, const struct cli_list *ops,
                     const struct cgs_dash *read)
{
    const char **logs = cgs_xcalloc((size_t)n + 1, sizeof(*logs));
    const char **compiles = cgs_xcalloc((size_t)n + 1, sizeof(*compiles));
    uint32_t n_logs = 0, n_compiles = 0, named = 0, n_traces = 0;
    int rc = CGS_EXIT_OK;
    struct cgs_findings_graph *fg = NULL;
    struct cgs_findings_graphs *fed = j->drop_graphs ? cgs_findings_graphs_new() : NULL;
    struct cgs_graphs_early *early = NULL; /* the logs' graphs read while they were */
    struct {                               /* the logs' graphs loaded ahead, a window at a time */
        struct cgs_graph *g[JOB_WINDOW];
        struct cgs_diag d[JOB_WINDOW];
        uint32_t from, n, size;
    } win = {.size = cgs_load_threads() > 1 ? 2 * (uint32_t)cgs_load_threads() : 1};

    if (win.size > JOB_WINDOW)
        win.size = JOB_WINDOW;
    j->roles = cgs_xcalloc((size_t)n + 1, sizeof(*j->roles));
    j->profiles = cgs_xcalloc((size_t)n + 1, sizeof(*j->profiles));
    for (int i = 0; i < n; i++) {
        int role;
        enum cgs_source_kind kind;
        if (stream(paths[i])) { /* its records only (a graph in it is not read twice) */
            compiles[n_compiles++] = paths[i];
            j->roles[i] = -1;
            continue;
        }
        role = j->roles[i] = cli_source_role(paths[i], &kind);
        if (role < 0) {
            rc = CGS_EXIT_BAD_INPUT;
            goto out;
        }
        if (role == CLI_ROLE_GRAPH) {
            add_graph(j, paths[i], NULL);
            named++;
        } else if (role == CLI_ROLE_LOG) {
            logs[n_logs++] = paths[i];
            compiles[n_compiles++] = paths[i];
            /* TORCH_TRACE logs (a file, a folder of them), not a folder of graph files */
            n_traces += kind == CGS_SRCK_TRACE || kind == CGS_SRCK_TRACE_DIR;
        } else if (role == CLI_ROLE_COMPILES) {
            compiles[n_compiles++] = paths[i];
        } else { /* a profile (no verdict of its own yet): a report.json stands for its folder */
            char *dir = cgs_xstrdup(paths[i]), *sl;
            if (kind == CGS_SRCK_REPORT) {
                if ((sl = strrchr(dir, '/')) != NULL)
                    *sl = '\0';
                else
                    strcpy(dir, ".");
            }
            j->profiles[j->n_profiles++] = dir;
        }
    }
    for (uint32_t i = 0; i < j->n_profiles; i++)
        add_profile_graphs(j, j->profiles[i]);
    /* the compile records; when TORCH_TRACE logs are all there is to them, read once for the
       records and the graphs both (the graphs borrowed from the model) */
    if (n_compiles && !read) {
        cgs_dash_init(&j->dash);
        j->dash.keep_texts = j->texts;
        j->dash.keep_graphs = j->texts || n_compiles == n_traces;
        j->dash.keep_lookups = j->lookups;
        j->have_dash = true;
        cgs_follow_init(&j->follow, compiles, n_compiles, &j->dash);
        j->have_follow = true;
        j->follow.blocking = true;
        if (n_logs && n_compiles == n_traces && !j->lazy) {
            /* every graph of the logs is loaded below: read while the feeding would wait */
            early = cgs_graphs_early_new(&j->dash);
            j->follow.idle = cgs_graphs_early_idle;
            j->follow.idle_ctx = early;
        }
        cgs_follow_poll(&j->follow);
        cgs_follow_finish(&j->follow);
        j->follow.idle = NULL;
    }
    if (n_logs) {
        struct cgs_diag d = CGS_DIAG_INIT;
        bool once = j->have_dash && n_compiles == n_traces;
        int got;
        if (once) {
            got = cgs_graphs_collect_read(&j->gs, logs, n_logs, &j->dash, warn_source, NULL, &d);
            if (got == 0 && early) {
                cgs_graphs_use_early(&j->gs, early);
                early = NULL;
            }
            /* what collecting would have said of a log that gave nothing */
            cgs_follow_verdict(&j->follow, 1u << CGS_SRC_TRACE, "TORCH_TRACE logs", warn_source,
                               NULL);
        } else {
            got = cgs_graphs_collect(&j->gs, logs, n_logs, read ? warn_none : warn_source, NULL,
                                     &d);
        }
        if (got == 0) {
            j->have_gs = true;
            for (uint32_t i = 0; i < j->gs.n_items; i++) {
                add_graph(j, j->gs.items[i].ref, j->gs.items[i].ref);
                j->graphs[j->n_graphs - 1].item = (int32_t)i;
            }
        } else { /* a log of compiles and breaks without a graph is still a source */
            cgs_diag_clear(&d);
            cgs_graphs_release(&j->gs);
        }
    }
    if (j->max_graphs && j->n_graphs > j->max_graphs) { /* the rest are named, not read */
        j->skipped = j->n_graphs - j->max_graphs;
        for (uint32_t i = j->max_graphs; i < j->n_graphs; i++) {
            free(j->graphs[i].ref);
            free(j->graphs[i].label);
        }
        j->n_graphs = j->max_graphs;
    }
    if (j->n_graphs && cli_load_opdecls(&j->decls, NULL, 0))
        cli_warn("operator declarations not loaded");
    j->split_ops = ops;
    for (uint32_t i = 0; i < j->n_graphs; i++) {
        struct cli_job_graph *x = &j->graphs[i];
        if (j->lazy && x->item >= 0)
            continue; /* read when asked (cli_job_diff_input's load) */
        if (j->progress && j->n_graphs > 1 && isatty(2))
            fprintf(stderr, "\rcgscope: graph %u of %u", i + 1, j->n_graphs);
        if (x->item >= 0) { /* from the logs already read: not read again */
            uint32_t at = (uint32_t)x->item;
            if (!(win.n && at >= win.from && at < win.from + win.n)) {
                /* this graph and the logs' next ones loaded at once on the load threads (each
                   in its own memory; one, on the calling thread, when one thread loads), then
                   analysed here one by one, in order, as before */
                uint32_t k = 1;
                while (k < win.size && i + k < j->n_graphs &&
                       j->graphs[i + k].item == x->item + (int32_t)k)
                    k++;
                win.from = at;
                win.n = k;
                for (uint32_t q = 0; q < k; q++)
                    win.d[q] = (struct cgs_diag)CGS_DIAG_INIT;
                cgs_graphs_load_many(&j->gs, at, k, win.g, win.d);
            }
            x->g = win.g[at - win.from];
            win.g[at - win.from] = NULL;
            if (!x->g)
                cli_report_diag(&win.d[at - win.from]);
        } else {
            x->g = cli_load_graph(x->ref, NULL);
        }
        if (!x->g) {
            if (i < named) { /* a graph the user named does not load: said */
                rc = CGS_EXIT_BAD_INPUT;
                goto out;
            }
            x->error = cgs_xstrdup("does not load (see the warning above)");
            if (fed)
                drop_graph(x, fed);
            continue;
        }
        analyse(j, x, ops);
        if (j->analysed)
            j->analysed(j, i, j->ctx);
        if (fed) /* its findings taken, the graph goes */
            drop_graph(x, fed);
    }
    if (j->progress && j->n_graphs > 1 && isatty(2))
        fputc('\n', stderr);
    fg = cgs_xcalloc(j->n_graphs + 1, sizeof(*fg));
    for (uint32_t i = 0; !fed && i < j->n_graphs; i++)
        findings_graph(&j->graphs[i], &fg[i]);
    {
        /* a lazy job's graphs are not read: no graph findings (the diff has none) */
        struct cgs_findings_input in = {read ? read : j->have_dash ? &j->dash : NULL, fg,
                                        fed || j->lazy ? 0 : j->n_graphs, fed};
        cgs_findings_build(&in, &j->findings);
    }
out:
    for (uint32_t k = 0; k < win.n; k++)
        cgs_graph_free(win.g[k]);
    cgs_graphs_early_free(early);
    cgs_findings_graphs_free(fed);
    free(fg);
    free(logs);
    free(compiles);
    return rc;
}

void cli_job_release(struct cli_job *j)
{
    for (uint32_t i = 0; i < j->n_graphs; i++) {
        free(j->graphs[i].ref);
        free(j->graphs[i].label);
        free(j->graphs[i].error);
        cli_list_release(&j->graphs[i].ops);
        if (j->graphs[i].session.g == j->graphs[i].g)
            cli_session_close(&j->graphs[i].session); /* the graph, its layout */
        else
            cgs_graph_free(j->graphs[i].g);
    }
    free(j->graphs);
    if (j->have_follow)
        cgs_follow_release(&j->follow);
    for (uint32_t i = 0; i < j->n_profiles; i++)
        free(j->profiles[i]);
    free(j->profiles);
    free(j->roles);
    if (j->have_dash)
        cgs_dash_release(&j->dash);
    if (j->have_gs)
        cgs_graphs_release(&j->gs);
    cgs_opdecls_free(&j->decls);
    cgs_findings_release(&j->findings);
    memset(j, 0, sizeof(*j));
}

void cli_findings_write(struct jsonw *w, const struct cgs_findings *f, int depth)
{
    struct jsonw_obj o, x;
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < f->n; i++) {
        const struct cgs_finding *fi = &f->v[i];
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, depth + 1);
        jsonw_field_str(w, &o, "kind", cgs_finding_kind_names[fi->kind]);
        jsonw_field_str(w, &o, "severity", cgs_severity_names[fi->severity]);
        jsonw_field(w, &o, "subject");
        jsonw_open(w, &x, o.depth);
        jsonw_field_str(w, &x, "frame", fi->frame);
        jsonw_field_str(w, &x, "compile_ids", fi->compile_ids);
        jsonw_field_str(w, &x, "ranks", fi->ranks);
        jsonw_field_str(w, &x, "graphs", fi->graphs);
        jsonw_field_str(w, &x, "pieces", fi->pieces);
        jsonw_close(w, &x);
        jsonw_field_str(w, &o, "message", fi->message ? fi->message : "");
        jsonw_field_str(w, &o, "hint", fi->hint);
        jsonw_field_str(w, &o, "url", fi->url);
        if (fi->evidence_file) {
            jsonw_field(w, &o, "evidence");
            jsonw_open(w, &x, o.depth);
            jsonw_field_str(w, &x, "file", fi->evidence_file);
            if (fi->evidence_line)
                jsonw_field_num(w, &x, "line", (double)fi->evidence_line);
            else
                jsonw_field_null(w, &x, "line");
            jsonw_close(w, &x);
        } else {
            jsonw_field_null(w, &o, "evidence");
        }
        jsonw_field_num(w, &o, "count", (double)fi->count);
        jsonw_field_str(w, &o, "href", cgs_finding_kind_anchors[fi->kind]);
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
}

static void print_lines(FILE *out, const char *label, const char *text)
{
    bool first = true;
    for (const char *p = text; p && *p;) {
        size_t k = strcspn(p, "\n");
        fprintf(out, "    %-9s %.*s\n", first ? label : "", (int)k, p);
        first = false;
        p += k;
        p += *p == '\n';
    }
}

void cli_findings_print(const struct cgs_findings *f, FILE *out, bool details)
{
    for (uint32_t i = 0; i < f->n; i++) {
        const struct cgs_finding *x = &f->v[i];
        fprintf(out, "%s: %s: %s\n", cgs_severity_names[x->severity],
                cgs_finding_kind_names[x->kind], x->message ? x->message : "");
        if (!details)
            continue;
        print_lines(out, "hint:", x->hint);
        if (x->url)
            fprintf(out, "    %-9s %s\n", "more:", x->url);
        if (x->compile_ids)
            fprintf(out, "    %-9s %s\n", "compiles:", x->compile_ids);
        if (x->ranks)
            fprintf(out, "    %-9s %s\n", "ranks:", x->ranks);
        if (x->graphs && x->kind != CGS_FINDING_UNKNOWN_OPS)
            fprintf(out, "    %-9s %s\n", "graphs:", x->graphs);
        if (x->pieces)
            fprintf(out, "    %-9s %s\n", "pieces:", x->pieces);
        if (x->evidence_file && x->evidence_line)
            fprintf(out, "    %-9s %s:%llu\n", "record:", x->evidence_file,
                    (unsigned long long)x->evidence_line);
    }
}

void cli_findings_tally(const struct cgs_findings *f, char *out, size_t n)
{
    uint32_t c[CGS_SEV_COUNT] = {0};
    for (uint32_t i = 0; i < f->n; i++)
        c[f->v[i].severity]++;
    snprintf(out, n, "%u error%s, %u warning%s, %u note%s", c[0], c[0] == 1 ? "" : "s", c[1],
             c[1] == 1 ? "" : "s", c[2], c[2] == 1 ? "" : "s");
}

/* The diff's on-demand reading of a lazy job's graph of a log. */
static bool load_graph(void *ctx, uint32_t i, struct cgs_diff_graph *y)
{
    struct cli_job *j = ctx;
    struct cli_job_graph *x = &j->graphs[i];
    struct cgs_diag d = CGS_DIAG_INIT;
    if (x->item < 0 || !j->have_gs)
        return false;
    if (!(x->g = cgs_graphs_load(&j->gs, (uint32_t)x->item, &d))) {
        cli_report_diag(&d);
        return false;
    }
    analyse(j, x, j->split_ops);
    y->g = x->error ? NULL : x->g;
    y->split = x->s;
    y->shapes = x->shapes;
    y->layout = x->layout;
    y->piecewise = x->ops.n > 0;
    return y->g != NULL;
}

static void unload_graph(void *ctx, uint32_t i)
{
    struct cli_job *j = ctx;
    struct cli_job_graph *x = &j->graphs[i];
    free_analysis(x);
    cli_list_release(&x->ops); /* the next load analyses it again */
    free(x->error);
    x->error = NULL;
}

void cli_job_diff_input(const struct cli_job *j, const char *name, struct cgs_diff_input *in)
{
    struct cgs_diff_graph *graphs = cgs_xcalloc((size_t)j->n_graphs + 1, sizeof(*graphs));
    for (uint32_t i = 0; i < j->n_graphs; i++) {
        const struct cli_job_graph *x = &j->graphs[i];
        struct cgs_diff_graph *y = &graphs[i];
        y->label = x->label ? x->label : x->ref;
        y->g = x->error ? NULL : x->g;
        y->split = x->s;
        y->shapes = x->shapes;
        y->layout = x->layout;
        y->piecewise = x->ops.n > 0;
        y->rank = -1;
        if (j->have_gs && x->item >= 0 && (uint32_t)x->item < j->gs.n_items) {
            const struct cgs_graphs_item *it = &j->gs.items[x->item];
            y->compile_id = it->compile_id;
            y->stage = it->stage;
            y->rank = it->rank;
            y->occurrence = it->occurrence;
            y->backward = it->backward;
        }
    }
    in->name = name;
    in->dash = j->have_dash ? &j->dash : NULL;
    in->graphs = graphs;
    in->n_graphs = j->n_graphs;
    if (j->lazy) {
        in->load = load_graph;
        in->unload = unload_graph;
        in->ctx = (void *)j; /* the job's graphs are read into it */
    }
}

int cli_job_profile(const struct cli_job *j, bool samples, struct cli_prof_set *set,
                    struct cgs_prof_report *rep, bool *have)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_prof_opts po = {NULL, CGS_PROF_BY_PIECE, samples};
    int rc;
    *have = false;
    if (!j->n_profiles)
        return CGS_EXIT_OK;
    if ((rc = cli_prof_load((const char **)j->profiles, j->n_profiles, set)))
        return rc;
    if (cgs_prof_report_build(set->traces, (uint32_t)set->n, &po, rep, &d) < 0)
        return cli_report_diag(&d);
    *have = true;
    cli_prof_warn(set, rep, NULL, NULL); /* a trace cut short, dropped records: said */
    return CGS_EXIT_OK;
}

void cli_diff_change_write(struct jsonw *w, const struct cgs_diff_change *c, int depth)
{
    struct jsonw_obj o;
    jsonw_open(w, &o, depth);
    jsonw_field_str(w, &o, "kind", cgs_diff_kind_names[c->kind]);
    jsonw_field_str(w, &o, "subject", c->subject);
    jsonw_field_str(w, &o, "a", *c->a ? c->a : NULL);
    jsonw_field_str(w, &o, "b", *c->b ? c->b : NULL);
    jsonw_field_str(w, &o, "message", c->message);
    jsonw_field_bool(w, &o, "worse", c->worse);
    jsonw_field_str(w, &o, "graph", c->graph);
    jsonw_field_str(w, &o, "pieces", c->pieces);
    jsonw_field_str(w, &o, "compile_ids", c->compile_ids);
    if (c->rank >= 0)
        jsonw_field_num(w, &o, "rank", c->rank);
    else
        jsonw_field_null(w, &o, "rank");
    if (c->kind == CGS_DIFF_COMPILE_TIME || c->kind == CGS_DIFF_GPU_TIME)
        jsonw_field_num(w, &o, "pct", round(c->pct * 100) / 100);
    else
        jsonw_field_null(w, &o, "pct");
    jsonw_close(w, &o);
}

