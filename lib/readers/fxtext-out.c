/*
 * A printed graph's model (lib/readers/fxtext-int.h) written out straight into the IR, with the
 * graph JSON loader's rules and words (lib/readers/load-json-int.h). Its graph JSON text is
 * lib/writers/fxtext-json.c's.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/utf8.h"
#include "lib/ir/graph.h"
#include "lib/readers/fxtext-int.h"
#include "lib/readers/load-json-int.h"


/* ---- written out: the IR ------------------------------------------------------------------- */

/*
 * The model made into the graph with the graph JSON loader's rules and words
 * (lib/readers/load-json-int.h), as loading the document would, but each refusal at the
 * statement that made the node.
 */
struct emit {
    struct fx_model *M;
    struct loader L;
    const struct fn *at; /* the node being made */
    bool check_text;     /* the text has bytes past ASCII, or is long: each string is checked */
};

static int efail(struct emit *E, int code, const char *fmt, ...) CGS_PRINTF(3, 4);

static int fail_line(struct emit *E, uint32_t line, int code, const char *msg)
{
    cgs_diag_set(E->M->d, code, "%s", msg);
    cgs_diag_at(E->M->d, E->M->file, line, 1);
    return -code;
}

static int efail(struct emit *E, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (E->at) {
        size_t n = strlen(msg);
        snprintf(msg + n, sizeof(msg) - n, " (node '%s')", E->at->name);
    }
    return fail_line(E, E->at ? E->at->line : E->L.tree_line, code, msg);
}

/* What graph JSON refuses in a string: invalid UTF-8, a string past the limit. */
static int e_text(struct emit *E, const char *t)
{
    if (!E->check_text || !t)
        return 0;
    const unsigned char *b = (const unsigned char *)t;
    size_t n = strlen(t);
    if (n > CGS_LOAD_MAX_STRING)
        return efail(E, CGS_E_LIMIT, "string longer than %zu bytes", (size_t)CGS_LOAD_MAX_STRING);
    for (size_t p = 0; p < n;) {
        size_t u = b[p] < 0x80 ? 1 : cgs_utf8_len(b, p, n);
        if (!u)
            return efail(E, CGS_E_PARSE, "invalid UTF-8 in a string (byte 0x%02X): a graph's "
                         "text is read as UTF-8", b[p]);
        p += u;
    }
    return 0;
}

static int e_arg_texts(struct emit *E, const struct fa *a)
{
    int err = e_text(E, a->s);
    for (uint32_t i = 0; !err && a->items && i < a->n; i++)
        err = e_arg_texts(E, &a->items[i]);
    return err;
}

static int e_val_texts(struct emit *E, const struct fv *v)
{
    int err = e_text(E, v->text) || e_text(E, v->kind) || e_text(E, v->dtype) ||
              e_text(E, v->device);
    for (uint32_t i = 0; !err && i < v->n_shape; i++)
        err = e_text(E, v->shape[i].t);
    for (uint32_t i = 0; !err && i < v->n_stride; i++)
        err = e_text(E, v->stride[i].t);
    return err ? -E->M->d->code : 0;
}

/* The strings of node n, in graph JSON: every one is UTF-8 and within the limit. */
static int e_node_texts(struct emit *E, const struct fn *n)
{
    int err = 0;
    if (!E->check_text)
        return 0;
    err = e_text(E, n->name) || e_text(E, n->op) || e_text(E, n->target) ||
          e_text(E, n->stack) || e_text(E, n->piece);
    for (uint32_t i = 0; !err && i < n->n_args; i++)
        err = e_arg_texts(E, &n->args[i]);
    for (uint32_t i = 0; !err && i < n->n_kw; i++)
        err = e_text(E, n->kw[i].key) || e_arg_texts(E, &n->kw[i].v);
    if (!err && n->val)
        err = e_val_texts(E, n->val);
    return err ? -E->M->d->code : 0;
}

static int e_int(struct emit *E, const char *t, int64_t *v)
{
    if (!cgs_json_text_is_int(t))
        return efail(E, CGS_E_SCHEMA, "expected an integer, got a number");
    if (!cgs_json_text_int(t, v))
        return efail(E, CGS_E_LIMIT, "integer out of the 64-bit range");
    return 0;
}

