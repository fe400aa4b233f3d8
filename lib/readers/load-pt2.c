/*
 * The torch.export .pt2 reader (PyTorch 2.11): a zip archive whose records
 * all sit under one top folder, the archive's name:
 *
 *   ROOT/archive_format        "pt2"
 *   ROOT/archive_version       "0"
 *   ROOT/models/NAME.json      the serialized ExportedProgram (schema 8.x)
 *   ROOT/data/...              weights, constants, sample inputs: never read
 *
 * The model JSON becomes the graph torch.export's ep.graph_module shows:
 * placeholders from graph.inputs, one call_function per serialized node
 * (a get_attr and a subgraph before it for each nested graph argument), an
 * operator.getitem after a multi-output node for each output that had a user,
 * and the output node. See docs (notes/pt2.md) for the whole mapping.
 *
 * Like the JSON reader, only one node's cJSON tree is alive at a time: a
 * small scanner finds the extent of each member and array element, and
 * cJSON parses just that piece. No cJSON or libzip pointer leaves this file.
 */
#include "lib/readers/load.h"

#include "lib/base/strmap.h"
#include "lib/readers/json-scan.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "lib/readers/zip-api.h"

/* Record names, as torch/csrc/export/pt2_archive_constants.h spells them. */
#define ARCHIVE_FORMAT_PATH "archive_format"
#define ARCHIVE_FORMAT_VALUE "pt2"
#define ARCHIVE_VERSION_PATH "archive_version"
#define ARCHIVE_VERSION_VALUE "0"
#define MODELS_DIR "models/"
#define MODELS_SUFFIX ".json" /* MODELS_FILENAME_FORMAT "models/{}.json" */

#define PT2_MAX_GRAPH_DEPTH 16 /* nesting of subgraphs in subgraphs */
#define PT2_MAX_SMALL_RECORD 4096

/* ---- the loader's state ---------------------------------------------------------- */


struct pt2 {
    const char *file;  /* the .pt2 path */
    char *entry;       /* "ROOT/models/NAME.json" (heap) */
    const char *buf;   /* the model JSON */
    size_t len;
    struct cgs_diag *d;
    struct cgs_graph *root;
    char path[200];    /* JSON path of what is being read */
    size_t path_len;
    size_t piece;      /* offset of the piece being converted, for line:col */
    struct cgs_jscan js;
};

static int fail_at(struct pt2 *P, size_t off, int code, const char *fmt, ...) CGS_PRINTF(4, 5);

/*
 * An error inside the model JSON: "FILE: error: MSG (at ENTRY:LINE:COL, PATH)".
 * The .pt2 is the file; the place inside it is the record and its line:col.
 */
static int fail_at(struct pt2 *P, size_t off, int code, const char *fmt, ...)
{
    va_list ap;
    uint32_t line, col;
    if (!P->d)
        return -code;
    P->d->code = code;
    va_start(ap, fmt);
    vsnprintf(P->d->msg, sizeof(P->d->msg), fmt, ap);
    va_end(ap);
    cgs_diag_at(P->d, P->file, 0, 0);
    cgs_text_position(P->buf, P->len, off, &line, &col);
    snprintf(P->d->path, sizeof(P->d->path), "%s:%u:%u%s%s", P->entry, line, col,
             P->path[0] ? ", " : "", P->path);
    return -code;
}

/* An error about the current piece (a node, a tensor value, ...). */
#define FAIL(P, code, ...) fail_at((P), (P)->piece, (code), __VA_ARGS__)

static size_t path_push(struct pt2 *P, const char *fmt, ...) CGS_PRINTF(2, 3);

static size_t path_push(struct pt2 *P, const char *fmt, ...)
{
    size_t old = P->path_len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(P->path + old, sizeof(P->path) - old, fmt, ap);
    va_end(ap);
    if (n > 0)
        P->path_len = old + (size_t)n < sizeof(P->path) ? old + (size_t)n : sizeof(P->path) - 1;
    return old;
}

static void path_pop(struct pt2 *P, size_t old)
{
    P->path_len = old;
    P->path[old] = '\0';
}

/* ---- the scanner (lib/readers/json-scan.c), its errors as the reader's -------------------- */

static size_t skip_ws(const struct pt2 *P, size_t p)
{
    return cgs_jscan_ws(&P->js, p);
}

static const char *what_at(struct pt2 *P, size_t p)
{
    return cgs_jscan_what(&P->js, p);
}

static int scan_error(struct pt2 *P, int err)
{
    return fail_at(P, P->js.err_off, -err, "%s", P->js.err_msg);
}

static int scan_value(struct pt2 *P, size_t p, size_t *end)
{
    int err = cgs_jscan_value(&P->js, p, end);
    return err ? scan_error(P, err) : 0;
}

static int scan_string(struct pt2 *P, size_t p, size_t *end)
{
    int err = cgs_jscan_string(&P->js, p, end);
    return err ? scan_error(P, err) : 0;
}

/* Iteration over the members of an object or the elements of an array in the text. */
struct jiter {
    size_t p;
    bool obj, started;
};

static int jiter_begin(struct pt2 *P, size_t start, bool obj, struct jiter *it, const char *what)
{
    size_t p = skip_ws(P, start);
    if (p >= P->len || P->buf[p] != (obj ? '{' : '['))
        return fail_at(P, p, CGS_E_SCHEMA, "expected %s for %s, got %s",
                       obj ? "an object" : "an array", what, what_at(P, p));
    it->p = p + 1;
    it->obj = obj;
    it->started = false;
    return 0;
}

/*
 * The next member: 1 with [*kstart, *kend) the key's JSON string (objects)
 * and [*vstart, *vend) the value; 0 at the end; negative on error. The text
 * was checked by scan_value beforehand.
 */
static int jiter_next(struct pt2 *P, struct jiter *it, size_t *kstart, size_t *kend,
                      size_t *vstart, size_t *vend)
{
    size_t p = skip_ws(P, it->p);
    int err;
    if (p < P->len && P->buf[p] == (it->obj ? '}' : ']'))
        return 0;
    if (it->started) {
        if (p >= P->len || P->buf[p] != ',')
            return fail_at(P, p, CGS_E_PARSE, "malformed JSON: expected ','");
        p = skip_ws(P, p + 1);
    }
    it->started = true;
    if (it->obj) {
        *kstart = p;
        if ((err = scan_string(P, p, kend)))
            return err;
        p = skip_ws(P, *kend);
        if (p >= P->len || P->buf[p] != ':')
            return fail_at(P, p, CGS_E_PARSE, "malformed JSON: expected ':'");
        p = skip_ws(P, p + 1);
    }
    *vstart = p;
    if ((err = scan_value(P, p, vend)))
        return err;
    it->p = *vend;
    return 1;
}

static bool key_is(const struct pt2 *P, size_t kstart, size_t kend, const char *k)
{
    size_t n = strlen(k);
    return kend - kstart == n + 2 && !memcmp(P->buf + kstart + 1, k, n);
}

/* The tree of the piece [start, end) (caller deletes): the JSON core's, whose numbers keep
 * their text (integers exact past 2^53, lib/readers/json-scan.h). */
static cJSON *parse_piece(struct pt2 *P, size_t start, size_t end, int *err)
{
    struct cgs_json_error e = {0};
    cJSON *x = cgs_json_parse(P->buf + start, end - start, &e);
    P->piece = start;
    if (!x)
        *err = fail_at(P, start + e.off, e.code ? e.code : CGS_E_PARSE, "%s", e.msg);
    return x;
}

/* A member's key, interned in the graph. */
static const char *member_key(struct pt2 *P, size_t kstart, size_t kend)
{
    const char *s;
    if (!memchr(P->buf + kstart + 1, '\\', kend - kstart - 2)) {
        char *tmp = cgs_xmalloc(kend - kstart - 1);
        memcpy(tmp, P->buf + kstart + 1, kend - kstart - 2);
        tmp[kend - kstart - 2] = '\0';
        s = cgs_graph_intern(P->root, tmp);
        free(tmp);
        return s;
    }
    cJSON *k = cgs_json_parse(P->buf + kstart, kend - kstart, NULL);
    s = cgs_graph_intern(P->root, cJSON_IsString(k) ? k->valuestring : "?");
    cJSON_Delete(k);
    return s;
}

/*
 * A JSON array or object to walk, either in the text (one element parsed at
 * a time) or inside an already parsed cJSON tree (a nested graph).
 */
struct jsrc {
    bool present;
    bool text;
    size_t start;    /* text */
    const cJSON *x;  /* parsed */
};

struct jcursor {
    const struct jsrc *src;
    struct jiter it;
    const cJSON *cur;
    cJSON *owned;
};

static int cursor_begin(struct pt2 *P, const struct jsrc *src, bool obj, struct jcursor *c,
                        const char *what)
{
    memset(c, 0, sizeof(*c));
    c->src = src;
    if (!src->present)
        return 0;
    if (src->text)
        return jiter_begin(P, src->start, obj, &c->it, what);
    if (obj ? !cJSON_IsObject(src->x) : !cJSON_IsArray(src->x))
        return FAIL(P, CGS_E_SCHEMA, "expected %s for %s", obj ? "an object" : "an array", what);
    c->cur = src->x->child;
    return 0;
}

/* The next element: 1 with *item (and *key for objects), 0 at the end, < 0 on error. */
static int cursor_next(struct pt2 *P, struct jcursor *c, const cJSON **item, const char **key)
{
    int r, err = 0;
    cJSON_Delete(c->owned);
    c->owned = NULL;
    if (!c->src->present)
        return 0;
    if (!c->src->text) {
        if (!c->cur)
            return 0;
        *item = c->cur;
        if (key)
            *key = c->cur->string;
        c->cur = c->cur->next;
        return 1;
    }
    size_t ks = 0, ke = 0, vs, ve;
    r = jiter_next(P, &c->it, &ks, &ke, &vs, &ve);
    if (r <= 0)
        return r;
    if (key)
        *key = member_key(P, ks, ke);
    c->owned = parse_piece(P, vs, ve, &err);
    if (!c->owned)
        return err;
    *item = c->owned;
    return 1;
}

static void cursor_end(struct jcursor *c)
{
    cJSON_Delete(c->owned);
    c->owned = NULL;
}

/* ---- small helpers ----------------------------------------------------------------- */

static const cJSON *get(const cJSON *x, const char *key)
{
    return cJSON_IsObject(x) ? cJSON_GetObjectItemCaseSensitive(x, key) : NULL;
}

