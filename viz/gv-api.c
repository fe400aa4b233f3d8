/* The Graphviz table (viz/gv-api.h), filled on first use. */
#define CGS_GV_API_TABLE
#include "viz/gv-api.h"

#include "gen/sonames.h"

struct cgs_gv_api cgs_gv_api;

#define GV_ROW(name) CGS_DYNLIB_ROW(struct cgs_gv_api, name)
static const struct cgs_dynsym gv_syms[] = {CGS_GV_SYMBOLS(GV_ROW)};

static struct cgs_dynlib gv_lib = {
    "Graphviz", CGS_SONAMES_GVC, "drawing needs Graphviz's libraries; Debian: apt-get install libgvc6",
    gv_syms, sizeof(gv_syms) / sizeof(gv_syms[0]), &cgs_gv_api, 0,
};

int cgs_gv_load(struct cgs_diag *d)
{
    return cgs_dynlib_load(&gv_lib, d);
}
