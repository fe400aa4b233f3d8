/* The JSON scanner shared by the readers: see lib/readers/json-scan.h. */
#include "lib/readers/json-scan.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <locale.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/utf8.h"
#include "lib/readers/load.h"

void cgs_jscan_init(struct cgs_jscan *s, const char *buf, size_t len, const char *end_name)
{
    memset(s, 0, sizeof(*s));
    s->buf = buf;
    s->len = len;
    s->end_name = end_name ? end_name : "end of file";
}

void cgs_jscan_release(struct cgs_jscan *s)
{
    free(s->offs);
    s->offs = NULL;
    s->n_offs = s->alloc_offs = 0;
}

int cgs_jscan_fail(struct cgs_jscan *s, size_t off, int code, const char *fmt, ...)
{
    va_list ap;
    s->err_off = off;
    va_start(ap, fmt);
    vsnprintf(s->err_msg, sizeof(s->err_msg), fmt, ap);
    va_end(ap);
    return -code;
}

size_t cgs_jscan_ws(const struct cgs_jscan *S, size_t p)
{
    static const unsigned char ws[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};
    const unsigned char *b = (const unsigned char *)S->buf;
    size_t len = S->len;
    while (p < len && ws[b[p]])
        p++;
    return p;
}

const char *cgs_jscan_what(struct cgs_jscan *S, size_t p)
{
    if (p >= S->len)
        return S->end_name;
    switch (S->buf[p]) {
    case '{': return "'{'";
    case '}': return "'}'";
    case '[': return "'['";
    case ']': return "']'";
    case ',': return "','";
    case ':': return "':'";
    case '"': return "a string";
    default:
        if ((unsigned char)S->buf[p] > 0x20 && (unsigned char)S->buf[p] < 0x7f) {
            snprintf(S->what, sizeof(S->what), "'%c'", S->buf[p]);
            return S->what;
        }
        if (!S->buf[p])
            return "a NUL byte (binary data, not JSON text)";
        if ((unsigned char)S->buf[p] < 0x20 || (unsigned char)S->buf[p] >= 0x7f) {
            snprintf(S->what, sizeof(S->what), "byte 0x%02X", (unsigned char)S->buf[p]);
            return S->what;
        }
        return "an unexpected character";
    }
}

