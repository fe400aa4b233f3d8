/*
 * The layout pass (Inductor's layout decisions):
 *  - every fixtures/post_grad/ *.layout.json exact: verdict, the preferred set (and
 *    PyTorch's insertion order), per-convolution class, FLOPs and vote totals;
 *  - stride orders and fixed-layout pins against what torch 2.11's GraphLowering
 *    held right after run_node on three recorded graphs (tests/data/layout);
 *  - small hand-built graphs firing each rule once, for both rule sets, with the
 *    verdicts PyTorch's rules give them (docs/layout.md);
 *  - the lowering table.
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
#include "lib/passes/layout.h"
#include "tests/tgraph.h"
#include "lib/readers/load.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "../shared/fixtures"
#endif

static cJSON *read_json(const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    struct cgs_diag d = CGS_DIAG_INIT;
    if (cgs_read_file(path, &buf, &len, (size_t)1 << 30, &d))
        return NULL;
    cJSON *j = cJSON_ParseWithLength(buf, len);
    free(buf);
    return j;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool has_name(const struct cgs_node *const *nodes, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(nodes[i]->name, name))
            return true;
    return false;
}

/* ---- the fixtures ------------------------------------------------------------------ */

static void check_convs(const struct cgs_layout *l, const cJSON *dg, const char *side)
{
    const cJSON *c;
    assert_int_equal(cJSON_GetObjectItem(dg, "nconv")->valueint, l->n_convs);
    assert_int_equal(cJSON_GetObjectItem(dg, "n_nodes")->valueint, l->n_nodes);
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(dg, "convs")) {
        const char *name = cJSON_GetObjectItem(c, "name")->valuestring;
        const struct cgs_layout_conv *cv = NULL;
        for (uint32_t i = 0; i < l->n_convs && !cv; i++)
            if (!strcmp(l->convs[i].node->name, name))
                cv = &l->convs[i];
        if (!cv)
            fail_msg("%s: convolution %s not found", side, name);
        assert_string_equal(cgs_conv_class_name(cv->cls),
                            cJSON_GetObjectItem(c, "class")->valuestring);
        assert_int_equal(cv->grouped, cJSON_IsTrue(cJSON_GetObjectItem(c, "is_grouped")));
        assert_int_equal(cv->small, cJSON_IsTrue(cJSON_GetObjectItem(c, "is_small_channel")));
        assert_int_equal(cv->in_out, cJSON_IsTrue(cJSON_GetObjectItem(c, "is_in_out_channel")));
        assert_int_equal(cv->free_symbols, cJSON_IsTrue(cJSON_GetObjectItem(c, "free_symbols")));
        assert_int_equal(cv->groups, cJSON_GetObjectItem(c, "groups")->valueint);
        const cJSON *f = cJSON_GetObjectItem(c, "flops");
        if (cJSON_IsNumber(f)) {
            assert_true(cv->has_flops);
            assert_true((double)cv->flops == f->valuedouble);
        }
        const cJSON *ws = cJSON_GetObjectItem(c, "weight_shape"), *x;
        uint32_t k = 0;
        cJSON_ArrayForEach(x, ws) {
            if (k < 5)
                assert_int_equal(cv->weight[k], strtoll(x->valuestring, NULL, 10));
            k++;
        }
        assert_int_equal(k, cv->weight_ndim);
    }
    if (l->voted) {
        assert_true(l->total_flops == cJSON_GetObjectItem(dg, "total_flops")->valuedouble);
        assert_true(l->weighted_flops == cJSON_GetObjectItem(dg, "weighted_flops")->valuedouble);
        const cJSON *by = cJSON_GetObjectItem(dg, "flops_by_class"), *e;
        int seen = 0;
        cJSON_ArrayForEach(e, by) {
            for (int k = 0; k < CGS_CONV_CLASS_COUNT; k++)
                if (!strcmp(e->string, cgs_conv_class_name(k))) {
                    assert_true(l->class_seen[k]);
                    assert_true(l->flops_by_class[k] == e->valuedouble);
                    seen++;
                }
        }
        for (int k = 0; k < CGS_CONV_CLASS_COUNT; k++)
            seen -= l->class_seen[k];
        assert_int_equal(seen, 0);
    }
}

