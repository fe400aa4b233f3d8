/*
 * The .pt2 reader: every torch.export archive in ../shared/fixtures/export
 * against its JSON twin (ep.graph_module as PyTorch dumped it) and its
 * signature file; hostile archives written here; a small hand-made model that
 * exercises what the fixtures do not (nested graphs, unused outputs, symbolic
 * sizes, unknown argument kinds, several models).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "lib/readers/load.h"

static const char *fixtures(void)
{
    return getenv("FIXTURES") ? getenv("FIXTURES") : FIXTURES_DIR;
}

static char tmpdir[256];
static void model_init(void);
static void model_free(void);

static int group_setup(void **state)
{
    (void)state;
    model_init();
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/cgs-test-pt2-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
    DIR *dir = opendir(tmpdir);
    struct dirent *e;
    char p[600];
    (void)state;
    model_free();
    while (dir && (e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
        unlink(p);
    }
    if (dir)
        closedir(dir);
    rmdir(tmpdir);
    return 0;
}

static char *tmp_path(const char *name)
{
    static char p[600];
    snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
    return p;
}

/* ---- comparing a .pt2 with its twin ----------------------------------------------------- */

static void assert_same_sym(const struct cgs_sym *a, const struct cgs_sym *b, const char *what,
                            const char *node)
{
    if (!a || !b) {
        if (a != b)
            fail_msg("node '%s': %s known on one side only", node, what);
        return;
    }
    char *sa = cgs_sym_to_string(a), *sb = cgs_sym_to_string(b);
    bool same = !strcmp(sa, sb) || cgs_sym_equal_semantic(a, b);
    if (!same)
        fail_msg("node '%s': %s is %s in the .pt2, %s in the twin", node, what, sa, sb);
    free(sa);
    free(sb);
}

static void assert_same_val(const struct cgs_val *a, const struct cgs_val *b, const char *node)
{
    assert_int_equal(a->kind, b->kind);
    switch (a->kind) {
    case CGS_VAL_TENSOR: {
        const struct cgs_tensor *x = &a->u.t, *y = &b->u.t;
        if (x->dtype != y->dtype)
            fail_msg("node '%s': dtype %s vs %s", node, cgs_dtypes[x->dtype].name,
                     cgs_dtypes[y->dtype].name);
        assert_int_equal(x->ndim, y->ndim);
        for (uint32_t i = 0; i < x->ndim; i++) {
            assert_same_sym(x->shape[i], y->shape[i], "a size", node);
            assert_non_null(x->stride);
            assert_same_sym(x->stride[i], y->stride[i], "a stride", node);
        }
        assert_same_sym(x->storage_offset, y->storage_offset, "the storage offset", node);
        assert_non_null(x->device);
        assert_string_equal(x->device, y->device);
        assert_int_equal(x->requires_grad, y->requires_grad);
        break;
    }
    case CGS_VAL_SYMINT:
        assert_same_sym(a->u.s.sym, b->u.s.sym, "the symint", node);
        assert_int_equal(a->has_hint, b->has_hint);
        if (a->has_hint)
            assert_int_equal(a->u.s.hint, b->u.s.hint);
        break;
    case CGS_VAL_INT:
        assert_int_equal(a->u.i, b->u.i);
        break;
    case CGS_VAL_BOOL:
        assert_int_equal(a->u.b, b->u.b);
        break;
    case CGS_VAL_LIST:
        assert_int_equal(a->n, b->n);
        for (uint32_t i = 0; i < a->n; i++)
            assert_same_val(&a->u.items[i], &b->u.items[i], node);
        break;
    default:
        break;
    }
}

static void assert_same_arg(const struct cgs_arg *a, const struct cgs_arg *b, const char *node)
{
    if (a->kind != b->kind)
        fail_msg("node '%s': argument kind %d in the .pt2, %d in the twin", node, a->kind,
                 b->kind);
    switch (a->kind) {
    case CGS_ARG_BOOL:
        assert_int_equal(a->u.b, b->u.b);
        break;
    case CGS_ARG_INT:
        assert_int_equal(a->u.i, b->u.i);
        break;
    case CGS_ARG_FLOAT:
        if (!(a->u.f == b->u.f || (isnan(a->u.f) && isnan(b->u.f))))
            fail_msg("node '%s': float argument %.17g vs %.17g", node, a->u.f, b->u.f);
        break;
    case CGS_ARG_STR:
    case CGS_ARG_DEVICE:
    case CGS_ARG_MEMFMT:
    case CGS_ARG_LAYOUT:
    case CGS_ARG_REPR:
        assert_string_equal(a->u.s, b->u.s);
        break;
    case CGS_ARG_DTYPE:
        assert_int_equal(a->u.dtype, b->u.dtype);
        break;
    case CGS_ARG_NODE:
        assert_string_equal(a->u.node->name, b->u.node->name);
        break;
    case CGS_ARG_LIST:
    case CGS_ARG_SLICE:
        assert_int_equal(a->n, b->n);
        for (uint32_t i = 0; i < a->n; i++)
            assert_same_arg(&a->u.items[i], &b->u.items[i], node);
        break;
    default:
        break;
    }
}

