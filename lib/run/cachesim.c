/* Compile-cache replay (lib/run/cachesim.h). */
#include "lib/run/cachesim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/writers/jsonw.h"
#include "lib/writers/report-json.h"
#include "lib/base/strmap.h"
#include "lib/ir/symexpr.h"

const char *const cgs_cachesim_policy_names[CGS_CACHESIM_POLICY_COUNT + 1] = {
    [CGS_CACHESIM_MAGI] = "magi",
    [CGS_CACHESIM_MEGENGINE] = "megengine",
};

int cgs_cachesim_policy_from_name(const char *name)
{
    for (int i = 0; name && i < CGS_CACHESIM_POLICY_COUNT; i++)
        if (!strcmp(name, cgs_cachesim_policy_names[i]))
            return i;
    return -1;
}

static size_t intern(struct cgs_cachesim *s, const char *text)
{
    size_t n = strlen(text) + 1, at = s->strings_len;
    CGS_ALLOC_GROW(s->strings, s->strings_len + n, s->strings_alloc);
    memcpy(s->strings + at, text, n);
    s->strings_len += n;
    return at;
}

static void emit(struct cgs_cachesim *s, enum cgs_cachesim_kind k, uint32_t call, int64_t gi,
                 bool dyn, int64_t shape, const char *key, const char *piece)
{
    struct cgs_cachesim_event *e;
    CGS_ALLOC_GROW(s->events, s->n_events + 1, s->alloc);
    CGS_ALLOC_GROW(s->key_offs, s->n_events + 1, s->key_alloc);
    e = &s->events[s->n_events];
    s->key_offs[s->n_events++] = intern(s, key);
    e->kind = k;
    e->call = call;
    e->graph_index = gi;
    e->dynamic = dyn;
    e->runtime_shape = shape;
    e->key = NULL; /* resolved at the end: strings may move while growing */
    e->piece = piece;
    if (k == CGS_SIM_HIT)
        s->hits++, s->lookups++;
    else if (k == CGS_SIM_MISS)
        s->misses++, s->lookups++;
    else if (k == CGS_SIM_SKIP)
        s->misses++, s->lookups++, s->restart_skips++;
    else
        s->compiles++;
}

/* The keys compiled so far (the map borrows the copies it owns). */
struct keyset {
    struct cgs_strmap *map;
    char **keys;
    size_t n, alloc;
};

static bool keyset_has(const struct keyset *k, const char *key)
{
    return cgs_strmap_get(k->map, key) != NULL;
}

static void keyset_add(struct keyset *k, const char *key)
{
    if (keyset_has(k, key))
        return;
    CGS_ALLOC_GROW(k->keys, k->n + 1, k->alloc);
    k->keys[k->n] = cgs_xstrdup(key);
    cgs_strmap_put(k->map, k->keys[k->n], k->keys[k->n]);
    k->n++;
}

static void keyset_release(struct keyset *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->keys[i]);
    free(k->keys);
    cgs_strmap_free(k->map);
}

