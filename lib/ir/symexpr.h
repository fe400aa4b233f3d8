/*
 * Symbolic integer expressions over a graph's size symbols (s0, s53, ...).
 *
 * Expressions are hash-consed in a struct cgs_symctx and immutable: two
 * expressions are structurally equal exactly when their pointers are equal.
 * Every constructor returns the canonical form:
 *   - sums of products with integer coefficients, constants folded, products
 *     of sums expanded (up to a size bound), like terms combined;
 *   - FloorDiv/Mod by a positive constant pull out the divisible part
 *     (FloorDiv(4*s0 + 6, 2) = 2*s0 + 3, Mod(4*s0 + 5, 2) = 1), nested
 *     FloorDivs by constants merge, CeilToInt(IntTrueDiv(a, k)) becomes
 *     FloorDiv(a + k - 1, k);
 *   - Max/Min are flattened, sorted, deduplicated, constants folded;
 *   - other functions of torch's sympy vocabulary (Piecewise, TruncToInt,
 *     ToFloat, ModularIndexing, ...) are opaque atoms kept as written
 *     (CGS_SYM_FUNC), equal when their text is, evaluated numerically.
 * Printing gives SymPy's syntax (`3*s53**2`, `((s53 - 1)//2) + 1`,
 * `Max(s0, 4)`), and printing then parsing gives back the same pointer.
 *
 * Ownership: expressions live in the context's arena and die with it; a
 * constructor returns NULL only on integer overflow or division by zero
 * (ctx->err says which).
 */
#ifndef CGS_SYMEXPR_H
#define CGS_SYMEXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/base/diag.h"

enum cgs_sym_kind {
    CGS_SYM_INT,      /* v */
    CGS_SYM_VAR,      /* name */
    CGS_SYM_POW,      /* op[0] ** v, v >= 2 */
    CGS_SYM_MUL,      /* v * op[0] * ... * op[n-1], factors sorted */
    CGS_SYM_FLOORDIV, /* op[0] // op[1] */
    CGS_SYM_MOD,      /* Python op[0] % op[1] */
    CGS_SYM_MAX,      /* Max(op[0], ...) */
    CGS_SYM_MIN,      /* Min(op[0], ...) */
    CGS_SYM_CEIL,     /* CeilToInt(op[0]) */
    CGS_SYM_TRUEDIV,  /* IntTrueDiv(op[0], op[1]): a rational, only under CeilToInt */
    CGS_SYM_ADD,      /* v + op[0] + ... + op[n-1], terms sorted */
    CGS_SYM_FUNC,     /* a call of torch's sympy vocabulary that is not modelled
                         (Piecewise, TruncToInt, ToFloat, ...): name is its text as torch
                         wrote it, op[] its free symbols (VARs, sorted); an atom to the
                         algebra, evaluated numerically from its text */      /* v + op[0] + ... + op[n-1], terms sorted */
    CGS_SYM_KIND_COUNT
};

struct cgs_sym {
    uint8_t kind;
    uint16_t depth;   /* 1 + the deepest operand's (saturating): the tree's nesting */
    uint32_t n;       /* number of operands */
    uint32_t hash;    /* structural hash, independent of addresses */
    uint32_t size;    /* an upper bound of the printed text's length (saturating): shared
                         operands print once per use, so a small DAG can print huge */
    int64_t v;        /* INT: value; ADD: constant; MUL: coefficient; POW: exponent */
    const char *name; /* VAR: the symbol's name */
    const char *recorded; /* the spelling a record gave this expression first (torch's
                             printer: "(((-u1)//3)) + 5"), or NULL: cgs_sym_note_spelling */
    const struct cgs_sym *op[];
};

struct cgs_symctx {
    struct cgs_arena *arena;
    struct cgs_sym **table; /* open addressing, power-of-two capacity */
    size_t cap, count;
    int err; /* -CGS_E_* of the last failed constructor, else 0 */
    /* while parsing: the terms the constructors may still build; past it a constructor fails
     * (-CGS_E_LIMIT, over_budget set) -- nested powers of sums expand exponentially */
    uint64_t work, budget;
    bool over_budget;
    /* the last parse failed on a function it does not take: a name it does not know, or a
     * call of torch's over more symbols than an atom holds */
    bool unknown_fn;
    /* the integer constants last made, by value modulo its size: shapes and strides repeat a
     * few constants on every node, and this finds them without hashing */
    const struct cgs_sym *ints[256];
};

/* Set up a context allocating from arena (borrowed). */
void cgs_symctx_init(struct cgs_symctx *ctx, struct cgs_arena *arena);
/* Free the intern table (the expressions go with the arena). */
void cgs_symctx_release(struct cgs_symctx *ctx);

