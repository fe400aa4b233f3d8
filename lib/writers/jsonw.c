/* cJSON documents written as cJSON_Print writes them, through one buffer (see jsonw.h). */
#include "lib/writers/jsonw.h"

#include "lib/base/utf8.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/base/json-alloc.h"

#define JSONW_BUF ((size_t)1 << 20)

void jsonw_init(struct jsonw *w, cgs_jsonw_sink sink, void *ctx)
{
    w->sink = sink;
    w->ctx = ctx;
    w->cap = JSONW_BUF;
    w->len = 0;
    w->failed = false;
    w->compact = false;
    w->filter = NULL;
    w->fctx = NULL;
    w->raw_bytes = false;
    w->buf = cgs_xmalloc(w->cap);
}

bool jsonw_to_buf(void *ctx, const char *p, size_t n)
{
    cgs_buf_add(ctx, p, n);
    return true;
}

static void flush(struct jsonw *w)
{
    if (w->len && !w->sink(w->ctx, w->buf, w->len))
        w->failed = true;
    w->len = 0;
}

static inline void room(struct jsonw *w, size_t n)
{
    if (w->len + n > w->cap) {
        flush(w);
        if (n > w->cap) {
            free(w->buf);
            w->cap = n;
            w->buf = cgs_xmalloc(w->cap);
        }
    }
}

void jsonw_raw_slow(struct jsonw *w, const char *s, size_t n)
{
    room(w, n);
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

static inline void ch(struct jsonw *w, char c)
{
    room(w, 1);
    w->buf[w->len++] = c;
}

static void tabs(struct jsonw *w, int n)
{
    room(w, (size_t)n);
    memset(w->buf + w->len, '\t', (size_t)n);
    w->len += (size_t)n;
}

/* The bytes a JSON string escapes: controls, '"' and '\\' (and the NUL that ends it); and every
 * byte >= 0x80, whose sequence is checked: what is not UTF-8 is written as U+FFFD, so that a
 * document stays valid JSON whatever bytes an input carried. */
static const unsigned char stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1,
    [0x80] = 1, [0x81] = 1, [0x82] = 1, [0x83] = 1, [0x84] = 1, [0x85] = 1, [0x86] = 1, [0x87] = 1,
    [0x88] = 1, [0x89] = 1, [0x8A] = 1, [0x8B] = 1, [0x8C] = 1, [0x8D] = 1, [0x8E] = 1, [0x8F] = 1,
    [0x90] = 1, [0x91] = 1, [0x92] = 1, [0x93] = 1, [0x94] = 1, [0x95] = 1, [0x96] = 1, [0x97] = 1,
    [0x98] = 1, [0x99] = 1, [0x9A] = 1, [0x9B] = 1, [0x9C] = 1, [0x9D] = 1, [0x9E] = 1, [0x9F] = 1,
    [0xA0] = 1, [0xA1] = 1, [0xA2] = 1, [0xA3] = 1, [0xA4] = 1, [0xA5] = 1, [0xA6] = 1, [0xA7] = 1,
    [0xA8] = 1, [0xA9] = 1, [0xAA] = 1, [0xAB] = 1, [0xAC] = 1, [0xAD] = 1, [0xAE] = 1, [0xAF] = 1,
    [0xB0] = 1, [0xB1] = 1, [0xB2] = 1, [0xB3] = 1, [0xB4] = 1, [0xB5] = 1, [0xB6] = 1, [0xB7] = 1,
    [0xB8] = 1, [0xB9] = 1, [0xBA] = 1, [0xBB] = 1, [0xBC] = 1, [0xBD] = 1, [0xBE] = 1, [0xBF] = 1,
    [0xC0] = 1, [0xC1] = 1, [0xC2] = 1, [0xC3] = 1, [0xC4] = 1, [0xC5] = 1, [0xC6] = 1, [0xC7] = 1,
    [0xC8] = 1, [0xC9] = 1, [0xCA] = 1, [0xCB] = 1, [0xCC] = 1, [0xCD] = 1, [0xCE] = 1, [0xCF] = 1,
    [0xD0] = 1, [0xD1] = 1, [0xD2] = 1, [0xD3] = 1, [0xD4] = 1, [0xD5] = 1, [0xD6] = 1, [0xD7] = 1,
    [0xD8] = 1, [0xD9] = 1, [0xDA] = 1, [0xDB] = 1, [0xDC] = 1, [0xDD] = 1, [0xDE] = 1, [0xDF] = 1,
    [0xE0] = 1, [0xE1] = 1, [0xE2] = 1, [0xE3] = 1, [0xE4] = 1, [0xE5] = 1, [0xE6] = 1, [0xE7] = 1,
    [0xE8] = 1, [0xE9] = 1, [0xEA] = 1, [0xEB] = 1, [0xEC] = 1, [0xED] = 1, [0xEE] = 1, [0xEF] = 1,
    [0xF0] = 1, [0xF1] = 1, [0xF2] = 1, [0xF3] = 1, [0xF4] = 1, [0xF5] = 1, [0xF6] = 1, [0xF7] = 1,
    [0xF8] = 1, [0xF9] = 1, [0xFA] = 1, [0xFB] = 1, [0xFC] = 1, [0xFD] = 1, [0xFE] = 1, [0xFF] = 1,
};

