/*
 * Shape inference (see lib/shapes.h) and the shape rules of lib/op-list.h.
 *
 * Rules follow PyTorch's FakeTensor propagation: meta functions, the
 * decompositions registered as meta kernels, and FakeTensor's own fast
 * paths. Where PyTorch asks a symbolic question (is this stride smaller,
 * is this size 1) with backed symbols, it answers it at the symbols' hints
 * and guards; so do we: every comparison below evaluates at the hints, while
 * the sizes and strides we produce stay symbolic.
 *
 * Limits, known and left: PyTorch specializes a size symbol when a guard pins
 * it to a constant (a view to a literal size equal to a symbolic dim, some
 * paddings) and from then on prints every expression with the constant. In a
 * dumped graph that includes the inputs' values (a SymNode prints with the
 * ShapeEnv's replacements applied), so the pass sees the constant already
 * (tests/data/shapes.test checks two such cases recorded on torch). Values
 * printed before the guard would keep the symbol here, agreeing at the hint.
 * item() and other data-dependent values are partial (no unbacked symbols).
 */
#include "lib/shapes.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ops.h"
#include "lib/report-json.h"

#define MAX_PARAMS 64
#define NDIM_MAX CGS_MAX_NDIM

const char *const cgs_shape_status_names[CGS_SHAPE_STATUS_COUNT] = {
    [CGS_SHAPE_OK] = "ok",
    [CGS_SHAPE_PARTIAL] = "partial",
    [CGS_SHAPE_UNKNOWN_OP] = "unknown_op",
    [CGS_SHAPE_ERROR] = "error",
};

struct cgs_shape_ctx {
    struct cgs_graph *g;
    struct cgs_symctx *sx;
    uint32_t n_unbacked; /* unbacked symbols made so far (u0, u1, ...), as ShapeEnv numbers them */
    const struct cgs_opdecls *decls;
    const struct cgs_shapes_opts *opts;
    struct cgs_arena *ar;
    const struct cgs_val **vals; /* value each node's users see */
    /* caches: hints by expression, operators by (interned) target, parsed schemas */
    struct hint_slot {
        const struct cgs_sym *e;
        int64_t v;
        bool ok;
    } * hints;
    struct op_slot { /* per distinct target (by interned pointer): what is looked up by name */
        const char *target;
        const char *suggest;       /* unknown targets: the nearest registry name, once asked */
        const struct cgs_decl *decl; /* its declaration (lib/opdecl.h), once looked up */
        bool suggested, decl_looked;
    } * ops;
    struct schema {
        uint32_t n; /* UINT32_MAX until parsed */
        struct param *p;
    } * schemas;
    const struct cgs_sym **small; /* interned constants 0..SMALL_INTS-1 */
    uint32_t bodies_entered;      /* at the top level: bodies entered, nested ones included */
    struct memo_slot {
        const struct cgs_sym *a, *b, *r;
        char op;
    } * memo;
    /* the node being inferred */
    const struct cgs_op_info *op;
    struct schema *schema;
    uint32_t n_params;
    struct param {
        const char *name; /* in the schema text, not terminated: name_len */
        size_t name_len;
        const char *def; /* default text or NULL; not terminated: def_len */
        size_t def_len;
        bool variadic;
        bool promote; /* "%name": takes part in type promotion (pointwise rule) */
        bool written; /* "!name": an out= tensor the op writes (out rule) */
        const struct cgs_arg *def_arg; /* the parsed default, once needed */
        const struct cgs_arg *arg;     /* bound argument, NULL when absent */
    } p[MAX_PARAMS];
    struct cgs_arg rest; /* the variadic tail as a LIST */
    struct cgs_val *out; /* the rule's result */
};

/* ---- small helpers ------------------------------------------------------------------- */

typedef const struct cgs_sym *sym_t;

/* Copy n dims (n may be 0, and then either pointer NULL). */
static void dimcpy(sym_t *dst, const sym_t *src, size_t n)
{
    if (n)
        memcpy(dst, src, n * sizeof(*dst));
}

/* The value of e at the symbols' hints; false when it has none. */
#define HINT_SLOTS 4096
#define OP_SLOTS 1024

static bool hint(const struct cgs_shape_ctx *sc, sym_t e, int64_t *v)
{
    struct hint_slot *h;

    if (!e)
        return false;
    if (cgs_sym_is_int(e, v))
        return true;
    h = &sc->hints[(e->hash ^ ((uintptr_t)e >> 4)) & (HINT_SLOTS - 1)];
    if (h->e != e) {
        h->e = e;
        h->ok = cgs_sym_eval(e, cgs_graph_hint_lookup, sc->g, &h->v) == 0;
    }
    *v = h->v;
    return h->ok;
}

/* Hint or a sentinel (unknown sizes compare as "large"). */
static int64_t hv(const struct cgs_shape_ctx *sc, sym_t e)
{
    int64_t v;

    return hint(sc, e, &v) ? v : INT64_MAX / 4;
}

/* a * b for hints, saturating at hv's "no hint" value (an unbacked size's stand-in must not
 * overflow what it is multiplied into) */
static int64_t hmul(int64_t a, int64_t b)
{
    int64_t r;

    if (__builtin_mul_overflow(a, b, &r) || r > INT64_MAX / 4 || r < -(INT64_MAX / 4))
        return (a < 0) != (b < 0) ? -(INT64_MAX / 4) : INT64_MAX / 4;
    return r;
}

#define SMALL_INTS 4096

/* A constant; small non-negative ones come from a table (interning is the hot path). */
static sym_t K(struct cgs_shape_ctx *sc, int64_t v)
{
    sym_t e;

    if (v < 0 || v >= SMALL_INTS)
        return cgs_sym_int(sc->sx, v);
    e = sc->small[v];
    if (!e)
        e = sc->small[v] = cgs_sym_int(sc->sx, v);
    return e;
}

#define MEMO_SLOTS 8192

/* Symbolic arithmetic through a small memo: the same products recur node after node. */
static sym_t memo(struct cgs_shape_ctx *sc, char op, sym_t a, sym_t b)
{
    uintptr_t h = ((uintptr_t)a >> 4) * 31 + ((uintptr_t)b >> 4) * 17 + (uintptr_t)op;
    struct memo_slot *m = &sc->memo[(h ^ (h >> 13)) & (MEMO_SLOTS - 1)];

    if (m->a == a && m->b == b && m->op == op)
        return m->r;
    m->a = a, m->b = b, m->op = op;
    switch (op) {
    case '+':
        m->r = cgs_sym_add(sc->sx, a, b);
        break;
    case '*':
        m->r = cgs_sym_mul(sc->sx, a, b);
        break;
    default:
        m->r = cgs_sym_floordiv(sc->sx, a, b);
        break;
    }
    return m->r;
}

static bool both_const(sym_t a, sym_t b, int64_t *x, int64_t *y)
{
    return a->kind == CGS_SYM_INT && b->kind == CGS_SYM_INT && cgs_sym_is_int(a, x) &&
           cgs_sym_is_int(b, y);
}

static sym_t S_add(struct cgs_shape_ctx *sc, sym_t a, sym_t b)
{
    int64_t x, y, r;

    if (!a || !b)
        return NULL;
    if (both_const(a, b, &x, &y) && !__builtin_add_overflow(x, y, &r))
        return K(sc, r);
    if (a->kind == CGS_SYM_INT && a->v == 0)
        return b;
    if (b->kind == CGS_SYM_INT && b->v == 0)
        return a;
    return memo(sc, '+', a, b);
}

static sym_t S_sub(struct cgs_shape_ctx *sc, sym_t a, sym_t b)
{
    int64_t x, y, r;

    if (!a || !b)
        return NULL;
    if (both_const(a, b, &x, &y) && !__builtin_sub_overflow(x, y, &r))
        return K(sc, r);
    if (b->kind == CGS_SYM_INT && b->v == 0)
        return a;
    return cgs_sym_sub(sc->sx, a, b);
}

static sym_t S_mul(struct cgs_shape_ctx *sc, sym_t a, sym_t b)
{
    int64_t x, y, r;

    if (!a || !b)
        return NULL;
    if (both_const(a, b, &x, &y) && !__builtin_mul_overflow(x, y, &r))
        return K(sc, r);
    if (a->kind == CGS_SYM_INT && a->v == 1)
        return b;
    if (b->kind == CGS_SYM_INT && b->v == 1)
        return a;
    return memo(sc, '*', a, b);
}

static sym_t S_div(struct cgs_shape_ctx *sc, sym_t a, sym_t b)
{
    return a && b ? memo(sc, '/', a, b) : NULL;
}

static bool has_func(sym_t a)
{
    if (a->kind == CGS_SYM_FUNC)
        return true;
    for (uint32_t i = 0; i < a->n; i++)
        if (has_func(a->op[i]))
            return true;
    return false;
}

/* max(a, 1) for a size, as torch's contiguous strides take it: sizes of symbolic tensors are at
 * least 1 (size-like), which torch's simplifier does not see through its own opaque functions
 * (Max(1, TruncToInt(1.7*ToFloat(s0))) stays). */
static sym_t S_max1(struct cgs_shape_ctx *sc, sym_t a)
{
    int64_t v;

    if (!a)
        return NULL;
    if (cgs_sym_is_int(a, &v))
        return v < 1 ? K(sc, 1) : a;
    if (has_func(a))
        return cgs_sym_max(sc->sx, K(sc, 1), a);
    return a;
}

static bool is_const(sym_t e, int64_t v)
{
    int64_t x;

    return e && cgs_sym_is_int(e, &x) && x == v;
}

/* ---- tensors ---------------------------------------------------------------------- */

static struct cgs_val *new_val(struct cgs_shape_ctx *sc, enum cgs_val_kind kind)
{
    struct cgs_val *v = cgs_arena_alloc(sc->ar, sizeof(*v));

    v->kind = kind;
    return v;
}

static struct cgs_tensor *fill_tensor(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t ndim,
                                      enum cgs_dtype dtype, const char *device)
{
    struct cgs_tensor *t = &v->u.t;

    memset(v, 0, sizeof(*v));
    v->kind = CGS_VAL_TENSOR;

    t->dtype = dtype;
    t->ndim = ndim;
    if (ndim != CGS_NDIM_UNKNOWN) {
        t->shape = cgs_arena_calloc(sc->ar, ndim ? ndim : 1, sizeof(*t->shape));
        t->stride = cgs_arena_calloc(sc->ar, ndim ? ndim : 1, sizeof(*t->stride));
    }
    t->storage_offset = K(sc, 0);
    t->device = device;
    return t;
}

static struct cgs_tensor *new_tensor_val(struct cgs_shape_ctx *sc, struct cgs_val **vp,
                                         uint32_t ndim, enum cgs_dtype dtype, const char *device)
{
    *vp = cgs_arena_alloc(sc->ar, sizeof(**vp));
    return fill_tensor(sc, *vp, ndim, dtype, device);
}

static struct cgs_tensor *out_dense(struct cgs_shape_ctx *sc, uint32_t nd,
                                    const struct cgs_sym *const *shape, enum cgs_dtype dt,
                                    const char *dev, bool cl);

/* A new tensor as the node's result. */
static struct cgs_tensor *out_tensor(struct cgs_shape_ctx *sc, uint32_t ndim, enum cgs_dtype dtype,
                                     const char *device)
{
    return new_tensor_val(sc, &sc->out, ndim, dtype, device);
}

static bool tensor_known(const struct cgs_tensor *t)
{
    uint32_t i;

    if (t->ndim == CGS_NDIM_UNKNOWN || !t->shape || !t->stride || !t->storage_offset)
        return false;
    for (i = 0; i < t->ndim; i++)
        if (!t->shape[i] || !t->stride[i])
            return false;
    return true;
}

static void contiguous_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                               sym_t *stride)
{
    sym_t m = K(sc, 1);
    uint32_t i;

    for (i = nd; i-- > 0;) {
        stride[i] = m;
        m = S_mul(sc, m, S_max1(sc, shape[i]));
    }
}

/* Strides of a dense tensor laid out in the physical order perm (outermost first). */
static void permuted_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                             const uint32_t *perm, sym_t *stride)
{
    sym_t m = K(sc, 1);
    uint32_t i;

    for (i = nd; i-- > 0;) {
        stride[perm[i]] = m;
        m = S_mul(sc, m, S_max1(sc, shape[perm[i]]));
    }
}

static void channels_last_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                                  sym_t *stride)
{
    uint32_t perm[5] = {0, 2, 3, 1, 0};

    if (nd == 5) {
        perm[1] = 2, perm[2] = 3, perm[3] = 4, perm[4] = 1;
    } else if (nd != 4) {
        contiguous_strides(sc, nd, shape, stride);
        return;
    }
    permuted_strides(sc, nd, shape, perm, stride);
}

/* Hint arrays of a tensor's sizes and strides. */
static void hints(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t, int64_t *sz,
                  int64_t *st)
{
    uint32_t i;

    for (i = 0; i < t->ndim; i++) {
        if (sz)
            sz[i] = hv(sc, t->shape[i]);
        if (st)
            st[i] = t->stride ? hv(sc, t->stride[i]) : 0;
    }
}

static bool h_contiguous(uint32_t nd, const int64_t *sz, const int64_t *st)
{
    int64_t expected = 1;
    uint32_t i;

    for (i = 0; i < nd; i++)
        if (sz[i] == 0)
            return true;
    for (i = nd; i-- > 0;) {
        if (sz[i] == 1)
            continue;
        if (st[i] != expected)
            return false;
        expected = hmul(expected, sz[i]);
    }
    return true;
}

static bool h_channels_last(uint32_t nd, const int64_t *sz, const int64_t *st)
{
    static const uint32_t o4[] = {1, 3, 2, 0}, o5[] = {1, 4, 3, 2, 0};
    const uint32_t *o = nd == 4 ? o4 : o5;
    int64_t expected = 1;
    uint32_t i;

    if (nd != 4 && nd != 5)
        return false;
    for (i = 0; i < nd; i++) {
        uint32_t d = o[i];
        if (sz[d] == 1)
            continue;
        if (st[d] != expected)
            return false;
        expected = hmul(expected, sz[d]);
    }
    return true;
}

/* c10's is_channels_last_strides_2d/3d: the heuristic behind suggest_memory_format. */
static bool h_strides_like_cl(uint32_t nd, const int64_t *sz, const int64_t *st)
{
    static const uint32_t o4[] = {1, 3, 2, 0}, o5[] = {1, 4, 3, 2, 0};
    const uint32_t *o = nd == 4 ? o4 : o5;
    int64_t min = 0;
    uint32_t i;

    if (nd != 4 && nd != 5)
        return false;
    if (st[1] == 0)
        return false;
    for (i = 0; i < nd; i++) {
        uint32_t d = o[i];
        if (sz[d] == 0)
            return false;
        if (st[d] < min)
            return false;
        if (d == 0 && min == st[1])
            return false;
        min = st[d];
        if (sz[d] > 1)
            min = hmul(min, sz[d]);
    }
    return true;
}

static bool suggest_cl(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t)
{
    int64_t sz[NDIM_MAX], st[NDIM_MAX];

    if (t->ndim != 4 && t->ndim != 5)
        return false;
    hints(sc, t, sz, st);
    return h_strides_like_cl(t->ndim, sz, st);
}

/* _prims_common's ge() of should_swap: a >= b for non-negative a, b. */
static bool ge_nn(int64_t a, int64_t b)
{
    if (b == 0)
        return true;
    if (a == 0)
        return false;
    return a >= b || a % b == 0;
}

/*
 * The output strides of an elementwise operation over operands already
 * broadcast to shape (strides st[k][...], 0 where broadcast): the
 * permutation PyTorch's compute_elementwise_output_logical_to_physical_perm
 * sorts out, then dense strides in that order. fast_contig/fast_cl: the
 * FakeTensor fast path already decided.
 */
static void elementwise_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                                uint32_t nt, int64_t (*st)[NDIM_MAX], sym_t *out)
{
    int64_t sz[NDIM_MAX];
    uint32_t perm[NDIM_MAX], phys[NDIM_MAX], i, k;
    bool all_contig = true, all_cl = true;

    if (nd == 0)
        return;
    if (nd == 1 || nt == 0) {
        contiguous_strides(sc, nd, shape, out);
        return;
    }
    for (i = 0; i < nd; i++)
        sz[i] = hv(sc, shape[i]);
    for (k = 0; k < nt; k++) {
        all_contig = all_contig && h_contiguous(nd, sz, st[k]);
        all_cl = all_cl && h_channels_last(nd, sz, st[k]);
    }
    if (all_contig && !all_cl) {
        contiguous_strides(sc, nd, shape, out);
        return;
    }
    if (all_cl && !all_contig) {
        channels_last_strides(sc, nd, shape, out);
        return;
    }
    for (i = 0; i < nd; i++)
        perm[i] = nd - 1 - i;
    for (i = 1; i < nd; i++) {
        uint32_t d1 = i, d0;
        for (d0 = i; d0-- > 0;) {
            uint32_t a = perm[d0], b = perm[d1];
            int cmp = 0;
            for (k = 0; k < nt; k++) {
                int64_t sa = st[k][a], sb = st[k][b];
                if (sa == 0 || sb == 0)
                    continue;
                if (sa == sb) {
                    if (ge_nn(sz[b], sz[a]))
                        continue;
                    cmp = 1;
                    break;
                }
                if (ge_nn(sb, sa)) {
                    cmp = -1;
                    break;
                }
                if (ge_nn(sa, sb)) {
                    cmp = 1;
                    break;
                }
            }
            if (cmp > 0) {
                perm[d0] = b, perm[d1] = a;
                d1 = d0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    for (i = 0; i < nd; i++)
        phys[i] = perm[nd - 1 - i];
    permuted_strides(sc, nd, shape, phys, out);
}

/* Strides an operand shows when broadcast to nd dims of sizes out_sz. */
static void broadcast_hint_strides(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                                   uint32_t nd, const int64_t *out_sz, int64_t *st)
{
    uint32_t off = nd - t->ndim, i;

    for (i = 0; i < nd; i++) {
        if (i < off) {
            st[i] = 0;
        } else {
            int64_t s = hv(sc, t->shape[i - off]);
            st[i] = (s == 1 && out_sz[i] != 1) ? 0 : hv(sc, t->stride[i - off]);
        }
    }
}

/* empty_like / clone with preserve_format: the dense layout keeping t's order. */
static void preserve_strides(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, sym_t *out)
{
    int64_t st[1][NDIM_MAX];

    hints(sc, t, NULL, st[0]);
    elementwise_strides(sc, t->ndim, t->shape, 1, st, out);
}

/* ---- binding arguments to the schema ------------------------------------------------- */

/* Split the schema into parameters; 0, or -CGS_E_LIMIT for too many. */
static int parse_schema(struct cgs_shape_ctx *sc, const char *s)
{
    bool kwonly = false;

    sc->n_params = 0;
    while (*s) {
        const char *end = s, *eq;
        size_t len;
        while (*end && *end != ',')
            end++;
        // a default may hold commas inside brackets
        {
            const char *lb = memchr(s, '[', (size_t)(end - s));
            if (lb && !memchr(lb, ']', (size_t)(end - lb))) {
                while (*end && *end != ']')
                    end++;
                while (*end && *end != ',')
                    end++;
            }
        }
        len = (size_t)(end - s);
        if (len == 1 && *s == '*') {
            kwonly = true;
        } else if (len) {
            if (sc->n_params == MAX_PARAMS)
                return -CGS_E_LIMIT;
            memset(&sc->p[sc->n_params], 0, sizeof(sc->p[0]));
            if (*s == '*') {
                sc->p[sc->n_params].variadic = true;
                s++, len--;
            }
            if (len && *s == '%') {
                sc->p[sc->n_params].promote = true;
                s++, len--;
            }
            if (len && *s == '!') {
                sc->p[sc->n_params].written = true;
                s++, len--;
            }
            eq = memchr(s, '=', len);
            sc->p[sc->n_params].name = s;
            sc->p[sc->n_params].name_len = eq ? (size_t)(eq - s) : len;
            if (eq) {
                sc->p[sc->n_params].def = eq + 1;
                sc->p[sc->n_params].def_len = (size_t)(s + len - eq - 1);
            }
            // keyword-only parameters take no positional argument
            if (kwonly)
                sc->p[sc->n_params].name_len |= (size_t)1 << 62;
            sc->n_params++;
        }
        s = *end ? end + 1 : end;
        while (*s == ' ')
            s++;
    }
    return 0;
}

#define KWONLY_BIT ((size_t)1 << 62)

static size_t pname_len(const struct cgs_shape_ctx *sc, uint32_t i)
{
    return sc->p[i].name_len & ~KWONLY_BIT;
}

static int find_param(const struct cgs_shape_ctx *sc, const char *name);

static int bind_args(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_diag *d)
{
    uint32_t pi = 0, ai, k;

    for (ai = 0; ai < n->n_args; ai++) {
        while (pi < sc->n_params && (sc->p[pi].name_len & KWONLY_BIT))
            pi++;
        if (pi >= sc->n_params)
            return cgs_diag_set(d, CGS_E_INVAL, "too many arguments for '%s' (%u given)",
                                sc->op->name, n->n_args);
        if (sc->p[pi].variadic) {
            sc->rest.kind = CGS_ARG_LIST;
            sc->rest.n = n->n_args - ai;
            sc->rest.u.items = n->args + ai;
            if (sc->rest.n == 1 && n->args[ai].kind == CGS_ARG_LIST)
                sc->p[pi].arg = &n->args[ai];
            else
                sc->p[pi].arg = &sc->rest;
            pi++;
            break;
        }
        sc->p[pi++].arg = &n->args[ai];
    }
    for (k = 0; k < n->n_kwargs; k++) {
        const char *key = n->kwargs[k].key;
        size_t klen = strlen(key);
        uint32_t i;
        for (i = 0; i < sc->n_params; i++) {
            if (pname_len(sc, i) == klen && !memcmp(sc->p[i].name, key, klen)) {
                sc->p[i].arg = &n->kwargs[k].val;
                break;
            }
        }
        // torch.* functions take ATen's `self` under the keyword `input`
        if (i == sc->n_params && !strcmp(key, "input")) {
            int j = find_param(sc, "self");
            if (j >= 0)
                sc->p[j].arg = &n->kwargs[k].val;
        }
    }
    return 0;
}

static int find_param(const struct cgs_shape_ctx *sc, const char *name)
{
    size_t len = strlen(name);
    uint32_t i;

    for (i = 0; i < sc->n_params; i++)
        if (pname_len(sc, i) == len && !memcmp(sc->p[i].name, name, len))
            return (int)i;
    return -1;
}

/* Parse a schema default ("None", "1", "[1, 1]", "True", "0.5", "'none'") into the arena. */
static const struct cgs_arg *parse_default(struct cgs_shape_ctx *sc, const char *s, size_t len)
{
    struct cgs_arg *a = cgs_arena_alloc(sc->ar, sizeof(*a));
    char buf[128];

    if (len >= sizeof(buf))
        len = sizeof(buf) - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
    if (!strcmp(buf, "None")) {
        a->kind = CGS_ARG_NONE;
    } else if (!strcmp(buf, "True") || !strcmp(buf, "False")) {
        a->kind = CGS_ARG_BOOL;
        a->u.b = buf[0] == 'T';
    } else if (buf[0] == '\'') {
        a->kind = CGS_ARG_STR;
        a->u.s = cgs_arena_strndup(sc->ar, buf + 1, len >= 2 ? len - 2 : 0);
    } else if (buf[0] == '[') {
        struct cgs_arg items[16];
        char *p = buf + 1;
        uint32_t n = 0;
        while (*p && *p != ']' && n < 16) {
            char *e;
            long long v = strtoll(p, &e, 10);
            if (e == p)
                break;
            items[n].kind = CGS_ARG_INT;
            items[n++].u.i = v;
            p = e;
            while (*p == ',' || *p == ' ')
                p++;
        }
        a->kind = CGS_ARG_LIST;
        a->n = n;
        a->u.items = cgs_arena_calloc(sc->ar, n ? n : 1, sizeof(*items));
        memcpy(a->u.items, items, n * sizeof(*items));
    } else if (strpbrk(buf, ".e")) {
        a->kind = CGS_ARG_FLOAT;
        a->u.f = strtod(buf, NULL);
    } else {
        a->kind = CGS_ARG_INT;
        a->u.i = strtoll(buf, NULL, 10);
    }
    return a;
}

static const struct cgs_arg *Ai(struct cgs_shape_ctx *sc, uint32_t i);

/* The argument bound to a parameter, or its default; NULL when neither. */
static const struct cgs_arg *A(struct cgs_shape_ctx *sc, const char *name)
{
    int i = find_param(sc, name);

    if (i < 0)
        return NULL;
    return Ai(sc, (uint32_t)i);
}

/* The argument at position i of the schema (bound or default). */
static const struct cgs_arg *Ai(struct cgs_shape_ctx *sc, uint32_t i)
{
    if (i >= sc->n_params)
        return NULL;
    if (sc->p[i].arg)
        return sc->p[i].arg;
    if (!sc->p[i].def)
        return NULL;
    if (!sc->p[i].def_arg) {
        sc->p[i].def_arg = parse_default(sc, sc->p[i].def, sc->p[i].def_len);
        sc->schema->p[i].def_arg = sc->p[i].def_arg;
    }
    return sc->p[i].def_arg;
}

static bool is_none(const struct cgs_arg *a) { return !a || a->kind == CGS_ARG_NONE; }

static const struct cgs_val *node_val(const struct cgs_shape_ctx *sc, const struct cgs_arg *a)
{
    if (!a || a->kind != CGS_ARG_NODE || !a->u.node)
        return NULL;
    return sc->vals[a->u.node->index];
}

/*
 * A tensor argument: 0 with *t set (fully known), 1 when None or absent,
 * -CGS_E_UNKNOWN when not known (yet), -CGS_E_INVAL when not a tensor.
 */
static int arg_tensor(struct cgs_shape_ctx *sc, const struct cgs_arg *a,
                      const struct cgs_tensor **t)
{
    const struct cgs_val *v;

    *t = NULL;
    if (is_none(a))
        return 1;
    if (a->kind != CGS_ARG_NODE)
        return -CGS_E_INVAL;
    v = node_val(sc, a);
    if (!v)
        return -CGS_E_UNKNOWN;
    if (v->kind == CGS_VAL_NONE)
        return 1;
    if (v->kind != CGS_VAL_TENSOR)
        return -CGS_E_INVAL;
    *t = &v->u.t;
    return tensor_known(*t) ? 0 : -CGS_E_UNKNOWN;
}

/* A tensor parameter that must be there: 0, or an error code with d filled. */
static int need_tensor(struct cgs_shape_ctx *sc, const char *name, const struct cgs_tensor **t,
                       struct cgs_diag *d)
{
    int rc = arg_tensor(sc, A(sc, name), t);

    if (rc == 0)
        return 0;
    if (rc == -CGS_E_UNKNOWN)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "input '%s' is not known", name);
    return cgs_diag_set(d, CGS_E_INVAL, "argument '%s' is not a tensor", name);
}

/* An integer (possibly symbolic) from an argument; 0, 1 for None, or -CGS_E_*. */
static int int_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *out)
{
    const struct cgs_val *v;

    *out = NULL;
    if (is_none(a))
        return 1;
    switch (a->kind) {
    case CGS_ARG_INT:
        *out = K(sc, a->u.i);
        return 0;
    case CGS_ARG_BOOL:
        *out = K(sc, a->u.b);
        return 0;
    case CGS_ARG_SYM:
        *out = a->u.sym;
        return 0;
    case CGS_ARG_FLOAT:
        // integers past 2**53 reach JSON readers as floats (slice ends of sys.maxsize)
        if (a->u.f >= 9.2e18) {
            *out = K(sc, INT64_MAX);
            return 0;
        }
        if (a->u.f <= -9.2e18) {
            *out = K(sc, INT64_MIN);
            return 0;
        }
        return -CGS_E_INVAL;
    case CGS_ARG_NODE:
        v = node_val(sc, a);
        if (!v)
            return -CGS_E_UNKNOWN;
        if (v->kind == CGS_VAL_SYMINT && v->u.s.sym) {
            *out = v->u.s.sym;
            return 0;
        }
        if (v->kind == CGS_VAL_INT) {
            *out = K(sc, v->u.i);
            return 0;
        }
        if (v->kind == CGS_VAL_BOOL) {
            *out = K(sc, v->u.b);
            return 0;
        }
        return v->kind == CGS_VAL_SYMINT ? -CGS_E_UNKNOWN : -CGS_E_INVAL;
    default:
        return -CGS_E_INVAL;
    }
}

/* A constant integer; false when absent, None, symbolic or not an int. */
static bool int_const(struct cgs_shape_ctx *sc, const struct cgs_arg *a, int64_t *v)
{
    sym_t e;

    return int_of(sc, a, &e) == 0 && cgs_sym_is_int(e, v);
}

/*
 * A list of integers: a LIST of ints/SymInts, a node whose value is a list
 * (a torch.Size), or a single int (n = 1, the caller repeats it).
 * 0, 1 for None, -CGS_E_UNKNOWN, -CGS_E_INVAL or -CGS_E_LIMIT.
 */
static int ints_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *out, uint32_t *n)
{
    const struct cgs_val *v;
    uint32_t i;
    int rc;

    *n = 0;
    if (is_none(a))
        return 1;
    if (a->kind == CGS_ARG_LIST) {
        if (a->n > NDIM_MAX)
            return -CGS_E_LIMIT;
        // view(*size) called as view(torch.Size node)
        if (a->n == 1 && a->u.items[0].kind == CGS_ARG_NODE) {
            v = node_val(sc, &a->u.items[0]);
            if (v && v->kind == CGS_VAL_LIST)
                return ints_of(sc, &a->u.items[0], out, n);
        }
        for (i = 0; i < a->n; i++) {
            rc = int_of(sc, &a->u.items[i], &out[i]);
            if (rc)
                return rc < 0 ? rc : -CGS_E_INVAL;
        }
        *n = a->n;
        return 0;
    }
    if (a->kind == CGS_ARG_NODE) {
        v = node_val(sc, a);
        if (!v)
            return -CGS_E_UNKNOWN;
        if (v->kind == CGS_VAL_LIST) {
            if (v->n > NDIM_MAX)
                return -CGS_E_LIMIT;
            for (i = 0; i < v->n; i++) {
                const struct cgs_val *it = &v->u.items[i];
                if (it->kind == CGS_VAL_INT)
                    out[i] = K(sc, it->u.i);
                else if (it->kind == CGS_VAL_SYMINT && it->u.s.sym)
                    out[i] = it->u.s.sym;
                else
                    return -CGS_E_UNKNOWN;
            }
            *n = v->n;
            return 0;
        }
    }
    rc = int_of(sc, a, &out[0]);
    if (rc == 0)
        *n = 1;
    return rc;
}

static bool bool_of(const struct cgs_arg *a, bool def)
{
    if (!a)
        return def;
    if (a->kind == CGS_ARG_BOOL)
        return a->u.b;
    if (a->kind == CGS_ARG_INT)
        return a->u.i != 0;
    return def;
}

static enum cgs_dtype dtype_of(const struct cgs_arg *a)
{
    return a && a->kind == CGS_ARG_DTYPE ? a->u.dtype : CGS_DTYPE_UNKNOWN;
}

static const char *str_of(const struct cgs_arg *a)
{
    if (!a)
        return NULL;
    switch (a->kind) {
    case CGS_ARG_STR:
    case CGS_ARG_MEMFMT:
    case CGS_ARG_DEVICE:
    case CGS_ARG_LAYOUT:
        return a->u.s;
    default:
        return NULL;
    }
}

/* Wrap a possibly negative dim into [0, rank); false when out of range. */
static bool wrap_dim(int64_t dim, uint32_t rank, uint32_t *out)
{
    int64_t r = rank ? rank : 1;

    if (dim < 0)
        dim += r;
    if (dim < 0 || dim >= r)
        return false;
    *out = (uint32_t)dim;
    return true;
}

static int dim_arg(struct cgs_shape_ctx *sc, const char *name, uint32_t rank, uint32_t *out,
                   struct cgs_diag *d)
{
    int64_t v;

    if (!int_const(sc, A(sc, name), &v))
        return cgs_diag_set(d, CGS_E_INVAL, "argument '%s' is not a constant int", name);
    if (!wrap_dim(v, rank, out))
        return cgs_diag_set(d, CGS_E_INVAL, "dimension %lld out of range for rank %u", (long long)v,
                            rank);
    return 0;
}

/* ---- dtypes -------------------------------------------------------------------------- */

static int dt_cat(enum cgs_dtype t)
{
    switch (cgs_dtypes[t].kind) {
    case 'B':
        return 0;
    case 'U':
    case 'I':
        return 1;
    case 'F':
        return 2;
    case 'C':
        return 3;
    default:
        return -1;
    }
}

static enum cgs_dtype promote2(enum cgs_dtype a, enum cgs_dtype b)
{
    int ca, cb;

    if (a == CGS_DTYPE_UNKNOWN)
        return b;
    if (b == CGS_DTYPE_UNKNOWN || a == b)
        return a;
    ca = dt_cat(a), cb = dt_cat(b);
    if (ca != cb)
        return ca > cb ? a : b;
    if (ca == 1) {
        bool ua = cgs_dtypes[a].kind == 'U', ub = cgs_dtypes[b].kind == 'U';
        if (ua != ub) {
            enum cgs_dtype s = ua ? b : a, u = ua ? a : b;
            if (cgs_dtypes[s].itemsize > cgs_dtypes[u].itemsize)
                return s;
            return cgs_dtypes[u].itemsize >= 4   ? CGS_DTYPE_INT64
                   : cgs_dtypes[u].itemsize == 2 ? CGS_DTYPE_INT32
                                                 : CGS_DTYPE_INT16;
        }
    }
    if ((a == CGS_DTYPE_FLOAT16 && b == CGS_DTYPE_BFLOAT16) ||
        (b == CGS_DTYPE_FLOAT16 && a == CGS_DTYPE_BFLOAT16))
        return CGS_DTYPE_FLOAT32;
    return cgs_dtypes[a].itemsize >= cgs_dtypes[b].itemsize ? a : b;
}

/* One operand of an elementwise op: a tensor or a Python scalar. */
struct operand {
    const struct cgs_tensor *t; /* NULL for a scalar */
    enum cgs_dtype scalar;      /* the scalar's kind: BOOL, INT64, FLOAT32, COMPLEX64 */
    sym_t sym;                  /* int scalars: the value when known */
    double f;                   /* float scalars */
};

/* 0, 1 for None/absent, -CGS_E_UNKNOWN, -CGS_E_INVAL. */
static int operand_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, struct operand *o)
{
    const struct cgs_val *v;

    memset(o, 0, sizeof(*o));
    if (is_none(a))
        return 1;
    switch (a->kind) {
    case CGS_ARG_BOOL:
        o->scalar = CGS_DTYPE_BOOL;
        o->sym = K(sc, a->u.b);
        return 0;
    case CGS_ARG_INT:
        o->scalar = CGS_DTYPE_INT64;
        o->sym = K(sc, a->u.i);
        return 0;
    case CGS_ARG_SYM:
        o->scalar = CGS_DTYPE_INT64;
        o->sym = a->u.sym;
        return 0;
    case CGS_ARG_FLOAT:
        o->scalar = CGS_DTYPE_FLOAT32;
        o->f = a->u.f;
        return 0;
    case CGS_ARG_NODE:
        v = node_val(sc, a);
        if (!v)
            return -CGS_E_UNKNOWN;
        switch (v->kind) {
        case CGS_VAL_TENSOR:
            o->t = &v->u.t;
            return tensor_known(o->t) ? 0 : -CGS_E_UNKNOWN;
        case CGS_VAL_SYMINT:
            o->scalar = CGS_DTYPE_INT64;
            o->sym = v->u.s.sym;
            return 0;
        case CGS_VAL_INT:
            o->scalar = CGS_DTYPE_INT64;
            o->sym = K(sc, v->u.i);
            return 0;
        case CGS_VAL_SYMFLOAT:
            o->scalar = CGS_DTYPE_FLOAT32;
            o->f = v->u.s.fhint;
            return 0;
        case CGS_VAL_FLOAT:
            o->scalar = CGS_DTYPE_FLOAT32;
            o->f = v->u.f;
            return 0;
        case CGS_VAL_SYMBOOL:
        case CGS_VAL_BOOL:
            o->scalar = CGS_DTYPE_BOOL;
            return 0;
        default:
            return -CGS_E_INVAL;
        }
    default:
        return -CGS_E_INVAL;
    }
}

/* torch.result_type over operands: dimensioned tensors, then 0-dim ones, then scalars. */
static enum cgs_dtype result_type(const struct operand *o, uint32_t n)
{
    enum cgs_dtype dim = CGS_DTYPE_UNKNOWN, zero = CGS_DTYPE_UNKNOWN, wrapped = CGS_DTYPE_UNKNOWN;
    enum cgs_dtype hi, lo;
    uint32_t i;
    int pass;

    for (i = 0; i < n; i++) {
        if (o[i].t && o[i].t->ndim > 0)
            dim = promote2(dim, o[i].t->dtype);
        else if (o[i].t)
            zero = promote2(zero, o[i].t->dtype);
        else
            wrapped = promote2(wrapped, o[i].scalar);
    }
    // combine_categories(dim, combine_categories(zero, wrapped))
    hi = zero, lo = wrapped;
    for (pass = 0; pass < 2; pass++) {
        enum cgs_dtype r;
        if (hi != CGS_DTYPE_UNKNOWN && dt_cat(hi) == 3)
            r = hi;
        else if (lo != CGS_DTYPE_UNKNOWN && dt_cat(lo) == 3)
            r = (hi != CGS_DTYPE_UNKNOWN && dt_cat(hi) == 2)
                    ? (hi == CGS_DTYPE_FLOAT64 ? CGS_DTYPE_COMPLEX128 : CGS_DTYPE_COMPLEX64)
                    : lo;
        else if (hi != CGS_DTYPE_UNKNOWN && dt_cat(hi) == 2)
            r = hi;
        else if (hi == CGS_DTYPE_BOOL || (lo != CGS_DTYPE_UNKNOWN && dt_cat(lo) == 2))
            r = promote2(hi, lo);
        else if (hi != CGS_DTYPE_UNKNOWN)
            r = hi;
        else
            r = lo;
        if (pass == 0)
            hi = dim, lo = r;
        else
            return r;
    }
    return CGS_DTYPE_UNKNOWN;
}

static bool is_float_like(enum cgs_dtype t) { return t != CGS_DTYPE_UNKNOWN && dt_cat(t) >= 2; }

/* ---- results ------------------------------------------------------------------------- */

#define RULE(name)                                                                                 \
    int cgs_shape_rule_##name(const struct cgs_node *n, struct cgs_shape_ctx *sc,                  \
                              struct cgs_diag *d)
#define UNUSED_RULE_ARGS ((void)n, (void)sc, (void)d)
#define TRY(x)                                                                                     \
    do {                                                                                           \
        int rc_ = (x);                                                                             \
        if (rc_ < 0)                                                                               \
            return rc_;                                                                            \
    } while (0)

static void set_symint(struct cgs_shape_ctx *sc, struct cgs_val *v, sym_t e)
{
    int64_t c;

    memset(v, 0, sizeof(*v));
    if (cgs_sym_is_int(e, &c)) {
        v->kind = CGS_VAL_INT;
        v->u.i = c;
        return;
    }
    v->kind = CGS_VAL_SYMINT;
    v->u.s.sym = e;
    v->has_hint = hint(sc, e, &v->u.s.hint);
}

static struct cgs_val *new_list(struct cgs_shape_ctx *sc, uint32_t n)
{
    struct cgs_val *v = new_val(sc, CGS_VAL_LIST);

    v->n = n;
    v->u.items = cgs_arena_calloc(sc->ar, n ? n : 1, sizeof(*v->u.items));
    return v;
}

/* A copy of t's metadata with fresh arrays (for views to edit). */
static struct cgs_tensor *copy_tensor(struct cgs_shape_ctx *sc, struct cgs_val *v,
                                      const struct cgs_tensor *t, uint32_t ndim)
{
    struct cgs_tensor *o = fill_tensor(sc, v, ndim, t->dtype, t->device);

    o->storage_offset = t->storage_offset;
    o->requires_grad = t->requires_grad;
    return o;
}

/* Python-style broadcast of shapes; 0 or an error. */
static int broadcast(struct cgs_shape_ctx *sc, const struct operand *o, uint32_t n, sym_t *shape,
                     uint32_t *nd, struct cgs_diag *d)
{
    uint32_t i, k, r = 0;

    for (k = 0; k < n; k++)
        if (o[k].t && o[k].t->ndim > r)
            r = o[k].t->ndim;
    for (i = 0; i < r; i++)
        shape[i] = NULL;
    for (k = 0; k < n; k++) {
        const struct cgs_tensor *t = o[k].t;
        if (!t)
            continue;
        for (i = 0; i < t->ndim; i++) {
            uint32_t j = r - t->ndim + i;
            sym_t s = t->shape[i];
            int64_t hs = hv(sc, s), ho;
            if (!shape[j]) {
                shape[j] = s;
                continue;
            }
            ho = hv(sc, shape[j]);
            if (hs == 1)
                continue;
            if (ho == 1) {
                shape[j] = s;
                continue;
            }
            if (hs != ho)
                return cgs_diag_set(d, CGS_E_INVAL,
                                    "shapes do not broadcast: size %lld against %lld at dim %u",
                                    (long long)hs, (long long)ho, j);
            // equal: prefer a constant, else the first (duck sizing makes them one symbol)
            if (!cgs_sym_is_int(shape[j], &ho) && cgs_sym_is_int(s, &hs))
                shape[j] = s;
        }
    }
    *nd = r;
    return 0;
}

static const char *device_of(const struct operand *o, uint32_t n)
{
    const char *dev = NULL;
    uint32_t k;

    for (k = 0; k < n; k++) {
        if (!o[k].t || !o[k].t->device)
            continue;
        if (!dev || (o[k].t->ndim > 0 && strcmp(o[k].t->device, "cpu")))
            dev = o[k].t->device;
    }
    return dev;
}

/*
 * The elementwise core: broadcast the operands, give the result dtype and
 * the strides TensorIterator / FakeTensor would. fast: FakeTensor's fast
 * path for binary ops (one operand already of the full shape, and all
 * contiguous or all channels-last) applies first.
 */
static int elementwise(struct cgs_shape_ctx *sc, const struct operand *o, uint32_t n,
                       enum cgs_dtype dtype, bool fast, struct cgs_diag *d)
{
    sym_t shape[NDIM_MAX];
    int64_t sz[NDIM_MAX], st[4][NDIM_MAX];
    uint32_t nd, k, i, nt = 0;
    struct cgs_tensor *t;
    bool full = false, contig = true, cl = true;

    TRY(broadcast(sc, o, n, shape, &nd, d));
    t = out_tensor(sc, nd, dtype, device_of(o, n));
    for (i = 0; i < nd; i++) {
        t->shape[i] = shape[i];
        sz[i] = hv(sc, shape[i]);
    }
    if (fast) {
        for (k = 0; k < n; k++) {
            int64_t osz[NDIM_MAX], ost[NDIM_MAX];
            if (!o[k].t)
                continue;
            hints(sc, o[k].t, osz, ost);
            if (o[k].t->ndim == nd && !memcmp(osz, sz, nd * sizeof(*sz)))
                full = true;
            contig = contig && h_contiguous(o[k].t->ndim, osz, ost);
            cl = cl && h_channels_last(o[k].t->ndim, osz, ost);
        }
        if (full && contig) {
            contiguous_strides(sc, nd, t->shape, t->stride);
            return 0;
        }
        if (full && cl) {
            channels_last_strides(sc, nd, t->shape, t->stride);
            return 0;
        }
    }
    for (k = 0; k < n && nt < 4; k++) {
        if (!o[k].t)
            continue;
        // CPU scalar tensors do not take part (is_cpu_scalar_tensor)
        if (o[k].t->ndim == 0 && o[k].t->device && !strcmp(o[k].t->device, "cpu") && nd > 0)
            continue;
        broadcast_hint_strides(sc, o[k].t, nd, sz, st[nt++]);
    }
    elementwise_strides(sc, nd, t->shape, nt, st, t->stride);
    return 0;
}

/* Operands from the first `count` schema parameters. */
static int operands(struct cgs_shape_ctx *sc, uint32_t count, struct operand *o, uint32_t *n,
                    struct cgs_diag *d)
{
    uint32_t i;

    *n = 0;
    for (i = 0; i < count && i < sc->n_params; i++) {
        int rc = operand_of(sc, Ai(sc, i), &o[*n]);
        if (rc == 1)
            continue;
        if (rc == -CGS_E_UNKNOWN)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "input %u is not known", i);
        if (rc < 0)
            return cgs_diag_set(d, CGS_E_INVAL, "argument %u is not a tensor or a number", i);
        (*n)++;
    }
    return 0;
}

static bool any_tensor(const struct operand *o, uint32_t n)
{
    uint32_t k;

    for (k = 0; k < n; k++)
        if (o[k].t)
            return true;
    return false;
}

static bool any_symbolic(const struct operand *o, uint32_t n)
{
    uint32_t k, i;

    for (k = 0; k < n; k++) {
        const struct cgs_tensor *t = o[k].t;
        if (!t)
            continue;
        for (i = 0; i < t->ndim; i++)
            if (t->shape[i]->kind != CGS_SYM_INT || t->stride[i]->kind != CGS_SYM_INT)
                return true;
        if (t->storage_offset->kind != CGS_SYM_INT)
            return true;
    }
    return false;
}

static int unary_with(struct cgs_shape_ctx *sc, int mode, struct cgs_diag *d)
{
    struct operand o;
    enum cgs_dtype dt;
    uint32_t n;

    TRY(operands(sc, 1, &o, &n, d));
    if (n != 1 || !o.t)
        return cgs_diag_set(d, CGS_E_INVAL, "expected a tensor");
    dt = o.t->dtype;
    if (mode == 1 && !is_float_like(dt))
        dt = CGS_DTYPE_FLOAT32;
    if (mode == 2)
        dt = CGS_DTYPE_BOOL;
    return elementwise(sc, &o, 1, dt, false, d);
}

RULE(unary)
{
    (void)n;
    return unary_with(sc, 0, d);
}

/* 0 when rms_norm's weight is absent or of the input's dtype, which is all that is tracked. */
static int rms_weight_ok(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, struct cgs_diag *d)
{
    const struct cgs_tensor *w;

    if (is_none(A(sc, "weight")))
        return 0;
    TRY(need_tensor(sc, "weight", &w, d));
    if (w->dtype != t->dtype)
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "rms_norm with a %s weight on a %s input is not tracked",
                            cgs_dtypes[w->dtype].name, cgs_dtypes[t->dtype].name);
    return 0;
}

/* rms_norm(input, normalized_shape, weight=None, eps=None): normalised in the input's dtype,
 * then multiplied by the weight, so a weight of another dtype promotes the result; that case
 * is left unknown (torch's CUDA kernel and its composite are not known to agree on it). */
RULE(rms_norm)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "input", &t, d));
    TRY(rms_weight_ok(sc, t, d));
    return unary_with(sc, 0, d);
}

RULE(unary_float)
{
    (void)n;
    return unary_with(sc, 1, d);
}

RULE(unary_bool)
{
    (void)n;
    return unary_with(sc, 2, d);
}

/* The value of the first argument, unchanged (in-place ops and aliases). */
static int same_as_first(struct cgs_shape_ctx *sc, struct cgs_diag *d)
{
    const struct cgs_val *v = node_val(sc, Ai(sc, 0));

    if (!v)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "input is not known");
    sc->out = (struct cgs_val *)v;
    if (v->kind == CGS_VAL_TENSOR && !tensor_known(&v->u.t))
        return -CGS_E_UNKNOWN;
    return 0;
}

RULE(inplace)
{
    (void)n;
    return same_as_first(sc, d);
}

RULE(alias)
{
    (void)n;
    return same_as_first(sc, d);
}

RULE(unary_maybe_inplace)
{
    (void)n;
    if (bool_of(A(sc, "inplace"), false))
        return same_as_first(sc, d);
    return unary_with(sc, 0, d);
}

/* A comparison of two SymInts (operator.ge on sizes, the runtime asserts Dynamo writes around
 * unbacked sizes): a bool when both are constants, else a SymBool written like torch writes it
 * ("u1 >= 0", "u0 <= s77"), its hint from the sizes' hints when they have them. */
static int scalar_compare(struct cgs_shape_ctx *sc, unsigned cmp, sym_t a, sym_t b)
{
    static const char *const ops[] = {"", "<", "<=", ">", ">=", "==", "!="};
    unsigned k = cmp >> 26;
    int64_t x, y;
    bool known = hint(sc, a, &x) && hint(sc, b, &y), r = false;
    struct cgs_buf text = CGS_BUF_INIT;

    if (known)
        r = k == 1 ? x < y : k == 2 ? x <= y : k == 3 ? x > y : k == 4 ? x >= y : k == 5 ? x == y
                                                                                     : x != y;
    if (cgs_sym_is_int(a, &x) && cgs_sym_is_int(b, &y)) {
        sc->out = new_val(sc, CGS_VAL_BOOL);
        sc->out->u.b = r;
        return 0;
    }
    cgs_sym_print(a, &text);
    cgs_buf_addf(&text, " %s ", ops[k]);
    cgs_sym_print(b, &text);
    sc->out = new_val(sc, CGS_VAL_SYMBOOL);
    sc->out->u.s.text = cgs_arena_strdup(sc->ar, text.buf);
    sc->out->has_hint = known;
    sc->out->u.s.hint = r;
    cgs_buf_release(&text);
    return 0;
}

/* operator.and_ / or_: on SymBools (Dynamo's runtime asserts, "(u0 <= s77) & (s77 + u0 >= 0)")
 * a SymBool, its hint from theirs; on tensors and ints the bitwise op (the binary family). */
RULE(logic_binary)
{
    const struct cgs_val *a = node_val(sc, Ai(sc, 0)), *b = node_val(sc, Ai(sc, 1));
    bool is_and = n->op_id == CGS_OP_OPERATOR_AND_;
    struct cgs_buf text = CGS_BUF_INIT;

    if (!a || !b || (a->kind != CGS_VAL_SYMBOOL && a->kind != CGS_VAL_BOOL) ||
        (b->kind != CGS_VAL_SYMBOOL && b->kind != CGS_VAL_BOOL) ||
        (a->kind == CGS_VAL_BOOL && b->kind == CGS_VAL_BOOL))
        return cgs_shape_rule_binary(n, sc, d);
    bool ha = a->kind == CGS_VAL_BOOL || a->has_hint, hb = b->kind == CGS_VAL_BOOL || b->has_hint;
    bool va = a->kind == CGS_VAL_BOOL ? a->u.b : a->u.s.hint != 0;
    bool vb = b->kind == CGS_VAL_BOOL ? b->u.b : b->u.s.hint != 0;
    cgs_buf_addf(&text, "(%s) %s (%s)", a->kind == CGS_VAL_BOOL ? (va ? "True" : "False") : a->u.s.text,
                 is_and ? "&" : "|", b->kind == CGS_VAL_BOOL ? (vb ? "True" : "False") : b->u.s.text);
    sc->out = new_val(sc, CGS_VAL_SYMBOOL);
    sc->out->u.s.text = cgs_arena_strdup(sc->ar, text.buf);
    // the result is known from one side alone where it decides (False & x, True | x)
    sc->out->has_hint = (ha && hb) || (ha && va != is_and) || (hb && vb != is_and);
    sc->out->u.s.hint = is_and ? (ha && !va) || (hb && !vb) ? 0 : 1
                               : (ha && va) || (hb && vb) ? 1 : 0;
    cgs_buf_release(&text);
    return 0;
}

/* Scalar arithmetic on SymInts (operator.add on sizes and the like): the registry's ARITH
 * flags say which. */
static int scalar_arith(struct cgs_shape_ctx *sc, const struct cgs_node *n, const struct operand *o,
                        uint32_t cnt, struct cgs_diag *d)
{
    unsigned f = sc->op->flags;
    sym_t a, b, r = NULL;

    if (cnt != 2 || o[0].scalar != CGS_DTYPE_INT64 || o[1].scalar != CGS_DTYPE_INT64 || !o[0].sym ||
        !o[1].sym) {
        sc->out = NULL;
        return cgs_diag_set(d, CGS_E_UNKNOWN, "scalar arithmetic on non-integers is not tracked");
    }
    a = o[0].sym, b = o[1].sym;
    if (f & CGS_OPF_CMP_MASK)
        return scalar_compare(sc, f & CGS_OPF_CMP_MASK, a, b);
    if (f & CGS_OPF_ARITH_REFLECTED) {
        sym_t t = a;
        a = b, b = t;
    }
    if (f & CGS_OPF_ARITH_ADD)
        r = S_add(sc, a, b);
    else if (f & CGS_OPF_ARITH_SUB)
        r = S_sub(sc, a, b);
    else if (f & CGS_OPF_ARITH_MUL)
        r = S_mul(sc, a, b);
    else if (f & CGS_OPF_ARITH_FLOORDIV)
        r = S_div(sc, a, b);
    else if (f & CGS_OPF_ARITH_MOD)
        r = cgs_sym_mod(sc->sx, a, b);
    if (!r)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "scalar '%s' is not tracked", n->target);
    sc->out = new_val(sc, CGS_VAL_INT);
    set_symint(sc, sc->out, r);
    return 0;
}

static int binary_with(const struct cgs_node *n, struct cgs_shape_ctx *sc, int mode, uint32_t count,
                       struct cgs_diag *d)
{
    struct operand o[4];
    enum cgs_dtype dt;
    uint32_t cnt;
    bool fast;

    TRY(operands(sc, count, o, &cnt, d));
    if (!any_tensor(o, cnt))
        return scalar_arith(sc, n, o, cnt, d);
    dt = result_type(o, cnt);
    if (mode == 1 && !is_float_like(dt))
        dt = CGS_DTYPE_FLOAT32;
    if (mode == 2)
        dt = CGS_DTYPE_BOOL;
    // FakeTensor's fast binary path covers add, sub, mul, div (aten and operator forms),
    // and FakeTensorMode takes it only when an input has symbolic sizes or strides
    fast = (sc->op->flags & CGS_OPF_FAKE_FAST_BINARY) && any_symbolic(o, cnt);
    return elementwise(sc, o, cnt, dt, fast, d);
}

RULE(binary) { return binary_with(n, sc, 0, 2, d); }

/* The real dtype of a complex one (complex64 -> float32); others unchanged. */
static enum cgs_dtype real_of(enum cgs_dtype t)
{
    switch (t) {
    case CGS_DTYPE_COMPLEX32:
        return CGS_DTYPE_FLOAT16;
    case CGS_DTYPE_COMPLEX64:
        return CGS_DTYPE_FLOAT32;
    case CGS_DTYPE_COMPLEX128:
        return CGS_DTYPE_FLOAT64;
    default:
        return t;
    }
}

/*
 * Any pointwise op torch tags `pointwise`: broadcast the parameters marked for type
 * promotion (their Tensor and Scalar arguments), promote them as the op's kind says
 * (torch._prims_common.elementwise_dtypes) and lay the result out as TensorIterator does.
 */
RULE(pointwise)
{
    struct operand o[8];
    enum cgs_dtype dt;
    unsigned f = sc->op->flags;
    uint32_t cnt = 0, i;

    (void)n;
    for (i = 0; i < sc->n_params && cnt < 8; i++) {
        int rc;
        if (!sc->p[i].promote)
            continue;
        rc = operand_of(sc, Ai(sc, i), &o[cnt]);
        if (rc == 1)
            continue;
        if (rc == -CGS_E_UNKNOWN)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "input '%.*s' is not known",
                                (int)pname_len(sc, i), sc->p[i].name);
        if (rc < 0)
            return cgs_diag_set(d, CGS_E_INVAL, "argument '%.*s' is not a tensor or a number",
                                (int)pname_len(sc, i), sc->p[i].name);
        cnt++;
    }
    if (!any_tensor(o, cnt))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "no tensor operand (a scalar-only call)");
    dt = result_type(o, cnt);
    if ((f & CGS_OPF_PROMO_INT_TO_FLOAT) && !is_float_like(dt))
        dt = CGS_DTYPE_FLOAT32;
    else if (f & CGS_OPF_PROMO_ALWAYS_BOOL)
        dt = CGS_DTYPE_BOOL;
    else if (f & CGS_OPF_PROMO_COMPLEX_TO_FLOAT)
        dt = real_of(dt);
    else if ((f & CGS_OPF_PROMO_BOOL_TO_LONG) && dt == CGS_DTYPE_BOOL)
        dt = CGS_DTYPE_INT64;
    return elementwise(sc, o, cnt, dt, false, d);
}

/* frexp: (mantissa of self's dtype, exponent int32), both laid out as the input. */
RULE(frexp)
{
    struct operand o;
    struct cgs_val *pair;

    TRY(operands(sc, 1, &o, &(uint32_t){0}, d));
    if (!o.t)
        return cgs_diag_set(d, CGS_E_INVAL, "frexp: expected a tensor");
    pair = new_list(sc, 2);
    TRY(elementwise(sc, &o, 1, o.t->dtype, false, d));
    pair->u.items[0] = *sc->out;
    TRY(elementwise(sc, &o, 1, CGS_DTYPE_INT32, false, d));
    pair->u.items[1] = *sc->out;
    sc->out = pair;
    (void)n;
    return 0;
}

/* float_power: always double precision (complex128 when an operand is complex). */
RULE(float_power)
{
    struct operand o[2];
    uint32_t cnt;
    enum cgs_dtype dt;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (!any_tensor(o, cnt))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "float_power of scalars");
    dt = dt_cat(result_type(o, cnt)) == 3 ? CGS_DTYPE_COMPLEX128 : CGS_DTYPE_FLOAT64;
    return elementwise(sc, o, cnt, dt, false, d);
}

static int copy_like(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, enum cgs_dtype dt,
                     const char *memfmt, const char *device);

/* ---- FFT (torch's meta kernels: _exec_fft's layout) ---------------------------------- */

/*
 * The layout _exec_fft gives: batch dims (those not transformed) first, ordered by the
 * input's strides (largest first, stable), then the transformed dims in index order; the
 * output allocated contiguous as [batch, out_sizes[dim[0]], ...] and strided back.
 */
static void exec_fft_strides(struct cgs_shape_ctx *sc, uint32_t nd, const int64_t *in_st,
                             const sym_t *out_sz, const uint32_t *dims, uint32_t nt,
                             sym_t *out_st)
{
    uint32_t perm[NDIM_MAX], nb = 0, i, j;
    bool tr[NDIM_MAX] = {false};
    sym_t bstride[NDIM_MAX + 1], numel;

    for (i = 0; i < nt; i++)
        tr[dims[i]] = true;
    for (i = 0; i < nd; i++)
        if (!tr[i])
            perm[nb++] = i;
    // stable sort of the batch dims by input stride, descending
    for (i = 1; i < nb; i++) {
        uint32_t v = perm[i];
        for (j = i; j > 0 && in_st[perm[j - 1]] < in_st[v]; j--)
            perm[j] = perm[j - 1];
        perm[j] = v;
    }
    for (i = 0, j = nb; i < nd; i++)
        if (tr[i])
            perm[j++] = i;
    // strides of the contiguous [batch, out_sz[dims[0]], ..., out_sz[dims[nt-1]]]
    bstride[nt] = K(sc, 1);
    for (i = nt; i-- > 0;)
        bstride[i] = S_mul(sc, bstride[i + 1], out_sz[dims[i]]);
    numel = K(sc, 1);
    for (i = nb; i-- > 0;) {
        out_st[perm[i]] = S_mul(sc, numel, bstride[0]);
        numel = S_mul(sc, numel, out_sz[perm[i]]);
    }
    for (i = nb; i < nd; i++)
        out_st[perm[i]] = bstride[1 + (i - nb)];
}

static int fft_dims(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t *dims,
                    uint32_t *nt, struct cgs_diag *d)
{
    sym_t dv[NDIM_MAX];
    uint32_t i;

    if (ints_of(sc, A(sc, "dim"), dv, nt) || *nt > t->ndim)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "fft: dims not known");
    for (i = 0; i < *nt; i++) {
        int64_t v;
        if (!cgs_sym_is_int(dv[i], &v) || !wrap_dim(v, t->ndim, &dims[i]))
            return cgs_diag_set(d, CGS_E_INVAL, "fft: bad dim");
    }
    return 0;
}

static enum cgs_dtype complex_of(enum cgs_dtype t)
{
    return t == CGS_DTYPE_FLOAT64   ? CGS_DTYPE_COMPLEX128
           : t == CGS_DTYPE_FLOAT16 ? CGS_DTYPE_COMPLEX32
                                    : CGS_DTYPE_COMPLEX64;
}

/* cuFFT takes up to 3 transformed dims at once, and not dims (0, 1, ...) (meta kernels). */
static bool fft_optimized(const uint32_t *dims, uint32_t nt)
{
    return nt <= 3 && !(nt >= 2 && dims[0] == 0 && dims[1] == 1);
}

/*
 * One transform: kind 0 c2c, 1 r2c (onesided or not), 2 c2r (last: the last dim's size),
 * over dims[0..nt) of t, laid out as _exec_fft does (cuFFT; CPU and multi-pass plans are not
 * tracked).
 */
static int fft_run(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, const uint32_t *dims,
                   uint32_t nt, int kind, bool onesided, sym_t last, struct cgs_diag *d)
{
    struct cgs_tensor *o;
    int64_t sz[NDIM_MAX], st[NDIM_MAX];
    sym_t out_sz[NDIM_MAX];
    enum cgs_dtype dt;
    bool cuda = t->device && !strncmp(t->device, "cuda", 4);
    uint32_t i;

    dt = kind == 1 ? complex_of(t->dtype) : kind == 2 ? real_of(t->dtype) : t->dtype;
    if (nt == 0)
        return copy_like(sc, t, dt, NULL, NULL);
    // torch refuses a 0-dim signal and repeated dims ("FFT dims must be unique")
    if (t->ndim == 0 || nt > t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "fft of a %u-dim tensor over %u dims", t->ndim, nt);
    for (i = 0; i < nt; i++) {
        bool dup = false;
        for (uint32_t j = i + 1; j < nt; j++)
            dup = dup || dims[i] == dims[j];
        if (dims[i] >= t->ndim || dup)
            return cgs_diag_set(d, CGS_E_INVAL, "fft dims must be unique and in range");
    }
    dimcpy(out_sz, t->shape, t->ndim);
    hints(sc, t, sz, st);
    if (kind == 1 && onesided)
        out_sz[dims[nt - 1]] = S_add(sc, S_div(sc, t->shape[dims[nt - 1]], K(sc, 2)), K(sc, 1));
    if (kind == 2) {
        out_sz[dims[nt - 1]] = last;
        // the inverse transform runs on a contiguous copy of the input
        st[t->ndim - 1] = 1;
        for (i = t->ndim - 1; i > 0; i--)
            st[i - 1] = st[i] * (sz[i] ? sz[i] : 1);
    }
    if (kind != 0 && (!cuda || (nt > 1 && !fft_optimized(dims, nt))))
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "fft: this transform's layout (CPU, or cuFFT in several passes) is "
                            "not tracked");
    o = out_tensor(sc, t->ndim, dt, t->device);
    dimcpy(o->shape, out_sz, t->ndim);
    exec_fft_strides(sc, t->ndim, st, out_sz, dims, nt, o->stride);
    return 0;
}

static int fft_common(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    uint32_t dims[NDIM_MAX], nt;
    sym_t last = NULL;

    TRY(need_tensor(sc, "self", &t, d));
    TRY(fft_dims(sc, t, dims, &nt, d));
    if (kind == 2 && int_of(sc, A(sc, "last_dim_size"), &last))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "fft: last_dim_size not known");
    return fft_run(sc, t, dims, nt, kind, bool_of(A(sc, "onesided"), true), last, d);
}

/* torch.fft.* (fft_fft, fft_rfft2, fft_irfftn, ...): dims from `dim` (an int, a list, or all),
 * without resizing (n / s given are not tracked); real input to a complex transform is a
 * two-sided r2c, as torch does it. */
static int fft_user(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    const struct cgs_arg *da = A(sc, "dim"), *na = A(sc, "n"), *sa = A(sc, "s");
    uint32_t dims[NDIM_MAX], nt = 0, i;
    sym_t want[NDIM_MAX], last = NULL;
    bool resize = false;
    int cat;

    TRY(need_tensor(sc, "self", &t, d));
    if (!is_none(sa) && is_none(da)) {
        // s without dim: the last len(s) dims
        uint32_t ns;
        if (ints_of(sc, sa, want, &ns) || ns > t->ndim)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "fft: s not known");
        for (i = 0; i < ns; i++)
            dims[nt++] = t->ndim - ns + i;
        resize = true;
    } else if (is_none(da)) {
        for (i = 0; i < t->ndim; i++)
            dims[nt++] = i;
    } else if (da->kind == CGS_ARG_LIST) {
        TRY(fft_dims(sc, t, dims, &nt, d));
    } else {
        int64_t v;
        if (!int_const(sc, da, &v) || !wrap_dim(v, t->ndim, &dims[0]))
            return cgs_diag_set(d, CGS_E_INVAL, "fft: bad dim");
        nt = 1;
    }
    if (!is_none(na) || (!is_none(sa) && !resize)) {
        uint32_t ns = 1;
        if (!is_none(na) ? int_of(sc, na, &want[0]) != 0
                         : ints_of(sc, sa, want, &ns) != 0 || ns != nt)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "fft: n or s not known");
        if (!is_none(na) && nt != 1)
            return cgs_diag_set(d, CGS_E_INVAL, "fft: n with several dims");
        resize = true;
    }
    cat = dt_cat(t->dtype);
    if (cat < 2)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "fft of an integer tensor (a promoted copy) is not "
                                              "tracked");
    if (kind == 2 && cat != 3)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "irfft of a real tensor (a promoted copy) is not "
                                              "tracked");
    if (kind == 2 && nt == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "irfft over no dims");
    if (resize) {
        // torch's resize of the signal: narrow the dims that are too long (a view), then pad
        // the ones too short (constant_pad_nd: a contiguous copy); for c2r the last dim's
        // input length is n // 2 + 1
        struct cgs_val *rv = new_val(sc, CGS_VAL_TENSOR);
        struct cgs_tensor *r = copy_tensor(sc, rv, t, t->ndim);
        bool pad = false;
        dimcpy(r->shape, t->shape, t->ndim);
        dimcpy(r->stride, t->stride, t->ndim);
        for (i = 0; i < nt; i++) {
            sym_t w = want[i];
            int64_t wv;
            if (cgs_sym_is_int(w, &wv) && wv == -1)
                continue;
            if (kind == 2 && i == nt - 1) {
                last = w;
                w = S_add(sc, S_div(sc, w, K(sc, 2)), K(sc, 1));
            }
            if (hv(sc, t->shape[dims[i]]) < hv(sc, w))
                pad = true;
            r->shape[dims[i]] = w;
        }
        if (pad)
            contiguous_strides(sc, r->ndim, r->shape, r->stride), r->storage_offset = K(sc, 0);
        t = r;
    }
    if (kind == 0)
        return fft_run(sc, t, dims, nt, cat == 3 ? 0 : 1, false, NULL, d);
    if (kind == 1) {
        if (cat == 3)
            return cgs_diag_set(d, CGS_E_INVAL, "rfft of a complex tensor");
        return fft_run(sc, t, dims, nt, 1, true, NULL, d);
    }
    if (!last)
        last = S_mul(sc, S_sub(sc, t->shape[dims[nt - 1]], K(sc, 1)), K(sc, 2));
    return fft_run(sc, t, dims, nt, 2, false, last, d);
}

/* torch.fft's Hermitian transforms of several dims run a c2c pass besides: only one dim
 * is tracked. */
static int fft_user_hermitian(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
{
    const struct cgs_arg *da = A(sc, "dim");

    if ((is_none(da) && find_param(sc, "n") < 0) || (da && da->kind == CGS_ARG_LIST && da->n != 1))
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "a Hermitian FFT over several dims (c2c passes) is not tracked");
    return fft_user(sc, kind, d);
}

RULE(fft_user_hfft) { (void)n; return fft_user_hermitian(sc, 2, d); }
RULE(fft_user_ihfft) { (void)n; return fft_user_hermitian(sc, 1, d); }

RULE(fft_user_c2c) { (void)n; return fft_user(sc, 0, d); }
RULE(fft_user_r2c) { (void)n; return fft_user(sc, 1, d); }
RULE(fft_user_c2r) { (void)n; return fft_user(sc, 2, d); }

RULE(fft_c2c)
{
    (void)n;
    return fft_common(sc, 0, d);
}

RULE(fft_r2c)
{
    (void)n;
    return fft_common(sc, 1, d);
}

RULE(fft_c2r)
{
    (void)n;
    return fft_common(sc, 2, d);
}

static int shape_param(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *shape,
                       uint32_t *nd, struct cgs_diag *d);

/* resize_(self, size): self becomes contiguous of the new size (storage grown as needed). */
RULE(resize)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, A(sc, "size"), shape, &nd, d));
    out_dense(sc, nd, shape, t->dtype, t->device, false);
    return 0;
}

/* An out= overload: the value is the tensor(s) it writes, as passed. */
RULE(out)
{
    const struct cgs_val *one = NULL;
    struct cgs_val *list;
    uint32_t i, k = 0, cnt = 0;

    (void)n;
    for (i = 0; i < sc->n_params; i++) {
        if (!sc->p[i].written)
            continue;
        cnt++;
        one = node_val(sc, Ai(sc, i));
        if (!one)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "out= tensor '%.*s' is not known",
                                (int)pname_len(sc, i), sc->p[i].name);
    }
    if (cnt == 0)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "no out= tensor");
    if (cnt == 1) {
        sc->out = (struct cgs_val *)one;
        return 0;
    }
    list = new_list(sc, cnt);
    for (i = 0; i < sc->n_params; i++)
        if (sc->p[i].written)
            list->u.items[k++] = *node_val(sc, Ai(sc, i));
    sc->out = list;
    return 0;
}

/* Known to torch, no rule yet: infer_node reports it as unknown_op before calling this. */
RULE(none)
{
    (void)n, (void)sc;
    return cgs_diag_set(d, CGS_E_UNKNOWN, "no shape rule");
}

RULE(binary_float) { return binary_with(n, sc, 1, 2, d); }

RULE(compare) { return binary_with(n, sc, 2, 2, d); }

RULE(binary_div_mode)
{
    const char *mode = str_of(A(sc, "rounding_mode"));

    return binary_with(n, sc, mode ? 0 : 1, 2, d);
}

RULE(binary_iop)
{
    struct operand o;

    if (operand_of(sc, Ai(sc, 0), &o) == 0 && o.t)
        return same_as_first(sc, d);
    return binary_with(n, sc, 0, 2, d);
}

RULE(where)
{
    struct operand o[3];
    uint32_t cnt;

    (void)n;
    TRY(operands(sc, 3, o, &cnt, d));
    if (cnt != 3)
        return cgs_diag_set(d, CGS_E_INVAL, "where needs three arguments");
    return elementwise(sc, o, 3, result_type(o + 1, 2), false, d);
}

RULE(where3)
{
    struct operand o[3];
    uint32_t cnt;

    (void)n;
    TRY(operands(sc, 3, o, &cnt, d));
    return elementwise(sc, o, cnt, result_type(o, cnt), false, d);
}

RULE(where_like_clamp) { return cgs_shape_rule_where3(n, sc, d); }

RULE(masked_fill)
{
    struct operand o[2];
    uint32_t cnt;
    enum cgs_dtype dt;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t)
        return cgs_diag_set(d, CGS_E_INVAL, "masked_fill needs a tensor and a mask");
    dt = o[0].t->dtype;
    // ATen: the expanded self, cloned contiguous, then filled in place
    {
        sym_t shape[NDIM_MAX];
        uint32_t nd;
        TRY(broadcast(sc, o, 2, shape, &nd, d));
        out_dense(sc, nd, shape, dt, o[0].t->device, false);
        return 0;
    }
}

RULE(softmax)
{
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    int rc;

    (void)n;
    rc = unary_with(sc, 0, d);
    if (rc)
        return rc;
    // the softmax kernels allocate their output contiguous whatever the input's layout
    contiguous_strides(sc, sc->out->u.t.ndim, sc->out->u.t.shape, sc->out->u.t.stride);
    if (dt != CGS_DTYPE_UNKNOWN)
        sc->out->u.t.dtype = dt;
    return 0;
}

/* ---- dtype conversions and copies ------------------------------------------------------ */

/* A dense copy of t with dtype dt laid out per memory format name (NULL = preserve). */
static int copy_like(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, enum cgs_dtype dt,
                     const char *memfmt, const char *device)
{
    struct cgs_tensor *o = out_tensor(sc, t->ndim, dt != CGS_DTYPE_UNKNOWN ? dt : t->dtype,
                                      device ? device : t->device);
    uint32_t i;

    for (i = 0; i < t->ndim; i++)
        o->shape[i] = t->shape[i];
    if (memfmt && !strcmp(memfmt, "contiguous_format"))
        contiguous_strides(sc, t->ndim, o->shape, o->stride);
    else if (memfmt && (!strcmp(memfmt, "channels_last") || !strcmp(memfmt, "channels_last_3d")))
        channels_last_strides(sc, t->ndim, o->shape, o->stride);
    else
        preserve_strides(sc, t, o->stride);
    return 0;
}

RULE(convert)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "a", &t, d));
    return copy_like(sc, t, dtype_of(A(sc, "dtype")), NULL, NULL);
}

RULE(to_copy)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    return copy_like(sc, t, dtype_of(A(sc, "dtype")), str_of(A(sc, "memory_format")),
                     str_of(A(sc, "device")));
}

static bool same_device(const char *a, const char *b)
{
    if (!a || !b)
        return true;
    if (!strcmp(a, b))
        return true;
    // "cuda" names the current device, cuda:0 here
    return (!strcmp(a, "cuda") && !strcmp(b, "cuda:0")) ||
           (!strcmp(b, "cuda") && !strcmp(a, "cuda:0"));
}

RULE(to)
{
    const struct cgs_tensor *t;
    enum cgs_dtype dt = CGS_DTYPE_UNKNOWN;
    const char *dev = NULL, *memfmt = NULL;
    bool copy = bool_of(A(sc, "copy"), false);
    uint32_t i;

    TRY(need_tensor(sc, "self", &t, d));
    // positional forms: to(dtype), to(device[, dtype]), to(other)
    for (i = 1; i < n->n_args; i++) {
        const struct cgs_arg *a = &n->args[i];
        if (a->kind == CGS_ARG_DTYPE)
            dt = a->u.dtype;
        else if (a->kind == CGS_ARG_DEVICE || a->kind == CGS_ARG_STR)
            dev = a->u.s;
        else if (a->kind == CGS_ARG_NODE) {
            const struct cgs_val *v = node_val(sc, a);
            if (v && v->kind == CGS_VAL_TENSOR)
                dt = v->u.t.dtype, dev = v->u.t.device;
        } else if (a->kind == CGS_ARG_BOOL && i >= 2) {
            copy = copy || (i == 3 && a->u.b);
        }
    }
    for (i = 0; i < n->n_kwargs; i++) {
        const struct cgs_kwarg *k = &n->kwargs[i];
        if (!strcmp(k->key, "dtype") && k->val.kind == CGS_ARG_DTYPE)
            dt = k->val.u.dtype;
        else if (!strcmp(k->key, "device"))
            dev = str_of(&k->val);
        else if (!strcmp(k->key, "memory_format"))
            memfmt = str_of(&k->val);
        else if (!strcmp(k->key, "copy"))
            copy = bool_of(&k->val, false);
    }
    if (memfmt && !strcmp(memfmt, "preserve_format"))
        memfmt = NULL;
    if (!copy && !memfmt && (dt == CGS_DTYPE_UNKNOWN || dt == t->dtype) &&
        same_device(dev, t->device))
        return same_as_first(sc, d);
    return copy_like(sc, t, dt, memfmt, dev);
}


RULE(type_as)
{
    const struct cgs_tensor *t, *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "other", &o, d));
    if (o->dtype == t->dtype)
        return same_as_first(sc, d);
    return copy_like(sc, t, o->dtype, NULL, NULL);
}

RULE(clone)
{
    const struct cgs_tensor *t;
    const char *fmt = str_of(A(sc, "memory_format"));

    (void)n;
    TRY(need_tensor(sc, sc->p[0].name_len == 4 ? "self" : "input", &t, d));
    if (fmt && !strcmp(fmt, "preserve_format"))
        fmt = NULL;
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, fmt, NULL);
}

RULE(copy)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, NULL, NULL);
}

RULE(contiguous)
{
    const struct cgs_tensor *t;
    const char *fmt = str_of(A(sc, "memory_format"));
    int64_t sz[NDIM_MAX], st[NDIM_MAX];
    bool cl = fmt && !strcmp(fmt, "channels_last");

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    hints(sc, t, sz, st);
    if (cl ? h_channels_last(t->ndim, sz, st) : h_contiguous(t->ndim, sz, st))
        return same_as_first(sc, d);
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, cl ? "channels_last" : "contiguous_format", NULL);
}

RULE(empty_like)
{
    const struct cgs_tensor *t;
    const char *fmt = str_of(A(sc, "memory_format"));

    (void)n;
    TRY(need_tensor(sc, sc->p[0].name_len == 4 ? "self" : "input", &t, d));
    if (fmt && !strcmp(fmt, "preserve_format"))
        fmt = NULL;
    return copy_like(sc, t, dtype_of(A(sc, "dtype")), fmt, str_of(A(sc, "device")));
}

RULE(full_like) { return cgs_shape_rule_empty_like(n, sc, d); }

RULE(dropout)
{
    const struct cgs_tensor *t;
    const struct cgs_arg *train = A(sc, "training");

    (void)n;
    if (!train)
        train = A(sc, "train");
    TRY(need_tensor(sc, "input", &t, d));
    // without training, dropout returns its input (recorded under FakeTensorMode, strides of
    // a non-dense input kept: tests/data/shapes.test)
    if (!bool_of(train, true))
        return same_as_first(sc, d);
    if (bool_of(A(sc, "inplace"), false))
        return same_as_first(sc, d);
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, NULL, NULL);
}

RULE(native_dropout)
{
    const struct cgs_tensor *t;
    struct cgs_val *l;
    uint32_t i;

    (void)n;
    TRY(need_tensor(sc, "input", &t, d));
    l = new_list(sc, 2);
    for (i = 0; i < 2; i++) {
        struct cgs_tensor *o =
            fill_tensor(sc, &l->u.items[i], t->ndim, i ? CGS_DTYPE_BOOL : t->dtype, t->device);
        dimcpy(o->shape, t->shape, t->ndim);
        preserve_strides(sc, t, o->stride);
    }
    sc->out = l;
    return 0;
}

/* ---- views ----------------------------------------------------------------------------- */

static sym_t numel_of(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape)
{
    sym_t m = K(sc, 1);
    uint32_t i;

    for (i = 0; i < nd; i++)
        m = S_mul(sc, m, shape[i]);
    return m;
}

/* Resolve one -1 in a requested shape against numel (infer_size). */
static int infer_size(struct cgs_shape_ctx *sc, sym_t numel, sym_t *shape, uint32_t nd,
                      struct cgs_diag *d)
{
    uint32_t i, neg = nd;
    sym_t known = K(sc, 1);

    for (i = 0; i < nd; i++) {
        if (is_const(shape[i], -1)) {
            if (neg != nd)
                return cgs_diag_set(d, CGS_E_INVAL, "only one dimension can be inferred");
            neg = i;
        } else {
            known = S_mul(sc, known, shape[i]);
        }
    }
    if (neg != nd) {
        int64_t hk = hv(sc, known);
        if (hk == 0)
            return cgs_diag_set(d, CGS_E_INVAL, "cannot infer a dimension of a 0-element shape");
        shape[neg] = S_div(sc, numel, known);
        if (!shape[neg])
            return cgs_diag_set(d, CGS_E_UNKNOWN, "inferred dimension overflows");
    } else if (hv(sc, known) != hv(sc, numel)) {
        return cgs_diag_set(d, CGS_E_INVAL, "shape of %lld elements is invalid for input of %lld",
                            (long long)hv(sc, known), (long long)hv(sc, numel));
    }
    return 0;
}

/* ATen's computeStride: strides of a view of t as shape, or false when not viewable. */
static bool view_strides(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
                         const sym_t *shape, sym_t *stride)
{
    int64_t osz[NDIM_MAX], ost[NDIM_MAX], tensor_numel = 1, view_numel = 1;
    sym_t chunk_base, s_tensor_numel, s_view_numel;
    int64_t view_d = (int64_t)nd - 1, td;
    uint32_t i;

    if (t->ndim == 0) {
        for (i = 0; i < nd; i++)
            stride[i] = K(sc, 1);
        return true;
    }
    hints(sc, t, osz, ost);
    for (i = 0; i < t->ndim; i++)
        if (osz[i] == 0) {
            contiguous_strides(sc, nd, shape, stride);
            return true;
        }
    chunk_base = t->stride[t->ndim - 1];
    s_tensor_numel = K(sc, 1);
    s_view_numel = K(sc, 1);
    for (td = (int64_t)t->ndim - 1; td >= 0; td--) {
        tensor_numel = hmul(tensor_numel, osz[td]);
        s_tensor_numel = S_mul(sc, s_tensor_numel, t->shape[td]);
        if (td == 0 || (osz[td - 1] != 1 && ost[td - 1] != hmul(tensor_numel, hv(sc, chunk_base)))) {
            while (view_d >= 0 && (view_numel < tensor_numel || hv(sc, shape[view_d]) == 1)) {
                stride[view_d] = S_mul(sc, s_view_numel, chunk_base);
                view_numel = hmul(view_numel, hv(sc, shape[view_d]));
                s_view_numel = S_mul(sc, s_view_numel, shape[view_d]);
                view_d--;
            }
            if (view_numel != tensor_numel)
                return false;
            if (td > 0) {
                chunk_base = t->stride[td - 1];
                tensor_numel = 1, view_numel = 1;
                s_tensor_numel = K(sc, 1), s_view_numel = K(sc, 1);
            }
        }
    }
    return view_d == -1;
}

/* view / reshape to the shape in parameter `name`; reshape copies when it must. */
static int view_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, sym_t *shape, uint32_t nd,
                   bool can_copy, struct cgs_diag *d)
{
    struct cgs_tensor *o;
    uint32_t i;

    TRY(infer_size(sc, numel_of(sc, t->ndim, t->shape), shape, nd, d));
    sc->out = new_val(sc, CGS_VAL_TENSOR);
    o = copy_tensor(sc, sc->out, t, nd);
    for (i = 0; i < nd; i++)
        o->shape[i] = shape[i];
    if (view_strides(sc, t, nd, o->shape, o->stride))
        return 0;
    if (!can_copy)
        return cgs_diag_set(d, CGS_E_INVAL,
                            "view size is not compatible with input tensor's size and stride");
    contiguous_strides(sc, nd, o->shape, o->stride);
    o->storage_offset = K(sc, 0);
    return 0;
}

static int shape_param(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *shape,
                       uint32_t *nd, struct cgs_diag *d)
{
    int rc = ints_of(sc, a, shape, nd);

    if (rc == -CGS_E_UNKNOWN)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "size argument is not known");
    if (rc)
        return cgs_diag_set(d, CGS_E_INVAL, "size argument is not a list of ints");
    return 0;
}

RULE(view)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, Ai(sc, 1), shape, &nd, d));
    return view_to(sc, t, shape, nd, false, d);
}

RULE(reshape)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, Ai(sc, 1), shape, &nd, d));
    return view_to(sc, t, shape, nd, true, d);
}

RULE(reshape_as)
{
    const struct cgs_tensor *t, *o;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "other", &o, d));
    dimcpy(shape, o->shape, o->ndim);
    return view_to(sc, t, shape, o->ndim, true, d);
}

RULE(view_as)
{
    const struct cgs_tensor *t, *o;
    sym_t shape[NDIM_MAX];

    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "other", &o, d));
    dimcpy(shape, o->shape, o->ndim);
    (void)n;
    return view_to(sc, t, shape, o->ndim, false, d);
}

RULE(view_dtype)
{
    const struct cgs_tensor *t;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (dt == CGS_DTYPE_UNKNOWN || cgs_dtypes[dt].itemsize != cgs_dtypes[t->dtype].itemsize)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "view as a dtype of another size is not tracked");
    {
        struct cgs_val *v = new_val(sc, CGS_VAL_TENSOR);
        struct cgs_tensor *o = copy_tensor(sc, v, t, t->ndim);
        dimcpy(o->shape, t->shape, t->ndim);
        dimcpy(o->stride, t->stride, t->ndim);
        o->dtype = dt;
        sc->out = v;
    }
    return 0;
}

/* A fresh view value of t (same offset) with ndim dims, as the node's result. */
static struct cgs_tensor *out_view(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                                   uint32_t nd)
{
    struct cgs_val *v = new_val(sc, CGS_VAL_TENSOR);

    sc->out = v;
    return copy_tensor(sc, v, t, nd);
}

RULE(permute)
{
    const struct cgs_tensor *t;
    sym_t dims[NDIM_MAX];
    uint32_t nd, i, seen = 0;
    struct cgs_tensor *o;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, Ai(sc, 1), dims, &nd, d));
    if (nd != t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "permute: %u dims for a tensor of rank %u", nd,
                            t->ndim);
    o = out_view(sc, t, nd);
    for (i = 0; i < nd; i++) {
        int64_t v;
        uint32_t w;
        if (!cgs_sym_is_int(dims[i], &v) || !wrap_dim(v, nd, &w) || (seen & (1u << w)))
            return cgs_diag_set(d, CGS_E_INVAL, "permute: bad dims");
        seen |= 1u << w;
        o->shape[i] = t->shape[w];
        o->stride[i] = t->stride[w];
    }
    return 0;
}

RULE(transpose)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    uint32_t a, b;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(dim_arg(sc, "dim0", t->ndim, &a, d));
    TRY(dim_arg(sc, "dim1", t->ndim, &b, d));
    o = out_view(sc, t, t->ndim);
    dimcpy(o->shape, t->shape, t->ndim);
    dimcpy(o->stride, t->stride, t->ndim);
    if (t->ndim) {
        o->shape[a] = t->shape[b], o->shape[b] = t->shape[a];
        o->stride[a] = t->stride[b], o->stride[b] = t->stride[a];
    }
    return 0;
}

RULE(t)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim > 2)
        return cgs_diag_set(d, CGS_E_INVAL, "t() expects a tensor of rank <= 2");
    o = out_view(sc, t, t->ndim);
    dimcpy(o->shape, t->shape, t->ndim);
    dimcpy(o->stride, t->stride, t->ndim);
    if (t->ndim == 2) {
        o->shape[0] = t->shape[1], o->shape[1] = t->shape[0];
        o->stride[0] = t->stride[1], o->stride[1] = t->stride[0];
    }
    return 0;
}

RULE(unsqueeze)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    uint32_t dim, i, j = 0;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(dim_arg(sc, "dim", t->ndim + 1, &dim, d));
    o = out_view(sc, t, t->ndim + 1);
    for (i = 0; i < t->ndim + 1; i++) {
        if (i == dim) {
            o->shape[i] = K(sc, 1);
            o->stride[i] = dim >= t->ndim ? K(sc, 1) : S_mul(sc, t->shape[dim], t->stride[dim]);
        } else {
            o->shape[i] = t->shape[j];
            o->stride[i] = t->stride[j++];
        }
    }
    return 0;
}

RULE(squeeze)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    const struct cgs_arg *da = Ai(sc, 1);
    sym_t dims[NDIM_MAX];
    uint32_t nd = 0, i, j = 0;
    bool drop[NDIM_MAX] = {false};

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    if (is_none(da)) {
        for (i = 0; i < t->ndim; i++)
            drop[i] = hv(sc, t->shape[i]) == 1;
    } else {
        TRY(shape_param(sc, da, dims, &nd, d));
        for (i = 0; i < nd; i++) {
            int64_t v;
            uint32_t w;
            if (!cgs_sym_is_int(dims[i], &v) || !wrap_dim(v, t->ndim, &w))
                return cgs_diag_set(d, CGS_E_INVAL, "squeeze: dimension out of range");
            if (t->ndim && hv(sc, t->shape[w]) == 1)
                drop[w] = true;
        }
    }
    for (i = 0; i < t->ndim; i++)
        j += !drop[i];
    o = out_view(sc, t, j);
    for (i = 0, j = 0; i < t->ndim; i++) {
        if (drop[i])
            continue;
        o->shape[j] = t->shape[i];
        o->stride[j++] = t->stride[i];
    }
    return 0;
}

static int expand_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, const sym_t *size,
                     uint32_t nd, struct cgs_diag *d)
{
    struct cgs_tensor *o;
    uint32_t i;

    if (nd < t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "expand: fewer sizes than dimensions");
    o = out_view(sc, t, nd);
    // as prims.broadcast_in_dim lays it out (torch 2.11's records, static and symbolic): a
    // new leading dim of size 1 takes stride * size of the input's first dim, any other new
    // dim stride 0
    for (i = nd; i-- > 0;) {
        int64_t off = (int64_t)i - (int64_t)(nd - t->ndim);
        if (off < 0) {
            if (is_const(size[i], -1))
                return cgs_diag_set(d, CGS_E_INVAL, "expand: -1 for a new leading dimension");
            o->shape[i] = size[i];
            // a 0-dim tensor expands with stride 0 everywhere (recorded: expand_as to [1, 1])
            if (hv(sc, size[i]) != 1 || t->ndim == 0)
                o->stride[i] = K(sc, 0);
            else
                o->stride[i] = S_mul(sc, t->stride[0], t->shape[0]);
            continue;
        }
        if (is_const(size[i], -1) || hv(sc, size[i]) == hv(sc, t->shape[off])) {
            o->shape[i] = is_const(size[i], -1) ? t->shape[off] : size[i];
            o->stride[i] = t->stride[off];
            // keep the input's own expression when the sizes agree
            if (!is_const(size[i], -1) && !cgs_sym_is_int(size[i], &off))
                o->shape[i] = size[i];
        } else if (hv(sc, t->shape[off]) == 1) {
            o->shape[i] = size[i];
            o->stride[i] = K(sc, 0);
        } else {
            return cgs_diag_set(d, CGS_E_INVAL, "expand: size %lld cannot become %lld",
                                (long long)hv(sc, t->shape[off]), (long long)hv(sc, size[i]));
        }
    }
    return 0;
}

RULE(expand)
{
    const struct cgs_tensor *t;
    sym_t size[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, Ai(sc, 1), size, &nd, d));
    return expand_to(sc, t, size, nd, d);
}

RULE(expand_as)
{
    const struct cgs_tensor *t, *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "other", &o, d));
    return expand_to(sc, t, o->shape, o->ndim, d);
}

/* select(dim, index) into a given value slot. */
static int select_into(struct cgs_shape_ctx *sc, struct cgs_val *v, const struct cgs_tensor *t,
                       uint32_t dim, sym_t index, struct cgs_diag *d)
{
    struct cgs_tensor *o = copy_tensor(sc, v, t, t->ndim - 1);
    uint32_t i, j = 0;
    int64_t hi = hv(sc, index), hs = hv(sc, t->shape[dim]);

    if (hi < -hs || hi >= hs)
        return cgs_diag_set(d, CGS_E_INVAL, "select: index %lld out of range for size %lld",
                            (long long)hi, (long long)hs);
    if (hi < 0)
        index = S_add(sc, index, t->shape[dim]);
    for (i = 0; i < t->ndim; i++) {
        if (i == dim)
            continue;
        o->shape[j] = t->shape[i];
        o->stride[j++] = t->stride[i];
    }
    o->storage_offset = S_add(sc, t->storage_offset, S_mul(sc, index, t->stride[dim]));
    return 0;
}

RULE(select)
{
    const struct cgs_tensor *t;
    uint32_t dim;
    sym_t index;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "select on a 0-dim tensor");
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    if (int_of(sc, A(sc, "index"), &index))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "select: index not known");
    sc->out = new_val(sc, CGS_VAL_TENSOR);
    return select_into(sc, sc->out, t, dim, index, d);
}

/* A fresh unbacked size symbol (u0, u1, ... in order of creation, as torch numbers them). */
static sym_t unbacked(struct cgs_shape_ctx *sc)
{
    char name[24];

    snprintf(name, sizeof(name), "u%u", sc->n_unbacked++);
    return cgs_sym_var(sc->sx, name);
}

/* Clamp a slice bound (None = default) like ATen's slice; symbolic bounds kept when in range. */
static sym_t slice_bound(struct cgs_shape_ctx *sc, sym_t b, sym_t size, bool is_end)
{
    int64_t hb, hs = hv(sc, size);

    if (!b)
        return is_end ? size : K(sc, 0);
    hb = hv(sc, b);
    if (hb < 0) {
        b = S_add(sc, b, size);
        hb += hs;
        if (hb < 0)
            return K(sc, 0);
    }
    if (hb >= hs)
        return size;
    return b;
}

static int slice_into(struct cgs_shape_ctx *sc, struct cgs_tensor *o, const struct cgs_tensor *t,
                      uint32_t dim, sym_t start, sym_t end, int64_t step, struct cgs_diag *d)
{
    sym_t len;

    if (step <= 0)
        return cgs_diag_set(d, CGS_E_INVAL, "slice step must be positive");
    {
        // a data-dependent bound (an unbacked symbol): FakeTensor cannot clamp it, so the
        // size is a fresh unbacked symbol, and so is the offset when the start is one
        int64_t hs, he;
        bool start_dd = start && !hint(sc, start, &hs), end_dd = end && !hint(sc, end, &he);
        if (start_dd || end_dd) {
            o->shape[dim] = unbacked(sc);
            o->stride[dim] = step == 1 ? t->stride[dim] : S_mul(sc, t->stride[dim], K(sc, step));
            o->storage_offset =
                start_dd ? unbacked(sc)
                         : S_add(sc, o->storage_offset,
                                 S_mul(sc, slice_bound(sc, start, t->shape[dim], false),
                                       t->stride[dim]));
            return 0;
        }
    }
    start = slice_bound(sc, start, t->shape[dim], false);
    end = slice_bound(sc, end, t->shape[dim], true);
    if (hv(sc, end) < hv(sc, start))
        end = start;
    len = S_sub(sc, end, start);
    if (step != 1)
        len = S_div(sc, S_add(sc, len, K(sc, step - 1)), K(sc, step));
    o->shape[dim] = len;
    o->stride[dim] = step == 1 ? t->stride[dim] : S_mul(sc, t->stride[dim], K(sc, step));
    o->storage_offset = S_add(sc, o->storage_offset, S_mul(sc, start, t->stride[dim]));
    return 0;
}

RULE(slice)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    uint32_t dim;
    sym_t start, end;
    int64_t step = 1;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "slice of a 0-dim tensor");
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    if (int_of(sc, A(sc, "start"), &start) < 0 || int_of(sc, A(sc, "end"), &end) < 0)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "slice: bounds not known");
    if (!is_none(A(sc, "step")) && !int_const(sc, A(sc, "step"), &step))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "slice: step not a constant");
    o = out_view(sc, t, t->ndim);
    dimcpy(o->shape, t->shape, t->ndim);
    dimcpy(o->stride, t->stride, t->ndim);
    return slice_into(sc, o, t, dim, start, end, step, d);
}

RULE(narrow)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    uint32_t dim;
    sym_t start, len;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "narrow of a 0-dim tensor");
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    if (int_of(sc, A(sc, "start"), &start) || int_of(sc, A(sc, "length"), &len))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "narrow: bounds not known");
    o = out_view(sc, t, t->ndim);
    dimcpy(o->shape, t->shape, t->ndim);
    dimcpy(o->stride, t->stride, t->ndim);
    {
        // a known start and a data-dependent length: narrow gives exactly `length` rows (or
        // raises), so the size is the length itself, as torch records it
        int64_t hs, hl;
        if (hint(sc, start, &hs) && !hint(sc, len, &hl) && hs >= 0) {
            o->shape[dim] = len;
            o->storage_offset = S_add(sc, o->storage_offset, S_mul(sc, start, t->stride[dim]));
            return 0;
        }
    }
    return slice_into(sc, o, t, dim, start, S_add(sc, start, len), 1, d);
}

RULE(unbind)
{
    const struct cgs_tensor *t;
    uint32_t dim, i;
    int64_t cnt;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "unbind on a 0-dim tensor");
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    if (!cgs_sym_is_int(t->shape[dim], &cnt))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "unbind along a symbolic dimension");
    sc->out = new_list(sc, (uint32_t)cnt);
    for (i = 0; i < (uint32_t)cnt; i++)
        TRY(select_into(sc, &sc->out->u.items[i], t, dim, K(sc, i), d));
    return 0;
}

/* Pieces along dim of the given sizes, as a list of views. */
static int split_into(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t dim,
                      const sym_t *sizes, uint32_t cnt)
{
    sym_t start = K(sc, 0);
    uint32_t i;

    sc->out = new_list(sc, cnt);
    for (i = 0; i < cnt; i++) {
        struct cgs_tensor *o = copy_tensor(sc, &sc->out->u.items[i], t, t->ndim);
        dimcpy(o->shape, t->shape, t->ndim);
        dimcpy(o->stride, t->stride, t->ndim);
        o->shape[dim] = sizes[i];
        o->storage_offset = S_add(sc, t->storage_offset, S_mul(sc, start, t->stride[dim]));
        start = S_add(sc, start, sizes[i]);
    }
    return 0;
}

RULE(split)
{
    const struct cgs_tensor *t;
    const struct cgs_arg *sa = Ai(sc, 1);
    sym_t sizes[NDIM_MAX * 4];
    uint32_t dim, cnt;
    int64_t total, each;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "split of a 0-dim tensor");
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    if (sa && sa->kind == CGS_ARG_LIST) {
        TRY(shape_param(sc, sa, sizes, &cnt, d));
        return split_into(sc, t, dim, sizes, cnt);
    }
    if (!int_const(sc, sa, &each) || each <= 0 || !cgs_sym_is_int(t->shape[dim], &total))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "split: sizes not constant");
    cnt = total ? (uint32_t)((total + each - 1) / each) : 1;
    if (cnt > NDIM_MAX * 4)
        return cgs_diag_set(d, CGS_E_LIMIT, "split into too many pieces");
    for (uint32_t i = 0; i < cnt; i++)
        sizes[i] = K(sc, (int64_t)i + 1 < (int64_t)cnt ? each : total - each * (int64_t)i);
    return split_into(sc, t, dim, sizes, cnt);
}

RULE(chunk)
{
    const struct cgs_tensor *t;
    sym_t sizes[NDIM_MAX * 4];
    uint32_t dim, cnt, i;
    int64_t chunks, total, each;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "chunk of a 0-dim tensor");
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    if (!int_const(sc, A(sc, "chunks"), &chunks) || chunks <= 0 ||
        !cgs_sym_is_int(t->shape[dim], &total))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "chunk: sizes not constant");
    each = (total + chunks - 1) / chunks;
    if (each == 0)
        each = 1;
    cnt = (uint32_t)((total + each - 1) / each);
    if (cnt > NDIM_MAX * 4)
        return cgs_diag_set(d, CGS_E_LIMIT, "chunk into too many pieces");
    for (i = 0; i < cnt; i++)
        sizes[i] = K(sc, i + 1 < cnt ? each : total - each * (int64_t)i);
    return split_into(sc, t, dim, sizes, cnt);
}

RULE(flatten)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    int64_t s = 0, e = -1;
    uint32_t a, b, i, nd = 0;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    int_const(sc, A(sc, "start_dim"), &s);
    int_const(sc, A(sc, "end_dim"), &e);
    if (t->ndim == 0) {
        shape[0] = K(sc, 1);
        return view_to(sc, t, shape, 1, true, d);
    }
    if (!wrap_dim(s, t->ndim, &a) || !wrap_dim(e, t->ndim, &b) || a > b)
        return cgs_diag_set(d, CGS_E_INVAL, "flatten: bad dims");
    if (a == b)
        return same_as_first(sc, d);
    for (i = 0; i < a; i++)
        shape[nd++] = t->shape[i];
    shape[nd] = K(sc, 1);
    for (i = a; i <= b; i++)
        shape[nd] = S_mul(sc, shape[nd], t->shape[i]);
    nd++;
    for (i = b + 1; i < t->ndim; i++)
        shape[nd++] = t->shape[i];
    return view_to(sc, t, shape, nd, true, d);
}

RULE(unflatten)
{
    const struct cgs_tensor *t;
    sym_t sizes[NDIM_MAX], shape[NDIM_MAX];
    uint32_t dim, cnt, i, nd = 0;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    TRY(shape_param(sc, A(sc, "sizes"), sizes, &cnt, d));
    if (t->ndim + cnt > NDIM_MAX)
        return cgs_diag_set(d, CGS_E_LIMIT, "too many dimensions");
    TRY(infer_size(sc, t->shape[dim], sizes, cnt, d));
    for (i = 0; i < t->ndim; i++) {
        if (i == dim) {
            dimcpy(shape + nd, sizes, cnt);
            nd += cnt;
        } else {
            shape[nd++] = t->shape[i];
        }
    }
    return view_to(sc, t, shape, nd, false, d);
}

RULE(as_strided)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    sym_t size[NDIM_MAX], stride[NDIM_MAX], off;
    uint32_t nd, ns;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, A(sc, "size"), size, &nd, d));
    TRY(shape_param(sc, A(sc, "stride"), stride, &ns, d));
    if (nd != ns)
        return cgs_diag_set(d, CGS_E_INVAL, "as_strided: %u sizes and %u strides", nd, ns);
    o = out_view(sc, t, nd);
    dimcpy(o->shape, size, nd);
    dimcpy(o->stride, stride, nd);
    if (int_of(sc, A(sc, "storage_offset"), &off) == 0)
        o->storage_offset = off;
    return 0;
}

static int adv_index(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                     const struct cgs_arg *items, uint32_t n_items, struct cgs_diag *d);
static struct cgs_tensor *out_dense(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                                    enum cgs_dtype dt, const char *dev, bool cl);

/* tensor[index]: ints select, slices slice, None adds a dim, ... skips ahead. */
static int index_tensor(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                        const struct cgs_arg *ix, struct cgs_diag *d)
{
    const struct cgs_arg *items = ix;
    uint32_t cnt = 1, i, dim = 0, used = 0;
    struct cgs_tensor cur = *t;
    struct cgs_val *v = NULL;

    if (!ix)
        return cgs_diag_set(d, CGS_E_INVAL, "getitem without an index");
    if (ix->kind == CGS_ARG_LIST)
        items = ix->u.items, cnt = ix->n;
    for (i = 0; i < cnt; i++) {
        const struct cgs_val *iv = node_val(sc, &items[i]);
        if (items[i].kind != CGS_ARG_NONE && items[i].kind != CGS_ARG_ELLIPSIS)
            used++;
        if (iv && iv->kind == CGS_VAL_TENSOR) {
            // advanced indexing: every other item must be a full slice
            uint32_t j;
            for (j = 0; j < cnt; j++) {
                const struct cgs_val *jv = node_val(sc, &items[j]);
                bool full = items[j].kind == CGS_ARG_SLICE && items[j].n == 3 &&
                            is_none(&items[j].u.items[0]) && is_none(&items[j].u.items[1]) &&
                            is_none(&items[j].u.items[2]);
                if (!full && !(jv && jv->kind == CGS_VAL_TENSOR))
                    return cgs_diag_set(d, CGS_E_UNKNOWN, "mixed advanced indexing is not tracked");
            }
            return adv_index(sc, t, items, cnt, d);
        }
    }
    for (i = 0; i < cnt; i++) {
        const struct cgs_arg *it = &items[i];
        struct cgs_val *nv = new_val(sc, CGS_VAL_TENSOR);
        struct cgs_tensor *o;
        sym_t idx;
        switch (it->kind) {
        case CGS_ARG_NONE:
            o = copy_tensor(sc, nv, &cur, cur.ndim + 1);
            dimcpy(o->shape, cur.shape, dim);
            dimcpy(o->stride, cur.stride, dim);
            o->shape[dim] = K(sc, 1);
            o->stride[dim] = dim < cur.ndim ? S_mul(sc, cur.shape[dim], cur.stride[dim]) : K(sc, 1);
            dimcpy(o->shape + dim + 1, cur.shape + dim, (cur.ndim - dim));
            dimcpy(o->stride + dim + 1, cur.stride + dim, (cur.ndim - dim));
            dim++;
            break;
        case CGS_ARG_ELLIPSIS:
            // dims after the ellipsis: those indexed by the remaining items
            {
                uint32_t later = 0, j;
                for (j = i + 1; j < cnt; j++)
                    if (items[j].kind != CGS_ARG_NONE && items[j].kind != CGS_ARG_ELLIPSIS)
                        later++;
                dim = cur.ndim - later;
            }
            continue;
        case CGS_ARG_SLICE: {
            sym_t s = NULL, e = NULL;
            int64_t step = 1;
            if (dim >= cur.ndim)
                return cgs_diag_set(d, CGS_E_INVAL, "too many indices");
            if (it->n >= 3 && int_of(sc, &it->u.items[0], &s) < 0)
                return cgs_diag_set(d, CGS_E_UNKNOWN, "slice bound not known");
            if (it->n >= 3 && int_of(sc, &it->u.items[1], &e) < 0)
                return cgs_diag_set(d, CGS_E_UNKNOWN, "slice bound not known");
            if (it->n >= 3 && !is_none(&it->u.items[2]) && !int_const(sc, &it->u.items[2], &step))
                return cgs_diag_set(d, CGS_E_UNKNOWN, "slice step not constant");
            o = copy_tensor(sc, nv, &cur, cur.ndim);
            dimcpy(o->shape, cur.shape, cur.ndim);
            dimcpy(o->stride, cur.stride, cur.ndim);
            TRY(slice_into(sc, o, &cur, dim, s, e, step, d));
            dim++;
            break;
        }
        default:
            if (int_of(sc, it, &idx) != 0)
                return cgs_diag_set(d, CGS_E_UNKNOWN, "advanced indexing is not tracked");
            if (dim >= cur.ndim)
                return cgs_diag_set(d, CGS_E_INVAL, "too many indices");
            TRY(select_into(sc, nv, &cur, dim, idx, d));
            o = &nv->u.t;
            break;
        }
        cur = *o;
        v = nv;
    }
    if (!v)
        return same_as_first(sc, d);
    sc->out = v;
    return 0;
}

/*
 * x[[i, j, ...]]: a Python list index is advanced indexing with a 1-D int64 tensor on dim 0
 * (a list of bools, a mask). The result is fresh: [len] + x.shape[1:], laid out contiguously
 * when x is contiguous (other layouts are not tracked).
 */
static int list_index(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                      const struct cgs_arg *b, struct cgs_diag *d)
{
    sym_t shape[NDIM_MAX];
    int64_t sz[NDIM_MAX], st[NDIM_MAX];
    uint32_t k;

    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "getitem: a list index on a 0-dim tensor");
    for (k = 0; k < b->n; k++)
        if (b->u.items[k].kind != CGS_ARG_INT)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "getitem: a list index of non-integers");
    hints(sc, t, sz, st);
    if (!h_contiguous(t->ndim, sz, st))
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "getitem: list index of a non-contiguous tensor is not tracked");
    dimcpy(shape, t->shape, t->ndim);
    shape[0] = K(sc, b->n);
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

static int triton_clone_index(const struct cgs_node *n, const char *key);

RULE(getitem)
{
    const struct cgs_arg *a = Ai(sc, 0), *b = Ai(sc, 1);
    const struct cgs_val *v = node_val(sc, a);
    int64_t i;

    (void)n;
    if (!v)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "input is not known");
    if (v->kind == CGS_VAL_LIST && b && b->kind == CGS_ARG_STR) {
        // a dict a HOP returned (triton_kernel_wrapper_functional), held as a list
        int k = cgs_op_info(a->u.node->op_id)->infer == cgs_shape_rule_hop_triton_functional
                    ? triton_clone_index(a->u.node, b->u.s)
                    : -1;
        if (k < 0 || (uint32_t)k >= v->n)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "getitem: key '%s' of a dict is not tracked",
                                b->u.s);
        sc->out = &v->u.items[k];
        return 0;
    }
    if (v->kind == CGS_VAL_LIST) {
        if (!int_const(sc, b, &i))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "getitem: index not constant");
        if (i < 0)
            i += v->n;
        if (i < 0 || i >= (int64_t)v->n)
            return cgs_diag_set(d, CGS_E_INVAL, "getitem: index %lld out of range", (long long)i);
        sc->out = &v->u.items[i];
        if (sc->out->kind == CGS_VAL_TENSOR && !tensor_known(&sc->out->u.t))
            return -CGS_E_UNKNOWN;
        return 0;
    }
    if (v->kind == CGS_VAL_TENSOR) {
        const struct cgs_tensor *t = &v->u.t;
        if (!tensor_known(t))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "input is not known");
        if (b && b->kind == CGS_ARG_LIST && b->pylist)
            return list_index(sc, t, b, d);
        if (b && b->kind == CGS_ARG_LIST)
            for (uint32_t k = 0; k < b->n; k++)
                if (b->u.items[k].kind == CGS_ARG_LIST && b->u.items[k].pylist)
                    return cgs_diag_set(d, CGS_E_UNKNOWN,
                                        "getitem: a list inside a tuple index is not tracked");
        return index_tensor(sc, t, b, d);
    }
    return cgs_diag_set(d, CGS_E_UNKNOWN, "getitem on a value that is not a list or tensor");
}

/* ---- sizes and scalars ------------------------------------------------------------------ */

RULE(size)
{
    const struct cgs_tensor *t;
    const struct cgs_arg *da = A(sc, "dim");
    uint32_t i, dim;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (!is_none(da)) {
        TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
        sc->out = new_val(sc, CGS_VAL_INT);
        set_symint(sc, sc->out, t->shape[dim]);
        return 0;
    }
    sc->out = new_list(sc, t->ndim);
    for (i = 0; i < t->ndim; i++)
        set_symint(sc, &sc->out->u.items[i], t->shape[i]);
    return 0;
}

RULE(sym_size) { return cgs_shape_rule_size(n, sc, d); }

RULE(sym_stride)
{
    const struct cgs_tensor *t;
    uint32_t dim;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    sc->out = new_val(sc, CGS_VAL_INT);
    set_symint(sc, sc->out, t->stride[dim]);
    return 0;
}

RULE(dim)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    sc->out = new_val(sc, CGS_VAL_INT);
    sc->out->u.i = t->ndim;
    return 0;
}

RULE(numel)
{
    const struct cgs_tensor *t;
    sym_t m;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    m = numel_of(sc, t->ndim, t->shape);
    if (!m)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "numel overflows");
    sc->out = new_val(sc, CGS_VAL_INT);
    set_symint(sc, sc->out, m);
    return 0;
}

RULE(torch_size)
{
    sym_t s[NDIM_MAX];
    uint32_t cnt, i;

    (void)n;
    TRY(shape_param(sc, Ai(sc, 0), s, &cnt, d));
    sc->out = new_list(sc, cnt);
    for (i = 0; i < cnt; i++)
        set_symint(sc, &sc->out->u.items[i], s[i]);
    return 0;
}

RULE(getattr)
{
    const char *name = str_of(A(sc, "name"));
    const struct cgs_tensor *t;

    (void)n;
    if (!name)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "getattr with a name that is not a string");
    TRY(need_tensor(sc, "obj", &t, d));
    if (!strcmp(name, "shape")) {
        uint32_t i;
        sc->out = new_list(sc, t->ndim);
        for (i = 0; i < t->ndim; i++)
            set_symint(sc, &sc->out->u.items[i], t->shape[i]);
        return 0;
    }
    if (!strcmp(name, "ndim")) {
        sc->out = new_val(sc, CGS_VAL_INT);
        sc->out->u.i = t->ndim;
        return 0;
    }
    if (!strcmp(name, "T") || !strcmp(name, "H") || !strcmp(name, "mT") || !strcmp(name, "mH")) {
        // views: .T/.H reverse the dims, .mT/.mH swap the last two (H and mH conjugate, a bit
        // that does not change the layout)
        bool matrix = name[0] == 'm';
        struct cgs_tensor *o;
        uint32_t i;
        if (matrix && t->ndim < 2)
            return cgs_diag_set(d, CGS_E_INVAL, "%s of a tensor of rank %u", name, t->ndim);
        o = out_view(sc, t, t->ndim);
        for (i = 0; i < t->ndim; i++) {
            uint32_t from = i;
            if (!matrix)
                from = t->ndim - 1 - i;
            else if (i >= t->ndim - 2)
                from = i == t->ndim - 1 ? t->ndim - 2 : t->ndim - 1;
            o->shape[i] = t->shape[from];
            o->stride[i] = t->stride[from];
        }
        return 0;
    }
    return cgs_diag_set(d, CGS_E_UNKNOWN, "attribute '%s' is not tracked", name);
}

/* A fresh unbacked size symbol (u0, u1, ...): a data-dependent value, as FakeTensor makes one. */

/* item / _local_scalar_dense: an unbacked SymInt (SymFloat, SymBool) for the tensor's value. */
RULE(item)
{
    const struct cgs_tensor *t;
    struct cgs_val *v;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    v = new_val(sc, CGS_VAL_SYMINT);
    switch (cgs_dtypes[t->dtype].kind) {
    case 'F':
    case 'C':
        v->kind = CGS_VAL_SYMFLOAT;
        v->u.s.text = "unbacked float";
        break;
    case 'B':
        v->kind = CGS_VAL_SYMBOOL;
        v->u.s.text = "unbacked bool";
        break;
    case 'I':
    case 'U':
        set_symint(sc, v, unbacked(sc));
        break;
    default:
        return cgs_diag_set(d, CGS_E_UNKNOWN, "item of a tensor of unknown dtype");
    }
    sc->out = v;
    return 0;
}

/* nonzero: int64 [u, ndim] with strides (1, u) (FakeTensor's nonzero); 0 rows when empty. */
RULE(nonzero)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    sym_t nnz, numel = K(sc, 1);
    int64_t c;
    uint32_t i;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    for (i = 0; i < t->ndim; i++)
        numel = S_mul(sc, numel, t->shape[i]);
    nnz = cgs_sym_is_int(numel, &c) && c == 0 ? K(sc, 0) : unbacked(sc);
    o = new_tensor_val(sc, &sc->out, 2, CGS_DTYPE_INT64, t->device);
    o->shape[0] = nnz, o->shape[1] = K(sc, t->ndim);
    o->stride[0] = K(sc, 1), o->stride[1] = nnz;
    return 0;
}

/* masked_select: a 1-D tensor of unbacked length, the broadcast dtype of self. */
RULE(masked_select)
{
    const struct cgs_tensor *t;
    sym_t nnz;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    nnz = unbacked(sc);
    out_dense(sc, 1, &nnz, t->dtype, t->device, false);
    return 0;
}

RULE(novalue)
{
    (void)n, (void)d;
    sc->out = new_val(sc, CGS_VAL_NONE);
    return 0;
}

RULE(scalar_float)
{
    UNUSED_RULE_ARGS;
    sc->out = NULL;
    return cgs_diag_set(d, CGS_E_UNKNOWN, "float scalars are not tracked");
}

static int sym_fold(struct cgs_shape_ctx *sc, int which, struct cgs_diag *d)
{
    sym_t a, b, r;

    if (int_of(sc, Ai(sc, 0), &a) || int_of(sc, Ai(sc, 1), &b))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "operands are not known integers");
    r = which ? cgs_sym_min(sc->sx, a, b) : cgs_sym_max(sc->sx, a, b);
    if (!r)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "overflow");
    sc->out = new_val(sc, CGS_VAL_INT);
    set_symint(sc, sc->out, r);
    return 0;
}

RULE(sym_max)
{
    (void)n;
    return sym_fold(sc, 0, d);
}

RULE(sym_min)
{
    (void)n;
    return sym_fold(sc, 1, d);
}

RULE(sym_sum)
{
    sym_t s[NDIM_MAX], r;
    uint32_t cnt, i;

    (void)n;
    TRY(shape_param(sc, Ai(sc, 0), s, &cnt, d));
    r = K(sc, 0);
    for (i = 0; i < cnt; i++)
        r = S_add(sc, r, s[i]);
    if (!r)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "overflow");
    sc->out = new_val(sc, CGS_VAL_INT);
    set_symint(sc, sc->out, r);
    return 0;
}

/* ---- neural-network operators ----------------------------------------------------------- */

/* A fresh dense tensor as result: contiguous, or channels-last when cl. */
static struct cgs_tensor *out_dense(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                                    enum cgs_dtype dt, const char *dev, bool cl)
{
    struct cgs_tensor *o = out_tensor(sc, nd, dt, dev);

    dimcpy(o->shape, shape, nd);
    if (cl)
        channels_last_strides(sc, nd, o->shape, o->stride);
    else
        contiguous_strides(sc, nd, o->shape, o->stride);
    return o;
}

static struct cgs_tensor *fill_dense(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t nd,
                                     const sym_t *shape, enum cgs_dtype dt, const char *dev,
                                     bool cl)
{
    struct cgs_tensor *o = fill_tensor(sc, v, nd, dt, dev);

    dimcpy(o->shape, shape, nd);
    if (cl)
        channels_last_strides(sc, nd, o->shape, o->stride);
    else
        contiguous_strides(sc, nd, o->shape, o->stride);
    return o;
}

/* stride/padding/dilation style parameter expanded to k entries. */
static int spatial_param(struct cgs_shape_ctx *sc, const char *name, uint32_t k, int64_t def,
                         sym_t *out, struct cgs_diag *d)
{
    const struct cgs_arg *a = A(sc, name);
    sym_t got[NDIM_MAX];
    uint32_t cnt = 0, i;
    int rc = ints_of(sc, a, got, &cnt);

    if (rc == 0 && cnt > 0 && cnt <= k)
        dimcpy(out, got, cnt);
    if (rc == 1 || (rc == 0 && cnt == 0)) {
        for (i = 0; i < k; i++)
            out[i] = K(sc, def);
        return 0;
    }
    if (rc)
        return cgs_diag_set(d, rc == -CGS_E_UNKNOWN ? CGS_E_UNKNOWN : CGS_E_INVAL,
                            "argument '%s' is not a list of ints", name);
    if (cnt == 1)
        for (i = 1; i < k; i++)
            out[i] = out[0];
    else if (cnt != k)
        return cgs_diag_set(d, CGS_E_INVAL, "argument '%s' has %u entries, expected %u", name, cnt,
                            k);
    return 0;
}

/* Convolution memory format as FakeTensor's conv decides it (cuDNN's suggestion). */
static bool conv_cl(struct cgs_shape_ctx *sc, const struct cgs_tensor *in,
                    const struct cgs_tensor *w)
{
    if (w->ndim != 4 && w->ndim != 5)
        return false;
    if (in->dtype == CGS_DTYPE_FLOAT64 || w->dtype == CGS_DTYPE_FLOAT64)
        return false;
    return suggest_cl(sc, in) || suggest_cl(sc, w);
}

static int conv_common(struct cgs_shape_ctx *sc, bool transposed, struct cgs_diag *d)
{
    const struct cgs_tensor *in, *w;
    sym_t stride[8], pad[8], dil[8], opad[8], shape[NDIM_MAX];
    uint32_t k, i, batch;
    int64_t groups = 1;
    const char *padstr = str_of(A(sc, "padding"));
    const struct cgs_arg *tr = A(sc, "transposed");

    TRY(need_tensor(sc, "input", &in, d));
    TRY(need_tensor(sc, "weight", &w, d));
    if (tr)
        transposed = bool_of(tr, false);
    if (w->ndim < 3 || w->ndim > 5)
        return cgs_diag_set(d, CGS_E_INVAL, "convolution weight of rank %u", w->ndim);
    k = w->ndim - 2;
    if (in->ndim != w->ndim && in->ndim != w->ndim - 1)
        return cgs_diag_set(d, CGS_E_INVAL, "convolution input of rank %u for weight of rank %u",
                            in->ndim, w->ndim);
    batch = in->ndim == w->ndim;
    TRY(spatial_param(sc, "stride", k, 1, stride, d));
    if (padstr) {
        for (i = 0; i < k; i++)
            pad[i] = K(sc, 0);
    } else {
        TRY(spatial_param(sc, "padding", k, 0, pad, d));
    }
    TRY(spatial_param(sc, "dilation", k, 1, dil, d));
    TRY(spatial_param(sc, "output_padding", k, 0, opad, d));
    int_const(sc, A(sc, "groups"), &groups);
    if (batch)
        shape[0] = in->shape[0];
    shape[batch] = transposed ? S_mul(sc, w->shape[1], K(sc, groups)) : w->shape[0];
    for (i = 0; i < k; i++) {
        sym_t x = in->shape[batch + 1 + i], kk = w->shape[2 + i];
        sym_t span = S_mul(sc, dil[i], S_sub(sc, kk, K(sc, 1)));
        if (padstr && !strcmp(padstr, "same")) {
            shape[batch + 1 + i] = x;
        } else if (transposed) {
            // (x - 1) * s - 2p + d(k - 1) + output_padding + 1
            sym_t r = S_mul(sc, S_sub(sc, x, K(sc, 1)), stride[i]);
            r = S_sub(sc, r, S_mul(sc, K(sc, 2), pad[i]));
            r = S_add(sc, S_add(sc, r, span), S_add(sc, opad[i], K(sc, 1)));
            shape[batch + 1 + i] = r;
        } else {
            // (x + 2p - d(k - 1) - 1) // s + 1
            sym_t r = S_add(sc, x, S_mul(sc, K(sc, 2), pad[i]));
            r = S_sub(sc, S_sub(sc, r, span), K(sc, 1));
            shape[batch + 1 + i] = S_add(sc, S_div(sc, r, stride[i]), K(sc, 1));
        }
        if (!shape[batch + 1 + i] || hv(sc, shape[batch + 1 + i]) < 0)
            return cgs_diag_set(d, CGS_E_INVAL, "convolution output size is negative");
    }
    out_dense(sc, in->ndim, shape, in->dtype, in->device, batch && conv_cl(sc, in, w));
    return 0;
}

RULE(conv)
{
    (void)n;
    return conv_common(sc, false, d);
}

RULE(conv_t)
{
    (void)n;
    return conv_common(sc, true, d);
}

RULE(conv_backward)
{
    const struct cgs_tensor *go, *in, *w;
    const struct cgs_arg *mask = A(sc, "output_mask");
    sym_t bias[NDIM_MAX];
    uint32_t nb = 0, i;
    bool cl;

    (void)n;
    TRY(need_tensor(sc, "grad_output", &go, d));
    TRY(need_tensor(sc, "input", &in, d));
    TRY(need_tensor(sc, "weight", &w, d));
    if (ints_of(sc, A(sc, "bias_sizes"), bias, &nb) < 0)
        nb = 0;
    cl = in->ndim == w->ndim && conv_cl(sc, in, w);
    sc->out = new_list(sc, 3);
    for (i = 0; i < 3; i++) {
        struct cgs_val *v = &sc->out->u.items[i];
        bool on =
            !mask || mask->kind != CGS_ARG_LIST || i >= mask->n || bool_of(&mask->u.items[i], true);
        if (!on) {
            v->kind = CGS_VAL_NONE;
            continue;
        }
        if (i == 0)
            fill_dense(sc, v, in->ndim, in->shape, go->dtype, go->device, cl);
        else if (i == 1)
            fill_dense(sc, v, w->ndim, w->shape, go->dtype, go->device, cl);
        else
            fill_dense(sc, v, nb, bias, go->dtype, go->device, false);
    }
    return 0;
}

RULE(batch_norm)
{
    const struct cgs_tensor *in;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    out_dense(sc, in->ndim, in->shape, in->dtype, in->device, suggest_cl(sc, in));
    return 0;
}

/* native_batch_norm and its kin: (output, save_mean, save_rstd[, ...]); `cnt` outputs
 * (5 for the _functional forms, 4 with the cudnn reserve buffer of _batch_norm_with_update
 * and cudnn_batch_norm, empty unless cuDNN asks for one). */
static int batch_norm_outputs(struct cgs_shape_ctx *sc, uint32_t cnt, bool reserve,
                              struct cgs_diag *d)
{
    const struct cgs_tensor *in;
    uint32_t i;
    sym_t c[1], zero = K(sc, 0);

    TRY(need_tensor(sc, "input", &in, d));
    if (in->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "batch norm of a tensor of rank %u", in->ndim);
    c[0] = in->shape[1];
    sc->out = new_list(sc, cnt);
    fill_dense(sc, &sc->out->u.items[0], in->ndim, in->shape, in->dtype, in->device,
               suggest_cl(sc, in));
    // cudnn_batch_norm outside training saves no statistics (empty tensors)
    if (reserve && find_param(sc, "training") >= 0 && !bool_of(A(sc, "training"), true))
        c[0] = zero;
    for (i = 1; i < cnt; i++)
        fill_dense(sc, &sc->out->u.items[i], 1, c, CGS_DTYPE_FLOAT32, in->device, false);
    if (reserve)
        fill_dense(sc, &sc->out->u.items[cnt - 1], 1, &zero, CGS_DTYPE_UINT8, in->device, false);
    return 0;
}

RULE(native_batch_norm) { (void)n; return batch_norm_outputs(sc, 3, false, d); }
RULE(native_batch_norm_functional) { (void)n; return batch_norm_outputs(sc, 5, false, d); }
RULE(batch_norm_reserve) { (void)n; return batch_norm_outputs(sc, 4, true, d); }

RULE(layer_norm)
{
    const struct cgs_tensor *in;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    out_dense(sc, in->ndim, in->shape, in->dtype, in->device, false);
    {
        // the decomposition normalizes input.contiguous(), which is the input itself when
        // it is contiguous already (strides of size-1 dims kept as they are)
        int64_t sz[NDIM_MAX], st[NDIM_MAX];
        hints(sc, in, sz, st);
        if (in->stride && h_contiguous(in->ndim, sz, st))
            preserve_strides(sc, in, sc->out->u.t.stride);
    }
    return 0;
}

RULE(layer_norm_like_input) { return cgs_shape_rule_layer_norm(n, sc, d); }

RULE(native_layer_norm)
{
    const struct cgs_tensor *in;
    sym_t ns[NDIM_MAX], stat[NDIM_MAX];
    uint32_t k, i, axis;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    TRY(shape_param(sc, A(sc, "normalized_shape"), ns, &k, d));
    if (k > in->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "normalized_shape longer than the input's rank");
    axis = in->ndim - k;
    for (i = 0; i < in->ndim; i++)
        stat[i] = i < axis ? in->shape[i] : K(sc, 1);
    sc->out = new_list(sc, 3);
    fill_dense(sc, &sc->out->u.items[0], in->ndim, in->shape, in->dtype, in->device, false);
    for (i = 1; i < 3; i++)
        fill_dense(sc, &sc->out->u.items[i], in->ndim, stat,
                   is_float_like(in->dtype) && cgs_dtypes[in->dtype].itemsize < 4
                       ? CGS_DTYPE_FLOAT32
                       : in->dtype,
                   in->device, false);
    return 0;
}

RULE(layer_norm_backward)
{
    const struct cgs_tensor *in, *w = NULL, *b = NULL;
    const struct cgs_arg *mask = A(sc, "output_mask");
    uint32_t i;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    arg_tensor(sc, A(sc, "weight"), &w);
    arg_tensor(sc, A(sc, "bias"), &b);
    sc->out = new_list(sc, 3);
    for (i = 0; i < 3; i++) {
        const struct cgs_tensor *like = i == 0 ? in : i == 1 ? w : b;
        bool on =
            !mask || mask->kind != CGS_ARG_LIST || i >= mask->n || bool_of(&mask->u.items[i], true);
        if (!on || !like)
            sc->out->u.items[i].kind = CGS_VAL_NONE;
        else
            fill_dense(sc, &sc->out->u.items[i], like->ndim, like->shape, like->dtype, like->device,
                       false);
    }
    return 0;
}

RULE(linear)
{
    const struct cgs_tensor *in, *w;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    TRY(need_tensor(sc, "weight", &w, d));
    if (in->ndim < 1 || w->ndim < 1 || w->ndim > 2)
        return cgs_diag_set(d, CGS_E_INVAL, "linear of ranks %u and %u", in->ndim, w->ndim);
    if (hv(sc, in->shape[in->ndim - 1]) != hv(sc, w->shape[w->ndim - 1]))
        return cgs_diag_set(d, CGS_E_INVAL, "linear: inner sizes differ");
    dimcpy(shape, in->shape, in->ndim);
    if (w->ndim == 2) {
        shape[in->ndim - 1] = w->shape[0];
        out_dense(sc, in->ndim, shape, in->dtype, in->device, false);
    } else {
        out_dense(sc, in->ndim - 1, shape, in->dtype, in->device, false);
    }
    return 0;
}

static int mm_of(struct cgs_shape_ctx *sc, const struct cgs_tensor *a, const struct cgs_tensor *b,
                 struct cgs_diag *d)
{
    sym_t shape[2];

    if (a->ndim != 2 || b->ndim != 2)
        return cgs_diag_set(d, CGS_E_INVAL, "mm of ranks %u and %u", a->ndim, b->ndim);
    if (hv(sc, a->shape[1]) != hv(sc, b->shape[0]))
        return cgs_diag_set(d, CGS_E_INVAL, "mm: inner sizes %lld and %lld differ",
                            (long long)hv(sc, a->shape[1]), (long long)hv(sc, b->shape[0]));
    shape[0] = a->shape[0], shape[1] = b->shape[1];
    out_dense(sc, 2, shape, a->dtype, a->device, false);
    return 0;
}

RULE(mm)
{
    const struct cgs_tensor *a, *b;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &a) == 0 ? 0 : need_tensor(sc, "self", &a, d));
    TRY(need_tensor(sc, "mat2", &b, d));
    return mm_of(sc, a, b, d);
}

RULE(addmm)
{
    const struct cgs_tensor *a, *b;

    (void)n;
    TRY(need_tensor(sc, "mat1", &a, d));
    TRY(need_tensor(sc, "mat2", &b, d));
    return mm_of(sc, a, b, d);
}

static int bmm_of(struct cgs_shape_ctx *sc, const struct cgs_tensor *a, const struct cgs_tensor *b,
                  struct cgs_diag *d)
{
    sym_t shape[3];

    if (a->ndim != 3 || b->ndim != 3)
        return cgs_diag_set(d, CGS_E_INVAL, "bmm of ranks %u and %u", a->ndim, b->ndim);
    shape[0] = a->shape[0], shape[1] = a->shape[1], shape[2] = b->shape[2];
    out_dense(sc, 3, shape, a->dtype, a->device, false);
    return 0;
}

RULE(bmm)
{
    const struct cgs_tensor *a, *b;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &a) == 0 ? 0 : need_tensor(sc, "self", &a, d));
    TRY(need_tensor(sc, "mat2", &b, d));
    return bmm_of(sc, a, b, d);
}

RULE(baddbmm)
{
    const struct cgs_tensor *a, *b;

    (void)n;
    TRY(need_tensor(sc, "batch1", &a, d));
    TRY(need_tensor(sc, "batch2", &b, d));
    return bmm_of(sc, a, b, d);
}

RULE(matmul)
{
    struct operand o[2];
    uint32_t cnt, i, nd, ba, bb;
    sym_t shape[NDIM_MAX];
    const struct cgs_tensor *a, *b;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "matmul needs two tensors");
    a = o[0].t, b = o[1].t;
    if (a->ndim == 0 || b->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "matmul of a 0-dim tensor");
    if (a->ndim == 1 && b->ndim == 1) {
        out_dense(sc, 0, shape, a->dtype, a->device, false);
        return 0;
    }
    // batch dims broadcast; then [.., n, m] x [.., m, p]
    ba = a->ndim > 2 ? a->ndim - 2 : 0, bb = b->ndim > 2 ? b->ndim - 2 : 0;
    nd = ba > bb ? ba : bb;
    for (i = 0; i < nd; i++) {
        sym_t x = i + ba >= nd ? a->shape[i + ba - nd] : NULL;
        sym_t y = i + bb >= nd ? b->shape[i + bb - nd] : NULL;
        shape[i] = !x ? y : !y ? x : hv(sc, x) == 1 ? y : x;
    }
    if (a->ndim >= 2)
        shape[nd++] = a->shape[a->ndim - 2];
    if (b->ndim >= 2)
        shape[nd++] = b->shape[b->ndim - 1];
    out_dense(sc, nd, shape, result_type(o, 2), a->device, false);
    return 0;
}

/* Reduced shape over dims (none = all). */
static int reduce_shape(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                        const struct cgs_arg *da, bool keep, sym_t *shape, uint32_t *nd,
                        struct cgs_diag *d)
{
    sym_t dims[NDIM_MAX];
    bool red[NDIM_MAX] = {false};
    uint32_t cnt = 0, i;
    // torch.var(x, True): the bool is `unbiased` (another overload), not a dim
    int rc = da && da->kind == CGS_ARG_BOOL ? 1 : ints_of(sc, da, dims, &cnt);

    if (rc < 0)
        return cgs_diag_set(d, CGS_E_INVAL, "reduction dims are not ints");
    if (rc == 1 || cnt == 0) {
        for (i = 0; i < t->ndim; i++)
            red[i] = true;
    } else {
        for (i = 0; i < cnt; i++) {
            int64_t v;
            uint32_t w;
            if (!cgs_sym_is_int(dims[i], &v) || !wrap_dim(v, t->ndim, &w))
                return cgs_diag_set(d, CGS_E_INVAL, "reduction dim out of range");
            if (t->ndim)
                red[w] = true;
        }
    }
    *nd = 0;
    for (i = 0; i < t->ndim; i++) {
        if (!red[i])
            shape[(*nd)++] = t->shape[i];
        else if (keep)
            shape[(*nd)++] = K(sc, 1);
    }
    return 0;
}

static int reduce_with(const struct cgs_node *n, struct cgs_shape_ctx *sc, int mode,
                       struct cgs_diag *d)
{
    (void)n;
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(reduce_shape(sc, t, (Ai(sc, 1) && Ai(sc, 1)->kind == CGS_ARG_DTYPE) ? NULL : A(sc, "dim"),
                     bool_of(A(sc, "keepdim"), false), shape, &nd, d));
    if (mode == 1)
        dt = CGS_DTYPE_BOOL;
    else if (mode == 2)
        dt = CGS_DTYPE_INT64;
    else if (dt == CGS_DTYPE_UNKNOWN) {
        dt = t->dtype;
        // sum and prod accumulate integers (and bools) in int64
        if (mode == 3 && dt_cat(dt) <= 1)
            dt = CGS_DTYPE_INT64;
    }
    out_dense(sc, nd, shape, dt, t->device, false);
    return 0;
}

RULE(reduce) { return reduce_with(n, sc, 0, d); }

RULE(reduce_bool) { return reduce_with(n, sc, 1, d); }

RULE(reduce_index) { return reduce_with(n, sc, 2, d); }

RULE(reduce_sum) { return reduce_with(n, sc, 3, d); }

RULE(var_mean)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd, i;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(reduce_shape(sc, t, A(sc, "dim"), bool_of(A(sc, "keepdim"), false), shape, &nd, d));
    sc->out = new_list(sc, 2);
    for (i = 0; i < 2; i++)
        fill_dense(sc, &sc->out->u.items[i], nd, shape, t->dtype, t->device, false);
    return 0;
}

RULE(cumsum)
{
    const struct cgs_tensor *t;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    if (dt == CGS_DTYPE_UNKNOWN)
        dt = dt_cat(t->dtype) <= 1 ? CGS_DTYPE_INT64 : t->dtype;
    out_dense(sc, t->ndim, t->shape, dt, t->device, false);
    return 0;
}

RULE(diff)
{
    const struct cgs_tensor *t, *pre = NULL, *app = NULL;
    sym_t shape[NDIM_MAX];
    uint32_t dim;
    int64_t k = 1;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "diff of a 0-dim tensor");
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    int_const(sc, A(sc, "n"), &k);
    if (arg_tensor(sc, A(sc, "prepend"), &pre) < 0 || arg_tensor(sc, A(sc, "append"), &app) < 0)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "prepend/append not known");
    dimcpy(shape, t->shape, t->ndim);
    if (pre)
        shape[dim] = S_add(sc, shape[dim], pre->ndim > dim ? pre->shape[dim] : K(sc, 1));
    if (app)
        shape[dim] = S_add(sc, shape[dim], app->ndim > dim ? app->shape[dim] : K(sc, 1));
    shape[dim] = S_sub(sc, shape[dim], K(sc, k));
    out_dense(sc, t->ndim, shape, t->dtype == CGS_DTYPE_BOOL ? CGS_DTYPE_BOOL : t->dtype, t->device,
              false);
    return 0;
}

static int embedding_of(struct cgs_shape_ctx *sc, const struct cgs_tensor *w,
                        const struct cgs_tensor *ix, struct cgs_diag *d)
{
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    if (w->ndim < 1 || ix->ndim + w->ndim - 1 > NDIM_MAX)
        return cgs_diag_set(d, CGS_E_INVAL, "embedding weight of rank %u", w->ndim);
    dimcpy(shape, ix->shape, ix->ndim);
    dimcpy(shape + ix->ndim, w->shape + 1, (w->ndim - 1));
    nd = ix->ndim + w->ndim - 1;
    out_dense(sc, nd, shape, w->dtype, w->device, false);
    return 0;
}

RULE(embedding)
{
    const struct cgs_tensor *w, *ix;

    (void)n;
    TRY(need_tensor(sc, "weight", &w, d));
    TRY(need_tensor(sc, "indices", &ix, d));
    return embedding_of(sc, w, ix, d);
}

RULE(embedding_f)
{
    const struct cgs_tensor *w, *ix;

    (void)n;
    TRY(need_tensor(sc, "weight", &w, d));
    TRY(need_tensor(sc, "input", &ix, d));
    return embedding_of(sc, w, ix, d);
}

/* The tensors of a list argument (known ones only); 0 or -CGS_E_*. */
static int tensor_list(struct cgs_shape_ctx *sc, const struct cgs_arg *a, struct operand *o,
                       uint32_t *cnt, uint32_t max, struct cgs_diag *d)
{
    uint32_t i;

    *cnt = 0;
    if (!a || a->kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_INVAL, "expected a list of tensors");
    if (a->n > max)
        return cgs_diag_set(d, CGS_E_LIMIT, "too many tensors (%u)", a->n);
    for (i = 0; i < a->n; i++) {
        int rc = operand_of(sc, &a->u.items[i], &o[*cnt]);
        if (rc == -CGS_E_UNKNOWN)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "input %u is not known", i);
        if (rc || !o[*cnt].t)
            return cgs_diag_set(d, CGS_E_INVAL, "item %u is not a tensor", i);
        (*cnt)++;
    }
    return 0;
}

/*
 * einsum(equation, operands): the output's letters (after "->", or the letters used once,
 * in alphabetical order, after the broadcast "..." dims) with their sizes; the dtype of the
 * operands; contiguous, as the bmm at the end of torch's einsum leaves it (size-1 dims
 * aside). Operands are a list (aten.einsum) or the variadic tail (torch.functional.einsum).
 */
RULE(einsum)
{
    struct operand o[16];
    const struct cgs_arg *eq = Ai(sc, 0), *ops = Ai(sc, 1);
    sym_t size[128] = {0}, ell[NDIM_MAX], shape[NDIM_MAX];
    int count[128] = {0};
    uint32_t cnt, i, nd = 0, n_ell = 0;
    const char *e, *arrow;

    (void)n;
    if (!eq || eq->kind != CGS_ARG_STR)
        return cgs_diag_set(d, CGS_E_INVAL, "einsum: the equation is not a string");
    e = eq->u.s;
    TRY(tensor_list(sc, ops, o, &cnt, 16, d));
    arrow = strstr(e, "->");
    for (i = 0; i < NDIM_MAX; i++)
        ell[i] = NULL;
    for (i = 0; i < cnt; i++) {
        const struct cgs_tensor *t = o[i].t;
        uint32_t k = 0, j, named = 0, ne;
        const char *p, *end;
        bool has_ell = false;
        // the i-th term: after the i-th comma, before the next one and the arrow
        for (p = e, j = 0; j < i; p++) {
            if (!*p || (arrow && p >= arrow))
                return cgs_diag_set(d, CGS_E_INVAL, "einsum: fewer terms than operands");
            j += *p == ',';
        }
        for (end = p; *end && *end != ',' && (!arrow || end < arrow); end++) {
            named += isalpha((unsigned char)*end) != 0;
            has_ell = has_ell || *end == '.';
        }
        if (named > t->ndim || (!has_ell && named != t->ndim))
            return cgs_diag_set(d, CGS_E_INVAL, "einsum: term %u has %u letters for rank %u", i,
                                named, t->ndim);
        ne = has_ell ? t->ndim - named : 0;
        if (ne > n_ell)
            n_ell = ne;
        for (; p < end; p++) {
            unsigned c = (unsigned char)*p;
            if (c == '.') {
                // the ellipsis dims broadcast right-aligned: ell[NDIM_MAX - ne ..]
                for (uint32_t q = 0; q < ne; q++) {
                    uint32_t slot = NDIM_MAX - ne + q;
                    if (!ell[slot] || is_const(ell[slot], 1))
                        ell[slot] = t->shape[k + q];
                }
                k += ne;
                p += (p + 2 < end && p[1] == '.' && p[2] == '.') ? 2 : 0;
                continue;
            }
            if (!isalpha(c))
                continue;
            if (!size[c] || is_const(size[c], 1))
                size[c] = t->shape[k];
            count[c]++;
            k++;
        }
    }
    if (n_ell) {
        for (i = 0; i < n_ell; i++)
            shape[nd++] = ell[NDIM_MAX - n_ell + i];
    }
    if (arrow) {
        for (const char *p = arrow + 2; *p; p++) {
            unsigned c = (unsigned char)*p;
            if (!isalpha(c))
                continue;
            if (!size[c])
                return cgs_diag_set(d, CGS_E_INVAL, "einsum: output letter '%c' not in inputs",
                                    c);
            if (nd == NDIM_MAX)
                return cgs_diag_set(d, CGS_E_LIMIT, "einsum: too many output dims");
            shape[nd++] = size[c];
        }
    } else {
        for (unsigned c = 'A'; c <= 'z'; c++)
            if (count[c] == 1 && nd < NDIM_MAX)
                shape[nd++] = size[c];
    }
    out_dense(sc, nd, shape, result_type(o, cnt), device_of(o, cnt), false);
    if (cnt == 1 && arrow && o[0].t->ndim == nd) {
        // one operand whose letters all come out once: a permuted view of it
        const struct cgs_tensor *t = o[0].t;
        const char *p = e;
        uint32_t k = 0, out_k, pos[128], named = 0, ell_in = UINT32_MAX, ne;
        bool perm = true;
        for (i = 0; i < 128; i++)
            pos[i] = UINT32_MAX;
        for (p = e; p < arrow; p++)
            named += isalpha((unsigned char)*p) != 0;
        ne = t->ndim - named;
        for (p = e; p < arrow && perm; p++) {
            unsigned c = (unsigned char)*p;
            if (c == '.') {
                if (ell_in == UINT32_MAX)
                    ell_in = k, k += ne;
            } else if (isalpha(c)) {
                perm = pos[c] == UINT32_MAX;
                pos[c] = k++;
            }
        }
        for (p = arrow + 2, out_k = 0; perm && *p && out_k <= nd; p++) {
            unsigned c = (unsigned char)*p;
            if (c == '.' && ell_in < UINT32_MAX - 1 && out_k + ne <= nd) {
                for (uint32_t q = 0; q < ne; q++)
                    sc->out->u.t.stride[out_k++] = t->stride[ell_in + q];
                ell_in = UINT32_MAX - 1; // copied once
                continue;
            }
            if (c == '.')
                continue;
            if (!isalpha(c) || out_k == nd)
                continue;
            if (pos[c] == UINT32_MAX) {
                perm = false;
                break;
            }
            sc->out->u.t.stride[out_k++] = t->stride[pos[c]];
        }
        if (perm && out_k == nd)
            sc->out->u.t.storage_offset = t->storage_offset;
        else
            contiguous_strides(sc, nd, sc->out->u.t.shape, sc->out->u.t.stride);
    }
    return 0;
}

#define MAX_CAT 4096

/* Room for the operands of a list argument (cat, stack): as many as it has, at least one. */
static struct operand *list_operands(struct cgs_shape_ctx *sc, const struct cgs_arg *a)
{
    uint32_t n = a && a->kind == CGS_ARG_LIST && a->n ? a->n : 1;
    return cgs_arena_calloc(sc->ar, n < MAX_CAT ? n : MAX_CAT, sizeof(struct operand));
}

RULE(cat)
{
    struct operand *o = list_operands(sc, Ai(sc, 0));
    const struct cgs_tensor *first = NULL;
    sym_t shape[NDIM_MAX];
    uint32_t cnt, i, dim, fmt = 0;
    int64_t dv = 0;
    bool cl = false, mixed = false, seen = false;

    (void)n;
    TRY(tensor_list(sc, Ai(sc, 0), o, &cnt, MAX_CAT, d));
    for (i = 0; i < cnt; i++) {
        // legacy: 1-D empty tensors are skipped
        if (o[i].t->ndim == 1 && hv(sc, o[i].t->shape[0]) == 0)
            continue;
        if (!first)
            first = o[i].t;
    }
    if (!first)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "cat of empty tensors only");
    if (first->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "zero-dimensional tensor cannot be concatenated");
    int_const(sc, A(sc, "dim"), &dv);
    if (!wrap_dim(dv, first->ndim, &dim))
        return cgs_diag_set(d, CGS_E_INVAL, "cat: dim out of range");
    dimcpy(shape, first->shape, first->ndim);
    shape[dim] = K(sc, 0);
    for (i = 0; i < cnt; i++) {
        const struct cgs_tensor *t = o[i].t;
        bool c;
        if (t->ndim == 1 && hv(sc, t->shape[0]) == 0)
            continue;
        if (t->ndim != first->ndim)
            return cgs_diag_set(d, CGS_E_INVAL, "cat: tensors of ranks %u and %u", first->ndim,
                                t->ndim);
        shape[dim] = S_add(sc, shape[dim], t->shape[dim]);
        c = suggest_cl(sc, t);
        if (seen && c != cl)
            mixed = true;
        cl = c, seen = true;
        fmt++;
    }
    out_dense(sc, first->ndim, shape, result_type(o, cnt), first->device, cl && !mixed);
    return 0;
}

RULE(stack)
{
    struct operand *o = list_operands(sc, Ai(sc, 0));
    sym_t shape[NDIM_MAX], cshape[NDIM_MAX], cstride[NDIM_MAX];
    uint32_t cnt, dim, i, j = 0;
    int64_t dv = 0;
    const struct cgs_tensor *t;
    struct cgs_tensor cat;
    bool cl = true;

    (void)n;
    TRY(tensor_list(sc, Ai(sc, 0), o, &cnt, MAX_CAT, d));
    if (!cnt)
        return cgs_diag_set(d, CGS_E_INVAL, "stack of no tensors");
    t = o[0].t;
    int_const(sc, A(sc, "dim"), &dv);
    if (!wrap_dim(dv, t->ndim + 1, &dim) || t->ndim + 1 > NDIM_MAX)
        return cgs_diag_set(d, CGS_E_INVAL, "stack: dim out of range");
    for (i = 0; i < cnt; i++)
        if (o[i].t->ndim != t->ndim)
            return cgs_diag_set(d, CGS_E_INVAL, "stack: tensors of ranks %u and %u", t->ndim,
                                o[i].t->ndim);
    for (i = 0; i < t->ndim + 1; i++)
        shape[i] = i == dim ? K(sc, cnt) : t->shape[j++];
    if (dim == t->ndim) {
        // cat of the inputs unsqueezed at the end: a dense result
        out_dense(sc, t->ndim + 1, shape, result_type(o, cnt), t->device, false);
        return 0;
    }
    // ATen: cat along dim (its memory format from the inputs), then a view that splits dim
    for (i = 0; i < cnt; i++)
        cl = cl && suggest_cl(sc, o[i].t);
    dimcpy(cshape, t->shape, t->ndim);
    cshape[dim] = S_mul(sc, t->shape[dim], K(sc, cnt));
    if (cl)
        channels_last_strides(sc, t->ndim, cshape, cstride);
    else
        contiguous_strides(sc, t->ndim, cshape, cstride);
    cat = *t;
    cat.dtype = result_type(o, cnt);
    cat.shape = cshape;
    cat.stride = cstride;
    cat.storage_offset = K(sc, 0);
    return view_to(sc, &cat, shape, t->ndim + 1, true, d);
}

RULE(pad)
{
    const struct cgs_tensor *t;
    sym_t p[NDIM_MAX * 2], shape[NDIM_MAX];
    uint32_t cnt, i;
    const char *mode = str_of(A(sc, "mode"));

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    if (ints_of(sc, Ai(sc, 1), p, &cnt) || cnt % 2 || cnt / 2 > t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "pad: bad pad list");
    if (mode && strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "replicate") &&
        strcmp(mode, "circular"))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "pad mode '%s' is not tracked", mode);
    dimcpy(shape, t->shape, t->ndim);
    for (i = 0; i < cnt / 2; i++) {
        uint32_t dim = t->ndim - 1 - i;
        shape[dim] = S_add(sc, shape[dim], S_add(sc, p[2 * i], p[2 * i + 1]));
    }
    out_dense(sc, t->ndim, shape, t->dtype, t->device, suggest_cl(sc, t));
    return 0;
}

RULE(adaptive_pool)
{
    const struct cgs_tensor *t;
    sym_t os[3], shape[NDIM_MAX];
    uint32_t cnt, i;
    const struct cgs_arg *a;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    if (t->ndim < 3)
        return cgs_diag_set(d, CGS_E_INVAL, "adaptive pool of rank %u", t->ndim);
    a = Ai(sc, 1);
    if (a && a->kind == CGS_ARG_LIST) {
        cnt = a->n < 3 ? a->n : 3;
        for (i = 0; i < cnt; i++)
            if (int_of(sc, &a->u.items[i], &os[i]) == 1)
                os[i] = t->shape[t->ndim - cnt + i];
    } else if (int_of(sc, a, &os[0]) == 0) {
        os[1] = os[0];
        cnt = 2;
    } else {
        return cgs_diag_set(d, CGS_E_INVAL, "adaptive pool: bad output size");
    }
    dimcpy(shape, t->shape, t->ndim);
    for (i = 0; i < cnt; i++)
        shape[t->ndim - cnt + i] = os[i];
    out_dense(sc, t->ndim, shape, t->dtype, t->device, suggest_cl(sc, t));
    return 0;
}

/* Pooling output size (ATen's pooling_output_shape). */
static sym_t pool_size(struct cgs_shape_ctx *sc, sym_t in, int64_t k, int64_t s, int64_t p,
                       int64_t dil, bool ceil_mode)
{
    sym_t r = S_add(sc, in, K(sc, 2 * p - dil * (k - 1) - 1 + (ceil_mode ? s - 1 : 0)));
    sym_t out = S_add(sc, S_div(sc, r, K(sc, s)), K(sc, 1));

    if (ceil_mode && out &&
        hv(sc, S_mul(sc, S_sub(sc, out, K(sc, 1)), K(sc, s))) >= hv(sc, S_add(sc, in, K(sc, p))))
        out = S_sub(sc, out, K(sc, 1));
    return out;
}

/* Pooled shape of t; kernel/stride/padding/dilation from the schema. */
static int pool_shape(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, bool has_dil,
                      uint32_t nsp, sym_t *shape, struct cgs_diag *d)
{
    sym_t k[3], s[NDIM_MAX], p[3], dl[3];
    int64_t kv[3], sv[3], pv[3], dv[3];
    uint32_t i, ns = 0;
    bool ceil_mode = bool_of(A(sc, "ceil_mode"), false);

    if (t->ndim < nsp + 1)
        return cgs_diag_set(d, CGS_E_INVAL, "pool of rank %u", t->ndim);
    TRY(spatial_param(sc, "kernel_size", nsp, 1, k, d));
    if (ints_of(sc, A(sc, "stride"), s, &ns) < 0)
        return cgs_diag_set(d, CGS_E_INVAL, "pool: bad stride");
    if (ns == 0)
        dimcpy(s, k, nsp); // the stride defaults to the kernel size
    else if (ns == 1)
        for (i = 1; i < nsp; i++)
            s[i] = s[0];
    else if (ns != nsp)
        return cgs_diag_set(d, CGS_E_INVAL, "pool: stride has %u entries", ns);
    TRY(spatial_param(sc, "padding", nsp, 0, p, d));
    if (has_dil)
        TRY(spatial_param(sc, "dilation", nsp, 1, dl, d));
    else
        for (i = 0; i < nsp; i++)
            dl[i] = K(sc, 1);
    for (i = 0; i < nsp; i++)
        if (!cgs_sym_is_int(k[i], &kv[i]) || !cgs_sym_is_int(s[i], &sv[i]) ||
            !cgs_sym_is_int(p[i], &pv[i]) || !cgs_sym_is_int(dl[i], &dv[i]) || sv[i] <= 0)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "pool parameters are not constants");
    dimcpy(shape, t->shape, t->ndim);
    for (i = 0; i < nsp; i++)
        shape[t->ndim - nsp + i] =
            pool_size(sc, t->shape[t->ndim - nsp + i], kv[i], sv[i], pv[i], dv[i], ceil_mode);
    return 0;
}

RULE(avg_pool)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(pool_shape(sc, t, false, 2, shape, d));
    out_dense(sc, t->ndim, shape, t->dtype, t->device, suggest_cl(sc, t));
    return 0;
}

/* avg_pool3d: three spatial dims, contiguous (channels-last-3d inputs aside). */
RULE(avg_pool3d)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(pool_shape(sc, t, false, 3, shape, d));
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

RULE(max_pool)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(pool_shape(sc, t, true, 2, shape, d));
    out_dense(sc, t->ndim, shape, t->dtype, t->device, suggest_cl(sc, t));
    return 0;
}

static int pool_pair(struct cgs_shape_ctx *sc, enum cgs_dtype second, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    bool cl;

    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(pool_shape(sc, t, true, 2, shape, d));
    cl = suggest_cl(sc, t);
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], t->ndim, shape, t->dtype, t->device, cl);
    fill_dense(sc, &sc->out->u.items[1], t->ndim, shape, second, t->device, cl);
    return 0;
}

RULE(max_pool_indices)
{
    (void)n;
    return pool_pair(sc, CGS_DTYPE_INT64, d);
}

RULE(max_pool_offsets)
{
    (void)n;
    return pool_pair(sc, CGS_DTYPE_INT8, d);
}

RULE(max_pool_f)
{
    (void)n;
    if (bool_of(A(sc, "return_indices"), false))
        return pool_pair(sc, CGS_DTYPE_INT64, d);
    return cgs_shape_rule_max_pool(n, sc, d);
}

RULE(offsets_to_indices)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "offsets", &t, d));
    return copy_like(sc, t, CGS_DTYPE_INT64, NULL, NULL);
}

RULE(pool_backward)
{
    const struct cgs_tensor *g, *t;

    (void)n;
    TRY(need_tensor(sc, "grad_output", &g, d));
    TRY(need_tensor(sc, "self", &t, d));
    out_dense(sc, t->ndim, t->shape, g->dtype, t->device, suggest_cl(sc, t));
    return 0;
}

/* Attention output [B, H, L, Ev] laid out as [B, L, H, Ev] (transposed back). */
static struct cgs_tensor *fill_bshd(struct cgs_shape_ctx *sc, struct cgs_val *v,
                                    const struct cgs_tensor *q, const struct cgs_tensor *val)
{
    struct cgs_tensor *o = fill_tensor(sc, v, q->ndim, q->dtype, q->device);
    static const uint32_t perm4[] = {0, 2, 1, 3};

    dimcpy(o->shape, q->shape, q->ndim);
    o->shape[q->ndim - 1] = val->shape[val->ndim - 1];
    if (q->ndim == 4)
        permuted_strides(sc, 4, o->shape, perm4, o->stride);
    else
        contiguous_strides(sc, q->ndim, o->shape, o->stride);
    return o;
}

RULE(sdpa)
{
    const struct cgs_tensor *q, *k, *v;

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim < 2 || v->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "attention inputs of rank < 2");
    sc->out = new_val(sc, CGS_VAL_TENSOR);
    {
        // a mask whose last stride is not 1 (an expanded padding mask) rules out the fused
        // kernels: torch takes the math path, a matmul with a contiguous result
        const struct cgs_val *mv = node_val(sc, A(sc, "attn_mask"));
        if (mv && mv->kind == CGS_VAL_TENSOR && mv->u.t.ndim > 0 && mv->u.t.stride &&
            mv->u.t.stride[mv->u.t.ndim - 1] && hv(sc, mv->u.t.stride[mv->u.t.ndim - 1]) != 1 &&
            hv(sc, mv->u.t.shape[mv->u.t.ndim - 1]) != 1) {
            sym_t shape[NDIM_MAX];
            dimcpy(shape, q->shape, q->ndim);
            shape[q->ndim - 1] = v->shape[v->ndim - 1];
            fill_dense(sc, sc->out, q->ndim, shape, q->dtype, q->device, false);
            return 0;
        }
    }
    fill_bshd(sc, sc->out, q, v);
    // on CUDA, half types without a mask go to flash attention, which keeps the query's layout
    if (q->ndim == 4 && (q->dtype == CGS_DTYPE_FLOAT16 || q->dtype == CGS_DTYPE_BFLOAT16) &&
        is_none(A(sc, "attn_mask")) && hv(sc, q->shape[3]) == hv(sc, v->shape[3]) &&
        hv(sc, q->shape[3]) <= 256 && q->device && strncmp(q->device, "cuda", 4) == 0)
        preserve_strides(sc, q, sc->out->u.t.stride);
    return 0;
}

RULE(sdpa_efficient)
{
    const struct cgs_tensor *q, *k, *v;
    sym_t lse[3];
    int64_t L;

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim != 4 || k->ndim != 4 || v->ndim != 4)
        return cgs_diag_set(d, CGS_E_INVAL, "efficient attention needs rank-4 inputs");
    sc->out = new_list(sc, 4);
    fill_bshd(sc, &sc->out->u.items[0], q, v);
    lse[0] = q->shape[0], lse[1] = q->shape[1];
    if (!bool_of(A(sc, "compute_log_sumexp"), false))
        lse[2] = K(sc, 0);
    else if (cgs_sym_is_int(q->shape[2], &L))
        lse[2] = K(sc, (L + 31) / 32 * 32);
    else
        lse[2] = S_mul(sc, S_div(sc, S_add(sc, q->shape[2], K(sc, 31)), K(sc, 32)), K(sc, 32));
    fill_dense(sc, &sc->out->u.items[1], 3, lse, CGS_DTYPE_FLOAT32, q->device, false);
    fill_dense(sc, &sc->out->u.items[2], 0, lse, CGS_DTYPE_INT64, q->device, false);
    fill_dense(sc, &sc->out->u.items[3], 0, lse, CGS_DTYPE_INT64, q->device, false);
    return 0;
}

RULE(sdpa_flash)
{
    const struct cgs_tensor *q, *k, *v;
    sym_t dims[3];

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim != 4 || k->ndim != 4 || v->ndim != 4)
        return cgs_diag_set(d, CGS_E_INVAL, "flash attention needs rank-4 inputs");
    sc->out = new_list(sc, 9);
    // the output keeps the query's layout (empty_like of the transposed query)
    {
        struct cgs_tensor *o = fill_tensor(sc, &sc->out->u.items[0], 4, q->dtype, q->device);
        dimcpy(o->shape, q->shape, 4);
        preserve_strides(sc, q, o->stride);
    }
    dims[0] = q->shape[0], dims[1] = q->shape[1], dims[2] = q->shape[2];
    fill_dense(sc, &sc->out->u.items[1], 3, dims, CGS_DTYPE_FLOAT32, q->device, false);
    sc->out->u.items[2].kind = CGS_VAL_NONE;
    sc->out->u.items[3].kind = CGS_VAL_NONE;
    set_symint(sc, &sc->out->u.items[4], q->shape[2]);
    set_symint(sc, &sc->out->u.items[5], k->shape[2]);
    // philox seed and offset
    dims[0] = K(sc, 2);
    fill_dense(sc, &sc->out->u.items[6], 1, dims, CGS_DTYPE_UINT64, q->device, false);
    fill_dense(sc, &sc->out->u.items[7], 0, dims, CGS_DTYPE_UINT64, q->device, false);
    // the debug mask, empty unless asked for
    if (bool_of(A(sc, "return_debug_mask"), false))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "flash attention debug mask is not tracked");
    dims[0] = K(sc, 0);
    fill_dense(sc, &sc->out->u.items[8], 1, dims, q->dtype, q->device, false);
    return 0;
}

RULE(mha)
{
    const struct cgs_tensor *q, *k;
    sym_t w[3];

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    if (q->ndim != 3 || k->ndim != 3)
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "multi-head attention of unbatched inputs is not tracked");
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], 3, q->shape, q->dtype, q->device, false);
    if (!bool_of(A(sc, "need_weights"), true)) {
        sc->out->u.items[1].kind = CGS_VAL_NONE;
        return 0;
    }
    w[0] = q->shape[1], w[1] = q->shape[0], w[2] = k->shape[0];
    fill_dense(sc, &sc->out->u.items[1], 3, w, q->dtype, q->device, false);
    return 0;
}


/* ---- factories ----------------------------------------------------------------------- */

static const char *device_arg(struct cgs_shape_ctx *sc)
{
    const char *dev = str_of(A(sc, "device"));

    return dev ? dev : "cpu";
}

RULE(arange)
{
    struct operand o[3];
    const struct cgs_arg *a[3] = {A(sc, "start"), A(sc, "end"), A(sc, "step")};
    sym_t len, start, end, step;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    bool any_float = false;
    uint32_t i;

    (void)n;
    if (is_none(a[1]) && !is_none(a[0]) && find_param(sc, "start") >= 0) {
        // arange(end): the first positional is the end
        a[1] = a[0];
        a[0] = NULL;
    }
    for (i = 0; i < 3; i++) {
        int rc = operand_of(sc, a[i], &o[i]);
        if (rc < 0)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "arange bounds not known");
        if (rc == 0 && o[i].scalar == CGS_DTYPE_FLOAT32)
            any_float = true;
    }
    if (any_float) {
        // ceil((end - start) / step) in double, as torch computes the length
        double v[3] = {0, 0, 1};
        int64_t c;
        for (i = 0; i < 3; i++) {
            if (is_none(a[i]))
                continue;
            if (o[i].scalar == CGS_DTYPE_FLOAT32)
                v[i] = o[i].f;
            else if (o[i].sym && cgs_sym_is_int(o[i].sym, &c))
                v[i] = (double)c;
            else
                return cgs_diag_set(d, CGS_E_UNKNOWN, "arange: symbolic bounds with floats");
        }
        if (v[2] == 0 || !isfinite((v[1] - v[0]) / v[2]) || (v[1] - v[0]) / v[2] > 9e15)
            return cgs_diag_set(d, CGS_E_INVAL, "arange: bad bounds or step");
        len = K(sc, (int64_t)ceil((v[1] - v[0]) / v[2]));
        if (dt == CGS_DTYPE_UNKNOWN)
            dt = CGS_DTYPE_FLOAT32;
        out_dense(sc, 1, &len, dt, device_arg(sc), false);
        return 0;
    }
    start = !is_none(a[0]) ? o[0].sym : K(sc, 0);
    end = o[1].sym;
    step = !is_none(a[2]) ? o[2].sym : K(sc, 1);
    if (!end)
        return cgs_diag_set(d, CGS_E_INVAL, "arange without an end");
    {
        int64_t sv;
        if (is_const(step, 1))
            len = S_sub(sc, end, start);
        else if (cgs_sym_is_int(step, &sv) && sv < 0)
            // ceil(x / step) for step < 0 is (x + step + 1) // step
            len = S_div(sc, S_add(sc, S_sub(sc, end, start), S_add(sc, step, K(sc, 1))), step);
        else
            len = S_div(sc, S_add(sc, S_sub(sc, end, start), S_sub(sc, step, K(sc, 1))), step);
    }
    if (dt == CGS_DTYPE_UNKNOWN)
        dt = CGS_DTYPE_INT64;
    out_dense(sc, 1, &len, dt, device_arg(sc), false);
    return 0;
}

static int factory(struct cgs_shape_ctx *sc, const struct cgs_arg *size, enum cgs_dtype dt,
                   const char *dev, struct cgs_diag *d)
{
    sym_t shape[NDIM_MAX];
    uint32_t nd;
    const char *fmt = str_of(A(sc, "memory_format"));

    TRY(shape_param(sc, size, shape, &nd, d));
    out_dense(sc, nd, shape, dt, dev, fmt && !strcmp(fmt, "channels_last"));
    return 0;
}

RULE(full)
{
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    if (dt == CGS_DTYPE_UNKNOWN) {
        struct operand o;
        if (operand_of(sc, A(sc, "fill_value"), &o) == 0 && !o.t)
            dt = o.scalar;
        else
            dt = CGS_DTYPE_FLOAT32;
    }
    return factory(sc, A(sc, "size"), dt, device_arg(sc), d);
}

RULE(zeros)
{
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    return factory(sc, A(sc, "size"), dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt,
                   device_arg(sc), d);
}

RULE(new_full)
{
    const struct cgs_tensor *t;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    const char *dev = str_of(A(sc, "device"));

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    return factory(sc, A(sc, "size"), dt == CGS_DTYPE_UNKNOWN ? t->dtype : dt,
                   dev ? dev : t->device, d);
}

RULE(empty_strided)
{
    sym_t shape[NDIM_MAX], stride[NDIM_MAX];
    uint32_t nd, ns;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    struct cgs_tensor *o;

    (void)n;
    TRY(shape_param(sc, A(sc, "size"), shape, &nd, d));
    TRY(shape_param(sc, A(sc, "stride"), stride, &ns, d));
    if (nd != ns)
        return cgs_diag_set(d, CGS_E_INVAL, "empty_strided: %u sizes and %u strides", nd, ns);
    o = out_tensor(sc, nd, dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt, device_arg(sc));
    dimcpy(o->shape, shape, nd);
    dimcpy(o->stride, stride, nd);
    return 0;
}

RULE(seeds)
{
    sym_t c;

    (void)n;
    if (int_of(sc, A(sc, "count"), &c))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "seed count not known");
    out_dense(sc, 1, &c, CGS_DTYPE_INT64, device_arg(sc), false);
    return 0;
}

RULE(lookup_seed)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "seeds", &t, d));
    out_dense(sc, 0, NULL, t->dtype, t->device, false);
    return 0;
}

RULE(inductor_random)
{
    const struct cgs_tensor *seed;

    (void)n;
    TRY(need_tensor(sc, "seed", &seed, d));
    return factory(sc, A(sc, "size"), CGS_DTYPE_FLOAT32, seed->device, d);
}

/* Advanced indexing: items are index tensors or None (a full slice). */
static int adv_index(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                     const struct cgs_arg *items, uint32_t n_items, struct cgs_diag *d)
{
    struct operand o[NDIM_MAX];
    sym_t bshape[NDIM_MAX], shape[NDIM_MAX];
    uint32_t i, cnt = 0, bnd, nd = 0, first = UINT32_MAX, last = 0;
    bool adjacent = true;

    if (n_items > t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "index: too many indices");
    for (i = 0; i < n_items; i++) {
        int rc;
        if (items[i].kind == CGS_ARG_SLICE)
            continue;
        rc = operand_of(sc, &items[i], &o[cnt]);
        if (rc == 1)
            continue;
        if (rc < 0 || !o[cnt].t)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "index tensor not known");
        if (o[cnt].t->dtype == CGS_DTYPE_BOOL || o[cnt].t->dtype == CGS_DTYPE_UINT8) {
            // x[mask] (the mask the only index, over the leading dims): nonzero's unbacked
            // count replaces the masked dims, as FakeTensor's index meta gives it
            const struct cgs_tensor *m = o[cnt].t;
            sym_t numel = K(sc, 1), rs[NDIM_MAX];
            uint32_t k, rn = 0;
            int64_t c;
            if (n_items != 1 || i != 0 || m->ndim == 0 || m->ndim > t->ndim)
                return cgs_diag_set(d, CGS_E_UNKNOWN, "boolean mask indexing with other "
                                                      "indices is not tracked");
            for (k = 0; k < m->ndim; k++)
                numel = S_mul(sc, numel, m->shape[k]);
            rs[rn++] = cgs_sym_is_int(numel, &c) && c == 0 ? K(sc, 0) : unbacked(sc);
            for (k = m->ndim; k < t->ndim; k++)
                rs[rn++] = t->shape[k];
            out_dense(sc, rn, rs, t->dtype, t->device, false);
            return 0;
        }
        if (first != UINT32_MAX && i != last + 1)
            adjacent = false;
        if (first == UINT32_MAX)
            first = i;
        last = i;
        cnt++;
    }
    if (!cnt)
        return same_as_first(sc, d);
    TRY(broadcast(sc, o, cnt, bshape, &bnd, d));
    if (!adjacent) {
        dimcpy(shape, bshape, bnd);
        nd = bnd;
        for (i = 0; i < t->ndim; i++)
            if (i >= n_items || is_none(&items[i]) || items[i].kind == CGS_ARG_SLICE)
                shape[nd++] = t->shape[i];
    } else {
        for (i = 0; i < first; i++)
            shape[nd++] = t->shape[i];
        dimcpy(shape + nd, bshape, bnd);
        nd += bnd;
        for (i = last + 1; i < t->ndim; i++)
            shape[nd++] = t->shape[i];
    }
    out_dense(sc, nd, shape, t->dtype, t->device, false);
    return 0;
}

RULE(index)
{
    const struct cgs_tensor *t;
    const struct cgs_arg *ix = A(sc, "indices");

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (!ix || ix->kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_INVAL, "index: bad indices");
    return adv_index(sc, t, ix->u.items, ix->n, d);
}

RULE(index_select)
{
    const struct cgs_tensor *t, *ix;
    sym_t shape[NDIM_MAX];
    uint32_t dim;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "index", &ix, d));
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    dimcpy(shape, t->shape, t->ndim);
    if (t->ndim)
        shape[dim] = ix->ndim ? ix->shape[0] : K(sc, 1);
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

RULE(gather)
{
    const struct cgs_tensor *t, *ix;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "index", &ix, d));
    out_dense(sc, ix->ndim, ix->shape, t->dtype, t->device, false);
    return 0;
}

/* ---- more of the core ATen opset ------------------------------------------------------ */

RULE(unfold)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    uint32_t dim;
    sym_t size, step;
    int64_t hs, hz;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(dim_arg(sc, "dimension", t->ndim, &dim, d));
    if (int_of(sc, A(sc, "size"), &size) || int_of(sc, A(sc, "step"), &step) || hv(sc, step) <= 0)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "unfold: size or step not known");
    hs = t->ndim ? hv(sc, t->shape[dim]) : 1, hz = hv(sc, size);
    if (hz > hs)
        return cgs_diag_set(d, CGS_E_INVAL, "unfold: size %lld exceeds the dimension (%lld)",
                            (long long)hz, (long long)hs);
    o = out_view(sc, t, t->ndim + 1);
    dimcpy(o->shape, t->shape, t->ndim);
    dimcpy(o->stride, t->stride, t->ndim);
    if (t->ndim) {
        o->shape[dim] = S_add(sc, S_div(sc, S_sub(sc, t->shape[dim], size), step), K(sc, 1));
        o->stride[dim] = S_mul(sc, t->stride[dim], step);
        o->stride[t->ndim] = t->stride[dim];
    } else {
        o->stride[0] = K(sc, 1);
    }
    o->shape[t->ndim] = size;
    return 0;
}

RULE(repeat)
{
    const struct cgs_tensor *t;
    sym_t r[NDIM_MAX], shape[NDIM_MAX];
    uint32_t cnt, i;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, Ai(sc, 1), r, &cnt, d));
    if (cnt < t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "repeat: fewer repeats than dimensions");
    for (i = 0; i < cnt; i++)
        shape[i] = i < cnt - t->ndim ? r[i] : S_mul(sc, r[i], t->shape[i - (cnt - t->ndim)]);
    out_dense(sc, cnt, shape, t->dtype, t->device, false);
    return 0;
}

/* A (values, indices) pair of dense tensors of one shape. */
static void pair_out(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
                     const sym_t *shape)
{
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], nd, shape, t->dtype, t->device, false);
    fill_dense(sc, &sc->out->u.items[1], nd, shape, CGS_DTYPE_INT64, t->device, false);
}

/* scatter: ATen clones self contiguous, then scatters into the copy. */
RULE(scatter)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, "contiguous_format", NULL);
}

RULE(max_dim)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(reduce_shape(sc, t, A(sc, "dim"), bool_of(A(sc, "keepdim"), false), shape, &nd, d));
    pair_out(sc, t, nd, shape);
    return 0;
}

/* torch.max / torch.min and their methods: the whole-tensor reduction, the (values, indices)
 * of one dim, or the elementwise maximum, chosen by the second argument as Python does. */
RULE(minmax)
{
    const struct cgs_arg *a = A(sc, "dim");
    const struct cgs_val *v = node_val(sc, a);

    if (is_none(a) && !is_none(A(sc, "other")))
        a = A(sc, "other"), v = node_val(sc, a);
    if (v && v->kind == CGS_VAL_TENSOR) {
        struct operand o[2];
        enum cgs_dtype dt;
        TRY(operand_of(sc, Ai(sc, 0), &o[0]) ? cgs_diag_set(d, CGS_E_UNKNOWN, "input not known")
                                             : 0);
        TRY(operand_of(sc, a, &o[1]) ? cgs_diag_set(d, CGS_E_UNKNOWN, "other not known") : 0);
        dt = result_type(o, 2);
        return elementwise(sc, o, 2, dt, false, d);
    }
    if (is_none(a))
        return cgs_shape_rule_reduce(n, sc, d);
    return cgs_shape_rule_max_dim(n, sc, d);
}

/* prims.iota(length, *, start, step, dtype, device, requires_grad): a 1-D range. */
RULE(iota)
{
    sym_t len;

    (void)n;
    if (int_of(sc, A(sc, "length"), &len))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "iota: length not known");
    out_dense(sc, 1, &len, dtype_of(A(sc, "dtype")) == CGS_DTYPE_UNKNOWN
                               ? CGS_DTYPE_INT64
                               : dtype_of(A(sc, "dtype")),
              device_arg(sc), false);
    return 0;
}

/* histc(self, bins=100, ...): a 1-D histogram of self's dtype. */
RULE(histc)
{
    const struct cgs_tensor *t;
    sym_t bins;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (int_of(sc, A(sc, "bins"), &bins))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "histc: bins not known");
    out_dense(sc, 1, &bins, t->dtype, t->device, false);
    return 0;
}

/* prims.prepare_softmax_online(x, dim): (amax, sum of exp) over dim, kept as size 1. */
RULE(prepare_softmax_online)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd, i;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(reduce_shape(sc, t, A(sc, "dim"), true, shape, &nd, d));
    sc->out = new_list(sc, 2);
    for (i = 0; i < 2; i++)
        fill_dense(sc, &sc->out->u.items[i], nd, shape, t->dtype, t->device, false);
    return 0;
}

RULE(topk)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX], k;
    uint32_t dim;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    if (int_of(sc, A(sc, "k"), &k))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "topk: k not known");
    dimcpy(shape, t->shape, t->ndim);
    if (t->ndim)
        shape[dim] = k;
    pair_out(sc, t, t->ndim, shape);
    return 0;
}

RULE(sort)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    pair_out(sc, t, t->ndim, t->shape);
    // values and indices keep the input's layout
    preserve_strides(sc, t, sc->out->u.items[0].u.t.stride);
    preserve_strides(sc, t, sc->out->u.items[1].u.t.stride);
    return 0;
}

RULE(scalar_tensor)
{
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n, (void)d;
    out_dense(sc, 0, NULL, dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt, device_arg(sc), false);
    return 0;
}

/*
 * torch.tensor(data) / torch.as_tensor(data): the shape of the nested lists and the dtype
 * torch infers from their leaves (bools: bool; ints and SymInts: int64; any float: the default
 * float32) unless dtype= says; torch.tensor([]) is float32 of shape [0]. A tensor as the data
 * keeps its shape, dtype and device; 0-d tensors may be leaves.
 */
struct data_scan {
    uint32_t nd;
    int64_t shape[NDIM_MAX];
    int leaf_depth; /* -1 until the first leaf */
    int cat;        /* the highest dt_cat of the leaves (bool < int < float < complex), -1 none */
    bool ragged, unknown;
};

static void scan_leaf(struct data_scan *s, uint32_t depth, int cat)
{
    if (s->leaf_depth < 0)
        s->leaf_depth = (int)depth;
    else if (s->leaf_depth != (int)depth)
        s->ragged = true;
    if (depth < s->nd)
        s->ragged = true;
    if (cat < 0)
        s->unknown = true;
    if (cat > s->cat)
        s->cat = cat;
}

static void scan_data(struct cgs_shape_ctx *sc, const struct cgs_arg *a, uint32_t depth,
                      struct data_scan *s)
{
    const struct cgs_val *v;

    if (s->ragged || s->unknown)
        return;
    switch (a->kind) {
    case CGS_ARG_LIST:
        if (depth >= NDIM_MAX || (s->leaf_depth >= 0 && (int)depth >= s->leaf_depth)) {
            s->ragged = depth < NDIM_MAX;
            s->unknown = depth >= NDIM_MAX;
            return;
        }
        if (depth == s->nd)
            s->shape[s->nd++] = a->n;
        else if (depth > s->nd || s->shape[depth] != (int64_t)a->n)
            s->ragged = true;
        for (uint32_t i = 0; i < a->n; i++)
            scan_data(sc, &a->u.items[i], depth + 1, s);
        break;
    case CGS_ARG_BOOL:
        scan_leaf(s, depth, dt_cat(CGS_DTYPE_BOOL));
        break;
    case CGS_ARG_INT:
    case CGS_ARG_SYM:
        scan_leaf(s, depth, dt_cat(CGS_DTYPE_INT64));
        break;
    case CGS_ARG_FLOAT:
        scan_leaf(s, depth, dt_cat(CGS_DTYPE_FLOAT32));
        break;
    case CGS_ARG_NODE:
        v = node_val(sc, a);
        if (!v) {
            s->unknown = true;
        } else if (v->kind == CGS_VAL_SYMINT || v->kind == CGS_VAL_INT) {
            scan_leaf(s, depth, dt_cat(CGS_DTYPE_INT64));
        } else if (v->kind == CGS_VAL_SYMFLOAT || v->kind == CGS_VAL_FLOAT) {
            scan_leaf(s, depth, dt_cat(CGS_DTYPE_FLOAT32));
        } else if (v->kind == CGS_VAL_SYMBOOL || v->kind == CGS_VAL_BOOL) {
            scan_leaf(s, depth, dt_cat(CGS_DTYPE_BOOL));
        } else if (v->kind == CGS_VAL_TENSOR && v->u.t.ndim == 0 && depth > 0) {
            scan_leaf(s, depth, dt_cat(v->u.t.dtype));
        } else {
            s->unknown = true;
        }
        break;
    default:
        s->unknown = true;
        break;
    }
}

RULE(tensor_data)
{
    const struct cgs_arg *data = A(sc, "data");
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    const char *dev = str_of(A(sc, "device"));
    struct data_scan s;
    sym_t shape[NDIM_MAX];
    const struct cgs_tensor *t;

    (void)n;
    if (!data)
        return cgs_diag_set(d, CGS_E_INVAL, "missing data");
    if (data->kind == CGS_ARG_NODE && arg_tensor(sc, data, &t) == 0) {
        out_dense(sc, t->ndim, t->shape, dt == CGS_DTYPE_UNKNOWN ? t->dtype : dt,
                  dev ? dev : t->device, false);
        return 0;
    }
    memset(&s, 0, sizeof(s));
    s.leaf_depth = -1;
    s.cat = -1;
    scan_data(sc, data, 0, &s);
    if (s.unknown)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "the data's values are not known");
    if (s.ragged)
        return cgs_diag_set(d, CGS_E_INVAL, "the data is not a rectangular nesting of lists");
    for (uint32_t i = 0; i < s.nd; i++)
        shape[i] = K(sc, s.shape[i]);
    if (dt == CGS_DTYPE_UNKNOWN)
        /* no leaf ([]) and float leaves: the default float32; complex: complex64 */
        dt = s.cat == 0 ? CGS_DTYPE_BOOL : s.cat == 1 ? CGS_DTYPE_INT64
             : s.cat == 3 ? CGS_DTYPE_COMPLEX64 : CGS_DTYPE_FLOAT32;
    out_dense(sc, s.nd, shape, dt, dev ? dev : "cpu", false);
    return 0;
}

RULE(group_norm)
{
    const struct cgs_tensor *in;
    sym_t stat[2];
    uint32_t i;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    if (int_of(sc, A(sc, "N"), &stat[0]) || int_of(sc, A(sc, "group"), &stat[1]))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "group norm sizes not known");
    sc->out = new_list(sc, 3);
    fill_dense(sc, &sc->out->u.items[0], in->ndim, in->shape, in->dtype, in->device,
               suggest_cl(sc, in));
    for (i = 1; i < 3; i++)
        fill_dense(sc, &sc->out->u.items[i], 2, stat, in->dtype, in->device, false);
    return 0;
}

/* Spatial output sizes from output_size, else input * scale (floored). */
static int upsample_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                       const struct cgs_arg *size, const struct cgs_arg *scale, struct cgs_diag *d)
{
    sym_t os[NDIM_MAX], shape[NDIM_MAX];
    uint32_t cnt = 0, i, k;

    if (t->ndim < 3)
        return cgs_diag_set(d, CGS_E_INVAL, "upsample of rank %u", t->ndim);
    k = t->ndim - 2;
    dimcpy(shape, t->shape, t->ndim);
    if (!is_none(size)) {
        if (ints_of(sc, size, os, &cnt) || (cnt != 1 && cnt != k))
            return cgs_diag_set(d, CGS_E_INVAL, "upsample: bad output size");
        for (i = 0; i < k; i++)
            shape[2 + i] = os[cnt == 1 ? 0 : i];
    } else if (scale) {
        const struct cgs_arg *it = scale;
        for (i = 0; i < k; i++) {
            double f;
            if (scale->kind == CGS_ARG_LIST)
                it = i < scale->n ? &scale->u.items[i] : NULL;
            if (!it || (it->kind != CGS_ARG_FLOAT && it->kind != CGS_ARG_INT))
                return cgs_diag_set(d, CGS_E_UNKNOWN, "upsample: scale not known");
            int64_t in;
            f = it->kind == CGS_ARG_FLOAT ? it->u.f : (double)it->u.i;
            if (!(f > 0) || f > 1e15)
                return cgs_diag_set(d, CGS_E_INVAL, "upsample: scale %g", f);
            if (cgs_sym_is_int(t->shape[2 + i], &in)) {
                // int(float(size) * scale), as interpolate computes it
                double o = (double)in * f;
                if (o >= 9.2e18)
                    return cgs_diag_set(d, CGS_E_LIMIT, "upsample: output size past 2^63");
                shape[2 + i] = K(sc, (int64_t)o);
            } else if (it->kind == CGS_ARG_INT || f == floor(f)) {
                // an integral scale: torch's simplifier makes TruncToInt(2.0*ToFloat(s)) 2*s
                shape[2 + i] = S_mul(sc, t->shape[2 + i], K(sc, (int64_t)f));
            } else {
                // a symbolic size: torch's sym_int(scale * sym_float(size)), an opaque call;
                // the coefficient as torch writes it: sympy's Float with 15 significant
                // digits, trailing zeros dropped ("1.7", "0.333333333333333"; measured)
                struct cgs_buf text = CGS_BUF_INIT;
                struct cgs_diag pd = CGS_DIAG_INIT;
                const struct cgs_sym *e = NULL;
                cgs_buf_addf(&text, "TruncToInt(%.15g*ToFloat(", f);
                cgs_sym_print(t->shape[2 + i], &text);
                cgs_buf_addstr(&text, "))");
                int perr = cgs_sym_parse(sc->sx, text.buf, &e, &pd);
                cgs_buf_release(&text);
                if (perr)
                    return cgs_diag_set(d, CGS_E_UNKNOWN, "upsample: symbolic scale: %s", pd.msg);
                shape[2 + i] = e;
            }
        }
    } else {
        return cgs_diag_set(d, CGS_E_INVAL, "upsample needs a size or a scale");
    }
    out_dense(sc, t->ndim, shape, t->dtype, t->device, suggest_cl(sc, t));
    return 0;
}

RULE(upsample)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "input", &t, d));
    return upsample_to(sc, t, A(sc, "output_size"),
                       A(sc, "scale_factors") ? A(sc, "scale_factors") : A(sc, "scales_h"), d);
}

RULE(interpolate)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "input", &t, d));
    return upsample_to(sc, t, A(sc, "size"), A(sc, "scale_factor"), d);
}

RULE(bn_backward)
{
    const struct cgs_tensor *in, *w = NULL;
    sym_t c[1];
    uint32_t i;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    if (in->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "batch norm backward of rank %u", in->ndim);
    arg_tensor(sc, A(sc, "weight"), &w);
    c[0] = in->shape[1];
    sc->out = new_list(sc, 3);
    fill_dense(sc, &sc->out->u.items[0], in->ndim, in->shape, in->dtype, in->device,
               suggest_cl(sc, in));
    for (i = 1; i < 3; i++)
        fill_dense(sc, &sc->out->u.items[i], 1, c, w ? w->dtype : in->dtype, in->device, false);
    return 0;
}

/* ---- losses, backward kernels, copies -------------------------------------------------- */

/* A contiguous copy of the first argument (tril, triu, roll, index_add, lift_fresh_copy). */
RULE(contig_copy)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, "contiguous_format", NULL);
}

/* A contiguous tensor shaped like parameter `self`, of the dtype of the first argument. */
RULE(like_self_contig)
{
    const struct cgs_tensor *g, *t;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &g) == 0 ? 0 : need_tensor(sc, "grad_output", &g, d));
    TRY(need_tensor(sc, "self", &t, d));
    out_dense(sc, t->ndim, t->shape, g->dtype, t->device, false);
    return 0;
}

/* The view rule of the op the _copy variant copies, then a contiguous result. */
/*
 * The _copy form of a view (torch tags them `view_copy`: expand_copy, permute_copy, ...): the
 * view's shape, as a fresh contiguous tensor. One rule per view rule (tools/gen-op-list.py maps
 * each X_copy packet to copy_of_<rule of X>).
 */
static int copy_of(const struct cgs_node *n, struct cgs_shape_ctx *sc, cgs_shape_rule_fn view,
                   struct cgs_diag *d)
{
    struct cgs_tensor *o;
    struct cgs_val *v;

    TRY(view(n, sc, d));
    if (sc->out && sc->out->kind == CGS_VAL_LIST) {
        // unbind_copy, split_copy: each piece a fresh contiguous tensor
        struct cgs_val *l = new_list(sc, sc->out->n);
        for (uint32_t i = 0; i < sc->out->n; i++) {
            const struct cgs_val *it = &sc->out->u.items[i];
            if (it->kind != CGS_VAL_TENSOR)
                return cgs_diag_set(d, CGS_E_UNKNOWN, "view result not known");
            o = copy_tensor(sc, &l->u.items[i], &it->u.t, it->u.t.ndim);
            dimcpy(o->shape, it->u.t.shape, o->ndim);
            contiguous_strides(sc, o->ndim, o->shape, o->stride);
            o->storage_offset = K(sc, 0);
        }
        sc->out = l;
        return 0;
    }
    if (!sc->out || sc->out->kind != CGS_VAL_TENSOR)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "view result not known");
    v = new_val(sc, CGS_VAL_TENSOR);
    o = copy_tensor(sc, v, &sc->out->u.t, sc->out->u.t.ndim);
    dimcpy(o->shape, sc->out->u.t.shape, o->ndim);
    contiguous_strides(sc, o->ndim, o->shape, o->stride);
    o->storage_offset = K(sc, 0);
    sc->out = v;
    return 0;
}

#define COPY_OF(view)                                                                              \
    RULE(copy_of_##view) { return copy_of(n, sc, cgs_shape_rule_##view, d); }
COPY_OF(expand)
COPY_OF(permute)
COPY_OF(view)
COPY_OF(unsqueeze)
COPY_OF(squeeze)
COPY_OF(transpose)
COPY_OF(slice)
COPY_OF(select)
COPY_OF(t)
COPY_OF(alias)
COPY_OF(unfold)
COPY_OF(view_as_real)
COPY_OF(view_as_complex)
COPY_OF(unbind)
COPY_OF(split)
#undef COPY_OF

RULE(outer)
{
    struct operand o[2];
    sym_t shape[2];
    uint32_t cnt;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t || o[0].t->ndim != 1 || o[1].t->ndim != 1)
        return cgs_diag_set(d, CGS_E_INVAL, "outer needs two 1-D tensors");
    shape[0] = o[0].t->shape[0], shape[1] = o[1].t->shape[0];
    out_dense(sc, 2, shape, result_type(o, 2), o[0].t->device, false);
    return 0;
}

RULE(repeat_interleave)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX], r;
    uint32_t dim;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (int_of(sc, A(sc, "repeats"), &r))
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "repeat_interleave with tensor repeats is data-dependent");
    if (is_none(A(sc, "dim"))) {
        shape[0] = S_mul(sc, numel_of(sc, t->ndim, t->shape), r);
        out_dense(sc, 1, shape, t->dtype, t->device, false);
        return 0;
    }
    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "repeat_interleave of a 0-dim tensor along a dim");
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    dimcpy(shape, t->shape, t->ndim);
    shape[dim] = S_mul(sc, shape[dim], r);
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

RULE(nll_loss)
{
    const struct cgs_tensor *t;
    int64_t reduction = 1;
    sym_t batch[1];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    int_const(sc, A(sc, "reduction"), &reduction);
    sc->out = new_list(sc, 2);
    if (reduction == 0 && t->ndim == 2) {
        batch[0] = t->shape[0];
        fill_dense(sc, &sc->out->u.items[0], 1, batch, t->dtype, t->device, false);
    } else {
        fill_dense(sc, &sc->out->u.items[0], 0, batch, t->dtype, t->device, false);
    }
    fill_dense(sc, &sc->out->u.items[1], 0, batch, t->dtype, t->device, false);
    return 0;
}

RULE(softmax_backward)
{
    const struct cgs_tensor *g;
    enum cgs_dtype dt = dtype_of(A(sc, "input_dtype"));

    (void)n;
    TRY(need_tensor(sc, "grad_output", &g, d));
    out_dense(sc, g->ndim, g->shape, dt == CGS_DTYPE_UNKNOWN ? g->dtype : dt, g->device, false);
    return 0;
}

RULE(embedding_backward)
{
    const struct cgs_tensor *g;
    sym_t shape[2];

    (void)n;
    TRY(need_tensor(sc, "grad_output", &g, d));
    if (g->ndim < 1 || int_of(sc, A(sc, "num_weights"), &shape[0]))
        return cgs_diag_set(d, CGS_E_INVAL, "embedding backward: bad arguments");
    shape[1] = g->shape[g->ndim - 1];
    out_dense(sc, 2, shape, g->dtype, g->device, false);
    return 0;
}

RULE(mse_loss)
{
    struct operand o[2];
    sym_t shape[NDIM_MAX];
    uint32_t cnt, nd;
    int64_t reduction = 1;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "mse_loss needs two tensors");
    int_const(sc, A(sc, "reduction"), &reduction);
    TRY(broadcast(sc, o, 2, shape, &nd, d));
    out_dense(sc, reduction == 0 ? nd : 0, shape, result_type(o, 2), o[0].t->device, false);
    return 0;
}

RULE(new_empty_strided)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX], stride[NDIM_MAX];
    uint32_t nd, ns;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    struct cgs_tensor *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, A(sc, "size"), shape, &nd, d));
    TRY(shape_param(sc, A(sc, "stride"), stride, &ns, d));
    if (nd != ns)
        return cgs_diag_set(d, CGS_E_INVAL, "new_empty_strided: %u sizes and %u strides", nd, ns);
    o = out_tensor(sc, nd, dt == CGS_DTYPE_UNKNOWN ? t->dtype : dt, t->device);
    dimcpy(o->shape, shape, nd);
    dimcpy(o->stride, stride, nd);
    return 0;
}

/* ---- comparing with the record ------------------------------------------------------- */

static bool dim_eq(sym_t a, sym_t b)
{
    if (a == b)
        return true;
    if (!a || !b)
        return false;
    return cgs_sym_equal_semantic(a, b);
}

/* "float32[2, 3] stride [3, 1] offset 0", or the report's short form for other values. */
static void describe_val(const struct cgs_val *v, struct cgs_buf *out)
{
    const struct cgs_tensor *t;
    uint32_t i;

    if (!v || v->kind != CGS_VAL_TENSOR || v->u.t.ndim == CGS_NDIM_UNKNOWN || !v->u.t.stride) {
        cgs_val_describe(v, out);
        return;
    }
    t = &v->u.t;
    cgs_val_describe(v, out);
    cgs_buf_addstr(out, " stride [");
    for (i = 0; i < t->ndim; i++) {
        if (i)
            cgs_buf_addstr(out, ", ");
        if (t->stride[i])
            cgs_sym_print(t->stride[i], out);
        else
            cgs_buf_addch(out, '?');
    }
    cgs_buf_addstr(out, "] offset ");
    if (t->storage_offset)
        cgs_sym_print(t->storage_offset, out);
    else
        cgs_buf_addch(out, '?');
}

static void describe(struct cgs_buf *why, const char *what, const struct cgs_val *a,
                     const struct cgs_val *b)
{
    if (!why)
        return;
    cgs_buf_addf(why, "%s: inferred ", what);
    describe_val(a, why);
    cgs_buf_addstr(why, ", recorded ");
    describe_val(b, why);
}

enum cgs_shape_cmp cgs_shapes_compare(const struct cgs_val *a, const struct cgs_val *b,
                                      struct cgs_buf *why)
{
    if (!b)
        return CGS_SHAPE_CMP_NONE;
    if (!a) {
        if (why)
            cgs_buf_addstr(why, "not inferred");
        return CGS_SHAPE_CMP_MISMATCH;
    }
    if (a->kind == CGS_VAL_LIST && b->kind == CGS_VAL_LIST) {
        enum cgs_shape_cmp worst = CGS_SHAPE_CMP_MATCH;
        uint32_t i;
        if (a->n != b->n) {
            describe(why, "list length differs", a, b);
            return CGS_SHAPE_CMP_MISMATCH;
        }
        for (i = 0; i < a->n; i++) {
            enum cgs_shape_cmp c = cgs_shapes_compare(&a->u.items[i], &b->u.items[i], NULL);
            if (c > worst)
                worst = c;
        }
        if (worst > CGS_SHAPE_CMP_MATCH)
            describe(why, worst == CGS_SHAPE_CMP_STRIDES ? "strides differ" : "values differ", a,
                     b);
        return worst;
    }
    if (a->kind == CGS_VAL_TENSOR && b->kind == CGS_VAL_TENSOR) {
        const struct cgs_tensor *x = &a->u.t, *y = &b->u.t;
        uint32_t i;
        if (x->ndim != y->ndim || x->dtype != y->dtype || x->ndim == CGS_NDIM_UNKNOWN)
            goto mismatch;
        for (i = 0; i < x->ndim; i++)
            if (!x->shape || !y->shape || !dim_eq(x->shape[i], y->shape[i]))
                goto mismatch;
        for (i = 0; i < x->ndim; i++)
            if (!x->stride || !y->stride || !dim_eq(x->stride[i], y->stride[i]))
                goto strides;
        if (y->storage_offset && !dim_eq(x->storage_offset, y->storage_offset))
            goto strides;
        return CGS_SHAPE_CMP_MATCH;
    strides:
        describe(why, "strides differ", a, b);
        return CGS_SHAPE_CMP_STRIDES;
    mismatch:
        describe(why, "shape or dtype differs", a, b);
        return CGS_SHAPE_CMP_MISMATCH;
    }
    if ((a->kind == CGS_VAL_SYMINT || a->kind == CGS_VAL_INT) &&
        (b->kind == CGS_VAL_SYMINT || b->kind == CGS_VAL_INT)) {
        if (a->kind == CGS_VAL_INT && b->kind == CGS_VAL_INT)
            return a->u.i == b->u.i ? CGS_SHAPE_CMP_MATCH : CGS_SHAPE_CMP_MISMATCH;
        if (a->kind == CGS_VAL_SYMINT && b->kind == CGS_VAL_SYMINT)
            return dim_eq(a->u.s.sym, b->u.s.sym) ? CGS_SHAPE_CMP_MATCH : CGS_SHAPE_CMP_MISMATCH;
        // a constant against a symbol: equal only if the symbol folds to it
        {
            const struct cgs_val *s = a->kind == CGS_VAL_SYMINT ? a : b;
            const struct cgs_val *c = a->kind == CGS_VAL_INT ? a : b;
            int64_t v;
            if (s->u.s.sym && cgs_sym_is_int(s->u.s.sym, &v) && v == c->u.i)
                return CGS_SHAPE_CMP_MATCH;
            describe(why, "value differs", a, b);
            return CGS_SHAPE_CMP_MISMATCH;
        }
    }
    // a data-dependent float or bool (item of a tensor) has no value to compare: the record
    // holds whatever the tracer saw, a number or a symbol
    if ((a->kind == CGS_VAL_SYMFLOAT &&
         (b->kind == CGS_VAL_SYMFLOAT || b->kind == CGS_VAL_FLOAT || b->kind == CGS_VAL_INT)) ||
        (a->kind == CGS_VAL_SYMBOOL && (b->kind == CGS_VAL_SYMBOOL || b->kind == CGS_VAL_BOOL)))
        return CGS_SHAPE_CMP_NONE;
    if (a->kind == b->kind) {
        switch (a->kind) {
        case CGS_VAL_NONE:
            return CGS_SHAPE_CMP_MATCH;
        case CGS_VAL_BOOL:
            return a->u.b == b->u.b ? CGS_SHAPE_CMP_MATCH : CGS_SHAPE_CMP_MISMATCH;
        default:
            return CGS_SHAPE_CMP_NONE;
        }
    }
    describe(why, "kind of value differs", a, b);
    return CGS_SHAPE_CMP_MISMATCH;
}

/* ---- more families (issue 11): conversions, ranges, matrix-vector products, views ---- */

/* x.double(), x.byte(), ...: the dtype is the schema's default (tools/ops/explicit.txt). */
RULE(convert_to)
{
    const struct cgs_tensor *t;
    const struct cgs_arg *a = A(sc, "dtype");
    enum cgs_dtype dt = a && a->kind == CGS_ARG_STR ? cgs_dtype_from_name(a->u.s) : dtype_of(a);

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (dt == CGS_DTYPE_UNKNOWN)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "conversion to an unknown dtype");
    if (dt == t->dtype)
        return same_as_first(sc, d); // .to() of the same dtype is the tensor itself
    return copy_like(sc, t, dt, NULL, NULL);
}

/* linspace / logspace(start, end, steps, ...): 1-D [steps], float32 unless dtype says. */
RULE(linspace)
{
    sym_t steps;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    const struct cgs_val *sv = node_val(sc, A(sc, "start")), *ev = node_val(sc, A(sc, "end"));
    const char *dev = str_of(A(sc, "device"));

    (void)n;
    if (int_of(sc, A(sc, "steps"), &steps))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "linspace: steps not known");
    if (!dev && sv && sv->kind == CGS_VAL_TENSOR)
        dev = sv->u.t.device;
    if (!dev && ev && ev->kind == CGS_VAL_TENSOR)
        dev = ev->u.t.device;
    out_dense(sc, 1, &steps, dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt, dev ? dev : "cpu",
              false);
    return 0;
}

/* max_unpool{2,3}d(self, indices, output_size, ...): self's leading dims + output_size;
 * torch.nn.functional.max_unpool{1,2,3}d (nsp spatial dims) may leave output_size out. */
static int max_unpool_with(struct cgs_shape_ctx *sc, uint32_t nsp, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    sym_t os[NDIM_MAX], shape[NDIM_MAX];
    uint32_t k, i;

    TRY(need_tensor(sc, "self", &t, d));
    if (is_none(A(sc, "output_size")) && find_param(sc, "kernel_size") >= 0) {
        // torch.nn.functional: (in - 1) * stride - 2 * padding + kernel over the last dims
        sym_t kk[3], st[3], pd[3];
        k = nsp;
        if (k == 0 || k > 3 || k > t->ndim)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "max_unpool: sizes not known");
        TRY(spatial_param(sc, "kernel_size", k, 1, kk, d));
        if (is_none(A(sc, "stride")))
            dimcpy(st, kk, k);
        else
            TRY(spatial_param(sc, "stride", k, 1, st, d));
        TRY(spatial_param(sc, "padding", k, 0, pd, d));
        for (i = 0; i < k; i++)
            os[i] = S_add(sc, S_sub(sc, S_mul(sc, S_sub(sc, t->shape[t->ndim - k + i], K(sc, 1)),
                                              st[i]),
                                    S_mul(sc, K(sc, 2), pd[i])),
                          kk[i]);
    } else {
        TRY(shape_param(sc, A(sc, "output_size"), os, &k, d));
    }
    if (k > t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "max_unpool: output_size longer than the rank");
    dimcpy(shape, t->shape, t->ndim);
    for (i = 0; i < k; i++)
        shape[t->ndim - k + i] = os[i];
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

RULE(max_unpool) { (void)n; return max_unpool_with(sc, 0, d); }
RULE(max_unpool_f1) { (void)n; return max_unpool_with(sc, 1, d); }
RULE(max_unpool_f2) { (void)n; return max_unpool_with(sc, 2, d); }
RULE(max_unpool_f3) { (void)n; return max_unpool_with(sc, 3, d); }

/* The matrix-vector family: contiguous results of the promoted dtype. */
static int matvec(struct cgs_shape_ctx *sc, const char *a, const char *b, int kind,
                  struct cgs_diag *d)
{
    const struct cgs_tensor *x, *y;
    sym_t shape[2];
    uint32_t nd;
    struct operand o[2] = {{0}};

    TRY(need_tensor(sc, a, &x, d));
    TRY(need_tensor(sc, b, &y, d));
    o[0].t = x, o[1].t = y;
    switch (kind) {
    case 0: // dot, vdot: a 0-dim tensor
        nd = 0;
        break;
    case 1: // mv, addmv: [rows]
        if (x->ndim != 2)
            return cgs_diag_set(d, CGS_E_INVAL, "expected a matrix");
        nd = 1, shape[0] = x->shape[0];
        break;
    case 2: // addr, outer: [len(a), len(b)]
        if (x->ndim != 1 || y->ndim != 1)
            return cgs_diag_set(d, CGS_E_INVAL, "expected vectors");
        nd = 2, shape[0] = x->shape[0], shape[1] = y->shape[0];
        break;
    default: // addbmm: the sum over the batch of [n, m] x [m, p]
        if (x->ndim != 3 || y->ndim != 3)
            return cgs_diag_set(d, CGS_E_INVAL, "expected batches of matrices");
        nd = 2, shape[0] = x->shape[1], shape[1] = y->shape[2];
        break;
    }
    out_dense(sc, nd, shape, result_type(o, 2), x->device, false);
    return 0;
}

RULE(dot) { (void)n; return matvec(sc, "self", "tensor", 0, d); }
RULE(vdot) { (void)n; return matvec(sc, "self", "other", 0, d); }
RULE(mv) { (void)n; return matvec(sc, "self", "vec", 1, d); }
RULE(addmv) { (void)n; return matvec(sc, "mat", "vec", 1, d); }
RULE(addr) { (void)n; return matvec(sc, "vec1", "vec2", 2, d); }
RULE(addbmm) { (void)n; return matvec(sc, "batch1", "batch2", 3, d); }

/* eye(n, m=n): [n, m], float32 unless dtype says. */
RULE(eye)
{
    sym_t shape[2];
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    if (int_of(sc, A(sc, "n"), &shape[0]))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "eye: n not known");
    if (is_none(A(sc, "m")))
        shape[1] = shape[0];
    else if (int_of(sc, A(sc, "m"), &shape[1]))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "eye: m not known");
    out_dense(sc, 2, shape, dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt, device_arg(sc),
              false);
    return 0;
}

/* diagonal(self, offset, dim1, dim2): a view, the diagonal as the last dim. */
static int diagonal_view(struct cgs_shape_ctx *sc, const struct cgs_tensor **tp,
                         struct cgs_tensor **op, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    uint32_t d1, d2, i, j = 0;
    int64_t off = 0, s1, s2, len;

    if (arg_tensor(sc, Ai(sc, 0), &t) != 0) // self, or linalg.diagonal's A
        return cgs_diag_set(d, CGS_E_UNKNOWN, "input 0 is not known");
    if (t->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "diagonal of a tensor of rank %u", t->ndim);
    TRY(dim_arg(sc, "dim1", t->ndim, &d1, d));
    TRY(dim_arg(sc, "dim2", t->ndim, &d2, d));
    if (!is_none(A(sc, "offset")) && !int_const(sc, A(sc, "offset"), &off))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "diagonal: offset not constant");
    if (d1 == d2)
        return cgs_diag_set(d, CGS_E_INVAL, "diagonal: dim1 and dim2 are the same");
    if (!cgs_sym_is_int(t->shape[d1], &s1) || !cgs_sym_is_int(t->shape[d2], &s2))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "diagonal of symbolic sizes is not tracked");
    len = off >= 0 ? (s1 < s2 - off ? s1 : s2 - off) : (s1 + off < s2 ? s1 + off : s2);
    if (len < 0)
        len = 0;
    o = out_view(sc, t, t->ndim - 1);
    for (i = 0; i < t->ndim; i++)
        if (i != d1 && i != d2) {
            o->shape[j] = t->shape[i];
            o->stride[j++] = t->stride[i];
        }
    o->shape[j] = K(sc, len);
    o->stride[j] = S_add(sc, t->stride[d1], t->stride[d2]);
    if (len > 0 && off)
        o->storage_offset = S_add(sc, o->storage_offset,
                                  off > 0 ? S_mul(sc, K(sc, off), t->stride[d2])
                                          : S_mul(sc, K(sc, -off), t->stride[d1]));
    *tp = t, *op = o;
    return 0;
}

RULE(diagonal)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;

    (void)n;
    return diagonal_view(sc, &t, &o, d);
}

RULE(diagonal_copy)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;

    (void)n;
    TRY(diagonal_view(sc, &t, &o, d));
    contiguous_strides(sc, o->ndim, o->shape, o->stride);
    o->storage_offset = K(sc, 0);
    return 0;
}

/* aminmax(self, *, dim, keepdim): (min, max), reductions of self's dtype. */
RULE(aminmax)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(reduce_shape(sc, t, A(sc, "dim"), bool_of(A(sc, "keepdim"), false), shape, &nd, d));
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], nd, shape, t->dtype, t->device, false);
    fill_dense(sc, &sc->out->u.items[1], nd, shape, t->dtype, t->device, false);
    return 0;
}

/* count_nonzero(self, dim): an int64 reduction. */
RULE(count_nonzero)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(reduce_shape(sc, t, A(sc, "dim"), false, shape, &nd, d));
    out_dense(sc, nd, shape, CGS_DTYPE_INT64, t->device, false);
    return 0;
}

/* norms (torch.norm, linalg.vector_norm): a reduction of the real dtype. */
RULE(norm)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(reduce_shape(sc, t, A(sc, "dim"), bool_of(A(sc, "keepdim"), false), shape, &nd, d));
    out_dense(sc, nd, shape, dt != CGS_DTYPE_UNKNOWN ? dt : real_of(t->dtype), t->device, false);
    return 0;
}

/* atleast_1d / atleast_2d of one tensor: a view with leading size-1 dims. */
static int atleast(struct cgs_shape_ctx *sc, uint32_t want, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    uint32_t add, i;

    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim >= want)
        return same_as_first(sc, d);
    add = want - t->ndim;
    o = out_view(sc, t, want);
    for (i = 0; i < t->ndim; i++) {
        o->shape[add + i] = t->shape[i];
        o->stride[add + i] = t->stride[i];
    }
    for (i = add; i-- > 0;) {
        // unsqueeze(0) / reshape: size * stride of the dim after, 1 at the end
        o->shape[i] = K(sc, 1);
        o->stride[i] = i + 1 < want ? S_mul(sc, o->shape[i + 1], o->stride[i + 1]) : K(sc, 1);
    }
    return 0;
}

RULE(atleast_1d) { (void)n; return atleast(sc, 1, d); }
RULE(atleast_2d) { (void)n; return atleast(sc, 2, d); }

/* ---- linear algebra (torch's meta kernels for LAPACK/cuSOLVER results) ---------------- */

/*
 * make_contiguous_strides_for(shape, row_major): contiguous strides (sizes of 0 counted as 1),
 * or a contiguous batch of column-major matrices: the last two dims (1, max(m, 1)).
 */
static void lapack_fill(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t nd,
                        const sym_t *shape, enum cgs_dtype dt, const char *dev, bool col_major)
{
    struct cgs_tensor *t = fill_dense(sc, v, nd, shape, dt, dev, false);
    sym_t mult = K(sc, 1);

    for (uint32_t i = nd; i-- > 0;) {
        t->stride[i] = mult;
        mult = S_mul(sc, mult, S_max1(sc, shape[i]));
    }
    if (col_major && nd >= 2) {
        t->stride[nd - 2] = K(sc, 1);
        t->stride[nd - 1] = S_max1(sc, shape[nd - 2]);
    }
}

static int square_input(struct cgs_shape_ctx *sc, const char *name, const struct cgs_tensor **t,
                        struct cgs_diag *d)
{
    // the matrix is the first argument, whatever its name (A, self, input)
    (void)name;
    if (arg_tensor(sc, Ai(sc, 0), t) != 0)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "input 0 is not known");
    if ((*t)->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "expected a matrix or a batch of matrices");
    return 0;
}

static enum cgs_dtype complex_of_any(enum cgs_dtype t)
{
    return dt_cat(t) == 3 ? t : complex_of(t);
}

/* _linalg_eigh(A, UPLO, compute_v): (eigenvalues [..., n] real, eigenvectors column-major). */
RULE(linalg_eigh)
{
    const struct cgs_tensor *a;
    sym_t zero = K(sc, 0);

    (void)n;
    TRY(square_input(sc, "A", &a, d));
    sc->out = new_list(sc, 2);
    lapack_fill(sc, &sc->out->u.items[0], a->ndim - 1, a->shape, real_of(a->dtype), a->device,
                false);
    if (bool_of(A(sc, "compute_v"), true))
        lapack_fill(sc, &sc->out->u.items[1], a->ndim, a->shape, a->dtype, a->device, true);
    else
        lapack_fill(sc, &sc->out->u.items[1], 1, &zero, a->dtype, a->device, false);
    return 0;
}

/* linalg_eig(A): complex (values [..., n], vectors: row-major on CUDA, column-major else). */
RULE(linalg_eig)
{
    const struct cgs_tensor *a;
    enum cgs_dtype dt;
    bool cuda;

    (void)n;
    TRY(square_input(sc, "self", &a, d));
    dt = complex_of_any(a->dtype);
    cuda = a->device && !strncmp(a->device, "cuda", 4);
    sc->out = new_list(sc, 2);
    lapack_fill(sc, &sc->out->u.items[0], a->ndim - 1, a->shape, dt, a->device, false);
    lapack_fill(sc, &sc->out->u.items[1], a->ndim, a->shape, dt, a->device, !cuda);
    return 0;
}

/* cholesky_ex / inv_ex: (a column-major matrix like A, int32 info per batch). */
RULE(linalg_factor_info)
{
    const struct cgs_tensor *a;

    (void)n;
    TRY(square_input(sc, sc->p[0].name_len == 1 ? "A" : "self", &a, d));
    sc->out = new_list(sc, 2);
    lapack_fill(sc, &sc->out->u.items[0], a->ndim, a->shape, a->dtype, a->device, true);
    lapack_fill(sc, &sc->out->u.items[1], a->ndim - 2, a->shape, CGS_DTYPE_INT32, a->device,
                false);
    return 0;
}

/* lu_factor_ex / ldl_factor_ex: (factors column-major, pivots int32, info int32). */
RULE(linalg_factor_pivots)
{
    const struct cgs_tensor *a;
    sym_t piv[NDIM_MAX];
    int64_t m, k;

    (void)n;
    TRY(square_input(sc, sc->p[0].name_len == 1 ? "A" : "self", &a, d));
    dimcpy(piv, a->shape, a->ndim - 1);
    // pivots: [..., min(m, n)]
    if (cgs_sym_is_int(a->shape[a->ndim - 2], &m) && cgs_sym_is_int(a->shape[a->ndim - 1], &k))
        piv[a->ndim - 2] = K(sc, m < k ? m : k);
    else if (a->shape[a->ndim - 2] != a->shape[a->ndim - 1])
        return cgs_diag_set(d, CGS_E_UNKNOWN, "min of symbolic sizes is not tracked");
    sc->out = new_list(sc, 3);
    lapack_fill(sc, &sc->out->u.items[0], a->ndim, a->shape, a->dtype, a->device, true);
    lapack_fill(sc, &sc->out->u.items[1], a->ndim - 1, piv, CGS_DTYPE_INT32, a->device, false);
    lapack_fill(sc, &sc->out->u.items[2], a->ndim - 2, a->shape, CGS_DTYPE_INT32, a->device,
                false);
    return 0;
}

static int min_dim(struct cgs_shape_ctx *sc, sym_t a, sym_t b, sym_t *out, struct cgs_diag *d)
{
    int64_t x, y;

    if (cgs_sym_is_int(a, &x) && cgs_sym_is_int(b, &y)) {
        *out = K(sc, x < y ? x : y);
        return 0;
    }
    if (a == b) {
        *out = a;
        return 0;
    }
    return cgs_diag_set(d, CGS_E_UNKNOWN, "min of symbolic sizes is not tracked");
}

/* linalg_qr(A, mode): Q and R column-major; mode 'reduced', 'complete' or 'r'. */
RULE(linalg_qr)
{
    const struct cgs_tensor *a;
    const char *mode = str_of(A(sc, "mode"));
    sym_t qs[NDIM_MAX], rs[NDIM_MAX], k, zero = K(sc, 0);
    bool compute_q = !mode || strcmp(mode, "r"), reduced = !mode || !strcmp(mode, "reduced");
    uint32_t nd;

    (void)n;
    TRY(square_input(sc, "A", &a, d));
    nd = a->ndim;
    TRY(min_dim(sc, a->shape[nd - 2], a->shape[nd - 1], &k, d));
    dimcpy(qs, a->shape, nd);
    dimcpy(rs, a->shape, nd);
    qs[nd - 1] = reduced ? k : a->shape[nd - 2];
    rs[nd - 2] = reduced || !compute_q ? k : a->shape[nd - 2];
    sc->out = new_list(sc, 2);
    if (compute_q)
        lapack_fill(sc, &sc->out->u.items[0], nd, qs, a->dtype, a->device, true);
    else
        lapack_fill(sc, &sc->out->u.items[0], 1, &zero, a->dtype, a->device, false);
    lapack_fill(sc, &sc->out->u.items[1], nd, rs, a->dtype, a->device, true);
    return 0;
}

/* _linalg_svd(A, full_matrices, compute_uv, driver): U (column-major), S (real), Vh. */
RULE(linalg_svd)
{
    const struct cgs_tensor *a;
    sym_t us[NDIM_MAX], vs[NDIM_MAX], ss[NDIM_MAX], k, zero = K(sc, 0);
    bool full = bool_of(A(sc, "full_matrices"), false), cuda;
    uint32_t nd;

    (void)n;
    TRY(square_input(sc, "A", &a, d));
    nd = a->ndim;
    TRY(min_dim(sc, a->shape[nd - 2], a->shape[nd - 1], &k, d));
    cuda = a->device && !strncmp(a->device, "cuda", 4);
    dimcpy(us, a->shape, nd);
    dimcpy(vs, a->shape, nd);
    dimcpy(ss, a->shape, nd - 1);
    us[nd - 1] = full ? a->shape[nd - 2] : k;
    vs[nd - 2] = full ? a->shape[nd - 1] : k;
    ss[nd - 2] = k;
    sc->out = new_list(sc, 3);
    if (bool_of(A(sc, "compute_uv"), true)) {
        lapack_fill(sc, &sc->out->u.items[0], nd, us, a->dtype, a->device, true);
        lapack_fill(sc, &sc->out->u.items[2], nd, vs, a->dtype, a->device, !cuda);
    } else {
        lapack_fill(sc, &sc->out->u.items[0], 1, &zero, a->dtype, a->device, false);
        lapack_fill(sc, &sc->out->u.items[2], 1, &zero, a->dtype, a->device, false);
    }
    lapack_fill(sc, &sc->out->u.items[1], nd - 1, ss, real_of(a->dtype), a->device, false);
    return 0;
}

/* _linalg_slogdet(A): (sign, logabsdet real, LU column-major, pivots int32). */
RULE(linalg_slogdet)
{
    const struct cgs_tensor *a;

    (void)n;
    TRY(square_input(sc, "A", &a, d));
    sc->out = new_list(sc, 4);
    lapack_fill(sc, &sc->out->u.items[0], a->ndim - 2, a->shape, a->dtype, a->device, false);
    lapack_fill(sc, &sc->out->u.items[1], a->ndim - 2, a->shape, real_of(a->dtype), a->device,
                false);
    lapack_fill(sc, &sc->out->u.items[2], a->ndim, a->shape, a->dtype, a->device, true);
    lapack_fill(sc, &sc->out->u.items[3], a->ndim - 1, a->shape, CGS_DTYPE_INT32, a->device,
                false);
    return 0;
}

/* _linalg_det(A): (det, LU column-major, pivots int32). */
RULE(linalg_det)
{
    const struct cgs_tensor *a;

    (void)n;
    TRY(square_input(sc, "A", &a, d));
    sc->out = new_list(sc, 3);
    lapack_fill(sc, &sc->out->u.items[0], a->ndim - 2, a->shape, a->dtype, a->device, false);
    lapack_fill(sc, &sc->out->u.items[1], a->ndim, a->shape, a->dtype, a->device, true);
    lapack_fill(sc, &sc->out->u.items[2], a->ndim - 1, a->shape, CGS_DTYPE_INT32, a->device,
                false);
    return 0;
}

/* _linalg_solve_ex(A, B, left): (result, LU, pivots, info); batch dims equal (broadcasting of
 * batch dims is not tracked). */
RULE(linalg_solve_ex)
{
    const struct cgs_tensor *a, *b;
    sym_t rs[NDIM_MAX];
    bool left = bool_of(A(sc, "left"), true), vec;
    uint32_t i, rn;

    (void)n;
    TRY(square_input(sc, "A", &a, d));
    TRY(need_tensor(sc, "B", &b, d));
    // linalg_solve_is_vector_rhs: B is a vector, or a batch of vectors matching A
    vec = b->ndim == 1;
    if (!vec && b->ndim == a->ndim - 1) {
        vec = true;
        for (i = 0; i < b->ndim; i++)
            vec = vec && dim_eq(b->shape[i], a->shape[i]);
    }
    rn = vec ? a->ndim - 1 : a->ndim;
    if (!vec && b->ndim != a->ndim)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "solve with broadcast batch dims is not tracked");
    for (i = 0; i + 2 < a->ndim; i++)
        if (!dim_eq(a->shape[i], vec ? b->shape[i] : b->shape[i]))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "solve with broadcast batch dims is not tracked");
    if (vec) {
        dimcpy(rs, a->shape, a->ndim - 1);
        rs[rn - 1] = b->shape[b->ndim - 1];
    } else {
        dimcpy(rs, b->shape, b->ndim);
    }
    sc->out = new_list(sc, 4);
    lapack_fill(sc, &sc->out->u.items[0], rn, rs, b->dtype, b->device, left);
    lapack_fill(sc, &sc->out->u.items[1], a->ndim, a->shape, a->dtype, a->device, true);
    lapack_fill(sc, &sc->out->u.items[2], a->ndim - 1, a->shape, CGS_DTYPE_INT32, a->device,
                false);
    lapack_fill(sc, &sc->out->u.items[3], a->ndim - 2, a->shape, CGS_DTYPE_INT32, a->device,
                false);
    return 0;
}

/* The composite linalg functions: one or a few results of the primitives above. */
static int take_items(struct cgs_shape_ctx *sc, uint32_t first, uint32_t count)
{
    struct cgs_val *l;

    if (!sc->out || sc->out->kind != CGS_VAL_LIST || first + count > sc->out->n)
        return -CGS_E_UNKNOWN;
    if (count == 1) {
        sc->out = &sc->out->u.items[first];
        return 0;
    }
    l = new_list(sc, count);
    for (uint32_t i = 0; i < count; i++)
        l->u.items[i] = sc->out->u.items[first + i];
    sc->out = l;
    return 0;
}

/* A rule that keeps `count` results, from `first`, of another rule. */
#define TAKE_OF(name, rule, first, count)                                                          \
    RULE(name)                                                                                     \
    {                                                                                              \
        TRY(cgs_shape_rule_##rule(n, sc, d));                                                      \
        return take_items(sc, first, count);                                                       \
    }
TAKE_OF(linalg_eigvalsh, linalg_eigh, 0, 1)
TAKE_OF(linalg_eigvals, linalg_eig, 0, 1)
TAKE_OF(linalg_first_of_factor, linalg_factor_info, 0, 1) /* linalg_inv, linalg_cholesky */
TAKE_OF(linalg_lu_factor, linalg_factor_pivots, 0, 2)
TAKE_OF(linalg_slogdet2, linalg_slogdet, 0, 2)
TAKE_OF(linalg_det1, linalg_det, 0, 1)
TAKE_OF(linalg_solve1, linalg_solve_ex, 0, 1)
TAKE_OF(linalg_svdvals, linalg_svd, 1, 1)
TAKE_OF(argsort, sort, 1, 1)
TAKE_OF(ldl_factor, linalg_factor_pivots, 0, 2)
#undef TAKE_OF

/* ---- higher-order ops: their bodies entered as torch traces them ---------------------- */

/*
 * The subgraph a get_attr node of g names: keys are paths from the root ("submod_1.body"), so
 * inside a subgraph its own name comes first. NULL when it names none.
 */
static struct cgs_graph *subgraph_of(const struct cgs_graph *g, const struct cgs_node *gn)
{
    const struct cgs_graph *root = g;
    struct cgs_graph *sub;
    char key[512];

    if (!gn || gn->op != CGS_NODE_GET_ATTR || !gn->target)
        return NULL;
    while (root->parent)
        root = root->parent;
    if (g->parent) {
        snprintf(key, sizeof(key), "%s.%s", g->name, gn->target);
        if ((sub = cgs_graph_subgraph(root, key)))
            return sub;
    }
    return cgs_graph_subgraph(root, gn->target);
}

/* The body a higher-order op's argument names. */
static struct cgs_graph *body_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a)
{
    return a && a->kind == CGS_ARG_NODE ? subgraph_of(sc->g, a->u.node) : NULL;
}

/*
 * Enter body with the operands' values args[first..first+count) (a list argument is spread),
 * and give the HOP node the body's outputs (a tuple, as the HOP returns).
 */
static int enter_body(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_graph *body,
                      const struct cgs_arg *ops, uint32_t count, struct cgs_diag *d)
{
    const struct cgs_val **in;
    struct cgs_shapes_opts o = {0};
    struct cgs_shapes *res;
    const struct cgs_node *out = NULL;
    uint32_t i, k = 0;

    const struct cgs_shapes_nest *outer = sc->opts ? sc->opts->nest : NULL;
    struct cgs_shapes_nest nest = {sc->g, outer, outer ? outer->root : sc};

    (void)n;
    if (!body)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "the op's body is not in the graph (subgraphs)");
    for (const struct cgs_shapes_nest *x = &nest; x; x = x->outer)
        if (x->g == body)
            return cgs_diag_set(d, CGS_E_SCHEMA, "the op's body calls itself (through '%s'): "
                                "a graph's bodies cannot recurse",
                                body->name ? body->name : "?");
    if (sc->opts && sc->opts->depth >= 32)
        return cgs_diag_set(d, CGS_E_LIMIT, "bodies nested more than 32 deep");
    if (++nest.root->bodies_entered > CGS_SHAPES_MAX_BODIES)
        return cgs_diag_set(d, CGS_E_LIMIT, "more than %d bodies entered (higher-order ops "
                            "inside the bodies of others)", CGS_SHAPES_MAX_BODIES);
    in = cgs_arena_calloc(sc->ar, count ? count : 1, sizeof(*in));
    for (i = 0; i < count; i++)
        in[k++] = node_val(sc, &ops[i]);
    o.reinfer = sc->opts ? sc->opts->reinfer : true;
    o.decls = sc->decls;
    o.inputs = in;
    o.n_inputs = k;
    o.depth = (sc->opts ? sc->opts->depth : 0) + 1;
    o.nest = &nest;
    TRY(cgs_shapes_infer(body, &o, &res, d));
    for (i = 0; i < body->n_nodes; i++)
        if (body->nodes[i]->op == CGS_NODE_OUTPUT)
            out = body->nodes[i];
    if (!out || out->n_args != 1)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "the op's body has no output");
    {
        const struct cgs_arg *r = &out->args[0];
        uint32_t cnt = r->kind == CGS_ARG_LIST ? r->n : 1;
        struct cgs_val *l = new_list(sc, cnt);
        if (!res->summary.validated && res->summary.nodes)
            for (i = 0; i < body->n_nodes; i++)
                if (res->nodes[i].status != CGS_SHAPE_OK)
                    return cgs_diag_set(d, CGS_E_UNKNOWN, "in the body: %s: %s",
                                        body->nodes[i]->name,
                                        res->nodes[i].reason ? res->nodes[i].reason : "not ok");
        for (i = 0; i < cnt; i++) {
            const struct cgs_arg *it = r->kind == CGS_ARG_LIST ? &r->u.items[i] : r;
            const struct cgs_val *v = it->kind == CGS_ARG_NODE && it->u.node
                                          ? res->nodes[it->u.node->index].val
                                          : NULL;
            if (!v)
                return cgs_diag_set(d, CGS_E_UNKNOWN, "output %u of the op's body is not known",
                                    i);
            l->u.items[i] = *v;
        }
        sc->out = l;
    }
    return 0;
}

/* wrap_with_set_grad_enabled(enabled, body, *args), wrap_with_autocast(device, dtype,
 * enabled, cache, body, *args), invoke_subgraph(body, identifier, *args): body(*args). */
RULE(hop_body)
{
    uint32_t i;

    for (i = 0; i < n->n_args; i++) {
        struct cgs_graph *b = body_of(sc, &n->args[i]);
        if (!b)
            continue;
        // invoke_subgraph: (body, identifier, *operands)
        if (i == 0 && n->n_args >= 2 && n->args[1].kind == CGS_ARG_STR)
            i++;
        return enter_body(sc, n, b, n->args + i + 1, n->n_args - i - 1, d);
    }
    return cgs_diag_set(d, CGS_E_UNKNOWN, "no body among the op's arguments");
}

/* wrap_with_autocast: the body's dtypes change under an enabled autocast, which cgscope does
 * not model; a disabled one is a plain body. */
RULE(hop_autocast)
{
    if (n->n_args >= 3 && n->args[2].kind == CGS_ARG_BOOL && n->args[2].u.b)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "autocast regions are not tracked");
    return cgs_shape_rule_hop_body(n, sc, d);
}

/* cond(pred, true_fn, false_fn, operands): the outputs of true_fn (both branches agree). */
RULE(hop_cond)
{
    if (n->n_args < 4 || n->args[3].kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "cond: expected (pred, true_fn, false_fn, operands)");
    return enter_body(sc, n, body_of(sc, &n->args[1]), n->args[3].u.items, n->args[3].n, d);
}

/* while_loop(cond_fn, body_fn, carried_inputs, additional_inputs): the body's outputs. */
RULE(hop_while)
{
    const struct cgs_arg *ops;
    struct cgs_arg *all;
    uint32_t nc, na, i;

    if (n->n_args < 3 || n->args[2].kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "while_loop: expected (cond, body, carried, "
                                              "additional)");
    nc = n->args[2].n;
    na = n->n_args >= 4 && n->args[3].kind == CGS_ARG_LIST ? n->args[3].n : 0;
    all = cgs_arena_calloc(sc->ar, nc + na ? nc + na : 1, sizeof(*all));
    for (i = 0; i < nc; i++)
        all[i] = n->args[2].u.items[i];
    for (i = 0; i < na; i++)
        all[nc + i] = n->args[3].u.items[i];
    ops = all;
    return enter_body(sc, n, body_of(sc, &n->args[1]), ops, nc + na, d);
}

/* Whether the op a higher-order op wraps returns nothing: declared "none" (lib/opdecl.h), or
 * the registry's NOVALUE. */
static bool wrapped_op_returns_none(const struct cgs_shape_ctx *sc, const char *target)
{
    const struct cgs_decl *dc = cgs_opdecls_find(sc->decls, target);

    return (dc && dc->n_outs == 1 && dc->outs[0].none) ||
           cgs_op_target_has(target, CGS_OPF_NOVALUE);
}

/* clone_preserve_strides(a): a fresh tensor with a's shape and strides at offset 0 (torch's
 * torch._prims_common.clone_preserve_strides). 0, or -1 when a is not a known tensor. */
static int clone_preserve_strides(struct cgs_shape_ctx *sc, struct cgs_val *out,
                                  const struct cgs_arg *a)
{
    const struct cgs_val *b = node_val(sc, a);
    struct cgs_tensor *o;

    if (!b || b->kind != CGS_VAL_TENSOR || !tensor_known(&b->u.t))
        return -1;
    o = copy_tensor(sc, out, &b->u.t, b->u.t.ndim);
    dimcpy(o->shape, b->u.t.shape, o->ndim);
    dimcpy(o->stride, b->u.t.stride, o->ndim);
    o->storage_offset = K(sc, 0);
    return 0;
}

/* A wrapped op's result must be None (declared, or the registry's NOVALUE) for an
 * auto_functionalized to be followed: 0, or the message saying to declare it. */
static int wrapped_none_or_say(const struct cgs_shape_ctx *sc, const char *target,
                               struct cgs_diag *d)
{
    if (wrapped_op_returns_none(sc, target))
        return 0;
    return cgs_diag_set(d, CGS_E_UNKNOWN,
                        "auto_functionalized: the result of '%s' is not known (declare it with "
                        "--ops)",
                        target);
}

/* auto_functionalized_v2(op, **kwargs, _all_bases): (the op's result, then each base as a
 * fresh copy with its strides). The op's result comes from a declaration (lib/opdecl.h) or
 * the registry's "returns None"; otherwise it is not known. */
RULE(hop_auto_functionalized_v2)
{
    const struct cgs_arg *op = Ai(sc, 0), *bases = NULL;
    const char *target = op && (op->kind == CGS_ARG_REPR || op->kind == CGS_ARG_STR) ? op->u.s : NULL;
    struct cgs_val *l;
    uint32_t i;

    bases = cgs_node_kwarg(n, "_all_bases");
    if (!target || !bases || bases->kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "auto_functionalized: op or bases not known");
    TRY(wrapped_none_or_say(sc, target, d));
    l = new_list(sc, 1 + bases->n);
    l->u.items[0].kind = CGS_VAL_NONE;
    for (i = 0; i < bases->n; i++)
        if (clone_preserve_strides(sc, &l->u.items[1 + i], &bases->u.items[i]))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "auto_functionalized: base %u not known", i);
    sc->out = l;
    return 0;
}

/* auto_functionalized(op, **kwargs), torch's v1: (the op's result, then a copy of each argument
 * the op mutates, in its schema's order, strides kept). Which arguments it mutates comes from
 * a declaration ("mutates y", lib/opdecl.h). */
RULE(hop_auto_functionalized)
{
    const struct cgs_arg *op = Ai(sc, 0);
    const char *target = op && (op->kind == CGS_ARG_REPR || op->kind == CGS_ARG_STR) ? op->u.s : NULL;
    const struct cgs_decl *dc = target ? cgs_opdecls_find(sc->decls, target) : NULL;
    struct cgs_val *l;

    if (!target)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "auto_functionalized: the op is not known");
    if (!dc || !dc->n_mutates)
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "auto_functionalized: which arguments '%s' mutates is not known "
                            "(declare it with --ops: '%s: none mutates ARG')",
                            target, target);
    TRY(wrapped_none_or_say(sc, target, d));
    l = new_list(sc, 1 + dc->n_mutates);
    l->u.items[0].kind = CGS_VAL_NONE;
    for (uint32_t i = 0; i < dc->n_mutates; i++) {
        const struct cgs_arg *a = cgs_node_kwarg(n, dc->mutates[i]);
        if (is_none(a))
            l->u.items[1 + i].kind = CGS_VAL_NONE;
        else if (clone_preserve_strides(sc, &l->u.items[1 + i], a))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "auto_functionalized: argument '%s' not known",
                                dc->mutates[i]);
    }
    sc->out = l;
    return 0;
}

/* triton_kernel_wrapper_functional(kernel_idx, constant_args_idx, grid, tma_descriptor_metadata,
 * kwargs, tensors_to_clone): {name: a copy of kwargs[name], strides kept} for the names in
 * tensors_to_clone, in kwargs' order; held as a list, which getitem reads by name through
 * triton_clone_index. */

/* The name of the kernel argument at pair i of a kwargs dict when it is one of
 * tensors_to_clone (a list of names), else NULL. */
static const char *cloned_arg(const struct cgs_arg *kw, const struct cgs_arg *clone, uint32_t i)
{
    const struct cgs_arg *key = &kw->u.items[2 * i];

    if (key->kind != CGS_ARG_STR || !clone || clone->kind != CGS_ARG_LIST)
        return NULL;
    for (uint32_t j = 0; j < clone->n; j++)
        if (clone->u.items[j].kind == CGS_ARG_STR && !strcmp(clone->u.items[j].u.s, key->u.s))
            return key->u.s;
    return NULL;
}

static int triton_clone_index(const struct cgs_node *n, const char *key)
{
    const struct cgs_arg *kw = cgs_node_kwarg(n, "kwargs"), *clone = cgs_node_kwarg(n, "tensors_to_clone");
    int k = 0;

    if (!kw || kw->kind != CGS_ARG_DICT)
        return -1;
    for (uint32_t i = 0; i < kw->n / 2; i++) {
        const char *name = cloned_arg(kw, clone, i);
        if (!name)
            continue;
        if (!strcmp(name, key))
            return k;
        k++;
    }
    return -1;
}

RULE(hop_triton_functional)
{
    const struct cgs_arg *kw = cgs_node_kwarg(n, "kwargs"), *clone = cgs_node_kwarg(n, "tensors_to_clone");
    struct cgs_val *l;
    uint32_t i, k = 0, count = 0;

    if (!kw || kw->kind != CGS_ARG_DICT || !clone || clone->kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "triton_kernel_wrapper_functional: expected a "
                                              "kwargs dict and tensors_to_clone");
    for (i = 0; i < kw->n / 2; i++)
        count += cloned_arg(kw, clone, i) != NULL;
    l = new_list(sc, count);
    for (i = 0; i < kw->n / 2; i++) {
        const char *name = cloned_arg(kw, clone, i);
        if (!name)
            continue;
        if (clone_preserve_strides(sc, &l->u.items[k++], &kw->u.items[2 * i + 1]))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "triton kernel argument '%s' not known", name);
    }
    sc->out = l;
    return 0;
}

/* with_effects(token, op, *args): (a new token like the old one, the op's result); the result
 * comes from a declaration or the registry's "returns nothing". */
RULE(hop_with_effects)
{
    const struct cgs_val *tok;
    const struct cgs_arg *op = n->n_args >= 2 ? &n->args[1] : NULL;
    const char *target = op && (op->kind == CGS_ARG_REPR || op->kind == CGS_ARG_STR) ? op->u.s : NULL;
    struct cgs_val *l;

    if (n->n_args < 2 || !target)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "with_effects: expected (token, op, *args)");
    tok = node_val(sc, &n->args[0]);
    if (!tok)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "with_effects: the token is not known");
    if (!wrapped_op_returns_none(sc, target))
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "with_effects: the result of '%s' is not known (declare it with --ops)",
                            target);
    l = new_list(sc, 2);
    l->u.items[0] = *tok;
    l->u.items[1].kind = CGS_VAL_NONE;
    sc->out = l;
    return 0;
}

/* ---- losses, shuffles, cumulative ops, complex views ---------------------------------- */

/*
 * A loss's reduction: ATen's enum (0 none, 1 mean, 2 sum) or torch.nn.functional's string
 * ("none", "sum", anything else reduces like "mean"); the legacy size_average / reduce
 * arguments are not tracked.
 */
static int loss_reduction(struct cgs_shape_ctx *sc, int64_t *red, struct cgs_diag *d)
{
    const struct cgs_arg *ra = A(sc, "reduction");
    const char *rs = str_of(ra);

    *red = 1;
    if (rs)
        *red = !strcmp(rs, "none") ? 0 : !strcmp(rs, "sum") ? 2 : 1;
    else if (!is_none(ra) && !int_const(sc, ra, red))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "loss: reduction not constant");
    if (!is_none(A(sc, "size_average")) || !is_none(A(sc, "reduce")))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "loss: legacy size_average/reduce");
    return 0;
}

/* Pointwise losses (self, target, ..., reduction): elementwise when reduction is 0 (none),
 * else a 0-dim tensor. */
RULE(pointwise_loss)
{
    struct operand o[2];
    uint32_t cnt;
    int64_t red;
    enum cgs_dtype dt;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t)
        return cgs_diag_set(d, CGS_E_INVAL, "loss: expected self and target tensors");
    TRY(loss_reduction(sc, &red, d));
    dt = result_type(o, 2);
    if (red != 0) {
        out_dense(sc, 0, NULL, dt, o[0].t->device, false);
        return 0;
    }
    return elementwise(sc, o, 2, dt, false, d);
}

/* pixel_shuffle(self, r) / pixel_unshuffle(self, r): contiguous. */
static int pixel_shuffle_with(struct cgs_shape_ctx *sc, bool up, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX], r, r2;
    int64_t rv;
    uint32_t nd;

    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim < 3)
        return cgs_diag_set(d, CGS_E_INVAL, "pixel shuffle of rank %u", t->ndim);
    if (!int_const(sc, A(sc, up ? "upscale_factor" : "downscale_factor"), &rv) || rv <= 0)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "pixel shuffle: factor not constant");
    nd = t->ndim;
    r = K(sc, rv), r2 = K(sc, rv * rv);
    dimcpy(shape, t->shape, nd);
    if (up) {
        shape[nd - 3] = S_div(sc, t->shape[nd - 3], r2);
        shape[nd - 2] = S_mul(sc, t->shape[nd - 2], r);
        shape[nd - 1] = S_mul(sc, t->shape[nd - 1], r);
    } else {
        shape[nd - 3] = S_mul(sc, t->shape[nd - 3], r2);
        shape[nd - 2] = S_div(sc, t->shape[nd - 2], r);
        shape[nd - 1] = S_div(sc, t->shape[nd - 1], r);
    }
    out_dense(sc, nd, shape, t->dtype, t->device, false);
    return 0;
}

RULE(pixel_shuffle) { (void)n; return pixel_shuffle_with(sc, true, d); }
RULE(pixel_unshuffle) { (void)n; return pixel_shuffle_with(sc, false, d); }

/* A fresh contiguous tensor of self's shape and dtype (channel_shuffle, ...). */
RULE(like_contiguous)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    out_dense(sc, t->ndim, t->shape, t->dtype, t->device, false);
    return 0;
}

/* cummax / cummin(self, dim): (values, int64 indices), self's shape. */
RULE(cum_pair)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    pair_out(sc, t, t->ndim, t->shape);
    return 0;
}

/* diag_embed(self, offset, dim1, dim2): two dims of size n + |offset| from the last dim. */
RULE(diag_embed)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX], len;
    int64_t off = 0;
    uint32_t nd, d1, d2, i, j = 0;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim == 0 || t->ndim + 1 > NDIM_MAX)
        return cgs_diag_set(d, CGS_E_INVAL, "diag_embed of rank %u", t->ndim);
    nd = t->ndim + 1;
    TRY(dim_arg(sc, "dim1", nd, &d1, d));
    TRY(dim_arg(sc, "dim2", nd, &d2, d));
    if (!is_none(A(sc, "offset")) && !int_const(sc, A(sc, "offset"), &off))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "diag_embed: offset not constant");
    if (d1 == d2)
        return cgs_diag_set(d, CGS_E_INVAL, "diag_embed: dim1 and dim2 are the same");
    len = S_add(sc, t->shape[t->ndim - 1], K(sc, off < 0 ? -off : off));
    for (i = 0; i < nd; i++)
        shape[i] = i == d1 || i == d2 ? len : t->shape[j++];
    out_dense(sc, nd, shape, t->dtype, t->device, false);
    return 0;
}

/* bucketize(self, boundaries, out_int32): indices of self's shape, int64 (int32). */
RULE(bucketize)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    out_dense(sc, t->ndim, t->shape,
              bool_of(A(sc, "out_int32"), false) ? CGS_DTYPE_INT32 : CGS_DTYPE_INT64, t->device,
              false);
    return 0;
}

/* dist(self, other, p): a 0-dim tensor of the promoted dtype. */
RULE(dist)
{
    struct operand o[2];
    uint32_t cnt;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t)
        return cgs_diag_set(d, CGS_E_INVAL, "dist: expected two tensors");
    out_dense(sc, 0, NULL, real_of(result_type(o, 2)), o[0].t->device, false);
    return 0;
}

/* linalg_cross(self, other, dim): the broadcast shape, contiguous (meta: new_empty). */
RULE(linalg_cross)
{
    struct operand o[2];
    sym_t shape[NDIM_MAX];
    uint32_t cnt, nd;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "cross: expected two tensors");
    TRY(broadcast(sc, o, 2, shape, &nd, d));
    out_dense(sc, nd, shape, result_type(o, 2), o[0].t->device, false);
    return 0;
}

/* view_as_real: complex [...] -> real [..., 2]; view_as_complex: the inverse. */
RULE(view_as_real)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (dt_cat(t->dtype) != 3 || t->ndim + 1 > NDIM_MAX)
        return cgs_diag_set(d, CGS_E_INVAL, "view_as_real of a non-complex tensor");
    o = out_view(sc, t, t->ndim + 1);
    o->dtype = real_of(t->dtype);
    for (uint32_t i = 0; i < t->ndim; i++) {
        o->shape[i] = t->shape[i];
        o->stride[i] = S_mul(sc, t->stride[i], K(sc, 2));
    }
    o->shape[t->ndim] = K(sc, 2);
    o->stride[t->ndim] = K(sc, 1);
    o->storage_offset = S_mul(sc, t->storage_offset, K(sc, 2));
    return 0;
}

RULE(view_as_complex)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim == 0 || dt_cat(t->dtype) != 2)
        return cgs_diag_set(d, CGS_E_INVAL, "view_as_complex of a non-float tensor");
    o = out_view(sc, t, t->ndim - 1);
    o->dtype = complex_of(t->dtype);
    for (uint32_t i = 0; i + 1 < t->ndim; i++) {
        o->shape[i] = t->shape[i];
        o->stride[i] = S_div(sc, t->stride[i], K(sc, 2));
    }
    o->storage_offset = S_div(sc, t->storage_offset, K(sc, 2));
    return 0;
}

/* narrow_copy(self, dim, start, length): contiguous of the narrowed shape. */
RULE(narrow_copy)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX], len;
    uint32_t dim;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    if (int_of(sc, A(sc, "length"), &len))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "narrow_copy: length not known");
    dimcpy(shape, t->shape, t->ndim);
    shape[dim] = len;
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

/* as_strided_copy(self, size, stride, offset): contiguous of size. */
RULE(as_strided_copy)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, A(sc, "size"), shape, &nd, d));
    out_dense(sc, nd, shape, t->dtype, t->device, false);
    return 0;
}

/* multinomial(self, num_samples): int64 [..., num_samples]. */
RULE(multinomial)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim == 0 || t->ndim > 2)
        return cgs_diag_set(d, CGS_E_INVAL, "multinomial of rank %u", t->ndim);
    dimcpy(shape, t->shape, t->ndim);
    if (int_of(sc, A(sc, "num_samples"), &shape[t->ndim - 1]))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "multinomial: num_samples not known");
    out_dense(sc, t->ndim, shape, CGS_DTYPE_INT64, t->device, false);
    return 0;
}

/* ---- the rest of the Core ATen opset ------------------------------------------------- */

/* A fresh tensor laid out like argument `self` (empty_like): backward ops of pools. */
RULE(like_self)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, NULL, NULL);
}

/* _cdist_forward(x1, x2, p, mode): [..., r1, r2] (batch dims of x1), contiguous. */
RULE(cdist)
{
    const struct cgs_tensor *a, *b;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "x1", &a, d));
    TRY(need_tensor(sc, "x2", &b, d));
    if (a->ndim < 2 || b->ndim < 2 || a->ndim != b->ndim)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "cdist with broadcast batch dims is not tracked");
    dimcpy(shape, a->shape, a->ndim);
    shape[a->ndim - 1] = b->shape[b->ndim - 2];
    out_dense(sc, a->ndim, shape, a->dtype, a->device, false);
    return 0;
}

/* _pdist_forward(self, p): [n * (n - 1) / 2]. */
RULE(pdist)
{
    const struct cgs_tensor *t;
    sym_t len;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim != 2)
        return cgs_diag_set(d, CGS_E_INVAL, "pdist of rank %u", t->ndim);
    len = S_div(sc, S_mul(sc, t->shape[0], S_sub(sc, t->shape[0], K(sc, 1))), K(sc, 2));
    out_dense(sc, 1, &len, t->dtype, t->device, false);
    return 0;
}

/* _embedding_bag(weight, indices, offsets, ..., mode, ..., include_last_offset): (output,
 * offset2bag, bag_size, max_indices) as the meta kernel sizes them (CUDA branch). */
RULE(embedding_bag)
{
    const struct cgs_tensor *w, *idx, *off;
    sym_t bags, s2[2], zero = K(sc, 0);
    int64_t mode = 0;

    (void)n;
    TRY(need_tensor(sc, "weight", &w, d));
    TRY(need_tensor(sc, "indices", &idx, d));
    TRY(need_tensor(sc, "offsets", &off, d));
    if (w->ndim != 2 || idx->ndim != 1 || off->ndim != 1)
        return cgs_diag_set(d, CGS_E_INVAL, "embedding_bag: expected 2-D weight, 1-D indices");
    if (!off->device || strncmp(off->device, "cuda", 4))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "embedding_bag on CPU is not tracked");
    if (!is_none(A(sc, "mode")) && !int_const(sc, A(sc, "mode"), &mode))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "embedding_bag: mode not constant");
    bags = off->shape[0];
    if (bool_of(A(sc, "include_last_offset"), false))
        bags = S_sub(sc, bags, K(sc, 1));
    sc->out = new_list(sc, 4);
    s2[0] = bags, s2[1] = w->shape[1];
    fill_dense(sc, &sc->out->u.items[0], 2, s2, w->dtype, w->device, false);
    fill_dense(sc, &sc->out->u.items[1], 1, &idx->shape[0], idx->dtype, idx->device, false);
    fill_dense(sc, &sc->out->u.items[2], 1, &off->shape[0], idx->dtype, idx->device, false);
    if (mode == 2)
        fill_dense(sc, &sc->out->u.items[3], 2, s2, idx->dtype, idx->device, false);
    else
        fill_dense(sc, &sc->out->u.items[3], 1, &zero, idx->dtype, idx->device, false);
    return 0;
}

/* avg_pool1d: one spatial dim. */
RULE(avg_pool1d)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(pool_shape(sc, t, false, 1, shape, d));
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

/* max_pool3d_with_indices: (values, int64 indices), three spatial dims. */
RULE(max_pool3d_indices)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(pool_shape(sc, t, true, 3, shape, d));
    pair_out(sc, t, t->ndim, shape);
    return 0;
}

/* col2im(self, output_size, kernel_size, ...): [N, C / prod(kernel), *output_size]. */
RULE(col2im)
{
    const struct cgs_tensor *t;
    sym_t os[2], k[2], shape[NDIM_MAX];
    uint32_t no, nk;
    int64_t kv0, kv1;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, A(sc, "output_size"), os, &no, d));
    TRY(shape_param(sc, A(sc, "kernel_size"), k, &nk, d));
    if (no != 2 || nk != 2 || (t->ndim != 2 && t->ndim != 3) ||
        !cgs_sym_is_int(k[0], &kv0) || !cgs_sym_is_int(k[1], &kv1) || kv0 * kv1 <= 0)
        return cgs_diag_set(d, CGS_E_INVAL, "col2im: bad sizes");
    if (t->ndim == 3)
        shape[0] = t->shape[0];
    shape[t->ndim - 2] = S_div(sc, t->shape[t->ndim - 2], K(sc, kv0 * kv1));
    shape[t->ndim - 1] = os[0];
    shape[t->ndim] = os[1];
    out_dense(sc, t->ndim + 1, shape, t->dtype, t->device, false);
    return 0;
}

/* grid_sampler_2d(input, grid, ...): [N, C, H_grid, W_grid], contiguous. */
RULE(grid_sampler)
{
    const struct cgs_tensor *in, *gr;
    sym_t shape[NDIM_MAX];
    uint32_t i, sp;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    TRY(need_tensor(sc, "grid", &gr, d));
    if (in->ndim < 4 || gr->ndim != in->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "grid_sampler: bad ranks");
    sp = in->ndim - 2;
    shape[0] = in->shape[0], shape[1] = in->shape[1];
    for (i = 0; i < sp; i++)
        shape[2 + i] = gr->shape[1 + i];
    out_dense(sc, in->ndim, shape, in->dtype, in->device, false);
    return 0;
}

/* masked_scatter(self, mask, source): self broadcast with mask, contiguous. */
RULE(masked_scatter)
{
    struct operand o[2];
    sym_t shape[NDIM_MAX];
    uint32_t cnt, nd;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "masked_scatter: expected self and mask tensors");
    TRY(broadcast(sc, o, 2, shape, &nd, d));
    out_dense(sc, nd, shape, o[0].t->dtype, o[0].t->device, false);
    return 0;
}

/* native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, mask):
 * (grad_input like input, grad_weight [C], grad_bias [C]), None where the mask says. */
RULE(group_norm_backward)
{
    const struct cgs_tensor *in;
    const struct cgs_arg *mask = A(sc, "output_mask");
    sym_t c;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    if (int_of(sc, A(sc, "C"), &c))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "group_norm_backward: C not known");
    sc->out = new_list(sc, 3);
    for (uint32_t i = 0; i < 3; i++) {
        bool on = !mask || mask->kind != CGS_ARG_LIST || i >= mask->n ||
                  mask->u.items[i].kind != CGS_ARG_BOOL || mask->u.items[i].u.b;
        if (!on)
            sc->out->u.items[i].kind = CGS_VAL_NONE;
        else if (i == 0)
            fill_dense(sc, &sc->out->u.items[0], in->ndim, in->shape, in->dtype, in->device,
                       false);
        else
            fill_dense(sc, &sc->out->u.items[i], 1, &c, in->dtype, in->device, false);
    }
    return 0;
}

/* randperm(n): [n], int64 unless dtype says. */
RULE(randperm)
{
    sym_t len;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    if (int_of(sc, A(sc, "n"), &len))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "randperm: n not known");
    out_dense(sc, 1, &len, dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_INT64 : dt, device_arg(sc), false);
    return 0;
}

/* sym_storage_offset(self): the offset as a SymInt; sym_is_contiguous(self): a SymBool. */
RULE(sym_storage_offset)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    sc->out = new_val(sc, CGS_VAL_SYMINT);
    set_symint(sc, sc->out, t->storage_offset ? t->storage_offset : K(sc, 0));
    return 0;
}

RULE(sym_is_contiguous)
{
    const struct cgs_tensor *t;
    int64_t sz[NDIM_MAX], st[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    hints(sc, t, sz, st);
    sc->out = new_val(sc, CGS_VAL_BOOL);
    sc->out->u.b = h_contiguous(t->ndim, sz, st);
    return 0;
}

/* ---- composite torch functions -------------------------------------------------------- */

/* isclose(self, other, ...): broadcast, bool (an elementwise comparison). */
RULE(isclose)
{
    (void)n;
    return binary_with(n, sc, 2, 2, d);
}

/* isreal(self) / isin(elements, ...): bool of the first argument's shape and layout. */
RULE(bool_like_first)
{
    struct operand o;
    uint32_t cnt;

    (void)n;
    TRY(operands(sc, 1, &o, &cnt, d));
    if (cnt != 1 || !o.t)
        return cgs_diag_set(d, CGS_E_INVAL, "expected a tensor");
    return elementwise(sc, &o, 1, CGS_DTYPE_BOOL, false, d);
}

/* complex(real, imag): broadcast, the complex dtype of the two. */
RULE(complex)
{
    struct operand o[2];
    uint32_t cnt;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "complex: expected two tensors");
    return elementwise(sc, o, 2, complex_of(result_type(o, 2)), false, d);
}

/* logdet(self): one value per matrix of the batch, self's dtype. */
RULE(batch_scalar)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "expected a batch of matrices");
    out_dense(sc, t->ndim - 2, t->shape, t->dtype, t->device, false);
    return 0;
}

/* diag(self, diagonal): a vector becomes a square matrix of n + |k|; a matrix gives its
 * diagonal as a new contiguous vector. */
RULE(diag)
{
    const struct cgs_tensor *t;
    int64_t k = 0;

    TRY(need_tensor(sc, "self", &t, d));
    if (!is_none(A(sc, "diagonal")) && !int_const(sc, A(sc, "diagonal"), &k))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "diag: diagonal not constant");
    if (t->ndim == 1) {
        sym_t shape[2];
        shape[0] = shape[1] = S_add(sc, t->shape[0], K(sc, k < 0 ? -k : k));
        out_dense(sc, 2, shape, t->dtype, t->device, false);
        return 0;
    }
    if (t->ndim != 2)
        return cgs_diag_set(d, CGS_E_INVAL, "diag of rank %u", t->ndim);
    {
        int64_t s0, s1, len;
        sym_t l;
        (void)n;
        if (!cgs_sym_is_int(t->shape[0], &s0) || !cgs_sym_is_int(t->shape[1], &s1))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "diag of symbolic sizes is not tracked");
        len = k >= 0 ? (s0 < s1 - k ? s0 : s1 - k) : (s0 + k < s1 ? s0 + k : s1);
        l = K(sc, len < 0 ? 0 : len);
        out_dense(sc, 1, &l, t->dtype, t->device, false);
    }
    return 0;
}

/* adaptive_max_pool2d(self, output_size): (values, int64 indices), 3-D or 4-D input; a 4-D
 * one in its suggested memory format (channels-last when it is). */
RULE(adaptive_max_pool2d)
{
    const struct cgs_tensor *t;
    sym_t os[2], shape[4];
    uint32_t k;
    bool cl;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, A(sc, "output_size"), os, &k, d));
    if ((t->ndim != 3 && t->ndim != 4) || k != 2)
        return cgs_diag_set(d, CGS_E_INVAL, "adaptive_max_pool2d: bad ranks");
    dimcpy(shape, t->shape, t->ndim - 2);
    shape[t->ndim - 2] = os[0], shape[t->ndim - 1] = os[1];
    cl = t->ndim == 4 && suggest_cl(sc, t);
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], t->ndim, shape, t->dtype, t->device, cl);
    fill_dense(sc, &sc->out->u.items[1], t->ndim, shape, CGS_DTYPE_INT64, t->device, cl);
    return 0;
}

/* cholesky / cholesky_inverse(self, upper): a column-major copy of self's shape. */
RULE(column_major_copy)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(square_input(sc, "self", &t, d));
    sc->out = new_val(sc, CGS_VAL_TENSOR);
    lapack_fill(sc, sc->out, t->ndim, t->shape, t->dtype, t->device, true);
    return 0;
}

/* nonzero_static(self, *, size, fill_value): int64 [size, ndim]; strides (1, size) on CUDA. */
RULE(nonzero_static)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    sym_t size;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (int_of(sc, A(sc, "size"), &size))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "nonzero_static: size not known");
    o = new_tensor_val(sc, &sc->out, 2, CGS_DTYPE_INT64, t->device);
    o->shape[0] = size, o->shape[1] = K(sc, t->ndim);
    if (t->device && !strncmp(t->device, "cuda", 4)) {
        o->stride[0] = K(sc, 1), o->stride[1] = size;
    } else {
        o->stride[0] = K(sc, t->ndim), o->stride[1] = K(sc, 1);
    }
    return 0;
}

/* diagonal_scatter / as_strided_scatter / select_scatter...: a clone of self with its strides
 * (clone_preserve_strides). */
RULE(clone_preserve_strides)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    o = out_tensor(sc, t->ndim, t->dtype, t->device);
    dimcpy(o->shape, t->shape, t->ndim);
    dimcpy(o->stride, t->stride, t->ndim);
    o->storage_offset = K(sc, 0);
    return 0;
}

/* log_sigmoid_forward(self): (output laid out like self, buffer: empty [0] on CUDA, else
 * like self) -- its decomposition. */
RULE(log_sigmoid_forward)
{
    struct operand o;
    uint32_t cnt;
    struct cgs_val *l;
    sym_t zero = K(sc, 0);

    (void)n;
    TRY(operands(sc, 1, &o, &cnt, d));
    if (cnt != 1 || !o.t)
        return cgs_diag_set(d, CGS_E_INVAL, "expected a tensor");
    l = new_list(sc, 2);
    TRY(elementwise(sc, &o, 1, o.t->dtype, false, d));
    l->u.items[0] = *sc->out;
    if (o.t->device && !strncmp(o.t->device, "cuda", 4))
        fill_dense(sc, &l->u.items[1], 1, &zero, o.t->dtype, o.t->device, false);
    else
        l->u.items[1] = *sc->out;
    sc->out = l;
    return 0;
}

/* A solver's matrices: batch dims equal (torch broadcasts them; that is not tracked). */
static int same_batch(const struct cgs_tensor *a, const struct cgs_tensor *b, struct cgs_diag *d)
{
    if (a->ndim < 2 || b->ndim != a->ndim)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "solver with broadcast batch dims is not tracked");
    for (uint32_t i = 0; i + 2 < a->ndim; i++)
        if (!dim_eq(a->shape[i], b->shape[i]))
            return cgs_diag_set(d, CGS_E_UNKNOWN,
                                "solver with broadcast batch dims is not tracked");
    return 0;
}

/* A solver's result: B's shape (batch dims equal to A's; broadcasting is not tracked),
 * column-major when col_major. */
static int solver_result(struct cgs_shape_ctx *sc, const char *a_name, const char *b_name,
                         bool col_major, struct cgs_diag *d)
{
    const struct cgs_tensor *a, *b;

    TRY(need_tensor(sc, a_name, &a, d));
    TRY(need_tensor(sc, b_name, &b, d));
    TRY(same_batch(a, b, d));
    sc->out = new_val(sc, CGS_VAL_TENSOR);
    lapack_fill(sc, sc->out, b->ndim, b->shape, b->dtype, b->device, col_major);
    return 0;
}

/* linalg_lu_solve(LU, pivots, B, left, adjoint): column-major when left, else row-major. */
RULE(linalg_lu_solve)
{
    (void)n;
    return solver_result(sc, "LU", "B", bool_of(A(sc, "left"), true), d);
}

/* linalg_solve_triangular(A, B, upper, left, ...): column-major (Fortran-contiguous). */
RULE(linalg_solve_triangular)
{
    (void)n;
    return solver_result(sc, "self", "B", true, d);
}

/* movedim(self, source, destination): a permuted view. */
RULE(movedim)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    sym_t src[NDIM_MAX], dst[NDIM_MAX];
    uint32_t ns, ndst, i, j, perm[NDIM_MAX];
    bool used_src[NDIM_MAX] = {false}, used_dst[NDIM_MAX] = {false};

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (ints_of(sc, A(sc, "source"), src, &ns) || ints_of(sc, A(sc, "destination"), dst, &ndst) ||
        ns != ndst || ns > t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "movedim: bad source/destination");
    for (i = 0; i < t->ndim; i++)
        perm[i] = UINT32_MAX;
    for (i = 0; i < ns; i++) {
        int64_t a, b;
        uint32_t wa, wb;
        if (!cgs_sym_is_int(src[i], &a) || !cgs_sym_is_int(dst[i], &b) ||
            !wrap_dim(a, t->ndim, &wa) || !wrap_dim(b, t->ndim, &wb) || used_src[wa] ||
            used_dst[wb])
            return cgs_diag_set(d, CGS_E_INVAL, "movedim: bad dims");
        perm[wb] = wa;
        used_src[wa] = used_dst[wb] = true;
    }
    // the other dims keep their order in the free places
    for (i = 0, j = 0; i < t->ndim; i++) {
        if (perm[i] != UINT32_MAX)
            continue;
        while (j < t->ndim && used_src[j])
            j++;
        perm[i] = j++;
    }
    o = out_view(sc, t, t->ndim);
    for (i = 0; i < t->ndim; i++) {
        o->shape[i] = t->shape[perm[i]];
        o->stride[i] = t->stride[perm[i]];
    }
    return 0;
}

/* msort(self): sort's values along dim 0 (the input's layout). */
RULE(msort)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    copy_like(sc, t, CGS_DTYPE_UNKNOWN, NULL, NULL);
    if (sc->out && sc->out->kind == CGS_VAL_TENSOR)
        preserve_strides(sc, t, sc->out->u.t.stride);
    return 0;
}

/* segment_reduce(data, reduce, *, lengths, offsets, axis): lengths' shape (offsets' with
 * one less at the end) + data's dims after axis, contiguous (its meta kernel). */
RULE(segment_reduce)
{
    const struct cgs_tensor *t, *l;
    const struct cgs_val *lv = node_val(sc, A(sc, "lengths")), *ov = node_val(sc, A(sc, "offsets"));
    sym_t shape[NDIM_MAX];
    uint32_t axis, nd = 0, i;

    (void)n;
    TRY(need_tensor(sc, "data", &t, d));
    TRY(dim_arg(sc, "axis", t->ndim, &axis, d));
    if (lv && lv->kind == CGS_VAL_TENSOR)
        l = &lv->u.t;
    else if (ov && ov->kind == CGS_VAL_TENSOR)
        l = &ov->u.t;
    else
        return cgs_diag_set(d, CGS_E_UNKNOWN, "segment_reduce: lengths or offsets not known");
    if (!tensor_known(l) || l->ndim == 0 || l->ndim + t->ndim - axis - 1 > NDIM_MAX)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "segment_reduce: lengths or offsets not known");
    for (i = 0; i < l->ndim; i++)
        shape[nd++] = l->shape[i];
    if (!(lv && lv->kind == CGS_VAL_TENSOR))
        shape[nd - 1] = S_sub(sc, shape[nd - 1], K(sc, 1));
    for (i = axis + 1; i < t->ndim; i++)
        shape[nd++] = t->shape[i];
    out_dense(sc, nd, shape, t->dtype, t->device, false);
    return 0;
}

/* linalg_pinv(A, ...): [..., n, m], contiguous (the product that ends its decomposition). */
RULE(linalg_pinv)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(square_input(sc, "self", &t, d));
    dimcpy(shape, t->shape, t->ndim);
    shape[t->ndim - 2] = t->shape[t->ndim - 1];
    shape[t->ndim - 1] = t->shape[t->ndim - 2];
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

/* searchsorted(sorted_sequence, self, out_int32): indices of self's shape, contiguous. */
RULE(searchsorted)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    out_dense(sc, t->ndim, t->shape,
              bool_of(A(sc, "out_int32"), false) ? CGS_DTYPE_INT32 : CGS_DTYPE_INT64, t->device,
              false);
    return 0;
}

/* take(self, index): index's shape, self's dtype, contiguous. */
RULE(take)
{
    const struct cgs_tensor *t, *i;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "index", &i, d));
    out_dense(sc, i->ndim, i->shape, t->dtype, t->device, false);
    return 0;
}

/* normal(mean, std): broadcast, the promoted (floating) dtype, contiguous. */
RULE(normal_tensors)
{
    struct operand o[2];
    sym_t shape[NDIM_MAX];
    uint32_t cnt, nd;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "normal: expected two tensors");
    TRY(broadcast(sc, o, 2, shape, &nd, d));
    out_dense(sc, nd, shape, result_type(o, 2), o[0].t->device, false);
    return 0;
}

/* randint(high, size) / randint(low, high, size): int64 unless dtype says. */
RULE(randint)
{
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    return factory(sc, A(sc, "size"), dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_INT64 : dt,
                   device_arg(sc), d);
}

/* normal(mean: float, std: float, size): float32 unless dtype says. */
RULE(normal_sized)
{
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    return factory(sc, A(sc, "size"), dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt,
                   device_arg(sc), d);
}

/* normal(mean: Tensor, std: float): like mean, contiguous. */
RULE(normal_like_mean)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "mean", &t, d));
    out_dense(sc, t->ndim, t->shape, t->dtype, t->device, false);
    return 0;
}

/* tril_indices / triu_indices(row, col, offset): int64 [2, count]. */
static int tri_indices(struct cgs_shape_ctx *sc, bool upper, struct cgs_diag *d)
{
    int64_t r, c, off = 0, count = 0;
    sym_t shape[2];
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    if (!int_const(sc, A(sc, "row"), &r) || !int_const(sc, A(sc, "col"), &c) || r < 0 || c < 0 ||
        r > (1 << 24) || c > (1 << 24))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "tri indices: sizes not constant");
    if (!is_none(A(sc, "offset")) && !int_const(sc, A(sc, "offset"), &off))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "tri indices: offset not constant");
    for (int64_t i = 0; i < r; i++) {
        // row i holds columns j with j - i <= off (lower) or j - i >= off (upper)
        int64_t lo = upper ? i + off : 0, hi = upper ? c - 1 : i + off;
        if (lo < 0)
            lo = 0;
        if (hi > c - 1)
            hi = c - 1;
        if (hi >= lo)
            count += hi - lo + 1;
    }
    shape[0] = K(sc, 2), shape[1] = K(sc, count);
    out_dense(sc, 2, shape, dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_INT64 : dt, device_arg(sc), false);
    return 0;
}

RULE(tril_indices) { (void)n; return tri_indices(sc, false, d); }
RULE(triu_indices) { (void)n; return tri_indices(sc, true, d); }

/* rot90(self, k, dims): flips (contiguous copies) then, for odd k, a transposed view. */
RULE(rot90)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    sym_t dv[2], tmp;
    uint32_t nd, d0, d1;
    int64_t k = 1, a, b;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (!is_none(A(sc, "k")) && !int_const(sc, A(sc, "k"), &k))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "rot90: k not constant");
    if (ints_of(sc, A(sc, "dims"), dv, &nd) || nd != 2 || !cgs_sym_is_int(dv[0], &a) ||
        !cgs_sym_is_int(dv[1], &b) || !wrap_dim(a, t->ndim, &d0) || !wrap_dim(b, t->ndim, &d1) ||
        d0 == d1 || t->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "rot90: bad dims");
    k = ((k % 4) + 4) % 4;
    o = out_tensor(sc, t->ndim, t->dtype, t->device);
    dimcpy(o->shape, t->shape, t->ndim);
    contiguous_strides(sc, t->ndim, o->shape, o->stride);
    if (k % 2) {
        tmp = o->shape[d0], o->shape[d0] = o->shape[d1], o->shape[d1] = tmp;
        tmp = o->stride[d0], o->stride[d0] = o->stride[d1], o->stride[d1] = tmp;
    }
    return 0;
}

/* glu(self, dim): halves of dim multiplied, laid out as TensorIterator lays out the halves
 * (views of self with self's strides). */
RULE(glu)
{
    const struct cgs_tensor *t;
    struct cgs_val *hv_;
    struct cgs_tensor *h;
    struct operand o;
    uint32_t dim;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "glu of a 0-dim tensor");
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    hv_ = new_val(sc, CGS_VAL_TENSOR);
    h = copy_tensor(sc, hv_, t, t->ndim);
    dimcpy(h->shape, t->shape, t->ndim);
    dimcpy(h->stride, t->stride, t->ndim);
    h->shape[dim] = S_div(sc, t->shape[dim], K(sc, 2));
    memset(&o, 0, sizeof(o));
    o.t = h;
    return elementwise(sc, &o, 1, t->dtype, false, d);
}

/* im2col(self, kernel_size, dilation, padding, stride): [N, C * kh * kw, L], contiguous. */
RULE(im2col)
{
    const struct cgs_tensor *t;
    sym_t k[2], dl[2], p[2], st[2], shape[3], l = K(sc, 1), c;
    uint32_t i, sp;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim != 3 && t->ndim != 4)
        return cgs_diag_set(d, CGS_E_INVAL, "im2col of rank %u", t->ndim);
    TRY(spatial_param(sc, "kernel_size", 2, 1, k, d));
    TRY(spatial_param(sc, "dilation", 2, 1, dl, d));
    TRY(spatial_param(sc, "padding", 2, 0, p, d));
    TRY(spatial_param(sc, "stride", 2, 1, st, d));
    sp = t->ndim - 2;
    for (i = 0; i < 2; i++) {
        // (in + 2p - d(k-1) - 1) / s + 1 blocks along each spatial dim
        sym_t span = S_add(sc, S_mul(sc, dl[i], S_sub(sc, k[i], K(sc, 1))), K(sc, 1));
        sym_t r = S_sub(sc, S_add(sc, t->shape[sp + i], S_mul(sc, K(sc, 2), p[i])), span);
        l = S_mul(sc, l, S_add(sc, S_div(sc, r, st[i]), K(sc, 1)));
    }
    c = S_mul(sc, t->shape[sp - 1], S_mul(sc, k[0], k[1]));
    if (t->ndim == 4) {
        shape[0] = t->shape[0], shape[1] = c, shape[2] = l;
        out_dense(sc, 3, shape, t->dtype, t->device, false);
    } else {
        shape[0] = c, shape[1] = l;
        out_dense(sc, 2, shape, t->dtype, t->device, false);
    }
    return 0;
}

/* multi_margin_loss(self [N, C] or [C], target, ..., reduction): [N] for none, else 0-dim. */
RULE(multi_margin_loss)
{
    const struct cgs_tensor *t;
    int64_t red;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(loss_reduction(sc, &red, d));
    if (red == 0 && t->ndim == 2)
        out_dense(sc, 1, t->shape, t->dtype, t->device, false);
    else
        out_dense(sc, 0, NULL, t->dtype, t->device, false);
    return 0;
}

/* _unique2 / unique_consecutive (dim None): FakeTensor's _unique -- an unbacked length for the
 * values; inverse (self's shape) and counts when asked, else empty; all of self's dtype. */
RULE(unique)
{
    const struct cgs_tensor *t;
    sym_t numel = K(sc, 1), nnz, zero = K(sc, 0);
    int64_t c;
    uint32_t i;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (!is_none(A(sc, "dim")))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "unique along a dim is not tracked");
    for (i = 0; i < t->ndim; i++)
        numel = S_mul(sc, numel, t->shape[i]);
    nnz = cgs_sym_is_int(numel, &c) && c == 0 ? K(sc, 0) : unbacked(sc);
    sc->out = new_list(sc, 3);
    fill_dense(sc, &sc->out->u.items[0], 1, &nnz, t->dtype, t->device, false);
    if (bool_of(A(sc, "return_inverse"), false))
        fill_dense(sc, &sc->out->u.items[1], t->ndim, t->shape, t->dtype, t->device, false);
    else
        fill_dense(sc, &sc->out->u.items[1], 1, &zero, t->dtype, t->device, false);
    fill_dense(sc, &sc->out->u.items[2], 1, bool_of(A(sc, "return_counts"), false) ? &nnz : &zero,
               t->dtype, t->device, false);
    return 0;
}

/* empty_permuted(size, physical_layout): strides of the physical order, innermost last. */
RULE(empty_permuted)
{
    sym_t shape[NDIM_MAX], perm[NDIM_MAX], mult = K(sc, 1);
    uint32_t nd, np, i;
    struct cgs_tensor *o;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    bool seen[NDIM_MAX] = {false};

    (void)n;
    TRY(shape_param(sc, A(sc, "size"), shape, &nd, d));
    if (ints_of(sc, A(sc, "physical_layout"), perm, &np) || np != nd)
        return cgs_diag_set(d, CGS_E_INVAL, "empty_permuted: bad physical_layout");
    o = out_tensor(sc, nd, dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt, device_arg(sc));
    dimcpy(o->shape, shape, nd);
    for (i = nd; i-- > 0;) {
        int64_t l;
        if (!cgs_sym_is_int(perm[i], &l) || l < 0 || (uint64_t)l >= nd || seen[l])
            return cgs_diag_set(d, CGS_E_INVAL, "empty_permuted: bad physical_layout");
        seen[l] = true;
        o->stride[l] = mult;
        mult = S_mul(sc, mult, shape[l]);
    }
    return 0;
}

/* block_diag(tensors): [sum of rows, sum of cols] (vectors count as one row), contiguous. */
RULE(block_diag)
{
    struct operand o[64];
    uint32_t cnt, i;
    sym_t shape[2] = {K(sc, 0), K(sc, 0)};

    (void)n;
    TRY(tensor_list(sc, A(sc, "tensors"), o, &cnt, 64, d));
    for (i = 0; i < cnt; i++) {
        const struct cgs_tensor *t = o[i].t;
        if (t->ndim > 2)
            return cgs_diag_set(d, CGS_E_INVAL, "block_diag of rank %u", t->ndim);
        shape[0] = S_add(sc, shape[0], t->ndim == 2 ? t->shape[0] : K(sc, 1));
        shape[1] = S_add(sc, shape[1], t->ndim == 2 ? t->shape[1] : t->ndim == 1 ? t->shape[0]
                                                                                : K(sc, 1));
    }
    if (!cnt)
        return cgs_diag_set(d, CGS_E_INVAL, "block_diag of no tensors");
    out_dense(sc, 2, shape, result_type(o, cnt), o[0].t->device, false);
    return 0;
}

/* linalg_householder_product(input, tau): column-major like input. */
RULE(householder_product)
{
    (void)n;
    return cgs_shape_rule_column_major_copy(n, sc, d);
}

/* linalg_lu(A, pivot) / lu_unpack(LU, pivots, unpack_data, unpack_pivots): (P [.., m, m],
 * L [.., m, k], U [.., k, n]), contiguous; [0] for the parts not asked for. */
static int lu_parts(struct cgs_shape_ctx *sc, bool want_p, bool want_lu, struct cgs_diag *d)
{
    const struct cgs_tensor *a;
    sym_t sz[NDIM_MAX], k, zero = K(sc, 0);
    uint32_t nd;

    TRY(square_input(sc, "A", &a, d));
    nd = a->ndim;
    TRY(min_dim(sc, a->shape[nd - 2], a->shape[nd - 1], &k, d));
    sc->out = new_list(sc, 3);
    dimcpy(sz, a->shape, nd);
    sz[nd - 1] = a->shape[nd - 2];
    if (want_p)
        fill_dense(sc, &sc->out->u.items[0], nd, sz, a->dtype, a->device, false);
    else
        fill_dense(sc, &sc->out->u.items[0], 1, &zero, a->dtype, a->device, false);
    if (want_lu) {
        sz[nd - 1] = k;
        fill_dense(sc, &sc->out->u.items[1], nd, sz, a->dtype, a->device, false);
        sz[nd - 2] = k, sz[nd - 1] = a->shape[nd - 1];
        fill_dense(sc, &sc->out->u.items[2], nd, sz, a->dtype, a->device, false);
    } else {
        fill_dense(sc, &sc->out->u.items[1], 1, &zero, a->dtype, a->device, false);
        fill_dense(sc, &sc->out->u.items[2], 1, &zero, a->dtype, a->device, false);
    }
    return 0;
}

RULE(linalg_lu)
{
    (void)n;
    return lu_parts(sc, bool_of(A(sc, "pivot"), true), true, d);
}

RULE(lu_unpack)
{
    (void)n;
    return lu_parts(sc, bool_of(A(sc, "unpack_pivots"), true), bool_of(A(sc, "unpack_data"), true),
                    d);
}

/* linalg_ldl_solve(LD, pivots, B, hermitian): B's shape, column-major. */
RULE(ldl_solve)
{
    (void)n;
    return solver_result(sc, "LD", "B", true, d);
}

/* triangular_solve(self, A, ...): (solution like self, cloned A), both column-major; batch
 * dims equal (broadcasting is not tracked). */
RULE(triangular_solve)
{
    const struct cgs_tensor *b, *a;

    (void)n;
    TRY(need_tensor(sc, "self", &b, d));
    TRY(need_tensor(sc, "A", &a, d));
    TRY(same_batch(a, b, d));
    sc->out = new_list(sc, 2);
    lapack_fill(sc, &sc->out->u.items[0], b->ndim, b->shape, b->dtype, b->device, true);
    lapack_fill(sc, &sc->out->u.items[1], a->ndim, a->shape, a->dtype, a->device, true);
    return 0;
}

/* ormqr(input, tau, other, ...): other's shape, column-major. */
RULE(ormqr)
{
    const struct cgs_tensor *o;

    (void)n;
    // the third argument (torch.ormqr names it input3)
    if (arg_tensor(sc, Ai(sc, 2), &o) != 0)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "input 2 is not known");
    sc->out = new_val(sc, CGS_VAL_TENSOR);
    lapack_fill(sc, sc->out, o->ndim, o->shape, o->dtype, o->device, true);
    return 0;
}

/* fractional_max_pool{2,3}d(self, kernel_size, output_size, random_samples): (values, int64
 * indices) of [(N,) C, *output_size], contiguous. */
RULE(fractional_max_pool)
{
    const struct cgs_tensor *t;
    sym_t os[3], shape[NDIM_MAX];
    uint32_t k;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, A(sc, "output_size"), os, &k, d));
    if (k < 2 || k > 3 || t->ndim < k + 1 || t->ndim > k + 2)
        return cgs_diag_set(d, CGS_E_INVAL, "fractional_max_pool: bad sizes");
    dimcpy(shape, t->shape, t->ndim - k);
    dimcpy(shape + t->ndim - k, os, k);
    pair_out(sc, t, t->ndim, shape);
    return 0;
}

/* adaptive_max_pool3d(self, output_size): (values, int64 indices), contiguous. */
RULE(adaptive_max_pool3d)
{
    const struct cgs_tensor *t;
    sym_t os[3], shape[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(spatial_param(sc, "output_size", 3, 1, os, d));
    if (t->ndim != 4 && t->ndim != 5)
        return cgs_diag_set(d, CGS_E_INVAL, "adaptive_max_pool3d: bad sizes");
    dimcpy(shape, t->shape, t->ndim - 3);
    dimcpy(shape + t->ndim - 3, os, 3);
    pair_out(sc, t, t->ndim, shape);
    return 0;
}

/* max_pool1d / max_pool3d (and torch.nn.functional's, without indices): one or three spatial
 * dims, contiguous. */
static int max_pool_nd(struct cgs_shape_ctx *sc, uint32_t nsp, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    if (bool_of(A(sc, "return_indices"), false)) {
        TRY(pool_shape(sc, t, true, nsp, shape, d));
        pair_out(sc, t, t->ndim, shape);
        return 0;
    }
    TRY(pool_shape(sc, t, true, nsp, shape, d));
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

RULE(max_pool1d) { (void)n; return max_pool_nd(sc, 1, d); }
RULE(max_pool3d) { (void)n; return max_pool_nd(sc, 3, d); }

/* real(self): complex -> a view of the real parts (strides doubled); real -> self. */
RULE(real_view)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (dt_cat(t->dtype) != 3)
        return same_as_first(sc, d);
    o = out_view(sc, t, t->ndim);
    o->dtype = real_of(t->dtype);
    for (uint32_t i = 0; i < t->ndim; i++) {
        o->shape[i] = t->shape[i];
        o->stride[i] = S_mul(sc, t->stride[i], K(sc, 2));
    }
    o->storage_offset = S_mul(sc, t->storage_offset, K(sc, 2));
    return 0;
}

/* svd(self, some, compute_uv): (U, S, V) from linalg_svd, V = Vh.mH (a transposed view). */
RULE(svd_legacy)
{
    struct cgs_tensor *v;
    sym_t tmp;
    uint32_t nd;

    TRY(cgs_shape_rule_linalg_svd(n, sc, d));
    v = &sc->out->u.items[2].u.t;
    nd = v->ndim;
    if (nd >= 2) {
        tmp = v->shape[nd - 1], v->shape[nd - 1] = v->shape[nd - 2], v->shape[nd - 2] = tmp;
        tmp = v->stride[nd - 1], v->stride[nd - 1] = v->stride[nd - 2], v->stride[nd - 2] = tmp;
    }
    return 0;
}

/* cosine_similarity(x1, x2, dim) / pairwise_distance(x1, x2, ..., keepdim): a reduction of
 * the broadcast shape over dim (the last dim for the distance), contiguous. */
static int broadcast_reduce(struct cgs_shape_ctx *sc, const char *dim_name, bool keep,
                            struct cgs_diag *d)
{
    struct operand o[2];
    sym_t shape[NDIM_MAX], out[NDIM_MAX];
    uint32_t cnt, nd, dim, i, k = 0;
    int64_t dv = -1;

    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "expected two tensors");
    TRY(broadcast(sc, o, 2, shape, &nd, d));
    if (dim_name && !is_none(A(sc, dim_name)) && !int_const(sc, A(sc, dim_name), &dv))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "dim not constant");
    if (nd == 0 || !wrap_dim(dv, nd, &dim))
        return cgs_diag_set(d, CGS_E_INVAL, "dim out of range");
    for (i = 0; i < nd; i++) {
        if (i != dim)
            out[k++] = shape[i];
        else if (keep)
            out[k++] = K(sc, 1);
    }
    out_dense(sc, k, out, result_type(o, 2), o[0].t->device, false);
    return 0;
}

RULE(cosine_similarity) { (void)n; return broadcast_reduce(sc, "dim", false, d); }

RULE(pairwise_distance)
{
    (void)n;
    return broadcast_reduce(sc, NULL, bool_of(A(sc, "keepdim"), false), d);
}

/* torch.signal.windows.*(M, ...): a 1-D [M] window, float32 unless dtype says. */
RULE(window)
{
    sym_t m;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    if (int_of(sc, A(sc, "M"), &m))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "window: M not known");
    out_dense(sc, 1, &m, dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt, device_arg(sc), false);
    return 0;
}

/* ravel(self): a 1-D view when it can be one, else a contiguous copy (reshape(-1)). */
RULE(ravel)
{
    const struct cgs_tensor *t;
    sym_t numel = K(sc, 1);

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    for (uint32_t i = 0; i < t->ndim; i++)
        numel = S_mul(sc, numel, t->shape[i]);
    return view_to(sc, t, &numel, 1, true, d);
}

/* torch.nn.functional.adaptive_max_pool2d(input, output_size, return_indices): the values
 * alone unless the indices are asked for. */
RULE(adaptive_max_pool2d_f)
{
    TRY(cgs_shape_rule_adaptive_max_pool2d(n, sc, d));
    if (!bool_of(A(sc, "return_indices"), false))
        sc->out = &sc->out->u.items[0];
    return 0;
}

/* torch.nn.functional.max_pool2d_with_indices: (values, indices). */
RULE(max_pool2d_with_indices_f)
{
    (void)n;
    return pool_pair(sc, CGS_DTYPE_INT64, d);
}

/* inner(self, other): self.shape[:-1] + other.shape[:-1] (0-dim for vectors), contiguous. */
RULE(inner)
{
    struct operand o[2];
    sym_t shape[NDIM_MAX];
    uint32_t cnt, nd = 0, i;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "inner with a scalar is not tracked");
    if (o[0].t->ndim == 0 || o[1].t->ndim == 0 ||
        o[0].t->ndim + o[1].t->ndim - 2 > NDIM_MAX)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "inner with a 0-dim tensor is not tracked");
    for (i = 0; i + 1 < o[0].t->ndim; i++)
        shape[nd++] = o[0].t->shape[i];
    for (i = 0; i + 1 < o[1].t->ndim; i++)
        shape[nd++] = o[1].t->shape[i];
    out_dense(sc, nd, shape, result_type(o, 2), o[0].t->device, false);
    return 0;
}

/* ---- torch.functional and other Python-level functions ------------------------------- */

/* atleast_3d(t): 0-d -> [1, 1, 1]; [n] -> unsqueeze(0).unsqueeze(-1); [m, n] -> unsqueeze(-1). */
RULE(atleast_3d)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim >= 3)
        return same_as_first(sc, d);
    o = out_view(sc, t, 3);
    if (t->ndim == 0) {
        for (uint32_t i = 0; i < 3; i++)
            o->shape[i] = K(sc, 1), o->stride[i] = K(sc, 1);
    } else if (t->ndim == 1) {
        o->shape[0] = K(sc, 1), o->stride[0] = S_mul(sc, t->shape[0], t->stride[0]);
        o->shape[1] = t->shape[0], o->stride[1] = t->stride[0];
        o->shape[2] = K(sc, 1), o->stride[2] = K(sc, 1);
    } else {
        o->shape[0] = t->shape[0], o->stride[0] = t->stride[0];
        o->shape[1] = t->shape[1], o->stride[1] = t->stride[1];
        o->shape[2] = K(sc, 1), o->stride[2] = K(sc, 1);
    }
    return 0;
}

/* diagflat(self, offset): a square matrix of numel + |offset|, contiguous. */
RULE(diagflat)
{
    const struct cgs_tensor *t;
    sym_t numel = K(sc, 1), shape[2];
    int64_t k = 0;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (!is_none(A(sc, "offset")) && !int_const(sc, A(sc, "offset"), &k))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "diagflat: offset not constant");
    for (uint32_t i = 0; i < t->ndim; i++)
        numel = S_mul(sc, numel, t->shape[i]);
    shape[0] = shape[1] = S_add(sc, numel, K(sc, k < 0 ? -k : k));
    out_dense(sc, 2, shape, t->dtype, t->device, false);
    return 0;
}

/* cartesian_prod(*tensors): [prod of lengths, count] (1-D for one tensor), contiguous. */
RULE(cartesian_prod)
{
    struct operand o[32];
    uint32_t cnt;
    sym_t shape[2] = {K(sc, 1), K(sc, 0)};

    (void)n;
    TRY(tensor_list(sc, A(sc, "tensors"), o, &cnt, 32, d));
    if (!cnt)
        return cgs_diag_set(d, CGS_E_INVAL, "cartesian_prod of no tensors");
    for (uint32_t i = 0; i < cnt; i++)
        shape[0] = S_mul(sc, shape[0], o[i].t->ndim ? o[i].t->shape[0] : K(sc, 1));
    shape[1] = K(sc, cnt);
    if (cnt == 1)
        return same_as_first(sc, d);
    out_dense(sc, 2, shape, result_type(o, cnt), o[0].t->device, false);
    return 0;
}

/* meshgrid(*tensors, indexing): views of each 1-D tensor expanded to the grid ('ij'; 'xy'
 * swaps the first two dims of the grid). */
RULE(meshgrid)
{
    struct operand o[NDIM_MAX];
    uint32_t cnt, i, j;
    const char *ix = str_of(A(sc, "indexing"));
    bool xy = ix && !strcmp(ix, "xy");
    sym_t lens[NDIM_MAX];
    struct cgs_val *l;

    (void)n;
    TRY(tensor_list(sc, A(sc, "tensors"), o, &cnt, NDIM_MAX, d));
    for (i = 0; i < cnt; i++) {
        if (o[i].t->ndim > 1)
            return cgs_diag_set(d, CGS_E_INVAL, "meshgrid of a tensor of rank %u", o[i].t->ndim);
        lens[i] = o[i].t->ndim ? o[i].t->shape[0] : K(sc, 1);
    }
    l = new_list(sc, cnt);
    for (i = 0; i < cnt; i++) {
        struct cgs_tensor *t = copy_tensor(sc, &l->u.items[i], o[i].t, cnt);
        uint32_t at = i;
        if (xy && cnt >= 2 && i < 2)
            at = 1 - i;
        for (j = 0; j < cnt; j++) {
            uint32_t src = j;
            if (xy && cnt >= 2 && j < 2)
                src = 1 - j;
            t->shape[j] = lens[src];
            t->stride[j] = K(sc, 0);
        }
        // a 0-dim input is viewed as [1] (stride 1) first
        t->stride[at] = o[i].t->ndim ? o[i].t->stride[0] : K(sc, 1);
        t->storage_offset = o[i].t->storage_offset;
    }
    sc->out = l;
    return 0;
}

/* tile(self, dims): dims padded with leading 1s (or the input with leading size-1 dims),
 * each size multiplied, contiguous. */
RULE(tile)
{
    const struct cgs_tensor *t;
    sym_t reps[NDIM_MAX], shape[NDIM_MAX];
    uint32_t nr, nd, i;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (ints_of(sc, A(sc, "dims"), reps, &nr))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "tile: dims not known");
    nd = nr > t->ndim ? nr : t->ndim;
    for (i = 0; i < nd; i++) {
        sym_t s = i + t->ndim >= nd ? t->shape[i + t->ndim - nd] : K(sc, 1);
        sym_t r = i + nr >= nd ? reps[i + nr - nd] : K(sc, 1);
        shape[i] = S_mul(sc, s, r);
    }
    out_dense(sc, nd, shape, t->dtype, t->device, false);
    return 0;
}

/* kron(self, other): sizes multiplied (the shorter padded with 1s), contiguous. */
RULE(kron)
{
    struct operand o[2];
    sym_t shape[NDIM_MAX];
    uint32_t cnt, nd, i;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "kron: expected two tensors");
    nd = o[0].t->ndim > o[1].t->ndim ? o[0].t->ndim : o[1].t->ndim;
    for (i = 0; i < nd; i++) {
        sym_t a = i + o[0].t->ndim >= nd ? o[0].t->shape[i + o[0].t->ndim - nd] : K(sc, 1);
        sym_t b = i + o[1].t->ndim >= nd ? o[1].t->shape[i + o[1].t->ndim - nd] : K(sc, 1);
        shape[i] = S_mul(sc, a, b);
    }
    out_dense(sc, nd, shape, result_type(o, 2), o[0].t->device, false);
    return 0;
}

/* trapezoid(y, x, *, dx, dim): y reduced over dim; cumulative_trapezoid keeps dim, one less. */
static int trapezoid_with(struct cgs_shape_ctx *sc, bool cumulative, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t dim, i, k = 0;
    int64_t dv = -1;
    enum cgs_dtype dt;

    TRY(need_tensor(sc, "y", &t, d));
    if (!is_none(A(sc, "dim")) && !int_const(sc, A(sc, "dim"), &dv))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "trapezoid: dim not constant");
    if (t->ndim == 0 || !wrap_dim(dv, t->ndim, &dim))
        return cgs_diag_set(d, CGS_E_INVAL, "trapezoid: bad dim");
    for (i = 0; i < t->ndim; i++) {
        if (i != dim)
            shape[k++] = t->shape[i];
        else if (cumulative)
            shape[k++] = S_sub(sc, t->shape[i], K(sc, 1));
    }
    dt = is_float_like(t->dtype) ? t->dtype : CGS_DTYPE_FLOAT32;
    out_dense(sc, k, shape, dt, t->device, false);
    return 0;
}

RULE(trapezoid) { (void)n; return trapezoid_with(sc, false, d); }
RULE(cumulative_trapezoid) { (void)n; return trapezoid_with(sc, true, d); }

/* quantile / nanquantile(self, q, dim, keepdim): [len(q)] (a 1-D q) + the reduced shape. */
RULE(quantile)
{
    const struct cgs_tensor *t;
    const struct cgs_val *qv = node_val(sc, A(sc, "q"));
    sym_t red[NDIM_MAX], shape[NDIM_MAX];
    uint32_t nr, nd = 0;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(reduce_shape(sc, t, A(sc, "dim"), bool_of(A(sc, "keepdim"), false), red, &nr, d));
    if (qv && qv->kind == CGS_VAL_TENSOR && qv->u.t.ndim == 1)
        shape[nd++] = qv->u.t.shape[0];
    dimcpy(shape + nd, red, nr);
    out_dense(sc, nd + nr, shape, t->dtype, t->device, false);
    return 0;
}

/* x.sum_to_size(*size): x itself when the size is its own, else a reduction to size. */
RULE(sum_to_size)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd, i;
    bool same;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, A(sc, "size"), shape, &nd, d));
    same = nd == t->ndim;
    for (i = 0; same && i < nd; i++)
        same = dim_eq(shape[i], t->shape[i]);
    if (same)
        return same_as_first(sc, d);
    out_dense(sc, nd, shape, t->dtype, t->device, false);
    return 0;
}

/* torch.nn.functional losses with a string reduction: 'none' gives the per-element (or
 * per-sample) values, anything else a 0-dim tensor. elementwise: the broadcast of the first
 * `nops` tensor arguments; per-sample: the first argument's batch dim ([N], or 0-dim for an
 * unbatched input). */
static int py_loss(struct cgs_shape_ctx *sc, uint32_t nops, bool per_sample, struct cgs_diag *d)
{
    struct operand o[3];
    uint32_t cnt;
    int64_t red;

    TRY(operands(sc, nops, o, &cnt, d));
    if (cnt != nops || !o[0].t)
        return cgs_diag_set(d, CGS_E_INVAL, "loss: expected %u tensors", nops);
    TRY(loss_reduction(sc, &red, d));
    if (red != 0) {
        out_dense(sc, 0, NULL, o[0].t->dtype, o[0].t->device, false);
        return 0;
    }
    if (per_sample) {
        if (o[0].t->ndim >= 2)
            out_dense(sc, 1, o[0].t->shape, o[0].t->dtype, o[0].t->device, false);
        else
            out_dense(sc, 0, NULL, o[0].t->dtype, o[0].t->device, false);
        return 0;
    }
    {
        sym_t shape[NDIM_MAX];
        uint32_t nd;
        TRY(broadcast(sc, o, cnt, shape, &nd, d));
        out_dense(sc, nd, shape, o[0].t->dtype, o[0].t->device, false);
    }
    return 0;
}

RULE(loss_elementwise2) { (void)n; return py_loss(sc, 2, false, d); }
RULE(loss_elementwise3) { (void)n; return py_loss(sc, 3, false, d); }
RULE(loss_per_sample) { (void)n; return py_loss(sc, 2, true, d); }
RULE(loss_per_sample3) { (void)n; return py_loss(sc, 3, true, d); }

/* nll_loss / cross_entropy(input [N, C, ...], target, ...): 'none' gives target's shape. */
RULE(nll_like)
{
    const struct cgs_tensor *in, *tg;
    int64_t red;

    (void)n;
    // F.nll_loss / F.cross_entropy name it input; aten.nll_loss, nll_loss_nd and
    // cross_entropy_loss self
    TRY(need_tensor(sc, find_param(sc, "input") >= 0 ? "input" : "self", &in, d));
    TRY(need_tensor(sc, "target", &tg, d));
    TRY(loss_reduction(sc, &red, d));
    if (red != 0) {
        out_dense(sc, 0, NULL, in->dtype, in->device, false);
        return 0;
    }
    if (dt_cat(tg->dtype) >= 2) // probabilities as the target: per-sample over dim 1
        return cgs_diag_set(d, CGS_E_UNKNOWN, "cross_entropy with probabilities is not tracked");
    out_dense(sc, tg->ndim, tg->shape, in->dtype, in->device, false);
    return 0;
}

/* hstack / vstack / dstack / column_stack(tensors): a concatenation, contiguous. */
static int stack_like(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
{
    struct operand o[256];
    uint32_t cnt, i, want, dim;
    sym_t shape[NDIM_MAX], cat = NULL;
    uint32_t nd = 0;

    TRY(tensor_list(sc, A(sc, "tensors"), o, &cnt, 256, d));
    if (!cnt)
        return cgs_diag_set(d, CGS_E_INVAL, "stack of no tensors");
    // kind 0 hstack, 1 vstack, 2 dstack, 3 column_stack
    for (i = 0; i < cnt; i++) {
        const struct cgs_tensor *t = o[i].t;
        sym_t s[NDIM_MAX];
        uint32_t sn = t->ndim;
        dimcpy(s, t->shape, t->ndim);
        want = kind == 0 ? 1 : kind == 1 ? 2 : kind == 2 ? 3 : 2;
        if (kind == 3 && sn <= 1) { // column_stack: vectors become columns
            s[0] = sn ? t->shape[0] : K(sc, 1), s[1] = K(sc, 1), sn = 2;
        } else if (sn < want) {
            // atleast_1d/2d/3d: [n] -> [1, n] (2d), [1, n, 1] (3d); [m, n] -> [m, n, 1]
            sym_t tmp[3];
            if (sn == 0)
                tmp[0] = tmp[1] = tmp[2] = K(sc, 1);
            else if (sn == 1)
                tmp[0] = K(sc, 1), tmp[1] = t->shape[0], tmp[2] = K(sc, 1);
            else
                tmp[0] = t->shape[0], tmp[1] = t->shape[1], tmp[2] = K(sc, 1);
            if (want == 1)
                s[0] = K(sc, 1);
            else
                dimcpy(s, tmp, want);
            sn = want;
        }
        dim = kind == 0 ? (sn == 1 ? 0 : 1) : kind == 1 ? 0 : kind == 2 ? 2 : 1;
        if (i == 0) {
            nd = sn;
            dimcpy(shape, s, sn);
            cat = s[dim];
        } else {
            if (sn != nd)
                return cgs_diag_set(d, CGS_E_INVAL, "stack: ranks differ");
            cat = S_add(sc, cat, s[dim]);
        }
        shape[dim] = cat;
    }
    out_dense(sc, nd, shape, result_type(o, cnt), o[0].t->device, false);
    return 0;
}

RULE(hstack) { (void)n; return stack_like(sc, 0, d); }
RULE(vstack) { (void)n; return stack_like(sc, 1, d); }
RULE(dstack) { (void)n; return stack_like(sc, 2, d); }
RULE(column_stack) { (void)n; return stack_like(sc, 3, d); }

/* take_along_dim(self, indices, dim): indices' size along dim, the broadcast of the others;
 * contiguous (gather). Without dim: the flattened take. */
RULE(take_along_dim)
{
    const struct cgs_tensor *t, *ix;
    sym_t shape[NDIM_MAX];
    uint32_t dim, i;
    int64_t dv;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "indices", &ix, d));
    if (is_none(A(sc, "dim"))) {
        sym_t numel = K(sc, 1);
        for (i = 0; i < ix->ndim; i++)
            numel = S_mul(sc, numel, ix->shape[i]);
        out_dense(sc, 1, &numel, t->dtype, t->device, false);
        return 0;
    }
    if (!int_const(sc, A(sc, "dim"), &dv) || t->ndim != ix->ndim || !wrap_dim(dv, t->ndim, &dim))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "take_along_dim: bad dims");
    for (i = 0; i < t->ndim; i++) {
        int64_t a = hv(sc, t->shape[i]), b = hv(sc, ix->shape[i]);
        shape[i] = i == dim ? ix->shape[i] : a == 1 ? ix->shape[i] : b == 1 ? t->shape[i]
                                                                           : t->shape[i];
    }
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

/* ---- more composite linalg and nn functions ------------------------------------------ */

/* A value per matrix of the batch (self.shape[:-2]): matrix_rank (int64), cond (real). */
static int per_matrix(struct cgs_shape_ctx *sc, enum cgs_dtype dt, struct cgs_diag *d)
{
    const struct cgs_tensor *t;

    TRY(square_input(sc, "self", &t, d));
    out_dense(sc, t->ndim - 2, t->shape, dt == CGS_DTYPE_UNKNOWN ? real_of(t->dtype) : dt,
              t->device, false);
    return 0;
}

RULE(matrix_rank) { (void)n; return per_matrix(sc, CGS_DTYPE_INT64, d); }
RULE(linalg_cond) { (void)n; return per_matrix(sc, CGS_DTYPE_UNKNOWN, d); }

/* linalg_multi_dot(tensors): [first's rows (none for a vector), last's cols (none for a
 * vector)], contiguous. */
RULE(multi_dot)
{
    struct operand o[64];
    uint32_t cnt, nd = 0;
    sym_t shape[2];

    (void)n;
    TRY(tensor_list(sc, A(sc, "tensors"), o, &cnt, 64, d));
    if (cnt < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "multi_dot of fewer than two tensors");
    if (o[0].t->ndim == 2)
        shape[nd++] = o[0].t->shape[0];
    if (o[cnt - 1].t->ndim == 2)
        shape[nd++] = o[cnt - 1].t->shape[1];
    out_dense(sc, nd, shape, result_type(o, cnt), o[0].t->device, false);
    return 0;
}

/* linalg_solve_ex(A, B, left): (result, info) of _linalg_solve_ex. */
RULE(linalg_solve_ex2)
{
    struct cgs_val *l;

    TRY(cgs_shape_rule_linalg_solve_ex(n, sc, d));
    l = new_list(sc, 2);
    l->u.items[0] = sc->out->u.items[0];
    l->u.items[1] = sc->out->u.items[3];
    sc->out = l;
    return 0;
}

/* torch.lu_solve(b, LU_data, LU_pivots): linalg_lu_solve's result (column-major like b). */
RULE(lu_solve_legacy)
{
    (void)n;
    return solver_result(sc, "LU_data", "self", true, d);
}

/* linalg_vander(x, N): [..., n, N (default n)], contiguous. */
RULE(vander)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "x", &t, d));
    if (t->ndim == 0 || t->ndim + 1 > NDIM_MAX)
        return cgs_diag_set(d, CGS_E_INVAL, "vander of rank %u", t->ndim);
    dimcpy(shape, t->shape, t->ndim);
    if (is_none(A(sc, "N")))
        shape[t->ndim] = t->shape[t->ndim - 1];
    else if (int_of(sc, A(sc, "N"), &shape[t->ndim]))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "vander: N not known");
    out_dense(sc, t->ndim + 1, shape, t->dtype, t->device, false);
    return 0;
}

/* bilinear(input1, input2, weight, bias): input1.shape[:-1] + [weight.shape[0]], contiguous. */
RULE(bilinear)
{
    const struct cgs_tensor *a, *w;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "input1", &a, d));
    TRY(need_tensor(sc, "weight", &w, d));
    if (a->ndim == 0 || w->ndim != 3)
        return cgs_diag_set(d, CGS_E_INVAL, "bilinear: bad ranks");
    dimcpy(shape, a->shape, a->ndim);
    shape[a->ndim - 1] = w->shape[0];
    out_dense(sc, a->ndim, shape, a->dtype, a->device, false);
    return 0;
}

/* tensordot(a, b, dims: int): a.shape[:-dims] + b.shape[dims:], contiguous. */
RULE(tensordot_int)
{
    const struct cgs_tensor *a, *b;
    sym_t shape[NDIM_MAX];
    int64_t k = 2;
    uint32_t nd = 0, i;

    (void)n;
    TRY(need_tensor(sc, "a", &a, d));
    TRY(need_tensor(sc, "b", &b, d));
    if (!is_none(A(sc, "dims")) && !int_const(sc, A(sc, "dims"), &k))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "tensordot with a list of dims is not tracked");
    if (k < 0 || (uint64_t)k > a->ndim || (uint64_t)k > b->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "tensordot: bad dims");
    for (i = 0; i + k < a->ndim; i++)
        shape[nd++] = a->shape[i];
    for (i = (uint32_t)k; i < b->ndim && nd < NDIM_MAX; i++)
        shape[nd++] = b->shape[i];
    {
        struct operand o[2] = {{0}};
        o[0].t = a, o[1].t = b;
        out_dense(sc, nd, shape, result_type(o, 2), a->device, false);
    }
    return 0;
}

/* broadcast_tensors(*tensors): each expanded to the broadcast shape (views). */
RULE(broadcast_tensors)
{
    struct operand o[64];
    sym_t shape[NDIM_MAX];
    uint32_t cnt, nd, i;
    struct cgs_val *l;

    (void)n;
    TRY(tensor_list(sc, A(sc, "tensors"), o, &cnt, 64, d));
    TRY(broadcast(sc, o, cnt, shape, &nd, d));
    l = new_list(sc, cnt);
    for (i = 0; i < cnt; i++) {
        TRY(expand_to(sc, o[i].t, shape, nd, d));
        l->u.items[i] = *sc->out;
    }
    sc->out = l;
    return 0;
}

/* torch.functional.lu(A, pivot, get_infos): (LU, pivots[, infos]). */
RULE(lu_legacy)
{
    TRY(cgs_shape_rule_linalg_factor_pivots(n, sc, d));
    return take_items(sc, 0, bool_of(A(sc, "get_infos"), false) ? 3 : 2);
}

/* adaptive_max_pool3d through torch.nn.functional: values unless the indices are asked for. */
RULE(adaptive_max_pool3d_f)
{
    TRY(cgs_shape_rule_adaptive_max_pool3d(n, sc, d));
    if (!bool_of(A(sc, "return_indices"), false))
        sc->out = &sc->out->u.items[0];
    return 0;
}

/* instance_norm: the input's shape and dtype, contiguous. */
RULE(instance_norm)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "input", &t, d));
    out_dense(sc, t->ndim, t->shape, t->dtype, t->device, false);
    return 0;
}

/* tensor_split(self, indices_or_sections, dim) and h/v/dsplit: views; n sections give
 * n % k pieces of n // k + 1 first, a list of indices the pieces between them. */
static int tensor_split_along(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t dim,
                              const struct cgs_arg *how, bool must_divide, struct cgs_diag *d)
{
    sym_t sizes[NDIM_MAX * 4];
    int64_t total, k, v;
    uint32_t cnt = 0, i;

    if (!cgs_sym_is_int(t->shape[dim], &total))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "tensor_split of a symbolic size is not tracked");
    if (how && how->kind == CGS_ARG_LIST) {
        int64_t prev = 0;
        if (how->n + 1 > NDIM_MAX * 4)
            return cgs_diag_set(d, CGS_E_LIMIT, "tensor_split into too many pieces");
        for (i = 0; i <= how->n; i++) {
            int64_t at = total;
            if (i < how->n && !int_const(sc, &how->u.items[i], &at))
                return cgs_diag_set(d, CGS_E_UNKNOWN, "tensor_split: indices not constant");
            if (at > total)
                at = total;
            if (at < prev)
                at = prev;
            sizes[cnt++] = K(sc, at - prev);
            prev = at;
        }
        return split_into(sc, t, dim, sizes, cnt);
    }
    if (!int_const(sc, how, &k) || k <= 0 || k > NDIM_MAX * 4)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "tensor_split: sections not constant");
    if (must_divide && total % k)
        return cgs_diag_set(d, CGS_E_INVAL, "split: size %lld not divisible by %lld",
                            (long long)total, (long long)k);
    for (i = 0; i < (uint32_t)k; i++) {
        v = total / k + ((int64_t)i < total % k ? 1 : 0);
        sizes[cnt++] = K(sc, v);
    }
    return split_into(sc, t, dim, sizes, cnt);
}

RULE(tensor_split)
{
    const struct cgs_tensor *t;
    uint32_t dim;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "tensor_split of a 0-dim tensor");
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    // by place: torch.tensor_split's indices_or_sections is ATen's indices, sections or
    // tensor_indices_or_sections, by overload
    return tensor_split_along(sc, t, dim, Ai(sc, 1), false, d);
}

static int xsplit(struct cgs_shape_ctx *sc, int which, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    uint32_t dim;

    TRY(need_tensor(sc, "self", &t, d));
    dim = which == 0 ? (t->ndim > 1 ? 1 : 0) : which == 1 ? 0 : 2;
    if (t->ndim <= dim || (which == 1 && t->ndim < 2) || (which == 2 && t->ndim < 3))
        return cgs_diag_set(d, CGS_E_INVAL, "split of a tensor of rank %u", t->ndim);
    return tensor_split_along(sc, t, dim, Ai(sc, 1), true, d); // as in tensor_split
}

RULE(hsplit) { (void)n; return xsplit(sc, 0, d); }
RULE(vsplit) { (void)n; return xsplit(sc, 1, d); }
RULE(dsplit) { (void)n; return xsplit(sc, 2, d); }

/* ---- kernels the OpInfo samples reach below the composites ------------------------------ */

/* hash_tensor(self, dim=[], *, keepdim=False, mode=0): a uint64 reduction (no dims: all). */
RULE(hash_tensor)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(reduce_shape(sc, t, A(sc, "dim"), bool_of(A(sc, "keepdim"), false), shape, &nd, d));
    out_dense(sc, nd, shape, CGS_DTYPE_UINT64, t->device, false);
    return 0;
}

/* geqrf(self [*, m, n]) -> (a, tau): a in LAPACK's column-major layout, tau [*, min(m, n)]. */
RULE(geqrf)
{
    const struct cgs_tensor *t;
    sym_t tau[NDIM_MAX];
    int64_t m, k;
    uint32_t i;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "geqrf of a tensor of rank %u", t->ndim);
    for (i = 0; i + 2 < t->ndim; i++)
        tau[i] = t->shape[i];
    if (cgs_sym_is_int(t->shape[t->ndim - 2], &m) && cgs_sym_is_int(t->shape[t->ndim - 1], &k))
        tau[t->ndim - 2] = K(sc, m < k ? m : k);
    else if (dim_eq(t->shape[t->ndim - 2], t->shape[t->ndim - 1]))
        tau[t->ndim - 2] = t->shape[t->ndim - 1];
    else
        return cgs_diag_set(d, CGS_E_UNKNOWN, "geqrf: min of symbolic sizes is not tracked");
    sc->out = new_list(sc, 2);
    lapack_fill(sc, &sc->out->u.items[0], t->ndim, t->shape, t->dtype, t->device, true);
    fill_dense(sc, &sc->out->u.items[1], t->ndim - 1, tau, t->dtype, t->device, false);
    return 0;
}

/* _fused_rms_norm(input, normalized_shape, weight, eps) -> (output, rstd): output contiguous
 * in the input's dtype; rstd [leading dims, 1 for each normalised one] in float32 (float64 for
 * a float64 input). A weight of another dtype is left unknown, as for rms_norm. */
RULE(fused_rms_norm)
{
    const struct cgs_tensor *t;
    sym_t norm[NDIM_MAX], rs[NDIM_MAX];
    uint32_t k, i;

    (void)n;
    TRY(need_tensor(sc, "input", &t, d));
    TRY(shape_param(sc, A(sc, "normalized_shape"), norm, &k, d));
    if (k == 0 || k > t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "rms_norm over %u of %u dims", k, t->ndim);
    TRY(rms_weight_ok(sc, t, d));
    if (dt_cat(t->dtype) != 2)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "rms_norm of a %s tensor is not tracked",
                            cgs_dtypes[t->dtype].name);
    for (i = 0; i < t->ndim; i++)
        rs[i] = i + k < t->ndim ? t->shape[i] : K(sc, 1);
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], t->ndim, t->shape, t->dtype, t->device, false);
    fill_dense(sc, &sc->out->u.items[1], t->ndim, rs,
               t->dtype == CGS_DTYPE_FLOAT64 ? CGS_DTYPE_FLOAT64 : CGS_DTYPE_FLOAT32, t->device,
               false);
    return 0;
}

/* multilabel_margin_loss_forward(self, target, reduction) -> (output, is_target): output as
 * the loss gives it (per sample for 'none' on a batch), is_target target's shape in self's
 * dtype. */
RULE(multilabel_margin_forward)
{
    const struct cgs_tensor *t, *tg;
    int64_t red;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "target", &tg, d));
    TRY(loss_reduction(sc, &red, d));
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], red == 0 && t->ndim == 2 ? 1 : 0, t->shape, t->dtype,
               t->device, false);
    fill_dense(sc, &sc->out->u.items[1], tg->ndim, tg->shape, t->dtype, t->device, false);
    return 0;
}

/* nll_loss2d_forward(self [N, C, H, W], target [N, H, W], weight, reduction, ignore_index) ->
 * (output, total_weight): target's shape for 'none', else 0-dim; total_weight 0-dim. */
RULE(nll_loss2d)
{
    const struct cgs_tensor *t, *tg;
    int64_t red;
    sym_t none[1];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "target", &tg, d));
    TRY(loss_reduction(sc, &red, d));
    sc->out = new_list(sc, 2);
    if (red == 0)
        fill_dense(sc, &sc->out->u.items[0], tg->ndim, tg->shape, t->dtype, t->device, false);
    else
        fill_dense(sc, &sc->out->u.items[0], 0, none, t->dtype, t->device, false);
    fill_dense(sc, &sc->out->u.items[1], 0, none, t->dtype, t->device, false);
    return 0;
}

/* _unsafe_masked_index(self, mask, indices, fill): where(mask, self[indices], fill): the
 * advanced index's shape (adv_index) broadcast with the mask; contiguous, self's dtype. */
RULE(masked_index)
{
    const struct cgs_tensor *t, *m;
    const struct cgs_arg *ix = A(sc, "indices");
    struct operand o[2];
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "mask", &m, d));
    if (!ix || ix->kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_INVAL, "masked index: bad indices");
    TRY(adv_index(sc, t, ix->u.items, ix->n, d)); // sc->out: self[indices]
    memset(o, 0, sizeof(o));
    o[0].t = &sc->out->u.t, o[1].t = m;
    TRY(broadcast(sc, o, 2, shape, &nd, d));
    out_dense(sc, nd, shape, t->dtype, t->device, false);
    return 0;
}

/* _chunk_cat(tensors, dim, num_chunks): each tensor cut into num_chunks chunks along dim (the
 * last padded), chunk i of every tensor flattened and concatenated: leading dims, num_chunks,
 * the sum of ceil(size / num_chunks) * (the tensor's trailing elements); contiguous. */
RULE(chunk_cat)
{
    const struct cgs_arg *ts = A(sc, "tensors");
    const struct cgs_tensor *t0 = NULL, *t;
    sym_t shape[NDIM_MAX];
    int64_t dv, nc, total = 0;
    uint32_t dim = 0, k, i;

    (void)n;
    if (!ts || ts->kind != CGS_ARG_LIST || ts->n == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "_chunk_cat needs a list of tensors");
    if (!int_const(sc, A(sc, "dim"), &dv) || !int_const(sc, A(sc, "num_chunks"), &nc) ||
        nc <= 0)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "_chunk_cat: dim or num_chunks not constant");
    for (k = 0; k < ts->n; k++) {
        int64_t len, rest = 1, v;
        int rc = arg_tensor(sc, &ts->u.items[k], &t);
        if (rc == -CGS_E_UNKNOWN)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "input 'tensors' is not known");
        if (rc || !t)
            return cgs_diag_set(d, CGS_E_INVAL, "_chunk_cat: item %u is not a tensor", k);
        if (!k) {
            t0 = t;
            if (!wrap_dim(dv, t->ndim, &dim) || t->ndim == 0)
                return cgs_diag_set(d, CGS_E_INVAL, "_chunk_cat: dim out of range");
        }
        if (t->ndim <= dim || !cgs_sym_is_int(t->shape[dim], &len))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "_chunk_cat of symbolic sizes is not tracked");
        for (i = dim + 1; i < t->ndim; i++) {
            if (!cgs_sym_is_int(t->shape[i], &v) || __builtin_mul_overflow(rest, v, &rest))
                return cgs_diag_set(d, CGS_E_UNKNOWN, "_chunk_cat: sizes not tracked");
        }
        if (__builtin_mul_overflow((len + nc - 1) / nc, rest, &v) ||
            __builtin_add_overflow(total, v, &total))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "_chunk_cat: size overflows");
    }
    if (dim + 2 > NDIM_MAX)
        return cgs_diag_set(d, CGS_E_LIMIT, "_chunk_cat: too many dims");
    for (i = 0; i < dim; i++)
        shape[i] = t0->shape[i];
    shape[dim] = K(sc, nc), shape[dim + 1] = K(sc, total);
    out_dense(sc, dim + 2, shape, t0->dtype, t0->device, false);
    return 0;
}

/* ---- the pass ---------------------------------------------------------------------------- */

static const char *arena_msg(struct cgs_arena *ar, const char *s)
{
    return cgs_arena_strdup(ar, s);
}

/* The argument a declaration names: a position, or a keyword. */
static const struct cgs_val *decl_arg(struct cgs_shape_ctx *sc, const struct cgs_node *n,
                                      const struct cgs_decl_ref *ref)
{
    if (ref->pos >= 0)
        return (uint32_t)ref->pos < n->n_args ? node_val(sc, &n->args[ref->pos]) : NULL;
    for (uint32_t k = 0; k < n->n_kwargs; k++)
        if (!strcmp(n->kwargs[k].key, ref->name))
            return node_val(sc, &n->kwargs[k].val);
    return NULL;
}

static void ref_text(const struct cgs_decl_ref *ref, char *buf, size_t n)
{
    if (ref->pos >= 0)
        snprintf(buf, n, "argument %d", ref->pos);
    else
        snprintf(buf, n, "argument '%s'", ref->name);
}

/* A declared operator's value (lib/opdecl.h). */
static int infer_declared(struct cgs_shape_ctx *sc, const struct cgs_node *n,
                          const struct cgs_decl *dc, struct cgs_diag *d)
{
    struct cgs_val *list = dc->n_outs > 1 ? new_list(sc, dc->n_outs) : NULL;
    char what[300];

    for (uint32_t k = 0; k < dc->n_outs; k++) {
        const struct cgs_decl_out *o = &dc->outs[k];
        const struct cgs_val *like;
        sym_t shape[NDIM_MAX];
        enum cgs_dtype dt;
        struct cgs_val *v = list ? &list->u.items[k] : NULL;
        if (o->none) {
            if (!v)
                v = new_val(sc, CGS_VAL_NONE);
            else
                v->kind = CGS_VAL_NONE;
            if (!list)
                sc->out = v;
            continue;
        }
        like = decl_arg(sc, n, &o->like);
        ref_text(&o->like, what, sizeof(what));
        if (!like)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "%s (declared in %s:%u) is not known", what,
                                dc->file, dc->line);
        if (like->kind != CGS_VAL_TENSOR || !tensor_known(&like->u.t))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "%s (declared in %s:%u) is not a known tensor",
                                what, dc->file, dc->line);
        dimcpy(shape, like->u.t.shape, like->u.t.ndim);
        dt = like->u.t.dtype;
        for (uint32_t m = 0; m < o->n_mods; m++) {
            const struct cgs_decl_mod *md = &o->mods[m];
            uint32_t w;
            if (md->kind == CGS_DECL_DTYPE) {
                dt = md->dtype;
                continue;
            }
            if (!wrap_dim(md->dim, like->u.t.ndim, &w) || !like->u.t.ndim)
                return cgs_diag_set(d, CGS_E_INVAL, "dim %d out of range for rank %u (%s:%u)",
                                    md->dim, like->u.t.ndim, dc->file, dc->line);
            if (md->from_arg) {
                const struct cgs_val *of = decl_arg(sc, n, &md->of);
                uint32_t w2;
                ref_text(&md->of, what, sizeof(what));
                if (!of || of->kind != CGS_VAL_TENSOR || !tensor_known(&of->u.t))
                    return cgs_diag_set(d, CGS_E_UNKNOWN, "%s (%s:%u) is not a known tensor",
                                        what, dc->file, dc->line);
                if (!wrap_dim(md->of_dim, of->u.t.ndim, &w2) || !of->u.t.ndim)
                    return cgs_diag_set(d, CGS_E_INVAL, "dim %d of %s out of range (%s:%u)",
                                        md->of_dim, what, dc->file, dc->line);
                shape[w] = of->u.t.shape[w2];
            } else {
                shape[w] = K(sc, md->size);
            }
        }
        {
            bool same = true;
            for (uint32_t m = 0; m < o->n_mods; m++)
                same = same && o->mods[m].kind == CGS_DECL_DTYPE;
            // no size changed: torch.empty_like (a dense layout kept), as fake impls write it;
            // otherwise a new contiguous tensor (new_empty)
            if (same) {
                TRY(copy_like(sc, &like->u.t, dt, NULL, NULL));
                if (list)
                    *v = *sc->out;
                continue;
            }
        }
        if (list)
            fill_dense(sc, v, like->u.t.ndim, shape, dt, like->u.t.device, false);
        else
            out_dense(sc, like->u.t.ndim, shape, dt, like->u.t.device, false);
    }
    if (list)
        sc->out = list;
    return 0;
}

static void infer_node(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_shape_node *r)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct op_slot *slot = &sc->ops[((uintptr_t)n->target >> 3) & (OP_SLOTS - 1)];
    enum cgs_op op;
    int rc = 0;

    if (slot->target != n->target || !n->target) {
        slot->target = n->target;
        slot->suggested = slot->decl_looked = false;
    }
    op = (enum cgs_op)n->op_id; // resolved when the graph was linked
    if ((unsigned)op >= CGS_OP_COUNT)
        op = CGS_OP_UNKNOWN;

    r->val = NULL;
    if (sc->decls && sc->decls->n &&
        (n->op == CGS_NODE_CALL_FUNCTION || n->op == CGS_NODE_CALL_METHOD)) {
        const struct cgs_decl *dc;
        if (!slot->decl_looked) {
            slot->decl = cgs_opdecls_find(sc->decls, n->target);
            slot->decl_looked = true;
        }
        dc = slot->decl;
        if (dc) {
            struct cgs_diag dd = CGS_DIAG_INIT;
            int drc;
            sc->out = NULL;
            drc = infer_declared(sc, n, dc, &dd);
            r->val = sc->out;
            r->status = drc == 0                ? CGS_SHAPE_OK
                        : drc == -CGS_E_UNKNOWN ? CGS_SHAPE_PARTIAL
                                                : CGS_SHAPE_ERROR;
            if (drc)
                r->reason = arena_msg(sc->ar, dd.msg);
            if (drc && drc != -CGS_E_UNKNOWN)
                r->val = NULL;
            return;
        }
    }
    if (op == CGS_OP_UNKNOWN || cgs_ops[op].infer == cgs_shape_rule_none ||
        (n->op != CGS_NODE_CALL_FUNCTION && n->op != CGS_NODE_CALL_METHOD)) {
        char msg[300];
        r->status = CGS_SHAPE_UNKNOWN_OP;
        if (op == CGS_OP_UNKNOWN && !slot->suggested &&
            (n->op == CGS_NODE_CALL_FUNCTION || n->op == CGS_NODE_CALL_METHOD)) {
            slot->suggest = cgs_op_suggest(n->target);
            slot->suggested = true;
        }
        snprintf(msg, sizeof(msg), "no shape rule for %s '%s'%s%s%s", cgs_node_op_names[n->op],
                 n->target ? n->target : "",
                 op != CGS_OP_UNKNOWN                    ? " (an operator torch 2.11 has)"
                 : slot->suggested && slot->suggest      ? "; did you mean '"
                 : " (not in cgscope's registry of torch 2.11: declare it with --ops)",
                 op == CGS_OP_UNKNOWN && slot->suggested && slot->suggest ? slot->suggest : "",
                 op == CGS_OP_UNKNOWN && slot->suggested && slot->suggest ? "'?" : "");
        r->reason = arena_msg(sc->ar, msg);
        return;
    }
    sc->op = &cgs_ops[op];
    sc->out = NULL;
    memset(&sc->rest, 0, sizeof(sc->rest));
    sc->schema = &sc->schemas[op];
    if (sc->schema->n == UINT32_MAX) {
        rc = parse_schema(sc, sc->op->schema);
        sc->schema->n = sc->n_params;
        sc->schema->p = cgs_arena_calloc(sc->ar, sc->n_params ? sc->n_params : 1, sizeof(*sc->p));
        memcpy(sc->schema->p, sc->p, sc->n_params * sizeof(*sc->p));
    } else {
        sc->n_params = sc->schema->n;
        memcpy(sc->p, sc->schema->p, sc->n_params * sizeof(*sc->p));
    }
    if (!rc)
        rc = bind_args(sc, n, &d);
    if (!rc)
        rc = sc->op->infer(n, sc, &d);
    r->val = sc->out;
    if (rc == 0) {
        r->status = CGS_SHAPE_OK;
        return;
    }
    if (rc == -CGS_E_UNKNOWN) {
        r->status = CGS_SHAPE_PARTIAL;
        r->reason = arena_msg(sc->ar, d.msg[0] ? d.msg : "partly known");
        return;
    }
    r->status = CGS_SHAPE_ERROR;
    r->val = NULL;
    r->reason = arena_msg(sc->ar, d.msg[0] ? d.msg : cgs_strerror(rc));
}

/*
 * A node that is not ok: find what it comes from. An input that is itself not ok (and has
 * no recorded value standing in for it) is the cause, and its root is this node's root; such
 * a node is partial with "blocked by" as its reason, never an error. Otherwise (an unknown
 * operator, a rule that gave up on known inputs) the node is a root cause itself.
 */
static void blame(const struct cgs_graph *g, struct cgs_shapes *res, const struct cgs_node *n,
                  struct cgs_shape_node *r, bool reinfer)
{
    uint32_t k;

    r->root = (int32_t)n->index;
    if (r->status == CGS_SHAPE_UNKNOWN_OP)
        goto done;
    for (k = 0; k < n->n_inputs; k++) {
        const struct cgs_node *in = n->inputs[k];
        const struct cgs_shape_node *ir = &res->nodes[in->index];
        char msg[400];
        if (ir->status == CGS_SHAPE_OK || ir->root < 0 || (!reinfer && in->val))
            continue;
        r->root = ir->root;
        if (ir->root != (int32_t)in->index)
            snprintf(msg, sizeof(msg), "blocked by '%s' (root cause '%s')", in->name,
                     g->nodes[ir->root]->name);
        else
            snprintf(msg, sizeof(msg), "blocked by '%s'", in->name);
        r->reason = cgs_arena_strdup(g->arena, msg);
        if (r->status == CGS_SHAPE_ERROR)
            r->status = CGS_SHAPE_PARTIAL;
        break;
    }
done:
    res->nodes[r->root].blocks++;
}

/* The caches: the top-level inference's own (about 480 KB, zeroed), a body's those of the
 * inference it is inside (one root's symbols, arena and operator tables: the same answers). */
static const struct cgs_shape_ctx *nest_root(const struct cgs_shape_ctx *sc)
{
    return sc->opts && sc->opts->nest ? sc->opts->nest->root : NULL;
}

static void caches_take(struct cgs_shape_ctx *sc)
{
    const struct cgs_shape_ctx *root = nest_root(sc);
    if (root) {
        sc->hints = root->hints;
        sc->ops = root->ops;
        sc->schemas = root->schemas;
        sc->small = root->small;
        sc->memo = root->memo;
        return;
    }
    sc->hints = cgs_xcalloc(HINT_SLOTS, sizeof(*sc->hints));
    sc->ops = cgs_xcalloc(OP_SLOTS, sizeof(*sc->ops));
    sc->schemas = cgs_xcalloc(CGS_OP_COUNT, sizeof(*sc->schemas));
    sc->small = cgs_xcalloc(SMALL_INTS, sizeof(*sc->small));
    sc->memo = cgs_xcalloc(MEMO_SLOTS, sizeof(*sc->memo));
    for (uint32_t i = 0; i < CGS_OP_COUNT; i++)
        sc->schemas[i].n = UINT32_MAX;
}

static void caches_drop(struct cgs_shape_ctx *sc)
{
    if (nest_root(sc))
        return; /* a body's caches are its root's */
    free(sc->hints);
    free(sc->ops);
    free(sc->schemas);
    free(sc->small);
    free(sc->memo);
}

int cgs_shapes_infer(struct cgs_graph *g, const struct cgs_shapes_opts *opts,
                     struct cgs_shapes **out, struct cgs_diag *d)
{
    struct cgs_shape_ctx sc;
    struct cgs_shapes *res;
    struct cgs_buf why = CGS_BUF_INIT;
    bool reinfer = opts && opts->reinfer;
    uint32_t n_placeholders = 0;
    uint32_t i;

    *out = NULL;
    memset(&sc, 0, sizeof(sc));
    sc.g = g;
    sc.sx = g->syms;
    sc.decls = opts ? opts->decls : NULL;
    sc.opts = opts;
    sc.ar = g->arena;
    sc.vals = cgs_arena_calloc(g->arena, g->n_nodes ? g->n_nodes : 1, sizeof(*sc.vals));
    caches_take(&sc);
    res = cgs_arena_alloc(g->arena, sizeof(*res));
    if (res)
        res->nodes = cgs_arena_calloc(g->arena, g->n_nodes ? g->n_nodes : 1, sizeof(*res->nodes));
    if (!sc.vals || !res || !res->nodes) {
        caches_drop(&sc);
        return cgs_diag_set(d, CGS_E_NOMEM, "no memory for the shape table of %u nodes",
                            g->n_nodes);
    }
    res->n_nodes = g->n_nodes;
    res->summary.nodes = g->n_nodes;
    for (i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        struct cgs_shape_node *r = &res->nodes[i];
        switch (n->op) {
        case CGS_NODE_PLACEHOLDER:
        case CGS_NODE_GET_ATTR:
            r->val = n->val;
            if (n->op == CGS_NODE_PLACEHOLDER && opts && opts->inputs &&
                n_placeholders < opts->n_inputs && opts->inputs[n_placeholders])
                r->val = opts->inputs[n_placeholders];
            if (n->op == CGS_NODE_PLACEHOLDER)
                n_placeholders++;
            r->status = r->val ? CGS_SHAPE_OK : CGS_SHAPE_PARTIAL;
            r->root = r->val ? -1 : (int32_t)i;
            if (!r->val && n->op == CGS_NODE_GET_ATTR && subgraph_of(g, n)) {
                // a higher-order op's body: a module, no tensor value to infer
                r->status = CGS_SHAPE_OK;
                r->root = -1;
            } else if (!r->val) {
                r->reason = "input value not recorded";
                r->blocks++;
            }
            sc.vals[i] = r->val;
            break;
        case CGS_NODE_OUTPUT:
            r->status = CGS_SHAPE_OK;
            r->root = -1;
            break;
        default:
            infer_node(&sc, n, r);
            r->root = -1;
            if (r->status != CGS_SHAPE_OK)
                blame(g, res, n, r, reinfer);
            if (r->status == CGS_SHAPE_OK || r->status == CGS_SHAPE_PARTIAL)
                res->summary.inferred++;
            if (n->val && r->val) {
                cgs_buf_reset(&why);
                r->cmp = cgs_shapes_compare(r->val, n->val, &why);
                if (r->cmp == CGS_SHAPE_CMP_MATCH) {
                    res->summary.matched++;
                } else if (r->cmp != CGS_SHAPE_CMP_NONE) {
                    res->summary.mismatched++;
                    if (!r->reason)
                        r->reason = arena_msg(g->arena, why.buf);
                }
            }
            sc.vals[i] = (!reinfer && n->val) ? n->val : r->val;
            break;
        }
        switch (r->status) {
        case CGS_SHAPE_UNKNOWN_OP:
            res->summary.unknown++;
            break;
        case CGS_SHAPE_PARTIAL:
            res->summary.partial++;
            break;
        case CGS_SHAPE_ERROR:
            res->summary.errors++;
            break;
        default:
            break;
        }
    }
    cgs_buf_release(&why);
    caches_drop(&sc);
    // "validated" promises every value inferred and, where torch recorded one, equal to it
    res->summary.validated = !res->summary.unknown && !res->summary.partial &&
                             !res->summary.errors && !res->summary.mismatched;
    *out = res;
    return 0;
}

/* ---- bindings and bytes ------------------------------------------------------------------ */

int cgs_val_bytes(const struct cgs_val *v, cgs_sym_lookup_fn lookup, void *ud, int64_t *bytes)
{
    uint32_t i;

    *bytes = 0;
    if (!v)
        return -CGS_E_UNKNOWN;
    if (v->kind == CGS_VAL_LIST) {
        for (i = 0; i < v->n; i++) {
            int64_t b;
            int rc = cgs_val_bytes(&v->u.items[i], lookup, ud, &b);
            if (rc == -CGS_E_UNKNOWN && v->u.items[i].kind != CGS_VAL_TENSOR)
                continue;
            if (rc)
                return rc;
            if (*bytes > INT64_MAX - b)
                return -CGS_E_LIMIT;
            *bytes += b;
        }
        return 0;
    }
    if (v->kind != CGS_VAL_TENSOR)
        return -CGS_E_UNKNOWN;
    {
        const struct cgs_tensor *t = &v->u.t;
        int64_t total;
        if (t->ndim == CGS_NDIM_UNKNOWN || t->dtype == CGS_DTYPE_UNKNOWN || !t->shape)
            return -CGS_E_UNKNOWN;
        total = cgs_dtypes[t->dtype].itemsize;
        for (i = 0; i < t->ndim; i++) {
            int64_t s;
            int rc;
            if (!t->shape[i])
                return -CGS_E_UNKNOWN;
            rc = cgs_sym_eval(t->shape[i], lookup, ud, &s);
            if (rc)
                return rc;
            if (s < 0)
                return -CGS_E_INVAL;
            if (s && total > INT64_MAX / s)
                return -CGS_E_LIMIT;
            total *= s;
        }
        *bytes = total;
    }
    return 0;
}

static const struct cgs_sym *bind_dim(struct cgs_symctx *sx, const struct cgs_sym *e,
                                      cgs_sym_lookup_fn lookup, void *ud)
{
    int64_t v;

    if (!e || cgs_sym_is_int(e, &v))
        return e;
    if (cgs_sym_eval(e, lookup, ud, &v) == 0)
        return cgs_sym_int(sx, v);
    return e;
}

struct cgs_val *cgs_val_bind(const struct cgs_val *v, struct cgs_symctx *sx,
                             struct cgs_arena *arena, cgs_sym_lookup_fn lookup, void *ud)
{
    struct cgs_val *o;
    uint32_t i;

    if (!v)
        return NULL;
    o = cgs_arena_alloc(arena, sizeof(*o));
    *o = *v;
    if (v->kind == CGS_VAL_LIST) {
        o->u.items = cgs_arena_calloc(arena, v->n ? v->n : 1, sizeof(*o->u.items));
        for (i = 0; i < v->n; i++) {
            struct cgs_val *it = cgs_val_bind(&v->u.items[i], sx, arena, lookup, ud);
            o->u.items[i] = *it;
        }
    } else if (v->kind == CGS_VAL_TENSOR && v->u.t.ndim != CGS_NDIM_UNKNOWN) {
        struct cgs_tensor *t = &o->u.t;
        uint32_t nd = v->u.t.ndim;
        t->shape = cgs_arena_calloc(arena, nd ? nd : 1, sizeof(*t->shape));
        t->stride = v->u.t.stride ? cgs_arena_calloc(arena, nd ? nd : 1, sizeof(*t->stride)) : NULL;
        for (i = 0; i < nd; i++) {
            t->shape[i] = bind_dim(sx, v->u.t.shape ? v->u.t.shape[i] : NULL, lookup, ud);
            if (t->stride)
                t->stride[i] = bind_dim(sx, v->u.t.stride[i], lookup, ud);
        }
        t->storage_offset = bind_dim(sx, v->u.t.storage_offset, lookup, ud);
    } else if (v->kind == CGS_VAL_SYMINT) {
        const struct cgs_sym *e = bind_dim(sx, v->u.s.sym, lookup, ud);
        int64_t c;
        if (e && cgs_sym_is_int(e, &c)) {
            o->kind = CGS_VAL_INT;
            o->u.i = c;
        }
    }
    return o;
}