/* Constructors. NULL on overflow or division by zero (see ctx->err). */
const struct cgs_sym *cgs_sym_int(struct cgs_symctx *ctx, int64_t v);
const struct cgs_sym *cgs_sym_var(struct cgs_symctx *ctx, const char *name);
const struct cgs_sym *cgs_sym_add(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b);
const struct cgs_sym *cgs_sym_sub(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b);
const struct cgs_sym *cgs_sym_neg(struct cgs_symctx *ctx, const struct cgs_sym *a);
const struct cgs_sym *cgs_sym_mul(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b);
const struct cgs_sym *cgs_sym_pow(struct cgs_symctx *ctx, const struct cgs_sym *a, int64_t e);
const struct cgs_sym *cgs_sym_floordiv(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                       const struct cgs_sym *b);
const struct cgs_sym *cgs_sym_mod(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b);
const struct cgs_sym *cgs_sym_max(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b);
const struct cgs_sym *cgs_sym_min(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                  const struct cgs_sym *b);
const struct cgs_sym *cgs_sym_truediv(struct cgs_symctx *ctx, const struct cgs_sym *a,
                                      const struct cgs_sym *b);
const struct cgs_sym *cgs_sym_ceil(struct cgs_symctx *ctx, const struct cgs_sym *a);
/* Convenience: a + k, a * k. */
const struct cgs_sym *cgs_sym_add_int(struct cgs_symctx *ctx, const struct cgs_sym *a, int64_t k);
const struct cgs_sym *cgs_sym_mul_int(struct cgs_symctx *ctx, const struct cgs_sym *a, int64_t k);

/*
 * Parse SymPy-style text ("s0 + 1", "3*s53**2", "Max(s0, 4)",
 * "((s53 - 1)//2) + 1", "CeilToInt(IntTrueDiv(s0, 2))"). On error returns
 * -CGS_E_SCHEMA (or -CGS_E_LIMIT for nesting beyond 64 levels) and fills d
 * with the column (1-based, in d->col) and what was expected.
 */
int cgs_sym_parse(struct cgs_symctx *ctx, const char *text, const struct cgs_sym **out,
                  struct cgs_diag *d) CGS_WUR;

/* Whether text calls a function of torch's sympy vocabulary (a graph reader loads a size the
 * parser refuses as unknown when it does, with unknown_fn set: torch's, not malformed). */
bool cgs_sym_mentions_torch_function(const char *text);

/* The deepest expression the parser accepts (what it reads, it can print and read again). */
#define CGS_SYM_MAX_TREE_DEPTH 64
/* The longest printed text of an expression the parser accepts. */
#define CGS_SYM_MAX_PRINTED 65536

/* Append the SymPy-syntax text of e to out. */
void cgs_sym_print(const struct cgs_sym *e, struct cgs_buf *out);
/* Print into a fresh heap string (caller frees). */
char *cgs_sym_to_string(const struct cgs_sym *e);

/* Keep text (which must live as long as the context: its arena's, say) as the spelling a record
 * gave e, unless one was kept before; what reports print for e (cgs_sym_spelling). */
void cgs_sym_note_spelling(struct cgs_symctx *ctx, const struct cgs_sym *e, const char *text);
/* The spelling to report e in: the recorded one, else cgscope's own (caller frees). */
char *cgs_sym_spelling(const struct cgs_sym *e);

/* True, with *v set, when e is a constant. */
bool cgs_sym_is_int(const struct cgs_sym *e, int64_t *v);

/* Total, address-independent order (negative, 0, positive). */
int cgs_sym_cmp(const struct cgs_sym *a, const struct cgs_sym *b);

/* Call fn once per distinct free symbol name in e, in order of first occurrence. */
void cgs_sym_foreach_var(const struct cgs_sym *e, void (*fn)(void *ud, const char *name), void *ud);

/* Look a symbol's value up: 0 and *v set, or -CGS_E_UNKNOWN; or, for a SymFloat (torch's
 * zf0) bound to a float, CGS_SYM_LOOKUP_FLOAT with the double's bytes in *v: only opaque
 * functions of torch's vocabulary (TruncToInt(2.5*ToFloat(s0)), ...) take it, an integer
 * expression of it is -CGS_E_INVAL. */
typedef int (*cgs_sym_lookup_fn)(void *ud, const char *name, int64_t *v);
#define CGS_SYM_LOOKUP_FLOAT 1

/*
 * Evaluate under a binding: 0 with *out set; -CGS_E_UNKNOWN for an unbound
 * symbol, -CGS_E_LIMIT on overflow, -CGS_E_INVAL on division by zero.
 */
int cgs_sym_eval(const struct cgs_sym *e, cgs_sym_lookup_fn lookup, void *ud, int64_t *out) CGS_WUR;

/* A simple binding list for cgs_sym_eval: ud is a struct cgs_sym_bindings *. */
struct cgs_sym_binding {
    const char *name;
    int64_t value;
    bool is_float; /* a SymFloat's value: fvalue */
    double fvalue;
};
struct cgs_sym_bindings {
    const struct cgs_sym_binding *items;
    size_t n;
};
int cgs_sym_bindings_lookup(void *ud, const char *name, int64_t *v);

/* Evaluate the text of a SymFloat as torch prints one ("zf0", "2.0*zf0", "ToFloat(s0)/3")
 * under a binding: 0 with *out set, or -CGS_E_*. */
int cgs_sym_eval_float_text(const char *text, cgs_sym_lookup_fn lookup, void *ud,
                            double *out) CGS_WUR;

/*
 * Semantic equality: true when a and b are the same canonical expression,
 * or agree at a fixed set of pseudo-random bindings of their symbols
 * (values 2..997), the way PyTorch's tests compare sizes.
 */
bool cgs_sym_equal_semantic(const struct cgs_sym *a, const struct cgs_sym *b);

#endif
