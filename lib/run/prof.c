/*
 * CUPTI traces: reading, attribution, the per-piece report (see prof.h), and the reader of
 * report JSON that dot --profile uses.
 */
#include "lib/run/prof.h"

#include "lib/readers/sniff.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/base/keymap.h"
#include "lib/readers/file.h"
#include "lib/readers/json-scan.h"
#include "lib/run/proftrace.h"
#include "lib/base/strmap.h"

/* ---- reading ---------------------------------------------------------------------------------- */

/* The dense index of a file's kernel name id (0, no name, stays 0): the writer numbers names
 * from 1, but a file may use any id up to 2^24, and sparse ids must not cost a slot each
 * (one 30-byte record naming id 16,777,216 made 16 million empty names). */
static uint32_t name_index(struct cgs_prof_trace *t, struct cgs_keymap *ix, uint32_t id)
{
    uint64_t *v;

    if (!id)
        return 0;
    v = cgs_keymap_slot(ix, id, true);
    if (!*v) {
        CGS_ALLOC_GROW(t->names, t->n_names + 1, t->a_names);
        t->names[t->n_names] = NULL;
        *v = t->n_names++;
    }
    return (uint32_t)*v;
}

bool cgs_prof_is_trace(const char *buf, size_t len)
{
    return cgs_sniff(buf, len < 8 ? len : 8, NULL) == CGS_IN_CUPTI_TRACE;
}

static int bad(struct cgs_diag *d, const char *file, size_t off, const char *fmt, ...)
    CGS_PRINTF(4, 5);
static int bad(struct cgs_diag *d, const char *file, size_t off, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cgs_diag_at(d, file, 0, 0);
    cgs_diag_path(d, "byte %zu", off);
    return cgs_diag_set(d, CGS_E_SCHEMA, "%s", msg);
}

