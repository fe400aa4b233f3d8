/*
 * The shape pass's core (lib/passes/shapes.h): binding a node's arguments to its schema, and
 * reading them; dtypes and their promotion.
 */
#include "lib/passes/shapes-int.h"

/* Split the schema into parameters; 0, or -CGS_E_LIMIT for too many. */
int parse_schema(struct cgs_shape_ctx *sc, const char *s)
{
    bool kwonly = false;

    sc->n_params = 0;
    while (*s) {
        const char *end = s, *eq;
        size_t len;
        while (*end && *end != ',')
            end++;
        // a default may hold commas inside brackets
        {
            const char *lb = memchr(s, '[', (size_t)(end - s));
            if (lb && !memchr(lb, ']', (size_t)(end - lb))) {
                while (*end && *end != ']')
                    end++;
                while (*end && *end != ',')
                    end++;
            }
        }
        len = (size_t)(end - s);
        if (len == 1 && *s == '*') {
            kwonly = true;
        } else if (len) {
            if (sc->n_params == MAX_PARAMS)
                return -CGS_E_LIMIT;
            memset(&sc->p[sc->n_params], 0, sizeof(sc->p[0]));
            if (*s == '*') {
                sc->p[sc->n_params].variadic = true;
                s++, len--;
            }
            if (len && *s == '%') {
                sc->p[sc->n_params].promote = true;
                s++, len--;
            }
            if (len && *s == '!') {
                sc->p[sc->n_params].written = true;
                s++, len--;
            }
            eq = memchr(s, '=', len);
            sc->p[sc->n_params].name = s;
            sc->p[sc->n_params].name_len = eq ? (size_t)(eq - s) : len;
            if (eq) {
                sc->p[sc->n_params].def = eq + 1;
                sc->p[sc->n_params].def_len = (size_t)(s + len - eq - 1);
            }
            // keyword-only parameters take no positional argument
            if (kwonly)
                sc->p[sc->n_params].name_len |= (size_t)1 << 62;
            sc->n_params++;
        }
        s = *end ? end + 1 : end;
        while (*s == ' ')
            s++;
    }
    return 0;
}

size_t pname_len(const struct cgs_shape_ctx *sc, uint32_t i)
{
    return sc->p[i].name_len & ~KWONLY_BIT;
}

int bind_args(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_diag *d)
{
    uint32_t pi = 0, ai, k;

    for (ai = 0; ai < n->n_args; ai++) {
        while (pi < sc->n_params && (sc->p[pi].name_len & KWONLY_BIT))
            pi++;
        if (pi >= sc->n_params)
            return cgs_diag_set(d, CGS_E_INVAL, "too many arguments for '%s' (%u given)",
                                sc->op->name, n->n_args);
        if (sc->p[pi].variadic) {
            sc->rest.kind = CGS_ARG_LIST;
            sc->rest.n = n->n_args - ai;
            sc->rest.u.items = n->args + ai;
            if (sc->rest.n == 1 && n->args[ai].kind == CGS_ARG_LIST)
                sc->p[pi].arg = &n->args[ai];
            else
                sc->p[pi].arg = &sc->rest;
            pi++;
            break;
        }
        sc->p[pi++].arg = &n->args[ai];
    }
    for (k = 0; k < n->n_kwargs; k++) {
        const char *key = n->kwargs[k].key;
        size_t klen = strlen(key);
        uint32_t i;
        for (i = 0; i < sc->n_params; i++) {
            if (pname_len(sc, i) == klen && !memcmp(sc->p[i].name, key, klen)) {
                sc->p[i].arg = &n->kwargs[k].val;
                break;
            }
        }
        // torch.* functions take ATen's `self` under the keyword `input`
        if (i == sc->n_params && !strcmp(key, "input")) {
            int j = find_param(sc, "self");
            if (j >= 0)
                sc->p[j].arg = &n->kwargs[k].val;
        }
    }
    return 0;
}

int find_param(const struct cgs_shape_ctx *sc, const char *name)
{
    size_t len = strlen(name);
    uint32_t i;

    for (i = 0; i < sc->n_params; i++)
        if (pname_len(sc, i) == len && !memcmp(sc->p[i].name, name, len))
            return (int)i;
    return -1;
}

