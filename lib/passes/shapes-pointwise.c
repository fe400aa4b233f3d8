/*
 * Shape rules (lib/passes/shapes.h), pointwise operators: unary, binary and ternary elementwise
 * ops, comparisons, where, dropout. Helpers come from the core (shapes-int.h); docs/shape-rules.md
 * lists every rule's file.
 */
#include "lib/passes/shapes-int.h"

RULE(unary)
{
    (void)n;
    return unary_with(sc, 0, d);
}

/* -a, +a, ~a as FX prints operator.neg, pos and invert: on a tensor a unary op; on a Python
 * int (a size: -u1, as export graphs compute slice bounds) the int, symbolic where it is; on a
 * float its value. mode: 0 neg, 1 pos, 2 invert (~i == -i - 1). */
static int sign_op(const struct cgs_node *n, struct cgs_shape_ctx *sc, int mode,
                   struct cgs_diag *d)
{
    struct operand o;
    uint32_t cnt;

    TRY(operands(sc, 1, &o, &cnt, d));
    if (cnt != 1)
        return cgs_diag_set(d, CGS_E_INVAL, "%s: expected one operand", n->target);
    if (o.t)
        return unary_with(sc, 0, d);
    if (o.scalar == CGS_DTYPE_INT64 && o.sym) {
        sym_t r = mode == 1 ? o.sym : S_sub(sc, K(sc, 0), o.sym);
        if (mode == 2)
            r = S_sub(sc, r, K(sc, 1));
        sc->out = new_val(sc, CGS_VAL_INT);
        set_symint(sc, sc->out, r);
        return 0;
    }
    if (o.scalar == CGS_DTYPE_FLOAT32 && mode != 2 && !node_val(sc, Ai(sc, 0))) {
        sc->out = new_val(sc, CGS_VAL_FLOAT);
        sc->out->u.f = mode == 1 ? o.f : -o.f;
        return 0;
    }
    return cgs_diag_set(d, CGS_E_UNKNOWN, "%s of this operand is not tracked", n->target);
}

RULE(neg)
{
    return sign_op(n, sc, 0, d);
}

RULE(pos)
{
    return sign_op(n, sc, 1, d);
}

RULE(invert)
{
    return sign_op(n, sc, 2, d);
}

RULE(unary_float)
{
    (void)n;
    return unary_with(sc, 1, d);
}

RULE(unary_bool)
{
    (void)n;
    return unary_with(sc, 2, d);
}

/* An in-place op (add_, relu_, copy_): its value is self. */
RULE(inplace)
{
    (void)n;
    return same_as_first(sc, d);
}

/* What aliases self (alias, detach, wait_tensor, prims.view_of and prims.conj): the same shape,
 * strides and offset, as an in-place op's value. A rule of its own name because the view rules'
 * *_copy variants are made by name (alias_copy, detach_copy: copy_of_alias). */
RULE(alias)
{
    return cgs_shape_rule_inplace(n, sc, d);
}

RULE(unary_maybe_inplace)
{
    (void)n;
    if (bool_of(A(sc, "inplace"), false))
        return same_as_first(sc, d);
    return unary_with(sc, 0, d);
}

/* operator.and_ / or_: on SymBools (Dynamo's runtime asserts, "(u0 <= s77) & (s77 + u0 >= 0)")
 * a SymBool, its hint from theirs; on tensors and ints the bitwise op (the binary family). */
RULE(logic_binary)
{
    const struct cgs_val *a = node_val(sc, Ai(sc, 0)), *b = node_val(sc, Ai(sc, 1));
    bool is_and = n->op_id == CGS_OP_OPERATOR_AND_;
    struct cgs_buf text = CGS_BUF_INIT;

    if (!a || !b || (a->kind != CGS_VAL_SYMBOOL && a->kind != CGS_VAL_BOOL) ||
        (b->kind != CGS_VAL_SYMBOOL && b->kind != CGS_VAL_BOOL) ||
        (a->kind == CGS_VAL_BOOL && b->kind == CGS_VAL_BOOL))
        return cgs_shape_rule_binary(n, sc, d);
    bool ha = a->kind == CGS_VAL_BOOL || a->has_hint, hb = b->kind == CGS_VAL_BOOL || b->has_hint;
    bool va = a->kind == CGS_VAL_BOOL ? a->u.b : a->u.s.hint != 0;
    bool vb = b->kind == CGS_VAL_BOOL ? b->u.b : b->u.s.hint != 0;
    cgs_buf_addf(&text, "(%s) %s (%s)", a->kind == CGS_VAL_BOOL ? (va ? "True" : "False") : a->u.s.text,
                 is_and ? "&" : "|", b->kind == CGS_VAL_BOOL ? (vb ? "True" : "False") : b->u.s.text);
    sc->out = new_val(sc, CGS_VAL_SYMBOOL);
    sc->out->u.s.text = cgs_arena_strdup(sc->ar, text.buf);
    // the result is known from one side alone where it decides (False & x, True | x)
    sc->out->has_hint = (ha && hb) || (ha && va != is_and) || (hb && vb != is_and);
    sc->out->u.s.hint = is_and ? (ha && !va) || (hb && !vb) ? 0 : 1
                               : (ha && va) || (hb && vb) ? 1 : 0;
    cgs_buf_release(&text);
    return 0;
}

