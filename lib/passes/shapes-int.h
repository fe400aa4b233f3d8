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

/* ---- the helpers (lib/passes/shapes-core.c and the families that define them) ---- */

struct data_scan;

void dimcpy(sym_t *dst, const sym_t *src, size_t n);
bool hint(const struct cgs_shape_ctx *sc, sym_t e, int64_t *v);
int64_t hv(const struct cgs_shape_ctx *sc, sym_t e);
int64_t hmul(int64_t a, int64_t b);
sym_t K(struct cgs_shape_ctx *sc, int64_t v);
sym_t memo(struct cgs_shape_ctx *sc, char op, sym_t a, sym_t b);
bool both_const(sym_t a, sym_t b, int64_t *x, int64_t *y);
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
bool h_strides_like_cl(uint32_t nd, const int64_t *sz, const int64_t *st);
bool suggest_cl(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t);
bool ge_nn(int64_t a, int64_t b);
void elementwise_strides(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                         uint32_t nt, int64_t (*st)[NDIM_MAX], sym_t *out);
void broadcast_hint_strides(const struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                            uint32_t nd, const int64_t *out_sz, int64_t *st);
void preserve_strides(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, sym_t *out);
int parse_schema(struct cgs_shape_ctx *sc, const char *s);
size_t pname_len(const struct cgs_shape_ctx *sc, uint32_t i);
int bind_args(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_diag *d);
int find_param(const struct cgs_shape_ctx *sc, const char *name);
const struct cgs_arg *parse_default(struct cgs_shape_ctx *sc, const char *s, size_t len);
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
enum cgs_dtype promote2(enum cgs_dtype a, enum cgs_dtype b);
int operand_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a, struct operand *o);
enum cgs_dtype result_type(const struct operand *o, uint32_t n);
bool is_float_like(enum cgs_dtype t);
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
bool any_symbolic(const struct operand *o, uint32_t n);
int unary_with(struct cgs_shape_ctx *sc, int mode, struct cgs_diag *d);
int rms_weight_ok(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, struct cgs_diag *d);
int same_as_first(struct cgs_shape_ctx *sc, struct cgs_diag *d);
int scalar_compare(struct cgs_shape_ctx *sc, unsigned cmp, sym_t a, sym_t b);
int scalar_arith(struct cgs_shape_ctx *sc, const struct cgs_node *n, const struct operand *o,
                 uint32_t cnt, struct cgs_diag *d);
int binary_with(const struct cgs_node *n, struct cgs_shape_ctx *sc, int mode, uint32_t count,
                struct cgs_diag *d);
enum cgs_dtype real_of(enum cgs_dtype t);
void exec_fft_strides(struct cgs_shape_ctx *sc, uint32_t nd, const int64_t *in_st,
                      const sym_t *out_sz, const uint32_t *dims, uint32_t nt,
                      sym_t *out_st);
int fft_dims(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t *dims,
             uint32_t *nt, struct cgs_diag *d);
enum cgs_dtype complex_of(enum cgs_dtype t);
bool fft_optimized(const uint32_t *dims, uint32_t nt);
int fft_run(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, const uint32_t *dims,
            uint32_t nt, int kind, bool onesided, sym_t last, struct cgs_diag *d);
int fft_common(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d);
int view_as_dtype(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, enum cgs_dtype dt,
                  struct cgs_diag *d);
int fft_user(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d);
int fft_user_hermitian(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d);
int copy_like(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, enum cgs_dtype dt,
              const char *memfmt, const char *device);
bool same_device(const char *a, const char *b);
sym_t numel_of(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape);
int infer_size(struct cgs_shape_ctx *sc, sym_t numel, sym_t *shape, uint32_t nd,
               struct cgs_diag *d);
bool view_strides(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
                  const sym_t *shape, sym_t *stride);
int view_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, sym_t *shape, uint32_t nd,
            bool can_copy, struct cgs_diag *d);
int shape_param(struct cgs_shape_ctx *sc, const struct cgs_arg *a, sym_t *shape,
                uint32_t *nd, struct cgs_diag *d);
struct cgs_tensor *out_view(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                            uint32_t nd);
int expand_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, const sym_t *size,
              uint32_t nd, struct cgs_diag *d);
int select_into(struct cgs_shape_ctx *sc, struct cgs_val *v, const struct cgs_tensor *t,
                uint32_t dim, sym_t index, struct cgs_diag *d);
