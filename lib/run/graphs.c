/*
 * Graphs from TORCH_TRACE logs and compile-cache folders (lib/run/graphs.h).
 */
#include "lib/run/graphs.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/base/strmap.h"
#include "lib/base/utf8.h"
#include "lib/readers/file.h"
#include "lib/readers/fxtext.h"
#include "lib/writers/fxtext-json.h"
#include "lib/readers/load.h"
#include "lib/readers/source.h"
#include "lib/run/follow.h"

/* "PATH#SEL" with PATH an existing file or folder: the position of '#', else NULL. */
static const char *ref_hash(const char *spec)
{
    struct cgs_probe p;
    /* no '#': no ref, and no probe (it would open and read the file for nothing) */
    if (!strchr(spec, '#') || cgs_source_probe(&p, spec) || !p.sel)
        return NULL;
    return spec + (p.sel - 1 - p.path);
}

bool cgs_graphs_is_source(const char *path)
{
    struct cgs_probe p;
    if (!path || cgs_path_is_stdin(path) || cgs_source_probe(&p, path))
        return false;
    return cgs_source_kind_lists(cgs_source_kind(&p));
}

static char *make_ref(const char *source, int rank, bool with_rank, const char *cid,
                      const char *stage, bool backward, int occurrence)
{
    struct cgs_buf b = CGS_BUF_INIT;
    cgs_buf_addstr(&b, source);
    if (cid) {
        cgs_buf_addch(&b, '#');
        if (with_rank && rank >= 0)
            cgs_buf_addf(&b, "r%d:", rank);
        cgs_buf_addf(&b, "%s:%s%s", cid, stage, backward ? ":backward" : "");
        if (occurrence > 1)
            cgs_buf_addf(&b, "@%d", occurrence);
    }
    return cgs_buf_detach(&b);
}

static struct cgs_graphs_item *new_item(struct cgs_graphs *gs)
{
    struct cgs_graphs_item *it;
    CGS_ALLOC_GROW(gs->items, gs->n_items + 1, gs->alloc_items);
    it = &gs->items[gs->n_items++];
    memset(it, 0, sizeof(*it));
    it->rank = -1;
    it->inference = -1;
    it->model_graph = UINT32_MAX;
    return it;
}

/* What item it takes of the model's graph j (its strings borrowed: the caller copies those it
 * keeps). */
static void trace_item(struct cgs_graphs_item *it, const struct cgs_dash *m, uint32_t j)
{
    const struct cgs_dash_graph *g = &m->graphs[j];
    it->source = (char *)(g->source < m->n_sources ? m->sources[g->source] : "?");
    it->compile_id = g->compile_id;
    it->stage = g->stage;
    it->rank = g->rank;
    it->attempt = g->attempt;
    it->backward = g->backward;
    it->occurrence = g->occurrence;
    it->line = g->line;
    it->text = g->text;
    it->model_graph = j;
}

/* A printed-graph file (a cache folder's computation_graph.py, a depyf dump's graph, a file
 * given as it is): one graph, read whole. */
static int add_file_graph(struct cgs_graphs *gs, const char *path, const char *stage,
                          const char *group, bool backward, int inference, struct cgs_diag *d)
{
    char *buf;
    size_t len;
    struct cgs_graphs_item *it;
    if (cgs_read_file(path, &buf, &len, CGS_FXTEXT_MAX_BYTES, d))
        return -1;
    it = new_item(gs);
    it->source = cgs_xstrdup(path);
    it->stage = stage;
    it->group = group ? cgs_xstrdup(group) : NULL;
    it->backward = backward;
    it->inference = inference;
    it->line = 1;
    it->owned_text = buf;
    it->text = buf;
    it->ref = cgs_xstrdup(path);
    (void)len;
    return 0;
}

struct folder_ctx {
    struct cgs_graphs *gs;
    struct cgs_diag *d;
};

static int add_listed(const struct cgs_source_graph *g, void *ctx)
{
    struct folder_ctx *fc = ctx;
    return add_file_graph(fc->gs, g->path, g->stage, g->group, g->backward, g->inference, fc->d) ? -1 : 0;
}

static void on_warn(const char *file, const char *msg, void *ctx)
{
    (void)file, (void)msg, (void)ctx;
}

/* A file of a kind nothing in graphs reads and no log can be (an image, a program, ...). */
static bool foreign_kind(enum cgs_input_kind k)
{
    switch (k) {
    case CGS_IN_PNG: case CGS_IN_JPEG: case CGS_IN_GIF: case CGS_IN_PDF: case CGS_IN_SVG:
    case CGS_IN_HTML: case CGS_IN_DOT: case CGS_IN_ELF: case CGS_IN_PICKLE: case CGS_IN_BINARY:
    case CGS_IN_CUPTI_TRACE: case CGS_IN_PROFILE_REPORT: case CGS_IN_WIDE_TEXT: case CGS_IN_BZIP2:
        return true;
    default:
        return false;
    }
}

