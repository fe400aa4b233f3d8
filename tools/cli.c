#include "lib/run/follow.h"
#include "tools/cmd.h"
#include "lib/run/graphs.h"
#include "lib/writers/jsonw.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "lib/base/arena.h"
#include "lib/base/json-alloc.h"
#include "lib/readers/load.h"
#include "lib/readers/opdecl.h"
#include "lib/ops/ops.h"
#include "lib/passes/split.h"

bool cli_json_mode;

/* The first error of the run, kept for --json (cli_flush_json_error). */
static struct {
    bool set;
    char message[1024];
    char file[512];
    uint32_t line, col;
    char path[256];
} first_error;

static void keep_error(const char *file, uint32_t line, uint32_t col, const char *path,
                       const char *fmt, va_list ap) CGS_PRINTF(5, 0);
static void keep_error(const char *file, uint32_t line, uint32_t col, const char *path,
                       const char *fmt, va_list ap)
{
    if (first_error.set || !cli_json_mode)
        return;
    first_error.set = true;
    vsnprintf(first_error.message, sizeof(first_error.message), fmt, ap);
    snprintf(first_error.file, sizeof(first_error.file), "%s", file ? file : "");
    first_error.line = line;
    first_error.col = col;
    snprintf(first_error.path, sizeof(first_error.path), "%s", path ? path : "");
}

static void keep_errorf(const char *file, uint32_t line, uint32_t col, const char *path,
                        const char *fmt, ...) CGS_PRINTF(5, 6);
static void keep_errorf(const char *file, uint32_t line, uint32_t col, const char *path,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    keep_error(file, line, col, path, fmt, ap);
    va_end(ap);
}

static bool to_stderr(void *ctx, const char *p, size_t n)
{
    return fwrite(p, 1, n, ctx) == n;
}

void cli_flush_json_error(int status)
{
    struct jsonw w;
    struct jsonw_obj doc, e;

    if (!cli_json_mode || status != CGS_EXIT_BAD_INPUT)
        return;
    if (!first_error.set)
        snprintf(first_error.message, sizeof(first_error.message), "bad input or usage");
    jsonw_init(&w, to_stderr, stderr);
    w.compact = true; /* one line */
    cli_doc_open(&w, &doc, 0, "error");
    jsonw_field(&w, &doc, "error");
    jsonw_open(&w, &e, doc.depth);
    jsonw_field_str(&w, &e, "message", first_error.message);
    jsonw_field_str(&w, &e, "file", first_error.file[0] ? first_error.file : NULL);
    if (first_error.line)
        jsonw_field_num(&w, &e, "line", first_error.line);
    else
        jsonw_field_null(&w, &e, "line");
    if (first_error.col)
        jsonw_field_num(&w, &e, "column", first_error.col);
    else
        jsonw_field_null(&w, &e, "column");
    jsonw_field_str(&w, &e, "path", first_error.path[0] ? first_error.path : NULL);
    jsonw_field_num(&w, &e, "exit", status);
    jsonw_close(&w, &e);
    jsonw_close(&w, &doc);
    jsonw_raw(&w, "\n", 1);
    jsonw_finish(&w);
}

/* "-o, --output FILE" or "--summary, --quiet": an option's heading, its aliases joined */
static int option_heading(const struct cli_opt *o, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%s%s%s--%s", o->short_name ? "-" : "",
                       o->short_name ? (char[2]){o->short_name, 0} : "",
                       o->short_name ? ", " : "", o->name);
    for (const struct cli_opt *a = o + 1; a->name && !a->help; a++)
        len += snprintf(buf + len, n > (size_t)len ? n - (size_t)len : 0, ", --%s", a->name);
    if (o->arg)
        len += snprintf(buf + len, n > (size_t)len ? n - (size_t)len : 0, " %s", o->arg);
    return len;
}

int cli_option_column(const struct cmd *c)
{
    char buf[160];
    int w = (int)strlen("-h, --help");
    for (const struct cli_opt *o = c->options; o && o->name; o++) {
        int len = o->help ? option_heading(o, buf, sizeof(buf)) : 0;
        if (len > w && len <= 26)
            w = len;
    }
    return 2 + w + 2;
}

