/* cgscope cache: compile-cache indexes, why a warm run missed, and cache replay. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/base/arena.h"
#include "lib/run/cachesim.h"
#include "lib/run/dash.h"
#include "lib/readers/file.h"
#include "lib/run/follow.h"
#include "lib/readers/opdecl.h"
#include "lib/passes/shapes.h"
#include "lib/passes/split.h"
#include "tools/cmd.h"
#include "tools/session.h"

static int run(int argc, char **argv);

/* the options run() accepts: --help, the man page, completion and "did you mean" list them */

static const struct cli_opt options[] = {
    CLI_OPT("json", 'j', NULL, "write one JSON document to stdout"),
    CLI_OPT("all", 'a', NULL, "diff: list equal pairs too"),
    CLI_OPT_SUGGEST("split-ops", 's', "OPS", cli_presets_values, "simulate: splitting ops (presets @vllm, @magi, @sdpa)"),
    CLI_OPT("allow-missing-ops", 'A', NULL, "simulate: a splitting op may be absent"),
    CLI_OPT("shapes", 'S', "N,N,...", "simulate: the runtime shapes, in call order"),
    CLI_OPT("compile-sizes", 'c', "N,..", "simulate, magi: shapes compiled on their own"),
    CLI_OPT_ONE_OF("policy", 'p', "P", cgs_cachesim_policy_names, "simulate: magi (default) or megengine"),
    CLI_OPT("symbol", 'y', "SYM", "simulate: the size symbol the shapes bind"),
    CLI_OPT("events", 'e', "FILE", "simulate: write the events (JSON lines) to FILE"),
    CLI_OPT("index", 'I', "FILE",
     "simulate, magi: a warm start from this compile-cache index\n"
     "(its entries load; restart_analysis_count skips first)"),
    CLI_OPT("model", 'm', "NAME",
     "simulate: the model to read from a .pt2 archive holding\n"
     "several"),
    CLI_OPT_END,
};

const struct cmd cmd_cache = {
    .name = "cache",
    .usage = "cgscope cache INDEX [--json]\n"
             "       cgscope cache diff TRACE_A TRACE_B [--json] [--all]\n"
             "       cgscope cache simulate GRAPH --split-ops OPS --shapes N,N,... [--policy "
             "magi|megengine]\n"
             "                      [--compile-sizes N,...] [--symbol SYM] [--index FILE] [--events FILE]\n"
             "                      [--allow-missing-ops] [--model NAME] [--json]",
    .summary = "compile-cache indexes, why a lookup missed, and what a run would hit",
    .help =
        "cgscope cache INDEX lists a MagiCompiler compile-cache index (magi_compile_cache.py,\n"
        "the dict {(runtime_shape, graph_index, backend): (key, path,\n"
        "restart_analysis_count)} its CompilerManager writes; vLLM's has the same shape),\n"
        "read as a Python literal, never run. INDEX may be the cache folder: the index in it\n"
        "or up to three levels down (vLLM's <hash>/rank_0_0/backbone/vllm_compile_cache.py).\n\n"
        "cgscope cache diff TRACE_A TRACE_B pairs the cache lookups of two TORCH_TRACE runs\n"
        "(same rank, compile id and cache, in order; two logs of one rank each, different\n"
        "ranks, pair rank with rank) and, for each pair whose key differs, names\n"
        "the hashed components of the key that differ (a config value, the graph, an input's\n"
        "shape, the torch version), one line each: why the warm run was not warm.\n\n"
        "cgscope cache simulate replays a compile-cache policy over runtime shapes (the\n"
        "values of the graph's first size symbol, or --symbol): magi (default) compiles each\n"
        "compiled piece for the dynamic shape, and again per shape in --compile-sizes;\n"
        "--index replays a warm start from a compile-cache index: its entries load, each\n"
        "after the restart-analysis skips it records (MagiCompiler's loader answers nothing\n"
        "that many times, and Dynamo analyses again). megengine's CompiledOp compiles each\n"
        "op call per key (op, input dtypes, devices,\n"
        "shapes; inputs of at most 7 elements by value, which are marked). It writes the\n"
        "events a run would (--events FILE: then 'cgscope top FILE --once' shows them).\n\n",
    .more =
        "JSON keys: entries [{runtime_shape, graph_index, backend, key, path,\n"
        "restart_analysis_count}]; diff: pairs [{compile_id, cache, a {status, key}, b\n"
        "{status, key}, differs [{component, a, b}]}], unpaired; simulate: lookups, hits,\n"
        "misses, compiles, hit_rate, symbol, value_dependent_keys, restart_skips.\n\n"
        "examples:\n"
        "  cgscope cache samples/magi_compile_cache.py\n"
        "  cgscope cache simulate samples/cgs_transformer_dyn.json --split-ops cgs.attention \\\n"
        "      --shapes 1,2,4,8,2,1 --compile-sizes 1,2\n",
    .run = run,
    .options = options,
};

