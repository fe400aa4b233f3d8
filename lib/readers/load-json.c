/*
 * The graph JSON reader.
 *
 * cJSON parses, one node at a time: a light scanner first finds the extent of
 * each top-level member and of each element of "nodes", so that the cJSON tree
 * of only one node is alive at once (a 10^6-node graph would otherwise need
 * gigabytes of tree). The scanner also records where each value starts, which
 * gives exact line:col for errors, the text of every number (cJSON keeps only
 * a double, which loses int vs float and integers past 2^53), and the first
 * syntax error with what was expected there.
 *
 * No cJSON pointer leaves this file.
 */
#define _GNU_SOURCE /* sched_getaffinity: the cores this process may use */
#include "lib/readers/load.h"

#include "lib/base/json-alloc.h"
#include "lib/readers/json-scan.h"
#include "lib/readers/load-json-int.h"
#include "lib/base/utf8.h"
#include "lib/base/strmap.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif
#include <sys/stat.h>
#include <unistd.h>

/* The cJSON trees of the nodes come from a bump region (lib/base/json-alloc.h) reset after each
 * node: allocation is a pointer bump, and a node's tree is dropped without a cJSON_Delete walk. */

/* the loader's state: lib/readers/load-json-int.h (the direct walk reads it too) */

static int fail_at(struct loader *L, size_t off, int code, const char *fmt, ...) CGS_PRINTF(4, 5);

static void format_path(const struct loader *L, char *out, size_t n)
{
    size_t len = L->node_at >= 0
                     ? (size_t)snprintf(out, n, "%snodes[%ld]", L->node_prefix, L->node_at)
                     : (size_t)snprintf(out, n, "%s", L->path);
    if (len >= n)
        len = n ? n - 1 : 0;
    for (size_t i = 0; i < L->n_segs && len < n; i++) {
        int w = L->segs[i].key ? snprintf(out + len, n - len, ".%s", L->segs[i].key)
                               : snprintf(out + len, n - len, "[%ld]", L->segs[i].index);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

static int fail_at(struct loader *L, size_t off, int code, const char *fmt, ...)
{
    uint32_t line, col;
    va_list ap;
    if (L->d) {
        L->d->code = code;
        va_start(ap, fmt);
        vsnprintf(L->d->msg, sizeof(L->d->msg), fmt, ap);
        va_end(ap);
        if (L->buf) {
            cgs_text_position(L->buf, L->len, off, &line, &col);
            cgs_diag_at(L->d, L->file, line, col);
        } else {
            cgs_diag_at(L->d, L->file, L->tree_line, 0);
        }
        format_path(L, L->d->path, sizeof(L->d->path));
    }
    return -code;
}

/* ---- the scanner (lib/readers/json-scan.c), its errors as the loader's ------------------- */

static size_t skip_ws(const struct loader *L, size_t p)
{
    return cgs_jscan_ws(&L->js, p);
}

static const char *what_at(struct loader *L, size_t p)
{
    return cgs_jscan_what(&L->js, p);
}

static int scan_error(struct loader *L, int err)
{
    return fail_at(L, L->js.err_off, -err, "%s", L->js.err_msg);
}

static int scan_value(struct loader *L, size_t p, size_t *end)
{
    int err = cgs_jscan_value(&L->js, p, end);
    return err ? scan_error(L, err) : 0;
}

static int scan_string(struct loader *L, size_t p, size_t *end)
{
    int err = cgs_jscan_string(&L->js, p, end);
    return err ? scan_error(L, err) : 0;
}

/* ---- from scanner offsets to cJSON items -------------------------------------- */

/* The source offset of item x in the current element (preorder position). */
static size_t item_offset(const struct loader *L, const cJSON *x)
{
    const cJSON *stack[CGS_LOAD_MAX_DEPTH + 2];
    int sp = 0;
    size_t k = 0;
    const cJSON *it = L->elem;

    if (!x || !it)
        return L->elem_base;
    while (it) {
        if (it == x)
            return k < L->js.n_offs ? L->js.offs[k] : L->elem_base;
        k++;
        if (it->child && !cJSON_IsNumber(it)) {
            stack[sp++] = it;
            it = it->child;
            continue;
        }
        while (it && !it->next && sp)
            it = stack[--sp];
        it = (it && it != L->elem) ? it->next : NULL;
    }
    return L->elem_base;
}

static int fail_item(struct loader *L, const cJSON *x, int code, const char *fmt, ...)
    CGS_PRINTF(4, 5);

static int fail_item(struct loader *L, const cJSON *x, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return fail_at(L, item_offset(L, x), code, "%s", msg);
}

/* ---- paths ---------------------------------------------------------------------- */

static size_t path_key(struct loader *L, const char *key)
{
    size_t old = L->n_segs;
    if (old < sizeof(L->segs) / sizeof(L->segs[0]))
        L->segs[L->n_segs++] = (struct path_seg){key, 0};
    return old;
}

static size_t path_idx(struct loader *L, long index)
{
    size_t old = L->n_segs;
    if (old < sizeof(L->segs) / sizeof(L->segs[0]))
        L->segs[L->n_segs++] = (struct path_seg){NULL, index};
    return old;
}

static void path_pop(struct loader *L, size_t old)
{
    L->n_segs = old;
}

/* ---- numbers ------------------------------------------------------------------- */

/* numbers from their text: cgs_json_number_is_int / _int (lib/readers/json-scan.h), one
   reading for graph JSON and .pt2 */


static int get_int(struct loader *L, const cJSON *x, int64_t *v)
{
    if ((x->type & 0xFF) != cJSON_Number || !cgs_json_number_is_int(x))
        return fail_item(L, x, CGS_E_SCHEMA, "expected an integer, got %s", cgs_json_type(x));
    if (!cgs_json_number_int(x, v))
        return fail_item(L, x, CGS_E_LIMIT, "integer out of the 64-bit range");
    return 0;
}

static double get_double(const cJSON *x)
{
    return x->valuestring ? strtod(x->valuestring, NULL) : x->valuedouble;
}

/* ---- DIMs and VALs ---------------------------------------------------------------- */

int cgs_load_dim_text(struct loader *L, struct cgs_graph *g, const char *t, bool is_size,
                      const struct cgs_sym **out, struct cgs_diag *pd)
{
    int64_t v;
    int err;
    const struct cgs_sym *cached = cgs_strmap_get(L->dims, t);
    if (cached) {
        *out = cached;
        return 1;
    }
    err = cgs_sym_parse(g->syms, t, out, pd);
    if (!err && !(is_size && cgs_sym_is_int(*out, &v) && v < 0)) {
        char *kept = cgs_arena_strdup(g->arena, t);
        cgs_strmap_put(L->dims, kept, (void *)*out);
        cgs_sym_note_spelling(g->syms, *out, kept); /* reported as torch wrote it */
    }
    return err;
}

int cgs_load_dim(struct loader *L, struct cgs_graph *g, const char *t, bool num, bool is_size,
                 const struct cgs_sym **out, struct cgs_diag *pd, uint32_t *col)
{
    int64_t v;
    int err;
    *col = 0;
    if (num) {
        if (!t || !cgs_json_text_is_int(t))
            return cgs_diag_set(pd, CGS_E_SCHEMA, "expected an integer, got a number");
        if (!cgs_json_text_int(t, &v))
            return cgs_diag_set(pd, CGS_E_LIMIT, "integer out of the 64-bit range");
        if (is_size && v < 0)
            return cgs_diag_set(pd, CGS_E_SCHEMA, "expected a size >= 0, got %lld", (long long)v);
        if (v > CGS_LOAD_MAX_DIM || v < -CGS_LOAD_MAX_DIM)
            return cgs_diag_set(pd, CGS_E_LIMIT, "size %lld is past the limit of 2^62",
                                (long long)v);
        *out = cgs_sym_int(g->syms, v);
        return 0;
    }
    if ((err = cgs_load_dim_text(L, g, t, is_size, out, pd)) > 0)
        return 0; /* known */
    if (err && g->syms->unknown_fn && cgs_sym_mentions_torch_function(t) && strlen(t) < 4096) {
        // torch's sympy vocabulary the parser does not take: an unknown dim (partial
        // knowledge, a warning), so the graph still loads and everything around it is
        // analysed; a malformed call stays a format error
        cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_UNKNOWN, NULL,
                       "dimension '%.200s' uses a sympy function cgscope does not model "
                       "(%s): loaded as unknown",
                       t, pd->msg);
        *out = NULL;
        return 0;
    }
    if (err) {
        char msg[sizeof(pd->msg)];
        snprintf(msg, sizeof(msg), "%s", pd->msg);
        *col = pd->col ? pd->col : 1;
        return cgs_diag_set(pd, -err, "bad dimension: %s", msg);
    }
    if (is_size && cgs_sym_is_int(*out, &v) && v < 0)
        return cgs_diag_set(pd, CGS_E_SCHEMA, "expected a size >= 0, got %lld", (long long)v);
    return 0;
}

static int get_dim(struct loader *L, struct cgs_graph *g, const cJSON *x, bool is_size,
                   const struct cgs_sym **out)
{
    struct cgs_diag pd = CGS_DIAG_INIT;
    uint32_t col;
    int err;
    if (!cJSON_IsNumber(x) && !cJSON_IsString(x))
        return fail_item(L, x, CGS_E_SCHEMA,
                         "expected a dimension (an integer or an expression string), got %s",
                         cgs_json_type(x));
    if (!(err = cgs_load_dim(L, g, x->valuestring, cJSON_IsNumber(x), is_size, out, &pd, &col)))
        return 0;
    if (col) /* at the place in the expression's text */
        return fail_at(L, item_offset(L, x) + col, -err, "%s", pd.msg);
    return fail_item(L, x, -err, "%s", pd.msg);
}

static int get_dims(struct loader *L, struct cgs_graph *g, const cJSON *arr, const char *key,
                    bool is_size, uint32_t *n, const struct cgs_sym ***out)
{
    int count, err = 0;
    size_t old = path_key(L, key);
    if (!cJSON_IsArray(arr)) {
        err = fail_item(L, arr, CGS_E_SCHEMA, "expected an array for '%s', got %s", key,
                        cgs_json_type(arr));
        goto out;
    }
    count = cJSON_GetArraySize(arr);
    if (count > CGS_MAX_NDIM) {
        err = fail_item(L, arr, CGS_E_LIMIT, "%d dimensions, more than the limit of %d", count,
                        CGS_MAX_NDIM);
        goto out;
    }
    if (*n != CGS_NDIM_UNKNOWN && (uint32_t)count != *n) {
        err = fail_item(L, arr, CGS_E_SCHEMA,
                        "expected %u entries in '%s' (one per dimension), "
                        "got %d",
                        *n, key, count);
        goto out;
    }
    *n = (uint32_t)count;
    *out = cgs_arena_calloc(g->arena, count ? (size_t)count : 1, sizeof(**out));
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, arr)
    {
        size_t o2 = path_idx(L, i);
        err = get_dim(L, g, x, is_size, &(*out)[i]);
        if (err)
            goto out;
        path_pop(L, o2);
        i++;
    }
out:
    if (!err)
        path_pop(L, old);
    return err;
}