void cli_print_help(const struct cmd *c, FILE *f)
{
    int col = cli_option_column(c);
    char head[160];

    fprintf(f, "usage: %s\n\n%s\n", c->usage, c->summary);
    if (c->help && c->help[0])
        fprintf(f, "\n%s", c->help);
    else
        fputc('\n', f);
    fputs("options:\n", f);
    for (const struct cli_opt *o = c->options; o && o->name; o++) {
        if (!o->help)
            continue; /* an alias: on the line of the entry before */
        int len = 2 + option_heading(o, head, sizeof(head));
        fprintf(f, "  %s", head);
        for (const char *p = o->help; *p;) {
            size_t n = strcspn(p, "\n");
            if (len >= col) { /* a long heading: its words start on the next line */
                fputc('\n', f);
                len = 0;
            }
            fprintf(f, "%*s%.*s\n", col - len, "", (int)n, p);
            len = 0;
            p += n + (p[n] == '\n');
        }
    }
    fprintf(f, "  %-*s%s\n", col - 2, "-h, --help", "show this help");
    if (c->more && c->more[0])
        fprintf(f, "\n%s", c->more);
}

int cli_getopt(const struct cmd *c, int argc, char **argv)
{
    /* getopt_long's tables, made once from the command's (one command runs per process) */
    static const struct cmd *made;
    static struct option *longopts;
    static char shortopts[64];
    int r;

    if (made != c) {
        size_t n = 0, k = 0;
        for (const struct cli_opt *o = c->options; o && o->name; o++)
            n++;
        free(longopts);
        longopts = cgs_xcalloc(n + 1, sizeof(*longopts));
        if (c->stop_at_operand)
            shortopts[k++] = '+';
        shortopts[k++] = ':';
        for (size_t i = 0; i < n; i++) {
            const struct cli_opt *o = &c->options[i];
            longopts[i] = (struct option){o->name, o->arg ? required_argument : no_argument,
                                          NULL, o->val};
            if (o->short_name && k + 3 < sizeof(shortopts)) {
                shortopts[k++] = o->short_name;
                if (o->arg)
                    shortopts[k++] = ':';
            }
        }
        shortopts[k] = 0;
        made = c;
    }
    r = getopt_long(argc, argv, shortopts, longopts, NULL);
    if (r != ':' && r != '?' && r != -1 && optarg) {
        /* a value the table says the option does not take: refused here, for every command */
        for (const struct cli_opt *o = c->options; o && o->name; o++) {
            if (o->val != r || !o->values || o->open || o->values == cli_presets_values)
                continue;
            bool ok = false;
            struct cgs_buf b = CGS_BUF_INIT;
            for (const char *const *v = o->values; *v; v++) {
                ok |= !strcmp(*v, optarg);
                cgs_buf_addf(&b, "%s%s", v == o->values ? "" : v[1] ? ", " : " or ", *v);
            }
            if (!ok) {
                cli_usage_error(c, "--%s takes %s, not '%s'", o->name, b.buf, optarg);
                cgs_buf_release(&b);
                return '?';
            }
            cgs_buf_release(&b);
            break;
        }
    }
    if (r == ':') {
        cli_usage_error(c, "option '%s' needs a value", argv[optind - 1]);
        return '?';
    }
    if (r == '?') {
        char shortname[3] = {'-', (char)optopt, 0};
        cli_unknown_option(c, optopt ? shortname : argv[optind - 1]);
        return '?';
    }
    return r;
}

int cli_usage_error(const struct cmd *c, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "cgscope %s: ", c->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    va_start(ap, fmt);
    keep_error(NULL, 0, 0, NULL, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s\n(see 'cgscope %s --help')\n", c->usage, c->name);
    return CGS_EXIT_BAD_INPUT;
}

int cli_file_error(const char *file, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "cgscope: %s: %serror%s: %s\n", file, cli_paint(2, "bad"), CLI_RESET(2), msg);
    keep_errorf(file, 0, 0, NULL, "%s", msg);
    return CGS_EXIT_BAD_INPUT;
}

void cli_file_warn(const char *file, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "cgscope: %s: %swarning%s: ", file, cli_paint(2, "warn"), CLI_RESET(2));
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_unknown_option(const struct cmd *c, const char *arg)
{
    const char *best = NULL, *name = arg;
    char key[128];
    struct cgs_nearest nr;
    while (*name == '-')
        name++;
    snprintf(key, sizeof(key), "%.*s", (int)strcspn(name, "="), name);
    cgs_nearest_init(&nr, key, 3);
    if (name - arg == 2 && *key)
        for (const struct cli_opt *o = c->options; o && o->name; o++)
            cgs_nearest_offer(&nr, o->name);
    best = nr.best;
    if (best)
        return cli_usage_error(c, "unknown option '%s'; did you mean '--%s'?", arg, best);
    return cli_usage_error(c, "unknown option '%s'", arg);
}

