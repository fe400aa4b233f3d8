/*
 * The shape pass's private header: its context, the helpers every family of rules uses
 * (lib/passes/shapes-core.c) and their prototypes. Only lib/passes/shapes*.c include it.
 * docs/shape-rules.md says how to add a rule.
 */
#ifndef CGS_SHAPES_INT_H
#define CGS_SHAPES_INT_H

#include "lib/passes/shapes.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ops/ops.h"
#include "lib/writers/report-json.h"

#define MAX_PARAMS 64
#define NDIM_MAX CGS_MAX_NDIM


/* A torch.autocast region (shapes-autocast.c). */
#define AC_DEPTH 8
struct ac_region {
    const char *device;    /* "cuda", "cpu" */
    enum cgs_dtype dtype;  /* the lower-precision dtype */
    bool enabled;
};

struct cgs_shape_ctx {
    struct cgs_graph *g;
    struct cgs_symctx *sx;
    uint32_t n_unbacked; /* unbacked symbols made so far (u0, u1, ...), as ShapeEnv numbers them */
    const struct cgs_opdecls *decls;
    const struct cgs_shapes_opts *opts;
    struct cgs_arena *ar;
    const struct cgs_val **vals; /* value each node's users see */
    /* caches: hints by expression, operators by (interned) target, parsed schemas */
    struct hint_slot {
        const struct cgs_sym *e;
        int64_t v;
        bool ok;
    } * hints;
    struct op_slot { /* per distinct target (by interned pointer): what is looked up by name */
        const char *target;
        const char *suggest;       /* unknown targets: the nearest registry name, once asked */
        const struct cgs_decl *decl; /* its declaration (lib/readers/opdecl.h), once looked up */
        bool suggested, decl_looked;
    } * ops;
    struct schema {
        uint32_t n; /* UINT32_MAX until parsed */
        struct param *p;
    } * schemas;
    const struct cgs_sym **small; /* interned constants 0..SMALL_INTS-1 */
    uint32_t bodies_entered;      /* at the top level: bodies entered, nested ones included */
    struct memo_slot {
        const struct cgs_sym *a, *b, *r;
        char op;
    } * memo;
    /* the node being inferred */
    const struct cgs_op_info *op;
    struct schema *schema;
    uint32_t n_params;
    struct param {
        const char *name; /* in the schema text, not terminated: name_len */
        size_t name_len;
        const char *def; /* default text or NULL; not terminated: def_len */
        size_t def_len;
        bool variadic;
        bool promote; /* "%name": takes part in type promotion (pointwise rule) */
        bool written; /* "!name": an out= tensor the op writes (out rule) */
        const struct cgs_arg *def_arg; /* the parsed default, once needed */
        const struct cgs_arg *arg;     /* bound argument, NULL when absent */
    } p[MAX_PARAMS];
    struct cgs_arg rest; /* the variadic tail as a LIST */
    struct cgs_val *out; /* the rule's result */
    struct ac_region ac[AC_DEPTH]; /* the autocast regions open at this node, innermost last */
    uint32_t n_ac;
};
typedef const struct cgs_sym *sym_t;
#define HINT_SLOTS 4096
#define OP_SLOTS 1024
#define SMALL_INTS 4096
#define MEMO_SLOTS 8192
#define KWONLY_BIT ((size_t)1 << 62)
#define UNUSED_RULE_ARGS ((void)n, (void)sc, (void)d)
#define RULE(name)                                                                                 \
    int cgs_shape_rule_##name(const struct cgs_node *n, struct cgs_shape_ctx *sc,                  \
                              struct cgs_diag *d)
#define TRY(x)                                                                                     \
    do {                                                                                           \
        int rc_ = (x);                                                                             \
        if (rc_ < 0)                                                                               \
            return rc_;                                                                            \
    } while (0)

struct operand {
    const struct cgs_tensor *t; /* NULL for a scalar */
    enum cgs_dtype scalar;      /* the scalar's kind: BOOL, INT64, FLOAT32, COMPLEX64 */
    sym_t sym;                  /* int scalars: the value when known */
    double f;                   /* float scalars */
};