static enum cgs_pt2_kind kind_from_twin(const char *s)
{
    static const struct {
        const char *name;
        enum cgs_pt2_kind kind;
    } map[] = {
        {"USER_INPUT", CGS_PT2_USER_INPUT},
        {"PARAMETER", CGS_PT2_PARAMETER},
        {"BUFFER", CGS_PT2_BUFFER},
        {"CONSTANT_TENSOR", CGS_PT2_TENSOR_CONSTANT},
        {"CUSTOM_OBJ", CGS_PT2_CUSTOM_OBJ},
        {"TOKEN", CGS_PT2_TOKEN},
        {"USER_OUTPUT", CGS_PT2_USER_OUTPUT},
        {"LOSS_OUTPUT", CGS_PT2_LOSS_OUTPUT},
        {"BUFFER_MUTATION", CGS_PT2_BUFFER_MUTATION},
        {"PARAMETER_MUTATION", CGS_PT2_PARAMETER_MUTATION},
        {"GRADIENT_TO_PARAMETER", CGS_PT2_GRADIENT_TO_PARAMETER},
        {"GRADIENT_TO_USER_INPUT", CGS_PT2_GRADIENT_TO_USER_INPUT},
        {"USER_INPUT_MUTATION", CGS_PT2_USER_INPUT_MUTATION},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcmp(map[i].name, s))
            return map[i].kind;
    fail_msg("unknown kind '%s' in a signature file", s);
    return CGS_PT2_UNKNOWN;
}

static void check_specs(const struct cgs_sig_spec *sp, uint32_t n, const cJSON *want)
{
    const cJSON *w;
    uint32_t i = 0;
    assert_int_equal(n, cJSON_GetArraySize(want));
    cJSON_ArrayForEach(w, want) {
        const cJSON *arg = cJSON_GetObjectItem(w, "arg"), *target = cJSON_GetObjectItem(w, "target");
        const cJSON *pers = cJSON_GetObjectItem(w, "persistent");
        assert_int_equal(sp[i].kind, kind_from_twin(cJSON_GetObjectItem(w, "kind")->valuestring));
        assert_non_null(sp[i].arg);
        assert_string_equal(sp[i].arg, arg->valuestring);
        assert_non_null(sp[i].node);
        assert_string_equal(sp[i].node->name, arg->valuestring);
        if (cJSON_IsString(target)) {
            assert_non_null(sp[i].target);
            assert_string_equal(sp[i].target, target->valuestring);
        } else {
            assert_null(sp[i].target);
        }
        if (cJSON_IsBool(pers))
            assert_int_equal(sp[i].persistent, cJSON_IsTrue(pers));
        else
            assert_int_equal(sp[i].persistent, -1);
        if (sp[i].node->op == CGS_NODE_PLACEHOLDER)
            assert_int_equal(sp[i].node->pt2_kind, sp[i].kind);
        i++;
    }
}

static cJSON *read_json(const char *path)
{
    char *buf;
    size_t len;
    struct cgs_diag d = CGS_DIAG_INIT;
    if (cgs_read_file(path, &buf, &len, (size_t)1 << 30, &d))
        fail_msg("cannot read %s: %s", path, d.msg);
    cJSON *x = cJSON_ParseWithLength(buf, len);
    free(buf);
    assert_non_null(x);
    return x;
}

static unsigned n_fixtures;

static void compare_with_twin(const char *pt2)
{
    char twin[600], sigf[600];
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *a, *b;
    unsigned vals = 0, args = 0;

    snprintf(twin, sizeof(twin), "%.*s.json", (int)strlen(pt2) - 4, pt2);
    snprintf(sigf, sizeof(sigf), "%.*s.signature.json", (int)strlen(pt2) - 4, pt2);
    a = cgs_graph_load(pt2, NULL, &d); /* the generic entry point picks the .pt2 reader */
    if (!a) {
        char msg[1024];
        cgs_diag_format(&d, msg, sizeof(msg));
        fail_msg("%s", msg);
    }
    b = cgs_graph_load_json(twin, &d);
    assert_non_null(b);
    assert_int_equal(a->producer.stage, CGS_STAGE_EXPORT);
    assert_string_equal(a->producer.tool, "torch");
    assert_string_equal(a->producer.version, b->producer.version);
    assert_int_equal(a->n_nodes, b->n_nodes);
    for (uint32_t i = 0; i < a->n_nodes; i++) {
        const struct cgs_node *x = a->nodes[i], *y = b->nodes[i];
        if (strcmp(x->name, y->name))
            fail_msg("%s: node %u is '%s', the twin has '%s'", pt2, i, x->name, y->name);
        assert_int_equal(x->op, y->op);
        if (strcmp(x->target, y->target))
            fail_msg("%s: node '%s' target '%s', the twin has '%s'", pt2, x->name, x->target,
                     y->target);
        if (x->val && y->val) {
            assert_same_val(x->val, y->val, x->name);
            vals++;
        } else if (y->val) {
            fail_msg("%s: node '%s' has no value, the twin has one", pt2, x->name);
        }
        assert_int_equal(x->n_args, y->n_args);
        for (uint32_t k = 0; k < x->n_args; k++, args++)
            assert_same_arg(&x->args[k], &y->args[k], x->name);
        assert_int_equal(x->n_kwargs, y->n_kwargs);
        for (uint32_t k = 0; k < x->n_kwargs; k++, args++) {
            assert_string_equal(x->kwargs[k].key, y->kwargs[k].key);
            assert_same_arg(&x->kwargs[k].val, &y->kwargs[k].val, x->name);
        }
        if (y->stack_trace) {
            assert_non_null(x->stack_trace);
            assert_string_equal(x->stack_trace, y->stack_trace);
        }
        if (y->module_path) {
            assert_non_null(x->module_path);
            assert_string_equal(x->module_path, y->module_path);
            assert_string_equal(x->module_type, y->module_type);
        }
        assert_int_equal(x->n_users, y->n_users);
    }
    assert_true(vals > a->n_nodes / 2);
    assert_true(args > 0);
    /* symbols: names, hints and ranges */
    assert_int_equal(a->n_symbols, b->n_symbols);
    for (uint32_t i = 0; i < b->n_symbols; i++) {
        const struct cgs_symbol *y = &b->symbols[i], *x = cgs_graph_symbol(a, y->name);
        assert_non_null(x);
        assert_int_equal(x->has_hint, y->has_hint);
        assert_int_equal(x->hint, y->hint);
        assert_int_equal(x->has_min, y->has_min);
        assert_int_equal(x->min, y->min);
        assert_int_equal(x->has_max, y->has_max);
        assert_int_equal(x->max, y->max);
    }
    assert_int_equal(a->n_subgraphs, b->n_subgraphs);
    /* the signature, against X.signature.json */
    cJSON *sig = read_json(sigf);
    check_specs(a->sig_inputs, a->n_sig_inputs, cJSON_GetObjectItem(sig, "input_specs"));
    check_specs(a->sig_outputs, a->n_sig_outputs, cJSON_GetObjectItem(sig, "output_specs"));
    const cJSON *rc = cJSON_GetObjectItem(sig, "range_constraints"), *r;
    cJSON_ArrayForEach(r, rc) {
        const struct cgs_symbol *s = cgs_graph_symbol(a, r->string);
        assert_non_null(s);
        assert_int_equal(s->min, cJSON_GetArrayItem(r, 0)->valueint);
        assert_int_equal(s->max, cJSON_GetArrayItem(r, 1)->valueint);
    }
    cJSON_Delete(sig);
    for (uint32_t i = 0; i < a->n_notes; i++)
        if (a->notes[i].level != CGS_NOTE_INFO)
            fail_msg("%s: unexpected note: %s", pt2, a->notes[i].msg);
    cgs_graph_free(a);
    cgs_graph_free(b);
    n_fixtures++;
}