/* ---- cache INDEX -------------------------------------------------------------------------- */

void cli_cache_entry_write(struct jsonw *w, const struct cgs_dash_entry *en, int depth)
{
    struct jsonw_obj o;
    jsonw_open(w, &o, depth);
    if (en->dynamic)
        jsonw_field_null(w, &o, "runtime_shape");
    else
        jsonw_field_int(w, &o, "runtime_shape", en->runtime_shape);
    jsonw_field_int(w, &o, "graph_index", en->graph_index);
    jsonw_field_str(w, &o, "backend", en->backend);
    jsonw_field_str(w, &o, "key", en->key);
    jsonw_field_str(w, &o, "path", en->path);
    jsonw_field_int(w, &o, "restart_analysis_count", en->restart_analysis_count);
    jsonw_close(w, &o);
}

/* cache INDEX --json's document. */
static void index_write(struct jsonw *w, void *dash)
{
    const struct cgs_dash *d = dash;
    struct jsonw_obj doc;
    cli_doc_open(w, &doc, 0, "cache");
    jsonw_field(w, &doc, "entries");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < d->n_entries; i++) {
        if (i)
            jsonw_sep(w);
        cli_cache_entry_write(w, &d->entries[i], doc.depth + 1);
    }
    jsonw_raw(w, "]", 1);
    jsonw_close(w, &doc);
}

/* The compile-cache indexes in a cache folder, in it or up to three levels down (vLLM keeps
 * vllm_compile_cache.py in <hash>/rank_0_0/backbone/, MagiCompiler magi_compile_cache.py in
 * its per-model folder), in name order: how many, the first in first (when n > 0). */
static int first_index(const char *path, void *ctx)
{
    char *first = ctx;
    if (!first[0])
        snprintf(first, 4096, "%s", path);
    return 0;
}

/* The compile-cache indexes in a cache folder, up to depth levels down: how many, and the
 * first's path in first (4096 bytes). */
static int find_indexes(const char *dir, int depth, char *first)
{
    first[0] = '\0';
    return cgs_find_named(dir, cgs_cache_index_names, 2, depth, first_index, first);
}

