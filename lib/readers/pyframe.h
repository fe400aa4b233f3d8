/*
 * A frame of a Python traceback, as torch writes stack traces into graphs (a node's
 * stack_trace) and logs (graph breaks): `  File "/x/model.py", line 12, in forward` and,
 * on the next line, the code. One reader for every command and picture.
 */
#ifndef CGS_PYFRAME_H
#define CGS_PYFRAME_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/buf.h"

struct cgs_pyframe {
    const char *file; /* the path as written, file_len bytes (not terminated) */
    size_t file_len;
    long line;        /* 0 when the frame has none */
    const char *name; /* the function ("forward"), name_len bytes; NULL when absent */
    size_t name_len;
    const char *code; /* the line of code under the frame, code_len bytes; NULL when absent */
    size_t code_len;
};

/* The last frame of text that starts before end (NULL: the whole text); false when none. */
bool cgs_pyframe_last(const char *text, const char *end, struct cgs_pyframe *f);

/* "model.py:12" (the file's base name and line), then ": CODE" when with_code and the frame
 * has code, into b. */
void cgs_pyframe_format(const struct cgs_pyframe *f, bool with_code, struct cgs_buf *b);

#endif
