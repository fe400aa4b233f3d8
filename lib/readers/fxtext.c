/*
 * print_readable() text to graph JSON (lib/readers/fxtext.h): lines, then statements, then
 * expressions, read as the shapes torch.fx's code generator writes and nothing else.
 */
#include "lib/readers/fxtext.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/base/json-alloc.h"
#include "lib/base/strmap.h"
#include "lib/ir/graph.h"
#include "lib/readers/load.h"

/* ---- lines ------------------------------------------------------------------------------ */

struct line {
    const char *s; /* the text after the indentation */
    size_t n;      /* its length, without a trailing '\r' */
    uint32_t no;   /* 1-based, in the caller's numbering */
    int indent;    /* columns (a tab counts 8) */
    bool blank;    /* empty or white space only */
};

struct fx {
    const char *file;
    struct cgs_diag *d;
    struct line *lines;
    size_t n_lines;
    struct cgs_arena arena;
    cJSON *subgraphs;         /* name -> {"nodes": [...]} */
    struct cgs_strmap *syms;  /* symbol names seen (keys in the arena) */
    const char **sym_order;   /* the same, in order of first mention */
    size_t n_syms, alloc_syms;
    const cJSON *hints;       /* the caller's symbols object, or NULL */
    size_t n_classes;
    struct cgs_buf scratch;
};

static int fail(struct fx *F, uint32_t line, uint32_t col, int code, const char *fmt, ...)
    CGS_PRINTF(5, 6);

static int fail(struct fx *F, uint32_t line, uint32_t col, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cgs_diag_set(F->d, code, "%s", msg);
    cgs_diag_at(F->d, F->file, line, col);
    return -code;
}

static void split_lines(struct fx *F, const char *text, size_t len, uint32_t first)
{
    size_t cap = 64, i = 0;
    F->lines = cgs_xmalloc(cap * sizeof(*F->lines));
    while (i < len) {
        size_t e = i;
        struct line L;
        while (e < len && text[e] != '\n')
            e++;
        L.indent = 0;
        L.no = first + (uint32_t)F->n_lines;
        size_t k = i;
        while (k < e && (text[k] == ' ' || text[k] == '\t')) {
            L.indent += text[k] == '\t' ? 8 - L.indent % 8 : 1;
            k++;
        }
        L.s = text + k;
        L.n = e - k;
        if (L.n && L.s[L.n - 1] == '\r')
            L.n--;
        L.blank = L.n == 0;
        if (F->n_lines == cap) {
            cap *= 2;
            F->lines = cgs_xrealloc(F->lines, cgs_array_bytes(cap, sizeof(*F->lines)));
        }
        F->lines[F->n_lines++] = L;
        i = e + 1;
    }
}

static bool starts(const struct line *L, const char *p)
{
    size_t n = strlen(p);
    return L->n >= n && !memcmp(L->s, p, n);
}

/* ---- expressions --------------------------------------------------------------------------- */

enum ek {
    E_NAME,     /* s: a name, or a dotted name (torch.ops.aten.add.Tensor) */
    E_NUM,      /* s: the literal's text (int, float, or complex with a trailing j) */
    E_STR,      /* str: the decoded string */
    E_CALL,     /* a(items), kwargs among the items as E_KW */
    E_SUB,      /* a[b] */
    E_ATTR,     /* a.s (on something that is not a name) */
    E_BIN,      /* a op b: op is operator's name (add, floordiv, lt, ...) */
    E_UN,       /* op a: neg, pos, invert, not_ */
    E_TUPLE,    /* (items) */
    E_LIST,     /* [items] */
    E_DICT,     /* {items: key, value alternating} */
    E_ELLIPSIS, /* ... */
    E_KW,       /* s = a (in a call's items) */
};

struct ex {
    enum ek k;
    const char *s; /* the source span (E_NAME, E_NUM, E_KW: the name) */
    size_t n;
    const char *op;
    struct ex *a, *b;
    struct ex **items;
    size_t n_items;
    char *str;              /* E_STR */
    const char *src;        /* the whole expression's text */
    size_t src_n;
};

struct cur {
    struct fx *F;
    const char *p, *end, *start;
    uint32_t line;
    int depth;
    int err;
};

static int cfail(struct cur *c, const char *what)
{
    if (!c->err)
        c->err = fail(c->F, c->line, (uint32_t)(c->p - c->start) + 1, CGS_E_SCHEMA,
                      "%s (in a graph printed by torch.fx)", what);
    return c->err;
}

