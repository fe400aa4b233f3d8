/*
 * Compressed TORCH_TRACE logs (lib/readers/unpack.h) and the kind sniffer (lib/readers/sniff.h): any bytes,
 * told apart by sniffing as a reader does, then unpacked in chunks (a growing file) and fed to
 * the run readers. The unpacked bytes must be the same whatever the chunking.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "lib/run/dash.h"
#include "lib/readers/sniff.h"
#include "lib/readers/unpack.h"

struct sink {
    struct cgs_dash *d;
    struct cgs_feed *f;
    uint64_t sum, n;
};

static void to_dash(void *ctx, const char *data, size_t len)
{
    struct sink *s = ctx;
    for (size_t i = 0; i < len; i++)
        s->sum = s->sum * 31 + (unsigned char)data[i];
    s->n += len;
    cgs_feed_data(s->d, s->f, data, len);
}

static uint64_t run(const uint8_t *data, size_t size, enum cgs_input_kind k, size_t chunk,
                    uint64_t *n, int *rc)
{
    struct cgs_dash d;
    struct cgs_feed f;
    struct cgs_unpack u;
    struct cgs_diag e = CGS_DIAG_INIT;
    struct sink s = {&d, &f, 0, 0};
    *rc = 0;
    cgs_dash_init(&d);
    cgs_feed_init(&f, "fuzz.log", CGS_SRC_UNKNOWN);
    if (cgs_unpack_init(&u, k, (uint64_t)4 << 20, (uint64_t)8 << 20, &e)) {
        cgs_feed_release(&f);
        cgs_dash_release(&d);
        *rc = -2;
        return 0;
    }
    for (size_t i = 0; i < size && !*rc; i += chunk)
        *rc = cgs_unpack_feed(&u, data + i, size - i < chunk ? size - i : chunk, to_dash, &s, &e);
    if (!*rc)
        *rc = cgs_unpack_finish(&u, to_dash, &s, &e);
    cgs_unpack_release(&u);
    cgs_feed_flush(&d, &f);
    cgs_feed_release(&f);
    cgs_dash_release(&d);
    *n = s.n;
    return s.sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum cgs_input_kind k = cgs_sniff(data, size < CGS_SNIFF_HEAD ? size : CGS_SNIFF_HEAD, NULL);
    static const enum cgs_input_kind all[] = {CGS_IN_GZIP, CGS_IN_XZ, CGS_IN_ZSTD};
    (void)cgs_input_kind_what(k);
    (void)cgs_input_kind_hint(k);
    if (!cgs_input_kind_compressed(k)) {
        /* not compressed: try each decoder on it anyway (they must refuse, not crash) */
        k = all[size ? data[0] % 3 : 0];
    }
    {
        uint64_t n1, n2;
        int rc1, rc2;
        uint64_t a = run(data, size, k, size ? size : 1, &n1, &rc1);
        uint64_t b = run(data, size, k, size ? (size_t)data[size - 1] % 61 + 1 : 1, &n2, &rc2);
        /* a clean stream unpacks to the same bytes in any chunking */
        if (!rc1 && !rc2 && (a != b || n1 != n2))
            abort();
    }
    return 0;
}
