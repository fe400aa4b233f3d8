/* Symbolic expressions: canonical forms, printing, parsing, evaluation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/readers/load.h"
#include "lib/ir/symexpr.h"
#include "tests/fixtures.h"

struct fx {
    struct cgs_arena arena;
    struct cgs_symctx ctx;
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    cgs_arena_init(&f->arena);
    cgs_symctx_init(&f->ctx, &f->arena);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    cgs_symctx_release(&f->ctx);
    cgs_arena_release(&f->arena);
    free(f);
    return 0;
}

static const struct cgs_sym *P(struct fx *f, const char *s)
{
    const struct cgs_sym *e = NULL;
    struct cgs_diag d = CGS_DIAG_INIT;
    int err = cgs_sym_parse(&f->ctx, s, &e, &d);
    if (err)
        fail_msg("parse '%s' failed: %s", s, d.msg);
    return e;
}

static void assert_prints(const struct cgs_sym *e, const char *want)
{
    char *s = cgs_sym_to_string(e);
    if (strcmp(s, want))
        fail_msg("printed '%s', expected '%s'", s, want);
    free(s);
}

/* ---- an independent evaluator of the text (no canonicalisation) ---------- */

struct ev {
    const char *p;
    const struct cgs_sym_bindings *b;
    int err;
};

static int64_t ev_expr(struct ev *e);

static void ev_ws(struct ev *e)
{
    while (*e->p == ' ')
        e->p++;
}

static int64_t fdiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t fmodp(int64_t a, int64_t b)
{
    return a - fdiv(a, b) * b;
}

static int64_t ev_atom(struct ev *e)
{
    ev_ws(e);
    if (*e->p == '(') {
        e->p++;
        int64_t v = ev_expr(e);
        ev_ws(e);
        e->p++; /* ')' */
        return v;
    }
    if (*e->p >= '0' && *e->p <= '9')
        return strtoll(e->p, (char **)&e->p, 10);
    char name[64];
    size_t n = 0;
    while ((e->p[n] >= 'a' && e->p[n] <= 'z') || (e->p[n] >= 'A' && e->p[n] <= 'Z') ||
           (e->p[n] >= '0' && e->p[n] <= '9') || e->p[n] == '_')
        n++;
    memcpy(name, e->p, n);
    name[n] = 0;
    e->p += n;
    ev_ws(e);
    if (*e->p == '(') {
        int64_t a[8];
        int k = 0;
        e->p++;
        do {
            a[k++] = ev_expr(e);
            ev_ws(e);
        } while (*e->p == ',' && e->p++);
        e->p++; /* ')' */
        if (!strcmp(name, "Max") || !strcmp(name, "Min")) {
            int64_t r = a[0];
            for (int i = 1; i < k; i++)
                r = name[1] == 'a' ? (a[i] > r ? a[i] : r) : (a[i] < r ? a[i] : r);
            return r;
        }
        if (!strcmp(name, "FloorDiv"))
            return fdiv(a[0], a[1]);
        if (!strcmp(name, "Mod"))
            return fmodp(a[0], a[1]);
        if (!strcmp(name, "CeilToInt"))
            return a[0];
        if (!strcmp(name, "IntTrueDiv")) /* only under CeilToInt in these tests */
            return -fdiv(-a[0], a[1]);
        e->err = 1;
        return 0;
    }
    int64_t v;
    if (cgs_sym_bindings_lookup((void *)e->b, name, &v))
        e->err = 1;
    return v;
}

static int64_t ev_unary(struct ev *e);

static int64_t ev_power(struct ev *e)
{
    int64_t b = ev_atom(e);
    ev_ws(e);
    if (e->p[0] == '*' && e->p[1] == '*') {
        e->p += 2;
        int64_t x = ev_unary(e), r = 1;
        for (int64_t i = 0; i < x; i++)
            r *= b;
        return r;
    }
    return b;
}

static int64_t ev_unary(struct ev *e)
{
    ev_ws(e);
    if (*e->p == '-') {
        e->p++;
        return -ev_unary(e);
    }
    return ev_power(e);
}

static int64_t ev_term(struct ev *e)
{
    int64_t v = ev_unary(e);
    for (;;) {
        ev_ws(e);
        if (e->p[0] == '*' && e->p[1] != '*') {
            e->p++;
            v *= ev_unary(e);
        } else if (e->p[0] == '/' && e->p[1] == '/') {
            e->p += 2;
            int64_t d = ev_unary(e);
            v = fdiv(v, d);
        } else if (e->p[0] == '%') {
            e->p++;
            v = fmodp(v, ev_unary(e));
        } else {
            return v;
        }
    }
}

