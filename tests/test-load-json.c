/* The graph JSON loader: fixtures against an independent cJSON reading, IR details. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/readers/file.h"
#include "lib/readers/load.h"
#include "lib/writers/report-json.h"
#include "tests/value-tree.h"
#include "tests/fixtures.h"
#include "tests/graph-digest.h"

#include <glob.h>

static struct cgs_graph *load_str(const char *s, struct cgs_diag *d)
{
    return cgs_graph_load_json_buf(s, strlen(s), "test.json", d);
}

/* Two VALs are equal, dims compared by value (canonical forms differ in text). */
static bool dim_equal(struct cgs_graph *g, const cJSON *a, const cJSON *b)
{
    const struct cgs_sym *x, *y;
    struct cgs_diag d = CGS_DIAG_INIT;
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble == b->valuedouble;
    if (cJSON_IsNumber(a) || cJSON_IsNumber(b)) {
        const cJSON *n = cJSON_IsNumber(a) ? a : b, *s = cJSON_IsNumber(a) ? b : a;
        char buf[64];
        snprintf(buf, sizeof(buf), "%.0f", n->valuedouble);
        if (!cJSON_IsString(s) || cgs_sym_parse(g->syms, buf, &x, &d) ||
            cgs_sym_parse(g->syms, s->valuestring, &y, &d))
            return false;
        return x == y;
    }
    if (!cJSON_IsString(a) || !cJSON_IsString(b))
        return cJSON_Compare(a, b, 1);
    if (cgs_sym_parse(g->syms, a->valuestring, &x, &d) ||
        cgs_sym_parse(g->syms, b->valuestring, &y, &d))
        return false;
    return cgs_sym_equal_semantic(x, y);
}

static bool val_equal(struct cgs_graph *g, const cJSON *want, const cJSON *got)
{
    const cJSON *a, *b;
    if (cJSON_IsArray(want)) {
        if (!cJSON_IsArray(got) || cJSON_GetArraySize(want) != cJSON_GetArraySize(got))
            return false;
        for (a = want->child, b = got->child; a && b; a = a->next, b = b->next)
            if (!val_equal(g, a, b))
                return false;
        return true;
    }
    if (!cJSON_IsObject(want))
        return cJSON_Compare(want, got, 1);
    cJSON_ArrayForEach(a, want) {
        b = cJSON_GetObjectItemCaseSensitive(got, a->string);
        if (!strcmp(a->string, "shape") || !strcmp(a->string, "stride")) {
            const cJSON *x, *y;
            if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
                return false;
            for (x = a->child, y = b->child; x && y; x = x->next, y = y->next)
                if (!dim_equal(g, x, y))
                    return false;
        } else if (!strcmp(a->string, "storage_offset") || !strcmp(a->string, "symint")) {
            if (!dim_equal(g, a, b))
                return false;
        } else if (!strcmp(a->string, "hint") && cJSON_IsNumber(a)) {
            if (!cJSON_IsNumber(b) || fabs(a->valuedouble - b->valuedouble) > 1e-9)
                return false;
        } else if (!strcmp(a->string, "symfloat") || !strcmp(a->string, "symbool")) {
            if (!b)
                return false;
        } else if (!cJSON_Compare(a, b, 1)) {
            return false;
        }
    }
    return true;
}