int cli_report_diag(const struct cgs_diag *d)
{
    char msg[1024];
    cgs_diag_format(d, msg, sizeof(msg));
    fprintf(stderr, "cgscope: %s\n", msg); /* one voice: "cgscope: FILE:LINE:COL: error: ..." */
    keep_errorf(d->file, d->line, d->col, d->path, "%s", d->msg[0] ? d->msg : cgs_strerror(d->code));
    return CGS_EXIT_BAD_INPUT;
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "cgscope: %serror%s: ", cli_paint(2, "bad"), CLI_RESET(2));
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    va_start(ap, fmt);
    keep_error(NULL, 0, 0, NULL, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CGS_EXIT_BAD_INPUT;
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "cgscope: %swarning%s: ", cli_paint(2, "warn"), CLI_RESET(2));
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int load_decl_file(struct cgs_opdecls *ds, const char *path)
{
    struct cgs_diag d = CGS_DIAG_INIT;

    if (cgs_opdecls_load(ds, path, &d)) {
        if (!d.file)
            cgs_diag_at(&d, path, d.line, d.col);
        return cli_report_diag(&d);
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.ops file of dir, in name order; a folder that is not there is no error. */
static int load_decl_dir(struct cgs_opdecls *ds, const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    char *names[256];
    size_t n = 0;
    int rc = 0;

    if (!dp)
        return 0;
    while ((e = readdir(dp)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".ops") && e->d_name[0] != '.')
            names[n++] = cgs_xstrdup(e->d_name); /* out of memory: the message, exit 2 */
    }
    closedir(dp);
    qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        if (!rc) {
            snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
            rc = load_decl_file(ds, path);
        }
        free(names[i]);
    }
    return rc;
}

int cli_load_opdecls(struct cgs_opdecls *ds, const char *const *files, size_t n_files)
{
    char exe[PATH_MAX], dir[PATH_MAX + 32];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    const char *env = getenv("CGSCOPE_OPS");
    int rc = 0;

    if (len > 0) {
        char *slash;
        exe[len] = 0;
        slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        snprintf(dir, sizeof(dir), "%s/ops", exe);
        rc = load_decl_dir(ds, dir);
        // build folders (build-address-undefined/cgscope) find the tree's ops/ too
        snprintf(dir, sizeof(dir), "%s/../ops", exe);
        if (!rc && access(dir, R_OK) == 0 && strcmp(exe, "/usr/bin") && strcmp(exe, "/bin"))
            rc = load_decl_dir(ds, dir);
        snprintf(dir, sizeof(dir), "%s/../share/cgscope/ops", exe);
        if (!rc)
            rc = load_decl_dir(ds, dir);
    }
    if (!rc && env && *env) {
        char *copy = strdup(env), *save = NULL, *tok;
        for (tok = copy ? strtok_r(copy, ":", &save) : NULL; tok && !rc;
             tok = strtok_r(NULL, ":", &save))
            rc = load_decl_file(ds, tok);
        free(copy);
    }
    for (size_t i = 0; i < n_files && !rc; i++)
        rc = load_decl_file(ds, files[i]);
    return rc;
}

void cli_doc_open(struct jsonw *w, struct jsonw_obj *doc, int depth, const char *command)
{
    char format[64];
    snprintf(format, sizeof(format), "cgscope-%s", command);
    jsonw_open(w, doc, depth);
    jsonw_field_str(w, doc, "format", format);
    jsonw_field_num(w, doc, "version", CGS_JSON_VERSION);
    jsonw_field_str(w, doc, "cgscope", CGS_VERSION);
}

void cli_names_write(struct jsonw *w, const struct cgs_node *const *nodes, uint32_t n)
{
    jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            jsonw_sep(w);
        jsonw_string(w, nodes[i]->name);
    }
    jsonw_raw(w, "]", 1);
}

