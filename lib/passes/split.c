/*
 * Piecewise splitting (see lib/passes/split.h). The magi policy reproduces
 * MagiCompiler's partition ids and torch 2.11's split_module with
 * keep_original_order=True; the exact rules are:
 *
 *  1. ids: walking nodes in graph order (placeholders and output skipped), a
 *     call_function node matching a splitting op gets ++id and the id after
 *     it is taken for what follows; every other node gets the current id.
 *  2. only nodes other than placeholder, get_attr and output are put into
 *     partitions; a partition's nodes are in graph order.
 *  3. walking nodes in graph order, every use of a value d by a node u (its
 *     distinct inputs in order of first use, args then kwargs; the output
 *     node counts as a user outside every partition; global-state nodes such
 *     as _set_grad_enabled record nothing) where d and u are in different
 *     partitions makes d an output of d's partition and an input of u's, then
 *     each free size symbol of d's value, sorted by name, an input of u's
 *     partition too (through the node that first defines that symbol); such
 *     a node that is not a placeholder also becomes an output of its own
 *     partition. Inputs and outputs are ordered sets, in the order of this
 *     walk.
 *  4. a get_attr input naming a module (a subgraph here) is not a parameter.
 *
 * Everything is one pass over nodes and uses, O(nodes + uses).
 */
#include "lib/passes/split.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/base/keymap.h"
#include "lib/ops/ops.h"
#include "lib/writers/report-json.h"

const char *const cgs_split_policy_names[CGS_SPLIT_POLICY_COUNT + 1] = {
    [CGS_SPLIT_MAGI] = "magi",
    [CGS_SPLIT_FUSION] = "fusion",
    [CGS_SPLIT_DEVICE] = "device",
};

const char *const cgs_split_rule_names[CGS_SPLIT_RULE_COUNT] = {
    [CGS_SPLIT_RULE_SPLIT_OP] = "split_op",
    [CGS_SPLIT_RULE_AFTER_SPLIT_OP] = "after_split_op",
    [CGS_SPLIT_RULE_NOT_ELEMENTWISE] = "not_elementwise",
    [CGS_SPLIT_RULE_ELEMENTWISE] = "elementwise",
    [CGS_SPLIT_RULE_SHAPE] = "shape",
    [CGS_SPLIT_RULE_DTYPE] = "dtype",
    [CGS_SPLIT_RULE_DEVICE] = "device",
    [CGS_SPLIT_RULE_UNKNOWN_SHAPE] = "unknown_shape",
    [CGS_SPLIT_RULE_DEVICE_CHANGE] = "device_change",
};

const char *const cgs_lint_kind_names[CGS_LINT_KIND_COUNT] = {
    [CGS_LINT_CPU_TENSOR] = "cpu_tensor",
    [CGS_LINT_CPU_FACTORY] = "cpu_factory",
    [CGS_LINT_INPUT_MUTATION] = "input_mutation",
    [CGS_LINT_DATA_DEPENDENT] = "data_dependent",
    [CGS_LINT_SYMBOLIC_SHAPE] = "symbolic_shape",
};

int cgs_split_policy_from_name(const char *name)
{
    for (int i = 0; i < CGS_SPLIT_POLICY_COUNT; i++)
        if (name && !strcmp(name, cgs_split_policy_names[i]))
            return i;
    return -1;
}

/* ---- op names ------------------------------------------------------------------ */

static size_t count_dots(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '.';
    return n;
}

/* The one MagiCompiler matching rule lives in lib/ops (cgs_op_name_matches). */
bool cgs_split_op_matches(const char *name, const char *target)
{
    return cgs_op_name_matches(name, target);
}

static bool in_preset(const char *target)
{
    for (const struct cgs_op_preset *p = cgs_op_presets; p->name; p++)
        for (const char *const *o = p->ops; *o; o++)
            if (cgs_op_name_matches(*o, target))
                return true;
    return false;
}

static bool computes(const struct cgs_node *m)
{
    return m->op != CGS_NODE_PLACEHOLDER && m->op != CGS_NODE_OUTPUT &&
           m->op != CGS_NODE_GET_ATTR;
}

uint32_t cgs_split_recorded_ops(const struct cgs_graph *g, const char **ops, uint32_t max)
{
    uint32_t n_ops = 0;
    const struct cgs_node *prev = NULL; /* the computing node before n */

    /* a piece's nodes are consecutive in the inlined graph (each body replaces its call) */
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i], *next = NULL;
        bool dup = false;
        if (!computes(n))
            continue;
        for (uint32_t k = i + 1; k < g->n_nodes && !next; k++)
            next = computes(g->nodes[k]) ? g->nodes[k] : NULL;
        bool alone = n->piece && (!prev || prev->piece != n->piece) &&
                     (!next || next->piece != n->piece);
        prev = n;
        if (!alone || n->op != CGS_NODE_CALL_FUNCTION ||
            !((cgs_target_is_overload(n->target) && !cgs_target_is_builtin(n->target)) ||
              in_preset(n->target)))
            continue;
        for (uint32_t k = 0; k < n_ops && !dup; k++)
            dup = !strcmp(ops[k], n->target);
        if (!dup && n_ops < max)
            ops[n_ops++] = n->target;
    }
    return n_ops;
}

uint32_t cgs_split_recorded_diff(const struct cgs_split *s, const struct cgs_node **first)
{
    uint32_t diffs = 0;

    *first = NULL;
    for (uint32_t i = 0; i < s->g->n_nodes; i++) {
        const struct cgs_node *n = s->g->nodes[i];
        const struct cgs_split_piece *p = cgs_split_piece_of(s, n);
        if (!n->piece || !p || !strcmp(n->piece, p->name))
            continue;
        if (!diffs++)
            *first = n;
    }
    return diffs;
}

/*
 * Operator traits the fusion policy and the lint need come from the op registry (lib/ops/ops.h),
 * which holds every operator torch 2.11 has; a target it does not know has none.
 */
static void name_part(const char *t, char *buf, size_t n);

/* The operator's bare name: "add" for aten.add.Tensor, torch.add, __add__, add_. */
static void bare_name(const char *t, char *buf, size_t n, bool *inplace)
{
    size_t len;

    name_part(t, buf, n);
    len = strlen(buf);
    *inplace = false;
    if (len > 4 && !strncmp(buf, "__", 2) && !strcmp(buf + len - 2, "__")) {
        memmove(buf, buf + 2, len - 4);
        buf[len - 4] = 0;
        if (buf[0] == 'i') {
            // __iadd__: in place when __add__ is an elementwise op of the registry
            char dunder[272];
            snprintf(dunder, sizeof(dunder), "__%.256s__", buf + 1);
            if (cgs_op_target_has(dunder, CGS_OPF_ELEMENTWISE)) {
                memmove(buf, buf + 1, strlen(buf));
                *inplace = true;
            }
        }
    } else if (len > 1 && buf[len - 1] == '_' && buf[len - 2] != '_') {
        buf[len - 1] = 0;
        *inplace = true;
    }
}

static bool is_call(const struct cgs_node *n)
{
    return (n->op == CGS_NODE_CALL_FUNCTION || n->op == CGS_NODE_CALL_METHOD) && n->target;
}

