/*
 * Shape rules (lib/passes/shapes.h), sizes and scalars: size(), stride(), numel(), item(), the
 * sym_* functions. Helpers come from the core (shapes-int.h); docs/shape-rules.md lists every
 * rule's file.
 */
#include "lib/passes/shapes-int.h"

/* torch.sym_float(x): a SymInt becomes the SymFloat ToFloat(x); a number, a float. */
RULE(sym_float)
{
    struct operand o;
    struct cgs_buf t = CGS_BUF_INIT;
    double v;
    bool sym;

    if (operand_of(sc, Ai(sc, 0), &o) || o.t)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "sym_float: the value is not known");
    if (!float_term(sc, Ai(sc, 0), &o, &t, &v, &sym)) {
        cgs_buf_release(&t);
        return cgs_diag_set(d, CGS_E_UNKNOWN, "sym_float: the value is not known");
    }
    (void)n;
    if (sym) {
        sc->out = new_val(sc, CGS_VAL_SYMFLOAT);
        sc->out->u.s.text = cgs_arena_strdup(sc->ar, t.buf);
        sc->out->u.s.fhint = v;
        sc->out->has_hint = true;
    } else {
        sc->out = new_val(sc, CGS_VAL_FLOAT);
        sc->out->u.f = v;
    }
    cgs_buf_release(&t);
    return 0;
}

/* sym_storage_offset(self): the offset as a SymInt; sym_is_contiguous(self): a SymBool. */
RULE(sym_storage_offset)
{
    const struct cgs_tensor *t;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    sc->out = new_val(sc, CGS_VAL_SYMINT);
    set_symint(sc, sc->out, t->storage_offset ? t->storage_offset : K(sc, 0));
    return 0;
}

RULE(sym_is_contiguous)
{
    const struct cgs_tensor *t;
    int64_t sz[NDIM_MAX], st[NDIM_MAX];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    hints(sc, t, sz, st);
    sc->out = new_val(sc, CGS_VAL_BOOL);
    sc->out->u.b = h_contiguous(t->ndim, sz, st);
    return 0;
}

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

static int sym_fold(struct cgs_shape_ctx *sc, int which, struct cgs_diag *d)
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

/* Known to torch, no rule yet: infer_node reports it as unknown_op before calling this. */
RULE(none)
{
    (void)n, (void)sc;
    return cgs_diag_set(d, CGS_E_UNKNOWN, "no shape rule");
}