static void test_fixtures(void **state)
{
    char dir[512], p[1024];
    DIR *dh;
    struct dirent *e;
    (void)state;
    snprintf(dir, sizeof(dir), "%s/export", fixtures());
    dh = opendir(dir);
    if (!dh)
        skip();
    while ((e = readdir(dh))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".pt2"))
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        compare_with_twin(p);
    }
    closedir(dh);
    assert_true(n_fixtures >= 5);
}

/* The dynamic fixture's sizes come from srepr text: check one against PyTorch's numbers. */
static void test_dynamic_sizes(void **state)
{
    char p[600];
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g;
    (void)state;
    snprintf(p, sizeof(p), "%s/export/cgs_transformer_dyn.pt2", fixtures());
    if (access(p, R_OK))
        skip();
    g = cgs_graph_load_pt2(p, NULL, &d);
    assert_non_null(g);
    /* view: shape [s23, s27, 3, 4, 32], stride [384*s27, 384, 128, 32, 1] (the twin) */
    const struct cgs_node *n = cgs_graph_find(g, "view");
    assert_non_null(n);
    const struct cgs_tensor *t = cgs_node_tensor(n);
    assert_non_null(t);
    assert_int_equal(t->ndim, 5);
    char *s0 = cgs_sym_to_string(t->shape[0]), *st = cgs_sym_to_string(t->stride[0]);
    assert_string_equal(s0, "s23");
    assert_string_equal(st, "384*s27");
    free(s0);
    free(st);
    /* sym_size_int_3 is a SymInt s27 with hint 16 */
    n = cgs_graph_find(g, "sym_size_int_3");
    assert_non_null(n);
    assert_int_equal(n->val->kind, CGS_VAL_SYMINT);
    assert_string_equal(n->val->u.s.sym->name, "s27");
    assert_int_equal(n->val->u.s.hint, 16);
    /* view's size list mixes node uses and ints */
    n = cgs_graph_find(g, "view");
    assert_int_equal(n->args[1].kind, CGS_ARG_LIST);
    assert_int_equal(n->args[1].u.items[0].kind, CGS_ARG_NODE);
    assert_string_equal(n->args[1].u.items[0].u.node->name, "sym_size_int_2");
    assert_int_equal(n->args[1].u.items[2].kind, CGS_ARG_INT);
    assert_int_equal(n->args[1].u.items[2].u.i, 3);
    cgs_graph_free(g);
}

/* ---- archives written here ------------------------------------------------------------------ */

struct rec {
    const char *name;
    const char *data;
    size_t len; /* 0: strlen(data) */
};

static const char *write_zip(const char *file, const struct rec *recs, size_t n)
{
    int err = 0;
    const char *path = tmp_path(file);
    unlink(path);
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    assert_non_null(z);
    for (size_t i = 0; i < n; i++) {
        size_t len = recs[i].len ? recs[i].len : strlen(recs[i].data);
        zip_source_t *s = zip_source_buffer(z, recs[i].data, len, 0);
        assert_non_null(s);
        zip_int64_t idx = zip_file_add(z, recs[i].name, s, ZIP_FL_ENC_UTF_8);
        assert_true(idx >= 0);
        /* stored, as torch writes them */
        assert_int_equal(zip_set_file_compression(z, (zip_uint64_t)idx, ZIP_CM_STORE, 0), 0);
    }
    assert_int_equal(zip_close(z), 0);
    return path;
}

static const char *write_file(const char *file, const void *data, size_t len)
{
    const char *path = tmp_path(file);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return path;
}

