/* Shape rules and helpers (lib/passes/shapes.h): FFT, dtype conversions and copies, views. */
#include "lib/passes/shapes-int.h"

/* ---- FFT (torch's meta kernels: _exec_fft's layout) ---------------------------------- */

/*
 * The layout _exec_fft gives: batch dims (those not transformed) first, ordered by the
 * input's strides (largest first, stable), then the transformed dims in index order; the
 * output allocated contiguous as [batch, out_sizes[dim[0]], ...] and strided back.
 */
void exec_fft_strides(struct cgs_shape_ctx *sc, uint32_t nd, const int64_t *in_st,
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

enum cgs_dtype complex_of(enum cgs_dtype t)
{
    return t == CGS_DTYPE_FLOAT64   ? CGS_DTYPE_COMPLEX128
           : t == CGS_DTYPE_FLOAT16 ? CGS_DTYPE_COMPLEX32
                                    : CGS_DTYPE_COMPLEX64;
}

/* cuFFT takes up to 3 transformed dims at once, and not dims (0, 1, ...) (meta kernels). */
bool fft_optimized(const uint32_t *dims, uint32_t nt)
{
    return nt <= 3 && !(nt >= 2 && dims[0] == 0 && dims[1] == 1);
}

/*
 * One transform: kind 0 c2c, 1 r2c (onesided or not), 2 c2r (last: the last dim's size),
 * over dims[0..nt) of t, laid out as _exec_fft does (cuFFT; CPU and multi-pass plans are not
 * tracked).
 */
int fft_run(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, const uint32_t *dims,
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

int fft_common(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
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

int fft_user(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
{
    return fft_user_ex(sc, kind, false, d);
}

/* torch.fft's Hermitian transforms (hfft*, ihfft*): over several dims, a c2c pass besides. */
int fft_user_hermitian(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d)
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


/* resize_(self, size): self becomes contiguous of the new size (storage grown as needed). */
RULE(resize)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX];
    uint32_t nd;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(shape_param(sc, A(sc, "size"), shape, &nd, d));
    out_dense(sc, nd, shape, t->dtype, t->device, false);
    return 0;
}

/* An out= overload: the value is the tensor(s) it writes, as passed. */
RULE(out)
{
    const struct cgs_val *one = NULL;
    struct cgs_val *list;
    uint32_t i, k = 0, cnt = 0;

    (void)n;
    for (i = 0; i < sc->n_params; i++) {
        if (!sc->p[i].written)
            continue;
        cnt++;
        one = node_val(sc, Ai(sc, i));
        if (!one)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "out= tensor '%.*s' is not known",
                                (int)pname_len(sc, i), sc->p[i].name);
    }
    if (cnt == 0)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "no out= tensor");
    if (cnt == 1) {
        sc->out = (struct cgs_val *)one;
        return 0;
    }
    list = new_list(sc, cnt);
    for (i = 0; i < sc->n_params; i++)
        if (sc->p[i].written)
            list->u.items[k++] = *node_val(sc, Ai(sc, i));
    sc->out = list;
    return 0;
}

/* Known to torch, no rule yet: infer_node reports it as unknown_op before calling this. */
RULE(none)
{
    (void)n, (void)sc;
    return cgs_diag_set(d, CGS_E_UNKNOWN, "no shape rule");
}

RULE(binary_float) { return binary_with(n, sc, 1, 2, d); }

RULE(compare) { return binary_with(n, sc, 2, 2, d); }

RULE(binary_div_mode)
{
    const char *mode = str_of(A(sc, "rounding_mode"));

    return binary_with(n, sc, mode ? 0 : 1, 2, d);
}

RULE(binary_iop)
{
    struct operand o;

    if (operand_of(sc, Ai(sc, 0), &o) == 0 && o.t)
        return same_as_first(sc, d);
    return binary_with(n, sc, 0, 2, d);
}

RULE(where)
{
    struct operand o[3];
    uint32_t cnt;

    (void)n;
    TRY(operands(sc, 3, o, &cnt, d));
    if (cnt != 3)
        return cgs_diag_set(d, CGS_E_INVAL, "where needs three arguments");
    return elementwise(sc, o, 3, result_type(o + 1, 2), false, d);
}