static const char *get_str(const cJSON *x, const char *key)
{
    const cJSON *v = get(x, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The one key of a tagged union ({"as_tensor": {...}}); NULL when x is not one. */
static const cJSON *union_item(const cJSON *x)
{
    if (!cJSON_IsObject(x) || !x->child || x->child->next)
        return NULL;
    return x->child;
}

static bool json_int(const cJSON *x, int64_t *v)
{
    if (!cJSON_IsNumber(x))
        return false;
    if (cgs_json_number_is_int(x))
        return cgs_json_number_int(x, v); /* from its text: exact, and false past int64 */
    double d = x->valuedouble;
    // sys.maxsize (9223372036854775807, torch's "to the end" of a slice) rounds to 2**63 as
    // a double: it is read back as INT64_MAX
    if (d == 9223372036854775808.0) {
        *v = INT64_MAX;
        return true;
    }
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != floor(d))
        return false;
    *v = (int64_t)d;
    return true;
}

/* A float in torch's JSON: a number, or "Infinity", "-Infinity", "NaN". */
static bool json_float(const cJSON *x, double *v)
{
    if (cJSON_IsNumber(x)) {
        *v = x->valuedouble;
        return true;
    }
    if (!cJSON_IsString(x))
        return false;
    if (!strcmp(x->valuestring, "Infinity"))
        *v = (double)INFINITY;
    else if (!strcmp(x->valuestring, "-Infinity"))
        *v = -(double)INFINITY;
    else if (!strcmp(x->valuestring, "NaN"))
        *v = (double)NAN;
    else
        return false;
    return true;
}

/* torch.export's ScalarType enum (schema.py) to our dtypes: lib/ir/dtype-list.h has the numbers. */
static enum cgs_dtype dtype_from_enum(int64_t e)
{
    static const struct {
        int64_t number;
        enum cgs_dtype dtype;
    } numbers[] = {
#define DT(en, nm, size, k, ex) {ex, CGS_DTYPE_##en},
#include "lib/ir/dtype-list.h"
#undef DT
    };
    for (size_t i = 0; e > 0 && i < sizeof(numbers) / sizeof(numbers[0]); i++)
        if (numbers[i].number == e)
            return numbers[i].dtype;
    return CGS_DTYPE_UNKNOWN;
}

static const char *layout_name(int64_t e)
{
    static const char *const names[8] = {NULL, "sparse_coo", "sparse_csr", "sparse_csc",
                                          "sparse_bsr", "sparse_bsc", "_mkldnn", "strided"};
    return e >= 1 && e <= 7 ? names[e] : NULL;
}

static const char *memfmt_name(int64_t e)
{
    static const char *const names[5] = {NULL, "contiguous_format", "channels_last",
                                          "channels_last_3d", "preserve_format"};
    return e >= 1 && e <= 4 ? names[e] : NULL;
}

/* "cpu", "cuda:0" from {"type", "index"}; NULL when malformed. */
static const char *device_string(struct cgs_graph *g, const cJSON *x)
{
    const char *type = get_str(x, "type");
    const cJSON *idx = get(x, "index");
    int64_t i;
    char buf[160];
    if (!type)
        return NULL;
    if (!idx || cJSON_IsNull(idx))
        return cgs_graph_intern(g, type);
    if (!json_int(idx, &i))
        return NULL;
    snprintf(buf, sizeof(buf), "%.120s:%lld", type, (long long)i);
    return cgs_graph_intern(g, buf);
}

/* The IR's spelling of a serialized target: "torch.ops.aten.add.Tensor" -> "aten.add.Tensor". */
static const char *target_name(struct cgs_graph *g, const char *t)
{
    char buf[512];
    if (!strncmp(t, "torch.ops.", 10))
        return cgs_graph_intern(g, t + 10);
    if (!strncmp(t, "_operator.", 10)) {
        snprintf(buf, sizeof(buf), "operator.%s", t + 10);
        return cgs_graph_intern(g, buf);
    }
    return cgs_graph_intern(g, t);
}

/* A node name not yet taken in g: base, base_1, base_2, ... (FX's rule). */
static const char *unique_name(struct cgs_graph *g, const char *base, char *buf, size_t n)
{
    snprintf(buf, n, "%s", base);
    for (unsigned i = 1; cgs_graph_find(g, buf); i++)
        snprintf(buf, n, "%s_%u", base, i);
    return buf;
}

/* ---- sympy srepr -> symbolic expressions -------------------------------------------- */

/*
 * torch writes symbolic sizes with sympy's srepr:
 *   Mul(Integer(384), Symbol('s27', positive=True, integer=True))
 * Calls of a known function name, Integer(n), Symbol('name', flags...),
 * Rational(p, q). Depth-limited recursive descent (expressions are small).
 */
struct srepr {
    const char *s;
    size_t p;
    struct cgs_graph *g;
    char err[160];
    int depth;
};

static void sr_ws(struct srepr *R)
{
    while (R->s[R->p] == ' ')
        R->p++;
}

static bool sr_eat(struct srepr *R, char c)
{
    sr_ws(R);
    if (R->s[R->p] != c)
        return false;
    R->p++;
    return true;
}

static size_t sr_ident(struct srepr *R, const char **start)
{
    size_t b;
    sr_ws(R);
    b = R->p;
    while ((R->s[R->p] >= 'a' && R->s[R->p] <= 'z') || (R->s[R->p] >= 'A' && R->s[R->p] <= 'Z') ||
           (R->s[R->p] >= '0' && R->s[R->p] <= '9' && R->p > b) || R->s[R->p] == '_')
        R->p++;
    *start = R->s + b;
    return R->p - b;
}

static bool sr_int(struct srepr *R, int64_t *v)
{
    char *end;
    sr_ws(R);
    errno = 0;
    long long x = strtoll(R->s + R->p, &end, 10);
    if (end == R->s + R->p || errno == ERANGE)
        return false;
    R->p = (size_t)(end - R->s);
    *v = x;
    return true;
}

static const struct cgs_sym *sr_fail(struct srepr *R, const char *msg)
{
    snprintf(R->err, sizeof(R->err), "%s", msg);
    return NULL;
}

static const struct cgs_sym *sr_expr(struct srepr *R);

/* Skip keyword flags (", positive=True, integer=True") up to the closing ')'. */
static bool sr_skip_flags(struct srepr *R)
{
    while (sr_eat(R, ',')) {
        const char *id;
        size_t n = sr_ident(R, &id);
        if (!n || !sr_eat(R, '='))
            return false;
        n = sr_ident(R, &id);
        if (!n)
            return false;
    }
    return sr_eat(R, ')');
}

static const struct cgs_sym *sr_call(struct srepr *R, const char *name, size_t n)
{
    struct cgs_symctx *ctx = R->g->syms;
    const struct cgs_sym *args[64];
    int na = 0;
    int64_t v;

#define IS(k) (n == strlen(k) && !memcmp(name, k, n))
    if (IS("Integer")) {
        if (!sr_int(R, &v) || !sr_eat(R, ')'))
            return sr_fail(R, "expected Integer(n)");
        return cgs_sym_int(ctx, v);
    }
    if (IS("Symbol")) {
        char sym[128];
        size_t b;
        sr_ws(R);
        if (R->s[R->p] != '\'')
            return sr_fail(R, "expected Symbol('name')");
        b = ++R->p;
        while (R->s[R->p] && R->s[R->p] != '\'')
            R->p++;
        if (!R->s[R->p] || R->p - b == 0 || R->p - b >= sizeof(sym))
            return sr_fail(R, "bad symbol name");
        memcpy(sym, R->s + b, R->p - b);
        sym[R->p - b] = '\0';
        R->p++;
        if (!sr_skip_flags(R))
            return sr_fail(R, "bad Symbol flags");
        return cgs_graph_add_symbol(R->g, sym)->sym;
    }
    /* a function of expressions */
    if (!sr_eat(R, ')')) {
        do {
            if (na == 64)
                return sr_fail(R, "more than 64 arguments to a function");
            if (!(args[na++] = sr_expr(R)))
                return NULL;
        } while (sr_eat(R, ','));
        if (!sr_eat(R, ')'))
            return sr_fail(R, "expected ')'");
    }
    const struct cgs_sym *r = NULL;
    if (IS("Add") || IS("Mul") || IS("Max") || IS("Min")) {
        if (!na)
            return sr_fail(R, "no arguments to Add, Mul, Max or Min");
        r = args[0];
        for (int i = 1; i < na && r; i++)
            r = IS("Add")   ? cgs_sym_add(ctx, r, args[i])
                : IS("Mul") ? cgs_sym_mul(ctx, r, args[i])
                : IS("Max") ? cgs_sym_max(ctx, r, args[i])
                            : cgs_sym_min(ctx, r, args[i]);
    } else if (na == 2 && IS("Pow")) {
        int64_t e;
        if (!cgs_sym_is_int(args[1], &e) || e < 0)
            return sr_fail(R, "unsupported exponent in Pow");
        r = cgs_sym_pow(ctx, args[0], e);
    } else if (na == 2 && (IS("FloorDiv") || IS("CleanDiv"))) {
        r = cgs_sym_floordiv(ctx, args[0], args[1]);
    } else if (na == 2 && IS("CeilDiv")) {
        const struct cgs_sym *t = cgs_sym_add(ctx, args[0], cgs_sym_add_int(ctx, args[1], -1));
        r = t ? cgs_sym_floordiv(ctx, t, args[1]) : NULL;
    } else if (na == 2 && (IS("Mod") || IS("PythonMod"))) {
        r = cgs_sym_mod(ctx, args[0], args[1]);
    } else if (na == 2 && (IS("IntTrueDiv") || IS("Rational"))) {
        r = cgs_sym_truediv(ctx, args[0], args[1]);
    } else if (na == 1 && IS("CeilToInt")) {
        r = cgs_sym_ceil(ctx, args[0]);
    } else if (na == 1 && IS("Identity")) {
        r = args[0];
    } else {
        snprintf(R->err, sizeof(R->err), "unsupported function '%.*s' with %d argument%s",
                 (int)(n > 60 ? 60 : n), name, na, na == 1 ? "" : "s");
        return NULL;
    }
#undef IS
    if (!r)
        snprintf(R->err, sizeof(R->err), "%s", ctx->err == -CGS_E_LIMIT ? "integer overflow"
                                                                            : "division by zero");
    return r;
}

static const struct cgs_sym *sr_expr(struct srepr *R)
{
    const char *id;
    size_t n;
    const struct cgs_sym *r;
    int64_t v;

    if (++R->depth > CGS_LOAD_MAX_DEPTH) {
        snprintf(R->err, sizeof(R->err), "expression nested deeper than %d levels",
                 CGS_LOAD_MAX_DEPTH);
        return NULL;
    }
    sr_ws(R);
    if ((R->s[R->p] >= '0' && R->s[R->p] <= '9') || R->s[R->p] == '-') {
        if (!sr_int(R, &v)) {
            snprintf(R->err, sizeof(R->err), "bad integer");
            return NULL;
        }
        r = cgs_sym_int(R->g->syms, v);
    } else {
        n = sr_ident(R, &id);
        if (!n || !sr_eat(R, '(')) {
            snprintf(R->err, sizeof(R->err), "expected a sympy call at offset %zu", R->p);
            return NULL;
        }
        r = sr_call(R, id, n);
    }
    R->depth--;
    return r;
}

/* Parse srepr text; NULL with why (size n) when it cannot be expressed. */
static const struct cgs_sym *parse_srepr(struct cgs_graph *g, const char *s, char *why, size_t n)
{
    struct srepr R = {s, 0, g, "", 0};
    const struct cgs_sym *e = sr_expr(&R);
    if (e) {
        sr_ws(&R);
        if (R.s[R.p]) {
            snprintf(R.err, sizeof(R.err), "unexpected text after the expression");
            e = NULL;
        }
    }
    if (!e)
        snprintf(why, n, "%s", R.err[0] ? R.err : "bad expression");
    return e;
}

/* ---- values ----------------------------------------------------------------------------- */


/*
 * A serialized SymInt ({"as_int": n} or {"as_expr": {"expr_str", "hint"}})
 * as an expression; NULL (with why) when it cannot be expressed. A plain
 * symbol's hint becomes the symbol's hint.
 */
static const struct cgs_sym *sym_int(struct pt2 *P, struct cgs_graph *g, const cJSON *x,
                                     bool *has_hint, int64_t *hint, char *why, size_t n)
{
    const cJSON *u = union_item(x);
    int64_t v;
    *has_hint = false;
    if (u && !strcmp(u->string, "as_int") && json_int(u, &v)) {
        if (v > CGS_LOAD_MAX_DIM || v < -CGS_LOAD_MAX_DIM) {
            snprintf(why, n, "size %lld is past the limit of 2^62", (long long)v);
            return NULL;
        }
        *has_hint = true;
        *hint = v;
        return cgs_sym_int(g->syms, v);
    }
    if (u && !strcmp(u->string, "as_expr")) {
        const char *s = get_str(u, "expr_str");
        const cJSON *h = union_item(get(u, "hint"));
        const struct cgs_sym *e;
        if (!s) {
            snprintf(why, n, "'as_expr' without 'expr_str'");
            return NULL;
        }
        e = parse_srepr(g, s, why, n);
        if (h && !strcmp(h->string, "as_int") && json_int(h, hint))
            *has_hint = true;
        if (e && *has_hint && e->kind == CGS_SYM_VAR) {
            struct cgs_symbol *sym = cgs_graph_add_symbol(g, e->name);
            if (!sym->has_hint) {
                sym->has_hint = true;
                sym->hint = *hint;
            }
        }
        return e;
    }
    (void)P;
    snprintf(why, n, "expected {\"as_int\": n} or {\"as_expr\": ...} for a SymInt, got %s",
             cgs_json_type(x));
    return NULL;
}

/* A TensorMeta into a tensor value; unknown parts become notes, not errors. */
static int tensor_val(struct pt2 *P, struct cgs_graph *g, const char *name, const cJSON *x,
                      struct cgs_val *v)
{
    const cJSON *sizes = get(x, "sizes"), *strides = get(x, "strides");
    const cJSON *dt = get(x, "dtype"), *it;
    struct cgs_tensor *t = &v->u.t;
    char why[200];
    int64_t e, hint;
    bool hh, noted = false;
    int i;

    if (!cJSON_IsObject(x) || !cJSON_IsArray(sizes))
        return FAIL(P, CGS_E_SCHEMA, "tensor value '%s': expected an object with 'sizes', "
                    "got %s", name, cgs_json_type(x));
    v->kind = CGS_VAL_TENSOR;
    t->dtype = json_int(dt, &e) ? dtype_from_enum(e) : CGS_DTYPE_UNKNOWN;
    if (t->dtype == CGS_DTYPE_UNKNOWN)
        cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_SCHEMA, NULL,
                       "tensor value '%s': unknown dtype %s", name,
                       cJSON_IsNumber(dt) ? "enum value" : "(missing)");
    int nd = cJSON_GetArraySize(sizes);
    if (nd > CGS_MAX_NDIM)
        return FAIL(P, CGS_E_LIMIT, "tensor value '%s': %d dimensions, more than the limit "
                    "of %d", name, nd, CGS_MAX_NDIM);
    t->ndim = (uint32_t)nd;
    t->shape = cgs_arena_calloc(g->arena, nd ? (size_t)nd : 1, sizeof(*t->shape));
    i = 0;
    cJSON_ArrayForEach(it, sizes) {
        t->shape[i] = sym_int(P, g, it, &hh, &hint, why, sizeof(why));
        if (!t->shape[i] && !noted) {
            cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_UNKNOWN, NULL,
                           "tensor value '%s': size %d unknown: %s", name, i, why);
            noted = true;
        }
        i++;
    }
    if (cJSON_IsArray(strides) && cJSON_GetArraySize(strides) == nd) {
        t->stride = cgs_arena_calloc(g->arena, nd ? (size_t)nd : 1, sizeof(*t->stride));
        i = 0;
        cJSON_ArrayForEach(it, strides) {
            t->stride[i] = sym_int(P, g, it, &hh, &hint, why, sizeof(why));
            if (!t->stride[i] && !noted) {
                cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_UNKNOWN, NULL,
                               "tensor value '%s': stride %d unknown: %s", name, i, why);
                noted = true;
            }
            i++;
        }
    }
    if (get(x, "storage_offset"))
        t->storage_offset = sym_int(P, g, get(x, "storage_offset"), &hh, &hint, why, sizeof(why));
    else
        t->storage_offset = cgs_sym_int(g->syms, 0);
    t->device = device_string(g, get(x, "device"));
    t->requires_grad = cJSON_IsTrue(get(x, "requires_grad"));
    if (json_int(get(x, "layout"), &e) && e != 7)
        cgs_graph_note(g, CGS_NOTE_INFO, CGS_E_UNKNOWN, NULL,
                       "tensor value '%s' has layout %s", name,
                       layout_name(e) ? layout_name(e) : "unknown");
    return 0;
}

