#include "lib/ir/symexpr.h"

#include "lib/base/strmap.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TERMS 4096 /* products of sums expand only up to this many terms */
#define MAX_DEPTH 400  /* parser recursion (parentheses and unary signs), a stack bound; the
                          expression's own depth is bounded by CGS_SYM_MAX_TREE_DEPTH */

/* ---- interning ----------------------------------------------------------- */

static uint32_t mix(uint32_t h, uint64_t x)
{
    h ^= (uint32_t)x + 0x9e3779b9u + (h << 6) + (h >> 2);
    h ^= (uint32_t)(x >> 32) + 0x9e3779b9u + (h << 6) + (h >> 2);
    return h;
}

static uint32_t str_hash(const char *s)
{
    return (uint32_t)cgs_str_hash(s, strlen(s)); /* lib/base/strmap.h: the one string hash */
}

static uint32_t node_hash(int kind, int64_t v, const char *name, uint32_t n,
                          const struct cgs_sym *const *op)
{
    uint32_t h = mix(0x12345u, (uint64_t)kind);
    h = mix(h, (uint64_t)v);
    if (name)
        h = mix(h, str_hash(name));
    h = mix(h, n);
    for (uint32_t i = 0; i < n; i++)
        h = mix(h, op[i]->hash);
    return h;
}

void cgs_symctx_init(struct cgs_symctx *ctx, struct cgs_arena *arena)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->arena = arena;
}

void cgs_symctx_release(struct cgs_symctx *ctx)
{
    free(ctx->table);
    ctx->table = NULL;
    ctx->cap = ctx->count = 0;
    memset(ctx->ints, 0, sizeof(ctx->ints));
}

static void rehash(struct cgs_symctx *ctx)
{
    size_t ncap = ctx->cap ? ctx->cap * 2 : 256;
    struct cgs_sym **nt = cgs_xcalloc(ncap, sizeof(*nt));
    for (size_t i = 0; i < ctx->cap; i++) {
        struct cgs_sym *s = ctx->table[i];
        if (!s)
            continue;
        size_t j = s->hash & (ncap - 1);
        while (nt[j])
            j = (j + 1) & (ncap - 1);
        nt[j] = s;
    }
    free(ctx->table);
    ctx->table = nt;
    ctx->cap = ncap;
}

static const struct cgs_sym *intern(struct cgs_symctx *ctx, int kind, int64_t v, const char *name,
                                    uint32_t n, const struct cgs_sym *const *op)
{
    uint32_t h = node_hash(kind, v, name, n, op);
    size_t j;
    struct cgs_sym *s;

    if ((ctx->count + 1) * 4 >= ctx->cap * 3)
        rehash(ctx);
    for (j = h & (ctx->cap - 1); (s = ctx->table[j]); j = (j + 1) & (ctx->cap - 1)) {
        if (s->hash != h || s->kind != kind || s->v != v || s->n != n)
            continue;
        if ((kind == CGS_SYM_VAR || kind == CGS_SYM_FUNC) && strcmp(s->name, name))
            continue;
        if (n && memcmp(s->op, op, n * sizeof(*op)))
            continue;
        return s;
    }
    s = cgs_arena_alloc(ctx->arena, sizeof(*s) + n * sizeof(s->op[0]));
    if (!s)
        CGS_BUG("symbolic expression too large");
    s->kind = (uint8_t)kind;
    s->depth = 1;
    for (uint32_t i = 0; i < n; i++)
        if (op[i]->depth >= s->depth)
            s->depth = op[i]->depth == UINT16_MAX ? UINT16_MAX : (uint16_t)(op[i]->depth + 1);
    {
        // what printing it can take: names, 20 digits a constant, separators and
        // parentheses per operand (a function's own text already holds its operands)
        uint64_t sz = name ? strlen(name) : 24;
        if (kind != CGS_SYM_FUNC)
            for (uint32_t i = 0; i < n; i++)
                sz += (uint64_t)op[i]->size + 28;
        s->size = sz > UINT32_MAX ? UINT32_MAX : (uint32_t)sz;
    }
    s->n = n;
    s->hash = h;
    s->v = v;
    s->name = name ? cgs_arena_strdup(ctx->arena, name) : NULL;
    s->recorded = NULL;
    if (n)
        memcpy((void *)s->op, op, n * sizeof(*op));
    ctx->table[j] = s;
    ctx->count++;
    return s;
}

static const struct cgs_sym *fail(struct cgs_symctx *ctx, int err)
{
    ctx->err = err;
    return NULL;
}

const struct cgs_sym *cgs_sym_int(struct cgs_symctx *ctx, int64_t v)
{
    /* a multiplicative hash: shapes and strides are mostly multiples of 256 (768, 3072,
       786432), which v % 256 would put in one slot */
    const struct cgs_sym **slot = &ctx->ints[((uint64_t)v * 0x9E3779B97F4A7C15ull) >> 56];
    if (!*slot || (*slot)->v != v)
        *slot = intern(ctx, CGS_SYM_INT, v, NULL, 0, NULL);
    return *slot;
}

const struct cgs_sym *cgs_sym_var(struct cgs_symctx *ctx, const char *name)
{
    return intern(ctx, CGS_SYM_VAR, 0, name, 0, NULL);
}

bool cgs_sym_is_int(const struct cgs_sym *e, int64_t *v)
{
    if (e && e->kind == CGS_SYM_INT) {
        if (v)
            *v = e->v;
        return true;
    }
    return false;
}

/* ---- order --------------------------------------------------------------- */

/* Rank used to order terms and factors: symbols first, constants last. */
static const int kind_rank[CGS_SYM_KIND_COUNT] = {
    [CGS_SYM_VAR] = 0,     [CGS_SYM_POW] = 1, [CGS_SYM_MUL] = 2,  [CGS_SYM_FLOORDIV] = 3,
    [CGS_SYM_MOD] = 4,     [CGS_SYM_MAX] = 5, [CGS_SYM_MIN] = 6,  [CGS_SYM_CEIL] = 7,
    [CGS_SYM_FUNC] = 8,    [CGS_SYM_TRUEDIV] = 9, [CGS_SYM_ADD] = 10, [CGS_SYM_INT] = 11,
};

int cgs_sym_cmp(const struct cgs_sym *a, const struct cgs_sym *b)
{
    if (a == b)
        return 0;
    if (a->kind != b->kind)
        return kind_rank[a->kind] - kind_rank[b->kind];
    switch (a->kind) {
    case CGS_SYM_INT: return a->v < b->v ? -1 : 1;
    case CGS_SYM_VAR:
    case CGS_SYM_FUNC: return strcmp(a->name, b->name);
    default: break;
    }
    for (uint32_t i = 0; i < a->n && i < b->n; i++) {
        int c = cgs_sym_cmp(a->op[i], b->op[i]);
        if (c)
            return c;
    }
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    if (a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return 0;
}

/* ---- checked arithmetic -------------------------------------------------- */

static bool add_ov(int64_t a, int64_t b, int64_t *r)
{
    return __builtin_add_overflow(a, b, r);
}
static bool mul_ov(int64_t a, int64_t b, int64_t *r)
{
    return __builtin_mul_overflow(a, b, r);
}

/* Python's floor division and modulo; b != 0; false on overflow. */
static bool py_floordiv(int64_t a, int64_t b, int64_t *q)
{
    if (b == -1 && a == INT64_MIN)
        return false;
    int64_t d = a / b, m = a % b;
    if (m != 0 && ((m < 0) != (b < 0)))
        d--;
    *q = d;
    return true;
}

static int64_t py_mod(int64_t a, int64_t b)
{
    if (b == -1)
        return 0;
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0)))
        m += b;
    return m;
}

/* b ** e for e >= 0 by squaring (an exponent of 3,688,548,548 on 1 is one step, not a
 * billion); false on overflow. */
static bool ipow(int64_t b, int64_t e, int64_t *r)
{
    int64_t acc = 1;
    if (b == 0 || b == 1) {
        *r = e == 0 ? 1 : b;
        return true;
    }
    if (b == -1) {
        *r = e % 2 ? -1 : 1;
        return true;
    }
    while (e > 0) {
        if ((e & 1) && mul_ov(acc, b, &acc))
            return false;
        e >>= 1;
        if (e && mul_ov(b, b, &b))
            return false;
    }
    *r = acc;
    return true;
}

/* ---- polynomial form: constant + sum of coeff * monomial -------------- */

struct term {
    int64_t coeff;
    const struct cgs_sym *mono; /* coefficient 1, never INT or ADD */
};

struct poly {
    int64_t c;
    struct term *t;
    size_t n, alloc;
};

struct factor {
    const struct cgs_sym *base;
    int64_t exp;
};

static void poly_release(struct poly *p)
{
    free(p->t);
}

static void poly_push(struct poly *p, int64_t coeff, const struct cgs_sym *mono)
{
    CGS_ALLOC_GROW(p->t, p->n + 1, p->alloc);
    p->t[p->n].coeff = coeff;
    p->t[p->n].mono = mono;
    p->n++;
}

/* Split a canonical term into coefficient and coefficient-1 monomial. */
static const struct cgs_sym *strip_coeff(struct cgs_symctx *ctx, const struct cgs_sym *t,
                                         int64_t *coeff)
{
    if (t->kind == CGS_SYM_MUL) {
        *coeff = t->v;
        if (t->n == 1)
            return t->op[0];
        if (t->v == 1)
            return t;
        return intern(ctx, CGS_SYM_MUL, 1, NULL, t->n, t->op);
    }
    *coeff = 1;
    return t;
}

