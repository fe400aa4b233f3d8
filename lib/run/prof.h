/*
 * CUPTI traces (lib/run/proftrace.h, written by profiler/libcgscope-cupti.so) and what they
 * say: the reader, the attribution of every kernel, memcpy and memset to an NVTX range
 * (and so to a piece), and the per-piece report `cgscope report` prints. No CUDA here:
 * CI tests this on recorded traces.
 *
 * Attribution of one GPU record (kernel, memcpy, memset):
 *   1. launched from a CUDA graph (graph_node != 0): the node is followed through the clone
 *      map of instantiation to the node captured; if a range was open on the capturing
 *      thread, the record belongs to that range ("captured");
 *   2. else the API call with the record's correlation id: the innermost range open on the
 *      calling thread;
 *   3. else (a thread with no range open, such as autograd's backward thread) the range
 *      most recently pushed among those open on any thread at the time of the call;
 *   4. else unattributed (kept, and shown as such).
 * A piece is the nearest range (the record's own or an enclosing one on that thread) whose
 * name starts with the prefix ("cgscope:", the bridge's piecewise runner); its name is the
 * rest ("submod_3").
 *
 * Also here: the small reader of `cgscope report --json` documents that `dot --profile`
 * colours pieces with (struct cgs_prof_summary).
 */
#ifndef CGS_PROF_H
#define CGS_PROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/diag.h"

struct cgs_strmap;

#define CGS_PROF_DEFAULT_PREFIX "cgscope:"
/* the largest trace file read (a few hundred bytes per kernel) */
#define CGS_PROF_MAX_FILE ((size_t)8 << 30)

enum cgs_prof_kind { CGS_PROF_KERNEL, CGS_PROF_MEMCPY, CGS_PROF_MEMSET };

struct cgs_prof_range {
    uint64_t uid, parent, push, pop; /* pop: UINT64_MAX while never closed */
    uint32_t tid, depth;
    const char *name; /* in the trace's arena */
};

struct cgs_prof_launch {
    uint64_t ts, uid;
    uint32_t corr, tid;
    uint8_t graph;
};

struct cgs_prof_work {
    uint64_t start, end, bytes, graph_node;
    uint32_t corr, graph_id, device, stream;
    uint32_t name; /* kernels: the trace's name id */
    uint8_t kind;  /* enum cgs_prof_kind */
};

struct cgs_prof_trace {
    char *file;
    uint64_t pid;
    int32_t rank; /* -1 when RANK/LOCAL_RANK were not set */
    bool complete;         /* the END record was read */
    bool truncated;        /* the file ends inside a record */
    uint32_t end_reason, signo;
    char *error;           /* the library's own failure (CUPTI busy, version), or NULL */
    char *cmdline, *nvtx_prefix;
    uint32_t cupti_runtime, cupti_built;
    uint64_t dropped, lost, unknown_records;

    struct cgs_prof_range *ranges;
    struct cgs_prof_launch *launches;
    struct cgs_prof_work *work;
    uint64_t (*gnodes)[2];  /* {node, uid} */
    uint64_t (*gclones)[2]; /* {clone, original} */
    char **names;           /* name id -> mangled kernel name (names[0] = "") */
    size_t n_ranges, n_launches, n_work, n_gnodes, n_gclones, n_names;
    size_t a_ranges, a_launches, a_work, a_gnodes, a_gclones, a_names;
    void *arena; /* struct cgs_arena, for range names */
};

/*
 * Read one trace file (a complete .cgstrace, or the .part of a process that was killed).
 * A file that ends inside a record is read up to there (truncated set); anything else
 * malformed (not a trace, a newer version, a record whose size does not hold its payload,
 * an unterminated name) fails with d naming the file and the byte offset.
 */
int cgs_prof_read(const char *path, struct cgs_prof_trace *t, struct cgs_diag *d) CGS_WUR;
int cgs_prof_parse(const char *buf, size_t len, const char *file, struct cgs_prof_trace *t,
                   struct cgs_diag *d) CGS_WUR;
void cgs_prof_trace_release(struct cgs_prof_trace *t);

/* True when the first bytes of a file are a trace's magic. */
bool cgs_prof_is_trace(const char *buf, size_t len);

/* ---- the report ------------------------------------------------------------------------------ */

struct cgs_prof_stat {
    uint64_t count, ns, bytes;
};

/* Per-call samples (with cgs_prof_opts.samples): a call is one instance of a piece's range
 * (with the CUDA graph replays launched inside it), or one replay launched outside every
 * instance (a whole-model graph) whose work landed in the piece; work in no piece or range
 * counts each record as a call. Each sample is the kernel time of one call, ascending. */
struct cgs_prof_samples {
    uint64_t *ns;
    uint32_t n;
};

struct cgs_prof_pk { /* one kernel within a group */
    uint32_t kernel;  /* index into report.kernels */
    struct cgs_prof_stat stat;
    struct cgs_prof_samples per_call; /* this kernel's time in each call of the group */
};

