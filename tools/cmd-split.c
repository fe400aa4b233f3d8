/* cgscope split: MagiCompiler's piecewise split, and why every boundary is there. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/writers/report-json.h"
#include "lib/passes/split.h"
#include "lib/base/nearest.h"
#include "lib/readers/pyframe.h"
#include "lib/run/dash.h"
#include "tools/cmd.h"
#include "tools/session.h"

static int run(int argc, char **argv);

/* the options run() accepts: --help, the man page, completion and "did you mean" list them */

static const struct cli_opt options[] = {
    CLI_OPT_SUGGEST("split-ops", 's', "OP[,OP...]", cli_presets_values,
     "splitting ops in target syntax (repeatable); a packet\n"
     "name (aten.mm) matches all its overloads; one that\n"
     "matches no node is an input error (exit 2)\n" CLI_SPLIT_PRESETS_HELP),
    CLI_OPT("allow-missing-ops", 'A', NULL, "a splitting op may be absent from the graph (a warning)"),
    CLI_OPT_ONE_OF("policy", 'p', "P", cgs_split_policy_names,
     "magi (default), fusion (elementwise regions with equal\n"
     "shape, dtype and device) or device (device transitions)"),
    CLI_OPT("json", 'j', NULL, "write one JSON document to stdout"),
    CLI_OPT("why", 'w', "NODE", "explain the piece NODE landed in and its neighbours"),
    CLI_OPT("max-pieces", 'x', "N", "exit 1 when the graph splits into more than N pieces"),
    CLI_OPT("summary", 'S', NULL,
     "text: one line per piece and the verdicts, without the\n"
     "inputs, outputs, cuts and lint (for CI logs)"),
    CLI_OPT("quiet", 'S', NULL, NULL),
    CLI_OPT("presets", 'P', NULL, "list the splitting-op presets and exit"),
    CLI_OPT("model", 'm', "NAME", "the model to read from a .pt2 archive holding several"),
    CLI_OPT_END,
};

const struct cmd cmd_split = {
    .name = "split",
    .usage = "cgscope split GRAPH --split-ops OP[,OP...] [--allow-missing-ops]\n"
             "                     [--policy magi|fusion|device] [--json | --summary | --quiet]\n"
             "                     [--why NODE] [--max-pieces N] [--model NAME]\n"
             "       cgscope split --presets",
    .summary = "piecewise split as MagiCompiler/vLLM do it, with the reason for every cut",
    .help =
        "Splits the graph the way MagiCompiler's (and vLLM's) backend does before it\n"
        "compiles the pieces: every node whose target is a splitting op gets a piece of\n"
        "its own, everything else stays in order between them, and torch's\n"
        "split_module(keep_original_order=True) decides each piece's inputs (size\n"
        "symbols included) and outputs.\n\n"
        "GRAPH may be a vLLM or MagiCompiler compile-cache folder (or its\n"
        "computation_graph.py): without --split-ops the split is at the ops alone in\n"
        "the pieces the compiler recorded, with a warning where the pieces differ from\n"
        "the record, and the index beside it (vllm_compile_cache.py) is joined to the\n"
        "compiled pieces by graph_index: the runtime shapes each was compiled for.\n\n",
    .more =
        "JSON keys: graph, policy, splitting_ops, pieces [{name, graph_id,\n"
        "is_splitting_graph, nodes [names], n_nodes, inputs, outputs, compile_index,\n"
        "sym_shape_indices, input_vals, output_vals, first_line, last_line, capturable,\n"
        "capturable_reasons, cache_entries}], cache_index, recorded_pieces {match,\n"
        "differences},\n"
        "boundaries [{after, before, node, rule, op, reason, source}], lint [{piece, node,\n"
        "kind, level, reason}], unmatched_ops [{op, suggestions}], counters {graphs_seen,\n"
        "piecewise_graphs, compiled_graphs, capturable_graphs, not_capturable_graphs}, why\n"
        "(with --why). A compiled piece is capturable (a CUDA graph can be captured for it)\n"
        "unless a lint finding of level error says why not; compiled_graphs is\n"
        "MagiCompiler's own counter (it tries to capture every compiled piece).\n\n"
        "examples:\n"
        "  cgscope split samples/cgs_transformer_dyn.json --split-ops cgs.attention\n"
        "  cgscope split samples/cgs_transformer_dyn.json --split-ops cgs.attention --why layer_norm\n"
        "  cgscope split samples/llama_tiny.dynamo.json --split-ops @sdpa --summary\n",
    .run = run,
    .options = options,
};

