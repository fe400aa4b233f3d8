/* Shape rules and helpers (lib/passes/shapes.h): sizes and scalars, neural-network operators. */
#include "lib/passes/shapes-int.h"

/* ---- sizes and scalars ------------------------------------------------------------------ */

RULE(size)
{
    const struct cgs_tensor *t;
    const struct cgs_arg *da = A(sc, "dim");
    uint32_t i, dim;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (!is_none(da)) {
        TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
        sc->out = new_val(sc, CGS_VAL_INT);
        set_symint(sc, sc->out, t->shape[dim]);
        return 0;
    }
    sc->out = new_list(sc, t->ndim);
    for (i = 0; i < t->ndim; i++)
        set_symint(sc, &sc->out->u.items[i], t->shape[i]);
    return 0;
}

RULE(sym_size) { return cgs_shape_rule_size(n, sc, d); }

RULE(sym_stride)
{
    const struct cgs_tensor *t;
    uint32_t dim;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    sc->out = new_val(sc, CGS_VAL_INT);
    set_symint(sc, sc->out, t->stride[dim]);
    return 0;
}

RULE(dim)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    sc->out = new_val(sc, CGS_VAL_INT);
    sc->out->u.i = t->ndim;
    return 0;
}

RULE(numel)
{
    const struct cgs_tensor *t;
    sym_t m;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    m = numel_of(sc, t->ndim, t->shape);
    if (!m)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "numel overflows");
    sc->out = new_val(sc, CGS_VAL_INT);
    set_symint(sc, sc->out, m);
    return 0;
}

RULE(torch_size)
{
    sym_t s[NDIM_MAX];
    uint32_t cnt, i;

    (void)n;
    TRY(shape_param(sc, Ai(sc, 0), s, &cnt, d));
    sc->out = new_list(sc, cnt);
    for (i = 0; i < cnt; i++)
        set_symint(sc, &sc->out->u.items[i], s[i]);
    return 0;
}

RULE(getattr)
{
    const char *name = str_of(A(sc, "name"));
    const struct cgs_tensor *t;

    (void)n;
    if (!name)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "getattr with a name that is not a string");
    TRY(need_tensor(sc, "obj", &t, d));
    if (!strcmp(name, "shape")) {
        uint32_t i;
        sc->out = new_list(sc, t->ndim);
        for (i = 0; i < t->ndim; i++)
            set_symint(sc, &sc->out->u.items[i], t->shape[i]);
        return 0;
    }
    if (!strcmp(name, "ndim")) {
        sc->out = new_val(sc, CGS_VAL_INT);
        sc->out->u.i = t->ndim;
        return 0;
    }
    if (!strcmp(name, "T") || !strcmp(name, "H") || !strcmp(name, "mT") || !strcmp(name, "mH")) {
        // views: .T/.H reverse the dims, .mT/.mH swap the last two (H and mH conjugate, a bit
        // that does not change the layout)
        bool matrix = name[0] == 'm';
        struct cgs_tensor *o;
        uint32_t i;
        if (matrix && t->ndim < 2)
            return cgs_diag_set(d, CGS_E_INVAL, "%s of a tensor of rank %u", name, t->ndim);
        o = out_view(sc, t, t->ndim);
        for (i = 0; i < t->ndim; i++) {
            uint32_t from = i;
            if (!matrix)
                from = t->ndim - 1 - i;
            else if (i >= t->ndim - 2)
                from = i == t->ndim - 1 ? t->ndim - 2 : t->ndim - 1;
            o->shape[i] = t->shape[from];
            o->stride[i] = t->stride[from];
        }
        return 0;
    }
    return cgs_diag_set(d, CGS_E_UNKNOWN, "attribute '%s' is not tracked", name);
}

/* A fresh unbacked size symbol (u0, u1, ...): a data-dependent value, as FakeTensor makes one. */