static int e_arg(struct emit *E, struct cgs_graph *g, uint32_t index, const struct fa *x,
                 struct cgs_arg *a, int depth)
{
    int err;
    if (depth > CGS_LOAD_MAX_DEPTH)
        return efail(E, CGS_E_LIMIT, "argument nested too deep");
    switch (x->k) {
    case FA_NULL: a->kind = CGS_ARG_NONE; return 0;
    case FA_BOOL: a->kind = CGS_ARG_BOOL; a->u.b = x->b; return 0;
    case FA_NUM:
        if (cgs_json_text_is_int(x->s)) {
            a->kind = CGS_ARG_INT;
            return e_int(E, x->s, &a->u.i);
        }
        a->kind = CGS_ARG_FLOAT;
        a->u.f = strtod(x->s, NULL);
        return 0;
    case FA_STR: a->kind = CGS_ARG_STR; a->u.s = cgs_graph_intern(g, x->s); return 0;
    case FA_NODE: {
        struct cgs_node *n = cgs_graph_find(g, x->s);
        a->kind = CGS_ARG_NODE;
        if (n && n->index < index)
            a->u.node = n;
        else /* unknown, later or self: decided once every node is in */
            cgs_load_defer_ref(&E->L, g, index, x->s, a);
        return 0;
    }
    case FA_DTYPE:
        a->kind = CGS_ARG_DTYPE;
        a->u.dtype = cgs_dtype_from_name(x->s);
        return 0;
    case FA_DEVICE:
    case FA_MEMFMT:
    case FA_LAYOUT:
    case FA_REPR:
        a->kind = x->k == FA_DEVICE   ? CGS_ARG_DEVICE
                  : x->k == FA_MEMFMT ? CGS_ARG_MEMFMT
                  : x->k == FA_LAYOUT ? CGS_ARG_LAYOUT
                                      : CGS_ARG_REPR;
        a->u.s = cgs_graph_intern(g, x->s);
        return 0;
    case FA_FLOAT:
        a->kind = CGS_ARG_FLOAT;
        a->u.f = !strcmp(x->s, "inf")    ? (double)INFINITY
                 : !strcmp(x->s, "-inf") ? -(double)INFINITY
                                         : (double)NAN;
        return 0;
    case FA_ELLIPSIS: a->kind = CGS_ARG_ELLIPSIS; return 0;
    default: break;
    }
    /* the containers: a tuple, a slice, a list, a dict (its items one level deeper still) */
    a->kind = x->k == FA_SLICE ? CGS_ARG_SLICE : x->k == FA_DICT ? CGS_ARG_DICT : CGS_ARG_LIST;
    a->pylist = x->k == FA_LIST;
    a->n = x->n;
    a->u.items = x->n ? cgs_arena_calloc(g->arena, x->n, sizeof(*a->u.items)) : NULL;
    for (uint32_t i = 0; i < x->n; i++)
        if ((err = e_arg(E, g, index, &x->items[i], &a->u.items[i],
                         depth + (x->k == FA_DICT ? 2 : 1))))
            return err;
    return 0;
}

static int e_dim(struct emit *E, struct cgs_graph *g, const struct fdim *x, bool is_size,
                 const struct cgs_sym **out)
{
    struct cgs_diag pd = CGS_DIAG_INIT;
    uint32_t col;
    int err = cgs_load_dim(&E->L, g, x->t, x->num, is_size, out, &pd, &col);
    return err ? efail(E, -err, "%s", pd.msg) : 0;
}

static int e_dims(struct emit *E, struct cgs_graph *g, const struct fdim *d, uint32_t count,
                  const char *key, bool is_size, uint32_t *n, const struct cgs_sym ***out)
{
    int err;
    if (count > CGS_MAX_NDIM)
        return efail(E, CGS_E_LIMIT, "%u dimensions, more than the limit of %d", count,
                     CGS_MAX_NDIM);
    if (*n != CGS_NDIM_UNKNOWN && count != *n)
        return efail(E, CGS_E_SCHEMA, "expected %u entries in '%s' (one per dimension), got %u",
                     *n, key, count);
    *n = count;
    *out = cgs_arena_calloc(g->arena, count ? count : 1, sizeof(**out));
    for (uint32_t i = 0; i < count; i++)
        if ((err = e_dim(E, g, &d[i], is_size, &(*out)[i])))
            return err;
    return 0;
}

