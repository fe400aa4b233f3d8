/*
 * Shape inference (lib/passes/shapes.c): the rule cases of tests/data/shapes.test
 * (expected values recorded by torch 2.11), behaviour of the pass (--reinfer
 * or not, unknown operators, partial knowledge, bytes under a binding), and
 * a golden run over every graph in ../shared/fixtures.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/buf.h"
#include "lib/readers/load.h"
#include "lib/ops/ops.h"
#include "lib/writers/report-json.h"
#include "lib/passes/shapes.h"
#include "tests/fixtures.h"

/* the operator declarations cgscope ships (ops/samples.ops: the sample's cgs::attention) */
static struct cgs_opdecls shipped;

static const struct cgs_opdecls *shipped_decls(void)
{
    static bool loaded;
    struct cgs_diag d = CGS_DIAG_INIT;

    if (!loaded) {
        loaded = true;
        if (cgs_opdecls_load(&shipped, "ops/samples.ops", &d))
            fprintf(stderr, "ops/samples.ops: %s\n", d.msg);
    }
    return &shipped;
}

static struct cgs_graph *load_text(const char *text)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g = cgs_graph_load_json_buf(text, strlen(text), "test.json", &d);

    if (!g)
        fprintf(stderr, "load failed: %s\n", d.msg);
    return g;
}

/* ---- the rule cases -------------------------------------------------------------------- */

/* A graph: placeholders x0.. with the input values, the call as node y (val = expected). */
static char *case_graph(const char *symbols, const char *call, const char *inputs,
                        const char *expected, bool expect_error)
{
    cJSON *doc = cJSON_CreateObject(), *nodes, *syms, *in, *c, *it;
    cJSON *sj = cJSON_Parse(symbols && *symbols ? symbols : "{}");
    char name[32];
    int i = 0;
    char *text;

    cJSON_AddStringToObject(doc, "format", "cgscope.graph");
    cJSON_AddNumberToObject(doc, "version", 1);
    cJSON_AddStringToObject(doc, "name", "case");
    it = cJSON_AddObjectToObject(doc, "producer");
    cJSON_AddStringToObject(it, "tool", "test");
    cJSON_AddStringToObject(it, "version", "1");
    cJSON_AddStringToObject(it, "stage", "other");
    syms = cJSON_AddObjectToObject(doc, "symbols");
    cJSON_ArrayForEach(it, sj)
    {
        cJSON *s = cJSON_AddObjectToObject(syms, it->string);
        cJSON_AddNumberToObject(s, "hint", it->valuedouble);
        cJSON_AddNumberToObject(s, "min", 2);
        cJSON_AddNullToObject(s, "max");
    }
    cJSON_Delete(sj);
    nodes = cJSON_AddArrayToObject(doc, "nodes");
    in = cJSON_Parse(inputs);
    assert_non_null(in);
    cJSON_ArrayForEach(it, in)
    {
        cJSON *p = cJSON_CreateObject();
        snprintf(name, sizeof(name), "x%d", i++);
        cJSON_AddStringToObject(p, "name", name);
        cJSON_AddStringToObject(p, "op", "placeholder");
        cJSON_AddStringToObject(p, "target", name);
        cJSON_AddItemToObject(p, "args", cJSON_CreateArray());
        cJSON_AddItemToObject(p, "kwargs", cJSON_CreateObject());
        cJSON_AddItemToObject(p, "val", cJSON_Duplicate(it, 1));
        cJSON_AddItemToArray(nodes, p);
    }
    cJSON_Delete(in);
    c = cJSON_Parse(call);
    assert_non_null(c);
    cJSON_AddStringToObject(c, "name", "y");
    cJSON_AddItemToObject(c, "val", expect_error ? cJSON_CreateNull() : cJSON_Parse(expected));
    cJSON_AddItemToArray(nodes, c);
    it = cJSON_CreateObject();
    cJSON_AddStringToObject(it, "name", "output");
    cJSON_AddStringToObject(it, "op", "output");
    cJSON_AddStringToObject(it, "target", "output");
    cJSON_AddItemToObject(it, "args", cJSON_Parse("[[{\"node\": \"y\"}]]"));
    cJSON_AddItemToObject(it, "kwargs", cJSON_CreateObject());
    cJSON_AddItemToArray(nodes, it);
    text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    return text;
}