/* item / _local_scalar_dense: an unbacked SymInt (SymFloat, SymBool) for the tensor's value. */
RULE(item)
{
    const struct cgs_tensor *t;
    struct cgs_val *v;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    v = new_val(sc, CGS_VAL_SYMINT);
    switch (cgs_dtypes[t->dtype].kind) {
    case 'F':
    case 'C':
        v->kind = CGS_VAL_SYMFLOAT;
        v->u.s.text = "unbacked float";
        break;
    case 'B':
        v->kind = CGS_VAL_SYMBOOL;
        v->u.s.text = "unbacked bool";
        break;
    case 'I':
    case 'U':
        set_symint(sc, v, unbacked(sc));
        break;
    default:
        return cgs_diag_set(d, CGS_E_UNKNOWN, "item of a tensor of unknown dtype");
    }
    sc->out = v;
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

RULE(novalue)
{
    (void)n, (void)d;
    sc->out = new_val(sc, CGS_VAL_NONE);
    return 0;
}

RULE(scalar_float)
{
    UNUSED_RULE_ARGS;
    sc->out = NULL;
    return cgs_diag_set(d, CGS_E_UNKNOWN, "float scalars are not tracked");
}

int sym_fold(struct cgs_shape_ctx *sc, int which, struct cgs_diag *d)
{
    sym_t a, b, r;

    if (int_of(sc, Ai(sc, 0), &a) || int_of(sc, Ai(sc, 1), &b))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "operands are not known integers");
    r = which ? cgs_sym_min(sc->sx, a, b) : cgs_sym_max(sc->sx, a, b);
    if (!r)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "overflow");
    sc->out = new_val(sc, CGS_VAL_INT);
    set_symint(sc, sc->out, r);
    return 0;
}

RULE(sym_max)
{
    (void)n;
    return sym_fold(sc, 0, d);
}

RULE(sym_min)
{
    (void)n;
    return sym_fold(sc, 1, d);
}

RULE(sym_sum)
{
    sym_t s[NDIM_MAX], r;
    uint32_t cnt, i;

    (void)n;
    TRY(shape_param(sc, Ai(sc, 0), s, &cnt, d));
    r = K(sc, 0);
    for (i = 0; i < cnt; i++)
        r = S_add(sc, r, s[i]);
    if (!r)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "overflow");
    sc->out = new_val(sc, CGS_VAL_INT);
    set_symint(sc, sc->out, r);
    return 0;
}

/* ---- neural-network operators ----------------------------------------------------------- */

/* A fresh dense tensor as result: contiguous, or channels-last when cl. */
struct cgs_tensor *out_dense(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                             enum cgs_dtype dt, const char *dev, bool cl)
{
    struct cgs_tensor *o = out_tensor(sc, nd, dt, dev);

    dimcpy(o->shape, shape, nd);
    if (cl)
        channels_last_strides(sc, nd, o->shape, o->stride);
    else
        contiguous_strides(sc, nd, o->shape, o->stride);
    return o;
}

struct cgs_tensor *fill_dense(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t nd,
                              const sym_t *shape, enum cgs_dtype dt, const char *dev,
                              bool cl)
{
    struct cgs_tensor *o = fill_tensor(sc, v, nd, dt, dev);

    dimcpy(o->shape, shape, nd);
    if (cl)
        channels_last_strides(sc, nd, o->shape, o->stride);
    else
        contiguous_strides(sc, nd, o->shape, o->stride);
    return o;
}

/* stride/padding/dilation style parameter expanded to k entries. */
int spatial_param(struct cgs_shape_ctx *sc, const char *name, uint32_t k, int64_t def,
                  sym_t *out, struct cgs_diag *d)
{
    const struct cgs_arg *a = A(sc, name);
    sym_t got[NDIM_MAX];
    uint32_t cnt = 0, i;
    int rc = ints_of(sc, a, got, &cnt);

    if (rc == 0 && cnt > 0 && cnt <= k)
        dimcpy(out, got, cnt);
    if (rc == 1 || (rc == 0 && cnt == 0)) {
        for (i = 0; i < k; i++)
            out[i] = K(sc, def);
        return 0;
    }
    if (rc)
        return cgs_diag_set(d, rc == -CGS_E_UNKNOWN ? CGS_E_UNKNOWN : CGS_E_INVAL,
                            "argument '%s' is not a list of ints", name);
    if (cnt == 1)
        for (i = 1; i < k; i++)
            out[i] = out[0];
    else if (cnt != k)
        return cgs_diag_set(d, CGS_E_INVAL, "argument '%s' has %u entries, expected %u", name, cnt,
                            k);
    return 0;
}

/* Convolution memory format as FakeTensor's conv decides it (cuDNN's suggestion). torch.export
 * records a CUDA convolution contiguous whatever the input's layout (Dynamo, eager and a CPU
 * export follow the input): 8 cases recorded from torch 2.11 by tests/gpu/conv_probe.py, and
 * timm's coat_lite_tiny in tests/data/models.tar.xz. */