static void check_fixture(const char *file)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g = cgs_graph_load_json(file, &d);
    char *buf;
    size_t len;
    cJSON *doc, *nodes, *n;
    uint32_t i = 0;

    if (!g)
        fail_msg("%s: %s", file, d.msg);
    assert_int_equal(cgs_read_file(file, &buf, &len, (size_t)1 << 30, &d), 0);
    doc = cJSON_Parse(buf);
    free(buf);
    assert_non_null(doc);
    nodes = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    assert_int_equal(g->n_nodes, cJSON_GetArraySize(nodes));
    cJSON_ArrayForEach(n, nodes) {
        const struct cgs_node *x = g->nodes[i++];
        const char *name = cJSON_GetObjectItemCaseSensitive(n, "name")->valuestring;
        const char *op = cJSON_GetObjectItemCaseSensitive(n, "op")->valuestring;
        const char *target = cJSON_GetObjectItemCaseSensitive(n, "target")->valuestring;
        assert_string_equal(x->name, name);
        assert_string_equal(cgs_node_op_names[x->op], op);
        assert_string_equal(x->target, target);
        assert_ptr_equal(cgs_graph_find(g, name), x);
        const cJSON *val = cJSON_GetObjectItemCaseSensitive(n, "val");
        cJSON *back = cgs_json_val(x->val);
        if (!val_equal(g, val, back)) {
            char *w = cJSON_PrintUnformatted(val), *b = cJSON_PrintUnformatted(back);
            fail_msg("%s: node %s: val %s read back as %s", file, name, w, b);
        }
        cJSON_Delete(back);
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(n, "args");
        assert_int_equal(x->n_args, cJSON_GetArraySize(args));
        for (uint32_t k = 0; k < x->n_args; k++) {
            cJSON *a = cgs_json_arg(&x->args[k]);
            /* ints and floats stay apart: 1 and 1.0 are different arguments */
            const cJSON *orig = cJSON_GetArrayItem(args, (int)k);
            if (!cJSON_Compare(orig, a, 1)) {
                char *w = cJSON_PrintUnformatted(orig), *b = cJSON_PrintUnformatted(a);
                fail_msg("%s: node %s: arg %u %s read back as %s", file, name, k, w, b);
            }
            cJSON_Delete(a);
        }
    }
    cJSON_Delete(doc);
    cgs_graph_free(g);
}

static void check_fixture_cb(const char *path, void *ud)
{
    (void)ud;
    check_fixture(path);
}

static void test_fixtures(void **state)
{
    (void)state;
    int files = fixture_graphs_foreach(check_fixture_cb, NULL);
    if (!files)
        skip();
    assert_true(files >= 38);
}

#define HEAD "{\"format\": \"cgscope.graph\", \"version\": 1, \"name\": \"t\", "

static void test_users_and_inputs(void **state)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    (void)state;
    struct cgs_graph *g = load_str(
        HEAD "\"nodes\": ["
             "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"},"
             "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"aten.relu.default\","
             " \"args\": [{\"node\": \"x\"}]},"
             "{\"name\": \"z\", \"op\": \"call_function\", \"target\": \"aten.add.Tensor\","
             " \"args\": [{\"node\": \"y\"}, {\"node\": \"y\"}], \"kwargs\": {\"alpha\": {\"node\": \"x\"}}},"
             "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\","
             " \"args\": [[{\"node\": \"z\"}, {\"node\": \"y\"}, null]]}]}",
        &d);
    if (!g)
        fail_msg("%s", d.msg);
    struct cgs_node *x = cgs_graph_find(g, "x"), *y = cgs_graph_find(g, "y"),
                    *z = cgs_graph_find(g, "z"), *o = cgs_graph_find(g, "output");
    assert_int_equal(z->n_inputs, 2); /* y once, then x from kwargs */
    assert_ptr_equal(z->inputs[0], y);
    assert_ptr_equal(z->inputs[1], x);
    assert_int_equal(y->n_users, 2);
    assert_ptr_equal(y->users[0], z);
    assert_ptr_equal(y->users[1], o);
    assert_int_equal(x->n_users, 2);
    assert_ptr_equal(x->users[0], y);
    assert_int_equal(o->n_inputs, 2);
    assert_ptr_equal(cgs_node_kwarg(z, "alpha")->u.node, x);
    /* equal targets are interned */
    assert_ptr_equal(cgs_graph_intern(g, "aten.relu.default"), y->target);
    cgs_graph_free(g);
}

/* A graph read from its file keeps each stack trace undecoded until asked for: what it gives
 * then is what the eager reader (from memory) gives, escapes and UTF-8 included; a dict
 * argument keeps the nodes it holds as inputs. */
