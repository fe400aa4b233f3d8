/*
 * Shape rules (lib/passes/shapes.h), factories: arange, full, zeros, empty_strided, random
 * tensors, eye, linspace, literal tensors. Helpers come from the core (shapes-int.h); docs/shape-
 * rules.md lists every rule's file.
 */
#include "lib/passes/shapes-int.h"

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

static int factory(struct cgs_shape_ctx *sc, const struct cgs_arg *size, enum cgs_dtype dt,
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

/* zeros, ones, empty, rand, randn and normal(mean: float, std: float, size): a new contiguous
 * tensor of size, of the dtype the call or the schema's default says. */
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

static void scan_leaf(struct data_scan *s, uint32_t depth, int cat)
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

static void scan_data(struct cgs_shape_ctx *sc, const struct cgs_arg *a, uint32_t depth,
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
static int tri_indices(struct cgs_shape_ctx *sc, bool upper, struct cgs_diag *d)
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
