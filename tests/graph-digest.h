/*
 * A graph as text, everything the loader keeps (for tests and fuzz targets that compare two
 * loads of one file: one thread and several, for instance). Header-only.
 */
#ifndef CGS_TESTS_GRAPH_DIGEST_H
#define CGS_TESTS_GRAPH_DIGEST_H

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>

#include "lib/base/buf.h"
#include "lib/ir/graph.h"
#include "lib/writers/report-json.h"
#include "tests/value-tree.h"

static inline void digest_json(struct cgs_buf *b, cJSON *x)
{
    char *s = x ? cJSON_PrintUnformatted(x) : NULL;
    cgs_buf_addstr(b, s ? s : "-");
    cJSON_free(s);
    cJSON_Delete(x);
}

/* An ARG: its JSON, and which of its lists are Python lists (which the JSON writer leaves out). */
static inline void digest_arg(struct cgs_buf *b, const struct cgs_arg *a)
{
    if (a->kind == CGS_ARG_LIST && a->pylist)
        cgs_buf_addstr(b, "pylist:");
    if (a->kind == CGS_ARG_LIST || a->kind == CGS_ARG_SLICE || a->kind == CGS_ARG_DICT) {
        cgs_buf_addch(b, '[');
        for (uint32_t i = 0; i < a->n; i++) {
            digest_arg(b, &a->u.items[i]);
            cgs_buf_addch(b, ',');
        }
        cgs_buf_addch(b, ']');
    }
    digest_json(b, cgs_json_arg(a));
}

static inline void graph_digest(struct cgs_buf *b, const struct cgs_graph *g)
{
    cgs_buf_addf(b, "graph %s nodes %u symbols %u notes %u subgraphs %u\n",
                 g->name ? g->name : "-", g->n_nodes, g->n_symbols, g->n_notes,
                 g->n_subgraphs);
    for (uint32_t i = 0; i < g->n_symbols; i++) {
        const struct cgs_symbol *s = &g->symbols[i];
        cgs_buf_addf(b, "sym %s %d:%" PRId64 " %d:%" PRId64 " %d:%" PRId64 "\n", s->name,
                     s->has_hint, s->hint, s->has_min, s->min, s->has_max, s->max);
    }
    for (uint32_t i = 0; i < g->n_notes; i++)
        cgs_buf_addf(b, "note %d %d %s %s\n", (int)g->notes[i].level, g->notes[i].code,
                     g->notes[i].node ? g->notes[i].node->name : "-", g->notes[i].msg);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const struct cgs_node *n = g->nodes[i];
        const char *st = cgs_node_stack_trace(g, n);
        cgs_buf_addf(b, "node %u %d %s %s @%" PRIu64 " op %u pt2 %d\n", n->index, (int)n->op,
                     n->name, n->target ? n->target : "-", n->src_offset, n->op_id,
                     n->pt2_kind);
        cgs_buf_addf(b, " module %s %s\n stack %s\n args ", n->module_path ? n->module_path : "-",
                     n->module_type ? n->module_type : "-", st ? st : "-");
        for (uint32_t k = 0; k < n->n_args; k++) {
            digest_arg(b, &n->args[k]);
            cgs_buf_addch(b, ' ');
        }
        cgs_buf_addstr(b, "\n kwargs ");
        for (uint32_t k = 0; k < n->n_kwargs; k++) {
            cgs_buf_addf(b, "%s=", n->kwargs[k].key);
            digest_arg(b, &n->kwargs[k].val);
            cgs_buf_addch(b, ' ');
        }
        cgs_buf_addstr(b, "\n val ");
        digest_json(b, n->val ? cgs_json_val(n->val) : NULL);
        cgs_buf_addstr(b, "\n inputs");
        for (uint32_t k = 0; k < n->n_inputs; k++)
            cgs_buf_addf(b, " %s", n->inputs[k]->name);
        cgs_buf_addstr(b, "\n users");
        for (uint32_t k = 0; k < n->n_users; k++)
            cgs_buf_addf(b, " %s", n->users[k]->name);
        cgs_buf_addch(b, '\n');
    }
    for (uint32_t i = 0; i < g->n_subgraphs; i++) {
        cgs_buf_addf(b, "subgraph %s\n", g->subgraph_names[i]);
        graph_digest(b, g->subgraphs[i]);
    }
}

/* The digest of a load: the graph's, or its error's. The caller frees. */
static inline char *load_digest(const struct cgs_graph *g, const struct cgs_diag *d)
{
    struct cgs_buf b = CGS_BUF_INIT;
    if (g)
        graph_digest(&b, g);
    else
        cgs_buf_addf(&b, "error %d %s:%u:%u %s: %s\n", d->code, d->file ? d->file : "-",
                     d->line, d->col, d->path, d->msg);
    return cgs_buf_detach(&b);
}

#endif
