/*
 * Pictures through cgraph/gvc (see dot.h). Layout of this file:
 *   text helpers (short dtypes, values, targets, HTML escapes, stack lines)
 *   the profile overlay (heat colours; the report JSON reader is lib/run/prof.c)
 *   the full view (clusters, nodes, edges, legend)
 *   the collapsed views (groups, signatures, folding, ranges, boxes)
 *   rendering (gvc into memory; Graphviz messages captured, never printed)
 */
#define _GNU_SOURCE /* dladdr: where libgvc, and so Graphviz's plugin folder, is */
#include "viz/dot.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/base/strmap.h"
#include "lib/readers/load.h"
#include "lib/readers/pyframe.h"
#include "lib/ops/ops.h"
#include "lib/writers/report-json.h"

/* ---- palette ------------------------------------------------------------------------------ */

#define FONT            "Helvetica"
#define COL_COMPILED_BG "#EEF4FC"
#define COL_COMPILED_FG "#3567A8"
#define COL_SPLIT_BG    "#FFF3E0"
#define COL_SPLIT_FG    "#D9822B"
#define COL_SPLITOP_BG  "#FFD9A8"
#define COL_MODULE_BG   "#F1F3F4"
#define COL_MODULE_FG   "#5F6B7A"
#define COL_NODE_FG     "#7A8794"
#define COL_INPUT_BG    "#E5F4E9"
#define COL_INPUT_FG    "#2E7D46"
#define COL_PARAM_BG    "#F4F4F4"
#define COL_SYM_FG      "#9AA0A6"
#define COL_OUTPUT_BG   "#EDE7F6"
#define COL_OUTPUT_FG   "#5E35B1"
#define COL_CL_FG       "#8E24AA"
#define COL_ERR_FG      "#D32F2F"
#define COL_WARN_FG     "#EF6C00"
#define COL_CROSS       "#C62828"
#define COL_EDGE        "#78909C"
#define COL_EDGE_TEXT   "#546E7A"
#define COL_SHAPE_TEXT  "#1F4E8C"
#define COL_MUTED       "#616161"
#define DOT_SEP         " \xc2\xb7 " /* " · " */

/* Heat scale for GPU time (ColorBrewer YlOrRd), by share of the report's total. */
static const char *const heat_bg[] = {"#FFFFCC", "#FFEDA0", "#FED976", "#FEB24C",
                                      "#FD8D3C", "#F03B20", "#BD0026"};
static const double heat_min_share[] = {0.0, 0.01, 0.025, 0.05, 0.10, 0.20, 0.40};
#define N_HEAT       (sizeof(heat_bg) / sizeof(heat_bg[0]))
#define HEAT_NONE_BG "#FAFAFA"

/* ---- text helpers --------------------------------------------------------------------------- */

static void dtype_short(enum cgs_dtype dt, struct cgs_buf *b)
{
    cgs_buf_addstr(b, cgs_dtype_abbr(dt));
}

static void tensor_text(const struct cgs_tensor *t, struct cgs_buf *b)
{
    dtype_short(t->dtype, b);
    if (t->ndim == CGS_NDIM_UNKNOWN) {
        cgs_buf_addstr(b, "[...]");
    } else {
        cgs_buf_addch(b, '[');
        for (uint32_t i = 0; i < t->ndim; i++) {
            if (i)
                cgs_buf_addstr(b, ", ");
            if (t->shape && t->shape[i])
                cgs_sym_print(t->shape[i], b);
            else
                cgs_buf_addch(b, '?');
        }
        cgs_buf_addch(b, ']');
    }
    if (t->device && strncmp(t->device, "cuda", 4)) {
        cgs_buf_addch(b, '@');
        cgs_buf_addstr(b, t->device);
    }
}

/* A value in one short line; lists show their first items (one level deep). */
static void val_text(const struct cgs_val *v, struct cgs_buf *b)
{
    if (!v)
        return;
    switch (v->kind) {
    case CGS_VAL_NONE:
        cgs_buf_addstr(b, "None");
        break;
    case CGS_VAL_TENSOR:
        tensor_text(&v->u.t, b);
        break;
    case CGS_VAL_SYMINT:
        cgs_buf_addstr(b, "SymInt ");
        if (v->u.s.sym)
            cgs_sym_print(v->u.s.sym, b);
        break;
    case CGS_VAL_SYMFLOAT:
        cgs_buf_addf(b, "SymFloat %s", v->u.s.text ? v->u.s.text : "?");
        break;
    case CGS_VAL_SYMBOOL:
        cgs_buf_addf(b, "SymBool %s", v->u.s.text ? v->u.s.text : "?");
        break;
    case CGS_VAL_INT:
        cgs_buf_addint(b, (long long)v->u.i);
        break;
    case CGS_VAL_FLOAT:
        cgs_buf_addf(b, "%g", v->u.f);
        break;
    case CGS_VAL_BOOL:
        cgs_buf_addstr(b, v->u.b ? "True" : "False");
        break;
    case CGS_VAL_LIST:
        cgs_buf_addch(b, '(');
        for (uint32_t i = 0; i < v->n && i < 2; i++) {
            const struct cgs_val *x = &v->u.items[i];
            if (i)
                cgs_buf_addstr(b, ", ");
            if (x->kind == CGS_VAL_LIST)
                cgs_buf_addstr(b, "(...)");
            else
                val_text(x, b);
        }
        if (v->n > 2)
            cgs_buf_addf(b, ", +%u", v->n - 2);
        cgs_buf_addch(b, ')');
        break;
    }
}

static bool val_is_tensorish(const struct cgs_val *v)
{
    return v && (v->kind == CGS_VAL_TENSOR || v->kind == CGS_VAL_LIST);
}

/* Append s to b escaped for an HTML-like label, cut to max bytes ("..." after). */
static void html_add(struct cgs_buf *b, const char *s, size_t max)
{
    size_t n = 0;
    for (; *s; s++, n++) {
        if (n >= max) {
            cgs_buf_addstr(b, "...");
            return;
        }
        switch (*s) {
        case '&':
            cgs_buf_addstr(b, "&amp;");
            break;
        case '<':
            cgs_buf_addstr(b, "&lt;");
            break;
        case '>':
            cgs_buf_addstr(b, "&gt;");
            break;
        case '"':
            cgs_buf_addstr(b, "&quot;");
            break;
        case '\n':
        case '\t':
            cgs_buf_addch(b, ' ');
            break;
        default:
            if ((unsigned char)*s >= 0x20)
                cgs_buf_addch(b, *s);
        }
    }
}

/*
 * Append s to a tooltip: '&' as an entity (Graphviz's SVG writer keeps
 * entities), newlines as &#10; (multi-line tooltips), backslashes as '/'
 * (Graphviz expands \N and friends in tooltips).
 */
static void tip_add(struct cgs_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '&')
            cgs_buf_addstr(b, "&amp;");
        else if (*s == '\n')
            cgs_buf_addstr(b, "&#10;");
        else if (*s == '\\')
            cgs_buf_addch(b, '/');
        else if ((unsigned char)*s >= 0x20)
            cgs_buf_addch(b, *s);
    }
}

static void tip_line(struct cgs_buf *b, const char *s)
{
    if (b->len)
        cgs_buf_addstr(b, "&#10;");
    tip_add(b, s);
}

/* The target without namespaces people know anyway (torch._C._nn.linear -> linear). */
static void short_target(const struct cgs_node *n, struct cgs_buf *b)
{
    static const char *const prefixes[] = {
        "torch._C._nn.", "torch._C._linalg.",    "torch._C._fft.",    "torch._C._special.",
        "torch._C.",     "torch.nn.functional.", "torch.functional.", "torch._ops.",
        "torch.",        "_operator.",           "operator.",         "math.",
    };
    const char *t = n->target ? n->target : "?";

    switch (n->op) {
    case CGS_NODE_PLACEHOLDER:
        cgs_buf_addstr(b, "input");
        return;
    case CGS_NODE_GET_ATTR:
        cgs_buf_addstr(b, "get_attr");
        return;
    case CGS_NODE_OUTPUT:
        cgs_buf_addstr(b, "output");
        return;
    case CGS_NODE_CALL_METHOD:
        cgs_buf_addf(b, ".%s()", t);
        return;
    case CGS_NODE_CALL_MODULE:
        cgs_buf_addf(b, "module %s", t);
        return;
    default:
        break;
    }
    if (!strncmp(t, "aten.", 5) || !strncmp(t, "prims.", 6)) {
        // aten.convolution.default -> convolution (the overload says little)
        const char *s = strchr(t, '.') + 1, *e = strchr(s, '.');
        cgs_buf_add(b, s, e ? (size_t)(e - s) : strlen(s));
        return;
    }
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        size_t k = strlen(prefixes[i]);
        if (!strncmp(t, prefixes[i], k) && t[k]) {
            cgs_buf_addstr(b, t + k);
            return;
        }
    }
    {
        size_t len = strlen(t);
        if (len > 8 && !strcmp(t + len - 8, ".default"))
            len -= 8;
        cgs_buf_add(b, t, len);
    }
}

/* "models.py:587: a = torch.ops.cgs.attention(q, k, v)" from a stack trace's last frame. */
static bool source_line(const char *st, struct cgs_buf *b)
{
    struct cgs_pyframe f;
    if (!cgs_pyframe_last(st, NULL, &f))
        return false;
    cgs_pyframe_format(&f, true, b);
    return true;
}

/* Module state (a parameter, buffer, constant or tensor attribute) rather than a user input:
 * lib/ir/graph.h decides it for every pass and picture. */
static bool is_param(const struct cgs_node *n)
{
    return cgs_node_state(n) != CGS_STATE_NONE;
}

static bool is_sym_input(const struct cgs_node *n)
{
    return n->op == CGS_NODE_PLACEHOLDER && n->val && n->val->kind != CGS_VAL_TENSOR &&
           n->val->kind != CGS_VAL_LIST;
}

/* A parameter drawn inside its only user's label instead of as a node of its own. */
static bool is_inlined(const struct cgs_node *n)
{
    return is_param(n) && n->n_users == 1 && n->users[0]->op != CGS_NODE_OUTPUT;
}

/* "blocks.0.ln1.weight" from Dynamo's
 * l_self_modules_blocks_modules_0_modules_ln1_parameters_weight_ */
static void param_name(const struct cgs_node *n, struct cgs_buf *b)
{
    const char *s = n->name;
    size_t start = b->len;
    if (strncmp(s, "l_self_", 7)) {
        cgs_buf_addstr(b, s);
        return;
    }
    s += 7;
    while (*s) {
        static const char *const seps[] = {"modules_", "parameters_", "buffers_"};
        bool hit = false;
        for (size_t i = 0; i < 3 && !hit; i++) {
            size_t k = strlen(seps[i]);
            bool at_start = b->len == start;
            if (!strncmp(s, seps[i], k) && (at_start || s[-1] == '_')) {
                if (!at_start && b->buf[b->len - 1] == '_')
                    b->buf[b->len - 1] = '.';
                s += k;
                hit = true;
            }
        }
        if (!hit)
            cgs_buf_addch(b, *s++);
    }
    if (b->len > start && b->buf[b->len - 1] == '_')
        b->buf[--b->len] = 0;
}

/* The last component of a parameter's name ("weight"). */
static void param_role(const struct cgs_node *n, struct cgs_buf *b)
{
    struct cgs_buf t = CGS_BUF_INIT;
    const char *dot;
    param_name(n, &t);
    dot = strrchr(t.buf, '.');
    cgs_buf_addstr(b, dot ? dot + 1 : t.buf);
    cgs_buf_release(&t);
}

static void fmt_ns(uint64_t ns, struct cgs_buf *b)
{
    if (ns >= 1000000000ull)
        cgs_buf_addf(b, "%.2f s", (double)ns / 1e9);
    else if (ns >= 1000000ull)
        cgs_buf_addf(b, "%.2f ms", (double)ns / 1e6);
    else
        cgs_buf_addf(b, "%.1f us", (double)ns / 1e3);
}

/* ---- profile overlay ---------------------------------------------------------------------- */

static int prof_cmp(const void *a, const void *b)
{
    const struct cgs_prof_summary_piece *x = *(const struct cgs_prof_summary_piece *const *)a;
    const struct cgs_prof_summary_piece *y = *(const struct cgs_prof_summary_piece *const *)b;
    return strcmp(x->name, y->name);
}