/* Run one case; true when it passes (else prints why). */
static bool run_case(int line, const char *symbols, const char *call, const char *inputs,
                     const char *expected)
{
    bool expect_error = !strcmp(expected, "\"error\"");
    char *text = case_graph(symbols, call, inputs, expected, expect_error);
    struct cgs_graph *g = load_text(text);
    struct cgs_shapes_opts o = {.reinfer = true, .decls = shipped_decls()};
    struct cgs_shapes *s = NULL;
    struct cgs_diag d = CGS_DIAG_INIT;
    const struct cgs_shape_node *r;
    struct cgs_node *y;
    bool ok = false;

    free(text);
    if (!g) {
        fprintf(stderr, "shapes.test:%d: graph does not load\n", line);
        return false;
    }
    if (cgs_shapes_infer(g, &o, &s, &d)) {
        fprintf(stderr, "shapes.test:%d: pass failed: %s\n", line, d.msg);
        goto out;
    }
    y = cgs_graph_find(g, "y");
    r = &s->nodes[y->index];
    if (expect_error) {
        ok = r->status == CGS_SHAPE_ERROR;
    } else if (!y->val || y->val->kind == CGS_VAL_NONE) {
        ok = r->status == CGS_SHAPE_OK && r->val && r->val->kind == CGS_VAL_NONE;
    } else {
        ok = r->status == CGS_SHAPE_OK && r->cmp == CGS_SHAPE_CMP_MATCH;
    }
    if (!ok) {
        struct cgs_buf b = CGS_BUF_INIT;
        cgs_val_describe(r->val, &b);
        fprintf(stderr, "shapes.test:%d: %s: status %s, got %s (%s)\n", line, y->target,
                cgs_shape_status_names[r->status], b.buf, r->reason ? r->reason : "");
        cgs_buf_release(&b);
    }
out:
    cgs_graph_free(g);
    return ok;
}

static char *chomp(char *s)
{
    size_t n = strlen(s);

    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

static void test_rule_cases(void **state)
{
    static char buf[3][1 << 16], symbols[4096] = "{}";
    char path[1024];
    const char *dir = getenv("TEST_DATA");
    int line = 0, cases = 0, failed = 0, k = 0, first = 0;
    FILE *f;

    (void)state;
    snprintf(path, sizeof(path), "%s/shapes.test", dir && *dir ? dir : "tests/data");
    f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(buf[k], sizeof(buf[k]), f)) {
        line++;
        chomp(buf[k]);
        if (k == 0 && (!buf[0][0] || buf[0][0] == '#'))
            continue;
        if (k == 0 && !strncmp(buf[0], "%symbols ", 9)) {
            size_t len = strlen(buf[0] + 9);
            if (len >= sizeof(symbols))
                len = sizeof(symbols) - 1;
            memcpy(symbols, buf[0] + 9, len);
            symbols[len] = 0;
            continue;
        }
        if (k == 0)
            first = line;
        if (++k < 3)
            continue;
        k = 0;
        cases++;
        if (!run_case(first, symbols, buf[0], buf[1], buf[2]))
            failed++;
    }
    fclose(f);
    assert_int_equal(k, 0); // no unfinished group
    assert_true(cases >= 300);
    assert_int_equal(failed, 0);
}

/* ---- the pass -------------------------------------------------------------------------- */

