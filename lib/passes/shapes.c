/*
 * Shape inference (see lib/passes/shapes.h) and the shape rules of lib/ops/op-list.h.
 *
 * Rules follow PyTorch's FakeTensor propagation: meta functions, the
 * decompositions registered as meta kernels, and FakeTensor's own fast
 * paths. Where PyTorch asks a symbolic question (is this stride smaller,
 * is this size 1) with backed symbols, it answers it at the symbols' hints
 * and guards; so do we: every comparison below evaluates at the hints, while
 * the sizes and strides we produce stay symbolic.
 *
 * Limits, known and left: PyTorch specializes a size symbol when a guard pins
 * it to a constant (a view to a literal size equal to a symbolic dim, some
 * paddings) and from then on prints every expression with the constant. In a
 * dumped graph that includes the inputs' values (a SymNode prints with the
 * ShapeEnv's replacements applied), so the pass sees the constant already
 * (tests/data/shapes.test checks two such cases recorded on torch). Values
 * printed before the guard would keep the symbol here, agreeing at the hint.
 * item() and other data-dependent values are partial (no unbacked symbols).
 */
#include "lib/passes/shapes-int.h"

const char *const cgs_shape_status_names[CGS_SHAPE_STATUS_COUNT] = {
    [CGS_SHAPE_OK] = "ok",
    [CGS_SHAPE_PARTIAL] = "partial",
    [CGS_SHAPE_UNKNOWN_OP] = "unknown_op",
    [CGS_SHAPE_ERROR] = "error",
};

/* ---- the pass ---------------------------------------------------------------------------- */

const char *arena_msg(struct cgs_arena *ar, const char *s)
{
    return cgs_arena_strdup(ar, s);
}

/* The argument a declaration names: a position, or a keyword. */
const struct cgs_val *decl_arg(struct cgs_shape_ctx *sc, const struct cgs_node *n,
                               const struct cgs_decl_ref *ref)
{
    if (ref->pos >= 0)
        return (uint32_t)ref->pos < n->n_args ? node_val(sc, &n->args[ref->pos]) : NULL;
    for (uint32_t k = 0; k < n->n_kwargs; k++)
        if (!strcmp(n->kwargs[k].key, ref->name))
            return node_val(sc, &n->kwargs[k].val);
    return NULL;
}

void ref_text(const struct cgs_decl_ref *ref, char *buf, size_t n)
{
    if (ref->pos >= 0)
        snprintf(buf, n, "argument %d", ref->pos);
    else
        snprintf(buf, n, "argument '%s'", ref->name);
}

