/* The cache simulator (lib/run/cachesim.h) on the sample transformer: the input chooses the
 * policy, the runtime shapes and compile sizes, and is the warm start's index text. Every
 * lookup is a hit or a miss, and nothing grows without bound. */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/readers/load.h"
#include "lib/run/cachesim.h"
#include "lib/run/dash.h"

static struct cgs_graph *g;
static struct cgs_split *sp;
static struct cgs_shapes *sh;

static void setup(void)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    const char *ops[] = {"cgs.attention"};
    struct cgs_split_opts so = {CGS_SPLIT_MAGI, ops, 1};
    struct cgs_shapes_opts sho = {.reinfer = true};
    g = cgs_graph_load_json("samples/cgs_transformer_dyn.dynamo.json", &d);
    if (!g || cgs_split_run(g, &so, &sp, &d) < 0 || cgs_shapes_infer(g, &sho, &sh, &d) < 0) {
        fprintf(stderr, "fuzz-cachesim: run from the repository root (%s)\n", d.msg);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t shapes[32], sizes[8];
    size_t n_shapes = 0, n_sizes = 0, p = 0;
    struct cgs_cachesim_opts o = {0};
    struct cgs_cachesim sim = {0};
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_dash index;
    struct cgs_feed f;

    if (!g)
        setup();
    if (size < 3)
        return 0;
    o.policy = data[p++] & 1 ? CGS_CACHESIM_MEGENGINE : CGS_CACHESIM_MAGI;
    n_shapes = data[p++] % 33;
    for (size_t i = 0; i < n_shapes && p < size; i++)
        shapes[i] = data[p++] % 17; /* 0 too: a shape the graph's range refuses */
    n_sizes = p < size ? data[p++] % 9 : 0;
    for (size_t i = 0; i < n_sizes && p < size; i++)
        sizes[i] = data[p++] % 17;
    /* the rest: a compile-cache index, as `cache simulate --index` reads one */
    cgs_dash_init(&index);
    cgs_feed_init(&f, "fuzz.py", CGS_SRC_CACHE_INDEX);
    cgs_feed_data(&index, &f, (const char *)data + p, size - p);
    cgs_feed_flush(&index, &f);
    cgs_feed_release(&f);
    if (!index.bad_lines && o.policy == CGS_CACHESIM_MAGI) {
        o.warm = index.entries;
        o.n_warm = index.n_entries;
    }
    o.shapes = shapes;
    o.n_shapes = n_shapes;
    o.compile_sizes = sizes;
    o.n_compile_sizes = n_sizes;
    if (cgs_cachesim_run(g, sp, sh, &o, &sim, &d) == 0) {
        if (sim.hits + sim.misses != sim.lookups)
            abort(); /* a lookup neither hit nor missed */
        /* bounded: a lookup per piece and shape, and each restart the index records */
        if (sim.n_events > (size_t)(n_shapes + 1) * (sp->n_pieces + 1) * (CGS_DASH_MAX_RESTARTS + 3))
            abort();
    }
    cgs_cachesim_release(&sim);
    cgs_dash_release(&index);
    return 0;
}