static int list_index(int argc, char **argv, bool json)
{
    struct cgs_dash d;
    struct cgs_diag e = CGS_DIAG_INIT;
    int rc = CGS_EXIT_OK;
    char found[4096];

    if (argc != 1)
        return cli_usage_error(&cmd_cache, argc ? "expected one INDEX" : "missing INDEX");
    {
        /* a cache folder: the index in it */
        struct stat st;
        if (stat(argv[0], &st) == 0 && S_ISDIR(st.st_mode)) {
            int n = find_indexes(argv[0], 3, found);
            if (n == 0)
                return cli_file_error(argv[0], "a folder without a compile-cache index in it "
                                      "(looked for magi_compile_cache.py and "
                                      "vllm_compile_cache.py, up to three levels down)");
            if (n > 1)
                return cli_file_error(argv[0], "a folder with %d compile-cache indexes in it "
                                      "(one per rank and model): give one, e.g. %s", n, found);
            argv[0] = found;
        }
    }
    {
        /* an index being written is empty for a moment (top follows it); here it is an error */
        struct stat st;
        if (stat(argv[0], &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
            return cli_file_error(argv[0], "empty file (expected a compile-cache index: a dict "
                             "{(runtime_shape, graph_index, backend): (key, path, "
                             "restart_analysis_count)}, `{}` when it has no entry)");
    }
    cgs_dash_init(&d);
    if (cgs_dash_read_file(&d, argv[0], CGS_SRC_CACHE_INDEX, &e)) {
        cgs_dash_release(&d);
        return cli_report_diag(&e);
    }
    if (d.bad_lines) {
        rc = cli_error("%s (expected a compile-cache index: a dict {(runtime_shape, "
                       "graph_index, backend): (key, path, restart_analysis_count)})",
                       d.first_bad);
        cgs_dash_release(&d);
        return rc;
    }
    if (json) {
        cli_print_written(index_write, &d);
    } else {
        uint32_t dyn = 0, pieces = 0;
        for (uint32_t i = 0; i < d.n_entries; i++) {
            dyn += d.entries[i].dynamic;
            if (d.entries[i].graph_index + 1 > (int64_t)pieces)
                pieces = (uint32_t)d.entries[i].graph_index + 1;
        }
        printf("%s: %u entr%s, %u compiled piece%s, %u dynamic-shape artifact%s\n\n", argv[0],
               d.n_entries, d.n_entries == 1 ? "y" : "ies", pieces, PLURAL(pieces), dyn,
               PLURAL(dyn));
        printf("%-8s %-6s %-10s %-8s %s\n", "shape", "graph", "backend", "restarts", "key / path");
        for (uint32_t i = 0; i < d.n_entries; i++) {
            const struct cgs_dash_entry *en = &d.entries[i];
            char shape[32];
            if (en->dynamic)
                snprintf(shape, sizeof(shape), "dynamic");
            else
                snprintf(shape, sizeof(shape), "%lld", (long long)en->runtime_shape);
            printf("%-8s %-6lld %-10s %-8lld %s\n%37s%s\n", shape, (long long)en->graph_index,
                   en->backend, (long long)en->restart_analysis_count, en->key, "", en->path);
        }
    }
    cgs_dash_release(&d);
    return rc;
}

/* ---- cache diff --------------------------------------------------------------------------- */

static const char *const status_names[] = {"hit", "miss", "bypass"};

static void short_value(const char *v, char *out, size_t n)
{
    size_t k = strcspn(v, "\n");
    if (k > 100)
        snprintf(out, n, "%.97s...", v);
    else
        snprintf(out, n, "%.*s", (int)k, v);
}

struct differing_ctx {
    struct jsonw *w; /* --json: the "differs" array's items written here */
    int depth;
    bool first;
    bool print;
};

static void one_differing(void *ctx, const char *nm, size_t nl, const char *a, const char *b)
{
    struct differing_ctx *c = ctx;
    char va[128], vb[128], name[256];
    snprintf(name, sizeof(name), "%.*s", (int)(nl < 250 ? nl : 250), nm);
    short_value(a ? a : "(absent)", va, sizeof(va));
    short_value(b ? b : "(absent)", vb, sizeof(vb));
    if (c->print)
        printf("    %s: %s  ->  %s\n", name, va, vb);
    if (c->w) {
        struct jsonw_obj o;
        if (!c->first)
            jsonw_sep(c->w);
        c->first = false;
        jsonw_open(c->w, &o, c->depth);
        jsonw_field_str(c->w, &o, "component", name);
        jsonw_field_str(c->w, &o, "a", va);
        jsonw_field_str(c->w, &o, "b", vb);
        jsonw_close(c->w, &o);
    }
}

/* The components of a and b that differ, as (name, a value, b value): printed, and written
 * into w (when given) as the items of an array at depth. */
static uint32_t differing(const struct cgs_dash_lookup *a, const struct cgs_dash_lookup *b,
                          struct jsonw *w, int depth, bool print)
{
    struct differing_ctx c = {w, depth, true, print};
    return cgs_lookup_differs(a, b, one_differing, &c);
}

static int read_trace(struct cgs_dash *d, const char *path)
{
    struct cgs_follow f;
    struct stat st;
    const char *roots[1] = {path};
    int rc;
    if (!cgs_path_is_stdin(path) && stat(path, &st))
        return cli_file_error(path, "cannot open: %s", strerror(errno));
    d->keep_lookups = true;
    cgs_follow_init(&f, roots, 1, d);
    f.blocking = true;
    cgs_follow_poll(&f);
    cgs_follow_finish(&f);
    rc = cli_sources_read(&f, 1u << CGS_SRC_TRACE, "a TORCH_TRACE log");
    cgs_follow_release(&f);
    if (!rc && !d->n_lookups)
        cli_file_warn(path, "no cache lookup logged (is it a TORCH_TRACE log of a torch.compile run?)");
    return rc;
}

/* The one rank of a log's lookups, -1 when it has none or several. */
static int only_rank(const struct cgs_dash *d)
{
    int r = -2;
    for (uint32_t i = 0; i < d->n_lookups; i++) {
        if (d->lookups[i].rank < 0 || (r != -2 && r != d->lookups[i].rank))
            return -1;
        r = d->lookups[i].rank;
    }
    return r < 0 ? -1 : r;
}

static int diff(int argc, char **argv, bool json, bool all)
{
    struct cgs_dash A, B;
    int rc, ra, rb;
    uint32_t shown = 0, n_differ = 0, unpaired = 0;
    struct jsonw w;
    struct jsonw_obj doc, o = {0, false}, x;
    bool *used;
    uint32_t *partner; /* partner[i]: the lookup of B paired with A's i-th, UINT32_MAX none */

    if (argc != 2)
        return cli_usage_error(&cmd_cache, "diff wants two TORCH_TRACE logs: TRACE_A TRACE_B");
    cgs_dash_init(&A);
    cgs_dash_init(&B);
    if ((rc = read_trace(&A, argv[0])) || (rc = read_trace(&B, argv[1]))) {
        cgs_dash_release(&A);
        cgs_dash_release(&B);
        return rc;
    }
    /* pair each lookup of A with the first free one of B of the same rank, compile id and
       cache, once: the summary and the blocks both read the pairing. Two logs of one rank
       each, different ranks (rank 0's against rank 3's), pair rank with rank. */
    ra = only_rank(&A);
    rb = only_rank(&B);
    if (ra >= 0 && rb >= 0 && ra != rb && !json)
        printf("rank %d (A) against rank %d (B): lookups paired rank with rank\n", ra, rb);
    used = cgs_xcalloc(B.n_lookups + 1, 1);
    partner = cgs_xcalloc(A.n_lookups + 1, sizeof(*partner));
    cgs_lookups_pair(&A, &B, ra, ra >= 0 && ra != rb ? rb : -1, NULL, NULL, partner, used);
    if (!json) { /* the summary first: how many pairs, how many differ, how many alone */
        uint32_t paired = 0, differ = 0;
        for (uint32_t i = 0; i < A.n_lookups; i++) {
            const struct cgs_dash_lookup *a = &A.lookups[i];
            if (partner[i] == UINT32_MAX)
                continue;
            paired++;
            differ += !(a->key && B.lookups[partner[i]].key &&
                        !strcmp(a->key, B.lookups[partner[i]].key));
        }
        printf("%u lookup%s in A, %u in B: %u paired (same compile id and cache), %u with a "
               "different key, %u without a partner\n", A.n_lookups, PLURAL(A.n_lookups),
               B.n_lookups, paired, differ, A.n_lookups + B.n_lookups - 2 * paired);
        if (differ || all)
            printf("\n");
    }
    if (json) { /* written as the pairs are compared */
        cli_json_out_begin(&w);
        cli_doc_open(&w, &doc, 0, "cache-diff");
        jsonw_field(&w, &doc, "pairs");
        jsonw_raw(&w, "[", 1);
    }
    for (uint32_t i = 0; i < A.n_lookups; i++) {
        const struct cgs_dash_lookup *a = &A.lookups[i];
        const struct cgs_dash_lookup *b = partner[i] == UINT32_MAX ? NULL : &B.lookups[partner[i]];
        if (!b) {
            unpaired++;
            continue;
        }
        bool same = a->key && b->key && !strcmp(a->key, b->key);
        if (same && !all)
            continue;
        n_differ += !same;
        if (!json) {
            printf("%s %s: %s in A, %s in B%s\n", a->compile_id, a->cache, status_names[a->status],
                   status_names[b->status], same ? " (same key)" : "; the key differs in:");
        }
        if (json) {
            if (shown)
                jsonw_sep(&w);
            jsonw_open(&w, &o, doc.depth + 1);
            jsonw_field_str(&w, &o, "compile_id", a->compile_id);
            jsonw_field_str(&w, &o, "cache", a->cache);
            jsonw_field(&w, &o, "a");
            jsonw_open(&w, &x, o.depth);
            jsonw_field_str(&w, &x, "status", status_names[a->status]);
            if (a->key)
                jsonw_field_str(&w, &x, "key", a->key);
            jsonw_close(&w, &x);
            jsonw_field(&w, &o, "b");
            jsonw_open(&w, &x, o.depth);
            jsonw_field_str(&w, &x, "status", status_names[b->status]);
            if (b->key)
                jsonw_field_str(&w, &x, "key", b->key);
            jsonw_close(&w, &x);
            jsonw_field(&w, &o, "differs");
            jsonw_raw(&w, "[", 1);
        }
        if (!same && !differing(a, b, json ? &w : NULL, o.depth + 1, !json) && !json)
            printf("    (no component differs: the keys hash something torch did not log)\n");
        if (json) {
            jsonw_raw(&w, "]", 1);
            jsonw_close(&w, &o);
        }
        shown++;
    }
    for (uint32_t k = 0; k < B.n_lookups; k++)
        unpaired += !used[k];
    if (json) {
        jsonw_raw(&w, "]", 1);
        jsonw_field_num(&w, &doc, "unpaired", unpaired);
        jsonw_close(&w, &doc);
        cli_json_out_end(&w);
    } else {
        if (!n_differ)
            printf("every paired lookup has the same key in both runs (%u lookup%s in A, %u in "
                   "B)\n", A.n_lookups, PLURAL(A.n_lookups), B.n_lookups);
        if (unpaired)
            printf("%u lookup%s without a partner in the other run (a compile id or a cache only "
                   "one run has: the runs compiled different frames, or one more often)\n",
                   unpaired, PLURAL(unpaired));
    }
    free(used);
    free(partner);
    cgs_dash_release(&A);
    cgs_dash_release(&B);
    return CGS_EXIT_OK;
}

/* ---- cache simulate --------------------------------------------------------------------- */

static int parse_ints(const char *s, int64_t **out, size_t *n)
{
    struct cli_list l = CLI_LIST_INIT;
    cli_list_add_csv(&l, s);
    *out = cgs_xcalloc(l.n ? l.n : 1, sizeof(**out));
    *n = 0;
    for (size_t i = 0; i < l.n; i++) {
        unsigned long v;
        if (!cli_parse_uint(l.items[i], &v) || v > (1UL << 62)) {
            cli_list_release(&l);
            return -1;
        }
        (*out)[(*n)++] = (int64_t)v;
    }
    cli_list_release(&l);
    return 0;
}

static int write_events(const char *path, const struct cgs_cachesim *s, const char *backend)
{
    struct cgs_buf b = CGS_BUF_INIT;
    struct timespec t;
    int rc;
    static const char *const names[] = {"cache_miss", "cache_hit", "compile_end", "cache_miss"};
    clock_gettime(CLOCK_REALTIME, &t);
    struct jsonw w;
    jsonw_init(&w, jsonw_to_buf, &b);
    w.compact = true; /* one event a line, as the bridge writes them */
    for (size_t i = 0; i < s->n_events; i++) {
        const struct cgs_cachesim_event *e = &s->events[i];
        struct jsonw_obj o;
        jsonw_open(&w, &o, 0);
        jsonw_field_num(&w, &o, "ts", (double)t.tv_sec + (double)i * 1e-6);
        jsonw_field_str(&w, &o, "event", names[e->kind]);
        jsonw_field_num(&w, &o, "graph_index", (double)e->graph_index);
        if (e->dynamic)
            jsonw_field_null(&w, &o, "runtime_shape");
        else
            jsonw_field_num(&w, &o, "runtime_shape", (double)e->runtime_shape);
        jsonw_field_str(&w, &o, "backend", backend);
        jsonw_field_str(&w, &o, "key", e->key);
        if (e->kind == CGS_SIM_COMPILE)
            jsonw_field_num(&w, &o, "ms", 0);
        jsonw_field_str(&w, &o, "piece", e->piece);
        jsonw_field_bool(&w, &o, "simulated", true);
        if (e->kind == CGS_SIM_SKIP)
            jsonw_field_bool(&w, &o, "restart_skip", true);
        jsonw_close(&w, &o);
        jsonw_raw(&w, "\n", 1);
    }
    jsonw_finish(&w); /* the sink is memory: it cannot fail */
    rc = cli_write_file(path, b.buf, b.len);
    cgs_buf_release(&b);
    return rc;
}

/* cache simulate's arguments. */
struct sim_args {
    struct cli_list ops;
    struct cgs_cachesim_opts o;
    const char *index_path, *events, *model;
    int64_t *shapes, *sizes;
    size_t n_shapes, n_sizes;
    bool json, allow_missing;
};

static int simulate_args(int argc, char **argv, struct sim_args *a)
{
    int c;
    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_cache, argc, argv)) != -1) {
        switch (c) {
        case 's':
            if (cli_split_ops_add(&a->ops, optarg))
                return CGS_EXIT_BAD_INPUT;
            break;
        case 'S':
            free(a->shapes);
            a->shapes = NULL;
            if (parse_ints(optarg, &a->shapes, &a->n_shapes) || !a->n_shapes)
                return cli_usage_error(&cmd_cache, "--shapes wants sizes like 1,2,4,8, got '%s'",
                                       optarg);
            break;
        case 'c':
            free(a->sizes);
            a->sizes = NULL;
            if (parse_ints(optarg, &a->sizes, &a->n_sizes))
                return cli_usage_error(&cmd_cache, "--compile-sizes wants sizes like 1,2, got "
                                       "'%s'", optarg);
            break;
        case 'p':
            /* one of the names: cli_getopt refused another */
            a->o.policy = (enum cgs_cachesim_policy)cgs_cachesim_policy_from_name(optarg);
            break;
        case 'y': a->o.symbol = optarg; break;
        case 'e': a->events = optarg; break;
        case 'j': a->json = true; break;
        case 'A': a->allow_missing = true; break;
        case 'm': a->model = optarg; break;
        case 'I': a->index_path = optarg; break;
        case 'a':
            return cli_usage_error(&cmd_cache, "'--all' is an option of 'cgscope cache diff'");
        default: return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_cache, "simulate wants one GRAPH");
    if (!a->n_shapes)
        return cli_usage_error(&cmd_cache, "simulate needs --shapes (the runtime shapes, in call "
                               "order)");
    if (a->o.policy == CGS_CACHESIM_MAGI && !a->ops.n)
        return cli_usage_error(&cmd_cache, "the magi policy needs --split-ops");
    a->o.shapes = a->shapes;
    a->o.n_shapes = a->n_shapes;
    a->o.compile_sizes = a->sizes;
    a->o.n_compile_sizes = a->n_sizes;
    return 0;
}

