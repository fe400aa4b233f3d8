/* cgscope dot: a picture of a graph and its pieces (DOT, SVG, PNG, PDF). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <sys/wait.h>
#include <math.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/readers/file.h"
#include "lib/passes/layout.h"
#include "lib/readers/opdecl.h"
#include "lib/passes/shapes.h"
#include "lib/passes/split.h"
#include "tools/cmd.h"
#include "tools/session.h"
#include "tools/prof-out.h"
#include "viz/dot.h"
#include "viz/gv.h"

static int run(int argc, char **argv);

/* the options run() accepts: --help, the man page, completion and "did you mean" list them */
enum {
    O_SPLIT = 256,
    O_POLICY,
    O_FORMAT,
    O_COLLAPSE,
    O_MAXN,
    O_MAXB,
    O_NOFOLD,
    O_PROFILE,
    O_RANKDIR,
    O_MODEL,
    O_ALLOW_MISSING,
    O_JSON,
    O_GRAPH_ID
};

static const char *const formats[] = {"dot", "svg", "png", "pdf", NULL};
static const char *const collapses[] = {"none", "pieces", "module", NULL}; /* and module:DEPTH */
static const char *const rankdirs[] = {"TB", "LR", "BT", "RL", NULL};

static const struct cli_opt options[] = {
    CLI_OPT_SUGGEST("split-ops", O_SPLIT, "OP[,OP...]", cli_presets_values,
     "split first (as 'cgscope split'); repeatable; an op that\n"
     "matches no node is an input error (exit 2)\n" CLI_SPLIT_PRESETS_HELP),
    CLI_OPT("allow-missing-ops", O_ALLOW_MISSING, NULL, "a splitting op may be absent (a warning)"),
    CLI_OPT_ONE_OF("policy", O_POLICY, "P", cgs_split_policy_names, "magi (default with --split-ops), fusion or device"),
    CLI_OPT_SHORT('o', "output", 'o', "FILE",
     "write FILE (atomically: a failure leaves nothing);\n"
     "'-' or none: standard output (PNG and PDF only\n"
     "when it is not a terminal)"),
    CLI_OPT_ONE_OF("format", O_FORMAT, "F", formats,
     "dot, svg, png or pdf; default from FILE's extension\n"
     "(any case), else dot"),
    CLI_OPT_SUGGEST("collapse", O_COLLAPSE, "V", collapses,
     "none (every node), pieces (one box per piece) or\n"
     "module[:DEPTH] (one box per module_path prefix run);\n"
     "repeated identical boxes fold into one (xN)"),
    CLI_OPT("max-nodes", O_MAXN, "N",
     "collapse automatically above N nodes (default 1500;\n"
     "0 never): to pieces when split, else to modules"),
    CLI_OPT("max-boxes", O_MAXB, "N", "collapsed views: merge ranges of boxes above N (200)"),
    CLI_OPT("no-fold", O_NOFOLD, NULL, "collapsed views: draw repeated boxes one by one"),
    CLI_OPT("profile", O_PROFILE, "REPORT",
     "colour pieces by GPU time: `cgscope report --json`'s\n"
     "document (format in docs/pictures.md), or the traces\n"
     "themselves (a .cgstrace, or cgscope profile's folder)"),
    CLI_OPT("graph-id", O_GRAPH_ID, "ID",
     "with --profile: the compile id of the graph drawn (\"0/0\"), when the\n"
     "profile holds several graphs' pieces (a model with graph breaks);\n"
     "default: the graph file's producer.compile_id"),
    CLI_OPT_ONE_OF("rankdir", O_RANKDIR, "D", rankdirs, "TB (default), LR, BT or RL"),
    CLI_OPT("model", O_MODEL, "NAME", "the model to read from a .pt2 archive holding several"),
    CLI_OPT("json", O_JSON, NULL,
     "after writing FILE, describe it on stdout: view chosen\n"
     "and why, nodes and pieces drawn, size, layout cost"),
    CLI_OPT_END,
};