/* ---- helpers ----------------------------------------------------------------------- */

/* "model.py:12" (": CODE" with_code) from the last frame of a stack trace, into b; false when
   none. */
static bool source_line(const struct cgs_graph *g, const struct cgs_node *n, struct cgs_buf *b,
                        bool with_code)
{
    struct cgs_pyframe f;
    if (!n || !cgs_pyframe_last(cgs_node_stack_trace(g, n), NULL, &f))
        return false;
    cgs_pyframe_format(&f, with_code, b);
    return true;
}

static const char *piece_kind(const struct cgs_split *s, const struct cgs_split_piece *p)
{
    if (s->policy == CGS_SPLIT_FUSION)
        return p->is_splitting_graph ? "other" : "fused";
    return p->is_splitting_graph ? "splitting" : "compiled";
}

/* "yes", "no" or "eager" (a splitting piece); "-" for policies that capture nothing. */
static const char *verdict(const struct cgs_split *s, const struct cgs_split_piece *p)
{
    if (s->policy != CGS_SPLIT_MAGI)
        return "-";
    if (p->is_splitting_graph)
        return "eager";
    return p->capturable ? "yes" : "no";
}

/*
 * The source lines a piece's nodes come from, in file order: "models.py:582 .. 604" for
 * the file of its first node with a source, and "(+ other files)" when others appear.
 */
static void source_range(const struct cgs_split *s, const struct cgs_split_piece *p,
                         struct cgs_buf *out)
{
    struct cgs_buf b = CGS_BUF_INIT;
    char *file = NULL;
    long lo = 0, hi = 0;
    bool others = false;

    for (uint32_t k = 0; k < p->n_nodes; k++) {
        const char *colon;
        long line;
        cgs_buf_reset(&b);
        if (!source_line(s->g, p->nodes[k], &b, false) || !(colon = strrchr(b.buf, ':')))
            continue;
        line = strtol(colon + 1, NULL, 10);
        if (!file) {
            file = cgs_xmalloc((size_t)(colon - b.buf) + 1);
            memcpy(file, b.buf, (size_t)(colon - b.buf));
            file[colon - b.buf] = '\0';
            lo = hi = line;
        } else if (strlen(file) == (size_t)(colon - b.buf) &&
                   !strncmp(file, b.buf, (size_t)(colon - b.buf))) {
            lo = line < lo ? line : lo;
            hi = line > hi ? line : hi;
        } else {
            others = true;
        }
    }
    if (file) {
        cgs_buf_addf(out, "%s:%ld", file, lo);
        if (hi != lo)
            cgs_buf_addf(out, "..%ld", hi);
        if (others)
            cgs_buf_addf(out, " (+ other files)");
    }
    free(file);
    cgs_buf_release(&b);
}

static void describe_node_val(const struct cgs_node *n, struct cgs_buf *b)
{
    cgs_buf_addf(b, "%s ", n->name);
    cgs_val_describe(n->val, b);
}

/* ---- JSON ----------------------------------------------------------------------------- */

static void vals_write(struct jsonw *w, struct cgs_node *const *nodes, uint32_t n, int depth)
{
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            jsonw_sep(w);
        cgs_jsonw_val(w, nodes[i]->val, depth + 1); /* an array is a level too */
    }
    jsonw_raw(w, "]", 1);
}

/* key: the source line of n (file:line), or null. */
static void source_field(struct jsonw *w, struct jsonw_obj *o, const struct cgs_split *s,
                         const char *key, const struct cgs_node *n)
{
    struct cgs_buf b = CGS_BUF_INIT;
    jsonw_field_str(w, o, key, source_line(s->g, n, &b, false) ? b.buf : NULL);
    cgs_buf_release(&b);
}

/*
 * The compile-cache index beside a cache folder's split graph (vllm_compile_cache.py or
 * magi_compile_cache.py in the folder of its computation_graph.py), read into *idx. Its
 * entries are keyed (runtime_shape, graph_index, backend), where graph_index is a compiled
 * piece's position among the compiled pieces (vLLM's compile_submod_names.index, our
 * compile_index). Returns the index's path, or NULL when there is none (or it does not read).
 */
