/*
 * Pictures (viz/dot.c): render fixtures, read the DOT back with cgraph and
 * check clusters, nodes, edges and labels against what PyTorch decided (the
 * split and layout sidecars in ../shared/fixtures); SVG is well-formed with
 * one cluster per piece; PNG is a real PNG; the same input renders to the
 * same bytes; the collapsed views fold repeats; the profile overlay colours.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/buf.h"
#include "lib/passes/layout.h"
#include "lib/readers/load.h"
#include "lib/passes/shapes.h"
#include "lib/passes/split.h"
#include "viz/dot.h"
#include "tests/tgraph.h"

/* ---- helpers ----------------------------------------------------------------------------------
 */

struct pic {
    struct cgs_graph *g;
    struct cgs_split *s;
    struct cgs_layout *lay;
    struct cgs_shapes *sh;
    Agraph_t *dg;
    struct cgs_dot_stats st;
};

/* The fixtures' folder; a test that needs them skips, as the other suites do, without it. */
static const char *fixture_path(char *path, size_t n, const char *rel)
{
    const char *env = getenv("FIXTURES");
    snprintf(path, n, "%s/%s", env && *env ? env : FIXTURES_DIR, rel);
    if (access(path, R_OK) != 0)
        skip();
    return path;
}

static struct cgs_graph *load(const char *rel)
{
    char path[1024];
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g;
    fixture_path(path, sizeof(path), rel);
    g = cgs_graph_load(path, NULL, &d);
    if (!g)
        fail_msg("%s: %s", path, d.msg);
    return g;
}

static cJSON *read_json(const char *rel)
{
    char path[1024], *buf = NULL;
    size_t len = 0;
    struct cgs_diag d = CGS_DIAG_INIT;
    cJSON *j;
    fixture_path(path, sizeof(path), rel);
    if (cgs_read_file(path, &buf, &len, (size_t)1 << 30, &d) < 0)
        fail_msg("%s: %s", path, d.msg);
    j = cJSON_ParseWithLength(buf, len);
    free(buf);
    assert_non_null(j);
    return j;
}

/* Load, split at op (NULL: no split), and build a picture in view. */
static void pic_make(struct pic *p, const char *rel, const char *op, enum cgs_dot_view view,
                     bool no_fold)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_dot_opts o = {0};
    memset(p, 0, sizeof(*p));
    p->g = load(rel);
    if (op) {
        const char *ops[] = {op};
        struct cgs_split_opts so = {CGS_SPLIT_MAGI, ops, 1};
        assert_int_equal(cgs_split_run(p->g, &so, &p->s, &d), 0);
    }
    if (p->g->producer.stage == CGS_STAGE_POST_GRAD) {
        struct cgs_layout_opts lo = CGS_LAYOUT_OPTS_INIT;
        assert_int_equal(cgs_layout_run(p->g, &lo, &p->lay, &d), 0);
    }
    if (view == CGS_DOT_VIEW_FULL) {
        struct cgs_shapes_opts so = {.reinfer = false};
        assert_int_equal(cgs_shapes_infer(p->g, &so, &p->sh, &d), 0);
    }
    o.view = view;
    o.no_fold = no_fold;
    o.split = p->s;
    o.layout = p->lay;
    o.shapes = p->sh;
    p->dg = cgs_dot_build(p->g, &o, &p->st, &d);
    if (!p->dg)
        fail_msg("build: %s", d.msg);
}

static void pic_free(struct pic *p)
{
    if (p->dg)
        agclose(p->dg);
    cgs_layout_free(p->lay);
    cgs_graph_free(p->g);
}

static char *render(Agraph_t *dg, const char *fmt, size_t *len)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    char *data = NULL;
    if (cgs_dot_render(dg, fmt, &data, len, &d) < 0)
        fail_msg("render %s: %s", fmt, d.msg);
    return data;
}

/* The picture as DOT, read back by cgraph. */
static Agraph_t *read_back(Agraph_t *dg)
{
    size_t len;
    char *text = render(dg, "dot", &len);
    Agraph_t *back = agmemread(text);
    free(text);
    assert_non_null(back);
    return back;
}

