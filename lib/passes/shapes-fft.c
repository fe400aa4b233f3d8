/*
 * Shape rules (lib/passes/shapes.h), FFT (torch's meta kernels: _exec_fft's layout) and window
 * functions. Helpers come from the core (shapes-int.h); docs/shape-rules.md lists every rule's
 * file.
 */
#include "lib/passes/shapes-int.h"

/* torch.signal.windows.*(M, ...): a 1-D [M] window, float32 unless dtype says. */
RULE(window)
{
    sym_t m;
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));

    (void)n;
    if (int_of(sc, A(sc, "M"), &m))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "window: M not known");
    out_dense(sc, 1, &m, dt == CGS_DTYPE_UNKNOWN ? CGS_DTYPE_FLOAT32 : dt, device_arg(sc), false);
    return 0;
}

/*
 * The layout _exec_fft gives: batch dims (those not transformed) first, ordered by the
 * input's strides (largest first, stable), then the transformed dims in index order; the
 * output allocated contiguous as [batch, out_sizes[dim[0]], ...] and strided back.
 */
static void exec_fft_strides(struct cgs_shape_ctx *sc, uint32_t nd, const int64_t *in_st,
                      const sym_t *out_sz, const uint32_t *dims, uint32_t nt,
                      sym_t *out_st)
{
    uint32_t perm[NDIM_MAX], nb = 0, i, j;
    bool tr[NDIM_MAX] = {false};
    sym_t bstride[NDIM_MAX + 1], numel;

    for (i = 0; i < nt; i++)
        tr[dims[i]] = true;
    for (i = 0; i < nd; i++)
        if (!tr[i])
            perm[nb++] = i;
    // stable sort of the batch dims by input stride, descending
    for (i = 1; i < nb; i++) {
        uint32_t v = perm[i];
        for (j = i; j > 0 && in_st[perm[j - 1]] < in_st[v]; j--)
            perm[j] = perm[j - 1];
        perm[j] = v;
    }
    for (i = 0, j = nb; i < nd; i++)
        if (tr[i])
            perm[j++] = i;
    // strides of the contiguous [batch, out_sz[dims[0]], ..., out_sz[dims[nt-1]]]
    bstride[nt] = K(sc, 1);
    for (i = nt; i-- > 0;)
        bstride[i] = S_mul(sc, bstride[i + 1], out_sz[dims[i]]);
    numel = K(sc, 1);
    for (i = nb; i-- > 0;) {
        out_st[perm[i]] = S_mul(sc, numel, bstride[0]);
        numel = S_mul(sc, numel, out_sz[perm[i]]);
    }
    for (i = nb; i < nd; i++)
        out_st[perm[i]] = bstride[1 + (i - nb)];
}

int fft_dims(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t *dims,
             uint32_t *nt, struct cgs_diag *d)
{
    sym_t dv[NDIM_MAX];
    uint32_t i;

    if (ints_of(sc, A(sc, "dim"), dv, nt) || *nt > t->ndim)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "fft: dims not known");
    for (i = 0; i < *nt; i++) {
        int64_t v;
        if (!cgs_sym_is_int(dv[i], &v) || !wrap_dim(v, t->ndim, &dims[i]))
            return cgs_diag_set(d, CGS_E_INVAL, "fft: bad dim");
    }
    return 0;
}

/* cuFFT takes up to 3 transformed dims at once, and not dims (0, 1, ...) (meta kernels). */
static bool fft_optimized(const uint32_t *dims, uint32_t nt)
{
    return nt <= 3 && !(nt >= 2 && dims[0] == 0 && dims[1] == 1);
}

/*
 * One transform: kind 0 c2c, 1 r2c (onesided or not), 2 c2r (last: the last dim's size),
 * over dims[0..nt) of t, laid out as _exec_fft does (cuFFT; CPU and multi-pass plans are not
 * tracked).
 */
