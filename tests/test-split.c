/*
 * The piecewise split (lib/passes/split.c): edge cases on small hand-built graphs,
 * whose expected pieces follow torch 2.11's split_module rules by hand
 * (see the comment at the top of lib/passes/split.c), and a golden test that
 * reproduces every split sidecar PyTorch wrote in ../shared/fixtures/dynamo.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/buf.h"
#include "lib/readers/load.h"
#include "lib/base/nearest.h"
#include "lib/passes/split.h"
#include "tests/tgraph.h"

/* ---- building graphs: tests/tgraph.h -------------------------------------------------- */

static struct cgs_split *split_ops(struct cgs_graph *g, enum cgs_split_policy policy,
                                   const char *op1, const char *op2)
{
    const char *ops[2] = {op1, op2};
    struct cgs_split_opts o = {policy, ops, op2 ? 2 : op1 ? 1 : 0};
    struct cgs_split *s = NULL;
    struct cgs_diag d = CGS_DIAG_INIT;

    assert_int_equal(cgs_split_run(g, &o, &s, &d), 0);
    assert_non_null(s);
    return s;
}

/* "a,b,c" -> compare with node names */
static void check_names(struct cgs_node *const *nodes, uint32_t n, const char *want,
                        const char *what, const char *piece)
{
    struct cgs_buf b = CGS_BUF_INIT;
    for (uint32_t i = 0; i < n; i++)
        cgs_buf_addf(&b, "%s%s", i ? "," : "", nodes[i]->name);
    if (strcmp(b.buf, want))
        fail_msg("%s %s: got '%s', want '%s'", piece, what, b.buf, want);
    cgs_buf_release(&b);
}

static void check_piece(const struct cgs_split *s, uint32_t i, const char *name, bool splitting,
                        const char *nodes, const char *inputs, const char *outputs)
{
    const struct cgs_split_piece *p;

    assert_true(i < s->n_pieces);
    p = &s->pieces[i];
    assert_string_equal(p->name, name);
    assert_int_equal(p->graph_id, atoi(name + 7));
    assert_int_equal(p->is_splitting_graph, splitting);
    check_names(p->nodes, p->n_nodes, nodes, "nodes", name);
    check_names(p->inputs, p->n_inputs, inputs, "inputs", name);
    check_names(p->outputs, p->n_outputs, outputs, "outputs", name);
}

#define ATT "cgs.attention"
#define RELU "torch.relu"

/* ---- edge cases ------------------------------------------------------------------------- */

/* Two splitting ops back to back: the id between them is never used (no submod_2). */
static void test_adjacent_splitting_ops(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;

    (void)state;
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4"));
    tg_call(&b, "a", RELU, "[{\"node\": \"x\"}]", TG_F32("4"));
    tg_call(&b, "b", ATT, "[{\"node\": \"a\"}]", TG_F32("4"));
    tg_call(&b, "c", ATT, "[{\"node\": \"b\"}]", TG_F32("4"));
    tg_call(&b, "d", RELU, "[{\"node\": \"c\"}]", TG_F32("4"));
    g = tg_end(&b, "{\"node\": \"d\"}", NULL);
    s = split_ops(g, CGS_SPLIT_MAGI, ATT, NULL);
    assert_int_equal(s->n_pieces, 4);
    check_piece(s, 0, "submod_0", false, "a", "x", "a");
    check_piece(s, 1, "submod_1", true, "b", "a", "b");
    check_piece(s, 2, "submod_3", true, "c", "b", "c");
    check_piece(s, 3, "submod_4", false, "d", "c", "d");
    assert_int_equal(s->pieces[0].compile_index, 0);
    assert_int_equal(s->pieces[1].compile_index, -1);
    assert_int_equal(s->pieces[3].compile_index, 1);
    assert_int_equal(s->counters.piecewise_graphs, 4);
    assert_int_equal(s->counters.capturable_graphs, 2);
    // boundaries: before b (split op), before c (split op), before d (after split op)
    assert_int_equal(s->n_boundaries, 3);
    assert_int_equal(s->boundaries[0].rule, CGS_SPLIT_RULE_SPLIT_OP);
    assert_string_equal(s->boundaries[0].node->name, "b");
    assert_string_equal(s->boundaries[0].op, ATT);
    assert_int_equal(s->boundaries[1].rule, CGS_SPLIT_RULE_SPLIT_OP);
    assert_string_equal(s->boundaries[1].node->name, "c");
    assert_int_equal(s->boundaries[2].rule, CGS_SPLIT_RULE_AFTER_SPLIT_OP);
    assert_string_equal(s->boundaries[2].node->name, "c");
    assert_int_equal(s->ops[0].n_matched, 2);
    cgs_graph_free(g);
}