/* Kinds another command reads, which hold no graph record: a graph itself (JSON, .pt2), the
 * bridge's events, a compile-cache index. */
static bool other_reader_kind(enum cgs_input_kind k)
{
    return k == CGS_IN_GRAPH_JSON || k == CGS_IN_ZIP || k == CGS_IN_EVENTS ||
           k == CGS_IN_CACHE_INDEX;
}

static struct cgs_graphs_early *early_new(const struct cgs_dash *model,
                                          const struct cgs_graphs_item *files, uint32_t n);

static int collect(struct cgs_graphs *gs, const char *const *paths, uint32_t n,
                   const struct cgs_dash *read, bool every,
                   void (*warn)(const char *file, const char *msg, void *ctx), void *ctx,
                   struct cgs_diag *d)
{
    const struct cgs_dash *m;
    const char **trace_roots = cgs_xcalloc(n ? n : 1, sizeof(*trace_roots));
    uint32_t n_trace = 0;
    int rc = 0;

    memset(gs, 0, sizeof(*gs));
    cgs_dash_init(&gs->dash);
    gs->dash.keep_graphs = true;
    gs->model = m = read ? read : &gs->dash;
    /* one source: what it is and, compressed, what it holds (an xz-compressed PNG is a PNG,
       not a log cut short) */
    struct cgs_probe pr;
    bool probed = n == 1 && !cgs_source_probe(&pr, paths[0]);
    enum cgs_input_kind only = probed ? pr.kind : CGS_IN_UNKNOWN,
                        inner = probed ? pr.inner : CGS_IN_UNKNOWN;
    if (foreign_kind(only) || foreign_kind(inner)) {
        /* a picture, a program, a pickle: say what it is, not how a log may lack graphs */
        cgs_diag_at(d, paths[0], 0, 0);
        if (foreign_kind(only))
            cgs_diag_set(d, CGS_E_FORMAT,
                         "is %s, not a TORCH_TRACE log, a cache folder, a depyf dump or a "
                         "printed graph: nothing here holds graphs",
                         cgs_input_kind_what(only));
        else
            cgs_diag_set(d, CGS_E_FORMAT,
                         "is %s holding %s, not a TORCH_TRACE log: nothing here holds graphs",
                         cgs_input_kind_what(only), cgs_input_kind_what(inner));
        free(trace_roots);
        return -1;
    }
    if (n == 1 && other_reader_kind(inner != CGS_IN_UNKNOWN ? inner : only)) {
        /* read by other commands (a graph, events, an index): said once, with who reads it,
           not followed by how a log may lack graphs */
        enum cgs_input_kind k = inner != CGS_IN_UNKNOWN ? inner : only;
        cgs_diag_at(d, paths[0], 0, 0);
        if (inner != CGS_IN_UNKNOWN)
            cgs_diag_set(d, CGS_E_FORMAT, "is %s holding %s, not a TORCH_TRACE log: decompress "
                         "it (%s), then %s", cgs_input_kind_what(only), cgs_input_kind_what(k),
                         cgs_input_kind_unpack(only), cgs_input_kind_hint(k));
        else
            cgs_diag_set(d, CGS_E_FORMAT, "is %s, not a TORCH_TRACE log or a folder of graphs: %s",
                         cgs_input_kind_what(k), cgs_input_kind_hint(k));
        free(trace_roots);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        struct cgs_probe p;
        enum cgs_source_kind k = cgs_source_probe(&p, paths[i]) ? CGS_SRCK_NONE
                                                                : cgs_source_kind(&p);
        const struct cgs_source_reader *r = cgs_source_reader(k);
        if (k == CGS_SRCK_PRINTED) {
            if (add_file_graph(gs, paths[i], "dynamo", NULL, false, -1, d)) {
                rc = -1;
                goto out;
            }
        } else if (r && r->list) {
            /* a folder of graph files (a cache folder, a depyf dump) */
            struct folder_ctx fc = {gs, d};
            if (r->list(&p, add_listed, &fc, d) < 0) {
                rc = -1;
                goto out;
            }
        } else {
            trace_roots[n_trace++] = paths[i];
        }
    }
    if (n_trace) {
        if (!read) {
            struct cgs_follow f;
            cgs_follow_init(&f, trace_roots, n_trace, &gs->dash);
            f.blocking = true;
            if (every) { /* the graphs read while the feeding would wait */
                gs->early = early_new(&gs->dash, gs->items, gs->n_items);
                f.idle = cgs_graphs_early_idle;
                f.idle_ctx = gs->early;
            }
            cgs_follow_poll(&f);
            cgs_follow_finish(&f);
            cgs_follow_verdict(&f, 1u << CGS_SRC_TRACE, "TORCH_TRACE logs",
                               warn ? warn : on_warn, ctx);
            cgs_follow_release(&f);
        }
        /* a ref names the rank only when one file holds graphs of several: each source's
           first rank, then whether any graph of it has another (two passes, not a scan of
           every graph for each) */
        uint32_t ns = m->n_sources + 1;
        int *first_rank = cgs_xmalloc(ns * sizeof(*first_rank));
        bool *mixed = cgs_xcalloc(ns, sizeof(*mixed)), *seen_src = cgs_xcalloc(ns, sizeof(*seen_src));
        for (uint32_t i = 0; i < m->n_graphs; i++) {
            const struct cgs_dash_graph *g = &m->graphs[i];
            uint32_t sx = g->source < ns ? g->source : ns - 1;
            if (!seen_src[sx])
                seen_src[sx] = true, first_rank[sx] = g->rank;
            else if (first_rank[sx] != g->rank)
                mixed[sx] = true;
        }
        for (uint32_t i = 0; i < m->n_graphs; i++) {
            const struct cgs_dash_graph *g = &m->graphs[i];
            bool several_ranks = mixed[g->source < ns ? g->source : ns - 1];
            struct cgs_graphs_item *it = new_item(gs);
            trace_item(it, m, i);
            it->source = cgs_xstrdup(it->source);
            it->compile_id = cgs_xstrdup(it->compile_id);
            it->ref = make_ref(it->source, g->rank, several_ranks, g->compile_id, g->stage,
                               g->backward, g->occurrence);
        }
        free(first_rank);
        free(mixed);
        free(seen_src);
        gs->bad_lines = m->bad_lines;
        snprintf(gs->first_bad, sizeof(gs->first_bad), "%s", m->first_bad);
    }
    if (!gs->n_items && n == 1 && cgs_source_kind_of(paths[0]) == CGS_SRCK_TRACE_DIR) {
        cgs_diag_at(d, paths[0], 0, 0);
        cgs_diag_set(d, CGS_E_FORMAT,
                     "is a folder with no graph in it (no TORCH_TRACE log carrying graphs, no "
                     "computation_graph.py, no depyf dump): give the path of a graph JSON or "
                     ".pt2 file inside it");
        rc = -1;
    } else if (!gs->n_items) {
        cgs_diag_at(d, n == 1 ? paths[0] : NULL, 0, 0);
        if (n == 1)
            cgs_diag_set(d, CGS_E_FORMAT,
                         "%s, with no graph in it (no dynamo_output_graph or post-grad graph "
                         "record: was the log filtered? `cgscope breaks`, `top` and `cache diff` "
                         "read the rest); a graph JSON, a .pt2 or a cache folder's "
                         "computation_graph.py is read too",
                         m->events ? "is a TORCH_TRACE log" : "holds no TORCH_TRACE record");
        else
            cgs_diag_set(d, CGS_E_FORMAT,
                         "no graph in the %u sources: no dynamo_output_graph or post-grad graph "
                         "record in %s (was a log filtered? `cgscope breaks`, `top` and `cache "
                         "diff` read the rest)",
                         n, m->events ? "their TORCH_TRACE records" : "them");
        rc = -1;
    }
out:
    free(trace_roots);
    return rc;
}

