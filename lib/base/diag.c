#include "lib/base/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const messages[CGS_E_COUNT] = {[CGS_OK] = "success",
#define X(name, msg) [CGS_E_##name] = msg,
                                                  CGS_ERRNO_MAP(X)
#undef X
};

const char *cgs_strerror(int err)
{
    if (err < 0)
        err = -err;
    if (err >= CGS_E_COUNT)
        return "unknown error";
    return messages[err];
}

void cgs_diag_clear(struct cgs_diag *d)
{
    if (!d)
        return;
    memset(d, 0, sizeof(*d));
}

int cgs_diag_set(struct cgs_diag *d, int code, const char *fmt, ...)
{
    if (code < 0)
        code = -code;
    if (d) {
        va_list ap;
        d->code = code;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
        va_end(ap);
    }
    return -code;
}

void cgs_diag_at(struct cgs_diag *d, const char *file, uint32_t line, uint32_t col)
{
    if (!d)
        return;
    d->file = file;
    d->line = line;
    d->col = col;
}

void cgs_diag_path(struct cgs_diag *d, const char *fmt, ...)
{
    va_list ap;
    if (!d)
        return;
    va_start(ap, fmt);
    vsnprintf(d->path, sizeof(d->path), fmt, ap);
    va_end(ap);
}

void cgs_diag_format(const struct cgs_diag *d, char *out, size_t n)
{
    size_t len = 0;
    int w;

    if (!n)
        return;
    out[0] = '\0';
    if (d->file) {
        if (d->line)
            w = snprintf(out, n, "%s:%u:%u: ", d->file, d->line, d->col);
        else
            w = snprintf(out, n, "%s: ", d->file);
        if (w > 0)
            len = (size_t)w < n ? (size_t)w : n - 1;
    }
    w = snprintf(out + len, n - len, "error: %s", d->msg[0] ? d->msg : cgs_strerror(d->code));
    if (w > 0)
        len += (size_t)w < n - len ? (size_t)w : n - len - 1;
    if (d->path[0] && len < n)
        snprintf(out + len, n - len, " (at %s)", d->path);
}

void cgs_bug(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    char msg[512];
    int n = snprintf(msg, sizeof(msg), "BUG: %s:%d: ", file, line);
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof(msg))
        vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    n = (int)strlen(msg);
    if (n + 1 < (int)sizeof(msg))
        msg[n++] = '\n';
    if (write(2, msg, (size_t)n) < 0)
        n = 0; /* nothing more can be done */
    abort();
}