/* A SymInt / SymFloat / SymBool value (sym_*_values). */
static void sym_val(struct pt2 *P, struct cgs_graph *g, const char *name, const cJSON *x,
                    char which, struct cgs_val *v)
{
    const cJSON *u = union_item(x);
    char why[200];
    v->kind = CGS_VAL_NONE;
    if (!u) {
        cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_SCHEMA, NULL,
                       "value '%s': expected a tagged union, got %s", name, cgs_json_type(x));
        return;
    }
    if (which == 'i') {
        bool hh;
        int64_t hint;
        const struct cgs_sym *e = sym_int(P, g, x, &hh, &hint, why, sizeof(why));
        int64_t c;
        if (!e) {
            cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_UNKNOWN, NULL, "value '%s' unknown: %s",
                           name, why);
        } else if (!strcmp(u->string, "as_int") && cgs_sym_is_int(e, &c)) {
            v->kind = CGS_VAL_INT;
            v->u.i = c;
        } else {
            v->kind = CGS_VAL_SYMINT;
            v->u.s.sym = e;
            v->has_hint = hh;
            v->u.s.hint = hint;
        }
        return;
    }
    if (!strcmp(u->string, "as_float") && which == 'f') {
        double f;
        if (json_float(u, &f)) {
            v->kind = CGS_VAL_FLOAT;
            v->u.f = f;
        }
        return;
    }
    if (!strcmp(u->string, "as_bool") && which == 'b') {
        v->kind = CGS_VAL_BOOL;
        v->u.b = cJSON_IsTrue(u);
        return;
    }
    if (!strcmp(u->string, "as_expr")) {
        /* kept as text: integer-valued parts print in SymPy syntax, else the srepr */
        const char *s = get_str(u, "expr_str");
        const cJSON *h = union_item(get(u, "hint"));
        const struct cgs_sym *e = s ? parse_srepr(g, s, why, sizeof(why)) : NULL;
        v->kind = which == 'f' ? CGS_VAL_SYMFLOAT : CGS_VAL_SYMBOOL;
        if (e) {
            char *txt = cgs_sym_to_string(e);
            v->u.s.text = cgs_graph_intern(g, txt);
            free(txt);
        } else {
            v->u.s.text = cgs_graph_intern(g, s ? s : "?");
        }
        if (h && cJSON_IsNumber(h)) {
            int64_t iv;
            v->has_hint = true;
            v->u.s.fhint = h->valuedouble;
            v->u.s.hint = json_int(h, &iv) ? iv
                          : fabs(h->valuedouble) < 9.2e18 ? (int64_t)h->valuedouble : 0;
        } else if (h && cJSON_IsBool(h)) {
            v->has_hint = true;
            v->u.s.hint = cJSON_IsTrue(h);
            v->u.s.fhint = (double)v->u.s.hint;
        }
        return;
    }
    cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_SCHEMA, NULL, "value '%s': unknown kind '%s'",
                   name, u->string);
}

/* ---- arguments ----------------------------------------------------------------------------- */

struct gctx {
    struct cgs_graph *g;
    struct cgs_strmap vals; /* name -> value (tensor_values, sym_*_values); arena keys */
    int depth; /* of subgraph nesting */
    struct cgs_node *node; /* the node being converted */
};

static int node_ref(struct pt2 *P, struct gctx *G, const char *name, struct cgs_arg *a)
{
    struct cgs_node *n = name ? cgs_graph_find(G->g, name) : NULL;
    if (!n)
        return FAIL(P, CGS_E_SCHEMA, "node '%s' uses unknown value '%s'",
                    G->node ? G->node->name : "output", name ? name : "(no name)");
    a->kind = CGS_ARG_NODE;
    a->u.node = n;
    return 0;
}

static void repr_arg(struct gctx *G, struct cgs_arg *a, const char *text)
{
    a->kind = CGS_ARG_REPR;
    a->u.s = cgs_graph_intern(G->g, text);
}

static int unknown_arg(struct pt2 *P, struct gctx *G, struct cgs_arg *a, const char *kind)
{
    char buf[160];
    cgs_graph_note(G->g, CGS_NOTE_WARNING, CGS_E_SCHEMA, G->node,
                   "unknown argument kind '%s' (at %s): kept as text", kind, P->path);
    snprintf(buf, sizeof(buf), "<%s>", kind);
    repr_arg(G, a, buf);
    return 0;
}

static struct cgs_arg *new_items(struct gctx *G, struct cgs_arg *a, int n)
{
    a->kind = CGS_ARG_LIST;
    a->n = (uint32_t)n;
    a->u.items = n ? cgs_arena_calloc(G->g->arena, (size_t)n, sizeof(*a->u.items)) : NULL;
    return a->u.items;
}

/* SymIntArgument / SymFloatArgument / SymBoolArgument / OptionalTensorArgument. */
static int small_union(struct pt2 *P, struct gctx *G, const cJSON *x, struct cgs_arg *a)
{
    const cJSON *u = union_item(x);
    double f;
    if (!u)
        return FAIL(P, CGS_E_SCHEMA, "expected a tagged union (one key), got %s", cgs_json_type(x));
    if (!strcmp(u->string, "as_name")) {
        if (!cJSON_IsString(u))
            return FAIL(P, CGS_E_SCHEMA, "expected a name string for 'as_name'");
        if (cgs_graph_find(G->g, u->valuestring))
            return node_ref(P, G, u->valuestring, a);
        /* a symbol's name rather than a node's (inductor-made graphs) */
        const struct cgs_sym *e = NULL;
        const char *s = u->valuestring;
        bool ident = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_';
        for (const char *c = s; ident && *c; c++)
            ident = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' ||
                    (*c >= '0' && *c <= '9');
        if (ident)
            e = cgs_graph_add_symbol(G->g, s)->sym;
        if (!e)
            return node_ref(P, G, s, a);
        a->kind = CGS_ARG_SYM;
        a->u.sym = e;
        return 0;
    }
    if (!strcmp(u->string, "as_int")) {
        a->kind = CGS_ARG_INT;
        if (!json_int(u, &a->u.i))
            return FAIL(P, CGS_E_SCHEMA, "expected an integer for 'as_int', got %s",
                        cgs_json_type(u));
        return 0;
    }
    if (!strcmp(u->string, "as_float")) {
        a->kind = CGS_ARG_FLOAT;
        if (!json_float(u, &f))
            return FAIL(P, CGS_E_SCHEMA, "expected a float for 'as_float', got %s", cgs_json_type(u));
        a->u.f = f;
        return 0;
    }
    if (!strcmp(u->string, "as_bool")) {
        a->kind = CGS_ARG_BOOL;
        a->u.b = cJSON_IsTrue(u);
        return 0;
    }
    if (!strcmp(u->string, "as_none")) {
        a->kind = CGS_ARG_NONE;
        return 0;
    }
    if (!strcmp(u->string, "as_tensor"))
        return node_ref(P, G, get_str(u, "name"), a);
    return unknown_arg(P, G, a, u->string);
}

