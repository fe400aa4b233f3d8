/*
 * Loading graphs: the spec's graph JSON (lib/readers/load-json.c) and torch.export
 * archives (lib/readers/load-pt2.c). cgs_graph_load() picks the reader from the
 * file's first bytes, so every command takes either.
 *
 * On failure the loaders return NULL with d filled (file, line:col where
 * known, JSON path, and what was expected); nothing is leaked.
 * The returned graph is the caller's: cgs_graph_free().
 */
#ifndef CGS_LOAD_H
#define CGS_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"
#include "lib/readers/file.h"
#include "lib/ir/graph.h"

/* Limits on input; past them a load fails with CGS_E_LIMIT. */
#define CGS_LOAD_MAX_FILE   ((size_t)16 << 30) /* 16 GiB of JSON text */
#define CGS_LOAD_MAX_NODES  (1u << 26)         /* nodes in one graph */
#define CGS_LOAD_MAX_DEPTH  64                 /* nesting of JSON values */
#define CGS_LOAD_MAX_STRING ((size_t)64 << 20) /* one string */
#define CGS_LOAD_MAX_DIM    ((int64_t)1 << 62) /* one static size */

struct cgs_load_opts {
    const char *model; /* .pt2: the model to read when the archive holds several */
};

/*
 * Load a graph JSON or a .pt2 archive, whichever path holds (lib/readers/load.c, the front door
 * above the readers); "-" reads standard input. opts may be NULL.
 */
struct cgs_graph *cgs_graph_load(const char *path, const struct cgs_load_opts *opts,
                                 struct cgs_diag *d) CGS_WUR;

/* Load graph JSON from a file. */
struct cgs_graph *cgs_graph_load_json(const char *path, struct cgs_diag *d) CGS_WUR;

/* Route cJSON's allocations through cgs_xmalloc (and the loader's per-node blocks) now
 * rather than at the first graph load: an application that sets an out-of-memory handler
 * calls this so that JSON it builds or parses without a graph fails the same way. */
void cgs_json_init(void);

/* How many threads read graphs at once (the graphs of a log, the logs read ahead; cgs_load_threads
 * below): 0 (the default) by this machine's cores, else as many. A graph's nodes are read by the
 * calling thread: the walk straight from the text does fewer instructions in all than the
 * converting thread alone did in the pipeline of threads that read them as trees (removed). */
void cgs_load_set_threads(int threads);

/* Whether the calling thread reads a graph JSON's usual nodes straight from their text (on, the
 * default) or every node through its tree (what the walk gives back always is). Process-wide; the
 * answers and errors are the same either way (tests and fuzzing compare them). */
void cgs_load_set_direct(bool on);
/* How many nodes were read straight from their text since the process started (for tests and
 * benchmarks: that the usual node is). */
uint64_t cgs_load_direct_count(void);
/* Threads that may read graphs at once: the setting above (1: one), else the cores this process
 * may run on, at most 8. */
int cgs_load_threads(void);

/* Load graph JSON from memory; `file` names it in messages (borrowed). */
struct cgs_graph *cgs_graph_load_json_buf(const char *buf, size_t len, const char *file,
                                          struct cgs_diag *d) CGS_WUR;
/* The same from a buffer that outlives the graph (a mapped file): stack traces stay in it,
 * undecoded, until cgs_node_stack_trace asks for one. */
struct cgs_graph *cgs_graph_load_json_lasting(const char *buf, size_t len, const char *file,
                                              struct cgs_diag *d) CGS_WUR;

/*
 * Load a torch.export .pt2 archive (PyTorch 2.11: archive version 0, schema
 * 8.x); model may be NULL when it holds one model. Only the archive's
 * bookkeeping records and models/NAME.json are read, never the weights.
 * Argument kinds or values it does not know become notes on the graph
 * (CGS_ARG_REPR / unknown values) and loading goes on.
 */
struct cgs_graph *cgs_graph_load_pt2(const char *path, const char *model,
                                     struct cgs_diag *d) CGS_WUR;

/* The same from an archive in memory (standard input); name names it in messages. */
struct cgs_graph *cgs_graph_load_pt2_buf(const void *buf, size_t len, const char *name,
                                         const char *model, struct cgs_diag *d) CGS_WUR;

/*
 * The models a .pt2 archive holds, in archive order: a NULL-terminated heap
 * array of heap strings (caller frees with cgs_pt2_models_free), or NULL
 * with d filled.
 */
char **cgs_pt2_list_models(const char *path, struct cgs_diag *d) CGS_WUR;
void cgs_pt2_models_free(char **models);

/* "parameter", "buffer_mutation", ... (torch.export's spec names). */
const char *cgs_pt2_kind_name(int kind);

/* The schema major version of the serialized ExportedProgram this reader knows. */
#define CGS_PT2_SCHEMA_MAJOR 8

#endif
