/*
 * Inductor's layout decisions as PyTorch 2.11 (or 2.1) makes them; see
 * lib/passes/layout.h and docs/layout.md. Written from reading
 * torch/_inductor/graph.py for behaviour; every loop is iterative.
 */
#include "lib/passes/layout.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/buf.h"
#include "lib/ops/ops.h"
#include "lib/passes/shapes.h"

/* ---- names --------------------------------------------------------------------- */

static const char *const rule_ids[CGS_LAYOUT_RULE_COUNT] = {
#define X(name, id, v) [CGS_LAYOUT_RULE_##name] = id,
    CGS_LAYOUT_RULE_LIST(X)
#undef X
};

const char *cgs_layout_rule_id(enum cgs_layout_rule r)
{
    return (unsigned)r < CGS_LAYOUT_RULE_COUNT ? rule_ids[r] : "?";
}

const char *const cgs_layout_rules_names[CGS_LAYOUT_RULES_COUNT + 1] = {
    [CGS_LAYOUT_RULES_2_11] = "torch-2.11",
    [CGS_LAYOUT_RULES_2_1] = "torch-2.1",
};

const char *cgs_layout_rules_name(enum cgs_layout_rules r)
{
    return cgs_layout_rules_names[r == CGS_LAYOUT_RULES_2_1 ? r : CGS_LAYOUT_RULES_2_11];
}

int cgs_layout_rules_from_name(const char *name)
{
    for (int i = 0; name && i < CGS_LAYOUT_RULES_COUNT; i++)
        if (!strcmp(name, cgs_layout_rules_names[i]) ||
            !strcmp(name, cgs_layout_rules_names[i] + strlen("torch-")))
            return i;
    return -1;
}

static const char *const class_names[CGS_CONV_CLASS_COUNT] = {
    [CGS_CONV_GROUPED] = "grouped",
    [CGS_CONV_SMALL] = "small",
    [CGS_CONV_IN_OUT] = "in_out",
    [CGS_CONV_DEFAULT] = "default",
};

const char *cgs_conv_class_name(enum cgs_conv_class c)
{
    return (unsigned)c < CGS_CONV_CLASS_COUNT ? class_names[c] : "?";
}

/* torch 2.11 GraphLowering.decide_layout_opt's multipliers */
const double cgs_conv_class_multiplier[CGS_CONV_CLASS_COUNT] = {
    [CGS_CONV_GROUPED] = 1.358,
    [CGS_CONV_SMALL] = 0.783,
    [CGS_CONV_IN_OUT] = 0.725,
    [CGS_CONV_DEFAULT] = 0.823,
};

