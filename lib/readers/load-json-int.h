/*
 * The graph JSON reader's state, shared by its two node readers: the tree path
 * (lib/readers/load-json.c, the reference: every error is its) and the direct walk
 * (lib/readers/load-json-direct.c, the usual node straight from its text). Internal to
 * lib/readers.
 */
#ifndef CGS_LOAD_JSON_INT_H
#define CGS_LOAD_JSON_INT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"
#include "lib/base/json-alloc.h"
#include "lib/ir/graph.h"
#include "lib/readers/json-scan.h"
#include "lib/readers/load.h"

#define D_STACKS 64 /* stack traces the direct walk keeps as checked (d_seen_stack) */
#define D_VALS   32 /* node values the direct walk keeps as read (d_seen_val) */

struct unresolved {
    struct cgs_arg *arg;
    struct cgs_graph *g;
    uint32_t node_index;
    const char *name; /* the missing node's name (arena) */
    char path[256];
    size_t off;
};

struct loader {
    const char *file;
    const char *buf;
    size_t len;
    struct cgs_diag *d;
    struct cgs_graph *root;

    struct cgs_jscan js; /* the scanner, with value start offsets in preorder */
    struct cgs_jbump *bump; /* where the cJSON trees are made (lib/base/json-alloc.h) */

    /* the current element */
    cJSON *elem;
    size_t elem_base; /* offset of the element's first byte */

    /* the JSON path of what is being read: a prefix ("nodes[12]") and a stack
     * of segments, formatted only when an error needs it */
    char path[256];
    /* while reading nodes: the path is prefix "nodes[" node_at "]", formatted only when a
     * message needs it (node_at < 0: the path is path[]) */
    const char *node_prefix;
    long node_at;
    struct path_seg {
        const char *key; /* NULL: an array index */
        long index;
    } segs[2 * CGS_LOAD_MAX_DEPTH + 16];
    size_t n_segs;

    struct unresolved *unres;
    size_t n_unres, alloc_unres;

    /* dimension text -> expression: the same strings recur on every node */
    struct cgs_strmap *dims;

    /* the buffer outlives the graph (a mapped file): each node's stack trace is checked by
     * the scanner, left out of what cJSON parses and decoded only when asked for */
    bool lazy_stack;

    /* a graph built by another reader (no text: buf is NULL, cgs_load_start): where its text
       starts in the file, for messages */
    uint32_t tree_line;

    /* the direct walk's stack traces checked last ([at, at + len) with quotes, newest first) */
    struct {
        size_t at, len;
    } stacks[D_STACKS];
    int n_stacks;

    /* the direct walk's node values read last ([at, at + len) of the text, what they gave, the
       graph they were read into; newest or last met first), and how often one was met again */
    struct kept_val {
        size_t at, len;
        const struct cgs_val *v;
        const struct cgs_graph *g;
    } vals[D_VALS];
    int n_vals;
    uint32_t val_tries, val_hits;
};

/* A dimension's text (its value already read): the one that text gave before (1), or parsed
 * (0, or -CGS_E_* with pd filled) and, but for a negative size, kept for the next. */
int cgs_load_dim_text(struct loader *L, struct cgs_graph *g, const char *t, bool is_size,
                      const struct cgs_sym **out, struct cgs_diag *pd);

/*
 * A DIM: an integer's text (num; NULL when the number has none) or an expression's, read as a
 * size (is_size: >= 0) or not. 0 with *out set (NULL: unknown, a graph note says why), or
 * -CGS_E_* with pd's message; *col is then the 1-based column in the expression's text where
 * it went wrong (0: the whole DIM).
 */
int cgs_load_dim(struct loader *L, struct cgs_graph *g, const char *t, bool num, bool is_size,
                 const struct cgs_sym **out, struct cgs_diag *pd, uint32_t *col);

/*
 * The node object at p read straight from its text (lib/readers/load-json-direct.c): 0, the node
 * added and *end past it; 1, nothing of it kept (the tree path reads it). Its cJSON allocations
 * are the caller's bump region's (L->bump): reset after each node.
 */
int cgs_load_direct_node(struct loader *L, struct cgs_graph *g, size_t p, size_t *end);

/*
 * For a reader that builds the IR itself from another text (the printed-graph reader,
 * lib/readers/fxtext.c), with this loader's rules and words: a loader without text, its
 * messages at first_line of file (cgs_load_stop releases it); a symbol of a "symbols" object
 * (s NULL: none said);
 * a reference to a node not read yet (or none), decided by cgs_load_finish, which then links
 * the graph and its subgraphs and checks its one output node.
 */
void cgs_load_start(struct loader *L, const char *file, uint32_t first_line, struct cgs_diag *d);
void cgs_load_stop(struct loader *L);
int cgs_load_symbol(struct loader *L, struct cgs_graph *g, const char *name, const cJSON *s);
/* A number's text as the document's loader reads it (cJSON's print for one made without text,
 * in buf), or NULL for no number or one not finite (which the document holds as null). */
const char *cgs_load_number_text(const cJSON *v, char buf[32]);
void cgs_load_defer_ref(struct loader *L, struct cgs_graph *g, uint32_t node_index,
                        const char *name, struct cgs_arg *a);
int cgs_load_finish(struct loader *L, struct cgs_graph *g);

#endif
