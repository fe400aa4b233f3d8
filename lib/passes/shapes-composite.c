/* Shape rules and helpers (lib/passes/shapes.h): composite torch functions, torch.functional, composite linalg and nn, kernels below the composites. */
#include "lib/passes/shapes-int.h"

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
/* ATen's clone_preserve_strides(self): a new storage as large as self's, viewed as self is
 * (sizes, strides and storage offset: recorded on swin_t's shifted windows, offset 2744), unless
 * self overlaps itself (an expanded dim), which is cloned. What the functional copy and the
 * scatters into self (slice_, select_, diagonal_, as_strided_scatter) return. */
RULE(clone_preserve_strides)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    for (uint32_t i = 0; i < t->ndim; i++)
        if (hv(sc, t->stride[i]) == 0 && hv(sc, t->shape[i]) > 1)
            return copy_like(sc, t, CGS_DTYPE_UNKNOWN, NULL, NULL);
    o = out_tensor(sc, t->ndim, t->dtype, t->device);
    dimcpy(o->shape, t->shape, t->ndim);
    dimcpy(o->stride, t->stride, t->ndim);
    o->storage_offset = t->storage_offset;
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
int same_batch(const struct cgs_tensor *a, const struct cgs_tensor *b, struct cgs_diag *d)
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
int solver_result(struct cgs_shape_ctx *sc, const char *a_name, const char *b_name,
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
int tri_indices(struct cgs_shape_ctx *sc, bool upper, struct cgs_diag *d)
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
        /* contiguous strides of the physical layout, as at::empty makes them: a size-0 dim
           counts as 1 (recorded: [1, 0, 3] -> stride [3, 3, 1]) */
        if (hv(sc, shape[l]) != 0)
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
int lu_parts(struct cgs_shape_ctx *sc, bool want_p, bool want_lu, bool sym_min,
             struct cgs_diag *d)
{
    const struct cgs_tensor *a;
    sym_t sz[NDIM_MAX], k, zero = K(sc, 0);
    uint32_t nd;

    TRY(square_input(sc, "A", &a, d));
    nd = a->ndim;
    TRY(min_dim(sc, a->shape[nd - 2], a->shape[nd - 1], sym_min, &k, d));
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
    // linalg_lu's meta takes torch.sym_min of the sizes
    return lu_parts(sc, bool_of(A(sc, "pivot"), true), true, true, d);
}

RULE(lu_unpack)
{
    (void)n;
    // lu_unpack's meta takes Python's min (a guard)
    return lu_parts(sc, bool_of(A(sc, "unpack_pivots"), true), bool_of(A(sc, "unpack_data"), true),
                    false, d);
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
int max_pool_nd(struct cgs_shape_ctx *sc, uint32_t nsp, struct cgs_diag *d)
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

/* max_pool1d_with_indices(self, kernel_size, ...): always (values, indices). */
RULE(max_pool1d_indices)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(pool_shape(sc, t, true, 1, shape, d));
    pair_out(sc, t, t->ndim, shape);
    return 0;
}
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
int broadcast_reduce(struct cgs_shape_ctx *sc, const char *dim_name, bool keep,
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
int trapezoid_with(struct cgs_shape_ctx *sc, bool cumulative, struct cgs_diag *d)
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
int py_loss(struct cgs_shape_ctx *sc, uint32_t nops, bool per_sample, struct cgs_diag *d)
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
int stack_like(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
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
int per_matrix(struct cgs_shape_ctx *sc, enum cgs_dtype dt, struct cgs_diag *d)
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
 * n % k pieces of n // k + 1 first, a list of indices the pieces between them (clamped to the
 * size). A symbolic size is compared at its hint where torch's loop compares it (a guard). */
int tensor_split_along(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t dim,
                       const struct cgs_arg *how, bool must_divide, struct cgs_diag *d)
{
    sym_t sizes[NDIM_MAX * 4], size = t->shape[dim];
    int64_t total, k;
    uint32_t cnt = 0, i;

    if (!hint(sc, size, &total))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "tensor_split of a size without a hint is not "
                                              "tracked");
    if (how && how->kind == CGS_ARG_LIST) {
        int64_t prev = 0;
        sym_t prev_s = K(sc, 0);
        if (how->n + 1 > NDIM_MAX * 4)
            return cgs_diag_set(d, CGS_E_LIMIT, "tensor_split into too many pieces");
        for (i = 0; i <= how->n; i++) {
            int64_t at = total;
            sym_t at_s = size;
            if (i < how->n) {
                if (!int_const(sc, &how->u.items[i], &at))
                    return cgs_diag_set(d, CGS_E_UNKNOWN, "tensor_split: indices not constant");
                at_s = K(sc, at);
            }
            if (at > total)
                at = total, at_s = size;
            if (at < prev)
                at = prev, at_s = prev_s;
            sizes[cnt++] = S_sub(sc, at_s, prev_s);
            prev = at;
            prev_s = at_s;
        }
        return split_into(sc, t, dim, sizes, cnt);
    }
    if (!int_const(sc, how, &k) || k <= 0 || k > NDIM_MAX * 4)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "tensor_split: sections not constant");
    if (must_divide && total % k)
        return cgs_diag_set(d, CGS_E_INVAL, "split: size %lld not divisible by %lld",
                            (long long)total, (long long)k);
    for (i = 0; i < (uint32_t)k; i++) {
        sym_t each = S_div(sc, size, K(sc, k));
        sizes[cnt++] = (int64_t)i < total % k ? S_add(sc, each, K(sc, 1)) : each;
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

int xsplit(struct cgs_shape_ctx *sc, int which, struct cgs_diag *d)
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

/* adaptive_max_pool1d(self, output_size): (values, int64 indices) of shape [..., out], through
 * adaptive_max_pool2d of self unsqueezed at -2: contiguous for a contiguous input (another
 * layout goes through the 2-d kernel's memory-format choice: not tracked). */
RULE(adaptive_max_pool1d)
{
    const struct cgs_tensor *t;
    const struct cgs_arg *os = A(sc, "output_size");
    sym_t shape[NDIM_MAX], out;
    int64_t sz[NDIM_MAX], st[NDIM_MAX];
    uint32_t cnt;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    if (t->ndim != 2 && t->ndim != 3)
        return cgs_diag_set(d, CGS_E_INVAL, "adaptive_max_pool1d of a %u-dim tensor", t->ndim);
    if (os && os->kind == CGS_ARG_LIST) {
        sym_t outs[NDIM_MAX]; /* ints_of fills up to the list's length */
        if (os->n > NDIM_MAX || ints_of(sc, os, outs, &cnt) || cnt != 1)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "adaptive_max_pool1d: output_size not known");
        out = outs[0];
    } else if (int_of(sc, os, &out)) {
        return cgs_diag_set(d, CGS_E_UNKNOWN, "adaptive_max_pool1d: output_size not known");
    }
    hints(sc, t, sz, st);
    if (!h_contiguous(t->ndim, sz, st))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "adaptive_max_pool1d of a non-contiguous input "
                                              "is not tracked");
    dimcpy(shape, t->shape, t->ndim - 1);
    shape[t->ndim - 1] = out;
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], t->ndim, shape, t->dtype, t->device, false);
    fill_dense(sc, &sc->out->u.items[1], t->ndim, shape, CGS_DTYPE_INT64, t->device, false);
    return 0;
}

/* torch.nn.functional.adaptive_max_pool1d: the values unless the indices are asked for. */
RULE(adaptive_max_pool1d_f)
{
    TRY(cgs_shape_rule_adaptive_max_pool1d(n, sc, d));
    if (!bool_of(A(sc, "return_indices"), false))
        sc->out = &sc->out->u.items[0];
    return 0;
}

/* linalg_matrix_power(A, n): A's shape; n == 0 builds identities in zeros_like(A) (A's layout
 * where dense), any other n a clone or a product chain (contiguous). */
RULE(matrix_power)
{
    const struct cgs_tensor *t;
    int64_t k;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    if (t->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "matrix_power of a %u-dim tensor", t->ndim);
    if (!int_const(sc, Ai(sc, 1), &k))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "matrix_power: n not known");
    if (k == 0)
        return copy_like(sc, t, CGS_DTYPE_UNKNOWN, NULL, NULL);
    out_dense(sc, t->ndim, t->shape, t->dtype, t->device, false);
    return 0;
}