static void test_lazy_stack_traces(void **state)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    const char *path = "samples/llama_tiny.dynamo.json";
    char *buf;
    size_t len, lazy = 0, seen = 0;
    (void)state;
    if (cgs_read_file(path, &buf, &len, (size_t)1 << 30, &d))
        fail_msg("%s", d.msg);
    struct cgs_graph *a = cgs_graph_load_json(path, &d), *b;
    if (!a)
        fail_msg("%s", d.msg);
    b = cgs_graph_load_json_buf(buf, len, path, &d);
    if (!b)
        fail_msg("%s", d.msg);
    assert_int_equal(a->n_nodes, b->n_nodes);
    for (uint32_t i = 0; i < a->n_nodes; i++) {
        struct cgs_node *x = a->nodes[i], *y = b->nodes[i];
        lazy += x->stack_raw != NULL;
        assert_null(y->stack_raw);
        const char *sx = cgs_node_stack_trace(a, x), *sy = cgs_node_stack_trace(b, y);
        assert_true((sx == NULL) == (sy == NULL));
        if (sx) {
            assert_string_equal(sx, sy);
            assert_ptr_equal(sx, cgs_node_stack_trace(a, x)); /* decoded once */
            seen++;
        }
    }
    assert_true(lazy > 0 && seen == lazy);
    cgs_graph_free(a);
    cgs_graph_free(b);
    free(buf);

    struct cgs_graph *g = load_str(
        HEAD "\"nodes\": ["
             "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"},"
             "{\"name\": \"k\", \"op\": \"call_function\", \"target\": "
             "\"higher_order.triton_kernel_wrapper_mutation\", \"args\": [], \"kwargs\": "
             "{\"kwargs\": {\"dict\": [[\"in_ptr\", {\"node\": \"x\"}], [\"n\", 4]]}}},"
             "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\","
             " \"args\": [[{\"node\": \"x\"}]]}]}",
        &d);
    if (!g)
        fail_msg("%s", d.msg);
    struct cgs_node *k = cgs_graph_find(g, "k");
    assert_int_equal(k->n_inputs, 1);
    assert_ptr_equal(k->inputs[0], cgs_graph_find(g, "x"));
    assert_int_equal(k->kwargs[0].val.kind, CGS_ARG_DICT);
    assert_int_equal(k->kwargs[0].val.n, 4);
    assert_string_equal(k->kwargs[0].val.u.items[0].u.s, "in_ptr");
    cgs_graph_free(g);
}

static void test_numbers(void **state)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    (void)state;
    struct cgs_graph *g = load_str(
        HEAD "\"nodes\": [{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"},"
             "{\"name\": \"s\", \"op\": \"call_function\", \"target\": \"aten.slice.Tensor\","
             " \"args\": [{\"node\": \"x\"}, 1, 1.0, 9223372036854775807, -9223372036854775808,"
             " 1e-05, {\"float\": \"-inf\"}, 9007199254740993]}]}",
        &d);
    if (!g)
        fail_msg("%s", d.msg);
    const struct cgs_node *s = cgs_graph_find(g, "s");
    assert_int_equal(s->args[1].kind, CGS_ARG_INT);
    assert_int_equal(s->args[1].u.i, 1);
    assert_int_equal(s->args[2].kind, CGS_ARG_FLOAT);
    assert_int_equal(s->args[3].kind, CGS_ARG_INT);
    assert_true(s->args[3].u.i == INT64_MAX);
    assert_true(s->args[4].u.i == INT64_MIN);
    assert_int_equal(s->args[5].kind, CGS_ARG_FLOAT);
    assert_true(isinf(s->args[6].u.f) && s->args[6].u.f < 0);
    assert_true(s->args[7].u.i == 9007199254740993LL); /* past 2^53, exact */
    cgs_graph_free(g);
}

static void test_symbols_subgraphs_producer(void **state)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    (void)state;
    struct cgs_graph *g = load_str(
        "{\"format\": \"cgscope.graph\", \"version\": 1, \"name\": \"t\","
        " \"producer\": {\"tool\": \"torch\", \"stage\": \"post_grad\", \"is_inference\": false,"
        " \"is_backward\": true},"
        " \"subgraphs\": {\"wrap_body_0\": {\"nodes\": ["
        "   {\"name\": \"a\", \"op\": \"placeholder\", \"target\": \"a\"},"
        "   {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [[{\"node\": \"a\"}]]}]}},"
        " \"symbols\": {\"s0\": {\"hint\": 8, \"min\": 2, \"max\": null}},"
        " \"nodes\": [{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\","
        "  \"val\": {\"dtype\": \"bfloat16\", \"shape\": [\"s0\", 4], \"stride\": [4, 1]}},"
        " {\"name\": \"body\", \"op\": \"get_attr\", \"target\": \"wrap_body_0\"}]}",
        &d);
    if (!g)
        fail_msg("%s", d.msg);
    assert_int_equal(g->producer.stage, CGS_STAGE_POST_GRAD);
    assert_int_equal(g->producer.is_inference, 0);
    assert_int_equal(g->producer.is_backward, 1);
    const struct cgs_symbol *s0 = cgs_graph_symbol(g, "s0");
    assert_non_null(s0);
    assert_true(s0->has_hint && s0->hint == 8 && s0->has_min && s0->min == 2 && !s0->has_max);
    struct cgs_graph *sg = cgs_graph_subgraph(g, "wrap_body_0");
    assert_non_null(sg);
    assert_int_equal(sg->n_nodes, 2);
    assert_non_null(cgs_graph_find(sg, "a"));
    assert_null(cgs_graph_find(g, "a"));
    const struct cgs_tensor *t = cgs_node_tensor(cgs_graph_find(g, "x"));
    assert_int_equal(t->dtype, CGS_DTYPE_BFLOAT16);
    assert_ptr_equal(t->shape[0], s0->sym);
    int64_t v;
    assert_int_equal(cgs_sym_eval(t->shape[0], cgs_graph_hint_lookup, g, &v), 0);
    assert_int_equal(v, 8);
    cgs_graph_free(g);
}