static int list_of(struct pt2 *P, struct gctx *G, const cJSON *arr, struct cgs_arg *a, char how)
{
    const cJSON *it;
    int i = 0, err;
    if (!cJSON_IsArray(arr))
        return FAIL(P, CGS_E_SCHEMA, "expected a list, got %s", cgs_json_type(arr));
    struct cgs_arg *items = new_items(G, a, cJSON_GetArraySize(arr));
    cJSON_ArrayForEach(it, arr) {
        struct cgs_arg *b = &items[i++];
        size_t old = path_push(P, "[%d]", i - 1);
        switch (how) {
        case 'i':
            b->kind = CGS_ARG_INT;
            if (!json_int(it, &b->u.i))
                return FAIL(P, CGS_E_SCHEMA, "expected an integer, got %s", cgs_json_type(it));
            break;
        case 'f':
            b->kind = CGS_ARG_FLOAT;
            if (!json_float(it, &b->u.f))
                return FAIL(P, CGS_E_SCHEMA, "expected a float, got %s", cgs_json_type(it));
            break;
        case 'b':
            b->kind = CGS_ARG_BOOL;
            b->u.b = cJSON_IsTrue(it);
            break;
        case 's':
            if (!cJSON_IsString(it))
                return FAIL(P, CGS_E_SCHEMA, "expected a string, got %s", cgs_json_type(it));
            b->kind = CGS_ARG_STR;
            b->u.s = cgs_graph_intern(G->g, it->valuestring);
            break;
        case 't': /* TensorArgument {name} */
            if ((err = node_ref(P, G, get_str(it, "name"), b)))
                return err;
            break;
        case 'T': /* list of lists of TensorArgument */
            if ((err = list_of(P, G, it, b, 't')))
                return err;
            break;
        case 'I':
            if ((err = list_of(P, G, it, b, 'i')))
                return err;
            break;
        default: /* tagged unions */
            if ((err = small_union(P, G, it, b)))
                return err;
            break;
        }
        path_pop(P, old);
    }
    return 0;
}

/*
 * One serialized Argument into a cgs_arg. graph_node is the get_attr made
 * for an as_graph argument (NULL otherwise).
 */
static int convert_arg(struct pt2 *P, struct gctx *G, const cJSON *x, struct cgs_arg *a,
                       struct cgs_node *graph_node)
{
    const cJSON *u = union_item(x);
    const char *k;
    int64_t e;
    char buf[160];

    if (!u)
        return FAIL(P, CGS_E_SCHEMA, "expected an argument (an object with one key such as "
                    "'as_tensor'), got %s", cgs_json_type(x));
    k = u->string;
    if (!strcmp(k, "as_none")) {
        a->kind = CGS_ARG_NONE;
    } else if (!strcmp(k, "as_tensor")) {
        return node_ref(P, G, get_str(u, "name"), a);
    } else if (!strcmp(k, "as_tensors")) {
        return list_of(P, G, u, a, 't');
    } else if (!strcmp(k, "as_int") || !strcmp(k, "as_float") || !strcmp(k, "as_bool")) {
        return small_union(P, G, x, a);
    } else if (!strcmp(k, "as_ints")) {
        return list_of(P, G, u, a, 'i');
    } else if (!strcmp(k, "as_floats")) {
        return list_of(P, G, u, a, 'f');
    } else if (!strcmp(k, "as_bools")) {
        return list_of(P, G, u, a, 'b');
    } else if (!strcmp(k, "as_string")) {
        if (!cJSON_IsString(u))
            return FAIL(P, CGS_E_SCHEMA, "expected a string for 'as_string', got %s",
                        cgs_json_type(u));
        a->kind = CGS_ARG_STR;
        a->u.s = cgs_graph_intern(G->g, u->valuestring);
    } else if (!strcmp(k, "as_strings")) {
        return list_of(P, G, u, a, 's');
    } else if (!strcmp(k, "as_sym_int") || !strcmp(k, "as_sym_float") ||
               !strcmp(k, "as_sym_bool") || !strcmp(k, "as_optional_tensor")) {
        return small_union(P, G, u, a);
    } else if (!strcmp(k, "as_sym_ints") || !strcmp(k, "as_sym_floats") ||
               !strcmp(k, "as_sym_bools") || !strcmp(k, "as_optional_tensors")) {
        return list_of(P, G, u, a, 'u');
    } else if (!strcmp(k, "as_scalar_type")) {
        if (!json_int(u, &e) || (a->u.dtype = dtype_from_enum(e)) == CGS_DTYPE_UNKNOWN) {
            snprintf(buf, sizeof(buf), "<scalar type %lld>", (long long)(json_int(u, &e) ? e : -1));
            cgs_graph_note(G->g, CGS_NOTE_WARNING, CGS_E_SCHEMA, G->node,
                           "unknown scalar type (at %s): kept as text", P->path);
            repr_arg(G, a, buf);
            return 0;
        }
        a->kind = CGS_ARG_DTYPE;
    } else if (!strcmp(k, "as_layout") || !strcmp(k, "as_memory_format")) {
        bool lay = k[3] == 'l';
        const char *name = json_int(u, &e) ? (lay ? layout_name(e) : memfmt_name(e)) : NULL;
        if (!name) {
            cgs_graph_note(G->g, CGS_NOTE_WARNING, CGS_E_SCHEMA, G->node,
                           "unknown %s (at %s): kept as text", lay ? "layout" : "memory format",
                           P->path);
            repr_arg(G, a, lay ? "<layout>" : "<memory_format>");
            return 0;
        }
        a->kind = lay ? CGS_ARG_LAYOUT : CGS_ARG_MEMFMT;
        a->u.s = name;
    } else if (!strcmp(k, "as_device")) {
        const char *dev = device_string(G->g, u);
        if (!dev)
            return FAIL(P, CGS_E_SCHEMA, "expected a device {type, index} for 'as_device'");
        a->kind = CGS_ARG_DEVICE;
        a->u.s = dev;
    } else if (!strcmp(k, "as_graph")) {
        if (!graph_node)
            return FAIL(P, CGS_E_SCHEMA, "nested graph argument not allowed here");
        a->kind = CGS_ARG_NODE;
        a->u.node = graph_node;
    } else if (!strcmp(k, "as_custom_obj")) {
        const char *name = get_str(u, "name");
        if (name && cgs_graph_find(G->g, name))
            return node_ref(P, G, name, a);
        snprintf(buf, sizeof(buf), "<%s %s>", get_str(u, "class_fqn") ? get_str(u, "class_fqn")
                 : "custom object", name ? name : "?");
        repr_arg(G, a, buf);
    } else if (!strcmp(k, "as_operator")) {
        if (!cJSON_IsString(u))
            return FAIL(P, CGS_E_SCHEMA, "expected a string for 'as_operator'");
        repr_arg(G, a, target_name(G->g, u->valuestring));
    } else if (!strcmp(k, "as_complex")) {
        double re = 0, im = 0;
        json_float(get(u, "real"), &re);
        json_float(get(u, "imag"), &im);
        snprintf(buf, sizeof(buf), "(%.17g%+.17gj)", re, im);
        repr_arg(G, a, buf);
    } else if (!strcmp(k, "as_nested_tensors")) {
        return list_of(P, G, u, a, 'T');
    } else if (!strcmp(k, "as_int_lists")) {
        return list_of(P, G, u, a, 'I');
    } else if (!strcmp(k, "as_string_to_argument")) {
        /* a dict: ARG has no dicts, so keep Python's repr of it (display only) */
        struct cgs_buf b = CGS_BUF_INIT;
        const cJSON *it;
        cgs_buf_addch(&b, '{');
        cJSON_ArrayForEach(it, u) {
            const cJSON *v = union_item(it);
            int64_t iv;
            double fv;
            cgs_buf_addf(&b, "%s'%s': ", it == u->child ? "" : ", ", it->string);
            if (!v || !strcmp(v->string, "as_none"))
                cgs_buf_addstr(&b, "None");
            else if (!strcmp(v->string, "as_tensor") && get_str(v, "name"))
                cgs_buf_addstr(&b, get_str(v, "name"));
            else if (!strcmp(v->string, "as_int") && json_int(v, &iv))
                cgs_buf_addf(&b, "%lld", (long long)iv);
            else if (!strcmp(v->string, "as_float") && json_float(v, &fv))
                cgs_buf_addf(&b, "%.17g", fv);
            else if (!strcmp(v->string, "as_bool"))
                cgs_buf_addstr(&b, cJSON_IsTrue(v) ? "True" : "False");
            else if (!strcmp(v->string, "as_string") && cJSON_IsString(v))
                cgs_buf_addf(&b, "'%s'", v->valuestring);
            else
                cgs_buf_addstr(&b, "...");
        }
        cgs_buf_addch(&b, '}');
        repr_arg(G, a, b.buf);
        cgs_buf_release(&b);
    } else {
        return unknown_arg(P, G, a, k);
    }
    return 0;
}

/* ---- graphs --------------------------------------------------------------------------------- */

struct gsrc {
    struct jsrc inputs, outputs, nodes, tensor_values, sym_int_values, sym_float_values,
        sym_bool_values;
    bool single_return;
};

static int load_graph(struct pt2 *P, struct cgs_graph *g, const struct gsrc *s,
                      const cJSON *signature, int depth);

static void gsrc_from_json(struct gsrc *s, const cJSON *graph)
{
    static const char *const keys[7] = {"inputs", "outputs", "nodes", "tensor_values",
                                        "sym_int_values", "sym_float_values", "sym_bool_values"};
    struct jsrc *dst[7] = {&s->inputs, &s->outputs, &s->nodes, &s->tensor_values,
                           &s->sym_int_values, &s->sym_float_values, &s->sym_bool_values};
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < 7; i++) {
        const cJSON *x = get(graph, keys[i]);
        dst[i]->present = x && !cJSON_IsNull(x);
        dst[i]->x = x;
    }
    s->single_return = cJSON_IsTrue(get(graph, "is_single_tensor_return"));
}

static void copy_meta(struct cgs_node *to, const struct cgs_node *from)
{
    to->stack_trace = from->stack_trace;
    to->module_path = from->module_path;
    to->module_type = from->module_type;
    to->src_offset = from->src_offset;
}

/* metadata.nn_module_stack "key,path,type;..." -> the last entry's path and type. */
static void set_module(struct cgs_graph *g, struct cgs_node *n, const char *stack)
{
    const char *last = strrchr(stack, ';');
    const char *p = last ? last + 1 : stack, *f[3] = {p, NULL, NULL};
    int depth = 0, k = 1;
    char buf[1024];
    for (const char *c = p; *c && k < 3; c++) {
        if (*c == '(' || *c == '[')
            depth++;
        else if (*c == ')' || *c == ']')
            depth--;
        else if (*c == ',' && depth == 0)
            f[k++] = c + 1;
    }
    if (k < 3)
        return;
    snprintf(buf, sizeof(buf), "%.*s", (int)(f[2] - f[1] - 1), f[1]);
    n->module_path = cgs_graph_intern(g, buf);
    n->module_type = cgs_graph_intern(g, f[2]);
}

/* The value an output Argument names ({"as_tensor": {"name"}} etc.); NULL if none. */
static const char *output_name(const cJSON *o)
{
    const cJSON *u = union_item(o);
    if (!u)
        return NULL;
    if (!strcmp(u->string, "name") || !strcmp(u->string, "as_name")) /* TensorArgument, */
        return cJSON_IsString(u) ? u->valuestring : NULL;          /* SymIntArgument */
    if (!strcmp(u->string, "as_tensor"))
        return get_str(u, "name");
    if (!strcmp(u->string, "as_sym_int") || !strcmp(u->string, "as_sym_float") ||
        !strcmp(u->string, "as_sym_bool"))
        return get_str(u, "as_name");
    return NULL;
}

static struct cgs_val *val_or_none(struct gctx *G, const char *name)
{
    struct cgs_val *v = (struct cgs_val *)cgs_strmap_get(&G->vals, name);
    if (!v)
        v = cgs_arena_calloc(G->g->arena, 1, sizeof(*v)); /* CGS_VAL_NONE */
    return v;
}

