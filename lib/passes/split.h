/*
 * Piecewise splitting: MagiCompiler's (and vLLM's) split of a Dynamo graph
 * at its splitting ops, reproduced exactly as torch 2.11's
 * torch.fx.passes.split_module(..., keep_original_order=True) carries it
 * out, plus two other policies that give results of the same shape:
 *
 *   magi    every node whose target matches a splitting op gets a partition
 *           id of its own (ids 2k+1), every other node stays in the current
 *           one (ids 2k); empty ids are dropped, so submod_0 can be missing.
 *   fusion  maximal runs of elementwise ops whose tensor inputs share shape,
 *           dtype and device (what MegEngine's JITFusionOp fuses); the runs
 *           of other nodes between them are pieces of their own.
 *   device  cuts wherever the device of the values changes.
 *
 * For every piece: the nodes it computes, its inputs in the submodule's
 * parameter order (size symbols threaded in after each symbolic tensor, as
 * split_module does), its outputs in return order, which inputs are SymInts
 * (MagiCompiler's sym_shape_indices), and whether it is compiled or a
 * splitting piece. For every cut between two pieces: the node and the rule
 * that made it. For compiled pieces: a CUDA-graph safety lint.
 *
 * Ownership: everything a split returns lives in the graph's arena and dies
 * with cgs_graph_free(); nothing here needs freeing. The pass never prints.
 */
#ifndef CGS_SPLIT_H
#define CGS_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"
#include "lib/ir/graph.h"

enum cgs_split_policy {
    CGS_SPLIT_MAGI,   /* MagiCompiler / vLLM: cut around splitting ops */
    CGS_SPLIT_FUSION, /* elementwise fusion regions (MegEngine JITFusionOp) */
    CGS_SPLIT_DEVICE, /* device transitions */
    CGS_SPLIT_POLICY_COUNT
};

extern const char *const cgs_split_policy_names[CGS_SPLIT_POLICY_COUNT + 1]; /* NULL-ended */
/* The policy of a name ("magi", "fusion", "device"); -1 when unknown. */
int cgs_split_policy_from_name(const char *name);

struct cgs_split_opts {
    enum cgs_split_policy policy;
    const char *const *ops; /* splitting op names (magi), spec target syntax */
    size_t n_ops;
};

/* Why a piece boundary is where it is. */
enum cgs_split_rule {
    CGS_SPLIT_RULE_SPLIT_OP,        /* node matches a splitting op: it starts its own piece */
    CGS_SPLIT_RULE_AFTER_SPLIT_OP,  /* node follows a splitting op's piece */
    CGS_SPLIT_RULE_NOT_ELEMENTWISE, /* fusion: node is not an elementwise op */
    CGS_SPLIT_RULE_ELEMENTWISE,     /* fusion: an elementwise op ends a non-fusible run */
    CGS_SPLIT_RULE_SHAPE,           /* fusion: an input's shape differs from the region's */
    CGS_SPLIT_RULE_DTYPE,           /* fusion: an input's dtype differs */
    CGS_SPLIT_RULE_DEVICE,          /* fusion: an input's device differs */
    CGS_SPLIT_RULE_UNKNOWN_SHAPE,   /* fusion: a value without a known tensor shape */
    CGS_SPLIT_RULE_DEVICE_CHANGE,   /* device: the node's value is on another device */
    CGS_SPLIT_RULE_COUNT
};

/* Short rule names for JSON ("split_op", "after_split_op", "shape", ...). */
extern const char *const cgs_split_rule_names[CGS_SPLIT_RULE_COUNT];

/* The cut between pieces[piece - 1] and pieces[piece]. */
struct cgs_split_boundary {
    uint32_t piece;               /* index (in pieces[]) of the piece after the cut */
    const struct cgs_node *node;  /* the node whose rule cut (first node after the cut,
                                     or for AFTER_SPLIT_OP the splitting node before it) */
    enum cgs_split_rule rule;
    const char *op;               /* SPLIT_OP, AFTER_SPLIT_OP: the --split-ops name matched */
    const char *reason;           /* one line of human text */
};

enum cgs_lint_kind {
    CGS_LINT_CPU_TENSOR,     /* a CPU tensor computed or passed inside a CUDA piece */
    CGS_LINT_CPU_FACTORY,    /* a factory call that makes a CPU tensor (device=cpu) */
    CGS_LINT_INPUT_MUTATION, /* in-place mutation of a graph input */
    CGS_LINT_DATA_DEPENDENT, /* an op whose result size depends on data (unbacked symbols) */
    CGS_LINT_SYMBOLIC_SHAPE, /* symbolic sizes: captured once per runtime shape */
    CGS_LINT_KIND_COUNT
};

