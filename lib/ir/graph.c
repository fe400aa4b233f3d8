#include "lib/ir/graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/ops/ops.h"
#include "lib/base/strmap.h"

const struct cgs_dtype_info cgs_dtypes[CGS_DTYPE_COUNT] = {
    [CGS_DTYPE_UNKNOWN] = {"unknown", 0, '?'},
#define DT(e, nm, size, k, ex) [CGS_DTYPE_##e] = {.name = nm, .itemsize = size, .kind = k},
#include "lib/ir/dtype-list.h"
#undef DT
};

/* torch.fx.graph's dtype_abbrs, the notation TORCH_LOGS and print_readable use (f32[2, 3]). */
const char *cgs_dtype_abbr(enum cgs_dtype dt)
{
    static const char *const abbr[CGS_DTYPE_COUNT] = {
        [CGS_DTYPE_BOOL] = "b8",
        [CGS_DTYPE_UINT8] = "u8",
        [CGS_DTYPE_UINT16] = "u16",
        [CGS_DTYPE_UINT32] = "u32",
        [CGS_DTYPE_UINT64] = "u64",
        [CGS_DTYPE_INT8] = "i8",
        [CGS_DTYPE_INT16] = "i16",
        [CGS_DTYPE_INT32] = "i32",
        [CGS_DTYPE_INT64] = "i64",
        [CGS_DTYPE_FLOAT8_E5M2] = "f8e5m2",
        [CGS_DTYPE_FLOAT8_E4M3FN] = "f8e4m3fn",
        [CGS_DTYPE_FLOAT8_E5M2FNUZ] = "f8e5m2fnuz",
        [CGS_DTYPE_FLOAT8_E4M3FNUZ] = "f8e4m3fnuz",
        [CGS_DTYPE_FLOAT16] = "f16",
        [CGS_DTYPE_BFLOAT16] = "bf16",
        [CGS_DTYPE_FLOAT32] = "f32",
        [CGS_DTYPE_FLOAT64] = "f64",
        [CGS_DTYPE_COMPLEX32] = "c32",
        [CGS_DTYPE_COMPLEX64] = "c64",
        [CGS_DTYPE_COMPLEX128] = "c128",
    };
    if (dt <= CGS_DTYPE_UNKNOWN || dt >= CGS_DTYPE_COUNT)
        return "?";
    return abbr[dt] ? abbr[dt] : cgs_dtypes[dt].name;
}

enum cgs_dtype cgs_dtype_from_name(const char *name)
{
    for (int i = 1; i < CGS_DTYPE_COUNT; i++) /* the first byte first: one call a tensor */
        if (cgs_dtypes[i].name[0] == name[0] && !strcmp(cgs_dtypes[i].name, name))
            return (enum cgs_dtype)i;
    /* aliases torch prints for some dtypes */
    if (!strcmp(name, "float"))
        return CGS_DTYPE_FLOAT32;
    if (!strcmp(name, "double"))
        return CGS_DTYPE_FLOAT64;
    if (!strcmp(name, "half"))
        return CGS_DTYPE_FLOAT16;
    if (!strcmp(name, "long"))
        return CGS_DTYPE_INT64;
    if (!strcmp(name, "int"))
        return CGS_DTYPE_INT32;
    return CGS_DTYPE_UNKNOWN;
}

const char *const cgs_node_op_names[CGS_NODE_OP_COUNT] = {
    [CGS_NODE_PLACEHOLDER] = "placeholder",     [CGS_NODE_GET_ATTR] = "get_attr",
    [CGS_NODE_CALL_FUNCTION] = "call_function", [CGS_NODE_CALL_METHOD] = "call_method",
    [CGS_NODE_CALL_MODULE] = "call_module",     [CGS_NODE_OUTPUT] = "output",
};