/* getitem nodes for the outputs of multi-output node n (list: the outputs). */
static int make_getitems(struct pt2 *P, struct gctx *G, struct cgs_node *n, const cJSON *list)
{
    int cnt = cJSON_GetArraySize(list), i = 0;
    const cJSON *o;
    char nm[300], unused[300];
    struct cgs_val *v = cgs_arena_calloc(G->g->arena, 1, sizeof(*v));

    v->kind = CGS_VAL_LIST;
    v->n = (uint32_t)cnt;
    v->u.items = cnt ? cgs_arena_calloc(G->g->arena, (size_t)cnt, sizeof(*v->u.items)) : NULL;
    n->val = v;
    cJSON_ArrayForEach(o, list) {
        const char *name = output_name(o);
        const cJSON *u = union_item(o);
        int idx = i++;
        if (!name) {
            if (u && (!strcmp(u->string, "as_tensors") || !strcmp(u->string, "as_sym_ints"))) {
                /* a list output: a getitem for the list, then one per element */
                struct cgs_node *ln;
                unique_name(G->g, "getitem", nm, sizeof(nm));
                ln = cgs_graph_add_node(G->g, CGS_NODE_CALL_FUNCTION, nm, "operator.getitem");
                copy_meta(ln, n);
                ln->args = cgs_arena_calloc(G->g->arena, 2, sizeof(*ln->args));
                ln->n_args = 2;
                ln->args[0] = (struct cgs_arg){.kind = CGS_ARG_NODE, .u.node = n};
                ln->args[1] = (struct cgs_arg){.kind = CGS_ARG_INT, .u.i = idx};
                int err = make_getitems(P, G, ln, u);
                if (err)
                    return err;
                v->u.items[idx] = *ln->val;
            } else if (u && strcmp(u->string, "as_none")) {
                cgs_graph_note(G->g, CGS_NOTE_WARNING, CGS_E_SCHEMA, n,
                               "output %d: unknown output kind '%s'", idx, u->string);
            }
            continue;
        }
        v->u.items[idx] = *val_or_none(G, name);
        /* outputs nobody used were named NODE_unused_I and had no getitem */
        snprintf(unused, sizeof(unused), "%s_unused_%d", n->name, idx);
        if (!strcmp(name, unused))
            continue;
        struct cgs_node *gi = cgs_graph_add_node(G->g, CGS_NODE_CALL_FUNCTION, name,
                                                 "operator.getitem");
        if (!gi)
            return FAIL(P, CGS_E_SCHEMA, "duplicate node name '%s' (output %d of '%s')", name,
                        idx, n->name);
        copy_meta(gi, n);
        gi->args = cgs_arena_calloc(G->g->arena, 2, sizeof(*gi->args));
        gi->n_args = 2;
        gi->args[0] = (struct cgs_arg){.kind = CGS_ARG_NODE, .u.node = n};
        gi->args[1] = (struct cgs_arg){.kind = CGS_ARG_INT, .u.i = idx};
        gi->val = &v->u.items[idx];
    }
    return 0;
}

/*
 * Whether a NamedArgument goes to kwargs: its kind says so (2 = KEYWORD); files
 * without kinds: a higher-order op's named inputs (torch's HOP rule), else args.
 */
static bool input_is_kwarg(const cJSON *in, bool hop)
{
    const char *name = get_str(in, "name");
    int64_t kind = 0;
    if (!name || !name[0])
        return false;
    if (json_int(get(in, "kind"), &kind) && kind != 0)
        return kind == 2;
    return hop;
}

static int convert_node(struct pt2 *P, struct gctx *G, const cJSON *x)
{
    const char *target = get_str(x, "target"), *name = get_str(x, "name");
    const cJSON *inputs = get(x, "inputs"), *outputs = get(x, "outputs");
    const cJSON *meta = get(x, "metadata"), *in;
    struct cgs_node **graph_nodes = NULL, *n;
    int n_in, i, err = 0, n_pos = 0, n_kw = 0;
    bool hop;
    char buf[300];

    if (!cJSON_IsObject(x))
        return FAIL(P, CGS_E_SCHEMA, "expected a node object, got %s", cgs_json_type(x));
    if (!target)
        return FAIL(P, CGS_E_SCHEMA, "node without a 'target' string");
    if (inputs && !cJSON_IsArray(inputs))
        return FAIL(P, CGS_E_SCHEMA, "expected an array for 'inputs', got %s", cgs_json_type(inputs));
    if (outputs && !cJSON_IsArray(outputs))
        return FAIL(P, CGS_E_SCHEMA, "expected an array for 'outputs', got %s",
                    cgs_json_type(outputs));
    if (G->g->n_nodes >= CGS_LOAD_MAX_NODES)
        return FAIL(P, CGS_E_LIMIT, "more than %u nodes", CGS_LOAD_MAX_NODES);
    hop = !strncmp(target, "torch.ops.higher_order.", 23);
    int n_out = cJSON_GetArraySize(outputs);
    const cJSON *out0 = n_out == 1 ? union_item(cJSON_GetArrayItem(outputs, 0)) : NULL;
    const cJSON *hop_single = get(x, "is_hop_single_tensor_return");
    bool single = out0 && (!strcmp(out0->string, "as_tensor") ? !hop || !cJSON_IsFalse(hop_single)
                           : !strcmp(out0->string, "as_sym_int") ||
                                 !strcmp(out0->string, "as_sym_float") ||
                                 !strcmp(out0->string, "as_sym_bool") ||
                                 !strcmp(out0->string, "as_none"));
    if (!name || !name[0]) {
        /* files older than the 'name' field: the single output's name, else FX's rule */
        name = single ? output_name(cJSON_GetArrayItem(outputs, 0)) : NULL;
        if (!name) {
            const char *t = target_name(G->g, target), *dot = strrchr(t, '.');
            char base[200];
            size_t k = 0;
            const char *s = t;
            if (dot) { /* "aten.split.Tensor" -> "split_tensor" */
                const char *prev = dot;
                while (prev > t && prev[-1] != '.')
                    prev--;
                s = prev;
            }
            for (; *s && k + 1 < sizeof(base); s++)
                base[k++] = *s == '.' ? '_' : (char)((*s >= 'A' && *s <= 'Z') ? *s + 32 : *s);
            base[k] = '\0';
            name = unique_name(G->g, base, buf, sizeof(buf));
        }
    }

    /* nested graphs first: each becomes a get_attr node and a subgraph */
    n_in = cJSON_GetArraySize(inputs);
    if (n_in)
        graph_nodes = cgs_xcalloc((size_t)n_in, sizeof(*graph_nodes));
    i = 0;
    cJSON_ArrayForEach(in, inputs) {
        const cJSON *arg = get(in, "arg"), *u = union_item(arg);
        int idx = i++;
        if (input_is_kwarg(in, hop))
            n_kw++;
        else
            n_pos++;
        if (!u || strcmp(u->string, "as_graph"))
            continue;
        const char *gname = get_str(u, "name");
        const cJSON *graph = get(u, "graph");
        char nm[300];
        size_t old = path_push(P, ".inputs[%d].arg.as_graph", idx);
        if (!gname || !cJSON_IsObject(graph)) {
            err = FAIL(P, CGS_E_SCHEMA, "expected {name, graph} for a graph argument");
            goto out;
        }
        if (G->depth + 1 > PT2_MAX_GRAPH_DEPTH) {
            err = FAIL(P, CGS_E_LIMIT, "graphs nested deeper than %d levels",
                       PT2_MAX_GRAPH_DEPTH);
            goto out;
        }
        unique_name(G->g, gname, nm, sizeof(nm));
        graph_nodes[idx] = cgs_graph_add_node(G->g, CGS_NODE_GET_ATTR, nm, gname);
        if (!cgs_graph_subgraph(G->g, gname)) {
            struct gsrc s;
            struct cgs_graph *sg = cgs_graph_new_subgraph(G->g, gname);
            size_t piece = P->piece;
            gsrc_from_json(&s, graph);
            path_push(P, ".graph");
            err = load_graph(P, sg, &s, NULL, G->depth + 1);
            P->piece = piece;
            if (err)
                goto out;
        }
        path_pop(P, old);
    }

    n = cgs_graph_add_node(G->g, CGS_NODE_CALL_FUNCTION, name, target_name(G->g, target));
    if (!n) {
        err = FAIL(P, CGS_E_SCHEMA, "duplicate node name '%s'", name);
        goto out;
    }
    n->src_offset = P->piece;
    G->node = n;
    if (cJSON_IsObject(meta)) {
        const char *st = get_str(meta, "stack_trace"), *ms = get_str(meta, "nn_module_stack");
        if (st)
            n->stack_trace = cgs_graph_intern(G->g, st);
        if (ms)
            set_module(G->g, n, ms);
    }
    for (i = 0; i < n_in; i++)
        if (graph_nodes[i])
            copy_meta(graph_nodes[i], n);

    /* arguments: POSITIONAL (kind 1) into args, KEYWORD (kind 2) into kwargs */
    n->args = n_pos ? cgs_arena_calloc(G->g->arena, (size_t)n_pos, sizeof(*n->args)) : NULL;
    n->kwargs = n_kw ? cgs_arena_calloc(G->g->arena, (size_t)n_kw, sizeof(*n->kwargs)) : NULL;
    i = 0;
    cJSON_ArrayForEach(in, inputs) {
        struct cgs_arg *a;
        int idx = i++;
        if (input_is_kwarg(in, hop)) {
            if ((uint32_t)n_kw <= n->n_kwargs)
                CGS_BUG("kwarg count changed");
            n->kwargs[n->n_kwargs].key = cgs_graph_intern(G->g, get_str(in, "name"));
            a = &n->kwargs[n->n_kwargs++].val;
        } else {
            if ((uint32_t)n_pos <= n->n_args)
                CGS_BUG("arg count changed");
            a = &n->args[n->n_args++];
        }
        size_t old = path_push(P, ".inputs[%d].arg", idx);
        if ((err = convert_arg(P, G, get(in, "arg"), a, graph_nodes[idx])))
            goto out;
        path_pop(P, old);
    }

    /* value, and getitems for multi-output nodes */
    if (n_out == 0) {
        n->val = NULL;
    } else if (single) {
        const char *vname = output_name(cJSON_GetArrayItem(outputs, 0));
        n->val = val_or_none(G, vname);
    } else if (out0 && !strcmp(out0->string, "as_tensors")) {
        err = make_getitems(P, G, n, out0);
    } else {
        err = make_getitems(P, G, n, outputs);
    }
out:
    free(graph_nodes);
    G->node = NULL;
    return err;
}

