/* The Python literal reader (compile-cache indexes). */
#include "tests/fuzz/fuzz.h"

#include "lib/readers/pylit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    cJSON *v = cgs_pylit_parse((const char *)data, size, "fuzz.py", &d);
    cJSON_Delete(v);
    return 0;
}