bool conv_cl(struct cgs_shape_ctx *sc, const struct cgs_tensor *in,
             const struct cgs_tensor *w)
{
    if (w->ndim != 4 && w->ndim != 5)
        return false;
    if (sc->g && sc->g->producer.stage == CGS_STAGE_EXPORT && in->device &&
        !strncmp(in->device, "cuda", 4))
        return false;
    if (in->dtype == CGS_DTYPE_FLOAT64 || w->dtype == CGS_DTYPE_FLOAT64)
        return false;
    return suggest_cl(sc, in) || suggest_cl(sc, w);
}

int conv_common(struct cgs_shape_ctx *sc, bool transposed, struct cgs_diag *d)
{
    const struct cgs_tensor *in, *w;
    sym_t stride[8], pad[8], dil[8], opad[8], shape[NDIM_MAX];
    uint32_t k, i, batch;
    int64_t groups = 1;
    const char *padstr = str_of(A(sc, "padding"));
    const struct cgs_arg *tr = A(sc, "transposed");

    TRY(need_tensor(sc, "input", &in, d));
    TRY(need_tensor(sc, "weight", &w, d));
    if (tr)
        transposed = bool_of(tr, false);
    if (w->ndim < 3 || w->ndim > 5)
        return cgs_diag_set(d, CGS_E_INVAL, "convolution weight of rank %u", w->ndim);
    k = w->ndim - 2;
    if (in->ndim != w->ndim && in->ndim != w->ndim - 1)
        return cgs_diag_set(d, CGS_E_INVAL, "convolution input of rank %u for weight of rank %u",
                            in->ndim, w->ndim);
    batch = in->ndim == w->ndim;
    TRY(spatial_param(sc, "stride", k, 1, stride, d));
    if (padstr) {
        for (i = 0; i < k; i++)
            pad[i] = K(sc, 0);
    } else {
        TRY(spatial_param(sc, "padding", k, 0, pad, d));
    }
    TRY(spatial_param(sc, "dilation", k, 1, dil, d));
    TRY(spatial_param(sc, "output_padding", k, 0, opad, d));
    int_const(sc, A(sc, "groups"), &groups);
    if (batch)
        shape[0] = in->shape[0];
    shape[batch] = transposed ? S_mul(sc, w->shape[1], K(sc, groups)) : w->shape[0];
    for (i = 0; i < k; i++) {
        sym_t x = in->shape[batch + 1 + i], kk = w->shape[2 + i];
        sym_t span = S_mul(sc, dil[i], S_sub(sc, kk, K(sc, 1)));
        if (padstr && !strcmp(padstr, "same")) {
            shape[batch + 1 + i] = x;
        } else if (transposed) {
            // (x - 1) * s - 2p + d(k - 1) + output_padding + 1
            sym_t r = S_mul(sc, S_sub(sc, x, K(sc, 1)), stride[i]);
            r = S_sub(sc, r, S_mul(sc, K(sc, 2), pad[i]));
            r = S_add(sc, S_add(sc, r, span), S_add(sc, opad[i], K(sc, 1)));
            shape[batch + 1 + i] = r;
        } else {
            // (x + 2p - d(k - 1) - 1) // s + 1
            sym_t r = S_add(sc, x, S_mul(sc, K(sc, 2), pad[i]));
            r = S_sub(sc, S_sub(sc, r, span), K(sc, 1));
            shape[batch + 1 + i] = S_add(sc, S_div(sc, r, stride[i]), K(sc, 1));
        }
        if (!shape[batch + 1 + i] || hv(sc, shape[batch + 1 + i]) < 0)
            return cgs_diag_set(d, CGS_E_INVAL, "convolution output size is negative");
    }
    out_dense(sc, in->ndim, shape, in->dtype, in->device, batch && conv_cl(sc, in, w));
    return 0;
}

RULE(conv)
{
    (void)n;
    return conv_common(sc, false, d);
}

RULE(conv_t)
{
    (void)n;
    return conv_common(sc, true, d);
}

