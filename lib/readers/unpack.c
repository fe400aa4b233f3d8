/* gzip, xz and zstd streams, unpacked as they come (lib/readers/unpack.h). */
#include "lib/readers/unpack.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/readers/unpack-api.h"

#define OUT_CHUNK ((size_t)1 << 16)

static const char *kind_name(enum cgs_input_kind k)
{
    return k == CGS_IN_GZIP ? "gzip" : k == CGS_IN_XZ ? "xz" : "zstd";
}

int cgs_unpack_init(struct cgs_unpack *u, enum cgs_input_kind kind, uint64_t max_out,
                    uint64_t max_mem, struct cgs_diag *d)
{
    memset(u, 0, sizeof(*u));
    u->kind = kind;
    u->max_out = max_out;
    u->max_mem = max_mem ? max_mem : CGS_UNPACK_MAX_MEM;
    switch (kind) {
    case CGS_IN_GZIP: {
        z_stream *s;
        if (cgs_z_load(d))
            return -1;
        s = cgs_xcalloc(1, sizeof(*s));
        if (inflateInit2(s, 15 + 32) != Z_OK) { /* 15 + 32: gzip or zlib, told by header */
            free(s);
            return cgs_diag_set(d, CGS_E_NOMEM, "cannot start a gzip stream"), -1;
        }
        u->stream = s;
        u->out_buf = cgs_xmalloc(OUT_CHUNK);
        return 0;
    }
    case CGS_IN_XZ: {
        lzma_stream *s, init = LZMA_STREAM_INIT;
        if (cgs_lzma_load(d))
            return -1;
        s = cgs_xmalloc(sizeof(*s));
        *s = init;
        if (lzma_stream_decoder(s, u->max_mem, LZMA_CONCATENATED) != LZMA_OK) {
            free(s);
            return cgs_diag_set(d, CGS_E_NOMEM, "cannot start an xz stream"), -1;
        }
        u->stream = s;
        u->out_buf = cgs_xmalloc(OUT_CHUNK);
        return 0;
    }
    case CGS_IN_ZSTD: {
        ZSTD_DStream *s;
        if (cgs_zstd_load(d))
            return -1;
        int log = 10; /* the largest window that fits (zstd's smallest is 1 KiB) */
        while (log < 31 && ((uint64_t)1 << (log + 1)) <= u->max_mem)
            log++;
        s = ZSTD_createDStream();
        if (!s || ZSTD_isError(ZSTD_initDStream(s)) ||
            ZSTD_isError(ZSTD_DCtx_setParameter(s, ZSTD_d_windowLogMax, log))) {
            if (s)
                ZSTD_freeDStream(s);
            return cgs_diag_set(d, CGS_E_NOMEM, "cannot start a zstd stream"), -1;
        }
        u->stream = s;
        u->out_buf = cgs_xmalloc(OUT_CHUNK);
        return 0;
    }
    default:
        return cgs_diag_set(d, CGS_E_INVAL, "not a compressed kind: %s",
                            cgs_input_kind_what(kind)), -1;
    }
}

static int give(struct cgs_unpack *u, const char *buf, size_t n, cgs_unpack_sink sink, void *ctx,
                struct cgs_diag *d)
{
    if (!n)
        return 0;
    if (u->out + n > u->max_out)
        return cgs_diag_set(d, CGS_E_LIMIT, "unpacks to more than the limit of %llu bytes",
                            (unsigned long long)u->max_out), -1;
    /* the bytes taken so far, and the chunk being decoded (counted after it) */
    if (u->max_ratio > 0 && u->out + n > CGS_UNPACK_RATIO_FLOOR &&
        (double)(u->out + n) > u->max_ratio * (double)(u->in + ((uint64_t)1 << 16)))
        return cgs_diag_set(d, CGS_E_LIMIT,
                            "unpacks to more than %.0f times its compressed size (%llu MiB so "
                            "far): a decompression bomb? (CGSCOPE_MAX_UNPACK_RATIO=N reads it "
                            "anyway)",
                            u->max_ratio, (unsigned long long)((u->out + n) >> 20)), -1;
    u->out += n;
    sink(ctx, buf, n);
    return 0;
}

static int feed_gzip(struct cgs_unpack *u, const unsigned char *in, size_t n, cgs_unpack_sink sink,
                     void *ctx, struct cgs_diag *d, char *buf)
{
    z_stream *s = u->stream;
    while (n) {
        if (u->at_end) {
            /* after a member: another member, or trailing bytes gzip -d ignores */
            if (n < 2 || in[0] != 0x1F || in[1] != 0x8B)
                return 0;
            inflateReset(s);
            u->at_end = false;
        }
        uInt take = n > (1u << 30) ? 1u << 30 : (uInt)n;
        s->next_in = (Bytef *)(uintptr_t)in;
        s->avail_in = take;
        for (;;) {
            int rc;
            s->next_out = (Bytef *)buf;
            s->avail_out = (uInt)OUT_CHUNK;
            rc = inflate(s, Z_NO_FLUSH);
            if (give(u, buf, OUT_CHUNK - s->avail_out, sink, ctx, d))
                return -1;
            if (rc == Z_STREAM_END) {
                u->at_end = true;
                break;
            }
            if (rc != Z_OK && rc != Z_BUF_ERROR)
                return cgs_diag_set(d, CGS_E_PARSE, "corrupt gzip data after %llu bytes: %s",
                                    (unsigned long long)(u->in + (take - s->avail_in)),
                                    s->msg ? s->msg : "inflate failed"), -1;
            if (!s->avail_in && s->avail_out)
                break;
        }
        size_t used = take - s->avail_in;
        u->in += used;
        in += used;
        n -= used;
        if (!used && !u->at_end)
            break;
    }
    return 0;
}

