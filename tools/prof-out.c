/* The traces of a run, and the report as text and JSON (see prof-out.h). */
#include "tools/prof-out.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/base/arena.h"
#include "lib/readers/file.h"
#include "lib/passes/split.h"
#include "tools/cmd.h"

static int load_one(const char *path, struct cli_prof_set *set, size_t *alloc)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_prof_trace *t;

    CGS_ALLOC_GROW(set->traces, set->n + 1, *alloc);
    t = &set->traces[set->n];
    if (cgs_prof_read(path, t, &d) < 0) {
        cgs_prof_trace_release(t);
        return cli_report_diag(&d);
    }
    set->n++;
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cli_prof_load(const char *const *paths, size_t n, struct cli_prof_set *set)
{
    size_t alloc = 0;

    memset(set, 0, sizeof(*set));
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0)
            return cli_file_error(paths[i], "cannot open: %s", strerror(errno));
        if (!S_ISDIR(st.st_mode)) {
            if (load_one(paths[i], set, &alloc))
                return CGS_EXIT_BAD_INPUT;
            continue;
        }
        DIR *dir = opendir(paths[i]);
        struct dirent *e;
        char **names = NULL;
        size_t nn = 0, names_alloc = 0, found = 0;
        int rc = 0;
        if (!dir)
            return cli_file_error(paths[i], "cannot read the folder: %s", strerror(errno));
        while ((e = readdir(dir))) {
            if (!cgs_path_has_ext(e->d_name, ".cgstrace") &&
                !cgs_path_has_ext(e->d_name, ".cgstrace.part"))
                continue;
            CGS_ALLOC_GROW(names, nn + 1, names_alloc);
            names[nn++] = cgs_xstrdup(e->d_name);
        }
        closedir(dir);
        if (nn)
            qsort(names, nn, sizeof(*names), name_cmp);
        for (size_t k = 0; k < nn && !rc; k++) {
            char path[8192];
            /* a .part next to its finished file (just before it, in name order) is a leftover;
             * a lone one is a process that was killed */
            if (cgs_path_has_ext(names[k], ".part") && k > 0 &&
                strlen(names[k - 1]) == strlen(names[k]) - 5 &&
                !strncmp(names[k - 1], names[k], strlen(names[k - 1])))
                continue;
            snprintf(path, sizeof(path), "%s/%s", paths[i], names[k]);
            if (stat(path, &st) || !S_ISREG(st.st_mode)) {
                /* a FIFO or a device named like a trace: reading it could wait forever */
                cli_file_warn(path, "not a regular file: skipped");
                continue;
            }
            rc = load_one(path, set, &alloc);
            found++;
        }
        for (size_t k = 0; k < nn; k++)
            free(names[k]);
        free(names);
        if (rc)
            return CGS_EXIT_BAD_INPUT;
        if (!found)
            return cli_file_error(paths[i], "no CUPTI trace (*.cgstrace) in this folder; traces come from "
                             "`cgscope profile -o %s -- CMD`", paths[i]);
    }
    return 0;
}

void cli_prof_release(struct cli_prof_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        cgs_prof_trace_release(&set->traces[i]);
    free(set->traces);
    memset(set, 0, sizeof(*set));
}

/* ---- text ----------------------------------------------------------------------------------- */

