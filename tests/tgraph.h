/*
 * Building graphs in C for the tests: the one helper (tests that test the JSON reader itself
 * write JSON text). A graph is written node by node in the graph format (docs/graph-json.md)
 * and loaded by the real loader, so a test graph is checked as a user's is.
 *
 *   struct tgraph t;
 *   tg_begin(&t, "dynamo", NULL, "\"s0\": {\"hint\": 4}");
 *   tg_ph(&t, "x", TG_F32("2, 3"));
 *   tg_call(&t, "y", "aten.relu.default", "[{\"node\": \"x\"}]", TG_F32("2, 3"));
 *   struct cgs_graph *g = tg_end(&t, "{\"node\": \"y\"}", NULL);
 *
 * Values, arguments and symbols are JSON text (the format's VAL and ARG syntax); tg_tensor
 * writes a contiguous tensor value from its sizes.
 */
#ifndef CGS_TESTS_TGRAPH_H
#define CGS_TESTS_TGRAPH_H

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/base/buf.h"
#include "lib/readers/load.h"

/* a float32 tensor value on cuda:0 (or the CPU) with the shape given as JSON list items */
#define TG_F32(shape) "{\"dtype\": \"float32\", \"shape\": [" shape "], \"device\": \"cuda:0\"}"
#define TG_F32_CPU(shape) "{\"dtype\": \"float32\", \"shape\": [" shape "], \"device\": \"cpu\"}"
/* a size value: symbol s, hint 4 */
#define TG_SYMINT(s) "{\"symint\": \"" s "\", \"hint\": 4}"

struct tgraph {
    struct cgs_buf b;
    int n;
};

/* Start a graph of the given stage ("dynamo", "post_grad"); producer_extra is more members of
 * "producer" (JSON text, e.g. "\"is_inference\": true") and symbols the members of "symbols";
 * both may be NULL. */
static inline void tg_begin(struct tgraph *t, const char *stage, const char *producer_extra,
                            const char *symbols)
{
    cgs_buf_init(&t->b);
    t->n = 0;
    cgs_buf_addf(&t->b,
                 "{\"format\": \"cgscope.graph\", \"version\": 1, \"name\": \"t\", "
                 "\"producer\": {\"tool\": \"test\", \"version\": \"1\", \"stage\": \"%s\"%s%s}, "
                 "\"symbols\": {%s}, \"nodes\": [",
                 stage, producer_extra ? ", " : "", producer_extra ? producer_extra : "",
                 symbols ? symbols : "");
}

/* One node; args and kwargs are JSON text (NULL: none), val may be NULL. */
static inline void tg_node(struct tgraph *t, const char *name, const char *op, const char *target,
                           const char *args, const char *kwargs, const char *val)
{
    cgs_buf_addf(&t->b,
                 "%s{\"name\": \"%s\", \"op\": \"%s\", \"target\": \"%s\", \"args\": %s, "
                 "\"kwargs\": %s, \"val\": %s}",
                 t->n++ ? ", " : "", name, op, target, args ? args : "[]",
                 kwargs ? kwargs : "{}", val ? val : "null");
}

static inline void tg_ph(struct tgraph *t, const char *name, const char *val)
{
    tg_node(t, name, "placeholder", name, NULL, NULL, val);
}

static inline void tg_call(struct tgraph *t, const char *name, const char *target,
                           const char *args, const char *val)
{
    tg_node(t, name, "call_function", target, args, NULL, val);
}

/* Nodes written as JSON text (one or more, comma-separated; a leading comma is dropped). */
static inline void tg_raw(struct tgraph *t, const char *nodes)
{
    if (*nodes == ',')
        nodes++;
    cgs_buf_addf(&t->b, "%s%s", t->n++ ? ", " : "", nodes);
}

/* A contiguous tensor value (strides from the sizes) into b: dtype, sizes, device (NULL:
 * cuda:0). */
static inline void tg_tensor(struct cgs_buf *b, const char *dtype, const int64_t *dims, int nd,
                             const char *device)
{
    int64_t st[8], s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        st[i] = s;
        s *= dims[i];
    }
    cgs_buf_addf(b, "{\"dtype\": \"%s\", \"shape\": [", dtype);
    for (int i = 0; i < nd; i++)
        cgs_buf_addf(b, "%s%" PRId64, i ? ", " : "", dims[i]);
    cgs_buf_addstr(b, "], \"stride\": [");
    for (int i = 0; i < nd; i++)
        cgs_buf_addf(b, "%s%" PRId64, i ? ", " : "", st[i]);
    cgs_buf_addf(b, "], \"storage_offset\": 0, \"device\": \"%s\", \"requires_grad\": false}",
                 device ? device : "cuda:0");
}

/* End with the output node (outputs: the JSON items of its list; extra: more top-level members,
 * each starting with a comma, or NULL) and load it; a graph that does not load fails the test
 * with the loader's message and the text. The builder is released. */
static inline struct cgs_graph *tg_end(struct tgraph *t, const char *outputs, const char *extra)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_graph *g;
    struct cgs_buf args = CGS_BUF_INIT;

    cgs_buf_addf(&args, "[%s]", outputs ? outputs : "");
    tg_node(t, "output", "output", "output", args.buf, NULL, NULL);
    cgs_buf_release(&args);
    cgs_buf_addf(&t->b, "]%s}", extra ? extra : "");
    g = cgs_graph_load_json_buf(t->b.buf, t->b.len, "test.json", &d);
    if (!g)
        fail_msg("test graph does not load: %s (%s)\n%s", d.msg, d.path, t->b.buf);
    cgs_buf_release(&t->b);
    return g;
}

#endif
