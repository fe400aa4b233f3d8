/*
 * The breadth oracle (issue 11.6): torch 2.11's own OpInfo samples, traced on the H200 by
 * tests/gpu/opinfo_oracle.py to ATen graphs (make_fx) and torch-level graphs (Dynamo), with
 * the values FakeTensor propagation recorded. Every case is re-inferred from its inputs
 * alone (--reinfer) and compared node by node with what torch recorded.
 *
 * A case is exact when every call node is inferred with status ok and equals the record
 * (shape, dtype, strides, storage offset). Asserted: the share of exact cases stays at or
 * above the floor measured when the data was recorded (a regression gate, not a target),
 * no node is an error because an input was unknown, and no node that the pass calls ok has
 * a different shape or dtype than torch's. With OPINFO_REPORT=1 the figures per rule
 * family are printed (docs/shapes-breadth.md has them).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/readers/load.h"
#include "lib/ops/ops.h"
#include "lib/passes/shapes.h"

/* floors: exact cases in percent, as measured on the committed data (docs/shapes-breadth.md) */
#define ATEN_FLOOR 98.5
#define TORCH_FLOOR 97.5
#define PRIMS_FLOOR 99.5
#define DYNAMIC_FLOOR 97.0
#define EXPORT_FLOOR 97.0
#define AUTOCAST_FLOOR 98.0
#define SYMBOLIC_FLOOR 97.5

struct family {
    const char *rule;
    unsigned cases, exact;
};

struct tally {
    unsigned cases, exact, nodes, nodes_exact, wrong_ok, blocked_errors;
    struct family fam[512];
    unsigned n_fam;
};

static struct family *family_of(struct tally *t, const char *rule)
{
    for (unsigned i = 0; i < t->n_fam; i++)
        if (!strcmp(t->fam[i].rule, rule))
            return &t->fam[i];
    if (t->n_fam == sizeof(t->fam) / sizeof(t->fam[0]))
        return &t->fam[t->n_fam - 1];
    t->fam[t->n_fam].rule = rule;
    return &t->fam[t->n_fam++];
}

static void run_case(struct tally *t, const char *name, const char *text, size_t len)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_shapes_opts o = {.reinfer = true};
    struct cgs_graph *g = cgs_graph_load_json_buf(text, len, name, &d);
    struct cgs_shapes *s;
    const char *rule = "(no call)";
    bool exact = true;

    t->cases++;
    if (!g) {
        fprintf(stderr, "%s: does not load: %s\n", name, d.msg);
        family_of(t, "(load)")->cases++;
        return;
    }
    if (cgs_shapes_infer(g, &o, &s, &d)) {
        fprintf(stderr, "%s: pass failed: %s\n", name, d.msg);
        cgs_graph_free(g);
        return;
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        const struct cgs_shape_node *r = &s->nodes[i];
        bool ok;
        if (n->op != CGS_NODE_CALL_FUNCTION && n->op != CGS_NODE_CALL_METHOD)
            continue;
        if (!strcmp(rule, "(no call)"))
            rule = cgs_op_info(cgs_op_lookup(n->target))->rule_name[0]
                       ? cgs_op_info(cgs_op_lookup(n->target))->rule_name
                       : "(unknown target)";
        t->nodes++;
        ok = r->status == CGS_SHAPE_OK &&
             (r->cmp == CGS_SHAPE_CMP_MATCH || r->cmp == CGS_SHAPE_CMP_NONE);
        t->nodes_exact += ok;
        if (!ok && exact && getenv("OPINFO_MISSES"))
            fprintf(stderr, "miss %s: %s: %s %s\n", name, n->target,
                    r->status == CGS_SHAPE_OK ? "ok-but-differs" : "not-ok",
                    r->reason ? r->reason : "");
        exact = exact && ok;
        if (r->status == CGS_SHAPE_OK &&
            (r->cmp == CGS_SHAPE_CMP_MISMATCH || r->cmp == CGS_SHAPE_CMP_STRIDES)) {
            t->wrong_ok++;
            if (getenv("OPINFO_REPORT"))
                fprintf(stderr, "%s: %s: %s\n", name, n->target, r->reason ? r->reason : "");
        }
        if (r->status == CGS_SHAPE_ERROR && r->reason && strstr(r->reason, "not known"))
            t->blocked_errors++;
    }
    family_of(t, rule)->cases++;
    if (exact) {
        t->exact++;
        family_of(t, rule)->exact++;
    }
    cgs_graph_free(g);
}