/* The first node splits: no submod_0. The last node splits: no trailing piece. */
static void test_splitting_op_first_and_last(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;

    (void)state;
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4"));
    tg_call(&b, "a", ATT, "[{\"node\": \"x\"}]", TG_F32("4"));
    tg_call(&b, "r", RELU, "[{\"node\": \"a\"}]", TG_F32("4"));
    tg_call(&b, "z", ATT, "[{\"node\": \"r\"}, {\"node\": \"x\"}]", TG_F32("4"));
    g = tg_end(&b, "{\"node\": \"z\"}", NULL);
    s = split_ops(g, CGS_SPLIT_MAGI, ATT, NULL);
    assert_int_equal(s->n_pieces, 3);
    check_piece(s, 0, "submod_1", true, "a", "x", "a");
    check_piece(s, 1, "submod_2", false, "r", "a", "r");
    check_piece(s, 2, "submod_3", true, "z", "r,x", "z");
    assert_int_equal(s->pieces[1].compile_index, 0);
    assert_int_equal(s->counters.capturable_graphs, 1);
    cgs_graph_free(g);
}

/* A graph of splitting ops only: every piece is a splitting piece, nothing compiles. */
static void test_only_splitting_ops(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;

    (void)state;
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4"));
    tg_call(&b, "a", ATT, "[{\"node\": \"x\"}]", TG_F32("4"));
    tg_call(&b, "c", ATT, "[{\"node\": \"a\"}, {\"node\": \"x\"}]", TG_F32("4"));
    // the output returns c before a: a is already an output of submod_1 (c used it)
    g = tg_end(&b, "[{\"node\": \"c\"}, {\"node\": \"a\"}]", NULL);
    s = split_ops(g, CGS_SPLIT_MAGI, ATT, NULL);
    assert_int_equal(s->n_pieces, 2);
    check_piece(s, 0, "submod_1", true, "a", "x", "a");
    check_piece(s, 1, "submod_3", true, "c", "a,x", "c");
    assert_int_equal(s->counters.capturable_graphs, 0);
    assert_int_equal(s->n_findings, 0); // splitting pieces are not linted
    cgs_graph_free(g);
}

/*
 * Symbols used only through shapes: the SymInt placeholders are used by no
 * node, yet every piece that receives a symbolic tensor gets them as
 * parameters right after it, sorted by name as strings (s10 before s9).
 */