/* Parse a schema default ("None", "1", "[1, 1]", "True", "0.5", "'none'") into the arena. */
static const struct cgs_arg *parse_default(struct cgs_shape_ctx *sc, const char *s, size_t len)
{
    struct cgs_arg *a = cgs_arena_alloc(sc->ar, sizeof(*a));
    char buf[128];

    if (len >= sizeof(buf))
        len = sizeof(buf) - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
    if (!strcmp(buf, "None")) {
        a->kind = CGS_ARG_NONE;
    } else if (!strcmp(buf, "True") || !strcmp(buf, "False")) {
        a->kind = CGS_ARG_BOOL;
        a->u.b = buf[0] == 'T';
    } else if (buf[0] == '\'') {
        a->kind = CGS_ARG_STR;
        a->u.s = cgs_arena_strndup(sc->ar, buf + 1, len >= 2 ? len - 2 : 0);
    } else if (buf[0] == '[') {
        struct cgs_arg items[16];
        char *p = buf + 1;
        uint32_t n = 0;
        while (*p && *p != ']' && n < 16) {
            char *e;
            long long v = strtoll(p, &e, 10);
            if (e == p)
                break;
            items[n].kind = CGS_ARG_INT;
            items[n++].u.i = v;
            p = e;
            while (*p == ',' || *p == ' ')
                p++;
        }
        a->kind = CGS_ARG_LIST;
        a->n = n;
        a->u.items = cgs_arena_calloc(sc->ar, n ? n : 1, sizeof(*items));
        memcpy(a->u.items, items, n * sizeof(*items));
    } else if (strpbrk(buf, ".e")) {
        a->kind = CGS_ARG_FLOAT;
        a->u.f = strtod(buf, NULL);
    } else {
        a->kind = CGS_ARG_INT;
        a->u.i = strtoll(buf, NULL, 10);
    }
    return a;
}

/* The argument bound to a parameter, or its default; NULL when neither. */
const struct cgs_arg *A(struct cgs_shape_ctx *sc, const char *name)
{
    int i = find_param(sc, name);

    if (i < 0)
        return NULL;
    return Ai(sc, (uint32_t)i);
}

/* The argument at position i of the schema (bound or default). */
const struct cgs_arg *Ai(struct cgs_shape_ctx *sc, uint32_t i)
{
    if (i >= sc->n_params)
        return NULL;
    if (sc->p[i].arg)
        return sc->p[i].arg;
    if (!sc->p[i].def)
        return NULL;
    if (!sc->p[i].def_arg) {
        sc->p[i].def_arg = parse_default(sc, sc->p[i].def, sc->p[i].def_len);
        sc->schema->p[i].def_arg = sc->p[i].def_arg;
    }
    return sc->p[i].def_arg;
}

bool is_none(const struct cgs_arg *a) { return !a || a->kind == CGS_ARG_NONE; }

const struct cgs_val *node_val(const struct cgs_shape_ctx *sc, const struct cgs_arg *a)
{
    if (!a || a->kind != CGS_ARG_NODE || !a->u.node)
        return NULL;
    return sc->vals[a->u.node->index];
}

/*
 * A tensor argument: 0 with *t set (fully known), 1 when None or absent,
 * -CGS_E_UNKNOWN when not known (yet), -CGS_E_INVAL when not a tensor.
 */
int arg_tensor(struct cgs_shape_ctx *sc, const struct cgs_arg *a,
               const struct cgs_tensor **t)
{
    const struct cgs_val *v;

    *t = NULL;
    if (is_none(a))
        return 1;
    if (a->kind != CGS_ARG_NODE)
        return -CGS_E_INVAL;
    v = node_val(sc, a);
    if (!v)
        return -CGS_E_UNKNOWN;
    if (v->kind == CGS_VAL_NONE)
        return 1;
    if (v->kind != CGS_VAL_TENSOR)
        return -CGS_E_INVAL;
    *t = &v->u.t;
    return tensor_known(*t) ? 0 : -CGS_E_UNKNOWN;
}

/* A tensor parameter that must be there: 0, or an error code with d filled. */
int need_tensor(struct cgs_shape_ctx *sc, const char *name, const struct cgs_tensor **t,
                struct cgs_diag *d)
{
    int rc = arg_tensor(sc, A(sc, name), t);

    if (rc == 0)
        return 0;
    if (rc == -CGS_E_UNKNOWN)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "input '%s' is not known", name);
    return cgs_diag_set(d, CGS_E_INVAL, "argument '%s' is not a tensor", name);
}

