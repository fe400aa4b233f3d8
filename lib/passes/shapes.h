/*
 * Shape inference: the shape, dtype, strides and storage offset of every
 * node's value, as PyTorch's FakeTensor propagation computes them, with
 * symbolic dimensions (lib/ir/symexpr.h).
 *
 * The pass walks the graph once in graph order (FX order is topological),
 * binds each node's arguments to its operator's schema (lib/ops/ops.h) and runs
 * the operator's rule. Results go to a side table; the recorded values
 * (node->val) are never changed. A node whose rule fails or whose operator
 * is unknown gets a status and a reason, and the pass goes on: later nodes
 * see its value as unknown (or, without --reinfer, as recorded).
 *
 * Ownership: the result lives in the graph's arena and dies with the graph.
 */
#ifndef CGS_SHAPES_H
#define CGS_SHAPES_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/base/buf.h"
#include "lib/base/diag.h"
#include "lib/ir/graph.h"
#include "lib/readers/opdecl.h"

enum cgs_shape_status {
    CGS_SHAPE_OK,         /* inferred exactly */
    CGS_SHAPE_PARTIAL,    /* inferred in part (unknown rank, dims, strides or dtype) */
    CGS_SHAPE_UNKNOWN_OP, /* no rule for the target */
    CGS_SHAPE_ERROR,      /* the rule rejected the arguments (reason says why) */
    CGS_SHAPE_STATUS_COUNT
};

/* "ok", "partial", "unknown_op", "error". */
extern const char *const cgs_shape_status_names[CGS_SHAPE_STATUS_COUNT];

/* How an inferred value compares with the recorded one. */
enum cgs_shape_cmp {
    CGS_SHAPE_CMP_NONE,     /* nothing to compare (no recorded value, or not inferred) */
    CGS_SHAPE_CMP_MATCH,    /* same shape, dtype, strides and storage offset */
    CGS_SHAPE_CMP_STRIDES,  /* same shape and dtype; strides or offset differ */
    CGS_SHAPE_CMP_MISMATCH, /* shape or dtype (or kind of value) differ */
};

struct cgs_shape_node {
    const struct cgs_val *val; /* the inferred value; NULL when nothing is known */
    /*
     * The value to report: where the pass reads the records (not reinfer) and torch recorded
     * one, the record as torch wrote it (a fact: the inferred value is checked against it, and
     * a difference stays in cmp and reason); else the inferred one. NULL when neither is
     * known.
     */
    const struct cgs_val *reported;
    bool from_record; /* reported is the recorded value */
    enum cgs_shape_status status;
    enum cgs_shape_cmp cmp;
    const char *reason; /* why not ok, or what differs from the record; NULL otherwise */
    /*
     * When not ok: the node whose failure this one comes from (node index; the node itself
     * when it is a root cause: an unknown operator, a rule that gave up, a bad argument).
     * A node blocked by an unknown input is partial, never an error. -1 when ok.
     */
    int32_t root;
    uint32_t blocks; /* root causes: how many nodes they leave not ok, themselves included */
};

struct cgs_shapes_summary {
    uint32_t nodes;      /* nodes in the graph */
    uint32_t inferred;   /* nodes whose value the pass computed (ok or partial) */
    uint32_t matched;    /* compared nodes equal to the record (strides too) */
    uint32_t mismatched; /* compared nodes that differ (CMP_STRIDES or CMP_MISMATCH) */
    uint32_t unknown;    /* nodes with status unknown_op */
    uint32_t partial;    /* nodes with status partial */
    uint32_t errors;     /* nodes with status error */
    uint32_t recorded;   /* nodes (not inputs) whose value is torch's record alone: nothing
                            inferred, or an inferred value that differs */
    bool validated;      /* every node inferred exactly (no partial, unknown, error or mismatch) */
};

struct cgs_shapes {
    struct cgs_shape_node *nodes; /* indexed by node->index */
    uint32_t n_nodes;
    struct cgs_shapes_summary summary;
};

