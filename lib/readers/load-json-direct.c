/*
 * The graph JSON reader's direct walk: the usual node read straight from its text
 * (lib/readers/load-json-int.h; docs/design.md "Reading graph JSON").
 */
#include "lib/readers/load-json-int.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lib/base/arena.h"
#include "lib/base/strmap.h"
#include "lib/ir/symexpr.h"

/* ---- nodes straight from their text ------------------------------------------------ */

/*
 * The usual node is read straight from its text: one walk checks it as the scanner does (the
 * scanner's own string, number and value checks) and builds the node, with no tree, no key
 * looked up by name and no number read twice. What that walk does not take (any error, a key
 * written with an escape or given twice, a tensor's shape, stride and storage_offset out of that
 * order, a reference to a node not read yet, a rare argument or value kind) makes it give the
 * node back, nothing of it seen (no node added), and the tree path reads it: every answer and
 * every error is the tree path's. Dimensions are read in the tree path's order (a tensor's
 * shape, stride, storage_offset; a symint's once no "shape" can make it a tensor), so the
 * symbols are made in its order too.
 */
#define D_NO     1  /* not taken: the tree path reads the node */
#define D_NEST   20 /* containers the walk goes into, at most (the tree path's limit is 64) */
#define D_SHORT  16 /* items of a list read before it is copied into the graph */

static inline size_t d_ws(const struct loader *L, size_t p)
{
    if (p < L->len && (unsigned char)L->buf[p] > ' ') /* compact JSON: nothing to pass */
        return p;
    return cgs_jscan_ws(&L->js, p);
}

/* The string at p, checked: *end past its quote, *special when it holds an escape. */
static int d_string(struct loader *L, size_t p, size_t *end, bool *special)
{
    if (p >= L->len || L->buf[p] != '"')
        return D_NO;
    L->js.str_special = false;
    if (cgs_jscan_string(&L->js, p, end))
        return D_NO;
    *special = L->js.str_special;
    return 0;
}

/* The checked string [p, end), decoded and terminated, in the node's region (dropped with it). */
static const char *d_text(struct loader *L, size_t p, size_t end, bool special)
{
    char *o = cJSON_malloc(end - p - 1);
    if (o)
        cgs_jscan_decode(&L->js, p, end, special, o);
    return o;
}

/* The string at p as text (NULL: not taken). */
static const char *d_string_text(struct loader *L, size_t p, size_t *end)
{
    bool special;
    if (d_string(L, p, end, &special))
        return NULL;
    return d_text(L, p, *end, special);
}

/* The literal at p (null, true, false): its kind as 'n', 't', 'f', or 0. */
static char d_literal(const struct loader *L, size_t p, size_t *end)
{
    const char *b = L->buf + p;
    size_t left = L->len - p;
    if (left >= 4 && !memcmp(b, "null", 4))
        return *end = p + 4, 'n';
    if (left >= 4 && !memcmp(b, "true", 4))
        return *end = p + 4, 't';
    if (left >= 5 && !memcmp(b, "false", 5))
        return *end = p + 5, 'f';
    return 0;
}

/* The number at p, in the grammar of cgs_jscan_number: an integer (*is_int; one past int64 is
 * not taken) or the double that get_double reads. */
static int d_number(struct loader *L, size_t p, size_t *end, bool *is_int, int64_t *iv,
                    double *fv)
{
    const char *b = L->buf;
    size_t q = p, len = L->len;
    bool neg = q < len && b[q] == '-';
    uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    bool over = false;

    q += neg;
    if (q >= len || b[q] < '0' || b[q] > '9')
        return D_NO;
    for (size_t first = q; q < len && b[q] >= '0' && b[q] <= '9'; q++) {
        unsigned d = (unsigned)(b[q] - '0');
        if (q - first >= 18) /* past 18 digits int64 may overflow */
            over |= u > (lim - d) / 10;
        u = u * 10 + d;
    }
    if (q < len && (b[q] == '.' || b[q] == 'e' || b[q] == 'E')) {
        if (cgs_jscan_number(&L->js, p, end))
            return D_NO;
        *is_int = false;
        *fv = strtod(b + p, NULL);
        return 0;
    }
    if (over)
        return D_NO;
    *end = q;
    *is_int = true;
    *iv = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 0;
}

