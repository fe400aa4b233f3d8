/*
 * What a run's compiles and cache lookups look like, read from what torch, the bridge and
 * MagiCompiler already write (no curses here: viz/tui.c draws it, tools/cmd-top.c prints it):
 *
 *   - our events (DESIGN.md, one JSON object a line: cache_hit, cache_miss, compile_end, ...),
 *     a row per (graph_index, runtime_shape, backend);
 *   - PyTorch's structured trace (TORCH_TRACE): glog-prefixed JSON lines with tab-indented
 *     payload lines after them; a row per compile id, torch's own cache artifacts
 *     (*_cache_hit / _miss / _bypass, one per lookup) counted per cache, compile times from
 *     compilation_metrics, recompiles with their reasons, graph breaks with their user frame;
 *   - MagiCompiler's (and vLLM's) compile-cache index, a Python literal
 *     {(runtime_shape, graph_index, backend): (key, path, restart_analysis_count)}.
 *
 * Input arrives in pieces (a followed file grows): cgs_feed_data() takes bytes as they come,
 * cgs_feed_flush() ends a pending record (end of file, or the writer went quiet). A line
 * that does not parse is counted (bad_lines, with the first one kept), never fatal.
 */
#ifndef CGS_DASH_H
#define CGS_DASH_H

/* the most analysis restarts an index entry may record (each is an event of `cache simulate`) */
#define CGS_DASH_MAX_RESTARTS 10000
#define CGS_STR_(x) #x
#define CGS_STR(x) CGS_STR_(x)

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/buf.h"
#include "lib/base/diag.h"

enum cgs_src_kind { CGS_SRC_UNKNOWN, CGS_SRC_EVENTS, CGS_SRC_TRACE, CGS_SRC_CACHE_INDEX };

/* The names compile-cache indexes have: MagiCompiler's, vLLM's. */
extern const char *const cgs_cache_index_names[2];
extern const char *const cgs_src_kind_names[4];

/* Limits: a line (or a record's payload) past these is counted bad and skipped. */
#define CGS_DASH_MAX_LINE    ((size_t)64 << 20)
#define CGS_DASH_MAX_PAYLOAD ((size_t)64 << 20)
#define CGS_DASH_MAX_STRS 1000000 /* a trace's str records kept (file names by index) */
#define CGS_DASH_MAX_FRAMES 200   /* frames of a compile's stack kept */
#define CGS_DASH_MAX_TEXT ((size_t)256 << 10) /* a compile's guards or code kept, in bytes */
#define CGS_DASH_MAX_ROWS    100000u

enum cgs_lookup { CGS_LOOKUP_HIT, CGS_LOOKUP_MISS, CGS_LOOKUP_BYPASS };

struct cgs_dash_cache {
    char *name; /* "fx_graph", "aotautograd", "piecewise" (our events), ... */
    uint64_t hit, miss, bypass;
};

/* The compile-time phases compilation_metrics records (tlparse's names, torch's fields). */
#define CGS_DASH_PHASES(X)                                                                         \
    X(DYNAMO, "dynamo")             /* entire_frame_compile_time_s, dynamo_cumulative_... */    \
    X(AOT, "aot_autograd")          /* aot_autograd_cumulative_compile_time_us */              \
    X(BACKEND, "backend")           /* backend_compile_time_s */                               \
    X(INDUCTOR, "inductor")         /* inductor_cumulative_compile_time_us, inductor_compile_.. */ \
    X(CODEGEN, "inductor_codegen")  /* inductor_code_gen_cumulative_compile_time_us */

#define CGS_DASH_PHASE_ENUM_(id, name) CGS_DASH_PHASE_##id,
enum cgs_dash_phase { CGS_DASH_PHASES(CGS_DASH_PHASE_ENUM_) CGS_DASH_PHASE_COUNT };
#undef CGS_DASH_PHASE_ENUM_
extern const char *const cgs_dash_phase_names[CGS_DASH_PHASE_COUNT];