/* A compile-cache index read into *index: its entries start the simulation warm. */
static int warm_index(const char *path, struct cgs_dash *index, struct cgs_cachesim_opts *o)
{
    struct cgs_diag e = CGS_DIAG_INIT;
    if (cgs_dash_read_file(index, path, CGS_SRC_CACHE_INDEX, &e))
        return cli_report_diag(&e);
    if (index->bad_lines)
        return cli_error("%s (expected a compile-cache index)", index->first_bad);
    o->warm = index->entries;
    o->n_warm = index->n_entries;
    return 0;
}

struct sim_out {
    const struct sim_args *a;
    const struct cgs_cachesim *sim;
};

static void simulate_write(struct jsonw *w, void *ctx)
{
    const struct sim_out *x = ctx;
    const struct cgs_cachesim *sim = x->sim;
    struct jsonw_obj doc;
    cli_doc_open(w, &doc, 0, "cache-simulate");
    jsonw_field_str(w, &doc, "policy", cgs_cachesim_policy_names[x->a->o.policy]);
    jsonw_field_str(w, &doc, "symbol", sim->symbol);
    jsonw_field_num(w, &doc, "lookups", (double)sim->lookups);
    jsonw_field_num(w, &doc, "hits", (double)sim->hits);
    jsonw_field_num(w, &doc, "misses", (double)sim->misses);
    jsonw_field_num(w, &doc, "compiles", (double)sim->compiles);
    if (sim->lookups)
        jsonw_field_num(w, &doc, "hit_rate", (double)sim->hits / (double)sim->lookups);
    else
        jsonw_field_null(w, &doc, "hit_rate");
    jsonw_field_num(w, &doc, "value_dependent_keys", (double)sim->value_dependent_keys);
    jsonw_field_num(w, &doc, "restart_skips", (double)sim->restart_skips);
    if (x->a->events)
        jsonw_field_str(w, &doc, "events", x->a->events);
    jsonw_close(w, &doc);
}

