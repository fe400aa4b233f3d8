/*
 * The command table's entry type and the helpers every command shares.
 * A command is one file, tools/cmd-NAME.c, exporting `const struct cmd
 * cmd_NAME`, plus one line in tools/cmd-list.h.
 */
#ifndef CGS_CMD_H
#define CGS_CMD_H

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/base/diag.h"
#include "lib/ir/graph.h"
#include "lib/writers/jsonw.h"

enum cgs_exit {
    CGS_EXIT_OK = 0,        /* success */
    CGS_EXIT_CHECK = 1,     /* a check failed (a CI gate such as --max-pieces) */
    CGS_EXIT_BAD_INPUT = 2, /* bad input or usage */
};

/*
 * One option of a command: the only place it is described. Parsing (cli_getopt), the
 * "options:" list of --help, the man page's OPTIONS, `cgscope help --options` (what bash and
 * zsh complete), and "did you mean" all read this table (git's parse_options, in the small).
 */
struct cli_opt {
    const char *name; /* the long name, without "--" */
    int val;          /* what cli_getopt returns for it */
    const char *arg;  /* the value's name in help ("N", "FILE"); NULL: the option takes none */
    const char *help; /* what it does ('\n' breaks a line); NULL: an alias of the entry before,
                         listed on its line ("--summary, --quiet") */
    char short_name;  /* also accepted as -X (0: none) */
    /* the values it takes (NULL-terminated; NULL: any): cli_getopt refuses another unless
       open (then they are what completion offers); cli_presets_values: the split-op presets */
    const char *const *values;
    bool open;
};

/* The --split-ops values: the presets of lib/ops/ops.h (cgs_op_presets), "@NAME" each. */
extern const char *const cli_presets_values[];

/* table rows: CLI_OPT("json", 'j', NULL, "write JSON"), CLI_OPT_SHORT('o', "output", 'o',
   "FILE", "write FILE"), and CLI_OPT_END last */
#define CLI_OPT(name, val, arg, help) {(name), (val), (arg), (help), 0, NULL, false}
#define CLI_OPT_SHORT(c, name, val, arg, help) {(name), (val), (arg), (help), (c), NULL, false}
/* an option that takes one of values (refused otherwise), or suggests them (open) */
#define CLI_OPT_ONE_OF(name, val, arg, values, help) {(name), (val), (arg), (help), 0, (values), false}
#define CLI_OPT_SUGGEST(name, val, arg, values, help) {(name), (val), (arg), (help), 0, (values), true}
#define CLI_OPT_END {NULL, 0, NULL, NULL, 0, NULL, false}

/* The values an option takes or suggests, one a line, to f (`cgscope help --values CMD OPT`:
   what the shell completions offer); false when it names none. */
bool cli_print_values(const struct cli_opt *o, FILE *f);

struct cmd {
    const char *name;
    const char *usage;                 /* "cgscope info [--json] GRAPH": every form */
    const char *summary;               /* one line for `cgscope help` */
    const char *help;                  /* --help before the options: what it does */
    const char *more;                  /* --help after the options: JSON keys, examples */
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    const struct cli_opt *options;     /* what run() accepts, ended by a NULL name */
    bool stop_at_operand;              /* options end at the first operand (-- CMD ARGS) */
};

/* Print `cgscope NAME --help` text to f. */
void cli_print_help(const struct cmd *c, FILE *f);

/* The column an option's description starts at in --help (the widest "-x, --name ARG"). */
int cli_option_column(const struct cmd *c);

/*
 * getopt_long over the command's option table: the next option's val, or -1 at the end
 * (optind is then the first operand). A missing value or an unknown option (with the
 * nearest option suggested) is reported on stderr, and '?' returned: the command then exits
 * with CGS_EXIT_BAD_INPUT. optarg holds an option's value.
 */
int cli_getopt(const struct cmd *c, int argc, char **argv);

/* "cgscope NAME: <message>" and the usage line on stderr; returns CGS_EXIT_BAD_INPUT. */
int cli_usage_error(const struct cmd *c, const char *fmt, ...) CGS_PRINTF(2, 3);
/* "unknown option '--splt-ops'; did you mean '--split-ops'?", the nearest from the command's
   option table (cli_usage_error's status) */
