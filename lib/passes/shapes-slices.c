/*
 * Shape rules (lib/passes/shapes.h), slicing: select, slice, narrow, split, chunk, unbind,
 * getitem, tensor_split, unfold. Helpers come from the core (shapes-int.h); docs/shape-rules.md
 * lists every rule's file.
 */
#include "lib/passes/shapes-int.h"

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

static int split_into(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t dim,
               const sym_t *sizes, uint32_t cnt);

/* tensor_split(self, indices_or_sections, dim) and h/v/dsplit: views; n sections give
 * n % k pieces of n // k + 1 first, a list of indices the pieces between them (clamped to the
 * size). A symbolic size is compared at its hint where torch's loop compares it (a guard). */
static int tensor_split_along(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t dim,
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

/*
 * split(t, each, dim) of a symbolic size, as torch's split_symint does it: the number of pieces,
 * max(ceil(size / each), 1), is taken at the sizes' hints (a guard); every piece has `each`
 * but the last, `each - (each * count - size)`.
 */
static int split_symbolic(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t dim,
                          sym_t each, struct cgs_diag *d)
{
    sym_t sizes[NDIM_MAX * 4];
    int64_t total, e, cnt;

    if (!each || !hint(sc, t->shape[dim], &total) || !hint(sc, each, &e))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "split: sizes without hints are not tracked");
    if (e <= 0)
        return cgs_diag_set(d, CGS_E_INVAL, "split: the split size must be positive");
    cnt = total ? (total + e - 1) / e : 1;
    if (cnt < 1)
        cnt = 1;
    if (cnt > NDIM_MAX * 4)
        return cgs_diag_set(d, CGS_E_LIMIT, "split into too many pieces");
    for (int64_t i = 0; i + 1 < cnt; i++)
        sizes[i] = each;
    sizes[cnt - 1] = S_sub(sc, each, S_sub(sc, S_mul(sc, each, K(sc, cnt)), t->shape[dim]));
    return split_into(sc, t, dim, sizes, (uint32_t)cnt);
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
    if (!int_const(sc, sa, &each) || !cgs_sym_is_int(t->shape[dim], &total)) {
        sym_t e;
        if (int_of(sc, sa, &e))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "split: the split size is not known");
        return split_symbolic(sc, t, dim, e, d);
    }
    if (each <= 0)
        return cgs_diag_set(d, CGS_E_INVAL, "split: the split size must be positive");
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
    if (!int_const(sc, A(sc, "chunks"), &chunks) || chunks <= 0)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "chunk: the number of chunks is not known");
    if (!cgs_sym_is_int(t->shape[dim], &total))
        // chunk is split of (size + chunks - 1) // chunks
        return split_symbolic(sc, t, dim,
                              S_div(sc, S_add(sc, t->shape[dim], K(sc, chunks - 1)), K(sc, chunks)),
                              d);
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