RULE(where3)
{
    struct operand o[3];
    uint32_t cnt;

    (void)n;
    TRY(operands(sc, 3, o, &cnt, d));
    return elementwise(sc, o, cnt, result_type(o, cnt), false, d);
}

RULE(where_like_clamp) { return cgs_shape_rule_where3(n, sc, d); }

RULE(masked_fill)
{
    struct operand o[2];
    uint32_t cnt;
    enum cgs_dtype dt;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t)
        return cgs_diag_set(d, CGS_E_INVAL, "masked_fill needs a tensor and a mask");
    dt = o[0].t->dtype;
    // ATen: the expanded self, cloned contiguous, then filled in place
    {
        sym_t shape[NDIM_MAX];
        uint32_t nd;
        TRY(broadcast(sc, o, 2, shape, &nd, d));
        out_dense(sc, nd, shape, dt, o[0].t->device, false);
        return 0;
    }
}

RULE(softmax)
{
    enum cgs_dtype dt = dtype_of(A(sc, "dtype"));
    int rc;

    (void)n;
    rc = unary_with(sc, 0, d);
    if (rc)
        return rc;
    // the softmax kernels allocate their output contiguous whatever the input's layout
    contiguous_strides(sc, sc->out->u.t.ndim, sc->out->u.t.shape, sc->out->u.t.stride);
    if (dt != CGS_DTYPE_UNKNOWN)
        sc->out->u.t.dtype = dt;
    return 0;
}

/* ---- dtype conversions and copies ------------------------------------------------------ */

/* A dense copy of t with dtype dt laid out per memory format name (NULL = preserve). */
int copy_like(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, enum cgs_dtype dt,
              const char *memfmt, const char *device)
{
    struct cgs_tensor *o = out_tensor(sc, t->ndim, dt != CGS_DTYPE_UNKNOWN ? dt : t->dtype,
                                      device ? device : t->device);
    uint32_t i;

    for (i = 0; i < t->ndim; i++)
        o->shape[i] = t->shape[i];
    if (memfmt && !strcmp(memfmt, "contiguous_format"))
        contiguous_strides(sc, t->ndim, o->shape, o->stride);
    else if (memfmt && (!strcmp(memfmt, "channels_last") || !strcmp(memfmt, "channels_last_3d")))
        channels_last_strides(sc, t->ndim, o->shape, o->stride);
    else
        preserve_strides(sc, t, o->stride);
    return 0;
}

RULE(convert)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "a", &t, d));
    return copy_like(sc, t, dtype_of(A(sc, "dtype")), NULL, NULL);
}

RULE(to_copy)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    return copy_like(sc, t, dtype_of(A(sc, "dtype")), str_of(A(sc, "memory_format")),
                     str_of(A(sc, "device")));
}

bool same_device(const char *a, const char *b)
{
    if (!a || !b)
        return true;
    if (!strcmp(a, b))
        return true;
    // "cuda" names the current device, cuda:0 here
    return (!strcmp(a, "cuda") && !strcmp(b, "cuda:0")) ||
           (!strcmp(b, "cuda") && !strcmp(a, "cuda:0"));
}

