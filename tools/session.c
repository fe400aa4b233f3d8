/* One graph's analysis session (tools/session.h). */
#include "tools/session.h"

#include <string.h>

#include "lib/run/graphs.h"

enum {
    STEP_GRAPH = 1,
    STEP_DECLS = 2,
    STEP_OPS = 4,
    STEP_SPLIT = 8,
    STEP_SHAPES = 16,
    STEP_LAYOUT = 32
};

void cli_session_init(struct cli_session *s, const char *path)
{
    static const struct cli_list empty = CLI_LIST_INIT;
    static const struct cgs_layout_opts lo = CGS_LAYOUT_OPTS_INIT;
    memset(s, 0, sizeof(*s));
    s->path = path;
    s->prefer = CGS_STAGE_DYNAMO;
    s->policy = CGS_SPLIT_MAGI;
    s->ops = empty;
    s->split_ops = empty;
    s->layout_opts = lo;
    cgs_diag_clear(&s->diag);
}

void cli_session_adopt(struct cli_session *s, struct cgs_graph *g)
{
    s->g = g;
    s->tried |= STEP_GRAPH;
}

/* a step failed: its diag placed at the GRAPH argument when the step gave no place */
static void *failed(struct cli_session *s, int status)
{
    if (s->diag.code && !s->diag.file)
        cgs_diag_at(&s->diag, s->path, 0, 0);
    s->status = status ? status : CGS_EXIT_BAD_INPUT;
    return NULL;
}

struct cgs_graph *cli_session_graph(struct cli_session *s)
{
    if (s->tried & STEP_GRAPH)
        return s->g;
    s->tried |= STEP_GRAPH;
    cli_graph_stage = s->prefer;
    if (!(s->g = cli_load_graph(s->path, s->model))) /* it said why */
        return failed(s, CGS_EXIT_BAD_INPUT);
    return s->g;
}

int cli_session_decls(struct cli_session *s)
{
    int rc;
    if (s->tried & STEP_DECLS)
        return s->decls.n || !(s->status) ? 0 : s->status;
    s->tried |= STEP_DECLS;
    rc = cli_load_opdecls(&s->decls, s->decl_files, s->n_decl_files); /* says why */
    if (rc)
        s->status = rc;
    return rc;
}

const struct cli_list *cli_session_split_ops(struct cli_session *s)
{
    static const struct cli_list empty = CLI_LIST_INIT;
    struct cli_list all = CLI_LIST_INIT;

    if (s->tried & STEP_OPS)
        return &s->split_ops;
    s->tried |= STEP_OPS;
    if (!cli_session_graph(s))
        return &s->split_ops;
    /* the list as given (its presets marked: cli_check_split_ops reads the marks) */
    all = s->ops;
    s->ops = empty;
    if (!all.n && s->recorded_ops)
        cli_split_ops_recorded(s->g, &all);
    if (!s->present_ops_only) {
        s->split_ops = all;
        return &s->split_ops;
    }
    for (size_t i = 0; i < all.n; i++)
        for (uint32_t k = 0; k < s->g->n_nodes; k++)
            if (s->g->nodes[k]->op == CGS_NODE_CALL_FUNCTION &&
                cgs_split_op_matches(all.items[i], s->g->nodes[k]->target)) {
                cli_list_add_csv(&s->split_ops, all.items[i]);
                break;
            }
    cli_list_release(&all);
    return &s->split_ops;
}

struct cgs_split *cli_session_split(struct cli_session *s)
{
    int rc;
    if (s->tried & STEP_SPLIT)
        return s->split;
    s->tried |= STEP_SPLIT;
    if (!cli_session_graph(s))
        return NULL;
    cli_session_split_ops(s);
    {
        struct cgs_split_opts so = {s->policy, (const char *const *)s->split_ops.items,
                                    s->split_ops.n};
        cgs_diag_clear(&s->diag);
        if (cgs_split_run(s->g, &so, &s->split, &s->diag) < 0) {
            s->split = NULL;
            cgs_diag_at(&s->diag, s->path, 0, 0);
            return failed(s, CGS_EXIT_BAD_INPUT);
        }
    }
    if (!s->present_ops_only &&
        (rc = cli_check_split_ops(s->split, &s->split_ops, s->path, s->allow_missing_ops))) {
        s->split = NULL; /* said; the split stays in the graph's arena */
        return failed(s, rc);
    }
    return s->split;
}

struct cgs_shapes *cli_session_shapes(struct cli_session *s)
{
    if (s->tried & STEP_SHAPES)
        return s->shapes;
    s->tried |= STEP_SHAPES;
    if (!cli_session_graph(s))
        return NULL;
    if (!s->shared_decls && !(s->tried & STEP_DECLS) && cli_session_decls(s))
        return failed(s, s->status);
    {
        struct cgs_shapes_opts so = {.reinfer = s->reinfer,
                                     .decls = s->shared_decls ? s->shared_decls : &s->decls};
        cgs_diag_clear(&s->diag);
        if (cgs_shapes_infer(s->g, &so, &s->shapes, &s->diag) < 0) {
            s->shapes = NULL;
            return failed(s, CGS_EXIT_BAD_INPUT);
        }
    }
    return s->shapes;
}

struct cgs_layout *cli_session_layout(struct cli_session *s)
{
    if (s->tried & STEP_LAYOUT)
        return s->layout;
    s->tried |= STEP_LAYOUT;
    if (!cli_session_graph(s))
        return NULL;
    cgs_diag_clear(&s->diag);
    if (cgs_layout_run(s->g, &s->layout_opts, &s->layout, &s->diag) < 0) {
        s->layout = NULL;
        return failed(s, CGS_EXIT_BAD_INPUT);
    }
    return s->layout;
}

int cli_session_fail(struct cli_session *s)
{
    if (s->diag.code) {
        cli_report_diag(&s->diag);
        cgs_diag_clear(&s->diag);
    }
    return s->status ? s->status : CGS_EXIT_BAD_INPUT;
}

void cli_session_close(struct cli_session *s)
{
    cgs_layout_free(s->layout);
    cgs_graph_free(s->g); /* the split and shapes live in its arena */
    cgs_opdecls_free(&s->decls);
    cli_list_release(&s->ops);
    cli_list_release(&s->split_ops);
    memset(s, 0, sizeof(*s));
}