/* Per split piece: its profile entry, or NULL. Counts report pieces matching none. */
static const struct cgs_prof_summary_piece **
profile_match(const struct cgs_prof_summary *prof, const struct cgs_split *s, uint32_t *unmatched)
{
    const struct cgs_prof_summary_piece **by_name, **of;
    uint32_t matched = 0;

    of = cgs_xcalloc(s->n_pieces + 1, sizeof(*of));
    by_name = cgs_xcalloc(prof->n_pieces + 1, sizeof(*by_name));
    for (uint32_t i = 0; i < prof->n_pieces; i++)
        by_name[i] = &prof->pieces[i];
    qsort(by_name, prof->n_pieces, sizeof(*by_name), prof_cmp);
    for (uint32_t i = 0; i < s->n_pieces; i++) {
        struct cgs_prof_summary_piece key = {(char *)s->pieces[i].name, 0, 0}, *kp = &key;
        const struct cgs_prof_summary_piece **hit =
            prof->n_pieces ? bsearch(&kp, by_name, prof->n_pieces, sizeof(*by_name), prof_cmp)
                           : NULL;
        if (hit) {
            of[i] = *hit;
            matched++;
        }
    }
    free(by_name);
    *unmatched = prof->n_pieces > matched ? prof->n_pieces - matched : 0;
    return of;
}

static unsigned heat_bucket(uint64_t ns, uint64_t total)
{
    double share = total ? (double)ns / (double)total : 0.0;
    unsigned k = 0;
    while (k + 1 < N_HEAT && share >= heat_min_share[k + 1])
        k++;
    return k;
}

static void heat_style(void *obj, uint64_t ns, uint64_t total, bool any)
{
    if (!any) {
        gv_set(obj, "fillcolor", HEAT_NONE_BG);
        return;
    }
    unsigned k = heat_bucket(ns, total);
    gv_set(obj, "fillcolor", heat_bg[k]);
    if (k >= N_HEAT - 2)
        gv_set(obj, "fontcolor", "white");
}

static void heat_text(uint64_t ns, uint64_t kernels, uint64_t total, struct cgs_buf *b)
{
    fmt_ns(ns, b);
    cgs_buf_addf(b, " GPU (%.1f%%), %llu kernel%s",
                 total ? 100.0 * (double)ns / (double)total : 0.0, (unsigned long long)kernels,
                 kernels == 1 ? "" : "s");
}

/* ---- legend and title ------------------------------------------------------------------------ */

struct legend {
    struct cgs_buf b;
    unsigned cells;
};

static void legend_swatch(struct legend *l, const char *bg, const char *fg, const char *text)
{
    if (l->cells && l->cells % 4 == 0)
        cgs_buf_addstr(&l->b, "</TR><TR>");
    cgs_buf_addf(&l->b,
                 "<TD BGCOLOR=\"%s\" COLOR=\"%s\" BORDER=\"1\" WIDTH=\"18\" HEIGHT=\"12\"></TD>"
                 "<TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"10\">",
                 bg, fg);
    html_add(&l->b, text, 200);
    cgs_buf_addstr(&l->b, "</FONT></TD>");
    l->cells++;
}

static void legend_line(struct legend *l, const char *color, const char *text, bool dashed)
{
    if (l->cells && l->cells % 4 == 0)
        cgs_buf_addstr(&l->b, "</TR><TR>");
    cgs_buf_addf(&l->b,
                 "<TD><FONT COLOR=\"%s\" POINT-SIZE=\"12\"><B>%s</B></FONT></TD>"
                 "<TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"10\">",
                 color, dashed ? "- - &gt;" : "&#8212;&gt;");
    html_add(&l->b, text, 200);
    cgs_buf_addstr(&l->b, "</FONT></TD>");
    l->cells++;
}

/*
 * The graph's label: a title, one line of facts and the legend, as one
 * HTML-like table (no extra node or cluster, so counts stay exact).
 */
static void set_title(Agraph_t *root, const char *title, const char *facts, struct legend *l)
{
    struct cgs_buf b = CGS_BUF_INIT;
    cgs_buf_addstr(&b, "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"2\" CELLPADDING=\"2\">"
                       "<TR><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"18\"><B>");
    html_add(&b, title, 120);
    cgs_buf_addstr(&b, "</B></FONT></TD></TR><TR><TD ALIGN=\"LEFT\">"
                       "<FONT POINT-SIZE=\"11\" COLOR=\"" COL_MUTED "\">");
    html_add(&b, facts, 400);
    // the legend is a table of its own, so its columns keep their natural width
    cgs_buf_addstr(&b,
                   "</FONT></TD></TR><TR><TD ALIGN=\"LEFT\">"
                   "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"3\" CELLPADDING=\"1\"><TR>");
    cgs_buf_add(&b, l->b.buf, l->b.len);
    cgs_buf_addstr(&b, "</TR></TABLE></TD></TR></TABLE>");
    gv_set_html(root, "label", b.buf);
    gv_set(root, "labelloc", "t");
    gv_set(root, "labeljust", "l");
    cgs_buf_release(&b);
}

static Agraph_t *open_root(const struct cgs_graph *g, const struct cgs_dot_opts *o)
{
    Agraph_t *root = gv_open(g->name && *g->name ? g->name : "cgscope");
    if (!root)
        return NULL;
    gv_set(root, "rankdir", o->rankdir && *o->rankdir ? o->rankdir : "TB");
    gv_set(root, "fontname", FONT);
    gv_set(root, "bgcolor", "white");
    gv_set(root, "nodesep", "0.3");
    gv_set(root, "ranksep", "0.35");
    gv_set(root, "pad", "0.3");
    gv_default(root, AGNODE, "shape", "box");
    gv_default(root, AGNODE, "style", "rounded,filled");
    gv_default(root, AGNODE, "fillcolor", "white");
    gv_default(root, AGNODE, "color", COL_NODE_FG);
    gv_default(root, AGNODE, "fontname", FONT);
    gv_default(root, AGNODE, "fontsize", "11");
    gv_default(root, AGNODE, "margin", "0.12,0.05");
    gv_default(root, AGNODE, "penwidth", "1");
    gv_default(root, AGEDGE, "color", COL_EDGE);
    gv_default(root, AGEDGE, "fontname", FONT);
    gv_default(root, AGEDGE, "fontsize", "9");
    gv_default(root, AGEDGE, "fontcolor", COL_EDGE_TEXT);
    gv_default(root, AGEDGE, "arrowsize", "0.7");
    gv_default(root, AGEDGE, "penwidth", "1");
    return root;
}

static void split_facts(const struct cgs_graph *g, const struct cgs_split *s,
                        const struct cgs_prof_summary *prof, const struct cgs_layout *lay,
                        struct cgs_buf *b)
{
    cgs_buf_addf(b, "%u nodes", g->n_nodes);
    if (g->producer.stage)
        cgs_buf_addf(b, ", %s graph", cgs_stage_names[g->producer.stage]);
    if (s) {
        uint32_t splitting = 0;
        for (uint32_t i = 0; i < s->n_pieces; i++)
            splitting += s->pieces[i].is_splitting_graph;
        cgs_buf_addf(b, DOT_SEP "%u pieces (%u %s, %u %s)", s->n_pieces, s->n_pieces - splitting,
                     s->policy == CGS_SPLIT_FUSION ? "fused" : "compiled", splitting,
                     s->policy == CGS_SPLIT_FUSION ? "other" : "splitting");
        if (s->n_ops) {
            /* the ops that split this graph; a preset's others are only counted (listing the
               29 ops of @vllm made a 3,000 px wide picture) */
            uint32_t shown = 0, absent = 0;
            for (uint32_t i = 0; i < s->n_ops; i++) {
                if (!s->ops[i].n_matched) {
                    absent++;
                    continue;
                }
                cgs_buf_addf(b, "%s%s", shown++ ? ", " : DOT_SEP "split at ", s->ops[i].op);
            }
            if (!shown)
                cgs_buf_addstr(b, DOT_SEP "no splitting op in the graph");
            if (absent)
                cgs_buf_addf(b, " (%u other op%s given, absent)", absent, absent == 1 ? "" : "s");
        } else {
            cgs_buf_addf(b, DOT_SEP "policy %s", cgs_split_policy_names[s->policy]);
        }
    }
    if (lay)
        cgs_buf_addf(b, DOT_SEP "Inductor layout_opt %s (%s)", lay->layout_opt ? "on" : "off",
                     cgs_layout_rule_id(lay->rule));
    if (prof) {
        cgs_buf_addstr(b, DOT_SEP "profile ");
        fmt_ns(prof->gpu_ns, b);
        cgs_buf_addf(b, " GPU, %llu kernels", (unsigned long long)prof->kernels);
    }
}

static void legend_heat(struct legend *l)
{
    for (unsigned k = 0; k < N_HEAT; k++) {
        char t[64];
        if (k + 1 < N_HEAT)
            snprintf(t, sizeof(t), "GPU %g-%g%%", heat_min_share[k] * 100,
                     heat_min_share[k + 1] * 100);
        else
            snprintf(t, sizeof(t), "GPU >= %g%%", heat_min_share[k] * 100);
        legend_swatch(l, heat_bg[k], COL_NODE_FG, t);
    }
    legend_swatch(l, HEAT_NONE_BG, COL_NODE_FG, "no kernels");
}

/* ---- the full view ----------------------------------------------------------------------------
 */

struct full {
    const struct cgs_graph *g;
    const struct cgs_dot_opts *o;
    const struct cgs_split *s;
    Agraph_t *root;
    Agraph_t **cl;  /* per piece */
    Agnode_t **gn;  /* per node index; NULL when not drawn */
    uint8_t *level; /* per node: 0, or 1 + enum cgs_note_level of the worst finding */
    const struct cgs_prof_summary_piece **prof_of;
    struct cgs_buf lbl, tip, tmp;
    struct cgs_val_texts texts; /* values' texts, met again */
    struct cgs_dot_stats *st;
    bool edge_labels;
};

static const struct cgs_val *shown_val(const struct full *f, const struct cgs_node *n)
{
    if (n->val)
        return n->val;
    if (f->o->shapes && n->index < f->o->shapes->n_nodes)
        return f->o->shapes->nodes[n->index].val;
    return NULL;
}

/* The parent (cluster or root) a node is drawn in. */
static Agraph_t *parent_of(const struct full *f, const struct cgs_node *n)
{
    int32_t p = -1;
    if (!f->s)
        return f->root;
    if (n->op == CGS_NODE_PLACEHOLDER || n->op == CGS_NODE_GET_ATTR) {
        // an input used by one piece only is drawn as part of that piece
        for (uint32_t i = 0; i < n->n_users; i++) {
            int32_t q = f->s->piece_of[n->users[i]->index];
            if (q < 0 || (p >= 0 && q != p))
                return f->root;
            p = q;
        }
        if (is_sym_input(n))
            return f->root;
    } else {
        p = f->s->piece_of[n->index];
    }
    return p >= 0 ? f->cl[p] : f->root;
}

static void full_clusters(struct full *f)
{
    const struct cgs_split *s = f->s;
    for (uint32_t i = 0; i < s->n_pieces; i++) {
        const struct cgs_split_piece *p = &s->pieces[i];
        Agraph_t *c;
        bool fused = s->policy == CGS_SPLIT_FUSION;

        cgs_buf_reset(&f->tmp);
        cgs_buf_addf(&f->tmp, "cluster_%s", p->name);
        c = f->cl[i] = gv_subg(f->root, f->tmp.buf);
        gv_set(c, "id", f->tmp.buf);
        cgs_buf_reset(&f->lbl);
        cgs_buf_addf(&f->lbl, "<<B>%s</B>" DOT_SEP, p->name);
        if (p->is_splitting_graph)
            cgs_buf_addstr(&f->lbl, fused ? "not fused" : "splitting (runs eagerly)");
        else if (p->compile_index >= 0)
            cgs_buf_addf(&f->lbl, "%s #%d", fused ? "fused" : "compiled", p->compile_index);
        else
            cgs_buf_addstr(&f->lbl, fused ? "fused" : "compiled");
        cgs_buf_addf(&f->lbl, DOT_SEP "%u node%s", p->n_nodes, p->n_nodes == 1 ? "" : "s");
        if (f->prof_of) {
            cgs_buf_reset(&f->tmp);
            if (f->prof_of[i])
                heat_text(f->prof_of[i]->gpu_ns, f->prof_of[i]->kernels, f->o->profile->gpu_ns,
                          &f->tmp);
            else
                cgs_buf_addstr(&f->tmp, "no kernels in the profile");
            cgs_buf_addstr(&f->lbl, "<BR ALIGN=\"LEFT\"/>");
            html_add(&f->lbl, f->tmp.buf, 200);
        }
        cgs_buf_addstr(&f->lbl, "<BR ALIGN=\"LEFT\"/>>");
        // the label is HTML: strip the outer brackets for gv_set_html
        f->lbl.buf[f->lbl.len - 1] = 0;
        gv_set_html(c, "label", f->lbl.buf + 1);
        gv_set(c, "labeljust", "l");
        gv_set(c, "fontname", FONT);
        gv_set(c, "fontsize", "12");
        gv_set(c, "margin", "10");
        if (p->is_splitting_graph) {
            gv_set(c, "style", "rounded,filled,dashed");
            gv_set(c, "fillcolor", COL_SPLIT_BG);
            gv_set(c, "color", COL_SPLIT_FG);
            gv_set(c, "penwidth", "2");
        } else {
            gv_set(c, "style", "rounded,filled");
            gv_set(c, "fillcolor", COL_COMPILED_BG);
            gv_set(c, "color", COL_COMPILED_FG);
            gv_set(c, "penwidth", "1.5");
        }
        if (f->prof_of)
            heat_style(c, f->prof_of[i] ? f->prof_of[i]->gpu_ns : 0, f->o->profile->gpu_ns,
                       f->prof_of[i] != NULL);
        // tooltip: why the piece starts where it does, and what it takes and gives
        cgs_buf_reset(&f->tip);
        cgs_buf_reset(&f->tmp);
        cgs_buf_addf(&f->tmp, "%s: %u node%s, %u input%s, %u output%s", p->name, p->n_nodes,
                     p->n_nodes == 1 ? "" : "s", p->n_inputs, p->n_inputs == 1 ? "" : "s",
                     p->n_outputs, p->n_outputs == 1 ? "" : "s");
        tip_line(&f->tip, f->tmp.buf);
        for (uint32_t k = 0; k < s->n_boundaries; k++) {
            if (s->boundaries[k].piece != i)
                continue;
            cgs_buf_reset(&f->tmp);
            cgs_buf_addf(&f->tmp, "cut before %s: %s", p->name,
                         s->boundaries[k].reason ? s->boundaries[k].reason : "");
            tip_line(&f->tip, f->tmp.buf);
        }
        gv_set(c, "tooltip", f->tip.buf);
        f->st->clusters++;
    }
}