static int e_val(struct emit *E, struct cgs_graph *g, const struct fv *x, struct cgs_val *v)
{
    int err;
    char buf[32];
    const char *t;
    memset(v, 0, sizeof(*v));
    switch (x->k) {
    case FV_NUM: v->kind = CGS_VAL_INT; return e_int(E, x->text, &v->u.i);
    case FV_BOOL: v->kind = CGS_VAL_BOOL; v->u.b = x->b; return 0;
    case FV_SYM:
        if (x->kind[3] == 'i') {
            struct fdim d = {x->text, false};
            v->kind = CGS_VAL_SYMINT;
            if ((err = e_dim(E, g, &d, false, &v->u.s.sym)))
                return err;
            if ((t = cgs_load_number_text(x->hint, buf))) {
                if ((err = e_int(E, t, &v->u.s.hint)))
                    return err;
                v->has_hint = true;
            }
            return 0;
        }
        v->kind = x->kind[3] == 'f' ? CGS_VAL_SYMFLOAT : CGS_VAL_SYMBOOL;
        v->u.s.text = cgs_graph_intern(g, x->text);
        return 0;
    default: break;
    }
    struct cgs_tensor *tn = &v->u.t;
    v->kind = CGS_VAL_TENSOR;
    if ((tn->dtype = cgs_dtype_from_name(x->dtype)) == CGS_DTYPE_UNKNOWN)
        return efail(E, CGS_E_SCHEMA, "unknown dtype '%s'", x->dtype);
    tn->ndim = CGS_NDIM_UNKNOWN;
    if ((err = e_dims(E, g, x->shape, x->n_shape, "shape", true, &tn->ndim, &tn->shape)))
        return err;
    if (x->has_stride &&
        (err = e_dims(E, g, x->stride, x->n_stride, "stride", false, &tn->ndim, &tn->stride)))
        return err;
    tn->storage_offset = x->offset_zero ? cgs_sym_int(g->syms, 0) : NULL;
    if (x->device)
        tn->device = cgs_graph_intern(g, x->device);
    return 0;
}

static int e_node(struct emit *E, struct cgs_graph *g, const struct fn *x)
{
    struct cgs_node *n;
    int err, opk = cgs_node_op_from_name(x->op);

    E->at = x;
    if ((err = e_node_texts(E, x)))
        return err;
    if (g->n_nodes >= CGS_LOAD_MAX_NODES)
        return efail(E, CGS_E_LIMIT, "more than %u nodes", CGS_LOAD_MAX_NODES);
    if (!(n = cgs_graph_add_node(g, (enum cgs_node_op)opk, x->name, x->target)))
        return efail(E, CGS_E_SCHEMA, "duplicate node name '%s' (first defined at nodes[%u])",
                     x->name, cgs_graph_find(g, x->name)->index);
    n->n_args = x->n_args;
    n->args = x->n_args ? cgs_arena_calloc(g->arena, x->n_args, sizeof(*n->args)) : NULL;
    for (uint32_t i = 0; i < x->n_args; i++)
        if ((err = e_arg(E, g, n->index, &x->args[i], &n->args[i], 2)))
            return err;
    n->n_kwargs = x->n_kw;
    n->kwargs = x->n_kw ? cgs_arena_calloc(g->arena, x->n_kw, sizeof(*n->kwargs)) : NULL;
    for (uint32_t i = 0; i < x->n_kw; i++) {
        n->kwargs[i].key = cgs_graph_intern(g, x->kw[i].key);
        if ((err = e_arg(E, g, n->index, &x->kw[i].v, &n->kwargs[i].val, 1)))
            return err;
    }
    if (x->val) {
        n->val = cgs_arena_alloc(g->arena, sizeof(*n->val));
        if ((err = e_val(E, g, x->val, n->val)))
            return err;
    }
    n->stack_trace = x->stack ? cgs_graph_intern(g, x->stack) : NULL;
    n->piece = x->piece ? cgs_graph_intern(g, x->piece) : NULL;
    E->at = NULL;
    return 0;
}

