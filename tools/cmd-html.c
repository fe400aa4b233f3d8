/*
 * cgscope html: one self-contained page of a run, from whatever the user has (graphs, a
 * TORCH_TRACE log or folder, the bridge's events, a compile-cache index or folder, a profile).
 *
 * The page's numbers are the commands' own: each graph's split, shapes and layout documents,
 * top's and report's, built by the same functions their --json prints with (split's pieces
 * without their node lists: cli_split_write_brief; cli_shapes_write, cli_layout_write, cli_top_doc,
 * cli_prof_json), are put in the page as one JSON
 * document; the picture is the SVG `cgscope dot --collapse pieces` draws (run as a child, as
 * dot runs Graphviz). What a person reads without JavaScript (the summary, the tables' first
 * rows) is written as HTML here; tools/html/report.js makes the tables whole, sortable and
 * filterable (node rows rendered as they scroll), and the picture zoomable.
 */
#define _GNU_SOURCE /* memfd_create: the pictures are drawn into in-memory files */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <limits.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/buf.h"
#include "lib/base/json-alloc.h"
#include "lib/base/keymap.h"
#include "lib/base/strmap.h"
#include "lib/ir/symexpr.h"
#include "lib/passes/layout.h"
#include "lib/passes/shapes.h"
#include "lib/passes/split.h"
#include "lib/readers/file.h"
#include "lib/readers/opdecl.h"
#include "lib/readers/pyframe.h"
#include "lib/readers/sniff.h"
#include "lib/run/findings.h"
#include "lib/run/follow.h"
#include "lib/run/graphs.h"
#include "lib/run/prof.h"
#include "lib/writers/jsonw.h"
#include "lib/writers/report-json.h"
#include "tools/cmd.h"
#include "tools/job.h"
#include "tools/prof-out.h"

#include "html-assets.h"

static int run(int argc, char **argv);

static const struct cli_opt options[] = {
    CLI_OPT_SHORT('o', "output", 'o', "FILE", "the page to write (default report.html)"),
    CLI_OPT_SUGGEST("split-ops", 's', "OP[,OP...]", cli_presets_values,
            "splitting ops for graphs that do not record their pieces (presets\n"
            "@vllm, @magi, @sdpa); a graph from a cache folder splits as recorded"),
    CLI_OPT("max-graphs", 'm', "N", "graphs drawn at most (default 64; the rest are listed)"),
    CLI_OPT("title", 't', "TEXT", "the page's title (default: the first source)"),
    CLI_OPT("json", 'j', NULL, "also print the page's data (one JSON document) to stdout"),
    CLI_OPT("redact", 'r', NULL, "leave out where the run happened: absolute paths cut to their\n"
            "last part (.../model.py), command lines left out"),
    CLI_OPT("baseline", 'b', "RUN", "mark what changed since another run (a log, folder, graph or\n"
            "profile folder: cgscope diff RUN SOURCE): a \"changed since the baseline\"\n"
            "section first, changed compiles, pieces (GPU time too) and graphs marked"),
    CLI_OPT_END,
};

const struct cmd cmd_html = {
    .name = "html",
    .usage = "cgscope html SOURCE... [--output FILE] [--split-ops OPS] [--title TEXT]\n"
             "                     [--max-graphs N] [--baseline RUN] [--redact] [--json]",
    .summary = "one self-contained HTML page of a run: graphs, pieces, shapes, compiles, GPU time",
    .help =
        "Writes one HTML file that holds every answer cgscope has about what you give it,\n"
        "with nothing fetched from the network (inline CSS, JavaScript and SVG): attach it\n"
        "to a bug report or keep it as a CI artifact. SOURCE is any mix of:\n"
        "  - graphs: graph JSON, a torch.export .pt2, a ref ('trace.log#0/0:dynamo');\n"
        "  - a TORCH_TRACE log or folder (its graphs, compiles, cache lookups and breaks);\n"
        "  - a vLLM or MagiCompiler compile-cache folder (its split graph and index);\n"
        "  - the bridge's events (.jsonl) or a compile-cache index;\n"
        "  - a profile: cgscope profile's folder or .cgstrace files.\n"
        "The page opens with a summary (graphs, pieces, compiles, cache hit rate,\n"
        "recompiles, graph breaks, GPU time) and what looks wrong, each linking to its\n"
        "section; per graph, the pieces picture (click a piece to list its nodes), the\n"
        "pieces with the reason for every cut and the CUDA-graph verdict, every node with\n"
        "its shape, strides, dtype and source line, and the layout decisions; then the\n"
        "compiles and the GPU time per piece and kernel.\n\n",
    .more = "Every number on the page is the one the matching command prints with --json\n"
            "(split, shapes, layout, top --once, report): the page holds those documents.\n"
            "Exit status 2 when a source cannot be read (the page is not written).\n\n"
            "JSON keys (--json): format, version, title, sources [{path, kind}], summary\n"
            "{graphs, pieces, compiled_pieces, not_capturable, nodes, compiles, recompiles,\n"
            "hit_rate, graph_breaks, gpu_ns, findings [as check --json: {kind, severity,\n"
            "subject, message, hint, url, evidence, count, href}]}, graphs [{id, ref, name,\n"
            "nodes, stage, split, shapes, layout, table}], top, breaks, profile, baseline\n"
            "(with --baseline: {path, changes [as diff --json's]}, else null).\n\n"
            "examples:\n"
            "  cgscope html samples/two_graphs.torch_trace.log.xz -o report.html\n"
            "  cgscope html samples/profile/transformer.dynamo.json samples/profile \\\n"
            "      --split-ops cgs.attention -o run.html\n"
            "  cgscope html samples/resnet18_dyn.dynamo.json \\\n"
            "      --baseline samples/resnet18.dynamo.json -o changed.html\n",
    .run = run,
    .options = options,
};

/* ---- sources ------------------------------------------------------------------------------ */

/* ---- the page's data ---------------------------------------------------------------------- */

/* A graph of the page: the job's (read and analysed: tools/job.h) and its picture. */
struct page_graph {
    struct cli_job_graph *j;
    char *svg;           /* the picture, or NULL */
    pid_t pid;           /* the child drawing it, while it draws */
    bool profiled;       /* ... with the profile's colours */
    int svg_fd;          /* the child writes its picture here (an in-memory file), -1 none */
};

/* The summary's numbers, in the data's order (and whether each is known: null when not). */
enum { S_GRAPHS, S_PIECES, S_COMPILED, S_NOT_CAP, S_NODES, S_COMPILES, S_RECOMPILES, S_BREAKS,
       S_HIT_RATE, S_GPU_NS, S_COUNT };
static const char *const summary_keys[S_COUNT] = {
    "graphs",   "pieces",     "compiled_pieces", "not_capturable", "nodes",
    "compiles", "recompiles", "graph_breaks",    "hit_rate",       "gpu_ns"};
struct page_summary {
    double v[S_COUNT];
    bool known[S_COUNT];
};

struct page {
    const char *title;
    struct page_graph *graphs;
    uint32_t n_graphs, alloc_graphs;
    uint32_t skipped;   /* graphs past --max-graphs */
    /* the documents of top --once --json, breaks --json and report --json read back, what the
     * page's tables are drawn from (NULL when the sources hold none) */
    cJSON *top;
    cJSON *breaks;
    cJSON *profile;
    const struct cgs_findings *findings; /* what looks wrong: the job's (lib/run/findings.h) */
    struct page_summary sum;
    /* what the page's data is written from, besides the graphs */
    const struct cli_job *job;
    char **sources;
    int n_sources;
    const struct cli_prof_set *prof_set; /* the profiles, when pg->profile */
    const struct cgs_prof_report *prof_rep;
    struct cli_prof_out prof_out;
    const char *baseline;              /* --baseline RUN, or NULL */
    const struct cgs_diff *diff;       /* what changed since it (lib/run/diff.h), or NULL */
};

/* --baseline: whether a change concerns compile cid of rank (a row of the compiles), piece
 * of graph label, or graph label at all (kinds into out, ", "-separated). */
static bool compile_changed(const struct page *pg, int rank, const char *cid)
{
    for (uint32_t i = 0; pg->diff && cid && i < pg->diff->n_changes; i++) {
        const struct cgs_diff_change *c = &pg->diff->changes[i];
        if (c->rank == rank && cgs_diff_listed(c->compile_ids, cid))
            return true;
    }
    return false;
}

static bool piece_changed(const struct page *pg, const char *graph, const char *piece)
{
    for (uint32_t i = 0; pg->diff && i < pg->diff->n_changes; i++) {
        const struct cgs_diff_change *c = &pg->diff->changes[i];
        if (c->graph && !strcmp(c->graph, graph) && cgs_diff_listed(c->pieces, piece))
            return true;
    }
    return false;
}

static void graph_changes(const struct page *pg, const char *graph, struct cgs_buf *out)
{
    for (uint32_t i = 0; pg->diff && i < pg->diff->n_changes; i++) {
        const struct cgs_diff_change *c = &pg->diff->changes[i];
        const char *k = cgs_diff_kind_names[c->kind];
        if (c->graph && !strcmp(c->graph, graph) && !cgs_diff_listed(out->buf, k))
            cgs_buf_addf(out, "%s%s", out->len ? ", " : "", k);
    }
}

static void draw_start(struct page_graph *x, const char *profile_dir);

/* The picture: what `cgscope dot REF --collapse pieces` draws, drawn in a forked child from the
 * graph and split already in memory (no second read of the graph or its log; a Graphviz crash
 * stays in the child), collected by draw_finish. The child writes into an in-memory file (no
 * name anywhere: nothing is left behind whatever stops the job) and dies with its parent. */
