/*
 * The shape pass's core (lib/passes/shapes.h): results: operands, broadcasting, elementwise
 * results and their strides, scalar arithmetic.
 */
#include "lib/passes/shapes-int.h"

void set_symint(struct cgs_shape_ctx *sc, struct cgs_val *v, sym_t e)
{
    int64_t c;

    memset(v, 0, sizeof(*v));
    if (cgs_sym_is_int(e, &c)) {
        v->kind = CGS_VAL_INT;
        v->u.i = c;
        return;
    }
    v->kind = CGS_VAL_SYMINT;
    v->u.s.sym = e;
    v->has_hint = hint(sc, e, &v->u.s.hint);
}

struct cgs_val *new_list(struct cgs_shape_ctx *sc, uint32_t n)
{
    struct cgs_val *v = new_val(sc, CGS_VAL_LIST);

    v->n = n;
    v->u.items = cgs_arena_calloc(sc->ar, n ? n : 1, sizeof(*v->u.items));
    return v;
}

/* A copy of t's metadata with fresh arrays (for views to edit). */
struct cgs_tensor *copy_tensor(struct cgs_shape_ctx *sc, struct cgs_val *v,
                               const struct cgs_tensor *t, uint32_t ndim)
{
    struct cgs_tensor *o = fill_tensor(sc, v, ndim, t->dtype, t->device);

    o->storage_offset = t->storage_offset;
    o->requires_grad = t->requires_grad;
    return o;
}

/* Python-style broadcast of shapes; 0 or an error. */
int broadcast(struct cgs_shape_ctx *sc, const struct operand *o, uint32_t n, sym_t *shape,
              uint32_t *nd, struct cgs_diag *d)
{
    uint32_t i, k, r = 0;

    for (k = 0; k < n; k++)
        if (o[k].t && o[k].t->ndim > r)
            r = o[k].t->ndim;
    for (i = 0; i < r; i++)
        shape[i] = NULL;
    for (k = 0; k < n; k++) {
        const struct cgs_tensor *t = o[k].t;
        if (!t)
            continue;
        for (i = 0; i < t->ndim; i++) {
            uint32_t j = r - t->ndim + i;
            sym_t s = t->shape[i];
            int64_t hs = hv(sc, s), ho;
            if (!shape[j]) {
                shape[j] = s;
                continue;
            }
            ho = hv(sc, shape[j]);
            if (hs == 1)
                continue;
            if (ho == 1) {
                shape[j] = s;
                continue;
            }
            if (hs != ho)
                return cgs_diag_set(d, CGS_E_INVAL,
                                    "shapes do not broadcast: size %lld against %lld at dim %u",
                                    (long long)hs, (long long)ho, j);
            // equal: prefer a constant, else the first (duck sizing makes them one symbol)
            if (!cgs_sym_is_int(shape[j], &ho) && cgs_sym_is_int(s, &hs))
                shape[j] = s;
        }
    }
    *nd = r;
    return 0;
}

const char *device_of(const struct operand *o, uint32_t n)
{
    const char *dev = NULL;
    uint32_t k;

    for (k = 0; k < n; k++) {
        if (!o[k].t || !o[k].t->device)
            continue;
        if (!dev || (o[k].t->ndim > 0 && strcmp(o[k].t->device, "cpu")))
            dev = o[k].t->device;
    }
    return dev;
}

/*
 * The elementwise core: broadcast the operands, give the result dtype and
 * the strides TensorIterator / FakeTensor would. fast: FakeTensor's fast
 * path for binary ops (one operand already of the full shape, and all
 * contiguous or all channels-last) applies first.
 */
int elementwise(struct cgs_shape_ctx *sc, const struct operand *o, uint32_t n,
                enum cgs_dtype dtype, bool fast, struct cgs_diag *d)
{
    sym_t shape[NDIM_MAX];
    int64_t sz[NDIM_MAX], st[4][NDIM_MAX];
    uint32_t nd, k, i, nt = 0;
    struct cgs_tensor *t;
    bool full = false, contig = true, cl = true;