static int get_tensor(struct loader *L, struct cgs_graph *g, const cJSON *x, struct cgs_tensor *t)
{
    const cJSON *dt = NULL, *sh = NULL, *st = NULL, *so = NULL, *dev = NULL, *rg = NULL, *it;
    int err;

    /* one pass over the keys; the first of a duplicated key wins, as in cJSON */
    for (it = x->child; it; it = it->next) {
        const char *k = it->string;
        const cJSON **slot = NULL;
        switch (k[0]) {
        case 'd': slot = !strcmp(k, "dtype") ? &dt : !strcmp(k, "device") ? &dev : NULL; break;
        case 's':
            slot = !strcmp(k, "shape")            ? &sh
                   : !strcmp(k, "stride")         ? &st
                   : !strcmp(k, "storage_offset") ? &so
                                                  : NULL;
            break;
        case 'r': slot = !strcmp(k, "requires_grad") ? &rg : NULL; break;
        default: break;
        }
        if (slot && !*slot)
            *slot = it;
    }

    if (!cJSON_IsString(dt)) {
        path_key(L, "dtype");
        return fail_item(L, dt ? dt : x, CGS_E_SCHEMA, "expected a dtype name string, got %s",
                         cgs_json_type(dt));
    }
    t->dtype = cgs_dtype_from_name(dt->valuestring);
    if (t->dtype == CGS_DTYPE_UNKNOWN) {
        path_key(L, "dtype");
        return fail_item(L, dt, CGS_E_SCHEMA, "unknown dtype '%s'", dt->valuestring);
    }
    t->ndim = CGS_NDIM_UNKNOWN;
    if ((err = get_dims(L, g, sh, "shape", true, &t->ndim, &t->shape)))
        return err;
    if (st && !cJSON_IsNull(st)) {
        if ((err = get_dims(L, g, st, "stride", false, &t->ndim, &t->stride)))
            return err;
    }
    if (so && !cJSON_IsNull(so)) {
        size_t old = path_key(L, "storage_offset");
        if ((err = get_dim(L, g, so, true, &t->storage_offset)))
            return err;
        path_pop(L, old);
    } else if (so) {
        t->storage_offset = NULL;
    } else {
        t->storage_offset = cgs_sym_int(g->syms, 0);
    }
    if (dev && !cJSON_IsNull(dev)) {
        if (!cJSON_IsString(dev)) {
            path_key(L, "device");
            return fail_item(L, dev, CGS_E_SCHEMA, "expected a device string, got %s",
                             cgs_json_type(dev));
        }
        t->device = cgs_graph_intern(g, dev->valuestring);
    }
    if (rg && !cJSON_IsNull(rg)) {
        if (!cJSON_IsBool(rg)) {
            path_key(L, "requires_grad");
            return fail_item(L, rg, CGS_E_SCHEMA, "expected true or false, got %s",
                             cgs_json_type(rg));
        }
        t->requires_grad = cJSON_IsTrue(rg);
    }
    return 0;
}