static void draw_start(struct page_graph *x, const char *profile_dir)
{
    pid_t pid, parent = getpid();

    x->pid = 0;
    x->svg_fd = memfd_create("cgscope-picture", MFD_CLOEXEC);
    if (x->svg_fd < 0)
        return;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        close(x->svg_fd);
        x->svg_fd = -1;
        return;
    }
    if (pid == 0) {
        char *svg = NULL;
        size_t len = 0;
        int rc, nul = open("/dev/null", O_WRONLY);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* the page is not wanted any more */
        if (getppid() != parent)
            _exit(CGS_EXIT_BAD_INPUT);
        if (nul >= 0) { /* the page says what did not draw; the child says nothing */
            dup2(nul, 1);
            dup2(nul, 2);
        }
        rc = cli_dot_pieces_svg(x->j->g, x->j->s, x->j->layout, profile_dir, x->j->label, &svg, &len);
        if (!rc) {
            const char *p = svg;
            size_t left = len;
            while (left) {
                ssize_t n = write(x->svg_fd, p, left);
                if (n < 0 && errno == EINTR)
                    continue;
                if (n <= 0) {
                    rc = CGS_EXIT_BAD_INPUT;
                    break;
                }
                p += n;
                left -= (size_t)n;
            }
        }
        _exit(rc);
    }
    x->pid = pid;
    x->profiled = profile_dir != NULL;
}

/* The child's picture; a profile that is not this graph's (its pieces are another split's:
 * dot refuses it) draws the picture again without it. */
static void draw_finish(struct page_graph *x)
{
    int status;
    struct stat st;

    if (x->pid <= 0)
        return;
    if (waitpid(x->pid, &status, 0) != x->pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        close(x->svg_fd);
        x->svg_fd = -1;
        x->pid = 0;
        if (x->profiled) {
            draw_start(x, NULL);
            draw_finish(x);
        }
        return;
    }
    x->pid = 0;
    if (!fstat(x->svg_fd, &st) && st.st_size > 0 && st.st_size < ((off_t)256 << 20)) {
        size_t len = (size_t)st.st_size, got = 0;
        x->svg = cgs_xmalloc(len + 1);
        while (got < len) {
            ssize_t n = pread(x->svg_fd, x->svg + got, len - got, (off_t)got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        if (got < len) {
            free(x->svg);
            x->svg = NULL;
        } else {
            x->svg[len] = '\0';
        }
    }
    close(x->svg_fd);
    x->svg_fd = -1;
}

/* A value as the table shows it: "f32[s0, 512] [512, 1]". */
static void value_text(const struct cgs_val *v, struct cgs_buf *b)
{
    cgs_val_describe(v, b);
    if (v && v->kind == CGS_VAL_TENSOR && v->u.t.ndim != CGS_NDIM_UNKNOWN && v->u.t.stride) {
        cgs_buf_addstr(b, " [");
        for (uint32_t i = 0; i < v->u.t.ndim; i++) {
            if (i)
                cgs_buf_addstr(b, ", ");
            if (v->u.t.stride[i])
                cgs_sym_print(v->u.t.stride[i], b);
            else
                cgs_buf_addch(b, '?');
        }
        cgs_buf_addch(b, ']');
    }
}

/* --redact: the page leaves out where the run happened: every absolute path is cut to its
 * last component (".../model.py:12"), and command lines are left out. */
static bool redacting;

static bool path_boundary(const char *start, const char *p)
{
    return p == start || strchr(" \t\n\"'(=[,", p[-1]) != NULL;
}

static void redact_into(struct cgs_buf *b, const char *s)
{
    const char *start = s;
    while (s && *s) {
        if (*s == '/' && path_boundary(start, s) && s[1] && s[1] != '/' && s[1] != ' ') {
            const char *end = s, *last = s;
            while (*end && !strchr(" \t\n\"'),]:;", *end)) {
                if (*end == '/')
                    last = end;
                end++;
            }
            if (last > s) { /* a path of two parts or more: keep its last one */
                cgs_buf_addstr(b, ".../");
                cgs_buf_add(b, last + 1, (size_t)(end - last - 1));
                s = end;
                continue;
            }
        }
        cgs_buf_addch(b, *s++);
    }
}

/* The node table, by columns of small integers into string tables where values repeat:
 * {"targets": [..], "sources": [..], "rows": [[name, op, target#, value, status, piece#,
 * source#], ...]} (piece# and source# -1 when none), written straight to JSON text (the
 * compact form jsonw_compact would write of the same tree) and put in the page's data as a
 * raw item. A node's source line is found once per distinct stack trace (the graph interns
 * them: nodes of one line of the model share one pointer). */
#define JSONW_LIT(w, lit) jsonw_raw(w, lit, sizeof(lit) - 1)

/* s as --redact has it: s itself, or its cut copy in tmp (strings without a '/' hold no path) */
static const char *redacted(const char *s, struct cgs_buf *tmp)
{
    if (!redacting || !s || !strchr(s, '/'))
        return s;
    cgs_buf_reset(tmp);
    redact_into(tmp, s);
    return tmp->buf;
}

/* The node table's columns of small integers: each node's target# and source# (-1: none),
 * into the tables of distinct targets and source lines. */
struct table_cols {
    uint32_t *tcol;
    int64_t *scol;
    const char **tnames;
    char **snames;
    uint32_t n_t, n_s;
};

static void table_cols(const struct cgs_graph *g, struct table_cols *c)
{
    struct cgs_strmap *smap = cgs_strmap_new();
    struct cgs_keymap by_target = {0}; /* target (interned: one pointer a text) -> target# + 1 */
    struct cgs_keymap by_trace = {0};  /* stack trace -> source# + 2 (1: none) */
    struct cgs_buf b = CGS_BUF_INIT;

    c->tcol = cgs_xcalloc((size_t)g->n_nodes + 1, sizeof(*c->tcol));
    c->scol = cgs_xcalloc((size_t)g->n_nodes + 1, sizeof(*c->scol));
    c->tnames = cgs_xcalloc((size_t)g->n_nodes + 1, sizeof(*c->tnames));
    c->snames = cgs_xcalloc((size_t)g->n_nodes + 1, sizeof(*c->snames));
    c->n_t = c->n_s = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        const char *tg = n->target && n->target[0] ? n->target : ""; /* one empty text */
        const char *st = cgs_node_stack_trace(g, n);
        uint64_t *ti = cgs_keymap_slot(&by_target, CGS_KEY(tg), true);
        uintptr_t si;
        if (!*ti) {
            c->tnames[c->n_t] = tg;
            *ti = ++c->n_t;
        }
        c->tcol[i] = (uint32_t)(*ti - 1);
        si = st ? (uintptr_t)cgs_keymap_get(&by_trace, CGS_KEY(st)) : 1;
        if (!si) {
            struct cgs_pyframe f;
            si = 1;
            if (cgs_pyframe_last(st, NULL, &f)) {
                void *known;
                cgs_buf_reset(&b);
                cgs_pyframe_format(&f, true, &b);
                if (!(known = cgs_strmap_get(smap, b.buf))) {
                    c->snames[c->n_s] = cgs_xstrdup(b.buf);
                    known = (void *)(uintptr_t)(++c->n_s);
                    cgs_strmap_put(smap, c->snames[c->n_s - 1], known);
                }
                si = (uintptr_t)known + 1;
            }
            *cgs_keymap_slot(&by_trace, CGS_KEY(st), true) = si;
        }
        c->scol[i] = (int64_t)si - 2;
    }
    cgs_buf_release(&b);
    cgs_strmap_free(smap);
    cgs_keymap_release(&by_trace);
    cgs_keymap_release(&by_target);
}

static void table_cols_release(struct table_cols *c)
{
    for (uint32_t k = 0; k < c->n_s; k++)
        free(c->snames[k]);
    free(c->snames);
    free(c->tnames);
    free(c->scol);
    free(c->tcol);
}

static void node_table_write(struct jsonw *w, const struct page_graph *x, int depth)
{
    const struct cgs_graph *g = x->j->g;
    struct table_cols c;
    struct cgs_buf b = CGS_BUF_INIT;
    struct cgs_val_texts texts = {0};
    struct jsonw_obj o;

    table_cols(g, &c); /* the string tables first: they come before the rows */
    /* the op and status columns' few texts, quoted once (plain ASCII: nothing to escape) */
    char opq[CGS_NODE_OP_COUNT][32], stq[CGS_SHAPE_STATUS_COUNT + 1][32];
    int opn[CGS_NODE_OP_COUNT], stn[CGS_SHAPE_STATUS_COUNT + 1];
    for (int k = 0; k < CGS_NODE_OP_COUNT; k++)
        opn[k] = snprintf(opq[k], sizeof(opq[k]), "\"%s\"", cgs_node_op_names[k]);
    for (int k = 0; k <= CGS_SHAPE_STATUS_COUNT; k++)
        stn[k] = snprintf(stq[k], sizeof(stq[k]), "\"%s\"",
                          k < CGS_SHAPE_STATUS_COUNT ? cgs_shape_status_names[k] : "");
    jsonw_open(w, &o, depth);
    jsonw_field(w, &o, "targets");
    jsonw_raw(w, "[", 1);
    for (uint32_t k = 0; k < c.n_t; k++) {
        if (k)
            jsonw_sep(w);
        jsonw_string(w, c.tnames[k]);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &o, "sources");
    jsonw_raw(w, "[", 1);
    for (uint32_t k = 0; k < c.n_s; k++) {
        if (k)
            jsonw_sep(w);
        jsonw_string(w, c.snames[k]);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &o, "rows");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        const struct cgs_shape_node *r = x->j->shapes ? &x->j->shapes->nodes[i] : NULL;
        const struct cgs_split_piece *p = cgs_split_piece_of(x->j->s, n);
        int k = r ? (int)r->status : CGS_SHAPE_STATUS_COUNT;
        if (i)
            jsonw_sep(w);
        JSONW_LIT(w, "[");
        jsonw_string(w, n->name);
        jsonw_sep(w);
        jsonw_raw(w, opq[n->op], (size_t)opn[n->op]);
        jsonw_sep(w);
        jsonw_int(w, c.tcol[i]);
        jsonw_sep(w);
        cgs_buf_reset(&b);
        cgs_val_text(&texts, r && r->reported ? r->reported : n->val, value_text, &b);
        jsonw_string(w, b.buf);
        jsonw_sep(w);
        jsonw_raw(w, stq[k], (size_t)stn[k]);
        jsonw_sep(w);
        jsonw_int(w, p ? (int64_t)(p - x->j->s->pieces) : -1);
        jsonw_sep(w);
        jsonw_int(w, c.scol[i]);
        JSONW_LIT(w, "]");
    }
    JSONW_LIT(w, "]");
    jsonw_close(w, &o);
    cgs_val_texts_release(&texts);
    cgs_buf_release(&b);
    table_cols_release(&c);
}

