/*
 * Shape rules (lib/passes/shapes.h), higher-order ops: their bodies entered as torch traces them
 * (wrap, cond, while_loop, auto_functionalized, with_effects, triton kernels). Helpers come from
 * the core (shapes-int.h); docs/shape-rules.md lists every rule's file.
 */
#include "lib/passes/shapes-int.h"

/*
 * The subgraph a get_attr node of g names: keys are paths from the root ("submod_1.body"), so
 * inside a subgraph its own name comes first. NULL when it names none.
 */
struct cgs_graph *subgraph_of(const struct cgs_graph *g, const struct cgs_node *gn)
{
    const struct cgs_graph *root = g;
    struct cgs_graph *sub;
    char key[512];

    if (!gn || gn->op != CGS_NODE_GET_ATTR || !gn->target)
        return NULL;
    while (root->parent)
        root = root->parent;
    if (g->parent) {
        snprintf(key, sizeof(key), "%s.%s", g->name, gn->target);
        if ((sub = cgs_graph_subgraph(root, key)))
            return sub;
    }
    return cgs_graph_subgraph(root, gn->target);
}

/* The body a higher-order op's argument names. */
static struct cgs_graph *body_of(struct cgs_shape_ctx *sc, const struct cgs_arg *a)
{
    return a && a->kind == CGS_ARG_NODE ? subgraph_of(sc->g, a->u.node) : NULL;
}

/*
 * Enter body with the operands' values args[first..first+count) (a list argument is spread),
 * and give the HOP node the body's outputs (a tuple, as the HOP returns).
 */
static int enter_body(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_graph *body,
               const struct cgs_arg *ops, uint32_t count, struct cgs_diag *d)
{
    const struct cgs_val **in;
    struct cgs_shapes_opts o = {0};
    struct cgs_shapes *res;
    const struct cgs_node *out = NULL;
    uint32_t i, k = 0;

    const struct cgs_shapes_nest *outer = sc->opts ? sc->opts->nest : NULL;
    struct cgs_shapes_nest nest = {sc->g, outer, outer ? outer->root : sc};

    (void)n;
    if (!body)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "the op's body is not in the graph (subgraphs)");
    for (const struct cgs_shapes_nest *x = &nest; x; x = x->outer)
        if (x->g == body)
            return cgs_diag_set(d, CGS_E_SCHEMA, "the op's body calls itself (through '%s'): "
                                "a graph's bodies cannot recurse",
                                body->name ? body->name : "?");
    if (sc->opts && sc->opts->depth >= 32)
        return cgs_diag_set(d, CGS_E_LIMIT, "bodies nested more than 32 deep");
    if (++nest.root->bodies_entered > CGS_SHAPES_MAX_BODIES)
        return cgs_diag_set(d, CGS_E_LIMIT, "more than %d bodies entered (higher-order ops "
                            "inside the bodies of others)", CGS_SHAPES_MAX_BODIES);
    in = cgs_arena_calloc(sc->ar, count ? count : 1, sizeof(*in));
    for (i = 0; i < count; i++)
        in[k++] = node_val(sc, &ops[i]);
    o.reinfer = sc->opts ? sc->opts->reinfer : true;
    o.decls = sc->decls;
    o.inputs = in;
    o.n_inputs = k;
    o.depth = (sc->opts ? sc->opts->depth : 0) + 1;
    o.nest = &nest;
    autocast_inherit(sc, n, &o);
    TRY(cgs_shapes_infer(body, &o, &res, d));
    for (i = 0; i < body->n_nodes; i++)
        if (body->nodes[i]->op == CGS_NODE_OUTPUT)
            out = body->nodes[i];
    if (!out || out->n_args != 1)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "the op's body has no output");
    {
        const struct cgs_arg *r = &out->args[0];
        uint32_t cnt = r->kind == CGS_ARG_LIST ? r->n : 1;
        struct cgs_val *l = new_list(sc, cnt);
        if (!res->summary.validated && res->summary.nodes)
            for (i = 0; i < body->n_nodes; i++)
                if (res->nodes[i].status != CGS_SHAPE_OK)
                    return cgs_diag_set(d, CGS_E_UNKNOWN, "in the body: %s: %s",
                                        body->nodes[i]->name,
                                        res->nodes[i].reason ? res->nodes[i].reason : "not ok");
        for (i = 0; i < cnt; i++) {
            const struct cgs_arg *it = r->kind == CGS_ARG_LIST ? &r->u.items[i] : r;
            const struct cgs_val *v = it->kind == CGS_ARG_NODE && it->u.node
                                          ? res->nodes[it->u.node->index].val
                                          : NULL;
            if (!v)
                return cgs_diag_set(d, CGS_E_UNKNOWN, "output %u of the op's body is not known",
                                    i);
            l->u.items[i] = *v;
        }
        sc->out = l;
    }
    return 0;
}