static const char *fmt_ns(uint64_t ns, char *buf, size_t n)
{
    if (ns >= 10000000000ull)
        snprintf(buf, n, "%.1f s", (double)ns / 1e9);
    else if (ns >= 1000000000ull)
        snprintf(buf, n, "%.2f s", (double)ns / 1e9);
    else if (ns >= 1000000ull)
        snprintf(buf, n, "%.2f ms", (double)ns / 1e6);
    else
        snprintf(buf, n, "%.1f us", (double)ns / 1e3);
    return buf;
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void trace_label(const struct cgs_prof_trace *t, char *buf, size_t n)
{
    if (t->rank >= 0)
        snprintf(buf, n, "rank%d", t->rank);
    else
        snprintf(buf, n, "pid%" PRIu64, t->pid);
}

/* Whether name is a piece of the split: its pieces are "submod_<graph_id>", sorted by id. */
static bool in_split(const struct cgs_split *s, const char *graph_id, const char *name)
{
    char *end;
    long long id;
    uint32_t lo = 0, hi = s->n_pieces;
    size_t part = cgs_prof_graph_part(name);

    if (part) { /* another graph's piece is not this split's */
        if (graph_id && (strlen(graph_id) != part || strncmp(name, graph_id, part)))
            return false;
        name += part + 1;
    }

    if (strncmp(name, "submod_", 7) || name[7] < '0' || name[7] > '9')
        return false;
    id = strtoll(name + 7, &end, 10);
    if (*end)
        return false;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->pieces[mid].graph_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_pieces && s->pieces[lo].graph_id == id && !strcmp(s->pieces[lo].name, name);
}

/* A piece of another graph of the run ("1/0/submod_2" while graph_id is "0/0"): a run with
 * graph breaks profiles every graph's pieces; --graph lists one graph's. */
static bool other_graph(const char *graph_id, const char *name)
{
    size_t part = cgs_prof_graph_part(name);
    return graph_id && part && (strlen(graph_id) != part || strncmp(name, graph_id, part));
}

/* The graphs other_graph() leaves out, ", "-separated, and how many pieces they hold. */
static uint32_t other_graphs(const struct cgs_prof_report *r, const char *graph_id, char *ids,
                             size_t n)
{
    uint32_t k = 0;
    size_t len = 0;
    ids[0] = '\0';
    for (uint32_t i = 0; i < r->n_groups; i++) {
        const char *nm = r->groups[i].name;
        size_t part = cgs_prof_graph_part(nm);
        char id[64];
        if (!other_graph(graph_id, nm))
            continue;
        k++;
        snprintf(id, sizeof(id), "%.*s", (int)(part < 63 ? part : 63), nm);
        if (!strstr(ids, id) && len + strlen(id) + 3 < n)
            len += (size_t)snprintf(ids + len, n - len, "%s%s", len ? ", " : "", id);
    }
    return k;
}

void cli_prof_warn(const struct cli_prof_set *set, const struct cgs_prof_report *r,
                   const struct cgs_split *s, const char *graph_id)
{
    for (size_t i = 0; i < set->n; i++) {
        const struct cgs_prof_trace *t = &set->traces[i];
        if (t->error)
            cli_file_warn(t->file, "the profiler recorded no GPU work: %s", t->error);
        if (t->truncated)
            cli_file_warn(t->file, "incomplete: the file ends inside a record (cut short); what comes "
                     "before it is read");
        else if (!t->complete)
            cli_file_warn(t->file, "incomplete (the process was killed, or is still running): the "
                     "records written so far are read");
        if (t->complete && t->end_reason == 1)
            cli_file_warn(t->file, "the process ended on signal %u (the trace was flushed)",
                     t->signo);
        if (t->dropped)
            cli_file_warn(t->file, "CUPTI dropped %" PRIu64 " activity record%s (its buffers were "
                          "full)", t->dropped, PLURAL(t->dropped));
        if (t->lost)
            cli_file_warn(t->file, "%" PRIu64 " record%s lost (the profiler ran out of memory)",
                          t->lost, PLURAL(t->lost));
    }
    if (r->no_launch)
        cli_warn("%" PRIu64 " GPU record%s have no launch call in the trace (issued before the "
                 "profiler was loaded?); they are counted as unattributed",
                 r->no_launch, PLURAL(r->no_launch));
    if (s) {
        for (uint32_t i = 0; i < r->n_groups; i++) {
            if (!in_split(s, graph_id, r->groups[i].name) &&
                !other_graph(graph_id, r->groups[i].name))
                cli_warn("'%s' ran (%s) but is not a piece of %s's split", r->groups[i].name,
                         r->groups[i].range, s->g && s->g->file ? s->g->file : "the graph");
        }
    }
}

/* per_rank: the traces that get a column (NULL: none does) */
static void row(FILE *f, const struct cgs_prof_report *r, const char *name, int width,
                const struct cgs_prof_group *g, const char *nodes, const bool *per_rank)
{
    char a[32], b[32], c[32], e[32];
    fprintf(f, "%-*s", width, name);
    if (nodes)
        fprintf(f, " %6s", nodes);
    if (!g) {
        fprintf(f, " %6s %8s %10s %6s %10s %10s %7s %7s %7s\n", "-", "-", "-", "-", "-", "-",
                "-", "-", "-");
        return;
    }
    if (g->calls)
        fprintf(f, " %6" PRIu64, g->calls);
    else
        fprintf(f, " %6s", "");
    fprintf(f, " %8" PRIu64 " %10s %5.1f%% %10s %10s %7" PRIu64 " %7" PRIu64 " %7" PRIu64,
            g->kernels.count, fmt_ns(g->kernels.ns, a, sizeof(a)),
            share(g->kernels.ns, r->kernels_total.ns),
            g->calls ? fmt_ns(g->kernels.ns / g->calls, b, sizeof(b)) : "",
            g->calls ? fmt_ns(g->cpu_ns, c, sizeof(c)) : "", g->memcpy.count, g->memset.count,
            g->graph_replays);
    if (per_rank)
        for (uint32_t t = 0; t < r->n_traces; t++)
            if (per_rank[t])
                fprintf(f, " %10s", fmt_ns(g->per_trace[t].ns, e, sizeof(e)));
    fputc('\n', f);
}

static void print_name(FILE *f, const char *name, size_t max)
{
    size_t n = strlen(name);
    if (n <= max)
        fputs(name, f);
    else
        fprintf(f, "%.*s...", (int)(max - 3), name);
}

void cli_prof_print(FILE *f, const struct cli_prof_set *set, const struct cgs_prof_report *r,
                    const struct cli_prof_out *o)
{
    char a[32], b[32], c[32];
    const char *unit = r->by == CGS_PROF_BY_PIECE ? "piece" : "range";
    /* a column per process that launched GPU work (Inductor's compile workers launch none and
     * get none), when there are two to eight */
    bool active[8] = {false}, *per_rank = NULL;
    uint32_t n_active = 0;
    for (uint32_t t = 0; t < r->n_traces && t < set->n; t++)
        if (set->traces[t].n_launches && n_active++ < 8 && t < 8)
            active[t] = true;
    if (n_active > 1 && n_active <= 8 && r->n_traces <= 8)
        per_rank = active;
    uint64_t in_groups = r->kernels_total.ns - r->none.kernels.ns;
    int width = (int)strlen(unit) + 2;
    const struct cgs_split *s = o->split;
    uint32_t never = 0;

    if (!o->brief) {
        for (size_t i = 0; i < set->n && i < 8; i++) {
            const struct cgs_prof_trace *t = &set->traces[i];
            fprintf(f, "%s: pid %" PRIu64, base_name(t->file), t->pid);
            if (t->rank >= 0)
                fprintf(f, ", rank %d", t->rank);
            if (t->cmdline) {
                fputs(", ", f);
                print_name(f, t->cmdline, 60);
            }
            fprintf(f, "%s\n", t->complete ? "" : " (incomplete)");
        }
        if (set->n > 8)
            fprintf(f, "... and %zu more traces\n", set->n - 8);
    }
    fprintf(f, "GPU: %" PRIu64 " kernel%s, %s", r->kernels_total.count,
            PLURAL(r->kernels_total.count), fmt_ns(r->kernels_total.ns, a, sizeof(a)));
    fprintf(f, "; %" PRIu64 " memcpy (%s, %s); %" PRIu64 " memset (%s)\n", r->memcpy_total.count,
            cli_human_bytes((int64_t)r->memcpy_total.bytes, b, sizeof(b)),
            fmt_ns(r->memcpy_total.ns, c, sizeof(c)), r->memset_total.count,
            fmt_ns(r->memset_total.ns, a, sizeof(a)));
    if (r->by == CGS_PROF_BY_PIECE)
        fprintf(f, "%u piece%s (NVTX ranges \"%s...\") hold %.1f%% of the kernel time\n",
                r->n_groups, PLURAL(r->n_groups), r->prefix, share(in_groups,
                                                                    r->kernels_total.ns));
    else
        fprintf(f, "%u NVTX range name%s hold %.1f%% of the kernel time\n", r->n_groups,
                PLURAL(r->n_groups), share(in_groups, r->kernels_total.ns));

    for (uint32_t i = 0; i < r->n_groups; i++)
        if ((int)strlen(r->groups[i].name) + 2 > width)
            width = (int)strlen(r->groups[i].name) + 2;
    if (s)
        for (uint32_t i = 0; i < s->n_pieces; i++)
            if ((int)strlen(s->pieces[i].name) + 5 > width)
                width = (int)strlen(s->pieces[i].name) + 5;
    if (width > 48)
        width = 48;
    fprintf(f, "\n%-*s", width, unit);
    if (s)
        fprintf(f, " %6s", "nodes");
    fprintf(f, " %6s %8s %10s %6s %10s %10s %7s %7s %7s", "calls", "kernels", "GPU time", "share",
            "per call", "CPU time", "memcpy", "memset", "replays");
    if (per_rank)
        for (uint32_t t = 0; t < r->n_traces; t++) {
            char lab[40];
            if (!per_rank[t])
                continue;
            trace_label(&set->traces[t], lab, sizeof(lab));
            fprintf(f, " %10s", lab);
        }
    fputc('\n', f);
    if (s) {
        for (uint32_t i = 0; i < s->n_pieces; i++) {
            char name[160], nodes[16];
            bool amb;
            const struct cgs_prof_group *g =
                cgs_prof_find_piece(r, o->graph_id, s->pieces[i].name, &amb);
            snprintf(name, sizeof(name), "%s%s", s->pieces[i].name,
                     s->pieces[i].is_splitting_graph ? " (op)" : "");
            snprintf(nodes, sizeof(nodes), "%u", s->pieces[i].n_nodes);
            never += !g;
            row(f, r, name, width, g, nodes, per_rank);
        }
        for (uint32_t i = 0; i < r->n_groups; i++) {
            if (!in_split(s, o->graph_id, r->groups[i].name) &&
                !other_graph(o->graph_id, r->groups[i].name))
                row(f, r, r->groups[i].name, width, &r->groups[i], "?", per_rank);
        }
    } else {
        uint32_t shown = r->n_groups;
        if (o->brief && shown > 40)
            shown = 40;
        for (uint32_t i = 0; i < shown; i++)
            row(f, r, r->groups[i].name, width, &r->groups[i], NULL, per_rank);
        if (shown < r->n_groups)
            fprintf(f, "... and %u more (cgscope report)\n", r->n_groups - shown);
    }
    if (r->none.kernels.count || r->none.memcpy.count || r->none.memset.count)
        row(f, r, r->by == CGS_PROF_BY_PIECE ? "(no piece)" : "(no range)", width, &r->none,
            s ? "" : NULL, per_rank);
    if (never)
        fprintf(f, "%u piece%s of the split never ran (no range of %s)\n", never, PLURAL(never),
                never == 1 ? "its name" : "their names");
    if (s) {
        char ids[256];
        uint32_t k = other_graphs(r, o->graph_id, ids, sizeof(ids));
        if (k)
            fprintf(f, "%u piece%s of the run's other graph%s (%s) left out: --graph lists %s's "
                       "(cgscope report without --graph lists them all)\n",
                    k, PLURAL(k), strchr(ids, ',') ? "s" : "", ids, o->graph_id);
    }

    if (!o->brief && r->n_groups) {
        fprintf(f, "\ntop kernels of each %s (share of its GPU time):\n", unit);
        for (uint32_t i = 0; i < r->n_groups && i < 64; i++) {
            const struct cgs_prof_group *g = &r->groups[i];
            if (s && other_graph(o->graph_id, g->name))
                continue; /* --graph: another graph's piece */
            fprintf(f, "%s\n", g->name);
            for (uint32_t k = 0; k < g->n_top && k < 3; k++) {
                fprintf(f, "  %5.1f%% %6" PRIu64 "x  ", share(g->top[k].stat.ns, g->kernels.ns),
                        g->top[k].stat.count);
                print_name(f, r->kernels[g->top[k].kernel].name, 100);
                fputc('\n', f);
            }
            if (g->n_top > 3)
                fprintf(f, "  ... %u more kernel%s\n", g->n_top - 3, PLURAL(g->n_top - 3));
        }
    }
    if (r->n_kernels) {
        uint32_t n = o->brief ? 5 : o->kernels ? o->kernels : r->n_kernels;
        if (n > r->n_kernels)
            n = r->n_kernels;
        fprintf(f, "\nkernels by GPU time (%u of %u):\n", n, r->n_kernels);
        fprintf(f, "%10s %6s %8s %10s %6s  %s\n", "GPU time", "share", "count", "avg",
                r->by == CGS_PROF_BY_PIECE ? "pieces" : "ranges", "name");
        for (uint32_t i = 0; i < n; i++) {
            const struct cgs_prof_kernel *k = &r->kernels[i];
            fprintf(f, "%10s %5.1f%% %8" PRIu64 " %10s %6u  ", fmt_ns(k->stat.ns, a, sizeof(a)),
                    share(k->stat.ns, r->kernels_total.ns), k->stat.count,
                    fmt_ns(k->stat.count ? k->stat.ns / k->stat.count : 0, b, sizeof(b)),
                    k->groups);
            print_name(f, k->name[0] ? k->name : "(unnamed)", 110);
            fputc('\n', f);
        }
    }
}

/* ---- JSON ----------------------------------------------------------------------------------- */

static void stat_field(struct jsonw *w, struct jsonw_obj *o, const char *key,
                       const struct cgs_prof_stat *s)
{
    struct jsonw_obj x;
    jsonw_field(w, o, key);
    jsonw_open(w, &x, o->depth);
    jsonw_field_num(w, &x, "count", (double)s->count);
    jsonw_field_num(w, &x, "bytes", (double)s->bytes);
    jsonw_field_num(w, &x, "gpu_ns", (double)s->ns);
    jsonw_close(w, &x);
}

/* A group's members (a piece's, a range's) into the open object o, named name. */
static void group_fields(struct jsonw *w, struct jsonw_obj *o, const struct cli_prof_set *set,
                         const struct cgs_prof_report *r, const struct cgs_prof_group *g,
                         const char *name)
{
    struct jsonw_obj x;
    jsonw_field_str(w, o, "name", name);
    jsonw_field_str(w, o, "range", g->range);
    jsonw_field_num(w, o, "calls", (double)g->calls);
    jsonw_field_num(w, o, "kernels", (double)g->kernels.count);
    jsonw_field_num(w, o, "gpu_ns", (double)g->kernels.ns);
    jsonw_field_num(w, o, "cpu_ns", (double)g->cpu_ns);
    stat_field(w, o, "memcpy", &g->memcpy);
    stat_field(w, o, "memset", &g->memset);
    jsonw_field_num(w, o, "graph_replays", (double)g->graph_replays);
    jsonw_field_num(w, o, "graph_kernels", (double)g->graph_kernels);
    jsonw_field_num(w, o, "captured_kernels", (double)g->captured_kernels);
    jsonw_field_num(w, o, "any_thread", (double)g->any_thread);
    jsonw_field(w, o, "ranks");
    jsonw_raw(w, "[", 1);
    for (uint32_t t = 0; t < r->n_traces; t++) {
        if (t)
            jsonw_sep(w);
        jsonw_open(w, &x, o->depth + 1);
        if (set->traces[t].rank >= 0)
            jsonw_field_num(w, &x, "rank", set->traces[t].rank);
        else
            jsonw_field_null(w, &x, "rank");
        jsonw_field_num(w, &x, "pid", (double)set->traces[t].pid);
        jsonw_field_num(w, &x, "kernels", (double)g->per_trace[t].count);
        jsonw_field_num(w, &x, "gpu_ns", (double)g->per_trace[t].ns);
        jsonw_close(w, &x);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, o, "top_kernels");
    jsonw_raw(w, "[", 1);
    for (uint32_t k = 0; k < g->n_top && k < 10; k++) {
        if (k)
            jsonw_sep(w);
        jsonw_open(w, &x, o->depth + 1);
        jsonw_field_str(w, &x, "name", r->kernels[g->top[k].kernel].name);
        jsonw_field_num(w, &x, "count", (double)g->top[k].stat.count);
        jsonw_field_num(w, &x, "gpu_ns", (double)g->top[k].stat.ns);
        jsonw_close(w, &x);
    }
    jsonw_raw(w, "]", 1);
}

/* The kernel table: o->kernels rows (0: all), each with the pieces (or ranges) it ran in, in
 * the report's order (a list a kernel, made first: the groups' top kernels name them); its
 * items at depth. */
static void kernel_table_write(struct jsonw *w, const struct cgs_prof_report *r,
                               const struct cli_prof_out *o, int d)
{
    struct jsonw_obj x;
    uint32_t n = o->kernels && o->kernels < r->n_kernels ? o->kernels : r->n_kernels;
    /* the pieces (or ranges) each kernel ran in, in the report's order: a list a kernel,
       made first (the groups' top kernels name them) */
    uint32_t *count = cgs_xcalloc((size_t)n + 1, sizeof(*count)), total = 0;
    uint32_t *start = cgs_xcalloc((size_t)n + 2, sizeof(*start));
    const char **names;
    for (uint32_t g = 0; g <= r->n_groups; g++) {
        const struct cgs_prof_group *gr = g < r->n_groups ? &r->groups[g] : &r->none;
        for (uint32_t q = 0; q < gr->n_top; q++)
            if (gr->top[q].kernel < n)
                count[gr->top[q].kernel]++, total++;
    }
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] = start[i] + count[i];
    names = cgs_xcalloc((size_t)total + 1, sizeof(*names));
    memset(count, 0, ((size_t)n + 1) * sizeof(*count));
    for (uint32_t g = 0; g <= r->n_groups; g++) {
        const struct cgs_prof_group *gr = g < r->n_groups ? &r->groups[g] : &r->none;
        for (uint32_t q = 0; q < gr->n_top; q++) {
            uint32_t k = gr->top[q].kernel;
            if (k < n)
                names[start[k] + count[k]++] = gr->name;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        const struct cgs_prof_kernel *k = &r->kernels[i];
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &x, d);
        jsonw_field_str(w, &x, "name", k->name);
        jsonw_field_num(w, &x, "count", (double)k->stat.count);
        jsonw_field_num(w, &x, "gpu_ns", (double)k->stat.ns);
        jsonw_field_num(w, &x, "min_ns", (double)k->min_ns);
        jsonw_field_num(w, &x, "max_ns", (double)k->max_ns);
        jsonw_field(w, &x, "pieces");
        jsonw_raw(w, "[", 1);
        for (uint32_t q = start[i]; q < start[i + 1]; q++) {
            if (q > start[i])
                jsonw_sep(w);
            jsonw_string(w, names[q]);
        }
        jsonw_raw(w, "]", 1);
        jsonw_close(w, &x);
    }
    free(names);
    free(start);
    free(count);
}

