/*
 * One graph's analysis session: what a command asks of a GRAPH (the graph, the operator
 * declarations, the split, the shapes, Inductor's layout decisions), each made once, on first
 * use, in the order it needs, with the GRAPH argument naming the file in every message. A
 * command sets what it was asked (split ops, policy, declaration files, options) and asks for
 * what it prints; the chain load -> declarations -> split -> shapes -> layout is written here
 * once, not in each command.
 *
 * A step that fails returns NULL and leaves why in s->diag (the place set): a command that
 * cannot go on says it (cli_session_fail), one that can warns with s->diag.msg and draws
 * without it. Loading the graph and checking the split's ops say their own errors (the
 * loader's note on which graph of a log was taken, an op that matches nothing).
 */
#ifndef CGS_TOOLS_SESSION_H
#define CGS_TOOLS_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/diag.h"
#include "lib/ir/graph.h"
#include "lib/passes/layout.h"
#include "lib/passes/shapes.h"
#include "lib/passes/split.h"
#include "lib/readers/opdecl.h"
#include "tools/cmd.h"

struct cli_session {
    /* what the command asks: set after cli_session_init, before the first step */
    const char *path;            /* the GRAPH argument (a file, a ref, a log or folder) */
    const char *model;           /* --model: which model of a .pt2 */
    enum cgs_stage prefer;       /* the stage a bare log or folder gives (dynamo) */
    const char *const *decl_files; /* --ops files, after the installed ones and $CGSCOPE_OPS */
    size_t n_decl_files;
    const struct cgs_opdecls *shared_decls; /* declarations loaded once for many sessions */
    enum cgs_split_policy policy; /* CGS_SPLIT_MAGI */
    struct cli_list ops;         /* the splitting ops (cli_split_ops_add into it) */
    bool recorded_ops;           /* none given: the ops the compiler's own split recorded */
    bool present_ops_only;       /* leave out ops that match no node (a job over many graphs) */
    bool allow_missing_ops;      /* an op that matches nothing is a warning, not an error */
    bool reinfer;                /* shapes: infer over the recorded values too */
    struct cgs_layout_opts layout_opts;
    /* what it made (NULL until asked; owned by the session) */
    struct cgs_graph *g;
    struct cgs_opdecls decls;
    struct cgs_split *split;
    struct cli_list split_ops;   /* the ops the split used */
    struct cgs_shapes *shapes;
    struct cgs_layout *layout;
    struct cgs_diag diag;        /* why the last step failed */
    int status;                  /* its exit status (CGS_EXIT_BAD_INPUT), 0 when none failed */
    unsigned tried;              /* steps made or failed: never tried twice */
};

void cli_session_init(struct cli_session *s, const char *path);
/* Take a graph already loaded (a job's, from a log read once): the session owns it. */
void cli_session_adopt(struct cli_session *s, struct cgs_graph *g);

struct cgs_graph *cli_session_graph(struct cli_session *s);
/* 0, or the exit status (said): the installed declarations, $CGSCOPE_OPS, decl_files. */
int cli_session_decls(struct cli_session *s);
/* The ops the split uses: those given (moved out of s->ops), else with recorded_ops the ops
 * the compiler's own split recorded (said on stderr); with present_ops_only those of them that
 * match a node. */
const struct cli_list *cli_session_split_ops(struct cli_session *s);
/* The split (its ops checked unless present_ops_only: an op matching nothing is said). */
struct cgs_split *cli_session_split(struct cli_session *s);
struct cgs_shapes *cli_session_shapes(struct cli_session *s);
struct cgs_layout *cli_session_layout(struct cli_session *s);

/* Say why the last step failed (when it has not said it itself); its exit status. */
int cli_session_fail(struct cli_session *s);
void cli_session_close(struct cli_session *s);

#endif
