/*
 * Benchmark: the piecewise split on the graph files given (make bench passes
 * the generated 100k and 1M-node graphs), splitting at the attention bmm and
 * at the softmax (three pieces per block, symbolic sizes threaded into each),
 * then with the fusion and device policies. Target (issue 4): the magi split
 * of the 100k-node graph in < 50 ms (torch's split_module takes about a
 * second on a Llama-70B graph); exits 1 when the median misses it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/readers/load.h"
#include "lib/passes/split.h"

#define TARGET_MS 50.0
#define TARGET_NODES 200000 /* the target applies to graphs up to this size */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median ms of `rounds` splits of g with one policy; -1 on error. */
static double time_split(struct cgs_graph *g, enum cgs_split_policy policy, int rounds,
                         uint32_t *pieces)
{
    static const char *const ops[] = {"aten.bmm.default", "aten._softmax"};
    struct cgs_split_opts o = {policy, ops, policy == CGS_SPLIT_MAGI ? 2 : 0};
    struct cgs_diag d = CGS_DIAG_INIT;
    double *t = calloc((size_t)rounds, sizeof(*t)), med;

    for (int r = 0; r < rounds; r++) {
        // every split allocates its side tables in g's arena: memory grows, time does not
        struct cgs_split *s = NULL;
        double t0 = now(), t1;
        if (cgs_split_run(g, &o, &s, &d)) {
            fprintf(stderr, "split failed: %s\n", d.msg);
            free(t);
            return -1;
        }
        t1 = now();
        t[r] = (t1 - t0) * 1e3;
        *pieces = s->n_pieces;
    }
    qsort(t, (size_t)rounds, sizeof(*t), cmp_double);
    med = t[rounds / 2];
    free(t);
    return med;
}

int main(int argc, char **argv)
{
    int rc = 0;

    for (int i = 1; i < argc; i++) {
        struct cgs_diag d = CGS_DIAG_INIT;
        struct cgs_graph *g = cgs_graph_load_json(argv[i], &d);
        uint32_t nodes, pieces = 0;
        int rounds;

        if (!g) {
            fprintf(stderr, "%s: %s\n", argv[i], d.msg);
            return 1;
        }
        nodes = g->n_nodes;
        rounds = nodes > TARGET_NODES ? 1 : 9;
        for (int p = 0; p < CGS_SPLIT_POLICY_COUNT; p++) {
            double ms = time_split(g, (enum cgs_split_policy)p, rounds, &pieces);
            bool gated = p == CGS_SPLIT_MAGI && nodes <= TARGET_NODES;
            if (ms < 0) {
                cgs_graph_free(g);
                return 1;
            }
            printf("split %-7s %-28s %8u nodes %7u pieces  %8.2f ms (median of %d)%s\n",
                   cgs_split_policy_names[p], argv[i], nodes, pieces, ms, rounds,
                   gated ? (ms < TARGET_MS ? "  [target < 50 ms: ok]"
                                           : "  [target < 50 ms: MISSED]")
                         : "");
            if (gated && ms >= TARGET_MS)
                rc = 1;
        }
        cgs_graph_free(g);
    }
    return rc;
}
