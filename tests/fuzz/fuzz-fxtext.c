/* Printed graphs (lib/readers/fxtext.h): any text is read into graph JSON text or refused with
 * a place and a message; the text read straight into the IR (cgs_graph_load_fxtext) is the
 * graph that JSON loads as (the same digest, or a refusal with the same code); and shape
 * inference runs on it. */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/passes/shapes.h"
#include "lib/readers/fxtext.h"
#include "lib/writers/fxtext-json.h"
#include "lib/readers/load.h"
#include "tests/graph-digest.h"

/* The graph read straight into the IR against the document's: d, t the document's refusal or
 * graph. */
static void same_as_direct(const uint8_t *data, size_t size, const struct cgs_diag *d,
                           const struct cgs_graph *t)
{
    struct cgs_diag gd = CGS_DIAG_INIT;
    struct cgs_graph *g = cgs_graph_load_fxtext((const char *)data, size, "fuzz.py", 1, NULL, &gd);
    char *a = load_digest(g, &gd), *b = load_digest(t, d);
    if (!g && (!gd.code || !gd.msg[0]))
        abort(); /* refused without saying why */
    if (!g != !t || (!g && gd.code != d->code) || (g && strcmp(a, b))) {
        fprintf(stderr, "the direct graph differs from the document's:\n%s\n---\n%s\n", a, b);
        abort();
    }
    free(a);
    free(b);
    cgs_graph_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cgs_diag d = CGS_DIAG_INIT, td = CGS_DIAG_INIT;
    char *doc = cgs_fxtext_to_json((const char *)data, size, "fuzz.py", 1, NULL, &d);
    if (!doc) {
        if (!d.code || !d.msg[0])
            abort(); /* refused without saying why */
        same_as_direct(data, size, &d, NULL);
        return 0;
    }
    /* what cgscope loads (the text straight into the IR) must be what graphs --write writes,
       loaded as graph JSON: both refuse with one code, or both load the same graph (the
       nodes' offsets in the JSON text aside) */
    struct cgs_graph *g = cgs_graph_load_json_buf(doc, strlen(doc), "fuzz.py", &td);
    free(doc);
    if (!g && (!td.code || !td.msg[0]))
        abort(); /* refused without saying why */
    for (uint32_t k = 0; g && k <= g->n_subgraphs; k++) {
        struct cgs_graph *x = k < g->n_subgraphs ? g->subgraphs[k] : g;
        for (uint32_t i = 0; i < x->n_nodes; i++)
            x->nodes[i]->src_offset = 0;
    }
    same_as_direct(data, size, &td, g);
    if (!g)
        return 0;
    struct cgs_shapes *s = NULL;
    struct cgs_shapes_opts o = {.reinfer = true};
    (void)!cgs_shapes_infer(g, &o, &s, &td); /* the graph owns the result */
    cgs_graph_free(g);
    return 0;
}