/* Load must fail with exit-status-2 material: a message holding want, no graph. */
/* Through the generic entry point, as every command loads. */
static void expect_error(const char *path, const char *model, const char *want)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_load_opts o = {model};
    char msg[1024];
    struct cgs_graph *g = cgs_graph_load(path, &o, &d);
    if (g) {
        cgs_graph_free(g);
        fail_msg("%s loaded, expected an error with '%s'", path, want);
    }
    assert_true(d.code > 0);
    cgs_diag_format(&d, msg, sizeof(msg));
    if (!strstr(msg, want))
        fail_msg("message '%s' lacks '%s'", msg, want);
    /* the file is named first, as "file: error: ..." */
    if (strncmp(msg, path, strlen(path)))
        fail_msg("message '%s' does not start with the file name", msg);
}


/*
 * A small model, hand-written after torch's schema: a parameter, a buffer
 * and a dynamic user input; a split with an unused third output; a
 * higher-order op with a nested graph; a SymInt from sym_size; an op with
 * keyword arguments; a buffer mutation output.
 */
static const char *const small_model_lines[] = {
    "{\"graph_module\": {\"graph\": {",
    " \"inputs\": [{\"as_tensor\": {\"name\": \"p_w\"}}, {\"as_tensor\": {\"name\": \"b_buf\"}},",
    "              {\"as_tensor\": {\"name\": \"x\"}}, {\"as_int\": 3}],",
    " \"outputs\": [{\"as_tensor\": {\"name\": \"add_\"}}, {\"as_tensor\": {\"name\": \"getitem_1\"}},",
    "               {\"as_tensor\": {\"name\": \"getitem_3\"}}],",
    " \"nodes\": [",
    "  {\"target\": \"torch.ops.aten.sym_size.int\", \"inputs\": [{\"name\": \"self\", \"arg\": ",
    "    {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, {\"name\": \"dim\", \"arg\": {\"as_int\": 0},",
    "    \"kind\": 1}], \"outputs\": [{\"as_sym_int\": {\"as_name\": \"sym_size_int\"}}],",
    "    \"metadata\": {}, \"name\": \"sym_size_int\"},",
    "  {\"target\": \"torch.ops.aten.split.Tensor\", \"inputs\": [{\"name\": \"self\", \"arg\": ",
    "    {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, {\"name\": \"split_size\", \"arg\": ",
    "    {\"as_int\": 2}, \"kind\": 1}], \"outputs\": [{\"as_tensors\": [{\"name\": \"getitem\"},",
    "    {\"name\": \"getitem_1\"}, {\"name\": \"split_unused_2\"}]}],",
    "    \"metadata\": {\"nn_module_stack\": \"L__self__,,M;L__self__a,a,torch.nn.Foo[int, (2, 3)]\",",
    "    \"stack_trace\": \"File x.py\"}, \"name\": \"split\"},",
    "  {\"target\": \"torch.ops.higher_order.wrap_with_set_grad_enabled\", \"inputs\": [",
    "    {\"name\": \"\", \"arg\": {\"as_bool\": false}, \"kind\": 1},",
    "    {\"name\": \"\", \"arg\": {\"as_graph\": {\"name\": \"submod_1\", \"graph\": {",
    "      \"inputs\": [{\"as_tensor\": {\"name\": \"t\"}}],",
    "      \"outputs\": [{\"as_tensor\": {\"name\": \"neg\"}}],",
    "      \"nodes\": [{\"target\": \"torch.ops.aten.neg.default\", \"inputs\": [{\"name\": \"self\",",
    "        \"arg\": {\"as_tensor\": {\"name\": \"t\"}}, \"kind\": 1}], \"outputs\": [{\"as_tensor\":",
    "        {\"name\": \"neg\"}}], \"metadata\": {}, \"name\": \"neg\"}],",
    "      \"tensor_values\": {\"t\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 2}], \"requires_grad\": false,",
    "        \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 1}],",
    "        \"storage_offset\": {\"as_int\": 0}, \"layout\": 7},",
    "        \"neg\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 2}], \"requires_grad\": false,",
    "        \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 1}],",
    "        \"storage_offset\": {\"as_int\": 0}, \"layout\": 7}},",
    "      \"sym_int_values\": {}, \"sym_bool_values\": {}, \"is_single_tensor_return\": false}}},",
    "     \"kind\": 1},",
    "    {\"name\": \"\", \"arg\": {\"as_tensor\": {\"name\": \"getitem\"}}, \"kind\": 1},",
    "    {\"name\": \"named_but_positional\", \"arg\": {\"as_int\": 5}, \"kind\": 1},",
    "    {\"name\": \"flag\", \"arg\": {\"as_bool\": true}, \"kind\": 2}],",
    "   \"outputs\": [{\"as_tensor\": {\"name\": \"getitem_3\"}}], \"is_hop_single_tensor_return\": false,",
    "   \"metadata\": {}, \"name\": \"wrap_with_set_grad_enabled\"},",
    "  {\"target\": \"torch.ops.aten.full.default\", \"inputs\": [{\"name\": \"size\", \"arg\": ",
    "    {\"as_sym_ints\": [{\"as_name\": \"sym_size_int\"}, {\"as_int\": 4}]}, \"kind\": 1},",
    "    {\"name\": \"fill_value\", \"arg\": {\"as_float\": \"-Infinity\"}, \"kind\": 1},",
    "    {\"name\": \"dtype\", \"arg\": {\"as_scalar_type\": 13}, \"kind\": 2},",
    "    {\"name\": \"memory_format\", \"arg\": {\"as_memory_format\": 2}, \"kind\": 2},",
    "    {\"name\": \"device\", \"arg\": {\"as_device\": {\"type\": \"cuda\", \"index\": 1}}, \"kind\": 2},",
    "    {\"name\": \"wibble\", \"arg\": {\"as_wibble\": 7}, \"kind\": 2},",
    "    {\"name\": \"opts\", \"arg\": {\"as_string_to_argument\": {\"a\": {\"as_int\": 1},",
    "     \"b\": {\"as_tensor\": {\"name\": \"x\"}}}}, \"kind\": 2}],",
    "   \"outputs\": [{\"as_tensor\": {\"name\": \"full\"}}], \"metadata\": {}, \"name\": \"full\"},",
    "  {\"target\": \"torch.ops.aten.add_.Tensor\", \"inputs\": [{\"name\": \"self\", \"arg\": ",
    "    {\"as_tensor\": {\"name\": \"b_buf\"}}, \"kind\": 1}, {\"name\": \"other\", \"arg\": ",
    "    {\"as_tensor\": {\"name\": \"p_w\"}}, \"kind\": 1}],",
    "   \"outputs\": [{\"as_tensor\": {\"name\": \"add_\"}}], \"metadata\": {}, \"name\": \"add_\"}],",
    " \"tensor_values\": {",
    "  \"p_w\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 4}], \"requires_grad\": true, \"device\": ",
    "   {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 1}], \"storage_offset\": ",
    "   {\"as_int\": 0}, \"layout\": 7},",
    "  \"b_buf\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 4}], \"requires_grad\": false, \"device\": ",
    "   {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 1}], \"storage_offset\": ",
    "   {\"as_int\": 0}, \"layout\": 7},",
    "  \"x\": {\"dtype\": 7, \"sizes\": [{\"as_expr\": {\"expr_str\": \"Symbol('s0', positive=True, ",
    "   integer=True)\", \"hint\": {\"as_int\": 6}}}, {\"as_int\": 4}], \"requires_grad\": false, ",
    "   \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 4}, {\"as_int\": 1}],",
    "   \"storage_offset\": {\"as_int\": 0}, \"layout\": 7},",
    "  \"getitem\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 2}, {\"as_int\": 4}], \"requires_grad\": false,",
    "   \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 4}, {\"as_int\": 1}],",
    "   \"storage_offset\": {\"as_int\": 0}, \"layout\": 7},",
    "  \"getitem_1\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 2}, {\"as_int\": 4}], \"requires_grad\": false,",
    "   \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 4}, {\"as_int\": 1}],",
    "   \"storage_offset\": {\"as_int\": 8}, \"layout\": 7},",
    "  \"split_unused_2\": {\"dtype\": 7, \"sizes\": [{\"as_expr\": {\"expr_str\": \"Add(Symbol('s0', ",
    "   positive=True, integer=True), Integer(-4))\", \"hint\": {\"as_int\": 2}}}, {\"as_int\": 4}],",
    "   \"requires_grad\": false, \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": ",
    "   [{\"as_int\": 4}, {\"as_int\": 1}], \"storage_offset\": {\"as_int\": 16}, \"layout\": 7},",
    "  \"getitem_3\": {\"dtype\": 7, \"sizes\": [{\"as_expr\": {\"expr_str\": \"FloorDiv(Mul(Integer(3), ",
    "   Pow(Symbol('s0', positive=True, integer=True), Integer(2))), Integer(2))\"}}], ",
    "   \"requires_grad\": false, \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": ",
    "   [{\"as_int\": 1}], \"storage_offset\": {\"as_int\": 0}, \"layout\": 7},",
    "  \"full\": {\"dtype\": 13, \"sizes\": [{\"as_expr\": {\"expr_str\": \"Symbol('s0', positive=True, ",
    "   integer=True)\", \"hint\": {\"as_int\": 6}}}, {\"as_int\": 4}], \"requires_grad\": false, ",
    "   \"device\": {\"type\": \"cuda\", \"index\": 1}, \"strides\": [{\"as_int\": 1}, {\"as_expr\": ",
    "   {\"expr_str\": \"Symbol('s0', positive=True, integer=True)\", \"hint\": {\"as_int\": 6}}}],",
    "   \"storage_offset\": {\"as_int\": 0}, \"layout\": 7},",
    "  \"add_\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 4}], \"requires_grad\": false, \"device\": ",
    "   {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 1}], \"storage_offset\": ",
    "   {\"as_int\": 0}, \"layout\": 7}},",
    " \"sym_int_values\": {\"sym_size_int\": {\"as_expr\": {\"expr_str\": \"Symbol('s0', positive=True, ",
    "   integer=True)\", \"hint\": {\"as_int\": 6}}}},",
    " \"sym_bool_values\": {}, \"is_single_tensor_return\": false, \"custom_obj_values\": {},",
    " \"sym_float_values\": {}},",
    " \"signature\": {\"input_specs\": [",
    "  {\"parameter\": {\"arg\": {\"name\": \"p_w\"}, \"parameter_name\": \"w\"}},",
    "  {\"buffer\": {\"arg\": {\"name\": \"b_buf\"}, \"buffer_name\": \"buf\", \"persistent\": false}},",
    "  {\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"x\"}}}},",
    "  {\"constant_input\": {\"name\": \"k\", \"value\": {\"as_int\": 3}}}],",
    "  \"output_specs\": [",
    "  {\"buffer_mutation\": {\"arg\": {\"name\": \"add_\"}, \"buffer_name\": \"buf\"}},",
    "  {\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"getitem_1\"}}}},",
    "  {\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"getitem_3\"}}}}]},",
    " \"module_call_graph\": [], \"metadata\": {}, \"treespec_namedtuple_fields\": {}},",
    " \"opset_version\": {\"aten\": 10},",
    " \"range_constraints\": {\"s0\": {\"min_val\": 4, \"max_val\": null}},",
    " \"schema_version\": {\"major\": 8, \"minor\": 17}, \"verifiers\": [],",
    " \"torch_version\": \"2.11.0+cu130\", \"guards_code\": []}",
    NULL};