struct prof_doc {
    const struct cli_prof_set *set;
    const struct cgs_prof_report *r;
    const struct cli_prof_out *o;
    int depth; /* the document's (0: a document of its own) */
};

/* report --json's document (profile's report.json, the page's profile), written straight. */
static void prof_write(struct jsonw *w, void *ctx)
{
    const struct prof_doc *pd = ctx;
    const struct cli_prof_set *set = pd->set;
    const struct cgs_prof_report *r = pd->r;
    const struct cli_prof_out *o = pd->o;
    const struct cgs_split *s = o->split;
    struct jsonw_obj doc, x;
    bool first = true;
    int d;

    cli_doc_open(w, &doc, pd->depth, "report");
    jsonw_field_str(w, &doc, "prefix", r->prefix);
    jsonw_field_str(w, &doc, "by", r->by == CGS_PROF_BY_PIECE ? "piece" : "range");
    d = doc.depth + 1; /* an item of one of the document's arrays */
    jsonw_field(w, &doc, "traces");
    jsonw_raw(w, "[", 1);
    for (size_t i = 0; i < set->n; i++) {
        const struct cgs_prof_trace *t = &set->traces[i];
        if (i)
            jsonw_sep(w);
        jsonw_open(w, &x, d);
        jsonw_field_str(w, &x, "file", t->file);
        jsonw_field_num(w, &x, "pid", (double)t->pid);
        if (t->rank >= 0)
            jsonw_field_num(w, &x, "rank", t->rank);
        else
            jsonw_field_null(w, &x, "rank");
        jsonw_field_bool(w, &x, "complete", t->complete);
        jsonw_field_bool(w, &x, "truncated", t->truncated);
        jsonw_field_str(w, &x, "error", t->error);
        if (t->complete && t->end_reason == 1)
            jsonw_field_num(w, &x, "signal", t->signo);
        jsonw_field_num(w, &x, "dropped", (double)t->dropped);
        jsonw_field_str(w, &x, "cmdline", o->cmdline_as ? o->cmdline_as
                                           : t->cmdline  ? t->cmdline
                                                         : "");
        jsonw_field_num(w, &x, "cupti_version", t->cupti_runtime);
        jsonw_close(w, &x);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &doc, "pieces");
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; s && i < s->n_pieces; i++, first = false) {
        bool amb;
        const struct cgs_prof_group *g = cgs_prof_find_piece(r, o->graph_id, s->pieces[i].name,
                                                             &amb);
        if (!first)
            jsonw_sep(w);
        jsonw_open(w, &x, d);
        if (g) {
            /* named as the split names it; "range" keeps the graph's compile id */
            group_fields(w, &x, set, r, g, s->pieces[i].name);
        } else {
            jsonw_field_str(w, &x, "name", s->pieces[i].name);
            jsonw_field_num(w, &x, "calls", 0);
            jsonw_field_num(w, &x, "kernels", 0);
            jsonw_field_num(w, &x, "gpu_ns", 0);
        }
        jsonw_field_bool(w, &x, "in_split", true);
        jsonw_field_num(w, &x, "n_nodes", s->pieces[i].n_nodes);
        jsonw_field_bool(w, &x, "splitting", s->pieces[i].is_splitting_graph);
        jsonw_close(w, &x);
    }
    for (uint32_t i = 0; i < r->n_groups; i++) {
        if (s && in_split(s, o->graph_id, r->groups[i].name))
            continue;
        if (!first)
            jsonw_sep(w);
        first = false;
        jsonw_open(w, &x, d);
        group_fields(w, &x, set, r, &r->groups[i], r->groups[i].name);
        if (s)
            jsonw_field_bool(w, &x, "in_split", false);
        jsonw_close(w, &x);
    }
    jsonw_raw(w, "]", 1);
    jsonw_field(w, &doc, "unattributed");
    jsonw_open(w, &x, doc.depth);
    group_fields(w, &x, set, r, &r->none, r->none.name);
    jsonw_close(w, &x);
    jsonw_field_num(w, &doc, "kernels", (double)r->kernels_total.count);
    jsonw_field_num(w, &doc, "gpu_ns", (double)r->kernels_total.ns);
    stat_field(w, &doc, "memcpy", &r->memcpy_total);
    stat_field(w, &doc, "memset", &r->memset_total);
    jsonw_field_num(w, &doc, "no_launch", (double)r->no_launch);
    jsonw_field(w, &doc, "kernel_table");
    jsonw_raw(w, "[", 1);
    kernel_table_write(w, r, o, d);
    jsonw_raw(w, "]", 1);
    jsonw_close(w, &doc);
}