/* An integer (possibly symbolic) from an argument; 0, 1 for None, or -CGS_E_*. */
int int_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *out)
{
    const struct cgs_val *v;

    *out = NULL;
    if (is_none(a))
        return 1;
    switch (a->kind) {
    case CGS_ARG_INT:
        *out = K(sc, a->u.i);
        return 0;
    case CGS_ARG_BOOL:
        *out = K(sc, a->u.b);
        return 0;
    case CGS_ARG_SYM:
        *out = a->u.sym;
        return 0;
    case CGS_ARG_FLOAT:
        // integers past 2**53 reach JSON readers as floats (slice ends of sys.maxsize)
        if (a->u.f >= 9.2e18) {
            *out = K(sc, INT64_MAX);
            return 0;
        }
        if (a->u.f <= -9.2e18) {
            *out = K(sc, INT64_MIN);
            return 0;
        }
        return -CGS_E_INVAL;
    case CGS_ARG_NODE:
        v = node_val(sc, a);
        if (!v)
            return -CGS_E_UNKNOWN;
        if (v->kind == CGS_VAL_SYMINT && v->u.s.sym) {
            *out = v->u.s.sym;
            return 0;
        }
        if (v->kind == CGS_VAL_INT) {
            *out = K(sc, v->u.i);
            return 0;
        }
        if (v->kind == CGS_VAL_BOOL) {
            *out = K(sc, v->u.b);
            return 0;
        }
        return v->kind == CGS_VAL_SYMINT ? -CGS_E_UNKNOWN : -CGS_E_INVAL;
    default:
        return -CGS_E_INVAL;
    }
}

/* A constant integer; false when absent, None, symbolic or not an int. */
bool int_const(struct cgs_shape_ctx *sc, const struct cgs_arg *a, int64_t *v)
{
    sym_t e;

    return int_of(sc, a, &e) == 0 && cgs_sym_is_int(e, v);
}

/*
 * A list of integers: a LIST of ints/SymInts, a node whose value is a list
 * (a torch.Size), or a single int (n = 1, the caller repeats it).
 * 0, 1 for None, -CGS_E_UNKNOWN, -CGS_E_INVAL or -CGS_E_LIMIT.
 */
int ints_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *out, uint32_t *n)
{
    const struct cgs_val *v;
    uint32_t i;
    int rc;

    *n = 0;
    if (is_none(a))
        return 1;
    if (a->kind == CGS_ARG_LIST) {
        if (a->n > NDIM_MAX)
            return -CGS_E_LIMIT;
        // view(*size) called as view(torch.Size node)
        if (a->n == 1 && a->u.items[0].kind == CGS_ARG_NODE) {
            v = node_val(sc, &a->u.items[0]);
            if (v && v->kind == CGS_VAL_LIST)
                return ints_of(sc, &a->u.items[0], out, n);
        }
        for (i = 0; i < a->n; i++) {
            rc = int_of(sc, &a->u.items[i], &out[i]);
            if (rc)
                return rc < 0 ? rc : -CGS_E_INVAL;
        }
        *n = a->n;
        return 0;
    }
    if (a->kind == CGS_ARG_NODE) {
        v = node_val(sc, a);
        if (!v)
            return -CGS_E_UNKNOWN;
        if (v->kind == CGS_VAL_LIST) {
            if (v->n > NDIM_MAX)
                return -CGS_E_LIMIT;
            for (i = 0; i < v->n; i++) {
                const struct cgs_val *it = &v->u.items[i];
                if (it->kind == CGS_VAL_INT)
                    out[i] = K(sc, it->u.i);
                else if (it->kind == CGS_VAL_SYMINT && it->u.s.sym)
                    out[i] = it->u.s.sym;
                else
                    return -CGS_E_UNKNOWN;
            }
            *n = v->n;
            return 0;
        }
    }
    rc = int_of(sc, a, &out[0]);
    if (rc == 0)
        *n = 1;
    return rc;
}

bool bool_of(const struct cgs_arg *a, bool def)
{
    if (!a)
        return def;
    if (a->kind == CGS_ARG_BOOL)
        return a->u.b;
    if (a->kind == CGS_ARG_INT)
        return a->u.i != 0;
    return def;
}

