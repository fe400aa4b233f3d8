/*
 * A printed graph as graph JSON text (lib/writers/fxtext-json.h): the printed-graph reader's
 * model (lib/readers/fxtext-int.h) written straight, as cJSON_Print lays graph JSON out.
 */
#include "lib/writers/fxtext-json.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/buf.h"
#include "lib/readers/fxtext-int.h"
#include "lib/writers/jsonw.h"

static void doc_arg(struct jsonw *w, const struct fa *a, int depth)
{
    static const char *const keys[] = {
        [FA_NODE] = "node",          [FA_FLOAT] = "float",   [FA_REPR] = "repr",
        [FA_DTYPE] = "dtype",        [FA_MEMFMT] = "memory_format", [FA_LAYOUT] = "layout",
        [FA_DEVICE] = "device",      [FA_SLICE] = "slice",   [FA_LIST] = "list",
        [FA_DICT] = "dict",          [FA_ELLIPSIS] = "ellipsis",
    };
    struct jsonw_obj o;
    int d = depth;
    switch (a->k) {
    case FA_NULL: jsonw_raw(w, "null", 4); return;
    case FA_BOOL: jsonw_bool(w, a->b); return;
    case FA_NUM: jsonw_raw(w, a->s, strlen(a->s)); return;
    case FA_STR: jsonw_string(w, a->s); return;
    case FA_TUPLE: break;
    default:
        jsonw_open(w, &o, depth);
        jsonw_field(w, &o, keys[a->k]);
        if (a->k == FA_ELLIPSIS) {
            jsonw_bool(w, true);
            jsonw_close(w, &o);
            return;
        }
        if (a->k != FA_SLICE && a->k != FA_LIST && a->k != FA_DICT) {
            jsonw_string(w, a->s);
            jsonw_close(w, &o);
            return;
        }
        d = o.depth; /* the object's list */
        break;
    }
    jsonw_raw(w, "[", 1);
    if (a->k == FA_DICT) {
        for (uint32_t i = 0; i + 1 < a->n; i += 2) { /* [[key, value], ...] */
            if (i)
                jsonw_sep(w);
            jsonw_raw(w, "[", 1);
            doc_arg(w, &a->items[i], d + 2);
            jsonw_sep(w);
            doc_arg(w, &a->items[i + 1], d + 2);
            jsonw_raw(w, "]", 1);
        }
    } else {
        for (uint32_t i = 0; i < a->n; i++) {
            if (i)
                jsonw_sep(w);
            doc_arg(w, &a->items[i], d + 1); /* an array is a level too */
        }
    }
    jsonw_raw(w, "]", 1);
    if (a->k != FA_TUPLE)
        jsonw_close(w, &o);
}

static void doc_dims(struct jsonw *w, const struct fdim *d, uint32_t n)
{
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            jsonw_sep(w);
        if (d[i].num)
            jsonw_raw(w, d[i].t, strlen(d[i].t));
        else
            jsonw_string(w, d[i].t);
    }
    jsonw_raw(w, "]", 1);
}

static void doc_val(struct jsonw *w, const struct fv *v, int depth)
{
    struct jsonw_obj o;
    if (v->k == FV_NUM) {
        jsonw_raw(w, v->text, strlen(v->text));
        return;
    }
    if (v->k == FV_BOOL) {
        jsonw_bool(w, v->b);
        return;
    }
    jsonw_open(w, &o, depth);
    if (v->k == FV_SYM) {
        jsonw_field_str(w, &o, v->kind, v->text);
        if (v->hint) {
            jsonw_field(w, &o, "hint");
            jsonw_tree(w, v->hint, o.depth); /* the caller's number */
        }
        jsonw_close(w, &o);
        return;
    }
    jsonw_field_str(w, &o, "dtype", v->dtype);
    jsonw_field(w, &o, "shape");
    doc_dims(w, v->shape, v->n_shape);
    if (v->has_stride) {
        jsonw_field(w, &o, "stride");
        doc_dims(w, v->stride, v->n_stride);
    }
    if (!v->offset_zero)
        jsonw_field_null(w, &o, "storage_offset");
    if (v->device)
        jsonw_field_str(w, &o, "device", v->device);
    jsonw_close(w, &o);
}

