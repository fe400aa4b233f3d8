/*
 * Compile-cache replay (`cgscope cache simulate`): which lookups a run over a sequence of
 * runtime shapes would hit, under
 *   - MagiCompiler's policy: each compiled piece of the split is compiled once for the
 *     dynamic shape when the frame is compiled, and again for each runtime shape listed in
 *     compile_sizes on its first use; other shapes run the dynamic artifact. The cache key is
 *     (runtime_shape, graph_index, backend), graph_index counting compiled pieces.
 *   - MegEngine's CompiledOp policy: every operator call is compiled per key = the op and
 *     each input's dtype, device and shape (inputs of at most 7 elements also by value,
 *     which a graph cannot know: such keys are marked value-dependent).
 * The runtime shape binds one size symbol of the graph (its first, or the one named).
 */
#ifndef CGS_CACHESIM_H
#define CGS_CACHESIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/run/dash.h"
#include "lib/base/diag.h"
#include "lib/ir/graph.h"
#include "lib/passes/shapes.h"
#include "lib/passes/split.h"

enum cgs_cachesim_policy { CGS_CACHESIM_MAGI, CGS_CACHESIM_MEGENGINE, CGS_CACHESIM_POLICY_COUNT };
/* "magi", "megengine", NULL */
extern const char *const cgs_cachesim_policy_names[CGS_CACHESIM_POLICY_COUNT + 1];
/* The policy of a name, or -1. */
int cgs_cachesim_policy_from_name(const char *name);

enum cgs_cachesim_kind { CGS_SIM_MISS, CGS_SIM_HIT, CGS_SIM_COMPILE, CGS_SIM_SKIP };

struct cgs_cachesim_event {
    enum cgs_cachesim_kind kind;
    uint32_t call;          /* 0: the frame's compile; k: the k-th runtime call */
    int64_t graph_index;    /* magi: compiled piece; megengine: the call node's index */
    bool dynamic;           /* magi: the dynamic-shape artifact */
    int64_t runtime_shape;
    const char *key;        /* artifact_shape_8_subgraph_3, or the op key (megengine) */
    const char *piece;      /* magi: submod_N; megengine: the node's name */
};

struct cgs_cachesim_opts {
    enum cgs_cachesim_policy policy;
    const int64_t *shapes;        /* the runtime shapes, in call order */
    size_t n_shapes;
    const int64_t *compile_sizes; /* magi */
    size_t n_compile_sizes;
    const char *symbol;           /* the size symbol the shapes bind; NULL: the graph's first */
    const char *backend;          /* "inductor" */
    /* magi, a warm start: the entries of a compile-cache index (lib/run/dash.h) are on disk; a
       lookup of one is a hit, after restart_analysis_count skips (MagiCompiler's loader
       returns nothing that many times first, as its bake saw Dynamo restart the analysis) */
    const struct cgs_dash_entry *warm;
    size_t n_warm;
};

struct cgs_cachesim {
    struct cgs_cachesim_event *events;
    size_t n_events, alloc;
    uint64_t lookups, hits, misses, compiles, value_dependent_keys;
    uint64_t restart_skips;       /* warm start: lookups answered "not yet" (a miss each) */
    const char *symbol;           /* the symbol bound */
    char *strings;                /* the keys' text, freed with the result */
    size_t strings_len, strings_alloc;
    size_t *key_offs;             /* per event: offset of its key in strings */
    size_t key_alloc;
};

/* Run the replay; split is needed for magi, shapes (inferred on g) for megengine. */
int cgs_cachesim_run(struct cgs_graph *g, const struct cgs_split *split,
                     const struct cgs_shapes *shapes, const struct cgs_cachesim_opts *o,
                     struct cgs_cachesim *out, struct cgs_diag *d) CGS_WUR;
void cgs_cachesim_release(struct cgs_cachesim *s);

#endif
