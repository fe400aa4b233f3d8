/*
 * The operator table, generated from lib/op-list.h, and its lookups.
 */
#include "lib/ops.h"

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
#include "lib/op-list.h"
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

/* Whether `packet` + "." + one more component == full. */
static bool is_packet_of(const char *packet, const char *full)
{
    size_t len = strlen(packet);

    if (strncmp(packet, full, len) || full[len] != '.' || !full[len + 1])
        return false;
    return !strchr(full + len + 1, '.') && count_dots(packet) == 1;
}

bool cgs_op_name_matches(const char *name, const char *target)
{
    if (!name || !target)
        return false;
    if (!strcmp(name, target))
        return true;
    return is_packet_of(name, target) || is_packet_of(target, name);
}

bool cgs_op_target_has(const char *target, unsigned flags)
{
    enum cgs_op op = cgs_op_lookup(target);

    return op != CGS_OP_UNKNOWN && (cgs_ops[op].flags & flags) == flags;
}
