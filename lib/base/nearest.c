/* "Did you mean" (lib/base/nearest.h). */
#include "lib/base/nearest.h"

#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"

size_t cgs_edit_distance(const char *a, const char *b, size_t cap)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t small[256], *row = small, best = 0, i, j, res;

    if ((la > lb ? la - lb : lb - la) > cap)
        return cap + 1;
    if (lb >= sizeof(small) / sizeof(small[0]))
        row = cgs_xcalloc(lb + 1, sizeof(*row)); // long names: on the heap
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        best = row[0];
        for (j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t v = diag + (a[i - 1] != b[j - 1]);
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            if (up + 1 < v)
                v = up + 1;
            row[j] = v;
            diag = up;
            if (v < best)
                best = v;
        }
        if (best > cap)
            break;
    }
    res = best > cap || row[lb] > cap ? cap + 1 : row[lb];
    if (row != small)
        free(row);
    return res;
}

void cgs_nearest_init(struct cgs_nearest *n, const char *key, size_t max_distance)
{
    n->key = key;
    n->best = NULL;
    n->best_d = max_distance + 1;
    n->max_distance = max_distance;
}

size_t cgs_nearest_offer(struct cgs_nearest *n, const char *candidate)
{
    /* only what would beat the best so far is worth computing exactly */
    size_t cap = n->best_d ? n->best_d - 1 : 0, d;
    if (!n->key || !candidate || n->best_d == 0)
        return n->max_distance + 1;
    d = cgs_edit_distance(n->key, candidate, cap);
    if (d < n->best_d) {
        n->best_d = d;
        n->best = candidate;
    }
    return d;
}
