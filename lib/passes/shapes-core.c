/*
 * The shape pass's core (lib/passes/shapes.h): the helpers every rule uses: symbolic arithmetic,
 * tensors and their strides, the small helpers several families share.
 */
#include "lib/passes/shapes-int.h"

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

static bool both_const(sym_t a, sym_t b, int64_t *x, int64_t *y)
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

bool suggest_cl(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t)
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

const char *device_arg(struct cgs_shape_ctx *sc)
{
    const char *dev = str_of(A(sc, "device"));

    return dev ? dev : "cpu";
}

/* Advanced indexing: items are index tensors or None (a full slice). */
int adv_index(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
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

/* A (values, indices) pair of dense tensors of one shape. */
void pair_out(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
              const sym_t *shape)
{
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], nd, shape, t->dtype, t->device, false);
    fill_dense(sc, &sc->out->u.items[1], nd, shape, CGS_DTYPE_INT64, t->device, false);
}

/* clone_preserve_strides(a): a fresh tensor with a's shape and strides at offset 0 (torch's
 * torch._prims_common.clone_preserve_strides). 0, or -1 when a is not a known tensor. */
int clone_preserve_strides(struct cgs_shape_ctx *sc, struct cgs_val *out,
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

/* triton_kernel_wrapper_functional(kernel_idx, constant_args_idx, grid, tma_descriptor_metadata,
 * kwargs, tensors_to_clone): {name: a copy of kwargs[name], strides kept} for the names in
 * tensors_to_clone, in kwargs' order; held as a list, which getitem reads by name through
 * triton_clone_index. */

/* The name of the kernel argument at pair i of a kwargs dict when it is one of
 * tensors_to_clone (a list of names), else NULL. */
const char *cloned_arg(const struct cgs_arg *kw, const struct cgs_arg *clone, uint32_t i)
{
    const struct cgs_arg *key = &kw->u.items[2 * i];

    if (key->kind != CGS_ARG_STR || !clone || clone->kind != CGS_ARG_LIST)
        return NULL;
    for (uint32_t j = 0; j < clone->n; j++)
        if (clone->u.items[j].kind == CGS_ARG_STR && !strcmp(clone->u.items[j].u.s, key->u.s))
            return key->u.s;
    return NULL;
}

/* A fresh dense tensor as result: contiguous, or channels-last when cl. */
struct cgs_tensor *out_dense(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
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

struct cgs_tensor *fill_dense(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t nd,
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

/* Reduced shape over dims (none = all). */
int reduce_shape(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
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

/* The tensors of a list argument (known ones only); 0 or -CGS_E_*. */
int tensor_list(struct cgs_shape_ctx *sc, const struct cgs_arg *a, struct operand *o,
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
