#include "lib/writers/report-json.h"

#include "lib/base/arena.h"
#include "lib/writers/jsonw.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void cgs_jsonw_dim(struct jsonw *w, const struct cgs_sym *e)
{
    int64_t v;
    if (!e) {
        jsonw_raw(w, "null", 4);
    } else if (cgs_sym_is_int(e, &v) && v > -((int64_t)1 << 53) && v < ((int64_t)1 << 53)) {
        jsonw_number(w, (double)v);
    } else {
        char *s = cgs_sym_spelling(e);
        jsonw_string(w, s);
        free(s);
    }
}

static void jsonw_dims(struct jsonw *w, const struct cgs_sym *const *d, uint32_t n)
{
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            jsonw_sep(w);
        cgs_jsonw_dim(w, d[i]);
    }
    jsonw_raw(w, "]", 1);
}

void cgs_jsonw_val(struct jsonw *w, const struct cgs_val *v, int depth)
{
    struct jsonw_obj o;
    if (!v || v->kind == CGS_VAL_NONE) {
        jsonw_raw(w, "null", 4);
        return;
    }
    switch (v->kind) {
    case CGS_VAL_BOOL: jsonw_bool(w, v->u.b); return;
    case CGS_VAL_INT: jsonw_number(w, (double)v->u.i); return;
    case CGS_VAL_FLOAT: jsonw_number(w, v->u.f); return;
    case CGS_VAL_LIST:
        jsonw_raw(w, "[", 1);
        for (uint32_t i = 0; i < v->n; i++) {
            if (i)
                jsonw_sep(w);
            cgs_jsonw_val(w, &v->u.items[i], depth + 1); /* an array is a level too */
        }
        jsonw_raw(w, "]", 1);
        return;
    case CGS_VAL_SYMINT:
        jsonw_open(w, &o, depth);
        jsonw_field(w, &o, "symint");
        cgs_jsonw_dim(w, v->u.s.sym);
        if (v->has_hint) {
            jsonw_field(w, &o, "hint");
            jsonw_number(w, (double)v->u.s.hint);
        }
        jsonw_close(w, &o);
        return;
    case CGS_VAL_SYMFLOAT:
    case CGS_VAL_SYMBOOL:
        jsonw_open(w, &o, depth);
        jsonw_field(w, &o, v->kind == CGS_VAL_SYMFLOAT ? "symfloat" : "symbool");
        jsonw_string(w, v->u.s.text ? v->u.s.text : "");
        if (v->has_hint) {
            jsonw_field(w, &o, "hint");
            if (v->kind == CGS_VAL_SYMFLOAT)
                jsonw_number(w, v->u.s.fhint);
            else
                jsonw_bool(w, v->u.s.hint != 0);
        }
        jsonw_close(w, &o);
        return;
    case CGS_VAL_TENSOR: {
        const struct cgs_tensor *t = &v->u.t;
        jsonw_open(w, &o, depth);
        jsonw_field(w, &o, "dtype");
        if (t->dtype == CGS_DTYPE_UNKNOWN)
            jsonw_raw(w, "null", 4);
        else
            jsonw_string(w, cgs_dtypes[t->dtype].name);
        jsonw_field(w, &o, "shape");
        if (t->ndim == CGS_NDIM_UNKNOWN)
            jsonw_raw(w, "null", 4);
        else
            jsonw_dims(w, t->shape, t->ndim);
        jsonw_field(w, &o, "stride");
        if (t->ndim == CGS_NDIM_UNKNOWN || !t->stride)
            jsonw_raw(w, "null", 4);
        else
            jsonw_dims(w, t->stride, t->ndim);
        jsonw_field(w, &o, "storage_offset");
        cgs_jsonw_dim(w, t->storage_offset);
        jsonw_field(w, &o, "device");
        if (t->device)
            jsonw_string(w, t->device);
        else
            jsonw_raw(w, "null", 4);
        jsonw_field(w, &o, "requires_grad");
        jsonw_bool(w, t->requires_grad);
        jsonw_close(w, &o);
        return;
    }
    default: jsonw_raw(w, "null", 4); return;
    }
}

/* An object of one member key: v (a string). */
static void one_member(struct jsonw *w, int depth, const char *key, const char *v)
{
    struct jsonw_obj o;
    jsonw_open(w, &o, depth);
    jsonw_field_str(w, &o, key, v);
    jsonw_close(w, &o);
}

