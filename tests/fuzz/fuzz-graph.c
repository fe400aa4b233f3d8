/* The graph JSON loader (stack traces decoded on demand), then every pass: shapes, split (each
 * policy), layout, DOT building. Inputs whose first byte is 1 modulo 4 are also read by the
 * loader's pipeline (several threads), which must give exactly what one thread gives; every
 * input is read again with each node through its tree (no node straight from its text), which
 * must give exactly the same too. */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/passes/layout.h"
#include "lib/readers/load.h"
#include "lib/passes/shapes.h"
#include "lib/passes/split.h"
#include "tests/graph-digest.h"
#include "viz/dot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    /* the input outlives the graph, as a mapped file does: stack traces are read lazily */
    struct cgs_graph *g = cgs_graph_load_json_lasting((const char *)data, size, "fuzz.json", &d);
    const char *ops[2] = {NULL, "aten.mm"};
    {
        struct cgs_diag d2 = CGS_DIAG_INIT;
        struct cgs_graph *g2;
        char *direct = load_digest(g, &d), *tree;
        cgs_load_set_direct(false);
        g2 = cgs_graph_load_json_lasting((const char *)data, size, "fuzz.json", &d2);
        cgs_load_set_direct(true);
        tree = load_digest(g2, &d2);
        if (strcmp(direct, tree)) {
            fprintf(stderr, "read straight from the text:\n%s\nthrough trees:\n%s\n", direct,
                    tree);
            abort();
        }
        free(direct);
        free(tree);
        cgs_graph_free(g2);
    }
    if (!g)
        return 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        (void)cgs_node_stack_trace(g, g->nodes[i]);
    for (uint32_t i = 0; i < g->n_nodes && !ops[0]; i++)
        if (g->nodes[i]->target && g->nodes[i]->op != CGS_NODE_PLACEHOLDER)
            ops[0] = g->nodes[i]->target;
    {
        struct cgs_shapes_opts so = {.reinfer = true};
        struct cgs_shapes *sh;
        struct cgs_split *s = NULL;
        struct cgs_layout *l = NULL;
        struct cgs_layout_opts lo = CGS_LAYOUT_OPTS_INIT;
        (void)!cgs_shapes_infer(g, &so, &sh, &d);
        for (int p = 0; p < CGS_SPLIT_POLICY_COUNT; p++) {
            struct cgs_split_opts spo = {(enum cgs_split_policy)p, ops, ops[0] ? 2 : 0};
            if (cgs_split_run(g, &spo, &s, &d) < 0)
                s = NULL;
        }
        if (cgs_layout_run(g, &lo, &l, &d) == 0)
            cgs_layout_free(l);
        {
            struct cgs_dot_opts o = {0};
            Agraph_t *dg;
            o.split = s;
            o.view = CGS_DOT_VIEW_FULL;
            if (g->n_nodes < 2000 && (dg = cgs_dot_build(g, &o, NULL, &d)) != NULL)
                agclose(dg);
            if (s) {
                o.view = CGS_DOT_VIEW_PIECES;
                if ((dg = cgs_dot_build(g, &o, NULL, &d)) != NULL)
                    agclose(dg);
            }
        }
    }
    cgs_graph_free(g);
    return 0;
}