static void ws(struct cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool peek(struct cur *c, const char *tok)
{
    size_t n = strlen(tok);
    ws(c);
    return (size_t)(c->end - c->p) >= n && !memcmp(c->p, tok, n);
}

static bool accept(struct cur *c, const char *tok)
{
    if (!peek(c, tok))
        return false;
    c->p += strlen(tok);
    return true;
}

static struct ex *new_ex(struct cur *c, enum ek k, const char *at)
{
    struct ex *e = cgs_arena_calloc(&c->F->arena, 1, sizeof(*e));
    e->k = k;
    e->src = at;
    return e;
}

static void add_item(struct cur *c, struct ex *e, struct ex *it, size_t *cap)
{
    if (e->n_items == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        struct ex **ni = cgs_arena_alloc(&c->F->arena, nc * sizeof(*ni));
        if (e->n_items)
            memcpy(ni, e->items, e->n_items * sizeof(*ni));
        e->items = ni;
        *cap = nc;
    }
    e->items[e->n_items++] = it;
}

static bool is_ident_start(char ch)
{
    return isalpha((unsigned char)ch) || ch == '_';
}

static bool is_ident(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

static struct ex *parse_expr(struct cur *c);

/* A string literal: '...' or "..." with Python's escapes (r, b and f prefixes are not FX's). */
static struct ex *parse_string(struct cur *c)
{
    char q = *c->p;
    const char *at = c->p++;
    struct cgs_buf b = CGS_BUF_INIT;
    struct ex *e;

    while (c->p < c->end && *c->p != q) {
        char ch = *c->p++;
        if (ch == '\n') {
            cgs_buf_release(&b);
            cfail(c, "a string literal runs past the end of its line");
            return NULL;
        }
        if (ch == '\\' && c->p < c->end) {
            char x = *c->p++;
            switch (x) {
            case 'n': ch = '\n'; break;
            case 't': ch = '\t'; break;
            case 'r': ch = '\r'; break;
            case '0': ch = '\0'; break;
            case 'x':
                if (c->end - c->p >= 2 && isxdigit((unsigned char)c->p[0]) &&
                    isxdigit((unsigned char)c->p[1])) {
                    char hx[3] = {c->p[0], c->p[1], 0};
                    ch = (char)strtol(hx, NULL, 16);
                    c->p += 2;
                }
                break;
            default: ch = x; break;
            }
            if (ch == '\0') /* graph JSON strings refuse NUL */
                ch = '?';
        }
        cgs_buf_addch(&b, ch);
    }
    if (c->p >= c->end) {
        cgs_buf_release(&b);
        cfail(c, "a string literal is not closed");
        return NULL;
    }
    c->p++;
    e = new_ex(c, E_STR, at);
    e->str = cgs_arena_strdup(&c->F->arena, b.buf ? b.buf : "");
    cgs_buf_release(&b);
    return e;
}

static struct ex *parse_number(struct cur *c)
{
    const char *at = c->p;
    struct ex *e = new_ex(c, E_NUM, at);

    while (c->p < c->end && (isalnum((unsigned char)*c->p) || *c->p == '.' || *c->p == '_' ||
                             ((*c->p == '+' || *c->p == '-') && c->p > at &&
                              (c->p[-1] == 'e' || c->p[-1] == 'E') &&
                              !(c->p - at >= 2 && (at[1] == 'x' || at[1] == 'X')))))
        c->p++;
    e->s = at;
    e->n = (size_t)(c->p - at);
    return e;
}

/* items of ( [ { up to the closing bracket; E_KW for name=value inside calls */
static bool parse_items(struct cur *c, struct ex *e, char close, bool call, bool dict,
                        bool *trailing_comma)
{
    size_t cap = 0;
    char cl[2] = {close, 0};

    *trailing_comma = false;
    if (accept(c, cl))
        return true;
    for (;;) {
        struct ex *it;
        ws(c);
        if (call && is_ident_start(*c->p)) {
            /* a keyword argument: name = value (FX writes the spaces) */
            const char *q = c->p;
            while (q < c->end && is_ident(*q))
                q++;
            const char *r = q;
            while (r < c->end && *r == ' ')
                r++;
            if (r < c->end && *r == '=' && (r + 1 >= c->end || r[1] != '=')) {
                struct ex *kw = new_ex(c, E_KW, c->p);
                kw->s = c->p;
                kw->n = (size_t)(q - c->p);
                c->p = r + 1;
                if (!(kw->a = parse_expr(c)))
                    return false;
                add_item(c, e, kw, &cap);
                goto next;
            }
        }
        if (call)
            accept(c, "*"); /* *args: the value is kept */
        if (!(it = parse_expr(c)))
            return false;
        add_item(c, e, it, &cap);
        if (dict) {
            if (!accept(c, ":")) {
                cfail(c, "expected ':' in a dict");
                return false;
            }
            if (!(it = parse_expr(c)))
                return false;
            add_item(c, e, it, &cap);
        }
    next:
        if (accept(c, ",")) {
            if (accept(c, cl)) {
                *trailing_comma = true;
                return true;
            }
            continue;
        }
        if (accept(c, cl))
            return true;
        cfail(c, close == ')' ? "expected ',' or ')'" : close == ']' ? "expected ',' or ']'"
                                                                      : "expected ',' or '}'");
        return false;
    }
}

static struct ex *finish(struct cur *c, struct ex *e)
{
    if (e) {
        e->src_n = (size_t)(c->p - e->src);
    }
    return e;
}

static struct ex *parse_atom(struct cur *c)
{
    struct ex *e;
    bool tc;

    ws(c);
    if (c->p >= c->end) {
        cfail(c, "expected a value, got the end of the statement");
        return NULL;
    }
    if (++c->depth > CGS_FXTEXT_MAX_DEPTH) {
        cfail(c, "expressions nested deeper than 64 levels");
        return NULL;
    }
    const char *at = c->p;
    char ch = *c->p;
    if (ch == '\'' || ch == '"') {
        e = parse_string(c);
    } else if (isdigit((unsigned char)ch) || (ch == '.' && c->p + 1 < c->end &&
                                              isdigit((unsigned char)c->p[1]))) {
        e = parse_number(c);
    } else if (accept(c, "...")) {
        e = new_ex(c, E_ELLIPSIS, at);
    } else if (is_ident_start(ch)) {
        e = new_ex(c, E_NAME, at);
        while (c->p < c->end && is_ident(*c->p))
            c->p++;
        /* a dotted name: torch.ops.aten.add.Tensor */
        while (c->p + 1 < c->end && *c->p == '.' && is_ident_start(c->p[1])) {
            c->p++;
            while (c->p < c->end && is_ident(*c->p))
                c->p++;
        }
        e->s = at;
        e->n = (size_t)(c->p - at);
    } else if (accept(c, "(")) {
        e = new_ex(c, E_TUPLE, at);
        if (!parse_items(c, e, ')', false, false, &tc))
            e = NULL;
        else if (e->n_items == 1 && !tc)
            e = e->items[0]; /* (x) is x */
    } else if (accept(c, "[")) {
        e = new_ex(c, E_LIST, at);
        if (!parse_items(c, e, ']', false, false, &tc))
            e = NULL;
    } else if (accept(c, "{")) {
        e = new_ex(c, E_DICT, at);
        if (!parse_items(c, e, '}', false, true, &tc))
            e = NULL;
    } else {
        char msg[80];
        snprintf(msg, sizeof(msg), "expected a value, got '%c'", isprint((unsigned char)ch) ? ch : '?');
        cfail(c, msg);
        e = NULL;
    }
    c->depth--;
    if (e && e->src == at) /* not (x), whose span is x's */
        finish(c, e);
    return e;
}

static struct ex *parse_postfix(struct cur *c)
{
    struct ex *e = parse_atom(c);
    bool tc;

    while (e && !c->err) {
        if (peek(c, "(")) {
            struct ex *call = new_ex(c, E_CALL, e->src);
            accept(c, "(");
            call->a = e;
            if (++c->depth > CGS_FXTEXT_MAX_DEPTH) {
                cfail(c, "expressions nested deeper than 64 levels");
                return NULL;
            }
            if (!parse_items(c, call, ')', true, false, &tc))
                return NULL;
            c->depth--;
            e = finish(c, call);
        } else if (peek(c, "[")) {
            struct ex *sub = new_ex(c, E_SUB, e->src);
            accept(c, "[");
            sub->a = e;
            if (++c->depth > CGS_FXTEXT_MAX_DEPTH) {
                cfail(c, "expressions nested deeper than 64 levels");
                return NULL;
            }
            /* a[i, j] is a[(i, j)] */
            struct ex *idx = new_ex(c, E_TUPLE, c->p);
            if (!parse_items(c, idx, ']', false, false, &tc))
                return NULL;
            c->depth--;
            sub->b = idx->n_items == 1 && !tc ? idx->items[0] : finish(c, idx);
            e = finish(c, sub);
        } else if (c->p + 1 < c->end && *c->p == '.' && is_ident_start(c->p[1])) {
            struct ex *at = new_ex(c, E_ATTR, e->src);
            c->p++;
            at->a = e;
            at->s = c->p;
            while (c->p < c->end && is_ident(*c->p))
                c->p++;
            at->n = (size_t)(c->p - at->s);
            e = finish(c, at);
        } else {
            break;
        }
    }
    return e;
}

static struct ex *parse_unary(struct cur *c);

static struct ex *parse_power(struct cur *c)
{
    struct ex *e = parse_postfix(c);
    if (e && accept(c, "**")) {
        /* right-associative: x ** 2 ** 2 ** ... recurses once per operator */
        struct ex *b = new_ex(c, E_BIN, e->src);
        if (++c->depth > CGS_FXTEXT_MAX_DEPTH) {
            cfail(c, "expressions nested deeper than 64 levels");
            return NULL;
        }
        b->op = "pow";
        b->a = e;
        b->b = parse_unary(c);
        c->depth--;
        if (!b->b)
            return NULL;
        e = finish(c, b);
    }
    return e;
}

static struct ex *parse_unary(struct cur *c)
{
    const char *op = NULL;
    const char *at;

    ws(c);
    at = c->p;
    if (c->p < c->end && *c->p == '-')
        op = "neg";
    else if (c->p < c->end && *c->p == '+')
        op = "pos";
    else if (c->p < c->end && *c->p == '~')
        op = "invert";
    else if (c->end - c->p > 4 && !memcmp(c->p, "not ", 4))
        op = "not_";
    if (!op)
        return parse_power(c);
    c->p += !strcmp(op, "not_") ? 4 : 1;
    if (++c->depth > CGS_FXTEXT_MAX_DEPTH) {
        cfail(c, "expressions nested deeper than 64 levels");
        return NULL;
    }
    struct ex *u = new_ex(c, E_UN, at);
    u->op = op;
    u->a = parse_unary(c);
    c->depth--;
    return u->a ? finish(c, u) : NULL;
}

struct binop {
    const char *tok, *name;
};

static struct ex *parse_level(struct cur *c, int level);

static const struct binop levels[][6] = {
    {{"==", "eq"}, {"!=", "ne"}, {"<=", "le"}, {">=", "ge"}, {"<", "lt"}, {">", "gt"}},
    {{"|", "or_"}},
    {{"^", "xor"}},
    {{"&", "and_"}},
    {{"<<", "lshift"}, {">>", "rshift"}},
    {{"+", "add"}, {"-", "sub"}},
    {{"//", "floordiv"}, {"*", "mul"}, {"/", "truediv"}, {"%", "mod"}, {"@", "matmul"}},
};
#define N_LEVELS (int)(sizeof(levels) / sizeof(levels[0]))

static struct ex *parse_level(struct cur *c, int level)
{
    struct ex *e;

    if (level == N_LEVELS)
        return parse_unary(c);
    e = parse_level(c, level + 1);
    while (e && !c->err) {
        const struct binop *hit = NULL;
        ws(c);
        /* most atoms end at ',', ')' or the statement's end: no operator starts there */
        if (c->p >= c->end || !strchr("=!<>|^&+-/*%@", *c->p) || !*c->p)
            break;
        for (int i = 0; i < 6 && levels[level][i].tok; i++) {
            const char *t = levels[level][i].tok;
            size_t n = strlen(t);
            if ((size_t)(c->end - c->p) < n || memcmp(c->p, t, n))
                continue;
            /* not the first character of a longer operator or of an augmented assignment */
            char nx = c->p + n < c->end ? c->p[n] : 0;
            if (nx == '=' && strcmp(t, "==") && strcmp(t, "!=") && strcmp(t, "<=") &&
                strcmp(t, ">="))
                continue;
            if ((!strcmp(t, "*") && nx == '*') || (!strcmp(t, "/") && nx == '/') ||
                (!strcmp(t, "<") && nx == '<') || (!strcmp(t, ">") && nx == '>'))
                continue;
            hit = &levels[level][i];
            break;
        }
        if (!hit)
            break;
        c->p += strlen(hit->tok);
        struct ex *b = new_ex(c, E_BIN, e->src);
        b->op = hit->name;
        b->a = e;
        if (!(b->b = parse_level(c, level + 1)))
            return NULL;
        e = finish(c, b);
    }
    return e;
}

static struct ex *parse_expr(struct cur *c)
{
    return parse_level(c, 0);
}

/* ---- values ----------------------------------------------------------------------------- */

static const char *const dtype_abbrs[][2] = {
    {"bf16", "bfloat16"}, {"f64", "float64"}, {"f32", "float32"}, {"f16", "float16"},
    {"f8e4m3fn", "float8_e4m3fn"}, {"f8e5m2", "float8_e5m2"}, {"f8e4m3fnuz", "float8_e4m3fnuz"},
    {"f8e5m2fnuz", "float8_e5m2fnuz"}, {"f8e8m0fnu", "float8_e8m0fnu"},
    {"f4e2m1fnx2", "float4_e2m1fn_x2"}, {"c32", "complex32"}, {"c64", "complex64"},
    {"c128", "complex128"}, {"i8", "int8"}, {"i16", "int16"}, {"i32", "int32"}, {"i64", "int64"},
    {"b8", "bool"}, {"u8", "uint8"}, {"u16", "uint16"}, {"u32", "uint32"}, {"u64", "uint64"},
    {"b16", "bits16"}, {"b1x8", "bits1x8"},
};

/* Note the symbols (s0, u3, zf0, ...) an expression text mentions. */
static void note_symbols(struct fx *F, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (is_ident_start(s[i]) && (i == 0 || !is_ident(s[i - 1]))) {
            size_t j = i;
            while (j < n && is_ident(s[j]))
                j++;
            size_t k = i;
            while (k < j && isalpha((unsigned char)s[k]))
                k++;
            bool call = j < n && s[j] == '(';
            /* a lower-case name and digits not followed by '(' (Max, FloorDiv, ... are calls) */
            if (!call && k > i && k < j && islower((unsigned char)s[i])) {
                bool digits = true;
                for (size_t q = k; q < j; q++)
                    digits = digits && isdigit((unsigned char)s[q]);
                if (digits && j - i < 64) {
                    char nm[64];
                    memcpy(nm, s + i, j - i);
                    nm[j - i] = '\0';
                    if (!cgs_strmap_get(F->syms, nm)) {
                        char *key = cgs_arena_strdup(&F->arena, nm);
                        cgs_strmap_put(F->syms, key, key);
                        CGS_ALLOC_GROW(F->sym_order, F->n_syms + 1, F->alloc_syms);
                        F->sym_order[F->n_syms++] = key;
                    }
                }
            }
            i = j;
        } else {
            i++;
        }
    }
}

/* Whether t is a number in JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_number(const char *t)
{
    const char *p = t + (*t == '-');
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (isdigit((unsigned char)*p))
            p++;
    else
        return false;
    if (*p == '.') {
        if (!isdigit((unsigned char)*++p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p += p[1] == '+' || p[1] == '-';
        if (!isdigit((unsigned char)*++p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return !*p;
}

/* One DIM: an integer, or the expression's text. */
static cJSON *dim_json(struct fx *F, const char *s, size_t n)
{
    size_t i = 0;
    char buf[32];

    while (n && s[0] == ' ')
        s++, n--;
    while (n && s[n - 1] == ' ')
        n--;
    if (n && (s[0] == '-' || isdigit((unsigned char)s[0])) && n < sizeof(buf)) {
        i = s[0] == '-';
        while (i < n && isdigit((unsigned char)s[i]))
            i++;
        if (i == n && n > (size_t)(s[0] == '-')) {
            memcpy(buf, s, n);
            buf[n] = '\0';
            if (json_number(buf)) /* not "01" */
                return cJSON_CreateRaw(buf);
        }
    }
    note_symbols(F, s, n);
    char *t = cgs_arena_strndup(&F->arena, s, n);
    return cJSON_CreateString(t);
}

/* "2, s0*3, Max(s1, 1)" -> [DIM, ...] (commas inside parentheses belong to the dim) */
static cJSON *dims_json(struct fx *F, const char *s, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    size_t i = 0, start = 0;
    int depth = 0;

    while (n && s[0] == ' ')
        s++, n--;
    if (!n)
        return arr;
    for (i = 0; i <= n; i++) {
        if (i == n || (s[i] == ',' && depth == 0)) {
            cJSON_AddItemToArray(arr, dim_json(F, s + start, i - start));
            start = i + 1;
        } else if (s[i] == '(' || s[i] == '[') {
            depth++;
        } else if (s[i] == ')' || s[i] == ']') {
            depth--;
        }
    }
    return arr;
}

/* The bracketed list starting at s[*i] ('['), its content's span. */
static bool bracket(const char *s, size_t n, size_t *i, size_t *a, size_t *b)
{
    int depth = 0;
    if (*i >= n || s[*i] != '[')
        return false;
    *a = *i + 1;
    for (size_t k = *i; k < n; k++) {
        if (s[k] == '[')
            depth++;
        else if (s[k] == ']' && --depth == 0) {
            *b = k;
            *i = k + 1;
            return true;
        }
    }
    return false;
}

/*
 * An annotation to a VAL: "f32[2, s0][s0, 1]cuda:0" (dtype, shape, strides, device),
 * "Sym(s0 + 1)" (a SymInt; SymFloat and SymBool by their text). NULL when it is none of
 * them (the value stays unknown).
 */
static cJSON *annotation_val(struct fx *F, const char *s, size_t n)
{
    if (n > 5 && !memcmp(s, "Sym(", 4) && s[n - 1] == ')') {
        const char *e = s + 4;
        size_t en = n - 5;
        char *t = cgs_arena_strndup(&F->arena, e, en);
        const char *kind = "symint";
        cJSON *v;
        /* a SymInt that is a constant by now ("Sym(32)") is the plain number */
        {
            size_t k = t[0] == '-';
            while (t[k] && isdigit((unsigned char)t[k]))
                k++;
            if (!t[k] && k > (size_t)(t[0] == '-') && k < 19 && json_number(t))
                return cJSON_CreateRaw(t);
            if (!strcmp(t, "True") || !strcmp(t, "False"))
                return cJSON_CreateBool(t[0] == 'T');
        }
        v = cJSON_CreateObject();
        if (!strncmp(t, "Eq(", 3) || !strncmp(t, "Ne(", 3) || strstr(t, "<") || strstr(t, ">") ||
            strstr(t, "==") || !strcmp(t, "True") || !strcmp(t, "False") ||
            !strncmp(t, "Not(", 4) || !strncmp(t, "And(", 4) || !strncmp(t, "Or(", 3))
            kind = "symbool";
        else if (strstr(t, "zf") || strchr(t, '.') || strstr(t, "ToFloat") ||
                 strstr(t, "FloatTrueDiv"))
            kind = "symfloat";
        note_symbols(F, e, en);
        cJSON_AddStringToObject(v, kind, t);
        /* a plain symbol's hint, from the trace */
        if (!strcmp(kind, "symint") && F->hints) {
            const cJSON *h = cJSON_GetObjectItemCaseSensitive(F->hints, t);
            const cJSON *hv = h ? cJSON_GetObjectItemCaseSensitive(h, "hint") : NULL;
            if (hv && cJSON_IsNumber(hv))
                cJSON_AddItemToObject(v, "hint", cJSON_Duplicate(hv, 1));
        }
        return v;
    }
    size_t i = 0;
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_'))
        i++;
    /* a tensor subclass: "DTensor(f32[8, 4][4, 1]cuda:0, S(0))", "Cls(f32[2][1]cuda:0)": the
       tensor it wraps, as FX prints it first */
    if (i < n && s[i] == '(' && s[n - 1] == ')') {
        size_t a = i + 1, b = a;
        int depth = 0;
        while (b < n - 1 && (depth || s[b] != ',')) {
            depth += s[b] == '[' || s[b] == '(';
            depth -= s[b] == ']' || s[b] == ')';
            b++;
        }
        while (b > a && s[b - 1] == ' ')
            b--;
        return b > a ? annotation_val(F, s + a, b - a) : NULL;
    }
    const char *dtype = NULL;
    for (size_t k = 0; k < sizeof(dtype_abbrs) / sizeof(dtype_abbrs[0]); k++)
        if (strlen(dtype_abbrs[k][0]) == i && !memcmp(s, dtype_abbrs[k][0], i))
            dtype = dtype_abbrs[k][1];
    size_t a, b;
    if (!dtype || !bracket(s, n, &i, &a, &b))
        return NULL;
    cJSON *v = cJSON_CreateObject();
    cJSON_AddStringToObject(v, "dtype", dtype);
    cJSON_AddItemToObject(v, "shape", dims_json(F, s + a, b - a));
    {
        size_t sa = a, sb = b;
        bool scalar = true; /* "f32[]": a 0-dim tensor, whose strides are () */
        for (size_t k = sa; k < sb; k++)
            scalar = scalar && isspace((unsigned char)s[k]);
        if (bracket(s, n, &i, &a, &b))
            cJSON_AddItemToObject(v, "stride", dims_json(F, s + a, b - a));
        else if (scalar)
            cJSON_AddItemToObject(v, "stride", cJSON_CreateArray());
    }
    /* a printed graph records no storage offset: unknown, never taken for 0 */
    cJSON_AddNullToObject(v, "storage_offset");
    if (i < n) {
        char *dev = cgs_arena_strndup(&F->arena, s + i, n - i);
        cJSON_AddStringToObject(v, "device", dev);
    }
    return v;
}

/* ---- a graph: nodes from statements -------------------------------------------------------- */

struct gst {
    cJSON *nodes;
    struct cgs_strmap *names;  /* node name -> its cJSON object */
    struct cgs_strmap *params; /* placeholder target -> its cJSON object, until renamed */
    struct cgs_strmap *decls;  /* `name: "annotation"` without a value -> the annotation */
    const char *stack;         /* the current source line (arena), or NULL */
    bool returned;
};

/* Forget key's value; a key not in the map is not added (the maps borrow their keys: only
 * the arena's strings go in). */
static void map_clear(struct cgs_strmap *m, const char *key)
{
    if (cgs_strmap_get(m, key))
        cgs_strmap_set(m, key, NULL);
}

static const char *text_of(struct fx *F, const char *s, size_t n)
{
    return cgs_arena_strndup(&F->arena, s, n);
}

static bool span_is(const struct ex *e, const char *w)
{
    return e->n == strlen(w) && !memcmp(e->s, w, e->n);
}

static bool dotted_prefix(const struct ex *e, const char *pre)
{
    size_t n = strlen(pre);
    return e->n > n && !memcmp(e->s, pre, n);
}

static cJSON *to_arg(struct fx *F, struct gst *G, const struct ex *e, bool list_marked);

static cJSON *repr_arg(struct fx *F, const struct ex *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "repr", text_of(F, e->src, e->src_n ? e->src_n : e->n));
    return o;
}

