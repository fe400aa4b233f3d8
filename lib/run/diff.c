/* What changed between two runs (see diff.h). */
#include "lib/run/diff.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/base/strmap.h"
#include "lib/ir/symexpr.h"
#include "lib/writers/report-json.h"

#define CGS_DIFF_NAME_(id, name) name,
const char *const cgs_diff_kind_names[CGS_DIFF_KIND_COUNT + 1] = {CGS_DIFF_KINDS(CGS_DIFF_NAME_)
                                                                       NULL};
#undef CGS_DIFF_NAME_

int cgs_diff_kind_from_name(const char *name)
{
    for (int k = 0; k < CGS_DIFF_KIND_COUNT; k++)
        if (name && !strcmp(name, cgs_diff_kind_names[k]))
            return k;
    return -1;
}

#define EXAMPLES 3 /* nodes named in a change's message */

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap, ap2;
    char *s;
    int n;
    va_start(ap, f);
    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, f, ap2);
    va_end(ap2);
    s = cgs_xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

static const char *base_name(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p ? p : "?";
}

static struct cgs_diff_change *add(struct cgs_diff *d, enum cgs_diff_kind kind, char *subject,
                                   char *a, char *b, char *message, bool worse)
{
    struct cgs_diff_change *c;
    CGS_ALLOC_GROW(d->changes, d->n_changes + 1, d->alloc_changes);
    c = &d->changes[d->n_changes++];
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    c->subject = subject;
    c->a = a ? a : cgs_xstrdup("");
    c->b = b ? b : cgs_xstrdup("");
    c->message = message;
    c->worse = worse;
    c->rank = -1;
    return c;
}

/* Where in B a change is (the page marks it there). */
static void where(struct cgs_diff_change *c, int rank, const char *compile_ids, const char *graph)
{
    c->rank = rank;
    if (compile_ids && *compile_ids)
        c->compile_ids = cgs_xstrdup(compile_ids);
    if (graph)
        c->graph = cgs_xstrdup(graph);
}

static void add_pair(struct cgs_diff *d, const char *what, const char *a, const char *b)
{
    struct cgs_diff_pair *p;
    CGS_ALLOC_GROW(d->pairs, d->n_pairs + 1, d->alloc_pairs);
    p = &d->pairs[d->n_pairs++];
    p->what = what;
    p->a = a ? cgs_xstrdup(a) : NULL;
    p->b = b ? cgs_xstrdup(b) : NULL;
}

/* ---- ranks ---------------------------------------------------------------------------------- */

/* B's rank as A's (d NULL: a rank of A's, as it is): two runs of one rank each, different ranks
 * (rank 0's log against rank 3's: why does one rank compile differently?), pair rank with
 * rank (d->rank_a, d->rank_b); otherwise ranks pair with themselves. */
static int brank(const struct cgs_diff *d, int r)
{
    return d && d->rank_b >= 0 && r == d->rank_b ? d->rank_a : r;
}

/* The one rank of a run, -1 when it has none or several. */
static int only_rank(const struct cgs_diff_input *in)
{
    int r = -2;
    for (uint32_t i = 0; in->dash && i < in->dash->n_rows; i++) {
        const struct cgs_dash_row *x = in->dash->rows[i];
        if (!x->trace)
            continue;
        if (x->rank < 0 || (r != -2 && r != x->rank))
            return -1;
        r = x->rank;
    }
    for (uint32_t i = 0; i < in->n_graphs; i++) {
        if (!in->graphs[i].compile_id)
            continue;
        if (in->graphs[i].rank < 0 || (r != -2 && r != in->graphs[i].rank))
            return -1;
        r = in->graphs[i].rank;
    }
    return r < 0 ? -1 : r;
}

/* ---- frames and compiles ------------------------------------------------------------------ */

/* A frame of one process: its compiles (rows) in the order the log made them. */
struct frame {
    char *key;   /* "rank|run|file:name#nth": what pairs it */
    char *label; /* "fn (model.py)" */
    int rank, run;
    long frame_id;
    const struct cgs_dash_row **rows;
    uint32_t n, alloc;
    struct frame *partner;
};

/* Where a compile id is among a side's frames: a chain, in frame order, per "rank|cid". */
struct cid_at {
    uint32_t frame, row, next; /* next: index + 1 into at, 0 at the end */
};

struct frames {
    struct frame *v;
    uint32_t n, alloc;
    struct cgs_arena keys;      /* the maps' keys */
    struct cgs_strmap *by_key;  /* frame key -> index + 1 */
    struct cgs_strmap *by_cid;  /* "rank|cid" -> index + 1 into at, its chain's head */
    struct cid_at *at;
};

static long frame_id_of(const char *cid)
{
    const char *p = cid;
    while (p && *p && (*p < '0' || *p > '9'))
        p++;
    return p && *p ? strtol(p, NULL, 10) : -1;
}

/* A map key built in a side's arena. */
static const char *key_of(struct frames *fs, const char *f, ...)
    __attribute__((format(printf, 2, 3)));
static const char *key_of(struct frames *fs, const char *f, ...)
{
    char buf[640];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof(buf), f, ap);
    va_end(ap);
    return cgs_arena_strdup(&fs->keys, buf);
}

static void frames_of(const struct cgs_dash *d, struct frames *out, const struct cgs_diff *b_side)
{
    struct cgs_strmap *by_id, *nth_of;
    memset(out, 0, sizeof(*out));
    cgs_arena_init(&out->keys);
    by_id = cgs_strmap_new();
    for (uint32_t i = 0; d && i < d->n_rows; i++) {
        const struct cgs_dash_row *r = d->rows[i];
        long fid;
        uint32_t k;
        const char *id;
        if (!r->trace || !r->compile_id)
            continue;
        fid = frame_id_of(r->compile_id);
        int rr = brank(b_side, r->rank);
        id = key_of(out, "%d|%d|%ld", rr, r->run, fid);
        k = (uint32_t)(uintptr_t)cgs_strmap_get(by_id, id);
        if (k) {
            k--;
        } else {
            struct frame *f;
            CGS_ALLOC_GROW(out->v, out->n + 1, out->alloc);
            k = out->n;
            f = &out->v[out->n++];
            memset(f, 0, sizeof(*f));
            f->rank = rr;
            f->run = r->run;
            f->frame_id = fid;
            cgs_strmap_put(by_id, id, (void *)(uintptr_t)out->n);
        }
        {
            struct frame *f = &out->v[k];
            CGS_ALLOC_GROW(f->rows, f->n + 1, f->alloc);
            f->rows[f->n++] = r;
        }
    }
    cgs_strmap_free(by_id);
    /* each frame's key: its code object, numbered where one process has it twice */
    nth_of = cgs_strmap_new();
    out->by_key = cgs_strmap_new();
    for (uint32_t k = 0; k < out->n; k++) {
        struct frame *f = &out->v[k];
        const struct cgs_dash_row *named = NULL;
        char base[512];
        int nth = 0;
        for (uint32_t j = 0; j < f->n && !named; j++)
            if (f->rows[j]->co_name)
                named = f->rows[j];
        if (named)
            snprintf(base, sizeof(base), "%s:%s", base_name(named->co_filename), named->co_name);
        else
            snprintf(base, sizeof(base), "frame %ld", f->frame_id);
        f->label = named ? fmt("%s (%s)", named->co_name, base_name(named->co_filename))
                         : fmt("frame %ld", f->frame_id);
        {
            const char *same = key_of(out, "%d|%d|%s", f->rank, f->run, f->label);
            nth = (int)(uintptr_t)cgs_strmap_get(nth_of, same);
            cgs_strmap_set(nth_of, same, (void *)(uintptr_t)(nth + 1));
        }
        f->key = fmt("%d|%d|%s#%d", f->rank, f->run, base, nth);
        cgs_strmap_put(out->by_key, f->key, (void *)(uintptr_t)(k + 1));
    }
    cgs_strmap_free(nth_of);
    /* each compile id's places, frames in order (chains built back to front) */
    {
        uint32_t n_at = 0;
        for (uint32_t k = 0; k < out->n; k++)
            n_at += out->v[k].n;
        out->at = cgs_xcalloc((size_t)n_at + 1, sizeof(*out->at));
        out->by_cid = cgs_strmap_new();
        for (uint32_t k = out->n; k-- > 0;)
            for (uint32_t j = out->v[k].n; j-- > 0;) {
                const char *id = key_of(out, "%d|%s", out->v[k].rank,
                                        out->v[k].rows[j]->compile_id);
                uint32_t head = (uint32_t)(uintptr_t)cgs_strmap_get(out->by_cid, id);
                out->at[--n_at] = (struct cid_at){k, j, head};
                cgs_strmap_set(out->by_cid, id, (void *)(uintptr_t)(n_at + 1));
            }
    }
}

static void frames_release(struct frames *fs)
{
    for (uint32_t k = 0; k < fs->n; k++) {
        free(fs->v[k].key);
        free(fs->v[k].label);
        free(fs->v[k].rows);
    }
    free(fs->v);
    free(fs->at);
    cgs_strmap_free(fs->by_key);
    cgs_strmap_free(fs->by_cid);
    cgs_arena_release(&fs->keys);
}

static bool failed(const struct cgs_dash_row *r)
{
    return r->fail_type && !r->limit_hit;
}

