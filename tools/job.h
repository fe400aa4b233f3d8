/*
 * A job over the sources a user gives (graphs, TORCH_TRACE logs or folders, cache folders,
 * events, indexes, profile folders with the graphs the bridge dumped there): read once, every
 * graph analysed (split where a piecewise backend splits, shapes), and the findings model built
 * over all of it. `check` and `top --once` print its
 * findings; `html` reads its sources the same way (cli_source_role) and builds the same model.
 */
#ifndef CGS_TOOLS_JOB_H
#define CGS_TOOLS_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>


#include "lib/readers/opdecl.h"
#include "lib/readers/source.h"
#include "lib/run/dash.h"
#include "lib/run/diff.h"
#include "lib/run/findings.h"
#include "lib/run/follow.h"
#include "lib/run/graphs.h"
#include "tools/cmd.h"
#include "tools/session.h"

/* the source table's roles (lib/readers/source.h), under the names the JSON gives them */
enum cli_role {
    CLI_ROLE_GRAPH = CGS_ROLE_GRAPH,
    CLI_ROLE_LOG = CGS_ROLE_LOG,
    CLI_ROLE_COMPILES = CGS_ROLE_COMPILES,
    CLI_ROLE_PROFILE = CGS_ROLE_PROFILE
};
extern const char *const cli_role_names[4];

/* What a source is (its kind into *kind when given); -1 (said on stderr) when it is nothing
 * cgscope reads. */
int cli_source_role(const char *path, enum cgs_source_kind *kind);

struct cli_job_graph {
    char *ref, *label;
    struct cgs_graph *g;
    struct cgs_split *s;      /* the split (one piece when no split op applies) */
    struct cgs_shapes *shapes;
    struct cgs_layout *layout; /* post-grad graphs, with the job's layout set */
    struct cli_list ops;      /* the splitting ops the split used (those the graph holds) */
    char *error;              /* why it was not read */
    int32_t item;             /* its index in the job's graphs of logs (gs), or -1 */
    struct cli_session session; /* what made g's analysis (owns g and its layout) */
};

struct cli_job {
    struct cli_job_graph *graphs;
    uint32_t n_graphs, alloc_graphs;
    struct cgs_dash dash;
    bool have_dash;
    struct cgs_graphs gs;
    bool have_gs;
    struct cgs_opdecls decls;
    struct cgs_findings findings;
    struct cgs_follow follow; /* what read the compile records (top's document names them) */
    bool have_follow;
    int *roles;               /* per source given: its enum cli_role, -1 a stream */
    char **profiles;          /* profile sources (a report.json's folder for the file) */
    uint32_t n_profiles;
    uint32_t skipped;         /* graphs past max_graphs, not read */
    /* set by the caller */
    bool progress;            /* "graph N of M" on a terminal's stderr */
    bool layout;              /* Inductor's layout decisions of post-grad graphs too */
    bool texts;               /* each compile's guards, generated code and specializations */
    bool lookups;             /* each cache lookup with its key's components (diff's) */
    uint32_t max_graphs;      /* 0: all */
    bool drop_graphs;         /* free each graph once its findings are taken (check, top:
                                 nothing after needs it; memory then holds one graph at a time) */
    bool lazy;                /* the logs' graphs are listed, not read: cli_job_diff_input's
                                 load reads one when the diff needs it (no graph findings) */
    const struct cli_list *split_ops; /* the ops the run was given (lazy loads use them) */
    /* called after each graph's analysis (html draws it while the next are analysed) */
    void (*analysed)(struct cli_job *j, uint32_t i, void *ctx);
    void *ctx;
};

/* Read paths[0..n) and build the findings; the split ops (ops, may be empty) apply to graphs
 * that record none. CGS_EXIT_OK, or CGS_EXIT_BAD_INPUT (said). */
struct cli_list;
int cli_job_run(struct cli_job *j, char *const *paths, int n, const struct cli_list *ops);
/* The same over compile records already read into read (top --once: its table's reading); a
 * stream among paths (standard input, a pipe) is not read again. */
int cli_job_run_read(struct cli_job *j, char *const *paths, int n, const struct cli_list *ops,
                     const struct cgs_dash *read);
/* Whether the job read nothing a verdict could rest on: no graph, no profile, no compile record,
 * event or cache entry (an empty folder, a folder of other files). */
bool cli_job_read_nothing(const struct cli_job *j);

void cli_job_release(struct cli_job *j);

/* The job's compile records and graphs as the diff reads them (lib/run/diff.h): in->graphs is
 * the caller's to free; in->prof is left NULL (cli_job_profile builds it). */
void cli_job_diff_input(const struct cli_job *j, const char *name, struct cgs_diff_input *in);

/* The job's profile sources read (set) and reported as `cgscope report` does (rep), each call's
 * kernel time kept when samples (the diff's GPU time). *have says whether rep was built (false:
 * the job has no profile). CGS_EXIT_OK, or CGS_EXIT_BAD_INPUT (said). */
struct cli_prof_set;
int cli_job_profile(const struct cli_job *j, bool samples, struct cli_prof_set *set,
                    struct cgs_prof_report *rep, bool *have);
/* A change as JSON, written at depth: {kind, subject, a, b, message, worse, graph, pieces,
 * compile_ids, rank, pct}. */
struct jsonw;
void cli_diff_change_write(struct jsonw *w, const struct cgs_diff_change *c, int depth);

/* The findings as JSON (an array of {kind, severity, subject, message, hint, url, evidence,
 * count, href}, written at depth: that of the member holding it) and as text (a line each,
 * then its hint, subject and evidence indented). */
void cli_findings_write(struct jsonw *w, const struct cgs_findings *f, int depth);
void cli_findings_print(const struct cgs_findings *f, FILE *out, bool details);
/* "2 errors, 1 warning, 3 notes" */
void cli_findings_tally(const struct cgs_findings *f, char *out, size_t n);

#endif