struct cgs_dash_row {
    bool trace;              /* a TORCH_TRACE compile id; else our events' key */
    uint32_t source;         /* the file it was read from: an index into cgs_dash.sources */
    int rank;                /* -1: the source has no rank */
    bool has_graph_index;
    int64_t graph_index;
    bool dynamic; /* runtime_shape null: the dynamic-shape artifact */
    int64_t runtime_shape;
    char *backend;
    char *compile_id;        /* trace: "0/1"; events: the bridge's 'graph' field, or NULL */
    char *frame;             /* trace: "forward (resnet.py:284)" */
    char *piece;             /* events without a graph_index: the (splitting) piece's name */
    uint64_t hits, misses, bypasses, compiles, runs, recompiles;
    uint64_t captures;       /* CUDA graphs captured for it (the bridge's cudagraph=True) */
    double compile_ms, last_compile_ms, run_ms;
    double last_ts;          /* seconds since the epoch of its last event; 0 unknown */
    char *reason;            /* the recompile reasons (one a line: "0/0: tensor 'x' size
                                mismatch ...", each an earlier cache entry of the frame and the
                                guard it failed), or the last error */
    bool indexed;            /* in a compile-cache index */
    int64_t restart_analysis_count;
    /* trace: what compilation_metrics said (the verdicts are lib/run/findings.c's) */
    int run;                 /* 1, or 2, 3, ... when the log uses the compile id again (a
                                torch._dynamo.reset() numbers compiles from 0/0 anew) */
    bool metrics;            /* a compilation_metrics record was read */
    uint64_t metrics_line;   /* its line in the source */
    bool has_compile_ms;     /* compile_ms holds what the record said (else unknown) */
    double phase_ms[CGS_DASH_PHASE_COUNT]; /* per phase, -1 when the record says nothing */
    char *co_name, *co_filename; /* the frame's code object */
    int64_t co_firstlineno;
    char *fail_type, *fail_reason; /* a compile that failed (or torch's refusal) */
    char *fail_file;         /* fail_user_frame_filename, with fail_line */
    int64_t fail_line;
    char *restart_reasons;   /* one a line */
    char *stack;             /* trace: where the compile came from (dynamo_start's stack, the
                                outermost frame first): "file:line in name", one a line */
    /* trace, with keep_texts: the compile's guards (dynamo_cpp_guards_str), the code Inductor
       generated (inductor_output_code), each up to CGS_DASH_MAX_TEXT bytes, and the shape
       specializations and guards added on symbols (symbolic_shape_specialization, guard_added),
       one a line */
    char *guards, *output_code;
    char *metrics_text;      /* with keep_texts: every field of compilation_metrics as torch
                                wrote it, "name: value" one a line (tlparse's metrics page) */
    struct cgs_buf specializations;
    /* trace: the collectives Inductor scheduled for it (inductor_collective_schedule), in
       order, one operator a line (a training compile's forward then backward) */
    struct cgs_buf collectives;
    uint64_t collectives_line; /* the first inductor_collective_schedule record's line */
    int64_t graph_op_count;  /* -1 when the record does not say */
    bool dynamo_graph;       /* a dynamo_output_graph record was read */
    bool limit_hit;          /* torch's recompile limit refused this compile */
    uint64_t recompile_line; /* the recompile_reasons record's line, 0 none */
};



struct cgs_dash_break { /* one break site: the same reason at the same user line */
    char *compile_id, *reason, *file, *name;
    int64_t line;
    int rank;
    /* the parts of torch's message (NULL when it has none): its title ("Data-dependent
       branching"), explanation, hints (one a line), the graph-break site's link and id */
    char *title, *explanation, *hints, *url, *gb_id;
    /* the user's frame: the innermost frame of the user code traceback outside torch and
       site-packages (NULL when it is the break's own frame, or none) */
    char *user_file, *user_name;
    int64_t user_line;
    uint32_t source;    /* into cgs_dash.sources */
    uint64_t line_no;   /* the first record's line */
    bool from_restart;  /* an older log's: read from restart reasons and resume frames */
    uint64_t hits;      /* times Dynamo logged it (once per compile that met it) */
    char *compile_ids;  /* every compile that met it, "0/0, 0/1" (capped) */
};

struct cgs_dash_lookup {
    char *compile_id, *cache, *key;
    enum cgs_lookup status;
    char **components; /* "[hash] name: value" as torch logged them */
    uint32_t n_components;
    int rank;
};

