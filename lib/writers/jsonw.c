/* cJSON documents written as cJSON_Print writes them, through one buffer (see jsonw.h). */
#include "lib/writers/jsonw.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/json-alloc.h"

#define JSONW_BUF ((size_t)1 << 20)

void jsonw_init(struct jsonw *w, cgs_jsonw_sink sink, void *ctx)
{
    w->sink = sink;
    w->ctx = ctx;
    w->cap = JSONW_BUF;
    w->len = 0;
    w->failed = false;
    w->buf = cgs_xmalloc(w->cap);
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

void jsonw_raw(struct jsonw *w, const char *s, size_t n)
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

/* The bytes a JSON string escapes: controls, '"' and '\\' (and the NUL that ends it). */
static const unsigned char stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1,
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

static void integer(struct jsonw *w, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    room(w, (size_t)n + 1);
    if (v < 0)
        w->buf[w->len++] = '-';
    while (n)
        w->buf[w->len++] = tmp[--n];
}

/* cJSON's print_number: %1.15g when it reads back equal, else %1.17g; NaN and infinities as
 * null. An integer below 1e15 in magnitude prints as its plain digits under %1.15g, so it
 * takes the direct path (but -0 keeps its sign, as %g writes it). */
static void number(struct jsonw *w, const cJSON *item)
{
    double d = item->valuedouble;
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
        string(w, item->valuestring);
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

void jsonw_key(struct jsonw *w, const char *key, int depth)
{
    tabs(w, depth);
    string(w, key);
    jsonw_raw(w, ":\t", 2);
}

void jsonw_doc_streamed(struct jsonw *w, const cJSON *doc, const char *key, cgs_jsonw_item_fn item,
                        void *ctx, size_t n)
{
    const cJSON *c;
    jsonw_raw(w, "{\n", 2);
    for (c = doc->child; c; c = c->next) {
        jsonw_key(w, c->string, 1);
        if (c->string && strcmp(c->string, key) == 0 && cJSON_IsArray(c)) {
            /* each item is made in a bump region and dropped whole once written */
            struct cgs_jbump bump;
            cgs_jbump_begin(&bump);
            ch(w, '[');
            for (size_t i = 0; i < n; i++) {
                cJSON *x = item(ctx, i);
                if (!x) {
                    w->failed = true; /* the item could not be made: the text would be wrong */
                    break;
                }
                jsonw_value(w, x, 2);
                cgs_jbump_reset(&bump);
                if (i + 1 < n)
                    jsonw_raw(w, ", ", 2);
            }
            ch(w, ']');
            cgs_jbump_end(&bump);
        } else {
            jsonw_value(w, c, 1);
        }
        if (c->next)
            ch(w, ',');
        ch(w, '\n');
    }
    ch(w, '}');
}

bool jsonw_finish(struct jsonw *w)
{
    flush(w);
    free(w->buf);
    w->buf = NULL;
    return !w->failed;
}