static const char *type_name(unsigned type)
{
    static const char *const names[] = {"?",      "INFO",   "PUSH",   "POP",   "LAUNCH",
                                        "NAME",   "KERNEL", "MEMCPY", "MEMSET", "GNODE",
                                        "GCLONE", "DROPPED", "END"};
    return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

static void take_info(struct cgs_prof_trace *t, const char *text)
{
    const char *eq = strchr(text, '=');
    const char *v = eq ? eq + 1 : "";
    size_t k = eq ? (size_t)(eq - text) : strlen(text);
#define KEY(s) (k == sizeof(s) - 1 && memcmp(text, s, k) == 0)
    if (KEY("rank"))
        t->rank = atoi(v);
    else if (KEY("local_rank") && t->rank < 0)
        t->rank = atoi(v);
    else if (KEY("error") && !t->error)
        t->error = cgs_xstrdup(v);
    else if (KEY("cmdline") && !t->cmdline)
        t->cmdline = cgs_xstrdup(v);
    else if (KEY("nvtx_prefix") && !t->nvtx_prefix)
        t->nvtx_prefix = cgs_xstrdup(v);
    else if (KEY("cupti_runtime"))
        t->cupti_runtime = (uint32_t)strtoul(v, NULL, 10);
    else if (KEY("cupti_built"))
        t->cupti_built = (uint32_t)strtoul(v, NULL, 10);
#undef KEY
}

int cgs_prof_parse(const char *buf, size_t len, const char *file, struct cgs_prof_trace *t,
                   struct cgs_diag *d)
{
    struct cgs_trace_header h;
    struct cgs_arena *arena;
    size_t off;
    struct cgs_keymap pushed = {0}, names = {0};

    memset(t, 0, sizeof(*t));
    t->rank = -1;
    t->file = cgs_xstrdup(file);
    arena = cgs_xcalloc(1, sizeof(*arena));
    cgs_arena_init(arena);
    t->arena = arena;
    CGS_ALLOC_GROW(t->names, t->n_names + 1, t->a_names);
    t->names[t->n_names++] = cgs_xstrdup("");

    cgs_diag_at(d, file, 0, 0);
    if (len < sizeof(h) || !cgs_prof_is_trace(buf, len)) {
        enum cgs_input_kind k = cgs_sniff(buf, len < CGS_SNIFF_HEAD ? len : CGS_SNIFF_HEAD, file);
        if (k != CGS_IN_CUPTI_TRACE && k != CGS_IN_BINARY && k != CGS_IN_UNKNOWN &&
            k != CGS_IN_TEXT && k != CGS_IN_EMPTY) /* what it is, when its bytes tell */
            return cgs_diag_set(d, CGS_E_FORMAT, "not a cgscope CUPTI trace: it is %s%s%s",
                                cgs_input_kind_what(k), cgs_input_kind_hint(k) ? "; " : "",
                                cgs_input_kind_hint(k) ? cgs_input_kind_hint(k) : "");
        return cgs_diag_set(d, CGS_E_FORMAT,
                            "not a cgscope CUPTI trace (expected the magic \"CGSTRACE\"; "
                            "traces come from `cgscope profile`)");
    }
    memcpy(&h, buf, sizeof(h));
    if (h.bom != CGS_TRACE_BOM)
        return cgs_diag_set(d, CGS_E_FORMAT, "trace written with another byte order (0x%08x)",
                            h.bom);
    if (h.version != CGS_TRACE_VERSION)
        return cgs_diag_set(d, CGS_E_FORMAT,
                            "trace format version %u; this cgscope reads version %u", h.version,
                            CGS_TRACE_VERSION);
    if (h.header_size < sizeof(h) || h.header_size > len || h.header_size % 8)
        return cgs_diag_set(d, CGS_E_FORMAT,
                            "bad header size %u (expected at least %zu, a multiple of 8, "
                            "within the file)",
                            h.header_size, sizeof(h));
    t->pid = h.pid;

    for (off = h.header_size; off < len;) {
        struct cgs_trace_rec r;
        const char *p;
        size_t size, plen;

        if (len - off < sizeof(r)) {
            t->truncated = true;
            break;
        }
        memcpy(&r, buf + off, sizeof(r));
        size = (size_t)r.words * 8;
        if (r.words == 0) {
            cgs_keymap_release(&pushed);
            cgs_keymap_release(&names);
            return bad(d, file, off, "%s record of size 0", type_name(r.type));
        }
        if (size > len - off) {
            t->truncated = true;
            break;
        }
        if (t->complete) {
            cgs_keymap_release(&pushed);
            cgs_keymap_release(&names);
            return bad(d, file, off, "%s record (type %u) after the END record",
                       type_name(r.type), r.type);
        }
        p = buf + off + sizeof(r);
        plen = size - sizeof(r);
#define NEED(T)                                                                                    \
    if (plen < sizeof(T)) {                                                                        \
        cgs_keymap_release(&pushed);                                                                   \
        cgs_keymap_release(&names);                                                                    \
        return bad(d, file, off, "%s record holds %llu bytes, needs %llu", type_name(r.type),       \
                   (unsigned long long)plen, (unsigned long long)sizeof(T));                       \
    }
#define TEXT(from)                                                                                 \
    if (!memchr(p + (from), 0, plen - (from))) {                                                   \
        cgs_keymap_release(&pushed);                                                                   \
        cgs_keymap_release(&names);                                                                    \
        return bad(d, file, off, "%s record's text is not NUL-terminated", type_name(r.type));    \
    }
        switch (r.type) {
        case CGS_TR_INFO:
            if (plen == 0 || !memchr(p, 0, plen)) {
                cgs_keymap_release(&pushed);
                cgs_keymap_release(&names);
                return bad(d, file, off, "%s record's text is not NUL-terminated",
                           type_name(r.type));
            }
            take_info(t, p);
            break;
        case CGS_TR_PUSH: {
            struct cgs_tr_push x;
            struct cgs_prof_range *rg;
            NEED(struct cgs_tr_push);
            TEXT(sizeof(x));
            memcpy(&x, p, sizeof(x));
            CGS_ALLOC_GROW(t->ranges, t->n_ranges + 1, t->a_ranges);
            rg = &t->ranges[t->n_ranges];
            rg->uid = x.uid;
            rg->parent = x.parent;
            rg->push = x.ts;
            rg->pop = UINT64_MAX;
            rg->tid = r.tid;
            rg->depth = x.depth;
            rg->name = cgs_arena_strdup(arena, p + sizeof(x));
            if (x.uid)
                *cgs_keymap_slot(&pushed, x.uid, true) = t->n_ranges + 1;
            t->n_ranges++;
            break;
        }
        case CGS_TR_POP: {
            struct cgs_tr_pop x;
            uint64_t *slot;
            NEED(struct cgs_tr_pop);
            memcpy(&x, p, sizeof(x));
            /* a thread's records keep their order in the file: its push came first */
            slot = cgs_keymap_slot(&pushed, x.uid, false);
            if (slot && *slot)
                t->ranges[*slot - 1].pop = x.ts;
            break;
        }
        case CGS_TR_LAUNCH: {
            struct cgs_tr_launch x;
            NEED(struct cgs_tr_launch);
            memcpy(&x, p, sizeof(x));
            CGS_ALLOC_GROW(t->launches, t->n_launches + 1, t->a_launches);
            t->launches[t->n_launches++] = (struct cgs_prof_launch){x.ts, x.uid, x.corr, r.tid,
                                                                    x.graph};
            break;
        }
        case CGS_TR_NAME: {
            struct cgs_tr_name x;
            NEED(struct cgs_tr_name);
            TEXT(sizeof(x));
            memcpy(&x, p, sizeof(x));
            if (x.id == 0 || x.id > (1u << 24)) {
                cgs_keymap_release(&pushed);
                cgs_keymap_release(&names);
                return bad(d, file, off, "%s record with id %u (expected 1..%u)",
                           type_name(r.type), x.id, 1u << 24);
            }
            uint32_t ni = name_index(t, &names, x.id);
            free(t->names[ni]);
            t->names[ni] = cgs_xstrdup(p + sizeof(x));
            break;
        }
        case CGS_TR_KERNEL: {
            struct cgs_tr_kernel x;
            NEED(struct cgs_tr_kernel);
            memcpy(&x, p, sizeof(x));
            CGS_ALLOC_GROW(t->work, t->n_work + 1, t->a_work);
            t->work[t->n_work++] = (struct cgs_prof_work){
                x.start, x.end, 0, x.graph_node, x.corr, x.graph_id, x.device, x.stream,
                name_index(t, &names, x.name), CGS_PROF_KERNEL};
            break;
        }
        case CGS_TR_MEMCPY: {
            struct cgs_tr_memcpy x;
            NEED(struct cgs_tr_memcpy);
            memcpy(&x, p, sizeof(x));
            CGS_ALLOC_GROW(t->work, t->n_work + 1, t->a_work);
            t->work[t->n_work++] = (struct cgs_prof_work){
                x.start, x.end, x.bytes, x.graph_node, x.corr, x.graph_id, x.device, x.stream,
                0, CGS_PROF_MEMCPY};
            break;
        }
        case CGS_TR_MEMSET: {
            struct cgs_tr_memset x;
            NEED(struct cgs_tr_memset);
            memcpy(&x, p, sizeof(x));
            CGS_ALLOC_GROW(t->work, t->n_work + 1, t->a_work);
            t->work[t->n_work++] = (struct cgs_prof_work){
                x.start, x.end, x.bytes, x.graph_node, x.corr, x.graph_id, x.device, x.stream,
                0, CGS_PROF_MEMSET};
            break;
        }
        case CGS_TR_GNODE: {
            struct cgs_tr_gnode x;
            NEED(struct cgs_tr_gnode);
            memcpy(&x, p, sizeof(x));
            CGS_ALLOC_GROW(t->gnodes, t->n_gnodes + 1, t->a_gnodes);
            t->gnodes[t->n_gnodes][0] = x.node;
            t->gnodes[t->n_gnodes++][1] = x.uid;
            break;
        }
        case CGS_TR_GCLONE: {
            struct cgs_tr_gclone x;
            NEED(struct cgs_tr_gclone);
            memcpy(&x, p, sizeof(x));
            CGS_ALLOC_GROW(t->gclones, t->n_gclones + 1, t->a_gclones);
            t->gclones[t->n_gclones][0] = x.node;
            t->gclones[t->n_gclones++][1] = x.original;
            break;
        }
        case CGS_TR_DROPPED:
            break; /* the END record has the total */
        case CGS_TR_END: {
            struct cgs_tr_end x;
            NEED(struct cgs_tr_end);
            memcpy(&x, p, sizeof(x));
            t->complete = true;
            t->dropped = x.dropped;
            t->lost = x.lost;
            t->end_reason = x.reason;
            t->signo = x.signo;
            break;
        }
        default:
            t->unknown_records++;
            break;
        }
#undef NEED
#undef TEXT
        off += size;
    }
    cgs_keymap_release(&pushed);
    cgs_keymap_release(&names);
    for (size_t i = 0; i < t->n_names; i++)
        if (!t->names[i])
            t->names[i] = cgs_xstrdup("");
    return 0;
}

int cgs_prof_read(const char *path, struct cgs_prof_trace *t, struct cgs_diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    int rc;

    memset(t, 0, sizeof(*t));
    if ((rc = cgs_read_file(path, &buf, &len, CGS_PROF_MAX_FILE, d)) < 0) {
        cgs_diag_at(d, path, 0, 0);
        t->file = cgs_xstrdup(path);
        return rc;
    }
    rc = cgs_prof_parse(buf, len, path, t, d);
    free(buf);
    return rc;
}

void cgs_prof_trace_release(struct cgs_prof_trace *t)
{
    if (!t)
        return;
    free(t->file);
    free(t->error);
    free(t->cmdline);
    free(t->nvtx_prefix);
    free(t->ranges);
    free(t->launches);
    free(t->work);
    free(t->gnodes);
    free(t->gclones);
    for (size_t i = 0; i < t->n_names; i++)
        free(t->names[i]);
    free(t->names);
    if (t->arena) {
        cgs_arena_release(t->arena);
        free(t->arena);
    }
    memset(t, 0, sizeof(*t));
}

/* ---- demangling (the C++ runtime's own demangler: names as Kineto prints them) ------------- */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

char *cgs_prof_demangle(const char *s)
{
    if (s[0] == '_' && s[1] == 'Z') {
        int status = 0;
        char *r = __cxa_demangle(s, NULL, NULL, &status);
        if (r && status == 0)
            return r;
        free(r);
    }
    return cgs_xstrdup(s);
}

/* ---- attribution ------------------------------------------------------------------------------- */

struct ev { /* the time-ordered sweep of one trace: pushes, pops, launches on rangeless threads */
    uint64_t ts;
    uint32_t what; /* 0 push, 1 launch, 2 pop */
    uint32_t idx;
};

static int ev_cmp(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->what != y->what)
        return x->what < y->what ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* For each launch with no range on its own thread: the range (index + 1) most recently pushed
 * among those open on any thread at the call, or 0. */
static uint32_t *any_thread_ranges(const struct cgs_prof_trace *t)
{
    uint32_t *out = cgs_xcalloc(t->n_launches + 1, sizeof(*out));
    size_t n = 0;
    struct ev *e;

    for (size_t i = 0; i < t->n_launches; i++)
        n += t->launches[i].uid == 0;
    if (!n || !t->n_ranges)
        return out;
    e = cgs_xmalloc(cgs_array_bytes(n + 2 * t->n_ranges, sizeof(*e)));
    n = 0;
    for (size_t i = 0; i < t->n_ranges; i++) {
        e[n++] = (struct ev){t->ranges[i].push, 0, (uint32_t)i};
        if (t->ranges[i].pop != UINT64_MAX)
            e[n++] = (struct ev){t->ranges[i].pop, 2, (uint32_t)i};
    }
    for (size_t i = 0; i < t->n_launches; i++)
        if (t->launches[i].uid == 0)
            e[n++] = (struct ev){t->launches[i].ts, 1, (uint32_t)i};
    qsort(e, n, sizeof(*e), ev_cmp);
    /* The answer is the most recently pushed range still open, on whichever thread (each
     * thread's innermost range is its latest push): one stack of every push in sweep order,
     * whose closed entries are dropped when they come to the top. Linear in the events. */
    uint8_t *state = cgs_xcalloc(t->n_ranges, 1); /* 0 not pushed yet, 1 open, 2 closed */
    uint32_t *open = cgs_xmalloc(cgs_array_bytes(t->n_ranges + 1, sizeof(*open)));
    size_t n_open = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = e[k].idx;
        if (e[k].what == 1) {
            while (n_open && state[open[n_open - 1]] != 1)
                n_open--;
            out[i] = n_open ? open[n_open - 1] + 1 : 0;
        } else if (e[k].what == 0) {
            state[i] = 1;
            open[n_open++] = i;
        } else if (state[i] == 1) {
            state[i] = 2; /* a pop closes its range wherever it is in its thread's stack */
        }
    }
    free(state);
    free(open);
    free(e);
    return out;
}

