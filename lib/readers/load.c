/*
 * The loaders' front door: cgs_graph_load() picks the reader (graph JSON or a
 * torch.export .pt2 archive) from the input's first bytes, and reads standard
 * input for "-". The readers sit below it (load-json.c, load-pt2.c) and share
 * only lib/readers/file.h.
 */
#include "lib/readers/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/readers/sniff.h"
#include "lib/readers/source.h"

static bool is_zip_magic(const unsigned char *m, size_t n)
{
    return cgs_sniff(m, n < 8 ? n : 8, NULL) == CGS_IN_ZIP;
}

/* A file whose first bytes say it is something else than a graph: refused, naming what it is
 * (a PNG, a TORCH_TRACE log, a CUPTI trace) instead of the byte the JSON reader stops at.
 * Empty files, wide text, unnamed binary and JSON go on to the reader, whose messages have
 * positions and limits. */
static bool refuse_kind(const void *head, size_t n, const char *name, const char *path,
                        struct cgs_diag *d)
{
    enum cgs_input_kind k = cgs_sniff(head, n, name), inner = CGS_IN_UNKNOWN;
    struct cgs_probe p;
    switch (k) {
    case CGS_IN_GRAPH_JSON: case CGS_IN_ZIP: case CGS_IN_JSON: case CGS_IN_TEXT:
    case CGS_IN_UNKNOWN: case CGS_IN_EMPTY: case CGS_IN_WIDE_TEXT: case CGS_IN_BINARY:
        return false;
    case CGS_IN_GZIP: case CGS_IN_XZ: case CGS_IN_ZSTD:
        /* a file: what it holds (a compressed picture is no graph once decompressed) */
        if (path && !cgs_source_probe(&p, path))
            inner = p.inner;
        cgs_diag_at(d, name, 0, 0);
        if (inner != CGS_IN_UNKNOWN && inner != CGS_IN_GRAPH_JSON && inner != CGS_IN_ZIP &&
            inner != CGS_IN_JSON)
            cgs_diag_set(d, CGS_E_FORMAT, "is %s holding %s, not a graph%s%s",
                         cgs_input_kind_what(k), cgs_input_kind_what(inner),
                         cgs_input_kind_hint(inner) ? ": " : "",
                         cgs_input_kind_hint(inner) ? cgs_input_kind_hint(inner) : "");
        else
            cgs_diag_set(d, CGS_E_FORMAT, "is %s%s%s: graphs are read uncompressed; decompress "
                         "it first (%s)",
                         cgs_input_kind_what(k), inner != CGS_IN_UNKNOWN ? " holding " : "",
                         inner != CGS_IN_UNKNOWN ? cgs_input_kind_what(inner) : "",
                         cgs_input_kind_unpack(k));
        return true;
    default:
        cgs_sniff_refuse(d, name, k, "a graph (a graph JSON or a torch.export .pt2)");
        d->code = CGS_E_FORMAT;
        return true;
    }
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
    if (refuse_kind(buf, len < CGS_SNIFF_HEAD ? len : CGS_SNIFF_HEAD, name, NULL, d)) {
        free(buf);
        return NULL;
    }
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
    unsigned char magic[CGS_SNIFF_HEAD] = {0};
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
    if (refuse_kind(magic, n, path, path, d))
        return NULL;
    if (is_zip_magic(magic, n))
        return cgs_graph_load_pt2(path, opts ? opts->model : NULL, d);
    /* a damaged or foreign file named .pt2 gets the archive reader's message */
    if (cgs_path_has_ext(path, ".pt2") && (n == 0 || magic[0] != '{'))
        return cgs_graph_load_pt2(path, opts ? opts->model : NULL, d);
    return cgs_graph_load_json(path, d);
}