static void poly_of(struct cgs_symctx *ctx, const struct cgs_sym *e, struct poly *p)
{
    int64_t k;
    memset(p, 0, sizeof(*p));
    if (e->kind == CGS_SYM_INT) {
        p->c = e->v;
        return;
    }
    if (e->kind == CGS_SYM_ADD) {
        p->c = e->v;
        for (uint32_t i = 0; i < e->n; i++) {
            const struct cgs_sym *m = strip_coeff(ctx, e->op[i], &k);
            poly_push(p, k, m);
        }
        return;
    }
    const struct cgs_sym *m = strip_coeff(ctx, e, &k);
    poly_push(p, k, m);
}

static int term_cmp(const void *a, const void *b)
{
    const struct term *x = a, *y = b;
    return cgs_sym_cmp(x->mono, y->mono);
}

static const struct cgs_sym *make_term(struct cgs_symctx *ctx, int64_t coeff,
                                       const struct cgs_sym *mono)
{
    if (coeff == 1)
        return mono;
    if (mono->kind == CGS_SYM_MUL)
        return intern(ctx, CGS_SYM_MUL, coeff, NULL, mono->n, mono->op);
    return intern(ctx, CGS_SYM_MUL, coeff, NULL, 1, &mono);
}

/* Count n terms of work against the parser's budget; false when it is spent. */
static bool spend(struct cgs_symctx *ctx, uint64_t n)
{
    if (!ctx->budget)
        return true;
    ctx->work += n;
    if (ctx->work <= ctx->budget)
        return true;
    ctx->over_budget = true;
    return false;
}

/* Combine like terms and build the canonical expression; frees p. */
static const struct cgs_sym *poly_build(struct cgs_symctx *ctx, struct poly *p)
{
    const struct cgs_sym **ops = NULL, *r;
    size_t n = 0;

    if (!spend(ctx, p->n + 1)) {
        poly_release(p);
        return fail(ctx, -CGS_E_LIMIT);
    }
    if (p->n > 1)
        qsort(p->t, p->n, sizeof(*p->t), term_cmp);
    for (size_t i = 0; i < p->n; i++) {
        if (n && p->t[n - 1].mono == p->t[i].mono) {
            if (add_ov(p->t[n - 1].coeff, p->t[i].coeff, &p->t[n - 1].coeff)) {
                poly_release(p);
                return fail(ctx, -CGS_E_LIMIT);
            }
        } else {
            if (n && p->t[n - 1].coeff == 0)
                n--;
            p->t[n++] = p->t[i];
        }
    }
    if (n && p->t[n - 1].coeff == 0)
        n--;
    if (n == 0)
        r = cgs_sym_int(ctx, p->c);
    else if (n == 1 && p->c == 0)
        r = make_term(ctx, p->t[0].coeff, p->t[0].mono);
    else {
        ops = cgs_xcalloc(n, sizeof(*ops));
        for (size_t i = 0; i < n; i++)
            ops[i] = make_term(ctx, p->t[i].coeff, p->t[i].mono);
        r = intern(ctx, CGS_SYM_ADD, p->c, NULL, (uint32_t)n, ops);
        free(ops);
    }
    poly_release(p);
    return r;
}

const struct cgs_sym *cgs_sym_add(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b)
{
    struct poly p, q;
    if (!a || !b)
        return NULL;
    if (a->kind == CGS_SYM_INT && b->kind == CGS_SYM_INT) {
        int64_t r;
        if (add_ov(a->v, b->v, &r))
            return fail(ctx, -CGS_E_LIMIT);
        return cgs_sym_int(ctx, r);
    }
    poly_of(ctx, a, &p);
    poly_of(ctx, b, &q);
    if (add_ov(p.c, q.c, &p.c)) {
        poly_release(&p);
        poly_release(&q);
        return fail(ctx, -CGS_E_LIMIT);
    }
    for (size_t i = 0; i < q.n; i++)
        poly_push(&p, q.t[i].coeff, q.t[i].mono);
    poly_release(&q);
    return poly_build(ctx, &p);
}

const struct cgs_sym *cgs_sym_mul_int(struct cgs_symctx *ctx, const struct cgs_sym *a, int64_t k)
{
    struct poly p;
    if (!a)
        return NULL;
    poly_of(ctx, a, &p);
    if (mul_ov(p.c, k, &p.c))
        goto overflow;
    for (size_t i = 0; i < p.n; i++)
        if (mul_ov(p.t[i].coeff, k, &p.t[i].coeff))
            goto overflow;
    return poly_build(ctx, &p);
overflow:
    poly_release(&p);
    return fail(ctx, -CGS_E_LIMIT);
}

const struct cgs_sym *cgs_sym_add_int(struct cgs_symctx *ctx, const struct cgs_sym *a, int64_t k)
{
    return cgs_sym_add(ctx, a, cgs_sym_int(ctx, k));
}

const struct cgs_sym *cgs_sym_neg(struct cgs_symctx *ctx, const struct cgs_sym *a)
{
    return cgs_sym_mul_int(ctx, a, -1);
}

const struct cgs_sym *cgs_sym_sub(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b)
{
    return cgs_sym_add(ctx, a, cgs_sym_neg(ctx, b));
}

/* Factors of a coefficient-1 monomial. */
static size_t factors_of(const struct cgs_sym *m, struct factor *out, size_t max)
{
    size_t n = 0;
    if (m->kind == CGS_SYM_MUL) {
        for (uint32_t i = 0; i < m->n && n < max; i++) {
            const struct cgs_sym *f = m->op[i];
            if (f->kind == CGS_SYM_POW)
                out[n++] = (struct factor){f->op[0], f->v};
            else
                out[n++] = (struct factor){f, 1};
        }
    } else if (m->kind == CGS_SYM_POW) {
        out[n++] = (struct factor){m->op[0], m->v};
    } else {
        out[n++] = (struct factor){m, 1};
    }
    return n;
}

static int factor_cmp(const void *a, const void *b)
{
    const struct factor *x = a, *y = b;
    return cgs_sym_cmp(x->base, y->base);
}

/* Build the coefficient-1 monomial of a factor list (sorted, merged here). */
static const struct cgs_sym *make_mono(struct cgs_symctx *ctx, struct factor *f, size_t n)
{
    const struct cgs_sym **ops;
    const struct cgs_sym *r;
    size_t m = 0;

    qsort(f, n, sizeof(*f), factor_cmp);
    for (size_t i = 0; i < n; i++) {
        if (m && f[m - 1].base == f[i].base) {
            if (add_ov(f[m - 1].exp, f[i].exp, &f[m - 1].exp) || f[m - 1].exp > 1024)
                return fail(ctx, -CGS_E_LIMIT);
        } else {
            f[m++] = f[i];
        }
    }
    ops = cgs_xcalloc(m, sizeof(*ops));
    for (size_t i = 0; i < m; i++)
        ops[i] =
            f[i].exp == 1 ? f[i].base : intern(ctx, CGS_SYM_POW, f[i].exp, NULL, 1, &f[i].base);
    r = m == 1 ? ops[0] : intern(ctx, CGS_SYM_MUL, 1, NULL, (uint32_t)m, ops);
    free(ops);
    return r;
}

static const struct cgs_sym *mono_mul(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                      const struct cgs_sym *b)
{
    size_t na = a->kind == CGS_SYM_MUL ? a->n : 1, nb = b->kind == CGS_SYM_MUL ? b->n : 1;
    struct factor *f = cgs_xcalloc(na + nb, sizeof(*f));
    const struct cgs_sym *r;
    size_t n = factors_of(a, f, na);
    n += factors_of(b, f + n, nb);
    r = make_mono(ctx, f, n);
    free(f);
    return r;
}

const struct cgs_sym *cgs_sym_mul(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b)
{
    struct poly p, q, r;
    if (!a || !b)
        return NULL;
    if (a->kind == CGS_SYM_INT)
        return cgs_sym_mul_int(ctx, b, a->v);
    if (b->kind == CGS_SYM_INT)
        return cgs_sym_mul_int(ctx, a, b->v);
    poly_of(ctx, a, &p);
    poly_of(ctx, b, &q);
    if ((p.n + 1) * (q.n + 1) > MAX_TERMS || !spend(ctx, (uint64_t)(p.n + 1) * (q.n + 1))) {
        poly_release(&p);
        poly_release(&q);
        return fail(ctx, -CGS_E_LIMIT);
    }
    memset(&r, 0, sizeof(r));
    if (mul_ov(p.c, q.c, &r.c))
        goto overflow;
    for (size_t i = 0; i < p.n; i++) {
        int64_t k;
        if (mul_ov(p.t[i].coeff, q.c, &k))
            goto overflow;
        poly_push(&r, k, p.t[i].mono);
    }
    for (size_t j = 0; j < q.n; j++) {
        int64_t k;
        if (mul_ov(q.t[j].coeff, p.c, &k))
            goto overflow;
        poly_push(&r, k, q.t[j].mono);
    }
    for (size_t i = 0; i < p.n; i++)
        for (size_t j = 0; j < q.n; j++) {
            int64_t k;
            const struct cgs_sym *m;
            if (mul_ov(p.t[i].coeff, q.t[j].coeff, &k))
                goto overflow;
            m = mono_mul(ctx, p.t[i].mono, q.t[j].mono);
            if (!m)
                goto overflow;
            poly_push(&r, k, m);
        }
    poly_release(&p);
    poly_release(&q);
    return poly_build(ctx, &r);
overflow:
    poly_release(&p);
    poly_release(&q);
    poly_release(&r);
    return fail(ctx, -CGS_E_LIMIT);
}