static int get_val(struct loader *L, struct cgs_graph *g, const cJSON *x, struct cgs_val *v,
                   int depth)
{
    int err;
    if (depth > CGS_LOAD_MAX_DEPTH)
        return fail_item(L, x, CGS_E_LIMIT, "value nested too deep");
    if (cJSON_IsNull(x)) {
        v->kind = CGS_VAL_NONE;
    } else if (cJSON_IsBool(x)) {
        v->kind = CGS_VAL_BOOL;
        v->u.b = cJSON_IsTrue(x);
    } else if (cJSON_IsNumber(x)) {
        if (cgs_json_number_is_int(x)) {
            v->kind = CGS_VAL_INT;
            return get_int(L, x, &v->u.i);
        }
        v->kind = CGS_VAL_FLOAT;
        v->u.f = get_double(x);
    } else if (cJSON_IsArray(x)) {
        int n = cJSON_GetArraySize(x), i = 0;
        const cJSON *it;
        v->kind = CGS_VAL_LIST;
        v->n = (uint32_t)n;
        v->u.items = cgs_arena_calloc(g->arena, n ? (size_t)n : 1, sizeof(*v->u.items));
        cJSON_ArrayForEach(it, x)
        {
            size_t old = path_idx(L, i);
            if ((err = get_val(L, g, it, &v->u.items[i], depth + 1)))
                return err;
            path_pop(L, old);
            i++;
        }
    } else if (cJSON_IsObject(x)) {
        const cJSON *s, *hint = cJSON_GetObjectItemCaseSensitive(x, "hint");
        if (cJSON_GetObjectItemCaseSensitive(x, "shape")) {
            v->kind = CGS_VAL_TENSOR;
            return get_tensor(L, g, x, &v->u.t);
        }
        if ((s = cJSON_GetObjectItemCaseSensitive(x, "symint"))) {
            size_t old = path_key(L, "symint");
            v->kind = CGS_VAL_SYMINT;
            if ((err = get_dim(L, g, s, false, &v->u.s.sym)))
                return err;
            path_pop(L, old);
            if (hint && !cJSON_IsNull(hint)) {
                old = path_key(L, "hint");
                if ((err = get_int(L, hint, &v->u.s.hint)))
                    return err;
                path_pop(L, old);
                v->has_hint = true;
            }
        } else if ((s = cJSON_GetObjectItemCaseSensitive(x, "symfloat")) ||
                   (s = cJSON_GetObjectItemCaseSensitive(x, "symbool"))) {
            bool is_float = cJSON_GetObjectItemCaseSensitive(x, "symfloat") != NULL;
            v->kind = is_float ? CGS_VAL_SYMFLOAT : CGS_VAL_SYMBOOL;
            if (cJSON_IsString(s))
                v->u.s.text = cgs_graph_intern(g, s->valuestring);
            else if (cJSON_IsNumber(s) && s->valuestring)
                v->u.s.text = cgs_arena_strndup(g->arena, s->valuestring,
                                                strspn(s->valuestring, "+-0123456789.eE"));
            else if (cJSON_IsBool(s))
                v->u.s.text = cJSON_IsTrue(s) ? "True" : "False";
            else
                return fail_item(L, s, CGS_E_SCHEMA, "expected an expression string, got %s",
                                 cgs_json_type(s));
            if (hint && cJSON_IsNumber(hint)) {
                v->has_hint = true;
                v->u.s.fhint = get_double(hint);
                v->u.s.hint = (int64_t)v->u.s.fhint;
            } else if (hint && cJSON_IsBool(hint)) {
                v->has_hint = true;
                v->u.s.hint = cJSON_IsTrue(hint);
            }
        } else {
            return fail_item(L, x, CGS_E_SCHEMA,
                             "expected a value object with 'shape', "
                             "'symint', 'symfloat' or 'symbool'");
        }
    } else {
        return fail_item(L, x, CGS_E_SCHEMA, "expected a value, got %s", cgs_json_type(x));
    }
    return 0;
}

/* ---- ARGs ---------------------------------------------------------------------------- */

static int get_arg(struct loader *L, struct cgs_graph *g, uint32_t node_index, const cJSON *x,
                   struct cgs_arg *a, int depth);

static int get_arg_list(struct loader *L, struct cgs_graph *g, uint32_t node_index, const cJSON *x,
                        struct cgs_arg *a, int depth)
{
    int n = cJSON_GetArraySize(x), i = 0, err;
    const cJSON *it;
    a->n = (uint32_t)n;
    a->u.items = n ? cgs_arena_calloc(g->arena, (size_t)n, sizeof(*a->u.items)) : NULL;
    cJSON_ArrayForEach(it, x)
    {
        size_t old = path_idx(L, i);
        if ((err = get_arg(L, g, node_index, it, &a->u.items[i], depth + 1)))
            return err;
        path_pop(L, old);
        i++;
    }
    return 0;
}

void cgs_load_defer_ref(struct loader *L, struct cgs_graph *g, uint32_t node_index,
                        const char *name, struct cgs_arg *a)
{
    struct unresolved *u;
    CGS_ALLOC_GROW(L->unres, L->n_unres + 1, L->alloc_unres);
    u = &L->unres[L->n_unres++];
    u->arg = a;
    u->g = g;
    u->node_index = node_index;
    u->name = cgs_arena_strdup(g->arena, name);
    format_path(L, u->path, sizeof(u->path));
    u->off = L->elem_base;
}

static int get_arg(struct loader *L, struct cgs_graph *g, uint32_t node_index, const cJSON *x,
                   struct cgs_arg *a, int depth)
{
    const cJSON *k;
    if (depth > CGS_LOAD_MAX_DEPTH)
        return fail_item(L, x, CGS_E_LIMIT, "argument nested too deep");
    if (cJSON_IsNull(x)) {
        a->kind = CGS_ARG_NONE;
    } else if (cJSON_IsBool(x)) {
        a->kind = CGS_ARG_BOOL;
        a->u.b = cJSON_IsTrue(x);
    } else if (cJSON_IsNumber(x)) {
        if (cgs_json_number_is_int(x)) {
            a->kind = CGS_ARG_INT;
            return get_int(L, x, &a->u.i);
        }
        a->kind = CGS_ARG_FLOAT;
        a->u.f = get_double(x);
    } else if (cJSON_IsString(x)) {
        a->kind = CGS_ARG_STR;
        a->u.s = cgs_graph_intern(g, x->valuestring);
    } else if (cJSON_IsArray(x)) {
        a->kind = CGS_ARG_LIST;
        return get_arg_list(L, g, node_index, x, a, depth);
    } else if (!x->child || x->child->next) {
        return fail_item(L, x, CGS_E_SCHEMA,
                         "expected an argument object with one key "
                         "(node, dtype, device, memory_format, layout, slice, float, ellipsis, "
                         "list, dict or repr)");
    } else {
        k = x->child;
        const char *key = k->string;
        if (!strcmp(key, "node")) {
            struct cgs_node *n;
            if (!cJSON_IsString(k))
                return fail_item(L, k, CGS_E_SCHEMA, "expected a node name string, got %s",
                                 cgs_json_type(k));
            a->kind = CGS_ARG_NODE;
            n = cgs_graph_find(g, k->valuestring);
            if (n && n->index < node_index) {
                a->u.node = n;
            } else {
                /* unknown, later or self: decided once every node is in */
                cgs_load_defer_ref(L, g, node_index, k->valuestring, a);
                L->unres[L->n_unres - 1].off = item_offset(L, k);
            }
        } else if (!strcmp(key, "dtype")) {
            if (!cJSON_IsString(k) ||
                (a->u.dtype = cgs_dtype_from_name(k->valuestring)) == CGS_DTYPE_UNKNOWN)
                return fail_item(L, k, CGS_E_SCHEMA,
                                 "expected a dtype name such as "
                                 "'float32', got %s%s%s",
                                 cgs_json_type(k), cJSON_IsString(k) ? " " : "",
                                 cJSON_IsString(k) ? k->valuestring : "");
            a->kind = CGS_ARG_DTYPE;
        } else if (!strcmp(key, "device") || !strcmp(key, "memory_format") ||
                   !strcmp(key, "layout") || !strcmp(key, "repr")) {
            if (!cJSON_IsString(k))
                return fail_item(L, k, CGS_E_SCHEMA, "expected a string for '%s', got %s", key,
                                 cgs_json_type(k));
            a->kind = key[0] == 'd'   ? CGS_ARG_DEVICE
                      : key[0] == 'm' ? CGS_ARG_MEMFMT
                      : key[0] == 'l' ? CGS_ARG_LAYOUT
                                      : CGS_ARG_REPR;
            a->u.s = cgs_graph_intern(g, k->valuestring);
        } else if (!strcmp(key, "slice")) {
            if (!cJSON_IsArray(k) || cJSON_GetArraySize(k) != 3)
                return fail_item(L, k, CGS_E_SCHEMA, "expected [start, stop, step] for 'slice'");
            a->kind = CGS_ARG_SLICE;
            size_t old = path_key(L, "slice");
            int err = get_arg_list(L, g, node_index, k, a, depth);
            if (err)
                return err;
            path_pop(L, old);
        } else if (!strcmp(key, "float")) {
            const char *s = cJSON_IsString(k) ? k->valuestring : "";
            a->kind = CGS_ARG_FLOAT;
            if (!strcmp(s, "inf"))
                a->u.f = (double)INFINITY;
            else if (!strcmp(s, "-inf"))
                a->u.f = -(double)INFINITY;
            else if (!strcmp(s, "nan"))
                a->u.f = (double)NAN;
            else
                return fail_item(L, k, CGS_E_SCHEMA,
                                 "expected \"inf\", \"-inf\" or \"nan\" "
                                 "for 'float'");
        } else if (!strcmp(key, "list")) {
            if (!cJSON_IsArray(k))
                return fail_item(L, k, CGS_E_SCHEMA, "expected an array for 'list', got %s",
                                 cgs_json_type(k));
            a->kind = CGS_ARG_LIST;
            a->pylist = 1;
            size_t old = path_key(L, "list");
            int err = get_arg_list(L, g, node_index, k, a, depth);
            if (err)
                return err;
            path_pop(L, old);
        } else if (!strcmp(key, "dict")) {
            /* {"dict": [[key, value], ...]}: flattened to key, value, key, value, ... */
            const cJSON *pair;
            uint32_t i = 0;
            if (!cJSON_IsArray(k))
                return fail_item(L, k, CGS_E_SCHEMA, "expected an array of [key, value] pairs "
                                 "for 'dict', got %s", cgs_json_type(k));
            cJSON_ArrayForEach(pair, k)
            {
                if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2)
                    return fail_item(L, pair, CGS_E_SCHEMA, "expected a [key, value] pair in "
                                     "'dict', got %s", cgs_json_type(pair));
            }
            // read straight into their final places: a node reference is recorded by the
            // address of its argument (forward references are resolved through it)
            size_t old = path_key(L, "dict");
            a->kind = CGS_ARG_DICT;
            a->n = (uint32_t)cJSON_GetArraySize(k) * 2;
            a->u.items = a->n ? cgs_arena_calloc(g->arena, a->n, sizeof(*a->u.items)) : NULL;
            cJSON_ArrayForEach(pair, k)
            {
                size_t o2 = path_idx(L, (long)i);
                for (int kv = 0; kv < 2; kv++) {
                    size_t o3 = path_idx(L, kv);
                    int err = get_arg(L, g, node_index, cJSON_GetArrayItem(pair, kv),
                                      &a->u.items[2 * i + (uint32_t)kv], depth + 2);
                    if (err)
                        return err;
                    path_pop(L, o3);
                }
                path_pop(L, o2);
                i++;
            }
            path_pop(L, old);
        } else if (!strcmp(key, "ellipsis")) {
            a->kind = CGS_ARG_ELLIPSIS;
        } else {
            return fail_item(L, x, CGS_E_SCHEMA,
                             "unknown argument kind '%s' (expected node, "
                             "dtype, device, memory_format, layout, slice, float, ellipsis, "
                             "list, dict or repr)",
                             key);
        }
    }
    return 0;
}

