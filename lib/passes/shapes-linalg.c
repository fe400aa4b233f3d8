/*
 * Shape rules (lib/passes/shapes.h), matrix products and linear algebra: mm, bmm, matmul, einsum,
 * the linalg.* decompositions and solvers (torch's meta kernels for LAPACK/cuSOLVER results).
 * Helpers come from the core (shapes-int.h); docs/shape-rules.md lists every rule's file.
 */
#include "lib/passes/shapes-int.h"

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

static void lapack_fill(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t nd,
                 const sym_t *shape, enum cgs_dtype dt, const char *dev, bool col_major);
static int square_input(struct cgs_shape_ctx *sc, const char *name, const struct cgs_tensor **t,
                 struct cgs_diag *d);

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

/* linalg_householder_product(input, tau): column-major like input. */
RULE(householder_product)
{
    (void)n;
    return cgs_shape_rule_column_major_copy(n, sc, d);
}

static int min_dim(struct cgs_shape_ctx *sc, sym_t a, sym_t b, bool sym, sym_t *out, struct cgs_diag *d);

/* linalg_lu(A, pivot) / lu_unpack(LU, pivots, unpack_data, unpack_pivots): (P [.., m, m],
 * L [.., m, k], U [.., k, n]), contiguous; [0] for the parts not asked for. */
static int lu_parts(struct cgs_shape_ctx *sc, bool want_p, bool want_lu, bool sym_min,
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

/* torch.functional.lu(A, pivot, get_infos): (LU, pivots[, infos]). */
RULE(lu_legacy)
{
    TRY(cgs_shape_rule_linalg_factor_pivots(n, sc, d));
    return take_items(sc, 0, bool_of(A(sc, "get_infos"), false) ? 3 : 2);
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
static int min_dim(struct cgs_shape_ctx *sc, sym_t a, sym_t b, bool sym, sym_t *out, struct cgs_diag *d)
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

TAKE_OF(linalg_eigvalsh, linalg_eigh, 0, 1)

TAKE_OF(linalg_eigvals, linalg_eig, 0, 1)

TAKE_OF(linalg_first_of_factor, linalg_factor_info, 0, 1) /* linalg_inv, linalg_cholesky */

TAKE_OF(linalg_lu_factor, linalg_factor_pivots, 0, 2)

TAKE_OF(linalg_slogdet2, linalg_slogdet, 0, 2)

TAKE_OF(linalg_det1, linalg_det, 0, 1)

TAKE_OF(linalg_solve1, linalg_solve_ex, 0, 1)

TAKE_OF(linalg_svdvals, linalg_svd, 1, 1)

TAKE_OF(ldl_factor, linalg_factor_pivots, 0, 2)

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

/* The size of letter c in term `term` of operand t (1 where the term lacks it: torch unsqueezes
 * every operand to all letters), or -1 when a letter repeats (a diagonal). */
static int64_t einsum_letter_size(const struct cgs_shape_ctx *sc, const char *term,
                                  const char *end, const struct cgs_tensor *t, unsigned c)
{
    int64_t size = 1;
    uint32_t k = 0, seen = 0;

    for (const char *p = term; p < end && k < t->ndim; p++) {
        if (!isalpha((unsigned char)*p))
            continue;
        if ((unsigned char)*p == c) {
            size = hv(sc, t->shape[k]);
            seen++;
        }
        k++;
    }
    return seen > 1 ? -1 : size;
}

/*
 * The layout of a two-operand einsum with something to contract, as torch's sumproduct_pair
 * leaves it: one bmm whose result is viewed as [dims of size > 1 in both, dims > 1 in the
 * left only, contracted dims (1), the rest (> 1 in the right only, or 1 in both)] and permuted
 * back to the output's order. A size-1 output dim thus has the stride of what follows it
 * there (maxvit's "B G H I D, B G H J D -> B G H I J" with G of size 1: recorded by torch
 * 2.11). Left contiguous when nothing is contracted (torch multiplies instead) or a term
 * repeats a letter.
 */
static void einsum_pair_strides(struct cgs_shape_ctx *sc, const char *e, const char *arrow,
                                const struct operand *o, struct cgs_val *out)
{
    const char *comma = strchr(e, ','), *p;
    struct cgs_tensor *t = &out->u.t;
    uint32_t cls[NDIM_MAX], phys[NDIM_MAX], k = 0, n = 0, c3;
    bool contracts = false;

    if (!comma || comma > arrow || (strchr(comma + 1, ',') && strchr(comma + 1, ',') < arrow))
        return;
    for (p = e; p < arrow; p++) { /* a contracted letter of size > 1 in both */
        unsigned c = (unsigned char)*p;
        int64_t a, b;
        if (!isalpha(c) || memchr(arrow + 2, (int)c, strlen(arrow + 2)))
            continue;
        a = einsum_letter_size(sc, e, comma, o[0].t, c);
        b = einsum_letter_size(sc, comma + 1, arrow, o[1].t, c);
        if (a < 0 || b < 0)
            return;
        contracts = contracts || (a != 1 && b != 1);
    }
    if (!contracts)
        return;
    for (p = arrow + 2; *p && k < t->ndim; p++) {
        unsigned c = (unsigned char)*p;
        int64_t a, b;
        if (!isalpha(c))
            continue;
        a = einsum_letter_size(sc, e, comma, o[0].t, c);
        b = einsum_letter_size(sc, comma + 1, arrow, o[1].t, c);
        if (a < 0 || b < 0)
            return;
        cls[k++] = a != 1 && b != 1 ? 0 : a != 1 ? 1 : 2;
    }
    if (k != t->ndim)
        return;
    for (c3 = 0; c3 < 3; c3++)
        for (uint32_t i = 0; i < k; i++)
            if (cls[i] == c3)
                phys[n++] = i;
    permuted_strides(sc, k, t->shape, phys, t->stride);
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
    if (cnt == 2 && arrow && !strchr(e, '.'))
        einsum_pair_strides(sc, e, arrow, o, sc->out);
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