static void check_fixture(const char *dir, const char *side_name)
{
    char path[8192];
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_layout *l = NULL;

    snprintf(path, sizeof(path), "%s/%s", dir, side_name);
    cJSON *side = read_json(path);
    assert_non_null(side);
    snprintf(path, sizeof(path), "%s/%s", dir, cJSON_GetObjectItem(side, "graph")->valuestring);
    struct cgs_graph *g = cgs_graph_load_json(path, &d);
    if (!g)
        fail_msg("%s: %s", path, d.msg);
    assert_int_equal(cgs_layout_run(g, NULL, &l, &d), 0);

    bool want = cJSON_IsTrue(cJSON_GetObjectItem(side, "layout_opt"));
    if (l->layout_opt != want)
        fail_msg("%s: layout_opt %d, torch %d (%s)", side_name, l->layout_opt, want, l->reason);

    /* the preferred set, as a set */
    const cJSON *pcl = cJSON_GetObjectItem(side, "prefer_channels_last"), *x;
    uint32_t n = (uint32_t)cJSON_GetArraySize(pcl), i = 0;
    assert_int_equal(n, l->n_prefer_cl);
    const char **a = calloc(n ? n : 1, sizeof(*a)), **b = calloc(n ? n : 1, sizeof(*b));
    cJSON_ArrayForEach(x, pcl) {
        a[i] = x->valuestring;
        b[i] = l->prefer_cl[i]->name;
        i++;
    }
    qsort(a, n, sizeof(*a), cmp_str);
    qsort(b, n, sizeof(*b), cmp_str);
    for (i = 0; i < n; i++)
        assert_string_equal(a[i], b[i]);
    free(a);
    free(b);

    const cJSON *ex = cJSON_GetObjectItem(side, "extra");
    /* computed whatever the verdict, in PyTorch's OrderedSet order */
    const cJSON *all = cJSON_GetObjectItem(ex, "prefer_channels_last_unconditional");
    if (all) {
        assert_int_equal(cJSON_GetArraySize(all), l->n_prefer_all);
        i = 0;
        cJSON_ArrayForEach(x, all)
            assert_string_equal(x->valuestring, l->prefer_all[i++]->name);
    }
    assert_int_equal(l->is_inference, cJSON_IsTrue(cJSON_GetObjectItem(ex, "is_inference")));
    assert_int_equal(l->is_backward, cJSON_IsTrue(cJSON_GetObjectItem(ex, "is_backward")));
    const cJSON *dg = cJSON_GetObjectItem(ex, "diagnostics");
    if (dg)
        check_convs(l, dg, side_name);

    cgs_layout_free(l);
    cgs_graph_free(g);
    cJSON_Delete(side);
}

static void test_fixtures(void **state)
{
    (void)state;
    char dir[4096];
    const char *root = getenv("FIXTURES") ? getenv("FIXTURES") : FIXTURES_DIR;
    snprintf(dir, sizeof(dir), "%s/post_grad", root);
    DIR *dp = opendir(dir);
    if (!dp)
        skip();
    struct dirent *e;
    int n = 0;
    while ((e = readdir(dp))) {
        size_t len = strlen(e->d_name);
        if (len > 12 && !strcmp(e->d_name + len - 12, ".layout.json")) {
            check_fixture(dir, e->d_name);
            n++;
        }
    }
    closedir(dp);
    assert_true(n >= 17);
}

/* ---- stride orders recorded on torch 2.11 ------------------------------------------------- */

static void check_probe(const char *name)
{
    char path[4096];
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_layout *l = NULL;

    snprintf(path, sizeof(path), "tests/data/layout/%s.torch.json", name);
    cJSON *side = read_json(path);
    assert_non_null(side);
    snprintf(path, sizeof(path), "tests/data/layout/%s.json", name);
    struct cgs_graph *g = cgs_graph_load_json(path, &d);
    if (!g)
        fail_msg("%s: %s", path, d.msg);
    assert_int_equal(cgs_layout_run(g, NULL, &l, &d), 0);
    assert_int_equal(l->layout_opt, cJSON_IsTrue(cJSON_GetObjectItem(side, "layout_opt")));
    const cJSON *x;
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(side, "prefer_channels_last")),
                     l->n_prefer_cl);
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(side, "prefer_channels_last"))
        assert_true(has_name(l->prefer_cl, l->n_prefer_cl, x->valuestring));
    /* user-visible outputs as compile_fx marks them */
    uint32_t nvis = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        nvis += l->nodes[i].user_visible;
    assert_int_equal(nvis, cJSON_GetArraySize(cJSON_GetObjectItem(side, "user_visible_outputs")));
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(side, "user_visible_outputs"))
        assert_true(l->nodes[cgs_graph_find(g, x->valuestring)->index].user_visible);

    /* every requirement we state is the FixedLayout torch held after run_node */
    const cJSON *at = cJSON_GetObjectItem(side, "at_node");
    uint32_t checked = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_layout_node *ln = &l->nodes[i];
        const uint8_t *order = ln->req != CGS_STRIDE_FREE ? ln->order : ln->pin_order;
        if (!order)
            continue;
        const cJSON *t = cJSON_GetObjectItem(at, g->nodes[i]->name);
        if (!t)
            fail_msg("%s: no torch layout for %s", name, g->nodes[i]->name);
        assert_string_equal(cJSON_GetObjectItem(t, "layout")->valuestring, "FixedLayout");
        const cJSON *so = cJSON_GetObjectItem(t, "stride_order");
        assert_int_equal(cJSON_GetArraySize(so), ln->ndim);
        uint32_t k = 0;
        cJSON_ArrayForEach(x, so) {
            if (x->valueint != order[k])
                fail_msg("%s: %s stride order[%u] %u, torch %d", name, g->nodes[i]->name, k,
                         order[k], x->valueint);
            k++;
        }
        checked++;
    }
    assert_true(checked >= 3);

    /* the nodes torch ran as FallbackKernel (or a copy fallback) */
    const cJSON *fb = cJSON_GetObjectItem(side, "fallback_nodes");
    uint32_t nfb = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        enum cgs_fallback_kind k = l->nodes[i].fallback;
        bool ours = k == CGS_FALLBACK_KERNEL || k == CGS_FALLBACK_IMPLICIT ||
                    k == CGS_FALLBACK_UNSUPPORTED;
        bool theirs = false;
        cJSON_ArrayForEach(x, fb)
            theirs |= !strcmp(x->valuestring, g->nodes[i]->name);
        if (ours != theirs)
            fail_msg("%s: %s is %s, torch %s", name, g->nodes[i]->name, cgs_fallback_kind_name(k),
                     theirs ? "made a fallback kernel" : "lowered it");
        nfb += ours;
        /* nothing else is left without a lowering */
        assert_true(k != CGS_FALLBACK_ERROR && k != CGS_FALLBACK_MAYBE);
    }
    assert_int_equal(nfb, cJSON_GetArraySize(fb));
    cgs_layout_free(l);
    cgs_graph_free(g);
    cJSON_Delete(side);
}