static bool is_partitioned(const struct cgs_node *n)
{
    return n->op != CGS_NODE_PLACEHOLDER && n->op != CGS_NODE_GET_ATTR &&
           n->op != CGS_NODE_OUTPUT;
}

struct symset {
    const char **names; /* interned */
    size_t n, alloc;
};

static void symset_add(struct symset *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->names[i] == name)
            return;
    CGS_ALLOC_GROW(s->names, s->n + 1, s->alloc);
    s->names[s->n++] = name;
}

/* Per-run memo tables: free symbols per expression, traits per target. */
struct caches {
    struct cgs_graph *g;
    struct cgs_keymap syms;   /* const struct cgs_sym * -> struct symlist * */
    struct cgs_keymap traits; /* interned target -> (void *)(uintptr_t)(traits | T_KNOWN) */
    const char *const *ops; /* the splitting ops */
    size_t n_ops;
    struct symset tmp;    /* scratch set, reused */
    const struct cgs_sym *last_e; /* memo of the last expression looked up */
    struct symlist *last_l;
};

enum {
    T_ELEMENTWISE = 1 << 0,
    T_INPLACE = 1 << 1,
    T_VIEW = 1 << 2,
    T_FACTORY = 1 << 3,
    T_DATA_DEPENDENT = 1 << 4,
    T_GLOBAL_STATE = 1 << 5,
    T_KNOWN = 1 << 8,
};


/* The traits of a call node's target (0 for placeholders, get_attr, output, modules). */
/*
 * What cgscope knows of a call node's target, computed once per distinct
 * (interned) target: traits in the low byte, T_KNOWN, and in bits 16 and up
 * the index + 1 of the first splitting op it matches (call_function only).
 */
static uintptr_t target_info(struct caches *c, const struct cgs_node *n)
{
    uint64_t *slot;
    uintptr_t t = 0;

    if (!is_call(n))
        return 0;
    slot = cgs_keymap_slot(&c->traits, CGS_KEY(n->target), true);
    if (*slot)
        return (uintptr_t)*slot;
    {
        char buf[256];
        bool inplace = false;
        enum cgs_op op = (enum cgs_op)n->op_id; // resolved when the graph was linked

        bare_name(n->target, buf, sizeof(buf), &inplace);
        if (op != CGS_OP_UNKNOWN) {
            // the op registry knows it: its traits decide
            unsigned f = cgs_op_info(op)->flags;
            if (f & CGS_OPF_ELEMENTWISE)
                t |= T_ELEMENTWISE;
            if (f & CGS_OPF_INPLACE)
                t |= T_INPLACE;
            if (f & CGS_OPF_VIEW)
                t |= T_VIEW;
        }
        // a target the registry does not know (not torch's) has no traits
        if (inplace)
            t |= T_INPLACE;
    }
    if (n->op == CGS_NODE_CALL_FUNCTION && cgs_op_target_makes_tensor(n->target))
        t |= T_FACTORY;
    if (cgs_op_target_reads_data(n->target))
        t |= T_DATA_DEPENDENT;
    if (cgs_op_target_has(n->target, CGS_OPF_GLOBAL_STATE))
        t |= T_GLOBAL_STATE;
    if (n->op == CGS_NODE_CALL_FUNCTION)
        for (size_t i = 0; i < c->n_ops; i++)
            if (cgs_split_op_matches(c->ops[i], n->target)) {
                t |= (uintptr_t)(i + 1) << 16;
                break;
            }
    t |= T_KNOWN;
    *slot = t;
    return t;
}

static unsigned traits(struct caches *c, const struct cgs_node *n)
{
    return (unsigned)(target_info(c, n) & 0xff);
}

/* ---- free symbols of a value ----------------------------------------------------- */



struct sym_walk {
    struct cgs_graph *g;
    struct symset *set;
    struct caches *c;
};

struct symlist {
    uint32_t n;
    const char *names[];
};

static void add_var(void *ud, const char *name)
{
    struct sym_walk *w = ud;
    symset_add(w->set, cgs_graph_intern(w->g, name));
}

/* Add the free symbols of e, memoised per expression (they are hash-consed). */
static void add_expr(struct sym_walk *w, const struct cgs_sym *e)
{
    uint64_t *slot;
    struct symlist *l;

    if (!e || e->kind == CGS_SYM_INT)
        return;
    if (e == w->c->last_e) {
        l = w->c->last_l; // the same expression as the last one (s0*s1 everywhere)
        for (uint32_t i = 0; i < l->n; i++)
            symset_add(w->set, l->names[i]);
        return;
    }
    slot = cgs_keymap_slot(&w->c->syms, CGS_KEY(e), true);
    if (!*slot) {
        struct symset tmp = {0};
        struct sym_walk tw = {w->g, &tmp, w->c};
        cgs_sym_foreach_var(e, add_var, &tw);
        l = cgs_arena_alloc(w->g->arena, sizeof(*l) + tmp.n * sizeof(l->names[0]));
        l->n = (uint32_t)tmp.n;
        for (size_t i = 0; i < tmp.n; i++)
            l->names[i] = tmp.names[i];
        free(tmp.names);
        *slot = CGS_KEY(l);
    }
    l = CGS_PTR(struct symlist, *slot);
    w->c->last_e = e;
    w->c->last_l = l;
    for (uint32_t i = 0; i < l->n; i++)
        symset_add(w->set, l->names[i]);
}

/* Identifiers in SymPy text that are neither function names nor parts of numbers. */
static void add_text(struct sym_walk *w, const char *t)
{
    const char *p = t;
    char buf[128];

    while (p && *p) {
        if (*p >= '0' && *p <= '9') {
            // a number: digits, fraction, exponent
            while ((*p >= '0' && *p <= '9') || *p == '.')
                p++;
            if ((*p == 'e' || *p == 'E') &&
                ((p[1] >= '0' && p[1] <= '9') ||
                 ((p[1] == '-' || p[1] == '+') && p[2] >= '0' && p[2] <= '9'))) {
                p += 2;
                while (*p >= '0' && *p <= '9')
                    p++;
            }
            continue;
        }
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_') {
            const char *s = p;
            const char *q;
            while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
                   (*p >= '0' && *p <= '9'))
                p++;
            q = p;
            while (*q == ' ')
                q++;
            if (*q != '(' && (size_t)(p - s) < sizeof(buf)) {
                memcpy(buf, s, (size_t)(p - s));
                buf[p - s] = 0;
                symset_add(w->set, cgs_graph_intern(w->g, buf));
            }
            continue;
        }
        p++;
    }
}

