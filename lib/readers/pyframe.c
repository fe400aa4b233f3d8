/* Frames of Python tracebacks (lib/readers/pyframe.h). */
#include "lib/readers/pyframe.h"

#include <stdlib.h>
#include <string.h>

bool cgs_pyframe_last(const char *text, const char *end, struct cgs_pyframe *f)
{
    const char *p, *at, *last = NULL, *q, *ln, *in, *nl;

    memset(f, 0, sizeof(*f));
    if (!text)
        return false;
    for (p = text; (at = strstr(p, "File \"")) && (!end || at < end); p = at + 6)
        last = at;
    if (!last || !(q = strchr(last + 6, '"')))
        return false;
    f->file = last + 6;
    f->file_len = (size_t)(q - f->file);
    nl = strchr(q, '\n');
    ln = strstr(q, "line ");
    if (ln && (!nl || ln < nl))
        f->line = strtol(ln + 5, NULL, 10);
    in = strstr(q, ", in ");
    if (in && (!nl || in < nl)) {
        f->name = in + 5;
        f->name_len = nl ? (size_t)(nl - f->name) : strlen(f->name);
        while (f->name_len && f->name[f->name_len - 1] == '\r')
            f->name_len--;
    }
    if (nl) {
        const char *c = nl + 1, *e;
        while (*c == ' ' || *c == '\t')
            c++;
        e = c + strcspn(c, "\n");
        if (e > c && strncmp(c, "File \"", 6)) {
            f->code = c;
            f->code_len = (size_t)(e - c);
        }
    }
    return true;
}

void cgs_pyframe_format(const struct cgs_pyframe *f, bool with_code, struct cgs_buf *b)
{
    const char *base = f->file;
    for (const char *x = f->file; x < f->file + f->file_len; x++)
        if (*x == '/' || *x == '\\')
            base = x + 1;
    cgs_buf_add(b, base, (size_t)(f->file + f->file_len - base));
    if (f->line) {
        cgs_buf_addch(b, ':');
        cgs_buf_addint(b, f->line);
    }
    if (with_code && f->code) {
        cgs_buf_addstr(b, ": ");
        cgs_buf_add(b, f->code, f->code_len);
    }
}