static void test_symbols_through_shapes(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;

    (void)state;
    tg_begin(&b, "dynamo", NULL, "\"s9\": {\"hint\": 4}, \"s10\": {\"hint\": 4}");
    tg_ph(&b, "s9", TG_SYMINT("s9"));
    tg_ph(&b, "s10", TG_SYMINT("s10"));
    tg_ph(&b, "w", TG_F32("4"));
    tg_ph(&b, "x", TG_F32("\"s9\", \"2*s10\""));
    tg_call(&b, "a", RELU, "[{\"node\": \"w\"}]", TG_F32("4"));
    tg_call(&b, "m", "torch.mul", "[{\"node\": \"x\"}, {\"node\": \"a\"}]", TG_F32("\"s9\", \"2*s10\""));
    tg_call(&b, "t", ATT, "[{\"node\": \"m\"}]", TG_F32("\"s9\", \"2*s10\""));
    tg_call(&b, "u", RELU, "[{\"node\": \"t\"}]", TG_F32("\"s9\", \"2*s10\""));
    g = tg_end(&b, "{\"node\": \"u\"}", NULL);
    s = split_ops(g, CGS_SPLIT_MAGI, ATT, NULL);
    assert_int_equal(s->n_pieces, 3);
    check_piece(s, 0, "submod_0", false, "a,m", "w,x,s10,s9", "m");
    check_piece(s, 1, "submod_1", true, "t", "m,s10,s9", "t");
    check_piece(s, 2, "submod_2", false, "u", "t,s10,s9", "u");
    assert_int_equal(s->pieces[0].n_sym_shape_indices, 2);
    assert_int_equal(s->pieces[0].sym_shape_indices[0], 2);
    assert_int_equal(s->pieces[0].sym_shape_indices[1], 3);
    assert_int_equal(s->pieces[1].sym_shape_indices[0], 1);
    // the lint says the compiled pieces are symbolic
    assert_true(s->n_findings >= 1);
    assert_int_equal(s->findings[0].kind, CGS_LINT_SYMBOLIC_SHAPE);
    cgs_graph_free(g);
}

/*
 * A symbol bound by a node (an unbacked u0 from .item()): it becomes an
 * output of its own piece, after the tensor that needed it.
 */
static void test_symbol_defined_by_node(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;

    (void)state;
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4"));
    tg_node(&b, "n", "call_method", "item", "[{\"node\": \"x\"}]", NULL,
            "{\"symint\": \"u0\", \"hint\": null}");
    tg_call(&b, "z", "torch.zeros", "[{\"node\": \"n\"}]", TG_F32("\"u0\""));
    tg_call(&b, "t", ATT, "[{\"node\": \"z\"}]", TG_F32("\"u0\""));
    g = tg_end(&b, "{\"node\": \"t\"}", NULL);
    s = split_ops(g, CGS_SPLIT_MAGI, ATT, NULL);
    assert_int_equal(s->n_pieces, 2);
    check_piece(s, 0, "submod_0", false, "n,z", "x", "z,n");
    check_piece(s, 1, "submod_1", true, "t", "z,n", "t");
    assert_int_equal(s->pieces[1].n_sym_shape_indices, 1);
    // the lint finds the data-dependent item()
    {
        bool found = false;
        for (uint32_t i = 0; i < s->n_findings; i++)
            if (s->findings[i].kind == CGS_LINT_DATA_DEPENDENT &&
                !strcmp(s->findings[i].node->name, "n"))
                found = true;
        assert_true(found);
    }
    cgs_graph_free(g);
}

/* An output that is a placeholder is nobody's output; a value both used later and returned. */
static void test_output_placeholder(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;

    (void)state;
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4"));
    tg_ph(&b, "y", TG_F32("4"));
    tg_call(&b, "a", RELU, "[{\"node\": \"x\"}]", TG_F32("4"));
    tg_call(&b, "b", RELU, "[{\"node\": \"y\"}]", TG_F32("4"));
    tg_call(&b, "t", ATT, "[{\"node\": \"b\"}]", TG_F32("4"));
    // kwargs come after args in use order
    tg_node(&b, "c", "call_function", "torch.add", "[{\"node\": \"t\"}]",
            "{\"other\": {\"node\": \"a\"}}", TG_F32("4"));
    g = tg_end(&b, "[{\"node\": \"x\"}, {\"node\": \"c\"}, {\"node\": \"a\"}]", NULL);
    s = split_ops(g, CGS_SPLIT_MAGI, ATT, NULL);
    assert_int_equal(s->n_pieces, 3);
    check_piece(s, 0, "submod_0", false, "a,b", "x,y", "b,a");
    check_piece(s, 1, "submod_1", true, "t", "b", "t");
    check_piece(s, 2, "submod_2", false, "c", "t,a", "c");
    assert_null(cgs_split_piece_of(s, cgs_graph_find(g, "x")));
    assert_ptr_equal(cgs_split_piece_of(s, cgs_graph_find(g, "c")), &s->pieces[2]);
    cgs_graph_free(g);
}

