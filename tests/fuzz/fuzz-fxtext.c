/* Printed graphs (lib/readers/fxtext.h): any text is read into graph JSON or refused with a
 * place and a message; what is read, the graph loader loads from the tree (or refuses with a
 * message) exactly as it loads the tree printed (the same refusal, or the same nodes), and
 * shape inference runs on it. */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/passes/shapes.h"
#include "lib/readers/fxtext.h"
#include "lib/readers/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    cJSON *doc = cgs_fxtext_to_json((const char *)data, size, "fuzz.py", 1, NULL, &d);
    if (!doc) {
        if (!d.code || !d.msg[0])
            abort(); /* refused without saying why */
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
