/* The JSON scanner shared by the readers: see lib/readers/json-scan.h. */
#include "lib/readers/json-scan.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
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
    while (p < S->len &&
           (S->buf[p] == ' ' || S->buf[p] == '\t' || S->buf[p] == '\n' || S->buf[p] == '\r'))
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

/* The length of the valid UTF-8 sequence at b[p] (a byte >= 0x80), 0 when it is not valid
   (overlong forms, surrogates and code points past U+10FFFF are not). */
static size_t utf8_len(const unsigned char *b, size_t p, size_t len)
{
    unsigned char c = b[p];
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    uint32_t cp;
    if (!n || c > 0xF4 || p + n > len)
        return 0;
    cp = c & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((b[p + i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b[p + i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
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
            if (!n)
                return cgs_jscan_fail(S, p, CGS_E_PARSE, "invalid UTF-8 in a string (byte "
                                      "0x%02X): graph JSON is UTF-8 text", c);
            p += n;
            continue;
        }
        if (c < 0x20)
            return cgs_jscan_fail(S, p, CGS_E_PARSE, "malformed JSON: control character in string");
        /* a backslash */
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
            if (v == 0)
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

static int scan_number(struct cgs_jscan *S, size_t p, size_t *end)
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

/*
 * Scan one JSON value starting at p (after whitespace); *end is just past
 * it. Iterative: containers keep their kind on an explicit stack.
 */
int cgs_jscan_value(struct cgs_jscan *S, size_t p, size_t *end)
{
    char stack[CGS_LOAD_MAX_DEPTH + 1];
    int sp = 0;
    int err;

    for (;;) {
        /* at the start of a value */
        p = cgs_jscan_ws(S, p);
        if (p >= S->len)
            return cgs_jscan_fail(S, p, CGS_E_PARSE,
                                  "malformed JSON: unexpected %s, expected a value", S->end_name);
        record(S, p);
        char c = S->buf[p];
        if (c == '{' || c == '[') {
            if (sp == CGS_LOAD_MAX_DEPTH)
                return cgs_jscan_fail(S, p, CGS_E_LIMIT, "nesting too deep (more than %d levels)",
                                      CGS_LOAD_MAX_DEPTH);
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
            if ((err = cgs_jscan_string(S, p, &p)))
                return err;
        } else if (c == 't' && S->len - p >= 4 && !memcmp(S->buf + p, "true", 4)) {
            p += 4;
        } else if (c == 'f' && S->len - p >= 5 && !memcmp(S->buf + p, "false", 5)) {
            p += 5;
        } else if (c == 'n' && S->len - p >= 4 && !memcmp(S->buf + p, "null", 4)) {
            p += 4;
        } else if ((err = scan_number(S, p, &p))) {
            return err;
        }
    after_value:
        for (;;) {
            if (sp == 0) {
                *end = p;
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
            return cgs_jscan_fail(S, p, CGS_E_PARSE, "malformed JSON: expected ',' or '%c', got %s",
                                  close, cgs_jscan_what(S, p));
        }
        continue;
    member_key:
        p = cgs_jscan_ws(S, p);
        if (p >= S->len || S->buf[p] != '"')
            return cgs_jscan_fail(S, p, CGS_E_PARSE,
                                  "malformed JSON: expected a string key, got %s",
                                  cgs_jscan_what(S, p));
        size_t key = p;
        if ((err = cgs_jscan_string(S, p, &p)))
            return err;
        if (sp == 1 && S->cut_key && !S->cut_found && p - key == S->cut_key_len + 2 &&
            !memcmp(S->buf + key + 1, S->cut_key, S->cut_key_len)) {
            size_t v = cgs_jscan_ws(S, p);
            if (v < S->len && S->buf[v] == ':' && (v = cgs_jscan_ws(S, v + 1)) < S->len &&
                S->buf[v] == '"') {
                record(S, v);
                if ((err = S->cut_defer ? string_end(S, v, &p) : cgs_jscan_string(S, v, &p)))
                    return err;
                S->cut_found = true;
                S->cut_start = v;
                S->cut_end = p;
                goto after_value;
            }
        }
        p = cgs_jscan_ws(S, p);
        if (p >= S->len || S->buf[p] != ':')
            return cgs_jscan_fail(S, p, CGS_E_PARSE,
                                  "malformed JSON: expected ':' after key, got %s",
                                  cgs_jscan_what(S, p));
        p++;
    }
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

/* The next item of root's tree in preorder (children first), NULL at the end. */
static cJSON *preorder_next(cJSON *root, cJSON *it, cJSON **stack, int *sp, int max)
{
    if (it->child && !(it->type & cJSON_IsReference) && *sp < max) {
        stack[(*sp)++] = it;
        return it->child;
    }
    while (it && !it->next && *sp)
        it = stack[--*sp];
    return it && it != root ? it->next : NULL;
}

void cgs_jscan_attach_numbers(cJSON *root, const char *text, size_t len)
{
    cJSON *stack[256];
    int sp = 0;
    size_t p = 0;
    cJSON *it = root;

    while (it && p < len) {
        char c = text[p];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':' || c == '}' ||
            c == ']') {
            p++;
            continue;
        }
        if (c == '"') {
            size_t q = p + 1;
            while (q < len && text[q] != '"')
                q += text[q] == '\\' ? 2 : 1;
            p = q + 1;
            while (q + 1 < len && (text[q + 1] == ' ' || text[q + 1] == '\t' ||
                                   text[q + 1] == '\n' || text[q + 1] == '\r'))
                q++;
            if (q + 1 < len && text[q + 1] == ':')
                continue; /* a key, not a value */
            it = preorder_next(root, it, stack, &sp, (int)(sizeof(stack) / sizeof(stack[0])));
            continue;
        }
        if ((it->type & 0xFF) == cJSON_Number && !it->valuestring) {
            it->valuestring = (char *)(uintptr_t)(text + p);
            it->type |= cJSON_IsReference;
        }
        it = preorder_next(root, it, stack, &sp, (int)(sizeof(stack) / sizeof(stack[0])));
        if (c == '{' || c == '[') {
            p++;
            continue;
        }
        while (p < len && !strchr(",:}] \t\r\n", text[p]))
            p++;
    }
}

bool cgs_json_number_is_int(const cJSON *x)
{
    const char *s = x && (x->type & 0xFF) == cJSON_Number ? x->valuestring : NULL;
    if (!s)
        return false;
    if (*s == '-')
        s++;
    if (*s < '0' || *s > '9')
        return false;
    while (*s >= '0' && *s <= '9')
        s++;
    return *s != '.' && *s != 'e' && *s != 'E';
}

bool cgs_json_number_int(const cJSON *x, int64_t *v)
{
    const char *s;
    bool neg;
    uint64_t u = 0, lim;
    if (!cgs_json_number_is_int(x))
        return false;
    s = x->valuestring;
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
