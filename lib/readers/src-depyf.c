/*
 * depyf's dump folder (depyf.prepare_debug(DIR)): beside the decompiled bytecode
 * (full_code_for_FN_K.py, __transformed_code_K_for_FN.py) it writes each graph torch.compile
 * made as the Python FX prints, one file a graph, named after the compiled function and the
 * moment torch logged it:
 *
 *   __compiled_fn_3.BEFORE_PRE_GRAD.0.py      the Dynamo graph Inductor was given   dynamo
 *   __compiled_fn_1 Captured Graph 0.py       the same, from older depyf             dynamo
 *   __compiled_fn_3.Joint_graph.0.py          AOT's joint graph                      aot_joint
 *   __compiled_fn_3.Forward_graph.0.py        AOT's forward (inference when the
 *                                             compile has no joint or backward)       aot_forward
 *   __compiled_fn_3.Backward_graph.0.py                                              aot_backward
 *   __compiled_fn_3.AFTER_POST_GRAD.0.py      the post-grad graph Inductor lowers    post_grad
 *                                             (.1: the backward's, in training)
 *   __compiled_fn_3.tensorify_python_scalars.0.py, ...pre_insert_deferred_runtime_asserts...,
 *   __compiled_fn_3.__compiled_fn_3_<uuid>.0.py   Dynamo's passes in between          other
 *   __compiled_fn_3.kernel_0.py               Inductor's generated code: not a graph
 *
 * The separators are dots in depyf 0.18 and later, spaces before. A row of
 * lib/readers/source.h: listing the graphs is all there is to it; each file is a printed graph
 * the printed-graph reader loads. One such file given alone is the same source, one graph long
 * (its stage read from its name and the files beside it).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/arena.h"
#include "lib/readers/file.h"
#include "lib/readers/source.h"

#define FN_PREFIX "__compiled_fn_"

struct graph_file {
    char *path;
    unsigned long fn;    /* N of __compiled_fn_N */
    unsigned long index; /* the trailing K */
    int rank;            /* the stage's place in a compile */
    const char *stage;
    char *group;
    bool backward;
    int inference;
};

/* What depyf names a graph after (spaces as underscores), in the order torch makes them. */
static const struct {
    const char *name, *stage;
} moments[] = {
    {"Captured_Graph", "dynamo"}, {"BEFORE_PRE_GRAD", "dynamo"},
    {"Joint_graph", "aot_joint"}, {"Forward_graph", "aot_forward"},
    {"Inference_graph", "aot_inference"}, {"Backward_graph", "aot_backward"},
    {"AFTER_POST_GRAD", "post_grad"},
};
#define RANK_PASS 1 /* Dynamo's passes: after its graph, before AOT's */

