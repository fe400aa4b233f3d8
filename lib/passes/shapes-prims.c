/*
 * Shape rules of torch's prims (torch/_prims/__init__.py), the operators decompositions and
 * torch._refs produce. Each follows the prim's meta function, which is what FakeTensor
 * propagation runs: most of them lay their result out contiguously where the ATen operator
 * of the same name would keep or permute the input's strides, so they are rules of their
 * own, not the ATen ones. Checked against tests/data/opinfo/prims.txt (torch 2.11).
 */
#include "lib/passes/shapes-int.h"

#include <string.h>

/* The first argument (prims name it `a`, some `self` or `A`) as a tensor. */
static int first_tensor(struct cgs_shape_ctx *sc, const struct cgs_tensor **t, struct cgs_diag *d)
{
    if (arg_tensor(sc, Ai(sc, 0), t))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "input is not known");
    return 0;
}

/* split_dim(a, dim, outer_length): dim becomes (outer, len // outer), strides
 * (stride * inner, stride); a view at the same offset. */
RULE(prims_split_dim)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    sym_t outer, inner;
    int64_t dv;
    uint32_t dim, i, j = 0;

    (void)n;
    TRY(first_tensor(sc, &t, d));
    if (!int_const(sc, Ai(sc, 1), &dv) || !wrap_dim(dv, t->ndim, &dim) || t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "split_dim: bad dim");
    if (t->ndim + 1 > NDIM_MAX)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "split_dim: too many dims");
    if (int_of(sc, Ai(sc, 2), &outer))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "split_dim: outer_length not known");
    inner = S_div(sc, t->shape[dim], outer);
    o = out_view(sc, t, t->ndim + 1);
    for (i = 0; i < t->ndim; i++) {
        if (i == dim) {
            o->shape[j] = outer;
            o->stride[j++] = S_mul(sc, t->stride[i], inner);
            o->shape[j] = inner;
            o->stride[j++] = t->stride[i];
        } else {
            o->shape[j] = t->shape[i];
            o->stride[j++] = t->stride[i];
        }
    }
    return 0;
}

/* collapse_view(a, start, end) and collapse(a, start, end): dims start..end (inclusive) become
 * one of their product. The view's stride is the least stride among the merged dims of size
 * other than 1 (and the last one's); an empty tensor is restrided contiguously. collapse is a
 * new contiguous tensor. A 0-dim input counts as shape (1,). */
static int collapse(struct cgs_shape_ctx *sc, bool view, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX], stride[NDIM_MAX], len, st;
    int64_t s0, e0, sz[NDIM_MAX], hs[NDIM_MAX], numel = 1;
    uint32_t nd, start, end, i, j = 0;
    struct cgs_tensor *o;

    TRY(first_tensor(sc, &t, d));
    nd = t->ndim ? t->ndim : 1;
    if (!int_const(sc, Ai(sc, 1), &s0) || !int_const(sc, Ai(sc, 2), &e0) ||
        !wrap_dim(s0, nd, &start) || !wrap_dim(e0, nd, &end) || end < start)
        return cgs_diag_set(d, CGS_E_INVAL, "collapse: bad start or end");
    if (t->ndim == 0) {
        shape[0] = K(sc, 1);
        stride[0] = K(sc, 1);
        sz[0] = hs[0] = 1;
    } else {
        dimcpy(shape, t->shape, nd);
        dimcpy(stride, t->stride, nd);
        hints(sc, t, sz, hs);
    }
    for (i = 0; i < nd; i++)
        numel = hmul(numel, sz[i]);
    len = shape[end];
    st = stride[end];
    for (i = end; i-- > start;) {
        if (sz[i] != 1 && hs[i] < hv(sc, st))
            st = stride[i];
        len = S_mul(sc, len, shape[i]);
    }
    o = view ? out_view(sc, t, nd - (end - start))
             : out_tensor(sc, nd - (end - start), t->dtype, t->device);
    for (i = 0; i < nd; i++) {
        if (i > start && i <= end)
            continue;
        o->shape[j] = i == start ? len : shape[i];
        o->stride[j++] = i == start ? st : stride[i];
    }
    if (!view || numel == 0) {
        contiguous_strides(sc, o->ndim, o->shape, o->stride);
        if (!view)
            o->storage_offset = K(sc, 0);
    }
    return 0;
}

RULE(prims_collapse_view)
{
    (void)n;
    return collapse(sc, true, d);
}

RULE(prims_collapse)
{
    (void)n;
    return collapse(sc, false, d);
}

/* view_of_dtype(a, dtype): a.view(dtype). */
RULE(prims_view_of_dtype)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(first_tensor(sc, &t, d));
    return view_as_dtype(sc, t, dtype_of(Ai(sc, 1)), d);
}

/* reshape(a, shape): a new contiguous tensor (the prim copies; the view is collapse_view and
 * split_dim). */
RULE(prims_reshape)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(first_tensor(sc, &t, d));
    if (ints_of(sc, Ai(sc, 1), shape, &nd))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "reshape: shape not known");
    out_dense(sc, nd, shape, t->dtype, t->device, false);
    return 0;
}

/* rev(a, dims): torch.empty_like(a) (the input's layout where it is dense). */
RULE(prims_rev)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(first_tensor(sc, &t, d));
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, NULL, NULL);
}