const struct cmd cmd_dot = {
    .name = "dot",
    .usage =
        "cgscope dot GRAPH [--split-ops OPS | --policy P] [--allow-missing-ops]\n"
        "                   [-o|--output FILE|-] [--format dot|svg|png|pdf]\n"
        "                   [--collapse none|pieces|module[:DEPTH]] [--max-nodes N] [--max-boxes N]\n"
        "                   [--no-fold] [--rankdir TB|LR|BT|RL] [--profile REPORT.json]\n"
        "                   [--graph-id ID] [--model NAME] [--json]",
    .summary = "draw the graph and its pieces (Graphviz: DOT, SVG, PNG, PDF)",
    .help = "Every piece of the split is a cluster named cluster_<piece> (cluster_submod_3);\n"
            "splitting pieces are orange and dashed, compiled ones blue. Nodes show their\n"
            "name, short target and value; edges the tensor they carry, red and bold when\n"
            "they cross pieces. Channels-last nodes (post-grad graphs), unknown ops and lint\n"
            "findings are marked; SVG tooltips give the source line and the reasons.\n"
            "Single-use parameters are folded into their user's label (+ weight ...).\n\n",
    .more =
            "The DOT output is the graph as built (no layout), so it is fast and diffable;\n"
            "SVG, PNG and PDF run Graphviz's dot layout (see docs/pictures.md for costs).\n"
            "Unless --collapse is given, the view is chosen for the picture to stay cheap:\n"
            "collapsed above --max-nodes, when a layout of every node would take more than\n"
            "10 s (estimated from the edges it must route), and for a PNG larger than\n"
            "16384 px a side; the line on stderr says which view was chosen and why. A\n"
            "layout expected to take more than 3 s says so and, on a terminal, counts.\n\n"
            "JSON keys: format, version, graph, output, image_format, bytes, view,\n"
            "view_reason, graph_nodes, nodes_drawn, edges_drawn, clusters, boxes, flagged,\n"
            "pieces [a piece as split --json writes it: {name, graph_id, is_splitting_graph,\n"
            "nodes [names], n_nodes, inputs, outputs, compile_index}], layout {width_pt, height_pt,\n"
            "width_px, height_px, long_edges, virtual_nodes, estimated_seconds (the layout),\n"
            "estimated_render_seconds (a PNG's pixels; 0 otherwise)}.\n\n"
            "examples:\n"
            "  cgscope dot samples/cgs_transformer_dyn.json --split-ops cgs.attention -o t.svg\n"
            "  cgscope dot samples/llama_tiny.dynamo.json --collapse pieces -o llama.svg \\\n"
            "      --split-ops torch._C._nn.scaled_dot_product_attention\n"
            "  cgscope dot samples/resnet18.dynamo.json --collapse module:2 -o modules.png\n",
    .run = run,
    .options = options,
};

/* "none", "pieces", "module", "module:3"; false on junk. */
static bool parse_collapse(const char *s, int *view, unsigned *depth)
{
    unsigned long d;
    *depth = 0;
    if (!strcmp(s, "none") || !strcmp(s, "full")) {
        *view = CGS_DOT_VIEW_FULL;
        return true;
    }
    if (!strcmp(s, "pieces")) {
        *view = CGS_DOT_VIEW_PIECES;
        return true;
    }
    if (!strncmp(s, "module", 6) && (!s[6] || s[6] == ':')) {
        *view = CGS_DOT_VIEW_MODULE;
        if (!s[6])
            return true;
        if (!cli_parse_uint(s + 7, &d) || d == 0 || d > CGS_DOT_MAX_MODULE_DEPTH)
            return false;
        *depth = (unsigned)d;
        return true;
    }
    return false;
}

static const char *const view_names[] = {"every node", "one box per piece",
                                         "one box per module run"};

/* ---- the drawing's process ------------------------------------------------------------ */

/* Fork the drawing; 0 in the child (its temporary file's path goes to the parent through
   the pipe), the child's pid in the parent (*fd: the pipe's read end), -1 when no child could
   be made (the drawing then runs here). */
static pid_t drawing_fork(int *fd)
{
    int p[2];
    pid_t pid;
    fflush(stdout);
    fflush(stderr);
    if (pipe(p))
        return -1;
    pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        cli_tmp_notify(p[1]);
        return 0;
    }
    close(p[1]);
    *fd = p[0];
    return pid;
}

