/*
 * The graph IR: one torch.fx graph (any stage) as cgscope holds it.
 *
 * Ownership, in one sentence: everything reachable from a struct cgs_graph
 * (nodes, args, values, strings, symbolic expressions, notes, subgraphs and
 * every pass's side tables allocated from g->arena) dies with
 * cgs_graph_free(g); nothing is freed one by one.
 *
 * Nodes are kept in graph order (FX order is a topological order);
 * node->index is the position. Arguments are a tree of struct cgs_arg;
 * values (FX's meta["val"]) a tree of struct cgs_val.
 */
#ifndef CGS_GRAPH_H
#define CGS_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/arena.h"
#include "lib/base/diag.h"
#include "lib/ir/symexpr.h"

/* ---- dtypes ---------------------------------------------------------------- */

enum cgs_dtype {
    CGS_DTYPE_UNKNOWN = 0,
#define DT(e, name, size, kind, export) CGS_DTYPE_##e,
#include "lib/ir/dtype-list.h"
#undef DT
    CGS_DTYPE_COUNT
};

struct cgs_dtype_info {
    const char *name; /* "float32" */
    unsigned itemsize;
    char kind; /* 'B' bool, 'U' unsigned, 'I' int, 'F' float, 'C' complex */
};

extern const struct cgs_dtype_info cgs_dtypes[CGS_DTYPE_COUNT];

/* torch's short name of a dtype, as TORCH_LOGS prints it ("f32", "bf16", "b8"); "?" when
   unknown. Text output and pictures use it. */
const char *cgs_dtype_abbr(enum cgs_dtype dt);

/* CGS_DTYPE_UNKNOWN when the name is not a torch dtype. */
enum cgs_dtype cgs_dtype_from_name(const char *name);

/* ---- arguments (FX node.args / node.kwargs) ---------------------------------- */

enum cgs_arg_kind {
    CGS_ARG_NONE,
    CGS_ARG_BOOL,
    CGS_ARG_INT,
    CGS_ARG_FLOAT, /* also inf, -inf, nan ({"float": "inf"}) */
    CGS_ARG_STR,
    CGS_ARG_LIST, /* list or tuple: items[0..n) */
    CGS_ARG_NODE, /* a use of another node's value */
    CGS_ARG_DTYPE,
    CGS_ARG_DEVICE, /* s = "cuda:0" */
    CGS_ARG_MEMFMT, /* s = "channels_last", "contiguous_format", ... */
    CGS_ARG_LAYOUT, /* s = "strided" */
    CGS_ARG_SLICE,  /* items[0..3): start, stop, step */
    CGS_ARG_ELLIPSIS,
    CGS_ARG_REPR, /* s = Python repr, for display only */
    CGS_ARG_SYM,  /* sym = a symbolic integer (pt2 SymInt arguments) */
    CGS_ARG_DICT, /* {"dict": [[key, value], ...]}: items[0..n), key and value alternating
                     (a triton kernel's kwargs, a HOP's dict of tensors) */
};

struct cgs_node;

struct cgs_arg {
    enum cgs_arg_kind kind;
    uint32_t n : 31;     /* LIST, SLICE, DICT: number of items */
    uint32_t pylist : 1; /* LIST written {"list": [...]}: a Python list where the graph tells
                            lists from tuples (an index of getitem: advanced indexing) */
    union {
        bool b;
        int64_t i;
        double f;
        const char *s;
        struct cgs_arg *items;
        struct cgs_node *node;
        enum cgs_dtype dtype;
        const struct cgs_sym *sym;
    } u;
};

struct cgs_kwarg {
    const char *key;
    struct cgs_arg val;
};

/* ---- values (FX meta["val"]) ----------------------------------------------------- */

enum cgs_val_kind {
    CGS_VAL_NONE, /* None */
    CGS_VAL_TENSOR,
    CGS_VAL_SYMINT,   /* sym, with hint when has_hint */
    CGS_VAL_SYMFLOAT, /* text, with fhint when has_hint */
    CGS_VAL_SYMBOOL,  /* text, with hint (0/1) when has_hint */
    CGS_VAL_INT,
    CGS_VAL_FLOAT,
    CGS_VAL_BOOL,
    CGS_VAL_LIST, /* items[0..n) */
};

