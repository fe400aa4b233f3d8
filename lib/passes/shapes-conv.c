/*
 * Shape rules (lib/passes/shapes.h), convolution and pooling: conv, transposed conv and their
 * backward, every pooling op, unpooling, im2col, upsampling, grid sampling, pixel shuffles.
 * Helpers come from the core (shapes-int.h); docs/shape-rules.md lists every rule's file.
 */
#include "lib/passes/shapes-int.h"

/* Spatial output sizes from output_size, else input * scale (floored). */
static int upsample_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
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

static int spatial_param(struct cgs_shape_ctx *sc, const char *name, uint32_t k, int64_t def,
                  sym_t *out, struct cgs_diag *d);

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

static int pool_shape(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, bool has_dil,
               uint32_t nsp, sym_t *shape, struct cgs_diag *d);

/* max_pool1d / max_pool3d (and torch.nn.functional's, without indices): one or three spatial
 * dims, contiguous. */
static int max_pool_nd(struct cgs_shape_ctx *sc, uint32_t nsp, struct cgs_diag *d)
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

/* torch.nn.functional.adaptive_max_pool2d(input, output_size, return_indices): the values
 * alone unless the indices are asked for. */
RULE(adaptive_max_pool2d_f)
{
    TRY(cgs_shape_rule_adaptive_max_pool2d(n, sc, d));
    if (!bool_of(A(sc, "return_indices"), false))
        sc->out = &sc->out->u.items[0];
    return 0;
}

static int pool_pair(struct cgs_shape_ctx *sc, enum cgs_dtype second, struct cgs_diag *d);

/* adaptive_max_pool3d through torch.nn.functional: values unless the indices are asked for. */
RULE(adaptive_max_pool3d_f)
{
    TRY(cgs_shape_rule_adaptive_max_pool3d(n, sc, d));
    if (!bool_of(A(sc, "return_indices"), false))
        sc->out = &sc->out->u.items[0];
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

/* max_unpool{2,3}d(self, indices, output_size, ...): self's leading dims + output_size;
 * torch.nn.functional.max_unpool{1,2,3}d (nsp spatial dims) may leave output_size out. */
static int max_unpool_with(struct cgs_shape_ctx *sc, uint32_t nsp, struct cgs_diag *d)
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

/* pixel_shuffle(self, r) / pixel_unshuffle(self, r): contiguous. */
static int pixel_shuffle_with(struct cgs_shape_ctx *sc, bool up, struct cgs_diag *d)
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

/* stride/padding/dilation style parameter expanded to k entries. */
static int spatial_param(struct cgs_shape_ctx *sc, const char *name, uint32_t k, int64_t def,
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
static bool conv_cl(struct cgs_shape_ctx *sc, const struct cgs_tensor *in,
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

static int conv_common(struct cgs_shape_ctx *sc, bool transposed, struct cgs_diag *d)
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
static sym_t pool_size(struct cgs_shape_ctx *sc, sym_t in, int64_t k, int64_t s, int64_t p,
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
static int pool_shape(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, bool has_dil,
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

static int pool_pair(struct cgs_shape_ctx *sc, enum cgs_dtype second, struct cgs_diag *d)
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