const struct cgs_sym *cgs_sym_pow(struct cgs_symctx *ctx, const struct cgs_sym *a, int64_t e)
{
    const struct cgs_sym *r;
    if (!a)
        return NULL;
    if (e < 0 || e > 1024)
        return fail(ctx, -CGS_E_LIMIT);
    if (e == 0)
        return cgs_sym_int(ctx, 1);
    if (e == 1)
        return a;
    if (a->kind == CGS_SYM_INT) {
        int64_t v;
        if (!ipow(a->v, e, &v))
            return fail(ctx, -CGS_E_LIMIT);
        return cgs_sym_int(ctx, v);
    }
    if (a->kind == CGS_SYM_ADD) {
        /* expand small powers of sums; keep larger ones whole */
        if (e <= 4 && a->n <= 4) {
            r = a;
            for (int64_t i = 1; i < e && r; i++)
                r = cgs_sym_mul(ctx, r, a);
            return r;
        }
        return intern(ctx, CGS_SYM_POW, e, NULL, 1, &a);
    }
    /* a single term: coeff**e * mono**e */
    int64_t k, ke;
    const struct cgs_sym *m = strip_coeff(ctx, a, &k);
    size_t nf = m->kind == CGS_SYM_MUL ? m->n : 1;
    struct factor *f = cgs_xcalloc(nf, sizeof(*f));
    nf = factors_of(m, f, nf);
    for (size_t i = 0; i < nf; i++)
        if (mul_ov(f[i].exp, e, &f[i].exp) || f[i].exp > 1024) {
            free(f);
            return fail(ctx, -CGS_E_LIMIT);
        }
    m = make_mono(ctx, f, nf);
    free(f);
    if (!m)
        return NULL;
    if (!ipow(k, e, &ke))
        return fail(ctx, -CGS_E_LIMIT);
    return make_term(ctx, ke, m);
}

/*
 * Split a by a positive constant k: a = k*q + r where q takes every term
 * whose coefficient k divides and the floor part of the constant, and r the
 * rest (its constant in [0, k)).
 */
static void split_divisible(struct cgs_symctx *ctx, const struct cgs_sym *a, int64_t k,
                            const struct cgs_sym **q, const struct cgs_sym **r)
{
    struct poly p, pq, pr;
    int64_t cq = 0;

    poly_of(ctx, a, &p);
    memset(&pq, 0, sizeof(pq));
    memset(&pr, 0, sizeof(pr));
    py_floordiv(p.c, k, &cq);
    pq.c = cq;
    /* Python's p.c % k (k > 0), without forming cq * k: that overflows near INT64_MIN */
    pr.c = p.c % k;
    if (pr.c < 0)
        pr.c += k;
    for (size_t i = 0; i < p.n; i++) {
        if (p.t[i].coeff % k == 0)
            poly_push(&pq, p.t[i].coeff / k, p.t[i].mono);
        else
            poly_push(&pr, p.t[i].coeff, p.t[i].mono);
    }
    poly_release(&p);
    *q = poly_build(ctx, &pq);
    *r = poly_build(ctx, &pr);
}

/*
 * a / b when b is a single term (k * monomial, k > 0) that divides every term
 * of a exactly (and a has no constant part): the exact quotient, else NULL.
 * Sizes are positive, so b is never zero where FloorDiv/Mod meet it.
 */
static const struct cgs_sym *exact_quotient(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                            const struct cgs_sym *b)
{
    struct poly pa, pq;
    struct factor fb[16], fa[32];
    int64_t kb;
    const struct cgs_sym *mb;
    size_t nb;

    if (b->kind == CGS_SYM_ADD || b->kind == CGS_SYM_INT || a->kind == CGS_SYM_INT)
        return NULL;
    mb = strip_coeff(ctx, b, &kb);
    if (kb <= 0 || (mb->kind == CGS_SYM_MUL && mb->n > 16))
        return NULL;
    nb = factors_of(mb, fb, 16);
    poly_of(ctx, a, &pa);
    memset(&pq, 0, sizeof(pq));
    if (pa.c != 0)
        goto no;
    for (size_t i = 0; i < pa.n; i++) {
        size_t na;
        if (pa.t[i].coeff % kb || (pa.t[i].mono->kind == CGS_SYM_MUL && pa.t[i].mono->n > 32))
            goto no;
        na = factors_of(pa.t[i].mono, fa, 32);
        /* subtract b's exponents from the term's */
        for (size_t j = 0; j < nb; j++) {
            size_t k;
            for (k = 0; k < na && fa[k].base != fb[j].base; k++)
                ;
            if (k == na || fa[k].exp < fb[j].exp)
                goto no;
            fa[k].exp -= fb[j].exp;
        }
        size_t m = 0;
        for (size_t k = 0; k < na; k++)
            if (fa[k].exp)
                fa[m++] = fa[k];
        if (m == 0)
            pq.c += pa.t[i].coeff / kb; /* the term was b times a constant */
        else
            poly_push(&pq, pa.t[i].coeff / kb, make_mono(ctx, fa, m));
    }
    poly_release(&pa);
    return poly_build(ctx, &pq);
no:
    poly_release(&pa);
    poly_release(&pq);
    return NULL;
}

const struct cgs_sym *cgs_sym_floordiv(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                       const struct cgs_sym *b)
{
    const struct cgs_sym *ops[2], *q, *r;
    int64_t k;

    if (!a || !b)
        return NULL;
    if (cgs_sym_is_int(b, &k) && k == 0)
        return fail(ctx, -CGS_E_INVAL);
    if (a->kind == CGS_SYM_INT && b->kind == CGS_SYM_INT) {
        if (!py_floordiv(a->v, b->v, &k))
            return fail(ctx, -CGS_E_LIMIT);
        return cgs_sym_int(ctx, k);
    }
    if (a == b)
        return cgs_sym_int(ctx, 1);
    if ((q = exact_quotient(ctx, a, b)))
        return q;
    if (cgs_sym_is_int(b, &k) && k > 0) {
        if (k == 1)
            return a;
        if (a->kind == CGS_SYM_FLOORDIV && a->op[1]->kind == CGS_SYM_INT && a->op[1]->v > 0) {
            int64_t mk;
            if (!mul_ov(a->op[1]->v, k, &mk))
                return cgs_sym_floordiv(ctx, a->op[0], cgs_sym_int(ctx, mk));
        }
        split_divisible(ctx, a, k, &q, &r);
        if (!q || !r)
            return NULL;
        if (r->kind == CGS_SYM_INT)
            return q; /* 0 <= r < k */
        // merges the two divisions; when their divisors' product overflows (a == r: nothing was
        // taken out) the division stays as it is instead of trying again forever
        if (r != a && r->kind == CGS_SYM_FLOORDIV && r->op[1]->kind == CGS_SYM_INT &&
            r->op[1]->v > 0)
            return cgs_sym_add(ctx, q, cgs_sym_floordiv(ctx, r, b));
        ops[0] = r;
        ops[1] = b;
        return cgs_sym_add(ctx, q, intern(ctx, CGS_SYM_FLOORDIV, 0, NULL, 2, ops));
    }
    ops[0] = a;
    ops[1] = b;
    return intern(ctx, CGS_SYM_FLOORDIV, 0, NULL, 2, ops);
}

const struct cgs_sym *cgs_sym_mod(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b)
{
    const struct cgs_sym *ops[2], *q, *r;
    int64_t k;

    if (!a || !b)
        return NULL;
    if (cgs_sym_is_int(b, &k) && k == 0)
        return fail(ctx, -CGS_E_INVAL);
    if (a->kind == CGS_SYM_INT && b->kind == CGS_SYM_INT)
        return cgs_sym_int(ctx, py_mod(a->v, b->v));
    if (a == b || exact_quotient(ctx, a, b))
        return cgs_sym_int(ctx, 0);
    if (cgs_sym_is_int(b, &k) && k > 0) {
        if (k == 1)
            return cgs_sym_int(ctx, 0);
        split_divisible(ctx, a, k, &q, &r);
        if (!q || !r)
            return NULL;
        if (r->kind == CGS_SYM_INT)
            return r;
        a = r;
    }
    ops[0] = a;
    ops[1] = b;
    return intern(ctx, CGS_SYM_MOD, 0, NULL, 2, ops);
}

static int sym_qcmp(const void *a, const void *b)
{
    return cgs_sym_cmp(*(const struct cgs_sym *const *)a, *(const struct cgs_sym *const *)b);
}