static void test_probe_strides(void **state)
{
    (void)state;
    check_probe("probe-infer");
    check_probe("probe-train-fwd");
    check_probe("probe-train-bwd");
    check_probe("probe-infer2"); /* cat, a custom op, complex arithmetic, two mm */
}

/* ---- hand-built graphs --------------------------------------------------------------------- */

struct gspec {
    const char *producer;    /* extra producer keys */
    const char *device;
    int64_t x[4], w[4], o[4];
    int64_t groups;
    const char *conv_target; /* NULL: aten.convolution.default; "" : no convolution */
    int filler;              /* relu nodes after the convolution */
    const char *extra;       /* more nodes (JSON, each starting with a comma) */
};

static struct cgs_graph *build(const struct gspec *s)
{
    struct tgraph t;
    struct cgs_buf v = CGS_BUF_INIT, a = CGS_BUF_INIT;
    const char *last = "x";
    char prev[32];

    tg_begin(&t, "post_grad", s->producer, NULL);
    tg_tensor(&v, "float32", s->x, 4, s->device);
    tg_ph(&t, "x", v.buf);
    cgs_buf_reset(&v);
    tg_tensor(&v, "float32", s->w, 4, s->device);
    tg_ph(&t, "w", v.buf);
    cgs_buf_reset(&v);
    tg_tensor(&v, "float32", s->o, 4, s->device);
    if (!s->conv_target || *s->conv_target) {
        cgs_buf_addf(&a, "[{\"node\":\"x\"},{\"node\":\"w\"},null,[1,1],[1,1],[1,1],false,[0,0],%lld]",
                     (long long)(s->groups ? s->groups : 1));
        tg_call(&t, "convolution", s->conv_target ? s->conv_target : "aten.convolution.default",
                a.buf, v.buf);
        last = "convolution";
    }
    snprintf(prev, sizeof(prev), "%s", last);
    for (int i = 0; i < s->filler; i++) {
        char name[32];
        cgs_buf_reset(&a);
        cgs_buf_addf(&a, "[{\"node\":\"%s\"}]", prev);
        snprintf(name, sizeof(name), "relu_%d", i);
        tg_call(&t, name, "aten.relu.default", a.buf, v.buf);
        snprintf(prev, sizeof(prev), "%s", name);
    }
    if (s->extra)
        tg_raw(&t, s->extra);
    cgs_buf_reset(&a);
    cgs_buf_addf(&a, "[{\"node\":\"%s\"}]", prev);
    struct cgs_graph *g = tg_end(&t, a.buf, NULL);
    cgs_buf_release(&a);
    cgs_buf_release(&v);
    return g;
}

struct rule_case {
    const char *what;
    struct gspec spec;
    enum cgs_layout_mode mode;
    enum cgs_layout_switch sw;
    bool mkldnn;
    /* expected for torch 2.11, then torch 2.1 */
    enum cgs_layout_rule rule[2];
    bool on[2];
};

#define INF "\"is_inference\":true,\"is_backward\":false"
#define TRAIN "\"is_inference\":false,\"is_backward\":false"
#define X128 {2, 128, 8, 8}
#define O128 {2, 128, 8, 8}
#define R(name) CGS_LAYOUT_RULE_##name
#define SDPA_NODE                                                                              \
    ",{\"name\":\"sdpa\",\"op\":\"call_function\",\"target\":"                                 \
    "\"aten._scaled_dot_product_flash_attention.default\",\"args\":[{\"node\":\"x\"},"         \
    "{\"node\":\"x\"},{\"node\":\"x\"}],\"kwargs\":{}}"