/* A declared operator's value (lib/readers/opdecl.h). */
int infer_declared(struct cgs_shape_ctx *sc, const struct cgs_node *n,
                   const struct cgs_decl *dc, struct cgs_diag *d)
{
    struct cgs_val *list = dc->n_outs > 1 ? new_list(sc, dc->n_outs) : NULL;
    char what[300];

    for (uint32_t k = 0; k < dc->n_outs; k++) {
        const struct cgs_decl_out *o = &dc->outs[k];
        const struct cgs_val *like;
        sym_t shape[NDIM_MAX];
        enum cgs_dtype dt;
        struct cgs_val *v = list ? &list->u.items[k] : NULL;
        if (o->none) {
            if (!v)
                v = new_val(sc, CGS_VAL_NONE);
            else
                v->kind = CGS_VAL_NONE;
            if (!list)
                sc->out = v;
            continue;
        }
        if (o->unknown) {
            if (!list)
                return cgs_diag_set(d, CGS_E_UNKNOWN, "declared unknown (%s:%u)", dc->file,
                                    dc->line);
            v->kind = CGS_VAL_TENSOR;
            memset(&v->u.t, 0, sizeof(v->u.t));
            v->u.t.dtype = CGS_DTYPE_UNKNOWN;
            v->u.t.ndim = CGS_NDIM_UNKNOWN;
            continue;
        }
        like = decl_arg(sc, n, &o->like);
        ref_text(&o->like, what, sizeof(what));
        if (!like)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "%s (declared in %s:%u) is not known", what,
                                dc->file, dc->line);
        if (like->kind != CGS_VAL_TENSOR || !tensor_known(&like->u.t))
            return cgs_diag_set(d, CGS_E_UNKNOWN, "%s (declared in %s:%u) is not a known tensor",
                                what, dc->file, dc->line);
        uint32_t rank = o->rank ? (uint32_t)o->rank - 1 : like->u.t.ndim;
        for (uint32_t i = 0; i < rank; i++)
            shape[i] = i < like->u.t.ndim ? like->u.t.shape[i] : NULL;
        dt = like->u.t.dtype;
        for (uint32_t m = 0; m < o->n_mods; m++) {
            const struct cgs_decl_mod *md = &o->mods[m];
            uint32_t w;
            if (md->kind == CGS_DECL_DTYPE) {
                dt = md->dtype;
                continue;
            }
            if (!wrap_dim(md->dim, rank, &w) || !rank)
                return cgs_diag_set(d, CGS_E_INVAL, "dim %d out of range for rank %u (%s:%u)",
                                    md->dim, rank, dc->file, dc->line);
            if (md->from_arg) {
                const struct cgs_val *of = decl_arg(sc, n, &md->of);
                uint32_t w2;
                ref_text(&md->of, what, sizeof(what));
                if (!of || of->kind != CGS_VAL_TENSOR || !tensor_known(&of->u.t))
                    return cgs_diag_set(d, CGS_E_UNKNOWN, "%s (%s:%u) is not a known tensor",
                                        what, dc->file, dc->line);
                if (!wrap_dim(md->of_dim, of->u.t.ndim, &w2) || !of->u.t.ndim)
                    return cgs_diag_set(d, CGS_E_INVAL, "dim %d of %s out of range (%s:%u)",
                                        md->of_dim, what, dc->file, dc->line);
                shape[w] = of->u.t.shape[w2];
            } else {
                shape[w] = K(sc, md->size);
            }
        }
        ref_text(&o->like, what, sizeof(what));
        for (uint32_t i = 0; i < rank; i++)
            if (!shape[i])
                return cgs_diag_set(d, CGS_E_UNKNOWN,
                                    "dim %u of output %u is past %s's rank and not declared "
                                    "(%s:%u)",
                                    i, k, what, dc->file, dc->line);
        {
            bool same = !o->rank;
            for (uint32_t m = 0; m < o->n_mods; m++)
                same = same && o->mods[m].kind == CGS_DECL_DTYPE;
            // no size changed: torch.empty_like (a dense layout kept), as fake impls write it;
            // otherwise a new contiguous tensor (new_empty)
            if (same) {
                TRY(copy_like(sc, &like->u.t, dt, NULL, NULL));
                if (list)
                    *v = *sc->out;
                continue;
            }
        }
        if (list)
            fill_dense(sc, v, rank, shape, dt, like->u.t.device, false);
        else
            out_dense(sc, rank, shape, dt, like->u.t.device, false);
    }
    if (list)
        sc->out = list;
    for (uint32_t k = 0; k < dc->n_outs; k++)
        if (dc->outs[k].unknown)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "output %u declared unknown (%s:%u)", k,
                                dc->file, dc->line);
    return 0;
}

/*
 * What every rule's result must be, whatever the family (a broken one is a bug in cgscope, not
 * bad input: it aborts with the node named): a tensor's rank within CGS_MAX_NDIM, its shape
 * array there for a known rank, strides and shape of the same rank; lists nested boundedly.
 */