#define HEAD                                                                                       \
    "{\"format\": \"cgscope.graph\", \"version\": 1, \"name\": \"t\", \"producer\": {\"tool\": "   \
    "\"t\", \"version\": \"1\", \"stage\": \"post_grad\"}, \"symbols\": {\"s0\": {\"hint\": 8, "   \
    "\"min\": 2, \"max\": null}}, \"nodes\": ["
#define T(shape, stride)                                                                           \
    "{\"dtype\": \"float32\", \"shape\": " shape ", \"stride\": " stride                           \
    ", \"storage_offset\": 0, \"device\": \"cuda:0\"}"
#define NODE(name, target, args, val)                                                              \
    "{\"name\": \"" name "\", \"op\": \"call_function\", \"target\": \"" target                    \
    "\", \"args\": " args ", \"kwargs\": {}, \"val\": " val "}"
#define PH(name, val)                                                                              \
    "{\"name\": \"" name "\", \"op\": \"placeholder\", \"target\": \"" name "\", \"args\": [], "   \
    "\"kwargs\": {}, \"val\": " val "}"
#define OUT(x)                                                                                     \
    "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [[{\"node\": "   \
    "\"" x "\"}]], \"kwargs\": {}}]}"

/* relu's record is wrong on purpose: [5, 5] instead of [2, 3]. */
static const char *const wrong_record = HEAD PH("x", T("[2, 3]", "[3, 1]")) ", " NODE(
    "a", "aten.relu.default", "[{\"node\": \"x\"}]",
    T("[5, 5]", "[5, 1]")) ", " NODE("b", "aten.relu.default", "[{\"node\": \"a\"}]",
                                     T("[5, 5]", "[5, 1]")) ", " OUT("b");

static void test_local_check_uses_records(void **state)
{
    struct cgs_graph *g = load_text(wrong_record);
    struct cgs_shapes_opts o = {.reinfer = false};
    struct cgs_shapes *s;
    struct cgs_diag d = CGS_DIAG_INIT;

    (void)state;
    assert_non_null(g);
    assert_int_equal(cgs_shapes_infer(g, &o, &s, &d), 0);
    // a differs from its record; b, computed from a's record, agrees with its own
    assert_int_equal(s->nodes[1].cmp, CGS_SHAPE_CMP_MISMATCH);
    assert_int_equal(s->nodes[2].cmp, CGS_SHAPE_CMP_MATCH);
    assert_int_equal(s->summary.matched, 1);
    assert_int_equal(s->summary.mismatched, 1);
    assert_false(s->summary.validated); /* a value that differs from torch's is not validated */
    assert_non_null(strstr(s->nodes[1].reason, "differs"));
    cgs_graph_free(g);
}

static void test_reinfer_ignores_records(void **state)
{
    struct cgs_graph *g = load_text(wrong_record);
    struct cgs_shapes_opts o = {.reinfer = true};
    struct cgs_shapes *s;
    struct cgs_diag d = CGS_DIAG_INIT;
    int64_t v;

    (void)state;
    assert_non_null(g);
    assert_int_equal(cgs_shapes_infer(g, &o, &s, &d), 0);
    assert_int_equal(s->nodes[1].cmp, CGS_SHAPE_CMP_MISMATCH);
    assert_int_equal(s->nodes[2].cmp, CGS_SHAPE_CMP_MISMATCH);
    assert_true(cgs_sym_is_int(s->nodes[2].val->u.t.shape[0], &v));
    assert_int_equal(v, 2);
    // the recorded values are left alone
    assert_true(cgs_sym_is_int(g->nodes[2]->val->u.t.shape[0], &v));
    assert_int_equal(v, 5);
    // every node inferred, but two differ from what torch recorded: not validated
    assert_false(s->summary.validated);
    assert_int_equal(s->summary.mismatched, 2);
    cgs_graph_free(g);
}