const char *const cgs_stage_names[CGS_STAGE_COUNT] = {
    [CGS_STAGE_UNKNOWN] = "unknown",         [CGS_STAGE_DYNAMO] = "dynamo",
    [CGS_STAGE_AOT_FORWARD] = "aot_forward", [CGS_STAGE_AOT_BACKWARD] = "aot_backward",
    [CGS_STAGE_AOT_JOINT] = "aot_joint",     [CGS_STAGE_POST_GRAD] = "post_grad",
    [CGS_STAGE_EXPORT] = "export",           [CGS_STAGE_OTHER] = "other",
};

enum cgs_stage cgs_stage_from_name(const char *name)
{
    for (int i = 1; i < CGS_STAGE_COUNT; i++)
        if (!strcmp(cgs_stage_names[i], name))
            return (enum cgs_stage)i;
    return CGS_STAGE_UNKNOWN;
}

int cgs_node_op_from_name(const char *name)
{
    for (int i = 0; i < CGS_NODE_OP_COUNT; i++)
        if (!strcmp(cgs_node_op_names[i], name))
            return i;
    return -1;
}

/* ---- graphs ------------------------------------------------------------------- */

struct cgs_graph *cgs_graph_new(const char *file, const char *name)
{
    struct cgs_graph *g = cgs_xcalloc(1, sizeof(*g));
    cgs_arena_init(&g->arena_storage);
    g->arena = &g->arena_storage;
    cgs_symctx_init(&g->syms_storage, g->arena);
    g->syms = &g->syms_storage;
    g->by_name = cgs_strmap_new();
    g->strings = cgs_strmap_new();
    g->file = file ? cgs_arena_strdup(g->arena, file) : NULL;
    g->name = name ? cgs_arena_strdup(g->arena, name) : NULL;
    g->producer.is_inference = g->producer.is_backward = -1;
    return g;
}

struct cgs_graph *cgs_graph_new_subgraph(struct cgs_graph *parent, const char *name)
{
    struct cgs_graph *g = cgs_arena_alloc(parent->arena, sizeof(*g));
    g->arena = parent->arena;
    g->syms = parent->syms;
    g->parent = parent;
    g->file = parent->file;
    g->name = cgs_graph_intern(parent, name);
    g->producer = parent->producer;
    g->by_name = cgs_strmap_new();
    g->strings = parent->strings;
    CGS_ALLOC_GROW(parent->subgraphs, parent->n_subgraphs + 1, parent->alloc_subgraphs);
    parent->subgraph_names =
        cgs_xrealloc(parent->subgraph_names,
                     cgs_array_bytes(parent->alloc_subgraphs, sizeof(*parent->subgraph_names)));
    parent->subgraphs[parent->n_subgraphs] = g;
    parent->subgraph_names[parent->n_subgraphs] = g->name;
    parent->n_subgraphs++;
    return g;
}

static void graph_release(struct cgs_graph *g)
{
    for (uint32_t i = 0; i < g->n_subgraphs; i++)
        graph_release(g->subgraphs[i]);
    free(g->subgraphs);
    free(g->subgraph_names);
    free(g->nodes);
    free(g->notes);
    free(g->symbols);
    cgs_strmap_free(g->by_name);
}

void cgs_graph_free(struct cgs_graph *g)
{
    if (!g)
        return;
    if (g->parent)
        CGS_BUG("cgs_graph_free on a subgraph");
    graph_release(g);
    if (g->src_map)
        munmap(g->src_map, g->src_map_len);
    cgs_strmap_free(g->strings);
    cgs_strmap_free(g->stack_texts);
    cgs_symctx_release(&g->syms_storage);
    cgs_arena_release(&g->arena_storage);
    free(g);
}

/* A stack trace's JSON text is decoded once per distinct text: a graph's nodes share a few dozen
 * (one a line of the model's code), so a map from the text to its decoded form spares a parse a
 * node. */