/* The redaction filter of a writer (jsonw's filter): --redact's cut of a string value. */
static const char *redact_filter(void *tmp, const char *s)
{
    return redacted(s, tmp);
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(x) ? x->valuedouble : 0;
}

/* The summary's numbers: the graphs' and pieces' counts, the compiles' and the GPU time. */
static void page_summarize(struct page *pg)
{
    struct page_summary *sm = &pg->sum;
    uint32_t pieces = 0, compiled = 0, not_cap = 0, nodes = 0;
    bool piecewise = false; /* a graph split by a piecewise backend: pieces are CUDA graphs */
    memset(sm, 0, sizeof(*sm));
    for (uint32_t i = 0; i < pg->n_graphs; i++) {
        const struct page_graph *x = &pg->graphs[i];
        if (x->j->error || !x->j->g)
            continue;
        nodes += x->j->g->n_nodes;
        pieces += x->j->s->n_pieces;
        piecewise |= x->j->ops.n > 0;
        for (uint32_t k = 0; k < x->j->s->n_pieces; k++) {
            const struct cgs_split_piece *p = &x->j->s->pieces[k];
            if (p->is_splitting_graph)
                continue;
            compiled++;
            if (!p->capturable && x->j->ops.n)
                not_cap++;
        }
    }
    sm->v[S_GRAPHS] = pg->n_graphs + pg->skipped;
    sm->v[S_PIECES] = pieces;
    sm->v[S_COMPILED] = compiled;
    sm->v[S_NOT_CAP] = not_cap; /* no piecewise backend split: no CUDA-graph verdict to count */
    sm->known[S_NOT_CAP] = piecewise;
    sm->v[S_NODES] = nodes;
    sm->known[S_GRAPHS] = sm->known[S_PIECES] = sm->known[S_COMPILED] = sm->known[S_NODES] = true;
    if (pg->top) {
        const cJSON *hr = cJSON_GetObjectItem(pg->top, "hit_rate");
        sm->v[S_COMPILES] = num(pg->top, "compiles");
        sm->v[S_RECOMPILES] = num(pg->top, "recompiles");
        sm->v[S_BREAKS] = num(pg->top, "graph_breaks");
        sm->known[S_COMPILES] = sm->known[S_RECOMPILES] = sm->known[S_BREAKS] = true;
        if ((sm->known[S_HIT_RATE] = cJSON_IsNumber(hr)))
            sm->v[S_HIT_RATE] = hr->valuedouble;
    }
    if ((sm->known[S_GPU_NS] = pg->profile != NULL))
        sm->v[S_GPU_NS] = num(pg->profile, "gpu_ns");
}

/* Graph i's entry of the data's "graphs", at depth d. */
static void graph_entry_write(struct jsonw *w, const struct page_graph *x, uint32_t i, int d)
{
    struct jsonw_obj o;
    char id[32];
    snprintf(id, sizeof(id), "g%u", i);
    jsonw_open(w, &o, d);
    jsonw_field_str(w, &o, "id", id);
    jsonw_field_str(w, &o, "ref", x->j->label);
    if (x->j->error || !x->j->g) {
        jsonw_field_str(w, &o, "error", x->j->error ? x->j->error : "not read");
        jsonw_close(w, &o);
        return;
    }
    jsonw_field_str(w, &o, "name", x->j->g->name ? x->j->g->name : "");
    jsonw_field_num(w, &o, "nodes", x->j->g->n_nodes);
    jsonw_field_str(w, &o, "stage", cgs_stage_names[x->j->g->producer.stage]);
    /* the node table says which node is in which piece; the pieces keep their counts */
    jsonw_field(w, &o, "split");
    cli_split_write_brief(w, x->j->s, o.depth);
    jsonw_field(w, &o, "shapes");
    if (x->j->shapes)
        cli_shapes_write(w, x->j, o.depth);
    else
        jsonw_raw(w, "null", 4);
    jsonw_field(w, &o, "layout");
    if (x->j->layout)
        cli_layout_write(w, x->j->layout, o.depth);
    else
        jsonw_raw(w, "null", 4);
    jsonw_field(w, &o, "table");
    node_table_write(w, x, o.depth);
    jsonw_close(w, &o);
}

/* The page's data (html --json's document): the commands' documents, the node tables, the
 * summary and its findings, written straight from the models. */
static void data_write(struct jsonw *w, void *ctx)
{
    const struct page *pg = ctx;
    struct jsonw_obj doc, o;
    int d;

    cli_doc_open(w, &doc, 0, "html");
    jsonw_field_str(w, &doc, "title", pg->title);
    jsonw_field(w, &doc, "summary");
    jsonw_open(w, &o, doc.depth);
    for (int k = 0; k < S_COUNT; k++)
        if (pg->sum.known[k])
            jsonw_field_num(w, &o, summary_keys[k], pg->sum.v[k]);
        else
            jsonw_field_null(w, &o, summary_keys[k]);
    /* the verdicts: the findings model's, as check --json prints them */
    jsonw_field(w, &o, "findings");
    cli_findings_write(w, pg->findings, o.depth);
    jsonw_close(w, &o);
    d = doc.depth + 1; /* an item of one of the data's arrays */
    jsonw_field(w, &doc, "graphs");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < pg->n_graphs; i++) {
        if (i)
            jsonw_sep(w);
        graph_entry_write(w, &pg->graphs[i], i, d);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &doc, "baseline");
    if (pg->diff) {
        jsonw_open(w, &o, doc.depth);
        jsonw_field_str(w, &o, "path", pg->baseline);
        jsonw_field(w, &o, "changes");
        jsonw_raw(w, "[", 1);
        for (uint32_t i = 0; i < pg->diff->n_changes; i++) {
            if (i)
                jsonw_sep(w);
            cli_diff_change_write(w, &pg->diff->changes[i], o.depth + 1);
        }
        jsonw_raw(w, "]", 1);
        jsonw_close(w, &o);
    } else {
        jsonw_raw(w, "null", 4);
    }
    jsonw_field(w, &doc, "top");
    if (pg->top)
        cli_top_write(w, &pg->job->follow, pg->job->have_dash ? &pg->job->dash : NULL,
                      doc.depth);
    else
        jsonw_raw(w, "null", 4);
    jsonw_field(w, &doc, "breaks");
    if (pg->breaks)
        cli_breaks_write_at(w, &pg->job->dash, doc.depth);
    else
        jsonw_raw(w, "null", 4);
    jsonw_field(w, &doc, "profile");
    if (pg->profile)
        cli_prof_write(w, pg->prof_set, pg->prof_rep, &pg->prof_out, doc.depth);
    else
        jsonw_raw(w, "null", 4);
    /* the page's sources: each path given, with the role it played */
    jsonw_field(w, &doc, "sources");
    jsonw_raw(w, "[", 1);
    for (int i = 0; i < pg->n_sources; i++) {
        int role = pg->job->roles[i];
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, d);
        jsonw_field_str(w, &o, "path", pg->sources[i]);
        jsonw_field_str(w, &o, "kind", cli_role_names[role < 0 ? CLI_ROLE_COMPILES : role]);
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
    jsonw_close(w, &doc);
}

/* ---- writing ------------------------------------------------------------------------------ */

static void redact_json(cJSON *x)
{
    for (cJSON *c = x ? x->child : NULL; c; c = c->next) {
        if (c->string && (!strcmp(c->string, "cmdline") || !strcmp(c->string, "argv") ||
                          !strcmp(c->string, "cwd") || !strcmp(c->string, "command"))) {
            if (cJSON_IsString(c))
                cJSON_SetValuestring(c, "(left out: --redact)");
            else if (cJSON_IsArray(c))
                while (c->child)
                    cJSON_DeleteItemFromArray(c, 0);
            continue;
        }
        if (cJSON_IsString(c)) {
            struct cgs_buf r = CGS_BUF_INIT;
            const char *cut = redacted(c->valuestring, &r);
            if (cut != c->valuestring)
                cJSON_SetValuestring(c, cut);
            cgs_buf_release(&r);
        } else {
            redact_json(c);
        }
    }
}

static void esc(struct cgs_buf *b, const char *s)
{
    struct cgs_buf r = CGS_BUF_INIT;
    for (s = redacted(s, &r); s && *s; s++) {
        switch (*s) {
        case '<': cgs_buf_addstr(b, "&lt;"); break;
        case '>': cgs_buf_addstr(b, "&gt;"); break;
        case '&': cgs_buf_addstr(b, "&amp;"); break;
        case '"': cgs_buf_addstr(b, "&quot;"); break;
        default: cgs_buf_addch(b, *s); break;
        }
    }
    cgs_buf_release(&r);
}

static void asset(struct cgs_buf *b, const char *const *lines)
{
    for (; *lines; lines++)
        cgs_buf_addstr(b, *lines);
}

static void card(struct cgs_buf *b, const char *key, const char *label, const char *value,
                 const char *href)
{
    cgs_buf_addf(b, "<a class=\"card\" href=\"%s\" data-key=\"%s\"><span class=\"v\">", href, key);
    esc(b, value);
    cgs_buf_addstr(b, "</span><span class=\"k\">");
    esc(b, label);
    cgs_buf_addstr(b, "</span></a>\n");
}

