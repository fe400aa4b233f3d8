/*
 * Shape rules (lib/passes/shapes.h), views: view, reshape, permute, transpose, expand, squeeze,
 * as_strided, complex views, and their *_copy variants. Helpers come from the core (shapes-int.h);
 * docs/shape-rules.md lists every rule's file.
 */
#include "lib/passes/shapes-int.h"

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

static int expand_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, const sym_t *size,
              uint32_t nd, struct cgs_diag *d);

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

/* diagonal(self, offset, dim1, dim2): a view, the diagonal as the last dim. */
static int diagonal_view(struct cgs_shape_ctx *sc, const struct cgs_tensor **tp,
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

/* t.view(dtype): the same layout for an element of the same size; else the last dim (of
 * stride 1) is scaled by the ratio of the sizes, and so are the other strides and the storage
 * offset (torch refuses what does not divide). */
int view_as_dtype(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, enum cgs_dtype dt,
                  struct cgs_diag *d)
{
    struct cgs_val *v;
    struct cgs_tensor *o;
    int64_t from, to;
    uint32_t i, last;

    if (dt == CGS_DTYPE_UNKNOWN || !cgs_dtypes[dt].itemsize)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "view: the dtype is not known");
    from = cgs_dtypes[t->dtype].itemsize;
    to = cgs_dtypes[dt].itemsize;
    v = new_val(sc, CGS_VAL_TENSOR);
    o = copy_tensor(sc, v, t, t->ndim);
    dimcpy(o->shape, t->shape, t->ndim);
    dimcpy(o->stride, t->stride, t->ndim);
    o->dtype = dt;
    sc->out = v;
    if (from == to)
        return 0;
    if (t->ndim == 0 || !is_const(t->stride[t->ndim - 1], 1))
        return cgs_diag_set(d, CGS_E_INVAL, "view(dtype) of another element size needs a last "
                                            "dim of stride 1");
    last = t->ndim - 1;
    if (to > from) {
        int64_t r = to / from, sz, off;
        if (to % from || (hint(sc, t->shape[last], &sz) && sz % r) ||
            (hint(sc, t->storage_offset, &off) && off % r))
            return cgs_diag_set(d, CGS_E_INVAL, "view(dtype): the last dim or the offset does "
                                                "not divide by the element size");
        o->shape[last] = S_div(sc, t->shape[last], K(sc, r));
        for (i = 0; i < last; i++)
            o->stride[i] = S_div(sc, t->stride[i], K(sc, r));
        o->storage_offset = S_div(sc, t->storage_offset, K(sc, r));
    } else {
        int64_t r = from / to;
        if (from % to)
            return cgs_diag_set(d, CGS_E_INVAL, "view(dtype): element sizes do not divide");
        o->shape[last] = S_mul(sc, t->shape[last], K(sc, r));
        for (i = 0; i < last; i++)
            o->stride[i] = S_mul(sc, t->stride[i], K(sc, r));
        o->storage_offset = S_mul(sc, t->storage_offset, K(sc, r));
    }
    return 0;
}

RULE(view_dtype)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    return view_as_dtype(sc, t, dtype_of(A(sc, "dtype")), d);
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

/* prims.broadcast_in_dim(a, shape, broadcast_dimensions): a view of a with the given shape,
 * a's dims placed at broadcast_dimensions (ascending); the rest new. As torch's meta lays it
 * out: a placed dim keeps its stride unless its size changes (stride 0); a new dim of size 1
 * takes the stride * size of the next placed dim (1 past the last), any other new dim 0. */
