/* The findings model (lib/run/findings.h). */
#include "lib/run/findings.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/base/strmap.h"

const char *const cgs_severity_names[CGS_SEV_COUNT + 1] = {"error", "warning", "note", NULL};

int cgs_severity_from_name(const char *name)
{
    for (int i = 0; name && i < CGS_SEV_COUNT; i++)
        if (!strcmp(name, cgs_severity_names[i]))
            return i;
    return -1;
}
#define CGS_FINDING_NAME_(id, name, anchor) [CGS_FINDING_##id] = name,
const char *const cgs_finding_kind_names[CGS_FINDING_KIND_COUNT] = {
    CGS_FINDING_KINDS(CGS_FINDING_NAME_)};
#undef CGS_FINDING_NAME_
#define CGS_FINDING_ANCHOR_(id, name, anchor) [CGS_FINDING_##id] = anchor,
const char *const cgs_finding_kind_anchors[CGS_FINDING_KIND_COUNT] = {
    CGS_FINDING_KINDS(CGS_FINDING_ANCHOR_)};
#undef CGS_FINDING_ANCHOR_

#define MAX_LISTED 12 /* subjects named in a list before "and N more" */

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    char *out;
    int n;
    va_start(ap, f);
    n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    out = cgs_xmalloc((size_t)(n > 0 ? n : 0) + 1);
    va_start(ap, f);
    vsnprintf(out, (size_t)(n > 0 ? n : 0) + 1, f, ap);
    va_end(ap);
    return out;
}

static char *dup0(const char *s)
{
    return s ? cgs_xstrdup(s) : NULL;
}

static struct cgs_finding *add(struct cgs_findings *out, enum cgs_finding_kind kind,
                               enum cgs_severity sev)
{
    struct cgs_finding *f;
    CGS_ALLOC_GROW(out->v, out->n + 1, out->alloc);
    f = &out->v[out->n++];
    memset(f, 0, sizeof(*f));
    f->kind = kind;
    f->severity = sev;
    return f;
}

/* A ", "-separated list that names MAX_LISTED items, then says how many more. */
struct list {
    struct cgs_buf b;
    uint32_t n;
};

static void list_add(struct list *l, const char *item)
{
    if (l->n < MAX_LISTED)
        cgs_buf_addf(&l->b, "%s%s", l->n ? ", " : "", item);
    l->n++;
}

/* An item already listed (among the first MAX_LISTED: the rest are counted, not kept). */
static bool list_has(const struct list *l, const char *item)
{
    return cgs_dash_id_in_list(l->b.buf, item);
}

static char *list_done(struct list *l)
{
    char *out;
    if (!l->n) {
        cgs_buf_release(&l->b);
        return NULL;
    }
    if (l->n > MAX_LISTED)
        cgs_buf_addf(&l->b, " and %u more", l->n - MAX_LISTED);
    out = cgs_buf_detach(&l->b);
    cgs_buf_release(&l->b);
    l->n = 0;
    return out;
}

/* "0/3" -> "0", "!1/0/2" -> "1/0": the frame part of a compile id (one code object). */
static size_t frame_part(const char *cid)
{
    const char *slash = strrchr(cid, '/');
    return slash ? (size_t)(slash - cid) : strlen(cid);
}

static void cid_text(const struct cgs_dash_row *r, char *out, size_t n)
{
    if (r->run > 1)
        snprintf(out, n, "%s@%d", r->compile_id, r->run);
    else
        snprintf(out, n, "%s", r->compile_id);
}

static const char *source_name(const struct cgs_dash *d, uint32_t src)
{
    return src < d->n_sources ? d->sources[src] : NULL;
}

static void evidence(struct cgs_finding *f, const struct cgs_dash *d, uint32_t src, uint64_t line)
{
    if (f->evidence_file || !source_name(d, src))
        return;
    f->evidence_file = cgs_xstrdup(source_name(d, src));
    f->evidence_line = line;
}

/* A message of several lines as one: its lines joined by a space, leading blanks dropped. */
static void one_line(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = s; p && *p && k + 1 < n; p++) {
        if (*p == '\n') {
            while (p[1] == ' ' || p[1] == '\t')
                p++;
            if (k && out[k - 1] != ' ')
                out[k++] = ' ';
            continue;
        }
        out[k++] = *p;
    }
    out[k] = '\0';
}

/* ---- compiles ---------------------------------------------------------------------------- */

/* The code object a trace row compiled: "name|file|line", or its frame id when the record
 * names none (torch's refusal at the recompile limit: taken from the frame's other rows). */
static void frame_key(const struct cgs_dash *d, const struct cgs_dash_row *r, char *out, size_t n,
                      const char **display)
{
    const struct cgs_dash_row *named = r->co_name ? r : NULL;
    size_t fp = frame_part(r->compile_id);
    for (uint32_t i = 0; i < d->n_rows && !named; i++) {
        const struct cgs_dash_row *o = d->rows[i];
        if (o->trace && o->co_name && o->source == r->source && o->rank == r->rank &&
            o->run == r->run && frame_part(o->compile_id) == fp &&
            !memcmp(o->compile_id, r->compile_id, fp))
            named = o;
    }
    if (named) {
        snprintf(out, n, "%s|%s|%lld", named->co_name,
                 named->co_filename ? named->co_filename : "", (long long)named->co_firstlineno);
        *display = named->frame;
    } else {
        snprintf(out, n, "#%u|%d|%d|%.*s", r->source, r->rank, r->run, (int)fp, r->compile_id);
        *display = NULL;
    }
}

static bool failed(const struct cgs_dash_row *r)
{
    return r->fail_type && !r->limit_hit;
}

static bool empty(const struct cgs_dash_row *r)
{
    return r->metrics && !r->fail_type &&
           (r->graph_op_count == 0 || (r->graph_op_count < 0 && !r->dynamo_graph));
}

void cgs_findings_compile_counts(const struct cgs_dash *d, struct cgs_compile_counts *c)
{
    memset(c, 0, sizeof(*c));
    if (!d)
        return;
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const struct cgs_dash_row *r = d->rows[i];
        if (!r->trace)
            continue;
        if (r->run > 0 && (uint64_t)r->run > c->runs)
            c->runs = (uint64_t)r->run;
        if (!r->metrics)
            continue;
        c->compiles++;
        if (r->limit_hit)
            c->refused++;
        else if (failed(r))
            c->failed++;
        else if (empty(r))
            c->empty++;
        else
            c->graphs++;
        if (cgs_dash_frame_compile(r->compile_id) > 0 && !r->limit_hit)
            c->recompiles++;
    }
}

