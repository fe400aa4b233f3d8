/* The per-piece profile report reader (dot --profile; lib/run/prof.c). */
#include "tests/fuzz/fuzz.h"

#include "lib/run/prof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_prof_summary *p = NULL;
    if (cgs_prof_summary_parse((const char *)data, size, "fuzz.json", &p, &d) == 0)
        cgs_prof_summary_free(p);
    return 0;
}