static char *rank_prefix(const struct cgs_diff *d, int rank)
{
    if (d->rank_b >= 0 && (rank == d->rank_a || rank == d->rank_b))
        return fmt("rank %d (A) against rank %d (B): ", d->rank_a, d->rank_b);
    return rank >= 0 ? fmt("rank %d: ", rank) : cgs_xstrdup("");
}

static void compile_ids(const struct frame *f, uint32_t from, struct cgs_buf *b)
{
    for (uint32_t j = from; j < f->n; j++)
        cgs_buf_addf(b, "%s%s", j > from ? ", " : "", f->rows[j]->compile_id);
}

/* A time that moved past the bounds of a change: the larger of the two past the smaller by a
 * share of it (slower or faster alike), and by a floor (ms). */
static bool past(double ma, double mb, const struct cgs_diff_opts *o)
{
    double lo = ma < mb ? ma : mb, hi = ma < mb ? mb : ma;
    return ma > 0 && mb > 0 && hi - lo >= o->compile_time_ms &&
           (hi - lo) * 100 / lo >= o->compile_time_pct;
}

static void frame_changes(const struct frames *fa, const struct frames *fb,
                          const struct cgs_diff_opts *o, struct cgs_diff *d)
{
    /* pair by key (unique within a side) */
    for (uint32_t i = 0; i < fa->n; i++) {
        uint32_t k = (uint32_t)(uintptr_t)cgs_strmap_get(fb->by_key, fa->v[i].key);
        if (k && !fb->v[k - 1].partner) {
            fa->v[i].partner = &fb->v[k - 1];
            fb->v[k - 1].partner = &fa->v[i];
        }
    }
    for (int side = 0; side < 2; side++) {
        const struct frames *fs = side ? fb : fa;
        for (uint32_t i = 0; i < fs->n; i++) {
            const struct frame *f = &fs->v[i];
            char *rp = rank_prefix(d, f->rank);
            if (!f->partner) {
                struct cgs_buf ids = CGS_BUF_INIT;
                compile_ids(f, 0, &ids);
                add_pair(d, "frame", side ? NULL : f->label, side ? f->label : NULL);
                where(add(d, CGS_DIFF_GRAPH, fmt("%sframe %s", rp, f->label),
                          side ? NULL : fmt("compiled (%s)", ids.buf),
                          side ? fmt("compiled (%s)", ids.buf) : NULL,
                          fmt("%sframe %s compiled only in %s (%s)", rp, f->label,
                              side ? "B" : "A", ids.buf),
                          false),
                      f->rank, side ? ids.buf : NULL, NULL);
                cgs_buf_release(&ids);
                /* its failures are new (or gone) */
                for (uint32_t j = 0; j < f->n; j++)
                    if (failed(f->rows[j]))
                        where(add(d, CGS_DIFF_COMPILE_FAILURE,
                            fmt("%scompile %s %s", rp, f->rows[j]->compile_id, f->label),
                            side ? NULL : fmt("%s", f->rows[j]->fail_type),
                            side ? fmt("%s", f->rows[j]->fail_type) : NULL,
                            fmt("%scompile %s of %s %s: %s%s%s", rp, f->rows[j]->compile_id,
                                f->label, side ? "fails in B" : "failed in A, not in B",
                                f->rows[j]->fail_type,
                                f->rows[j]->fail_reason ? ": " : "",
                                f->rows[j]->fail_reason ? f->rows[j]->fail_reason : ""),
                            side == 1),
                              f->rank, side ? f->rows[j]->compile_id : NULL, NULL);
            } else if (!side) {
                const struct frame *g = f->partner;
                add_pair(d, "frame", f->label, g->label);
                for (uint32_t j = 0; j < f->n && j < g->n; j++) {
                    const struct cgs_dash_row *ra = f->rows[j], *rb = g->rows[j];
                    add_pair(d, "compile", ra->compile_id, rb->compile_id);
                    if (failed(ra) != failed(rb)) {
                        const struct cgs_dash_row *x = failed(rb) ? rb : ra;
                        where(add(d, CGS_DIFF_COMPILE_FAILURE,
                            fmt("%scompile %s %s", rp, rb->compile_id, g->label),
                            failed(ra) ? cgs_xstrdup(ra->fail_type) : cgs_xstrdup("compiled"),
                            failed(rb) ? cgs_xstrdup(rb->fail_type) : cgs_xstrdup("compiled"),
                            fmt("%scompile %s of %s %s: %s%s%s", rp, rb->compile_id, g->label,
                                failed(rb) ? "fails in B" : "failed in A, compiles in B",
                                x->fail_type, x->fail_reason ? ": " : "",
                                x->fail_reason ? x->fail_reason : ""),
                            failed(rb)),
                              g->rank, rb->compile_id, NULL);
                    }
                }
                if (f->n != g->n) {
                    const struct frame *more = g->n > f->n ? g : f;
                    uint32_t from = g->n > f->n ? f->n : g->n;
                    struct cgs_buf why = CGS_BUF_INIT, ids = CGS_BUF_INIT;
                    compile_ids(more, from, &ids);
                    for (uint32_t j = from; j < more->n; j++)
                        if (more->rows[j]->reason && !strstr(why.buf, more->rows[j]->reason))
                            cgs_buf_addf(&why, "%s%s", why.len ? "; " : "",
                                         more->rows[j]->reason);
                    for (char *p = why.buf; *p; p++) /* one line: the reasons' lines joined */
                        if (*p == '\n')
                            *p = ';';
                    for (uint32_t j = from; j < more->n; j++)
                        add_pair(d, "compile", more == f ? more->rows[j]->compile_id : NULL,
                                 more == g ? more->rows[j]->compile_id : NULL);
                    where(add(d, CGS_DIFF_RECOMPILES, fmt("%sframe %s", rp, g->label),
                        fmt("%u compile%s", f->n, f->n == 1 ? "" : "s"),
                        fmt("%u compile%s", g->n, g->n == 1 ? "" : "s"),
                        fmt("%sframe %s compiled %u time%s in A, %u in B (%s %s only)%s%s", rp,
                            g->label, f->n, f->n == 1 ? "" : "s", g->n, ids.buf,
                            more == g ? "in B" : "in A", why.len ? ": " : "", why.buf),
                        g->n > f->n),
                          g->rank, more == g ? ids.buf : NULL, NULL);
                    cgs_buf_release(&why);
                    cgs_buf_release(&ids);
                }
                /* compile time, compile by compile (a recompile's own time is not the
                   paired compile's; a compile that failed on either side is that change) */
                for (uint32_t j = 0; j < f->n && j < g->n; j++) {
                    const struct cgs_dash_row *ra = f->rows[j], *rb = g->rows[j];
                    if (failed(ra) || failed(rb))
                        continue;
                    double ma = ra->has_compile_ms ? ra->compile_ms : -1;
                    double mb = rb->has_compile_ms ? rb->compile_ms : -1;
                    bool total = past(ma, mb, o);
                    struct cgs_buf phases = CGS_BUF_INIT;
                    /* the phases under Dynamo's (which is the whole compile) past the same
                       bounds: where the time went, or a phase that moved alone */
                    for (int p = CGS_DASH_PHASE_DYNAMO + 1; p < CGS_DASH_PHASE_COUNT; p++)
                        if (past(ra->phase_ms[p], rb->phase_ms[p], o))
                            cgs_buf_addf(&phases, "%s%s %.0f -> %.0f ms (%+.0f%%)",
                                         phases.len ? ", " : "", cgs_dash_phase_names[p],
                                         ra->phase_ms[p], rb->phase_ms[p],
                                         (rb->phase_ms[p] - ra->phase_ms[p]) * 100 /
                                             ra->phase_ms[p]);
                    if (ma > 0 && mb >= 0 && (total || phases.len)) {
                        struct cgs_diff_change *c = add(
                            d, CGS_DIFF_COMPILE_TIME,
                            fmt("%scompile %s %s", rp, rb->compile_id, g->label),
                            fmt("%.0f ms", ma), fmt("%.0f ms", mb),
                            fmt("%scompile %s of %s took %.0f ms in A, %.0f ms in B (%+.0f%%)%s%s",
                                rp, rb->compile_id, g->label, ma, mb, (mb - ma) * 100 / ma,
                                phases.len ? "; by phase: " : "", phases.buf),
                            total && mb > ma);
                        c->pct = (mb - ma) * 100 / ma;
                        c->cost = fabs(mb - ma);
                        where(c, g->rank, rb->compile_id, NULL);
                    }
                    cgs_buf_release(&phases);
                }
            }
            free(rp);
        }
    }
}

/* The compile of side B paired with compile cid of rank/run on side A (run < 0: in the first
 * run where it has a partner), or NULL. */
