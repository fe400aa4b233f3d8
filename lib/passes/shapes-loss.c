/*
 * Shape rules (lib/passes/shapes.h), losses: nll, mse, margin losses, cosine similarity, pairwise
 * distance. Helpers come from the core (shapes-int.h); docs/shape-rules.md lists every rule's
 * file.
 */
#include "lib/passes/shapes-int.h"

RULE(nll_loss)
{
    const struct cgs_tensor *t;
    int64_t reduction = 1;
    sym_t batch[1];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    int_const(sc, A(sc, "reduction"), &reduction);
    sc->out = new_list(sc, 2);
    if (reduction == 0 && t->ndim == 2) {
        batch[0] = t->shape[0];
        fill_dense(sc, &sc->out->u.items[0], 1, batch, t->dtype, t->device, false);
    } else {
        fill_dense(sc, &sc->out->u.items[0], 0, batch, t->dtype, t->device, false);
    }
    fill_dense(sc, &sc->out->u.items[1], 0, batch, t->dtype, t->device, false);
    return 0;
}

RULE(mse_loss)
{
    struct operand o[2];
    sym_t shape[NDIM_MAX];
    uint32_t cnt, nd;
    int64_t reduction = 1;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "mse_loss needs two tensors");
    int_const(sc, A(sc, "reduction"), &reduction);
    TRY(broadcast(sc, o, 2, shape, &nd, d));
    out_dense(sc, reduction == 0 ? nd : 0, shape, result_type(o, 2), o[0].t->device, false);
    return 0;
}

static int loss_reduction(struct cgs_shape_ctx *sc, int64_t *red, struct cgs_diag *d);

/* multi_margin_loss(self [N, C] or [C], target, ..., reduction): [N] for none, else 0-dim. */
RULE(multi_margin_loss)
{
    const struct cgs_tensor *t;
    int64_t red;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(loss_reduction(sc, &red, d));
    if (red == 0 && t->ndim == 2)
        out_dense(sc, 1, t->shape, t->dtype, t->device, false);
    else
        out_dense(sc, 0, NULL, t->dtype, t->device, false);
    return 0;
}

/* cosine_similarity(x1, x2, dim) / pairwise_distance(x1, x2, ..., keepdim): a reduction of
 * the broadcast shape over dim (the last dim for the distance), contiguous. */
static int broadcast_reduce(struct cgs_shape_ctx *sc, const char *dim_name, bool keep,
                     struct cgs_diag *d)
{
    struct operand o[2];
    sym_t shape[NDIM_MAX], out[NDIM_MAX];
    uint32_t cnt, nd, dim, i, k = 0;
    int64_t dv = -1;

    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t || !o[1].t)
        return cgs_diag_set(d, CGS_E_INVAL, "expected two tensors");
    TRY(broadcast(sc, o, 2, shape, &nd, d));
    if (dim_name && !is_none(A(sc, dim_name)) && !int_const(sc, A(sc, dim_name), &dv))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "dim not constant");
    if (nd == 0 || !wrap_dim(dv, nd, &dim))
        return cgs_diag_set(d, CGS_E_INVAL, "dim out of range");
    for (i = 0; i < nd; i++) {
        if (i != dim)
            out[k++] = shape[i];
        else if (keep)
            out[k++] = K(sc, 1);
    }
    out_dense(sc, k, out, result_type(o, 2), o[0].t->device, false);
    return 0;
}

RULE(cosine_similarity) { (void)n; return broadcast_reduce(sc, "dim", false, d); }

RULE(pairwise_distance)
{
    (void)n;
    return broadcast_reduce(sc, NULL, bool_of(A(sc, "keepdim"), false), d);
}

/* torch.nn.functional losses with a string reduction: 'none' gives the per-element (or
 * per-sample) values, anything else a 0-dim tensor. elementwise: the broadcast of the first
 * `nops` tensor arguments; per-sample: the first argument's batch dim ([N], or 0-dim for an
 * unbatched input). */
static int py_loss(struct cgs_shape_ctx *sc, uint32_t nops, bool per_sample, struct cgs_diag *d)
{
    struct operand o[3];
    uint32_t cnt;
    int64_t red;

    TRY(operands(sc, nops, o, &cnt, d));
    if (cnt != nops || !o[0].t)
        return cgs_diag_set(d, CGS_E_INVAL, "loss: expected %u tensors", nops);
    TRY(loss_reduction(sc, &red, d));
    if (red != 0) {
        out_dense(sc, 0, NULL, o[0].t->dtype, o[0].t->device, false);
        return 0;
    }
    if (per_sample) {
        if (o[0].t->ndim >= 2)
            out_dense(sc, 1, o[0].t->shape, o[0].t->dtype, o[0].t->device, false);
        else
            out_dense(sc, 0, NULL, o[0].t->dtype, o[0].t->device, false);
        return 0;
    }
    {
        sym_t shape[NDIM_MAX];
        uint32_t nd;
        TRY(broadcast(sc, o, cnt, shape, &nd, d));
        out_dense(sc, nd, shape, o[0].t->dtype, o[0].t->device, false);
    }
    return 0;
}