static const char *const unknown_op = HEAD PH("x", T("[\"s0\", 3]", "[3, 1]")) ", " NODE(
    "a", "mylib.frobnicate.default", "[{\"node\": \"x\"}]",
    "null") ", " NODE("b", "aten.relu.default", "[{\"node\": \"a\"}]",
                      "null") ", " NODE("c", "aten.mul.Tensor", "[{\"node\": \"x\"}, 2]",
                                        "null") ", " OUT("c");

static void test_unknown_op_does_not_stop(void **state)
{
    struct cgs_graph *g = load_text(unknown_op);
    struct cgs_shapes_opts o = {.reinfer = true};
    struct cgs_shapes *s;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_sym_binding bind[] = {{.name = "s0", .value = 64}};
    struct cgs_sym_bindings bs = {bind, 1};
    int64_t bytes = 0;

    (void)state;
    assert_non_null(g);
    assert_int_equal(cgs_shapes_infer(g, &o, &s, &d), 0);
    assert_int_equal(s->nodes[1].status, CGS_SHAPE_UNKNOWN_OP);
    assert_non_null(strstr(s->nodes[1].reason, "mylib.frobnicate.default"));
    assert_int_equal(s->nodes[2].status, CGS_SHAPE_PARTIAL);
    assert_int_equal(s->nodes[3].status, CGS_SHAPE_OK);
    assert_int_equal(s->summary.unknown, 1);
    assert_int_equal(s->summary.partial, 1);
    assert_false(s->summary.validated);
    // c is float32 [s0, 3]: 64 * 3 * 4 bytes at s0 = 64
    assert_int_equal(cgs_val_bytes(s->nodes[3].val, cgs_sym_bindings_lookup, &bs, &bytes), 0);
    assert_int_equal(bytes, 64 * 3 * 4);
    bs.n = 0;
    assert_int_equal(cgs_val_bytes(s->nodes[3].val, cgs_sym_bindings_lookup, &bs, &bytes),
                     -CGS_E_UNKNOWN);
    cgs_graph_free(g);
}

static void test_bind_evaluates(void **state)
{
    struct cgs_graph *g = load_text(unknown_op);
    struct cgs_sym_binding bind[] = {{.name = "s0", .value = 10}};
    struct cgs_sym_bindings bs = {bind, 1};
    struct cgs_val *v;
    int64_t x;

    (void)state;
    assert_non_null(g);
    v = cgs_val_bind(g->nodes[0]->val, g->syms, g->arena, cgs_sym_bindings_lookup, &bs);
    assert_true(cgs_sym_is_int(v->u.t.shape[0], &x));
    assert_int_equal(x, 10);
    assert_false(cgs_sym_is_int(g->nodes[0]->val->u.t.shape[0], &x));
    cgs_graph_free(g);
}

static void test_status_names(void **state)
{
    (void)state;
    assert_string_equal(cgs_shape_status_names[CGS_SHAPE_OK], "ok");
    assert_string_equal(cgs_shape_status_names[CGS_SHAPE_PARTIAL], "partial");
    assert_string_equal(cgs_shape_status_names[CGS_SHAPE_UNKNOWN_OP], "unknown_op");
    assert_string_equal(cgs_shape_status_names[CGS_SHAPE_ERROR], "error");
}

/* ---- robustness: every rule on odd arguments ------------------------------------------ */

/* Every registered target, called with rank-0, rank-1, rank-4 and symbolic tensors and odd
 * argument lists: the pass must give each node a status, never crash (ASan/UBSan builds). */
