/*
 * Error codes and diagnostics.
 *
 * Library functions never print and never exit: they return 0 or -CGS_E_*,
 * and fill the caller's struct cgs_diag with the place and the reason.
 * Problems that do not stop an analysis (an unknown operator, a shape that
 * cannot be known) go on a graph's note list instead (see graph.h).
 */
#ifndef CGS_DIAG_H
#define CGS_DIAG_H

#include <stddef.h>
#include <stdint.h>

#define CGS_ERRNO_MAP(X)                                                                           \
    X(NOMEM, "out of memory")                                                                      \
    X(PARSE, "malformed JSON")                                                                     \
    X(SCHEMA, "unexpected value")                                                                  \
    X(UNKNOWN_OP, "unknown operator")                                                              \
    X(CYCLE, "graph has a cycle")                                                                  \
    X(LIMIT, "size limit exceeded")                                                                \
    X(IO, "i/o error")                                                                             \
    X(UNKNOWN, "not known")                                                                        \
    X(FORMAT, "unsupported format")                                                                \
    X(INVAL, "invalid argument")

enum cgs_err {
    CGS_OK = 0,
#define X(name, msg) CGS_E_##name,
    CGS_ERRNO_MAP(X)
#undef X
        CGS_E_COUNT
};

/* The message of an error code; accepts the code with either sign. */
const char *cgs_strerror(int err);

/*
 * Where and why something failed. `file` is borrowed (it must outlive the
 * diag); line and col are 1-based, 0 when unknown; `path` is a JSON path
 * such as "nodes[12].args[1]", empty when unknown.
 */
struct cgs_diag {
    int code; /* enum cgs_err, positive; 0 when nothing failed */
    const char *file;
    uint32_t line, col;
    char path[256];
    char msg[512];
};

#define CGS_DIAG_INIT                                                                              \
    {                                                                                              \
        0, NULL, 0, 0, "", ""                                                                      \
    }

#if defined(__GNUC__)
#define CGS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define CGS_WUR          __attribute__((warn_unused_result))
#else
#define CGS_PRINTF(f, a)
#define CGS_WUR
#endif

/* Clear a diag to "no error". A NULL diag is accepted everywhere. */
void cgs_diag_clear(struct cgs_diag *d);

/* Record an error and return -code, so that `return cgs_diag_set(...)` works. */
int cgs_diag_set(struct cgs_diag *d, int code, const char *fmt, ...) CGS_PRINTF(3, 4);

/* Set the place of the error (file is borrowed). */
void cgs_diag_at(struct cgs_diag *d, const char *file, uint32_t line, uint32_t col);

/* Set the JSON path of the error (printf-style). */
void cgs_diag_path(struct cgs_diag *d, const char *fmt, ...) CGS_PRINTF(2, 3);

/*
 * Format as "file:line:col: error: message (at path)" into out (size n),
 * leaving out the parts that are unknown.
 */
void cgs_diag_format(const struct cgs_diag *d, char *out, size_t n);

/* Report a broken invariant with its source place, and abort. */
#define CGS_BUG(...) cgs_bug(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void cgs_bug(const char *file, int line, const char *fmt, ...) CGS_PRINTF(3, 4);

#endif
