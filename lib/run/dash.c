/* The run model behind `cgscope top`, `breaks` and `cache` (lib/run/dash.h). */
#include "lib/run/dash.h"

#include "lib/base/json-alloc.h"
#include "lib/readers/json-scan.h"

#include "lib/readers/pyframe.h"
#include "lib/readers/sniff.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/readers/file.h"
#include "lib/readers/pylit.h"
#include "lib/base/strmap.h"

const char *const cgs_cache_index_names[2] = {"magi_compile_cache.py", "vllm_compile_cache.py"};
const char *const cgs_src_kind_names[4] = {"unknown", "events", "torch_trace", "cache_index"};
#define CGS_DASH_PHASE_NAME_(id, name) [CGS_DASH_PHASE_##id] = name,
const char *const cgs_dash_phase_names[CGS_DASH_PHASE_COUNT] = {
    CGS_DASH_PHASES(CGS_DASH_PHASE_NAME_)};
#undef CGS_DASH_PHASE_NAME_

static char *xstrdup0(const char *s)
{
    return s ? cgs_xstrdup(s) : NULL;
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = xstrdup0(s);
}

/* ---- the model ------------------------------------------------------------------------- */

void cgs_dash_init(struct cgs_dash *d)
{
    memset(d, 0, sizeof(*d));
    d->row_index = cgs_strmap_new();
}

/* A break's strings freed (the break itself is its array's). */
static void break_release(struct cgs_dash_break *b)
{
    free(b->compile_id);
    free(b->reason);
    free(b->file);
    free(b->name);
    free(b->compile_ids);
    free(b->title);
    free(b->explanation);
    free(b->hints);
    free(b->url);
    free(b->gb_id);
    free(b->user_file);
    free(b->user_name);
}

static void free_rows(struct cgs_dash *d)
{
    for (uint32_t i = 0; i < d->n_rows; i++) {
        struct cgs_dash_row *r = d->rows[i];
        free(r->backend);
        free(r->compile_id);
        free(r->frame);
        free(r->reason);
        free(r->piece);
        free(r->co_name);
        free(r->co_filename);
        free(r->fail_type);
        free(r->fail_reason);
        free(r->fail_file);
        free(r->restart_reasons);
        free(r->stack);
        free(r->guards);
        free(r->output_code);
        free(r->metrics_text);
        cgs_buf_release(&r->specializations);
        cgs_buf_release(&r->collectives);
        free(r);
    }
    for (uint32_t i = 0; i < d->n_caches; i++)
        free(d->caches[i].name);
    for (uint32_t i = 0; i < d->n_breaks; i++)
        break_release(&d->breaks[i]);
    for (uint32_t i = 0; i < d->n_lookups; i++) {
        struct cgs_dash_lookup *l = &d->lookups[i];
        free(l->compile_id);
        free(l->cache);
        free(l->key);
        for (uint32_t k = 0; k < l->n_components; k++)
            free(l->components[k]);
        free(l->components);
    }
    for (uint32_t i = 0; i < d->n_entries; i++) {
        free(d->entries[i].backend);
        free(d->entries[i].key);
        free(d->entries[i].path);
    }
    for (uint32_t i = 0; i < d->n_graphs; i++) {
        free(d->graphs[i].compile_id);
        free(d->graphs[i].text);
    }
    for (uint32_t i = 0; i < d->n_graph_keys; i++)
        free(d->graph_keys[i]);
    for (uint32_t i = 0; i < d->n_symbols; i++) {
        free(d->symbols[i].compile_id);
        free(d->symbols[i].name);
    }
    for (uint32_t i = 0; i < d->n_keys; i++)
        free(d->keys[i]);
    for (uint32_t i = 0; i < d->n_sources; i++)
        free(d->sources[i]);
}

void cgs_dash_release(struct cgs_dash *d)
{
    free_rows(d);
    free(d->rows);
    free(d->caches);
    free(d->breaks);
    free(d->lookups);
    free(d->graphs);
    free(d->graph_keys);
    cgs_strmap_free(d->graph_index);
    free(d->symbols);
    free(d->entries);
    free(d->keys);
    free(d->sources);
    cgs_strmap_free(d->row_index);
    memset(d, 0, sizeof(*d));
}

void cgs_dash_reset(struct cgs_dash *d)
{
    bool keep = d->keep_lookups, graphs = d->keep_graphs, texts = d->keep_texts;
    cgs_dash_release(d);
    cgs_dash_init(d);
    d->keep_lookups = keep;
    d->keep_graphs = graphs;
    d->keep_texts = texts;
}

/* A line (or a record, at its first line) not read: counted, the first one kept. */
static void bad_line_at(struct cgs_dash *d, struct cgs_feed *f, uint64_t line, const char *why)
{
    if (!d->bad_lines++)
        snprintf(d->first_bad, sizeof(d->first_bad), "%.100s:%llu: %.140s",
                 f->name ? f->name : "input", (unsigned long long)line, why);
}

static void bad_line(struct cgs_dash *d, struct cgs_feed *f, const char *why)
{
    char cut[200];
    if (f->cut_end) { /* what a log cut short (or still being written) ends with */
        snprintf(cut, sizeof(cut), "%s (its last line, cut short: no newline ends it)", why);
        why = cut;
    }
    bad_line_at(d, f, f->line_no, why);
}

static void seen_ts(struct cgs_dash *d, double ts)
{
    if (!(ts > 0) || !isfinite(ts))
        return;
    if (!d->first_ts || ts < d->first_ts)
        d->first_ts = ts;
    if (ts > d->last_ts)
        d->last_ts = ts;
}

/* The index of f's file in d->sources (added on first use). */
static uint32_t source_of(struct cgs_dash *d, const struct cgs_feed *f)
{
    const char *name = f->name ? f->name : "input";
    for (uint32_t i = d->n_sources; i-- > 0;)
        if (!strcmp(d->sources[i], name))
            return i;
    CGS_ALLOC_GROW(d->sources, d->n_sources + 1, d->alloc_sources);
    d->sources[d->n_sources] = cgs_xstrdup(name);
    return d->n_sources++;
}

/* The row for key, made (by init) when absent; NULL past CGS_DASH_MAX_ROWS. */
static struct cgs_dash_row *row_for(struct cgs_dash *d, const char *key, bool *made)
{
    struct cgs_dash_row *r = cgs_strmap_get(d->row_index, key);
    *made = false;
    if (r)
        return r;
    if (d->n_rows >= CGS_DASH_MAX_ROWS)
        return NULL;
    r = cgs_xcalloc(1, sizeof(*r));
    r->rank = -1;
    cgs_buf_init(&r->specializations);
    cgs_buf_init(&r->collectives);
    CGS_ALLOC_GROW(d->keys, d->n_keys + 1, d->alloc_keys);
    d->keys[d->n_keys] = cgs_xstrdup(key);
    cgs_strmap_put(d->row_index, d->keys[d->n_keys++], r);
    CGS_ALLOC_GROW(d->rows, d->n_rows + 1, d->alloc_rows);
    d->rows[d->n_rows++] = r;
    *made = true;
    return r;
}

static struct cgs_dash_row *event_row(struct cgs_dash *d, const struct cgs_feed *f, bool has_gi,
                                      int64_t gi, bool dynamic, int64_t shape,
                                      const char *backend, const char *piece, const char *graph)
{
    struct cgs_buf key = CGS_BUF_INIT;
    bool made;
    struct cgs_dash_row *r;
    int rank = f->rank;
    uint32_t src = source_of(d, f);
    const char *b = backend ? backend : "", *pc = !has_gi && piece ? piece : "",
               *gr = graph ? graph : "";
    // a piece without a graph_index (a splitting piece, run eagerly) is a row of its own, and
    // so is each Dynamo graph's (a model with graph breaks has several, each with its graph
    // index 0); the names are whole and length-prefixed, so no byte of one can be taken for a
    // separator
    cgs_buf_addf(&key, "e|%u|%d|%d|%lld|%d|%lld|%zu:%s|%zu:%s|%zu:%s", src, rank, has_gi,
                 (long long)gi, dynamic, (long long)(dynamic ? 0 : shape), strlen(b), b,
                 strlen(pc), pc, strlen(gr), gr);
    r = row_for(d, key.buf, &made);
    cgs_buf_release(&key);
    if (r && made) {
        r->source = src;
        r->piece = !has_gi ? xstrdup0(piece) : NULL;
        r->rank = rank;
        r->has_graph_index = has_gi;
        r->graph_index = gi;
        r->dynamic = dynamic;
        r->runtime_shape = dynamic ? 0 : shape;
        r->backend = xstrdup0(backend);
    }
    return r;
}

/* "F/C" or "!A/F/C": C, the frame's compile count (-1 when the id has no such part) */
static long frame_compile_of(const char *cid)
{
    const char *slash = strrchr(cid, '/');
    return slash && slash[1] >= '0' && slash[1] <= '9' ? strtol(slash + 1, NULL, 10) : -1;
}

static struct cgs_dash_row *trace_row(struct cgs_dash *d, const struct cgs_feed *f,
                                      const char *cid)
{
    struct cgs_buf key = CGS_BUF_INIT;
    bool made;
    struct cgs_dash_row *r;
    uint32_t src = source_of(d, f);
    cgs_buf_addf(&key, "t|%u|%d|%d|%s", src, f->rank, f->run, cid);
    r = row_for(d, key.buf, &made);
    cgs_buf_release(&key);
    if (r && made) {
        r->trace = true;
        r->source = src;
        r->rank = f->rank;
        r->run = f->run;
        r->graph_op_count = -1;
        for (int k = 0; k < CGS_DASH_PHASE_COUNT; k++)
            r->phase_ms[k] = -1;
        r->compile_id = cgs_xstrdup(cid);
        if (frame_compile_of(cid) > 0) {
            r->recompiles = 1; /* frame_compile_id > 0: Dynamo compiled the frame again */
            d->recompiles++;
        }
    }
    return r;
}

static struct cgs_dash_cache *cache_for(struct cgs_dash *d, const char *name)
{
    for (uint32_t i = 0; i < d->n_caches; i++)
        if (!strcmp(d->caches[i].name, name))
            return &d->caches[i];
    CGS_ALLOC_GROW(d->caches, d->n_caches + 1, d->alloc_caches);
    memset(&d->caches[d->n_caches], 0, sizeof(d->caches[0]));
    d->caches[d->n_caches].name = cgs_xstrdup(name);
    return &d->caches[d->n_caches++];
}

