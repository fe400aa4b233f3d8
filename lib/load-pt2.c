/* torch.export .pt2 reader: placeholder until the pt2 issue lands. */
#include "lib/load.h"

struct cgs_graph *cgs_graph_load_pt2(const char *path, const char *model, struct cgs_diag *d)
{
    (void)model;
    cgs_diag_at(d, path, 0, 0);
    cgs_diag_set(d, CGS_E_FORMAT, "reading .pt2 archives is not supported yet");
    return NULL;
}