static void doc_nodes(struct jsonw *w, const struct fgraph *nodes, int depth)
{
    jsonw_raw(w, "[", 1);
    for (size_t i = 0; i < nodes->n; i++) {
        const struct fn *n = nodes->v[i];
        struct jsonw_obj o, kw;
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, depth + 1);
        jsonw_field_str(w, &o, "name", n->name);
        jsonw_field_str(w, &o, "op", n->op);
        jsonw_field_str(w, &o, "target", n->target);
        jsonw_field(w, &o, "args");
        jsonw_raw(w, "[", 1);
        for (uint32_t k = 0; k < n->n_args; k++) {
            if (k)
                jsonw_sep(w);
            doc_arg(w, &n->args[k], o.depth + 1);
        }
        jsonw_raw(w, "]", 1);
        jsonw_field(w, &o, "kwargs");
        jsonw_open(w, &kw, o.depth);
        for (uint32_t k = 0; k < n->n_kw; k++) {
            jsonw_field(w, &kw, n->kw[k].key);
            doc_arg(w, &n->kw[k].v, kw.depth);
        }
        jsonw_close(w, &kw);
        if (n->val) {
            jsonw_field(w, &o, "val");
            doc_val(w, n->val, o.depth);
        }
        if (n->stack)
            jsonw_field_str(w, &o, "stack_trace", n->stack);
        if (n->piece)
            jsonw_field_str(w, &o, "piece", n->piece);
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
}

/* The document, as cJSON_Print writes graph JSON (its strings' bytes as they are). */
static void doc_write(struct jsonw *w, const struct fx_model *M, const struct cgs_fxtext_opts *o)
{
    struct jsonw_obj doc, prod, syms, subs, body;
    bool any = false;
    jsonw_open(w, &doc, 0);
    jsonw_field_str(w, &doc, "format", "cgscope.graph");
    jsonw_field_num(w, &doc, "version", 1);
    jsonw_field_str(w, &doc, "name", o && o->name ? o->name : M->file);
    jsonw_field(w, &doc, "producer");
    jsonw_open(w, &prod, doc.depth);
    jsonw_field_str(w, &prod, "tool", "torch");
    if (o && o->stage)
        jsonw_field_str(w, &prod, "stage", o->stage);
    if (o && o->compile_id)
        jsonw_field_str(w, &prod, "compile_id", o->compile_id);
    if (o && o->is_inference >= 0)
        jsonw_field_bool(w, &prod, "is_inference", o->is_inference);
    if (o && o->is_backward >= 0)
        jsonw_field_bool(w, &prod, "is_backward", o->is_backward);
    jsonw_close(w, &prod);
    /* the symbols the sizes mention, with what the trace knew of them */
    jsonw_field(w, &doc, "symbols");
    jsonw_open(w, &syms, doc.depth);
    for (size_t k = 0; k < M->n_syms; k++) {
        const cJSON *h = cgs_fx_hint(M, k);
        jsonw_field(w, &syms, M->syms[k]);
        if (h) {
            jsonw_tree(w, h, syms.depth);
        } else {
            struct jsonw_obj none;
            jsonw_open(w, &none, syms.depth);
            jsonw_close(w, &none);
        }
    }
    jsonw_close(w, &syms);
    jsonw_field(w, &doc, "nodes");
    doc_nodes(w, &M->top, doc.depth);
    for (size_t k = 0; k < M->n_subs; k++) {
        if (M->subs[k].inlined)
            continue;
        if (!any) {
            jsonw_field(w, &doc, "subgraphs");
            jsonw_open(w, &subs, doc.depth);
        }
        any = true;
        jsonw_field(w, &subs, M->subs[k].name);
        jsonw_open(w, &body, subs.depth);
        jsonw_field(w, &body, "nodes");
        doc_nodes(w, &M->subs[k].g, body.depth);
        jsonw_close(w, &body);
    }
    if (any)
        jsonw_close(w, &subs);
    jsonw_close(w, &doc);
}

char *cgs_fxtext_to_json(const char *text, size_t len, const char *file, uint32_t first_line,
                         const struct cgs_fxtext_opts *o, struct cgs_diag *d)
{
    struct fx_model M = {0};
    char *out = NULL;

    if (!cgs_fx_read(&M, text, len, file, first_line, o, d)) {
        struct cgs_buf b = CGS_BUF_INIT;
        struct jsonw w;
        jsonw_init(&w, jsonw_to_buf, &b);
        w.raw_bytes = true; /* what the text holds, as it holds it */
        doc_write(&w, &M, o);
        jsonw_finish(&w); /* the sink is memory: it cannot fail */
        cgs_buf_addch(&b, 0);
        out = cgs_buf_detach(&b);
    }
    cgs_fx_release(&M);
    return out;
}