static const char *index_beside(const struct cgs_graph *g, struct cgs_dash *idx, char *path,
                                size_t n)
{
    const char *slash = g->file ? strrchr(g->file, '/') : NULL;
    bool recorded = false;

    for (uint32_t i = 0; i < g->n_nodes && !recorded; i++)
        recorded = g->nodes[i]->piece != NULL;
    if (!recorded)
        return NULL;
    for (size_t k = 0; k < 2; k++) {
        struct cgs_diag d = CGS_DIAG_INIT;
        int dir_len = slash ? (int)(slash - g->file) : 1;
        if ((size_t)snprintf(path, n, "%.*s/%s", dir_len, slash ? g->file : ".",
                              cgs_cache_index_names[k]) >= n ||
            access(path, R_OK))
            continue;
        cgs_dash_init(idx);
        if (cgs_dash_read_file(idx, path, CGS_SRC_CACHE_INDEX, &d) == 0 && !idx->bad_lines)
            return path;
        cli_warn("%s: the compile-cache index does not read (%s): pieces shown without it",
                 path, d.msg[0] ? d.msg : idx->first_bad);
        cgs_dash_release(idx);
    }
    return NULL;
}

/* The index entries of piece p (none for splitting pieces), in index order. */
static uint32_t piece_entries(const struct cgs_dash *idx, const struct cgs_split_piece *p,
                              const struct cgs_dash_entry **out, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t i = 0; idx && p->compile_index >= 0 && i < idx->n_entries; i++)
        if (idx->entries[i].graph_index == p->compile_index && n < max)
            out[n++] = &idx->entries[i];
    return n;
}

static const struct cgs_dash *split_index; /* the index beside the graph, or NULL */

/* What split's document is written from: the split, each piece's blocking findings in finding
 * order from an index built once (a scan of every finding for every piece was quadratic on
 * graphs of many pieces), and what the command adds. */
struct split_out {
    const struct cgs_split *s;
    uint32_t *first, *blocking; /* piece i's blocking findings: blocking[first[i] .. first[i+1]) */
    bool brief;                 /* the page's: no nodes, input_vals, output_vals */
    const struct cgs_node *why; /* --why NODE, or NULL */
    bool command;               /* split --json's: cache_index and recorded_pieces too */
    int depth;                  /* the document's (0: a document of its own) */
    const char *index_path;
    uint32_t recorded_diff;
};

static void split_out_init(struct split_out *so, const struct cgs_split *s)
{
    memset(so, 0, sizeof(*so));
    so->s = s;
    so->first = cgs_xcalloc((size_t)s->n_pieces + 2, sizeof(*so->first));
    so->blocking = cgs_xcalloc((size_t)s->n_findings + 1, sizeof(*so->blocking));
    /* a counting sort of the blocking findings by piece */
    for (uint32_t k = 0; k < s->n_findings; k++)
        if (s->findings[k].level == CGS_NOTE_ERROR)
            so->first[s->findings[k].piece + 2]++;
    for (uint32_t i = 2; i <= s->n_pieces + 1; i++)
        so->first[i] += so->first[i - 1];
    for (uint32_t k = 0; k < s->n_findings; k++)
        if (s->findings[k].level == CGS_NOTE_ERROR)
            so->blocking[so->first[s->findings[k].piece + 1]++] = k;
}

static void split_out_release(struct split_out *so)
{
    free(so->first);
    free(so->blocking);
}

static void piece_write(struct jsonw *w, const struct split_out *so, uint32_t i, int depth)
{
    const struct cgs_split *s = so->s;
    const struct cgs_split_piece *p = &s->pieces[i];
    struct jsonw_obj o;

    jsonw_open(w, &o, depth);
    cli_piece_fields(w, &o, s, i, !so->brief);
    jsonw_field(w, &o, "sym_shape_indices");
    jsonw_raw(w, "[", 1);
    for (uint32_t k = 0; k < p->n_sym_shape_indices; k++) {
        if (k)
            jsonw_sep(w);
        jsonw_number(w, p->sym_shape_indices[k]);
    }
    jsonw_raw(w, "]", 1);
    if (!so->brief) {
        jsonw_field(w, &o, "input_vals");
        vals_write(w, p->inputs, p->n_inputs, o.depth);
        jsonw_field(w, &o, "output_vals");
        vals_write(w, p->outputs, p->n_outputs, o.depth);
    }
    if (split_index) {
        const struct cgs_dash_entry *e[256];
        uint32_t ne = piece_entries(split_index, p, e, 256);
        jsonw_field(w, &o, "cache_entries");
        jsonw_raw(w, "[", 1);
        for (uint32_t k = 0; k < ne; k++) {
            if (k)
                jsonw_sep(w);
            cli_cache_entry_write(w, e[k], o.depth + 1); /* the cache command's entry */
        }
        jsonw_raw(w, "]", 1);
    }
    source_field(w, &o, s, "first_line", p->n_nodes ? p->nodes[0] : NULL);
    source_field(w, &o, s, "last_line", p->n_nodes ? p->nodes[p->n_nodes - 1] : NULL);
    if (s->policy == CGS_SPLIT_MAGI) {
        bool first = true;
        jsonw_field_bool(w, &o, "capturable", p->capturable);
        jsonw_field(w, &o, "capturable_reasons");
        jsonw_raw(w, "[", 1);
        if (p->is_splitting_graph) {
            jsonw_string(w, "splitting piece: runs eagerly, never captured");
            first = false;
        }
        for (uint32_t k = so->first[i]; k < so->first[i + 1]; k++, first = false) {
            if (!first)
                jsonw_sep(w);
            jsonw_string(w, s->findings[so->blocking[k]].reason);
        }
        jsonw_raw(w, "]", 1);
    }
    jsonw_close(w, &o);
}

