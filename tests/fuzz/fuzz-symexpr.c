/* The dimension-expression parser: what parses prints, and what prints parses to the same. */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/ir/symexpr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cgs_arena a;
    struct cgs_symctx ctx;
    struct cgs_diag d = CGS_DIAG_INIT;
    const struct cgs_sym *e, *e2;
    char *text;
    if (size > 4096)
        return 0;
    text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    cgs_arena_init(&a);
    cgs_symctx_init(&ctx, &a);
    if (cgs_sym_parse(&ctx, text, &e, &d) == 0 && e) {
        struct cgs_buf b = CGS_BUF_INIT, b2 = CGS_BUF_INIT;
        cgs_sym_print(e, &b);
        if (cgs_sym_parse(&ctx, b.buf, &e2, &d) != 0) {
            fprintf(stderr, "printed '%s' (from '%s') does not parse: %s\n", b.buf, text, d.msg);
            abort();
        }
        cgs_sym_print(e2, &b2);
        if (strcmp(b.buf, b2.buf)) {
            fprintf(stderr, "print/parse/print differs: '%s' vs '%s'\n", b.buf, b2.buf);
            abort();
        }
        cgs_buf_release(&b);
        cgs_buf_release(&b2);
    }
    cgs_symctx_release(&ctx);
    cgs_arena_release(&a);
    free(text);
    return 0;
}