sym_t unbacked(struct cgs_shape_ctx *sc);
sym_t slice_bound(struct cgs_shape_ctx *sc, sym_t b, sym_t size, bool is_end);
int slice_into(struct cgs_shape_ctx *sc, struct cgs_tensor *o, const struct cgs_tensor *t,
               uint32_t dim, sym_t start, sym_t end, int64_t step, struct cgs_diag *d);
int split_into(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t dim,
               const sym_t *sizes, uint32_t cnt);
int index_tensor(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                 const struct cgs_arg *ix, struct cgs_diag *d);
int list_index(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
               const struct cgs_arg *b, struct cgs_diag *d);
int sym_fold(struct cgs_shape_ctx *sc, int which, struct cgs_diag *d);
struct cgs_tensor *out_dense(struct cgs_shape_ctx *sc, uint32_t nd, const sym_t *shape,
                             enum cgs_dtype dt, const char *dev, bool cl);
struct cgs_tensor *fill_dense(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t nd,
                              const sym_t *shape, enum cgs_dtype dt, const char *dev,
                              bool cl);
int spatial_param(struct cgs_shape_ctx *sc, const char *name, uint32_t k, int64_t def,
                  sym_t *out, struct cgs_diag *d);
bool conv_cl(struct cgs_shape_ctx *sc, const struct cgs_tensor *in,
             const struct cgs_tensor *w);
int conv_common(struct cgs_shape_ctx *sc, bool transposed, struct cgs_diag *d);
int batch_norm_outputs(struct cgs_shape_ctx *sc, uint32_t cnt, bool reserve,
                       struct cgs_diag *d);
int mm_of(struct cgs_shape_ctx *sc, const struct cgs_tensor *a, const struct cgs_tensor *b,
          struct cgs_diag *d);
int bmm_of(struct cgs_shape_ctx *sc, const struct cgs_tensor *a, const struct cgs_tensor *b,
           struct cgs_diag *d);
int reduce_shape(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                 const struct cgs_arg *da, bool keep, sym_t *shape, uint32_t *nd,
                 struct cgs_diag *d);
int reduce_with(const struct cgs_node *n, struct cgs_shape_ctx *sc, int mode,
                struct cgs_diag *d);
int embedding_of(struct cgs_shape_ctx *sc, const struct cgs_tensor *w,
                 const struct cgs_tensor *ix, struct cgs_diag *d);
int tensor_list(struct cgs_shape_ctx *sc, const struct cgs_arg *a, struct operand *o,
                uint32_t *cnt, uint32_t max, struct cgs_diag *d);
struct operand *list_operands(struct cgs_shape_ctx *sc, const struct cgs_arg *a);
sym_t pool_size(struct cgs_shape_ctx *sc, sym_t in, int64_t k, int64_t s, int64_t p,
                int64_t dil, bool ceil_mode);
int pool_shape(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, bool has_dil,
               uint32_t nsp, sym_t *shape, struct cgs_diag *d);
int pool_pair(struct cgs_shape_ctx *sc, enum cgs_dtype second, struct cgs_diag *d);
struct cgs_tensor *fill_bshd(struct cgs_shape_ctx *sc, struct cgs_val *v,
                             const struct cgs_tensor *q, const struct cgs_tensor *val);
const char *device_arg(struct cgs_shape_ctx *sc);
int factory(struct cgs_shape_ctx *sc, const struct cgs_arg *size, enum cgs_dtype dt,
            const char *dev, struct cgs_diag *d);
int adv_index(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
              const struct cgs_arg *items, uint32_t n_items, struct cgs_diag *d);
void pair_out(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t nd,
              const sym_t *shape);
void scan_leaf(struct data_scan *s, uint32_t depth, int cat);
void scan_data(struct cgs_shape_ctx *sc, const struct cgs_arg *a, uint32_t depth,
               struct data_scan *s);
int upsample_to(struct cgs_shape_ctx *sc, const struct cgs_tensor *t,
                const struct cgs_arg *size, const struct cgs_arg *scale, struct cgs_diag *d);
int copy_of(const struct cgs_node *n, struct cgs_shape_ctx *sc, cgs_shape_rule_fn view,
            struct cgs_diag *d);
bool dim_eq(sym_t a, sym_t b);
void describe_val(const struct cgs_val *v, struct cgs_buf *out);
void describe(struct cgs_buf *why, const char *what, const struct cgs_val *a,
              const struct cgs_val *b);
int max_unpool_with(struct cgs_shape_ctx *sc, uint32_t nsp, struct cgs_diag *d);
int matvec(struct cgs_shape_ctx *sc, const char *a, const char *b, int kind,
           struct cgs_diag *d);