void cli_prof_write(struct jsonw *w, const struct cli_prof_set *set,
                    const struct cgs_prof_report *r, const struct cli_prof_out *o, int depth)
{
    struct prof_doc pd = {set, r, o, depth};
    prof_write(w, &pd);
}

void cli_print_prof(const struct cli_prof_set *set, const struct cgs_prof_report *r,
                    const struct cli_prof_out *o)
{
    struct prof_doc pd = {set, r, o, 0};
    cli_print_written(prof_write, &pd);
}

char *cli_prof_text(const struct cli_prof_set *set, const struct cgs_prof_report *r,
                    const struct cli_prof_out *o)
{
    struct prof_doc pd = {set, r, o, 0};
    struct cgs_buf b = CGS_BUF_INIT;
    struct jsonw w;
    jsonw_init(&w, jsonw_to_buf, &b);
    prof_write(&w, &pd);
    jsonw_finish(&w); /* the sink is memory: it cannot fail */
    cgs_buf_addch(&b, 0);
    return cgs_buf_detach(&b);
}

cJSON *cli_prof_json(const struct cli_prof_set *set, const struct cgs_prof_report *r,
                     const struct cli_prof_out *o)
{
    struct prof_doc pd = {set, r, o, 0};
    return cli_written_tree(prof_write, &pd);
}