static void check_result(const struct cgs_val *v, const struct cgs_node *n, unsigned depth)
{
    if (!v)
        return;
    if (depth > 64)
        CGS_BUG("shape rule for %s: a result nested past 64 lists", n->name);
    if (v->kind == CGS_VAL_TENSOR) {
        const struct cgs_tensor *t = &v->u.t;
        if (t->ndim != CGS_NDIM_UNKNOWN && t->ndim > CGS_MAX_NDIM)
            CGS_BUG("shape rule for %s: rank %u past CGS_MAX_NDIM", n->name, t->ndim);
        if (t->ndim != CGS_NDIM_UNKNOWN && t->ndim && !t->shape)
            CGS_BUG("shape rule for %s: rank %u without a shape", n->name, t->ndim);
    } else if (v->kind == CGS_VAL_LIST) {
        if (v->n && !v->u.items)
            CGS_BUG("shape rule for %s: a list of %u without items", n->name, v->n);
        for (uint32_t i = 0; i < v->n; i++)
            check_result(&v->u.items[i], n, depth + 1);
    }
}

/* Whether a recorded value has a tensor whose storage offset the record does not hold (a
 * printed graph records none). */
static bool lacks_offset(const struct cgs_val *v)
{
    if (v->kind == CGS_VAL_TENSOR)
        return !v->u.t.storage_offset;
    for (uint32_t k = 0; v->kind == CGS_VAL_LIST && k < v->n; k++)
        if (lacks_offset(&v->u.items[k]))
            return true;
    return false;
}

/* A copy of v whose tensors without an offset start at 0, as a new tensor does. */
static const struct cgs_val *at_offset_zero(struct cgs_shape_ctx *sc, const struct cgs_val *v)
{
    struct cgs_val *c = cgs_arena_alloc(sc->ar, sizeof(*c));
    *c = *v;
    if (v->kind == CGS_VAL_TENSOR && !v->u.t.storage_offset) {
        c->u.t.storage_offset = K(sc, 0);
    } else if (v->kind == CGS_VAL_LIST && v->n) {
        c->u.items = cgs_arena_alloc(sc->ar, v->n * sizeof(*c->u.items));
        for (uint32_t k = 0; k < v->n; k++)
            c->u.items[k] = *at_offset_zero(sc, &v->u.items[k]);
    }
    return c;
}

/*
 * The value a node's users see when the pass reads the records: the recorded one. A printed
 * graph's records hold no storage offset, and a value without one is not fully known: where
 * the inferred value equals the record (its offset inferred from the inputs), that one; where
 * nothing was inferred and the node makes a new tensor (an operator that is no view, or one
 * cgscope does not know), the record at offset 0; a view's record keeps its offset unknown.
 */
static const struct cgs_val *seen_value(struct cgs_shape_ctx *sc, const struct cgs_node *n,
                                        const struct cgs_shape_node *r)
{
    enum cgs_op op = (enum cgs_op)n->op_id;
    bool fresh;
    if (!lacks_offset(n->val))
        return n->val;
    if (r->val && r->cmp == CGS_SHAPE_CMP_MATCH)
        return r->val;
    if ((unsigned)op >= CGS_OP_COUNT)
        op = CGS_OP_UNKNOWN;
    fresh = op == CGS_OP_UNKNOWN ? n->op == CGS_NODE_CALL_FUNCTION
                                 : !(cgs_ops[op].flags & CGS_OPF_VIEW) &&
                                       !(n->target && !strcmp(n->target, "operator.getitem"));
    return fresh ? at_offset_zero(sc, n->val) : n->val;
}