const char *cgs_node_stack_trace(const struct cgs_graph *g, const struct cgs_node *n)
{
    if (!n->stack_trace && n->stack_raw) {
        struct cgs_graph *root = (struct cgs_graph *)g;
        char small[512], *key = small;
        const char *got;
        const size_t n_recent = sizeof(root->stack_recent) / sizeof(root->stack_recent[0]);
        /* the loader gives nodes with equal traces one text, mostly: known by its address, in
           the slot its address hashes to */
        const size_t slot =
            (size_t)(((uint64_t)(uintptr_t)n->stack_raw * 0x9E3779B97F4A7C15ull) >> 58) % n_recent;
        while (root->parent)
            root = root->parent;
        if (root->stack_recent[slot].raw == n->stack_raw)
            return ((struct cgs_node *)n)->stack_trace = root->stack_recent[slot].text;
        if (n->stack_raw_len >= sizeof(small))
            key = cgs_xmalloc((size_t)n->stack_raw_len + 1);
        memcpy(key, n->stack_raw, n->stack_raw_len);
        key[n->stack_raw_len] = '\0';
        if (!root->stack_texts)
            root->stack_texts = cgs_strmap_new();
        got = cgs_strmap_get(root->stack_texts, key);
        if (!got) {
            char *t = root->stack_decode ? root->stack_decode(n->stack_raw, n->stack_raw_len)
                                         : NULL;
            if (!t)
                CGS_BUG("a stack trace the loader checked does not decode");
            got = cgs_graph_intern(root, t);
            free(t);
            cgs_strmap_put(root->stack_texts,
                           cgs_arena_strndup(root->arena, key, n->stack_raw_len),
                           (void *)got);
        }
        if (key != small)
            free(key);
        ((struct cgs_node *)n)->stack_trace = got;
        root->stack_recent[slot].raw = n->stack_raw;
        root->stack_recent[slot].text = got;
    }
    return n->stack_trace;
}

const char *cgs_graph_intern(struct cgs_graph *g, const char *s)
{
    const char *k = cgs_strmap_get(g->strings, s);
    if (k)
        return k;
    k = cgs_arena_strdup(g->arena, s);
    cgs_strmap_put(g->strings, k, (void *)k);
    return k;
}

struct cgs_node *cgs_graph_add_node(struct cgs_graph *g, enum cgs_node_op op, const char *name,
                                    const char *target)
{
    struct cgs_node *n;
    const char *nm;

    if (cgs_strmap_get(g->by_name, name))
        return NULL;
    n = cgs_arena_alloc(g->arena, sizeof(*n));
    nm = cgs_arena_strdup(g->arena, name);
    n->op = op;
    n->name = nm;
    n->target = target ? cgs_graph_intern(g, target) : NULL;
    n->index = g->n_nodes;
    CGS_ALLOC_GROW(g->nodes, g->n_nodes + 1, g->alloc_nodes);
    g->nodes[g->n_nodes++] = n;
    cgs_strmap_put(g->by_name, nm, n);
    return n;
}

struct cgs_node *cgs_graph_find(const struct cgs_graph *g, const char *name)
{
    return cgs_strmap_get(g->by_name, name);
}

const struct cgs_symbol *cgs_graph_symbol(const struct cgs_graph *g, const char *name)
{
    while (g->parent)
        g = g->parent;
    for (uint32_t i = 0; i < g->n_symbols; i++)
        if (!strcmp(g->symbols[i].name, name))
            return &g->symbols[i];
    return NULL;
}

struct cgs_symbol *cgs_graph_add_symbol(struct cgs_graph *g, const char *name)
{
    struct cgs_symbol *s;
    while (g->parent)
        g = g->parent;
    for (uint32_t i = 0; i < g->n_symbols; i++)
        if (!strcmp(g->symbols[i].name, name))
            return &g->symbols[i];
    CGS_ALLOC_GROW(g->symbols, g->n_symbols + 1, g->alloc_symbols);
    s = &g->symbols[g->n_symbols++];
    memset(s, 0, sizeof(*s));
    s->sym = cgs_sym_var(g->syms, name);
    s->name = s->sym->name;
    return s;
}

struct cgs_graph *cgs_graph_subgraph(const struct cgs_graph *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_subgraphs; i++)
        if (!strcmp(g->subgraph_names[i], name))
            return g->subgraphs[i];
    return NULL;
}

