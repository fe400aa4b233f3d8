/*
 * IR values and arguments as cJSON trees, in graph JSON's VAL / ARG / DIM syntax: the tests'
 * own reading of the spec, kept apart from the writers (lib/writers/report-json.h writes the
 * same straight, with no tree) so that the two are checked against each other
 * (tests/test-graph.c) and graphs are compared as text (tests/graph-digest.h). Header-only.
 */
#ifndef CGS_TESTS_VALUE_TREE_H
#define CGS_TESTS_VALUE_TREE_H

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/ir/graph.h"
#include "lib/ir/symexpr.h"

static inline cJSON *cgs_json_dim(const struct cgs_sym *e)
{
    int64_t v;
    if (!e)
        return cJSON_CreateNull();
    if (cgs_sym_is_int(e, &v) && v > -((int64_t)1 << 53) && v < ((int64_t)1 << 53))
        return cJSON_CreateNumber((double)v);
    char *s = cgs_sym_spelling(e); /* a recorded expression as torch wrote it */
    cJSON *r = cJSON_CreateString(s);
    free(s);
    return r;
}

static inline cJSON *tree_dims(const struct cgs_sym *const *d, uint32_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cgs_json_dim(d[i]));
    return a;
}

static inline cJSON *cgs_json_val(const struct cgs_val *v)
{
    cJSON *o;
    if (!v)
        return cJSON_CreateNull();
    switch (v->kind) {
    case CGS_VAL_NONE: return cJSON_CreateNull();
    case CGS_VAL_BOOL: return cJSON_CreateBool(v->u.b);
    case CGS_VAL_INT: return cJSON_CreateNumber((double)v->u.i);
    case CGS_VAL_FLOAT: return cJSON_CreateNumber(v->u.f);
    case CGS_VAL_LIST:
        o = cJSON_CreateArray();
        for (uint32_t i = 0; i < v->n; i++)
            cJSON_AddItemToArray(o, cgs_json_val(&v->u.items[i]));
        return o;
    case CGS_VAL_SYMINT:
        o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "symint", cgs_json_dim(v->u.s.sym));
        if (v->has_hint)
            cJSON_AddNumberToObject(o, "hint", (double)v->u.s.hint);
        return o;
    case CGS_VAL_SYMFLOAT:
    case CGS_VAL_SYMBOOL:
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, v->kind == CGS_VAL_SYMFLOAT ? "symfloat" : "symbool",
                                v->u.s.text ? v->u.s.text : "");
        if (v->has_hint) {
            if (v->kind == CGS_VAL_SYMFLOAT)
                cJSON_AddNumberToObject(o, "hint", v->u.s.fhint);
            else
                cJSON_AddBoolToObject(o, "hint", v->u.s.hint != 0);
        }
        return o;
    case CGS_VAL_TENSOR: {
        const struct cgs_tensor *t = &v->u.t;
        o = cJSON_CreateObject();
        if (t->dtype == CGS_DTYPE_UNKNOWN)
            cJSON_AddNullToObject(o, "dtype");
        else
            cJSON_AddStringToObject(o, "dtype", cgs_dtypes[t->dtype].name);
        if (t->ndim == CGS_NDIM_UNKNOWN) {
            cJSON_AddNullToObject(o, "shape");
            cJSON_AddNullToObject(o, "stride");
        } else {
            cJSON_AddItemToObject(o, "shape", tree_dims(t->shape, t->ndim));
            if (t->stride)
                cJSON_AddItemToObject(o, "stride", tree_dims(t->stride, t->ndim));
            else
                cJSON_AddNullToObject(o, "stride");
        }
        cJSON_AddItemToObject(o, "storage_offset", cgs_json_dim(t->storage_offset));
        if (t->device)
            cJSON_AddStringToObject(o, "device", t->device);
        else
            cJSON_AddNullToObject(o, "device");
        cJSON_AddBoolToObject(o, "requires_grad", t->requires_grad);
        return o;
    }
    }
    return cJSON_CreateNull();
}


static inline cJSON *cgs_json_arg(const struct cgs_arg *a)
{
    cJSON *o, *l;
    switch (a->kind) {
    case CGS_ARG_NONE: return cJSON_CreateNull();
    case CGS_ARG_BOOL: return cJSON_CreateBool(a->u.b);
    case CGS_ARG_INT: return cJSON_CreateNumber((double)a->u.i);
    case CGS_ARG_FLOAT:
        if (isnan(a->u.f) || isinf(a->u.f)) {
            o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "float",
                                    isnan(a->u.f) ? "nan"
                                    : a->u.f > 0  ? "inf"
                                                  : "-inf");
            return o;
        }
        return cJSON_CreateNumber(a->u.f);
    case CGS_ARG_STR: return cJSON_CreateString(a->u.s);
    case CGS_ARG_LIST:
    case CGS_ARG_SLICE:
        l = cJSON_CreateArray();
        for (uint32_t i = 0; i < a->n; i++)
            cJSON_AddItemToArray(l, cgs_json_arg(&a->u.items[i]));
        if (a->kind == CGS_ARG_LIST)
            return l;
        o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "slice", l);
        return o;
    case CGS_ARG_DICT:
        l = cJSON_CreateArray();
        for (uint32_t i = 0; i + 1 < a->n; i += 2) {
            cJSON *pair = cJSON_CreateArray();
            cJSON_AddItemToArray(pair, cgs_json_arg(&a->u.items[i]));
            cJSON_AddItemToArray(pair, cgs_json_arg(&a->u.items[i + 1]));
            cJSON_AddItemToArray(l, pair);
        }
        o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "dict", l);
        return o;
    case CGS_ARG_NODE:
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "node", a->u.node ? a->u.node->name : "?");
        return o;
    case CGS_ARG_DTYPE:
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "dtype", cgs_dtypes[a->u.dtype].name);
        return o;
    case CGS_ARG_DEVICE:
    case CGS_ARG_MEMFMT:
    case CGS_ARG_LAYOUT:
    case CGS_ARG_REPR:
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o,
                                a->kind == CGS_ARG_DEVICE   ? "device"
                                : a->kind == CGS_ARG_MEMFMT ? "memory_format"
                                : a->kind == CGS_ARG_LAYOUT ? "layout"
                                                            : "repr",
                                a->u.s);
        return o;
    case CGS_ARG_ELLIPSIS:
        o = cJSON_CreateObject();
        cJSON_AddTrueToObject(o, "ellipsis");
        return o;
    case CGS_ARG_SYM: return cgs_json_dim(a->u.sym);
    }
    return cJSON_CreateNull();
}

#endif
