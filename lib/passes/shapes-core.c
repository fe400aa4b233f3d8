/* Shape rules and helpers (lib/passes/shapes.h): small helpers, tensors, binding arguments to the schema, dtypes, results: what every rule uses. */
#include "lib/passes/shapes-int.h"

/* ---- small helpers ------------------------------------------------------------------- */


/* Copy n dims (n may be 0, and then either pointer NULL). */
void dimcpy(sym_t *dst, const sym_t *src, size_t n)
{
    if (n)
        memcpy(dst, src, n * sizeof(*dst));
}

/* The value of e at the symbols' hints; false when it has none. */

bool hint(const struct cgs_shape_ctx *sc, sym_t e, int64_t *v)
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
int64_t hv(const struct cgs_shape_ctx *sc, sym_t e)
{
    int64_t v;

    return hint(sc, e, &v) ? v : INT64_MAX / 4;
}

/* a * b for hints, saturating at hv's "no hint" value (an unbacked size's stand-in must not
 * overflow what it is multiplied into) */
int64_t hmul(int64_t a, int64_t b)
{
    int64_t r;

    if (__builtin_mul_overflow(a, b, &r) || r > INT64_MAX / 4 || r < -(INT64_MAX / 4))
        return (a < 0) != (b < 0) ? -(INT64_MAX / 4) : INT64_MAX / 4;
    return r;
}


/* A constant; small non-negative ones come from a table (interning is the hot path). */
sym_t K(struct cgs_shape_ctx *sc, int64_t v)
{
    sym_t e;

    if (v < 0 || v >= SMALL_INTS)
        return cgs_sym_int(sc->sx, v);
    e = sc->small[v];
    if (!e)
        e = sc->small[v] = cgs_sym_int(sc->sx, v);
    return e;
}


/* Symbolic arithmetic through a small memo: the same products recur node after node. */
sym_t memo(struct cgs_shape_ctx *sc, char op, sym_t a, sym_t b)
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

bool both_const(sym_t a, sym_t b, int64_t *x, int64_t *y)
{
    return a->kind == CGS_SYM_INT && b->kind == CGS_SYM_INT && cgs_sym_is_int(a, x) &&
           cgs_sym_is_int(b, y);
}

sym_t S_add(struct cgs_shape_ctx *sc, sym_t a, sym_t b)
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

sym_t S_sub(struct cgs_shape_ctx *sc, sym_t a, sym_t b)
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

sym_t S_mul(struct cgs_shape_ctx *sc, sym_t a, sym_t b)
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

sym_t S_div(struct cgs_shape_ctx *sc, sym_t a, sym_t b)
{
    return a && b ? memo(sc, '/', a, b) : NULL;
}

bool has_func(sym_t a)
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
/* Whether SymPy sees a size expression as at least 1 from its symbols being positive
 * integers alone: sums and products of them with positive coefficients, powers, a Max of
 * one such, a Min of all such. A floor division, a modulo, a difference or a function of
 * torch's vocabulary it does not see through. */
static bool sympy_ge1(sym_t a)
{
    switch (a->kind) {
    case CGS_SYM_INT:
        return a->v >= 1;
    case CGS_SYM_VAR:
        return true;
    case CGS_SYM_POW:
        return sympy_ge1(a->op[0]);
    case CGS_SYM_MUL: /* v: the coefficient, at least 1 */
    case CGS_SYM_ADD: /* v: the constant, at least 0 */
        if (a->v < (a->kind == CGS_SYM_MUL ? 1 : 0))
            return false;
        for (uint32_t i = 0; i < a->n; i++)
            if (!sympy_ge1(a->op[i]))
                return false;
        return true;
    case CGS_SYM_MAX:
        for (uint32_t i = 0; i < a->n; i++)
            if (sympy_ge1(a->op[i]))
                return true;
        return false;
    case CGS_SYM_MIN:
        for (uint32_t i = 0; i < a->n; i++)
            if (!sympy_ge1(a->op[i]))
                return false;
        return true;
    default:
        return false;
    }
}

sym_t S_max1(struct cgs_shape_ctx *sc, sym_t a)
{
    int64_t v;

    if (!a)
        return NULL;
    if (cgs_sym_is_int(a, &v))
        return v < 1 ? K(sc, 1) : a;
    if (!sympy_ge1(a))
        return cgs_sym_max(sc->sx, K(sc, 1), a);
    return a;
}

