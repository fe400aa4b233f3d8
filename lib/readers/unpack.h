/*
 * Reading gzip, xz and zstd streams as they come (TORCH_TRACE logs attached to bug reports
 * are compressed): bytes in, decompressed bytes out to a callback, so a followed file that
 * grows is unpacked as it grows. Concatenated members/streams/frames are read one after the
 * other, as gzip -d, xz -d and zstd -d do. The libraries are opened on first use
 * (lib/readers/unpack-api.h).
 */
#ifndef CGS_UNPACK_H
#define CGS_UNPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"
#include "lib/readers/sniff.h"

typedef void (*cgs_unpack_sink)(void *ctx, const char *data, size_t len);

struct cgs_unpack {
    enum cgs_input_kind kind; /* GZIP, XZ or ZSTD */
    void *stream;             /* the library's state */
    char *out_buf;            /* where the library writes, before sink (one per stream) */
    bool at_end;              /* the last member/stream/frame is complete */
    uint64_t in, out;         /* bytes taken and given */
    uint64_t max_out;         /* refuse to give more (a decompression bomb) */
    double max_ratio;         /* and, past CGS_UNPACK_RATIO_FLOOR given, more than this many
                                 bytes per byte taken (0: no such bound; set after init) */
    uint64_t max_mem;         /* the decoder's memory (an xz dictionary, a zstd window) */
};

/* What a decoder may hold when init is given 0: enough for `xz -9` (64 MiB dictionary) and
   `zstd --ultra -22` (128 MiB window), as `zstd -d` allows by default; a few header bytes
   cannot make cgscope allocate gigabytes. */
#define CGS_UNPACK_MAX_MEM ((uint64_t)256 << 20)
/* max_ratio applies once this much was given: small inputs may unpack as far as they like */
#define CGS_UNPACK_RATIO_FLOOR ((uint64_t)256 << 20)

/* Open the library for kind and start a stream that gives at most max_out bytes and whose
 * decoder holds at most max_mem bytes (0: CGS_UNPACK_MAX_MEM): 0, or -1 with d saying what is
 * missing. */
int cgs_unpack_init(struct cgs_unpack *u, enum cgs_input_kind kind, uint64_t max_out,
                    uint64_t max_mem, struct cgs_diag *d) CGS_WUR;

/* Unpack n bytes, giving what they decode to sink: 0, or -1 with d filled (corrupt data,
 * or more than max_out bytes). */
int cgs_unpack_feed(struct cgs_unpack *u, const void *in, size_t n, cgs_unpack_sink sink,
                    void *ctx, struct cgs_diag *d) CGS_WUR;

/* At the end of the input (what the decoder still holds goes to sink): 0 when the stream
 * ended cleanly, -1 with d filled when it was cut short (a truncated file). */
int cgs_unpack_finish(struct cgs_unpack *u, cgs_unpack_sink sink, void *ctx,
                      struct cgs_diag *d) CGS_WUR;

void cgs_unpack_release(struct cgs_unpack *u);

#endif