static void failures(const struct cgs_dash *d, struct cgs_findings *out)
{
    bool *done = cgs_xcalloc(d->n_rows + 1, 1);
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const struct cgs_dash_row *r = d->rows[i];
        struct list ids = {CGS_BUF_INIT, 0}, ranks = {CGS_BUF_INIT, 0};
        char key[512], k2[512], cid[96], reason[1024], rk[16];
        const char *disp = NULL, *d2;
        struct cgs_finding *f;
        bool graph = false;
        if (!r->trace || done[i] || !failed(r))
            continue;
        frame_key(d, r, key, sizeof(key), &disp);
        f = add(out, CGS_FINDING_COMPILE_FAILURE, CGS_SEV_ERROR);
        for (uint32_t j = i; j < d->n_rows; j++) {
            const struct cgs_dash_row *o = d->rows[j];
            if (done[j] || !o->trace || !failed(o) || strcmp(o->fail_type, r->fail_type) ||
                strcmp(o->fail_reason ? o->fail_reason : "", r->fail_reason ? r->fail_reason : ""))
                continue;
            frame_key(d, o, k2, sizeof(k2), &d2);
            if (strcmp(key, k2))
                continue;
            done[j] = true;
            f->count++;
            graph |= o->dynamo_graph;
            cid_text(o, cid, sizeof(cid));
            if (!list_has(&ids, cid))
                list_add(&ids, cid);
            if (o->rank >= 0) {
                snprintf(rk, sizeof(rk), "%d", o->rank);
                if (!list_has(&ranks, rk))
                    list_add(&ranks, rk);
            }
            evidence(f, d, o->source, o->metrics_line);
        }
        f->frame = dup0(disp);
        f->compile_ids = list_done(&ids);
        f->ranks = list_done(&ranks);
        {
            /* the reason without what the finding gives apart (torch's hints, its link) and
             * without the developer's context */
            char kept[2048];
            size_t k = 0;
            for (const char *p = r->fail_reason; p && *p && k + 1 < sizeof(kept);) {
                size_t n = strcspn(p, "\n"), sp = strspn(p, " \t");
                bool drop = !strncmp(p + sp, "Hint: ", 6) ||
                            !strncmp(p + sp, "Developer debug context", 23) ||
                            !strncmp(p + sp, "For more details", 16);
                if (!drop) {
                    size_t m = n < sizeof(kept) - 2 - k ? n : sizeof(kept) - 2 - k;
                    memcpy(kept + k, p, m);
                    k += m;
                    kept[k++] = '\n';
                }
                p += n;
                p += *p == '\n';
            }
            while (k && (kept[k - 1] == '\n' || kept[k - 1] == ' '))
                k--;
            kept[k] = '\0';
            one_line(kept, reason, sizeof(reason));
        }
        f->message = fmt("%s of %s failed: %s%s%s%s", f->count > 1 ? "compiles" : "the compile",
                         disp ? disp : f->compile_ids, r->fail_type, reason[0] ? ": " : "",
                         reason,
                         graph ? " (Dynamo had made the graph: the backend or AOTAutograd failed "
                                 "on it)"
                               : "");
        f->hint = cgs_dash_hints(r->fail_reason, NULL);
        f->url = cgs_dash_url(r->fail_reason);
        if (!f->hint && r->fail_file)
            f->hint = fmt("the failure was raised at %s:%lld", r->fail_file,
                          (long long)r->fail_line);
        if (!f->hint && graph)
            f->hint = cgs_xstrdup("the graph the backend was given is in the log: `cgscope graphs "
                                  "LOG` lists it; run your backend on it alone to reproduce");
        f->cost = 1e12 + (double)f->count;
    }
    free(done);
}

/* +1 at a node that enters a torch.autocast region (Dynamo's _enter_autocast), -1 at one that
 * leaves it, else 0. */
static int autocast_mark(const struct cgs_node *n)
{
    size_t len = n->target ? strlen(n->target) : 0;
    if (n->op != CGS_NODE_CALL_FUNCTION || len < 15)
        return 0;
    if (len >= 16 && !strcmp(n->target + len - 16, "._enter_autocast"))
        return 1;
    if (!strcmp(n->target + len - 15, "._exit_autocast"))
        return -1;
    return 0;
}

/* Two tensor values of one shape whose dtypes differ (what autocast changes). */
static bool only_dtype_differs(const struct cgs_val *a, const struct cgs_val *b)
{
    if (!a || !b || a->kind != CGS_VAL_TENSOR || b->kind != CGS_VAL_TENSOR)
        return false;
    const struct cgs_tensor *x = &a->u.t, *y = &b->u.t;
    if (x->dtype == y->dtype || x->ndim != y->ndim || x->ndim == CGS_NDIM_UNKNOWN)
        return false;
    for (uint32_t i = 0; i < x->ndim; i++)
        if (!x->shape || !y->shape || !x->shape[i] || !y->shape[i] ||
            !cgs_sym_equal_semantic(x->shape[i], y->shape[i]))
            return false;
    return true;
}

