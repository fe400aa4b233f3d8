/*
 * The operator registry (lib/ops/ops.c, lib/ops/op-list.h): the table is complete
 * and sorted, lookups find exact targets and overload packets, schemas are
 * well formed, traits are where the split and fusion passes expect them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lib/ir/graph.h"
#include "lib/ops/ops.h"

static void test_table_complete_and_sorted(void **state)
{
    (void)state;
    assert_true(CGS_OP_COUNT > 300);
    assert_null(cgs_ops[CGS_OP_UNKNOWN].infer);
    for (int i = 1; i < CGS_OP_COUNT; i++) {
        const struct cgs_op_info *o = &cgs_ops[i];
        assert_non_null(o->name);
        assert_true(o->name[0] != 0);
        assert_non_null(o->infer);
        assert_non_null(o->schema);
        assert_non_null(o->rule_name);
        assert_true(o->rule_name[0] != 0);
        // strictly increasing: sorted and unique
        if (i > 1 && strcmp(cgs_ops[i - 1].name, o->name) >= 0)
            fail_msg("'%s' is not after '%s'", o->name, cgs_ops[i - 1].name);
    }
}

static void test_lookup_every_entry(void **state)
{
    (void)state;
    for (int i = 1; i < CGS_OP_COUNT; i++) {
        assert_int_equal(cgs_op_lookup_exact(cgs_ops[i].name), i);
        assert_int_equal(cgs_op_lookup(cgs_ops[i].name), i);
    }
    assert_int_equal(cgs_op_lookup("aten.no_such_op.default"), CGS_OP_UNKNOWN);
    assert_int_equal(cgs_op_lookup(""), CGS_OP_UNKNOWN);
    assert_int_equal(cgs_op_lookup(NULL), CGS_OP_UNKNOWN);
    assert_int_equal(cgs_op_lookup("aten.add.Tensor.extra"), CGS_OP_UNKNOWN);
}

static void test_packet_lookup(void **state)
{
    (void)state;
    // a packet finds one of its overloads (Dynamo writes custom ops without one)
    assert_int_equal(cgs_op_lookup("aten.mm"), CGS_OP_ATEN_MM_DEFAULT);
    assert_int_equal(cgs_op_lookup("aten.relu"), CGS_OP_ATEN_RELU_DEFAULT);
    assert_int_equal(cgs_op_lookup("prims.convert_element_type"),
                     CGS_OP_PRIMS_CONVERT_ELEMENT_TYPE_DEFAULT);
    assert_int_equal(cgs_op_lookup_exact("aten.mm"), CGS_OP_UNKNOWN);
    // "aten.add" has overloads Scalar and Tensor: the first in order
    assert_int_equal(cgs_op_lookup("aten.add"), CGS_OP_ATEN_ADD_SCALAR);
}

static void test_name_matches(void **state)
{
    (void)state;
    assert_true(cgs_op_name_matches("aten.mm", "aten.mm.default"));
    assert_true(cgs_op_name_matches("aten.mm.default", "aten.mm.default"));
    assert_true(cgs_op_name_matches("cgs.attention.default", "cgs.attention"));
    assert_true(cgs_op_name_matches("operator.getitem", "operator.getitem"));
    assert_false(cgs_op_name_matches("aten.mm", "aten.mmx.default"));
    assert_false(cgs_op_name_matches("aten.m", "aten.mm.default"));
    assert_false(cgs_op_name_matches("torch.nn.functional", "torch.nn.functional.relu"));
    assert_false(cgs_op_name_matches(NULL, "aten.mm.default"));
}

static void test_traits(void **state)
{
    (void)state;
    assert_true(cgs_op_target_has("aten.add.Tensor", CGS_OPF_ELEMENTWISE));
    assert_true(cgs_op_target_has("aten.relu.default", CGS_OPF_ELEMENTWISE));
    assert_true(cgs_op_target_has("operator.mul", CGS_OPF_ELEMENTWISE));
    assert_false(cgs_op_target_has("aten.mm.default", CGS_OPF_ELEMENTWISE));
    assert_true(cgs_op_target_has("aten.mm.default", CGS_OPF_MATMUL));
    assert_true(cgs_op_target_has("aten.view.default", CGS_OPF_VIEW));
    assert_true(cgs_op_target_has("operator.getitem", CGS_OPF_VIEW));
    assert_true(cgs_op_target_has("aten.add_.Tensor", CGS_OPF_INPLACE));
    assert_true(cgs_op_target_has("aten.copy_.default", CGS_OPF_INPLACE));
    assert_true(cgs_op_target_has("aten.sum.dim_IntList", CGS_OPF_REDUCTION));
    assert_true(cgs_op_target_has("aten.convolution.default", CGS_OPF_CONV));
    // a user's own op is no registry entry: it is declared (ops/samples.ops, lib/readers/opdecl.h)
    assert_false(cgs_op_target_has("cgs.attention_out", 0));
    assert_false(cgs_op_target_has("no.such.op", 0));
    assert_ptr_equal(cgs_op_info((enum cgs_op) - 1), &cgs_ops[CGS_OP_UNKNOWN]);
    assert_ptr_equal(cgs_op_info(CGS_OP_COUNT), &cgs_ops[CGS_OP_UNKNOWN]);
    assert_string_equal(cgs_op_info(CGS_OP_ATEN_MM_DEFAULT)->name, "aten.mm.default");
}

/*
 * Every schema: comma-separated identifiers, optional =default, '*' at most once; a name may
 * carry the markers '*' (variadic), '%' (type promotion) and '!' (out= tensor), in that order.
 */