static int drawing_wait(pid_t pid, int fd, const char *graph, bool to_stdout)
{
    char tmp[4096];
    size_t len = 0;
    int st;
    ssize_t n;
    while ((n = read(fd, tmp + len, sizeof(tmp) - 1 - len)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            len += (size_t)n;
    tmp[len] = '\0';
    close(fd);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (to_stdout && WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE)
        return CGS_EXIT_BAD_INPUT; /* standard output's reader went away (`| head`): nothing
                                      to say, as for every command's output */
    /* the temporary files the child began and did not finish */
    for (char *p = tmp, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        unlink(p);
    }
    return cli_file_error(graph, "drawing failed: Graphviz died with signal %d (%s)%s; nothing was "
                     "written (a smaller view: --collapse pieces or module)", WIFSIGNALED(st) ? WTERMSIG(st) : 0,
                     WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "?",
                     WIFSIGNALED(st) && (WTERMSIG(st) == SIGSEGV || WTERMSIG(st) == SIGABRT ||
                                         WTERMSIG(st) == SIGKILL)
                         ? ", most likely out of memory"
                         : "");
}

/* Views chosen automatically stay below these (the user's --collapse none goes past them). */
#define MAX_AUTO_SECONDS 10.0 /* estimated layout time */
#define MAX_BITMAP_SIDE  16384 /* pixels on a side of a PNG (cairo itself stops at 32767) */
#define MAX_BITMAP_PIXELS 64e6 /* pixels of a PNG: past them it is drawn at a lower dpi */
/* cairo's rendering and the PNG's compression: 5.4-6.0e-8 s a pixel on 4.5 to 63 M pixels here
   (docs/pictures.md) */
#define PNG_SECONDS_PER_PIXEL 5.5e-8
#define PROGRESS_SECONDS 3.0  /* layouts estimated longer than this say so and show time */

enum { RENDER_OK = 0, RENDER_FAILED = 1, RENDER_TOO_LARGE = 2 };

/* The view an automatic choice collapses to: one box per piece when split, else modules. */
static int collapsed_view(const struct cgs_split *s)
{
    return s && s->n_pieces > 1 ? CGS_DOT_VIEW_PIECES : CGS_DOT_VIEW_MODULE;
}

/* Build the picture again in view v (the old one closed), with its cost; NULL, the error
   reported, when that fails. */
static Agraph_t *rebuild(Agraph_t *old, const struct cgs_graph *g, struct cgs_dot_opts *o,
                         int v, struct cgs_dot_stats *st, struct cgs_dot_cost *cost)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    Agraph_t *dg;
    agclose(old);
    o->view = (enum cgs_dot_view)v;
    dg = cgs_dot_build(g, o, st, &d);
    if (!dg)
        cli_report_diag(&d);
    else
        cgs_dot_cost(dg, cost);
    return dg;
}

/* An estimate as a person reads it: "about 20 s", "about 4 min", "over an hour". */
static const char *duration_text(double s, char *buf, size_t n)
{
    if (s < 1)
        snprintf(buf, n, "under a second");
    else if (s < 90)
        snprintf(buf, n, "about %.0f s", s);
    else if (s < 3600)
        snprintf(buf, n, "about %.0f min", s / 60);
    else
        snprintf(buf, n, "over an hour");
    return buf;
}

/*
 * A thread that shows the seconds a layout has taken once it runs past PROGRESS_SECONDS,
 * whatever was estimated: on a terminal a line rewritten every second, elsewhere (CI logs) a
 * line then and every 30 s.
 */
struct progress {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done, started, tty, shown;
    bool rendering; /* the layout is done: the picture is drawn */
    double png;     /* 1 for a PNG (its rendering costs by the pixel), else 0 */
    int fd;
    double est, layout_est; /* the estimate shown; the layout's alone */
};

/* The layout is done: a PNG's rendering adds its time (by its pixels) to the estimate. */
static void on_laid_out(void *ctx, const struct cgs_dot_render_info *info)
{
    struct progress *p = ctx;
    if (!p->started)
        return;
    pthread_mutex_lock(&p->lock);
    p->rendering = true;
    p->est = p->layout_est + info->width_px * info->height_px * PNG_SECONDS_PER_PIXEL * p->png;
    pthread_mutex_unlock(&p->lock);
}

static void *progress_main(void *arg)
{
    struct progress *p = arg;
    struct timespec t0, now, until;
    /* CGSCOPE_PROGRESS_AFTER=S moves the 3 s (the tests use 0: a line on every layout) */
    const char *after_env = getenv("CGSCOPE_PROGRESS_AFTER");
    double after = after_env && *after_env ? atof(after_env) : PROGRESS_SECONDS;
    double next_plain = after;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_mutex_lock(&p->lock);
    if (after <= 0) { /* at once, whether or not the layout has ended by now */
        char line[160], est[32];
        int n = snprintf(line, sizeof(line), "cgscope dot: still laying out after 0 s (%s "
                         "estimated)\n", duration_text(p->est, est, sizeof(est)));
        if (n > 0 && write(p->fd, line, (size_t)n) == n)
            p->shown = !p->tty;
        next_plain = 30;
    }
    while (!p->done) {
        char line[160];
        int n = 0;
        double el;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&p->cond, &p->lock, &until);
        if (p->done)
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
        if (el < after)
            continue;
        char est[32];
        duration_text(p->est, est, sizeof(est));
        if (p->tty)
            n = snprintf(line, sizeof(line), "\rcgscope dot: %s... %.0f s (%s estimated) ",
                         p->rendering ? "rendering" : "laying out", el, est);
        else if (el >= next_plain) {
            n = snprintf(line, sizeof(line), "cgscope dot: still %s after %.0f s (%s "
                         "estimated)\n", p->rendering ? "rendering" : "laying out", el, est);
            next_plain = el + 30;
        }
        if (n > 0 && write(p->fd, line, (size_t)n) < 0)
            break;
        p->shown = p->shown || n > 0;
    }
    pthread_mutex_unlock(&p->lock);
    if (p->tty && p->shown && write(p->fd, "\r\033[K", 4) < 0)
        return NULL;
    return NULL;
}

static void progress_start(struct progress *p, double est, bool png)
{
    memset(p, 0, sizeof(*p));
    p->est = p->layout_est = est;
    p->png = png;
    p->tty = isatty(2);
    if ((p->fd = dup(2)) < 0)
        return;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    p->started = !pthread_create(&p->thread, NULL, progress_main, p);
    if (!p->started)
        close(p->fd);
}

static void progress_stop(struct progress *p)
{
    if (!p->started)
        return;
    pthread_mutex_lock(&p->lock);
    p->done = true;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    close(p->fd);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
}

/*
 * Lay out and render, with the bitmap limit: past it an automatic view reports
 * RENDER_TOO_LARGE, one the user asked for is drawn at a lower dpi that fits. Graphviz's
 * messages are printed as ours. Errors are printed.
 */