/* fft_c2c / fft_r2c / fft_c2r(self, *, dim, ...): contiguous results (the prims' metas), the
 * last transformed dim halved plus one (r2c, onesided) or last_dim_size (c2r). */
static int prims_fft(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    uint32_t dims[NDIM_MAX], nt;
    sym_t shape[NDIM_MAX];
    enum cgs_dtype dt;

    TRY(first_tensor(sc, &t, d));
    TRY(fft_dims(sc, t, dims, &nt, d));
    dimcpy(shape, t->shape, t->ndim);
    if (kind == 1) {
        dt = complex_of(t->dtype);
        if (nt && bool_of(A(sc, "onesided"), true))
            shape[dims[nt - 1]] = S_add(sc, S_div(sc, t->shape[dims[nt - 1]], K(sc, 2)), K(sc, 1));
    } else if (kind == 2) {
        dt = real_of(t->dtype);
        if (!nt)
            return cgs_diag_set(d, CGS_E_INVAL, "fft_c2r over no dims");
        if (int_of(sc, A(sc, "last_dim_size"), &shape[dims[nt - 1]]))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "fft: last_dim_size not known");
    } else {
        dt = t->dtype;
    }
    out_dense(sc, t->ndim, shape, dt, t->device, false);
    return 0;
}

RULE(prims_fft_c2c)
{
    (void)n;
    return prims_fft(sc, 0, d);
}

RULE(prims_fft_r2c)
{
    (void)n;
    return prims_fft(sc, 1, d);
}

RULE(prims_fft_c2r)
{
    (void)n;
    return prims_fft(sc, 2, d);
}

/* scalar_tensor(s, *, dtype, device): 0-dim; without a dtype, the scalar's own type (bool,
 * int64, the default float32), as TensorMeta of a number. */
RULE(prims_scalar_tensor)
{
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    const struct cgs_arg *s = Ai(sc, 0);

    (void)n;
    if (dt == CGS_DTYPE_UNKNOWN) {
        const struct cgs_val *v = s && s->kind == CGS_ARG_NODE ? node_val(sc, s) : NULL;
        if (s && s->kind == CGS_ARG_BOOL)
            dt = CGS_DTYPE_BOOL;
        else if (s && (s->kind == CGS_ARG_INT || s->kind == CGS_ARG_SYM))
            dt = CGS_DTYPE_INT64;
        else if (s && s->kind == CGS_ARG_FLOAT)
            dt = CGS_DTYPE_FLOAT32;
        else if (v && (v->kind == CGS_VAL_SYMINT || v->kind == CGS_VAL_INT))
            dt = CGS_DTYPE_INT64;
        else if (v && (v->kind == CGS_VAL_SYMFLOAT || v->kind == CGS_VAL_FLOAT))
            dt = CGS_DTYPE_FLOAT32;
        else if (v && (v->kind == CGS_VAL_SYMBOOL || v->kind == CGS_VAL_BOOL))
            dt = CGS_DTYPE_BOOL;
        else
            return cgs_diag_set(d, CGS_E_UNKNOWN, "scalar_tensor: the scalar's type is not known");
    }
    out_dense(sc, 0, NULL, dt, device_arg(sc), false);
    return 0;
}

/* normal(shape, ...), empty(shape, ...), full(shape, fill_value, ...): a contiguous tensor
 * of that shape (their metas: make_contiguous_strides_for). */
RULE(prims_factory)
{
    sym_t shape[NDIM_MAX];
    uint32_t nd;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    if (ints_of(sc, Ai(sc, 0), shape, &nd))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "the shape is not known");
    if (dt == CGS_DTYPE_UNKNOWN)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "the dtype is not known");
    out_dense(sc, nd, shape, dt, device_arg(sc), false);
    return 0;
}

/* copy_strided(a, stride): empty_strided(a.shape, stride) of a's dtype and device. */
RULE(prims_copy_strided)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    sym_t stride[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(first_tensor(sc, &t, d));
    if (ints_of(sc, Ai(sc, 1), stride, &nd) || nd != t->ndim)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "copy_strided: the strides are not known");
    o = out_tensor(sc, t->ndim, t->dtype, t->device);
    dimcpy(o->shape, t->shape, t->ndim);
    dimcpy(o->stride, stride, t->ndim);
    return 0;
}

/* device_put(a, device): a's shape, strides and dtype on the given device (TensorMeta(a,
 * device=...)), offset 0. */
RULE(prims_device_put)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    const char *dev = str_of(A(sc, "device"));

    (void)n;
    TRY(first_tensor(sc, &t, d));
    o = out_tensor(sc, t->ndim, t->dtype, dev ? dev : t->device);
    dimcpy(o->shape, t->shape, t->ndim);
    dimcpy(o->stride, t->stride, t->ndim);
    return 0;
}

/* torch._prims_common.wrappers.return_types_NAME(*values): the named tuple a reference
 * with several outputs returns, its items the arguments' values. */
RULE(pack_tuple)
{
    uint32_t i, cnt = n->n_args;

    for (i = 0; i < cnt; i++)
        if (!node_val(sc, &n->args[i]))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "item %u is not known", i);
    sc->out = new_list(sc, cnt);
    for (i = 0; i < cnt; i++)
        sc->out->u.items[i] = *node_val(sc, &n->args[i]);
    return 0;
}