/* A summary number as the card shows it: decimals digits after the point, '%' appended with
 * percent; "-" when the sources say nothing of it. */
static const char *numtext(const struct page_summary *sm, const char *k, char *buf, size_t n,
                           double scale, int decimals, bool percent)
{
    for (int i = 0; i < S_COUNT; i++)
        if (!strcmp(summary_keys[i], k)) {
            if (!sm->known[i])
                return "-";
            snprintf(buf, n, "%.*f%s", decimals, sm->v[i] * scale, percent ? "%" : "");
            return buf;
        }
    return "-";
}

#define FIRST_ROWS 50 /* rows written as HTML (the page without JavaScript) */
#define DRAWING 3     /* dot children at once */

static void pieces_html(struct cgs_buf *b, const struct page_graph *x, const char *id,
                        const struct page *pg)
{
    cgs_buf_addf(b, "<div class=\"tscroll\"><table class=\"t\" id=\"%s-ptable\"><thead><tr><th>piece</th><th>kind</th>"
                    "<th class=\"n\">nodes</th><th>CUDA graph</th><th>why it starts here</th>"
                    "</tr></thead><tbody>\n", id);
    for (uint32_t k = 0; k < x->j->s->n_pieces && k < FIRST_ROWS; k++) {
        const struct cgs_split_piece *p = &x->j->s->pieces[k];
        const char *why = "";
        for (uint32_t i = 0; i < x->j->s->n_boundaries; i++)
            if (x->j->s->boundaries[i].piece == k)
                why = x->j->s->boundaries[i].reason ? x->j->s->boundaries[i].reason : "";
        cgs_buf_addstr(b, piece_changed(pg, x->j->label, p->name) ? "<tr class=\"changed\"><td>"
                                                                  : "<tr><td>");
        esc(b, p->name);
        cgs_buf_addf(b, "</td><td>%s</td><td class=\"n\">%u</td><td>%s</td><td>",
                     p->is_splitting_graph ? "splitting" : "compiled", p->n_nodes,
                     p->is_splitting_graph ? "eager"
                     : !x->j->ops.n          ? "-" /* no piecewise backend split it */
                     : p->capturable      ? "yes"
                                          : "no");
        esc(b, why);
        cgs_buf_addstr(b, "</td></tr>\n");
    }
    cgs_buf_addstr(b, "</tbody></table></div>\n");
}

static void nodes_html(struct cgs_buf *b, const struct page_graph *x, const char *id)
{
    struct cgs_buf v = CGS_BUF_INIT;
    struct cgs_val_texts texts = {0};
    cgs_buf_addf(b, "<div class=\"tools\"><input type=\"search\" placeholder=\"filter nodes "
                    "(name, target, shape, piece)\" data-table=\"%s\" aria-label=\"filter\"> "
                    "<span class=\"count\" id=\"%s-count\">%u nodes</span></div>\n"
                    "<div class=\"scroll\" id=\"%s-nscroll\"><table class=\"t\" id=\"%s-ntable\">"
                    "<thead><tr><th>node</th><th>op</th><th>target</th><th>value</th>"
                    "<th>status</th><th>piece</th><th>source</th></tr></thead><tbody>\n",
                 id, id, x->j->g->n_nodes, id, id);
    for (uint32_t i = 0; i < x->j->g->n_nodes && i < FIRST_ROWS; i++) {
        const struct cgs_node *n = x->j->g->nodes[i];
        const struct cgs_shape_node *r = x->j->shapes ? &x->j->shapes->nodes[i] : NULL;
        const struct cgs_split_piece *p = cgs_split_piece_of(x->j->s, n);
        struct cgs_pyframe f;
        cgs_buf_addstr(b, "<tr><td>");
        esc(b, n->name);
        cgs_buf_addf(b, "</td><td>%s</td><td>", cgs_node_op_names[n->op]);
        esc(b, n->target);
        cgs_buf_addstr(b, "</td><td>");
        cgs_buf_reset(&v);
        cgs_val_text(&texts, r && r->reported ? r->reported : n->val, value_text, &v);
        esc(b, v.buf);
        cgs_buf_addf(b, "</td><td>%s</td><td>", r ? cgs_shape_status_names[r->status] : "");
        esc(b, p ? p->name : "");
        cgs_buf_addstr(b, "</td><td>");
        if (cgs_pyframe_last(cgs_node_stack_trace(x->j->g, n), NULL, &f)) {
            cgs_buf_reset(&v);
            cgs_pyframe_format(&f, true, &v);
            esc(b, v.buf);
        }
        cgs_buf_addstr(b, "</td></tr>\n");
    }
    cgs_buf_release(&v);
    cgs_val_texts_release(&texts);
    if (x->j->g->n_nodes > FIRST_ROWS)
        cgs_buf_addf(b, "<tr class=\"more\"><td colspan=\"7\">%u more nodes (the page's "
                        "JavaScript lists them)</td></tr>\n",
                     x->j->g->n_nodes - FIRST_ROWS);
    cgs_buf_addstr(b, "</tbody></table></div>\n");
}

/* The SVG as it goes inline: without its XML prolog and doctype. */
static void svg_inline(struct cgs_buf *b, const char *svg)
{
    const char *s = strstr(svg, "<svg");
    cgs_buf_addstr(b, s ? s : "");
}

/* The rows the page shows without JavaScript: its tables' first ones, then how many more. */
#define STATIC_ROWS 200

static void more_rows(struct cgs_buf *b, int n, int cols)
{
    if (n > STATIC_ROWS)
        cgs_buf_addf(b, "<tr class=\"more\"><td colspan=\"%d\">%d more rows (JavaScript lists "
                        "them all)</td></tr>\n", cols, n - STATIC_ROWS);
}

static void cell_str(struct cgs_buf *b, const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    cgs_buf_addstr(b, "<td>");
    if (cJSON_IsString(x))
        esc(b, x->valuestring);
    else if (cJSON_IsNumber(x))
        cgs_buf_addf(b, "%.0f", x->valuedouble);
    cgs_buf_addstr(b, "</td>");
}

/* The compiles (top --once's rows) as HTML: what the script's table shows, for a reader
 * without JavaScript (a mail client, an artifact viewer); the script replaces it. */
static void compiles_table(struct cgs_buf *b, const cJSON *top, const struct page *pg)
{
    const cJSON *r, *rows = cJSON_GetObjectItemCaseSensitive(top, "rows");
    int i = 0;

    cgs_buf_addstr(b, "<div class=\"tscroll\"><table class=\"t\"><thead><tr><th>compile id</th>"
                      "<th>rank</th><th>frame</th><th>graph</th><th>shape</th><th>backend</th>"
                      "<th class=\"n\">hits</th><th class=\"n\">misses</th>"
                      "<th class=\"n\">compiles</th><th class=\"n\">compile ms</th>"
                      "<th class=\"n\">recompiles</th><th>why it failed or recompiled</th>"
                      "</tr></thead><tbody>\n");
    cJSON_ArrayForEach(r, rows)
    {
        const cJSON *ms = cJSON_GetObjectItemCaseSensitive(r, "compile_ms");
        const cJSON *ft = cJSON_GetObjectItemCaseSensitive(r, "fail_type"), *x;
        const cJSON *rk = cJSON_GetObjectItemCaseSensitive(r, "rank");
        if (i++ >= STATIC_ROWS)
            continue;
        cgs_buf_addstr(b, compile_changed(pg, cJSON_IsNumber(rk) ? rk->valueint : -1,
                                          cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                                              r, "compile_id")))
                              ? "<tr class=\"changed\">"
                              : "<tr>");
        cell_str(b, r, "compile_id");
        cell_str(b, r, "rank");
        cell_str(b, r, "frame");
        cell_str(b, r, "graph_index");
        cell_str(b, r, "runtime_shape");
        cell_str(b, r, "backend");
        cgs_buf_addf(b, "<td class=\"n\">%.0f</td><td class=\"n\">%.0f</td>"
                        "<td class=\"n\">%.0f</td>",
                     num(r, "hits"), num(r, "misses"), num(r, "compiles"));
        if (cJSON_IsNumber(ms))
            cgs_buf_addf(b, "<td class=\"n\">%.1f</td>", ms->valuedouble);
        else
            cgs_buf_addstr(b, "<td class=\"n\">-</td>");
        cgs_buf_addf(b, "<td class=\"n\">%.0f</td><td class=\"reasons\">", num(r, "recompiles"));
        if (cJSON_IsString(ft)) {
            const cJSON *fr = cJSON_GetObjectItemCaseSensitive(r, "fail_reason");
            cgs_buf_addstr(b, "failed: ");
            esc(b, ft->valuestring);
            cgs_buf_addstr(b, ": ");
            esc(b, cJSON_IsString(fr) ? fr->valuestring : "");
        } else {
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "recompile_limit")))
                cgs_buf_addstr(b, "recompile limit reached (ran without compiling)<br>");
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(r, "reasons"))
            {
                esc(b, cJSON_IsString(x) ? x->valuestring : "");
                cgs_buf_addstr(b, "<br>");
            }
        }
        cgs_buf_addstr(b, "</td></tr>\n");
    }
    more_rows(b, i, 12);
    cgs_buf_addstr(b, "</tbody></table></div>\n");
}

/* Failures and restarts (tlparse's table): each compile that failed, that torch refused at
 * its recompile limit, or whose analysis Dynamo restarted, with torch's words. */
