#include "lib/base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"

char cgs_buf_empty[1];

void cgs_buf_init(struct cgs_buf *b)
{
    b->buf = cgs_buf_empty;
    b->len = b->alloc = 0;
}

void cgs_buf_release(struct cgs_buf *b)
{
    if (b->alloc)
        free(b->buf);
    cgs_buf_init(b);
}

void cgs_buf_reset(struct cgs_buf *b)
{
    b->len = 0;
    if (b->alloc)
        b->buf[0] = '\0';
}

void cgs_buf_grow(struct cgs_buf *b, size_t extra)
{
    size_t need;
    if (extra > SIZE_MAX - b->len - 1)
        CGS_BUG("buffer size overflow");
    need = b->len + extra + 1;
    if (need <= b->alloc)
        return;
    if (!b->alloc)
        b->buf = NULL;
    CGS_ALLOC_GROW(b->buf, need, b->alloc);
    if (b->len == 0)
        b->buf[0] = '\0';
}

void cgs_buf_add(struct cgs_buf *b, const void *data, size_t n)
{
    if (n >= b->alloc - b->len) /* no room for n bytes and the terminator */
        cgs_buf_grow(b, n);
    memcpy(b->buf + b->len, data, n);
    b->len += n;
    b->buf[b->len] = '\0';
}

void cgs_buf_addstr(struct cgs_buf *b, const char *s)
{
    cgs_buf_add(b, s, strlen(s));
}

void cgs_buf_addch(struct cgs_buf *b, char c)
{
    if (b->alloc - b->len < 2)
        cgs_buf_grow(b, 1);
    b->buf[b->len++] = c;
    b->buf[b->len] = '\0';
}

void cgs_buf_addf(struct cgs_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    cgs_buf_grow(b, 64);
    va_start(ap, fmt);
    n = vsnprintf(b->buf + b->len, b->alloc - b->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        CGS_BUG("vsnprintf failed");
    if ((size_t)n >= b->alloc - b->len) {
        cgs_buf_grow(b, (size_t)n);
        va_start(ap, fmt);
        vsnprintf(b->buf + b->len, b->alloc - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

char *cgs_int_text(char *out, long long v)
{
    char *p = out + CGS_INT_TEXT_MAX;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return p;
}

void cgs_buf_addint(struct cgs_buf *b, long long v)
{
    char tmp[CGS_INT_TEXT_MAX];
    const char *p = cgs_int_text(tmp, v);
    cgs_buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

char *cgs_buf_detach(struct cgs_buf *b)
{
    char *s;
    if (!b->alloc)
        s = cgs_xstrdup("");
    else
        s = b->buf;
    cgs_buf_init(b);
    return s;
}