static const char *attr(void *obj, const char *name)
{
    const char *v = gv_get(obj, name);
    return v ? v : "";
}

static bool has(const char *hay, const char *needle)
{
    return hay && strstr(hay, needle) != NULL;
}

static unsigned count_clusters(Agraph_t *g)
{
    unsigned n = 0;
    for (Agraph_t *s = agfstsubg(g); s; s = agnxtsubg(s))
        n += !strncmp(agnameof(s), "cluster_", 8);
    return n;
}

/* Occurrences of needle in a NUL-terminated text. */
static size_t count_str(const char *hay, size_t len, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    (void)len;
    for (const char *p = hay; (p = strstr(p, needle)); p += k)
        n++;
    return n;
}

/* ---- full view against torch's split
 * -------------------------------------------------------------- */

static void check_split_clusters(const char *graph, const char *sidecar, const char *op)
{
    struct pic p;
    cJSON *side = read_json(sidecar), *pieces = cJSON_GetObjectItem(side, "pieces"), *pc;
    Agraph_t *back;
    unsigned n_pieces = (unsigned)cJSON_GetArraySize(pieces);

    pic_make(&p, graph, op, CGS_DOT_VIEW_FULL, false);
    back = read_back(p.dg);
    // one cluster per piece torch made, named cluster_<piece>, holding its nodes
    assert_int_equal(count_clusters(back), n_pieces);
    assert_int_equal(p.st.clusters, n_pieces);
    cJSON_ArrayForEach(pc, pieces)
    {
        char name[128];
        const char *pname = cJSON_GetObjectItem(pc, "name")->valuestring;
        bool splitting = cJSON_IsTrue(cJSON_GetObjectItem(pc, "is_splitting_graph"));
        Agraph_t *cl;
        cJSON *nd;
        snprintf(name, sizeof(name), "cluster_%s", pname);
        cl = gv_find_subg(back, name);
        if (!cl)
            fail_msg("%s: no %s", graph, name);
        // splitting pieces are dashed and orange, compiled ones solid and blue
        assert_true(has(attr(cl, "style"), "dashed") == splitting);
        assert_true(has(attr(cl, "label"), pname));
        assert_true(has(attr(cl, "label"), splitting ? "splitting" : "compiled"));
        cJSON_ArrayForEach(nd, cJSON_GetObjectItem(pc, "nodes"))
        {
            if (!gv_find_node(cl, nd->valuestring))
                fail_msg("%s: node %s not in %s", graph, nd->valuestring, name);
        }
    }
    agclose(back);
    cJSON_Delete(side);
    pic_free(&p);
}

static void test_full_clusters_transformer(void **state)
{
    (void)state;
    check_split_clusters("dynamo/cgs_transformer_dyn.json",
                         "dynamo/cgs_transformer_dyn.split-attn.json", "cgs.attention");
}

static void test_full_clusters_gpt2(void **state)
{
    (void)state;
    check_split_clusters("dynamo/gpt2_tiny.json", "dynamo/gpt2_tiny.split-attn.json",
                         "torch._C._nn.scaled_dot_product_attention");
}

static void test_full_clusters_resnet(void **state)
{
    (void)state;
    check_split_clusters("dynamo/resnet18_eval.json", "dynamo/resnet18_eval.split-k2.json",
                         "torch.conv2d");
}