/* After a value inside a container closed by `close`: *more set at ',' and cleared at the close
 * (*p past either); D_NO at anything else. */
static int d_next(const struct loader *L, size_t *p, char close, bool *more)
{
    size_t q = d_ws(L, *p);
    if (q < L->len && L->buf[q] == ',') {
        *p = q + 1;
        *more = true;
        return 0;
    }
    if (q < L->len && L->buf[q] == close) {
        *p = q + 1;
        *more = false;
        return 0;
    }
    return D_NO;
}

/* How many values the array or object at p holds, from its brackets and strings alone (the walk
 * that reads them checks the rest); -1 when its end is not found. */
static long d_count(const struct loader *L, size_t p)
{
    const char *b = L->buf;
    long commas = 0;
    int depth = 0;
    bool any = false;
    for (size_t q = p; q < L->len; q++) {
        char c = b[q];
        if (c == '"') {
            for (q++; q < L->len && b[q] != '"'; q++)
                if (b[q] == '\\')
                    q++;
            any = true;
        } else if (c == '[' || c == '{') {
            any |= depth > 0;
            depth++;
        } else if (c == ']' || c == '}') {
            if (--depth == 0)
                return any ? commas + 1 : 0;
        } else if (depth == 1) {
            if (c == ',')
                commas++;
            else if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                any = true;
        }
    }
    return -1;
}

/* The value at p skipped, checked by the scanner as the tree path's scan would (nest: the
 * containers around it). */
static int d_skip(struct loader *L, size_t p, int nest, size_t *end)
{
    int err;
    L->js.depth_base = nest;
    err = cgs_jscan_value(&L->js, p, end);
    L->js.depth_base = 0;
    return err ? D_NO : 0;
}

/* The member key at p, up to its ':' (*v: the value's first byte); *key and *klen the raw key
 * (a key with an escape is not taken). */
static int d_key(struct loader *L, size_t p, const char **key, size_t *klen, size_t *v)
{
    const unsigned char *b = (const unsigned char *)L->buf;
    size_t e = p + 1;
    bool special;
    if (p >= L->len || b[p] != '"')
        return D_NO;
    /* a key of printable ASCII up to its quote (every key cgscope reads); else the scanner */
#ifdef __SSE2__
    while (L->len - e >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(b + e));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                         _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
            _mm_cmplt_epi8(x, _mm_set1_epi8(0x20)))); /* signed: below 0x20 or from 0x80 */
        if (m) {
            e += (size_t)__builtin_ctz(m);
            break;
        }
        e += 16;
    }
#endif
    while (e < L->len && b[e] >= 0x20 && b[e] < 0x80 && b[e] != '"' && b[e] != '\\')
        e++;
    if (e < L->len && b[e] == '"' && e - p <= CGS_LOAD_MAX_STRING)
        e++;
    else if (d_string(L, p, &e, &special) || special)
        return D_NO;
    *key = L->buf + p + 1;
    *klen = e - p - 2;
    e = d_ws(L, e);
    if (e >= L->len || L->buf[e] != ':')
        return D_NO;
    *v = d_ws(L, e + 1);
    return *v < L->len ? 0 : D_NO;
}

#define D_KEY(k, lit) (k##len == sizeof(lit) - 1 && !memcmp(k, lit, sizeof(lit) - 1))

/* A dimension (get_dim's reading; its warnings and errors are the tree path's). */
static int d_dim(struct loader *L, struct cgs_graph *g, size_t p, bool is_size, size_t *end,
                 const struct cgs_sym **out)
{
    int64_t v;
    if (p >= L->len)
        return D_NO;
    if (L->buf[p] == '"') {
        const char *t = d_string_text(L, p, end);
        struct cgs_diag pd = CGS_DIAG_INIT;
        int got;
        if (!t || (got = cgs_load_dim_text(L, g, t, is_size, out, &pd)) < 0 ||
            (!got && is_size && cgs_sym_is_int(*out, &v) && v < 0))
            return D_NO;
        return 0;
    }
    bool is_int;
    double f;
    if (d_number(L, p, end, &is_int, &v, &f) || !is_int || (is_size && v < 0) ||
        v > CGS_LOAD_MAX_DIM || v < -CGS_LOAD_MAX_DIM)
        return D_NO;
    *out = cgs_sym_int(g->syms, v);
    return 0;
}

