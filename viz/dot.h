/*
 * Pictures of a graph and its pieces, built with Graphviz's cgraph API and
 * rendered with gvc (never hand-assembled DOT text).
 *
 * Three views:
 *   full     every node, every piece a cluster named "cluster_<piece>"
 *            (cluster_submod_3), splitting pieces styled apart, edges
 *            labelled with the tensor they carry, cross-piece edges bold;
 *            single-use parameters are folded into their user's label;
 *   pieces   one box per piece (node count, inputs, outputs, shapes);
 *   module   one box per run of nodes sharing a module_path prefix.
 * The collapsed views fold repeated identical boxes (transformer layers:
 * "submod_2 .. submod_62, x31") and merge ranges of boxes beyond max_boxes.
 *
 * Determinism: the same graph and options give the same cgraph graph, so
 * byte-identical DOT and SVG: Graphviz names and ids come from node and
 * piece names ("n-<node>", "cluster_<piece>", "e-<tail>-<head>"), objects
 * are created in graph order, and nothing depends on pointers or time.
 *
 * Nothing here prints: messages go to the caller's struct cgs_diag.
 * Ownership: cgs_dot_build returns a cgraph graph the caller closes with
 * agclose(); it borrows the graph and the analyses, which must outlive it.
 */
#ifndef CGS_VIZ_DOT_H
#define CGS_VIZ_DOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"
#include "lib/ir/graph.h"
#include "lib/passes/layout.h"
#include "lib/run/prof.h"
#include "lib/passes/shapes.h"
#include "lib/passes/split.h"
#include "viz/gv.h"

enum cgs_dot_view {
    CGS_DOT_VIEW_FULL,   /* every node; pieces are clusters */
    CGS_DOT_VIEW_PIECES, /* one box per piece */
    CGS_DOT_VIEW_MODULE, /* one box per module_path prefix run */
};

/* Default automatic collapse threshold (nodes) of `cgscope dot`. */
#define CGS_DOT_DEFAULT_MAX_NODES 1500
/* Collapsed views: boxes drawn at most (ranges of boxes merge beyond). */
#define CGS_DOT_DEFAULT_MAX_BOXES 200
/* Full view: edges carry shape labels up to this many drawn nodes (tooltips beyond). */
#define CGS_DOT_EDGE_LABEL_MAX_NODES 600
/* Full view: and up to this many ranks spanned by long edges (see dot.c). */
#define CGS_DOT_EDGE_LABEL_MAX_SPAN 3000
/* Full view: above this many drawn nodes, dot's crossing and ranking passes are capped. */
#define CGS_DOT_FAST_LAYOUT_NODES 1000
/* Collapsed views: edges carry value labels up to this many edges (tooltips beyond). */
#define CGS_DOT_BOX_EDGE_LABEL_MAX 80
/* Collapsed views: above this many boxes (or edges), dot's passes are capped. */
#define CGS_DOT_BOX_FAST_LAYOUT 60
/* Deepest module_path prefix the module view groups by. */
#define CGS_DOT_MAX_MODULE_DEPTH 16

/* ---- building ------------------------------------------------------------------------------- */

struct cgs_dot_opts {
    enum cgs_dot_view view;
    unsigned module_depth;                 /* module view: path components kept; 0 = automatic */
    bool no_fold;                          /* collapsed views: draw repeated boxes one by one */
    uint32_t max_boxes;                    /* collapsed views; 0 = CGS_DOT_DEFAULT_MAX_BOXES */
    const char *rankdir;                   /* "TB" (default), "LR", ... */
    const struct cgs_split *split;         /* pieces; NULL draws none (pieces view needs it) */
    const struct cgs_layout *layout;       /* channels-last marks; may be NULL */
    const struct cgs_shapes *shapes;       /* unknown ops and shape errors flagged; may be NULL */
    const struct cgs_prof_summary *profile; /* GPU time per piece; may be NULL */
};

struct cgs_dot_stats {
    enum cgs_dot_view view;
    uint32_t nodes, edges, clusters; /* cgraph objects made (legend excluded) */
    uint32_t boxes;                  /* collapsed views: boxes drawn */
    uint32_t folded;                 /* collapsed views: groups drawn by another's box */
    uint32_t merged;                 /* collapsed views: groups merged into range boxes */
    unsigned module_depth;           /* module view: the depth used */
    uint32_t flagged;                /* full view: nodes flagged (unknown op, lint, shape) */
    uint32_t profile_unmatched;      /* profile pieces that name no piece of the split */
};

/*
 * Build the picture of g (a root graph with linked nodes). Returns a new
 * cgraph graph (agclose() it), or NULL with d filled: the pieces view without
 * a split, or Graphviz out of memory. stats may be NULL.
 */
Agraph_t *cgs_dot_build(const struct cgs_graph *g, const struct cgs_dot_opts *opts,
                        struct cgs_dot_stats *stats, struct cgs_diag *d) CGS_WUR;

/* ---- cost ------------------------------------------------------------------------------------ */

/* What a layout of a built graph will cost (see cgs_dot_cost). */
struct cgs_dot_cost {
    uint32_t nodes, edges, ranks;
    uint32_t long_edges;    /* edges spanning more than one rank */
    uint64_t virtual_nodes; /* dot's virtual nodes: edge spans beyond one rank */
    uint64_t max_width;     /* the widest rank, real and virtual nodes */
    double width_sq;        /* the ranks' widths squared, added up */
    double est_seconds;     /* estimated layout time */
};
void cgs_dot_cost(Agraph_t *dg, struct cgs_dot_cost *c);

/* ---- rendering ---------------------------------------------------------------------------- */

/* Whether cgscope renders this format: "dot", "svg", "png", "pdf". */
bool cgs_dot_format_known(const char *format);

/* The format a path's extension names ("x.svg" -> "svg"); NULL when none is known. */
const char *cgs_dot_format_from_path(const char *path);

/*
 * Render dg in format into a heap buffer (*data, *len; caller frees with
 * free()). "dot" writes the graph as built, without layout (fast, stable);
 * the others run the dot layout engine first. Returns 0 or -CGS_E_* with d
 * filled (Graphviz's own message when it has one).
 */
int cgs_dot_render(Agraph_t *dg, const char *format, char **data, size_t *len,
                   struct cgs_diag *d) CGS_WUR;

struct cgs_dot_render_info;
struct cgs_dot_render_opts {
    double max_bitmap_side;   /* png: pixels on a side past which nothing is rendered (the
                                 layout's size is reported, too_large set); 0 = no limit */
    double max_bitmap_pixels; /* png: the same for width x height (too_many_pixels set) */
    /* called once the layout is done, before rendering, with its size (NULL: not called) */
    void (*laid_out)(void *ctx, const struct cgs_dot_render_info *info);
    void *ctx;
};

struct cgs_dot_render_info {
    double width_pt, height_pt; /* the layout's size (72 points per inch) */
    double width_px, height_px; /* at the graph's dpi (96 unless set) */
    bool too_large;             /* past max_bitmap_side: no data */
    bool too_many_pixels;       /* past max_bitmap_pixels (and within the side): no data */
    char messages[512];         /* what Graphviz said (its warnings), one per line */
};

/* cgs_dot_render with limits and what Graphviz said; opts and info may be NULL. */
int cgs_dot_render_ex(Agraph_t *dg, const char *format, const struct cgs_dot_render_opts *opts,
                      char **data, size_t *len, struct cgs_dot_render_info *info,
                      struct cgs_diag *d) CGS_WUR;

#endif