int cgs_graphs_collect(struct cgs_graphs *gs, const char *const *paths, uint32_t n,
                       void (*warn)(const char *file, const char *msg, void *ctx), void *ctx,
                       struct cgs_diag *d)
{
    return collect(gs, paths, n, NULL, false, warn, ctx, d);
}

int cgs_graphs_collect_every(struct cgs_graphs *gs, const char *const *paths, uint32_t n,
                             void (*warn)(const char *file, const char *msg, void *ctx),
                             void *ctx, struct cgs_diag *d)
{
    return collect(gs, paths, n, NULL, true, warn, ctx, d);
}

int cgs_graphs_collect_read(struct cgs_graphs *gs, const char *const *paths, uint32_t n,
                            const struct cgs_dash *read,
                            void (*warn)(const char *file, const char *msg, void *ctx), void *ctx,
                            struct cgs_diag *d)
{
    return collect(gs, paths, n, read, false, warn, ctx, d);
}

void cgs_graphs_release(struct cgs_graphs *gs)
{
    cgs_graphs_early_free(gs->early);
    for (uint32_t i = 0; i < gs->n_items; i++) {
        free(gs->items[i].source);
        free(gs->items[i].compile_id);
        free(gs->items[i].group);
        free(gs->items[i].owned_text);
        free(gs->items[i].ref);
    }
    free(gs->items);
    for (uint32_t i = 0; gs->file_names && i < gs->n_items; i++)
        free(gs->file_names[i]);
    free(gs->file_names);
    cgs_dash_release(&gs->dash);
    memset(gs, 0, sizeof(*gs));
}