/* The free symbols of v (torch's free_symbols), iteratively. */
static void val_symbols(struct caches *c, const struct cgs_val *v, struct symset *set)
{
    struct sym_walk w = {c->g, set, c};
    const struct cgs_val **st = NULL;
    size_t sp = 0, alloc = 0;

    if (!v)
        return;
    if (v->kind == CGS_VAL_TENSOR || v->kind == CGS_VAL_SYMINT) {
        // the common cases, without the stack
        if (v->kind == CGS_VAL_SYMINT) {
            add_expr(&w, v->u.s.sym);
            return;
        }
        if (v->u.t.ndim != CGS_NDIM_UNKNOWN) {
            for (uint32_t i = 0; i < v->u.t.ndim; i++)
                add_expr(&w, v->u.t.shape ? v->u.t.shape[i] : NULL);
            for (uint32_t i = 0; v->u.t.stride && i < v->u.t.ndim; i++)
                add_expr(&w, v->u.t.stride[i]);
        }
        add_expr(&w, v->u.t.storage_offset);
        return;
    }
    CGS_ALLOC_GROW(st, 1, alloc);
    st[sp++] = v;
    while (sp) {
        const struct cgs_val *x = st[--sp];
        switch (x->kind) {
        case CGS_VAL_TENSOR:
            if (x->u.t.ndim != CGS_NDIM_UNKNOWN) {
                for (uint32_t i = 0; i < x->u.t.ndim; i++)
                    add_expr(&w, x->u.t.shape ? x->u.t.shape[i] : NULL);
                for (uint32_t i = 0; x->u.t.stride && i < x->u.t.ndim; i++)
                    add_expr(&w, x->u.t.stride[i]);
            }
            add_expr(&w, x->u.t.storage_offset);
            break;
        case CGS_VAL_SYMINT:
            add_expr(&w, x->u.s.sym);
            break;
        case CGS_VAL_SYMFLOAT:
        case CGS_VAL_SYMBOOL:
            add_text(&w, x->u.s.text);
            break;
        case CGS_VAL_LIST:
            // push in reverse so items are visited in order
            for (uint32_t i = x->n; i-- > 0;) {
                CGS_ALLOC_GROW(st, sp + 1, alloc);
                st[sp++] = &x->u.items[i];
            }
            break;
        default:
            break;
        }
    }
    free(st);
}

/* The bare symbol a SymInt/SymFloat value is, interned; NULL when it is not one. */
static const char *val_bare_symbol(struct cgs_graph *g, const struct cgs_val *v)
{
    const char *t, *e;
    char buf[128];

    if (!v)
        return NULL;
    if (v->kind == CGS_VAL_SYMINT)
        return v->u.s.sym && v->u.s.sym->kind == CGS_SYM_VAR
                   ? cgs_graph_intern(g, v->u.s.sym->name)
                   : NULL;
    if (v->kind != CGS_VAL_SYMFLOAT || !v->u.s.text)
        return NULL;
    t = v->u.s.text;
    while (*t == ' ')
        t++;
    if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || *t == '_'))
        return NULL;
    for (e = t; (*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || *e == '_' ||
                (*e >= '0' && *e <= '9');
         e++)
        ;
    for (const char *q = e; *q; q++)
        if (*q != ' ')
            return NULL;
    if ((size_t)(e - t) >= sizeof(buf))
        return NULL;
    memcpy(buf, t, (size_t)(e - t));
    buf[e - t] = 0;
    return cgs_graph_intern(g, buf);
}

/* ---- the state of one run -------------------------------------------------------- */

struct cut {
    enum cgs_split_rule rule;
    const struct cgs_node *node;
    const char *op;
    const char *reason;
};

struct partinfo {
    int64_t id;
    bool splitting;
    struct cut cut;
};

struct nodelist {
    uint32_t n;
    struct cgs_node *nodes[];
};

struct pair {
    uint32_t part;
    struct cgs_node *node;
};

struct run {
    struct cgs_graph *g;
    struct cgs_split *s;
    uint32_t n;
    int32_t *part;         /* per node: partition index (creation order), -1 */
    struct partinfo *parts; /* per partition index: id, kind, why it starts */
    uint32_t n_parts;
    size_t alloc_parts;
    /* symbol threading */
    struct caches c;
    struct cgs_keymap sym_node;   /* interned symbol name -> defining node */
    struct cgs_keymap missing;    /* symbols already reported as unbound */
    struct nodelist *no_symbols; /* the shared empty list */
    const char *last_set_buf[8];  /* the symbols of the last list made, and the list */
    const char **last_set;
    size_t last_set_n;
    struct nodelist *last_list;
    struct cgs_keymap symnodes;   /* def node -> struct nodelist: its symbols' nodes, sorted */
    /* ordered sets */
    uint32_t *info;        /* per node: target_info() (traits, matched op), 0 for non-calls */
    int32_t *in_stamp;
    bool *out_added;
    struct pair *ins, *outs;
    size_t n_ins, alloc_ins, n_outs, alloc_outs;
};

