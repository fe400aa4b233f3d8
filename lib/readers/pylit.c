/* The Python literal reader (lib/readers/pylit.h): recursive descent, bounded depth. */
#include "lib/readers/pylit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/buf.h"
#include "lib/readers/file.h"

struct pl {
    const char *s;
    size_t len, p;
    const char *file;
    struct cgs_diag *d;
    int depth;
    bool failed;
};

static void fail(struct pl *P, size_t at, const char *fmt, ...) CGS_PRINTF(3, 4);
static void fail(struct pl *P, size_t at, const char *fmt, ...)
{
    uint32_t line, col;
    char msg[400];
    va_list ap;
    if (P->failed)
        return;
    P->failed = true;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cgs_text_position(P->s, P->len, at, &line, &col);
    cgs_diag_at(P->d, P->file, line, col);
    cgs_diag_set(P->d, CGS_E_PARSE, "%s", msg);
}

static void skip_ws(struct pl *P)
{
    while (P->p < P->len) {
        char c = P->s[P->p];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
            P->p++;
        } else if (c == '#') {
            while (P->p < P->len && P->s[P->p] != '\n')
                P->p++;
        } else if (c == '\\' && P->p + 1 < P->len && P->s[P->p + 1] == '\n') {
            P->p += 2; /* a line continuation */
        } else {
            break;
        }
    }
}

static const char *here(struct pl *P)
{
    static char buf[16];
    if (P->p >= P->len)
        return "the end of the file";
    snprintf(buf, sizeof(buf), "'%c'", P->s[P->p] >= 32 && P->s[P->p] < 127 ? P->s[P->p] : '?');
    return buf;
}

static cJSON *value(struct pl *P);

