/* libFuzzer target: the CUPTI trace reader and the attribution (lib/run/prof.c). */
#include "tests/fuzz/fuzz.h"

#include "lib/run/prof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_prof_trace t;
    if (cgs_prof_parse((const char *)data, size, "fuzz.cgstrace", &t, &d) == 0) {
        struct cgs_prof_report r;
        struct cgs_prof_opts by_range = {NULL, CGS_PROF_BY_RANGE, true}; /* with samples */
        if (cgs_prof_report_build(&t, 1, NULL, &r, &d) == 0)
            cgs_prof_report_release(&r);
        if (cgs_prof_report_build(&t, 1, &by_range, &r, &d) == 0)
            cgs_prof_report_release(&r);
    }
    cgs_prof_trace_release(&t);
    return 0;
}
