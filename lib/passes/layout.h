/*
 * Inductor's layout decisions, replayed on a post-grad graph exactly as
 * PyTorch 2.11's torch/_inductor/graph.py makes them (or 2.1's, on request):
 *
 *   - decide_layout_opt: whether Inductor turns on layout optimisation
 *     (channels-last convolutions), with the rule that decided and the
 *     nodes that made it fire;
 *   - find_nodes_prefer_channels_last: the nodes that prefer channels last
 *     (empty when layout optimisation is off, as in GraphLowering.__init__);
 *   - per-node stride-order requirements (GraphLowering.run_node): outputs
 *     and as_strided inputs keep eager's order or get NHWC, fixed-layout
 *     pins for users such as mm and convolution_backward, realize hints;
 *   - fallback analysis from torch 2.11's own lowering table
 *     (lib/ops/inductor-lowerings.h, generated).
 *
 * docs/layout.md describes every rule. Nothing here prints.
 *
 * Ownership: cgs_layout_run() returns a struct cgs_layout that owns its own
 * arena (every array and string in it); the caller frees it with
 * cgs_layout_free(). It borrows the graph, which must outlive it.
 */
#ifndef CGS_LAYOUT_H
#define CGS_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/base/arena.h"
#include "lib/base/diag.h"
#include "lib/ir/graph.h"

/* The rule that decided the verdict: LAYOUT_RULE(NAME, "id", verdict) */
#define CGS_LAYOUT_RULE_LIST(X)                                                \
    X(DISABLED, "layout_optimization_off", false)                              \
    X(FORCED, "force_layout_optimization", true)                               \
    X(NO_CONV, "no_convolution", false)                                        \
    X(MKLDNN_CPU, "mkldnn_cpu", true)                                          \
    X(FEW_CONV, "few_convolutions", false)                                     \
    X(DYNAMIC_SHAPE, "dynamic_shape", false)                                   \
    X(FLOP_VOTE, "flop_vote", true)                                            \
    X(GROUPED_CONV, "grouped_convolution", false)                              \
    X(IN_OUT_CHANNELS, "in_out_channels", false)                               \
    X(SMALL_CHANNELS, "small_channels", false)                                 \
    X(SDPA, "sdpa", false)                                                     \
    X(NO_VETO, "no_veto", true)

enum cgs_layout_rule {
#define X(name, id, v) CGS_LAYOUT_RULE_##name,
    CGS_LAYOUT_RULE_LIST(X)
#undef X
    CGS_LAYOUT_RULE_COUNT
};

/* "flop_vote", ...; "?" out of range. */
const char *cgs_layout_rule_id(enum cgs_layout_rule r);

enum cgs_layout_rules {
    CGS_LAYOUT_RULES_2_11, /* torch 2.11 (default) */
    CGS_LAYOUT_RULES_2_1,  /* torch 2.1: no FLOP vote, vetoes for every graph, sdpa veto */
    CGS_LAYOUT_RULES_COUNT
};
extern const char *const cgs_layout_rules_names[CGS_LAYOUT_RULES_COUNT + 1]; /* NULL-ended */

/* "torch-2.11" / "torch-2.1" and back ("2.11" too); -1 for an unknown name. */
const char *cgs_layout_rules_name(enum cgs_layout_rules r);
int cgs_layout_rules_from_name(const char *name);

enum cgs_layout_mode {
    CGS_LAYOUT_MODE_AUTO,      /* from producer.is_inference / is_backward (absent = false) */
    CGS_LAYOUT_MODE_INFERENCE,
    CGS_LAYOUT_MODE_TRAINING,  /* a training step's forward graph */
    CGS_LAYOUT_MODE_BACKWARD,
};

enum cgs_layout_switch {
    CGS_LAYOUT_SWITCH_DECIDE,    /* the heuristics decide */
    CGS_LAYOUT_SWITCH_FORCE_ON,  /* config.force_layout_optimization */
    CGS_LAYOUT_SWITCH_OFF,       /* config.layout_optimization = False */
};

struct cgs_layout_opts {
    enum cgs_layout_rules rules;
    enum cgs_layout_mode mode;
    enum cgs_layout_switch sw;
    bool mkldnn;       /* torch.backends.mkldnn enabled and available */
    int user_outputs;  /* training forward: leading user-visible outputs; -1 = guess */
    bool infer_missing; /* values a node does not record come from lib/passes/shapes.h */
};

#define CGS_LAYOUT_OPTS_INIT                                                   \
    { CGS_LAYOUT_RULES_2_11, CGS_LAYOUT_MODE_AUTO, CGS_LAYOUT_SWITCH_DECIDE, false, -1, true }

/* ---- convolutions -------------------------------------------------------------- */

enum cgs_conv_class {
    CGS_CONV_GROUPED, /* groups > 1 and more than one input channel per group */
    CGS_CONV_SMALL,   /* <= 64 out and in channels */
    CGS_CONV_IN_OUT,  /* out x 2 <= in channels, kernel > 1 */
    CGS_CONV_DEFAULT,
    CGS_CONV_CLASS_COUNT
};