void cli_piece_fields(struct jsonw *w, struct jsonw_obj *o, const struct cgs_split *s, uint32_t i,
                      bool with_nodes)
{
    const struct cgs_split_piece *p = &s->pieces[i];
    jsonw_field_str(w, o, "name", p->name);
    jsonw_field_num(w, o, "graph_id", (double)p->graph_id);
    jsonw_field_bool(w, o, "is_splitting_graph", p->is_splitting_graph);
    if (with_nodes) {
        jsonw_field(w, o, "nodes");
        cli_names_write(w, (const struct cgs_node *const *)p->nodes, p->n_nodes);
    }
    jsonw_field_num(w, o, "n_nodes", p->n_nodes);
    jsonw_field(w, o, "inputs");
    cli_names_write(w, (const struct cgs_node *const *)p->inputs, p->n_inputs);
    jsonw_field(w, o, "outputs");
    cli_names_write(w, (const struct cgs_node *const *)p->outputs, p->n_outputs);
    if (p->compile_index >= 0)
        jsonw_field_num(w, o, "compile_index", p->compile_index);
    else
        jsonw_field_null(w, o, "compile_index");
}

cJSON *cli_written_tree(void (*write)(struct jsonw *w, void *ctx), void *ctx)
{
    struct cgs_buf b = CGS_BUF_INIT;
    struct jsonw w;
    cJSON *t;
    jsonw_init(&w, jsonw_to_buf, &b);
    w.compact = true;
    write(&w, ctx);
    jsonw_finish(&w);
    cgs_buf_addch(&b, 0);
    if (!(t = cJSON_Parse(b.buf)))
        CGS_BUG("a document written is not JSON");
    cgs_buf_release(&b);
    return t;
}

static void warn_line(const char *file, const char *msg, void *ctx)
{
    (void)ctx;
    cli_file_warn(file, "%s", msg);
}

int cli_sources_read(const struct cgs_follow *f, unsigned want, const char *wanted)
{
    if (cgs_follow_verdict(f, want, wanted, warn_line, NULL))
        return 0;
    if (f->n_roots == 1)
        return cli_file_error(f->roots[0], "nothing was read (see above): this command reads %s",
                              wanted);
    return cli_error("nothing was read from the sources (see above): this command reads %s",
                     wanted);
}

enum cgs_stage cli_graph_stage = CGS_STAGE_DYNAMO;

struct cgs_graph *cli_load_graph(const char *path, const char *model)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_load_opts opts = {model};
    struct cgs_graph *g;

    if (cgs_graphs_is_source(path)) {
        /* a TORCH_TRACE log, a cache folder, or a ref to one of their graphs */
        char *note = NULL;
        g = cgs_graphs_open(path, cli_graph_stage, &note, &d);
        if (g && note)
            cli_file_warn(path, "%s", note);
        free(note);
    } else {
        g = cgs_graph_load(path, &opts, &d);
    }
    if (!g)
        cli_report_diag(&d);
    return g;
}

void cli_print_notes(const struct cgs_graph *g, unsigned max)
{
    unsigned shown = 0, skipped = 0;
    for (uint32_t i = 0; i < g->n_notes; i++) {
        const struct cgs_note *n = &g->notes[i];
        if (n->level == CGS_NOTE_INFO)
            continue;
        if (shown == max) {
            skipped++;
            continue;
        }
        fprintf(stderr, "%s: %s: %s%s%s%s\n", g->file ? g->file : "graph",
                n->level == CGS_NOTE_ERROR ? "error" : "warning", n->node ? "node '" : "",
                n->node ? n->node->name : "", n->node ? "': " : "", n->msg);
        shown++;
    }
    if (skipped)
        fprintf(stderr, "%s: ... and %u more\n", g->file ? g->file : "graph", skipped);
}

static bool to_file(void *ctx, const char *p, size_t n)
{
    return fwrite(p, 1, n, ctx) == n;
}

void cli_json_out_begin(struct jsonw *w)
{
    fflush(stdout);
    jsonw_init(w, to_file, stdout);
}

void cli_json_out_end(struct jsonw *w)
{
    jsonw_raw(w, "\n", 1);
    jsonw_finish(w);
    fflush(stdout);
}

void cli_print_written(void (*write)(struct jsonw *w, void *ctx), void *ctx)
{
    struct jsonw w;
    cli_json_out_begin(&w);
    write(&w, ctx);
    cli_json_out_end(&w);
}