static int render(Agraph_t *dg, const char *format, const struct cgs_dot_cost *cost,
                  bool scale_to_fit, char **data, size_t *len, struct cgs_dot_render_info *info)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct progress pr;
    struct cgs_dot_render_opts ro = {MAX_BITMAP_SIDE, MAX_BITMAP_PIXELS, on_laid_out, &pr};
    int r;

    if (strcmp(format, "dot") && cost->est_seconds > PROGRESS_SECONDS) {
        char est[32];
        fprintf(stderr, "cgscope dot: laying out %u nodes and %u edges: %s\n", cost->nodes,
                cost->edges, duration_text(cost->est_seconds, est, sizeof(est)));
    }
    memset(&pr, 0, sizeof(pr));
    if (strcmp(format, "dot")) /* silent unless the layout passes 3 s */
        progress_start(&pr, cost->est_seconds, !strcmp(format, "png"));
    else
        memset(&pr, 0, sizeof(pr));
    r = cgs_dot_render_ex(dg, format, &ro, data, len, info, &d);
    if (!r && ((info->too_large && scale_to_fit) || info->too_many_pixels)) {
        /* drawn smaller: within the side, and within the pixels (whose rendering takes
           seconds past them: 131 M pixels, 7 s here) */
        double side = info->width_px > info->height_px ? info->width_px : info->height_px;
        double scale = fmin((MAX_BITMAP_SIDE - 64) / side,
                            sqrt(MAX_BITMAP_PIXELS / (info->width_px * info->height_px)) * 0.99);
        char dpi[32];
        snprintf(dpi, sizeof(dpi), "%.2f", 96.0 * scale);
        fprintf(stderr, "cgscope dot: the PNG would be %.0f x %.0f px: drawn at %s dpi to stay "
                "within %d px a side and %.0f M pixels (SVG keeps every detail)\n",
                info->width_px, info->height_px, dpi, MAX_BITMAP_SIDE, MAX_BITMAP_PIXELS / 1e6);
        gv_set(dg, "dpi", dpi);
        info->too_large = info->too_many_pixels = false;
        r = cgs_dot_render_ex(dg, format, &ro, data, len, info, &d);
    }
    progress_stop(&pr);
    if (r < 0) {
        cli_report_diag(&d);
        return RENDER_FAILED;
    }
    if (info->too_large)
        return RENDER_TOO_LARGE;
    for (char *m = info->messages; *m;) {
        char *nl = strchr(m, '\n');
        if (nl)
            *nl = '\0';
        if (*m)
            cli_warn("graphviz: %s", m);
        if (!nl)
            break;
        m = nl + 1;
    }
    return RENDER_OK;
}

/*
 * A profile belongs to a split when it names exactly the split's pieces: the bridge marks every
 * piece it runs, so a piece of one that the other lacks means another model, another split
 * (--split-ops) or another graph. Matched by name alone, a 5-piece profile would paint
 * submod_0..4 of a 9-piece split; refused instead, saying which differ.
 */
static int check_profile_pieces(const struct cgs_prof_summary *prof, const struct cgs_split *s,
                                const char *profile_path, const char *graph)
{
    char extra[512] = "", missing[512] = "";
    uint32_t n_extra = 0, n_missing = 0;
    for (uint32_t i = 0; i < prof->n_pieces; i++) {
        bool found = false;
        for (uint32_t k = 0; k < s->n_pieces && !found; k++)
            found = !strcmp(prof->pieces[i].name, s->pieces[k].name);
        if (!found && n_extra++ < 8)
            snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), "%s%.60s",
                     n_extra > 1 ? ", " : "", prof->pieces[i].name);
    }
    for (uint32_t k = 0; k < s->n_pieces; k++) {
        bool found = false;
        for (uint32_t i = 0; i < prof->n_pieces && !found; i++)
            found = !strcmp(prof->pieces[i].name, s->pieces[k].name);
        if (!found && n_missing++ < 8)
            snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%.60s",
                     n_missing > 1 ? ", " : "", s->pieces[k].name);
    }
    if (!n_extra && !n_missing)
        return 0;
    cli_file_error(profile_path, "the profile's pieces are not this split's: %u piece%s in the profile, %u in "
              "the split of %s", prof->n_pieces, PLURAL(prof->n_pieces),
              s->n_pieces, graph);
    if (n_extra)
        fprintf(stderr, "  in the profile, not in the split: %s%s\n", extra,
                n_extra > 8 ? ", ..." : "");
    if (n_missing)
        fprintf(stderr, "  in the split, not in the profile: %s%s\n", missing,
                n_missing > 8 ? ", ..." : "");
    fprintf(stderr, "  (profile the graph you draw, split with the --split-ops the run used)\n");
    return CGS_EXIT_BAD_INPUT;
}

