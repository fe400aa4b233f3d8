/*
 * Sources: every kind of file or folder cgscope reads, as one table. A path is looked at once
 * (one stat, one read of its first bytes, of what they unpack to for a compressed file, and of
 * a folder's names), and the first row whose sniff says yes is its kind. A row names what a
 * person calls it, the role it plays in a job (a graph, compile records, a profile), and, for
 * the kinds that hold printed graphs as files (a cache folder, a depyf dump), how it lists
 * them. The TORCH_TRACE kinds are listed by the trace reader (lib/run/follow.h), the graph
 * files loaded by lib/readers/load.h.
 *
 * A new input kind is one reader file that defines a struct cgs_source_reader and one row in
 * CGS_SOURCE_KINDS (docs/design.md, "Adding an input kind", shows it with depyf); a row for a
 * file of one kind (lib/readers/sniff.h) names the kind and needs no sniff of its own.
 */
#ifndef CGS_SOURCE_H
#define CGS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "lib/base/diag.h"
#include "lib/readers/sniff.h"

/* What a source gives a job. */
enum cgs_source_role {
    CGS_ROLE_GRAPH,    /* one graph: a graph JSON, a .pt2, a printed graph, a ref */
    CGS_ROLE_LOG,      /* compile records and the graphs they carry (logs, cache, depyf) */
    CGS_ROLE_COMPILES, /* compile records only: the bridge's events, a cache index */
    CGS_ROLE_PROFILE,  /* a profile: CUPTI traces, a report */
    CGS_ROLE_COUNT
};
extern const char *const cgs_source_role_names[CGS_ROLE_COUNT];

/* A path as it was found, once. */
struct cgs_probe {
    const char *path;   /* as given (a ref: the whole "PATH#SEL") */
    char file[4096];    /* the file or folder itself (a ref's PATH) */
    const char *sel;    /* a ref's selector after '#', else NULL */
    bool exists, is_dir, is_reg, is_stream; /* a FIFO, a character device, standard input */
    struct stat st;
    enum cgs_input_kind kind;   /* regular files: from the first bytes */
    enum cgs_input_kind inner;  /* a compressed file: what its first unpacked bytes are */
    unsigned char head[CGS_SNIFF_HEAD];
    size_t n_head;              /* of head (of the unpacked bytes for a compressed file) */
    int err;                    /* errno when it could not be looked at */
};

/* One printed graph a folder holds. */
struct cgs_source_graph {
    const char *path;  /* the file */
    const char *stage; /* "dynamo", "aot_forward", "aot_backward", "aot_joint",
                          "aot_inference", "post_grad", "other" (a pass between them) */
    const char *group; /* graphs of one compile share it ("__compiled_fn_3"), or NULL */
    bool backward;     /* post_grad: the backward's graph */
    int inference;     /* the compile made an inference graph (1), a training step's (0), or
                          not known (-1) */
};
typedef int (*cgs_source_graph_fn)(const struct cgs_source_graph *g, void *ctx);

struct cgs_source_reader {
    const char *what;           /* "a depyf dump folder" */
    enum cgs_source_role role;
    /* does the probed path hold this kind? NULL: a regular file whose first bytes are of
     * file_kind (lib/readers/sniff.h) */
    bool (*sniff)(const struct cgs_probe *p);
    enum cgs_input_kind file_kind;
    /* the printed graphs it holds, in the order a person reads them: fn for each (a nonzero
     * return stops and is returned); how many, or -1 with d filled. NULL: not a folder of
     * graph files (the trace reader or the graph loader reads it). */
    int (*list)(const struct cgs_probe *p, cgs_source_graph_fn fn, void *ctx,
                struct cgs_diag *d);
};

/* The rows, tried in this order: X(KIND, reader), reader the struct cgs_source_reader
 * cgs_src_<reader> its file defines. */
#define CGS_SOURCE_KINDS(X)                                                                        \
    X(REF, ref)                 /* PATH#ID:STAGE, a graph of a log or folder */                   \
    X(PROFILE_DIR, profile_dir) /* CUPTI traces (*.cgstrace) or a report.json */                  \
    X(DEPYF, depyf)             /* depyf.prepare_debug's dump, or a graph file of one */        \
    X(CACHE_DIR, cache_dir)     /* vLLM / MagiCompiler cache: computation_graph.py */            \
    X(TRACE_DIR, trace_dir)     /* any other folder: TORCH_TRACE logs, a cache index */          \
    X(GRAPH_JSON, graph_json)                                                                      \
    X(PT2, pt2)                                                                                    \
    X(PRINTED, printed)         /* a printed graph (.py): print_readable, depyf, vLLM */         \
    X(TRACE, trace)             /* a TORCH_TRACE log, compressed or not, or a stream */           \
    X(EVENTS, events)                                                                              \
    X(INDEX, cache_index)                                                                          \
    X(CUPTI_TRACE, cupti_trace)                                                                    \
    X(REPORT, report)

#define CGS_SOURCE_ENUM_(k, r) CGS_SRCK_##k,
enum cgs_source_kind { CGS_SOURCE_KINDS(CGS_SOURCE_ENUM_) CGS_SRCK_COUNT, CGS_SRCK_NONE = -1 };
#undef CGS_SOURCE_ENUM_

#define CGS_SOURCE_DECL_(k, r) extern const struct cgs_source_reader cgs_src_##r;
CGS_SOURCE_KINDS(CGS_SOURCE_DECL_)
#undef CGS_SOURCE_DECL_

/* Look at path once (no file is opened twice, nothing is consumed from a stream); 0, or -1
 * with p->err set when it is not there or cannot be read. */
int cgs_source_probe(struct cgs_probe *p, const char *path);

/* The kind of a probed path, or CGS_SRCK_NONE when no row reads it. */
enum cgs_source_kind cgs_source_kind(const struct cgs_probe *p);
/* The row of a kind. */
const struct cgs_source_reader *cgs_source_reader(enum cgs_source_kind k);

/* Probe and classify path in one call; CGS_SRCK_NONE when absent or of no kind read. */
enum cgs_source_kind cgs_source_kind_of(const char *path);

/* Whether a kind holds graphs the way logs and folders do (listed, with refs), rather than
 * being one graph file the loader reads. */
bool cgs_source_kind_lists(enum cgs_source_kind k);

/* A printed graph's text: torch.fx's class line, or depyf's older top-level
 * `def forward(self, ...)`, in the first bytes. */
bool cgs_source_head_is_printed(const unsigned char *head, size_t n);

#endif