/* ---- atomic output files ------------------------------------------------------ */

static char *tmp_path, *final_path;
static int tmp_notify_fd = -1;

void cli_tmp_notify(int fd)
{
    tmp_notify_fd = fd;
}

void cli_out_of_memory(size_t size)
{
    /* no allocation from here on: the message is built on the stack */
    char msg[256];
    int n = snprintf(msg, sizeof(msg),
                     "cgscope: error: out of memory%s%zu%s: the input needs more memory than "
                     "this machine gives (try a smaller graph, or raise the limit)\n",
                     size ? " (allocating " : "", size, size ? " bytes)" : "");
    if (!size)
        n = snprintf(msg, sizeof(msg), "cgscope: error: out of memory: the input needs more "
                     "memory than this machine gives (try a smaller graph, or raise the limit)\n");
    if (n > 0 && write(2, msg, (size_t)n) < 0)
        n = 0;
    if (tmp_path)
        unlink(tmp_path); /* no half-written output */
    _exit(CGS_EXIT_BAD_INPUT);
}
/* SIGBUS: a graph file is mapped while its graph lives (lib/readers/load-json.c), and one truncated by
 * another program meanwhile faults when a page past its new end is read. Async-signal-safe:
 * a fixed message, the temporary output removed, exit 2. */
static void on_sigbus(int sig)
{
    static const char msg[] = "cgscope: error: an input file shrank while it was being read "
                              "(another program is writing it?): run again once it is "
                              "complete\n";
    (void)sig;
    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* nothing more to say */
    }
    if (tmp_path)
        unlink(tmp_path);
    _exit(CGS_EXIT_BAD_INPUT);
}

/* SIGTERM, SIGINT, SIGHUP: the half-written output goes with the process (the temporary file
 * removed), then the signal takes its course; children that draw die with their parent. */
static void on_stop(int sig)
{
    if (tmp_path)
        unlink(tmp_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
    sa.sa_handler = on_stop;
    for (size_t i = 0; i < 3; i++) {
        static const int stop[] = {SIGTERM, SIGINT, SIGHUP};
        struct sigaction old;
        /* a signal the caller ignores (nohup) stays ignored */
        if (!sigaction(stop[i], NULL, &old) && old.sa_handler != SIG_IGN)
            sigaction(stop[i], &sa, NULL);
    }
    /* a file past the size limit (ulimit -f): the write fails with EFBIG and is reported, the
       temporary output removed, instead of SIGXFSZ killing the process mid-write */
    signal(SIGXFSZ, SIG_IGN);
}

static bool cleanup_registered;

static void tmp_cleanup(void)
{
    if (tmp_path)
        unlink(tmp_path);
}

const char *cli_tmp_begin(const char *path)
{
    size_t n = strlen(path) + 16;
    int fd;
    cli_tmp_abort();
    tmp_path = malloc(n);
    final_path = strdup(path);
    if (!tmp_path || !final_path)
        cli_out_of_memory(n);
    snprintf(tmp_path, n, "%s.tmp-XXXXXX", path);
    fd = mkstemp(tmp_path);
    if (fd < 0) {
        cli_error("cannot write '%s': %s (a temporary file beside it could not be made)",
                  path, strerror(errno));
        free(tmp_path);
        free(final_path);
        tmp_path = final_path = NULL;
        return NULL;
    }
    {
        /* mkstemp makes it 0600; an output file gets the usual 0666 less the umask */
        mode_t mask = umask(0);
        umask(mask);
        if (fchmod(fd, 0666 & ~mask)) {
            /* keeps 0600: still a correct file */
        }
    }
    close(fd);
    if (tmp_notify_fd >= 0) {
        // the parent removes it when this process dies before finishing it
        size_t plen = strlen(tmp_path);
        if (write(tmp_notify_fd, tmp_path, plen) != (ssize_t)plen ||
            write(tmp_notify_fd, "\n", 1) != 1)
            tmp_notify_fd = -1;
    }
    if (!cleanup_registered) {
        atexit(tmp_cleanup);
        cleanup_registered = true;
    }
    return tmp_path;
}

int cli_tmp_commit(void)
{
    int r = 0;
    if (!tmp_path)
        return -1;
    if (rename(tmp_path, final_path)) {
        cli_error("cannot write '%s': %s (renaming the finished temporary file onto it)",
                  final_path, strerror(errno));
        unlink(tmp_path);
        r = -1;
    }
    free(tmp_path);
    free(final_path);
    tmp_path = final_path = NULL;
    return r;
}

void cli_tmp_abort(void)
{
    if (tmp_path)
        unlink(tmp_path);
    free(tmp_path);
    free(final_path);
    tmp_path = final_path = NULL;
}

/* Write everything to an open descriptor; -1 with errno on failure. */
static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The path a chain of symbolic links from path ends at (which need not exist), into out. */
static bool link_target(const char *path, char *out, size_t n)
{
    char cur[PATH_MAX], next[PATH_MAX];
    struct stat st;
    if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
        return false;
    for (int hops = 0; hops < 40; hops++) {
        ssize_t k;
        if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
            return snprintf(out, n, "%s", cur) < (int)n;
        k = readlink(cur, next, sizeof(next) - 1);
        if (k < 0)
            return false;
        next[k] = '\0';
        if (next[0] == '/') {
            memcpy(cur, next, (size_t)k + 1);
        } else {
            char *slash = strrchr(cur, '/');
            size_t dir = slash ? (size_t)(slash - cur) + 1 : 0;
            if (dir + (size_t)k + 1 > sizeof(cur))
                return false;
            memcpy(cur + dir, next, (size_t)k + 1);
        }
    }
    return false;
}

/* A symbolic link another user planted in a shared sticky folder (/tmp): following it would
 * let them choose which of our files gets replaced. Linux's fs.protected_symlinks rule: follow
 * a link there only when we own it or the folder's owner does. */
static bool foreign_link(const char *path, const struct stat *link)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    struct stat ds;
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == path)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    if (stat(dir, &ds) || !(ds.st_mode & S_ISVTX) || !(ds.st_mode & S_IWOTH))
        return false;
    return link->st_uid != geteuid() && link->st_uid != ds.st_uid;
}

