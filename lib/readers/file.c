/* Reading inputs whole, and positions in them (lib/readers/file.h). */
#include "lib/readers/file.h"
#include "lib/base/arena.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <dirent.h>

bool cgs_path_is_stdin(const char *path)
{
    return path && path[0] == '-' && path[1] == '\0';
}

bool cgs_path_has_ext(const char *path, const char *ext)
{
    size_t pl = strlen(path), el = strlen(ext);
    return pl > el && !strcasecmp(path + pl - el, ext);
}

static int fail(struct cgs_diag *d, const char *path, FILE *f, char *buf, int code,
                const char *msg)
{
    free(buf);
    if (f && f != stdin)
        fclose(f);
    cgs_diag_at(d, path, 0, 0);
    return cgs_diag_set(d, code, "%s", msg);
}

int cgs_read_file(const char *path, char **bufp, size_t *lenp, size_t max, struct cgs_diag *d)
{
    bool is_stdin = cgs_path_is_stdin(path);
    const char *name = is_stdin ? CGS_STDIN_NAME : path;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    char *buf = NULL, msg[160];
    size_t len = 0, alloc = 0;
    struct stat st;

    if (!f) {
        snprintf(msg, sizeof(msg), "cannot open: %s", strerror(errno));
        return fail(d, name, NULL, NULL, CGS_E_IO, msg);
    }
    if (!fstat(fileno(f), &st)) {
        if (S_ISDIR(st.st_mode))
            return fail(d, name, f, NULL, CGS_E_IO, "is a folder, not a file: give the path "
                        "of a graph JSON or .pt2 file inside it");
        /* a regular file: one buffer of the right size */
        if (S_ISREG(st.st_mode) && st.st_size >= 0 && (uint64_t)st.st_size <= max) {
            alloc = (size_t)st.st_size + 65536 + 2;
            buf = malloc(alloc);
            if (!buf)
                return fail(d, name, f, NULL, CGS_E_NOMEM, "out of memory reading the file");
        }
    }
    for (;;) {
        if (alloc - len < 65536 + 1) {
            size_t want = alloc ? alloc * 2 : 1 << 20;
            char *nb = realloc(buf, want);
            if (!nb)
                return fail(d, name, f, buf, CGS_E_NOMEM, "out of memory reading the file");
            buf = nb;
            alloc = want;
        }
        size_t n = fread(buf + len, 1, alloc - len - 1, f);
        len += n;
        if (len > max) {
            snprintf(msg, sizeof(msg), "file larger than the limit of %zu bytes", max);
            return fail(d, name, f, buf, CGS_E_LIMIT, msg);
        }
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(msg, sizeof(msg), "read error: %s", strerror(errno));
        return fail(d, name, f, buf, CGS_E_IO, msg);
    }
    if (!is_stdin)
        fclose(f);
    buf[len] = '\0';
    *bufp = buf;
    *lenp = len;
    return 0;
}

bool cgs_text_is_wide(const void *buf, size_t len)
{
    const unsigned char *u = buf;
    return len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF) ||
                        (u[0] && !u[1]) || (!u[0] && u[1]));
}

void cgs_text_position(const char *buf, size_t len, size_t off, uint32_t *line, uint32_t *col)
{
    uint32_t l = 1, c = 1;
    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)buf[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

int cgs_file_tail(const char *path, char lines[][256], int max)
{
    char buf[16384];
    FILE *f = fopen(path, "rb");
    long size;
    size_t n;
    int count = 0;
    char *end;

    if (!f || max <= 0) {
        if (f)
            fclose(f);
        return 0;
    }
    if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > (long)sizeof(buf) - 1)
        fseek(f, size - (long)sizeof(buf) + 1, SEEK_SET);
    else
        fseek(f, 0, SEEK_SET);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    end = buf + n;
    /* walk back from the end, line by line */
    while (end > buf && count < max) {
        char *e = end, *b;
        while (e > buf && (e[-1] == '\n' || e[-1] == '\r'))
            e--;
        if (e == buf)
            break;
        b = e;
        while (b > buf && b[-1] != '\n')
            b--;
        count++;
        end = b;
    }
    /* now forward: the count lines from end */
    for (int i = 0; i < count; i++) {
        char *e = end;
        while (*e == '\n' || *e == '\r')
            e++;
        end = e;
        e += strcspn(e, "\r\n");
        snprintf(lines[i], 256, "%.*s", (int)(e - end), end);
        end = e;
    }
    return count;
}

/* The folders a walk has entered, by device and inode: a link back up (a loop) or a second
 * link to one folder is not walked again, so each file is found once. */
struct seen_dirs {
    struct {
        dev_t dev;
        ino_t ino;
    } *v;
    size_t n, alloc;
};

static bool enter(struct seen_dirs *s, const struct stat *st)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].dev == st->st_dev && s->v[i].ino == st->st_ino)
            return false;
    CGS_ALLOC_GROW(s->v, s->n + 1, s->alloc);
    s->v[s->n].dev = st->st_dev;
    s->v[s->n].ino = st->st_ino;
    s->n++;
    return true;
}

static int find_named(const char *dir, const char *const *names, unsigned n_names, int depth,
                      int (*fn)(const char *, void *), void *ctx, int *found,
                      struct seen_dirs *seen)
{
    char p[4096];
    struct stat st;
    struct dirent **ents = NULL;
    int k, rc = 0;

    for (unsigned i = 0; i < n_names; i++)
        if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, names[i]) < sizeof(p) &&
            stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            ++*found;
            if ((rc = fn(p, ctx)))
                return rc;
        }
    if (depth <= 0)
        return 0;
    k = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < k; i++) {
        if (!rc && ents[i]->d_name[0] != '.' &&
            (size_t)snprintf(p, sizeof(p), "%s/%s", dir, ents[i]->d_name) < sizeof(p) &&
            stat(p, &st) == 0 && S_ISDIR(st.st_mode) && enter(seen, &st))
            rc = find_named(p, names, n_names, depth - 1, fn, ctx, found, seen);
        free(ents[i]);
    }
    free(ents);
    return rc;
}

int cgs_find_named(const char *dir, const char *const *names, unsigned n_names, int depth,
                   int (*fn)(const char *path, void *ctx), void *ctx)
{
    struct seen_dirs seen = {NULL, 0, 0};
    struct stat st;
    int found = 0, rc;
    if (!stat(dir, &st))
        enter(&seen, &st);
    rc = find_named(dir, names, n_names, depth, fn, ctx, &found, &seen);
    free(seen.v);
    return rc ? rc : found;
}
