/*
 * Thin wrappers over Graphviz's cgraph and gvc (Debian 12 ships 2.42/2.43,
 * whose agopen/agnode/agsubg/agsafeset take non-const char *). This file is
 * the only place in cgscope that casts const away for Graphviz; everything
 * else passes string literals and arena strings through these.
 *
 * cgraph copies every name and value it is given (agstrdup), so the strings
 * passed here are borrowed only for the call.
 */
#ifndef CGS_VIZ_GV_H
#define CGS_VIZ_GV_H

#include "viz/gv-api.h" /* cgraph and gvc, opened on first use: cgs_gv_load() */

/* A new directed graph (caller closes with agclose). */
Agraph_t *gv_open(const char *name);
/* The subgraph `name` of g, created when absent. */
Agraph_t *gv_subg(Agraph_t *g, const char *name);
/* The node `name` of g, created when absent. */
Agnode_t *gv_node(Agraph_t *g, const char *name);
/* The subgraph or node `name` of g; NULL when absent (never creates). */
Agraph_t *gv_find_subg(Agraph_t *g, const char *name);
Agnode_t *gv_find_node(Agraph_t *g, const char *name);
/* A new edge t -> h in g (anonymous, so parallel edges stay apart). */
Agedge_t *gv_edge(Agraph_t *g, Agnode_t *t, Agnode_t *h);
/* Set attribute `name` of a graph, node or edge (declared with default ""). */
void gv_set(void *obj, const char *name, const char *value);
/* Set an HTML-like label (<...> in DOT): text is the inside, without the brackets. */
void gv_set_html(void *obj, const char *name, const char *text);
/* Declare an attribute default for a kind (AGRAPH, AGNODE, AGEDGE) of g. */
void gv_default(Agraph_t *g, int kind, const char *name, const char *value);
/* A string attribute of an object; NULL when unset. */
const char *gv_get(void *obj, const char *name);

#endif