struct cgs_shapes_opts {
    /*
     * false: each node is inferred from its inputs' recorded values where
     * there are some (a local check of every rule), and falls back to
     * inferred ones. true: every recorded value except those of
     * placeholders and get_attr nodes is ignored; values flow from the
     * graph inputs alone.
     */
    bool reinfer;
    /* declared operators (lib/readers/opdecl.h), consulted before the registry; NULL for none */
    const struct cgs_opdecls *decls;
    /*
     * The values of the graph's placeholders, in order (a higher-order op's body entered
     * with its operands' values); a NULL entry, or none at all, keeps the recorded value.
     */
    const struct cgs_val *const *inputs;
    uint32_t n_inputs;
    uint32_t depth; /* nesting of bodies entered (a limit against runaway recursion) */
    /* the torch.autocast region the graph runs in (a body entered inside one, the body of an
       enabled wrap_with_autocast): its device type ("cuda") and dtype; NULL for none */
    const char *autocast_device;
    enum cgs_dtype autocast_dtype;
    /* the bodies being inferred around this one, innermost first (NULL at the top) */
    const struct cgs_shapes_nest *nest;
};

/* A body being inferred, and the top-level inference it is inside: its caches (hints,
 * operators, schemas, constants, arithmetic: one root's symbols and arena) serve every body,
 * and it counts the bodies entered (a body entering two others at every level would
 * otherwise take 2^depth entries). */
struct cgs_shape_ctx;
struct cgs_shapes_nest {
    const struct cgs_graph *g;
    const struct cgs_shapes_nest *outer;
    struct cgs_shape_ctx *root;
};

#define CGS_SHAPES_MAX_BODIES 4096 /* bodies entered by one inference, nested ones included */

/*
 * Run shape inference on g. The bodies of higher-order ops (wrap_with_set_grad_enabled,
 * invoke_subgraph, cond, ...) are entered with their operands' values, as torch traces them.
 * Returns 0 with *out set (in g's arena), or -CGS_E_* with d filled when
 * the pass itself cannot run (out of memory). Per-node failures are not
 * errors: they are in (*out)->nodes[i].status.
 */
int cgs_shapes_infer(struct cgs_graph *g, const struct cgs_shapes_opts *opts,
                     struct cgs_shapes **out, struct cgs_diag *d) CGS_WUR;

/*
 * For each operator of g that has no rule (status unknown_op) and whose calls torch recorded
 * values for: the declaration (docs/custom-ops.md: "like 0", "like 1 dtype float32", "none",
 * several outputs joined by ", ") that gives every one of those values, if one does. *out is
 * a malloc'd array (free() it; its strings live in g's arena); returns its length.
 */
struct cgs_op_suggestion {
    const char *target; /* as the graph names it: "mylib.op.default" */
    const char *name;   /* as a declaration names it: "mylib.op" */
    const char *decl;   /* "like 0" */
    uint32_t confirmed; /* recorded values it gives */
};
size_t cgs_shapes_suggest_decls(const struct cgs_graph *g, const struct cgs_shapes *s,
                                struct cgs_op_suggestion **out);

/*
 * Compare an inferred value with a recorded one (symbolic dims compared
 * semantically). Writes a short description of the first difference to why
 * when not NULL.
 */
enum cgs_shape_cmp cgs_shapes_compare(const struct cgs_val *inferred,
                                      const struct cgs_val *recorded, struct cgs_buf *why);

/*
 * Bytes of the tensors in v (numel * itemsize, summed over a list) with the
 * symbols bound by lookup. 0 and *bytes set; -CGS_E_UNKNOWN when a symbol is
 * unbound or a dim or dtype unknown; -CGS_E_LIMIT on overflow.
 */
int cgs_val_bytes(const struct cgs_val *v, cgs_sym_lookup_fn lookup, void *ud,
                  int64_t *bytes) CGS_WUR;

/*
 * Evaluate every dim of v under lookup, giving a new value whose dims are
 * constants where they could be evaluated (allocated in arena).
 */
struct cgs_val *cgs_val_bind(const struct cgs_val *v, struct cgs_symctx *sx,
                             struct cgs_arena *arena, cgs_sym_lookup_fn lookup, void *ud);

#endif