static void failures_table(struct cgs_buf *b, const cJSON *top)
{
    const cJSON *r;
    int n = 0;

    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(top, "rows"))
    {
        const cJSON *ft = cJSON_GetObjectItemCaseSensitive(r, "fail_type");
        const cJSON *rr = cJSON_GetObjectItemCaseSensitive(r, "restart_reasons");
        bool limit = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "recompile_limit"));
        if (!cJSON_IsString(ft) && !cJSON_IsString(rr) && !limit)
            continue;
        if (!n++)
            cgs_buf_addstr(b, "<h3 id=\"failures\">Failures and restarts</h3>\n<div class=\"tscroll\">"
                              "<table class=\"t\"><thead><tr><th>compile id</th><th>frame</th>"
                              "<th>what</th><th>torch's words</th></tr></thead><tbody>\n");
        cgs_buf_addstr(b, "<tr>");
        cell_str(b, r, "compile_id");
        cell_str(b, r, "frame");
        if (cJSON_IsString(ft)) {
            const cJSON *fr = cJSON_GetObjectItemCaseSensitive(r, "fail_reason");
            cgs_buf_addstr(b, "<td class=\"error\">failed: ");
            esc(b, ft->valuestring);
            cgs_buf_addstr(b, "</td><td class=\"reasons\">");
            esc(b, cJSON_IsString(fr) ? fr->valuestring : "");
        } else if (limit) {
            cgs_buf_addstr(b, "<td>recompile limit reached</td><td class=\"reasons\">"
                              "ran without compiling");
        } else {
            cgs_buf_addstr(b, "<td>restarted</td><td class=\"reasons\">");
            esc(b, rr->valuestring);
        }
        cgs_buf_addstr(b, "</td></tr>\n");
    }
    if (n)
        cgs_buf_addstr(b, "</tbody></table></div>\n");
}

/* Several ranks (tlparse's multi-rank view): each rank's compiles, recompiles and cache
 * lookups, and the compile ids only some ranks made: ranks that compiled differently are
 * where a distributed job's ranks wait on each other. */
static void rank_divergence(struct cgs_buf *b, const cJSON *top)
{
    enum { MAX_RANKS = 64 };
    int ranks[MAX_RANKS], n = 0;
    double comp[MAX_RANKS] = {0}, rec[MAX_RANKS] = {0}, hit[MAX_RANKS] = {0},
           miss[MAX_RANKS] = {0};
    const cJSON *r;
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(top, "rows");
    bool diverge = false;

    cJSON_ArrayForEach(r, rows)
    {
        const cJSON *rk = cJSON_GetObjectItemCaseSensitive(r, "rank");
        int k;
        if (!cJSON_IsNumber(rk))
            continue;
        for (k = 0; k < n && ranks[k] != rk->valueint; k++)
            ;
        if (k == n) {
            if (n == MAX_RANKS)
                continue;
            ranks[n++] = rk->valueint;
        }
        comp[k] += num(r, "compiles");
        rec[k] += num(r, "recompiles");
        hit[k] += num(r, "hits");
        miss[k] += num(r, "misses");
    }
    if (n < 2)
        return;
    /* each compile id: the one rank that made it (rank + 2), or SEVERAL */
    struct cgs_strmap *owner = cgs_strmap_new();
    void *const SEVERAL = (void *)1;
    cJSON_ArrayForEach(r, rows)
    {
        const cJSON *rk = cJSON_GetObjectItemCaseSensitive(r, "rank");
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "compile_id"));
        void *was, *me;
        if (!cJSON_IsNumber(rk) || !id)
            continue;
        me = (void *)(intptr_t)(rk->valueint + 2);
        was = cgs_strmap_get(owner, id);
        if (!was)
            cgs_strmap_put(owner, id, me);
        else if (was != me)
            cgs_strmap_set(owner, id, SEVERAL);
    }
    cgs_buf_addstr(b, "<h3 id=\"ranks\">Ranks</h3>\n<div class=\"tscroll\"><table class=\"t\">"
                      "<thead><tr><th>rank</th><th class=\"n\">compiles</th>"
                      "<th class=\"n\">recompiles</th><th class=\"n\">cache hits</th>"
                      "<th class=\"n\">misses</th><th>compile ids no other rank has</th></tr>"
                      "</thead><tbody>\n");
    for (int k = 0; k < n; k++) {
        bool first = true;
        cgs_buf_addf(b, "<tr><td>%d</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td>"
                        "<td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td>",
                     ranks[k], comp[k], rec[k], hit[k], miss[k]);
        cJSON_ArrayForEach(r, rows)
        {
            const cJSON *rk = cJSON_GetObjectItemCaseSensitive(r, "rank");
            const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "compile_id"));
            if (!cJSON_IsNumber(rk) || rk->valueint != ranks[k] || !id ||
                cgs_strmap_get(owner, id) == SEVERAL)
                continue;
            diverge = true;
            if (!first)
                cgs_buf_addstr(b, ", ");
            esc(b, id);
            first = false;
        }
        cgs_buf_addstr(b, "</td></tr>\n");
    }
    cgs_strmap_free(owner);
    cgs_buf_addstr(b, "</tbody></table></div>\n");
    cgs_buf_addf(b, "<p class=\"%s\">%s</p>\n", diverge ? "error" : "none",
                 diverge ? "The ranks compiled differently: a rank that compiles what the others "
                           "do not makes them wait at its next collective."
                         : "Every rank compiled the same compile ids.");
}

/* The stack trie (tlparse's): where in the program each compile came from, the frames of all
 * compiles merged where they agree, each compile id at its last frame. */
struct trie {
    const char *label;
    uint32_t child, next; /* first child, next sibling: indices, 0 for none (0 is the root) */
    struct cgs_buf ids;
};

static void trie_html(struct cgs_buf *b, const struct trie *t, uint32_t i)
{
    cgs_buf_addstr(b, "<ul class=\"trie\">");
    for (uint32_t c = t[i].child; c; c = t[c].next) {
        cgs_buf_addstr(b, "<li><code>");
        esc(b, t[c].label);
        cgs_buf_addstr(b, "</code>");
        if (t[c].ids.len) {
            cgs_buf_addstr(b, " <span class=\"ids\">&rarr; ");
            esc(b, t[c].ids.buf);
            cgs_buf_addstr(b, "</span>");
        }
        if (t[c].child)
            trie_html(b, t, c);
        cgs_buf_addstr(b, "</li>");
    }
    cgs_buf_addstr(b, "</ul>\n");
}

static void stack_trie(struct cgs_buf *b, const cJSON *top)
{
    struct trie *t = NULL;
    size_t n = 1, alloc = 0;
    const cJSON *r, *fr;

    CGS_ALLOC_GROW(t, 1, alloc);
    memset(&t[0], 0, sizeof(t[0]));
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(top, "rows"))
    {
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(r, "stack");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "compile_id");
        uint32_t at = 0;
        if (!cJSON_GetArraySize(st) || !cJSON_IsString(id))
            continue;
        cJSON_ArrayForEach(fr, st)
        {
            uint32_t c, last = 0;
            if (!cJSON_IsString(fr))
                continue;
            for (c = t[at].child; c && strcmp(t[c].label, fr->valuestring); c = t[c].next)
                last = c;
            if (!c) {
                CGS_ALLOC_GROW(t, n + 1, alloc);
                c = (uint32_t)n++;
                memset(&t[c], 0, sizeof(t[c]));
                t[c].label = fr->valuestring;
                if (last)
                    t[last].next = c;
                else
                    t[at].child = c;
            }
            at = c;
        }
        if (t[at].ids.len)
            cgs_buf_addstr(&t[at].ids, ", ");
        cgs_buf_addstr(&t[at].ids, id->valuestring);
    }
    if (t[0].child) {
        cgs_buf_addstr(b, "<details id=\"stacks\"><summary>Where the compiles came from (stack "
                          "trie)</summary>\n");
        trie_html(b, t, 0);
        cgs_buf_addstr(b, "</details>\n");
    }
    for (size_t i = 0; i < n; i++)
        cgs_buf_release(&t[i].ids);
    free(t);
}

/* Each compile's time by phase (compilation_metrics), collapsed until asked for. */
static void phases_table(struct cgs_buf *b, const cJSON *top)
{
    const cJSON *r;
    int n = 0;

    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(top, "rows"))
    {
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(r, "compile_ms_phases");
        if (!cJSON_IsObject(ph))
            continue;
        if (!n++) {
            cgs_buf_addstr(b, "<details id=\"phases\"><summary>Compile time by phase</summary>\n"
                              "<div class=\"tscroll\"><table class=\"t\"><thead><tr>"
                              "<th>compile id</th>");
            for (int k = 0; k < CGS_DASH_PHASE_COUNT; k++)
                cgs_buf_addf(b, "<th class=\"n\">%s ms</th>", cgs_dash_phase_names[k]);
            cgs_buf_addstr(b, "</tr></thead><tbody>\n");
        }
        if (n > STATIC_ROWS)
            continue;
        cgs_buf_addstr(b, "<tr>");
        cell_str(b, r, "compile_id");
        for (int k = 0; k < CGS_DASH_PHASE_COUNT; k++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(ph, cgs_dash_phase_names[k]);
            if (cJSON_IsNumber(v))
                cgs_buf_addf(b, "<td class=\"n\">%.1f</td>", v->valuedouble);
            else
                cgs_buf_addstr(b, "<td class=\"n\">-</td>");
        }
        cgs_buf_addstr(b, "</tr>\n");
    }
    if (n) {
        more_rows(b, n, CGS_DASH_PHASE_COUNT + 1);
        cgs_buf_addstr(b, "</tbody></table></div></details>\n");
    }
}

/* Per compile id (tlparse's per-compile pages): its graphs, compilation metrics, guards, shape
 * specializations and the code Inductor generated, each folded until opened. */
