/*
 * Writing a cJSON document to a sink (a write function: the CLI's is stdout) through one
 * large buffer, in exactly the text
 * cJSON_Print makes (tabs, "key":<tab>value, arrays on one line, cJSON's number formats), but
 * without building the whole text in memory first, and with integers formatted directly
 * (cJSON_Print grows one buffer by doubling and checks every number by reading it back with
 * sscanf: most of the time of a large --json). Items can be written one at a time inside an
 * open array, then freed, so a long list never exists as a tree all at once.
 */
#ifndef CGS_JSONW_H
#define CGS_JSONW_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Write n bytes; false on failure. */
typedef bool (*cgs_jsonw_sink)(void *ctx, const char *p, size_t n);

struct jsonw {
    cgs_jsonw_sink sink;
    void *ctx;
    char *buf;
    size_t len, cap;
    bool failed; /* the sink failed */
};

void jsonw_init(struct jsonw *w, cgs_jsonw_sink sink, void *ctx);
/* Write item (at nesting depth `depth`, 0 for a document) as cJSON_Print would. */
void jsonw_value(struct jsonw *w, const cJSON *item, int depth);
void jsonw_raw(struct jsonw *w, const char *s, size_t n);
/* Flush and release the buffer; false when any write failed. */
bool jsonw_finish(struct jsonw *w);

#endif