static bool in_list(const int64_t *v, size_t n, int64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

/* A warm start's answer for (shape, graph_index): -1 not in the index, else the skips left
   (decremented as they are used). */
static int64_t warm_lookup(const struct cgs_cachesim_opts *o, int64_t *skips, bool dyn,
                           int64_t shape, int64_t gi)
{
    for (size_t i = 0; i < o->n_warm; i++) {
        const struct cgs_dash_entry *e = &o->warm[i];
        if (e->graph_index == gi && e->dynamic == dyn && (dyn || e->runtime_shape == shape))
            return skips[i]-- > 0 ? skips[i] + 1 : 0;
    }
    return -1;
}

/* One lookup of a magi artifact, as many times as the analysis restarts: one already in
   memory hits; a warm entry answers nothing for each restart skip it records, then loads; else a
   miss and a compile. */
static void magi_lookup(struct cgs_cachesim *s, const struct cgs_cachesim_opts *o,
                        int64_t *skips, struct keyset *seen, uint32_t call, int64_t gi,
                        bool dyn, int64_t shape, const char *key, const char *piece)
{
    int64_t w;
    if (keyset_has(seen, key)) {
        emit(s, CGS_SIM_HIT, call, gi, dyn, shape, key, piece);
        return;
    }
    while ((w = warm_lookup(o, skips, dyn, shape, gi)) > 0)
        emit(s, CGS_SIM_SKIP, call, gi, dyn, shape, key, piece); /* Dynamo analyses again */
    keyset_add(seen, key);
    if (w == 0) {
        emit(s, CGS_SIM_HIT, call, gi, dyn, shape, key, piece);
        return;
    }
    emit(s, CGS_SIM_MISS, call, gi, dyn, shape, key, piece);
    emit(s, CGS_SIM_COMPILE, call, gi, dyn, shape, key, piece);
}

static void run_magi(const struct cgs_split *sp, const struct cgs_cachesim_opts *o,
                     struct cgs_cachesim *s)
{
    struct keyset seen = {cgs_strmap_new(), NULL, 0, 0};
    char key[128];

    int64_t *skips = cgs_xcalloc(o->n_warm ? o->n_warm : 1, sizeof(*skips));
    for (size_t i = 0; i < o->n_warm; i++)
        skips[i] = o->warm[i].restart_analysis_count;
    // the frame's compile: every compiled piece for the dynamic shape (a warm start loads it)
    for (uint32_t p = 0; p < sp->n_pieces; p++) {
        const struct cgs_split_piece *pc = &sp->pieces[p];
        if (pc->is_splitting_graph)
            continue;
        snprintf(key, sizeof(key), "artifact_shape_None_subgraph_%d", pc->compile_index);
        magi_lookup(s, o, skips, &seen, 0, pc->compile_index, true, 0, key, pc->name);
    }
    for (size_t c = 0; c < o->n_shapes; c++) {
        int64_t shape = o->shapes[c];
        for (uint32_t p = 0; p < sp->n_pieces; p++) {
            const struct cgs_split_piece *pc = &sp->pieces[p];
            bool sized;
            if (pc->is_splitting_graph)
                continue;
            // a piece with no size argument has one artifact, whatever the shape
            sized = pc->n_sym_shape_indices && in_list(o->compile_sizes, o->n_compile_sizes, shape);
            if (!sized)
                snprintf(key, sizeof(key), "artifact_shape_None_subgraph_%d", pc->compile_index);
            else
                snprintf(key, sizeof(key), "artifact_shape_%lld_subgraph_%d", (long long)shape,
                         pc->compile_index);
            magi_lookup(s, o, skips, &seen, (uint32_t)c + 1, pc->compile_index, !sized,
                        sized ? shape : 0, key, pc->name);
        }
    }
    free(skips);
    keyset_release(&seen);
}

/* MegEngine's key of a call at a binding: target, then per input dtype/device/shape. */
static bool op_key(struct cgs_graph *g, const struct cgs_shapes *sh, const struct cgs_node *n,
                   char **consts, struct cgs_arena *arena, struct cgs_sym_bindings *b,
                   struct cgs_buf *out)
{
    bool value_dep = false;
    cgs_buf_reset(out);
    cgs_buf_addstr(out, n->target ? n->target : "?");
    for (uint32_t i = 0; i < n->n_args; i++) {
        const struct cgs_arg *a = &n->args[i];
        cgs_buf_addstr(out, i ? ", " : "(");
        if (a->kind == CGS_ARG_NODE) {
            const struct cgs_val *v = sh->nodes[a->u.node->index].val;
            struct cgs_val *bv = v ? cgs_val_bind(v, g->syms, arena, cgs_sym_bindings_lookup, b)
                                   : NULL;
            int64_t bytes, numel = 0;
            cgs_val_describe(bv, out);
            if (bv && bv->kind == CGS_VAL_TENSOR && !cgs_val_bytes(bv, cgs_sym_bindings_lookup, b,
                                                                   &bytes)) {
                int64_t item = cgs_dtypes[bv->u.t.dtype].itemsize;
                numel = item ? bytes / item : 0;
                if (numel <= 7) {
                    value_dep = true;
                    cgs_buf_addstr(out, "=<values>");
                }
            }
            if (bv && bv->kind == CGS_VAL_TENSOR && bv->u.t.device)
                cgs_buf_addf(out, "@%s", bv->u.t.device);
        } else {
            cgs_buf_addstr(out, consts[i] ? consts[i] : "?");
        }
    }
    cgs_buf_addch(out, ')');
    return value_dep;
}

static void run_megengine(struct cgs_graph *g, const struct cgs_shapes *sh, const char *sym,
                          const struct cgs_cachesim_opts *o, struct cgs_cachesim *s)
{
    struct keyset seen = {cgs_strmap_new(), NULL, 0, 0};
    struct cgs_buf key = CGS_BUF_INIT;
    /* the text of each call's arguments that are not nodes: the same at every shape */
    struct cgs_arena texts;
    char ***consts = cgs_xcalloc(g->n_nodes ? g->n_nodes : 1, sizeof(*consts));

    cgs_arena_init(&texts);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        if (n->op != CGS_NODE_CALL_FUNCTION && n->op != CGS_NODE_CALL_METHOD)
            continue;
        consts[i] = cgs_arena_calloc(&texts, n->n_args ? n->n_args : 1, sizeof(char *));
        for (uint32_t k = 0; k < n->n_args; k++) {
            if (n->args[k].kind == CGS_ARG_NODE)
                continue;
            struct cgs_buf t = CGS_BUF_INIT;
            struct jsonw w;
            jsonw_init(&w, jsonw_to_buf, &t);
            w.compact = true;
            cgs_jsonw_arg(&w, &n->args[k], 0);
            jsonw_finish(&w); /* the sink is memory: it cannot fail */
            cgs_buf_addch(&t, 0);
            consts[i][k] = cgs_arena_strdup(&texts, t.buf);
            cgs_buf_release(&t);
        }
    }
    for (size_t c = 0; c < o->n_shapes; c++) {
        struct cgs_sym_binding bind = {.name = sym, .value = o->shapes[c]};
        struct cgs_sym_bindings b = {&bind, sym ? 1 : 0};
        /* the bound values live for one shape: their keys are copied into the events */
        struct cgs_arena bound;
        cgs_arena_init(&bound);
        for (uint32_t i = 0; i < g->n_nodes; i++) {
            const struct cgs_node *n = g->nodes[i];
            if (n->op != CGS_NODE_CALL_FUNCTION && n->op != CGS_NODE_CALL_METHOD)
                continue;
            if (op_key(g, sh, n, consts[i], &bound, &b, &key) && c == 0)
                s->value_dependent_keys++;
            if (keyset_has(&seen, key.buf)) {
                emit(s, CGS_SIM_HIT, (uint32_t)c + 1, n->index, false, o->shapes[c], key.buf,
                     n->name);
            } else {
                keyset_add(&seen, key.buf);
                emit(s, CGS_SIM_MISS, (uint32_t)c + 1, n->index, false, o->shapes[c], key.buf,
                     n->name);
                emit(s, CGS_SIM_COMPILE, (uint32_t)c + 1, n->index, false, o->shapes[c],
                     key.buf, n->name);
            }
        }
        cgs_arena_release(&bound);
    }
    free(consts);
    cgs_arena_release(&texts);
    keyset_release(&seen);
    cgs_buf_release(&key);
}