int cli_unknown_option(const struct cmd *c, const char *arg);

/* Print "cgscope: <formatted diag>" on stderr; returns CGS_EXIT_BAD_INPUT. */
int cli_report_diag(const struct cgs_diag *d);

/* Print an error line "cgscope: error: ..." on stderr; returns CGS_EXIT_BAD_INPUT. */
int cli_error(const char *fmt, ...) CGS_PRINTF(1, 2);

/* "s" unless n is 1: printf("%u piece%s", n, PLURAL(n)). */
#define PLURAL(n) ((n) == 1 ? "" : "s")

/* A warning line on stderr. */
void cli_warn(const char *fmt, ...) CGS_PRINTF(1, 2);
/* The same about a file, in the voice of every diagnostic: "cgscope: FILE: error: ..." */
int cli_file_error(const char *file, const char *fmt, ...) CGS_PRINTF(2, 3);
void cli_file_warn(const char *file, const char *fmt, ...) CGS_PRINTF(2, 3);

/*
 * Load a graph JSON or .pt2 (model may be NULL); on failure print the
 * error and return NULL (the command then returns CGS_EXIT_BAD_INPUT).
 */
struct cgs_graph *cli_load_graph(const char *path, const char *model);
/* The stage cli_load_graph takes from a TORCH_TRACE log given without a ref (layout sets
 * post_grad before loading; dynamo otherwise). */
extern enum cgs_stage cli_graph_stage;

/*
 * After a one-shot read of followed sources (breaks, top --once, cache diff): warn about every
 * source that gave nothing this command reads, naming what it is; 0 when some record of the
 * kinds in want (bits of enum cgs_src_kind) was read, else an error saying nothing could be
 * and CGS_EXIT_BAD_INPUT. wanted: "a TORCH_TRACE log".
 */
/*
 * A piece as every command writes it in JSON: name, graph_id, is_splitting_graph, nodes (their
 * names), n_nodes, inputs, outputs (names), compile_index (null for a splitting piece).
 * `split --json` adds its own keys to it; `dot` and `shapes` add theirs.
 */
struct cgs_split;
/* They are written into the open object o (without "nodes" when with_nodes is false: the
 * page's, whose node table names each node's piece). */
struct jsonw;
struct jsonw_obj;
void cli_piece_fields(struct jsonw *w, struct jsonw_obj *o, const struct cgs_split *s, uint32_t i,
                      bool with_nodes);

struct cgs_follow;
int cli_sources_read(const struct cgs_follow *f, unsigned want, const char *wanted);

/*
 * Load the operator declarations (lib/readers/opdecl.h): every *.ops file of the folders shipped
 * beside the binary (<bindir>/ops; <bindir>/../ops for build folders in the tree;
 * <bindir>/../share/cgscope/ops when installed), then the files in
 * $CGSCOPE_OPS (':'-separated), then `files` (--ops). A later declaration wins. On a bad
 * file print the error and return CGS_EXIT_BAD_INPUT; 0 otherwise.
 */
struct cgs_opdecls;
int cli_load_opdecls(struct cgs_opdecls *ds, const char *const *files, size_t n_files);

/*
 * Splitting ops that match no node of the graph: an input error (a typo must not let a CI gate
 * pass), printed with "did you mean" and CGS_EXIT_BAD_INPUT returned; with allow_missing, a
 * warning and 0. Ops from a preset (ops, as cli_split_ops_add made it) may be absent one
 * by one, but a preset none of whose ops matches is the same error. Shared by every
 * command that takes --split-ops.
 */
struct cgs_split;
struct cli_list;
int cli_check_split_ops(const struct cgs_split *s, const struct cli_list *ops, const char *graph,
                        bool allow_missing);

/* The JSON documents of split, shapes (its nodes array left empty), layout and top --once,
 * as those commands print them: `cgscope html` puts the same documents in its page. */
struct cgs_shapes;
struct cgs_layout;
struct cgs_follow;
/* split's, written straight into w: each piece without its nodes, input_vals and output_vals
 * (the page's node table says which node is in which piece) */
