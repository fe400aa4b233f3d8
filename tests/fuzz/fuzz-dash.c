/* The run readers (events, TORCH_TRACE, cache index), fed in chunks as a growing file is, and
 * the findings made of what they read. */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>

#include "lib/run/dash.h"
#include "lib/run/findings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum cgs_src_kind kinds[] = {CGS_SRC_UNKNOWN, CGS_SRC_EVENTS, CGS_SRC_TRACE,
                                              CGS_SRC_CACHE_INDEX};
    size_t chunk;
    if (!size)
        return 0;
    chunk = (size_t)data[0] % 97 + 1; /* the first byte picks the chunking */
    for (size_t k = 0; k < 4; k++) {
        struct cgs_dash d;
        struct cgs_feed f;
        cgs_dash_init(&d);
        d.keep_lookups = true;
        /* graph records, their symbols and texts too, every other input (their limits) */
        d.keep_graphs = d.keep_texts = (data[0] & 0x80) != 0;
        cgs_feed_init(&f, "fuzz", kinds[k]);
        for (size_t i = 1; i < size; i += chunk) {
            cgs_feed_data(&d, &f, (const char *)data + i, size - i < chunk ? size - i : chunk);
            if (i % 3 == 0)
                cgs_feed_idle(&d, &f);
        }
        cgs_feed_flush(&d, &f);
        {
            const struct cgs_dash_row **rows;
            char cell[512];
            uint32_t n = cgs_dash_view(&d, CGS_DASH_COL_HITS, "0", 1e9, &rows);
            for (uint32_t i = 0; i < n; i++)
                for (int c = 0; c < CGS_DASH_COL_COUNT; c++)
                    cgs_dash_row_cell(&d, rows[i], (enum cgs_dash_col)c, 1e9, cell, sizeof(cell));
            free((void *)rows);
        }
        {
            /* the verdicts over whatever was read (the findings model's every kind of record) */
            struct cgs_findings_input in = {&d, NULL, 0, NULL};
            struct cgs_findings fs;
            struct cgs_compile_counts cc;
            cgs_findings_build(&in, &fs);
            cgs_findings_compile_counts(&d, &cc);
            cgs_findings_release(&fs);
        }
        cgs_feed_release(&f);
        cgs_dash_release(&d);
    }
    return 0;
}