static cJSON *name_arg(struct fx *F, struct gst *G, const struct ex *e)
{
    char nm[256];
    if (e->n >= sizeof(nm))
        return repr_arg(F, e);
    memcpy(nm, e->s, e->n);
    nm[e->n] = '\0';
    if (!strcmp(nm, "None"))
        return cJSON_CreateNull();
    if (!strcmp(nm, "True") || !strcmp(nm, "False"))
        return cJSON_CreateBool(nm[0] == 'T');
    if (!strcmp(nm, "inf") || !strcmp(nm, "nan") || !strcmp(nm, "math.inf") ||
        !strcmp(nm, "math.nan")) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "float", strchr(nm, '.') ? strchr(nm, '.') + 1 : nm);
        return o;
    }
    if (!strcmp(nm, "Ellipsis")) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddBoolToObject(o, "ellipsis", 1);
        return o;
    }
    if (cgs_strmap_get(G->names, nm)) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "node", nm);
        return o;
    }
    if (!strncmp(nm, "torch.", 6)) {
        const char *w = nm + 6;
        static const char *const fmts[] = {"contiguous_format", "channels_last",
                                           "channels_last_3d", "preserve_format"};
        static const char *const layouts[] = {"strided", "sparse_coo", "sparse_csr", "sparse_csc",
                                              "sparse_bsr", "sparse_bsc", "_mkldnn", "jagged"};
        cJSON *o = cJSON_CreateObject();
        if (cgs_dtype_from_name(w) != CGS_DTYPE_UNKNOWN) {
            cJSON_AddStringToObject(o, "dtype", w);
            return o;
        }
        for (size_t i = 0; i < 4; i++)
            if (!strcmp(w, fmts[i])) {
                cJSON_AddStringToObject(o, "memory_format", w);
                return o;
            }
        for (size_t i = 0; i < 8; i++)
            if (!strcmp(w, layouts[i])) {
                cJSON_AddStringToObject(o, "layout", w);
                return o;
            }
        cJSON_Delete(o);
    }
    return repr_arg(F, e);
}

static cJSON *items_arg(struct fx *F, struct gst *G, const struct ex *e)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < e->n_items; i++)
        cJSON_AddItemToArray(a, to_arg(F, G, e->items[i], false));
    return a;
}