static void why_write(struct jsonw *w, const struct cgs_split *s, const struct cgs_node *n,
                      int depth);

/* split's "boundaries" and "lint" arrays, members of doc (their items at d). */
static void boundaries_write(struct jsonw *w, struct jsonw_obj *doc, const struct cgs_split *s,
                             int d)
{
    struct jsonw_obj o;
    jsonw_field(w, doc, "boundaries");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < s->n_boundaries; i++) {
        const struct cgs_split_boundary *b = &s->boundaries[i];
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, d);
        jsonw_field_str(w, &o, "after", s->pieces[b->piece - 1].name);
        jsonw_field_str(w, &o, "before", s->pieces[b->piece].name);
        jsonw_field_str(w, &o, "node", b->node ? b->node->name : NULL);
        jsonw_field_str(w, &o, "rule", cgs_split_rule_names[b->rule]);
        jsonw_field_str(w, &o, "op", b->op);
        jsonw_field_str(w, &o, "reason", b->reason ? b->reason : "");
        source_field(w, &o, s, "source", b->node);
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, doc, "lint");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < s->n_findings; i++) {
        const struct cgs_split_finding *f = &s->findings[i];
        static const char *const levels[] = {"info", "warning", "error"};
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &o, d);
        jsonw_field_str(w, &o, "piece", s->pieces[f->piece].name);
        jsonw_field_str(w, &o, "node", f->node ? f->node->name : "");
        jsonw_field_str(w, &o, "kind", cgs_lint_kind_names[f->kind]);
        jsonw_field_str(w, &o, "level", levels[f->level]);
        jsonw_field_str(w, &o, "reason", f->reason);
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
}

/* split --json's document (and the page's split, brief), written straight from the split. */
static void split_write(struct jsonw *w, void *ctx)
{
    const struct split_out *so = ctx;
    const struct cgs_split *s = so->s;
    const struct cgs_graph *g = s->g;
    struct jsonw_obj doc, o, c;
    int d;

    cli_doc_open(w, &doc, so->depth, "split");
    jsonw_field_str(w, &doc, "graph", g->file ? g->file : "");
    jsonw_field_str(w, &doc, "name", g->name ? g->name : "");
    jsonw_field_str(w, &doc, "policy", cgs_split_policy_names[s->policy]);
    jsonw_field(w, &doc, "splitting_ops");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < s->n_ops; i++) {
        if (i)
            jsonw_sep(w);
        jsonw_string(w, s->ops[i].op);
    }
    jsonw_raw(w, "]", 1);
    d = doc.depth + 1; /* an item of one of the document's arrays */
    jsonw_field(w, &doc, "pieces");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < s->n_pieces; i++) {
        if (i)
            jsonw_sep(w);
        piece_write(w, so, i, d);
    }
    jsonw_raw(w, "]", 1);
    boundaries_write(w, &doc, s, d);
    jsonw_field(w, &doc, "unmatched_ops");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0, k = 0; i < s->n_ops; i++) {
        if (s->ops[i].n_matched)
            continue;
        if (k++)
            jsonw_sep(w);
        jsonw_open(w, &o, d);
        jsonw_field_str(w, &o, "op", s->ops[i].op);
        jsonw_field(w, &o, "suggestions");
        jsonw_raw(w, "[", 1);
        for (uint32_t j = 0; j < s->ops[i].n_suggestions; j++) {
            if (j)
                jsonw_sep(w);
            jsonw_string(w, s->ops[i].suggestions[j]);
        }
        jsonw_raw(w, "]", 1);
        jsonw_close(w, &o);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &doc, "counters");
    jsonw_open(w, &c, doc.depth);
    jsonw_field_num(w, &c, "graphs_seen", s->counters.graphs_seen);
    jsonw_field_num(w, &c, "piecewise_graphs", s->counters.piecewise_graphs);
    jsonw_field_num(w, &c, "compiled_graphs", s->counters.compiled_graphs);
    jsonw_field_num(w, &c, "capturable_graphs", s->counters.capturable_graphs);
    jsonw_field_num(w, &c, "not_capturable_graphs",
                    s->counters.compiled_graphs - s->counters.capturable_graphs);
    jsonw_close(w, &c);
    if (so->why) {
        jsonw_field(w, &doc, "why");
        why_write(w, s, so->why, doc.depth);
    }
    if (so->command) {
        jsonw_field_str(w, &doc, "cache_index", so->index_path);
        for (uint32_t i = 0; i < g->n_nodes; i++)
            if (g->nodes[i]->piece) {
                jsonw_field(w, &doc, "recorded_pieces");
                jsonw_open(w, &c, doc.depth);
                jsonw_field_bool(w, &c, "match", so->recorded_diff == 0);
                jsonw_field_num(w, &c, "differences", so->recorded_diff);
                jsonw_close(w, &c);
                break;
            }
    }
    jsonw_close(w, &doc);
}