/* The flags of a node: lint findings, notes, shape status; the worst level. */
static void node_findings(struct full *f, const struct cgs_node *n, struct cgs_buf *marks,
                          struct cgs_buf *tip)
{
    const struct cgs_dot_opts *o = f->o;
    unsigned worst = f->level[n->index];

    if (o->layout && n->index < o->layout->n_nodes) {
        const struct cgs_layout_node *ln = &o->layout->nodes[n->index];
        if (ln->prefer_cl || ln->req == CGS_STRIDE_CHANNELS_LAST) {
            cgs_buf_addstr(marks, "<BR/><FONT POINT-SIZE=\"9\" COLOR=\"" COL_CL_FG
                                  "\"><B>channels-last</B></FONT>");
            cgs_buf_reset(&f->tmp);
            cgs_buf_addf(&f->tmp, "channels-last: Inductor prefers NHWC here (layout_opt on: %s)",
                         o->layout->reason ? o->layout->reason
                                           : cgs_layout_rule_id(o->layout->rule));
            tip_line(tip, f->tmp.buf);
        }
    }
    if (o->shapes && n->index < o->shapes->n_nodes) {
        const struct cgs_shape_node *sn = &o->shapes->nodes[n->index];
        const char *what = NULL;
        if (sn->status == CGS_SHAPE_UNKNOWN_OP)
            what = "unknown op";
        else if (sn->status == CGS_SHAPE_ERROR)
            what = "shape error";
        else if (sn->cmp == CGS_SHAPE_CMP_MISMATCH)
            what = "shape differs";
        if (what) {
            cgs_buf_addf(marks,
                         "<BR/><FONT POINT-SIZE=\"9\" COLOR=\"" COL_ERR_FG "\"><B>! %s</B></FONT>",
                         what);
            cgs_buf_reset(&f->tmp);
            cgs_buf_addf(&f->tmp, "%s: %s", what, sn->reason ? sn->reason : "");
            tip_line(tip, f->tmp.buf);
            if (worst < 1 + CGS_NOTE_WARNING)
                worst = 1 + CGS_NOTE_WARNING;
        }
    } else if ((n->op == CGS_NODE_CALL_FUNCTION || n->op == CGS_NODE_CALL_METHOD) &&
               cgs_op_lookup(n->target) == CGS_OP_UNKNOWN) {
        cgs_buf_addstr(marks, "<BR/><FONT POINT-SIZE=\"9\" COLOR=\"" COL_ERR_FG
                              "\"><B>! unknown op</B></FONT>");
        tip_line(tip, "unknown op: cgscope has no shape rule for this target");
        if (worst < 1 + CGS_NOTE_WARNING)
            worst = 1 + CGS_NOTE_WARNING;
    }
    if (f->s) {
        for (uint32_t i = 0; i < f->s->n_findings; i++) {
            const struct cgs_split_finding *x = &f->s->findings[i];
            if (x->node != n || x->level == CGS_NOTE_INFO)
                continue;
            cgs_buf_addf(marks, "<BR/><FONT POINT-SIZE=\"9\" COLOR=\"%s\"><B>! %s</B></FONT>",
                         x->level == CGS_NOTE_ERROR ? COL_ERR_FG : COL_WARN_FG,
                         cgs_lint_kind_names[x->kind]);
            cgs_buf_reset(&f->tmp);
            cgs_buf_addf(&f->tmp, "lint %s: %s", cgs_lint_kind_names[x->kind], x->reason);
            tip_line(tip, f->tmp.buf);
        }
    }
    for (uint32_t i = 0; i < f->g->n_notes; i++) {
        const struct cgs_note *nt = &f->g->notes[i];
        if (nt->node == n && nt->level != CGS_NOTE_INFO) {
            cgs_buf_reset(&f->tmp);
            cgs_buf_addf(&f->tmp, "%s: %s", nt->level == CGS_NOTE_ERROR ? "error" : "warning",
                         nt->msg);
            tip_line(tip, f->tmp.buf);
        }
    }
    f->level[n->index] = (uint8_t)worst;
}

static void full_node(struct full *f, const struct cgs_node *n)
{
    const struct cgs_split *s = f->s;
    Agraph_t *parent = parent_of(f, n);
    Agnode_t *v = gv_node(parent, n->name);
    struct cgs_buf marks = CGS_BUF_INIT;
    const struct cgs_val *val = shown_val(f, n);
    bool split_op = s && s->split_op_of[n->index];
    unsigned level;

    f->gn[n->index] = v;
    f->st->nodes++;
    cgs_buf_reset(&f->lbl);
    cgs_buf_reset(&f->tip);
    cgs_buf_reset(&f->tmp);

    // tooltip: what it is, where it came from, why it looks as it does
    cgs_buf_addstr(&f->tmp, n->name);
    cgs_buf_addstr(&f->tmp, " = ");
    cgs_buf_addstr(&f->tmp, cgs_node_op_names[n->op]);
    cgs_buf_addch(&f->tmp, ' ');
    cgs_buf_addstr(&f->tmp, n->target ? n->target : "");
    tip_line(&f->tip, f->tmp.buf);
    if (val) {
        cgs_buf_reset(&f->tmp);
        cgs_buf_addstr(&f->tmp, "value: ");
        cgs_val_text(&f->texts, val, val_text, &f->tmp);
        tip_line(&f->tip, f->tmp.buf);
    }
    cgs_buf_reset(&f->tmp);
    if (source_line(cgs_node_stack_trace(f->g, n), &f->tmp))
        tip_line(&f->tip, f->tmp.buf);
    if (n->module_path) {
        cgs_buf_reset(&f->tmp);
        cgs_buf_addstr(&f->tmp, "module: ");
        cgs_buf_addstr(&f->tmp, n->module_path);
        if (n->module_type) {
            cgs_buf_addstr(&f->tmp, " (");
            cgs_buf_addstr(&f->tmp, n->module_type);
            cgs_buf_addch(&f->tmp, ')');
        }
        tip_line(&f->tip, f->tmp.buf);
    }
    if (s && s->piece_of[n->index] >= 0) {
        const struct cgs_split_piece *p = &s->pieces[s->piece_of[n->index]];
        cgs_buf_reset(&f->tmp);
        cgs_buf_addstr(&f->tmp, "piece: ");
        cgs_buf_addstr(&f->tmp, p->name);
        cgs_buf_addstr(&f->tmp, p->is_splitting_graph ? " (splitting)" : " (compiled)");
        tip_line(&f->tip, f->tmp.buf);
    }
    if (split_op) {
        for (uint32_t k = 0; k < s->n_boundaries; k++)
            if (s->boundaries[k].node == n && s->boundaries[k].rule == CGS_SPLIT_RULE_SPLIT_OP) {
                cgs_buf_reset(&f->tmp);
                cgs_buf_addf(&f->tmp, "split: %s", s->boundaries[k].reason);
                tip_line(&f->tip, f->tmp.buf);
            }
    }
    node_findings(f, n, &marks, &f->tip);

    // label: name, short target, value, parameters folded in, marks
    cgs_buf_addstr(&f->lbl, "<B>");
    if (is_param(n)) {
        cgs_buf_reset(&f->tmp);
        param_name(n, &f->tmp);
        html_add(&f->lbl, f->tmp.buf, 48);
    } else {
        html_add(&f->lbl, n->name, 48);
    }
    cgs_buf_addstr(&f->lbl, "</B>");
    if (n->op != CGS_NODE_PLACEHOLDER && n->op != CGS_NODE_OUTPUT) {
        cgs_buf_reset(&f->tmp);
        short_target(n, &f->tmp);
        cgs_buf_addstr(&f->lbl, "<BR/><FONT POINT-SIZE=\"10\" COLOR=\"" COL_MUTED "\">");
        html_add(&f->lbl, f->tmp.buf, 48);
        cgs_buf_addstr(&f->lbl, "</FONT>");
    }
    if (val && n->op != CGS_NODE_OUTPUT) {
        cgs_buf_reset(&f->tmp);
        cgs_val_text(&f->texts, val, val_text, &f->tmp);
        cgs_buf_addstr(&f->lbl, "<BR/><FONT POINT-SIZE=\"10\" COLOR=\"" COL_SHAPE_TEXT "\">");
        html_add(&f->lbl, f->tmp.buf, 64);
        cgs_buf_addstr(&f->lbl, "</FONT>");
    }
    {
        bool first = true;
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            const struct cgs_node *u = n->inputs[i];
            if (!is_inlined(u))
                continue;
            cgs_buf_reset(&f->tmp);
            param_role(u, &f->tmp);
            cgs_buf_addch(&f->tmp, ' ');
            cgs_val_text(&f->texts, u->val, val_text, &f->tmp);
            cgs_buf_addstr(&f->lbl,
                           first ? "<BR/><FONT POINT-SIZE=\"9\" COLOR=\"" COL_MUTED "\">+ " : ", ");
            if (!first && i % 2 == 0)
                cgs_buf_addstr(&f->lbl, "<BR/>");
            html_add(&f->lbl, f->tmp.buf, 64);
            first = false;
            cgs_buf_reset(&f->tmp);
            cgs_buf_addstr(&f->tmp, "parameter ");
            param_name(u, &f->tmp);
            cgs_buf_addf(&f->tmp, " (%s) ", u->name);
            cgs_val_text(&f->texts, u->val, val_text, &f->tmp);
            tip_line(&f->tip, f->tmp.buf);
        }
        if (!first)
            cgs_buf_addstr(&f->lbl, "</FONT>");
    }
    cgs_buf_add(&f->lbl, marks.buf, marks.len);
    cgs_buf_release(&marks);
    gv_set_html(v, "label", f->lbl.buf);
    gv_set(v, "tooltip", f->tip.buf);
    cgs_buf_reset(&f->tmp);
    cgs_buf_addstr(&f->tmp, "n:");
    cgs_buf_addstr(&f->tmp, n->name);
    gv_set(v, "id", f->tmp.buf);

    // style by kind, then marks on the border
    switch (n->op) {
    case CGS_NODE_PLACEHOLDER:
    case CGS_NODE_GET_ATTR:
        if (is_sym_input(n)) {
            gv_set(v, "shape", "ellipse");
            gv_set(v, "style", "filled");
            gv_set(v, "fillcolor", "#FAFAFA");
            gv_set(v, "color", COL_SYM_FG);
            gv_set(v, "fontsize", "9");
        } else if (is_param(n)) {
            gv_set(v, "fillcolor", COL_PARAM_BG);
            gv_set(v, "fontsize", "9");
        } else {
            gv_set(v, "fillcolor", COL_INPUT_BG);
            gv_set(v, "color", COL_INPUT_FG);
        }
        break;
    case CGS_NODE_OUTPUT:
        gv_set(v, "fillcolor", COL_OUTPUT_BG);
        gv_set(v, "color", COL_OUTPUT_FG);
        gv_set(v, "penwidth", "1.5");
        break;
    default:
        if (split_op) {
            gv_set(v, "fillcolor", COL_SPLITOP_BG);
            gv_set(v, "color", COL_SPLIT_FG);
            gv_set(v, "penwidth", "2");
        }
        break;
    }
    if (f->o->layout && n->index < f->o->layout->n_nodes &&
        (f->o->layout->nodes[n->index].prefer_cl ||
         f->o->layout->nodes[n->index].req == CGS_STRIDE_CHANNELS_LAST)) {
        gv_set(v, "color", COL_CL_FG);
        gv_set(v, "penwidth", "2");
    }
    level = f->level[n->index];
    if (level) {
        f->st->flagged++;
        gv_set(v, "color", level == 1 + CGS_NOTE_ERROR ? COL_ERR_FG : COL_WARN_FG);
        gv_set(v, "penwidth", "2.5");
        gv_set(v, "style",
               n->op == CGS_NODE_PLACEHOLDER && is_sym_input(n) ? "filled,bold"
                                                                : "rounded,filled,bold");
    }
}