/* ---- the report -------------------------------------------------------------------------------- */

struct build {
    struct cgs_prof_report *r;
    struct cgs_strmap *groups;  /* name -> index + 1 (as pointer) */
    struct cgs_strmap *kernels; /* demangled name -> index + 1 */
    struct cgs_keymap pk;           /* (group + 1) << 32 | kernel + 1 -> index + 1 into pks */
    struct cgs_prof_pk *pks;
    uint32_t *pk_group;
    size_t n_pks, a_pks, a_pk_group;
    size_t a_groups, a_kernels;
    /* per-call samples (opts.samples): each call's kernel time and group (+ 1, 0 none), and
       each kernel's time within a call: (call << 24 | kernel + 1) -> index + 1 into pkc */
    bool samples;
    uint64_t *call_ns;
    uint32_t *call_group;
    size_t n_calls, a_call_ns, a_call_group;
    struct cgs_keymap pkcall;
    struct pkc {
        uint32_t pk; /* index into pks */
        uint64_t ns;
    } *pkc;
    size_t n_pkc, a_pkc;
};

static uint32_t group_of(struct build *b, const char *name, const char *range)
{
    void *v = cgs_strmap_get(b->groups, name);
    struct cgs_prof_report *r = b->r;
    struct cgs_prof_group *g;

    if (v)
        return (uint32_t)((uintptr_t)v - 1);
    CGS_ALLOC_GROW(r->groups, r->n_groups + 1, b->a_groups);
    g = &r->groups[r->n_groups];
    memset(g, 0, sizeof(*g));
    g->name = cgs_xstrdup(name);
    g->range = cgs_xstrdup(range);
    g->per_trace = cgs_xcalloc(r->n_traces + 1, sizeof(*g->per_trace));
    /* the map borrows the group's own copy of the name */
    cgs_strmap_put(b->groups, g->name, (void *)(uintptr_t)(r->n_groups + 1));
    return r->n_groups++;
}

