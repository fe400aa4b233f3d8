/* Printed graphs (lib/readers/fxtext.h): any text is read into graph JSON or refused with a
 * place and a message; what is read, the graph loader loads from the tree (or refuses with a
 * message) exactly as it loads the tree printed (the same refusal, or the same nodes); the
 * text read straight into the IR (cgs_graph_load_fxtext) is that graph (the same digest, or a
 * refusal with the same code); and shape inference runs on it. */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/passes/shapes.h"
#include "lib/readers/fxtext.h"
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
    struct cgs_diag d = CGS_DIAG_INIT;
    cJSON *doc = cgs_fxtext_to_json((const char *)data, size, "fuzz.py", 1, NULL, &d);
    if (!doc) {
        if (!d.code || !d.msg[0])
            abort(); /* refused without saying why */
        same_as_direct(data, size, &d, NULL);
        return 0;
    }
    /* what cgscope loads (the tree, straight to the IR) must be what the tree printed and
       loaded as graph JSON gives: both refuse, or both load the same nodes */
    char *json = cJSON_PrintUnformatted(doc);
    struct cgs_diag ld = CGS_DIAG_INIT, td = CGS_DIAG_INIT;
    struct cgs_graph *g = cgs_graph_load_json_tree(doc, "fuzz.py", 1, &td);
    cJSON_Delete(doc);
    if (!g && (!td.code || !td.msg[0]))
        abort(); /* refused without saying why */
    same_as_direct(data, size, &td, g);
    if (json) {
        struct cgs_graph *p = cgs_graph_load_json_buf(json, strlen(json), "fuzz.py", &ld);
        free(json);
        if (!p != !g || (!p && ld.code != td.code) ||
            (p && (p->n_nodes != g->n_nodes || p->n_subgraphs != g->n_subgraphs))) {
            fprintf(stderr, "the two roads differ: printed %s (%s), tree %s (%s)\n",
                    p ? "loads" : "refuses", p ? "" : ld.msg, g ? "loads" : "refuses",
                    g ? "" : td.msg);
            abort();
        }
        for (uint32_t i = 0; p && i < p->n_nodes; i++) {
            const struct cgs_node *x = p->nodes[i], *y = g->nodes[i];
            if (strcmp(x->name, y->name) || x->op != y->op || !x->target != !y->target ||
                (x->target && strcmp(x->target, y->target)) || x->n_args != y->n_args)
                abort();
        }
        cgs_graph_free(p);
    }
    if (!g)
        return 0;
    struct cgs_shapes *s = NULL;
    struct cgs_shapes_opts o = {.reinfer = true};
    (void)!cgs_shapes_infer(g, &o, &s, &ld); /* the graph owns the result */
    cgs_graph_free(g);
    return 0;
}