RULE(conv_backward)
{
    const struct cgs_tensor *go, *in, *w;
    const struct cgs_arg *mask = A(sc, "output_mask");
    sym_t bias[NDIM_MAX];
    uint32_t nb = 0, i;
    bool cl;

    (void)n;
    TRY(need_tensor(sc, "grad_output", &go, d));
    TRY(need_tensor(sc, "input", &in, d));
    TRY(need_tensor(sc, "weight", &w, d));
    if (ints_of(sc, A(sc, "bias_sizes"), bias, &nb) < 0)
        nb = 0;
    cl = in->ndim == w->ndim && conv_cl(sc, in, w);
    sc->out = new_list(sc, 3);
    for (i = 0; i < 3; i++) {
        struct cgs_val *v = &sc->out->u.items[i];
        bool on =
            !mask || mask->kind != CGS_ARG_LIST || i >= mask->n || bool_of(&mask->u.items[i], true);
        if (!on) {
            v->kind = CGS_VAL_NONE;
            continue;
        }
        if (i == 0)
            fill_dense(sc, v, in->ndim, in->shape, go->dtype, go->device, cl);
        else if (i == 1)
            fill_dense(sc, v, w->ndim, w->shape, go->dtype, go->device, cl);
        else
            fill_dense(sc, v, nb, bias, go->dtype, go->device, false);
    }
    return 0;
}

RULE(batch_norm)
{
    const struct cgs_tensor *in;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    out_dense(sc, in->ndim, in->shape, in->dtype, in->device, suggest_cl(sc, in));
    return 0;
}

/* native_batch_norm and its kin: (output, save_mean, save_rstd[, ...]); `cnt` outputs
 * (5 for the _functional forms, 4 with the cudnn reserve buffer of _batch_norm_with_update
 * and cudnn_batch_norm, empty unless cuDNN asks for one). */
int batch_norm_outputs(struct cgs_shape_ctx *sc, uint32_t cnt, bool reserve,
                       struct cgs_diag *d)
{
    const struct cgs_tensor *in;
    uint32_t i;
    sym_t c[1], zero = K(sc, 0);

    TRY(need_tensor(sc, "input", &in, d));
    if (in->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "batch norm of a tensor of rank %u", in->ndim);
    c[0] = in->shape[1];
    sc->out = new_list(sc, cnt);
    fill_dense(sc, &sc->out->u.items[0], in->ndim, in->shape, in->dtype, in->device,
               suggest_cl(sc, in));
    // cudnn_batch_norm outside training saves no statistics (empty tensors)
    if (reserve && find_param(sc, "training") >= 0 && !bool_of(A(sc, "training"), true))
        c[0] = zero;
    for (i = 1; i < cnt; i++)
        fill_dense(sc, &sc->out->u.items[i], 1, c, CGS_DTYPE_FLOAT32, in->device, false);
    if (reserve)
        fill_dense(sc, &sc->out->u.items[cnt - 1], 1, &zero, CGS_DTYPE_UINT8, in->device, false);
    return 0;
}

RULE(native_batch_norm) { (void)n; return batch_norm_outputs(sc, 3, false, d); }
RULE(native_batch_norm_functional) { (void)n; return batch_norm_outputs(sc, 5, false, d); }
RULE(batch_norm_reserve) { (void)n; return batch_norm_outputs(sc, 4, true, d); }

RULE(layer_norm)
{
    const struct cgs_tensor *in;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    out_dense(sc, in->ndim, in->shape, in->dtype, in->device, false);
    {
        // the decomposition normalizes input.contiguous(), which is the input itself when
        // it is contiguous already (strides of size-1 dims kept as they are)
        int64_t sz[NDIM_MAX], st[NDIM_MAX];
        hints(sc, in, sz, st);
        if (in->stride && h_contiguous(in->ndim, sz, st))
            preserve_strides(sc, in, sc->out->u.t.stride);
    }
    return 0;
}

RULE(layer_norm_like_input) { return cgs_shape_rule_layer_norm(n, sc, d); }

RULE(native_layer_norm)
{
    const struct cgs_tensor *in;
    sym_t ns[NDIM_MAX], stat[NDIM_MAX];
    uint32_t k, i, axis;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    TRY(shape_param(sc, A(sc, "normalized_shape"), ns, &k, d));
    if (k > in->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "normalized_shape longer than the input's rank");
    axis = in->ndim - k;
    for (i = 0; i < in->ndim; i++)
        stat[i] = i < axis ? in->shape[i] : K(sc, 1);
    sc->out = new_list(sc, 3);
    fill_dense(sc, &sc->out->u.items[0], in->ndim, in->shape, in->dtype, in->device, false);
    for (i = 1; i < 3; i++)
        fill_dense(sc, &sc->out->u.items[i], in->ndim, stat,
                   is_float_like(in->dtype) && cgs_dtypes[in->dtype].itemsize < 4
                       ? CGS_DTYPE_FLOAT32
                       : in->dtype,
                   in->device, false);
    return 0;
}

