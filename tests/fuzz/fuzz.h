/* One fuzz target per file: each defines LLVMFuzzerTestOneInput (libFuzzer's entry point). */
#ifndef CGS_FUZZ_H
#define CGS_FUZZ_H
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#endif
