/* Shape rules and helpers (lib/passes/shapes.h): factories, more of the core ATen opset, losses, backward kernels, copies; comparing with the record. */
#include "lib/passes/shapes-int.h"

/* ---- factories ----------------------------------------------------------------------- */

const char *device_arg(struct cgs_shape_ctx *sc)
{
    const char *dev = str_of(A(sc, "device"));

    return dev ? dev : "cpu";
}

RULE(arange)
{
    struct operand o[3];
    const struct cgs_arg *a[3] = {A(sc, "start"), A(sc, "end"), A(sc, "step")};
    sym_t len, start, end, step;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    bool any_float = false;
    uint32_t i;

    (void)n;
    if (is_none(a[1]) && !is_none(a[0]) && find_param(sc, "start") >= 0) {
        // arange(end): the first positional is the end
        a[1] = a[0];
        a[0] = NULL;
    }
    for (i = 0; i < 3; i++) {
        int rc = operand_of(sc, a[i], &o[i]);
        if (rc < 0)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "arange bounds not known");
        if (rc == 0 && o[i].scalar == CGS_DTYPE_FLOAT32)
            any_float = true;
    }
    if (any_float) {
        // ceil((end - start) / step) in double, as torch computes the length
        double v[3] = {0, 0, 1};
        int64_t c;
        for (i = 0; i < 3; i++) {
            if (is_none(a[i]))
                continue;
            if (o[i].scalar == CGS_DTYPE_FLOAT32)
                v[i] = o[i].f;
            else if (o[i].sym && cgs_sym_is_int(o[i].sym, &c))
                v[i] = (double)c;
            else
                return cgs_diag_set(d, CGS_E_UNKNOWN, "arange: symbolic bounds with floats");
        }
        if (v[2] == 0 || !isfinite((v[1] - v[0]) / v[2]) || (v[1] - v[0]) / v[2] > 9e15)
            return cgs_diag_set(d, CGS_E_INVAL, "arange: bad bounds or step");
        len = K(sc, (int64_t)ceil((v[1] - v[0]) / v[2]));
        if (dt == CGS_DTYPE_UNKNOWN)
            dt = CGS_DTYPE_FLOAT32;
        out_dense(sc, 1, &len, dt, device_arg(sc), false);
        return 0;
    }
    start = !is_none(a[0]) ? o[0].sym : K(sc, 0);
    end = o[1].sym;
    step = !is_none(a[2]) ? o[2].sym : K(sc, 1);
    if (!end)
        return cgs_diag_set(d, CGS_E_INVAL, "arange without an end");
    {
        int64_t sv;
        if (is_const(step, 1))
            len = S_sub(sc, end, start);
        else if (cgs_sym_is_int(step, &sv) && sv < 0)
            // ceil(x / step) for step < 0 is (x + step + 1) // step
            len = S_div(sc, S_add(sc, S_sub(sc, end, start), S_add(sc, step, K(sc, 1))), step);
        else
            len = S_div(sc, S_add(sc, S_sub(sc, end, start), S_sub(sc, step, K(sc, 1))), step);
    }
    if (dt == CGS_DTYPE_UNKNOWN)
        dt = CGS_DTYPE_INT64;
    out_dense(sc, 1, &len, dt, device_arg(sc), false);
    return 0;
}

int factory(struct cgs_shape_ctx *sc, const struct cgs_arg *size, enum cgs_dtype dt,
            const char *dev, struct cgs_diag *d)
{
    sym_t shape[NDIM_MAX];
    uint32_t nd;
    const char *fmt = str_of(A(sc, "memory_format"));

    TRY(shape_param(sc, size, shape, &nd, d));
    out_dense(sc, nd, shape, dt, dev, fmt && !strcmp(fmt, "channels_last"));
    return 0;
}

RULE(full)
{
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    if (dt == CGS_DTYPE_UNKNOWN) {
        struct operand o;
        if (operand_of(sc, A(sc, "fill_value"), &o) == 0 && !o.t)
            dt = o.scalar;
        else
            dt = CGS_DTYPE_FLOAT32;
    }
    return factory(sc, A(sc, "size"), dt, device_arg(sc), d);
}

RULE(zeros)
{
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    return factory(sc, A(sc, "size"), dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt,
                   device_arg(sc), d);
}

RULE(new_full)
{
    const struct cgs_tensor *t;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    const char *dev = str_of(A(sc, "device"));

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    return factory(sc, A(sc, "size"), dt == CGS_DTYPE_UNKNOWN ? t->dtype : dt,
                   dev ? dev : t->device, d);
}

