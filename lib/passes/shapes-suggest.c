/*
 * Declarations the recorded values bear out (docs/custom-ops.md): for an operator cgscope has
 * no rule for, the register_fake-like declaration ("like 0", "like 1 dtype float32", "none")
 * that gives, at every call of it in the graph, the value torch recorded there. What a user
 * would otherwise write by reading the op's fake implementation; the values that confirm it
 * are counted.
 */
#include "lib/passes/shapes-int.h"

#define SUGGEST_CANDS 8

/* The value a node's users see: its reported value (the record, else what was inferred). */
static const struct cgs_val *seen(const struct cgs_shapes *s, const struct cgs_node *n)
{
    return s->nodes[n->index].reported;
}

static bool same_shape(const struct cgs_tensor *a, const struct cgs_tensor *b)
{
    if (a->ndim != b->ndim || a->ndim == CGS_NDIM_UNKNOWN || !a->shape || !b->shape)
        return false;
    for (uint32_t i = 0; i < a->ndim; i++)
        if (!a->shape[i] || !b->shape[i] || !dim_eq(a->shape[i], b->shape[i]))
            return false;
    return true;
}

/* "like I" (or "like I dtype D") for the first positional tensor argument of n with out's
   shape: exact dtype first. Empty when there is none. */
static void like_arg(const struct cgs_shapes *s, const struct cgs_node *n,
                     const struct cgs_tensor *out, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int pass = 0; pass < 2 && !buf[0]; pass++)
        for (uint32_t i = 0; i < n->n_args; i++) {
            const struct cgs_val *v;
            if (n->args[i].kind != CGS_ARG_NODE || !n->args[i].u.node)
                continue;
            v = seen(s, n->args[i].u.node);
            if (!v || v->kind != CGS_VAL_TENSOR || !same_shape(&v->u.t, out) ||
                (v->u.t.device && out->device && strcmp(v->u.t.device, out->device)))
                continue;
            if (v->u.t.dtype == out->dtype)
                snprintf(buf, size, "like %u", i);
            else if (pass == 1 && out->dtype != CGS_DTYPE_UNKNOWN)
                snprintf(buf, size, "like %u dtype %s", i, cgs_dtypes[out->dtype].name);
            else
                continue;
            return;
        }
}

/* The declaration of n's recorded value, or false when none fits. */
static bool decl_of(const struct cgs_shapes *s, const struct cgs_node *n, struct cgs_buf *b)
{
    const struct cgs_val *v = n->val;
    char one[64];

    cgs_buf_reset(b);
    if (v->kind == CGS_VAL_NONE) {
        cgs_buf_addstr(b, "none");
        return true;
    }
    if (v->kind == CGS_VAL_TENSOR) {
        like_arg(s, n, &v->u.t, one, sizeof(one));
        if (one[0])
            cgs_buf_addstr(b, one);
        return one[0] != '\0';
    }
    if (v->kind == CGS_VAL_LIST && v->n) {
        for (uint32_t k = 0; k < v->n; k++) {
            if (v->u.items[k].kind != CGS_VAL_TENSOR)
                return false;
            like_arg(s, n, &v->u.items[k].u.t, one, sizeof(one));
            if (!one[0])
                return false;
            cgs_buf_addf(b, "%s%s", k ? ", " : "", one);
        }
        return true;
    }
    return false;
}

size_t cgs_shapes_suggest_decls(const struct cgs_graph *g, const struct cgs_shapes *s,
                                struct cgs_op_suggestion **out)
{
    struct cgs_op_suggestion *list = NULL;
    size_t n_list = 0, alloc = 0;
    struct cgs_buf b = CGS_BUF_INIT;

    *out = NULL;
    for (uint32_t i = 0; i < g->n_nodes && i < s->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        const char *decl = NULL;
        uint32_t confirmed = 0;
        bool agree = true, seen_before = false;

        if (s->nodes[i].status != CGS_SHAPE_UNKNOWN_OP || !n->target ||
            (n->op != CGS_NODE_CALL_FUNCTION && n->op != CGS_NODE_CALL_METHOD))
            continue;
        for (size_t k = 0; k < n_list; k++)
            seen_before = seen_before || !strcmp(list[k].target, n->target);
        if (seen_before)
            continue;
        // every call of this target: one declaration must give each recorded value
        for (uint32_t j = i; j < g->n_nodes && agree; j++) {
            const struct cgs_node *m = g->nodes[j];
            if (m->target != n->target && (!m->target || strcmp(m->target, n->target)))
                continue;
            if (!m->val)
                continue;
            if (!decl_of(s, m, &b)) {
                agree = false;
            } else if (!decl) {
                decl = cgs_arena_strdup(g->arena, b.buf);
                confirmed = 1;
            } else if (!strcmp(decl, b.buf)) {
                confirmed++;
            } else {
                agree = false;
            }
        }
        if (!agree || !decl)
            continue;
        CGS_ALLOC_GROW(list, n_list + 1, alloc);
        list[n_list].target = n->target;
        {
            // mylib.op.default is declared as mylib.op (docs/custom-ops.md)
            size_t len = strlen(n->target);
            list[n_list].name = len > 8 && !strcmp(n->target + len - 8, ".default")
                                    ? cgs_arena_strndup(g->arena, n->target, len - 8)
                                    : n->target;
        }
        list[n_list].decl = decl;
        list[n_list].confirmed = confirmed;
        n_list++;
    }
    cgs_buf_release(&b);
    *out = list;
    return n_list;
}