static char *small_model; /* the lines joined (group setup) */

static void model_init(void)
{
    size_t len = 1;
    for (size_t i = 0; small_model_lines[i]; i++)
        len += strlen(small_model_lines[i]);
    small_model = calloc(1, len);
    for (size_t i = 0; small_model_lines[i]; i++)
        strcat(small_model, small_model_lines[i]);
}

static void model_free(void)
{
    free(small_model);
}

static const char *write_pt2(const char *file, const char *model_json, const char *version)
{
    struct rec recs[4] = {
        {"arch/archive_format", "pt2", 0},
        {"arch/archive_version", version ? version : "0", 0},
        {"arch/models/model.json", model_json, 0},
        {"arch/data/weights/weight_0", "\x01\x02\x03\x04", 4},
    };
    return write_zip(file, recs, 4);
}

static const char *node_names(const struct cgs_graph *g)
{
    static char buf[2048];
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < g->n_nodes && len + 1 < sizeof(buf); i++) {
        int w = snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "", g->nodes[i]->name);
        len += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* An integer past 2^53 (arange(9007199254740993)) reads the same from a .pt2 as from the graph
   JSON: from its text, not through a double (which gives ...992) */
static void test_big_int(void **state)
{
    static const char split_size[] = "{\"as_int\": 2}, \"kind\": 1}], \"outputs\": [{\"as_tensors\"";
    static const char graph_json[] =
        "{\"format\": \"cgscope.graph\", \"version\": 1, \"name\": \"t\", \"symbols\": {}, "
        "\"nodes\": [{\"name\": \"a\", \"op\": \"call_function\", \"target\": "
        "\"aten.arange.default\", \"args\": [9007199254740993], \"kwargs\": {}}, {\"name\": "
        "\"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [[{\"node\": "
        "\"a\"}]], \"kwargs\": {}}]}";
    struct cgs_diag d = CGS_DIAG_INIT;
    const char *at = strstr(small_model, split_size);
    char *model;
    const char *p;
    struct cgs_graph *g, *j;
    const struct cgs_node *n;
    (void)state;
    assert_non_null(at);
    model = malloc(strlen(small_model) + 32);
    snprintf(model, strlen(small_model) + 32, "%.*s{\"as_int\": 9007199254740993}%s",
             (int)(at - small_model), small_model, at + strlen("{\"as_int\": 2}"));
    p = write_pt2("bigint.pt2", model, NULL);
    free(model);
    g = cgs_graph_load(p, NULL, &d);
    if (!g)
        fail_msg("%s", d.msg);
    n = cgs_graph_find(g, "split");
    assert_non_null(n);
    assert_int_equal(n->args[1].kind, CGS_ARG_INT);
    assert_true(n->args[1].u.i == INT64_C(9007199254740993));
    j = cgs_graph_load_json_buf(graph_json, sizeof(graph_json) - 1, "t.json", &d);
    if (!j)
        fail_msg("%s", d.msg);
    assert_true(cgs_graph_find(j, "a")->args[0].u.i == n->args[1].u.i);
    cgs_graph_free(j);
    cgs_graph_free(g);
}