static char *arena_printf(struct cgs_graph *g, const char *fmt, ...) CGS_PRINTF(2, 3);
static char *arena_printf(struct cgs_graph *g, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    int len;
    char *out;

    va_start(ap, fmt);
    len = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (len < 0)
        len = 0;
    out = cgs_arena_alloc(g->arena, (size_t)len + 1);
    if ((size_t)len < sizeof(small)) {
        memcpy(out, small, (size_t)len + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(out, (size_t)len + 1, fmt, ap);
        va_end(ap);
    }
    return out;
}

/* The concatenation of the strings given, up to a NULL, in the arena (no printf). */
static char *arena_cat(struct cgs_graph *g, ...) __attribute__((sentinel));
static char *arena_cat(struct cgs_graph *g, ...)
{
    va_list ap;
    const char *part[16];
    size_t lens[16], len = 0, n = 0;
    const char *p;
    char *out, *o;

    va_start(ap, g);
    while ((p = va_arg(ap, const char *)) && n < 16) {
        part[n] = p;
        lens[n] = strlen(p);
        len += lens[n++];
    }
    va_end(ap);
    o = out = cgs_arena_alloc(g->arena, len + 1);
    for (size_t i = 0; i < n; i++) {
        memcpy(o, part[i], lens[i]);
        o += lens[i];
    }
    *o = 0;
    return out;
}

static const char *tname(const struct cgs_node *n)
{
    return n->target ? n->target : "?";
}

/* Resolve (and cache) the nodes that define the free symbols of d's value, sorted by name. */
static void symbol_nodes(struct run *r, struct cgs_node *d, struct cgs_node ***out, uint32_t *n)
{
    uint64_t *slot = cgs_keymap_slot(&r->symnodes, CGS_KEY(d), true);
    struct nodelist *l = CGS_PTR(struct nodelist, *slot);

    if (!l) {
        struct symset set = r->c.tmp;
        set.n = 0;
        val_symbols(&r->c, d->val, &set);
        // sort by name (sets are tiny: insertion sort)
        for (size_t a = 1; a < set.n; a++)
            for (size_t b = a; b > 0 && strcmp(set.names[b - 1], set.names[b]) > 0; b--) {
                const char *t = set.names[b];
                set.names[b] = set.names[b - 1];
                set.names[b - 1] = t;
            }
        if (!set.n) {
            // most values have no symbols: share one empty list
            if (!r->no_symbols)
                r->no_symbols = cgs_arena_alloc(r->g->arena, sizeof(*l));
            r->c.tmp = set;
            *slot = CGS_KEY(r->no_symbols);
            *out = NULL;
            *n = 0;
            return;
        }
        if (r->last_set && r->last_set_n == set.n &&
            !memcmp(r->last_set, set.names, set.n * sizeof(*set.names))) {
            // the same symbols as the last value looked at: share its list
            r->c.tmp = set;
            *slot = CGS_KEY(r->last_list);
            *out = r->last_list->nodes;
            *n = r->last_list->n;
            return;
        }
        l = cgs_arena_alloc(r->g->arena, sizeof(*l) + set.n * sizeof(l->nodes[0]));
        for (size_t k = 0; k < set.n; k++) {
            struct cgs_node *sn =
                CGS_PTR(struct cgs_node, cgs_keymap_get(&r->sym_node, CGS_KEY(set.names[k])));
            if (!sn) {
                uint64_t *seen = cgs_keymap_slot(&r->missing, CGS_KEY(set.names[k]), true);
                if (!*seen) {
                    *seen = CGS_KEY(d);
                    cgs_graph_note(r->g, CGS_NOTE_WARNING, CGS_E_UNKNOWN, d,
                                   "size symbol '%s' of '%s' has no defining node "
                                   "(torch's split_module would fail with KeyError)",
                                   set.names[k], d->name);
                }
                continue;
            }
            l->nodes[l->n++] = sn;
        }
        r->c.tmp = set;
        *slot = CGS_KEY(l);
        if (set.n <= sizeof(r->last_set_buf) / sizeof(r->last_set_buf[0])) {
            memcpy(r->last_set_buf, set.names, set.n * sizeof(*set.names));
            r->last_set = r->last_set_buf;
            r->last_set_n = set.n;
            r->last_list = l;
        }
    }
    *out = l->nodes;
    *n = l->n;
}

static void add_output(struct run *r, struct cgs_node *d)
{
    if (r->out_added[d->index])
        return;
    r->out_added[d->index] = true;
    CGS_ALLOC_GROW(r->outs, r->n_outs + 1, r->alloc_outs);
    r->outs[r->n_outs++] = (struct pair){(uint32_t)r->part[d->index], d};
}

static void add_input(struct run *r, int32_t u, struct cgs_node *d)
{
    if (r->in_stamp[d->index] == u)
        return;
    r->in_stamp[d->index] = u;
    CGS_ALLOC_GROW(r->ins, r->n_ins + 1, r->alloc_ins);
    r->ins[r->n_ins++] = (struct pair){(uint32_t)u, d};
}

/* split_module's record_cross_partition_use(d, u); u < 0 is "no partition". */
static void record_use(struct run *r, struct cgs_node *d, int32_t u)
{
    int32_t dp = r->part[d->index];
    struct cgs_node **syms;
    uint32_t n_syms;

    if (dp == u)
        return;
    if (dp >= 0)
        add_output(r, d);
    if (u < 0)
        return;
    add_input(r, u, d);
    symbol_nodes(r, d, &syms, &n_syms);
    for (uint32_t k = 0; k < n_syms; k++) {
        struct cgs_node *sn = syms[k];
        add_input(r, u, sn);
        if (sn->op != CGS_NODE_PLACEHOLDER && r->part[sn->index] >= 0)
            add_output(r, sn);
    }
}

/* ---- policies: one partition id per node ------------------------------------------- */

static void new_part(struct run *r, int64_t id, bool splitting, enum cgs_split_rule rule,
                     const struct cgs_node *node, const char *op, const char *reason)
{
    uint32_t k = r->n_parts++;
    CGS_ALLOC_GROW(r->parts, r->n_parts, r->alloc_parts);
    r->parts[k] = (struct partinfo){id, splitting, {rule, node, op, reason}};
}

static const char *matched_op(struct run *r, const struct cgs_node *n)
{
    uint32_t k = r->info[n->index] >> 16;

    if (!k)
        return NULL;
    return r->s->ops[k - 1].op;
}

/*
 * Every policy calls this first for every node, in graph order: it records
 * the node that first binds each bare size symbol (torch's symbol_to_node;
 * placeholders come first) and marks global-state nodes.
 */
static void visit(struct run *r, struct cgs_node *nd)
{
    const char *sym = nd->val ? val_bare_symbol(r->g, nd->val) : NULL;

    if (sym) {
        uint64_t *slot = cgs_keymap_slot(&r->sym_node, CGS_KEY(sym), true);
        if (!*slot)
            *slot = CGS_KEY(nd);
    }
    if (is_call(nd)) {
        uint32_t k;
        r->info[nd->index] = (uint32_t)target_info(&r->c, nd);
        // every policy counts the nodes each splitting op matches (what --split-ops names
        // must exist in the graph, whichever policy cuts it)
        k = r->info[nd->index] >> 16;
        if (k)
            r->s->ops[k - 1].n_matched++;
    }
}

static void policy_magi(struct run *r)
{
    struct cgs_graph *g = r->g;
    int64_t sid = 0, cur = -1;
    const struct cgs_node *prev_split = NULL;
    const char *prev_op = NULL;

    for (uint32_t i = 0; i < r->n; i++) {
        struct cgs_node *nd = g->nodes[i];
        const char *op;
        int64_t id;

        visit(r, nd);
        if (!is_partitioned(nd))
            continue;
        op = matched_op(r, nd);
        r->s->split_op_of[i] = op;
        if (op) {
            id = ++sid;
            sid++;
        } else {
            id = sid;
        }
        if (id != cur) {
            if (op)
                new_part(r, id, true, CGS_SPLIT_RULE_SPLIT_OP, nd, op,
                         arena_cat(g, "'", nd->name, "' (", tname(nd), ") matches splitting op '",
                                   op, "': a piece of its own", (char *)NULL));
            else
                new_part(r, id, false, CGS_SPLIT_RULE_AFTER_SPLIT_OP, prev_split, prev_op,
                         prev_split ? arena_cat(g, "follows splitting op '", prev_split->name,
                                                "' (", tname(prev_split), ")", (char *)NULL)
                                    : "first piece");
            cur = id;
        }
        r->part[i] = (int32_t)(r->n_parts - 1);
        if (op) {
            prev_split = nd;
            prev_op = op;
        }
    }
}

/* Text of a tensor's signature: "float32[8, 128]", "float32[4]@cpu" (in the arena). */
static const char *tensor_text(struct cgs_graph *g, const struct cgs_tensor *t)
{
    struct cgs_buf b = CGS_BUF_INIT;
    struct cgs_val v = {.kind = CGS_VAL_TENSOR};
    char *s;

    v.u.t = *t;
    cgs_val_describe(&v, &b);
    s = cgs_arena_strdup(g->arena, b.buf);
    cgs_buf_release(&b);
    return s;
}

static bool same_shape(const struct cgs_tensor *a, const struct cgs_tensor *b)
{
    if (a->ndim == CGS_NDIM_UNKNOWN || a->ndim != b->ndim || !a->shape || !b->shape)
        return false;
    for (uint32_t i = 0; i < a->ndim; i++)
        if (!a->shape[i] || a->shape[i] != b->shape[i])
            return false;
    return true;
}

static bool same_device(const struct cgs_tensor *a, const struct cgs_tensor *b)
{
    if (!a->device || !b->device)
        return a->device == b->device;
    return !strcmp(a->device, b->device);
}

/* Compare b against a: 0 when they agree, else the rule that tells them apart. */
static int tensor_mismatch(const struct cgs_tensor *a, const struct cgs_tensor *b)
{
    if (!same_shape(a, b))
        return CGS_SPLIT_RULE_SHAPE;
    if (a->dtype != b->dtype)
        return CGS_SPLIT_RULE_DTYPE;
    if (!same_device(a, b))
        return CGS_SPLIT_RULE_DEVICE;
    return -1;
}

static bool known_tensor(const struct cgs_tensor *t)
{
    if (!t || t->ndim == CGS_NDIM_UNKNOWN || !t->shape)
        return false;
    for (uint32_t i = 0; i < t->ndim; i++)
        if (!t->shape[i])
            return false;
    return true;
}

/*
 * A node that can join a fusion region: an elementwise op whose tensor
 * inputs all have its output's shape, dtype and device. Otherwise *rule and
 * *why say what stops it.
 */
static bool fusible(struct caches *c, const struct cgs_node *n, int *rule, uint32_t *bad)
{
    const struct cgs_tensor *t = cgs_node_tensor(n);
    unsigned tr = traits(c, n);

    if (!(tr & T_ELEMENTWISE) || (tr & T_INPLACE)) {
        *rule = CGS_SPLIT_RULE_NOT_ELEMENTWISE;
        return false;
    }
    if (!known_tensor(t) || (n->val && n->val->kind == CGS_VAL_LIST)) {
        *rule = CGS_SPLIT_RULE_UNKNOWN_SHAPE;
        return false;
    }
    for (uint32_t k = 0; k < n->n_inputs; k++) {
        const struct cgs_tensor *it = cgs_node_tensor(n->inputs[k]);
        int m;
        if (!it)
            continue; // scalars (SymInts, Python numbers) fuse fine
        m = tensor_mismatch(t, it);
        if (m >= 0) {
            *rule = m;
            *bad = k;
            return false;
        }
    }
    return true;
}

/* The text of why fusible() refused n (only built where a cut is made). */
static const char *unfusible_reason(struct cgs_graph *g, const struct cgs_node *n, int rule,
                                    uint32_t bad)
{
    const struct cgs_tensor *t = cgs_node_tensor(n);

    if (rule == CGS_SPLIT_RULE_NOT_ELEMENTWISE)
        return arena_printf(g, "'%s' (%s) is not an elementwise op", n->name, tname(n));
    if (rule == CGS_SPLIT_RULE_UNKNOWN_SHAPE)
        return arena_printf(g, "'%s' (%s) has no single tensor value of known shape", n->name,
                            tname(n));
    return arena_printf(g, "'%s' (%s): input '%s' is %s but the result is %s (%s differs)",
                        n->name, tname(n), n->inputs[bad]->name,
                        tensor_text(g, cgs_node_tensor(n->inputs[bad])), tensor_text(g, t),
                        cgs_split_rule_names[rule]);
}

static void policy_fusion(struct run *r)
{
    struct cgs_graph *g = r->g;
    int64_t id = -1;
    int region = 0; /* 0 none, 1 fused, 2 other */
    const struct cgs_tensor *sig = NULL;

    for (uint32_t i = 0; i < r->n; i++) {
        struct cgs_node *nd = g->nodes[i];
        int rule = 0;
        uint32_t bad = 0;

        visit(r, nd);
        if (!is_partitioned(nd))
            continue;
        if (fusible(&r->c, nd, &rule, &bad)) {
            const struct cgs_tensor *t = cgs_node_tensor(nd);
            int m = region == 1 ? tensor_mismatch(sig, t) : -1;
            if (region != 1 || m >= 0) {
                if (region == 0)
                    new_part(r, ++id, false, CGS_SPLIT_RULE_ELEMENTWISE, nd, NULL,
                             "first piece");
                else if (region == 2)
                    new_part(r, ++id, false, CGS_SPLIT_RULE_ELEMENTWISE, nd, NULL,
                             arena_printf(g, "'%s' (%s) is elementwise: a fusion region starts",
                                          nd->name, tname(nd)));
                else
                    new_part(r, ++id, false, (enum cgs_split_rule)m, nd, NULL,
                             arena_printf(g, "'%s' (%s) is %s but the region is %s (%s differs)",
                                          nd->name, tname(nd), tensor_text(g, t),
                                          tensor_text(g, sig), cgs_split_rule_names[m]));
                region = 1;
                sig = t;
            }
        } else if (region != 2) {
            new_part(r, ++id, true, (enum cgs_split_rule)rule, nd, NULL,
                     region == 0 ? "first piece" : unfusible_reason(g, nd, rule, bad));
            region = 2;
        }
        r->part[i] = (int32_t)(r->n_parts - 1);
    }
}

static void policy_device(struct run *r)
{
    struct cgs_graph *g = r->g;
    int64_t id = -1;
    const char *dev = NULL;

    for (uint32_t i = 0; i < r->n; i++) {
        struct cgs_node *nd = g->nodes[i];
        const struct cgs_tensor *t;

        visit(r, nd);
        if (!is_partitioned(nd))
            continue;
        t = cgs_node_tensor(nd);
        if (id < 0) {
            new_part(r, ++id, false, CGS_SPLIT_RULE_DEVICE_CHANGE, nd, NULL, "first piece");
            dev = t ? t->device : NULL;
        } else if (t && t->device && (!dev || strcmp(dev, t->device))) {
            if (dev)
                new_part(r, ++id, false, CGS_SPLIT_RULE_DEVICE_CHANGE, nd, NULL,
                         arena_printf(g, "'%s' (%s) computes on %s, the piece before on %s",
                                      nd->name, tname(nd), t->device, dev));
            dev = t->device;
        }
        r->part[i] = (int32_t)(r->n_parts - 1);
    }
}

/* ---- building the pieces ------------------------------------------------------------- */

static bool is_module_attr(const struct cgs_graph *g, const struct cgs_node *n)
{
    return n->op == CGS_NODE_GET_ATTR && n->target && cgs_graph_subgraph(g, n->target);
}

/* "submod_<id>" in the arena (one per piece: no printf on this path). */
static const char *piece_name(struct cgs_graph *g, int64_t id)
{
    char digits[CGS_INT_TEXT_MAX], *out;
    const char *p = cgs_int_text(digits, (long long)id);
    size_t n = (size_t)(digits + sizeof(digits) - p);

    out = cgs_arena_alloc(g->arena, 7 + n + 1);
    memcpy(out, "submod_", 7);
    memcpy(out + 7, p, n);
    out[7 + n] = '\0';
    return out;
}

static void build_pieces(struct run *r)
{
    struct cgs_graph *g = r->g;
    struct cgs_split *s = r->s;
    uint32_t *cnt;
    struct cgs_node **all_nodes, **all_ins, **all_outs;
    uint32_t *all_sym;
    size_t k, total = 0, n_in = 0;
    int32_t compiled = 0;

    s->n_pieces = r->n_parts;
    s->pieces = cgs_arena_calloc(g->arena, r->n_parts ? r->n_parts : 1, sizeof(*s->pieces));
    cnt = cgs_xcalloc((size_t)r->n_parts + 1, sizeof(*cnt));
    for (uint32_t p = 0; p < r->n_parts; p++) {
        struct cgs_split_piece *pc = &s->pieces[p];
        pc->graph_id = r->parts[p].id;
        pc->name = piece_name(g, pc->graph_id);
        pc->is_splitting_graph = r->parts[p].splitting;
        pc->compile_index = -1;
        if (!pc->is_splitting_graph)
            pc->compile_index = compiled++;
    }
    // one array each for nodes, inputs, outputs, sliced per piece
    for (uint32_t i = 0; i < r->n; i++)
        if (r->part[i] >= 0) {
            cnt[r->part[i]]++;
            total++;
        }
    for (k = 0; k < r->n_ins; k++)
        n_in += !is_module_attr(g, r->ins[k].node);
    all_nodes = cgs_arena_calloc(g->arena, total + 1, sizeof(*all_nodes));
    all_ins = cgs_arena_calloc(g->arena, n_in + 1, sizeof(*all_ins));
    all_sym = cgs_arena_calloc(g->arena, n_in + 1, sizeof(*all_sym));
    all_outs = cgs_arena_calloc(g->arena, r->n_outs + 1, sizeof(*all_outs));
    total = 0;
    for (uint32_t p = 0; p < r->n_parts; p++) {
        s->pieces[p].nodes = all_nodes + total;
        total += cnt[p];
    }
    for (uint32_t i = 0; i < r->n; i++)
        if (r->part[i] >= 0) {
            struct cgs_split_piece *pc = &s->pieces[r->part[i]];
            pc->nodes[pc->n_nodes++] = g->nodes[i];
        }
    // inputs: already grouped by partition, in order (partitions are contiguous)
    n_in = 0;
    for (k = 0; k < r->n_ins; k++) {
        struct cgs_split_piece *pc = &s->pieces[r->ins[k].part];
        struct cgs_node *in = r->ins[k].node;
        if (is_module_attr(g, in))
            continue;
        if (!pc->inputs) {
            pc->inputs = all_ins + n_in;
            pc->sym_shape_indices = all_sym + n_in;
        }
        if (in->val && in->val->kind == CGS_VAL_SYMINT)
            pc->sym_shape_indices[pc->n_sym_shape_indices++] = pc->n_inputs;
        pc->inputs[pc->n_inputs++] = in;
        n_in++;
    }
    // outputs: a stable counting sort of the (partition, node) pairs
    memset(cnt, 0, ((size_t)r->n_parts + 1) * sizeof(*cnt));
    for (k = 0; k < r->n_outs; k++)
        cnt[r->outs[k].part + 1]++;
    for (uint32_t p = 0; p < r->n_parts; p++) {
        s->pieces[p].outputs = all_outs + cnt[p];
        cnt[p + 1] += cnt[p];
        if (!s->pieces[p].inputs) {
            s->pieces[p].inputs = all_ins + n_in;
            s->pieces[p].sym_shape_indices = all_sym + n_in;
        }
    }
    for (k = 0; k < r->n_outs; k++) {
        struct cgs_split_piece *pc = &s->pieces[r->outs[k].part];
        pc->outputs[pc->n_outputs++] = r->outs[k].node;
    }
    free(cnt);
    s->piece_of = r->part;
    s->counters.graphs_seen = 1;
    s->counters.piecewise_graphs = s->n_pieces;
    s->counters.compiled_graphs = (uint32_t)compiled;
}

static void build_boundaries(struct run *r)
{
    struct cgs_split *s = r->s;

    s->boundaries = cgs_arena_calloc(r->g->arena, r->n_parts ? r->n_parts : 1,
                                     sizeof(*s->boundaries));
    for (uint32_t p = 1; p < r->n_parts; p++) {
        const struct cut *c = &r->parts[p].cut;
        s->boundaries[s->n_boundaries++] = (struct cgs_split_boundary){
            .piece = p, .node = c->node, .rule = c->rule, .op = c->op, .reason = c->reason};
    }
}

/* ---- near misses -------------------------------------------------------------------- */

static const char *last_atom(const char *s)
{
    const char *d = strrchr(s, '.');
    return d ? d + 1 : s;
}

/* The name part of a target: "attention" in "cgs.attention.default" or "cgs.attention". */
static void name_part(const char *t, char *buf, size_t n)
{
    const char *a = strchr(t, '.');
    const char *b;
    size_t len;

    if (!a) {
        snprintf(buf, n, "%s", t);
        return;
    }
    if (count_dots(t) == 2 && strncmp(t, "torch.", 6)) {
        a++;
        b = strchr(a, '.');
        len = (size_t)(b - a);
        snprintf(buf, n, "%.*s", (int)len, a);
        return;
    }
    snprintf(buf, n, "%s", last_atom(t));
}

static void suggest(struct run *r, struct cgs_split_opmatch *m)
{
    struct cgs_graph *g = r->g;
    struct cgs_keymap seen = {0};
    size_t best_score[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    char want[256], have[256];
    size_t cap = strlen(m->op) / 3 > 3 ? strlen(m->op) / 3 : 3;

    name_part(m->op, want, sizeof(want));
    for (uint32_t i = 0; i < r->n; i++) {
        const struct cgs_node *nd = g->nodes[i];
        size_t score, d;
        uint64_t *slot;

        if ((nd->op != CGS_NODE_CALL_FUNCTION && nd->op != CGS_NODE_CALL_METHOD) || !nd->target)
            continue;
        slot = cgs_keymap_slot(&seen, CGS_KEY(nd->target), true);
        if (*slot)
            continue;
        *slot = CGS_KEY(nd);
        name_part(nd->target, have, sizeof(have));
        d = cgs_edit_distance(m->op, nd->target, cap);
        if (d <= cap) {
            score = d * 2;
        } else if (*want && *have && (strstr(nd->target, want) || strstr(m->op, have)) &&
                   strlen(have) >= 3 && strlen(want) >= 3) {
            score = 2 * cap + 2 + cgs_edit_distance(want, have, 64);
        } else {
            size_t dn = cgs_edit_distance(want, have, 2);
            if (dn > 2 || strlen(want) < 4)
                continue;
            score = 2 * cap + 1 + dn;
        }
        // insert into the top three
        for (int k = 0; k < 3; k++) {
            if (score < best_score[k]) {
                for (int j = 2; j > k; j--) {
                    best_score[j] = best_score[j - 1];
                    m->suggestions[j] = m->suggestions[j - 1];
                }
                best_score[k] = score;
                m->suggestions[k] = nd->target;
                break;
            }
        }
    }
    for (m->n_suggestions = 0; m->n_suggestions < 3 && m->suggestions[m->n_suggestions];)
        m->n_suggestions++;
    cgs_keymap_release(&seen);
}

/* ---- cudagraph-safety lint ----------------------------------------------------------- */

static void finding(struct run *r, uint32_t piece, const struct cgs_node *n,
                    enum cgs_lint_kind kind, enum cgs_note_level level, const char *reason,
                    struct cgs_split_finding **arr, size_t *alloc)
{
    struct cgs_split *s = r->s;
    CGS_ALLOC_GROW(*arr, (size_t)s->n_findings + 1, *alloc);
    (*arr)[s->n_findings++] = (struct cgs_split_finding){piece, n, kind, level, reason};
}

static bool is_cpu(const char *dev)
{
    return dev && !strncmp(dev, "cpu", 3);
}

static bool is_cuda(const char *dev)
{
    return dev && !strncmp(dev, "cuda", 4);
}

static const char *arg_device(const struct cgs_arg *a)
{
    if (!a)
        return NULL;
    if (a->kind == CGS_ARG_DEVICE || a->kind == CGS_ARG_STR)
        return a->u.s;
    return NULL;
}

/* Follow views back from n to a placeholder; NULL when n is not a view of a graph input. */
static const struct cgs_node *view_root(struct caches *c, const struct cgs_node *n)
{
    for (int depth = 0; n && depth < 1000; depth++) {
        if (n->op == CGS_NODE_PLACEHOLDER)
            return n;
        if (!n->n_inputs || !(traits(c, n) & T_VIEW))
            return NULL;
        n = n->n_args && n->args[0].kind == CGS_ARG_NODE ? n->args[0].u.node : NULL;
    }
    return NULL;
}

/* A placeholder whose address never changes for Dynamo: a parameter or a registered buffer
 * (lib/ir/graph.h's cgs_node_state; a plain tensor attribute is not static). */
static bool is_static_input(const struct cgs_node *n)
{
    enum cgs_state_kind k = cgs_node_state(n);
    return n->op == CGS_NODE_PLACEHOLDER && (k == CGS_STATE_PARAMETER || k == CGS_STATE_BUFFER);
}

static bool is_unbacked_name(const char *s)
{
    return s[0] == 'u' && s[1] >= '0' && s[1] <= '9';
}

static bool has_unbacked(struct run *r, const struct cgs_node *n, const char **sym)
{
    struct symset set = r->c.tmp;
    bool found = false;

    set.n = 0;
    val_symbols(&r->c, n->val, &set);
    for (size_t i = 0; i < set.n && !found; i++) {
        const char *s = set.names[i];
        if (is_unbacked_name(s)) {
            *sym = s;
            found = true;
        }
    }
    r->c.tmp = set;
    return found;
}

static void lint(struct run *r)
{
    struct cgs_graph *g = r->g;
    struct cgs_split *s = r->s;
    struct cgs_split_finding *arr = NULL;
    size_t alloc = 0;
    bool any_unbacked = false;

    // unbacked symbols (u0, ...) only exist where the graph declares or binds one
    for (uint32_t i = 0; i < g->n_symbols && !any_unbacked; i++)
        any_unbacked = is_unbacked_name(g->symbols[i].name);
    for (size_t i = 0; i < r->sym_node.cap && !any_unbacked; i++)
        any_unbacked = r->sym_node.keys[i] &&
                       is_unbacked_name((const char *)(uintptr_t)r->sym_node.keys[i]);

    for (uint32_t p = 0; p < s->n_pieces; p++) {
        const struct cgs_split_piece *pc = &s->pieces[p];
        bool cuda = false;

        if (pc->is_splitting_graph)
            continue;
        for (uint32_t k = 0; k < pc->n_nodes && !cuda; k++) {
            const struct cgs_tensor *t = cgs_node_tensor(pc->nodes[k]);
            cuda = t && is_cuda(t->device);
        }
        for (uint32_t k = 0; k < pc->n_inputs && !cuda; k++) {
            const struct cgs_tensor *t = cgs_node_tensor(pc->inputs[k]);
            cuda = t && is_cuda(t->device);
        }
        if (cuda) {
            for (uint32_t k = 0; k < pc->n_inputs; k++) {
                const struct cgs_tensor *t = cgs_node_tensor(pc->inputs[k]);
                if (t && is_cpu(t->device))
                    finding(r, p, pc->inputs[k], CGS_LINT_CPU_TENSOR, CGS_NOTE_WARNING,
                            arena_printf(g, "input '%s' is a CPU tensor (%s) in a CUDA piece: "
                                            "a CUDA graph replays only device work",
                                         pc->inputs[k]->name, tensor_text(g, t)),
                            &arr, &alloc);
            }
        }
        for (uint32_t k = 0; k < pc->n_nodes; k++) {
            const struct cgs_node *n = pc->nodes[k];
            const struct cgs_tensor *t = cgs_node_tensor(n);
            const char *sym = NULL;

            unsigned tr = r->info[n->index] & 0xff;

            if (tr & T_FACTORY) {
                const char *dev = arg_device(cgs_node_kwarg(n, "device"));
                if (is_cpu(dev) || (!dev && t && is_cpu(t->device))) {
                    finding(r, p, n, CGS_LINT_CPU_FACTORY, cuda ? CGS_NOTE_ERROR : CGS_NOTE_WARNING,
                            arena_printf(g, "'%s' (%s) creates a tensor on the CPU%s",
                                         n->name, tname(n),
                                         dev ? " (device=cpu; MagiCompiler's CPU-offload mode "
                                               "rewrites it to the GPU)"
                                             : ""),
                            &arr, &alloc);
                    continue;
                }
            }
            if (cuda && t && is_cpu(t->device))
                finding(r, p, n, CGS_LINT_CPU_TENSOR, CGS_NOTE_WARNING,
                        arena_printf(g, "'%s' (%s) computes a CPU tensor (%s) in a CUDA piece",
                                     n->name, tname(n), tensor_text(g, t)),
                        &arr, &alloc);
            // torch's convention: a trailing underscore mutates self (add_, relu_)
            if ((tr & T_INPLACE) && n->n_args && n->args[0].kind == CGS_ARG_NODE) {
                const struct cgs_node *root = view_root(&r->c, n->args[0].u.node);
                if (root && is_static_input(root))
                    finding(r, p, n, CGS_LINT_INPUT_MUTATION, CGS_NOTE_WARNING,
                            arena_printf(g, "'%s' (%s) mutates module state '%s' in place%s: "
                                            "capture keeps it (a parameter or buffer has a "
                                            "fixed address; Inductor's cudagraph trees allow "
                                            "mutating static inputs)",
                                         n->name, tname(n), root->name,
                                         root == n->args[0].u.node ? "" : " (through a view)"),
                            &arr, &alloc);
                else if (root)
                    finding(r, p, n, CGS_LINT_INPUT_MUTATION, CGS_NOTE_ERROR,
                            arena_printf(g, "'%s' (%s) mutates graph input '%s' in place%s: a "
                                            "replay would not see a new input's storage",
                                         n->name, tname(n), root->name,
                                         root == n->args[0].u.node ? "" : " (through a view)"),
                            &arr, &alloc);
            }
            if ((tr & T_DATA_DEPENDENT) || (any_unbacked && has_unbacked(r, n, &sym))) {
                const struct cgs_tensor *src =
                    n->n_args && n->args[0].kind == CGS_ARG_NODE
                        ? cgs_node_tensor(n->args[0].u.node)
                        : NULL;
                if (sym)
                    finding(r, p, n, CGS_LINT_DATA_DEPENDENT, CGS_NOTE_ERROR,
                            arena_printf(g, "'%s' (%s) has a data-dependent size ('%s'): "
                                            "its result is not known at capture time",
                                         n->name, tname(n), sym),
                            &arr, &alloc);
                else if (src && is_cpu(src->device))
                    finding(r, p, n, CGS_LINT_DATA_DEPENDENT, CGS_NOTE_WARNING,
                            arena_printf(g, "'%s' (%s) reads the value of CPU tensor '%s': a "
                                            "CUDA graph replays the value seen at capture",
                                         n->name, tname(n), n->args[0].u.node->name),
                            &arr, &alloc);
                else
                    finding(r, p, n, CGS_LINT_DATA_DEPENDENT, CGS_NOTE_ERROR,
                            arena_printf(g, "'%s' (%s) is data-dependent: it syncs with the "
                                            "device to read values, which capture forbids",
                                         n->name, tname(n)),
                            &arr, &alloc);
            }
        }
        if (pc->n_sym_shape_indices) {
            struct cgs_buf b = CGS_BUF_INIT;
            for (uint32_t k = 0; k < pc->n_sym_shape_indices; k++) {
                if (k)
                    cgs_buf_addstr(&b, ", ");
                cgs_buf_addstr(&b, pc->inputs[pc->sym_shape_indices[k]]->name);
            }
            finding(r, p, pc->inputs[pc->sym_shape_indices[0]], CGS_LINT_SYMBOLIC_SHAPE,
                    CGS_NOTE_INFO,
                    arena_cat(g, "symbolic sizes (SymInt inputs ", b.buf,
                              "): compiled for a dynamic shape, one CUDA graph captured per "
                              "runtime shape",
                              (char *)NULL),
                    &arr, &alloc);
            cgs_buf_release(&b);
        }
    }
    if (s->n_findings) {
        s->findings = cgs_arena_calloc(g->arena, s->n_findings, sizeof(*arr));
        memcpy(s->findings, arr, s->n_findings * sizeof(*arr));
    }
    free(arr);
    // the verdicts: a compiled piece is capturable unless a finding breaks capture
    s->counters.capturable_graphs = 0;
    for (uint32_t p = 0; p < s->n_pieces; p++)
        s->pieces[p].capturable = s->policy == CGS_SPLIT_MAGI && !s->pieces[p].is_splitting_graph;
    for (uint32_t i = 0; i < s->n_findings; i++)
        if (s->findings[i].level == CGS_NOTE_ERROR) {
            s->pieces[s->findings[i].piece].capturable = false;
            s->pieces[s->findings[i].piece].n_capture_blockers++;
        }
    for (uint32_t p = 0; p < s->n_pieces; p++)
        s->counters.capturable_graphs += s->pieces[p].capturable;
}

/* ---- the pass ------------------------------------------------------------------------ */

static void run_release(struct run *r)
{
    free(r->parts);
    cgs_keymap_release(&r->symnodes);
    free(r->in_stamp);
    free(r->info);
    free(r->out_added);
    free(r->ins);
    free(r->outs);
    cgs_keymap_release(&r->c.syms);
    cgs_keymap_release(&r->c.traits);
    free(r->c.tmp.names);
    cgs_keymap_release(&r->sym_node);
    cgs_keymap_release(&r->missing);
}

int cgs_split_run(struct cgs_graph *g, const struct cgs_split_opts *opts, struct cgs_split **out,
                  struct cgs_diag *d)
{
    struct run r = {0};
    struct cgs_split *s;
    size_t n1;

    if (!g || !opts || !out)
        return cgs_diag_set(d, CGS_E_INVAL, "split: missing graph or options");
    if ((int)opts->policy < 0 || opts->policy >= CGS_SPLIT_POLICY_COUNT)
        return cgs_diag_set(d, CGS_E_INVAL, "split: unknown policy %d", (int)opts->policy);
    if (opts->n_ops && !opts->ops)
        return cgs_diag_set(d, CGS_E_INVAL, "split: bad list of splitting ops");
    if (opts->n_ops > 0xffff)
        return cgs_diag_set(d, CGS_E_LIMIT, "split: %zu splitting ops, at most 65535",
                            opts->n_ops);
    for (size_t i = 0; i < opts->n_ops; i++)
        if (!opts->ops[i] || !*opts->ops[i])
            return cgs_diag_set(d, CGS_E_INVAL, "split: empty splitting op name");
    *out = NULL;

    s = cgs_arena_alloc(g->arena, sizeof(*s));
    s->g = g;
    s->policy = opts->policy;
    s->n_ops = (uint32_t)opts->n_ops;
    s->ops = cgs_arena_calloc(g->arena, opts->n_ops ? opts->n_ops : 1, sizeof(*s->ops));
    for (size_t i = 0; i < opts->n_ops; i++)
        s->ops[i].op = cgs_arena_strdup(g->arena, opts->ops[i]);

    r.g = g;
    r.c.g = g;
    r.c.ops = opts->ops;
    r.c.n_ops = opts->n_ops;
    r.s = s;
    r.n = g->n_nodes;
    n1 = (size_t)r.n + 1;
    r.part = cgs_arena_calloc(g->arena, n1, sizeof(*r.part));
    s->split_op_of = cgs_arena_calloc(g->arena, n1, sizeof(*s->split_op_of));
    r.in_stamp = cgs_xcalloc(n1, sizeof(*r.in_stamp));
    r.info = cgs_xcalloc(n1, sizeof(*r.info));
    r.out_added = cgs_xcalloc(n1, sizeof(*r.out_added));
    for (uint32_t i = 0; i < r.n; i++) {
        r.part[i] = -1;
        r.in_stamp[i] = -1;
    }

    // 1. partition ids
    switch (opts->policy) {
    case CGS_SPLIT_MAGI:
        policy_magi(&r);
        break;
    case CGS_SPLIT_FUSION:
        policy_fusion(&r);
        break;
    case CGS_SPLIT_DEVICE:
        policy_device(&r);
        break;
    default:
        break;
    }

    // 3. cross-partition uses, in graph order
    for (uint32_t i = 0; i < r.n; i++) {
        struct cgs_node *nd = g->nodes[i];
        int32_t u;
        if (nd->op == CGS_NODE_PLACEHOLDER || nd->op == CGS_NODE_GET_ATTR)
            continue;
        if (r.info[i] & T_GLOBAL_STATE)
            continue;
        u = nd->op == CGS_NODE_OUTPUT ? -1 : r.part[i];
        for (uint32_t k = 0; k < nd->n_inputs; k++)
            record_use(&r, nd->inputs[k], u);
    }

    // 4. pieces, boundaries, near misses, lint
    build_pieces(&r);
    build_boundaries(&r);
    for (uint32_t i = 0; i < s->n_ops; i++)
        if (!s->ops[i].n_matched)
            suggest(&r, &s->ops[i]);
    lint(&r);

    run_release(&r);
    *out = s;
    return 0;
}

const struct cgs_split_piece *cgs_split_piece_of(const struct cgs_split *s,
                                                 const struct cgs_node *n)
{
    if (!s || !n || n->index >= s->g->n_nodes || s->g->nodes[n->index] != n ||
        s->piece_of[n->index] < 0)
        return NULL;
    return &s->pieces[s->piece_of[n->index]];
}
