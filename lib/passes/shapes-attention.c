/*
 * Shape rules (lib/passes/shapes.h), attention: scaled_dot_product_attention and its
 * efficient/flash kernels, multi-head attention. Helpers come from the core (shapes-int.h);
 * docs/shape-rules.md lists every rule's file.
 */
#include "lib/passes/shapes-int.h"

/* Attention output [B, H, L, Ev] laid out as [B, L, H, Ev] (transposed back). */
static struct cgs_tensor *fill_bshd(struct cgs_shape_ctx *sc, struct cgs_val *v,
                             const struct cgs_tensor *q, const struct cgs_tensor *val)
{
    struct cgs_tensor *o = fill_tensor(sc, v, q->ndim, q->dtype, q->device);
    static const uint32_t perm4[] = {0, 2, 1, 3};

    dimcpy(o->shape, q->shape, q->ndim);
    o->shape[q->ndim - 1] = val->shape[val->ndim - 1];
    if (q->ndim == 4)
        permuted_strides(sc, 4, o->shape, perm4, o->stride);
    else
        contiguous_strides(sc, q->ndim, o->shape, o->stride);
    return o;
}

/* e rounded up to a multiple of m (torch's meta functions: a logsumexp padded to 32, an
   attention bias's last size to 16). */
static sym_t round_up(struct cgs_shape_ctx *sc, sym_t e, int64_t m)
{
    int64_t v;

    if (cgs_sym_is_int(e, &v))
        return K(sc, (v + m - 1) / m * m);
    return S_mul(sc, S_div(sc, S_add(sc, e, K(sc, m - 1)), K(sc, m)), K(sc, m));
}

/* The query, key and value arguments, each a known tensor. */
static int need_qkv(struct cgs_shape_ctx *sc, const struct cgs_tensor *t[3], struct cgs_diag *d)
{
    static const char *const names[3] = {"query", "key", "value"};

    for (int i = 0; i < 3; i++)
        TRY(need_tensor(sc, names[i], &t[i], d));
    return 0;
}

RULE(sdpa)
{
    const struct cgs_tensor *q, *k, *v;

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim < 2 || v->ndim < 2)
        return cgs_diag_set(d, CGS_E_INVAL, "attention inputs of rank < 2");
    sc->out = new_val(sc, CGS_VAL_TENSOR);
    {
        // a mask whose last stride is not 1 (an expanded padding mask) rules out the fused
        // kernels: torch takes the math path, a matmul with a contiguous result
        const struct cgs_val *mv = node_val(sc, A(sc, "attn_mask"));
        if (mv && mv->kind == CGS_VAL_TENSOR && mv->u.t.ndim > 0 && mv->u.t.stride &&
            mv->u.t.stride[mv->u.t.ndim - 1] && hv(sc, mv->u.t.stride[mv->u.t.ndim - 1]) != 1 &&
            hv(sc, mv->u.t.shape[mv->u.t.ndim - 1]) != 1) {
            sym_t shape[NDIM_MAX];
            dimcpy(shape, q->shape, q->ndim);
            shape[q->ndim - 1] = v->shape[v->ndim - 1];
            fill_dense(sc, sc->out, q->ndim, shape, q->dtype, q->device, false);
            return 0;
        }
    }
    fill_bshd(sc, sc->out, q, v);
    // on CUDA, half types without a mask go to flash attention, which keeps the query's layout
    if (q->ndim == 4 && (q->dtype == CGS_DTYPE_FLOAT16 || q->dtype == CGS_DTYPE_BFLOAT16) &&
        is_none(A(sc, "attn_mask")) && hv(sc, q->shape[3]) == hv(sc, v->shape[3]) &&
        hv(sc, q->shape[3]) <= 256 && q->device && strncmp(q->device, "cuda", 4) == 0)
        preserve_strides(sc, q, sc->out->u.t.stride);
    return 0;
}