/* The dimensions array at p (get_dims'). */
static int d_dims(struct loader *L, struct cgs_graph *g, size_t p, bool is_size, size_t *end,
                  uint32_t *n, const struct cgs_sym ***out)
{
    const struct cgs_sym *d[CGS_MAX_NDIM];
    uint32_t count = 0;
    bool more = true;
    if (p >= L->len || L->buf[p] != '[')
        return D_NO;
    p = d_ws(L, p + 1);
    if (p < L->len && L->buf[p] == ']') {
        p++;
        more = false;
    }
    while (more) {
        if (count == CGS_MAX_NDIM || d_dim(L, g, d_ws(L, p), is_size, &p, &d[count]))
            return D_NO;
        count++;
        if (d_next(L, &p, ']', &more))
            return D_NO;
    }
    if (*n != CGS_NDIM_UNKNOWN && count != *n)
        return D_NO;
    *n = count;
    *out = cgs_arena_calloc(g->arena, count ? count : 1, sizeof(**out));
    memcpy(*out, d, count * sizeof(*d));
    *end = p;
    return 0;
}

static int d_val(struct loader *L, struct cgs_graph *g, size_t p, int nest, struct cgs_val *v,
                 size_t *end);

/* A value object whose first key is "dtype" or "shape" (a tensor: get_tensor's reading) or
 * "symint" (get_val's); p: its first key, nest: the containers around its members' values. */
static int d_val_object(struct loader *L, struct cgs_graph *g, size_t p, int nest,
                        struct cgs_val *v, size_t *end)
{
    enum { DT = 1, SH = 2, ST = 4, SO = 8, DEV = 16, RG = 32, SYM = 64, HINT = 128 };
    unsigned seen = 0;
    bool tensor = false, more = true;
    struct cgs_tensor *t = &v->u.t;
    size_t vp, sym_at = 0;
    const char *key;
    size_t keylen;

