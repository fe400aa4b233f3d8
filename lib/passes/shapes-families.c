/* Shape rules and helpers (lib/passes/shapes.h): conversions, ranges, matrix-vector products, linear algebra, higher-order ops, losses, shuffles, cumulative ops, the rest of the Core ATen opset. */
#include "lib/passes/shapes-int.h"

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
int max_unpool_with(struct cgs_shape_ctx *sc, uint32_t nsp, struct cgs_diag *d)
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
        /* torch.nn.functional's _unpool_output_size: an output_size with the batch and
           channel dims too keeps only its spatial part (those come from self) */
        if (nsp && k == nsp + 2) {
            memmove(os, os + 2, nsp * sizeof(os[0]));
            k = nsp;
        }
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
int matvec(struct cgs_shape_ctx *sc, const char *a, const char *b, int kind,
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
int diagonal_view(struct cgs_shape_ctx *sc, const struct cgs_tensor **tp,
                  struct cgs_tensor **op, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    uint32_t d1, d2, i, j = 0;
    int64_t off = 0, s1, s2, len;
    sym_t lsym = NULL;

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
    if (!cgs_sym_is_int(t->shape[d1], &s1) || !cgs_sym_is_int(t->shape[d2], &s2)) {
        // torch's sym_max(sym_min(...), 0) of the sizes, as SymPy leaves it
        sym_t a = off >= 0 ? t->shape[d1] : S_add(sc, t->shape[d1], K(sc, off));
        sym_t b = off >= 0 ? S_sub(sc, t->shape[d2], K(sc, off)) : t->shape[d2];
        lsym = a == b ? a : cgs_sym_min(sc->sx, a, b);
        if (!lsym || !hint(sc, lsym, &len))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "diagonal of sizes without hints is not "
                                                  "tracked");
        if (lsym->kind != CGS_SYM_VAR && !(lsym = cgs_sym_max(sc->sx, K(sc, 0), lsym)))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "diagonal of symbolic sizes is not tracked");
    } else {
        len = off >= 0 ? (s1 < s2 - off ? s1 : s2 - off) : (s1 + off < s2 ? s1 + off : s2);
    }
    if (len < 0)
        len = 0;
    if (!lsym)
        lsym = K(sc, len);
    o = out_view(sc, t, t->ndim - 1);
    for (i = 0; i < t->ndim; i++)
        if (i != d1 && i != d2) {
            o->shape[j] = t->shape[i];
            o->stride[j++] = t->stride[i];
        }
    o->shape[j] = lsym;
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
int atleast(struct cgs_shape_ctx *sc, uint32_t want, struct cgs_diag *d)
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
void lapack_fill(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t nd,
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

int square_input(struct cgs_shape_ctx *sc, const char *name, const struct cgs_tensor **t,
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

enum cgs_dtype complex_of_any(enum cgs_dtype t)
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

    (void)n;
    TRY(square_input(sc, sc->p[0].name_len == 1 ? "A" : "self", &a, d));
    dimcpy(piv, a->shape, a->ndim - 1);
    // pivots: [..., min(m, n)]
    TRY(min_dim(sc, a->shape[a->ndim - 2], a->shape[a->ndim - 1], true, &piv[a->ndim - 2], d));
    sc->out = new_list(sc, 3);
    lapack_fill(sc, &sc->out->u.items[0], a->ndim, a->shape, a->dtype, a->device, true);
    lapack_fill(sc, &sc->out->u.items[1], a->ndim - 1, piv, CGS_DTYPE_INT32, a->device, false);
    lapack_fill(sc, &sc->out->u.items[2], a->ndim - 2, a->shape, CGS_DTYPE_INT32, a->device,
                false);
    return 0;
}

/*
 * min(a, b) of two sizes as a meta function takes it: with sym (torch.sym_min) the expression
 * Min(a, b); else Python's min, which compares the sizes -- a guard on their hints -- and
 * returns one of them (a when they are equal).
 */
int min_dim(struct cgs_shape_ctx *sc, sym_t a, sym_t b, bool sym, sym_t *out, struct cgs_diag *d)
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
    if (sym) {
        *out = cgs_sym_min(sc->sx, a, b);
        return *out ? 0 : cgs_diag_set(d, CGS_E_UNKNOWN, "min of symbolic sizes is not tracked");
    }
    if (!hint(sc, a, &x) || !hint(sc, b, &y))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "min of sizes without hints is not tracked");
    *out = y < x ? b : a;
    return 0;
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
    TRY(min_dim(sc, a->shape[nd - 2], a->shape[nd - 1], false, &k, d));
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
    TRY(min_dim(sc, a->shape[nd - 2], a->shape[nd - 1], false, &k, d));
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
int take_items(struct cgs_shape_ctx *sc, uint32_t first, uint32_t count)
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
struct cgs_graph *subgraph_of(const struct cgs_graph *g, const struct cgs_node *gn)
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
struct cgs_graph *body_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a)
{
    return a && a->kind == CGS_ARG_NODE ? subgraph_of(sc->g, a->u.node) : NULL;
}

/*
 * Enter body with the operands' values args[first..first+count) (a list argument is spread),
 * and give the HOP node the body's outputs (a tuple, as the HOP returns).
 */
int enter_body(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_graph *body,
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

/* Whether the op a higher-order op wraps returns nothing: declared "none" (lib/readers/opdecl.h), or
 * the registry's NOVALUE. */
bool wrapped_op_returns_none(const struct cgs_shape_ctx *sc, const char *target)
{
    const struct cgs_decl *dc = cgs_opdecls_find(sc->decls, target);

    return (dc && dc->n_outs == 1 && dc->outs[0].none) ||
           cgs_op_target_has(target, CGS_OPF_NOVALUE);
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

/* A wrapped op's result must be None (declared, or the registry's NOVALUE) for an
 * auto_functionalized to be followed: 0, or the message saying to declare it. */
int wrapped_none_or_say(const struct cgs_shape_ctx *sc, const char *target,
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
 * fresh copy with its strides). The op's result comes from a declaration (lib/readers/opdecl.h) or
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
 * a declaration ("mutates y", lib/readers/opdecl.h). */
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

int triton_clone_index(const struct cgs_node *n, const char *key)
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
int loss_reduction(struct cgs_shape_ctx *sc, int64_t *red, struct cgs_diag *d)
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
int pixel_shuffle_with(struct cgs_shape_ctx *sc, bool up, struct cgs_diag *d)
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
    int64_t kv0, kv1;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    /* an int stands for both dims (torch.nn.functional.fold's _pair) */
    TRY(spatial_param(sc, "output_size", 2, 1, os, d));
    TRY(spatial_param(sc, "kernel_size", 2, 1, k, d));
    if ((t->ndim != 2 && t->ndim != 3) ||
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