static cJSON *to_arg(struct fx *F, struct gst *G, const struct ex *e, bool list_marked)
{
    cJSON *o;
    switch (e->k) {
    case E_NAME:
        return name_arg(F, G, e);
    case E_NUM:
        if (e->n && (e->s[e->n - 1] == 'j' || e->s[e->n - 1] == 'J'))
            return repr_arg(F, e);
        if (e->n > 1 && e->s[0] == '0' && (e->s[1] == 'x' || e->s[1] == 'o' || e->s[1] == 'b' ||
                                            e->s[1] == 'X' || e->s[1] == 'O' || e->s[1] == 'B'))
            return repr_arg(F, e); /* not FX's repr of an int */
        {
            /* JSON's number grammar: Python's 1e-05 and 0.5 are JSON; "1." or "01" are not */
            char *t = cgs_arena_strndup(&F->arena, e->s, e->n);
            return json_number(t) ? cJSON_CreateRaw(t) : repr_arg(F, e);
        }
    case E_STR:
        return cJSON_CreateString(e->str);
    case E_ELLIPSIS:
        o = cJSON_CreateObject();
        cJSON_AddBoolToObject(o, "ellipsis", 1);
        return o;
    case E_TUPLE:
        return items_arg(F, G, e);
    case E_LIST:
        if (list_marked) {
            o = cJSON_CreateObject();
            cJSON_AddItemToObject(o, "list", items_arg(F, G, e));
            return o;
        }
        return items_arg(F, G, e);
    case E_DICT:
        o = cJSON_CreateObject();
        {
            cJSON *pairs = cJSON_CreateArray();
            for (size_t i = 0; i + 1 < e->n_items; i += 2) {
                cJSON *pr = cJSON_CreateArray();
                cJSON_AddItemToArray(pr, to_arg(F, G, e->items[i], false));
                cJSON_AddItemToArray(pr, to_arg(F, G, e->items[i + 1], false));
                cJSON_AddItemToArray(pairs, pr);
            }
            cJSON_AddItemToObject(o, "dict", pairs);
        }
        return o;
    case E_UN:
        /* a negative literal: -1, -0.5, -inf */
        if (!strcmp(e->op, "neg") && e->a->k == E_NUM) {
            cJSON *v = to_arg(F, G, e->a, false);
            if (cJSON_IsRaw(v)) {
                char *t = cgs_xmalloc(strlen(v->valuestring) + 2);
                t[0] = '-';
                strcpy(t + 1, v->valuestring);
                cJSON_Delete(v);
                v = cJSON_CreateRaw(t);
                free(t);
            }
            return v;
        }
        if (!strcmp(e->op, "neg") && e->a->k == E_NAME && span_is(e->a, "inf")) {
            o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "float", "-inf");
            return o;
        }
        return repr_arg(F, e);
    case E_CALL:
        if (e->a->k == E_NAME && (span_is(e->a, "device") || span_is(e->a, "torch.device"))) {
            /* device(type='cuda', index=0), torch.device('cuda', 0) */
            const char *type = NULL;
            long long index = -1;
            for (size_t i = 0; i < e->n_items; i++) {
                const struct ex *it = e->items[i];
                const struct ex *v = it->k == E_KW ? it->a : it;
                bool is_type = it->k == E_KW ? it->n == 4 && !memcmp(it->s, "type", 4) : i == 0;
                if (is_type && v->k == E_STR)
                    type = v->str;
                else if (v->k == E_NUM)
                    index = strtoll(text_of(F, v->s, v->n), NULL, 10);
            }
            if (type) {
                char dev[96];
                if (index >= 0 && !strchr(type, ':'))
                    snprintf(dev, sizeof(dev), "%.64s:%lld", type, index);
                else
                    snprintf(dev, sizeof(dev), "%.64s", type);
                o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "device", dev);
                return o;
            }
        }
        if (e->a->k == E_NAME && span_is(e->a, "slice") && e->n_items <= 3) {
            /* slice(stop) is slice(None, stop, None) */
            const struct ex *parts[3] = {NULL, NULL, NULL};
            if (e->n_items == 1)
                parts[1] = e->items[0];
            else
                for (size_t i = 0; i < e->n_items; i++)
                    parts[i] = e->items[i];
            cJSON *arr = cJSON_CreateArray();
            for (size_t i = 0; i < 3; i++)
                cJSON_AddItemToArray(arr, parts[i] ? to_arg(F, G, parts[i], false)
                                                   : cJSON_CreateNull());
            o = cJSON_CreateObject();
            cJSON_AddItemToObject(o, "slice", arr);
            return o;
        }
        if (e->a->k == E_NAME && span_is(e->a, "torch.Size") && e->n_items == 1)
            return to_arg(F, G, e->items[0], false);
        return repr_arg(F, e);
    default:
        return repr_arg(F, e);
    }
}

/* The target of a callee: torch.ops.aten.add.Tensor -> aten.add.Tensor; a builtin by its bare
 * name -> builtins.name; other dotted names as written. */
static const char *target_of(struct fx *F, const struct ex *callee)
{
    if (dotted_prefix(callee, "torch.ops."))
        return text_of(F, callee->s + 10, callee->n - 10);
    if (!memchr(callee->s, '.', callee->n)) {
        char *t = cgs_arena_alloc(&F->arena, callee->n + 10);
        memcpy(t, "builtins.", 9);
        memcpy(t + 9, callee->s, callee->n);
        t[callee->n + 9] = '\0';
        return t;
    }
    return text_of(F, callee->s, callee->n);
}

static cJSON *new_node(struct gst *G, const char *name, const char *op, const char *target)
{
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "name", name);
    cJSON_AddStringToObject(n, "op", op);
    cJSON_AddStringToObject(n, "target", target);
    cJSON_AddItemToObject(n, "args", cJSON_CreateArray());
    cJSON_AddItemToObject(n, "kwargs", cJSON_CreateObject());
    cJSON_AddItemToArray(G->nodes, n);
    return n;
}

static void add_call_args(struct fx *F, struct gst *G, cJSON *node, const struct ex *call,
                          const struct ex *self_arg)
{
    cJSON *args = cJSON_GetObjectItemCaseSensitive(node, "args");
    cJSON *kwargs = cJSON_GetObjectItemCaseSensitive(node, "kwargs");
    if (self_arg)
        cJSON_AddItemToArray(args, to_arg(F, G, self_arg, false));
    for (size_t i = 0; i < call->n_items; i++) {
        const struct ex *it = call->items[i];
        if (it->k == E_KW) {
            char *k = cgs_arena_strndup(&F->arena, it->s, it->n);
            cJSON_AddItemToObject(kwargs, k, to_arg(F, G, it->a, false));
        } else {
            cJSON_AddItemToArray(args, to_arg(F, G, it, false));
        }
    }
}

static bool name_in(struct gst *G, const struct ex *e)
{
    char nm[256];
    if (e->k != E_NAME || e->n >= sizeof(nm) || memchr(e->s, '.', e->n))
        return false;
    memcpy(nm, e->s, e->n);
    nm[e->n] = '\0';
    return cgs_strmap_get(G->names, nm) != NULL;
}

/*
 * The path of a module or attribute of self that e names, as FX's _format_target writes one:
 * self.a.b, and getattr(P, "0") for a part that is no identifier (a numbered child of a
 * Sequential), then .c on that. Written into buf ("layers.0.weight"); false when e is none.
 */
static bool self_path(const struct ex *e, char *buf, size_t size)
{
    size_t len;

    if (e->k == E_NAME && dotted_prefix(e, "self.")) {
        if (e->n - 5 >= size)
            return false;
        memcpy(buf, e->s + 5, e->n - 5);
        buf[e->n - 5] = '\0';
        return true;
    }
    if (e->k == E_CALL && e->a && e->a->k == E_NAME && e->a->n == 7 &&
        !memcmp(e->a->s, "getattr", 7) && e->n_items == 2 && e->items[1]->k == E_STR &&
        self_path(e->items[0], buf, size)) {
        len = strlen(buf);
        if (len + 1 + strlen(e->items[1]->str) >= size)
            return false;
        snprintf(buf + len, size - len, ".%s", e->items[1]->str);
        return true;
    }
    if (e->k == E_ATTR && e->a && self_path(e->a, buf, size)) {
        len = strlen(buf);
        if (len + 1 + e->n >= size)
            return false;
        snprintf(buf + len, size - len, ".%.*s", (int)e->n, e->s);
        return true;
    }
    return false;
}

/*
 * The node an assignment's right-hand side makes, named name; NULL with the error set when it
 * is no shape FX writes.
 */
static cJSON *node_from(struct fx *F, struct gst *G, struct cur *c, const char *name,
                        const struct ex *e)
{
    cJSON *n;
    const char *dot;
    char path[512];

    if (self_path(e, path, sizeof(path))) /* self.a, getattr(self.layers, "0").weight */
        return new_node(G, name, "get_attr", text_of(F, path, strlen(path)));
    switch (e->k) {
    case E_CALL: {
        const struct ex *callee = e->a;
        if (self_path(callee, path, sizeof(path))) {
            n = new_node(G, name, "call_module", text_of(F, path, strlen(path)));
            add_call_args(F, G, n, e, NULL);
            return n;
        }
        /* obj.method(...) on a node: call_method */
        if (callee->k == E_NAME && (dot = memchr(callee->s, '.', callee->n))) {
            struct ex head = *callee;
            head.n = (size_t)(dot - callee->s);
            head.src_n = head.n;
            if (name_in(G, &head)) {
                const char *last = callee->s + callee->n;
                while (last > callee->s && last[-1] != '.')
                    last--;
                n = new_node(G, name, "call_method",
                             text_of(F, last, (size_t)(callee->s + callee->n - last)));
                add_call_args(F, G, n, e, &head);
                return n;
            }
        }
        if (callee->k == E_ATTR && callee->a) { /* (expr).method(...) */
            n = new_node(G, name, "call_method", text_of(F, callee->s, callee->n));
            add_call_args(F, G, n, e, callee->a);
            return n;
        }
        if (callee->k != E_NAME) {
            cfail(c, "expected a function, a method or a module to call");
            return NULL;
        }
        n = new_node(G, name, "call_function", target_of(F, callee));
        add_call_args(F, G, n, e, NULL);
        return n;
    }
    case E_BIN: {
        char t[32];
        snprintf(t, sizeof(t), "operator.%s", e->op);
        n = new_node(G, name, "call_function", t);
        cJSON *args = cJSON_GetObjectItemCaseSensitive(n, "args");
        cJSON_AddItemToArray(args, to_arg(F, G, e->a, false));
        cJSON_AddItemToArray(args, to_arg(F, G, e->b, false));
        return n;
    }
    case E_UN: {
        char t[32];
        snprintf(t, sizeof(t), "operator.%s", e->op);
        n = new_node(G, name, "call_function", t);
        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(n, "args"),
                             to_arg(F, G, e->a, false));
        return n;
    }
    case E_SUB: {
        n = new_node(G, name, "call_function", "operator.getitem");
        cJSON *args = cJSON_GetObjectItemCaseSensitive(n, "args");
        cJSON_AddItemToArray(args, to_arg(F, G, e->a, false));
        /* an index that is a list is advanced indexing: say so ({"list": ...}) */
        cJSON_AddItemToArray(args, to_arg(F, G, e->b, true));
        return n;
    }
    case E_NAME: {
        if (dotted_prefix(e, "self.")) {
            n = new_node(G, name, "get_attr", text_of(F, e->s + 5, e->n - 5));
            return n;
        }
        /* x.shape: builtins.getattr with a name, as FX prints a two-argument getattr */
        size_t last = e->n;
        while (last && e->s[last - 1] != '.')
            last--;
        if (last) {
            struct ex obj = *e;
            obj.n = last - 1;
            if (name_in(G, &obj)) {
                n = new_node(G, name, "call_function", "builtins.getattr");
                cJSON *args = cJSON_GetObjectItemCaseSensitive(n, "args");
                cJSON_AddItemToArray(args, to_arg(F, G, &obj, false));
                cJSON_AddItemToArray(args, cJSON_CreateString(text_of(F, e->s + last,
                                                                      e->n - last)));
                return n;
            }
        }
        cfail(c, "expected a call, an operator, a subscript or self.ATTR");
        return NULL;
    }
    case E_ATTR: { /* (expr).attr: the same, on a value that is no plain name */
        n = new_node(G, name, "call_function", "builtins.getattr");
        cJSON *args = cJSON_GetObjectItemCaseSensitive(n, "args");
        cJSON_AddItemToArray(args, to_arg(F, G, e->a, false));
        cJSON_AddItemToArray(args, cJSON_CreateString(text_of(F, e->s, e->n)));
        return n;
    }
    default:
        cfail(c, "expected a call, an operator, a subscript or self.ATTR");
        return NULL;
    }
}