/* The symbols create_symbol records gave the item's compile, as graph JSON's "symbols": of its
 * source and its run of compile ids (after a torch._dynamo.reset(), compile 0/0 is another
 * compile, its s77 another symbol). */
static cJSON *symbols_of(const struct cgs_dash *model, const struct cgs_graphs_item *it)
{
    cJSON *o = cJSON_CreateObject();
    const struct cgs_dash_graph *g =
        model && it->model_graph < model->n_graphs ? &model->graphs[it->model_graph] : NULL;
    for (uint32_t i = 0; it->compile_id && model && i < model->n_symbols; i++) {
        const struct cgs_dash_symbol *s = &model->symbols[i];
        if (s->rank != it->rank || strcmp(s->compile_id, it->compile_id) ||
            (g && (s->source != g->source || s->run != g->run)))
            continue;
        cJSON *e = cJSON_CreateObject();
        if (s->has_hint)
            cJSON_AddNumberToObject(e, "hint", (double)s->hint);
        if (s->has_min)
            cJSON_AddNumberToObject(e, "min", (double)s->min);
        else
            cJSON_AddNullToObject(e, "min");
        if (s->has_max)
            cJSON_AddNumberToObject(e, "max", (double)s->max);
        else
            cJSON_AddNullToObject(e, "max");
        cJSON_DeleteItemFromObjectCaseSensitive(o, s->name);
        cJSON_AddItemToObject(o, s->name, e);
    }
    return o;
}

/* Two graph files of one compile in one folder (a depyf dump's __compiled_fn_N). */
static bool same_group(const struct cgs_graphs_item *a, const struct cgs_graphs_item *b)
{
    const char *sa = strrchr(a->source, '/'), *sb = strrchr(b->source, '/');
    size_t da = sa ? (size_t)(sa - a->source) : 0, db = sb ? (size_t)(sb - b->source) : 0;
    return a->group && b->group && !strcmp(a->group, b->group) && da == db &&
           !strncmp(a->source, b->source, da);
}

/* Everything a graph is read from besides its text's bytes: the printed-graph reader's options
 * (their strings in name[] and *syms, the caller's to delete) and the first line. items: the
 * list it is in (whether its compile is an inference one is read from the others). */
struct graph_in {
    struct cgs_fxtext_opts o;
    char name[512];
    cJSON *syms;
    uint32_t first_line;
};

static void graph_in(const struct cgs_dash *model, const struct cgs_graphs_item *items,
                     uint32_t n_items, const struct cgs_graphs_item *it, struct graph_in *in)
{
    struct cgs_fxtext_opts *o = &in->o;
    memset(o, 0, sizeof(*o));
    in->syms = symbols_of(model, it);
    if (it->compile_id)
        snprintf(in->name, sizeof(in->name), "%s %s", it->compile_id, it->stage);
    else
        snprintf(in->name, sizeof(in->name), "%s", it->source);
    /* a graph's name is UTF-8 text: a path's byte that is not (a Latin-1 folder name) is
       named '?', and the graph is read (its file keeps the path as it is, for messages) */
    for (size_t k = 0, n = strlen(in->name); k < n;) {
        size_t u = (unsigned char)in->name[k] < 0x80
                       ? 1
                       : cgs_utf8_len((const unsigned char *)in->name, k, n);
        if (!u)
            in->name[k] = '?', u = 1;
        k += u;
    }
    o->name = in->name;
    /* aot_inference, a pass between stages: the spec has no such stage */
    o->stage = cgs_stage_from_name(it->stage) == CGS_STAGE_UNKNOWN ? "other" : it->stage;
    o->compile_id = it->compile_id;
    o->symbols = in->syms;
    o->is_inference = o->is_backward = -1;
    if (!strcmp(it->stage, "post_grad") && (it->compile_id || it->group)) {
        /* inference when the compile logged an inference graph, else a training step's */
        bool inference = false, training = false;
        for (uint32_t k = 0; k < n_items; k++) {
            const struct cgs_graphs_item *o2 = &items[k];
            if (it->group ? !same_group(o2, it)
                          : (o2->rank != it->rank || !o2->compile_id ||
                             strcmp(o2->compile_id, it->compile_id) ||
                             strcmp(o2->source, it->source)))
                continue;
            inference = inference || !strcmp(o2->stage, "aot_inference");
            training = training || !strcmp(o2->stage, "aot_forward");
        }
        if (it->inference >= 0) /* the folder's reader knew */
            inference = it->inference, training = !it->inference;
        if (inference || training) {
            o->is_inference = inference && !training;
            o->is_backward = it->backward;
        }
    }
    /* the payload's first line is the record's next one */
    in->first_line = (uint32_t)(it->compile_id ? it->line + 1 : 1);
}