/*
 * Visit every node use in the args and kwargs of n, in order, without
 * recursion: an explicit stack of (array, count, position).
 */
struct arg_frame {
    const struct cgs_arg *items;
    uint32_t n, i;
};

static void collect_inputs(struct cgs_graph *g, struct cgs_node *n, struct arg_frame **stack,
                           size_t *stack_alloc, struct cgs_node ***tmp, size_t *tmp_alloc)
{
    size_t sp = 0, ntmp = 0;

    /* kwargs are pushed first, last one lowest, so that args are walked first and
     * kwargs in order; each kwarg value is a one-item frame */
    for (uint32_t k = n->n_kwargs; k-- > 0;) {
        CGS_ALLOC_GROW(*stack, sp + 1, *stack_alloc);
        (*stack)[sp++] = (struct arg_frame){&n->kwargs[k].val, 1, 0};
    }
    CGS_ALLOC_GROW(*stack, sp + 1, *stack_alloc);
    (*stack)[sp++] = (struct arg_frame){n->args, n->n_args, 0};
    while (sp) {
        struct arg_frame *f = &(*stack)[sp - 1];
        if (f->i >= f->n) {
            sp--;
            continue;
        }
        const struct cgs_arg *a = &f->items[f->i++];
        if (a->kind == CGS_ARG_NODE && a->u.node) {
            struct cgs_node *u = a->u.node;
            bool seen = false;
            for (size_t j = 0; j < ntmp; j++)
                if ((*tmp)[j] == u) {
                    seen = true;
                    break;
                }
            if (!seen) {
                CGS_ALLOC_GROW(*tmp, ntmp + 1, *tmp_alloc);
                (*tmp)[ntmp++] = u;
            }
        } else if ((a->kind == CGS_ARG_LIST || a->kind == CGS_ARG_SLICE || a->kind == CGS_ARG_DICT) &&
                   a->n) {
            CGS_ALLOC_GROW(*stack, sp + 1, *stack_alloc);
            (*stack)[sp++] = (struct arg_frame){a->u.items, a->n, 0};
        }
    }
    n->n_inputs = (uint32_t)ntmp;
    n->inputs = ntmp ? cgs_arena_calloc(g->arena, ntmp, sizeof(*n->inputs)) : NULL;
    if (ntmp)
        memcpy(n->inputs, *tmp, ntmp * sizeof(*n->inputs));
}

/* Resolve each call node's target to its registry entry, once per distinct (interned) target. */
static void resolve_ops(struct cgs_graph *g)
{
    enum { SLOTS = 1024 };
    struct {
        const char *target;
        uint32_t op;
    } cache[SLOTS];

    size_t slots = 16; /* a small graph clears a small cache (most of a log's are small) */
    while (slots < SLOTS && slots < 2 * (size_t)g->n_nodes)
        slots *= 2;
    memset(cache, 0, slots * sizeof(cache[0]));
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        struct cgs_node *n = g->nodes[i];
        size_t h;
        if ((n->op != CGS_NODE_CALL_FUNCTION && n->op != CGS_NODE_CALL_METHOD) || !n->target) {
            n->op_id = CGS_OP_UNKNOWN;
            continue;
        }
        h = ((uintptr_t)n->target >> 3) & (slots - 1);
        if (cache[h].target != n->target) {
            cache[h].target = n->target;
            cache[h].op = (uint32_t)cgs_op_lookup(n->target);
        }
        n->op_id = cache[h].op;
    }
}