/* Nodes, edges and labels of the transformer sample (values as torch recorded them). */
static void test_full_nodes_edges(void **state)
{
    struct pic p;
    Agraph_t *back;
    Agnode_t *a, *q, *lin, *out, *view;
    Agedge_t *e;
    (void)state;

    pic_make(&p, "dynamo/cgs_transformer_dyn.json", "cgs.attention", CGS_DOT_VIEW_FULL, false);
    back = read_back(p.dg);
    a = gv_find_node(back, "a");
    q = gv_find_node(back, "q");
    lin = gv_find_node(back, "linear_16");
    out = gv_find_node(back, "output");
    view = gv_find_node(back, "view");
    assert_non_null(a);
    assert_non_null(q);
    assert_non_null(lin);
    assert_non_null(out);
    assert_non_null(view);
    // label: name, short target, output value
    assert_true(has(attr(a, "label"), "<B>a</B>"));
    assert_true(has(attr(a, "label"), "cgs.attention"));
    assert_true(has(attr(a, "label"), "f32[s23, 4, s27, 32]"));
    assert_true(has(attr(lin, "label"), ">linear<"));
    assert_true(has(attr(lin, "label"), "f32[s23, s27, 512]"));
    // the head's weight is folded into its user's label, not drawn as a node
    assert_true(has(attr(lin, "label"), "weight f32[512, 128]"));
    assert_null(gv_find_node(back, "l_self_modules_head_parameters_weight_"));
    // sizes are not nodes
    assert_null(gv_find_node(back, "s23"));
    // stable ids and tooltips with the source line and the split reason
    assert_string_equal(attr(a, "id"), "n:a");
    assert_true(has(attr(a, "tooltip"), "models.py:587"));
    assert_true(has(attr(a, "tooltip"), "cgs.attention"));
    assert_true(has(attr(a, "tooltip"), "split:"));
    // edges: q -> a crosses pieces (submod_0 -> submod_1), bold and red
    e = agedge(back, q, a, NULL, 0);
    assert_non_null(e);
    assert_string_equal(attr(e, "label"), "f32[s23, 4, s27, 32]");
    assert_string_equal(attr(e, "class"), "cross");
    assert_string_equal(attr(e, "id"), "e:q:a");
    assert_true(has(attr(e, "tooltip"), "crosses from submod_0 to submod_1"));
    // linear_16 -> output inside the last piece is not emphasised
    e = agedge(back, lin, out, NULL, 0);
    assert_non_null(e);
    assert_string_equal(attr(e, "label"), "f32[s23, s27, 512]");
    assert_string_not_equal(attr(e, "class"), "cross");
    // every use between drawn nodes is an edge
    for (uint32_t i = 0; i < p.g->n_nodes; i++) {
        const struct cgs_node *n = p.g->nodes[i];
        Agnode_t *h = gv_find_node(back, n->name);
        if (!h)
            continue;
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            Agnode_t *t = gv_find_node(back, n->inputs[k]->name);
            if (t && !agedge(back, t, h, NULL, 0))
                fail_msg("no edge %s -> %s", n->inputs[k]->name, n->name);
        }
    }
    // the legend and title are the graph's label
    assert_true(has(attr(back, "label"), "9 pieces (5 compiled, 4 splitting)"));
    assert_true(has(attr(back, "label"), "compiled piece"));
    agclose(back);
    pic_free(&p);
}

/* Channels-last marks match Inductor's own preference list (post-grad fixture). */
static void test_full_channels_last(void **state)
{
    struct pic p;
    cJSON *side = read_json("post_grad/tiny_cnn_eval.layout.json"), *it;
    Agraph_t *back;
    unsigned marked = 0, listed = 0;
    (void)state;

    pic_make(&p, "post_grad/tiny_cnn_eval.json", NULL, CGS_DOT_VIEW_FULL, false);
    back = read_back(p.dg);
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(side, "prefer_channels_last"))
    {
        Agnode_t *n = gv_find_node(back, it->valuestring);
        listed++;
        if (!n)
            continue;
        if (!has(attr(n, "label"), "channels-last"))
            fail_msg("%s prefers channels last in torch, not marked", it->valuestring);
    }
    for (Agnode_t *n = agfstnode(back); n; n = agnxtnode(back, n))
        marked += has(attr(n, "label"), "channels-last");
    assert_int_equal(listed, 74);
    // drawn nodes marked are exactly the drawn nodes torch lists
    {
        unsigned drawn_listed = 0;
        cJSON_ArrayForEach(it, cJSON_GetObjectItem(side, "prefer_channels_last")) drawn_listed +=
            gv_find_node(back, it->valuestring) != NULL;
        assert_int_equal(marked, drawn_listed);
    }
    agclose(back);
    cJSON_Delete(side);
    pic_free(&p);
}