void infer_node(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct cgs_shape_node *r)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct op_slot *slot = &sc->ops[((uintptr_t)n->target >> 3) & (OP_SLOTS - 1)];
    enum cgs_op op;
    int rc = 0;

    if (slot->target != n->target || !n->target) {
        slot->target = n->target;
        slot->suggested = slot->decl_looked = false;
    }
    op = (enum cgs_op)n->op_id; // resolved when the graph was linked
    if ((unsigned)op >= CGS_OP_COUNT)
        op = CGS_OP_UNKNOWN;

    r->val = NULL;
    if (sc->decls && sc->decls->n &&
        (n->op == CGS_NODE_CALL_FUNCTION || n->op == CGS_NODE_CALL_METHOD)) {
        const struct cgs_decl *dc;
        if (!slot->decl_looked) {
            slot->decl = cgs_opdecls_find(sc->decls, n->target);
            slot->decl_looked = true;
        }
        dc = slot->decl;
        if (dc) {
            struct cgs_diag dd = CGS_DIAG_INIT;
            int drc;
            sc->out = NULL;
            drc = infer_declared(sc, n, dc, &dd);
            r->val = sc->out;
            r->status = drc == 0                ? CGS_SHAPE_OK
                        : drc == -CGS_E_UNKNOWN ? CGS_SHAPE_PARTIAL
                                                : CGS_SHAPE_ERROR;
            if (drc)
                r->reason = arena_msg(sc->ar, dd.msg);
            if (drc && drc != -CGS_E_UNKNOWN)
                r->val = NULL;
            return;
        }
    }
    if (op == CGS_OP_UNKNOWN || cgs_ops[op].infer == cgs_shape_rule_none ||
        (n->op != CGS_NODE_CALL_FUNCTION && n->op != CGS_NODE_CALL_METHOD)) {
        char msg[300];
        r->status = CGS_SHAPE_UNKNOWN_OP;
        if (op == CGS_OP_UNKNOWN && !slot->suggested &&
            (n->op == CGS_NODE_CALL_FUNCTION || n->op == CGS_NODE_CALL_METHOD)) {
            slot->suggest = cgs_op_suggest(n->target);
            slot->suggested = true;
        }
        snprintf(msg, sizeof(msg), "no shape rule for %s '%s'%s%s%s", cgs_node_op_names[n->op],
                 n->target ? n->target : "",
                 op != CGS_OP_UNKNOWN                    ? " (an operator torch 2.11 has)"
                 : slot->suggested && slot->suggest      ? "; did you mean '"
                 : " (not in cgscope's registry of torch 2.11: declare it with --ops)",
                 op == CGS_OP_UNKNOWN && slot->suggested && slot->suggest ? slot->suggest : "",
                 op == CGS_OP_UNKNOWN && slot->suggested && slot->suggest ? "'?" : "");
        r->reason = arena_msg(sc->ar, msg);
        return;
    }
    sc->op = &cgs_ops[op];
    sc->out = NULL;
    memset(&sc->rest, 0, sizeof(sc->rest));
    sc->schema = &sc->schemas[op];
    if (sc->schema->n == UINT32_MAX) {
        rc = parse_schema(sc, sc->op->schema);
        sc->schema->n = sc->n_params;
        sc->schema->p = cgs_arena_calloc(sc->ar, sc->n_params ? sc->n_params : 1, sizeof(*sc->p));
        memcpy(sc->schema->p, sc->p, sc->n_params * sizeof(*sc->p));
    } else {
        sc->n_params = sc->schema->n;
        memcpy(sc->p, sc->schema->p, sc->n_params * sizeof(*sc->p));
    }
    if (!rc)
        rc = bind_args(sc, n, &d);
    if (!rc) {
        struct ac_swap sw;
        autocast_apply(sc, n, &sw);
        rc = sc->op->infer(n, sc, &d);
        autocast_restore(sc, &sw);
    }
    if (!rc)
        check_result(sc->out, n, 0);
    r->val = sc->out;
    if (rc == 0) {
        r->status = CGS_SHAPE_OK;
        return;
    }
    if (rc == -CGS_E_UNKNOWN) {
        r->status = CGS_SHAPE_PARTIAL;
        r->reason = arena_msg(sc->ar, d.msg[0] ? d.msg : "partly known");
        return;
    }
    r->status = CGS_SHAPE_ERROR;
    r->val = NULL;
    r->reason = arena_msg(sc->ar, d.msg[0] ? d.msg : cgs_strerror(rc));
}

/*
 * A node that is not ok: find what it comes from. An input that is itself not ok (and has
 * no recorded value standing in for it) is the cause, and its root is this node's root; such
 * a node is partial with "blocked by" as its reason, never an error. Otherwise (an unknown
 * operator, a rule that gave up on known inputs) the node is a root cause itself.
 */