/* ---- Chrome trace events ------------------------------------------------------------------ */

/* s as a JSON string (quotes included) into b. */
static void json_str(struct cgs_buf *b, const char *s)
{
    struct jsonw w;
    jsonw_init(&w, jsonw_to_buf, b);
    jsonw_string(&w, s ? s : "");
    jsonw_finish(&w); /* the sink is memory: it cannot fail */
}

static int by_corr(const void *a, const void *b)
{
    uint32_t x = ((const struct cgs_prof_launch *)a)->corr;
    uint32_t y = ((const struct cgs_prof_launch *)b)->corr;
    return x < y ? -1 : x > y;
}

/* How far a trace's GPU clock is ahead of its CPU clock: the least (GPU start - CPU launch)
 * over the work whose launch was seen (a kernel starts no sooner than it is launched, and the
 * first on an idle GPU starts about then). 0 when no pair is known. */
static int64_t gpu_offset(const struct cgs_prof_trace *t)
{
    struct cgs_prof_launch *l;
    int64_t best = INT64_MAX;

    if (!t->n_launches || !t->n_work)
        return 0;
    l = cgs_xmalloc(t->n_launches * sizeof(*l));
    memcpy(l, t->launches, t->n_launches * sizeof(*l));
    qsort(l, t->n_launches, sizeof(*l), by_corr);
    for (size_t k = 0; k < t->n_work; k++) {
        struct cgs_prof_launch key = {.corr = t->work[k].corr};
        const struct cgs_prof_launch *m;
        if (!t->work[k].start)
            continue;
        m = bsearch(&key, l, t->n_launches, sizeof(*l), by_corr);
        if (m && (int64_t)(t->work[k].start - m->ts) < best)
            best = (int64_t)(t->work[k].start - m->ts);
    }
    free(l);
    return best == INT64_MAX ? 0 : best;
}