RULE(sdpa_efficient)
{
    const struct cgs_tensor *q, *k, *v;
    sym_t lse[3];

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim != 4 || k->ndim != 4 || v->ndim != 4)
        return cgs_diag_set(d, CGS_E_INVAL, "efficient attention needs rank-4 inputs");
    sc->out = new_list(sc, 4);
    fill_bshd(sc, &sc->out->u.items[0], q, v);
    lse[0] = q->shape[0], lse[1] = q->shape[1];
    lse[2] = bool_of(A(sc, "compute_log_sumexp"), false) ? round_up(sc, q->shape[2], 32) : K(sc, 0);
    fill_dense(sc, &sc->out->u.items[1], 3, lse, CGS_DTYPE_FLOAT32, q->device, false);
    fill_dense(sc, &sc->out->u.items[2], 0, lse, CGS_DTYPE_INT64, q->device, false);
    fill_dense(sc, &sc->out->u.items[3], 0, lse, CGS_DTYPE_INT64, q->device, false);
    return 0;
}

RULE(sdpa_flash)
{
    const struct cgs_tensor *q, *k, *v;
    sym_t dims[3];

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim != 4 || k->ndim != 4 || v->ndim != 4)
        return cgs_diag_set(d, CGS_E_INVAL, "flash attention needs rank-4 inputs");
    sc->out = new_list(sc, 9);
    // the output keeps the query's layout (empty_like of the transposed query)
    {
        struct cgs_tensor *o = fill_tensor(sc, &sc->out->u.items[0], 4, q->dtype, q->device);
        dimcpy(o->shape, q->shape, 4);
        preserve_strides(sc, q, o->stride);
    }
    dims[0] = q->shape[0], dims[1] = q->shape[1], dims[2] = q->shape[2];
    fill_dense(sc, &sc->out->u.items[1], 3, dims, CGS_DTYPE_FLOAT32, q->device, false);
    sc->out->u.items[2].kind = CGS_VAL_NONE;
    sc->out->u.items[3].kind = CGS_VAL_NONE;
    set_symint(sc, &sc->out->u.items[4], q->shape[2]);
    set_symint(sc, &sc->out->u.items[5], k->shape[2]);
    // philox seed and offset
    dims[0] = K(sc, 2);
    fill_dense(sc, &sc->out->u.items[6], 1, dims, CGS_DTYPE_UINT64, q->device, false);
    fill_dense(sc, &sc->out->u.items[7], 0, dims, CGS_DTYPE_UINT64, q->device, false);
    // the debug mask, empty unless asked for
    if (bool_of(A(sc, "return_debug_mask"), false))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "flash attention debug mask is not tracked");
    dims[0] = K(sc, 0);
    fill_dense(sc, &sc->out->u.items[8], 1, dims, q->dtype, q->device, false);
    return 0;
}

/*
 * aten._efficient_attention_forward(query [B, M, H, K], key [B, N, H, K], value [B, N, H, Kv],
 * ...): the kernel's own layout, BMHK. Output [B, M, H, Kv] contiguous; logsumexp [B (or
 * the varlen batch, cu_seqlens_q's length - 1), H, M rounded up to 32, or 0 when not asked
 * for] float32; philox seed and offset int64 scalars; then the longest query and key
 * sequences as SymInts (M and N, or max_seqlen_q/k with varlen inputs).
 */
RULE(efficient_attention_fwd)
{
    const struct cgs_tensor *q, *k, *v, *cu;
    sym_t lse[3], maxq, maxk;

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim != 4 || k->ndim != 4 || v->ndim != 4)
        return cgs_diag_set(d, CGS_E_INVAL, "efficient attention takes [B, M, H, K] tensors");
    maxq = q->shape[1], maxk = k->shape[1];
    lse[0] = q->shape[0], lse[1] = q->shape[2];
    if (!is_none(A(sc, "cu_seqlens_q"))) {
        TRY(need_tensor(sc, "cu_seqlens_q", &cu, d));
        if (cu->ndim != 1)
            return cgs_diag_set(d, CGS_E_INVAL, "cu_seqlens_q is not 1-D");
        lse[0] = S_sub(sc, cu->shape[0], K(sc, 1));
        TRY(int_of(sc, A(sc, "max_seqlen_q"), &maxq));
    }
    if (!is_none(A(sc, "max_seqlen_k")))
        TRY(int_of(sc, A(sc, "max_seqlen_k"), &maxk));
    sc->out = new_list(sc, 6);
    {
        sym_t shape[4];
        dimcpy(shape, q->shape, 3);
        shape[3] = v->shape[3];
        fill_dense(sc, &sc->out->u.items[0], 4, shape, q->dtype, q->device, false);
    }
    lse[2] = bool_of(A(sc, "compute_log_sumexp"), false) ? round_up(sc, maxq, 32) : K(sc, 0);
    fill_dense(sc, &sc->out->u.items[1], 3, lse, CGS_DTYPE_FLOAT32, q->device, false);
    fill_dense(sc, &sc->out->u.items[2], 0, lse, CGS_DTYPE_INT64, q->device, false);
    fill_dense(sc, &sc->out->u.items[3], 0, lse, CGS_DTYPE_INT64, q->device, false);
    set_symint(sc, &sc->out->u.items[4], maxq);
    set_symint(sc, &sc->out->u.items[5], maxk);
    return 0;
}