/* --profile: a report JSON, or traces (a folder, a .cgstrace) reported on the spot */
static int load_profile(const char *path, struct cgs_prof_summary **out)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct stat st;
    char head[8] = {0};
    FILE *f;
    bool trace = (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) ||
                 cgs_path_has_ext(path, ".cgstrace") || cgs_path_has_ext(path, ".cgstrace.part");

    if (!trace && (f = fopen(path, "rb"))) {
        trace = fread(head, 1, sizeof(head), f) == sizeof(head) &&
                cgs_prof_is_trace(head, sizeof(head));
        fclose(f);
    }
    if (trace) {
        struct cli_prof_set set;
        struct cgs_prof_report rep;
        int rc = cli_prof_load(&path, 1, &set);
        if (!rc && cgs_prof_report_build(set.traces, (uint32_t)set.n, NULL, &rep, &d) < 0)
            rc = cli_report_diag(&d);
        else if (!rc) {
            *out = cgs_prof_summary_of(&rep);
            cgs_prof_report_release(&rep);
        }
        cli_prof_release(&set);
        return rc;
    }
    if (cgs_prof_summary_load(path, out, &d) < 0)
        return cli_report_diag(&d);
    return 0;
}

/*
 * The picture `cgscope html` puts in its page, drawn from a graph already loaded and split: as
 * `cgscope dot REF --collapse pieces [--split-ops ...] [--profile DIR]` draws it, without
 * reading the graph again (html forks for it: a Graphviz crash stays in the child). *svg is
 * the caller's (free). 0, or CGS_EXIT_BAD_INPUT (said).
 */
int cli_dot_pieces_svg(const struct cgs_graph *g, const struct cgs_split *s,
                       const struct cgs_layout *lay, const char *profile_path, const char *label,
                       char **svg, size_t *len)
{
    struct cgs_prof_summary *prof = NULL;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_dot_opts o = {0};
    struct cgs_dot_stats st;
    struct cgs_dot_cost cost = {0};
    struct cgs_dot_render_info info = {0};
    Agraph_t *dg;
    int rc;

    *svg = NULL;
    if (profile_path) {
        char ids[512];
        if (load_profile(profile_path, &prof))
            return CGS_EXIT_BAD_INPUT;
        if (cgs_prof_summary_select(prof, g->producer.compile_id, ids, sizeof(ids)) < 0) {
            cgs_prof_summary_free(prof);
            return cli_file_error(profile_path, "the profile holds the pieces of several graphs "
                                  "(%s)", ids);
        }
        if ((rc = check_profile_pieces(prof, s, profile_path, label))) {
            cgs_prof_summary_free(prof);
            return rc;
        }
    }
    o.view = CGS_DOT_VIEW_PIECES;
    o.max_boxes = CGS_DOT_DEFAULT_MAX_BOXES;
    o.rankdir = "TB";
    o.split = s;
    o.layout = lay;
    o.profile = prof;
    dg = cgs_dot_build(g, &o, &st, &d);
    if (!dg) {
        cgs_prof_summary_free(prof);
        return cli_report_diag(&d);
    }
    cgs_dot_cost(dg, &cost);
    rc = render(dg, "svg", &cost, true, svg, len, &info);
    agclose(dg);
    cgs_prof_summary_free(prof);
    return rc ? CGS_EXIT_BAD_INPUT : 0;
}

struct dot_args {
    const char *out, *format, *profile_path, *rankdir, *graph_id;
    int view;                /* -1: chosen from the graph's size */
    unsigned depth;
    bool explicit_view, no_fold, json, split;
    unsigned long max_nodes, max_boxes;
};

static int parse_args(int argc, char **argv, struct cli_session *ss, struct dot_args *a)
{
    int c;
    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_dot, argc, argv)) != -1) {
        switch (c) {
        case O_SPLIT:
            if (cli_split_ops_add(&ss->ops, optarg))
                return CGS_EXIT_BAD_INPUT;
            a->split = true;
            break;
        case O_ALLOW_MISSING: ss->allow_missing_ops = true; break;
        case O_POLICY: /* cli_getopt checked the name */
            ss->policy = (enum cgs_split_policy)cgs_split_policy_from_name(optarg);
            a->split = true;
            break;
        case 'o': a->out = optarg; break;
        case O_FORMAT: a->format = optarg; break; /* one of formats: cli_getopt checked */
        case O_COLLAPSE:
            a->explicit_view = true;
            if (!parse_collapse(optarg, &a->view, &a->depth))
                return cli_usage_error(&cmd_dot, "unknown --collapse '%s' (none, pieces, "
                                                 "module[:DEPTH])", optarg);
            break;
        case O_MAXN:
        case O_MAXB:
            if (!cli_parse_uint(optarg, c == O_MAXN ? &a->max_nodes : &a->max_boxes) ||
                (c == O_MAXB && a->max_boxes == 0))
                return cli_usage_error(&cmd_dot, "%s wants a number, got '%s'",
                                       c == O_MAXN ? "--max-nodes" : "--max-boxes", optarg);
            break;
        case O_NOFOLD: a->no_fold = true; break;
        case O_PROFILE: a->profile_path = optarg; break;
        case O_GRAPH_ID: a->graph_id = optarg; break;
        case O_RANKDIR: a->rankdir = optarg; break; /* one of rankdirs: cli_getopt checked */
        case O_MODEL: ss->model = optarg; break;
        case O_JSON: a->json = true; break;
        default: return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_dot, optind == argc ? "missing GRAPH" : "expected one GRAPH");
    ss->path = argv[optind];
    if (a->out && !strcmp(a->out, "-"))
        a->out = NULL; /* -o -: standard output, in any format */
    if (!a->format && !(a->format = a->out ? cgs_dot_format_from_path(a->out) : "dot"))
        return cli_usage_error(&cmd_dot, "cannot tell the format of '%s' (use .dot, .svg, "
                                         ".png, .pdf or --format)", a->out);
    if (!a->out && a->json)
        return cli_usage_error(&cmd_dot, "--json describes the picture written: give -o FILE");
    if (!a->out && strcmp(a->format, "dot") && strcmp(a->format, "svg") && isatty(1))
        return cli_usage_error(&cmd_dot, "%s output is binary: give -o FILE (or -o - to send "
                                         "it through a pipe)", a->format);
    if (a->view == CGS_DOT_VIEW_PIECES && !a->split)
        return cli_usage_error(&cmd_dot, "--collapse pieces needs --split-ops or --policy");
    return 0;
}