/* The value an edge u -> n carries: u's, or for getitem of a tuple the item taken. */
static const struct cgs_val *carried(const struct full *f, const struct cgs_node *u,
                                     const struct cgs_node *n)
{
    const struct cgs_val *v = shown_val(f, u);
    if (v && v->kind == CGS_VAL_LIST && n->op == CGS_NODE_CALL_FUNCTION &&
        (cgs_ops[n->op_id].flags & CGS_OPF_GETITEM))
        return shown_val(f, n);
    return v;
}

static void full_edges(struct full *f)
{
    const struct cgs_graph *g = f->g;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        if (!f->gn[i])
            continue;
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            const struct cgs_node *u = n->inputs[k];
            const struct cgs_val *v = carried(f, u, n);
            Agedge_t *e;
            int32_t pu, pn;
            if (!f->gn[u->index])
                continue;
            e = gv_edge(f->root, f->gn[u->index], f->gn[i]);
            f->st->edges++;
            cgs_buf_reset(&f->tmp);
            cgs_buf_addf(&f->tmp, "e:%s:%s", u->name, n->name);
            gv_set(e, "id", f->tmp.buf);
            cgs_buf_reset(&f->lbl);
            cgs_val_text(&f->texts, v, val_text, &f->lbl);
            cgs_buf_reset(&f->tip);
            cgs_buf_reset(&f->tmp);
            cgs_buf_addf(&f->tmp, "%s -> %s: %s", u->name, n->name, f->lbl.buf);
            tip_line(&f->tip, f->tmp.buf);
            pu = f->s ? f->s->piece_of[u->index] : -1;
            pn = f->s ? f->s->piece_of[i] : -1;
            if (!val_is_tensorish(v)) {
                // sizes and scalars: thin, and they do not pull the layout around
                gv_set(e, "style", "dashed");
                gv_set(e, "color", COL_SYM_FG);
                gv_set(e, "arrowsize", "0.5");
                gv_set(e, "constraint", "false");
            } else if (f->edge_labels) {
                gv_set(e, "label", f->lbl.buf);
            }
            if (pu >= 0 && pn >= 0 && pu != pn && val_is_tensorish(v)) {
                cgs_buf_reset(&f->tmp);
                cgs_buf_addf(&f->tmp, "crosses from %s to %s", f->s->pieces[pu].name,
                             f->s->pieces[pn].name);
                tip_line(&f->tip, f->tmp.buf);
                gv_set(e, "color", COL_CROSS);
                gv_set(e, "fontcolor", COL_CROSS);
                gv_set(e, "penwidth", "2.5");
                gv_set(e, "weight", "2");
                gv_set(e, "class", "cross");
            }
            gv_set(e, "tooltip", f->tip.buf);
        }
    }
}

/*
 * Ranks spanned by drawn edges beyond the first, with ranks by longest path
 * from the computed nodes (inputs are left out: dot pulls them down next to
 * their users): about the number of virtual nodes dot's layout will carry.
 */
static uint64_t long_edge_ranks(const struct cgs_graph *g, Agnode_t *const *drawn)
{
    uint32_t *rank = cgs_xcalloc(g->n_nodes + 1, sizeof(*rank));
    uint64_t span = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            const struct cgs_node *u = n->inputs[k];
            if (u->op != CGS_NODE_PLACEHOLDER && u->op != CGS_NODE_GET_ATTR &&
                rank[u->index] + 1 > rank[i])
                rank[i] = rank[u->index] + 1;
        }
        if (!drawn[i])
            continue;
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            const struct cgs_node *u = n->inputs[k];
            if (drawn[u->index] && u->op != CGS_NODE_PLACEHOLDER &&
                u->op != CGS_NODE_GET_ATTR && rank[i] > rank[u->index] + 1)
                span += rank[i] - rank[u->index] - 1;
        }
    }
    free(rank);
    return span;
}

static Agraph_t *build_full(const struct cgs_graph *g, const struct cgs_dot_opts *o,
                            struct cgs_dot_stats *st)
{
    struct full f = {.g = g, .o = o, .s = o->split, .st = st};
    struct legend l = {CGS_BUF_INIT, 0};
    struct cgs_buf facts = CGS_BUF_INIT;
    bool any_cl = false, any_split_op = false;
    uint64_t span;

    f.root = open_root(g, o);
    if (!f.root)
        return NULL;
    cgs_buf_init(&f.lbl);
    cgs_buf_init(&f.tip);
    cgs_buf_init(&f.tmp);
    f.gn = cgs_xcalloc(g->n_nodes + 1, sizeof(*f.gn));
    f.level = cgs_xcalloc(g->n_nodes + 1, 1);
    if (f.s) {
        f.cl = cgs_xcalloc(f.s->n_pieces + 1, sizeof(*f.cl));
        for (uint32_t i = 0; i < f.s->n_findings; i++) {
            const struct cgs_split_finding *x = &f.s->findings[i];
            if (x->node && x->level != CGS_NOTE_INFO && f.level[x->node->index] < 1 + x->level)
                f.level[x->node->index] = (uint8_t)(1 + x->level);
        }
        if (o->profile)
            f.prof_of = profile_match(o->profile, f.s, &st->profile_unmatched);
        full_clusters(&f);
    }
    for (uint32_t i = 0; i < g->n_notes; i++) {
        const struct cgs_note *nt = &g->notes[i];
        if (nt->node && nt->level != CGS_NOTE_INFO && f.level[nt->node->index] < 1 + nt->level)
            f.level[nt->node->index] = (uint8_t)(1 + nt->level);
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        if (is_inlined(n) || is_sym_input(n))
            continue; // parameters in their user's label; sizes in the title
        full_node(&f, n);
        any_split_op |= f.s && f.s->split_op_of[i];
        any_cl |=
            o->layout && i < o->layout->n_nodes &&
            (o->layout->nodes[i].prefer_cl || o->layout->nodes[i].req == CGS_STRIDE_CHANNELS_LAST);
    }
    // dot places edge labels as extra nodes, one per rank an edge spans: on graphs
    // with many long edges they cost minutes (and crash Graphviz 2.42's router)
    span = long_edge_ranks(g, f.gn);
    f.edge_labels = st->nodes <= CGS_DOT_EDGE_LABEL_MAX_NODES && span <= CGS_DOT_EDGE_LABEL_MAX_SPAN;
    if (st->nodes > CGS_DOT_FAST_LAYOUT_NODES || span > CGS_DOT_EDGE_LABEL_MAX_SPAN) {
        gv_set(f.root, "mclimit", "0.1");
        gv_set(f.root, "nslimit", "1");
        gv_set(f.root, "nslimit1", "1");
        gv_set(f.root, "splines", "line"); // spline routing of long edges costs the most
    }
    full_edges(&f);

    split_facts(g, f.s, o->profile, o->layout, &facts);
    for (uint32_t i = 0, k = 0; i < g->n_nodes; i++)
        if (is_sym_input(g->nodes[i])) {
            cgs_buf_addf(&facts, "%s%s", k++ ? ", " : DOT_SEP "sizes ", g->nodes[i]->name);
            if (g->nodes[i]->val->has_hint && g->nodes[i]->val->kind == CGS_VAL_SYMINT)
                cgs_buf_addf(&facts, " (hint %lld)", (long long)g->nodes[i]->val->u.s.hint);
        }
    if (!f.edge_labels)
        cgs_buf_addstr(&facts, DOT_SEP "edge shapes in tooltips (graph too large for labels)");
    if (f.s) {
        legend_swatch(&l, COL_COMPILED_BG, COL_COMPILED_FG, "compiled piece");
        legend_swatch(&l, COL_SPLIT_BG, COL_SPLIT_FG, "splitting piece (eager)");
        if (any_split_op)
            legend_swatch(&l, COL_SPLITOP_BG, COL_SPLIT_FG, "splitting op");
    }
    legend_swatch(&l, COL_INPUT_BG, COL_INPUT_FG, "graph input");
    legend_swatch(&l, COL_PARAM_BG, COL_NODE_FG,
                  "parameter (\"+ weight ...\" in a label: folded in)");
    legend_swatch(&l, COL_OUTPUT_BG, COL_OUTPUT_FG, "graph output");
    if (any_cl)
        legend_swatch(&l, "white", COL_CL_FG, "channels-last (Inductor)");
    legend_swatch(&l, "white", COL_ERR_FG, "! flagged: unknown op, shape, lint");
    if (f.s)
        legend_line(&l, COL_CROSS, "tensor crossing pieces", false);
    legend_line(&l, COL_EDGE, f.edge_labels ? "tensor (labelled with its shape)" : "tensor", false);
    legend_line(&l, COL_SYM_FG, "size / scalar", true);
    if (f.prof_of)
        legend_heat(&l);
    set_title(f.root, g->name && *g->name ? g->name : (g->file ? g->file : "graph"), facts.buf, &l);

    cgs_buf_release(&facts);
    cgs_buf_release(&l.b);
    cgs_buf_release(&f.lbl);
    cgs_val_texts_release(&f.texts);
    cgs_buf_release(&f.tip);
    cgs_buf_release(&f.tmp);
    free(f.gn);
    free(f.level);
    free(f.cl);
    free(f.prof_of);
    return f.root;
}

/* ---- collapsed views: groups, signatures, folding ---------------------------------------------
 */

enum group_kind { GROUP_COMPILED, GROUP_SPLITTING, GROUP_MODULE };

struct group {
    const char *name; /* piece name, or module key ("" = top level) */
    enum group_kind kind;
    int32_t piece;   /* pieces view: index in split->pieces */
    uint32_t off, n; /* nodes: members[off .. off + n) */
    uint64_t hash;
    const char *sig;
    uint32_t sig_id;
};

enum box_kind { BOX_ONE, BOX_FOLD, BOX_RANGE };

struct box {
    enum box_kind kind;
    uint32_t rep;         /* representative group */
    uint32_t first, last; /* first and last group drawn by it */
    uint32_t count;       /* groups it stands for */
    uint32_t step;        /* FOLD: distance between its groups */
    uint64_t nodes;       /* nodes of all its groups */
};

struct col {
    const struct cgs_graph *g;
    const struct cgs_dot_opts *o;
    const struct cgs_split *s;
    struct cgs_arena arena;
    struct group *groups;
    uint32_t n_groups;
    int32_t *group_of; /* per node index; -1 outside every group */
    uint32_t *local;   /* per node index: position in its group */
    const struct cgs_node **members;
    struct box *boxes;
    uint32_t n_boxes, alloc_boxes;
    uint32_t *box_of; /* per group */
    unsigned depth;
    const struct cgs_prof_summary_piece **prof_of;
    struct cgs_buf a, b, c;
    struct cgs_val_texts texts; /* values' texts, met again */
};

/* Module key of a node at depth: the first `depth` dotted components of its module_path. */
static size_t module_key(const struct cgs_node *n, unsigned depth, const char **key)
{
    const char *p = n->module_path ? n->module_path : "";
    size_t i = 0;
    unsigned comps = 0;
    *key = p;
    if (!*p)
        return 0;
    for (; p[i]; i++)
        if (p[i] == '.' && ++comps == depth)
            return i;
    return i;
}

static bool in_groups(const struct cgs_node *n)
{
    return n->op != CGS_NODE_PLACEHOLDER && n->op != CGS_NODE_GET_ATTR && n->op != CGS_NODE_OUTPUT;
}

struct keyref {
    const char *s;
    size_t len;
};

static int keyref_cmp(const void *a, const void *b)
{
    const struct keyref *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int r = memcmp(x->s, y->s, n);
    return r ? r : (x->len > y->len) - (x->len < y->len);
}

/* Distinct module keys at depth (over the runs of equal keys). */
static uint32_t count_keys(const struct cgs_graph *g, unsigned depth)
{
    struct keyref *runs = NULL;
    size_t n = 0, alloc = 0, len;
    const char *k;
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        if (!in_groups(g->nodes[i]))
            continue;
        len = module_key(g->nodes[i], depth, &k);
        if (!n || len != runs[n - 1].len || memcmp(k, runs[n - 1].s, len)) {
            CGS_ALLOC_GROW(runs, n + 1, alloc);
            runs[n++] = (struct keyref){k, len};
        }
    }
    if (n)
        qsort(runs, n, sizeof(*runs), keyref_cmp);
    for (size_t i = 0; i < n; i++)
        distinct += !i || keyref_cmp(&runs[i - 1], &runs[i]) != 0;
    free(runs);
    return distinct;
}