RULE(broadcast_in_dim)
{
    const struct cgs_tensor *t;
    sym_t size[NDIM_MAX], bd[NDIM_MAX];
    uint32_t nd, nb, orig = 0;
    struct cgs_tensor *o;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "a", &t, d));
    TRY(shape_param(sc, Ai(sc, 1), size, &nd, d));
    TRY(shape_param(sc, Ai(sc, 2), bd, &nb, d));
    if (nb != t->ndim || nd < t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "broadcast_in_dim: %u broadcast dimensions for "
                            "rank %u into rank %u", nb, t->ndim, nd);
    o = out_view(sc, t, nd);
    for (uint32_t i = 0; i < nd; i++) {
        int64_t at;
        bool placed = orig < nb && cgs_sym_is_int(bd[orig], &at) && at == (int64_t)i;
        o->shape[i] = size[i];
        if (placed) {
            o->stride[i] = hv(sc, t->shape[orig]) != hv(sc, size[i]) ? K(sc, 0) : t->stride[orig];
            if (hv(sc, t->shape[orig]) == hv(sc, size[i]))
                o->shape[i] = t->shape[orig]; /* the input's own expression */
            orig++;
        } else if (hv(sc, size[i]) != 1) {
            o->stride[i] = K(sc, 0);
        } else if (orig == t->ndim) {
            o->stride[i] = K(sc, 1);
        } else {
            o->stride[i] = S_mul(sc, t->stride[orig], t->shape[orig]);
        }
    }
    if (orig != t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "broadcast_in_dim: broadcast_dimensions not "
                            "ascending in the output's rank");
    return 0;
}

/* numpy_T(self) (Tensor.T): the dims reversed, a view. */
RULE(numpy_T)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    o = out_view(sc, t, t->ndim);
    for (uint32_t i = 0; i < t->ndim; i++) {
        o->shape[i] = t->shape[t->ndim - 1 - i];
        o->stride[i] = t->stride[t->ndim - 1 - i];
    }
    return 0;
}

/* chalf(self, memory_format): to(complex32), a copy laid out as to() lays it out. */
RULE(chalf)
{
    const struct cgs_tensor *t;
    const char *fmt = str_of(A(sc, "memory_format"));

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (fmt && !strcmp(fmt, "preserve_format"))
        fmt = NULL;
    if (t->dtype == CGS_DTYPE_COMPLEX32 && !fmt)
        return same_as_first(sc, d);
    return copy_like(sc, t, CGS_DTYPE_COMPLEX32, fmt, NULL);
}

RULE(expand_as)
{
    const struct cgs_tensor *t, *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "other", &o, d));
    return expand_to(sc, t, o->shape, o->ndim, d);
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

/*
 * Dynamo's vmap (torch._functorch.predispatch; flex_attention's default block mask is made so):
 * _add_batch_dim(tensor, in_dim, level) is the tensor as the vmapped function sees it, dim
 * in_dim gone; _remove_batch_dim(tensor, level, batch_size, out_dim) puts the batch back at
 * out_dim, the batch dim outermost in memory (the extent of the per-example tensor apart).
 */
RULE(vmap_add_batch_dim)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    uint32_t dim;

    (void)n;
    TRY(need_tensor(sc, "tensor", &t, d));
    if (!t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "_add_batch_dim of a 0-dim tensor");
    TRY(dim_arg(sc, "in_dim", t->ndim, &dim, d));
    o = out_view(sc, t, t->ndim - 1);
    for (uint32_t i = 0, k = 0; i < t->ndim; i++)
        if (i != dim) {
            o->shape[k] = t->shape[i];
            o->stride[k++] = t->stride[i];
        }
    return 0;
}

RULE(vmap_remove_batch_dim)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    sym_t batch, extent = NULL;
    int64_t out_dim, best = -1;

    (void)n;
    TRY(need_tensor(sc, "tensor", &t, d));
    TRY(int_of(sc, A(sc, "batch_size"), &batch));
    if (!int_const(sc, A(sc, "out_dim"), &out_dim) || out_dim < 0 || out_dim > (int64_t)t->ndim ||
        t->ndim + 1 > NDIM_MAX)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "_remove_batch_dim: out_dim not known");
    for (uint32_t i = 0; i < t->ndim; i++) {
        int64_t e = hmul(hv(sc, t->stride[i]), hv(sc, t->shape[i]));
        if (e > best)
            best = e, extent = S_mul(sc, t->stride[i], t->shape[i]);
    }
    if (!extent)
        extent = K(sc, 1);
    o = out_view(sc, t, t->ndim + 1);
    for (uint32_t i = 0, k = 0; i <= t->ndim; i++) {
        if ((int64_t)i == out_dim) {
            o->shape[i] = batch;
            o->stride[i] = extent;
        } else {
            o->shape[i] = t->shape[k];
            o->stride[i] = t->stride[k++];
        }
    }
    return 0;
}