static void compile_details(struct cgs_buf *b, const cJSON *top)
{
    static const char *const parts[][2] = {{"metrics", "compilation metrics"},
                                           {"guards", "guards"},
                                           {"specializations", "shape specializations"},
                                           {"output_code", "generated code"}};
    const cJSON *r;
    int n = 0;

    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(top, "rows"))
    {
        const cJSON *gt = cJSON_GetObjectItemCaseSensitive(r, "graph_texts"), *g;
        bool any = cJSON_GetArraySize(gt) > 0;
        for (int k = 0; k < 4; k++)
            any = any || cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, parts[k][0]));
        if (!any)
            continue;
        if (!n++)
            cgs_buf_addstr(b, "<h3 id=\"details\">Each compile</h3>\n");
        cgs_buf_addstr(b, "<details class=\"compile\"><summary>");
        esc(b, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "compile_id")));
        cgs_buf_addstr(b, " ");
        esc(b, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "frame")));
        cgs_buf_addstr(b, "</summary>\n");
        cJSON_ArrayForEach(g, gt)
        {
            cgs_buf_addstr(b, "<details><summary>graph: ");
            esc(b, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(g, "stage")));
            cgs_buf_addstr(b, "</summary><pre>");
            esc(b, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(g, "text")));
            cgs_buf_addstr(b, "</pre></details>\n");
        }
        for (int k = 0; k < 4; k++) {
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(r, parts[k][0]);
            if (!cJSON_IsString(x))
                continue;
            cgs_buf_addf(b, "<details><summary>%s</summary><pre>", parts[k][1]);
            esc(b, x->valuestring);
            cgs_buf_addstr(b, "</pre></details>\n");
        }
        cgs_buf_addstr(b, "</details>\n");
    }
}

/* The profile joined to the compiles: the bridge's ranges name the compile
 * ("cgscope:0/1/submod_2": compile 0/1's piece), so each compile id gets its pieces' calls and
 * GPU time: how often the compiled frame ran and what it cost. */
static void gpu_by_compile(struct cgs_buf *b, const cJSON *prof)
{
    struct {
        char id[64];
        double calls, gpu_ns;
        int pieces;
    } c[256];
    int n = 0;
    const cJSON *p;

    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(prof, "pieces"))
    {
        const char *r = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "range"));
        const char *col = r ? strchr(r, ':') : NULL, *s1, *s2;
        char id[64];
        int k;
        if (!col || !(s1 = strchr(col + 1, '/')) || !(s2 = strchr(s1 + 1, '/')) ||
            (size_t)(s2 - col - 1) >= sizeof(id))
            continue; /* a range that names no compile */
        snprintf(id, sizeof(id), "%.*s", (int)(s2 - col - 1), col + 1);
        for (k = 0; k < n && strcmp(c[k].id, id); k++)
            ;
        if (k == n) {
            if (n == 256)
                continue;
            memset(&c[n], 0, sizeof(c[n]));
            snprintf(c[n].id, sizeof(c[n].id), "%s", id);
            n++;
        }
        if (num(p, "calls") > c[k].calls)
            c[k].calls = num(p, "calls");
        c[k].gpu_ns += num(p, "gpu_ns");
        c[k].pieces++;
    }
    if (!n)
        return;
    cgs_buf_addstr(b, "<h4 id=\"gpu-compiles\">GPU time per compile</h4>\n<div class=\"tscroll\">"
                      "<table class=\"t\"><thead><tr><th>compile id</th><th class=\"n\">pieces</th>"
                      "<th class=\"n\">calls</th><th class=\"n\">GPU ms</th>"
                      "<th class=\"n\">GPU ms a call</th></tr></thead><tbody>\n");
    for (int k = 0; k < n; k++) {
        cgs_buf_addstr(b, "<tr><td>");
        esc(b, c[k].id);
        cgs_buf_addf(b, "</td><td class=\"n\">%d</td><td class=\"n\">%.0f</td>"
                        "<td class=\"n\">%.3f</td><td class=\"n\">%.3f</td></tr>\n",
                     c[k].pieces, c[k].calls, c[k].gpu_ns / 1e6,
                     c[k].calls > 0 ? c[k].gpu_ns / 1e6 / c[k].calls : 0.0);
    }
    cgs_buf_addstr(b, "</tbody></table></div>\n");
}

/* GPU time per piece and per kernel (the profile's) as HTML tables; the script draws bars. */
static void gpu_tables(struct cgs_buf *b, const cJSON *prof)
{
    static const char *const parts[][2] = {{"pieces", "GPU time per piece"},
                                           {"kernel_table", "GPU time per kernel"}};
    for (int k = 0; k < 2; k++) {
        const cJSON *x, *list = cJSON_GetObjectItemCaseSensitive(prof, parts[k][0]);
        int i = 0;
        cgs_buf_addf(b, "<h4>%s</h4>\n<div class=\"tscroll\"><table class=\"t\"><thead><tr>"
                        "<th>%s</th><th class=\"n\">GPU ms</th></tr></thead><tbody>\n",
                     parts[k][1], k ? "kernel" : "piece");
        cJSON_ArrayForEach(x, list)
        {
            if (i++ >= (k ? 20 : STATIC_ROWS))
                continue;
            cgs_buf_addstr(b, "<tr>");
            cell_str(b, x, "name");
            cgs_buf_addf(b, "<td class=\"n\">%.3f</td></tr>\n", num(x, "gpu_ns") / 1e6);
        }
        cgs_buf_addstr(b, "</tbody></table></div>\n");
    }
}

/* The page's data as JSON inside <script>, where "</script", "<!--" and "<script" would change
 * how the page parses: <, > and & (found only inside JSON strings) are written \u003c, \u003e,
 * \u0026, the same strings to JSON.parse. */
static bool script_json_sink(void *ctx, const char *p, size_t n)
{
    struct cgs_buf *b = ctx;
    const char *end = p + n;
    while (p < end) {
        const char *q = p;
#ifdef __SSE2__
        while (end - q >= 16) { /* sixteen bytes at a time while none of them is <, > or & */
            __m128i v = _mm_loadu_si128((const __m128i *)q);
            unsigned m = (unsigned)_mm_movemask_epi8(
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('<')),
                                          _mm_cmpeq_epi8(v, _mm_set1_epi8('>'))),
                             _mm_cmpeq_epi8(v, _mm_set1_epi8('&'))));
            if (m) {
                q += __builtin_ctz(m);
                break;
            }
            q += 16;
        }
#endif
        while (q < end && *q != '<' && *q != '>' && *q != '&')
            q++;
        cgs_buf_add(b, p, (size_t)(q - p));
        if (q < end)
            cgs_buf_addstr(b, *q == '<' ? "\\u003c" : *q == '>' ? "\\u003e" : "\\u0026");
        p = q + (q < end);
    }
    return true;
}

/* --baseline: what changed since it, first (cgscope diff BASELINE SOURCE's changes): the ones
 * that go the wrong way marked. */
static void baseline_section(struct cgs_buf *b, const struct page *pg)
{
    uint32_t worse = 0;
    for (uint32_t i = 0; i < pg->diff->n_changes; i++)
        worse += pg->diff->changes[i].worse;
    cgs_buf_addstr(b, "<section id=\"changes\"><h2>Changed since the baseline</h2>\n<p>Against ");
    esc(b, pg->baseline);
    cgs_buf_addf(b, ": %u change%s, %u the wrong way (cgscope diff BASELINE SOURCE prints the "
                    "same).</p>\n",
                 pg->diff->n_changes, PLURAL(pg->diff->n_changes), worse);
    if (!pg->diff->n_changes) {
        cgs_buf_addstr(b, "<p class=\"none\">Nothing changed.</p>\n</section>\n");
        return;
    }
    cgs_buf_addstr(b, "<div class=\"tscroll\"><table class=\"t\" id=\"changes-table\"><thead><tr>"
                      "<th>kind</th><th>where</th><th>baseline</th><th>now</th><th>what changed</th>"
                      "</tr></thead><tbody>\n");
    for (uint32_t i = 0; i < pg->diff->n_changes; i++) {
        const struct cgs_diff_change *c = &pg->diff->changes[i];
        cgs_buf_addf(b, "<tr%s><td>%s</td><td>", c->worse ? " class=\"error\"" : "",
                     cgs_diff_kind_names[c->kind]);
        esc(b, c->subject);
        cgs_buf_addstr(b, "</td><td class=\"reasons\">");
        esc(b, c->a);
        cgs_buf_addstr(b, "</td><td class=\"reasons\">");
        esc(b, c->b);
        cgs_buf_addstr(b, "</td><td class=\"reasons\">");
        esc(b, c->message);
        cgs_buf_addstr(b, "</td></tr>\n");
    }
    cgs_buf_addstr(b, "</tbody></table></div>\n</section>\n");
}