RULE(empty_strided)
{
    sym_t shape[NDIM_MAX], stride[NDIM_MAX];
    uint32_t nd, ns;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    struct cgs_tensor *o;

    (void)n;
    TRY(shape_param(sc, A(sc, "size"), shape, &nd, d));
    TRY(shape_param(sc, A(sc, "stride"), stride, &ns, d));
    if (nd != ns)
        return cgs_diag_set(d, CGS_E_INVAL, "empty_strided: %u sizes and %u strides", nd, ns);
    o = out_tensor(sc, nd, dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt, device_arg(sc));
    dimcpy(o->shape, shape, nd);
    dimcpy(o->stride, stride, nd);
    return 0;
}

RULE(seeds)
{
    sym_t c;

    (void)n;
    if (int_of(sc, A(sc, "count"), &c))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "seed count not known");
    out_dense(sc, 1, &c, CGS_DTYPE_INT64, device_arg(sc), false);
    return 0;
}

RULE(lookup_seed)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "seeds", &t, d));
    out_dense(sc, 0, NULL, t->dtype, t->device, false);
    return 0;
}

RULE(inductor_random)
{
    const struct cgs_tensor *seed;

    (void)n;
    TRY(need_tensor(sc, "seed", &seed, d));
    return factory(sc, A(sc, "size"), CGS_DTYPE_FLOAT32, seed->device, d);
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

/* ---- more of the core ATen opset ------------------------------------------------------ */

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

/* A (values, indices) pair of dense tensors of one shape. */
void pair_out(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
              const sym_t *shape)
{
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], nd, shape, t->dtype, t->device, false);
    fill_dense(sc, &sc->out->u.items[1], nd, shape, CGS_DTYPE_INT64, t->device, false);
}

/* scatter: ATen clones self contiguous, then scatters into the copy. */
RULE(scatter)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, "contiguous_format", NULL);
}

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

/* prims.iota(length, *, start, step, dtype, device, requires_grad): a 1-D range. */
RULE(iota)
{
    sym_t len;

    (void)n;
    if (int_of(sc, A(sc, "length"), &len))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "iota: length not known");
    out_dense(sc, 1, &len, dtype_of(A(sc, "dtype")) == CGS_DTYPE_UNKNOWN
                               ? CGS_DTYPE_INT64
                               : dtype_of(A(sc, "dtype")),
              device_arg(sc), false);
    return 0;
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

RULE(scalar_tensor)
{
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n, (void)d;
    out_dense(sc, 0, NULL, dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt, device_arg(sc), false);
    return 0;
}

/*
 * torch.tensor(data) / torch.as_tensor(data): the shape of the nested lists and the dtype
 * torch infers from their leaves (bools: bool; ints and SymInts: int64; any float: the default
 * float32) unless dtype= says; torch.tensor([]) is float32 of shape [0]. A tensor as the data
 * keeps its shape, dtype and device; 0-d tensors may be leaves.
 */
struct data_scan {
    uint32_t nd;
    int64_t shape[NDIM_MAX];
    int leaf_depth; /* -1 until the first leaf */
    int cat;        /* the highest dt_cat of the leaves (bool < int < float < complex), -1 none */
    bool ragged, unknown;
};

void scan_leaf(struct data_scan *s, uint32_t depth, int cat)
{
    if (s->leaf_depth < 0)
        s->leaf_depth = (int)depth;
    else if (s->leaf_depth != (int)depth)
        s->ragged = true;
    if (depth < s->nd)
        s->ragged = true;
    if (cat < 0)
        s->unknown = true;
    if (cat > s->cat)
        s->cat = cat;
}

void scan_data(struct cgs_shape_ctx *sc, const struct cgs_arg *a, uint32_t depth,
               struct data_scan *s)
{
    const struct cgs_val *v;