/*
 * aten._flash_attention_forward(query [B, M, H, K] or varlen [T, H, K], key, value,
 * cum_seq_q, cum_seq_k, max_q, max_k, ...): output like the query (its strides kept);
 * logsumexp [B, H, M] float32 ([H, total_q] with varlen inputs);
 * the RNG state uint64 [2] and an unused uint64 scalar; the debug mask, empty in the
 * query's dtype unless asked for.
 */
RULE(flash_attention_fwd)
{
    const struct cgs_tensor *q, *cu;
    sym_t dims[3];

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    if (q->ndim != 4 && q->ndim != 3)
        return cgs_diag_set(d, CGS_E_INVAL, "flash attention takes [B, M, H, K] or [T, H, K]");
    if (bool_of(A(sc, "return_debug_mask"), false))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "flash attention debug mask is not tracked");
    sc->out = new_list(sc, 5);
    if (!is_none(A(sc, "cum_seq_q"))) {
        // varlen: the logsumexp is [H, total_q]
        TRY(need_tensor(sc, "cum_seq_q", &cu, d));
        if (cu->ndim != 1)
            return cgs_diag_set(d, CGS_E_INVAL, "cum_seq_q is not 1-D");
        dims[0] = q->shape[q->ndim - 2], dims[1] = q->shape[0];
        fill_dense(sc, &sc->out->u.items[1], 2, dims, CGS_DTYPE_FLOAT32, q->device, false);
    } else if (q->ndim == 4) {
        dims[0] = q->shape[0], dims[1] = q->shape[2], dims[2] = q->shape[1];
        fill_dense(sc, &sc->out->u.items[1], 3, dims, CGS_DTYPE_FLOAT32, q->device, false);
    } else {
        return cgs_diag_set(d, CGS_E_INVAL, "a 3-D flash attention query needs cum_seq_q");
    }
    {
        struct cgs_tensor *o = fill_tensor(sc, &sc->out->u.items[0], q->ndim, q->dtype, q->device);
        dimcpy(o->shape, q->shape, q->ndim);
        preserve_strides(sc, q, o->stride);
    }
    dims[0] = K(sc, 2);
    fill_dense(sc, &sc->out->u.items[2], 1, dims, CGS_DTYPE_UINT64, q->device, false);
    fill_dense(sc, &sc->out->u.items[3], 0, dims, CGS_DTYPE_UINT64, q->device, false);
    dims[0] = K(sc, 0);
    fill_dense(sc, &sc->out->u.items[4], 1, dims, q->dtype, q->device, false);
    return 0;
}

/* torch.empty_like(t) into *v (preserve_format: t's layout where it is dense). */
static void like_into(struct cgs_shape_ctx *sc, struct cgs_val *v, const struct cgs_tensor *t)
{
    struct cgs_val *list = sc->out; /* copy_like makes a value of its own in sc->out */
    copy_like(sc, t, CGS_DTYPE_UNKNOWN, NULL, NULL);
    *v = *sc->out;
    sc->out = list;
}

/* The gradient of an attention bias: torch.empty of the bias's sizes with the last one rounded
   up to 16, sliced back ([..., :last]): the bias's shape, the rounded-up tensor's strides. */
