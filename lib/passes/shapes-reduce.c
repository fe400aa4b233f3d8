/*
 * Shape rules (lib/passes/shapes.h), reductions and scans: sum and friends, var_mean, min/max,
 * sort and topk, cumulative ops, softmax, distances. Helpers come from the core (shapes-int.h);
 * docs/shape-rules.md lists every rule's file.
 */
#include "lib/passes/shapes-int.h"

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

RULE(softmax_backward)
{
    const struct cgs_tensor *g;
    enum cgs_dtype dt = dtype_of(A(sc, "input_dtype"));

    (void)n;
    TRY(need_tensor(sc, "grad_output", &g, d));
    out_dense(sc, g->ndim, g->shape, dt == CGS_DTYPE_UNKNOWN ? g->dtype : dt, g->device, false);
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

TAKE_OF(argsort, sort, 1, 1)

/* cummax / cummin(self, dim): (values, int64 indices), self's shape. */
RULE(cum_pair)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    pair_out(sc, t, t->ndim, t->shape);
    return 0;
}

/* bucketize(self, boundaries, out_int32) and searchsorted(sorted_sequence, self, out_int32):
 * indices of self's shape, int64 (int32), contiguous. */
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