static const struct cgs_sym *minmax(struct cgs_symctx *ctx, int kind, const struct cgs_sym *a,
                                    const struct cgs_sym *b)
{
    const struct cgs_sym *in[2] = {a, b}, **ops, *r;
    size_t n = 0, cap = 0, m = 0;
    bool have_const = false;
    int64_t c = 0;

    if (!a || !b)
        return NULL;
    for (int i = 0; i < 2; i++)
        cap += in[i]->kind == kind ? in[i]->n : 1;
    ops = cgs_xcalloc(cap, sizeof(*ops));
    for (int i = 0; i < 2; i++) {
        uint32_t k = in[i]->kind == kind ? in[i]->n : 1;
        for (uint32_t j = 0; j < k; j++) {
            const struct cgs_sym *x = in[i]->kind == kind ? in[i]->op[j] : in[i];
            if (x->kind == CGS_SYM_INT) {
                if (!have_const || (kind == CGS_SYM_MAX ? x->v > c : x->v < c))
                    c = x->v;
                have_const = true;
            } else {
                ops[n++] = x;
            }
        }
    }
    if (have_const)
        ops[n++] = cgs_sym_int(ctx, c);
    qsort(ops, n, sizeof(*ops), sym_qcmp);
    for (size_t i = 0; i < n; i++)
        if (!m || ops[m - 1] != ops[i])
            ops[m++] = ops[i];
    r = m == 1 ? ops[0] : intern(ctx, kind, 0, NULL, (uint32_t)m, ops);
    free(ops);
    return r;
}

const struct cgs_sym *cgs_sym_max(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b)
{
    return minmax(ctx, CGS_SYM_MAX, a, b);
}

const struct cgs_sym *cgs_sym_min(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b)
{
    return minmax(ctx, CGS_SYM_MIN, a, b);
}

const struct cgs_sym *cgs_sym_truediv(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                      const struct cgs_sym *b)
{
    const struct cgs_sym *ops[2] = {a, b};
    int64_t k;
    if (!a || !b)
        return NULL;
    if (cgs_sym_is_int(b, &k) && k == 0)
        return fail(ctx, -CGS_E_INVAL);
    if (k == 1 && b->kind == CGS_SYM_INT)
        return a;
    if (a->kind == CGS_SYM_INT && b->kind == CGS_SYM_INT && py_mod(a->v, b->v) == 0)
        return cgs_sym_int(ctx, a->v / b->v);
    return intern(ctx, CGS_SYM_TRUEDIV, 0, NULL, 2, ops);
}

const struct cgs_sym *cgs_sym_ceil(struct cgs_symctx *ctx, const struct cgs_sym *a)
{
    int64_t k;
    if (!a)
        return NULL;
    if (a->kind != CGS_SYM_TRUEDIV)
        return a; /* already an integer */
    if (cgs_sym_is_int(a->op[1], &k) && k > 0)
        return cgs_sym_floordiv(ctx, cgs_sym_add_int(ctx, a->op[0], k - 1), a->op[1]);
    return intern(ctx, CGS_SYM_CEIL, 0, NULL, 1, &a);
}

/* ---- printing -------------------------------------------------------------- */

static void print_rec(const struct cgs_sym *e, struct cgs_buf *out);

/* Operands that need parentheses as a factor or base. */
static bool is_compound(const struct cgs_sym *e)
{
    return e->kind == CGS_SYM_ADD || e->kind == CGS_SYM_MUL || e->kind == CGS_SYM_POW ||
           (e->kind == CGS_SYM_INT && e->v < 0);
}

static void print_wrapped(const struct cgs_sym *e, struct cgs_buf *out)
{
    if (is_compound(e)) {
        cgs_buf_addch(out, '(');
        print_rec(e, out);
        cgs_buf_addch(out, ')');
    } else {
        print_rec(e, out);
    }
}

static void print_factors(const struct cgs_sym *m, struct cgs_buf *out)
{
    for (uint32_t i = 0; i < m->n; i++) {
        const struct cgs_sym *f = m->op[i];
        if (i)
            cgs_buf_addch(out, '*');
        /* ** binds tighter than *, so only sums need parentheses here */
        if (f->kind == CGS_SYM_POW)
            print_rec(f, out);
        else
            print_wrapped(f, out);
    }
}

/* A term without its sign: |coeff|*factors. */
static void print_term_abs(const struct cgs_sym *t, struct cgs_buf *out)
{
    if (t->kind == CGS_SYM_MUL) {
        int64_t c = t->v;
        if (c == INT64_MIN) {
            /* 2**63 is past the parser's integers: |c|*F printed as (2**63 - 1)*F + F, which
               the sign before it turns into -(2**63 - 1)*F - F */
            cgs_buf_addf(out, "%lld*", (long long)INT64_MAX);
            print_factors(t, out);
            cgs_buf_addstr(out, " - ");
            print_factors(t, out);
            return;
        }
        if (c != 1 && c != -1) {
            if (c < 0)
                cgs_buf_addf(out, "%llu*", (unsigned long long)(-(uint64_t)c));
            else
                cgs_buf_addf(out, "%lld*", (long long)c);
        }
        print_factors(t, out);
    } else {
        print_rec(t, out);
    }
}

static bool term_negative(const struct cgs_sym *t)
{
    return t->kind == CGS_SYM_MUL && t->v < 0;
}

static void print_args(const char *fn, const struct cgs_sym *e, struct cgs_buf *out)
{
    cgs_buf_addstr(out, fn);
    cgs_buf_addch(out, '(');
    for (uint32_t i = 0; i < e->n; i++) {
        if (i)
            cgs_buf_addstr(out, ", ");
        print_rec(e->op[i], out);
    }
    cgs_buf_addch(out, ')');
}

static void print_rec(const struct cgs_sym *e, struct cgs_buf *out)
{
    switch (e->kind) {
    case CGS_SYM_INT:
        if (e->v == INT64_MIN)
            cgs_buf_addf(out, "%lld - 1", (long long)(INT64_MIN + 1)); /* parses back */
        else
            cgs_buf_addint(out, (long long)e->v);
        break;
    case CGS_SYM_VAR:
    case CGS_SYM_FUNC: cgs_buf_addstr(out, e->name); break;
    case CGS_SYM_POW:
        print_wrapped(e->op[0], out);
        cgs_buf_addstr(out, "**");
        cgs_buf_addint(out, (long long)e->v);
        break;
    case CGS_SYM_MUL:
        if (e->v < 0)
            cgs_buf_addch(out, '-');
        print_term_abs(e, out);
        break;
    case CGS_SYM_ADD:
        for (uint32_t i = 0; i < e->n; i++) {
            bool neg = term_negative(e->op[i]);
            if (i)
                cgs_buf_addstr(out, neg ? " - " : " + ");
            else if (neg)
                cgs_buf_addch(out, '-');
            print_term_abs(e->op[i], out);
        }
        if (e->v > 0)
            cgs_buf_addf(out, " + %lld", (long long)e->v);
        else if (e->v == INT64_MIN)
            cgs_buf_addf(out, " - %lld - 1", (long long)INT64_MAX);
        else if (e->v < 0)
            cgs_buf_addf(out, " - %llu", (unsigned long long)(-(uint64_t)e->v));
        break;
    case CGS_SYM_FLOORDIV:
        cgs_buf_addch(out, '(');
        print_wrapped(e->op[0], out);
        cgs_buf_addstr(out, "//");
        print_wrapped(e->op[1], out);
        cgs_buf_addch(out, ')');
        break;
    case CGS_SYM_MOD: print_args("Mod", e, out); break;
    case CGS_SYM_MAX: print_args("Max", e, out); break;
    case CGS_SYM_MIN: print_args("Min", e, out); break;
    case CGS_SYM_CEIL: print_args("CeilToInt", e, out); break;
    case CGS_SYM_TRUEDIV: print_args("IntTrueDiv", e, out); break;
    default: CGS_BUG("bad symbolic kind %d", e->kind);
    }
}

void cgs_sym_print(const struct cgs_sym *e, struct cgs_buf *out)
{
    print_rec(e, out);
}

char *cgs_sym_to_string(const struct cgs_sym *e)
{
    struct cgs_buf b = CGS_BUF_INIT;
    print_rec(e, &b);
    return cgs_buf_detach(&b);
}

void cgs_sym_note_spelling(struct cgs_symctx *ctx, const struct cgs_sym *e, const char *text)
{
    (void)ctx; /* the context's own node: interned, so one spelling serves every use */
    if (e && !e->recorded && text)
        ((struct cgs_sym *)e)->recorded = text;
}

char *cgs_sym_spelling(const struct cgs_sym *e)
{
    return e->recorded ? cgs_xstrdup(e->recorded) : cgs_sym_to_string(e);
}

/* ---- free symbols ------------------------------------------------------------ */

struct var_seen {
    const char **names;
    size_t n, alloc;
};

static void collect_vars(const struct cgs_sym *e, struct var_seen *s)
{
    if (e->kind == CGS_SYM_VAR) {
        for (size_t i = 0; i < s->n; i++)
            if (s->names[i] == e->name)
                return;
        CGS_ALLOC_GROW(s->names, s->n + 1, s->alloc);
        s->names[s->n++] = e->name;
        return;
    }
    for (uint32_t i = 0; i < e->n; i++)
        collect_vars(e->op[i], s);
}

void cgs_sym_foreach_var(const struct cgs_sym *e, void (*fn)(void *ud, const char *name), void *ud)
{
    struct var_seen s = {0};
    collect_vars(e, &s);
    for (size_t i = 0; i < s.n; i++)
        fn(ud, s.names[i]);
    free(s.names);
}