/* ---- nodes ------------------------------------------------------------------------ */

/* x: the member `key` of the node (NULL when absent). */
static int opt_string(struct loader *L, struct cgs_graph *g, const cJSON *x, const char *key,
                      const char **out)
{
    *out = NULL;
    if (!x || cJSON_IsNull(x))
        return 0;
    if (!cJSON_IsString(x)) {
        path_key(L, key);
        return fail_item(L, x, CGS_E_SCHEMA, "expected a string for '%s', got %s", key,
                         cgs_json_type(x));
    }
    *out = cgs_graph_intern(g, x->valuestring);
    return 0;
}

static int convert_node(struct loader *L, struct cgs_graph *g, const cJSON *x)
{
    const cJSON *name = NULL, *op = NULL, *target = NULL, *args = NULL, *kwargs = NULL, *val = NULL,
                *stack = NULL, *mpath = NULL, *mtype = NULL, *piece = NULL, *it;
    struct cgs_node *n;
    int opk, err;

    if (!cJSON_IsObject(x))
        return fail_item(L, x, CGS_E_SCHEMA, "expected a node object, got %s", cgs_json_type(x));
    /* one pass over the keys (the first of a duplicated key wins, as in cJSON) */
    for (it = x->child; it; it = it->next) {
        const char *k = it->string;
        const cJSON **slot = NULL;
        switch (k[0]) {
        case 'n': slot = !strcmp(k, "name") ? &name : NULL; break;
        case 'o': slot = !strcmp(k, "op") ? &op : NULL; break;
        case 'p': slot = !strcmp(k, "piece") ? &piece : NULL; break;
        case 't': slot = !strcmp(k, "target") ? &target : NULL; break;
        case 'a': slot = !strcmp(k, "args") ? &args : NULL; break;
        case 'k': slot = !strcmp(k, "kwargs") ? &kwargs : NULL; break;
        case 'v': slot = !strcmp(k, "val") ? &val : NULL; break;
        case 's': slot = !strcmp(k, "stack_trace") ? &stack : NULL; break;
        case 'm':
            slot = !strcmp(k, "module_path")   ? &mpath
                   : !strcmp(k, "module_type") ? &mtype
                                               : NULL;
            break;
        default: break;
        }
        if (slot && !*slot)
            *slot = it;
    }
    if (!cJSON_IsString(name) || !name->valuestring[0]) {
        path_key(L, "name");
        return fail_item(L, name ? name : x, CGS_E_SCHEMA,
                         "%s node 'name': expected a "
                         "non-empty string, got %s",
                         name ? "bad" : "missing", cgs_json_type(name));
    }
    if (!cJSON_IsString(op)) {
        path_key(L, "op");
        return fail_item(L, op ? op : x, CGS_E_SCHEMA,
                         "%s 'op' in node '%s': expected a "
                         "string, got %s",
                         op ? "bad" : "missing", name->valuestring, cgs_json_type(op));
    }
    opk = cgs_node_op_from_name(op->valuestring);
    if (opk < 0) {
        path_key(L, "op");
        return fail_item(L, op, CGS_E_SCHEMA,
                         "unknown op '%s' in node '%s': expected "
                         "placeholder, get_attr, call_function, call_method, call_module or "
                         "output",
                         op->valuestring, name->valuestring);
    }
    if (target && !cJSON_IsNull(target) && !cJSON_IsString(target)) {
        path_key(L, "target");
        return fail_item(L, target, CGS_E_SCHEMA, "expected a string for 'target', got %s",
                         cgs_json_type(target));
    }
    if (!cJSON_IsString(target) && opk != CGS_NODE_OUTPUT && opk != CGS_NODE_PLACEHOLDER) {
        path_key(L, "target");
        return fail_item(L, x, CGS_E_SCHEMA, "missing 'target' in node '%s'", name->valuestring);
    }
    if (g->n_nodes >= CGS_LOAD_MAX_NODES)
        return fail_item(L, x, CGS_E_LIMIT, "more than %u nodes", CGS_LOAD_MAX_NODES);
    n = cgs_graph_add_node(g, (enum cgs_node_op)opk, name->valuestring,
                           cJSON_IsString(target)   ? target->valuestring
                           : opk == CGS_NODE_OUTPUT ? "output"
                                                    : name->valuestring);
    if (!n) {
        const struct cgs_node *first = cgs_graph_find(g, name->valuestring);
        path_key(L, "name");
        return fail_item(L, name, CGS_E_SCHEMA,
                         "duplicate node name '%s' (first defined at "
                         "nodes[%u])",
                         name->valuestring, first->index);
    }
    n->src_offset = L->elem_base;

    if (args && !cJSON_IsNull(args)) {
        size_t old = path_key(L, "args");
        struct cgs_arg tmp = {0};
        if (!cJSON_IsArray(args))
            return fail_item(L, args, CGS_E_SCHEMA, "expected an array for 'args', got %s",
                             cgs_json_type(args));
        if ((err = get_arg_list(L, g, n->index, args, &tmp, 1)))
            return err;
        n->args = tmp.u.items;
        n->n_args = tmp.n;
        path_pop(L, old);
    }
    if (kwargs && !cJSON_IsNull(kwargs)) {
        size_t old = path_key(L, "kwargs");
        int cnt = cJSON_GetArraySize(kwargs), i = 0;

        if (!cJSON_IsObject(kwargs))
            return fail_item(L, kwargs, CGS_E_SCHEMA, "expected an object for 'kwargs', got %s",
                             cgs_json_type(kwargs));
        n->kwargs = cnt ? cgs_arena_calloc(g->arena, (size_t)cnt, sizeof(*n->kwargs)) : NULL;
        cJSON_ArrayForEach(it, kwargs)
        {
            size_t o2 = path_key(L, it->string);
            n->kwargs[i].key = cgs_graph_intern(g, it->string);
            if ((err = get_arg(L, g, n->index, it, &n->kwargs[i].val, 1)))
                return err;
            path_pop(L, o2);
            i++;
        }
        n->n_kwargs = (uint32_t)cnt;
        path_pop(L, old);
    }
    if (val && !cJSON_IsNull(val)) {
        size_t old = path_key(L, "val");
        n->val = cgs_arena_alloc(g->arena, sizeof(*n->val));
        if ((err = get_val(L, g, val, n->val, 0)))
            return err;
        path_pop(L, old);
    }
    if ((err = opt_string(L, g, stack, "stack_trace", &n->stack_trace)) ||
        (err = opt_string(L, g, mpath, "module_path", &n->module_path)) ||
        (err = opt_string(L, g, mtype, "module_type", &n->module_type)) ||
        (err = opt_string(L, g, piece, "piece", &n->piece)))
        return err;
    return 0;
}

