/*
 * The operator registry: every call target cgscope knows (lib/ops/op-list.h),
 * with its argument schema, its shape rule and its traits.
 *
 * Lookup is by the spec's target syntax. An exact target ("aten.add.Tensor",
 * "operator.getitem", "view") finds its entry; an overload packet
 * ("cgs.attention", "aten.mm") finds the first overload of that packet, as
 * Dynamo graphs name custom ops without their overload.
 *
 * The table is static data: nothing here allocates or needs freeing.
 */
#ifndef CGS_OPS_H
#define CGS_OPS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/diag.h"
#include "lib/base/nearest.h" /* cgs_edit_distance, for the registry's users */

/* Traits of an operator (bit flags). */
enum cgs_op_flags {
    CGS_OPF_ELEMENTWISE = 1 << 0, /* pointwise: broadcasting, one output element per element */
    CGS_OPF_VIEW = 1 << 1,        /* the result aliases its first input's storage */
    CGS_OPF_INPLACE = 1 << 2,     /* mutates an argument (the first, unless noted) */
    CGS_OPF_REDUCTION = 1 << 3,   /* reduces over dimensions (sum, mean, var_mean) */
    CGS_OPF_MATMUL = 1 << 4,      /* a matrix product (mm, addmm, linear) */
    CGS_OPF_CONV = 1 << 5,        /* a convolution or its backward */
    CGS_OPF_SIZE = 1 << 6,        /* computes sizes or scalars, not tensors (sym_size, size) */
    CGS_OPF_NOVALUE = 1 << 7,     /* returns None (asserts, logging, out= custom ops) */
    CGS_OPF_FACTORY = 1 << 8,     /* creates a fresh tensor (arange, full, empty_like) */
    CGS_OPF_RANDOM = 1 << 9,      /* draws random numbers */
    CGS_OPF_CORE = 1 << 10,       /* torch tags it `core` (the Core ATen opset) */
    CGS_OPF_DYNAMIC = 1 << 11,    /* output size depends on data (dynamic_output_shape) */
    /* elementwise type promotion, as torch._refs declares it (ELEMENTWISE_TYPE_PROMOTION_KIND) */
    CGS_OPF_PROMO_DEFAULT = 1 << 12,
    CGS_OPF_PROMO_INT_TO_FLOAT = 1 << 13,
    CGS_OPF_PROMO_ALWAYS_BOOL = 1 << 14,
    CGS_OPF_PROMO_COMPLEX_TO_FLOAT = 1 << 15,
    CGS_OPF_PROMO_NO_OPMATH = 1 << 16,
    CGS_OPF_PROMO_BOOL_TO_LONG = 1 << 17,
    /* dispatches to aten.add/sub/mul/div.Tensor, which FakeTensor serves with its fast binary
     * implementation (torch/_subclasses/fake_impls.py, make_fast_binary_impl) */
    CGS_OPF_FAKE_FAST_BINARY = 1 << 18,
    /* changes global state (grad mode, autocast): MagiCompiler cuts at it */
    CGS_OPF_GLOBAL_STATE = 1 << 19,
    /* on two SymInts (sizes), Python's integer arithmetic: a + b, a - b, a * b, a // b, a % b
     * (reflected forms swap a and b: CGS_OPF_ARITH_REFLECTED) */
    CGS_OPF_ARITH_ADD = 1 << 20,
    CGS_OPF_ARITH_SUB = 1 << 21,
    CGS_OPF_ARITH_MUL = 1 << 22,
    CGS_OPF_ARITH_FLOORDIV = 1 << 23,
    CGS_OPF_ARITH_MOD = 1 << 24,
    CGS_OPF_ARITH_REFLECTED = 1 << 25,
    /* on two SymInts, Python's comparisons (operator.lt, ..., __ge__): a SymBool; one 3-bit
     * field, read with CGS_OPF_CMP_MASK */
    CGS_OPF_CMP_LT = 1 << 26,
    CGS_OPF_CMP_LE = 2 << 26,
    CGS_OPF_CMP_GT = 3 << 26,
    CGS_OPF_CMP_GE = 4 << 26,
    CGS_OPF_CMP_EQ = 5 << 26,
    CGS_OPF_CMP_NE = 6 << 26,
    CGS_OPF_CMP_MASK = 7 << 26,
    /* indexes a multi-output value (operator.getitem): no kernel, the item's value */
    CGS_OPF_GETITEM = 1 << 29,
    /* operator.truediv / itruediv: a / b, a float even of two ints */
    CGS_OPF_ARITH_TRUEDIV = 1 << 30,
};