/* Unknown rank (partial knowledge); an unknown dim is a NULL entry. */
#define CGS_NDIM_UNKNOWN UINT32_MAX
#define CGS_MAX_NDIM     64

struct cgs_tensor {
    enum cgs_dtype dtype;                 /* CGS_DTYPE_UNKNOWN when unknown */
    uint32_t ndim;                        /* or CGS_NDIM_UNKNOWN */
    const struct cgs_sym **shape;         /* ndim entries, NULL entry = unknown */
    const struct cgs_sym **stride;        /* ndim entries, or NULL when unknown */
    const struct cgs_sym *storage_offset; /* NULL when unknown */
    const char *device;                   /* "cuda:0", "cpu"; NULL when unknown */
    bool requires_grad;
};

struct cgs_val {
    enum cgs_val_kind kind;
    uint32_t n; /* LIST: number of items */
    bool has_hint;
    union {
        struct cgs_tensor t;
        struct {
            const struct cgs_sym *sym; /* SYMINT */
            const char *text;          /* SYMFLOAT, SYMBOOL */
            int64_t hint;
            double fhint;
        } s;
        int64_t i;
        double f;
        bool b;
        struct cgs_val *items;
    } u;
};

/* ---- nodes --------------------------------------------------------------------- */

enum cgs_node_op {
    CGS_NODE_PLACEHOLDER,
    CGS_NODE_GET_ATTR,
    CGS_NODE_CALL_FUNCTION,
    CGS_NODE_CALL_METHOD,
    CGS_NODE_CALL_MODULE,
    CGS_NODE_OUTPUT,
    CGS_NODE_OP_COUNT
};

extern const char *const cgs_node_op_names[CGS_NODE_OP_COUNT];

struct cgs_node {
    uint32_t index; /* position in graph order */
    enum cgs_node_op op;
    const char *name;   /* unique in its graph */
    const char *target; /* interned: equal targets share the pointer */
    struct cgs_arg *args;
    uint32_t n_args;
    struct cgs_kwarg *kwargs;
    uint32_t n_kwargs;
    struct cgs_val *val;                                 /* NULL when unknown */
    /* NULL when absent; stack_trace is read through cgs_node_stack_trace (a graph read from
     * a file keeps it undecoded, stack_raw, until something asks) */
    const char *stack_trace, *module_path, *module_type;
    const char *stack_raw; /* the JSON string (quotes included) in the mapped file, or NULL */
    /* the piece a compiler put the node in, where the graph records it (the split graph of a
     * vLLM/MagiCompiler cache folder, inlined: "submod_1"); NULL when it does not */
    const char *piece;
    uint32_t stack_raw_len;
    /* distinct nodes this one uses, in order of first use in args then kwargs
     * (FX's all_input_nodes) */
    struct cgs_node **inputs;
    uint32_t n_inputs;
    /* distinct nodes using this one, in graph order (FX's node.users) */
    struct cgs_node **users;
    uint32_t n_users;
    uint64_t src_offset; /* byte offset of the node in its source file */
    int32_t pt2_kind;    /* placeholders of a .pt2: enum cgs_pt2_kind, else 0 */
    /* call nodes: the operator registry entry of target (enum cgs_op, lib/ops/ops.h), resolved
     * once when the graph is linked; 0 (CGS_OP_UNKNOWN) when the registry has none */
    uint32_t op_id;
};

/*
 * Module state: what a node holds when it is not a user's input. One answer for every pass and
 * picture. A .pt2 says it in its signature; Dynamo names the placeholders it lifts from the
 * module by their source (L['self']._modules['bn']._buffers['running_mean'] becomes
 * l_self_modules_bn_buffers_running_mean_; a plain tensor attribute L['self'].scale becomes
 * l_self_scale); get_attr reads a constant of the graph module.
 */
enum cgs_state_kind {
    CGS_STATE_NONE,      /* a user input, or not a placeholder / get_attr */
    CGS_STATE_PARAMETER, /* a parameter (static: its address never changes) */
    CGS_STATE_BUFFER,    /* a registered buffer (static) */
    CGS_STATE_CONSTANT,  /* a tensor constant: get_attr, or a .pt2's lifted constant */
    CGS_STATE_ATTRIBUTE, /* another tensor attribute of the module (not static for Dynamo) */
};
enum cgs_state_kind cgs_node_state(const struct cgs_node *n);