static void bias_grad(struct cgs_shape_ctx *sc, struct cgs_val *v, const struct cgs_tensor *b)
{
    sym_t aligned[NDIM_MAX];
    struct cgs_tensor *o;

    dimcpy(aligned, b->shape, b->ndim);
    aligned[b->ndim - 1] = round_up(sc, b->shape[b->ndim - 1], 16);
    o = fill_tensor(sc, v, b->ndim, b->dtype, b->device);
    contiguous_strides(sc, b->ndim, aligned, o->stride);
    dimcpy(o->shape, b->shape, b->ndim);
}

/*
 * aten._efficient_attention_backward(grad_out_, query, key, value, bias, ...): the gradients
 * of query, key and value like them (empty_like), or, with shared_storage_dqdkdv, three
 * slices of one [..., 3, H, K] buffer; the bias's gradient (bias_grad), or a float32 scalar
 * when there is no bias.
 */
RULE(efficient_attention_bwd)
{
    const struct cgs_tensor *t[3], *b;

    (void)n;
    TRY(need_qkv(sc, t, d));
    sc->out = new_list(sc, 4);
    if (bool_of(A(sc, "shared_storage_dqdkdv"), false)) {
        const struct cgs_tensor *q = t[0];
        sym_t chunk[NDIM_MAX], cst[NDIM_MAX];
        if (q->ndim < 2 || q->ndim + 1 > NDIM_MAX)
            return cgs_diag_set(d, CGS_E_INVAL, "efficient attention's query of rank %u", q->ndim);
        dimcpy(chunk, q->shape, q->ndim - 2);
        chunk[q->ndim - 2] = K(sc, 3);
        chunk[q->ndim - 1] = q->shape[q->ndim - 2];
        chunk[q->ndim] = q->shape[q->ndim - 1];
        contiguous_strides(sc, q->ndim + 1, chunk, cst);
        for (int i = 0; i < 3; i++) {
            struct cgs_tensor *o = fill_tensor(sc, &sc->out->u.items[i], q->ndim, q->dtype,
                                               q->device);
            dimcpy(o->shape, q->shape, q->ndim);
            dimcpy(o->stride, cst, q->ndim - 2);
            o->stride[q->ndim - 2] = cst[q->ndim - 1];
            o->stride[q->ndim - 1] = cst[q->ndim];
            o->storage_offset = S_mul(sc, K(sc, i), cst[q->ndim - 2]);
        }
    } else {
        for (int i = 0; i < 3; i++)
            like_into(sc, &sc->out->u.items[i], t[i]);
    }
    if (!is_none(A(sc, "bias"))) {
        TRY(need_tensor(sc, "bias", &b, d));
        if (!b->ndim)
            return cgs_diag_set(d, CGS_E_INVAL, "an attention bias of rank 0");
        bias_grad(sc, &sc->out->u.items[3], b);
    } else {
        fill_dense(sc, &sc->out->u.items[3], 0, NULL, CGS_DTYPE_FLOAT32, t[0]->device, false);
    }
    return 0;
}

/* aten._flash_attention_backward(grad_out, query, key, value, ...): empty_like of each; so is
   aten._scaled_dot_product_cudnn_attention_backward's (its gradients have the inputs' shapes,
   laid out as they are: tests/data/tracegraphs/attn_train). */
RULE(flash_attention_bwd)
{
    const struct cgs_tensor *t[3];

    (void)n;
    TRY(need_qkv(sc, t, d));
    sc->out = new_list(sc, 3);
    for (int i = 0; i < 3; i++)
        like_into(sc, &sc->out->u.items[i], t[i]);
    return 0;
}

/* aten._scaled_dot_product_flash_attention_backward(grad_out, query, key, value, ...): torch's
 * meta function gives empty_like of each (the kernel writes them in the inputs' layouts). */
RULE(sdpa_flash_bwd) { return cgs_shape_rule_flash_attention_bwd(n, sc, d); }

/*
 * aten._scaled_dot_product_cudnn_attention(query [B, H, L, E], key, value, attn_bias,
 * compute_log_sumexp, ...): the output [B, H, L, Ev] laid out as the query is (its own
 * strides when the shapes agree, else a fresh tensor whose dims go in the order of the
 * query's strides); logsumexp [B, H, L, 1] float32; then None for cum_seq_q/k and the
 * longest sequences, the philox seed and offset (int64 scalars), None for the debug mask:
 * what torch 2.11 records (tests/data/tracegraphs/attn_train).
 */