    if (s->ragged || s->unknown)
        return;
    switch (a->kind) {
    case CGS_ARG_LIST:
        if (depth >= NDIM_MAX || (s->leaf_depth >= 0 && (int)depth >= s->leaf_depth)) {
            s->ragged = depth < NDIM_MAX;
            s->unknown = depth >= NDIM_MAX;
            return;
        }
        if (depth == s->nd)
            s->shape[s->nd++] = a->n;
        else if (depth > s->nd || s->shape[depth] != (int64_t)a->n)
            s->ragged = true;
        for (uint32_t i = 0; i < a->n; i++)
            scan_data(sc, &a->u.items[i], depth + 1, s);
        break;
    case CGS_ARG_BOOL:
        scan_leaf(s, depth, dt_cat(CGS_DTYPE_BOOL));
        break;
    case CGS_ARG_INT:
    case CGS_ARG_SYM:
        scan_leaf(s, depth, dt_cat(CGS_DTYPE_INT64));
        break;
    case CGS_ARG_FLOAT:
        scan_leaf(s, depth, dt_cat(CGS_DTYPE_FLOAT32));
        break;
    case CGS_ARG_NODE:
        v = node_val(sc, a);
        if (!v) {
            s->unknown = true;
        } else if (v->kind == CGS_VAL_SYMINT || v->kind == CGS_VAL_INT) {
            scan_leaf(s, depth, dt_cat(CGS_DTYPE_INT64));
        } else if (v->kind == CGS_VAL_SYMFLOAT || v->kind == CGS_VAL_FLOAT) {
            scan_leaf(s, depth, dt_cat(CGS_DTYPE_FLOAT32));
        } else if (v->kind == CGS_VAL_SYMBOOL || v->kind == CGS_VAL_BOOL) {
            scan_leaf(s, depth, dt_cat(CGS_DTYPE_BOOL));
        } else if (v->kind == CGS_VAL_TENSOR && v->u.t.ndim == 0 && depth > 0) {
            scan_leaf(s, depth, dt_cat(v->u.t.dtype));
        } else {
            s->unknown = true;
        }
        break;
    default:
        s->unknown = true;
        break;
    }
}

RULE(tensor_data)
{
    const struct cgs_arg *data = A(sc, "data");
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    const char *dev = str_of(A(sc, "device"));
    struct data_scan s;
    sym_t shape[NDIM_MAX];
    const struct cgs_tensor *t;

    (void)n;
    if (!data)
        return cgs_diag_set(d, CGS_E_INVAL, "missing data");
    if (data->kind == CGS_ARG_NODE && arg_tensor(sc, data, &t) == 0) {
        out_dense(sc, t->ndim, t->shape, dt == CGS_DTYPE_UNKNOWN ? t->dtype : dt,
                  dev ? dev : t->device, false);
        return 0;
    }
    memset(&s, 0, sizeof(s));
    s.leaf_depth = -1;
    s.cat = -1;
    scan_data(sc, data, 0, &s);
    if (s.unknown)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "the data's values are not known");
    if (s.ragged)
        return cgs_diag_set(d, CGS_E_INVAL, "the data is not a rectangular nesting of lists");
    for (uint32_t i = 0; i < s.nd; i++)
        shape[i] = K(sc, s.shape[i]);
    if (dt == CGS_DTYPE_UNKNOWN)
        /* no leaf ([]) and float leaves: the default float32; complex: complex64 */
        dt = s.cat == 0 ? CGS_DTYPE_BOOL : s.cat == 1 ? CGS_DTYPE_INT64
             : s.cat == 3 ? CGS_DTYPE_COMPLEX64 : CGS_DTYPE_FLOAT32;
    out_dense(sc, s.nd, shape, dt, dev ? dev : "cpu", false);
    return 0;
}

RULE(group_norm)
{
    const struct cgs_tensor *in;
    sym_t stat[2];
    uint32_t i;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    if (int_of(sc, A(sc, "N"), &stat[0]) || int_of(sc, A(sc, "group"), &stat[1]))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "group norm sizes not known");
    sc->out = new_list(sc, 3);
    fill_dense(sc, &sc->out->u.items[0], in->ndim, in->shape, in->dtype, in->device,
               suggest_cl(sc, in));
    for (i = 1; i < 3; i++)
        fill_dense(sc, &sc->out->u.items[i], 2, stat, in->dtype, in->device, false);
    return 0;
}