static int write_file(const char *path, const void *data, size_t len, bool follow);

int cli_write_file(const char *path, const void *data, size_t len)
{
    return write_file(path, data, len, true);
}

int cli_write_file_here(const char *path, const void *data, size_t len)
{
    return write_file(path, data, len, false);
}

static int write_file(const char *path, const void *data, size_t len, bool follow)
{
    struct stat st;
    char resolved[PATH_MAX];
    const char *target = path, *tmp;
    FILE *f;

    if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
        if (!follow)
            return cli_error("cannot write '%s': it is a symbolic link, and cgscope writes no "
                             "file through a link in a folder it fills (remove the link)",
                             path), -1;
        if (foreign_link(path, &st))
            return cli_error("cannot write '%s': a symbolic link another user (uid %lu) made in "
                             "a shared sticky folder; cgscope does not follow it (name the file "
                             "it points at, or write elsewhere)",
                             path, (unsigned long)st.st_uid), -1;
    }

    if (!stat(path, &st) && S_ISDIR(st.st_mode))
        return cli_error("cannot write '%s': it is a folder", path), -1;
    if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
        // a FIFO, a terminal, /dev/stdout, /dev/null: written through, as they are; a
        // rename would replace them with a regular file. A FIFO nobody reads is refused, not
        // waited on (opened without blocking, then written blocking).
        int fd = open(path, O_WRONLY | O_CLOEXEC | (S_ISFIFO(st.st_mode) ? O_NONBLOCK : 0));
        if (fd < 0 && errno == ENXIO)
            return cli_error("cannot write '%s': it is a FIFO that nothing reads (start its "
                             "reader first)", path), -1;
        if (fd >= 0 && S_ISFIFO(st.st_mode))
            (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        if (fd < 0 || write_all(fd, data, len) < 0) {
            cli_error("cannot write '%s': %s", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        if (close(fd))
            return cli_error("cannot write '%s': %s", path, strerror(errno)), -1;
        return 0;
    }
    // a symlink: the file it points at is replaced (atomically, beside it), not the link; a
    // dangling one gets the file it names made
    if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
        if (realpath(path, resolved))
            target = resolved;
        else if (link_target(path, resolved, sizeof(resolved)))
            target = resolved;
        else
            return cli_error("cannot write '%s': a symbolic link that leads nowhere (a loop, or "
                             "a target longer than a path)", path), -1;
    }
    tmp = cli_tmp_begin(target);
    if (!tmp)
        return -1;
    f = fopen(tmp, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fflush(f) || ferror(f)) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        if (f)
            fclose(f);
        cli_tmp_abort();
        return -1;
    }
    if (fclose(f)) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        cli_tmp_abort();
        return -1;
    }
    return cli_tmp_commit();
}