RULE(to)
{
    const struct cgs_tensor *t;
    enum cgs_dtype dt = CGS_DTYPE_UNKNOWN;
    const char *dev = NULL, *memfmt = NULL;
    bool copy = bool_of(A(sc, "copy"), false);
    uint32_t i;

    TRY(need_tensor(sc, "self", &t, d));
    // positional forms: to(dtype), to(device[, dtype]), to(other)
    for (i = 1; i < n->n_args; i++) {
        const struct cgs_arg *a = &n->args[i];
        if (a->kind == CGS_ARG_DTYPE)
            dt = a->u.dtype;
        else if (a->kind == CGS_ARG_DEVICE || a->kind == CGS_ARG_STR)
            dev = a->u.s;
        else if (a->kind == CGS_ARG_MEMFMT) /* to(device, dtype, non_blocking, copy, fmt) */
            memfmt = a->u.s;
        else if (a->kind == CGS_ARG_NODE) {
            const struct cgs_val *v = node_val(sc, a);
            if (v && v->kind == CGS_VAL_TENSOR)
                dt = v->u.t.dtype, dev = v->u.t.device;
        } else if (a->kind == CGS_ARG_BOOL && i >= 2) {
            copy = copy || (i == 3 && a->u.b);
        }
    }
    for (i = 0; i < n->n_kwargs; i++) {
        const struct cgs_kwarg *k = &n->kwargs[i];
        if (!strcmp(k->key, "dtype") && k->val.kind == CGS_ARG_DTYPE)
            dt = k->val.u.dtype;
        else if (!strcmp(k->key, "device"))
            dev = str_of(&k->val);
        else if (!strcmp(k->key, "memory_format"))
            memfmt = str_of(&k->val);
        else if (!strcmp(k->key, "copy"))
            copy = bool_of(&k->val, false);
    }
    if (memfmt && !strcmp(memfmt, "preserve_format"))
        memfmt = NULL;
    if (!copy && !memfmt && (dt == CGS_DTYPE_UNKNOWN || dt == t->dtype) &&
        same_device(dev, t->device))
        return same_as_first(sc, d);
    return copy_like(sc, t, dt, memfmt, dev);
}


RULE(type_as)
{
    const struct cgs_tensor *t, *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "other", &o, d));
    if (o->dtype == t->dtype)
        return same_as_first(sc, d);
    return copy_like(sc, t, o->dtype, NULL, NULL);
}

RULE(clone)
{
    const struct cgs_tensor *t;
    const char *fmt = str_of(A(sc, "memory_format"));

    (void)n;
    TRY(need_tensor(sc, sc->p[0].name_len == 4 ? "self" : "input", &t, d));
    if (fmt && !strcmp(fmt, "preserve_format"))
        fmt = NULL;
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, fmt, NULL);
}

RULE(contiguous)
{
    const struct cgs_tensor *t;
    const char *fmt = str_of(A(sc, "memory_format"));
    int64_t sz[NDIM_MAX], st[NDIM_MAX];
    bool cl = fmt && !strcmp(fmt, "channels_last");

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    hints(sc, t, sz, st);
    if (cl ? h_channels_last(t->ndim, sz, st) : h_contiguous(t->ndim, sz, st))
        return same_as_first(sc, d);
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, cl ? "channels_last" : "contiguous_format", NULL);
}

RULE(empty_like)
{
    const struct cgs_tensor *t;
    const char *fmt = str_of(A(sc, "memory_format"));

    (void)n;
    TRY(need_tensor(sc, sc->p[0].name_len == 4 ? "self" : "input", &t, d));
    if (fmt && !strcmp(fmt, "preserve_format"))
        fmt = NULL;
    return copy_like(sc, t, dtype_of(A(sc, "dtype")), fmt, str_of(A(sc, "device")));
}

RULE(full_like) { return cgs_shape_rule_empty_like(n, sc, d); }

RULE(dropout)
{
    const struct cgs_tensor *t;
    const struct cgs_arg *train = A(sc, "training");

    (void)n;
    if (!train)
        train = A(sc, "train");
    TRY(need_tensor(sc, "input", &t, d));
    if (bool_of(A(sc, "inplace"), false))
        return same_as_first(sc, d);
    // without training, torch's decomposition clones the input (torch.compile and export
    // record a non-dense input's clone as contiguous, where eager would return the input:
    // tests/gpu/stride_probe.py); training: native_dropout's empty_like, the same layout
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, NULL, NULL);
}

RULE(native_dropout)
{
    const struct cgs_tensor *t;
    struct cgs_val *l;
    uint32_t i;

    (void)n;
    TRY(need_tensor(sc, "input", &t, d));
    l = new_list(sc, 2);
    for (i = 0; i < 2; i++) {
        struct cgs_tensor *o =
            fill_tensor(sc, &l->u.items[i], t->ndim, i ? CGS_DTYPE_BOOL : t->dtype, t->device);
        dimcpy(o->shape, t->shape, t->ndim);
        preserve_strides(sc, t, o->stride);
    }
    sc->out = l;
    return 0;
}

/* ---- views ----------------------------------------------------------------------------- */

sym_t numel_of(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape)
{
    sym_t m = K(sc, 1);
    uint32_t i;

    for (i = 0; i < nd; i++)
        m = S_mul(sc, m, shape[i]);
    return m;
}