/* Unknown ops and lint findings are flagged, with the reason in the tooltip. */
static void test_full_flags(void **state)
{
    struct tgraph t;
    struct cgs_diag d = CGS_DIAG_INIT;
    tg_begin(&t, "dynamo", NULL, NULL);
    tg_ph(&t, "x", TG_F32("4, 8"));
    tg_call(&t, "w", "mylib.weird_op", "[{\"node\": \"x\"}]", TG_F32("4, 8"));
    tg_call(&t, "c", "torch.relu", "[{\"node\": \"w\"}]", TG_F32_CPU("4, 8"));
    struct cgs_graph *g = tg_end(&t, "[{\"node\": \"c\"}]", NULL);
    struct cgs_split *s = NULL;
    struct cgs_shapes *sh = NULL;
    struct cgs_dot_opts o = {0};
    struct cgs_dot_stats st;
    struct cgs_split_opts so = {CGS_SPLIT_MAGI, NULL, 0};
    struct cgs_shapes_opts sho = {.reinfer = false};
    Agraph_t *dg, *back;
    Agnode_t *w, *c;
    (void)state;

    assert_non_null(g);
    assert_int_equal(cgs_split_run(g, &so, &s, &d), 0);
    assert_int_equal(cgs_shapes_infer(g, &sho, &sh, &d), 0);
    o.split = s;
    o.shapes = sh;
    dg = cgs_dot_build(g, &o, &st, &d);
    assert_non_null(dg);
    back = read_back(dg);
    w = gv_find_node(back, "w");
    c = gv_find_node(back, "c");
    assert_true(has(attr(w, "label"), "! unknown op"));
    assert_true(has(attr(w, "tooltip"), "unknown op"));
    assert_string_equal(attr(w, "penwidth"), "2.5");
    // a CPU tensor inside a CUDA piece is a lint finding (a warning: orange)
    assert_true(has(attr(c, "label"), "! cpu_tensor"));
    assert_true(has(attr(c, "tooltip"), "lint cpu_tensor: 'c' (torch.relu) computes a CPU tensor"));
    assert_string_equal(attr(c, "color"), "#EF6C00");
    assert_int_equal(st.flagged, 2);
    agclose(back);
    agclose(dg);
    cgs_graph_free(g);
}

/* ---- formats
 * -------------------------------------------------------------------------------------- */

static void test_svg_clusters(void **state)
{
    struct pic p;
    size_t len;
    char *svg;
    (void)state;

    pic_make(&p, "dynamo/cgs_transformer_dyn.json", "cgs.attention", CGS_DOT_VIEW_FULL, false);
    svg = render(p.dg, "svg", &len);
    assert_true(len > 1000);
    assert_true(!strncmp(svg, "<?xml", 5));
    assert_true(has(svg, "</svg>"));
    // one <g ... class="cluster"> per piece torch made (9), each with its stable id
    assert_int_equal(count_str(svg, len, "class=\"cluster\""), 9);
    assert_true(has(svg, "<g id=\"cluster_submod_3\" class=\"cluster\">"));
    assert_true(has(svg, "id=\"n:a\""));
    // multi-line tooltips with the source line
    assert_true(has(svg, "models.py:587"));
    // well-formed XML, when xmllint is here to say so
    if (system("command -v xmllint >/dev/null 2>&1") == 0) {
        char path[] = "/tmp/cgs-test-dot-XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fdopen(fd, "wb");
        char cmd[256];
        assert_non_null(f);
        assert_int_equal(fwrite(svg, 1, len, f), len);
        fclose(f);
        snprintf(cmd, sizeof(cmd), "xmllint --noout --nonet '%s' 2>/dev/null", path);
        assert_int_equal(system(cmd), 0);
        unlink(path);
    } else {
        // balanced cluster groups at least: every <g opens and closes
        assert_int_equal(count_str(svg, len, "<g "), count_str(svg, len, "</g>"));
    }
    free(svg);
    pic_free(&p);
}

