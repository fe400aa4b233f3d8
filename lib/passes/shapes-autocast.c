/*
 * torch.autocast inside a Dynamo graph: the region between the _enter_autocast and
 * _exit_autocast nodes, and what it does to each operator called in it, as torch's
 * AutocastCUDA kernels do (aten/src/ATen/autocast_mode.{h,cpp}): a cast policy per
 * operator, applied to the operator's inputs before its shape rule runs.
 *
 *   lower   every eligible input (a floating tensor on the region's device, not float64)
 *           cast to the region's dtype (mm, conv, linear, sdpa, ...)
 *   fp32    every eligible input cast to float32 (exp, layer_norm, losses, ...)
 *   opt32   an absent dtype= argument set to float32 when the first input is eligible
 *           (softmax, sum, cumsum, ...)
 *   append  the same for norm, whose overloads without dtype torch redispatches with one
 *   promote the widest dtype of the eligible inputs (float32 over the region's dtype), every
 *           eligible input cast to it (addcmul, index_put, scatter_add, ...)
 *
 * The policies are torch 2.11's registrations at the AutocastCUDA dispatch key
 * (tests/data/opinfo/autocast-registry.txt, recorded on the GPU machine), by operator name:
 * the torch-level spellings Dynamo writes (torch.conv2d, torch._C._nn.linear,
 * torch.nn.functional.softmax, tensor methods) reach the ATen operator of the same name.
 * A few torch-level functions are composites of registered operators; their table entry
 * is the policy their result shows (F.cross_entropy: log_softmax then nll_loss, float32),
 * each marked "composite" with the operators that decide it (tests/data/opinfo/autocast.txt,
 * torch's own OpInfo calls under autocast, checks them).
 * Regions on other devices (CPU autocast) are not modelled: findings says so.
 */
#include "lib/passes/shapes-int.h"

enum ac_policy { AC_NONE, AC_LOWER, AC_FP32, AC_OPT32, AC_APPEND, AC_PROMOTE };

