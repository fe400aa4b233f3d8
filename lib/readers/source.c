/*
 * Sources as one table (lib/readers/source.h): the probe, and the rows whose sniff is a line or
 * two. The folder readers that list printed graphs have files of their own (src-cache.c,
 * src-depyf.c).
 */
#include "lib/readers/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/readers/file.h"
#include "lib/readers/unpack.h"

const char *const cgs_source_role_names[CGS_ROLE_COUNT] = {"graph", "log", "compiles",
                                                           "profile"};

#define CGS_SOURCE_ROW_(k, r) &cgs_src_##r,
static const struct cgs_source_reader *const rows[CGS_SRCK_COUNT] = {
    CGS_SOURCE_KINDS(CGS_SOURCE_ROW_)};
#undef CGS_SOURCE_ROW_

static void to_head(void *ctx, const char *data, size_t len)
{
    struct cgs_probe *p = ctx;
    size_t room = sizeof(p->head) - p->n_head, take = len < room ? len : room;
    memcpy(p->head + p->n_head, data, take);
    p->n_head += take;
}

static ssize_t read_some(int fd, void *buf, size_t n)
{
    ssize_t r;
    do
        r = read(fd, buf, n);
    while (r < 0 && errno == EINTR);
    return r;
}

/* A compressed file: its first unpacked bytes into p->head, read on from fd. */
static void unpack_head(struct cgs_probe *p, int fd)
{
    struct cgs_unpack u;
    struct cgs_diag d = CGS_DIAG_INIT;
    unsigned char raw[CGS_SNIFF_HEAD], in[16384];
    size_t n_raw = p->n_head;
    ssize_t n;

    memcpy(raw, p->head, n_raw);
    p->n_head = 0;
    if (cgs_unpack_init(&u, p->kind, (uint64_t)CGS_SNIFF_HEAD * 64, 0, &d))
        return; /* no library: the trace reader says which is missing */
    /* in slices, stopping once the head is whole: a 4 KB slice of an xz log unpacks to 40 KB
     * and more, all of it decoded (a tenth of `graphs` on small compressed logs) */
    for (size_t at = 0, k; at < n_raw && p->n_head < sizeof(p->head); at += k) {
        k = n_raw - at < 512 ? n_raw - at : 512;
        if (cgs_unpack_feed(&u, raw + at, k, to_head, p, &d))
            goto done;
    }
    while (p->n_head < sizeof(p->head) && (n = read_some(fd, in, 512)) > 0)
        if (cgs_unpack_feed(&u, in, (size_t)n, to_head, p, &d))
            break;
done:
    cgs_unpack_release(&u);
    if (p->n_head)
        p->inner = cgs_sniff(p->head, p->n_head, NULL);
}

int cgs_source_probe(struct cgs_probe *p, const char *path)
{
    const char *hash;
    int fd;
    ssize_t n;

    memset(p, 0, sizeof(*p));
    p->path = path;
    p->kind = p->inner = CGS_IN_UNKNOWN;
    snprintf(p->file, sizeof(p->file), "%s", path);
    if (cgs_path_is_stdin(path)) {
        p->exists = p->is_stream = true;
        return 0;
    }
    if (stat(path, &p->st)) {
        /* PATH#SEL: a ref, when PATH is there */
        hash = strrchr(path, '#');
        if (hash && hash != path && (size_t)(hash - path) < sizeof(p->file)) {
            p->file[hash - path] = '\0';
            if (!stat(p->file, &p->st)) {
                p->sel = hash + 1;
                p->exists = true;
                p->is_dir = S_ISDIR(p->st.st_mode);
                p->is_reg = S_ISREG(p->st.st_mode);
                return 0;
            }
            snprintf(p->file, sizeof(p->file), "%s", path);
        }
        p->err = errno ? errno : ENOENT;
        return -1;
    }
    p->exists = true;
    p->is_dir = S_ISDIR(p->st.st_mode);
    p->is_reg = S_ISREG(p->st.st_mode);
    p->is_stream = S_ISFIFO(p->st.st_mode) || S_ISCHR(p->st.st_mode) || S_ISSOCK(p->st.st_mode);
    if (!p->is_reg)
        return 0; /* a folder's names are read by the rows that look; a stream is not touched */
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        p->err = errno;
        return -1;
    }
    n = read_some(fd, p->head, sizeof(p->head));
    if (n < 0) {
        p->err = errno;
        close(fd);
        return -1;
    }
    p->n_head = (size_t)n;
    p->kind = cgs_sniff(p->head, p->n_head, path);
    if (cgs_input_kind_compressed(p->kind))
        unpack_head(p, fd);
    close(fd);
    return 0;
}

enum cgs_source_kind cgs_source_kind(const struct cgs_probe *p)
{
    for (int k = 0; k < CGS_SRCK_COUNT; k++)
        if (rows[k]->sniff ? rows[k]->sniff(p)
                           : p->is_reg && !p->sel && p->kind == rows[k]->file_kind)
            return (enum cgs_source_kind)k;
    return CGS_SRCK_NONE;
}

const struct cgs_source_reader *cgs_source_reader(enum cgs_source_kind k)
{
    return (unsigned)k < CGS_SRCK_COUNT ? rows[k] : NULL;
}

enum cgs_source_kind cgs_source_kind_of(const char *path)
{
    struct cgs_probe p;
    if (cgs_source_probe(&p, path))
        return CGS_SRCK_NONE;
    return cgs_source_kind(&p);
}