RULE(layer_norm_backward)
{
    const struct cgs_tensor *in, *w = NULL, *b = NULL;
    const struct cgs_arg *mask = A(sc, "output_mask");
    uint32_t i;

    (void)n;
    TRY(need_tensor(sc, "input", &in, d));
    arg_tensor(sc, A(sc, "weight"), &w);
    arg_tensor(sc, A(sc, "bias"), &b);
    sc->out = new_list(sc, 3);
    for (i = 0; i < 3; i++) {
        const struct cgs_tensor *like = i == 0 ? in : i == 1 ? w : b;
        bool on =
            !mask || mask->kind != CGS_ARG_LIST || i >= mask->n || bool_of(&mask->u.items[i], true);
        if (!on || !like)
            sc->out->u.items[i].kind = CGS_VAL_NONE;
        else
            fill_dense(sc, &sc->out->u.items[i], like->ndim, like->shape, like->dtype, like->device,
                       false);
    }
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

int mm_of(struct cgs_shape_ctx *sc, const struct cgs_tensor *a, const struct cgs_tensor *b,
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

int bmm_of(struct cgs_shape_ctx *sc, const struct cgs_tensor *a, const struct cgs_tensor *b,
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

/* Reduced shape over dims (none = all). */
int reduce_shape(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                 const struct cgs_arg *da, bool keep, sym_t *shape, uint32_t *nd,
                 struct cgs_diag *d)
{
    sym_t dims[NDIM_MAX];
    bool red[NDIM_MAX] = {false};
    uint32_t cnt = 0, i;
    // torch.var(x, True): the bool is `unbiased` (another overload), not a dim
    int rc = da && da->kind == CGS_ARG_BOOL ? 1 : ints_of(sc, da, dims, &cnt);

    if (rc < 0)
        return cgs_diag_set(d, CGS_E_INVAL, "reduction dims are not ints");
    if (rc == 1 || cnt == 0) {
        for (i = 0; i < t->ndim; i++)
            red[i] = true;
    } else {
        for (i = 0; i < cnt; i++) {
            int64_t v;
            uint32_t w;
            if (!cgs_sym_is_int(dims[i], &v) || !wrap_dim(v, t->ndim, &w))
                return cgs_diag_set(d, CGS_E_INVAL, "reduction dim out of range");
            if (t->ndim)
                red[w] = true;
        }
    }
    *nd = 0;
    for (i = 0; i < t->ndim; i++) {
        if (!red[i])
            shape[(*nd)++] = t->shape[i];
        else if (keep)
            shape[(*nd)++] = K(sc, 1);
    }
    return 0;
}

int reduce_with(const struct cgs_node *n, struct cgs_shape_ctx *sc, int mode,
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

int embedding_of(struct cgs_shape_ctx *sc, const struct cgs_tensor *w,
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

/* The tensors of a list argument (known ones only); 0 or -CGS_E_*. */
int tensor_list(struct cgs_shape_ctx *sc, const struct cgs_arg *a, struct operand *o,
                uint32_t *cnt, uint32_t max, struct cgs_diag *d)
{
    uint32_t i;

    *cnt = 0;
    if (!a || a->kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_INVAL, "expected a list of tensors");
    if (a->n > max)
        return cgs_diag_set(d, CGS_E_LIMIT, "too many tensors (%u)", a->n);
    for (i = 0; i < a->n; i++) {
        int rc = operand_of(sc, &a->u.items[i], &o[*cnt]);
        if (rc == -CGS_E_UNKNOWN)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "input %u is not known", i);
        if (rc || !o[*cnt].t)
            return cgs_diag_set(d, CGS_E_INVAL, "item %u is not a tensor", i);
        (*cnt)++;
    }
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

#define MAX_CAT 4096

/* Room for the operands of a list argument (cat, stack): as many as it has, at least one. */
struct operand *list_operands(struct cgs_shape_ctx *sc, const struct cgs_arg *a)
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

/* adaptive_avg_pool{1,2,3}d(self, output_size): self's leading dims (batch optional: (C, L)
 * for 1d) and the output size over the last k dims; an int output size stands for k of them. */
static int adaptive_pool_k(struct cgs_shape_ctx *sc, uint32_t k, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    sym_t os[3], shape[NDIM_MAX];
    uint32_t cnt, i;
    const struct cgs_arg *a;

    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    a = Ai(sc, 1);
    if (a && a->kind == CGS_ARG_LIST) {
        cnt = a->n < 3 ? a->n : 3;
        for (i = 0; i < cnt; i++)
            if (int_of(sc, &a->u.items[i], &os[i]) == 1)
                os[i] = t->shape[t->ndim - cnt + i];
    } else if (int_of(sc, a, &os[0]) == 0) {
        for (i = 1; i < k; i++)
            os[i] = os[0];
        cnt = k;
    } else {
        return cgs_diag_set(d, CGS_E_INVAL, "adaptive pool: bad output size");
    }
    if (t->ndim < cnt + 1) /* (C, spatial...) unbatched, or (N, C, spatial...) */
        return cgs_diag_set(d, CGS_E_INVAL, "adaptive pool of rank %u over %u dims", t->ndim,
                            cnt);
    dimcpy(shape, t->shape, t->ndim);
    for (i = 0; i < cnt; i++)
        shape[t->ndim - cnt + i] = os[i];
    out_dense(sc, t->ndim, shape, t->dtype, t->device, suggest_cl(sc, t));
    return 0;
}

RULE(adaptive_pool) { (void)n; return adaptive_pool_k(sc, 2, d); }
RULE(adaptive_pool1d) { (void)n; return adaptive_pool_k(sc, 1, d); }
RULE(adaptive_pool3d) { (void)n; return adaptive_pool_k(sc, 3, d); }

/* Pooling output size (ATen's pooling_output_shape). */
sym_t pool_size(struct cgs_shape_ctx *sc, sym_t in, int64_t k, int64_t s, int64_t p,
                int64_t dil, bool ceil_mode)
{
    sym_t r = S_add(sc, in, K(sc, 2 * p - dil * (k - 1) - 1 + (ceil_mode ? s - 1 : 0)));
    sym_t out = S_add(sc, S_div(sc, r, K(sc, s)), K(sc, 1));

    if (ceil_mode && out &&
        hv(sc, S_mul(sc, S_sub(sc, out, K(sc, 1)), K(sc, s))) >= hv(sc, S_add(sc, in, K(sc, p))))
        out = S_sub(sc, out, K(sc, 1));
    return out;
}

/* Pooled shape of t; kernel/stride/padding/dilation from the schema. */
int pool_shape(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, bool has_dil,
               uint32_t nsp, sym_t *shape, struct cgs_diag *d)
{
    sym_t k[3], s[NDIM_MAX], p[3], dl[3];
    int64_t kv[3], sv[3], pv[3], dv[3];
    uint32_t i, ns = 0;
    bool ceil_mode = bool_of(A(sc, "ceil_mode"), false);

    if (t->ndim < nsp + 1)
        return cgs_diag_set(d, CGS_E_INVAL, "pool of rank %u", t->ndim);
    TRY(spatial_param(sc, "kernel_size", nsp, 1, k, d));
    if (ints_of(sc, A(sc, "stride"), s, &ns) < 0)
        return cgs_diag_set(d, CGS_E_INVAL, "pool: bad stride");
    if (ns == 0)
        dimcpy(s, k, nsp); // the stride defaults to the kernel size
    else if (ns == 1)
        for (i = 1; i < nsp; i++)
            s[i] = s[0];
    else if (ns != nsp)
        return cgs_diag_set(d, CGS_E_INVAL, "pool: stride has %u entries", ns);
    TRY(spatial_param(sc, "padding", nsp, 0, p, d));
    if (has_dil)
        TRY(spatial_param(sc, "dilation", nsp, 1, dl, d));
    else
        for (i = 0; i < nsp; i++)
            dl[i] = K(sc, 1);
    for (i = 0; i < nsp; i++)
        if (!cgs_sym_is_int(k[i], &kv[i]) || !cgs_sym_is_int(s[i], &sv[i]) ||
            !cgs_sym_is_int(p[i], &pv[i]) || !cgs_sym_is_int(dl[i], &dv[i]) || sv[i] <= 0)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "pool parameters are not constants");
    dimcpy(shape, t->shape, t->ndim);
    for (i = 0; i < nsp; i++)
        shape[t->ndim - nsp + i] =
            pool_size(sc, t->shape[t->ndim - nsp + i], kv[i], sv[i], pv[i], dv[i], ceil_mode);
    return 0;
}

RULE(avg_pool)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(pool_shape(sc, t, false, 2, shape, d));
    out_dense(sc, t->ndim, shape, t->dtype, t->device, suggest_cl(sc, t));
    return 0;
}

/* avg_pool3d: three spatial dims, contiguous (channels-last-3d inputs aside). */
RULE(avg_pool3d)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(pool_shape(sc, t, false, 3, shape, d));
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

RULE(max_pool)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];

    (void)n;
    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(pool_shape(sc, t, true, 2, shape, d));
    out_dense(sc, t->ndim, shape, t->dtype, t->device, suggest_cl(sc, t));
    return 0;
}

int pool_pair(struct cgs_shape_ctx *sc, enum cgs_dtype second, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    bool cl;

    TRY(arg_tensor(sc, Ai(sc, 0), &t) == 0 ? 0 : need_tensor(sc, "self", &t, d));
    TRY(pool_shape(sc, t, true, 2, shape, d));
    cl = suggest_cl(sc, t);
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], t->ndim, shape, t->dtype, t->device, cl);
    fill_dense(sc, &sc->out->u.items[1], t->ndim, shape, second, t->device, cl);
    return 0;
}