static int fft_run(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, const uint32_t *dims,
            uint32_t nt, int kind, bool onesided, sym_t last, struct cgs_diag *d)
{
    struct cgs_tensor *o;
    int64_t sz[NDIM_MAX], st[NDIM_MAX];
    sym_t out_sz[NDIM_MAX];
    enum cgs_dtype dt;
    bool cuda = t->device && !strncmp(t->device, "cuda", 4);
    uint32_t i;

    dt = kind == 1 ? complex_of(t->dtype) : kind == 2 ? real_of(t->dtype) : t->dtype;
    if (nt == 0)
        return copy_like(sc, t, dt, NULL, NULL);
    // torch refuses a 0-dim signal and repeated dims ("FFT dims must be unique")
    if (t->ndim == 0 || nt > t->ndim)
        return cgs_diag_set(d, CGS_E_INVAL, "fft of a %u-dim tensor over %u dims", t->ndim, nt);
    for (i = 0; i < nt; i++) {
        bool dup = false;
        for (uint32_t j = i + 1; j < nt; j++)
            dup = dup || dims[i] == dims[j];
        if (dims[i] >= t->ndim || dup)
            return cgs_diag_set(d, CGS_E_INVAL, "fft dims must be unique and in range");
    }
    dimcpy(out_sz, t->shape, t->ndim);
    hints(sc, t, sz, st);
    if (kind == 1 && onesided)
        out_sz[dims[nt - 1]] = S_add(sc, S_div(sc, t->shape[dims[nt - 1]], K(sc, 2)), K(sc, 1));
    if (kind == 2) {
        out_sz[dims[nt - 1]] = last;
        // the inverse transform runs on a contiguous copy of the input
        st[t->ndim - 1] = 1;
        for (i = t->ndim - 1; i > 0; i--)
            st[i - 1] = st[i] * (sz[i] ? sz[i] : 1);
    }
    if (kind != 0 && (!cuda || (nt > 1 && !fft_optimized(dims, nt))))
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "fft: this transform's layout (CPU, or cuFFT in several passes) is "
                            "not tracked");
    o = out_tensor(sc, t->ndim, dt, t->device);
    dimcpy(o->shape, out_sz, t->ndim);
    exec_fft_strides(sc, t->ndim, st, out_sz, dims, nt, o->stride);
    return 0;
}

static int fft_common(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    uint32_t dims[NDIM_MAX], nt;
    sym_t last = NULL;

    TRY(need_tensor(sc, "self", &t, d));
    TRY(fft_dims(sc, t, dims, &nt, d));
    if (kind == 2 && int_of(sc, A(sc, "last_dim_size"), &last))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "fft: last_dim_size not known");
    return fft_run(sc, t, dims, nt, kind, bool_of(A(sc, "onesided"), true), last, d);
}

/* torch.fft.* (fft_fft, fft_rfft2, fft_irfftn, ...): dims from `dim` (an int, a list, or all),
 * without resizing (n / s given are not tracked); real input to a complex transform is a
 * two-sided r2c, as torch does it. */
