/* lib/graph (the IR: nodes, interning, links, notes) and lib/report-json (values as JSON/text). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/buf.h"
#include "lib/ir/graph.h"
#include "lib/readers/load.h"
#include "lib/writers/jsonw.h"
#include "lib/writers/report-json.h"
#include "tests/value-tree.h"

static const char graph[] =
    "{\"format\": \"cgscope.graph\", \"version\": 1, \"name\": \"t\", \"symbols\": {\"s0\": "
    "{\"hint\": 4}}, \"nodes\": [\n"
    "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\", \"args\": [], \"kwargs\": {},"
    " \"val\": {\"dtype\": \"float32\", \"shape\": [\"s0\", 3], \"stride\": [3, 1],"
    " \"storage_offset\": 0, \"device\": \"cuda:0\"}},\n"
    "{\"name\": \"a\", \"op\": \"call_function\", \"target\": \"aten.add.Tensor\","
    " \"args\": [{\"node\": \"x\"}, {\"node\": \"x\"}], \"kwargs\": {}},\n"
    "{\"name\": \"b\", \"op\": \"call_function\", \"target\": \"aten.add.Tensor\","
    " \"args\": [{\"node\": \"a\"}, 1], \"kwargs\": {\"alpha\": {\"node\": \"x\"}}},\n"
    "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [[{\"node\": "
    "\"b\"}]], \"kwargs\": {}}]}";

static void test_links_and_interning(void **state)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g = cgs_graph_load_json_buf(graph, sizeof(graph) - 1, "t.json", &d);
    struct cgs_node *x, *a, *b;
    (void)state;
    assert_non_null(g);
    x = cgs_graph_find(g, "x");
    a = cgs_graph_find(g, "a");
    b = cgs_graph_find(g, "b");
    assert_non_null(x);
    assert_null(cgs_graph_find(g, "nope"));
    /* inputs: distinct, in order of first use in args then kwargs (FX's all_input_nodes) */
    assert_int_equal(a->n_inputs, 1);
    assert_ptr_equal(a->inputs[0], x);
    assert_int_equal(b->n_inputs, 2);
    assert_ptr_equal(b->inputs[0], a);
    assert_ptr_equal(b->inputs[1], x);
    /* users in graph order */
    assert_int_equal(x->n_users, 2);
    assert_ptr_equal(x->users[0], a);
    assert_ptr_equal(x->users[1], b);
    /* equal targets share the pointer */
    assert_ptr_equal(a->target, b->target);
    assert_ptr_equal(cgs_graph_intern(g, "aten.add.Tensor"), a->target);
    /* names are unique */
    assert_null(cgs_graph_add_node(g, CGS_NODE_CALL_FUNCTION, "a", "aten.mul.Tensor"));
    assert_non_null(cgs_graph_symbol(g, "s0"));
    assert_int_equal(cgs_graph_symbol(g, "s0")->hint, 4);
    cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_SCHEMA, a, "something about %s", "a");
    assert_string_equal(g->notes[g->n_notes - 1].msg, "something about a");
    cgs_graph_free(g);
}

/* Module state, one answer for split and dot: the names Dynamo gives the placeholders it lifts
   from a module (recorded in ../shared/fixtures' Dynamo graphs: l_self_modules_bn1_buffers_
   running_mean_, l_self_modules_fc_parameters_weight_), a plain attribute, get_attr */