static const struct ac_entry {
    const char *name;
    enum ac_policy policy;
} ac_table[] = {
    /* sorted by name (strcmp): bsearch */
    {"_convolution", AC_LOWER},
    {"_cudnn_rnn", AC_LOWER},
    {"_scaled_dot_product_flash_attention", AC_LOWER},
    {"_thnn_fused_gru_cell", AC_LOWER},
    {"_thnn_fused_lstm_cell", AC_LOWER},
    {"_upsample_bicubic2d_aa", AC_FP32},
    {"_upsample_bilinear2d_aa", AC_FP32},
    {"_upsample_nearest_exact1d", AC_FP32},
    {"_upsample_nearest_exact2d", AC_FP32},
    {"_upsample_nearest_exact3d", AC_FP32},
    {"acos", AC_FP32},
    {"addbmm", AC_LOWER},
    {"addcdiv", AC_PROMOTE},
    {"addcmul", AC_PROMOTE},
    {"addmm", AC_LOWER},
    {"addmv", AC_LOWER},
    {"addr", AC_LOWER},
    {"asin", AC_FP32},
    {"atan2", AC_PROMOTE},
    {"baddbmm", AC_LOWER},
    {"bilinear", AC_PROMOTE},
    {"binary_cross_entropy_with_logits", AC_FP32},
    {"bmm", AC_LOWER},
    {"cdist", AC_FP32},
    {"chain_matmul", AC_LOWER},
    {"conv1d", AC_LOWER},
    {"conv2d", AC_LOWER},
    {"conv3d", AC_LOWER},
    {"conv_tbc", AC_LOWER},
    {"conv_transpose1d", AC_LOWER},
    {"conv_transpose2d", AC_LOWER},
    {"conv_transpose3d", AC_LOWER},
    {"convolution", AC_LOWER},
    {"cosh", AC_FP32},
    {"cosine_embedding_loss", AC_FP32},
    {"cosine_similarity", AC_FP32},
    {"cross", AC_PROMOTE},
    {"cross_entropy", AC_FP32}, /* composite: log_softmax (opt32), nll_loss (fp32) */
    {"cudnn_convolution", AC_LOWER},
    {"cudnn_convolution_transpose", AC_LOWER},
    {"cumprod", AC_OPT32},
    {"cumsum", AC_OPT32},
    {"cumulative_trapezoid", AC_FP32}, /* composite: cumsum */
    {"dist", AC_FP32},
    {"dot", AC_PROMOTE},
    {"einsum", AC_LOWER},
    {"erfinv", AC_FP32},
    {"exp", AC_FP32},
    {"expm1", AC_FP32},
    {"frobenius_norm", AC_FP32},
    {"grid_sampler", AC_PROMOTE},
    {"group_norm", AC_FP32},
    {"gru_cell", AC_LOWER},
    {"hinge_embedding_loss", AC_FP32},
    {"huber_loss", AC_FP32},
    {"index_put", AC_PROMOTE},
    {"kl_div", AC_FP32},
    {"l1_loss", AC_FP32},
    {"layer_norm", AC_FP32},
    {"linalg_matrix_norm", AC_OPT32},
    {"linalg_multi_dot", AC_LOWER},
    {"linalg_norm", AC_OPT32}, /* composite: linalg_vector_norm / linalg_matrix_norm */
    {"linalg_vecdot", AC_LOWER},
    {"linalg_vector_norm", AC_OPT32},
    {"linear", AC_LOWER},
    {"local_response_norm", AC_FP32}, /* composite: pow, avg_pool, div */
    {"log", AC_FP32},
    {"log10", AC_FP32},
    {"log1p", AC_FP32},
    {"log2", AC_FP32},
    {"log_softmax", AC_OPT32},
    {"logsumexp", AC_FP32},
    {"lstm_cell", AC_LOWER},
    {"margin_ranking_loss", AC_FP32},
    {"matmul", AC_LOWER},
    {"mm", AC_LOWER},
    {"mse_loss", AC_FP32},
    {"multi_margin_loss", AC_FP32},
    {"multilabel_margin_loss", AC_FP32},
    {"multilabel_soft_margin_loss", AC_FP32}, /* composite: logsigmoid, sum */
    {"mv", AC_LOWER},
    {"native_layer_norm", AC_FP32},
    {"nll_loss", AC_FP32},
    {"nll_loss2d", AC_FP32},
    {"norm", AC_APPEND},
    {"normalize", AC_FP32}, /* composite: x / norm(x): float32 wins the division */
    {"nuclear_norm", AC_FP32},
    {"pairwise_distance", AC_FP32}, /* composite: norm */
    {"pdist", AC_FP32},
    {"poisson_nll_loss", AC_FP32},
    {"pow", AC_FP32},
    {"prelu", AC_LOWER},
    {"prod", AC_OPT32},
    {"reciprocal", AC_FP32},
    {"renorm", AC_FP32},
    {"rnn_relu_cell", AC_LOWER},
    {"rnn_tanh_cell", AC_LOWER},
    {"rsqrt", AC_FP32},
    {"scaled_dot_product_attention", AC_LOWER},
    {"scatter_add", AC_PROMOTE},
    {"sinh", AC_FP32},
    {"smooth_l1_loss", AC_FP32},
    {"soft_margin_loss", AC_FP32},
    {"softmax", AC_OPT32},
    {"softmin", AC_OPT32}, /* composite: softmax(-x, dtype=) */
    {"softplus", AC_FP32},
    {"square", AC_FP32}, /* composite: pow(x, 2) */
    {"sum", AC_OPT32},
    {"sum_to_size", AC_FP32}, /* composite: sum */
    {"tan", AC_FP32},
    {"tensordot", AC_PROMOTE},
    {"trapezoid", AC_FP32}, /* composite: sum */
    {"trapz", AC_FP32}, /* composite: sum */
    {"triplet_margin_loss", AC_FP32},
    {"upsample_bicubic2d", AC_FP32},
    {"upsample_bilinear2d", AC_FP32},
    {"upsample_linear1d", AC_FP32},
    {"upsample_nearest1d", AC_FP32},
    {"upsample_nearest2d", AC_FP32},
    {"upsample_nearest3d", AC_FP32},
    {"upsample_trilinear3d", AC_FP32},
    {"vdot", AC_PROMOTE},
};