    TRY(broadcast(sc, o, n, shape, &nd, d));
    t = out_tensor(sc, nd, dtype, device_of(o, n));
    for (i = 0; i < nd; i++) {
        t->shape[i] = shape[i];
        sz[i] = hv(sc, shape[i]);
    }
    if (fast) {
        for (k = 0; k < n; k++) {
            int64_t osz[NDIM_MAX], ost[NDIM_MAX];
            if (!o[k].t)
                continue;
            hints(sc, o[k].t, osz, ost);
            if (o[k].t->ndim == nd && !memcmp(osz, sz, nd * sizeof(*sz)))
                full = true;
            contig = contig && h_contiguous(o[k].t->ndim, osz, ost);
            cl = cl && o[k].t->ndim == 4 && h_channels_last(o[k].t->ndim, osz, ost);
        }
        if (full && contig) {
            contiguous_strides(sc, nd, t->shape, t->stride);
            return 0;
        }
        if (full && cl) {
            channels_last_strides(sc, nd, t->shape, t->stride);
            return 0;
        }
    }
    for (k = 0; k < n && nt < 4; k++) {
        if (!o[k].t)
            continue;
        // CPU scalar tensors do not take part (is_cpu_scalar_tensor)
        if (o[k].t->ndim == 0 && o[k].t->device && !strcmp(o[k].t->device, "cpu") && nd > 0)
            continue;
        broadcast_hint_strides(sc, o[k].t, nd, sz, st[nt++]);
    }
    elementwise_strides(sc, nd, t->shape, nt, st, t->stride);
    return 0;
}

/* Operands from the first `count` schema parameters. */
int operands(struct cgs_shape_ctx *sc, uint32_t count, struct operand *o, uint32_t *n,
             struct cgs_diag *d)
{
    uint32_t i;

    *n = 0;
    for (i = 0; i < count && i < sc->n_params; i++) {
        int rc = operand_of(sc, Ai(sc, i), &o[*n]);
        if (rc == 1)
            continue;
        if (rc == -CGS_E_UNKNOWN)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "input %u is not known", i);
        if (rc < 0)
            return cgs_diag_set(d, CGS_E_INVAL, "argument %u is not a tensor or a number", i);
        (*n)++;
    }
    return 0;
}

bool any_tensor(const struct operand *o, uint32_t n)
{
    uint32_t k;

    for (k = 0; k < n; k++)
        if (o[k].t)
            return true;
    return false;
}

static bool any_symbolic(const struct operand *o, uint32_t n)
{
    uint32_t k, i;

    for (k = 0; k < n; k++) {
        const struct cgs_tensor *t = o[k].t;
        if (!t)
            continue;
        for (i = 0; i < t->ndim; i++)
            if (t->shape[i]->kind != CGS_SYM_INT || t->stride[i]->kind != CGS_SYM_INT)
                return true;
        if (t->storage_offset->kind != CGS_SYM_INT)
            return true;
    }
    return false;
}

int unary_with(struct cgs_shape_ctx *sc, int mode, struct cgs_diag *d)
{
    struct operand o;
    enum cgs_dtype dt;
    uint32_t n;

    TRY(operands(sc, 1, &o, &n, d));
    if (n != 1 || !o.t)
        return cgs_diag_set(d, CGS_E_INVAL, "expected a tensor");
    dt = o.t->dtype;
    if (mode == 1 && !is_float_like(dt))
        dt = CGS_DTYPE_FLOAT32;
    if (mode == 2)
        dt = CGS_DTYPE_BOOL;
    return elementwise(sc, &o, 1, dt, false, d);
}

/* 0 when rms_norm's weight is absent or of the input's dtype, which is all that is tracked. */
int rms_weight_ok(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, struct cgs_diag *d)
{
    const struct cgs_tensor *w;

    if (is_none(A(sc, "weight")))
        return 0;
    TRY(need_tensor(sc, "weight", &w, d));
    if (w->dtype != t->dtype)
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "rms_norm with a %s weight on a %s input is not tracked",
                            cgs_dtypes[w->dtype].name, cgs_dtypes[t->dtype].name);
    return 0;
}

/* The value of the first argument, unchanged (in-place ops and aliases); of a list of
 * tensors (an in-place _foreach_add_), the list of their values. */
int same_as_first(struct cgs_shape_ctx *sc, struct cgs_diag *d)
{
    const struct cgs_arg *a = Ai(sc, 0);
    const struct cgs_val *v = node_val(sc, a);

    if (!v && a && a->kind == CGS_ARG_LIST) {
        struct cgs_val *l = new_list(sc, a->n);
        for (uint32_t i = 0; i < a->n; i++) {
            const struct cgs_val *item = node_val(sc, &a->u.items[i]);
            if (!item || (item->kind == CGS_VAL_TENSOR && !tensor_known(&item->u.t)))
                return cgs_diag_set(d, CGS_E_UNKNOWN, "item %u of the list is not known", i);
            l->u.items[i] = *item;
        }
        sc->out = l;
        return 0;
    }
    if (!v)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "input is not known");
    sc->out = (struct cgs_val *)v;
    if (v->kind == CGS_VAL_TENSOR && !tensor_known(&v->u.t))
        return -CGS_E_UNKNOWN;
    return 0;
}

/* A comparison of two SymInts (operator.ge on sizes, the runtime asserts Dynamo writes around
 * unbacked sizes): a bool when both are constants, else a SymBool written like torch writes it
 * ("u1 >= 0", "u0 <= s77"), its hint from the sizes' hints when they have them. */