/* Automatic depth: the shallowest that tells at least 8 modules apart, else the deepest. */
static unsigned auto_depth(const struct cgs_graph *g)
{
    unsigned maxd = 1;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const char *p = g->nodes[i]->module_path;
        unsigned d = 1;
        if (!p)
            continue;
        for (; *p; p++)
            d += *p == '.';
        if (d > maxd)
            maxd = d;
    }
    if (maxd > CGS_DOT_MAX_MODULE_DEPTH)
        maxd = CGS_DOT_MAX_MODULE_DEPTH;
    for (unsigned d = 1; d <= maxd; d++)
        if (count_keys(g, d) >= 8)
            return d;
    return maxd;
}

static void make_groups(struct col *c)
{
    const struct cgs_graph *g = c->g;
    uint32_t *count;

    c->group_of = cgs_xcalloc(g->n_nodes + 1, sizeof(*c->group_of));
    c->local = cgs_xcalloc(g->n_nodes + 1, sizeof(*c->local));
    c->members = cgs_xcalloc(g->n_nodes + 1, sizeof(*c->members));
    if (c->o->view == CGS_DOT_VIEW_PIECES) {
        c->n_groups = c->s->n_pieces;
        c->groups = cgs_xcalloc(c->n_groups + 1, sizeof(*c->groups));
        for (uint32_t i = 0; i < c->n_groups; i++) {
            const struct cgs_split_piece *p = &c->s->pieces[i];
            c->groups[i].name = p->name;
            c->groups[i].kind = p->is_splitting_graph ? GROUP_SPLITTING : GROUP_COMPILED;
            c->groups[i].piece = (int32_t)i;
        }
        for (uint32_t i = 0; i < g->n_nodes; i++)
            c->group_of[i] = c->s->piece_of[i];
    } else {
        const char *prev = NULL, *k;
        size_t prev_len = 0, len;
        uint32_t alloc = 0;
        for (uint32_t i = 0; i < g->n_nodes; i++) {
            const struct cgs_node *n = g->nodes[i];
            c->group_of[i] = -1;
            if (!in_groups(n))
                continue;
            len = module_key(n, c->depth, &k);
            if (!prev || len != prev_len || memcmp(k, prev, len)) {
                CGS_ALLOC_GROW(c->groups, c->n_groups + 1, alloc);
                memset(&c->groups[c->n_groups], 0, sizeof(*c->groups));
                c->groups[c->n_groups].name = cgs_arena_strndup(&c->arena, k, len);
                c->groups[c->n_groups].kind = GROUP_MODULE;
                c->groups[c->n_groups].piece = -1;
                c->n_groups++;
                prev = k;
                prev_len = len;
            }
            c->group_of[i] = (int32_t)(c->n_groups - 1);
        }
    }
    // members in CSR form, in graph order
    count = cgs_xcalloc(c->n_groups + 1, sizeof(*count));
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (c->group_of[i] >= 0)
            count[c->group_of[i]]++;
    for (uint32_t i = 0, off = 0; i < c->n_groups; i++) {
        c->groups[i].off = off;
        off += count[i];
        count[i] = 0;
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        int32_t q = c->group_of[i];
        if (q < 0)
            continue;
        c->local[i] = count[q];
        c->members[c->groups[q].off + count[q]++] = g->nodes[i];
        c->groups[q].n = count[q];
    }
    free(count);
}

/* What makes two groups the same picture: ops, values, wiring inside, kinds of inputs. */
static void signatures(struct col *c)
{
    struct cgs_buf *b = &c->a;
    for (uint32_t q = 0; q < c->n_groups; q++) {
        struct group *gr = &c->groups[q];
        cgs_buf_reset(b);
        cgs_buf_addint(b, (int)gr->kind);
        cgs_buf_addch(b, '|');
        for (uint32_t k = 0; k < gr->n; k++) {
            const struct cgs_node *n = c->members[gr->off + k];
            cgs_buf_addint(b, (int)n->op);
            cgs_buf_addch(b, ' ');
            cgs_buf_addstr(b, n->target ? n->target : "");
            cgs_buf_addch(b, ' ');
            cgs_val_text(&c->texts, n->val, val_text, b);
            for (uint32_t j = 0; j < n->n_inputs; j++) {
                const struct cgs_node *u = n->inputs[j];
                if (c->group_of[u->index] == (int32_t)q) {
                    cgs_buf_addstr(b, " @");
                    cgs_buf_addint(b, c->local[u->index]);
                } else {
                    cgs_buf_addstr(b, is_param(u) ? " P" : " X");
                    cgs_val_text(&c->texts, u->val, val_text, b);
                }
            }
            cgs_buf_addch(b, ';');
        }
        gr->hash = cgs_str_hash(b->buf, b->len);
        gr->sig = cgs_arena_strndup(&c->arena, b->buf, b->len);
    }
}

static const struct group *sort_groups;