static void test_small_model(void **state)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    const char *p = write_pt2("small.pt2", small_model, NULL);
    struct cgs_graph *g;
    const struct cgs_node *n;
    (void)state;

    g = cgs_graph_load(p, NULL, &d);
    if (!g)
        fail_msg("%s", d.msg);
    /* placeholders (the constant named by its spec), the nodes in order, the getitems right
     * after their producer, none for split's unused output, a get_attr before the HOP */
    assert_string_equal(node_names(g), "p_w b_buf x k sym_size_int split getitem getitem_1 "
                                       "submod_1 wrap_with_set_grad_enabled getitem_3 full add_ "
                                       "output");
    assert_string_equal(g->name, "arch");
    n = cgs_graph_find(g, "k");
    assert_int_equal(n->op, CGS_NODE_PLACEHOLDER);
    assert_int_equal(n->pt2_kind, CGS_PT2_CONSTANT_INPUT);
    assert_int_equal(n->val->kind, CGS_VAL_INT);
    assert_int_equal(n->val->u.i, 3);
    assert_int_equal(cgs_graph_find(g, "p_w")->pt2_kind, CGS_PT2_PARAMETER);
    assert_int_equal(cgs_graph_find(g, "b_buf")->pt2_kind, CGS_PT2_BUFFER);
    assert_int_equal(cgs_graph_find(g, "x")->pt2_kind, CGS_PT2_USER_INPUT);
    /* the buffer mutation output */
    assert_int_equal(g->n_sig_outputs, 3);
    assert_int_equal(g->sig_outputs[0].kind, CGS_PT2_BUFFER_MUTATION);
    assert_string_equal(g->sig_outputs[0].target, "buf");
    assert_string_equal(g->sig_outputs[0].node->name, "add_");
    assert_int_equal(g->sig_inputs[1].persistent, 0);
    /* split: target, getitem args and the value list holding all three outputs */
    n = cgs_graph_find(g, "split");
    assert_string_equal(n->target, "aten.split.Tensor");
    assert_string_equal(n->module_path, "a");
    assert_string_equal(n->module_type, "torch.nn.Foo[int, (2, 3)]");
    assert_int_equal(n->val->kind, CGS_VAL_LIST);
    assert_int_equal(n->val->n, 3);
    char *s = cgs_sym_to_string(n->val->u.items[2].u.t.shape[0]);
    assert_string_equal(s, "s0 - 4");
    free(s);
    n = cgs_graph_find(g, "getitem_1");
    assert_string_equal(n->target, "operator.getitem");
    assert_string_equal(n->args[0].u.node->name, "split");
    assert_int_equal(n->args[1].u.i, 1);
    assert_int_equal(n->val->u.t.storage_offset->v, 8);
    assert_string_equal(n->stack_trace, "File x.py");
    /* the HOP: positional args (a bool, the get_attr, a tensor, an int), a kwarg, one
     * getitem, a subgraph */
    n = cgs_graph_find(g, "wrap_with_set_grad_enabled");
    assert_string_equal(n->target, "higher_order.wrap_with_set_grad_enabled");
    assert_int_equal(n->n_args, 4);
    assert_int_equal(n->args[3].u.i, 5);
    assert_int_equal(n->n_kwargs, 1);
    assert_string_equal(n->kwargs[0].key, "flag");
    assert_int_equal(n->args[1].kind, CGS_ARG_NODE);
    assert_int_equal(n->args[1].u.node->op, CGS_NODE_GET_ATTR);
    assert_string_equal(n->args[1].u.node->target, "submod_1");
    n = cgs_graph_find(g, "getitem_3");
    s = cgs_sym_to_string(n->val->u.t.shape[0]);
    assert_string_equal(s, "((3*s0**2)//2)"); /* sympy prints FloorDiv parenthesised */
    free(s);
    assert_int_equal(g->n_subgraphs, 1);
    assert_string_equal(g->subgraph_names[0], "submod_1");
    assert_string_equal(node_names(g->subgraphs[0]), "t neg output");
    /* full: kwargs in order, -inf, a bfloat16 dtype, a device with index, an unknown kind */
    n = cgs_graph_find(g, "full");
    assert_int_equal(n->n_args, 2);
    assert_int_equal(n->args[0].kind, CGS_ARG_LIST);
    assert_string_equal(n->args[0].u.items[0].u.node->name, "sym_size_int");
    assert_int_equal(n->args[0].u.items[1].u.i, 4);
    assert_true(isinf(n->args[1].u.f) && n->args[1].u.f < 0);
    assert_int_equal(n->n_kwargs, 5);
    assert_int_equal(n->kwargs[4].val.kind, CGS_ARG_REPR);
    assert_string_equal(n->kwargs[4].val.u.s, "{'a': 1, 'b': x}");
    assert_string_equal(n->kwargs[0].key, "dtype");
    assert_int_equal(n->kwargs[0].val.u.dtype, CGS_DTYPE_BFLOAT16);
    assert_string_equal(n->kwargs[1].val.u.s, "channels_last");
    assert_string_equal(n->kwargs[2].val.u.s, "cuda:1");
    assert_int_equal(n->kwargs[3].val.kind, CGS_ARG_REPR);
    assert_string_equal(n->val->u.t.device, "cuda:1");
    bool noted = false;
    for (uint32_t i = 0; i < g->n_notes; i++)
        if (g->notes[i].node == n && strstr(g->notes[i].msg, "unknown argument kind 'as_wibble'"))
            noted = true;
    assert_true(noted);
    /* symbols: s0 with the hint of its sizes and the range constraint */
    const struct cgs_symbol *sym = cgs_graph_symbol(g, "s0");
    assert_non_null(sym);
    assert_true(sym->has_hint && sym->hint == 6);
    assert_true(sym->has_min && sym->min == 4);
    assert_false(sym->has_max);
    n = cgs_graph_find(g, "sym_size_int");
    assert_int_equal(n->val->kind, CGS_VAL_SYMINT);
    assert_int_equal(n->n_users, 1);
    /* the output node returns three values */
    n = g->nodes[g->n_nodes - 1];
    assert_int_equal(n->op, CGS_NODE_OUTPUT);
    assert_int_equal(n->args[0].n, 3);
    cgs_graph_free(g);
}