void cgs_graph_link(struct cgs_graph *g)
{
    resolve_ops(g);
    struct arg_frame *stack = NULL;
    struct cgs_node **tmp = NULL;
    size_t stack_alloc = 0, tmp_alloc = 0;
    uint32_t *count = cgs_xcalloc(g->n_nodes ? g->n_nodes : 1, sizeof(*count));

    for (uint32_t i = 0; i < g->n_nodes; i++) {
        collect_inputs(g, g->nodes[i], &stack, &stack_alloc, &tmp, &tmp_alloc);
        g->nodes[i]->n_users = 0;
    }
    /* users: count, allocate, fill in graph order; ignore inputs from other graphs */
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        struct cgs_node *n = g->nodes[i];
        for (uint32_t j = 0; j < n->n_inputs; j++) {
            struct cgs_node *u = n->inputs[j];
            if (u->index < g->n_nodes && g->nodes[u->index] == u)
                count[u->index]++;
        }
    }
    for (uint32_t i = 0; i < g->n_nodes; i++)
        g->nodes[i]->users =
            count[i] ? cgs_arena_calloc(g->arena, count[i], sizeof(struct cgs_node *)) : NULL;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        struct cgs_node *n = g->nodes[i];
        for (uint32_t j = 0; j < n->n_inputs; j++) {
            struct cgs_node *u = n->inputs[j];
            if (u->index < g->n_nodes && g->nodes[u->index] == u)
                u->users[u->n_users++] = n;
        }
    }
    free(count);
    free(stack);
    free(tmp);
}

void cgs_graph_note(struct cgs_graph *g, enum cgs_note_level level, int code,
                    const struct cgs_node *node, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    CGS_ALLOC_GROW(g->notes, g->n_notes + 1, g->alloc_notes);
    g->notes[g->n_notes++] =
        (struct cgs_note){level, code < 0 ? -code : code, node, cgs_arena_strdup(g->arena, buf)};
}

int cgs_graph_hint_lookup(void *ud, const char *name, int64_t *v)
{
    const struct cgs_symbol *s = cgs_graph_symbol(ud, name);
    if (!s || !s->has_hint)
        return -CGS_E_UNKNOWN;
    *v = s->hint;
    return 0;
}

const struct cgs_arg *cgs_node_arg(const struct cgs_node *n, uint32_t i)
{
    return i < n->n_args ? &n->args[i] : NULL;
}

const struct cgs_arg *cgs_node_kwarg(const struct cgs_node *n, const char *key)
{
    for (uint32_t i = 0; i < n->n_kwargs; i++)
        if (!strcmp(n->kwargs[i].key, key))
            return &n->kwargs[i].val;
    return NULL;
}

const struct cgs_arg *cgs_node_arg_or_kwarg(const struct cgs_node *n, uint32_t i, const char *key)
{
    const struct cgs_arg *a = cgs_node_arg(n, i);
    return a ? a : (key ? cgs_node_kwarg(n, key) : NULL);
}

const struct cgs_tensor *cgs_node_tensor(const struct cgs_node *n)
{
    const struct cgs_val *v = n->val;
    if (v && v->kind == CGS_VAL_LIST && v->n)
        v = &v->u.items[0];
    return v && v->kind == CGS_VAL_TENSOR ? &v->u.t : NULL;
}

static bool from_self(const char *s)
{
    return s && (!strncmp(s, "l_self_", 7) || !strncmp(s, "L_self_", 7));
}

enum cgs_state_kind cgs_node_state(const struct cgs_node *n)
{
    const char *name;
    if (n->op == CGS_NODE_GET_ATTR)
        return CGS_STATE_CONSTANT;
    if (n->op != CGS_NODE_PLACEHOLDER)
        return CGS_STATE_NONE;
    switch (n->pt2_kind) {
    case CGS_PT2_PARAMETER: return CGS_STATE_PARAMETER;
    case CGS_PT2_BUFFER: return CGS_STATE_BUFFER;
    case CGS_PT2_TENSOR_CONSTANT: return CGS_STATE_CONSTANT;
    case CGS_PT2_NONE: break;
    default: return CGS_STATE_NONE; /* the signature says what it is: not module state */
    }
    name = from_self(n->name) ? n->name : from_self(n->target) ? n->target : NULL;
    if (!name)
        return CGS_STATE_NONE;
    if (strstr(name, "_parameters_"))
        return CGS_STATE_PARAMETER;
    if (strstr(name, "_buffers_"))
        return CGS_STATE_BUFFER;
    return CGS_STATE_ATTRIBUTE;
}