static void string(struct jsonw *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    ch(w, '"');
    for (;;) {
        const unsigned char *q = p;
        /* the plain run, copied at once (a byte is read only after the one before it was
         * not the NUL) */
        for (;;) {
            if (stop[q[0]])
                break;
            if (stop[q[1]]) {
                q += 1;
                break;
            }
            if (stop[q[2]]) {
                q += 2;
                break;
            }
            if (stop[q[3]]) {
                q += 3;
                break;
            }
            q += 4;
        }
        if (q > p) {
            size_t n = (size_t)(q - p);
            if (w->len + n <= w->cap) {
                memcpy(w->buf + w->len, p, n);
                w->len += n;
            } else {
                jsonw_raw(w, (const char *)p, n);
            }
        }
        if (!*q)
            break;
        if (*q >= 0x80) {
            size_t k = w->raw_bytes ? 1 : cgs_utf8_len(q, 0, (size_t)-1);
            if (k) {
                jsonw_raw(w, (const char *)q, k);
                p = q + k;
            } else {
                jsonw_raw(w, "\xEF\xBF\xBD", 3); /* U+FFFD for a byte that is not UTF-8 */
                p = q + 1;
            }
            continue;
        }
        room(w, 6);
        w->buf[w->len++] = '\\';
        switch (*q) {
        case '"': w->buf[w->len++] = '"'; break;
        case '\\': w->buf[w->len++] = '\\'; break;
        case '\b': w->buf[w->len++] = 'b'; break;
        case '\f': w->buf[w->len++] = 'f'; break;
        case '\n': w->buf[w->len++] = 'n'; break;
        case '\r': w->buf[w->len++] = 'r'; break;
        case '\t': w->buf[w->len++] = 't'; break;
        default:
            w->buf[w->len++] = 'u';
            w->buf[w->len++] = '0';
            w->buf[w->len++] = '0';
            w->buf[w->len++] = hex[*q >> 4];
            w->buf[w->len++] = hex[*q & 15];
        }
        p = q + 1;
    }
    ch(w, '"');
}

/* A string value, through the writer's filter when it has one. */
static void value_string(struct jsonw *w, const char *s)
{
    string(w, w->filter ? w->filter(w->fctx, s) : s);
}