void blame(const struct cgs_graph *g, struct cgs_shapes *res, const struct cgs_node *n,
           struct cgs_shape_node *r, bool reinfer)
{
    uint32_t k;

    r->root = (int32_t)n->index;
    if (r->status == CGS_SHAPE_UNKNOWN_OP)
        goto done;
    for (k = 0; k < n->n_inputs; k++) {
        const struct cgs_node *in = n->inputs[k];
        const struct cgs_shape_node *ir = &res->nodes[in->index];
        char msg[400];
        if (ir->status == CGS_SHAPE_OK || ir->root < 0 || (!reinfer && in->val))
            continue;
        r->root = ir->root;
        if (ir->root != (int32_t)in->index)
            snprintf(msg, sizeof(msg), "blocked by '%s' (root cause '%s')", in->name,
                     g->nodes[ir->root]->name);
        else
            snprintf(msg, sizeof(msg), "blocked by '%s'", in->name);
        r->reason = cgs_arena_strdup(g->arena, msg);
        if (r->status == CGS_SHAPE_ERROR)
            r->status = CGS_SHAPE_PARTIAL;
        break;
    }
done:
    res->nodes[r->root].blocks++;
}

/* The caches: the top-level inference's own (about 480 KB, zeroed), a body's those of the
 * inference it is inside (one root's symbols, arena and operator tables: the same answers). */
const struct cgs_shape_ctx *nest_root(const struct cgs_shape_ctx *sc)
{
    return sc->opts && sc->opts->nest ? sc->opts->nest->root : NULL;
}

void caches_take(struct cgs_shape_ctx *sc)
{
    const struct cgs_shape_ctx *root = nest_root(sc);
    if (root) {
        sc->hints = root->hints;
        sc->ops = root->ops;
        sc->schemas = root->schemas;
        sc->small = root->small;
        sc->memo = root->memo;
        return;
    }
    sc->hints = cgs_xcalloc(HINT_SLOTS, sizeof(*sc->hints));
    sc->ops = cgs_xcalloc(OP_SLOTS, sizeof(*sc->ops));
    sc->schemas = cgs_xcalloc(CGS_OP_COUNT, sizeof(*sc->schemas));
    sc->small = cgs_xcalloc(SMALL_INTS, sizeof(*sc->small));
    sc->memo = cgs_xcalloc(MEMO_SLOTS, sizeof(*sc->memo));
    for (uint32_t i = 0; i < CGS_OP_COUNT; i++)
        sc->schemas[i].n = UINT32_MAX;
}

void caches_drop(struct cgs_shape_ctx *sc)
{
    if (nest_root(sc))
        return; /* a body's caches are its root's */
    free(sc->hints);
    free(sc->ops);
    free(sc->schemas);
    free(sc->small);
    free(sc->memo);
}

int cgs_shapes_infer(struct cgs_graph *g, const struct cgs_shapes_opts *opts,
                     struct cgs_shapes **out, struct cgs_diag *d)
{
    struct cgs_shape_ctx sc;
    struct cgs_shapes *res;
    struct cgs_buf why = CGS_BUF_INIT;
    bool reinfer = opts && opts->reinfer;
    uint32_t n_placeholders = 0;
    uint32_t i;