static bool digits(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/*
 * "__compiled_fn_N<sep>MOMENT<sep>K.py" into g (path not set); false for any other name and
 * for Inductor's kernel files.
 */
static bool parse_name(const char *name, struct graph_file *g)
{
    size_t n = strlen(name), p = strlen(FN_PREFIX), a, k;
    char moment[256];

    if (n < p + 6 || strncmp(name, FN_PREFIX, p) || strcmp(name + n - 3, ".py"))
        return false;
    n -= 3;
    for (a = p; a < n && name[a] >= '0' && name[a] <= '9'; a++)
        ;
    if (a == p || a >= n || (name[a] != '.' && name[a] != ' '))
        return false;
    for (k = n; k > a && name[k - 1] >= '0' && name[k - 1] <= '9'; k--)
        ;
    if (k == n || k <= a + 1 || (name[k - 1] != '.' && name[k - 1] != ' ') ||
        k - 1 - (a + 1) >= sizeof(moment))
        return false;
    if (!digits(name + k, n - k))
        return false;
    snprintf(moment, sizeof(moment), "%.*s", (int)(k - 1 - (a + 1)), name + a + 1);
    for (char *c = moment; *c; c++)
        if (*c == ' ')
            *c = '_';
    if (!strncmp(moment, "kernel_", 7) && digits(moment + 7, strlen(moment + 7)))
        return false; /* Inductor's output code */
    g->fn = strtoul(name + p, NULL, 10);
    g->index = strtoul(name + k, NULL, 10);
    g->stage = "other";
    g->rank = RANK_PASS;
    for (size_t i = 0; i < sizeof(moments) / sizeof(moments[0]); i++)
        if (!strcmp(moment, moments[i].name)) {
            g->stage = moments[i].stage;
            g->rank = i < 2 ? 0 : (int)i + 1;
        }
    g->group = cgs_xstrdup(name);
    g->group[a] = '\0';
    return true;
}

static bool decompiled_name(const char *name)
{
    return (!strncmp(name, "full_code_for_", 14) || !strncmp(name, "__transformed_code_", 19)) &&
           cgs_path_has_ext(name, ".py");
}

/* A folder with depyf's files in it, or one of its graph files given alone (its stage read from
 * its name, settled against the files beside it). */
static bool sniff(const struct cgs_probe *p)
{
    DIR *dp;
    struct dirent *e;
    bool found = false;
    struct graph_file g;
    const char *base;

    if (p->sel)
        return false;
    if (p->is_reg) {
        base = strrchr(p->file, '/');
        if (!parse_name(base ? base + 1 : p->file, &g))
            return false;
        free(g.group);
        return cgs_source_head_is_printed(p->head, p->n_head);
    }
    if (!p->is_dir || !(dp = opendir(p->file)))
        return false;
    while (!found && (e = readdir(dp))) {
        if (decompiled_name(e->d_name))
            found = true;
        else if (parse_name(e->d_name, &g)) {
            free(g.group);
            found = true;
        }
    }
    closedir(dp);
    return found;
}

static int by_order(const void *a, const void *b)
{
    const struct graph_file *x = a, *y = b;
    if (x->fn != y->fn)
        return x->fn < y->fn ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* Within one compile: a forward with no joint and no backward beside it is an inference
 * graph; a second post-grad graph is the backward's. */
static void settle_stages(struct graph_file *gs, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        bool training = false;
        while (j < n && gs[j].fn == gs[i].fn)
            j++;
        for (size_t k = i; k < j; k++)
            training = training || !strcmp(gs[k].stage, "aot_joint") ||
                       !strcmp(gs[k].stage, "aot_backward");
        for (size_t k = i; k < j; k++) {
            gs[k].inference = !training;
            if (!training && !strcmp(gs[k].stage, "aot_forward"))
                gs[k].stage = "aot_inference";
            if (training && !strcmp(gs[k].stage, "post_grad") && gs[k].index >= 1)
                gs[k].backward = true;
        }
        i = j;
    }
}

static int list(const struct cgs_probe *p, cgs_source_graph_fn fn, void *ctx, struct cgs_diag *d)
{
    struct dirent **ents = NULL;
    struct graph_file *gs = NULL;
    size_t n = 0, alloc = 0, dl;
    char dir[4096];
    const char *only = NULL; /* a file given alone: its folder listed, it alone given */
    int k, rc = 0, given = 0;

    snprintf(dir, sizeof(dir), "%s", p->file);
    if (p->is_reg) {
        char *sl = strrchr(dir, '/');
        only = strrchr(p->file, '/') ? strrchr(p->file, '/') + 1 : p->file;
        if (sl)
            *sl = '\0';
        else
            snprintf(dir, sizeof(dir), ".");
    }
    dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dir[--dl] = '\0';
    if ((k = scandir(dir, &ents, NULL, alphasort)) < 0) {
        cgs_diag_at(d, dir, 0, 0);
        return cgs_diag_set(d, CGS_E_IO, "cannot list the folder"), -1;
    }
    for (int i = 0; i < k; i++) {
        struct graph_file g;
        char path[4096];
        struct stat st;
        if (parse_name(ents[i]->d_name, &g)) {
            if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name) <
                    sizeof(path) &&
                !stat(path, &st) && S_ISREG(st.st_mode)) {
                CGS_ALLOC_GROW(gs, n + 1, alloc);
                g.path = cgs_xstrdup(only && !strcmp(ents[i]->d_name, only) ? p->file : path);
                g.backward = false;
                gs[n++] = g;
            } else {
                free(g.group);
            }
        }
        free(ents[i]);
    }
    free(ents);
    if (n > 1)
        qsort(gs, n, sizeof(*gs), by_order);
    settle_stages(gs, n);
    for (size_t i = 0; i < n && !rc; i++) {
        struct cgs_source_graph g = {gs[i].path, gs[i].stage, gs[i].group, gs[i].backward,
                                     gs[i].inference};
        if (only && strcmp(gs[i].path, p->file))
            continue;
        given++;
        rc = fn(&g, ctx);
    }
    for (size_t i = 0; i < n; i++) {
        free(gs[i].path);
        free(gs[i].group);
    }
    free(gs);
    return rc ? (rc < 0 ? -1 : rc) : given;
}

const struct cgs_source_reader cgs_src_depyf = {
    .what = "a depyf dump folder",
    .role = CGS_ROLE_LOG,
    .sniff = sniff,
    .list = list,
};