static void test_png_pdf(void **state)
{
    struct pic p;
    size_t len;
    char *png, *pdf;
    (void)state;

    pic_make(&p, "dynamo/cgs_transformer_dyn.json", "cgs.attention", CGS_DOT_VIEW_PIECES, false);
    {
        /* before a PNG: a multi-line box label and edge label have no gap lines */
        Agnode_t *b = gv_find_node(p.dg, "submod_0");
        assert_non_null(b);
        assert_true(has(attr(b, "label"), "<BR"));
        assert_false(has(attr(b, "label"), "POINT-SIZE=\"2\""));
    }
    png = render(p.dg, "png", &len);
    assert_true(len > 10000);
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    free(png);
    {
        /* a PNG's labels get a 2-point line between their lines (cairo's underscores touched
           the next line), on boxes and on multi-line edge labels alike */
        Agnode_t *b = gv_find_node(p.dg, "submod_0");
        bool edge_gap = false;
        assert_true(has(attr(b, "label"), "/><FONT POINT-SIZE=\"2\"> </FONT><BR"));
        for (Agedge_t *e = agfstout(p.dg, b); e; e = agnxtout(p.dg, e))
            edge_gap = edge_gap || has(attr(e, "label"), "<BR/><FONT POINT-SIZE=\"2\"> </FONT><BR/>");
        assert_true(edge_gap);
    }
    pdf = render(p.dg, "pdf", &len);
    assert_true(len > 1000);
    assert_memory_equal(pdf, "%PDF-", 5);
    free(pdf);
    pic_free(&p);
}

static void test_determinism(void **state)
{
    static const char *const fmts[] = {"dot", "svg"};
    (void)state;
    for (int view = CGS_DOT_VIEW_FULL; view <= CGS_DOT_VIEW_MODULE; view++)
        for (size_t f = 0; f < 2; f++) {
            struct pic p1, p2;
            size_t l1, l2;
            char *a, *b;
            pic_make(&p1, "dynamo/gpt2_tiny.json", "torch._C._nn.scaled_dot_product_attention",
                     (enum cgs_dot_view)view, false);
            pic_make(&p2, "dynamo/gpt2_tiny.json", "torch._C._nn.scaled_dot_product_attention",
                     (enum cgs_dot_view)view, false);
            a = render(p1.dg, fmts[f], &l1);
            b = render(p2.dg, fmts[f], &l2);
            assert_int_equal(l1, l2);
            assert_memory_equal(a, b, l1);
            // no addresses in ids
            assert_false(has(a, "0x"));
            free(a);
            free(b);
            pic_free(&p1);
            pic_free(&p2);
        }
}

/*
 * A training graph full of long edges (activations saved for backward): edge
 * labels there take dot minutes and crashed Graphviz 2.42's router with the
 * fusion policy's clusters. They move to tooltips, dot's passes are capped,
 * and the picture renders.
 */
static void test_full_long_edges(void **state)
{
    struct pic p;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_split_opts so = {CGS_SPLIT_FUSION, NULL, 0};
    struct cgs_dot_opts o = {0};
    Agraph_t *back;
    Agnode_t *n;
    size_t len;
    char *svg;
    unsigned labelled = 0, edges = 0;
    (void)state;

    memset(&p, 0, sizeof(p));
    p.g = load("post_grad/unet_small_train.fwd.json");
    assert_int_equal(cgs_split_run(p.g, &so, &p.s, &d), 0);
    o.split = p.s;
    p.dg = cgs_dot_build(p.g, &o, &p.st, &d);
    assert_non_null(p.dg);
    back = read_back(p.dg);
    for (n = agfstnode(back); n; n = agnxtnode(back, n))
        for (Agedge_t *e = agfstout(back, n); e; e = agnxtout(back, e)) {
            edges++;
            labelled += *attr(e, "label") != 0;
            assert_true(has(attr(e, "tooltip"), " -> "));
        }
    assert_true(edges > 300);
    assert_int_equal(labelled, 0);
    assert_string_equal(attr(back, "splines"), "line");
    assert_true(has(attr(back, "label"), "edge shapes in tooltips"));
    agclose(back);
    svg = render(p.dg, "svg", &len);
    assert_true(has(svg, "</svg>"));
    assert_int_equal(count_str(svg, len, "class=\"cluster\""), p.s->n_pieces);
    free(svg);
    pic_free(&p);
}