/* ---- the nodes array ------------------------------------------------------------ */

/* What a nodes array with something else than ',' or ']' after a node is told. */
#define AFTER_NODE "malformed JSON: expected ',' or ']' after a node, got %s"

/* A node the scanner has read: its extent, and its stack trace's place when one is left out
 * of what cJSON reads ([cut_start, cut_end) with its quotes; both 0 when none is). */
struct scanned {
    size_t p, end, cut_start, cut_end;
};

/* Scan the node at p with its value offsets recorded in S (from S->offs[0]), building its cJSON
 * tree in the same walk. */
static int scan_node(struct cgs_jscan *S, bool lazy_stack, size_t p, struct scanned *out,
                     cJSON **tree)
{
    int err;
    S->n_offs = 0;
    S->record = true;
    S->cut_found = false;
    S->cut_key = lazy_stack ? "stack_trace" : NULL;
    S->cut_key_len = sizeof("stack_trace") - 1;
    err = cgs_jscan_tree(S, p, &out->end, tree);
    S->record = false;
    S->cut_key = NULL;
    out->p = p;
    out->cut_start = out->cut_end = 0;
    if (!err && S->cut_found && S->cut_end - S->cut_start > 2) {
        out->cut_start = S->cut_start;
        out->cut_end = S->cut_end;
    }
    return err;
}

/* Node i of the array, from its tree (its numbers given their text: attach_offsets); L->js.offs
 * holds its value offsets. */
static int convert_scanned(struct loader *L, struct cgs_graph *g, const struct scanned *s,
                           cJSON *tree)
{
    int err;
    if (!tree)
        return fail_at(L, s->p, CGS_E_PARSE, "malformed JSON in node");
    L->elem = tree;
    L->elem_base = s->p;
    err = convert_node(L, g, tree);
    if (!err && s->cut_end) {
        struct cgs_node *nn = g->nodes[g->n_nodes - 1];
        size_t cut = s->cut_end - s->cut_start;
        if (cut > UINT32_MAX)
            CGS_BUG("a stack trace past the string limit");
        nn->stack_trace = NULL;
        nn->stack_raw = L->buf + s->cut_start;
        nn->stack_raw_len = (uint32_t)cut;
    }
    L->elem = NULL;
    return err;
}

static void at_node(struct loader *L, const char *prefix, long i)
{
    L->node_prefix = prefix;
    L->node_at = i;
    L->n_segs = 0;
}

static bool load_direct = true;                    /* nodes straight from their text */
static uint64_t direct_nodes;                      /* how many were (atomic) */

void cgs_load_set_direct(bool on)
{
    load_direct = on;
}

uint64_t cgs_load_direct_count(void)
{
    return __atomic_load_n(&direct_nodes, __ATOMIC_RELAXED);
}

static int load_threads; /* 0: by the cores, else as many */

void cgs_load_set_threads(int threads)
{
    load_threads = threads;
}

static long usable_cpus(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) < cpus)
        cpus = CPU_COUNT(&set);
#endif
    return cpus < 1 ? 1 : cpus;
}

int cgs_load_threads(void)
{
    long cpus;
    if (load_threads >= 1)
        return load_threads;
    cpus = usable_cpus();
    return cpus > 8 ? 8 : (int)cpus;
}

/* Load the elements of the "nodes" array at start; *end_out is past its ']'. */
static int load_nodes(struct loader *L, struct cgs_graph *g, size_t start, const char *prefix,
                      size_t *end_out)
{
    size_t p = skip_ws(L, start);
    uint32_t i = 0;
    int err;

    if (p >= L->len || L->buf[p] != '[') {
        snprintf(L->path, sizeof(L->path), "%snodes", prefix);
        L->node_at = -1;
        L->n_segs = 0;
        return fail_at(L, p, CGS_E_SCHEMA, "expected an array for 'nodes', got %s", what_at(L, p));
    }
    p = skip_ws(L, p + 1);
    if (p < L->len && L->buf[p] == ']') {
        if (end_out)
            *end_out = p + 1;
        return 0;
    }
    uint32_t direct = 0;
    for (;;) {
        struct scanned sn;
        at_node(L, prefix, (long)i);
        p = skip_ws(L, p);
        if (load_direct && p < L->len && !cgs_load_direct_node(L, g, p, &sn.end)) {
            cgs_jbump_reset(L->bump);
            direct++;
        } else {
            cJSON *tree;
            cgs_jbump_reset(L->bump);
            if ((err = scan_node(&L->js, L->lazy_stack, p, &sn, &tree)))
                return scan_error(L, err);
            err = convert_scanned(L, g, &sn, tree);
            cgs_jbump_reset(L->bump); /* the node's tree is the region's: dropped whole */
            if (err)
                return err;
        }
        i++;
        p = skip_ws(L, sn.end);
        if (p < L->len && L->buf[p] == ',') {
            p++;
            continue;
        }
        if (p < L->len && L->buf[p] == ']') {
            if (end_out)
                *end_out = p + 1;
            L->node_at = -1;
            __atomic_fetch_add(&direct_nodes, direct, __ATOMIC_RELAXED);
            return 0;
        }
        return fail_at(L, p, CGS_E_PARSE, AFTER_NODE, what_at(L, p));
    }
}

/* ---- forward references and cycles ------------------------------------------------- */

/* Kahn's algorithm over the graph with every reference resolved: true if acyclic. */
static bool acyclic(struct cgs_graph *g)
{
    uint32_t n = g->n_nodes, done = 0, head = 0, tail = 0;
    uint32_t *indeg = cgs_xcalloc(n ? n : 1, sizeof(*indeg));
    uint32_t *queue = cgs_xcalloc(n ? n : 1, sizeof(*queue));

    cgs_graph_link(g);
    for (uint32_t i = 0; i < n; i++)
        indeg[i] = g->nodes[i]->n_inputs;
    for (uint32_t i = 0; i < n; i++)
        if (!indeg[i])
            queue[tail++] = i;
    while (head < tail) {
        struct cgs_node *x = g->nodes[queue[head++]];
        done++;
        for (uint32_t j = 0; j < x->n_users; j++)
            if (--indeg[x->users[j]->index] == 0)
                queue[tail++] = x->users[j]->index;
    }
    free(indeg);
    free(queue);
    return done == n;
}