/* ---- --why ------------------------------------------------------------------------------ */

static const struct cgs_split_boundary *boundary_before(const struct cgs_split *s, uint32_t piece)
{
    for (uint32_t i = 0; i < s->n_boundaries; i++)
        if (s->boundaries[i].piece == piece)
            return &s->boundaries[i];
    return NULL;
}

/* Pieces that take n as a parameter, as text "submod_1, submod_3" into b. */
static uint32_t consumers(const struct cgs_split *s, const struct cgs_node *n, struct cgs_buf *b)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < s->n_pieces; i++)
        for (uint32_t k = 0; k < s->pieces[i].n_inputs; k++)
            if (s->pieces[i].inputs[k] == n) {
                cgs_buf_addf(b, "%s%s", count++ ? ", " : "", s->pieces[i].name);
                break;
            }
    return count;
}

static void why_text(const struct cgs_split *s, const struct cgs_node *n, struct cgs_buf *b)
{
    const struct cgs_split_piece *p = cgs_split_piece_of(s, n);
    struct cgs_buf c = CGS_BUF_INIT;
    uint32_t pi, pos = 0;

    if (!p) {
        uint32_t k = consumers(s, n, &c);
        cgs_buf_addf(b, "'%s' is %s: it is in no piece", n->name,
                     n->op == CGS_NODE_PLACEHOLDER ? "a graph input (placeholder)"
                     : n->op == CGS_NODE_GET_ATTR  ? "an attribute (get_attr)"
                                                   : "the graph's output");
        if (k)
            cgs_buf_addf(b, "; passed as a parameter to %s\n", c.buf);
        else
            cgs_buf_addstr(b, "; no piece takes it as a parameter\n");
        cgs_buf_release(&c);
        return;
    }
    pi = (uint32_t)(p - s->pieces);
    for (uint32_t k = 0; k < p->n_nodes; k++)
        if (p->nodes[k] == n)
            pos = k;
    cgs_buf_addf(b, "'%s' (%s) is in %s (%s piece, node %u of %u)\n", n->name,
                 n->target ? n->target : "?", p->name, piece_kind(s, p), pos + 1, p->n_nodes);
    if (s->split_op_of[n->index])
        cgs_buf_addf(b, "  it matches splitting op '%s', so it runs alone in a splitting piece\n",
                     s->split_op_of[n->index]);
    {
        const struct cgs_split_boundary *bb = boundary_before(s, pi);
        if (bb)
            cgs_buf_addf(b, "  cut before %s (from %s): %s\n", p->name, s->pieces[pi - 1].name,
                         bb->reason);
        else
            cgs_buf_addf(b, "  %s is the first piece\n", p->name);
        bb = boundary_before(s, pi + 1);
        if (bb)
            cgs_buf_addf(b, "  cut after %s (to %s): %s\n", p->name, s->pieces[pi + 1].name,
                         bb->reason);
        else
            cgs_buf_addf(b, "  %s is the last piece\n", p->name);
    }
    for (uint32_t k = 0; k < p->n_outputs; k++)
        if (p->outputs[k] == n) {
            uint32_t m = consumers(s, n, &c);
            cgs_buf_addf(b, "  its value leaves %s (output %u)%s%s\n", p->name, k,
                         m ? " for " : " as a graph output", m ? c.buf : "");
        }
    cgs_buf_release(&c);
}