static void test_error_place(void **state)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    char msg[1024];
    (void)state;
    struct cgs_graph *g = load_str(HEAD "\"nodes\": [\n"
                                        "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\","
                                        " \"val\": {\"dtype\": \"float32\", \"shape\": [2, \"s0 **\"]}}]}",
                                   &d);
    assert_null(g);
    assert_int_equal(d.code, CGS_E_SCHEMA);
    assert_int_equal(d.line, 2);
    assert_string_equal(d.path, "nodes[0].val.shape[1]");
    cgs_diag_format(&d, msg, sizeof(msg));
    assert_non_null(strstr(msg, "test.json:2:"));
    assert_non_null(strstr(msg, "bad dimension"));
}

/* ---- the nodes read straight from their text give what their trees give ----------- */

/* One load of a file's text: direct, the usual node read straight from its text (else every
 * node through its tree). */
static char *digest_of(const char *buf, size_t len, const char *file, bool direct)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g;
    char *s;
    cgs_load_set_direct(direct);
    g = cgs_graph_load_json_lasting(buf, len, file, &d);
    s = load_digest(g, &d);
    cgs_graph_free(g);
    cgs_load_set_direct(true);
    return s;
}

/* The same text read with and without the nodes straight from their text: the same digest. */
static void assert_direct_agrees(const char *buf, size_t len, const char *file)
{
    char *direct = digest_of(buf, len, file, true), *tree = digest_of(buf, len, file, false);
    if (strcmp(direct, tree))
        print_error("%s: read straight from the text:\n%s\nthrough trees:\n%s\n", file, direct,
                    tree);
    assert_string_equal(direct, tree);
    free(direct);
    free(tree);
}

static int agree_files, agree_failed;

static void check_file_agrees(const char *path, void *ud)
{
    char *buf = NULL, *one;
    size_t len = 0;
    struct cgs_diag d = CGS_DIAG_INIT;
    (void)ud;
    if (cgs_read_file(path, &buf, &len, (size_t)1 << 30, &d) < 0)
        return;
    one = digest_of(buf, len, path, true);
    assert_direct_agrees(buf, len, path);
    agree_files++;
    agree_failed += strncmp(one, "error ", 6) == 0;
    free(one);
    free(buf);
}

static void test_direct_agrees_on_files(void **state)
{
    static const char *const pats[] = {"samples/*.json", "tests/data/*.json", "tests/data/*/*.json",
                                       "tests/bad/*.json"};
    (void)state;
    for (size_t k = 0; k < sizeof(pats) / sizeof(pats[0]); k++) {
        glob_t gl;
        if (glob(pats[k], 0, NULL, &gl) == 0)
            for (size_t i = 0; i < gl.gl_pathc; i++)
                check_file_agrees(gl.gl_pathv[i], NULL);
        globfree(&gl);
    }
    fixture_graphs_foreach(check_file_agrees, NULL);
    print_message("%d graph files, %d of them refused, read alike straight and through trees\n",
                  agree_files, agree_failed);
    assert_true(agree_files >= 100);
    assert_true(agree_failed >= 40); /* the hostile files: their errors agree too */
}

