/* Operator declarations (lib/readers/opdecl.h): any text parses or is refused with a place,
 * and a declaration that parses is found again by its own target. */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "lib/readers/opdecl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cgs_opdecls ds = {0};
    struct cgs_diag d = CGS_DIAG_INIT;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0; /* the parser reads a C string (a file's text) */
    if (cgs_opdecls_parse(&ds, text, "fuzz.ops", &d) == 0)
        for (uint32_t i = 0; i < ds.n; i++)
            if (!cgs_opdecls_find(&ds, ds.items[i].target))
                abort(); /* a declaration its own target does not find */
    cgs_opdecls_free(&ds);
    free(text);
    return 0;
}
