/*
 * A light JSON scanner for the readers (lib/readers/load-json.c, lib/readers/load-pt2.c).
 * It does not build values -- cJSON parses -- it finds where values start
 * and end in the text, so that a reader can hand cJSON one piece at a time
 * (a node, a record) and still report exact line:col and what was expected.
 *
 * Errors: the functions return 0 or -CGS_E_PARSE / -CGS_E_LIMIT and keep the
 * first error's offset and message in the scanner (err_off, err_msg); the
 * reader turns them into its own diagnostic.
 */
#ifndef CGS_JSON_SCAN_H
#define CGS_JSON_SCAN_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"

struct cgs_jscan {
    const char *buf;
    size_t len;
    const char *end_name; /* "end of file", "end of the record": used in messages */
    /* when record is set, the start of every value scanned, in preorder */
    bool record;
    size_t *offs;
    size_t n_offs, alloc_offs;
    /* when cut_key is set, a string value of that key directly inside the scanned object
     * (a node's "stack_trace"): where it is, [cut_start, cut_end) with its quotes */
    const char *cut_key;
    size_t cut_key_len, cut_start, cut_end;
    bool cut_found;
    /* with cut_defer, the cut string's end is found (its quote, past escaped bytes) and its
     * content left unchecked: whoever reads it checks it (cgs_jscan_string from cut_start) */
    bool cut_defer;
    /* the last error */
    size_t err_off;
    char err_msg[256];
    char what[16];
};

void cgs_jscan_init(struct cgs_jscan *s, const char *buf, size_t len, const char *end_name);
void cgs_jscan_release(struct cgs_jscan *s);

/* The first offset at or after p that is not JSON whitespace. */
size_t cgs_jscan_ws(const struct cgs_jscan *s, size_t p);

/* Scan the string whose quote is at p; *end is just past the closing quote. */
int cgs_jscan_string(struct cgs_jscan *s, size_t p, size_t *end) CGS_WUR;

/* Scan the value starting at p (whitespace allowed); *end is just past it. Iterative. */
int cgs_jscan_value(struct cgs_jscan *s, size_t p, size_t *end) CGS_WUR;

/* What stands at p, for messages: "'{'", "a string", "'h'", "end of file". */
const char *cgs_jscan_what(struct cgs_jscan *s, size_t p);

/* Record an error at off and return -code. */
int cgs_jscan_fail(struct cgs_jscan *s, size_t off, int code, const char *fmt, ...)
    CGS_PRINTF(4, 5);

/* "a string", "an array", ... for messages about a parsed cJSON item; "nothing" for NULL. */
const char *cgs_json_type(const cJSON *x);

/*
 * Numbers as written. cJSON keeps a number as a double, which loses int versus float and every
 * integer past 2^53 (9007199254740993 reads as ...992). The readers give each number item its
 * source text instead: valuestring points into the text (flagged a reference, so cJSON_Delete
 * leaves it; it is not terminated at the number's end: read it with the functions below).
 */
/* Attach the text of every number of root, parsed from exactly text[0, len). */
void cgs_jscan_attach_numbers(cJSON *root, const char *text, size_t len);
/* A number written as an integer ("-?[0-9]+", no fraction or exponent); false for others and
 * for numbers without text. */
bool cgs_json_number_is_int(const cJSON *x);
/* That integer, read exactly from its text; false when x is not one or it passes int64. */
bool cgs_json_number_int(const cJSON *x, int64_t *v);

#endif