static void why_write(struct jsonw *w, const struct cgs_split *s, const struct cgs_node *n,
                      int depth)
{
    const struct cgs_split_piece *p = cgs_split_piece_of(s, n);
    struct cgs_buf b = CGS_BUF_INIT;
    struct jsonw_obj o;

    jsonw_open(w, &o, depth);
    jsonw_field_str(w, &o, "node", n->name);
    jsonw_field_str(w, &o, "piece", p ? p->name : NULL);
    if (s->split_op_of[n->index])
        jsonw_field_str(w, &o, "split_op", s->split_op_of[n->index]);
    why_text(s, n, &b);
    jsonw_field_str(w, &o, "text", b.buf);
    cgs_buf_release(&b);
    jsonw_close(w, &o);
}

void cli_split_write_brief(struct jsonw *w, const struct cgs_split *s, int depth)
{
    struct split_out so;
    split_out_init(&so, s);
    so.brief = true;
    so.depth = depth;
    split_write(w, &so);
    split_out_release(&so);
}

/* ---- text ------------------------------------------------------------------------------- */

static void print_list(const char *label, struct cgs_node *const *nodes, uint32_t n)
{
    struct cgs_buf b = CGS_BUF_INIT;
    size_t col;

    cgs_buf_addf(&b, "      %s", label);
    col = b.len;
    for (uint32_t i = 0; i < n; i++) {
        struct cgs_buf one = CGS_BUF_INIT;
        describe_node_val(nodes[i], &one);
        if (i && col + one.len + 2 > 100) {
            cgs_buf_addstr(&b, ",\n           ");
            col = 11;
        } else if (i) {
            cgs_buf_addstr(&b, ", ");
            col += 2;
        }
        cgs_buf_addstr(&b, one.buf);
        col += one.len;
        cgs_buf_release(&one);
    }
    if (!n)
        cgs_buf_addstr(&b, "-");
    puts(b.buf);
    cgs_buf_release(&b);
}