RULE(sdpa_cudnn)
{
    const struct cgs_tensor *q, *k, *v;
    sym_t res[4], lse[4];

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim != 4 || k->ndim != 4 || v->ndim != 4)
        return cgs_diag_set(d, CGS_E_INVAL, "cuDNN attention takes [B, H, L, E] tensors");
    dimcpy(res, q->shape, 3);
    res[3] = v->shape[3];
    sc->out = new_list(sc, 9);
    if (dim_eq(res[3], q->shape[3])) {
        like_into(sc, &sc->out->u.items[0], q);
    } else {
        // dims by the query's strides, largest first (ties in dim order), a dense tensor
        // in that order, permuted back
        int64_t st[4];
        uint32_t order[4] = {0, 1, 2, 3};
        sym_t pshape[4], pst[4];
        struct cgs_tensor *o;
        hints(sc, q, NULL, st);
        for (uint32_t i = 1; i < 4; i++)
            for (uint32_t j = i; j > 0 && st[order[j]] > st[order[j - 1]]; j--) {
                uint32_t t = order[j];
                order[j] = order[j - 1], order[j - 1] = t;
            }
        for (uint32_t i = 0; i < 4; i++)
            pshape[i] = res[order[i]];
        contiguous_strides(sc, 4, pshape, pst);
        o = fill_tensor(sc, &sc->out->u.items[0], 4, q->dtype, q->device);
        dimcpy(o->shape, res, 4);
        for (uint32_t i = 0; i < 4; i++)
            o->stride[order[i]] = pst[i];
    }
    dimcpy(lse, q->shape, 3);
    lse[3] = K(sc, 1);
    fill_dense(sc, &sc->out->u.items[1], 4, lse, CGS_DTYPE_FLOAT32, q->device, false);
    for (int i = 2; i < 6; i++)
        sc->out->u.items[i].kind = CGS_VAL_NONE;
    fill_dense(sc, &sc->out->u.items[6], 0, lse, CGS_DTYPE_INT64, q->device, false);
    fill_dense(sc, &sc->out->u.items[7], 0, lse, CGS_DTYPE_INT64, q->device, false);
    sc->out->u.items[8].kind = CGS_VAL_NONE;
    return 0;
}

/*
 * aten._scaled_dot_product_efficient_attention_backward(grad_out_, query, key, value,
 * attn_bias, out, logsumexp, philox_seed, philox_offset, dropout_p, grad_input_mask, ...):
 * the gradients [B, H, L, E] laid out [B, L, H, E] (torch.empty_permuted), the bias's
 * gradient when there is a bias and grad_input_mask[3] asks for it (bias_grad), else None.
 */
RULE(sdpa_efficient_bwd)
{
    const struct cgs_tensor *t[3], *b;
    static const uint32_t perm4[] = {0, 2, 1, 3};
    const struct cgs_arg *mask = A(sc, "grad_input_mask");

    (void)n;
    TRY(need_qkv(sc, t, d));
    for (int i = 0; i < 3; i++) {
        if (t[i]->ndim != 4)
            return cgs_diag_set(d, CGS_E_INVAL, "efficient attention takes [B, H, L, E] tensors");
    }
    sc->out = new_list(sc, 4);
    for (int i = 0; i < 3; i++) {
        struct cgs_tensor *o = fill_tensor(sc, &sc->out->u.items[i], 4, t[i]->dtype, t[i]->device);
        dimcpy(o->shape, t[0]->shape, 3);
        if (i) /* key and value: [B, H, S, E] with the key's length */
            o->shape[2] = t[1]->shape[2];
        o->shape[3] = t[i]->shape[3];
        permuted_strides(sc, 4, o->shape, perm4, o->stride);
    }
    if (!is_none(A(sc, "attn_bias")) && mask && mask->kind == CGS_ARG_LIST && mask->n == 4 &&
        bool_of(&mask->u.items[3], false)) {
        TRY(need_tensor(sc, "attn_bias", &b, d));
        if (!b->ndim)
            return cgs_diag_set(d, CGS_E_INVAL, "an attention bias of rank 0");
        bias_grad(sc, &sc->out->u.items[3], b);
    } else {
        sc->out->u.items[3].kind = CGS_VAL_NONE;
    }
    return 0;
}