/* A guard failure without its values: "tensor 'x' size mismatch at index 0". */
static void guard_cause(const char *reason, char *out, size_t n)
{
    const char *p = reason;
    size_t k, o = 0;
    while (isdigit((unsigned char)*p) || *p == '/' || *p == '!')
        p++;
    if (p != reason && p[0] == ':' && p[1] == ' ')
        p += 2;
    else
        p = reason;
    k = strcspn(p, "\n");
    for (const char *e = p; e < p + k; e++)
        if (!strncmp(e, ". expected", 10) || !strncmp(e, ", expected", 10)) {
            k = (size_t)(e - p);
            break;
        }
    for (size_t i = 0; i < k && o + 1 < n; i++) {
        /* an object's id (___check_obj_id(fn, 140439264606080)) differs every run */
        if (isdigit((unsigned char)p[i]) && i + 6 < k && isdigit((unsigned char)p[i + 6]) &&
            (i == 0 || !isalnum((unsigned char)p[i - 1]))) {
            while (i < k && isdigit((unsigned char)p[i]))
                i++;
            i--;
            if (o + 4 < n)
                memcpy(out + o, "...", 3), o += 3;
            continue;
        }
        out[o++] = p[i];
    }
    while (o && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
}

struct frame_group {
    const char *display;
    uint64_t recompiles, limit_rows;
    double ms;
    struct list ids;
    struct cgs_buf per_rank; /* "rank 1: 14, rank 3: 6" */
    char causes[5][160];
    uint32_t cause_n[5], n_causes;
    const char *limit_reason;
    uint32_t src;
    uint64_t line;
    bool has_ev;
};

static void recompiles(const struct cgs_dash *d, struct cgs_findings *out)
{
    struct frame_group *gs = NULL;
    uint32_t n = 0, alloc = 0;
    /* per (source, rank, run, frame): how often it was compiled again */
    struct cgs_strmap *by_frame = cgs_strmap_new();
    char **keys = NULL;
    uint32_t n_keys = 0, alloc_keys = 0, alloc_inst = 0, alloc_gk = 0, n_gk = 0;
    uint64_t *per = NULL;
    /* per instance (keys[i]): its frame group, rank and the row holding its count */
    uint32_t *inst_g = NULL, *inst_row = NULL;
    int *inst_rank = NULL;
    struct cgs_strmap *groups = cgs_strmap_new(); /* frame key -> group index + 1 */
    char **gkeys = NULL;                          /* its keys (the map borrows them) */

    CGS_ALLOC_GROW(per, (size_t)d->n_rows + 1, alloc);
    alloc = 0;
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const struct cgs_dash_row *r = d->rows[i];
        char key[512], inst[640], cid[96], cause[160];
        const char *disp;
        struct frame_group *g = NULL;
        uintptr_t at;
        bool again = cgs_dash_frame_compile(r->compile_id ? r->compile_id : "") > 0;
        per[i] = 0;
        if (!r->trace || !r->compile_id || (!again && !r->limit_hit))
            continue;
        frame_key(d, r, key, sizeof(key), &disp);
        at = (uintptr_t)cgs_strmap_get(groups, key);
        if (at) {
            g = &gs[at - 1];
        } else {
            CGS_ALLOC_GROW(gs, n + 1, alloc);
            g = &gs[n++];
            memset(g, 0, sizeof(*g));
            g->display = disp;
            CGS_ALLOC_GROW(gkeys, n_gk + 1, alloc_gk);
            gkeys[n_gk] = cgs_xstrdup(key);
            cgs_strmap_put(groups, gkeys[n_gk++], (void *)(uintptr_t)n);
        }
        if (!g->display)
            g->display = disp;
        cid_text(r, cid, sizeof(cid));
        if (!list_has(&g->ids, cid))
            list_add(&g->ids, cid);
        if (r->limit_hit) {
            g->limit_rows++;
            g->limit_reason = r->fail_reason;
        } else {
            g->recompiles++;
            if (r->has_compile_ms)
                g->ms += r->compile_ms;
        }
        if (!g->has_ev) {
            g->has_ev = true;
            g->src = r->source;
            g->line = r->recompile_line ? r->recompile_line : r->metrics_line;
        }
        if (r->reason && !r->limit_hit) {
            guard_cause(r->reason, cause, sizeof(cause));
            uint32_t c = 0;
            while (c < g->n_causes && strcmp(g->causes[c], cause))
                c++;
            if (c == g->n_causes && c < 5) {
                snprintf(g->causes[c], sizeof(g->causes[c]), "%s", cause);
                g->n_causes++;
            }
            if (c < 5)
                g->cause_n[c]++;
        }
        /* this frame's count in one process: its log (source), run of the log and rank */
        snprintf(inst, sizeof(inst), "%u|%u|%d|%d", (unsigned)(g - gs), r->source, r->run,
                 r->rank);
        at = (uintptr_t)cgs_strmap_get(by_frame, inst);
        if (!at) {
            CGS_ALLOC_GROW(keys, n_keys + 1, alloc_keys);
            if (n_keys + 1 > alloc_inst) {
                alloc_inst = alloc_keys;
                inst_g = cgs_xrealloc(inst_g, alloc_inst * sizeof(*inst_g));
                inst_row = cgs_xrealloc(inst_row, alloc_inst * sizeof(*inst_row));
                inst_rank = cgs_xrealloc(inst_rank, alloc_inst * sizeof(*inst_rank));
            }
            inst_g[n_keys] = (uint32_t)(g - gs);
            inst_row[n_keys] = i;
            inst_rank[n_keys] = r->rank;
            keys[n_keys] = cgs_xstrdup(inst);
            at = (uintptr_t)i + 1;
            cgs_strmap_put(by_frame, keys[n_keys++], (void *)at);
        }
        if (!r->limit_hit)
            per[at - 1]++;
    }
    for (uint32_t k = 0; k < n; k++) {
        struct frame_group *g = &gs[k];
        struct cgs_finding *f;
        struct cgs_buf m = CGS_BUF_INIT, ranks = CGS_BUF_INIT;
        uint64_t worst = 0;
        uint32_t n_ranks = 0;
        /* the worst process (a log, a run of it, a rank), and the ranks with their counts */
        int rk[64];
        uint64_t rk_n[64];
        uint32_t procs = 0;
        for (uint32_t i = 0; i < n_keys; i++) {
            int rank = inst_rank[i];
            uint32_t j = 0;
            uintptr_t at = (uintptr_t)inst_row[i] + 1;
            if (inst_g[i] != k)
                continue;
            procs++;
            if (per[at - 1] > worst)
                worst = per[at - 1];
            if (rank < 0)
                continue;
            while (j < n_ranks && rk[j] != rank)
                j++;
            if (j == n_ranks && n_ranks < 64) {
                rk[n_ranks] = rank;
                rk_n[n_ranks++] = 0;
            }
            if (j < 64)
                rk_n[j] += per[at - 1];
        }
        for (uint32_t j = 0; j < n_ranks; j++) {
            cgs_buf_addf(&ranks, "%s%d", j ? ", " : "", rk[j]);
            cgs_buf_addf(&g->per_rank, "%s%llu on rank %d", j ? ", " : "",
                         (unsigned long long)rk_n[j], rk[j]);
        }
        if (!g->recompiles && !g->limit_rows) {
            cgs_buf_release(&ranks);
            cgs_buf_release(&g->per_rank);
            free(list_done(&g->ids));
            continue;
        }
        f = add(out, CGS_FINDING_RECOMPILES,
                g->limit_rows ? CGS_SEV_ERROR : worst >= 2 ? CGS_SEV_WARNING : CGS_SEV_NOTE);
        f->frame = dup0(g->display);
        f->compile_ids = list_done(&g->ids);
        f->ranks = n_ranks ? cgs_buf_detach(&ranks) : NULL;
        f->count = g->recompiles;
        cgs_buf_addf(&m, "%s was compiled again %llu time%s", g->display ? g->display : "a frame",
                     (unsigned long long)g->recompiles, g->recompiles == 1 ? "" : "s");
        if (n_ranks > 1)
            cgs_buf_addf(&m, " (%s)", g->per_rank.buf);
        else if (procs > 1)
            cgs_buf_addf(&m, " (in %u runs, at most %llu in one)", procs,
                         (unsigned long long)worst);
        if (g->limit_rows)
            cgs_buf_addf(&m, "%s hit torch's recompile limit: torch refused to compile it %llu "
                             "time%s more and ran it without compiling",
                         g->recompiles ? " and" : "", (unsigned long long)g->limit_rows,
                         g->limit_rows == 1 ? "" : "s");
        if (g->n_causes) {
            cgs_buf_addstr(&m, "; guards that failed: ");
            for (uint32_t c = 0; c < g->n_causes; c++)
                cgs_buf_addf(&m, "%s%s (%u)", c ? "; " : "", g->causes[c], g->cause_n[c]);
        }
        if (g->ms > 0)
            cgs_buf_addf(&m, "; %.0f ms compiling again", g->ms);
        f->message = cgs_buf_detach(&m);
        cgs_buf_release(&m);
        cgs_buf_release(&ranks);
        cgs_buf_release(&g->per_rank);
        f->hint = g->limit_reason ? cgs_dash_hints(g->limit_reason, NULL) : NULL;
        if (!f->hint && g->n_causes && strstr(g->causes[0], "size mismatch"))
            f->hint = cgs_xstrdup("a size that changes by design: mark it dynamic "
                                  "(torch._dynamo.mark_dynamic(x, dim) before the call) or "
                                  "compile with dynamic=True");
        else if (!f->hint && g->n_causes && strstr(g->causes[0], "___check_obj_id"))
            f->hint = cgs_xstrdup("the frame sees a new object each call (a function, lambda or "
                                  "module made anew): make it once and pass the same one");
        else if (!f->hint)
            f->hint = cgs_xstrdup("TORCH_LOGS=recompiles prints each guard failure as it happens");
        if (g->has_ev)
            evidence(f, d, g->src, g->line);
        f->cost = g->ms + (double)g->recompiles + (g->limit_rows ? 1e9 : 0);
    }
    for (uint32_t i = 0; i < n_keys; i++)
        free(keys[i]);
    for (uint32_t i = 0; i < n_gk; i++)
        free(gkeys[i]);
    free(keys);
    free(gkeys);
    free(inst_g);
    free(inst_row);
    free(inst_rank);
    cgs_strmap_free(groups);
    free(per);
    free(gs);
    cgs_strmap_free(by_frame);
}

