/* UTF-8, as every reader and writer checks it. */
#ifndef CGS_UTF8_H
#define CGS_UTF8_H

#include <stddef.h>

/*
 * The length of the valid UTF-8 sequence at b[p] (a byte >= 0x80), 0 when it is not valid
 * (overlong forms, surrogates and code points past U+10FFFF are not). It reads no byte past the
 * first one that does not continue the sequence, so a NUL-terminated string may pass len
 * SIZE_MAX.
 */
size_t cgs_utf8_len(const unsigned char *b, size_t p, size_t len);

#endif