    for (bool first = true; more; first = false) {
        unsigned id = 0;
        if (d_key(L, d_ws(L, p), &key, &keylen, &vp))
            return D_NO;
        if (first) {
            tensor = D_KEY(key, "dtype") || D_KEY(key, "shape");
            if (!tensor && !D_KEY(key, "symint"))
                return D_NO;
            v->kind = tensor ? CGS_VAL_TENSOR : CGS_VAL_SYMINT;
            if (tensor)
                t->ndim = CGS_NDIM_UNKNOWN;
        }
        if (D_KEY(key, "shape") && !tensor)
            return D_NO; /* a tensor after all: the tree path decides */
        if (tensor)
            id = D_KEY(key, "dtype")            ? DT
                 : D_KEY(key, "shape")          ? SH
                 : D_KEY(key, "stride")         ? ST
                 : D_KEY(key, "storage_offset") ? SO
                 : D_KEY(key, "device")         ? DEV
                 : D_KEY(key, "requires_grad")  ? RG
                                                : 0;
        else
            id = D_KEY(key, "symint") ? SYM : D_KEY(key, "hint") ? HINT : 0;
        /* a key given twice, or shape, stride and storage_offset out of order */
        if (id & seen || (id == SH && seen & (ST | SO)) || (id == ST && seen & SO) ||
            ((id == ST || id == SO) && !(seen & SH)))
            return D_NO;
        seen |= id;
        char lit = L->buf[vp] == 'n' || L->buf[vp] == 't' || L->buf[vp] == 'f'
                       ? d_literal(L, vp, &p) : 0;
        switch (id) {
        case DT: {
            const char *name = d_string_text(L, vp, &p);
            if (!name || (t->dtype = cgs_dtype_from_name(name)) == CGS_DTYPE_UNKNOWN)
                return D_NO;
            break;
        }
        case SH:
            if (d_dims(L, g, vp, true, &p, &t->ndim, &t->shape))
                return D_NO;
            break;
        case ST:
            if (lit != 'n' && d_dims(L, g, vp, false, &p, &t->ndim, &t->stride))
                return D_NO;
            break;
        case SO:
            if (lit == 'n')
                t->storage_offset = NULL;
            else if (d_dim(L, g, vp, true, &p, &t->storage_offset))
                return D_NO;
            break;
        case DEV:
            if (lit != 'n') {
                const char *dev = d_string_text(L, vp, &p);
                if (!dev)
                    return D_NO;
                t->device = cgs_graph_intern(g, dev);
            }
            break;
        case RG:
            if (!lit)
                return D_NO;
            if (lit != 'n')
                t->requires_grad = lit == 't';
            break;
        case SYM: /* read at the end, once no "shape" can make it a tensor */
            sym_at = vp;
            if (d_skip(L, vp, nest, &p))
                return D_NO;
            break;
        case HINT:
            if (lit != 'n') {
                bool is_int;
                double f;
                if (d_number(L, vp, &p, &is_int, &v->u.s.hint, &f) || !is_int)
                    return D_NO;
                v->has_hint = true;
            }
            break;
        default:
            if (d_skip(L, vp, nest, &p))
                return D_NO;
            break;
        }
        if (d_next(L, &p, '}', &more))
            return D_NO;
    }
    if (tensor) {
        if ((seen & (DT | SH)) != (DT | SH))
            return D_NO;
        if (!(seen & SO))
            t->storage_offset = cgs_sym_int(g->syms, 0);
    } else {
        size_t e;
        if (!(seen & SYM) || d_dim(L, g, sym_at, false, &e, &v->u.s.sym))
            return D_NO;
    }
    *end = p;
    return 0;
}

static int d_val(struct loader *L, struct cgs_graph *g, size_t p, int nest, struct cgs_val *v,
                 size_t *end)
{
    if (p >= L->len)
        return D_NO;
    char c = L->buf[p], lit;
    if (c == '{' || c == '[') {
        if (nest + 1 > D_NEST)
            return D_NO;
        size_t q = d_ws(L, p + 1);
        if (q >= L->len)
            return D_NO;
        if (c == '{')
            return L->buf[q] == '}' ? D_NO : d_val_object(L, g, q, nest + 1, v, end);
        struct cgs_val tmp[D_SHORT];
        bool more = L->buf[q] != ']';
        long n = 0;
        size_t start = p;
        p = more ? q : q + 1;
        for (; more; n++) {
            if (n == D_SHORT) { /* long: counted, then read in place */
                if ((n = d_count(L, start)) < 0)
                    return D_NO;
                v->kind = CGS_VAL_LIST;
                v->n = (uint32_t)n;
                v->u.items = cgs_arena_calloc(g->arena, (size_t)n, sizeof(*v->u.items));
                p = d_ws(L, start + 1);
                more = true;
                for (long i = 0; more; i++) {
                    if (i == n || d_val(L, g, d_ws(L, p), nest + 1, &v->u.items[i], &p) ||
                        d_next(L, &p, ']', &more) || (!more && i + 1 != n))
                        return D_NO;
                }
                *end = p;
                return 0;
            }
            memset(&tmp[n], 0, sizeof(tmp[n]));
            if (d_val(L, g, d_ws(L, p), nest + 1, &tmp[n], &p) || d_next(L, &p, ']', &more))
                return D_NO;
        }
        v->kind = CGS_VAL_LIST;
        v->n = (uint32_t)n;
        v->u.items = cgs_arena_calloc(g->arena, n ? (size_t)n : 1, sizeof(*v->u.items));
        memcpy(v->u.items, tmp, (size_t)n * sizeof(*tmp));
        *end = p;
        return 0;
    }
    if ((lit = d_literal(L, p, end))) {
        v->kind = lit == 'n' ? CGS_VAL_NONE : CGS_VAL_BOOL;
        if (lit != 'n')
            v->u.b = lit == 't';
        return 0;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        bool is_int;
        if (d_number(L, p, end, &is_int, &v->u.i, &v->u.f))
            return D_NO;
        v->kind = is_int ? CGS_VAL_INT : CGS_VAL_FLOAT;
        return 0;
    }
    return D_NO;
}