const char *cgs_fallback_kind_name(enum cgs_fallback_kind k)
{
    static const char *const names[] = {
        [CGS_FALLBACK_NONE] = "none",
        [CGS_FALLBACK_MAYBE] = "maybe",
        [CGS_FALLBACK_KERNEL] = "fallback_kernel",
        [CGS_FALLBACK_IMPLICIT] = "implicit_fallback",
        [CGS_FALLBACK_UNSUPPORTED] = "unsupported_type",
        [CGS_FALLBACK_ERROR] = "not_lowerable",
    };
    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

const char *cgs_input_constraint_name(enum cgs_input_constraint c)
{
    static const char *const names[] = {
        [CGS_CONSTRAINT_NONE] = "none",
        [CGS_CONSTRAINT_FX_STRIDE_ORDER] = "fx_stride_order",
        [CGS_CONSTRAINT_EXACT_STRIDES] = "exact_strides",
        [CGS_CONSTRAINT_CONTIGUOUS] = "contiguous",
    };
    return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}

/* ---- the lowering table ------------------------------------------------------------ */

struct lowering {
    const char *name;
    enum cgs_lower_kind kind;
    unsigned flags;
};

static const struct lowering lowerings[] = {
#define LOWERING(name, kind, flags) {name, kind, flags},
#include "lib/ops/inductor-lowerings.h"
#undef LOWERING
};

static const char *const fallback_allow_list[] = {CGS_INDUCTOR_FALLBACK_ALLOW_LIST};
static const char *const cpp_wrapper_dtypes[] = {CGS_INDUCTOR_CPP_WRAPPER_DTYPES};

enum cgs_lower_kind cgs_inductor_lookup(const char *target, unsigned *flags)
{
    size_t lo = 0, hi = sizeof(lowerings) / sizeof(lowerings[0]);
    if (flags)
        *flags = 0;
    if (!target)
        return CGS_LOWER_NONE;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(lowerings[mid].name, target);
        if (!c) {
            if (flags)
                *flags = lowerings[mid].flags;
            return lowerings[mid].kind;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* FALLBACK_ALLOW_LIST holds packets ("ns.op"): any overload of one */
    const char *d2 = strrchr(target, '.');
    for (size_t i = 0; d2 && i < sizeof(fallback_allow_list) / sizeof(fallback_allow_list[0]); i++)
        if (strlen(fallback_allow_list[i]) == (size_t)(d2 - target) &&
            !strncmp(fallback_allow_list[i], target, (size_t)(d2 - target))) {
            if (flags)
                *flags = CGS_LOWERF_FALLBACK_ALLOWED;
            break;
        }
    return CGS_LOWER_NONE;
}

const char *cgs_inductor_table_version(void)
{
    return CGS_INDUCTOR_TORCH_VERSION;
}

bool cgs_inductor_cpp_wrapper_supports(enum cgs_dtype dt)
{
    if ((unsigned)dt >= CGS_DTYPE_COUNT || dt == CGS_DTYPE_UNKNOWN)
        return false;
    for (size_t i = 0; i < sizeof(cpp_wrapper_dtypes) / sizeof(cpp_wrapper_dtypes[0]); i++)
        if (!strcmp(cpp_wrapper_dtypes[i], cgs_dtypes[dt].name))
            return true;
    return false;
}

/* ---- targets ----------------------------------------------------------------------- */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- values --------------------------------------------------------------------------- */

struct ctx {
    struct cgs_graph *g;
    struct cgs_layout *l;
    bool v211;
    const struct cgs_shapes *shapes; /* inferred values for nodes without a record */
    uint8_t *lower_kind;   /* per node: enum cgs_lower_kind of its target */
    unsigned *lower_flags; /* per node: enum cgs_lower_flags of its target */
};

/* Whether n calls an operator the lowering table gives a role (CGS_LOWERF_ROLE_*). */
static bool has_role(const struct ctx *c, const struct cgs_node *n, unsigned role)
{
    return n->op == CGS_NODE_CALL_FUNCTION && (c->lower_flags[n->index] & role);
}

static bool is_mkldnn_conv(const struct ctx *c, const struct cgs_node *n)
{
    return has_role(c, n, CGS_LOWERF_ROLE_MKLDNN_CONV);
}

static const struct cgs_tensor *val_tensor(const struct cgs_val *v)
{
    return v && v->kind == CGS_VAL_TENSOR ? &v->u.t : NULL;
}

/* A node's recorded value, else the one shape inference gave it. */
static const struct cgs_val *node_val(const struct ctx *c, const struct cgs_node *n)
{
    if (n->val || !c->shapes || n->index >= c->shapes->n_nodes)
        return n->val;
    return c->shapes->nodes[n->index].val;
}

/* The tensor value of positional argument i when it is a node holding one. */
static const struct cgs_tensor *arg_tensor(const struct ctx *c, const struct cgs_node *n,
                                           uint32_t i)
{
    const struct cgs_arg *a = cgs_node_arg(n, i);
    if (!a || a->kind != CGS_ARG_NODE)
        return NULL;
    return val_tensor(node_val(c, a->u.node));
}

static bool tensor_complete(const struct cgs_tensor *t)
{
    if (!t || t->ndim == CGS_NDIM_UNKNOWN)
        return false;
    for (uint32_t i = 0; i < t->ndim; i++)
        if (!t->shape[i])
            return false;
    return true;
}

/* A dimension's value: constant, else through the symbols' hints (*hinted set). */
static bool dim_value(struct ctx *c, const struct cgs_sym *e, int64_t *v, bool *hinted)
{
    if (!e)
        return false;
    if (cgs_sym_is_int(e, v))
        return true;
    if (cgs_sym_eval(e, cgs_graph_hint_lookup, c->g, v) != 0)
        return false;
    if (hinted)
        *hinted = true;
    return true;
}

static bool sym_free(const struct cgs_sym *e)
{
    int64_t v;
    return e && !cgs_sym_is_int(e, &v);
}

/* has_free_symbols of a tensor value: sizes, strides or storage offset */
static bool tensor_free_symbols(const struct cgs_tensor *t)
{
    if (!t || t->ndim == CGS_NDIM_UNKNOWN)
        return false;
    for (uint32_t i = 0; i < t->ndim; i++)
        if (sym_free(t->shape[i]) || (t->stride && sym_free(t->stride[i])))
            return true;
    return sym_free(t->storage_offset);
}

static void has_unbacked_cb(void *ud, const char *name)
{
    /* unbacked symbols are u0, u1, ... */
    if (name[0] == 'u' && name[1] >= '0' && name[1] <= '9')
        *(bool *)ud = true;
}

static bool strides_unbacked(const struct cgs_tensor *t)
{
    bool any = false;
    if (t->stride)
        for (uint32_t i = 0; i < t->ndim; i++)
            if (t->stride[i])
                cgs_sym_foreach_var(t->stride[i], has_unbacked_cb, &any);
    return any;
}

static bool device_type_is(const struct cgs_tensor *t, const char *type)
{
    size_t n = strlen(type);
    return t && t->device && !strncmp(t->device, type, n) &&
           (t->device[n] == '\0' || t->device[n] == ':');
}

/* Sizes and strides of t through hints; false when some are unknown. */
static bool tensor_ints(struct ctx *c, const struct cgs_tensor *t, int64_t *size, int64_t *stride)
{
    if (!tensor_complete(t) || t->ndim > CGS_MAX_NDIM || !t->stride)
        return false;
    for (uint32_t i = 0; i < t->ndim; i++)
        if (!dim_value(c, t->shape[i], &size[i], NULL) ||
            !dim_value(c, t->stride[i], &stride[i], NULL))
            return false;
    return true;
}

/* torch._prims_common.is_non_overlapping_and_dense on concrete sizes/strides */
static bool dense_ints(uint32_t nd, const int64_t *size, const int64_t *stride)
{
    uint32_t idx[CGS_MAX_NDIM];
    bool tiny = true; /* fewer than 2 elements */
    for (uint32_t i = 0; i < nd; i++) {
        if (size[i] == 0)
            return true;
        if (size[i] >= 2)
            tiny = false;
    }
    if (tiny)
        return true;
    if (nd == 1)
        return stride[0] == 1;
    /* stable sort of dims by stride, ascending */
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t j = i;
        while (j > 0 && stride[idx[j - 1]] > stride[i]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    int64_t expected = 1;
    for (uint32_t k = 0; k < nd; k++) {
        uint32_t d = idx[k];
        if (size[d] == 1)
            continue;
        if (stride[d] != expected)
            return false;
        expected *= size[d];
    }
    return true;
}

/*
 * ir.get_stride_order: fill order = dims by ascending stride (equal strides:
 * the outer dimension first... reversed, so the inner one comes first), then
 * order[fill[i]] = i.
 */
static void stride_order(uint32_t nd, const int64_t *stride, uint8_t *order)
{
    uint32_t fill[CGS_MAX_NDIM];
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t j = i;
        /* ascending stride; for equal strides the higher index first */
        while (j > 0 && (stride[fill[j - 1]] > stride[i] ||
                         (stride[fill[j - 1]] == stride[i] && fill[j - 1] < i))) {
            fill[j] = fill[j - 1];
            j--;
        }
        fill[j] = i;
    }
    for (uint32_t i = 0; i < nd; i++)
        order[fill[i]] = (uint8_t)i;
}

/* make_channels_last_strides_for a 4-D shape */
static void channels_last_strides(const int64_t *size, int64_t *stride)
{
    static const int dims[4] = {1, 3, 2, 0};
    int64_t m = 1;
    for (int k = 0; k < 4; k++) {
        stride[dims[k]] = m;
        m *= size[dims[k]];
    }
}

/* ---- reasons -------------------------------------------------------------------------- */

static const char *arena_str(struct cgs_layout *l, struct cgs_buf *b)
{
    return cgs_arena_strdup(&l->arena, b->buf);
}

static void add_rule_node(struct cgs_layout *l, const struct cgs_node *n, uint32_t cap)
{
    if (!l->rule_nodes)
        l->rule_nodes = cgs_arena_calloc(&l->arena, cap ? cap : 1, sizeof(*l->rule_nodes));
    if (l->n_rule_nodes < cap)
        l->rule_nodes[l->n_rule_nodes++] = n;
}

static void list_rule_nodes(struct cgs_buf *b, const struct cgs_layout *l, uint32_t max)
{
    for (uint32_t i = 0; i < l->n_rule_nodes && i < max; i++)
        cgs_buf_addf(b, "%s`%s`", i ? ", " : "", l->rule_nodes[i]->name);
    if (l->n_rule_nodes > max)
        cgs_buf_addf(b, " and %u more", l->n_rule_nodes - max);
}

/* ---- decide_layout_opt ----------------------------------------------------------------- */

static void classify(struct ctx *c, struct cgs_layout_conv *cv)
{
    const struct cgs_node *n = cv->node;
    const struct cgs_tensor *x = arg_tensor(c, n, 0), *w = arg_tensor(c, n, 1);
    const struct cgs_arg *ga = n->n_args ? &n->args[n->n_args - 1] : NULL;
    const struct cgs_arg *ta = cgs_node_arg(n, 6);

    cv->free_symbols = tensor_free_symbols(x) || tensor_free_symbols(w);
    cv->groups = ga && ga->kind == CGS_ARG_INT ? ga->u.i : 1;
    cv->transposed = ta && ta->kind == CGS_ARG_BOOL && ta->u.b;
    if (!tensor_complete(x) || !tensor_complete(w) || w->ndim < 2) {
        cgs_graph_note(c->g, CGS_NOTE_WARNING, CGS_E_UNKNOWN, n,
                       "convolution '%s' has no recorded input or weight value; "
                       "classified as default",
                       n->name);
        cv->cls = CGS_CONV_DEFAULT;
        return;
    }
    cv->known = true;
    cv->weight_ndim = w->ndim;
    for (uint32_t i = 0; i < 5 && i < w->ndim; i++)
        if (!dim_value(c, w->shape[i], &cv->weight[i], &cv->hinted))
            cv->weight[i] = 0;
    cv->grouped = cv->groups > 1 && cv->weight[1] > 1;
    cv->small = cv->weight[0] <= 64 && cv->weight[1] <= 64;
    /* out * 2 <= in, without overflow (sizes are non-negative) */
    cv->in_out = cv->weight[0] <= cv->weight[1] / 2 && w->ndim > 2 && cv->weight[2] > 1;
    cv->cls = cv->grouped  ? CGS_CONV_GROUPED
              : cv->small  ? CGS_CONV_SMALL
              : cv->in_out ? CGS_CONV_IN_OUT
                           : CGS_CONV_DEFAULT;

    /* FLOPs as torch.utils.flop_counter's conv_flop counts aten.convolution */
    const struct cgs_tensor *out = val_tensor(node_val(c, n));
    if (cv->mkldnn || !tensor_complete(out) || out->ndim < 2 || x->ndim < 2)
        return;
    for (uint32_t i = 0; i < n->n_inputs; i++) /* every node argument needs a value */
        if (!node_val(c, n->inputs[i]))
            return;
    const struct cgs_tensor *sp = cv->transposed ? x : out;
    int64_t f = 2, v;
    bool ok = true;
    for (uint32_t i = 2; i < sp->ndim && ok; i++)
        ok = dim_value(c, sp->shape[i], &v, &cv->hinted) && !__builtin_mul_overflow(f, v, &f);
    for (uint32_t i = 2; i < w->ndim && ok; i++)
        ok = dim_value(c, w->shape[i], &v, &cv->hinted) && !__builtin_mul_overflow(f, v, &f);
    if (ok)
        ok = dim_value(c, x->shape[0], &v, &cv->hinted) && !__builtin_mul_overflow(f, v, &f);
    for (uint32_t i = 0; i < 2 && ok; i++)
        ok = dim_value(c, w->shape[i], &v, &cv->hinted) && !__builtin_mul_overflow(f, v, &f);
    if (ok) {
        cv->has_flops = true;
        cv->flops = f;
    }
}

static int collect_convs(struct ctx *c)
{
    struct cgs_graph *g = c->g;
    struct cgs_layout *l = c->l;
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (has_role(c, g->nodes[i], CGS_LOWERF_ROLE_CONV) || (c->v211 && is_mkldnn_conv(c, g->nodes[i])))
            n++;
    l->convs = cgs_arena_calloc(&l->arena, n ? n : 1, sizeof(*l->convs));
    if (!l->convs)
        return -CGS_E_NOMEM;
    /* first aten.convolution.default, then (2.11) the mkldnn convolutions */
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (has_role(c, g->nodes[i], CGS_LOWERF_ROLE_CONV))
            l->convs[l->n_convs++].node = g->nodes[i];
    if (c->v211)
        for (uint32_t i = 0; i < g->n_nodes; i++)
            if (is_mkldnn_conv(c, g->nodes[i])) {
                l->convs[l->n_convs].mkldnn = true;
                l->convs[l->n_convs++].node = g->nodes[i];
            }
    for (uint32_t i = 0; i < l->n_convs; i++)
        classify(c, &l->convs[i]);
    return 0;
}

static void verdict(struct cgs_layout *l, enum cgs_layout_rule r, bool on)
{
    l->rule = r;
    l->layout_opt = on;
}

static void flop_vote(struct ctx *c, struct cgs_buf *why)
{
    struct cgs_layout *l = c->l;
    int order[CGS_CONV_CLASS_COUNT], n_order = 0;

    l->voted = true;
    for (uint32_t i = 0; i < l->n_convs; i++) {
        struct cgs_layout_conv *cv = &l->convs[i];
        if (!cv->has_flops || cv->mkldnn)
            continue; /* count_flops_fx gave None */
        cv->counted = true;
        if (!l->class_seen[cv->cls]) {
            l->class_seen[cv->cls] = true;
            order[n_order++] = cv->cls;
        }
        l->flops_by_class[cv->cls] += (double)cv->flops;
    }
    /* sum(flop_counts.values()) in insertion order, then the weighted sum */
    double total = 0;
    for (int k = 0; k < n_order; k++)
        total += l->flops_by_class[order[k]];
    double weighted = l->flops_by_class[CGS_CONV_GROUPED] * cgs_conv_class_multiplier[0] +
                      l->flops_by_class[CGS_CONV_SMALL] * cgs_conv_class_multiplier[1] +
                      l->flops_by_class[CGS_CONV_IN_OUT] * cgs_conv_class_multiplier[2] +
                      l->flops_by_class[CGS_CONV_DEFAULT] * cgs_conv_class_multiplier[3];
    l->total_flops = total;
    l->weighted_flops = weighted;
    if (weighted <= total) {
        verdict(l, CGS_LAYOUT_RULE_FLOP_VOTE, true);
        cgs_buf_addf(why,
                     "inference FLOP vote: channels-last weighted %.6g <= %.6g FLOPs over %u "
                     "convolution%s",
                     weighted, total, l->n_convs, l->n_convs == 1 ? "" : "s");
        return;
    }
    for (uint32_t i = 0; i < l->n_convs; i++)
        if (l->convs[i].counted && l->convs[i].cls == CGS_CONV_GROUPED)
            add_rule_node(l, l->convs[i].node, l->n_convs);
    verdict(l, CGS_LAYOUT_RULE_FLOP_VOTE, false);
    cgs_buf_addf(why, "inference FLOP vote: channels-last weighted %.6g > %.6g FLOPs; grouped ",
                 weighted, total);
    cgs_buf_addstr(why, l->n_rule_nodes == 1 ? "convolution " : "convolutions ");
    list_rule_nodes(why, l, 3);
    cgs_buf_addstr(why, " slow it down");
}

static int decide(struct ctx *c)
{
    struct cgs_layout *l = c->l;
    struct cgs_graph *g = c->g;
    struct cgs_buf why = CGS_BUF_INIT;
    const char *kind = c->v211 ? "training graph" : "graph";
    int err;

    if (l->opts.sw == CGS_LAYOUT_SWITCH_OFF) {
        verdict(l, CGS_LAYOUT_RULE_DISABLED, false);
        cgs_buf_addstr(&why, "layout optimization switched off (config.layout_optimization)");
        goto out;
    }
    if (l->opts.sw == CGS_LAYOUT_SWITCH_FORCE_ON) {
        verdict(l, CGS_LAYOUT_RULE_FORCED, true);
        cgs_buf_addstr(&why, "layout optimization forced (config.force_layout_optimization)");
        goto out;
    }
    if ((err = collect_convs(c)) < 0)
        goto fail;
    if (!l->n_convs) {
        uint32_t nbwd = 0;
        for (uint32_t i = 0; i < g->n_nodes; i++)
            nbwd += has_role(c, g->nodes[i], CGS_LOWERF_ROLE_CONV_BACKWARD);
        verdict(l, CGS_LAYOUT_RULE_NO_CONV, false);
        cgs_buf_addstr(&why, "no convolution in the graph");
        if (nbwd)
            cgs_buf_addf(&why, " (only %u convolution_backward, which do not count)", nbwd);
        goto out;
    }
    if (l->opts.mkldnn) {
        bool all_cpu = true;
        for (uint32_t i = 0; i < l->n_convs && all_cpu; i++)
            for (uint32_t k = 0; k < 2 && all_cpu; k++) {
                const struct cgs_tensor *t = arg_tensor(c, l->convs[i].node, k);
                all_cpu = device_type_is(t, "cpu") || (c->v211 && device_type_is(t, "xpu"));
            }
        if (all_cpu) {
            verdict(l, CGS_LAYOUT_RULE_MKLDNN_CPU, true);
            cgs_buf_addf(&why, "all %u convolution%s run on the CPU with mkldnn", l->n_convs,
                         l->n_convs == 1 ? "" : "s");
            goto out;
        }
    }
    if ((uint64_t)l->n_nodes >= 300 * (uint64_t)l->n_convs) {
        for (uint32_t i = 0; i < l->n_convs; i++)
            add_rule_node(l, l->convs[i].node, l->n_convs);
        verdict(l, CGS_LAYOUT_RULE_FEW_CONV, false);
        cgs_buf_addf(&why, "only %u convolution%s for %u nodes (nodes >= 300 x convolutions)",
                     l->n_convs, l->n_convs == 1 ? "" : "s", l->n_nodes);
        goto out;
    }
    for (uint32_t i = 0; i < l->n_convs; i++)
        if (l->convs[i].free_symbols)
            add_rule_node(l, l->convs[i].node, l->n_convs);
    if (l->n_rule_nodes) {
        verdict(l, CGS_LAYOUT_RULE_DYNAMIC_SHAPE, false);
        cgs_buf_addstr(&why, "symbolic shapes in the input or weight of convolution ");
        list_rule_nodes(&why, l, 3);
        goto out;
    }
    if (c->v211 && l->is_inference) {
        flop_vote(c, &why);
        goto out;
    }
    for (uint32_t i = 0; i < l->n_convs; i++)
        if (l->convs[i].grouped)
            add_rule_node(l, l->convs[i].node, l->n_convs);
    if (l->n_rule_nodes) {
        const struct cgs_layout_conv *cv = NULL;
        for (uint32_t i = 0; i < l->n_convs && !cv; i++)
            if (l->convs[i].grouped)
                cv = &l->convs[i];
        verdict(l, CGS_LAYOUT_RULE_GROUPED_CONV, false);
        cgs_buf_addf(&why, "%s has grouped convolution ", kind);
        list_rule_nodes(&why, l, 3);
        cgs_buf_addf(&why, " with %lld input channels per group", (long long)cv->weight[1]);
        goto out;
    }
    for (uint32_t i = 0; i < l->n_convs; i++)
        if (l->convs[i].in_out)
            add_rule_node(l, l->convs[i].node, l->n_convs);
    if (l->n_rule_nodes) {
        const struct cgs_layout_conv *cv = NULL;
        for (uint32_t i = 0; i < l->n_convs && !cv; i++)
            if (l->convs[i].in_out)
                cv = &l->convs[i];
        verdict(l, CGS_LAYOUT_RULE_IN_OUT_CHANNELS, false);
        cgs_buf_addf(&why, "%s has convolution ", kind);
        list_rule_nodes(&why, l, 3);
        cgs_buf_addf(&why,
                     " with out channels x 2 <= in channels (%lld in, %lld out) and a kernel "
                     "larger than 1",
                     (long long)cv->weight[1], (long long)cv->weight[0]);
        goto out;
    }
    bool all_small = true;
    for (uint32_t i = 0; i < l->n_convs; i++)
        all_small = all_small && l->convs[i].small;
    if (all_small) {
        for (uint32_t i = 0; i < l->n_convs; i++)
            add_rule_node(l, l->convs[i].node, l->n_convs);
        verdict(l, CGS_LAYOUT_RULE_SMALL_CHANNELS, false);
        cgs_buf_addf(&why, "%s: all %u convolution%s have <= 64 in and out channels", kind,
                     l->n_convs, l->n_convs == 1 ? "" : "s");
        goto out;
    }
    if (!c->v211) {
        uint32_t ns = 0;
        for (uint32_t i = 0; i < g->n_nodes; i++)
            ns += has_role(c, g->nodes[i], CGS_LOWERF_ROLE_SDPA_21);
        for (uint32_t i = 0; i < g->n_nodes && ns; i++)
            if (has_role(c, g->nodes[i], CGS_LOWERF_ROLE_SDPA_21))
                add_rule_node(l, g->nodes[i], ns);
        if (ns) {
            verdict(l, CGS_LAYOUT_RULE_SDPA, false);
            cgs_buf_addstr(&why, "graph has scaled-dot-product attention ");
            list_rule_nodes(&why, l, 3);
            cgs_buf_addstr(&why, " (flash or efficient), which needs contiguous inputs");
            goto out;
        }
    }
    verdict(l, CGS_LAYOUT_RULE_NO_VETO, true);
    cgs_buf_addf(&why,
                 "%s: no grouped, in/out-channel or all-small-channel veto among %u "
                 "convolution%s",
                 kind, l->n_convs, l->n_convs == 1 ? "" : "s");
out:
    l->reason = arena_str(l, &why);
    cgs_buf_release(&why);
    return 0;
fail:
    cgs_buf_release(&why);
    return err;
}

/* ---- find_nodes_prefer_channels_last ----------------------------------------------------- */

/* Add a node to the ordered set (in: membership by node index). */
static void prefer_add(struct cgs_layout *l, bool *in, const struct cgs_node *n)
{
    if (!in[n->index]) {
        in[n->index] = true;
        l->prefer_all[l->n_prefer_all++] = n;
    }
}

static int prefer_channels_last(struct ctx *c)
{
    struct cgs_graph *g = c->g;
    struct cgs_layout *l = c->l;
    bool *in = cgs_xcalloc(g->n_nodes ? g->n_nodes : 1, sizeof(*in));
    const struct cgs_node *last_conv = NULL;

    l->prefer_all =
        cgs_arena_calloc(&l->arena, g->n_nodes ? g->n_nodes : 1, sizeof(*l->prefer_all));
    if (!l->prefer_all) {
        free(in);
        return -CGS_E_NOMEM;
    }
    for (uint32_t i = g->n_nodes; i-- > 0;) {
        const struct cgs_node *n = g->nodes[i];
        if (has_role(c, n, CGS_LOWERF_ROLE_CONV)) {
            prefer_add(l, in, n);
            if (!last_conv)
                last_conv = n;
            continue;
        }
        if (c->v211) {
            if (has_role(c, n, CGS_LOWERF_ROLE_BMM))
                continue;
            if (is_mkldnn_conv(c, n)) {
                prefer_add(l, in, n);
                continue;
            }
        }
        for (uint32_t k = 0; k < n->n_users; k++)
            if (in[n->users[k]->index]) {
                prefer_add(l, in, n);
                break;
            }
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        if (c->v211 && n == last_conv)
            break;
        if (!in[i])
            continue;
        for (uint32_t k = 0; k < n->n_users; k++) {
            const struct cgs_node *u = n->users[k];
            if (c->v211 && has_role(c, u, CGS_LOWERF_ROLE_BMM))
                continue;
            prefer_add(l, in, u);
        }
    }
    free(in);
    if (l->layout_opt) {
        l->prefer_cl = l->prefer_all;
        l->n_prefer_cl = l->n_prefer_all;
        for (uint32_t i = 0; i < l->n_prefer_all; i++)
            l->nodes[l->prefer_all[i]->index].prefer_cl = true;
    }
    return 0;
}

/* ---- stride orders, pins, fallbacks ---------------------------------------------------------- */

/* Mark the user-visible outputs: GraphLowering's user_visible_output_strides. */
static void user_visible(struct ctx *c)
{
    struct cgs_graph *g = c->g;
    struct cgs_layout *l = c->l;
    const struct cgs_node *out = NULL;
    for (uint32_t i = g->n_nodes; i-- > 0 && !out;)
        if (g->nodes[i]->op == CGS_NODE_OUTPUT)
            out = g->nodes[i];
    if (!out || !out->n_args)
        return;
    const struct cgs_arg *a = &out->args[0];
    const struct cgs_arg *items = a->kind == CGS_ARG_LIST ? a->u.items : a;
    uint32_t n = a->kind == CGS_ARG_LIST ? a->n : 1;
    uint32_t limit = n;
    if (!l->is_inference && !l->is_backward) {
        /* training forward: the model's own outputs come first, then what the
         * backward saves; without AOTAutograd's count, stop at the first saved input */
        if (l->opts.user_outputs >= 0) {
            limit = (uint32_t)l->opts.user_outputs < n ? (uint32_t)l->opts.user_outputs : n;
        } else {
            limit = 0;
            while (limit < n && !(items[limit].kind == CGS_ARG_NODE &&
                                  items[limit].u.node->op == CGS_NODE_PLACEHOLDER))
                limit++;
        }
    }
    for (uint32_t i = 0; i < limit; i++)
        if (items[i].kind == CGS_ARG_NODE)
            l->nodes[items[i].u.node->index].user_visible = true;
}

static bool tensor_is_complex(const struct cgs_tensor *t)
{
    return t && t->dtype != CGS_DTYPE_UNKNOWN && cgs_dtypes[t->dtype].kind == 'C';
}

/* unsupported_input_tensor: complex or meta tensors */
static bool unsupported_input(const struct cgs_val *v)
{
    /* values are small trees; walk them with a fixed stack */
    const struct cgs_val *st[64];
    int sp = 0;
    if (v)
        st[sp++] = v;
    while (sp) {
        const struct cgs_val *x = st[--sp];
        if (x->kind == CGS_VAL_LIST) {
            for (uint32_t i = 0; i < x->n && sp < 64; i++)
                st[sp++] = &x->u.items[i];
        } else if (x->kind == CGS_VAL_TENSOR) {
            if (tensor_is_complex(&x->u.t) || device_type_is(&x->u.t, "meta"))
                return true;
        }
    }
    return false;
}

/* lowering.fallback_node_due_to_unsupported_type */
static bool unsupported_type(const struct ctx *c, const struct cgs_node *n)
{
    if (has_role(c, n, CGS_LOWERF_ROLE_KEEPS_UNSUPPORTED_TYPE))
        return false;
    for (uint32_t i = 0; i < n->n_inputs; i++)
        if (unsupported_input(node_val(c, n->inputs[i])))
            return true;
    bool complex_view = has_role(c, n, CGS_LOWERF_ROLE_COMPLEX_VIEW);
    const struct cgs_tensor *t = val_tensor(node_val(c, n));
    if (complex_view && t && tensor_is_complex(t))
        return false;
    return unsupported_input(node_val(c, n));
}

static void fallback_and_constraint(struct ctx *c, const struct cgs_node *n,
                                    struct cgs_layout_node *ln)
{
    struct cgs_layout *l = c->l;
    unsigned flags = 0;

    if (n->op == CGS_NODE_CALL_METHOD || n->op == CGS_NODE_CALL_MODULE) {
        ln->fallback = CGS_FALLBACK_ERROR;
        return;
    }
    if (n->op != CGS_NODE_CALL_FUNCTION || !n->target)
        return;
    if (cgs_ops[n->op_id].flags & CGS_OPF_GETITEM)
        return; /* indexing a multi-output value: no kernel */
    bool overload = cgs_target_is_overload(n->target);
    if (overload && cgs_target_is_builtin(n->target) && unsupported_type(c, n)) {
        ln->fallback = CGS_FALLBACK_UNSUPPORTED;
        return;
    }
    if (has_role(c, n, CGS_LOWERF_ROLE_COMPLEX_COPY_FALLBACK) &&
        tensor_is_complex(val_tensor(node_val(c, n)))) {
        ln->fallback = CGS_FALLBACK_KERNEL; /* the lowering copies through an aten fallback */
        return;
    }
    enum cgs_lower_kind k = (enum cgs_lower_kind)c->lower_kind[n->index];
    flags = c->lower_flags[n->index];
    switch (k) {
    case CGS_LOWER_LOWERED:
        break;
    case CGS_LOWER_MAYBE_FALLBACK:
        ln->fallback = CGS_FALLBACK_MAYBE;
        break;
    case CGS_LOWER_FALLBACK:
        ln->fallback = CGS_FALLBACK_KERNEL;
        break;
    case CGS_LOWER_NONE:
        if (!overload) {
            ln->fallback = CGS_FALLBACK_ERROR;
            return;
        }
        if (flags & CGS_LOWERF_FALLBACK_ALLOWED) {
            ln->fallback = CGS_FALLBACK_KERNEL; /* made without constraint */
            return;
        }
        ln->fallback = CGS_FALLBACK_IMPLICIT;
        break;
    }
    /* layout constraints on the inputs: the op's tag first, then registered ones */
    if (flags & CGS_LOWERF_EXACT_STRIDES)
        ln->constraint = CGS_CONSTRAINT_EXACT_STRIDES;
    else if (flags & CGS_LOWERF_CONTIGUOUS_STRIDES)
        ln->constraint = CGS_CONSTRAINT_CONTIGUOUS;
    else if (flags & CGS_LOWERF_FIXED_STRIDE_ORDER)
        ln->constraint = CGS_CONSTRAINT_FX_STRIDE_ORDER;
    else if (flags & CGS_LOWERF_FLEXIBLE_LAYOUT)
        ln->constraint = CGS_CONSTRAINT_NONE;
    else if (k == CGS_LOWER_NONE) {
        /* implicit fallback: builtin ops in backward graphs need contiguous inputs;
         * custom ops get functorch's custom_op_default_layout_constraint */
        if (cgs_target_is_builtin(n->target))
            ln->constraint = l->is_backward ? CGS_CONSTRAINT_CONTIGUOUS : CGS_CONSTRAINT_NONE;
        else
            ln->constraint = (CGS_INDUCTOR_CUSTOM_OP_DEFAULT_TAG & CGS_LOWERF_EXACT_STRIDES)
                                 ? CGS_CONSTRAINT_EXACT_STRIDES
                                 : CGS_CONSTRAINT_FX_STRIDE_ORDER;
    } else if (flags & CGS_LOWERF_CONSTRAIN_FX_STRIDES)
        ln->constraint = CGS_CONSTRAINT_FX_STRIDE_ORDER;
    else if ((flags & CGS_LOWERF_CONSTRAIN_CONV_FX_STRIDES) && !l->layout_opt)
        ln->constraint = CGS_CONSTRAINT_FX_STRIDE_ORDER;
}

static int strides_and_pins(struct ctx *c)
{
    struct cgs_graph *g = c->g;
    struct cgs_layout *l = c->l;
    int64_t size[CGS_MAX_NDIM], stride[CGS_MAX_NDIM], cl[4];
    unsigned asops = c->v211 ? CGS_LOWERF_ROLE_AS_STRIDED : CGS_LOWERF_ROLE_AS_STRIDED_21;

    user_visible(c);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        struct cgs_layout_node *ln = &l->nodes[i];
        const struct cgs_tensor *t = val_tensor(node_val(c, n));

        fallback_and_constraint(c, n, ln);
        for (uint32_t k = 0; k < n->n_users; k++) {
            const struct cgs_node *u = n->users[k];
            ln->is_output |= u->op == CGS_NODE_OUTPUT;
            ln->as_strided_input |= has_role(c, u, asops);
        }
        if (!t)
            continue;
        bool ints = tensor_ints(c, t, size, stride);
        bool unbacked = strides_unbacked(t);
        ln->dense = ints && dense_ints(t->ndim, size, stride);
        bool cl_ok = !unbacked && ln->dense && t->ndim == 4 && ln->prefer_cl &&
                     !ln->user_visible && !ln->as_strided_input;
        if (ints && t->ndim == 4)
            channels_last_strides(size, cl);

        /* outputs and as_strided inputs: eager strides, or NHWC */
        if ((ln->is_output || ln->as_strided_input) && ints && t->ndim > 0 && !unbacked &&
            (c->v211 || ln->dense)) {
            ln->ndim = t->ndim;
            ln->order = cgs_arena_alloc(&l->arena, t->ndim);
            if (!ln->order)
                return -CGS_E_NOMEM;
            if (cl_ok) {
                static const uint8_t nhwc[4] = {3, 0, 2, 1}; /* ir.NHWC_STRIDE_ORDER */
                ln->req = CGS_STRIDE_CHANNELS_LAST;
                if (c->v211)
                    stride_order(4, cl, ln->order);
                else
                    memcpy(ln->order, nhwc, 4);
            } else {
                ln->req = ln->user_visible ? CGS_STRIDE_USER_VISIBLE : CGS_STRIDE_EAGER;
                stride_order(t->ndim, stride, ln->order);
            }
        }
        ln->cl_if_realized = c->v211 && cl_ok && ints;

        /* several users, one of which needs realized inputs */
        if (n->n_users > 1) {
            for (uint32_t k = 0; k < n->n_users; k++) {
                const struct cgs_node *u = n->users[k];
                unsigned uf = c->lower_flags[u->index];
                if (u->op != CGS_NODE_CALL_FUNCTION)
                    continue;
                if (!(uf & CGS_LOWERF_NEEDS_REALIZED_INPUTS))
                    continue;
                ln->realize_hint = true;
                bool fixed = has_role(c, u, CGS_LOWERF_ROLE_NEEDS_FIXED_LAYOUT) ||
                             (!l->layout_opt && has_role(c, u, CGS_LOWERF_ROLE_CONV)) ||
                             (!c->v211 && has_role(c, u, CGS_LOWERF_ROLE_NEEDS_FIXED_CL_21));
                bool fixed_cl = c->v211 && has_role(c, u, CGS_LOWERF_ROLE_NEEDS_FIXED_CL) &&
                                u->n_args && u->args[0].kind == CGS_ARG_NODE &&
                                u->args[0].u.node == n;
                if (!ints || !t->ndim)
                    continue;
                if ((fixed && !ln->pinned_by) || (fixed_cl && !ln->pinned_cl_by)) {
                    if (!ln->pin_order) {
                        ln->pin_order = cgs_arena_alloc(&l->arena, t->ndim);
                        if (!ln->pin_order)
                            return -CGS_E_NOMEM;
                    }
                    if (fixed && !ln->pinned_by) {
                        ln->pinned_by = u;
                        if (!ln->pinned_cl_by)
                            stride_order(t->ndim, stride, ln->pin_order);
                    }
                    if (fixed_cl && !ln->pinned_cl_by && t->ndim == 4) {
                        ln->pinned_cl_by = u;
                        stride_order(4, cl, ln->pin_order);
                    }
                    if (!ln->ndim)
                        ln->ndim = t->ndim;
                }
            }
        }
    }
    return 0;
}

/* ---- the pass ------------------------------------------------------------------------ */

/* Values the graph does not record come from shape inference (lib/passes/shapes.c). */
static void infer_missing(struct ctx *c)
{
    struct cgs_graph *g = c->g;
    struct cgs_shapes *sh = NULL;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_shapes_opts so = {.reinfer = false};
    uint32_t missing = 0;

    for (uint32_t i = 0; i < g->n_nodes; i++)
        missing += !g->nodes[i]->val && g->nodes[i]->op != CGS_NODE_OUTPUT;
    if (!missing)
        return;
    if (cgs_shapes_infer(g, &so, &sh, &d) < 0) {
        cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_UNKNOWN, NULL,
                       "layout: %u nodes have no recorded value and shape inference failed: %s",
                       missing, d.msg);
        return;
    }
    c->shapes = sh;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        c->l->n_inferred += !g->nodes[i]->val && sh->nodes[i].val;
}