static void run_file(struct tally *t, const char *file)
{
    const char *dir = getenv("TEST_DATA");
    char path[4096], *line = NULL, name[512] = "";
    size_t cap = 0;
    ssize_t len;
    FILE *f;

    snprintf(path, sizeof(path), "%s/opinfo/%s", dir && *dir ? dir : "tests/data", file);
    if (getenv("OPINFO_MISSES"))
        fprintf(stderr, "level %s\n", file);
    f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        fail();
    }
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[0] == '#')
            continue;
        if (line[0] == '@') {
            snprintf(name, sizeof(name), "%.*s", (int)(len - 3), line + 2);
            continue;
        }
        run_case(t, name, line, (size_t)len);
    }
    free(line);
    fclose(f);
}

static int by_cases(const void *a, const void *b)
{
    const struct family *x = a, *y = b;
    return x->cases != y->cases ? (x->cases < y->cases) - (x->cases > y->cases)
                                : strcmp(x->rule, y->rule);
}

static void report(const char *what, struct tally *t)
{
    printf("opinfo %s: %u of %u cases exact (%.1f%%); %u of %u call nodes (%.1f%%); "
           "%u ok-but-wrong nodes\n",
           what, t->exact, t->cases, 100.0 * t->exact / (t->cases ? t->cases : 1),
           t->nodes_exact, t->nodes, 100.0 * t->nodes_exact / (t->nodes ? t->nodes : 1),
           t->wrong_ok);
    if (!getenv("OPINFO_REPORT"))
        return;
    qsort(t->fam, t->n_fam, sizeof(t->fam[0]), by_cases);
    for (unsigned i = 0; i < t->n_fam; i++)
        printf("  %-28s %5u cases %5u exact %5.1f%%\n", t->fam[i].rule, t->fam[i].cases,
               t->fam[i].exact, 100.0 * t->fam[i].exact / t->fam[i].cases);
}

/* strict: also no case claimed ok with another shape, dtype or strides than torch's */
static void check_n(const char *file, const char *what, double floor, bool strict,
                    unsigned min_cases)
{
    struct tally *t = calloc(1, sizeof(*t));

    assert_non_null(t);
    run_file(t, file);
    report(what, t);
    assert_true(t->cases >= min_cases);
    assert_true(100.0 * t->exact / t->cases >= floor);
    assert_int_equal(t->blocked_errors, 0);
    if (strict)
        assert_int_equal(t->wrong_ok, 0);
    free(t);
}

static void check(const char *file, const char *what, double floor, bool strict)
{
    check_n(file, what, floor, strict, 500);
}

static void test_aten_level(void **state)
{
    (void)state;
    check("aten.txt", "aten", ATEN_FLOOR, false);
}

static void test_torch_level(void **state)
{
    (void)state;
    check("torch.txt", "torch", TORCH_FLOOR, false);
}

/* torch._refs through make_fx: the prims decompositions produce (issue 27) */
static void test_prims_level(void **state)
{
    (void)state;
    check("prims.txt", "prims", PRIMS_FLOOR, true);
}

/* prims and Inductor prims outside the OpInfo samples (tests/gpu/prims_extra.py): each exact */
static void test_prims_extra(void **state)
{
    (void)state;
    check_n("prims-extra.txt", "prims-extra", 100.0, true, 9);
}

/* make_fx(tracing_mode="symbolic"): every input size a symbol (issue 27) */
static void test_symbolic_level(void **state)
{
    (void)state;
    check("symbolic.txt", "symbolic", SYMBOLIC_FLOOR, false);
}

/* torch.compile(dynamic=True): size symbols, SymFloats (issue 27) */
static void test_dynamic_level(void **state)
{
    (void)state;
    check("dynamic.txt", "dynamic", DYNAMIC_FLOOR, false);
}

/* torch.export's training IR (issue 27) */
static void test_export_level(void **state)
{
    (void)state;
    check("export.txt", "export", EXPORT_FLOOR, false);
}

/* Dynamo graphs traced inside torch.autocast("cuda") (tests/gpu/autocast_oracle.py, issue 38):
   each value's dtype is the one autocast's cast policy gives */
static void test_autocast_level(void **state)
{
    (void)state;
    check("autocast.txt", "autocast", AUTOCAST_FLOOR, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aten_level),
        cmocka_unit_test(test_torch_level),
        cmocka_unit_test(test_prims_level),
        cmocka_unit_test(test_prims_extra),
        cmocka_unit_test(test_symbolic_level),
        cmocka_unit_test(test_dynamic_level),
        cmocka_unit_test(test_export_level),
        cmocka_unit_test(test_autocast_level),
    };

    return cmocka_run_group_tests_name("opinfo", tests, NULL, NULL);
}
