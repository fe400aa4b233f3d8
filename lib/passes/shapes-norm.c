/*
 * Shape rules (lib/passes/shapes.h), normalisations: batch, layer, group, instance and RMS norms,
 * and their backward kernels. Helpers come from the core (shapes-int.h); docs/shape-rules.md lists
 * every rule's file.
 */
#include "lib/passes/shapes-int.h"

/* rms_norm(input, normalized_shape, weight=None, eps=None): normalised in the input's dtype,
 * then multiplied by the weight, so a weight of another dtype promotes the result; that case
 * is left unknown (torch's CUDA kernel and its composite are not known to agree on it). */
RULE(rms_norm)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "input", &t, d));
    TRY(rms_weight_ok(sc, t, d));
    return unary_with(sc, 0, d);
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

/* instance_norm: the input's shape and dtype, contiguous. */
RULE(instance_norm)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "input", &t, d));
    out_dense(sc, t->ndim, t->shape, t->dtype, t->device, false);
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
static int batch_norm_outputs(struct cgs_shape_ctx *sc, uint32_t cnt, bool reserve,
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