/* Python text seen one character at a time: whether it is inside a string literal, and how
 * deep in brackets. lex_code takes s[*i] (a string's escape: the next one too) and says whether
 * it is code, outside strings and no quote; depth already counts it when it is a bracket. */
struct lex {
    int depth;
    char q;
};

/* Bytes that are code to every reader of lex_code below and that none of them looks at: printable
 * ASCII but quotes, brackets, backslash, '#', ';' and '='. Outside strings they are passed
 * over in a run. A bit per byte: 0x00-0x3f, then 0x40-0x7f. */
#define LEX_BIT(c) (1ull << ((unsigned)(c) & 63))
static const uint64_t lex_plain_lo =
    0xffffffff00000000ull & ~(LEX_BIT('"') | LEX_BIT('#') | LEX_BIT('\'') | LEX_BIT('(') |
                              LEX_BIT(')') | LEX_BIT(';') | LEX_BIT('='));
static const uint64_t lex_plain_hi =
    0x7fffffffffffffffull & ~(LEX_BIT('[') | LEX_BIT('\\') | LEX_BIT(']') | LEX_BIT('{') |
                              LEX_BIT('}'));
#undef LEX_BIT

static inline bool lex_plain(unsigned char c)
{
    return c < 64 ? lex_plain_lo >> c & 1 : c < 128 ? lex_plain_hi >> (c - 64) & 1 : false;
}

/* From i, past the bytes lex_code would call code and the reader would not look at. */
static inline size_t lex_skip(const struct lex *x, const char *s, size_t i, size_t n)
{
    if (!x->q)
        while (i < n && lex_plain((unsigned char)s[i]))
            i++;
    return i;
}

static bool lex_code(struct lex *x, const char *s, size_t *i)
{
    char ch = s[*i];
    if (x->q) {
        if (ch == '\\')
            (*i)++;
        else if (ch == x->q)
            x->q = 0;
        return false;
    }
    if (ch == '\'' || ch == '"') {
        x->q = ch;
        return false;
    }
    if (ch == '(' || ch == '[' || ch == '{')
        x->depth++;
    else if (ch == ')' || ch == ']' || ch == '}')
        x->depth--;
    return true;
}

/* Split a logical line at the ';' that are outside strings and brackets: the number of
 * segments, of which the first max are stored. */
static size_t segments(const char *s, size_t n, size_t *starts, size_t *lens, size_t max)
{
    size_t k = 0, start = 0;
    struct lex x = {0, 0};
    for (size_t i = 0; i <= n; i++) {
        char ch = ';'; /* the end ends the last segment */
        i = lex_skip(&x, s, i, n);
        if (i < n) {
            if (!lex_code(&x, s, &i))
                continue;
            ch = s[i];
        }
        if (ch == '#' && x.depth == 0) {
            n = i; /* a trailing comment */
            ch = ';';
        }
        if (ch == ';' && x.depth <= 0) {
            if (k < max) {
                starts[k] = start;
                lens[k] = i - start;
            }
            k++;
            start = i + 1;
            if (i >= n)
                break;
        }
    }
    return k;
}

/* The top-level '=' of an assignment (not ==, <=, >=, !=, not inside brackets or strings);
 * *aug set to the operator's length for an augmented one (+=, //=, ...). */
static long assign_at(const char *s, size_t n, size_t *aug)
{
    struct lex x = {0, 0};
    *aug = 0;
    for (size_t i = 0; i < n; i++) {
        if ((i = lex_skip(&x, s, i, n)) >= n)
            break;
        if (!lex_code(&x, s, &i))
            continue;
        if (s[i] == '=' && x.depth == 0) {
            if (i + 1 < n && s[i + 1] == '=') {
                i++;
                continue;
            }
            if (i && (s[i - 1] == '!' || s[i - 1] == '<' || s[i - 1] == '>' || s[i - 1] == '=')) {
                /* <=, >= are comparisons unless they are <<= and >>= */
                if (!(i >= 2 && s[i - 2] == s[i - 1] && (s[i - 1] == '<' || s[i - 1] == '>')))
                    continue;
            }
            size_t k = i;
            while (k > 0 && strchr("+-*/%@&|^<>", s[k - 1]))
                k--;
            *aug = i - k;
            return (long)k;
        }
    }
    return -1;
}

