/* The libzip table (lib/readers/zip-api.h), filled on first use. */
#define CGS_ZIP_API_TABLE
#include "lib/readers/zip-api.h"

#include "gen/sonames.h"

#define CGS_DYNLIB_TYPE struct cgs_zip_api
CGS_DYNLIB_DEFINE(cgs_zip_api, cgs_zip_api, CGS_ZIP_SYMBOLS, cgs_zip_load, "libzip", CGS_SONAMES_ZIP,
                  "reading .pt2 archives needs libzip; Debian: apt-get install libzip4")