/* The split the picture shows (NULL when none was asked), its profile checked against it.
 * 0, or the exit status (said). */
static int dot_split(struct cli_session *ss, const struct dot_args *a,
                     struct cgs_prof_summary *prof, struct cgs_split **s)
{
    char ids[512];
    const char *gid;
    *s = NULL;
    if (!a->split) {
        if (prof)
            cli_warn("--profile colours pieces: give --split-ops (or --policy) to draw them");
        return 0;
    }
    if (!(*s = cli_session_split(ss)))
        return cli_session_fail(ss);
    if (!prof)
        return 0;
    /* a run with graph breaks profiles each Dynamo graph's pieces: this graph's */
    gid = a->graph_id ? a->graph_id : ss->g->producer.compile_id;
    if (cgs_prof_summary_select(prof, gid, ids, sizeof(ids)) < 0)
        return cli_file_error(a->profile_path, "the profile holds the pieces of several graphs "
                                               "(%s): say which graph %s is with --graph-id",
                              ids, ss->path);
    return check_profile_pieces(prof, *s, a->profile_path, ss->path);
}

/* The view when none was asked: every node, unless there are more than --max-nodes. */
static const char *auto_view(struct dot_args *a, const struct cgs_graph *g,
                             const struct cgs_split *s, char *reason, size_t n)
{
    if (a->view >= 0)
        return "asked for (--collapse)";
    a->view = CGS_DOT_VIEW_FULL;
    if (!a->max_nodes || g->n_nodes <= a->max_nodes)
        return "every node (the graph is small enough)";
    a->view = collapsed_view(s);
    snprintf(reason, n, "%u nodes, more than --max-nodes %lu", g->n_nodes, a->max_nodes);
    fprintf(stderr, "cgscope dot: %u nodes, more than --max-nodes %lu: drawing %s (--collapse "
            "none draws every node)\n", g->n_nodes, a->max_nodes, view_names[a->view]);
    return reason;
}

/* The marks the picture carries: layout (post-grad graphs), shape flags (every node drawn). */
static void dot_marks(struct cli_session *ss, const struct dot_args *a, struct cgs_dot_opts *o)
{
    if (ss->g->producer.stage == CGS_STAGE_POST_GRAD && !(o->layout = cli_session_layout(ss))) {
        cli_file_warn(ss->path, "no layout marks: %s", ss->diag.msg);
        cgs_diag_clear(&ss->diag);
    }
    if (a->view != CGS_DOT_VIEW_FULL)
        return;
    if (cli_session_decls(ss))
        cli_file_warn(ss->path, "operator declarations not loaded");
    if (!(o->shapes = cli_session_shapes(ss))) {
        cli_file_warn(ss->path, "no shape flags: %s", ss->diag.msg);
        cgs_diag_clear(&ss->diag);
    }
}

/* Lay out and render, falling back to the collapsed view where every node would take too
 * long or make a bitmap too large (unless a view was asked for). */
static int draw(Agraph_t **dg, const struct cgs_graph *g, struct cgs_dot_opts *o,
                struct dot_args *a, struct cgs_dot_stats *st, struct cgs_dot_cost *cost,
                struct cgs_dot_render_info *info, const char **view_reason, char *reason,
                size_t n, char **data, size_t *len)
{
    int rc;
    char est[32];
    if (strcmp(a->format, "dot")) {
        cgs_dot_cost(*dg, cost);
        if (!a->explicit_view && a->view == CGS_DOT_VIEW_FULL &&
            cost->est_seconds > MAX_AUTO_SECONDS) {
            a->view = collapsed_view(o->split);
            snprintf(reason, n, "a layout of every node would take %s",
                     duration_text(cost->est_seconds, est, sizeof(est)));
            *view_reason = reason;
            fprintf(stderr, "cgscope dot: %s (%u long edges): drawing %s instead (--collapse "
                    "none insists)\n", reason, cost->long_edges, view_names[a->view]);
            if (!(*dg = rebuild(*dg, g, o, a->view, st, cost)))
                return CGS_EXIT_BAD_INPUT;
        }
    }
    rc = render(*dg, a->format, cost, a->explicit_view, data, len, info);
    if (rc == RENDER_TOO_LARGE && a->view == CGS_DOT_VIEW_FULL && !a->explicit_view) {
        a->view = collapsed_view(o->split);
        snprintf(reason, n, "a PNG of every node would be %.0f x %.0f px", info->width_px,
                 info->height_px);
        *view_reason = reason;
        fprintf(stderr, "cgscope dot: %s, past the %d px a side this draws: drawing %s instead "
                "(SVG has no such limit; --collapse none scales the PNG down)\n", reason,
                MAX_BITMAP_SIDE, view_names[a->view]);
        if (!(*dg = rebuild(*dg, g, o, a->view, st, cost)))
            return CGS_EXIT_BAD_INPUT;
        rc = render(*dg, a->format, cost, true, data, len, info);
    }
    return rc ? CGS_EXIT_BAD_INPUT : 0;
}