static void split_text(const struct cgs_graph *g, const struct cgs_split *s, bool summary,
                       const struct cli_list *ops)
{
    static const char *const levels[] = {"info", "warning", "error"};
    int name_w = 10;

    printf("%s: %u node%s, policy %s", g->name ? g->name : g->file, g->n_nodes,
           PLURAL(g->n_nodes), cgs_split_policy_names[s->policy]);
    if (s->n_ops) {
        // a preset's ops that match nothing are left out (it names them all in --presets)
        uint32_t shown = 0, hidden = 0;
        printf(", splitting ops ");
        for (uint32_t i = 0; i < s->n_ops; i++) {
            if (!s->ops[i].n_matched && ops->preset && i < ops->n && ops->preset[i]) {
                hidden++;
                continue;
            }
            printf("%s%s", shown++ ? "," : "", s->ops[i].op);
        }
        if (hidden)
            printf(" (and %u op%s of the preset absent from the graph)", hidden, PLURAL(hidden));
    }
    {
        uint32_t compiled = 0;
        for (uint32_t i = 0; i < s->n_pieces; i++)
            compiled += !s->pieces[i].is_splitting_graph;
        printf("\n%u piece%s (%u compiled, %u %s)\n\n", s->n_pieces, PLURAL(s->n_pieces),
               compiled, s->n_pieces - compiled,
               s->policy == CGS_SPLIT_FUSION ? "other" : "splitting");
    }
    for (uint32_t i = 0; i < s->n_pieces; i++)
        if ((int)strlen(s->pieces[i].name) > name_w)
            name_w = (int)strlen(s->pieces[i].name);
    printf("  %-4s %-*s %-9s %6s  %-9s %s\n", "id", name_w, "piece", "kind", "nodes",
           "cudagraph", "source");
    for (uint32_t i = 0; i < s->n_pieces; i++) {
        const struct cgs_split_piece *p = &s->pieces[i];
        struct cgs_buf a = CGS_BUF_INIT;
        const struct cgs_split_boundary *bb = boundary_before(s, i);

        if (bb && !summary) {
            struct cgs_buf src = CGS_BUF_INIT;
            printf("  ---- cut (%s): %s\n", cgs_split_rule_names[bb->rule], bb->reason);
            if (source_line(s->g, bb->node, &src, true))
                printf("       at %s\n", src.buf);
            cgs_buf_release(&src);
        }
        source_range(s, p, &a);
        printf("  %-4lld %-*s %-9s %6u  %s%-9s%s %s\n", (long long)p->graph_id, name_w, p->name,
               piece_kind(s, p), p->n_nodes,
               cli_paint(1, !strcmp(verdict(s, p), "yes")  ? "ok"
                            : !strcmp(verdict(s, p), "no") ? "bad"
                                                           : "dim"),
               verdict(s, p), CLI_RESET(1), a.len ? a.buf : "-");
        cgs_buf_release(&a);
        if (summary)
            continue;
        print_list("in:  ", p->inputs, p->n_inputs);
        print_list("out: ", p->outputs, p->n_outputs);
        if (p->n_sym_shape_indices) {
            printf("      sym_shape_indices:");
            for (uint32_t k = 0; k < p->n_sym_shape_indices; k++)
                printf(" %u", p->sym_shape_indices[k]);
            putchar('\n');
        }
        if (split_index && p->compile_index >= 0) {
            const struct cgs_dash_entry *e[256];
            uint32_t ne = piece_entries(split_index, p, e, 256);
            printf("      cache:");
            for (uint32_t k = 0; k < ne; k++) {
                if (e[k]->dynamic)
                    printf("%s dynamic", k ? "," : "");
                else
                    printf("%s %lld", k ? "," : "", (long long)e[k]->runtime_shape);
                printf(" (%s)", e[k]->backend);
            }
            printf(ne ? "\n" : " no entry for graph_index %d\n", p->compile_index);
        }
    }
    if (s->n_findings && !summary) {
        printf("\ncudagraph lint:\n");
        for (uint32_t i = 0; i < s->n_findings; i++) {
            const struct cgs_split_finding *f = &s->findings[i];
            printf("  %s: %s [%s] %s\n", s->pieces[f->piece].name, levels[f->level],
                   cgs_lint_kind_names[f->kind], f->reason);
        }
    }
    if (s->policy == CGS_SPLIT_MAGI) {
        uint32_t compiled = s->counters.compiled_graphs, ok = s->counters.capturable_graphs;
        if (compiled && ok == compiled)
            printf("\n%sCUDA graphs: every compiled piece is capturable (%u of %u)%s\n",
                   cli_paint(1, "ok"), ok, compiled, CLI_RESET(1));
        else if (compiled) {
            uint32_t shown = 0;
            printf("\nCUDA graphs: %u of %u compiled piece%s capturable; not capturable:", ok,
                   compiled, PLURAL(compiled));
            for (uint32_t i = 0; i < s->n_pieces; i++) {
                const struct cgs_split_piece *p = &s->pieces[i];
                if (p->is_splitting_graph || p->capturable)
                    continue;
                if (shown++ == 8) {
                    printf(" ... (%u more)", compiled - ok - 8);
                    break;
                }
                printf("%s %s (%u reason%s)", shown > 1 ? "," : "", p->name,
                       p->n_capture_blockers, PLURAL(p->n_capture_blockers));
            }
            printf("%s\n", summary ? "" : "; the errors of the lint above are why");
        }
    }
    printf("\ncounters: graphs_seen %u, piecewise_graphs %u, compiled_graphs %u, "
           "capturable_graphs %u\n",
           s->counters.graphs_seen, s->counters.piecewise_graphs, s->counters.compiled_graphs,
           s->counters.capturable_graphs);
}

/* ---- main ------------------------------------------------------------------------------ */

/* The node --why names, or NULL (said, with the nearest name). */
static const struct cgs_node *why_node_of(const struct cgs_graph *g, const char *why,
                                          const char *path)
{
    const struct cgs_node *n = cgs_graph_find(g, why);
    struct cgs_nearest nr;
    if (n)
        return n;
    cgs_nearest_init(&nr, why, strlen(why) / 3 + 1);
    for (uint32_t i = 0; i < g->n_nodes; i++)
        cgs_nearest_offer(&nr, g->nodes[i]->name);
    if (nr.best)
        cli_file_error(path, "no node named '%s'; did you mean '%s'?", why, nr.best);
    else
        cli_file_error(path, "no node named '%s'", why);
    return NULL;
}