static void breaks(const struct cgs_dash *d, struct cgs_findings *out)
{
    bool *done = cgs_xcalloc(d->n_breaks + 1, 1);
    for (uint32_t i = 0; i < d->n_breaks; i++) {
        const struct cgs_dash_break *b = &d->breaks[i];
        struct list ranks = {CGS_BUF_INIT, 0}, ids = {CGS_BUF_INIT, 0};
        struct cgs_finding *f;
        struct cgs_buf m = CGS_BUF_INIT;
        char rk[16];
        if (done[i])
            continue;
        f = add(out, CGS_FINDING_GRAPH_BREAK, CGS_SEV_WARNING);
        for (uint32_t j = i; j < d->n_breaks; j++) {
            const struct cgs_dash_break *o = &d->breaks[j];
            if (done[j] || o->line != b->line || strcmp(o->reason, b->reason) ||
                strcmp(o->file ? o->file : "", b->file ? b->file : ""))
                continue;
            done[j] = true;
            f->count += o->hits;
            if (o->rank >= 0) {
                snprintf(rk, sizeof(rk), "%d", o->rank);
                if (!list_has(&ranks, rk))
                    list_add(&ranks, rk);
            }
            for (const char *p = o->compile_ids; p && *p;) {
                size_t k = strcspn(p, ",");
                char id[96];
                snprintf(id, sizeof(id), "%.*s", (int)(k < 95 ? k : 95), p);
                if (strcmp(id, "...") && !list_has(&ids, id))
                    list_add(&ids, id);
                p += k;
                p += strspn(p, ", ");
            }
        }
        f->ranks = list_done(&ranks);
        f->compile_ids = list_done(&ids);
        if (b->file) {
            const char *base = strrchr(b->file, '/');
            f->frame = b->name ? fmt("%s (%s:%lld)", b->name, base ? base + 1 : b->file,
                                     (long long)b->line)
                               : fmt("%s:%lld", b->file, (long long)b->line);
        }
        cgs_buf_addf(&m, "graph break at %s:%lld%s%s: ", b->file ? b->file : "an unknown line",
                     (long long)b->line, b->name ? " in " : "", b->name ? b->name : "");
        if (b->title)
            cgs_buf_addf(&m, "%s%s%s", b->title, b->explanation ? ": " : "",
                         b->explanation ? b->explanation : "");
        else
            cgs_buf_addstr(&m, b->reason);
        if (b->user_file)
            cgs_buf_addf(&m, " (your code: %s:%lld%s%s)", b->user_file, (long long)b->user_line,
                         b->user_name ? " in " : "", b->user_name ? b->user_name : "");
        cgs_buf_addf(&m, "; hit %llu time%s", (unsigned long long)f->count,
                     f->count == 1 ? "" : "s");
        if (b->from_restart)
            cgs_buf_addstr(&m, " (read from the restart reason and the resume frame: this torch "
                               "logs no graph-break record)");
        f->message = cgs_buf_detach(&m);
        cgs_buf_release(&m);
        f->hint = dup0(b->hints);
        f->url = dup0(b->url);
        evidence(f, d, b->source, b->line_no);
        f->cost = (double)f->count * 100;
    }
    free(done);
}