struct cgs_node;
struct cgs_shape_ctx;

/*
 * A shape rule: reads the node's bound arguments through ctx (lib/passes/shapes.h)
 * and sets the node's value there. Returns 0 (exact), -CGS_E_UNKNOWN (only
 * partly known: unknown dims, rank or strides) or another -CGS_E_* with the
 * reason in d. It never asserts.
 */
typedef int (*cgs_shape_rule_fn)(const struct cgs_node *n, struct cgs_shape_ctx *ctx,
                                 struct cgs_diag *d);

enum cgs_op {
    CGS_OP_UNKNOWN = 0,
#define OP(id, target, rule, schema, flags) CGS_OP_##id,
#include "lib/ops/op-list.h"
#undef OP
    CGS_OP_COUNT
};

struct cgs_op_info {
    const char *name;        /* target, spec syntax */
    const char *schema;      /* "self, other, *, alpha=1" (see lib/ops/op-list.h) */
    const char *rule_name;   /* "binary" */
    cgs_shape_rule_fn infer; /* NULL only for CGS_OP_UNKNOWN */
    unsigned flags;          /* enum cgs_op_flags */
};

/* Indexed by enum cgs_op; entries 1..CGS_OP_COUNT-1 are sorted by name. */
extern const struct cgs_op_info cgs_ops[CGS_OP_COUNT];

/* Bounds-checked access: an out-of-range op gives the CGS_OP_UNKNOWN entry. */
const struct cgs_op_info *cgs_op_info(enum cgs_op op);

/* The entry of a target (exact, else its packet's first overload); CGS_OP_UNKNOWN if none. */
enum cgs_op cgs_op_lookup(const char *target);

/* The entry of an exact target only; CGS_OP_UNKNOWN if none. */
enum cgs_op cgs_op_lookup_exact(const char *target);

/*
 * Whether a name given on the command line matches a graph target, as
 * MagiCompiler's resolve_defined_ops does (the one matching rule: split, declarations and
 * the CLI use it): equal strings; or name is a torch.ops packet and target one of its
 * overloads ("aten.mm" matches "aten.mm.default"); or target is a packet (Dynamo's custom
 * ops) and name its .default ("cgs.attention.default" matches "cgs.attention").
 */
bool cgs_op_name_matches(const char *name, const char *target);


/* The registry target nearest a mistyped one (a rule-bearing entry within a small edit
 * distance), for "did you mean"; NULL when none is close. */
const char *cgs_op_suggest(const char *target);

/*
 * Named lists of splitting ops ("--split-ops @vllm"): name, where the list comes from, and
 * its members (NULL-terminated). cgs_op_presets ends with a NULL name.
 */
struct cgs_op_preset {
    const char *name;
    const char *source;
    const char *const *ops;
};
extern const struct cgs_op_preset cgs_op_presets[];

/* The preset called name ("vllm" or "@vllm"); NULL when there is none. */
const struct cgs_op_preset *cgs_op_preset_find(const char *name);

/* Whether target names an operator overload "ns.op.overload" of torch.ops (not a Python
 * callable such as torch.relu or operator.add): what Inductor can make a fallback of. */
bool cgs_target_is_overload(const char *target);

/* Whether target is in a builtin namespace (torch._library.utils.is_builtin: aten, prim,
 * prims), as opposed to a custom op's. */
bool cgs_target_is_builtin(const char *target);

/* Whether a call of target makes a new tensor from nothing (torch.empty, zeros, ones, full,
 * rand, randn, arange, tensor, aten.empty.memory_format, and, as MagiCompiler takes them, any
 * torch callable named empty, zeros, ones or full): where a piece's CPU factories are found. */
bool cgs_op_target_makes_tensor(const char *target);

/* Whether target reads tensor data on the host or sizes its result by it (nonzero, item, unique,
 * masked_select, tolist, argwhere, bincount, repeat_interleave, ...: any target with such a
 * dotted part): what a CUDA graph cannot capture. */
bool cgs_op_target_reads_data(const char *target);

/* Whether target has the given flags (all of them); false for unknown targets. */
bool cgs_op_target_has(const char *target, unsigned flags);

/* Shape rule prototypes, one per rule name in lib/ops/op-list.h (lib/passes/shapes-*.c). */
#define OP(id, target, rule, schema, flags)                                                        \
    int cgs_shape_rule_##rule(const struct cgs_node *n, struct cgs_shape_ctx *ctx,                 \
                              struct cgs_diag *d);
#include "lib/ops/op-list.h"
#undef OP

#endif