/* The components of a's key and b's that differ: fn(ctx, name, its length, a's value, b's
 * value) for each whose hash differs, or that one key lacks (its value NULL there), a's
 * components first and each once. Returns how many. (cache diff, and diff's cache changes.) */
uint32_t cgs_lookup_differs(const struct cgs_dash_lookup *a, const struct cgs_dash_lookup *b,
                            void (*fn)(void *ctx, const char *name, size_t name_len,
                                       const char *a_value, const char *b_value),
                            void *ctx);

struct cgs_dash;
/*
 * Pair each lookup of a with the first lookup of b not yet paired that has the same rank,
 * compile id and cache, in order, in time linear in the lookups: partner[i] (a's n_lookups) is
 * the index into b->lookups or UINT32_MAX, used[k] (b's n_lookups) whether b's k-th is paired.
 * b's lookups of rank rank_b count as rank rank_a's (two logs of one rank each, different
 * ranks; rank_b -1: none). cid, when given, names the compile of b that a's lookup pairs with
 * (NULL back: it stays unpaired); else a's own compile id. a or b may be NULL (no lookup).
 * (cache diff, and diff's cache changes.)
 */
void cgs_lookups_pair(const struct cgs_dash *a, const struct cgs_dash *b, int rank_a, int rank_b,
                      const char *(*cid)(void *ctx, const struct cgs_dash_lookup *x), void *ctx,
                      uint32_t *partner, bool *used);

/* A graph a TORCH_TRACE record carries (kept only with keep_graphs): its printed Python. */
struct cgs_dash_graph {
    char *compile_id; /* "0/0", "!0/1/0" */
    int attempt;      /* the record's attempt; of several, the last is kept */
    bool backward;    /* a post_grad graph after the compile's forward one: the backward's */
    int occurrence;   /* 1, or 2, 3, ... when the log holds the compile id again (a
                         torch._dynamo.reset() numbers compiles from 0/0 anew) */
    int rank;
    const char *stage; /* "dynamo", "post_grad", "aot_forward", "aot_backward",
                          "aot_inference", "aot_joint" (static strings) */
    char *text;        /* the payload, tabs stripped */
    uint32_t source;   /* into cgs_dash.sources */
    uint64_t line;     /* the record's line in its file */
    int run;           /* the source's run of compile ids (cgs_feed.run) the record was in */
};

/* What create_symbol records said of a size symbol, for one compile. */
struct cgs_dash_symbol {
    char *compile_id, *name;
    int rank;
    uint32_t source; /* into cgs_dash.sources */
    int run;         /* the source's run of compile ids: a reset's compile 0/0 is another's */
    bool has_hint, has_min, has_max;
    int64_t hint, min, max;
};

struct cgs_dash_entry { /* one compile-cache index entry */
    bool dynamic;
    int64_t runtime_shape, graph_index, restart_analysis_count;
    char *backend, *key, *path;
};

struct cgs_dash {
    struct cgs_dash_row **rows;   /* in order of first appearance */
    uint32_t n_rows, alloc_rows;
    struct cgs_dash_cache *caches;
    uint32_t n_caches, alloc_caches;
    struct cgs_dash_break *breaks;
    uint32_t n_breaks, alloc_breaks;
    struct cgs_dash_graph *graphs; /* kept only with keep_graphs, in order of first record */
    uint32_t n_graphs, alloc_graphs;
    struct cgs_strmap *graph_index; /* private: a compile's (and stage's) latest graph */
    char **graph_keys;              /* private: graph_index's keys */
    uint32_t n_graph_keys, alloc_graph_keys;
    struct cgs_dash_symbol *symbols; /* kept only with keep_graphs */
    uint32_t n_symbols, alloc_symbols;
    bool keep_graphs;
    struct cgs_dash_lookup *lookups; /* kept only with keep_lookups */
    uint32_t n_lookups, alloc_lookups;
    struct cgs_dash_entry *entries;
    uint32_t n_entries, alloc_entries;
    bool keep_lookups;
    bool keep_texts; /* each compile's guards, generated code and specializations (the page's) */
    char **sources;        /* the names of the files rows came from, in order of first row */
    uint32_t n_sources, alloc_sources;
    uint64_t events;       /* records read (event lines, trace records, index entries) */
    uint64_t bad_lines;
    char first_bad[256];   /* "file:line: why" of the first bad line */
    uint64_t compiles;     /* the rows' compiles added up */
    uint64_t recompiles;   /* the rows' recompiles added up */
    uint64_t captures;     /* CUDA graph captures (the rows' added up) */
    uint64_t graph_breaks; /* break records (the sites' hits added up) */
    uint64_t piece_runs;
    double first_ts, last_ts;
    struct cgs_strmap *row_index; /* row key -> row */
    char **keys;                  /* the row keys (the map borrows them) */
    uint32_t n_keys, alloc_keys;
};