/* A long graph with one fault at node `at`: the same error both ways, and where. */
static void check_fault(int n, int at, const char *fault, const char *want_msg, int want_line)
{
    struct cgs_buf b = CGS_BUF_INIT;
    char *one;
    cgs_buf_addstr(&b, HEAD "\"nodes\": [\n"
                            "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"}");
    for (int i = 1; i < n; i++) {
        cgs_buf_addstr(&b, ",\n");
        if (i == at)
            cgs_buf_addstr(&b, fault);
        else
            cgs_buf_addf(&b, "{\"name\": \"r%d\", \"op\": \"call_function\", \"target\": "
                             "\"torch.relu\", \"args\": [{\"node\": \"x\"}], \"stack_trace\": "
                             "\"  File \\\"m.py\\\", line %d, in forward\\n    y = relu(x)\\n\"}",
                         i, i);
    }
    cgs_buf_addstr(&b, "]}\n");
    one = digest_of(b.buf, b.len, "long.json", true);
    assert_direct_agrees(b.buf, b.len, "long.json");
    if (want_msg) {
        char line[32];
        snprintf(line, sizeof(line), "long.json:%d:", want_line);
        if (!strstr(one, want_msg) || !strstr(one, line))
            print_error("got %s", one);
        assert_non_null(strstr(one, want_msg));
        assert_non_null(strstr(one, line));
    } else {
        assert_non_null(strstr(one, "graph "));
    }
    free(one);
    cgs_buf_release(&b);
}