static int e_nodes(struct emit *E, struct cgs_graph *g, const struct fgraph *nodes)
{
    int err = 0;
    for (size_t i = 0; i < nodes->n && !err; i++)
        err = e_node(E, g, nodes->v[i]);
    return err;
}

/* Whether a string made from text could be refused by graph JSON's checks: bytes past ASCII,
 * or a text near the length limit. */
static bool text_needs_checks(const char *text, size_t len)
{
    uint64_t w, any = 0;
    size_t i = 0;
    if (len + 1024 > CGS_LOAD_MAX_STRING)
        return true;
    for (; i + 8 <= len; i += 8) /* eight bytes at a time */
        any |= (memcpy(&w, text + i, 8), w);
    for (; i < len; i++)
        any |= (unsigned char)text[i];
    return (any & 0x8080808080808080ull) != 0;
}

static int e_graph(struct emit *E, struct cgs_graph *g, const struct fgraph *top,
                   const struct cgs_fxtext_opts *o)
{
    struct fx_model *M = E->M;
    const char *stage = o ? o->stage : NULL;
    int err;

    /* in the order the document is loaded in: its name's and producer's strings, the nodes,
       the subgraphs' strings; then name, producer and symbols; then the subgraphs' nodes */
    /* these come from the caller, not the text: checked whatever the text holds */
    bool check = E->check_text;
    E->check_text = true;
    err = e_text(E, o && o->name ? o->name : M->file) ||
          (o && (e_text(E, o->stage) || e_text(E, o->compile_id)));
    E->check_text = check;
    if (err)
        return -M->d->code;
    if ((err = e_nodes(E, g, top)))
        return err;
    for (size_t k = 0; k < M->n_subs; k++)
        for (size_t i = 0; !M->subs[k].inlined && i < M->subs[k].g.n; i++) {
            E->at = M->subs[k].g.v[i];
            if ((err = e_text(E, M->subs[k].name)) || (err = e_node_texts(E, E->at)))
                return -M->d->code;
        }
    E->at = NULL;
    g->name = cgs_arena_strdup(g->arena, o && o->name ? o->name : M->file);
    g->producer.tool = cgs_graph_intern(g, "torch");
    if (stage && (g->producer.stage = cgs_stage_from_name(stage)) == CGS_STAGE_UNKNOWN)
        return efail(E, CGS_E_SCHEMA, "unknown stage '%s': expected dynamo, aot_forward, "
                     "aot_backward, aot_joint, post_grad, export or other", stage);
    if (o && o->compile_id)
        g->producer.compile_id = cgs_graph_intern(g, o->compile_id);
    if (o && o->is_inference >= 0)
        g->producer.is_inference = o->is_inference != 0;
    if (o && o->is_backward >= 0)
        g->producer.is_backward = o->is_backward != 0;
    for (size_t k = 0; k < M->n_syms; k++)
        if ((err = cgs_load_symbol(&E->L, g, M->syms[k], cgs_fx_hint(M, k))))
            return err;
    for (size_t k = 0; k < M->n_subs; k++) {
        if (M->subs[k].inlined)
            continue;
        if ((err = e_nodes(E, cgs_graph_new_subgraph(g, M->subs[k].name), &M->subs[k].g)))
            return err;
    }
    return cgs_load_finish(&E->L, g);
}

struct cgs_graph *cgs_graph_load_fxtext(const char *text, size_t len, const char *file,
                                        uint32_t first_line, const struct cgs_fxtext_opts *o,
                                        struct cgs_diag *d)
{
    struct fx_model M = {0};
    struct cgs_graph *g = NULL;
    int err = cgs_fx_read(&M, text, len, file, first_line, o, d);

    if (!err) {
        struct emit E = {.M = &M, .check_text = text_needs_checks(text, len)};
        g = cgs_graph_new(M.file, NULL);
        cgs_load_start(&E.L, M.file, first_line, d);
        if (e_graph(&E, g, &M.top, o)) {
            cgs_graph_free(g);
            g = NULL;
        }
        cgs_load_stop(&E.L);
    }
    cgs_fx_release(&M);
    return g;
}