void cgs_dash_init(struct cgs_dash *d);
void cgs_dash_release(struct cgs_dash *d);
/* Forget everything read (a followed file was truncated or replaced: it is read again). */
void cgs_dash_reset(struct cgs_dash *d);

/* The per-source reading state. */
struct cgs_jbump;
struct cgs_feed {
    enum cgs_src_kind kind; /* UNKNOWN until the first line tells */
    const char *name;       /* the source's name in messages (borrowed) */
    uint64_t records;       /* records read from it (lines, trace records, index entries) */
    int rank;               /* from the file name (rank_N), -1 when none */
    uint64_t line_no;
    int run;                /* the run of compile ids being read (1, then 2 after a reset) */
    uint64_t break_records; /* dynamo_graph_break_reason records read */
    char *line;             /* a line not yet ended by '\n' */
    size_t line_len, line_alloc;
    bool skipping;          /* inside an over-long line */
    bool cut_end;           /* reading the file's last line, which no newline ends */
    bool too_big;           /* an index past CGS_DASH_MAX_PAYLOAD: none of it is read */
    /* trace: the record waiting for its payload lines, its tree made in rec (a record's
       region, dropped whole when the record is read: no cJSON_Delete walk, no free an item) */
    cJSON *pending;
    struct cgs_jbump *rec;
    uint64_t pending_line; /* the pending record's line */
    char *payload;
    size_t payload_len, payload_alloc;
    bool payload_over;
    /* cache index: the whole text (parsed at flush) */
    char *text;
    size_t text_len, text_alloc;
    /* trace: the file names of its {"str": [name, index]} records, by index (frames name them) */
    char **strs;
    size_t n_strs;
};

void cgs_feed_init(struct cgs_feed *f, const char *name, enum cgs_src_kind kind);
void cgs_feed_release(struct cgs_feed *f);
/* The rank a per-rank log's name carries ("..._rank_3_..." -> 3), or -1. */
int cgs_rank_from_name(const char *name);
/* The kind a file's name or first bytes say; CGS_SRC_UNKNOWN when they say nothing. */
enum cgs_src_kind cgs_src_kind_guess(const char *name, const char *head, size_t len);

void cgs_feed_data(struct cgs_dash *d, struct cgs_feed *f, const char *data, size_t len);
/* End what is pending: a trace record waiting for payload, a last line without '\n', a
   cache index's text (parsed now: a bad one is one bad line with its place). */
void cgs_feed_flush(struct cgs_dash *d, struct cgs_feed *f);

/* The writer is quiet: end a pending trace record and parse a cache index's text, but keep
   a line without '\n' (it is being written). */
void cgs_feed_idle(struct cgs_dash *d, struct cgs_feed *f);

/* Read a whole file into d (kind guessed when UNKNOWN); 0, or -1 with err filled (I/O). */
int cgs_dash_read_file(struct cgs_dash *d, const char *path, enum cgs_src_kind kind,
                       struct cgs_diag *err);

/* Decode a recompile_reasons payload: torch writes a JSON list of strings (or one string);
 * the reasons one a line, as a new string. Text that is not JSON is kept as it is. */
char *cgs_dash_decode_reasons(const char *payload);

/* torch's "Hint: ..." lines of a message (each starting a line) before stop (NULL: the end), one
 * a line, new; NULL when none. */
char *cgs_dash_hints(const char *text, const char *stop);
/* The link of torch's "please visit: URL" (a graph break's page), new; NULL when none. */
char *cgs_dash_url(const char *text);
/* "F/C" or "!A/F/C": C, how many times Dynamo compiled the frame before (-1: no such part). */
long cgs_dash_frame_compile(const char *cid);