/* A rule that keeps `count` results, from `first`, of another rule. */
#define TAKE_OF(name, rule, first, count)                                                          \
    RULE(name)                                                                                     \
    {                                                                                              \
        TRY(cgs_shape_rule_##rule(n, sc, d));                                                      \
        return take_items(sc, first, count);                                                       \
    }

#define MAX_CAT 4096

/* ---- the helpers, by the file that defines them (the families' own are static there) ---- */

struct data_scan;

/* shapes-core.c */
void dimcpy(sym_t *dst, const sym_t *src, size_t n);
bool hint(const struct cgs_shape_ctx *sc, sym_t e, int64_t *v);
int64_t hv(const struct cgs_shape_ctx *sc, sym_t e);
int64_t hmul(int64_t a, int64_t b);
sym_t K(struct cgs_shape_ctx *sc, int64_t v);
sym_t memo(struct cgs_shape_ctx *sc, char op, sym_t a, sym_t b);
sym_t S_add(struct cgs_shape_ctx *sc, sym_t a, sym_t b);
sym_t S_sub(struct cgs_shape_ctx *sc, sym_t a, sym_t b);
sym_t S_mul(struct cgs_shape_ctx *sc, sym_t a, sym_t b);
sym_t S_div(struct cgs_shape_ctx *sc, sym_t a, sym_t b);
bool has_func(sym_t a);
sym_t S_max1(struct cgs_shape_ctx *sc, sym_t a);
bool is_const(sym_t e, int64_t v);
struct cgs_val *new_val(struct cgs_shape_ctx *sc, enum cgs_val_kind kind);
struct cgs_tensor *fill_tensor(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t ndim,
                               enum cgs_dtype dtype, const char *device);
struct cgs_tensor *new_tensor_val(struct cgs_shape_ctx *sc, struct cgs_val **vp,
                                  uint32_t ndim, enum cgs_dtype dtype, const char *device);
struct cgs_tensor *out_tensor(struct cgs_shape_ctx *sc, uint32_t ndim, enum cgs_dtype dtype,
                              const char *device);
bool tensor_known(const struct cgs_tensor *t);
void contiguous_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                        sym_t *stride);
void permuted_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                      const uint32_t *perm, sym_t *stride);
void channels_last_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                           sym_t *stride);
void hints(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t, int64_t *sz,
           int64_t *st);
bool h_contiguous(uint32_t nd, const int64_t *sz, const int64_t *st);
bool h_channels_last(uint32_t nd, const int64_t *sz, const int64_t *st);
bool suggest_cl(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t);
void elementwise_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                         uint32_t nt, int64_t (*st)[NDIM_MAX], sym_t *out);
void broadcast_hint_strides(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                            uint32_t nd, const int64_t *out_sz, int64_t *st);
void preserve_strides(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, sym_t *out);
struct cgs_tensor *out_dense(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                             enum cgs_dtype dt, const char *dev, bool cl);
struct cgs_tensor *fill_dense(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t nd,
                              const sym_t *shape, enum cgs_dtype dt, const char *dev,
                              bool cl);
int reduce_shape(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                 const struct cgs_arg *da, bool keep, sym_t *shape, uint32_t *nd,
                 struct cgs_diag *d);
int tensor_list(struct cgs_shape_ctx *sc, const struct cgs_arg *a, struct operand *o,
                uint32_t *cnt, uint32_t max, struct cgs_diag *d);
const char *device_arg(struct cgs_shape_ctx *sc);
int adv_index(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
              const struct cgs_arg *items, uint32_t n_items, struct cgs_diag *d);
void pair_out(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
              const sym_t *shape);
int clone_preserve_strides(struct cgs_shape_ctx *sc, struct cgs_val *out,
                           const struct cgs_arg *a);
const char *cloned_arg(const struct cgs_arg *kw, const struct cgs_arg *clone, uint32_t i);

/* shapes-core-args.c */
int parse_schema(struct cgs_shape_ctx *sc, const char *s);
size_t pname_len(const struct cgs_shape_ctx *sc, uint32_t i);
int bind_args(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_diag *d);
int find_param(const struct cgs_shape_ctx *sc, const char *name);
const struct cgs_arg *A(struct cgs_shape_ctx *sc, const char *name);
const struct cgs_arg *Ai(struct cgs_shape_ctx *sc, uint32_t i);
bool is_none(const struct cgs_arg *a);
const struct cgs_val *node_val(const struct cgs_shape_ctx *sc, const struct cgs_arg *a);
int arg_tensor(struct cgs_shape_ctx *sc, const struct cgs_arg *a,
               const struct cgs_tensor **t);
int need_tensor(struct cgs_shape_ctx *sc, const char *name, const struct cgs_tensor **t,
                struct cgs_diag *d);
int int_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *out);
bool int_const(struct cgs_shape_ctx *sc, const struct cgs_arg *a, int64_t *v);
int ints_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *out, uint32_t *n);
bool bool_of(const struct cgs_arg *a, bool def);
enum cgs_dtype dtype_of(const struct cgs_arg *a);
const char *str_of(const struct cgs_arg *a);
bool wrap_dim(int64_t dim, uint32_t rank, uint32_t *out);
int dim_arg(struct cgs_shape_ctx *sc, const char *name, uint32_t rank, uint32_t *out,
            struct cgs_diag *d);
int dt_cat(enum cgs_dtype t);
int operand_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, struct operand *o);
enum cgs_dtype result_type(const struct operand *o, uint32_t n);
bool is_float_like(enum cgs_dtype t);

