/*
 * Graphviz (cgraph and gvc) through a table filled on first use (lib/base/dynlib.h): include after
 * <graphviz/cgraph.h> and <graphviz/gvc.h> (viz/gv.h does), call cgs_gv_load() first, then use
 * the library's names as usual. viz/gv-api.c alone sees the real declarations.
 */
#ifndef CGS_VIZ_GV_API_H
#define CGS_VIZ_GV_API_H

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "lib/base/diag.h"
#include "lib/base/dynlib.h"

#define CGS_GV_SYMBOLS(X)                                                                          \
    X(AgIoDisc) X(AgMemDisc) X(Agdirected) X(agattr) X(agclose) X(agedge) X(agfstin)             \
    X(agfstnode) X(agfstout) X(agfstsubg) X(agget) X(agmemread) X(agnameof) X(agnedges)          \
    X(agnnodes) X(agnode) X(agnxtin) X(agnxtnode) X(agnxtout) X(agnxtsubg) X(agopen)             \
    X(aghtmlstr) X(agraphof) X(agsafeset) X(agseterrf) X(agstrdup) X(agstrdup_html) X(agstrfree) X(agsubg)    \
    X(agwrite) X(gvContext) X(gvContextPlugins) X(gvFreeLayout) X(gvFreeRenderData) X(gvLayout) X(gvRenderData)

/* the table, and cgs_gv_load(): open Graphviz (once) and fill it */
CGS_DYNLIB_DECLARE(cgs_gv_api, cgs_gv_api, CGS_GV_SYMBOLS, cgs_gv_load)

#ifndef CGS_GV_API_TABLE
#define AgIoDisc (*cgs_gv_api.AgIoDisc)
#define AgMemDisc (*cgs_gv_api.AgMemDisc)
#define Agdirected (*cgs_gv_api.Agdirected)
#define agattr (*cgs_gv_api.agattr)
#define agclose (*cgs_gv_api.agclose)
#define agedge (*cgs_gv_api.agedge)
#define agfstin (*cgs_gv_api.agfstin)
#define agfstnode (*cgs_gv_api.agfstnode)
#define agfstout (*cgs_gv_api.agfstout)
#define agfstsubg (*cgs_gv_api.agfstsubg)
#define agget (*cgs_gv_api.agget)
#define agmemread (*cgs_gv_api.agmemread)
#define agnameof (*cgs_gv_api.agnameof)
#define agnedges (*cgs_gv_api.agnedges)
#define agnnodes (*cgs_gv_api.agnnodes)
#define agnode (*cgs_gv_api.agnode)
#define agnxtin (*cgs_gv_api.agnxtin)
#define agnxtnode (*cgs_gv_api.agnxtnode)
#define agnxtout (*cgs_gv_api.agnxtout)
#define agnxtsubg (*cgs_gv_api.agnxtsubg)
#define agopen (*cgs_gv_api.agopen)
#define agraphof (*cgs_gv_api.agraphof)
#define agsafeset (*cgs_gv_api.agsafeset)
#define agseterrf (*cgs_gv_api.agseterrf)
#define agstrdup (*cgs_gv_api.agstrdup)
#define agstrdup_html (*cgs_gv_api.agstrdup_html)
#define aghtmlstr (*cgs_gv_api.aghtmlstr)
#define agstrfree (*cgs_gv_api.agstrfree)
#define agsubg (*cgs_gv_api.agsubg)
#define agwrite (*cgs_gv_api.agwrite)
#define gvContext (*cgs_gv_api.gvContext)
#define gvContextPlugins (*cgs_gv_api.gvContextPlugins)
#define gvFreeLayout (*cgs_gv_api.gvFreeLayout)
#define gvFreeRenderData (*cgs_gv_api.gvFreeRenderData)
#define gvLayout (*cgs_gv_api.gvLayout)
#define gvRenderData (*cgs_gv_api.gvRenderData)
#endif

#endif