RULE(max_pool_indices)
{
    (void)n;
    return pool_pair(sc, CGS_DTYPE_INT64, d);
}

RULE(max_pool_offsets)
{
    (void)n;
    return pool_pair(sc, CGS_DTYPE_INT8, d);
}

RULE(max_pool_f)
{
    (void)n;
    if (bool_of(A(sc, "return_indices"), false))
        return pool_pair(sc, CGS_DTYPE_INT64, d);
    return cgs_shape_rule_max_pool(n, sc, d);
}

RULE(offsets_to_indices)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "offsets", &t, d));
    return copy_like(sc, t, CGS_DTYPE_INT64, NULL, NULL);
}

RULE(pool_backward)
{
    const struct cgs_tensor *g, *t;

    (void)n;
    TRY(need_tensor(sc, "grad_output", &g, d));
    TRY(need_tensor(sc, "self", &t, d));
    out_dense(sc, t->ndim, t->shape, g->dtype, t->device, suggest_cl(sc, t));
    return 0;
}

/* Attention output [B, H, L, Ev] laid out as [B, L, H, Ev] (transposed back). */
struct cgs_tensor *fill_bshd(struct cgs_shape_ctx *sc, struct cgs_val *v,
                             const struct cgs_tensor *q, const struct cgs_tensor *val)
{
    struct cgs_tensor *o = fill_tensor(sc, v, q->ndim, q->dtype, q->device);
    static const uint32_t perm4[] = {0, 2, 1, 3};

    dimcpy(o->shape, q->shape, q->ndim);
    o->shape[q->ndim - 1] = val->shape[val->ndim - 1];
    if (q->ndim == 4)
        permuted_strides(sc, 4, o->shape, perm4, o->stride);
    else
        contiguous_strides(sc, q->ndim, o->shape, o->stride);
    return o;
}