/* Ranks that compiled different compile ids, or different graphs (tlparse warns of it too). */
static void divergence(const struct cgs_dash *d, struct cgs_findings *out)
{
    int ranks[256];
    char *sig[256];
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const struct cgs_dash_row *r = d->rows[i];
        uint32_t k = 0;
        if (!r->trace || r->rank < 0)
            continue;
        while (k < n && ranks[k] != r->rank)
            k++;
        if (k == n && n < 256) {
            ranks[n] = r->rank;
            sig[n] = NULL;
            n++;
        }
    }
    if (n < 2)
        return;
    for (uint32_t k = 0; k < n; k++) {
        struct cgs_buf b = CGS_BUF_INIT;
        for (uint32_t i = 0; i < d->n_rows; i++) {
            const struct cgs_dash_row *r = d->rows[i];
            if (r->trace && r->rank == ranks[k] && r->metrics)
                cgs_buf_addf(&b, "%s@%d:%s:%lld,", r->compile_id, r->run,
                             failed(r) ? "failed" : r->limit_hit ? "refused" : "ok",
                             (long long)r->graph_op_count);
        }
        sig[k] = cgs_buf_detach(&b);
        cgs_buf_release(&b);
    }
    {
        uint32_t groups = 0;
        bool *seen = cgs_xcalloc(n, 1);
        struct cgs_buf m = CGS_BUF_INIT;
        struct list all = {CGS_BUF_INIT, 0};
        for (uint32_t k = 0; k < n; k++) {
            uint32_t compiles = 0, fails = 0;
            bool first = true;
            char rk[16];
            snprintf(rk, sizeof(rk), "%d", ranks[k]);
            list_add(&all, rk);
            if (seen[k])
                continue;
            groups++;
            cgs_buf_addf(&m, "%s", groups > 1 ? "; " : "");
            for (uint32_t j = k; j < n; j++)
                if (!seen[j] && !strcmp(sig[j], sig[k])) {
                    seen[j] = true;
                    cgs_buf_addf(&m, "%s%d", first ? "rank " : ", ", ranks[j]);
                    first = false;
                }
            for (const char *p = sig[k]; *p; p++)
                if (*p == ',')
                    compiles++;
            for (const char *p = strstr(sig[k], ":failed:"); p; p = strstr(p + 1, ":failed:"))
                fails++;
            cgs_buf_addf(&m, ": %u compile%s", compiles, compiles == 1 ? "" : "s");
            if (fails)
                cgs_buf_addf(&m, ", %u failed", fails);
        }
        if (groups > 1) {
            struct cgs_finding *f = add(out, CGS_FINDING_RANK_DIVERGENCE, CGS_SEV_WARNING);
            f->ranks = list_done(&all);
            f->count = groups;
            f->message = fmt("the ranks compiled different things (%u groups): %s; ranks that "
                             "compile different graphs can wait on each other's collectives",
                             groups, m.buf);
            f->hint = cgs_xstrdup("compare the ranks' compiles (cgscope top on the folder shows "
                                  "each rank's rows): a recompile or failure on one rank only is "
                                  "usually a rank-dependent shape or Python value");
            f->cost = 1e6;
            {
                /* the evidence: the first compile where a rank parts from the first rank's
                 * (in the rank that has it) */
                uint32_t j = 1, e = 0;
                size_t at = 0;
                while (j < n && !strcmp(sig[j], sig[0]))
                    j++;
                while (sig[0][at] && sig[0][at] == sig[j][at])
                    at++;
                for (size_t q = 0; q < at; q++)
                    e += sig[0][q] == ',';
                for (int pass = 0; pass < 2 && !f->evidence_file; pass++) {
                    int rank = pass ? ranks[0] : ranks[j];
                    uint32_t nth = 0;
                    for (uint32_t i = 0; i < d->n_rows; i++) {
                        const struct cgs_dash_row *r = d->rows[i];
                        if (r->trace && r->rank == rank && r->metrics && nth++ == e) {
                            evidence(f, d, r->source, r->metrics_line);
                            break;
                        }
                    }
                }
            }
        } else {
            free(list_done(&all));
        }
        cgs_buf_release(&m);
        free(seen);
    }
    for (uint32_t k = 0; k < n; k++)
        free(sig[k]);
}

/* The collectives Inductor scheduled for one compile id differ between ranks (tlparse's
 * collective-schedule check): a rank waits at a collective another rank never calls, which is
 * a hang or an NCCL timeout at run time. Compared where at least two ranks logged a schedule
 * for the same compile id (and run of the log). */