static int ac_cmp(const void *key, const void *e)
{
    return strcmp((const char *)key, ((const struct ac_entry *)e)->name);
}

/* The ATen operator name a target reaches: "aten.mm.default", "torch.mm", "torch._C._nn.linear",
   "torch.nn.functional.softmax", "torch.linalg.vector_norm", a method "softmax", "__matmul__". */
static bool ac_name(const char *target, char *buf, size_t size)
{
    static const struct {
        const char *prefix, *add;
    } strip[] = {
        {"aten.", ""},           {"torch._C._nn.", ""},      {"torch._C._linalg.", ""},
        {"torch._C._fft.", ""},  {"torch._C._special.", ""}, {"torch.nn.functional.", ""},
        {"torch.functional.", ""}, {"torch.linalg.", "linalg_"}, {"torch.fft.", "fft_"},
        {"torch.Tensor.", ""},   {"torch.", ""},             {"operator.", ""},
    };
    const char *s = target, *add = "";
    size_t len;

    if (!target)
        return false;
    for (size_t i = 0; i < sizeof(strip) / sizeof(strip[0]); i++) {
        size_t pl = strlen(strip[i].prefix);
        if (!strncmp(target, strip[i].prefix, pl)) {
            s = target + pl, add = strip[i].add;
            break;
        }
    }
    len = strcspn(s, ".");
    if (s[len] && strncmp(target, "aten.", 5) != 0)
        return false; /* a dotted path that is not an operator (torch.nn.modules...) */
    if (len > 4 && !strncmp(s, "__", 2) && !strncmp(s + len - 2, "__", 2)) {
        s += 2, len -= 4; /* __matmul__, __rmatmul__, __pow__ */
        if (len > 1 && s[0] == 'r' && (!strncmp(s, "rmatmul", len) || !strncmp(s, "rpow", len)))
            s++, len--;
    }
    if (strlen(add) + len + 1 > size)
        return false;
    snprintf(buf, size, "%s%.*s", add, (int)len, s);
    return true;
}

static enum ac_policy ac_policy_of(const char *target)
{
    char name[96];
    const struct ac_entry *e;

    if (!ac_name(target, name, sizeof(name)))
        return AC_NONE;
    e = bsearch(name, ac_table, sizeof(ac_table) / sizeof(ac_table[0]), sizeof(ac_table[0]),
                ac_cmp);
    return e ? e->policy : AC_NONE;
}

static bool ac_suffix(const char *target, const char *suffix)
{
    size_t lt = target ? strlen(target) : 0, ls = strlen(suffix);
    return lt >= ls && !strcmp(target + lt - ls, suffix);
}

/* After node n: a region opens at _enter_autocast(device_type, dtype, enabled, cache) and
   closes at _exit_autocast. */
void autocast_track(struct cgs_shape_ctx *sc, const struct cgs_node *n)
{
    if (n->op != CGS_NODE_CALL_FUNCTION || !n->target)
        return;
    if (ac_suffix(n->target, "._enter_autocast")) {
        struct ac_region r = {NULL, CGS_DTYPE_UNKNOWN, true};
        if (n->n_args > 0)
            r.device = str_of(&n->args[0]);
        if (n->n_args > 1)
            r.dtype = dtype_of(&n->args[1]);
        if (n->n_args > 2 && n->args[2].kind == CGS_ARG_BOOL)
            r.enabled = n->args[2].u.b;
        if (sc->n_ac < AC_DEPTH)
            sc->ac[sc->n_ac] = r;
        sc->n_ac++;
    } else if (ac_suffix(n->target, "._exit_autocast") && sc->n_ac) {
        sc->n_ac--;
    }
}

/* The region in force for CUDA tensors, or NULL. */
static const struct ac_region *ac_cuda(const struct cgs_shape_ctx *sc)
{
    const struct ac_region *r;

    if (!sc->n_ac || sc->n_ac > AC_DEPTH)
        return NULL;
    r = &sc->ac[sc->n_ac - 1];
    if (!r->enabled || !r->device || strncmp(r->device, "cuda", 4) != 0)
        return NULL;
    return r;
}