static const char *partner_cid(const struct frames *fa, int rank, int run, const char *cid,
                               bool *frame_paired, bool *failed_pair)
{
    char id[640];
    uint32_t at, seen = UINT32_MAX;
    *frame_paired = *failed_pair = false;
    if (!fa->by_cid)
        return NULL;
    snprintf(id, sizeof(id), "%d|%s", rank, cid);
    /* the frames that hold it, in order (a compile id is one frame's in a run) */
    for (at = (uint32_t)(uintptr_t)cgs_strmap_get(fa->by_cid, id); at; at = fa->at[at - 1].next) {
        const struct frame *f = &fa->v[fa->at[at - 1].frame];
        uint32_t j = fa->at[at - 1].row;
        const char *b;
        if ((run >= 0 && f->run != run) || fa->at[at - 1].frame == seen)
            continue; /* another run's, or its frame's first row said it */
        seen = fa->at[at - 1].frame;
        b = f->partner && j < f->partner->n ? f->partner->rows[j]->compile_id : NULL;
        *frame_paired = f->partner != NULL;
        *failed_pair = b && (failed(f->rows[j]) || failed(f->partner->rows[j]));
        if (b || run >= 0)
            return b;
    }
    return NULL;
}

/* ---- cache lookups ------------------------------------------------------------------------ */

static const char *const lookup_names[] = {"hit", "miss", "bypass"};

static void name_differing(void *ctx, const char *name, size_t nl, const char *a, const char *b)
{
    struct cgs_buf *out = ctx;
    cgs_buf_addf(out, "%s%.*s%s", out->len ? ", " : "", (int)(nl < 200 ? nl : 200), name,
                 a && b ? "" : a ? " (only in A)" : " (only in B)");
}

/* Each cache lookup of a compile paired with B's of the paired compile and the same cache, in
 * order; a status that changed (a cache that stopped hitting) or a key that differs, with the
 * components of the key that differ (what `cache diff` says), one change per cache, change of
 * status and differing components, naming every compile it concerns. */
struct cache_group {
    char *what; /* cache | status A | status B | components */
    char *cache, *why;
    int rank;
    enum cgs_lookup sa, sb;
    struct cgs_buf ids;
    uint32_t n;
};

/* The compile of B a lookup of A pairs with: its compile's partner, in whichever run. */
static const char *lookup_partner(void *ctx, const struct cgs_dash_lookup *x)
{
    bool paired_frame;
    bool failed_pair;
    return partner_cid(ctx, x->rank, -1, x->compile_id, &paired_frame, &failed_pair);
}

static void cache_changes(const struct cgs_dash *da, const struct cgs_dash *db,
                          const struct frames *fa, struct cgs_diff *d)
{
    uint32_t na = da ? da->n_lookups : 0, nb = db ? db->n_lookups : 0, ng = 0, alloc_g = 0;
    bool *used = cgs_xcalloc(nb + 1, 1);
    uint32_t *partner = cgs_xcalloc(na + 1, sizeof(*partner));
    struct cache_group *gs = NULL;
    cgs_lookups_pair(da, db, d->rank_a, d->rank_b, lookup_partner, (void *)fa, partner, used);
    for (uint32_t i = 0; i < na; i++) {
        const struct cgs_dash_lookup *x = &da->lookups[i];
        const struct cgs_dash_lookup *y =
            partner[i] == UINT32_MAX ? NULL : &db->lookups[partner[i]];
        struct cgs_buf why = CGS_BUF_INIT;
        char *what;
        uint32_t g;
        if (!y)
            continue; /* a compile only one run made: its frame's or recompiles' change says it */
        if (x->status == y->status && !(x->key && y->key && strcmp(x->key, y->key)))
            continue;
        /* two ranks' runs: their inputs live on different devices, so keys always differ; only
           a change of status says something there */
        if (x->status == y->status && d->rank_b >= 0)
            continue;
        cgs_lookup_differs(x, y, name_differing, &why);
        what = fmt("%d|%s|%d|%d|%s", y->rank, y->cache, (int)x->status, (int)y->status, why.buf);
        for (g = 0; g < ng && strcmp(gs[g].what, what); g++)
            ;
        if (g == ng) {
            CGS_ALLOC_GROW(gs, ng + 1, alloc_g);
            memset(&gs[ng], 0, sizeof(gs[ng]));
            gs[ng].what = what;
            gs[ng].cache = cgs_xstrdup(y->cache);
            gs[ng].why = cgs_xstrdup(why.len ? why.buf
                                             : x->key && y->key && strcmp(x->key, y->key)
                                                   ? "(the components were not logged)"
                                                   : "");
            gs[ng].rank = y->rank;
            gs[ng].sa = x->status;
            gs[ng].sb = y->status;
            cgs_buf_init(&gs[ng].ids);
            ng++;
        } else {
            free(what);
        }
        if (!strstr(gs[g].ids.buf, y->compile_id))
            cgs_buf_addf(&gs[g].ids, "%s%s", gs[g].ids.len ? ", " : "", y->compile_id);
        gs[g].n++;
        cgs_buf_release(&why);
    }
    for (uint32_t g = 0; g < ng; g++) {
        struct cache_group *c = &gs[g];
        char *rp = rank_prefix(d, c->rank);
        struct cgs_diff_change *ch = add(
            d, CGS_DIFF_CACHE_KEY, fmt("%scache %s", rp, c->cache),
            fmt("%s", lookup_names[c->sa]), fmt("%s", lookup_names[c->sb]),
            fmt("%sthe %s cache: %s in A, %s in B, %u lookup%s (compile%s %s)%s%s", rp, c->cache,
                lookup_names[c->sa], lookup_names[c->sb], c->n, c->n == 1 ? "" : "s",
                strchr(c->ids.buf, ',') ? "s" : "", c->ids.buf,
                *c->why ? "; the key differs in " : "", c->why),
            c->sa == CGS_LOOKUP_HIT && c->sb != CGS_LOOKUP_HIT);
        ch->cost = c->n;
        where(ch, c->rank, c->ids.buf, NULL);
        free(rp);
        free(c->what);
        free(c->cache);
        free(c->why);
        cgs_buf_release(&c->ids);
    }
    free(gs);
    free(used);
    free(partner);
}

/* ---- graph breaks ------------------------------------------------------------------------- */

static char *break_key(const struct cgs_dash_break *b, const struct cgs_dash_break *all,
                       uint32_t upto, const struct cgs_diff *b_side)
{
    int rank = brank(b_side, b->rank);
    char what[256];
    int nth = 0;
    const char *r = b->title ? b->title : b->reason ? b->reason : "?";
    snprintf(what, sizeof(what), "%.*s", (int)strcspn(r, "\n"), r);
    for (uint32_t j = 0; j < upto; j++) {
        const char *q = all[j].title ? all[j].title : all[j].reason ? all[j].reason : "?";
        if (all[j].rank == b->rank &&
            !strcmp(base_name(all[j].user_file ? all[j].user_file : all[j].file),
                    base_name(b->user_file ? b->user_file : b->file)) &&
            !strncmp(q, what, strlen(what)))
            nth++;
    }
    return fmt("%d|%s|%s#%d", rank, base_name(b->user_file ? b->user_file : b->file), what,
               nth);
}

static char *break_site(const struct cgs_dash_break *b)
{
    const char *r = b->title ? b->title : b->reason ? b->reason : "graph break";
    return fmt("%s:%lld (%.*s)", base_name(b->user_file ? b->user_file : b->file),
               (long long)(b->user_file ? b->user_line : b->line), (int)strcspn(r, "\n"), r);
}

static void break_changes(const struct cgs_dash *da, const struct cgs_dash *db, struct cgs_diff *d)
{
    uint32_t na = da ? da->n_breaks : 0, nb = db ? db->n_breaks : 0;
    char **ka = cgs_xcalloc(na + 1, sizeof(*ka)), **kb = cgs_xcalloc(nb + 1, sizeof(*kb));
    bool *used = cgs_xcalloc(nb + 1, 1);
    for (uint32_t i = 0; i < na; i++)
        ka[i] = break_key(&da->breaks[i], da->breaks, i, NULL);
    for (uint32_t i = 0; i < nb; i++)
        kb[i] = break_key(&db->breaks[i], db->breaks, i, d);
    for (uint32_t i = 0; i < na; i++) {
        const struct cgs_dash_break *x = &da->breaks[i];
        uint32_t k = 0;
        char *site = break_site(x), *rp = rank_prefix(d, x->rank);
        while (k < nb && (used[k] || strcmp(ka[i], kb[k])))
            k++;
        if (k == nb) {
            add(d, CGS_DIFF_GRAPH_BREAK, fmt("%s%s", rp, site), fmt("%llu hit%s",
                (unsigned long long)x->hits, x->hits == 1 ? "" : "s"), NULL,
                fmt("%sgraph break gone: %s (in A: %s)", rp, site, x->compile_ids ? x->compile_ids
                                                                                   : "?"),
                false);
        } else {
            const struct cgs_dash_break *y = &db->breaks[k];
            used[k] = true;
            if (x->hits != y->hits)
                add(d, CGS_DIFF_GRAPH_BREAK, fmt("%s%s", rp, site),
                    fmt("%llu hit%s", (unsigned long long)x->hits, x->hits == 1 ? "" : "s"),
                    fmt("%llu hit%s", (unsigned long long)y->hits, y->hits == 1 ? "" : "s"),
                    fmt("%sgraph break %s met %llu time%s in A, %llu in B", rp, site,
                        (unsigned long long)x->hits, x->hits == 1 ? "" : "s",
                        (unsigned long long)y->hits),
                    false); /* the same break met by more compiles: recompiles say why */
            if (x->hits != y->hits)
                where(&d->changes[d->n_changes - 1], y->rank, y->compile_ids, NULL);
        }
        free(site);
        free(rp);
    }
    for (uint32_t k = 0; k < nb; k++) {
        const struct cgs_dash_break *y = &db->breaks[k];
        char *site, *rp;
        if (used[k])
            continue;
        site = break_site(y);
        rp = rank_prefix(d, y->rank);
        where(add(d, CGS_DIFF_GRAPH_BREAK, fmt("%s%s", rp, site), NULL,
            fmt("%llu hit%s", (unsigned long long)y->hits, y->hits == 1 ? "" : "s"),
            fmt("%sgraph break added: %s (in B: %s)%s%s", rp, site,
                y->compile_ids ? y->compile_ids : "?", y->reason ? ": " : "",
                y->reason ? y->reason : ""),
            true),
              y->rank, y->compile_ids, NULL);
        free(site);
        free(rp);
    }
    for (uint32_t i = 0; i < na; i++)
        free(ka[i]);
    for (uint32_t i = 0; i < nb; i++)
        free(kb[i]);
    free(ka);
    free(kb);
    free(used);
}