/* shapes-core-results.c */
void set_symint(struct cgs_shape_ctx *sc, struct cgs_val *v, sym_t e);
struct cgs_val *new_list(struct cgs_shape_ctx *sc, uint32_t n);
struct cgs_tensor *copy_tensor(struct cgs_shape_ctx *sc, struct cgs_val *v,
                               const struct cgs_tensor *t, uint32_t ndim);
int broadcast(struct cgs_shape_ctx *sc, const struct operand *o, uint32_t n, sym_t *shape,
              uint32_t *nd, struct cgs_diag *d);
const char *device_of(const struct operand *o, uint32_t n);
int elementwise(struct cgs_shape_ctx *sc, const struct operand *o, uint32_t n,
                enum cgs_dtype dtype, bool fast, struct cgs_diag *d);
int operands(struct cgs_shape_ctx *sc, uint32_t count, struct operand *o, uint32_t *n,
             struct cgs_diag *d);
bool any_tensor(const struct operand *o, uint32_t n);
int unary_with(struct cgs_shape_ctx *sc, int mode, struct cgs_diag *d);
int rms_weight_ok(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, struct cgs_diag *d);
int same_as_first(struct cgs_shape_ctx *sc, struct cgs_diag *d);
int binary_with(const struct cgs_node *n, struct cgs_shape_ctx *sc, int mode, uint32_t count,
                struct cgs_diag *d);
enum cgs_dtype real_of(enum cgs_dtype t);
bool float_term(struct cgs_shape_ctx *sc, const struct cgs_arg *a, const struct operand *o,
                       struct cgs_buf *text, double *v, bool *sym);

/* shapes-core-views.c */
enum cgs_dtype complex_of(enum cgs_dtype t);
int copy_like(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, enum cgs_dtype dt,
              const char *memfmt, const char *device);
sym_t numel_of(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape);
int infer_size(struct cgs_shape_ctx *sc, sym_t numel, sym_t *shape, uint32_t nd,
               struct cgs_diag *d);
int view_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, sym_t *shape, uint32_t nd,
            bool can_copy, struct cgs_diag *d);
int shape_param(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *shape,
                uint32_t *nd, struct cgs_diag *d);
struct cgs_tensor *out_view(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                            uint32_t nd);
sym_t unbacked(struct cgs_shape_ctx *sc);

/* shapes-compare.c */
bool dim_eq(sym_t a, sym_t b);

/* shapes.c (the pass) */
const char *arena_msg(struct cgs_arena *ar, const char *s);
const struct cgs_val *decl_arg(struct cgs_shape_ctx *sc, const struct cgs_node *n,
                               const struct cgs_decl_ref *ref);
void ref_text(const struct cgs_decl_ref *ref, char *buf, size_t n);
int infer_declared(struct cgs_shape_ctx *sc, const struct cgs_node *n,
                   const struct cgs_decl *dc, struct cgs_diag *d);
/* torch.autocast (shapes-autocast.c): the regions Dynamo's enter/exit nodes open and close,
   and the casts torch applies to an operator's inputs inside one. */
#define AC_SWAPS 32
struct ac_swap {
    uint32_t n;
    uint32_t idx[AC_SWAPS];
    const struct cgs_val *old[AC_SWAPS];
};
void autocast_track(struct cgs_shape_ctx *sc, const struct cgs_node *n);
void autocast_apply(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct ac_swap *sw);
void autocast_restore(struct cgs_shape_ctx *sc, const struct ac_swap *sw);
void autocast_inherit(const struct cgs_shape_ctx *sc, const struct cgs_node *n,
                      struct cgs_shapes_opts *o);
void infer_node(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_shape_node *r);
void blame(const struct cgs_graph *g, struct cgs_shapes *res, const struct cgs_node *n,
           struct cgs_shape_node *r, bool reinfer);
const struct cgs_shape_ctx *nest_root(const struct cgs_shape_ctx *sc);
void caches_take(struct cgs_shape_ctx *sc);
void caches_drop(struct cgs_shape_ctx *sc);
const struct cgs_sym *bind_dim(struct cgs_symctx *sx, const struct cgs_sym *e,
                               cgs_sym_lookup_fn lookup, void *ud);

/* shapes-fft.c */
int fft_dims(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t *dims,
             uint32_t *nt, struct cgs_diag *d);

/* shapes-hop.c */
struct cgs_graph *subgraph_of(const struct cgs_graph *g, const struct cgs_node *gn);

/* shapes-linalg.c */
int take_items(struct cgs_shape_ctx *sc, uint32_t first, uint32_t count);

/* shapes-views.c */
int view_as_dtype(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, enum cgs_dtype dt,
                  struct cgs_diag *d);

#endif