    *out = NULL;
    memset(&sc, 0, sizeof(sc));
    sc.g = g;
    sc.sx = g->syms;
    sc.decls = opts ? opts->decls : NULL;
    sc.opts = opts;
    sc.ar = g->arena;
    sc.vals = cgs_arena_calloc(g->arena, g->n_nodes ? g->n_nodes : 1, sizeof(*sc.vals));
    if (opts && opts->autocast_device) {
        sc.ac[0] = (struct ac_region){opts->autocast_device, opts->autocast_dtype, true};
        sc.n_ac = 1;
    }
    caches_take(&sc);
    res = cgs_arena_alloc(g->arena, sizeof(*res));
    if (res)
        res->nodes = cgs_arena_calloc(g->arena, g->n_nodes ? g->n_nodes : 1, sizeof(*res->nodes));
    if (!sc.vals || !res || !res->nodes) {
        caches_drop(&sc);
        return cgs_diag_set(d, CGS_E_NOMEM, "no memory for the shape table of %u nodes",
                            g->n_nodes);
    }
    res->n_nodes = g->n_nodes;
    res->summary.nodes = g->n_nodes;
    for (i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        struct cgs_shape_node *r = &res->nodes[i];
        switch (n->op) {
        case CGS_NODE_PLACEHOLDER:
        case CGS_NODE_GET_ATTR:
            r->val = n->val;
            if (n->op == CGS_NODE_PLACEHOLDER && opts && opts->inputs &&
                n_placeholders < opts->n_inputs && opts->inputs[n_placeholders])
                r->val = opts->inputs[n_placeholders];
            if (n->op == CGS_NODE_PLACEHOLDER)
                n_placeholders++;
            r->status = r->val ? CGS_SHAPE_OK : CGS_SHAPE_PARTIAL;
            r->root = r->val ? -1 : (int32_t)i;
            if (!r->val && n->op == CGS_NODE_GET_ATTR && subgraph_of(g, n)) {
                // a higher-order op's body: a module, no tensor value to infer
                r->status = CGS_SHAPE_OK;
                r->root = -1;
            } else if (!r->val) {
                r->reason = "input value not recorded";
                r->blocks++;
            }
            sc.vals[i] = r->val;
            r->reported = r->val;
            r->from_record = r->val && r->val == n->val;
            break;
        case CGS_NODE_OUTPUT:
            r->status = CGS_SHAPE_OK;
            r->root = -1;
            break;
        default:
            infer_node(&sc, n, r);
            autocast_track(&sc, n);
            r->root = -1;
            if (r->status != CGS_SHAPE_OK)
                blame(g, res, n, r, reinfer);
            if (r->status == CGS_SHAPE_OK || r->status == CGS_SHAPE_PARTIAL)
                res->summary.inferred++;
            if (n->val && r->val) {
                cgs_buf_reset(&why);
                r->cmp = cgs_shapes_compare(r->val, n->val, &why);
                if (r->cmp == CGS_SHAPE_CMP_MATCH) {
                    res->summary.matched++;
                } else if (r->cmp != CGS_SHAPE_CMP_NONE) {
                    res->summary.mismatched++;
                    if (!r->reason)
                        r->reason = arena_msg(g->arena, why.buf);
                }
            }
            sc.vals[i] = (!reinfer && n->val) ? seen_value(&sc, n, r) : r->val;
            r->reported = r->val;
            if (!reinfer && n->val) {
                r->reported = n->val;
                r->from_record = true;
                if (!r->val || r->cmp == CGS_SHAPE_CMP_MISMATCH ||
                    r->cmp == CGS_SHAPE_CMP_STRIDES)
                    res->summary.recorded++;
            }
            break;
        }
        switch (r->status) {
        case CGS_SHAPE_UNKNOWN_OP:
            res->summary.unknown++;
            break;
        case CGS_SHAPE_PARTIAL:
            res->summary.partial++;
            break;
        case CGS_SHAPE_ERROR:
            res->summary.errors++;
            break;
        default:
            break;
        }
    }
    cgs_buf_release(&why);
    caches_drop(&sc);
    // "validated" promises every value inferred and, where torch recorded one, equal to it
    res->summary.validated = !res->summary.unknown && !res->summary.partial &&
                             !res->summary.errors && !res->summary.mismatched;
    *out = res;
    return 0;
}

/* ---- bindings and bytes ------------------------------------------------------------------ */