static void add_utf8(struct cgs_buf *b, unsigned long cp)
{
    if (cp < 0x80) {
        cgs_buf_addch(b, (char)cp);
    } else if (cp < 0x800) {
        cgs_buf_addch(b, (char)(0xC0 | (cp >> 6)));
        cgs_buf_addch(b, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        cgs_buf_addch(b, (char)(0xE0 | (cp >> 12)));
        cgs_buf_addch(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        cgs_buf_addch(b, (char)(0x80 | (cp & 0x3F)));
    } else {
        cgs_buf_addch(b, (char)(0xF0 | (cp >> 18)));
        cgs_buf_addch(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
        cgs_buf_addch(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        cgs_buf_addch(b, (char)(0x80 | (cp & 0x3F)));
    }
}

/* One string literal, prefixes r/u allowed; adjacent literals are joined as Python does. */
static cJSON *string(struct pl *P)
{
    struct cgs_buf b = CGS_BUF_INIT;
    cJSON *item;

    for (;;) {
        bool raw = false;
        size_t start = P->p;
        char q;
        if (P->p < P->len && (P->s[P->p] == 'r' || P->s[P->p] == 'R' || P->s[P->p] == 'u' ||
                              P->s[P->p] == 'U')) {
            raw = P->s[P->p] == 'r' || P->s[P->p] == 'R';
            P->p++;
        }
        if (P->p >= P->len || (P->s[P->p] != '\'' && P->s[P->p] != '"')) {
            P->p = start;
            break;
        }
        q = P->s[P->p++];
        for (;;) {
            char c;
            if (P->p >= P->len || P->s[P->p] == '\n') {
                fail(P, start, "unterminated string (opened here)");
                cgs_buf_release(&b);
                return NULL;
            }
            c = P->s[P->p++];
            if (c == q)
                break;
            if (c != '\\' || raw) {
                cgs_buf_addch(&b, c);
                if (c == '\\' && P->p < P->len)
                    cgs_buf_addch(&b, P->s[P->p++]);
                continue;
            }
            if (P->p >= P->len)
                continue;
            c = P->s[P->p++];
            switch (c) {
            case 'n': cgs_buf_addch(&b, '\n'); break;
            case 't': cgs_buf_addch(&b, '\t'); break;
            case 'r': cgs_buf_addch(&b, '\r'); break;
            case '0': cgs_buf_addch(&b, '\0'); break;
            case '\\': case '\'': case '"': cgs_buf_addch(&b, c); break;
            case '\n': break;
            case 'x': case 'u': case 'U': {
                int n = c == 'x' ? 2 : c == 'u' ? 4 : 8;
                unsigned long cp = 0;
                for (int k = 0; k < n; k++) {
                    char h = P->p < P->len ? P->s[P->p] : 0;
                    int v = h >= '0' && h <= '9' ? h - '0'
                            : h >= 'a' && h <= 'f' ? h - 'a' + 10
                            : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                    if (v < 0) {
                        fail(P, P->p, "bad escape in a string: expected a hex digit, got %s",
                             here(P));
                        cgs_buf_release(&b);
                        return NULL;
                    }
                    cp = cp * 16 + (unsigned long)v;
                    P->p++;
                }
                if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                    fail(P, P->p, "bad escape in a string: U+%lX is not a character", cp);
                    cgs_buf_release(&b);
                    return NULL;
                }
                add_utf8(&b, cp);
                break;
            }
            default:
                cgs_buf_addch(&b, '\\');
                cgs_buf_addch(&b, c);
            }
        }
        skip_ws(P);
    }
    if (memchr(b.buf ? b.buf : "", '\0', b.len)) {
        fail(P, P->p, "a string holds a NUL character");
        cgs_buf_release(&b);
        return NULL;
    }
    item = cJSON_CreateString(b.buf ? b.buf : "");
    cgs_buf_release(&b);
    return item;
}

static cJSON *number(struct pl *P)
{
    size_t start = P->p;
    bool is_float = false;
    char text[64];
    cJSON *item;

    if (P->p < P->len && (P->s[P->p] == '-' || P->s[P->p] == '+'))
        P->p++;
    while (P->p < P->len) {
        char c = P->s[P->p];
        if ((c >= '0' && c <= '9') || c == '_')
            P->p++;
        else if (c == '.' || c == 'e' || c == 'E' ||
                 ((c == '-' || c == '+') && (P->s[P->p - 1] == 'e' || P->s[P->p - 1] == 'E'))) {
            is_float = true;
            P->p++;
        } else
            break;
    }
    if (P->p == start || (P->p - start == 1 && (P->s[start] == '-' || P->s[start] == '+'))) {
        P->p = start;
        fail(P, start, "expected a number, got %s", here(P));
        return NULL;
    }
    if (P->p - start >= sizeof(text)) {
        fail(P, start, "%s of %zu characters: %s", is_float ? "a number" : "an integer",
             P->p - start, is_float ? "longer than any number a cache index holds"
                                    : "it does not fit in 64 bits");
        return NULL;
    }
    {
        size_t k = 0;
        for (size_t i = start; i < P->p; i++)
            if (P->s[i] != '_')
                text[k++] = P->s[i];
        text[k] = '\0';
    }
    errno = 0;
    if (is_float) {
        char *end;
        double v = strtod(text, &end);
        if (*end) {
            fail(P, start, "malformed number '%s'", text);
            return NULL;
        }
        return cJSON_CreateNumber(v);
    }
    {
        char *end;
        long long v = strtoll(text, &end, 10);
        if (*end || errno == ERANGE) {
            fail(P, start, "integer '%s' does not fit in 64 bits", text);
            return NULL;
        }
        item = cJSON_CreateNumber((double)v);
        if (item) {
            /* its exact text (as the JSON core gives numbers: lib/readers/json-scan.h), so that
               integers past 2^53 read exactly and floats are told from integers */
            char *t = cJSON_malloc(32);
            if (!t) {
                cJSON_Delete(item);
                return NULL;
            }
            snprintf(t, 32, "%lld", v);
            item->valuestring = t;
        }
        return item;
    }
}

/* ( ... ), [ ... ] or { ... }: items separated by commas, a trailing comma allowed. */
static cJSON *sequence(struct pl *P, char close, bool dict)
{
    size_t open = P->p - 1;
    cJSON *arr = cJSON_CreateArray();
    bool first = true, saw_comma = false;
    int count = 0;

    if (++P->depth > CGS_PYLIT_MAX_DEPTH) {
        fail(P, open, "nested more than %d levels deep", CGS_PYLIT_MAX_DEPTH);
        cJSON_Delete(arr);
        return NULL;
    }
    for (;;) {
        cJSON *k, *v = NULL;
        skip_ws(P);
        if (P->p < P->len && P->s[P->p] == close) {
            P->p++;
            break;
        }
        if (!first && !saw_comma) {
            fail(P, P->p, "expected ',' or a closing bracket, got %s", here(P));
            cJSON_Delete(arr);
            return NULL;
        }
        first = false;
        size_t key_at = P->p;
        k = value(P);
        if (!k) {
            cJSON_Delete(arr);
            return NULL;
        }
        if (dict) {
            skip_ws(P);
            if (P->p >= P->len || P->s[P->p] != ':') {
                fail(P, P->p, "expected ':' after a dict key, got %s", here(P));
                cJSON_Delete(k);
                cJSON_Delete(arr);
                return NULL;
            }
            P->p++;
            v = value(P);
            if (!v) {
                cJSON_Delete(k);
                cJSON_Delete(arr);
                return NULL;
            }
            cJSON *pair = cJSON_CreateArray();
            cJSON_AddItemToArray(pair, k);
            cJSON_AddItemToArray(pair, v);
            pair->valuedouble = (double)key_at; /* an array's own number field: unused */
            cJSON_AddItemToArray(arr, pair);
        } else {
            cJSON_AddItemToArray(arr, k);
        }
        count++;
        skip_ws(P);
        saw_comma = P->p < P->len && P->s[P->p] == ',';
        if (saw_comma)
            P->p++;
    }
    P->depth--;
    (void)count;
    return arr;
}

static cJSON *value(struct pl *P)
{
    char c;
    skip_ws(P);
    if (P->failed)
        return NULL;
    if (P->p >= P->len) {
        fail(P, P->p, "expected a value, got %s", here(P));
        return NULL;
    }
    c = P->s[P->p];
    if (c == '(' || c == '[' || c == '{') {
        P->p++;
        return sequence(P, c == '(' ? ')' : c == '[' ? ']' : '}', c == '{');
    }
    if (c == '\'' || c == '"' ||
        ((c == 'r' || c == 'u' || c == 'R' || c == 'U') && P->p + 1 < P->len &&
         (P->s[P->p + 1] == '\'' || P->s[P->p + 1] == '"')))
        return string(P);
    if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.')
        return number(P);
    if (P->len - P->p >= 4 && !strncmp(P->s + P->p, "None", 4)) {
        P->p += 4;
        return cJSON_CreateNull();
    }
    if (P->len - P->p >= 4 && !strncmp(P->s + P->p, "True", 4)) {
        P->p += 4;
        return cJSON_CreateTrue();
    }
    if (P->len - P->p >= 5 && !strncmp(P->s + P->p, "False", 5)) {
        P->p += 5;
        return cJSON_CreateFalse();
    }
    fail(P, P->p, "expected a Python literal (None, a number, a string, a tuple, a list or a "
                  "dict), got %s", here(P));
    return NULL;
}

cJSON *cgs_pylit_parse(const char *buf, size_t len, const char *file, struct cgs_diag *d)
{
    struct pl P = {buf, len, 0, file, d, 0, false};
    cJSON *v;

    cgs_diag_clear(d);
    v = value(&P);
    if (v) {
        skip_ws(&P);
        if (P.p < P.len) {
            fail(&P, P.p, "expected the end of the file after the literal, got %s", here(&P));
            cJSON_Delete(v);
            v = NULL;
        }
    }
    return v;
}

size_t cgs_pylit_offset(const cJSON *pair)
{
    return cJSON_IsArray(pair) && pair->valuedouble > 0 ? (size_t)pair->valuedouble : 0;
}

const cJSON *cgs_pylit_key(const cJSON *pair)
{
    return cJSON_IsArray(pair) && cJSON_GetArraySize(pair) == 2 ? cJSON_GetArrayItem(pair, 0)
                                                                : NULL;
}

const cJSON *cgs_pylit_value(const cJSON *pair)
{
    return cJSON_IsArray(pair) && cJSON_GetArraySize(pair) == 2 ? cJSON_GetArrayItem(pair, 1)
                                                                : NULL;
}