static void test_every_rule_survives_odd_args(void **state)
{
    static const char *const argsets[] = {
        "[]", "[{\"node\": \"t0\"}]", "[{\"node\": \"t4\"}]", "[{\"node\": \"t0\"}, 0]",
        "[{\"node\": \"t4\"}, -1]", "[{\"node\": \"t1\"}, [1, 1]]",
        "[{\"node\": \"ts\"}, [{\"node\": \"s\"}, -1]]",
        "[[{\"node\": \"t4\"}, {\"node\": \"t0\"}], 5]",
        ("[{\"node\": \"t4\"}, {\"node\": \"t1\"}, {\"node\": \"t0\"}, 99, [99, 99, 99], "
         "null, true, 1.5, {\"dtype\": \"int8\"}, {\"node\": \"s\"}, [], [[]]]"),
        "[{\"node\": \"ts\"}, {\"slice\": [null, {\"node\": \"s\"}, 2]}]",
    };
    struct cgs_buf b = CGS_BUF_INIT;
    struct cgs_shapes_opts o = {.reinfer = true};
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_shapes *s;
    struct cgs_graph *g;
    unsigned k = 0;

    (void)state;
    cgs_buf_addstr(&b, HEAD PH("t0", T("[]", "[]")) ", " PH("t1", T("[5]", "[1]")) ", "
                       PH("t4", T("[2, 3, 4, 4]", "[48, 1, 12, 3]")) ", "
                       PH("ts", T("[\"s0\", 3]", "[3, 1]")) ", "
                       PH("s", "{\"symint\": \"s0\", \"hint\": 8}"));
    for (int i = 1; i < CGS_OP_COUNT; i++) {
        const char *t = cgs_ops[i].name;
        const char *op = strchr(t, '.') ? "call_function" : "call_method";
        for (size_t a = 0; a < sizeof(argsets) / sizeof(*argsets); a++)
            cgs_buf_addf(&b,
                         ", {\"name\": \"n%u\", \"op\": \"%s\", \"target\": \"%s\", "
                         "\"args\": %s, \"kwargs\": {}, \"val\": null}",
                         k++, op, t, argsets[a]);
    }
    cgs_buf_addstr(&b, ", " OUT("t0"));
    g = load_text(b.buf);
    cgs_buf_release(&b);
    assert_non_null(g);
    assert_int_equal(cgs_shapes_infer(g, &o, &s, &d), 0);
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        const struct cgs_node *nd = g->nodes[i];
        // only operators torch has and cgscope has no rule for are unknown
        if (s->nodes[i].status == CGS_SHAPE_UNKNOWN_OP)
            assert_ptr_equal(cgs_ops[cgs_op_lookup_exact(nd->target)].infer,
                             cgs_shape_rule_none);
    }
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        assert_true(s->nodes[i].status < CGS_SHAPE_STATUS_COUNT);
        if (s->nodes[i].status == CGS_SHAPE_ERROR)
            assert_non_null(s->nodes[i].reason);
    }
    // both kinds happen: odd arguments are rejected, sensible ones inferred
    assert_true(s->summary.errors > 0);
    assert_true(s->summary.inferred > 0);
    cgs_graph_free(g);
}

/* ---- golden: every fixture graph, from its inputs alone ------------------------------------ */

static void golden_graph(const char *path, void *ud)
{
    int *bad = ud;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_shapes_opts o = {.reinfer = true, .decls = shipped_decls()};
    struct cgs_shapes *s;
    struct cgs_graph *g = cgs_graph_load_json(path, &d);

    if (!g) {
        fprintf(stderr, "%s: %s\n", path, d.msg);
        (*bad)++;
        return;
    }
    if (cgs_shapes_infer(g, &o, &s, &d)) {
        (*bad)++;
    } else if (s->summary.mismatched || s->summary.errors || s->summary.unknown ||
               !s->summary.matched) {
        fprintf(stderr, "%s: %u matched, %u mismatched, %u errors, %u unknown\n", path,
                s->summary.matched, s->summary.mismatched, s->summary.errors, s->summary.unknown);
        for (uint32_t i = 0; i < s->n_nodes; i++)
            if (s->nodes[i].cmp > CGS_SHAPE_CMP_MATCH ||
                s->nodes[i].status >= CGS_SHAPE_UNKNOWN_OP)
                fprintf(stderr, "  %s: %s\n", g->nodes[i]->name,
                        s->nodes[i].reason ? s->nodes[i].reason : "");
        (*bad)++;
    }
    cgs_graph_free(g);
}