static int resolve_refs(struct loader *L)
{
    int err = 0;
    for (size_t i = 0; i < L->n_unres; i++) {
        struct unresolved *u = &L->unres[i];
        u->arg->u.node = cgs_graph_find(u->g, u->name);
    }
    for (size_t i = 0; i < L->n_unres && !err; i++) {
        struct unresolved *u = &L->unres[i];
        const struct cgs_node *user = u->g->nodes[u->node_index];
        snprintf(L->path, sizeof(L->path), "%s", u->path);
        L->node_at = -1;
        L->n_segs = 0;
        if (!u->arg->u.node) {
            err = fail_at(L, u->off, CGS_E_SCHEMA, "node '%s' uses unknown node '%s'", user->name,
                          u->name);
        } else if (!acyclic(u->g)) {
            err = fail_at(L, u->off, CGS_E_CYCLE,
                          "graph has a cycle: node '%s' uses '%s' "
                          "(nodes[%u]), which depends on it",
                          user->name, u->name, u->arg->u.node->index);
        } else {
            err = fail_at(L, u->off, CGS_E_SCHEMA,
                          "nodes are not in topological order: "
                          "node '%s' uses '%s', which is defined later at nodes[%u]",
                          user->name, u->name, u->arg->u.node->index);
        }
    }
    return err;
}

/* ---- the top level ------------------------------------------------------------------ */

struct member {
    const char *key; /* points into buf, not terminated */
    size_t key_len, start, end, key_off;
};

static bool key_is(const struct member *m, const char *k)
{
    return strlen(k) == m->key_len && !memcmp(m->key, k, m->key_len);
}

/*
 * Scan the members of the object at p; fills an array (caller frees) and
 * *end_out (past the closing brace). When inline_cb is given, it may consume
 * a member's value itself (returning 1 with m->end set) instead of the scan:
 * the loader reads "nodes" that way, in the same pass.
 */
typedef int (*member_cb)(struct loader *L, struct member *m, void *ud);

static int scan_object(struct loader *L, size_t p, struct member **out, size_t *n_out,
                       const char *what, member_cb inline_cb, void *ud, size_t *end_out)
{
    struct member *m = NULL;
    size_t n = 0, alloc = 0;
    int err;

    p = skip_ws(L, p);
    if (p >= L->len || L->buf[p] != '{')
        return fail_at(L, p, CGS_E_SCHEMA, "expected an object for %s, got %s", what,
                       what_at(L, p));
    p = skip_ws(L, p + 1);
    if (p < L->len && L->buf[p] == '}') {
        p++;
        goto done;
    }
    for (;;) {
        size_t kend;
        p = skip_ws(L, p);
        if (p >= L->len || L->buf[p] != '"') {
            err = fail_at(L, p, CGS_E_PARSE, "malformed JSON: expected a string key, got %s",
                          what_at(L, p));
            goto fail;
        }
        if ((err = scan_string(L, p, &kend)))
            goto fail;
        CGS_ALLOC_GROW(m, n + 1, alloc);
        m[n].key = L->buf + p + 1;
        m[n].key_len = kend - p - 2;
        m[n].key_off = p;
        for (size_t j = 0; j < n; j++)
            if (m[j].key_len == m[n].key_len && !memcmp(m[j].key, m[n].key, m[n].key_len)) {
                err = fail_at(L, p, CGS_E_SCHEMA, "duplicate key '%.*s' in %s", (int)m[n].key_len,
                              m[n].key, what);
                goto fail;
            }
        p = skip_ws(L, kend);
        if (p >= L->len || L->buf[p] != ':') {
            err = fail_at(L, p, CGS_E_PARSE, "malformed JSON: expected ':' after key, got %s",
                          what_at(L, p));
            goto fail;
        }
        p = skip_ws(L, p + 1);
        m[n].start = p;
        err = inline_cb ? inline_cb(L, &m[n], ud) : 0;
        if (err < 0)
            goto fail;
        if (!err && (err = scan_value(L, p, &m[n].end)))
            goto fail;
        p = skip_ws(L, m[n].end);
        n++;
        if (p < L->len && L->buf[p] == ',') {
            p++;
            continue;
        }
        if (p < L->len && L->buf[p] == '}') {
            p++;
            break;
        }
        err = fail_at(L, p, CGS_E_PARSE, "malformed JSON: expected ',' or '}', got %s",
                      what_at(L, p));
        goto fail;
    }
done:
    *out = m;
    *n_out = n;
    if (end_out)
        *end_out = p;
    return 0;
fail:
    free(m);
    return err;
}

/* A small member value's tree, with its offsets (the caller deletes it). */
static cJSON *parse_member(struct loader *L, const struct member *m)
{
    cJSON *x;
    size_t end;
    L->js.n_offs = 0;
    L->js.record = true;
    if (cgs_jscan_tree(&L->js, m->start, &end, &x))
        CGS_BUG("member rescan failed");
    L->js.record = false;
    L->elem = x;
    L->elem_base = m->start;
    return x;
}

static void set_path(struct loader *L, const char *fmt, ...) CGS_PRINTF(2, 3);

static void set_path(struct loader *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->path, sizeof(L->path), fmt, ap);
    L->node_at = -1;
    va_end(ap);
    L->n_segs = 0;
}

const char *cgs_load_number_text(const cJSON *v, char buf[32])
{
    if (!cJSON_IsNumber(v) || v->valuestring)
        return cJSON_IsNumber(v) ? v->valuestring : NULL;
    double d = v->valuedouble, back;
    if (isnan(d) || isinf(d))
        return NULL;
    if (d == (double)v->valueint) {
        snprintf(buf, 32, "%d", v->valueint);
    } else {
        snprintf(buf, 32, "%1.15g", d);
        if (sscanf(buf, "%lg", &back) != 1 || back != d)
            snprintf(buf, 32, "%1.17g", d);
    }
    return buf;
}

int cgs_load_symbol(struct loader *L, struct cgs_graph *g, const char *name, const cJSON *s)
{
    struct cgs_symbol *sym;
    static const char *const keys[3] = {"hint", "min", "max"};
    set_path(L, "symbols.%s", name);
    if (s && !cJSON_IsObject(s))
        return fail_item(L, s, CGS_E_SCHEMA,
                         "expected an object with hint, min, max, "
                         "got %s",
                         cgs_json_type(s));
    const char *p = name;
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
        return fail_item(L, s, CGS_E_SCHEMA, "bad symbol name '%s'", name);
    sym = cgs_graph_add_symbol(g, name);
    for (int k = 0; k < 3; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, keys[k]);
        char buf[32];
        const char *t = cgs_load_number_text(v, buf);
        int64_t iv;
        if (!v || cJSON_IsNull(v) || (cJSON_IsNumber(v) && !t))
            continue;
        set_path(L, "symbols.%s.%s", name, keys[k]);
        if (t && !cgs_json_text_is_int(t)) {
            /* ShapeEnv prints unbounded ranges as floats (inf) */
            double dv = strtod(t, NULL);
            if (isinf(dv))
                continue;
            /* a SymFloat's hint and range are floats */
            if (isfinite(dv) && (k == 0 || sym->is_float)) {
                sym->is_float = true;
                if (k == 0) {
                    sym->fhint = dv;
                    sym->has_fhint = true;
                }
                continue;
            }
        }
        if (!t || !cgs_json_text_is_int(t))
            return fail_item(L, v, CGS_E_SCHEMA, "expected an integer, got %s",
                             cgs_json_type(v));
        if (!cgs_json_text_int(t, &iv))
            return fail_item(L, v, CGS_E_LIMIT, "integer out of the 64-bit range");
        if (k == 0) {
            sym->hint = iv;
            sym->has_hint = true;
        } else if (k == 1) {
            sym->min = iv;
            sym->has_min = true;
        } else {
            sym->max = iv;
            sym->has_max = true;
        }
    }
    return 0;
}

static int load_symbols(struct loader *L, struct cgs_graph *g, const cJSON *x)
{
    const cJSON *s;
    int err;
    if (cJSON_IsNull(x))
        return 0;
    if (!cJSON_IsObject(x))
        return fail_item(L, x, CGS_E_SCHEMA, "expected an object for 'symbols', got %s",
                         cgs_json_type(x));
    cJSON_ArrayForEach(s, x)
    {
        if ((err = cgs_load_symbol(L, g, s->string, s)))
            return err;
    }
    return 0;
}

