/* Graphviz wrappers: the one place that casts const away (see gv.h). */
#include "viz/gv.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/base/strmap.h"

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

/*
 * cgraph's default ID discipline uses the address of a name's interned copy
 * as the object's ID, and keeps subgraphs ordered by ID: the order of the
 * clusters in DOT, and so the layout, would follow malloc. This discipline
 * numbers named objects in the order their names are first seen (even IDs)
 * and anonymous ones (edges) by a per-graph counter (odd IDs), so the same
 * build gives the same graph in any process.
 */
struct ids {
    Agraph_t *g;
    char **names; /* names[k] has ID 2 * (k + 1); cgraph refstrs (agwrite
                     reads their HTML flag), freed with the graph */
    size_t n, alloc;
    struct cgs_strmap *index; /* name -> k + 1 (lib/base/strmap.h; keys are names[k]) */
    IDTYPE anon;
};

static void *ids_open(Agraph_t *g, Agdisc_t *disc)
{
    struct ids *m = cgs_xcalloc(1, sizeof(*m));
    (void)disc;
    m->g = g;
    m->index = cgs_strmap_new();
    m->anon = 1;
    return m;
}

static long ids_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
    struct ids *m = state;
    uintptr_t k;
    (void)objtype;
    if (!str) {
        *id = m->anon;
        m->anon += 2;
        return 1;
    }
    if ((k = (uintptr_t)cgs_strmap_get(m->index, str))) {
        *id = (IDTYPE)k * 2;
        return 1;
    }
    if (!createflag)
        return 0;
    CGS_ALLOC_GROW(m->names, m->n + 1, m->alloc);
    m->names[m->n] = agstrdup(m->g, str);
    cgs_strmap_put(m->index, m->names[m->n], (void *)(uintptr_t)(m->n + 1));
    m->n++;
    *id = (IDTYPE)m->n * 2;
    return 1;
}

static long ids_alloc(void *state, int objtype, IDTYPE request)
{
    (void)state;
    (void)objtype;
    (void)request;
    return 0;
}

static void ids_free(void *state, int objtype, IDTYPE id)
{
    (void)state;
    (void)objtype;
    (void)id;
}

static char *ids_print(void *state, int objtype, IDTYPE id)
{
    struct ids *m = state;
    (void)objtype;
    if (id % 2 || id == 0 || id / 2 > m->n)
        return NULL;
    return m->names[id / 2 - 1];
}

static void ids_close(void *state)
{
    struct ids *m = state;
    free(m->names);
    cgs_strmap_free(m->index);
    free(m);
}

static void ids_register(void *state, int objtype, void *obj)
{
    (void)state;
    (void)objtype;
    (void)obj;
}

static Agiddisc_t ids_disc = {ids_open,  ids_map,   ids_alloc,   ids_free,
                              ids_print, ids_close, ids_register};

Agraph_t *gv_open(const char *name)
{
    /* cgraph's own memory and I/O disciplines are in the library opened at run time, so the
       discipline is filled here, not by a static initializer */
    static Agdisc_t gv_disc;
    gv_disc.mem = &AgMemDisc;
    gv_disc.id = &ids_disc;
    gv_disc.io = &AgIoDisc;
    return agopen(unconst(name), Agdirected, &gv_disc);
}

Agraph_t *gv_subg(Agraph_t *g, const char *name)
{
    return agsubg(g, unconst(name), 1);
}

Agnode_t *gv_node(Agraph_t *g, const char *name)
{
    return agnode(g, unconst(name), 1);
}

Agraph_t *gv_find_subg(Agraph_t *g, const char *name)
{
    return agsubg(g, unconst(name), 0);
}

Agnode_t *gv_find_node(Agraph_t *g, const char *name)
{
    return agnode(g, unconst(name), 0);
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

/*
 * Graphviz 2.42 and the libraries under its renderers (fontconfig, pango,
 * glib, cairo) keep caches and leak blocks that no API frees. LeakSanitizer
 * reads this hook in the binaries that link viz/, so those blocks do not hide
 * our own leaks; a leak whose stack does not pass through them still fails.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

const char *__lsan_default_suppressions(void)
{
    return "leak:libgvc.so\n"
           "leak:libcgraph.so\n"
           "leak:libcdt.so\n"
           "leak:libpathplan.so\n"
           "leak:libgvplugin_\n"
           "leak:libfontconfig.so\n"
           "leak:libpango\n"
           "leak:libglib-2.0.so\n"
           "leak:libgobject-2.0.so\n"
           "leak:libcairo.so\n"
           "leak:libharfbuzz.so\n"
           "leak:libfreetype.so\n"
           "leak:libexpat.so\n";
}