/* All of in that the graph is read from, and where its text comes from, as one string (the
 * caller frees). A record's source and line name its text: a graph read again from the same
 * record is the same. Of the symbols, those the text holds (the reader looks up no other:
 * the symbols a size mentions, a Sym()'s whole expression), in their order. */
static char *graph_key(const struct cgs_graphs_item *it, const struct graph_in *in)
{
    struct cgs_buf b = CGS_BUF_INIT;
    cgs_buf_addf(&b, "%s\n%" PRIu32 "\n%zu\n%s\n%s\n%s\n%d %d\n", it->source,
                 in->first_line, strlen(it->text), in->name, in->o.stage,
                 in->o.compile_id ? in->o.compile_id : "-", in->o.is_inference,
                 in->o.is_backward);
    for (const cJSON *x = in->syms ? in->syms->child : NULL; x; x = x->next) {
        if (!strstr(it->text, x->string))
            continue;
        char *v = cJSON_PrintUnformatted(x);
        cgs_buf_addstr(&b, x->string);
        cgs_buf_addch(&b, '=');
        cgs_buf_addstr(&b, v ? v : "-");
        cgs_buf_addch(&b, '\n');
        cJSON_free(v);
    }
    return cgs_buf_detach(&b);
}

static void *graph_read(const struct cgs_graphs_item *it, const struct graph_in *in,
                        bool as_json, struct cgs_diag *d)
{
    if (as_json)
        return cgs_fxtext_to_json(it->text, strlen(it->text), it->source, in->first_line,
                                  &in->o, d);
    return cgs_graph_load_fxtext(it->text, strlen(it->text), it->source, in->first_line, &in->o,
                                 d);
}

/* ---- graphs read while the logs are ---------------------------------------------------- */

/*
 * cgs_graphs_collect_every: while the thread feeding the logs' records would wait for a helper
 * (lib/run/follow.c), it reads the next graph the model holds, with what the logs have said so
 * far (its compile's symbols, the compile's other graphs), and keeps it with its key
 * (graph_key). At the load, the key is made again from everything read; the graph read early
 * is taken only when the two are equal, else it is dropped and read again: the answers are
 * those of a load after the read.
 */
#define EARLY_HELD ((size_t)4 << 20) /* printed text of graphs read early, not yet taken (their
                                          graphs take about seven times as much) */

struct early {
    struct cgs_graph *g;
    struct cgs_diag d;
    char *key;
};

struct cgs_graphs_early {
    const struct cgs_dash *model;  /* where the logs' graphs are, as they are fed */
    struct cgs_graphs_item *items; /* the files' items, then one per model graph (borrowed) */
    uint32_t n_files, n_items, alloc_items;
    struct early *graphs; /* by model graph; the first n_read were read */
    uint32_t n_read, alloc_graphs;
    uint32_t taken; /* by the load (atomic) */
    size_t held;
};

void cgs_graphs_early_counts(const struct cgs_graphs *gs, uint32_t *read, uint32_t *taken)
{
    *read = gs->early ? gs->early->n_read : 0;
    *taken = gs->early ? __atomic_load_n(&gs->early->taken, __ATOMIC_RELAXED) : 0;
}

/* Early reading over model, the graph files' items (n of them) first, as collect lists them
 * (a file's graph has no compile id: whether a log's compile is an inference one never looks
 * at it, so a caller that lists the files after the read may give none). */
static struct cgs_graphs_early *early_new(const struct cgs_dash *model,
                                          const struct cgs_graphs_item *files, uint32_t n)
{
    struct cgs_graphs_early *e = cgs_xcalloc(1, sizeof(*e));
    e->model = model;
    e->n_files = e->n_items = e->alloc_items = n;
    e->items = cgs_xcalloc(n ? n : 1, sizeof(*e->items));
    if (n)
        memcpy(e->items, files, n * sizeof(*e->items));
    return e;
}

