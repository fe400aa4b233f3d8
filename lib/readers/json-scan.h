/*
 * The JSON core every reader uses (graph JSON, .pt2, profile reports, events and TORCH_TRACE
 * records): one walk of the text checks it (exact offsets and what was expected), records where
 * each value starts, and builds the cJSON tree of a piece (a node, a record) in the same walk,
 * with every number's text kept. cJSON holds the tree; its own parser is not used.
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
    /* set by cgs_jscan_string when the string holds an escape (or, lenient, a byte that is
     * not UTF-8): its content is then decoded, not copied */
    bool str_special;
    /* bytes that are not UTF-8 are read as U+FFFD instead of refused (logs, events) */
    bool lenient;
    /* numbers get a copy of their text (freed with the tree), for a text that does not outlive
     * the tree (a line buffer); else valuestring points into the text */
    bool own_numbers;
    /* string values of these keys (NULL-terminated; at any depth) are checked, not decoded:
     * they stand in the tree as "" (fields nobody reads, 13 KB of escaped text each) */
    const char *const *unread_keys;
    /* containers around where the scan starts (the limit on nesting counts them too) */
    int depth_base;
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

/* Scan the number at p (JSON's grammar; a leading zero taken); *end is just past it. */
int cgs_jscan_number(struct cgs_jscan *s, size_t p, size_t *end) CGS_WUR;

/* The content of the string [p, end) (quotes included) that cgs_jscan_string checked, decoded
 * into out and terminated (room: end - p - 1 bytes, three times that when s->lenient and
 * special); special: what that scan left in s->str_special. Returns the decoded length. */
size_t cgs_jscan_decode(const struct cgs_jscan *s, size_t p, size_t end, bool special, char *out);

/* Scan the value starting at p (whitespace allowed); *end is just past it. Iterative. */
int cgs_jscan_value(struct cgs_jscan *s, size_t p, size_t *end) CGS_WUR;

/*
 * Scan the value at p as cgs_jscan_value does (the same errors; offsets recorded when
 * S->record) and build its cJSON tree in the same walk (*out; NULL on error): the one JSON
 * reading core. Strings are decoded as cJSON's parser decodes them; numbers carry their text
 * (below); the string of S->cut_key, when found, stands in the tree as "". Items are made in
 * cJSON's allocator, so cJSON_Delete frees the tree.
 */
int cgs_jscan_tree(struct cgs_jscan *S, size_t p, size_t *end, cJSON **out) CGS_WUR;

/* A whole text as one JSON value (whitespace around it only): the tree, or NULL with the
 * error in *e (may be NULL). Set e->lenient first to read bytes that are not UTF-8 as U+FFFD,
 * e->own_numbers when the text will not outlive the tree (numbers then own their text). */
struct cgs_json_error {
    bool lenient;
    bool own_numbers;
    const char *const *unread_keys; /* as the scanner's */
    int code;      /* CGS_E_PARSE, CGS_E_LIMIT, CGS_E_NOMEM */
    size_t off;    /* where, in bytes from text */
    char msg[256]; /* "malformed JSON: expected ',' or '}', got ']'" */
};
cJSON *cgs_json_parse(const char *text, size_t len, struct cgs_json_error *e);

/* What stands at p, for messages: "'{'", "a string", "'h'", "end of file". */
const char *cgs_jscan_what(struct cgs_jscan *s, size_t p);

/* Record an error at off and return -code. */
int cgs_jscan_fail(struct cgs_jscan *s, size_t off, int code, const char *fmt, ...)
    CGS_PRINTF(4, 5);

/* "a string", "an array", ... for messages about a parsed cJSON item; "nothing" for NULL. */
const char *cgs_json_type(const cJSON *x);

/*
 * Numbers as written. cJSON keeps a number as a double, which loses int versus float and every
 * integer past 2^53 (9007199254740993 reads as ...992). The JSON core gives each number item its
 * source text too: valuestring points into the text (flagged a reference, so cJSON_Delete
 * leaves it; it is not terminated at the number's end: read it with the functions below).
 */
/* The value of the JSON number text t[0..n) as cJSON's parser gives it (correctly rounded, in
 * any locale). */
double cgs_json_number_value(const char *t, size_t n);

/* A number written as an integer ("-?[0-9]+", no fraction or exponent); false for others and
 * for numbers without text. */
bool cgs_json_number_is_int(const cJSON *x);
/* That integer, read exactly from its text; false when x is not one or it passes int64. */
bool cgs_json_number_int(const cJSON *x, int64_t *v);
/* The same of a number's text (read up to its first byte that is no digit). */
bool cgs_json_text_is_int(const char *s);
bool cgs_json_text_int(const char *s, int64_t *v);

#endif