bool is_const(sym_t e, int64_t v)
{
    int64_t x;

    return e && cgs_sym_is_int(e, &x) && x == v;
}

/* ---- tensors ---------------------------------------------------------------------- */

struct cgs_val *new_val(struct cgs_shape_ctx *sc, enum cgs_val_kind kind)
{
    struct cgs_val *v = cgs_arena_alloc(sc->ar, sizeof(*v));

    v->kind = kind;
    return v;
}

struct cgs_tensor *fill_tensor(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t ndim,
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

struct cgs_tensor *new_tensor_val(struct cgs_shape_ctx *sc, struct cgs_val **vp,
                                  uint32_t ndim, enum cgs_dtype dtype, const char *device)
{
    *vp = cgs_arena_alloc(sc->ar, sizeof(**vp));
    return fill_tensor(sc, *vp, ndim, dtype, device);
}


/* A new tensor as the node's result. */
struct cgs_tensor *out_tensor(struct cgs_shape_ctx *sc, uint32_t ndim, enum cgs_dtype dtype,
                              const char *device)
{
    return new_tensor_val(sc, &sc->out, ndim, dtype, device);
}

bool tensor_known(const struct cgs_tensor *t)
{
    uint32_t i;

    if (t->ndim == CGS_NDIM_UNKNOWN || !t->shape || !t->stride || !t->storage_offset)
        return false;
    for (i = 0; i < t->ndim; i++)
        if (!t->shape[i] || !t->stride[i])
            return false;
    return true;
}

void contiguous_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
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
void permuted_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                      const uint32_t *perm, sym_t *stride)
{
    sym_t m = K(sc, 1);
    uint32_t i;

    for (i = nd; i-- > 0;) {
        stride[perm[i]] = m;
        m = S_mul(sc, m, S_max1(sc, shape[perm[i]]));
    }
}