const struct cgs_dash_cache *cgs_dash_cache(const struct cgs_dash *d, const char *name)
{
    for (uint32_t i = 0; i < d->n_caches; i++)
        if (!strcmp(d->caches[i].name, name))
            return &d->caches[i];
    return NULL;
}

static void count_lookup(struct cgs_dash *d, struct cgs_dash_row *r, const char *cache,
                         enum cgs_lookup st)
{
    struct cgs_dash_cache *c = cache_for(d, cache);
    if (st == CGS_LOOKUP_HIT) {
        c->hit++;
        if (r)
            r->hits++;
    } else if (st == CGS_LOOKUP_MISS) {
        c->miss++;
        if (r)
            r->misses++;
    } else {
        c->bypass++;
        if (r)
            r->bypasses++;
    }
}

double cgs_dash_hit_rate(const struct cgs_dash *d)
{
    uint64_t hit = 0, miss = 0;
    for (uint32_t i = 0; i < d->n_caches; i++) {
        hit += d->caches[i].hit;
        miss += d->caches[i].miss;
    }
    return hit + miss ? (double)hit / (double)(hit + miss) : -1;
}

/* ---- JSON helpers ---------------------------------------------------------------------- */

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

static bool jnum(const cJSON *o, const char *k, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
        return false;
    *v = x->valuedouble;
    return true;
}

/* An integer key: false when absent, null or not an integer (*is_null set for null). */
static bool jint(const cJSON *o, const char *k, int64_t *v, bool *is_null)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    if (is_null)
        *is_null = cJSON_IsNull(x);
    if (cgs_json_number_int(x, v)) /* exact, from its text */
        return true;
    if (!cJSON_IsNumber(x) || x->valuedouble != floor(x->valuedouble) ||
        fabs(x->valuedouble) > 9007199254740992.0)
        return false;
    *v = (int64_t)x->valuedouble; /* 4.0: an integer written as a float */
    return true;
}

/* ---- our events --------------------------------------------------------------------------- */

/* A line or payload as JSON (the JSON core; bytes that are not UTF-8 read as U+FFFD): NULL
 * when it is not JSON. */
static cJSON *parse_text(const char *s, size_t n)
{
    struct cgs_json_error e = {.lenient = true, .own_numbers = true}; /* lines are reused */
    return cgs_json_parse(s, n, &e);
}

/* A TORCH_TRACE record's JSON. Without keep_texts the configurations compilation_metrics
 * carries (13 KB of escaped text each in torch 2.x, a tenth of reading a log) are checked and
 * not decoded: only the page's metrics text shows them. */
static cJSON *parse_record(const char *s, size_t n, bool keep_texts)
{
    static const char *const unread[] = {"inductor_config", "dynamo_config", NULL};
    struct cgs_json_error e = {.lenient = true, .own_numbers = true,
                               .unread_keys = keep_texts ? NULL : unread};
    return cgs_json_parse(s, n, &e);
}

static void event_line(struct cgs_dash *d, struct cgs_feed *f, const char *s, size_t n)
{
    cJSON *o = parse_text(s, n);
    const char *ev, *backend;
    int64_t gi = -1, shape = 0;
    bool has_gi, shape_null = false, gi_null = false;
    double ts = 0, ms = 0;
    struct cgs_dash_row *r = NULL;

    if (!o || !cJSON_IsObject(o)) {
        bad_line(d, f, o ? "not a JSON object" : "not JSON");
        cJSON_Delete(o);
        return;
    }
    ev = jstr(o, "event");
    if (!ev) {
        bad_line(d, f, "no \"event\" string");
        cJSON_Delete(o);
        return;
    }
    d->events++;
    f->records++;
    if (jnum(o, "ts", &ts))
        seen_ts(d, ts);
    has_gi = jint(o, "graph_index", &gi, &gi_null);
    if (!jint(o, "runtime_shape", &shape, &shape_null) && !shape_null &&
        cJSON_GetObjectItemCaseSensitive(o, "runtime_shape")) {
        bad_line(d, f, "runtime_shape is neither an integer nor null");
        cJSON_Delete(o);
        return;
    }
    backend = jstr(o, "backend");
    jnum(o, "ms", &ms);
    {
        r = event_row(d, f, has_gi, has_gi ? gi : -1,
                      shape_null || !cJSON_GetObjectItemCaseSensitive(o, "runtime_shape"), shape,
                      backend, jstr(o, "piece"), jstr(o, "graph"));
        if (r && ts > r->last_ts)
            r->last_ts = ts;
        if (r && jstr(o, "graph") && !r->compile_id)
            r->compile_id = cgs_xstrdup(jstr(o, "graph"));
    }
    if (!strcmp(ev, "cache_hit"))
        count_lookup(d, r, "piecewise", CGS_LOOKUP_HIT);
    else if (!strcmp(ev, "cache_miss"))
        count_lookup(d, r, "piecewise", CGS_LOOKUP_MISS);
    else if (!strcmp(ev, "cache_bypass"))
        count_lookup(d, r, "piecewise", CGS_LOOKUP_BYPASS);
    else if (!strcmp(ev, "compile_end")) {
        if (r) {
            d->compiles++;
            r->compiles++;
            r->compile_ms += ms;
            r->last_compile_ms = ms;
            if (jstr(o, "error"))
                set_str(&r->reason, jstr(o, "error"));
        }
    } else if (!strcmp(ev, "piece_run")) {
        d->piece_runs++;
        if (r) {
            r->runs++;
            r->run_ms += ms;
        }
    } else if (!strcmp(ev, "cudagraph_capture")) {
        /* the bridge's cudagraph=True: a CUDA graph captured for the piece at this shape; a
           second one for the same row is a re-capture */
        d->captures++;
        if (r)
            r->captures++;
    } else if (!strcmp(ev, "recompile") && r) {
        d->recompiles++;
        r->recompiles++;
        if (jstr(o, "reason"))
            set_str(&r->reason, jstr(o, "reason"));
    }
    cJSON_Delete(o);
}

/* ---- TORCH_TRACE ----------------------------------------------------------------------- */


/* "F/C" (restart attempts of a compile are the same compile), "!A/F/C" for compiled
   autograd: torch's own spelling, the one compilation_metrics uses. */
static void compile_id_of(const cJSON *o, char *out, size_t n)
{
    int64_t fid, fcid, ca;
    out[0] = '\0';
    if (!jint(o, "frame_id", &fid, NULL) || !jint(o, "frame_compile_id", &fcid, NULL))
        return;
    if (jint(o, "compiled_autograd_id", &ca, NULL))
        snprintf(out, n, "!%lld/%lld/%lld", (long long)ca, (long long)fid, (long long)fcid);
    else
        snprintf(out, n, "%lld/%lld", (long long)fid, (long long)fcid);
}

/* The payload as one text (tabs stripped, lines joined by '\n'); "" when none. */
static const char *payload_text(struct cgs_feed *f)
{
    return f->payload && !f->payload_over ? f->payload : "";
}

static bool ends_with(const char *s, const char *suf, size_t *stem)
{
    size_t a = strlen(s), b = strlen(suf);
    if (a <= b || strcmp(s + a - b, suf))
        return false;
    *stem = a - b;
    return true;
}

static void keep_lookup(struct cgs_dash *d, int rank, const char *cid, const char *cache,
                        enum cgs_lookup st, const char *payload)
{
    cJSON *p = payload[0] ? parse_text(payload, strlen(payload)) : NULL;
    const cJSON *comp = cJSON_GetObjectItemCaseSensitive(p, "components"), *c;
    struct cgs_dash_lookup *l;

    CGS_ALLOC_GROW(d->lookups, d->n_lookups + 1, d->alloc_lookups);
    l = &d->lookups[d->n_lookups++];
    memset(l, 0, sizeof(*l));
    l->compile_id = cgs_xstrdup(cid);
    l->cache = cgs_xstrdup(cache);
    l->status = st;
    l->rank = rank;
    l->key = xstrdup0(jstr(p, "key"));
    if (cJSON_IsArray(comp)) {
        int nc = cJSON_GetArraySize(comp);
        l->components = cgs_xcalloc((size_t)(nc > 0 ? nc : 1), sizeof(char *));
        cJSON_ArrayForEach(c, comp) if (cJSON_IsString(c)) l->components[l->n_components++] =
            cgs_xstrdup(c->valuestring);
    }
    cJSON_Delete(p);
}

/* A line of text that starts with prefix (after spaces), as a new string; NULL when none. */
static char *line_after(const char *text, const char *prefix)
{
    const char *p = strstr(text, prefix), *e;
    char *out;
    if (!p)
        return NULL;
    p += strlen(prefix);
    e = p + strcspn(p, "\n");
    out = cgs_xmalloc((size_t)(e - p) + 1);
    memcpy(out, p, (size_t)(e - p));
    out[e - p] = '\0';
    return out;
}

