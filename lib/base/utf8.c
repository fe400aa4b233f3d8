/* UTF-8: see lib/base/utf8.h. */
#include "lib/base/utf8.h"

#include <stdint.h>

size_t cgs_utf8_len(const unsigned char *b, size_t p, size_t len)
{
    unsigned char c = b[p];
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    uint32_t cp;
    if (!n || c > 0xF4 || (len != (size_t)-1 && p + n > len))
        return 0;
    cp = c & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((b[p + i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b[p + i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}