static const struct rule_case rule_cases[] = {
    {"default conv, inference", {INF, NULL, X128, {128, 128, 3, 3}, O128, 1, NULL, 0, NULL},
     CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false, {R(FLOP_VOTE), R(NO_VETO)},
     {true, true}},
    {"default conv, training", {TRAIN, NULL, X128, {128, 128, 3, 3}, O128, 1, NULL, 0, NULL},
     CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false, {R(NO_VETO), R(NO_VETO)},
     {true, true}},
    {"grouped conv, inference", {INF, NULL, X128, {128, 64, 3, 3}, O128, 2, NULL, 0, NULL},
     CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false, {R(FLOP_VOTE), R(GROUPED_CONV)},
     {false, false}},
    {"grouped conv, training", {TRAIN, NULL, X128, {128, 64, 3, 3}, O128, 2, NULL, 0, NULL},
     CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false, {R(GROUPED_CONV), R(GROUPED_CONV)},
     {false, false}},
    {"grouped conv, inference graph lowered as training",
     {INF, NULL, X128, {128, 64, 3, 3}, O128, 2, NULL, 0, NULL}, CGS_LAYOUT_MODE_TRAINING,
     CGS_LAYOUT_SWITCH_DECIDE, false, {R(GROUPED_CONV), R(GROUPED_CONV)}, {false, false}},
    {"depthwise conv (1 channel per group), training",
     {TRAIN, NULL, X128, {128, 1, 3, 3}, O128, 128, NULL, 0, NULL}, CGS_LAYOUT_MODE_AUTO,
     CGS_LAYOUT_SWITCH_DECIDE, false, {R(NO_VETO), R(NO_VETO)}, {true, true}},
    {"in/out channels, training", {TRAIN, NULL, {2, 256, 8, 8}, {64, 256, 3, 3}, {2, 64, 8, 8},
     1, NULL, 0, NULL}, CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false,
     {R(IN_OUT_CHANNELS), R(IN_OUT_CHANNELS)}, {false, false}},
    {"in/out channels, inference", {INF, NULL, {2, 256, 8, 8}, {64, 256, 3, 3}, {2, 64, 8, 8},
     1, NULL, 0, NULL}, CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false,
     {R(FLOP_VOTE), R(IN_OUT_CHANNELS)}, {true, false}},
    {"in/out channels, 1x1 kernel (no veto)", {TRAIN, NULL, {2, 256, 8, 8}, {64, 256, 1, 1},
     {2, 64, 8, 8}, 1, NULL, 0, NULL}, CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false,
     {R(NO_VETO), R(NO_VETO)}, {true, true}},
    {"small channels, training", {TRAIN, NULL, {2, 16, 8, 8}, {32, 16, 3, 3}, {2, 32, 8, 8}, 1,
     NULL, 0, NULL}, CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false,
     {R(SMALL_CHANNELS), R(SMALL_CHANNELS)}, {false, false}},
    {"small channels, inference", {INF, NULL, {2, 16, 8, 8}, {32, 16, 3, 3}, {2, 32, 8, 8}, 1,
     NULL, 0, NULL}, CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false,
     {R(FLOP_VOTE), R(SMALL_CHANNELS)}, {true, false}},
    {"no convolution", {INF, NULL, X128, {128, 128, 3, 3}, O128, 1, "", 2, NULL},
     CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false, {R(NO_CONV), R(NO_CONV)},
     {false, false}},
    {"300 nodes per convolution", {INF, NULL, X128, {128, 128, 3, 3}, O128, 1, NULL, 296, NULL},
     CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false, {R(FEW_CONV), R(FEW_CONV)},
     {false, false}},
    {"299 nodes per convolution", {INF, NULL, X128, {128, 128, 3, 3}, O128, 1, NULL, 295, NULL},
     CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false, {R(FLOP_VOTE), R(NO_VETO)},
     {true, true}},
    {"CPU with mkldnn", {TRAIN, "cpu", X128, {128, 128, 3, 3}, O128, 2, NULL, 0, NULL},
     CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, true, {R(MKLDNN_CPU), R(MKLDNN_CPU)},
     {true, true}},
    {"CPU without mkldnn", {TRAIN, "cpu", X128, {128, 128, 3, 3}, O128, 2, NULL, 0, NULL},
     CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false, {R(GROUPED_CONV), R(GROUPED_CONV)},
     {false, false}},
    {"XPU with mkldnn (2.11 only)", {TRAIN, "xpu:0", X128, {128, 64, 3, 3}, O128, 2, NULL, 0,
     NULL}, CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, true,
     {R(MKLDNN_CPU), R(GROUPED_CONV)}, {true, false}},
    {"switched off", {INF, NULL, X128, {128, 128, 3, 3}, O128, 1, NULL, 0, NULL},
     CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_OFF, false, {R(DISABLED), R(DISABLED)},
     {false, false}},
    {"forced", {TRAIN, NULL, X128, {128, 64, 3, 3}, O128, 2, NULL, 0, NULL},
     CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_FORCE_ON, false, {R(FORCED), R(FORCED)},
     {true, true}},
    {"flash attention (2.1 veto)", {TRAIN, NULL, X128, {128, 128, 3, 3}, O128, 1, NULL, 0,
     SDPA_NODE}, CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false, {R(NO_VETO), R(SDPA)},
     {true, false}},
    {"mkldnn fused convolution (2.11 counts it)",
     {TRAIN, NULL, X128, {128, 128, 3, 3}, O128, 1, "mkldnn._convolution_pointwise.default", 0,
      NULL}, CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false, {R(NO_VETO), R(NO_CONV)},
     {true, false}},
};

