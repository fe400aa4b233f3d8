/*
 * The shape pass's core (lib/passes/shapes.h): comparing an inferred value with the one torch
 * recorded (symbolic dims compared by meaning).
 */
#include "lib/passes/shapes-int.h"

/* An unbacked symbol (u0, u17): a data-dependent size ShapeEnv named in the order it made
 * them, counting those it made and dropped while tracing. */
static bool unbacked_sym(sym_t a)
{
    const char *p = a->kind == CGS_SYM_VAR && a->name ? a->name : "";
    if (*p++ != 'u' || !*p)
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    return !*p;
}

bool dim_eq(sym_t a, sym_t b)
{
    if (a == b)
        return true;
    if (!a || !b)
        return false;
    /* two unbacked symbols are one data-dependent size under the names two tracers gave it:
     * torch's numbering counts the symbols it dropped (an export's u1 is cgscope's u0) */
    if (unbacked_sym(a) && unbacked_sym(b))
        return true;
    return cgs_sym_equal_semantic(a, b);
}

/* "float32[2, 3] stride [3, 1] offset 0", or the report's short form for other values. */
static void describe_val(const struct cgs_val *v, struct cgs_buf *out)
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

static void describe(struct cgs_buf *why, const char *what, const struct cgs_val *a,
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
        // a record without strides (FX's TensorMetadata annotation "f32[4]") claims none
        for (i = 0; y->stride && i < x->ndim; i++)
            if (!x->stride || !dim_eq(x->stride[i], y->stride[i]))
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
    // a number against a SymFloat or SymBool the record prints as a constant ("Sym(4.0)",
    // "Sym(True)"): equal when the text is that number
    if ((a->kind == CGS_VAL_FLOAT || a->kind == CGS_VAL_INT || a->kind == CGS_VAL_BOOL) &&
        (b->kind == CGS_VAL_SYMFLOAT || b->kind == CGS_VAL_SYMBOOL) && b->u.s.text) {
        double x = a->kind == CGS_VAL_FLOAT ? a->u.f : a->kind == CGS_VAL_INT ? (double)a->u.i
                                                                              : a->u.b;
        char *end;
        double y = !strcmp(b->u.s.text, "True")    ? 1
                   : !strcmp(b->u.s.text, "False") ? 0
                                                   : strtod(b->u.s.text, &end);
        bool constant = !strcmp(b->u.s.text, "True") || !strcmp(b->u.s.text, "False") ||
                        (end != b->u.s.text && !*end);
        if (constant) {
            if (x == y)
                return CGS_SHAPE_CMP_MATCH;
            describe(why, "value differs", a, b);
            return CGS_SHAPE_CMP_MISMATCH;
        }
        return CGS_SHAPE_CMP_NONE; /* a symbolic record against a number: nothing to compare */
    }
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