static int64_t ev_expr(struct ev *e)
{
    int64_t v = ev_term(e);
    for (;;) {
        ev_ws(e);
        if (*e->p == '+') {
            e->p++;
            v += ev_term(e);
        } else if (*e->p == '-') {
            e->p++;
            v -= ev_term(e);
        } else {
            return v;
        }
    }
}

static int64_t eval_text(const char *s, const struct cgs_sym_bindings *b)
{
    struct ev e = {s, b, 0};
    int64_t v = ev_expr(&e);
    assert_int_equal(e.err, 0);
    return v;
}

static const struct cgs_sym_binding B1[] = {
    {.name = "s0", .value = 7},   {.name = "s1", .value = 13},  {.name = "s23", .value = 3},
    {.name = "s27", .value = 17}, {.name = "s50", .value = 31}, {.name = "s53", .value = 224},
    {.name = "s77", .value = 5}};
static const struct cgs_sym_binding B2[] = {
    {.name = "s0", .value = 2},  {.name = "s1", .value = 64},  {.name = "s23", .value = 9},
    {.name = "s27", .value = 2}, {.name = "s50", .value = 97}, {.name = "s53", .value = 33},
    {.name = "s77", .value = 11}};

/* Canonical value equals the text's value, and print/parse is a fixpoint. */
static void check_roundtrip(struct fx *f, const char *text)
{
    const struct cgs_sym *e = P(f, text), *e2;
    const struct cgs_sym_bindings bs[2] = {{B1, 7}, {B2, 7}};
    char *printed = cgs_sym_to_string(e);
    e2 = P(f, printed);
    if (e2 != e)
        fail_msg("'%s' printed as '%s' does not parse back to the same expression", text, printed);
    for (int i = 0; i < 2; i++) {
        int64_t v;
        assert_int_equal(cgs_sym_eval(e, cgs_sym_bindings_lookup, (void *)&bs[i], &v), 0);
        int64_t want = eval_text(text, &bs[i]);
        if (v != want)
            fail_msg("'%s' (canonical '%s') = %lld, text evaluates to %lld", text, printed,
                     (long long)v, (long long)want);
        assert_int_equal(eval_text(printed, &bs[i]), want);
    }
    free(printed);
}

static void test_canonical_forms(void **state)
{
    struct fx *f = *state;
    assert_ptr_equal(P(f, "s0 + s0"), P(f, "2*s0"));
    assert_ptr_equal(P(f, "s1*s0"), P(f, "s0*s1"));
    assert_ptr_equal(P(f, "(s0 + 1)*(s0 - 1)"), P(f, "s0**2 - 1"));
    assert_ptr_equal(P(f, "s0*s0*s0"), P(f, "s0**3"));
    assert_ptr_equal(P(f, "FloorDiv(4*s0 + 6, 2)"), P(f, "2*s0 + 3"));
    assert_ptr_equal(P(f, "Mod(4*s0 + 5, 2)"), P(f, "1"));
    assert_ptr_equal(P(f, "(s0//2)//3"), P(f, "s0//6"));
    assert_ptr_equal(P(f, "Max(s0, 4, s0)"), P(f, "Max(4, s0)"));
    assert_ptr_equal(P(f, "Max(Max(s0, 2), 7)"), P(f, "Max(s0, 7)"));
    assert_ptr_equal(P(f, "Min(3, 9)"), P(f, "3"));
    assert_ptr_equal(P(f, "CeilToInt(IntTrueDiv(s0, 2))"), P(f, "(s0 + 1)//2"));
    assert_ptr_equal(P(f, "s0 - s0"), P(f, "0"));
    assert_ptr_equal(P(f, "2*3*s0 + 4 - 4"), P(f, "6*s0"));
    assert_ptr_equal(P(f, "s0//1"), P(f, "s0"));
    assert_ptr_equal(P(f, "(6*s0 + 1)//3"), P(f, "2*s0"));
    /* division by a symbolic term that divides every term exactly */
    assert_ptr_equal(P(f, "(2*s50)//s50"), P(f, "2"));
    assert_ptr_equal(P(f, "(6*s0**2*s1 + 4*s0*s1)//(2*s0*s1)"), P(f, "3*s0 + 2"));
    assert_ptr_equal(P(f, "Mod(3*s0*s1, s1)"), P(f, "0"));
    assert_false(cgs_sym_is_int(P(f, "(2*s0 + 1)//s0"), NULL));
    assert_prints(P(f, "3*s53**2"), "3*s53**2");
    assert_prints(P(f, "s0 + 1"), "s0 + 1");
    assert_prints(P(f, "1 - s0"), "-s0 + 1");
    /* the constant moves inside: floor((x - 1)/2) + 1 == floor((x + 1)/2) */
    assert_prints(P(f, "(((s53 - 1)//2)) + 1"), "((s53 + 1)//2)");
    assert_prints(P(f, "Max(s0, 4)"), "Max(s0, 4)");
    int64_t v;
    assert_true(cgs_sym_is_int(P(f, "2**10"), &v));
    assert_int_equal(v, 1024);
}

