/*
 * The printed-graph reader's model (lib/readers/fxtext.h): what lib/readers/fxtext.c reads a
 * printed graph into, and lib/readers/fxtext-out.c writes out as the IR or as a graph JSON
 * document (lib/writers/fxtext-json.c). Everything is in the reader's arena but the node lists.
 */
#ifndef CGS_FXTEXT_INT_H
#define CGS_FXTEXT_INT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"
#include "lib/readers/fxtext.h"

/*
 * What the statements make, before it is written out: the nodes of the graph and of each
 * nested class, in the kinds graph JSON has (docs/spec/graph-json.md), numbers and node names as
 * their text. One reading gives either the IR (cgs_graph_load_fxtext: no document between) or
 * the document (cgs_fxtext_to_json, which `graphs --write` writes); the rewrites of the whole
 * graph (a placeholder's new name, the pytree parameters, a split graph's pieces) are made on
 * it. Everything is in the reader's arena but the node lists.
 */
enum fak {
    FA_NULL, FA_BOOL, FA_NUM, FA_STR, FA_TUPLE, FA_NODE, FA_FLOAT, FA_ELLIPSIS, FA_REPR,
    FA_DTYPE, FA_MEMFMT, FA_LAYOUT, FA_DEVICE, FA_SLICE, FA_LIST, FA_DICT
};

struct fa {
    uint8_t k;
    bool b;
    uint32_t n;      /* FA_TUPLE, FA_SLICE (3), FA_LIST; FA_DICT: keys and values alternating */
    const char *s;   /* FA_NUM: a JSON number's text; FA_NODE: a name; the others' string */
    struct fa *items;
};

struct fkw {
    const char *key;
    struct fa v;
};

struct fdim {
    const char *t; /* an integer's text (num) or an expression's */
    bool num;
};

enum fvk { FV_NUM, FV_BOOL, FV_SYM, FV_TENSOR };

struct fv {
    uint8_t k;
    bool b;            /* FV_BOOL */
    bool has_stride;
    bool offset_zero;  /* a graph input's storage offset; other nodes' are unknown */
    const char *text;  /* FV_NUM; FV_SYM's expression */
    const char *kind;  /* FV_SYM: "symint", "symfloat" or "symbool" */
    const cJSON *hint; /* FV_SYM: the caller's hint of a plain symbol, or NULL */
    const char *dtype, *device;
    struct fdim *shape, *stride;
    uint32_t n_shape, n_stride;
};

struct fn {
    const char *name, *op, *target, *stack, *piece;
    struct fa *args;
    struct fkw *kw;
    uint32_t n_args, n_kw;
    struct fv *val;
    uint32_t line; /* its statement's */
};

/* the nodes of a graph, in order */
struct fgraph {
    struct fn **v;
    size_t n, cap;
};

struct fsub {
    const char *name;
    struct fgraph g;
    bool inlined; /* a split graph's piece, put back into the graph */
};

/* A printed graph read: its nodes, its nested classes' and its symbols. */
struct fx_model {
    const char *file; /* for messages */
    struct cgs_diag *d;
    struct fgraph top;
    struct fsub *subs; /* the nested classes' graphs, in order (a split graph's pieces inlined) */
    size_t n_subs;
    const char *const *syms; /* the symbols the sizes mention, in order of first mention */
    size_t n_syms;
    const cJSON *hints; /* the caller's symbols object, or NULL */
    struct fx *reader;  /* what cgs_fx_release frees */
};

/* text[0..len) read into *m (options and messages as cgs_fxtext_to_json's): 0, or -CGS_E_*
 * with d filled; cgs_fx_release(m) either way. */
/* The caller's hint object of symbol k, or NULL. */
static inline const cJSON *cgs_fx_hint(const struct fx_model *M, size_t k)
{
    return M->hints ? cJSON_GetObjectItemCaseSensitive(M->hints, M->syms[k]) : NULL;
}

int cgs_fx_read(struct fx_model *m, const char *text, size_t len, const char *file,
                uint32_t first_line, const struct cgs_fxtext_opts *o, struct cgs_diag *d);
void cgs_fx_release(struct fx_model *m);

#endif