static void simulate_json(const struct sim_args *a, const struct cgs_cachesim *sim)
{
    struct sim_out x = {a, sim};
    cli_print_written(simulate_write, &x);
}

static void simulate_text(const struct sim_args *a, const struct cgs_cachesim *sim)
{
    printf("%s policy over %zu call%s (%s = ", a->o.policy == CGS_CACHESIM_MAGI ? "MagiCompiler's"
           : "MegEngine's CompiledOp", a->n_shapes, PLURAL(a->n_shapes),
           sim->symbol ? sim->symbol : "no symbol");
    for (size_t i = 0; i < a->n_shapes; i++)
        printf("%s%lld", i ? "," : "", (long long)a->shapes[i]);
    printf("): %llu lookup%s, %llu hit%s, %llu miss%s, %llu compile%s; hit rate %.1f%%\n",
           (unsigned long long)sim->lookups, PLURAL(sim->lookups), (unsigned long long)sim->hits,
           PLURAL(sim->hits), (unsigned long long)sim->misses, sim->misses == 1 ? "" : "es",
           (unsigned long long)sim->compiles, PLURAL(sim->compiles),
           sim->lookups ? 100.0 * (double)sim->hits / (double)sim->lookups : 0.0);
    if (sim->restart_skips)
        printf("%llu of the misses are restart-analysis skips of a warm start (the index's "
               "restart_analysis_count)\n", (unsigned long long)sim->restart_skips);
    if (sim->value_dependent_keys)
        printf("%llu op key%s hold inputs of at most 7 elements, keyed by value in MegEngine: "
               "counted as if the values repeat\n",
               (unsigned long long)sim->value_dependent_keys, PLURAL(sim->value_dependent_keys));
    if (a->events)
        printf("events written to %s ('cgscope top %s --once' shows them)\n", a->events,
               a->events);
}

