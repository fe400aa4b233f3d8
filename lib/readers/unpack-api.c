/* The zlib, liblzma and libzstd tables (lib/readers/unpack-api.h), filled on first use. */
#define CGS_UNPACK_API_TABLE
#include "lib/readers/unpack-api.h"

#include "gen/sonames.h"

#define CGS_DYNLIB_TYPE struct cgs_z_api
CGS_DYNLIB_DEFINE(cgs_z_api, cgs_z_api, CGS_Z_SYMBOLS, cgs_z_load, "zlib", CGS_SONAMES_Z,
                  "reading .gz files needs zlib; Debian: apt-get install zlib1g")
#undef CGS_DYNLIB_TYPE
#define CGS_DYNLIB_TYPE struct cgs_lzma_api
CGS_DYNLIB_DEFINE(cgs_lzma_api, cgs_lzma_api, CGS_LZMA_SYMBOLS, cgs_lzma_load, "liblzma",
                  CGS_SONAMES_LZMA, "reading .xz files needs liblzma; Debian: apt-get install liblzma5")
#undef CGS_DYNLIB_TYPE
#define CGS_DYNLIB_TYPE struct cgs_zstd_api
CGS_DYNLIB_DEFINE(cgs_zstd_api, cgs_zstd_api, CGS_ZSTD_SYMBOLS, cgs_zstd_load, "libzstd",
                  CGS_SONAMES_ZSTD, "reading .zst files needs libzstd; Debian: apt-get install libzstd1")