int cgs_val_bytes(const struct cgs_val *v, cgs_sym_lookup_fn lookup, void *ud, int64_t *bytes)
{
    uint32_t i;

    *bytes = 0;
    if (!v)
        return -CGS_E_UNKNOWN;
    if (v->kind == CGS_VAL_LIST) {
        for (i = 0; i < v->n; i++) {
            int64_t b;
            int rc = cgs_val_bytes(&v->u.items[i], lookup, ud, &b);
            if (rc == -CGS_E_UNKNOWN && v->u.items[i].kind != CGS_VAL_TENSOR)
                continue;
            if (rc)
                return rc;
            if (*bytes > INT64_MAX - b)
                return -CGS_E_LIMIT;
            *bytes += b;
        }
        return 0;
    }
    if (v->kind != CGS_VAL_TENSOR)
        return -CGS_E_UNKNOWN;
    {
        const struct cgs_tensor *t = &v->u.t;
        int64_t total;
        if (t->ndim == CGS_NDIM_UNKNOWN || t->dtype == CGS_DTYPE_UNKNOWN || !t->shape)
            return -CGS_E_UNKNOWN;
        total = cgs_dtypes[t->dtype].itemsize;
        for (i = 0; i < t->ndim; i++) {
            int64_t s;
            int rc;
            if (!t->shape[i])
                return -CGS_E_UNKNOWN;
            rc = cgs_sym_eval(t->shape[i], lookup, ud, &s);
            if (rc)
                return rc;
            if (s < 0)
                return -CGS_E_INVAL;
            if (s && total > INT64_MAX / s)
                return -CGS_E_LIMIT;
            total *= s;
        }
        *bytes = total;
    }
    return 0;
}

const struct cgs_sym *bind_dim(struct cgs_symctx *sx, const struct cgs_sym *e,
                               cgs_sym_lookup_fn lookup, void *ud)
{
    int64_t v;

    if (!e || cgs_sym_is_int(e, &v))
        return e;
    if (cgs_sym_eval(e, lookup, ud, &v) == 0)
        return cgs_sym_int(sx, v);
    return e;
}

struct cgs_val *cgs_val_bind(const struct cgs_val *v, struct cgs_symctx *sx,
                             struct cgs_arena *arena, cgs_sym_lookup_fn lookup, void *ud)
{
    struct cgs_val *o;
    uint32_t i;

    if (!v)
        return NULL;
    o = cgs_arena_alloc(arena, sizeof(*o));
    *o = *v;
    if (v->kind == CGS_VAL_LIST) {
        o->u.items = cgs_arena_calloc(arena, v->n ? v->n : 1, sizeof(*o->u.items));
        for (i = 0; i < v->n; i++) {
            struct cgs_val *it = cgs_val_bind(&v->u.items[i], sx, arena, lookup, ud);
            o->u.items[i] = *it;
        }
    } else if (v->kind == CGS_VAL_TENSOR && v->u.t.ndim != CGS_NDIM_UNKNOWN) {
        struct cgs_tensor *t = &o->u.t;
        uint32_t nd = v->u.t.ndim;
        t->shape = cgs_arena_calloc(arena, nd ? nd : 1, sizeof(*t->shape));
        t->stride = v->u.t.stride ? cgs_arena_calloc(arena, nd ? nd : 1, sizeof(*t->stride)) : NULL;
        for (i = 0; i < nd; i++) {
            t->shape[i] = bind_dim(sx, v->u.t.shape ? v->u.t.shape[i] : NULL, lookup, ud);
            if (t->stride)
                t->stride[i] = bind_dim(sx, v->u.t.stride[i], lookup, ud);
        }
        t->storage_offset = bind_dim(sx, v->u.t.storage_offset, lookup, ud);
    } else if (v->kind == CGS_VAL_SYMINT) {
        const struct cgs_sym *e = bind_dim(sx, v->u.s.sym, lookup, ud);
        int64_t c;
        if (e && cgs_sym_is_int(e, &c)) {
            o->kind = CGS_VAL_INT;
            o->u.i = c;
        }
    } else if (v->kind == CGS_VAL_SYMFLOAT) {
        double f;
        if (cgs_sym_eval_float_text(v->u.s.text, lookup, ud, &f) == 0) {
            o->kind = CGS_VAL_FLOAT;
            o->u.f = f;
        }
    }
    return o;
}
