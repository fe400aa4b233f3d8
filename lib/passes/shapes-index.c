/*
 * Shape rules (lib/passes/shapes.h), indexing and joining: index, gather, scatter, take, masked
 * ops, nonzero, embedding, cat and stack, pad, repeat. Helpers come from the core (shapes-int.h);
 * docs/shape-rules.md lists every rule's file.
 */
#include "lib/passes/shapes-int.h"

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

/* scatter: ATen clones self contiguous, then scatters into the copy. */
RULE(scatter)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, "contiguous_format", NULL);
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

/* nonzero: int64 [u, ndim] with strides (1, u) (FakeTensor's nonzero); 0 rows when empty. */
/* nonzero(self): [nnz, ndim] int64, nnz unbacked; as a tuple (as_tuple=True, nonzero_numpy),
 * its columns: torch.unbind(nonzero(x), 1), one [nnz] tensor per dim, column i at offset
 * i * nnz. */
static int nonzero_with(const struct cgs_node *n, struct cgs_shape_ctx *sc, bool tuple,
                        struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;
    sym_t nnz, numel = K(sc, 1);
    int64_t c;
    uint32_t i;

    TRY(need_tensor(sc, "self", &t, d));
    for (i = 0; i < t->ndim; i++)
        numel = S_mul(sc, numel, t->shape[i]);
    nnz = cgs_sym_is_int(numel, &c) && c == 0 ? K(sc, 0) : unbacked(sc);
    o = new_tensor_val(sc, &sc->out, 2, CGS_DTYPE_INT64, t->device);
    o->shape[0] = nnz, o->shape[1] = K(sc, t->ndim);
    o->stride[0] = K(sc, 1), o->stride[1] = nnz;
    for (i = 0; !tuple && i < n->n_kwargs; i++)
        tuple = !strcmp(n->kwargs[i].key, "as_tuple") && n->kwargs[i].val.kind == CGS_ARG_BOOL &&
                n->kwargs[i].val.u.b;
    if (tuple) {
        /* a 0-dim tensor counts as 1-dim (numpy's nonzero): one column */
        uint32_t cols = t->ndim ? t->ndim : 1;
        struct cgs_val *l = new_list(sc, cols);
        for (uint32_t k = 0; k < cols; k++) {
            struct cgs_tensor *c1 = fill_tensor(sc, &l->u.items[k], 1, CGS_DTYPE_INT64, t->device);
            c1->shape[0] = nnz;
            c1->stride[0] = K(sc, 1);
            c1->storage_offset = S_mul(sc, K(sc, k), nnz);
        }
        sc->out = l;
    }
    return 0;
}

RULE(nonzero) { return nonzero_with(n, sc, false, d); }

RULE(nonzero_numpy) { return nonzero_with(n, sc, true, d); }

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