static void test_rules(void **state)
{
    (void)state;
    bool fired[2][CGS_LAYOUT_RULE_COUNT] = {{false}};
    for (size_t i = 0; i < sizeof(rule_cases) / sizeof(rule_cases[0]); i++) {
        const struct rule_case *rc = &rule_cases[i];
        struct cgs_graph *g = build(&rc->spec);
        for (int r = 0; r < 2; r++) {
            struct cgs_layout_opts o = CGS_LAYOUT_OPTS_INIT;
            struct cgs_diag d = CGS_DIAG_INIT;
            struct cgs_layout *l = NULL;
            o.rules = r ? CGS_LAYOUT_RULES_2_1 : CGS_LAYOUT_RULES_2_11;
            o.mode = rc->mode;
            o.sw = rc->sw;
            o.mkldnn = rc->mkldnn;
            assert_int_equal(cgs_layout_run(g, &o, &l, &d), 0);
            if (l->rule != rc->rule[r] || l->layout_opt != rc->on[r])
                fail_msg("%s (%s): got %s %s, want %s %s (%s)", rc->what,
                         cgs_layout_rules_name(o.rules), cgs_layout_rule_id(l->rule),
                         l->layout_opt ? "on" : "off", cgs_layout_rule_id(rc->rule[r]),
                         rc->on[r] ? "on" : "off", l->reason);
            assert_non_null(l->reason);
            assert_true(strlen(l->reason) > 10);
            fired[r][l->rule] = true;
            /* the nodes that fire a convolution rule are the convolution */
            if (l->rule == R(GROUPED_CONV) || l->rule == R(IN_OUT_CHANNELS) ||
                (l->rule == R(FLOP_VOTE) && !l->layout_opt)) {
                assert_int_equal(l->n_rule_nodes, 1);
                assert_string_equal(l->rule_nodes[0]->name, "convolution");
                assert_non_null(strstr(l->reason, "`convolution`"));
            }
            if (l->rule == R(SDPA))
                assert_string_equal(l->rule_nodes[0]->name, "sdpa");
            assert_int_equal(l->n_prefer_cl, l->layout_opt ? l->n_prefer_all : 0);
            cgs_layout_free(l);
        }
        cgs_graph_free(g);
    }
    /* every rule fires at least once in each set (no FLOP vote and no SDPA rule
     * where the set has none) */
    for (int k = 0; k < CGS_LAYOUT_RULE_COUNT; k++) {
        if (k == R(DYNAMIC_SHAPE)) /* test_dynamic */
            continue;
        assert_true(fired[0][k] || k == R(SDPA));
        assert_true(fired[1][k] || k == R(FLOP_VOTE));
    }
}

static void test_reason_text(void **state)
{
    (void)state;
    const struct gspec s = {TRAIN, NULL, X128, {128, 32, 3, 3}, O128, 4, NULL, 0, NULL};
    struct cgs_graph *g = build(&s);
    struct cgs_layout *l = NULL;
    struct cgs_diag d = CGS_DIAG_INIT;
    assert_int_equal(cgs_layout_run(g, NULL, &l, &d), 0);
    assert_string_equal(l->reason, "training graph has grouped convolution `convolution` with "
                                   "32 input channels per group");
    cgs_layout_free(l);
    cgs_graph_free(g);
}

static void test_dynamic(void **state)
{
    (void)state;
    static const char *json =
        "{\"format\":\"cgscope.graph\",\"version\":1,\"name\":\"dyn\",\"producer\":{\"tool\":"
        "\"t\",\"stage\":\"post_grad\",\"is_inference\":true},\"symbols\":{\"s0\":{\"hint\":4,"
        "\"min\":2,\"max\":null}},\"nodes\":["
        "{\"name\":\"x\",\"op\":\"placeholder\",\"target\":\"x\",\"args\":[],\"kwargs\":{},"
        "\"val\":{\"dtype\":\"float32\",\"shape\":[\"s0\",128,8,8],\"stride\":[8192,64,8,1],"
        "\"storage_offset\":0,\"device\":\"cuda:0\",\"requires_grad\":false}},"
        "{\"name\":\"w\",\"op\":\"placeholder\",\"target\":\"w\",\"args\":[],\"kwargs\":{},"
        "\"val\":{\"dtype\":\"float32\",\"shape\":[128,128,3,3],\"stride\":[1152,9,3,1],"
        "\"storage_offset\":0,\"device\":\"cuda:0\",\"requires_grad\":false}},"
        "{\"name\":\"convolution\",\"op\":\"call_function\",\"target\":"
        "\"aten.convolution.default\",\"args\":[{\"node\":\"x\"},{\"node\":\"w\"},null,[1,1],"
        "[1,1],[1,1],false,[0,0],1],\"kwargs\":{},\"val\":{\"dtype\":\"float32\",\"shape\":"
        "[\"s0\",128,8,8],\"stride\":[8192,64,8,1],\"storage_offset\":0,\"device\":\"cuda:0\","
        "\"requires_grad\":false}},"
        "{\"name\":\"output\",\"op\":\"output\",\"target\":\"output\",\"args\":[[{\"node\":"
        "\"convolution\"}]],\"kwargs\":{}}]}";
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g = cgs_graph_load_json_buf(json, strlen(json), "dyn.json", &d);
    assert_non_null(g);
    for (int r = 0; r < 2; r++) {
        struct cgs_layout_opts o = CGS_LAYOUT_OPTS_INIT;
        struct cgs_layout *l = NULL;
        o.rules = r ? CGS_LAYOUT_RULES_2_1 : CGS_LAYOUT_RULES_2_11;
        assert_int_equal(cgs_layout_run(g, &o, &l, &d), 0);
        assert_int_equal(l->rule, R(DYNAMIC_SHAPE));
        assert_false(l->layout_opt);
        assert_int_equal(l->n_rule_nodes, 1);
        /* FLOPs still reported, through the hint s0 = 4 */
        assert_true(l->convs[0].free_symbols);
        assert_true(l->convs[0].has_flops);
        assert_int_equal(l->convs[0].flops, 2LL * 64 * 9 * 4 * 128 * 128);
        cgs_layout_free(l);
    }
    cgs_graph_free(g);
}