static int sig_cmp(const void *a, const void *b)
{
    const struct group *x = &sort_groups[*(const uint32_t *)a];
    const struct group *y = &sort_groups[*(const uint32_t *)b];
    int r;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    r = strcmp(x->sig, y->sig);
    if (r)
        return r;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void assign_sig_ids(struct col *c)
{
    uint32_t *idx = cgs_xcalloc(c->n_groups + 1, sizeof(*idx)), id = 0;
    for (uint32_t i = 0; i < c->n_groups; i++)
        idx[i] = i;
    sort_groups = c->groups;
    qsort(idx, c->n_groups, sizeof(*idx), sig_cmp);
    for (uint32_t i = 0; i < c->n_groups; i++) {
        if (i) {
            const struct group *x = &c->groups[idx[i - 1]], *y = &c->groups[idx[i]];
            if (x->hash != y->hash || strcmp(x->sig, y->sig))
                id++;
        }
        c->groups[idx[i]].sig_id = id;
    }
    sort_groups = NULL;
    free(idx);
}

static struct box *add_box(struct col *c, enum box_kind kind, uint32_t first)
{
    struct box *bx;
    CGS_ALLOC_GROW(c->boxes, c->n_boxes + 1, c->alloc_boxes);
    bx = &c->boxes[c->n_boxes++];
    memset(bx, 0, sizeof(*bx));
    bx->kind = kind;
    bx->rep = bx->first = bx->last = first;
    bx->count = 1;
    bx->step = 1;
    return bx;
}

#define FOLD_MAX_PERIOD 8

/*
 * Fold repeats: at each position find the period p (1..8) whose block
 * repeats the most groups in a row (the smallest p on ties); k >= 2 repeats
 * become p boxes, each standing for k groups.
 */
static void fold(struct col *c)
{
    uint32_t n = c->n_groups, i = 0;
    const struct group *gr = c->groups;
    c->box_of = cgs_xcalloc(n + 1, sizeof(*c->box_of));
    while (i < n) {
        uint32_t best_p = 1, best_k = 1;
        for (uint32_t p = 1; !c->o->no_fold && p <= FOLD_MAX_PERIOD && i + 2 * p <= n; p++) {
            uint32_t k = 1;
            for (;;) {
                uint32_t base = i + k * p, j;
                if (base + p > n)
                    break;
                for (j = 0; j < p && gr[i + j].sig_id == gr[base + j].sig_id; j++)
                    ;
                if (j < p)
                    break;
                k++;
            }
            if (k >= 2 && p * k > best_p * best_k)
                best_p = p, best_k = k;
        }
        if (best_k >= 2) {
            for (uint32_t j = 0; j < best_p; j++) {
                struct box *bx = add_box(c, BOX_FOLD, i + j);
                bx->last = i + j + (best_k - 1) * best_p;
                bx->count = best_k;
                bx->step = best_p;
                for (uint32_t r = 0; r < best_k; r++) {
                    c->box_of[i + j + r * best_p] = c->n_boxes - 1;
                    bx->nodes += gr[i + j + r * best_p].n;
                }
            }
            i += best_p * best_k;
        } else {
            struct box *bx = add_box(c, BOX_ONE, i);
            bx->nodes = gr[i].n;
            c->box_of[i] = c->n_boxes - 1;
            i++;
        }
    }
}

/*
 * Too many boxes even after folding: merge runs of consecutive boxes into
 * range boxes. A fold is never cut: ranges are made of whole folds.
 */
static void merge_ranges(struct col *c, uint32_t max_boxes, struct cgs_dot_stats *st)
{
    struct box *old = c->boxes;
    uint32_t n_old = c->n_boxes, chunk, i = 0;
    if (n_old <= max_boxes)
        return;
    chunk = (n_old + max_boxes - 1) / max_boxes;
    c->boxes = NULL;
    c->n_boxes = c->alloc_boxes = 0;
    while (i < n_old) {
        uint32_t end = i + chunk < n_old ? i + chunk : n_old, first, last;
        struct box *bx;
        // extend to the end of a fold the chunk cut through
        while (end < n_old && old[end].kind == BOX_FOLD && old[end - 1].kind == BOX_FOLD &&
               old[end].first == old[end - 1].first + 1 && old[end].count == old[end - 1].count)
            end++;
        first = old[i].first;
        last = old[i].last;
        for (uint32_t j = i; j < end; j++)
            if (old[j].last > last)
                last = old[j].last;
        bx = add_box(c, end - i == 1 ? old[i].kind : BOX_RANGE, first);
        if (end - i == 1) {
            *bx = old[i];
        } else {
            bx->last = last;
            bx->count = last - first + 1;
            for (uint32_t q = first; q <= last; q++) {
                c->box_of[q] = c->n_boxes - 1;
                bx->nodes += c->groups[q].n;
            }
            st->merged += bx->count;
        }
        if (end - i == 1)
            for (uint32_t q = bx->first; q <= bx->last; q += bx->step)
                c->box_of[q] = c->n_boxes - 1;
        i = end;
    }
    free(old);
}

/* ---- collapsed views: drawing ---------------------------------------------------------------- */

static void box_name(const struct col *c, uint32_t b, struct cgs_buf *out)
{
    const struct box *bx = &c->boxes[b];
    const struct group *g0 = &c->groups[bx->first];
    if (c->o->view == CGS_DOT_VIEW_PIECES) {
        cgs_buf_addstr(out, g0->name);
        if (bx->kind == BOX_RANGE)
            cgs_buf_addf(out, "..%s", c->groups[bx->last].name);
    } else {
        cgs_buf_addf(out, "m%u:%s", bx->first, *g0->name ? g0->name : "top");
        if (bx->kind == BOX_RANGE)
            cgs_buf_addf(out, "..%u", bx->last);
    }
}

static const char *group_title(const struct group *gr)
{
    return *gr->name ? gr->name : "(top level)";
}

/* Up to `max` "name f32[...]" items of a node list into b (HTML), then "+N more". */
static void list_vals(struct cgs_buf *b, const char *head, const struct cgs_node *const *v,
                      uint32_t n, uint32_t max)
{
    uint32_t shown = 0, params = 0, syms = 0, more = 0;
    struct cgs_buf t = CGS_BUF_INIT;
    for (uint32_t i = 0; i < n; i++) {
        if (is_param(v[i])) {
            params++;
            continue;
        }
        if (is_sym_input(v[i]) || (v[i]->val && v[i]->val->kind == CGS_VAL_SYMINT)) {
            syms++;
            continue;
        }
        if (shown == max) {
            more++;
            continue;
        }
        cgs_buf_reset(&t);
        cgs_buf_addf(&t, "%s ", v[i]->name);
        val_text(v[i]->val, &t);
        cgs_buf_addf(b, "<BR ALIGN=\"LEFT\"/>%s ", shown ? "   " : head);
        html_add(b, t.buf, 72);
        shown++;
    }
    if (more || params || syms) {
        cgs_buf_addf(b, "<BR ALIGN=\"LEFT\"/>%s ", shown ? "   " : head);
        if (more)
            cgs_buf_addf(b, "+%u more ", more);
        if (params)
            cgs_buf_addf(b, "+%u param%s ", params, params == 1 ? "" : "s");
        if (syms)
            cgs_buf_addf(b, "+%u size%s", syms, syms == 1 ? "" : "s");
    }
    if (!n)
        cgs_buf_addf(b, "<BR ALIGN=\"LEFT\"/>%s -", head);
    cgs_buf_release(&t);
}

/* The inputs and outputs of a module group, in order of first use. */
static void group_io(const struct col *c, uint32_t q, const struct cgs_node ***in, uint32_t *n_in,
                     const struct cgs_node ***out, uint32_t *n_out)
{
    const struct group *gr = &c->groups[q];
    uint32_t ai = 0, ao = 0;
    *in = NULL;
    *out = NULL;
    *n_in = *n_out = 0;
    for (uint32_t k = 0; k < gr->n; k++) {
        const struct cgs_node *n = c->members[gr->off + k];
        for (uint32_t j = 0; j < n->n_inputs; j++) {
            const struct cgs_node *u = n->inputs[j];
            bool seen = false;
            if (c->group_of[u->index] == (int32_t)q)
                continue;
            for (uint32_t x = 0; x < *n_in && !seen; x++)
                seen = (*in)[x] == u;
            if (!seen) {
                CGS_ALLOC_GROW(*in, *n_in + 1, ai);
                (*in)[(*n_in)++] = u;
            }
            if (*n_in > 64)
                break;
        }
        for (uint32_t j = 0; j < n->n_users; j++)
            if (c->group_of[n->users[j]->index] != (int32_t)q) {
                CGS_ALLOC_GROW(*out, *n_out + 1, ao);
                (*out)[(*n_out)++] = n;
                break;
            }
    }
}

static void box_profile(const struct col *c, const struct box *bx, uint64_t *ns, uint64_t *kern,
                        bool *any)
{
    *ns = *kern = 0;
    *any = false;
    if (!c->prof_of)
        return;
    for (uint32_t q = bx->first; q <= bx->last; q += bx->step) {
        const struct cgs_prof_summary_piece *pp = c->prof_of[c->groups[q].piece];
        if (pp) {
            *ns += pp->gpu_ns;
            *kern += pp->kernels;
            *any = true;
        }
    }
}

static void draw_box(struct col *c, Agraph_t *root, uint32_t b, Agnode_t **out_node)
{
    const struct box *bx = &c->boxes[b];
    const struct group *g0 = &c->groups[bx->rep];
    struct cgs_buf *lbl = &c->a, *tip = &c->b, *tmp = &c->c;
    Agnode_t *v;
    uint64_t ns = 0, kern = 0;
    bool any = false;

    cgs_buf_reset(tmp);
    box_name(c, b, tmp);
    v = *out_node = gv_node(root, tmp->buf);
    cgs_buf_reset(lbl);
    cgs_buf_addf(lbl, "b:%s", tmp->buf);
    if (bx->kind == BOX_FOLD && c->o->view == CGS_DOT_VIEW_PIECES)
        /* a folded box's id names every piece it stands for (the page lists their nodes) */
        for (uint32_t q = bx->first + bx->step; bx->step && q <= bx->last; q += bx->step)
            cgs_buf_addf(lbl, ",%s", c->groups[q].name);
    gv_set(v, "id", lbl->buf);

    cgs_buf_reset(lbl);
    cgs_buf_reset(tip);
    cgs_buf_addstr(lbl, "<FONT POINT-SIZE=\"13\"><B>");
    html_add(lbl, group_title(g0), 60);
    if (bx->kind != BOX_ONE && strcmp(g0->name, c->groups[bx->last].name)) {
        cgs_buf_addstr(lbl, " .. ");
        html_add(lbl, group_title(&c->groups[bx->last]), 60);
    }
    cgs_buf_addstr(lbl, "</B>");
    if (bx->kind == BOX_FOLD)
        cgs_buf_addf(lbl, ", x%u", bx->count);
    cgs_buf_addstr(lbl, "</FONT><BR ALIGN=\"LEFT\"/>");
    if (bx->kind == BOX_RANGE) {
        cgs_buf_addf(lbl, "%u %s" DOT_SEP "%llu nodes (merged: over --max-boxes)", bx->count,
                     c->o->view == CGS_DOT_VIEW_PIECES ? "pieces" : "module runs",
                     (unsigned long long)bx->nodes);
    } else if (g0->kind == GROUP_MODULE) {
        cgs_buf_addf(lbl, "module" DOT_SEP "%u node%s", g0->n, g0->n == 1 ? "" : "s");
        if (bx->kind == BOX_FOLD)
            cgs_buf_addf(lbl, " each, %llu in all", (unsigned long long)bx->nodes);
        if (c->s && g0->n) {
            int32_t p0 = c->s->piece_of[c->members[g0->off]->index];
            int32_t p1 = c->s->piece_of[c->members[g0->off + g0->n - 1]->index];
            if (p0 >= 0 && p1 >= 0) {
                cgs_buf_addf(lbl, "<BR ALIGN=\"LEFT\"/>in %s", c->s->pieces[p0].name);
                if (p1 != p0)
                    cgs_buf_addf(lbl, " .. %s", c->s->pieces[p1].name);
            }
        }
    } else {
        const struct cgs_split_piece *p = &c->s->pieces[g0->piece];
        if (p->is_splitting_graph && c->s->policy != CGS_SPLIT_MAGI) {
            /* fusion and device policies: a piece outside the fused groups / the device runs */
            cgs_buf_addstr(lbl, c->s->policy == CGS_SPLIT_FUSION ? "not fused" : "other device");
        } else if (p->is_splitting_graph) {
            const char *op = p->n_nodes ? c->s->split_op_of[p->nodes[0]->index] : NULL;
            cgs_buf_addstr(lbl, "splitting (eager)");
            if (op) {
                cgs_buf_addstr(lbl, DOT_SEP);
                html_add(lbl, op, 60);
            }
        } else {
            cgs_buf_addf(lbl, "%s #%d", c->s->policy == CGS_SPLIT_FUSION ? "fused" : "compiled",
                         p->compile_index);
        }
        cgs_buf_addf(lbl, DOT_SEP "%u node%s%s", p->n_nodes, p->n_nodes == 1 ? "" : "s",
                     bx->kind == BOX_FOLD ? " each" : "");
        list_vals(lbl, "in: ", (const struct cgs_node *const *)p->inputs, p->n_inputs, 3);
        list_vals(lbl, "out:", (const struct cgs_node *const *)p->outputs, p->n_outputs, 3);
    }
    if (g0->kind == GROUP_MODULE && bx->kind != BOX_RANGE) {
        const struct cgs_node **in, **out;
        uint32_t n_in, n_out;
        group_io(c, bx->rep, &in, &n_in, &out, &n_out);
        list_vals(lbl, "in: ", in, n_in, 3);
        list_vals(lbl, "out:", out, n_out, 3);
        free(in);
        free(out);
    }
    box_profile(c, bx, &ns, &kern, &any);
    if (c->prof_of) {
        cgs_buf_reset(tmp);
        if (any)
            heat_text(ns, kern, c->o->profile->gpu_ns, tmp);
        else
            cgs_buf_addstr(tmp, "no kernels in the profile");
        cgs_buf_addstr(lbl, "<BR ALIGN=\"LEFT\"/><B>");
        html_add(lbl, tmp->buf, 120);
        cgs_buf_addstr(lbl, "</B>");
    }
    cgs_buf_addstr(lbl, "<BR ALIGN=\"LEFT\"/>");
    gv_set_html(v, "label", lbl->buf);

    // tooltip: the groups it stands for, and the source of its first node
    cgs_buf_reset(tmp);
    if (bx->kind == BOX_ONE)
        cgs_buf_addf(tmp, "%s: %u nodes", group_title(g0), g0->n);
    else
        cgs_buf_addf(tmp, "%s .. %s: %u %s, %llu nodes", group_title(g0),
                     group_title(&c->groups[bx->last]), bx->count,
                     bx->kind == BOX_FOLD ? "identical groups" : "groups",
                     (unsigned long long)bx->nodes);
    tip_line(tip, tmp->buf);
    if (g0->n) {
        cgs_buf_reset(tmp);
        if (source_line(cgs_node_stack_trace(c->g, c->members[g0->off]), tmp))
            tip_line(tip, tmp->buf);
    }
    if (c->s && g0->piece >= 0)
        for (uint32_t k = 0; k < c->s->n_boundaries; k++)
            if (c->s->boundaries[k].piece == (uint32_t)g0->piece) {
                cgs_buf_reset(tmp);
                cgs_buf_addf(tmp, "cut before %s: %s", g0->name, c->s->boundaries[k].reason);
                tip_line(tip, tmp->buf);
            }
    gv_set(v, "tooltip", tip->buf);

    gv_set(v, "margin", "0.15,0.08");
    gv_set(v, "fontsize", "10");
    if (g0->kind == GROUP_SPLITTING && bx->kind != BOX_RANGE) {
        gv_set(v, "style", "rounded,filled,dashed");
        gv_set(v, "fillcolor", COL_SPLIT_BG);
        gv_set(v, "color", COL_SPLIT_FG);
        gv_set(v, "penwidth", "2");
    } else if (g0->kind == GROUP_COMPILED) {
        gv_set(v, "fillcolor", COL_COMPILED_BG);
        gv_set(v, "color", COL_COMPILED_FG);
        gv_set(v, "penwidth", "1.5");
    } else {
        gv_set(v, "fillcolor", COL_MODULE_BG);
        gv_set(v, "color", COL_MODULE_FG);
    }
    if (bx->kind == BOX_FOLD)
        gv_set(v, "peripheries", "2");
    if (c->prof_of)
        heat_style(v, ns, c->o->profile->gpu_ns, any);
}

/* Aggregated edges between boxes: key (from + 1, to + 1); 0 = inputs, n + 1 = outputs. */
struct bedge {
    uint32_t from, to;
    uint32_t n_vals;
    const struct cgs_node *vals[2];
};

struct u64map {
    uint64_t *keys; /* 0 = empty */
    uint32_t *vals;
    size_t cap, count;
};

static uint32_t *u64map_slot(struct u64map *m, uint64_t key, bool *fresh)
{
    size_t i;
    if ((m->count + 1) * 2 > m->cap) {
        struct u64map n = {NULL, NULL, m->cap ? m->cap * 2 : 64, 0};
        n.keys = cgs_xcalloc(n.cap, sizeof(*n.keys));
        n.vals = cgs_xcalloc(n.cap, sizeof(*n.vals));
        for (size_t j = 0; j < m->cap; j++)
            if (m->keys[j]) {
                bool f;
                *u64map_slot(&n, m->keys[j], &f) = m->vals[j];
            }
        free(m->keys);
        free(m->vals);
        *m = n;
    }
    i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    *fresh = !m->keys[i];
    if (*fresh) {
        m->keys[i] = key;
        m->count++;
    }
    return &m->vals[i];
}

static Agraph_t *build_collapsed(const struct cgs_graph *g, const struct cgs_dot_opts *o,
                                 struct cgs_dot_stats *st, struct cgs_diag *d)
{
    struct col c = {.g = g, .o = o, .s = o->split};
    struct legend l = {CGS_BUF_INIT, 0};
    struct cgs_buf facts = CGS_BUF_INIT;
    struct u64map emap = {0}, vset = {0};
    struct bedge *edges = NULL;
    uint32_t n_edges = 0, alloc_edges = 0;
    Agraph_t *root;
    Agnode_t **bn, *in_node = NULL, *out_node = NULL;
    const struct cgs_node **ins = NULL;
    uint32_t n_ins = 0, alloc_ins = 0;
    bool any_fold = false, any_split = false, any_compiled = false, box_labels = true;

    if (o->view == CGS_DOT_VIEW_PIECES && !c.s) {
        cgs_diag_set(d, CGS_E_INVAL, "the pieces view needs a split (--split-ops or --policy)");
        return NULL;
    }
    root = open_root(g, o);
    if (!root) {
        cgs_diag_set(d, CGS_E_NOMEM, "graphviz could not open a graph");
        return NULL;
    }
    cgs_arena_init(&c.arena);
    cgs_buf_init(&c.a);
    cgs_buf_init(&c.b);
    cgs_buf_init(&c.c);
    c.depth = o->module_depth ? o->module_depth : auto_depth(g);
    st->module_depth = o->view == CGS_DOT_VIEW_MODULE ? c.depth : 0;
    make_groups(&c);
    signatures(&c);
    assign_sig_ids(&c);
    fold(&c);
    merge_ranges(&c, o->max_boxes ? o->max_boxes : CGS_DOT_DEFAULT_MAX_BOXES, st);
    if (c.s && o->profile && o->view == CGS_DOT_VIEW_PIECES)
        c.prof_of = profile_match(o->profile, c.s, &st->profile_unmatched);
    else if (c.s && o->profile)
        free(profile_match(o->profile, c.s, &st->profile_unmatched));

    // graph inputs: the user's tensors (parameters are counted in their boxes)
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        if (n->op == CGS_NODE_PLACEHOLDER && !is_param(n) && !is_sym_input(n)) {
            CGS_ALLOC_GROW(ins, n_ins + 1, alloc_ins);
            ins[n_ins++] = n;
        }
    }
    if (n_ins) {
        in_node = gv_node(root, ":inputs");
        cgs_buf_reset(&c.a);
        cgs_buf_addstr(&c.a, "<B>graph inputs</B>");
        list_vals(&c.a, "", ins, n_ins, 4);
        cgs_buf_addstr(&c.a, "<BR ALIGN=\"LEFT\"/>");
        gv_set_html(in_node, "label", c.a.buf);
        gv_set(in_node, "id", "b::inputs");
        gv_set(in_node, "fillcolor", COL_INPUT_BG);
        gv_set(in_node, "color", COL_INPUT_FG);
        gv_set(in_node, "fontsize", "10");
        st->nodes++;
    }
    bn = cgs_xcalloc(c.n_boxes + 1, sizeof(*bn));
    for (uint32_t b = 0; b < c.n_boxes; b++) {
        const struct box *bx = &c.boxes[b];
        const struct group *g0 = &c.groups[bx->rep];
        draw_box(&c, root, b, &bn[b]);
        any_fold |= bx->kind == BOX_FOLD;
        any_split |= g0->kind == GROUP_SPLITTING;
        any_compiled |= g0->kind == GROUP_COMPILED;
        st->folded += bx->kind == BOX_FOLD ? bx->count - 1 : 0;
        st->nodes++;
    }
    st->boxes = c.n_boxes;

    // edges: every use of a value across two boxes, aggregated per pair of boxes
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        uint32_t to;
        if (c.group_of[i] >= 0)
            to = c.box_of[c.group_of[i]] + 1;
        else if (n->op == CGS_NODE_OUTPUT)
            to = c.n_boxes + 1;
        else
            continue;
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            const struct cgs_node *u = n->inputs[k];
            uint32_t from, *slot;
            bool fresh;
            if (c.group_of[u->index] >= 0)
                from = c.box_of[c.group_of[u->index]] + 1;
            else if (u->op == CGS_NODE_PLACEHOLDER && !is_param(u) && !is_sym_input(u) && in_node)
                from = 0;
            else
                continue;
            if (from == to)
                continue;
            if (u->val && !val_is_tensorish(u->val))
                continue;
            slot = u64map_slot(&emap, ((uint64_t)from << 32) | to, &fresh);
            if (fresh) {
                CGS_ALLOC_GROW(edges, n_edges + 1, alloc_edges);
                edges[n_edges] = (struct bedge){from, to, 0, {NULL, NULL}};
                *slot = n_edges++;
            }
            // into a folded box: the values its first repeat takes (between the
            // boxes of a fold, those of the first repeat); out of one: the last's
            if (to <= c.n_boxes && c.boxes[to - 1].kind == BOX_FOLD &&
                ((uint32_t)c.group_of[i] != c.boxes[to - 1].rep ||
                 (from && c.boxes[from - 1].kind == BOX_FOLD &&
                  (uint32_t)c.group_of[u->index] != c.boxes[from - 1].rep)))
                continue;
            u64map_slot(&vset, ((uint64_t)(*slot + 1) << 32) | u->index, &fresh);
            if (fresh) {
                struct bedge *e = &edges[*slot];
                if (e->n_vals < 2)
                    e->vals[e->n_vals] = u;
                e->n_vals++;
            }
        }
    }
    for (uint32_t i = 0; i < n_edges; i++)
        if (edges[i].to == c.n_boxes + 1 && !out_node) {
            out_node = gv_node(root, ":outputs");
            gv_set(out_node, "id", "b::outputs");
            gv_set_html(out_node, "label", "<B>graph outputs</B>");
            gv_set(out_node, "fillcolor", COL_OUTPUT_BG);
            gv_set(out_node, "color", COL_OUTPUT_FG);
            st->nodes++;
        }
    // dot's layout of many long labelled edges takes minutes: past a size,
    // values go to the tooltips and the ranking and positioning passes are capped
    box_labels = n_edges <= CGS_DOT_BOX_EDGE_LABEL_MAX;
    if (c.n_boxes > CGS_DOT_BOX_FAST_LAYOUT || n_edges > CGS_DOT_BOX_EDGE_LABEL_MAX) {
        gv_set(root, "mclimit", "0.1");
        gv_set(root, "nslimit", "1");
        gv_set(root, "nslimit1", "1");
        gv_set(root, "splines", "line"); // spline routing of long edges costs the most
    }
    for (uint32_t i = 0; i < n_edges; i++) {
        const struct bedge *be = &edges[i];
        Agnode_t *t = be->from ? bn[be->from - 1] : in_node;
        Agnode_t *h = be->to == c.n_boxes + 1 ? out_node : bn[be->to - 1];
        bool back = be->from && be->to != c.n_boxes + 1 && be->to <= be->from;
        Agedge_t *e = gv_edge(root, t, h);
        st->edges++;
        cgs_buf_reset(&c.a);
        for (uint32_t k = 0; k < be->n_vals && k < 2; k++) {
            cgs_buf_addf(&c.a, "%s%s ", k ? "\\n" : "", be->vals[k]->name);
            cgs_val_text(&c.texts, be->vals[k]->val, val_text, &c.a);
        }
        if (be->n_vals > 2)
            cgs_buf_addf(&c.a, "\\n+%u more", be->n_vals - 2);
        if (be->to <= c.n_boxes && c.boxes[be->to - 1].kind == BOX_FOLD)
            cgs_buf_addstr(&c.a, "\\n(first repeat)");
        else if (be->from && c.boxes[be->from - 1].kind == BOX_FOLD)
            cgs_buf_addstr(&c.a, "\\n(last repeat)");
        if (box_labels)
            gv_set(e, "label", c.a.buf);
        cgs_buf_reset(&c.b);
        cgs_buf_addf(&c.b, "e:%s:", agnameof(t));
        cgs_buf_addstr(&c.b, agnameof(h));
        gv_set(e, "id", c.b.buf);
        cgs_buf_reset(&c.b);
        cgs_buf_addf(&c.b, "%s -> %s: %u value%s", agnameof(t), agnameof(h), be->n_vals,
                     be->n_vals == 1 ? "" : "s");
        cgs_buf_reset(&c.c);
        tip_add(&c.c, c.b.buf);
        for (uint32_t k = 0; k < be->n_vals && k < 2; k++) {
            cgs_buf_reset(&c.b);
            cgs_buf_addf(&c.b, "%s ", be->vals[k]->name);
            cgs_val_text(&c.texts, be->vals[k]->val, val_text, &c.b);
            tip_line(&c.c, c.b.buf);
        }
        gv_set(e, "tooltip", c.c.buf);
        if (back) {
            // the next repeat of a folded block: drawn, but it does not rank
            gv_set(e, "style", "dashed");
            gv_set(e, "constraint", "false");
            gv_set(e, "color", COL_COMPILED_FG);
            cgs_buf_reset(&c.a);
            cgs_buf_addf(&c.a, "next repeat (x%u)", c.boxes[be->from - 1].count);
            if (box_labels)
                gv_set(e, "label", c.a.buf);
        } else if (be->from && be->to != c.n_boxes + 1) {
            gv_set(e, "color", COL_CROSS);
            gv_set(e, "fontcolor", COL_CROSS);
            gv_set(e, "penwidth", "2");
        }
    }

    split_facts(g, o->view == CGS_DOT_VIEW_PIECES ? c.s : NULL, c.prof_of ? o->profile : NULL,
                o->layout, &facts);
    cgs_buf_addf(&facts, DOT_SEP "collapsed: %s",
                 o->view == CGS_DOT_VIEW_PIECES ? "one box per piece" : "");
    if (o->view == CGS_DOT_VIEW_MODULE)
        cgs_buf_addf(&facts, "one box per module run (depth %u)", c.depth);
    if (st->folded)
        cgs_buf_addf(&facts, ", %u repeats folded", st->folded);
    if (st->merged)
        cgs_buf_addf(&facts, ", %u merged into ranges", st->merged);
    if (!box_labels)
        cgs_buf_addf(&facts, DOT_SEP "values in edge tooltips (%u edges)", n_edges);
    if (any_compiled)
        legend_swatch(&l, COL_COMPILED_BG, COL_COMPILED_FG, "compiled piece");
    if (any_split)
        legend_swatch(&l, COL_SPLIT_BG, COL_SPLIT_FG, "splitting piece (eager)");
    if (o->view == CGS_DOT_VIEW_MODULE)
        legend_swatch(&l, COL_MODULE_BG, COL_MODULE_FG, "module run");
    if (any_fold)
        legend_swatch(&l, "white", COL_NODE_FG, "double border: xN identical, drawn once");
    legend_swatch(&l, COL_INPUT_BG, COL_INPUT_FG, "graph inputs");
    legend_line(&l, COL_CROSS, "tensors passed between boxes", false);
    if (any_fold)
        legend_line(&l, COL_COMPILED_FG, "into the next repeat", true);
    if (c.prof_of)
        legend_heat(&l);
    set_title(root, g->name && *g->name ? g->name : (g->file ? g->file : "graph"), facts.buf, &l);

    cgs_buf_release(&facts);
    cgs_buf_release(&l.b);
    free(bn);
    free(ins);
    free(edges);
    free(emap.keys);
    free(emap.vals);
    free(vset.keys);
    free(vset.vals);
    free(c.groups);
    free(c.group_of);
    free(c.local);
    free(c.members);
    free(c.boxes);
    free(c.box_of);
    free(c.prof_of);
    cgs_buf_release(&c.a);
    cgs_val_texts_release(&c.texts);
    cgs_buf_release(&c.b);
    cgs_buf_release(&c.c);
    cgs_arena_release(&c.arena);
    return root;
}