static void test_module_state(void **state)
{
    struct cgs_graph *g = cgs_graph_new("m.json", "m");
    struct cgs_node *w = cgs_graph_add_node(g, CGS_NODE_PLACEHOLDER,
                                            "l_self_modules_fc_parameters_weight_",
                                            "L_self_modules_fc_parameters_weight_");
    struct cgs_node *b = cgs_graph_add_node(g, CGS_NODE_PLACEHOLDER,
                                            "l_self_modules_bn1_buffers_running_mean_",
                                            "L_self_modules_bn1_buffers_running_mean_");
    struct cgs_node *t = cgs_graph_add_node(g, CGS_NODE_PLACEHOLDER, "l_self_scale", "L_self_scale");
    struct cgs_node *x = cgs_graph_add_node(g, CGS_NODE_PLACEHOLDER, "l_x_", "L_x_");
    struct cgs_node *c = cgs_graph_add_node(g, CGS_NODE_GET_ATTR, "_tensor_constant0",
                                            "_tensor_constant0");
    struct cgs_node *p = cgs_graph_add_node(g, CGS_NODE_PLACEHOLDER, "p_weight", "p_weight");
    struct cgs_node *u = cgs_graph_add_node(g, CGS_NODE_PLACEHOLDER, "l_self_x", "l_self_x");
    (void)state;
    p->pt2_kind = CGS_PT2_PARAMETER;
    u->pt2_kind = CGS_PT2_USER_INPUT; /* a .pt2's signature has the last word */
    assert_int_equal(cgs_node_state(w), CGS_STATE_PARAMETER);
    assert_int_equal(cgs_node_state(b), CGS_STATE_BUFFER);
    assert_int_equal(cgs_node_state(t), CGS_STATE_ATTRIBUTE);
    assert_int_equal(cgs_node_state(x), CGS_STATE_NONE);
    assert_int_equal(cgs_node_state(c), CGS_STATE_CONSTANT);
    assert_int_equal(cgs_node_state(p), CGS_STATE_PARAMETER);
    assert_int_equal(cgs_node_state(u), CGS_STATE_NONE);
    cgs_graph_free(g);
}

static void test_values(void **state)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g = cgs_graph_load_json_buf(graph, sizeof(graph) - 1, "t.json", &d);
    struct cgs_buf b = CGS_BUF_INIT;
    cJSON *j;
    char *text;
    (void)state;
    assert_non_null(g);
    cgs_val_describe(cgs_graph_find(g, "x")->val, &b);
    assert_string_equal(b.buf, "f32[s0, 3]"); /* torch's TORCH_LOGS notation */
    j = cgs_json_val(cgs_graph_find(g, "x")->val);
    text = cJSON_PrintUnformatted(j);
    assert_non_null(strstr(text, "\"dtype\":\"float32\""));
    assert_non_null(strstr(text, "\"shape\":[\"s0\",3]"));
    assert_non_null(strstr(text, "\"stride\":[3,1]"));
    free(text);
    cJSON_Delete(j);
    cgs_buf_reset(&b);
    cgs_val_describe(NULL, &b);
    assert_string_equal(b.buf, "?");
    cgs_buf_release(&b);
    assert_int_equal(cgs_dtype_from_name("half"), CGS_DTYPE_FLOAT16);
    assert_string_equal(cgs_dtype_abbr(CGS_DTYPE_BFLOAT16), "bf16");
    assert_string_equal(cgs_dtype_abbr(CGS_DTYPE_UNKNOWN), "?");
    cgs_graph_free(g);
}

/* Every field a tensor's text may show, so that a text kept for another tensor is seen. */
static int val_text_calls;
static void full_text(const struct cgs_val *v, struct cgs_buf *b)
{
    val_text_calls++;
    cgs_val_describe(v, b);
    if (v && v->kind == CGS_VAL_TENSOR) {
        cgs_buf_addf(b, " stride=");
        for (uint32_t i = 0; v->u.t.stride && i < v->u.t.ndim; i++)
            cgs_sym_print(v->u.t.stride[i], b), cgs_buf_addch(b, ',');
        cgs_buf_addf(b, " off=");
        if (v->u.t.storage_offset)
            cgs_sym_print(v->u.t.storage_offset, b);
        cgs_buf_addf(b, " dev=%s rg=%d", v->u.t.device ? v->u.t.device : "-",
                     v->u.t.requires_grad);
    }
}