/* A name that matches nothing is reported with near misses; the graph stays whole. */
static void test_unknown_op_names(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;

    (void)state;
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4"));
    tg_call(&b, "a", RELU, "[{\"node\": \"x\"}]", TG_F32("4"));
    tg_call(&b, "t", ATT, "[{\"node\": \"a\"}]", TG_F32("4"));
    tg_call(&b, "m", "aten.mm.default", "[{\"node\": \"t\"}, {\"node\": \"t\"}]", TG_F32("4"));
    g = tg_end(&b, "{\"node\": \"m\"}", NULL);
    s = split_ops(g, CGS_SPLIT_MAGI, "cgs.atention", "vllm.unified_attention");
    assert_int_equal(s->n_pieces, 1);
    check_piece(s, 0, "submod_0", false, "a,t,m", "x", "m");
    assert_int_equal(s->ops[0].n_matched, 0);
    assert_true(s->ops[0].n_suggestions >= 1);
    assert_string_equal(s->ops[0].suggestions[0], ATT);
    assert_int_equal(s->ops[1].n_matched, 0);
    assert_true(s->ops[1].n_suggestions >= 1);
    assert_string_equal(s->ops[1].suggestions[0], ATT); // shares "attention"
    // a packet name matches the overload in the graph
    s = split_ops(g, CGS_SPLIT_MAGI, "aten.mm", NULL);
    assert_int_equal(s->ops[0].n_matched, 1);
    assert_int_equal(s->n_pieces, 2);
    check_piece(s, 1, "submod_1", true, "m", "t", "m");
    cgs_graph_free(g);
}

static void test_op_matching(void **state)
{
    (void)state;
    assert_true(cgs_split_op_matches("aten.mm", "aten.mm.default"));
    assert_true(cgs_split_op_matches("aten.mm.default", "aten.mm.default"));
    assert_true(cgs_split_op_matches("cgs.attention.default", "cgs.attention"));
    assert_true(cgs_split_op_matches("torch._C._nn.linear", "torch._C._nn.linear"));
    assert_false(cgs_split_op_matches("aten.mm", "aten.mmx.default"));
    assert_false(cgs_split_op_matches("aten.mm.out", "aten.mm.default"));
    assert_false(cgs_split_op_matches("cgs.attention.out", "cgs.attention"));
    assert_false(cgs_split_op_matches("torch.nn", "torch.nn.functional"));
    assert_false(cgs_split_op_matches("linear", "torch._C._nn.linear"));
    assert_int_equal(cgs_edit_distance("kitten", "sitting", 10), 3);
    assert_int_equal(cgs_edit_distance("abc", "abc", 0), 0);
    assert_int_equal(cgs_edit_distance("abcdef", "x", 2), 3);
    {
        /* the one "did you mean": nearest within the limit, none past it */
        struct cgs_nearest nr;
        cgs_nearest_init(&nr, "splt", 2);
        cgs_nearest_offer(&nr, "shapes");
        cgs_nearest_offer(&nr, "split");
        cgs_nearest_offer(&nr, "spit");
        assert_string_equal(nr.best, "split");
        assert_int_equal(nr.best_d, 1);
        cgs_nearest_init(&nr, "zzzzzz", 2);
        cgs_nearest_offer(&nr, "split");
        assert_null(nr.best);
    }
    assert_int_equal(cgs_split_policy_from_name("fusion"), CGS_SPLIT_FUSION);
    assert_int_equal(cgs_split_policy_from_name("nope"), -1);
}

