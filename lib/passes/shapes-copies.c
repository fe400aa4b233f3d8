/*
 * Shape rules (lib/passes/shapes.h), copies and conversions: clone, contiguous, to, type_as,
 * *_like, out= and resize. Helpers come from the core (shapes-int.h); docs/shape-rules.md lists
 * every rule's file.
 */
#include "lib/passes/shapes-int.h"

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

/* diagonal_scatter / as_strided_scatter / select_scatter...: a clone of self with its strides
 * (clone_preserve_strides). */
/* ATen's clone_preserve_strides(self): a new storage as large as self's, viewed as self is
 * (sizes, strides and storage offset: recorded on swin_t's shifted windows, offset 2744), unless
 * self overlaps itself (an expanded dim), which is cloned. What the functional copy and the
 * scatters into self (slice_, select_, diagonal_, as_strided_scatter) return. */
RULE(clone_preserve_strides)
{
    const struct cgs_tensor *t;
    struct cgs_tensor *o;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    for (uint32_t i = 0; i < t->ndim; i++)
        if (hv(sc, t->stride[i]) == 0 && hv(sc, t->shape[i]) > 1)
            return copy_like(sc, t, CGS_DTYPE_UNKNOWN, NULL, NULL);
    o = out_tensor(sc, t->ndim, t->dtype, t->device);
    dimcpy(o->shape, t->shape, t->ndim);
    dimcpy(o->stride, t->stride, t->ndim);
    o->storage_offset = t->storage_offset;
    return 0;
}

/* x.double(), x.byte(), ...: the dtype is the schema's default (tools/ops/explicit.txt). */
RULE(convert_to)
{
    const struct cgs_tensor *t;
    const struct cgs_arg *a = A(sc, "dtype");
    enum cgs_dtype dt = a && a->kind == CGS_ARG_STR ? cgs_dtype_from_name(a->u.s) : dtype_of(a);

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (dt == CGS_DTYPE_UNKNOWN)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "conversion to an unknown dtype");
    if (dt == t->dtype)
        return same_as_first(sc, d); // .to() of the same dtype is the tensor itself
    return copy_like(sc, t, dt, NULL, NULL);
}

/* A fresh contiguous tensor of self's shape and dtype (channel_shuffle, ...). */
RULE(like_contiguous)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    out_dense(sc, t->ndim, t->shape, t->dtype, t->device, false);
    return 0;
}

/* A fresh tensor laid out like argument `self` (empty_like): backward ops of pools. */
RULE(like_self)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    return copy_like(sc, t, CGS_DTYPE_UNKNOWN, NULL, NULL);
}

/* resize_(self, size): self becomes contiguous of the new size (storage grown as needed); and
 * as_strided_copy(self, size, stride, offset), a new dense tensor of size (its strides are
 * not the ones asked: the copy is contiguous). */
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

static bool same_device(const char *a, const char *b)
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