static void test_inferred_values(void **state)
{
    (void)state;
    /* the convolution records no value: shape inference gives its output shape,
     * and with it the FLOPs the vote counts */
    static const char *json =
        "{\"format\":\"cgscope.graph\",\"version\":1,\"name\":\"noval\",\"producer\":{"
        "\"tool\":\"t\",\"stage\":\"post_grad\",\"is_inference\":true},\"nodes\":["
        "{\"name\":\"x\",\"op\":\"placeholder\",\"target\":\"x\",\"args\":[],\"kwargs\":{},"
        "\"val\":{\"dtype\":\"float32\",\"shape\":[2,128,8,8],\"stride\":[8192,64,8,1],"
        "\"storage_offset\":0,\"device\":\"cuda:0\",\"requires_grad\":false}},"
        "{\"name\":\"w\",\"op\":\"placeholder\",\"target\":\"w\",\"args\":[],\"kwargs\":{},"
        "\"val\":{\"dtype\":\"float32\",\"shape\":[64,128,3,3],\"stride\":[1152,9,3,1],"
        "\"storage_offset\":0,\"device\":\"cuda:0\",\"requires_grad\":false}},"
        "{\"name\":\"convolution\",\"op\":\"call_function\",\"target\":"
        "\"aten.convolution.default\",\"args\":[{\"node\":\"x\"},{\"node\":\"w\"},null,[2,2],"
        "[1,1],[1,1],false,[0,0],1],\"kwargs\":{}},"
        "{\"name\":\"output\",\"op\":\"output\",\"target\":\"output\",\"args\":[[{\"node\":"
        "\"convolution\"}]],\"kwargs\":{}}]}";
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g = cgs_graph_load_json_buf(json, strlen(json), "noval.json", &d);
    assert_non_null(g);
    struct cgs_layout_opts o = CGS_LAYOUT_OPTS_INIT;
    struct cgs_layout *l = NULL;
    assert_int_equal(cgs_layout_run(g, &o, &l, &d), 0);
    assert_int_equal(l->n_inferred, 1);
    assert_true(l->convs[0].has_flops);
    /* output 2 x 64 x 4 x 4 (stride 2), 128 input channels, 3x3 kernel */
    assert_int_equal(l->convs[0].flops, 2LL * 16 * 9 * 2 * 64 * 128);
    assert_int_equal(l->rule, R(FLOP_VOTE));
    cgs_layout_free(l);
    /* without inference the vote has nothing to count (total 0, weighted 0: on) */
    o.infer_missing = false;
    assert_int_equal(cgs_layout_run(g, &o, &l, &d), 0);
    assert_false(l->convs[0].has_flops);
    assert_int_equal(l->n_inferred, 0);
    assert_true(l->layout_opt);
    cgs_layout_free(l);
    cgs_graph_free(g);
}

/* ---- find_nodes_prefer_channels_last ------------------------------------------------------ */

#define VAL4 "{\"dtype\":\"float32\",\"shape\":[2,8,4,4],\"stride\":[128,16,4,1],"           \
             "\"storage_offset\":0,\"device\":\"cuda:0\"}"
#define VAL3 "{\"dtype\":\"float32\",\"shape\":[16,4,4],\"stride\":[16,4,1],"                 \
             "\"storage_offset\":0,\"device\":\"cuda:0\"}"
#define WVAL "{\"dtype\":\"float32\",\"shape\":[8,8,1,1],\"stride\":[8,1,1,1],"               \
             "\"storage_offset\":0,\"device\":\"cuda:0\"}"
#define HEAD                                                                                   \
    "{\"format\":\"cgscope.graph\",\"version\":1,\"name\":\"p\",\"producer\":{\"tool\":\"t\"," \
    "\"stage\":\"post_grad\",\"is_inference\":true},\"nodes\":["
#define PH(n, v) "{\"name\":\"" n "\",\"op\":\"placeholder\",\"target\":\"" n "\",\"val\":" v "},"
#define CF(n, t, a, v)                                                                         \
    "{\"name\":\"" n "\",\"op\":\"call_function\",\"target\":\"" t "\",\"args\":" a            \
    ",\"val\":" v "},"
#define CONV(n, x, w)                                                                          \
    CF(n, "aten.convolution.default",                                                          \
       "[{\"node\":\"" x "\"},{\"node\":\"" w "\"},null,[1,1],[0,0],[1,1],false,[0,0],1]", VAL4)
#define OUT(a) "{\"name\":\"output\",\"op\":\"output\",\"target\":\"output\",\"args\":[" a "]}]}"

struct prefer_case {
    const char *json;
    const char *want[2]; /* space-separated sorted names: torch 2.11, torch 2.1 */
};