/* ---- the graph ------------------------------------------------------------------ */

enum cgs_stage {
    CGS_STAGE_UNKNOWN,
    CGS_STAGE_DYNAMO,
    CGS_STAGE_AOT_FORWARD,
    CGS_STAGE_AOT_BACKWARD,
    CGS_STAGE_AOT_JOINT,
    CGS_STAGE_POST_GRAD,
    CGS_STAGE_EXPORT,
    CGS_STAGE_OTHER,
    CGS_STAGE_COUNT
};

extern const char *const cgs_stage_names[CGS_STAGE_COUNT];

struct cgs_symbol {
    const char *name;
    const struct cgs_sym *sym; /* the VAR expression */
    bool has_hint, has_min, has_max;
    int64_t hint, min, max;
    /* a SymFloat (torch's "zf0": a Python float argument of a dynamic graph): its hint is a
       float (fhint; has_hint stays false, so integer sizes never evaluate with it) */
    bool is_float, has_fhint;
    double fhint;
};

enum cgs_note_level { CGS_NOTE_INFO, CGS_NOTE_WARNING, CGS_NOTE_ERROR };

/* A non-fatal diagnostic: the analysis went on. */
struct cgs_note {
    enum cgs_note_level level;
    int code;                    /* enum cgs_err */
    const struct cgs_node *node; /* NULL when about the whole graph */
    const char *msg;
};

struct cgs_strmap; /* name -> pointer hash map (lib/ir/graph.c) */

/*
 * torch.export graph signature (filled by the .pt2 reader, empty otherwise):
 * what each placeholder is (node->pt2_kind holds the same kind) and what each
 * returned value is. Kinds follow torch.export's InputSpec / OutputSpec.
 */
enum cgs_pt2_kind {
    CGS_PT2_NONE = 0, /* not from a .pt2 signature */
    CGS_PT2_USER_INPUT,
    CGS_PT2_PARAMETER,
    CGS_PT2_BUFFER,
    CGS_PT2_TENSOR_CONSTANT,
    CGS_PT2_CUSTOM_OBJ,
    CGS_PT2_TOKEN,
    CGS_PT2_CONSTANT_INPUT, /* a user input that is a Python constant */
    CGS_PT2_USER_OUTPUT,
    CGS_PT2_LOSS_OUTPUT,
    CGS_PT2_BUFFER_MUTATION, /* the output is the new value of buffer `target` */
    CGS_PT2_PARAMETER_MUTATION,
    CGS_PT2_GRADIENT_TO_PARAMETER,
    CGS_PT2_GRADIENT_TO_USER_INPUT,
    CGS_PT2_USER_INPUT_MUTATION,
    CGS_PT2_OUTPUT_TOKEN,
    CGS_PT2_UNKNOWN, /* a spec kind this reader does not know */
    CGS_PT2_KIND_COUNT
};

struct cgs_sig_spec {
    enum cgs_pt2_kind kind;
    const char *arg;       /* the value's node name; NULL for a constant */
    const char *target;    /* parameter / buffer / constant / input name; NULL if none */
    int persistent;        /* buffers: 1 or 0; -1 otherwise */
    struct cgs_node *node; /* the placeholder, or the node whose value is returned */
};

struct cgs_graph {
    struct cgs_arena *arena;  /* shared with subgraphs; owned by the root */
    struct cgs_symctx *syms;  /* shared with subgraphs */
    struct cgs_graph *parent; /* NULL for the root */
    const char *file;         /* source path, for messages */
    const char *name;
    struct {
        const char *tool, *version;
        const char *compile_id; /* Dynamo's compile id of the graph ("0/0"), or NULL */
        enum cgs_stage stage;
        int is_inference, is_backward; /* 1, 0, or -1 when not said */
    } producer;

    struct cgs_node **nodes;
    uint32_t n_nodes, alloc_nodes;

    struct cgs_symbol *symbols;
    uint32_t n_symbols, alloc_symbols;

    /* subgraphs (bodies of higher-order ops), in file order */
    const char **subgraph_names;
    struct cgs_graph **subgraphs;
    uint32_t n_subgraphs, alloc_subgraphs;