static uint32_t kernel_of(struct build *b, const char *mangled)
{
    char *name = cgs_prof_demangle(mangled);
    void *v = cgs_strmap_get(b->kernels, name);
    struct cgs_prof_report *r = b->r;

    if (v) {
        free(name);
        return (uint32_t)((uintptr_t)v - 1);
    }
    CGS_ALLOC_GROW(r->kernels, r->n_kernels + 1, b->a_kernels);
    memset(&r->kernels[r->n_kernels], 0, sizeof(r->kernels[0]));
    r->kernels[r->n_kernels].name = name;
    r->kernels[r->n_kernels].min_ns = UINT64_MAX;
    cgs_strmap_put(b->kernels, name, (void *)(uintptr_t)(r->n_kernels + 1));
    return r->n_kernels++;
}

static void add(struct cgs_prof_stat *s, uint64_t ns, uint64_t bytes)
{
    s->count++;
    s->ns += ns;
    s->bytes += bytes;
}

/* The group of a range (index into t->ranges), -1 for none (-> r->none); *at is the range that
 * is the group's instance (ri itself, or the enclosing piece). */
static int64_t range_group(struct build *b, const struct cgs_prof_trace *t, struct cgs_keymap *by_uid,
                           size_t ri, const char *prefix, size_t *at)
{
    size_t plen = strlen(prefix);
    *at = ri;
    if (b->r->by == CGS_PROF_BY_RANGE)
        return group_of(b, t->ranges[ri].name, t->ranges[ri].name);
    for (unsigned hops = 0; hops < 4096; hops++) {
        const struct cgs_prof_range *rg = &t->ranges[ri];
        uint64_t *slot;
        *at = ri;
        if (strncmp(rg->name, prefix, plen) == 0)
            return group_of(b, rg->name + plen, rg->name);
        if (!rg->parent || !(slot = cgs_keymap_slot(by_uid, rg->parent, false)))
            return -1;
        ri = (size_t)*slot - 1;
    }
    return -1;
}

static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            const char *x = a, *y = b;
            while (*x == '0')
                x++;
            while (*y == '0')
                y++;
            size_t lx = strspn(x, "0123456789"), ly = strspn(y, "0123456789");
            if (lx != ly)
                return lx < ly ? -1 : 1;
            int c = strncmp(x, y, lx);
            if (c)
                return c;
            a = x + lx;
            b = y + ly;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++, b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int group_name_cmp(const void *a, const void *b)
{
    const struct cgs_prof_group *x = a, *y = b;
    return natural_cmp(x->name, y->name);
}

static int group_time_cmp(const void *a, const void *b)
{
    const struct cgs_prof_group *x = a, *y = b;
    if (x->kernels.ns != y->kernels.ns)
        return x->kernels.ns > y->kernels.ns ? -1 : 1;
    return natural_cmp(x->name, y->name);
}

static int pk_cmp(const void *a, const void *b)
{
    const struct cgs_prof_pk *x = a, *y = b;
    if (x->stat.ns != y->stat.ns)
        return x->stat.ns > y->stat.ns ? -1 : 1;
    return x->kernel < y->kernel ? -1 : x->kernel > y->kernel;
}

struct kord {
    uint64_t ns;
    uint32_t idx;
};