struct cgs_graphs_early *cgs_graphs_early_new(const struct cgs_dash *model)
{
    return early_new(model, NULL, 0);
}

void cgs_graphs_use_early(struct cgs_graphs *gs, struct cgs_graphs_early *e)
{
    cgs_graphs_early_free(gs->early);
    gs->early = e;
}

bool cgs_graphs_early_idle(void *early)
{
    struct cgs_graphs_early *e = early;
    const struct cgs_dash *m = e->model;
    struct graph_in in;
    struct early *x;

    if (e->n_read >= m->n_graphs || e->held > EARLY_HELD)
        return false;
    /* the model's graphs as items, as the collect after the read makes them (a later attempt
       replaces a graph's text and line in place: taken again each time) */
    CGS_ALLOC_GROW(e->items, e->n_files + m->n_graphs, e->alloc_items);
    for (uint32_t j = 0; j < m->n_graphs; j++) {
        struct cgs_graphs_item *it = &e->items[e->n_files + j];
        memset(it, 0, sizeof(*it));
        it->inference = -1;
        trace_item(it, m, j);
    }
    e->n_items = e->n_files + m->n_graphs;
    CGS_ALLOC_GROW(e->graphs, e->n_read + 1, e->alloc_graphs);
    x = &e->graphs[e->n_read];
    const struct cgs_graphs_item *it = &e->items[e->n_files + e->n_read];
    graph_in(m, e->items, e->n_items, it, &in);
    x->d = (struct cgs_diag)CGS_DIAG_INIT;
    x->key = graph_key(it, &in);
    x->g = graph_read(it, &in, false, &x->d);
    cJSON_Delete(in.syms);
    e->held += strlen(it->text);
    e->n_read++;
    return true;
}

void cgs_graphs_early_free(struct cgs_graphs_early *e)
{
    if (!e)
        return;

    for (uint32_t j = 0; j < e->n_read; j++) {
        cgs_graph_free(e->graphs[j].g);
        free(e->graphs[j].key);
    }
    free(e->graphs);
    free(e->items);
    free(e);
}

static void *graph_of(const struct cgs_graphs *gs, uint32_t i, bool as_json, struct cgs_diag *d)
{
    const struct cgs_graphs_item *it = &gs->items[i];
    struct graph_in in;
    void *g = NULL;

    graph_in(gs->model, gs->items, gs->n_items, it, &in);
    if (!as_json && gs->early && it->model_graph < gs->early->n_read) {
        /* read while the logs were: taken when nothing read since changed what it is read
           from (each item is one thread's: no lock) */
        struct early *x = &gs->early->graphs[it->model_graph];
        char *key = graph_key(it, &in);
        if (x->key && !strcmp(key, x->key)) {
            g = x->g;
            *d = x->d;
            x->g = NULL;
            __atomic_fetch_add(&gs->early->taken, 1u, __ATOMIC_RELAXED);
        } else {
            cgs_graph_free(x->g);
            x->g = NULL;
        }
        free(x->key);
        x->key = NULL;
        free(key);
        if (g || d->code) {
            cJSON_Delete(in.syms);
            return g;
        }
    }
    g = graph_read(it, &in, as_json, d);
    cJSON_Delete(in.syms);
    return g;
}

struct cgs_graph *cgs_graphs_load(const struct cgs_graphs *gs, uint32_t i, struct cgs_diag *d)
{
    return graph_of(gs, i, false, d);
}

struct load_share {
    const struct cgs_graphs *gs;
    uint32_t from, n;
    unsigned *next; /* the next item to take, shared (graphs differ in size: no fixed share) */
    struct cgs_graph **g;
    struct cgs_diag *d;
};

static void *load_share(void *arg)
{
    struct load_share *w = arg;
    for (uint32_t k; (k = __atomic_fetch_add(w->next, 1u, __ATOMIC_RELAXED)) < w->n;)
        w->g[k] = graph_of(w->gs, w->from + k, false, &w->d[k]);
    return NULL;
}

void cgs_graphs_load_many(const struct cgs_graphs *gs, uint32_t from, uint32_t n,
                          struct cgs_graph **g, struct cgs_diag *d)
{
    /* graph_of reads gs and the items' texts only; each graph is made in its own memory */
    uint32_t threads = (uint32_t)cgs_load_threads();
    pthread_t tid[8];
    bool started[8] = {false};
    unsigned next = 0;
    struct load_share w = {gs, from, n, &next, g, d};
    if (!n)
        return;
    threads = threads > n ? n : threads > 8 ? 8 : threads;
    for (uint32_t t = 1; t < threads; t++)
        started[t] = pthread_create(&tid[t], NULL, load_share, &w) == 0;
    load_share(&w); /* here too, until every item is taken */
    for (uint32_t t = 1; t < threads; t++)
        if (started[t])
            pthread_join(tid[t], NULL);
}