static void test_schemas_well_formed(void **state)
{
    (void)state;
    for (int i = 1; i < CGS_OP_COUNT; i++) {
        const char *s = cgs_ops[i].schema;
        char names[64][64];
        int n = 0, stars = 0, depth = 0;
        while (*s) {
            size_t k = 0;
            if (*s == '*' && (s[1] == ',' || !s[1])) {
                stars++;
                s++;
            } else {
                if (*s == '*')
                    s++;
                if (*s == '%')
                    s++;
                if (*s == '!')
                    s++;
                if (!isalpha((unsigned char)*s) && *s != '_')
                    fail_msg("%s: bad schema '%s'", cgs_ops[i].name, cgs_ops[i].schema);
                while (isalnum((unsigned char)*s) || *s == '_')
                    names[n][k++] = *s++;
                names[n][k] = 0;
                for (int j = 0; j < n; j++)
                    if (!strcmp(names[j], names[n]))
                        fail_msg("%s: parameter '%s' twice", cgs_ops[i].name, names[n]);
                n++;
                assert_true(n < 64);
                if (*s == '=') {
                    for (s++; *s && (depth || *s != ','); s++)
                        depth += (*s == '[') - (*s == ']');
                }
            }
            if (*s == ',')
                s++;
            while (*s == ' ')
                s++;
        }
        assert_true(stars <= 1);
        // only operators without a rule may take no argument at all (aten._cudnn_init_...)
        assert_true(n >= 1 || cgs_ops[i].infer == cgs_shape_rule_none ||
                    cgs_ops[i].flags & CGS_OPF_FACTORY);
    }
}

/* Every operator torch 2.11 tags `core` (the Core ATen opset) has a shape rule. */
static void test_core_ops_have_rules(void **state)
{
    unsigned core = 0, missing = 0;

    (void)state;
    for (int i = 1; i < CGS_OP_COUNT; i++) {
        if (!(cgs_ops[i].flags & CGS_OPF_CORE))
            continue;
        core++;
        if (cgs_ops[i].infer == cgs_shape_rule_none) {
            fprintf(stderr, "core op without a rule: %s\n", cgs_ops[i].name);
            missing++;
        }
    }
    assert_true(core >= 190); // torch 2.11 tags 193 overloads core
    assert_int_equal(missing, 0);
}

/* Every dtype's short name is torch.fx.graph.dtype_abbrs' (recorded on the GPU machine). */
static void test_dtype_abbr_is_torchs(void **state)
{
    FILE *f = fopen("tests/data/gpu-logs/bridge_options.log", "r");
    char line[4096], *p;
    unsigned checked = 0;
    (void)state;
    assert_non_null(f);
    while (fgets(line, sizeof(line), f) && strncmp(line, "DTYPE_ABBRS ", 12))
        ;
    fclose(f);
    assert_int_equal(strncmp(line, "DTYPE_ABBRS ", 12), 0);
    for (p = line; (p = strchr(p, '\'')) != NULL;) {
        char name[64], abbr[64];
        if (sscanf(p, "'%63[^']': '%63[^']'", name, abbr) != 2)
            break;
        enum cgs_dtype dt = cgs_dtype_from_name(name);
        if (dt != CGS_DTYPE_UNKNOWN) {
            assert_string_equal(cgs_dtype_abbr(dt), abbr);
            checked++;
        }
        p = strchr(p + strlen(name) + strlen(abbr) + 6, ',');
        if (!p)
            break;
    }
    assert_true(checked >= 20); /* every dtype cgscope knows */
}

static void test_preset_and_torch_spelling(void **state)
{
    const struct cgs_op_preset *v = cgs_op_preset_find("@vllm");
    (void)state;
    assert_non_null(v);
    assert_ptr_equal(cgs_op_preset_find("vllm"), v);
    assert_null(cgs_op_preset_find("@nope"));
    assert_true(cgs_op_name_matches("vllm::unified_attention", "vllm.unified_attention.default"));
    assert_true(cgs_op_name_matches("vllm::unified_attention", "vllm.unified_attention"));
    assert_false(cgs_op_name_matches("vllm::unified", "vllm.unified_attention"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_complete_and_sorted),
        cmocka_unit_test(test_lookup_every_entry),
        cmocka_unit_test(test_packet_lookup),
        cmocka_unit_test(test_name_matches),
        cmocka_unit_test(test_traits),
        cmocka_unit_test(test_schemas_well_formed),
        cmocka_unit_test(test_core_ops_have_rules),
        cmocka_unit_test(test_dtype_abbr_is_torchs),
        cmocka_unit_test(test_preset_and_torch_spelling),
    };

    return cmocka_run_group_tests_name("ops", tests, NULL, NULL);
}