/* The declaration grammar's edges (issue 26, item 9): positions and dims past int32 are
 * refused, not wrapped; two constant dims read as two; torch.library's "::" is accepted. */
static void test_declaration_edges(void **state)
{
    static const struct {
        const char *text;
        const char *err; /* NULL: it parses */
    } cases[] = {
        {"a.x: like 4294967296\n", "argument position from 0 to 1023"},
        {"a.x: like 0 dim 4294967295 = 3\n", "dim from -64 to 63"},
        {"a.x: like 0 dim 0 = 1 dim 4294967296\n", "dim from -64 to 63"},
        {"a.x: like 0 dim 0 = 4 dim 1 = 8\n", NULL},
        {"a.x: like 0 dim 0 = 1 dim 1\n", NULL},
        {"cgs::attention: like 0\n", NULL},
        {"a.x: like 0, like 0, like 0, like 0, like 0, like name, like 0, like 0, like 0\n",
         "too many outputs"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cgs_opdecls ds = {0};
        struct cgs_diag d = CGS_DIAG_INIT;
        int rc = cgs_opdecls_parse(&ds, cases[i].text, "t.ops", &d);
        if (cases[i].err) {
            assert_int_not_equal(rc, 0);
            if (!strstr(d.msg, cases[i].err))
                fail_msg("%s: got '%s'", cases[i].text, d.msg);
        } else if (rc) {
            fail_msg("%s: refused: %s", cases[i].text, d.msg);
        }
        cgs_opdecls_free(&ds);
    }
    /* what they mean */
    struct cgs_opdecls ds = {0};
    struct cgs_diag d = CGS_DIAG_INIT;
    assert_int_equal(cgs_opdecls_parse(&ds, "a.x: like 0 dim 0 = 4 dim 1 = 8\n"
                                            "a.y: like 0 dim 0 = 1 dim 1\n"
                                            "cgs::attention: like 2\n", "t.ops", &d), 0);
    const struct cgs_decl *x = cgs_opdecls_find(&ds, "a.x.default");
    assert_non_null(x);
    assert_int_equal(x->outs[0].n_mods, 2);
    assert_false(x->outs[0].mods[0].from_arg);
    assert_int_equal(x->outs[0].mods[0].size, 4);
    assert_int_equal(x->outs[0].mods[1].dim, 1);
    assert_int_equal(x->outs[0].mods[1].size, 8);
    const struct cgs_decl *y = cgs_opdecls_find(&ds, "a.y");
    assert_non_null(y);
    assert_true(y->outs[0].mods[0].from_arg);
    assert_int_equal(y->outs[0].mods[0].of.pos, 1);
    assert_int_equal(y->outs[0].mods[0].of_dim, 1);
    const struct cgs_decl *a = cgs_opdecls_find(&ds, "cgs.attention.default");
    assert_non_null(a);
    assert_int_equal(a->outs[0].like.pos, 2);
    cgs_opdecls_free(&ds);
}

static void test_golden_fixtures(void **state)
{
    int graphs, bad = 0;

    (void)state;
    graphs = fixture_graphs_foreach(golden_graph, &bad);
    if (!graphs)
        skip();
    assert_true(graphs >= 30);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_cases),
        cmocka_unit_test(test_local_check_uses_records),
        cmocka_unit_test(test_reinfer_ignores_records),
        cmocka_unit_test(test_unknown_op_does_not_stop),
        cmocka_unit_test(test_bind_evaluates),
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_every_rule_survives_odd_args),
        cmocka_unit_test(test_golden_fixtures),
        cmocka_unit_test(test_declaration_edges),
    };

    int rc = cmocka_run_group_tests_name("shapes", tests, NULL, NULL);

    cgs_opdecls_free(&shipped);
    return rc;
}