void cli_split_write_brief(struct jsonw *w, const struct cgs_split *s, int depth);
/* shapes' (its nodes array left empty) of a job's graph (struct cli_job_graph), written
 * straight into w */
struct cli_job_graph;
void cli_shapes_write(struct jsonw *w, const struct cli_job_graph *j, int depth);
/* layout's, written straight into w (its form, cJSON_Print's or compact) */
void cli_layout_write(struct jsonw *w, const struct cgs_layout *l, int depth);
struct cgs_dash;
/* top's, with each compile's graph texts (the page's) when texts is given: read back as a
 * tree, and written straight into w at depth */
cJSON *cli_top_doc(const struct cgs_follow *f, const struct cgs_dash *texts);
void cli_top_write(struct jsonw *w, const struct cgs_follow *f, const struct cgs_dash *texts,
                   int depth);
/* The pieces picture cgscope dot --collapse pieces [--profile P] draws, as SVG (caller frees
 * *svg), from a graph already loaded and split (html draws its pages' pictures with it). */
int cli_dot_pieces_svg(const struct cgs_graph *g, const struct cgs_split *s,
                       const struct cgs_layout *lay, const char *profile_path, const char *label,
                       char **svg, size_t *len);
struct cgs_dash;
cJSON *cli_breaks_doc(const struct cgs_dash *d); /* breaks --json's, read back as a tree */
void cli_breaks_write(struct jsonw *w, void *dash); /* the same written straight */
void cli_breaks_write_at(struct jsonw *w, const struct cgs_dash *d, int depth);
struct cgs_dash_entry;
/* One compile-cache index entry as `cache --json` writes it (split's cache_entries too). */
void cli_cache_entry_write(struct jsonw *w, const struct cgs_dash_entry *en, int depth);

/* A graph that records the pieces its compiler made (a vLLM/MagiCompiler cache folder's split
 * graph) and no --split-ops: the splitting ops those pieces show (cgs_split_recorded_ops) are
 * added to ops, each said on stderr. */
void cli_split_ops_recorded(const struct cgs_graph *g, struct cli_list *ops);
/* After the split: a warning when it puts nodes in other pieces than the recorded ones;
 * returns how many. */
uint32_t cli_split_check_recorded(const struct cgs_split *s);

/* Print the splitting-op presets with their sources and members. */
void cli_print_presets(FILE *f);

/* Print the graph's warnings and errors (notes) on stderr, at most `max` of them. */
void cli_print_notes(const struct cgs_graph *g, unsigned max);

/* cgscope's version ("0.1.0"), and the version of its JSON documents' layout. */
#ifndef CGS_VERSION
#define CGS_VERSION "0.1.0"
#endif
#define CGS_JSON_VERSION 1

/*
 * Every JSON document a command prints is written straight from its model through one writer
 * (lib/writers/jsonw.h), with no tree, and starts with the keys every document has
 * (DESIGN.md): "format" ("cgscope-split"), "version" (CGS_JSON_VERSION) and "cgscope" (the
 * program's version). cli_print_written prints the document write(w, ctx) writes (at depth
 * 0, cJSON_Print's text).
 */
void cli_print_written(void (*write)(struct jsonw *w, void *ctx), void *ctx);
/* A command's document opened at depth with those three keys ("cgscope-" command). */
struct jsonw_obj;
void cli_doc_open(struct jsonw *w, struct jsonw_obj *doc, int depth, const char *command);
/* The names of nodes[0..n), as a JSON array. */
struct cgs_node;
void cli_names_write(struct jsonw *w, const struct cgs_node *const *nodes, uint32_t n);
/* The same for a command that writes its document as it goes: a writer onto stdout, and the
 * document's end (its newline, the buffer flushed). */
void cli_json_out_begin(struct jsonw *w);
void cli_json_out_end(struct jsonw *w);
/* The document write(w, ctx) writes, read back into a tree (for a document that holds it and
 * is still made as a tree, and for the page, which reads some of its documents back): one
 * writer for both. */