char *cgs_graphs_json(const struct cgs_graphs *gs, uint32_t i, struct cgs_diag *d)
{
    return graph_of(gs, i, true, d);
}

/* The name part of a graph file's JSON name: its file's name without ".py", characters other
 * than letters, digits, '.', '_' and '-' as '_'. */
static void file_stem(const char *source, char *out, size_t n)
{
    const char *base = strrchr(source, '/');
    size_t k = 0, len;
    base = base ? base + 1 : source;
    len = strlen(base);
    if (len > 3 && !strcmp(base + len - 3, ".py"))
        len -= 3;
    for (size_t i = 0; i < len && k + 1 < n; i++) {
        char c = base[i];
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
        out[k++] = keep ? c : '_';
    }
    out[k] = '\0';
}

static void base_name(const struct cgs_graphs *gs, uint32_t i, char *out, size_t n)
{
    const struct cgs_graphs_item *it = &gs->items[i];
    char id[160];
    size_t k = 0;
    const char *part = "";

    if (!it->compile_id) {
        file_stem(it->source, id, sizeof(id));
    } else {
        for (const char *p = it->compile_id; *p && k + 3 < sizeof(id); p++)
            if (*p == '/')
                id[k++] = '_';
            else if (*p == '!')
                id[k++] = 'c', id[k++] = 'a';
            else if (*p == '@')
                id[k++] = 'a', id[k++] = 't';
            else
                id[k++] = *p;
        id[k] = '\0';
    }
    if (!strcmp(it->stage, "post_grad")) {
        bool inference = false;
        for (uint32_t q = 0; q < gs->n_items; q++)
            inference = inference || (gs->items[q].compile_id && it->compile_id &&
                                      !strcmp(gs->items[q].compile_id, it->compile_id) &&
                                      gs->items[q].rank == it->rank &&
                                      !strcmp(gs->items[q].stage, "aot_inference")) ||
                        (it->group && same_group(&gs->items[q], it) &&
                         !strcmp(gs->items[q].stage, "aot_inference"));
        part = it->backward ? ".backward" : inference ? ".inference" : ".forward";
    }
    char occ[24] = "";
    if (it->occurrence > 1) /* the compile id used again in the log */
        snprintf(occ, sizeof(occ), ".%d", it->occurrence);
    if (it->rank >= 0)
        snprintf(out, n, "rank%d.%s.%s%s%s", it->rank, id, it->stage, part, occ);
    else
        snprintf(out, n, "%s.%s%s%s", id, it->stage, part, occ);
}

void cgs_graphs_file_name(struct cgs_graphs *gs, uint32_t i, char *out, size_t n)
{
    /* two graphs with one name (two cache folders' computation_graph.py, two logs' 0/0): the
     * later ones numbered, so no file is written over. Named all at once, on first use. */
    if (!gs->file_names) {
        struct cgs_strmap *seen = cgs_strmap_new(); /* keys borrowed from bases */
        char **bases = cgs_xcalloc(gs->n_items ? gs->n_items : 1, sizeof(*bases));
        char mine[512];
        gs->file_names = cgs_xcalloc(gs->n_items ? gs->n_items : 1, sizeof(*gs->file_names));
        for (uint32_t k = 0; k < gs->n_items; k++) {
            uintptr_t same;
            struct cgs_buf b = CGS_BUF_INIT;
            base_name(gs, k, mine, sizeof(mine));
            bases[k] = cgs_xstrdup(mine);
            same = (uintptr_t)cgs_strmap_get(seen, bases[k]);
            cgs_strmap_set(seen, bases[k], (void *)(same + 1));
            if (same)
                cgs_buf_addf(&b, "%s.%u.json", mine, (unsigned)same + 1);
            else
                cgs_buf_addf(&b, "%s.json", mine);
            gs->file_names[k] = cgs_buf_detach(&b);
        }
        cgs_strmap_free(seen);
        for (uint32_t k = 0; k < gs->n_items; k++)
            free(bases[k]);
        free(bases);
    }
    snprintf(out, n, "%s", i < gs->n_items ? gs->file_names[i] : "graph.json");
}