static const struct prefer_case prefer_cases[] = {
    /* two convolutions: 2.11 stops the forward pass at the last one */
    {HEAD PH("x", VAL4) PH("w1", WVAL) PH("w2", WVAL) CONV("c1", "x", "w1")
         CF("r1", "aten.relu.default", "[{\"node\":\"c1\"}]", VAL4) CONV("c2", "r1", "w2")
             CF("r2", "aten.relu.default", "[{\"node\":\"c2\"}]", VAL4)
                 CF("r3", "aten.relu.default", "[{\"node\":\"r2\"}]", VAL4)
                     OUT("[{\"node\":\"r3\"}]"),
     {"c1 c2 r1 w1 w2 x", "c1 c2 output r1 r2 r3 w1 w2 x"}},
    /* bmm feeding a convolution: 2.11 does not propagate through it */
    {HEAD PH("q", VAL3) PH("k", VAL3) PH("w", WVAL)
         CF("bmm", "aten.bmm.default", "[{\"node\":\"q\"},{\"node\":\"k\"}]", VAL3)
             CF("view", "aten.reshape.default", "[{\"node\":\"bmm\"},[2,8,4,4]]", VAL4)
                 CONV("c", "view", "w") OUT("[{\"node\":\"c\"}]"),
     {"c view w", "bmm c k output q view w"}},
    /* a convolution's output reaching bmm: 2.11 stops at bmm, 2.1 goes on */
    {HEAD PH("x", VAL4) PH("w", WVAL) PH("y", VAL3) CONV("c", "x", "w")
         CF("e", "aten.relu.default", "[{\"node\":\"x\"}]", VAL4)
             CF("v", "aten.reshape.default", "[{\"node\":\"c\"},[16,4,4]]", VAL3)
                 CF("bmm", "aten.bmm.default", "[{\"node\":\"v\"},{\"node\":\"y\"}]", VAL3)
                     OUT("[{\"node\":\"bmm\"},{\"node\":\"e\"}]"),
     {"c e w x", "bmm c e output v w x"}},
    /* a preferred node used by bmm before the last convolution: 2.11 skips the bmm */
    {HEAD PH("x", VAL4) PH("w1", WVAL) PH("w2", WVAL) PH("y", VAL3) CONV("c1", "x", "w1")
         CF("v", "aten.reshape.default", "[{\"node\":\"c1\"},[16,4,4]]", VAL3)
             CF("bmm", "aten.bmm.default", "[{\"node\":\"v\"},{\"node\":\"y\"}]", VAL3)
                 CONV("c2", "x", "w2") OUT("[{\"node\":\"bmm\"},{\"node\":\"c2\"}]"),
     {"c1 c2 v w1 w2 x", "bmm c1 c2 output v w1 w2 x"}},
};

static void split_sorted(const char *s, const char **out, uint32_t *n, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", s);
    *n = 0;
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
        out[(*n)++] = t;
}

static void test_prefer(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(prefer_cases) / sizeof(prefer_cases[0]); i++) {
        struct cgs_diag d = CGS_DIAG_INIT;
        struct cgs_graph *g = cgs_graph_load_json_buf(
            prefer_cases[i].json, strlen(prefer_cases[i].json), "prefer.json", &d);
        if (!g)
            fail_msg("case %zu: %s (%s)", i, d.msg, d.path);
        for (int r = 0; r < 2; r++) {
            struct cgs_layout_opts o = CGS_LAYOUT_OPTS_INIT;
            struct cgs_layout *l = NULL;
            const char *want[32], *got[32];
            char buf[512];
            uint32_t nw;
            o.rules = r ? CGS_LAYOUT_RULES_2_1 : CGS_LAYOUT_RULES_2_11;
            o.sw = CGS_LAYOUT_SWITCH_FORCE_ON;
            assert_int_equal(cgs_layout_run(g, &o, &l, &d), 0);
            split_sorted(prefer_cases[i].want[r], want, &nw, buf, sizeof(buf));
            if (nw != l->n_prefer_cl)
                fail_msg("case %zu (%s): %u preferred, want %u", i,
                         cgs_layout_rules_name(o.rules), l->n_prefer_cl, nw);
            for (uint32_t k = 0; k < nw; k++)
                got[k] = l->prefer_cl[k]->name;
            qsort(got, nw, sizeof(*got), cmp_str);
            for (uint32_t k = 0; k < nw; k++)
                assert_string_equal(got[k], want[k]);
            cgs_layout_free(l);
        }
        cgs_graph_free(g);
    }
}

/* ---- the lowering table --------------------------------------------------------------------- */