static int kord_cmp(const void *a, const void *b)
{
    const struct kord *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns > y->ns ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The call (1-based) that key names in m, a new one when it has none (key 0: always new). */
static uint64_t call_of(struct build *b, struct cgs_keymap *m, uint64_t key, int64_t gi)
{
    uint64_t *slot = key ? cgs_keymap_slot(m, key, true) : NULL;
    if (slot && *slot)
        return *slot;
    CGS_ALLOC_GROW(b->call_ns, b->n_calls + 1, b->a_call_ns);
    CGS_ALLOC_GROW(b->call_group, b->n_calls + 1, b->a_call_group);
    b->call_ns[b->n_calls] = 0;
    b->call_group[b->n_calls] = (uint32_t)(gi + 1);
    if (slot)
        *slot = b->n_calls + 1;
    return ++b->n_calls;
}

/* One kernel record's time into its call's sample and its kernel's sample of that call. */
static void sample_add(struct build *b, uint64_t call, uint32_t k, uint32_t pk, uint64_t ns)
{
    uint64_t *slot;
    b->call_ns[call - 1] += ns;
    if (k >= (1u << 24) || call >= ((uint64_t)1 << 40))
        return; /* past what a key holds: the call's sample has it, the kernel's not */
    slot = cgs_keymap_slot(&b->pkcall, call << 24 | k, true);
    if (!*slot) {
        CGS_ALLOC_GROW(b->pkc, b->n_pkc + 1, b->a_pkc);
        b->pkc[b->n_pkc] = (struct pkc){pk, 0};
        *slot = ++b->n_pkc;
    }
    b->pkc[*slot - 1].ns += ns;
}

static void trace_into(struct build *b, const struct cgs_prof_trace *t, uint32_t ti,
                       const char *prefix)
{
    struct cgs_prof_report *r = b->r;
    struct cgs_keymap by_uid = {0}, by_corr = {0}, node_uid = {0}, clone = {0}, replay = {0};
    struct cgs_keymap call_uid = {0}, call_replay = {0};
    uint32_t *fallback = any_thread_ranges(t);
    int64_t *rgroup = cgs_xmalloc(cgs_array_bytes(t->n_ranges + 1, sizeof(*rgroup)));
    size_t *rat = cgs_xmalloc(cgs_array_bytes(t->n_ranges + 1, sizeof(*rat)));
    uint32_t *kname = cgs_xcalloc(t->n_names + 1, sizeof(*kname));

    for (size_t i = 0; i < t->n_ranges; i++)
        if (t->ranges[i].uid)
            *cgs_keymap_slot(&by_uid, t->ranges[i].uid, true) = i + 1;
    for (size_t i = 0; i < t->n_ranges; i++) {
        rgroup[i] = range_group(b, t, &by_uid, i, prefix, &rat[i]);
        /* a piece's calls and CPU time: the ranges that are the piece itself */
        if (rgroup[i] >= 0 && strcmp(r->groups[rgroup[i]].range, t->ranges[i].name) == 0) {
            struct cgs_prof_group *g = &r->groups[rgroup[i]];
            g->calls++;
            if (t->ranges[i].pop != UINT64_MAX && t->ranges[i].pop >= t->ranges[i].push)
                g->cpu_ns += t->ranges[i].pop - t->ranges[i].push;
        }
    }
    for (size_t i = 0; i < t->n_launches; i++)
        *cgs_keymap_slot(&by_corr, (uint64_t)t->launches[i].corr + 1, true) = i + 1;
    /* graph node ids come from the file: 0 is no node (and the maps' empty key), so a record
     * naming node 0 says nothing and is passed over */
    for (size_t i = 0; i < t->n_gnodes; i++)
        if (t->gnodes[i][0])
            *cgs_keymap_slot(&node_uid, t->gnodes[i][0], true) = t->gnodes[i][1] + 1;
    for (size_t i = 0; i < t->n_gclones; i++)
        if (t->gclones[i][0])
            *cgs_keymap_slot(&clone, t->gclones[i][0], true) = t->gclones[i][1];
    for (size_t i = 1; i < t->n_names; i++)
        kname[i] = kernel_of(b, t->names[i]) + 1;

    for (size_t i = 0; i < t->n_work; i++) {
        const struct cgs_prof_work *w = &t->work[i];
        uint64_t uid = 0, ns = w->end > w->start ? w->end - w->start : 0;
        bool captured = false, other = false;
        int64_t gi = -1;
        size_t ri = SIZE_MAX; /* the record's range */
        struct cgs_prof_group *g;
        uint64_t *slot;

        if (w->graph_node) {
            uint64_t n = w->graph_node;
            for (unsigned hops = 0; hops < 16; hops++) {
                slot = cgs_keymap_slot(&node_uid, n, false);
                if (slot && *slot > 1) {
                    uid = *slot - 1;
                    captured = true;
                    break;
                }
                slot = cgs_keymap_slot(&clone, n, false);
                if (!slot || *slot == n)
                    break;
                n = *slot;
            }
        }
        if (!uid) {
            slot = cgs_keymap_slot(&by_corr, (uint64_t)w->corr + 1, false);
            if (!slot) {
                r->no_launch++;
            } else {
                const struct cgs_prof_launch *l = &t->launches[*slot - 1];
                if (l->uid) {
                    uid = l->uid;
                } else if (fallback[*slot - 1]) {
                    uid = t->ranges[fallback[*slot - 1] - 1].uid;
                    other = true;
                }
            }
        }
        if (uid && (slot = cgs_keymap_slot(&by_uid, uid, false))) {
            ri = (size_t)*slot - 1;
            gi = rgroup[ri];
        }
        g = gi >= 0 ? &r->groups[gi] : &r->none;
        if (other)
            g->any_thread++;
        if (w->kind == CGS_PROF_KERNEL) {
            uint32_t k = w->name < t->n_names ? kname[w->name] : 0;
            struct cgs_prof_kernel *kk;
            uint64_t key;
            if (!k)
                k = kernel_of(b, "") + 1;
            kk = &r->kernels[k - 1];
            add(&g->kernels, ns, 0);
            add(&g->per_trace[ti], ns, 0);
            add(&r->kernels_total, ns, 0);
            add(&kk->stat, ns, 0);
            if (ns < kk->min_ns)
                kk->min_ns = ns;
            if (ns > kk->max_ns)
                kk->max_ns = ns;
            if (w->graph_id) {
                g->graph_kernels++;
                if (captured)
                    g->captured_kernels++;
            }
            key = ((uint64_t)(gi + 2) << 32) | k;
            slot = cgs_keymap_slot(&b->pk, key, true);
            if (!*slot) {
                CGS_ALLOC_GROW(b->pks, b->n_pks + 1, b->a_pks);
                CGS_ALLOC_GROW(b->pk_group, b->n_pks + 1, b->a_pk_group);
                b->pks[b->n_pks] = (struct cgs_prof_pk){k - 1, {0, 0, 0}, {NULL, 0}};
                b->pk_group[b->n_pks] = (uint32_t)(gi + 1);
                *slot = ++b->n_pks;
                kk->groups++;
            }
            add(&b->pks[*slot - 1].stat, ns, 0);
            if (b->samples) {
                uint32_t pk = (uint32_t)(*slot - 1);
                uint64_t call;
                size_t li = SIZE_MAX; /* a replay: the range its graph launch was made in */
                if (w->graph_id) {
                    uint64_t *ls = cgs_keymap_slot(&by_corr, (uint64_t)w->corr + 1, false);
                    uint64_t *rs = ls && t->launches[*ls - 1].uid
                                       ? cgs_keymap_slot(&by_uid, t->launches[*ls - 1].uid, false)
                                       : NULL;
                    if (rs && rgroup[*rs - 1] == gi)
                        li = (size_t)*rs - 1;
                }
                /* no piece: each record is a call; a replay launched outside the piece's
                   range (a whole-model graph): each launch; else the piece's range instance
                   (a replay launched inside it is part of that call) */
                if (gi < 0)
                    call = call_of(b, NULL, 0, gi);
                else if (w->graph_id && li == SIZE_MAX)
                    call = call_of(b, &call_replay, ((uint64_t)(gi + 1) << 32) | w->corr, gi);
                else
                    call = call_of(b, &call_uid, t->ranges[rat[w->graph_id ? li : ri]].uid, gi);
                sample_add(b, call, k, pk, ns);
            }
        } else if (w->kind == CGS_PROF_MEMCPY) {
            add(&g->memcpy, ns, w->bytes);
            add(&r->memcpy_total, ns, w->bytes);
        } else {
            add(&g->memset, ns, w->bytes);
            add(&r->memset_total, ns, w->bytes);
        }
        if (w->graph_id) {
            /* a replay is one graph launch (its correlation id) of this trace per group */
            uint64_t key = ((uint64_t)(gi + 2) << 32) | w->corr;
            slot = cgs_keymap_slot(&replay, key, true);
            if (!*slot) {
                *slot = 1;
                g->graph_replays++;
            }
        }
    }
    free(kname);
    free(rgroup);
    free(rat);
    free(fallback);
    cgs_keymap_release(&call_uid);
    cgs_keymap_release(&call_replay);
    cgs_keymap_release(&by_uid);
    cgs_keymap_release(&by_corr);
    cgs_keymap_release(&node_uid);
    cgs_keymap_release(&clone);
    cgs_keymap_release(&replay);
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Count, allocate, fill and sort: every group's calls and every group kernel's calls. */
static void samples_into(struct build *b)
{
    struct cgs_prof_report *r = b->r;
    uint32_t *fill = cgs_xcalloc(b->n_pks + r->n_groups + 2, sizeof(*fill));
    for (size_t c = 0; c < b->n_calls; c++) {
        uint32_t gi = b->call_group[c];
        struct cgs_prof_group *g = gi ? &r->groups[gi - 1] : &r->none;
        g->per_call.n++;
    }
    for (uint32_t i = 0; i <= r->n_groups; i++) {
        struct cgs_prof_group *g = i < r->n_groups ? &r->groups[i] : &r->none;
        g->per_call.ns = cgs_xcalloc((size_t)g->per_call.n + 1, sizeof(uint64_t));
    }
    for (size_t c = 0; c < b->n_calls; c++) {
        uint32_t gi = b->call_group[c];
        struct cgs_prof_group *g = gi ? &r->groups[gi - 1] : &r->none;
        g->per_call.ns[fill[gi ? gi - 1 : r->n_groups]++] = b->call_ns[c];
    }
    for (size_t i = 0; i < b->n_pkc; i++)
        b->pks[b->pkc[i].pk].per_call.n++;
    for (size_t i = 0; i < b->n_pks; i++)
        b->pks[i].per_call.ns = cgs_xcalloc((size_t)b->pks[i].per_call.n + 1, sizeof(uint64_t));
    memset(fill, 0, (b->n_pks + r->n_groups + 2) * sizeof(*fill));
    for (size_t i = 0; i < b->n_pkc; i++)
        b->pks[b->pkc[i].pk].per_call.ns[fill[b->pkc[i].pk]++] = b->pkc[i].ns;
    for (uint32_t i = 0; i <= r->n_groups; i++) {
        struct cgs_prof_group *g = i < r->n_groups ? &r->groups[i] : &r->none;
        qsort(g->per_call.ns, g->per_call.n, sizeof(uint64_t), u64_cmp);
    }
    for (size_t i = 0; i < b->n_pks; i++)
        qsort(b->pks[i].per_call.ns, b->pks[i].per_call.n, sizeof(uint64_t), u64_cmp);
    free(fill);
}

int cgs_prof_report_build(const struct cgs_prof_trace *traces, uint32_t n,
                          const struct cgs_prof_opts *o, struct cgs_prof_report *r,
                          struct cgs_diag *d)
{
    struct build b;
    uint32_t *remap;

    (void)d;
    memset(r, 0, sizeof(*r));
    memset(&b, 0, sizeof(b));
    b.r = r;
    b.samples = o && o->samples;
    r->by = o ? o->by : CGS_PROF_BY_PIECE;
    r->prefix = o && o->prefix ? o->prefix : NULL;
    for (uint32_t i = 0; !r->prefix && i < n; i++)
        if (traces[i].nvtx_prefix && traces[i].nvtx_prefix[0])
            r->prefix = traces[i].nvtx_prefix;
    if (!r->prefix)
        r->prefix = CGS_PROF_DEFAULT_PREFIX;
    r->n_traces = n;
    r->none.name = cgs_xstrdup("");
    r->none.range = cgs_xstrdup("");
    r->none.per_trace = cgs_xcalloc(n + 1, sizeof(*r->none.per_trace));
    b.groups = cgs_strmap_new();
    b.kernels = cgs_strmap_new();
    for (uint32_t i = 0; i < n; i++)
        trace_into(&b, &traces[i], i, r->prefix);

    if (b.samples)
        samples_into(&b);
    /* each group's kernels, by GPU time */
    for (size_t i = 0; i < b.n_pks; i++) {
        struct cgs_prof_group *g = b.pk_group[i] ? &r->groups[b.pk_group[i] - 1] : &r->none;
        g->n_top++;
    }
    for (uint32_t i = 0; i < r->n_groups; i++) {
        r->groups[i].top = cgs_xcalloc(r->groups[i].n_top + 1, sizeof(struct cgs_prof_pk));
        r->groups[i].n_top = 0;
    }
    r->none.top = cgs_xcalloc(r->none.n_top + 1, sizeof(struct cgs_prof_pk));
    r->none.n_top = 0;
    for (size_t i = 0; i < b.n_pks; i++) {
        struct cgs_prof_group *g = b.pk_group[i] ? &r->groups[b.pk_group[i] - 1] : &r->none;
        g->top[g->n_top++] = b.pks[i];
    }
    /* kernels by GPU time; the groups' kernel indexes follow */
    {
        struct kord *order = cgs_xmalloc(cgs_array_bytes(r->n_kernels + 1, sizeof(*order)));
        struct cgs_prof_kernel *sorted;
        for (uint32_t i = 0; i < r->n_kernels; i++)
            order[i] = (struct kord){r->kernels[i].stat.ns, i};
        qsort(order, r->n_kernels, sizeof(*order), kord_cmp);
        remap = cgs_xmalloc(cgs_array_bytes(r->n_kernels + 1, sizeof(*remap)));
        sorted = cgs_xmalloc(cgs_array_bytes(r->n_kernels + 1, sizeof(*sorted)));
        for (uint32_t i = 0; i < r->n_kernels; i++) {
            sorted[i] = r->kernels[order[i].idx];
            remap[order[i].idx] = i;
        }
        free(r->kernels);
        r->kernels = sorted;
        free(order);
    }
    for (uint32_t i = 0; i <= r->n_groups; i++) {
        struct cgs_prof_group *g = i < r->n_groups ? &r->groups[i] : &r->none;
        for (uint32_t k = 0; k < g->n_top; k++)
            g->top[k].kernel = remap[g->top[k].kernel];
        qsort(g->top, g->n_top, sizeof(*g->top), pk_cmp);
    }
    free(remap);
    for (uint32_t i = 0; i < r->n_kernels; i++)
        if (r->kernels[i].min_ns == UINT64_MAX)
            r->kernels[i].min_ns = 0;
    if (r->n_groups)
        qsort(r->groups, r->n_groups, sizeof(*r->groups),
              r->by == CGS_PROF_BY_PIECE ? group_name_cmp : group_time_cmp);

    /* names to groups, for cgs_prof_find, now that the groups have their final places */
    r->by_name = cgs_strmap_new();
    for (uint32_t i = 0; i < r->n_groups; i++)
        cgs_strmap_put(r->by_name, r->groups[i].name, &r->groups[i]);

    cgs_strmap_free(b.groups);
    cgs_strmap_free(b.kernels);
    cgs_keymap_release(&b.pk);
    cgs_keymap_release(&b.pkcall);
    free(b.pks);
    free(b.pk_group);
    free(b.call_ns);
    free(b.call_group);
    free(b.pkc);
    return 0;
}

static void group_release(struct cgs_prof_group *g)
{
    free(g->name);
    free(g->range);
    free(g->per_trace);
    for (uint32_t k = 0; g->top && k < g->n_top; k++)
        free(g->top[k].per_call.ns);
    free(g->top);
    free(g->per_call.ns);
}

void cgs_prof_report_release(struct cgs_prof_report *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n_groups; i++)
        group_release(&r->groups[i]);
    free(r->groups);
    group_release(&r->none);
    for (uint32_t i = 0; i < r->n_kernels; i++)
        free(r->kernels[i].name);
    free(r->kernels);
    cgs_strmap_free(r->by_name);
    memset(r, 0, sizeof(*r));
}

const struct cgs_prof_group *cgs_prof_find(const struct cgs_prof_report *r, const char *name)
{
    return r->by_name ? cgs_strmap_get(r->by_name, name) : NULL;
}

size_t cgs_prof_graph_part(const char *name)
{
    const char *s = name ? strrchr(name, '/') : NULL;
    return s ? (size_t)(s - name) : 0;
}

const struct cgs_prof_group *cgs_prof_find_piece(const struct cgs_prof_report *r,
                                                 const char *graph_id, const char *piece,
                                                 bool *ambiguous)
{
    const struct cgs_prof_group *g = NULL;
    *ambiguous = false;
    if (graph_id) {
        struct cgs_buf b = CGS_BUF_INIT;
        cgs_buf_addf(&b, "%s/%s", graph_id, piece);
        g = cgs_prof_find(r, b.buf);
        cgs_buf_release(&b);
        if (g)
            return g;
    }
    if ((g = cgs_prof_find(r, piece)) || graph_id)
        return g;
    for (uint32_t i = 0; i < r->n_groups; i++) {
        const char *name = r->groups[i].name;
        size_t k = cgs_prof_graph_part(name);
        if (k && !strcmp(name + k + 1, piece)) {
            if (g) {
                *ambiguous = true;
                return NULL;
            }
            g = &r->groups[i];
        }
    }
    return g;
}

/* Add the graph part of name to the ", "-separated list in buf unless it is there. */
static void add_graph_id(const char *name, char *buf, size_t n)
{
    size_t k = cgs_prof_graph_part(name), len = strlen(buf);
    if (!k)
        return;
    for (const char *p = buf; *p;) {
        size_t m = strcspn(p, ",");
        if (m == k && !strncmp(p, name, k))
            return;
        p += m;
        p += strspn(p, ", ");
    }
    if (len + k + 3 < n)
        snprintf(buf + len, n - len, "%s%.*s", len ? ", " : "", (int)k, name);
}

void cgs_prof_graph_ids(const struct cgs_prof_report *r, char *buf, size_t n)
{
    buf[0] = 0;
    for (uint32_t i = 0; i < r->n_groups; i++)
        add_graph_id(r->groups[i].name, buf, n);
}

int cgs_prof_summary_select(struct cgs_prof_summary *p, const char *graph_id, char *why,
                            size_t n)
{
    char ids[512] = "";
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->n_pieces; i++)
        add_graph_id(p->pieces[i].name, ids, sizeof(ids));
    if (!ids[0])
        return 0; /* no piece names a graph: an older run */
    if (!graph_id) {
        if (strchr(ids, ',')) {
            snprintf(why, n, "%s", ids);
            return -1;
        }
        graph_id = ids;
    }
    size_t glen = strlen(graph_id);
    for (uint32_t i = 0; i < p->n_pieces; i++) {
        struct cgs_prof_summary_piece x = p->pieces[i];
        size_t part = cgs_prof_graph_part(x.name);
        if (part && (part != glen || strncmp(x.name, graph_id, glen))) {
            free(x.name); /* another graph's piece */
            continue;
        }
        if (part)
            memmove(x.name, x.name + part + 1, strlen(x.name + part + 1) + 1);
        p->pieces[k++] = x;
    }
    p->n_pieces = k;
    return 0;
}

