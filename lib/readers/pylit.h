/*
 * A safe reader of Python literals (what ast.literal_eval accepts, minus sets, bytes and
 * complex numbers): None, True, False, ints, floats, '...' and "..." strings with escapes,
 * tuples, lists and dicts. Never evaluates anything. It reads the compile-cache indexes
 * MagiCompiler and vLLM write with pprint (magi_compile_cache.py).
 *
 * The value is built as cJSON: None -> null, tuple and list -> array, dict -> an array of
 * [key, value] arrays (Python keys are often tuples, which JSON objects cannot hold).
 * Integers must fit in 64 bits (cJSON keeps them as doubles: exact up to 2^53).
 */
#ifndef CGS_PYLIT_H
#define CGS_PYLIT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "lib/base/diag.h"

#define CGS_PYLIT_MAX_DEPTH 64

/* Parse buf[0..len) (one literal, surrounding whitespace and # comments allowed); file names
   it in d. Returns the value (cJSON_Delete it) or NULL with d filled (line:col). */
cJSON *cgs_pylit_parse(const char *buf, size_t len, const char *file, struct cgs_diag *d);

/* A dict's [key, value] pairs are arrays of two; these read them. NULL when not a pair. */
const cJSON *cgs_pylit_key(const cJSON *pair);
const cJSON *cgs_pylit_value(const cJSON *pair);
/* The byte offset of a dict pair's key in the text (for messages); 0 when not known. */
size_t cgs_pylit_offset(const cJSON *pair);

#endif