static int load_producer(struct loader *L, struct cgs_graph *g, const cJSON *x)
{
    const cJSON *s;
    if (cJSON_IsNull(x))
        return 0;
    if (!cJSON_IsObject(x))
        return fail_item(L, x, CGS_E_SCHEMA, "expected an object for 'producer', got %s",
                         cgs_json_type(x));
    cJSON_ArrayForEach(s, x)
    {
        set_path(L, "producer.%s", s->string);
        if (!strcmp(s->string, "tool") || !strcmp(s->string, "version") ||
            !strcmp(s->string, "stage") || !strcmp(s->string, "compile_id")) {
            if (cJSON_IsNull(s))
                continue;
            if (!cJSON_IsString(s))
                return fail_item(L, s, CGS_E_SCHEMA, "expected a string, got %s", cgs_json_type(s));
            if (s->string[0] == 'c')
                g->producer.compile_id = cgs_graph_intern(g, s->valuestring);
            else if (s->string[0] == 't')
                g->producer.tool = cgs_graph_intern(g, s->valuestring);
            else if (s->string[0] == 'v')
                g->producer.version = cgs_graph_intern(g, s->valuestring);
            else if ((g->producer.stage = cgs_stage_from_name(s->valuestring)) == CGS_STAGE_UNKNOWN)
                return fail_item(L, s, CGS_E_SCHEMA,
                                 "unknown stage '%s': expected dynamo, "
                                 "aot_forward, aot_backward, aot_joint, post_grad, export or "
                                 "other",
                                 s->valuestring);
        } else if (!strcmp(s->string, "is_inference") || !strcmp(s->string, "is_backward")) {
            if (cJSON_IsNull(s))
                continue;
            if (!cJSON_IsBool(s))
                return fail_item(L, s, CGS_E_SCHEMA, "expected true or false, got %s",
                                 cgs_json_type(s));
            if (s->string[3] == 'i')
                g->producer.is_inference = cJSON_IsTrue(s);
            else
                g->producer.is_backward = cJSON_IsTrue(s);
        }
    }
    return 0;
}

static int load_subgraphs(struct loader *L, struct cgs_graph *g, const struct member *top)
{
    struct member *subs = NULL;
    size_t n = 0;
    int err;

    set_path(L, "subgraphs");
    if ((err = scan_object(L, top->start, &subs, &n, "'subgraphs'", NULL, NULL, NULL)))
        return err;
    for (size_t i = 0; i < n && !err; i++) {
        struct member *body = NULL;
        size_t nb = 0;
        char name[256], prefix[300];
        snprintf(name, sizeof(name), "%.*s", (int)subs[i].key_len, subs[i].key);
        set_path(L, "subgraphs.%s", name);
        if ((err = scan_object(L, subs[i].start, &body, &nb, "a subgraph", NULL, NULL, NULL)))
            break;
        struct cgs_graph *sg = cgs_graph_new_subgraph(g, name);
        bool found = false;
        for (size_t j = 0; j < nb && !err; j++)
            if (key_is(&body[j], "nodes")) {
                snprintf(prefix, sizeof(prefix), "subgraphs.%s.", name);
                err = load_nodes(L, sg, body[j].start, prefix, NULL);
                found = true;
            }
        if (!err && !found)
            err = fail_at(L, subs[i].start, CGS_E_SCHEMA, "subgraph '%s' has no 'nodes'", name);
        free(body);
    }
    free(subs);
    return err;
}

/* Check "format" (which == 0) or "version" (which == 1). */
static int check_header(struct loader *L, const struct member *m, int which)
{
    cJSON *x = parse_member(L, m);
    int len = (int)(m->end - m->start > 60 ? 60 : m->end - m->start), err = 0;
    set_path(L, "%s", which ? "version" : "format");
    if (which == 0 && (!cJSON_IsString(x) || strcmp(x->valuestring, "cgscope.graph")))
        err = fail_at(L, m->start, CGS_E_FORMAT,
                      "unsupported format %.*s: expected "
                      "\"cgscope.graph\"",
                      len, L->buf + m->start);
    else if (which == 1 &&
             (!cJSON_IsNumber(x) || !cgs_json_number_is_int(x) || strtoll(x->valuestring, NULL, 10) != 1))
        err = fail_at(L, m->start, CGS_E_FORMAT,
                      "unsupported version %.*s: this cgscope "
                      "reads version 1",
                      len, L->buf + m->start);
    cJSON_Delete(x);
    L->elem = NULL;
    return err;
}

struct top_state {
    struct cgs_graph *g;
    bool format_ok, version_ok, nodes_done;
};

/* Read "nodes" in the scan of the top level once the header is known good. */
static int top_member(struct loader *L, struct member *m, void *ud)
{
    struct top_state *st = ud;
    int err;
    if (key_is(m, "format") || key_is(m, "version")) {
        int which = key_is(m, "version");
        if ((err = scan_value(L, m->start, &m->end)) || (err = check_header(L, m, which)))
            return err;
        if (which)
            st->version_ok = true;
        else
            st->format_ok = true;
        return 1;
    }
    if (!key_is(m, "nodes") || !st->format_ok || !st->version_ok)
        return 0;
    if ((err = load_nodes(L, st->g, m->start, "", &m->end)))
        return err;
    st->nodes_done = true;
    return 1;
}

static struct cgs_graph *load_json_buf(const char *buf, size_t len, const char *file,
                                       bool lazy_stack, struct cgs_diag *d);

void cgs_load_start(struct loader *L, const char *file, uint32_t first_line, struct cgs_diag *d)
{
    memset(L, 0, sizeof(*L));
    cgs_diag_clear(d);
    L->file = file;
    L->d = d;
    L->node_at = -1;
    L->tree_line = first_line ? first_line : 1;
    L->dims = cgs_strmap_new();
    cgs_jscan_init(&L->js, "", 0, "end of file");
}

void cgs_load_stop(struct loader *L)
{
    cgs_jscan_release(&L->js);
    free(L->unres);
    cgs_strmap_free(L->dims);
}

/* A graph whose nodes are read: references resolved, linked, one output node. */
int cgs_load_finish(struct loader *L, struct cgs_graph *g)
{
    int err;
    if (L->n_unres && (err = resolve_refs(L)))
        return err;
    cgs_graph_link(g);
    for (uint32_t i = 0; i < g->n_subgraphs; i++)
        cgs_graph_link(g->subgraphs[i]);
    uint32_t outputs = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i]->op == CGS_NODE_OUTPUT && ++outputs == 2) {
            set_path(L, "nodes[%u]", i);
            return fail_at(L, g->nodes[i]->src_offset, CGS_E_SCHEMA,
                           "second output node '%s': a graph has one output node",
                           g->nodes[i]->name);
        }
    if (!outputs)
        cgs_graph_note(g, CGS_NOTE_WARNING, CGS_E_SCHEMA, NULL, "graph has no output node");
    return 0;
}

/*
 * Numbers keep their source text, read up to the first byte that is not part of a number: a
 * buffer that ends inside a number (a truncated file) is copied with a NUL after it first, so
 * that nothing reads past its end. Every other number ends at a delimiter inside the buffer.
 */
static struct cgs_graph *load_json_front(const char *buf, size_t len, const char *file,
                                         bool lasting, struct cgs_diag *d)
{
    char c;
    const unsigned char *u = (const unsigned char *)buf;
    if (cgs_text_is_wide(buf, len)) {
        cgs_diag_at(d, file, 1, 1);
        cgs_diag_set(d, CGS_E_FORMAT, "the file is UTF-16 (or UTF-32) text: graph JSON is "
                     "UTF-8; convert it (iconv -f UTF-16 -t UTF-8) or write it with json.dump");
        return NULL;
    }
    if (len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
        buf += 3; /* a UTF-8 byte-order mark: JSON readers may skip it (RFC 8259 8.1) */
        len -= 3;
    }
    c = len ? buf[len - 1] : ' ';
    if ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        char *copy = malloc(len + 1);
        struct cgs_graph *g;
        if (!copy) {
            cgs_diag_at(d, file, 0, 0);
            cgs_diag_set(d, CGS_E_NOMEM, "out of memory reading the graph");
            return NULL;
        }
        memcpy(copy, buf, len);
        copy[len] = '\0';
        g = load_json_buf(copy, len, file, false, d);
        free(copy);
        return g;
    }
    return load_json_buf(buf, len, file, lasting, d);
}