extern const char *const cgs_lint_kind_names[CGS_LINT_KIND_COUNT];

struct cgs_split_finding {
    uint32_t piece;              /* index in pieces[] */
    const struct cgs_node *node; /* the node at fault */
    enum cgs_lint_kind kind;
    enum cgs_note_level level;   /* ERROR: breaks capture; WARNING: risky; INFO */
    const char *reason;
};

struct cgs_split_piece {
    const char *name;        /* "submod_<graph_id>" */
    int64_t graph_id;        /* the partition id split_module was given */
    bool is_splitting_graph; /* magi: a splitting op's piece (run eagerly, never compiled);
                                fusion: a run of non-fusible nodes */
    int32_t compile_index;   /* position among compiled pieces (MagiCompiler's
                                graph_index); -1 for splitting pieces */
    struct cgs_node **nodes; /* nodes computed here, in graph order */
    uint32_t n_nodes;
    struct cgs_node **inputs; /* submodule parameters, in order */
    uint32_t n_inputs;
    struct cgs_node **outputs; /* returned values, in order */
    uint32_t n_outputs;
    uint32_t *sym_shape_indices; /* indices into inputs[] of SymInt inputs */
    uint32_t n_sym_shape_indices;
    /* the CUDA-graph verdict (magi policy): a compiled piece with no finding of level
       ERROR; splitting pieces run eagerly and are never captured */
    bool capturable;
    uint32_t n_capture_blockers; /* its ERROR findings */
};

/* A --split-ops name, what it matched and, when nothing, what it may have meant. */
struct cgs_split_opmatch {
    const char *op;
    uint32_t n_matched;          /* graph nodes it matched */
    const char *suggestions[3];  /* near misses among the graph's targets, best first */
    uint32_t n_suggestions;
};

struct cgs_split {
    const struct cgs_graph *g;
    enum cgs_split_policy policy;
    struct cgs_split_opmatch *ops;
    uint32_t n_ops;
    struct cgs_split_piece *pieces; /* sorted by graph_id */
    uint32_t n_pieces;
    int32_t *piece_of;              /* per node index: index in pieces[], -1 for
                                       placeholders, get_attr and output */
    const char **split_op_of;       /* per node index: the op name it matched, or NULL */
    struct cgs_split_boundary *boundaries; /* in piece order */
    uint32_t n_boundaries;
    struct cgs_split_finding *findings;    /* lint, in piece then node order */
    uint32_t n_findings;
    struct {
        uint32_t graphs_seen;       /* compilation_counter.num_graphs_seen */
        uint32_t piecewise_graphs;  /* num_piecewise_graphs_seen */
        uint32_t compiled_graphs;   /* num_piecewise_capturable_graphs_seen: MagiCompiler
                                       counts every compiled piece as one it will capture */
        uint32_t capturable_graphs; /* compiled pieces whose verdict is capturable */
    } counters;
};

/*
 * Split the root graph g. On success returns 0 and sets *out (in g's arena).
 * Fails with -CGS_E_INVAL (and d filled) when opts are unusable; names that
 * match nothing are not an error: see out->ops[i].n_matched and suggestions.
 * A size symbol with no defining node (torch would raise KeyError) becomes
 * a warning note on g and is left out of the inputs.
 */
int cgs_split_run(struct cgs_graph *g, const struct cgs_split_opts *opts, struct cgs_split **out,
                  struct cgs_diag *d) CGS_WUR;

/* The piece a node is computed in; NULL for placeholders, get_attr and output. */
const struct cgs_split_piece *cgs_split_piece_of(const struct cgs_split *s,
                                                 const struct cgs_node *n);

/*
 * A graph that records the pieces a compiler made (n->piece: a cache folder's split graph):
 * the splitting ops those pieces show, the distinct targets of call nodes alone in their piece
 * that are a custom op's overload (vllm.unified_attention.default) or in a preset (aten's SDPA).
 * Writes at most max into ops (the graph's interned targets), in graph order; returns how many.
 */
uint32_t cgs_split_recorded_ops(const struct cgs_graph *g, const char **ops, uint32_t max);

/* How many nodes the split puts in another piece than the one recorded for them (the first
 * such in *first); 0 when the record agrees or there is none. */
uint32_t cgs_split_recorded_diff(const struct cgs_split *s, const struct cgs_node **first);

/* Whether a --split-ops name matches a graph target (MagiCompiler's rule). */
bool cgs_split_op_matches(const char *name, const char *target);

#endif