/* Write the picture to out (atomically) or standard output. */
static int write_picture(const char *out, const char *data, size_t len)
{
    struct stat ost;
    mode_t mask;
    if (!out)
        return fwrite(data, 1, len, stdout) != len || fflush(stdout)
                   ? cli_error("cannot write to standard output: %s", strerror(errno))
                   : 0;
    if (cli_write_file(out, data, len) < 0)
        return CGS_EXIT_BAD_INPUT;
    /* the temporary was made 0600 by mkstemp; a picture is for sharing (a FIFO or a device
     * written through keeps its own mode) */
    mask = umask(0);
    umask(mask);
    if (!stat(out, &ost) && S_ISREG(ost.st_mode))
        chmod(out, 0666 & ~mask);
    return 0;
}

struct dot_out {
    const char *graph;
    const struct dot_args *a;
    size_t len;
    const char *view_reason;
    const struct cgs_graph *g;
    const struct cgs_split *s;
    const struct cgs_dot_stats *st;
    const struct cgs_dot_cost *cost;
    const struct cgs_dot_render_info *info;
};

/* --json: what was drawn, and how big its layout was (written straight). */
static void dot_write(struct jsonw *w, void *ctx)
{
    const struct dot_out *x = ctx;
    const struct dot_args *a = x->a;
    const struct cgs_dot_stats *st = x->st;
    const struct cgs_dot_cost *cost = x->cost;
    const struct cgs_dot_render_info *info = x->info;
    struct jsonw_obj doc, o;
    cli_doc_open(w, &doc, 0, "dot");
    jsonw_field_str(w, &doc, "graph", x->graph);
    jsonw_field_str(w, &doc, "output", a->out);
    jsonw_field_str(w, &doc, "image_format", a->format);
    jsonw_field_num(w, &doc, "bytes", (double)x->len);
    jsonw_field_str(w, &doc, "view", a->view == CGS_DOT_VIEW_FULL     ? "full"
                                     : a->view == CGS_DOT_VIEW_PIECES ? "pieces"
                                                                      : "module");
    jsonw_field_str(w, &doc, "view_reason", x->view_reason);
    if (a->view == CGS_DOT_VIEW_MODULE)
        jsonw_field_num(w, &doc, "module_depth", st->module_depth);
    jsonw_field_num(w, &doc, "graph_nodes", x->g->n_nodes);
    jsonw_field_num(w, &doc, "nodes_drawn", st->nodes);
    jsonw_field_num(w, &doc, "edges_drawn", st->edges);
    jsonw_field_num(w, &doc, "clusters", st->clusters);
    if (a->view != CGS_DOT_VIEW_FULL)
        jsonw_field_num(w, &doc, "boxes", st->boxes);
    jsonw_field_num(w, &doc, "flagged", st->flagged);
    if (x->s) {
        jsonw_field(w, &doc, "pieces");
        jsonw_raw(w, "[", 1);
        for (uint32_t i = 0; i < x->s->n_pieces; i++) {
            if (i)
                jsonw_sep(w);
            jsonw_open(w, &o, doc.depth + 1);
            cli_piece_fields(w, &o, x->s, i, true);
            jsonw_close(w, &o);
        }
        jsonw_raw(w, "]", 1);
    } else {
        jsonw_field_null(w, &doc, "pieces");
    }
    if (strcmp(a->format, "dot")) {
        jsonw_field(w, &doc, "layout");
        jsonw_open(w, &o, doc.depth);
        /* whole points and pixels, as docs/json.md has them (the layout's own size is
           fractional where Graphviz sizes text by its metrics, as it does for SVG) */
        jsonw_field_num(w, &o, "width_pt", round(info->width_pt));
        jsonw_field_num(w, &o, "height_pt", round(info->height_pt));
        jsonw_field_num(w, &o, "width_px", round(info->width_px));
        jsonw_field_num(w, &o, "height_px", round(info->height_px));
        jsonw_field_num(w, &o, "long_edges", cost->long_edges);
        jsonw_field_num(w, &o, "virtual_nodes", (double)cost->virtual_nodes);
        jsonw_field_num(w, &o, "ranks", cost->ranks);
        jsonw_field_num(w, &o, "max_rank_width", (double)cost->max_width);
        jsonw_field_num(w, &o, "rank_width_squares", cost->width_sq);
        jsonw_field_num(w, &o, "estimated_seconds", cost->est_seconds);
        jsonw_field_num(w, &o, "estimated_render_seconds",
                        strcmp(a->format, "png") ? 0
                        : info->width_px * info->height_px * PNG_SECONDS_PER_PIXEL);
        jsonw_close(w, &o);
    }
    jsonw_close(w, &doc);
}