/* A new string of n bytes of s. */
static char *dupn(const char *s, size_t n)
{
    char *out = cgs_xmalloc(n + 1);
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

/* A frame in torch's or a library's code (site-packages, the standard library), not the
 * user's. */
static bool library_frame(const struct cgs_pyframe *f)
{
    static const char *const marks[] = {"/site-packages/", "/dist-packages/", "/lib/python3",
                                        "<frozen ", "/torch/_dynamo/", "/torch/nn/modules/"};
    char path[1024];
    snprintf(path, sizeof(path), "%.*s", (int)(f->file_len < 1000 ? f->file_len : 1000), f->file);
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
        if (strstr(path, marks[i]))
            return true;
    return false;
}

/*
 * The parts of torch's graph-break message (torch 2.6 and later):
 *   Graph break in user code at FILE:LINE
 *   Graph Break Reason: TITLE                 (or a context line, then TITLE on a line below)
 *     Explanation: ...
 *     Hint: ...                               (any number)
 *     Developer debug context: ...
 *    For more details about this graph break, please visit: URL
 *   User code traceback:
 *     File "...", line N, in NAME             (outermost first; the compiler's own traceback
 *                                              may follow)
 * The reason is the title and explanation (an older message: its reason line, or its first
 * line); the frame is the traceback's innermost; the user frame the innermost outside torch
 * and site-packages, when that is another.
 */
static void break_parse(struct cgs_dash_break *b, const char *text)
{
    const char *user = strstr(text, "User code traceback:"), *end, *p;
    char *why = line_after(text, "Graph Break Reason: "), *expl = line_after(text, "Explanation: ");
    const char *ex = strstr(text, "Explanation: ");

    if (ex) { /* the title: the last non-empty line before the explanation */
        const char *ls = ex;
        while (ls > text && ls[-1] != '\n')
            ls--;
        while (ls > text) {
            const char *pe = ls - 1, *ps = pe; /* pe: the '\n' ending the line above */
            while (ps > text && ps[-1] != '\n')
                ps--;
            size_t n = (size_t)(pe - ps);
            while (n && (*ps == ' ' || *ps == '\t'))
                ps++, n--;
            if (n) {
                if (n > 20 && !memcmp(ps, "Graph Break Reason: ", 20))
                    ps += 20, n -= 20;
                b->title = dupn(ps, n);
                break;
            }
            ls = ps;
        }
        b->explanation = expl ? cgs_xstrdup(expl) : NULL;
    }
    b->hints = cgs_dash_hints(text, user);
    b->url = cgs_dash_url(text);
    if (b->url && (p = strstr(b->url, "/gb/")) != NULL)
        b->gb_id = dupn(p + 4, strcspn(p + 4, "."));
    if (why && expl && !b->title) {
        size_t n = strlen(why) + strlen(expl) + 4;
        b->reason = cgs_xmalloc(n);
        snprintf(b->reason, n, "%s %s", why, expl);
    } else if (b->title && expl) {
        size_t n = strlen(b->title) + strlen(expl) + 4;
        b->reason = cgs_xmalloc(n);
        snprintf(b->reason, n, "%s %s", b->title, expl);
    } else if (why || expl) {
        b->reason = cgs_xstrdup(why ? why : expl);
    } else {
        b->reason = dupn(text, strcspn(text, "\n"));
    }
    free(why);
    free(expl);
    if (user) {
        struct cgs_pyframe f;
        /* the user's frames end where the compiler's own traceback starts */
        end = strstr(user, "\nTraceback (most recent call last)");
        if (cgs_pyframe_last(user, end, &f)) {
            b->file = dupn(f.file, f.file_len);
            b->line = f.line;
            if (f.name)
                b->name = dupn(f.name, f.name_len);
            for (;;) {
                const char *ls = f.file; /* the frame's line: the frames before it */
                if (!library_frame(&f))
                    break;
                while (ls > user && ls[-1] != '\n')
                    ls--;
                if (ls <= user || !cgs_pyframe_last(user, ls - 1, &f) || f.file >= ls)
                    break;
                if (!library_frame(&f)) {
                    b->user_file = dupn(f.file, f.file_len);
                    b->user_line = f.line;
                    if (f.name)
                        b->user_name = dupn(f.name, f.name_len);
                    break;
                }
            }
            return;
        }
    }
    if ((p = strstr(text, "user code at ")) != NULL) {
        /* "Graph break in user code at /x/model.py:12" */
        const char *f = p + 13, *colon = NULL;
        size_t k = strcspn(f, "\n");
        for (const char *x = f; x < f + k; x++)
            if (*x == ':')
                colon = x;
        if (colon) {
            b->file = dupn(f, (size_t)(colon - f));
            b->line = strtol(colon + 1, NULL, 10);
        }
    }
}

/* A break site: the same rank, file, line and reason as one before it is that one, hit
 * again (its compile ids gain cid); else a new site. nb's strings are taken. */
static void add_break(struct cgs_dash *d, struct cgs_dash_break *nb, const char *cid)
{
    struct cgs_dash_break *b = NULL;
    d->graph_breaks++;
    for (uint32_t i = 0; i < d->n_breaks && !b; i++) { /* the same site: one row */
        struct cgs_dash_break *ob = &d->breaks[i];
        if (ob->rank == nb->rank && ob->line == nb->line && !strcmp(ob->reason, nb->reason) &&
            !strcmp(ob->file ? ob->file : "", nb->file ? nb->file : ""))
            b = ob;
    }
    if (b) {
        break_release(nb); /* its compile ids are not set yet: NULL */
        b->hits++;
        if (strlen(b->compile_ids) < 200) {
            size_t n = strlen(b->compile_ids) + strlen(cid) + 3;
            char *ids = cgs_xmalloc(n);
            snprintf(ids, n, "%s, %s", b->compile_ids, cid);
            free(b->compile_ids);
            b->compile_ids = ids;
        } else if (!strstr(b->compile_ids, "...")) {
            size_t n = strlen(b->compile_ids) + 6;
            char *ids = cgs_xmalloc(n);
            snprintf(ids, n, "%s, ...", b->compile_ids);
            free(b->compile_ids);
            b->compile_ids = ids;
        }
    } else {
        CGS_ALLOC_GROW(d->breaks, d->n_breaks + 1, d->alloc_breaks);
        b = &d->breaks[d->n_breaks++];
        *b = *nb;
        b->compile_id = cgs_xstrdup(cid);
        b->compile_ids = cgs_xstrdup(cid);
        b->hits = 1;
    }
}

/*
 * An older torch logged no dynamo_graph_break_reason: a break shows as the restart reasons of
 * a compile and the resume frame Dynamo made after it, "torch_dynamo_resume_in_NAME_at_LINE"
 * (the break at LINE of NAME, in the same file). r is the resume frame's compile; the reason
 * is the restart reason of the latest compile of NAME (or of a resume frame in it) before r.
 */
static void break_from_resume(struct cgs_dash *d, const struct cgs_dash_row *r)
{
    static const char pre[] = "torch_dynamo_resume_in_";
    const char *nm = r->co_name, *at;
    struct cgs_dash_break nb;
    size_t name_len;
    long line;

    if (!nm || strncmp(nm, pre, sizeof(pre) - 1) || !(at = strstr(nm, "_at_")))
        return;
    nm += sizeof(pre) - 1;
    while (strstr(at + 1, "_at_")) /* the last "_at_": NAME may hold one */
        at = strstr(at + 1, "_at_");
    name_len = (size_t)(at - nm);
    line = strtol(at + 4, NULL, 10);
    for (uint32_t i = d->n_rows; i-- > 0;) {
        const struct cgs_dash_row *o = d->rows[i];
        if (o == r || !o->trace || o->source != r->source || o->rank != r->rank ||
            !o->restart_reasons || !o->co_name)
            continue;
        if (!((strlen(o->co_name) == name_len && !memcmp(o->co_name, nm, name_len)) ||
              (!strncmp(o->co_name, pre, sizeof(pre) - 1) &&
               !strncmp(o->co_name + sizeof(pre) - 1, nm, name_len) &&
               !strncmp(o->co_name + sizeof(pre) - 1 + name_len, "_at_", 4))))
            continue;
        memset(&nb, 0, sizeof(nb));
        nb.rank = r->rank;
        nb.reason = dupn(o->restart_reasons, strcspn(o->restart_reasons, "\n"));
        nb.file = xstrdup0(r->co_filename);
        nb.line = line;
        nb.name = dupn(nm, name_len);
        nb.source = r->source;
        nb.line_no = o->metrics_line;
        nb.from_restart = true;
        add_break(d, &nb, o->compile_id);
        return;
    }
}

char *cgs_dash_hints(const char *text, const char *stop)
{
    struct cgs_buf h = CGS_BUF_INIT;
    char *out;
    if (!text)
        return NULL;
    if (!stop)
        stop = text + strlen(text);
    for (const char *p = strstr(text, "Hint: "); p && p < stop; p = strstr(p + 1, "Hint: ")) {
        const char *ls = p;
        while (ls > text && (ls[-1] == ' ' || ls[-1] == '\t'))
            ls--;
        if (ls > text && ls[-1] != '\n')
            continue; /* "Hint: " inside a line */
        if (h.len)
            cgs_buf_addch(&h, '\n');
        cgs_buf_add(&h, p + 6, strcspn(p + 6, "\n"));
    }
    out = h.len ? cgs_buf_detach(&h) : NULL;
    cgs_buf_release(&h);
    return out;
}

char *cgs_dash_url(const char *text)
{
    const char *p = text ? strstr(text, "please visit: ") : NULL;
    return p ? dupn(p + 14, strcspn(p + 14, " \n")) : NULL;
}

long cgs_dash_frame_compile(const char *cid)
{
    return frame_compile_of(cid);
}

/* The stage of a record that carries a graph, or NULL. */
static const char *graph_stage(const cJSON *o)
{
    static const char *const keys[][2] = {
        {"dynamo_output_graph", "dynamo"},   {"aot_forward_graph", "aot_forward"},
        {"aot_backward_graph", "aot_backward"}, {"aot_inference_graph", "aot_inference"},
        {"aot_joint_graph", "aot_joint"},
        /* torch before 2.6 logged the post-grad graph as its own record */
        {"inductor_post_grad_graph", "post_grad"}, {"exported_program", "export"},
    };
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "artifact");
    if (x && cJSON_IsObject(x)) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(x, "name");
        return cJSON_IsString(nm) && !strcmp(nm->valuestring, "inductor_post_grad_graph")
                   ? "post_grad"
                   : NULL;
    }
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (cJSON_GetObjectItemCaseSensitive(o, keys[i][0]))
            return keys[i][1];
    return NULL;
}

static void index_graph(struct cgs_dash *d, const char *key, uint32_t at)
{
    if (cgs_strmap_get(d->graph_index, key)) {
        cgs_strmap_set(d->graph_index, key, (void *)(uintptr_t)at);
        return;
    }
    CGS_ALLOC_GROW(d->graph_keys, d->n_graph_keys + 1, d->alloc_graph_keys);
    d->graph_keys[d->n_graph_keys] = cgs_xstrdup(key);
    cgs_strmap_put(d->graph_index, d->graph_keys[d->n_graph_keys++], (void *)(uintptr_t)at);
}