RULE(sdpa)
{
    const struct cgs_tensor *q, *k, *v;

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim < 2 || v->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "attention inputs of rank < 2");
    sc->out = new_val(sc, CGS_VAL_TENSOR);
    {
        // a mask whose last stride is not 1 (an expanded padding mask) rules out the fused
        // kernels: torch takes the math path, a matmul with a contiguous result
        const struct cgs_val *mv = node_val(sc, A(sc, "attn_mask"));
        if (mv && mv->kind == CGS_VAL_TENSOR && mv->u.t.ndim > 0 && mv->u.t.stride &&
            mv->u.t.stride[mv->u.t.ndim - 1] && hv(sc, mv->u.t.stride[mv->u.t.ndim - 1]) != 1 &&
            hv(sc, mv->u.t.shape[mv->u.t.ndim - 1]) != 1) {
            sym_t shape[NDIM_MAX];
            dimcpy(shape, q->shape, q->ndim);
            shape[q->ndim - 1] = v->shape[v->ndim - 1];
            fill_dense(sc, sc->out, q->ndim, shape, q->dtype, q->device, false);
            return 0;
        }
    }
    fill_bshd(sc, sc->out, q, v);
    // on CUDA, half types without a mask go to flash attention, which keeps the query's layout
    if (q->ndim == 4 && (q->dtype == CGS_DTYPE_FLOAT16 || q->dtype == CGS_DTYPE_BFLOAT16) &&
        is_none(A(sc, "attn_mask")) && hv(sc, q->shape[3]) == hv(sc, v->shape[3]) &&
        hv(sc, q->shape[3]) <= 256 && q->device && strncmp(q->device, "cuda", 4) == 0)
        preserve_strides(sc, q, sc->out->u.t.stride);
    return 0;
}