static void test_semantic_equality(void **state)
{
    struct fx *f = *state;
    assert_true(cgs_sym_equal_semantic(P(f, "2*(s0//2) + Mod(s0, 2)"), P(f, "s0")));
    assert_false(cgs_sym_equal_semantic(P(f, "s0//2"), P(f, "(s0 + 1)//2")));
    assert_true(cgs_sym_equal_semantic(P(f, "Max(s0, s1)"), P(f, "Max(s1, s0)")));
}

static void test_eval_errors(void **state)
{
    struct fx *f = *state;
    const struct cgs_sym_binding b[] = {{.name = "s0", .value = 0}};
    const struct cgs_sym_bindings bs = {b, 1};
    int64_t v;
    assert_int_equal(cgs_sym_eval(P(f, "s1 + 1"), cgs_sym_bindings_lookup, (void *)&bs, &v),
                     -CGS_E_UNKNOWN);
    assert_int_equal(cgs_sym_eval(P(f, "5//s0"), cgs_sym_bindings_lookup, (void *)&bs, &v),
                     -CGS_E_INVAL);
    assert_int_equal(cgs_sym_eval(P(f, "s0 + 3"), cgs_sym_bindings_lookup, (void *)&bs, &v), 0);
    assert_int_equal(v, 3);
    assert_int_equal(cgs_sym_eval(P(f, "-7//2"), cgs_sym_bindings_lookup, (void *)&bs, &v), 0);
    assert_int_equal(v, -4); /* Python floor division */
    assert_int_equal(cgs_sym_eval(P(f, "Mod(-7, 3)"), cgs_sym_bindings_lookup, (void *)&bs, &v), 0);
    assert_int_equal(v, 2);
    /* powers by squaring inside torch's functions: a huge exponent of 0, 1 or -1 is one step
     * (fuzzing found PowByNatural(1, 3688548548) looping a billion times), 2**63 overflows */
    assert_int_equal(
        cgs_sym_eval(P(f, "Abs((s0 - 1)**3688548549)"), cgs_sym_bindings_lookup, (void *)&bs, &v),
        0);
    assert_int_equal(v, 1);
    assert_int_equal(
        cgs_sym_eval(P(f, "PowByNatural(s0 + 2, 63)"), cgs_sym_bindings_lookup, (void *)&bs, &v),
        -CGS_E_LIMIT);
    assert_prints(P(f, "2**62"), "4611686018427387904");
    assert_prints(P(f, "3**39"), "4052555153018976267"); /* Python's 3**39 */
    assert_int_equal(cgs_sym_eval(P(f, "PowByNatural(s0 + 1, 3688548548)"), cgs_sym_bindings_lookup,
                                  (void *)&bs, &v),
                     0);
    assert_int_equal(v, 1);
}

static void expect_parse_error(struct fx *f, const char *text, int code, uint32_t col,
                               const char *msg_part)
{
    const struct cgs_sym *e = NULL;
    struct cgs_diag d = CGS_DIAG_INIT;
    int err = cgs_sym_parse(&f->ctx, text, &e, &d);
    if (err != -code)
        fail_msg("'%s': got %d (%s), expected %d", text, err, d.msg, -code);
    if (col)
        assert_int_equal(d.col, col);
    if (!strstr(d.msg, msg_part))
        fail_msg("'%s': message '%s' lacks '%s'", text, d.msg, msg_part);
}