void cli_list_add_csv(struct cli_list *l, const char *arg)
{
    const char *p = arg;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len) {
            char *s = cgs_xmalloc(len + 1);
            memcpy(s, p, len);
            s[len] = '\0';
            CGS_ALLOC_GROW(l->items, l->n + 1, l->alloc);
            l->items[l->n++] = s;
        }
        if (!e)
            break;
        p = e + 1;
    }
}

void cli_list_release(struct cli_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    free(l->preset);
    l->items = NULL;
    l->preset = NULL;
    l->n = l->alloc = l->preset_alloc = 0;
}

static void list_mark(struct cli_list *l, size_t from, unsigned char preset)
{
    CGS_ALLOC_GROW(l->preset, l->n, l->preset_alloc);
    for (size_t i = from; i < l->n; i++)
        l->preset[i] = preset;
}

int cli_split_ops_add(struct cli_list *l, const char *arg)
{
    struct cli_list tmp = CLI_LIST_INIT;

    cli_list_add_csv(&tmp, arg);
    for (size_t i = 0; i < tmp.n; i++) {
        const char *name = tmp.items[i];
        size_t from = l->n;
        if (name[0] == '@') {
            const struct cgs_op_preset *p = cgs_op_preset_find(name);
            if (!p) {
                cli_error("unknown splitting-op preset '%s' (presets: @vllm, @magi, @sdpa; "
                          "'cgscope split --presets' lists them)", name);
                cli_list_release(&tmp);
                return -1;
            }
            for (const char *const *op = p->ops; *op; op++)
                cli_list_add_csv(l, *op);
            list_mark(l, from, (unsigned char)(p - cgs_op_presets + 1));
        } else {
            cli_list_add_csv(l, name);
            list_mark(l, from, 0);
        }
    }
    cli_list_release(&tmp);
    return 0;
}

void cli_print_presets(FILE *f)
{
    for (const struct cgs_op_preset *p = cgs_op_presets; p->name; p++) {
        fprintf(f, "@%s: %s\n", p->name, p->source);
        for (const char *const *op = p->ops; *op; op++)
            fprintf(f, "  %s\n", *op);
    }
}

const char *cli_human_bytes(int64_t bytes, char *buf, size_t n)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = -1;
    if (bytes < 1024 && bytes > -1024) {
        snprintf(buf, n, "%lld byte%s", (long long)bytes, bytes == 1 ? "" : "s");
        return buf;
    }
    while ((v >= 1024 || v <= -1024) && u < 5) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, "%.1f %s", v, units[u]);
    return buf;
}

static int color_on[3] = {-1, -1, -1};

const char *cli_paint(int fd, const char *role)
{
    static const struct {
        const char *role, *sgr;
    } roles[] = {{"ok", "\033[32m"},   {"warn", "\033[33m"}, {"bad", "\033[31m"},
                 {"dim", "\033[2m"},   {"bold", "\033[1m"},  {"reset", "\033[0m"}};
    if (fd != 1 && fd != 2)
        return "";
    if (color_on[fd] < 0) {
        const char *force = getenv("CGSCOPE_COLOR"), *term = getenv("TERM");
        if (force && !strcmp(force, "always"))
            color_on[fd] = 1;
        else if (force && !strcmp(force, "never"))
            color_on[fd] = 0;
        else
            color_on[fd] = isatty(fd) && !(getenv("NO_COLOR") && *getenv("NO_COLOR")) &&
                           !(term && !strcmp(term, "dumb"));
    }
    if (!color_on[fd])
        return "";
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
        if (!strcmp(roles[i].role, role))
            return roles[i].sgr;
    return "";
}