static void test_several_models(void **state)
{
    struct rec recs[4] = {
        {"two/archive_format", "pt2", 0},
        {"two/archive_version", "0", 0},
        {"two/models/encoder.json", small_model, 0},
        {"two/models/decoder.json", small_model, 0},
    };
    struct cgs_diag d = CGS_DIAG_INIT;
    const char *p = write_zip("two.pt2", recs, 4);
    struct cgs_load_opts o = {"decoder"};
    (void)state;
    expect_error(p, NULL, "the archive holds 2 models ('encoder', 'decoder'): choose one with "
                          "--model NAME");
    expect_error(p, "nope", "no model 'nope' in the archive (it holds 'encoder', 'decoder')");
    struct cgs_graph *g = cgs_graph_load(p, &o, &d);
    assert_non_null(g);
    assert_string_equal(g->name, "two:decoder");
    cgs_graph_free(g);
    char **m = cgs_pt2_list_models(p, &d);
    assert_non_null(m);
    assert_string_equal(m[0], "encoder");
    assert_string_equal(m[1], "decoder");
    assert_null(m[2]);
    cgs_pt2_models_free(m);
}

static void test_hostile(void **state)
{
    char *buf, *ver;
    size_t len;
    struct cgs_diag d = CGS_DIAG_INIT;
    char fixture[600];
    (void)state;

    /* not a zip: text, and an empty file */
    expect_error(write_file("text.pt2", "PK? no, hello\n", 14), NULL,
                 "not a zip archive: expected a torch.export .pt2 archive");
    expect_error(write_file("empty.pt2", "", 0), NULL, "not a zip archive (the file is empty)");
    /* an empty zip: just the end-of-central-directory record */
    static const char eocd[22] = {'P', 'K', 5, 6};
    expect_error(write_file("emptyzip.pt2", eocd, sizeof(eocd)), NULL,
                 "no model in the archive: the zip archive is empty");
    /* a zip without a model */
    struct rec nomodel[2] = {{"m/archive_format", "pt2", 0}, {"m/archive_version", "0", 0}};
    expect_error(write_zip("nomodel.pt2", nomodel, 2), NULL,
                 "no model in the archive: no 'm/models/NAME.json' record");
    /* a zip that is not a torch archive at all */
    struct rec flat[1] = {{"readme.txt", "hi", 0}};
    expect_error(write_zip("flat.pt2", flat, 1), NULL, "its records are not under one top folder");
    struct rec pt[1] = {{"w/data.pkl", "x", 0}};
    expect_error(write_zip("torchsave.pt2", pt, 1), NULL, "no 'w/archive_format' record");
    struct rec fmt[2] = {{"f/archive_format", "pt3", 0}, {"f/models/model.json", "{}", 0}};
    expect_error(write_zip("fmt.pt2", fmt, 2), NULL, "unsupported archive format 'pt3'");
    expect_error(write_pt2("arch1.pt2", small_model, "1"), NULL,
                 "unsupported archive version '1': this cgscope reads version 0");
    /* an unknown schema major version: say which was found and which is read */
    ver = strdup(small_model);
    char *mv = strstr(ver, "\"major\": 8");
    assert_non_null(mv);
    mv[9] = '9';
    expect_error(write_pt2("schema9.pt2", ver, NULL), NULL,
                 "unsupported schema version 9.17 of the serialized ExportedProgram: this "
                 "cgscope reads major version 8");
    free(ver);
    /* garbage JSON inside: the record and line:col are named */
    expect_error(write_pt2("garbage.pt2", "{\"graph_module\": [1, 2\n", NULL), NULL,
                 "malformed JSON");
    expect_error(write_pt2("garbage2.pt2", "{\"graph_module\": [1, 2\n", NULL), NULL,
                 "(at arch/models/model.json:2:1");
    expect_error(write_pt2("garbage3.pt2", "\x89PNG not json", NULL), NULL,
                 "malformed JSON: expected a value");
    expect_error(write_pt2("noschema.pt2", "{\"graph_module\": {}}", NULL), NULL,
                 "not a serialized ExportedProgram: no 'schema_version'");
    /* a node that uses a value nobody made */
    char *bad = strdup(small_model);
    char *use = strstr(bad, "{\"name\": \"b_buf\"}}, \"kind\": 1}");
    assert_non_null(use);
    memcpy(use + 10, "zzzzz", 5);
    expect_error(write_pt2("badref.pt2", bad, NULL), NULL,
                 "node 'add_' uses unknown value 'zzzzz'");
    free(bad);
    /* a truncated copy of a real archive */
    snprintf(fixture, sizeof(fixture), "%s/export/tiny_cnn.pt2", fixtures());
    if (!cgs_read_file(fixture, &buf, &len, (size_t)1 << 30, &d)) {
        expect_error(write_file("cut.pt2", buf, len / 2), NULL,
                     "truncated or damaged zip archive");
        expect_error(write_file("cut2.pt2", buf, len - 30), NULL,
                     "truncated or damaged zip archive");
        free(buf);
    }
}

