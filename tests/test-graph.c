/* lib/graph (the IR: nodes, interning, links, notes) and lib/report-json (values as JSON/text). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/buf.h"
#include "lib/ir/graph.h"
#include "lib/readers/load.h"
#include "lib/writers/report-json.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_links_and_interning),
                                       cmocka_unit_test(test_module_state),
                                       cmocka_unit_test(test_values),
                                       cmocka_unit_test(test_val_texts)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