enum cgs_dtype dtype_of(const struct cgs_arg *a)
{
    return a && a->kind == CGS_ARG_DTYPE ? a->u.dtype : CGS_DTYPE_UNKNOWN;
}

const char *str_of(const struct cgs_arg *a)
{
    if (!a)
        return NULL;
    switch (a->kind) {
    case CGS_ARG_STR:
    case CGS_ARG_MEMFMT:
    case CGS_ARG_DEVICE:
    case CGS_ARG_LAYOUT:
        return a->u.s;
    default:
        return NULL;
    }
}

/* Wrap a possibly negative dim into [0, rank); false when out of range. */
bool wrap_dim(int64_t dim, uint32_t rank, uint32_t *out)
{
    int64_t r = rank ? rank : 1;

    if (dim < 0)
        dim += r;
    if (dim < 0 || dim >= r)
        return false;
    *out = (uint32_t)dim;
    return true;
}

int dim_arg(struct cgs_shape_ctx *sc, const char *name, uint32_t rank, uint32_t *out,
            struct cgs_diag *d)
{
    int64_t v;

    if (!int_const(sc, A(sc, name), &v))
        return cgs_diag_set(d, CGS_E_INVAL, "argument '%s' is not a constant int", name);
    if (!wrap_dim(v, rank, out))
        return cgs_diag_set(d, CGS_E_INVAL, "dimension %lld out of range for rank %u", (long long)v,
                            rank);
    return 0;
}

int dt_cat(enum cgs_dtype t)
{
    switch (cgs_dtypes[t].kind) {
    case 'B':
        return 0;
    case 'U':
    case 'I':
        return 1;
    case 'F':
        return 2;
    case 'C':
        return 3;
    default:
        return -1;
    }
}

static enum cgs_dtype promote2(enum cgs_dtype a, enum cgs_dtype b)
{
    int ca, cb;

    if (a == CGS_DTYPE_UNKNOWN)
        return b;
    if (b == CGS_DTYPE_UNKNOWN || a == b)
        return a;
    ca = dt_cat(a), cb = dt_cat(b);
    if (ca != cb)
        return ca > cb ? a : b;
    if (ca == 1) {
        bool ua = cgs_dtypes[a].kind == 'U', ub = cgs_dtypes[b].kind == 'U';
        if (ua != ub) {
            enum cgs_dtype s = ua ? b : a, u = ua ? a : b;
            if (cgs_dtypes[s].itemsize > cgs_dtypes[u].itemsize)
                return s;
            return cgs_dtypes[u].itemsize >= 4   ? CGS_DTYPE_INT64
                   : cgs_dtypes[u].itemsize == 2 ? CGS_DTYPE_INT32
                                                 : CGS_DTYPE_INT16;
        }
    }
    if ((a == CGS_DTYPE_FLOAT16 && b == CGS_DTYPE_BFLOAT16) ||
        (b == CGS_DTYPE_FLOAT16 && a == CGS_DTYPE_BFLOAT16))
        return CGS_DTYPE_FLOAT32;
    return cgs_dtypes[a].itemsize >= cgs_dtypes[b].itemsize ? a : b;
}

/* One operand of an elementwise op: a tensor or a Python scalar. */

/* 0, 1 for None/absent, -CGS_E_UNKNOWN, -CGS_E_INVAL. */
/* A Python complex literal as FX prints one (`(0.5+0j)`, `1j`, `(-0-2.5j)`, `(nan+infj)`):
 * graphs carry complex scalars only as such a repr. */
static bool complex_repr(const char *s)
{
    bool paren = *s == '(';
    char *end;

    s += paren;
    if (*s == '-' || *s == '+')
        s++;
    if (!strncmp(s, "nan", 3) || !strncmp(s, "inf", 3))
        s += 3;
    else if (strtod(s, &end), end != s)
        s = end;
    else
        return false;
    if (*s == 'j')
        return paren ? !strcmp(s, "j)") : !strcmp(s, "j");
    if (!paren || (*s != '+' && *s != '-'))
        return false;
    s++;
    if (!strncmp(s, "nan", 3) || !strncmp(s, "inf", 3))
        s += 3;
    else if (strtod(s, &end), end != s)
        s = end;
    else
        return false;
    return !strcmp(s, "j)");
}