static enum cgs_stage stage_of(const char *s)
{
    return !strcmp(s, "dynamo")          ? CGS_STAGE_DYNAMO
           : !strcmp(s, "post_grad")     ? CGS_STAGE_POST_GRAD
           : !strcmp(s, "aot_forward")   ? CGS_STAGE_AOT_FORWARD
           : !strcmp(s, "aot_backward")  ? CGS_STAGE_AOT_BACKWARD
           : !strcmp(s, "aot_joint")     ? CGS_STAGE_AOT_JOINT
           : !strcmp(s, "aot_inference") ? CGS_STAGE_OTHER
                                         : CGS_STAGE_UNKNOWN;
}

/* Does item match the selector "ID:STAGE" / "rN:ID:STAGE" / "ID:post_grad:backward" / "ID"
 * (any stage)? */
static bool matches(const struct cgs_graphs_item *it, const char *sel, bool *exact_stage)
{
    int rank = -2;
    const char *p = sel, *colon;
    char id[128], stage[64];
    *exact_stage = false;
    if (p[0] == 'r' && p[1] >= '0' && p[1] <= '9') {
        char *end;
        long r = strtol(p + 1, &end, 10);
        if (*end == ':') {
            rank = (int)r;
            p = end + 1;
        }
    }
    colon = strchr(p, ':'); /* compile ids have no ':' */
    snprintf(id, sizeof(id), "%.*s", (int)(colon ? colon - p : (long)strlen(p)), p);
    if (rank != -2 && it->rank != rank)
        return false;
    if (!it->compile_id || strcmp(it->compile_id, id))
        return false;
    if (colon) {
        *exact_stage = true;
        snprintf(stage, sizeof(stage), "%s%s", it->stage, it->backward ? ":backward" : "");
        if (it->occurrence > 1)
            snprintf(stage + strlen(stage), sizeof(stage) - strlen(stage), "@%d",
                     it->occurrence);
        return !strcmp(stage, colon + 1);
    }
    return true;
}

struct cgs_graph *cgs_graphs_open(const char *spec, enum cgs_stage prefer, char **note,
                                  struct cgs_diag *d)
{
    struct cgs_graphs gs;
    const char *h = ref_hash(spec);
    char path[4096];
    const char *root = spec;
    long pick = -1;
    struct cgs_graph *g = NULL;
    uint32_t of_stage = 0;

    *note = NULL;
    if (h) {
        snprintf(path, sizeof(path), "%.*s", (int)(h - spec), spec);
        root = path;
    }
    if (cgs_graphs_collect(&gs, &root, 1, NULL, NULL, d))
        goto out_release;
    if (h) {
        bool exact;
        for (uint32_t i = 0; i < gs.n_items && pick < 0; i++)
            if (matches(&gs.items[i], h + 1, &exact))
                pick = i;
        if (pick < 0) {
            struct cgs_buf b = CGS_BUF_INIT;
            for (uint32_t i = 0; i < gs.n_items && i < 8; i++)
                cgs_buf_addf(&b, "%s%s", i ? ", " : "", strrchr(gs.items[i].ref, '#')
                                                            ? strrchr(gs.items[i].ref, '#') + 1
                                                            : gs.items[i].ref);
            if (gs.n_items > 8)
                cgs_buf_addstr(&b, ", ...");
            cgs_diag_at(d, path, 0, 0);
            cgs_diag_set(d, CGS_E_INVAL,
                         "no graph '%s' in it (it holds %u: %s; `cgscope graphs %s` lists them "
                         "with their refs)",
                         h + 1, gs.n_items, b.buf ? b.buf : "", path);
            cgs_buf_release(&b);
            goto out_release;
        }
    } else {
        for (uint32_t i = 0; i < gs.n_items; i++)
            if (stage_of(gs.items[i].stage) == prefer) {
                if (pick < 0)
                    pick = i;
                of_stage++;
            }
        if (pick < 0)
            pick = 0;
        if (gs.n_items > 1) {
            struct cgs_buf b = CGS_BUF_INIT;
            cgs_buf_addf(&b, "%s holds %u graphs (%u %s); this is %s (`cgscope graphs %s` lists "
                             "them; give a ref to take another)",
                         spec, gs.n_items, of_stage, cgs_stage_names[prefer],
                         gs.items[pick].ref, spec);
            *note = cgs_buf_detach(&b);
        }
    }
    g = cgs_graphs_load(&gs, (uint32_t)pick, d);
out_release:
    if (!g && d && d->file && d->file != spec) {
        /* the place names a file whose name lives in what is released now */
        static char file_buf[4096];
        snprintf(file_buf, sizeof(file_buf), "%s", d->file);
        d->file = file_buf;
    }
    cgs_graphs_release(&gs);
    return g;
}