/* A graph record's payload kept (a restarted analysis replaces its earlier attempt). */
static void keep_graph(struct cgs_dash *d, struct cgs_feed *f, const cJSON *o, const char *cid,
                       const char *stage)
{
    int64_t attempt = 0;
    struct cgs_dash_graph *g = NULL;
    char at[32];
    if (f->payload_over) { /* said, never dropped in silence */
        char why[96];
        snprintf(why, sizeof(why), "a %s graph whose payload passes %zu MiB (not read)", stage,
                 CGS_DASH_MAX_PAYLOAD >> 20);
        bad_line_at(d, f, f->pending_line, why);
        return;
    }
    if (!f->payload)
        return;
    if (!cid[0]) { /* export and AOTInductor compile no frame: the record's line tells */
        snprintf(at, sizeof(at), "@%llu", (unsigned long long)f->pending_line);
        cid = at;
    }
    jint(o, "attempt", &attempt, NULL);
    /* a later attempt of the same compile replaces the graph; the same attempt logging a
     * second post-grad graph is the backward's (Inductor compiles it after the forward); a
     * Dynamo graph of a compile id seen before, at no later attempt, is the id reused (the
     * log holds several runs: torch._dynamo.reset() numbers compiles anew): a new occurrence,
     * which the compile's other stages then join */
    bool second = false;
    int occ = 1;
    uintptr_t at_id, at_stage;
    char key[400];
    /* the latest graph of this compile id (any stage), then of this stage and occurrence:
       found in graph_index (a scan of every graph per record was quadratic in records) */
    if (!d->graph_index)
        d->graph_index = cgs_strmap_new();
    snprintf(key, sizeof(key), "c|%u|%d|%.300s", source_of(d, f), f->rank, cid);
    at_id = (uintptr_t)cgs_strmap_get(d->graph_index, key);
    if (at_id)
        occ = d->graphs[at_id - 1].occurrence;
    snprintf(key, sizeof(key), "s|%u|%d|%s|%d|%.300s", source_of(d, f), f->rank, stage, occ, cid);
    at_stage = (uintptr_t)cgs_strmap_get(d->graph_index, key);
    if (at_stage) {
        uint32_t i = (uint32_t)(at_stage - 1);
        if (attempt > d->graphs[i].attempt)
            g = &d->graphs[i];
        else if (!strcmp(stage, "dynamo"))
            occ++; /* the id again: a new occurrence */
        else if (!strcmp(stage, "post_grad") && !d->graphs[i].backward)
            second = true;
        else
            g = &d->graphs[i];
    }
    if (!g) {
        CGS_ALLOC_GROW(d->graphs, d->n_graphs + 1, d->alloc_graphs);
        g = &d->graphs[d->n_graphs++];
        memset(g, 0, sizeof(*g));
        g->compile_id = cgs_xstrdup(cid);
        g->stage = stage;
        g->rank = f->rank;
        g->source = source_of(d, f);
        g->backward = second;
        g->occurrence = occ;
        /* this graph is now the latest of its compile id, and of its stage and occurrence */
        snprintf(key, sizeof(key), "c|%u|%d|%.300s", g->source, g->rank, cid);
        index_graph(d, key, d->n_graphs);
        snprintf(key, sizeof(key), "s|%u|%d|%s|%d|%.300s", g->source, g->rank, stage, occ, cid);
        index_graph(d, key, d->n_graphs);
    } else if (attempt < g->attempt) {
        return;
    }
    free(g->text);
    g->text = cgs_xstrdup(f->payload);
    g->attempt = (int)attempt;
    g->line = f->pending_line;
    g->run = f->run;
}

/* create_symbol: {"symbol": "s77", "val": "4", "vr": "[2, int_oo]", ...} */
static void keep_symbol(struct cgs_dash *d, struct cgs_feed *f, const cJSON *x, const char *cid)
{
    const char *nm = jstr(x, "symbol"), *val = jstr(x, "val"), *vr = jstr(x, "vr");
    struct cgs_dash_symbol *s;
    char *end;
    if (!nm || !cid[0] || strlen(nm) > 64)
        return;
    CGS_ALLOC_GROW(d->symbols, d->n_symbols + 1, d->alloc_symbols);
    s = &d->symbols[d->n_symbols++];
    memset(s, 0, sizeof(*s));
    s->compile_id = cgs_xstrdup(cid);
    s->name = cgs_xstrdup(nm);
    s->rank = f->rank;
    s->source = source_of(d, f);
    s->run = f->run;
    if (val) {
        long long v = strtoll(val, &end, 10);
        if (end != val && !*end)
            s->has_hint = true, s->hint = v;
    }
    if (vr && vr[0] == '[') {
        long long lo = strtoll(vr + 1, &end, 10);
        if (end != vr + 1 && *end == ',') {
            s->has_min = true, s->min = lo;
            const char *p = end + 1;
            while (*p == ' ')
                p++;
            long long hi = strtoll(p, &end, 10);
            if (end != p && *end == ']')
                s->has_max = true, s->max = hi;
        }
    }
}

/* Forget the breaks read from restart reasons of a source and rank (its log says its breaks). */
static void drop_restart_breaks(struct cgs_dash *d, uint32_t source, int rank)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < d->n_breaks; i++) {
        struct cgs_dash_break *b = &d->breaks[i];
        if (b->from_restart && b->source == source && b->rank == rank) {
            d->graph_breaks -= b->hits;
            break_release(b);
            continue;
        }
        d->breaks[k++] = *b;
    }
    d->n_breaks = k;
}

/* A JSON list of strings (or one string) as lines, new; NULL when empty or absent. */
static char *lines_of(const cJSON *v)
{
    struct cgs_buf b = CGS_BUF_INIT;
    const cJSON *it;
    char *out;
    if (cJSON_IsString(v) && v->valuestring[0])
        return cgs_xstrdup(v->valuestring);
    if (!cJSON_IsArray(v))
        return NULL;
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsString(it) || !it->valuestring[0])
            continue;
        if (b.len)
            cgs_buf_addch(&b, '\n');
        /* torch 2.4 wrote each reason as a Python repr: 'skip function ...' */
        size_t n = strlen(it->valuestring);
        if (n >= 2 && it->valuestring[0] == '\'' && it->valuestring[n - 1] == '\'')
            cgs_buf_add(&b, it->valuestring + 1, n - 2);
        else
            cgs_buf_addstr(&b, it->valuestring);
    }
    out = b.len ? cgs_buf_detach(&b) : NULL;
    cgs_buf_release(&b);
    return out;
}

/* Every field of a record, "name: value" one a line, in the record's order: numbers, text
 * (each cut at 1,000 bytes), booleans, null, lists of them joined with ", " (cut likewise);
 * nested objects are summarised by their size. At most CGS_DASH_MAX_TEXT bytes in all. */
static char *fields_text(const cJSON *x)
{
    struct cgs_buf b = CGS_BUF_INIT;
    const cJSON *c, *e;
    char *out;
    cJSON_ArrayForEach(c, x)
    {
        size_t start = b.len;
        if (!c->string || b.len > CGS_DASH_MAX_TEXT)
            continue;
        cgs_buf_addf(&b, "%s%s: ", b.len ? "\n" : "", c->string);
        if (cJSON_IsArray(c)) {
            int k = 0;
            cJSON_ArrayForEach(e, c)
            {
                if (b.len - start > 1000) {
                    cgs_buf_addstr(&b, ", ...");
                    break;
                }
                if (k++)
                    cgs_buf_addstr(&b, ", ");
                if (cJSON_IsString(e))
                    cgs_buf_addf(&b, "%.1000s", e->valuestring);
                else if (cJSON_IsNumber(e))
                    cgs_buf_addf(&b, "%.17g", e->valuedouble);
                else
                    cgs_buf_addstr(&b, cJSON_IsObject(e) ? "{...}" : cJSON_IsArray(e) ? "[...]"
                                       : cJSON_IsTrue(e) ? "true" : cJSON_IsFalse(e) ? "false"
                                                                           : "null");
            }
            if (!k)
                cgs_buf_addstr(&b, "(none)");
        } else if (cJSON_IsObject(c)) {
            cgs_buf_addf(&b, "{%d fields}", cJSON_GetArraySize(c));
        } else if (cJSON_IsString(c)) {
            cgs_buf_addf(&b, "%.1000s", c->valuestring);
        } else if (cJSON_IsNumber(c)) {
            cgs_buf_addf(&b, "%.17g", c->valuedouble);
        } else {
            cgs_buf_addstr(&b, cJSON_IsTrue(c) ? "true" : cJSON_IsFalse(c) ? "false" : "null");
        }
    }
    out = b.len ? cgs_buf_detach(&b) : NULL;
    cgs_buf_release(&b);
    return out;
}

/* One compile's compilation_metrics: its time (every field torch's releases write), frame,
 * failure, restarts and graph size. */
static void metrics_record(struct cgs_dash *d, struct cgs_feed *f, struct cgs_dash_row *r,
                           const cJSON *x)
{
    static const struct {
        enum cgs_dash_phase phase;
        const char *field;
        double scale; /* to ms */
    } times[] = {
        {CGS_DASH_PHASE_DYNAMO, "entire_frame_compile_time_s", 1e3},
        {CGS_DASH_PHASE_DYNAMO, "dynamo_cumulative_compile_time_us", 1e-3},
        {CGS_DASH_PHASE_AOT, "aot_autograd_cumulative_compile_time_us", 1e-3},
        {CGS_DASH_PHASE_BACKEND, "backend_compile_time_s", 1e3},
        {CGS_DASH_PHASE_INDUCTOR, "inductor_cumulative_compile_time_us", 1e-3},
        {CGS_DASH_PHASE_INDUCTOR, "inductor_compile_time_s", 1e3},
        {CGS_DASH_PHASE_CODEGEN, "inductor_code_gen_cumulative_compile_time_us", 1e-3},
        {CGS_DASH_PHASE_CODEGEN, "code_gen_time_s", 1e3},
    };
    double st, v;
    int64_t line = 0, ops;
    const char *co = jstr(x, "co_name"), *file = jstr(x, "co_filename");
    const char *ft = jstr(x, "fail_type"), *fr = jstr(x, "fail_reason");

    if (r->metrics) /* the same compile's record again: counted once */
        return;
    r->metrics = true;
    r->metrics_line = f->pending_line;
    for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
        if (r->phase_ms[times[i].phase] < 0 && jnum(x, times[i].field, &v) && v >= 0)
            r->phase_ms[times[i].phase] = v * times[i].scale;
    if (r->phase_ms[CGS_DASH_PHASE_DYNAMO] >= 0) {
        r->has_compile_ms = true;
        r->compile_ms += r->phase_ms[CGS_DASH_PHASE_DYNAMO];
        r->last_compile_ms = r->phase_ms[CGS_DASH_PHASE_DYNAMO];
    }
    r->compiles++;
    d->compiles++;
    if (jnum(x, "start_time", &st)) {
        double s = r->has_compile_ms ? r->last_compile_ms / 1e3 : 0;
        seen_ts(d, st + s);
        if (st + s > r->last_ts)
            r->last_ts = st + s;
    }
    jint(x, "co_firstlineno", &line, NULL);
    if (co && !r->co_name) {
        const char *base = file ? strrchr(file, '/') : NULL;
        char fr2[256];
        snprintf(fr2, sizeof(fr2), "%s (%s:%lld)", co, base ? base + 1 : file ? file : "?",
                 (long long)line);
        set_str(&r->frame, fr2);
        r->co_name = cgs_xstrdup(co);
        r->co_filename = xstrdup0(file);
        r->co_firstlineno = line;
    }
    if (jint(x, "graph_op_count", &ops, NULL))
        r->graph_op_count = ops;
    if (ft) {
        r->fail_type = cgs_xstrdup(ft);
        r->fail_reason = xstrdup0(fr);
        /* torch's refusal to compile a frame once more: its recompile limit */
        r->limit_hit = fr && (strstr(fr, "recompile limit") || strstr(fr, "recompile_limit") ||
                              strstr(fr, "cache_size_limit") || strstr(fr, "cache size limit"));
    }
    if (jstr(x, "fail_user_frame_filename")) {
        r->fail_file = cgs_xstrdup(jstr(x, "fail_user_frame_filename"));
        jint(x, "fail_user_frame_lineno", &r->fail_line, NULL);
    }
    free(r->restart_reasons);
    r->restart_reasons = lines_of(cJSON_GetObjectItemCaseSensitive(x, "restart_reasons"));
    if (!f->break_records)
        break_from_resume(d, r);
    if (d->keep_texts && !r->metrics_text)
        r->metrics_text = fields_text(x);
}