bool cgs_source_kind_lists(enum cgs_source_kind k)
{
    return k == CGS_SRCK_REF || k == CGS_SRCK_TRACE || k == CGS_SRCK_TRACE_DIR ||
           k == CGS_SRCK_PRINTED || (k >= 0 && k < CGS_SRCK_COUNT && rows[k]->list);
}

/* a line of head that starts with w */
static bool line_starts(const unsigned char *h, size_t n, const char *w)
{
    size_t m = strlen(w);
    for (size_t i = 0; i + m <= n; i++)
        if ((i == 0 || h[i - 1] == '\n') && !memcmp(h + i, w, m))
            return true;
    return false;
}

/* Only comments, blank lines and imports in the whole head: a file whose first lines are a
 * long header (a licence, depyf's notes) before the class; the reader says if it is not one. */
static bool head_is_preamble(const unsigned char *h, size_t n)
{
    for (size_t i = 0; i < n;) {
        const unsigned char *nl = memchr(h + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - h) : n, k = i;
        while (k < e && (h[k] == ' ' || h[k] == '\t' || h[k] == '\r'))
            k++;
        if (k < e && h[k] != '#' && !(e - k >= 7 && !memcmp(h + k, "import ", 7)) &&
            !(e - k >= 5 && !memcmp(h + k, "from ", 5)))
            return false;
        i = e + 1;
    }
    return n > 0;
}

bool cgs_source_head_is_printed(const unsigned char *h, size_t n)
{
    const char *needle = "(torch.nn.Module):";
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (!memcmp(h + i, needle, m))
            return true;
    return line_starts(h, n, "def forward(self") || (n >= CGS_SNIFF_HEAD && head_is_preamble(h, n));
}

/* ---- the rows whose sniff is a line or two -------------------------------------------- */

static bool sniff_ref(const struct cgs_probe *p)
{
    return p->sel != NULL;
}
const struct cgs_source_reader cgs_src_ref = {
    .what = "a graph ref (PATH#ID:STAGE)",
    .role = CGS_ROLE_GRAPH,
    .sniff = sniff_ref,
};

/* CUPTI traces cgscope's profiler wrote, or the report made of them */
static bool sniff_profile_dir(const struct cgs_probe *p)
{
    char path[4096];
    struct stat st;
    bool found = false;
    DIR *dp;
    struct dirent *e;
    if (!p->is_dir || p->sel)
        return false;
    if ((size_t)snprintf(path, sizeof(path), "%s/report.json", p->file) < sizeof(path) &&
        !stat(path, &st) && S_ISREG(st.st_mode))
        return true;
    if (!(dp = opendir(p->file)))
        return false;
    while (!found && (e = readdir(dp)))
        found = strstr(e->d_name, ".cgstrace") != NULL;
    closedir(dp);
    return found;
}
const struct cgs_source_reader cgs_src_profile_dir = {
    .what = "a profile folder",
    .role = CGS_ROLE_PROFILE,
    .sniff = sniff_profile_dir,
};

static bool sniff_trace_dir(const struct cgs_probe *p)
{
    return p->is_dir && !p->sel;
}
const struct cgs_source_reader cgs_src_trace_dir = {
    .what = "a folder of TORCH_TRACE logs",
    .role = CGS_ROLE_LOG,
    .sniff = sniff_trace_dir,
};

const struct cgs_source_reader cgs_src_graph_json = {
    .what = "a graph JSON",
    .role = CGS_ROLE_GRAPH,
    .file_kind = CGS_IN_GRAPH_JSON,
};

const struct cgs_source_reader cgs_src_pt2 = {
    .what = "a torch.export .pt2",
    .role = CGS_ROLE_GRAPH,
    .file_kind = CGS_IN_ZIP,
};

static bool sniff_printed(const struct cgs_probe *p)
{
    return p->is_reg && !p->sel && p->kind == CGS_IN_TEXT && cgs_path_has_ext(p->file, ".py") &&
           cgs_source_head_is_printed(p->head, p->n_head);
}
const struct cgs_source_reader cgs_src_printed = {
    .what = "a printed graph",
    .role = CGS_ROLE_GRAPH,
    .sniff = sniff_printed,
};

/* a log, compressed or not (a compressed file whose library is missing counts as one: the
 * trace reader says what to install) */
static bool sniff_trace(const struct cgs_probe *p)
{
    if (!p->is_reg || p->sel)
        return false;
    if (cgs_input_kind_compressed(p->kind))
        return p->inner == CGS_IN_TRACE_LOG || (p->inner == CGS_IN_UNKNOWN && !p->n_head);
    return p->kind == CGS_IN_TRACE_LOG;
}
const struct cgs_source_reader cgs_src_trace = {
    .what = "a TORCH_TRACE log",
    .role = CGS_ROLE_LOG,
    .sniff = sniff_trace,
};

const struct cgs_source_reader cgs_src_events = {
    .what = "the bridge's events",
    .role = CGS_ROLE_COMPILES,
    .file_kind = CGS_IN_EVENTS,
};

const struct cgs_source_reader cgs_src_cache_index = {
    .what = "a compile-cache index",
    .role = CGS_ROLE_COMPILES,
    .file_kind = CGS_IN_CACHE_INDEX,
};

const struct cgs_source_reader cgs_src_cupti_trace = {
    .what = "a CUPTI trace",
    .role = CGS_ROLE_PROFILE,
    .file_kind = CGS_IN_CUPTI_TRACE,
};

const struct cgs_source_reader cgs_src_report = {
    .what = "a profile report",
    .role = CGS_ROLE_PROFILE,
    .file_kind = CGS_IN_PROFILE_REPORT,
};