static void integer(struct jsonw *w, int64_t v)
{
    char tmp[CGS_INT_TEXT_MAX];
    const char *p = cgs_int_text(tmp, (long long)v);
    jsonw_raw(w, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* cJSON's print_number: %1.15g when it reads back equal, else %1.17g; NaN and infinities as
 * null. An integer below 1e15 in magnitude prints as its plain digits under %1.15g, so it
 * takes the direct path (but -0 keeps its sign, as %g writes it). */
static void number(struct jsonw *w, const cJSON *item)
{
    jsonw_number(w, item->valuedouble);
}

void jsonw_number(struct jsonw *w, double d)
{
    char tmp[32];
    int n;
    if (isnan(d) || isinf(d)) {
        jsonw_raw(w, "null", 4);
        return;
    }
    if (d == floor(d) && fabs(d) < 1e15 && !(d == 0 && signbit(d))) {
        integer(w, (int64_t)d);
        return;
    }
    n = snprintf(tmp, sizeof(tmp), "%1.15g", d);
    {
        double back = strtod(tmp, NULL);
        if (!(fabs(back - d) <= fmax(fabs(back), fabs(d)) * DBL_EPSILON))
            n = snprintf(tmp, sizeof(tmp), "%1.17g", d);
    }
    jsonw_raw(w, tmp, (size_t)n);
}

void jsonw_value(struct jsonw *w, const cJSON *item, int depth)
{
    const cJSON *c;
    switch (item->type & 0xFF) {
    case cJSON_NULL:
        jsonw_raw(w, "null", 4);
        break;
    case cJSON_False:
        jsonw_raw(w, "false", 5);
        break;
    case cJSON_True:
        jsonw_raw(w, "true", 4);
        break;
    case cJSON_Number:
        number(w, item);
        break;
    case cJSON_Raw:
        if (item->valuestring)
            jsonw_raw(w, item->valuestring, strlen(item->valuestring));
        break;
    case cJSON_String:
        value_string(w, item->valuestring);
        break;
    case cJSON_Array:
        ch(w, '[');
        /* cJSON counts an array as a level too, though it prints no newline */
        for (c = item->child; c; c = c->next) {
            jsonw_value(w, c, depth + 1);
            if (c->next)
                jsonw_raw(w, ", ", 2);
        }
        ch(w, ']');
        break;
    case cJSON_Object:
        jsonw_raw(w, "{\n", 2);
        for (c = item->child; c; c = c->next) {
            tabs(w, depth + 1);
            string(w, c->string);
            jsonw_raw(w, ":\t", 2);
            jsonw_value(w, c, depth + 1);
            if (c->next)
                ch(w, ',');
            ch(w, '\n');
        }
        tabs(w, depth);
        ch(w, '}');
        break;
    default:
        break;
    }
}

void jsonw_compact(struct jsonw *w, const cJSON *item)
{
    const cJSON *c;
    switch (item->type & 0xFF) {
    case cJSON_Array:
        ch(w, '[');
        for (c = item->child; c; c = c->next) {
            jsonw_compact(w, c);
            if (c->next)
                ch(w, ',');
        }
        ch(w, ']');
        break;
    case cJSON_Object:
        ch(w, '{');
        for (c = item->child; c; c = c->next) {
            string(w, c->string);
            ch(w, ':');
            jsonw_compact(w, c);
            if (c->next)
                ch(w, ',');
        }
        ch(w, '}');
        break;
    default: /* a scalar prints alike either way */
        jsonw_value(w, item, 0);
    }
}

void jsonw_string(struct jsonw *w, const char *s)
{
    value_string(w, s);
}

void jsonw_tree(struct jsonw *w, const cJSON *item, int depth)
{
    if (w->compact)
        jsonw_compact(w, item);
    else
        jsonw_value(w, item, depth);
}

void jsonw_int(struct jsonw *w, int64_t v)
{
    integer(w, v);
}

void jsonw_key(struct jsonw *w, const char *key, int depth)
{
    tabs(w, depth);
    string(w, key);
    jsonw_raw(w, ":\t", 2);
}

void jsonw_open(struct jsonw *w, struct jsonw_obj *o, int depth)
{
    jsonw_raw(w, "{\n", w->compact ? 1 : 2);
    o->depth = depth + 1;
    o->any = false;
}

void jsonw_field(struct jsonw *w, struct jsonw_obj *o, const char *key)
{
    size_t n = 0, d = (size_t)o->depth;
    while (key[n] && !stop[(unsigned char)key[n]])
        n++;
    if (w->compact) {
        if (o->any)
            ch(w, ',');
        o->any = true;
        string(w, key);
        ch(w, ':');
        return;
    }
    if (key[n]) { /* a key to escape: the general way */
        if (o->any)
            jsonw_raw(w, ",\n", 2);
        o->any = true;
        jsonw_key(w, key, o->depth);
        return;
    }
    /* a plain key (the usual): ",\n", the tabs, "key":<tab> in one go */
    room(w, n + d + 6);
    char *p = w->buf + w->len;
    if (o->any) {
        *p++ = ',';
        *p++ = '\n';
    }
    o->any = true;
    memset(p, '\t', d);
    p += d;
    *p++ = '"';
    memcpy(p, key, n);
    p += n;
    *p++ = '"';
    *p++ = ':';
    *p++ = '\t';
    w->len = (size_t)(p - w->buf);
}

void jsonw_close(struct jsonw *w, struct jsonw_obj *o)
{
    if (w->compact) {
        ch(w, '}');
        return;
    }
    if (o->any)
        ch(w, '\n');
    tabs(w, o->depth - 1);
    ch(w, '}');
}

void jsonw_field_str(struct jsonw *w, struct jsonw_obj *o, const char *key, const char *v)
{
    jsonw_field(w, o, key);
    if (v)
        value_string(w, v);
    else
        jsonw_raw(w, "null", 4);
}

void jsonw_field_num(struct jsonw *w, struct jsonw_obj *o, const char *key, double v)
{
    jsonw_field(w, o, key);
    jsonw_number(w, v);
}

void jsonw_field_bool(struct jsonw *w, struct jsonw_obj *o, const char *key, bool v)
{
    jsonw_field(w, o, key);
    jsonw_bool(w, v);
}

void jsonw_field_int(struct jsonw *w, struct jsonw_obj *o, const char *key, int64_t v)
{
    jsonw_field(w, o, key);
    if (v >= -9007199254740992LL && v <= 9007199254740992LL)
        jsonw_number(w, (double)v);
    else
        integer(w, v);
}

void jsonw_field_null(struct jsonw *w, struct jsonw_obj *o, const char *key)
{
    jsonw_field(w, o, key);
    jsonw_raw(w, "null", 4);
}

bool jsonw_finish(struct jsonw *w)
{
    flush(w);
    free(w->buf);
    w->buf = NULL;
    return !w->failed;
}

cJSON *cgs_json_int(int64_t v)
{
    if (v >= -9007199254740992LL && v <= 9007199254740992LL)
        return cJSON_CreateNumber((double)v);
    char text[32];
    snprintf(text, sizeof(text), "%lld", (long long)v);
    return cJSON_CreateRaw(text);
}

void cgs_json_add_int(cJSON *o, const char *key, int64_t v)
{
    cJSON_AddItemToObject(o, key, cgs_json_int(v));
}