/* get_attr: a tensor attribute is a parameter, a module (a subgraph) is not. */
static void test_get_attr(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;

    (void)state;
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4"));
    tg_node(&b, "w", "get_attr", "w", NULL, NULL, TG_F32("4"));
    tg_node(&b, "body", "get_attr", "body", NULL, NULL, NULL);
    tg_call(&b, "t", ATT, "[{\"node\": \"x\"}]", TG_F32("4"));
    tg_call(&b, "h", "torch.ops.higher_order.invoke_subgraph",
            "[{\"node\": \"body\"}, \"body\", {\"node\": \"t\"}, {\"node\": \"w\"}]", TG_F32("4"));
    g = tg_end(&b, "{\"node\": \"h\"}",
               ", \"subgraphs\": {\"body\": {\"nodes\": ["
               "{\"name\": \"p\", \"op\": \"placeholder\", \"target\": \"p\", \"args\": [], "
               "\"kwargs\": {}, \"val\": null}, {\"name\": \"q\", \"op\": \"placeholder\", "
               "\"target\": \"q\", \"args\": [], \"kwargs\": {}, \"val\": null}, {\"name\": "
               "\"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [[{\"node\": "
               "\"p\"}]], \"kwargs\": {}, \"val\": null}]}}");
    s = split_ops(g, CGS_SPLIT_MAGI, ATT, NULL);
    assert_int_equal(s->n_pieces, 2);
    check_piece(s, 0, "submod_1", true, "t", "x", "t");
    check_piece(s, 1, "submod_2", false, "h", "t,w", "h");
    cgs_graph_free(g);
}

/* fusion: elementwise runs with one shape/dtype/device; each cut says why. */
static void test_policy_fusion(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;

    (void)state;
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4, 4"));
    tg_ph(&b, "y", TG_F32("4"));
    tg_call(&b, "a", RELU, "[{\"node\": \"x\"}]", TG_F32("4, 4"));
    tg_call(&b, "b", "aten.add.Tensor", "[{\"node\": \"a\"}, {\"node\": \"a\"}]", TG_F32("4, 4"));
    tg_call(&b, "c", "aten.mm.default", "[{\"node\": \"b\"}, {\"node\": \"b\"}]", TG_F32("4, 4"));
    tg_call(&b, "d", "aten.sigmoid.default", "[{\"node\": \"c\"}]", TG_F32("4, 4"));
    tg_call(&b, "e", "aten.add.Tensor", "[{\"node\": \"d\"}, {\"node\": \"y\"}]", TG_F32("4, 4"));
    tg_call(&b, "f", "aten.sum.default", "[{\"node\": \"e\"}]", TG_F32("4"));
    tg_call(&b, "h", "aten.relu.default", "[{\"node\": \"f\"}]", TG_F32("4"));
    g = tg_end(&b, "{\"node\": \"h\"}", NULL);
    s = split_ops(g, CGS_SPLIT_FUSION, NULL, NULL);
    assert_int_equal(s->n_pieces, 5);
    check_piece(s, 0, "submod_0", false, "a,b", "x", "b");
    check_piece(s, 1, "submod_1", true, "c", "b", "c");
    check_piece(s, 2, "submod_2", false, "d", "c", "d");
    check_piece(s, 3, "submod_3", true, "e,f", "d,y", "f");
    check_piece(s, 4, "submod_4", false, "h", "f", "h");
    assert_int_equal(s->boundaries[0].rule, CGS_SPLIT_RULE_NOT_ELEMENTWISE);
    assert_int_equal(s->boundaries[1].rule, CGS_SPLIT_RULE_ELEMENTWISE);
    assert_int_equal(s->boundaries[2].rule, CGS_SPLIT_RULE_SHAPE); // e broadcasts y
    assert_non_null(strstr(s->boundaries[2].reason, "'y'"));
    cgs_graph_free(g);
}