/* ---- opaque functions of torch's sympy vocabulary ---------------------------------- */

/*
 * Functions torch writes into sizes (torch/utils/_sympy/functions.py and sympy's own) that
 * the algebra above does not model: the parser keeps such a call as one CGS_SYM_FUNC atom,
 * and its value is computed here from its text, with Python's int/float semantics (ints stay
 * exact; a float appears only through ToFloat, FloatTrueDiv, IntTrueDiv, a float literal or
 * a float function, and becomes an int again through TruncToInt, FloorToInt, ...).
 */
static const struct {
    const char *name;
    bool prefix; /* a family of names: OpaqueUnaryFn_sqrt, BitwiseFn_bitwise_and, ... */
    bool atom;   /* the parser keeps a call as a CGS_SYM_FUNC (else the algebra models it,
                    or it is only recognised) */
    bool named;  /* a graph reader may load a size using it as unknown when the parser
                    refuses it (cgs_sym_mentions_torch_function) */
} torch_fns[] = {
    {"Piecewise", false, true, true},      {"TruncToInt", false, true, true},
    {"TruncToFloat", false, true, true},   {"ToFloat", false, true, true},
    {"FloatTrueDiv", false, true, true},   {"ModularIndexing", false, true, true},
    {"RoundToInt", false, true, true},     {"RoundDecimal", false, true, true},
    {"FloorToInt", false, true, true},     {"PowByNatural", false, true, true},
    {"FloatPow", false, true, true},       {"Abs", false, true, true},
    {"Where", false, true, true},          {"LShift", false, true, true},
    {"RShift", false, true, true},         {"Identity", false, true, true},
    {"Eq", false, true, true},             {"Ne", false, true, true},
    {"floor", false, true, false},         {"sqrt", false, true, false},
    {"OpaqueUnaryFn_", true, true, true},  {"BitwiseFn_", true, true, true},
    {"CleanDiv", false, false, true},      {"IntTrueDiv", false, false, true},
    {"Mod", false, false, true},           {"IsNonOverlapping", true, false, true},
};

static bool torch_sympy_fn(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(torch_fns) / sizeof(torch_fns[0]); i++) {
        size_t k = strlen(torch_fns[i].name);
        if (torch_fns[i].atom && (torch_fns[i].prefix ? len > k : len == k) &&
            !strncmp(torch_fns[i].name, name, k))
            return true;
    }
    return false;
}

bool cgs_sym_mentions_torch_function(const char *text)
{
    for (size_t i = 0; i < sizeof(torch_fns) / sizeof(torch_fns[0]); i++) {
        const char *at = torch_fns[i].named ? strstr(text, torch_fns[i].name) : NULL;
        for (; at; at = strstr(at + 1, torch_fns[i].name))
            if (torch_fns[i].prefix || at[strlen(torch_fns[i].name)] == '(')
                return true;
    }
    return false;
}

enum { NV_INT, NV_FLT, NV_BOOL, NV_ERR };
struct num {
    int t;
    int err;   /* NV_ERR: -CGS_E_* */
    int64_t i; /* NV_INT, NV_BOOL */
    double f;  /* NV_FLT */
};

struct fev {
    const char *p;
    cgs_sym_lookup_fn lookup; /* NULL: check the syntax only, symbols are 1 */
    void *ud;
    int depth;
    const char *bad; /* where the syntax failed, or NULL */
    void (*on_var)(void *ud, const char *name, size_t len);
    void *var_ud;
};

static struct num nv_int(int64_t i) { return (struct num){NV_INT, 0, i, 0}; }
static struct num nv_flt(double f) { return (struct num){NV_FLT, 0, 0, f}; }
static struct num nv_bool(bool b) { return (struct num){NV_BOOL, 0, b, 0}; }
static struct num nv_err(int err) { return (struct num){NV_ERR, err, 0, 0}; }
static double nv_d(struct num a) { return a.t == NV_FLT ? a.f : (double)a.i; }
static bool nv_truth(struct num a) { return a.t == NV_FLT ? a.f != 0 : a.i != 0; }

static struct num f_expr(struct fev *F);

static void f_ws(struct fev *F)
{
    while (*F->p == ' ' || *F->p == '\t')
        F->p++;
}

static bool f_accept(struct fev *F, const char *tok)
{
    size_t n = strlen(tok);
    f_ws(F);
    if (strncmp(F->p, tok, n))
        return false;
    F->p += n;
    return true;
}

static struct num f_bad(struct fev *F)
{
    if (!F->bad)
        F->bad = F->p;
    return nv_err(-CGS_E_SCHEMA);
}

/* A float from a double, or an error for what Python would raise on (inf, nan). */
static struct num f_real(double f)
{
    return f != f || f - f != 0 ? nv_err(-CGS_E_LIMIT) : nv_flt(f);
}

/* A double to an int as int() would, with the 64-bit range checked. */
static struct num f_toint(double f)
{
    if (!(f > -9.2233720368547758e18 && f < 9.2233720368547758e18))
        return nv_err(-CGS_E_LIMIT);
    return nv_int((int64_t)f);
}

static struct num f_arith(char op, struct num a, struct num b)
{
    int64_t r;
    if (a.t == NV_ERR)
        return a;
    if (b.t == NV_ERR)
        return b;
    if (a.t != NV_FLT && b.t != NV_FLT) {
        switch (op) {
        case '+': return add_ov(a.i, b.i, &r) ? nv_err(-CGS_E_LIMIT) : nv_int(r);
        case '-':
            return (b.i == INT64_MIN || add_ov(a.i, -b.i, &r)) ? nv_err(-CGS_E_LIMIT) : nv_int(r);
        case '*': return mul_ov(a.i, b.i, &r) ? nv_err(-CGS_E_LIMIT) : nv_int(r);
        case 'f':
            if (!b.i)
                return nv_err(-CGS_E_INVAL);
            return py_floordiv(a.i, b.i, &r) ? nv_int(r) : nv_err(-CGS_E_LIMIT);
        case '%': return b.i ? nv_int(py_mod(a.i, b.i)) : nv_err(-CGS_E_INVAL);
        case '/': return b.i ? f_real((double)a.i / (double)b.i) : nv_err(-CGS_E_INVAL);
        case '^':
            if (b.i < 0)
                return a.i ? f_real(pow((double)a.i, (double)b.i)) : nv_err(-CGS_E_INVAL);
            return ipow(a.i, b.i, &r) ? nv_int(r) : nv_err(-CGS_E_LIMIT);
        }
    }
    double x = nv_d(a), y = nv_d(b);
    switch (op) {
    case '+': return f_real(x + y);
    case '-': return f_real(x - y);
    case '*': return f_real(x * y);
    case '/': return y != 0 ? f_real(x / y) : nv_err(-CGS_E_INVAL);
    case 'f': return y != 0 ? f_real(floor(x / y)) : nv_err(-CGS_E_INVAL);
    case '%': return y != 0 ? f_real(x - floor(x / y) * y) : nv_err(-CGS_E_INVAL);
    case '^': return f_real(pow(x, y));
    }
    return nv_err(-CGS_E_SCHEMA);
}

static struct num f_args(struct fev *F, struct num *a, int max, int *n)
{
    *n = 0;
    if (f_accept(F, ")"))
        return nv_int(0);
    do {
        if (*n == max)
            return f_bad(F);
        a[(*n)++] = f_expr(F);
        if (F->bad)
            return nv_err(-CGS_E_SCHEMA);
    } while (f_accept(F, ","));
    return f_accept(F, ")") ? nv_int(0) : f_bad(F);
}

/* Piecewise((value, condition), ...): the first pair whose condition holds. */
static struct num f_piecewise(struct fev *F)
{
    struct num chosen = nv_err(-CGS_E_UNKNOWN);
    bool have = false;
    do {
        if (!f_accept(F, "("))
            return f_bad(F);
        struct num v = f_expr(F);
        if (F->bad || !f_accept(F, ","))
            return f_bad(F);
        struct num c = f_expr(F);
        if (F->bad || !f_accept(F, ")"))
            return f_bad(F);
        if (!have && c.t == NV_ERR) {
            chosen = c;
            have = true;
        } else if (!have && nv_truth(c)) {
            chosen = v;
            have = true;
        }
    } while (f_accept(F, ","));
    return f_accept(F, ")") ? chosen : f_bad(F);
}