void cgs_layout_free(struct cgs_layout *l)
{
    if (!l)
        return;
    cgs_arena_release(&l->arena);
    free(l);
}

int cgs_layout_run(struct cgs_graph *g, const struct cgs_layout_opts *opts, struct cgs_layout **out,
                   struct cgs_diag *d)
{
    struct cgs_layout_opts def = CGS_LAYOUT_OPTS_INIT;
    struct cgs_layout *l;
    struct ctx c;
    int err;

    *out = NULL;
    if (!g)
        return cgs_diag_set(d, CGS_E_INVAL, "no graph");
    if (!opts)
        opts = &def;
    l = cgs_xcalloc(1, sizeof(*l));
    cgs_arena_init(&l->arena);
    l->graph = g;
    l->opts = *opts;
    switch (opts->mode) {
    case CGS_LAYOUT_MODE_AUTO:
        l->is_inference = g->producer.is_inference > 0;
        l->is_backward = g->producer.is_backward > 0;
        l->mode_reason = "from producer.is_inference / is_backward";
        if (g->producer.is_inference < 0 && g->producer.is_backward <= 0)
            // nothing in a post-grad graph tells exactly: AOTAutograd detaches its inputs, so
            // a training forward graph's placeholders do not require grad either (fixtures:
            // post_grad/*_train.fwd.json)
            l->mode_reason = "producer.is_inference missing: treated as a training forward "
                             "graph (pass --inference if it was compiled under torch.no_grad "
                             "or with an eval-mode model that needs no grad)";
        break;
    case CGS_LAYOUT_MODE_INFERENCE:
        l->is_inference = true;
        l->mode_reason = "--inference";
        break;
    case CGS_LAYOUT_MODE_TRAINING:
        l->mode_reason = "--training";
        break;
    case CGS_LAYOUT_MODE_BACKWARD:
        l->is_backward = true;
        l->mode_reason = "--backward";
        break;
    }
    l->n_nodes = g->n_nodes;
    l->nodes = cgs_arena_calloc(&l->arena, g->n_nodes ? g->n_nodes : 1, sizeof(*l->nodes));
    if (!l->nodes) {
        err = cgs_diag_set(d, CGS_E_LIMIT, "graph too large for the layout pass (%u nodes)",
                           g->n_nodes);
        goto fail;
    }
    c = (struct ctx){g, l, opts->rules != CGS_LAYOUT_RULES_2_1, NULL, NULL, NULL};
    /* every call's lowering kind and flags (its roles among them), looked up once */
    c.lower_kind = cgs_xcalloc(g->n_nodes ? g->n_nodes : 1, sizeof(*c.lower_kind));
    c.lower_flags = cgs_xcalloc(g->n_nodes ? g->n_nodes : 1, sizeof(*c.lower_flags));
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i]->op == CGS_NODE_CALL_FUNCTION)
            c.lower_kind[i] = (uint8_t)cgs_inductor_lookup(g->nodes[i]->target, &c.lower_flags[i]);
    if (opts->infer_missing)
        infer_missing(&c);
    if ((err = decide(&c)) < 0 || (err = prefer_channels_last(&c)) < 0 ||
        (err = strides_and_pins(&c)) < 0) {
        free(c.lower_kind);
        free(c.lower_flags);
        cgs_diag_set(d, -err, "layout pass: %s", cgs_strerror(err));
        goto fail;
    }
    free(c.lower_kind);
    free(c.lower_flags);
    *out = l;
    return 0;
fail:
    cgs_layout_free(l);
    return err;
}
