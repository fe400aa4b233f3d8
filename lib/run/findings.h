/*
 * Findings: the verdicts a user acts on ("what looks wrong"), made in one place from everything a
 * job read: the compile records of TORCH_TRACE logs (failures, recompiles, graph breaks, ranks,
 * cache lookups: lib/run/dash.h) and the analyses of graphs (shapes, pieces). The page, `top` and
 * `check` print these and decide nothing of their own.
 *
 * One finding per kind and cause, with every subject it concerns (never one per graph per
 * rank), sorted by severity, then by what it costs the user (compile time, hits), then by kind.
 * Everything in a struct cgs_findings is owned by it (cgs_findings_release frees it all).
 */
#ifndef CGS_FINDINGS_H
#define CGS_FINDINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/passes/shapes.h"
#include "lib/passes/split.h"
#include "lib/run/dash.h"

enum cgs_severity { CGS_SEV_ERROR, CGS_SEV_WARNING, CGS_SEV_NOTE, CGS_SEV_COUNT };
extern const char *const cgs_severity_names[CGS_SEV_COUNT + 1]; /* "error", "warning", "note",
                                                                  NULL */
/* The severity of a name, or -1. */
int cgs_severity_from_name(const char *name);

/* X(ID, "json kind", page anchor): the kinds, in the order they sort within a severity. */
#define CGS_FINDING_KINDS(X)                                                                       \
    X(COMPILE_FAILURE, "compile_failure", "#compiles")                                             \
    X(COLLECTIVES, "collective_mismatch", "#ranks")                                                \
    X(RECOMPILES, "recompiles", "#compiles")                                                       \
    X(GRAPH_BREAK, "graph_break", "#breaks")                                                       \
    X(RANK_DIVERGENCE, "rank_divergence", "#compiles")                                             \
    X(CACHE_MISS, "cache_miss", "#compiles")                                                       \
    X(SHAPE_MISMATCH, "shape_mismatch", "#graphs")                                                 \
    X(NOT_CAPTURABLE, "not_capturable", "#graphs")                                                 \
    X(EMPTY_GRAPH, "empty_graph", "#compiles")                                                     \
    X(UNKNOWN_OPS, "unknown_ops", "#graphs")                                                       \
    X(UNREAD, "unread", "#graphs")                                                                 \
    X(BAD_LINES, "bad_lines", "#compiles")

#define CGS_FINDING_ENUM_(id, name, anchor) CGS_FINDING_##id,
enum cgs_finding_kind { CGS_FINDING_KINDS(CGS_FINDING_ENUM_) CGS_FINDING_KIND_COUNT };
#undef CGS_FINDING_ENUM_
extern const char *const cgs_finding_kind_names[CGS_FINDING_KIND_COUNT];
extern const char *const cgs_finding_kind_anchors[CGS_FINDING_KIND_COUNT];

struct cgs_finding {
    enum cgs_finding_kind kind;
    enum cgs_severity severity;
    /* the subject: each NULL when it does not apply */
    char *frame;       /* the code object: "fn (model.py:42)" */
    char *compile_ids; /* "0/0, 0/1" (with @N for a later run of the log) */
    char *ranks;       /* "1, 3" */
    char *graphs;      /* the graphs' refs, ", "-separated */
    char *pieces;      /* "submod_1 of G, ..." */
    char *message;     /* what is wrong, one paragraph */
    char *hint;        /* what to do: torch's own words where torch gave some; NULL none */
    char *url;         /* torch's page about it (the graph-break site), NULL none */
    char *evidence_file; /* the record it rests on: file and line (0: no line) */
    uint64_t evidence_line;
    uint64_t count;    /* compiles failed, recompiles, hits, nodes, ... (what message counts) */
    double cost;       /* what it costs the user (compile ms, hits): the sort within severity */
};

struct cgs_findings {
    struct cgs_finding *v;
    uint32_t n, alloc;
};

/* A graph a job analysed. */
struct cgs_findings_graph {
    const char *label;              /* its ref or file */
    const char *error;              /* why it was not read, or NULL */
    const struct cgs_graph *g;      /* NULL when not read */
    const struct cgs_split *split;  /* a piecewise split (split ops given or recorded), or NULL */
    const struct cgs_shapes *shapes; /* NULL when not inferred */
};

/* The graphs' findings gathered a graph at a time, for a job that frees each graph once it has
 * been added (every string the findings need is copied). */
struct cgs_findings_graphs;
struct cgs_findings_graphs *cgs_findings_graphs_new(void);
void cgs_findings_graphs_add(struct cgs_findings_graphs *acc, const struct cgs_findings_graph *x);
void cgs_findings_graphs_free(struct cgs_findings_graphs *acc);

struct cgs_findings_input {
    const struct cgs_dash *dash; /* compile records, or NULL */
    const struct cgs_findings_graph *graphs;
    uint32_t n_graphs;
    /* or the graphs fed already (graphs is then not read); cgs_findings_build takes what it
       gathered, and the caller frees it after */
    struct cgs_findings_graphs *fed;
};

/* The findings of everything in in, sorted; out is initialised here. */
void cgs_findings_build(const struct cgs_findings_input *in, struct cgs_findings *out);
void cgs_findings_release(struct cgs_findings *f);

/* How many findings are at severity s or worse. */
uint32_t cgs_findings_at_least(const struct cgs_findings *f, enum cgs_severity s);

/* Compile counts that are not findings: compiles (records), graphs compiled (Dynamo made a
 * graph and nothing failed), empty (no graph), failed; runs of the log (resets). */
struct cgs_compile_counts {
    uint64_t compiles, graphs, empty, failed, refused, recompiles, runs;
};
void cgs_findings_compile_counts(const struct cgs_dash *d, struct cgs_compile_counts *c);

#endif