/* Spatial output sizes from output_size, else input * scale (floored). */
int upsample_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                const struct cgs_arg *size, const struct cgs_arg *scale, struct cgs_diag *d)
{
    sym_t os[NDIM_MAX], shape[NDIM_MAX];
    uint32_t cnt = 0, i, k;

    if (t->ndim < 3)
        return cgs_diag_set(d, CGS_E_INVAL, "upsample of rank %u", t->ndim);
    k = t->ndim - 2;
    dimcpy(shape, t->shape, t->ndim);
    if (!is_none(size)) {
        if (ints_of(sc, size, os, &cnt) || (cnt != 1 && cnt != k))
            return cgs_diag_set(d, CGS_E_INVAL, "upsample: bad output size");
        for (i = 0; i < k; i++)
            shape[2 + i] = os[cnt == 1 ? 0 : i];
    } else if (scale) {
        const struct cgs_arg *it = scale;
        for (i = 0; i < k; i++) {
            double f;
            if (scale->kind == CGS_ARG_LIST)
                it = i < scale->n ? &scale->u.items[i] : NULL;
            if (!it || (it->kind != CGS_ARG_FLOAT && it->kind != CGS_ARG_INT))
                return cgs_diag_set(d, CGS_E_UNKNOWN, "upsample: scale not known");
            int64_t in;
            f = it->kind == CGS_ARG_FLOAT ? it->u.f : (double)it->u.i;
            if (!(f > 0) || f > 1e15)
                return cgs_diag_set(d, CGS_E_INVAL, "upsample: scale %g", f);
            if (cgs_sym_is_int(t->shape[2 + i], &in)) {
                // int(float(size) * scale), as interpolate computes it
                double o = (double)in * f;
                if (o >= 9.2e18)
                    return cgs_diag_set(d, CGS_E_LIMIT, "upsample: output size past 2^63");
                shape[2 + i] = K(sc, (int64_t)o);
            } else if (it->kind == CGS_ARG_INT || f == floor(f)) {
                // an integral scale: torch's simplifier makes TruncToInt(2.0*ToFloat(s)) 2*s
                shape[2 + i] = S_mul(sc, t->shape[2 + i], K(sc, (int64_t)f));
            } else {
                // a symbolic size: torch's sym_int(scale * sym_float(size)), an opaque call;
                // the coefficient as torch writes it: sympy's Float with 15 significant
                // digits, trailing zeros dropped ("1.7", "0.333333333333333"; measured)
                struct cgs_buf text = CGS_BUF_INIT;
                struct cgs_diag pd = CGS_DIAG_INIT;
                const struct cgs_sym *e = NULL;
                cgs_buf_addf(&text, "TruncToInt(%.15g*ToFloat(", f);
                cgs_sym_print(t->shape[2 + i], &text);
                cgs_buf_addstr(&text, "))");
                int perr = cgs_sym_parse(sc->sx, text.buf, &e, &pd);
                cgs_buf_release(&text);
                if (perr)
                    return cgs_diag_set(d, CGS_E_UNKNOWN, "upsample: symbolic scale: %s", pd.msg);
                shape[2 + i] = e;
            }
        }
    } else {
        return cgs_diag_set(d, CGS_E_INVAL, "upsample needs a size or a scale");
    }
    out_dense(sc, t->ndim, shape, t->dtype, t->device, suggest_cl(sc, t));
    return 0;
}

RULE(upsample)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "input", &t, d));
    return upsample_to(sc, t, A(sc, "output_size"),
                       A(sc, "scale_factors") ? A(sc, "scale_factors") : A(sc, "scales_h"), d);
}

RULE(interpolate)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "input", &t, d));
    return upsample_to(sc, t, A(sc, "size"), A(sc, "scale_factor"), d);
}

RULE(bn_backward)
{
    const struct cgs_tensor *in, *w = NULL;
    sym_t c[1];
    uint32_t i;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    if (in->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "batch norm backward of rank %u", in->ndim);
    arg_tensor(sc, A(sc, "weight"), &w);
    c[0] = in->shape[1];
    sc->out = new_list(sc, 3);
    fill_dense(sc, &sc->out->u.items[0], in->ndim, in->shape, in->dtype, in->device,
               suggest_cl(sc, in));
    for (i = 1; i < 3; i++)
        fill_dense(sc, &sc->out->u.items[i], 1, c, w ? w->dtype : in->dtype, in->device, false);
    return 0;
}

/* ---- losses, backward kernels, copies -------------------------------------------------- */

/* A contiguous copy of the first argument (tril, triu, roll, index_add, lift_fresh_copy). */
RULE(contig_copy)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, "contiguous_format", NULL);
}

/* A contiguous tensor shaped like parameter `self`, of the dtype of the first argument. */
RULE(like_self_contig)
{
    const struct cgs_tensor *g, *t;

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &g) == 0 ? 0 : need_tensor(sc, "grad_output", &g, d));
    TRY(need_tensor(sc, "self", &t, d));
    out_dense(sc, t->ndim, t->shape, g->dtype, t->device, false);
    return 0;
}