static void test_parse_errors(void **state)
{
    struct fx *f = *state;
    char deep[1000];
    expect_parse_error(f, "s0 +", CGS_E_SCHEMA, 5, "unexpected end");
    expect_parse_error(f, "Foo(s0)", CGS_E_SCHEMA, 1, "unknown function");
    expect_parse_error(f, "s0 $ 1", CGS_E_SCHEMA, 4, "unexpected character");
    expect_parse_error(f, "(s0 + 1", CGS_E_SCHEMA, 0, "expected ')'");
    expect_parse_error(f, "s0 // 0", CGS_E_SCHEMA, 0, "division by zero");
    expect_parse_error(f, "99999999999999999999", CGS_E_LIMIT, 0, "out of range");
    expect_parse_error(f, "9223372036854775807 + 1", CGS_E_LIMIT, 0, "overflow");
    /* shared subexpressions print once per use: 245 bytes that printed to 212 MB (found by
     * fuzzing) are refused, by the bound on the printed text */
    {
        char text[512];
        FILE *fp = fopen("tests/fuzz/regress/symexpr/shared-subexpressions-print-huge", "rb");
        assert_non_null(fp);
        size_t n = fread(text, 1, sizeof(text) - 1, fp);
        fclose(fp);
        text[n] = '\0';
        expect_parse_error(f, text, CGS_E_LIMIT, 0, "prints to more than 65,536 bytes");
    }
    /* a power of a sum squared again and again: the expansion's work is bounded */
    expect_parse_error(f,
                       "((((((s0 + s1 + s2 + s3)**4 + s4)**4 + s5)**4 + s6)**4 + s7)**4 + s8)**4",
                       CGS_E_LIMIT, 0, "too large");
    expect_parse_error(f, "s0 ** s1", CGS_E_SCHEMA, 0, "exponent");
    expect_parse_error(f, "Max(s0)", CGS_E_SCHEMA, 0, "too few");
    expect_parse_error(f, "s0 / 2", CGS_E_SCHEMA, 0, "true division");
    // 300 parentheses: past the parser's recursion bound
    memset(deep, '(', 300);
    strcpy(deep + 300, "s0");
    memset(deep + 302, ')', 300);
    deep[602] = 0;
    expect_parse_error(f, deep, CGS_E_LIMIT, 0, "nesting");
    // an expression 70 levels deep: past what the parser reads (so never printed and refused)
    {
        size_t k = 0;
        for (int i = 0; i < 70; i++)
            k += (size_t)snprintf(deep + k, sizeof(deep) - k, "Mod(");
        k += (size_t)snprintf(deep + k, sizeof(deep) - k, "s0");
        for (int i = 0; i < 70; i++)
            k += (size_t)snprintf(deep + k, sizeof(deep) - k, ", s%d)", 1 + i % 2);
        deep[k] = 0;
        expect_parse_error(f, deep, CGS_E_LIMIT, 0, "64 levels");
    }
    // redundant parentheses are no nesting at all (Python reads them too)
    {
        const struct cgs_sym *e;
        struct cgs_diag d = CGS_DIAG_INIT;
        memset(deep, '(', 100);
        strcpy(deep + 100, "s0");
        memset(deep + 102, ')', 100);
        deep[202] = 0;
        assert_int_equal(cgs_sym_parse(&f->ctx, deep, &e, &d), 0);
        assert_int_equal(e->kind, CGS_SYM_VAR);
    }
}

/* Deterministic random expressions: print/parse fixpoint and value preserved. */
static uint64_t rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void gen(char *out, size_t n, int depth)
{
    static const char *const vars[] = {"s0", "s1", "s23"};
    char a[240], b[240];
    unsigned k = depth > 3 ? rnd(2) : rnd(9);
    switch (k) {
    case 0: snprintf(out, n, "%u", rnd(20) + 1); return;
    case 1: snprintf(out, n, "%s", vars[rnd(3)]); return;
    }
    gen(a, sizeof(a), depth + 1);
    gen(b, sizeof(b), depth + 1);
    switch (k) {
    case 2: snprintf(out, n, "(%s) + (%s)", a, b); break;
    case 3: snprintf(out, n, "(%s) - (%s)", a, b); break;
    case 4: snprintf(out, n, "(%s)*(%s)", a, b); break;
    case 5: snprintf(out, n, "(%s)//%u", a, rnd(5) + 1); break;
    case 6: snprintf(out, n, "Max(%s, %s)", a, b); break;
    case 7: snprintf(out, n, "Mod(%s, %u)", a, rnd(6) + 1); break;
    default: snprintf(out, n, "(%s)**2", a); break;
    }
}