/* wrap_with_set_grad_enabled(enabled, body, *args), wrap_with_autocast(device, dtype,
 * enabled, cache, body, *args), invoke_subgraph(body, identifier, *args): body(*args). */
RULE(hop_body)
{
    uint32_t i;

    for (i = 0; i < n->n_args; i++) {
        struct cgs_graph *b = body_of(sc, &n->args[i]);
        if (!b)
            continue;
        // invoke_subgraph: (body, identifier, *operands)
        if (i == 0 && n->n_args >= 2 && n->args[1].kind == CGS_ARG_STR)
            i++;
        return enter_body(sc, n, b, n->args + i + 1, n->n_args - i - 1, d);
    }
    return cgs_diag_set(d, CGS_E_UNKNOWN, "no body among the op's arguments");
}

/* wrap_with_autocast(device_type, dtype, enabled, cache_enabled, body, *args): the body runs
 * in the region (enter_body passes it on: shapes-autocast.c); a CPU region is not modelled. */
RULE(hop_autocast)
{
    if (n->n_args >= 3 && n->args[2].kind == CGS_ARG_BOOL && n->args[2].u.b) {
        const char *dev = str_of(&n->args[0]);
        if (!dev || strncmp(dev, "cuda", 4) != 0)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "autocast regions on %s are not tracked",
                                dev ? dev : "this device");
    }
    return cgs_shape_rule_hop_body(n, sc, d);
}

/* cond(pred, true_fn, false_fn, operands): the outputs of true_fn (both branches agree). */
RULE(hop_cond)
{
    if (n->n_args < 4 || n->args[3].kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "cond: expected (pred, true_fn, false_fn, operands)");
    return enter_body(sc, n, body_of(sc, &n->args[1]), n->args[3].u.items, n->args[3].n, d);
}

/* while_loop(cond_fn, body_fn, carried_inputs, additional_inputs): the body's outputs. */
RULE(hop_while)
{
    const struct cgs_arg *ops;
    struct cgs_arg *all;
    uint32_t nc, na, i;

    if (n->n_args < 3 || n->args[2].kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "while_loop: expected (cond, body, carried, "
                                              "additional)");
    nc = n->args[2].n;
    na = n->n_args >= 4 && n->args[3].kind == CGS_ARG_LIST ? n->args[3].n : 0;
    all = cgs_arena_calloc(sc->ar, nc + na ? nc + na : 1, sizeof(*all));
    for (i = 0; i < nc; i++)
        all[i] = n->args[2].u.items[i];
    for (i = 0; i < na; i++)
        all[nc + i] = n->args[3].u.items[i];
    ops = all;
    return enter_body(sc, n, body_of(sc, &n->args[1]), ops, nc + na, d);
}

/* Whether the op a higher-order op wraps returns nothing: declared "none" (lib/readers/opdecl.h), or
 * the registry's NOVALUE. */
static bool wrapped_op_returns_none(const struct cgs_shape_ctx *sc, const char *target)
{
    const struct cgs_decl *dc = cgs_opdecls_find(sc->decls, target);

    return (dc && dc->n_outs == 1 && dc->outs[0].none) ||
           cgs_op_target_has(target, CGS_OPF_NOVALUE);
}

/* A wrapped op's result must be None (declared, or the registry's NOVALUE) for an
 * auto_functionalized to be followed: 0, or the message saying to declare it. */
static int wrapped_none_or_say(const struct cgs_shape_ctx *sc, const char *target,
                        struct cgs_diag *d)
{
    if (wrapped_op_returns_none(sc, target))
        return 0;
    return cgs_diag_set(d, CGS_E_UNKNOWN,
                        "auto_functionalized: the result of '%s' is not known (declare it with "
                        "--ops)",
                        target);
}

/* auto_functionalized_v2(op, **kwargs, _all_bases): (the op's result, then each base as a
 * fresh copy with its strides). The op's result comes from a declaration (lib/readers/opdecl.h) or
 * the registry's "returns None"; otherwise it is not known. */