static int d_arg(struct loader *L, struct cgs_graph *g, uint32_t node_index, size_t p, int nest,
                 struct cgs_arg *a, size_t *end);

/* The array at p as a list argument's items (get_arg_list's): a short one read into a local
 * array and copied, a longer one counted first. */
static int d_arg_list(struct loader *L, struct cgs_graph *g, uint32_t node_index, size_t p,
                      int nest, struct cgs_arg *a, size_t *end)
{
    struct cgs_arg tmp[D_SHORT];
    size_t q, start = p;
    long n = 0;
    bool more;

    if (p >= L->len || L->buf[p] != '[' || nest + 1 > D_NEST)
        return D_NO;
    q = d_ws(L, p + 1);
    more = q < L->len && L->buf[q] != ']';
    p = more ? q : q + 1;
    for (; more; n++) {
        if (n == D_SHORT) { /* long: counted, then read in place */
            if ((n = d_count(L, start)) < 0)
                return D_NO;
            a->n = (uint32_t)n;
            a->u.items = cgs_arena_calloc(g->arena, (size_t)n, sizeof(*a->u.items));
            p = d_ws(L, start + 1);
            more = true;
            for (long i = 0; more; i++)
                if (i == n || d_arg(L, g, node_index, d_ws(L, p), nest + 1, &a->u.items[i], &p) ||
                    d_next(L, &p, ']', &more) || (!more && i + 1 != n))
                    return D_NO;
            *end = p;
            return 0;
        }
        memset(&tmp[n], 0, sizeof(tmp[n]));
        if (d_arg(L, g, node_index, d_ws(L, p), nest + 1, &tmp[n], &p) ||
            d_next(L, &p, ']', &more))
            return D_NO;
    }
    a->n = (uint32_t)n;
    a->u.items = n ? cgs_arena_calloc(g->arena, (size_t)n, sizeof(*a->u.items)) : NULL;
    if (n)
        memcpy(a->u.items, tmp, (size_t)n * sizeof(*tmp));
    *end = p;
    return 0;
}