/* Functions of torch's sympy vocabulary that cgscope keeps as opaque atoms: printed as
 * written, equal by text, evaluated with Python's int/float semantics (the expected values
 * are what Python gives for the same expression: int(1.7*10.0) == 17, round(2.5) == 2). */
static int64_t ev_at(struct fx *f, const char *text, const char *var, int64_t val, int *err)
{
    const struct cgs_sym_binding b[] = {{.name = var, .value = val}};
    const struct cgs_sym_bindings bs = {b, 1};
    int64_t v = INT64_MIN;
    *err = cgs_sym_eval(P(f, text), cgs_sym_bindings_lookup, (void *)&bs, &v);
    return v;
}

/* A SymFloat bound to a float (shapes --bind zf0=0.5): the functions that take floats see its
 * value (Python gives int(0.5 * float(10)) == 5, int(2.5 * float(3)) == 7); an integer
 * expression of it is an error, not a truncation; a SymFloat's own text evaluates to a
 * double. */
static void test_float_binding(void **state)
{
    struct fx *f = *state;
    const struct cgs_sym_binding b[] = {{.name = "s0", .value = 10},
                                        {.name = "zf0", .is_float = true, .fvalue = 0.5},
                                        {.name = "zf1", .is_float = true, .fvalue = 2.5}};
    const struct cgs_sym_bindings bs = {b, 3};
    int64_t v = 0;
    double d = 0;

    assert_int_equal(cgs_sym_eval(P(f, "TruncToInt(zf0*ToFloat(s0))"), cgs_sym_bindings_lookup,
                                  (void *)&bs, &v),
                     0);
    assert_int_equal(v, 5);
    assert_int_equal(cgs_sym_eval(P(f, "TruncToInt(zf1*ToFloat(3))"), cgs_sym_bindings_lookup,
                                  (void *)&bs, &v),
                     0);
    assert_int_equal(v, 7);
    assert_int_equal(cgs_sym_eval(P(f, "zf0 + s0"), cgs_sym_bindings_lookup, (void *)&bs, &v),
                     -CGS_E_INVAL);
    assert_int_equal(cgs_sym_eval_float_text("2.0*zf1", cgs_sym_bindings_lookup, (void *)&bs, &d),
                     0);
    assert_true(d == 5.0);
    assert_int_equal(cgs_sym_eval_float_text("zf0 / 4", cgs_sym_bindings_lookup, (void *)&bs, &d),
                     0);
    assert_true(d == 0.125);
    assert_int_equal(cgs_sym_eval_float_text("zf9", cgs_sym_bindings_lookup, (void *)&bs, &d),
                     -CGS_E_UNKNOWN);
    assert_int_not_equal(cgs_sym_eval_float_text("2.0*", cgs_sym_bindings_lookup, (void *)&bs, &d),
                         0);
}

static void collect_one(void *ud, const char *name)
{
    char *s = ud;
    strcat(s, name);
    strcat(s, ";");
}