/* Placeholders from graph.inputs, named and tagged through the signature. */
static int load_inputs(struct pt2 *P, struct gctx *G, const struct gsrc *s, const cJSON *sig)
{
    const cJSON *specs = get(sig, "input_specs");
    struct jcursor c;
    const cJSON *x;
    int r, i = 0, err;

    if ((err = cursor_begin(P, &s->inputs, false, &c, "'inputs'")))
        return err;
    while ((r = cursor_next(P, &c, &x, NULL)) > 0) {
        const cJSON *u = union_item(x), *spec = union_item(cJSON_GetArrayItem(specs, i));
        const char *name = NULL;
        char buf[64];
        struct cgs_val *cval = NULL;
        int idx = i++;
        size_t old = path_push(P, ".inputs[%d]", idx);
        if (!u) {
            // the message first: x lives in the cursor's tree
            int e = FAIL(P, CGS_E_SCHEMA, "expected an argument (one key), got %s",
                         cgs_json_type(x));
            cursor_end(&c);
            return e;
        }
        if (!strcmp(u->string, "as_tensor") || !strcmp(u->string, "as_custom_obj"))
            name = get_str(u, "name");
        else if (!strcmp(u->string, "as_sym_int") || !strcmp(u->string, "as_sym_float") ||
                 !strcmp(u->string, "as_sym_bool"))
            name = get_str(u, "as_name");
        else {
            /* a constant input: its name is in the signature */
            const char *k = u->string;
            if (spec && !strcmp(spec->string, "constant_input"))
                name = get_str(spec, "name");
            cval = cgs_arena_calloc(G->g->arena, 1, sizeof(*cval));
            if (!strcmp(k, "as_int") && json_int(u, &cval->u.i))
                cval->kind = CGS_VAL_INT;
            else if (!strcmp(k, "as_float") && json_float(u, &cval->u.f))
                cval->kind = CGS_VAL_FLOAT;
            else if (!strcmp(k, "as_bool"))
                cval->kind = CGS_VAL_BOOL, cval->u.b = cJSON_IsTrue(u);
            else if (strcmp(k, "as_none") && strcmp(k, "as_string"))
                cgs_graph_note(G->g, CGS_NOTE_WARNING, CGS_E_SCHEMA, NULL,
                               "input %d: unknown input kind '%s'", idx, k);
        }
        if (!name || !name[0]) {
            snprintf(buf, sizeof(buf), "arg%d", idx);
            name = buf;
        }
        struct cgs_node *n = cgs_graph_add_node(G->g, CGS_NODE_PLACEHOLDER, name, name);
        if (!n) {
            // the message first: name lives in the cursor's tree
            int e = FAIL(P, CGS_E_SCHEMA, "duplicate input name '%s'", name);
            cursor_end(&c);
            return e;
        }
        n->src_offset = P->piece;
        n->val = cval ? cval : (struct cgs_val *)cgs_strmap_get(&G->vals, name);
        path_pop(P, old);
    }
    cursor_end(&c);
    return r;
}

static int load_outputs(struct pt2 *P, struct gctx *G, const struct gsrc *s)
{
    struct jcursor c;
    const cJSON *x;
    struct cgs_arg *items = NULL;
    uint32_t n = 0, alloc = 0;
    int r, err;
    struct cgs_node *out;
    char nm[64];

    if ((err = cursor_begin(P, &s->outputs, false, &c, "'outputs'")))
        return err;
    while ((r = cursor_next(P, &c, &x, NULL)) > 0) {
        struct cgs_arg a = {0};
        size_t old = path_push(P, ".outputs[%u]", n);
        if ((err = convert_arg(P, G, x, &a, NULL))) {
            cursor_end(&c);
            free(items);
            return err;
        }
        path_pop(P, old);
        CGS_ALLOC_GROW(items, n + 1, alloc);
        items[n++] = a;
    }
    cursor_end(&c);
    if (r < 0) {
        free(items);
        return r;
    }
    out = cgs_graph_add_node(G->g, CGS_NODE_OUTPUT, unique_name(G->g, "output", nm, sizeof(nm)),
                             "output");
    out->args = cgs_arena_calloc(G->g->arena, 1, sizeof(*out->args));
    out->n_args = 1;
    if (s->single_return && n == 1) {
        out->args[0] = items[0];
    } else {
        struct cgs_arg *dst = new_items(G, &out->args[0], (int)n);
        if (n)
            memcpy(dst, items, n * sizeof(*dst));
    }
    free(items);
    return 0;
}

/* tensor_values and sym_*_values into the name -> value map. */
static int load_values(struct pt2 *P, struct gctx *G, const struct gsrc *s)
{
    const struct jsrc *srcs[4] = {&s->tensor_values, &s->sym_int_values, &s->sym_float_values,
                                  &s->sym_bool_values};
    static const char *const what[4] = {"'tensor_values'", "'sym_int_values'",
                                        "'sym_float_values'", "'sym_bool_values'"};
    for (int k = 0; k < 4; k++) {
        struct jcursor c;
        const cJSON *x;
        const char *key;
        int r, err;
        size_t old = path_push(P, ".%.*s", (int)strlen(what[k]) - 2, what[k] + 1);
        if ((err = cursor_begin(P, srcs[k], true, &c, what[k])))
            return err;
        while ((r = cursor_next(P, &c, &x, &key)) > 0) {
            struct cgs_val *v = cgs_arena_calloc(G->g->arena, 1, sizeof(*v));
            const char *name = cgs_graph_intern(G->g, key);
            if (k == 0) {
                size_t o2 = path_push(P, ".%s", name);
                if ((err = tensor_val(P, G->g, name, x, v))) {
                    cursor_end(&c);
                    return err;
                }
                path_pop(P, o2);
            } else {
                sym_val(P, G->g, name, x, "ifb"[k - 1], v);
            }
            cgs_strmap_set(&G->vals, name, v);
        }
        cursor_end(&c);
        if (r < 0)
            return r;
        path_pop(P, old);
    }
    return 0;
}

static int load_graph(struct pt2 *P, struct cgs_graph *g, const struct gsrc *s,
                      const cJSON *signature, int depth)
{
    struct gctx G = {.g = g, .depth = depth};
    struct jcursor c;
    const cJSON *x;
    int r, err;
    uint32_t idx = 0;
    size_t base = P->path_len;

    if (!s->nodes.present || !s->inputs.present || !s->outputs.present) {
        err = FAIL(P, CGS_E_SCHEMA, "graph without '%s'",
                   !s->nodes.present ? "nodes" : !s->inputs.present ? "inputs" : "outputs");
        goto out;
    }
    if ((err = load_values(P, &G, s)) || (err = load_inputs(P, &G, s, signature)))
        goto out;
    if ((err = cursor_begin(P, &s->nodes, false, &c, "'nodes'")))
        goto out;
    while ((r = cursor_next(P, &c, &x, NULL)) > 0) {
        size_t old = path_push(P, ".nodes[%u]", idx++);
        if ((err = convert_node(P, &G, x))) {
            cursor_end(&c);
            goto out;
        }
        path_pop(P, old);
    }
    cursor_end(&c);
    if ((err = r) < 0)
        goto out;
    err = load_outputs(P, &G, s);
out:
    cgs_strmap_release(&G.vals);
    if (!err)
        path_pop(P, base);
    return err;
}

/* ---- signature and symbols ------------------------------------------------------------ */

static const char *const kind_names[CGS_PT2_KIND_COUNT] = {
    [CGS_PT2_NONE] = "none",
    [CGS_PT2_USER_INPUT] = "user_input",
    [CGS_PT2_PARAMETER] = "parameter",
    [CGS_PT2_BUFFER] = "buffer",
    [CGS_PT2_TENSOR_CONSTANT] = "tensor_constant",
    [CGS_PT2_CUSTOM_OBJ] = "custom_obj",
    [CGS_PT2_TOKEN] = "token",
    [CGS_PT2_CONSTANT_INPUT] = "constant_input",
    [CGS_PT2_USER_OUTPUT] = "user_output",
    [CGS_PT2_LOSS_OUTPUT] = "loss_output",
    [CGS_PT2_BUFFER_MUTATION] = "buffer_mutation",
    [CGS_PT2_PARAMETER_MUTATION] = "parameter_mutation",
    [CGS_PT2_GRADIENT_TO_PARAMETER] = "gradient_to_parameter",
    [CGS_PT2_GRADIENT_TO_USER_INPUT] = "gradient_to_user_input",
    [CGS_PT2_USER_INPUT_MUTATION] = "user_input_mutation",
    [CGS_PT2_OUTPUT_TOKEN] = "token",
    [CGS_PT2_UNKNOWN] = "unknown",
};

const char *cgs_pt2_kind_name(int kind)
{
    return kind >= 0 && kind < CGS_PT2_KIND_COUNT ? kind_names[kind] : "unknown";
}

/* The node name an argument spec names (TensorArgument or Argument). */
static const char *spec_arg_name(const cJSON *arg)
{
    const char *s = get_str(arg, "name");
    return s ? s : output_name(arg);
}

static void load_specs(struct pt2 *P, struct cgs_graph *g, const cJSON *list, bool outputs)
{
    static const struct {
        const char *key, *target;
        enum cgs_pt2_kind kind;
    } in_kinds[] = {
        {"user_input", NULL, CGS_PT2_USER_INPUT},
        {"parameter", "parameter_name", CGS_PT2_PARAMETER},
        {"buffer", "buffer_name", CGS_PT2_BUFFER},
        {"tensor_constant", "tensor_constant_name", CGS_PT2_TENSOR_CONSTANT},
        {"custom_obj", "custom_obj_name", CGS_PT2_CUSTOM_OBJ},
        {"token", NULL, CGS_PT2_TOKEN},
        {"constant_input", NULL, CGS_PT2_CONSTANT_INPUT},
    }, out_kinds[] = {
        {"user_output", NULL, CGS_PT2_USER_OUTPUT},
        {"loss_output", NULL, CGS_PT2_LOSS_OUTPUT},
        {"buffer_mutation", "buffer_name", CGS_PT2_BUFFER_MUTATION},
        {"parameter_mutation", "parameter_name", CGS_PT2_PARAMETER_MUTATION},
        {"gradient_to_parameter", "parameter_name", CGS_PT2_GRADIENT_TO_PARAMETER},
        {"gradient_to_user_input", "user_input_name", CGS_PT2_GRADIENT_TO_USER_INPUT},
        {"user_input_mutation", "user_input_name", CGS_PT2_USER_INPUT_MUTATION},
        {"token", NULL, CGS_PT2_OUTPUT_TOKEN},
    };
    int n = cJSON_GetArraySize(list), i = 0;
    const cJSON *it;
    struct cgs_sig_spec *specs;
    const struct cgs_node *out = NULL;

    if (!cJSON_IsArray(list) || !n)
        return;
    specs = cgs_arena_calloc(g->arena, (size_t)n, sizeof(*specs));
    for (uint32_t k = g->n_nodes; k-- > 0 && outputs;)
        if (g->nodes[k]->op == CGS_NODE_OUTPUT) {
            out = g->nodes[k];
            break;
        }
    /* inputs are parallel to the placeholders, which come first */
    uint32_t n_ph = 0;
    while (n_ph < g->n_nodes && g->nodes[n_ph]->op == CGS_NODE_PLACEHOLDER)
        n_ph++;
    cJSON_ArrayForEach(it, list) {
        struct cgs_sig_spec *sp = &specs[i];
        const cJSON *u = union_item(it);
        size_t nk = outputs ? sizeof(out_kinds) / sizeof(out_kinds[0])
                            : sizeof(in_kinds) / sizeof(in_kinds[0]);
        sp->kind = CGS_PT2_UNKNOWN;
        sp->persistent = -1;
        for (size_t k = 0; u && k < nk; k++) {
            const char *key = outputs ? out_kinds[k].key : in_kinds[k].key;
            const char *tk = outputs ? out_kinds[k].target : in_kinds[k].target;
            if (strcmp(u->string, key))
                continue;
            sp->kind = outputs ? out_kinds[k].kind : in_kinds[k].kind;
            if (tk && get_str(u, tk))
                sp->target = cgs_graph_intern(g, get_str(u, tk));
        }
        if (sp->kind == CGS_PT2_UNKNOWN)
            cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_SCHEMA, NULL,
                           "graph signature: unknown %s spec '%s'", outputs ? "output" : "input",
                           u ? u->string : cgs_json_type(it));
        if (u && sp->kind == CGS_PT2_BUFFER && get(u, "persistent"))
            sp->persistent = cJSON_IsTrue(get(u, "persistent"));
        const char *an = !u ? NULL
                         : sp->kind == CGS_PT2_CONSTANT_INPUT ? get_str(u, "name")
                                                              : spec_arg_name(get(u, "arg"));
        if (an)
            sp->arg = cgs_graph_intern(g, an);
        if (!outputs) {
            if ((uint32_t)i < n_ph) {
                sp->node = g->nodes[i];
                sp->node->pt2_kind = (int32_t)sp->kind;
            }
        } else if (out && out->n_args == 1) {
            const struct cgs_arg *a = &out->args[0];
            if (a->kind == CGS_ARG_LIST && (uint32_t)i < a->n)
                a = &a->u.items[i];
            if (a->kind == CGS_ARG_NODE)
                sp->node = a->u.node;
        }
        if (!sp->node && sp->arg)
            sp->node = cgs_graph_find(g, sp->arg);
        i++;
    }
    if (outputs) {
        g->sig_outputs = specs;
        g->n_sig_outputs = (uint32_t)n;
    } else {
        g->sig_inputs = specs;
        g->n_sig_inputs = (uint32_t)n;
    }
    (void)P;
}

