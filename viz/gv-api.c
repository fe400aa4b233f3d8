/* The Graphviz table (viz/gv-api.h), filled on first use. */
#define CGS_GV_API_TABLE
#include "viz/gv-api.h"

#include "gen/sonames.h"

#define CGS_DYNLIB_TYPE struct cgs_gv_api
CGS_DYNLIB_DEFINE(cgs_gv_api, cgs_gv_api, CGS_GV_SYMBOLS, cgs_gv_load, "Graphviz", CGS_SONAMES_GVC,
                  "drawing needs Graphviz's libraries; Debian: apt-get install libgvc6")
