/*
 * What changed between two runs (cgscope diff A B): the same program before and after a model
 * change, a torch upgrade or a config flip.
 *
 * A run is what a job read: compile records (TORCH_TRACE: lib/run/dash.h) and analysed graphs.
 * The diff pairs what belongs together, then compares each pair:
 *   frames       by code object (file's last part and function name; the nth such frame of a
 *                rank and run of the log with the nth), compile ids in order within a frame;
 *   graphs       by paired compile id, stage and rank; graph files by file name, or the one
 *                graph of each side;
 *   nodes        structurally, within a paired graph: placeholders by argument name, every other
 *                node by (operator, its nth use of that operator), never by name alone;
 *   GPU time     pieces by name ("0/0/submod_1"), kernels by name within a paired piece.
 * and reports every change, most costly first, with both sides' values. Timing is reported only
 * past a threshold, so that two runs of one program report nothing: compile time past a share
 * and a floor; GPU time when the medians of the calls differ past a share of A's median, past
 * the larger interquartile range of the two sides' calls (the noise: a wobble within the
 * calls' own spread is no change) and by a microsecond a call at least.
 *
 * Everything in a struct cgs_diff is owned by it (cgs_diff_release frees it all).
 */
#ifndef CGS_DIFF_H
#define CGS_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/passes/layout.h"
#include "lib/passes/shapes.h"
#include "lib/passes/split.h"
#include "lib/run/dash.h"
#include "lib/run/prof.h"

/* X(ID, "json kind"): in the order a change costs a user, most first. */
#define CGS_DIFF_KINDS(X)                                                                          \
    X(COMPILE_FAILURE, "compile_failure")                                                          \
    X(GRAPH_BREAK, "graph_break")                                                                  \
    X(RECOMPILES, "recompiles")                                                                    \
    X(GRAPH, "graph")                                                                              \
    X(PIECES, "pieces")                                                                            \
    X(OPS, "ops")                                                                                  \
    X(SYMBOLS, "symbols")                                                                          \
    X(SHAPES, "shapes")                                                                            \
    X(DTYPES, "dtypes")                                                                            \
    X(STRIDES, "strides")                                                                          \
    X(LAYOUT, "layout")                                                                            \
    X(CACHE_KEY, "cache_key")                                                                      \
    X(COMPILE_TIME, "compile_time")                                                                \
    X(GPU_TIME, "gpu_time")
#define CGS_DIFF_ENUM_(id, name) CGS_DIFF_##id,
enum cgs_diff_kind { CGS_DIFF_KINDS(CGS_DIFF_ENUM_) CGS_DIFF_KIND_COUNT };
#undef CGS_DIFF_ENUM_
extern const char *const cgs_diff_kind_names[CGS_DIFF_KIND_COUNT + 1]; /* NULL-ended */
int cgs_diff_kind_from_name(const char *name);                           /* -1: none */

/* A graph of a run. */
struct cgs_diff_graph {
    const char *label;       /* its ref or file */
    const char *compile_id;  /* a log's graph: "0/1"; NULL for a graph file */
    const char *stage;       /* "dynamo", "aot_forward", "post_grad", ...; NULL unknown */
    int rank;                /* -1 none */
    int occurrence;          /* the compile id's nth use in its log (1 the first) */
    bool backward;           /* the backward's post-grad graph */
    const struct cgs_graph *g; /* NULL when it was not read */
    const struct cgs_split *split;
    const struct cgs_shapes *shapes;
    const struct cgs_layout *layout;
    bool piecewise;          /* split by splitting ops (pieces are compared) */
};

struct cgs_diff_input {
    const char *name;            /* what the user gave ("a.log") */
    const struct cgs_dash *dash; /* compile records, or NULL */
    const struct cgs_diff_graph *graphs;
    uint32_t n_graphs;
    /* the run's CUPTI profile, built with per-call samples (cgs_prof_opts.samples), or NULL */
    const struct cgs_prof_report *prof;
    /* graphs read when the diff needs them (their g NULL until then; NULL: every graph read):
       load fills graph i's g, split, shapes and layout into x (false: it does not load), unload
       frees them; the diff holds one graph of each run at a time */
    bool (*load)(void *ctx, uint32_t i, struct cgs_diff_graph *x);
    void (*unload)(void *ctx, uint32_t i);
    void *ctx;
};

struct cgs_diff_opts {
    double compile_time_pct; /* a compile slower by this share of A's time, or faster by the
                                same factor, is a change (100: twice as slow or fast) */
    double compile_time_ms;  /* ... and by at least this much (1000) */
    double gpu_time_pct;     /* a piece's or kernel's GPU time a call past this, and past the
                                noise across calls, is a change (5) */
};

/* The defaults (a run against itself, or two runs of one program, report nothing: one compile
 * of one program took 3.2 s in a machine's first process and 1.9 s in its second, a phase of it
 * 2.4x less, tests/data/diffpairs/same). */
#define CGS_DIFF_OPTS_DEFAULT {100, 1000, 5}

/* What was paired: a frame, a compile or a graph; a or b NULL when it has no partner. */
struct cgs_diff_pair {
    const char *what; /* "frame", "compile", "graph" (static) */
    char *a, *b;
};

struct cgs_diff_change {
    enum cgs_diff_kind kind;
    char *subject; /* where: "graph 0/0:dynamo (fn, model.py)", "frame fn (model.py)" */
    char *a, *b;   /* each side's value ("" none) */
    char *message; /* one line a person reads */
    bool worse;    /* in the direction a regression goes (added break, more recompiles, ...) */
    /* where in B (for the page's marks; each NULL when it does not apply): the graph's label,
       the pieces (", "-separated names in that graph) and the compiles (", "-separated ids) */
    char *graph, *pieces, *compile_ids;
    int rank;      /* -1 none */
    double pct;    /* timing: B against A, in percent (+ slower); 0 otherwise */
    double cost;   /* the order within a kind */
};

struct cgs_diff {
    struct cgs_diff_pair *pairs;
    uint32_t n_pairs, alloc_pairs;
    struct cgs_diff_change *changes; /* sorted: worse first, then by kind, then cost */
    uint32_t n_changes, alloc_changes;
    /* two runs of one rank each, different ranks (rank 0's log against rank 3's): those ranks,
       paired with each other in every pairing; -1 otherwise (ranks pair with themselves) */
    int rank_a, rank_b;
};

/* Whether item is one of list's ", "-separated items (a change's pieces or compile ids). */
bool cgs_diff_listed(const char *list, const char *item);

void cgs_diff_build(const struct cgs_diff_input *a, const struct cgs_diff_input *b,
                    const struct cgs_diff_opts *opts, struct cgs_diff *out);
void cgs_diff_release(struct cgs_diff *d);

#endif