/* range_constraints {"s0": {"min_val", "max_val"}} into the graph's symbols. */
static int load_ranges(struct pt2 *P, struct cgs_graph *g, size_t start, size_t end)
{
    int err = 0;
    const cJSON *it;
    cJSON *x = parse_piece(P, start, end, &err);
    if (!x)
        return err;
    if (!cJSON_IsObject(x) && !cJSON_IsNull(x)) {
        cJSON_Delete(x);
        return FAIL(P, CGS_E_SCHEMA, "expected an object for 'range_constraints'");
    }
    cJSON_ArrayForEach(it, x) {
        struct cgs_symbol *s;
        int64_t v;
        const char *c = it->string;
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_';
        for (; ok && *c; c++)
            ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' ||
                 (*c >= '0' && *c <= '9');
        if (!ok) {
            cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_SCHEMA, NULL,
                           "range constraint on '%s', which is not a symbol name: ignored",
                           it->string);
            continue;
        }
        s = cgs_graph_add_symbol(g, it->string);
        if (json_int(get(it, "min_val"), &v)) {
            s->has_min = true;
            s->min = v;
        }
        if (json_int(get(it, "max_val"), &v)) {
            s->has_max = true;
            s->max = v;
        }
    }
    cJSON_Delete(x);
    return 0;
}

/* ---- the model JSON ------------------------------------------------------------------------ */

static int load_model(struct pt2 *P)
{
    struct jiter top, gm, gr;
    size_t ks, ke, vs, ve, end;
    size_t m_gm = 0, m_sv = 0, m_sv_end = 0, m_rc = 0, m_rc_end = 0, m_tv = 0, m_tv_end = 0;
    size_t m_graph = 0, m_sig = 0, m_sig_end = 0;
    bool has_gm = false, has_sv = false, has_rc = false, has_tv = false, has_graph = false,
         has_sig = false;
    struct gsrc s;
    cJSON *sig = NULL;
    int r, err;

    /* one pass over the whole record: syntax errors with their line:col */
    size_t p = skip_ws(P, 0);
    if (p >= P->len)
        return fail_at(P, p, CGS_E_PARSE, "empty model record: expected a JSON object");
    if ((err = scan_value(P, p, &end)))
        return err;
    if (skip_ws(P, end) < P->len)
        return fail_at(P, skip_ws(P, end), CGS_E_PARSE, "malformed JSON: unexpected data "
                       "after the top-level object");
    if ((err = jiter_begin(P, p, true, &top, "the serialized ExportedProgram")))
        return err;
    while ((r = jiter_next(P, &top, &ks, &ke, &vs, &ve)) > 0) {
        if (key_is(P, ks, ke, "graph_module"))
            has_gm = true, m_gm = vs;
        else if (key_is(P, ks, ke, "schema_version"))
            has_sv = true, m_sv = vs, m_sv_end = ve;
        else if (key_is(P, ks, ke, "range_constraints"))
            has_rc = true, m_rc = vs, m_rc_end = ve;
        else if (key_is(P, ks, ke, "torch_version"))
            has_tv = true, m_tv = vs, m_tv_end = ve;
    }
    if (r < 0)
        return r;

    /* the schema version first: nothing else means anything without it */
    snprintf(P->path, sizeof(P->path), "schema_version");
    P->path_len = strlen(P->path);
    if (!has_sv)
        return fail_at(P, p, CGS_E_FORMAT, "not a serialized ExportedProgram: no "
                       "'schema_version'");
    {
        cJSON *x = parse_piece(P, m_sv, m_sv_end, &err);
        int64_t major = -1, minor = -1;
        if (!x)
            return err;
        bool ok = json_int(get(x, "major"), &major);
        json_int(get(x, "minor"), &minor);
        cJSON_Delete(x);
        if (!ok)
            return FAIL(P, CGS_E_FORMAT, "expected {\"major\": N, \"minor\": N} for "
                        "'schema_version'");
        if (major != CGS_PT2_SCHEMA_MAJOR)
            return FAIL(P, CGS_E_FORMAT, "unsupported schema version %lld.%lld of the serialized "
                        "ExportedProgram: this cgscope reads major version %d (8.x, as "
                        "PyTorch 2.11 writes)", (long long)major, (long long)minor,
                        CGS_PT2_SCHEMA_MAJOR);
    }
    if (has_tv) {
        cJSON *x = parse_piece(P, m_tv, m_tv_end, &err);
        if (cJSON_IsString(x))
            P->root->producer.version = cgs_graph_intern(P->root, x->valuestring);
        cJSON_Delete(x);
    }
    P->root->producer.tool = cgs_graph_intern(P->root, "torch");
    P->root->producer.stage = CGS_STAGE_EXPORT;

    snprintf(P->path, sizeof(P->path), "range_constraints");
    P->path_len = strlen(P->path);
    if (has_rc && (err = load_ranges(P, P->root, m_rc, m_rc_end)))
        return err;

    snprintf(P->path, sizeof(P->path), "graph_module");
    P->path_len = strlen(P->path);
    if (!has_gm)
        return fail_at(P, p, CGS_E_SCHEMA, "no 'graph_module' in the serialized "
                       "ExportedProgram");
    if ((err = jiter_begin(P, m_gm, true, &gm, "'graph_module'")))
        return err;
    while ((r = jiter_next(P, &gm, &ks, &ke, &vs, &ve)) > 0) {
        if (key_is(P, ks, ke, "graph"))
            has_graph = true, m_graph = vs;
        else if (key_is(P, ks, ke, "signature"))
            has_sig = true, m_sig = vs, m_sig_end = ve;
    }
    if (r < 0)
        return r;
    if (!has_graph)
        return fail_at(P, m_gm, CGS_E_SCHEMA, "no 'graph' in 'graph_module'");
    if (has_sig) {
        snprintf(P->path, sizeof(P->path), "graph_module.signature");
        P->path_len = strlen(P->path);
        if (!(sig = parse_piece(P, m_sig, m_sig_end, &err)))
            return err;
    }

    memset(&s, 0, sizeof(s));
    snprintf(P->path, sizeof(P->path), "graph_module.graph");
    P->path_len = strlen(P->path);
    if ((err = jiter_begin(P, m_graph, true, &gr, "'graph'")))
        goto out;
    while ((r = jiter_next(P, &gr, &ks, &ke, &vs, &ve)) > 0) {
        static const char *const keys[7] = {"inputs", "outputs", "nodes", "tensor_values",
                                            "sym_int_values", "sym_float_values",
                                            "sym_bool_values"};
        struct jsrc *dst[7] = {&s.inputs, &s.outputs, &s.nodes, &s.tensor_values,
                               &s.sym_int_values, &s.sym_float_values, &s.sym_bool_values};
        for (int k = 0; k < 7; k++)
            if (key_is(P, ks, ke, keys[k]) && P->buf[vs] != 'n') {
                dst[k]->present = dst[k]->text = true;
                dst[k]->start = vs;
            }
        if (key_is(P, ks, ke, "is_single_tensor_return"))
            s.single_return = P->buf[vs] == 't';
    }
    if ((err = r) < 0)
        goto out;
    P->piece = m_graph;
    if ((err = load_graph(P, P->root, &s, sig, 0)))
        goto out;
    if (sig) {
        load_specs(P, P->root, get(sig, "input_specs"), false);
        load_specs(P, P->root, get(sig, "output_specs"), true);
    }
    cgs_graph_link(P->root);
    for (uint32_t i = 0; i < P->root->n_subgraphs; i++)
        cgs_graph_link(P->root->subgraphs[i]);
    err = 0;
out:
    cJSON_Delete(sig);
    return err;
}

/* ---- the archive ------------------------------------------------------------------------------ */

struct archive {
    zip_t *z;
    char *root;         /* "tiny_cnn/" (heap) */
    char **models;      /* NULL-terminated (heap) */
    size_t n_models;
};

static void archive_close(struct archive *A)
{
    if (A->z)
        zip_discard(A->z);
    free(A->root);
    cgs_pt2_models_free(A->models);
    memset(A, 0, sizeof(*A));
}

void cgs_pt2_models_free(char **models)
{
    if (!models)
        return;
    for (char **m = models; *m; m++)
        free(*m);
    free(models);
}

/* Read a whole record into a heap buffer (NUL-terminated; caller frees). */
/* Records this much larger than their compressed size, and past a minimum size, are refused. */
#define PT2_BOMB_RATIO    1000u
#define PT2_BOMB_MIN_SIZE ((zip_uint64_t)64 << 20)

static int read_record(const char *file, zip_t *z, zip_int64_t idx, const char *name, size_t max,
                       char **out, size_t *len, struct cgs_diag *d)
{
    zip_stat_t st;
    zip_file_t *f;
    char *buf;
    zip_uint64_t got = 0;

    cgs_diag_at(d, file, 0, 0);
    if (zip_stat_index(z, (zip_uint64_t)idx, 0, &st) || !(st.valid & ZIP_STAT_SIZE))
        return cgs_diag_set(d, CGS_E_IO, "cannot read record '%s': %s", name,
                            zip_strerror(z));
    if (st.size > max)
        return cgs_diag_set(d, CGS_E_LIMIT, "record '%s' is %llu bytes, past the limit of %zu",
                            name, (unsigned long long)st.size, max);
    // a zip bomb: refused before a byte is inflated (torch's JSON compresses about 10:1)
    if ((st.valid & ZIP_STAT_COMP_SIZE) && st.size > PT2_BOMB_MIN_SIZE &&
        st.size / (st.comp_size ? st.comp_size : 1) > PT2_BOMB_RATIO)
        return cgs_diag_set(d, CGS_E_LIMIT, "record '%s' would inflate %llu bytes to %llu "
                            "(%llu:1): not a torch archive's record (a zip bomb?)", name,
                            (unsigned long long)st.comp_size, (unsigned long long)st.size,
                            (unsigned long long)(st.size / (st.comp_size ? st.comp_size : 1)));
    f = zip_fopen_index(z, (zip_uint64_t)idx, 0);
    if (!f)
        return cgs_diag_set(d, CGS_E_IO, "cannot read record '%s': %s (is the archive "
                            "damaged?)", name, zip_strerror(z));
    buf = malloc((size_t)st.size + 1);
    if (!buf) {
        zip_fclose(f);
        return cgs_diag_set(d, CGS_E_NOMEM, "out of memory reading record '%s'", name);
    }
    while (got < st.size) {
        zip_int64_t n = zip_fread(f, buf + got, st.size - got);
        if (n <= 0) {
            int e = cgs_diag_set(d, CGS_E_IO, "cannot read record '%s': %s (the archive is "
                                 "damaged or cut short)", name,
                                 n < 0 ? zip_file_strerror(f) : "unexpected end of data");
            free(buf);
            zip_fclose(f);
            return e;
        }
        got += (zip_uint64_t)n;
    }
    /* reading to the end checks the CRC */
    char extra;
    zip_int64_t n = zip_fread(f, &extra, 1);
    int closed = zip_fclose(f);
    if (n != 0 || closed) {
        free(buf);
        return cgs_diag_set(d, CGS_E_IO, "cannot read record '%s': %s (the archive is damaged)",
                            name, n > 0 ? "more data than its size" : "checksum error");
    }
    buf[st.size] = '\0';
    *out = buf;
    *len = (size_t)st.size;
    return 0;
}

