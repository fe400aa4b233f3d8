/*
 * Growable text buffers with git's strbuf invariants: after CGS_BUF_INIT,
 * buf is never NULL and always NUL-terminated; cgs_buf_detach() hands the
 * memory to the caller (caller frees).
 */
#ifndef CGS_BUF_H
#define CGS_BUF_H

#include <stddef.h>

#include "lib/base/diag.h"

struct cgs_buf {
    char *buf;
    size_t len, alloc;
};

extern char cgs_buf_empty[];
#define CGS_BUF_INIT                                                                               \
    {                                                                                              \
        cgs_buf_empty, 0, 0                                                                        \
    }

void cgs_buf_init(struct cgs_buf *b);
void cgs_buf_release(struct cgs_buf *b);
void cgs_buf_reset(struct cgs_buf *b); /* len = 0, keeps memory */
void cgs_buf_grow(struct cgs_buf *b, size_t extra);
void cgs_buf_add(struct cgs_buf *b, const void *data, size_t n);
void cgs_buf_addstr(struct cgs_buf *b, const char *s);
void cgs_buf_addch(struct cgs_buf *b, char c);
void cgs_buf_addf(struct cgs_buf *b, const char *fmt, ...) CGS_PRINTF(2, 3);
void cgs_buf_addint(struct cgs_buf *b, long long v); /* what "%lld" writes, without printf */
/* v's decimal text ("%lld"'s) at the end of out[CGS_INT_TEXT_MAX]; returns where it starts
 * (no NUL): the one integer formatter of the paths that avoid printf. */
#define CGS_INT_TEXT_MAX 24
char *cgs_int_text(char *out, long long v);
char *cgs_buf_detach(struct cgs_buf *b); /* caller frees */

#endif