/* device: a cut where values move to another device; the lint sees CPU work. */
static void test_policy_device_and_lint(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;
    bool mut = false, fac = false;

    (void)state;
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4"));
    tg_node(&b, "m", "call_method", "add_", "[{\"node\": \"x\"}, 1]", NULL, TG_F32("4"));
    tg_node(&b, "z", "call_function", "torch.zeros", "[4]", "{\"device\": {\"device\": \"cpu\"}}",
            TG_F32_CPU("4"));
    tg_node(&b, "c", "call_method", "cpu", "[{\"node\": \"m\"}]", NULL, TG_F32_CPU("4"));
    tg_call(&b, "d", "torch.add", "[{\"node\": \"c\"}, {\"node\": \"z\"}]", TG_F32_CPU("4"));
    g = tg_end(&b, "{\"node\": \"d\"}", NULL);
    s = split_ops(g, CGS_SPLIT_DEVICE, NULL, NULL);
    assert_int_equal(s->n_pieces, 2);
    check_piece(s, 0, "submod_0", false, "m", "x", "m");
    check_piece(s, 1, "submod_1", false, "z,c,d", "m", "d");
    assert_int_equal(s->boundaries[0].rule, CGS_SPLIT_RULE_DEVICE_CHANGE);
    assert_string_equal(s->boundaries[0].node->name, "z");
    (void)mut;
    cgs_graph_free(g);

    // the same graph under magi: one CUDA piece with CPU work in it
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4"));
    tg_node(&b, "m", "call_method", "add_", "[{\"node\": \"x\"}, 1]", NULL, TG_F32("4"));
    tg_node(&b, "z", "call_function", "torch.zeros", "[4]", "{\"device\": {\"device\": \"cpu\"}}",
            TG_F32_CPU("4"));
    g = tg_end(&b, "[{\"node\": \"m\"}, {\"node\": \"z\"}]", NULL);
    s = split_ops(g, CGS_SPLIT_MAGI, ATT, NULL);
    assert_int_equal(s->n_pieces, 1);
    for (uint32_t i = 0; i < s->n_findings; i++) {
        if (s->findings[i].kind == CGS_LINT_INPUT_MUTATION &&
            !strcmp(s->findings[i].node->name, "m"))
            mut = true;
        if (s->findings[i].kind == CGS_LINT_CPU_FACTORY && !strcmp(s->findings[i].node->name, "z"))
            fac = true;
    }
    assert_true(mut);
    assert_true(fac);
    cgs_graph_free(g);
}

/* A size symbol no node binds: torch would raise KeyError; we warn and leave it out. */
static void test_unbound_symbol(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;
    bool noted = false;

    (void)state;
    tg_begin(&b, "dynamo", NULL, "\"s5\": {\"hint\": 4}");
    tg_ph(&b, "x", TG_F32("\"s5\""));
    tg_call(&b, "t", ATT, "[{\"node\": \"x\"}]", TG_F32("\"s5\""));
    g = tg_end(&b, "{\"node\": \"t\"}", NULL);
    s = split_ops(g, CGS_SPLIT_MAGI, ATT, NULL);
    assert_int_equal(s->n_pieces, 1);
    check_piece(s, 0, "submod_1", true, "t", "x", "t");
    for (uint32_t i = 0; i < g->n_notes; i++)
        if (g->notes[i].level == CGS_NOTE_WARNING && strstr(g->notes[i].msg, "'s5'"))
            noted = true;
    assert_true(noted);
    cgs_graph_free(g);
}

/* fusion: a dtype change and a device change each end a region, with that rule. */
static void test_policy_fusion_dtype_device(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s;

    (void)state;
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4"));
    tg_call(&b, "a", "aten.relu.default", "[{\"node\": \"x\"}]", TG_F32("4"));
    tg_call(&b, "h", "aten.neg.default", "[{\"node\": \"x\"}]",
            "{\"dtype\": \"float16\", \"shape\": [4], \"device\": \"cuda:0\"}");
    tg_ph(&b, "y", "{\"dtype\": \"float16\", \"shape\": [4], \"device\": \"cuda:0\"}");
    tg_call(&b, "c", "aten.neg.default", "[{\"node\": \"y\"}]",
            "{\"dtype\": \"float16\", \"shape\": [4], \"device\": \"cuda:0\"}");
    tg_ph(&b, "z", "{\"dtype\": \"float16\", \"shape\": [4], \"device\": \"cpu\"}");
    tg_call(&b, "d", "aten.neg.default", "[{\"node\": \"z\"}]",
            "{\"dtype\": \"float16\", \"shape\": [4], \"device\": \"cpu\"}");
    g = tg_end(&b, "[{\"node\": \"a\"}, {\"node\": \"h\"}, {\"node\": \"c\"}, "
                   "{\"node\": \"d\"}]",
               NULL);
    s = split_ops(g, CGS_SPLIT_FUSION, NULL, NULL);
    // h reads float32 x but makes float16: its input's dtype differs, so it is not fusible
    assert_int_equal(s->n_pieces, 4);
    check_piece(s, 0, "submod_0", false, "a", "x", "a");
    check_piece(s, 1, "submod_1", true, "h", "x", "h");
    check_piece(s, 2, "submod_2", false, "c", "y", "c");
    check_piece(s, 3, "submod_3", false, "d", "z", "d");
    assert_int_equal(s->boundaries[0].rule, CGS_SPLIT_RULE_DTYPE);
    assert_int_equal(s->boundaries[1].rule, CGS_SPLIT_RULE_ELEMENTWISE);
    assert_int_equal(s->boundaries[2].rule, CGS_SPLIT_RULE_DEVICE);
    cgs_graph_free(g);
}