cJSON *cli_written_tree(void (*write)(struct jsonw *w, void *ctx), void *ctx);

/*
 * --json was given (set by main before the command runs): the first error is then also
 * written as one JSON object {"error": {"message", "file", "line", "column", "path"}} on
 * standard error when the command ends (cli_flush_json_error).
 */
extern bool cli_json_mode;
void cli_flush_json_error(int status);

/*
 * Output files are written to a temporary file beside the target and
 * renamed over it on success, so a failure never leaves a half-written
 * file. cli_tmp_begin returns the temporary path (caller does not free);
 * cli_tmp_commit renames (0) or reports and unlinks (-1); cli_tmp_abort
 * unlinks. At most one temporary is open at a time; it is removed at exit.
 */
const char *cli_tmp_begin(const char *final_path);
int cli_tmp_commit(void);
void cli_tmp_abort(void);

/* Tell fd (a pipe to a parent) the path of every temporary file this process begins. */
void cli_tmp_notify(int fd);

/* Out of memory: a clear message, the temporary output removed, exit 2 (no allocation). */
_Noreturn void cli_out_of_memory(size_t size);
/* A truncated mapped input (SIGBUS) becomes a message and exit 2; SIGTERM, SIGINT and SIGHUP
 * remove the temporary output before the signal takes its course; SIGXFSZ is ignored (a write
 * past ulimit -f fails with EFBIG and is reported). */
void cli_catch_signals(void);

/* Write len bytes to path atomically (through the temporary); 0 or -1 (reported). A symbolic
 * link at path is followed (the file it points at is replaced), except one another user made
 * in a shared sticky folder such as /tmp, which is refused (fs.protected_symlinks' rule). */
int cli_write_file(const char *path, const void *data, size_t len);
/* The same, refusing a symbolic link at path (files written into a folder cgscope fills). */
int cli_write_file_here(const char *path, const void *data, size_t len);

/*
 * Names from comma-separated option values ("--split-ops a,b --split-ops c"),
 * in order, empty entries skipped; the strings are the list's.
 */
struct cli_list {
    char **items;
    size_t n, alloc;
    unsigned char *preset; /* split ops: 1 + the cgs_op_presets index an item came from, or 0 */
    size_t preset_alloc;
};
#define CLI_LIST_INIT                                                                              \
    {                                                                                              \
        NULL, 0, 0, NULL, 0                                                                        \
    }
void cli_list_add_csv(struct cli_list *l, const char *arg);

/*
 * --split-ops values: like cli_list_add_csv, with "@NAME" expanded to the preset's ops
 * (lib/ops/ops.h cgs_op_presets). An unknown preset is a usage error: printed, and -1.
 */
int cli_split_ops_add(struct cli_list *l, const char *arg);

/* The --split-ops help lines about presets (for a command's --help). */
#define CLI_SPLIT_PRESETS_HELP                                                                     \
    "presets: @vllm (vLLM's default list), @magi (the attention\n"                                \
    "ops MagiCompiler's examples split at), @sdpa (torch's\n"                                     \
    "scaled_dot_product_attention); 'cgscope split --presets'\n"                                  \
    "lists them with their sources"
void cli_list_release(struct cli_list *l);

/* "1.5 KiB", "12.0 MiB", "512 bytes" (binary units; JSON keeps exact bytes) into buf. */
const char *cli_human_bytes(int64_t bytes, char *buf, size_t n);

/*
 * Colour for text on stdout (fd 1) or stderr (fd 2): on a terminal unless NO_COLOR is set
 * (no-color.org) or TERM is dumb; CGSCOPE_COLOR=always|never overrides. cli_paint returns
 * the SGR sequence for a role ("ok", "warn", "bad", "dim", "bold") or "" when colour is
 * off; CLI_RESET ends it.
 */
const char *cli_paint(int fd, const char *role);
#define CLI_RESET(fd) (cli_paint((fd), "reset"))

/* A child's wait status as a shell gives it: its exit status, or 128 + the signal. */
int cli_exit_status(int wait_status);

/* Parse a non-negative integer option value; false on junk. */
bool cli_parse_uint(const char *s, unsigned long *out);

#endif