/* The view rule of the op the _copy variant copies, then a contiguous result. */
/*
 * The _copy form of a view (torch tags them `view_copy`: expand_copy, permute_copy, ...): the
 * view's shape, as a fresh contiguous tensor. One rule per view rule (tools/gen-op-list.py maps
 * each X_copy packet to copy_of_<rule of X>).
 */
int copy_of(const struct cgs_node *n, struct cgs_shape_ctx *sc, cgs_shape_rule_fn view,
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

RULE(nll_loss)
{
    const struct cgs_tensor *t;
    int64_t reduction = 1;
    sym_t batch[1];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    int_const(sc, A(sc, "reduction"), &reduction);
    sc->out = new_list(sc, 2);
    if (reduction == 0 && t->ndim == 2) {
        batch[0] = t->shape[0];
        fill_dense(sc, &sc->out->u.items[0], 1, batch, t->dtype, t->device, false);
    } else {
        fill_dense(sc, &sc->out->u.items[0], 0, batch, t->dtype, t->device, false);
    }
    fill_dense(sc, &sc->out->u.items[1], 0, batch, t->dtype, t->device, false);
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

RULE(mse_loss)
{
    struct operand o[2];
    sym_t shape[NDIM_MAX];
    uint32_t cnt, nd;
    int64_t reduction = 1;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "mse_loss needs two tensors");
    int_const(sc, A(sc, "reduction"), &reduction);
    TRY(broadcast(sc, o, 2, shape, &nd, d));
    out_dense(sc, reduction == 0 ? nd : 0, shape, result_type(o, 2), o[0].t->device, false);
    return 0;
}

RULE(new_empty_strided)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX], stride[NDIM_MAX];
    uint32_t nd, ns;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    struct cgs_tensor *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, A(sc, "size"), shape, &nd, d));
    TRY(shape_param(sc, A(sc, "stride"), stride, &ns, d));
    if (nd != ns)
        return cgs_diag_set(d, CGS_E_INVAL, "new_empty_strided: %u sizes and %u strides", nd, ns);
    o = out_tensor(sc, nd, dt == CGS_DTYPE_UNKNOWN ? t->dtype : dt, t->device);
    dimcpy(o->shape, shape, nd);
    dimcpy(o->stride, stride, nd);
    return 0;
}

/* ---- comparing with the record ------------------------------------------------------- */

bool dim_eq(sym_t a, sym_t b)
{
    if (a == b)
        return true;
    if (!a || !b)
        return false;
    return cgs_sym_equal_semantic(a, b);
}

/* "float32[2, 3] stride [3, 1] offset 0", or the report's short form for other values. */
void describe_val(const struct cgs_val *v, struct cgs_buf *out)
{
    const struct cgs_tensor *t;
    uint32_t i;

    if (!v || v->kind != CGS_VAL_TENSOR || v->u.t.ndim == CGS_NDIM_UNKNOWN || !v->u.t.stride) {
        cgs_val_describe(v, out);
        return;
    }
    t = &v->u.t;
    cgs_val_describe(v, out);
    cgs_buf_addstr(out, " stride [");
    for (i = 0; i < t->ndim; i++) {
        if (i)
            cgs_buf_addstr(out, ", ");
        if (t->stride[i])
            cgs_sym_print(t->stride[i], out);
        else
            cgs_buf_addch(out, '?');
    }
    cgs_buf_addstr(out, "] offset ");
    if (t->storage_offset)
        cgs_sym_print(t->storage_offset, out);
    else
        cgs_buf_addch(out, '?');
}

void describe(struct cgs_buf *why, const char *what, const struct cgs_val *a,
              const struct cgs_val *b)
{
    if (!why)
        return;
    cgs_buf_addf(why, "%s: inferred ", what);
    describe_val(a, why);
    cgs_buf_addstr(why, ", recorded ");
    describe_val(b, why);
}