struct cgs_graph *cgs_graph_load_json_buf(const char *buf, size_t len, const char *file,
                                          struct cgs_diag *d)
{
    return load_json_front(buf, len, file, false, d);
}

struct cgs_graph *cgs_graph_load_json_lasting(const char *buf, size_t len, const char *file,
                                              struct cgs_diag *d)
{
    return load_json_front(buf, len, file, true, d);
}

/* A stack trace kept as its JSON text (its quotes included; checked when the graph was loaded)
 * decoded, for cgs_node_stack_trace; NULL when it is not one string after all. */
static char *stack_decode(const char *raw, size_t len)
{
    struct cgs_jscan S;
    size_t end;
    char *out = NULL;
    cgs_jscan_init(&S, raw, len, "end of text");
    S.str_special = false;
    if (len >= 2 && !cgs_jscan_string(&S, 0, &end) && end == len) {
        out = cgs_xmalloc(len - 1);
        cgs_jscan_decode(&S, 0, end, S.str_special, out);
    }
    cgs_jscan_release(&S);
    return out;
}

static struct cgs_graph *load_json_buf(const char *buf, size_t len, const char *file,
                                       bool lazy_stack, struct cgs_diag *d)
{
    struct loader L = {0};
    struct member *top = NULL;
    struct top_state st = {0};
    size_t n_top = 0, p, end;
    const struct member *m_format = NULL, *m_version = NULL, *m_nodes = NULL, *m_name = NULL,
                        *m_producer = NULL, *m_symbols = NULL, *m_subgraphs = NULL;
    cJSON *x = NULL;

    struct cgs_jbump bump;

    cgs_jbump_begin(&bump);
    L.bump = &bump;
    cgs_diag_clear(d);
    L.file = file;
    L.buf = buf;
    L.len = len;
    L.d = d;
    L.node_at = -1;
    L.lazy_stack = lazy_stack;
    L.dims = cgs_strmap_new();
    cgs_jscan_init(&L.js, buf, len, "end of file");
    st.g = cgs_graph_new(file, NULL);
    st.g->stack_decode = stack_decode;

    set_path(&L, "%s", "");
    p = skip_ws(&L, 0);
    if (p >= len) {
        fail_at(&L, p, CGS_E_PARSE, "empty file: expected a graph JSON object");
        goto fail;
    }
    if (scan_object(&L, p, &top, &n_top, "the top level", top_member, &st, &end))
        goto fail;
    set_path(&L, "%s", "");
    end = skip_ws(&L, end);
    if (end < len) {
        fail_at(&L, end, CGS_E_PARSE,
                "malformed JSON: unexpected data after the top-level "
                "object");
        goto fail;
    }
    for (size_t i = 0; i < n_top; i++) {
        const struct member *m = &top[i];
        if (key_is(m, "format"))
            m_format = m;
        else if (key_is(m, "version"))
            m_version = m;
        else if (key_is(m, "nodes"))
            m_nodes = m;
        else if (key_is(m, "name"))
            m_name = m;
        else if (key_is(m, "producer"))
            m_producer = m;
        else if (key_is(m, "symbols"))
            m_symbols = m;
        else if (key_is(m, "subgraphs"))
            m_subgraphs = m;
    }
    if (!m_format) {
        fail_at(&L, p, CGS_E_FORMAT,
                "not a cgscope graph: missing \"format\": "
                "\"cgscope.graph\"");
        goto fail;
    }
    if (!m_version) {
        set_path(&L, "%s", "version");
        fail_at(&L, p, CGS_E_FORMAT, "missing \"version\": expected 1");
        goto fail;
    }
    struct cgs_graph *g = st.g;
    if (m_name) {
        set_path(&L, "%s", "name");
        x = parse_member(&L, m_name);
        if (!cJSON_IsString(x) && !cJSON_IsNull(x)) {
            fail_item(&L, x, CGS_E_SCHEMA, "expected a string for 'name', got %s",
                      cgs_json_type(x));
            goto fail;
        }
        if (cJSON_IsString(x))
            g->name = cgs_arena_strdup(g->arena, x->valuestring);
        cJSON_Delete(x);
        x = NULL;
        L.elem = NULL;
    }
    if (m_producer) {
        set_path(&L, "%s", "producer");
        x = parse_member(&L, m_producer);
        if (load_producer(&L, g, x))
            goto fail;
        cJSON_Delete(x);
        x = NULL;
        L.elem = NULL;
    }
    if (m_symbols) {
        set_path(&L, "%s", "symbols");
        x = parse_member(&L, m_symbols);
        if (load_symbols(&L, g, x))
            goto fail;
        cJSON_Delete(x);
        x = NULL;
        L.elem = NULL;
    }
    if (!m_nodes) {
        set_path(&L, "%s", "nodes");
        fail_at(&L, p, CGS_E_SCHEMA, "missing 'nodes': expected an array of nodes");
        goto fail;
    }
    /* "nodes" before the header was read: read it now */
    if (!st.nodes_done && load_nodes(&L, g, m_nodes->start, "", NULL))
        goto fail;
    if (m_subgraphs && load_subgraphs(&L, g, m_subgraphs))
        goto fail;
    if (cgs_load_finish(&L, g))
        goto fail;
    free(top);
    cgs_jscan_release(&L.js);
    free(L.unres);
    cgs_strmap_free(L.dims);
    cgs_jbump_end(&bump);
    return g;
fail:
    if (x)
        cJSON_Delete(x);
    free(top);
    cgs_jscan_release(&L.js);
    free(L.unres);
    cgs_strmap_free(L.dims);
    cgs_jbump_end(&bump);
    cgs_graph_free(st.g);
    return NULL;
}

struct cgs_graph *cgs_graph_load_json(const char *path, struct cgs_diag *d)
{
    char *buf;
    size_t len;
    struct cgs_graph *g;

    cgs_diag_clear(d);
    {
        // a regular file is mapped, not copied, and stays mapped while the graph lives: the
        // stack traces (most of a Dynamo graph's bytes) are decoded from it on demand
        void *map = NULL;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
            (uint64_t)st.st_size > CGS_LOAD_MAX_FILE) {
            close(fd);
            cgs_diag_at(d, path, 0, 0);
            cgs_diag_set(d, CGS_E_LIMIT, "file of %llu bytes is larger than the limit of %zu bytes",
                         (unsigned long long)st.st_size, CGS_LOAD_MAX_FILE);
            return NULL;
        }
        if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
            // pages read up front for a file of a usual size (one pass instead of a fault a
            // page); a huge one is faulted in as far as the reader gets before it fails
            int populate = (uint64_t)st.st_size <= ((uint64_t)256 << 20) ? MAP_POPULATE : 0;
            map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | populate, fd, 0);
            if (map == MAP_FAILED)
                map = NULL;
        }
        if (fd >= 0)
            close(fd);
        if (map) {
            g = cgs_graph_load_json_lasting(map, (size_t)st.st_size, path, d);
            if (g) {
                g->src_map = map;
                g->src_map_len = (size_t)st.st_size;
            } else {
                munmap(map, (size_t)st.st_size);
                if (d && d->code)
                    d->file = path;
            }
            return g;
        }
    }
    if (cgs_read_file(path, &buf, &len, CGS_LOAD_MAX_FILE, d))
        return NULL;
    g = cgs_graph_load_json_buf(buf, len, path, d);
    free(buf);
    /* the graph keeps its own copy of the file name */
    if (d && d->code)
        d->file = path;
    return g;
}