static void page_html(struct cgs_buf *b, const struct page *pg)
{
    const struct page_summary *sm = &pg->sum;
    char buf[64];

    cgs_buf_addstr(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                      "<meta name=\"color-scheme\" content=\"light dark\">\n"
                      /* nothing is fetched, and of scripts only the page's own runs: its hash
                         (tools/html/embed.sh); text from a log can start none */
                      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                      "'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-"
                      HTML_REPORT_JS_SHA256 "'\">\n"
                      "<meta name=\"generator\" content=\"cgscope " CGS_VERSION "\">\n<title>");
    cgs_buf_addstr(b, "cgscope: ");
    esc(b, pg->title);
    cgs_buf_addstr(b, "</title>\n<style>\n");
    asset(b, html_report_css);
    cgs_buf_addstr(b, "</style>\n</head>\n<body>\n<header><h1>cgscope report</h1><p class=\"sub\">");
    esc(b, pg->title);
    cgs_buf_addstr(b, "</p><nav>");
    if (pg->diff)
        cgs_buf_addstr(b, "<a href=\"#changes\">changes</a> ");
    cgs_buf_addstr(b, "<a href=\"#summary\">summary</a> <a href=\"#graphs\">graphs</a> "
                      "<a href=\"#compiles\">compiles</a> <a href=\"#profile\">profile</a>"
                      "</nav></header>\n<main>\n");
    if (pg->diff)
        baseline_section(b, pg);
    cgs_buf_addstr(b, "<section id=\"summary\"><h2>Summary</h2>\n<div class=\"cards\">\n");
    card(b, "graphs", "graphs", numtext(sm, "graphs", buf, sizeof(buf), 1, 0, false), "#graphs");
    card(b, "pieces", "pieces", numtext(sm, "pieces", buf, sizeof(buf), 1, 0, false), "#graphs");
    card(b, "not_capturable", "pieces not capturable",
         numtext(sm, "not_capturable", buf, sizeof(buf), 1, 0, false), "#graphs");
    card(b, "compiles", "compiles", numtext(sm, "compiles", buf, sizeof(buf), 1, 0, false),
         "#compiles");
    card(b, "hit_rate", "cache hit rate", numtext(sm, "hit_rate", buf, sizeof(buf), 100, 0, true),
         "#compiles");
    card(b, "recompiles", "recompiles", numtext(sm, "recompiles", buf, sizeof(buf), 1, 0, false),
         "#compiles");
    card(b, "graph_breaks", "graph breaks",
         numtext(sm, "graph_breaks", buf, sizeof(buf), 1, 0, false), "#compiles");
    card(b, "gpu_ns", "GPU time (ms)", numtext(sm, "gpu_ns", buf, sizeof(buf), 1e-6, 3, false),
         "#profile");
    cgs_buf_addstr(b, "</div>\n<h3>What looks wrong</h3>\n<ul class=\"findings\">\n");
    {
        const struct cgs_findings *fs = pg->findings;
        if (!fs->n)
            cgs_buf_addstr(b, "<li class=\"ok\">nothing: no failed compile, no recompiled frame, "
                              "no graph break in what was read</li>\n");
        for (uint32_t i = 0; i < fs->n; i++) {
            const struct cgs_finding *f = &fs->v[i];
            cgs_buf_addf(b, "<li class=\"%s\" data-kind=\"%s\"><a href=\"%s\"><b>%s</b> ",
                         cgs_severity_names[f->severity], cgs_finding_kind_names[f->kind],
                         cgs_finding_kind_anchors[f->kind], cgs_severity_names[f->severity]);
            esc(b, f->message);
            cgs_buf_addstr(b, "</a>");
            if (f->hint) {
                cgs_buf_addstr(b, "<div class=\"hint\">");
                esc(b, f->hint);
                cgs_buf_addstr(b, "</div>");
            }
            if (f->url) {
                cgs_buf_addstr(b, "<div class=\"hint\"><a href=\"");
                esc(b, f->url);
                cgs_buf_addstr(b, "\">");
                esc(b, f->url);
                cgs_buf_addstr(b, "</a></div>");
            }
            if (f->evidence_file) {
                cgs_buf_addstr(b, "<div class=\"ev\">");
                esc(b, f->evidence_file);
                if (f->evidence_line)
                    cgs_buf_addf(b, ":%llu", (unsigned long long)f->evidence_line);
                cgs_buf_addstr(b, "</div>");
            }
            cgs_buf_addstr(b, "</li>\n");
        }
    }
    cgs_buf_addstr(b, "</ul>\n</section>\n<section id=\"graphs\"><h2>Graphs</h2>\n");
    if (!pg->n_graphs)
        cgs_buf_addstr(b, "<p class=\"none\">No graph in the sources.</p>\n");
    for (uint32_t i = 0; i < pg->n_graphs; i++) {
        const struct page_graph *x = &pg->graphs[i];
        char id[32];
        snprintf(id, sizeof(id), "g%u", i);
        cgs_buf_addf(b, "<article class=\"graph\" id=\"%s\"><h3>", id);
        esc(b, x->j->label);
        cgs_buf_addstr(b, "</h3>\n");
        if (!x->j->g || x->j->error) {
            cgs_buf_addstr(b, "<p class=\"error\">");
            esc(b, x->j->error ? x->j->error : "not read");
            cgs_buf_addstr(b, "</p></article>\n");
            continue;
        }
        cgs_buf_addf(b, "<p>%u nodes, stage %s, %u piece%s", x->j->g->n_nodes,
                     cgs_stage_names[x->j->g->producer.stage], x->j->s->n_pieces,
                     PLURAL(x->j->s->n_pieces));
        if (x->j->ops.n) {
            cgs_buf_addstr(b, ", split at ");
            for (size_t k = 0; k < x->j->ops.n; k++) {
                cgs_buf_addstr(b, k ? ", <code>" : "<code>");
                esc(b, x->j->ops.items[k]);
                cgs_buf_addstr(b, "</code>");
            }
        }
        cgs_buf_addstr(b, "</p>\n");
        if (pg->diff) {
            struct cgs_buf k = CGS_BUF_INIT;
            graph_changes(pg, x->j->label, &k);
            if (k.len) {
                cgs_buf_addstr(b, "<p class=\"changed\">Changed since the baseline: ");
                esc(b, k.buf);
                cgs_buf_addstr(b, " (<a href=\"#changes\">what changed</a>)</p>\n");
            }
            cgs_buf_release(&k);
        }
        if (x->svg) {
            cgs_buf_addf(b, "<div class=\"svgbox\" id=\"%s-svg\" data-graph=\"%s\">", id, id);
            svg_inline(b, x->svg);
            cgs_buf_addstr(b, "</div>\n");
        }
        cgs_buf_addf(b, "<h4 id=\"%s-pieces\">Pieces</h4>\n", id);
        pieces_html(b, x, id, pg);
        cgs_buf_addf(b, "<h4 id=\"%s-nodes\">Nodes</h4>\n", id);
        nodes_html(b, x, id);
        if (x->j->layout)
            cgs_buf_addf(b, "<h4 id=\"%s-layout\">Layout</h4>\n<div class=\"layout\" "
                            "id=\"%s-ltable\"></div>\n", id, id);
        cgs_buf_addstr(b, "</article>\n");
    }
    cgs_buf_addstr(b, "</section>\n<section id=\"compiles\"><h2>Compiles</h2>\n");
    if (!pg->top)
        cgs_buf_addstr(b, "<p class=\"none\">No TORCH_TRACE log, events or cache index in the "
                          "sources.</p>\n");
    else {
        cgs_buf_addstr(b, "<div id=\"ctable\">");
        compiles_table(b, pg->top, pg);
        cgs_buf_addstr(b, "</div>\n");
        failures_table(b, pg->top);
        rank_divergence(b, pg->top);
        stack_trie(b, pg->top);
        phases_table(b, pg->top);
        compile_details(b, pg->top);
    }
    cgs_buf_addstr(b, "<h3 id=\"breaks\">Graph breaks</h3>\n");
    if (!pg->breaks) {
        cgs_buf_addstr(b, "<p class=\"none\">No graph break in the sources.</p>\n");
    } else {
        const cJSON *x, *bs = cJSON_GetObjectItem(pg->breaks, "breaks");
        cgs_buf_addstr(b, "<div class=\"tscroll\"><table class=\"t\" id=\"btable\"><thead><tr><th>compile id</th>"
                          "<th>where</th><th class=\"n\">hits</th><th>reason</th>"
                          "<th>torch's hints</th></tr></thead><tbody>\n");
        cJSON_ArrayForEach(x, bs)
        {
            const cJSON *fr = cJSON_GetObjectItem(x, "frame");
            const cJSON *file = cJSON_GetObjectItem(fr, "file"), *fn = cJSON_GetObjectItem(fr, "name");
            cgs_buf_addstr(b, "<tr><td>");
            esc(b, cJSON_GetObjectItem(x, "compile_id")->valuestring);
            cgs_buf_addstr(b, "</td><td>");
            if (cJSON_IsString(file)) {
                esc(b, file->valuestring);
                cgs_buf_addf(b, ":%.0f", num(fr, "line"));
                if (cJSON_IsString(fn)) {
                    cgs_buf_addstr(b, " in ");
                    esc(b, fn->valuestring);
                }
            }
            {
                /* the user's own line, when the break is in a library */
                const cJSON *uf = cJSON_GetObjectItem(x, "user_frame");
                const cJSON *ufile = cJSON_GetObjectItem(uf, "file");
                if (cJSON_IsString(ufile) && cJSON_IsString(file) &&
                    (strcmp(ufile->valuestring, file->valuestring) ||
                     num(uf, "line") != num(fr, "line"))) {
                    cgs_buf_addstr(b, "<br>your code: ");
                    esc(b, ufile->valuestring);
                    cgs_buf_addf(b, ":%.0f", num(uf, "line"));
                }
            }
            cgs_buf_addf(b, "</td><td class=\"n\">%.0f</td><td class=\"reasons\">", num(x, "hits"));
            esc(b, cJSON_GetObjectItem(x, "reason")->valuestring);
            cgs_buf_addstr(b, "</td><td class=\"reasons\">");
            {
                const cJSON *h, *hs = cJSON_GetObjectItem(x, "hints");
                bool first = true;
                cJSON_ArrayForEach(h, hs)
                {
                    if (!first)
                        cgs_buf_addstr(b, "<br>");
                    esc(b, cJSON_IsString(h) ? h->valuestring : "");
                    first = false;
                }
            }
            cgs_buf_addstr(b, "</td></tr>\n");
        }
        cgs_buf_addstr(b, "</tbody></table></div>\n");
    }
    cgs_buf_addstr(b, "</section>\n<section id=\"profile\"><h2>GPU time</h2>\n");
    if (!pg->profile)
        cgs_buf_addstr(b, "<p class=\"none\">No profile in the sources (cgscope profile "
                          "writes one).</p>\n");
    else {
        cgs_buf_addstr(b, "<div id=\"pbars\">");
        gpu_tables(b, pg->profile);
        cgs_buf_addstr(b, "</div>\n");
        gpu_by_compile(b, pg->profile);
    }
    cgs_buf_addstr(b, "</section>\n</main>\n<footer>made by cgscope " CGS_VERSION
                      "; every number here is the one its command prints with --json</footer>\n"
                      "<script type=\"application/json\" id=\"cgs-data\">");
    {
        struct jsonw w;
        struct cgs_buf tmp = CGS_BUF_INIT;
        jsonw_init(&w, script_json_sink, b);
        w.compact = true;
        w.filter = redact_filter; /* --redact's cut (none without it) */
        w.fctx = &tmp;
        data_write(&w, (void *)pg);
        jsonw_finish(&w);
        cgs_buf_release(&tmp);
    }
    cgs_buf_addstr(b, "</script>\n<script>\n");
    asset(b, html_report_js);
    cgs_buf_addstr(b, "</script>\n</body>\n</html>\n");
}