int cli_prof_trace_events(const struct cli_prof_set *set, const char *path)
{
    struct cgs_buf b = CGS_BUF_INIT;
    uint64_t t0 = UINT64_MAX;
    int64_t *off = cgs_xcalloc(set->n + 1, sizeof(*off));
    bool first = true;
    int rc;

    /* one time origin for every trace, on the CPU clock: the earliest range or GPU record
       (GPU times brought to the CPU clock by gpu_offset) */
    for (size_t i = 0; i < set->n; i++) {
        const struct cgs_prof_trace *t = &set->traces[i];
        off[i] = gpu_offset(t);
        for (size_t k = 0; k < t->n_ranges; k++)
            if (t->ranges[k].push < t0)
                t0 = t->ranges[k].push;
        for (size_t k = 0; k < t->n_work; k++)
            if (t->work[k].start && (uint64_t)((int64_t)t->work[k].start - off[i]) < t0)
                t0 = (uint64_t)((int64_t)t->work[k].start - off[i]);
    }
    if (t0 == UINT64_MAX)
        t0 = 0;
#define SEP() (cgs_buf_addstr(&b, first ? "\n" : ",\n"), first = false)
    cgs_buf_addstr(&b, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
    for (size_t i = 0; i < set->n; i++) {
        const struct cgs_prof_trace *t = &set->traces[i];
        char label[160];
        /* a kernel's name, demangled and quoted, once per name the trace holds */
        char **quoted = cgs_xcalloc(t->n_names + 1, sizeof(*quoted));
        if (t->rank >= 0)
            snprintf(label, sizeof(label), "rank %d (pid %llu)", t->rank,
                     (unsigned long long)t->pid);
        else
            snprintf(label, sizeof(label), "pid %llu", (unsigned long long)t->pid);
        SEP();
        cgs_buf_addf(&b, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %llu, \"args\": "
                         "{\"name\": ", (unsigned long long)t->pid);
        json_str(&b, label);
        cgs_buf_addstr(&b, "}}");
        for (size_t k = 0; k < t->n_ranges; k++) {
            const struct cgs_prof_range *r = &t->ranges[k];
            if (r->pop == UINT64_MAX || r->pop < r->push)
                continue; /* never closed */
            SEP();
            cgs_buf_addstr(&b, "{\"ph\": \"X\", \"cat\": \"range\", \"name\": ");
            json_str(&b, r->name);
            cgs_buf_addf(&b, ", \"pid\": %llu, \"tid\": %u, \"ts\": %.3f, \"dur\": %.3f}",
                         (unsigned long long)t->pid, r->tid, (double)(r->push - t0) / 1e3,
                         (double)(r->pop - r->push) / 1e3);
        }
        for (size_t k = 0; k < t->n_work; k++) {
            const struct cgs_prof_work *w = &t->work[k];
            const char *cat = w->kind == CGS_PROF_MEMCPY   ? "memcpy"
                              : w->kind == CGS_PROF_MEMSET ? "memset"
                                                           : "kernel";
            if (!w->start || w->end < w->start)
                continue;
            SEP();
            cgs_buf_addf(&b, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": ", cat);
            if (w->kind != CGS_PROF_KERNEL) {
                cgs_buf_addf(&b, "\"%s\"", cat);
            } else {
                size_t id = w->name < t->n_names ? w->name : t->n_names; /* n_names: "?" */
                if (!quoted[id]) {
                    const char *name = id < t->n_names ? t->names[id] : "?";
                    char *dm = cgs_prof_demangle(name);
                    struct cgs_buf q = CGS_BUF_INIT;
                    json_str(&q, dm);
                    quoted[id] = cgs_buf_detach(&q);
                    if (dm != name)
                        free(dm);
                }
                cgs_buf_addstr(&b, quoted[id]);
            }
            /* GPU work: a row per device and stream, under the process */
            cgs_buf_addf(&b, ", \"pid\": %llu, \"tid\": \"GPU %u stream %u\", \"ts\": %.3f, "
                             "\"dur\": %.3f, \"args\": {\"correlation\": %u%s}}",
                         (unsigned long long)t->pid, w->device, w->stream,
                         (double)((int64_t)(w->start - t0) - off[i]) / 1e3,
                         (double)(w->end - w->start) / 1e3,
                         w->corr, w->graph_id ? ", \"cuda_graph\": true" : "");
        }
        for (size_t k = 0; k <= t->n_names; k++)
            free(quoted[k]);
        free(quoted);
    }
#undef SEP
    free(off);
    cgs_buf_addstr(&b, "\n]}\n");
    rc = cli_write_file(path, b.buf, b.len) ? CGS_EXIT_BAD_INPUT : 0;
    cgs_buf_release(&b);
    return rc;
}