/* dynamo_start's stack as text: "file:line in name" a frame, one a line, the outermost first;
 * a file given by index is named from the log's str records. NULL when there is none. */
static char *stack_text(const struct cgs_feed *f, const cJSON *stack)
{
    struct cgs_buf b = CGS_BUF_INIT;
    const cJSON *fr;
    int n = 0;

    cJSON_ArrayForEach(fr, stack)
    {
        const cJSON *fn = cJSON_GetObjectItemCaseSensitive(fr, "filename");
        const char *name = jstr(fr, "name");
        int64_t line = 0;
        char file[32];
        const char *fs = NULL;
        if (n++ >= CGS_DASH_MAX_FRAMES)
            break;
        jint(fr, "line", &line, NULL);
        if (cJSON_IsString(fn))
            fs = fn->valuestring;
        else if (cJSON_IsNumber(fn) && fn->valuedouble >= 0 && fn->valuedouble < (double)f->n_strs)
            fs = f->strs[(size_t)fn->valuedouble];
        if (!fs) {
            snprintf(file, sizeof(file), "file #%.0f", cJSON_IsNumber(fn) ? fn->valuedouble : -1);
            fs = file;
        }
        cgs_buf_addf(&b, "%s%s:%lld in %s", b.len ? "\n" : "", fs, (long long)line,
                     name ? name : "?");
    }
    if (!b.len) {
        cgs_buf_release(&b);
        return NULL;
    }
    return cgs_buf_detach(&b);
}

static void trace_record(struct cgs_dash *d, struct cgs_feed *f)
{
    cJSON *o = f->pending, *x;
    char cid[96];
    size_t stem;

    f->pending = NULL;
    d->events++;
    f->records++;
    compile_id_of(o, cid, sizeof(cid));
    if (d->keep_graphs) {
        const char *stage = graph_stage(o);
        if (stage)
            keep_graph(d, f, o, cid, stage);
        else if ((x = cJSON_GetObjectItemCaseSensitive(o, "create_symbol")) && cJSON_IsObject(x))
            keep_symbol(d, f, x, cid);
    }
    if ((x = cJSON_GetObjectItemCaseSensitive(o, "artifact")) && cJSON_IsObject(x)) {
        const char *name = jstr(x, "name");
        enum cgs_lookup st = CGS_LOOKUP_HIT;
        bool lookup = false;
        if (name && ends_with(name, "_cache_hit", &stem))
            lookup = true;
        else if (name && ends_with(name, "_cache_miss", &stem))
            lookup = true, st = CGS_LOOKUP_MISS;
        else if (name && ends_with(name, "_cache_bypass", &stem))
            lookup = true, st = CGS_LOOKUP_BYPASS;
        if (lookup) {
            char cache[128];
            snprintf(cache, sizeof(cache), "%.*s", (int)(stem < 120 ? stem : 120), name);
            count_lookup(d, cid[0] ? trace_row(d, f, cid) : NULL, cache, st);
            if (d->keep_lookups)
                keep_lookup(d, f->rank, cid, cache, st, payload_text(f));
        } else if (name && !strcmp(name, "recompile_reasons")) {
            struct cgs_dash_row *r = cid[0] ? trace_row(d, f, cid) : NULL;
            if (r) {
                char *why = cgs_dash_decode_reasons(payload_text(f));
                if (!r->recompiles) {
                    r->recompiles = 1;
                    d->recompiles++;
                }
                free(r->reason);
                r->reason = why[0] ? why : cgs_xstrdup("recompiled (no reason logged)");
                if (!why[0])
                    free(why);
                r->recompile_line = f->pending_line;
            }
        } else if (name && !strcmp(name, "inductor_collective_schedule")) {
            struct cgs_dash_row *r = cid[0] ? trace_row(d, f, cid) : NULL;
            const char *text = payload_text(f);
            cJSON *ops = r && text ? cJSON_Parse(text) : NULL, *op;
            if (!cJSON_IsArray(ops)) { /* not the list of operators torch writes: left out */
                cJSON_Delete(ops);
                ops = NULL;
            }
            if (r && ops && !r->collectives_line)
                r->collectives_line = f->pending_line;
            cJSON_ArrayForEach(op, ops)
            {
                if (!cJSON_IsString(op))
                    continue;
                if (r->collectives.len)
                    cgs_buf_addch(&r->collectives, '\n');
                cgs_buf_addstr(&r->collectives, op->valuestring);
            }
            cJSON_Delete(ops);
        } else if (name && !strcmp(name, "dynamo_graph_break_reason")) {
            struct cgs_dash_break nb;
            memset(&nb, 0, sizeof(nb));
            nb.rank = f->rank;
            nb.source = source_of(d, f);
            nb.line_no = f->pending_line;
            break_parse(&nb, payload_text(f));
            if (!f->break_records++) /* this log says its breaks: none from restart reasons */
                drop_restart_breaks(d, nb.source, f->rank);
            add_break(d, &nb, cid);
        }
    } else if ((x = cJSON_GetObjectItemCaseSensitive(o, "compilation_metrics")) ||
               (x = cJSON_GetObjectItemCaseSensitive(o, "bwd_compilation_metrics"))) {
        const char *id = jstr(x, "compile_id");
        bool bwd = !cJSON_GetObjectItemCaseSensitive(o, "compilation_metrics");
        /* the record's own frame_id/frame_compile_id first: torch's compile_id field can
         * repeat an earlier id (tlparse reads the envelope too) */
        struct cgs_dash_row *r = cid[0] ? trace_row(d, f, cid) : id ? trace_row(d, f, id) : NULL;
        if (r && !bwd)
            metrics_record(d, f, r, x);
        else if (r) {
            double s = 0;
            if (jnum(x, "inductor_compile_time_s", &s)) {
                r->compile_ms += s * 1e3;
                r->last_compile_ms = s * 1e3;
            }
        }
    } else if (cJSON_GetObjectItemCaseSensitive(o, "dynamo_output_graph") && cid[0]) {
        struct cgs_dash_row *r = trace_row(d, f, cid); /* NULL past CGS_DASH_MAX_ROWS */
        if (r)
            r->dynamo_graph = true;
    } else if ((x = cJSON_GetObjectItemCaseSensitive(o, "dynamo_start")) && cid[0]) {
        struct cgs_dash_row *r = trace_row(d, f, cid);
        int64_t attempt = 0;
        jint(o, "attempt", &attempt, NULL);
        if (r && r->metrics && attempt == 0) {
            /* the id again after its compile ended: a new run (torch._dynamo.reset()) */
            f->run++;
            r = trace_row(d, f, cid);
        }
        if (r && !r->stack)
            r->stack = stack_text(f, cJSON_GetObjectItemCaseSensitive(x, "stack"));
    } else if (d->keep_texts && cid[0] &&
               (cJSON_GetObjectItemCaseSensitive(o, "dynamo_cpp_guards_str") ||
                cJSON_GetObjectItemCaseSensitive(o, "inductor_output_code"))) {
        struct cgs_dash_row *r = trace_row(d, f, cid);
        char **slot = !r ? NULL
                      : cJSON_GetObjectItemCaseSensitive(o, "inductor_output_code") ? &r->output_code
                                                                                    : &r->guards;
        if (slot && f->payload && f->payload_len) {
            size_t n = f->payload_len < CGS_DASH_MAX_TEXT ? f->payload_len : CGS_DASH_MAX_TEXT;
            struct cgs_buf t = CGS_BUF_INIT;
            if (*slot) { /* a second (the backward's code): after the first */
                cgs_buf_addstr(&t, *slot);
                cgs_buf_addstr(&t, "\n");
                free(*slot);
            }
            cgs_buf_add(&t, f->payload, n);
            if (n < f->payload_len || f->payload_over)
                cgs_buf_addstr(&t, "\n... (cut: the log holds more)");
            *slot = cgs_buf_detach(&t);
        }
    } else if (d->keep_texts && cid[0] &&
               ((x = cJSON_GetObjectItemCaseSensitive(o, "symbolic_shape_specialization")) ||
                (x = cJSON_GetObjectItemCaseSensitive(o, "guard_added")))) {
        struct cgs_dash_row *r = trace_row(d, f, cid);
        const char *sym = jstr(x, "symbol"), *expr = jstr(x, "expr"), *val = jstr(x, "value");
        const char *reason = jstr(x, "reason");
        if (r && (sym || expr)) {
            /* appended in place: a compile can log thousands of them */
            struct cgs_buf *t = &r->specializations;
            if (t->len)
                cgs_buf_addch(t, '\n');
            if (sym)
                cgs_buf_addf(t, "%s = %s", sym, val ? val : "?");
            else
                cgs_buf_addf(t, "guard: %s", expr);
            if (reason)
                cgs_buf_addf(t, " (%s)", reason);
        }
    } else if ((x = cJSON_GetObjectItemCaseSensitive(o, "str")) && cJSON_IsArray(x) &&
               cJSON_GetArraySize(x) == 2 && cJSON_IsString(cJSON_GetArrayItem(x, 0)) &&
               cJSON_IsNumber(cJSON_GetArrayItem(x, 1))) {
        /* a file name the frames of later records give by its index */
        double ix = cJSON_GetArrayItem(x, 1)->valuedouble;
        if (ix >= 0 && ix < CGS_DASH_MAX_STRS) {
            size_t i = (size_t)ix;
            if (i >= f->n_strs) {
                f->strs = cgs_xrealloc(f->strs, (i + 1) * sizeof(*f->strs));
                memset(f->strs + f->n_strs, 0, (i + 1 - f->n_strs) * sizeof(*f->strs));
                f->n_strs = i + 1;
            }
            free(f->strs[i]);
            f->strs[i] = cgs_xstrdup(cJSON_GetArrayItem(x, 0)->valuestring);
        }
    }
    cgs_jbump_reset(f->rec); /* o and all it held */
    f->payload_len = 0;
    f->payload_over = false;
    if (f->payload)
        f->payload[0] = '\0';
}

