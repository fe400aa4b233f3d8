/*
 * JSON written to a sink (a write function: the CLI's is stdout) through one large buffer, in
 * exactly the text cJSON_Print makes (tabs, "key":<tab>value, arrays on one line, cJSON's
 * number formats) or, compact, cJSON_PrintUnformatted's: either of a cJSON tree
 * (jsonw_value, jsonw_compact), or straight from a model with no tree at all (jsonw_open,
 * jsonw_field..., jsonw_close; the commands' documents are written so). Integers are formatted
 * directly (cJSON_Print grows one buffer by doubling and checks every number by reading it back
 * with sscanf: most of the time of a large --json).
 */
#ifndef CGS_JSONW_H
#define CGS_JSONW_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A JSON number for an int64 read from an input: a cJSON number while a double holds it
 * exactly (|v| <= 2^53), else its exact decimal text as a raw item (cJSON would print
 * 9223372036854775807 as 9.2233720368547758e+18). */
cJSON *cgs_json_int(int64_t v);
/* The same, added to object o under key. */
void cgs_json_add_int(cJSON *o, const char *key, int64_t v);

/* Write n bytes; false on failure. */
typedef bool (*cgs_jsonw_sink)(void *ctx, const char *p, size_t n);

struct jsonw {
    cgs_jsonw_sink sink;
    void *ctx;
    char *buf;
    size_t len, cap;
    bool failed; /* the sink failed */
    /* what the writers straight from a model (jsonw_open ... jsonw_tree) write: the compact
     * form (cJSON_PrintUnformatted's) rather than cJSON_Print's; false after jsonw_init */
    bool compact;
    /* when set, each string value (not a key) is written as filter(fctx, s) gives it (the
     * text it returns is copied before the next call) */
    const char *(*filter)(void *fctx, const char *s);
    void *fctx;
    /* strings' bytes past ASCII copied as they are, valid UTF-8 or not (cJSON_Print's way),
     * rather than U+FFFD for each that is not; false after jsonw_init */
    bool raw_bytes;
};

void jsonw_init(struct jsonw *w, cgs_jsonw_sink sink, void *ctx);
/* A sink appending to a struct cgs_buf (ctx): a document written into memory. Never fails. */
bool jsonw_to_buf(void *ctx, const char *p, size_t n);
/* Write item (at nesting depth `depth`, 0 for a document) as cJSON_Print would. */
void jsonw_value(struct jsonw *w, const cJSON *item, int depth);
/* Write n bytes as they are (inline where they fit: a literal's few bytes are a store or two). */
void jsonw_raw_slow(struct jsonw *w, const char *s, size_t n);
static inline void jsonw_raw(struct jsonw *w, const char *s, size_t n)
{
    if (w->len + n <= w->cap) {
        memcpy(w->buf + w->len, s, n);
        w->len += n;
    } else {
        jsonw_raw_slow(w, s, n);
    }
}
/* Write item as cJSON_PrintUnformatted would (bytes that are not UTF-8 as U+FFFD). */
void jsonw_compact(struct jsonw *w, const cJSON *item);
/* A string and an integer as either form writes them (a string's bytes that are not UTF-8 as
 * U+FFFD), for documents written straight from a model rather than from a tree. */
void jsonw_string(struct jsonw *w, const char *s);
void jsonw_int(struct jsonw *w, int64_t v);
/* An object member's head as cJSON_Print writes it at depth: tabs, "key":<tab>. */
void jsonw_key(struct jsonw *w, const char *key, int depth);
/* A number as cJSON_Print writes a cJSON number holding d (an int64 made a double too: what
 * cJSON_CreateNumber((double)v) prints). */
void jsonw_number(struct jsonw *w, double d);

/*
 * An object written straight from a model, as cJSON_Print writes one holding the same members:
 * jsonw_open at the object's depth (that of jsonw_value), then for each member jsonw_field and
 * its value (a nested value at the object's o.depth), then jsonw_close.
 */
struct jsonw_obj {
    int depth; /* its members' */
    bool any;
};
void jsonw_open(struct jsonw *w, struct jsonw_obj *o, int depth);
void jsonw_field(struct jsonw *w, struct jsonw_obj *o, const char *key);
void jsonw_close(struct jsonw *w, struct jsonw_obj *o);
/* Members of the usual kinds: a string (null when v is NULL), a number as cJSON holds one, a
 * boolean, null. */
void jsonw_field_str(struct jsonw *w, struct jsonw_obj *o, const char *key, const char *v);
void jsonw_field_num(struct jsonw *w, struct jsonw_obj *o, const char *key, double v);
void jsonw_field_bool(struct jsonw *w, struct jsonw_obj *o, const char *key, bool v);
void jsonw_field_null(struct jsonw *w, struct jsonw_obj *o, const char *key);
/* An int64 read from an input as cgs_json_int holds it: a number to 2^53, its exact text past. */
void jsonw_field_int(struct jsonw *w, struct jsonw_obj *o, const char *key, int64_t v);
static inline void jsonw_bool(struct jsonw *w, bool v)
{
    jsonw_raw(w, v ? "true" : "false", v ? 4 : 5);
}
/* Between two items of an array: ", " (",": compact). */
static inline void jsonw_sep(struct jsonw *w)
{
    jsonw_raw(w, ", ", w->compact ? 1 : 2);
}
/* A tree at depth in w's form (jsonw_value, or jsonw_compact). */
void jsonw_tree(struct jsonw *w, const cJSON *item, int depth);

/* Flush and release the buffer; false when any write failed. */
bool jsonw_finish(struct jsonw *w);

#endif