static struct num f_call(struct fev *F, const char *name, size_t len)
{
    struct num a[16];
    int n;
#define IS(s) (len == sizeof(s) - 1 && !strncmp(name, s, len))
    if (IS("Piecewise"))
        return f_piecewise(F);
    f_args(F, a, 16, &n);
    if (F->bad)
        return nv_err(-CGS_E_SCHEMA);
    for (int i = 0; i < n; i++)
        if (a[i].t == NV_ERR)
            return a[i];
    if ((IS("Max") || IS("Min")) && n >= 1) {
        struct num r = a[0];
        for (int i = 1; i < n; i++)
            if (IS("Max") ? nv_d(a[i]) > nv_d(r) : nv_d(a[i]) < nv_d(r))
                r = a[i];
        return r;
    }
    if (n == 1) {
        double x = nv_d(a[0]);
        if (IS("ToFloat"))
            return nv_flt(x);
        if (IS("TruncToInt"))
            return a[0].t == NV_FLT ? f_toint(trunc(x)) : a[0];
        if (IS("TruncToFloat"))
            return nv_flt(trunc(x));
        if (IS("FloorToInt") || IS("floor"))
            return a[0].t == NV_FLT ? f_toint(floor(x)) : a[0];
        if (IS("CeilToInt") || IS("ceiling"))
            return a[0].t == NV_FLT ? f_toint(ceil(x)) : a[0];
        if (IS("RoundToInt"))
            return a[0].t == NV_FLT ? f_toint(nearbyint(x)) : a[0];
        if (IS("Abs"))
            return a[0].t == NV_FLT ? nv_flt(fabs(x))
                   : a[0].i == INT64_MIN ? nv_err(-CGS_E_LIMIT) : nv_int(a[0].i < 0 ? -a[0].i : a[0].i);
        if (IS("Identity"))
            return a[0];
        if (IS("sqrt") || IS("OpaqueUnaryFn_sqrt"))
            return x < 0 ? nv_err(-CGS_E_INVAL) : f_real(sqrt(x));
        if (IS("OpaqueUnaryFn_exp"))
            return f_real(exp(x));
        if (IS("OpaqueUnaryFn_log"))
            return x <= 0 ? nv_err(-CGS_E_INVAL) : f_real(log(x));
        if (IS("OpaqueUnaryFn_log2"))
            return x <= 0 ? nv_err(-CGS_E_INVAL) : f_real(log2(x));
        if (IS("OpaqueUnaryFn_cos"))
            return f_real(cos(x));
        if (IS("OpaqueUnaryFn_sin"))
            return f_real(sin(x));
        if (IS("OpaqueUnaryFn_tanh"))
            return f_real(tanh(x));
    }
    if (n == 2) {
        if (IS("FloatTrueDiv") || IS("IntTrueDiv"))
            return f_arith('/', nv_flt(nv_d(a[0])), a[1]);
        if (IS("FloorDiv") || IS("CleanDiv"))
            return f_arith('f', a[0], a[1]);
        if (IS("Mod") || IS("PythonMod"))
            return f_arith('%', a[0], a[1]);
        if (IS("PowByNatural"))
            return a[1].t == NV_INT && a[1].i >= 0 ? f_arith('^', a[0], a[1])
                                                   : nv_err(-CGS_E_INVAL);
        if (IS("FloatPow"))
            return f_real(pow(nv_d(a[0]), nv_d(a[1])));
        if (IS("Eq") || IS("Ne"))
            return nv_bool((nv_d(a[0]) == nv_d(a[1])) == IS("Eq"));
        if (IS("RoundDecimal")) {
            if (a[1].t == NV_FLT)
                return nv_err(-CGS_E_INVAL);
            double m = pow(10.0, (double)a[1].i);
            return f_real(nearbyint(nv_d(a[0]) * m) / m);
        }
        if (a[0].t != NV_FLT && a[1].t != NV_FLT) {
            if (IS("LShift") || IS("RShift")) {
                if (a[1].i < 0 || a[1].i > 62)
                    return nv_err(-CGS_E_LIMIT);
                return IS("RShift") ? nv_int(a[0].i >> a[1].i)
                                    : f_arith('*', a[0], nv_int((int64_t)1 << a[1].i));
            }
            if (IS("BitwiseFn_bitwise_and"))
                return nv_int(a[0].i & a[1].i);
            if (IS("BitwiseFn_bitwise_or"))
                return nv_int(a[0].i | a[1].i);
            if (IS("BitwiseFn_bitwise_xor"))
                return nv_int(a[0].i ^ a[1].i);
        }
    }
    if (n == 3) {
        if (IS("ModularIndexing"))
            return f_arith('%', f_arith('f', a[0], a[1]), a[2]);
        if (IS("Where"))
            return nv_truth(a[0]) ? a[1] : a[2];
    }
#undef IS
    return nv_err(-CGS_E_UNKNOWN); /* well-formed, not a function cgscope evaluates */
}

static struct num f_atom(struct fev *F)
{
    f_ws(F);
    const char *start = F->p;
    if (isdigit((unsigned char)*F->p) || (*F->p == '.' && isdigit((unsigned char)F->p[1]))) {
        bool flt = false;
        while (isdigit((unsigned char)*F->p))
            F->p++;
        if (*F->p == '.') {
            flt = true;
            F->p++;
            while (isdigit((unsigned char)*F->p))
                F->p++;
        }
        if ((*F->p == 'e' || *F->p == 'E') &&
            (isdigit((unsigned char)F->p[1]) ||
             ((F->p[1] == '-' || F->p[1] == '+') && isdigit((unsigned char)F->p[2])))) {
            flt = true;
            F->p += 2;
            while (isdigit((unsigned char)*F->p))
                F->p++;
        }
        if (flt)
            return f_real(strtod(start, NULL));
        int64_t v = 0;
        for (const char *q = start; q < F->p; q++)
            if (mul_ov(v, 10, &v) || add_ov(v, *q - '0', &v))
                return nv_err(-CGS_E_LIMIT);
        return nv_int(v);
    }
    if (isalpha((unsigned char)*F->p) || *F->p == '_') {
        while (isalnum((unsigned char)*F->p) || *F->p == '_')
            F->p++;
        size_t len = (size_t)(F->p - start);
        if (f_accept(F, "("))
            return f_call(F, start, len);
        if (len == 4 && !strncmp(start, "True", 4))
            return nv_bool(true);
        if (len == 5 && !strncmp(start, "False", 5))
            return nv_bool(false);
        if (len >= 128) {
            F->p = start;
            return f_bad(F);
        }
        if (F->on_var)
            F->on_var(F->var_ud, start, len);
        if (!F->lookup)
            return nv_int(1);
        char nm[128];
        int64_t v;
        memcpy(nm, start, len);
        nm[len] = '\0';
        int err = F->lookup(F->ud, nm, &v);
        if (err == CGS_SYM_LOOKUP_FLOAT) {
            double f;
            memcpy(&f, &v, sizeof(f));
            return nv_flt(f);
        }
        return err ? nv_err(err) : nv_int(v);
    }
    if (f_accept(F, "(")) {
        struct num r = f_expr(F);
        if (F->bad)
            return r;
        return f_accept(F, ")") ? r : f_bad(F);
    }
    return f_bad(F);
}

static struct num f_unary(struct fev *F);

static struct num f_power(struct fev *F)
{
    struct num a = f_atom(F);
    if (F->bad || !f_accept(F, "**"))
        return a;
    return f_arith('^', a, f_unary(F));
}

static struct num f_unary(struct fev *F)
{
    struct num r;
    if (++F->depth > MAX_DEPTH)
        return f_bad(F);
    if (f_accept(F, "-"))
        r = f_arith('-', nv_int(0), f_unary(F));
    else if (f_accept(F, "+"))
        r = f_unary(F);
    else if (f_accept(F, "~")) {
        r = f_unary(F);
        r = r.t == NV_ERR ? r : nv_bool(!nv_truth(r));
    } else
        r = f_power(F);
    F->depth--;
    return r;
}

static struct num f_term(struct fev *F)
{
    struct num r = f_unary(F);
    while (!F->bad) {
        f_ws(F);
        char op;
        if (F->p[0] == '*' && F->p[1] != '*')
            op = '*', F->p++;
        else if (F->p[0] == '/' && F->p[1] == '/')
            op = 'f', F->p += 2;
        else if (F->p[0] == '/')
            op = '/', F->p++;
        else if (F->p[0] == '%')
            op = '%', F->p++;
        else
            break;
        r = f_arith(op, r, f_unary(F));
    }
    return r;
}

static struct num f_sum(struct fev *F)
{
    struct num r = f_term(F);
    while (!F->bad) {
        if (f_accept(F, "+"))
            r = f_arith('+', r, f_term(F));
        else if (f_accept(F, "-"))
            r = f_arith('-', r, f_term(F));
        else
            break;
    }
    return r;
}

static struct num f_cmp(struct fev *F)
{
    static const char *const ops[] = {"<=", ">=", "==", "!=", "<", ">"};
    struct num a = f_sum(F), b;
    for (int i = 0; i < 6 && !F->bad; i++) {
        if (!f_accept(F, ops[i]))
            continue;
        b = f_sum(F);
        if (a.t == NV_ERR || b.t == NV_ERR)
            return a.t == NV_ERR ? a : b;
        double x = nv_d(a), y = nv_d(b);
        bool r = i == 0 ? x <= y : i == 1 ? x >= y : i == 2 ? x == y : i == 3 ? x != y
               : i == 4 ? x < y : x > y;
        return nv_bool(r);
    }
    return a;
}

static struct num f_expr(struct fev *F)
{
    struct num r;
    if (++F->depth > MAX_DEPTH)
        return f_bad(F);
    r = f_cmp(F);
    while (!F->bad) {
        bool is_and = f_accept(F, "&");
        if (!is_and && !f_accept(F, "|"))
            break;
        struct num b = f_cmp(F);
        if (r.t == NV_ERR || b.t == NV_ERR)
            r = r.t == NV_ERR ? r : b;
        else
            r = nv_bool(is_and ? nv_truth(r) && nv_truth(b) : nv_truth(r) || nv_truth(b));
    }
    F->depth--;
    return r;
}