/* Bytes that end the fast path inside a string: '"', '\\' and control characters. */
static const unsigned char string_stop[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
    [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1,
    [0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
    [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1,
    [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, ['"'] = 1,  ['\\'] = 1,
};

/* The bytes that may follow a backslash in a JSON string. */
static const unsigned char escape_ok[256] = {
    ['"'] = 1, ['\\'] = 1, ['/'] = 1, ['b'] = 1, ['f'] = 1,
    ['n'] = 1, ['r'] = 1,  ['t'] = 1,  ['u'] = 1,
};

static size_t utf8_len(const unsigned char *b, size_t p, size_t len)
{
    return cgs_utf8_len(b, p, len);
}

static int hex4(const char *s, size_t p, size_t len, unsigned *v)
{
    *v = 0;
    if (p + 4 > len)
        return -1;
    for (int i = 0; i < 4; i++) {
        char h = s[p + (size_t)i];
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
              : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v * 16 + (unsigned)d;
    }
    return 0;
}

/* Scan a string starting at p (the quote); *end is past the closing quote. */
int cgs_jscan_string(struct cgs_jscan *S, size_t p, size_t *end)
{
    const unsigned char *b = (const unsigned char *)S->buf;
    size_t start = p++;
    for (;;) {
#ifdef __SSE2__
        /* sixteen bytes at a time: the first '"', '\\', control or non-ASCII byte */
        while (S->len - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(b + p));
            __m128i hit = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                             _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                /* bytes < 0x20 or >= 0x80: as signed bytes, exactly those below 0x20 */
                _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
            unsigned m = (unsigned)_mm_movemask_epi8(hit);
            if (m) {
                p += (size_t)__builtin_ctz(m);
                break;
            }
            p += 16;
        }
#endif
        /* eight bytes at a time while none of them is '"', '\\' or a control byte */
        while (S->len - p >= 8) {
            uint64_t w;
            memcpy(&w, b + p, 8);
            uint64_t q = w ^ 0x2222222222222222ull, bs = w ^ 0x5c5c5c5c5c5c5c5cull;
            uint64_t hit = ((q - 0x0101010101010101ull) & ~q) |
                           ((bs - 0x0101010101010101ull) & ~bs) |
                           ((w - 0x2020202020202020ull) & ~w);
            if ((hit | w) & 0x8080808080808080ull)
                break;
            p += 8;
        }
        /* bytes >= 0x80 stop too: each multi-byte UTF-8 sequence is checked */
        while (p < S->len && b[p] < 0x80 && !string_stop[b[p]])
            p++;
        if (p >= S->len)
            break;
        unsigned char c = b[p];
        if (c == '"') {
            if (p - start > CGS_LOAD_MAX_STRING)
                return cgs_jscan_fail(S, start, CGS_E_LIMIT, "string longer than %zu bytes",
                                      CGS_LOAD_MAX_STRING);
            *end = p + 1;
            return 0;
        }
        if (c >= 0x80) {
            size_t n = utf8_len(b, p, S->len);
            if (!n && S->lenient) { /* decoded as U+FFFD */
                S->str_special = true;
                p++;
                continue;
            }
            if (!n)
                return cgs_jscan_fail(S, p, CGS_E_PARSE, "invalid UTF-8 in a string (byte "
                                      "0x%02X): graph JSON is UTF-8 text", c);
            p += n;
            continue;
        }
        if (c < 0x20)
            return cgs_jscan_fail(S, p, CGS_E_PARSE, "malformed JSON: control character in string");
        /* a backslash */
        S->str_special = true;
        p++;
        if (p >= S->len)
            break;
        if (!escape_ok[(unsigned char)S->buf[p]])
            return cgs_jscan_fail(S, p, CGS_E_PARSE, "malformed JSON: bad escape '\\%c' in string",
                                  S->buf[p]);
        if (S->buf[p] == 'u') {
            unsigned v, lo;
            if (hex4(S->buf, p + 1, S->len, &v))
                return cgs_jscan_fail(S, p - 1, CGS_E_PARSE, "malformed JSON: '\\u' wants "
                                      "four hex digits");
            if (v == 0 && !S->lenient) /* lenient: read as U+FFFD (decode_string) */
                return cgs_jscan_fail(S, p - 1, CGS_E_PARSE, "a string holds \\u0000 (NUL), "
                                      "which names and targets cannot hold");
            if (v >= 0xDC00 && v <= 0xDFFF)
                return cgs_jscan_fail(S, p - 1, CGS_E_PARSE, "a lone low surrogate \\u%04X in "
                                      "a string (not a character)", v);
            if (v >= 0xD800 && v <= 0xDBFF) {
                if (p + 6 >= S->len || S->buf[p + 5] != '\\' || S->buf[p + 6] != 'u' ||
                    hex4(S->buf, p + 7, S->len, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return cgs_jscan_fail(S, p - 1, CGS_E_PARSE, "a lone high surrogate "
                                          "\\u%04X in a string (not followed by a low one)", v);
                p += 6;
            }
            p += 4;
        }
        p++;
    }
    return cgs_jscan_fail(S, start, CGS_E_PARSE, "malformed JSON: unterminated string");
}

/* The end of the string at p found, not checked: its closing quote, a backslash taking the
 * byte after it. A string with no end is checked, for the exact error. */
static int string_end(struct cgs_jscan *S, size_t p, size_t *end)
{
    const char *b = S->buf;
    size_t q = p + 1;
    for (;;) {
        const char *hit = q < S->len ? memchr(b + q, '"', S->len - q) : NULL;
        size_t bs = 0;
        if (!hit)
            return cgs_jscan_string(S, p, end);
        q = (size_t)(hit - b);
        while (q - bs > p + 1 && b[q - bs - 1] == '\\')
            bs++;
        if (!(bs & 1)) {
            if (q - p > CGS_LOAD_MAX_STRING)
                return cgs_jscan_string(S, p, end);
            *end = q + 1;
            return 0;
        }
        q++;
    }
}

/* Whether the (decoded) key is one of S->unread_keys. */
static bool unread_key(const struct cgs_jscan *S, const char *key)
{
    for (const char *const *k = S->unread_keys; *k; k++)
        if (!strcmp(*k, key))
            return true;
    return false;
}

int cgs_jscan_number(struct cgs_jscan *S, size_t p, size_t *end)
{
    size_t s = p;
    if (p < S->len && S->buf[p] == '-')
        p++;
    if (p >= S->len || S->buf[p] < '0' || S->buf[p] > '9')
        return cgs_jscan_fail(S, s, CGS_E_PARSE, "malformed JSON: expected a value, got %s",
                              cgs_jscan_what(S, s));
    while (p < S->len && S->buf[p] >= '0' && S->buf[p] <= '9')
        p++;
    if (p < S->len && S->buf[p] == '.') {
        p++;
        if (p >= S->len || S->buf[p] < '0' || S->buf[p] > '9')
            return cgs_jscan_fail(S, p, CGS_E_PARSE, "malformed JSON: expected digits after '.'");
        while (p < S->len && S->buf[p] >= '0' && S->buf[p] <= '9')
            p++;
    }
    if (p < S->len && (S->buf[p] == 'e' || S->buf[p] == 'E')) {
        p++;
        if (p < S->len && (S->buf[p] == '+' || S->buf[p] == '-'))
            p++;
        if (p >= S->len || S->buf[p] < '0' || S->buf[p] > '9')
            return cgs_jscan_fail(S, p, CGS_E_PARSE, "malformed JSON: expected digits in exponent");
        while (p < S->len && S->buf[p] >= '0' && S->buf[p] <= '9')
            p++;
    }
    *end = p;
    return 0;
}

static void record(struct cgs_jscan *S, size_t off)
{
    if (!S->record)
        return;
    CGS_ALLOC_GROW(S->offs, S->n_offs + 1, S->alloc_offs);
    S->offs[S->n_offs++] = off;
}

/* ---- building cJSON items as the text is scanned ------------------------------------- */

/* code point v as UTF-8 at o; the bytes written */
static size_t put_utf8(char *o, unsigned v)
{
    if (v < 0x80) {
        o[0] = (char)v;
        return 1;
    }
    if (v < 0x800) {
        o[0] = (char)(0xC0 | (v >> 6));
        o[1] = (char)(0x80 | (v & 0x3F));
        return 2;
    }
    if (v < 0x10000) {
        o[0] = (char)(0xE0 | (v >> 12));
        o[1] = (char)(0x80 | ((v >> 6) & 0x3F));
        o[2] = (char)(0x80 | (v & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (v >> 18));
    o[1] = (char)(0x80 | ((v >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((v >> 6) & 0x3F));
    o[3] = (char)(0x80 | (v & 0x3F));
    return 4;
}

size_t cgs_jscan_decode(const struct cgs_jscan *S, size_t p, size_t end, bool special, char *out)
{
    const unsigned char *s = (const unsigned char *)S->buf + p + 1;
    size_t n = end - p - 2, i = 0;
    char *o = out;
    if (!special) {
        memcpy(out, s, n);
        out[n] = 0;
        return n;
    }
    while (i < n) {
        unsigned char c = s[i];
        if (c >= 0x80 && S->lenient) {
            size_t k = utf8_len(s, i, n);
            if (!k) {
                memcpy(o, "\xEF\xBF\xBD", 3); /* U+FFFD, for a byte that is not UTF-8 */
                o += 3;
                i++;
                continue;
            }
            memcpy(o, s + i, k);
            o += k;
            i += k;
            continue;
        }
        if (c != '\\') {
            *o++ = (char)c;
            i++;
            continue;
        }
        switch (s[i + 1]) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned v = 0, lo = 0;
            (void)hex4((const char *)s, i + 2, n, &v);
            if (v >= 0xD800 && v <= 0xDBFF) { /* checked: a low surrogate follows */
                (void)hex4((const char *)s, i + 8, n, &lo);
                v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
            o += put_utf8(o, v ? v : 0xFFFD); /* a NUL (lenient only) cannot end the string */
            i += 6;
            continue;
        }
        default: *o++ = (char)s[i + 1]; break; /* '"', '\\', '/' */
        }
        i += 2;
    }
    *o = 0;
    return (size_t)(o - out);
}

/* The content of the checked string [p, end) (quotes included), decoded, in cJSON's
 * allocator (what cJSON_Delete frees); NULL when out of memory. special: it holds an escape
 * (or, lenient, a byte that is not UTF-8, which becomes U+FFFD). */
static char *decode_string(const struct cgs_jscan *S, size_t p, size_t end, bool special)
{
    size_t n = end - p - 2;
    char *out = cJSON_malloc(special && S->lenient ? 3 * n + 1 : n + 1);
    if (out)
        cgs_jscan_decode(S, p, end, special, out);
    return out;
}

double cgs_json_number_value(const char *t, size_t n)
{
    size_t i = n && t[0] == '-';
    double d;
    bool digits = n - i <= 18;
    for (size_t k = i; k < n && digits; k++)
        digits = t[k] >= '0' && t[k] <= '9';
    if (digits && !(i && n == 2 && t[1] == '0')) { /* "-0" is -0.0: strtod's */
        int64_t v = 0;
        for (size_t k = i; k < n; k++)
            v = v * 10 + (t[k] - '0');
        d = (double)(i ? -v : v); /* exact below 2^53, correctly rounded above */
    } else {
        char tmp[128], *copy = n < sizeof(tmp) ? tmp : malloc(n + 1);
        const char *dp = localeconv()->decimal_point; /* strtod reads the locale's point */
        if (!copy)
            return 0;
        memcpy(copy, t, n);
        copy[n] = 0;
        if (dp && dp[0] && dp[0] != '.' && !dp[1]) {
            char *dot = strchr(copy, '.');
            if (dot)
                *dot = dp[0];
        }
        d = strtod(copy, NULL);
        if (copy != tmp)
            free(copy);
    }
    return d;
}

/* A number item for the checked number text [s, e): its value as cJSON's parser gives it (the
 * correctly rounded double), and its text (valuestring, a reference into the buffer). */
static cJSON *make_number(const struct cgs_jscan *S, size_t s, size_t e)
{
    const char *t = S->buf + s;
    size_t n = e - s;
    double d = cgs_json_number_value(t, n);
    cJSON *x = cJSON_CreateNumber(d);
    if (x && S->own_numbers) {
        char *own = cJSON_malloc(n + 1);
        if (!own) {
            cJSON_Delete(x);
            return NULL;
        }
        memcpy(own, t, n);
        own[n] = 0;
        x->valuestring = own; /* freed by cJSON_Delete */
    } else if (x) {
        x->valuestring = (char *)(uintptr_t)t;
        x->type |= cJSON_IsReference; /* cJSON_Delete leaves the text alone */
    }
    return x;
}

/*
 * Scan one JSON value starting at p (after whitespace); *end is just past it. Iterative:
 * containers keep their kind on an explicit stack. With out, the value's cJSON tree is built
 * in the same walk (items in cJSON's allocator, linked as cJSON_Parse links them).
 */
static int scan_value(struct cgs_jscan *S, size_t p, size_t *end, cJSON **out)
{
    char stack[CGS_LOAD_MAX_DEPTH + 1];
    cJSON *box[CGS_LOAD_MAX_DEPTH + 1], *last[CGS_LOAD_MAX_DEPTH + 1], *root = NULL, *item;
    char *key = NULL; /* the pending member's name */
    int sp = 0;
    int err;

#define ATTACH(x)                                                                                  \
    do {                                                                                           \
        item = (x);                                                                                \
        if (!item)                                                                                 \
            goto nomem;                                                                            \
        if (!sp) {                                                                                 \
            root = item;                                                                           \
        } else {                                                                                   \
            if (stack[sp - 1] == '{') {                                                            \
                item->string = key;                                                                \
                key = NULL;                                                                        \
            }                                                                                      \
            if (last[sp - 1]) {                                                                    \
                last[sp - 1]->next = item;                                                         \
                item->prev = last[sp - 1];                                                         \
            } else {                                                                               \
                box[sp - 1]->child = item;                                                         \
            }                                                                                      \
            box[sp - 1]->child->prev = item; /* cJSON: the first child's prev is the last */       \
            last[sp - 1] = item;                                                                   \
        }                                                                                          \
    } while (0)

    if (out)
        *out = NULL;
    for (;;) {
        /* at the start of a value */
        p = cgs_jscan_ws(S, p);
        if (p >= S->len) {
            err = cgs_jscan_fail(S, p, CGS_E_PARSE, "malformed JSON: unexpected %s, expected a value",
                                 S->end_name);
            goto fail;
        }
        record(S, p);
        char c = S->buf[p];
        if (c == '{' || c == '[') {
            if (sp + S->depth_base >= CGS_LOAD_MAX_DEPTH) {
                err = cgs_jscan_fail(S, p, CGS_E_LIMIT, "nesting too deep (more than %d levels)",
                                     CGS_LOAD_MAX_DEPTH);
                goto fail;
            }
            if (out) {
                ATTACH(c == '{' ? cJSON_CreateObject() : cJSON_CreateArray());
                box[sp] = item;
                last[sp] = NULL;
            }
            stack[sp++] = c;
            p = cgs_jscan_ws(S, p + 1);
            if (p < S->len && S->buf[p] == (c == '{' ? '}' : ']')) {
                sp--;
                p++;
                goto after_value;
            }
            if (c == '{')
                goto member_key;
            continue;
        } else if (c == '"') {
            size_t s0 = p;
            S->str_special = false;
            if ((err = cgs_jscan_string(S, p, &p)))
                goto fail;
            if (out) {
                char *v = decode_string(S, s0, p, S->str_special);
                if (!v)
                    goto nomem;
                item = cJSON_CreateNull();
                if (!item) {
                    cJSON_free(v);
                    goto nomem;
                }
                item->type = cJSON_String;
                item->valuestring = v;
                ATTACH(item);
            }
        } else if (c == 't' && S->len - p >= 4 && !memcmp(S->buf + p, "true", 4)) {
            p += 4;
            if (out) {
                ATTACH(cJSON_CreateTrue());
                item->valueint = 1; /* as cJSON's parser sets it */
            }
        } else if (c == 'f' && S->len - p >= 5 && !memcmp(S->buf + p, "false", 5)) {
            p += 5;
            if (out)
                ATTACH(cJSON_CreateFalse());
        } else if (c == 'n' && S->len - p >= 4 && !memcmp(S->buf + p, "null", 4)) {
            p += 4;
            if (out)
                ATTACH(cJSON_CreateNull());
        } else {
            size_t s0 = p;
            if ((err = cgs_jscan_number(S, p, &p)))
                goto fail;
            if (out)
                ATTACH(make_number(S, s0, p));
        }
    after_value:
        for (;;) {
            if (sp == 0) {
                *end = p;
                if (out)
                    *out = root;
                return 0;
            }
            p = cgs_jscan_ws(S, p);
            char close = stack[sp - 1] == '{' ? '}' : ']';
            if (p < S->len && S->buf[p] == ',') {
                p++;
                if (stack[sp - 1] == '{')
                    goto member_key;
                break; /* next array element */
            }
            if (p < S->len && S->buf[p] == close) {
                sp--;
                p++;
                continue;
            }
            err = cgs_jscan_fail(S, p, CGS_E_PARSE, "malformed JSON: expected ',' or '%c', got %s",
                                 close, cgs_jscan_what(S, p));
            goto fail;
        }
        continue;
    member_key:
        p = cgs_jscan_ws(S, p);
        if (p >= S->len || S->buf[p] != '"') {
            err = cgs_jscan_fail(S, p, CGS_E_PARSE, "malformed JSON: expected a string key, got %s",
                                 cgs_jscan_what(S, p));
            goto fail;
        }
        size_t k0 = p;
        S->str_special = false;
        if ((err = cgs_jscan_string(S, p, &p)))
            goto fail;
        if (out && !(key = decode_string(S, k0, p, S->str_special)))
            goto nomem;
        if (sp == 1 && S->cut_key && !S->cut_found && p - k0 == S->cut_key_len + 2 &&
            !memcmp(S->buf + k0 + 1, S->cut_key, S->cut_key_len)) {
            size_t v = cgs_jscan_ws(S, p);
            if (v < S->len && S->buf[v] == ':' && (v = cgs_jscan_ws(S, v + 1)) < S->len &&
                S->buf[v] == '"') {
                record(S, v);
                if ((err = S->cut_defer ? string_end(S, v, &p) : cgs_jscan_string(S, v, &p)))
                    goto fail;
                S->cut_found = true;
                S->cut_start = v;
                S->cut_end = p;
                if (out) /* the cut string stands in the tree as "" */
                    ATTACH(cJSON_CreateString(""));
                goto after_value;
            }
        }
        p = cgs_jscan_ws(S, p);
        if (p >= S->len || S->buf[p] != ':') {
            err = cgs_jscan_fail(S, p, CGS_E_PARSE, "malformed JSON: expected ':' after key, got %s",
                                 cgs_jscan_what(S, p));
            goto fail;
        }
        p++;
        if (out && S->unread_keys && unread_key(S, key)) {
            size_t v = cgs_jscan_ws(S, p);
            if (v < S->len && S->buf[v] == '"') {
                record(S, v);
                if ((err = cgs_jscan_string(S, v, &p)))
                    goto fail;
                ATTACH(cJSON_CreateString(""));
                goto after_value;
            }
        }
    }
#undef ATTACH
nomem:
    err = cgs_jscan_fail(S, p, CGS_E_NOMEM, "out of memory reading JSON");
fail:
    if (key)
        cJSON_free(key);
    cJSON_Delete(root);
    return err;
}

int cgs_jscan_value(struct cgs_jscan *S, size_t p, size_t *end)
{
    return scan_value(S, p, end, NULL);
}

int cgs_jscan_tree(struct cgs_jscan *S, size_t p, size_t *end, cJSON **out)
{
    return scan_value(S, p, end, out);
}

cJSON *cgs_json_parse(const char *text, size_t len, struct cgs_json_error *e)
{
    struct cgs_jscan S;
    cJSON *tree = NULL;
    size_t end;
    int err;

    cgs_jscan_init(&S, text, len, "end of the text");
    S.lenient = e && e->lenient;
    S.own_numbers = e && e->own_numbers;
    S.unread_keys = e ? e->unread_keys : NULL;
    err = cgs_jscan_tree(&S, 0, &end, &tree);
    if (!err && (end = cgs_jscan_ws(&S, end)) < len)
        err = cgs_jscan_fail(&S, end, CGS_E_PARSE, "malformed JSON: %s after the value",
                             cgs_jscan_what(&S, end));
    if (err) {
        cJSON_Delete(tree);
        tree = NULL;
        if (e) {
            e->code = -err;
            e->off = S.err_off;
            snprintf(e->msg, sizeof(e->msg), "%s", S.err_msg);
        }
    }
    cgs_jscan_release(&S);
    return tree;
}

const char *cgs_json_type(const cJSON *x)
{
    if (!x)
        return "nothing";
    if (cJSON_IsNull(x))
        return "null";
    if (cJSON_IsBool(x))
        return "a boolean";
    if (cJSON_IsNumber(x))
        return "a number";
    if (cJSON_IsString(x))
        return "a string";
    if (cJSON_IsArray(x))
        return "an array";
    return "an object";
}

bool cgs_json_text_is_int(const char *s)
{
    if (*s == '-')
        s++;
    if (*s < '0' || *s > '9')
        return false;
    while (*s >= '0' && *s <= '9')
        s++;
    return *s != '.' && *s != 'e' && *s != 'E';
}

bool cgs_json_text_int(const char *s, int64_t *v)
{
    bool neg;
    uint64_t u = 0, lim;
    if (!cgs_json_text_is_int(s))
        return false;
    neg = *s == '-';
    lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    s += neg;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (u > (lim - d) / 10)
            return false;
        u = u * 10 + d;
    }
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return true;
}

bool cgs_json_number_is_int(const cJSON *x)
{
    const char *s = x && (x->type & 0xFF) == cJSON_Number ? x->valuestring : NULL;
    return s && cgs_json_text_is_int(s);
}

bool cgs_json_number_int(const cJSON *x, int64_t *v)
{
    return cgs_json_number_is_int(x) && cgs_json_text_int(x->valuestring, v);
}