static int scalar_compare(struct cgs_shape_ctx *sc, unsigned cmp, sym_t a, sym_t b)
{
    static const char *const ops[] = {"", "<", "<=", ">", ">=", "==", "!="};
    unsigned k = cmp >> 26;
    int64_t x, y;
    bool known = hint(sc, a, &x) && hint(sc, b, &y), r = false;
    struct cgs_buf text = CGS_BUF_INIT;

    if (known)
        r = k == 1 ? x < y : k == 2 ? x <= y : k == 3 ? x > y : k == 4 ? x >= y : k == 5 ? x == y
                                                                                     : x != y;
    if (cgs_sym_is_int(a, &x) && cgs_sym_is_int(b, &y)) {
        sc->out = new_val(sc, CGS_VAL_BOOL);
        sc->out->u.b = r;
        return 0;
    }
    cgs_sym_print(a, &text);
    cgs_buf_addf(&text, " %s ", ops[k]);
    cgs_sym_print(b, &text);
    sc->out = new_val(sc, CGS_VAL_SYMBOOL);
    sc->out->u.s.text = cgs_arena_strdup(sc->ar, text.buf);
    sc->out->has_hint = known;
    sc->out->u.s.hint = r;
    cgs_buf_release(&text);
    return 0;
}

/* Scalar arithmetic on SymInts (operator.add on sizes and the like): the registry's ARITH
 * flags say which. */
/* A scalar as Python's float arithmetic sees it: SymPy's text of it and its value (hint);
 * *sym when it is symbolic (a SymFloat, or a SymInt promoted: ToFloat(s0)). */
bool float_term(struct cgs_shape_ctx *sc, const struct cgs_arg *a, const struct operand *o,
                       struct cgs_buf *text, double *v, bool *sym)
{
    const struct cgs_val *nv = a && a->kind == CGS_ARG_NODE ? node_val(sc, a) : NULL;
    int64_t iv;

    *sym = false;
    if (o->scalar == CGS_DTYPE_FLOAT32) {
        if (nv && nv->kind == CGS_VAL_SYMFLOAT) {
            if (!nv->u.s.text || !nv->has_hint)
                return false;
            cgs_buf_addstr(text, nv->u.s.text);
            *v = nv->u.s.fhint;
            *sym = true;
            return true;
        }
        char num[64];
        snprintf(num, sizeof(num), "%.17g", o->f);
        cgs_buf_addstr(text, num);
        if (!strpbrk(num, ".eni"))
            cgs_buf_addstr(text, ".0");
        *v = o->f;
        return true;
    }
    if (o->scalar == CGS_DTYPE_INT64 && o->sym) {
        if (cgs_sym_is_int(o->sym, &iv)) {
            cgs_buf_addf(text, "%lld.0", (long long)iv);
            *v = (double)iv;
            return true;
        }
        if (!hint(sc, o->sym, &iv))
            return false;
        char *e = cgs_sym_to_string(o->sym);
        cgs_buf_addf(text, "ToFloat(%s)", e);
        free(e);
        *v = (double)iv;
        *sym = true;
        return true;
    }
    return false;
}

/* +, -, *, / where a float takes part (or / of two ints, a float in Python): a SymFloat
 * written as torch prints one (ToFloat(s7) - 1.0, FloatTrueDiv(A, 2.0)) with its value, or a
 * plain float. */
static int float_arith(struct cgs_shape_ctx *sc, const struct cgs_node *n, const struct operand *o,
                       struct cgs_diag *d)
{
    unsigned f = sc->op->flags;
    bool div = (f & CGS_OPF_ARITH_TRUEDIV) != 0;
    struct cgs_buf ta = CGS_BUF_INIT, tb = CGS_BUF_INIT, r = CGS_BUF_INIT;
    double va, vb, v;
    bool sa, sb;
    int k = 0;

