/* The libzip table (lib/zip-api.h), filled on first use. */
#define CGS_ZIP_API_TABLE
#include "lib/zip-api.h"

#include "gen/sonames.h"

struct cgs_zip_api cgs_zip_api;

#define ZIP_ROW(name) CGS_DYNLIB_ROW(struct cgs_zip_api, name)
static const struct cgs_dynsym zip_syms[] = {CGS_ZIP_SYMBOLS(ZIP_ROW)};

static struct cgs_dynlib zip_lib = {
    "libzip", CGS_SONAMES_ZIP, "reading .pt2 archives needs libzip; Debian: apt-get install libzip4",
    zip_syms, sizeof(zip_syms) / sizeof(zip_syms[0]), &cgs_zip_api, 0,
};

int cgs_zip_load(struct cgs_diag *d)
{
    return cgs_dynlib_load(&zip_lib, d);
}