static int func_eval(const char *text, cgs_sym_lookup_fn lookup, void *ud, int64_t *out)
{
    struct fev F = {text, lookup, ud, 0, NULL, NULL, NULL};
    struct num r = f_expr(&F);
    if (F.bad)
        return -CGS_E_SCHEMA;
    if (r.t == NV_ERR)
        return r.err;
    if (r.t == NV_FLT)
        return -CGS_E_INVAL; /* a float where a size belongs */
    *out = r.i;
    return 0;
}

struct fvars {
    struct cgs_symctx *ctx;
    const struct cgs_sym *v[64];
    uint32_t n;
    bool too_many;
};

static void fvar_seen(void *ud, const char *name, size_t len)
{
    struct fvars *fv = ud;
    char nm[128];
    memcpy(nm, name, len);
    nm[len] = '\0';
    const struct cgs_sym *s = cgs_sym_var(fv->ctx, nm);
    for (uint32_t i = 0; i < fv->n; i++)
        if (fv->v[i] == s)
            return;
    if (fv->n == 64) {
        fv->too_many = true;
        return;
    }
    fv->v[fv->n++] = s;
}

static int var_name_cmp(const void *a, const void *b)
{
    return strcmp((*(const struct cgs_sym *const *)a)->name, (*(const struct cgs_sym *const *)b)->name);
}

/*
 * The call starting at text (a name, its parentheses and its arguments, len bytes) as an
 * opaque atom; NULL with *bad set to where its syntax fails.
 */
static const struct cgs_sym *func_atom(struct cgs_symctx *ctx, const char *text, size_t len,
                                       const char **bad, bool *too_many)
{
    char t[4097]; /* the caller takes calls of 4096 bytes at most */
    if (len >= sizeof(t)) {
        *too_many = false;
        *bad = text;
        return NULL;
    }
    memcpy(t, text, len);
    t[len] = '\0';
    struct fvars fv = {ctx, {0}, 0, false};
    struct fev F = {t, NULL, NULL, 0, NULL, fvar_seen, &fv};
    const struct cgs_sym *r = NULL;
    f_expr(&F);
    f_ws(&F);
    *too_many = fv.too_many;
    if (F.bad || *F.p || fv.too_many) {
        size_t at = (size_t)((F.bad ? F.bad : F.p) - t);
        *bad = text + at;
    } else {
        qsort(fv.v, fv.n, sizeof(fv.v[0]), var_name_cmp);
        r = intern(ctx, CGS_SYM_FUNC, 0, t, fv.n, fv.v);
    }
    return r;
}

/* ---- evaluation ---------------------------------------------------------------- */

int cgs_sym_bindings_lookup(void *ud, const char *name, int64_t *v)
{
    const struct cgs_sym_bindings *b = ud;
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->items[i].name, name)) {
            if (b->items[i].is_float) {
                memcpy(v, &b->items[i].fvalue, sizeof(*v));
                return CGS_SYM_LOOKUP_FLOAT;
            }
            *v = b->items[i].value;
            return 0;
        }
    return -CGS_E_UNKNOWN;
}

int cgs_sym_eval_float_text(const char *text, cgs_sym_lookup_fn lookup, void *ud, double *out)
{
    struct fev F = {text, lookup, ud, 0, NULL, NULL, NULL};
    struct num r;

    if (!text || !lookup)
        return -CGS_E_INVAL;
    r = f_expr(&F);
    f_ws(&F);
    if (F.bad || *F.p)
        return -CGS_E_SCHEMA;
    if (r.t == NV_ERR)
        return r.err;
    *out = nv_d(r);
    return 0;
}

int cgs_sym_eval(const struct cgs_sym *e, cgs_sym_lookup_fn lookup, void *ud, int64_t *out)
{
    int64_t a, b, acc = 0;
    int err;

    switch (e->kind) {
    case CGS_SYM_INT: *out = e->v; return 0;
    case CGS_SYM_VAR:
        err = lookup(ud, e->name, out);
        return err == CGS_SYM_LOOKUP_FLOAT ? -CGS_E_INVAL : err;
    case CGS_SYM_FUNC: return func_eval(e->name, lookup, ud, out);
    case CGS_SYM_POW:
        if ((err = cgs_sym_eval(e->op[0], lookup, ud, &a)))
            return err;
        return ipow(a, e->v, out) ? 0 : -CGS_E_LIMIT;
    case CGS_SYM_MUL:
    case CGS_SYM_ADD:
        acc = e->v;
        for (uint32_t i = 0; i < e->n; i++) {
            if ((err = cgs_sym_eval(e->op[i], lookup, ud, &a)))
                return err;
            if (e->kind == CGS_SYM_MUL ? mul_ov(acc, a, &acc) : add_ov(acc, a, &acc))
                return -CGS_E_LIMIT;
        }
        *out = acc;
        return 0;
    case CGS_SYM_FLOORDIV:
    case CGS_SYM_MOD:
    case CGS_SYM_TRUEDIV:
        if ((err = cgs_sym_eval(e->op[0], lookup, ud, &a)) ||
            (err = cgs_sym_eval(e->op[1], lookup, ud, &b)))
            return err;
        if (b == 0)
            return -CGS_E_INVAL;
        if (e->kind == CGS_SYM_MOD) {
            *out = py_mod(a, b);
            return 0;
        }
        if (!py_floordiv(a, b, out))
            return -CGS_E_LIMIT;
        if (e->kind == CGS_SYM_TRUEDIV && py_mod(a, b) != 0)
            return -CGS_E_INVAL; /* not an integer outside CeilToInt */
        return 0;
    case CGS_SYM_CEIL:
        if (e->op[0]->kind == CGS_SYM_TRUEDIV) {
            const struct cgs_sym *d = e->op[0];
            if ((err = cgs_sym_eval(d->op[0], lookup, ud, &a)) ||
                (err = cgs_sym_eval(d->op[1], lookup, ud, &b)))
                return err;
            if (b == 0)
                return -CGS_E_INVAL;
            if (a == INT64_MIN || !py_floordiv(-a, b, &acc))
                return -CGS_E_LIMIT;
            *out = -acc;
            return 0;
        }
        return cgs_sym_eval(e->op[0], lookup, ud, out);
    case CGS_SYM_MAX:
    case CGS_SYM_MIN:
        for (uint32_t i = 0; i < e->n; i++) {
            if ((err = cgs_sym_eval(e->op[i], lookup, ud, &a)))
                return err;
            if (!i || (e->kind == CGS_SYM_MAX ? a > acc : a < acc))
                acc = a;
        }
        *out = acc;
        return 0;
    default: CGS_BUG("bad symbolic kind %d", e->kind);
    }
}

struct rand_bind {
    const char **names;
    int64_t *vals;
    size_t n, alloc;
    uint64_t seed;
};

static int rand_lookup(void *ud, const char *name, int64_t *v)
{
    struct rand_bind *r = ud;
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->names[i], name)) {
            *v = r->vals[i];
            return 0;
        }
    /* xorshift: deterministic values 2..997 per (seed, order of first use) */
    r->seed ^= r->seed << 13;
    r->seed ^= r->seed >> 7;
    r->seed ^= r->seed << 17;
    CGS_ALLOC_GROW(r->names, r->n + 1, r->alloc);
    r->vals = cgs_xrealloc(r->vals, r->alloc * sizeof(*r->vals));
    r->names[r->n] = name;
    r->vals[r->n] = 2 + (int64_t)(r->seed % 996);
    *v = r->vals[r->n++];
    return 0;
}

bool cgs_sym_equal_semantic(const struct cgs_sym *a, const struct cgs_sym *b)
{
    bool same = true;
    if (a == b)
        return true;
    for (int trial = 0; trial < 6 && same; trial++) {
        struct rand_bind r = {NULL, NULL, 0, 0, 0x9e3779b97f4a7c15ull * (uint64_t)(trial + 1)};
        int64_t va, vb;
        int ea = cgs_sym_eval(a, rand_lookup, &r, &va);
        int eb = cgs_sym_eval(b, rand_lookup, &r, &vb);
        if (ea || eb)
            same = false;
        else
            same = va == vb;
        free(r.names);
        free(r.vals);
    }
    return same;
}

/* ---- parsing ---------------------------------------------------------------------- */

struct parser {
    struct cgs_symctx *ctx;
    const char *s, *p;
    int depth;
    struct cgs_diag *d;
    int err;
};

static const struct cgs_sym *p_expr(struct parser *ps);

static void skip_ws(struct parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t')
        ps->p++;
}

static const struct cgs_sym *p_fail(struct parser *ps, int code, const char *what)
{
    if (!ps->err) {
        ps->err = cgs_diag_set(ps->d, code, "%s at column %d of dimension '%s'", what,
                               (int)(ps->p - ps->s) + 1, ps->s);
        if (ps->d)
            ps->d->col = (uint32_t)(ps->p - ps->s) + 1;
    }
    return NULL;
}