/* ---- main --------------------------------------------------------------------------------- */

/* The job analysed graph i: the page's entry for it, and its picture started (the pictures
 * DRAWING graphs back collected, so a few draw at once). */
struct draw_ctx {
    struct page *pg;
};

static void analysed(struct cli_job *j, uint32_t i, void *ctx)
{
    struct draw_ctx *c = ctx;
    struct page *pg = c->pg;
    struct page_graph *x;
    if (!pg->graphs) /* the job's graphs are all known by now: one entry each */
        pg->graphs = cgs_xcalloc(j->n_graphs + 1, sizeof(*pg->graphs));
    pg->n_graphs = j->n_graphs;
    x = &pg->graphs[i];
    x->j = &j->graphs[i];
    if (x->j->error || !x->j->g)
        return;
    draw_start(x, j->n_profiles == 1 ? j->profiles[0] : NULL);
    if (i >= DRAWING)
        draw_finish(&pg->graphs[i - DRAWING]);
}

struct html_args {
    const char *out_path, *title, *baseline;
    bool json, redact;
    unsigned long max_graphs;
};

static int parse_args(int argc, char **argv, struct cli_list *ops, struct html_args *a)
{
    int c;
    char *end;
    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_html, argc, argv)) != -1) {
        switch (c) {
        case 'o': a->out_path = optarg; break;
        case 't': a->title = optarg; break;
        case 'j': a->json = true; break;
        case 'r': a->redact = true; break;
        case 'b': a->baseline = optarg; break;
        case 's':
            if (cli_split_ops_add(ops, optarg))
                return CGS_EXIT_BAD_INPUT;
            break;
        case 'm':
            errno = 0;
            a->max_graphs = strtoul(optarg, &end, 10);
            if (errno || *end || !*optarg || optarg[0] == '-')
                return cli_usage_error(&cmd_html, "--max-graphs takes a count, not '%s'", optarg);
            break;
        default: return CGS_EXIT_BAD_INPUT;
        }
    }
    if (optind == argc)
        return cli_usage_error(&cmd_html, "missing SOURCE (a graph, a TORCH_TRACE log or folder, "
                                          "events, a cache index or folder, a depyf dump, a "
                                          "profile)");
    return 0;
}

/* The profiles among the sources, reported as `cgscope report` does (its JSON in the page). */
static int page_profile(struct page *pg, const struct cli_job *job, struct cli_prof_set *set,
                        struct cgs_prof_report *rep, bool *have_rep)
{
    struct cli_prof_out po_out = {0};
    int rc;
    /* each call's time kept for the baseline's GPU time changes */
    if ((rc = cli_job_profile(job, pg->baseline != NULL, set, rep, have_rep)) || !*have_rep)
        return rc;
    po_out.kernels = 20;
    po_out.cmdline_as = redacting ? "(left out: --redact)" : NULL;
    pg->prof_set = set;
    pg->prof_rep = rep;
    pg->prof_out = po_out;
    pg->profile = cli_prof_json(set, rep, &po_out);
    return 0;
}

static void page_release(struct page *pg)
{
    cJSON_Delete(pg->top);
    cJSON_Delete(pg->breaks);
    cJSON_Delete(pg->profile);
    for (uint32_t i = 0; i < pg->n_graphs; i++) {
        struct page_graph *x = &pg->graphs[i];
        if (x->pid > 0) {
            int st;
            kill(x->pid, SIGKILL); /* a page that is not written wants no picture */
            waitpid(x->pid, &st, 0);
        }
        if (x->pid > 0 || x->svg_fd > 0)
            close(x->svg_fd);
        free(x->svg);
    }
    free(pg->graphs);
}


/* What changed since a baseline run (cgscope diff BASELINE SOURCE): its job, profile and the
 * diff the page marks. */
struct baseline {
    struct cli_job job;
    struct cli_prof_set set;
    struct cgs_prof_report rep;
    bool have_rep;
    struct cgs_diff_input din_a, din_b;
    struct cgs_diff diff;
};

static int baseline_read(struct baseline *b, const char *path, struct cli_list *ops,
                         struct cli_job *job, const char *source,
                         const struct cgs_prof_report *rep)
{
    char *bp = (char *)path;
    int rc;
    b->job.progress = b->job.layout = b->job.lookups = true;
    b->job.lazy = true; /* its graphs read one at a time, as the diff compares them */
    if ((rc = cli_job_run(&b->job, &bp, 1, ops)) ||
        (rc = cli_job_profile(&b->job, true, &b->set, &b->rep, &b->have_rep)))
        return rc;
    cli_job_diff_input(&b->job, path, &b->din_a);
    cli_job_diff_input(job, source, &b->din_b);
    b->din_a.prof = b->have_rep ? &b->rep : NULL;
    b->din_b.prof = rep;
    cgs_diff_build(&b->din_a, &b->din_b, NULL, &b->diff);
    return 0;
}

static void baseline_release(struct baseline *b)
{
    cgs_diff_release(&b->diff);
    free((void *)b->din_a.graphs);
    free((void *)b->din_b.graphs);
    cli_job_release(&b->job);
    if (b->have_rep)
        cgs_prof_report_release(&b->rep);
    cli_prof_release(&b->set);
}

/* The page written to a.out_path, its data (data_write) in it, and with --json the data
 * printed. */
static int page_write(struct page *pg, const struct html_args *a, char **sources, int n_sources,
                      struct cli_job *job)
{
    struct cgs_buf page = CGS_BUF_INIT;
    int rc = 0;

    /* what the page's tables of compiles, breaks and GPU time are drawn from (top's rows gain
       each compile's graph texts, as the log printed them, each cut at 256 KiB) */
    if (job->have_follow) {
        pg->top = cli_top_doc(&job->follow, job->have_dash ? &job->dash : NULL);
        if (job->dash.n_breaks)
            pg->breaks = cli_breaks_doc(&job->dash);
    }
    pg->job = job;
    pg->sources = sources;
    pg->n_sources = n_sources;
    if (redacting) { /* the tables drawn from them: cut as the data is */
        redact_json(pg->top);
        redact_json(pg->breaks);
        redact_json(pg->profile);
    }
    page_summarize(pg);
    page_html(&page, pg);
    if (cli_write_file(a->out_path, page.buf, page.len)) {
        rc = CGS_EXIT_BAD_INPUT;
    } else if (a->json) {
        struct jsonw w;
        struct cgs_buf tmp = CGS_BUF_INIT;
        cli_json_out_begin(&w);
        w.filter = redact_filter;
        w.fctx = &tmp;
        data_write(&w, pg);
        cli_json_out_end(&w);
        cgs_buf_release(&tmp);
    } else {
        fprintf(stderr, "cgscope html: wrote %s (%zu KB): %u graph%s, open it in a browser\n",
                a->out_path, page.len / 1024, pg->n_graphs, PLURAL(pg->n_graphs));
    }
    cgs_buf_release(&page);
    return rc;
}

static int run(int argc, char **argv)
{
    struct html_args a = {.out_path = "report.html", .max_graphs = 64};
    struct cli_list ops = CLI_LIST_INIT;
    struct page pg = {0};
    struct cli_prof_set set = {0};
    struct cgs_prof_report rep;
    struct cli_job job = {0};
    struct draw_ctx draw = {0};
    struct baseline base = {0};
    bool have_rep = false;
    int rc;

    if ((rc = parse_args(argc, argv, &ops, &a)))
        goto out;
    pg.title = a.title ? a.title : argv[optind];
    redacting = a.redact; /* every string the page shows or holds is cut */
    /* the job reads the sources and analyses each graph (tools/job.h); each picture is drawn
     * in a child as soon as its graph is analysed, a few at once */
    job.progress = job.layout = job.texts = true;
    job.max_graphs = a.max_graphs > UINT32_MAX ? UINT32_MAX : (uint32_t)a.max_graphs;
    job.analysed = analysed;
    job.ctx = &draw;
    draw.pg = &pg;
    job.lookups = a.baseline != NULL;
    if ((rc = cli_job_run_read(&job, argv + optind, argc - optind, &ops, NULL)))
        goto out;
    pg.skipped = job.skipped;
    pg.findings = &job.findings;
    if (!pg.graphs) /* no graph reached the analysis (none loaded): the entries still */
        pg.graphs = cgs_xcalloc(job.n_graphs + 1, sizeof(*pg.graphs));
    pg.n_graphs = job.n_graphs;
    for (uint32_t i = 0; i < pg.n_graphs; i++)
        pg.graphs[i].j = &job.graphs[i];
    pg.baseline = a.baseline;
    if ((rc = page_profile(&pg, &job, &set, &rep, &have_rep)))
        goto out;
    if (a.baseline) {
        if ((rc = baseline_read(&base, a.baseline, &ops, &job, argv[optind],
                                have_rep ? &rep : NULL)))
            goto out;
        pg.diff = &base.diff;
    }
    for (uint32_t i = 0; i < pg.n_graphs; i++)
        draw_finish(&pg.graphs[i]);
    if (!job.n_graphs && !(job.have_dash && (job.dash.n_rows || job.dash.n_breaks)) && !set.n) {
        /* an empty folder, a log with no compile: a page of nothing would look like a run
           that went well */
        rc = cli_error("nothing to show: no graph, compile record or profile in %s (the page "
                       "is not written)",
                       argc - optind == 1 ? argv[optind] : "the sources given");
        goto out;
    }
    rc = page_write(&pg, &a, argv + optind, argc - optind, &job);
out:
    baseline_release(&base);
    page_release(&pg);
    if (have_rep)
        cgs_prof_report_release(&rep);
    cli_prof_release(&set);
    cli_job_release(&job);
    cli_list_release(&ops);
    return rc;
}