Agraph_t *cgs_dot_build(const struct cgs_graph *g, const struct cgs_dot_opts *opts,
                        struct cgs_dot_stats *stats, struct cgs_diag *d)
{
    struct cgs_dot_stats local;
    Agraph_t *r;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof(*stats));
    stats->view = opts->view;
    if (cgs_gv_load(d))
        return NULL;
    if (opts->view == CGS_DOT_VIEW_FULL) {
        r = build_full(g, opts, stats);
        if (!r)
            cgs_diag_set(d, CGS_E_NOMEM, "graphviz could not open a graph");
        return r;
    }
    return build_collapsed(g, opts, stats, d);
}

/* ---- cost ---------------------------------------------------------------------------------- */

/*
 * What dot's layout will cost: it ranks the nodes and turns every edge spanning k ranks into
 * k - 1 virtual nodes, and its crossing minimisation grows with them. Ranks here are the
 * longest path from a source in the order the nodes were made (the graph's order, which is
 * topological); edges against that order are counted as spanning one rank.
 */
void cgs_dot_cost(Agraph_t *dg, struct cgs_dot_cost *c)
{
    uint64_t max_seq = 0;
    uint32_t *rank;
    Agnode_t *v;

    memset(c, 0, sizeof(*c));
    c->nodes = (uint32_t)agnnodes(dg);
    c->edges = (uint32_t)agnedges(dg);
    for (v = agfstnode(dg); v; v = agnxtnode(dg, v))
        max_seq = AGSEQ(v) > max_seq ? AGSEQ(v) : max_seq;
    if (!c->nodes)
        return;
    rank = cgs_xcalloc((size_t)max_seq + 1, sizeof(*rank));
    for (v = agfstnode(dg); v; v = agnxtnode(dg, v)) {
        uint32_t r = 1;
        for (Agedge_t *e = agfstin(dg, v); e; e = agnxtin(dg, e))
            if (AGSEQ(agtail(e)) < AGSEQ(v) && rank[AGSEQ(agtail(e))] + 1 > r)
                r = rank[AGSEQ(agtail(e))] + 1;
        rank[AGSEQ(v)] = r;
        c->ranks = r > c->ranks ? r : c->ranks;
    }
    // a source (an input, a weight) is pulled down next to its first user, as dot's
    // network simplex ranking does to shorten its edges
    for (v = agfstnode(dg); v; v = agnxtnode(dg, v)) {
        uint32_t lo = UINT32_MAX;
        if (agfstin(dg, v))
            continue;
        for (Agedge_t *e = agfstout(dg, v); e; e = agnxtout(dg, e))
            if (AGSEQ(aghead(e)) > AGSEQ(v) && rank[AGSEQ(aghead(e))] < lo)
                lo = rank[AGSEQ(aghead(e))];
        if (lo != UINT32_MAX && lo > 1)
            rank[AGSEQ(v)] = lo - 1;
    }
    {
        /* the width of every rank, real and virtual nodes: dot's crossing minimisation swaps
           neighbours within ranks, so its cost follows the sum of the squared widths */
        int64_t *diff = cgs_xcalloc((size_t)c->ranks + 3, sizeof(*diff));
        int64_t w = 0;
        for (v = agfstnode(dg); v; v = agnxtnode(dg, v)) {
            diff[rank[AGSEQ(v)]]++;
            diff[rank[AGSEQ(v)] + 1]--;
            for (Agedge_t *e = agfstout(dg, v); e; e = agnxtout(dg, e)) {
                uint64_t h = AGSEQ(aghead(e)), t = AGSEQ(v);
                if (h > t && rank[h] > rank[t] + 1) {
                    c->virtual_nodes += rank[h] - rank[t] - 1;
                    c->long_edges++;
                    diff[rank[t] + 1]++;
                    diff[rank[h]]--;
                }
            }
        }
        c->width_sq = 0;
        c->max_width = 0;
        for (uint32_t r = 0; r <= c->ranks + 1; r++) {
            w += diff[r];
            c->width_sq += (double)w * (double)w;
            if (w > 0 && (uint64_t)w > c->max_width)
                c->max_width = (uint64_t)w;
        }
        free(diff);
    }
    free(rank);
    /*
     * Seconds of dot layout (docs/pictures.md has the runs it is fitted to): a start, a term
     * in the square of the ranks (network simplex, ranking and x positions, on a long graph:
     * 4,000 nodes in a chain of 2,251 ranks took 20 s where 1,435 nodes in 539 ranks took
     * 1.3) and one in the long edges times their virtual nodes (crossing minimisation: a
     * 2,326-node backward graph with 178,673 virtual nodes took 72 s). Within 3x on the
     * bundled, fixture and generated graphs measured; a guide for "this will take a while",
     * not a promise.
     */
    {
        double work = (double)c->virtual_nodes * (double)c->long_edges;
        c->est_seconds = 0.08 + 4e-6 * (double)c->ranks * (double)c->ranks +
                         (work > 0 ? 3e-12 * pow(work, 1.63) : 0);
    }
}