enum cgs_shape_cmp cgs_shapes_compare(const struct cgs_val *a, const struct cgs_val *b,
                                      struct cgs_buf *why)
{
    if (!b)
        return CGS_SHAPE_CMP_NONE;
    // a tensor of which nothing is known (a declared 'unknown' output) claims nothing
    if (a && a->kind == CGS_VAL_TENSOR && a->u.t.ndim == CGS_NDIM_UNKNOWN &&
        a->u.t.dtype == CGS_DTYPE_UNKNOWN)
        return CGS_SHAPE_CMP_NONE;
    if (!a) {
        if (why)
            cgs_buf_addstr(why, "not inferred");
        return CGS_SHAPE_CMP_MISMATCH;
    }
    if (a->kind == CGS_VAL_LIST && b->kind == CGS_VAL_LIST) {
        enum cgs_shape_cmp worst = CGS_SHAPE_CMP_MATCH;
        uint32_t i;
        if (a->n != b->n) {
            describe(why, "list length differs", a, b);
            return CGS_SHAPE_CMP_MISMATCH;
        }
        for (i = 0; i < a->n; i++) {
            enum cgs_shape_cmp c = cgs_shapes_compare(&a->u.items[i], &b->u.items[i], NULL);
            if (c > worst)
                worst = c;
        }
        if (worst > CGS_SHAPE_CMP_MATCH)
            describe(why, worst == CGS_SHAPE_CMP_STRIDES ? "strides differ" : "values differ", a,
                     b);
        return worst;
    }
    if (a->kind == CGS_VAL_TENSOR && b->kind == CGS_VAL_TENSOR) {
        const struct cgs_tensor *x = &a->u.t, *y = &b->u.t;
        uint32_t i;
        if (x->ndim != y->ndim || x->dtype != y->dtype || x->ndim == CGS_NDIM_UNKNOWN)
            goto mismatch;
        for (i = 0; i < x->ndim; i++)
            if (!x->shape || !y->shape || !dim_eq(x->shape[i], y->shape[i]))
                goto mismatch;
        for (i = 0; i < x->ndim; i++)
            if (!x->stride || !y->stride || !dim_eq(x->stride[i], y->stride[i]))
                goto strides;
        if (y->storage_offset && !dim_eq(x->storage_offset, y->storage_offset))
            goto strides;
        return CGS_SHAPE_CMP_MATCH;
    strides:
        describe(why, "strides differ", a, b);
        return CGS_SHAPE_CMP_STRIDES;
    mismatch:
        describe(why, "shape or dtype differs", a, b);
        return CGS_SHAPE_CMP_MISMATCH;
    }
    if ((a->kind == CGS_VAL_SYMINT || a->kind == CGS_VAL_INT) &&
        (b->kind == CGS_VAL_SYMINT || b->kind == CGS_VAL_INT)) {
        if (a->kind == CGS_VAL_INT && b->kind == CGS_VAL_INT)
            return a->u.i == b->u.i ? CGS_SHAPE_CMP_MATCH : CGS_SHAPE_CMP_MISMATCH;
        if (a->kind == CGS_VAL_SYMINT && b->kind == CGS_VAL_SYMINT)
            return dim_eq(a->u.s.sym, b->u.s.sym) ? CGS_SHAPE_CMP_MATCH : CGS_SHAPE_CMP_MISMATCH;
        // a constant against a symbol: equal only if the symbol folds to it
        {
            const struct cgs_val *s = a->kind == CGS_VAL_SYMINT ? a : b;
            const struct cgs_val *c = a->kind == CGS_VAL_INT ? a : b;
            int64_t v;
            if (s->u.s.sym && cgs_sym_is_int(s->u.s.sym, &v) && v == c->u.i)
                return CGS_SHAPE_CMP_MATCH;
            describe(why, "value differs", a, b);
            return CGS_SHAPE_CMP_MISMATCH;
        }
    }
    // a data-dependent float or bool (item of a tensor) has no value to compare: the record
    // holds whatever the tracer saw, a number or a symbol
    if ((a->kind == CGS_VAL_SYMFLOAT &&
         (b->kind == CGS_VAL_SYMFLOAT || b->kind == CGS_VAL_FLOAT || b->kind == CGS_VAL_INT)) ||
        (a->kind == CGS_VAL_SYMBOOL && (b->kind == CGS_VAL_SYMBOOL || b->kind == CGS_VAL_BOOL)))
        return CGS_SHAPE_CMP_NONE;
    if (a->kind == b->kind) {
        switch (a->kind) {
        case CGS_VAL_NONE:
            return CGS_SHAPE_CMP_MATCH;
        case CGS_VAL_BOOL:
            return a->u.b == b->u.b ? CGS_SHAPE_CMP_MATCH : CGS_SHAPE_CMP_MISMATCH;
        default:
            return CGS_SHAPE_CMP_NONE;
        }
    }
    describe(why, "kind of value differs", a, b);
    return CGS_SHAPE_CMP_MISMATCH;
}