static void test_formats(void **state)
{
    (void)state;
    assert_string_equal(cgs_dot_format_from_path("out/x.svg"), "svg");
    assert_string_equal(cgs_dot_format_from_path("x.png"), "png");
    assert_string_equal(cgs_dot_format_from_path("x.pdf"), "pdf");
    assert_string_equal(cgs_dot_format_from_path("x.dot"), "dot");
    assert_null(cgs_dot_format_from_path("x.jpeg"));
    assert_null(cgs_dot_format_from_path("dir.svg/x"));
    assert_true(cgs_dot_format_known("svg"));
    assert_false(cgs_dot_format_known("gif"));
    {
        struct pic p;
        struct cgs_diag d = CGS_DIAG_INIT;
        char *data = NULL;
        size_t len = 0;
        pic_make(&p, "dynamo/tiny_cnn_eval.json", NULL, CGS_DOT_VIEW_FULL, false);
        assert_true(cgs_dot_render(p.dg, "gif", &data, &len, &d) < 0);
        assert_null(data);
        assert_true(has(d.msg, "unknown picture format 'gif'"));
        pic_free(&p);
    }
}

/* ---- collapsed views
 * ----------------------------------------------------------------------------- */

static void test_collapse_pieces(void **state)
{
    struct pic p;
    cJSON *side = read_json("dynamo/cgs_transformer_dyn.split-attn.json"), *pc;
    Agraph_t *back;
    (void)state;

    // unfolded: one box per piece torch made, with its node count and inputs
    pic_make(&p, "dynamo/cgs_transformer_dyn.json", "cgs.attention", CGS_DOT_VIEW_PIECES, true);
    back = read_back(p.dg);
    assert_int_equal(p.st.boxes, 9);
    cJSON_ArrayForEach(pc, cJSON_GetObjectItem(side, "pieces"))
    {
        const char *name = cJSON_GetObjectItem(pc, "name")->valuestring;
        int nn = cJSON_GetArraySize(cJSON_GetObjectItem(pc, "nodes"));
        Agnode_t *b = gv_find_node(back, name);
        char want[64];
        if (!b)
            fail_msg("no box %s", name);
        snprintf(want, sizeof(want), "%d node%s", nn, nn == 1 ? "" : "s");
        assert_true(has(attr(b, "label"), want));
        assert_true(has(attr(b, "label"), "in: "));
        assert_true(has(attr(b, "label"), "out:"));
    }
    // submod_0's outputs q, k, v go to submod_1
    assert_non_null(
        agedge(back, gv_find_node(back, "submod_0"), gv_find_node(back, "submod_1"), NULL, 0));
    assert_int_equal(count_clusters(back), 0);
    agclose(back);
    pic_free(&p);

    // folded: the three identical (attention, layer) pairs are drawn once, x3
    pic_make(&p, "dynamo/cgs_transformer_dyn.json", "cgs.attention", CGS_DOT_VIEW_PIECES, false);
    back = read_back(p.dg);
    assert_int_equal(p.st.boxes, 5);
    assert_int_equal(p.st.folded, 4);
    assert_true(has(attr(gv_find_node(back, "submod_1"), "label"), "submod_5</B>, x3"));
    assert_true(has(attr(gv_find_node(back, "submod_2"), "label"), "submod_6</B>, x3"));
    assert_string_equal(attr(gv_find_node(back, "submod_2"), "peripheries"), "2");
    assert_null(gv_find_node(back, "submod_4"));
    agclose(back);
    cJSON_Delete(side);
    pic_free(&p);
}