/* Resolve one -1 in a requested shape against numel (infer_size). */
int infer_size(struct cgs_shape_ctx *sc, sym_t numel, sym_t *shape, uint32_t nd,
               struct cgs_diag *d)
{
    uint32_t i, neg = nd;
    sym_t known = K(sc, 1);

    for (i = 0; i < nd; i++) {
        if (is_const(shape[i], -1)) {
            if (neg != nd)
                return cgs_diag_set(d, CGS_E_INVAL, "only one dimension can be inferred");
            neg = i;
        } else {
            known = S_mul(sc, known, shape[i]);
        }
    }
    if (neg != nd) {
        int64_t hk = hv(sc, known);
        if (hk == 0)
            return cgs_diag_set(d, CGS_E_INVAL, "cannot infer a dimension of a 0-element shape");
        shape[neg] = S_div(sc, numel, known);
        if (!shape[neg])
            return cgs_diag_set(d, CGS_E_UNKNOWN, "inferred dimension overflows");
    } else if (hv(sc, known) != hv(sc, numel)) {
        return cgs_diag_set(d, CGS_E_INVAL, "shape of %lld elements is invalid for input of %lld",
                            (long long)hv(sc, known), (long long)hv(sc, numel));
    }
    return 0;
}

/* ATen's computeStride: strides of a view of t as shape, or false when not viewable. torch's
 * reshape asks it whether to view or copy (its strides for size-1 dims are not the ones the
 * view then gets: ref_view_strides gives those). */
static bool aten_view_strides(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
                  const sym_t *shape, sym_t *stride)
{
    int64_t osz[NDIM_MAX], ost[NDIM_MAX], tensor_numel = 1, view_numel = 1;
    sym_t chunk_base, s_tensor_numel, s_view_numel;
    int64_t view_d = (int64_t)nd - 1, td;
    uint32_t i;

    if (t->ndim == 0) {
        for (i = 0; i < nd; i++)
            stride[i] = K(sc, 1);
        return true;
    }
    hints(sc, t, osz, ost);
    for (i = 0; i < t->ndim; i++)
        if (osz[i] == 0) {
            contiguous_strides(sc, nd, shape, stride);
            return true;
        }
    chunk_base = t->stride[t->ndim - 1];
    s_tensor_numel = K(sc, 1);
    s_view_numel = K(sc, 1);
    for (td = (int64_t)t->ndim - 1; td >= 0; td--) {
        tensor_numel = hmul(tensor_numel, osz[td]);
        s_tensor_numel = S_mul(sc, s_tensor_numel, t->shape[td]);
        if (td == 0 || (osz[td - 1] != 1 && ost[td - 1] != hmul(tensor_numel, hv(sc, chunk_base)))) {
            while (view_d >= 0 && (view_numel < tensor_numel || hv(sc, shape[view_d]) == 1)) {
                stride[view_d] = S_mul(sc, s_view_numel, chunk_base);
                view_numel = hmul(view_numel, hv(sc, shape[view_d]));
                s_view_numel = S_mul(sc, s_view_numel, shape[view_d]);
                view_d--;
            }
            if (view_numel != tensor_numel)
                return false;
            if (td > 0) {
                chunk_base = t->stride[td - 1];
                tensor_numel = 1, view_numel = 1;
                s_tensor_numel = K(sc, 1), s_view_numel = K(sc, 1);
            }
        }
    }
    return view_d == -1;
}

/* The dims of a tensor while ref_view_strides rebuilds it: sizes and strides, symbolic and
 * their hints, up to twice the dims a tensor may have (each output dim can split one). */
struct rv {
    uint32_t n;
    sym_t s[2 * NDIM_MAX], st[2 * NDIM_MAX];
    int64_t hs[2 * NDIM_MAX], hst[2 * NDIM_MAX];
};