int cgs_cachesim_run(struct cgs_graph *g, const struct cgs_split *split,
                     const struct cgs_shapes *shapes, const struct cgs_cachesim_opts *o,
                     struct cgs_cachesim *s, struct cgs_diag *d)
{
    const char *sym = o->symbol;
    memset(s, 0, sizeof(*s));
    if (!sym && g->n_symbols)
        sym = g->symbols[0].name;
    if (o->symbol) {
        bool found = false;
        for (uint32_t i = 0; i < g->n_symbols; i++)
            found = found || !strcmp(g->symbols[i].name, o->symbol);
        if (!found)
            return cgs_diag_set(d, CGS_E_INVAL, "the graph has no size symbol '%s'", o->symbol);
    }
    s->symbol = sym;
    if (o->policy == CGS_CACHESIM_MAGI) {
        if (!split)
            return cgs_diag_set(d, CGS_E_INVAL, "the magi policy needs a split");
        run_magi(split, o, s);
    } else {
        if (!shapes)
            return cgs_diag_set(d, CGS_E_INVAL, "the megengine policy needs inferred shapes");
        run_megengine(g, shapes, sym, o, s);
    }
    for (size_t i = 0; i < s->n_events; i++)
        s->events[i].key = s->strings + s->key_offs[i];
    return 0;
}

void cgs_cachesim_release(struct cgs_cachesim *s)
{
    free(s->events);
    free(s->strings);
    free(s->key_offs);
    memset(s, 0, sizeof(*s));
}