static int fft_user_ex(struct cgs_shape_ctx *sc, int kind, bool hermitian, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    const struct cgs_arg *da = A(sc, "dim"), *na = A(sc, "n"), *sa = A(sc, "s");
    uint32_t dims[NDIM_MAX], nt = 0, i;
    sym_t want[NDIM_MAX], last = NULL;
    bool resize = false;
    int cat;

    TRY(need_tensor(sc, "self", &t, d));
    if (!is_none(sa) && is_none(da)) {
        // s without dim: the last len(s) dims
        uint32_t ns;
        if (ints_of(sc, sa, want, &ns) || ns > t->ndim)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "fft: s not known");
        for (i = 0; i < ns; i++)
            dims[nt++] = t->ndim - ns + i;
        resize = true;
    } else if (is_none(da)) {
        for (i = 0; i < t->ndim; i++)
            dims[nt++] = i;
    } else if (da->kind == CGS_ARG_LIST) {
        TRY(fft_dims(sc, t, dims, &nt, d));
    } else {
        int64_t v;
        if (!int_const(sc, da, &v) || !wrap_dim(v, t->ndim, &dims[0]))
            return cgs_diag_set(d, CGS_E_INVAL, "fft: bad dim");
        nt = 1;
    }
    if (!is_none(na) || (!is_none(sa) && !resize)) {
        uint32_t ns = 1;
        if (!is_none(na) ? int_of(sc, na, &want[0]) != 0
                         : ints_of(sc, sa, want, &ns) != 0 || ns != nt)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "fft: n or s not known");
        if (!is_none(na) && nt != 1)
            return cgs_diag_set(d, CGS_E_INVAL, "fft: n with several dims");
        resize = true;
    }
    cat = dt_cat(t->dtype);
    if (cat < 2)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "fft of an integer tensor (a promoted copy) is not "
                                              "tracked");
    if (kind == 2 && cat != 3) {
        // a real input is promoted to complex first (a copy in the input's layout); the
        // inverse transform copies it contiguous anyway, so only the dtype matters
        struct cgs_val *pv = new_val(sc, CGS_VAL_TENSOR);
        struct cgs_tensor *p = copy_tensor(sc, pv, t, t->ndim);
        dimcpy(p->shape, t->shape, t->ndim);
        dimcpy(p->stride, t->stride, t->ndim);
        p->dtype = complex_of(t->dtype);
        t = p;
        cat = 3;
    }
    if (kind == 2 && nt == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "irfft over no dims");
    if (resize) {
        // torch's resize of the signal: narrow the dims that are too long (a view), then pad
        // the ones too short (constant_pad_nd: a contiguous copy); for c2r the last dim's
        // input length is n // 2 + 1
        struct cgs_val *rv = new_val(sc, CGS_VAL_TENSOR);
        struct cgs_tensor *r = copy_tensor(sc, rv, t, t->ndim);
        bool pad = false;
        dimcpy(r->shape, t->shape, t->ndim);
        dimcpy(r->stride, t->stride, t->ndim);
        for (i = 0; i < nt; i++) {
            sym_t w = want[i];
            int64_t wv;
            if (cgs_sym_is_int(w, &wv) && wv == -1)
                continue;
            if (kind == 2 && i == nt - 1) {
                last = w;
                w = S_add(sc, S_div(sc, w, K(sc, 2)), K(sc, 1));
            }
            if (hv(sc, t->shape[dims[i]]) < hv(sc, w))
                pad = true;
            r->shape[dims[i]] = w;
        }
        if (pad)
            contiguous_strides(sc, r->ndim, r->shape, r->stride), r->storage_offset = K(sc, 0);
        t = r;
    }
    if (hermitian && nt > 1) {
        // hfftn: c2c (forward) over all dims but the last, conj (a view), c2r over the last;
        // ihfftn: r2c over the last, conj_physical (its layout), c2c (inverse) over the rest
        const struct cgs_tensor *mid;
        if (kind == 2) {
            if (!last)
                last = S_mul(sc, S_sub(sc, t->shape[dims[nt - 1]], K(sc, 1)), K(sc, 2));
            TRY(fft_run(sc, t, dims, nt - 1, 0, false, NULL, d));
            mid = &sc->out->u.t;
            return fft_run(sc, mid, &dims[nt - 1], 1, 2, false, last, d);
        }
        if (cat == 3)
            return cgs_diag_set(d, CGS_E_INVAL, "ihfft of a complex tensor");
        TRY(fft_run(sc, t, &dims[nt - 1], 1, 1, true, NULL, d));
        mid = &sc->out->u.t;
        return fft_run(sc, mid, dims, nt - 1, 0, false, NULL, d);
    }
    if (kind == 0)
        return fft_run(sc, t, dims, nt, cat == 3 ? 0 : 1, false, NULL, d);
    if (kind == 1) {
        if (cat == 3)
            return cgs_diag_set(d, CGS_E_INVAL, "rfft of a complex tensor");
        return fft_run(sc, t, dims, nt, 1, true, NULL, d);
    }
    if (!last)
        last = S_mul(sc, S_sub(sc, t->shape[dims[nt - 1]], K(sc, 1)), K(sc, 2));
    return fft_run(sc, t, dims, nt, 2, false, last, d);
}

static int fft_user(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
{
    return fft_user_ex(sc, kind, false, d);
}

/* torch.fft's Hermitian transforms (hfft*, ihfft*): over several dims, a c2c pass besides. */
static int fft_user_hermitian(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
{
    return fft_user_ex(sc, kind, true, d);
}

RULE(fft_user_hfft) { (void)n; return fft_user_hermitian(sc, 2, d); }

RULE(fft_user_ihfft) { (void)n; return fft_user_hermitian(sc, 1, d); }

RULE(fft_user_c2c) { (void)n; return fft_user(sc, 0, d); }

RULE(fft_user_r2c) { (void)n; return fft_user(sc, 1, d); }

RULE(fft_user_c2r) { (void)n; return fft_user(sc, 2, d); }

RULE(fft_c2c)
{
    (void)n;
    return fft_common(sc, 0, d);
}

RULE(fft_r2c)
{
    (void)n;
    return fft_common(sc, 1, d);
}

RULE(fft_c2r)
{
    (void)n;
    return fft_common(sc, 2, d);
}
