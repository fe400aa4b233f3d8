/* Graphviz wrappers: the one place that casts const away (see gv.h). */
#include "viz/gv.h"

#include <string.h>

/* cgraph 2.42 keeps these parameters non-const although it only reads them. */
static char *unconst(const char *s)
{
    union {
        const char *c;
        char *m;
    } u;
    u.c = s;
    return u.m;
}

Agraph_t *gv_open(const char *name)
{
    return agopen(unconst(name), Agdirected, NULL);
}

Agraph_t *gv_subg(Agraph_t *g, const char *name)
{
    return agsubg(g, unconst(name), 1);
}

Agnode_t *gv_node(Agraph_t *g, const char *name)
{
    return agnode(g, unconst(name), 1);
}

Agedge_t *gv_edge(Agraph_t *g, Agnode_t *t, Agnode_t *h)
{
    return agedge(g, t, h, NULL, 1);
}

void gv_set(void *obj, const char *name, const char *value)
{
    agsafeset(obj, unconst(name), unconst(value), unconst(""));
}

void gv_set_html(void *obj, const char *name, const char *text)
{
    Agraph_t *g = agraphof(obj);
    /* an HTML string is a refstr flagged as HTML; agsafeset's agstrdup finds
     * the same refstr, so the flag survives; drop our own reference after */
    char *h = agstrdup_html(g, unconst(text));
    agsafeset(obj, unconst(name), h, unconst(""));
    agstrfree(g, h);
}

void gv_default(Agraph_t *g, int kind, const char *name, const char *value)
{
    agattr(g, kind, unconst(name), unconst(value));
}

const char *gv_get(void *obj, const char *name)
{
    return agget(obj, unconst(name));
}
