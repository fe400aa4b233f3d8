/*
 * print_readable() text read (lib/readers/fxtext.h): lines, then statements, then expressions,
 * read as the shapes torch.fx's code generator writes and nothing else, into the model of
 * lib/readers/fxtext-int.h; lib/readers/fxtext-out.c writes it out.
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
#include "lib/readers/fxtext-int.h"
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
    struct fsub *subs;        /* the nested classes' graphs, in order (their names distinct) */
    size_t n_subs, alloc_subs;
    struct cgs_strmap *syms;  /* symbol names seen (keys in the arena) */
    const char **sym_order;   /* the same, in order of first mention */
    size_t n_syms, alloc_syms;
    const cJSON *hints;       /* the caller's symbols object, or NULL */
    size_t n_classes;
    struct cgs_buf scratch;
    /* the lines of the last logical line (logical()): where each starts in it, and its number */
    size_t *part_off;
    uint32_t *part_no;
    size_t n_parts, alloc_parts, alloc_part_no;
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

/* The line of the text at off in the last logical line. */
static uint32_t line_at(const struct fx *F, size_t off)
{
    size_t lo = 0, hi = F->n_parts; /* the last part starting at or before off */
    if (!hi)
        return 0;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (F->part_off[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    return F->part_no[lo];
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

/* ---- the graph as read (the model: lib/readers/fxtext-int.h) ----------------------------- */

static void fg_push(struct fgraph *G, struct fn *n)
{
    CGS_ALLOC_GROW(G->v, G->n + 1, G->cap);
    G->v[G->n++] = n;
}

static struct fsub *find_sub(struct fx *F, const char *name)
{
    for (size_t i = 0; i < F->n_subs; i++)
        if (!strcmp(F->subs[i].name, name))
            return &F->subs[i];
    return NULL;
}

static bool is_op(const struct fn *n, const char *op)
{
    return !strcmp(n->op, op);
}

/* One DIM: an integer, or the expression's text. */
static void dim_of(struct fx *F, const char *s, size_t n, struct fdim *d)
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
            if (json_number(buf)) { /* not "01" */
                d->t = cgs_arena_strdup(&F->arena, buf);
                d->num = true;
                return;
            }
        }
    }
    note_symbols(F, s, n);
    d->t = cgs_arena_strndup(&F->arena, s, n);
    d->num = false;
}

/* "2, s0*3, Max(s1, 1)" -> DIMs (commas inside parentheses belong to the dim) */
static struct fdim *dims_of(struct fx *F, const char *s, size_t n, uint32_t *count)
{
    size_t i, start = 0, k = 0, total = 1;
    int depth = 0;
    struct fdim *d;