void cgs_jsonw_arg(struct jsonw *w, const struct cgs_arg *a, int depth)
{
    struct jsonw_obj o;
    switch (a->kind) {
    case CGS_ARG_NONE: jsonw_raw(w, "null", 4); return;
    case CGS_ARG_BOOL: jsonw_bool(w, a->u.b); return;
    case CGS_ARG_INT: jsonw_number(w, (double)a->u.i); return;
    case CGS_ARG_FLOAT:
        if (isnan(a->u.f) || isinf(a->u.f))
            one_member(w, depth, "float", isnan(a->u.f) ? "nan" : a->u.f > 0 ? "inf" : "-inf");
        else
            jsonw_number(w, a->u.f);
        return;
    case CGS_ARG_STR: jsonw_string(w, a->u.s); return;
    case CGS_ARG_LIST:
    case CGS_ARG_SLICE:
    case CGS_ARG_DICT: {
        /* a slice's and a dict's list is one level further down, in their object */
        int d = a->kind == CGS_ARG_LIST ? depth : depth + 1;
        if (a->kind != CGS_ARG_LIST) {
            jsonw_open(w, &o, depth);
            jsonw_field(w, &o, a->kind == CGS_ARG_SLICE ? "slice" : "dict");
        }
        jsonw_raw(w, "[", 1);
        if (a->kind == CGS_ARG_DICT) {
            for (uint32_t i = 0; i + 1 < a->n; i += 2) {
                if (i)
                    jsonw_sep(w);
                jsonw_raw(w, "[", 1);
                cgs_jsonw_arg(w, &a->u.items[i], d + 2);
                jsonw_sep(w);
                cgs_jsonw_arg(w, &a->u.items[i + 1], d + 2);
                jsonw_raw(w, "]", 1);
            }
        } else {
            for (uint32_t i = 0; i < a->n; i++) {
                if (i)
                    jsonw_sep(w);
                cgs_jsonw_arg(w, &a->u.items[i], d + 1); /* an array is a level too */
            }
        }
        jsonw_raw(w, "]", 1);
        if (a->kind != CGS_ARG_LIST)
            jsonw_close(w, &o);
        return;
    }
    case CGS_ARG_NODE: one_member(w, depth, "node", a->u.node ? a->u.node->name : "?"); return;
    case CGS_ARG_DTYPE: one_member(w, depth, "dtype", cgs_dtypes[a->u.dtype].name); return;
    case CGS_ARG_DEVICE:
    case CGS_ARG_MEMFMT:
    case CGS_ARG_LAYOUT:
    case CGS_ARG_REPR:
        one_member(w, depth,
                   a->kind == CGS_ARG_DEVICE   ? "device"
                   : a->kind == CGS_ARG_MEMFMT ? "memory_format"
                   : a->kind == CGS_ARG_LAYOUT ? "layout"
                                               : "repr",
                   a->u.s);
        return;
    case CGS_ARG_ELLIPSIS:
        jsonw_open(w, &o, depth);
        jsonw_field_bool(w, &o, "ellipsis", true);
        jsonw_close(w, &o);
        return;
    case CGS_ARG_SYM: cgs_jsonw_dim(w, a->u.sym); return;
    }
    jsonw_raw(w, "null", 4);
}

static void describe_dims(const struct cgs_sym *const *d, uint32_t n, struct cgs_buf *out)
{
    cgs_buf_addch(out, '[');
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            cgs_buf_addstr(out, ", ");
        if (d[i] && d[i]->recorded)
            cgs_buf_addstr(out, d[i]->recorded);
        else if (d[i])
            cgs_sym_print(d[i], out);
        else
            cgs_buf_addch(out, '?');
    }
    cgs_buf_addch(out, ']');
}