/* "grouped", "small", "in_out", "default" */
const char *cgs_conv_class_name(enum cgs_conv_class c);

/* FLOP-vote multipliers (channels-last time / default time, < 1 is faster). */
extern const double cgs_conv_class_multiplier[CGS_CONV_CLASS_COUNT];

struct cgs_layout_conv {
    const struct cgs_node *node;
    bool mkldnn;          /* an mkldnn fused convolution */
    bool known;           /* input and weight values known: the fields below are set */
    bool free_symbols;    /* symbolic sizes/strides in input or weight */
    bool hinted;          /* sizes below came from symbol hints */
    bool transposed;
    int64_t groups;       /* last positional argument */
    uint32_t weight_ndim;
    int64_t weight[5];    /* weight sizes (out, in per group, kernel...); 0 if absent */
    enum cgs_conv_class cls;
    bool grouped, small, in_out;
    bool has_flops;       /* FLOPs known (aten.convolution with all values) */
    int64_t flops;        /* as torch.utils.flop_counter counts it */
    bool counted;         /* counted in the inference FLOP vote */
};

/* ---- per-node results ------------------------------------------------------------ */

enum cgs_stride_req {
    CGS_STRIDE_FREE = 0,       /* none: Inductor chooses (FlexibleLayout) */
    CGS_STRIDE_EAGER,          /* graph output / as_strided input: eager's stride order */
    CGS_STRIDE_USER_VISIBLE,   /* user-visible output: the original strides */
    CGS_STRIDE_CHANNELS_LAST,  /* 4-D graph output preferring channels last: NHWC order */
};

enum cgs_fallback_kind {
    CGS_FALLBACK_NONE = 0,      /* lowered by Inductor (or not an operator call) */
    CGS_FALLBACK_MAYBE,         /* lowered, but the lowering may fall back */
    CGS_FALLBACK_KERNEL,        /* make_fallback: always a FallbackKernel */
    CGS_FALLBACK_IMPLICIT,      /* no lowering: implicit fallback made while lowering */
    CGS_FALLBACK_UNSUPPORTED,   /* a tensor of unsupported type (complex, meta, ...) */
    CGS_FALLBACK_ERROR,         /* not an operator Inductor can lower or fall back on */
};

const char *cgs_fallback_kind_name(enum cgs_fallback_kind k);

enum cgs_input_constraint {
    CGS_CONSTRAINT_NONE = 0,
    CGS_CONSTRAINT_FX_STRIDE_ORDER, /* inputs keep the FX graph's stride order */
    CGS_CONSTRAINT_EXACT_STRIDES,   /* inputs get exactly the eager strides */
    CGS_CONSTRAINT_CONTIGUOUS,      /* inputs made contiguous */
};

const char *cgs_input_constraint_name(enum cgs_input_constraint c);

struct cgs_layout_node {
    bool prefer_cl;          /* in the preferred set (only when layout opt is on) */
    bool is_output;          /* a user is the output node */
    bool user_visible;       /* a user-visible graph output */
    bool as_strided_input;   /* a user is as_strided & co. */
    bool dense;              /* non-overlapping and dense (hints for symbols) */
    enum cgs_stride_req req; /* stride requirement of run_node's output rule */
    uint32_t ndim;           /* entries of order, 0 when req is FREE */
    uint8_t *order;          /* stride order (0 = innermost), as ir.get_stride_order */
    const struct cgs_node *pinned_by; /* a user needing a fixed layout pins it (eager order) */
    const struct cgs_node *pinned_cl_by; /* mkldnn convolution pinning it channels last */
    uint8_t *pin_order;      /* the pinned stride order (ndim entries) */
    bool realize_hint;       /* several users, one needing realized inputs */
    bool cl_if_realized;     /* realized on reuse => channels-last order */
    enum cgs_fallback_kind fallback;
    enum cgs_input_constraint constraint; /* imposed on this node's inputs */
};

/* ---- the result --------------------------------------------------------------------- */

struct cgs_layout {
    struct cgs_arena arena;
    const struct cgs_graph *graph;
    struct cgs_layout_opts opts;
    bool is_inference, is_backward;
    /* where the graph kind came from: the option, or producer.is_inference; when the
     * producer did not say, the graph is taken for a training forward graph and this says so
     * (nothing in a post-grad graph tells the two apart exactly) */
    const char *mode_reason;

    bool layout_opt;
    enum cgs_layout_rule rule;
    const struct cgs_node **rule_nodes; /* the nodes that made the rule fire */
    uint32_t n_rule_nodes;
    const char *reason;                 /* one human sentence */

    uint32_t n_nodes;                   /* len(graph.nodes) */
    uint32_t n_inferred;                /* nodes whose value came from shape inference */
    struct cgs_layout_conv *convs;      /* conv nodes in PyTorch's order */
    uint32_t n_convs;                   /* nconv */