    *count = 0;
    while (n && s[0] == ' ')
        s++, n--;
    if (!n)
        return NULL;
    for (i = 0; i < n; i++) {
        if (s[i] == ',' && depth == 0)
            total++;
        else if (s[i] == '(' || s[i] == '[')
            depth++;
        else if (s[i] == ')' || s[i] == ']')
            depth--;
    }
    d = cgs_arena_calloc(&F->arena, total, sizeof(*d));
    depth = 0;
    for (i = 0; i <= n; i++) {
        if (i == n || (s[i] == ',' && depth == 0)) {
            dim_of(F, s + start, i - start, &d[k++]);
            start = i + 1;
        } else if (s[i] == '(' || s[i] == '[') {
            depth++;
        } else if (s[i] == ')' || s[i] == ']') {
            depth--;
        }
    }
    *count = (uint32_t)k;
    return d;
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
static struct fv *annotation_val(struct fx *F, const char *s, size_t n)
{
    struct fv *v;
    if (n > 5 && !memcmp(s, "Sym(", 4) && s[n - 1] == ')') {
        const char *e = s + 4;
        size_t en = n - 5;
        char *t = cgs_arena_strndup(&F->arena, e, en);
        const char *kind = "symint";
        v = cgs_arena_calloc(&F->arena, 1, sizeof(*v));
        v->text = t;
        /* a SymInt that is a constant by now ("Sym(32)") is the plain number */
        {
            size_t k = t[0] == '-';
            while (t[k] && isdigit((unsigned char)t[k]))
                k++;
            if (!t[k] && k > (size_t)(t[0] == '-') && k < 19 && json_number(t)) {
                v->k = FV_NUM;
                return v;
            }
            if (!strcmp(t, "True") || !strcmp(t, "False")) {
                v->k = FV_BOOL;
                v->b = t[0] == 'T';
                return v;
            }
        }
        if (!strncmp(t, "Eq(", 3) || !strncmp(t, "Ne(", 3) || strstr(t, "<") || strstr(t, ">") ||
            strstr(t, "==") || !strncmp(t, "Not(", 4) || !strncmp(t, "And(", 4) ||
            !strncmp(t, "Or(", 3))
            kind = "symbool";
        else if (strstr(t, "zf") || strchr(t, '.') || strstr(t, "ToFloat") ||
                 strstr(t, "FloatTrueDiv"))
            kind = "symfloat";
        note_symbols(F, e, en);
        v->k = FV_SYM;
        v->kind = kind;
        /* a plain symbol's hint, from the trace */
        if (!strcmp(kind, "symint") && F->hints) {
            const cJSON *h = cJSON_GetObjectItemCaseSensitive(F->hints, t);
            const cJSON *hv = h ? cJSON_GetObjectItemCaseSensitive(h, "hint") : NULL;
            if (hv && cJSON_IsNumber(hv))
                v->hint = hv;
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
    v = cgs_arena_calloc(&F->arena, 1, sizeof(*v));
    v->k = FV_TENSOR;
    v->dtype = dtype;
    v->shape = dims_of(F, s + a, b - a, &v->n_shape);
    {
        bool scalar = true; /* "f32[]": a 0-dim tensor, whose strides are () */
        for (size_t k = a; k < b; k++)
            scalar = scalar && isspace((unsigned char)s[k]);
        if (bracket(s, n, &i, &a, &b)) {
            v->has_stride = true;
            v->stride = dims_of(F, s + a, b - a, &v->n_stride);
        } else if (scalar) {
            v->has_stride = true;
        }
    }
    /* a printed graph records no storage offset: unknown, never taken for 0 */
    if (i < n)
        v->device = cgs_arena_strndup(&F->arena, s + i, n - i);
    return v;
}

/* ---- a graph: nodes from statements -------------------------------------------------------- */

struct gst {
    struct fgraph *nodes;
    struct cgs_strmap *names;  /* node name -> its struct fn */
    struct cgs_strmap *params; /* placeholder target -> its struct fn, until renamed */
    struct cgs_strmap *decls;  /* `name: "annotation"` without a value -> the annotation */
    const char *stack;         /* the current source line (arena), or NULL */
    uint32_t line;             /* the statement's line */
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

static void to_arg(struct fx *F, struct gst *G, const struct ex *e, bool list_marked,
                   struct fa *o);

static void set_arg(struct fa *o, enum fak k, const char *s)
{
    memset(o, 0, sizeof(*o));
    o->k = (uint8_t)k;
    o->s = s;
}

static void repr_arg(struct fx *F, const struct ex *e, struct fa *o)
{
    set_arg(o, FA_REPR, text_of(F, e->src, e->src_n ? e->src_n : e->n));
}

static void name_arg(struct fx *F, struct gst *G, const struct ex *e, struct fa *o)
{
    char nm[256];
    if (e->n >= sizeof(nm)) {
        repr_arg(F, e, o);
        return;
    }
    memcpy(nm, e->s, e->n);
    nm[e->n] = '\0';
    if (!strcmp(nm, "None")) {
        set_arg(o, FA_NULL, NULL);
        return;
    }
    if (!strcmp(nm, "True") || !strcmp(nm, "False")) {
        set_arg(o, FA_BOOL, NULL);
        o->b = nm[0] == 'T';
        return;
    }
    if (!strcmp(nm, "inf") || !strcmp(nm, "nan") || !strcmp(nm, "math.inf") ||
        !strcmp(nm, "math.nan")) {
        const char *w = strchr(nm, '.') ? strchr(nm, '.') + 1 : nm;
        set_arg(o, FA_FLOAT, cgs_arena_strdup(&F->arena, w));
        return;
    }
    if (!strcmp(nm, "Ellipsis")) {
        set_arg(o, FA_ELLIPSIS, NULL);
        return;
    }
    if (cgs_strmap_get(G->names, nm)) {
        set_arg(o, FA_NODE, text_of(F, nm, e->n));
        return;
    }
    if (!strncmp(nm, "torch.", 6)) {
        const char *w = nm + 6;
        static const char *const fmts[] = {"contiguous_format", "channels_last",
                                           "channels_last_3d", "preserve_format"};
        static const char *const layouts[] = {"strided", "sparse_coo", "sparse_csr", "sparse_csc",
                                              "sparse_bsr", "sparse_bsc", "_mkldnn", "jagged"};
        if (cgs_dtype_from_name(w) != CGS_DTYPE_UNKNOWN) {
            set_arg(o, FA_DTYPE, text_of(F, w, strlen(w)));
            return;
        }
        for (size_t i = 0; i < 4; i++)
            if (!strcmp(w, fmts[i])) {
                set_arg(o, FA_MEMFMT, fmts[i]);
                return;
            }
        for (size_t i = 0; i < 8; i++)
            if (!strcmp(w, layouts[i])) {
                set_arg(o, FA_LAYOUT, layouts[i]);
                return;
            }
    }
    repr_arg(F, e, o);
}

static struct fa *new_args(struct fx *F, size_t n)
{
    return n ? cgs_arena_calloc(&F->arena, n, sizeof(struct fa)) : NULL;
}

static void items_arg(struct fx *F, struct gst *G, const struct ex *e, struct fa *o)
{
    set_arg(o, FA_TUPLE, NULL);
    o->n = (uint32_t)e->n_items;
    o->items = new_args(F, e->n_items);
    for (size_t i = 0; i < e->n_items; i++)
        to_arg(F, G, e->items[i], false, &o->items[i]);
}

static void to_arg(struct fx *F, struct gst *G, const struct ex *e, bool list_marked,
                   struct fa *o)
{
    switch (e->k) {
    case E_NAME:
        name_arg(F, G, e, o);
        return;
    case E_NUM:
        if (e->n && (e->s[e->n - 1] == 'j' || e->s[e->n - 1] == 'J')) {
            repr_arg(F, e, o);
            return;
        }
        if (e->n > 1 && e->s[0] == '0' && (e->s[1] == 'x' || e->s[1] == 'o' || e->s[1] == 'b' ||
                                            e->s[1] == 'X' || e->s[1] == 'O' || e->s[1] == 'B')) {
            repr_arg(F, e, o); /* not FX's repr of an int */
            return;
        }
        {
            /* JSON's number grammar: Python's 1e-05 and 0.5 are JSON; "1." or "01" are not */
            const char *t = text_of(F, e->s, e->n);
            if (json_number(t))
                set_arg(o, FA_NUM, t);
            else
                repr_arg(F, e, o);
        }
        return;
    case E_STR:
        set_arg(o, FA_STR, e->str);
        return;
    case E_ELLIPSIS:
        set_arg(o, FA_ELLIPSIS, NULL);
        return;
    case E_TUPLE:
        items_arg(F, G, e, o);
        return;
    case E_LIST:
        items_arg(F, G, e, o);
        if (list_marked)
            o->k = FA_LIST;
        return;
    case E_DICT: {
        size_t pairs = e->n_items / 2;
        set_arg(o, FA_DICT, NULL);
        o->n = (uint32_t)(2 * pairs);
        o->items = new_args(F, 2 * pairs);
        for (size_t i = 0; i < 2 * pairs; i++)
            to_arg(F, G, e->items[i], false, &o->items[i]);
        return;
    }
    case E_UN:
        /* a negative literal: -1, -0.5, -inf */
        if (!strcmp(e->op, "neg") && e->a->k == E_NUM) {
            to_arg(F, G, e->a, false, o);
            if (o->k == FA_NUM) {
                size_t n = strlen(o->s);
                char *t = cgs_arena_alloc(&F->arena, n + 2);
                t[0] = '-';
                memcpy(t + 1, o->s, n + 1);
                o->s = t;
            }
            return;
        }
        if (!strcmp(e->op, "neg") && e->a->k == E_NAME && span_is(e->a, "inf")) {
            set_arg(o, FA_FLOAT, "-inf");
            return;
        }
        repr_arg(F, e, o);
        return;
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
                set_arg(o, FA_DEVICE, cgs_arena_strdup(&F->arena, dev));
                return;
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
            set_arg(o, FA_SLICE, NULL);
            o->n = 3;
            o->items = new_args(F, 3);
            for (size_t i = 0; i < 3; i++) {
                if (parts[i])
                    to_arg(F, G, parts[i], false, &o->items[i]);
                else
                    set_arg(&o->items[i], FA_NULL, NULL);
            }
            return;
        }
        if (e->a->k == E_NAME && span_is(e->a, "torch.Size") && e->n_items == 1) {
            to_arg(F, G, e->items[0], false, o);
            return;
        }
        repr_arg(F, e, o);
        return;
    default:
        repr_arg(F, e, o);
        return;
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

/* A node added to the graph, with room for n_args arguments (set by the caller). */
static struct fn *new_node(struct fx *F, struct gst *G, const char *name, const char *op,
                           const char *target, size_t n_args)
{
    struct fn *n = cgs_arena_calloc(&F->arena, 1, sizeof(*n));
    n->name = name;
    n->op = op;
    n->target = target;
    n->n_args = (uint32_t)n_args;
    n->args = new_args(F, n_args);
    n->line = G->line;
    fg_push(G->nodes, n);
    return n;
}

/* A node calling call (self_arg first, when given), its positional and keyword arguments. */
static struct fn *call_node(struct fx *F, struct gst *G, const char *name, const char *op,
                            const char *target, const struct ex *call, const struct ex *self_arg)
{
    size_t n_kw = 0, n_pos = self_arg != NULL, a = 0, k = 0;
    for (size_t i = 0; i < call->n_items; i++)
        n_kw += call->items[i]->k == E_KW;
    n_pos += call->n_items - n_kw;
    struct fn *n = new_node(F, G, name, op, target, n_pos);
    n->n_kw = (uint32_t)n_kw;
    n->kw = n_kw ? cgs_arena_calloc(&F->arena, n_kw, sizeof(*n->kw)) : NULL;
    if (self_arg)
        to_arg(F, G, self_arg, false, &n->args[a++]);
    for (size_t i = 0; i < call->n_items; i++) {
        const struct ex *it = call->items[i];
        if (it->k == E_KW) {
            n->kw[k].key = cgs_arena_strndup(&F->arena, it->s, it->n);
            to_arg(F, G, it->a, false, &n->kw[k++].v);
        } else {
            to_arg(F, G, it, false, &n->args[a++]);
        }
    }
    return n;
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
static struct fn *node_from(struct fx *F, struct gst *G, struct cur *c, const char *name,
                            const struct ex *e)
{
    struct fn *n;
    const char *dot;
    char path[512];

    if (self_path(e, path, sizeof(path))) /* self.a, getattr(self.layers, "0").weight */
        return new_node(F, G, name, "get_attr", text_of(F, path, strlen(path)), 0);
    switch (e->k) {
    case E_CALL: {
        const struct ex *callee = e->a;
        if (self_path(callee, path, sizeof(path)))
            return call_node(F, G, name, "call_module", text_of(F, path, strlen(path)), e, NULL);
        /* obj.method(...) on a node: call_method */
        if (callee->k == E_NAME && (dot = memchr(callee->s, '.', callee->n))) {
            struct ex head = *callee;
            head.n = (size_t)(dot - callee->s);
            head.src_n = head.n;
            if (name_in(G, &head)) {
                const char *last = callee->s + callee->n;
                while (last > callee->s && last[-1] != '.')
                    last--;
                return call_node(F, G, name, "call_method",
                                 text_of(F, last, (size_t)(callee->s + callee->n - last)), e,
                                 &head);
            }
        }
        if (callee->k == E_ATTR && callee->a) /* (expr).method(...) */
            return call_node(F, G, name, "call_method", text_of(F, callee->s, callee->n), e,
                             callee->a);
        if (callee->k != E_NAME) {
            cfail(c, "expected a function, a method or a module to call");
            return NULL;
        }
        return call_node(F, G, name, "call_function", target_of(F, callee), e, NULL);
    }
    case E_BIN:
    case E_UN: {
        char t[32];
        snprintf(t, sizeof(t), "operator.%s", e->op);
        n = new_node(F, G, name, "call_function", text_of(F, t, strlen(t)), e->k == E_BIN ? 2 : 1);
        to_arg(F, G, e->a, false, &n->args[0]);
        if (e->k == E_BIN)
            to_arg(F, G, e->b, false, &n->args[1]);
        return n;
    }
    case E_SUB: {
        n = new_node(F, G, name, "call_function", "operator.getitem", 2);
        to_arg(F, G, e->a, false, &n->args[0]);
        /* an index that is a list is advanced indexing: say so ({"list": ...}) */
        to_arg(F, G, e->b, true, &n->args[1]);
        return n;
    }
    case E_NAME: {
        if (dotted_prefix(e, "self."))
            return new_node(F, G, name, "get_attr", text_of(F, e->s + 5, e->n - 5), 0);
        /* x.shape: builtins.getattr with a name, as FX prints a two-argument getattr */
        size_t last = e->n;
        while (last && e->s[last - 1] != '.')
            last--;
        if (last) {
            struct ex obj = *e;
            obj.n = last - 1;
            if (name_in(G, &obj)) {
                n = new_node(F, G, name, "call_function", "builtins.getattr", 2);
                to_arg(F, G, &obj, false, &n->args[0]);
                set_arg(&n->args[1], FA_STR, text_of(F, e->s + last, e->n - last));
                return n;
            }
        }
        cfail(c, "expected a call, an operator, a subscript or self.ATTR");
        return NULL;
    }
    case E_ATTR: { /* (expr).attr: the same, on a value that is no plain name */
        n = new_node(F, G, name, "call_function", "builtins.getattr", 2);
        to_arg(F, G, e->a, false, &n->args[0]);
        set_arg(&n->args[1], FA_STR, text_of(F, e->s, e->n));
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

/* The annotation of "name: \"...\" = ..." as a VAL, or NULL. */
static struct fv *lhs_val(struct fx *F, const char *s, size_t n)
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
    G->line = line_at(F, (size_t)(s - base));
    if (!G->line)
        G->line = L->no;
    if (n >= 6 && !memcmp(s, "return", 6) && (n == 6 || !is_ident(s[6]))) {
        const char *r = s + 6;
        size_t rn = n - 6;
        struct ex *e = NULL;
        trim(&r, &rn);
        if (rn) {
            if (!(e = parse_whole(F, r, rn, L->no, base, &err)))
                return err;
            /* export's `return pytree.tree_unflatten((a, b), self._out_spec)`: the values */
            if (e->k == E_CALL && e->a->k == E_NAME && e->n_items >= 1 &&
                (span_is(e->a, "pytree.tree_unflatten") || span_is(e->a, "tree_unflatten")))
                e = e->items[0];
        }
        struct fn *out = new_node(F, G, "output", "output", "output", 1);
        if (e)
            to_arg(F, G, e, false, &out->args[0]);
        else
            set_arg(&out->args[0], FA_NULL, NULL);
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
        struct fgraph *nodes = G->nodes;
        size_t first = SIZE_MAX;
        for (size_t k = nodes->n; k-- > 0;) {
            const struct fn *nd = nodes->v[k];
            if (is_op(nd, "placeholder")) {
                const char *nm = nd->name;
                bool flattened = false;
                const struct ex *arg0 = e->n_items ? e->items[0] : NULL;
                for (size_t q = 0; arg0 && q < arg0->n_items; q++)
                    flattened = flattened || (arg0->items[q]->k == E_NAME &&
                                              span_is(arg0->items[q], nm));
                if (flattened) {
                    map_clear(G->names, nm);
                    map_clear(G->params, nm);
                    memmove(&nodes->v[k], &nodes->v[k + 1], (nodes->n - k - 1) * sizeof(*nodes->v));
                    nodes->n--;
                    first = k;
                }
            }
        }
        if (first == SIZE_MAX)
            first = 0;
        /* the nodes after the pytree parameters wait while the flattened ones go in */
        size_t n_rest = nodes->n - first;
        struct fn **rest = cgs_xmalloc((n_rest ? n_rest : 1) * sizeof(*rest));
        if (n_rest)
            memcpy(rest, nodes->v + first, n_rest * sizeof(*rest));
        nodes->n = first;
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
            struct fn *ph = new_node(F, G, nm, "placeholder", nm, 0);
            const char *ann = cgs_strmap_get(G->decls, nm);
            ph->val = ann ? lhs_val(F, ann, strlen(ann)) : NULL;
            cgs_strmap_put(G->names, nm, ph);
            p = q;
        }
        for (size_t k = 0; k < n_rest; k++)
            fg_push(nodes, rest[k]);
        free(rest);
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
    struct fv *val = colon ? lhs_val(F, colon, lhs_n - (size_t)(colon - lhs)) : NULL;
    struct fn *node;
    if (*pend_aug_e) {
        /* out_4 += x_3;  out_5: "..." = out_4 */
        const struct ex *bin = *pend_aug_e;
        *pend_aug_e = NULL;
        if (cgs_strmap_get(G->names, name))
            return fail(F, L->no, (uint32_t)(lhs - base) + 1, CGS_E_SCHEMA,
                        "node '%s' is defined twice", name);
        char t[32];
        bool store = !strcmp(bin->op, "setitem");
        snprintf(t, sizeof(t), "operator.%s", bin->op);
        node = new_node(F, G, name, "call_function", text_of(F, t, strlen(t)), store ? 3 : 2);
        if (store) { /* (object, index, value) */
            to_arg(F, G, bin->a->a, false, &node->args[0]);
            to_arg(F, G, bin->a->b, true, &node->args[1]);
        } else {
            to_arg(F, G, bin->a, false, &node->args[0]);
        }
        to_arg(F, G, bin->b, false, &node->args[store ? 2 : 1]);
        node->val = val;
        node->stack = G->stack;
        cgs_strmap_put(G->names, name, node);
        return 0;
    }
    /* l_x_ = L_x_: the placeholder's node name */
    if (all_ident(rhs, rhs_n)) {
        char pn[256];
        snprintf(pn, sizeof(pn), "%.*s", (int)(rhs_n < 255 ? rhs_n : 255), rhs);
        struct fn *ph = cgs_strmap_get(G->params, pn);
        if (ph && !cgs_strmap_get(G->names, name)) {
            ph->name = name;
            map_clear(G->params, pn);
            map_clear(G->names, pn); /* the node is called name now */
            cgs_strmap_put(G->names, name, ph);
            return 0;
        }
    }
    if (cgs_strmap_get(G->names, name))
        return fail(F, L->no, (uint32_t)(lhs - base) + 1, CGS_E_SCHEMA,
                    "node '%s' is defined twice", name);
    struct ex *e = parse_whole(F, rhs, rhs_n, L->no, base, &err);
    if (!e)
        return err;
    struct cur c = {F, rhs, rhs + rhs_n, base, L->no, 0, 0};
    if (!(node = node_from(F, G, &c, name, e)))
        return c.err;
    node->val = val;
    node->stack = G->stack;
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

    G->line = L->no;
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
                G->line = line_at(F, (size_t)(p - s));
                if (!G->line)
                    G->line = L->no;
                if (strcmp(nm, "self")) {
                    if (cgs_strmap_get(G->names, nm))
                        return fail(F, L->no, 1, CGS_E_SCHEMA,
                                    "parameter '%s' appears twice", nm);
                    /* *args keeps its star in the target, as FX's placeholder does */
                    struct ex *e = NULL;
                    if (dflt) {
                        int err = 0;
                        trim(&dflt, &dn);
                        if (!(e = parse_whole(F, dflt, dn, L->no, s, &err)))
                            return err;
                    }
                    struct fn *ph = new_node(F, G, nm, "placeholder",
                                             p > stars ? text_of(F, stars,
                                                                 (size_t)(p - stars) + nn)
                                                       : nm,
                                             e != NULL);
                    ph->val = colon ? lhs_val(F, colon, pn - (size_t)(colon - p)) : NULL;
                    if (e)
                        to_arg(F, G, e, false, &ph->args[0]);
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
    F->n_parts = 0;
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
        CGS_ALLOC_GROW(F->part_off, F->n_parts + 1, F->alloc_parts);
        CGS_ALLOC_GROW(F->part_no, F->n_parts + 1, F->alloc_part_no);
        F->part_off[F->n_parts] = out->len;
        F->part_no[F->n_parts++] = L->no;
        cgs_buf_add(out, L->s, n);
        x.q = 0; /* a string does not go on past its line */
        if (x.depth <= 0 || i + 1 >= end || out->len > CGS_FXTEXT_MAX_STMT)
            return i;
        i++;
    }
}

static int parse_class(struct fx *F, size_t i, size_t end, struct fgraph *nodes);

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
static int class_body(struct fx *F, uint32_t no, size_t i, size_t end, struct fgraph *nodes)
{
    struct gst G = {nodes, cgs_strmap_new(), cgs_strmap_new(), cgs_strmap_new(), NULL, 0, false};
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
            struct fgraph body = {0};
            err = parse_class(F, i, be, &body);
            if (!err && !find_sub(F, cname)) {
                CGS_ALLOC_GROW(F->subs, F->n_subs + 1, F->alloc_subs);
                F->subs[F->n_subs++] = (struct fsub){cname, body, false};
            } else {
                free(body.v);
            }
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
static int parse_class(struct fx *F, size_t i, size_t end, struct fgraph *nodes)
{
    return class_body(F, F->lines[i].no, i + 1, end, nodes);
}

/* ---- split graphs: vLLM's and MagiCompiler's computation_graph.py ----------------------- */

/* ARG a with every node reference that m maps replaced by what it maps to (a node reference, or
 * a list for a piece that returns several values); what it holds is shared with a. */
static struct fa remap_arg(struct fx *F, const struct fa *a, const struct cgs_strmap *m)
{
    struct fa o = *a;
    if (a->k == FA_NODE) {
        const struct fa *to = cgs_strmap_get(m, a->s);
        return to ? *to : *a;
    }
    if (a->n && a->items) {
        o.items = new_args(F, a->n);
        for (uint32_t i = 0; i < a->n; i++)
            o.items[i] = remap_arg(F, &a->items[i], m);
    }
    return o;
}

/* A copy of node n, its args and kwargs remapped. */
static struct fn *remap_node(struct fx *F, const struct fn *n, const struct cgs_strmap *m)
{
    struct fn *c = cgs_arena_alloc(&F->arena, sizeof(*c));
    *c = *n;
    c->args = new_args(F, n->n_args);
    for (uint32_t i = 0; i < n->n_args; i++)
        c->args[i] = remap_arg(F, &n->args[i], m);
    c->kw = n->n_kw ? cgs_arena_calloc(&F->arena, n->n_kw, sizeof(*c->kw)) : NULL;
    for (uint32_t i = 0; i < n->n_kw; i++) {
        c->kw[i].key = n->kw[i].key;
        c->kw[i].v = remap_arg(F, &n->kw[i].v, m);
    }
    return c;
}

/* Is this graph what torch.fx's split_module made (vLLM's and MagiCompiler's split graph)?
 * Every call_module calls a printed class named submod_N, and there is one. */
static bool is_split_graph(struct fx *F, const struct fgraph *nodes)
{
    int calls = 0;
    for (size_t i = 0; i < nodes->n; i++) {
        const struct fn *n = nodes->v[i];
        if (!is_op(n, "call_module"))
            continue;
        if (strncmp(n->target, "submod_", 7) || !find_sub(F, n->target))
            return false;
        calls++;
    }
    return calls > 0;
}

/*
 * The pieces of a split graph put back into one graph, as it was before split_module: each
 * call of submod_N is replaced by the piece's nodes, its inputs bound to the call's arguments,
 * and what reads the piece's results (the call itself, or getitem of it) reads the piece's
 * returned values. Each inlined node keeps the piece it came from (piece "submod_N"), so the
 * split the compiler made can be set beside cgscope's. A name the flat graph already has gets
 * the piece's name appended. The pieces leave the subgraphs; other nested graphs stay.
 */
static void inline_pieces(struct fx *F, struct fgraph *nodes)
{
    struct fgraph flat = {0};
    struct cgs_strmap *top, *used;

    if (!F->n_subs || !is_split_graph(F, nodes))
        return;
    top = cgs_strmap_new();  /* a node of the graph -> the ARG that reads its value */
    used = cgs_strmap_new(); /* the flat graph's names */
    for (size_t i = 0; i < nodes->n; i++) {
        const struct fn *n = nodes->v[i];
        if (is_op(n, "call_function") && !strcmp(n->target, "operator.getitem")) {
            /* getitem of a piece's results: the result itself */
            const struct fa *src = n->n_args > 0 ? &n->args[0] : NULL;
            const struct fa *idx = n->n_args > 1 ? &n->args[1] : NULL;
            const struct fa *res = src && src->k == FA_NODE ? cgs_strmap_get(top, src->s) : NULL;
            long k = idx && idx->k == FA_NUM ? strtol(idx->s, NULL, 10) : -1;
            if (res && res->k == FA_TUPLE && k >= 0 && k < (long)res->n) {
                cgs_strmap_set(top, n->name, &res->items[k]);
                continue;
            }
        }
        if (is_op(n, "call_module")) {
            struct fsub *sub = find_sub(F, n->target);
            const char *piece = n->target;
            struct cgs_strmap *local = cgs_strmap_new(); /* the piece's names -> ARGs */
            struct fa *result = NULL;
            uint32_t arg = 0;
            for (size_t j = 0; j < sub->g.n; j++) {
                const struct fn *b = sub->g.v[j];
                struct fa *bound = cgs_arena_calloc(&F->arena, 1, sizeof(*bound));
                if (is_op(b, "placeholder")) {
                    /* the piece's input: the call's argument in its place */
                    if (arg < n->n_args)
                        *bound = remap_arg(F, &n->args[arg++], top);
                    cgs_strmap_set(local, b->name, bound);
                } else if (is_op(b, "output")) {
                    if (b->n_args)
                        *(result = bound) = remap_arg(F, &b->args[0], local);
                } else {
                    struct fn *c = remap_node(F, b, local);
                    if (cgs_strmap_get(used, b->name)) {
                        char fresh[512];
                        snprintf(fresh, sizeof(fresh), "%s_%s", b->name, piece);
                        c->name = cgs_arena_strdup(&F->arena, fresh);
                    }
                    c->piece = piece;
                    fg_push(&flat, c);
                    cgs_strmap_set(used, c->name, (void *)c->name);
                    set_arg(bound, FA_NODE, c->name);
                    cgs_strmap_set(local, b->name, bound);
                }
            }
            cgs_strmap_free(local);
            if (result) /* a piece returns: its output node has its one argument */
                cgs_strmap_set(top, n->name, result);
            continue;
        }
        struct fn *c = remap_node(F, n, top);
        fg_push(&flat, c);
        cgs_strmap_set(used, c->name, (void *)c->name);
    }
    for (size_t i = 0; i < nodes->n; i++)
        if (is_op(nodes->v[i], "call_module"))
            find_sub(F, nodes->v[i]->target)->inlined = true;
    free(nodes->v);
    *nodes = flat;
    cgs_strmap_free(top);
    cgs_strmap_free(used);
}

/* ---- reading: the model ------------------------------------------------------------------- */

/* The graph's inputs (placeholders, get_attr) start at storage offset 0, as every cgscope graph
 * input does: inference has somewhere to start; the offsets of other nodes stay unknown (not
 * compared with what cgscope infers). */
static void inputs_at_offset_zero(struct fgraph *nodes)
{
    for (size_t i = 0; i < nodes->n; i++) {
        struct fn *n = nodes->v[i];
        if ((is_op(n, "placeholder") || is_op(n, "get_attr")) && n->val &&
            n->val->k == FV_TENSOR)
            n->val->offset_zero = true;
    }
}

/* The text read into F (its top graph in *top): 0, or -CGS_E_* with the error set. */
static int read_model(struct fx *F, const char *text, size_t len, const char *file,
                      uint32_t first_line, const struct cgs_fxtext_opts *o, struct cgs_diag *d,
                      struct fgraph *top)
{
    size_t i, top_def;
    int err;

    memset(F, 0, sizeof(*F));
    memset(top, 0, sizeof(*top));
    F->file = file ? file : "graph";
    F->d = d;
    if (len > CGS_FXTEXT_MAX_BYTES)
        return fail(F, first_line, 0, CGS_E_LIMIT, "a printed graph of more than 256 MiB");
    cgs_arena_init(&F->arena);
    F->syms = cgs_strmap_new();
    F->hints = o ? o->symbols : NULL;
    split_lines(F, text, len, first_line ? first_line : 1);
    /* the graph's class; what comes before it (a file's imports, a header comment) and after
     * it is not the graph. Older depyf wrote the forward alone, at the top level. */
    for (i = 0; i < F->n_lines && !starts(&F->lines[i], "class "); i++)
        ;
    for (top_def = 0; i == F->n_lines && top_def < F->n_lines; top_def++)
        if (F->lines[top_def].indent == 0 && starts(&F->lines[top_def], "def forward("))
            break;
    if (i == F->n_lines && top_def == F->n_lines)
        return fail(F, i < F->n_lines ? F->lines[i].no : first_line, 1, CGS_E_FORMAT,
                    "expected 'class NAME(torch.nn.Module):', the first line of a graph "
                    "printed by torch.fx (print_readable)");
    if (i < F->n_lines) {
        const struct line *C = &F->lines[i];
        size_t end = block_end(F, i + 1, F->n_lines, C->indent);
        err = parse_class(F, i, end, top);
    } else {
        size_t end = block_end(F, top_def + 1, F->n_lines, 0);
        err = class_body(F, F->lines[top_def].no, top_def, end, top);
    }
    if (err)
        return err;
    inputs_at_offset_zero(top);
    for (size_t k = 0; k < F->n_subs; k++)
        inputs_at_offset_zero(&F->subs[k].g);
    inline_pieces(F, top);
    return 0;
}

static void release_model(struct fx *F, struct fgraph *top)
{
    for (size_t k = 0; k < F->n_subs; k++)
        free(F->subs[k].g.v);
    free(F->subs);
    free(top->v);
    cgs_buf_release(&F->scratch);
    cgs_strmap_free(F->syms);
    free(F->sym_order);
    free(F->part_off);
    free(F->part_no);
    cgs_arena_release(&F->arena);
    free(F->lines);
}

int cgs_fx_read(struct fx_model *m, const char *text, size_t len, const char *file,
                uint32_t first_line, const struct cgs_fxtext_opts *o, struct cgs_diag *d)
{
    struct fx *F = cgs_xcalloc(1, sizeof(*F));
    int err = read_model(F, text, len, file, first_line, o, d, &m->top);
    m->file = F->file;
    m->d = d;
    m->subs = F->subs;
    m->n_subs = F->n_subs;
    m->syms = F->sym_order;
    m->n_syms = F->n_syms;
    m->hints = F->hints;
    m->reader = F;
    return err;
}

void cgs_fx_release(struct fx_model *m)
{
    if (m->reader)
        release_model(m->reader, &m->top);
    free(m->reader);
    memset(m, 0, sizeof(*m));
}
