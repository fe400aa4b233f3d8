/*
 * vLLM's and MagiCompiler's compile-cache folders: the split graph each keeps as
 * computation_graph.py, in the folder or up to three levels down (vLLM's
 * <hash>/rank_0_0/backbone/, MagiCompiler's per-model folders), in name order. A row of
 * lib/readers/source.h.
 */
#include <stddef.h>

#include "lib/readers/file.h"
#include "lib/readers/source.h"

#define CACHE_GRAPH "computation_graph.py"
#define CACHE_DEPTH 3

static const char *const names[] = {CACHE_GRAPH};

static int count_one(const char *path, void *ctx)
{
    (void)path, (void)ctx;
    return 1; /* one is enough to tell */
}

static bool sniff(const struct cgs_probe *p)
{
    return p->is_dir && !p->sel && cgs_find_named(p->file, names, 1, CACHE_DEPTH, count_one, NULL) > 0;
}

struct walk {
    cgs_source_graph_fn fn;
    void *ctx;
};

static int each(const char *path, void *ctx)
{
    struct walk *w = ctx;
    struct cgs_source_graph g = {path, "dynamo", NULL, false, -1};
    return w->fn(&g, w->ctx);
}

static int list(const struct cgs_probe *p, cgs_source_graph_fn fn, void *ctx, struct cgs_diag *d)
{
    struct walk w = {fn, ctx};
    int rc = cgs_find_named(p->file, names, 1, CACHE_DEPTH, each, &w);
    (void)d;
    return rc < 0 ? -1 : rc;
}

const struct cgs_source_reader cgs_src_cache_dir = {
    .what = "a vLLM or MagiCompiler cache folder",
    .role = CGS_ROLE_LOG,
    .sniff = sniff,
    .list = list,
};
