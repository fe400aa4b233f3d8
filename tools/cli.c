#include "tools/cmd.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/arena.h"
#include "lib/load.h"
#include "lib/opdecl.h"
#include "lib/split.h"

void cli_print_help(const struct cmd *c, FILE *f)
{
    fprintf(f, "usage: %s\n\n%s\n", c->usage, c->summary);
    if (c->help && c->help[0])
        fprintf(f, "\n%s", c->help);
}

int cli_usage_error(const struct cmd *c, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "cgscope %s: ", c->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s\n(see 'cgscope %s --help')\n", c->usage, c->name);
    return CGS_EXIT_BAD_INPUT;
}

int cli_report_diag(const struct cgs_diag *d)
{
    char msg[1024];
    cgs_diag_format(d, msg, sizeof(msg));
    fprintf(stderr, "%s\n", msg);
    return CGS_EXIT_BAD_INPUT;
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("cgscope: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CGS_EXIT_BAD_INPUT;
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    fputs("cgscope: warning: ", stderr);
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
            names[n++] = strdup(e->d_name);
    }
    closedir(dp);
    qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        if (!rc && names[i]) {
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

struct cgs_graph *cli_load_graph(const char *path, const char *model)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    struct cgs_load_opts opts = {model};
    struct cgs_graph *g = cgs_graph_load(path, &opts, &d);
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

void cli_print_json(cJSON *doc)
{
    char *s = cJSON_Print(doc);
    if (!s) {
        fprintf(stderr, "fatal: out of memory printing JSON\n");
        abort();
    }
    fputs(s, stdout);
    fputc('\n', stdout);
    free(s);
    cJSON_Delete(doc);
}

/* ---- atomic output files ------------------------------------------------------ */

static char *tmp_path, *final_path;
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
    if (!tmp_path || !final_path) {
        fprintf(stderr, "fatal: out of memory\n");
        abort();
    }
    snprintf(tmp_path, n, "%s.tmp-XXXXXX", path);
    fd = mkstemp(tmp_path);
    if (fd < 0) {
        cli_error("cannot create '%s': %s", tmp_path, strerror(errno));
        free(tmp_path);
        free(final_path);
        tmp_path = final_path = NULL;
        return NULL;
    }
    close(fd);
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
        cli_error("cannot rename '%s' to '%s': %s", tmp_path, final_path, strerror(errno));
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

int cli_write_file(const char *path, const void *data, size_t len)
{
    const char *tmp = cli_tmp_begin(path);
    FILE *f;
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
    l->items = NULL;
    l->n = l->alloc = 0;
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

int cli_check_split_ops(const struct cgs_split *s, const char *graph, bool allow_missing)
{
    int rc = 0;

    for (uint32_t i = 0; i < s->n_ops; i++) {
        const struct cgs_split_opmatch *m = &s->ops[i];
        struct cgs_buf b = CGS_BUF_INIT;
        if (m->n_matched)
            continue;
        for (uint32_t k = 0; k < m->n_suggestions; k++)
            cgs_buf_addf(&b, "%s'%s'", k ? (k + 1 == m->n_suggestions ? " or " : ", ") : "",
                         m->suggestions[k]);
        if (allow_missing)
            cli_warn("splitting op '%s' matches no node of %s%s%s%s", m->op, graph,
                     m->n_suggestions ? "; did you mean " : "", b.buf,
                     m->n_suggestions ? "?" : "");
        else
            rc = cli_error("%s: splitting op '%s' matches no node%s%s%s (--allow-missing-ops "
                           "if it may be absent)",
                           graph, m->op, m->n_suggestions ? "; did you mean " : "", b.buf,
                           m->n_suggestions ? "?" : "");
        cgs_buf_release(&b);
    }
    return rc ? CGS_EXIT_BAD_INPUT : 0;
}