/* Texts of values met again (cgs_val_text) are those written of them: tensors that differ in
 * one field each, a device spelled by two pointers, lists (never kept), many more values than
 * slots; and a value met again is not written again. */
static void test_val_texts(void **state)
{
    struct cgs_graph *g = cgs_graph_new("t.json", "t");
    static char cuda_copy[] = "cuda:0";
    const char *devices[] = {"cuda:0", cuda_copy, "cpu", NULL};
    enum { N = 700 };
    struct cgs_val *vals = calloc(N, sizeof(*vals));
    struct cgs_val_texts texts = {0};
    struct cgs_buf a = CGS_BUF_INIT, b = CGS_BUF_INIT;
    (void)state;
    for (int i = 0; i < N; i++) {
        struct cgs_val *v = &vals[i];
        const struct cgs_sym **shape, **stride;
        if (i % 50 == 49) { /* a list: written each time */
            v->kind = CGS_VAL_LIST;
            v->n = 1;
            v->u.items = &vals[i - 1];
            continue;
        }
        shape = calloc(2, sizeof(*shape));
        stride = calloc(2, sizeof(*stride));
        v->kind = CGS_VAL_TENSOR;
        v->u.t.dtype = i % 3 ? CGS_DTYPE_FLOAT32 : CGS_DTYPE_BFLOAT16;
        v->u.t.ndim = 2;
        shape[0] = i % 7 ? cgs_sym_int(g->syms, i % 11) : cgs_sym_var(g->syms, "s0");
        shape[1] = cgs_sym_int(g->syms, 4);
        stride[0] = cgs_sym_int(g->syms, 4);
        stride[1] = cgs_sym_int(g->syms, i % 5 ? 1 : 2);
        v->u.t.shape = shape;
        v->u.t.stride = i % 13 ? stride : NULL;
        v->u.t.storage_offset = i % 17 ? cgs_sym_int(g->syms, 0) : NULL;
        v->u.t.device = devices[i % 4];
        v->u.t.requires_grad = i % 19 == 0;
        if (!v->u.t.stride)
            free(stride);
    }
    /* three passes in a scrambled order: every text the one written directly */
    for (int pass = 0; pass < 3; pass++)
        for (int k = 0; k < N; k++) {
            const struct cgs_val *v = &vals[(k * 389 + pass * 97) % N];
            cgs_buf_reset(&a);
            cgs_buf_reset(&b);
            cgs_buf_addstr(&a, "> ");
            cgs_val_text(&texts, v, full_text, &a);
            cgs_buf_addstr(&b, "> ");
            full_text(v, &b);
            assert_string_equal(a.buf, b.buf);
        }
    cgs_val_texts_release(&texts);
    /* a few values met many times: each written about once */
    val_text_calls = 0;
    for (int pass = 0; pass < 20; pass++)
        for (int k = 0; k < 8; k++) {
            cgs_buf_reset(&a);
            cgs_val_text(&texts, &vals[k], full_text, &a);
        }
    assert_true(val_text_calls <= 16);
    cgs_val_texts_release(&texts);
    for (int i = 0; i < N; i++)
        if (vals[i].kind == CGS_VAL_TENSOR) {
            free((void *)vals[i].u.t.shape);
            free((void *)vals[i].u.t.stride);
        }
    free(vals);
    cgs_buf_release(&a);
    cgs_buf_release(&b);
    cgs_graph_free(g);
}

/* v written straight (cgs_jsonw_val) and through its tree (cgs_json_val, jsonw_value) at
 * every depth a document puts values, and compact (as cJSON_PrintUnformatted): the same text. */