static void test_collapse_module(void **state)
{
    struct pic p;
    Agraph_t *back;
    unsigned boxes = 0;
    (void)state;

    // gpt2: transformer.h.0 .. h.1 fold into one box at the automatic depth
    pic_make(&p, "dynamo/cgs_transformer_dyn.json", NULL, CGS_DOT_VIEW_MODULE, false);
    back = read_back(p.dg);
    assert_int_equal(p.st.module_depth, 2);
    for (Agnode_t *n = agfstnode(back); n; n = agnxtnode(back, n))
        boxes += agnameof(n)[0] == 'm';
    assert_int_equal(boxes, p.st.boxes);
    {
        bool found = false;
        for (Agnode_t *n = agfstnode(back); n; n = agnxtnode(back, n))
            found |= has(attr(n, "label"), "blocks.0 .. blocks.3</B>, x4");
        assert_true(found);
    }
    agclose(back);
    pic_free(&p);
}

/* A large synthetic graph collapses to a handful of boxes (folding + ranges). */
static void test_collapse_large(void **state)
{
    struct cgs_buf b = CGS_BUF_INIT;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g;
    struct cgs_split *s = NULL;
    const char *ops[] = {"aten.relu"};
    struct cgs_split_opts so = {CGS_SPLIT_MAGI, ops, 1};
    struct cgs_dot_opts o = {0};
    struct cgs_dot_stats st;
    Agraph_t *dg;
    const int N = 3000;
    (void)state;

    // x -> (mm, relu) x N, alternating
    struct tgraph t;
    char name[32];
    tg_begin(&t, "dynamo", NULL, NULL);
    tg_ph(&t, "x0", TG_F32("8, 8"));
    for (int i = 0; i < N; i++) {
        cgs_buf_reset(&b);
        cgs_buf_addf(&b, "[{\"node\": \"x%d\"}, {\"node\": \"x%d\"}]", i, i);
        snprintf(name, sizeof(name), "m%d", i);
        tg_call(&t, name, "aten.mm.default", b.buf, TG_F32("8, 8"));
        cgs_buf_reset(&b);
        cgs_buf_addf(&b, "[{\"node\": \"m%d\"}]", i);
        snprintf(name, sizeof(name), "x%d", i + 1);
        tg_call(&t, name, "aten.relu.default", b.buf, TG_F32("8, 8"));
    }
    cgs_buf_reset(&b);
    cgs_buf_addf(&b, "[{\"node\": \"x%d\"}]", N);
    g = tg_end(&t, b.buf, NULL);
    assert_non_null(g);
    assert_int_equal(cgs_split_run(g, &so, &s, &d), 0);
    assert_int_equal(s->n_pieces, 2 * N);
    o.view = CGS_DOT_VIEW_PIECES;
    o.split = s;
    dg = cgs_dot_build(g, &o, &st, &d);
    assert_non_null(dg);
    // (mm piece, relu piece) x N: two boxes, x3000 each
    assert_int_equal(st.boxes, 2);
    assert_int_equal(st.folded, 2 * N - 2);
    agclose(dg);
    // without folding: ranges keep the picture under max_boxes
    o.no_fold = true;
    o.max_boxes = 50;
    dg = cgs_dot_build(g, &o, &st, &d);
    assert_non_null(dg);
    assert_true(st.boxes <= 50);
    assert_int_equal(st.merged, 2 * N);
    agclose(dg);
    cgs_graph_free(g);
    cgs_buf_release(&b);
}

static void test_pieces_view_needs_split(void **state)
{
    struct cgs_graph *g = load("dynamo/tiny_cnn_eval.json");
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_dot_opts o = {0};
    (void)state;
    o.view = CGS_DOT_VIEW_PIECES;
    assert_null(cgs_dot_build(g, &o, NULL, &d));
    assert_int_equal(d.code, CGS_E_INVAL);
    cgs_graph_free(g);
}