static void test_bad_options(void **state)
{
    struct tgraph b;
    struct cgs_graph *g;
    struct cgs_split *s = NULL;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_split_opts o = {CGS_SPLIT_MAGI, NULL, 1};
    const char *empty[1] = {""};

    (void)state;
    tg_begin(&b, "dynamo", NULL, NULL);
    tg_ph(&b, "x", TG_F32("4"));
    g = tg_end(&b, "{\"node\": \"x\"}", NULL);
    assert_int_equal(cgs_split_run(g, &o, &s, &d), -CGS_E_INVAL);
    assert_null(s);
    o.ops = empty;
    assert_int_equal(cgs_split_run(g, &o, &s, &d), -CGS_E_INVAL);
    o.n_ops = 0;
    o.policy = (enum cgs_split_policy)7;
    assert_int_equal(cgs_split_run(g, &o, &s, &d), -CGS_E_INVAL);
    // a graph with no nodes to partition has no pieces
    o.policy = CGS_SPLIT_MAGI;
    assert_int_equal(cgs_split_run(g, &o, &s, &d), 0);
    assert_int_equal(s->n_pieces, 0);
    cgs_graph_free(g);
}

/* ---- golden: every split sidecar in the fixtures ---------------------------------------- */

static const char *fixtures_dir(void)
{
    const char *e = getenv("FIXTURES");
    return e && *e ? e : FIXTURES_DIR;
}

static char *read_all(const char *path)
{
    char *buf = NULL;
    size_t len;
    struct cgs_diag d = CGS_DIAG_INIT;
    if (cgs_read_file(path, &buf, &len, (size_t)1 << 30, &d))
        return NULL;
    return buf;
}

static void check_array(const cJSON *want, struct cgs_node *const *nodes, uint32_t n,
                        const char *file, const char *piece, const char *key)
{
    uint32_t i = 0;
    const cJSON *x;

    if (!cJSON_IsArray(want))
        fail_msg("%s: %s has no %s array", file, piece, key);
    if ((uint32_t)cJSON_GetArraySize(want) != n)
        fail_msg("%s %s %s: %u names, torch %d", file, piece, key, n, cJSON_GetArraySize(want));
    cJSON_ArrayForEach(x, want) {
        if (!cJSON_IsString(x) || strcmp(x->valuestring, nodes[i]->name))
            fail_msg("%s %s %s[%u]: got '%s', torch '%s'", file, piece, key, i, nodes[i]->name,
                     cJSON_IsString(x) ? x->valuestring : "?");
        i++;
    }
}