/* A record whose bytes do not match its CRC: reading it fails cleanly. */
static void test_corrupt_record(void **state)
{
    char *buf;
    size_t len;
    struct cgs_diag d = CGS_DIAG_INIT;
    (void)state;
    const char *p = write_pt2("crc.pt2", small_model, NULL);
    assert_int_equal(cgs_read_file(p, &buf, &len, (size_t)1 << 30, &d), 0);
    /* flip a byte inside the stored model JSON (records are stored uncompressed by
     * libzip only when it is smaller; find the text instead of assuming) */
    char *hit = NULL;
    for (size_t i = 0; i + 26 <= len && !hit; i++)
        if (!memcmp(buf + i, "wrap_with_set_grad_enabled", 26))
            hit = buf + i;
    if (hit) {
        hit[0] ^= 0x20;
        p = write_file("crc2.pt2", buf, len);
        expect_error(p, NULL, "the archive is damaged");
    } else {
        /* compressed: corrupt the middle of the data instead */
        buf[len / 3] ^= 0x55;
        p = write_file("crc2.pt2", buf, len);
        expect_error(p, NULL, "error");
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_dynamic_sizes),
        cmocka_unit_test(test_small_model), cmocka_unit_test(test_big_int),
        cmocka_unit_test(test_several_models),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_corrupt_record),
    };
    return cmocka_run_group_tests_name("load-pt2", tests, group_setup, group_teardown);
}
