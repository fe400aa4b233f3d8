/* Printed graphs (lib/readers/fxtext.h): any text is read into graph JSON or refused with a
 * place and a message; what is read, the graph loader loads (or refuses with a message), and
 * shape inference runs on it. */
#include "tests/fuzz/fuzz.h"

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
    char *json = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!json)
        return 0;
    struct cgs_diag ld = CGS_DIAG_INIT;
    struct cgs_graph *g = cgs_graph_load_json_buf(json, strlen(json), "fuzz.py", &ld);
    free(json);
    if (!g) {
        if (!ld.code || !ld.msg[0])
            abort();
        return 0;
    }
    struct cgs_shapes *s = NULL;
    struct cgs_shapes_opts o = {.reinfer = true};
    (void)!cgs_shapes_infer(g, &o, &s, &ld); /* the graph owns the result */
    cgs_graph_free(g);
    return 0;
}