static const char *aug_name(const char *op, size_t n)
{
    static const char *const t[][2] = {
        {"+", "iadd"},  {"-", "isub"},      {"*", "imul"},   {"/", "itruediv"}, {"//", "ifloordiv"},
        {"%", "imod"},  {"**", "ipow"},     {"@", "imatmul"}, {"&", "iand"},    {"|", "ior"},
        {"^", "ixor"},  {"<<", "ilshift"},  {">>", "irshift"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strlen(t[i][0]) == n && !memcmp(t[i][0], op, n))
            return t[i][1];
    return NULL;
}

static void trim(const char **s, size_t *n)
{
    while (*n && isspace((unsigned char)**s))
        (*s)++, (*n)--;
    while (*n && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

static bool all_ident(const char *s, size_t n)
{
    if (!n || !is_ident_start(s[0]))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!is_ident(s[i]))
            return false;
    return true;
}

static struct ex *parse_whole(struct fx *F, const char *s, size_t n, uint32_t line,
                              const char *line_start, int *err)
{
    struct cur c = {F, s, s + n, line_start, line, 0, 0};
    struct ex *e = parse_expr(&c);
    if (e && !c.err) {
        ws(&c);
        if (c.p < c.end)
            cfail(&c, "unexpected text after the expression");
    }
    *err = c.err;
    return c.err ? NULL : e;
}

/* "# File: /m.py:12 in forward, code: y = x.relu()" -> a stack trace as Python prints one */
static const char *stack_from_comment(struct fx *F, const char *s, size_t n)
{
    const char *code = NULL, *in = NULL, *colon = NULL;
    size_t head_n;
    for (size_t i = 0; i + 8 <= n; i++)
        if (!memcmp(s + i, ", code: ", 8)) {
            code = s + i + 8;
            break;
        }
    head_n = code ? (size_t)(code - 8 - s) : n;
    for (size_t i = head_n; i-- > 0;)
        if (i + 4 <= head_n && !memcmp(s + i, " in ", 4)) {
            in = s + i;
            break;
        }
    if (!in)
        return NULL;
    for (const char *p = in; p-- > s;)
        if (*p == ':') {
            colon = p;
            break;
        }
    if (!colon)
        return NULL;
    cgs_buf_reset(&F->scratch);
    cgs_buf_addf(&F->scratch, "File \"%.*s\", line %.*s, in %.*s", (int)(colon - s), s,
                 (int)(in - colon - 1), colon + 1, (int)(head_n - (size_t)(in + 4 - s)), in + 4);
    if (code)
        cgs_buf_addf(&F->scratch, "\n    %.*s", (int)(n - (size_t)(code - s)), code);
    return cgs_arena_strdup(&F->arena, F->scratch.buf);
}

static void set_val(cJSON *node, cJSON *val, const char *stack)
{
    if (val)
        cJSON_AddItemToObject(node, "val", val);
    if (stack)
        cJSON_AddStringToObject(node, "stack_trace", stack);
}

/* The annotation of "name: \"...\" = ..." as a VAL, or NULL. */
static cJSON *lhs_val(struct fx *F, const char *s, size_t n)
{
    const char *q1 = memchr(s, '"', n);
    const char *q2 = q1 ? memchr(q1 + 1, '"', (size_t)(s + n - q1 - 1)) : NULL;
    if (!q1 || !q2)
        return NULL;
    return annotation_val(F, q1 + 1, (size_t)(q2 - q1 - 1));
}

/* One statement (a segment of a logical line). *pending_aug carries `a += b` and
 * `a[i] = b` (operator.setitem) to the segment that names its result. */
static int statement(struct fx *F, struct gst *G, const struct line *L, const char *base,
                     const char *s, size_t n, const struct ex **pend_aug_e)
{
    size_t aug;
    long eq;
    int err = 0;

    trim(&s, &n);
    if (!n || (n == 4 && !memcmp(s, "pass", 4)))
        return 0;
    if (n >= 6 && !memcmp(s, "return", 6) && (n == 6 || !is_ident(s[6]))) {
        cJSON *out = new_node(G, "output", "output", "output");
        cJSON *args = cJSON_GetObjectItemCaseSensitive(out, "args");
        const char *r = s + 6;
        size_t rn = n - 6;
        trim(&r, &rn);
        if (!rn) {
            cJSON_AddItemToArray(args, cJSON_CreateNull());
        } else {
            struct ex *e = parse_whole(F, r, rn, L->no, base, &err);
            if (!e)
                return err;
            /* export's `return pytree.tree_unflatten((a, b), self._out_spec)`: the values */
            if (e->k == E_CALL && e->a->k == E_NAME && e->n_items >= 1 &&
                (span_is(e->a, "pytree.tree_unflatten") || span_is(e->a, "tree_unflatten")))
                e = e->items[0];
            cJSON_AddItemToArray(args, to_arg(F, G, e, false));
        }
        G->returned = true;
        return 0;
    }
    eq = assign_at(s, n, &aug);
    if (eq < 0) {
        /* an AOT joint graph declares its flattened inputs: `primals_1: "f32[8][1]cuda:0"` */
        const char *colon = memchr(s, ':', n);
        size_t nn = colon ? (size_t)(colon - s) : 0;
        while (nn && isspace((unsigned char)s[nn - 1]))
            nn--;
        if (colon && all_ident(s, nn)) {
            const char *nm = text_of(F, s, nn);
            cgs_strmap_set(G->decls, nm, (void *)text_of(F, colon, n - (size_t)(colon - s)));
            return 0;
        }
    }
    if (eq < 0)
        return fail(F, L->no, (uint32_t)(s - base) + 1, CGS_E_SCHEMA,
                    "expected an assignment ('name = ...'), 'return' or a comment (in a graph "
                    "printed by torch.fx)");
    const char *lhs = s, *rhs = s + eq + aug + 1;
    size_t lhs_n = (size_t)eq, rhs_n = n - (size_t)eq - aug - 1;
    trim(&lhs, &lhs_n);
    trim(&rhs, &rhs_n);
    if (aug) {
        const char *op = aug_name(s + eq, aug);
        struct ex *a, *b;
        if (!op || !all_ident(lhs, lhs_n))
            return fail(F, L->no, (uint32_t)(s - base) + 1, CGS_E_SCHEMA,
                        "expected 'name OP= value'");
        if (!(a = parse_whole(F, lhs, lhs_n, L->no, base, &err)) ||
            !(b = parse_whole(F, rhs, rhs_n, L->no, base, &err)))
            return err;
        struct ex *bin = cgs_arena_calloc(&F->arena, 1, sizeof(*bin));
        bin->k = E_BIN;
        bin->op = op;
        bin->a = a;
        bin->b = b;
        bin->src = s;
        bin->src_n = n;
        *pend_aug_e = bin;
        return 0;
    }
    /* inv_perm[perm] = arange_5;  setitem = inv_perm: operator.setitem, as FX prints it (the
     * store, then the statement that names its result, as for `a += b`) */
    if (lhs_n && lhs[lhs_n - 1] == ']' && is_ident_start(lhs[0]) && memchr(lhs, '[', lhs_n) &&
        all_ident(lhs, (size_t)((const char *)memchr(lhs, '[', lhs_n) - lhs))) {
        struct ex *a, *b;
        if (!(a = parse_whole(F, lhs, lhs_n, L->no, base, &err)) ||
            !(b = parse_whole(F, rhs, rhs_n, L->no, base, &err)))
            return err;
        if (a->k != E_SUB)
            return fail(F, L->no, (uint32_t)(lhs - base) + 1, CGS_E_SCHEMA,
                        "expected 'name[index] = value' (operator.setitem)");
        struct ex *st = cgs_arena_calloc(&F->arena, 1, sizeof(*st));
        st->k = E_BIN;
        st->op = "setitem";
        st->a = a;
        st->b = b;
        st->src = s;
        st->src_n = n;
        *pend_aug_e = st;
        return 0;
    }
    /* `a = b = None`: FX freeing values, not a node */
    {
        size_t aug2;
        if ((rhs_n == 4 && !memcmp(rhs, "None", 4)) || assign_at(rhs, rhs_n, &aug2) >= 0)
            return 0;
    }
    /* a, b, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec): the inputs,
     * flattened; they become the placeholders, in place of the pytree parameters */
    size_t plain = 0;
    while (plain < lhs_n && lhs[plain] != ':' && lhs[plain] != '"')
        plain++;
    if (memchr(lhs, ',', plain)) {
        struct ex *e = parse_whole(F, rhs, rhs_n, L->no, base, &err);
        if (!e)
            return err;
        if (e->k != E_CALL || e->a->k != E_NAME || e->a->n < 17 ||
            memcmp(e->a->s + e->a->n - 17, "tree_flatten_spec", 17))
            return fail(F, L->no, (uint32_t)(lhs - base) + 1, CGS_E_SCHEMA,
                        "expected one name before '=' (a tuple is unpacked only from "
                        "tree_flatten_spec)");
        int first = -1;
        for (int k = cJSON_GetArraySize(G->nodes) - 1; k >= 0; k--) {
            cJSON *nd = cJSON_GetArrayItem(G->nodes, k);
            const cJSON *op = cJSON_GetObjectItemCaseSensitive(nd, "op");
            if (cJSON_IsString(op) && !strcmp(op->valuestring, "placeholder")) {
                const char *nm = cJSON_GetObjectItemCaseSensitive(nd, "name")->valuestring;
                bool flattened = false;
                const struct ex *arg0 = e->n_items ? e->items[0] : NULL;
                for (size_t q = 0; arg0 && q < arg0->n_items; q++)
                    flattened = flattened || (arg0->items[q]->k == E_NAME &&
                                              span_is(arg0->items[q], nm));
                if (flattened) {
                    map_clear(G->names, nm);
                    map_clear(G->params, nm);
                    cJSON_DeleteItemFromArray(G->nodes, k);
                    first = k;
                }
            }
        }
        if (first < 0)
            first = 0;
        /* the nodes after the pytree parameters wait while the flattened ones go in */
        cJSON *rest = cJSON_CreateArray();
        while (cJSON_GetArraySize(G->nodes) > first)
            cJSON_AddItemToArray(rest, cJSON_DetachItemFromArray(G->nodes, first));
        const char *p = lhs, *pe = lhs + lhs_n;
        while (p < pe) {
            while (p < pe && (*p == ',' || isspace((unsigned char)*p)))
                p++;
            const char *q = p;
            while (q < pe && is_ident(*q))
                q++;
            if (q == p)
                break;
            const char *nm = text_of(F, p, (size_t)(q - p));
            if (cgs_strmap_get(G->names, nm)) {
                err = fail(F, L->no, (uint32_t)(p - base) + 1, CGS_E_SCHEMA,
                           "node '%s' is defined twice", nm);
                break;
            }
            cJSON *ph = new_node(G, nm, "placeholder", nm);
            const char *ann = cgs_strmap_get(G->decls, nm);
            cJSON *val = ann ? lhs_val(F, ann, strlen(ann)) : NULL;
            if (val)
                cJSON_AddItemToObject(ph, "val", val);
            cgs_strmap_put(G->names, nm, ph);
            p = q;
        }
        while (cJSON_GetArraySize(rest))
            cJSON_AddItemToArray(G->nodes, cJSON_DetachItemFromArray(rest, 0));
        cJSON_Delete(rest);
        return err;
    }
    /* the name, and its annotation */
    const char *colon = memchr(lhs, ':', lhs_n);
    size_t name_n = colon ? (size_t)(colon - lhs) : lhs_n;
    while (name_n && isspace((unsigned char)lhs[name_n - 1]))
        name_n--;
    if (!all_ident(lhs, name_n))
        return fail(F, L->no, (uint32_t)(lhs - base) + 1, CGS_E_SCHEMA,
                    "expected a node's name before '='");
    const char *name = text_of(F, lhs, name_n);
    cJSON *val = colon ? lhs_val(F, colon, lhs_n - (size_t)(colon - lhs)) : NULL;
    cJSON *node;
    if (*pend_aug_e) {
        /* out_4 += x_3;  out_5: "..." = out_4 */
        const struct ex *bin = *pend_aug_e;
        *pend_aug_e = NULL;
        if (cgs_strmap_get(G->names, name)) {
            cJSON_Delete(val);
            return fail(F, L->no, (uint32_t)(lhs - base) + 1, CGS_E_SCHEMA,
                        "node '%s' is defined twice", name);
        }
        char t[32];
        snprintf(t, sizeof(t), "operator.%s", bin->op);
        node = new_node(G, name, "call_function", t);
        cJSON *args = cJSON_GetObjectItemCaseSensitive(node, "args");
        if (!strcmp(bin->op, "setitem")) { /* (object, index, value) */
            cJSON_AddItemToArray(args, to_arg(F, G, bin->a->a, false));
            cJSON_AddItemToArray(args, to_arg(F, G, bin->a->b, true));
        } else {
            cJSON_AddItemToArray(args, to_arg(F, G, bin->a, false));
        }
        cJSON_AddItemToArray(args, to_arg(F, G, bin->b, false));
        set_val(node, val, G->stack);
        cgs_strmap_put(G->names, name, node);
        return 0;
    }
    /* l_x_ = L_x_: the placeholder's node name */
    if (all_ident(rhs, rhs_n)) {
        char pn[256];
        snprintf(pn, sizeof(pn), "%.*s", (int)(rhs_n < 255 ? rhs_n : 255), rhs);
        cJSON *ph = cgs_strmap_get(G->params, pn);
        if (ph && !cgs_strmap_get(G->names, name)) {
            cJSON_ReplaceItemInObjectCaseSensitive(ph, "name", cJSON_CreateString(name));
            map_clear(G->params, pn);
            map_clear(G->names, pn); /* the node is called name now */
            cgs_strmap_put(G->names, name, ph);
            cJSON_Delete(val);
            return 0;
        }
    }
    if (cgs_strmap_get(G->names, name)) {
        cJSON_Delete(val);
        return fail(F, L->no, (uint32_t)(lhs - base) + 1, CGS_E_SCHEMA,
                    "node '%s' is defined twice", name);
    }
    struct ex *e = parse_whole(F, rhs, rhs_n, L->no, base, &err);
    if (!e) {
        cJSON_Delete(val);
        return err;
    }
    struct cur c = {F, rhs, rhs + rhs_n, base, L->no, 0, 0};
    if (!(node = node_from(F, G, &c, name, e))) {
        cJSON_Delete(val);
        return c.err;
    }
    set_val(node, val, G->stack);
    cgs_strmap_put(G->names, name, node);
    return 0;
}

/* The parameters of `def forward(self, a: "...", b, *args):` (joined lines) as placeholders. */
static int signature(struct fx *F, struct gst *G, const struct line *L, const char *s, size_t n)
{
    const char *open = memchr(s, '(', n);
    size_t i, start;
    int depth = 0;
    char q = 0;

    if (!open)
        return fail(F, L->no, 1, CGS_E_SCHEMA, "expected 'def forward(self, ...):'");
    start = (size_t)(open - s) + 1;
    for (i = start; i < n; i++) {
        char ch = s[i];
        if (q) {
            if (ch == '\\')
                i++;
            else if (ch == q)
                q = 0;
            continue;
        }
        if (ch == '\'' || ch == '"') {
            q = ch;
            continue;
        }
        if (ch == '(' || ch == '[')
            depth++;
        else if ((ch == ')' || ch == ']') && depth > 0)
            depth--;
        else if ((ch == ',' || ch == ')') && depth == 0) {
            const char *p = s + start;
            size_t pn = i - start;
            trim(&p, &pn);
            const char *stars = p;
            if (pn && *p == '*')
                p++, pn--;
            if (pn && *p == '*')
                p++, pn--;
            if (pn) {
                /* a default FX prints from the placeholder's first arg: `x: "f32[]" = 2.0` */
                const char *dflt = NULL;
                size_t dn = 0;
                for (size_t k = 0, qq = 0; k < pn; k++) {
                    if (qq) {
                        if (p[k] == '\\')
                            k++;
                        else if (p[k] == (char)qq)
                            qq = 0;
                    } else if (p[k] == '"' || p[k] == '\'') {
                        qq = (size_t)p[k];
                    } else if (p[k] == '=') {
                        dflt = p + k + 1, dn = pn - k - 1;
                        break;
                    }
                }
                const char *colon = NULL, *eqs = NULL;
                for (size_t k = 0; k < pn; k++) {
                    if (p[k] == '"' || p[k] == '\'')
                        break;
                    if (p[k] == ':' && !colon)
                        colon = p + k;
                    if (p[k] == '=' && !eqs)
                        eqs = p + k;
                }
                size_t nn = colon ? (size_t)(colon - p) : eqs ? (size_t)(eqs - p) : pn;
                while (nn && isspace((unsigned char)p[nn - 1]))
                    nn--;
                if (!all_ident(p, nn))
                    return fail(F, L->no, 1, CGS_E_SCHEMA,
                                "expected a parameter name in forward's signature, got '%.*s'",
                                (int)(pn < 60 ? pn : 60), p);
                const char *nm = text_of(F, p, nn);
                if (strcmp(nm, "self")) {
                    if (cgs_strmap_get(G->names, nm))
                        return fail(F, L->no, 1, CGS_E_SCHEMA,
                                    "parameter '%s' appears twice", nm);
                    /* *args keeps its star in the target, as FX's placeholder does */
                    cJSON *ph = new_node(G, nm, "placeholder",
                                         p > stars ? text_of(F, stars, (size_t)(p - stars) + nn)
                                                   : nm);
                    cJSON *val = colon ? lhs_val(F, colon, pn - (size_t)(colon - p)) : NULL;
                    set_val(ph, val, NULL);
                    if (dflt) {
                        int err = 0;
                        trim(&dflt, &dn);
                        struct ex *e = parse_whole(F, dflt, dn, L->no, s, &err);
                        if (!e)
                            return err;
                        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(ph, "args"),
                                             to_arg(F, G, e, false));
                    }
                    cgs_strmap_put(G->names, nm, ph);
                    cgs_strmap_put(G->params, nm, ph);
                }
            }
            start = i + 1;
            if (ch == ')')
                return 0;
        }
    }
    return fail(F, L->no, 1, CGS_E_SCHEMA, "forward's signature is not closed with ')'");
}

/* Join the lines of a statement whose brackets are still open (the signature, a long call). */
static size_t logical(struct fx *F, size_t i, size_t end, struct cgs_buf *out, bool strip_comments)
{
    struct lex x = {0, 0};
    cgs_buf_reset(out);
    for (;;) {
        const struct line *L = &F->lines[i];
        size_t n = L->n;
        for (size_t k = 0; (k = lex_skip(&x, L->s, k, L->n)) < L->n; k++)
            if (lex_code(&x, L->s, &k) && L->s[k] == '#' && strip_comments) {
                n = k;
                break;
            }
        if (out->len)
            cgs_buf_addch(out, ' ');
        cgs_buf_add(out, L->s, n);
        x.q = 0; /* a string does not go on past its line */
        if (x.depth <= 0 || i + 1 >= end || out->len > CGS_FXTEXT_MAX_STMT)
            return i;
        i++;
    }
}

static int parse_class(struct fx *F, size_t i, size_t end, cJSON *nodes);

/* The end (exclusive) of the block of lines indented deeper than indent, from i. */
static size_t block_end(struct fx *F, size_t i, size_t end, int indent)
{
    while (i < end && (F->lines[i].blank || F->lines[i].indent > indent ||
                       (F->lines[i].n && F->lines[i].s[0] == '#' && F->lines[i].indent > indent)))
        i++;
    while (i > 0 && i <= end && F->lines[i - 1].blank)
        i--;
    return i;
}

static int forward_body(struct fx *F, struct gst *G, size_t i, size_t end)
{
    struct cgs_buf lg = CGS_BUF_INIT;
    const struct ex *pend = NULL;
    int err = 0;

    for (; i < end && !err; i++) {
        const struct line *L = &F->lines[i];
        if (L->blank)
            continue;
        if (L->s[0] == '#') {
            if (L->n > 8 && !memcmp(L->s, "# File: ", 8))
                G->stack = stack_from_comment(F, L->s + 8, L->n - 8);
            else if (starts(L, "# No stacktrace found"))
                G->stack = NULL;
            continue;
        }
        size_t last = logical(F, i, end, &lg, true);
        size_t st0[256], ln0[256], *st = st0, *ln = ln0;
        size_t k = segments(lg.buf, lg.len, st, ln, 256);
        if (k > 256) { /* a line of more statements: every one is read */
            st = cgs_xmalloc(k * sizeof(*st));
            ln = cgs_xmalloc(k * sizeof(*ln));
            segments(lg.buf, lg.len, st, ln, k);
        }
        for (size_t j = 0; j < k && !err; j++)
            err = statement(F, G, L, lg.buf, lg.buf + st[j], ln[j], &pend);
        if (st != st0) {
            free(st);
            free(ln);
        }
        if (!err && pend) {
            err = fail(F, L->no, 1, CGS_E_SCHEMA,
                       "an augmented assignment ('a += b') or a store ('a[i] = b') without the "
                       "statement that names "
                       "its result");
        }
        i = last;
    }
    cgs_buf_release(&lg);
    return err;
}

/* The body of a class whose line is line no, lines[i..end): its forward is the graph. Nested
 * classes go into F->subgraphs. */
static int class_body(struct fx *F, uint32_t no, size_t i, size_t end, cJSON *nodes)
{
    struct gst G = {nodes, cgs_strmap_new(), cgs_strmap_new(), cgs_strmap_new(), NULL, false};
    bool had_forward = false;
    int err = 0;
    struct cgs_buf lg = CGS_BUF_INIT;

    if (++F->n_classes > CGS_FXTEXT_MAX_CLASSES) {
        err = fail(F, no, 1, CGS_E_LIMIT, "more than %d nested classes",
                   CGS_FXTEXT_MAX_CLASSES);
        goto out;
    }
    for (; i < end && !err;) {
        const struct line *L = &F->lines[i];
        if (L->blank || L->s[0] == '#') {
            i++;
            continue;
        }
        if (starts(L, "class ")) {
            size_t be = block_end(F, i + 1, end, L->indent);
            const char *nm = L->s + 6;
            size_t nn = 0;
            while (nn < L->n - 6 && is_ident(nm[nn]))
                nn++;
            if (!nn) {
                err = fail(F, L->no, 7, CGS_E_SCHEMA, "expected a class name");
                break;
            }
            const char *cname = text_of(F, nm, nn);
            cJSON *body = cJSON_CreateObject();
            cJSON *bn = cJSON_AddArrayToObject(body, "nodes");
            err = parse_class(F, i, be, bn);
            if (!err && !cJSON_GetObjectItemCaseSensitive(F->subgraphs, cname))
                cJSON_AddItemToObject(F->subgraphs, cname, body);
            else
                cJSON_Delete(body);
            i = be;
            continue;
        }
        if (starts(L, "def forward")) {
            size_t last = logical(F, i, end, &lg, true);
            size_t be = block_end(F, last + 1, end, L->indent);
            if (had_forward) {
                err = fail(F, L->no, 1, CGS_E_SCHEMA, "a second forward in one class");
                break;
            }
            had_forward = true;
            err = signature(F, &G, L, lg.buf, lg.len);
            if (!err)
                err = forward_body(F, &G, last + 1, be);
            if (!err && !G.returned)
                err = fail(F, L->no, 1, CGS_E_SCHEMA, "forward has no return statement");
            i = be;
            continue;
        }
        if (starts(L, "def ")) { /* another method: not the graph */
            i = block_end(F, i + 1, end, L->indent);
            continue;
        }
        i++; /* class attributes and the like */
    }
    if (!err && !had_forward)
        err = fail(F, no, 1, CGS_E_SCHEMA, "class without a forward method");
out:
    cgs_buf_release(&lg);
    cgs_strmap_free(G.names);
    cgs_strmap_free(G.params);
    cgs_strmap_free(G.decls);
    return err;
}

/* class NAME(...): at lines[i]; its body up to end. */
static int parse_class(struct fx *F, size_t i, size_t end, cJSON *nodes)
{
    return class_body(F, F->lines[i].no, i + 1, end, nodes);
}

static int inline_pieces(cJSON *doc);

/* The graph's inputs (placeholders, get_attr) start at storage offset 0, as every cgscope graph
 * input does: inference has somewhere to start; the offsets of other nodes stay unknown (null:
 * not compared with what cgscope infers). */
static void offset_zero(cJSON *val)
{
    cJSON *it;
    if (cJSON_IsArray(val)) {
        cJSON_ArrayForEach(it, val)
            offset_zero(it);
    } else if (cJSON_IsObject(val) && cJSON_GetObjectItemCaseSensitive(val, "storage_offset")) {
        cJSON_DeleteItemFromObjectCaseSensitive(val, "storage_offset");
    }
}

static void inputs_at_offset_zero(cJSON *nodes)
{
    cJSON *n;
    cJSON_ArrayForEach(n, nodes)
    {
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(n, "op");
        if (cJSON_IsString(op) &&
            (!strcmp(op->valuestring, "placeholder") || !strcmp(op->valuestring, "get_attr")))
            offset_zero(cJSON_GetObjectItemCaseSensitive(n, "val"));
    }
}

cJSON *cgs_fxtext_to_json(const char *text, size_t len, const char *file, uint32_t first_line,
                          const struct cgs_fxtext_opts *o, struct cgs_diag *d)
{
    struct fx F;
    cJSON *doc = NULL, *nodes, *prod, *syms;
    size_t i, top_def;
    int err = 0;

    memset(&F, 0, sizeof(F));
    F.file = file ? file : "graph";
    F.d = d;
    if (len > CGS_FXTEXT_MAX_BYTES) {
        fail(&F, first_line, 0, CGS_E_LIMIT, "a printed graph of more than 256 MiB");
        return NULL;
    }
    cgs_arena_init(&F.arena);
    F.syms = cgs_strmap_new();
    F.hints = o ? o->symbols : NULL;
    split_lines(&F, text, len, first_line ? first_line : 1);
    /* the graph's class; what comes before it (a file's imports, a header comment) and after
     * it is not the graph. Older depyf wrote the forward alone, at the top level. */
    for (i = 0; i < F.n_lines && !starts(&F.lines[i], "class "); i++)
        ;
    for (top_def = 0; i == F.n_lines && top_def < F.n_lines; top_def++)
        if (F.lines[top_def].indent == 0 && starts(&F.lines[top_def], "def forward("))
            break;
    if (i == F.n_lines && top_def == F.n_lines) {
        fail(&F, i < F.n_lines ? F.lines[i].no : first_line, 1, CGS_E_FORMAT,
             "expected 'class NAME(torch.nn.Module):', the first line of a graph printed by "
             "torch.fx (print_readable)");
        goto out;
    }
    doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "format", "cgscope.graph");
    cJSON_AddNumberToObject(doc, "version", 1);
    cJSON_AddStringToObject(doc, "name", o && o->name ? o->name : F.file);
    prod = cJSON_AddObjectToObject(doc, "producer");
    cJSON_AddStringToObject(prod, "tool", "torch");
    if (o && o->stage)
        cJSON_AddStringToObject(prod, "stage", o->stage);
    if (o && o->compile_id)
        cJSON_AddStringToObject(prod, "compile_id", o->compile_id);
    if (o && o->is_inference >= 0)
        cJSON_AddBoolToObject(prod, "is_inference", o->is_inference);
    if (o && o->is_backward >= 0)
        cJSON_AddBoolToObject(prod, "is_backward", o->is_backward);
    syms = cJSON_AddObjectToObject(doc, "symbols");
    nodes = cJSON_AddArrayToObject(doc, "nodes");
    F.subgraphs = cJSON_CreateObject();
    if (i < F.n_lines) {
        const struct line *C = &F.lines[i];
        size_t end = block_end(&F, i + 1, F.n_lines, C->indent);
        err = parse_class(&F, i, end, nodes);
    } else {
        size_t end = block_end(&F, top_def + 1, F.n_lines, 0);
        err = class_body(&F, F.lines[top_def].no, top_def, end, nodes);
    }
    if (err) {
        cJSON_Delete(doc);
        cJSON_Delete(F.subgraphs);
        doc = NULL;
        goto out;
    }
    inputs_at_offset_zero(nodes);
    if (cJSON_GetArraySize(F.subgraphs)) {
        const cJSON *sg;
        cJSON_ArrayForEach(sg, F.subgraphs)
            inputs_at_offset_zero(cJSON_GetObjectItemCaseSensitive(sg, "nodes"));
        cJSON_AddItemToObject(doc, "subgraphs", F.subgraphs);
    }
    else
        cJSON_Delete(F.subgraphs);
    if (inline_pieces(doc)) {
        fail(&F, first_line, 1, CGS_E_NOMEM, "out of memory putting a split graph's pieces "
             "back together");
        cJSON_Delete(doc);
        doc = NULL;
        goto out;
    }
    /* the symbols the sizes mention, with what the trace knew of them */
    for (size_t k = 0; k < F.n_syms; k++) {
        const char *nm = F.sym_order[k];
        const cJSON *h = F.hints ? cJSON_GetObjectItemCaseSensitive(F.hints, nm) : NULL;
        cJSON_AddItemToObject(syms, nm, h ? cJSON_Duplicate(h, 1) : cJSON_CreateObject());
    }
out:
    cgs_buf_release(&F.scratch);
    cgs_strmap_free(F.syms);
    free(F.sym_order);
    cgs_arena_release(&F.arena);
    free(F.lines);
    return doc;
}