    struct cgs_note *notes;
    uint32_t n_notes, alloc_notes;

    struct cgs_strmap *by_name;     /* private: node lookup */
    struct cgs_strmap *strings;     /* private: interned strings */
    struct cgs_strmap *stack_texts; /* private, root: a stack trace's JSON text -> its text */
    struct {                        /* private, root: JSON texts read, by address (hashed) */
        const char *raw, *text;
    } stack_recent[64];
    /* private, root: a stack trace's JSON text (quotes included, checked by the loader that
       kept it) decoded into a malloc'd text, or NULL; given by that loader */
    char *(*stack_decode)(const char *raw, size_t len);
    struct cgs_arena arena_storage; /* root only */
    struct cgs_symctx syms_storage; /* root only */

    /* torch.export signature (.pt2 only; arrays in the arena), in graph input
     * and output order */
    struct cgs_sig_spec *sig_inputs, *sig_outputs;
    uint32_t n_sig_inputs, n_sig_outputs;

    /* root only: the source file mapped into memory while the graph lives (the undecoded
     * stack traces point into it), or NULL */
    void *src_map;
    size_t src_map_len;
};

/* A node of g's stack trace, or NULL: decoded and interned in g the first time it is asked
 * for (g and n change only in that cache, so they may be const to the caller). */
const char *cgs_node_stack_trace(const struct cgs_graph *g, const struct cgs_node *n);

/* A new empty root graph (file and name are copied). */
struct cgs_graph *cgs_graph_new(const char *file, const char *name);
/* A new empty subgraph of parent sharing its arena and symbols. */
struct cgs_graph *cgs_graph_new_subgraph(struct cgs_graph *parent, const char *name);
/* Free a root graph and everything reachable from it. NULL is accepted. */
void cgs_graph_free(struct cgs_graph *g);

/* Intern a string in the graph (equal strings give equal pointers). */
const char *cgs_graph_intern(struct cgs_graph *g, const char *s);

/* Append a node (name and target interned); NULL if the name is taken. */
struct cgs_node *cgs_graph_add_node(struct cgs_graph *g, enum cgs_node_op op, const char *name,
                                    const char *target);

/* Find a node by name; NULL when absent. */
struct cgs_node *cgs_graph_find(const struct cgs_graph *g, const char *name);

/* Find a symbol by name; NULL when absent. */
const struct cgs_symbol *cgs_graph_symbol(const struct cgs_graph *g, const char *name);

/* Add a symbol (name copied); returns it, or the existing one of that name. */
struct cgs_symbol *cgs_graph_add_symbol(struct cgs_graph *g, const char *name);

/* Find a subgraph by name; NULL when absent. */
struct cgs_graph *cgs_graph_subgraph(const struct cgs_graph *g, const char *name);

/*
 * Compute node->inputs and node->users from the args trees (iteratively).
 * Loaders call it once all nodes are in; passes that rewrite args call it again.
 */
void cgs_graph_link(struct cgs_graph *g);

/* Append a non-fatal note (printf-style message, copied into the arena). */
void cgs_graph_note(struct cgs_graph *g, enum cgs_note_level level, int code,
                    const struct cgs_node *node, const char *fmt, ...) CGS_PRINTF(5, 6);

/* Lookup callback for cgs_sym_eval that binds every symbol to its hint (ud = graph). */
int cgs_graph_hint_lookup(void *ud, const char *name, int64_t *v);

/* Stage by name; CGS_STAGE_UNKNOWN when the name is not one of the spec's. */
enum cgs_stage cgs_stage_from_name(const char *name);
/* Node op by name; -1 when unknown. */
int cgs_node_op_from_name(const char *name);

/* Convenience accessors (NULL when absent or of another kind). */
const struct cgs_arg *cgs_node_arg(const struct cgs_node *n, uint32_t i);
const struct cgs_arg *cgs_node_kwarg(const struct cgs_node *n, const char *key);
/* Positional argument i, or else keyword `key` (FX call normalisation). */
const struct cgs_arg *cgs_node_arg_or_kwarg(const struct cgs_node *n, uint32_t i, const char *key);
/* The tensor value of a node (first item when its value is a list); NULL if none. */
const struct cgs_tensor *cgs_node_tensor(const struct cgs_node *n);

#endif