    if (!(f & (CGS_OPF_ARITH_ADD | CGS_OPF_ARITH_SUB | CGS_OPF_ARITH_MUL)) && !div)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "scalar '%s' is not tracked", n->target);
    if (!float_term(sc, n->n_args > 0 ? &n->args[0] : NULL, &o[0], &ta, &va, &sa) ||
        !float_term(sc, n->n_args > 1 ? &n->args[1] : NULL, &o[1], &tb, &vb, &sb)) {
        cgs_buf_release(&ta);
        cgs_buf_release(&tb);
        return cgs_diag_set(d, CGS_E_UNKNOWN, "scalar '%s' of these operands is not tracked",
                            n->target);
    }
    if (f & CGS_OPF_ARITH_REFLECTED) {
        struct cgs_buf t = ta;
        double tv = va;
        bool ts = sa;
        ta = tb, va = vb, sa = sb;
        tb = t, vb = tv, sb = ts;
    }
    if (f & CGS_OPF_ARITH_ADD)
        v = va + vb, k = 0;
    else if (f & CGS_OPF_ARITH_SUB)
        v = va - vb, k = 1;
    else if (f & CGS_OPF_ARITH_MUL)
        v = va * vb, k = 2;
    else
        v = va / vb, k = 3;
    if (!sa && !sb) {
        sc->out = new_val(sc, CGS_VAL_FLOAT);
        sc->out->u.f = v;
    } else {
        if (k == 3)
            cgs_buf_addf(&r, "FloatTrueDiv(%s, %s)", ta.buf, tb.buf);
        else
            cgs_buf_addf(&r, "%s %s %s", ta.buf, k == 0 ? "+" : k == 1 ? "-" : "*", tb.buf);
        sc->out = new_val(sc, CGS_VAL_SYMFLOAT);
        sc->out->u.s.text = cgs_arena_strdup(sc->ar, r.buf);
        sc->out->u.s.fhint = v;
        sc->out->has_hint = true;
    }
    cgs_buf_release(&ta);
    cgs_buf_release(&tb);
    cgs_buf_release(&r);
    return 0;
}

static int scalar_arith(struct cgs_shape_ctx *sc, const struct cgs_node *n, const struct operand *o,
                 uint32_t cnt, struct cgs_diag *d)
{
    unsigned f = sc->op->flags;
    sym_t a, b, r = NULL;

    if (cnt == 2 && !(f & CGS_OPF_CMP_MASK) &&
        (o[0].scalar == CGS_DTYPE_FLOAT32 || o[1].scalar == CGS_DTYPE_FLOAT32 ||
         (f & CGS_OPF_ARITH_TRUEDIV)))
        return float_arith(sc, n, o, d);
    if (cnt != 2 || o[0].scalar != CGS_DTYPE_INT64 || o[1].scalar != CGS_DTYPE_INT64 || !o[0].sym ||
        !o[1].sym) {
        sc->out = NULL;
        return cgs_diag_set(d, CGS_E_UNKNOWN, "scalar arithmetic on non-integers is not tracked");
    }
    a = o[0].sym, b = o[1].sym;
    if (f & CGS_OPF_CMP_MASK)
        return scalar_compare(sc, f & CGS_OPF_CMP_MASK, a, b);
    if (f & CGS_OPF_ARITH_REFLECTED) {
        sym_t t = a;
        a = b, b = t;
    }
    if (f & CGS_OPF_ARITH_ADD)
        r = S_add(sc, a, b);
    else if (f & CGS_OPF_ARITH_SUB)
        r = S_sub(sc, a, b);
    else if (f & CGS_OPF_ARITH_MUL)
        r = S_mul(sc, a, b);
    else if (f & CGS_OPF_ARITH_FLOORDIV)
        r = S_div(sc, a, b);
    else if (f & CGS_OPF_ARITH_MOD)
        r = cgs_sym_mod(sc->sx, a, b);
    if (!r)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "scalar '%s' is not tracked", n->target);
    sc->out = new_val(sc, CGS_VAL_INT);
    set_symint(sc, sc->out, r);
    return 0;
}

int binary_with(const struct cgs_node *n, struct cgs_shape_ctx *sc, int mode, uint32_t count,
                struct cgs_diag *d)
{
    struct operand o[4];
    enum cgs_dtype dt;
    uint32_t cnt;
    bool fast;

    TRY(operands(sc, count, o, &cnt, d));
    if (!any_tensor(o, cnt))
        return scalar_arith(sc, n, o, cnt, d);
    dt = result_type(o, cnt);
    if (mode == 1 && !is_float_like(dt))
        dt = CGS_DTYPE_FLOAT32;
    if (mode == 2)
        dt = CGS_DTYPE_BOOL;
    // FakeTensor's fast binary path covers add, sub, mul, div (aten and operator forms),
    // and FakeTensorMode takes it only when an input has symbolic sizes or strides
    fast = (sc->op->flags & CGS_OPF_FAKE_FAST_BINARY) && any_symbolic(o, cnt);
    return elementwise(sc, o, cnt, dt, fast, d);
}

/* The real dtype of a complex one (complex64 -> float32); others unchanged. */
enum cgs_dtype real_of(enum cgs_dtype t)
{
    switch (t) {
    case CGS_DTYPE_COMPLEX32:
        return CGS_DTYPE_FLOAT16;
    case CGS_DTYPE_COMPLEX64:
        return CGS_DTYPE_FLOAT32;
    case CGS_DTYPE_COMPLEX128:
        return CGS_DTYPE_FLOAT64;
    default:
        return t;
    }
}