RULE(hop_auto_functionalized_v2)
{
    const struct cgs_arg *op = Ai(sc, 0), *bases = NULL;
    const char *target = op && (op->kind == CGS_ARG_REPR || op->kind == CGS_ARG_STR) ? op->u.s : NULL;
    struct cgs_val *l;
    uint32_t i;

    bases = cgs_node_kwarg(n, "_all_bases");
    if (!target || !bases || bases->kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "auto_functionalized: op or bases not known");
    TRY(wrapped_none_or_say(sc, target, d));
    l = new_list(sc, 1 + bases->n);
    l->u.items[0].kind = CGS_VAL_NONE;
    for (i = 0; i < bases->n; i++)
        if (clone_preserve_strides(sc, &l->u.items[1 + i], &bases->u.items[i]))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "auto_functionalized: base %u not known", i);
    sc->out = l;
    return 0;
}

/* auto_functionalized(op, **kwargs), torch's v1: (the op's result, then a copy of each argument
 * the op mutates, in its schema's order, strides kept). Which arguments it mutates comes from
 * a declaration ("mutates y", lib/readers/opdecl.h). */
RULE(hop_auto_functionalized)
{
    const struct cgs_arg *op = Ai(sc, 0);
    const char *target = op && (op->kind == CGS_ARG_REPR || op->kind == CGS_ARG_STR) ? op->u.s : NULL;
    const struct cgs_decl *dc = target ? cgs_opdecls_find(sc->decls, target) : NULL;
    struct cgs_val *l;

    if (!target)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "auto_functionalized: the op is not known");
    if (!dc || !dc->n_mutates)
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "auto_functionalized: which arguments '%s' mutates is not known "
                            "(declare it with --ops: '%s: none mutates ARG')",
                            target, target);
    TRY(wrapped_none_or_say(sc, target, d));
    l = new_list(sc, 1 + dc->n_mutates);
    l->u.items[0].kind = CGS_VAL_NONE;
    for (uint32_t i = 0; i < dc->n_mutates; i++) {
        const struct cgs_arg *a = cgs_node_kwarg(n, dc->mutates[i]);
        if (is_none(a))
            l->u.items[1 + i].kind = CGS_VAL_NONE;
        else if (clone_preserve_strides(sc, &l->u.items[1 + i], a))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "auto_functionalized: argument '%s' not known",
                                dc->mutates[i]);
    }
    sc->out = l;
    return 0;
}

RULE(hop_triton_functional)
{
    const struct cgs_arg *kw = cgs_node_kwarg(n, "kwargs"), *clone = cgs_node_kwarg(n, "tensors_to_clone");
    struct cgs_val *l;
    uint32_t i, k = 0, count = 0;

    if (!kw || kw->kind != CGS_ARG_DICT || !clone || clone->kind != CGS_ARG_LIST)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "triton_kernel_wrapper_functional: expected a "
                                              "kwargs dict and tensors_to_clone");
    for (i = 0; i < kw->n / 2; i++)
        count += cloned_arg(kw, clone, i) != NULL;
    l = new_list(sc, count);
    for (i = 0; i < kw->n / 2; i++) {
        const char *name = cloned_arg(kw, clone, i);
        if (!name)
            continue;
        if (clone_preserve_strides(sc, &l->u.items[k++], &kw->u.items[2 * i + 1]))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "triton kernel argument '%s' not known", name);
    }
    sc->out = l;
    return 0;
}

/* with_effects(token, op, *args): (a new token like the old one, the op's result); the result
 * comes from a declaration or the registry's "returns nothing". */
RULE(hop_with_effects)
{
    const struct cgs_val *tok;
    const struct cgs_arg *op = n->n_args >= 2 ? &n->args[1] : NULL;
    const char *target = op && (op->kind == CGS_ARG_REPR || op->kind == CGS_ARG_STR) ? op->u.s : NULL;
    struct cgs_val *l;

    if (n->n_args < 2 || !target)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "with_effects: expected (token, op, *args)");
    tok = node_val(sc, &n->args[0]);
    if (!tok)
        return cgs_diag_set(d, CGS_E_UNKNOWN, "with_effects: the token is not known");
    if (!wrapped_op_returns_none(sc, target))
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "with_effects: the result of '%s' is not known (declare it with --ops)",
                            target);
    l = new_list(sc, 2);
    l->u.items[0] = *tok;
    l->u.items[1].kind = CGS_VAL_NONE;
    sc->out = l;
    return 0;
}