/* dim d of length s[d] becomes (outer, s[d] / outer): strides (st[d] * inner, st[d]) */
static void rv_split(struct cgs_shape_ctx *sc, struct rv *r, uint32_t d, sym_t outer)
{
    sym_t inner = S_div(sc, r->s[d], outer);
    int64_t ho = hv(sc, outer), hi = ho ? r->hs[d] / ho : 0;
    uint32_t k;

    for (k = r->n; k > d + 1; k--) {
        r->s[k] = r->s[k - 1], r->st[k] = r->st[k - 1];
        r->hs[k] = r->hs[k - 1], r->hst[k] = r->hst[k - 1];
    }
    r->n++;
    r->s[d + 1] = inner, r->hs[d + 1] = hi;
    r->st[d + 1] = r->st[d], r->hst[d + 1] = r->hst[d];
    r->s[d] = outer, r->hs[d] = ho;
    r->st[d] = S_mul(sc, r->st[d], inner), r->hst[d] = hmul(r->hst[d], hi);
}

/* dims a..b become one, when each neighbouring pair is a size-1 dim or laid out contiguously
 * (only neighbours are compared: torch's test, weaker than computeStride's); its stride the
 * smallest among b's and those of the dims not of size 1 */
static bool rv_collapse(struct cgs_shape_ctx *sc, struct rv *r, uint32_t a, uint32_t b)
{
    sym_t len = r->s[b], st = r->st[b];
    int64_t hlen = r->hs[b], hst = r->hst[b];
    uint32_t i, k;

    for (i = b; i-- > a;)
        if (r->hs[i] != 1 && r->hs[i + 1] != 1 && r->hst[i] != hmul(r->hst[i + 1], r->hs[i + 1]))
            return false;
    for (i = b; i-- > a;) {
        if (r->hs[i] != 1 && r->hst[i] < hst)
            st = r->st[i], hst = r->hst[i];
        len = S_mul(sc, len, r->s[i]), hlen = hmul(hlen, r->hs[i]);
    }
    r->s[a] = len, r->hs[a] = hlen, r->st[a] = st, r->hst[a] = hst;
    for (k = a + 1; k + (b - a) < r->n; k++) {
        r->s[k] = r->s[k + b - a], r->st[k] = r->st[k + b - a];
        r->hs[k] = r->hs[k + b - a], r->hst[k] = r->hst[k + b - a];
    }
    r->n -= b - a;
    return true;
}

/* torch.compile's graphs record what FakeTensor gives a view: torch's reference reshape
 * (torch._refs), not computeStride. Output dims are built left to right: a dim of the
 * wanted length is kept, otherwise input dims are collapsed until the length divides what
 * they hold, and that is split; a trailing size-1 dim is split off the last dim, trailing
 * size-1 dims are squeezed. Size-1 dims keep the strides these steps give them. Strides of
 * the view, or false when a collapse it needs is not a view. Checked on 3,000 random views
 * and reshapes recorded from torch 2.11 (tests/data/views.txt). */
static bool ref_view_strides(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
                             const sym_t *shape, sym_t *stride)
{
    struct rv rr, *r = &rr; /* 4 KiB on the stack */
    int64_t numel = 1, expect = 1;
    bool contiguous = true;
    uint32_t i, idx = 0;

    if (t->ndim == 0) {
        for (i = 0; i < nd; i++)
            stride[i] = K(sc, 1);
        return true;
    }
    r->n = t->ndim;
    hints(sc, t, r->hs, r->hst);
    for (i = 0; i < t->ndim; i++) {
        r->s[i] = t->shape[i], r->st[i] = t->stride[i];
        numel = hmul(numel, r->hs[i]);
    }
    if (numel == 0) {
        contiguous_strides(sc, nd, shape, stride);
        return true;
    }
    if (nd == 0)
        return true;
    for (i = t->ndim; i-- > 0 && numel >= 2;) {
        if (r->hs[i] == 1)
            continue;
        if (r->hst[i] != expect)
            contiguous = false;
        expect = hmul(expect, r->hs[i]);
    }
    if (contiguous && nd == 1 && t->ndim > 1) {
        stride[0] = K(sc, 1);
        return true;
    }
    if (contiguous && nd == 2 && t->ndim == 1) {
        stride[0] = shape[1], stride[1] = K(sc, 1);
        return true;
    }
    for (i = 0; i < nd; i++) {
        int64_t len = hv(sc, shape[i]), acc;
        uint32_t end;

        if (idx >= r->n) { /* a trailing size-1 dim */
            if (len != 1)
                return false;
            rv_split(sc, r, r->n - 1, r->s[r->n - 1]);
            idx++;
            continue;
        }
        if (len == r->hs[idx]) {
            idx++;
            continue;
        }
        if (len <= 0)
            return false;
        acc = r->hs[idx], end = idx;
        while (acc % len) {
            if (++end >= r->n)
                return false;
            acc = hmul(acc, r->hs[end]);
        }
        if (end != idx && !rv_collapse(sc, r, idx, end))
            return false;
        if (acc != len)
            rv_split(sc, r, idx, shape[i]);
        idx++;
    }
    for (i = idx; i < r->n; i++)
        if (r->hs[i] != 1)
            return false;
    if (idx != nd)
        return false;
    for (i = 0; i < nd; i++)
        stride[i] = r->st[i];
    return true;
}