/* A record of a kind nothing here reads (by its first key, as torch writes it): Inductor's
 * timing events and the tensors, storages and sources a fake tensor describes, most records of
 * a log (8,013 chromium_event records of 12,061 in the bench logs). */
static bool unread_record(const char *s, size_t n)
{
    static const char *const kinds[] = {"{\"chromium_event\": ", "{\"describe_tensor\": ",
                                        "{\"describe_storage\": ", "{\"describe_source\": "};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        size_t k = strlen(kinds[i]);
        if (n > k && !memcmp(s, kinds[i], k) && s[n - 1] == '}')
            return true;
    }
    return false;
}

static void trace_line(struct cgs_dash *d, struct cgs_feed *f, const char *s, size_t n)
{
    size_t at;
    while (n && !*s) /* NUL bytes before a line (a zero-filled block): skipped */
        s++, n--;
    if (n && s[0] == '\t') {
        if (!f->pending)
            return; /* the rest of a record whose header this reader did not keep */
        if (f->payload_len + n + 1 > CGS_DASH_MAX_PAYLOAD) {
            f->payload_over = true;
            return;
        }
        CGS_ALLOC_GROW(f->payload, f->payload_len + n + 2, f->payload_alloc);
        if (f->payload_len)
            f->payload[f->payload_len++] = '\n';
        memcpy(f->payload + f->payload_len, s + 1, n - 1);
        f->payload_len += n - 1;
        f->payload[f->payload_len] = '\0';
        return;
    }
    if (!n && f->pending && f->payload_len) {
        /* an empty line inside a payload (a log whose trailing tabs were stripped): part
         * of it; the next record line ends it */
        CGS_ALLOC_GROW(f->payload, f->payload_len + 2, f->payload_alloc);
        f->payload[f->payload_len++] = '\n';
        f->payload[f->payload_len] = '\0';
        return;
    }
    if (f->pending)
        trace_record(d, f);
    if (!n)
        return;
    at = cgs_glog_payload_at(s, n);
    if (!at) {
        bad_line(d, f, "not a TORCH_TRACE line (expected a glog prefix and a JSON object)");
        return;
    }
    if (unread_record(s + at, n - at)) {
        d->events++; /* counted, not parsed; its payload lines are passed over */
        f->records++;
        return;
    }
    if (!f->rec) {
        f->rec = cgs_xcalloc(1, sizeof(*f->rec));
        f->rec->block = (size_t)64 << 10; /* most records are a few hundred bytes */
    }
    cgs_jbump_enter(f->rec);
    f->pending = parse_record(s + at, n - at, d->keep_texts);
    cgs_jbump_leave(f->rec);
    f->pending_line = f->line_no;
    if (!f->pending || !cJSON_IsObject(f->pending)) {
        cgs_jbump_reset(f->rec);
        f->pending = NULL;
        bad_line(d, f, "the TORCH_TRACE record is not a JSON object");
        return;
    }
    if (!cJSON_GetObjectItemCaseSensitive(f->pending, "has_payload"))
        trace_record(d, f);
}

bool cgs_dash_id_in_list(const char *list, const char *id)
{
    size_t n = strlen(id);
    for (const char *p = list; p && *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && !memcmp(p, id, n))
            return true;
        p += k;
        p += strspn(p, ", ");
    }
    return false;
}

char *cgs_dash_decode_reasons(const char *payload)
{
    const char *p = payload + strspn(payload, " \t\n\r");
    cJSON *v = (*p == '[' || *p == '"') ? parse_text(p, strlen(p)) : NULL, *it;
    char *out;
    size_t n = 1, k = 0;

    if (!v || !(cJSON_IsString(v) || cJSON_IsArray(v))) {
        cJSON_Delete(v);
        return cgs_xstrdup(p); /* plain text, one reason a line (torch 2.11 writes it so) */
    }
    if (cJSON_IsString(v)) {
        out = cgs_xstrdup(v->valuestring);
        cJSON_Delete(v);
        return out;
    }
    cJSON_ArrayForEach(it, v) if (cJSON_IsString(it)) n += strlen(it->valuestring) + 1;
    out = cgs_xmalloc(n);
    out[0] = '\0';
    cJSON_ArrayForEach(it, v) if (cJSON_IsString(it))
    {
        size_t m = strlen(it->valuestring);
        if (k)
            out[k++] = '\n';
        memcpy(out + k, it->valuestring, m);
        k += m;
        out[k] = '\0';
    }
    cJSON_Delete(v);
    return out;
}

/* ---- the compile-cache index ------------------------------------------------------------ */

static void index_text(struct cgs_dash *d, struct cgs_feed *f)
{
    struct cgs_diag e = CGS_DIAG_INIT;
    if (f->too_big) {
        char msg[160];
        f->too_big = false;
        f->line_no = 1;
        snprintf(msg, sizeof(msg), "the index is larger than %zu MiB, the most cgscope reads: "
                 "none of it was read", CGS_DASH_MAX_PAYLOAD >> 20);
        bad_line(d, f, msg);
        return;
    }
    if (!f->text_len)
        return;
    char why[256];
    uint64_t entry = 0;

    /* wide text, or binary (two NULs) */
    if (cgs_text_is_wide(f->text, f->text_len) || (f->text_len >= 2 && !f->text[0])) {
        f->line_no = 1;
        bad_line(d, f, "the index is UTF-16 (or binary) text: a compile-cache index is the "
                       "UTF-8 Python literal MagiCompiler writes (convert it with iconv)");
        return;
    }
    cJSON *v = cgs_pylit_parse(f->text ? f->text : "", f->text_len, f->name, &e), *pair;

    if (!v) {
        snprintf(why, sizeof(why), "%.200s (column %u)", e.msg, e.col);
        f->line_no = e.line;
        bad_line(d, f, why);
        return;
    }
    if (!cJSON_IsArray(v) || (cJSON_GetArraySize(v) &&
                              !cgs_pylit_key(cJSON_GetArrayItem(v, 0)))) {
        if (!f->line_no)
            f->line_no = 1;
        bad_line(d, f, "expected a dict {(runtime_shape, graph_index, backend): (key, path, "
                       "restart_analysis_count)}");
        cJSON_Delete(v);
        return;
    }
    cJSON_ArrayForEach(pair, v)
    {
        const cJSON *k = cgs_pylit_key(pair), *val = cgs_pylit_value(pair);
        const cJSON *ks = cJSON_GetArrayItem(k, 0), *kg = cJSON_GetArrayItem(k, 1),
                    *kb = cJSON_GetArrayItem(k, 2);
        const cJSON *vk = cJSON_GetArrayItem(val, 0), *vp = cJSON_GetArrayItem(val, 1),
                    *vr = cJSON_GetArrayItem(val, 2);
        struct cgs_dash_entry *en;
        struct cgs_dash_row *r;
        entry++;
        int64_t shape = 0, gi = 0, restarts = 0;
        const char *bad = NULL;
        if (!cJSON_IsArray(k) || cJSON_GetArraySize(k) != 3 || !cJSON_IsArray(val) ||
            cJSON_GetArraySize(val) < 2 || !(cJSON_IsNull(ks) || cJSON_IsNumber(ks)) ||
            !cJSON_IsNumber(kg) || !cJSON_IsString(kb) || !cJSON_IsString(vk) ||
            !cJSON_IsString(vp) || (vr && !cJSON_IsNumber(vr)))
            bad = "expected (runtime_shape, graph_index, backend): (key, path, "
                  "restart_analysis_count)";
        else if ((!cJSON_IsNull(ks) && !cgs_json_number_int(ks, &shape)) ||
                 !cgs_json_number_int(kg, &gi) || (vr && !cgs_json_number_int(vr, &restarts)))
            bad = "runtime_shape, graph_index and restart_analysis_count are integers "
                  "(of 64 bits)";
        else if (shape < 0 || gi < 0)
            bad = "runtime_shape and graph_index are not negative";
        else if (restarts < 0 || restarts > CGS_DASH_MAX_RESTARTS)
            bad = "restart_analysis_count is from 0 to " CGS_STR(CGS_DASH_MAX_RESTARTS)
                  " (Dynamo restarts a frame's analysis a few times, not more)";
        if (bad) {
            uint32_t line = 1, col = 1;
            cgs_text_position(f->text, f->text_len, cgs_pylit_offset(pair), &line, &col);
            snprintf(why, sizeof(why), "entry %llu (column %u): %s", (unsigned long long)entry,
                     col, bad);
            f->line_no = line;
            bad_line(d, f, why);
            continue;
        }
        d->events++;
        f->records++;
        CGS_ALLOC_GROW(d->entries, d->n_entries + 1, d->alloc_entries);
        en = &d->entries[d->n_entries++];
        memset(en, 0, sizeof(*en));
        en->dynamic = cJSON_IsNull(ks);
        en->runtime_shape = shape;
        en->graph_index = gi;
        en->backend = cgs_xstrdup(kb->valuestring);
        en->key = cgs_xstrdup(vk->valuestring);
        en->path = cgs_xstrdup(vp->valuestring);
        en->restart_analysis_count = restarts;
        r = event_row(d, f, true, en->graph_index, en->dynamic, en->runtime_shape,
                      en->backend, NULL, NULL);
        if (r) {
            r->indexed = true;
            r->restart_analysis_count = en->restart_analysis_count;
        }
    }
    cJSON_Delete(v);
}