static int code_xz(struct cgs_unpack *u, const unsigned char *in, size_t n, lzma_action act,
                   cgs_unpack_sink sink, void *ctx, struct cgs_diag *d, char *buf)
{
    lzma_stream *s = u->stream;
    s->next_in = in;
    s->avail_in = n;
    for (;;) {
        lzma_ret rc;
        s->next_out = (uint8_t *)buf;
        s->avail_out = OUT_CHUNK;
        rc = lzma_code(s, act);
        if (give(u, buf, OUT_CHUNK - s->avail_out, sink, ctx, d))
            return -1;
        if (rc == LZMA_STREAM_END) {
            u->at_end = true;
            break;
        }
        if (rc == LZMA_BUF_ERROR && act == LZMA_FINISH)
            break; /* cut short: finish says so */
        if (rc == LZMA_MEMLIMIT_ERROR)
            return cgs_diag_set(d, CGS_E_LIMIT, "the xz data needs more than %llu MiB of memory "
                                "to unpack (its dictionary); unpack it with xz -d, or "
                                "recompress with a level up to -9",
                                (unsigned long long)(u->max_mem >> 20)), -1;
        if (rc != LZMA_OK)
            return cgs_diag_set(d, CGS_E_PARSE, "corrupt xz data after %llu bytes (liblzma "
                                "error %d)", (unsigned long long)(u->in + (n - s->avail_in)),
                                (int)rc), -1;
        if (!s->avail_in && s->avail_out)
            break;
    }
    u->in += n - s->avail_in;
    return 0;
}

static int feed_zstd(struct cgs_unpack *u, const void *in, size_t n, cgs_unpack_sink sink,
                     void *ctx, struct cgs_diag *d, char *buf)
{
    ZSTD_inBuffer ib = {in, n, 0};
    for (;;) {
        ZSTD_outBuffer ob = {buf, OUT_CHUNK, 0};
        size_t rc = ZSTD_decompressStream(u->stream, &ob, &ib);
        if (ZSTD_isError(rc) && ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge)
            return cgs_diag_set(d, CGS_E_LIMIT, "the zstd data needs a window of more than %llu "
                                "MiB to unpack; unpack it with zstd -d --memory=...",
                                (unsigned long long)(u->max_mem >> 20)), -1;
        if (ZSTD_isError(rc))
            return cgs_diag_set(d, CGS_E_PARSE, "corrupt zstd data after %llu bytes: %s",
                                (unsigned long long)(u->in + ib.pos), ZSTD_getErrorName(rc)), -1;
        if (give(u, buf, ob.pos, sink, ctx, d))
            return -1;
        u->at_end = rc == 0;
        if (ib.pos == ib.size && ob.pos < ob.size)
            break;
    }
    u->in += n;
    return 0;
}

int cgs_unpack_feed(struct cgs_unpack *u, const void *in, size_t n, cgs_unpack_sink sink,
                    void *ctx, struct cgs_diag *d)
{
    if (!n)
        return 0;
    if (u->kind == CGS_IN_XZ)
        u->at_end = false; /* concatenated streams: only LZMA_FINISH tells the end */
    return u->kind == CGS_IN_GZIP ? feed_gzip(u, in, n, sink, ctx, d, u->out_buf)
           : u->kind == CGS_IN_XZ ? code_xz(u, in, n, LZMA_RUN, sink, ctx, d, u->out_buf)
                                  : feed_zstd(u, in, n, sink, ctx, d, u->out_buf);
}

int cgs_unpack_finish(struct cgs_unpack *u, cgs_unpack_sink sink, void *ctx, struct cgs_diag *d)
{
    if (u->kind == CGS_IN_XZ && !u->at_end && u->stream &&
        code_xz(u, NULL, 0, LZMA_FINISH, sink, ctx, d, u->out_buf))
        return -1;
    if (!u->at_end)
        return cgs_diag_set(d, CGS_E_PARSE, "the %s data ends early (a truncated file? "
                            "%llu bytes read, %llu unpacked)", kind_name(u->kind),
                            (unsigned long long)u->in, (unsigned long long)u->out), -1;
    return 0;
}

void cgs_unpack_release(struct cgs_unpack *u)
{
    free(u->out_buf);
    u->out_buf = NULL;
    if (!u->stream)
        return;
    if (u->kind == CGS_IN_GZIP) {
        inflateEnd(u->stream);
        free(u->stream);
    } else if (u->kind == CGS_IN_XZ) {
        lzma_end(u->stream);
        free(u->stream);
    } else {
        ZSTD_freeDStream(u->stream);
    }
    u->stream = NULL;
}