/* torch's is_eligible: a floating tensor on the region's device, not float64. */
static bool ac_eligible(const struct cgs_val *v)
{
    return v && v->kind == CGS_VAL_TENSOR && v->u.t.device &&
           !strncmp(v->u.t.device, "cuda", 4) && v->u.t.dtype != CGS_DTYPE_UNKNOWN &&
           cgs_dtypes[v->u.t.dtype].kind == 'F' && v->u.t.dtype != CGS_DTYPE_FLOAT64;
}

/*
 * Before node n's rule: its inputs as autocast hands them over. Casts swap the values its
 * inputs show (sw keeps what autocast_restore puts back); opt32 and append bind dtype=.
 */
void autocast_apply(struct cgs_shape_ctx *sc, const struct cgs_node *n, struct ac_swap *sw)
{
    const struct ac_region *r = ac_cuda(sc);
    enum ac_policy pol;
    enum cgs_dtype to;

    sw->n = 0;
    if (!r || (n->op != CGS_NODE_CALL_FUNCTION && n->op != CGS_NODE_CALL_METHOD))
        return;
    pol = ac_policy_of(n->target);
    if (pol == AC_NONE)
        return;
    if (pol == AC_OPT32 || pol == AC_APPEND) {
        int di = find_param(sc, "dtype");
        const struct cgs_val *first = sc->n_params ? node_val(sc, sc->p[0].arg) : NULL;
        if (di >= 0 && is_none(sc->p[di].arg) && ac_eligible(first)) {
            static const struct cgs_arg f32 = {.kind = CGS_ARG_DTYPE,
                                               .u.dtype = CGS_DTYPE_FLOAT32};
            sc->p[di].arg = &f32;
        }
        return;
    }
    to = pol == AC_LOWER ? r->dtype : CGS_DTYPE_FLOAT32;
    if (pol == AC_PROMOTE) {
        to = r->dtype;
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            const struct cgs_val *v = sc->vals[n->inputs[k]->index];
            if (ac_eligible(v) && v->u.t.dtype == CGS_DTYPE_FLOAT32)
                to = CGS_DTYPE_FLOAT32;
        }
    }
    if (to == CGS_DTYPE_UNKNOWN)
        return;
    for (uint32_t k = 0; k < n->n_inputs && sw->n < AC_SWAPS; k++) {
        uint32_t idx = n->inputs[k]->index;
        const struct cgs_val *v = sc->vals[idx];
        struct cgs_val *c;
        if (!ac_eligible(v) || v->u.t.dtype == to)
            continue;
        c = cgs_arena_alloc(sc->ar, sizeof(*c));
        if (!c)
            break;
        *c = *v;
        c->u.t.dtype = to;
        sw->idx[sw->n] = idx;
        sw->old[sw->n++] = v;
        sc->vals[idx] = c;
    }
}

/* The region a body entered at node n runs in: the one open around n, or the one an enabled
   wrap_with_autocast(device_type, dtype, enabled, ...) opens. */
void autocast_inherit(const struct cgs_shape_ctx *sc, const struct cgs_node *n,
                      struct cgs_shapes_opts *o)
{
    o->autocast_device = NULL;
    if (sc->n_ac && sc->n_ac <= AC_DEPTH && sc->ac[sc->n_ac - 1].enabled) {
        o->autocast_device = sc->ac[sc->n_ac - 1].device;
        o->autocast_dtype = sc->ac[sc->n_ac - 1].dtype;
    }
    if (n->target && ac_suffix(n->target, "wrap_with_autocast") && n->n_args >= 3 &&
        n->args[2].kind == CGS_ARG_BOOL) {
        if (!n->args[2].u.b) {
            o->autocast_device = NULL;
        } else {
            o->autocast_device = str_of(&n->args[0]);
            o->autocast_dtype = dtype_of(&n->args[1]);
        }
    }
}

void autocast_restore(struct cgs_shape_ctx *sc, const struct ac_swap *sw)
{
    for (uint32_t k = sw->n; k-- > 0;)
        sc->vals[sw->idx[k]] = sw->old[k];
}