static void same_val_text(const struct cgs_val *v)
{
    for (int depth = 0; depth < 5; depth++) {
        struct cgs_buf a = CGS_BUF_INIT, b = CGS_BUF_INIT;
        struct jsonw w;
        cJSON *t = cgs_json_val(v);
        bool compact = depth == 4;
        jsonw_init(&w, jsonw_to_buf, &a);
        w.compact = compact;
        cgs_jsonw_val(&w, v, depth);
        assert_true(jsonw_finish(&w));
        if (compact) {
            char *c = cJSON_PrintUnformatted(t);
            cgs_buf_addstr(&b, c);
            free(c);
        } else {
            jsonw_init(&w, jsonw_to_buf, &b);
            jsonw_value(&w, t, depth);
            assert_true(jsonw_finish(&w));
        }
        cgs_buf_addch(&a, 0);
        cgs_buf_addch(&b, 0);
        assert_string_equal(a.buf, b.buf);
        cJSON_Delete(t);
        cgs_buf_release(&a);
        cgs_buf_release(&b);
    }
}

/* An ARG written straight (cgs_jsonw_arg), formatted at each depth and compact: the tree's text. */
static void same_arg_text(const struct cgs_arg *a)
{
    for (int depth = 0; depth < 4; depth++) {
        struct cgs_buf x = CGS_BUF_INIT, y = CGS_BUF_INIT;
        struct jsonw w;
        cJSON *t = cgs_json_arg(a);
        jsonw_init(&w, jsonw_to_buf, &x);
        w.compact = depth == 3;
        cgs_jsonw_arg(&w, a, depth);
        assert_true(jsonw_finish(&w));
        jsonw_init(&w, jsonw_to_buf, &y);
        w.compact = depth == 3;
        jsonw_tree(&w, t, depth);
        assert_true(jsonw_finish(&w));
        cgs_buf_addch(&x, 0);
        cgs_buf_addch(&y, 0);
        assert_string_equal(x.buf, y.buf);
        cJSON_Delete(t);
        cgs_buf_release(&x);
        cgs_buf_release(&y);
    }
}

/* Values written straight from the IR are those the trees print: every value of the tests'
 * graph files, and one of each kind and corner (unknown dtype, rank, strides and offset;
 * integers past 2^53; hints; nested lists). */