/* True when id is one of the ", "-separated compile ids in list. */
bool cgs_dash_id_in_list(const char *list, const char *id);

/* Hits / (hits + misses) over every row and cache; -1 when there was no lookup. */
double cgs_dash_hit_rate(const struct cgs_dash *d);
/* The cache called name, NULL when none was seen. */
const struct cgs_dash_cache *cgs_dash_cache(const struct cgs_dash *d, const char *name);

/* ---- the table, as text cells (the TUI and --once share them) ---- */

/*
 * The columns, one table: X(ID, "header", width on a terminal (0: the rest of the line),
 * flags). CGS_DASH_SORTS: the live view sorts by it (largest first); CGS_DASH_ONCE: top
 * --once prints it; CGS_DASH_MULTI: shown only when rows come from more than one file.
 * A new column is a line here, its cell in cgs_dash_row_cell and, when it sorts, its value
 * in dash.c's sort_value.
 */
#define CGS_DASH_SORTS 1u
#define CGS_DASH_ONCE 2u
#define CGS_DASH_MULTI 4u
#define CGS_DASH_COLUMNS(X)                                                                        \
    X(SOURCE, "source", 16, CGS_DASH_ONCE | CGS_DASH_MULTI) /* the file */                     \
    X(RANK, "rank", 4, CGS_DASH_ONCE)                                                             \
    X(KEY, "graph", 9, CGS_DASH_ONCE | CGS_DASH_SORTS) /* graph_index, or the compile id */     \
    X(SHAPE, "shape", 7, CGS_DASH_ONCE)                                                           \
    X(BACKEND, "backend", 8, CGS_DASH_ONCE)                                                       \
    X(HITS, "hits", 6, CGS_DASH_ONCE | CGS_DASH_SORTS)                                            \
    X(MISSES, "miss", 6, CGS_DASH_ONCE | CGS_DASH_SORTS)                                          \
    X(BYPASS, "byp", 4, CGS_DASH_ONCE)                                                            \
    X(RATE, "hit%", 16, CGS_DASH_ONCE | CGS_DASH_SORTS)                                           \
    X(COMPILES, "compiles", 8, CGS_DASH_ONCE | CGS_DASH_SORTS)                                    \
    X(COMPILE_MS, "compile ms", 10, CGS_DASH_ONCE | CGS_DASH_SORTS)                               \
    X(LAST_MS, "last ms", 9, CGS_DASH_SORTS)                                                      \
    X(RUNS, "runs", 6, CGS_DASH_ONCE | CGS_DASH_SORTS)                                            \
    X(RECOMPILES, "recomp", 6, CGS_DASH_ONCE | CGS_DASH_SORTS)                                    \
    X(CAPTURES, "capt", 4, CGS_DASH_ONCE | CGS_DASH_SORTS) /* CUDA graph captures */           \
    X(AGE, "age", 5, CGS_DASH_SORTS)                                                              \
    X(WHAT, "frame / reason", 0, CGS_DASH_ONCE) /* frame and reason: the last column */

#define CGS_DASH_COL_ENUM_(id, name, width, flags) CGS_DASH_COL_##id,
enum cgs_dash_col { CGS_DASH_COLUMNS(CGS_DASH_COL_ENUM_) CGS_DASH_COL_COUNT };
#undef CGS_DASH_COL_ENUM_

struct cgs_dash_column {
    const char *name;
    int width;
    unsigned flags;
};
extern const struct cgs_dash_column cgs_dash_columns[CGS_DASH_COL_COUNT];
extern const char *const cgs_dash_col_names[CGS_DASH_COL_COUNT];

/* A row's cell as text ("-" when it has none); now (epoch seconds) is for the age. */
void cgs_dash_row_cell(const struct cgs_dash *d, const struct cgs_dash_row *r, enum cgs_dash_col c,
                       double now, char *out, size_t n);
double cgs_dash_row_rate(const struct cgs_dash_row *r); /* -1: no lookups */

/* The rows to show: those with filter in some cell (NULL: all), sorted by a column (largest
   first; CGS_DASH_COL_KEY keeps the order of appearance). *out is the caller's (free). */
uint32_t cgs_dash_view(const struct cgs_dash *d, enum cgs_dash_col sort, const char *filter,
                       double now, const struct cgs_dash_row ***out);

#endif