/* Strides of a view of t as shape (torch.view: as FakeTensor gives them), or false when
 * torch refuses the view. */
bool view_strides(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
                  const sym_t *shape, sym_t *stride)
{
    return ref_view_strides(sc, t, nd, shape, stride);
}

/* Strides of reshape(t, shape) when it is a view: torch asks computeStride whether it can
 * view, then views (the reference algorithm's strides); false when it copies. */
static bool reshape_strides(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
                            const sym_t *shape, sym_t *stride)
{
    return aten_view_strides(sc, t, nd, shape, stride) && ref_view_strides(sc, t, nd, shape, stride);
}

/* view / reshape to the shape in parameter `name`; reshape copies when it must. */
int view_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, sym_t *shape, uint32_t nd,
            bool can_copy, struct cgs_diag *d)
{
    struct cgs_tensor *o;
    uint32_t i;

    TRY(infer_size(sc, numel_of(sc, t->ndim, t->shape), shape, nd, d));
    sc->out = new_val(sc, CGS_VAL_TENSOR);
    o = copy_tensor(sc, sc->out, t, nd);
    for (i = 0; i < nd; i++)
        o->shape[i] = shape[i];
    if (can_copy ? reshape_strides(sc, t, nd, o->shape, o->stride)
                 : view_strides(sc, t, nd, o->shape, o->stride))
        return 0;
    if (!can_copy)
        return cgs_diag_set(d, CGS_E_INVAL,
                            "view size is not compatible with input tensor's size and stride");
    contiguous_strides(sc, nd, o->shape, o->stride);
    o->storage_offset = K(sc, 0);
    return 0;
}

int shape_param(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *shape,
                uint32_t *nd, struct cgs_diag *d)
{
    int rc = ints_of(sc, a, shape, nd);

    if (rc == -CGS_E_UNKNOWN)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "size argument is not known");
    if (rc)
        return cgs_diag_set(d, CGS_E_INVAL, "size argument is not a list of ints");
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

/* A fresh view value of t (same offset) with ndim dims, as the node's result. */
struct cgs_tensor *out_view(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                            uint32_t nd)
{
    struct cgs_val *v = new_val(sc, CGS_VAL_TENSOR);

    sc->out = v;
    return copy_tensor(sc, v, t, nd);
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

int expand_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, const sym_t *size,
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

/* select(dim, index) into a given value slot. */
int select_into(struct cgs_shape_ctx *sc, struct cgs_val *v, const struct cgs_tensor *t,
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

/* A fresh unbacked size symbol (u0, u1, ... in order of creation, as torch numbers them). */
sym_t unbacked(struct cgs_shape_ctx *sc)
{
    char name[24];

    snprintf(name, sizeof(name), "u%u", sc->n_unbacked++);
    return cgs_sym_var(sc->sx, name);
}

/* Clamp a slice bound (None = default) like ATen's slice; symbolic bounds kept when in range. */
sym_t slice_bound(struct cgs_shape_ctx *sc, sym_t b, sym_t size, bool is_end)
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

int slice_into(struct cgs_shape_ctx *sc, struct cgs_tensor *o, const struct cgs_tensor *t,
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
int split_into(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t dim,
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


/* tensor[index]: ints select, slices slice, None adds a dim, ... skips ahead. */
int index_tensor(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
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
int list_index(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
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