/* ---- feeding ----------------------------------------------------------------------------- */

void cgs_feed_init(struct cgs_feed *f, const char *name, enum cgs_src_kind kind)
{
    memset(f, 0, sizeof(*f));
    f->name = name;
    f->kind = kind;
    f->rank = name ? cgs_rank_from_name(name) : -1;
    f->run = 1;
}

void cgs_feed_release(struct cgs_feed *f)
{
    free(f->line);
    if (f->rec) { /* the pending record's tree, if any */
        cgs_jbump_release(f->rec);
        free(f->rec);
    }
    free(f->payload);
    free(f->text);
    for (size_t i = 0; i < f->n_strs; i++)
        free(f->strs[i]);
    free(f->strs);
    memset(f, 0, sizeof(*f));
}

int cgs_rank_from_name(const char *name)
{
    const char *p = name, *q;
    int rank = -1;
    while ((q = strstr(p, "rank_")) || (q = strstr(p, "rank-"))) {
        if (q[5] >= '0' && q[5] <= '9')
            rank = (int)strtol(q + 5, NULL, 10);
        p = q + 5;
    }
    return rank;
}

enum cgs_src_kind cgs_src_kind_guess(const char *name, const char *head, size_t len)
{
    size_t i = 0;
    /* a follower may see a file before its first line is whole: its name decides first */
    if (name && cgs_path_has_ext(name, ".jsonl"))
        return CGS_SRC_EVENTS;
    if (name && (cgs_path_has_ext(name, ".py") || strstr(name, "magi_compile_cache")))
        return CGS_SRC_CACHE_INDEX;
    switch (cgs_sniff(head, len, name)) { /* lib/readers/sniff.h: what the content is */
    case CGS_IN_TRACE_LOG:
        return CGS_SRC_TRACE;
    case CGS_IN_CACHE_INDEX:
        return CGS_SRC_CACHE_INDEX;
    case CGS_IN_EVENTS:
    case CGS_IN_GRAPH_JSON:
    case CGS_IN_PROFILE_REPORT:
    case CGS_IN_JSON:
        /* an object: read as event lines (what is not one is counted), except "{}", an
           index with no entry yet */
        while (i < len && strchr(" \t\r\n", head[i]))
            i++;
        if (i < len && head[i] == '{') {
            i++;
            while (i < len && strchr(" \t\r\n", head[i]))
                i++;
            if (i < len && head[i] == '}')
                return CGS_SRC_CACHE_INDEX;
            return CGS_SRC_EVENTS;
        }
        return CGS_SRC_UNKNOWN;
    default:
        return CGS_SRC_UNKNOWN;
    }
}

static void one_line(struct cgs_dash *d, struct cgs_feed *f, const char *s, size_t n)
{
    f->line_no++;
    if (n && s[n - 1] == '\r')
        n--;
    if (f->kind == CGS_SRC_UNKNOWN) {
        if (!n)
            return;
        f->kind = cgs_src_kind_guess(NULL, s, n);
        if (f->kind == CGS_SRC_UNKNOWN) {
            bad_line(d, f, "neither an event (JSON) nor a TORCH_TRACE line");
            return;
        }
    }
    if (f->kind == CGS_SRC_EVENTS) {
        size_t i = 0;
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i < n)
            event_line(d, f, s, n);
    } else {
        trace_line(d, f, s, n);
    }
}

void cgs_feed_data(struct cgs_dash *d, struct cgs_feed *f, const char *data, size_t len)
{
    if (f->kind == CGS_SRC_UNKNOWN && !f->line_len && len) /* by its head, as a file's */
        f->kind = cgs_src_kind_guess(f->name, data, len < CGS_SNIFF_HEAD ? len : CGS_SNIFF_HEAD);
    if (f->kind == CGS_SRC_CACHE_INDEX) {
        if (f->too_big || f->text_len + len + 1 > CGS_DASH_MAX_PAYLOAD) {
            f->too_big = true; /* nothing more is kept; said when the text is read */
            return;
        }
        CGS_ALLOC_GROW(f->text, f->text_len + len + 1, f->text_alloc);
        memcpy(f->text + f->text_len, data, len);
        f->text_len += len;
        f->text[f->text_len] = '\0';
        return;
    }
    while (len) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        if (f->skipping) {
            if (nl)
                f->skipping = false;
        } else if (f->line_len + n > CGS_DASH_MAX_LINE) {
            f->line_no++;
            bad_line(d, f, "line longer than the limit");
            f->line_len = 0;
            f->skipping = !nl;
        } else if (nl && !f->line_len) {
            one_line(d, f, data, n); /* the common case: no copy */
        } else {
            CGS_ALLOC_GROW(f->line, f->line_len + n + 1, f->line_alloc);
            memcpy(f->line + f->line_len, data, n);
            f->line_len += n;
            if (nl) {
                one_line(d, f, f->line, f->line_len);
                f->line_len = 0;
            }
        }
        if (!nl)
            break;
        data = nl + 1;
        len -= n + 1;
    }
}

void cgs_feed_flush(struct cgs_dash *d, struct cgs_feed *f)
{
    if (f->kind == CGS_SRC_CACHE_INDEX) {
        index_text(d, f);
        f->text_len = 0;
        return;
    }
    if (f->line_len && !f->skipping) {
        f->cut_end = true;
        one_line(d, f, f->line, f->line_len);
        f->cut_end = false;
        f->line_len = 0;
    }
    if (f->pending)
        trace_record(d, f);
}

void cgs_feed_idle(struct cgs_dash *d, struct cgs_feed *f)
{
    if (f->kind == CGS_SRC_CACHE_INDEX) {
        index_text(d, f);
        f->text_len = 0;
    } else if (f->pending) {
        trace_record(d, f);
    }
}

int cgs_dash_read_file(struct cgs_dash *d, const char *path, enum cgs_src_kind kind,
                       struct cgs_diag *err)
{
    struct cgs_feed f;
    char *buf;
    size_t len;
    if (cgs_read_file(path, &buf, &len, (size_t)16 << 30, err))
        return -1;
    if (kind == CGS_SRC_CACHE_INDEX && len) { /* what a wrong file is, when its bytes tell */
        enum cgs_input_kind k = cgs_sniff(buf, len < CGS_SNIFF_HEAD ? len : CGS_SNIFF_HEAD, path);
        if (k != CGS_IN_CACHE_INDEX && k != CGS_IN_TEXT && k != CGS_IN_JSON &&
            k != CGS_IN_UNKNOWN && k != CGS_IN_WIDE_TEXT) {
            cgs_sniff_refuse(err, path, k, "a compile-cache index");
            free(buf);
            return -1;
        }
    }
    cgs_feed_init(&f, path, kind);
    cgs_feed_data(d, &f, buf, len);
    cgs_feed_flush(d, &f);
    cgs_feed_release(&f);
    free(buf);
    return 0;
}

/* ---- cells ------------------------------------------------------------------------------ */

#define CGS_DASH_COL_ROW_(id, nm, w, fl) [CGS_DASH_COL_##id] = {nm, w, fl},
const struct cgs_dash_column cgs_dash_columns[CGS_DASH_COL_COUNT] = {
    CGS_DASH_COLUMNS(CGS_DASH_COL_ROW_)};
#undef CGS_DASH_COL_ROW_
#define CGS_DASH_COL_NAME_(id, nm, w, fl) [CGS_DASH_COL_##id] = nm,
const char *const cgs_dash_col_names[CGS_DASH_COL_COUNT] = {CGS_DASH_COLUMNS(CGS_DASH_COL_NAME_)};
#undef CGS_DASH_COL_NAME_

double cgs_dash_row_rate(const struct cgs_dash_row *r)
{
    return r->hits + r->misses ? (double)r->hits / (double)(r->hits + r->misses) : -1;
}

static void age_text(double now, double ts, char *out, size_t n)
{
    double a = now - ts;
    if (!(ts > 0) || !(now > 0) || a < 0)
        snprintf(out, n, "-");
    else if (a < 60)
        snprintf(out, n, "%.0fs", a);
    else if (a < 3600)
        snprintf(out, n, "%.0fm", a / 60);
    else if (a < 86400)
        snprintf(out, n, "%.0fh", a / 3600);
    else
        snprintf(out, n, "%.0fd", a / 86400);
}

/* Whether path ends with the components tail ("a/x.log" ends "x.log", "a/x.log"). */
static bool ends_with_components(const char *path, const char *tail)
{
    size_t lp = strlen(path), lt = strlen(tail);
    return lp == lt ? !strcmp(path, tail)
                    : lp > lt && path[lp - lt - 1] == '/' && !strcmp(path + lp - lt, tail);
}

/* A source as the source column names it: its file name, or as many of its last components as
 * tell it from every other source (two runs' folders each with rank_0.log: "main/rank_0.log",
 * "pr/rank_0.log"). */
static const char *source_label(const struct cgs_dash *d, uint32_t i)
{
    const char *name = d->sources[i], *end = name + strlen(name), *at = end;
    for (;;) {
        bool shared = false;
        if (at > name && at < end)
            at--; /* over the '/' before the last candidate: one component more */
        while (at > name && at[-1] != '/')
            at--;
        for (uint32_t k = 0; k < d->n_sources && !shared; k++)
            shared = k != i && ends_with_components(d->sources[k], at);
        if (!shared || at == name)
            return at;
    }
}