/* ---- report JSON, as dot --profile reads it ----------------------------------------------------- */

void cgs_prof_summary_free(struct cgs_prof_summary *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->n_pieces; i++)
        free(p->pieces[i].name);
    free(p->pieces);
    free(p);
}

static int get_count(const cJSON *o, const char *key, uint64_t *out, struct cgs_diag *d,
                     const char *where)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble > 1.8e19) {
        cgs_diag_path(d, "%s%s%s", where, *where ? "." : "", key);
        return cgs_diag_set(d, CGS_E_SCHEMA, "expected a non-negative number for '%s'", key);
    }
    *out = (uint64_t)x->valuedouble;
    return 0;
}

int cgs_prof_summary_parse(const char *buf, size_t len, const char *file,
                           struct cgs_prof_summary **out, struct cgs_diag *d)
{
    struct cgs_json_error e = {0};
    cJSON *doc = cgs_json_parse(buf, len, &e);
    const cJSON *arr, *it;
    struct cgs_prof_summary *p;
    uint32_t i = 0;
    int rc;

    *out = NULL;
    if (!doc) {
        uint32_t line, col;
        cgs_text_position(buf, len, e.off, &line, &col);
        cgs_diag_at(d, file, line, col);
        const char *m = e.msg;
        if (!strncmp(m, "malformed JSON: ", 16))
            m += 16;
        return cgs_diag_set(d, e.code ? e.code : CGS_E_PARSE, "malformed JSON in profile report: %s",
                            m);
    }
    cgs_diag_at(d, file, 0, 0);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return cgs_diag_set(d, CGS_E_SCHEMA, "expected a report object");
    }
    arr = cJSON_GetObjectItemCaseSensitive(doc, "pieces");
    if (!cJSON_IsArray(arr)) {
        cJSON_Delete(doc);
        cgs_diag_path(d, "pieces");
        return cgs_diag_set(d, CGS_E_SCHEMA, "expected array for 'pieces'");
    }
    p = cgs_xcalloc(1, sizeof(*p));
    p->pieces = cgs_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*p->pieces));
    cJSON_ArrayForEach(it, arr)
    {
        char where[32];
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");
        snprintf(where, sizeof(where), "pieces[%u]", i);
        if (!cJSON_IsObject(it)) {
            cgs_diag_path(d, "%s", where);
            rc = cgs_diag_set(d, CGS_E_SCHEMA, "expected a piece object, got %s",
                              cgs_json_type(it));
            goto fail;
        }
        if (!cJSON_IsString(name)) {
            cgs_diag_path(d, "%s.name", where);
            rc = cgs_diag_set(d, CGS_E_SCHEMA, "expected a string for 'name'");
            goto fail;
        }
        if ((rc = get_count(it, "kernels", &p->pieces[i].kernels, d, where)) ||
            (rc = get_count(it, "gpu_ns", &p->pieces[i].gpu_ns, d, where)))
            goto fail;
        p->pieces[i].name = cgs_xstrdup(name->valuestring);
        p->n_pieces = ++i;
    }
    if ((rc = get_count(doc, "kernels", &p->kernels, d, "")) ||
        (rc = get_count(doc, "gpu_ns", &p->gpu_ns, d, "")))
        goto fail;
    cJSON_Delete(doc);
    *out = p;
    return 0;