bool cli_parse_uint(const char *s, unsigned long *out)
{
    char *end;
    unsigned long v;
    if (!s || !*s || *s == '-')
        return false;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

void cli_split_ops_recorded(const struct cgs_graph *g, struct cli_list *ops)
{
    const char *found[64];
    uint32_t n;

    if (ops->n)
        return;
    n = cgs_split_recorded_ops(g, found, 64);
    for (uint32_t i = 0; i < n; i++) {
        cli_list_add_csv(ops, found[i]);
        fprintf(stderr,
                "cgscope: %s: splitting at %s: alone in a piece the compiler recorded "
                "(--split-ops overrides)\n",
                g->file, found[i]);
    }
}

uint32_t cli_split_check_recorded(const struct cgs_split *s)
{
    const struct cgs_node *first;
    uint32_t n = cgs_split_recorded_diff(s, &first);

    if (n) {
        const struct cgs_split_piece *p = cgs_split_piece_of(s, first);
        cli_warn("%s: %u node%s not in the piece the compiler recorded for them: '%s' was in %s, "
                 "this split puts it in %s (other splitting ops? give --split-ops)",
                 s->g->file, n, PLURAL(n), first->name, first->piece, p ? p->name : "none");
    }
    return n;
}

int cli_check_split_ops(const struct cgs_split *s, const struct cli_list *ops, const char *graph,
                        bool allow_missing)
{
    int rc = 0;

    // a preset: some of its ops matching is enough
    for (const struct cgs_op_preset *p = cgs_op_presets; p->name; p++) {
        unsigned char id = (unsigned char)(p - cgs_op_presets + 1);
        bool used = false, any = false;
        for (uint32_t i = 0; ops && ops->preset && i < s->n_ops && i < ops->n; i++)
            if (ops->preset[i] == id) {
                used = true;
                any = any || s->ops[i].n_matched;
            }
        if (!used || any)
            continue;
        if (allow_missing)
            cli_warn("no op of the preset @%s matches a node of %s", p->name, graph);
        else
            rc = cli_file_error(graph, "no op of the preset @%s matches a node (--allow-missing-ops if "
                           "they may be absent; 'cgscope info' lists the graph's ops)", p->name);
    }
    for (uint32_t i = 0; i < s->n_ops; i++) {
        const struct cgs_split_opmatch *m = &s->ops[i];
        struct cgs_buf b = CGS_BUF_INIT;
        const struct cgs_op_preset *named = NULL;
        if (m->n_matched || (ops && ops->preset && i < ops->n && ops->preset[i]))
            continue;
        /* a preset's name without its '@' ("sdpa"): that is what was meant, not a near op */
        for (const struct cgs_op_preset *p = cgs_op_presets; p->name && !named; p++)
            if (!strcasecmp(p->name, m->op))
                named = p;
        if (named) {
            if (allow_missing)
                cli_warn("splitting op '%s' matches no node of %s; did you mean '@%s' (the "
                         "preset)?", m->op, graph, named->name);
            else
                rc = cli_file_error(graph, "splitting op '%s' matches no node; did you mean '@%s' (the "
                               "preset; 'cgscope split --presets' lists them)?", m->op,
                               named->name);
            continue;
        }
        for (uint32_t k = 0; k < m->n_suggestions; k++)
            cgs_buf_addf(&b, "%s'%s'", k ? (k + 1 == m->n_suggestions ? " or " : ", ") : "",
                         m->suggestions[k]);
        if (allow_missing)
            cli_warn("splitting op '%s' matches no node of %s%s%s%s", m->op, graph,
                     m->n_suggestions ? "; did you mean " : "", b.buf,
                     m->n_suggestions ? "?" : "");
        else
            rc = cli_file_error(graph, "splitting op '%s' matches no node%s%s%s (--allow-missing-ops "
                           "if it may be absent)", m->op, m->n_suggestions ? "; did you mean " : "", b.buf,
                           m->n_suggestions ? "?" : "");
        cgs_buf_release(&b);
    }
    return rc ? CGS_EXIT_BAD_INPUT : 0;
}

int cli_exit_status(int wait_status)
{
    if (WIFEXITED(wait_status))
        return WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status))
        return 128 + WTERMSIG(wait_status);
    return 1;
}

const char *const cli_presets_values[] = {NULL}; /* a marker: the presets are read at run time */

bool cli_print_values(const struct cli_opt *o, FILE *f)
{
    if (o->values == cli_presets_values) {
        for (const struct cgs_op_preset *p = cgs_op_presets; p->name; p++)
            fprintf(f, "@%s\n", p->name);
        return true;
    }
    if (!o->values)
        return false;
    for (const char *const *v = o->values; *v; v++)
        fprintf(f, "%s\n", *v);
    return true;
}