void cgs_dash_row_cell(const struct cgs_dash *d, const struct cgs_dash_row *r, enum cgs_dash_col c,
                       double now, char *out, size_t n)
{
    double rate = cgs_dash_row_rate(r);
    switch (c) {
    case CGS_DASH_COL_SOURCE:
        snprintf(out, n, "%s", r->source < d->n_sources ? source_label(d, r->source) : "-");
        break;
    case CGS_DASH_COL_RANK:
        if (r->rank >= 0)
            snprintf(out, n, "%d", r->rank);
        else
            snprintf(out, n, "-");
        break;
    case CGS_DASH_COL_KEY:
        if (r->trace && r->run > 1)
            snprintf(out, n, "%s@%d", r->compile_id ? r->compile_id : "?", r->run);
        else if (r->trace)
            snprintf(out, n, "%s", r->compile_id ? r->compile_id : "?");
        else if (r->has_graph_index && r->compile_id) /* the bridge: "0 (1/0)", index and graph */
            snprintf(out, n, "%lld (%s)", (long long)r->graph_index, r->compile_id);
        else if (r->has_graph_index)
            snprintf(out, n, "%lld", (long long)r->graph_index);
        else if (r->piece && r->compile_id)
            snprintf(out, n, "%s (%s)", r->piece, r->compile_id);
        else
            snprintf(out, n, "%s", r->piece ? r->piece : r->compile_id ? r->compile_id : "-");
        break;
    case CGS_DASH_COL_SHAPE:
        if (r->trace)
            snprintf(out, n, "-");
        else if (r->dynamic)
            snprintf(out, n, "dynamic");
        else
            snprintf(out, n, "%lld", (long long)r->runtime_shape);
        break;
    case CGS_DASH_COL_BACKEND:
        snprintf(out, n, "%s", r->backend ? r->backend : "-");
        break;
    case CGS_DASH_COL_HITS: snprintf(out, n, "%llu", (unsigned long long)r->hits); break;
    case CGS_DASH_COL_MISSES: snprintf(out, n, "%llu", (unsigned long long)r->misses); break;
    case CGS_DASH_COL_BYPASS: snprintf(out, n, "%llu", (unsigned long long)r->bypasses); break;
    case CGS_DASH_COL_RATE:
        if (rate < 0)
            snprintf(out, n, "-");
        else
            snprintf(out, n, "%.0f%%", rate * 100);
        break;
    case CGS_DASH_COL_COMPILES: snprintf(out, n, "%llu", (unsigned long long)r->compiles); break;
    case CGS_DASH_COL_COMPILE_MS:
        if (r->trace && !r->has_compile_ms)
            snprintf(out, n, "-");
        else
            snprintf(out, n, "%.1f", r->compile_ms);
        break;
    case CGS_DASH_COL_LAST_MS: snprintf(out, n, "%.1f", r->last_compile_ms); break;
    case CGS_DASH_COL_RUNS: snprintf(out, n, "%llu", (unsigned long long)r->runs); break;
    case CGS_DASH_COL_RECOMPILES:
        snprintf(out, n, "%llu", (unsigned long long)r->recompiles);
        break;
    case CGS_DASH_COL_CAPTURES:
        snprintf(out, n, "%llu", (unsigned long long)r->captures);
        break;
    case CGS_DASH_COL_AGE: age_text(now, r->last_ts, out, n); break;
    case CGS_DASH_COL_WHAT: {
        /* the frame, and the first reason with how many more there are (each on its line in
           the detail view and in top --once's "recompiles" section) */
        size_t more = 0, k;
        for (const char *p = r->reason ? strchr(r->reason, '\n') : NULL; p; p = strchr(p + 1, '\n'))
            more++;
        if (r->fail_type && !r->limit_hit)
            snprintf(out, n, "%s%sfailed: %s: %s", r->frame ? r->frame : "", r->frame ? ": " : "",
                     r->fail_type, r->fail_reason ? r->fail_reason : "");
        else if (r->limit_hit)
            snprintf(out, n, "%s%srecompile limit reached, runs without compiling: %s",
                     r->frame ? r->frame : "", r->frame ? ": " : "", r->reason ? r->reason : "");
        else
            snprintf(out, n, "%s%s%s%s", r->frame ? r->frame : "",
                     r->frame && r->reason ? ": " : "", r->reason ? r->reason : "",
                     r->indexed && !r->reason && !r->frame ? "in the cache index" : "");
        k = strcspn(out, "\n");
        out[k] = '\0';
        if (more && k + 24 < n)
            snprintf(out + k, n - k, " (+%zu more)", more);
        break;
    }
    case CGS_DASH_COL_COUNT: out[0] = '\0'; break;
    }
}

static double sort_value(const struct cgs_dash_row *r, enum cgs_dash_col c)
{
    switch (c) {
    case CGS_DASH_COL_HITS: return (double)r->hits;
    case CGS_DASH_COL_MISSES: return (double)r->misses;
    case CGS_DASH_COL_BYPASS: return (double)r->bypasses;
    case CGS_DASH_COL_RATE: return cgs_dash_row_rate(r);
    case CGS_DASH_COL_COMPILES: return (double)r->compiles;
    case CGS_DASH_COL_COMPILE_MS: return r->compile_ms;
    case CGS_DASH_COL_LAST_MS: return r->last_compile_ms;
    case CGS_DASH_COL_RUNS: return (double)r->runs;
    case CGS_DASH_COL_RECOMPILES: return (double)r->recompiles;
    case CGS_DASH_COL_CAPTURES: return (double)r->captures;
    case CGS_DASH_COL_AGE: return r->last_ts;
    default: return 0;
    }
}

static enum cgs_dash_col sort_col;

static int by_col(const void *a, const void *b)
{
    const struct cgs_dash_row *x = *(const struct cgs_dash_row *const *)a,
                              *y = *(const struct cgs_dash_row *const *)b;
    double vx = sort_value(x, sort_col), vy = sort_value(y, sort_col);
    if (vx != vy)
        return vx < vy ? 1 : -1; /* largest first */
    return x < y ? -1 : x > y;
}

uint32_t cgs_dash_view(const struct cgs_dash *d, enum cgs_dash_col sort, const char *filter,
                       double now, const struct cgs_dash_row ***out)
{
    const struct cgs_dash_row **v = cgs_xcalloc(d->n_rows ? d->n_rows : 1, sizeof(*v));
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const struct cgs_dash_row *r = d->rows[i];
        if (filter && *filter) {
            char cell[512];
            bool hit = false;
            for (int c = 0; c < CGS_DASH_COL_COUNT && !hit; c++) {
                cgs_dash_row_cell(d, r, (enum cgs_dash_col)c, now, cell, sizeof(cell));
                hit = strstr(cell, filter) != NULL;
            }
            if (!hit)
                continue;
        }
        v[n++] = r;
    }
    if (sort != CGS_DASH_COL_KEY && sort < CGS_DASH_COL_COUNT) {
        sort_col = sort;
        qsort(v, n, sizeof(*v), by_col);
    }
    *out = v;
    return n;
}

/* "[hash] name: value" -> the name's extent, the hash's and the value. */
static bool component(const char *c, const char **name, size_t *name_len, const char **hash,
                      size_t *hash_len, const char **value)
{
    const char *close, *colon;
    if (c[0] != '[' || !(close = strchr(c, ']')))
        return false;
    *hash = c + 1;
    *hash_len = (size_t)(close - c - 1);
    *name = close + 1 + (close[1] == ' ');
    colon = strstr(*name, ": ");
    *name_len = colon ? (size_t)(colon - *name) : strcspn(*name, "\n");
    *value = colon ? colon + 2 : "";
    return true;
}

uint32_t cgs_lookup_differs(const struct cgs_dash_lookup *a, const struct cgs_dash_lookup *b,
                            void (*fn)(void *ctx, const char *name, size_t name_len,
                                       const char *a_value, const char *b_value),
                            void *ctx)
{
    uint32_t n = 0;
    for (int side = 0; side < 2; side++) {
        const struct cgs_dash_lookup *x = side ? b : a, *y = side ? a : b;
        for (uint32_t i = 0; i < x->n_components; i++) {
            const char *nm, *hs, *val, *nm2, *hs2, *val2 = NULL;
            size_t nl, hl, nl2, hl2;
            bool found = false, same = false;
            if (!component(x->components[i], &nm, &nl, &hs, &hl, &val))
                continue;
            for (uint32_t k = 0; k < y->n_components && !found; k++) {
                const char *v2;
                if (component(y->components[k], &nm2, &nl2, &hs2, &hl2, &v2) && nl == nl2 &&
                    !strncmp(nm, nm2, nl)) {
                    found = true;
                    same = hl == hl2 && !strncmp(hs, hs2, hl);
                    val2 = v2;
                }
            }
            if (same || (found && side))
                continue; /* a component in both is reported once, from a's side */
            if (side)
                fn(ctx, nm, nl, NULL, val);
            else
                fn(ctx, nm, nl, val, found ? val2 : NULL);
            n++;
        }
    }
    return n;
}

/* "rank|compile id|cache", the lookups' pairing key, into the arena. */
static const char *lookup_key(struct cgs_arena *keys, int rank, const char *cid, const char *cache)
{
    struct cgs_buf b = CGS_BUF_INIT;
    const char *k;
    cgs_buf_addf(&b, "%d|%s|%s", rank, cid, cache);
    k = cgs_arena_strdup(keys, b.buf);
    cgs_buf_release(&b);
    return k;
}

void cgs_lookups_pair(const struct cgs_dash *a, const struct cgs_dash *b, int rank_a, int rank_b,
                      const char *(*cid)(void *ctx, const struct cgs_dash_lookup *x), void *ctx,
                      uint32_t *partner, bool *used)
{
    uint32_t na = a ? a->n_lookups : 0, nb = b ? b->n_lookups : 0;
    /* b's lookups by key: the first unpaired one of each, then the next (chains built back to
       front, so in order) */
    struct cgs_strmap *first = cgs_strmap_new();
    uint32_t *next = cgs_xcalloc((size_t)nb + 1, sizeof(*next));
    const char **keys = cgs_xcalloc((size_t)nb + 1, sizeof(*keys));
    struct cgs_arena arena;
    cgs_arena_init(&arena);
    for (uint32_t k = nb; k-- > 0;) {
        const struct cgs_dash_lookup *y = &b->lookups[k];
        keys[k] = lookup_key(&arena, rank_b >= 0 && y->rank == rank_b ? rank_a : y->rank,
                             y->compile_id, y->cache);
        next[k] = (uint32_t)(uintptr_t)cgs_strmap_get(first, keys[k]);
        cgs_strmap_set(first, keys[k], (void *)(uintptr_t)(k + 1));
        used[k] = false;
    }
    for (uint32_t i = 0; i < na; i++) {
        const struct cgs_dash_lookup *x = &a->lookups[i];
        const char *c = cid ? cid(ctx, x) : x->compile_id;
        uint32_t k = c ? (uint32_t)(uintptr_t)cgs_strmap_get(
                             first, lookup_key(&arena, x->rank, c, x->cache))
                       : 0;
        partner[i] = k ? k - 1 : UINT32_MAX;
        if (k) {
            used[k - 1] = true;
            cgs_strmap_set(first, keys[k - 1], (void *)(uintptr_t)next[k - 1]);
        }
    }
    cgs_strmap_free(first);
    cgs_arena_release(&arena);
    free(keys);
    free(next);
}
