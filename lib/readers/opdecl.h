/*
 * Declared operators: shape rules for a user's own operators (vLLM's attention ops,
 * mylib::fused_rmsnorm, a model's transformers.* helpers) from a small text file, no code.
 *
 * One declaration a line; '#' starts a comment:
 *
 *   TARGET: OUTPUT [, OUTPUT ...] [mutates NAME ...]
 *   OUTPUT := none                      the op returns None (an out= or logging op)
 *           | unknown                   an output cgscope leaves unknown (its size hangs on
 *                                       a value: flash-attn's p when return_softmax)
 *           | like ARG [MOD ...]        a fresh tensor with ARG's shape, dtype and device,
 *                                       changed by the modifiers: torch.empty_like(ARG)
 *                                       (a dense layout kept) when no size changes, else a
 *                                       contiguous one (ARG.new_empty(shape))
 *   MOD    := dtype DTYPE               another dtype ("float16")
 *           | rank N                    N dims: ARG's first N (applied before any dim, which
 *                                       then counts within N); dims past ARG's rank must be
 *                                       given by 'dim D = SIZE'
 *           | dim D = SIZE              dim D (negative counts from the end) takes SIZE
 *   SIZE   := INT | ARG dim D           a constant, or a dim of another argument
 *   ARG    := INT | NAME                a position, or the name of a keyword argument
 *
 *   mylib.fused_rmsnorm: like 0
 *   transformers.grouped_mm_fallback: like 0 dim -1 = 1 dim -1
 *   mylib.topk_pair: like 0 dim -1 = 8, like 0 dim -1 = 8 dtype int64
 *   mylib.scale_: none mutates y
 *   flashattn._flash_attn_forward: like 0, like 0 rank 3 dim 1 = 0 dim 2 dim 2 = 0 dim 1 ...
 *
 * "mutates" names the keyword arguments the op writes, in its schema's order: what
 * auto_functionalized (torch's v1) returns after the op's result.
 * TARGET matches as MagiCompiler names ops: "mylib.fused_rmsnorm" also matches the graph's
 * "mylib.fused_rmsnorm.default" (lib/ops/ops.h, cgs_op_name_matches). A declaration wins over
 * the registry. Several files may be loaded; a later one wins for the same target.
 */
#ifndef CGS_OPDECL_H
#define CGS_OPDECL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/base/diag.h"
#include "lib/ir/graph.h"

#define CGS_DECL_MODS 8
#define CGS_DECL_OUTS 8
/* the highest argument position a declaration may name */
#define CGS_DECL_MAX_ARG 1023
#define CGS_DECL_MAX_ARG_TEXT "1023"

struct cgs_decl_ref {
    int32_t pos;      /* argument position, or -1 when named */
    const char *name; /* keyword argument name (when pos < 0) */
};

struct cgs_decl_mod {
    enum { CGS_DECL_DTYPE, CGS_DECL_DIM } kind;
    enum cgs_dtype dtype;   /* DTYPE */
    int32_t dim;            /* DIM: the output dim */
    bool from_arg;          /* DIM: SIZE is a dim of an argument */
    int64_t size;           /* DIM: constant SIZE */
    struct cgs_decl_ref of; /* DIM with from_arg: the argument */
    int32_t of_dim;         /* ... and its dim */
};

struct cgs_decl_out {
    bool none;
    bool unknown;  /* 'unknown': left unknown */
    int32_t rank;  /* 'rank N': N + 1; 0 when not given (ARG's rank) */
    struct cgs_decl_ref like;
    struct cgs_decl_mod mods[CGS_DECL_MODS];
    uint32_t n_mods;
};

struct cgs_decl {
    const char *target;
    const char *file; /* where it was declared, for messages */
    uint32_t line;
    struct cgs_decl_out outs[CGS_DECL_OUTS];
    uint32_t n_outs;
    const char *mutates[CGS_DECL_OUTS]; /* "mutates y z": the arguments it writes, in the
                                           schema's order (auto_functionalized's outputs) */
    uint32_t n_mutates;
};

struct cgs_opdecls {
    struct cgs_decl *items;
    uint32_t n, alloc;
    char **files; /* the names the declarations were read under (their 'file' points here) */
    uint32_t n_files;
};

/* Parse the text of a declaration file (name for messages). 0, or -CGS_E_* with d set. */
int cgs_opdecls_parse(struct cgs_opdecls *ds, const char *text, const char *name,
                      struct cgs_diag *d) CGS_WUR;

/* Read and parse a file. */
int cgs_opdecls_load(struct cgs_opdecls *ds, const char *path, struct cgs_diag *d) CGS_WUR;

/* The declaration for a graph target (the last one that matches), or NULL. */
const struct cgs_decl *cgs_opdecls_find(const struct cgs_opdecls *ds, const char *target);

void cgs_opdecls_free(struct cgs_opdecls *ds);

#endif
