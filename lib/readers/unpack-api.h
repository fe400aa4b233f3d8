/*
 * zlib, liblzma and libzstd through tables filled on first use (lib/base/dynlib.h): include after
 * <zlib.h>, <lzma.h> and <zstd.h> (only lib/readers/unpack.c does), call the library's load function
 * first, then use it as usual. lib/readers/unpack-api.c alone sees the real declarations.
 */
#ifndef CGS_UNPACK_API_H
#define CGS_UNPACK_API_H

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "lib/base/diag.h"
#include "lib/base/dynlib.h"

#define CGS_Z_SYMBOLS(X) X(inflateInit2_) X(inflate) X(inflateEnd) X(inflateReset)
#define CGS_LZMA_SYMBOLS(X) X(lzma_stream_decoder) X(lzma_code) X(lzma_end)
#define CGS_ZSTD_SYMBOLS(X)                                                                        \
    X(ZSTD_createDStream) X(ZSTD_freeDStream) X(ZSTD_initDStream) X(ZSTD_decompressStream)        \
    X(ZSTD_isError) X(ZSTD_getErrorName) X(ZSTD_DStreamOutSize) X(ZSTD_DCtx_setParameter)    \
    X(ZSTD_getErrorCode)

CGS_DYNLIB_DECLARE(cgs_z_api, cgs_z_api, CGS_Z_SYMBOLS, cgs_z_load)
CGS_DYNLIB_DECLARE(cgs_lzma_api, cgs_lzma_api, CGS_LZMA_SYMBOLS, cgs_lzma_load)
CGS_DYNLIB_DECLARE(cgs_zstd_api, cgs_zstd_api, CGS_ZSTD_SYMBOLS, cgs_zstd_load)

#ifndef CGS_UNPACK_API_TABLE
#define inflateInit2_ (*cgs_z_api.inflateInit2_)
#define inflate (*cgs_z_api.inflate)
#define inflateEnd (*cgs_z_api.inflateEnd)
#define inflateReset (*cgs_z_api.inflateReset)
#define lzma_stream_decoder (*cgs_lzma_api.lzma_stream_decoder)
#define lzma_code (*cgs_lzma_api.lzma_code)
#define lzma_end (*cgs_lzma_api.lzma_end)
#define ZSTD_createDStream (*cgs_zstd_api.ZSTD_createDStream)
#define ZSTD_freeDStream (*cgs_zstd_api.ZSTD_freeDStream)
#define ZSTD_initDStream (*cgs_zstd_api.ZSTD_initDStream)
#define ZSTD_decompressStream (*cgs_zstd_api.ZSTD_decompressStream)
#define ZSTD_isError (*cgs_zstd_api.ZSTD_isError)
#define ZSTD_getErrorName (*cgs_zstd_api.ZSTD_getErrorName)
#define ZSTD_DStreamOutSize (*cgs_zstd_api.ZSTD_DStreamOutSize)
#define ZSTD_DCtx_setParameter (*cgs_zstd_api.ZSTD_DCtx_setParameter)
#define ZSTD_getErrorCode (*cgs_zstd_api.ZSTD_getErrorCode)
#endif

#endif