RULE(sdpa_efficient)
{
    const struct cgs_tensor *q, *k, *v;
    sym_t lse[3];
    int64_t L;

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim != 4 || k->ndim != 4 || v->ndim != 4)
        return cgs_diag_set(d, CGS_E_INVAL, "efficient attention needs rank-4 inputs");
    sc->out = new_list(sc, 4);
    fill_bshd(sc, &sc->out->u.items[0], q, v);
    lse[0] = q->shape[0], lse[1] = q->shape[1];
    if (!bool_of(A(sc, "compute_log_sumexp"), false))
        lse[2] = K(sc, 0);
    else if (cgs_sym_is_int(q->shape[2], &L))
        lse[2] = K(sc, (L + 31) / 32 * 32);
    else
        lse[2] = S_mul(sc, S_div(sc, S_add(sc, q->shape[2], K(sc, 31)), K(sc, 32)), K(sc, 32));
    fill_dense(sc, &sc->out->u.items[1], 3, lse, CGS_DTYPE_FLOAT32, q->device, false);
    fill_dense(sc, &sc->out->u.items[2], 0, lse, CGS_DTYPE_INT64, q->device, false);
    fill_dense(sc, &sc->out->u.items[3], 0, lse, CGS_DTYPE_INT64, q->device, false);
    return 0;
}

RULE(sdpa_flash)
{
    const struct cgs_tensor *q, *k, *v;
    sym_t dims[3];

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim != 4 || k->ndim != 4 || v->ndim != 4)
        return cgs_diag_set(d, CGS_E_INVAL, "flash attention needs rank-4 inputs");
    sc->out = new_list(sc, 9);
    // the output keeps the query's layout (empty_like of the transposed query)
    {
        struct cgs_tensor *o = fill_tensor(sc, &sc->out->u.items[0], 4, q->dtype, q->device);
        dimcpy(o->shape, q->shape, 4);
        preserve_strides(sc, q, o->stride);
    }
    dims[0] = q->shape[0], dims[1] = q->shape[1], dims[2] = q->shape[2];
    fill_dense(sc, &sc->out->u.items[1], 3, dims, CGS_DTYPE_FLOAT32, q->device, false);
    sc->out->u.items[2].kind = CGS_VAL_NONE;
    sc->out->u.items[3].kind = CGS_VAL_NONE;
    set_symint(sc, &sc->out->u.items[4], q->shape[2]);
    set_symint(sc, &sc->out->u.items[5], k->shape[2]);
    // philox seed and offset
    dims[0] = K(sc, 2);
    fill_dense(sc, &sc->out->u.items[6], 1, dims, CGS_DTYPE_UINT64, q->device, false);
    fill_dense(sc, &sc->out->u.items[7], 0, dims, CGS_DTYPE_UINT64, q->device, false);
    // the debug mask, empty unless asked for
    if (bool_of(A(sc, "return_debug_mask"), false))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "flash attention debug mask is not tracked");
    dims[0] = K(sc, 0);
    fill_dense(sc, &sc->out->u.items[8], 1, dims, q->dtype, q->device, false);
    return 0;
}

RULE(mha)
{
    const struct cgs_tensor *q, *k;
    sym_t w[3];

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    if (q->ndim != 3 || k->ndim != 3)
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "multi-head attention of unbatched inputs is not tracked");
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], 3, q->shape, q->dtype, q->device, false);
    if (!bool_of(A(sc, "need_weights"), true)) {
        sc->out->u.items[1].kind = CGS_VAL_NONE;
        return 0;
    }
    w[0] = q->shape[1], w[1] = q->shape[0], w[2] = k->shape[0];
    fill_dense(sc, &sc->out->u.items[1], 3, w, q->dtype, q->device, false);
    return 0;
}
