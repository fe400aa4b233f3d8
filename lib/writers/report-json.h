/*
 * JSON report building blocks shared by the commands: IR values and arguments in the spec's
 * VAL / ARG / DIM syntax, written straight into a writer (lib/writers/jsonw.h) as cJSON_Print
 * (or, compact, cJSON_PrintUnformatted) would write them, with no tree made; and values'
 * short texts.
 */
#ifndef CGS_REPORT_JSON_H
#define CGS_REPORT_JSON_H

#include "lib/ir/graph.h"

struct cgs_buf;
struct jsonw;
/* A DIM: a number when constant, else the expression string; null when unknown. */
void cgs_jsonw_dim(struct jsonw *w, const struct cgs_sym *e);
/* A VAL (null for NULL), at depth (jsonw_value's). */
void cgs_jsonw_val(struct jsonw *w, const struct cgs_val *v, int depth);
/* An ARG, at depth. */
void cgs_jsonw_arg(struct jsonw *w, const struct cgs_arg *a, int depth);
/* Short human text of a value: "float32[s0, 64, 112, 112]", "(f32[2,3], i64[])", "symint s0". */
void cgs_val_describe(const struct cgs_val *v, struct cgs_buf *out);

/*
 * Texts of tensor values written before, kept by what the tensor is (dtype, dimensions,
 * strides, storage offset, device, requires_grad; expressions are interned, so their pointers
 * say which they are): a graph's values repeat (GPT-2-48's 2,763 nodes hold 36 distinct), and
 * one met again gets its text without being written again. Zero-initialised; the values must
 * outlive it.
 */
#define CGS_VAL_TEXTS 256
struct cgs_val_texts {
    struct {
        const struct cgs_val *v;
        char *text;
        size_t len;
    } slot[CGS_VAL_TEXTS];
};
/* Append to b the text fn writes of v (kept, or written and kept when v is a tensor). */
void cgs_val_text(struct cgs_val_texts *m, const struct cgs_val *v,
                  void (*fn)(const struct cgs_val *v, struct cgs_buf *b), struct cgs_buf *b);
void cgs_val_texts_release(struct cgs_val_texts *m);

#endif