static void golden_one(const char *dir, const char *name)
{
    struct cgs_buf path = CGS_BUF_INIT;
    char *text;
    cJSON *want, *ops, *pieces, *x;
    const char **opv = NULL;
    size_t n_ops = 0;
    struct cgs_graph *g;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_split *s = NULL;
    uint32_t i = 0;

    cgs_buf_addf(&path, "%s/%s", dir, name);
    text = read_all(path.buf);
    assert_non_null(text);
    want = cJSON_Parse(text);
    free(text);
    assert_non_null(want);
    ops = cJSON_GetObjectItemCaseSensitive(want, "splitting_ops");
    pieces = cJSON_GetObjectItemCaseSensitive(want, "pieces");
    cgs_buf_reset(&path);
    cgs_buf_addf(&path, "%s/%s", dir,
                 cJSON_GetObjectItemCaseSensitive(want, "graph")->valuestring);
    g = cgs_graph_load_json(path.buf, &d);
    if (!g)
        fail_msg("%s: %s", path.buf, d.msg);
    cgs_buf_release(&path);
    opv = calloc((size_t)cJSON_GetArraySize(ops) + 1, sizeof(*opv));
    cJSON_ArrayForEach(x, ops) opv[n_ops++] = x->valuestring;
    {
        struct cgs_split_opts o = {CGS_SPLIT_MAGI, opv, n_ops};
        assert_int_equal(cgs_split_run(g, &o, &s, &d), 0);
    }
    if ((uint32_t)cJSON_GetArraySize(pieces) != s->n_pieces)
        fail_msg("%s: %u pieces, torch %d", name, s->n_pieces, cJSON_GetArraySize(pieces));
    cJSON_ArrayForEach(x, pieces) {
        const struct cgs_split_piece *p = &s->pieces[i++];
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(x, "name");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(x, "graph_id");
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(x, "is_splitting_graph");
        if (!cJSON_IsString(nm) || strcmp(nm->valuestring, p->name))
            fail_msg("%s: piece %u is %s, torch %s", name, i - 1, p->name,
                     cJSON_IsString(nm) ? nm->valuestring : "?");
        assert_true(cJSON_IsNumber(id) && (int64_t)id->valuedouble == p->graph_id);
        assert_true(cJSON_IsBool(sp) && cJSON_IsTrue(sp) == p->is_splitting_graph);
        check_array(cJSON_GetObjectItemCaseSensitive(x, "nodes"), p->nodes, p->n_nodes, name,
                    p->name, "nodes");
        check_array(cJSON_GetObjectItemCaseSensitive(x, "inputs"), p->inputs, p->n_inputs, name,
                    p->name, "inputs");
        check_array(cJSON_GetObjectItemCaseSensitive(x, "outputs"), p->outputs, p->n_outputs,
                    name, p->name, "outputs");
    }
    free(opv);
    cJSON_Delete(want);
    cgs_graph_free(g);
}

static void test_golden_fixtures(void **state)
{
    struct cgs_buf dir = CGS_BUF_INIT;
    DIR *dp;
    struct dirent *e;
    unsigned n = 0;

    (void)state;
    cgs_buf_addf(&dir, "%s/dynamo", fixtures_dir());
    dp = opendir(dir.buf);
    if (!dp) {
        print_message("no fixtures at %s\n", dir.buf);
        cgs_buf_release(&dir);
        skip();
    }
    while ((e = readdir(dp))) {
        if (!strstr(e->d_name, ".split-") || !strstr(e->d_name, ".json"))
            continue;
        golden_one(dir.buf, e->d_name);
        n++;
    }
    closedir(dp);
    cgs_buf_release(&dir);
    assert_true(n >= 36); // the fixtures README lists 36 split oracles
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adjacent_splitting_ops),
        cmocka_unit_test(test_splitting_op_first_and_last),
        cmocka_unit_test(test_only_splitting_ops),
        cmocka_unit_test(test_symbols_through_shapes),
        cmocka_unit_test(test_symbol_defined_by_node),
        cmocka_unit_test(test_output_placeholder),
        cmocka_unit_test(test_unknown_op_names),
        cmocka_unit_test(test_op_matching),
        cmocka_unit_test(test_get_attr),
        cmocka_unit_test(test_policy_fusion),
        cmocka_unit_test(test_policy_device_and_lint),
        cmocka_unit_test(test_unbound_symbol),
        cmocka_unit_test(test_policy_fusion_dtype_device),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_golden_fixtures),
    };
    return cmocka_run_group_tests_name("split", tests, NULL, NULL);
}