RULE(mha)
{
    const struct cgs_tensor *q, *k;
    sym_t w[3];

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "key", &k, d));
    if (q->ndim != 3 || k->ndim != 3)
        return cgs_diag_set(d, CGS_E_UNKNOWN,
                            "multi-head attention of unbatched inputs is not tracked");
    sc->out = new_list(sc, 2);
    fill_dense(sc, &sc->out->u.items[0], 3, q->shape, q->dtype, q->device, false);
    if (!bool_of(A(sc, "need_weights"), true)) {
        sc->out->u.items[1].kind = CGS_VAL_NONE;
        return 0;
    }
    w[0] = q->shape[1], w[1] = q->shape[0], w[2] = k->shape[0];
    fill_dense(sc, &sc->out->u.items[1], 3, w, q->dtype, q->device, false);
    return 0;
}

/*
 * higher_order.flex_attention(query, key, value, score_mod, block_mask, scale, ...): the
 * attention's output [B, Hq, L, Dv] in the query's dtype and its logsumexp [B, Hq, L] in
 * float32, both contiguous, as torch's fake implementation makes them; newer torch adds the
 * rows' max scores, [B, Hq, L] float32 (a third result nothing reads where torch gives two).
 */
RULE(flex_attention)
{
    const struct cgs_tensor *q, *v;
    sym_t shape[4];
    struct cgs_val *l;

    (void)n;
    TRY(need_tensor(sc, "query", &q, d));
    TRY(need_tensor(sc, "value", &v, d));
    if (q->ndim != 4 || v->ndim != 4)
        return cgs_diag_set(d, CGS_E_INVAL, "flex_attention takes [B, H, L, E] tensors");
    dimcpy(shape, q->shape, 3);
    shape[3] = v->shape[3];
    l = new_list(sc, 3);
    fill_dense(sc, &l->u.items[0], 4, shape, q->dtype, q->device, false);
    fill_dense(sc, &l->u.items[1], 3, shape, CGS_DTYPE_FLOAT32, q->device, false);
    fill_dense(sc, &l->u.items[2], 3, shape, CGS_DTYPE_FLOAT32, q->device, false);
    sc->out = l;
    return 0;
}

/*
 * higher_order.flex_attention_backward(query, key, value, out, logsumexp, grad_out,
 * grad_logsumexp, fw_graph, joint_graph, block_mask, scale, kernel_options,
 * score_mod_other_buffers, mask_mod_other_buffers): the gradients of query, key and value
 * like them (empty_like), then one entry per tensor the score function captured: its
 * gradient like it when it requires one, else None (tests/data/tracegraphs/flex_train).
 */
RULE(flex_attention_backward)
{
    const struct cgs_tensor *t[3];
    const struct cgs_arg *bufs = A(sc, "score_mod_other_buffers");
    struct cgs_val *rest;
    uint32_t nb = bufs && bufs->kind == CGS_ARG_LIST ? bufs->n : 0;

    (void)n;
    TRY(need_qkv(sc, t, d));
    sc->out = new_list(sc, 4);
    for (int i = 0; i < 3; i++)
        like_into(sc, &sc->out->u.items[i], t[i]);
    {
        struct cgs_val *list = sc->out;
        rest = new_list(sc, nb);
        sc->out = list;
    }
    for (uint32_t i = 0; i < nb; i++) {
        const struct cgs_tensor *b;
        int rc = arg_tensor(sc, &bufs->u.items[i], &b);
        if (rc < 0)
            return cgs_diag_set(d, CGS_E_UNKNOWN, "a captured buffer of the score function "
                                                  "is not known");
        if (rc == 1 || !b->requires_grad)
            rest->u.items[i].kind = CGS_VAL_NONE;
        else
            like_into(sc, &rest->u.items[i], b);
    }
    sc->out->u.items[3] = *rest;
    return 0;
}