/* ---- graphs ------------------------------------------------------------------------------- */

static const struct cgs_val *value_of(const struct cgs_diff_graph *x, uint32_t i)
{
    const struct cgs_shape_node *r = x->shapes && i < x->shapes->n_nodes ? &x->shapes->nodes[i]
                                                                         : NULL;
    return r && r->reported ? r->reported : x->g->nodes[i]->val;
}

/* A value's parts as text: dtypes, shapes and strides (a list's items joined with "; "), and
 * whether any dimension is a symbol. */
struct parts {
    struct cgs_buf dtype, shape, stride;
    bool symbolic, tensor;
};

static void parts_of(const struct cgs_val *v, struct parts *p, int depth)
{
    if (!v || depth > 8)
        return;
    if (v->kind == CGS_VAL_LIST) {
        for (uint32_t i = 0; i < v->n; i++) {
            if (i) {
                cgs_buf_addstr(&p->dtype, "; ");
                cgs_buf_addstr(&p->shape, "; ");
                cgs_buf_addstr(&p->stride, "; ");
            }
            parts_of(&v->u.items[i], p, depth + 1);
        }
        return;
    }
    if (v->kind != CGS_VAL_TENSOR) {
        cgs_val_describe(v, &p->shape);
        if (v->kind == CGS_VAL_SYMINT && v->u.s.sym && !cgs_sym_is_int(v->u.s.sym, NULL))
            p->symbolic = true;
        return;
    }
    p->tensor = true;
    cgs_buf_addstr(&p->dtype, cgs_dtype_abbr(v->u.t.dtype));
    if (v->u.t.ndim == CGS_NDIM_UNKNOWN) {
        cgs_buf_addstr(&p->shape, "[?]");
        return;
    }
    cgs_buf_addch(&p->shape, '[');
    for (uint32_t i = 0; i < v->u.t.ndim; i++) {
        const struct cgs_sym *e = v->u.t.shape[i];
        if (i)
            cgs_buf_addstr(&p->shape, ", ");
        if (!e)
            cgs_buf_addch(&p->shape, '?');
        else {
            cgs_sym_print(e, &p->shape);
            if (!cgs_sym_is_int(e, NULL))
                p->symbolic = true;
        }
    }
    cgs_buf_addch(&p->shape, ']');
    if (v->u.t.stride) {
        cgs_buf_addch(&p->stride, '[');
        for (uint32_t i = 0; i < v->u.t.ndim; i++) {
            if (i)
                cgs_buf_addstr(&p->stride, ", ");
            if (v->u.t.stride[i])
                cgs_sym_print(v->u.t.stride[i], &p->stride);
            else
                cgs_buf_addch(&p->stride, '?');
        }
        cgs_buf_addch(&p->stride, ']');
    }
}

static void parts_init(struct parts *p)
{
    cgs_buf_init(&p->dtype);
    cgs_buf_init(&p->shape);
    cgs_buf_init(&p->stride);
    p->symbolic = p->tensor = false;
}

static void parts_release(struct parts *p)
{
    cgs_buf_release(&p->dtype);
    cgs_buf_release(&p->shape);
    cgs_buf_release(&p->stride);
}

/* A placeholder named by its position (AOTAutograd's and Inductor's arg0_1, primals_1,
 * tangents_1): its prefix ("arg"), else NULL (a name the program chose, like Dynamo's l_x_). */
static const char *positional(const char *name, size_t *len)
{
    static const char *const prefixes[] = {"arg", "primals_", "tangents_"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        size_t n = strlen(prefixes[i]);
        const char *p = name + n;
        if (strncmp(name, prefixes[i], n) || !isdigit((unsigned char)*p))
            continue;
        while (isdigit((unsigned char)*p))
            p++;
        if (i == 0 && *p == '_' && isdigit((unsigned char)p[1]))
            for (p++; isdigit((unsigned char)*p);)
                p++;
        if (*p)
            continue;
        *len = n;
        return prefixes[i];
    }
    return NULL;
}

/* Where a node comes from in the program: each frame of its stack trace as "function: code",
 * without files and line numbers (an edit above it moves those), "" without a stack trace. */
static void code_context(const struct cgs_graph *g, const struct cgs_node *n, struct cgs_buf *out)
{
    const char *st = cgs_node_stack_trace(g, n), *p;
    cgs_buf_reset(out);
    for (p = st; p && (p = strstr(p, "File \"")); ) {
        const char *in = strstr(p, ", in "), *eol = strchr(p, '\n'), *code, *end;
        if (!in || (eol && in > eol))
            break;
        in += 5;
        cgs_buf_addf(out, "%s%.*s:", out->len ? " | " : "",
                     (int)(eol ? (size_t)(eol - in) : strlen(in)), in);
        if (!eol)
            break;
        for (code = eol + 1; *code == ' '; code++)
            ;
        end = strchr(code, '\n');
        if (strncmp(code, "File \"", 6))
            cgs_buf_addf(out, " %.*s", (int)(end ? (size_t)(end - code) : strlen(code)), code);
        p = end ? end : code + strlen(code);
    }
}

/* How many times key was met before in seen (0 the first time), this time counted; a key met
 * first is copied into owned. */
static unsigned long uses_before(struct cgs_strmap *seen, struct cgs_arena *owned, const char *key)
{
    uintptr_t n = (uintptr_t)cgs_strmap_get(seen, key);
    if (!n)
        cgs_strmap_put(seen, cgs_arena_strdup(owned, key), (void *)(uintptr_t)1);
    else
        cgs_strmap_set(seen, key, (void *)(n + 1));
    return (unsigned long)n;
}

/* The structural key of node i: a placeholder by its name (the program's argument names), or
 * by its position among the inputs of its kind where the name is only a position (so that a
 * symbolic size put before them moves nothing); every other node by its operator, where it
 * comes from in the program (code_context) and its nth use of both. */
static char **node_keys(const struct cgs_graph *g)
{
    char **k = cgs_xcalloc((size_t)g->n_nodes + 1, sizeof(*k));
    struct cgs_strmap *seen = cgs_strmap_new();
    struct cgs_arena owned;
    struct cgs_buf ctx = CGS_BUF_INIT, key = CGS_BUF_INIT;
    uint32_t ph = 0, pos[3] = {0, 0, 0};
    cgs_arena_init(&owned);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        const char *t = n->target ? n->target : "", *pre;
        size_t len;
        if (n->op == CGS_NODE_PLACEHOLDER) {
            const char *name = n->target ? n->target : n->name;
            if (n->val && n->val->kind == CGS_VAL_SYMINT)
                k[i] = fmt("placeholder:symint#%u", ph++);
            else if ((pre = positional(name, &len)))
                k[i] = fmt("placeholder:%.*s#%u", (int)len, pre,
                           pos[pre[0] == 'a' ? 0 : pre[0] == 'p' ? 1 : 2]++);
            else
                k[i] = fmt("placeholder:%s", name);
            continue;
        }
        if (n->op == CGS_NODE_OUTPUT) {
            k[i] = cgs_xstrdup("output");
            continue;
        }
        code_context(g, n, &ctx);
        cgs_buf_reset(&key);
        cgs_buf_addf(&key, "%s:%s@%s", cgs_node_op_names[n->op], t, ctx.buf);
        k[i] = fmt("%s#%lu", key.buf, uses_before(seen, &owned, key.buf));
    }
    cgs_strmap_free(seen);
    cgs_arena_release(&owned);
    cgs_buf_release(&ctx);
    cgs_buf_release(&key);
    return k;
}

/* A node whose key the other graph does not have (its code moved, or the program reached it
 * another way) is keyed again by its operator and its nth use among the nodes of that operator
 * left without a partner, on both sides: what pairs is first where both come from, then the
 * order of what is left. */
static void unpaired_by_use(const struct cgs_graph *g, char **k, const bool *paired)
{
    struct cgs_strmap *seen = cgs_strmap_new();
    struct cgs_arena owned;
    cgs_arena_init(&owned);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        const char *t = n->target ? n->target : "";
        char *key;
        if (n->op == CGS_NODE_PLACEHOLDER || n->op == CGS_NODE_OUTPUT || paired[i])
            continue;
        key = fmt("%s:%s", cgs_node_op_names[n->op], t);
        free(k[i]);
        k[i] = fmt("%s#~%lu", key, uses_before(seen, &owned, key));
        free(key);
    }
    cgs_strmap_free(seen);
    cgs_arena_release(&owned);
}