/* The split as JSON, with the cache index beside the graph and the recorded pieces. */
static void print_split_json(const struct cgs_split *s, const struct cgs_node *why_node,
                             const char *index_path, uint32_t recorded_diff)
{
    struct split_out so;
    split_out_init(&so, s);
    so.why = why_node;
    so.command = true;
    so.index_path = index_path;
    so.recorded_diff = recorded_diff;
    cli_print_written(split_write, &so);
    split_out_release(&so);
}

struct split_args {
    const char *why;
    bool json, have_max, summary, presets_only;
    unsigned long max_pieces;
};

static int parse_args(int argc, char **argv, struct cli_session *ss, struct split_args *a)
{
    int c;
    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_split, argc, argv)) != -1) {
        switch (c) {
        case 's':
            if (cli_split_ops_add(&ss->ops, optarg))
                return CGS_EXIT_BAD_INPUT;
            break;
        case 'S': a->summary = true; break;
        case 'P': a->presets_only = true; return 0;
        case 'A': ss->allow_missing_ops = true; break;
        case 'p': /* cli_getopt checked the name */
            ss->policy = (enum cgs_split_policy)cgs_split_policy_from_name(optarg);
            break;
        case 'j': a->json = true; break;
        case 'w': a->why = optarg; break;
        case 'x':
            if (!cli_parse_uint(optarg, &a->max_pieces))
                return cli_usage_error(&cmd_split, "--max-pieces wants a number, got '%s'",
                                       optarg);
            a->have_max = true;
            break;
        case 'm': ss->model = optarg; break;
        default: return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_split, optind == argc ? "missing GRAPH" : "expected one GRAPH");
    ss->path = argv[optind];
    return 0;
}

static int run(int argc, char **argv)
{
    struct cli_session ss;
    struct split_args a = {0};
    struct cgs_dash idx;
    char ipath[4096];
    const char *index_path = NULL;
    uint32_t recorded_diff = 0;
    const struct cgs_node *why_node = NULL;
    struct cgs_graph *g;
    struct cgs_split *s;
    int rc;

    cli_session_init(&ss, NULL);
    if ((rc = parse_args(argc, argv, &ss, &a)) || a.presets_only) {
        if (a.presets_only)
            cli_print_presets(stdout);
        goto out;
    }
    ss.recorded_ops = ss.policy == CGS_SPLIT_MAGI;
    if (!(g = cli_session_graph(&ss)) || (a.why && !(why_node = why_node_of(g, a.why, ss.path)))) {
        rc = CGS_EXIT_BAD_INPUT;
        goto out;
    }
    if (ss.policy == CGS_SPLIT_MAGI && !cli_session_split_ops(&ss)->n)
        cli_warn("no --split-ops given: the whole graph is one piece");
    if (ss.policy == CGS_SPLIT_MAGI && g->producer.stage != CGS_STAGE_DYNAMO &&
        g->producer.stage != CGS_STAGE_UNKNOWN)
        cli_warn("%s is a %s graph: MagiCompiler and vLLM split the Dynamo graph (the one "
                 "torch.compile hands its backend); these are the pieces of this stage, split "
                 "with the same rules, not the pieces they compile",
                 ss.path, cgs_stage_names[g->producer.stage]);
    if (!(s = cli_session_split(&ss))) {
        rc = cli_session_fail(&ss);
        goto out;
    }
    if (ss.policy == CGS_SPLIT_MAGI) {
        recorded_diff = cli_split_check_recorded(s);
        index_path = index_beside(g, &idx, ipath, sizeof(ipath));
        split_index = index_path ? &idx : NULL;
    }
    if (a.json) {
        print_split_json(s, why_node, index_path, recorded_diff);
    } else if (why_node) {
        struct cgs_buf b = CGS_BUF_INIT;
        why_text(s, why_node, &b);
        fputs(b.buf, stdout);
        cgs_buf_release(&b);
    } else {
        split_text(g, s, a.summary, &ss.split_ops);
        if (index_path)
            printf("\ncache index: %s: %u entr%s, joined to the compiled pieces by graph_index\n",
                   index_path, idx.n_entries, idx.n_entries == 1 ? "y" : "ies");
        cli_print_notes(g, 20);
    }
    if (a.have_max && s->n_pieces > a.max_pieces) {
        fprintf(stderr, "cgscope split: %u piece%s, more than --max-pieces %lu\n", s->n_pieces,
                PLURAL(s->n_pieces), a.max_pieces);
        rc = CGS_EXIT_CHECK;
    }
out:
    if (index_path)
        cgs_dash_release(&idx);
    split_index = NULL;
    cli_session_close(&ss);
    return rc;
}