static void print_dot_json(const char *graph, const struct dot_args *a, size_t len,
                           const char *view_reason, const struct cgs_graph *g,
                           const struct cgs_split *s, const struct cgs_dot_stats *st,
                           const struct cgs_dot_cost *cost,
                           const struct cgs_dot_render_info *info)
{
    struct dot_out x = {graph, a, len, view_reason, g, s, st, cost, info};
    cli_print_written(dot_write, &x);
}

/* What the module view leaves out, said: the profile's colours, and every box when no node
 * has a module path. */
static void module_view_warnings(const struct cli_session *ss, bool profiled_pieces)
{
    bool any = false;
    if (profiled_pieces)
        cli_warn("--profile colours pieces: the module view leaves it out");
    /* graphs printed in TORCH_TRACE logs carry no module paths: one box, said */
    for (uint32_t i = 0; i < ss->g->n_nodes && !any; i++)
        any = ss->g->nodes[i]->module_path && *ss->g->nodes[i]->module_path;
    if (!any)
        cli_file_warn(ss->path, "no node has a module path (a graph printed in a TORCH_TRACE "
                                "log has none; the bridge's graph JSON does): the module view "
                                "draws one box; --collapse pieces with --split-ops groups "
                                "instead");
}

/* The drawing's options from the command's (the marks are dot_marks'). */
static void dot_opts(const struct dot_args *a, const struct cgs_split *s,
                     const struct cgs_prof_summary *prof, struct cgs_dot_opts *o)
{
    o->view = (enum cgs_dot_view)a->view;
    o->module_depth = a->depth;
    o->no_fold = a->no_fold;
    o->max_boxes = (uint32_t)(a->max_boxes > UINT32_MAX ? UINT32_MAX : a->max_boxes);
    o->rankdir = a->rankdir;
    o->split = s;
    o->profile = prof;
}

static int run(int argc, char **argv)
{
    struct cli_session ss;
    struct dot_args a = {.rankdir = "TB", .view = -1, .max_nodes = CGS_DOT_DEFAULT_MAX_NODES,
                         .max_boxes = CGS_DOT_DEFAULT_MAX_BOXES};
    const char *view_reason;
    char reason[256], *data = NULL;
    size_t len = 0;
    struct cgs_dot_cost cost = {0};
    struct cgs_dot_render_info info = {0};
    struct cgs_dot_stats st;
    struct cgs_dot_opts o = {0};
    struct cgs_prof_summary *prof = NULL;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_split *s = NULL;
    Agraph_t *dg = NULL;
    int notify_fd = -1, rc;
    pid_t child = -1;

    cli_session_init(&ss, NULL);
    if ((rc = parse_args(argc, argv, &ss, &a)))
        goto out;
    if (!cli_session_graph(&ss) || (a.profile_path && load_profile(a.profile_path, &prof))) {
        rc = CGS_EXIT_BAD_INPUT;
        goto out;
    }
    if ((rc = dot_split(&ss, &a, prof, &s)))
        goto out;
    view_reason = auto_view(&a, ss.g, s, reason, sizeof(reason));
    if (a.view == CGS_DOT_VIEW_MODULE)
        module_view_warnings(&ss, prof && s);
    dot_marks(&ss, &a, &o);
    /* Graphviz runs in a child process: a crash or an out-of-memory inside it (cgraph, gvc,
     * cairo, fontconfig) becomes a message and exit 2 here, with no output file left */
    if ((child = drawing_fork(&notify_fd)) > 0) {
        rc = drawing_wait(child, notify_fd, ss.path, !a.out || !strcmp(a.out, "-"));
        goto out;
    }
    dot_opts(&a, s, prof, &o);
    if (!(dg = cgs_dot_build(ss.g, &o, &st, &d))) {
        rc = cli_report_diag(&d);
        goto out;
    }
    if (st.profile_unmatched)
        cli_file_warn(a.profile_path, "%u piece%s of the profile name no piece of this split",
                      st.profile_unmatched, st.profile_unmatched == 1 ? "" : "s");
    if (!(rc = draw(&dg, ss.g, &o, &a, &st, &cost, &info, &view_reason, reason, sizeof(reason),
                    &data, &len)) &&
        !(rc = write_picture(a.out, data, len)) && a.json)
        print_dot_json(ss.path, &a, len, view_reason, ss.g, s, &st, &cost, &info);
out:
    if (child == 0) { /* the drawing child */
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    free(data);
    if (dg)
        agclose(dg);
    cgs_prof_summary_free(prof);
    cli_session_close(&ss);
    return rc;
}