/* ---- profile overlay
 * ------------------------------------------------------------------------------ */

static void test_profile(void **state)
{
    static const char report[] =
        "{\"pieces\": [{\"name\": \"submod_0\", \"kernels\": 12, \"gpu_ns\": 500000},\n"
        "              {\"name\": \"submod_2\", \"kernels\": 30, \"gpu_ns\": 4000},\n"
        "              {\"name\": \"submod_99\", \"kernels\": 1, \"gpu_ns\": 1}],\n"
        " \"kernels\": 43, \"gpu_ns\": 1000000}";
    struct cgs_prof_summary *prof = NULL;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_dot_opts o = {0};
    struct cgs_dot_stats st;
    struct pic p;
    Agraph_t *dg, *back;
    (void)state;

    // the fixture first: pic_make skips the test when it is absent, which must leak nothing
    pic_make(&p, "dynamo/cgs_transformer_dyn.json", "cgs.attention", CGS_DOT_VIEW_FULL, false);
    assert_int_equal(cgs_prof_summary_parse(report, sizeof(report) - 1, "r.json", &prof, &d), 0);
    assert_int_equal(prof->n_pieces, 3);
    assert_int_equal(prof->gpu_ns, 1000000);
    o.split = p.s;
    o.profile = prof;
    dg = cgs_dot_build(p.g, &o, &st, &d);
    assert_non_null(dg);
    assert_int_equal(st.profile_unmatched, 1);
    back = read_back(dg);
    // half the GPU time: the hottest colour; 0.4 %: the coolest; none: grey
    assert_string_equal(attr(gv_find_subg(back, "cluster_submod_0"), "fillcolor"), "#BD0026");
    assert_true(has(attr(gv_find_subg(back, "cluster_submod_0"), "label"), "50.0%"));
    assert_string_equal(attr(gv_find_subg(back, "cluster_submod_2"), "fillcolor"), "#FFFFCC");
    assert_string_equal(attr(gv_find_subg(back, "cluster_submod_1"), "fillcolor"), "#FAFAFA");
    assert_true(has(attr(back, "label"), "GPU &gt;= 40%"));
    agclose(back);
    agclose(dg);
    pic_free(&p);
    cgs_prof_summary_free(prof);

    // bad reports: place and path
    assert_true(cgs_prof_summary_parse("{\"pieces\": [}", 13, "r.json", &prof, &d) < 0);
    assert_int_equal(d.code, CGS_E_PARSE);
    assert_int_equal(d.line, 1);
    assert_null(prof);
    cgs_diag_clear(&d);
    assert_true(cgs_prof_summary_parse("{\"pieces\": [{\"name\": \"a\", \"kernels\": 1}], "
                                      "\"kernels\": 1, \"gpu_ns\": 1}",
                                      68, "r.json", &prof, &d) < 0);
    assert_int_equal(d.code, CGS_E_SCHEMA);
    assert_string_equal(d.path, "pieces[0].gpu_ns");
    cgs_diag_clear(&d);
    assert_true(cgs_prof_summary_parse("[]", 2, "r.json", &prof, &d) < 0);
    assert_int_equal(d.code, CGS_E_SCHEMA);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_clusters_transformer),
        cmocka_unit_test(test_full_clusters_gpt2),
        cmocka_unit_test(test_full_clusters_resnet),
        cmocka_unit_test(test_full_nodes_edges),
        cmocka_unit_test(test_full_channels_last),
        cmocka_unit_test(test_full_flags),
        cmocka_unit_test(test_full_long_edges),
        cmocka_unit_test(test_svg_clusters),
        cmocka_unit_test(test_png_pdf),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_collapse_pieces),
        cmocka_unit_test(test_collapse_module),
        cmocka_unit_test(test_collapse_large),
        cmocka_unit_test(test_pieces_view_needs_split),
        cmocka_unit_test(test_profile),
    };
    return cmocka_run_group_tests_name("dot", tests, NULL, NULL);
}