static void test_direct_agrees_on_faults(void **state)
{
    (void)state;
    /* HEAD and "nodes" are line 1; node i is on line 2 + i */
    check_fault(20000, -1, NULL, NULL, 0);
    check_fault(20000, 15000, "{\"name\": \"bad\", \"op\": \"call_function\", \"target\": 7}",
                "expected a string for 'target'", 2 + 15000);
    check_fault(20000, 12345, "{\"name\": \"bad\", \"op\": \"call_function\", \"target\": \"t\", "
                              "\"stack_trace\": \"\\x\"}",
                "bad escape", 2 + 12345);
    check_fault(20000, 9999, "{\"name\": \"bad\", \"op\": \"placeholder\", \"target\": \"b\"} {",
                "expected ',' or ']' after a node", 2 + 9999);
    check_fault(20000, 19999, "{\"name\": \"r1\", \"op\": \"placeholder\", \"target\": \"x\"}",
                "duplicate", 2 + 19999);
    check_fault(20000, 1, "{\"name\": \"bad\", \"op\": \"call_function\", \"target\": \"t\", "
                          "\"args\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                          "[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
                          "]]]]]]]]]]]}",
                "deep", 3);
    /* an error in a stack trace before a later one in the same node: it is the one reported,
     * as it comes first in the text */
    check_fault(20000, 7000, "{\"name\": \"bad\", \"op\": 5, \"stack_trace\": \"\\x\"}",
                "bad escape", 2 + 7000);
    check_fault(20000, 7001, "{\"name\": \"bad\", \"op\": \"call_function\", \"stack_trace\": "
                             "\"\\q\", \"args\": [1,,]}",
                "bad escape", 2 + 7001);
    check_fault(20000, 7002, "{\"name\": \"bad\", \"op\": \"call_function\", \"stack_trace\": "
                             "\"caf\xe9 \\\\\"} {",
                "invalid UTF-8", 2 + 7002);
    check_fault(20000, 7003, "{\"name\": \"bad\", \"op\": \"call_function\", \"stack_trace\": "
                             "\"tab\there\"}",
                "control character", 2 + 7003);
    check_fault(20000, 7004, "{\"name\": \"ok\", \"op\": \"placeholder\", \"target\": \"o\", "
                             "\"stack_trace\": \"C:\\\\dir\\\\\"}",
                NULL, 0);
    check_fault(20000, 19990, "{\"name\": \"bad\", \"op\": \"call_function\", \"stack_trace\": "
                              "\"no end",
                "control character", 2 + 19990); /* the line's end, inside the string */
}

/* ---- nodes read straight from their text give what their trees give ------------- */

/* Nodes (the text inside "nodes": [...]) after a placeholder x and a node y that refers on. */
static void check_direct(const char *nodes)
{
    struct cgs_buf b = CGS_BUF_INIT;
    cgs_buf_addf(&b, HEAD "\"nodes\": [\n{\"name\": \"x\", \"op\": \"placeholder\", \"target\": "
                          "\"x\", \"val\": {\"dtype\": \"float32\", \"shape\": [\"s0\", 4]}},\n%s]}\n",
                 nodes);
    assert_direct_agrees(b.buf, b.len, "direct.json");
    cgs_buf_release(&b);
}

static void test_direct_agrees(void **state)
{
    static const char *const cases[] = {
        /* the usual node, every field */
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"aten.add.Tensor\", \"args\": "
        "[{\"node\": \"x\"}, 2.5], \"kwargs\": {\"alpha\": 1}, \"val\": {\"dtype\": \"float32\", "
        "\"shape\": [\"s0\", 4], \"stride\": [4, 1], \"storage_offset\": 0, \"device\": \"cpu\", "
        "\"requires_grad\": false}, \"stack_trace\": \"  File \\\"m.py\\\", line 1\\n\", "
        "\"module_path\": \"L['self'].fc\", \"module_type\": \"Linear\", \"piece\": \"p0\"}",
        /* a key twice: the first wins */
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"name\": \"z\"}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"dtype\": "
        "\"float32\", \"shape\": [1], \"shape\": [\"s9\"]}}",
        /* args, kwargs and val out of order; shape, stride, storage_offset out of order */
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"dtype\": "
        "\"float32\", \"shape\": [\"s1\"]}, \"args\": [{\"node\": \"w\"}], \"kwargs\": {\"k\": "
        "{\"node\": \"v\"}}}, {\"name\": \"w\", \"op\": \"placeholder\", \"target\": \"w\"}, "
        "{\"name\": \"v\", \"op\": \"placeholder\", \"target\": \"v\"}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"stride\": "
        "[\"s5\", 1], \"dtype\": \"int64\", \"storage_offset\": \"s6\", \"shape\": [\"s7\", 2]}}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"shape\": "
        "[\"s7\", 2], \"storage_offset\": \"s6\", \"stride\": [\"s5\", 1], \"dtype\": \"int64\"}}",
        /* value objects: symint (with and without a hint), a symint that is a tensor after
         * all, symfloat, symbool, lists of values short and long */
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"symint\": "
        "\"s0 + 1\", \"hint\": 5}}, {\"name\": \"z\", \"op\": \"call_function\", \"target\": "
        "\"t\", \"val\": {\"symint\": 3, \"hint\": null, \"other\": [1]}}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"symint\": "
        "\"s11\", \"dtype\": \"float32\", \"shape\": [\"s12\"]}}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": [{\"symfloat\": "
        "\"zf0\", \"hint\": 0.5}, {\"symbool\": \"Eq(s0, 2)\", \"hint\": true}, null, true, 7, "
        "1.5e3, -0, [1, [2, []]]]}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": [1, 2, 3, 4, 5, "
        "6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, {\"dtype\": \"bool\", \"shape\": [\"s20\"]}, "
        "{\"dtype\": \"bool\", \"shape\": [\"s21\"]}]}",
        /* arguments of every kind; lists past the short ones, with forward references */
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"args\": [{\"slice\": "
        "[null, 4, null]}, {\"ellipsis\": null}, {\"float\": \"-inf\"}, {\"dtype\": \"bfloat16\"},"
        " {\"device\": \"cuda:0\"}, {\"memory_format\": \"torch.channels_last\"}, {\"layout\": "
        "\"torch.strided\"}, {\"repr\": \"<object>\"}, {\"list\": [1, {\"node\": \"x\"}]}, "
        "{\"dict\": [[\"a\", {\"node\": \"x\"}], [\"b\", 2]]}, \"text\", true, false, null]}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"args\": [[{\"node\": "
        "\"f0\"}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, {\"node\": \"x\"}, {\"node\": "
        "\"f1\"}, {\"node\": \"y\"}], {\"node\": \"f0\"}, {\"list\": [{\"node\": \"f1\"}]}], "
        "\"kwargs\": {\"a\": [{\"node\": \"f1\"}], \"b\\u0062\": {\"node\": \"x\"}}}, "
        "{\"name\": \"f0\", \"op\": \"placeholder\", \"target\": \"f0\"}, {\"name\": \"f1\", "
        "\"op\": \"placeholder\", \"target\": \"f1\"}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"kwargs\": {\"k\": "
        "{\"node\": \"nowhere1\"}}, \"args\": [{\"node\": \"nowhere2\"}]}",
        /* stack traces repeated (read once, then known by their bytes), one of the same length
         * that differs, one that starts as another and goes on to a bad byte */
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"stack_trace\": "
        "\"  File \\\"m.py\\\", line 1\\n\"}, {\"name\": \"z\", \"op\": \"call_function\", "
        "\"target\": \"t\", \"stack_trace\": \"  File \\\"m.py\\\", line 1\\n\"}, {\"name\": \"w\", "
        "\"op\": \"call_function\", \"target\": \"t\", \"stack_trace\": \"  File \\\"m.py\\\", line "
        "2\\n\"}, {\"name\": \"v\", \"op\": \"call_function\", \"target\": \"t\", \"stack_trace\": "
        "\"  File \\\"m.py\\\", line 1\\n\"}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"stack_trace\": "
        "\"  File \\\"m.py\\\", line 1\\n\"}, {\"name\": \"z\", \"op\": \"call_function\", "
        "\"target\": \"t\", \"stack_trace\": \"  File \\\"m.py\\\", line 1\\n\\q\"}",
        /* values repeated (read once, then known by their bytes): one that ends as another,
         * one that starts as another, a repeat followed by a bad byte, a symbolic one made
         * once, a list of tensors */
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"dtype\": "
        "\"float32\", \"shape\": [\"s30\", 4], \"stride\": [4, 1]}}, {\"name\": \"z\", \"op\": "
        "\"call_function\", \"target\": \"t\", \"val\": {\"dtype\": \"float32\", \"shape\": "
        "[\"s30\", 4], \"stride\": [4, 1]}}, {\"name\": \"w\", \"op\": \"call_function\", "
        "\"target\": \"t\", \"val\": {\"dtype\": \"float16\", \"shape\": [\"s30\", 4], "
        "\"stride\": [4, 1]}}, {\"name\": \"v\", \"op\": \"call_function\", \"target\": \"t\", "
        "\"val\": {\"dtype\": \"float32\", \"shape\": [\"s30\", 4], \"stride\": [4, 2]}}, "
        "{\"name\": \"u\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"dtype\": "
        "\"float32\", \"shape\": [\"s30\", 4], \"stride\": [4, 1]}}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": [{\"dtype\": "
        "\"int8\", \"shape\": [\"s31 + 1\"]}, {\"symint\": \"s32\", \"hint\": 3}]}, {\"name\": "
        "\"z\", \"op\": \"call_function\", \"target\": \"t\", \"val\": [{\"dtype\": \"int8\", "
        "\"shape\": [\"s31 + 1\"]}, {\"symint\": \"s32\", \"hint\": 3}]}, {\"name\": \"w\", "
        "\"op\": \"call_function\", \"target\": \"t\", \"val\": [{\"dtype\": \"int8\", "
        "\"shape\": [\"s31 + 1\"]}, {\"symint\": \"s32\", \"hint\": 3}]x}",
        /* names, targets and strings with escapes; null and empty fields */
        "{\"name\": \"y\\u00e9\\n\", \"op\": \"call_function\", \"target\": \"a\\\"b\", "
        "\"stack_trace\": \"\", \"module_path\": null, \"piece\": \"p\\/1\"}, {\"name\": \"o\", "
        "\"op\": \"output\", \"target\": null, \"args\": [[{\"node\": \"y\\u00e9\\n\"}]], "
        "\"stack_trace\": null, \"val\": null}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"dtype\": "
        "\"float32\", \"shape\": [2], \"stride\": null, \"storage_offset\": null, \"device\": "
        "null, \"requires_grad\": null}}",
        /* numbers at int64's edges and past them; a leading zero */
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"args\": "
        "[9223372036854775807, -9223372036854775808, 123456789012345678, 01, -0, 1e400, "
        "0.1e-2, 1234567890123456789012.5]}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"args\": "
        "[9223372036854775808]}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"args\": "
        "[-9223372036854775809]}",
        /* dimensions torch writes that the parser does not model; bad ones */
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"dtype\": "
        "\"float32\", \"shape\": [\"Piecewise((s0, s0 > 2), (2, True))\", 3]}}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"dtype\": "
        "\"float32\", \"shape\": [-1]}}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"dtype\": "
        "\"float32\", \"shape\": [\"s0 **\"]}}",
        /* unknown keys, any value */
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"meta\": {\"a\": [1, "
        "{\"b\": null}]}, \"x\" : \t\"\\u00e9\" }",
        /* errors: every one the tree path's */
        "{}", "[1]", "{\"name\": \"\", \"op\": \"placeholder\"}",
        "{\"name\": \"y\", \"op\": \"call_function\"}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": 7}",
        "{\"name\": \"y\", \"op\": \"nope\", \"target\": \"t\"}",
        "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"args\": [{\"node\": "
        "\"x\", \"extra\": 1}]}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"args\": [{\"node\": "
        "\"nowhere\"}]}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"args\": [1,]}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": \"str\"}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"dtype\": "
        "\"float99\", \"shape\": []}}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"val\": {\"dtype\": "
        "\"float32\", \"shape\": [1], \"stride\": [1, 1]}}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"stack_trace\": \"\\x\"}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"stack_trace\": 5}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"args\": [{\"slice\": "
        "[1, 2]}]}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"args\": [-]}",
        "{\"name\": \"y\" \"op\": \"call_function\"}",
        "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", \"na\\u006de\": \"z\"}",
    };
    (void)state;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        check_direct(cases[k]);
    /* values nested to the limit and past it, under an unknown key, in args and in val (the
     * limit counts the node's own containers) */
    for (int depth = CGS_LOAD_MAX_DEPTH - 3; depth <= CGS_LOAD_MAX_DEPTH + 1; depth++) {
        static const char *const at[] = {"\"deep\": ", "\"args\": ", "\"val\": "};
        for (size_t w = 0; w < sizeof(at) / sizeof(at[0]); w++) {
            struct cgs_buf b = CGS_BUF_INIT;
            cgs_buf_addf(&b, "{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"t\", %s",
                         at[w]);
            for (int i = 0; i < depth; i++)
                cgs_buf_addch(&b, '[');
            for (int i = 0; i < depth; i++)
                cgs_buf_addch(&b, ']');
            cgs_buf_addch(&b, '}');
            check_direct(b.buf);
            cgs_buf_release(&b);
        }
    }

    /* many values, each once (past the tries after which repeats are no longer looked for),
     * then repeated; the same value in the graph and in a subgraph */
    {
        struct cgs_buf b = CGS_BUF_INIT;
        cgs_buf_addf(&b, HEAD "\"nodes\": [\n{\"name\": \"x\", \"op\": \"placeholder\", "
                              "\"target\": \"x\"}");
        for (int i = 0; i < 600; i++)
            cgs_buf_addf(&b, ",\n{\"name\": \"n%d\", \"op\": \"call_function\", \"target\": "
                             "\"t\", \"val\": {\"dtype\": \"float32\", \"shape\": [%d, \"s%d\"]}}",
                         i, i < 300 ? i : i % 7, i < 300 ? i % 5 : 2);
        cgs_buf_addstr(&b, "], \"subgraphs\": {\"body\": {\"nodes\": [{\"name\": \"a\", \"op\": "
                           "\"placeholder\", \"target\": \"a\", \"val\": {\"dtype\": "
                           "\"float32\", \"shape\": [3, \"s2\"]}}, {\"name\": \"b\", \"op\": "
                           "\"placeholder\", \"target\": \"b\", \"val\": {\"dtype\": "
                           "\"float32\", \"shape\": [3, \"s2\"]}}]}}}\n");
        assert_direct_agrees(b.buf, b.len, "many.json");
        cgs_buf_release(&b);
    }

    /* every prefix of a graph of usual nodes: a text that ends anywhere inside a node */
    {
        struct cgs_buf b = CGS_BUF_INIT;
        cgs_buf_addf(&b, HEAD "\"nodes\": [\n{\"name\": \"x\", \"op\": \"placeholder\", "
                              "\"target\": \"x\"},\n%s, %s]}\n",
                     cases[0], "{\"name\": \"z\", \"op\": \"output\", \"args\": [[{\"node\": "
                               "\"y\"}, {\"slice\": [1, -2, null]}, [1.5, \"s\"]]]}");
        for (size_t len = 0; len <= b.len; len++) {
            char *cut = malloc(len ? len : 1); /* exactly len bytes: a read past them is seen */
            memcpy(cut, b.buf, len);
            assert_direct_agrees(cut, len, "cut.json");
            free(cut);
        }
        cgs_buf_release(&b);
    }

    /* and the usual nodes are read straight from their text (a walk that gave every node back
     * would agree too) */
    uint64_t before = cgs_load_direct_count();
    check_direct(cases[0]);
    assert_true(cgs_load_direct_count() - before == 2); /* x and y */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_users_and_inputs),
        cmocka_unit_test(test_lazy_stack_traces),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_symbols_subgraphs_producer),
        cmocka_unit_test(test_error_place),
        cmocka_unit_test(test_direct_agrees_on_files),
        cmocka_unit_test(test_direct_agrees_on_faults),
        cmocka_unit_test(test_direct_agrees),
    };
    return cmocka_run_group_tests_name("load-json", tests, NULL, NULL);
}