RULE(loss_elementwise2) { (void)n; return py_loss(sc, 2, false, d); }

RULE(loss_elementwise3) { (void)n; return py_loss(sc, 3, false, d); }

RULE(loss_per_sample) { (void)n; return py_loss(sc, 2, true, d); }

RULE(loss_per_sample3) { (void)n; return py_loss(sc, 3, true, d); }

/* nll_loss / cross_entropy(input [N, C, ...], target, ...): 'none' gives target's shape. */
RULE(nll_like)
{
    const struct cgs_tensor *in, *tg;
    int64_t red;

    (void)n;
    // F.nll_loss / F.cross_entropy name it input; aten.nll_loss, nll_loss_nd and
    // cross_entropy_loss self
    TRY(need_tensor(sc, find_param(sc, "input") >= 0 ? "input" : "self", &in, d));
    TRY(need_tensor(sc, "target", &tg, d));
    TRY(loss_reduction(sc, &red, d));
    if (red != 0) {
        out_dense(sc, 0, NULL, in->dtype, in->device, false);
        return 0;
    }
    if (dt_cat(tg->dtype) >= 2) // probabilities as the target: per-sample over dim 1
        return cgs_diag_set(d, CGS_E_UNKNOWN, "cross_entropy with probabilities is not tracked");
    out_dense(sc, tg->ndim, tg->shape, in->dtype, in->device, false);
    return 0;
}

/* multilabel_margin_loss_forward(self, target, reduction) -> (output, is_target): output as
 * the loss gives it (per sample for 'none' on a batch), is_target target's shape in self's
 * dtype. */
RULE(multilabel_margin_forward)
{
    const struct cgs_tensor *t, *tg;
    int64_t red;

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "target", &tg, d));
    TRY(loss_reduction(sc, &red, d));
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], red == 0 && t->ndim == 2 ? 1 : 0, t->shape, t->dtype,
               t->device, false);
    fill_dense(sc, &sc->out->u.items[1], tg->ndim, tg->shape, t->dtype, t->device, false);
    return 0;
}

/* nll_loss2d_forward(self [N, C, H, W], target [N, H, W], weight, reduction, ignore_index) ->
 * (output, total_weight): target's shape for 'none', else 0-dim; total_weight 0-dim. */
RULE(nll_loss2d)
{
    const struct cgs_tensor *t, *tg;
    int64_t red;
    sym_t none[1];

    (void)n;
    TRY(need_tensor(sc, "self", &t, d));
    TRY(need_tensor(sc, "target", &tg, d));
    TRY(loss_reduction(sc, &red, d));
    sc->out = new_list(sc, 2);
    if (red == 0)
        fill_dense(sc, &sc->out->u.items[0], tg->ndim, tg->shape, t->dtype, t->device, false);
    else
        fill_dense(sc, &sc->out->u.items[0], 0, none, t->dtype, t->device, false);
    fill_dense(sc, &sc->out->u.items[1], 0, none, t->dtype, t->device, false);
    return 0;
}

/*
 * A loss's reduction: ATen's enum (0 none, 1 mean, 2 sum) or torch.nn.functional's string
 * ("none", "sum", anything else reduces like "mean"); the legacy size_average / reduce
 * arguments are not tracked.
 */
static int loss_reduction(struct cgs_shape_ctx *sc, int64_t *red, struct cgs_diag *d)
{
    const struct cgs_arg *ra = A(sc, "reduction");
    const char *rs = str_of(ra);

    *red = 1;
    if (rs)
        *red = !strcmp(rs, "none") ? 0 : !strcmp(rs, "sum") ? 2 : 1;
    else if (!is_none(ra) && !int_const(sc, ra, red))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "loss: reduction not constant");
    if (!is_none(A(sc, "size_average")) || !is_none(A(sc, "reduce")))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "loss: legacy size_average/reduce");
    return 0;
}

/* Pointwise losses (self, target, ..., reduction): elementwise when reduction is 0 (none),
 * else a 0-dim tensor. */
RULE(pointwise_loss)
{
    struct operand o[2];
    uint32_t cnt;
    int64_t red;
    enum cgs_dtype dt;

    (void)n;
    TRY(operands(sc, 2, o, &cnt, d));
    if (cnt != 2 || !o[0].t)
        return cgs_diag_set(d, CGS_E_INVAL, "loss: expected self and target tensors");
    TRY(loss_reduction(sc, &red, d));
    dt = result_type(o, 2);
    if (red != 0) {
        out_dense(sc, 0, NULL, dt, o[0].t->device, false);
        return 0;
    }
    return elementwise(sc, o, 2, dt, false, d);
}