int diagonal_view(struct cgs_shape_ctx *sc, const struct cgs_tensor **tp,
                  struct cgs_tensor **op, struct cgs_diag *d);
int atleast(struct cgs_shape_ctx *sc, uint32_t want, struct cgs_diag *d);
void lapack_fill(struct cgs_shape_ctx *sc, struct cgs_val *v, uint32_t nd,
                 const sym_t *shape, enum cgs_dtype dt, const char *dev, bool col_major);
int square_input(struct cgs_shape_ctx *sc, const char *name, const struct cgs_tensor **t,
                 struct cgs_diag *d);
enum cgs_dtype complex_of_any(enum cgs_dtype t);
int min_dim(struct cgs_shape_ctx *sc, sym_t a, sym_t b, bool sym, sym_t *out, struct cgs_diag *d);
int take_items(struct cgs_shape_ctx *sc, uint32_t first, uint32_t count);
struct cgs_graph *subgraph_of(const struct cgs_graph *g, const struct cgs_node *gn);
struct cgs_graph *body_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a);
int enter_body(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_graph *body,
               const struct cgs_arg *ops, uint32_t count, struct cgs_diag *d);
bool wrapped_op_returns_none(const struct cgs_shape_ctx *sc, const char *target);
int clone_preserve_strides(struct cgs_shape_ctx *sc, struct cgs_val *out,
                           const struct cgs_arg *a);
int wrapped_none_or_say(const struct cgs_shape_ctx *sc, const char *target,
                        struct cgs_diag *d);
const char *cloned_arg(const struct cgs_arg *kw, const struct cgs_arg *clone, uint32_t i);
int triton_clone_index(const struct cgs_node *n, const char *key);
int loss_reduction(struct cgs_shape_ctx *sc, int64_t *red, struct cgs_diag *d);
int pixel_shuffle_with(struct cgs_shape_ctx *sc, bool up, struct cgs_diag *d);
int same_batch(const struct cgs_tensor *a, const struct cgs_tensor *b, struct cgs_diag *d);
int solver_result(struct cgs_shape_ctx *sc, const char *a_name, const char *b_name,
                  bool col_major, struct cgs_diag *d);
int tri_indices(struct cgs_shape_ctx *sc, bool upper, struct cgs_diag *d);
int lu_parts(struct cgs_shape_ctx *sc, bool want_p, bool want_lu, bool sym_min,
             struct cgs_diag *d);
int max_pool_nd(struct cgs_shape_ctx *sc, uint32_t nsp, struct cgs_diag *d);
int broadcast_reduce(struct cgs_shape_ctx *sc, const char *dim_name, bool keep,
                     struct cgs_diag *d);
int trapezoid_with(struct cgs_shape_ctx *sc, bool cumulative, struct cgs_diag *d);
int py_loss(struct cgs_shape_ctx *sc, uint32_t nops, bool per_sample, struct cgs_diag *d);
int stack_like(struct cgs_shape_ctx *sc, int kind, struct cgs_diag *d);
int per_matrix(struct cgs_shape_ctx *sc, enum cgs_dtype dt, struct cgs_diag *d);
int tensor_split_along(struct cgs_shape_ctx *sc, const struct cgs_tensor *t, uint32_t dim,
                       const struct cgs_arg *how, bool must_divide, struct cgs_diag *d);
int xsplit(struct cgs_shape_ctx *sc, int which, struct cgs_diag *d);
const char *arena_msg(struct cgs_arena *ar, const char *s);
const struct cgs_val *decl_arg(struct cgs_shape_ctx *sc, const struct cgs_node *n,
                               const struct cgs_decl_ref *ref);
void ref_text(const struct cgs_decl_ref *ref, char *buf, size_t n);
int infer_declared(struct cgs_shape_ctx *sc, const struct cgs_node *n,
                   const struct cgs_decl *dc, struct cgs_diag *d);
void infer_node(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_shape_node *r);
void blame(const struct cgs_graph *g, struct cgs_shapes *res, const struct cgs_node *n,
           struct cgs_shape_node *r, bool reinfer);
const struct cgs_shape_ctx *nest_root(const struct cgs_shape_ctx *sc);
void caches_take(struct cgs_shape_ctx *sc);
void caches_drop(struct cgs_shape_ctx *sc);
const struct cgs_sym *bind_dim(struct cgs_symctx *sx, const struct cgs_sym *e,
                               cgs_sym_lookup_fn lookup, void *ud);

#endif