static int d_arg(struct loader *L, struct cgs_graph *g, uint32_t node_index, size_t p, int nest,
                 struct cgs_arg *a, size_t *end)
{
    if (p >= L->len)
        return D_NO;
    char c = L->buf[p], lit;
    if (c == '"') {
        const char *s = d_string_text(L, p, end);
        if (!s)
            return D_NO;
        a->kind = CGS_ARG_STR;
        a->u.s = cgs_graph_intern(g, s);
        return 0;
    }
    if (c == '[') {
        a->kind = CGS_ARG_LIST;
        return d_arg_list(L, g, node_index, p, nest, a, end);
    }
    if ((lit = d_literal(L, p, end))) {
        a->kind = lit == 'n' ? CGS_ARG_NONE : CGS_ARG_BOOL;
        if (lit != 'n')
            a->u.b = lit == 't';
        return 0;
    }
    if (c != '{') {
        bool is_int;
        if (d_number(L, p, end, &is_int, &a->u.i, &a->u.f))
            return D_NO;
        a->kind = is_int ? CGS_ARG_INT : CGS_ARG_FLOAT;
        return 0;
    }
    /* an object of one key */
    const char *key;
    size_t keylen, v, q;
    bool more;
    if (nest + 1 > D_NEST || d_key(L, d_ws(L, p + 1), &key, &keylen, &v))
        return D_NO;
    if (D_KEY(key, "node")) {
        const char *name = d_string_text(L, v, &q);
        struct cgs_node *n;
        if (!name)
            return D_NO;
        /* a node not read yet (later, unknown or itself) is an error the tree path tells */
        if (!(n = cgs_graph_find(g, name)) || n->index >= node_index)
            return D_NO;
        a->kind = CGS_ARG_NODE;
        a->u.node = n;
    } else if (D_KEY(key, "dtype")) {
        const char *name = d_string_text(L, v, &q);
        if (!name || (a->u.dtype = cgs_dtype_from_name(name)) == CGS_DTYPE_UNKNOWN)
            return D_NO;
        a->kind = CGS_ARG_DTYPE;
    } else if (D_KEY(key, "device") || D_KEY(key, "memory_format") || D_KEY(key, "layout") ||
               D_KEY(key, "repr")) {
        const char *s = d_string_text(L, v, &q);
        if (!s)
            return D_NO;
        a->kind = key[0] == 'd'   ? CGS_ARG_DEVICE
                  : key[0] == 'm' ? CGS_ARG_MEMFMT
                  : key[0] == 'l' ? CGS_ARG_LAYOUT
                                  : CGS_ARG_REPR;
        a->u.s = cgs_graph_intern(g, s);
    } else if (D_KEY(key, "slice") || D_KEY(key, "list")) {
        bool slice = key[0] == 's';
        if (L->buf[v] != '[' || (slice && d_count(L, v) != 3))
            return D_NO;
        a->kind = slice ? CGS_ARG_SLICE : CGS_ARG_LIST;
        a->pylist = !slice;
        if (d_arg_list(L, g, node_index, v, nest + 1, a, &q))
            return D_NO;
    } else if (D_KEY(key, "ellipsis")) {
        if (d_skip(L, v, nest + 1, &q))
            return D_NO;
        a->kind = CGS_ARG_ELLIPSIS;
    } else {
        return D_NO; /* float, dict, or not one the tree path takes */
    }
    if (d_next(L, &q, '}', &more) || more)
        return D_NO;
    *end = q;
    return 0;
}

/* The kwargs object at p (convert_node's reading: every member, a key given twice too). */
static int d_kwargs(struct loader *L, struct cgs_graph *g, uint32_t node_index, size_t p,
                    size_t *end, struct cgs_kwarg **out, uint32_t *n_out)
{
    struct cgs_kwarg *kwargs;
    long cnt;
    bool more;
    if (L->buf[p] != '{' || (cnt = d_count(L, p)) < 0)
        return D_NO;
    kwargs = cnt ? cgs_arena_calloc(g->arena, (size_t)cnt, sizeof(*kwargs)) : NULL;
    p = d_ws(L, p + 1);
    more = p < L->len && L->buf[p] != '}';
    if (!more)
        p++;
    for (long i = 0; more; i++) {
        const char *k;
        size_t kl, kv;
        char *kt;
        if (i == cnt || d_key(L, d_ws(L, p), &k, &kl, &kv) || !(kt = cJSON_malloc(kl + 1)))
            return D_NO;
        memcpy(kt, k, kl);
        kt[kl] = 0;
        kwargs[i].key = cgs_graph_intern(g, kt);
        if (d_arg(L, g, node_index, kv, 2, &kwargs[i].val, &p) || d_next(L, &p, '}', &more) ||
            (!more && i + 1 != cnt))
            return D_NO;
    }
    *out = kwargs;
    *n_out = (uint32_t)cnt;
    *end = p;
    return 0;
}

/* Stack traces repeat (GPT-2-48's 2,763 nodes hold 45 distinct ones): the string at p is one
 * checked before when its bytes are those of one, its end included; then its end is known and
 * nothing in it needs checking again. The last D_STACKS distinct ones are kept. */
static bool d_seen_stack(const struct loader *L, size_t p, size_t *end, size_t *same)
{
    for (int k = 0; k < L->n_stacks; k++) {
        size_t at = L->stacks[k].at, n = L->stacks[k].len;
        if (n <= L->len - p && L->buf[p + n - 1] == '"' && L->buf[p + n / 2] == L->buf[at + n / 2] &&
            !memcmp(L->buf + p, L->buf + at, n)) {
            *end = p + n;
            *same = at;
            return true;
        }
    }
    return false;
}

