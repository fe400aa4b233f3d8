/*
 * The shape pass's core (lib/passes/shapes.h): what views share: view and reshape strides (ATen's
 * computeStride and torch._refs'), sizes inferred from -1, copies like an input.
 */
#include "lib/passes/shapes-int.h"

enum cgs_dtype complex_of(enum cgs_dtype t)
{
    return t == CGS_DTYPE_FLOAT64   ? CGS_DTYPE_COMPLEX128
           : t == CGS_DTYPE_FLOAT16 ? CGS_DTYPE_COMPLEX32
                                    : CGS_DTYPE_COMPLEX64;
}

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
static bool view_strides(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
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

/* A fresh view value of t (same offset) with ndim dims, as the node's result. */
struct cgs_tensor *out_view(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                            uint32_t nd)
{
    struct cgs_val *v = new_val(sc, CGS_VAL_TENSOR);

    sc->out = v;
    return copy_tensor(sc, v, t, nd);
}

/* A fresh unbacked size symbol (u0, u1, ... in order of creation, as torch numbers them). */
sym_t unbacked(struct cgs_shape_ctx *sc)
{
    char name[24];

    snprintf(name, sizeof(name), "u%u", sc->n_unbacked++);
    return cgs_sym_var(sc->sx, name);
}