static void pair_keys(const struct cgs_graph *ga, const struct cgs_graph *gb, char ***ka,
                      char ***kb)
{
    struct cgs_strmap *in_a = cgs_strmap_new(), *in_b = cgs_strmap_new();
    bool *pa = cgs_xcalloc((size_t)ga->n_nodes + 1, 1);
    bool *pb = cgs_xcalloc((size_t)gb->n_nodes + 1, 1);
    *ka = node_keys(ga);
    *kb = node_keys(gb);
    for (uint32_t i = 0; i < ga->n_nodes; i++)
        cgs_strmap_put(in_a, (*ka)[i], (void *)(uintptr_t)1);
    for (uint32_t i = 0; i < gb->n_nodes; i++)
        cgs_strmap_put(in_b, (*kb)[i], (void *)(uintptr_t)1);
    for (uint32_t i = 0; i < ga->n_nodes; i++)
        pa[i] = cgs_strmap_get(in_b, (*ka)[i]) != NULL;
    for (uint32_t i = 0; i < gb->n_nodes; i++)
        pb[i] = cgs_strmap_get(in_a, (*kb)[i]) != NULL;
    cgs_strmap_free(in_a);
    cgs_strmap_free(in_b);
    unpaired_by_use(ga, *ka, pa);
    unpaired_by_use(gb, *kb, pb);
    free(pa);
    free(pb);
}

static void free_keys(char **k, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(k[i]);
    free(k);
}

struct vchange {
    uint32_t n;
    struct cgs_buf examples, a, b;
};

static void vc_add(struct vchange *v, const char *name, const char *x, const char *y)
{
    if (v->n < EXAMPLES) {
        cgs_buf_addf(&v->examples, "%s%s: %s -> %s", v->n ? ", " : "", name, x, y);
        cgs_buf_addf(&v->a, "%s%s: %s", v->n ? ", " : "", name, x);
        cgs_buf_addf(&v->b, "%s%s: %s", v->n ? ", " : "", name, y);
    }
    v->n++;
}

static const char *const value_words[] = {"symbols", "shapes", "dtypes", "strides"};

static void graph_values(const struct cgs_diff_graph *xa, const struct cgs_diff_graph *xb,
                         char **ka, const struct cgs_strmap *bmap, const char *subject,
                         struct cgs_diff *d)
{
    /* index 0 symbols, 1 shapes, 2 dtypes, 3 strides */
    static const enum cgs_diff_kind kinds[4] = {CGS_DIFF_SYMBOLS, CGS_DIFF_SHAPES,
                                                CGS_DIFF_DTYPES, CGS_DIFF_STRIDES};
    struct vchange vc[4];
    for (int k = 0; k < 4; k++) {
        vc[k].n = 0;
        cgs_buf_init(&vc[k].examples);
        cgs_buf_init(&vc[k].a);
        cgs_buf_init(&vc[k].b);
    }
    for (uint32_t i = 0; i < xa->g->n_nodes; i++) {
        uintptr_t j = (uintptr_t)cgs_strmap_get(bmap, ka[i]);
        const struct cgs_node *na = xa->g->nodes[i];
        const struct cgs_val *va, *vb;
        struct parts pa, pb;
        if (!j || na->op == CGS_NODE_OUTPUT)
            continue;
        va = value_of(xa, i);
        vb = value_of(xb, (uint32_t)(j - 1));
        if (!va || !vb)
            continue;
        parts_init(&pa);
        parts_init(&pb);
        parts_of(va, &pa, 0);
        parts_of(vb, &pb, 0);
        if (strcmp(pa.dtype.buf, pb.dtype.buf))
            vc_add(&vc[2], xb->g->nodes[j - 1]->name, pa.dtype.buf, pb.dtype.buf);
        if (strcmp(pa.shape.buf, pb.shape.buf))
            vc_add(&vc[pa.symbolic != pb.symbolic ? 0 : 1], xb->g->nodes[j - 1]->name,
                   pa.shape.buf, pb.shape.buf);
        else if (pa.stride.len && pb.stride.len && strcmp(pa.stride.buf, pb.stride.buf))
            vc_add(&vc[3], xb->g->nodes[j - 1]->name, pa.stride.buf, pb.stride.buf);
        parts_release(&pa);
        parts_release(&pb);
    }
    for (int k = 0; k < 4; k++) {
        if (vc[k].n) {
            struct cgs_diff_change *c = add(
                d, kinds[k], cgs_xstrdup(subject), cgs_buf_detach(&vc[k].a),
                cgs_buf_detach(&vc[k].b),
                fmt("%s: %u node%s changed %s%s: %s%s", subject, vc[k].n, vc[k].n == 1 ? "" : "s",
                    value_words[k],
                    k == 0 ? " (a dimension static in one run is a symbol in the other)" : "",
                    vc[k].examples.buf, vc[k].n > EXAMPLES ? ", ..." : ""),
                false);
            c->cost = vc[k].n;
        }
        cgs_buf_release(&vc[k].examples);
        cgs_buf_release(&vc[k].a);
        cgs_buf_release(&vc[k].b);
    }
}

/* Operators by count: what B has more of and what it has less of, with the nodes. */
/* Whether node i of a side with keys k has a partner on the other side (keyed in other). */
static bool has_partner(char **k, uint32_t i, const struct cgs_strmap *other)
{
    return cgs_strmap_get(other, k[i]) != NULL;
}

static void graph_ops(const struct cgs_diff_graph *xa, const struct cgs_diff_graph *xb,
                      char **ka, char **kb, const struct cgs_strmap *node_a,
                      const struct cgs_strmap *node_b, const char *subject, struct cgs_diff *d)
{
    struct cgs_strmap *ca = cgs_strmap_new(), *cb = cgs_strmap_new();
    const char **targets = NULL;
    uint32_t n_t = 0, alloc_t = 0;
    struct cgs_buf a = CGS_BUF_INIT, b = CGS_BUF_INIT, m = CGS_BUF_INIT;
    int changed = 0;
    for (int side = 0; side < 2; side++) {
        const struct cgs_graph *g = side ? xb->g : xa->g;
        struct cgs_strmap *c = side ? cb : ca;
        for (uint32_t i = 0; i < g->n_nodes; i++) {
            const struct cgs_node *n = g->nodes[i];
            uintptr_t v;
            if (n->op != CGS_NODE_CALL_FUNCTION && n->op != CGS_NODE_CALL_METHOD &&
                n->op != CGS_NODE_CALL_MODULE)
                continue;
            v = (uintptr_t)cgs_strmap_get(c, n->target);
            if (!v && !cgs_strmap_get(side ? ca : cb, n->target)) {
                CGS_ALLOC_GROW(targets, n_t + 1, alloc_t);
                targets[n_t++] = n->target;
            }
            if (!v)
                cgs_strmap_put(c, n->target, (void *)(uintptr_t)1);
            else
                cgs_strmap_set(c, n->target, (void *)(v + 1));
        }
    }
    for (uint32_t t = 0; t < n_t; t++) {
        uintptr_t x = (uintptr_t)cgs_strmap_get(ca, targets[t]);
        uintptr_t y = (uintptr_t)cgs_strmap_get(cb, targets[t]);
        const struct cgs_graph *g = y > x ? xb->g : xa->g;
        char **k = y > x ? kb : ka;
        const struct cgs_strmap *other = y > x ? node_a : node_b;
        int shown = 0;
        if (x == y)
            continue;
        cgs_buf_addf(&a, "%s%s: %lu", changed ? ", " : "", targets[t], (unsigned long)x);
        cgs_buf_addf(&b, "%s%s: %lu", changed ? ", " : "", targets[t], (unsigned long)y);
        cgs_buf_addf(&m, "%s%+ld %s (", changed ? ", " : "", (long)y - (long)x, targets[t]);
        /* where: on the side with more of it, its uses without a partner on the other side,
           then its last uses */
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t i = g->n_nodes;
                 i-- > 0 && shown < EXAMPLES && shown < labs((long)y - (long)x);)
                if (g->nodes[i]->target && !strcmp(g->nodes[i]->target, targets[t]) &&
                    g->nodes[i]->op != CGS_NODE_PLACEHOLDER &&
                    g->nodes[i]->op != CGS_NODE_OUTPUT && g->nodes[i]->op != CGS_NODE_GET_ATTR &&
                    has_partner(k, i, other) == (pass == 1))
                    cgs_buf_addf(&m, "%s%s", shown++ ? ", " : "", g->nodes[i]->name);
        cgs_buf_addf(&m, " in %s)", y > x ? "B" : "A");
        changed++;
    }
    if (changed) {
        struct cgs_diff_change *c =
            add(d, CGS_DIFF_OPS, cgs_xstrdup(subject), cgs_buf_detach(&a), cgs_buf_detach(&b),
                fmt("%s: operators %s", subject, m.buf), false);
        c->cost = changed;
    }
    cgs_buf_release(&a);
    cgs_buf_release(&b);
    cgs_buf_release(&m);
    cgs_strmap_free(ca);
    cgs_strmap_free(cb);
    free(targets);
}

bool cgs_diff_listed(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; p && (p = strstr(p, item)); p += n)
        if ((p == list || (p - list >= 2 && p[-2] == ',' && p[-1] == ' ')) &&
            (p[n] == ',' || !p[n]))
            return true;
    return false;
}