static const struct cgs_sym *p_check(struct parser *ps, const struct cgs_sym *r)
{
    if (!r && !ps->err) {
        int e = ps->ctx->err;
        if (ps->ctx->over_budget)
            return p_fail(ps, CGS_E_LIMIT, "expression too large to put in canonical form "
                                           "(its expansion passes 65,536 terms)");
        return p_fail(ps, e == -CGS_E_LIMIT ? CGS_E_LIMIT : CGS_E_SCHEMA,
                      e == -CGS_E_LIMIT ? "integer overflow" : "division by zero");
    }
    if (r && r->depth > CGS_SYM_MAX_TREE_DEPTH)
        return p_fail(ps, CGS_E_LIMIT, "nesting too deep (the expression is more than 64 "
                                       "levels deep)");
    if (r && r->size > CGS_SYM_MAX_PRINTED)
        return p_fail(ps, CGS_E_LIMIT, "expression too large (its canonical form prints to "
                                       "more than 65,536 bytes)");
    return r;
}

static bool accept(struct parser *ps, const char *tok)
{
    size_t n = strlen(tok);
    skip_ws(ps);
    if (strncmp(ps->p, tok, n))
        return false;
    ps->p += n;
    return true;
}

static const struct cgs_sym *p_call(struct parser *ps, const char *name, size_t len)
{
    const struct cgs_sym *args[16];
    int n = 0;
    static const struct {
        const char *name;
        int min, max;
    } fns[] = {
        {"Max", 2, 16},       {"Min", 2, 16},      {"FloorDiv", 2, 2},
        {"Mod", 2, 2},        {"PythonMod", 2, 2}, {"CeilToInt", 1, 1},
        {"IntTrueDiv", 2, 2}, {"CleanDiv", 2, 2},  {"ceiling", 1, 1},
    };
    int f = -1;
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
        if (strlen(fns[i].name) == len && !strncmp(fns[i].name, name, len))
            f = (int)i;
    if (f < 0 && torch_sympy_fn(name, len)) {
        /* torch's, not modelled: the whole call is one atom, kept as written */
        int open = 1;
        const char *q = ps->p, *bad = NULL;
        for (; *q && open; q++)
            open += *q == '(' ? 1 : *q == ')' ? -1 : 0;
        if (open) {
            ps->p = q;
            return p_fail(ps, CGS_E_SCHEMA, "expected ')'");
        }
        if (q - name > 4096) {
            ps->p = name;
            return p_fail(ps, CGS_E_LIMIT, "function call longer than 4096 bytes");
        }
        bool too_many = false;
        const struct cgs_sym *r = func_atom(ps->ctx, name, (size_t)(q - name), &bad, &too_many);
        if (!r && too_many) {
            ps->p = name;
            ps->ctx->unknown_fn = true;
            return p_fail(ps, CGS_E_SCHEMA, "unsupported function call (more than 64 symbols)");
        }
        if (!r) {
            ps->p = bad;
            return p_fail(ps, CGS_E_SCHEMA, "unexpected character");
        }
        ps->p = q;
        return p_check(ps, r);
    }
    if (f < 0) {
        ps->p = name;
        ps->ctx->unknown_fn = true;
        return p_fail(ps, CGS_E_SCHEMA, "unknown function");
    }
    if (!accept(ps, ")")) {
        do {
            if (n == fns[f].max)
                return p_fail(ps, CGS_E_SCHEMA, "too many arguments");
            if (!(args[n++] = p_expr(ps)))
                return NULL;
        } while (accept(ps, ","));
        if (!accept(ps, ")"))
            return p_fail(ps, CGS_E_SCHEMA, "expected ',' or ')'");
    }
    if (n < fns[f].min)
        return p_fail(ps, CGS_E_SCHEMA, "too few arguments");
    struct cgs_symctx *c = ps->ctx;
    const struct cgs_sym *r = args[0];
    switch (f) {
    case 0:
    case 1:
        for (int i = 1; i < n; i++)
            r = f == 0 ? cgs_sym_max(c, r, args[i]) : cgs_sym_min(c, r, args[i]);
        break;
    case 2:
    case 7: r = cgs_sym_floordiv(c, args[0], args[1]); break;
    case 3:
    case 4: r = cgs_sym_mod(c, args[0], args[1]); break;
    case 5:
    case 8: r = cgs_sym_ceil(c, args[0]); break;
    case 6: r = cgs_sym_truediv(c, args[0], args[1]); break;
    }
    return p_check(ps, r);
}

static const struct cgs_sym *p_unary(struct parser *ps);

static const struct cgs_sym *p_atom(struct parser *ps)
{
    const struct cgs_sym *r;
    skip_ws(ps);
    if (isdigit((unsigned char)*ps->p)) {
        int64_t v = 0;
        while (isdigit((unsigned char)*ps->p)) {
            if (mul_ov(v, 10, &v) || add_ov(v, *ps->p - '0', &v))
                return p_fail(ps, CGS_E_LIMIT, "integer out of range");
            ps->p++;
        }
        return cgs_sym_int(ps->ctx, v);
    }
    if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
        const char *start = ps->p;
        while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
            ps->p++;
        size_t len = (size_t)(ps->p - start);
        if (accept(ps, "("))
            return p_call(ps, start, len);
        char name[128];
        if (len >= sizeof(name)) {
            ps->p = start;
            return p_fail(ps, CGS_E_LIMIT, "symbol name too long");
        }
        memcpy(name, start, len);
        name[len] = '\0';
        return cgs_sym_var(ps->ctx, name);
    }
    if (accept(ps, "(")) {
        if (!(r = p_expr(ps)))
            return NULL;
        if (!accept(ps, ")"))
            return p_fail(ps, CGS_E_SCHEMA, "expected ')'");
        return r;
    }
    return p_fail(ps, CGS_E_SCHEMA,
                  *ps->p ? "expected a number, a symbol or '('" : "unexpected end");
}

static const struct cgs_sym *p_power(struct parser *ps)
{
    const struct cgs_sym *base = p_atom(ps), *e;
    int64_t k;
    if (!base)
        return NULL;
    if (!accept(ps, "**"))
        return base;
    if (!(e = p_unary(ps)))
        return NULL;
    if (!cgs_sym_is_int(e, &k) || k < 0)
        return p_fail(ps, CGS_E_SCHEMA, "expected a non-negative integer exponent");
    return p_check(ps, cgs_sym_pow(ps->ctx, base, k));
}

static const struct cgs_sym *p_unary(struct parser *ps)
{
    const struct cgs_sym *r;
    if (++ps->depth > MAX_DEPTH)
        return p_fail(ps, CGS_E_LIMIT, "nesting too deep");
    if (accept(ps, "-"))
        r = p_check(ps, cgs_sym_neg(ps->ctx, p_unary(ps)));
    else if (accept(ps, "+"))
        r = p_unary(ps);
    else
        r = p_power(ps);
    ps->depth--;
    return ps->err ? NULL : r;
}

static const struct cgs_sym *p_term(struct parser *ps)
{
    const struct cgs_sym *r = p_unary(ps), *b;
    while (r) {
        skip_ws(ps);
        if (ps->p[0] == '*' && ps->p[1] != '*') {
            ps->p++;
            if (!(b = p_unary(ps)))
                return NULL;
            r = p_check(ps, cgs_sym_mul(ps->ctx, r, b));
        } else if (ps->p[0] == '/' && ps->p[1] == '/') {
            ps->p += 2;
            if (!(b = p_unary(ps)))
                return NULL;
            r = p_check(ps, cgs_sym_floordiv(ps->ctx, r, b));
        } else if (ps->p[0] == '/') {
            ps->p++;
            if (!(b = p_unary(ps)))
                return NULL;
            r = p_check(ps, cgs_sym_truediv(ps->ctx, r, b));
        } else if (ps->p[0] == '%') {
            ps->p++;
            if (!(b = p_unary(ps)))
                return NULL;
            r = p_check(ps, cgs_sym_mod(ps->ctx, r, b));
        } else {
            break;
        }
    }
    return r;
}

static const struct cgs_sym *p_expr(struct parser *ps)
{
    const struct cgs_sym *r, *b;
    if (++ps->depth > MAX_DEPTH)
        return p_fail(ps, CGS_E_LIMIT, "nesting too deep");
    r = p_term(ps);
    while (r) {
        if (accept(ps, "+")) {
            if (!(b = p_term(ps)))
                return NULL;
            r = p_check(ps, cgs_sym_add(ps->ctx, r, b));
        } else if (accept(ps, "-")) {
            if (!(b = p_term(ps)))
                return NULL;
            r = p_check(ps, cgs_sym_sub(ps->ctx, r, b));
        } else {
            break;
        }
    }
    ps->depth--;
    return r;
}

int cgs_sym_parse(struct cgs_symctx *ctx, const char *text, const struct cgs_sym **out,
                  struct cgs_diag *d)
{
    struct parser ps = {ctx, text, text, 0, d, 0};
    ctx->work = 0;
    ctx->budget = (uint64_t)1 << 16;
    ctx->over_budget = false;
    ctx->unknown_fn = false;
    const struct cgs_sym *r = p_expr(&ps);
    ctx->budget = 0;
    if (r) {
        skip_ws(&ps);
        if (*ps.p)
            r = p_fail(&ps, CGS_E_SCHEMA, "unexpected character");
    }
    if (!r)
        return ps.err ? ps.err : -CGS_E_SCHEMA;
    if (r->kind == CGS_SYM_TRUEDIV) {
        ps.p = text;
        p_fail(&ps, CGS_E_SCHEMA, "a true division is not an integer (use // or CeilToInt)");
        return ps.err;
    }
    *out = r;
    return 0;
}
