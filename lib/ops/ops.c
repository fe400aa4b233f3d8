/*
 * The operator table, generated from lib/ops/op-list.h, and its lookups.
 */
#include "lib/ops/ops.h"

#include "lib/base/arena.h"
#include "lib/base/nearest.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

const struct cgs_op_info cgs_ops[CGS_OP_COUNT] = {
    [CGS_OP_UNKNOWN] = {.name = "", .schema = "", .rule_name = "", .infer = NULL, .flags = 0},
#define OP(id, target, rule, schema_, flags_)                                                      \
    [CGS_OP_##id] = {                                                                              \
        .name = target,                                                                            \
        .schema = schema_,                                                                         \
        .rule_name = #rule,                                                                        \
        .infer = cgs_shape_rule_##rule,                                                            \
        .flags = (flags_),                                                                         \
    },
#include "lib/ops/op-list.h"
#undef OP
};

const struct cgs_op_info *cgs_op_info(enum cgs_op op)
{
    if ((unsigned)op >= CGS_OP_COUNT)
        return &cgs_ops[CGS_OP_UNKNOWN];
    return &cgs_ops[op];
}

/* First index in [1, COUNT) whose name is >= key (byte order). */
static size_t lower_bound(const char *key)
{
    size_t lo = 1, hi = CGS_OP_COUNT;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(cgs_ops[mid].name, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

enum cgs_op cgs_op_lookup_exact(const char *target)
{
    size_t i;

    if (!target || !*target)
        return CGS_OP_UNKNOWN;
    i = lower_bound(target);
    if (i < CGS_OP_COUNT && !strcmp(cgs_ops[i].name, target))
        return (enum cgs_op)i;
    return CGS_OP_UNKNOWN;
}

/* A name is a packet when it has namespace.name and no overload part. */
static size_t count_dots(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += *s == '.';
    return n;
}

enum cgs_op cgs_op_lookup(const char *target)
{
    enum cgs_op op = cgs_op_lookup_exact(target);
    size_t len, i;

    if (op == CGS_OP_UNKNOWN && target && !strncmp(target, "_operator.", 10)) {
        /* Python's operator module is _operator underneath: one entry for both spellings */
        char buf[128];
        if (snprintf(buf, sizeof(buf), "operator.%s", target + 10) < (int)sizeof(buf))
            return cgs_op_lookup_exact(buf);
    }
    if (op != CGS_OP_UNKNOWN || !target || count_dots(target) != 1)
        return op;
    // a packet: the first entry named "target.<overload>"
    len = strlen(target);
    for (i = lower_bound(target); i < CGS_OP_COUNT; i++) {
        const char *name = cgs_ops[i].name;
        if (strncmp(name, target, len))
            break;
        if (name[len] == '.' && !strchr(name + len + 1, '.'))
            return (enum cgs_op)i;
    }
    return CGS_OP_UNKNOWN;
}

static bool is_python_module(const char *name)
{
    static const char *const mods[] = {"torch.", "operator.", "builtins.", "math.", "_operator.",
                                       NULL};
    for (size_t i = 0; mods[i]; i++)
        if (!strncmp(name, mods[i], strlen(mods[i])))
            return true;
    return false;
}

/*
 * MagiCompiler's rule (resolve_defined_ops): a name is resolved to operator overloads (a
 * packet name to all its overloads) and a node matches when its target is one of them, or
 * when the target is a packet (a Dynamo graph's custom op) whose .default is one of them.
 * Python callables (torch.*, operator.*) are not packets.
 */
bool cgs_op_name_matches(const char *name, const char *target)
{
    size_t len;
    char dotted[256];

    if (!name || !target)
        return false;
    /* each way below has one of the two start the other (a "::" spelling keeps its first
       byte): most declarations are told apart at once */
    if (name[0] != target[0] && name[0] != ':')
        return false;
    if (strstr(name, "::")) {
        // torch's own spelling "vllm::unified_attention" (torch.ops.vllm.unified_attention)
        size_t k = 0;
        for (const char *p = name; *p && k + 1 < sizeof(dotted); p++) {
            dotted[k++] = *p == ':' && p[1] == ':' ? '.' : *p;
            p += *p == ':' && p[1] == ':';
        }
        dotted[k] = '\0';
        name = dotted;
    }
    if (!strcmp(name, target))
        return true;
    len = strlen(name);
    if (count_dots(name) == 1 && !is_python_module(name) && !strncmp(name, target, len) &&
        target[len] == '.' && target[len + 1] && !strchr(target + len + 1, '.'))
        return true;
    len = strlen(target);
    if (count_dots(target) == 1 && !strncmp(name, target, len) && !strcmp(name + len, ".default"))
        return true;
    return false;
}

const char *cgs_op_suggest(const char *target)
{
    size_t len, cap;
    struct cgs_nearest nr;

    if (!target || !*target)
        return NULL;
    len = strlen(target);
    cap = len < 6 ? 1 : len < 16 ? 2 : 3;
    cgs_nearest_init(&nr, target, cap);
    for (size_t i = 1; i < CGS_OP_COUNT && nr.best_d > 1; i++)
        if (cgs_ops[i].infer != cgs_shape_rule_none) /* suggest what cgscope can infer */
            cgs_nearest_offer(&nr, cgs_ops[i].name);
    return nr.best;
}

bool cgs_op_target_has(const char *target, unsigned flags)
{
    enum cgs_op op = cgs_op_lookup(target);

    return op != CGS_OP_UNKNOWN && (cgs_ops[op].flags & flags) == flags;
}

/*
 * Splitting-op presets. Each mirrors an upstream default list, named with the file it comes
 * from; members are written in the spec's target syntax (torch's "vllm::x" is "vllm.x").
 */
static const char *const preset_vllm[] = {
    "vllm.unified_attention",     "vllm.unified_attention_with_output",
    "vllm.unified_mla_attention", "vllm.unified_mla_attention_with_output",
    "vllm.mamba_mixer2",          "vllm.mamba_mixer",
    "vllm.short_conv",            "vllm.linear_attention",
    "vllm.plamo2_mamba_mixer",    "vllm.gdn_attention_core",
    "vllm.kda_attention",         "vllm.sparse_attn_indexer",
    NULL,
};
static const char *const preset_magi[] = {
    "athena.flash_attn", "infra.flash_attn_func", "magi_compiler.flash_attn", NULL,
};
static const char *const preset_sdpa[] = {
    "torch._C._nn.scaled_dot_product_attention",
    "torch.nn.functional.scaled_dot_product_attention",
    "aten._scaled_dot_product_flash_attention",
    "aten._scaled_dot_product_efficient_attention",
    "aten._scaled_dot_product_cudnn_attention",
    "aten._scaled_dot_product_flash_attention_for_cpu",
    "aten.scaled_dot_product_attention",
    NULL,
};

const struct cgs_op_preset cgs_op_presets[] = {
    {"vllm",
     "vLLM's default splitting ops (CompilationConfig._attention_ops, vllm/config/"
     "compilation.py, vLLM main of 2026)",
     preset_vllm},
    {"magi",
     "MagiCompiler has no default (CompileConfig.splitting_ops is empty; ops registered with "
     "@magi_register_custom_op(is_subgraph_boundary=True) join it): the attention ops its "
     "README and examples register so",
     preset_magi},
    {"sdpa", "torch's scaled_dot_product_attention, at every stage (torch-level and ATen)",
     preset_sdpa},
    {NULL, NULL, NULL},
};

const struct cgs_op_preset *cgs_op_preset_find(const char *name)
{
    if (name && name[0] == '@')
        name++;
    for (const struct cgs_op_preset *p = cgs_op_presets; name && p->name; p++)
        if (!strcmp(p->name, name))
            return p;
    return NULL;
}

bool cgs_target_is_overload(const char *t)
{
    static const char *const py_modules[] = {"torch", "operator", "_operator", "builtins",
                                              "math", "functools"};
    const char *d1 = t ? strchr(t, '.') : NULL;
    if (!d1)
        return false;
    const char *d2 = strchr(d1 + 1, '.');
    if (!d2 || strchr(d2 + 1, '.'))
        return false;
    for (size_t i = 0; i < sizeof(py_modules) / sizeof(py_modules[0]); i++)
        if (strlen(py_modules[i]) == (size_t)(d1 - t) && !strncmp(t, py_modules[i], d1 - t))
            return false;
    return true;
}

bool cgs_target_is_builtin(const char *t)
{
    return t && (!strncmp(t, "aten.", 5) || !strncmp(t, "prims.", 6) || !strncmp(t, "prim.", 5));
}

/* Whether one of target's dotted parts is one of names (NULL-terminated). */
static bool has_part(const char *target, const char *const *names)
{
    for (const char *p = target; p && *p;) {
        const char *e = strchr(p, '.');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        for (size_t i = 0; names[i]; i++)
            if (strlen(names[i]) == n && !strncmp(p, names[i], n))
                return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

bool cgs_op_target_makes_tensor(const char *t)
{
    static const char *const exact[] = {
        "torch.empty", "torch.zeros",  "torch.ones",   "torch.full",
        "torch.rand",  "torch.randn",  "torch.arange", "torch.tensor",
        "aten.empty.memory_format", NULL,
    };
    static const char *const names[] = {"empty", "zeros", "ones", "full", NULL};
    if (!t)
        return false;
    for (size_t i = 0; exact[i]; i++)
        if (!strcmp(t, exact[i]))
            return true;
    /* MagiCompiler also takes any callable whose __name__ is one of names */
    const char *last = strrchr(t, '.');
    return !strncmp(t, "torch.", 6) && has_part(last ? last + 1 : t, names);
}

bool cgs_op_target_reads_data(const char *t)
{
    static const char *const names[] = {
        "nonzero", "item", "unique", "unique_consecutive", "unique_dim", "_unique2",
        "masked_select", "_local_scalar_dense", "tolist", "argwhere", "bincount",
        "repeat_interleave", NULL,
    };
    return t && has_part(t, names);
}