RULE(binary) { return binary_with(n, sc, 0, 2, d); }

/*
 * Any pointwise op torch tags `pointwise`: broadcast the parameters marked for type
 * promotion (their Tensor and Scalar arguments), promote them as the op's kind says
 * (torch._prims_common.elementwise_dtypes) and lay the result out as TensorIterator does.
 */
RULE(pointwise)
{
    struct operand o[8];
    enum cgs_dtype dt;
    unsigned f = sc->op->flags;
    uint32_t cnt = 0, i;

    (void)n;
    for (i = 0; i < sc->n_params && cnt < 8; i++) {
        int rc;
        if (!sc->p[i].promote)
            continue;
        rc = operand_of(sc, Ai(sc, i), &o[cnt]);
        if (rc == 1)
            continue;
        if (rc == -CGS_E_UNKNOWN)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "input '%.*s' is not known",
                                (int)pname_len(sc, i), sc->p[i].name);
        if (rc < 0)
            return cgs_diag_set(d, CGS_E_INVAL, "argument '%.*s' is not a tensor or a number",
                                (int)pname_len(sc, i), sc->p[i].name);
        cnt++;
    }
    if (!any_tensor(o, cnt))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "no tensor operand (a scalar-only call)");
    dt = result_type(o, cnt);
    if ((f & CGS_OPF_PROMO_INT_TO_FLOAT) && !is_float_like(dt))
        dt = CGS_DTYPE_FLOAT32;
    else if (f & CGS_OPF_PROMO_ALWAYS_BOOL)
        dt = CGS_DTYPE_BOOL;
    else if (f & CGS_OPF_PROMO_COMPLEX_TO_FLOAT)
        dt = real_of(dt);
    else if ((f & CGS_OPF_PROMO_BOOL_TO_LONG) && dt == CGS_DTYPE_BOOL)
        dt = CGS_DTYPE_INT64;
    return elementwise(sc, o, cnt, dt, false, d);
}

/* frexp: (mantissa of self's dtype, exponent int32), both laid out as the input. */
RULE(frexp)
{
    struct operand o;
    struct cgs_val *pair;

    TRY(operands(sc, 1, &o, &(uint32_t){0}, d));
    if (!o.t)
        return cgs_diag_set(d, CGS_E_INVAL, "frexp: expected a tensor");
    pair = new_list(sc, 2);
    TRY(elementwise(sc, &o, 1, o.t->dtype, false, d));
    pair->u.items[0] = *sc->out;
    TRY(elementwise(sc, &o, 1, CGS_DTYPE_INT32, false, d));
    pair->u.items[1] = *sc->out;
    sc->out = pair;
    (void)n;
    return 0;
}

/* float_power: always double precision (complex128 when an operand is complex). */
RULE(float_power)
{
    struct operand o[2];
    uint32_t cnt;
    enum cgs_dtype dt;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (!any_tensor(o, cnt))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "float_power of scalars");
    dt = dt_cat(result_type(o, cnt)) == 3 ? CGS_DTYPE_COMPLEX128 : CGS_DTYPE_FLOAT64;
    return elementwise(sc, o, cnt, dt, false, d);
}

/* isclose(self, other, ...): broadcast, bool (an elementwise comparison). */
RULE(isclose)
{
    (void)n;
    return binary_with(n, sc, 2, 2, d);
}

/* isreal(self) / isin(elements, ...): bool of the first argument's shape and layout. */
RULE(bool_like_first)
{
    struct operand o;
    uint32_t cnt;

    (void)n;
    TRY(operands(sc, 1, &o, &cnt, d));
    if (cnt != 1 || !o.t)
        return cgs_diag_set(d, CGS_E_INVAL, "expected a tensor");
    return elementwise(sc, &o, 1, CGS_DTYPE_BOOL, false, d);
}

/* complex(real, imag): broadcast, the complex dtype of the two. */
RULE(complex)
{
    struct operand o[2];
    uint32_t cnt;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "complex: expected two tensors");
    return elementwise(sc, o, 2, complex_of(result_type(o, 2)), false, d);
}

/* log_sigmoid_forward(self): (output laid out like self, buffer: empty [0] on CUDA, else
 * like self) -- its decomposition. */
RULE(log_sigmoid_forward)
{
    struct operand o;
    uint32_t cnt;
    struct cgs_val *l;
    sym_t zero = K(sc, 0);

    (void)n;
    TRY(operands(sc, 1, &o, &cnt, d));
    if (cnt != 1 || !o.t)
        return cgs_diag_set(d, CGS_E_INVAL, "expected a tensor");
    l = new_list(sc, 2);
    TRY(elementwise(sc, &o, 1, o.t->dtype, false, d));
    l->u.items[0] = *sc->out;
    if (o.t->device && !strncmp(o.t->device, "cuda", 4))
        fill_dense(sc, &l->u.items[1], 1, &zero, o.t->dtype, o.t->device, false);
    else
        l->u.items[1] = *sc->out;
    sc->out = l;
    return 0;
}