void channels_last_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
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
void hints(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t, int64_t *sz,
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

bool h_contiguous(uint32_t nd, const int64_t *sz, const int64_t *st)
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

bool h_channels_last(uint32_t nd, const int64_t *sz, const int64_t *st)
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
bool h_strides_like_cl(uint32_t nd, const int64_t *sz, const int64_t *st)
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

bool suggest_cl(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t)
{
    int64_t sz[NDIM_MAX], st[NDIM_MAX];

    if (t->ndim != 4 && t->ndim != 5)
        return false;
    hints(sc, t, sz, st);
    return h_strides_like_cl(t->ndim, sz, st);
}

/* _prims_common's ge() of should_swap: a >= b for non-negative a, b. */
bool ge_nn(int64_t a, int64_t b)
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
void elementwise_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
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
        /* torch.channels_last: 4 dims only (a 5-d tensor is never channels_last here) */
        all_cl = all_cl && nd == 4 && h_channels_last(nd, sz, st[k]);
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
void broadcast_hint_strides(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
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
void preserve_strides(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, sym_t *out)
{
    int64_t st[1][NDIM_MAX];

    hints(sc, t, NULL, st[0]);
    elementwise_strides(sc, t->ndim, t->shape, 1, st, out);
}

/* ---- binding arguments to the schema ------------------------------------------------- */

/* Split the schema into parameters; 0, or -CGS_E_LIMIT for too many. */
int parse_schema(struct cgs_shape_ctx *sc, const char *s)
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


size_t pname_len(const struct cgs_shape_ctx *sc, uint32_t i)
{
    return sc->p[i].name_len & ~KWONLY_BIT;
}


int bind_args(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_diag *d)
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

int find_param(const struct cgs_shape_ctx *sc, const char *name)
{
    size_t len = strlen(name);
    uint32_t i;

    for (i = 0; i < sc->n_params; i++)
        if (pname_len(sc, i) == len && !memcmp(sc->p[i].name, name, len))
            return (int)i;
    return -1;
}

/* Parse a schema default ("None", "1", "[1, 1]", "True", "0.5", "'none'") into the arena. */
const struct cgs_arg *parse_default(struct cgs_shape_ctx *sc, const char *s, size_t len)
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


/* The argument bound to a parameter, or its default; NULL when neither. */
const struct cgs_arg *A(struct cgs_shape_ctx *sc, const char *name)
{
    int i = find_param(sc, name);

    if (i < 0)
        return NULL;
    return Ai(sc, (uint32_t)i);
}

/* The argument at position i of the schema (bound or default). */
const struct cgs_arg *Ai(struct cgs_shape_ctx *sc, uint32_t i)
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

bool is_none(const struct cgs_arg *a) { return !a || a->kind == CGS_ARG_NONE; }

const struct cgs_val *node_val(const struct cgs_shape_ctx *sc, const struct cgs_arg *a)
{
    if (!a || a->kind != CGS_ARG_NODE || !a->u.node)
        return NULL;
    return sc->vals[a->u.node->index];
}

/*
 * A tensor argument: 0 with *t set (fully known), 1 when None or absent,
 * -CGS_E_UNKNOWN when not known (yet), -CGS_E_INVAL when not a tensor.
 */
int arg_tensor(struct cgs_shape_ctx *sc, const struct cgs_arg *a,
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
int need_tensor(struct cgs_shape_ctx *sc, const char *name, const struct cgs_tensor **t,
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
int int_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *out)
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
bool int_const(struct cgs_shape_ctx *sc, const struct cgs_arg *a, int64_t *v)
{
    sym_t e;

    return int_of(sc, a, &e) == 0 && cgs_sym_is_int(e, v);
}

/*
 * A list of integers: a LIST of ints/SymInts, a node whose value is a list
 * (a torch.Size), or a single int (n = 1, the caller repeats it).
 * 0, 1 for None, -CGS_E_UNKNOWN, -CGS_E_INVAL or -CGS_E_LIMIT.
 */
int ints_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *out, uint32_t *n)
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

bool bool_of(const struct cgs_arg *a, bool def)
{
    if (!a)
        return def;
    if (a->kind == CGS_ARG_BOOL)
        return a->u.b;
    if (a->kind == CGS_ARG_INT)
        return a->u.i != 0;
    return def;
}

enum cgs_dtype dtype_of(const struct cgs_arg *a)
{
    return a && a->kind == CGS_ARG_DTYPE ? a->u.dtype : CGS_DTYPE_UNKNOWN;
}

const char *str_of(const struct cgs_arg *a)
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
bool wrap_dim(int64_t dim, uint32_t rank, uint32_t *out)
{
    int64_t r = rank ? rank : 1;

    if (dim < 0)
        dim += r;
    if (dim < 0 || dim >= r)
        return false;
    *out = (uint32_t)dim;
    return true;
}

int dim_arg(struct cgs_shape_ctx *sc, const char *name, uint32_t rank, uint32_t *out,
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

int dt_cat(enum cgs_dtype t)
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

enum cgs_dtype promote2(enum cgs_dtype a, enum cgs_dtype b)
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

/* 0, 1 for None/absent, -CGS_E_UNKNOWN, -CGS_E_INVAL. */
/* A Python complex literal as FX prints one (`(0.5+0j)`, `1j`, `(-0-2.5j)`, `(nan+infj)`):
 * graphs carry complex scalars only as such a repr. */
static bool complex_repr(const char *s)
{
    bool paren = *s == '(';
    char *end;

    s += paren;
    if (*s == '-' || *s == '+')
        s++;
    if (!strncmp(s, "nan", 3) || !strncmp(s, "inf", 3))
        s += 3;
    else if (strtod(s, &end), end != s)
        s = end;
    else
        return false;
    if (*s == 'j')
        return paren ? !strcmp(s, "j)") : !strcmp(s, "j");
    if (!paren || (*s != '+' && *s != '-'))
        return false;
    s++;
    if (!strncmp(s, "nan", 3) || !strncmp(s, "inf", 3))
        s += 3;
    else if (strtod(s, &end), end != s)
        s = end;
    else
        return false;
    return !strcmp(s, "j)");
}

int operand_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, struct operand *o)
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
    case CGS_ARG_REPR:
        if (!a->u.s || !complex_repr(a->u.s))
            return -CGS_E_INVAL;
        o->scalar = CGS_DTYPE_COMPLEX64;
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
enum cgs_dtype result_type(const struct operand *o, uint32_t n)
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

bool is_float_like(enum cgs_dtype t) { return t != CGS_DTYPE_UNKNOWN && dt_cat(t) >= 2; }

/* ---- results ------------------------------------------------------------------------- */

void set_symint(struct cgs_shape_ctx *sc, struct cgs_val *v, sym_t e)
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

struct cgs_val *new_list(struct cgs_shape_ctx *sc, uint32_t n)
{
    struct cgs_val *v = new_val(sc, CGS_VAL_LIST);

    v->n = n;
    v->u.items = cgs_arena_calloc(sc->ar, n ? n : 1, sizeof(*v->u.items));
    return v;
}

/* A copy of t's metadata with fresh arrays (for views to edit). */
struct cgs_tensor *copy_tensor(struct cgs_shape_ctx *sc, struct cgs_val *v,
                               const struct cgs_tensor *t, uint32_t ndim)
{
    struct cgs_tensor *o = fill_tensor(sc, v, ndim, t->dtype, t->device);

    o->storage_offset = t->storage_offset;
    o->requires_grad = t->requires_grad;
    return o;
}

/* Python-style broadcast of shapes; 0 or an error. */
int broadcast(struct cgs_shape_ctx *sc, const struct operand *o, uint32_t n, sym_t *shape,
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

const char *device_of(const struct operand *o, uint32_t n)
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
int elementwise(struct cgs_shape_ctx *sc, const struct operand *o, uint32_t n,
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
            cl = cl && o[k].t->ndim == 4 && h_channels_last(o[k].t->ndim, osz, ost);
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
int operands(struct cgs_shape_ctx *sc, uint32_t count, struct operand *o, uint32_t *n,
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

bool any_tensor(const struct operand *o, uint32_t n)
{
    uint32_t k;

    for (k = 0; k < n; k++)
        if (o[k].t)
            return true;
    return false;
}

bool any_symbolic(const struct operand *o, uint32_t n)
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

int unary_with(struct cgs_shape_ctx *sc, int mode, struct cgs_diag *d)
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
int rms_weight_ok(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, struct cgs_diag *d)
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
int same_as_first(struct cgs_shape_ctx *sc, struct cgs_diag *d)
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
int scalar_compare(struct cgs_shape_ctx *sc, unsigned cmp, sym_t a, sym_t b)
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
/* A scalar as Python's float arithmetic sees it: SymPy's text of it and its value (hint);
 * *sym when it is symbolic (a SymFloat, or a SymInt promoted: ToFloat(s0)). */
static bool float_term(struct cgs_shape_ctx *sc, const struct cgs_arg *a, const struct operand *o,
                       struct cgs_buf *text, double *v, bool *sym)
{
    const struct cgs_val *nv = a && a->kind == CGS_ARG_NODE ? node_val(sc, a) : NULL;
    int64_t iv;

    *sym = false;
    if (o->scalar == CGS_DTYPE_FLOAT32) {
        if (nv && nv->kind == CGS_VAL_SYMFLOAT) {
            if (!nv->u.s.text || !nv->has_hint)
                return false;
            cgs_buf_addstr(text, nv->u.s.text);
            *v = nv->u.s.fhint;
            *sym = true;
            return true;
        }
        char num[64];
        snprintf(num, sizeof(num), "%.17g", o->f);
        cgs_buf_addstr(text, num);
        if (!strpbrk(num, ".eni"))
            cgs_buf_addstr(text, ".0");
        *v = o->f;
        return true;
    }
    if (o->scalar == CGS_DTYPE_INT64 && o->sym) {
        if (cgs_sym_is_int(o->sym, &iv)) {
            cgs_buf_addf(text, "%lld.0", (long long)iv);
            *v = (double)iv;
            return true;
        }
        if (!hint(sc, o->sym, &iv))
            return false;
        char *e = cgs_sym_to_string(o->sym);
        cgs_buf_addf(text, "ToFloat(%s)", e);
        free(e);
        *v = (double)iv;
        *sym = true;
        return true;
    }
    return false;
}

/* +, -, *, / where a float takes part (or / of two ints, a float in Python): a SymFloat
 * written as torch prints one (ToFloat(s7) - 1.0, FloatTrueDiv(A, 2.0)) with its value, or a
 * plain float. */
static int float_arith(struct cgs_shape_ctx *sc, const struct cgs_node *n, const struct operand *o,
                       struct cgs_diag *d)
{
    unsigned f = sc->op->flags;
    bool div = (f & CGS_OPF_ARITH_TRUEDIV) != 0;
    struct cgs_buf ta = CGS_BUF_INIT, tb = CGS_BUF_INIT, r = CGS_BUF_INIT;
    double va, vb, v;
    bool sa, sb;
    int k = 0;

    if (!(f & (CGS_OPF_ARITH_ADD | CGS_OPF_ARITH_SUB | CGS_OPF_ARITH_MUL)) && !div)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "scalar '%s' is not tracked", n->target);
    if (!float_term(sc, n->n_args > 0 ? &n->args[0] : NULL, &o[0], &ta, &va, &sa) ||
        !float_term(sc, n->n_args > 1 ? &n->args[1] : NULL, &o[1], &tb, &vb, &sb)) {
        cgs_buf_release(&ta);
        cgs_buf_release(&tb);
        return cgs_diag_set(d, CGS_E_UNKNOWN, "scalar '%s' of these operands is not tracked",
                            n->target);
    }
    if (f & CGS_OPF_ARITH_REFLECTED) {
        struct cgs_buf t = ta;
        double tv = va;
        bool ts = sa;
        ta = tb, va = vb, sa = sb;
        tb = t, vb = tv, sb = ts;
    }
    if (f & CGS_OPF_ARITH_ADD)
        v = va + vb, k = 0;
    else if (f & CGS_OPF_ARITH_SUB)
        v = va - vb, k = 1;
    else if (f & CGS_OPF_ARITH_MUL)
        v = va * vb, k = 2;
    else
        v = va / vb, k = 3;
    if (!sa && !sb) {
        sc->out = new_val(sc, CGS_VAL_FLOAT);
        sc->out->u.f = v;
    } else {
        if (k == 3)
            cgs_buf_addf(&r, "FloatTrueDiv(%s, %s)", ta.buf, tb.buf);
        else
            cgs_buf_addf(&r, "%s %s %s", ta.buf, k == 0 ? "+" : k == 1 ? "-" : "*", tb.buf);
        sc->out = new_val(sc, CGS_VAL_SYMFLOAT);
        sc->out->u.s.text = cgs_arena_strdup(sc->ar, r.buf);
        sc->out->u.s.fhint = v;
        sc->out->has_hint = true;
    }
    cgs_buf_release(&ta);
    cgs_buf_release(&tb);
    cgs_buf_release(&r);
    return 0;
}

/* torch.sym_float(x): a SymInt becomes the SymFloat ToFloat(x); a number, a float. */
RULE(sym_float)
{
    struct operand o;
    struct cgs_buf t = CGS_BUF_INIT;
    double v;
    bool sym;

    if (operand_of(sc, Ai(sc, 0), &o) || o.t)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "sym_float: the value is not known");
    if (!float_term(sc, Ai(sc, 0), &o, &t, &v, &sym)) {
        cgs_buf_release(&t);
        return cgs_diag_set(d, CGS_E_UNKNOWN, "sym_float: the value is not known");
    }
    (void)n;
    if (sym) {
        sc->out = new_val(sc, CGS_VAL_SYMFLOAT);
        sc->out->u.s.text = cgs_arena_strdup(sc->ar, t.buf);
        sc->out->u.s.fhint = v;
        sc->out->has_hint = true;
    } else {
        sc->out = new_val(sc, CGS_VAL_FLOAT);
        sc->out->u.f = v;
    }
    cgs_buf_release(&t);
    return 0;
}

int scalar_arith(struct cgs_shape_ctx *sc, const struct cgs_node *n, const struct operand *o,
                 uint32_t cnt, struct cgs_diag *d)
{
    unsigned f = sc->op->flags;
    sym_t a, b, r = NULL;

    if (cnt == 2 && !(f & CGS_OPF_CMP_MASK) &&
        (o[0].scalar == CGS_DTYPE_FLOAT32 || o[1].scalar == CGS_DTYPE_FLOAT32 ||
         (f & CGS_OPF_ARITH_TRUEDIV)))
        return float_arith(sc, n, o, d);
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

int binary_with(const struct cgs_node *n, struct cgs_shape_ctx *sc, int mode, uint32_t count,
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
enum cgs_dtype real_of(enum cgs_dtype t)
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