/* The checked string [p, end), which d_seen_stack did not know, among the kept ones (the
 * oldest dropped for it). */
static void d_keep_stack(struct loader *L, size_t p, size_t end)
{
    size_t n = end - p;
    if (L->n_stacks < D_STACKS)
        L->n_stacks++;
    memmove(L->stacks + 1, L->stacks, (size_t)(L->n_stacks - 1) * sizeof(L->stacks[0]));
    L->stacks[0].at = p;
    L->stacks[0].len = n;
}

/* Node values repeat (GPT-2-48's 2,763 nodes hold 36 distinct texts, the 100k-node graph 11):
 * the value at p is one read before into g when its bytes are those of one, its end included;
 * what that read gave is what this one gives (the same dimension texts give the same
 * expressions, the same device its interned text, and no read adds a symbol the first did not),
 * so it is copied (the struct, its arrays shared: nothing changes a value once read). The last
 * D_VALS distinct ones are kept, the one met moved first; past 256 tries with fewer than one hit
 * in eight, no more are tried (the answers are the same either way). */
static const struct cgs_val *d_seen_val(struct loader *L, const struct cgs_graph *g, size_t p,
                                        size_t *end)
{
    const char *b = L->buf;
    if (L->val_tries >= 256 && L->val_hits < L->val_tries / 8)
        return NULL;
    L->val_tries++;
    for (int k = 0; k < L->n_vals; k++) {
        size_t at = L->vals[k].at, n = L->vals[k].len;
        uint64_t w1, w2;
        if (n > L->len - p || n < 8 || L->vals[k].g != g)
            continue;
        memcpy(&w1, b + p + n - 8, 8); /* the end first: the starts are alike */
        memcpy(&w2, b + at + n - 8, 8);
        if (w1 != w2 || memcmp(b + p, b + at, n - 8))
            continue;
        const struct cgs_val *v = L->vals[k].v;
        if (k) { /* met again: first */
            struct kept_val x = L->vals[k];
            memmove(L->vals + 1, L->vals, (size_t)k * sizeof(L->vals[0]));
            L->vals[0] = x;
        }
        L->val_hits++;
        *end = p + n;
        return v;
    }
    return NULL;
}

/* The value [p, end) read into v, which d_seen_val did not know, kept first (the oldest
 * dropped for it). */
static void d_keep_val(struct loader *L, const struct cgs_graph *g, size_t p, size_t end,
                       const struct cgs_val *v)
{
    if (L->n_vals < D_VALS)
        L->n_vals++;
    memmove(L->vals + 1, L->vals, (size_t)(L->n_vals - 1) * sizeof(L->vals[0]));
    L->vals[0].at = p;
    L->vals[0].len = end - p;
    L->vals[0].v = v;
    L->vals[0].g = g;
}

/* The node object at p read straight from its text: 0 (the node added, *end past it) or D_NO
 * (nothing of it kept: the tree path reads it). */