/* A small text record under the root ("archive_format"); -CGS_E_UNKNOWN when absent. */
static int small_record(const char *file, struct archive *A, const char *rel, char *out,
                        size_t n, struct cgs_diag *d)
{
    char name[1024], *buf;
    size_t len;
    zip_int64_t idx;
    int err;
    snprintf(name, sizeof(name), "%s%s", A->root, rel);
    idx = zip_name_locate(A->z, name, 0);
    if (idx < 0)
        return -CGS_E_UNKNOWN;
    if ((err = read_record(file, A->z, idx, name, PT2_MAX_SMALL_RECORD, &buf, &len, d)))
        return err;
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
        len--;
    snprintf(out, n, "%.*s", (int)len, buf);
    free(buf);
    return 0;
}

/* The archive's bytes when it was read into memory (standard input), else NULL. */
struct archive_mem {
    const void *buf;
    size_t len;
};

static bool starts_with_zip_header(const char *path, const struct archive_mem *mem, bool *empty)
{
    unsigned char m[4] = {0};
    size_t n;
    *empty = false;
    if (mem) {
        n = mem->len < 4 ? mem->len : 4;
        memcpy(m, mem->buf, n);
    } else {
        FILE *f = fopen(path, "rb");
        if (!f)
            return false;
        n = fread(m, 1, 4, f);
        fclose(f);
    }
    *empty = n == 0;
    return n == 4 && m[0] == 'P' && m[1] == 'K' && m[2] == 3 && m[3] == 4;
}

static zip_t *open_zip(const char *path, const struct archive_mem *mem, int *zerr)
{
    zip_error_t ze;
    zip_source_t *src;
    zip_t *z;

    if (!mem)
        return zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, zerr);
    zip_error_init(&ze);
    src = zip_source_buffer_create(mem->buf, mem->len, 0, &ze);
    if (!src) {
        *zerr = zip_error_code_zip(&ze);
        zip_error_fini(&ze);
        return NULL;
    }
    z = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    if (!z) {
        *zerr = zip_error_code_zip(&ze);
        zip_source_free(src);
    }
    zip_error_fini(&ze);
    return z;
}

static int archive_open(const char *path, const struct archive_mem *mem, struct archive *A,
                        struct cgs_diag *d)
{
    int zerr = 0, err;
    zip_int64_t n;
    size_t alloc = 0;
    char buf[64];
    bool empty;

    memset(A, 0, sizeof(*A));
    cgs_diag_at(d, path, 0, 0);
    if (cgs_zip_load(d))
        return -d->code;
    A->z = open_zip(path, mem, &zerr);
    if (!A->z) {
        zip_error_t ze;
        bool local = starts_with_zip_header(path, mem, &empty);
        zip_error_init_with_code(&ze, zerr);
        if (zerr == ZIP_ER_OPEN || zerr == ZIP_ER_READ || zerr == ZIP_ER_SEEK ||
            zerr == ZIP_ER_NOENT)
            err = cgs_diag_set(d, CGS_E_IO, "cannot open: %s", zip_error_strerror(&ze));
        else if (zerr == ZIP_ER_MEMORY)
            err = cgs_diag_set(d, CGS_E_NOMEM, "out of memory opening the archive");
        else if (local)
            err = cgs_diag_set(d, CGS_E_FORMAT, "truncated or damaged zip archive: its "
                               "central directory is %s (was the file cut short?)",
                               zerr == ZIP_ER_NOZIP ? "missing" : "inconsistent");
        else if (empty)
            err = cgs_diag_set(d, CGS_E_FORMAT, "not a zip archive (the file is empty): "
                               "expected a torch.export .pt2 archive");
        else if (zerr == ZIP_ER_NOZIP)
            err = cgs_diag_set(d, CGS_E_FORMAT, "not a zip archive: expected a torch.export "
                               ".pt2 archive");
        else
            err = cgs_diag_set(d, CGS_E_FORMAT, "not a readable zip archive (%s): expected a "
                               "torch.export .pt2 archive", zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return err;
    }
    n = zip_get_num_entries(A->z, 0);
    if (n <= 0) {
        err = cgs_diag_set(d, CGS_E_FORMAT, "no model in the archive: the zip archive is "
                           "empty (expected ROOT/archive_format and ROOT/models/NAME.json)");
        goto fail;
    }
    /* the root folder is the first record's top folder (as torch's reader finds it) */
    {
        const char *first = zip_get_name(A->z, 0, 0);
        const char *slash = first ? strchr(first, '/') : NULL;
        if (!slash || slash == first) {
            err = cgs_diag_set(d, CGS_E_FORMAT, "not a torch archive: its records are not "
                               "under one top folder (first record '%s')",
                               first ? first : "?");
            goto fail;
        }
        A->root = cgs_xmalloc((size_t)(slash - first) + 2);
        memcpy(A->root, first, (size_t)(slash - first) + 1);
        A->root[slash - first + 1] = '\0';
    }
    err = small_record(path, A, ARCHIVE_FORMAT_PATH, buf, sizeof(buf), d);
    if (err == -CGS_E_UNKNOWN) {
        err = cgs_diag_set(d, CGS_E_FORMAT, "not a .pt2 archive: no '%s%s' record (a torch.save "
                           "file or another zip?)", A->root, ARCHIVE_FORMAT_PATH);
        goto fail;
    }
    if (err)
        goto fail;
    if (strcmp(buf, ARCHIVE_FORMAT_VALUE)) {
        err = cgs_diag_set(d, CGS_E_FORMAT, "unsupported archive format '%s': expected '%s'",
                           buf, ARCHIVE_FORMAT_VALUE);
        goto fail;
    }
    err = small_record(path, A, ARCHIVE_VERSION_PATH, buf, sizeof(buf), d);
    if (err && err != -CGS_E_UNKNOWN)
        goto fail;
    if (!err && strcmp(buf, ARCHIVE_VERSION_VALUE)) {
        err = cgs_diag_set(d, CGS_E_FORMAT, "unsupported archive version '%s': this cgscope "
                           "reads version %s", buf, ARCHIVE_VERSION_VALUE);
        goto fail;
    }
    /* models: ROOT/models/NAME.json */
    size_t rl = strlen(A->root), ml = strlen(MODELS_DIR), sl = strlen(MODELS_SUFFIX);
    for (zip_int64_t i = 0; i < n; i++) {
        const char *nm = zip_get_name(A->z, (zip_uint64_t)i, 0);
        size_t l = nm ? strlen(nm) : 0;
        if (l <= rl + ml + sl || strncmp(nm, A->root, rl) || strncmp(nm + rl, MODELS_DIR, ml) ||
            strcmp(nm + l - sl, MODELS_SUFFIX))
            continue;
        if (memchr(nm + rl + ml, '/', l - rl - ml - sl))
            continue;
        CGS_ALLOC_GROW(A->models, A->n_models + 2, alloc);
        A->models[A->n_models] = cgs_xmalloc(l - rl - ml - sl + 1);
        memcpy(A->models[A->n_models], nm + rl + ml, l - rl - ml - sl);
        A->models[A->n_models][l - rl - ml - sl] = '\0';
        A->models[++A->n_models] = NULL;
    }
    if (!A->n_models) {
        err = cgs_diag_set(d, CGS_E_FORMAT, "no model in the archive: no '%s%sNAME%s' record",
                           A->root, MODELS_DIR, MODELS_SUFFIX);
        goto fail;
    }
    return 0;
fail:
    archive_close(A);
    return err;
}

char **cgs_pt2_list_models(const char *path, struct cgs_diag *d)
{
    struct archive A;
    char **m;
    cgs_diag_clear(d);
    if (archive_open(path, NULL, &A, d))
        return NULL;
    m = A.models;
    A.models = NULL;
    archive_close(&A);
    return m;
}

static void list_models(const struct archive *A, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < A->n_models && len + 1 < n; i++) {
        int w = snprintf(out + len, n - len, "%s'%s'", i ? ", " : "", A->models[i]);
        if (w < 0)
            break;
        len += (size_t)w < n - len ? (size_t)w : n - len - 1;
    }
}

static struct cgs_graph *load_pt2(const char *path, const struct archive_mem *mem,
                                  const char *model, struct cgs_diag *d)
{
    struct archive A;
    struct pt2 P = {0};
    struct cgs_graph *g = NULL;
    char *buf = NULL, names[300], gname[300];
    size_t len = 0;
    const char *pick = NULL;
    zip_int64_t idx;

    cgs_diag_clear(d);
    if (archive_open(path, mem, &A, d))
        return NULL;
    cgs_diag_at(d, path, 0, 0);
    list_models(&A, names, sizeof(names));
    if (model) {
        for (size_t i = 0; i < A.n_models; i++)
            if (!strcmp(A.models[i], model))
                pick = A.models[i];
        if (!pick) {
            cgs_diag_set(d, CGS_E_INVAL, "no model '%s' in the archive (it holds %s)", model,
                         names);
            goto out;
        }
    } else if (A.n_models > 1) {
        cgs_diag_set(d, CGS_E_INVAL, "the archive holds %zu models (%s): choose one with "
                     "--model NAME", A.n_models, names);
        goto out;
    } else {
        pick = A.models[0];
    }
    P.entry = cgs_xmalloc(strlen(A.root) + strlen(MODELS_DIR) + strlen(pick) +
                          strlen(MODELS_SUFFIX) + 1);
    snprintf(P.entry, strlen(A.root) + strlen(MODELS_DIR) + strlen(pick) + strlen(MODELS_SUFFIX) + 1,
             "%s%s%s%s", A.root, MODELS_DIR, pick, MODELS_SUFFIX);
    idx = zip_name_locate(A.z, P.entry, 0);
    if (idx < 0 || read_record(path, A.z, idx, P.entry, CGS_LOAD_MAX_FILE, &buf, &len, d))
        goto out;

    /* the graph is named after the archive, and the model when it is not the default */
    snprintf(gname, sizeof(gname), "%.*s%s%s", (int)strlen(A.root) - 1, A.root,
             strcmp(pick, "model") ? ":" : "", strcmp(pick, "model") ? pick : "");
    g = cgs_graph_new(path, gname);
    P.file = path;
    P.buf = buf;
    P.len = len;
    cgs_jscan_init(&P.js, buf, len, "the end of the record");
    P.d = d;
    P.root = g;
    if (load_model(&P)) {
        cgs_graph_free(g);
        g = NULL;
    }
out:
    free(buf);
    free(P.entry);
    cgs_jscan_release(&P.js);
    archive_close(&A);
    if (g)
        cgs_diag_clear(d);
    return g;
}

struct cgs_graph *cgs_graph_load_pt2(const char *path, const char *model, struct cgs_diag *d)
{
    return load_pt2(path, NULL, model, d);
}

struct cgs_graph *cgs_graph_load_pt2_buf(const void *buf, size_t len, const char *name,
                                         const char *model, struct cgs_diag *d)
{
    struct archive_mem mem = {buf, len};
    return load_pt2(name, &mem, model, d);
}