void cgs_val_describe(const struct cgs_val *v, struct cgs_buf *out)
{
    if (!v) {
        cgs_buf_addstr(out, "?");
        return;
    }
    switch (v->kind) {
    case CGS_VAL_NONE: cgs_buf_addstr(out, "None"); break;
    case CGS_VAL_BOOL: cgs_buf_addstr(out, v->u.b ? "True" : "False"); break;
    case CGS_VAL_INT: cgs_buf_addint(out, (long long)v->u.i); break;
    case CGS_VAL_FLOAT: cgs_buf_addf(out, "%g", v->u.f); break;
    case CGS_VAL_SYMINT:
        cgs_buf_addstr(out, "symint ");
        if (v->u.s.sym && v->u.s.sym->recorded)
            cgs_buf_addstr(out, v->u.s.sym->recorded);
        else
            cgs_sym_print(v->u.s.sym, out);
        break;
    case CGS_VAL_SYMFLOAT: cgs_buf_addf(out, "symfloat %s", v->u.s.text ? v->u.s.text : "?"); break;
    case CGS_VAL_SYMBOOL: cgs_buf_addf(out, "symbool %s", v->u.s.text ? v->u.s.text : "?"); break;
    case CGS_VAL_LIST:
        cgs_buf_addch(out, '(');
        for (uint32_t i = 0; i < v->n; i++) {
            if (i)
                cgs_buf_addstr(out, ", ");
            cgs_val_describe(&v->u.items[i], out);
        }
        cgs_buf_addch(out, ')');
        break;
    case CGS_VAL_TENSOR:
        cgs_buf_addstr(out, cgs_dtype_abbr(v->u.t.dtype));
        if (v->u.t.ndim == CGS_NDIM_UNKNOWN)
            cgs_buf_addstr(out, "[...]");
        else
            describe_dims(v->u.t.shape, v->u.t.ndim, out);
        if (v->u.t.device && strcmp(v->u.t.device, "cuda:0")) {
            cgs_buf_addch(out, '@');
            cgs_buf_addstr(out, v->u.t.device);
        }
        break;
    }
}

/* ---- texts of values met again --------------------------------------------------------- */

static bool known_tensor(const struct cgs_val *v)
{
    return v && v->kind == CGS_VAL_TENSOR && v->u.t.ndim != CGS_NDIM_UNKNOWN &&
           v->u.t.ndim <= CGS_MAX_NDIM;
}

/* From the expressions' structural hashes (not their addresses: the same slots every run). */
static uint64_t tensor_hash(const struct cgs_tensor *t)
{
    uint64_t h = (uint64_t)t->dtype * 0x9E3779B97F4A7C15ull ^ t->ndim;
    for (uint32_t i = 0; i < t->ndim; i++)
        h = (h ^ (t->shape[i] ? t->shape[i]->hash : 1u)) * 0x100000001b3ull;
    for (uint32_t i = 0; t->stride && i < t->ndim; i++)
        h = (h ^ (t->stride[i] ? t->stride[i]->hash : 1u)) * 0x100000001b3ull;
    h ^= t->storage_offset ? t->storage_offset->hash : 1u;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static bool same_dims(const struct cgs_sym *const *a, const struct cgs_sym *const *b, uint32_t n)
{
    if (a == b)
        return true;
    if (!a || !b)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

static bool same_tensor(const struct cgs_tensor *a, const struct cgs_tensor *b)
{
    return a->dtype == b->dtype && a->ndim == b->ndim && a->requires_grad == b->requires_grad &&
           a->storage_offset == b->storage_offset &&
           (a->device == b->device || (a->device && b->device && !strcmp(a->device, b->device))) &&
           same_dims(a->shape, b->shape, a->ndim) && same_dims(a->stride, b->stride, a->ndim);
}

void cgs_val_text(struct cgs_val_texts *m, const struct cgs_val *v,
                  void (*fn)(const struct cgs_val *v, struct cgs_buf *b), struct cgs_buf *b)
{
    size_t start = b->len;
    if (!known_tensor(v)) {
        fn(v, b);
        return;
    }
    /* two ways a set: the newer first, the older dropped for a third */
    size_t k = (size_t)(tensor_hash(&v->u.t) % (CGS_VAL_TEXTS / 2)) * 2;
    for (size_t w = k; w < k + 2; w++)
        if (m->slot[w].v && (m->slot[w].v == v || same_tensor(&m->slot[w].v->u.t, &v->u.t))) {
            cgs_buf_add(b, m->slot[w].text, m->slot[w].len);
            return;
        }
    fn(v, b);
    free(m->slot[k + 1].text);
    m->slot[k + 1] = m->slot[k];
    m->slot[k].v = v;
    m->slot[k].len = b->len - start;
    m->slot[k].text = cgs_xmalloc(m->slot[k].len + 1);
    memcpy(m->slot[k].text, b->buf + start, m->slot[k].len);
}

void cgs_val_texts_release(struct cgs_val_texts *m)
{
    for (size_t k = 0; k < CGS_VAL_TEXTS; k++)
        free(m->slot[k].text);
    memset(m, 0, sizeof(*m));
}