/* ---- rendering ----------------------------------------------------------------------------- */

static const char *const formats[] = {"dot", "svg", "png", "pdf"};

bool cgs_dot_format_known(const char *format)
{
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (format && !strcmp(format, formats[i]))
            return true;
    return false;
}

const char *cgs_dot_format_from_path(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL, *slash = path ? strrchr(path, '/') : NULL;
    if (!dot || (slash && dot < slash))
        return NULL;
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (!strcasecmp(dot + 1, formats[i]))
            return formats[i];
    if (!strcasecmp(dot + 1, "gv"))
        return "dot";
    return NULL;
}

/* Graphviz's messages, kept for the diag instead of printed. */
static char gv_msg[512];
static size_t gv_msg_len;

static int gv_collect(char *s)
{
    size_t n = strlen(s);
    if (gv_msg_len + n >= sizeof(gv_msg))
        n = sizeof(gv_msg) - 1 - gv_msg_len;
    memcpy(gv_msg + gv_msg_len, s, n);
    gv_msg_len += n;
    gv_msg[gv_msg_len] = 0;
    return 0;
}

static int gv_fail(struct cgs_diag *d, const char *what)
{
    // first line of Graphviz's message, if it said something
    char *nl = strchr(gv_msg, '\n');
    if (nl)
        *nl = 0;
    return cgs_diag_set(d, CGS_E_IO, "graphviz %s failed%s%s", what, gv_msg_len ? ": " : "",
                        gv_msg);
}

/*
 * One Graphviz context for the whole process. Graphviz 2.42's pango plugin
 * caches a pointer to the last font name it measured, and that name lives in
 * the context's font table: freeing a context and rendering with a new one
 * reads freed memory. The context stays reachable until exit.
 */
static GVC_t *gvc_get(void)
{
    static GVC_t *gvc;
    if (!gvc)
        gvc = gvContext();
    return gvc;
}

/*
 * SVG's context: Graphviz's own two plugins (the dot layout, the core renderers), taken from its
 * plugin folder beside libgvc and named to it, so that no configuration is read and no other
 * plugin is opened. Without the pango plugin Graphviz sizes text by its built-in metrics of
 * Helvetica (Arial's widths) rather than by measuring it with the fonts fontconfig finds here:
 * SVG text is drawn by the viewer's fonts anyway (a browser's Helvetica or its Arial-metric
 * stand-in), and pango's start-up (fontconfig reading its configuration and font caches) was
 * the larger part of drawing a picture of a hundred boxes. NULL where the plugins are not
 * found: the full context then draws SVG too.
 */
static GVC_t *gvc_svg_get(void)
{
    static GVC_t *gvc;
    static bool tried;
    static lt_symlist_t builtins[3];
    static const char *const libs[2][2] = {
        {"libgvplugin_dot_layout.so.6", "gvplugin_dot_layout_LTX_library"},
        {"libgvplugin_core.so.6", "gvplugin_core_LTX_library"},
    };
    Dl_info where;
    char dir[4096], path[4200];
    const char *slash;
    GVC_t *(*start)(void) = &gvContext;
    void *in_libgvc;

    if (tried)
        return gvc;
    tried = true;
    memcpy(&in_libgvc, &start, sizeof(in_libgvc)); /* an address inside libgvc, for dladdr */
    if (!dladdr(in_libgvc, &where) || !where.dli_fname ||
        !(slash = strrchr(where.dli_fname, '/')) ||
        (size_t)(slash - where.dli_fname) >= sizeof(dir) - 16)
        return NULL;
    snprintf(dir, sizeof(dir), "%.*s/graphviz", (int)(slash - where.dli_fname), where.dli_fname);
    for (int i = 0; i < 2; i++) {
        void *h, *sym;
        snprintf(path, sizeof(path), "%s/%s", dir, libs[i][0]);
        if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
            return NULL;
        if (!(sym = dlsym(h, libs[i][1])))
            return NULL; /* the library stays open: dlclose of a half-bound plugin helps nothing */
        builtins[i].name = libs[i][1];
        builtins[i].address = sym;
    }
    gvc = gvContextPlugins(builtins, 0);
    return gvc;
}

/*
 * Graphviz's plugins print some messages straight to standard error ("(null): graph is too
 * large for cairo-renderer bitmaps. Scaling by 0.62 to fit"), past agseterrf. While Graphviz
 * works, fd 2 goes to a temporary file; what it said is read back into gv_msg afterwards.
 */
struct stderr_capture {
    int saved;
    FILE *tmp;
};

static void capture_begin(struct stderr_capture *c)
{
    c->saved = -1;
    c->tmp = tmpfile();
    fflush(stderr);
    if (c->tmp && (c->saved = dup(2)) >= 0 && dup2(fileno(c->tmp), 2) < 0) {
        close(c->saved);
        c->saved = -1;
    }
}

static void capture_end(struct stderr_capture *c)
{
    char line[512];
    fflush(stderr);
    if (c->saved >= 0) {
        dup2(c->saved, 2);
        close(c->saved);
    }
    if (!c->tmp)
        return;
    rewind(c->tmp);
    while (fgets(line, sizeof(line), c->tmp)) {
        const char *m = line;
        if (!strncmp(m, "(null): ", 8))
            m += 8;
        gv_collect((char *)(uintptr_t)m);
    }
    fclose(c->tmp);
}

/*
 * cairo draws a line's underscores below the line height Graphviz gives an HTML label's lines
 * (its font size), so in a PNG they touch the next line ("l_ids_" over "+6 params"). A
 * 2-point line between the lines of every multi-line label keeps them apart; SVG and PDF,
 * drawn by the viewer's own text engine, keep the labels as built.
 */
static void gap_label(void *obj)
{
    const char *l = gv_get(obj, "label");
    struct cgs_buf b = CGS_BUF_INIT;
    const char *p, *q;
    if (!l)
        return;
    if (!aghtmlstr((char *)(uintptr_t)l)) {
        /* a plain label: its lines ("\\n" escapes) as HTML lines with the gap */
        if (!strstr(l, "\\n"))
            return;
        for (p = l; *p; p++) {
            if (p[0] == '\\' && p[1] == 'n') {
                cgs_buf_addstr(&b, p[2] ? "<BR/><FONT POINT-SIZE=\"2\"> </FONT><BR/>" : "");
                p++;
            } else if (*p == '&' || *p == '<' || *p == '>') {
                cgs_buf_addstr(&b, *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : "&gt;");
            } else {
                cgs_buf_add(&b, p, 1);
            }
        }
        gv_set_html(obj, "label", b.buf);
        cgs_buf_release(&b);
        return;
    }
    if (!strstr(l, "<BR"))
        return;
    for (p = l; (q = strstr(p, "<BR")) && strstr(q, "/>"); p = strstr(q, "/>") + 2) {
        const char *end = strstr(q, "/>") + 2;
        cgs_buf_add(&b, p, (size_t)(end - p)); /* up to the break, itself included */
        cgs_buf_addstr(&b, "<FONT POINT-SIZE=\"2\"> </FONT>");
        cgs_buf_add(&b, q, (size_t)(end - q)); /* the same break again, after the gap */
    }
    cgs_buf_addstr(&b, p);
    gv_set_html(obj, "label", b.buf);
    cgs_buf_release(&b);
}

static void png_line_gaps(Agraph_t *dg)
{
    const char *done = gv_get(dg, "cgscope_png_gaps");
    if (done && *done)
        return; /* once: a second render (scaled to fit) keeps the first one's labels */
    gv_set(dg, "cgscope_png_gaps", "1");
    for (Agnode_t *v = agfstnode(dg); v; v = agnxtnode(dg, v)) {
        gap_label(v);
        for (Agedge_t *e = agfstout(dg, v); e; e = agnxtout(dg, e))
            gap_label(e);
    }
}

int cgs_dot_render_ex(Agraph_t *dg, const char *format, const struct cgs_dot_render_opts *o,
                      char **data, size_t *len, struct cgs_dot_render_info *info,
                      struct cgs_diag *d)
{
    GVC_t *gvc;
    char *res = NULL;
    unsigned int rlen = 0;
    int rc = 0;
    struct stderr_capture cap;
    struct cgs_dot_render_info local;

    if (!info)
        info = &local;
    memset(info, 0, sizeof(*info));
    *data = NULL;
    *len = 0;
    if (!cgs_dot_format_known(format))
        return cgs_diag_set(d, CGS_E_FORMAT, "unknown picture format '%s' (dot, svg, png, pdf)",
                            format ? format : "");
    if (cgs_gv_load(d))
        return -1;
    gv_msg_len = 0;
    gv_msg[0] = 0;
    agseterrf(gv_collect);
    if (!strcmp(format, "dot")) {
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        if (!f)
            return cgs_diag_set(d, CGS_E_NOMEM, "cannot open a memory stream");
        if (agwrite(dg, f) == EOF) {
            fclose(f);
            free(buf);
            return gv_fail(d, "writing DOT");
        }
        if (fclose(f)) {
            free(buf);
            return cgs_diag_set(d, CGS_E_NOMEM, "cannot write DOT to memory");
        }
        *data = buf;
        *len = n;
        return 0;
    }
    gvc = strcmp(format, "svg") ? NULL : gvc_svg_get();
    if (!gvc)
        gvc = gvc_get();
    if (!gvc)
        return cgs_diag_set(d, CGS_E_NOMEM, "graphviz could not start");
    if (!strcmp(format, "png"))
        png_line_gaps(dg);
    capture_begin(&cap);
    if (gvLayout(gvc, dg, "dot")) {
        capture_end(&cap);
        return gv_fail(d, "layout");
    }
    {
        /* the picture's size: points at 72 per inch; bitmaps at 96 dpi unless told */
        double dpi = 96.0;
        const char *ds = agget(dg, (char *)(uintptr_t)"dpi");
        boxf bb = GD_bb(dg);
        if (ds && *ds && atof(ds) > 0)
            dpi = atof(ds);
        info->width_pt = bb.UR.x - bb.LL.x;
        info->height_pt = bb.UR.y - bb.LL.y;
        info->width_px = info->width_pt * dpi / 72.0;
        info->height_px = info->height_pt * dpi / 72.0;
    }
    if (o && o->max_bitmap_side && !strcmp(format, "png") &&
        (info->width_px > o->max_bitmap_side || info->height_px > o->max_bitmap_side)) {
        info->too_large = true;
        gvFreeLayout(gvc, dg);
        capture_end(&cap);
        return 0;
    }
    if (o && o->max_bitmap_pixels && !strcmp(format, "png") &&
        info->width_px * info->height_px > o->max_bitmap_pixels) {
        info->too_many_pixels = true;
        gvFreeLayout(gvc, dg);
        capture_end(&cap);
        return 0;
    }
    if (o && o->laid_out)
        o->laid_out(o->ctx, info);
    if (gvRenderData(gvc, dg, format, &res, &rlen) || !res) {
        rc = 1;
    } else {
        *data = cgs_xmalloc((size_t)rlen + 1);
        memcpy(*data, res, rlen);
        (*data)[rlen] = 0;
        *len = rlen;
    }
    capture_end(&cap);
    if (rc)
        rc = gv_fail(d, "rendering");
    if (res)
        gvFreeRenderData(res);
    gvFreeLayout(gvc, dg);
    snprintf(info->messages, sizeof(info->messages), "%s", gv_msg);
    return rc;
}

int cgs_dot_render(Agraph_t *dg, const char *format, char **data, size_t *len, struct cgs_diag *d)
{
    return cgs_dot_render_ex(dg, format, NULL, data, len, NULL, d);
}