static void test_torch_functions(void **state)
{
    struct fx *f = *state;
    static const struct {
        const char *text, *var;
        int64_t val, want;
    } cases[] = {
        {"TruncToInt(1.7*ToFloat(s7))", "s7", 10, 17},
        {"TruncToInt(1.7*ToFloat(s7))", "s7", 3, 5},
        {"2*TruncToInt(1.7*ToFloat(s7)) + 1", "s7", 10, 35},
        {"Piecewise((1, Eq(u0, -2) & (u0 < 0)), (0, True))", "u0", -2, 1},
        {"Piecewise((1, Eq(u0, -2) & (u0 < 0)), (0, True))", "u0", 3, 0},
        {"ModularIndexing(s0, 2, 4)", "s0", 13, 2},
        {"FloorToInt(FloatTrueDiv(ToFloat(s0), 3.0))", "s0", -7, -3},
        {"RoundToInt(2.5) + s0", "s0", 0, 2},
        {"RoundToInt(3.5) + s0", "s0", 0, 4},
        {"PowByNatural(s0, 3)", "s0", 5, 125},
        {"Where(s0 > 4, s0, 4)", "s0", 2, 4},
        {"Abs(s0 - 10)", "s0", 3, 7},
    };
    int err;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t v = ev_at(f, cases[i].text, cases[i].var, cases[i].val, &err);
        if (err || v != cases[i].want)
            fail_msg("'%s' at %s=%lld: got %lld (err %d), expected %lld", cases[i].text,
                     cases[i].var, (long long)cases[i].val, (long long)v, err,
                     (long long)cases[i].want);
    }
    /* kept as written, one pointer for one text, and read back from what it prints */
    const struct cgs_sym *a = P(f, "TruncToInt(1.7*ToFloat(s7))");
    assert_ptr_equal(a, P(f, "TruncToInt(1.7*ToFloat(s7))"));
    assert_prints(a, "TruncToInt(1.7*ToFloat(s7))");
    assert_prints(P(f, "s3 + Piecewise((1, Eq(u0, -2) & (u0 < 0)), (0, True))"),
                  "s3 + Piecewise((1, Eq(u0, -2) & (u0 < 0)), (0, True))");
    assert_ptr_equal(P(f, "2*TruncToInt(1.7*ToFloat(s7))"), cgs_sym_mul_int(&f->ctx, a, 2));
    char vars[64] = "";
    cgs_sym_foreach_var(P(f, "ModularIndexing(s2 + s1, s1, 4) + s0"), collect_one, vars);
    assert_string_equal(vars, "s0;s1;s2;"); /* symbols sort before calls; a call's by name */
    /* a float where a size belongs, an unbound symbol, a division by zero */
    ev_at(f, "TruncToFloat(ToFloat(s0))", "s0", 3, &err);
    assert_int_equal(err, -CGS_E_INVAL);
    ev_at(f, "TruncToInt(ToFloat(s9))", "s0", 3, &err);
    assert_int_equal(err, -CGS_E_UNKNOWN);
    ev_at(f, "TruncToInt(FloatTrueDiv(1.0, ToFloat(s0)))", "s0", 0, &err);
    assert_int_equal(err, -CGS_E_INVAL);
    /* syntax: unbalanced, a character torch never writes */
    expect_parse_error(f, "TruncToInt(1.7*ToFloat(s7)", CGS_E_SCHEMA, 0, "expected ')'");
    expect_parse_error(f, "TruncToInt(1.7 $ s7)", CGS_E_SCHEMA, 16, "unexpected character");
}

static void test_random_roundtrip(void **state)
{
    struct fx *f = *state;
    char buf[512];
    for (int i = 0; i < 3000; i++) {
        gen(buf, sizeof(buf), 0);
        check_roundtrip(f, buf);
    }
}

/* Every dimension string in the fixtures: parses, round-trips, keeps its value. */
static void collect_dims(const cJSON *v, struct fx *f, int *count)
{
    const cJSON *x;
    if (cJSON_IsArray(v)) {
        cJSON_ArrayForEach(x, v) collect_dims(x, f, count);
        return;
    }
    if (!cJSON_IsObject(v))
        return;
    static const char *const keys[] = {"shape", "stride"};
    for (int k = 0; k < 2; k++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(v, keys[k]);
        cJSON_ArrayForEach(x, arr) if (cJSON_IsString(x))
        {
            check_roundtrip(f, x->valuestring);
            (*count)++;
        }
    }
    x = cJSON_GetObjectItemCaseSensitive(v, "symint");
    if (cJSON_IsString(x)) {
        check_roundtrip(f, x->valuestring);
        (*count)++;
    }
}

struct dims_walk {
    struct fx *f;
    int count;
};

static void fixture_dims_cb(const char *path, void *ud)
{
    struct dims_walk *w = ud;
    struct cgs_diag dg = CGS_DIAG_INIT;
    const cJSON *node;
    size_t len;
    char *buf;
    assert_int_equal(cgs_read_file(path, &buf, &len, (size_t)1 << 30, &dg), 0);
    cJSON *doc = cJSON_Parse(buf);
    free(buf);
    assert_non_null(doc);
    cJSON_ArrayForEach(node, cJSON_GetObjectItemCaseSensitive(doc, "nodes"))
        collect_dims(cJSON_GetObjectItemCaseSensitive(node, "val"), w->f, &w->count);
    cJSON_Delete(doc);
}

static void test_fixture_dims(void **state)
{
    struct dims_walk w = {*state, 0};
    int files = fixture_graphs_foreach(fixture_dims_cb, &w);
    if (!files)
        skip();
    assert_true(files > 30);
    assert_true(w.count > 100); /* the fixtures hold symbolic graphs */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_canonical_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_semantic_equality, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eval_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torch_functions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_float_binding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fixture_dims, setup, teardown),
    };
    return cmocka_run_group_tests_name("symexpr", tests, NULL, NULL);
}