    bool voted;                         /* the inference FLOP vote ran */
    bool class_seen[CGS_CONV_CLASS_COUNT];
    double flops_by_class[CGS_CONV_CLASS_COUNT];
    double total_flops, weighted_flops;

    /* find_nodes_prefer_channels_last in insertion order; computed whatever the
     * verdict (prefer_all), and kept (prefer_cl) only when layout opt is on */
    const struct cgs_node **prefer_all;
    uint32_t n_prefer_all;
    const struct cgs_node **prefer_cl;
    uint32_t n_prefer_cl;

    struct cgs_layout_node *nodes;      /* graph->n_nodes entries, by node->index */
};

/*
 * Run every decision on g (its nodes must be linked). Problems that don't
 * stop the analysis (a convolution without values) go on g's notes.
 * Returns 0 with *out set (caller frees with cgs_layout_free), or -CGS_E_*.
 */
int cgs_layout_run(struct cgs_graph *g, const struct cgs_layout_opts *opts, struct cgs_layout **out,
                   struct cgs_diag *d) CGS_WUR;

/* Free a result; NULL is accepted. */
void cgs_layout_free(struct cgs_layout *l);

/* ---- Inductor's lowering table (torch 2.11) ---------------------------------------- */

enum cgs_lower_kind {
    CGS_LOWER_NONE = 0,        /* no lowering registered */
    CGS_LOWER_LOWERED,         /* a real lowering */
    CGS_LOWER_MAYBE_FALLBACK,  /* a real lowering that may still fall back */
    CGS_LOWER_FALLBACK,        /* make_fallback: a FallbackKernel */
};

enum cgs_lower_flags {
    CGS_LOWERF_NEEDS_REALIZED_INPUTS = 1 << 0,
    CGS_LOWERF_EXACT_STRIDES = 1 << 1,         /* tag needs_exact_strides */
    CGS_LOWERF_CONTIGUOUS_STRIDES = 1 << 2,    /* tag needs_contiguous_strides */
    CGS_LOWERF_FIXED_STRIDE_ORDER = 1 << 3,    /* tag needs_fixed_stride_order */
    CGS_LOWERF_FLEXIBLE_LAYOUT = 1 << 4,       /* tag flexible_layout */
    CGS_LOWERF_CONSTRAIN_FX_STRIDES = 1 << 5,  /* registered: inputs keep fx stride order */
    CGS_LOWERF_CONSTRAIN_CONV_FX_STRIDES = 1 << 6, /* same, only when layout opt is off */
    /* roles Inductor's Python code gives an operator by naming it (graph.py, lowering.py);
     * tools/gen-inductor-lowerings.py's ROLES lists them and checks them against torch */
    CGS_LOWERF_ROLE_CONV = 1 << 8,           /* counted as a convolution by decide_layout_opt */
    CGS_LOWERF_ROLE_CONV_BACKWARD = 1 << 9,  /* a convolution backward (not counted) */
    CGS_LOWERF_ROLE_BMM = 1 << 10,           /* stops channels-last preference (2.11) */
    CGS_LOWERF_ROLE_MKLDNN_CONV = 1 << 11,   /* an mkldnn convolution, counted too (2.11) */
    CGS_LOWERF_ROLE_AS_STRIDED = 1 << 12,    /* as_strided_ops: inputs keep eager strides */
    CGS_LOWERF_ROLE_NEEDS_FIXED_LAYOUT = 1 << 13, /* pins a multi-use input's stride order */
    CGS_LOWERF_ROLE_NEEDS_FIXED_CL = 1 << 14,     /* pins its first input channels last */
    CGS_LOWERF_ROLE_KEEPS_UNSUPPORTED_TYPE = 1 << 15, /* no fallback for unsupported dtypes */
    CGS_LOWERF_ROLE_COMPLEX_VIEW = 1 << 16,  /* may produce a complex view of its input */
    CGS_LOWERF_ROLE_COMPLEX_COPY_FALLBACK = 1 << 17, /* to a complex dtype: an aten fallback */
    CGS_LOWERF_ROLE_AS_STRIDED_21 = 1 << 18,   /* torch 2.1's as_strided_ops */
    CGS_LOWERF_ROLE_NEEDS_FIXED_CL_21 = 1 << 19, /* torch 2.1's channels-last pins */
    CGS_LOWERF_ROLE_SDPA_21 = 1 << 20,       /* attention that turns 2.1's layout opt off */
    /* not in the table: set by cgs_inductor_lookup for an unregistered overload whose
     * packet ("ns.op") is in FALLBACK_ALLOW_LIST (a fallback made without constraint) */
    CGS_LOWERF_FALLBACK_ALLOWED = 1 << 24,
};

/* Look an operator up by target ("aten.mm.default"); flags may be NULL. */
enum cgs_lower_kind cgs_inductor_lookup(const char *target, unsigned *flags);

/* The torch version the lowering table was generated from. */
const char *cgs_inductor_table_version(void);

/* Whether the C++ wrapper supports tensors of this dtype. */
bool cgs_inductor_cpp_wrapper_supports(enum cgs_dtype dt);

#endif