static void collectives(const struct cgs_dash *d, struct cgs_findings *out)
{
    enum { MAX_GROUPS = 16 };
    struct list ids = {CGS_BUF_INIT, 0}, odd = {CGS_BUF_INIT, 0};
    struct cgs_buf m = CGS_BUF_INIT;
    const struct cgs_dash_row *ev = NULL;
    uint32_t n_ids = 0;
    /* the rows with a schedule, one bucket per compile id and run, in order of first row (one
       pass: a scan of every row for every row was quadratic in a many-rank job's rows) */
    struct bucket {
        const struct cgs_dash_row **rows;
        uint32_t n, alloc;
    } *bk = NULL;
    uint32_t n_bk = 0, alloc_bk = 0;
    struct cgs_strmap *bucket_of = cgs_strmap_new();
    char **keys = NULL;
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const struct cgs_dash_row *r = d->rows[i];
        char *key;
        uintptr_t b;
        if (!r->trace || r->rank < 0 || !r->collectives_line)
            continue;
        key = fmt("%d|%s", r->run, r->compile_id);
        if (!(b = (uintptr_t)cgs_strmap_get(bucket_of, key))) {
            uint32_t alloc = alloc_bk;
            CGS_ALLOC_GROW(bk, n_bk + 1, alloc_bk);
            if (alloc_bk != alloc)
                keys = cgs_xrealloc(keys, alloc_bk * sizeof(*keys));
            memset(&bk[n_bk], 0, sizeof(bk[n_bk]));
            keys[n_bk] = key;
            cgs_strmap_put(bucket_of, key, (void *)(uintptr_t)(n_bk + 1));
            b = ++n_bk;
        } else {
            free(key);
        }
        CGS_ALLOC_GROW(bk[b - 1].rows, bk[b - 1].n + 1, bk[b - 1].alloc);
        bk[b - 1].rows[bk[b - 1].n++] = r;
    }
    for (uint32_t i = 0; i < n_bk; i++) {
        const struct cgs_dash_row *a = bk[i].rows[0];
        const struct cgs_dash_row *rep[MAX_GROUPS]; /* each group's first row */
        struct cgs_buf who[MAX_GROUPS];
        uint32_t size[MAX_GROUPS], n_groups = 0, big = 0;
        /* the ranks grouped by the schedule they logged for it */
        for (uint32_t j = 0; j < bk[i].n; j++) {
            const struct cgs_dash_row *o = bk[i].rows[j];
            uint32_t g = 0;
            while (g < n_groups && strcmp(rep[g]->collectives.buf, o->collectives.buf))
                g++;
            if (g == n_groups) {
                if (n_groups == MAX_GROUPS)
                    continue;
                rep[g] = o;
                size[g] = 0;
                cgs_buf_init(&who[g]);
                n_groups++;
            }
            cgs_buf_addf(&who[g], "%s%d", size[g] ? ", " : "", o->rank);
            size[g]++;
        }
        if (n_groups > 1) {
            /* the largest group is the schedule the others are told against */
            for (uint32_t g = 1; g < n_groups; g++)
                if (size[g] > size[big])
                    big = g;
            cgs_buf_addf(&m, "%s%s: ", n_ids ? "; " : "", a->compile_id);
            for (uint32_t g = 0; g < n_groups; g++) {
                uint32_t k = 1;
                for (const char *x = rep[g]->collectives.buf; *x; x++)
                    k += *x == '\n';
                cgs_buf_addf(&m, "%srank%s %s scheduled %u", g ? ", " : "",
                             size[g] > 1 ? "s" : "", who[g].buf, k);
                if (g != big) {
                    char rk[16];
                    for (const char *x = who[g].buf; *x;) { /* every rank of the group */
                        size_t n = strcspn(x, ",");
                        snprintf(rk, sizeof(rk), "%.*s", (int)(n < 15 ? n : 15), x);
                        if (!list_has(&odd, rk))
                            list_add(&odd, rk);
                        x += n;
                        while (*x == ',' || *x == ' ')
                            x++;
                    }
                    if (!ev)
                        ev = rep[g];
                }
            }
            {
                /* where the first odd group parts from the largest: the first operator that
                 * differs (1-based) */
                uint32_t o = big == 0 ? 1 : 0, at = 1;
                const char *p = rep[big]->collectives.buf, *q = rep[o]->collectives.buf;
                char wa[128], wb[128];
                while (*p && *p == *q) {
                    at += *p == '\n';
                    p++, q++;
                }
                while (p > rep[big]->collectives.buf && p[-1] != '\n')
                    p--;
                while (q > rep[o]->collectives.buf && q[-1] != '\n')
                    q--;
                snprintf(wa, sizeof(wa), "%.*s", (int)strcspn(p, "\n"), *p ? p : "nothing");
                snprintf(wb, sizeof(wb), "%.*s", (int)strcspn(q, "\n"), *q ? q : "nothing");
                cgs_buf_addf(&m, " (collective #%u: %s on rank%s %s, %s on rank%s %s)", at, wa,
                             size[big] > 1 ? "s" : "", who[big].buf, wb, size[o] > 1 ? "s" : "",
                             who[o].buf);
            }
            if (!list_has(&ids, a->compile_id))
                list_add(&ids, a->compile_id);
            n_ids++;
        }
        for (uint32_t g = 0; g < n_groups; g++)
            cgs_buf_release(&who[g]);
    }
    for (uint32_t i = 0; i < n_bk; i++) {
        free(bk[i].rows);
        free(keys[i]);
    }
    free(bk);
    free(keys);
    cgs_strmap_free(bucket_of);
    if (n_ids) {
        struct cgs_finding *f = add(out, CGS_FINDING_COLLECTIVES, CGS_SEV_ERROR);
        f->compile_ids = list_done(&ids);
        f->ranks = list_done(&odd);
        f->count = n_ids;
        f->message = fmt("the ranks scheduled different collectives for the same compile (%s): "
                         "a rank waits at a collective another rank never reaches, a hang or "
                         "an NCCL timeout at run time",
                         m.buf);
        f->hint = cgs_xstrdup("make every rank trace the same code and shapes for this frame "
                              "(a rank-dependent branch, shape or Python value gives one rank "
                              "another graph); the ranks' graphs of this compile id show where "
                              "they part (cgscope graphs on the folder lists them)");
        f->cost = 1e9;
        evidence(f, d, ev->source, ev->collectives_line);
    } else {
        free(list_done(&ids));
        free(list_done(&odd));
    }
    cgs_buf_release(&m);
}

/* A compile that missed the cache in a later run for a frame an earlier run compiled (a later
 * run: the log's compiles after a reset, or a log given after another, as `check COLD WARM`):
 * the warm run did not reuse the cold run's work. */
static void warm_misses(const struct cgs_dash *d, struct cgs_findings *out)
{
    struct list ids = {CGS_BUF_INIT, 0};
    struct cgs_finding *f = NULL;
    char key[512], k2[512], cid[96];
    const char *disp, *d2;
    /* the first row of each (rank, compile id): the earliest run that compiled it (rows are
     * in order of appearance: logs in the order given, a log's runs in order) */
    struct cgs_strmap *first = cgs_strmap_new();
    char **keys = cgs_xcalloc((size_t)d->n_rows + 1, sizeof(*keys));
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const struct cgs_dash_row *r = d->rows[i];
        if (!r->trace || !r->compile_id)
            continue;
        keys[i] = fmt("%d|%s", r->rank, r->compile_id);
        if (!cgs_strmap_get(first, keys[i]))
            cgs_strmap_put(first, keys[i], (void *)(uintptr_t)(i + 1));
    }
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const struct cgs_dash_row *r = d->rows[i], *o;
        uintptr_t at;
        if (!keys[i] || !r->misses || !(at = (uintptr_t)cgs_strmap_get(first, keys[i])))
            continue;
        o = d->rows[at - 1];
        /* an earlier run: of the same log (after a reset), or an earlier log given */
        if (o == r || (o->source == r->source ? o->run >= r->run : o->source > r->source))
            continue;
        frame_key(d, r, key, sizeof(key), &disp);
        frame_key(d, o, k2, sizeof(k2), &d2);
        if (strcmp(key, k2))
            continue;
        if (!f)
            f = add(out, CGS_FINDING_CACHE_MISS, CGS_SEV_WARNING);
        f->count += r->misses;
        cid_text(r, cid, sizeof(cid));
        list_add(&ids, cid);
        if (!f->frame)
            f->frame = dup0(disp);
        evidence(f, d, r->source, r->metrics_line);
        f->cost += r->has_compile_ms ? r->compile_ms : 1;
    }
    for (uint32_t i = 0; i < d->n_rows; i++)
        free(keys[i]);
    free(keys);
    cgs_strmap_free(first);
    if (!f)
        return;
    f->compile_ids = list_done(&ids);
    f->message = fmt("%llu cache lookup%s missed in a later run for frames an earlier run "
                     "compiled (%s; a run: a log given after another, or the log's compiles "
                     "after a reset): the warm run compiled again",
                     (unsigned long long)f->count, f->count == 1 ? "" : "s", f->compile_ids);
    f->hint = cgs_xstrdup("with the two runs in two logs, `cgscope cache diff COLD WARM` names "
                          "the cache-key components that differ");
}