static int simulate(int argc, char **argv)
{
    struct sim_args a = {.ops = CLI_LIST_INIT,
                         .o = {CGS_CACHESIM_MAGI, NULL, 0, NULL, 0, NULL, "inductor", NULL, 0}};
    struct cgs_dash index;
    bool have_index = false;
    int rc;
    struct cgs_graph *g = NULL;
    struct cgs_split *sp = NULL;
    struct cgs_shapes *sh = NULL;
    struct cgs_cachesim sim = {0};
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cli_session ss;

    cli_session_init(&ss, NULL);
    if ((rc = simulate_args(argc, argv, &a)))
        goto out;
    ss.path = argv[optind];
    ss.model = a.model;
    ss.ops = a.ops; /* the session's now */
    a.ops = (struct cli_list)CLI_LIST_INIT;
    ss.allow_missing_ops = a.allow_missing;
    ss.reinfer = true;
    if (!(g = cli_session_graph(&ss))) {
        rc = CGS_EXIT_BAD_INPUT;
        goto out;
    }
    if (!g->n_symbols)
        cli_warn("%s has no size symbol (a static graph): every runtime shape runs the same "
                 "artifacts", argv[optind]);
    if (a.o.policy == CGS_CACHESIM_MAGI ? !(sp = cli_session_split(&ss))
                                        : !(sh = cli_session_shapes(&ss))) {
        rc = cli_session_fail(&ss);
        goto out;
    }
    if (a.index_path) {
        cgs_dash_init(&index);
        have_index = true;
        if ((rc = warm_index(a.index_path, &index, &a.o)))
            goto out;
    }
    if (cgs_cachesim_run(g, sp, sh, &a.o, &sim, &d) < 0) {
        cgs_diag_at(&d, argv[optind], 0, 0);
        rc = cli_report_diag(&d);
        goto out;
    }
    if (a.events && write_events(a.events, &sim, a.o.policy == CGS_CACHESIM_MAGI ? "inductor"
                                                                              : "megengine") < 0)
        rc = CGS_EXIT_BAD_INPUT;
    else if (a.json)
        simulate_json(&a, &sim);
    else
        simulate_text(&a, &sim);
out:
    if (have_index)
        cgs_dash_release(&index);
    cgs_cachesim_release(&sim);
    free(a.shapes);
    free(a.sizes);
    cli_list_release(&a.ops);
    cli_session_close(&ss); /* the graph, its split and shapes */
    return rc;
}

/* ---- main -------------------------------------------------------------------------------- */

static int run(int argc, char **argv)
{
    bool json = false, all = false;
    int n = 0;
    char *args[8];

    if (argc >= 2 && !strcmp(argv[1], "simulate"))
        return simulate(argc - 1, argv + 1);
    optind = 0;
    opterr = 0;
    for (int c; (c = cli_getopt(&cmd_cache, argc, argv)) != -1;) {
        if (c == 'j')
            json = true;
        else if (c == 'a')
            all = true;
        else if (c == '?')
            return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
        else
            return cli_usage_error(&cmd_cache, "'%s' is an option of 'cgscope cache simulate'",
                                   argv[optind - 1]);
    }
    for (int i = optind; i < argc; i++) {
        if (n < 8)
            args[n++] = argv[i];
        else
            return cli_usage_error(&cmd_cache, "too many arguments");
    }
    if (n && !strcmp(args[0], "diff"))
        return diff(n - 1, args + 1, json, all);
    return list_index(n, args, json);
}