/* glu(self, dim): halves of dim multiplied, laid out as TensorIterator lays out the halves
 * (views of self with self's strides). */
RULE(glu)
{
    const struct cgs_tensor *t;
    struct cgs_val *hv_;
    struct cgs_tensor *h;
    struct operand o;
    uint32_t dim;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    if (t->ndim == 0)
        return cgs_diag_set(d, CGS_E_INVAL, "glu of a 0-dim tensor");
    TRY(dim_arg(sc, "dim", t->ndim, &dim, d));
    hv_ = new_val(sc, CGS_VAL_TENSOR);
    h = copy_tensor(sc, hv_, t, t->ndim);
    dimcpy(h->shape, t->shape, t->ndim);
    dimcpy(h->stride, t->stride, t->ndim);
    h->shape[dim] = S_div(sc, t->shape[dim], K(sc, 2));
    memset(&o, 0, sizeof(o));
    o.t = h;
    return elementwise(sc, &o, 1, t->dtype, false, d);
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

/* The i-th operand of a _foreach op's argument a: a list's i-th item, a tensor as it is; 1 for
 * what takes no part (None, a Python scalar: it does not change a float tensor's dtype), or an
 * error code. */
static int foreach_operand(struct cgs_shape_ctx *sc, const struct cgs_arg *a, uint32_t i,
                           uint32_t len, struct operand *o)
{
    if (!a || is_none(a))
        return 1;
    if (a->kind == CGS_ARG_LIST) {
        if (a->n != len)
            return -CGS_E_INVAL;
        a = &a->u.items[i];
    }
    if (a->kind != CGS_ARG_NODE)
        return 1;
    int rc = operand_of(sc, a, o);
    return rc == 0 && !o->t ? 1 : rc;
}

/* The first list of tensors among the arguments, and its length. */
static const struct cgs_arg *foreach_list(struct cgs_shape_ctx *sc, uint32_t *len)
{
    for (uint32_t k = 0; k < sc->n_params; k++) {
        const struct cgs_arg *a = Ai(sc, k);
        if (a && a->kind == CGS_ARG_LIST && a->n && a->u.items[0].kind == CGS_ARG_NODE) {
            *len = a->n;
            return a;
        }
    }
    return NULL;
}

/* torch._foreach_add, _mul, _lerp, _sqrt, _addcdiv, ... (out of place): result i is the
 * elementwise op of the tensors' i-th items (a tensor argument broadcast to each), promoted
 * as torch promotes them, laid out as TensorIterator lays out an elementwise result. */
RULE(foreach)
{
    uint32_t len = 0;
    struct cgs_val *l;

    (void)n;
    if (!foreach_list(sc, &len))
        return cgs_diag_set(d, CGS_E_INVAL, "expected a list of tensors");
    l = new_list(sc, len);
    for (uint32_t i = 0; i < len; i++) {
        struct operand o[MAX_PARAMS];
        uint32_t cnt = 0;
        for (uint32_t k = 0; k < sc->n_params && cnt < MAX_PARAMS; k++) {
            int rc = foreach_operand(sc, Ai(sc, k), i, len, &o[cnt]);
            if (rc == -CGS_E_UNKNOWN)
                return cgs_diag_set(d, CGS_E_UNKNOWN, "item %u of argument %u is not known", i,
                                    k);
            if (rc < 0)
                return cgs_diag_set(d, CGS_E_INVAL, "argument %u: a list of another length", k);
            cnt += rc == 0;
        }
        if (!cnt)
            return cgs_diag_set(d, CGS_E_INVAL, "item %u: no tensor", i);
        TRY(elementwise(sc, o, cnt, result_type(o, cnt), false, d));
        l->u.items[i] = *sc->out;
    }
    sc->out = l;
    return 0;
}

/* torch._foreach_norm(self, ord, dtype) and _foreach_max(self): a 0-dim tensor per tensor,
 * of dtype (norm's real dtype of the input when not given). */
RULE(foreach_reduce)
{
    uint32_t len = 0;
    const struct cgs_arg *lst = foreach_list(sc, &len);
    const struct cgs_arg *dta = find_param(sc, "dtype") >= 0 ? A(sc, "dtype") : NULL;
    struct cgs_val *l;

    (void)n;
    if (!lst)
        return cgs_diag_set(d, CGS_E_INVAL, "expected a list of tensors");
    l = new_list(sc, len);
    for (uint32_t i = 0; i < len; i++) {
        const struct cgs_tensor *t;
        enum cgs_dtype dt;
        if (arg_tensor(sc, &lst->u.items[i], &t) != 0)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "item %u is not known", i);
        dt = dta && !is_none(dta) ? dtype_of(dta) : find_param(sc, "ord") >= 0 ? real_of(t->dtype)
                                                                            : t->dtype;
        fill_dense(sc, &l->u.items[i], 0, NULL, dt, t->device, false);
    }
    sc->out = l;
    return 0;
}