static void empties(const struct cgs_dash *d, struct cgs_findings *out)
{
    struct list ids = {CGS_BUF_INIT, 0}, frames = {CGS_BUF_INIT, 0};
    struct cgs_finding *f = NULL;
    char cid[96];
    for (uint32_t i = 0; i < d->n_rows; i++) {
        const struct cgs_dash_row *r = d->rows[i];
        if (!r->trace || !empty(r))
            continue;
        if (!f)
            f = add(out, CGS_FINDING_EMPTY_GRAPH, CGS_SEV_NOTE);
        f->count++;
        cid_text(r, cid, sizeof(cid));
        list_add(&ids, cid);
        if (r->frame && !list_has(&frames, r->frame))
            list_add(&frames, r->frame);
        evidence(f, d, r->source, r->metrics_line);
    }
    if (!f)
        return;
    f->compile_ids = list_done(&ids);
    f->frame = list_done(&frames);
    f->message = fmt("%llu compile%s made no graph (Dynamo found no tensor work to compile and "
                     "runs the frame as Python): %s",
                     (unsigned long long)f->count, f->count == 1 ? "" : "s",
                     f->frame ? f->frame : f->compile_ids);
}

/* ---- graphs ------------------------------------------------------------------------------ */

/* What the graphs' findings gather, a graph at a time: every string copied (a graph may be freed
 * once added). */
struct op_use { /* an operator without a shape rule */
    const char *target;
    uint64_t nodes;
    struct list graphs;
};

struct cap { /* compiled pieces not capturable, of one cause (lint kind) */
    struct list pieces;
    const char *reason;
    uint64_t n;
};

struct cgs_findings_graphs {
    struct cgs_arena strings; /* operator targets, reasons */
    struct list unread, mism, amism;
    uint64_t n_mism, n_amism;
    char *first_mism, *first_unread, *first_amism;
    struct op_use *ops;
    uint32_t n_ops, alloc_ops;
    struct cgs_strmap *opmap; /* target -> index + 1 into ops */
    struct cap caps[CGS_LINT_KIND_COUNT];
};

struct cgs_findings_graphs *cgs_findings_graphs_new(void)
{
    struct cgs_findings_graphs *a = cgs_xcalloc(1, sizeof(*a));
    cgs_arena_init(&a->strings);
    a->opmap = cgs_strmap_new();
    return a;
}

void cgs_findings_graphs_add(struct cgs_findings_graphs *a, const struct cgs_findings_graph *x)
{
    if (x->error || !x->g) {
        list_add(&a->unread, x->label);
        if (!a->first_unread)
            a->first_unread = fmt("%s: %s", x->label, x->error ? x->error : "not read");
        return;
    }
    if (x->shapes) {
        uint64_t here = 0, here_autocast = 0;
        int autocast = 0; /* inside torch.autocast regions (Dynamo's enter/exit nodes) */
        for (uint32_t k = 0; k < x->shapes->n_nodes && k < x->g->n_nodes; k++) {
            const struct cgs_shape_node *sn = &x->shapes->nodes[k];
            const struct cgs_node *nd = x->g->nodes[k];
            autocast += autocast_mark(nd);
            if (autocast > 0 && only_dtype_differs(sn->val, nd->val)) {
                /* torch.autocast picks the dtype there, which cgscope does not model: the
                 * record's dtype stands (shapes reports it), not cgscope's */
                here_autocast++;
                if (!a->first_amism)
                    a->first_amism = fmt("'%s' in %s: %s", nd->name, x->label,
                                         sn->reason ? sn->reason : "differs");
            } else if (sn->cmp == CGS_SHAPE_CMP_STRIDES || sn->cmp == CGS_SHAPE_CMP_MISMATCH) {
                here++;
                if (!a->first_mism)
                    a->first_mism = fmt("'%s' in %s: %s", nd->name, x->label,
                                        sn->reason ? sn->reason : "differs");
            }
            if (sn->status == CGS_SHAPE_UNKNOWN_OP && nd->target) {
                uintptr_t at = (uintptr_t)cgs_strmap_get(a->opmap, nd->target);
                struct op_use *o;
                if (!at) {
                    CGS_ALLOC_GROW(a->ops, a->n_ops + 1, a->alloc_ops);
                    memset(&a->ops[a->n_ops], 0, sizeof(a->ops[0]));
                    a->ops[a->n_ops].target = cgs_arena_strdup(&a->strings, nd->target);
                    at = ++a->n_ops;
                    cgs_strmap_put(a->opmap, a->ops[at - 1].target, (void *)at);
                }
                o = &a->ops[at - 1];
                o->nodes++;
                if (!list_has(&o->graphs, x->label))
                    list_add(&o->graphs, x->label);
            }
        }
        if (here) {
            a->n_mism += here;
            list_add(&a->mism, x->label);
        }
        if (here_autocast) {
            a->n_amism += here_autocast;
            list_add(&a->amism, x->label);
        }
    }
    if (x->split) {
        for (uint32_t k = 0; k < x->split->n_pieces; k++) {
            const struct cgs_split_piece *p = &x->split->pieces[k];
            if (p->is_splitting_graph || p->capturable)
                continue;
            for (uint32_t j = 0; j < x->split->n_findings; j++) {
                const struct cgs_split_finding *sf = &x->split->findings[j];
                if (sf->piece != k || sf->level != CGS_NOTE_ERROR)
                    continue;
                struct cap *c = &a->caps[sf->kind];
                char *pn = fmt("%s of %s", p->name, x->label);
                list_add(&c->pieces, pn);
                free(pn);
                c->n++;
                if (!c->reason && sf->reason)
                    c->reason = cgs_arena_strdup(&a->strings, sf->reason);
                break;
            }
        }
    }
}

void cgs_findings_graphs_free(struct cgs_findings_graphs *a)
{
    if (!a)
        return;
    free(list_done(&a->unread));
    free(list_done(&a->mism));
    free(list_done(&a->amism));
    for (uint32_t k = 0; k < a->n_ops; k++)
        free(list_done(&a->ops[k].graphs));
    for (int k = 0; k < CGS_LINT_KIND_COUNT; k++)
        free(list_done(&a->caps[k].pieces));
    free(a->first_mism);
    free(a->first_amism);
    free(a->first_unread);
    free(a->ops);
    cgs_strmap_free(a->opmap);
    cgs_arena_release(&a->strings);
    free(a);
}