fail:
    cJSON_Delete(doc);
    cgs_prof_summary_free(p);
    return rc;
}

int cgs_prof_summary_load(const char *path, struct cgs_prof_summary **out, struct cgs_diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    int rc;

    *out = NULL;
    if ((rc = cgs_read_file(path, &buf, &len, (size_t)256 << 20, d)) < 0) {
        cgs_diag_at(d, path, 0, 0);
        return rc;
    }
    rc = cgs_prof_summary_parse(buf, len, path, out, d);
    free(buf);
    return rc;
}

struct cgs_prof_summary *cgs_prof_summary_of(const struct cgs_prof_report *r)
{
    struct cgs_prof_summary *p = cgs_xcalloc(1, sizeof(*p));
    p->pieces = cgs_xcalloc(r->n_groups + 1, sizeof(*p->pieces));
    for (uint32_t i = 0; i < r->n_groups; i++) {
        p->pieces[i].name = cgs_xstrdup(r->groups[i].name);
        p->pieces[i].kernels = r->groups[i].kernels.count;
        p->pieces[i].gpu_ns = r->groups[i].kernels.ns;
    }
    p->n_pieces = r->n_groups;
    p->kernels = r->kernels_total.count;
    p->gpu_ns = r->kernels_total.ns;
    return p;
}