static void test_val_written(void **state)
{
    struct cgs_graph *g = cgs_graph_new("t.json", "t");
    const struct cgs_sym *dims[3], *big = cgs_sym_int(g->syms, ((int64_t)1 << 60) + 1);
    struct cgs_val v[12], list[3], nested;
    glob_t gl;
    size_t vals = 0, args = 0;
    (void)state;
    memset(v, 0, sizeof(v));
    dims[0] = cgs_sym_var(g->syms, "s0");
    dims[1] = big;
    dims[2] = cgs_sym_int(g->syms, -3);
    v[0].kind = CGS_VAL_NONE;
    v[1].kind = CGS_VAL_BOOL, v[1].u.b = true;
    v[2].kind = CGS_VAL_INT, v[2].u.i = ((int64_t)1 << 62) + 7;
    v[3].kind = CGS_VAL_FLOAT, v[3].u.f = 1.0 / 3;
    v[4].kind = CGS_VAL_FLOAT, v[4].u.f = NAN;
    v[5].kind = CGS_VAL_SYMINT, v[5].u.s.sym = dims[0], v[5].has_hint = true, v[5].u.s.hint = 8;
    v[6].kind = CGS_VAL_SYMFLOAT, v[6].u.s.text = "zf0", v[6].has_hint = true,
    v[6].u.s.fhint = 0.25;
    v[7].kind = CGS_VAL_SYMBOOL, v[7].u.s.text = "Eq(s0, 1)", v[7].has_hint = true;
    v[8].kind = CGS_VAL_TENSOR, v[8].u.t.ndim = CGS_NDIM_UNKNOWN;
    v[9].kind = CGS_VAL_TENSOR, v[9].u.t.dtype = CGS_DTYPE_FLOAT16, v[9].u.t.ndim = 3,
    v[9].u.t.shape = dims, v[9].u.t.device = "cuda:0", v[9].u.t.requires_grad = true;
    v[10] = v[9], v[10].u.t.stride = dims, v[10].u.t.storage_offset = big;
    v[11].kind = CGS_VAL_TENSOR, v[11].u.t.dtype = CGS_DTYPE_BOOL, v[11].u.t.ndim = 0,
    v[11].u.t.shape = dims, v[11].u.t.stride = dims;
    list[0] = v[10], list[1] = v[5], list[2] = v[0];
    nested.kind = CGS_VAL_LIST, nested.n = 3, nested.u.items = list;
    for (size_t i = 0; i < 12; i++)
        same_val_text(&v[i]);
    {
        /* every kind of argument, nested: a dict of a slice and a list holding a node */
        struct cgs_node nd = {.name = "x"};
        struct cgs_arg leaf[6], sl[3], li[2], di[4], top;
        memset(leaf, 0, sizeof(leaf));
        leaf[0].kind = CGS_ARG_FLOAT, leaf[0].u.f = -INFINITY;
        leaf[1].kind = CGS_ARG_NODE, leaf[1].u.node = &nd;
        leaf[2].kind = CGS_ARG_DTYPE, leaf[2].u.dtype = CGS_DTYPE_BFLOAT16;
        leaf[3].kind = CGS_ARG_MEMFMT, leaf[3].u.s = "channels_last";
        leaf[4].kind = CGS_ARG_ELLIPSIS;
        leaf[5].kind = CGS_ARG_SYM, leaf[5].u.sym = dims[0];
        for (int i = 0; i < 6; i++)
            same_arg_text(&leaf[i]);
        memset(sl, 0, sizeof(sl));
        sl[1].kind = CGS_ARG_INT, sl[1].u.i = ((int64_t)1 << 60) + 3;
        li[0] = leaf[1], li[1] = leaf[4];
        di[0].kind = CGS_ARG_STR, di[0].u.s = "k\"ey";
        di[1].kind = CGS_ARG_SLICE, di[1].n = 3, di[1].u.items = sl;
        di[2] = leaf[2];
        di[3].kind = CGS_ARG_LIST, di[3].n = 2, di[3].u.items = li, di[3].pylist = 1;
        memset(&top, 0, sizeof(top));
        top.kind = CGS_ARG_DICT, top.n = 4, top.u.items = di;
        same_arg_text(&top);
    }
    same_val_text(&nested);
    same_val_text(NULL);
    struct cgs_val outer_items[2] = {nested, v[3]}, outer = {.kind = CGS_VAL_LIST, .n = 2};
    outer.u.items = outer_items;
    same_val_text(&outer); /* a list in a list */
    cgs_graph_free(g);

    assert_int_equal(glob("tests/data/*.json", 0, NULL, &gl), 0);
    assert_int_equal(glob("tests/data/*/*.json", GLOB_APPEND, NULL, &gl), 0);
    assert_int_equal(glob("samples/*.json", GLOB_APPEND, NULL, &gl), 0);
    for (size_t f = 0; f < gl.gl_pathc; f++) {
        struct cgs_diag d = CGS_DIAG_INIT;
        struct cgs_graph *x = cgs_graph_load_json(gl.gl_pathv[f], &d);
        for (uint32_t i = 0; x && i < x->n_nodes; i++, vals++) {
            const struct cgs_node *n = x->nodes[i];
            same_val_text(n->val);
            for (uint32_t k = 0; k < n->n_args; k++, args++)
                same_arg_text(&n->args[k]);
            for (uint32_t k = 0; k < n->n_kwargs; k++, args++)
                same_arg_text(&n->kwargs[k].val);
        }
        cgs_graph_free(x);
    }
    globfree(&gl);
    print_message("%zu values and %zu arguments of the tests' and samples' graphs\n", vals, args);
    assert_true(vals > 1000 && args > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_links_and_interning),
                                       cmocka_unit_test(test_module_state),
                                       cmocka_unit_test(test_values),
                                       cmocka_unit_test(test_val_texts),
                                       cmocka_unit_test(test_val_written)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