static uint32_t compiled_pieces(const struct cgs_split *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; s && i < s->n_pieces; i++)
        n += !s->pieces[i].is_splitting_graph;
    return n;
}

static void graph_pieces(const struct cgs_diff_graph *xa, const struct cgs_diff_graph *xb,
                         char **ka, char **kb, const struct cgs_strmap *node_b,
                         const char *subject, struct cgs_diff *d)
{
    struct cgs_buf cuts = CGS_BUF_INIT, gone = CGS_BUF_INIT, names = CGS_BUF_INIT;
    struct cgs_strmap *starts_a = cgs_strmap_new(), *starts_b = cgs_strmap_new();
    uint32_t pa, pb;
    if (!(xa->piecewise || xb->piecewise) || !xa->split || !xb->split)
        goto out;
    /* a piece starts at its first node: the cuts, by the nodes' structural keys */
    for (int side = 0; side < 2; side++) {
        const struct cgs_split *s = side ? xb->split : xa->split;
        char **k = side ? kb : ka;
        for (uint32_t i = 1; i < s->n_pieces; i++)
            if (s->pieces[i].n_nodes)
                cgs_strmap_put(side ? starts_b : starts_a, k[s->pieces[i].nodes[0]->index],
                               (void *)s->pieces[i].nodes[0]->name);
    }
    for (uint32_t i = 1; i < xb->split->n_pieces; i++) {
        const struct cgs_node *n = xb->split->pieces[i].n_nodes ? xb->split->pieces[i].nodes[0]
                                                                : NULL;
        if (n && !cgs_strmap_get(starts_a, kb[n->index])) {
            cgs_buf_addf(&cuts, "%s%s", cuts.len ? ", " : "", n->name);
            cgs_buf_addf(&names, "%s%s", names.len ? ", " : "", xb->split->pieces[i].name);
        }
    }
    for (uint32_t i = 1; i < xa->split->n_pieces; i++) {
        const struct cgs_node *n = xa->split->pieces[i].n_nodes ? xa->split->pieces[i].nodes[0]
                                                                : NULL;
        if (n && !cgs_strmap_get(starts_b, ka[n->index])) {
            /* B's piece that holds the node A cut before: it changed too */
            uintptr_t j = (uintptr_t)cgs_strmap_get(node_b, ka[n->index]);
            const struct cgs_split_piece *p =
                j ? cgs_split_piece_of(xb->split, xb->g->nodes[j - 1]) : NULL;
            cgs_buf_addf(&gone, "%s%s", gone.len ? ", " : "", n->name);
            if (p && !cgs_diff_listed(names.buf, p->name))
                cgs_buf_addf(&names, "%s%s", names.len ? ", " : "", p->name);
        }
    }
    pa = xa->split->n_pieces;
    pb = xb->split->n_pieces;
    if (pa != pb || cuts.len || gone.len) {
        struct cgs_diff_change *c = add(
            d, CGS_DIFF_PIECES, cgs_xstrdup(subject),
            fmt("%u pieces (%u compiled)", pa, compiled_pieces(xa->split)),
            fmt("%u pieces (%u compiled)", pb, compiled_pieces(xb->split)),
            fmt("%s: %u pieces in A, %u in B%s%s%s%s%s", subject, pa, pb,
                cuts.len ? "; new cuts before " : "", cuts.buf, gone.len ? "; cuts gone before "
                                                                          : "",
                gone.buf, gone.len ? " (A's names)" : ""),
            pb > pa);
        c->cost = fabs((double)pb - pa);
        if (names.len)
            c->pieces = cgs_xstrdup(names.buf);
    }
out:
    cgs_buf_release(&names);
    cgs_strmap_free(starts_a);
    cgs_strmap_free(starts_b);
    cgs_buf_release(&cuts);
    cgs_buf_release(&gone);
}

static void graph_layout(const struct cgs_diff_graph *xa, const struct cgs_diff_graph *xb,
                         const char *subject, struct cgs_diff *d)
{
    const struct cgs_layout *la = xa->layout, *lb = xb->layout;
    if (!la || !lb || (la->layout_opt == lb->layout_opt && la->rule == lb->rule))
        return;
    add(d, CGS_DIFF_LAYOUT, cgs_xstrdup(subject),
        fmt("layout optimisation %s (%s)", la->layout_opt ? "on" : "off", cgs_layout_rule_id(la->rule)),
        fmt("layout optimisation %s (%s)", lb->layout_opt ? "on" : "off", cgs_layout_rule_id(lb->rule)),
        fmt("%s: Inductor's layout optimisation %s in A, %s in B: %s", subject,
            la->layout_opt ? "on" : "off", lb->layout_opt ? "on" : "off",
            lb->reason ? lb->reason : ""),
        false);
}

static char *graph_subject(const struct cgs_diff_graph *x)
{
    char rank[32] = "";
    if (!x->compile_id)
        return fmt("graph %s", base_name(x->label));
    if (x->rank >= 0)
        snprintf(rank, sizeof(rank), "rank %d ", x->rank);
    return fmt("%sgraph %s:%s%s", rank, x->compile_id, x->stage ? x->stage : "?",
               x->backward ? " (backward)" : "");
}

static void compare_graphs(const struct cgs_diff_graph *xa, const struct cgs_diff_graph *xb,
                           struct cgs_diff *d)
{
    char *subject, **ka, **kb;
    if (!xa->g || !xb->g)
        return;
    subject = graph_subject(xb);
    pair_keys(xa->g, xb->g, &ka, &kb);
    /* B's nodes by structural key (index + 1): A's node pairs with the one of its key */
    struct cgs_strmap *node_b = cgs_strmap_new(), *node_a = cgs_strmap_new();
    for (uint32_t i = 0; i < xb->g->n_nodes; i++)
        cgs_strmap_put(node_b, kb[i], (void *)(uintptr_t)(i + 1));
    for (uint32_t i = 0; i < xa->g->n_nodes; i++)
        cgs_strmap_put(node_a, ka[i], (void *)(uintptr_t)(i + 1));
    uint32_t first = d->n_changes;
    graph_ops(xa, xb, ka, kb, node_a, node_b, subject, d);
    graph_values(xa, xb, ka, node_b, subject, d);
    graph_pieces(xa, xb, ka, kb, node_b, subject, d);
    graph_layout(xa, xb, subject, d);
    for (uint32_t i = first; i < d->n_changes; i++)
        where(&d->changes[i], xb->rank, xb->compile_id, xb->label);
    cgs_strmap_free(node_b);
    cgs_strmap_free(node_a);
    free_keys(ka, xa->g->n_nodes);
    free_keys(kb, xb->g->n_nodes);
    free(subject);
}

/* The symbols a graph's inputs carry ("s0, s1"), empty when it is static. */
static void input_symbols(const struct cgs_diff_graph *x, struct cgs_buf *out)
{
    for (uint32_t i = 0; x->g && i < x->g->n_nodes; i++) {
        struct parts p;
        if (x->g->nodes[i]->op != CGS_NODE_PLACEHOLDER)
            continue;
        parts_init(&p);
        parts_of(value_of(x, i), &p, 0);
        if (p.symbolic)
            cgs_buf_addf(out, "%s%s: %s", out->len ? ", " : "", x->g->nodes[i]->name,
                         p.shape.buf);
        parts_release(&p);
    }
}

/* What pairs a graph: a log's by rank (B's as A's), run, compile id, stage and direction; a
 * graph file by its file name. */
static void graph_key(const struct cgs_diff_graph *x, const struct cgs_diff *b_side,
                      const char *cid, struct cgs_buf *out)
{
    cgs_buf_reset(out);
    if (x->compile_id)
        cgs_buf_addf(out, "%d|%d|%d|%s|%s", brank(b_side, x->rank), x->occurrence, x->backward,
                     x->stage ? x->stage : "", cid);
    else
        cgs_buf_addf(out, "file|%s", base_name(x->label));
}

/* x with its graph read, into *tmp when the run reads graphs on demand (give it back with
 * give_back); x itself when it is read already or does not load. */
static const struct cgs_diff_graph *take(const struct cgs_diff_input *in,
                                         const struct cgs_diff_graph *x, struct cgs_diff_graph *tmp)
{
    if (x->g || !in->load)
        return x;
    *tmp = *x;
    return in->load(in->ctx, (uint32_t)(x - in->graphs), tmp) ? tmp : x;
}

static void give_back(const struct cgs_diff_input *in, const struct cgs_diff_graph *x,
                      const struct cgs_diff_graph *got)
{
    if (got != x && in->unload)
        in->unload(in->ctx, (uint32_t)(x - in->graphs));
}

