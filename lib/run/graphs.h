/*
 * Graphs where users already have them: the printed graphs a TORCH_TRACE log carries (every
 * Dynamo graph, the post-grad graph Inductor lowers, AOT's forward / backward / inference
 * graphs; a file or a folder of per-rank logs, compressed or not, read by the same reader as
 * `top`, `breaks` and `cache diff`), and the split graph vLLM and MagiCompiler keep in their
 * compile-cache folders (computation_graph.py). Each graph has a ref, a string every command
 * takes as GRAPH:
 *
 *   PATH#ID:STAGE        trace.log#0/0:dynamo, logs/rank1.log#!0/1/0:aot_backward
 *   PATH#rN:ID:STAGE     the same with the rank, when one file holds several (rare)
 *
 * and a bare PATH picks a graph (the first of the stage the command works on) with a note
 * saying which and how many there are.
 */
#ifndef CGS_RUN_GRAPHS_H
#define CGS_RUN_GRAPHS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/base/diag.h"
#include "lib/ir/graph.h"
#include "lib/run/dash.h"

struct cgs_graphs_item {
    char *source;     /* the file it was read from */
    char *compile_id; /* "0/0"; NULL for a graph file of a folder (cache, depyf) */
    char *group;      /* graph files of one compile share it (depyf's __compiled_fn_3) */
    const char *stage;
    int rank;         /* -1 when the source has none */
    int attempt;
    bool backward;    /* post_grad: the backward's graph (ref STAGE post_grad:backward) */
    int inference;    /* a graph file's compile: inference 1, training 0, not known -1 */
    int occurrence;   /* the compile id's 2nd, 3rd, ... use in the log: ref STAGE@N */
    uint64_t line;    /* the record's line (1 for a file that is one graph) */
    const char *text; /* the printed graph (borrowed from the reader's model) */
    char *owned_text; /* or owned, for a file read whole */
    char *ref;
    uint32_t model_graph; /* a log's graph: its index in the model; UINT32_MAX for a file */
};

struct cgs_graphs_early; /* graphs read while the logs were (cgs_graphs_collect_every) */

struct cgs_graphs {
    struct cgs_dash dash; /* the trace reader's model (graphs and symbols kept) */
    const struct cgs_dash *model; /* where the logs' graphs and symbols are: &dash, or the
                                     model given to cgs_graphs_collect_read */
    struct cgs_graphs_item *items;
    uint32_t n_items, alloc_items;
    uint64_t bad_lines;
    char first_bad[256];
    char **file_names; /* cgs_graphs_file_name's, made on first use */
    struct cgs_graphs_early *early;
};

/* Whether path names a graph source of this module (a ref, a TORCH_TRACE log, compressed or
 * not, a folder, a computation_graph.py) rather than a graph file. */
bool cgs_graphs_is_source(const char *path);

/*
 * Read every graph the sources carry; 0, or -1 with d filled when nothing could be read (a
 * source that is not there, or holds no graph: the message says what it holds). warn, when
 * given, hears of each source that gave nothing.
 */
int cgs_graphs_collect(struct cgs_graphs *gs, const char *const *paths, uint32_t n,
                       void (*warn)(const char *file, const char *msg, void *ctx), void *ctx,
                       struct cgs_diag *d);
/*
 * The same, for a caller that then loads every graph (cgs_graphs_load_many): while the thread
 * that feeds the logs' records would wait for a helper reading ahead, it reads the graphs the
 * logs have given so far; one that nothing read later changes is handed to the load as it is.
 * The answers are cgs_graphs_collect's and cgs_graphs_load's.
 */
int cgs_graphs_collect_every(struct cgs_graphs *gs, const char *const *paths, uint32_t n,
                             void (*warn)(const char *file, const char *msg, void *ctx),
                             void *ctx, struct cgs_diag *d);
/*
 * The same for a caller that reads the logs itself and then collects with
 * cgs_graphs_collect_read and loads every graph: cgs_graphs_early_new over the model it feeds,
 * cgs_graphs_early_idle as its follower's idle work (the early state its ctx) during the read,
 * then cgs_graphs_use_early hands the graphs read to gs (which frees them); _free when unused.
 */
struct cgs_graphs_early *cgs_graphs_early_new(const struct cgs_dash *model);
bool cgs_graphs_early_idle(void *early);
void cgs_graphs_use_early(struct cgs_graphs *gs, struct cgs_graphs_early *e);
void cgs_graphs_early_free(struct cgs_graphs_early *e);
/* How many graphs were read while the logs were, and how many of them the load took (for tests
 * and benchmarks). */
void cgs_graphs_early_counts(const struct cgs_graphs *gs, uint32_t *read, uint32_t *taken);
/*
 * The same over TORCH_TRACE logs already read: read is the model a follower read from exactly
 * the logs among paths (cgs_dash.keep_graphs set); their graphs and symbols are borrowed from it
 * (it outlives gs), not read a second time. Sources that gave nothing are the caller's to say
 * (cgs_follow_verdict); warn hears of the others only.
 */
int cgs_graphs_collect_read(struct cgs_graphs *gs, const char *const *paths, uint32_t n,
                            const struct cgs_dash *read,
                            void (*warn)(const char *file, const char *msg, void *ctx), void *ctx,
                            struct cgs_diag *d);
void cgs_graphs_release(struct cgs_graphs *gs);

/* The graph of item i as graph JSON text (free it); NULL with d filled. */
char *cgs_graphs_json(const struct cgs_graphs *gs, uint32_t i, struct cgs_diag *d);
/* The file name the bridge gives such a graph: 0_0.dynamo.json, 1_0.post_grad.backward.json; a
 * folder's graph file by its own name (__compiled_fn_3.Forward_graph.0.aot_forward.json); no
 * two graphs of gs get one name (a later one is numbered: 0_0.dynamo.2.json). Into out, n
 * bytes. */
void cgs_graphs_file_name(struct cgs_graphs *gs, uint32_t i, char *out, size_t n);

/* The graph of item i, built and checked by the graph loader; NULL with d filled. */
struct cgs_graph *cgs_graphs_load(const struct cgs_graphs *gs, uint32_t i, struct cgs_diag *d);
/* Items from .. from + n - 1 loaded at once on up to cgs_load_threads() threads: g[k] the graph
 * of item from + k (NULL, with d[k] saying why, where it does not load); each as
 * cgs_graphs_load gives it. */
void cgs_graphs_load_many(const struct cgs_graphs *gs, uint32_t from, uint32_t n,
                          struct cgs_graph **g, struct cgs_diag *d);

/*
 * The graph a GRAPH argument names: a ref, or a source whose graph of stage prefer (else the
 * first) is taken. *note (the caller frees; NULL when there is nothing to say) tells which
 * graph was taken out of several. NULL with d filled.
 */
struct cgs_graph *cgs_graphs_open(const char *spec, enum cgs_stage prefer, char **note,
                                  struct cgs_diag *d);

#endif