static void test_lowering_table(void **state)
{
    (void)state;
    unsigned f;
    assert_int_equal(cgs_inductor_lookup("aten.mm.default", &f), CGS_LOWER_LOWERED);
    assert_true(f & CGS_LOWERF_NEEDS_REALIZED_INPUTS);
    assert_int_equal(cgs_inductor_lookup("aten.convolution_backward.default", &f),
                     CGS_LOWER_FALLBACK);
    assert_int_equal(cgs_inductor_lookup("aten.convolution.default", &f), CGS_LOWER_LOWERED);
    assert_true(f & CGS_LOWERF_CONSTRAIN_CONV_FX_STRIDES);
    assert_int_equal(cgs_inductor_lookup("aten._scaled_mm.default", &f), CGS_LOWER_LOWERED);
    assert_true(f & CGS_LOWERF_EXACT_STRIDES);
    assert_int_equal(cgs_inductor_lookup("aten.cumsum.default", NULL), CGS_LOWER_MAYBE_FALLBACK);
    assert_int_equal(cgs_inductor_lookup("cgs.attention.default", &f), CGS_LOWER_NONE);
    assert_int_equal(f, 0u);
    assert_int_equal(cgs_inductor_lookup("operator.add", NULL), CGS_LOWER_LOWERED);
    assert_int_equal(cgs_inductor_lookup(NULL, NULL), CGS_LOWER_NONE);
    assert_true(cgs_inductor_cpp_wrapper_supports(CGS_DTYPE_BFLOAT16));
    assert_false(cgs_inductor_cpp_wrapper_supports(CGS_DTYPE_UNKNOWN));
    assert_non_null(strstr(cgs_inductor_table_version(), "2.11"));

    /* roles graph.py gives by naming ops (torch 2.11's decide_layout_opt and as_strided_ops;
     * resize_as joined as_strided_ops after 2.1) */
    cgs_inductor_lookup("aten.convolution.default", &f);
    assert_true(f & CGS_LOWERF_ROLE_CONV);
    assert_false(f & CGS_LOWERF_ROLE_CONV_BACKWARD);
    assert_int_equal(cgs_inductor_lookup("aten.resize_as.default", &f), CGS_LOWER_NONE);
    assert_true(f & CGS_LOWERF_ROLE_AS_STRIDED);
    assert_false(f & CGS_LOWERF_ROLE_AS_STRIDED_21);
    cgs_inductor_lookup("aten.as_strided.default", &f);
    assert_true((f & CGS_LOWERF_ROLE_AS_STRIDED) && (f & CGS_LOWERF_ROLE_AS_STRIDED_21));
    cgs_inductor_lookup("mkldnn._convolution_pointwise.binary", &f);
    assert_true((f & CGS_LOWERF_ROLE_MKLDNN_CONV) && (f & CGS_LOWERF_ROLE_NEEDS_FIXED_CL));
    /* FALLBACK_ALLOW_LIST names packets: every overload of torchvision.roi_align */
    assert_int_equal(cgs_inductor_lookup("torchvision.roi_align.default", &f), CGS_LOWER_NONE);
    assert_true(f & CGS_LOWERF_FALLBACK_ALLOWED);
    cgs_inductor_lookup("torchvision.roi_align_x.default", &f);
    assert_false(f & CGS_LOWERF_FALLBACK_ALLOWED);
}

static void test_fallbacks(void **state)
{
    (void)state;
    /* the kinds behind the fallbacks torch made on the recorded graphs */
    static const struct {
        const char *graph, *node;
        enum cgs_fallback_kind kind;
        enum cgs_input_constraint constraint;
    } want[] = {
        {"probe-train-bwd", "convolution_backward", CGS_FALLBACK_KERNEL, CGS_CONSTRAINT_NONE},
        {"probe-infer2", "scale2", CGS_FALLBACK_IMPLICIT, CGS_CONSTRAINT_EXACT_STRIDES},
        {"probe-infer2", "mul_4", CGS_FALLBACK_UNSUPPORTED, CGS_CONSTRAINT_NONE},
        {"probe-infer2", "view_as_real", CGS_FALLBACK_UNSUPPORTED, CGS_CONSTRAINT_NONE},
        {"probe-infer2", "convert_element_type_2", CGS_FALLBACK_KERNEL, CGS_CONSTRAINT_NONE},
        {"probe-infer2", "cat", CGS_FALLBACK_NONE, CGS_CONSTRAINT_NONE},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        char path[256];
        struct cgs_diag d = CGS_DIAG_INIT;
        struct cgs_layout *l = NULL;
        snprintf(path, sizeof(path), "tests/data/layout/%s.json", want[i].graph);
        struct cgs_graph *g = cgs_graph_load_json(path, &d);
        assert_non_null(g);
        assert_int_equal(cgs_layout_run(g, NULL, &l, &d), 0);
        const struct cgs_node *n = cgs_graph_find(g, want[i].node);
        assert_non_null(n);
        assert_int_equal(l->nodes[n->index].fallback, want[i].kind);
        assert_int_equal(l->nodes[n->index].constraint, want[i].constraint);
        cgs_layout_free(l);
        cgs_graph_free(g);
    }
}

static void test_options(void **state)
{
    (void)state;
    assert_int_equal(cgs_layout_rules_from_name("torch-2.11"), CGS_LAYOUT_RULES_2_11);
    assert_int_equal(cgs_layout_rules_from_name("torch-2.1"), CGS_LAYOUT_RULES_2_1);
    assert_int_equal(cgs_layout_rules_from_name("torch-1.0"), -1);
    assert_string_equal(cgs_layout_rule_id(R(FLOP_VOTE)), "flop_vote");
    assert_string_equal(cgs_layout_rule_id(CGS_LAYOUT_RULE_COUNT), "?");
    struct cgs_layout *l = (struct cgs_layout *)1;
    struct cgs_diag d = CGS_DIAG_INIT;
    assert_int_equal(cgs_layout_run(NULL, NULL, &l, &d), -CGS_E_INVAL);
    assert_null(l);
    cgs_layout_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),   cmocka_unit_test(test_probe_strides),
        cmocka_unit_test(test_rules),      cmocka_unit_test(test_reason_text),
        cmocka_unit_test(test_dynamic),    cmocka_unit_test(test_inferred_values),
        cmocka_unit_test(test_prefer),
        cmocka_unit_test(test_lowering_table), cmocka_unit_test(test_fallbacks),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests_name("layout", tests, NULL, NULL);
}
