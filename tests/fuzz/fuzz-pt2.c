/* The torch.export .pt2 reader on raw bytes (zips and not). */
#include "tests/fuzz/fuzz.h"

#include "lib/readers/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g = cgs_graph_load_pt2_buf(data, size, "fuzz.pt2", NULL, &d);
    cgs_graph_free(g);
    return 0;
}