static void graph_changes(const struct cgs_diff_input *a, const struct cgs_diff_input *b,
                          const struct frames *fa, const struct frames *fb, struct cgs_diff *d)
{
    bool *used = cgs_xcalloc((size_t)b->n_graphs + 1, 1);
    uint32_t files_a = 0, files_b = 0, first_file = 0;
    /* B's graphs by what pairs them: the first unpaired one of each key, then the next */
    uint32_t *next = cgs_xcalloc((size_t)b->n_graphs + 1, sizeof(*next));
    struct cgs_strmap *first = cgs_strmap_new();
    struct cgs_arena keys;
    struct cgs_buf key = CGS_BUF_INIT;
    cgs_arena_init(&keys);
    for (uint32_t i = 0; i < a->n_graphs; i++)
        files_a += !a->graphs[i].compile_id;
    for (uint32_t i = b->n_graphs; i-- > 0;) {
        const struct cgs_diff_graph *z = &b->graphs[i];
        const char *k;
        if (!z->compile_id) {
            files_b++;
            first_file = i + 1;
        } else if (!z->stage) {
            continue; /* pairs with nothing */
        }
        graph_key(z, d, z->compile_id, &key);
        k = cgs_arena_strdup(&keys, key.buf);
        next[i] = (uint32_t)(uintptr_t)cgs_strmap_get(first, k);
        cgs_strmap_set(first, k, (void *)(uintptr_t)(i + 1));
    }
    for (uint32_t i = 0; i < a->n_graphs; i++) {
        const struct cgs_diff_graph *x = &a->graphs[i];
        const struct cgs_diff_graph *y = NULL;
        bool frame_paired = false, failed_pair = false;
        if (x->compile_id) {
            const char *cid = partner_cid(fa, x->rank, x->occurrence, x->compile_id,
                                          &frame_paired, &failed_pair);
            if (cid && x->stage) {
                uint32_t k;
                graph_key(x, NULL, cid, &key);
                if ((k = (uint32_t)(uintptr_t)cgs_strmap_get(first, key.buf)) != 0) {
                    y = &b->graphs[k - 1];
                    used[k - 1] = true;
                    cgs_strmap_set(first, key.buf, (void *)(uintptr_t)next[k - 1]);
                }
            }
            if (!y && !frame_paired)
                continue; /* its frame's change says it */
            if (!y && !cid)
                continue; /* a compile the other run did not make: its recompiles say it */
            if (!y && failed_pair)
                continue; /* a stage the compile failed before in B: the failure says it */
        } else if (files_a == 1 && files_b == 1) {
            y = &b->graphs[first_file - 1]; /* the one graph of each side */
            used[first_file - 1] = true;
        } else {
            uint32_t k;
            graph_key(x, NULL, NULL, &key);
            if ((k = (uint32_t)(uintptr_t)cgs_strmap_get(first, key.buf)) != 0) {
                y = &b->graphs[k - 1];
                used[k - 1] = true;
                cgs_strmap_set(first, key.buf, (void *)(uintptr_t)next[k - 1]);
            }
        }
        add_pair(d, "graph", x->label, y ? y->label : NULL);
        {
            struct cgs_diff_graph ta, tb;
            const struct cgs_diff_graph *ga = take(a, x, &ta), *gb = y ? take(b, y, &tb) : NULL;
            if (!y)
                add(d, CGS_DIFF_GRAPH, graph_subject(x),
                    fmt("%u nodes", ga->g ? ga->g->n_nodes : 0), NULL,
                    fmt("graph %s only in A", x->label), false);
            else
                compare_graphs(ga, gb, d);
            give_back(a, x, ga);
            if (y)
                give_back(b, y, gb);
        }
    }
    for (uint32_t k = 0; k < b->n_graphs; k++) {
        const struct cgs_diff_graph *y = &b->graphs[k];
        bool frame_paired = false, in_a = false, failed_pair = false;
        if (used[k])
            continue;
        if (y->compile_id) {
            /* its compile has a partner in A (whose graph of this stage A lacks), or none */
            char id[640];
            uint32_t seen = UINT32_MAX;
            snprintf(id, sizeof(id), "%d|%s", brank(d, y->rank), y->compile_id);
            for (uint32_t at = fb->by_cid ? (uint32_t)(uintptr_t)cgs_strmap_get(fb->by_cid, id)
                                          : 0;
                 at && !in_a; at = fb->at[at - 1].next) {
                const struct frame *f = &fb->v[fb->at[at - 1].frame];
                uint32_t j = fb->at[at - 1].row;
                if (f->run != y->occurrence || fb->at[at - 1].frame == seen)
                    continue; /* another run's, or its frame's first row said it */
                seen = fb->at[at - 1].frame;
                frame_paired = f->partner != NULL;
                in_a = f->partner && j < f->partner->n;
                failed_pair = in_a && (failed(f->rows[j]) || failed(f->partner->rows[j]));
            }
            if (!frame_paired)
                continue; /* its frame's change says it */
            if (failed_pair)
                continue; /* a stage the compile failed before in A: the failure says it */
            if (!in_a) {
                /* a recompile only B made: whether its graph went dynamic */
                struct cgs_buf syms = CGS_BUF_INIT;
                if (y->stage && !strcmp(y->stage, "dynamo")) {
                    struct cgs_diff_graph tb;
                    const struct cgs_diff_graph *gb = take(b, y, &tb);
                    input_symbols(gb, &syms);
                    give_back(b, y, gb);
                }
                if (syms.len)
                    where(add(d, CGS_DIFF_SYMBOLS, graph_subject(y), NULL, cgs_xstrdup(syms.buf),
                              fmt("graph %s (a recompile only B made) takes symbolic inputs: %s",
                                  y->label, syms.buf),
                              false),
                          y->rank, y->compile_id, y->label);
                cgs_buf_release(&syms);
                add_pair(d, "graph", NULL, y->label);
                continue;
            }
        }
        add_pair(d, "graph", NULL, y->label);
        {
            struct cgs_diff_graph tb;
            const struct cgs_diff_graph *gb = take(b, y, &tb);
            where(add(d, CGS_DIFF_GRAPH, graph_subject(y), NULL,
                      fmt("%u nodes", gb->g ? gb->g->n_nodes : 0),
                      fmt("graph %s only in B", y->label), false),
                  y->rank, y->compile_id, y->label);
            give_back(b, y, gb);
        }
    }
    free(used);
    free(next);
    cgs_strmap_free(first);
    cgs_arena_release(&keys);
    cgs_buf_release(&key);
}

/* ---- GPU time ------------------------------------------------------------------------------- */

/* A side's calls: the median and quartiles of its samples (ascending), linearly interpolated. */
struct calls {
    double median, q1, q3;
    uint32_t n;
};

static double quantile(const struct cgs_prof_samples *s, double q)
{
    double at = q * (s->n - 1);
    uint32_t lo = (uint32_t)at;
    if (lo + 1 >= s->n)
        return (double)s->ns[s->n - 1];
    return s->ns[lo] + (at - lo) * ((double)s->ns[lo + 1] - (double)s->ns[lo]);
}

static struct calls calls_of(const struct cgs_prof_samples *s)
{
    struct calls c = {0, 0, 0, s->n};
    if (s->n) {
        c.median = quantile(s, 0.5);
        c.q1 = quantile(s, 0.25);
        c.q3 = quantile(s, 0.75);
    }
    return c;
}

#define GPU_FLOOR_NS 1000.0 /* a change under a microsecond a call is not reported */

/* Whether B's calls differ from A's past pct% of A's median, past the noise (the larger of the
 * two interquartile ranges) and past the floor. */
static bool timing_changed(const struct calls *a, const struct calls *b, double pct)
{
    double delta = fabs(b->median - a->median);
    double noise = fmax(a->q3 - a->q1, b->q3 - b->q1);
    return a->n && b->n && a->median > 0 && delta * 100 / a->median >= pct && delta > noise &&
           delta >= GPU_FLOOR_NS;
}