struct cgs_prof_group {
    char *name;       /* piece name (prefix stripped), or the range's name; "" unattributed */
    char *range;      /* the NVTX range name */
    uint64_t calls;   /* instances of the range */
    uint64_t cpu_ns;  /* CPU time the range was open, summed over closed instances */
    struct cgs_prof_stat kernels, memcpy, memset;
    uint64_t graph_replays;    /* distinct graph launches whose work landed here */
    uint64_t graph_kernels;    /* kernels launched from CUDA graphs */
    uint64_t captured_kernels; /* ...attributed through the capture-time node map */
    uint64_t any_thread;       /* records attributed through another thread's range */
    struct cgs_prof_stat *per_trace; /* [n_traces]: kernels */
    struct cgs_prof_pk *top;         /* kernels by GPU time, all of them */
    uint32_t n_top;
    struct cgs_prof_samples per_call; /* the kernel time of each call (opts.samples) */
};

struct cgs_prof_kernel {
    char *name; /* demangled */
    struct cgs_prof_stat stat;
    uint64_t min_ns, max_ns;
    uint32_t groups; /* how many groups ran it */
};

enum cgs_prof_by { CGS_PROF_BY_PIECE, CGS_PROF_BY_RANGE };

struct cgs_prof_opts {
    const char *prefix; /* NULL: the trace's own, else CGS_PROF_DEFAULT_PREFIX */
    enum cgs_prof_by by;
    bool samples; /* keep each call's kernel time, per group and per kernel of a group */
};

struct cgs_prof_report {
    const char *prefix;
    enum cgs_prof_by by;
    struct cgs_prof_group *groups; /* pieces in name order (submod_2 before submod_10);
                                      ranges by GPU time */
    uint32_t n_groups;
    struct cgs_prof_group none;    /* work in no piece/range */
    struct cgs_prof_kernel *kernels; /* by GPU time */
    uint32_t n_kernels;
    struct cgs_prof_stat kernels_total, memcpy_total, memset_total;
    uint64_t no_launch; /* records whose API call was not seen (started before injection) */
    uint32_t n_traces;
    struct cgs_strmap *by_name; /* group name -> group (cgs_prof_find) */
};

/* Attribute and sum the traces (several processes, one column each). */
int cgs_prof_report_build(const struct cgs_prof_trace *traces, uint32_t n,
                          const struct cgs_prof_opts *o, struct cgs_prof_report *r,
                          struct cgs_diag *d) CGS_WUR;
void cgs_prof_report_release(struct cgs_prof_report *r);

/* The group named name, or NULL. */
const struct cgs_prof_group *cgs_prof_find(const struct cgs_prof_report *r, const char *name);

/*
 * Pieces of several graphs. The bridge names a piece's range "cgscope:<compile id>/submod_N"
 * (a model with graph breaks has one split per Dynamo graph, each with its submod_0): a group
 * or piece name is then "0/0/submod_1", whose graph part is "0/0". Names without a graph part
 * (older runs) belong to any graph.
 */
/* The length of name's graph part (0: none). */
size_t cgs_prof_graph_part(const char *name);
/*
 * The group of split piece `piece` (submod_N) of graph `graph_id` ("0/0"; NULL: not known):
 * "<graph_id>/piece", else "piece", else, without a graph id, the one graph's piece of that name.
 * NULL when there is none; *ambiguous is set when, without a graph id, several graphs have it.
 */
const struct cgs_prof_group *cgs_prof_find_piece(const struct cgs_prof_report *r,
                                                 const char *graph_id, const char *piece,
                                                 bool *ambiguous);
/* The graph ids a report's groups name, ", "-separated, into buf (empty: none). */
void cgs_prof_graph_ids(const struct cgs_prof_report *r, char *buf, size_t n);

/* A kernel name as C++ writes it (via the C++ runtime's demangler), heap; s itself when
 * not mangled. */
char *cgs_prof_demangle(const char *s);

/* ---- a `report --json` document, for dot --profile ------------------------------------------ */

struct cgs_prof_summary_piece {
    char *name;
    uint64_t kernels;
    uint64_t gpu_ns;
};

struct cgs_prof_summary {
    struct cgs_prof_summary_piece *pieces;
    uint32_t n_pieces;
    uint64_t kernels, gpu_ns; /* totals as the report gives them */
};

/*
 * Read {"pieces":[{"name","kernels","gpu_ns"}],"kernels":N,"gpu_ns":N}.
 * Returns 0 with *out set (caller frees with cgs_prof_summary_free), or
 * -CGS_E_* with d filled (file, line:col, JSON path).
 */
/*
 * Keep the pieces of graph graph_id (their names shortened to submod_N) and those that name no
 * graph. graph_id NULL: when the pieces name exactly one graph, that one; when several, -1
 * with their ids in why (the caller asks which); 0 otherwise.
 */
int cgs_prof_summary_select(struct cgs_prof_summary *p, const char *graph_id, char *why,
                            size_t n);

int cgs_prof_summary_load(const char *path, struct cgs_prof_summary **out,
                          struct cgs_diag *d) CGS_WUR;
int cgs_prof_summary_parse(const char *buf, size_t len, const char *file,
                           struct cgs_prof_summary **out, struct cgs_diag *d) CGS_WUR;
/* The same numbers straight from a built report (dot --profile TRACE|DIR). */
struct cgs_prof_summary *cgs_prof_summary_of(const struct cgs_prof_report *r);
void cgs_prof_summary_free(struct cgs_prof_summary *p);

#endif
