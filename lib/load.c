/*
 * The loaders' front door: cgs_graph_load() picks the reader (graph JSON or a
 * torch.export .pt2 archive) from the input's first bytes, and reads standard
 * input for "-". The readers sit below it (load-json.c, load-pt2.c) and share
 * only lib/file.h.
 */
#include "lib/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_zip_magic(const unsigned char *m, size_t n)
{
    return n >= 4 && m[0] == 'P' && m[1] == 'K' && (m[2] == 3 || m[2] == 5);
}

/* Standard input, a pipe, a FIFO or a process substitution (/dev/fd/63): what can be read
 * once only is read whole, then told apart by its first bytes. */
static struct cgs_graph *load_stream(const char *path, const char *name,
                                     const struct cgs_load_opts *opts, struct cgs_diag *d)
{
    char *buf;
    size_t len;
    struct cgs_graph *g;

    if (cgs_read_file(path, &buf, &len, CGS_LOAD_MAX_FILE, d))
        return NULL;
    if (is_zip_magic((const unsigned char *)buf, len))
        g = cgs_graph_load_pt2_buf(buf, len, name, opts ? opts->model : NULL, d);
    else
        g = cgs_graph_load_json_buf(buf, len, name, d);
    free(buf);
    if (!g && d && !d->file)
        d->file = name;
    return g;
}

struct cgs_graph *cgs_graph_load(const char *path, const struct cgs_load_opts *opts,
                                 struct cgs_diag *d)
{
    unsigned char magic[4] = {0};
    struct stat st;
    FILE *f;
    size_t n;

    cgs_diag_clear(d);
    if (cgs_path_is_stdin(path))
        return load_stream("-", CGS_STDIN_NAME, opts, d);
    if (!stat(path, &st) && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
        return load_stream(path, path, opts, d);
    if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
        cgs_diag_at(d, path, 0, 0);
        cgs_diag_set(d, CGS_E_IO, "is a folder, not a file: give the path of a graph JSON or "
                     ".pt2 file inside it");
        return NULL;
    }
    f = fopen(path, "rb");
    if (!f) {
        cgs_diag_at(d, path, 0, 0);
        cgs_diag_set(d, CGS_E_IO, "cannot open: %s", strerror(errno));
        return NULL;
    }
    n = fread(magic, 1, sizeof(magic), f);
    fclose(f);
    if (is_zip_magic(magic, n))
        return cgs_graph_load_pt2(path, opts ? opts->model : NULL, d);
    /* a damaged or foreign file named .pt2 gets the archive reader's message */
    if (cgs_path_has_ext(path, ".pt2") && (n == 0 || magic[0] != '{'))
        return cgs_graph_load_pt2(path, opts ? opts->model : NULL, d);
    return cgs_graph_load_json(path, d);
}