int operand_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, struct operand *o)
{
    const struct cgs_val *v;

    memset(o, 0, sizeof(*o));
    if (is_none(a))
        return 1;
    switch (a->kind) {
    case CGS_ARG_BOOL:
        o->scalar = CGS_DTYPE_BOOL;
        o->sym = K(sc, a->u.b);
        return 0;
    case CGS_ARG_INT:
        o->scalar = CGS_DTYPE_INT64;
        o->sym = K(sc, a->u.i);
        return 0;
    case CGS_ARG_SYM:
        o->scalar = CGS_DTYPE_INT64;
        o->sym = a->u.sym;
        return 0;
    case CGS_ARG_FLOAT:
        o->scalar = CGS_DTYPE_FLOAT32;
        o->f = a->u.f;
        return 0;
    case CGS_ARG_REPR:
        if (!a->u.s || !complex_repr(a->u.s))
            return -CGS_E_INVAL;
        o->scalar = CGS_DTYPE_COMPLEX64;
        return 0;
    case CGS_ARG_NODE:
        v = node_val(sc, a);
        if (!v)
            return -CGS_E_UNKNOWN;
        switch (v->kind) {
        case CGS_VAL_TENSOR:
            o->t = &v->u.t;
            return tensor_known(o->t) ? 0 : -CGS_E_UNKNOWN;
        case CGS_VAL_SYMINT:
            o->scalar = CGS_DTYPE_INT64;
            o->sym = v->u.s.sym;
            return 0;
        case CGS_VAL_INT:
            o->scalar = CGS_DTYPE_INT64;
            o->sym = K(sc, v->u.i);
            return 0;
        case CGS_VAL_SYMFLOAT:
            o->scalar = CGS_DTYPE_FLOAT32;
            o->f = v->u.s.fhint;
            return 0;
        case CGS_VAL_FLOAT:
            o->scalar = CGS_DTYPE_FLOAT32;
            o->f = v->u.f;
            return 0;
        case CGS_VAL_SYMBOOL:
        case CGS_VAL_BOOL:
            o->scalar = CGS_DTYPE_BOOL;
            return 0;
        default:
            return -CGS_E_INVAL;
        }
    default:
        return -CGS_E_INVAL;
    }
}

/* torch.result_type over operands: dimensioned tensors, then 0-dim ones, then scalars. */
enum cgs_dtype result_type(const struct operand *o, uint32_t n)
{
    enum cgs_dtype dim = CGS_DTYPE_UNKNOWN, zero = CGS_DTYPE_UNKNOWN, wrapped = CGS_DTYPE_UNKNOWN;
    enum cgs_dtype hi, lo;
    uint32_t i;
    int pass;

    for (i = 0; i < n; i++) {
        if (o[i].t && o[i].t->ndim > 0)
            dim = promote2(dim, o[i].t->dtype);
        else if (o[i].t)
            zero = promote2(zero, o[i].t->dtype);
        else
            wrapped = promote2(wrapped, o[i].scalar);
    }
    // combine_categories(dim, combine_categories(zero, wrapped))
    hi = zero, lo = wrapped;
    for (pass = 0; pass < 2; pass++) {
        enum cgs_dtype r;
        if (hi != CGS_DTYPE_UNKNOWN && dt_cat(hi) == 3)
            r = hi;
        else if (lo != CGS_DTYPE_UNKNOWN && dt_cat(lo) == 3)
            r = (hi != CGS_DTYPE_UNKNOWN && dt_cat(hi) == 2)
                    ? (hi == CGS_DTYPE_FLOAT64 ? CGS_DTYPE_COMPLEX128 : CGS_DTYPE_COMPLEX64)
                    : lo;
        else if (hi != CGS_DTYPE_UNKNOWN && dt_cat(hi) == 2)
            r = hi;
        else if (hi == CGS_DTYPE_BOOL || (lo != CGS_DTYPE_UNKNOWN && dt_cat(lo) == 2))
            r = promote2(hi, lo);
        else if (hi != CGS_DTYPE_UNKNOWN)
            r = hi;
        else
            r = lo;
        if (pass == 0)
            hi = dim, lo = r;
        else
            return r;
    }
    return CGS_DTYPE_UNKNOWN;
}

bool is_float_like(enum cgs_dtype t) { return t != CGS_DTYPE_UNKNOWN && dt_cat(t) >= 2; }