/* ---- split graphs: vLLM's and MagiCompiler's computation_graph.py ----------------------- */

/* A copy of ARG a with every {"node": NAME} that m maps replaced by what it maps to (a node
 * reference, or a list for a piece that returns several values); NULL when out of memory. */
static cJSON *remap_arg(const cJSON *a, const struct cgs_strmap *m)
{
    cJSON *o;

    if (cJSON_IsObject(a)) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(a, "node");
        if (cJSON_IsString(n) && !a->child->next) {
            const cJSON *to = cgs_strmap_get(m, n->valuestring);
            return cJSON_Duplicate(to ? to : a, 1);
        }
    } else if (!cJSON_IsArray(a)) {
        return cJSON_Duplicate(a, 1);
    }
    /* a list or a dict: each item remapped */
    if (!(o = cJSON_IsObject(a) ? cJSON_CreateObject() : cJSON_CreateArray()))
        return NULL;
    for (const cJSON *it = a->child; it; it = it->next) {
        cJSON *c = remap_arg(it, m);
        if (!c) {
            cJSON_Delete(o);
            return NULL;
        }
        if (cJSON_IsObject(a))
            cJSON_AddItemToObject(o, it->string, c);
        else
            cJSON_AddItemToArray(o, c);
    }
    return o;
}