int cgs_load_direct_node(struct loader *L, struct cgs_graph *g, size_t p, size_t *end)
{
    enum { NAME = 1, OP = 2, TARGET = 4, ARGS = 8, KWARGS = 16, VAL = 32, STACK = 64,
           MPATH = 128, MTYPE = 256, PIECE = 512 };
    const char *name = NULL, *op = NULL, *target = NULL, *strs[4] = {NULL, NULL, NULL, NULL};
    const char *key;
    struct cgs_arg args = {0};
    struct cgs_kwarg *kwargs = NULL;
    struct cgs_val *val = NULL;
    uint32_t index = g->n_nodes, n_kwargs = 0;
    size_t raw_start = 0, raw_len = 0, keylen, v, start = p;
    unsigned seen = 0;
    bool more = true;
    struct cgs_node *n;
    int opk;

    if (L->buf[p] != '{')
        return D_NO;
    for (p++; more;) {
        unsigned id;
        char lit;
        if (d_key(L, d_ws(L, p), &key, &keylen, &v))
            return D_NO;
        lit = L->buf[v] == 'n' || L->buf[v] == 't' || L->buf[v] == 'f' ? d_literal(L, v, &p) : 0;
        switch (key[0]) {
        case 'n': id = D_KEY(key, "name") ? NAME : 0; break;
        case 'o': id = D_KEY(key, "op") ? OP : 0; break;
        case 't': id = D_KEY(key, "target") ? TARGET : 0; break;
        case 'a': id = D_KEY(key, "args") ? ARGS : 0; break;
        case 'k': id = D_KEY(key, "kwargs") ? KWARGS : 0; break;
        case 'v': id = D_KEY(key, "val") ? VAL : 0; break;
        case 's': id = D_KEY(key, "stack_trace") ? STACK : 0; break;
        case 'p': id = D_KEY(key, "piece") ? PIECE : 0; break;
        case 'm':
            id = D_KEY(key, "module_path") ? MPATH : D_KEY(key, "module_type") ? MTYPE : 0;
            break;
        default: id = 0; break;
        }
        if (id & seen)
            return D_NO;
        seen |= id;
        if (!id) {
            if (d_skip(L, v, 1, &p))
                return D_NO;
        } else if (id == NAME || id == OP || id == TARGET) {
            const char **out = id == NAME ? &name : id == OP ? &op : &target;
            if (!(id == TARGET && lit == 'n') && !(*out = d_string_text(L, v, &p)))
                return D_NO;
        } else if (id == ARGS) {
            if (lit != 'n' && d_arg_list(L, g, index, v, 1, &args, &p))
                return D_NO;
        } else if (id == KWARGS) {
            if (lit != 'n' && d_kwargs(L, g, index, v, &p, &kwargs, &n_kwargs))
                return D_NO;
        } else if (id == VAL) {
            if (lit != 'n') {
                const struct cgs_val *same = d_seen_val(L, g, v, &p);
                val = cgs_arena_alloc(g->arena, sizeof(*val));
                if (same) {
                    *val = *same;
                } else {
                    if (d_val(L, g, v, 1, val, &p))
                        return D_NO;
                    d_keep_val(L, g, v, p, val);
                }
            }
        } else if (lit != 'n') { /* the strings */
            int k = id == STACK ? 0 : id == MPATH ? 1 : id == MTYPE ? 2 : 3;
            if (id == STACK && L->lazy_stack) {
                bool special;
                size_t same = v; /* an equal trace's text, read once for both */
                if (!d_seen_stack(L, v, &p, &same)) {
                    if (d_string(L, v, &p, &special))
                        return D_NO;
                    d_keep_stack(L, v, p);
                }
                if (p - v > 2) {
                    raw_start = same;
                    raw_len = p - v;
                } else {
                    strs[0] = "";
                }
            } else if (!(strs[k] = d_string_text(L, v, &p))) {
                return D_NO;
            }
        }
        if (d_next(L, &p, '}', &more))
            return D_NO;
    }
    if (!name || !name[0] || !op || (opk = cgs_node_op_from_name(op)) < 0 ||
        (!target && opk != CGS_NODE_OUTPUT && opk != CGS_NODE_PLACEHOLDER) ||
        g->n_nodes >= CGS_LOAD_MAX_NODES || raw_len > UINT32_MAX)
        return D_NO;
    n = cgs_graph_add_node(g, (enum cgs_node_op)opk, name,
                           target ? target : opk == CGS_NODE_OUTPUT ? "output" : name);
    if (!n)
        return D_NO;
    n->src_offset = start;
    n->args = args.u.items;
    n->n_args = args.n;
    n->kwargs = kwargs;
    n->n_kwargs = n_kwargs;
    n->val = val;
    for (int k = 0; k < 4; k++) {
        const char *s = strs[k] ? cgs_graph_intern(g, strs[k]) : NULL;
        *(k == 0 ? &n->stack_trace : k == 1 ? &n->module_path : k == 2 ? &n->module_type
                                                                          : &n->piece) = s;
    }
    if (raw_len) {
        n->stack_trace = NULL;
        n->stack_raw = L->buf + raw_start;
        n->stack_raw_len = (uint32_t)raw_len;
    }
    *end = p;
    return 0;
}