/* The findings of what a holds (its lists taken: a is only to be freed after). */
static void graph_findings_of(struct cgs_findings_graphs *a, struct cgs_findings *out)
{
    uint32_t n_ops = a->n_ops;
    struct op_use *ops = a->ops;
    if (a->n_mism) {
        struct cgs_finding *f = add(out, CGS_FINDING_SHAPE_MISMATCH, CGS_SEV_WARNING);
        f->count = a->n_mism;
        f->graphs = list_done(&a->mism);
        f->message = fmt("%llu value%s that cgscope infers differ from what torch recorded; the "
                         "first: %s",
                         (unsigned long long)a->n_mism, a->n_mism == 1 ? "" : "s", a->first_mism);
        f->hint = cgs_xstrdup("`cgscope shapes GRAPH --reinfer --check` lists each; a declared "
                              "operator (--ops) whose declaration is wrong shows here first");
        f->cost = (double)a->n_mism;
    }
    if (a->n_amism) {
        struct cgs_finding *f = add(out, CGS_FINDING_SHAPE_MISMATCH, CGS_SEV_NOTE);
        f->count = a->n_amism;
        f->graphs = list_done(&a->amism);
        f->message = fmt("%llu value%s inside torch.autocast regions %s the dtype torch "
                         "recorded, not the one cgscope infers: cgscope models the casts of CUDA "
                         "regions by torch 2.11's autocast lists, not those of other devices or of "
                         "operators outside the lists, so torch's dtype is the one reported; the "
                         "first: %s",
                         (unsigned long long)a->n_amism, a->n_amism == 1 ? "" : "s",
                         a->n_amism == 1 ? "has" : "have", a->first_amism);
        f->hint = cgs_xstrdup("nothing to fix in the model; `cgscope shapes GRAPH` gives each "
                              "node torch's value");
        f->cost = 0;
    }
    for (int k = 0; k < CGS_LINT_KIND_COUNT; k++) {
        struct cap *c = &a->caps[k];
        struct cgs_finding *f;
        if (!c->n)
            continue;
        f = add(out, CGS_FINDING_NOT_CAPTURABLE, CGS_SEV_WARNING);
        f->count = c->n;
        f->pieces = list_done(&c->pieces);
        f->message = fmt("%llu compiled piece%s cannot be captured as a CUDA graph (%s): %s",
                         (unsigned long long)c->n, c->n == 1 ? "" : "s", cgs_lint_kind_names[k],
                         c->reason ? c->reason : "");
        f->cost = (double)c->n * 10;
    }
    if (n_ops) { /* one finding: the operators, most nodes first */
        struct cgs_finding *f = add(out, CGS_FINDING_UNKNOWN_OPS, CGS_SEV_NOTE);
        struct cgs_buf m = CGS_BUF_INIT;
        struct list gl = {CGS_BUF_INIT, 0};
        bool *used = cgs_xcalloc(n_ops, 1);
        for (uint32_t k = 0; k < n_ops; k++)
            f->count += ops[k].nodes;
        cgs_buf_addf(&m, "%u operator%s without a shape rule leave %llu node%s (and what follows "
                         "from them) partial: ",
                     n_ops, n_ops == 1 ? "" : "s", (unsigned long long)f->count,
                     f->count == 1 ? "" : "s");
        for (uint32_t k = 0; k < n_ops; k++) {
            uint32_t best = 0;
            bool have = false;
            for (uint32_t j = 0; j < n_ops; j++)
                if (!used[j] && (!have || ops[j].nodes > ops[best].nodes))
                    best = j, have = true;
            used[best] = true;
            if (k < MAX_LISTED)
                cgs_buf_addf(&m, "%s'%s' (%llu)", k ? ", " : "", ops[best].target,
                             (unsigned long long)ops[best].nodes);
            for (const char *p = ops[best].graphs.b.buf; p && *p;) {
                size_t l = strcspn(p, ",");
                char *gname = cgs_xmalloc(l + 1);
                memcpy(gname, p, l);
                gname[l] = '\0';
                if (strcmp(gname, "...") && !list_has(&gl, gname))
                    list_add(&gl, gname);
                free(gname);
                p += l;
                p += strspn(p, ", ");
            }
            free(list_done(&ops[best].graphs));
        }
        if (n_ops > MAX_LISTED)
            cgs_buf_addf(&m, " and %u more", n_ops - MAX_LISTED);
        f->message = cgs_buf_detach(&m);
        cgs_buf_release(&m);
        f->graphs = list_done(&gl);
        f->hint = cgs_xstrdup("declare an operator in one line (docs/custom-ops.md) and pass --ops "
                              "FILE, or put the file in CGSCOPE_OPS");
        f->cost = (double)f->count;
        free(used);
    }
    if (a->unread.n) {
        struct cgs_finding *f = add(out, CGS_FINDING_UNREAD, CGS_SEV_NOTE);
        f->count = a->unread.n;
        f->graphs = list_done(&a->unread);
        f->message = fmt("%llu graph%s not read: %s", (unsigned long long)f->count,
                         f->count == 1 ? "" : "s", a->first_unread);
    }
}

static void graph_findings(const struct cgs_findings_input *in, struct cgs_findings *out)
{
    if (in->fed) {
        graph_findings_of(in->fed, out);
        return;
    }
    struct cgs_findings_graphs *a = cgs_findings_graphs_new();
    for (uint32_t i = 0; i < in->n_graphs; i++)
        cgs_findings_graphs_add(a, &in->graphs[i]);
    graph_findings_of(a, out);
    cgs_findings_graphs_free(a);
}

/* ---- the model ----------------------------------------------------------------------------- */

static int by_severity(const void *a, const void *b)
{
    const struct cgs_finding *x = a, *y = b;
    if (x->severity != y->severity)
        return x->severity < y->severity ? -1 : 1;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return strcmp(x->message ? x->message : "", y->message ? y->message : "");
}

void cgs_findings_build(const struct cgs_findings_input *in, struct cgs_findings *out)
{
    memset(out, 0, sizeof(*out));
    if (in->dash) {
        const struct cgs_dash *d = in->dash;
        failures(d, out);
        recompiles(d, out);
        breaks(d, out);
        divergence(d, out);
        collectives(d, out);
        warm_misses(d, out);
        empties(d, out);
        if (d->bad_lines) {
            struct cgs_finding *f = add(out, CGS_FINDING_BAD_LINES, CGS_SEV_NOTE);
            f->count = d->bad_lines;
            f->message = fmt("%llu line%s of the logs not read; the first: %s",
                             (unsigned long long)d->bad_lines, d->bad_lines == 1 ? "" : "s",
                             d->first_bad);
        }
    }
    graph_findings(in, out);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(*out->v), by_severity);
}

void cgs_findings_release(struct cgs_findings *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        struct cgs_finding *x = &f->v[i];
        free(x->frame);
        free(x->compile_ids);
        free(x->ranks);
        free(x->graphs);
        free(x->pieces);
        free(x->message);
        free(x->hint);
        free(x->url);
        free(x->evidence_file);
    }
    free(f->v);
    memset(f, 0, sizeof(*f));
}

uint32_t cgs_findings_at_least(const struct cgs_findings *f, enum cgs_severity s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->n; i++)
        n += f->v[i].severity <= s;
    return n;
}
