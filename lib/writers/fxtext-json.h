/*
 * A graph printed by torch.fx (lib/readers/fxtext.h) as graph JSON text: what `graphs --write`
 * writes.
 */
#ifndef CGS_FXTEXT_JSON_H
#define CGS_FXTEXT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"
#include "lib/readers/fxtext.h"

/*
 * Read text[0..len) (file names it in messages, line numbers from first_line) into graph JSON
 * text (as cJSON_Print lays it out, written straight from the reader's model; the text's bytes
 * as they are); NULL with d filled (file:line:col and what was expected). The caller frees it.
 */
char *cgs_fxtext_to_json(const char *text, size_t len, const char *file, uint32_t first_line,
                         const struct cgs_fxtext_opts *o, struct cgs_diag *d);

#endif