static void fmt_ns(char *out, size_t n, double ns)
{
    if (ns >= 1e6)
        snprintf(out, n, "%.2f ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(out, n, "%.1f us", ns / 1e3);
    else
        snprintf(out, n, "%.0f ns", ns);
}

/* "medians of 13 and 13 calls, spread (IQR) 2.1% and 2.1%": what a message's figures rest on */
static void fmt_noise(char *out, size_t n, const struct calls *a, const struct calls *b)
{
    snprintf(out, n, "medians of %u and %u call%s, spread (IQR) %.1f%% and %.1f%%", a->n, b->n,
             b->n == 1 ? "" : "s", a->median > 0 ? (a->q3 - a->q1) * 100 / a->median : 0,
             b->median > 0 ? (b->q3 - b->q1) * 100 / b->median : 0);
}

/* A kernel's name, cut for a message (C++ templates run to a thousand characters). */
static void short_name(char *out, size_t n, const char *name)
{
    if (strlen(name) < n)
        snprintf(out, n, "%s", name);
    else
        snprintf(out, n, "%.*s...", (int)(n - 4), name);
}

/* The graph of B a piece of the profile belongs to: the one whose compile id (a log's, or the
 * one a graph file records) is the piece name's graph part, its Dynamo graph first; for a
 * piece name without one, B's one graph file. NULL when not known. */
static const char *piece_graph(const struct cgs_diff_input *b, const char *group)
{
    size_t k = cgs_prof_graph_part(group);
    const struct cgs_diff_graph *found = NULL;
    uint32_t files = 0;
    for (uint32_t i = 0; i < b->n_graphs; i++) {
        const struct cgs_diff_graph *x = &b->graphs[i];
        const char *cid = x->compile_id ? x->compile_id
                          : x->g        ? x->g->producer.compile_id
                                        : NULL;
        bool dynamo = x->compile_id ? x->stage && !strcmp(x->stage, "dynamo")
                                    : x->g && x->g->producer.stage == CGS_STAGE_DYNAMO;
        if (!x->compile_id) {
            files++;
            if (!k)
                found = x;
        }
        if (k && cid && strlen(cid) == k && !strncmp(cid, group, k) && (!found || dynamo))
            found = x;
    }
    return found && (k || files == 1) ? found->label : NULL;
}

/* A group's kernels by name. */
static struct cgs_strmap *kernels_by_name(const struct cgs_prof_report *r,
                                          const struct cgs_prof_group *g)
{
    struct cgs_strmap *m = cgs_strmap_new();
    for (uint32_t i = 0; i < g->n_top; i++)
        cgs_strmap_put(m, r->kernels[g->top[i].kernel].name, (void *)&g->top[i]);
    return m;
}

/* One change of GPU time a call: a piece's, or a kernel's within a piece. */
static struct cgs_diff_change *gpu_change(struct cgs_diff *d, const struct calls *ca,
                                          const struct calls *cb, char *subject, const char *what,
                                          const char *extra)
{
    char ta[32], tb[32], noise[128];
    double pct = (cb->median - ca->median) * 100 / ca->median;
    struct cgs_diff_change *c;
    fmt_ns(ta, sizeof(ta), ca->median);
    fmt_ns(tb, sizeof(tb), cb->median);
    fmt_noise(noise, sizeof(noise), ca, cb);
    c = add(d, CGS_DIFF_GPU_TIME, subject, fmt("%s a call", ta), fmt("%s a call", tb),
            fmt("%s: GPU time a call %s in A, %s in B (%+.1f%%; %s)%s", what, ta, tb, pct, noise,
                extra ? extra : ""),
            cb->median > ca->median);
    c->pct = pct;
    c->cost = fabs(cb->median - ca->median) * cb->n; /* the time it costs the run */
    return c;
}

/* A's piece of B's piece name: the same name, or, where one run names pieces with their graph
 * ("0/0/submod_1", the bridge's names) and the other without (older runs), the same piece of
 * the one graph that has it. */
static const struct cgs_prof_group *partner_group(const struct cgs_prof_report *ra,
                                                  const char *name)
{
    const struct cgs_prof_group *g = cgs_prof_find(ra, name);
    size_t k = cgs_prof_graph_part(name);
    bool ambiguous;
    if (g)
        return g;
    if (k)
        return cgs_prof_find(ra, name + k + 1);
    return cgs_prof_find_piece(ra, NULL, name, &ambiguous);
}

static void gpu_changes(const struct cgs_diff_input *a, const struct cgs_diff_input *b,
                        const struct cgs_diff_opts *o, struct cgs_diff *d)
{
    const struct cgs_prof_report *ra = a->prof, *rb = b->prof;
    bool *paired_a;
    if (!ra || !rb)
        return;
    paired_a = cgs_xcalloc((size_t)ra->n_groups + 1, 1);
    for (uint32_t i = 0; i <= rb->n_groups; i++) {
        const struct cgs_prof_group *gb = i < rb->n_groups ? &rb->groups[i] : &rb->none;
        const struct cgs_prof_group *ga = i < rb->n_groups ? partner_group(ra, gb->name)
                                                           : &ra->none;
        const char *piece = gb->name + cgs_prof_graph_part(gb->name);
        const char *graph = i < rb->n_groups ? piece_graph(b, gb->name) : NULL;
        char label[512], kname[72];
        struct cgs_buf slower = CGS_BUF_INIT, only = CGS_BUF_INIT;
        struct calls ca, cb;
        struct cgs_strmap *in_a, *in_b;
        uint32_t first = d->n_changes;
        if (*piece == '/')
            piece++;
        if (i < rb->n_groups)
            snprintf(label, sizeof(label), "piece %s", gb->name);
        else
            snprintf(label, sizeof(label), "work in no piece");
        if (i < rb->n_groups)
            add_pair(d, "piece", ga ? ga->name : NULL, gb->name);
        if (ga && i < rb->n_groups)
            paired_a[ga - ra->groups] = true;
        if (!ga)
            continue; /* a piece only B ran: its graph's changes say why */
        in_a = kernels_by_name(ra, ga);
        in_b = kernels_by_name(rb, gb);
        /* its kernels, by name: each one's time a call (each launch outside every piece) */
        for (uint32_t k = 0; k < gb->n_top; k++) {
            const char *name = rb->kernels[gb->top[k].kernel].name;
            const struct cgs_prof_pk *pa = cgs_strmap_get(in_a, name);
            struct calls ka, kb;
            short_name(kname, sizeof(kname), *name ? name : "(unnamed)");
            if (!pa) {
                cgs_buf_addf(&only, "%s%s", only.len ? ", " : "", kname);
                continue;
            }
            ka = calls_of(&pa->per_call);
            kb = calls_of(&gb->top[k].per_call);
            if (timing_changed(&ka, &kb, o->gpu_time_pct)) {
                char *what = fmt("kernel %s in %s", kname, label);
                gpu_change(d, &ka, &kb, fmt("kernel %s in %s", name, label), what, NULL);
                cgs_buf_addf(&slower, "%s%s %+.0f%%", slower.len ? ", " : "", kname,
                             (kb.median - ka.median) * 100 / ka.median);
                free(what);
            }
        }
        ca = calls_of(&ga->per_call);
        cb = calls_of(&gb->per_call);
        if (i < rb->n_groups && timing_changed(&ca, &cb, o->gpu_time_pct)) {
            struct cgs_buf extra = CGS_BUF_INIT;
            bool first_a = true;
            for (uint32_t k = 0; k < ga->n_top; k++) {
                const char *name = ra->kernels[ga->top[k].kernel].name;
                if (!cgs_strmap_get(in_b, name)) {
                    short_name(kname, sizeof(kname), *name ? name : "(unnamed)");
                    cgs_buf_addf(&extra, "%s%s", first_a ? "; kernels only in A: " : ", ", kname);
                    first_a = false;
                }
            }
            if (slower.len)
                cgs_buf_addf(&extra, "; kernels that changed: %s", slower.buf);
            if (only.len)
                cgs_buf_addf(&extra, "; kernels only in B: %s", only.buf);
            /* a nanosecond more than its kernels' cost: the piece is said first */
            gpu_change(d, &ca, &cb, cgs_xstrdup(label), label, extra.buf)->cost += 1;
            cgs_buf_release(&extra);
        }
        for (uint32_t c = first; c < d->n_changes; c++) {
            where(&d->changes[c], -1, NULL, graph);
            if (graph && i < rb->n_groups)
                d->changes[c].pieces = cgs_xstrdup(piece);
        }
        cgs_buf_release(&slower);
        cgs_buf_release(&only);
        cgs_strmap_free(in_a);
        cgs_strmap_free(in_b);
    }
    for (uint32_t i = 0; i < ra->n_groups; i++) /* pieces only A ran: said as unpaired */
        if (!paired_a[i])
            add_pair(d, "piece", ra->groups[i].name, NULL);
    free(paired_a);
}

/* ---- the whole ------------------------------------------------------------------------------ */

static int by_cost(const void *x, const void *y)
{
    const struct cgs_diff_change *a = x, *b = y;
    if (a->worse != b->worse)
        return a->worse ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->cost != b->cost)
        return a->cost > b->cost ? -1 : 1;
    return strcmp(a->subject, b->subject);
}

void cgs_diff_build(const struct cgs_diff_input *a, const struct cgs_diff_input *b,
                    const struct cgs_diff_opts *opts, struct cgs_diff *out)
{
    struct cgs_diff_opts o = CGS_DIFF_OPTS_DEFAULT;
    struct frames fa, fb;
    if (opts)
        o = *opts;
    memset(out, 0, sizeof(*out));
    out->rank_a = out->rank_b = -1;
    {
        int ra = only_rank(a), rb = only_rank(b);
        if (ra >= 0 && rb >= 0 && ra != rb) {
            char x[16], y[16];
            out->rank_a = ra;
            out->rank_b = rb;
            snprintf(x, sizeof(x), "%d", ra);
            snprintf(y, sizeof(y), "%d", rb);
            add_pair(out, "rank", x, y);
        }
    }
    frames_of(a->dash, &fa, NULL);
    frames_of(b->dash, &fb, out);
    frame_changes(&fa, &fb, &o, out);
    break_changes(a->dash, b->dash, out);
    cache_changes(a->dash, b->dash, &fa, out);
    graph_changes(a, b, &fa, &fb, out);
    gpu_changes(a, b, &o, out);
    frames_release(&fa);
    frames_release(&fb);
    if (out->n_changes > 1)
        qsort(out->changes, out->n_changes, sizeof(*out->changes), by_cost);
}

void cgs_diff_release(struct cgs_diff *d)
{
    for (uint32_t i = 0; i < d->n_changes; i++) {
        free(d->changes[i].subject);
        free(d->changes[i].a);
        free(d->changes[i].b);
        free(d->changes[i].message);
        free(d->changes[i].graph);
        free(d->changes[i].pieces);
        free(d->changes[i].compile_ids);
    }
    for (uint32_t i = 0; i < d->n_pairs; i++) {
        free(d->pairs[i].a);
        free(d->pairs[i].b);
    }
    free(d->changes);
    free(d->pairs);
    memset(d, 0, sizeof(*d));
}