/* node's "args" and "kwargs" remapped in place */
static bool remap_node(cJSON *node, const struct cgs_strmap *m)
{
    static const char *const keys[] = {"args", "kwargs"};
    for (int k = 0; k < 2; k++) {
        cJSON *a = cJSON_GetObjectItemCaseSensitive(node, keys[k]), *c;
        if (!a)
            continue;
        if (!(c = remap_arg(a, m)))
            return false;
        cJSON_ReplaceItemInObjectCaseSensitive(node, keys[k], c);
    }
    return true;
}

static const char *str_field(const cJSON *node, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(node, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Is this graph what torch.fx's split_module made (vLLM's and MagiCompiler's split graph)?
 * Every call_module calls a printed class named submod_N, and there is one. */
static bool is_split_graph(const cJSON *nodes, const cJSON *subgraphs)
{
    int calls = 0;
    for (const cJSON *n = nodes->child; n; n = n->next) {
        const char *op = str_field(n, "op"), *t = str_field(n, "target");
        if (!op || strcmp(op, "call_module"))
            continue;
        if (!t || strncmp(t, "submod_", 7) || !cJSON_GetObjectItemCaseSensitive(subgraphs, t))
            return false;
        calls++;
    }
    return calls > 0;
}

/*
 * The pieces of a split graph put back into one graph, as it was before split_module: each
 * call of submod_N is replaced by the piece's nodes, its inputs bound to the call's arguments,
 * and what reads the piece's results (the call itself, or getitem of it) reads the piece's
 * returned values. Each inlined node keeps the piece it came from ("piece": "submod_N"), so the
 * split the compiler made can be set beside cgscope's. A name the flat graph already has gets
 * the piece's name appended. The pieces leave `subgraphs`; other nested graphs stay. 0, or -1
 * when out of memory (the graph left as it was).
 */
static int inline_pieces(cJSON *doc)
{
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    cJSON *subgraphs = cJSON_GetObjectItemCaseSensitive(doc, "subgraphs");
    cJSON *flat, *keep = NULL;
    struct cgs_strmap *top = NULL, *used = NULL;
    int rc = -1;

    if (!nodes || !subgraphs || !is_split_graph(nodes, subgraphs))
        return 0;
    flat = cJSON_CreateArray();
    keep = cJSON_CreateArray(); /* what the maps point to: alive until the end */
    top = cgs_strmap_new();
    used = cgs_strmap_new();
    if (!flat || !keep || !top || !used)
        goto out;
    for (const cJSON *n = nodes->child; n; n = n->next) {
        const char *op = str_field(n, "op"), *name = str_field(n, "name");
        cJSON *copy;
        if (!op || !name)
            goto out;
        if (!strcmp(op, "call_function") && !strcmp(str_field(n, "target") ? str_field(n, "target") : "", "operator.getitem")) {
            /* getitem of a piece's results: the result itself */
            const cJSON *args = cJSON_GetObjectItemCaseSensitive(n, "args");
            const cJSON *src = args ? cJSON_GetArrayItem(args, 0) : NULL;
            const cJSON *idx = args ? cJSON_GetArrayItem(args, 1) : NULL;
            const char *sn = src ? str_field(src, "node") : NULL;
            const cJSON *res = sn ? cgs_strmap_get(top, sn) : NULL;
            /* integers are written raw (exact past 2^53) */
            long k = cJSON_IsRaw(idx) ? strtol(idx->valuestring, NULL, 10)
                     : cJSON_IsNumber(idx) ? (long)idx->valuedouble : -1;
            if (res && cJSON_IsArray(res) && k >= 0 && k < cJSON_GetArraySize(res)) {
                cgs_strmap_set(top, name, cJSON_GetArrayItem(res, (int)k));
                continue;
            }
        }
        if (!strcmp(op, "call_module")) {
            const char *piece = str_field(n, "target");
            const cJSON *body = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(subgraphs, piece), "nodes");
            const cJSON *args = cJSON_GetObjectItemCaseSensitive(n, "args");
            struct cgs_strmap *local = cgs_strmap_new();
            const cJSON *arg = args ? args->child : NULL;
            cJSON *result = NULL;
            bool ok = local && body;
            for (const cJSON *b = body ? body->child : NULL; ok && b; b = b->next) {
                const char *bop = str_field(b, "op"), *bname = str_field(b, "name");
                if (!bop || !bname) {
                    ok = false;
                } else if (!strcmp(bop, "placeholder")) {
                    /* the piece's input: the call's argument in its place */
                    cJSON *bound = arg ? remap_arg(arg, top) : cJSON_CreateNull();
                    ok = bound != NULL;
                    if (ok) {
                        cJSON_AddItemToArray(keep, bound);
                        cgs_strmap_set(local, bname, bound);
                    }
                    arg = arg ? arg->next : NULL;
                } else if (!strcmp(bop, "output")) {
                    const cJSON *oa = cJSON_GetObjectItemCaseSensitive(b, "args");
                    result = oa && oa->child ? remap_arg(oa->child, local) : NULL;
                    ok = result != NULL;
                    if (ok)
                        cJSON_AddItemToArray(keep, result);
                } else {
                    cJSON *c = cJSON_Duplicate(b, 1), *ref;
                    const char *nn;
                    ok = c && remap_node(c, local);
                    if (ok && cgs_strmap_get(used, bname)) {
                        char fresh[512];
                        snprintf(fresh, sizeof(fresh), "%s_%s", bname, piece);
                        cJSON_ReplaceItemInObjectCaseSensitive(c, "name", cJSON_CreateString(fresh));
                    }
                    if (ok) {
                        cJSON_AddStringToObject(c, "piece", piece);
                        cJSON_AddItemToArray(flat, c);
                        nn = str_field(c, "name");
                        cgs_strmap_set(used, nn, (void *)nn);
                        ref = cJSON_CreateObject();
                        ok = ref && cJSON_AddStringToObject(ref, "node", nn);
                        if (ok) {
                            cJSON_AddItemToArray(keep, ref);
                            cgs_strmap_set(local, bname, ref);
                        }
                    } else {
                        cJSON_Delete(c);
                    }
                }
            }
            cgs_strmap_free(local);
            if (!ok || !result)
                goto out;
            cgs_strmap_set(top, name, result);
            continue;
        }
        if (!(copy = cJSON_Duplicate(n, 1)) || !remap_node(copy, top)) {
            cJSON_Delete(copy);
            goto out;
        }
        cJSON_AddItemToArray(flat, copy);
        cgs_strmap_set(used, str_field(copy, "name"), (void *)str_field(copy, "name"));
    }
    for (const cJSON *n = nodes->child; n; n = n->next)
        if (str_field(n, "op") && !strcmp(str_field(n, "op"), "call_module"))
            cJSON_DeleteItemFromObjectCaseSensitive(subgraphs, str_field(n, "target"));
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "nodes", flat);
    flat = NULL;
    if (!cJSON_GetArraySize(subgraphs))
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "subgraphs");
    rc = 0;
out:
    cJSON_Delete(flat);
    cgs_strmap_free(top);
    cgs_strmap_free(used);
    cJSON_Delete(keep);
    return rc;
}

struct cgs_graph *cgs_graph_load_fxtext(const char *text, size_t len, const char *file,
                                        uint32_t first_line, const struct cgs_fxtext_opts *o,
                                        struct cgs_diag *d)
{
    struct cgs_jbump region;
    struct cgs_graph *g = NULL;
    cJSON *doc;

    /* the document is made, read and dropped here: in a bump region, no free per item (a
     * fifth of `graphs` on TORCH_TRACE logs was cJSON_Delete's walk) */
    cgs_jbump_begin(&region);
    if ((doc = cgs_fxtext_to_json(text, len, file, first_line, o, d)))
        g = cgs_graph_load_json_tree(doc, file, first_line, d);
    cgs_jbump_end(&region);
    return g;
}
